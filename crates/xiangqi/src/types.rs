//! Squares, pieces and moves.

use alphazero_game::{ParseError, Side};
use std::fmt;
use std::str::FromStr;

/// Number of files (columns a–i).
pub const FILES: u8 = 9;
/// Number of ranks (rows 0–9, counted from Red's side).
pub const RANKS: u8 = 10;
/// Number of board points, 9 × 10.
pub const NUM_SQUARES: usize = 90;

/// A point of the board: file 0–8 (a–i, left to right from Red's view) and rank 0–9
/// (counted from Red's back rank), as in ICCS/UCCI notation.
///
/// Its [`index`](Square::index) is `rank * 9 + file`, in `0..90`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square at `file` (0–8, a–i) and `rank` (0–9, from Red's side); `None` when off the
    /// board.
    #[inline]
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file < FILES && rank < RANKS {
            Some(Square(rank * FILES + file))
        } else {
            None
        }
    }

    /// The square with index `rank * 9 + file`; `None` when `index >= 90`.
    #[inline]
    pub const fn from_index(index: usize) -> Option<Square> {
        if index < NUM_SQUARES {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// Caller guarantees `index < 90`.
    #[inline]
    pub(crate) const fn from_index_unchecked(index: usize) -> Square {
        Square(index as u8)
    }

    /// Index `rank * 9 + file`, in `0..90`.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// File 0–8 (a–i from Red's left).
    #[inline]
    pub const fn file(self) -> u8 {
        self.0 % FILES
    }

    /// Rank 0–9 (0 = Red's back rank).
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 / FILES
    }

    /// The square mirrored left-right (file `f` → `8 - f`, same rank).
    #[inline]
    pub const fn mirror(self) -> Square {
        Square(self.rank() * FILES + (FILES - 1 - self.file()))
    }

    /// The square rotated by 180° (file `f` → `8 - f`, rank `r` → `9 - r`): the same point
    /// seen from the other side of the board.
    #[inline]
    pub const fn rotate(self) -> Square {
        Square(NUM_SQUARES as u8 - 1 - self.0)
    }

    /// Parses a square like `e0` or `E0` (file letter a–i, rank digit 0–9).
    ///
    /// # Errors
    /// [`ParseError`] naming the input when it is not a file letter followed by a rank digit.
    pub fn parse(text: &str) -> Result<Square, ParseError> {
        let b = text.as_bytes();
        if b.len() != 2 {
            return Err(ParseError::new(
                "square",
                text,
                "expected a file letter a-i and a rank digit 0-9",
            ));
        }
        parse_square_bytes(b[0], b[1])
            .ok_or_else(|| ParseError::new("square", text, "file must be a-i and rank 0-9"))
    }
}

fn parse_square_bytes(f: u8, r: u8) -> Option<Square> {
    let f = f.to_ascii_lowercase();
    if !(b'a'..=b'i').contains(&f) || !r.is_ascii_digit() {
        return None;
    }
    Square::new(f - b'a', r - b'0')
}

impl fmt::Display for Square {
    /// ICCS coordinates, e.g. `e0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank())
    }
}

/// The seven kinds of Xiangqi pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PieceKind {
    /// General (king), FEN `K`. Stays in the palace, one orthogonal step.
    General,
    /// Advisor, FEN `A`. Stays in the palace, one diagonal step.
    Advisor,
    /// Elephant, FEN `B` (alias `E`). Two diagonal steps, blocked by the eye, never crosses the river.
    Elephant,
    /// Horse, FEN `N` (alias `H`). One orthogonal then one diagonal step, blocked by the leg.
    Horse,
    /// Chariot, FEN `R`. Moves like a rook.
    Chariot,
    /// Cannon, FEN `C`. Moves like a rook, captures over exactly one screen.
    Cannon,
    /// Soldier, FEN `P`. Forward; also sideways once across the river.
    Soldier,
}

impl PieceKind {
    /// All kinds, in [`index`](PieceKind::index) order.
    pub const ALL: [PieceKind; 7] = [
        PieceKind::General,
        PieceKind::Advisor,
        PieceKind::Elephant,
        PieceKind::Horse,
        PieceKind::Chariot,
        PieceKind::Cannon,
        PieceKind::Soldier,
    ];

    /// 0–6 in the order General, Advisor, Elephant, Horse, Chariot, Cannon, Soldier.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The canonical upper-case FEN letter (`K A B N R C P`).
    pub const fn letter(self) -> char {
        match self {
            PieceKind::General => 'K',
            PieceKind::Advisor => 'A',
            PieceKind::Elephant => 'B',
            PieceKind::Horse => 'N',
            PieceKind::Chariot => 'R',
            PieceKind::Cannon => 'C',
            PieceKind::Soldier => 'P',
        }
    }

    /// The kind of a FEN letter, either case, aliases `E` (elephant) and `H` (horse) included.
    pub const fn from_letter(c: char) -> Option<PieceKind> {
        Some(match c.to_ascii_uppercase() {
            'K' => PieceKind::General,
            'A' => PieceKind::Advisor,
            'B' | 'E' => PieceKind::Elephant,
            'N' | 'H' => PieceKind::Horse,
            'R' => PieceKind::Chariot,
            'C' => PieceKind::Cannon,
            'P' => PieceKind::Soldier,
            _ => return None,
        })
    }
}

/// A piece: its kind and its side (`Side::First` = Red, `Side::Second` = Black).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// What kind of piece.
    pub kind: PieceKind,
    /// Whose piece (`First` = Red, `Second` = Black).
    pub side: Side,
}

impl Piece {
    /// A piece of `kind` belonging to `side`.
    pub const fn new(kind: PieceKind, side: Side) -> Piece {
        Piece { kind, side }
    }

    /// FEN letter: upper case for Red, lower case for Black.
    pub const fn to_char(self) -> char {
        let c = self.kind.letter();
        match self.side {
            Side::First => c,
            Side::Second => c.to_ascii_lowercase(),
        }
    }

    /// The piece of a FEN letter (upper case Red, lower case Black; `E`/`H` aliases accepted).
    pub const fn from_char(c: char) -> Option<Piece> {
        let side = if c.is_ascii_uppercase() {
            Side::First
        } else {
            Side::Second
        };
        match PieceKind::from_letter(c) {
            Some(kind) => Some(Piece { kind, side }),
            None => None,
        }
    }

    /// Internal board code 1–14 (0 = empty).
    #[inline]
    pub(crate) const fn code(self) -> u8 {
        1 + self.kind as u8 + 7 * (self.side as u8)
    }

    /// Inverse of [`Piece::code`]; `None` for 0.
    #[inline]
    pub(crate) const fn from_code(code: u8) -> Option<Piece> {
        if code == 0 || code > 14 {
            return None;
        }
        let k = (code - 1) % 7;
        let side = if code > 7 { Side::Second } else { Side::First };
        Some(Piece {
            kind: PieceKind::ALL[k as usize],
            side,
        })
    }
}

impl fmt::Display for Piece {
    /// The FEN letter.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_char())
    }
}

/// A move from one point to another. Displayed and parsed in ICCS/UCCI notation (`h2e2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// The point the piece leaves.
    pub from: Square,
    /// The point the piece goes to (capturing whatever stands there).
    pub to: Square,
}

impl Move {
    /// A move from `from` to `to`.
    #[inline]
    pub const fn new(from: Square, to: Square) -> Move {
        Move { from, to }
    }

    /// The move mirrored left-right.
    #[inline]
    pub const fn mirror(self) -> Move {
        Move {
            from: self.from.mirror(),
            to: self.to.mirror(),
        }
    }

    /// The move rotated by 180° (as seen from the other side).
    #[inline]
    pub const fn rotate(self) -> Move {
        Move {
            from: self.from.rotate(),
            to: self.to.rotate(),
        }
    }

    /// Parses ICCS/UCCI notation: `h2e2`, also `H2-E2` / `h2-e2` (files a–i, ranks 0–9 from
    /// Red's side). Surrounding whitespace is ignored.
    ///
    /// # Errors
    /// [`ParseError`] naming the input when it is not of that form. Legality is not checked.
    pub fn parse_iccs(text: &str) -> Result<Move, ParseError> {
        let t = text.trim();
        let b = t.as_bytes();
        let (f, s) = match b.len() {
            4 => ((b[0], b[1]), (b[2], b[3])),
            5 if b[2] == b'-' => ((b[0], b[1]), (b[3], b[4])),
            _ => {
                return Err(ParseError::new(
                    "move",
                    text,
                    "expected ICCS notation like h2e2 (file a-i, rank 0-9, twice)",
                ))
            }
        };
        let from = parse_square_bytes(f.0, f.1).ok_or_else(|| {
            ParseError::new("move", text, "origin must be a file a-i and a rank 0-9")
        })?;
        let to = parse_square_bytes(s.0, s.1).ok_or_else(|| {
            ParseError::new(
                "move",
                text,
                "destination must be a file a-i and a rank 0-9",
            )
        })?;
        if from == to {
            return Err(ParseError::new(
                "move",
                text,
                "origin and destination are the same point",
            ));
        }
        Ok(Move { from, to })
    }
}

impl fmt::Display for Move {
    /// ICCS/UCCI notation, lower case, e.g. `h2e2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)
    }
}

impl FromStr for Move {
    type Err = ParseError;
    /// See [`Move::parse_iccs`].
    fn from_str(s: &str) -> Result<Move, ParseError> {
        Move::parse_iccs(s)
    }
}
