//! The Gomoku move and its two notations (`h8` and Gomocup `x,y`).

use std::fmt;
use std::str::FromStr;

use alphazero_game::ParseError;

use crate::MAX_SIZE;

/// A stone drop at column `x`, row `y` (both 0-based, Gomocup convention).
///
/// Displays as `h8`: column letter (`a` = x 0, no letter skipped, up to `t`) then the 1-based
/// row number y + 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GomokuMove {
    /// Column, 0-based (`a` = 0).
    pub x: u8,
    /// Row, 0-based (printed as y + 1).
    pub y: u8,
}

impl GomokuMove {
    /// The move at column `x`, row `y`.
    #[inline]
    pub const fn new(x: u8, y: u8) -> Self {
        GomokuMove { x, y }
    }

    /// Gomocup notation `x,y` (0-based column, row), e.g. `7,7` for `h8`.
    pub fn to_gomocup(self) -> String {
        format!("{},{}", self.x, self.y)
    }

    /// Parses Gomocup `x,y` (0-based, blanks around the numbers allowed).
    ///
    /// # Errors
    /// [`ParseError`] (what = "move") when the text is not two comma-separated numbers below
    /// 20. Board bounds are checked by `Gomoku::parse_move`.
    pub fn parse_gomocup(text: &str) -> Result<Self, ParseError> {
        let err = |reason: &str| ParseError::new("move", text, reason);
        let (a, b) = text.split_once(',').ok_or_else(|| err("expected x,y"))?;
        let x: u8 = a
            .trim()
            .parse()
            .map_err(|_| err("x is not a number in 0..20"))?;
        let y: u8 = b
            .trim()
            .parse()
            .map_err(|_| err("y is not a number in 0..20"))?;
        if x >= MAX_SIZE || y >= MAX_SIZE {
            return Err(err("coordinate beyond the largest board (20x20)"));
        }
        Ok(GomokuMove { x, y })
    }

    /// Parses the `h8` form (column letter `a`..`t`, case-insensitive, then row 1..20).
    ///
    /// # Errors
    /// [`ParseError`] (what = "move") when the letter or number is missing or out of range.
    pub fn parse_coord(text: &str) -> Result<Self, ParseError> {
        Self::parse_coord_within(text, MAX_SIZE)
    }

    /// Parses the `h8` form for a board of side `size` (clamped to `1..=20`): the column letter
    /// must be in `a..` the board's last letter and the row in `1..=size`, and the error names
    /// that range (`column must be a letter a..o` on 15×15).
    ///
    /// # Errors
    /// [`ParseError`] (what = "move") when the letter or number is missing or off the board.
    pub fn parse_coord_within(text: &str, size: u8) -> Result<Self, ParseError> {
        let size = size.clamp(1, MAX_SIZE);
        let last = (b'a' + size - 1) as char;
        let err = |reason: String| ParseError::new("move", text, reason);
        let t = text.trim();
        let mut chars = t.chars();
        let c = chars
            .next()
            .ok_or_else(|| err("empty move".into()))?
            .to_ascii_lowercase();
        if !c.is_ascii_lowercase() || c > last {
            return Err(err(format!("column must be a letter a..{last}")));
        }
        let bad_row = || err(format!("row must be a number 1..{size}"));
        let row: u8 = chars.as_str().parse().map_err(|_| bad_row())?;
        if row == 0 || row > size {
            return Err(bad_row());
        }
        Ok(GomokuMove {
            x: c as u8 - b'a',
            y: row - 1,
        })
    }
}

impl fmt::Display for GomokuMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let col = (b'a' + self.x.min(25)) as char;
        write!(f, "{}{}", col, u32::from(self.y) + 1)
    }
}

impl FromStr for GomokuMove {
    type Err = ParseError;

    /// Parses `h8` or Gomocup `x,y` (any board up to 20x20; no board-size check).
    ///
    /// # Errors
    /// See [`GomokuMove::parse_coord`] and [`GomokuMove::parse_gomocup`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.contains(',') {
            GomokuMove::parse_gomocup(s)
        } else {
            GomokuMove::parse_coord(s)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coord_and_gomocup_notations_round_trip() {
        let m = GomokuMove::new(7, 7);
        assert_eq!(m.to_string(), "h8");
        assert_eq!(m.to_gomocup(), "7,7");
        assert_eq!("H8".parse::<GomokuMove>().unwrap(), m);
        assert_eq!(" 7 , 7 ".parse::<GomokuMove>().unwrap(), m);
        assert_eq!(GomokuMove::new(19, 19).to_string(), "t20");
        assert_eq!(
            "t20".parse::<GomokuMove>().unwrap(),
            GomokuMove::new(19, 19)
        );
    }

    #[test]
    fn malformed_moves_are_rejected_with_the_input() {
        for bad in [
            "", "u1", "a0", "a21", "h", "8h", "1,", "20,0", "-1,3", "a,b",
        ] {
            let e = bad.parse::<GomokuMove>().unwrap_err();
            assert_eq!(e.input, bad);
        }
    }

    #[test]
    fn coord_errors_name_the_range_of_the_board_in_use() {
        let e = GomokuMove::parse_coord_within("z9", 15).unwrap_err();
        assert_eq!(e.reason, "column must be a letter a..o");
        let e = GomokuMove::parse_coord_within("a16", 15).unwrap_err();
        assert_eq!(e.reason, "row must be a number 1..15");
        let e = "z9".parse::<GomokuMove>().unwrap_err();
        assert_eq!(e.reason, "column must be a letter a..t");
        assert_eq!(
            GomokuMove::parse_coord_within("o15", 15).unwrap(),
            GomokuMove::new(14, 14)
        );
    }
}
