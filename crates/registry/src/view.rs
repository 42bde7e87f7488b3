//! How a game is drawn in the terminal and in board PNGs: [`BoardView`] (each game's impl is in
//! its own module), the plain colour type [`Rgb`] of its pieces, and the terminal colours and
//! text cells the impls share.

use std::fmt::Write as _;

use alphazero_formats::RecordGame;
use alphazero_game::Side;

use crate::{Encode, PositionText};

/// A colour as red, green and blue intensities, 0–255 each (the drawing code converts it to
/// its backend's colour type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

/// How a game is drawn: board cells (row 0 at the bottom), pieces, where a move lands, and
/// terminal colours; and how its records are written ([`RecordGame`]).
pub trait BoardView: PositionText + Encode + RecordGame {
    /// `(rows, columns)` of the drawn board.
    fn grid(&self) -> (usize, usize);
    /// The piece on a cell: its side and a kind number (0 for stones and discs).
    fn piece(&self, row: usize, col: usize) -> Option<(Side, u8)>;
    /// The cell a move lands on and, for a piece move, the cell it leaves.
    fn move_cells(&self, mv: Self::Move) -> ((usize, usize), Option<(usize, usize)>);
    /// Fill colours of the first and second player's pieces.
    fn piece_colors(&self) -> [Rgb; 2];
    /// The name of a side in this game (`black`, `red`, `X`, …).
    fn side_name(side: Side) -> &'static str;
    /// The board text ([`std::fmt::Display`]) with ANSI colours for the pieces.
    fn colorize(text: &str) -> String;
    /// Coordinate labels as the game's move notation writes them: `(columns left to right,
    /// rows from row 0 at the bottom)`.
    fn axis_labels(&self) -> (Vec<String>, Vec<String>);
    /// The move in a second notation shown next to the primary one (Xiangqi: WXF `C2=5`
    /// beside ICCS `h2e2`); `None` by default.
    fn second_notation(&self, mv: Self::Move) -> Option<String> {
        let _ = mv;
        None
    }
    /// The name of [`BoardView::second_notation`] (`WXF`).
    const SECOND_NOTATION: &'static str = "";
    /// Where the board text ([`std::fmt::Display`]) shows a cell given as `(row from the
    /// top, column from the left)` (the page's [`crate::web::Cell`]): `(line, character)`,
    /// both 0-based, with a blank on either side of the cell's one character (or the line's
    /// end after it). `None` when the text is not drawn on such a grid (the default).
    fn text_position(&self, cell: (usize, usize)) -> Option<(usize, usize)> {
        let _ = cell;
        None
    }
    /// The letter drawn on a piece of kind `kind` (see [`BoardView::piece`]) in board PNGs:
    /// `None` for stones and discs (kind 0, the default).
    fn piece_letter(kind: u8) -> Option<char> {
        let _ = kind;
        None
    }
    /// What the piece letters of [`BoardView::piece_letter`] mean, for a PNG's legend (one
    /// entry per kind: `K general`); empty by default.
    fn piece_legend() -> Vec<String> {
        Vec::new()
    }
    /// The board's lines when pieces stand on intersections (Gomoku, Xiangqi): segments
    /// between points `(row, column)` of [`BoardView::grid`], a point being where a cell's
    /// centre is drawn. Empty (the default) when pieces stand in cells (Connect Four), whose
    /// borders are drawn instead.
    fn point_lines(&self) -> Vec<[(usize, usize); 2]> {
        Vec::new()
    }
    /// The moves the side to move may not make because they lose at once by a rule it could
    /// be warned of (Gomoku renju: black's forbidden points); empty by default.
    fn forbidden_moves(&self) -> Vec<Self::Move> {
        Vec::new()
    }
    /// The move for people: the primary notation, then the second one in parentheses
    /// (`h2e2 (C2=5)`).
    fn move_words(&self, mv: Self::Move) -> String {
        match self.second_notation(mv) {
            Some(s) => format!("{} ({s})", self.format_move(mv)),
            None => self.format_move(mv),
        }
    }
    /// A text heatmap of a move distribution `(move, probability)`: a grid of percentages
    /// where moves are cells (the default is a list sorted by probability).
    fn policy_text(&self, pi: &[(Self::Move, f32)]) -> String {
        let mut v = pi.to_vec();
        v.sort_by(|a, b| b.1.total_cmp(&a.1));
        let mut s = String::new();
        for (mv, p) in v.iter().filter(|(_, p)| *p > 0.0) {
            let _ = writeln!(s, "  {:<6} {:>6.2}%", self.format_move(*mv), 100.0 * p);
        }
        s
    }
}

/// The lines of a plain board of points, `rows × cols`: every row and every column from end
/// to end (see [`BoardView::point_lines`]).
pub(crate) fn full_grid_lines(rows: usize, cols: usize) -> Vec<[(usize, usize); 2]> {
    let across = (0..rows).map(|r| [(r, 0), (r, cols - 1)]);
    let up = (0..cols).map(|c| [(0, c), (rows - 1, c)]);
    across.chain(up).collect()
}

pub(crate) const RESET: &str = "\x1b[0m";
pub(crate) const RED: &str = "\x1b[1;31m";
pub(crate) const YELLOW: &str = "\x1b[1;33m";
pub(crate) const BLUE: &str = "\x1b[1;36m";

/// `text` with every `X` in the ANSI colour `x` and every `O` in `o`.
pub(crate) fn colorize_xo(text: &str, x: &str, o: &str) -> String {
    let mut s = String::with_capacity(text.len() * 2);
    for c in text.chars() {
        match c {
            'X' => {
                s.push_str(x);
                s.push('X');
                s.push_str(RESET);
            }
            'O' => {
                s.push_str(o);
                s.push('O');
                s.push_str(RESET);
            }
            c => s.push(c),
        }
    }
    s
}

/// A probability as a 4-character cell of a text heatmap: `   .` for 0, `  +0` below 0.5%,
/// else the rounded percentage.
pub(crate) fn percent_cell(p: f32) -> String {
    if p <= 0.0 {
        "   .".into()
    } else if p < 0.005 {
        "  +0".into()
    } else {
        format!("{:>4.0}", 100.0 * p)
    }
}
