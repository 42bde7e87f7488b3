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

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use alphazero_game::Side;

use crate::board::{Board, Rows, BLACK, EMPTY, WALL, WHITE};
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

/// Hashes the tables' keys, Zobrist hashes that are random already, as they are.
#[derive(Default, Clone, Copy)]
struct ZobristHasher(u64);

impl Hasher for ZobristHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

/// A table keyed by Zobrist hashes.
type ZobristBuild = BuildHasherDefault<ZobristHasher>;

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

/// The lists of one VCF node: the attacker's moves, the five points of one of them, the
/// defender's five points after its block, and per move its five points (count and first).
#[derive(Default)]
struct Lists {
    moves: Vec<(i32, i32)>,
    fives: Vec<(i32, i32)>,
    counter: Vec<(i32, i32)>,
    made: Vec<(usize, (i32, i32))>,
}

/// Scratch state of one VCF search.
struct Vcf {
    /// Lists of finished nodes, to be used again.
    spare: Vec<Lists>,
    board: Board,
    /// `board` along the other directions.
    lines: Lines,
    rule: Rule,
    attacker: u8,
    nodes: u32,
    budget: u32,
    failed: HashSet<u64, ZobristBuild>,
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

    /// Every empty point where a `color` stone would win now, in row order.
    pub(crate) fn five_points(&self, color: u8, rule: Rule, out: &mut Vec<(i32, i32)>) {
        out.clear();
        push_points(&self.five_rows(color, rule), self.n, out);
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
    /// order. Where `color` has no five point yet, a four is made in a window of five points
    /// with three `color` stones and two empty ones ([`Board::four_window_rows`]); where five
    /// or more wins for `color` every such point makes one, otherwise each is checked.
    pub(crate) fn four_moves(&mut self, color: u8, rule: Rule, out: &mut Vec<(i32, i32)>) {
        out.clear();
        let n = self.n;
        if self.five_rows(color, rule).iter().any(|&r| r != 0) {
            // An existing five point counts for every stone near it: the point-wise test.
            let own = self.stones[usize::from(color - 1)];
            for y in 0..n {
                let mut rows = 0u32;
                for r in (y - 2).max(0)..=(y + 2).min(n - 1) {
                    rows |= own[r as usize];
                }
                let spread = rows | rows << 1 | rows << 2 | rows >> 1 | rows >> 2;
                let occupied = self.stones[0][y as usize] | self.stones[1][y as usize];
                let mut free = spread & !occupied & self.full_row();
                while free != 0 {
                    let x = free.trailing_zeros() as i32;
                    free &= free - 1;
                    if self.makes_four(x, y, color, rule) && self.may_play(x, y, color, rule) {
                        out.push((x, y));
                    }
                }
            }
            return;
        }
        self.four_moves_without_five(color, rule, out);
    }

    /// [`Board::four_moves`] where `color` is known to have no five point (so every four is
    /// made in a window of [`Board::four_window_rows`]).
    pub(crate) fn four_moves_without_five(
        &mut self,
        color: u8,
        rule: Rule,
        out: &mut Vec<(i32, i32)>,
    ) {
        out.clear();
        let exact = match rule {
            Rule::Freestyle => false,
            Rule::Standard => true,
            Rule::Renju => color == BLACK,
        };
        let windows = self.four_window_rows(color);
        for (y, &row) in windows.iter().enumerate().take(self.n as usize) {
            let mut free = row;
            while free != 0 {
                let x = free.trailing_zeros() as i32;
                free &= free - 1;
                let y = y as i32;
                if (!exact || self.makes_four(x, y, color, rule))
                    && self.may_play(x, y, color, rule)
                {
                    out.push((x, y));
                }
            }
        }
    }
}

/// The points of `rows` (bits `0..n` of rows `0..n`), in row order, appended to `out`.
fn push_points(rows: &Rows, n: i32, out: &mut Vec<(i32, i32)>) {
    for (y, &row) in rows.iter().enumerate().take(n as usize) {
        let mut bits = row;
        while bits != 0 {
            let x = bits.trailing_zeros() as i32;
            bits &= bits - 1;
            out.push((x, y as i32));
        }
    }
}

/// The stones of a [`Board`] along its other three directions, kept beside it by the VCF so
/// that the line through a point is one shift away in every direction: `cols[c][x]` has bit
/// `y`, `diag[c][x − y + 19]` and `anti[c][x + y]` bit `x` for a stone of colour `c + 1` on
/// `(x, y)`.
#[derive(Clone, Copy)]
struct Lines {
    cols: [[u32; MAX_SIZE as usize]; 2],
    diag: [[u32; 2 * MAX_SIZE as usize]; 2],
    anti: [[u32; 2 * MAX_SIZE as usize]; 2],
}

impl Lines {
    fn new(board: &Board) -> Self {
        let mut lines = Lines {
            cols: [[0; MAX_SIZE as usize]; 2],
            diag: [[0; 2 * MAX_SIZE as usize]; 2],
            anti: [[0; 2 * MAX_SIZE as usize]; 2],
        };
        for c in [BLACK, WHITE] {
            for (y, &row) in board.stones[usize::from(c - 1)].iter().enumerate() {
                let mut bits = row;
                while bits != 0 {
                    let x = bits.trailing_zeros() as i32;
                    bits &= bits - 1;
                    lines.set(x, y as i32, c);
                }
            }
        }
        lines
    }

    #[inline]
    fn set(&mut self, x: i32, y: i32, color: u8) {
        let c = usize::from(color - 1);
        self.cols[c][x as usize] |= 1 << y;
        self.diag[c][(x - y + MAX_SIZE as i32 - 1) as usize] |= 1 << x;
        self.anti[c][(x + y) as usize] |= 1 << x;
    }

    #[inline]
    fn clear(&mut self, x: i32, y: i32, color: u8) {
        let c = usize::from(color - 1);
        self.cols[c][x as usize] &= !(1 << y);
        self.diag[c][(x - y + MAX_SIZE as i32 - 1) as usize] &= !(1 << x);
        self.anti[c][(x + y) as usize] &= !(1 << x);
    }

    /// The points at offsets −9..=9 from `(x, y)` along direction `DIR` (an index into
    /// [`DIRS`]) as bits 0..19 (bit 9 is `(x, y)` itself): the `color` stones, and the empty
    /// points; a point off the board is in neither.
    #[inline(always)]
    fn line_bits<const DIR: usize>(&self, board: &Board, x: i32, y: i32, color: u8) -> (u32, u32) {
        const MASK: u64 = (1 << 19) - 1;
        let (c, o) = (usize::from(color - 1), usize::from(other(color) - 1));
        let n = board.n;
        let span = |lo: i32, hi: i32| ((1u64 << (hi + 1)) - (1u64 << lo)) as u32;
        let (own, theirs, on_board, at) = match DIR {
            0 => (
                board.stones[c][y as usize],
                board.stones[o][y as usize],
                board.full_row(),
                x,
            ),
            1 => (
                self.cols[c][x as usize],
                self.cols[o][x as usize],
                board.full_row(),
                y,
            ),
            2 => {
                let d = x - y;
                let i = (d + MAX_SIZE as i32 - 1) as usize;
                let on = span(d.max(0), (n - 1 + d).min(n - 1));
                (self.diag[c][i], self.diag[o][i], on, x)
            }
            _ => {
                let s = x + y;
                let i = s as usize;
                let on = span((s - (n - 1)).max(0), s.min(n - 1));
                (self.anti[c][i], self.anti[o][i], on, x)
            }
        };
        let empty = on_board & !(own | theirs);
        (
            ((u64::from(own) << 9 >> at) & MASK) as u32,
            ((u64::from(empty) << 9 >> at) & MASK) as u32,
        )
    }

    /// The empty points on the four lines through `(x, y)` of `board` (within distance 4, up
    /// to the first point that is neither empty nor `color`) where a `color` stone would
    /// complete a winning row along that line, appended to `out` without duplicates (by
    /// direction, the lower side first, nearest first). With a `color` stone on `(x, y)`
    /// these are the five points it created.
    fn fives_through(
        &self,
        board: &Board,
        x: i32,
        y: i32,
        color: u8,
        rule: Rule,
        out: &mut Vec<(i32, i32)>,
    ) {
        let exact = match rule {
            Rule::Freestyle => false,
            Rule::Standard => true,
            Rule::Renju => color == BLACK,
        };
        if exact {
            self.fives_along::<0, true>(board, x, y, color, out);
            self.fives_along::<1, true>(board, x, y, color, out);
            self.fives_along::<2, true>(board, x, y, color, out);
            self.fives_along::<3, true>(board, x, y, color, out);
        } else {
            self.fives_along::<0, false>(board, x, y, color, out);
            self.fives_along::<1, false>(board, x, y, color, out);
            self.fives_along::<2, false>(board, x, y, color, out);
            self.fives_along::<3, false>(board, x, y, color, out);
        }
    }

    /// [`Lines::fives_through`] along direction `DIR` alone (`EXACT`: only exactly five
    /// wins for `color`).
    #[inline(always)]
    fn fives_along<const DIR: usize, const EXACT: bool>(
        &self,
        board: &Board,
        x: i32,
        y: i32,
        color: u8,
        out: &mut Vec<(i32, i32)>,
    ) {
        let (dx, dy) = DIRS[DIR];
        let (own, empty) = self.line_bits::<DIR>(board, x, y, color);
        let open = own | empty;
        // The points reached from (x, y) each way: up to 4, to the first closed one.
        let up = (!(open >> 10)).trailing_zeros().min(4);
        let down = (open << 23).leading_ones().min(4);
        let reach = (((1u32 << up) - 1) << 10) | (((1u32 << down) - 1) << (9 - down));
        let candidates = empty & reach;
        if candidates == 0 {
            return;
        }
        // b[k]: the k points before bit i are all own; a[k] those after.
        let (b1, a1) = (own << 1, own >> 1);
        let (b2, a2) = (b1 & own << 2, a1 & own >> 2);
        let (b3, a3) = (b2 & own << 3, a2 & own >> 3);
        let (b4, a4) = (b3 & own << 4, a3 & own >> 4);
        let five = if EXACT {
            let (b5, a5) = (b4 & own << 5, a4 & own >> 5);
            (!b1 & a4 & !a5)
                | (b1 & !b2 & a3 & !a4)
                | (b2 & !b3 & a2 & !a3)
                | (b3 & !b4 & a1 & !a2)
                | (b4 & !b5 & !a1)
        } else {
            a4 | (b1 & a3) | (b2 & a2) | (b3 & a1) | b4
        } & candidates;
        if five == 0 {
            return;
        }
        // The lower side nearest first (bits 8 down to 5), then the upper (10 up to 13).
        let mut below = five & 0x1FF;
        while below != 0 {
            let bit = 31 - below.leading_zeros() as i32;
            below &= !(1 << bit);
            let k = bit - 9;
            let q = (x + k * dx, y + k * dy);
            if !out.contains(&q) {
                out.push(q);
            }
        }
        let mut above = five >> 10;
        while above != 0 {
            let k = above.trailing_zeros() as i32 + 1;
            above &= above - 1;
            let q = (x + k * dx, y + k * dy);
            if !out.contains(&q) {
                out.push(q);
            }
        }
    }
}

impl Vcf {
    fn play(&mut self, x: i32, y: i32, color: u8) {
        self.board.set(x, y, color);
        self.lines.set(x, y, color);
        self.hash ^= key(color, x, y);
        self.nodes += 1;
    }

    fn undo(&mut self, x: i32, y: i32, color: u8) {
        self.board.clear(x, y);
        self.lines.clear(x, y, color);
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
        // Lists of this node, taken from (and given back to) the spare ones: no allocation
        // a node.
        let mut lists = self.spare.pop().unwrap_or_default();
        let found = self.search_with(defender_fives, depth, &mut lists);
        self.spare.push(lists);
        found
    }

    /// [`Vcf::search`] past its cut-offs, with `lists` to fill.
    fn search_with(
        &mut self,
        defender_fives: &[(i32, i32)],
        depth: u32,
        lists: &mut Lists,
    ) -> bool {
        let Lists {
            moves,
            fives,
            counter,
            made,
        } = lists;
        moves.clear();
        made.clear();
        let a = self.attacker;
        let d = other(a);
        let rule = self.rule;
        match defender_fives.len() {
            // The attacker's five points were all blocked on the way here.
            0 => self.board.four_moves_without_five(a, rule, moves),
            1 => {
                // The attacker must block; only a block that is itself a four continues.
                let (x, y) = defender_fives[0];
                if self.board.may_play(x, y, a, rule) && self.board.makes_four(x, y, a, rule) {
                    moves.push((x, y));
                }
            }
            _ => {}
        }
        // Per move (when there are several), in `made`: how many five points it makes, and
        // the first.
        if moves.len() > 1 {
            // A four that leaves two five points (or, renju, a block black may not play)
            // wins at once: those first, before any four that needs a longer line.
            let mut first_win = None;
            for (i, &(x, y)) in moves.iter().enumerate() {
                self.board.set(x, y, a);
                self.lines.set(x, y, a);
                fives.clear();
                self.lines.fives_through(&self.board, x, y, a, rule, fives);
                let wins = fives.len() >= 2
                    || (fives.len() == 1 && !self.board.may_play(fives[0].0, fives[0].1, d, rule));
                self.board.clear(x, y);
                self.lines.clear(x, y, a);
                made.push((fives.len(), fives.first().copied().unwrap_or_default()));
                if wins && first_win.is_none() {
                    first_win = Some(i);
                }
            }
            if let Some(i) = first_win {
                moves.swap(0, i);
                made.swap(0, i);
            }
        }
        let cut_before = self.cut;
        self.cut = false;
        for (i, &(x, y)) in moves.iter().enumerate() {
            self.play(x, y, a);
            // The board is as it was when `made` was filled.
            let (count, first) = match made.get(i) {
                Some(&m) => m,
                None => {
                    fives.clear();
                    self.lines.fives_through(&self.board, x, y, a, rule, fives);
                    (fives.len(), fives.first().copied().unwrap_or_default())
                }
            };
            let won = match count {
                0 => false,
                1 => {
                    let (bx, by) = first;
                    if !self.board.may_play(bx, by, d, rule) {
                        // Renju: black may not block on a forbidden point.
                        self.line.push(GomokuMove::new(x as u8, y as u8));
                        self.line.push(GomokuMove::new(bx as u8, by as u8));
                        true
                    } else {
                        self.play(bx, by, d);
                        counter.clear();
                        self.lines
                            .fives_through(&self.board, bx, by, d, rule, counter);
                        let start = self.line.len();
                        self.line.push(GomokuMove::new(x as u8, y as u8));
                        self.line.push(GomokuMove::new(bx as u8, by as u8));
                        let won = self.search(counter, depth + 2);
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
    vcf_with(&b, rule, attacker, budget, &defender)
}

/// [`vcf`] where neither side has a five point.
pub(crate) fn vcf_without_fives(
    board: &Board,
    rule: Rule,
    attacker: Side,
    budget: u32,
) -> (VcfResult, u32) {
    vcf_with(board, rule, attacker, budget, &[])
}

/// Stones of `board` hashed with the tables' keys.
fn board_hash(board: &Board) -> u64 {
    let mut hash = 0;
    for c in [BLACK, WHITE] {
        for (y, &row) in board.stones[usize::from(c - 1)].iter().enumerate() {
            let mut bits = row;
            while bits != 0 {
                let x = bits.trailing_zeros() as i32;
                bits &= bits - 1;
                hash ^= key(c, x, y as i32);
            }
        }
    }
    hash
}

/// [`vcf`] where the attacker has no five point and `defender` are the defender's.
fn vcf_with(
    board: &Board,
    rule: Rule,
    attacker: Side,
    budget: u32,
    defender: &[(i32, i32)],
) -> (VcfResult, u32) {
    let a = color_of(attacker);
    let b = *board;
    let hash = board_hash(&b);
    let mut s = Vcf {
        spare: Vec::new(),
        board: b,
        lines: Lines::new(&b),
        rule,
        attacker: a,
        nodes: 0,
        budget,
        failed: HashSet::default(),
        hash,
        line: Vec::new(),
        cut: false,
    };
    let result = if s.search(defender, 0) {
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
    /// Zobrist hash of `board` (the VCF table's keys).
    hash: u64,
    /// What is known of positions already searched (attacker to move), by hash: a transposed
    /// threat sequence is searched once.
    table: HashMap<u64, Known, ZobristBuild>,
}

/// A VCT table entry: the attacker wins with at most `won.0` threats by the move `won.1`, and
/// no win was found with at most `failed` threats (a search the budget did not cut).
#[derive(Clone, Copy, Default)]
struct Known {
    won: Option<(u32, GomokuMove)>,
    failed: Option<u32>,
}

impl Vct {
    fn set(&mut self, x: i32, y: i32, color: u8) {
        self.board.set(x, y, color);
        self.hash ^= key(color, x, y);
    }

    fn clear(&mut self, x: i32, y: i32, color: u8) {
        self.board.clear(x, y);
        self.hash ^= key(color, x, y);
    }

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

    /// How strongly a `color` stone on the empty point `(x, y)` threatens: over the four lines
    /// through it, the most `color` stones (itself included) in a five-point window that holds
    /// no opponent stone, 3 counting 1 and 4 counting 4 (0 when no line reaches three). Only
    /// moves of weight > 0 (a three or a four) are tried as threats, the heaviest first (a move
    /// that threatens a VCF otherwise is rare, and leaving attacker moves out never makes a
    /// proof wrong).
    fn threat_weight(&self, x: i32, y: i32, color: u8) -> u32 {
        let mut weight = 0;
        for &(dx, dy) in &DIRS {
            // cells[k] for k in 0..9: the points at offsets -4..=4 along the line.
            let mut cells = [WALL; 9];
            for (k, c) in cells.iter_mut().enumerate() {
                let o = k as i32 - 4;
                *c = if o == 0 {
                    color
                } else {
                    self.board.get(x + o * dx, y + o * dy)
                };
            }
            let mut most = 0;
            for start in 0..5 {
                let w = &cells[start..start + 5];
                if w.iter().all(|&c| c == color || c == EMPTY) {
                    most = most.max(w.iter().filter(|&&c| c == color).count());
                }
            }
            weight += match most {
                3 => 1,
                4.. => 4,
                _ => 0,
            };
        }
        weight
    }

    /// The attacker (to move) wins by threats within `depth` non-four threats: a VCF, or a
    /// move after which the attacker threatens a VCF and every defender reply near the
    /// stones still leaves a win of depth − 1. The winning first move is returned.
    fn search(&mut self, depth: u32, focus: Option<(i32, i32)>) -> Option<GomokuMove> {
        // A failure is only known for the same focus (it restricts the moves tried); a win
        // holds whatever the focus.
        let fail_key = focus.map_or(self.hash, |(x, y)| {
            self.hash ^ key(BLACK, x, y).rotate_left(17) ^ 0x5EED
        });
        let known = self.table.get(&self.hash).copied().unwrap_or_default();
        if let Some((d, mv)) = known.won {
            if d <= depth {
                return Some(mv);
            }
        }
        let failed = self.table.get(&fail_key).and_then(|k| k.failed);
        if failed.is_some_and(|d| d >= depth) {
            return None;
        }
        let found = self.search_uncached(depth, focus);
        match found {
            Some(mv) => {
                let entry = self.table.entry(self.hash).or_default();
                if entry.won.is_none_or(|(d, _)| depth < d) {
                    entry.won = Some((depth, mv));
                }
            }
            None if !self.cut => {
                let entry = self.table.entry(fail_key).or_default();
                entry.failed = Some(entry.failed.map_or(depth, |d| d.max(depth)));
            }
            None => {}
        }
        found
    }

    /// Whether `(x, y)` lies on one of the four lines through `(fx, fy)` within 4 points: a
    /// threat that can work with the one played before it (dependency-based search, Allis
    /// 1994). Leaving other attacker moves out never makes a proof wrong.
    fn shares_line(x: i32, y: i32, (fx, fy): (i32, i32)) -> bool {
        let (dx, dy) = (x - fx, y - fy);
        dx.abs() <= 4 && dy.abs() <= 4 && (dx == 0 || dy == 0 || dx.abs() == dy.abs())
    }

    fn search_uncached(&mut self, depth: u32, focus: Option<(i32, i32)>) -> Option<GomokuMove> {
        if let VcfResult::Win(line) = self.vcf(VCT_VCF_BUDGET) {
            return line.first().copied();
        }
        if depth == 0 || self.nodes >= self.budget {
            if depth > 0 {
                self.cut = true;
            }
            return None;
        }
        let a = color_of(self.attacker);
        let d = other(a);
        let mut fives = Vec::new();
        self.board.five_points(d, self.rule, &mut fives);
        if !fives.is_empty() {
            return None; // the attacker must block first: left to the VCF above
        }
        let mut candidates: Vec<(u32, (i32, i32))> = self
            .near_points(Some(a), a)
            .into_iter()
            .filter(|&p| focus.is_none_or(|f| Self::shares_line(p.0, p.1, f)))
            .map(|(x, y)| (self.threat_weight(x, y, a), (x, y)))
            .filter(|&(w, _)| w > 0)
            .collect();
        // Double threats first: they win soonest.
        candidates.sort_by_key(|&(w, _)| std::cmp::Reverse(w));
        for (_, (mx, my)) in candidates {
            if self.nodes >= self.budget {
                self.cut = true;
                return None;
            }
            self.set(mx, my, a);
            // A threat: with the defender passing, the attacker would win by VCF.
            let threat = match self.vcf(VCT_VCF_BUDGET) {
                VcfResult::Win(line) => Some(line),
                _ => None,
            };
            let mut refuted = threat.is_none();
            if let Some(line) = threat {
                self.board.five_points(a, self.rule, &mut fives);
                let replies = if fives.len() == 1 {
                    // A four: the block is the defender's only move (it has no five of its
                    // own, checked above, and the four gave it none).
                    fives.clone()
                } else {
                    // Replies on the threat's VCF line first: they refute most often.
                    let mut replies = self.near_points(None, d);
                    replies
                        .sort_by_key(|&(x, y)| !line.contains(&GomokuMove::new(x as u8, y as u8)));
                    replies
                };
                let touching = replies_touching(&self.board, self.rule, self.attacker, &line);
                for (rx, ry) in replies {
                    if let Some(rows) = &touching {
                        if rows[ry as usize] & (1 << rx) == 0 {
                            continue; // the same fours still win after this reply
                        }
                    }
                    self.set(rx, ry, d);
                    let on_line = line.contains(&GomokuMove::new(rx as u8, ry as u8));
                    // Off the line the same fours usually still win: checked by playing
                    // them, before any search.
                    let holds = (!on_line && {
                        let (wins, placed) =
                            line_still_wins(&mut self.board, self.rule, self.attacker, &line);
                        self.nodes += placed;
                        wins
                    }) || self.search(depth - 1, Some((mx, my))).is_some();
                    self.clear(rx, ry, d);
                    if !holds {
                        refuted = true;
                        break;
                    }
                }
            }
            self.clear(mx, my, a);
            if !refuted {
                return Some(GomokuMove::new(mx as u8, my as u8));
            }
        }
        None
    }
}

/// Plays the forced line `line` (a VCF: attacker fours and the defender's only blocks,
/// alternating, attacker first) on the board as it is now and checks that it still wins:
/// every attacker move is empty, legal and a four (or the block of the defender's single
/// five point, itself a four), the defender never has a five point of its own when it is
/// to move, and the line ends in two five points, a five, or a block the defender may not
/// play. A pure check of a forced sequence: `true` is a proof. The board is restored; also
/// returns the stones placed.
pub(crate) fn line_still_wins(
    board: &mut Board,
    rule: Rule,
    attacker: Side,
    line: &[GomokuMove],
) -> (bool, u32) {
    let a = color_of(attacker);
    let d = other(a);
    let mut placed: Vec<(i32, i32, u8)> = Vec::with_capacity(line.len());
    let mut fives = Vec::new();
    let mut result = false;
    let mut i = 0;
    while i < line.len() {
        board.five_points(a, rule, &mut fives);
        if !fives.is_empty() {
            result = true; // the attacker makes five now
            break;
        }
        board.five_points(d, rule, &mut fives);
        let (x, y) = (i32::from(line[i].x), i32::from(line[i].y));
        let must_block = match fives.len() {
            0 => None,
            1 => Some(fives[0]),
            _ => break, // the defender has two fives to make: the line fails
        };
        if must_block.is_some_and(|p| p != (x, y))
            || board.get(x, y) != EMPTY
            || !board.may_play(x, y, a, rule)
        {
            break;
        }
        board.set(x, y, a);
        placed.push((x, y, a));
        board.five_points(d, rule, &mut fives);
        if !fives.is_empty() {
            break; // the defender, to move, makes five
        }
        board.five_points(a, rule, &mut fives);
        match fives.len() {
            0 => break, // not a four
            1 => {
                let (bx, by) = fives[0];
                if !board.may_play(bx, by, d, rule) {
                    result = true; // renju: black may not block there
                    break;
                }
                board.set(bx, by, d);
                placed.push((bx, by, d));
                i += 2; // the line's next entry is this block
            }
            _ => {
                result = true; // two five points: the defender blocks one
                break;
            }
        }
    }
    for &(x, y, _) in placed.iter().rev() {
        board.clear(x, y);
    }
    (result, placed.len() as u32)
}

/// The defender replies that can stop `attacker`'s VCF `line` (the attacker to move on
/// `board`, the defender having just passed), as row bit sets; every other reply leaves the
/// line winning as it is. A defender stone can only take a point of the line, take a five
/// point of its last four, or give the defender a five point of its own: now (a four: a
/// [`Board::four_moves`] point) or later with one of its forced blocks (so within 4 points of a
/// block on one of its lines). `None` under renju, where a stone also changes which points are
/// forbidden for black, so no reply can be ruled out this way.
pub(crate) fn replies_touching(
    board: &Board,
    rule: Rule,
    attacker: Side,
    line: &[GomokuMove],
) -> Option<[u32; MAX_SIZE as usize]> {
    if rule == Rule::Renju {
        return None;
    }
    let n = board.n;
    let mut rows = [0u32; MAX_SIZE as usize];
    let mut mark = |x: i32, y: i32| {
        if (0..n).contains(&x) && (0..n).contains(&y) {
            rows[y as usize] |= 1 << x;
        }
    };
    for (i, mv) in line.iter().enumerate() {
        let (x, y) = (i32::from(mv.x), i32::from(mv.y));
        mark(x, y);
        // Defender blocks (odd entries) and the last attacker move (its five points): every
        // point on their lines within 4.
        if i % 2 == 1 || i + 1 == line.len() {
            for &(dx, dy) in &DIRS {
                for k in -4..=4 {
                    mark(x + k * dx, y + k * dy);
                }
            }
        }
    }
    let mut fours = Vec::new();
    let mut scratch = *board;
    scratch.four_moves(other(color_of(attacker)), rule, &mut fours);
    for (x, y) in fours {
        mark(x, y);
    }
    Some(rows)
}

/// Stones placed per VCF call inside the VCT.
const VCT_VCF_BUDGET: u32 = 200;

/// VCT (victory by continuous threats) for `attacker`, the attacker to move: a VCF, or a
/// move that makes a three or a four and threatens a VCF (one would follow if the defender
/// passed) such that after **every** defender reply within distance 2 of a stone the attacker
/// still wins, with at most `depth` such non-four threats. Defences farther than 2 from every
/// stone are not tried (they cannot touch the threat, but the proof is only as good as that
/// assumption). Positions reached by several threat orders are searched once (a table by
/// Zobrist hash). Returns the first move, or `None` when none was found within `budget` stones
/// placed (by the inner VCF searches and the replays of their lines); also the stones placed.
pub(crate) fn vct(
    board: &Board,
    rule: Rule,
    attacker: Side,
    depth: u32,
    budget: u32,
) -> (Option<GomokuMove>, u32) {
    let hash = board_hash(board);
    let mut s = Vct {
        board: *board,
        rule,
        attacker,
        nodes: 0,
        budget,
        cut: false,
        hash,
        table: HashMap::default(),
    };
    let mut found = None;
    // Iterative deepening: the fewest threats first.
    for d in 0..=depth {
        s.cut = false;
        found = s.search(d, None);
        if found.is_some() || s.nodes >= budget {
            break;
        }
    }
    (found, s.nodes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A board of `n`×`n` from `cells` (0..100 each): below `black_pct` black, the next 15
    /// white, the rest empty.
    fn board_of(n: u8, black_pct: u8, cells: &[u8]) -> Board {
        let mut b = Board::new(n);
        for y in 0..i32::from(n) {
            for x in 0..i32::from(n) {
                let c = cells[(y * 20 + x) as usize];
                if c < black_pct {
                    b.set(x, y, BLACK);
                } else if c < black_pct + 15 {
                    b.set(x, y, WHITE);
                }
            }
        }
        b
    }

    /// [`Lines::fives_through`] point by point along each ray.
    fn fives_through_reference(
        b: &Board,
        x: i32,
        y: i32,
        color: u8,
        rule: Rule,
    ) -> Vec<(i32, i32)> {
        let mut out = Vec::new();
        for &(dx, dy) in &DIRS {
            for s in [-1, 1] {
                for k in 1..=4 {
                    let (qx, qy) = (x + s * k * dx, y + s * k * dy);
                    match b.get(qx, qy) {
                        EMPTY => {
                            if b.wins_along(qx, qy, dx, dy, color, rule) && !out.contains(&(qx, qy))
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
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// The five points through a stone from its line bits are the ray-by-ray ones, in the
        /// same order.
        #[test]
        fn fives_through_matches_the_ray_scan(
            n in 5u8..=20,
            black_pct in 5u8..45,
            cells in prop::collection::vec(0u8..100, 400),
            r in 0usize..3,
        ) {
            let rule = [Rule::Freestyle, Rule::Standard, Rule::Renju][r];
            let b = board_of(n, black_pct, &cells);
            for y in 0..i32::from(n) {
                for x in 0..i32::from(n) {
                    let color = b.get(x, y);
                    if color == EMPTY {
                        continue;
                    }
                    let mut got = Vec::new();
                    Lines::new(&b).fives_through(&b, x, y, color, rule, &mut got);
                    prop_assert_eq!(got, fives_through_reference(&b, x, y, color, rule));
                }
            }
        }

        /// The whole-board masks give what the point-wise tests give, point for point.
        #[test]
        fn line_masks_match_the_pointwise_tests(
            n in 5u8..=20,
            black_pct in 5u8..45,
            cells in prop::collection::vec(0u8..100, 400),
            r in 0usize..3,
        ) {
            let rule = [Rule::Freestyle, Rule::Standard, Rule::Renju][r];
            let mut b = board_of(n, black_pct, &cells);
            let before = b;
            for color in [BLACK, WHITE] {
                let mut fives = Vec::new();
                b.five_points(color, rule, &mut fives);
                let mut fours = Vec::new();
                b.four_moves(color, rule, &mut fours);
                let (mut want_fives, mut want_fours) = (Vec::new(), Vec::new());
                for y in 0..i32::from(n) {
                    for x in 0..i32::from(n) {
                        if b.get(x, y) != EMPTY {
                            continue;
                        }
                        if b.wins_at(x, y, color, rule) {
                            want_fives.push((x, y));
                        }
                        // Where the side has a five point already, a stone far from its
                        // stones "makes a four" too: only points within distance 2 of one
                        // are moves.
                        let near = (-2..=2).any(|dy| {
                            (-2..=2).any(|dx| b.get(x + dx, y + dy) == color)
                        });
                        if near && b.makes_four(x, y, color, rule) && b.may_play(x, y, color, rule)
                        {
                            want_fours.push((x, y));
                        }
                    }
                }
                prop_assert_eq!(fives, want_fives, "five points of {}", color);
                prop_assert_eq!(fours, want_fours, "four moves of {}", color);
            }
            prop_assert_eq!(b, before);
        }
    }

    #[test]
    fn key_table_is_distinct() {
        let mut v = KEYS.to_vec();
        v.sort_unstable();
        v.dedup();
        assert_eq!(v.len(), KEYS.len());
    }
}
