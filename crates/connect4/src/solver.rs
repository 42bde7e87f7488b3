//! Exact Connect Four solver, after Pascal Pons, "Solving Connect 4: how to build a perfect AI"
//! (blog.gamesolver.org): negamax with alpha-beta pruning, bitboards, centre-first move
//! ordering refined by the number of winning threats a move creates, pruning of moves that let
//! the opponent win at once, a transposition table of score bounds, and iterative null-window
//! search (binary search on the score).
//!
//! # Scores
//! Every score is **from the side to move**, in the scale of the Pons test sets:
//! * `0`: draw with best play;
//! * positive: the side to move wins; the score is `22 - n` where `n` is the number of stones
//!   the winner has played when it wins (its winning stone included), so `+18` is a win with the
//!   4th stone and `+1` a win with the 21st (last) stone; faster wins score higher;
//! * negative: the side to move loses, `-(22 - n)` with `n` counted for the opponent.
//!
//! The range is [`MIN_SCORE`]`..=`[`MAX_SCORE`] (`-18..=18`) for positions reachable in play.
//!
//! The solver keeps its transposition table between calls (entries are exact bounds, valid for
//! any later search); [`Solver::reset`] clears it.
//!
//! ```
//! use alphazero_connect4::{Connect4, solver::Solver};
//!
//! let mut solver = Solver::with_table_log2(16);
//! let pos = Connect4::from_moves("2252576253462244111563365343671351441").unwrap();
//! assert_eq!(solver.solve(&pos), -1);
//! ```

use crate::bitboard::{column_mask, possible, winning_cells, CELLS, WIDTH};
use crate::{C4Move, Connect4};
use alphazero_game::Game;

/// The lowest score of a position reachable in play (a loss against the 4th stone).
pub const MIN_SCORE: i32 = -(CELLS as i32) / 2 + 3;
/// The highest score of a position reachable in play (a win with the 4th stone).
pub const MAX_SCORE: i32 = (CELLS as i32 + 1) / 2 - 3;

/// Enhanced transposition cutoffs are tried only with fewer stones than this on the board
/// (near the leaves the extra table probes cost more than they save).
const ETC_MAX_STONES: i32 = 30;

/// Column exploration order: centre first, then outwards.
const COLUMN_ORDER: [usize; WIDTH] = [3, 2, 4, 1, 5, 0, 6];

/// The number of transposition-table entries of [`Solver::new`]: the first prime above 2^23
/// (5 bytes each, about 40 MiB).
pub const DEFAULT_TABLE_SIZE: usize = 8_388_617;

/// Search state without the game-record bookkeeping of [`Connect4`].
#[derive(Clone, Copy)]
struct Pos {
    /// Stones of the side to move.
    current: u64,
    /// All stones.
    mask: u64,
    /// Stones on the board.
    moves: u32,
}

impl Pos {
    /// Transposition key: `current + mask` (unique per position, < 2^49).
    #[inline]
    fn key(&self) -> u64 {
        self.current + self.mask
    }

    #[inline]
    fn play(&mut self, bit: u64) {
        self.current ^= self.mask;
        self.mask |= bit;
        self.moves += 1;
    }

    #[inline]
    fn can_win_next(&self) -> bool {
        winning_cells(self.current, self.mask) & possible(self.mask) != 0
    }

    /// Playable cells that do not hand the opponent an immediate win (0 if every move loses
    /// at once).
    #[inline]
    fn non_losing_moves(&self) -> u64 {
        let mut poss = possible(self.mask);
        let opp_win = winning_cells(self.current ^ self.mask, self.mask);
        let forced = poss & opp_win;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return 0; // two threats: cannot block both
            }
            poss = forced;
        }
        poss & !(opp_win >> 1) // never play below an opponent's winning cell
    }

    /// Move-ordering score: the number of winning cells the mover has after playing `bit`.
    #[inline]
    fn move_score(&self, bit: u64) -> u32 {
        winning_cells(self.current | bit, self.mask).count_ones()
    }
}

/// Transposition table of score bounds keyed by `current + mask` (< 2^49). Stores the low 32
/// bits of the key at index `key % size`; with `size` odd and `size * 2^32 > 2^49` the pair
/// identifies the key exactly (Chinese remainder theorem).
struct Table {
    keys: Vec<u32>,
    values: Vec<u8>,
}

impl Table {
    fn new(size: usize) -> Self {
        Table {
            keys: vec![0; size],
            values: vec![0; size],
        }
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        (key % self.keys.len() as u64) as usize
    }

    #[inline]
    fn put(&mut self, key: u64, value: u8) {
        let i = self.index(key);
        self.keys[i] = key as u32;
        self.values[i] = value;
    }

    /// The stored value, 0 when absent.
    #[inline]
    fn get(&self, key: u64) -> u8 {
        let i = self.index(key);
        if self.keys[i] == key as u32 {
            self.values[i]
        } else {
            0
        }
    }

    fn clear(&mut self) {
        self.keys.fill(0);
        self.values.fill(0);
    }
}

/// Insertion-sorted list of at most 7 moves; yields the best-scored first, ties in reverse
/// order of addition.
struct MoveSorter {
    entries: [(u64, u32); WIDTH],
    len: usize,
}

impl MoveSorter {
    #[inline]
    fn new() -> Self {
        MoveSorter {
            entries: [(0, 0); WIDTH],
            len: 0,
        }
    }

    #[inline]
    fn add(&mut self, bit: u64, score: u32) {
        let mut pos = self.len;
        self.len += 1;
        while pos > 0 && self.entries[pos - 1].1 > score {
            self.entries[pos] = self.entries[pos - 1];
            pos -= 1;
        }
        self.entries[pos] = (bit, score);
    }

    #[inline]
    fn next(&mut self) -> Option<u64> {
        if self.len == 0 {
            None
        } else {
            self.len -= 1;
            Some(self.entries[self.len].0)
        }
    }
}

/// Exact Connect Four solver (see the [module documentation](self) for the score scale).
pub struct Solver {
    table: Table,
    nodes: u64,
}

impl Default for Solver {
    fn default() -> Self {
        Solver::new()
    }
}

impl std::fmt::Debug for Solver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Solver")
            .field("table_size", &self.table.keys.len())
            .field("nodes", &self.nodes)
            .finish()
    }
}

/// The smallest prime ≥ `n`.
fn next_prime(n: usize) -> usize {
    let is_prime = |m: usize| {
        m >= 2
            && (2..)
                .take_while(|d| d * d <= m)
                .all(|d| !m.is_multiple_of(d))
    };
    (n..).find(|&m| is_prime(m)).unwrap_or(n)
}

/// The score of the side to move in a position where the game is already over.
fn terminal_score(pos: &Connect4) -> Option<i32> {
    pos.outcome()?;
    if pos.num_stones() == CELLS && !pos.won_last() {
        return Some(0);
    }
    // The opponent won with its ceil(ply / 2)-th stone.
    let winner_stones = (pos.num_stones() as i32 + 1) / 2;
    Some(-(22 - winner_stones))
}

impl Solver {
    /// A solver with a transposition table of [`DEFAULT_TABLE_SIZE`] entries (about 40 MiB,
    /// zero pages allocated lazily by the OS).
    pub fn new() -> Self {
        Solver {
            table: Table::new(DEFAULT_TABLE_SIZE),
            nodes: 0,
        }
    }

    /// A solver with a smaller or larger table: the first prime ≥ 2^`log2` entries, `log2`
    /// clamped to 18..=30 (5 bytes per entry). Smaller tables are slower on hard positions.
    pub fn with_table_log2(log2: u32) -> Self {
        let size = next_prime(1usize << log2.clamp(18, 30));
        Solver {
            table: Table::new(size),
            nodes: 0,
        }
    }

    /// Clears the transposition table and the node counter.
    pub fn reset(&mut self) {
        self.table.clear();
        self.nodes = 0;
    }

    /// Number of search nodes visited since creation or the last [`Solver::reset`].
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The exact score of `pos` from the side to move (see the module documentation): 0 draw,
    /// `22 - n` when the side to move wins with its `n`-th stone, `-(22 - n)` when the opponent
    /// does. A finished game scores as such: after a win with the winner's `n`-th stone,
    /// `-(22 - n)`; a full board without four in a row, 0.
    pub fn solve(&mut self, pos: &Connect4) -> i32 {
        self.solve_window(pos, false)
    }

    /// The sign of the score of `pos` from the side to move: 1 win, 0 draw, -1 loss (faster
    /// than [`Solver::solve`]).
    pub fn solve_weak(&mut self, pos: &Connect4) -> i32 {
        self.solve_window(pos, true).signum()
    }

    /// The score of every column from the side to move, i.e. the score of the side to move if
    /// it plays there and both sides then play perfectly; `None` for illegal columns (full, or
    /// every column when the game is over). Index = 0-based column.
    pub fn score_moves(&mut self, pos: &Connect4) -> [Option<i32>; WIDTH] {
        let mut out = [None; WIDTH];
        for (col, slot) in out.iter_mut().enumerate() {
            let mv = C4Move(col as u8);
            if !pos.is_legal(mv) {
                continue;
            }
            let mut child = *pos;
            child.play_unchecked(mv);
            *slot = Some(-self.solve(&child));
        }
        out
    }

    /// Every legal move with the best score, left to right; empty when the game is over.
    pub fn best_moves(&mut self, pos: &Connect4) -> Vec<C4Move> {
        let scores = self.score_moves(pos);
        let Some(best) = scores.iter().flatten().copied().max() else {
            return Vec::new();
        };
        (0..WIDTH)
            .filter(|&c| scores[c] == Some(best))
            .map(|c| C4Move(c as u8))
            .collect()
    }

    fn solve_window(&mut self, game: &Connect4, weak: bool) -> i32 {
        if let Some(s) = terminal_score(game) {
            return s;
        }
        let pos = Pos {
            current: game.current,
            mask: game.mask,
            moves: game.num_stones(),
        };
        let n = pos.moves as i32;
        let cells = CELLS as i32;
        if pos.can_win_next() {
            return (cells + 1 - n) / 2;
        }
        let mut min = -(cells - n) / 2;
        let mut max = (cells + 1 - n) / 2;
        if weak {
            min = -1;
            max = 1;
        }
        while min < max {
            // Null-window probes, biased towards 0 to prove draws and close results first.
            let mut med = min + (max - min) / 2;
            if med <= 0 && min / 2 < med {
                med = min / 2;
            } else if med >= 0 && max / 2 > med {
                med = max / 2;
            }
            let r = self.negamax(pos, med, med + 1);
            if r <= med {
                max = r;
            } else {
                min = r;
            }
        }
        min
    }

    /// Fail-soft-ish negamax of a position where the side to move cannot win at once.
    /// Returns `alpha` or less if the true score is ≤ `alpha`, `beta` or more if ≥ `beta`,
    /// else the exact score.
    fn negamax(&mut self, pos: Pos, mut alpha: i32, mut beta: i32) -> i32 {
        debug_assert!(alpha < beta);
        self.nodes += 1;
        let cells = CELLS as i32;
        let n = pos.moves as i32;

        let next = pos.non_losing_moves();
        if next == 0 {
            // Every move lets the opponent win at once, with its next stone.
            return -(cells - n) / 2;
        }
        if n >= cells - 2 {
            // Only the last two stones remain and neither wins: draw.
            return 0;
        }

        // Lower bound: the opponent cannot win with its next stone.
        let min = -(cells - 2 - n) / 2;
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return alpha;
            }
        }

        // Upper bound: we cannot win with our next stone.
        let mut max = (cells - 1 - n) / 2;
        let key = pos.key();
        let stored = self.table.get(key) as i32;
        if stored != 0 {
            if stored > MAX_SCORE - MIN_SCORE + 1 {
                // lower bound
                let lo = stored + 2 * MIN_SCORE - MAX_SCORE - 2;
                if alpha < lo {
                    alpha = lo;
                    if alpha >= beta {
                        return alpha;
                    }
                }
            } else {
                // upper bound
                max = stored + MIN_SCORE - 1;
            }
        }
        if beta > max {
            beta = max;
            if alpha >= beta {
                return beta;
            }
        }

        let mut sorter = MoveSorter::new();
        for &col in COLUMN_ORDER.iter().rev() {
            let bit = next & column_mask(col);
            if bit != 0 {
                sorter.add(bit, pos.move_score(bit));
            }
        }
        if n < ETC_MAX_STONES {
            // Enhanced transposition cutoff: a child whose stored upper bound already proves
            // a score >= beta for us ends the search without expanding anything.
            for &(bit, _) in &sorter.entries[..sorter.len] {
                let mut child = pos;
                child.play(bit);
                let v = self.table.get(child.key()) as i32;
                if v != 0 && v <= MAX_SCORE - MIN_SCORE + 1 {
                    let score = -(v + MIN_SCORE - 1);
                    if score >= beta {
                        self.table
                            .put(key, (score + MAX_SCORE - 2 * MIN_SCORE + 2) as u8);
                        return score;
                    }
                }
            }
        }
        while let Some(bit) = sorter.next() {
            let mut child = pos;
            child.play(bit);
            let score = -self.negamax(child, -beta, -alpha);
            if score >= beta {
                self.table
                    .put(key, (score + MAX_SCORE - 2 * MIN_SCORE + 2) as u8);
                return score;
            }
            if score > alpha {
                alpha = score;
            }
        }
        self.table.put(key, (alpha - MIN_SCORE + 1) as u8);
        alpha
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_table_size_is_the_prime_after_2_pow_23() {
        assert_eq!(next_prime(1 << 23), DEFAULT_TABLE_SIZE);
        // The key/index pair identifies a 49-bit key.
        assert!((DEFAULT_TABLE_SIZE as u128) << 32 > 1u128 << 49);
    }

    #[test]
    fn score_range_is_minus_18_to_18() {
        assert_eq!((MIN_SCORE, MAX_SCORE), (-18, 18));
    }
}
