//! Xiangqi in the registry: one spec (the standard rules), its encoder (18 planes, seen from
//! the side to move), its web page layout, its positions as text (FEN, move lists) and how it
//! is drawn (ICCS and WXF).

use std::fmt::Write as _;

use alphazero_game::{Game, History, HistoryEntry, Outcome, Side};
use alphazero_xiangqi::{EndReason, Move, Square, Xiangqi, XiangqiConfig, FILES, RANKS};

use alphazero_mcts::SearchConfig;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::encode::{permute_squares, Encode, PolicyPlanes};
use crate::play::{
    PLAY_POLICY_TEMPERATURE, PLAY_REPLY_TACTICAL_BUDGET, PLAY_ROOT_TACTICAL_BUDGET,
    PLAY_XIANGQI_TACTICAL_BUDGET,
};
use crate::position::{play_move_list, split_moves, PositionError, PositionText};
use crate::view::{BoardView, Rgb, BLUE, RED, RESET};
use crate::web::{Cell, StartError, WebGame};
use crate::{GameSpec, Registered};

/// [`Game::NAME`] of Xiangqi.
pub(crate) const NAME: &str = <Xiangqi as Game>::NAME;

/// The game in one line (`--help`).
pub(crate) const ABOUT: &str = "Xiangqi (Chinese chess)";

/// Xiangqi's training defaults over the game-neutral base (see
/// [`GameSpec::training_preset`]).
pub(crate) const TRAINING_PRESET: &str = r#"
[selfplay]
temperature_moves = 20
max_plies = 300
resign = { enabled = true, min_ply = 40 }

[selfplay.search]
dirichlet_alpha = 0.3
# Mates in one and mates by checks within 200 nodes at every expanded node: ~15 µs per call on
# self-play positions, ~5% of a 4×32 network evaluation (crates/nn/examples/xiangqi_mates.rs
# --cost); a mating move the network rates low is then never missed (the decisive-move check
# costs ~12×).
terminal_check = false
tactical_budget = 200
# Self-play from a weak network ends ~94% of games by threefold repetition around ply 60 (both
# sides shuffle a cannon: a draw is worth more to the search than any move its network values
# below 0), so the games teach nothing; each side's search scores a draw at −0.2 for itself.
draw_score = -0.2

# Early Xiangqi networks draw most gating games (the 120-ply no-capture rule, repetitions), so
# a 55% bar was almost never reached and runs did not learn. As for Connect Four: no gating
# (every iteration's network plays the next games) and the value target (z + q)/2, which gives
# drawn and cut-off games a signal.
[train]
value_q_weight = 0.5

[gating]
enabled = false
"#;

impl Registered for Xiangqi {
    /// The mate search at every node (every mate in one, stalemate included, and mates by
    /// continuous checks), deeper at the root and for the opponent after each root
    /// candidate (a move that allows a mate by checks is proven lost on its first visit):
    /// `analyze`'s and `play`'s search, the richest any program used for Xiangqi. The
    /// UCCI/UCI engine had no tactics (ElephantEye at depth 1 mated it), `serve` no root or
    /// reply tactics. The decisive-move check stays off: Xiangqi's adjudication generates
    /// moves, so it costs ~12× per expansion, and the mate search already sees every move
    /// that ends the game by mate.
    fn play_search() -> SearchConfig {
        SearchConfig {
            terminal_check: false,
            tactical_budget: Some(PLAY_XIANGQI_TACTICAL_BUDGET),
            root_tactical_budget: Some(PLAY_ROOT_TACTICAL_BUDGET),
            reply_tactical_budget: Some(PLAY_REPLY_TACTICAL_BUDGET),
            policy_temperature: PLAY_POLICY_TEMPERATURE,
            ..SearchConfig::default()
        }
    }

    /// Always [`GameSpec::Xiangqi`]: the repetition and no-capture options are not part of a
    /// spec.
    fn spec(_config: &XiangqiConfig) -> GameSpec {
        GameSpec::Xiangqi
    }

    fn config_of(spec: &GameSpec) -> Option<XiangqiConfig> {
        matches!(spec, GameSpec::Xiangqi).then(XiangqiConfig::default)
    }

    /// The initial position with `0..=max_removed` pieces other than the general taken off
    /// each side (the count and the pieces uniform, each side drawn apart; counts above 15,
    /// the pieces a side has besides its general, take all 15), then `0..=plies` uniformly
    /// random legal moves by both sides ([`alphazero_game::random_opening`]: pieces left
    /// where they can be taken, checks, generals out of shelter). A draw that changes nothing
    /// (no piece removed, no move played), leaves the generals facing each other or ends the
    /// game is drawn again (up to 64 times, then the initial position).
    fn random_start(
        config: &XiangqiConfig,
        max_removed: u32,
        plies: u32,
        seed: u64,
    ) -> Option<(Xiangqi, String)> {
        let initial = Xiangqi::new(config);
        let initial_fen = initial.to_fen();
        let (board, rest) = initial_fen.split_once(' ')?;
        // The board as 10 ranks of 9 cells (from Black's back rank), '.' for empty.
        let grid: Vec<Vec<char>> = board
            .split('/')
            .map(|rank| {
                rank.chars()
                    .flat_map(|c| match c.to_digit(10) {
                        Some(d) => vec!['.'; d as usize],
                        None => vec![c],
                    })
                    .collect()
            })
            .collect();
        let mut rng = StdRng::seed_from_u64(seed);
        for _ in 0..64 {
            let mut g = grid.clone();
            let mut removed = 0;
            for red in [true, false] {
                let mut cells: Vec<(usize, usize)> = (0..g.len())
                    .flat_map(|r| (0..g[r].len()).map(move |f| (r, f)))
                    .filter(|&(r, f)| {
                        let c = g[r][f];
                        c != '.' && c.is_ascii_uppercase() == red && !matches!(c, 'K' | 'k')
                    })
                    .collect();
                let n = rng.random_range(0..=max_removed as usize).min(cells.len());
                removed += n;
                for _ in 0..n {
                    let (r, f) = cells.swap_remove(rng.random_range(0..cells.len()));
                    g[r][f] = '.';
                }
            }
            // No draw at all without plies, so that a seed keeps its start of before.
            let moves = if plies == 0 {
                0
            } else {
                rng.random_range(0..=plies)
            };
            if removed == 0 && moves == 0 {
                // The initial position itself is no random start.
                continue;
            }
            let fen = format!("{} {rest}", grid_fen(&g));
            let Ok(pos) = Xiangqi::from_fen(&fen, *config) else {
                continue;
            };
            if pos.outcome().is_some() {
                continue;
            }
            if moves == 0 {
                return Some((pos, fen));
            }
            if let Some(h) = alphazero_game::random_opening(&pos, moves, rng.random()) {
                let pos = h.current().clone();
                let fen = pos.to_fen();
                return Some((pos, fen));
            }
        }
        Some((initial, initial_fen))
    }

    /// Xiangqi's own counter ([`alphazero_xiangqi::perft`]: copy-make, bulk counting at
    /// depth 1).
    fn perft(&self, depth: u32) -> u64 {
        alphazero_xiangqi::perft(self, depth)
    }
}

/// The board field of a FEN from ranks of cells ('.' empty).
fn grid_fen(grid: &[Vec<char>]) -> String {
    let ranks: Vec<String> = grid
        .iter()
        .map(|rank| {
            let mut out = String::new();
            let mut empty = 0;
            for &c in rank {
                if c == '.' {
                    empty += 1;
                } else {
                    if empty > 0 {
                        let _ = write!(out, "{empty}");
                        empty = 0;
                    }
                    out.push(c);
                }
            }
            if empty > 0 {
                let _ = write!(out, "{empty}");
            }
            out
        })
        .collect();
    ranks.join("/")
}

/// The move types of Xiangqi's policy planes ([`Encode::policy_planes`]).
const XIANGQI_MOVE_TYPES: usize = 50;

/// The policy plane of a move by its file and rank steps `(df, dr)`: slides up and down by
/// distance 1–9 (0–17), right and left by distance 1–8 (18–33), horse jumps (34–41),
/// elephant (42–45) and advisor (46–49) diagonals.
fn xiangqi_move_type(df: i32, dr: i32) -> u32 {
    const HORSE: [(i32, i32); 8] = [
        (1, 2),
        (2, 1),
        (2, -1),
        (1, -2),
        (-1, -2),
        (-2, -1),
        (-2, 1),
        (-1, 2),
    ];
    const DIAGONAL: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, -1), (-1, 1)];
    let slide = |first: u32, dist: i32| first + dist as u32 - 1;
    match (df, dr) {
        (0, d) if d > 0 => slide(0, d),
        (0, d) if d < 0 => slide(9, -d),
        (d, 0) if d > 0 => slide(18, d),
        (d, 0) if d < 0 => slide(26, -d),
        _ => {
            if let Some(i) = HORSE.iter().position(|&h| h == (df, dr)) {
                34 + i as u32
            } else if let Some(i) = DIAGONAL
                .iter()
                .position(|&d| (2 * d.0, 2 * d.1) == (df, dr))
            {
                42 + i as u32
            } else if let Some(i) = DIAGONAL.iter().position(|&d| d == (df, dr)) {
                46 + i as u32
            } else {
                unreachable!("no Xiangqi action moves by ({df}, {dr})")
            }
        }
    }
}

/// Xiangqi planes: 7 own piece kinds, 7 opponent piece kinds, repetitions, no-capture counter,
/// the attack counts of the side to move and of the opponent.
const XIANGQI_PLANES: usize = 18;

/// The planes a network from before the attack planes was trained on (pieces, repetitions,
/// the no-capture counter); such a network reads planes 16 and 17 with zero weights.
const XIANGQI_COMMON_PLANES: usize = 16;
const XQ_H: usize = 10;
const XQ_W: usize = 9;

/// Scale of the Xiangqi no-capture plane: the configured no-capture draw limit, or 120 plies
/// when the rule is disabled.
fn no_capture_scale(config: &XiangqiConfig) -> f32 {
    if config.no_capture_draw_plies > 0 {
        f32::from(config.no_capture_draw_plies)
    } else {
        120.0
    }
}

impl Encode for Xiangqi {
    fn num_planes(_config: &XiangqiConfig) -> usize {
        XIANGQI_PLANES
    }

    fn common_planes(_config: &XiangqiConfig) -> usize {
        XIANGQI_COMMON_PLANES
    }

    fn encode(&self, repetitions: u32, out: &mut [f32]) {
        let hw = XQ_H * XQ_W;
        assert_eq!(
            out.len(),
            XIANGQI_PLANES * hw,
            "xiangqi planes buffer length"
        );
        out.fill(0.0);
        let us = self.side_to_move();
        let attacks = [self.attack_counts(us), self.attack_counts(us.opponent())];
        for rank in 0..XQ_H as u8 {
            for file in 0..XQ_W as u8 {
                let Some(sq) = Square::new(file, rank) else {
                    continue;
                };
                // Seen from the side to move: Black's view is the board turned 180°.
                let (row, col) = match us {
                    Side::First => (usize::from(rank), usize::from(file)),
                    Side::Second => (XQ_H - 1 - usize::from(rank), XQ_W - 1 - usize::from(file)),
                };
                let point = row * XQ_W + col;
                for (k, a) in attacks.iter().enumerate() {
                    out[(XIANGQI_COMMON_PLANES + k) * hw + point] =
                        f32::from(a[sq.index()].min(2)) / 2.0;
                }
                let Some(piece) = self.piece_at(sq) else {
                    continue;
                };
                let plane = piece.kind.index() + if piece.side == us { 0 } else { 7 };
                out[plane * hw + point] = 1.0;
            }
        }
        let rep = repetitions.min(2) as f32 / 2.0;
        out[14 * hw..15 * hw].fill(rep);
        let clock = (f32::from(self.halfmove_clock()) / no_capture_scale(self.config())).min(1.0);
        out[15 * hw..16 * hw].fill(clock);
    }

    fn transform_planes(_config: &XiangqiConfig, sym: usize, src: &[f32], dst: &mut [f32]) {
        // The left-right mirror is a mirror of columns in the side-to-move frame as well.
        let mirror = sym % 2 == 1;
        permute_squares(XQ_H, XQ_W, src, dst, |x, y| {
            if mirror {
                (XQ_W - 1 - x, y)
            } else {
                (x, y)
            }
        });
    }

    fn plane_meanings(_config: &Self::Config) -> Vec<String> {
        let kinds = [
            "general",
            "advisors",
            "elephants",
            "horses",
            "chariots",
            "cannons",
            "soldiers",
        ];
        let mut v: Vec<String> = kinds
            .iter()
            .map(|k| format!("{k} of the side to move"))
            .collect();
        v.extend(kinds.iter().map(|k| format!("{k} of the opponent")));
        v.push("repetitions of the position so far: min(repetitions, 2) / 2 on every point".into());
        v.push(
            "plies since the last capture / the no-capture draw limit (120 by default), at most \
             1, on every point"
                .into(),
        );
        for whose in ["the side to move", "the opponent"] {
            v.push(format!(
                "squares attacked by {whose}'s pieces (by the movement rules, pins ignored; a \
                 cannon behind its screen up to the next piece): min(attackers, 2) / 2"
            ));
        }
        v
    }
    fn board_layout() -> &'static str {
        "row r, column f of the planes is the point at file f (ICCS a-i = 0-8) and rank r (ICCS \
         0-9, 0 = Red's back rank) when Red is to move; when Black is to move the board is \
         turned by 180 degrees (file f, rank r -> 8 - f, 9 - r) so that the side to move \
         always plays up from row 0"
    }
    fn policy_layout() -> &'static str {
        "2086 geometrically possible from-to moves seen from the side to move: the actions \
         list gives each index's ICCS move for Red to move; for Black to move the move is that \
         one turned by 180 degrees (both squares' file f, rank r -> 8 - f, 9 - r)"
    }

    /// Follows every piece of this position through `continuation` (a move's piece goes
    /// from its origin to its destination; whatever stood on the destination is captured) and
    /// marks the points whose piece is never captured; `end` is not needed.
    fn ownership(&self, continuation: &[Move], _end: &Xiangqi, out: &mut [f32]) {
        const N: usize = XQ_H * XQ_W;
        assert_eq!(out.len(), N, "xiangqi ownership map length");
        // origin[s]: the index, in this position, of the point whose piece stands on s now.
        let mut origin = [None::<u8>; N];
        let mut survives = [false; N];
        for (i, o) in origin.iter_mut().enumerate() {
            let sq = Square::from_index(i).expect("an index below 90");
            if self.piece_at(sq).is_some() {
                *o = Some(i as u8);
                survives[i] = true;
            }
        }
        for mv in continuation {
            let moving = origin[mv.from.index()].take();
            if let Some(victim) = origin[mv.to.index()] {
                survives[usize::from(victim)] = false;
            }
            origin[mv.to.index()] = moving;
        }
        out.fill(0.0);
        let us = self.side_to_move();
        for (i, &alive) in survives.iter().enumerate() {
            let sq = Square::from_index(i).expect("an index below 90");
            let Some(piece) = self.piece_at(sq).filter(|_| alive) else {
                continue;
            };
            // The planes' frame: Black's view is the board turned 180°.
            let cell = match us {
                Side::First => i,
                Side::Second => sq.rotate().index(),
            };
            out[cell] = if piece.side == us { 1.0 } else { -1.0 };
        }
    }

    fn transform_ownership(config: &XiangqiConfig, sym: usize, src: &[f32], dst: &mut [f32]) {
        assert_eq!(src.len(), XQ_H * XQ_W, "xiangqi ownership map length");
        Self::transform_planes(config, sym, src, dst);
    }

    fn ownership_meaning() -> &'static str {
        "whether the piece on each point survives to the end of the game: +1 a piece of the \
         side to move never captured later in the game, -1 such a piece of the opponent, 0 an \
         empty point or a piece captured later (wherever it has moved by then)"
    }

    /// 50 planes, each a move type read at the move's from-square (in the side to move's
    /// frame, as the actions are): 34 orthogonal slides (up and down by distance 1–9, right
    /// and left by 1–8), 8 horse jumps, 4 elephant and 4 advisor diagonals, as AlphaZero's
    /// chess head.
    fn policy_planes(config: &XiangqiConfig) -> Option<PolicyPlanes> {
        let hw = XQ_H * XQ_W;
        // Red to move: the actions' own orientation, which is the planes' for either side.
        let red = Xiangqi::new(config);
        let index = (0..red.num_actions())
            .map(|a| {
                let mv = red
                    .action_to_move(a)
                    .expect("every action index names a move");
                let (f, r) = (i32::from(mv.from.file()), i32::from(mv.from.rank()));
                let (df, dr) = (i32::from(mv.to.file()) - f, i32::from(mv.to.rank()) - r);
                let plane = xiangqi_move_type(df, dr) as usize;
                (plane * hw + r as usize * XQ_W + f as usize) as u32
            })
            .collect();
        Some(PolicyPlanes {
            planes: XIANGQI_MOVE_TYPES,
            index,
        })
    }
}

fn square_cell(sq: Square) -> Cell {
    (usize::from(RANKS - 1 - sq.rank()), usize::from(sq.file()))
}

fn cell_square((r, c): Cell) -> Option<Square> {
    let rank = (RANKS as usize).checked_sub(1 + r)?;
    Square::new(u8::try_from(c).ok()?, u8::try_from(rank).ok()?)
}

impl WebGame for Xiangqi {
    fn start(config: &XiangqiConfig, fen: Option<&str>) -> Result<Self, StartError> {
        match fen {
            None => Ok(Xiangqi::new(config)),
            Some(fen) => {
                Xiangqi::from_fen(fen, *config).map_err(|e| StartError::BadFen(e.to_string()))
            }
        }
    }

    fn dims(&self) -> (usize, usize) {
        (RANKS as usize, FILES as usize)
    }

    fn cell(&self, cell: Cell) -> String {
        match cell_square(cell).and_then(|sq| self.piece_at(sq)) {
            Some(p) => p.to_char().to_string(),
            None => String::new(),
        }
    }

    fn cell_name(&self, cell: Cell) -> String {
        cell_square(cell).map(|s| s.to_string()).unwrap_or_default()
    }

    fn colour(side: Side) -> &'static str {
        match side {
            Side::First => "red",
            Side::Second => "black",
        }
    }

    fn move_cells(&self, mv: Move) -> (Cell, Option<Cell>) {
        (square_cell(mv.to), Some(square_cell(mv.from)))
    }

    fn last_move_cells(&self, mv: Move) -> Vec<Cell> {
        vec![square_cell(mv.from), square_cell(mv.to)]
    }

    fn decisive_cells(
        &self,
        _outcome: Outcome,
        last: Option<Move>,
        history: &[HistoryEntry],
    ) -> Vec<Cell> {
        match (self.end_reason(history), last) {
            (Some(EndReason::Checkmate | EndReason::Stalemate), Some(mv)) => {
                let mut cells = self.last_move_cells(mv);
                cells.push(square_cell(self.general_square(self.side_to_move())));
                cells
            }
            _ => Vec::new(),
        }
    }
}

impl PositionText for Xiangqi {
    fn parse_position(config: &XiangqiConfig, text: &str) -> Result<History<Self>, PositionError> {
        let t = text.trim();
        // "FEN [moves m1 m2 ...]", "startpos [moves ...]", or a bare move list.
        let (fen_part, moves_part) = match t.find(" moves ") {
            Some(i) => (&t[..i], &t[i + 7..]),
            None if t.starts_with("moves ") => ("startpos", &t[6..]),
            None => (t, ""),
        };
        let fen_part = fen_part.trim();
        let start = if fen_part.is_empty() || fen_part == "startpos" {
            Xiangqi::new(config)
        } else if fen_part.contains('/') {
            Xiangqi::from_fen(fen_part, *config)?
        } else {
            // A bare move list from the start position. When even its first word is no move,
            // the text was most likely meant as a FEN: say both readings failed.
            return play_move_list(Xiangqi::new(config), &split_moves(t)).map_err(|e| {
                let first = split_moves(t).first().copied().unwrap_or_default();
                if Xiangqi::new(config).parse_move(first).is_err() {
                    PositionError::NeitherFenNorMoves {
                        text: t.to_string(),
                        example: "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
                        source: Box::new(e),
                    }
                } else {
                    e
                }
            });
        };
        play_move_list(start, &split_moves(moves_part))
    }

    fn fen(&self) -> Option<String> {
        Some(self.to_fen())
    }
}

fn xq_cell(sq: Square) -> (usize, usize) {
    (usize::from(sq.rank()), usize::from(sq.file()))
}

impl BoardView for Xiangqi {
    fn piece_letter(kind: u8) -> Option<char> {
        // `piece` gives kinds 1..=7 (0 is kept for stones).
        let k = alphazero_xiangqi::PieceKind::ALL.get(usize::from(kind).checked_sub(1)?)?;
        Some(k.letter())
    }
    fn piece_legend() -> Vec<String> {
        [
            "general", "advisor", "elephant", "horse", "chariot", "cannon", "soldier",
        ]
        .iter()
        .zip(alphazero_xiangqi::PieceKind::ALL)
        .map(|(name, k)| format!("{} {name}", k.letter()))
        .collect()
    }
    fn text_position(&self, (row, col): (usize, usize)) -> Option<(usize, usize)> {
        // One line per rank, rank 9 first: the rank digit and a blank, then the files two
        // characters apart.
        (row < usize::from(RANKS) && col < 9).then_some((row, 2 + 2 * col))
    }
    const SECOND_NOTATION: &'static str = "WXF";
    fn second_notation(&self, mv: Move) -> Option<String> {
        self.to_wxf(mv)
    }
    /// ICCS: files `a`–`i`, ranks `0`–`9` (rank 0 = Red's back rank, drawn at the bottom).
    fn axis_labels(&self) -> (Vec<String>, Vec<String>) {
        (
            (b'a'..=b'i').map(|c| (c as char).to_string()).collect(),
            (0..10).map(|r| r.to_string()).collect(),
        )
    }
    fn grid(&self) -> (usize, usize) {
        (10, 9)
    }
    /// The ten ranks; the two edge files from end to end and the seven inner ones broken by
    /// the river (between ranks 4 and 5); the two palaces' diagonals.
    fn point_lines(&self) -> Vec<[(usize, usize); 2]> {
        let mut lines: Vec<[(usize, usize); 2]> = (0..10).map(|r| [(r, 0), (r, 8)]).collect();
        lines.extend([[(0, 0), (9, 0)], [(0, 8), (9, 8)]]);
        for c in 1..8 {
            lines.extend([[(0, c), (4, c)], [(5, c), (9, c)]]);
        }
        for (a, b) in [(0, 2), (7, 9)] {
            lines.extend([[(a, 3), (b, 5)], [(a, 5), (b, 3)]]);
        }
        lines
    }
    fn piece(&self, row: usize, col: usize) -> Option<(Side, u8)> {
        let sq = Square::new(col as u8, row as u8)?;
        self.piece_at(sq).map(|p| (p.side, p.kind as u8 + 1))
    }
    fn move_cells(&self, mv: Move) -> ((usize, usize), Option<(usize, usize)>) {
        (xq_cell(mv.to), Some(xq_cell(mv.from)))
    }
    fn piece_colors(&self) -> [Rgb; 2] {
        [Rgb(200, 30, 30), Rgb(30, 30, 30)]
    }
    fn side_name(side: Side) -> &'static str {
        match side {
            Side::First => "red",
            Side::Second => "black",
        }
    }
    fn colorize(text: &str) -> String {
        let mut out = String::with_capacity(text.len() * 2);
        for line in text.split_inclusive('\n') {
            if line.starts_with(|c: char| c.is_ascii_digit()) {
                for c in line.chars() {
                    if c.is_ascii_uppercase() {
                        let _ = write!(out, "{RED}{c}{RESET}");
                    } else if c.is_ascii_lowercase() {
                        let _ = write!(out, "{BLUE}{c}{RESET}");
                    } else {
                        out.push(c);
                    }
                }
            } else {
                out.push_str(line);
            }
        }
        out
    }
}
