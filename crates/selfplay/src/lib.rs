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

use alphazero_mcts::{EvalRequest, Evaluator, Search};

/// Reuses a vector's allocation for requests of another lifetime (the vector is emptied).
pub(crate) fn recycle<'a, 'b, G: alphazero_game::Game>(
    mut v: Vec<EvalRequest<'a, G>>,
) -> Vec<EvalRequest<'b, G>> {
    v.clear();
    v.into_iter()
        .map(|_| unreachable!("vector is empty"))
        .collect()
}

/// One round of the multi-tree driver: collects the leaves of every tree in `searches` whose
/// index is in `active`, evaluates all of them with ONE evaluator call, and applies the
/// results. Returns the number of positions evaluated and the time spent inside the
/// evaluator.
pub(crate) fn evaluate_round<G: alphazero_game::Game, E: Evaluator<G> + ?Sized>(
    searches: &mut [&mut Search<G>],
    evaluator: &E,
    logits: &mut Vec<f32>,
    values: &mut Vec<f32>,
    requests: &mut Vec<EvalRequest<'static, G>>,
) -> Result<(usize, std::time::Duration), alphazero_mcts::EvalError> {
    let mut counts = Vec::with_capacity(searches.len());
    for s in searches.iter_mut() {
        counts.push(if s.is_done() { 0 } else { s.collect_leaves() });
    }
    let total: usize = counts.iter().sum();
    if total == 0 {
        return Ok((0, std::time::Duration::ZERO));
    }
    let a = searches
        .iter()
        .find(|s| s.num_pending() > 0)
        .map(|s| s.root_position().num_actions())
        .unwrap_or(0);
    logits.clear();
    logits.resize(total * a, 0.0);
    values.clear();
    values.resize(total, 0.0);
    let eval_time;
    {
        let mut batch: Vec<EvalRequest<'_, G>> = recycle(std::mem::take(requests));
        for (s, &c) in searches.iter().zip(&counts) {
            if c > 0 {
                batch.extend(s.pending_requests());
            }
        }
        let t0 = std::time::Instant::now();
        let r = evaluator.evaluate(&batch, logits, values);
        eval_time = t0.elapsed();
        *requests = recycle(batch);
        r?;
    }
    let mut off = 0;
    for (s, &c) in searches.iter_mut().zip(&counts) {
        if c > 0 {
            s.apply_evaluations(&logits[off * a..(off + c) * a], &values[off..off + c])?;
            off += c;
        }
    }
    Ok((total, eval_time))
}
