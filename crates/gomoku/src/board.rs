//! Row bitboards, line scans, wins and renju forbidden-move detection.

use crate::{Foul, Rule, MAX_SIZE};

pub(crate) const EMPTY: u8 = 0;
pub(crate) const BLACK: u8 = 1;
pub(crate) const WHITE: u8 = 2;
pub(crate) const WALL: u8 = 3;

/// The four line directions: horizontal, vertical, diagonal, anti-diagonal.
const DIRS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// Stones as one `u32` bit row per colour: bit `x` of `stones[c][y]` is set when colour `c`
/// (0 black, 1 white) has a stone at column `x`, row `y`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Board {
    pub(crate) n: i32,
    pub(crate) stones: [[u32; MAX_SIZE as usize]; 2],
}

impl Board {
    pub(crate) fn new(n: u8) -> Self {
        Board {
            n: i32::from(n),
            stones: [[0; MAX_SIZE as usize]; 2],
        }
    }

    /// The cell at `(x, y)`: `EMPTY`, `BLACK`, `WHITE` or `WALL` off the board.
    #[inline]
    pub(crate) fn get(&self, x: i32, y: i32) -> u8 {
        if x < 0 || y < 0 || x >= self.n || y >= self.n {
            return WALL;
        }
        let bit = 1u32 << x;
        let y = y as usize;
        if self.stones[0][y] & bit != 0 {
            BLACK
        } else if self.stones[1][y] & bit != 0 {
            WHITE
        } else {
            EMPTY
        }
    }

    /// Puts a stone of `color` (`BLACK`/`WHITE`) on an on-board point.
    #[inline]
    pub(crate) fn set(&mut self, x: i32, y: i32, color: u8) {
        self.stones[usize::from(color - 1)][y as usize] |= 1 << x;
    }

    /// Empties an on-board point.
    #[inline]
    pub(crate) fn clear(&mut self, x: i32, y: i32) {
        self.stones[0][y as usize] &= !(1 << x);
        self.stones[1][y as usize] &= !(1 << x);
    }

    /// Number of consecutive `color` stones starting one step from `(x, y)` in `(dx, dy)`.
    #[inline]
    fn run(&self, x: i32, y: i32, dx: i32, dy: i32, color: u8) -> i32 {
        let mut k = 0;
        let (mut cx, mut cy) = (x + dx, y + dy);
        while self.get(cx, cy) == color {
            k += 1;
            cx += dx;
            cy += dy;
        }
        k
    }

    /// Whether a `color` stone at `(x, y)` (placed or not) completes a winning row under `rule`.
    pub(crate) fn wins_at(&self, x: i32, y: i32, color: u8, rule: Rule) -> bool {
        let exact = match rule {
            Rule::Freestyle => false,
            Rule::Standard => true,
            Rule::Renju => color == BLACK,
        };
        DIRS.iter().any(|&(dx, dy)| {
            let len = 1 + self.run(x, y, dx, dy, color) + self.run(x, y, -dx, -dy, color);
            if exact {
                len == 5
            } else {
                len >= 5
            }
        })
    }

    /// Cheap necessary condition for a black foul at `(x, y)`: two directions with at least two
    /// black stones within distance 4, or one direction with at least four.
    /// Counts on the row bitboards, `(x, y)` on the board; white stones are not looked at.
    #[inline]
    fn may_be_foul(&self, x: i32, y: i32) -> bool {
        let black = &self.stones[0];
        // Horizontal: bits x-4..=x+4 of the row (the point itself is empty).
        let row = u64::from(black[y as usize]) << 4;
        let mut count = [(row >> x & 0x1FF).count_ones(), 0, 0, 0];
        // Other directions: one bit per row y+k; columns shifted by 4 so x-4 >= 0.
        for k in (-4..=4).filter(|&k| k != 0) {
            let r = y + k;
            if r < 0 || r >= self.n {
                continue;
            }
            let bits = u64::from(black[r as usize]) << 4;
            count[1] += (bits >> (x + 4) & 1) as u32;
            count[2] += (bits >> (x + k + 4) & 1) as u32;
            count[3] += (bits >> (x - k + 4) & 1) as u32;
        }
        count.iter().any(|&c| c >= 4) || count.iter().filter(|&&c| c >= 2).count() >= 2
    }

    /// The renju foul a black stone at the empty point `(x, y)` would commit, if any.
    ///
    /// Five takes precedence over every foul. Otherwise overline, then double four (two fours,
    /// also on one line), then double three, where a three only counts if one more
    /// non-forbidden black stone turns it into a straight four (checked recursively).
    /// `self` is restored before returning.
    pub(crate) fn foul(&mut self, x: i32, y: i32) -> Option<Foul> {
        if self.get(x, y) != EMPTY || !self.may_be_foul(x, y) {
            return None;
        }
        self.set(x, y, BLACK);
        let foul = self.foul_placed(x, y);
        self.clear(x, y);
        foul
    }

    /// [`Board::foul`] with the black stone already on `(x, y)`.
    fn foul_placed(&mut self, x: i32, y: i32) -> Option<Foul> {
        let mut left = [0i32; 4];
        let mut right = [0i32; 4];
        let mut overline = false;
        for (i, &(dx, dy)) in DIRS.iter().enumerate() {
            left[i] = self.run(x, y, -dx, -dy, BLACK);
            right[i] = self.run(x, y, dx, dy, BLACK);
            let len = 1 + left[i] + right[i];
            if len == 5 {
                return None;
            }
            overline |= len >= 6;
        }
        if overline {
            return Some(Foul::Overline);
        }

        let mut fours = 0;
        let mut has_four = [false; 4];
        for (i, &(dx, dy)) in DIRS.iter().enumerate() {
            let len = 1 + left[i] + right[i];
            let (ax, ay) = (x - (left[i] + 1) * dx, y - (left[i] + 1) * dy);
            let (bx, by) = (x + (right[i] + 1) * dx, y + (right[i] + 1) * dy);
            let fa = self.get(ax, ay) == EMPTY && len + 1 + self.run(ax, ay, -dx, -dy, BLACK) == 5;
            let fb = self.get(bx, by) == EMPTY && len + 1 + self.run(bx, by, dx, dy, BLACK) == 5;
            let n = match (fa, fb) {
                // Both ends of a straight four complete the same four.
                (true, true) if len == 4 => 1,
                (true, true) => 2,
                (true, false) | (false, true) => 1,
                (false, false) => 0,
            };
            has_four[i] = n > 0;
            fours += n;
        }
        if fours >= 2 {
            return Some(Foul::DoubleFour);
        }

        let mut threes = 0;
        for (i, &(dx, dy)) in DIRS.iter().enumerate() {
            let len = 1 + left[i] + right[i];
            if has_four[i] || len > 3 {
                continue;
            }
            if self.is_three(x, y, dx, dy, left[i], right[i]) {
                threes += 1;
                if threes >= 2 {
                    return Some(Foul::DoubleThree);
                }
            }
        }
        None
    }

    /// Whether the black run through `(x, y)` (extending `left`/`right` stones each way along
    /// `(dx, dy)`) is a real three: one more black stone next to it makes a straight four
    /// (four in a row, both ends empty, each end completing exactly five), and that stone is
    /// not itself forbidden.
    fn is_three(&mut self, x: i32, y: i32, dx: i32, dy: i32, left: i32, right: i32) -> bool {
        let len = 1 + left + right;
        let (ax, ay) = (x - (left + 1) * dx, y - (left + 1) * dy);
        let (bx, by) = (x + (right + 1) * dx, y + (right + 1) * dy);
        for side in [-1, 1] {
            let (qx, qy) = if side < 0 { (ax, ay) } else { (bx, by) };
            if self.get(qx, qy) != EMPTY {
                continue;
            }
            let beyond = self.run(qx, qy, side * dx, side * dy, BLACK);
            if len + 1 + beyond != 4 {
                continue;
            }
            // Ends of the four that q would make.
            let (e1x, e1y, e2x, e2y) = if side < 0 {
                (qx - (beyond + 1) * dx, qy - (beyond + 1) * dy, bx, by)
            } else {
                (ax, ay, qx + (beyond + 1) * dx, qy + (beyond + 1) * dy)
            };
            let straight = self.get(e1x, e1y) == EMPTY
                && self.get(e2x, e2y) == EMPTY
                && self.get(e1x - dx, e1y - dy) != BLACK
                && self.get(e2x + dx, e2y + dy) != BLACK;
            if straight && self.foul(qx, qy).is_none() {
                return true;
            }
        }
        false
    }
}

/// A whole-board bit mask, one `u32` row per `y` as in [`Board::stones`].
pub(crate) type Rows = [u32; MAX_SIZE as usize];

/// `m` moved one step along `(DX, DY)`: bit `(x, y)` of the result is bit `(x − DX, y − DY)`
/// of `m`, 0 where that point is off the rows; bits at or above `full`'s width are cleared, so
/// that no later step brings points from off the board back on.
#[inline(always)]
fn step<const N: usize, const DX: i32, const DY: i32>(m: &[u32; N], full: u32) -> [u32; N] {
    let mut out = [0u32; N];
    let shift = |r: u32| {
        (match DX {
            1 => r << 1,
            -1 => r >> 1,
            _ => r,
        }) & full
    };
    match DY {
        1 => {
            for y in 1..N {
                out[y] = shift(m[y - 1]);
            }
        }
        -1 => {
            for y in 0..N - 1 {
                out[y] = shift(m[y + 1]);
            }
        }
        _ => {
            for y in 0..N {
                out[y] = shift(m[y]);
            }
        }
    }
    out
}

#[inline(always)]
fn and<const N: usize>(a: &[u32; N], b: &[u32; N]) -> [u32; N] {
    std::array::from_fn(|y| a[y] & b[y])
}

/// The five points of `own` along `(DX, DY)` (see [`Board::five_rows`]), empty or not.
#[inline(always)]
fn five_dir<const N: usize, const DX: i32, const DY: i32, const BX: i32, const BY: i32>(
    own: &[u32; N],
    full: u32,
    exact: bool,
) -> [u32; N] {
    // before[k]: the k points before (x, y) along the direction are all own; after[k] the same
    // for the k points after (BX, BY = −DX, −DY).
    let mut before = [[u32::MAX; N]; 6];
    let mut after = [[u32::MAX; N]; 6];
    before[1] = step::<N, DX, DY>(own, full);
    after[1] = step::<N, BX, BY>(own, full);
    let last = if exact { 5 } else { 4 };
    for k in 2..=last {
        before[k] = and(&before[1], &step::<N, DX, DY>(&before[k - 1], full));
        after[k] = and(&after[1], &step::<N, BX, BY>(&after[k - 1], full));
    }
    std::array::from_fn(|y| {
        let mut f = 0;
        for i in 0..=4 {
            f |= if exact {
                before[i][y] & !before[i + 1][y] & after[4 - i][y] & !after[5 - i][y]
            } else {
                before[i][y] & after[4 - i][y]
            };
        }
        f
    })
}

/// The points along `(DX, DY)` in a window of five with exactly three `own` points and the
/// other two in `open` ∖ `own` (see [`Board::four_window_rows`]), empty or not.
#[inline(always)]
fn four_window_dir<const N: usize, const DX: i32, const DY: i32, const BX: i32, const BY: i32>(
    own: &[u32; N],
    open: &[u32; N],
    full: u32,
) -> [u32; N] {
    // Windows by their first point s: s + k·(DX, DY) for k in 0..5; o[k] and f[k] at s are
    // the point s + k·(DX, DY).
    let mut o = [*own; 5];
    let mut f = [*open; 5];
    for k in 1..5 {
        o[k] = step::<N, BX, BY>(&o[k - 1], full);
        f[k] = step::<N, BX, BY>(&f[k - 1], full);
    }
    let windows: [u32; N] = std::array::from_fn(|y| {
        // A bit-sliced count of the five own bits: three exactly.
        let (a, b, c, d, e) = (o[0][y], o[1][y], o[2][y], o[3][y], o[4][y]);
        let s1 = a ^ b ^ c;
        let c1 = (a & b) | (c & (a ^ b));
        let s2 = d ^ e;
        let c2 = d & e;
        let bit0 = s1 ^ s2;
        let carry = s1 & s2;
        let bit1 = c1 ^ c2 ^ carry;
        let bit2 = (c1 & c2) | (carry & (c1 ^ c2));
        let clean = f[0][y] & f[1][y] & f[2][y] & f[3][y] & f[4][y];
        clean & bit0 & bit1 & !bit2
    });
    let mut found = windows;
    let mut w = windows;
    for _ in 1..5 {
        w = step::<N, DX, DY>(&w, full);
        for y in 0..N {
            found[y] |= w[y];
        }
    }
    found
}

/// A board of at most 15 rows as one 256-bit mask: point `(x, y)` is bit `16·y + x` (bit `i`
/// of word `i / 64`). Column 15 is never on the board, so that a shift by a whole line
/// direction (1, 16, 17 or 15 bits) brings in no point from the far side of a row.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Wide([u64; 4]);

impl Wide {
    #[inline(always)]
    fn from_rows(rows: &Rows) -> Wide {
        Wide(std::array::from_fn(|w| {
            (0..4).fold(0u64, |acc, r| {
                acc | u64::from(rows[4 * w + r] & 0xFFFF) << (16 * r)
            })
        }))
    }

    #[inline(always)]
    fn to_rows(self) -> Rows {
        let mut out = [0u32; MAX_SIZE as usize];
        for (y, o) in out.iter_mut().enumerate().take(16) {
            *o = ((self.0[y / 4] >> (16 * (y % 4))) & 0xFFFF) as u32;
        }
        out
    }

    #[inline(always)]
    fn and(self, o: Wide) -> Wide {
        Wide(std::array::from_fn(|i| self.0[i] & o.0[i]))
    }

    #[inline(always)]
    fn or(self, o: Wide) -> Wide {
        Wide(std::array::from_fn(|i| self.0[i] | o.0[i]))
    }

    #[inline(always)]
    fn xor(self, o: Wide) -> Wide {
        Wide(std::array::from_fn(|i| self.0[i] ^ o.0[i]))
    }

    #[inline(always)]
    fn and_not(self, o: Wide) -> Wide {
        Wide(std::array::from_fn(|i| self.0[i] & !o.0[i]))
    }

    /// Every bit moved `k` places up (`k` in 1..64), zeros coming in.
    #[inline(always)]
    fn up(self, k: u32) -> Wide {
        let w = self.0;
        Wide([
            w[0] << k,
            w[1] << k | w[0] >> (64 - k),
            w[2] << k | w[1] >> (64 - k),
            w[3] << k | w[2] >> (64 - k),
        ])
    }

    /// Every bit moved `k` places down (`k` in 1..64), zeros coming in.
    #[inline(always)]
    fn down(self, k: u32) -> Wide {
        let w = self.0;
        Wide([
            w[0] >> k | w[1] << (64 - k),
            w[1] >> k | w[2] << (64 - k),
            w[2] >> k | w[3] << (64 - k),
            w[3] >> k,
        ])
    }

    /// One step along direction `D` (0..4: +x, +y, +x+y, +x−y) forward (`fwd`) or back: bit
    /// `(x, y)` of the result is bit `(x, y) − step` of `self`, within `on` (the board).
    #[inline(always)]
    fn step<const D: usize>(self, fwd: bool, on: Wide) -> Wide {
        let k = [1, 16, 17, 15][D];
        // +x−y is 1 − 16 bits: down by 15 forward.
        let moved = match (D == 3, fwd) {
            (false, true) | (true, false) => self.up(k),
            (false, false) | (true, true) => self.down(k),
        };
        moved.and(on)
    }
}

/// [`Board::five_rows`] along direction `D` on a [`Wide`] board.
#[inline(always)]
fn five_dir_wide<const D: usize>(own: Wide, on: Wide, exact: bool) -> Wide {
    let all = Wide([u64::MAX; 4]);
    let mut before = [all; 6];
    let mut after = [all; 6];
    before[1] = own.step::<D>(true, on);
    after[1] = own.step::<D>(false, on);
    let last = if exact { 5 } else { 4 };
    for k in 2..=last {
        before[k] = before[1].and(before[k - 1].step::<D>(true, on));
        after[k] = after[1].and(after[k - 1].step::<D>(false, on));
    }
    let mut f = Wide([0; 4]);
    for i in 0..=4 {
        f = f.or(if exact {
            before[i]
                .and_not(before[i + 1])
                .and(after[4 - i].and_not(after[5 - i]))
        } else {
            before[i].and(after[4 - i])
        });
    }
    f
}

/// [`Board::four_window_rows`] along direction `D` on a [`Wide`] board.
#[inline(always)]
fn four_window_dir_wide<const D: usize>(own: Wide, open: Wide, on: Wide) -> Wide {
    // Windows by their first point s: o[k], f[k] at s are the point s + k steps.
    let mut o = [own; 5];
    let mut f = [open; 5];
    for k in 1..5 {
        o[k] = o[k - 1].step::<D>(false, on);
        f[k] = f[k - 1].step::<D>(false, on);
    }
    let (a, b, c, d, e) = (o[0], o[1], o[2], o[3], o[4]);
    let s1 = a.xor(b).xor(c);
    let c1 = a.and(b).or(c.and(a.xor(b)));
    let s2 = d.xor(e);
    let c2 = d.and(e);
    let bit0 = s1.xor(s2);
    let carry = s1.and(s2);
    let bit1 = c1.xor(c2).xor(carry);
    let bit2 = c1.and(c2).or(carry.and(c1.xor(c2)));
    let clean = f[0].and(f[1]).and(f[2]).and(f[3]).and(f[4]);
    let windows = clean.and(bit0).and(bit1).and_not(bit2);
    let mut found = windows;
    let mut w = windows;
    for _ in 1..5 {
        w = w.step::<D>(true, on);
        found = found.or(w);
    }
    found
}

impl Board {
    /// Bits `0..n`: the points of one row.
    #[inline]
    pub(crate) fn full_row(&self) -> u32 {
        ((1u64 << self.n) - 1) as u32
    }

    /// The empty points of the board, row by row.
    #[inline]
    pub(crate) fn empty_rows(&self) -> Rows {
        let full = self.full_row();
        let mut out = [0u32; MAX_SIZE as usize];
        for (y, o) in out.iter_mut().enumerate().take(self.n as usize) {
            *o = !(self.stones[0][y] | self.stones[1][y]) & full;
        }
        out
    }

    /// The empty points where a `color` stone would complete a winning row under `rule`
    /// (what [`Board::wins_at`] says of each), found for the whole board at once: along each
    /// direction, the points with `i` own stones running one way and `j` the other, `i + j`
    /// at least 4 (exactly 4 where only exactly five wins).
    pub(crate) fn five_rows(&self, color: u8, rule: Rule) -> Rows {
        if self.n <= 15 {
            // Boards up to 15×15 as one 256-bit mask.
            let exact = match rule {
                Rule::Freestyle => false,
                Rule::Standard => true,
                Rule::Renju => color == BLACK,
            };
            let (own, empty, on) = self.wide(color);
            let found = five_dir_wide::<0>(own, on, exact)
                .or(five_dir_wide::<1>(own, on, exact))
                .or(five_dir_wide::<2>(own, on, exact))
                .or(five_dir_wide::<3>(own, on, exact));
            return found.and(empty).to_rows();
        }
        // Boards of 16 rows in four vectors of four rows.
        if self.n <= 16 {
            widen(self.five_rows_n::<16>(color, rule))
        } else {
            self.five_rows_n::<{ MAX_SIZE as usize }>(color, rule)
        }
    }

    /// A board of at most 15 rows as [`Wide`] masks: `color`'s stones, the empty points, and
    /// the points of the board.
    #[inline]
    fn wide(&self, color: u8) -> (Wide, Wide, Wide) {
        let full = self.full_row();
        let on: Rows = std::array::from_fn(|y| if (y as i32) < self.n { full } else { 0 });
        let on = Wide::from_rows(&on);
        let own = Wide::from_rows(&self.stones[usize::from(color - 1)]);
        let occupied = Wide::from_rows(&self.stones[0]).or(Wide::from_rows(&self.stones[1]));
        (own, on.and_not(occupied), on)
    }

    /// [`Board::five_rows`] of the first `N` rows (at least `n`).
    fn five_rows_n<const N: usize>(&self, color: u8, rule: Rule) -> [u32; N] {
        let exact = match rule {
            Rule::Freestyle => false,
            Rule::Standard => true,
            Rule::Renju => color == BLACK,
        };
        let full = self.full_row();
        let own: [u32; N] = std::array::from_fn(|y| self.stones[usize::from(color - 1)][y]);
        let h = five_dir::<N, 1, 0, -1, 0>(&own, full, exact);
        let v = five_dir::<N, 0, 1, 0, -1>(&own, full, exact);
        let d = five_dir::<N, 1, 1, -1, -1>(&own, full, exact);
        let a = five_dir::<N, 1, -1, -1, 1>(&own, full, exact);
        let empty = self.empty_rows();
        std::array::from_fn(|y| (h[y] | v[y] | d[y] | a[y]) & empty[y])
    }

    /// The empty points that lie, along some direction, in a window of five points holding
    /// exactly three `color` stones and two empty points (this one among them): where a
    /// `color` stone leaves a five point in that window. Every point where a stone makes a
    /// four through itself is one of them.
    pub(crate) fn four_window_rows(&self, color: u8) -> Rows {
        if self.n <= 15 {
            let (own, empty, on) = self.wide(color);
            let open = own.or(empty);
            let found = four_window_dir_wide::<0>(own, open, on)
                .or(four_window_dir_wide::<1>(own, open, on))
                .or(four_window_dir_wide::<2>(own, open, on))
                .or(four_window_dir_wide::<3>(own, open, on));
            return found.and(empty).to_rows();
        }
        if self.n <= 16 {
            widen(self.four_window_rows_n::<16>(color))
        } else {
            self.four_window_rows_n::<{ MAX_SIZE as usize }>(color)
        }
    }

    /// [`Board::four_window_rows`] of the first `N` rows (at least `n`).
    fn four_window_rows_n<const N: usize>(&self, color: u8) -> [u32; N] {
        let full = self.full_row();
        let own: [u32; N] = std::array::from_fn(|y| self.stones[usize::from(color - 1)][y]);
        let empty_all = self.empty_rows();
        let empty: [u32; N] = std::array::from_fn(|y| empty_all[y]);
        let open: [u32; N] = std::array::from_fn(|y| own[y] | empty[y]);
        let h = four_window_dir::<N, 1, 0, -1, 0>(&own, &open, full);
        let v = four_window_dir::<N, 0, 1, 0, -1>(&own, &open, full);
        let d = four_window_dir::<N, 1, 1, -1, -1>(&own, &open, full);
        let a = four_window_dir::<N, 1, -1, -1, 1>(&own, &open, full);
        std::array::from_fn(|y| (h[y] | v[y] | d[y] | a[y]) & empty[y])
    }
}

/// `rows` as all the rows of a board (the rest empty).
#[inline]
fn widen<const N: usize>(rows: [u32; N]) -> Rows {
    std::array::from_fn(|y| rows.get(y).copied().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// [`Board::foul`] without the cheap pre-filter (reference for the fast path).
    fn foul_reference(b: &mut Board, x: i32, y: i32) -> Option<Foul> {
        if b.get(x, y) != EMPTY {
            return None;
        }
        b.set(x, y, BLACK);
        let f = b.foul_placed(x, y);
        b.clear(x, y);
        f
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn foul_prefilter_never_hides_a_foul(
            n in 5u8..=20,
            black_pct in 10u8..60,
            cells in prop::collection::vec(0u8..100, 400),
        ) {
            // Random boards from sparse to dense: `black_pct`% black, 15% white.
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
            let before = b;
            for y in 0..i32::from(n) {
                for x in 0..i32::from(n) {
                    let fast = b.foul(x, y);
                    prop_assert_eq!(fast, foul_reference(&mut b, x, y), "at ({}, {})", x, y);
                }
            }
            prop_assert_eq!(b, before);
        }
    }
}
