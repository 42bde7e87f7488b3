//! A small alpha-beta Xiangqi player.

use alphazero_game::{Game, History, Side};
use alphazero_xiangqi::{Move, PieceKind, Square, Xiangqi, NUM_SQUARES};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

use crate::player::{Limits, MoveChoice, Player, PlayerError};

/// Score of being mated now, in centipawns (mate in `n` plies scores `MATE - n`).
const MATE: i32 = 100_000;
/// Plies of captures searched below the nominal depth.
const QUIESCENCE_PLIES: u32 = 6;
/// The highest score a root move that repeats an earlier position of the game may get
/// (slightly below a draw).
pub const REPEAT_SCORE: i32 = -50;

/// Negamax alpha-beta Xiangqi player at a fixed depth (1–4 plies; [`Limits::depth`]
/// overrides it for a move, clamped to 1..=6).
///
/// Evaluation from the side to move in centipawns: material (chariot 900, cannon 450, horse
/// 400, advisor and elephant 200, soldier 100 before the river and 200 after) plus small
/// piece-square terms (soldiers advancing towards the palace, centralised horses, attackers
/// near the enemy general). Captures are searched to quiescence (up to 6 plies, stand-pat),
/// moves ordered captures first by MVV-LVA. The root moves are shuffled by a seeded RNG
/// before the stable ordering, so equal scores are broken deterministically per seed.
/// Repetition inside the search is ignored, but root moves that repeat an earlier position of
/// the game score at most [`REPEAT_SCORE`]; the no-capture draw counter is honoured.
#[derive(Clone, Debug)]
pub struct XiangqiAlphaBeta {
    /// Nominal search depth in plies (1–4 recommended).
    pub depth: u32,
    rng: StdRng,
    nodes: u64,
    bufs: Vec<Vec<Move>>,
}

fn value(kind: PieceKind) -> i32 {
    match kind {
        PieceKind::General => 0,
        PieceKind::Advisor | PieceKind::Elephant => 200,
        PieceKind::Horse => 400,
        PieceKind::Chariot => 900,
        PieceKind::Cannon => 450,
        PieceKind::Soldier => 100,
    }
}

/// Material and piece-square value of a piece of `side` on `sq`, given the enemy general's
/// square.
fn piece_score(kind: PieceKind, side: Side, sq: Square, enemy_general: Square) -> i32 {
    // Rank counted from the owner's side.
    let rank = if side == Side::First {
        sq.rank()
    } else {
        9 - sq.rank()
    } as i32;
    let file = sq.file() as i32;
    let centre = 4 - (file - 4).abs();
    let dist = (file - enemy_general.file() as i32).abs()
        + (sq.rank() as i32 - enemy_general.rank() as i32).abs();
    let tropism = (10 - dist).max(0);
    match kind {
        PieceKind::Soldier if rank >= 5 => 200 + 10 * (rank - 5).min(3) + 8 * centre + 3 * tropism,
        PieceKind::Soldier => 100,
        PieceKind::Horse => 400 + 6 * centre + 4 * rank.min(7) + 4 * tropism,
        PieceKind::Chariot => 900 + 2 * centre + 4 * tropism,
        PieceKind::Cannon => 450 + 3 * centre + 2 * tropism,
        k => value(k),
    }
}

/// Static evaluation from the side to move, centipawns.
fn evaluate(pos: &Xiangqi) -> i32 {
    let us = pos.side_to_move();
    let generals = [
        pos.general_square(Side::First),
        pos.general_square(Side::Second),
    ];
    let mut s = 0;
    for i in 0..NUM_SQUARES {
        let Some(sq) = Square::from_index(i) else {
            continue;
        };
        if let Some(p) = pos.piece_at(sq) {
            let v = piece_score(p.kind, p.side, sq, generals[p.side.opponent().index()]);
            s += if p.side == us { v } else { -v };
        }
    }
    s
}

/// MVV-LVA ordering key (higher first): captures by victim value then cheaper attacker.
fn order_key(pos: &Xiangqi, mv: Move) -> i32 {
    match (pos.piece_at(mv.to), pos.piece_at(mv.from)) {
        (Some(victim), Some(attacker)) => {
            10_000 + 16 * value(victim.kind) - value(attacker.kind) / 10
        }
        _ => 0,
    }
}

impl XiangqiAlphaBeta {
    /// A player searching `depth` plies, tie-breaks seeded by `seed`.
    pub fn new(depth: u32, seed: u64) -> Self {
        XiangqiAlphaBeta {
            depth,
            rng: StdRng::seed_from_u64(seed),
            nodes: 0,
            bufs: Vec::new(),
        }
    }

    /// Nodes visited by the last search.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    fn take_buf(&mut self, ply: usize) -> Vec<Move> {
        if self.bufs.len() <= ply {
            self.bufs.resize_with(ply + 1, Vec::new);
        }
        std::mem::take(&mut self.bufs[ply])
    }

    fn draw_by_counter(pos: &Xiangqi) -> bool {
        let limit = pos.config().no_capture_draw_plies;
        limit > 0 && pos.halfmove_clock() >= limit
    }

    fn ordered_moves(&mut self, pos: &Xiangqi, ply: usize, captures_only: bool) -> Vec<Move> {
        let mut moves = self.take_buf(ply);
        pos.legal_moves(&mut moves);
        if captures_only {
            moves.retain(|&m| pos.is_capture(m));
        }
        moves.sort_by_cached_key(|&m| -order_key(pos, m));
        moves
    }

    fn negamax(&mut self, pos: &Xiangqi, depth: u32, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.nodes += 1;
        if Self::draw_by_counter(pos) {
            return 0;
        }
        if depth == 0 {
            return self.quiescence(pos, alpha, beta, ply, QUIESCENCE_PLIES);
        }
        let moves = self.ordered_moves(pos, ply, false);
        if moves.is_empty() {
            self.bufs[ply] = moves;
            return -(MATE - ply as i32);
        }
        let mut best = -MATE - 1;
        for &mv in &moves {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            let s = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1);
            if s > best {
                best = s;
            }
            if s > alpha {
                alpha = s;
            }
            if alpha >= beta {
                break;
            }
        }
        self.bufs[ply] = moves;
        best
    }

    fn quiescence(
        &mut self,
        pos: &Xiangqi,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        left: u32,
    ) -> i32 {
        self.nodes += 1;
        let mut all = self.take_buf(ply);
        pos.legal_moves(&mut all);
        if all.is_empty() {
            self.bufs[ply] = all;
            return -(MATE - ply as i32);
        }
        self.bufs[ply] = all;
        let stand = evaluate(pos);
        if stand >= beta || left == 0 {
            return stand;
        }
        alpha = alpha.max(stand);
        let moves = self.ordered_moves(pos, ply, true);
        let mut best = stand;
        for &mv in &moves {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            let s = -self.quiescence(&child, -beta, -alpha, ply + 1, left - 1);
            best = best.max(s);
            alpha = alpha.max(s);
            if alpha >= beta {
                break;
            }
        }
        self.bufs[ply] = moves;
        best
    }

    /// Searches `pos` to `depth` plies: the best move and its score (centipawns from the side
    /// to move), `None` when there is no legal move.
    pub fn search(&mut self, pos: &Xiangqi, depth: u32) -> Option<(Move, i32)> {
        self.search_avoiding(pos, depth, &[])
    }

    /// [`XiangqiAlphaBeta::search`], but a root move leading to a position whose hash is in
    /// `seen` (earlier positions of the game since the last capture) scores at most
    /// [`REPEAT_SCORE`]: a winning side makes progress instead of repeating (and never
    /// loses by perpetual check), a losing side still takes the repetition.
    pub fn search_avoiding(
        &mut self,
        pos: &Xiangqi,
        depth: u32,
        seen: &[u64],
    ) -> Option<(Move, i32)> {
        self.nodes = 0;
        let depth = depth.clamp(1, 6);
        let mut moves = pos.legal_moves_vec();
        moves.shuffle(&mut self.rng);
        moves.sort_by_cached_key(|&m| -order_key(pos, m));
        let mut best: Option<(Move, i32)> = None;
        let mut alpha = -MATE - 1;
        for &mv in &moves {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            let repeats = seen.contains(&child.zobrist());
            let s = if repeats {
                (-self.negamax(&child, depth - 1, -MATE - 1, MATE + 1, 1)).min(REPEAT_SCORE)
            } else {
                -self.negamax(&child, depth - 1, -MATE - 1, -alpha, 1)
            };
            if best.is_none_or(|(_, b)| s > b) {
                best = Some((mv, s));
                alpha = alpha.max(s);
            }
        }
        best
    }
}

impl Player<Xiangqi> for XiangqiAlphaBeta {
    fn name(&self) -> String {
        format!("alphabeta-d{}", self.depth)
    }

    fn choose_move(
        &mut self,
        game: &History<Xiangqi>,
        limits: &Limits,
    ) -> Result<MoveChoice<Xiangqi>, PlayerError> {
        let depth = limits.depth.unwrap_or(self.depth);
        let mut seen: Vec<u64> = Vec::new();
        for e in game.entries().iter().rev() {
            seen.push(e.hash);
            if e.irreversible {
                break;
            }
        }
        let (mv, score) = self
            .search_avoiding(game.current(), depth, &seen)
            .ok_or_else(|| PlayerError::Failed {
                player: Player::<Xiangqi>::name(self),
                message: "no legal move in this position".into(),
            })?;
        Ok(MoveChoice {
            mv,
            value: Some((score as f32 / 1000.0).tanh()),
            pv: vec![mv],
            info: format!(
                "depth {} score {score:+} nodes {}",
                depth.clamp(1, 6),
                self.nodes
            ),
        })
    }

    fn set_seed(&mut self, seed: u64) {
        self.rng = StdRng::seed_from_u64(seed);
    }
}
