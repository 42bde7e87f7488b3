//! Connect Four in the binary: perft (none of its own). Its arena players, how it is
//! read and drawn are in `alphazero_engine`.
use crate::cmd::perft::FastPerft;
use alphazero_connect4::Connect4;

impl FastPerft for Connect4 {}
