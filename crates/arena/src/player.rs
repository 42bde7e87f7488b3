//! The one interface every opponent sits behind: built-in baselines, the search with any
//! evaluator (uniform, rollout, a network), and external engines over Gomocup or UCCI/UCI.

use alphazero_game::{Game, History, Outcome};
use std::time::Duration;

/// How much a player may think for one move. A player honours the tightest limit it supports
/// and ignores the rest (the random mover ignores all).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Limits {
    /// Search simulations (MCTS players) or nodes (external engines: `go nodes`).
    pub simulations: Option<u32>,
    /// Wall-clock time for this move.
    pub movetime: Option<Duration>,
    /// Search depth in plies (alpha-beta players, external engines: `go depth`).
    pub depth: Option<u32>,
}

/// A player's decision, with what it thought about it (for display and logs).
#[derive(Clone, Debug)]
pub struct MoveChoice<G: Game> {
    /// The move to play (legal in the position given).
    pub mv: G::Move,
    /// The player's value estimate in [-1, 1] from the side to move, if it has one.
    pub value: Option<f32>,
    /// The player's principal variation, starting with `mv`, if it has one.
    pub pv: Vec<G::Move>,
    /// A short free-form note (e.g. "proven win", "sims 800", "depth 3 score +120").
    pub info: String,
}

/// A player failed to produce a move: it crashed, timed out, answered garbage or an illegal
/// move. In a match this loses the game for that player and is reported.
#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    /// The player exceeded its time.
    #[error("{player}: timed out after {elapsed_ms} ms")]
    Timeout {
        /// Player name.
        player: String,
        /// Time waited.
        elapsed_ms: u64,
    },
    /// The player answered a move that is not legal (or not parsable).
    #[error("{player}: illegal or unparsable move {text:?}: {reason}")]
    IllegalMove {
        /// Player name.
        player: String,
        /// What it answered.
        text: String,
        /// Why it was refused.
        reason: String,
    },
    /// The player process died or its pipe broke, or the player failed internally.
    #[error("{player}: {message}")]
    Failed {
        /// Player name.
        player: String,
        /// What went wrong.
        message: String,
    },
}

/// A game-playing agent.
pub trait Player<G: Game>: Send {
    /// A short name for tables and logs, e.g. `rollout-1000`, `net:c4-0012@200`.
    fn name(&self) -> String;

    /// Called before each new game (drop trees, reset an external engine).
    fn new_game(&mut self) -> Result<(), PlayerError> {
        Ok(())
    }

    /// Chooses a move for the side to move of `game.current()` (which is not over).
    ///
    /// # Errors
    /// [`PlayerError`] when no legal move could be produced.
    fn choose_move(
        &mut self,
        game: &History<G>,
        limits: &Limits,
    ) -> Result<MoveChoice<G>, PlayerError>;

    /// Called when a game ends (an external engine may be told; a search may free memory).
    fn game_over(&mut self, _game: &History<G>, _outcome: Outcome) {}

    /// Re-seeds the player's randomness (tie-breaks, random moves, search seed) so that a game
    /// played in a match is reproducible whatever thread plays it. Called by
    /// [`crate::run_match`] before each game (before [`Player::new_game`]). Deterministic
    /// players ignore it (the default).
    fn set_seed(&mut self, _seed: u64) {}
}
