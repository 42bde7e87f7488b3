//! Gomoku in the registry: its spec (board size and rule), its encoder (4 planes, 5 under
//! renju), its web
//! page layout, its positions as text (move lists) and how it is drawn.

use std::fmt::Write as _;

use alphazero_game::{Game, History, HistoryEntry, Outcome, Side};
use alphazero_gomoku::{transform_point, Foul, Gomoku, GomokuConfig, GomokuMove, Rule};

use alphazero_mcts::SearchConfig;

use crate::encode::{permute_squares, Encode, PolicyPlanes};
use crate::play::{
    PLAY_GOMOKU_ROOT_TACTICAL_BUDGET, PLAY_REPLY_TACTICAL_BUDGET, PLAY_TACTICAL_BUDGET,
};
use crate::position::{play_move_list, refuse_fen, split_moves, PositionError, PositionText};
use crate::view::{colorize_xo, percent_cell, BoardView, Rgb, BLUE, RED};
use crate::web::{rows_through, Cell, WebGame};
use crate::{GameSpec, Registered, SpecError};

/// [`Game::NAME`] of Gomoku.
pub(crate) const NAME: &str = <Gomoku as Game>::NAME;

/// The game in one line (`--help`).
pub(crate) const ABOUT: &str = "Gomoku / Renju on an N×N board (5–20)";

/// Gomoku's training defaults over the game-neutral base (see
/// [`GameSpec::training_preset`]); the board, 15×15 freestyle, is the default spec's.
pub(crate) const TRAINING_PRESET: &str = r#"
# About 40 candidate points near the stones: Dirichlet α ≈ 0.25 each; VCF at every node within
# 200 stones placed.
[selfplay]
temperature_moves = 12
max_plies = 225

[selfplay.search]
dirichlet_alpha = 0.05
dirichlet_alpha_total = 10.0
tactical_budget = 200
"#;

/// Gomoku on a `size × size` board under `rule`, the size checked as [`GomokuConfig::new`]
/// checks it.
pub(crate) fn spec(size: u8, rule: Rule) -> Result<GameSpec, SpecError> {
    let config = GomokuConfig::new(size, rule)?;
    Ok(Gomoku::spec(&config))
}

/// The size and rule out of a configuration's `Debug` text (`GomokuConfig { size: 8, rule:
/// Freestyle, candidate_radius: 2 }`), as headers written before the registry store them.
pub(crate) fn from_debug_text(text: &str) -> Result<GameSpec, String> {
    let field = |key: &str| {
        text.split(&format!("{key}: "))
            .nth(1)
            .and_then(|r| r.split([',', ' ', '}']).next())
            .filter(|v| !v.is_empty())
    };
    let size = field("size")
        .and_then(|s| s.parse::<u8>().ok())
        .ok_or("no board size")?;
    let rule: Rule = field("rule")
        .ok_or("no rule")?
        .parse()
        .map_err(|e: alphazero_game::ParseError| e.to_string())?;
    spec(size, rule).map_err(|e| e.to_string())
}

impl Registered for Gomoku {
    /// The decisive-move check (an immediate five, one's own or the opponent's, is seen when
    /// a node is expanded, whatever the network's prior; ~2.5× the cost of an expansion),
    /// fives, unstoppable threats and VCF at every node, VCT at the root and for the opponent
    /// after each root candidate: the Gomocup brain's and the interactive commands' search,
    /// the richest any program used for Gomoku (`serve` had no root or reply tactics and
    /// missed VCTs that the brain finds and defends against). Not the threat replies
    /// ([`SearchConfig::threat_replies_budget`]): with them the brain scored 39% against
    /// itself without them at 1 s a move.
    fn play_search() -> SearchConfig {
        SearchConfig {
            terminal_check: true,
            tactical_budget: Some(PLAY_TACTICAL_BUDGET),
            root_tactical_budget: Some(PLAY_GOMOKU_ROOT_TACTICAL_BUDGET),
            reply_tactical_budget: Some(PLAY_REPLY_TACTICAL_BUDGET),
            ..SearchConfig::default()
        }
    }

    /// `1..=plies` stones (the count uniform), placed by
    /// [`alphazero_game::random_opening`]: each a uniformly random candidate point (the first
    /// within distance 2 of the centre, the others within distance 2 of a stone; under renju
    /// never one of black's fouls), colours alternating from black, drawn again while the
    /// stones end the game. These are the random stone openings that Gomocup matches and the
    /// arena's `random-N` openings measure networks from, which self-play from the empty
    /// board rarely reaches; an odd count leaves white to move. The text is the move list
    /// (`h8 i9 g7`). Gomoku has no pieces to take off: `max_removed` is not used, and
    /// `plies` 0 gives no random starts (`None`).
    fn random_start(
        config: &GomokuConfig,
        _max_removed: u32,
        plies: u32,
        seed: u64,
    ) -> Option<(Gomoku, String)> {
        use rand::{rngs::StdRng, Rng, SeedableRng};
        if plies == 0 {
            return None;
        }
        let mut rng = StdRng::seed_from_u64(seed);
        let stones = rng.random_range(1..=plies);
        let line = alphazero_game::random_opening(&Gomoku::new(config), stones, rng.random())?;
        let start = line.start();
        let text: Vec<String> = line
            .moves()
            .iter()
            .map(|&mv| start.format_move(mv))
            .collect();
        Some((line.current().clone(), text.join(" ")))
    }

    fn spec(config: &GomokuConfig) -> GameSpec {
        GameSpec::Gomoku {
            size: config.size,
            rule: config.rule,
        }
    }

    fn config_of(spec: &GameSpec) -> Option<GomokuConfig> {
        match *spec {
            GameSpec::Gomoku { size, rule } => Some(GomokuConfig {
                size,
                rule,
                ..GomokuConfig::default()
            }),
            _ => None,
        }
    }
}

/// Gomoku planes of every rule: own stones, opponent stones, last move, colour to move.
const GOMOKU_PLANES: usize = 4;

/// The plane renju adds after [`GOMOKU_PLANES`]: black's forbidden points.
const FORBIDDEN_PLANE: usize = GOMOKU_PLANES;

impl Encode for Gomoku {
    /// 4 planes; renju adds a fifth, black's forbidden points (a double-three, double-four or
    /// overline point: the rule, not something a network should have to learn to see; the
    /// Gomoku KataGo forks feed the same feature).
    fn num_planes(config: &GomokuConfig) -> usize {
        GOMOKU_PLANES + usize::from(config.rule == Rule::Renju)
    }

    /// The 4 planes every rule has: a network trained under freestyle or standard plays renju
    /// with zero weights on the forbidden-point plane.
    fn common_planes(_config: &GomokuConfig) -> usize {
        GOMOKU_PLANES
    }

    fn encode(&self, _repetitions: u32, out: &mut [f32]) {
        let n = self.size();
        let hw = n * n;
        let planes = Gomoku::num_planes(self.config());
        assert_eq!(out.len(), planes * hw, "gomoku planes buffer length");
        out.fill(0.0);
        let us = self.side_to_move();
        for (plane, side) in [(0, us), (1, us.opponent())] {
            for y in 0..n {
                let mut bits = self.row_bits(side, y);
                while bits != 0 {
                    let x = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if x < n {
                        out[plane * hw + y * n + x] = 1.0;
                    }
                }
            }
        }
        if let Some(m) = self.last_move() {
            let (x, y) = (usize::from(m.x), usize::from(m.y));
            if x < n && y < n {
                out[2 * hw + y * n + x] = 1.0;
            }
        }
        if us == Side::First {
            out[3 * hw..4 * hw].fill(1.0);
        }
        if planes > FORBIDDEN_PLANE {
            // Whoever is to move: White's moves are judged by the points Black may not take.
            for (mv, _) in self.forbidden_points() {
                let (x, y) = (usize::from(mv.x), usize::from(mv.y));
                out[FORBIDDEN_PLANE * hw + y * n + x] = 1.0;
            }
        }
    }

    fn transform_planes(config: &GomokuConfig, sym: usize, src: &[f32], dst: &mut [f32]) {
        let planes = Gomoku::num_planes(config);
        let hw = src.len() / planes;
        let n = (hw as f64).sqrt().round() as usize;
        assert_eq!(n * n * planes, src.len(), "gomoku planes buffer length");
        permute_squares(n, n, src, dst, |x, y| {
            let (tx, ty) = transform_point(n as u8, sym, x as u8, y as u8);
            (usize::from(tx), usize::from(ty))
        });
    }

    fn plane_meanings(config: &Self::Config) -> Vec<String> {
        let mut planes: Vec<String> = vec![
            "stones of the side to move (1.0 where a stone is)".into(),
            "stones of the opponent".into(),
            "the last move played (a single 1.0; all zero at the start)".into(),
            "colour to move: all 1.0 when Black (the first player) is to move, all 0.0 for White"
                .into(),
        ];
        if config.rule == Rule::Renju {
            planes.push(
                "Black's forbidden points (renju fouls: double-three, double-four, overline), \
                 1.0 at each, whichever side is to move"
                    .into(),
            );
        }
        planes
    }
    fn board_layout() -> &'static str {
        "row y, column x of the planes is the point (x, y): column letter a + x, row number \
         y + 1 (h8 = (7, 7)); Gomocup coordinates x,y are the same numbers"
    }
    fn policy_layout() -> &'static str {
        "action = y * N + x for the point (x, y) on the N x N board (the same for both sides)"
    }

    fn ownership(&self, _continuation: &[GomokuMove], end: &Gomoku, out: &mut [f32]) {
        let n = self.size();
        assert_eq!(out.len(), n * n, "gomoku ownership map length");
        let us = self.side_to_move();
        for y in 0..n {
            for x in 0..n {
                out[y * n + x] = match end.stone_at(x, y) {
                    Some(side) if side == us => 1.0,
                    Some(_) => -1.0,
                    None => 0.0,
                };
            }
        }
    }

    fn transform_ownership(config: &GomokuConfig, sym: usize, src: &[f32], dst: &mut [f32]) {
        let n = usize::from(config.size);
        assert_eq!(src.len(), n * n, "gomoku ownership map length");
        permute_squares(n, n, src, dst, |x, y| {
            let (tx, ty) = transform_point(n as u8, sym, x as u8, y as u8);
            (usize::from(tx), usize::from(ty))
        });
    }

    fn ownership_meaning() -> &'static str {
        "the final owner of each point: +1 where the game ends with a stone of the side to \
         move, -1 a stone of the opponent, 0 empty"
    }

    /// One plane: action `y · N + x` is the point `(x, y)` (the planes' frame).
    fn policy_planes(config: &GomokuConfig) -> Option<PolicyPlanes> {
        let n = Gomoku::new(config).num_actions() as u32;
        Some(PolicyPlanes {
            planes: 1,
            index: (0..n).collect(),
        })
    }
}

impl WebGame for Gomoku {
    fn dims(&self) -> (usize, usize) {
        (self.size(), self.size())
    }

    fn cell(&self, (r, c): Cell) -> String {
        let y = self.size() - 1 - r;
        match self.stone_at(c, y) {
            Some(side) => Self::colour(side).to_string(),
            None => String::new(),
        }
    }

    fn cell_name(&self, (r, c): Cell) -> String {
        let y = self.size() - 1 - r;
        GomokuMove::new(c as u8, y as u8).to_string()
    }

    fn colour(side: Side) -> &'static str {
        match side {
            Side::First => "black",
            Side::Second => "white",
        }
    }

    fn move_cells(&self, mv: GomokuMove) -> (Cell, Option<Cell>) {
        (
            (self.size() - 1 - usize::from(mv.y), usize::from(mv.x)),
            None,
        )
    }

    fn last_move_cells(&self, mv: GomokuMove) -> Vec<Cell> {
        vec![WebGame::move_cells(self, mv).0]
    }

    fn rule_name(&self) -> Option<String> {
        Some(self.rule().name().to_string())
    }

    fn foul_points(&self) -> Vec<(Cell, String, &'static str)> {
        self.forbidden_points()
            .into_iter()
            .map(|(mv, foul)| {
                let kind = match foul {
                    Foul::DoubleThree => "double-three",
                    Foul::DoubleFour => "double-four",
                    Foul::Overline => "overline",
                };
                (WebGame::move_cells(self, mv).0, mv.to_string(), kind)
            })
            .collect()
    }

    fn decisive_cells(
        &self,
        outcome: Outcome,
        last: Option<GomokuMove>,
        _history: &[HistoryEntry],
    ) -> Vec<Cell> {
        let Some(last) = last else {
            return Vec::new();
        };
        let at = WebGame::move_cells(self, last).0;
        match outcome {
            Outcome::Draw => Vec::new(),
            // The side to move won on the other side's move: black's forbidden point.
            Outcome::Win => vec![at],
            Outcome::Loss => {
                let mover = self.side_to_move().opponent();
                let colour = <Self as WebGame>::colour(mover);
                let exact = match self.rule() {
                    Rule::Freestyle => false,
                    Rule::Standard => true,
                    Rule::Renju => mover == Side::First,
                };
                let five = rows_through(at, self.dims(), 5, exact, |cell| {
                    WebGame::cell(self, cell) == colour
                });
                if five.is_empty() {
                    vec![at]
                } else {
                    five
                }
            }
        }
    }
}

impl PositionText for Gomoku {
    fn parse_position(config: &GomokuConfig, text: &str) -> Result<History<Self>, PositionError> {
        refuse_fen::<Self>(text, "h8 h9 i8")?;
        // Gomocup moves contain a comma ("7,7"), so only whitespace/';' separate moves.
        play_move_list(Gomoku::new(config), &split_moves(text))
    }
}

impl BoardView for Gomoku {
    fn point_lines(&self) -> Vec<[(usize, usize); 2]> {
        crate::view::full_grid_lines(self.size(), self.size())
    }
    fn text_position(&self, (row, col): (usize, usize)) -> Option<(usize, usize)> {
        // A line of column letters, then one line per row: the row number in 2 characters,
        // then ` X` per column.
        (row < self.size() && col < self.size()).then_some((1 + row, 3 + 2 * col))
    }
    fn forbidden_moves(&self) -> Vec<GomokuMove> {
        if self.side_to_move() != Side::First {
            return Vec::new();
        }
        self.forbidden_points()
            .into_iter()
            .map(|(m, _)| m)
            .collect()
    }
    fn axis_labels(&self) -> (Vec<String>, Vec<String>) {
        let n = self.size();
        let cols = (0..n)
            .map(|x| self.format_move(GomokuMove::new(x as u8, 0)))
            .map(|m| m.trim_end_matches(char::is_numeric).to_string())
            .collect();
        ((cols), (1..=n).map(|y| y.to_string()).collect())
    }
    fn grid(&self) -> (usize, usize) {
        (self.size(), self.size())
    }
    fn piece(&self, row: usize, col: usize) -> Option<(Side, u8)> {
        self.stone_at(col, row).map(|s| (s, 0))
    }
    fn move_cells(&self, mv: GomokuMove) -> ((usize, usize), Option<(usize, usize)>) {
        ((usize::from(mv.y), usize::from(mv.x)), None)
    }
    fn piece_colors(&self) -> [Rgb; 2] {
        [Rgb(20, 20, 20), Rgb(250, 250, 250)]
    }
    fn side_name(side: Side) -> &'static str {
        match side {
            Side::First => "black (X)",
            Side::Second => "white (O)",
        }
    }
    fn colorize(text: &str) -> String {
        colorize_xo(text, RED, BLUE)
    }
    fn policy_text(&self, pi: &[(GomokuMove, f32)]) -> String {
        let n = self.size();
        let mut grid = vec![0.0f32; n * n];
        for &(mv, p) in pi {
            if usize::from(mv.x) < n && usize::from(mv.y) < n {
                grid[usize::from(mv.y) * n + usize::from(mv.x)] += p;
            }
        }
        let mut s = String::from("   ");
        for x in 0..n {
            let _ = write!(s, "{:>4}", (b'a' + x as u8) as char);
        }
        s.push('\n');
        for y in (0..n).rev() {
            let _ = write!(s, "{:>3}", y + 1);
            for x in 0..n {
                match self.stone_at(x, y) {
                    Some(Side::First) => s.push_str("   X"),
                    Some(Side::Second) => s.push_str("   O"),
                    None => s.push_str(&percent_cell(grid[y * n + x])),
                }
            }
            s.push('\n');
        }
        s.push_str("(percent of the move distribution per point; X black, O white)\n");
        s
    }
}
