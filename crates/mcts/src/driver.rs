//! Move choice with temperature, the multi-tree driver and the throughput benchmark.

use std::time::Instant;

use alphazero_game::{Game, Outcome};
use rand::Rng;

use crate::config::SearchConfig;
use crate::evaluator::{EvalError, EvalRequest, Evaluator};
use crate::search::{Search, SearchResult};

/// Picks the move to play from a search result with temperature `tau`.
///
/// * `tau` ≤ 1e-3 (τ → 0): `result.best_move` (argmax, deterministic tie-break).
/// * otherwise: samples a root child with probability ∝ `policy[action]^(1/τ)` (τ = 1:
///   proportional to visits, or to the Gumbel improved policy).
///
/// A proven-won root always gives `best_move`; proven-losing moves are never sampled while
/// another move exists. `None` only when the result has no moves (terminal root).
pub fn select_move<G: Game, R: Rng + ?Sized>(
    result: &SearchResult<G>,
    tau: f32,
    rng: &mut R,
) -> Option<G::Move> {
    if result.proven == Some(Outcome::Win) || tau.is_nan() || tau <= 1e-3 {
        return result.best_move;
    }
    let all_lose = result
        .children
        .iter()
        .all(|c| c.proven == Some(Outcome::Loss));
    let weight = |c: &crate::ChildStats<G::Move>| {
        if !all_lose && c.proven == Some(Outcome::Loss) {
            return 0.0;
        }
        result.policy.get(c.action).copied().unwrap_or(0.0) as f64
    };
    let pmax = result.children.iter().map(weight).fold(0.0f64, f64::max);
    if pmax <= 0.0 {
        return result.best_move;
    }
    let inv = 1.0 / tau as f64;
    let w = |c: &crate::ChildStats<G::Move>| {
        let p = weight(c);
        if p <= 0.0 {
            0.0
        } else {
            (p / pmax).powf(inv)
        }
    };
    let total: f64 = result.children.iter().map(w).sum();
    let mut x = rng.random::<f64>() * total;
    let mut last = result.best_move;
    for c in &result.children {
        let wc = w(c);
        if wc <= 0.0 {
            continue;
        }
        last = Some(c.mv);
        if x < wc {
            return Some(c.mv);
        }
        x -= wc;
    }
    last
}

/// Runs one search on each tree at once: every round collects the pending leaves of all
/// unfinished trees and sends them to `evaluator` in ONE call (this keeps a network busy in
/// self-play). Each tree uses its own config (simulations, `leaves_per_batch`, seed). Results
/// are in the order of `searches` and identical to running each tree alone with the same
/// deterministic evaluator.
///
/// All positions must share one action-space size.
///
/// # Errors
/// [`EvalError`] from the evaluator or on mismatched action spaces; the trees then keep no
/// pending leaves.
pub fn run_many<G: Game, E: Evaluator<G> + ?Sized>(
    searches: &mut [Search<G>],
    evaluator: &E,
) -> Result<Vec<SearchResult<G>>, EvalError> {
    for s in searches.iter_mut() {
        s.begin_run();
    }
    let a = searches
        .first()
        .map_or(0, |s| s.root_position().num_actions());
    if let Some(s) = searches
        .iter()
        .find(|s| s.root_position().num_actions() != a)
    {
        return Err(EvalError(format!(
            "run_many: mixed action spaces {a} and {}",
            s.root_position().num_actions()
        )));
    }
    let mut logits = Vec::new();
    let mut values = Vec::new();
    let mut counts = vec![0usize; searches.len()];
    while !searches.iter().all(Search::is_done) {
        let mut total = 0;
        for (s, c) in searches.iter_mut().zip(counts.iter_mut()) {
            *c = s.collect_leaves();
            total += *c;
        }
        if total == 0 {
            continue;
        }
        logits.resize(total * a, 0.0);
        values.resize(total, 0.0);
        let r = {
            let batch: Vec<EvalRequest<'_, G>> =
                searches.iter().flat_map(|s| s.pending_requests()).collect();
            evaluator.evaluate(&batch, &mut logits, &mut values)
        };
        let mut off = 0;
        let r = r.and_then(|()| {
            for (s, &c) in searches.iter_mut().zip(counts.iter()) {
                s.apply_evaluations(&logits[off * a..(off + c) * a], &values[off..off + c])?;
                off += c;
            }
            Ok(())
        });
        if let Err(e) = r {
            for s in searches.iter_mut() {
                s.begin_run();
            }
            return Err(e);
        }
    }
    Ok(searches.iter().map(Search::result).collect())
}

/// Throughput measured by [`bench_simulations`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BenchReport {
    /// Simulations done in total.
    pub simulations: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// `simulations / seconds`.
    pub sims_per_sec: f64,
    /// Nodes in the last tree.
    pub tree_size: usize,
}

/// Measures search speed: `runs` fresh searches of `position` (no history) with `config`
/// and `evaluator`, timed together.
///
/// # Errors
/// [`EvalError`] as from [`Search::run`]; a bad config is reported as an `EvalError` naming it.
pub fn bench_simulations<G: Game, E: Evaluator<G> + ?Sized>(
    position: &G,
    config: &SearchConfig,
    evaluator: &E,
    runs: u32,
) -> Result<BenchReport, EvalError> {
    let start = Instant::now();
    let mut sims = 0u64;
    let mut tree_size = 0;
    for i in 0..runs {
        let cfg = SearchConfig {
            seed: config.seed.wrapping_add(i as u64),
            ..config.clone()
        };
        let mut s =
            Search::new(position.clone(), Vec::new(), cfg).map_err(|e| EvalError(e.to_string()))?;
        let r = s.run(evaluator)?;
        sims += r.simulations as u64;
        tree_size = s.tree_size();
    }
    let seconds = start.elapsed().as_secs_f64();
    Ok(BenchReport {
        simulations: sims,
        seconds,
        sims_per_sec: sims as f64 / seconds.max(1e-9),
        tree_size,
    })
}
