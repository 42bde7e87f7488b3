//! Positions given as text: [`PositionText`] (each game's impl is in its own module) and the
//! helpers the impls share (a move list played from a start, a FEN refused by games without
//! one).

use alphazero_game::{Game, History, IllegalMove, ParseError};

/// Games whose positions can be given as text on the command line.
pub trait PositionText: Game {
    /// Parses a position: a FEN where the game has one (Xiangqi), otherwise a list of moves
    /// from the start position in the game's notation, separated by spaces or commas (Connect
    /// Four also accepts its digit string `4453`). Returns the game with its history.
    ///
    /// # Errors
    /// A FEN or move that does not parse or is illegal, naming it (and the move's number).
    fn parse_position(config: &Self::Config, text: &str) -> Result<History<Self>, PositionError>;

    /// This position as a FEN, where the game has one (Xiangqi), which
    /// [`PositionText::parse_position`] reads back to the same position (without its
    /// history); `None`, the default, for games whose positions are move lists.
    fn fen(&self) -> Option<String> {
        None
    }
}

/// A position text that does not read; the message names the rejected text or move, and the
/// cause ([`std::error::Error::source`]) says what is wrong with it.
#[derive(Debug, thiserror::Error)]
pub enum PositionError {
    /// A move of the move list that does not parse (the source names it).
    #[error("move {number} of the move list")]
    BadMove {
        /// The move's number in the list, from 1.
        number: usize,
        /// Why it does not parse.
        #[source]
        source: ParseError,
    },
    /// A move of the move list that is illegal where it is played (the source names it).
    #[error("move {number} of the move list")]
    IllegalMove {
        /// The move's number in the list, from 1.
        number: usize,
        /// Why it is illegal.
        #[source]
        source: IllegalMove,
    },
    /// A FEN that does not parse (the error names it).
    #[error(transparent)]
    Fen(#[from] ParseError),
    /// A text with '/' for a game without a FEN.
    #[error(
        "{text:?} looks like a FEN, but {game} positions are given as a move list from the \
         start (e.g. \"{example}\")"
    )]
    NoFen {
        /// The rejected text.
        text: String,
        /// The game's name ([`Game::NAME`]).
        game: &'static str,
        /// A move list of the game, for the message.
        example: &'static str,
    },
    /// A text that is neither a FEN nor a move list whose first word is a move (the source is
    /// the move list's error).
    #[error(
        "{text:?} is neither a FEN (ranks separated by '/', e.g. {example}) nor a move list \
         from the start position"
    )]
    NeitherFenNorMoves {
        /// The rejected text.
        text: String,
        /// A FEN of the game, for the message.
        example: &'static str,
        /// Why it does not read as a move list.
        #[source]
        source: Box<PositionError>,
    },
}

/// Plays `tokens` (moves in the game's notation) from `start`.
pub(crate) fn play_move_list<G: Game>(
    start: G,
    tokens: &[&str],
) -> Result<History<G>, PositionError> {
    let mut h = History::new(start);
    for (i, t) in tokens.iter().enumerate() {
        let number = i + 1;
        let mv = h
            .current()
            .parse_move(t)
            .map_err(|source| PositionError::BadMove { number, source })?;
        h.play(mv)
            .map_err(|source| PositionError::IllegalMove { number, source })?;
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
pub(crate) fn refuse_fen<G: Game>(text: &str, example: &'static str) -> Result<(), PositionError> {
    if text.contains('/') {
        return Err(PositionError::NoFen {
            text: text.to_string(),
            game: G::NAME,
            example,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alphazero_connect4::Connect4;
    use alphazero_gomoku::Gomoku;
    use alphazero_xiangqi::Xiangqi;

    /// The message and its causes, as `anyhow` writes them with `{:#}`.
    fn chain(e: &PositionError) -> Vec<String> {
        let mut out = vec![e.to_string()];
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            out.push(s.to_string());
            source = s.source();
        }
        out
    }

    #[test]
    fn position_errors_keep_the_engine_messages() {
        let e = Gomoku::parse_position(&Default::default(), "8/8/8 w").unwrap_err();
        assert_eq!(
            chain(&e),
            [
                "\"8/8/8 w\" looks like a FEN, but gomoku positions are given as a move list from \
              the start (e.g. \"h8 h9 i8\")"
            ]
        );
        let e = Connect4::parse_position(&Default::default(), "4/4").unwrap_err();
        assert_eq!(
            chain(&e),
            [
                "\"4/4\" looks like a FEN, but connect4 positions are given as a move list from \
              the start (e.g. \"4 4 3\")"
            ]
        );
        let e = Gomoku::parse_position(&Default::default(), "h8 h8").unwrap_err();
        assert_eq!(chain(&e)[0], "move 2 of the move list");
        assert_eq!(chain(&e).len(), 2, "{e:?}: the illegal move is the cause");
        let e = Xiangqi::parse_position(&Default::default(), "garbage").unwrap_err();
        let c = chain(&e);
        assert_eq!(
            c[..2],
            [
                "\"garbage\" is neither a FEN (ranks separated by '/', e.g. \
                 rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w) nor a move list \
                 from the start position",
                "move 1 of the move list",
            ]
        );
        assert_eq!(
            c.len(),
            3,
            "{c:?}: the move's parse error is the last cause"
        );
        // A first word that is a move: the move list's error alone.
        let e = Xiangqi::parse_position(&Default::default(), "h2e2 zz").unwrap_err();
        assert_eq!(chain(&e)[0], "move 2 of the move list");
    }
}
