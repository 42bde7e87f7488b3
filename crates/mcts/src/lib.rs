//! PUCT Monte-Carlo tree search, generic over [`alphazero_game::Game`] and a batched [`Evaluator`].
#![deny(missing_docs)]

mod evaluator;
pub use evaluator::{EvalError, EvalRequest, Evaluator};
