//! Mate tactics: mate in one and a mate search by continuous checks, the Xiangqi analogue of
//! Gomoku's VCF.
//!
//! A side with no legal move loses in Xiangqi, checkmated or stalemated, so a **mate in one**
//! is any move that leaves the opponent without a legal move, check or not.
//!
//! The **check search** ([`Xiangqi::mate_search`]) looks for a forced mate in which the
//! attacker gives check with every move: the attacker tries only checking moves, the defender
//! every legal reply; depth-first with iterative deepening by length (1, 3, 5, … plies), so the
//! first mate found is a shortest one by checks, under a node budget, with a table of the
//! positions already shown to fail at a given remaining length. Checks are tried in the order
//! of fewest replies first, the defender's captures first.
//!
//! What it does not see, by design:
//! * **Repetition** is ignored: a line that repeats one of its own earlier positions just fails
//!   for the attacker, so no mate ever relies on a repetition verdict. The game's history
//!   before the searched position is not known here.
//! * A **quiet** (non-checking) attacker move inside the line; only the last move of the mate
//!   in one at the root may be quiet (a stalemate).
//! * The **no-capture draw** (`no_capture_draw_plies`) is respected exactly: a line that would
//!   reach the limit before the mate fails.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use alphazero_game::{Outcome, TacticalProof};

use crate::position::{MoveList, Xiangqi};
use crate::types::Move;

/// The longest line the check search of [`Game::tactical_proof`](alphazero_game::Game::tactical_proof)
/// tries, in plies (the node budget usually stops it well before).
pub const MAX_MATE_PLIES: u32 = 31;

/// What [`Xiangqi::mate_search`] reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MateResult {
    /// The side to move mates by force within `plies` plies (odd), the shortest length of a
    /// mate by checks (a mate in one may be quiet). `line` is one line of the proof: the
    /// attacker's moves and the defender's replies alternating, from the attacker's first move
    /// to the mating move; at each defender turn the reply whose proof was the longest (then
    /// the most nodes) is shown, so `line.len() <= plies`.
    Win {
        /// The length of the mate in plies, the mating move included (1, 3, 5, …).
        plies: u32,
        /// The proof line (odd length, at most `plies`).
        line: Vec<Move>,
    },
    /// No mate by continuous checks exists at any length (the whole check tree was searched).
    NoWin,
    /// The node budget ran out, or the length limit was reached, before a mate was found or
    /// the check tree exhausted.
    Unknown,
}

/// A pass-through hasher for keys that are already Zobrist hashes.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Scratch state of one check search.
struct Search {
    nodes: u32,
    budget: u32,
    /// Positions (attacker to move) shown to have no mate by checks within the stored number
    /// of plies.
    failed: HashMap<u64, u32, BuildHasherDefault<KeyHasher>>,
    /// Hashes of the attacker-to-move positions on the current line.
    path: Vec<u64>,
    /// The winning line, built on the way back up.
    line: Vec<Move>,
    /// Set when the budget cut a subtree (a failure is then no refutation).
    cut: bool,
    /// Set when a check at the length limit left the defender a reply (a longer mate may exist).
    truncated: bool,
    /// `no_capture_draw_plies` (0: no limit).
    limit: u16,
}

impl Xiangqi {
    /// Whether the side to move's `mv` leaves the opponent without a legal move; `mv` must be
    /// legal.
    fn wins_at_once(&self, mv: Move) -> bool {
        let mut after = self.clone();
        after.make(mv);
        !after.has_legal_move()
    }

    /// The moves of the side to move that leave the opponent no legal move (checkmate or
    /// stalemate: both win in Xiangqi), in generation order. Empty when the game is already
    /// over by the position (no legal move, or the no-capture limit reached).
    ///
    /// ```
    /// use alphazero_xiangqi::{Xiangqi, XiangqiConfig};
    ///
    /// // b1b9 checkmates; b1f1 and a8f8 give no check but leave Black no move.
    /// let pos = Xiangqi::from_fen("4k4/R8/9/9/9/9/9/9/1R7/3K5 w", XiangqiConfig::default())?;
    /// let mut mates: Vec<String> = pos.mates_in_one().iter().map(|m| m.to_string()).collect();
    /// mates.sort();
    /// assert_eq!(mates, ["a8f8", "b1b9", "b1f1"]);
    /// # Ok::<(), alphazero_game::ParseError>(())
    /// ```
    pub fn mates_in_one(&self) -> Vec<Move> {
        if self.clock_expired() {
            return Vec::new();
        }
        self.legal_list()
            .as_slice()
            .iter()
            .copied()
            .filter(|&m| self.wins_at_once(m))
            .collect()
    }

    /// Whether the no-capture draw limit is reached here (the game is drawn unless the side to
    /// move has no legal move).
    #[inline]
    fn clock_expired(&self) -> bool {
        let limit = self.config.no_capture_draw_plies;
        limit > 0 && self.halfmove >= limit
    }

    /// Searches a forced mate of the side to move by continuous checks (see the
    /// [module docs](self)), lines of at most `max_plies` plies, spending at most `budget`
    /// nodes (one node = one position whose moves are generated). Also returns the nodes
    /// spent. The mate in one is looked for first, among all moves (a stalemating quiet move
    /// wins too), and costs no budget; longer mates give check with every attacker move.
    ///
    /// ```
    /// use alphazero_xiangqi::{MateResult, Xiangqi, XiangqiConfig};
    ///
    /// // Red mates by checks in 5 plies: b0b9+ Ke8, a7a8+ Ke7, b9b7#.
    /// let pos = Xiangqi::from_fen("4k4/9/R8/9/9/9/9/9/9/1R1K5 w", XiangqiConfig::default())?;
    /// let (result, _nodes) = pos.mate_search(10_000, 7);
    /// let MateResult::Win { plies, line } = result else { panic!("no mate found") };
    /// assert_eq!(plies, 5);
    /// assert_eq!(line[0].to_string(), "b0b9");
    /// # Ok::<(), alphazero_game::ParseError>(())
    /// ```
    pub fn mate_search(&self, budget: u32, max_plies: u32) -> (MateResult, u32) {
        if self.clock_expired() || max_plies == 0 {
            return (MateResult::Unknown, 0);
        }
        // Length 1 over all moves; this pass also says whether any check exists at all.
        let moves = self.legal_list();
        let mut any_check = false;
        for &m in moves.as_slice() {
            let mut after = self.clone();
            after.make(m);
            if !after.has_legal_move() {
                return (
                    MateResult::Win {
                        plies: 1,
                        line: vec![m],
                    },
                    0,
                );
            }
            any_check |= after.is_check();
        }
        if !any_check {
            return (MateResult::NoWin, 0);
        }
        let mut s = Search {
            nodes: 0,
            budget,
            failed: HashMap::default(),
            path: Vec::new(),
            line: Vec::new(),
            cut: false,
            truncated: false,
            limit: self.config.no_capture_draw_plies,
        };
        let mut d = 3;
        while d <= max_plies {
            s.truncated = false;
            if s.attack(self, d) {
                s.line.reverse();
                return (
                    MateResult::Win {
                        plies: d,
                        line: s.line,
                    },
                    s.nodes,
                );
            }
            if s.cut {
                return (MateResult::Unknown, s.nodes);
            }
            if !s.truncated {
                return (MateResult::NoWin, s.nodes);
            }
            d += 2;
        }
        (MateResult::Unknown, s.nodes)
    }

    /// [`Game::tactical_proof`](alphazero_game::Game::tactical_proof) for Xiangqi: a mate in
    /// one (any move that leaves the opponent no legal move), else a mate by continuous checks
    /// within `budget` nodes, as a `Win` with its first move and line. Never a `Loss` or
    /// `Draw`. `budget` 0 still finds every mate in one.
    pub(crate) fn mate_proof(&self, budget: u32) -> Option<TacticalProof<Move>> {
        let max = if budget == 0 { 1 } else { MAX_MATE_PLIES };
        match self.mate_search(budget, max).0 {
            MateResult::Win { line, .. } => Some(TacticalProof {
                outcome: Outcome::Win,
                best: line.first().copied(),
                line,
            }),
            _ => None,
        }
    }
}

impl Search {
    /// The key of `pos` in the failed table: its hash, with the no-capture clock mixed in when
    /// the clock could reach the limit within `d` plies.
    #[inline]
    fn key(&self, pos: &Xiangqi, d: u32) -> u64 {
        let clock_matters = self.limit > 0 && u32::from(pos.halfmove) + d >= u32::from(self.limit);
        if clock_matters {
            pos.hash ^ u64::from(pos.halfmove).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        } else {
            pos.hash
        }
    }

    /// The attacker to move in `pos` (not over by the clock); whether a mate by checks of at
    /// most `d` plies (odd) exists. On success the line is appended to `self.line` **in
    /// reverse** (mating move first).
    fn attack(&mut self, pos: &Xiangqi, d: u32) -> bool {
        if self.nodes >= self.budget {
            self.cut = true;
            return false;
        }
        let key = self.key(pos, d);
        if self.failed.get(&key).is_some_and(|&f| f >= d) || self.path.contains(&pos.hash) {
            return false;
        }
        self.nodes += 1;
        let moves = pos.legal_list();
        if d == 1 {
            for &m in moves.as_slice() {
                let mut after = pos.clone();
                after.make(m);
                if !after.is_check() {
                    continue;
                }
                self.nodes += 1;
                if !after.has_legal_move() {
                    self.line.push(m);
                    return true;
                }
                self.truncated = true;
            }
            self.failed.insert(key, 1);
            return false;
        }
        // The checks, each with its position and the defender's replies, fewest replies first.
        let mut checks: Vec<(u32, Move, Xiangqi)> = Vec::new();
        for &m in moves.as_slice() {
            let mut after = pos.clone();
            after.make(m);
            if !after.is_check() {
                continue;
            }
            self.nodes += 1;
            let n = after.legal_list().len() as u32;
            if n == 0 {
                self.line.push(m);
                return true;
            }
            if after.clock_expired() {
                // Drawn by the no-capture rule as soon as the check is played.
                continue;
            }
            checks.push((n, m, after));
        }
        checks.sort_by_key(|c| c.0);
        let cut_before = self.cut;
        self.cut = false;
        self.path.push(pos.hash);
        let mut won = false;
        for (_, m, after) in &checks {
            if self.refute_all(after, d - 1) {
                self.line.push(*m);
                won = true;
                break;
            }
            if self.nodes >= self.budget {
                self.cut = true;
                break;
            }
        }
        self.path.pop();
        if !won && !self.cut {
            let f = self.failed.entry(key).or_insert(0);
            *f = (*f).max(d);
        }
        self.cut |= cut_before;
        won
    }

    /// The defender to move in check in `after` with at least one reply; whether every reply
    /// leaves a mate by checks of at most `d - 1` plies. On success the line of the toughest
    /// reply (the longest proof, then the most nodes) is appended, reversed.
    fn refute_all(&mut self, after: &Xiangqi, d: u32) -> bool {
        let replies = after.legal_list();
        let mut order: MoveList = MoveList::new();
        // Captures first: taking the checking piece is the usual refutation.
        for pass in [true, false] {
            for &r in replies.as_slice() {
                if after.is_capture(r) == pass {
                    crate::position::MoveSink::push_move(&mut order, r);
                }
            }
        }
        let mut best: Option<((usize, u32), Vec<Move>)> = None;
        for &r in order.as_slice() {
            let mut next = after.clone();
            next.make(r);
            if next.clock_expired() {
                return false;
            }
            let (start, nodes_before) = (self.line.len(), self.nodes);
            if !self.attack(&next, d - 1) {
                self.line.truncate(start);
                return false;
            }
            self.line.push(r);
            let sub = self.line.split_off(start);
            let toughness = (sub.len(), self.nodes - nodes_before);
            if best.as_ref().is_none_or(|b| toughness > b.0) {
                best = Some((toughness, sub));
            }
        }
        if let Some((_, sub)) = best {
            self.line.extend(sub);
        }
        true
    }
}
