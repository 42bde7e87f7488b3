//! Threat-space tactics: five points (where a stone would win now), the certified candidate
//! set of the search, and VCF — victory by continuous fours.
//!
//! A **four** is a move after which its player has a five point (an empty point that would
//! complete a winning row under the rule). Against a four the opponent has exactly one useful
//! reply, the block, unless they can make five themselves; a sequence of fours that ends in two
//! five points at once (or a block the defender may not play) is a forced win, a **VCF**. The
//! search here is the standard one (Allis, *Searching for Solutions in Games and Artificial
//! Intelligence*, 1994, ch. 4): depth-first over the attacker's fours, the defender's forced
//! reply, and the attacker's forced block of a counter-four, with a table of positions already
//! shown to fail, under a node budget.
//!
//! Renju: black's forbidden points (double three, double four, overline) are neither black
//! fours nor black blocks; a black stone that makes exactly five wins even on a point that
//! would otherwise be forbidden; a white four whose block point is forbidden for black wins.
//! Standard: only exactly five wins, for both sides.

use std::collections::HashSet;

use alphazero_game::Side;

use crate::board::{Board, BLACK, EMPTY, WHITE};
use crate::{GomokuMove, Rule, MAX_SIZE};

/// The four line directions: horizontal, vertical, diagonal, anti-diagonal.
const DIRS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

#[inline]
fn color_of(side: Side) -> u8 {
    match side {
        Side::First => BLACK,
        Side::Second => WHITE,
    }
}

#[inline]
fn other(color: u8) -> u8 {
    BLACK + WHITE - color
}

/// What [`Board::vcf`]-style searches report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VcfResult {
    /// The side to move wins by continuous fours: the attacker's moves and the defender's
    /// forced replies, alternating, starting with the attacker's first move. The last
    /// attacker move leaves two five points (or one the defender may not block), or makes five.
    Win(Vec<GomokuMove>),
    /// No VCF exists (the whole tree of fours was searched).
    NoWin,
    /// The node budget ran out before a VCF was found or refuted.
    Unknown,
}

/// Scratch state of one VCF search.
struct Vcf {
    board: Board,
    rule: Rule,
    attacker: u8,
    nodes: u32,
    budget: u32,
    failed: HashSet<u64>,
    hash: u64,
    line: Vec<GomokuMove>,
    /// Set when a subtree was cut by the budget (so "no win" is not a proof).
    cut: bool,
}

/// Zobrist keys for the VCF table: `[colour − 1][y · MAX_SIZE + x]`.
static KEYS: [u64; 2 * (MAX_SIZE as usize) * (MAX_SIZE as usize)] = alphazero_game::zobrist_table::<
    { 2 * (MAX_SIZE as usize) * (MAX_SIZE as usize) },
>(0x7AC7_01C5_0F0F_0001);

#[inline]
fn key(color: u8, x: i32, y: i32) -> u64 {
    KEYS[usize::from(color - 1) * (MAX_SIZE as usize * MAX_SIZE as usize)
        + y as usize * MAX_SIZE as usize
        + x as usize]
}

impl Board {
    /// Whether `color` may put a stone on the empty point `(x, y)` as an ordinary move under
    /// `rule`: always, except black's forbidden points under renju (a move that makes exactly
    /// five is never forbidden).
    #[inline]
    pub(crate) fn may_play(&mut self, x: i32, y: i32, color: u8, rule: Rule) -> bool {
        !(rule == Rule::Renju && color == BLACK && self.foul(x, y).is_some())
    }

    /// Whether a `color` stone on the empty point `(x, y)` completes a winning row along the
    /// one direction `(dx, dy)`.
    #[inline]
    fn wins_along(&self, x: i32, y: i32, dx: i32, dy: i32, color: u8, rule: Rule) -> bool {
        let exact = match rule {
            Rule::Freestyle => false,
            Rule::Standard => true,
            Rule::Renju => color == BLACK,
        };
        let mut len = 1;
        for s in [-1, 1] {
            let (mut cx, mut cy) = (x + s * dx, y + s * dy);
            while self.get(cx, cy) == color {
                len += 1;
                cx += s * dx;
                cy += s * dy;
            }
        }
        if exact {
            len == 5
        } else {
            len >= 5
        }
    }

    /// The empty points on the four lines through `(x, y)` (within distance 4) where a
    /// `color` stone would complete a winning row along that line, appended to `out` without
    /// duplicates. With a `color` stone on `(x, y)` these are the five points it created.
    fn fives_through(&self, x: i32, y: i32, color: u8, rule: Rule, out: &mut Vec<(i32, i32)>) {
        for &(dx, dy) in &DIRS {
            for s in [-1, 1] {
                for k in 1..=4 {
                    let (qx, qy) = (x + s * k * dx, y + s * k * dy);
                    match self.get(qx, qy) {
                        EMPTY => {
                            if self.wins_along(qx, qy, dx, dy, color, rule)
                                && !out.contains(&(qx, qy))
                            {
                                out.push((qx, qy));
                            }
                        }
                        c if c == color => {}
                        _ => break,
                    }
                }
            }
        }
    }

    /// Every empty point where a `color` stone would win now, in row order.
    pub(crate) fn five_points(&self, color: u8, rule: Rule, out: &mut Vec<(i32, i32)>) {
        out.clear();
        let n = self.n;
        let own = &self.stones[usize::from(color - 1)];
        for y in 0..n {
            // Only points within distance 4 of an own stone can win.
            let mut rows = 0u32;
            for r in (y - 4).max(0)..=(y + 4).min(n - 1) {
                rows |= own[r as usize];
            }
            if rows == 0 {
                continue;
            }
            let spread = rows | rows << 1 | rows << 2 | rows << 3 | rows << 4;
            let spread = spread | rows >> 1 | rows >> 2 | rows >> 3 | rows >> 4;
            let occupied = self.stones[0][y as usize] | self.stones[1][y as usize];
            let mut free = spread & !occupied & ((1u64 << n) - 1) as u32;
            while free != 0 {
                let x = free.trailing_zeros() as i32;
                free &= free - 1;
                if self.wins_at(x, y, color, rule) {
                    out.push((x, y));
                }
            }
        }
    }

    /// Whether a `color` stone on the empty point `(x, y)` makes a four in some direction
    /// (leaves at least one five point on a line through it). Cheap pre-test first: some line
    /// through the point must hold at least three `color` stones within distance 4.
    fn makes_four(&mut self, x: i32, y: i32, color: u8, rule: Rule) -> bool {
        let mut any = false;
        for &(dx, dy) in &DIRS {
            let mut count = 0;
            for s in [-1, 1] {
                for k in 1..=4 {
                    match self.get(x + s * k * dx, y + s * k * dy) {
                        c if c == color => count += 1,
                        EMPTY => {}
                        _ => break,
                    }
                }
            }
            if count >= 3 {
                any = true;
                break;
            }
        }
        if !any {
            return false;
        }
        self.set(x, y, color);
        let mut found = false;
        'dirs: for &(dx, dy) in &DIRS {
            for s in [-1, 1] {
                for k in 1..=4 {
                    let (qx, qy) = (x + s * k * dx, y + s * k * dy);
                    match self.get(qx, qy) {
                        EMPTY => {
                            if self.wins_along(qx, qy, dx, dy, color, rule) {
                                found = true;
                                break 'dirs;
                            }
                        }
                        c if c == color => {}
                        _ => break,
                    }
                }
            }
        }
        self.clear(x, y);
        found
    }

    /// The empty points where `color` makes a four (renju: not forbidden for black), in row
    /// order. Only points within distance 2 of a `color` stone can make a four.
    fn four_moves(&mut self, color: u8, rule: Rule, out: &mut Vec<(i32, i32)>) {
        out.clear();
        let n = self.n;
        let own = self.stones[usize::from(color - 1)];
        for y in 0..n {
            let mut rows = 0u32;
            for r in (y - 2).max(0)..=(y + 2).min(n - 1) {
                rows |= own[r as usize];
            }
            if rows == 0 {
                continue;
            }
            let spread = rows | rows << 1 | rows << 2 | rows >> 1 | rows >> 2;
            let occupied = self.stones[0][y as usize] | self.stones[1][y as usize];
            let mut free = spread & !occupied & ((1u64 << n) - 1) as u32;
            while free != 0 {
                let x = free.trailing_zeros() as i32;
                free &= free - 1;
                if self.makes_four(x, y, color, rule) && self.may_play(x, y, color, rule) {
                    out.push((x, y));
                }
            }
        }
    }
}

impl Vcf {
    fn play(&mut self, x: i32, y: i32, color: u8) {
        self.board.set(x, y, color);
        self.hash ^= key(color, x, y);
        self.nodes += 1;
    }

    fn undo(&mut self, x: i32, y: i32, color: u8) {
        self.board.clear(x, y);
        self.hash ^= key(color, x, y);
    }

    /// The attacker to move; the attacker has no five point; `defender_fives` are the
    /// defender's five points. Returns whether a VCF was found (its moves pushed on `line`).
    fn search(&mut self, defender_fives: &[(i32, i32)], depth: u32) -> bool {
        if self.nodes >= self.budget || depth > 120 {
            self.cut = true;
            return false;
        }
        if self.failed.contains(&self.hash) {
            return false;
        }
        let a = self.attacker;
        let d = other(a);
        let rule = self.rule;
        let mut moves = Vec::new();
        match defender_fives.len() {
            0 => self.board.four_moves(a, rule, &mut moves),
            1 => {
                // The attacker must block; only a block that is itself a four continues.
                let (x, y) = defender_fives[0];
                if self.board.may_play(x, y, a, rule) && self.board.makes_four(x, y, a, rule) {
                    moves.push((x, y));
                }
            }
            _ => {}
        }
        let cut_before = self.cut;
        self.cut = false;
        let mut fives = Vec::new();
        let mut counter = Vec::new();
        for &(x, y) in &moves {
            self.play(x, y, a);
            fives.clear();
            self.board.fives_through(x, y, a, rule, &mut fives);
            let won = match fives.len() {
                0 => false,
                1 => {
                    let (bx, by) = fives[0];
                    if !self.board.may_play(bx, by, d, rule) {
                        // Renju: black may not block on a forbidden point.
                        self.line.push(GomokuMove::new(x as u8, y as u8));
                        self.line.push(GomokuMove::new(bx as u8, by as u8));
                        true
                    } else {
                        self.play(bx, by, d);
                        counter.clear();
                        self.board.fives_through(bx, by, d, rule, &mut counter);
                        let start = self.line.len();
                        self.line.push(GomokuMove::new(x as u8, y as u8));
                        self.line.push(GomokuMove::new(bx as u8, by as u8));
                        let c = counter.clone();
                        let won = self.search(&c, depth + 2);
                        if !won {
                            self.line.truncate(start);
                        }
                        self.undo(bx, by, d);
                        won
                    }
                }
                _ => {
                    self.line.push(GomokuMove::new(x as u8, y as u8));
                    true
                }
            };
            self.undo(x, y, a);
            if won {
                self.cut |= cut_before;
                return true;
            }
        }
        if !self.cut {
            self.failed.insert(self.hash);
        }
        self.cut |= cut_before;
        false
    }
}

/// VCF for `attacker` on `board` (the attacker to move), at most `budget` stones placed;
/// also returns the stones placed (the search's nodes).
pub(crate) fn vcf(board: &Board, rule: Rule, attacker: Side, budget: u32) -> (VcfResult, u32) {
    let a = color_of(attacker);
    let d = other(a);
    let b = *board;
    let mut fives = Vec::new();
    b.five_points(a, rule, &mut fives);
    if let Some(&(x, y)) = fives.first() {
        return (VcfResult::Win(vec![GomokuMove::new(x as u8, y as u8)]), 0);
    }
    let mut defender = Vec::new();
    b.five_points(d, rule, &mut defender);
    let mut hash = 0;
    for y in 0..b.n {
        for x in 0..b.n {
            let c = b.get(x, y);
            if c != EMPTY {
                hash ^= key(c, x, y);
            }
        }
    }
    let mut s = Vcf {
        board: b,
        rule,
        attacker: a,
        nodes: 0,
        budget,
        failed: HashSet::new(),
        hash,
        line: Vec::new(),
        cut: false,
    };
    let result = if s.search(&defender, 0) {
        VcfResult::Win(std::mem::take(&mut s.line))
    } else if s.cut {
        VcfResult::Unknown
    } else {
        VcfResult::NoWin
    };
    (result, s.nodes)
}

/// Scratch state of one VCT search: the board, the stones placed by every VCF inside it.
struct Vct {
    board: Board,
    rule: Rule,
    attacker: Side,
    nodes: u32,
    budget: u32,
    cut: bool,
}

impl Vct {
    fn vcf(&mut self, budget: u32) -> VcfResult {
        let left = self.budget.saturating_sub(self.nodes).min(budget);
        if left == 0 {
            self.cut = true;
            return VcfResult::Unknown;
        }
        let (r, n) = vcf(&self.board, self.rule, self.attacker, left);
        self.nodes += n.max(1);
        if r == VcfResult::Unknown {
            self.cut = true;
        }
        r
    }

    /// Empty points within distance 2 of a stone of `colour` (or of any stone when `None`),
    /// in row order; renju: black's forbidden points are left out for black.
    fn near_points(&mut self, colour: Option<u8>, mover: u8) -> Vec<(i32, i32)> {
        let n = self.board.n;
        let mut out = Vec::new();
        for y in 0..n {
            let mut rows = 0u32;
            for r in (y - 2).max(0)..=(y + 2).min(n - 1) {
                rows |= match colour {
                    Some(c) => self.board.stones[usize::from(c - 1)][r as usize],
                    None => self.board.stones[0][r as usize] | self.board.stones[1][r as usize],
                };
            }
            let spread = rows | rows << 1 | rows << 2 | rows >> 1 | rows >> 2;
            let occupied = self.board.stones[0][y as usize] | self.board.stones[1][y as usize];
            let mut free = spread & !occupied & ((1u64 << n) - 1) as u32;
            while free != 0 {
                let x = free.trailing_zeros() as i32;
                free &= free - 1;
                if self.board.may_play(x, y, mover, self.rule) {
                    out.push((x, y));
                }
            }
        }
        out
    }

    /// The attacker (to move) wins by threats within `depth` non-four threats: a VCF, or a
    /// move after which the attacker threatens a VCF and every defender reply near the
    /// stones still leaves a win of depth − 1. The winning first move is returned.
    fn search(&mut self, depth: u32) -> Option<GomokuMove> {
        if let VcfResult::Win(line) = self.vcf(VCT_VCF_BUDGET) {
            return line.first().copied();
        }
        if depth == 0 || self.nodes >= self.budget {
            return None;
        }
        let a = color_of(self.attacker);
        let d = other(a);
        let mut fives = Vec::new();
        self.board.five_points(d, self.rule, &mut fives);
        if !fives.is_empty() {
            return None; // the attacker must block first: left to the VCF above
        }
        for (mx, my) in self.near_points(Some(a), a) {
            if self.nodes >= self.budget {
                self.cut = true;
                return None;
            }
            self.board.set(mx, my, a);
            // A threat: with the defender passing, the attacker would win by VCF.
            let threat = match self.vcf(VCT_VCF_BUDGET) {
                VcfResult::Win(line) => Some(line),
                _ => None,
            };
            let mut refuted = threat.is_none();
            if let Some(line) = threat {
                // Replies on the threat's VCF line first: they refute most often.
                let mut replies = self.near_points(None, d);
                replies.sort_by_key(|&(x, y)| !line.contains(&GomokuMove::new(x as u8, y as u8)));
                for (rx, ry) in replies {
                    self.board.set(rx, ry, d);
                    let holds = self.search(depth - 1).is_some();
                    self.board.clear(rx, ry);
                    if !holds {
                        refuted = true;
                        break;
                    }
                }
            }
            self.board.clear(mx, my);
            if !refuted {
                return Some(GomokuMove::new(mx as u8, my as u8));
            }
        }
        None
    }
}

/// Stones placed per VCF call inside the VCT.
const VCT_VCF_BUDGET: u32 = 200;

/// VCT (victory by continuous threats) for `attacker`, the attacker to move: a VCF, or a
/// move that threatens a VCF (a three, or any move after which a VCF would follow if the
/// defender passed) such that after **every** defender reply within distance 2 of a stone
/// the attacker still wins, with at most `depth` such non-four threats. Defences farther than
/// 2 from every stone are not tried (they cannot touch the threat, but the proof is only as
/// good as that assumption). Returns the first move, or `None` when none was found within
/// `budget` stones placed by the inner VCF searches; also the stones placed.
pub(crate) fn vct(
    board: &Board,
    rule: Rule,
    attacker: Side,
    depth: u32,
    budget: u32,
) -> (Option<GomokuMove>, u32) {
    let mut s = Vct {
        board: *board,
        rule,
        attacker,
        nodes: 0,
        budget,
        cut: false,
    };
    let mut found = None;
    // Iterative deepening: the fewest threats first.
    for d in 0..=depth {
        found = s.search(d);
        if found.is_some() || s.nodes >= budget {
            break;
        }
    }
    let _ = s.cut;
    (found, s.nodes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_table_is_distinct() {
        let mut v = KEYS.to_vec();
        v.sort_unstable();
        v.dedup();
        assert_eq!(v.len(), KEYS.len());
    }
}
