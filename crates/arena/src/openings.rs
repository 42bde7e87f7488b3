//! Fixed openings from a file: an [`OpeningBook`] is played in file order, each opening with
//! both colours, as c-gomoku-cli plays an opening file with `order=sequential -repeat`, so a
//! match from level openings measures play rather than a random opening's edge.
//!
//! The Gomoku file format is Gomocup's offset notation ([`gomocup_offset_openings`]), the one
//! c-gomoku-cli and the Gomocup tournaments read: one opening a line, moves separated by `, `,
//! each move `X,Y` as offsets from the centre of the board (column, row; black first).

use std::sync::Arc;

use alphazero_game::{Game, History};
use alphazero_gomoku::{Gomoku, GomokuMove};

/// A fixed, non-empty list of openings, played in order from [`OpeningBook::opening`]`(0)`
/// and started again from the first when a match wants more openings than the book holds.
#[derive(Clone, Debug)]
pub struct OpeningBook<G: Game> {
    lines: Arc<[History<G>]>,
    /// The book's opening played as the match's opening 0.
    first: usize,
}

impl<G: Game> OpeningBook<G> {
    /// A book of `lines`, in their order.
    ///
    /// # Errors
    /// [`OpeningFileError::Empty`] when `lines` is empty.
    pub fn new(lines: Vec<History<G>>) -> Result<Self, OpeningFileError> {
        if lines.is_empty() {
            return Err(OpeningFileError::Empty);
        }
        Ok(OpeningBook {
            lines: lines.into(),
            first: 0,
        })
    }

    /// The openings in the book.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Never true: a book holds at least one opening (for clippy's `len` rule).
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The match's opening `i`: the book's `(first + i) mod len` (cycling as c-gomoku-cli
    /// does when a match outlasts its file).
    pub fn opening(&self, i: usize) -> &History<G> {
        &self.lines[(self.first + i) % self.lines.len()]
    }

    /// The same book with the match's opening 0 moved `n` openings on: the next chunk of a
    /// match played in chunks (an SPRT) goes on where the last one stopped.
    pub fn skip(&self, n: usize) -> Self {
        OpeningBook {
            lines: self.lines.clone(),
            first: (self.first + n) % self.lines.len(),
        }
    }
}

/// An opening file that cannot be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpeningFileError {
    /// The file holds no opening (only blank lines and comments).
    #[error("no openings (every line is blank or a # comment)")]
    Empty,
    /// A line that is not an opening of this board and rule.
    #[error("line {line} ({text:?}): {reason}")]
    Line {
        /// 1-based line number in the file.
        line: usize,
        /// The line as written (comment removed, trimmed).
        text: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// Reads Gomoku openings in Gomocup's offset format for boards like `start` (size and rule;
/// an empty board): one opening a line, `X,Y` moves separated by blanks and/or commas
/// (`0,0, 1,-1, 2,0` as written by c-gomoku-cli and the Gomocup opening files), each the
/// offset of column X and row Y from the centre `(size / 2, size / 2)`, black's move first.
/// Blank lines and `#` comments (a whole line, or the rest of a line) are skipped; note that
/// c-gomoku-cli itself reads no comments, so a file meant for both has none.
///
/// # Errors
/// [`OpeningFileError::Line`] naming the first line that has a character other than digits,
/// `-`, `,` and blanks, an odd count of numbers, a point off the board, an occupied point,
/// a move the rule forbids, or an opening that already ends the game;
/// [`OpeningFileError::Empty`] for a file without openings.
pub fn gomocup_offset_openings(
    text: &str,
    start: &Gomoku,
) -> Result<Vec<History<Gomoku>>, OpeningFileError> {
    let half = (start.size() / 2) as i64;
    let size = start.size() as i64;
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let body = raw.split('#').next().unwrap_or("").trim();
        if body.is_empty() {
            continue;
        }
        let bad = |reason: String| OpeningFileError::Line {
            line: i + 1,
            text: body.to_string(),
            reason,
        };
        if let Some(c) = body
            .chars()
            .find(|c| !(c.is_ascii_digit() || *c == '-' || *c == ',' || c.is_whitespace()))
        {
            return Err(bad(format!(
                "unexpected character {c:?} (expected offsets X,Y from the centre, e.g. 0,0, 1,-1)"
            )));
        }
        let numbers = body
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
            .map(|t| {
                t.parse::<i64>()
                    .map_err(|_| bad(format!("{t:?} is not a whole number")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        if numbers.len() % 2 == 1 {
            return Err(bad(format!(
                "{} numbers: each move is two (X,Y), so the count must be even",
                numbers.len()
            )));
        }
        let mut history = History::new(start.clone());
        for (k, xy) in numbers.chunks(2).enumerate() {
            let (x, y) = (xy[0] + half, xy[1] + half);
            if !(0..size).contains(&x) || !(0..size).contains(&y) {
                return Err(bad(format!(
                    "move {} ({},{}) is off the {size}x{size} board (offsets run {}..={})",
                    k + 1,
                    xy[0],
                    xy[1],
                    -half,
                    size - 1 - half
                )));
            }
            let mv = GomokuMove::new(x as u8, y as u8);
            history.play(mv).map_err(|e| {
                bad(format!(
                    "move {} ({},{} = {mv}): {}",
                    k + 1,
                    xy[0],
                    xy[1],
                    e.reason
                ))
            })?;
        }
        if history.outcome().is_some() {
            return Err(bad("the opening already ends the game".into()));
        }
        out.push(history);
    }
    if out.is_empty() {
        return Err(OpeningFileError::Empty);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alphazero_gomoku::{GomokuConfig, Rule};

    fn board(size: u8, rule: Rule) -> Gomoku {
        Gomoku::new(&GomokuConfig::new(size, rule).expect("config"))
    }

    fn line_error(text: &str, start: &Gomoku) -> (usize, String) {
        match gomocup_offset_openings(text, start) {
            Err(OpeningFileError::Line { line, reason, .. }) => (line, reason),
            other => panic!("expected a line error for {text:?}, got {other:?}"),
        }
    }

    #[test]
    fn offsets_are_columns_and_rows_from_the_centre() {
        let start = board(15, Rule::Freestyle);
        let text = "# made by hand\n\n0,0, 1,-1, -7,7  # eval 3\n2,0 3,0\n";
        let o = gomocup_offset_openings(text, &start).expect("parses");
        assert_eq!(o.len(), 2);
        let moves: Vec<String> = o[0].moves().iter().map(|m| m.to_gomocup()).collect();
        assert_eq!(moves, ["7,7", "8,6", "0,14"]);
        assert_eq!(o[0].current().side_to_move(), alphazero_game::Side::Second);
        let moves: Vec<String> = o[1].moves().iter().map(|m| m.to_gomocup()).collect();
        assert_eq!(moves, ["9,7", "10,7"]);
    }

    #[test]
    fn a_bad_line_is_named_by_its_number() {
        let start = board(15, Rule::Freestyle);
        let (line, reason) = line_error("0,0\n\n1,1, 2,x\n", &start);
        assert_eq!(line, 3);
        assert!(reason.contains("'x'"), "{reason}");
        let (line, reason) = line_error("0,0, 1\n", &start);
        assert_eq!(line, 1);
        assert!(reason.contains("even"), "{reason}");
        let (line, reason) = line_error("0,0\n0,0, 8,0\n", &start);
        assert_eq!(line, 2);
        assert!(reason.contains("off the 15x15 board"), "{reason}");
        let (line, _) = line_error("0,0, 0,0\n", &start);
        assert_eq!(line, 1);
        let (line, reason) = line_error("0,0 0,1 1,0 1,1 2,0 2,1 3,0 3,1 4,0\n", &start);
        assert_eq!(line, 1);
        assert!(reason.contains("ends the game"), "{reason}");
        assert!(matches!(
            gomocup_offset_openings("# nothing\n\n", &start),
            Err(OpeningFileError::Empty)
        ));
    }

    #[test]
    fn a_book_cycles_and_skips() {
        let start = board(9, Rule::Freestyle);
        let o = gomocup_offset_openings("0,0\n1,0\n2,0\n", &start).expect("parses");
        let book = OpeningBook::new(o).expect("book");
        let first = |b: &OpeningBook<Gomoku>, i: usize| b.opening(i).moves()[0].x;
        assert_eq!([0, 1, 2, 3].map(|i| first(&book, i)), [4, 5, 6, 4]);
        let later = book.skip(2);
        assert_eq!([0, 1].map(|i| first(&later, i)), [6, 4]);
        assert!(OpeningBook::<Gomoku>::new(Vec::new()).is_err());
    }
}
