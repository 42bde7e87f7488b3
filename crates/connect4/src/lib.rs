//! Connect Four (7 columns × 6 rows, gravity, four in a row wins) implementing
//! [`alphazero_game::Game`], plus an exact [`solver`] used as the answer key when measuring how
//! well a trained network plays.
//!
//! The position is a pair of bitboards in Pascal Pons' layout (7 bits per column: 6 cells and a
//! sentinel), so move generation, play and win detection are a few shifts and masks.
//!
//! Coordinates: columns are 0-based inside the program ([`C4Move`]`(0)` = leftmost) and 1-based
//! in every notation (`"4"` = centre column), as in the Pons test sets; rows count from the
//! bottom (row 0 = bottom).
//!
//! ```
//! use alphazero_connect4::{Connect4, C4Move};
//! use alphazero_game::{Game, Outcome};
//!
//! let mut pos = Connect4::from_moves("4455667").unwrap();
//! assert_eq!(pos.outcome(), Some(Outcome::Loss)); // the first player just won on the bottom row
//! assert_eq!(pos.moves_string(), "4455667");
//! let mut fresh = Connect4::default();
//! fresh.play(C4Move(3)).unwrap();
//! assert_eq!(fresh.moves_string(), "4");
//! ```
#![deny(missing_docs)]

mod bitboard;
pub mod solver;

use std::fmt;
use std::hash::{Hash, Hasher};

use alphazero_game::{zobrist_table, Game, IllegalMove, Outcome, ParseError, Side};

use bitboard::{
    bottom_mask_col, column_height, column_mask, has_four, mirror, top_mask_col, winning_cells,
    CELLS, COL_BITS,
};

pub use solver::Solver;

/// Number of columns (and of actions).
pub const WIDTH: usize = bitboard::WIDTH;
/// Number of rows.
pub const HEIGHT: usize = bitboard::HEIGHT;

/// Connect Four has a single standard configuration (7 × 6); this unit-like type exists because
/// [`Game`] needs a `Config`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Connect4Config;

/// A move: the 0-based column to drop a stone into (`C4Move(3)` = centre column).
///
/// Displayed and parsed as the **1-based** column digit (`C4Move(3)` prints `4`). A value ≥ 7 is
/// off the board and is never legal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct C4Move(pub u8);

impl C4Move {
    /// The 0-based column (0 = leftmost).
    #[inline]
    pub const fn col(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for C4Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0 as u32 + 1)
    }
}

/// Zobrist keys: `side.index() * 49 + bit` for a stone of `side` on bitboard bit `bit`
/// (`col * 7 + row`), and key 98 XORed in when the second player is to move.
const ZOBRIST: [u64; 2 * 49 + 1] = zobrist_table::<99>(0xC04E_C7F0_0C04_2024);
const ZOBRIST_SECOND_TO_MOVE: usize = 98;

/// A Connect Four position (with the sequence of moves that led to it).
///
/// `Eq` and `Hash` compare the board only (the side to move follows from the number of stones),
/// so transpositions are equal even though [`Connect4::moves_string`] differs. The type is
/// `Copy` and at most 48 bytes.
#[derive(Clone, Copy)]
pub struct Connect4 {
    /// Stones of the side to move.
    pub(crate) current: u64,
    /// All stones.
    pub(crate) mask: u64,
    /// The moves played, 3 bits (0-based column) per ply, ply 0 in the lowest bits.
    history: u128,
    /// Incremental Zobrist hash (stones + side to move).
    hash: u64,
    /// Stones on the board.
    ply: u8,
    /// Whether the last move made four in a row (the side to move has lost).
    won: bool,
    config: Connect4Config,
}

impl PartialEq for Connect4 {
    fn eq(&self, other: &Self) -> bool {
        self.current == other.current && self.mask == other.mask
    }
}

impl Eq for Connect4 {}

impl Hash for Connect4 {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.current);
        state.write_u64(self.mask);
    }
}

impl Default for Connect4 {
    /// The empty board, first player to move.
    fn default() -> Self {
        Connect4 {
            current: 0,
            mask: 0,
            history: 0,
            hash: 0,
            ply: 0,
            won: false,
            config: Connect4Config,
        }
    }
}

impl fmt::Debug for Connect4 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connect4")
            .field("moves", &self.moves_string())
            .finish()
    }
}

impl fmt::Display for Connect4 {
    /// Six lines of cells, top row first (`X` = first player, `O` = second player, `.` = empty),
    /// then the column numbers `1 2 3 4 5 6 7`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in (0..HEIGHT).rev() {
            for col in 0..WIDTH {
                let c = match self.cell(col, row) {
                    Some(Side::First) => 'X',
                    Some(Side::Second) => 'O',
                    None => '.',
                };
                if col > 0 {
                    f.write_str(" ")?;
                }
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        write!(f, "1 2 3 4 5 6 7")
    }
}

impl Connect4 {
    /// The position after the move sequence `moves` from the empty board, in the notation of the
    /// Pons test sets: one 1-based column digit per move, first player first (`"4453"`).
    /// Surrounding whitespace is ignored; the empty string is the empty board.
    ///
    /// # Errors
    /// [`ParseError`] (what = `"move sequence"`, input = the whole string) on a character that is
    /// not `1`..`7`, a move into a full column, or a move after the game has ended.
    pub fn from_moves(moves: &str) -> Result<Self, ParseError> {
        let mut pos = Connect4::default();
        for (i, ch) in moves.trim().chars().enumerate() {
            let col = match ch {
                '1'..='7' => ch as u8 - b'1',
                _ => {
                    return Err(ParseError::new(
                        "move sequence",
                        moves,
                        format!("bad character {ch:?} at move {}", i + 1),
                    ))
                }
            };
            if pos.outcome().is_some() {
                return Err(ParseError::new(
                    "move sequence",
                    moves,
                    format!("move {} ({ch}) after the game ended", i + 1),
                ));
            }
            if pos.height(col as usize) >= HEIGHT {
                return Err(ParseError::new(
                    "move sequence",
                    moves,
                    format!("column {ch} is full at move {}", i + 1),
                ));
            }
            pos.play_unchecked(C4Move(col));
        }
        Ok(pos)
    }

    /// The moves played from the empty board, as 1-based column digits (inverse of
    /// [`Connect4::from_moves`]).
    pub fn moves_string(&self) -> String {
        self.moves().map(|m| char::from(b'1' + m.0)).collect()
    }

    /// The moves played from the empty board, oldest first.
    pub fn moves(&self) -> impl Iterator<Item = C4Move> + '_ {
        (0..self.ply as u32).map(move |i| C4Move(((self.history >> (3 * i)) & 7) as u8))
    }

    /// The stone on column `col` (0 = leftmost), row `row` (0 = bottom); `None` if the cell is
    /// empty or off the board.
    pub fn cell(&self, col: usize, row: usize) -> Option<Side> {
        if col >= WIDTH || row >= HEIGHT {
            return None;
        }
        let bit = 1u64 << (col * COL_BITS + row);
        if self.mask & bit == 0 {
            None
        } else if self.current & bit != 0 {
            Some(self.side_to_move())
        } else {
            Some(self.side_to_move().opponent())
        }
    }

    /// Number of stones in column `col` (0 = leftmost), 0..=6; 0 for a column off the board.
    pub fn height(&self, col: usize) -> usize {
        if col >= WIDTH {
            return 0;
        }
        column_height(self.mask, col)
    }

    /// Number of stones on the board (same as [`Game::ply`]).
    pub fn num_stones(&self) -> u32 {
        self.ply as u32
    }

    /// Whether `mv` is legal here and makes four in a row for the side to move.
    pub fn is_winning_move(&self, mv: C4Move) -> bool {
        self.is_legal(mv) && {
            let col = mv.col();
            winning_cells(self.current, self.mask)
                & bitboard::possible(self.mask)
                & column_mask(col)
                != 0
        }
    }

    /// Whether the side to move can win with its next move (the game not being over).
    pub fn can_win_next(&self) -> bool {
        !self.is_over()
            && winning_cells(self.current, self.mask) & bitboard::possible(self.mask) != 0
    }

    /// The stones of `side` as a bitboard (bit `col * 7 + row`).
    fn stones_of(&self, side: Side) -> u64 {
        if side == self.side_to_move() {
            self.current
        } else {
            self.current ^ self.mask
        }
    }

    /// Whether the last move made four in a row.
    #[inline]
    pub(crate) fn won_last(&self) -> bool {
        self.won
    }

    #[inline]
    fn is_over(&self) -> bool {
        self.won || self.ply as u32 == CELLS
    }

    /// The 0-based column → (is on the board and not full).
    #[inline]
    fn column_open(&self, col: usize) -> bool {
        col < WIDTH && self.mask & top_mask_col(col) == 0
    }
}

impl Game for Connect4 {
    type Move = C4Move;
    type Config = Connect4Config;

    const NAME: &'static str = "connect4";

    fn new(_config: &Connect4Config) -> Self {
        Connect4::default()
    }

    fn config(&self) -> &Connect4Config {
        &self.config
    }

    fn side_to_move(&self) -> Side {
        if self.ply.is_multiple_of(2) {
            Side::First
        } else {
            Side::Second
        }
    }

    fn ply(&self) -> u32 {
        self.ply as u32
    }

    /// The non-full columns, left to right; none once the game is over.
    fn legal_moves(&self, out: &mut Vec<C4Move>) {
        out.clear();
        if self.is_over() {
            return;
        }
        for col in 0..WIDTH {
            if self.mask & top_mask_col(col) == 0 {
                out.push(C4Move(col as u8));
            }
        }
    }

    /// Every legal move (the search considers them all), always complete.
    fn search_moves(&self, out: &mut Vec<C4Move>) -> bool {
        self.legal_moves(out);
        true
    }

    fn is_legal(&self, mv: C4Move) -> bool {
        !self.is_over() && self.column_open(mv.col())
    }

    /// Drops a stone. A move off the board or into a full column is ignored.
    fn play_unchecked(&mut self, mv: C4Move) {
        let col = mv.col();
        if col >= WIDTH {
            return;
        }
        let bit = self.mask.wrapping_add(bottom_mask_col(col)) & column_mask(col);
        if bit == 0 {
            return;
        }
        let side = self.side_to_move();
        self.won = has_four(self.current | bit);
        self.current ^= self.mask;
        self.mask |= bit;
        self.hash ^= ZOBRIST[side.index() * 49 + bit.trailing_zeros() as usize]
            ^ ZOBRIST[ZOBRIST_SECOND_TO_MOVE];
        self.history |= (col as u128) << (3 * self.ply as u32);
        self.ply += 1;
    }

    /// # Errors
    /// [`IllegalMove`] with reason `"off the board"`, `"game over"` or `"column full"`; the
    /// position is unchanged then.
    fn play(&mut self, mv: C4Move) -> Result<(), IllegalMove> {
        if !self.is_legal(mv) {
            return Err(IllegalMove {
                mv: mv.to_string(),
                reason: self.illegal_reason(mv),
            });
        }
        self.play_unchecked(mv);
        Ok(())
    }

    /// `"off the board"` (column ≥ 7), `"game over"`, or `"column full"`.
    fn illegal_reason(&self, mv: C4Move) -> String {
        if mv.col() >= WIDTH {
            "off the board".into()
        } else if self.is_over() {
            "game over".into()
        } else if !self.column_open(mv.col()) {
            "column full".into()
        } else {
            "the move is legal".into()
        }
    }

    /// `Loss` right after the opponent made four in a row (also when that stone filled the
    /// board), `Draw` on a full board without four in a row, else `None`.
    /// `four in a row` or `the board is full`.
    fn end_reason_text(&self, _history: &[alphazero_game::HistoryEntry]) -> Option<String> {
        Some(match self.outcome()? {
            Outcome::Draw => "the board is full".into(),
            _ => "four in a row".into(),
        })
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.won {
            Some(Outcome::Loss)
        } else if self.ply as u32 == CELLS {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    fn zobrist(&self) -> u64 {
        self.hash
    }

    fn zobrist_from_scratch(&self) -> u64 {
        let mut h = 0;
        for side in [Side::First, Side::Second] {
            let mut b = self.stones_of(side);
            while b != 0 {
                let bit = b.trailing_zeros() as usize;
                h ^= ZOBRIST[side.index() * 49 + bit];
                b &= b - 1;
            }
        }
        if self.side_to_move() == Side::Second {
            h ^= ZOBRIST[ZOBRIST_SECOND_TO_MOVE];
        }
        h
    }

    /// 7: one action per column.
    fn num_actions(&self) -> usize {
        WIDTH
    }

    /// The 0-based column.
    fn move_to_action(&self, mv: C4Move) -> usize {
        mv.col()
    }

    /// `Some(C4Move(action))` for `action < 7`.
    fn action_to_move(&self, action: usize) -> Option<C4Move> {
        (action < WIDTH).then_some(C4Move(action as u8))
    }

    /// 2: identity (0) and left-right mirror (1).
    fn num_symmetries(&self) -> usize {
        2
    }

    /// Symmetry 1 maps column `c` to `6 - c`; any other symmetry index, and any action ≥ 7,
    /// is left unchanged.
    fn transform_action(&self, sym: usize, action: usize) -> usize {
        if sym == 1 && action < WIDTH {
            WIDTH - 1 - action
        } else {
            action
        }
    }

    /// Symmetry 1 mirrors the board (and the recorded move sequence) left-right; any other
    /// index returns the position unchanged.
    fn transform(&self, sym: usize) -> Self {
        if sym != 1 {
            return *self;
        }
        let mut out = *self;
        out.current = mirror(self.current);
        out.mask = mirror(self.mask);
        out.history = 0;
        for (i, m) in self.moves().enumerate() {
            out.history |= ((WIDTH - 1 - m.col()) as u128) << (3 * i);
        }
        out.hash = out.zobrist_from_scratch();
        out
    }

    /// A 1-based column number `1`..`7` (surrounding whitespace ignored).
    ///
    /// # Errors
    /// [`ParseError`] (what = `"move"`) naming the input when it is not a number from 1 to 7.
    fn parse_move(&self, text: &str) -> Result<C4Move, ParseError> {
        match text.trim().parse::<u8>() {
            Ok(n @ 1..=7) => Ok(C4Move(n - 1)),
            _ => Err(ParseError::new(
                "move",
                text,
                "expected a column number from 1 to 7",
            )),
        }
    }

    /// `(6, 7)`: rows × columns.
    fn board_shape(&self) -> (usize, usize) {
        (HEIGHT, WIDTH)
    }
}
