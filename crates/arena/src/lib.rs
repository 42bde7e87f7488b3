//! Players behind one interface, matches between them, and ratings (Elo / Bradley–Terry with
//! confidence intervals, SPRT).
#![deny(missing_docs)]

pub mod player;
pub use player::{Limits, MoveChoice, Player, PlayerError};
