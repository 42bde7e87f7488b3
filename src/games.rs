//! Choosing a game at run time: command-line arguments → a validated [`GameSpec`] of the game
//! registry (`alphazero_registry`), whose `with_game!` runs generic code for the chosen game.
//! Each game's code is in the registry (perft, positions as text and drawing among it) and in
//! `crate::cmd::arena` (its arena players).

pub use alphazero_engine::position::PositionText;
use alphazero_registry::GameSpec;
use anyhow::{bail, Result};
use clap::builder::{PossibleValue, PossibleValuesParser};

/// The `--game` values: the registry's games, each with its description.
pub fn game_names() -> PossibleValuesParser {
    PossibleValuesParser::new(
        GameSpec::DEFAULTS.map(|spec| PossibleValue::new(spec.name()).help(spec.about())),
    )
}

/// Game selection shared by every subcommand.
#[derive(clap::Args, Debug, Clone)]
pub struct GameArgs {
    /// Which game.
    #[arg(long, value_parser = game_names())]
    pub game: String,
    /// Gomoku board size, 5–20 (default 15).
    #[arg(long)]
    pub size: Option<u8>,
    /// Gomoku rule: freestyle (five or more; the default), standard (exactly five) or renju.
    #[arg(long)]
    pub rule: Option<String>,
}

impl GameArgs {
    /// Validates the arguments into a [`GameSpec`] (see
    /// [`alphazero_engine::position::spec_from_flags`]).
    pub fn spec(&self) -> Result<GameSpec> {
        alphazero_engine::position::spec_from_flags(&self.game, self.size, self.rule.as_deref())
    }
}

/// Fails with a clear message when `depth` is unreasonable for perft.
pub fn check_depth(depth: u32) -> Result<()> {
    if depth == 0 || depth > 12 {
        bail!("--depth must be between 1 and 12, got {depth}");
    }
    Ok(())
}
