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
//! [`Notation::Iccs`]: files `a`–`i`, ranks `0`–`9` from Red's side (`h2e2`), as ElephantEye
//! and Pikafish use; our engine's default under `ucci`. [`Notation::FairyRanks`]: ranks
//! `1`–`10` (`h3e3`, `a10a9`), as Fairy-Stockfish and the GUIs and match tools that drive it
//! with `UCI_Variant xiangqi` use; our engine's default under `uci`. Either is chosen
//! explicitly with `setoption name UCI_RankBase value 0|1` (UCCI `setoption rankbase 0|1`),
//! for moves in (`position … moves`, `searchmoves`, `banmoves`) and out (`bestmove`,
//! `ponder`, `pv`). A move string is read only by the numbering in use; one with a rank only
//! the other numbering has (`0` under 1–10, `10` under 0–9) is an error, never reinterpreted
//! (see [`parse_move`]). The client takes its numbering from
//! [`UcciClientConfig::notation`] or the engine's handshake (see [`UcciClient`]).
//!
//! # Options and long input
//! The UCCI/UCI engine's options (`MultiPV`, `Hash` / `hashsize`, `Threads` / `threads`,
//! `UCI_ShowWDL`, `Move Overhead`, …) are listed in [`UcciEngine::run`]. Both engines cut
//! input they echo in an error line to 80 characters (then `… (N bytes)`), and read at most
//! 1 MiB of a line: a longer one is consumed without being stored and answered with one
//! error.
//!
//! # Scores
//! A value `v` in [-1, 1] from the side to move is reported as centipawns
//! `cp = round(290 · tan(1.5 · v))`, i.e. at most ±4089 ([`value_to_cp`]); the client maps back
//! with [`cp_to_value`]. A proven result is reported as `score mate ±n` (UCI) or `score ±(30000 −
//! plies)` (UCCI). With `UCI_ShowWDL`, `wdl W D L` follows the score ([`value_to_wdl`]).
#![deny(missing_docs)]

mod client_gomocup;
mod client_ucci;
mod clock;
mod eval_stack;
pub use eval_stack::cache_entries;
mod gomocup;
mod lines;
mod process;
mod think;
mod ucci;

use std::time::Duration;

pub use alphazero_arena::{Limits, MoveChoice, Player, PlayerError};
use alphazero_gomoku::Rule;
use alphazero_mcts::{SearchBudget, SearchConfig};
pub use client_gomocup::{GomocupClient, GomocupClientConfig};
pub use client_ucci::{UcciClient, UcciClientConfig};
pub use gomocup::{refuse_gomocup, run_gomocup, Flow, GomocupEngine};
pub use ucci::{format_move, parse_move, run_ucci, Dialect, Notation, UcciEngine};

/// Settings shared by both engines.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// How the engine searches (its searches have no root noise). The defaults here are the
    /// paper's, with no tactics; the programs (`alphazero gomocup`, `alphazero ucci`) play with
    /// their game's play search from the registry (`alphazero_engine::brain_config`).
    pub search: SearchConfig,
    /// Every search's budget as the search takes it ([`SearchBudget`]): `simulations` the
    /// most one move may use (200,000; the cap for time-limited searches, the exact count
    /// with [`EngineConfig::fixed_simulations`] or when no time is given, lowered by a
    /// protocol's node or memory limit; `None`: no cap, time alone ends a search, so never
    /// with `fixed_simulations`), the seed (0), no root noise.
    pub budget: SearchBudget,
    /// When `true` the clock never decides anything: every search without an explicit node
    /// limit runs exactly the budget's simulations (or stops when the root is
    /// proven), `INFO time_left` / `go movetime` are ignored. For golden tests and reproducible
    /// analysis. Default `false`.
    pub fixed_simulations: bool,
    /// Thinking time per move when the GUI gives none (1 s).
    pub default_move_time: Duration,
    /// Subtracted from every time budget (50 ms); the budget loses at least 5 % as well.
    /// The search starts no batch expected to end after the budget; the Gomocup brain also
    /// answers at a hard deadline (the turn limit less 2 %, at least 50 ms) whatever the
    /// search is doing.
    pub safety_margin: Duration,
    /// On a match clock — Gomocup `timeout_match` / `time_left`, UCCI/UCI `time` / `wtime` /
    /// `btime` without `movestogo 1` — a search stops before its share of the clock once its
    /// move cannot change any more, and takes up to 3 shares (at most a sixth of the clock
    /// left, never past the turn limit) when its root is unsure (`true`). `false`: every move
    /// searches its share, as a flat clock would (to measure the difference).
    pub steer_time: bool,
    /// Start each search from the previous search's subtree of the moves played since (its
    /// visits count as the root's; `true`). Not with [`Self::fixed_simulations`], which
    /// answers a position the same whatever came before it. `false`: every search starts
    /// from an empty tree (to measure the difference).
    pub reuse_tree: bool,
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
    /// UCCI/UCI engine: size of the network evaluation cache in MiB (UCI `Hash`, UCCI
    /// `hashsize`; 256, 0 = no cache). One cached position costs about
    /// `4 · num_actions + 64` bytes (~8.4 KB for Xiangqi's 2,086 actions, so ~124 per MiB).
    pub hash_mb: u32,
    /// UCCI/UCI engine: threads one network evaluation may use (UCI `Threads`, UCCI
    /// `threads`; 1, as UCI engines default to). The search itself is one thread that
    /// batches leaves.
    pub threads: u32,
    /// Gomocup brain: the board sides and rules the evaluator's networks were trained for
    /// (a side may have one network per rule; empty: no network, or nothing to warn about).
    /// A game on such a board under a rule none of its networks was trained for
    /// (`INFO rule`) is played with the side's first network, and a `MESSAGE` says so once.
    pub networks_trained_for: Vec<(u8, Rule)>,
    /// Gomocup brain: say in a `MESSAGE`, once per board side, that a board no network was
    /// trained for (any side but [`Self::networks_trained_for`]'s) is played by a search
    /// without a network, far weaker (the manager shows `MESSAGE` lines; stderr it does not).
    /// `false` (for embedders whose evaluator is what they chose).
    pub warn_network_less: bool,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            search: SearchConfig::default(),
            budget: SearchBudget::simulations(200_000),
            fixed_simulations: false,
            default_move_time: Duration::from_millis(1000),
            safety_margin: Duration::from_millis(50),
            steer_time: true,
            reuse_tree: true,
            bytes_per_simulation: 2000,
            name: "alphazero-rs".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            author: "alphazero-rs contributors".into(),
            country: "Unknown".into(),
            hash_mb: 256,
            threads: 1,
            networks_trained_for: Vec::new(),
            warn_network_less: false,
        }
    }
}

impl EngineConfig {
    /// A deterministic configuration: exactly `simulations` per move, no clock, `seed`.
    pub fn fixed(simulations: u32, seed: u64) -> Self {
        EngineConfig {
            budget: SearchBudget {
                seed,
                ..SearchBudget::simulations(simulations)
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

/// Echoed input is cut to this many characters in error lines, so that a bad line of a
/// megabyte does not come back whole.
pub(crate) const ECHO_CHARS: usize = 80;

/// An error line (whatever its reason embeds) is cut to this many characters.
pub(crate) const ERROR_LINE_CHARS: usize = 1000;

/// The longest input line an engine reads (1 MiB; a UCI `position` of a 2,000-ply game is
/// ~10 KB). A longer line is consumed to its end without being stored and answered with one
/// error; memory stays bounded whatever the input.
pub(crate) const MAX_LINE_BYTES: usize = 1 << 20;

/// Text echoed in an error line: at most [`ECHO_CHARS`] characters, longer text cut and
/// followed by `… (N bytes)`. `Display` writes it as is, `Debug` quoted (`"abc…" (N bytes)`).
pub(crate) struct Clipped<'a>(pub &'a str);

impl Clipped<'_> {
    /// The first [`ECHO_CHARS`] characters and, when that is not all, the full length.
    fn parts(&self) -> (&str, Option<usize>) {
        match self.0.char_indices().nth(ECHO_CHARS) {
            Some((i, _)) => (&self.0[..i], Some(self.0.len())),
            None => (self.0, None),
        }
    }
}

/// Writes `text` with its control characters escaped (`\u{1b}`, `\u{0}`, `\t`), so an echoed
/// input cannot put raw control bytes (a NUL, a terminal escape) into the protocol stream.
fn write_escaping_controls(f: &mut std::fmt::Formatter<'_>, text: &str) -> std::fmt::Result {
    use std::fmt::Write as _;
    for c in text.chars() {
        if c.is_control() {
            write!(f, "{}", c.escape_default())?;
        } else {
            f.write_char(c)?;
        }
    }
    Ok(())
}

impl std::fmt::Display for Clipped<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (head, cut) = self.parts();
        write_escaping_controls(f, head)?;
        match cut {
            Some(n) => write!(f, "… ({n} bytes)"),
            None => Ok(()),
        }
    }
}

impl std::fmt::Debug for Clipped<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.parts() {
            (head, Some(n)) => write!(f, "{:?} ({n} bytes)", format!("{head}…")),
            (all, None) => write!(f, "{all:?}"),
        }
    }
}

/// `msg` cut to [`ERROR_LINE_CHARS`] characters (then `… (N bytes)`): the last guard for
/// reasons that quote parts of the input (a FEN's rank, a field).
pub(crate) fn bounded(msg: &str) -> std::borrow::Cow<'_, str> {
    match msg.char_indices().nth(ERROR_LINE_CHARS) {
        Some((i, _)) => format!("{}… ({} bytes)", &msg[..i], msg.len()).into(),
        None => msg.into(),
    }
}

/// A [`alphazero_game::ParseError`] as text, its input [`Clipped`]: `cannot parse WHAT
/// "INPUT": REASON`.
pub(crate) fn parse_error_text(e: &alphazero_game::ParseError) -> String {
    format!(
        "cannot parse {} {:?}: {}",
        e.what,
        Clipped(&e.input),
        e.reason
    )
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

/// Win/draw/loss per mille `[W, D, L]` for a value `v` in [-1, 1] from the side to move
/// (UCI `UCI_ShowWDL`).
///
/// The network and the search give one number, the expected score `v = P(win) − P(loss)`;
/// they have no separate draw estimate, so the split is a choice. This one keeps exactly
/// that expectation (`W − L = 1000 · v`) with the fewest decisive results:
/// `W = round(1000 · max(v, 0))`, `L = round(1000 · max(−v, 0))`, `D = 1000 − W − L`. An
/// even position reads as a draw (`0 1000 0`; Stockfish-family WDL models, too, show even
/// positions as mostly drawn), a proven win (`v = 1`) as `1000 0 0`. `v` is clamped; NaN gives
/// `0 1000 0`.
pub fn value_to_wdl(v: f32) -> [u32; 3] {
    let v = if v.is_nan() { 0.0 } else { v.clamp(-1.0, 1.0) };
    let w = (1000.0 * v.max(0.0)).round() as u32;
    let l = (1000.0 * (-v).max(0.0)).round() as u32;
    [w, 1000 - w - l, l]
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
    fn wdl_keeps_the_expected_score_and_sums_to_1000() {
        assert_eq!(value_to_wdl(0.0), [0, 1000, 0]);
        assert_eq!(value_to_wdl(1.0), [1000, 0, 0]);
        assert_eq!(value_to_wdl(-1.0), [0, 0, 1000]);
        assert_eq!(value_to_wdl(0.25), [250, 750, 0]);
        assert_eq!(value_to_wdl(-0.4), [0, 600, 400]);
        assert_eq!(value_to_wdl(3.0), [1000, 0, 0]);
        assert_eq!(value_to_wdl(f32::NAN), [0, 1000, 0]);
        for i in -100..=100 {
            let v = i as f32 / 100.0;
            let [w, d, l] = value_to_wdl(v);
            assert_eq!(w + d + l, 1000);
            assert!(((w as f32 - l as f32) / 1000.0 - v).abs() < 1e-3, "{v}");
        }
    }

    #[test]
    fn echoed_input_is_clipped_to_80_characters_with_its_length() {
        let short = "h2e2";
        assert_eq!(Clipped(short).to_string(), "h2e2");
        assert_eq!(format!("{:?}", Clipped(short)), "\"h2e2\"");
        let exact = "x".repeat(ECHO_CHARS);
        assert_eq!(Clipped(&exact).to_string(), exact);
        let long = "é".repeat(1_000_000);
        let shown = Clipped(&long).to_string();
        assert_eq!(
            shown,
            format!("{}… (2000000 bytes)", "é".repeat(ECHO_CHARS))
        );
        assert_eq!(
            format!("{:?}", Clipped(&long)),
            format!("\"{}…\" (2000000 bytes)", "é".repeat(ECHO_CHARS))
        );
        let line = "y".repeat(5 * ERROR_LINE_CHARS);
        assert_eq!(
            bounded(&line),
            format!("{}… ({} bytes)", "y".repeat(ERROR_LINE_CHARS), line.len())
        );
        assert_eq!(bounded("short"), "short");
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
