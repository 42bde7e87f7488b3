//! The position: board, side to move, counters, incremental Zobrist hash, move generation.

use crate::repetition::RepetitionRule;
use crate::tables::{tables, Tables, NORTH, SOUTH};
use crate::types::{Move, Piece, PieceKind, Square, NUM_SQUARES};
use alphazero_game::{zobrist_table, Side};
use std::fmt;

/// Rules options of Xiangqi. `Default` is the standard game used for training.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct XiangqiConfig {
    /// A position occurring this many times in total (the current one included) since the last
    /// capture ends the game, judged by [`XiangqiConfig::repetition`]. Default 3. Values below
    /// 2 are treated as 2.
    pub repetition_count: u8,
    /// Plies without a capture after which the game is drawn (Pikafish "rule 60": 120).
    /// 0 disables the rule. Default 120.
    pub no_capture_draw_plies: u16,
    /// How a repetition is judged: [`RepetitionRule::Asian`] (perpetual check, then perpetual
    /// chase, loses; the default) or [`RepetitionRule::CheckOnly`] (only perpetual check
    /// loses). See [`Xiangqi::repetition_verdict`].
    pub repetition: RepetitionRule,
}

impl Default for XiangqiConfig {
    fn default() -> Self {
        XiangqiConfig {
            repetition_count: 3,
            no_capture_draw_plies: 120,
            repetition: RepetitionRule::Asian,
        }
    }
}

impl From<&XiangqiConfig> for XiangqiConfig {
    fn from(c: &XiangqiConfig) -> Self {
        *c
    }
}

pub(crate) const EMPTY: u8 = 0;
pub(crate) const GENERAL: u8 = 0;
pub(crate) const ADVISOR: u8 = 1;
pub(crate) const ELEPHANT: u8 = 2;
pub(crate) const HORSE: u8 = 3;
pub(crate) const CHARIOT: u8 = 4;
pub(crate) const CANNON: u8 = 5;
pub(crate) const SOLDIER: u8 = 6;

#[inline]
pub(crate) const fn code(kind: u8, side: usize) -> u8 {
    1 + kind + 7 * side as u8
}
#[inline]
pub(crate) const fn kind_of(code: u8) -> u8 {
    (code - 1) % 7
}
#[inline]
pub(crate) const fn side_of(code: u8) -> usize {
    (code > 7) as usize
}

/// Zobrist keys: `ZOBRIST[code * 90 + square]` for piece codes 1–14; `ZOBRIST[0]` is the
/// Black-to-move key.
pub(crate) static ZOBRIST: [u64; 15 * 90] = zobrist_table::<{ 15 * 90 }>(0x5851_F42D_4C95_7F2D);

#[inline]
pub(crate) fn zkey(code: u8, sq: usize) -> u64 {
    ZOBRIST[code as usize * 90 + sq]
}

/// A fixed-capacity move list on the stack (no allocation).
pub(crate) struct MoveList {
    len: usize,
    moves: [Move; 256],
}

impl MoveList {
    #[inline]
    pub(crate) fn new() -> Self {
        let z = Square::from_index_unchecked(0);
        MoveList {
            len: 0,
            moves: [Move::new(z, z); 256],
        }
    }
    #[inline]
    pub(crate) fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

/// Where generated moves go.
pub(crate) trait MoveSink {
    fn push_move(&mut self, m: Move);
    /// Whether the generator may stop (checked after each piece): the sink has what it needs.
    #[inline]
    fn done(&self) -> bool {
        false
    }
}

/// A sink that only records whether some legal move exists; generation stops after the first
/// piece that has one.
#[derive(Default)]
pub(crate) struct AnyMove(pub(crate) bool);

impl MoveSink for AnyMove {
    #[inline]
    fn push_move(&mut self, _m: Move) {
        self.0 = true;
    }
    #[inline]
    fn done(&self) -> bool {
        self.0
    }
}

impl MoveSink for MoveList {
    #[inline]
    fn push_move(&mut self, m: Move) {
        // Capacity is far above the largest legal move count of Xiangqi (under 150).
        if self.len < self.moves.len() {
            self.moves[self.len] = m;
            self.len += 1;
        }
    }
}

impl MoveSink for Vec<Move> {
    #[inline]
    fn push_move(&mut self, m: Move) {
        self.push(m);
    }
}

/// A Xiangqi position: the board, the side to move, the no-capture ply counter, the move
/// number and an incrementally updated Zobrist hash. History (for repetitions) is kept outside,
/// in [`alphazero_game::History`].
///
/// `Eq`/`Hash` compare what the rules depend on: board, side to move, halfmove clock
/// (no-capture counter) and configuration; not the move number or the ply count.
#[derive(Clone, Debug)]
pub struct Xiangqi {
    pub(crate) board: [u8; NUM_SQUARES],
    pub(crate) occ: [u128; 2],
    pub(crate) generals: [u8; 2],
    pub(crate) side: Side,
    pub(crate) halfmove: u16,
    pub(crate) fullmove: u32,
    pub(crate) ply: u32,
    pub(crate) hash: u64,
    pub(crate) config: XiangqiConfig,
}

impl PartialEq for Xiangqi {
    fn eq(&self, other: &Self) -> bool {
        self.board == other.board
            && self.side == other.side
            && self.halfmove == other.halfmove
            && self.config == other.config
    }
}

impl Eq for Xiangqi {}

impl std::hash::Hash for Xiangqi {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.hash.hash(state);
        self.halfmove.hash(state);
        self.config.hash(state);
    }
}

/// Whether the general of side `us` standing on `k` is attacked on `board`: by a chariot, a
/// cannon over one screen, a horse with a free leg, a soldier, or the other general on an open
/// file (flying general).
#[inline]
pub(crate) fn attacked(board: &[u8; NUM_SQUARES], t: &Tables, k: usize, us: usize) -> bool {
    let them = 1 - us;
    let e_chariot = code(CHARIOT, them);
    let e_cannon = code(CANNON, them);
    let e_general = code(GENERAL, them);
    let e_horse = code(HORSE, them);
    let e_soldier = code(SOLDIER, them);
    for (dir, ray) in t.rays[k].iter().enumerate() {
        let ray = ray.as_slice();
        let mut i = 0;
        while i < ray.len() && board[ray[i] as usize] == EMPTY {
            i += 1;
        }
        if i == ray.len() {
            continue;
        }
        let p = board[ray[i] as usize];
        if p == e_chariot || (p == e_general && (dir == NORTH || dir == SOUTH)) {
            return true;
        }
        i += 1;
        while i < ray.len() && board[ray[i] as usize] == EMPTY {
            i += 1;
        }
        if i < ray.len() && board[ray[i] as usize] == e_cannon {
            return true;
        }
    }
    for &(h, leg) in t.horse_attackers[k].as_slice() {
        if board[h as usize] == e_horse && board[leg as usize] == EMPTY {
            return true;
        }
    }
    for &s in t.soldier_attackers[us][k].as_slice() {
        if board[s as usize] == e_soldier {
            return true;
        }
    }
    false
}

impl Xiangqi {
    /// An empty board (no generals: not a valid position until pieces are placed).
    pub(crate) fn empty(config: XiangqiConfig) -> Xiangqi {
        Xiangqi {
            board: [EMPTY; NUM_SQUARES],
            occ: [0; 2],
            generals: [0; 2],
            side: Side::First,
            halfmove: 0,
            fullmove: 1,
            ply: 0,
            hash: 0,
            config,
        }
    }

    /// Recomputes `occ`, `generals` and `hash` from the board.
    pub(crate) fn refresh(&mut self) {
        self.occ = [0; 2];
        for (s, &c) in self.board.iter().enumerate() {
            if c != EMPTY {
                self.occ[side_of(c)] |= 1u128 << s;
                if kind_of(c) == GENERAL {
                    self.generals[side_of(c)] = s as u8;
                }
            }
        }
        self.hash = self.compute_hash();
    }

    pub(crate) fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for (s, &c) in self.board.iter().enumerate() {
            if c != EMPTY {
                h ^= zkey(c, s);
            }
        }
        if self.side == Side::Second {
            h ^= ZOBRIST[0];
        }
        h
    }

    /// The standard start position `rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1`.
    pub fn start(config: XiangqiConfig) -> Xiangqi {
        let mut p = Xiangqi::empty(config);
        let back = [
            CHARIOT, HORSE, ELEPHANT, ADVISOR, GENERAL, ADVISOR, ELEPHANT, HORSE, CHARIOT,
        ];
        for (f, &k) in back.iter().enumerate() {
            p.board[f] = code(k, 0);
            p.board[81 + f] = code(k, 1);
        }
        for f in [1, 7] {
            p.board[18 + f] = code(CANNON, 0);
            p.board[63 + f] = code(CANNON, 1);
        }
        for f in [0, 2, 4, 6, 8] {
            p.board[27 + f] = code(SOLDIER, 0);
            p.board[54 + f] = code(SOLDIER, 1);
        }
        p.refresh();
        p
    }

    /// The piece on `sq`, if any.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Piece::from_code(self.board[sq.index()])
    }

    /// The square of `side`'s general.
    #[inline]
    pub fn general_square(&self, side: Side) -> Square {
        Square::from_index_unchecked(self.generals[side.index()] as usize)
    }

    /// Plies since the last capture (or since set-up): the FEN halfmove field, the counter of
    /// the no-capture draw rule.
    #[inline]
    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove
    }

    /// The move number (FEN fullmove field), starting at 1 and incremented after Black moves.
    #[inline]
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove
    }

    /// Whether `mv` lands on a piece (of either side; for a legal move, an opponent's piece).
    #[inline]
    pub fn is_capture(&self, mv: Move) -> bool {
        self.board[mv.to.index()] != EMPTY
    }

    /// Whether the side to move's general is attacked (including a facing enemy general).
    #[inline]
    pub fn is_check(&self) -> bool {
        let us = self.side.index();
        attacked(&self.board, tables(), self.generals[us] as usize, us)
    }

    /// Whether the general of the side *not* to move is attacked (an impossible position).
    pub(crate) fn opponent_in_check(&self) -> bool {
        let them = 1 - self.side.index();
        attacked(&self.board, tables(), self.generals[them] as usize, them)
    }

    /// Generates the legal moves (fast path: pseudo-legal generation from tables, then an
    /// attack test from the general's square only for moves that can expose it).
    #[inline]
    pub(crate) fn generate<S: MoveSink>(&self, sink: &mut S) {
        self.generate_moves::<S, true>(sink);
    }

    /// The pseudo-legal moves of the side to move: every move its pieces can make by their
    /// movement rules, whether or not it leaves the own general attacked or facing the other
    /// general (the chase rule and the illegal-move messages need them), in generation order.
    pub fn pseudo_legal_moves(&self) -> Vec<Move> {
        let mut moves = Vec::new();
        self.generate_moves::<Vec<Move>, false>(&mut moves);
        moves
    }

    /// How many pieces of `side` attack each square, indexed by [`Square::index`], by their
    /// movement rules alone, whatever stands on the square (an own piece counts: a defended
    /// piece is attacked by its defenders), whoever is to move, pins and checks ignored:
    /// a chariot attacks each line's squares up to and including its first piece; a cannon the
    /// squares behind its first screen up to and including the next piece (where a piece of
    /// the other side could be taken); a horse its jumps whose leg is free; an elephant its
    /// jumps whose eye is free, on its own side of the river; an advisor and the general their
    /// steps in the palace; a soldier the square ahead and, across the river, those beside it.
    /// Generals facing each other on an open file are an illegal position, not an attack.
    pub fn attack_counts(&self, side: Side) -> [u8; NUM_SQUARES] {
        let t = tables();
        let us = side.index();
        let b = &self.board;
        let mut count = [0u8; NUM_SQUARES];
        let mut bits = self.occ[us];
        while bits != 0 {
            let from = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            match kind_of(b[from]) {
                CHARIOT => {
                    for ray in &t.rays[from] {
                        for &to in ray.as_slice() {
                            count[to as usize] += 1;
                            if b[to as usize] != EMPTY {
                                break;
                            }
                        }
                    }
                }
                CANNON => {
                    for ray in &t.rays[from] {
                        let ray = ray.as_slice();
                        let Some(screen) = ray.iter().position(|&q| b[q as usize] != EMPTY) else {
                            continue;
                        };
                        for &to in &ray[screen + 1..] {
                            count[to as usize] += 1;
                            if b[to as usize] != EMPTY {
                                break;
                            }
                        }
                    }
                }
                HORSE => {
                    for &(to, leg) in t.horse[from].as_slice() {
                        if b[leg as usize] == EMPTY {
                            count[to as usize] += 1;
                        }
                    }
                }
                ELEPHANT => {
                    for &(to, eye) in t.elephant[from].as_slice() {
                        if b[eye as usize] == EMPTY {
                            count[to as usize] += 1;
                        }
                    }
                }
                SOLDIER => {
                    for &to in t.soldier[us][from].as_slice() {
                        count[to as usize] += 1;
                    }
                }
                ADVISOR => {
                    for &to in t.advisor[from].as_slice() {
                        count[to as usize] += 1;
                    }
                }
                _ => {
                    for &to in t.general[from].as_slice() {
                        count[to as usize] += 1;
                    }
                }
            }
        }
        count
    }

    /// The one generator behind [`Xiangqi::generate`] (`LEGAL`: moves that leave the own
    /// general attacked are dropped) and [`Xiangqi::pseudo_legal_moves`] (kept).
    fn generate_moves<S: MoveSink, const LEGAL: bool>(&self, sink: &mut S) {
        let t = tables();
        let us = self.side.index();
        let mut b = self.board;
        let ksq = self.generals[us] as usize;
        let in_check = LEGAL && attacked(&b, t, ksq, us);
        // Squares whose vacating (`from_danger`) or filling (`to_danger`) can expose the
        // general: the rays from it that hold an enemy chariot, cannon or (on the file)
        // general, and the legs of enemy horses; only a cannon's ray can be opened by adding a
        // screen. Everything else is legal without a test when not in check.
        let (from_danger, to_danger) = if !LEGAL {
            (0, 0)
        } else if in_check {
            (!0u128, !0u128)
        } else {
            let them = 1 - us;
            let (e_chariot, e_cannon, e_general) =
                (code(CHARIOT, them), code(CANNON, them), code(GENERAL, them));
            let mut fd = 0u128;
            let mut td = 0u128;
            for (dir, ray) in t.rays[ksq].iter().enumerate() {
                let vertical = dir == NORTH || dir == SOUTH;
                let mut mask = 0u128;
                let mut slider = false;
                let mut cannon = false;
                for &q in ray.as_slice() {
                    mask |= 1u128 << q;
                    let c = b[q as usize];
                    cannon |= c == e_cannon;
                    slider |= c == e_chariot || (vertical && c == e_general);
                }
                if slider || cannon {
                    fd |= mask;
                }
                if cannon {
                    td |= mask;
                }
            }
            let e_horse = code(HORSE, them);
            for &(h, leg) in t.horse_attackers[ksq].as_slice() {
                if b[h as usize] == e_horse {
                    fd |= 1u128 << leg;
                }
            }
            (fd, td)
        };

        let mut bits = self.occ[us];
        while bits != 0 {
            if sink.done() {
                return;
            }
            let from = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let pc = b[from];
            let kind = kind_of(pc);
            let risky_from = (from_danger >> from) & 1 != 0;
            let fsq = Square::from_index_unchecked(from);

            // Tries `from -> to` (target known to be empty or an enemy piece).
            let try_move = |b: &mut [u8; NUM_SQUARES], to: usize, sink: &mut S| {
                let ok = if !LEGAL {
                    true
                } else if kind == GENERAL {
                    let cap = b[to];
                    b[to] = pc;
                    b[from] = EMPTY;
                    let r = !attacked(b, t, to, us);
                    b[from] = pc;
                    b[to] = cap;
                    r
                } else if risky_from || (to_danger >> to) & 1 != 0 {
                    let cap = b[to];
                    b[to] = pc;
                    b[from] = EMPTY;
                    let r = !attacked(b, t, ksq, us);
                    b[from] = pc;
                    b[to] = cap;
                    r
                } else {
                    true
                };
                if ok {
                    sink.push_move(Move::new(fsq, Square::from_index_unchecked(to)));
                }
            };
            let free = |b: &[u8; NUM_SQUARES], to: usize| {
                let c = b[to];
                c == EMPTY || side_of(c) != us
            };

            match kind {
                CHARIOT => {
                    for ray in &t.rays[from] {
                        for &to in ray.as_slice() {
                            let to = to as usize;
                            let c = b[to];
                            if c == EMPTY {
                                try_move(&mut b, to, sink);
                            } else {
                                if side_of(c) != us {
                                    try_move(&mut b, to, sink);
                                }
                                break;
                            }
                        }
                    }
                }
                CANNON => {
                    for ray in &t.rays[from] {
                        let ray = ray.as_slice();
                        let mut i = 0;
                        while i < ray.len() && b[ray[i] as usize] == EMPTY {
                            try_move(&mut b, ray[i] as usize, sink);
                            i += 1;
                        }
                        i += 1; // skip the screen
                        while i < ray.len() {
                            let to = ray[i] as usize;
                            let c = b[to];
                            if c != EMPTY {
                                if side_of(c) != us {
                                    try_move(&mut b, to, sink);
                                }
                                break;
                            }
                            i += 1;
                        }
                    }
                }
                HORSE => {
                    for &(to, leg) in t.horse[from].as_slice() {
                        if b[leg as usize] == EMPTY && free(&b, to as usize) {
                            try_move(&mut b, to as usize, sink);
                        }
                    }
                }
                SOLDIER => {
                    for &to in t.soldier[us][from].as_slice() {
                        if free(&b, to as usize) {
                            try_move(&mut b, to as usize, sink);
                        }
                    }
                }
                ELEPHANT => {
                    for &(to, eye) in t.elephant[from].as_slice() {
                        if b[eye as usize] == EMPTY && free(&b, to as usize) {
                            try_move(&mut b, to as usize, sink);
                        }
                    }
                }
                ADVISOR => {
                    for &to in t.advisor[from].as_slice() {
                        if free(&b, to as usize) {
                            try_move(&mut b, to as usize, sink);
                        }
                    }
                }
                _ => {
                    for &to in t.general[from].as_slice() {
                        if free(&b, to as usize) {
                            try_move(&mut b, to as usize, sink);
                        }
                    }
                }
            }
        }
    }

    /// The legal moves in a stack list.
    #[inline]
    pub(crate) fn legal_list(&self) -> MoveList {
        let mut l = MoveList::new();
        self.generate(&mut l);
        l
    }

    /// Plays a move assumed legal; updates hash, counters, side to move.
    #[inline]
    pub(crate) fn make(&mut self, mv: Move) {
        let from = mv.from.index();
        let to = mv.to.index();
        let us = self.side.index();
        let pc = self.board[from];
        let cap = self.board[to];
        if pc == EMPTY {
            // Not a move of this position; leave it unchanged except for the turn, which the
            // caller's contract (legal moves only) excludes anyway.
            return;
        }
        self.hash ^= zkey(pc, from) ^ zkey(pc, to) ^ ZOBRIST[0];
        if cap != EMPTY {
            self.hash ^= zkey(cap, to);
            self.occ[side_of(cap)] &= !(1u128 << to);
            self.halfmove = 0;
        } else {
            self.halfmove = self.halfmove.saturating_add(1);
        }
        self.occ[us] ^= (1u128 << from) | (1u128 << to);
        self.board[to] = pc;
        self.board[from] = EMPTY;
        if kind_of(pc) == GENERAL {
            self.generals[us] = to as u8;
        }
        if self.side == Side::Second {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.side = self.side.opponent();
        self.ply = self.ply.saturating_add(1);
    }

    /// The position mirrored left-right (files a↔i).
    pub fn mirrored(&self) -> Xiangqi {
        let mut p = self.clone();
        for s in 0..NUM_SQUARES {
            let m = Square::from_index_unchecked(s).mirror().index();
            p.board[m] = self.board[s];
        }
        p.refresh();
        p
    }

    /// Why `mv` is illegal here (for error messages).
    pub(crate) fn illegal_reason_text(&self, mv: Move) -> String {
        let Some(p) = self.piece_at(mv.from) else {
            return format!("there is no piece on {}", mv.from);
        };
        if p.side != self.side {
            return format!("the piece on {} belongs to the opponent", mv.from);
        }
        if let Some(q) = self.piece_at(mv.to) {
            if q.side == self.side {
                return format!("{} is occupied by an own piece", mv.to);
            }
        }
        if !self.pseudo_legal_moves().contains(&mv) {
            return format!("a {:?} cannot move from {} to {}", p.kind, mv.from, mv.to);
        }
        "it would leave the own general attacked or facing the other general".into()
    }
}

impl fmt::Display for Xiangqi {
    /// An ASCII board, Black's back rank (9) on top, with rank numbers on the left and file
    /// letters below; uppercase Red, lowercase Black, `.` empty; then the side to move.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in (0..10u8).rev() {
            write!(f, "{r} ")?;
            for file in 0..9u8 {
                let c = Square::new(file, r)
                    .and_then(|s| self.piece_at(s))
                    .map_or('.', |p| p.to_char());
                if file > 0 {
                    write!(f, " ")?;
                }
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "  a b c d e f g h i")?;
        write!(
            f,
            "{} to move",
            if self.side == Side::First {
                "Red"
            } else {
                "Black"
            }
        )
    }
}

/// Kind index as used internally, from a public kind.
#[inline]
pub(crate) fn kind_code(kind: PieceKind) -> u8 {
    kind.index() as u8
}

#[cfg(test)]
mod attack_tests {
    use super::*;
    use alphazero_game::Game;
    use proptest::prelude::*;

    /// `side`'s pseudo-legal moves that end on `s` once a piece of the other side stands there:
    /// the captures the rules allow onto that square, which is what an attack count counts.
    fn captures_onto(p: &Xiangqi, side: Side, s: usize) -> u8 {
        let mut q = p.clone();
        q.board[s] = code(CHARIOT, 1 - side.index());
        q.side = side;
        q.refresh();
        q.pseudo_legal_moves()
            .iter()
            .filter(|m| m.to.index() == s)
            .count() as u8
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn attack_counts_equal_the_captures_the_move_generator_allows(
            choices in prop::collection::vec(any::<u32>(), 0..80),
        ) {
            let mut p = Xiangqi::start(XiangqiConfig::default());
            let mut positions = vec![p.clone()];
            for c in choices {
                let moves = p.legal_moves_vec();
                if moves.is_empty() {
                    break;
                }
                p.play_unchecked(moves[c as usize % moves.len()]);
                positions.push(p.clone());
            }
            for p in &positions {
                for side in [Side::First, Side::Second] {
                    let counts = p.attack_counts(side);
                    for (s, &n) in counts.iter().enumerate() {
                        if p.board[s] != EMPTY && kind_of(p.board[s]) == GENERAL {
                            continue;
                        }
                        prop_assert_eq!(n, captures_onto(p, side, s), "{} square {}", p.to_fen(), s);
                    }
                }
            }
        }
    }

    #[test]
    fn a_cannon_attacks_only_behind_its_screen() {
        // Red cannon c2, Red soldier c3 as its screen, Black soldier c6 behind it.
        let p = Xiangqi::from_fen(
            "3k5/9/9/2p6/9/9/2P6/2C6/9/4K4 w - - 0 1",
            XiangqiConfig::default(),
        )
        .expect("FEN parses");
        let red = p.attack_counts(Side::First);
        let at = |rank: u8| red[Square::new(2, rank).expect("on the board").index()];
        assert_eq!(at(1), 0, "below the cannon, with no screen: no capture");
        assert_eq!(at(3), 0, "the screen itself");
        assert_eq!(
            at(4),
            2,
            "the soldier's step and the cannon over its screen"
        );
        assert_eq!(at(5), 1, "behind the screen: the cannon");
        assert_eq!(at(6), 1, "the first piece behind the screen");
        assert_eq!(at(7), 0, "beyond that piece");
        let black = p.attack_counts(Side::Second);
        let black_at =
            |file: u8, rank: u8| black[Square::new(file, rank).expect("on the board").index()];
        assert_eq!(
            black_at(2, 5),
            1,
            "a soldier before the river steps ahead only"
        );
        assert_eq!(black_at(1, 6), 0, "and not sideways");
    }
}
