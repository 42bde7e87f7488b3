//! A ladder of hand-written Gomoku / Renju opponents.

use alphazero_game::{Game, History, Side};
use alphazero_gomoku::{Gomoku, GomokuMove, Rule};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::player::{Limits, MoveChoice, Player, PlayerError};

const EMPTY: u8 = 0;
const WALL: u8 = 3;
const DIRS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];
/// Pattern weights of a five-window holding 0..=4 own stones (and no opponent stone) before
/// the move.
const WINDOW_WEIGHT: [f64; 5] = [1.0, 8.0, 60.0, 500.0, 10_000.0];
/// Weight of the opponent's pattern score at a point (defence) relative to one's own.
const DEFENCE: f64 = 0.9;
/// Search nodes one VCF search may visit.
const VCF_NODE_BUDGET: u32 = 4000;

/// Hand-written Gomoku player at one of three strengths; each level beats the one below.
///
/// * level 0: makes a five if it can, else blocks the opponent's five, else plays a random
///   empty point next to a stone (the centre on an empty board).
/// * level 1: also plays winning threats (open four, double four, four-three), blocks the
///   opponent's (an open three about to become an open four), otherwise the point with the
///   best five-window pattern score (own shapes plus 0.9 × the opponent's).
/// * level 2 (and above): also searches victory by continuous fours (VCF, up to 5 own moves,
///   at most 4000 nodes) for itself and plays it, and when the opponent has a VCF picks a move
///   among the best-scored ones and its own fours after which the opponent has none.
///
/// Under renju, black never plays a forbidden point ([`Gomoku::is_forbidden`]) while another
/// move exists; forbidden points inside the VCF search are not checked. Ties are broken by a
/// seeded RNG.
#[derive(Clone, Debug)]
pub struct GomokuHeuristic {
    /// Strength: 0, 1 or 2 (higher values play as 2).
    pub level: u8,
    rng: StdRng,
}

impl GomokuHeuristic {
    /// The player of `level` with tie-breaks seeded by `seed`.
    pub fn new(level: u8, seed: u64) -> Self {
        GomokuHeuristic {
            level,
            rng: StdRng::seed_from_u64(seed),
        }
    }
}

/// A scratch board with a wall value off the edge.
#[derive(Clone)]
struct Board {
    n: i32,
    cells: Vec<u8>,
    rule: Rule,
}

/// What a stone of one colour on one point makes.
#[derive(Clone, Copy, Debug, Default)]
struct Threat {
    five: bool,
    /// Lines with exactly one way to complete five.
    fours: u8,
    /// A line with two or more ways to complete five (open four, or two fours on one line).
    straight_four: bool,
    /// Lines that can become a straight four with one more stone.
    open_threes: u8,
}

impl Threat {
    /// A threat that wins by force unless the opponent has a five first.
    fn winning(self) -> bool {
        self.five
            || self.straight_four
            || self.fours >= 2
            || (self.fours >= 1 && self.open_threes >= 1)
            || self.open_threes >= 2
    }
}

fn color_of(side: Side) -> u8 {
    match side {
        Side::First => 1,
        Side::Second => 2,
    }
}

impl Board {
    fn from_position(pos: &Gomoku) -> Self {
        let n = pos.size();
        let mut cells = vec![EMPTY; n * n];
        for y in 0..n {
            for x in 0..n {
                if let Some(s) = pos.stone_at(x, y) {
                    cells[y * n + x] = color_of(s);
                }
            }
        }
        Board {
            n: n as i32,
            cells,
            rule: pos.rule(),
        }
    }

    #[inline]
    fn get(&self, x: i32, y: i32) -> u8 {
        if x < 0 || y < 0 || x >= self.n || y >= self.n {
            WALL
        } else {
            self.cells[(y * self.n + x) as usize]
        }
    }

    #[inline]
    fn set(&mut self, x: i32, y: i32, c: u8) {
        self.cells[(y * self.n + x) as usize] = c;
    }

    #[inline]
    fn is_five(&self, len: i32, c: u8) -> bool {
        match self.rule {
            Rule::Freestyle => len >= 5,
            Rule::Standard => len == 5,
            Rule::Renju => len == 5 || (c == 2 && len > 5),
        }
    }

    /// Length of the run of `c` through the empty point `(x, y)` along `d` if `c` played there.
    #[inline]
    fn run(&self, x: i32, y: i32, (dx, dy): (i32, i32), c: u8) -> i32 {
        let mut len = 1;
        for s in [1, -1] {
            let (mut cx, mut cy) = (x + s * dx, y + s * dy);
            while self.get(cx, cy) == c {
                len += 1;
                cx += s * dx;
                cy += s * dy;
            }
        }
        len
    }

    fn makes_five(&self, x: i32, y: i32, c: u8) -> bool {
        self.get(x, y) == EMPTY && DIRS.iter().any(|&d| self.is_five(self.run(x, y, d, c), c))
    }

    /// Empty points on the line through `(x, y)` along `d` (within 4) where `c` would complete
    /// a five along `d`. Appends to `out`, returns how many.
    fn completions_dir(
        &self,
        x: i32,
        y: i32,
        d: (i32, i32),
        c: u8,
        out: &mut Vec<(i32, i32)>,
    ) -> usize {
        let mut k = 0;
        for off in -4..=4 {
            if off == 0 {
                continue;
            }
            let (qx, qy) = (x + off * d.0, y + off * d.1);
            if self.get(qx, qy) == EMPTY && self.is_five(self.run(qx, qy, d, c), c) {
                k += 1;
                out.push((qx, qy));
            }
        }
        k
    }

    /// Every point where `c` would complete a five after `c` is placed on `(x, y)` (which must
    /// be occupied by `c` already), deduplicated.
    fn completions(&self, x: i32, y: i32, c: u8) -> Vec<(i32, i32)> {
        let mut out = Vec::new();
        for d in DIRS {
            self.completions_dir(x, y, d, c, &mut out);
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// What `c` playing the empty point `(x, y)` makes.
    fn threat(&mut self, x: i32, y: i32, c: u8) -> Threat {
        let mut t = Threat {
            five: self.makes_five(x, y, c),
            ..Threat::default()
        };
        if t.five {
            return t;
        }
        self.set(x, y, c);
        let mut buf = Vec::new();
        for d in DIRS {
            buf.clear();
            let k = self.completions_dir(x, y, d, c, &mut buf);
            if k >= 2 {
                t.straight_four = true;
            } else if k == 1 {
                t.fours += 1;
            } else if self.open_three_dir(x, y, d, c, &mut buf) {
                t.open_threes += 1;
            }
        }
        self.set(x, y, EMPTY);
        t
    }

    /// Whether one more stone of `c` on the line through `(x, y)` along `d` makes a straight
    /// four there, with neither end of it on a point `c` could not use.
    fn open_three_dir(
        &mut self,
        x: i32,
        y: i32,
        d: (i32, i32),
        c: u8,
        buf: &mut Vec<(i32, i32)>,
    ) -> bool {
        for off in -4..=4 {
            let (qx, qy) = (x + off * d.0, y + off * d.1);
            if off == 0 || self.get(qx, qy) != EMPTY {
                continue;
            }
            self.set(qx, qy, c);
            buf.clear();
            let k = self.completions_dir(qx, qy, d, c, buf);
            self.set(qx, qy, EMPTY);
            if k >= 2 {
                return true;
            }
        }
        false
    }

    /// Calls `f(own)` for every five-window through the empty point `(x, y)` (all four
    /// directions) that holds no stone of the other colour, with `own` the number of `c`
    /// stones in it (the point itself not counted).
    fn for_each_open_window(&self, x: i32, y: i32, c: u8, mut f: impl FnMut(usize)) {
        for (dx, dy) in DIRS {
            'window: for start in -4..=0 {
                let mut own = 0;
                for i in start..start + 5 {
                    if i == 0 {
                        continue;
                    }
                    match self.get(x + i * dx, y + i * dy) {
                        EMPTY => {}
                        v if v == c => own += 1,
                        _ => continue 'window,
                    }
                }
                f(own);
            }
        }
    }

    /// Five-window pattern score of `c` playing the empty point `(x, y)`.
    fn pattern(&self, x: i32, y: i32, c: u8) -> f64 {
        let mut s = 0.0;
        self.for_each_open_window(x, y, c, |own| s += WINDOW_WEIGHT[own.min(4)]);
        s
    }

    /// Largest number of `c` stones in a five-window through the empty point `(x, y)` that
    /// holds no other stone (a quick filter: 4 = maybe a five, 3 = maybe a four).
    fn window_max(&self, x: i32, y: i32, c: u8) -> usize {
        let mut best = 0;
        self.for_each_open_window(x, y, c, |own| best = best.max(own));
        best
    }

    /// Empty points within Chebyshev distance `r` of a stone (the centre on an empty board).
    fn near_points(&self, r: i32) -> Vec<(i32, i32)> {
        let mut out = Vec::new();
        let mut any = false;
        for y in 0..self.n {
            for x in 0..self.n {
                if self.get(x, y) != EMPTY {
                    any = true;
                    continue;
                }
                let near =
                    (-r..=r).any(|dy| (-r..=r).any(|dx| matches!(self.get(x + dx, y + dy), 1 | 2)));
                if near {
                    out.push((x, y));
                }
            }
        }
        if !any {
            out.push((self.n / 2, self.n / 2));
        }
        out
    }

    /// Points where `c` would make a five.
    fn five_points(&self, c: u8) -> Vec<(i32, i32)> {
        let mut out = Vec::new();
        for y in 0..self.n {
            for x in 0..self.n {
                if self.get(x, y) == EMPTY
                    && self.window_max(x, y, c) >= 4
                    && self.makes_five(x, y, c)
                {
                    out.push((x, y));
                }
            }
        }
        out
    }

    /// Points where `c` would make a four (or better) per the quick window filter, verified.
    fn four_points(&mut self, c: u8) -> Vec<(i32, i32)> {
        let mut out = Vec::new();
        for y in 0..self.n {
            for x in 0..self.n {
                if self.get(x, y) == EMPTY && self.window_max(x, y, c) >= 3 {
                    self.set(x, y, c);
                    let k = self.completions(x, y, c).len();
                    self.set(x, y, EMPTY);
                    if k > 0 {
                        out.push((x, y));
                    }
                }
            }
        }
        out
    }

    /// Victory by continuous fours for `c` to move: the first move of a forced win found
    /// within `depth` own moves, or `None`. Assumes neither side can make a five now
    /// (checked by the caller) except through the points handled here.
    fn vcf(&mut self, c: u8, depth: u32) -> Option<(i32, i32)> {
        let opp = 3 - c;
        if !self.five_points(opp).is_empty() {
            return None;
        }
        let roots = self.four_points(c);
        let mut nodes = 0;
        let mut seq = Vec::new();
        for &p in &roots {
            if self.vcf_try(p, c, depth, &roots, &mut seq, &mut nodes) {
                return Some(p);
            }
            if nodes > VCF_NODE_BUDGET {
                break;
            }
        }
        None
    }

    /// Plays the four `p` for `c` and checks whether the forced line wins; restores the board.
    fn vcf_try(
        &mut self,
        p: (i32, i32),
        c: u8,
        depth: u32,
        roots: &[(i32, i32)],
        seq: &mut Vec<(i32, i32)>,
        nodes: &mut u32,
    ) -> bool {
        *nodes += 1;
        if depth == 0 || *nodes > VCF_NODE_BUDGET || self.get(p.0, p.1) != EMPTY {
            return false;
        }
        let opp = 3 - c;
        self.set(p.0, p.1, c);
        let q = self.completions(p.0, p.1, c);
        let won = match q.len() {
            0 => false,
            1 => {
                let (qx, qy) = q[0];
                self.set(qx, qy, opp);
                // The block may make a five threat for the defender: then only a four that
                // also blocks it keeps the initiative.
                let mut threats = Vec::new();
                self.completions(qx, qy, opp)
                    .into_iter()
                    .for_each(|t| threats.push(t));
                seq.push(p);
                let won = match threats.len() {
                    0 => {
                        let cands = self.vcf_candidates(c, roots, seq);
                        cands
                            .into_iter()
                            .any(|r| self.vcf_try(r, c, depth - 1, roots, seq, nodes))
                    }
                    1 => self.vcf_try(threats[0], c, depth - 1, roots, seq, nodes),
                    _ => false,
                };
                seq.pop();
                self.set(qx, qy, EMPTY);
                won
            }
            _ => true,
        };
        self.set(p.0, p.1, EMPTY);
        won
    }

    /// Candidate fours inside a VCF: the root fours plus points on the lines of the stones the
    /// attacker added in this line.
    fn vcf_candidates(&self, c: u8, roots: &[(i32, i32)], seq: &[(i32, i32)]) -> Vec<(i32, i32)> {
        let mut out: Vec<(i32, i32)> = roots
            .iter()
            .copied()
            .filter(|&(x, y)| self.get(x, y) == EMPTY)
            .collect();
        for &(sx, sy) in seq {
            for (dx, dy) in DIRS {
                for off in -4..=4 {
                    let (x, y) = (sx + off * dx, sy + off * dy);
                    if self.get(x, y) == EMPTY && self.window_max(x, y, c) >= 3 {
                        out.push((x, y));
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

impl GomokuHeuristic {
    fn pick_best(&mut self, board: &Board, pts: &[(i32, i32)], me: u8) -> Option<(i32, i32)> {
        let opp = 3 - me;
        let mut best: Vec<(i32, i32)> = Vec::new();
        let mut best_score = f64::NEG_INFINITY;
        for &(x, y) in pts {
            let s = board.pattern(x, y, me) + DEFENCE * board.pattern(x, y, opp);
            if s > best_score + 1e-9 {
                best_score = s;
                best.clear();
                best.push((x, y));
            } else if (s - best_score).abs() <= 1e-9 {
                best.push((x, y));
            }
        }
        self.pick(&best)
    }

    fn pick(&mut self, pts: &[(i32, i32)]) -> Option<(i32, i32)> {
        if pts.is_empty() {
            None
        } else {
            Some(pts[self.rng.random_range(0..pts.len())])
        }
    }

    /// The scored candidates, best first (top `k`).
    fn top_k(board: &Board, pts: &[(i32, i32)], me: u8, k: usize) -> Vec<(i32, i32)> {
        let opp = 3 - me;
        let mut v: Vec<(f64, (i32, i32))> = pts
            .iter()
            .map(|&(x, y)| {
                (
                    board.pattern(x, y, me) + DEFENCE * board.pattern(x, y, opp),
                    (x, y),
                )
            })
            .collect();
        v.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        v.into_iter().take(k).map(|(_, p)| p).collect()
    }

    fn decide(&mut self, pos: &Gomoku) -> Option<((i32, i32), &'static str)> {
        let me = color_of(pos.side_to_move());
        let opp = 3 - me;
        let mut board = Board::from_position(pos);
        let renju_black = pos.rule() == Rule::Renju && me == 1;
        let allowed = |p: &(i32, i32)| {
            !renju_black
                || pos
                    .is_forbidden(GomokuMove::new(p.0 as u8, p.1 as u8))
                    .is_none()
        };
        let mut cands: Vec<(i32, i32)> = board.near_points(2).into_iter().filter(allowed).collect();
        if cands.is_empty() {
            cands = board
                .near_points(board.n)
                .into_iter()
                .filter(allowed)
                .collect();
        }
        if cands.is_empty() {
            cands = board.near_points(board.n);
        }
        let mine: Vec<(i32, i32)> = cands
            .iter()
            .copied()
            .filter(|&(x, y)| board.makes_five(x, y, me))
            .collect();
        if let Some(p) = self.pick(&mine) {
            return Some((p, "five"));
        }
        let theirs: Vec<(i32, i32)> = cands
            .iter()
            .copied()
            .filter(|&(x, y)| board.makes_five(x, y, opp))
            .collect();
        if !theirs.is_empty() {
            return self
                .pick_best(&board, &theirs, me)
                .map(|p| (p, "block five"));
        }
        if self.level == 0 {
            let near: Vec<(i32, i32)> = board.near_points(1).into_iter().filter(allowed).collect();
            return self
                .pick(if near.is_empty() { &cands } else { &near })
                .map(|p| (p, "random"));
        }
        if self.level >= 2 {
            if let Some(p) = board.vcf(me, 5) {
                if allowed(&p) {
                    return Some((p, "vcf"));
                }
            }
        }
        let threats: Vec<(i32, i32)> = cands
            .iter()
            .copied()
            .filter(|&(x, y)| board.threat(x, y, me).winning())
            .collect();
        if !threats.is_empty() {
            return self
                .pick_best(&board, &threats, me)
                .map(|p| (p, "winning threat"));
        }
        if self.level >= 2 && board.vcf(opp, 5).is_some() {
            let mut options = Self::top_k(&board, &cands, me, 10);
            for p in board.four_points(me) {
                if allowed(&p) && !options.contains(&p) {
                    options.push(p);
                }
            }
            for p in options {
                board.set(p.0, p.1, me);
                let safe = board.vcf(opp, 5).is_none();
                board.set(p.0, p.1, EMPTY);
                if safe {
                    return Some((p, "stop vcf"));
                }
            }
        }
        let blocks: Vec<(i32, i32)> = cands
            .iter()
            .copied()
            .filter(|&(x, y)| board.threat(x, y, opp).winning())
            .collect();
        if !blocks.is_empty() {
            return self
                .pick_best(&board, &blocks, me)
                .map(|p| (p, "block threat"));
        }
        self.pick_best(&board, &cands, me).map(|p| (p, "pattern"))
    }
}

impl Player<Gomoku> for GomokuHeuristic {
    fn name(&self) -> String {
        format!("gomoku-heuristic-{}", self.level.min(2))
    }

    fn choose_move(
        &mut self,
        game: &History<Gomoku>,
        _limits: &Limits,
    ) -> Result<MoveChoice<Gomoku>, PlayerError> {
        let pos = game.current();
        let Some(((x, y), why)) = self.decide(pos) else {
            return Err(PlayerError::Failed {
                player: Player::<Gomoku>::name(self),
                message: "no empty point on the board".into(),
            });
        };
        let mv = GomokuMove::new(x as u8, y as u8);
        Ok(MoveChoice {
            mv,
            value: None,
            pv: vec![mv],
            info: why.into(),
        })
    }

    fn set_seed(&mut self, seed: u64) {
        self.rng = StdRng::seed_from_u64(seed);
    }
}
