//! Perft: the leaf nodes of the legal-move tree to a fixed depth, the check of a game's move
//! generation ([`Registered::perft`] is a game's fastest counter).

use alphazero_game::Game;

#[cfg(doc)]
use crate::Registered;

/// Perft over the [`Game`] trait (the reference for games without a counter of their own):
/// the leaf nodes of the legal-move tree of `pos`, `depth` plies deep (1 at depth 0, 0 at a
/// finished position).
pub fn perft_generic<G: Game>(pos: &G, depth: u32) -> u64 {
    perft_with(pos, depth, &mut Vec::new())
}

/// [`perft_generic`] reusing one move list per level in `buf`.
fn perft_with<G: Game>(pos: &G, depth: u32, buf: &mut Vec<Vec<G::Move>>) -> u64 {
    if pos.outcome().is_some() {
        return 0;
    }
    if depth == 0 {
        return 1;
    }
    let level = depth as usize;
    if buf.len() <= level {
        buf.resize_with(level + 1, Vec::new);
    }
    let mut moves = std::mem::take(&mut buf[level]);
    pos.legal_moves(&mut moves);
    let n = if depth == 1 {
        moves.len() as u64
    } else {
        let mut total = 0;
        for &m in &moves {
            let mut child = pos.clone();
            child.play_unchecked(m);
            total += perft_with(&child, depth - 1, buf);
        }
        total
    };
    buf[level] = moves;
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Connect4, Connect4Config, Xiangqi, XiangqiConfig};
    use crate::Registered;

    #[test]
    fn generic_perft_counts_the_known_trees() {
        // Connect Four: 7, 49, 343 (no game ends before ply 7).
        let c4 = Connect4::new(&Connect4Config);
        assert_eq!(
            (1..=3).map(|d| perft_generic(&c4, d)).collect::<Vec<_>>(),
            [7, 49, 343]
        );
        assert_eq!(c4.perft(3), 343, "Connect Four has no counter of its own");
    }

    #[test]
    fn xiangqis_own_counter_agrees_with_the_generic_one() {
        let x = Xiangqi::new(&XiangqiConfig::default());
        assert_eq!(x.perft(2), 1920);
        assert_eq!(perft_generic(&x, 2), 1920);
    }
}
