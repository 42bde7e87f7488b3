//! Repetition rules: perpetual check and perpetual chase, judged on the last repetition cycle.
//!
//! When the current position has occurred `repetition_count` times since the last capture,
//! the **cycle** between its last two occurrences (the moves from the previous occurrence to
//! now) is judged:
//!
//! 1. **Perpetual check.** A side all of whose moves in the cycle gave check loses. If both
//!    sides checked with every move, the game is drawn. This is decided first: a side that
//!    checks perpetually loses even when the other side chases ("check beats chase").
//! 2. **Perpetual chase** (only under [`RepetitionRule::Asian`]). A side all of whose moves in
//!    the cycle chased one and the same opposing piece (followed as it moves) loses; if both
//!    sides chase, the game is drawn.
//! 3. Otherwise the repetition is a draw.
//!
//! A move **chases** a piece when, after it, the mover could capture that piece by a legal
//! move and could not do so with the same attacker before the move, even ignoring the safety
//! of its own general then (a new attack: the moved piece's attacks from its new point, a
//! discovered attack, or an attack whose target just lost its protection), and:
//! * the attacker is not a general or a soldier (they may chase freely);
//! * the target is not the general (that is a check) nor a soldier that has not crossed the
//!   river;
//! * the target is unprotected (after the capture its side has no legal recapture on that
//!   point), **or** it is a chariot attacked by a horse or cannon, or a chariot, horse or
//!   cannon attacked by an advisor or elephant (a stronger piece is chased even when
//!   protected);
//! * it is not a mutual attack of two pieces of the same kind where the target may legally
//!   capture the attacker (an offer to exchange).
//!
//! The positions of the cycle are not stored: [`HistoryEntry`] carries only hashes. They are
//! rebuilt backwards from the current position, one non-capturing move at a time, by finding
//! the piece move whose Zobrist difference matches the recorded hashes (only when a repetition
//! has been found, so the common path stays a hash scan).
//!
//! **Not judged:** alternating check and chase ("one check, one chase"), chasing different
//! pieces in turn, and the finer exceptions of the AXF/Chinese rule books (e.g. a chase that
//! is also a valid exchange, a target protected only by a pinned piece in special cases);
//! such repetitions are drawn unless covered above.

use crate::position::{
    kind_of, zkey, Xiangqi, ADVISOR, CANNON, CHARIOT, ELEPHANT, EMPTY, GENERAL, HORSE, SOLDIER,
    ZOBRIST,
};
use crate::types::{Move, Square};
use alphazero_game::{count_repetitions, HistoryEntry, Outcome, ParseError, Side};
use std::fmt;
use std::str::FromStr;

/// Which rule judges a repetition that is not perpetual check.
///
/// The names (`asian`, `check-only`) are what [`RepetitionRule::parse`] accepts and what
/// `Display` writes; a training config would name it under the key `xiangqi.repetition`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RepetitionRule {
    /// Asian (AXF) rules, also the Chinese rules' core: perpetual check loses, then perpetual
    /// chase of one piece loses; otherwise draw. The default.
    #[default]
    Asian,
    /// Only perpetual check loses; every other repetition is a draw.
    CheckOnly,
}

impl RepetitionRule {
    /// Both rules, default first.
    pub const ALL: [RepetitionRule; 2] = [RepetitionRule::Asian, RepetitionRule::CheckOnly];

    /// The rule's name: `asian` or `check-only`.
    pub const fn name(self) -> &'static str {
        match self {
            RepetitionRule::Asian => "asian",
            RepetitionRule::CheckOnly => "check-only",
        }
    }

    /// Parses `asian` or `check-only` (case-insensitive; `check_only` and `checkonly` also).
    ///
    /// # Errors
    /// [`ParseError`] naming the input and the accepted names.
    pub fn parse(text: &str) -> Result<RepetitionRule, ParseError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "asian" | "axf" => Ok(RepetitionRule::Asian),
            "check-only" | "check_only" | "checkonly" => Ok(RepetitionRule::CheckOnly),
            _ => Err(ParseError::new(
                "xiangqi repetition rule",
                text,
                "expected \"asian\" or \"check-only\"",
            )),
        }
    }
}

impl fmt::Display for RepetitionRule {
    /// `asian` or `check-only`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for RepetitionRule {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        RepetitionRule::parse(s)
    }
}

/// How a repetition was judged (see the [module documentation](self) of the rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RepetitionVerdict {
    /// `by` gave check with every move of the repetition cycle and loses.
    PerpetualCheck {
        /// The side that checked perpetually (the loser).
        by: Side,
    },
    /// `by` chased the same unprotected (or stronger) piece with every move of the cycle and
    /// loses.
    PerpetualChase {
        /// The side that chased perpetually (the loser).
        by: Side,
    },
    /// Neither or both sides broke a rule: draw.
    Draw,
}

impl RepetitionVerdict {
    /// The side that loses, `None` for a draw.
    pub fn loser(self) -> Option<Side> {
        match self {
            RepetitionVerdict::PerpetualCheck { by } | RepetitionVerdict::PerpetualChase { by } => {
                Some(by)
            }
            RepetitionVerdict::Draw => None,
        }
    }

    /// The result from the point of view of `side_to_move`.
    pub fn outcome(self, side_to_move: Side) -> Outcome {
        match self.loser() {
            None => Outcome::Draw,
            Some(l) if l == side_to_move => Outcome::Loss,
            Some(_) => Outcome::Win,
        }
    }

    /// A short machine-friendly tag: `perpetual-check`, `perpetual-chase` or `repetition`.
    pub const fn tag(self) -> &'static str {
        match self {
            RepetitionVerdict::PerpetualCheck { .. } => "perpetual-check",
            RepetitionVerdict::PerpetualChase { .. } => "perpetual-chase",
            RepetitionVerdict::Draw => "repetition",
        }
    }
}

/// `red` or `black`.
pub(crate) fn side_word(side: Side) -> &'static str {
    match side {
        Side::First => "red",
        Side::Second => "black",
    }
}

impl fmt::Display for RepetitionVerdict {
    /// `perpetual check by red`, `perpetual chase by black`, `repetition draw`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RepetitionVerdict::PerpetualCheck { by } => {
                write!(f, "perpetual check by {}", side_word(by))
            }
            RepetitionVerdict::PerpetualChase { by } => {
                write!(f, "perpetual chase by {}", side_word(by))
            }
            RepetitionVerdict::Draw => f.write_str("repetition draw"),
        }
    }
}

/// Why a game of Xiangqi is over (see [`Xiangqi::end_reason`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// The side to move is in check and has no legal move: it lost.
    Checkmate,
    /// The side to move is not in check but has no legal move: it lost (no stalemate draw).
    Stalemate,
    /// `plies` plies without a capture reached the no-capture limit: draw.
    NoCaptureLimit {
        /// The halfmove clock of the final position.
        plies: u16,
    },
    /// The position repeated `repetition_count` times.
    Repetition(RepetitionVerdict),
}

impl EndReason {
    /// A short machine-friendly tag: `checkmate`, `stalemate`, `no-capture-limit`, or the
    /// [`RepetitionVerdict::tag`].
    pub const fn tag(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::NoCaptureLimit { .. } => "no-capture-limit",
            EndReason::Repetition(v) => v.tag(),
        }
    }
}

impl fmt::Display for EndReason {
    /// Words for people: `checkmate`, `no legal move (stalemate loses in xiangqi)`,
    /// `120 plies without a capture`, `repetition: perpetual chase by red loses`,
    /// `repetition: draw`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EndReason::Checkmate => f.write_str("checkmate"),
            EndReason::Stalemate => f.write_str("no legal move (stalemate loses in xiangqi)"),
            EndReason::NoCaptureLimit { plies } => write!(f, "{plies} plies without a capture"),
            EndReason::Repetition(RepetitionVerdict::Draw) => f.write_str("repetition: draw"),
            EndReason::Repetition(v) => write!(f, "repetition: {v} loses"),
        }
    }
}

/// Whether an attack of `attacker` on `target` (piece kinds) is a chase even when the target
/// is protected: a stronger piece attacked by a weaker one.
fn chases_regardless_of_protection(attacker: u8, target: u8) -> bool {
    match attacker {
        HORSE | CANNON => target == CHARIOT,
        ADVISOR | ELEPHANT => matches!(target, CHARIOT | HORSE | CANNON),
        _ => false,
    }
}

/// Whether a soldier of `side` on point `sq` has crossed the river.
fn soldier_crossed(side: usize, sq: usize) -> bool {
    let rank = sq / 9;
    if side == 0 {
        rank >= 5
    } else {
        rank <= 4
    }
}

/// A chase relation: (attacker point, target point) pairs.
type Pairs = Vec<(u8, u8)>;

impl Xiangqi {
    /// The same board with `side` to move (a null move when it is the other side). The hash
    /// is not updated: for attack tests only.
    fn with_side(&self, side: Side) -> Xiangqi {
        let mut p = self.clone();
        p.side = side;
        p
    }

    /// The (attacker, target) pairs by which the side to move "chases" in this position, by
    /// the rules of the module documentation (without the "new attack" condition, which
    /// compares two such sets). With `legal_only` false, captures that would leave the own
    /// general attacked count too (for the position *before* a move, so that a standing attack
    /// that was merely illegal while in check is not taken for a new one).
    fn chase_pairs(&self, legal_only: bool) -> Pairs {
        let us = self.side.index();
        let them = 1 - us;
        let mut out = Pairs::new();
        let moves: Vec<Move> = if legal_only {
            self.legal_list().as_slice().to_vec()
        } else {
            self.pseudo_legal_moves()
        };
        // The opponent to move on the same board: its legal moves, for the mutual-attack test.
        let mut their_moves: Option<Vec<Move>> = None;
        for &mv in &moves {
            let (a, t) = (mv.from.index(), mv.to.index());
            let target = self.board[t];
            if target == EMPTY {
                continue;
            }
            let (ak, tk) = (kind_of(self.board[a]), kind_of(target));
            if matches!(ak, GENERAL | SOLDIER) || tk == GENERAL {
                continue;
            }
            if tk == SOLDIER && !soldier_crossed(them, t) {
                continue;
            }
            if chases_regardless_of_protection(ak, tk) {
                out.push((a as u8, t as u8));
                continue;
            }
            if ak == tk {
                let theirs = their_moves.get_or_insert_with(|| {
                    self.with_side(self.side.opponent())
                        .legal_list()
                        .as_slice()
                        .to_vec()
                });
                if theirs.contains(&Move::new(mv.to, mv.from)) {
                    continue; // mutual attack: an offer to exchange
                }
            }
            let mut after = self.clone();
            after.make(mv);
            let protected = after.legal_list().as_slice().iter().any(|m| m.to == mv.to);
            if !protected {
                out.push((a as u8, t as u8));
            }
        }
        out
    }

    /// The points of the opposing pieces that `mv`, played from `self` and leading to `after`,
    /// newly chases (as a bit set over point indices).
    fn chased_by_move(&self, mv: Move, after: &Xiangqi) -> u128 {
        let before = self.chase_pairs(false);
        let now = after.with_side(self.side).chase_pairs(true);
        let (from, to) = (mv.from.index() as u8, mv.to.index() as u8);
        let mut set = 0u128;
        for &(a, t) in &now {
            let a_before = if a == to { from } else { a };
            if !before.contains(&(a_before, t)) {
                set |= 1u128 << t;
            }
        }
        set
    }

    /// The position before the last move, given the hash it had: the non-capturing move of the
    /// side that just moved whose Zobrist difference matches. `None` when no such legal move
    /// exists (a capture, or a history that does not belong to this position).
    fn unmake_to_hash(&self, hash: u64) -> Option<(Xiangqi, Move)> {
        let mover = self.side.opponent();
        let want = hash ^ self.hash ^ ZOBRIST[0];
        let mut bits = self.occ[mover.index()];
        while bits != 0 {
            let to = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let pc = self.board[to];
            let kt = zkey(pc, to);
            for from in 0..self.board.len() {
                if self.board[from] != EMPTY || zkey(pc, from) ^ kt != want {
                    continue;
                }
                let mut prev = self.clone();
                prev.board[from] = pc;
                prev.board[to] = EMPTY;
                prev.side = mover;
                prev.halfmove = prev.halfmove.saturating_sub(1);
                prev.ply = prev.ply.saturating_sub(1);
                if mover == Side::Second {
                    prev.fullmove = prev.fullmove.saturating_sub(1).max(1);
                }
                prev.refresh();
                let mv = Move::new(
                    Square::from_index_unchecked(from),
                    Square::from_index_unchecked(to),
                );
                if prev.hash == hash && prev.legal_list().as_slice().contains(&mv) {
                    return Some((prev, mv));
                }
            }
        }
        None
    }

    /// Whether `side` chased one and the same piece with every one of its moves in the cycle
    /// `positions[0] -m0-> positions[1] ... -> positions[last]`.
    fn chases_perpetually(positions: &[Xiangqi], moves: &[Move], side: Side) -> bool {
        let mut targets: Option<u128> = None;
        for (k, &mv) in moves.iter().enumerate() {
            let pos = &positions[k];
            if pos.side == side {
                let chased = pos.chased_by_move(mv, &positions[k + 1]);
                let t = targets.map_or(chased, |t| t & chased);
                if t == 0 {
                    return false;
                }
                targets = Some(t);
            } else if let Some(t) = targets.as_mut() {
                // The opponent moved: a chased piece that moved is followed to its new point.
                let (from, to) = (mv.from.index(), mv.to.index());
                if (*t >> from) & 1 != 0 {
                    *t &= !(1u128 << from);
                    *t |= 1u128 << to;
                }
            }
        }
        targets.is_some_and(|t| t != 0)
    }

    /// The repetition verdict: `Some` when the current position has occurred
    /// `repetition_count` times (this one included) since the last capture; the cycle since
    /// its previous occurrence is judged by the configured [`RepetitionRule`]. Checkmate,
    /// stalemate and the no-capture limit are not looked at (see [`Xiangqi::end_reason`]).
    ///
    /// `history` holds the earlier positions of the game, oldest first, without this one
    /// ([`alphazero_game::History::entries`]). Cheap unless the position repeats.
    pub fn repetition_verdict(&self, history: &[HistoryEntry]) -> Option<RepetitionVerdict> {
        let need = u32::from(self.config.repetition_count.max(2));
        let hash = self.hash;
        if count_repetitions(history, hash) + 1 < need {
            return None;
        }
        let n = history.len();
        // The previous occurrence (count_repetitions found one since the last capture).
        let last = history.iter().rposition(|e| e.hash == hash)?;
        // Move k (from position k) gave check iff position k+1 is in check. The side to move
        // in position k is ours when (n - k) is even.
        let mut all_checks = [true, true]; // [side to move now, opponent]
        for k in last..n {
            let gave_check = if k + 1 == n {
                self.is_check()
            } else {
                history[k + 1].in_check
            };
            all_checks[(n - k) % 2] &= gave_check;
        }
        let (us, them) = (self.side, self.side.opponent());
        match (all_checks[0], all_checks[1]) {
            (true, false) => return Some(RepetitionVerdict::PerpetualCheck { by: us }),
            (false, true) => return Some(RepetitionVerdict::PerpetualCheck { by: them }),
            (true, true) => return Some(RepetitionVerdict::Draw),
            (false, false) => {}
        }
        if self.config.repetition == RepetitionRule::CheckOnly {
            return Some(RepetitionVerdict::Draw);
        }
        // Rebuild the positions of the cycle backwards from this one.
        let mut positions = vec![self.clone()];
        let mut moves = Vec::with_capacity(n - last);
        for k in (last..n).rev() {
            let Some((prev, mv)) = positions[positions.len() - 1].unmake_to_hash(history[k].hash)
            else {
                // Not rebuildable (a history that does not belong to this game): no chase.
                return Some(RepetitionVerdict::Draw);
            };
            positions.push(prev);
            moves.push(mv);
        }
        positions.reverse();
        moves.reverse();
        let chase_us = Self::chases_perpetually(&positions, &moves, us);
        let chase_them = Self::chases_perpetually(&positions, &moves, them);
        Some(match (chase_us, chase_them) {
            (true, false) => RepetitionVerdict::PerpetualChase { by: us },
            (false, true) => RepetitionVerdict::PerpetualChase { by: them },
            _ => RepetitionVerdict::Draw,
        })
    }

    /// Why the game is over, `None` while it goes on: in the order of
    /// [`Game::adjudicate`](alphazero_game::Game::adjudicate), no legal move (checkmate or
    /// stalemate), the no-capture limit, then repetition ([`Xiangqi::repetition_verdict`]).
    ///
    /// ```
    /// use alphazero_game::{History, Side};
    /// use alphazero_xiangqi::{EndReason, RepetitionVerdict, Xiangqi, XiangqiConfig};
    ///
    /// // Red's chariot chases the lone black horse back and forth.
    /// let start = Xiangqi::from_fen("4k2n1/9/9/9/9/9/9/9/6R2/3K5 w - - 0 1", XiangqiConfig::default())?;
    /// let mut game = History::new(start);
    /// for _ in 0..2 {
    ///     for mv in ["g1h1", "h9g7", "h1g1", "g7h9"] {
    ///         game.play(mv.parse()?)?;
    ///     }
    /// }
    /// let reason = game.current().end_reason(game.entries());
    /// assert_eq!(
    ///     reason,
    ///     Some(EndReason::Repetition(RepetitionVerdict::PerpetualChase { by: Side::First }))
    /// );
    /// assert_eq!(reason.unwrap().to_string(), "repetition: perpetual chase by red loses");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn end_reason(&self, history: &[HistoryEntry]) -> Option<EndReason> {
        if !self.has_legal_move() {
            return Some(if self.is_check() {
                EndReason::Checkmate
            } else {
                EndReason::Stalemate
            });
        }
        let limit = self.config.no_capture_draw_plies;
        if limit > 0 && self.halfmove >= limit {
            return Some(EndReason::NoCaptureLimit {
                plies: self.halfmove,
            });
        }
        self.repetition_verdict(history).map(EndReason::Repetition)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_names_round_trip_and_bad_names_are_named() {
        for r in RepetitionRule::ALL {
            assert_eq!(RepetitionRule::parse(r.name()), Ok(r));
            assert_eq!(r.to_string().parse::<RepetitionRule>(), Ok(r));
        }
        assert_eq!(RepetitionRule::default(), RepetitionRule::Asian);
        let e = RepetitionRule::parse("western").expect_err("unknown rule");
        assert_eq!(e.input, "western");
        assert!(e.to_string().contains("check-only"), "{e}");
    }

    #[test]
    fn unmake_finds_the_move_that_led_here() {
        let cfg = crate::XiangqiConfig::default();
        let before = Xiangqi::from_fen("4k2n1/9/9/9/9/9/9/9/6R2/3K5 w - - 3 1", cfg).unwrap();
        let mut after = before.clone();
        let mv: Move = "g1h1".parse().unwrap();
        after.make(mv);
        let (prev, found) = after.unmake_to_hash(before.hash).expect("rebuilt");
        assert_eq!(found, mv);
        assert_eq!(prev, before);
        assert_eq!(prev.to_fen(), before.to_fen());
        // A hash of no position one move back: nothing found.
        assert!(after.unmake_to_hash(before.hash ^ 1).is_none());
    }

    #[test]
    fn a_chariot_newly_attacking_a_lone_horse_chases_it() {
        let cfg = crate::XiangqiConfig::default();
        let p = Xiangqi::from_fen("4k2n1/9/9/9/9/9/9/9/6R2/3K5 w - - 0 1", cfg).unwrap();
        let mv: Move = "g1h1".parse().unwrap();
        let mut q = p.clone();
        q.make(mv);
        let h9 = Square::parse("h9").unwrap().index();
        assert_eq!(p.chased_by_move(mv, &q), 1u128 << h9);
        // Moving the general does not chase; the standing attack of the chariot is not new.
        let kmv: Move = "d0d1".parse().unwrap();
        let mut r = q.clone();
        r.make("e9f9".parse().unwrap());
        let mut s = r.clone();
        s.make(kmv);
        assert_eq!(r.chased_by_move(kmv, &s), 0);
    }

    /// The positions and moves of `moves` played from `fen`.
    fn cycle(fen: &str, moves: &str) -> (Vec<Xiangqi>, Vec<Move>) {
        let mut p = Xiangqi::from_fen(fen, crate::XiangqiConfig::default()).unwrap();
        let mut positions = vec![p.clone()];
        let mut mvs = Vec::new();
        for m in moves.split_whitespace() {
            let mv: Move = m.parse().unwrap();
            assert!(
                p.legal_list().as_slice().contains(&mv),
                "{m} in {}",
                p.to_fen()
            );
            p.make(mv);
            positions.push(p.clone());
            mvs.push(mv);
        }
        assert_eq!(positions[0].hash, p.hash, "the moves form a cycle");
        (positions, mvs)
    }

    #[test]
    fn both_sides_chase_in_the_data_files_both_chase_row() {
        let (p, m) = cycle(
            "4k4/6C2/9/9/C7r/9/4r4/9/9/3K5 w - - 0 1",
            "g8g5 e3e5 g5g8 e5e3",
        );
        assert!(Xiangqi::chases_perpetually(&p, &m, Side::First));
        assert!(Xiangqi::chases_perpetually(&p, &m, Side::Second));
    }

    #[test]
    fn black_chases_while_red_checks_in_the_check_beats_chase_row() {
        let (p, m) = cycle(
            "9/P3k4/r8/9/9/9/4r4/C2K5/4Rc3/4CN3 w - - 0 1",
            "e1d1 e3a3 d1e1 a3e3",
        );
        assert!(
            p[1].is_check() && p[3].is_check(),
            "red checks with both moves"
        );
        assert!(Xiangqi::chases_perpetually(&p, &m, Side::Second));
        assert!(!Xiangqi::chases_perpetually(&p, &m, Side::First));
    }

    #[test]
    fn a_standing_attack_while_evading_check_is_not_a_new_chase() {
        // Red checks on rank 8 and 7; the black chariot on c8 attacks the unprotected c2 horse
        // all along. The king's evasions do not create that attack.
        let (p, m) = cycle(
            "9/2r1k4/7R1/9/r8/4p4/9/2N6/3K5/9 w - - 0 1",
            "h7h8 e8e7 h8h7 e7e8",
        );
        assert!(!Xiangqi::chases_perpetually(&p, &m, Side::Second));
    }
}
