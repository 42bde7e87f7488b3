//! Built-in players: the random mover, the search with any evaluator, and hand-written
//! Gomoku and Xiangqi opponents.

mod gomoku;
mod mcts;
mod random;
mod xiangqi;

pub use gomoku::GomokuHeuristic;
pub use mcts::MctsPlayer;
pub use random::RandomPlayer;
pub use xiangqi::{XiangqiAlphaBeta, REPEAT_SCORE};
