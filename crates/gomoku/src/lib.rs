//! Gomoku and Renju rules implementing [`alphazero_game::Game`].
//!
//! Three rule sets ([`Rule`]): freestyle (five or more in a row wins), standard (exactly five
//! wins, an overline wins for nobody) and renju (black wins only with exactly five; black's
//! double-three, double-four and overline are forbidden moves that lose at once; white wins
//! with five or more).
//!
//! Coordinates follow the Gomocup convention: `x` is the column, `y` the row, both 0-based.
//! Moves print as `h8` (column letter `a` = x 0, no letter skipped, row number y + 1) and
//! parse from that form or from Gomocup `x,y`.
//!
//! ```
//! use alphazero_game::{Game, Outcome};
//! use alphazero_gomoku::{Gomoku, GomokuConfig, Rule};
//!
//! let mut pos = Gomoku::new(&GomokuConfig::new(15, Rule::Freestyle).unwrap());
//! for mv in ["a1", "a15", "b1", "b15", "c1", "c15", "d1", "d15", "e1"] {
//!     let mv = pos.parse_move(mv).unwrap();
//!     pos.play(mv).unwrap();
//! }
//! assert_eq!(pos.outcome(), Some(Outcome::Loss)); // black made five; white to move has lost
//! ```
#![deny(missing_docs)]

mod board;
mod moves;
mod position;
mod tactics;

use std::fmt;
use std::str::FromStr;

pub use alphazero_game::{ParseError, Side};
pub use moves::GomokuMove;
pub use position::{inverse_symmetry, transform_point, Gomoku};
pub use tactics::VcfResult;

/// Smallest supported board side length.
pub const MIN_SIZE: u8 = 5;
/// Largest supported board side length (column letters `a`..=`t`).
pub const MAX_SIZE: u8 = 20;

/// The rule set: which rows win and whether black has forbidden moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Five or more in a row wins, for both sides.
    #[default]
    Freestyle,
    /// Exactly five in a row wins, for both sides; an overline (six or more) does not win.
    Standard,
    /// Black (`Side::First`) wins only with exactly five; black's double-three, double-four
    /// and overline are forbidden and lose at once. White wins with five or more.
    Renju,
}

impl Rule {
    /// The lower-case name used on the command line (`freestyle`, `standard`, `renju`).
    pub fn name(self) -> &'static str {
        match self {
            Rule::Freestyle => "freestyle",
            Rule::Standard => "standard",
            Rule::Renju => "renju",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Rule {
    type Err = ParseError;

    /// Parses `freestyle`, `standard` or `renju` (case-insensitive, surrounding blanks ignored).
    ///
    /// # Errors
    /// [`ParseError`] naming the input for any other word.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "freestyle" => Ok(Rule::Freestyle),
            "standard" => Ok(Rule::Standard),
            "renju" => Ok(Rule::Renju),
            _ => Err(ParseError::new(
                "gomoku rule",
                s,
                "expected freestyle, standard or renju",
            )),
        }
    }
}

/// A forbidden move of black under [`Rule::Renju`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Foul {
    /// The move makes two or more open threes at once.
    DoubleThree,
    /// The move makes two or more fours at once (also two on one line).
    DoubleFour,
    /// The move makes six or more in a row (and no exact five).
    Overline,
}

impl Foul {
    /// The name as used in renju literature and the test data (`DoubleThree`, …).
    pub fn name(self) -> &'static str {
        match self {
            Foul::DoubleThree => "DoubleThree",
            Foul::DoubleFour => "DoubleFour",
            Foul::Overline => "Overline",
        }
    }
}

impl fmt::Display for Foul {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Board size, rule and search-candidate radius of a Gomoku game.
///
/// The fields are public; [`GomokuConfig::new`] validates the size. A hand-built config with
/// a size outside `MIN_SIZE..=MAX_SIZE` is clamped into that range by [`Gomoku`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GomokuConfig {
    /// Side length of the square board, `5..=20` (default 15).
    pub size: u8,
    /// The rule set (default [`Rule::Freestyle`]).
    pub rule: Rule,
    /// Chebyshev distance from the nearest stone within which empty points are search
    /// candidates (default 2); see `Game::candidate_moves`.
    pub candidate_radius: u8,
}

impl Default for GomokuConfig {
    fn default() -> Self {
        GomokuConfig {
            size: 15,
            rule: Rule::Freestyle,
            candidate_radius: 2,
        }
    }
}

impl GomokuConfig {
    /// A validated config with the default candidate radius (2).
    ///
    /// # Errors
    /// [`ParseError`] (what = "board size") when `size` is outside `5..=20`.
    pub fn new(size: u8, rule: Rule) -> Result<Self, ParseError> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(ParseError::new(
                "board size",
                size.to_string(),
                format!("must be between {MIN_SIZE} and {MAX_SIZE}"),
            ));
        }
        Ok(GomokuConfig {
            size,
            rule,
            ..GomokuConfig::default()
        })
    }

    /// The same config with another candidate radius.
    pub fn with_candidate_radius(mut self, radius: u8) -> Self {
        self.candidate_radius = radius;
        self
    }
}
