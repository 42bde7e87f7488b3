//! `alphazero_game::Game` for [`Xiangqi`], with the repetition rules.

use crate::actions::{self, NUM_ACTIONS};
use crate::position::{AnyMove, MoveList, Xiangqi, XiangqiConfig};
use crate::types::Move;
use alphazero_game::{
    count_repetitions, Game, HistoryEntry, Outcome, ParseError, Side, TacticalProof,
};

impl Xiangqi {
    /// The move as seen from the side to move (rotated by 180° when Black is to move).
    #[inline]
    fn oriented(&self, mv: Move) -> Move {
        match self.side {
            Side::First => mv,
            Side::Second => mv.rotate(),
        }
    }

    /// The action index of `mv` seen from the side to move, or `None` when the from→to shape
    /// is not in the action space (never the case for a legal move).
    pub fn try_move_to_action(&self, mv: Move) -> Option<usize> {
        actions::index_of(self.oriented(mv))
    }

    /// Whether the side to move has at least one legal move (generation stops at the first
    /// piece that has one).
    pub fn has_legal_move(&self) -> bool {
        let mut any = AnyMove::default();
        self.generate(&mut any);
        any.0
    }
}

impl Game for Xiangqi {
    type Move = Move;
    type Config = XiangqiConfig;
    const NAME: &'static str = "xiangqi";

    fn new(config: &XiangqiConfig) -> Self {
        Xiangqi::start(*config)
    }

    fn config(&self) -> &XiangqiConfig {
        &self.config
    }

    fn side_to_move(&self) -> Side {
        self.side
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    fn legal_moves(&self, out: &mut Vec<Move>) {
        out.clear();
        self.generate(out);
    }

    /// Every mate in one (a move that leaves the opponent no legal move, check or not), else
    /// a mate by continuous checks within `budget` nodes ([`Xiangqi::mate_search`]): a `Win`
    /// with its first move and line. Nothing else is proven. `budget` 0: mates in one only.
    fn tactical_proof(&self, budget: u32) -> Option<TacticalProof<Move>> {
        self.mate_proof(budget)
    }

    /// Every legal move (the search considers them all), always complete.
    fn search_moves(&self, out: &mut Vec<Move>) -> bool {
        self.legal_moves(out);
        true
    }

    fn is_legal(&self, mv: Move) -> bool {
        match self.piece_at(mv.from) {
            Some(p) if p.side == self.side => {}
            _ => return false,
        }
        self.legal_list().as_slice().contains(&mv)
    }

    fn play_unchecked(&mut self, mv: Move) {
        self.make(mv);
    }

    fn illegal_reason(&self, mv: Move) -> String {
        self.illegal_reason_text(mv)
    }

    /// No legal move (checkmate or stalemate): `Loss`. Otherwise the no-capture counter at
    /// `no_capture_draw_plies` (when non-zero): `Draw`.
    fn outcome(&self) -> Option<Outcome> {
        if !self.has_legal_move() {
            return Some(Outcome::Loss);
        }
        let limit = self.config.no_capture_draw_plies;
        if limit > 0 && self.halfmove >= limit {
            return Some(Outcome::Draw);
        }
        None
    }

    /// [`Game::outcome`], then repetition: when the current position has occurred
    /// `repetition_count` times (this one included) since the last capture, the cycle since
    /// its previous occurrence is judged by [`Xiangqi::repetition_verdict`] (perpetual check
    /// loses, then, under the Asian rule, perpetual chase loses; otherwise draw).
    /// [`Xiangqi::end_reason`] says which rule ended the game.
    /// The rules' own words ([`Xiangqi::end_reason`]): checkmate, stalemate, the no-capture
    /// limit, or the repetition verdict (`repetition: perpetual chase by red loses`).
    fn end_reason_text(&self, history: &[HistoryEntry]) -> Option<String> {
        self.end_reason(history).map(|r| r.to_string())
    }

    fn adjudicate(&self, history: &[HistoryEntry]) -> Option<Outcome> {
        self.outcome().or_else(|| {
            self.repetition_verdict(history)
                .map(|v| v.outcome(self.side))
        })
    }

    fn is_irreversible(&self, mv: Move) -> bool {
        self.is_capture(mv)
    }

    fn in_check(&self) -> bool {
        self.is_check()
    }

    fn zobrist(&self) -> u64 {
        self.hash
    }

    fn zobrist_from_scratch(&self) -> u64 {
        self.compute_hash()
    }

    /// The Zobrist hash mixed with what else the network sees: how often the position
    /// occurred before (since the last capture) and the no-capture clock
    /// ([`Xiangqi::halfmove_clock`]); equals [`Game::zobrist`] for a first occurrence at
    /// clock 0.
    fn eval_key(&self, history: &[HistoryEntry]) -> u64 {
        let n = u64::from(count_repetitions(history, self.hash));
        // murmur3's 64-bit finalizer of (repetitions, clock): a bijection with 0 ↦ 0.
        let mut z = (n << 16) | u64::from(self.halfmove);
        z = (z ^ (z >> 33)).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        z = (z ^ (z >> 33)).wrapping_mul(0xC4CE_B9FE_1A85_EC53);
        self.hash ^ z ^ (z >> 33)
    }

    fn num_actions(&self) -> usize {
        NUM_ACTIONS
    }

    /// Index of the move seen from the side to move (Black's moves are rotated by 180°
    /// first). A move outside the action space (never a legal one) maps to `NUM_ACTIONS`,
    /// which is out of range; use [`Xiangqi::try_move_to_action`] to detect it.
    fn move_to_action(&self, mv: Move) -> usize {
        self.try_move_to_action(mv).unwrap_or(NUM_ACTIONS)
    }

    fn action_to_move(&self, action: usize) -> Option<Move> {
        actions::move_of(action).map(|m| self.oriented(m))
    }

    fn num_symmetries(&self) -> usize {
        2
    }

    /// Symmetry 1 is the left-right mirror; 0 the identity (indices are taken modulo 2).
    fn transform_action(&self, sym: usize, action: usize) -> usize {
        if sym % 2 == 1 {
            actions::mirror_action(action)
        } else {
            action
        }
    }

    /// Symmetry 1 mirrors files a↔i; 0 is the identity (indices are taken modulo 2).
    fn transform(&self, sym: usize) -> Self {
        if sym % 2 == 1 {
            self.mirrored()
        } else {
            self.clone()
        }
    }

    /// ICCS (`h2e2`, `H2-E2`) or, for the side to move, WXF (`C2=5`; see
    /// [`Xiangqi::parse_wxf`]). The two never overlap: the third character of a 4-character
    /// WXF move is `+`, `-`, `=` or `.`, where ICCS has a file letter.
    fn parse_move(&self, text: &str) -> Result<Move, ParseError> {
        let t = text.trim();
        let wxf = t.chars().count() == 4 && matches!(t.chars().nth(2), Some('+' | '-' | '=' | '.'));
        if wxf {
            self.parse_wxf(t)
                .map_err(|e| ParseError::new("move", text, e.reason))
        } else {
            Move::parse_iccs(text)
        }
    }

    fn board_shape(&self) -> (usize, usize) {
        (10, 9)
    }
}

/// A stack list of legal moves for the perft driver.
#[inline]
pub(crate) fn legal_list(pos: &Xiangqi) -> MoveList {
    pos.legal_list()
}
