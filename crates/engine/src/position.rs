//! Positions and games given as text: [`PositionText`] (the registry's trait, each game's impl
//! in its module of `alphazero_registry`), and the game spec of the command line's
//! `--game/--size/--rule`.
use alphazero_registry::{GameSpec, SpecError};
pub use alphazero_registry::{PositionError, PositionText};
use anyhow::Result;

/// The game spec of the flags `--game`, `--size` and `--rule`; `--size` and `--rule` are
/// refused for games other than Gomoku.
///
/// # Errors
/// An unknown game, a size or rule for another game than Gomoku, a bad size or rule.
pub fn spec_from_flags(game: &str, size: Option<u8>, rule: Option<&str>) -> Result<GameSpec> {
    GameSpec::from_parts(game, size, rule).map_err(|e| match e {
        SpecError::NotForGame { game } => {
            anyhow::anyhow!("--size and --rule apply to gomoku only, not {game}")
        }
        e => e.into(),
    })
}
