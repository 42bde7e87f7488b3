//! A game's exact-solver yardstick: fixed test positions with a solver's answers, on which a
//! network alone (no search) is measured again and again (the training loop's solver
//! agreement, `eval.solver_every`). A game of the registry has one when it has an exact
//! solver and test positions ([`Registered::solver_yardstick`]); the others have none.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::Registered;

/// Test positions of game `G` with a solver's answers, computed once. Never training data.
pub trait Yardstick<G> {
    /// The positions, in the order [`Yardstick::measure`] expects their outputs.
    fn positions(&self) -> Vec<&G>;

    /// Scores `outputs`, the network's (policy over `G`'s actions, value from the side to
    /// move in [-1, 1]) of each position of [`Yardstick::positions`] in order, against the
    /// solver.
    ///
    /// # Panics
    /// When `outputs` does not have one entry per position.
    fn measure(&self, outputs: &[(Vec<f32>, f32)]) -> YardstickReport;
}

/// Agreement of one network with a [`Yardstick`]: counts over `positions`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct YardstickReport {
    /// Positions measured.
    pub positions: usize,
    /// Positions where the policy's argmax over the legal moves is one of the solver's best.
    pub policy_best: usize,
    /// Positions where the policy's argmax keeps the game-theoretic result.
    pub policy_keeps: usize,
    /// Positions where the value has the sign of the solver's result (within the game's
    /// draw margin).
    pub value_sign: usize,
}

/// What a game's yardstick is made of, without its game type (for configuration checks and
/// messages): [`crate::GameSpec::solver_yardstick`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct YardstickInfo {
    /// The test-data folder's name under the repository's `tests/data`, and under
    /// `$ALPHAZERO_TESTDATA` (e.g. `connect4`).
    pub folder: &'static str,
    /// The test sets the positions are taken from (file names in that folder).
    pub sets: &'static [&'static str],
}

/// Reads `positions` test positions of a yardstick from its test-data folder `dir` and
/// answers them (a [`SolverYardstick::load`]).
pub type LoadYardstick<G> =
    fn(dir: &Path, positions: usize) -> Result<Box<dyn Yardstick<G>>, YardstickError>;

/// A game's exact-solver yardstick: where its test positions are and how to load them.
pub struct SolverYardstick<G: Registered> {
    /// The test-data folder and sets.
    pub info: YardstickInfo,
    /// Loads the first `positions` positions (spread evenly over the sets).
    pub load: LoadYardstick<G>,
}

/// The test positions of a yardstick could not be read or answered; the message names the
/// file (and line).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct YardstickError(pub Box<dyn std::error::Error + Send + Sync>);
