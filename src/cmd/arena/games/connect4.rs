//! Connect Four's arena players: none of its own (a tiny file, kept so that each game has its
//! module here); its positions as text and how it is drawn are in the registry
//! (`alphazero_registry`).
use super::super::{wrong_game, ArenaGame, Factory};
use alphazero_arena::PlayerSpec;
use alphazero_connect4::Connect4;
use anyhow::Result;

impl ArenaGame for Connect4 {
    fn special(_: &PlayerSpec, text: &str, _: u64) -> Result<(String, Factory<Self>)> {
        Err(wrong_game::<Self>(text))
    }
}
