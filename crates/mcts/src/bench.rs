//! The search throughput benchmark.

use std::time::Instant;

use alphazero_game::{mix_seed, Game};

use crate::budget::SearchBudget;
use crate::config::SearchConfig;
use crate::evaluator::{EvalError, Evaluator};
use crate::search::Search;

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

/// Measures search speed: `runs` fresh searches of `position` (no history) with `config`,
/// `budget` (run `i` seeded with `budget.seed` mixed with `i`) and `evaluator`, timed together.
///
/// # Errors
/// [`EvalError`] as from [`Search::run`]; a bad config or budget is reported as an
/// `EvalError` naming it.
pub fn bench_simulations<G: Game, E: Evaluator<G> + ?Sized>(
    position: &G,
    config: &SearchConfig,
    budget: &SearchBudget,
    evaluator: &E,
    runs: u32,
) -> Result<BenchReport, EvalError> {
    let start = Instant::now();
    let mut sims = 0u64;
    let mut tree_size = 0;
    for i in 0..runs {
        let budget = SearchBudget {
            seed: mix_seed(budget.seed, u64::from(i)),
            ..*budget
        };
        let mut s = Search::new(position.clone(), Vec::new(), config.clone(), budget)
            .map_err(|e| EvalError(e.to_string()))?;
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
