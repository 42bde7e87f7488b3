//! The Gomoku position and its [`Game`] implementation.

use std::fmt;

use alphazero_game::{zobrist_table, Game, IllegalMove, Outcome, ParseError, Side, TacticalProof};

use crate::board::{Board, BLACK, EMPTY, WHITE};
use crate::tactics::{self, VcfResult};
use crate::{Foul, GomokuConfig, GomokuMove, Rule, MAX_SIZE, MIN_SIZE};

const CELLS: usize = MAX_SIZE as usize * MAX_SIZE as usize;
/// Zobrist keys: `[colour * 400 + y * 20 + x]` for stones, `[800]` for "white to move".
static ZOBRIST: [u64; 2 * CELLS + 1] = zobrist_table::<{ 2 * CELLS + 1 }>(0x60A0_C0DE_5EED_0001);
const SIDE_KEY: usize = 2 * CELLS;

/// The most non-four threats (threes) a root or reply VCT chains
/// ([`Game::root_tactical_proof`], [`Game::opponent_may_force_win`]); the node budget usually
/// ends the search first (threat orders deepen one at a time, the fewest first).
pub(crate) const VCT_MAX_THREATS: u32 = 8;

#[inline]
fn stone_key(color: u8, x: i32, y: i32) -> u64 {
    ZOBRIST[usize::from(color - 1) * CELLS + y as usize * MAX_SIZE as usize + x as usize]
}

#[inline]
fn color_of(side: Side) -> u8 {
    match side {
        Side::First => BLACK,
        Side::Second => WHITE,
    }
}

/// The inverse of symmetry `sym` (`0..8`): rotations by 90° and 270° swap, the rest (the
/// identity, the half turn and the four reflections) are their own inverse.
pub fn inverse_symmetry(sym: usize) -> usize {
    match sym % 8 {
        1 => 3,
        3 => 1,
        s => s,
    }
}

/// The image of point `(x, y)` of an `n`×`n` board under symmetry `sym` (taken modulo 8):
/// symmetries 4..8 first mirror left-right (x → n−1−x); then the board is turned a quarter
/// turn `sym % 4` times, each turn mapping (x, y) → (n−1−y, x). Symmetry 0 is the identity.
/// A point off the board is returned unchanged.
#[inline]
pub fn transform_point(n: u8, sym: usize, x: u8, y: u8) -> (u8, u8) {
    if x >= n || y >= n {
        return (x, y);
    }
    let m = n - 1;
    let (mut x, mut y) = if sym % 8 >= 4 { (m - x, y) } else { (x, y) };
    for _ in 0..sym % 4 {
        (x, y) = (m - y, x);
    }
    (x, y)
}

/// A Gomoku / Renju position: stones as row bitboards, side to move, last move, cached
/// outcome and an incrementally updated Zobrist hash.
///
/// `Eq`/`Hash` compare the board, side to move, ply, last move and outcome.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Gomoku {
    config: GomokuConfig,
    board: Board,
    /// Bit `x` of `near[y]`: `(x, y)` is within `candidate_radius` of some stone.
    near: [u32; MAX_SIZE as usize],
    side: Side,
    ply: u32,
    stones: u16,
    last: Option<GomokuMove>,
    outcome: Option<Outcome>,
    hash: u64,
}

impl Gomoku {
    /// Board side length (5..=20).
    #[inline]
    pub fn size(&self) -> usize {
        self.config.size as usize
    }

    /// The rule set.
    #[inline]
    pub fn rule(&self) -> Rule {
        self.config.rule
    }

    /// The stone at column `x`, row `y` (`Side::First` = black), `None` when empty or off
    /// the board.
    #[inline]
    pub fn stone_at(&self, x: usize, y: usize) -> Option<Side> {
        if x >= self.size() || y >= self.size() {
            return None;
        }
        match self.board.get(x as i32, y as i32) {
            BLACK => Some(Side::First),
            WHITE => Some(Side::Second),
            _ => None,
        }
    }

    /// Row `y` of `side`'s stones as a bit mask (bit `x` set = stone at column `x`); 0 for
    /// `y` off the board. Fast path for network encoders.
    #[inline]
    pub fn row_bits(&self, side: Side, y: usize) -> u32 {
        if y >= self.size() {
            return 0;
        }
        self.board.stones[side.index()][y]
    }

    /// The last move played, `None` at the start or after [`Gomoku::from_stones`].
    #[inline]
    pub fn last_move(&self) -> Option<GomokuMove> {
        self.last
    }

    /// Number of stones on the board.
    #[inline]
    pub fn stone_count(&self) -> usize {
        usize::from(self.stones)
    }

    /// Whether `mv` lies on this board.
    #[inline]
    pub fn on_board(&self, mv: GomokuMove) -> bool {
        usize::from(mv.x) < self.size() && usize::from(mv.y) < self.size()
    }

    /// The renju foul that a **black** stone on `mv` would commit here, whoever is to move.
    /// `None` under the other rules, for an occupied or off-board point, and when the move
    /// makes exactly five (five takes precedence over every foul).
    pub fn is_forbidden(&self, mv: GomokuMove) -> Option<Foul> {
        if self.config.rule != Rule::Renju || !self.on_board(mv) {
            return None;
        }
        let mut board = self.board;
        board.foul(i32::from(mv.x), i32::from(mv.y))
    }

    /// Every empty point that is forbidden for black (renju only), row by row (y, then x).
    pub fn forbidden_points(&self) -> Vec<(GomokuMove, Foul)> {
        let mut out = Vec::new();
        if self.config.rule != Rule::Renju {
            return out;
        }
        let mut board = self.board;
        for y in 0..self.config.size {
            for x in 0..self.config.size {
                if let Some(f) = board.foul(i32::from(x), i32::from(y)) {
                    out.push((GomokuMove::new(x, y), f));
                }
            }
        }
        out
    }

    /// The move mapped by symmetry `sym` (see [`transform_point`]); off-board moves are
    /// returned unchanged.
    pub fn transform_move(&self, sym: usize, mv: GomokuMove) -> GomokuMove {
        if !self.on_board(mv) {
            return mv;
        }
        let (x, y) = transform_point(self.config.size, sym, mv.x, mv.y);
        GomokuMove::new(x, y)
    }

    /// A position set up from lists of stones (for tests and the protocols' `BOARD`
    /// command), with `side_to_move` to play, ply 0 and no last move. The outcome is derived
    /// from the stones: a winning row of the side not to move reads `Loss`, one of the side
    /// to move `Win`, a full board `Draw`.
    ///
    /// # Errors
    /// [`ParseError`] when the config's size is outside 5..=20, a stone is off the board, or
    /// a point is given twice.
    pub fn from_stones(
        config: &GomokuConfig,
        black: &[GomokuMove],
        white: &[GomokuMove],
        side_to_move: Side,
    ) -> Result<Self, ParseError> {
        GomokuConfig::new(config.size, config.rule)?;
        let mut pos = Gomoku::new(config);
        for (list, color) in [(black, BLACK), (white, WHITE)] {
            for &mv in list {
                if !pos.on_board(mv) {
                    return Err(ParseError::new(
                        "stone",
                        mv.to_string(),
                        format!("off the {0}x{0} board", config.size),
                    ));
                }
                let (x, y) = (i32::from(mv.x), i32::from(mv.y));
                if pos.board.get(x, y) != EMPTY {
                    return Err(ParseError::new(
                        "stone",
                        mv.to_string(),
                        "point given twice",
                    ));
                }
                pos.board.set(x, y, color);
                pos.stones += 1;
            }
        }
        pos.side = side_to_move;
        pos.rebuild();
        let rule = pos.config.rule;
        let n = pos.config.size as i32;
        let mut wins = [false; 2];
        for y in 0..n {
            for x in 0..n {
                let c = pos.board.get(x, y);
                if c != EMPTY && pos.board.wins_at(x, y, c, rule) {
                    wins[usize::from(c - 1)] = true;
                }
            }
        }
        pos.outcome = if wins[side_to_move.opponent().index()] {
            Some(Outcome::Loss)
        } else if wins[side_to_move.index()] {
            Some(Outcome::Win)
        } else if pos.stone_count() == pos.size() * pos.size() {
            Some(Outcome::Draw)
        } else {
            None
        };
        Ok(pos)
    }

    /// The empty points where a stone of `side` would win now (make five under the rule), in
    /// ascending action index. Empty once the game is over.
    pub fn five_points(&self, side: Side) -> Vec<GomokuMove> {
        if self.outcome.is_some() {
            return Vec::new();
        }
        let mut out = Vec::new();
        self.board
            .five_points(color_of(side), self.config.rule, &mut out);
        out.into_iter()
            .map(|(x, y)| GomokuMove::new(x as u8, y as u8))
            .collect()
    }

    /// VCF (victory by continuous fours) for the side to move, placing at most `budget`
    /// stones in the search. [`VcfResult::Win`] carries the proof line (attacker's fours and
    /// the defender's forced blocks alternating); [`VcfResult::NoWin`] means no VCF exists;
    /// [`VcfResult::Unknown`] that the budget ran out. A finished game has no VCF.
    pub fn vcf(&self, budget: u32) -> VcfResult {
        self.vcf_counted(budget).0
    }

    /// [`Gomoku::vcf`] and the number of stones the search placed (its nodes), for
    /// benchmarks.
    pub fn vcf_counted(&self, budget: u32) -> (VcfResult, u32) {
        if self.outcome.is_some() {
            return (VcfResult::NoWin, 0);
        }
        tactics::vcf(&self.board, self.config.rule, self.side, budget)
    }

    /// VCT (victory by continuous threats: threes and fours) for the side to move with at
    /// most `depth` non-four threats, within `budget` stones placed by its inner VCF
    /// searches: the winning first move, or `None`. Defender replies farther than distance 2
    /// from every stone are not tried (see the tactics module). Also returns the stones
    /// placed. A finished game has no VCT.
    pub fn vct(&self, depth: u32, budget: u32) -> (Option<GomokuMove>, u32) {
        if self.outcome.is_some() {
            return (None, 0);
        }
        tactics::vct(&self.board, self.config.rule, self.side, depth, budget)
    }

    /// The moves that matter when a five is threatened, and whether the position is decided
    /// by them: `Some((moves, outcome))` when the side to move can make five (`moves` = that
    /// point, `Win`), or the opponent threatens five (`moves` = the blocks the side to move
    /// may play; `Loss` when they cannot stop every threat), `None` otherwise.
    fn forced_moves(&self) -> Option<(Vec<GomokuMove>, Option<Outcome>)> {
        let own = self.five_points(self.side);
        if let Some(&mv) = own.first() {
            return Some((vec![mv], Some(Outcome::Win)));
        }
        let threats = self.five_points(self.side.opponent());
        if threats.is_empty() {
            return None;
        }
        let mut board = self.board;
        let color = color_of(self.side);
        let blocks: Vec<GomokuMove> = threats
            .iter()
            .copied()
            .filter(|m| board.may_play(i32::from(m.x), i32::from(m.y), color, self.config.rule))
            .collect();
        let lost = threats.len() >= 2 || blocks.is_empty();
        Some((blocks, lost.then_some(Outcome::Loss)))
    }

    /// Recomputes the candidate mask and the hash from the stones.
    fn rebuild(&mut self) {
        self.near = [0; MAX_SIZE as usize];
        self.hash = if self.side == Side::Second {
            ZOBRIST[SIDE_KEY]
        } else {
            0
        };
        let n = self.config.size as i32;
        for y in 0..n {
            for x in 0..n {
                let c = self.board.get(x, y);
                if c != EMPTY {
                    self.hash ^= stone_key(c, x, y);
                    self.mark_near(x, y);
                }
            }
        }
    }

    /// Marks the points within `candidate_radius` of `(x, y)` as near a stone.
    #[inline]
    fn mark_near(&mut self, x: i32, y: i32) {
        let n = self.config.size as i32;
        let r = i32::from(self.config.candidate_radius).min(n);
        let lo = (x - r).max(0);
        let hi = (x + r).min(n - 1);
        let mask = ((1u64 << (hi + 1)) - (1u64 << lo)) as u32;
        for row in (y - r).max(0)..=(y + r).min(n - 1) {
            self.near[row as usize] |= mask;
        }
    }

    /// Why `mv` cannot be played here, `None` when it is legal.
    fn why_illegal(&self, mv: GomokuMove) -> Option<&'static str> {
        if !self.on_board(mv) {
            Some("off the board")
        } else if self.outcome.is_some() {
            Some("game over")
        } else if self.board.get(i32::from(mv.x), i32::from(mv.y)) != EMPTY {
            Some("occupied")
        } else {
            None
        }
    }
}

impl Game for Gomoku {
    type Move = GomokuMove;
    type Config = GomokuConfig;

    const NAME: &'static str = "gomoku";

    /// The empty board, black to move. A size outside 5..=20 is clamped into that range.
    fn new(config: &GomokuConfig) -> Self {
        let mut config = *config;
        config.size = config.size.clamp(MIN_SIZE, MAX_SIZE);
        Gomoku {
            config,
            board: Board::new(config.size),
            near: [0; MAX_SIZE as usize],
            side: Side::First,
            ply: 0,
            stones: 0,
            last: None,
            outcome: None,
            hash: 0,
        }
    }

    fn config(&self) -> &GomokuConfig {
        &self.config
    }

    fn side_to_move(&self) -> Side {
        self.side
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    /// Every empty point, row by row (ascending action index); none once the game is over.
    fn legal_moves(&self, out: &mut Vec<GomokuMove>) {
        out.clear();
        if self.outcome.is_some() {
            return;
        }
        let n = self.config.size;
        let full = ((1u64 << n) - 1) as u32;
        for y in 0..n {
            let yi = usize::from(y);
            let mut free = full & !(self.board.stones[0][yi] | self.board.stones[1][yi]);
            while free != 0 {
                let x = free.trailing_zeros() as u8;
                free &= free - 1;
                out.push(GomokuMove::new(x, y));
            }
        }
    }

    /// Empty points within Chebyshev distance `candidate_radius` of a stone (the centre on
    /// an empty board), in ascending action index; under renju with black to move, black's
    /// forbidden points are left out. Falls back to all legal moves if that leaves nothing.
    fn candidate_moves(&self, out: &mut Vec<GomokuMove>) {
        out.clear();
        if self.outcome.is_some() {
            return;
        }
        let n = self.config.size;
        if self.stones == 0 {
            // The opening set: the points within distance 2 of the centre (clipped to the
            // board), so that self-play and the network see more than one first move.
            let c = i32::from(n / 2);
            let r = i32::from(self.config.candidate_radius).min(c);
            for y in c - r..=c + r {
                for x in c - r..=c + r {
                    if (0..i32::from(n)).contains(&x) && (0..i32::from(n)).contains(&y) {
                        out.push(GomokuMove::new(x as u8, y as u8));
                    }
                }
            }
            return;
        }
        let renju_black = self.config.rule == Rule::Renju && self.side == Side::First;
        let mut scratch = self.board;
        for y in 0..n {
            let yi = usize::from(y);
            let mut free = self.near[yi] & !(self.board.stones[0][yi] | self.board.stones[1][yi]);
            while free != 0 {
                let x = free.trailing_zeros() as u8;
                free &= free - 1;
                if renju_black && scratch.foul(i32::from(x), i32::from(y)).is_some() {
                    continue;
                }
                out.push(GomokuMove::new(x, y));
            }
        }
        if out.is_empty() {
            self.legal_moves(out);
        }
    }

    /// When a five is threatened the set is exactly the forced moves (own five, else the
    /// blocks of the opponent's five points that the side to move may play) and complete;
    /// otherwise [`Game::candidate_moves`], complete only when it is every legal move.
    fn search_moves(&self, out: &mut Vec<GomokuMove>) -> bool {
        out.clear();
        if self.outcome.is_some() {
            return true;
        }
        if let Some((moves, _)) = self.forced_moves() {
            if !moves.is_empty() {
                out.extend(moves);
                return true;
            }
        }
        self.candidate_moves(out);
        out.len() + self.stone_count() == self.size() * self.size()
    }

    /// Freestyle and standard: when the opponent has a VCF (found within `budget` stones) as if
    /// the side to move passed, the empty points that can touch it (see the tactics module:
    /// its points, the lines within 4 of its blocks and of its last four, and the side to
    /// move's own fours) after which that VCF, played again, no longer wins; any other move
    /// loses to it. Not when a five is threatened
    /// ([`Game::search_moves`] has the blocks then), nor under renju.
    fn threat_replies(&self, budget: u32, out: &mut Vec<GomokuMove>) -> bool {
        if self.outcome.is_some() || self.config.rule == Rule::Renju || budget == 0 {
            return false;
        }
        if self.forced_moves().is_some() {
            return false;
        }
        let opponent = self.side.opponent();
        let (VcfResult::Win(line), _) =
            tactics::vcf(&self.board, self.config.rule, opponent, budget)
        else {
            return false;
        };
        let Some(rows) = tactics::replies_touching(&self.board, self.config.rule, opponent, &line)
        else {
            return false;
        };
        out.clear();
        let n = self.board.n;
        let own = color_of(self.side);
        let mut board = self.board;
        for (y, &row) in rows.iter().enumerate().take(n as usize) {
            let occupied = board.stones[0][y] | board.stones[1][y];
            let mut free = row & !occupied;
            while free != 0 {
                let x = free.trailing_zeros() as i32;
                free &= free - 1;
                // A move after which the same forced line still wins is lost: left out.
                board.set(x, y as i32, own);
                let (lost, _) =
                    tactics::line_still_wins(&mut board, self.config.rule, opponent, &line);
                board.clear(x, y as i32);
                if !lost {
                    out.push(GomokuMove::new(x as u8, y as u8));
                }
            }
        }
        !out.is_empty()
    }

    /// A five now (`Win`), a threat of five the side to move cannot stop (two five points, or
    /// under renju one on black's forbidden point: `Loss`), else a VCF found within `budget`
    /// stones (`Win`, with its line). `budget` 0 still reports fives and unstoppable threats.
    fn tactical_proof(&self, budget: u32) -> Option<TacticalProof<GomokuMove>> {
        if self.outcome.is_some() {
            return None;
        }
        let forced = self.forced_moves();
        match forced {
            Some((moves, Some(Outcome::Win))) => {
                return Some(TacticalProof {
                    outcome: Outcome::Win,
                    best: moves.first().copied(),
                    line: moves,
                })
            }
            Some((_, Some(o))) => {
                return Some(TacticalProof {
                    outcome: o,
                    best: None,
                    line: Vec::new(),
                })
            }
            _ => {}
        }
        if budget == 0 {
            return None;
        }
        let vcf = if forced.is_none() {
            // Neither side has a five point: the VCF need not look for them again.
            tactics::vcf_without_fives(&self.board, self.config.rule, self.side, budget).0
        } else {
            self.vcf(budget)
        };
        match vcf {
            VcfResult::Win(line) => Some(TacticalProof {
                outcome: Outcome::Win,
                best: line.first().copied(),
                line,
            }),
            VcfResult::NoWin | VcfResult::Unknown => None,
        }
    }

    /// `the board is full`, `five in a row with h8`, or under renju `black's h8 is a renju
    /// forbidden move, a double-three, and loses`.
    fn end_reason_text(&self, _history: &[alphazero_game::HistoryEntry]) -> Option<String> {
        let outcome = self.outcome?;
        if outcome == Outcome::Draw {
            return Some("the board is full".into());
        }
        let last = self.last?;
        let at = self.format_move(last);
        if outcome == Outcome::Win {
            // The side to move won on the other side's move: black's renju foul.
            let mut board = self.board;
            board.clear(i32::from(last.x), i32::from(last.y));
            let kind = match board.foul(i32::from(last.x), i32::from(last.y)) {
                Some(crate::Foul::DoubleThree) => "a double-three",
                Some(crate::Foul::DoubleFour) => "a double-four",
                Some(crate::Foul::Overline) => "an overline",
                None => return Some(format!("a forbidden move at {at}")),
            };
            return Some(format!(
                "black's {at} is a renju forbidden move, {kind}, and loses"
            ));
        }
        Some(format!("five in a row with {at}"))
    }

    /// [`Game::tactical_proof`], then a VCT of up to [`VCT_MAX_THREATS`] non-four threats
    /// (the fewest first) within `budget` stones placed (defences within distance 2 of the
    /// stones; see [`Gomoku::vct`]).
    fn root_tactical_proof(&self, budget: u32) -> Option<TacticalProof<GomokuMove>> {
        if let Some(p) = self.tactical_proof(budget.min(20_000)) {
            return Some(p);
        }
        if self.forced_moves().is_some() {
            return None; // a five is threatened: the VCF above decides
        }
        let (best, _) = self.vct(VCT_MAX_THREATS, budget);
        best.map(|mv| TacticalProof {
            outcome: Outcome::Win,
            best: Some(mv),
            line: vec![mv],
        })
    }

    /// Freestyle and standard: the opponent's VCT (with its VCF) as if the side to move
    /// passed; `true` when found or when the budget ran out. A stone only blocks the
    /// opponent's lines (under both rules a row's length is the opponent's stones alone), so
    /// no move gives the opponent a win a pass would not. Renju: always `true` (a white stone
    /// can turn a black double-three into a legal point, and a black stone can make black's
    /// own defences forbidden).
    fn opponent_may_force_win(&self, budget: u32) -> bool {
        if self.outcome.is_some() {
            return false;
        }
        if self.config.rule == Rule::Renju {
            return true;
        }
        let opponent = self.side.opponent();
        if !self.five_points(opponent).is_empty() {
            return true;
        }
        let (found, nodes) = tactics::vct(
            &self.board,
            self.config.rule,
            opponent,
            VCT_MAX_THREATS,
            budget,
        );
        found.is_some() || nodes >= budget
    }

    /// A move ends the game when it makes five (a five point of the side to move), is one of
    /// black's renju fouls, or fills the board: `false` when the side to move has no five
    /// point, is not black under renju, and more than one point is empty.
    fn may_end_in_one(&self) -> bool {
        self.outcome.is_some()
            || (self.config.rule == Rule::Renju && self.side == Side::First)
            || self.stone_count() + 1 >= self.size() * self.size()
            || self
                .board
                .five_rows(color_of(self.side), self.config.rule)
                .iter()
                .any(|&r| r != 0)
    }

    fn is_legal(&self, mv: GomokuMove) -> bool {
        self.why_illegal(mv).is_none()
    }

    /// Drops a stone of the side to move. An off-board or occupied point leaves the position
    /// unchanged.
    fn play_unchecked(&mut self, mv: GomokuMove) {
        if !self.on_board(mv) {
            return;
        }
        let (x, y) = (i32::from(mv.x), i32::from(mv.y));
        if self.board.get(x, y) != EMPTY {
            return;
        }
        let color = color_of(self.side);
        let rule = self.config.rule;
        let foul = if rule == Rule::Renju && color == BLACK {
            self.board.foul(x, y)
        } else {
            None
        };
        self.board.set(x, y, color);
        self.hash ^= stone_key(color, x, y) ^ ZOBRIST[SIDE_KEY];
        self.mark_near(x, y);
        self.stones += 1;
        self.ply += 1;
        self.last = Some(mv);
        self.side = self.side.opponent();
        self.outcome = if self.board.wins_at(x, y, color, rule) {
            Some(Outcome::Loss)
        } else if foul.is_some() {
            Some(Outcome::Win)
        } else if self.stone_count() == self.size() * self.size() {
            Some(Outcome::Draw)
        } else {
            None
        };
    }

    /// Like the provided method, with the reasons `off the board`, `game over` and `occupied`.
    fn play(&mut self, mv: GomokuMove) -> Result<(), IllegalMove> {
        if let Some(reason) = self.why_illegal(mv) {
            return Err(IllegalMove {
                mv: mv.to_string(),
                reason: reason.into(),
            });
        }
        self.play_unchecked(mv);
        Ok(())
    }

    fn illegal_reason(&self, mv: GomokuMove) -> String {
        self.why_illegal(mv)
            .unwrap_or("not a legal move in this position")
            .into()
    }

    /// Cached at play time (O(1)): after a winning move `Loss`; after a forbidden black move
    /// under renju `Win` (white to move has won); full board `Draw`.
    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn zobrist(&self) -> u64 {
        self.hash
    }

    /// The Zobrist hash (stones and side to move) mixed with the last move, which the
    /// network's last-move plane shows: the same stones played in another order are another
    /// network input. Equals [`Game::zobrist`] when there is no last move.
    fn eval_key(&self, _history: &[alphazero_game::HistoryEntry]) -> u64 {
        match self.last {
            None => self.hash,
            Some(m) => {
                // murmur3's 64-bit finalizer: a bijection, so distinct points mix distinctly.
                let mut z = 1 + u64::from(m.x) + (u64::from(m.y) << 8);
                z = (z ^ (z >> 33)).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
                z = (z ^ (z >> 33)).wrapping_mul(0xC4CE_B9FE_1A85_EC53);
                self.hash ^ z ^ (z >> 33)
            }
        }
    }

    fn zobrist_from_scratch(&self) -> u64 {
        let mut h = if self.side == Side::Second {
            ZOBRIST[SIDE_KEY]
        } else {
            0
        };
        let n = self.config.size as i32;
        for y in 0..n {
            for x in 0..n {
                let c = self.board.get(x, y);
                if c != EMPTY {
                    h ^= stone_key(c, x, y);
                }
            }
        }
        h
    }

    /// size², action = y · size + x.
    fn num_actions(&self) -> usize {
        self.size() * self.size()
    }

    fn move_to_action(&self, mv: GomokuMove) -> usize {
        usize::from(mv.y) * self.size() + usize::from(mv.x)
    }

    fn action_to_move(&self, action: usize) -> Option<GomokuMove> {
        let n = self.size();
        (action < n * n).then(|| GomokuMove::new((action % n) as u8, (action / n) as u8))
    }

    /// 8: the dihedral group of the square (see [`transform_point`]).
    fn num_symmetries(&self) -> usize {
        8
    }

    /// See [`transform_point`]; an index outside the action space is returned unchanged.
    fn transform_action(&self, sym: usize, action: usize) -> usize {
        match self.action_to_move(action) {
            Some(mv) => self.move_to_action(self.transform_move(sym, mv)),
            None => action,
        }
    }

    /// Stones and last move mapped by [`transform_point`]; hash recomputed.
    fn transform(&self, sym: usize) -> Self {
        let n = self.config.size;
        let mut board = Board::new(n);
        for y in 0..n {
            for x in 0..n {
                let c = self.board.get(i32::from(x), i32::from(y));
                if c != EMPTY {
                    let (tx, ty) = transform_point(n, sym, x, y);
                    board.set(i32::from(tx), i32::from(ty), c);
                }
            }
        }
        let mut out = Gomoku {
            board,
            last: self.last.map(|m| self.transform_move(sym, m)),
            ..self.clone()
        };
        out.rebuild();
        out
    }

    /// `h8` (case-insensitive) or Gomocup `x,y`.
    ///
    /// # Errors
    /// [`ParseError`] for malformed text or a point off this board.
    fn parse_move(&self, text: &str) -> Result<GomokuMove, ParseError> {
        let mv = if text.contains(',') {
            GomokuMove::parse_gomocup(text)?
        } else {
            GomokuMove::parse_coord_within(text, self.size() as u8)?
        };
        if !self.on_board(mv) {
            return Err(ParseError::new(
                "move",
                text,
                format!("off the {0}x{0} board", self.size()),
            ));
        }
        Ok(mv)
    }

    /// (size, size).
    fn board_shape(&self) -> (usize, usize) {
        (self.size(), self.size())
    }
}

impl fmt::Display for Gomoku {
    /// ASCII board, highest row on top: column letters above and below, row numbers (y + 1)
    /// left and right, `X` black, `O` white, `.` empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.config.size;
        let letters = |f: &mut fmt::Formatter<'_>| -> fmt::Result {
            write!(f, "  ")?;
            for x in 0..n {
                write!(f, " {}", (b'a' + x) as char)?;
            }
            writeln!(f)
        };
        letters(f)?;
        for y in (0..n).rev() {
            write!(f, "{:>2}", u32::from(y) + 1)?;
            for x in 0..n {
                let c = match self.stone_at(usize::from(x), usize::from(y)) {
                    Some(Side::First) => 'X',
                    Some(Side::Second) => 'O',
                    None => '.',
                };
                write!(f, " {c}")?;
            }
            writeln!(f, " {}", u32::from(y) + 1)?;
        }
        letters(f)
    }
}
