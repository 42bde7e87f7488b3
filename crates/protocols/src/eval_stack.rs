//! The evaluator an engine's searches use, shaped by the GUI's `Hash` and `Threads` options:
//! the engine's evaluator run on a thread pool of its own, behind a cache of a given size.

use std::sync::Arc;

use alphazero_game::Game;
use alphazero_mcts::{CachedEvaluator, EvalError, EvalRequest, Evaluator};

/// Bytes one cached position costs: its policy logits (`4 · num_actions`) and about 64 bytes
/// of key, value, boxing, eviction order and hash-table overhead.
pub(crate) fn bytes_per_entry(num_actions: usize) -> usize {
    4 * num_actions + 64
}

/// Positions a cache of `mib` MiB holds for a game with `num_actions` actions.
pub fn cache_entries(mib: u32, num_actions: usize) -> usize {
    (mib as usize).saturating_mul(1 << 20) / bytes_per_entry(num_actions)
}

/// Runs every evaluation of `inner` inside a rayon pool of its own, so that the network's
/// parallel kernels (which split work over `rayon::current_num_threads()`) use exactly the
/// pool's threads.
struct Pooled<G: Game> {
    inner: Arc<dyn Evaluator<G>>,
    pool: rayon::ThreadPool,
}

impl<G: Game> Evaluator<G> for Pooled<G> {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, G>],
        policy_logits: &mut [f32],
        values: &mut [f32],
    ) -> Result<(), EvalError> {
        self.pool
            .install(|| self.inner.evaluate(batch, policy_logits, values))
    }
}

/// The evaluation thread pool could not be started.
#[derive(Debug, thiserror::Error)]
#[error("cannot start {threads} evaluation thread(s): {source}")]
pub(crate) struct PoolError {
    threads: u32,
    source: rayon::ThreadPoolBuildError,
}

/// The engine's evaluator on `threads` threads behind a cache of `hash_mb` MiB.
pub(crate) struct EvalStack<G: Game> {
    hash_mb: u32,
    threads: u32,
    cached: CachedEvaluator<Pooled<G>>,
}

impl<G: Game> EvalStack<G> {
    /// Wraps `inner` for positions with `num_actions` actions.
    ///
    /// # Errors
    /// [`PoolError`]: the thread pool cannot be started.
    pub(crate) fn new(
        inner: Arc<dyn Evaluator<G>>,
        num_actions: usize,
        hash_mb: u32,
        threads: u32,
    ) -> Result<Self, PoolError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1) as usize)
            .thread_name(|i| format!("eval-{i}"))
            .build()
            .map_err(|source| PoolError { threads, source })?;
        Ok(EvalStack {
            hash_mb,
            threads,
            cached: CachedEvaluator::new(
                Pooled { inner, pool },
                cache_entries(hash_mb, num_actions),
            ),
        })
    }

    /// The same evaluator with another cache size or thread count (an empty cache).
    ///
    /// # Errors
    /// As [`EvalStack::new`].
    pub(crate) fn resized(
        &self,
        num_actions: usize,
        hash_mb: u32,
        threads: u32,
    ) -> Result<Self, PoolError> {
        EvalStack::new(
            self.cached.inner().inner.clone(),
            num_actions,
            hash_mb,
            threads,
        )
    }

    /// Cache size in MiB.
    pub(crate) fn hash_mb(&self) -> u32 {
        self.hash_mb
    }

    /// Evaluation threads.
    pub(crate) fn threads(&self) -> u32 {
        self.threads
    }

    /// The evaluator to search with.
    pub(crate) fn evaluator(&self) -> &dyn Evaluator<G> {
        &self.cached
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_entries_follow_the_size_in_mib() {
        // Xiangqi: 2,086 actions → 8,408 bytes an entry → 124 a MiB.
        assert_eq!(bytes_per_entry(2086), 8408);
        assert_eq!(cache_entries(1, 2086), 124);
        assert_eq!(cache_entries(256, 2086), 31_926);
        assert_eq!(cache_entries(0, 2086), 0);
    }
}
