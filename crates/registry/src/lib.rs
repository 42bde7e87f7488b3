//! The game registry: which games this build knows, named by one typed [`GameSpec`], and the
//! one dispatch from a spec to a game type ([`with_game!`]).
//!
//! A spec is written `gomoku:15:renju` (Gomoku on a 15×15 board under the renju rule),
//! `gomoku:15` (freestyle), `gomoku` (15×15 freestyle), `xiangqi` or `connect4`; it prints in
//! the long form, which parses back to the same spec. In configuration files and file headers
//! it is a tagged table, `{ game = "gomoku", size = 15, rule = "renju" }`.
//!
//! Each game's registry code is in the module named after it: its [`Registered`] impl (spec ↔
//! rules configuration, its play search, its perft counter, and its exact solver's
//! [`Yardstick`] if it has one),
//! its [`Encode`] impl (the network's input planes and what they and the action indices mean,
//! and the game's ownership map, a training-only target),
//! its [`WebGame`] impl (the web page's board), its [`BoardView`] impl (the terminal and PNG
//! board) and its [`PositionText`] impl (positions given as text). Adding a game means a
//! variant of [`GameSpec`], an arm of [`with_game!`] and one such module (and its arena players
//! in `alphazero-engine`, if it has players of its own).
//!
//! ```
//! use alphazero_registry::{with_game, GameSpec};
//! use alphazero_game::Game;
//!
//! let spec: GameSpec = "gomoku:9:renju".parse().unwrap();
//! assert_eq!(spec.to_string(), "gomoku:9:renju");
//! assert_eq!(spec.words(), "gomoku 9x9 renju");
//! let actions = with_game!(&spec, G, cfg => G::new(cfg).num_actions());
//! assert_eq!(actions, 81);
//! ```

#![deny(missing_docs)]

use std::fmt;
use std::str::FromStr;

use alphazero_game::ParseError;
use alphazero_gomoku::Rule;
use alphazero_mcts::SearchConfig;
use serde::{Deserialize, Serialize};

mod connect4;
mod encode;
mod gomoku;
pub mod perft;
pub mod play;
mod position;
mod view;
mod web;
mod xiangqi;
mod yardstick;

pub use connect4::yardstick as connect4_yardstick;
pub use encode::{transform_policy, Encode, PolicyPlanes};
pub use position::{PositionError, PositionText};
pub use view::{BoardView, Rgb};
pub use web::{Cell, StartError, WebGame};
pub use yardstick::{
    LoadYardstick, SolverYardstick, Yardstick, YardstickError, YardstickInfo, YardstickReport,
};

/// The game types, for [`with_game!`] (callers need not depend on the game crates).
pub mod games {
    pub use alphazero_connect4::{Connect4, Connect4Config};
    pub use alphazero_gomoku::{Gomoku, GomokuConfig, Rule, MAX_SIZE, MIN_SIZE};
    pub use alphazero_xiangqi::{Xiangqi, XiangqiConfig};
}

/// The written forms of a spec, for error messages.
pub const SPEC_FORMS: &str = "gomoku:<size>:<rule> (size 5 to 20; rule freestyle, standard or \
                              renju), gomoku:<size> (freestyle), gomoku (15, freestyle), \
                              xiangqi, connect4";

/// The Gomoku board side when none is given.
pub const DEFAULT_GOMOKU_SIZE: u8 = 15;

/// A game this build knows, with the rule options that change what a position is.
///
/// Built by [`FromStr`] (`gomoku:15:renju`), [`GameSpec::from_parts`] (the command line's
/// `--game/--size/--rule`), serde (a tagged table) or [`GameSpec::of`] (a game's configuration);
/// all of them check the Gomoku board size (5–20).
///
/// Options a spec does not carry take their defaults in [`with_game!`]: the Gomoku candidate
/// radius (2) and the Xiangqi repetition and no-capture rules (3-fold, 120 plies, Asian rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "SpecTable", into = "SpecTable")]
pub enum GameSpec {
    /// Gomoku / Renju on a `size × size` board (5–20) under `rule`.
    Gomoku {
        /// Board side, 5 to 20.
        size: u8,
        /// Which rows win and whether black has forbidden moves.
        rule: Rule,
    },
    /// Xiangqi (Chinese chess), standard rules.
    Xiangqi,
    /// Connect Four, 7 columns × 6 rows.
    Connect4,
}

/// A rejected game spec; every variant names the rejected input.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// The text is none of the written forms.
    #[error("game spec {input:?}: {reason}; the forms are {SPEC_FORMS}")]
    Syntax {
        /// The rejected text.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A game name this build does not know.
    #[error("unknown game {name:?}: this build knows {}", GameSpec::NAMES.join(", "))]
    UnknownGame {
        /// The rejected name.
        name: String,
    },
    /// A size or rule given for a game without board size or rule options.
    #[error("size and rule apply to gomoku only, not {game}")]
    NotForGame {
        /// The game named.
        game: String,
    },
    /// A Gomoku board size or rule out of range (the [`ParseError`] names the input).
    #[error(transparent)]
    Gomoku(#[from] ParseError),
    /// A file header's game (`name` and configuration text) that names no valid spec.
    #[error("header names game {name:?} with configuration {config:?}: {reason}")]
    Header {
        /// The game name in the header.
        name: String,
        /// The configuration text in the header.
        config: String,
        /// What is missing or wrong.
        reason: String,
    },
}

/// A game with a place in the registry: its rules configuration converts to and from a
/// [`GameSpec`]. Implemented for every game of this build, each in its own module.
pub trait Registered: PositionText {
    /// The spec of this game under `config` (options the spec does not carry are dropped).
    fn spec(config: &Self::Config) -> GameSpec;
    /// The configuration of a spec of this game; `None` for a spec of another game.
    fn config_of(spec: &GameSpec) -> Option<Self::Config>;

    /// How every program that plays or analyses this game searches it (see [`play`]): the
    /// game's decisive-move check, tactics, PUCT and solver settings. How long, root noise and
    /// seed are the program's ([`alphazero_mcts::SearchBudget`]).
    fn play_search() -> SearchConfig;

    /// This game's exact-solver [`Yardstick`] (test positions with a solver's answers, the
    /// training loop's `eval.solver_every`); `None`, the default, for a game without one.
    fn solver_yardstick() -> Option<SolverYardstick<Self>> {
        None
    }

    /// A start position made from the rules alone for self-play's random starts
    /// (`[selfplay.random_starts]`): for Xiangqi the initial position with up to
    /// `max_removed` pieces other than the general taken off each side, then up to `plies`
    /// uniformly random legal moves, drawn from `seed` (the same seed gives the same
    /// position). Material imbalances end games sooner and teach what pieces are worth;
    /// random moves leave pieces where they can be taken and teach taking them. Returns the
    /// position and its text, which [`PositionText::parse_position`] reads back. `None`, the
    /// default, for a game without random starts.
    fn random_start(
        config: &Self::Config,
        max_removed: u32,
        plies: u32,
        seed: u64,
    ) -> Option<(Self, String)> {
        let _ = (config, max_removed, plies, seed);
        None
    }

    /// Perft: the leaf nodes of the legal-move tree of this position, `depth` plies deep, by
    /// the game's fastest counter; the default is [`perft::perft_generic`].
    fn perft(&self, depth: u32) -> u64 {
        perft::perft_generic(self, depth)
    }
}

impl GameSpec {
    /// The names of the games this build knows, in the order of the command line's choices.
    pub const NAMES: [&'static str; 3] = [gomoku::NAME, xiangqi::NAME, connect4::NAME];

    /// Each game with its default options (Gomoku 15×15 freestyle), in the order of
    /// [`GameSpec::NAMES`].
    pub const DEFAULTS: [GameSpec; 3] = [
        GameSpec::Gomoku {
            size: DEFAULT_GOMOKU_SIZE,
            rule: Rule::Freestyle,
        },
        GameSpec::Xiangqi,
        GameSpec::Connect4,
    ];

    /// The game in one line for a list of choices (`--help`).
    pub fn about(&self) -> &'static str {
        match self {
            GameSpec::Gomoku { .. } => gomoku::ABOUT,
            GameSpec::Xiangqi => xiangqi::ABOUT,
            GameSpec::Connect4 => connect4::ABOUT,
        }
    }

    /// The game's training defaults as TOML text: the keys of a training configuration
    /// (`[selfplay]`, `[model]`, `[train]`, `[gating]`, …, as in `configs/*.toml`) whose value
    /// for this game differs from the game-neutral base of `alphazero-train`, each with the
    /// reason. The training crate lays it over its base; a key it does not know is an error
    /// there (its tests load every game's preset). No preset sets `[game]`: a run's game is
    /// its spec (Gomoku's default 15×15 freestyle when the config gives no size or rule), and
    /// Gomoku's preset is for 15×15 freestyle whatever the spec's size and rule.
    pub fn training_preset(&self) -> &'static str {
        match self {
            GameSpec::Gomoku { .. } => gomoku::TRAINING_PRESET,
            GameSpec::Xiangqi => xiangqi::TRAINING_PRESET,
            GameSpec::Connect4 => connect4::TRAINING_PRESET,
        }
    }

    /// The test data of the game's exact-solver [`Yardstick`] ([`Registered::solver_yardstick`]);
    /// `None` for a game without one.
    pub fn solver_yardstick(&self) -> Option<YardstickInfo> {
        with_game!(self, G, _cfg => G::solver_yardstick().map(|y| y.info))
    }

    /// The game's play search ([`Registered::play_search`]): what `play`, `analyze`, `serve`,
    /// the arena's `net:` players, the Gomocup brain and the UCCI/UCI engine search this game
    /// with, their budget apart.
    pub fn play_search(&self) -> SearchConfig {
        with_game!(self, G, _cfg => G::play_search())
    }

    /// The game's name ([`Game::NAME`](alphazero_game::Game::NAME)): `gomoku`, `xiangqi` or `connect4`.
    pub fn name(&self) -> &'static str {
        match self {
            GameSpec::Gomoku { .. } => gomoku::NAME,
            GameSpec::Xiangqi => xiangqi::NAME,
            GameSpec::Connect4 => connect4::NAME,
        }
    }

    /// Gomoku on a `size × size` board under `rule`.
    ///
    /// # Errors
    /// [`SpecError::Gomoku`] when `size` is outside 5..=20.
    pub fn gomoku(size: u8, rule: Rule) -> Result<GameSpec, SpecError> {
        gomoku::spec(size, rule)
    }

    /// The spec of game `G` under `config`.
    pub fn of<G: Registered>(config: &G::Config) -> GameSpec {
        G::spec(config)
    }

    /// A spec from a game name and the optional Gomoku options, as the command line's
    /// `--game`, `--size` and `--rule` (and a training config's `[game]`) give them. A missing
    /// size is 15, a missing rule freestyle.
    ///
    /// # Errors
    /// [`SpecError::UnknownGame`], [`SpecError::NotForGame`] (a size or rule for Xiangqi or
    /// Connect Four), [`SpecError::Gomoku`] (a size outside 5..=20, an unknown rule).
    pub fn from_parts(
        name: &str,
        size: Option<u8>,
        rule: Option<&str>,
    ) -> Result<GameSpec, SpecError> {
        let lower = name.trim().to_ascii_lowercase();
        if lower == gomoku::NAME {
            let rule = rule.map(str::parse).transpose()?.unwrap_or_default();
            return gomoku::spec(size.unwrap_or(DEFAULT_GOMOKU_SIZE), rule);
        }
        let spec = match lower.as_str() {
            xiangqi::NAME => GameSpec::Xiangqi,
            connect4::NAME => GameSpec::Connect4,
            _ => {
                return Err(SpecError::UnknownGame {
                    name: name.to_string(),
                })
            }
        };
        if size.is_some() || rule.is_some() {
            return Err(SpecError::NotForGame { game: lower });
        }
        Ok(spec)
    }

    /// The spec's options as a command line or a config's `[game]` writes them: the board
    /// size and the rule's name (`(Some(15), Some("renju"))`), or `(None, None)` for a game
    /// without such options. [`GameSpec::from_parts`] of the name and these gives the spec back.
    pub fn options(&self) -> (Option<u8>, Option<&'static str>) {
        match self {
            GameSpec::Gomoku { size, rule } => (Some(*size), Some(rule.name())),
            _ => (None, None),
        }
    }

    /// The game in words, as people read it: `gomoku 15x15 renju`, `xiangqi`, `connect4`.
    pub fn words(&self) -> String {
        match self {
            GameSpec::Gomoku { size, rule } => format!("gomoku {size}x{size} {rule}"),
            other => other.name().to_string(),
        }
    }

    /// The file name of the network shipped for this spec under `models/`: `connect4.azc`,
    /// `xiangqi.azc`, `gomoku-<N>x<N>-<rule>.azc`.
    pub fn model_file_name(&self) -> String {
        match self {
            GameSpec::Gomoku { size, rule } => format!("gomoku-{size}x{size}-{rule}.azc"),
            other => format!("{}.azc", other.name()),
        }
    }

    /// The file name of the fast evaluator shipped for this spec under `models/`, if the game
    /// has one: `gomoku-<N>x<N>-<rule>.azm`, a Mixnet evaluator distilled from that board's
    /// network (`alphazero distill`). Its line tables are learnt under one rule, so a board
    /// takes only its own rule's file, never another rule's. `None` for the other games.
    pub fn fast_evaluator_file_name(&self) -> Option<String> {
        match self {
            GameSpec::Gomoku { size, rule } => Some(format!("gomoku-{size}x{size}-{rule}.azm")),
            _ => None,
        }
    }

    /// The files every program plays this spec with when given no model, best first: each
    /// network of [`Self::model_file_names`] with, before it, its fast evaluator where that
    /// one's line tables fit this board's rule — its own rule's, and for the standard rule
    /// (which differs from freestyle only in overlines) freestyle's; never freestyle's for
    /// renju, whose forbidden points the freestyle tables never saw.
    pub fn evaluator_file_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        for spec in self.specs_with_usable_networks() {
            let tables_fit = match (self, spec) {
                (GameSpec::Gomoku { rule, .. }, GameSpec::Gomoku { rule: other, .. }) => {
                    *rule == other || (*rule == Rule::Standard && other == Rule::Freestyle)
                }
                _ => true,
            };
            if tables_fit {
                names.extend(spec.fast_evaluator_file_name());
            }
            names.push(spec.model_file_name());
        }
        names
    }

    /// This spec, then, for Gomoku under the standard or renju rule, the freestyle spec of
    /// the same board: the specs whose networks can play it ([`Self::model_file_names`]).
    fn specs_with_usable_networks(&self) -> Vec<GameSpec> {
        let mut specs = vec![*self];
        if let GameSpec::Gomoku { size, rule } = self {
            if *rule != Rule::Freestyle {
                specs.push(GameSpec::Gomoku {
                    size: *size,
                    rule: Rule::Freestyle,
                });
            }
        }
        specs
    }

    /// The file names of the shipped networks usable for this spec, best first: its own
    /// ([`Self::model_file_name`]), then, for Gomoku under the standard or renju rule, the
    /// freestyle network of the same board (the same input shape; its policy and values were
    /// learnt without the rule, which the search applies). The Gomocup brain plays the same
    /// way, so every front end uses one network for a board.
    pub fn model_file_names(&self) -> Vec<String> {
        self.specs_with_usable_networks()
            .iter()
            .map(GameSpec::model_file_name)
            .collect()
    }

    /// The file names of the shipped networks of this game's *other* boards, in the order a
    /// size-independent one among them is preferred for this board when it has none of its
    /// own ([`Self::model_file_names`]): for Gomoku the 15×15, 20×20 and then the other sizes
    /// (from the largest), each under this rule and then freestyle; empty for games of one
    /// board.
    pub fn other_board_model_file_names(&self) -> Vec<String> {
        let GameSpec::Gomoku { size, rule } = self else {
            return Vec::new();
        };
        let sizes = [15u8, 20]
            .into_iter()
            .chain(
                (alphazero_gomoku::MIN_SIZE..=alphazero_gomoku::MAX_SIZE)
                    .rev()
                    .filter(|s| ![15, 20].contains(s)),
            )
            .filter(|s| s != size);
        let mut names = Vec::new();
        for s in sizes {
            for r in [*rule, Rule::Freestyle] {
                let name = GameSpec::Gomoku { size: s, rule: r }.model_file_name();
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        names
    }

    /// The spec stored in a file header as a game name and a configuration text: the spec's
    /// own text (`gomoku:15:renju`, what this build writes), or, for files written before the
    /// registry, the configuration's `Debug` text (`GomokuConfig { size: 15, rule: Renju, .. }`;
    /// Xiangqi and Connect Four headers carry no options, so any text is theirs).
    ///
    /// # Errors
    /// [`SpecError::UnknownGame`] for a name this build does not know;
    /// [`SpecError::Header`] when the text names another game or a Gomoku text has no valid
    /// board size and rule.
    pub fn from_header(name: &str, config: &str) -> Result<GameSpec, SpecError> {
        if !GameSpec::NAMES.contains(&name) {
            return Err(SpecError::UnknownGame {
                name: name.to_string(),
            });
        }
        let header_error = |reason: String| SpecError::Header {
            name: name.to_string(),
            config: config.to_string(),
            reason,
        };
        if let Ok(spec) = config.parse::<GameSpec>() {
            if spec.name() != name {
                return Err(header_error(format!(
                    "the configuration is {}",
                    spec.name()
                )));
            }
            return Ok(spec);
        }
        match name {
            gomoku::NAME => gomoku::from_debug_text(config).map_err(header_error),
            xiangqi::NAME => Ok(GameSpec::Xiangqi),
            _ => Ok(GameSpec::Connect4),
        }
    }
}

impl fmt::Display for GameSpec {
    /// The long written form: `gomoku:15:freestyle`, `xiangqi`, `connect4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameSpec::Gomoku { size, rule } => write!(f, "{}:{size}:{rule}", gomoku::NAME),
            other => f.write_str(other.name()),
        }
    }
}

impl FromStr for GameSpec {
    type Err = SpecError;

    /// Parses one of the forms of [`SPEC_FORMS`] (names and rules case-insensitive,
    /// surrounding blanks ignored).
    ///
    /// # Errors
    /// [`SpecError::Syntax`] naming the text and listing the forms.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let syntax = |reason: String| SpecError::Syntax {
            input: s.to_string(),
            reason,
        };
        let parts: Vec<&str> = s.trim().split(':').map(str::trim).collect();
        let name = parts[0].to_ascii_lowercase();
        if !GameSpec::NAMES.contains(&name.as_str()) {
            return Err(syntax(if name.is_empty() {
                "no game name".into()
            } else {
                format!("unknown game {name:?}")
            }));
        }
        if name != gomoku::NAME {
            if parts.len() > 1 {
                return Err(syntax(format!("{name} takes no size or rule")));
            }
            return GameSpec::from_parts(&name, None, None).map_err(|e| syntax(e.to_string()));
        }
        if parts.len() > 3 {
            return Err(syntax("more than three parts".into()));
        }
        let size = match parts.get(1) {
            None => None,
            Some(t) => Some(
                t.parse::<u8>()
                    .map_err(|_| syntax(format!("board size {t:?} is not a number")))?,
            ),
        };
        GameSpec::from_parts(&name, size, parts.get(2).copied()).map_err(|e| syntax(e.to_string()))
    }
}

/// The serde form of a [`GameSpec`]: `{ game = "gomoku", size = 15, rule = "renju" }`, or
/// (read only) the checkpoint header of builds before the registry, `{ name = "gomoku",
/// config = "GomokuConfig { size: 15, rule: Renju, candidate_radius: 2 }" }`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecTable {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    game: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    size: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rule: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    config: Option<String>,
}

impl TryFrom<SpecTable> for GameSpec {
    type Error = SpecError;

    fn try_from(t: SpecTable) -> Result<Self, SpecError> {
        match (t.game, t.name) {
            (Some(game), None) if t.config.is_none() => {
                GameSpec::from_parts(&game, t.size, t.rule.as_deref())
            }
            (None, Some(name)) if t.size.is_none() && t.rule.is_none() => {
                GameSpec::from_header(&name, t.config.as_deref().unwrap_or_default())
            }
            _ => Err(SpecError::Syntax {
                input: "a table".into(),
                reason: "a game table has the keys game (gomoku, xiangqi or connect4), size \
                         and rule (gomoku only)"
                    .into(),
            }),
        }
    }
}

impl From<GameSpec> for SpecTable {
    fn from(spec: GameSpec) -> SpecTable {
        let (size, rule) = match spec {
            GameSpec::Gomoku { size, rule } => (Some(size), Some(rule.name().to_string())),
            _ => (None, None),
        };
        SpecTable {
            game: Some(spec.name().to_string()),
            size,
            rule,
            name: None,
            config: None,
        }
    }
}

/// Runs `$body` with the type name `$G` bound to the game type of a spec and `$cfg` to a
/// reference to its rules configuration: the one dispatch from a run-time [`GameSpec`] to
/// generic code. `$spec` is a `&GameSpec`; the value of `$body` is the macro's value (every
/// arm must give the same type).
///
/// ```
/// use alphazero_registry::{with_game, GameSpec};
/// use alphazero_game::Game;
/// let spec = GameSpec::Connect4;
/// assert_eq!(with_game!(&spec, G, cfg => G::new(cfg).num_actions()), 7);
/// ```
#[macro_export]
macro_rules! with_game {
    ($spec:expr, $G:ident, $cfg:ident => $body:expr) => {{
        let spec: &$crate::GameSpec = $spec;
        match spec {
            $crate::GameSpec::Gomoku { .. } => {
                type $G = $crate::games::Gomoku;
                $crate::__with_config!(spec, $G, $cfg => $body)
            }
            $crate::GameSpec::Xiangqi => {
                type $G = $crate::games::Xiangqi;
                $crate::__with_config!(spec, $G, $cfg => $body)
            }
            $crate::GameSpec::Connect4 => {
                type $G = $crate::games::Connect4;
                $crate::__with_config!(spec, $G, $cfg => $body)
            }
        }
    }};
}

/// One arm of [`with_game!`]: binds `$cfg` to the configuration of `spec` for game `$G`.
#[doc(hidden)]
#[macro_export]
macro_rules! __with_config {
    ($spec:ident, $G:ident, $cfg:ident => $body:expr) => {{
        let config = <$G as $crate::Registered>::config_of($spec)
            .expect("with_game!: the arm's game is the spec's game");
        let $cfg = &config;
        $body
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The networks a spec can play with, best first: a renju or standard board falls back
    /// to the freestyle network of its size, never to another size.
    #[test]
    fn model_file_names_fall_back_to_the_freestyle_network_of_the_same_board() {
        let names = |s: &str| s.parse::<GameSpec>().unwrap().model_file_names();
        assert_eq!(
            names("gomoku:15:renju"),
            ["gomoku-15x15-renju.azc", "gomoku-15x15-freestyle.azc"]
        );
        assert_eq!(
            names("gomoku:9:standard"),
            ["gomoku-9x9-standard.azc", "gomoku-9x9-freestyle.azc"]
        );
        assert_eq!(names("gomoku:8"), ["gomoku-8x8-freestyle.azc"]);
        assert_eq!(names("xiangqi"), ["xiangqi.azc"]);
        assert_eq!(names("connect4"), ["connect4.azc"]);
    }

    #[test]
    fn fast_evaluator_file_names_are_gomoku_only_and_of_the_boards_own_rule() {
        let name = |s: &str| s.parse::<GameSpec>().unwrap().fast_evaluator_file_name();
        assert_eq!(
            name("gomoku:15").as_deref(),
            Some("gomoku-15x15-freestyle.azm")
        );
        assert_eq!(
            name("gomoku:15:renju").as_deref(),
            Some("gomoku-15x15-renju.azm")
        );
        assert_eq!(
            name("gomoku:9:standard").as_deref(),
            Some("gomoku-9x9-standard.azm")
        );
        assert_eq!(name("xiangqi"), None);
        assert_eq!(name("connect4"), None);
        let names = |s: &str| s.parse::<GameSpec>().unwrap().evaluator_file_names();
        assert_eq!(
            names("gomoku:15"),
            ["gomoku-15x15-freestyle.azm", "gomoku-15x15-freestyle.azc"]
        );
        assert_eq!(
            names("gomoku:15:standard"),
            [
                "gomoku-15x15-standard.azm",
                "gomoku-15x15-standard.azc",
                "gomoku-15x15-freestyle.azm",
                "gomoku-15x15-freestyle.azc"
            ]
        );
        assert_eq!(
            names("gomoku:15:renju"),
            [
                "gomoku-15x15-renju.azm",
                "gomoku-15x15-renju.azc",
                "gomoku-15x15-freestyle.azc"
            ]
        );
        assert_eq!(names("xiangqi"), ["xiangqi.azc"]);
    }
    use proptest::prelude::*;

    fn any_spec() -> impl Strategy<Value = GameSpec> {
        prop_oneof![
            (5u8..=20, 0usize..3).prop_map(|(size, r)| {
                let rule = [Rule::Freestyle, Rule::Standard, Rule::Renju][r];
                GameSpec::Gomoku { size, rule }
            }),
            Just(GameSpec::Xiangqi),
            Just(GameSpec::Connect4),
        ]
    }

    proptest! {
        #[test]
        fn printed_specs_parse_back(spec in any_spec()) {
            prop_assert_eq!(spec.to_string().parse::<GameSpec>().unwrap(), spec);
        }

        #[test]
        fn specs_round_trip_through_json_and_toml(spec in any_spec()) {
            let json = serde_json::to_string(&spec).unwrap();
            prop_assert_eq!(serde_json::from_str::<GameSpec>(&json).unwrap(), spec);
            #[derive(Serialize, Deserialize, PartialEq, Debug)]
            struct Doc { game: GameSpec }
            let text = toml::to_string(&Doc { game: spec }).unwrap();
            prop_assert_eq!(toml::from_str::<Doc>(&text).unwrap(), Doc { game: spec });
        }

        #[test]
        fn with_game_gives_the_config_the_spec_names(spec in any_spec()) {
            let back = with_game!(&spec, G, cfg => GameSpec::of::<G>(cfg));
            prop_assert_eq!(back, spec);
        }
    }

    #[test]
    fn short_forms_parse_to_their_defaults() {
        let fifteen = GameSpec::Gomoku {
            size: 15,
            rule: Rule::Freestyle,
        };
        assert_eq!("gomoku".parse::<GameSpec>().unwrap(), fifteen);
        assert_eq!(" Gomoku:15 ".parse::<GameSpec>().unwrap(), fifteen);
        assert_eq!(
            "gomoku:9:RENJU".parse::<GameSpec>().unwrap(),
            GameSpec::Gomoku {
                size: 9,
                rule: Rule::Renju
            }
        );
        assert_eq!("xiangqi".parse::<GameSpec>().unwrap(), GameSpec::Xiangqi);
        assert_eq!("connect4".parse::<GameSpec>().unwrap(), GameSpec::Connect4);
    }

    #[test]
    fn bad_specs_name_the_input_and_list_the_forms() {
        for (text, why) in [
            ("chess", "unknown game \"chess\""),
            ("", "no game name"),
            ("gomoku:x", "board size \"x\" is not a number"),
            ("gomoku:25", "25"),
            ("gomoku:15:pro", "expected freestyle, standard or renju"),
            ("gomoku:15:renju:1", "more than three parts"),
            ("xiangqi:9", "xiangqi takes no size or rule"),
        ] {
            let e = text.parse::<GameSpec>().unwrap_err().to_string();
            assert!(e.contains(&format!("{text:?}")), "{e}");
            assert!(e.contains(why), "{e}");
            assert!(e.contains(SPEC_FORMS), "{e}");
        }
    }

    #[test]
    fn from_parts_refuses_gomoku_options_for_other_games() {
        assert_eq!(
            GameSpec::from_parts("connect4", Some(9), None).unwrap_err(),
            SpecError::NotForGame {
                game: "connect4".into()
            }
        );
        assert!(matches!(
            GameSpec::from_parts("go", None, None),
            Err(SpecError::UnknownGame { .. })
        ));
    }

    #[test]
    fn the_serde_form_is_a_tagged_table() {
        let spec = GameSpec::Gomoku {
            size: 9,
            rule: Rule::Renju,
        };
        assert_eq!(
            serde_json::to_string(&spec).unwrap(),
            r#"{"game":"gomoku","size":9,"rule":"renju"}"#
        );
        assert_eq!(
            serde_json::to_string(&GameSpec::Xiangqi).unwrap(),
            r#"{"game":"xiangqi"}"#
        );
        let e = serde_json::from_str::<GameSpec>(r#"{"game":"gomoku","size":30}"#).unwrap_err();
        assert!(e.to_string().contains("30"), "{e}");
        let e = serde_json::from_str::<GameSpec>(r#"{"game":"xiangqi","size":9}"#).unwrap_err();
        assert!(e.to_string().contains("gomoku only"), "{e}");
    }

    #[test]
    fn headers_written_before_the_registry_still_read() {
        let legacy = r#"{"name":"gomoku","config":"GomokuConfig { size: 8, rule: Renju, candidate_radius: 2 }"}"#;
        assert_eq!(
            serde_json::from_str::<GameSpec>(legacy).unwrap(),
            GameSpec::Gomoku {
                size: 8,
                rule: Rule::Renju
            }
        );
        assert_eq!(
            GameSpec::from_header("connect4", "Connect4Config").unwrap(),
            GameSpec::Connect4
        );
        assert_eq!(
            GameSpec::from_header("xiangqi", "XiangqiConfig { repetition_count: 3, no_capture_draw_plies: 120, repetition: Asian }").unwrap(),
            GameSpec::Xiangqi
        );
        assert_eq!(
            GameSpec::from_header("gomoku", "gomoku:12:standard").unwrap(),
            GameSpec::Gomoku {
                size: 12,
                rule: Rule::Standard
            }
        );
        let e = GameSpec::from_header("gomoku", "GomokuConfig { rule: Renju }").unwrap_err();
        assert!(e.to_string().contains("no board size"), "{e}");
        assert!(GameSpec::from_header("gomoku", "connect4").is_err());
        assert!(matches!(
            GameSpec::from_header("shogi", ""),
            Err(SpecError::UnknownGame { .. })
        ));
    }

    #[test]
    fn only_games_with_an_exact_solver_have_a_yardstick() {
        let info = GameSpec::Connect4
            .solver_yardstick()
            .expect("connect4 has a solver");
        assert_eq!(info.folder, "connect4");
        assert_eq!(info.sets, &connect4_yardstick::SLICE_SETS[..]);
        assert_eq!(GameSpec::Xiangqi.solver_yardstick(), None);
        assert_eq!(GameSpec::DEFAULTS[0].solver_yardstick(), None);
        // The loader takes the first positions of the sets, as many as asked.
        let dir = connect4_yardstick::default_testdata_dir();
        let load = games::Connect4::solver_yardstick().unwrap().load;
        let slice = load(&dir, 7).expect("test data");
        assert_eq!(slice.positions().len(), 7);
        let err = load(std::path::Path::new("/nonexistent"), 7)
            .err()
            .expect("no data");
        assert!(err.to_string().contains("/nonexistent"), "{err}");
    }

    /// Every program plays with these (see [`play`]): a preset is a valid search; the games
    /// with tactical searches get them at every node, at the root and for the opponent's
    /// replies (the UCCI/UCI engine once played Xiangqi with none and was mated at depth 1).
    #[test]
    fn play_searches_are_valid_and_use_the_games_tactics() {
        for spec in GameSpec::DEFAULTS {
            let preset = spec.play_search();
            assert_eq!(preset.validate(), Ok(()), "{spec}");
        }
        for spec in [GameSpec::DEFAULTS[0], GameSpec::Xiangqi] {
            let preset = spec.play_search();
            assert!(preset.tactical_budget.is_some(), "{spec}");
            assert!(preset.root_tactical_budget.is_some(), "{spec}");
            assert!(preset.reply_tactical_budget.is_some(), "{spec}");
        }
        // Gomoku's options do not change how it is searched.
        let renju: GameSpec = "gomoku:9:renju".parse().unwrap();
        assert_eq!(renju.play_search(), GameSpec::DEFAULTS[0].play_search());
        assert!(GameSpec::Connect4.play_search().terminal_check);
    }

    #[test]
    fn words_and_model_file_names() {
        let spec: GameSpec = "gomoku:15:renju".parse().unwrap();
        assert_eq!(spec.words(), "gomoku 15x15 renju");
        assert_eq!(spec.model_file_name(), "gomoku-15x15-renju.azc");
        assert_eq!(GameSpec::Xiangqi.words(), "xiangqi");
        assert_eq!(GameSpec::Connect4.model_file_name(), "connect4.azc");
    }

    #[test]
    fn other_boards_offer_their_networks_main_sizes_first_own_rule_before_freestyle() {
        let spec: GameSpec = "gomoku:18:renju".parse().unwrap();
        let names = spec.other_board_model_file_names();
        assert_eq!(
            names[..5],
            [
                "gomoku-15x15-renju.azc",
                "gomoku-15x15-freestyle.azc",
                "gomoku-20x20-renju.azc",
                "gomoku-20x20-freestyle.azc",
                "gomoku-19x19-renju.azc",
            ]
        );
        assert!(!names.iter().any(|n| n.contains("18x18")), "{names:?}");
        // Every other size (5 to 20 but 18), each rule once.
        assert_eq!(names.len(), 15 * 2);
        let freestyle: GameSpec = "gomoku:15:freestyle".parse().unwrap();
        let names = freestyle.other_board_model_file_names();
        assert_eq!(names[0], "gomoku-20x20-freestyle.azc");
        assert_eq!(names.len(), 15);
        assert!(GameSpec::Xiangqi.other_board_model_file_names().is_empty());
    }
}
