//! The batched evaluator interface between the search and a network (or any stand-in).
//!
//! Positions go in as a batch; for each, policy logits over the whole action space and a value
//! in [-1, 1] **from the side to move** come out. Illegal actions are masked by the search, so
//! an evaluator need not (and must not be trusted to) make their logits low.

use alphazero_game::{Game, HistoryEntry};

/// One position to evaluate, with the part of the game's history the evaluator may use
/// (repetition count for Xiangqi).
#[derive(Debug, Clone, Copy)]
pub struct EvalRequest<'a, G: Game> {
    /// The position; the value is returned from its side to move.
    pub position: &'a G,
    /// Earlier positions of the game, oldest first, not including `position`.
    pub history: &'a [HistoryEntry],
}

/// An evaluator failed (network error, shape mismatch, …).
#[derive(Debug, thiserror::Error)]
#[error("evaluator failed: {0}")]
pub struct EvalError(pub String);

/// A batched position evaluator: the network, or uniform / rollout / cached stand-ins.
pub trait Evaluator<G: Game>: Send + Sync {
    /// Evaluates `batch`.
    ///
    /// * `policy_logits`: `[B, A]` row-major, `B = batch.len()`, `A = num_actions()` of the
    ///   positions; filled with unnormalised log-probabilities (any value for illegal actions).
    /// * `values`: `[B]`, each in [-1, 1], from the side to move of that position.
    ///
    /// # Errors
    /// [`EvalError`] if the evaluation could not be done; the buffers are then unspecified.
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, G>],
        policy_logits: &mut [f32],
        values: &mut [f32],
    ) -> Result<(), EvalError>;
}
