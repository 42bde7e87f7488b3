//! The fixed action space: every geometrically possible from→to move of any piece.

use crate::types::{Move, Square, NUM_SQUARES};
use std::sync::OnceLock;

/// Size of the action space: 1530 orthogonal line moves (chariot, cannon, general, soldier),
/// 508 horse moves, 32 elephant moves and 16 advisor moves.
pub const NUM_ACTIONS: usize = 2086;

const NONE: u16 = u16::MAX;

pub(crate) struct ActionTable {
    moves: Vec<Move>,
    index: Vec<u16>, // from * 90 + to -> action or NONE
    mirror: Vec<u16>,
}

fn build() -> ActionTable {
    let advisor_pts = [(3, 0), (5, 0), (4, 1), (3, 2), (5, 2)];
    let elephant_pts = [(2, 0), (6, 0), (0, 2), (4, 2), (8, 2), (2, 4), (6, 4)];
    let both = |pts: &[(i32, i32)]| -> Vec<(i32, i32)> {
        pts.iter()
            .flat_map(|&(f, r)| [(f, r), (8 - f, 9 - r)])
            .collect()
    };
    let advisors = both(&advisor_pts);
    let elephants = both(&elephant_pts);
    let mut moves = Vec::new();
    for from in 0..NUM_SQUARES {
        let (f, r) = ((from % 9) as i32, (from / 9) as i32);
        for to in 0..NUM_SQUARES {
            if to == from {
                continue;
            }
            let (tf, tr) = ((to % 9) as i32, (to / 9) as i32);
            let (df, dr) = ((tf - f).abs(), (tr - r).abs());
            let line = df == 0 || dr == 0;
            let horse = (df == 1 && dr == 2) || (df == 2 && dr == 1);
            let advisor = df == 1
                && dr == 1
                && advisors.contains(&(f, r))
                && advisors.contains(&(tf, tr))
                && (r <= 4) == (tr <= 4);
            let elephant = df == 2
                && dr == 2
                && elephants.contains(&(f, r))
                && elephants.contains(&(tf, tr))
                && (r <= 4) == (tr <= 4);
            if line || horse || advisor || elephant {
                moves.push(Move::new(
                    Square::from_index_unchecked(from),
                    Square::from_index_unchecked(to),
                ));
            }
        }
    }
    let mut index = vec![NONE; NUM_SQUARES * NUM_SQUARES];
    for (i, m) in moves.iter().enumerate() {
        index[m.from.index() * NUM_SQUARES + m.to.index()] = i as u16;
    }
    let mirror = moves
        .iter()
        .map(|m| {
            let mm = m.mirror();
            index[mm.from.index() * NUM_SQUARES + mm.to.index()]
        })
        .collect();
    ActionTable {
        moves,
        index,
        mirror,
    }
}

pub(crate) fn table() -> &'static ActionTable {
    static T: OnceLock<ActionTable> = OnceLock::new();
    T.get_or_init(build)
}

/// The action index of a move in Red's orientation (no rotation), if it is in the space.
pub(crate) fn index_of(m: Move) -> Option<usize> {
    let i = table().index[m.from.index() * NUM_SQUARES + m.to.index()];
    (i != NONE).then_some(i as usize)
}

/// The move (Red's orientation) of an action index.
pub(crate) fn move_of(a: usize) -> Option<Move> {
    table().moves.get(a).copied()
}

/// The left-right mirror image of an action index (identity for out-of-range indices).
pub(crate) fn mirror_action(a: usize) -> usize {
    table().mirror.get(a).map_or(a, |&i| i as usize)
}
