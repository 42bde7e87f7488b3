//! Each game's text reading ([`crate::position::PositionText`]), drawing
//! ([`crate::present::BoardView`]) and arena players ([`crate::arena::ArenaGame`]), one module
//! per game.
mod connect4;
mod gomoku;
mod xiangqi;
