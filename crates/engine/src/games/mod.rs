//! Each game's text reading ([`crate::position::PositionText`]) and drawing
//! ([`crate::present::BoardView`]), one module per game.
mod connect4;
mod gomoku;
mod xiangqi;
