//! Perft: counting leaf nodes of the legal move tree.

use crate::game_impl::legal_list;
use crate::position::Xiangqi;
use crate::types::Move;

/// Number of leaf nodes of the legal move tree at `depth` plies (1 at depth 0). Fast path:
/// stack move lists, copy-make, bulk counting at depth 1. No repetition or move-limit rules.
pub fn perft(pos: &Xiangqi, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let list = legal_list(pos);
    if depth == 1 {
        return list.len() as u64;
    }
    let mut n = 0;
    for &m in list.as_slice() {
        let mut c = pos.clone();
        c.make(m);
        n += perft(&c, depth - 1);
    }
    n
}

/// Perft split by root move: each legal move with the leaf count below it at `depth - 1`
/// (empty at depth 0).
pub fn perft_divide(pos: &Xiangqi, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    legal_list(pos)
        .as_slice()
        .iter()
        .map(|&m| {
            let mut c = pos.clone();
            c.make(m);
            (m, perft(&c, depth - 1))
        })
        .collect()
}
