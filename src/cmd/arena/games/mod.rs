//! Each game's arena players ([`super::ArenaGame`]: the players that need the arena and
//! protocol crates), one module per game. A game's positions as text
//! ([`alphazero_engine::position::PositionText`]) and how it is drawn
//! ([`alphazero_engine::present::BoardView`]) are in its module of the registry
//! (`alphazero_registry`); Connect Four has no players of its own, so its module here is tiny.
mod connect4;
mod gomoku;
mod xiangqi;
