//! Xiangqi in the binary: perft. Its arena players (alpha-beta, UCCI/UCI engines), how
//! it is read and drawn are in `alphazero_engine`.
use crate::cmd::perft::FastPerft;
use alphazero_xiangqi::Xiangqi;

impl FastPerft for Xiangqi {
    fn fast_perft(&self, depth: u32) -> u64 {
        alphazero_xiangqi::perft(self, depth)
    }
}
