//! Connect Four in the registry: one spec, 7×6.

use alphazero_connect4::{Connect4, Connect4Config};
use alphazero_game::Game;

use crate::{GameSpec, Registered};

/// [`Game::NAME`] of Connect Four.
pub(crate) const NAME: &str = <Connect4 as Game>::NAME;

/// The game in one line (`--help`).
pub(crate) const ABOUT: &str = "Connect Four, 7×6";

impl Registered for Connect4 {
    fn spec(_config: &Connect4Config) -> GameSpec {
        GameSpec::Connect4
    }

    fn config_of(spec: &GameSpec) -> Option<Connect4Config> {
        matches!(spec, GameSpec::Connect4).then_some(Connect4Config)
    }
}
