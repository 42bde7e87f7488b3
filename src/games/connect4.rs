//! Connect Four in the binary: its arena players (none of its own) and perft. How it is read
//! and drawn is in `alphazero_engine`.
use crate::cmd::arena::{wrong_game, ArenaGame, Factory};
use crate::cmd::perft::FastPerft;
use alphazero_arena::PlayerSpec;
use alphazero_connect4::Connect4;
use anyhow::Result;

impl ArenaGame for Connect4 {
    fn special(_: &PlayerSpec, text: &str, _: u64) -> Result<(String, Factory<Self>)> {
        Err(wrong_game::<Self>(text))
    }
}

impl FastPerft for Connect4 {}
