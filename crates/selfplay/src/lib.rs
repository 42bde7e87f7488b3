//! Self-play actors and evaluator-vs-evaluator matches.
//!
//! * [`play_selfplay_games`]: many games at once, every round of the searches of all of them
//!   sent to the evaluator in **one** batch (this is what keeps a network busy). Temperature
//!   schedule, Dirichlet root noise, tree reuse, playout-cap randomisation (Wu 2019, KataGo),
//!   resignation with a share of games that may not resign (to measure false resignations).
//!   Each finished game becomes a [`GameRecord`] with π, the root value and the simulations
//!   of every ply.
//! * [`play_selfplay_games_parallel`]: the same split over one single-threaded worker per
//!   core, each with its own games and its own evaluator (the network's weights shared), so
//!   every core runs searches and forward passes instead of every convolution being split
//!   over the cores.
//! * [`play_match`]: two evaluators play each other with fixed simulations, no noise, τ = 0,
//!   and a few random opening plies (each opening played with both colours): the gating match
//!   of the training loop and the net-vs-net match of the arena.
//!
//! All are deterministic for a fixed seed and deterministic evaluators (the parallel driver for
//! a fixed worker count as well).
#![deny(missing_docs)]

mod actor;
mod matches;
mod workers;

pub use actor::{
    play_selfplay_games, PlayoutCap, Resignation, SelfPlayConfig, SelfPlayError, SelfPlayStats,
};
pub use matches::{play_match, MatchConfig, MatchOutcome};
pub use workers::{play_selfplay_games_parallel, worker_count};

use alphazero_mcts::{Driver, EvalError, EvalRequest, Evaluator, Search};

/// One round of the search driver ([`Driver::round`]) over `searches`, returning the positions
/// evaluated and the time spent inside the evaluator.
///
/// Kept with this signature for `matches.rs` until the match engines are unified (the buffers
/// are no longer needed: the driver keeps its own).
pub(crate) fn evaluate_round<G: alphazero_game::Game, E: Evaluator<G> + ?Sized>(
    searches: &mut [&mut Search<G>],
    evaluator: &E,
    _logits: &mut Vec<f32>,
    _values: &mut Vec<f32>,
    _requests: &mut Vec<EvalRequest<'static, G>>,
) -> Result<(usize, std::time::Duration), EvalError> {
    let round = Driver::new().round(searches, evaluator)?;
    Ok((round.positions, round.eval_time))
}
