//! [`TrainConfig::validate`]: every value's range, each error naming its key; the searches by
//! the search's own rules ([`SearchConfig::validate`]).

use alphazero_mcts::{knobs, SearchConfig};
use alphazero_registry::GameSpec;

use super::errors::invalid;
use super::{ConfigError, LrSchedule, TrainConfig};

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
impl TrainConfig {
    /// Checks every value's range.
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] for the first bad value, naming its key and the rule, e.g.
    /// `selfplay.simulations must be >= 1 (got 0)`.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let s = &self.selfplay;
        at_least("selfplay.games_per_iteration", s.games_per_iteration, 1)?;
        at_least("selfplay.parallel_games", s.parallel_games, 1)?;
        at_least("selfplay.simulations", s.simulations, 1)?;
        at_most("selfplay.simulations", s.simulations, MAX_SIMULATIONS)?;
        non_negative("selfplay.temperature", s.temperature)?;
        non_negative("selfplay.final_temperature", s.final_temperature)?;
        // The search's keys, checked by the search's own rules (the fields the loop sets per
        // search, which are no keys, are checked where it sets them).
        search_valid("selfplay.search", &s.search)?;
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
        if !(0.0..1.0).contains(&s.random_starts.share) {
            return invalid(
                "selfplay.random_starts.share",
                "must be in [0, 1) (0 = off)".into(),
                s.random_starts.share,
            );
        }
        at_least(
            "selfplay.random_starts.max_removed",
            s.random_starts.max_removed,
            1,
        )?;
        // Xiangqi's pieces besides the general: more would take them all and skew the count.
        at_most(
            "selfplay.random_starts.max_removed",
            s.random_starts.max_removed,
            15,
        )?;
        // A longer random walk is no opening any more: most of its games end in a few plies.
        at_most("selfplay.random_starts.plies", s.random_starts.plies, 200)?;
        let has_conv_policy = alphazero_registry::with_game!(&self.game, G, cfg => {
            <G as alphazero_registry::Encode>::policy_planes(cfg).is_some()
        });
        if self.model.policy_head == super::PolicyHead::Conv && !has_conv_policy {
            return invalid(
                "model.policy_head",
                format!(
                    "must be dense for {}: its actions have no board point for a \
                     convolutional head (Gomoku and Xiangqi have one)",
                    self.game.name()
                ),
                "conv",
            );
        }
        let r = &s.random_starts;
        // Whether the game draws a start with these settings, and with at least one ply (a
        // game with nothing to take off, such as Gomoku, draws only random moves).
        let draws = |plies: u32| {
            alphazero_registry::with_game!(&self.game, G, cfg => {
                <G as alphazero_registry::Registered>::random_start(cfg, r.max_removed, plies, 0)
                    .is_some()
            })
        };
        if r.share > 0.0 && !draws(r.plies) {
            let why = if draws(r.plies.max(1)) {
                "its random starts are random moves only, set selfplay.random_starts.plies >= 1"
            } else {
                "it has no random starts (Xiangqi and Gomoku have)"
            };
            return invalid(
                "selfplay.random_starts.share",
                format!("must be 0 for {}: {why}", self.game.name()),
                r.share,
            );
        }

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
        at_most("model.policy_channels", m.policy_channels, MAX_CHANNELS)?;
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
        search_valid("gating.search", &gt.search.over(&s.search)?)?;
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
        if e.solver_every > 0 && !has_yardstick(&self.game) {
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
                    self.game.name()
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
/// `prefix` (`selfplay.search.c_puct must be a number in (0, 100] (got 0)`).
fn search_valid(prefix: &str, search: &SearchConfig) -> Result<(), ConfigError> {
    search.validate().map_err(|e| ConfigError::Invalid {
        key: format!("{prefix}.{}", e.field),
        message: e.reason,
        value: e.value,
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
pub(super) fn integer_minimum(key: &str) -> u32 {
    match key {
        "selfplay.games_per_iteration"
        | "selfplay.parallel_games"
        | "selfplay.simulations"
        | "selfplay.playout_cap.fast_simulations"
        | "selfplay.max_plies"
        | "selfplay.restarts.window"
        | "selfplay.random_starts.max_removed"
        | "replay.capacity"
        | "replay.recent_window"
        | "model.blocks"
        | "model.channels"
        | "model.value_hidden"
        | "train.batch_size"
        | "train.lr_step_every"
        | "gating.games"
        | "gating.simulations"
        | "eval.solver_positions"
        | "run.snapshot_every" => 1,
        "selfplay.search.leaves_per_batch" | "gating.search.leaves_per_batch" => {
            knobs::LEAVES_PER_BATCH.min
        }
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
