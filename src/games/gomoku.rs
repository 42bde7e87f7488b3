//! Gomoku in the binary: perft. Its arena players, how it is read and drawn are in
//! `alphazero_engine`.
use crate::cmd::perft::FastPerft;
use alphazero_gomoku::Gomoku;

impl FastPerft for Gomoku {}
