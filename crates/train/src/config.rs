//! The training configuration: TOML with per-game defaults, `--set key=value` overrides and
//! validation that names the offending key.
//!
//! A config file only needs the keys it changes; everything else comes from
//! [`TrainConfig::default_for`] of its `game.name`. Unknown keys and values of the wrong type
//! are errors naming the full key (`selfplay.simulatons`), and [`TrainConfig::validate`]
//! rejects out-of-range values the same way (`selfplay.simulations must be >= 1`). Every
//! struct also carries `#[serde(deny_unknown_fields)]`.
//!
//! Sections are the libraries' own configs where they can be: `[selfplay.search]` is
//! `alphazero_mcts::SearchConfig` itself, and `[gating.search]` lays keys of it over
//! self-play's ([`SearchOverlay`]); [`crate::settings`] holds the remaining translations.
//! Files in the older flat layout (`[selfplay] c_puct = …`) still read ([`LEGACY_SEARCH_KEYS`]).
//!
//! ```
//! use alphazero_train::config::TrainConfig;
//! let cfg = TrainConfig::parse(
//!     "[game]\nname = \"connect4\"\n[selfplay]\nsimulations = 64\n",
//!     &["train.lr=0.002"],
//! ).unwrap();
//! assert_eq!(cfg.selfplay.simulations, 64);
//! assert_eq!(cfg.train.lr, 0.002);
//! assert_eq!(cfg.model.blocks, 4); // connect4 default
//! ```

use alphazero_mcts::{CPuct, SearchConfig};
use alphazero_registry::{GameSpec, SpecError};
use serde::{Deserialize, Serialize};
use toml::{Table, Value};

use crate::settings;

/// The games a config may name: the registry's ([`GameSpec::NAMES`]).
pub const GAMES: [&str; 3] = GameSpec::NAMES;

/// The largest `selfplay.simulations` / `gating.simulations` accepted: a record stores a
/// ply's simulation count in 16 bits.
pub const MAX_SIMULATIONS: u32 = u16::MAX as u32;
/// The largest `train.batch_size` accepted (positions per training batch).
pub const MAX_BATCH_SIZE: u32 = 65_536;
/// The largest `model.blocks` accepted (residual blocks).
pub const MAX_BLOCKS: u32 = 64;
/// The largest `model.channels` accepted (trunk width).
pub const MAX_CHANNELS: u32 = 1024;
/// The largest `model.value_hidden` accepted.
pub const MAX_VALUE_HIDDEN: u32 = 4096;

/// The `game.name` a config file's text sets, if any (without applying defaults or
/// validating anything else).
///
/// # Errors
/// [`ConfigError::Syntax`] when the text is not TOML, [`ConfigError::Type`] when
/// `game.name` is not a string.
pub fn game_name_in(text: &str) -> Result<Option<String>, ConfigError> {
    let t: Table = toml::from_str(text).map_err(|e| ConfigError::Syntax(e.to_string()))?;
    match t.get("game").and_then(|g| g.get("name")) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(ConfigError::Type {
            key: "game.name".into(),
            expected: "a string",
            found: v.to_string(),
        }),
    }
}

/// The value of `[game] key` in a config file's text, as text (a string's contents or the
/// TOML text of another value), if the file sets it.
///
/// # Errors
/// [`ConfigError::Syntax`] if the text is not TOML.
pub fn game_field_in(text: &str, key: &str) -> Result<Option<String>, ConfigError> {
    let t: Table = toml::from_str(text).map_err(|e| ConfigError::Syntax(e.to_string()))?;
    Ok(t.get("game").and_then(|g| g.get(key)).map(|v| match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }))
}

/// Whether a config file's text sets any key of the table `[section]` (e.g. `model`).
///
/// # Errors
/// [`ConfigError::Syntax`] if the text is not TOML.
pub fn sets_section_in(text: &str, section: &str) -> Result<bool, ConfigError> {
    let t: Table = toml::from_str(text).map_err(|e| ConfigError::Syntax(e.to_string()))?;
    Ok(match t.get(section) {
        None => false,
        Some(Value::Table(s)) => !s.is_empty(),
        Some(_) => true,
    })
}

/// The `game.name` an override (`"game.name=xiangqi"`) sets, if it sets that key.
///
/// # Errors
/// [`ConfigError::BadOverride`] when `text` is not `key=value`, [`ConfigError::Type`] when
/// the value is not a string.
pub fn game_name_in_override(text: &str) -> Result<Option<String>, ConfigError> {
    let (path, value) = parse_override(text)?;
    if path != ["game", "name"] {
        return Ok(None);
    }
    match value {
        Value::String(s) => Ok(Some(s)),
        v => Err(ConfigError::Type {
            key: "game.name".into(),
            expected: "a string",
            found: v.to_string(),
        }),
    }
}

/// The dotted key and the value (a string's contents, or the TOML text of any other value)
/// of a `key=value` override as [`TrainConfig::with_overrides`] reads it.
///
/// # Errors
/// [`ConfigError::BadOverride`] without `=`.
pub fn override_key_value(text: &str) -> Result<(String, String), ConfigError> {
    let (path, value) = parse_override(text)?;
    let value = match value {
        Value::String(s) => s,
        v => v.to_string(),
    };
    Ok((path.join("."), value))
}

/// An error loading, overriding or validating a config. Names the key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// The TOML text does not parse.
    #[error("config is not valid TOML: {0}")]
    Syntax(String),
    /// A key that the config does not have; the message names the key's place when it is
    /// a key of another section (`selfplay.virtual_loss`: did you mean
    /// `selfplay.search.virtual_loss`?).
    #[error("unknown config key {key}{}", moved_key_hint(key))]
    UnknownKey {
        /// The full dotted key.
        key: String,
    },
    /// A required key is missing.
    #[error("missing config key {key}")]
    MissingKey {
        /// The full dotted key.
        key: String,
    },
    /// A value of the wrong type.
    #[error("config key {key} must be {expected}, got {found}")]
    Type {
        /// The full dotted key.
        key: String,
        /// The expected type.
        expected: &'static str,
        /// The value given, as TOML.
        found: String,
    },
    /// A value out of range.
    #[error("{key} {message} (got {value})")]
    Invalid {
        /// The full dotted key.
        key: String,
        /// What is required, e.g. "must be >= 1".
        message: String,
        /// The rejected value.
        value: String,
    },
    /// A `--set` override that is not `key=value`.
    #[error("override {0:?} is not of the form key=value")]
    BadOverride(String),
    /// A value that the typed config rejects (e.g. an unknown optimizer name).
    #[error("config value rejected: {0}")]
    Value(String),
    /// One source gives a key in its old and its new place ([`LEGACY_SEARCH_KEYS`]).
    #[error("{old} and {new} are one key, in its old and its new place; give it once, as {new}")]
    TwoSpellings {
        /// The old spelling, e.g. `selfplay.c_puct`.
        old: String,
        /// The new spelling, e.g. `selfplay.search.c_puct`.
        new: String,
    },
}

/// " (did you mean …?)" when `key`, unknown, is a key of the config in another place: a
/// search key directly in `[selfplay]` or `[gating]`, the simulations in a search table, or a
/// root-noise key in `[gating.search]`; else nothing.
fn moved_key_hint(key: &str) -> String {
    let search_keys: Vec<String> = match Value::try_from(SearchConfig::default()) {
        Ok(Value::Table(t)) => t.keys().cloned().collect(),
        _ => Vec::new(),
    };
    let is_search_key = |k: &str| search_keys.iter().any(|s| s == k);
    let parts: Vec<&str> = key.split('.').collect();
    let place = match parts.as_slice() {
        [section @ ("selfplay" | "gating"), k] if is_search_key(k) => {
            format!("{section}.search.{k}")
        }
        [section @ ("selfplay" | "gating"), "search", "simulations"] => {
            format!("{section}.simulations")
        }
        ["gating", "search", k] if ROOT_NOISE_KEYS.contains(k) => {
            return format!(" (the gating search has no root noise; {k} is selfplay.search's)");
        }
        _ => return String::new(),
    };
    format!(" (did you mean {place}?)")
}

/// `[game]`: which game and its rule options.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameSection {
    /// `connect4`, `gomoku` or `xiangqi`.
    pub name: String,
    /// Gomoku board side as text (`"15"`, 5..=20); empty for the other games (and then left
    /// out of [`TrainConfig::to_toml_string`]; configs saved with `size = ""` still load). A
    /// config file or override may give it as an integer (`size = 9`) or as a string
    /// (`size = "9"`).
    pub size: String,
    /// Gomoku rule (`freestyle`, `standard`, `renju`); empty for the other games (and then
    /// left out of the TOML text, as `size`).
    pub rule: String,
}

impl GameSection {
    /// The game with its variant in words, the name two processes of one run must agree on
    /// (the actor/learner manifest, [`crate::storage::exchange::claim_run`]): `connect4`,
    /// `xiangqi`, `gomoku 15x15 freestyle` (an empty size is 15, an empty rule freestyle).
    ///
    /// ```
    /// let mut cfg = alphazero_train::TrainConfig::default_for("gomoku").unwrap().game;
    /// cfg.size = "9".into();
    /// cfg.rule = "renju".into();
    /// assert_eq!(cfg.words(), "gomoku 9x9 renju");
    /// ```
    pub fn words(&self) -> String {
        match self.spec() {
            Ok(spec) => spec.words(),
            Err(_) => self.name.clone(),
        }
    }

    /// The typed game of this section: [`GameSpec::from_parts`] of the name, size and rule
    /// (empty = not given: Gomoku's are then 15 and freestyle).
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] naming `game.name`, `game.size` or `game.rule`: an unknown
    /// game, a size or rule given for a game that has none, a size that is not a board side
    /// from 5 to 20, an unknown rule.
    pub fn spec(&self) -> Result<GameSpec, ConfigError> {
        if !GAMES.contains(&self.name.as_str()) {
            return invalid(
                "game.name",
                format!("must be one of {}", GAMES.join(", ")),
                &self.name,
            );
        }
        let given = |t: &str| (!t.trim().is_empty()).then(|| t.trim().to_string());
        let (size_text, rule_text) = (given(&self.size), given(&self.rule));
        let bad_size = || {
            invalid(
                "game.size",
                "must be a board side from 5 to 20".into(),
                &self.size,
            )
        };
        let size = match &size_text {
            None => None,
            Some(t) => match t.parse::<u8>() {
                Ok(n) => Some(n),
                Err(_) => return bad_size(),
            },
        };
        let not_for_game = |key: &str, value: &str| {
            invalid(
                key,
                format!("applies to gomoku only, not {}", self.name),
                value,
            )
        };
        // Size first, then the rule, so that the error names the key that is wrong.
        match GameSpec::from_parts(&self.name, size, None) {
            Ok(_) => {}
            Err(SpecError::NotForGame { .. }) => return not_for_game("game.size", &self.size),
            Err(_) => return bad_size(),
        }
        match GameSpec::from_parts(&self.name, size, rule_text.as_deref()) {
            Ok(spec) => Ok(spec),
            Err(SpecError::NotForGame { .. }) => not_for_game("game.rule", &self.rule),
            Err(_) => invalid(
                "game.rule",
                "must be freestyle, standard or renju".into(),
                &self.rule,
            ),
        }
    }
}

/// `[selfplay.playout_cap]`: KataGo's playout-cap randomisation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayoutCapConfig {
    /// Whether some moves are searched with only `fast_simulations`.
    pub enabled: bool,
    /// Simulations of a fast move (not trained on).
    pub fast_simulations: u32,
    /// Probability in (0, 1] that a move gets the full search.
    pub full_probability: f64,
}

/// `[selfplay.resign]`: resignation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResignConfig {
    /// Whether self-play games may resign.
    pub enabled: bool,
    /// Resign when the root value from the side to move is below this (in [-1, 1]).
    pub threshold: f64,
    /// No resignation before this ply.
    pub min_ply: u32,
    /// Fraction of games in [0, 1] played out without resigning (to check false resigns).
    pub no_resign_fraction: f64,
}

/// How `[selfplay.restarts]` picks the positions restarted games start from. Both take the
/// positions of the games whose positions are in the replay buffer, each game's own plies
/// only (a restarted game's prefix belongs to the game it came from), never the initial
/// position; a game is picked from when any of its positions qualifies, and a position is
/// drawn uniformly among all that qualify.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RestartRule {
    /// Positions where the side to move had to defend: in a game won by one side (by the
    /// rules or by resignation; not a draw, not a game cut at `selfplay.max_plies`), the
    /// positions among the last `window` before its end at which the side that lost was to
    /// move; and, in any game, the positions marked *threat* (the search proved that some
    /// move there loses: the opponent had an immediate threat).
    Defend,
    /// Every position.
    Uniform,
}

/// `[selfplay.restarts]`: game restarts. A share of the self-play games start from a
/// position of an earlier game in the replay buffer, picked by `rule`, instead of the initial
/// position: the position's moves are replayed (so the repetition rules see them) and the
/// game is played on from there with the champion's searches; its π, root values and result
/// z are its own, never copied from the earlier game. Plies count from the initial position,
/// as in the earlier game (the temperature schedule, `resign.min_ply` and `max_plies`). The
/// record keeps the moves before its first ply (`.azr` version 3), so `records show` and the
/// replay buffer replay it from the initial position; only its own plies are trained on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RestartsConfig {
    /// Share of each iteration's games, in [0, 1), drawn per game, that restart (0 = off).
    /// Games start from the initial position while no position qualifies (the first
    /// iteration).
    pub share: f64,
    /// `defend` or `uniform` ([`RestartRule`]).
    pub rule: RestartRule,
    /// `defend`: how many of a game's last positions (plies before its end) are looked at
    /// for the losing side's turns (>= 1).
    pub window: u32,
}

/// `[selfplay]`: self-play game generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelfPlayConfig {
    /// Games generated per iteration.
    pub games_per_iteration: u32,
    /// Games played concurrently (their leaves are batched together), over all workers.
    pub parallel_games: u32,
    /// Self-play worker threads, each single-threaded with its own share of the games and
    /// its own network cache; 0 = one per core.
    pub workers: u32,
    /// MCTS simulations per full search.
    pub simulations: u32,
    /// Number of opening plies sampled with `temperature`; later plies use `final_temperature`.
    pub temperature_moves: u32,
    /// Visit-count temperature of the opening plies.
    pub temperature: f64,
    /// Temperature after `temperature_moves` (0 = pick the most visited move).
    pub final_temperature: f64,
    /// Playout-cap randomisation.
    pub playout_cap: PlayoutCapConfig,
    /// Resignation.
    pub resign: ResignConfig,
    /// Games reaching this many plies are stopped and recorded as draws flagged
    /// `truncated`. A cut-off game has no result, so its positions are not trained as draws:
    /// their value target is the search's root value q alone (as if
    /// `train.value_q_weight` were 1 for that game); their policy targets are kept.
    pub max_plies: u32,
    /// `[selfplay.restarts]`: game restarts (off by default).
    pub restarts: RestartsConfig,
    /// `[selfplay.search]`: the search of every self-play move, read straight into the
    /// search's own configuration (its keys are [`SearchConfig`]'s fields: `c_puct`,
    /// `fpu_reduction`, `dirichlet_alpha`, `dirichlet_epsilon`, `dirichlet_alpha_total`,
    /// `virtual_loss`, `leaves_per_batch`, `use_candidate_moves`, `solver`,
    /// `terminal_check`, `gumbel`, `tactical_budget`, `root_tactical_budget`,
    /// `reply_tactical_budget`, `draw_score`). The loop sets the rest: the simulations
    /// (`selfplay.simulations`, or the playout cap's), the root noise (on) and the seed.
    /// A key written flat in `[selfplay]` (`[selfplay] c_puct = 1.5`, the layout of files
    /// and saved run configs before `[selfplay.search]`, see [`LEGACY_SEARCH_KEYS`]) still
    /// reads here.
    ///
    /// The game presets set `tactical_budget` (Gomoku and Xiangqi 200: fives, threats and
    /// VCF / mates by checks at every expanded node), `draw_score` (Xiangqi −0.2: each side's
    /// search avoids the repetition draws early networks end most games with; results and
    /// targets are unchanged) and `dirichlet_alpha_total` (Gomoku 10: α = 10 / candidates).
    pub search: SearchConfig,
}

/// The `[selfplay]` keys of the layout before `[selfplay.search]`, each now
/// `selfplay.search.<key>`: a config file or saved run config that writes one flat still
/// reads, an override `selfplay.<key>=…` sets `selfplay.search.<key>`, and giving both
/// spellings in one source is an error naming both.
pub const LEGACY_SEARCH_KEYS: [&str; 9] = [
    "dirichlet_alpha",
    "dirichlet_epsilon",
    "c_puct",
    "fpu_reduction",
    "gumbel",
    "terminal_check",
    "tactical_budget",
    "dirichlet_alpha_total",
    "draw_score",
];

/// The `[selfplay.search]` keys `[gating.search]` cannot set: the root noise's (gating
/// searches without it).
pub const ROOT_NOISE_KEYS: [&str; 3] = [
    "dirichlet_alpha",
    "dirichlet_epsilon",
    "dirichlet_alpha_total",
];

/// `[replay]`: the replay buffer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplayConfig {
    /// Positions held.
    pub capacity: u32,
    /// Fraction of each batch drawn from the newest `recent_window` positions, in [0, 1].
    pub recent_fraction: f64,
    /// Size of the recent window in positions.
    pub recent_window: u32,
    /// Random board symmetry per sample.
    pub symmetries: bool,
    /// Oversample positions marked as threats.
    pub hard_mining: bool,
    /// Relative weight (>= 1) of threat positions under hard mining.
    pub threat_weight: f64,
}

/// `[model]`: the residual policy-value network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// Residual blocks.
    pub blocks: u32,
    /// Channels of the trunk.
    pub channels: u32,
    /// Width of the value head's hidden layer.
    pub value_hidden: u32,
    /// KataGo's global pooling bias in every third residual block from the third (the last
    /// block of a trunk of one or two blocks), see `alphazero_nn::GlobalPooling`; off by
    /// default. Files written before the key read as off.
    #[serde(default)]
    pub global_pooling: bool,
    /// Channels pooled in those blocks, below `channels`; 0 = a quarter of `channels`
    /// (rounded down to a multiple of 8 from 32 channels on).
    #[serde(default)]
    pub global_pooling_channels: u32,
}

/// The optimizer of `[train]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Optimizer {
    /// AdamW (decoupled weight decay).
    Adamw,
    /// SGD with momentum.
    Sgd,
}

/// The learning-rate schedule of `[train]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LrSchedule {
    /// `lr` throughout.
    Constant,
    /// `lr · lr_step_factor^(iteration / lr_step_every)`.
    Step,
    /// Cosine decay from `lr` to `lr_min` over the run: over `run.iterations` when that is
    /// set, else over `run.time_budget_minutes` of training time.
    Cosine,
}

/// `[train]`: the optimisation of the network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LearnerConfig {
    /// Positions per training batch.
    pub batch_size: u32,
    /// Training steps per iteration; 0 derives them from `samples_per_position`.
    pub steps_per_iteration: u32,
    /// When `steps_per_iteration` is 0: how many times each new position is sampled on
    /// average, i.e. steps = ceil(new positions · samples_per_position / batch_size).
    pub samples_per_position: f64,
    /// `adamw` or `sgd`.
    pub optimizer: Optimizer,
    /// Peak learning rate.
    pub lr: f64,
    /// `constant`, `step` or `cosine`.
    pub lr_schedule: LrSchedule,
    /// Iterations between decays of the `step` schedule.
    pub lr_step_every: u32,
    /// Decay factor in (0, 1] of the `step` schedule.
    pub lr_step_factor: f64,
    /// Final learning rate of the `cosine` schedule.
    pub lr_min: f64,
    /// Weight decay (L2 for SGD, decoupled for AdamW).
    pub weight_decay: f64,
    /// SGD momentum in [0, 1) (β1 is fixed for AdamW).
    pub momentum: f64,
    /// Gradient-norm clip; 0 disables clipping.
    pub grad_clip: f64,
    /// Weight λ in [0, 1] of the search's root value q in the value target
    /// `(1 − λ)·z + λ·q`, both from the side to move (0 = the game result z alone, as in
    /// AlphaZero; 0.5 = the "(z + q)/2" target of Prasad's "Lessons from AlphaZero" for
    /// Connect Four, a short-term value in KataGo's sense). Older records without a root
    /// value do not exist: every recorded ply carries it. Positions of games cut off at
    /// `selfplay.max_plies` always take q alone (their z = 0 is no result).
    pub value_q_weight: f64,
    /// Weight (≥ 0) of the training-only opponent-reply policy head's loss: cross-entropy
    /// against the move the opponent played next (KataGo's auxiliary policy target, weight
    /// 0.15 there; a position whose move ended the game has no target). 0 = no such head.
    pub aux_policy_weight: f64,
    /// Weight (≥ 0) of the training-only ownership head's loss: mean squared error per point
    /// against the game's ownership map (`Encode::ownership`: the final board for Gomoku and
    /// Connect Four, which pieces survive for Xiangqi). 0 = no such head.
    pub aux_ownership_weight: f64,
}

impl LearnerConfig {
    /// Training steps for an iteration that added `new_positions` positions (at least 1).
    pub fn steps_for(&self, new_positions: u64) -> u64 {
        if self.steps_per_iteration > 0 {
            return u64::from(self.steps_per_iteration);
        }
        let samples = new_positions as f64 * self.samples_per_position;
        ((samples / f64::from(self.batch_size.max(1))).ceil() as u64).max(1)
    }

    /// The learning rate of `iteration` (0-based) of a run of `total_iterations` (used by
    /// the cosine schedule; 0 = unknown, treated as constant).
    pub fn lr_at(&self, iteration: u32, total_iterations: u32) -> f64 {
        let progress =
            (total_iterations > 0).then(|| f64::from(iteration) / f64::from(total_iterations));
        self.lr_at_progress(iteration, progress)
    }

    /// The learning rate of `iteration` (0-based) when a fraction `progress` (in [0, 1],
    /// `None` when unknown) of the run is done: the cosine schedule follows `progress` (and
    /// stays at `lr` when it is unknown), the step schedule follows `iteration`. A run
    /// limited by time passes the fraction of `run.time_budget_minutes` spent.
    pub fn lr_at_progress(&self, iteration: u32, progress: Option<f64>) -> f64 {
        match self.lr_schedule {
            LrSchedule::Constant => self.lr,
            LrSchedule::Step => {
                let k = iteration / self.lr_step_every.max(1);
                self.lr * self.lr_step_factor.powi(k as i32)
            }
            LrSchedule::Cosine => {
                let Some(t) = progress else {
                    return self.lr;
                };
                let t = t.clamp(0.0, 1.0);
                self.lr_min
                    + 0.5 * (self.lr - self.lr_min) * (1.0 + (std::f64::consts::PI * t).cos())
            }
        }
    }
}

/// `[gating.sprt]`: stop gating matches early with an SPRT.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SprtConfig {
    /// Whether gating stops early on an SPRT decision.
    pub enabled: bool,
    /// Elo difference under H0.
    pub elo0: f64,
    /// Elo difference under H1 (> elo0).
    pub elo1: f64,
    /// False-positive rate in (0, 0.5).
    pub alpha: f64,
    /// False-negative rate in (0, 0.5).
    pub beta: f64,
}

/// `[gating]`: candidate against champion.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatingConfig {
    /// Whether candidates must beat the champion to be promoted (false: always promote).
    pub enabled: bool,
    /// Games of a gating match (at most, when the SPRT is enabled).
    pub games: u32,
    /// Simulations per move in gating games.
    pub simulations: u32,
    /// Score (wins + draws/2 over games) in (0, 1] needed for promotion.
    pub win_rate: f64,
    /// Early stopping.
    pub sprt: SprtConfig,
    /// Plies played uniformly at random at the start of each gating game (for variety).
    pub opening_random_plies: u32,
    /// `[gating.search]`: the gating search's own settings; a key left out is
    /// `[selfplay.search]`'s (the default: gating searches as self-play does, with
    /// `gating.simulations`, no root noise, τ = 0).
    #[serde(default, skip_serializing_if = "SearchOverlay::is_unset")]
    pub search: SearchOverlay,
}

/// `[gating.search]`: the keys of `[selfplay.search]` (any but the root noise's,
/// [`ROOT_NOISE_KEYS`]) that the gating match sets differently, as written; each is read by
/// [`SearchConfig`]'s own definition when laid over self-play's search
/// ([`SearchOverlay::over`]). Empty = gating searches exactly as self-play.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SearchOverlay(pub Table);

impl SearchOverlay {
    /// Whether no key is set (gating searches exactly as self-play).
    pub fn is_unset(&self) -> bool {
        self.0.is_empty()
    }

    /// `base` with every key of this overlay in place of its own; the fields that are no
    /// config keys (simulations, root noise, τ, seed) stay `base`'s.
    ///
    /// # Errors
    /// [`ConfigError::Value`] naming `gating.search` when a key is unknown or of the wrong
    /// type (never for a config that [`TrainConfig::parse`] accepted).
    pub fn over(&self, base: &SearchConfig) -> Result<SearchConfig, ConfigError> {
        let bad = |e: &dyn std::fmt::Display| ConfigError::Value(format!("gating.search: {e}"));
        let mut table = match Value::try_from(base) {
            Ok(Value::Table(t)) => t,
            Ok(v) => return Err(bad(&format!("the search config is not a table: {v}"))),
            Err(e) => return Err(bad(&e)),
        };
        for (k, v) in &self.0 {
            table.insert(k.clone(), v.clone());
        }
        let out: SearchConfig = Value::Table(table).try_into().map_err(|e| bad(&e))?;
        Ok(SearchConfig {
            simulations: base.simulations,
            root_noise: base.root_noise,
            temperature: base.temperature,
            seed: base.seed,
            ..out
        })
    }
}

/// `[eval]`: measurements taken inside the training loop (never training data).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalConfig {
    /// Connect Four only: every this many iterations (and after the last one), the share of
    /// a fixed slice of the solver's test positions (`tests/data/connect4`) on which the
    /// network's policy picks a best move / a move that keeps the result, and its value has
    /// the right sign; 0 = off (the default of the other games, which have no solver).
    pub solver_every: u32,
    /// Positions of that slice: the first ones of the test sets `Test_L2_R1` and
    /// `Test_L2_R2` (half each; middle-game positions, quick to solve).
    pub solver_positions: u32,
}

/// `[actors]`: the pace of a learner (`alphazero learner`) whose games come from actors
/// (`alphazero actor`); `alphazero train` plays its own games and ignores it. The learner
/// keeps its own pace, however many actors publish: each iteration takes the oldest published
/// batches only, and batches played by a champion too far behind are skipped, so that
/// iterations stay the same size and actors' games stay fresh (the windowed buffer and
/// bounded sample reuse of KataGo and lc0).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActorsConfig {
    /// Games an iteration takes at most, once the published batches hold
    /// `selfplay.games_per_iteration`: whole batches, oldest champion first (at least one
    /// batch, however large); the rest wait for the next iterations. 0 =
    /// `selfplay.games_per_iteration`.
    pub max_games_per_iteration: u32,
    /// A published batch played by a champion more than this many champions before the
    /// current one is skipped: not trained on, deleted, and counted in the iteration's
    /// metrics (`stale_games`).
    pub max_champion_lag: u32,
}

impl ActorsConfig {
    /// The games an iteration takes at most when `selfplay.games_per_iteration` is
    /// `games_per_iteration`.
    pub fn max_games(&self, games_per_iteration: u32) -> u64 {
        u64::from(match self.max_games_per_iteration {
            0 => games_per_iteration,
            n => n,
        })
    }
}

/// `[run]`: the run as a whole.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// Iterations to run; 0 = no limit (then `time_budget_minutes` must be set).
    pub iterations: u32,
    /// Wall-clock budget in minutes; 0 = no limit.
    pub time_budget_minutes: f64,
    /// Save a snapshot of the network every this many iterations.
    pub snapshot_every: u32,
    /// Seed of the run's random number generators (at most 2^63 − 1).
    pub seed: u64,
    /// Worker threads; 0 = all cores.
    pub threads: u32,
}

/// The whole training configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainConfig {
    /// `[game]`.
    pub game: GameSection,
    /// `[selfplay]`.
    pub selfplay: SelfPlayConfig,
    /// `[replay]`.
    pub replay: ReplayConfig,
    /// `[model]`.
    pub model: ModelConfig,
    /// `[train]`.
    pub train: LearnerConfig,
    /// `[gating]`.
    pub gating: GatingConfig,
    /// `[eval]`.
    pub eval: EvalConfig,
    /// `[actors]`.
    pub actors: ActorsConfig,
    /// `[run]`.
    pub run: RunConfig,
}

impl TrainConfig {
    /// The defaults for a game: a game-neutral base (below) with the game's training preset
    /// from the registry ([`GameSpec::training_preset`]) laid over it: `connect4` (4×32 network, 128 simulations with playout-cap
    /// randomisation, 60 minutes, no gating, value target (z + q)/2), `gomoku` (15×15
    /// freestyle, 10×128, 400 simulations, gating, value target z) or `xiangqi` (10×128, 400
    /// simulations, resignation, no gating, value target (z + q)/2).
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] for `game.name` when the game is unknown.
    pub fn default_for(game: &str) -> Result<Self, ConfigError> {
        let base = TrainConfig {
            game: GameSection {
                name: game.to_string(),
                size: String::new(),
                rule: String::new(),
            },
            selfplay: SelfPlayConfig {
                games_per_iteration: 200,
                parallel_games: 64,
                workers: 0,
                simulations: 400,
                temperature_moves: 30,
                temperature: 1.0,
                final_temperature: 0.0,
                playout_cap: PlayoutCapConfig {
                    enabled: false,
                    fast_simulations: 64,
                    full_probability: 0.25,
                },
                resign: ResignConfig {
                    enabled: false,
                    threshold: -0.9,
                    min_ply: 20,
                    no_resign_fraction: 0.1,
                },
                max_plies: 400,
                restarts: RestartsConfig {
                    share: 0.0,
                    rule: RestartRule::Defend,
                    window: 10,
                },
                search: SearchConfig {
                    c_puct: CPuct::Constant(1.5),
                    fpu_reduction: 0.2,
                    dirichlet_alpha: 0.3,
                    dirichlet_epsilon: 0.25,
                    terminal_check: true,
                    tactical_budget: None,
                    dirichlet_alpha_total: None,
                    draw_score: 0.0,
                    ..SearchConfig::default()
                },
            },
            replay: ReplayConfig {
                capacity: 200_000,
                recent_fraction: 0.25,
                recent_window: 20_000,
                symmetries: true,
                hard_mining: false,
                threat_weight: 4.0,
            },
            model: ModelConfig {
                blocks: 10,
                channels: 128,
                value_hidden: 128,
                global_pooling: false,
                global_pooling_channels: 0,
            },
            train: LearnerConfig {
                batch_size: 256,
                steps_per_iteration: 0,
                samples_per_position: 4.0,
                optimizer: Optimizer::Adamw,
                lr: 1e-3,
                lr_schedule: LrSchedule::Constant,
                lr_step_every: 50,
                lr_step_factor: 0.5,
                lr_min: 1e-5,
                weight_decay: 1e-4,
                momentum: 0.9,
                grad_clip: 5.0,
                value_q_weight: 0.0,
                aux_policy_weight: 0.0,
                aux_ownership_weight: 0.0,
            },
            gating: GatingConfig {
                enabled: true,
                games: 100,
                simulations: 400,
                win_rate: 0.55,
                sprt: SprtConfig {
                    enabled: true,
                    elo0: 0.0,
                    elo1: 35.0,
                    alpha: 0.05,
                    beta: 0.05,
                },
                opening_random_plies: 4,
                search: SearchOverlay::default(),
            },
            eval: EvalConfig {
                solver_every: 0,
                solver_positions: 200,
            },
            actors: ActorsConfig {
                max_games_per_iteration: 0,
                max_champion_lag: 4,
            },
            run: RunConfig {
                iterations: 100,
                time_budget_minutes: 0.0,
                snapshot_every: 10,
                seed: 0,
                threads: 0,
            },
        };
        let spec = GAMES
            .contains(&game)
            .then(|| GameSpec::from_parts(game, None, None).ok())
            .flatten();
        let Some(spec) = spec else {
            return Err(ConfigError::Invalid {
                key: "game.name".into(),
                message: format!("must be one of {}", GAMES.join(", ")),
                value: format!("{game:?}"),
            });
        };
        // The game's own defaults, from its registry module, over the game-neutral base.
        let preset: Table = toml::from_str(spec.training_preset()).map_err(|e| {
            ConfigError::Value(format!("the {game} training preset of the registry: {e}"))
        })?;
        let mut table = base.to_table()?;
        merge_checked(&mut table, &preset, "")?;
        Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| ConfigError::Value(e.to_string()))
    }

    /// Parses a config file's text (may be empty), applies `overrides` (`"key=value"`, the
    /// value in TOML syntax or a bare string), fills every missing key from
    /// [`TrainConfig::default_for`] of the resulting `game.name`, and validates.
    ///
    /// # Errors
    /// [`ConfigError::Syntax`], [`ConfigError::BadOverride`],
    /// [`ConfigError::MissingKey`] (`game.name`), [`ConfigError::UnknownKey`],
    /// [`ConfigError::Type`], [`ConfigError::Value`] and the errors of
    /// [`TrainConfig::validate`], each naming the key.
    pub fn parse<S: AsRef<str>>(text: &str, overrides: &[S]) -> Result<Self, ConfigError> {
        let mut user: Table =
            toml::from_str(text).map_err(|e| ConfigError::Syntax(e.to_string()))?;
        move_legacy_keys(&mut user)?;
        for (path, value) in parse_overrides(overrides)? {
            set_path(&mut user, &path, value)?;
        }
        let name = match user.get("game").and_then(|g| g.get("name")) {
            Some(Value::String(s)) => s.clone(),
            Some(v) => {
                return Err(ConfigError::Type {
                    key: "game.name".into(),
                    expected: "a string",
                    found: v.to_string(),
                });
            }
            None => {
                return Err(ConfigError::MissingKey {
                    key: "game.name".into(),
                });
            }
        };
        let base = TrainConfig::default_for(&name)?;
        let mut table = base.to_table()?;
        merge_user(&mut table, &user)?;
        let cfg: TrainConfig = Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| ConfigError::Value(e.to_string()))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Parses and validates a config file's text (see [`TrainConfig::parse`]).
    ///
    /// # Errors
    /// As [`TrainConfig::parse`].
    pub fn from_toml_str(text: &str) -> Result<Self, ConfigError> {
        Self::parse::<&str>(text, &[])
    }

    /// This config with `overrides` (`"selfplay.simulations=50"`) applied and validated.
    /// Changing `game.name` here does not switch to the other game's defaults; use
    /// [`TrainConfig::parse`] for that.
    ///
    /// # Errors
    /// As [`TrainConfig::parse`].
    pub fn with_overrides<S: AsRef<str>>(&self, overrides: &[S]) -> Result<Self, ConfigError> {
        let mut table = self.to_table()?;
        for (path, value) in parse_overrides(overrides)? {
            let mut single = Table::new();
            set_path(&mut single, &path, value)?;
            merge_user(&mut table, &single)?;
        }
        let cfg: TrainConfig = Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| ConfigError::Value(e.to_string()))?;
        cfg.validate()?;
        Ok(cfg)
    }

    fn to_table(&self) -> Result<Table, ConfigError> {
        match Value::try_from(self) {
            Ok(Value::Table(t)) => Ok(t),
            Ok(_) => Err(ConfigError::Value(
                "config did not serialise to a table".into(),
            )),
            Err(e) => Err(ConfigError::Value(e.to_string())),
        }
    }

    /// The effective config as TOML text (every key but an empty `game.size` / `game.rule`;
    /// parses back to an equal config).
    ///
    /// # Errors
    /// [`ConfigError::Value`] when a value has no TOML form (`run.seed` above 2^63 − 1).
    pub fn to_toml_string(&self) -> Result<String, ConfigError> {
        let text = toml::to_string(self).map_err(|e| ConfigError::Value(e.to_string()))?;
        // A game without a board size or rule option (Connect Four, Xiangqi) has no
        // `size = ""` / `rule = ""` to show: loading fills them in again.
        let mut section = "";
        let mut out = String::with_capacity(text.len());
        for line in text.lines() {
            if line.starts_with('[') {
                section = line;
            }
            if section == "[game]" && (line == "size = \"\"" || line == "rule = \"\"") {
                continue;
            }
            out.push_str(line);
            out.push('\n');
        }
        Ok(out)
    }

    /// Checks every value's range.
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] for the first bad value, naming its key and the rule, e.g.
    /// `selfplay.simulations must be >= 1 (got 0)`.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.game.spec()?;
        let s = &self.selfplay;
        at_least("selfplay.games_per_iteration", s.games_per_iteration, 1)?;
        at_least("selfplay.parallel_games", s.parallel_games, 1)?;
        at_least("selfplay.simulations", s.simulations, 1)?;
        at_most("selfplay.simulations", s.simulations, MAX_SIMULATIONS)?;
        non_negative("selfplay.temperature", s.temperature)?;
        non_negative("selfplay.final_temperature", s.final_temperature)?;
        // The searches as the loop runs them, checked by the search's own rules.
        search_valid(
            "selfplay.search",
            &settings::search_config(self, 1, true, 0),
        )?;
        // Values of a feature that is off are checked too (a config that turns it on later
        // must not find a bad value waiting); only the checks against other keys wait.
        at_least(
            "selfplay.playout_cap.fast_simulations",
            s.playout_cap.fast_simulations,
            1,
        )?;
        at_most(
            "selfplay.playout_cap.fast_simulations",
            s.playout_cap.fast_simulations,
            MAX_SIMULATIONS,
        )?;
        if s.playout_cap.enabled && s.playout_cap.fast_simulations > s.simulations {
            return invalid(
                "selfplay.playout_cap.fast_simulations",
                format!(
                    "must be <= selfplay.simulations ({}); lower it too \
                     (--set selfplay.playout_cap.fast_simulations=N) or turn the playout \
                     cap off (--set selfplay.playout_cap.enabled=false)",
                    s.simulations
                ),
                s.playout_cap.fast_simulations,
            );
        }
        in_range(
            "selfplay.playout_cap.full_probability",
            s.playout_cap.full_probability,
            0.0,
            1.0,
        )?;
        if s.playout_cap.full_probability == 0.0 {
            return invalid(
                "selfplay.playout_cap.full_probability",
                "must be > 0".into(),
                0.0,
            );
        }
        in_range("selfplay.resign.threshold", s.resign.threshold, -1.0, 1.0)?;
        in_range(
            "selfplay.resign.no_resign_fraction",
            s.resign.no_resign_fraction,
            0.0,
            1.0,
        )?;
        at_least("selfplay.max_plies", s.max_plies, 1)?;
        if !(0.0..1.0).contains(&s.restarts.share) {
            return invalid(
                "selfplay.restarts.share",
                "must be in [0, 1) (0 = off; at 1 no game would start from the initial \
                 position once the replay buffer holds games)"
                    .into(),
                s.restarts.share,
            );
        }
        at_least("selfplay.restarts.window", s.restarts.window, 1)?;

        let r = &self.replay;
        at_least("replay.capacity", r.capacity, 1)?;
        in_range("replay.recent_fraction", r.recent_fraction, 0.0, 1.0)?;
        if r.recent_fraction > 0.0 {
            at_least("replay.recent_window", r.recent_window, 1)?;
        }
        if !(r.threat_weight.is_finite() && r.threat_weight >= 1.0) {
            return invalid(
                "replay.threat_weight",
                "must be >= 1".into(),
                r.threat_weight,
            );
        }

        let m = &self.model;
        between("model.blocks", m.blocks, 1, MAX_BLOCKS)?;
        between("model.channels", m.channels, 1, MAX_CHANNELS)?;
        between("model.value_hidden", m.value_hidden, 1, MAX_VALUE_HIDDEN)?;
        // Checked whether pooling is on or not (as other features' values are).
        if m.global_pooling_channels >= m.channels {
            return invalid(
                "model.global_pooling_channels",
                format!(
                    "must be below model.channels ({}), or 0 for a quarter of them",
                    m.channels
                ),
                m.global_pooling_channels,
            );
        }
        if m.global_pooling && m.channels < 2 {
            return invalid(
                "model.global_pooling",
                format!(
                    "needs model.channels >= 2 (got {}): some channels are pooled, the others \
                     take the pooled bias",
                    m.channels
                ),
                m.global_pooling,
            );
        }

        let t = &self.train;
        at_least("train.batch_size", t.batch_size, 1)?;
        at_most("train.batch_size", t.batch_size, MAX_BATCH_SIZE)?;
        positive("train.samples_per_position", t.samples_per_position)?;
        positive("train.lr", t.lr)?;
        at_least("train.lr_step_every", t.lr_step_every, 1)?;
        in_range("train.lr_step_factor", t.lr_step_factor, 0.0, 1.0)?;
        if t.lr_step_factor == 0.0 {
            return invalid("train.lr_step_factor", "must be > 0".into(), 0.0);
        }
        non_negative("train.lr_min", t.lr_min)?;
        if t.lr_schedule == LrSchedule::Cosine {
            in_range("train.lr_min", t.lr_min, 0.0, t.lr)?;
        }
        non_negative("train.weight_decay", t.weight_decay)?;
        in_range("train.momentum", t.momentum, 0.0, 1.0)?;
        if t.momentum >= 1.0 {
            return invalid("train.momentum", "must be < 1".into(), t.momentum);
        }
        non_negative("train.grad_clip", t.grad_clip)?;
        in_range("train.value_q_weight", t.value_q_weight, 0.0, 1.0)?;
        non_negative("train.aux_policy_weight", t.aux_policy_weight)?;
        non_negative("train.aux_ownership_weight", t.aux_ownership_weight)?;

        // Gating and its SPRT are checked whether they are on or not.
        let gt = &self.gating;
        at_least("gating.games", gt.games, 1)?;
        at_least("gating.simulations", gt.simulations, 1)?;
        at_most("gating.simulations", gt.simulations, MAX_SIMULATIONS)?;
        in_range("gating.win_rate", gt.win_rate, 0.0, 1.0)?;
        search_valid("gating.search", &settings::gating_search_config(self, 0)?)?;
        finite("gating.sprt.elo0", gt.sprt.elo0)?;
        finite("gating.sprt.elo1", gt.sprt.elo1)?;
        if gt.sprt.elo1 <= gt.sprt.elo0 {
            return invalid(
                "gating.sprt.elo1",
                format!("must be > gating.sprt.elo0 ({})", gt.sprt.elo0),
                gt.sprt.elo1,
            );
        }
        for (key, v) in [
            ("gating.sprt.alpha", gt.sprt.alpha),
            ("gating.sprt.beta", gt.sprt.beta),
        ] {
            if !(v > 0.0 && v < 0.5) {
                return invalid(key, "must be in (0, 0.5)".into(), v);
            }
        }

        let e = &self.eval;
        let has_yardstick = |spec: &GameSpec| spec.solver_yardstick().is_some();
        if e.solver_every > 0 && !self.game.spec().is_ok_and(|spec| has_yardstick(&spec)) {
            let games: Vec<&str> = GameSpec::DEFAULTS
                .iter()
                .filter(|spec| has_yardstick(spec))
                .map(GameSpec::name)
                .collect();
            return invalid(
                "eval.solver_every",
                format!(
                    "applies to {} only (the solver's test positions), not {}; set it to 0",
                    games.join(", "),
                    self.game.name
                ),
                e.solver_every,
            );
        }
        at_least("eval.solver_positions", e.solver_positions, 1)?;

        let a = &self.actors;
        if a.max_games_per_iteration != 0 && a.max_games_per_iteration < s.games_per_iteration {
            return invalid(
                "actors.max_games_per_iteration",
                format!(
                    "must be 0 (= selfplay.games_per_iteration) or >= \
                     selfplay.games_per_iteration ({}): an iteration waits for that many games",
                    s.games_per_iteration
                ),
                a.max_games_per_iteration,
            );
        }

        let run = &self.run;
        non_negative("run.time_budget_minutes", run.time_budget_minutes)?;
        if run.iterations == 0 && run.time_budget_minutes == 0.0 {
            return invalid(
                "run.iterations",
                "must be >= 1 when run.time_budget_minutes is 0".into(),
                0,
            );
        }
        at_least("run.snapshot_every", run.snapshot_every, 1)?;
        if run.seed > i64::MAX as u64 {
            return invalid("run.seed", "must be <= 2^63 - 1".into(), run.seed);
        }
        Ok(())
    }
}

/// [`SearchConfig::validate`] of a search of the config, its error naming the key under
/// `prefix` (`selfplay.search.c_puct must be finite and > 0 (got 0)`).
fn search_valid(prefix: &str, search: &SearchConfig) -> Result<(), ConfigError> {
    search.validate().map_err(|e| ConfigError::Invalid {
        key: format!("{prefix}.{}", e.field),
        message: e.reason.to_string(),
        value: e.value,
    })
}

fn invalid<R, T: ToString>(key: &str, message: String, value: T) -> Result<R, ConfigError> {
    Err(ConfigError::Invalid {
        key: key.to_string(),
        message,
        value: value.to_string(),
    })
}

fn between(key: &str, v: u32, min: u32, max: u32) -> Result<(), ConfigError> {
    if !(min..=max).contains(&v) {
        return invalid(key, format!("must be in {min}..={max}"), v);
    }
    Ok(())
}

/// The smallest value [`TrainConfig::validate`] can accept for an integer key (used to give
/// the real bound when a negative integer is rejected before validation).
fn integer_minimum(key: &str) -> u32 {
    match key {
        "selfplay.games_per_iteration"
        | "selfplay.parallel_games"
        | "selfplay.simulations"
        | "selfplay.playout_cap.fast_simulations"
        | "selfplay.max_plies"
        | "selfplay.restarts.window"
        | "replay.capacity"
        | "replay.recent_window"
        | "model.blocks"
        | "model.channels"
        | "model.value_hidden"
        | "train.batch_size"
        | "train.lr_step_every"
        | "selfplay.search.leaves_per_batch"
        | "gating.search.leaves_per_batch"
        | "gating.games"
        | "gating.simulations"
        | "eval.solver_positions"
        | "run.snapshot_every" => 1,
        _ => 0,
    }
}

fn at_most(key: &str, v: u32, max: u32) -> Result<(), ConfigError> {
    if v > max {
        return invalid(key, format!("must be <= {max}"), v);
    }
    Ok(())
}

fn at_least(key: &str, v: u32, min: u32) -> Result<(), ConfigError> {
    if v < min {
        return invalid(key, format!("must be >= {min}"), v);
    }
    Ok(())
}

fn finite(key: &str, v: f64) -> Result<(), ConfigError> {
    if !v.is_finite() {
        return invalid(key, "must be a finite number".into(), v);
    }
    Ok(())
}

fn positive(key: &str, v: f64) -> Result<(), ConfigError> {
    finite(key, v)?;
    if v <= 0.0 {
        return invalid(key, "must be > 0".into(), v);
    }
    Ok(())
}

fn non_negative(key: &str, v: f64) -> Result<(), ConfigError> {
    finite(key, v)?;
    if v < 0.0 {
        return invalid(key, "must be >= 0".into(), v);
    }
    Ok(())
}

fn in_range(key: &str, v: f64, lo: f64, hi: f64) -> Result<(), ConfigError> {
    finite(key, v)?;
    if !(v >= lo && v <= hi) {
        return invalid(key, format!("must be in [{lo}, {hi}]"), v);
    }
    Ok(())
}

/// Splits `key=value`; the value is TOML (`50`, `0.5`, `true`, `"x"`) or else a bare string.
fn parse_override(text: &str) -> Result<(Vec<String>, Value), ConfigError> {
    let (key, raw) = text
        .split_once('=')
        .ok_or_else(|| ConfigError::BadOverride(text.to_string()))?;
    let key = key.trim();
    let path: Vec<String> = key.split('.').map(str::to_string).collect();
    if key.is_empty() || path.iter().any(|p| p.is_empty()) {
        return Err(ConfigError::BadOverride(text.to_string()));
    }
    let raw = raw.trim();
    let value = match toml::from_str::<Table>(&format!("v = {raw}")) {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| Value::String(raw.to_string())),
        Err(_) => Value::String(raw.to_string()),
    };
    Ok((path, value))
}

/// The key an override path names: a [`LEGACY_SEARCH_KEYS`] key of `[selfplay]` moves to
/// `[selfplay.search]`.
fn current_path(mut path: Vec<String>) -> Vec<String> {
    if path.len() == 2 && path[0] == "selfplay" && LEGACY_SEARCH_KEYS.contains(&path[1].as_str()) {
        path.insert(1, "search".into());
    }
    path
}

/// The `key=value` overrides parsed, each key in its current place ([`current_path`]).
///
/// # Errors
/// [`ConfigError::BadOverride`]; [`ConfigError::TwoSpellings`] when two overrides give one
/// key in its old and its new place.
fn parse_overrides<S: AsRef<str>>(
    overrides: &[S],
) -> Result<Vec<(Vec<String>, Value)>, ConfigError> {
    let mut out: Vec<(Vec<String>, Value)> = Vec::with_capacity(overrides.len());
    let mut written: Vec<Vec<String>> = Vec::with_capacity(overrides.len());
    for o in overrides {
        let (path, value) = parse_override(o.as_ref())?;
        let current = current_path(path.clone());
        for (w, (c, _)) in written.iter().zip(&out) {
            if *c == current && *w != path {
                let (old, new) = if w.len() < path.len() {
                    (w, &path)
                } else {
                    (&path, w)
                };
                return Err(ConfigError::TwoSpellings {
                    old: old.join("."),
                    new: new.join("."),
                });
            }
        }
        written.push(path);
        out.push((current, value));
    }
    Ok(out)
}

/// Moves the [`LEGACY_SEARCH_KEYS`] a config file's table writes flat in `[selfplay]` to
/// `[selfplay.search]`.
///
/// # Errors
/// [`ConfigError::TwoSpellings`] when the file gives a key in both places;
/// [`ConfigError::Type`] when `selfplay.search` is not a table.
fn move_legacy_keys(user: &mut Table) -> Result<(), ConfigError> {
    let Some(Value::Table(selfplay)) = user.get_mut("selfplay") else {
        return Ok(());
    };
    let moved: Vec<(String, Value)> = LEGACY_SEARCH_KEYS
        .iter()
        .filter_map(|k| Some((k.to_string(), selfplay.remove(*k)?)))
        .collect();
    if moved.is_empty() {
        return Ok(());
    }
    let search = selfplay
        .entry("search")
        .or_insert_with(|| Value::Table(Table::new()));
    let Value::Table(search) = search else {
        return Err(ConfigError::Type {
            key: "selfplay.search".into(),
            expected: "a table",
            found: search.to_string(),
        });
    };
    for (k, v) in moved {
        if search.contains_key(&k) {
            return Err(ConfigError::TwoSpellings {
                old: format!("selfplay.{k}"),
                new: format!("selfplay.search.{k}"),
            });
        }
        search.insert(k, v);
    }
    Ok(())
}

/// Sets `path` in `table`, creating intermediate tables.
fn set_path(table: &mut Table, path: &[String], value: Value) -> Result<(), ConfigError> {
    let (last, parents) = path.split_last().expect("override paths are non-empty");
    let mut cur = table;
    for (i, p) in parents.iter().enumerate() {
        let entry = cur
            .entry(p.clone())
            .or_insert_with(|| Value::Table(Table::new()));
        cur = match entry {
            Value::Table(t) => t,
            other => {
                return Err(ConfigError::Type {
                    key: path[..=i].join("."),
                    expected: "a table",
                    found: other.to_string(),
                });
            }
        };
    }
    cur.insert(last.clone(), value);
    Ok(())
}

/// Whether a key may be written in either of two forms, a plain value or a table: a
/// search's `c_puct` and `gumbel` (see [`SearchConfig`]).
fn has_two_forms(key: &str) -> bool {
    ["selfplay.search.", "gating.search."]
        .iter()
        .any(|p| matches!(key.strip_prefix(p), Some("c_puct" | "gumbel")))
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a number",
        Value::Boolean(_) => "a boolean",
        Value::Datetime(_) => "a datetime",
        Value::Array(_) => "an array",
        Value::Table(_) => "a table",
    }
}

/// The keys set in `[gating.search]` of a config table.
fn gating_search_keys_set(table: &Table) -> Vec<String> {
    match table.get("gating").and_then(|g| g.get("search")) {
        Some(Value::Table(t)) => t.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// [`merge_checked`] of `user` into the config table `base`, where `[gating.search]`'s keys,
/// optional, are checked against their `[selfplay.search]` namesakes' types and stay absent
/// unless `base` or `user` sets them.
fn merge_user(base: &mut Table, user: &Table) -> Result<(), ConfigError> {
    let mut keep = gating_search_keys_set(base);
    keep.extend(gating_search_keys_set(user));
    let templates: Table = match base.get("selfplay").and_then(|sp| sp.get("search")) {
        Some(Value::Table(search)) => search
            .iter()
            .filter(|(k, _)| !ROOT_NOISE_KEYS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        _ => Table::new(),
    };
    if let Some(Value::Table(gating)) = base.get_mut("gating") {
        let search = gating
            .entry("search")
            .or_insert_with(|| Value::Table(Table::new()));
        if let Value::Table(search) = search {
            for (k, v) in templates {
                search.entry(k).or_insert(v);
            }
        }
    }
    merge_checked(base, user, "")?;
    if let Some(Value::Table(gating)) = base.get_mut("gating") {
        if let Some(Value::Table(search)) = gating.get_mut("search") {
            search.retain(|k, _| keep.iter().any(|s| s == k));
            if search.is_empty() {
                gating.remove("search");
            }
        }
    }
    Ok(())
}

/// Merges `user` into `base` (the full default config as a table), checking that every key
/// exists in `base` and has the same type (an integer is accepted for a float). `prefix` is
/// the dotted path of `base` ("" at the top).
fn merge_checked(base: &mut Table, user: &Table, prefix: &str) -> Result<(), ConfigError> {
    for (k, uv) in user {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        let Some(bv) = base.get_mut(k) else {
            // An unknown section: name the first full key set in it (`foo.bar`, not `foo`).
            let mut key = key;
            let mut v = uv;
            while let Value::Table(t) = v {
                let Some((k2, v2)) = t.iter().next() else {
                    break;
                };
                key = format!("{key}.{k2}");
                v = v2;
            }
            return Err(ConfigError::UnknownKey { key });
        };
        match (bv, uv) {
            (Value::Table(bt), Value::Table(ut)) => merge_checked(bt, ut, &key)?,
            (bv @ Value::Float(_), Value::Integer(i)) => *bv = Value::Float(*i as f64),
            (bv @ Value::Integer(_), Value::Integer(i)) => {
                if *i < 0 {
                    let min = integer_minimum(&key);
                    return Err(ConfigError::Invalid {
                        key,
                        message: format!("must be >= {min}"),
                        value: i.to_string(),
                    });
                }
                *bv = Value::Integer(*i);
            }
            // A search's `c_puct` (a number or a table) and `gumbel` (a boolean or a table)
            // may change form.
            (bv, uv)
                if has_two_forms(&key)
                    && matches!(bv, Value::Table(_)) != matches!(uv, Value::Table(_)) =>
            {
                *bv = match uv {
                    Value::Integer(i) => Value::Float(*i as f64),
                    uv => uv.clone(),
                };
            }
            // `game.size` is text in the config but naturally written as a number.
            (bv @ Value::String(_), Value::Integer(i)) if key == "game.size" => {
                *bv = Value::String(i.to_string());
            }
            (bv, uv) if std::mem::discriminant(bv) == std::mem::discriminant(uv) => {
                *bv = uv.clone();
            }
            (bv, uv) => {
                // A key of two forms names both (`gumbel = 16` must not be told "a boolean" only).
                let expected = match (has_two_forms(&key), &*bv) {
                    (true, Value::Boolean(_)) => "a boolean or a table",
                    (true, Value::Float(_) | Value::Integer(_)) => "a number or a table",
                    _ => type_name(bv),
                };
                return Err(ConfigError::Type {
                    key,
                    expected,
                    found: uv.to_string(),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_of_every_game_are_valid_and_roundtrip_through_toml() {
        for game in GAMES {
            let c = TrainConfig::default_for(game).unwrap();
            c.validate().unwrap();
            let text = c.to_toml_string().unwrap();
            assert_eq!(TrainConfig::from_toml_str(&text).unwrap(), c, "{game}");
        }
        let c4 = TrainConfig::default_for("connect4").unwrap();
        assert_eq!((c4.model.blocks, c4.model.channels), (4, 32));
        assert!((100..=200).contains(&c4.selfplay.simulations));
        let g = TrainConfig::default_for("gomoku").unwrap();
        assert_eq!(
            (g.game.size.as_str(), g.game.rule.as_str()),
            ("15", "freestyle")
        );
        assert_eq!(g.replay.capacity, 200_000);
        assert!(matches!(
            TrainConfig::default_for("chess"),
            Err(ConfigError::Invalid { key, .. }) if key == "game.name"
        ));
    }

    #[test]
    fn partial_file_takes_the_rest_from_the_game_defaults() {
        let c = TrainConfig::from_toml_str(
            r#"
            [game]
            name = "gomoku"
            size = "9"
            [selfplay]
            simulations = 50
            dirichlet_alpha = 1
            [selfplay.resign]
            enabled = true
            [train]
            optimizer = "sgd"
            lr_schedule = "cosine"
            "#,
        )
        .unwrap();
        assert_eq!(c.game.size, "9");
        assert_eq!(c.game.rule, "freestyle");
        assert_eq!(c.selfplay.simulations, 50);
        assert_eq!(c.selfplay.search.dirichlet_alpha, 1.0);
        assert!(c.selfplay.resign.enabled);
        assert_eq!(c.selfplay.resign.threshold, -0.9);
        assert_eq!(c.train.optimizer, Optimizer::Sgd);
        assert_eq!(c.train.lr_schedule, LrSchedule::Cosine);
        assert_eq!(c.model.blocks, 10);
    }

    #[test]
    fn unknown_keys_are_errors_naming_the_full_key() {
        let err =
            TrainConfig::from_toml_str("[game]\nname='connect4'\n[selfplay]\nsimulatons = 5\n")
                .unwrap_err();
        assert_eq!(
            err,
            ConfigError::UnknownKey {
                key: "selfplay.simulatons".into()
            }
        );
        let err =
            TrainConfig::from_toml_str("[game]\nname='connect4'\n[selfplay.resign]\nfoo = 1\n")
                .unwrap_err();
        assert_eq!(err.to_string(), "unknown config key selfplay.resign.foo");
        let err = TrainConfig::from_toml_str("[game]\nname='connect4'\n[bogus]\n").unwrap_err();
        assert_eq!(
            err,
            ConfigError::UnknownKey {
                key: "bogus".into()
            }
        );
    }

    #[test]
    fn wrong_types_and_negative_integers_name_the_key() {
        let err = TrainConfig::from_toml_str(
            "[game]\nname='connect4'\n[selfplay]\nsimulations = 'many'\n",
        )
        .unwrap_err();
        assert!(
            matches!(&err, ConfigError::Type { key, .. } if key == "selfplay.simulations"),
            "{err}"
        );
        let err = TrainConfig::from_toml_str("[game]\nname='connect4'\n[model]\nblocks = -3\n")
            .unwrap_err();
        assert!(
            err.to_string().starts_with("model.blocks must be >= 1"),
            "{err}"
        );
        let err =
            TrainConfig::from_toml_str("[game]\nname='connect4'\n[run]\nseed = -3\n").unwrap_err();
        assert!(
            err.to_string().starts_with("run.seed must be >= 0"),
            "{err}"
        );
        let err =
            TrainConfig::from_toml_str("selfplay = 3\n[game]\nname='connect4'\n").unwrap_err();
        assert!(
            matches!(&err, ConfigError::Type { key, expected: "a table", .. } if key == "selfplay")
        );
        let err =
            TrainConfig::from_toml_str("[game]\nname='connect4'\n[train]\noptimizer = 'adam'\n")
                .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("adam") && msg.contains("train.optimizer"),
            "{msg}"
        );
    }

    #[test]
    fn negative_and_zero_simulations_report_the_same_real_bound() {
        let base = TrainConfig::default_for("connect4").unwrap();
        for v in ["-5", "0"] {
            let err = base
                .with_overrides(&[format!("selfplay.simulations={v}")])
                .unwrap_err();
            assert_eq!(
                err.to_string(),
                format!("selfplay.simulations must be >= 1 (got {v})")
            );
        }
    }

    #[test]
    fn gomoku_size_is_accepted_as_integer_or_string() {
        let from_int = TrainConfig::from_toml_str("[game]\nname='gomoku'\nsize = 9\n").unwrap();
        let from_str = TrainConfig::from_toml_str("[game]\nname='gomoku'\nsize = \"9\"\n").unwrap();
        assert_eq!(from_int, from_str);
        assert_eq!(from_int.game.size, "9");
        let over = TrainConfig::parse("", &["game.name=gomoku", "game.size=9"]).unwrap();
        assert_eq!(over.game.size, "9");
        let again = over.with_overrides(&["game.size=10"]).unwrap();
        assert_eq!(again.game.size, "10");
        // The saved form parses back.
        let text = again.to_toml_string().unwrap();
        assert_eq!(TrainConfig::from_toml_str(&text).unwrap(), again);
        let err = TrainConfig::parse("", &["game.name=gomoku", "game.size=30"]).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("game.size must be a board side from 5 to 20"),
            "{err}"
        );
    }

    #[test]
    fn size_or_rule_for_a_game_other_than_gomoku_is_an_error() {
        for (o, key) in [
            ("game.size=9", "game.size"),
            ("game.rule=renju", "game.rule"),
        ] {
            let err = TrainConfig::parse("", &["game.name=connect4", o]).unwrap_err();
            assert!(
                matches!(&err, ConfigError::Invalid { key: k, message, .. }
                    if k == key && message.contains("gomoku only")),
                "{o}: {err}"
            );
        }
    }

    #[test]
    fn global_pooling_is_off_by_default_and_turns_on_in_the_network_config() {
        // Files written before the keys existed (no such key in them) read as off.
        let old = TrainConfig::from_toml_str(
            "[game]\nname = \"connect4\"\n[model]\nblocks = 4\nchannels = 32\nvalue_hidden = 32\n",
        )
        .unwrap();
        assert!(!old.model.global_pooling);
        let net = settings::network_config(&old, 3, 6, 7, 7);
        assert_eq!(net.global_pooling, None);

        let on = old.with_overrides(&["model.global_pooling=true"]).unwrap();
        let net = settings::network_config(&on, 3, 6, 7, 7);
        assert_eq!(
            net.global_pooling,
            Some(alphazero_nn::GlobalPooling {
                blocks: vec![2],
                channels: 8
            })
        );
        net.validate().unwrap();
        let wider = on
            .with_overrides(&["model.global_pooling_channels=16"])
            .unwrap();
        let net = settings::network_config(&wider, 3, 6, 7, 7);
        assert_eq!(net.global_pooling.map(|g| g.channels), Some(16));
        // The effective config names both keys and reads back the same.
        let text = wider.to_toml_string().unwrap();
        assert!(text.contains("global_pooling = true"), "{text}");
        assert_eq!(TrainConfig::from_toml_str(&text).unwrap(), wider);
    }

    #[test]
    fn global_pooling_that_does_not_fit_the_trunk_is_rejected_naming_the_key() {
        let base = TrainConfig::default_for("connect4").unwrap();
        let err = base
            .with_overrides(&["model.global_pooling_channels=32"])
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "model.global_pooling_channels must be below model.channels (32), or 0 for a \
             quarter of them (got 32)"
        );
        let err = base
            .with_overrides(&["model.channels=1", "model.global_pooling=true"])
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("model.global_pooling needs model.channels >= 2 (got 1)"),
            "{err}"
        );
        let err = base
            .with_overrides(&["model.global_pooling=1"])
            .unwrap_err();
        assert!(err.to_string().contains("model.global_pooling"), "{err}");
    }

    #[test]
    fn oversized_model_is_rejected_with_the_bound() {
        let base = TrainConfig::default_for("connect4").unwrap();
        let err = base.with_overrides(&["model.channels=100000"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("model.channels must be in 1..={MAX_CHANNELS} (got 100000)")
        );
    }

    #[test]
    fn infinite_and_nan_values_are_rejected_as_not_finite() {
        let base = TrainConfig::default_for("connect4").unwrap();
        for (set, key) in [
            ("selfplay.temperature=inf", "selfplay.temperature"),
            ("train.lr=inf", "train.lr"),
        ] {
            let err = base.with_overrides(&[set]).unwrap_err().to_string();
            assert!(
                err.starts_with(&format!("{key} must be a finite number")),
                "{set}: {err}"
            );
        }
        // The search's keys, by the search's own rules.
        for (set, msg) in [
            (
                "selfplay.dirichlet_epsilon=nan",
                "selfplay.search.dirichlet_epsilon must be in [0, 1] (got NaN)",
            ),
            (
                "selfplay.search.fpu_reduction=inf",
                "selfplay.search.fpu_reduction must be finite and >= 0 (got inf)",
            ),
        ] {
            let err = base.with_overrides(&[set]).unwrap_err().to_string();
            assert_eq!(err, msg, "{set}");
        }
    }

    #[test]
    fn fast_simulations_error_says_how_to_fix_it() {
        let base = TrainConfig::default_for("connect4").unwrap();
        let err = base
            .with_overrides(&["selfplay.simulations=10"])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("selfplay.playout_cap.fast_simulations=N")
                && err.contains("selfplay.playout_cap.enabled=false"),
            "{err}"
        );
    }

    #[test]
    fn game_names_are_read_from_text_and_overrides() {
        assert_eq!(
            game_name_in("[game]\nname = 'xiangqi'\n").unwrap(),
            Some("xiangqi".to_string())
        );
        assert_eq!(game_name_in("[selfplay]\nsimulations = 5\n").unwrap(), None);
        assert!(game_name_in("[game\n").is_err());
        assert_eq!(
            game_name_in_override("game.name=xiangqi").unwrap(),
            Some("xiangqi".to_string())
        );
        assert_eq!(
            game_name_in_override(" game.name = \"gomoku\"").unwrap(),
            Some("gomoku".to_string())
        );
        assert_eq!(
            game_name_in_override("selfplay.simulations=5").unwrap(),
            None
        );
        assert!(game_name_in_override("game.name").is_err());
    }

    #[test]
    fn sections_set_by_a_file_are_found() {
        assert!(sets_section_in("[model]\nblocks = 2\n", "model").unwrap());
        assert!(!sets_section_in("[model]\n[game]\nname = 'gomoku'\n", "model").unwrap());
        assert!(!sets_section_in("[train]\nlr = 0.1\n", "model").unwrap());
        assert!(sets_section_in("model.channels = 8\n", "model").unwrap());
        assert!(sets_section_in("[model\n", "model").is_err());
    }

    #[test]
    fn missing_game_name_is_an_error() {
        assert_eq!(
            TrainConfig::from_toml_str("[selfplay]\nsimulations = 5\n").unwrap_err(),
            ConfigError::MissingKey {
                key: "game.name".into()
            }
        );
        assert!(matches!(
            TrainConfig::from_toml_str("[game\n"),
            Err(ConfigError::Syntax(_))
        ));
    }

    #[test]
    fn values_of_disabled_features_are_validated() {
        // Regression: gating.sprt.alpha=-3 was accepted while the SPRT was off.
        let c4 = TrainConfig::default_for("connect4").unwrap();
        assert!(!c4.gating.enabled && !c4.gating.sprt.enabled);
        let gomoku = TrainConfig::default_for("gomoku").unwrap();
        assert!(!gomoku.selfplay.playout_cap.enabled);
        assert_eq!(gomoku.train.lr_schedule, LrSchedule::Constant);
        let cases: &[(&TrainConfig, &str, &str)] = &[
            (
                &c4,
                "gating.sprt.alpha=-3",
                "gating.sprt.alpha must be in (0, 0.5)",
            ),
            (
                &c4,
                "gating.sprt.beta=0.7",
                "gating.sprt.beta must be in (0, 0.5)",
            ),
            (
                &c4,
                "gating.sprt.elo1=-5",
                "gating.sprt.elo1 must be > gating.sprt.elo0",
            ),
            (
                &c4,
                "gating.win_rate=2",
                "gating.win_rate must be in [0, 1]",
            ),
            (&c4, "gating.games=0", "gating.games must be >= 1"),
            (
                &c4,
                "gating.simulations=0",
                "gating.simulations must be >= 1",
            ),
            (
                &gomoku,
                "selfplay.playout_cap.fast_simulations=0",
                "selfplay.playout_cap.fast_simulations must be >= 1",
            ),
            (
                &gomoku,
                "train.lr_step_factor=-3",
                "train.lr_step_factor must be in [0, 1]",
            ),
            (
                &gomoku,
                "train.lr_step_factor=0",
                "train.lr_step_factor must be > 0",
            ),
            (
                &gomoku,
                "train.lr_step_every=0",
                "train.lr_step_every must be >= 1",
            ),
            (&gomoku, "train.lr_min=-1", "train.lr_min must be >= 0"),
            (
                &c4.with_overrides(&["train.steps_per_iteration=5"]).unwrap(),
                "train.samples_per_position=-1",
                "train.samples_per_position must be > 0",
            ),
            (
                &gomoku,
                "eval.solver_every=5",
                "eval.solver_every applies to connect4 only",
            ),
            (
                &c4,
                "eval.solver_positions=0",
                "eval.solver_positions must be >= 1",
            ),
            (
                &c4,
                "actors.max_games_per_iteration=1",
                "actors.max_games_per_iteration must be 0 (= selfplay.games_per_iteration) or >=",
            ),
        ];
        for (base, o, msg) in cases {
            let err = base.with_overrides(&[o]).unwrap_err().to_string();
            assert!(err.starts_with(msg), "{o}: {err}");
        }
        // A value checked only against another key still waits for its feature: a gomoku
        // run of 16 simulations keeps its (unused) 64 fast simulations.
        gomoku
            .with_overrides(&["selfplay.simulations=16"])
            .expect("the playout cap is off");
    }

    #[test]
    fn validate_names_the_bad_key() {
        let cases: &[(&str, &str)] = &[
            (
                "selfplay.simulations=0",
                "selfplay.simulations must be >= 1",
            ),
            (
                "selfplay.dirichlet_epsilon=1.5",
                "selfplay.search.dirichlet_epsilon must be in [0, 1]",
            ),
            (
                "selfplay.search.leaves_per_batch=0",
                "selfplay.search.leaves_per_batch must be at least 1",
            ),
            (
                "selfplay.search.c_puct={ c_base = 0, c_init = 1 }",
                "selfplay.search.c_puct.c_base must be finite and > 0",
            ),
            ("train.lr=0", "train.lr must be > 0"),
            (
                "gating.sprt.elo1=-5",
                "gating.sprt.elo1 must be > gating.sprt.elo0",
            ),
            (
                "replay.recent_fraction=2",
                "replay.recent_fraction must be in [0, 1]",
            ),
            (
                "run.iterations=0",
                "run.iterations must be >= 1 when run.time_budget_minutes is 0",
            ),
            ("game.name=chess", "game.name must be one of"),
            ("train.momentum=1", "train.momentum must be < 1"),
            (
                "train.batch_size=1000000000",
                "train.batch_size must be <= 65536",
            ),
            (
                "selfplay.simulations=1000000000",
                "selfplay.simulations must be <= 65535",
            ),
            (
                "train.aux_policy_weight=-0.15",
                "train.aux_policy_weight must be >= 0",
            ),
            (
                "train.aux_ownership_weight=-1",
                "train.aux_ownership_weight must be >= 0",
            ),
            (
                "train.value_q_weight=1.5",
                "train.value_q_weight must be in [0, 1]",
            ),
            (
                "train.value_q_weight=-0.1",
                "train.value_q_weight must be in [0, 1]",
            ),
        ];
        let base = TrainConfig::default_for("connect4")
            .unwrap()
            .with_overrides(&[
                "run.time_budget_minutes=0",
                "run.iterations=100",
                "gating.sprt.enabled=true",
            ])
            .unwrap();
        for (o, msg) in cases {
            let err = base.with_overrides(&[o]).unwrap_err();
            assert!(err.to_string().starts_with(msg), "{o}: {err}");
        }
        let mut g = TrainConfig::default_for("gomoku").unwrap();
        g.game.size = "30".into();
        assert!(
            matches!(g.validate(), Err(ConfigError::Invalid { key, .. }) if key == "game.size")
        );
    }

    #[test]
    fn restart_settings_are_checked_and_off_in_configs_without_them() {
        let base = TrainConfig::default_for("connect4").unwrap();
        assert_eq!(base.selfplay.restarts.share, 0.0, "off by default");
        for (o, msg) in [
            (
                "selfplay.restarts.share=1",
                "selfplay.restarts.share must be in [0, 1)",
            ),
            (
                "selfplay.restarts.share=-0.1",
                "selfplay.restarts.share must be in [0, 1)",
            ),
            (
                "selfplay.restarts.window=0",
                "selfplay.restarts.window must be >= 1",
            ),
            (
                "selfplay.restarts.window=-3",
                "selfplay.restarts.window must be >= 1",
            ),
            (
                "selfplay.restarts.shares=0.3",
                "unknown config key selfplay.restarts.shares",
            ),
        ] {
            let err = base.with_overrides(&[o]).unwrap_err().to_string();
            assert!(err.starts_with(msg), "{o}: {err}");
        }
        let err = base
            .with_overrides(&["selfplay.restarts.rule=attack"])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("attack") && err.contains("defend") && err.contains("uniform"),
            "{err}"
        );
        let on = base
            .with_overrides(&[
                "selfplay.restarts.share=0.3",
                "selfplay.restarts.rule=uniform",
            ])
            .unwrap();
        assert_eq!(
            on.selfplay.restarts,
            RestartsConfig {
                share: 0.3,
                rule: RestartRule::Uniform,
                window: 10
            }
        );
        // A saved config written before restarts existed (no such table) loads with them off,
        // and the settings round-trip through the saved text.
        let old = TrainConfig::from_toml_str(
            "[game]\nname = \"gomoku\"\n[selfplay]\nsimulations = 50\nmax_plies = 100\n",
        )
        .unwrap();
        assert_eq!(old.selfplay.restarts.share, 0.0);
        let text = on.to_toml_string().unwrap();
        assert!(text.contains("[selfplay.restarts]"), "{text}");
        assert_eq!(TrainConfig::from_toml_str(&text).unwrap(), on);
    }

    #[test]
    fn overrides_apply_typed_values_and_reject_unknown_keys() {
        let c = TrainConfig::default_for("connect4")
            .unwrap()
            .with_overrides(&[
                "selfplay.simulations=50",
                "selfplay.playout_cap.enabled = true",
                "train.optimizer=sgd",
                "train.lr=1e-2",
                "run.time_budget_minutes=30",
            ])
            .unwrap();
        assert_eq!(c.selfplay.simulations, 50);
        assert!(c.selfplay.playout_cap.enabled);
        assert_eq!(c.train.optimizer, Optimizer::Sgd);
        assert_eq!(c.train.lr, 0.01);
        assert_eq!(c.run.time_budget_minutes, 30.0);
        let base = TrainConfig::default_for("connect4").unwrap();
        assert_eq!(
            base.with_overrides(&["selfplay.sims=5"]).unwrap_err(),
            ConfigError::UnknownKey {
                key: "selfplay.sims".into()
            }
        );
        assert_eq!(
            base.with_overrides(&["foo.bar=1"]).unwrap_err(),
            ConfigError::UnknownKey {
                key: "foo.bar".into()
            },
            "an unknown section names the whole key"
        );
        assert_eq!(
            base.with_overrides(&["selfplay"]).unwrap_err(),
            ConfigError::BadOverride("selfplay".into())
        );
        assert!(matches!(
            base.with_overrides(&["selfplay.simulations.x=1"]),
            Err(ConfigError::Type { key, .. }) if key == "selfplay.simulations"
        ));
    }

    #[test]
    fn xiangqi_defaults_learn_without_gating_and_with_the_q_value_target() {
        let x = TrainConfig::default_for("xiangqi").unwrap();
        assert!(!x.gating.enabled, "draw-heavy gating never promoted");
        assert_eq!(x.train.value_q_weight, 0.5);
        assert!(x.selfplay.resign.enabled);
        assert_eq!(
            x.selfplay.search.draw_score, -0.2,
            "self-play avoids repetition draws"
        );
        let c = TrainConfig::default_for("connect4").unwrap();
        assert_eq!(c.selfplay.search.draw_score, 0.0);
        assert!(matches!(
            x.with_overrides(&["selfplay.draw_score=-1.5"]),
            Err(ConfigError::Invalid { key, .. }) if key == "selfplay.search.draw_score"
        ));
        let c4 = TrainConfig::default_for("connect4").unwrap();
        assert_eq!(
            (x.gating.enabled, x.train.value_q_weight),
            (c4.gating.enabled, c4.train.value_q_weight)
        );
    }

    /// Regression guard for the Xiangqi issue "a mating move the network rates low is never
    /// tried": Xiangqi self-play runs the mate tactics by default and in the CPU config.
    #[test]
    fn xiangqi_self_play_runs_the_mate_tactics() {
        let x = TrainConfig::default_for("xiangqi").unwrap();
        assert_eq!(x.selfplay.search.tactical_budget, Some(200));
        assert!(
            !x.selfplay.search.terminal_check,
            "the tactics replace the costly check"
        );
        assert_eq!(
            shipped_config("xiangqi-cpu.toml")
                .selfplay
                .search
                .tactical_budget,
            Some(200)
        );
    }

    /// A shipped config file of `configs/`, parsed as `train --config` does.
    fn shipped_config(name: &str) -> TrainConfig {
        let path = format!("{}/../../configs/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        TrainConfig::from_toml_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    #[test]
    fn xiangqi_cpu_config_is_small_learns_without_gating_and_resigns() {
        let c = shipped_config("xiangqi-cpu.toml");
        assert_eq!(c.game.name, "xiangqi");
        assert!(
            c.model.blocks <= 4 && c.model.channels <= 32,
            "{:?}",
            c.model
        );
        assert!(!c.gating.enabled);
        assert_eq!(c.train.value_q_weight, 0.5);
        assert!(c.selfplay.playout_cap.enabled);
        assert!(c.selfplay.resign.enabled);
        assert!(c.run.time_budget_minutes > 0.0);
        shipped_config("gomoku-8x8-cpu.toml");
    }

    #[test]
    fn game_name_override_switches_defaults_in_parse() {
        let c = TrainConfig::parse("", &["game.name=xiangqi", "run.seed=7"]).unwrap();
        assert_eq!(c.game.name, "xiangqi");
        assert_eq!(c.selfplay.max_plies, 300);
        assert_eq!(c.run.seed, 7);
    }

    #[test]
    fn learner_steps_and_schedules() {
        let mut t = TrainConfig::default_for("connect4").unwrap().train;
        t.batch_size = 100;
        t.samples_per_position = 2.0;
        assert_eq!(t.steps_for(1001), 21);
        assert_eq!(t.steps_for(0), 1);
        t.steps_per_iteration = 7;
        assert_eq!(t.steps_for(1001), 7);
        t.lr = 0.1;
        t.lr_schedule = LrSchedule::Step;
        t.lr_step_every = 10;
        t.lr_step_factor = 0.5;
        assert_eq!(t.lr_at(25, 100), 0.025);
        t.lr_schedule = LrSchedule::Cosine;
        t.lr_min = 0.0;
        assert!((t.lr_at(50, 100) - 0.05).abs() < 1e-12);
        assert!(t.lr_at(100, 100).abs() < 1e-12);
        // A time-limited run: the fraction of the time budget spent.
        assert!((t.lr_at_progress(3, Some(0.5)) - 0.05).abs() < 1e-12);
        assert!(t.lr_at_progress(3, Some(1.5)).abs() < 1e-12);
        assert_eq!(t.lr_at_progress(3, None), 0.1);
    }

    #[test]
    fn gating_search_keys_default_to_selfplay_and_each_can_be_set_alone() {
        use crate::settings::{gating_search_config, search_config};
        use alphazero_mcts::{CPuct, SearchConfig};
        // Left out: gating searches as self-play does (with gating.simulations, no noise),
        // following a changed selfplay key, and the saved config has no [gating.search].
        let c = TrainConfig::parse(
            "[game]\nname = \"gomoku\"\nsize = 9\nrule = \"freestyle\"\n",
            &["selfplay.c_puct=2.5", "gating.simulations=7"],
        )
        .unwrap();
        assert!(c.gating.search.is_unset());
        assert_eq!(
            gating_search_config(&c, 3),
            Ok(search_config(&c, 7, false, 3))
        );
        assert!(!c.to_toml_string().unwrap().contains("[gating.search]"));
        // Set: only that key differs from self-play's search.
        let g = c
            .with_overrides(&["gating.search.c_puct=1", "gating.search.tactical_budget=0"])
            .unwrap();
        assert_eq!(g.selfplay.search.c_puct, CPuct::Constant(2.5));
        let (gate, own) = (
            gating_search_config(&g, 3).unwrap(),
            search_config(&g, 7, false, 3),
        );
        assert_eq!(gate.c_puct, CPuct::Constant(1.0));
        assert_eq!(gate.tactical_budget, None);
        assert_ne!(
            own.tactical_budget, None,
            "gomoku self-play keeps its tactics"
        );
        assert_eq!(
            SearchConfig {
                c_puct: own.c_puct,
                tactical_budget: own.tactical_budget,
                ..gate
            },
            own
        );
        // Saved and read back (a run directory's config.toml), and written in a file.
        let saved = g.to_toml_string().unwrap();
        assert!(saved.contains("[gating.search]"), "{saved}");
        assert_eq!(TrainConfig::from_toml_str(&saved).unwrap(), g);
        let file = TrainConfig::parse(
            "[game]\nname = \"connect4\"\n[gating.search]\nterminal_check = false\ngumbel = true\n",
            &[] as &[&str],
        )
        .unwrap();
        let gate = gating_search_config(&file, 0).unwrap();
        assert!(!gate.terminal_check);
        assert_eq!(gate.gumbel, Some(alphazero_mcts::GumbelConfig::default()));
        assert_eq!(gate.c_puct, file.selfplay.search.c_puct);
        assert!(file.selfplay.search.terminal_check && file.selfplay.search.gumbel.is_none());
        assert!(!file.gating.search.0.contains_key("c_puct"));
    }

    #[test]
    fn gating_search_errors_name_the_key_written() {
        let c = TrainConfig::default_for("connect4").unwrap();
        let err = |o: &str| c.with_overrides(&[o]).unwrap_err();
        assert!(matches!(err("gating.search.dirichlet_alpha=1"),
            ConfigError::UnknownKey { key } if key == "gating.search.dirichlet_alpha"));
        assert!(matches!(err("gating.search.gumbel=3"),
            ConfigError::Type { key, .. } if key == "gating.search.gumbel"));
        for (o, msg) in [
            (
                "gating.search.c_puct=0",
                "gating.search.c_puct must be finite and > 0",
            ),
            (
                "gating.search.draw_score=2",
                "gating.search.draw_score must be in [-1, 1]",
            ),
            (
                "gating.search.tactical_budget=-1",
                "gating.search.tactical_budget must be >= 0",
            ),
        ] {
            assert!(err(o).to_string().starts_with(msg), "{o}: {}", err(o));
        }
    }
}
