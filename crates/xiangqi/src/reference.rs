//! A slow, obviously-correct reference move generator, independent of the fast tables.
//!
//! Legality here is the textbook definition: generate every pseudo-legal move by coordinate
//! arithmetic, play it on a copy of the board, and keep it unless some pseudo-legal move of
//! the opponent could then capture the mover's general or the two generals face each other
//! on an open file. Used by the tests to check [`Xiangqi`]'s fast generator and perft.

use crate::position::Xiangqi;
use crate::types::{Move, Piece, PieceKind, Square};
use alphazero_game::{Game, Outcome, Side};

/// A board as `[rank][file]` (rank 0 = Red's back rank).
pub(crate) type Grid = [[Option<Piece>; 9]; 10];

pub(crate) fn grid(pos: &Xiangqi) -> Grid {
    let mut g = [[None; 9]; 10];
    for (r, row) in g.iter_mut().enumerate() {
        for (f, cell) in row.iter_mut().enumerate() {
            *cell = Square::new(f as u8, r as u8).and_then(|s| pos.piece_at(s));
        }
    }
    g
}

fn at(g: &Grid, f: i32, r: i32) -> Option<Option<Piece>> {
    if (0..9).contains(&f) && (0..10).contains(&r) {
        Some(g[r as usize][f as usize])
    } else {
        None
    }
}

fn in_own_palace(side: Side, f: i32, r: i32) -> bool {
    (3..=5).contains(&f)
        && match side {
            Side::First => (0..=2).contains(&r),
            Side::Second => (7..=9).contains(&r),
        }
}

fn on_own_half(side: Side, r: i32) -> bool {
    match side {
        Side::First => r <= 4,
        Side::Second => r >= 5,
    }
}

fn mk(f: i32, r: i32, tf: i32, tr: i32) -> Move {
    let from = Square::new(f as u8, r as u8).unwrap_or(Square::from_index_unchecked(0));
    let to = Square::new(tf as u8, tr as u8).unwrap_or(Square::from_index_unchecked(0));
    Move::new(from, to)
}

/// Every pseudo-legal move of `side` (ignoring whether the own general is left attacked).
pub(crate) fn pseudo_moves(g: &Grid, side: Side) -> Vec<Move> {
    let mut out = Vec::new();
    let orth = [(0, 1), (0, -1), (1, 0), (-1, 0)];
    let diag = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
    for r in 0..10i32 {
        for f in 0..9i32 {
            let Some(p) = g[r as usize][f as usize] else {
                continue;
            };
            if p.side != side {
                continue;
            }
            // A target is fine if on board and not occupied by an own piece.
            let ok = |tf: i32, tr: i32| match at(g, tf, tr) {
                None => false,
                Some(None) => true,
                Some(Some(q)) => q.side != side,
            };
            let empty = |tf: i32, tr: i32| at(g, tf, tr) == Some(None);
            match p.kind {
                PieceKind::General => {
                    for (df, dr) in orth {
                        if in_own_palace(side, f + df, r + dr) && ok(f + df, r + dr) {
                            out.push(mk(f, r, f + df, r + dr));
                        }
                    }
                }
                PieceKind::Advisor => {
                    for (df, dr) in diag {
                        if in_own_palace(side, f + df, r + dr) && ok(f + df, r + dr) {
                            out.push(mk(f, r, f + df, r + dr));
                        }
                    }
                }
                PieceKind::Elephant => {
                    for (df, dr) in diag {
                        let (tf, tr) = (f + 2 * df, r + 2 * dr);
                        if on_own_half(side, tr) && empty(f + df, r + dr) && ok(tf, tr) {
                            out.push(mk(f, r, tf, tr));
                        }
                    }
                }
                PieceKind::Horse => {
                    for (df, dr) in [
                        (1, 2),
                        (-1, 2),
                        (1, -2),
                        (-1, -2),
                        (2, 1),
                        (2, -1),
                        (-2, 1),
                        (-2, -1),
                    ] {
                        let leg = if df * df == 4 {
                            (f + df / 2, r)
                        } else {
                            (f, r + dr / 2)
                        };
                        if empty(leg.0, leg.1) && ok(f + df, r + dr) {
                            out.push(mk(f, r, f + df, r + dr));
                        }
                    }
                }
                PieceKind::Chariot | PieceKind::Cannon => {
                    for (df, dr) in orth {
                        let mut screens = 0;
                        let (mut tf, mut tr) = (f + df, r + dr);
                        while let Some(cell) = at(g, tf, tr) {
                            match cell {
                                None => {
                                    if screens == 0 {
                                        out.push(mk(f, r, tf, tr));
                                    }
                                }
                                Some(q) => {
                                    let needed = if p.kind == PieceKind::Chariot { 0 } else { 1 };
                                    if screens == needed && q.side != side {
                                        out.push(mk(f, r, tf, tr));
                                    }
                                    screens += 1;
                                    if screens > needed {
                                        break;
                                    }
                                }
                            }
                            tf += df;
                            tr += dr;
                        }
                    }
                }
                PieceKind::Soldier => {
                    let fwd = if side == Side::First { 1 } else { -1 };
                    if ok(f, r + fwd) {
                        out.push(mk(f, r, f, r + fwd));
                    }
                    if !on_own_half(side, r) {
                        for df in [-1, 1] {
                            if ok(f + df, r) {
                                out.push(mk(f, r, f + df, r));
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

fn find_general(g: &Grid, side: Side) -> Option<(i32, i32)> {
    let target = Some(Piece::new(PieceKind::General, side));
    g.iter().enumerate().find_map(|(r, row)| {
        row.iter()
            .position(|&c| c == target)
            .map(|f| (f as i32, r as i32))
    })
}

fn generals_facing(g: &Grid) -> bool {
    let (Some(a), Some(b)) = (find_general(g, Side::First), find_general(g, Side::Second)) else {
        return false;
    };
    if a.0 != b.0 {
        return false;
    }
    let (lo, hi) = (a.1.min(b.1), a.1.max(b.1));
    (lo + 1..hi).all(|r| g[r as usize][a.0 as usize].is_none())
}

/// Whether `side`'s general could be captured by the opponent on `g`, or the generals face.
fn exposed(g: &Grid, side: Side) -> bool {
    if generals_facing(g) {
        return true;
    }
    let Some((kf, kr)) = find_general(g, side) else {
        return true;
    };
    pseudo_moves(g, side.opponent())
        .iter()
        .any(|m| m.to.file() as i32 == kf && m.to.rank() as i32 == kr)
}

/// Every pseudo-legal move of the side to move (movement rules only: the own general may be
/// left attacked), the oracle of [`Xiangqi::pseudo_legal_moves`].
pub fn pseudo_legal_moves(pos: &Xiangqi) -> Vec<Move> {
    pseudo_moves(&grid(pos), pos.side_to_move())
}

/// Whether the side to move is in check by the reference definition.
pub fn in_check(pos: &Xiangqi) -> bool {
    exposed(&grid(pos), pos.side_to_move())
}

/// The legal moves of `pos`, computed the slow, obviously-correct way, in generation order.
pub fn legal_moves(pos: &Xiangqi) -> Vec<Move> {
    let g = grid(pos);
    let side = pos.side_to_move();
    pseudo_moves(&g, side)
        .into_iter()
        .filter(|m| {
            let mut h = g;
            let (fr, ff) = (m.from.rank() as usize, m.from.file() as usize);
            let (tr, tf) = (m.to.rank() as usize, m.to.file() as usize);
            h[tr][tf] = h[fr][ff];
            h[fr][ff] = None;
            !exposed(&h, side)
        })
        .collect()
}

/// Perft with the reference generator (leaf count at `depth`; 1 at depth 0). Slow: for tests.
pub fn perft(pos: &Xiangqi, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = legal_moves(pos);
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .into_iter()
        .map(|m| {
            let mut c = pos.clone();
            c.play_unchecked(m);
            perft(&c, depth - 1)
        })
        .sum()
}

/// The moves of the side to move that force a win within `plies` plies, this move included
/// (1: mate in one, 3: mate in two moves, …), found by plain minimax over the public rules
/// ([`Game::legal_moves`], [`Game::outcome`]): the attacker's move must leave the opponent
/// without a legal move at once, or be followed, for **every** legal reply, by a forced win
/// within `plies − 2` plies. A position drawn by the no-capture rule is no win; repetition is
/// not judged. With `checks_only`, every attacker move of a line longer than one ply must give
/// check (the lines of [`Xiangqi::mate_search`]); a mate in one may be any move.
/// Exponential: for tests and for verifying claimed mates.
pub fn mating_moves(pos: &Xiangqi, plies: u32, checks_only: bool) -> Vec<Move> {
    if plies == 0 || pos.outcome().is_some() {
        return Vec::new();
    }
    pos.legal_moves_vec()
        .into_iter()
        .filter(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            wins_after(&child, plies - 1, checks_only)
        })
        .collect()
}

/// The attacker has just moved into `child`: whether the attacker wins within `left` more
/// plies whatever the opponent replies. A line longer than one ply is a check line under
/// `checks_only`: its moves must give check.
fn wins_after(child: &Xiangqi, left: u32, checks_only: bool) -> bool {
    match child.outcome() {
        Some(Outcome::Loss) => return true,
        Some(_) => return false,
        None => {}
    }
    if left < 2 || (checks_only && !child.in_check()) {
        return false;
    }
    child.legal_moves_vec().into_iter().all(|r| {
        let mut next = child.clone();
        next.play_unchecked(r);
        if next.outcome().is_some() {
            // The attacker has no move, or the game is drawn by the no-capture rule.
            return false;
        }
        next.legal_moves_vec().into_iter().any(|m| {
            let mut c = next.clone();
            c.play_unchecked(m);
            (!checks_only || c.in_check()) && wins_after(&c, left - 2, checks_only)
        })
    })
}

/// The length in plies (odd) of the shortest forced win of the side to move found by
/// [`mating_moves`] within `max_plies`, or `None`.
pub fn shortest_mate(pos: &Xiangqi, max_plies: u32, checks_only: bool) -> Option<u32> {
    (1..=max_plies)
        .step_by(2)
        .find(|&n| !mating_moves(pos, n, checks_only).is_empty())
}
