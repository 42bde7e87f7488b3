//! Engine protocols: our search as a Gomocup brain and as a UCCI/UCI Xiangqi engine, and
//! clients that drive external engines over the same protocols as arena [`Player`]s.
//!
//! * [`run_gomocup`] / [`GomocupEngine`]: the Gomocup "new" (pipe) brain protocol
//!   (`START`, `BEGIN`, `TURN`, `BOARD … DONE`, `INFO`, `END`, `ABOUT`, `RESTART`,
//!   `RECTSTART`, `TAKEBACK`, `PLAY`, and the swap2 opening's `SWAP2BOARD`), see the
//!   repository's `tests/data/protocols/gomocup.md`. Answers come within `timeout_turn` and
//!   the match's time (a search on a worker thread, answered from its latest snapshot at the
//!   hard deadline). A bad `BOARD` line (malformed, off the board, repeated, or field 3,
//!   which only a continuous game may send) is an `ERROR BOARD line N …` at `DONE` (see [`GomocupEngine::handle_line`]).
//! * [`run_ucci`] / [`UcciEngine`]: UCCI (`ucci`) and UCI (`uci`) for Xiangqi, with
//!   `position`, `banmoves`, `go depth|nodes|time|movetime|wtime…|infinite`, `stop` and `quit`
//!   seen while thinking (stdin is read on its own thread). A rejected `position` (bad FEN,
//!   unparsable or illegal move, named with its index) leaves no position: `go` answers
//!   `nobestmove` / `bestmove (none)` until the next good `position`, never a move for a
//!   stale position (see [`UcciEngine::run`]).
//! * [`GomocupClient`] / [`UcciClient`]: spawn an external engine and play it through the
//!   [`Player`] trait. A crash, a broken pipe, garbage, an illegal move or a timeout is a
//!   [`PlayerError`], never a hang; the child is killed on drop.
//!
//! The engines take their evaluator as `Arc<dyn Evaluator<G>>` (the network in the binary,
//! [`alphazero_mcts::UniformEvaluator`] in tests) and are deterministic for a fixed
//! [`EngineConfig::search`] seed when [`EngineConfig::fixed_simulations`] is set.
//!
//! # Move notation dialects (Xiangqi)
//! [`Notation::Iccs`] (default for both UCCI and UCI): files `a`–`i`, ranks `0`–`9` from Red's
//! side (`h2e2`), as ElephantEye and Pikafish use. [`Notation::FairyRanks`]: ranks `1`–`10`
//! (`h3e3`, `a10a9`), as Fairy-Stockfish uses; selected in our engine by
//! `setoption name UCI_RankBase value 1` and in the client by [`UcciClientConfig::notation`].
//!
//! # Scores
//! A value `v` in [-1, 1] from the side to move is reported as centipawns
//! `cp = round(290 · tan(1.5 · v))`, i.e. at most ±4089 ([`value_to_cp`]); the client maps back
//! with [`cp_to_value`]. A proven result is reported as `score mate ±n` (UCI) or `score ±(30000 −
//! plies)` (UCCI).
#![deny(missing_docs)]

mod client_gomocup;
mod client_ucci;
mod gomocup;
mod process;
mod think;
mod ucci;

use std::time::Duration;

pub use alphazero_arena::{Limits, MoveChoice, Player, PlayerError};
use alphazero_mcts::SearchConfig;
pub use client_gomocup::{GomocupClient, GomocupClientConfig};
pub use client_ucci::{UcciClient, UcciClientConfig};
pub use gomocup::{run_gomocup, Flow, GomocupEngine};
pub use ucci::{format_move, parse_move, run_ucci, Dialect, Notation, UcciEngine};

/// Settings shared by both engines.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Search settings. `search.simulations` is the most simulations one move may use (the
    /// cap for time-limited searches, the exact count with [`EngineConfig::fixed_simulations`]
    /// or when no time is given). Root noise should be off for play.
    pub search: SearchConfig,
    /// When `true` the clock never decides anything: every search without an explicit node
    /// limit runs exactly `search.simulations` simulations (or stops when the root is proven),
    /// `INFO time_left` / `go movetime` are ignored. For golden tests and reproducible
    /// analysis. Default `false`.
    pub fixed_simulations: bool,
    /// Thinking time per move when the GUI gives none (1 s).
    pub default_move_time: Duration,
    /// Subtracted from every time budget (50 ms); the budget loses at least 5 % as well.
    /// The search starts no batch expected to end after the budget; the Gomocup brain also
    /// answers at a hard deadline (the turn limit less 2 %, at least 20 ms) whatever the
    /// search is doing.
    pub safety_margin: Duration,
    /// Estimated bytes of tree per simulation (2000), used to turn Gomocup
    /// `INFO max_memory` into a simulation cap.
    pub bytes_per_simulation: u64,
    /// Engine name reported by `ABOUT` / `id name` (`alphazero-rs`).
    pub name: String,
    /// Version reported by `ABOUT` / `id name` (the crate version).
    pub version: String,
    /// Author reported by `ABOUT` / `id author`.
    pub author: String,
    /// Country reported by `ABOUT`.
    pub country: String,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            search: SearchConfig {
                simulations: 200_000,
                ..SearchConfig::default()
            },
            fixed_simulations: false,
            default_move_time: Duration::from_millis(1000),
            safety_margin: Duration::from_millis(50),
            bytes_per_simulation: 2000,
            name: "alphazero-rs".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            author: "alphazero-rs contributors".into(),
            country: "Unknown".into(),
        }
    }
}

impl EngineConfig {
    /// A deterministic configuration: exactly `simulations` per move, no clock, `seed`.
    pub fn fixed(simulations: u32, seed: u64) -> Self {
        EngineConfig {
            search: SearchConfig {
                simulations,
                seed,
                ..SearchConfig::default()
            },
            fixed_simulations: true,
            ..EngineConfig::default()
        }
    }

    /// `budget` minus the safety margin (and at least 5 % of it); zero if nothing is left.
    pub(crate) fn usable(&self, budget: Duration) -> Duration {
        let margin = self.safety_margin.max(budget / 20);
        budget.saturating_sub(margin)
    }
}

/// Centipawns for a value `v` in [-1, 1] from the side to move: `round(290 · tan(1.5 · v))`
/// (`v` is clamped to [-1, 1], so the result is within ±4089; NaN gives 0). 0.5 ↦ 270,
/// 0.8 ↦ 746.
pub fn value_to_cp(v: f32) -> i32 {
    if v.is_nan() {
        return 0;
    }
    let v = f64::from(v.clamp(-1.0, 1.0));
    (290.0 * (1.5 * v).tan()).round() as i32
}

/// The inverse of [`value_to_cp`]: `atan(cp / 290) / 1.5`, clamped to [-1, 1].
pub fn cp_to_value(cp: i32) -> f32 {
    ((f64::from(cp) / 290.0).atan() / 1.5).clamp(-1.0, 1.0) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cp_conversion_round_trips_and_is_monotone() {
        assert_eq!(value_to_cp(0.0), 0);
        assert_eq!(value_to_cp(f32::NAN), 0);
        assert_eq!(value_to_cp(0.5), 270);
        assert_eq!(value_to_cp(-0.5), -270);
        assert_eq!(value_to_cp(0.8), 746);
        assert!(value_to_cp(1.0) == 4089);
        assert_eq!(value_to_cp(7.0), value_to_cp(1.0));
        let mut last = i32::MIN;
        for i in -100..=100 {
            let v = i as f32 / 100.0;
            let cp = value_to_cp(v);
            assert!(cp >= last);
            last = cp;
            assert!((cp_to_value(cp) - v).abs() < 0.01, "{v} -> {cp}");
        }
    }

    #[test]
    fn usable_budget_keeps_a_margin() {
        let c = EngineConfig::default();
        assert_eq!(
            c.usable(Duration::from_millis(1000)),
            Duration::from_millis(950)
        );
        assert_eq!(
            c.usable(Duration::from_millis(10_000)),
            Duration::from_millis(9500)
        );
        assert_eq!(c.usable(Duration::from_millis(20)), Duration::ZERO);
    }
}
