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

impl Limits {
    /// These limits with every field that `own` sets replaced by `own`'s value: a player's
    /// own limits (e.g. a ladder rung's `depth=1`) over the match-wide ones.
    ///
    /// ```
    /// # use alphazero_arena::Limits;
    /// # use std::time::Duration;
    /// let matchwide = Limits { simulations: Some(800), movetime: Some(Duration::from_secs(1)), depth: None };
    /// let own = Limits { depth: Some(2), movetime: Some(Duration::from_millis(50)), ..Limits::default() };
    /// let l = matchwide.overridden_by(&own);
    /// assert_eq!((l.simulations, l.movetime, l.depth), (Some(800), Some(Duration::from_millis(50)), Some(2)));
    /// ```
    pub fn overridden_by(&self, own: &Limits) -> Limits {
        Limits {
            simulations: own.simulations.or(self.simulations),
            movetime: own.movetime.or(self.movetime),
            depth: own.depth.or(self.depth),
        }
    }
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

/// A player with limits of its own that replace the match-wide [`Limits`] field by field
/// ([`Limits::overridden_by`]): a search with its own simulation count, an external engine
/// held to `go depth 1` while its opponent searches 800 simulations.
pub struct LimitedPlayer<G: Game> {
    inner: Box<dyn Player<G>>,
    own: Limits,
}

impl<G: Game> LimitedPlayer<G> {
    /// `inner` playing under `own` wherever `own` sets a limit.
    pub fn new(inner: Box<dyn Player<G>>, own: Limits) -> Self {
        LimitedPlayer { inner, own }
    }

    /// The player's own limits.
    pub fn own_limits(&self) -> &Limits {
        &self.own
    }
}

impl<G: Game> Player<G> for LimitedPlayer<G> {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn new_game(&mut self) -> Result<(), PlayerError> {
        self.inner.new_game()
    }
    fn choose_move(
        &mut self,
        game: &History<G>,
        limits: &Limits,
    ) -> Result<MoveChoice<G>, PlayerError> {
        self.inner
            .choose_move(game, &limits.overridden_by(&self.own))
    }
    fn game_over(&mut self, game: &History<G>, outcome: Outcome) {
        self.inner.game_over(game, outcome)
    }
    fn set_seed(&mut self, seed: u64) {
        self.inner.set_seed(seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RandomPlayer;
    use alphazero_connect4::Connect4;
    use std::sync::{Arc, Mutex};

    /// Plays like the random mover and records the limits it was given.
    struct Recorder(RandomPlayer, Arc<Mutex<Vec<Limits>>>);

    impl Player<Connect4> for Recorder {
        fn name(&self) -> String {
            "recorder".into()
        }
        fn choose_move(
            &mut self,
            game: &History<Connect4>,
            limits: &Limits,
        ) -> Result<MoveChoice<Connect4>, PlayerError> {
            self.1.lock().unwrap().push(*limits);
            self.0.choose_move(game, limits)
        }
    }

    #[test]
    fn a_limited_player_sees_its_own_limits_over_the_match_wide_ones() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let own = Limits {
            depth: Some(1),
            ..Limits::default()
        };
        let mut p = LimitedPlayer::new(Box::new(Recorder(RandomPlayer::new(1), seen.clone())), own);
        assert_eq!(p.own_limits(), &own);
        assert_eq!(p.name(), "recorder");
        let matchwide = Limits {
            simulations: Some(800),
            movetime: Some(Duration::from_millis(100)),
            depth: Some(7),
        };
        let game = History::new(Connect4::default());
        p.choose_move(&game, &matchwide).unwrap();
        p.choose_move(&game, &Limits::default()).unwrap();
        let seen = seen.lock().unwrap();
        assert_eq!(
            seen[0],
            Limits {
                depth: Some(1),
                ..matchwide
            }
        );
        assert_eq!(seen[1], own);
    }
}
