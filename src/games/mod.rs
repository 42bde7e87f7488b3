//! Choosing a game at run time: command-line arguments → a validated [`GameSpec`] of the game
//! registry (`alphazero_registry`), whose `with_game!` runs generic code for the chosen game;
//! and each game's code of the binary (positions as text, drawing, arena players, perft), one
//! module per game.
mod connect4;
mod gomoku;
mod xiangqi;

use alphazero_game::{Game, History};
use alphazero_registry::GameSpec;
use anyhow::{bail, Context, Result};
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
    /// Validates the arguments into a [`GameSpec`]; `--size` and `--rule` are refused for
    /// games other than Gomoku.
    pub fn spec(&self) -> Result<GameSpec> {
        use alphazero_registry::SpecError;
        GameSpec::from_parts(&self.game, self.size, self.rule.as_deref()).map_err(|e| match e {
            SpecError::NotForGame { game } => {
                anyhow::anyhow!("--size and --rule apply to gomoku only, not {game}")
            }
            e => e.into(),
        })
    }
}

/// Games whose positions can be given as text on the command line.
pub trait PositionText: Game {
    /// Parses a position: a FEN where the game has one (Xiangqi), otherwise a list of moves
    /// from the start position in the game's notation, separated by spaces or commas (Connect
    /// Four also accepts its digit string `4453`). Returns the game with its history.
    fn parse_position(config: &Self::Config, text: &str) -> Result<History<Self>>;
}

pub(crate) fn play_move_list<G: Game>(start: G, tokens: &[&str]) -> Result<History<G>> {
    let mut h = History::new(start);
    for (i, t) in tokens.iter().enumerate() {
        let mv = h
            .current()
            .parse_move(t)
            .with_context(|| format!("move {} of the move list", i + 1))?;
        h.play(mv)
            .with_context(|| format!("move {} of the move list", i + 1))?;
    }
    Ok(h)
}

pub(crate) fn split_moves(text: &str) -> Vec<&str> {
    text.split(|c: char| c.is_whitespace() || c == ';')
        .filter(|t| !t.is_empty())
        .collect()
}

/// Games without a FEN: a text with '/' was meant as one, which they do not read; `example`
/// is a move list of the game for the message.
pub(crate) fn refuse_fen<G: Game>(text: &str, example: &str) -> Result<()> {
    if text.contains('/') {
        bail!(
            "{text:?} looks like a FEN, but {} positions are given as a move list from the \
             start (e.g. \"{example}\")",
            G::NAME,
        );
    }
    Ok(())
}

/// Fails with a clear message when `depth` is unreasonable for perft.
pub fn check_depth(depth: u32) -> Result<()> {
    if depth == 0 || depth > 12 {
        bail!("--depth must be between 1 and 12, got {depth}");
    }
    Ok(())
}
