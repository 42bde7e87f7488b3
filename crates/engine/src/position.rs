//! Positions and games given as text: [`PositionText`] (each game's impl is in its module of
//! the crate's `games`), and the game spec of the command line's `--game/--size/--rule`.
use alphazero_game::{Game, History};
use alphazero_registry::{GameSpec, SpecError};
use anyhow::{bail, Context, Result};

/// Games whose positions can be given as text on the command line.
pub trait PositionText: Game {
    /// Parses a position: a FEN where the game has one (Xiangqi), otherwise a list of moves
    /// from the start position in the game's notation, separated by spaces or commas (Connect
    /// Four also accepts its digit string `4453`). Returns the game with its history.
    ///
    /// # Errors
    /// A FEN or move that does not parse or is illegal, naming it (and the move's number).
    fn parse_position(config: &Self::Config, text: &str) -> Result<History<Self>>;
}

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

/// Plays `tokens` (moves in the game's notation) from `start`.
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

/// A move list split on whitespace and `;`.
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
