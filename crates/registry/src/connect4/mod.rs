//! Connect Four in the registry: one spec (7×6), its encoder (2 planes), its exact solver's
//! yardstick ([`yardstick`]: Pascal Pons' test sets), its web page layout, its positions as text
//! (moves or a digit string) and how it is drawn.

pub mod yardstick;

use alphazero_connect4::{
    C4Move, Connect4, Connect4Config, HEIGHT as C4_HEIGHT, WIDTH as C4_WIDTH,
};
use alphazero_game::{Game, History, HistoryEntry, Outcome, Side};
use alphazero_mcts::SearchConfig;

use crate::encode::{permute_squares, Encode};
use crate::position::{play_move_list, refuse_fen, PositionError, PositionText};
use crate::view::{colorize_xo, percent_cell, BoardView, Rgb, RED, YELLOW};
use crate::web::{rows_through, Cell, WebGame};
use crate::yardstick::{SolverYardstick, YardstickInfo};
use crate::{GameSpec, Registered};

/// [`Game::NAME`] of Connect Four.
pub(crate) const NAME: &str = <Connect4 as Game>::NAME;

/// The game in one line (`--help`).
pub(crate) const ABOUT: &str = "Connect Four, 7×6";

/// Connect Four's training defaults over the game-neutral base (see
/// [`GameSpec::training_preset`]).
pub(crate) const TRAINING_PRESET: &str = r#"
# Sized for a 2-core CPU: a small network and playout-cap randomisation (30% of moves get the
# full 128-simulation search and become policy targets), so that an hour of training plays
# thousands of games.
[selfplay]
games_per_iteration = 100
simulations = 128
temperature_moves = 8
max_plies = 42
playout_cap = { enabled = true, fast_simulations = 24, full_probability = 0.3 }
resign = { min_ply = 10 }
search = { dirichlet_alpha = 1.0 }

# Half of each batch from the newest 40,000 positions (about the last 6,000 games), the rest
# from the whole buffer.
[replay]
recent_fraction = 0.5
recent_window = 40_000

[model]
blocks = 4
channels = 32
value_hidden = 32

# Cosine decay over the run (its time budget) to 1e-4, and the value target (z + q)/2:
# measured on a 2-core CPU (docs/results.md, "Connect Four from zero in 60 minutes").
[train]
samples_per_position = 8.0
lr = 2e-3
lr_schedule = "cosine"
lr_min = 1e-4
value_q_weight = 0.5

# No gating: every iteration's network plays the next self-play games (as in AlphaZero,
# unlike AlphaGo Zero); `gating.enabled = true` restores it.
[gating]
enabled = false
games = 30
simulations = 48
sprt = { enabled = false }
opening_random_plies = 2

[run]
iterations = 0
time_budget_minutes = 60.0

# Solver agreement on 200 fixed positions every 5 iterations: 200 network evaluations, the
# solver's answers computed once per session.
[eval]
solver_every = 5
"#;

impl Registered for Connect4 {
    /// The decisive-move check (a four, one's own or the opponent's, is seen when a node is
    /// expanded, whatever the network's prior), as every program had it; no tactical budgets,
    /// since Connect Four has no tactical search ([`Game::tactical_proof`] proves nothing).
    fn play_search() -> SearchConfig {
        SearchConfig {
            terminal_check: true,
            ..SearchConfig::default()
        }
    }

    fn spec(_config: &Connect4Config) -> GameSpec {
        GameSpec::Connect4
    }

    fn config_of(spec: &GameSpec) -> Option<Connect4Config> {
        matches!(spec, GameSpec::Connect4).then_some(Connect4Config)
    }

    fn solver_yardstick() -> Option<SolverYardstick<Connect4>> {
        Some(SolverYardstick {
            info: YardstickInfo {
                folder: NAME,
                sets: &yardstick::SLICE_SETS,
            },
            load: yardstick::load_yardstick,
        })
    }
}

/// Connect Four planes: own discs, opponent discs.
const C4_PLANES: usize = 2;

impl Encode for Connect4 {
    fn num_planes(_config: &Connect4Config) -> usize {
        C4_PLANES
    }

    fn encode(&self, _repetitions: u32, out: &mut [f32]) {
        let hw = C4_HEIGHT * C4_WIDTH;
        assert_eq!(out.len(), C4_PLANES * hw, "connect4 planes buffer length");
        out.fill(0.0);
        let us = self.side_to_move();
        for row in 0..C4_HEIGHT {
            for col in 0..C4_WIDTH {
                if let Some(side) = self.cell(col, row) {
                    let plane = if side == us { 0 } else { 1 };
                    out[plane * hw + row * C4_WIDTH + col] = 1.0;
                }
            }
        }
    }

    fn transform_planes(_config: &Connect4Config, sym: usize, src: &[f32], dst: &mut [f32]) {
        let mirror = sym == 1;
        permute_squares(C4_HEIGHT, C4_WIDTH, src, dst, |x, y| {
            if mirror {
                (C4_WIDTH - 1 - x, y)
            } else {
                (x, y)
            }
        });
    }

    fn plane_meanings(_config: &Self::Config) -> Vec<String> {
        vec![
            "discs of the side to move".into(),
            "discs of the opponent".into(),
        ]
    }
    fn board_layout() -> &'static str {
        "row r, column c of the planes is board row r (0 = bottom), column c (0 = leftmost, \
         the move '1')"
    }
    fn policy_layout() -> &'static str {
        "action = column, 0-6 (the moves '1'-'7')"
    }

    fn ownership(&self, _continuation: &[C4Move], end: &Connect4, out: &mut [f32]) {
        assert_eq!(
            out.len(),
            C4_HEIGHT * C4_WIDTH,
            "connect4 ownership map length"
        );
        let us = self.side_to_move();
        for row in 0..C4_HEIGHT {
            for col in 0..C4_WIDTH {
                out[row * C4_WIDTH + col] = match end.cell(col, row) {
                    Some(side) if side == us => 1.0,
                    Some(_) => -1.0,
                    None => 0.0,
                };
            }
        }
    }

    fn transform_ownership(config: &Connect4Config, sym: usize, src: &[f32], dst: &mut [f32]) {
        assert_eq!(
            src.len(),
            C4_HEIGHT * C4_WIDTH,
            "connect4 ownership map length"
        );
        Self::transform_planes(config, sym, src, dst);
    }

    fn ownership_meaning() -> &'static str {
        "the final board: +1 where the game ends with a disc of the side to move, -1 a disc \
         of the opponent, 0 empty"
    }
}

impl WebGame for Connect4 {
    fn dims(&self) -> (usize, usize) {
        (C4_HEIGHT, C4_WIDTH)
    }

    fn cell(&self, (r, c): Cell) -> String {
        match self.cell(c, C4_HEIGHT - 1 - r) {
            Some(side) => <Self as WebGame>::colour(side).to_string(),
            None => String::new(),
        }
    }

    fn column_heat() -> bool {
        true
    }

    fn cell_name(&self, (_, c): Cell) -> String {
        C4Move(c as u8).to_string()
    }

    fn colour(side: Side) -> &'static str {
        match side {
            Side::First => "red",
            Side::Second => "yellow",
        }
    }

    fn move_cells(&self, mv: C4Move) -> (Cell, Option<Cell>) {
        let h = self.height(mv.col()).min(C4_HEIGHT - 1);
        ((C4_HEIGHT - 1 - h, mv.col()), None)
    }

    fn last_move_cells(&self, mv: C4Move) -> Vec<Cell> {
        let h = self.height(mv.col()).clamp(1, C4_HEIGHT);
        vec![(C4_HEIGHT - h, mv.col())]
    }

    fn decisive_cells(
        &self,
        outcome: Outcome,
        last: Option<C4Move>,
        _history: &[HistoryEntry],
    ) -> Vec<Cell> {
        match (outcome, last) {
            (Outcome::Draw, _) | (_, None) => Vec::new(),
            (_, Some(mv)) => {
                let at = self.last_move_cells(mv)[0];
                let colour = WebGame::cell(self, at);
                rows_through(at, self.dims(), 4, false, |cell| {
                    WebGame::cell(self, cell) == colour
                })
            }
        }
    }
}

impl PositionText for Connect4 {
    fn parse_position(config: &Connect4Config, text: &str) -> Result<History<Self>, PositionError> {
        refuse_fen::<Self>(text, "4 4 3")?;
        let t = text.trim();
        let tokens: Vec<&str> = if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()) {
            (0..t.len()).map(|i| &t[i..i + 1]).collect()
        } else {
            t.split(|c: char| c.is_whitespace() || c == ',')
                .filter(|s| !s.is_empty())
                .collect()
        };
        play_move_list(Connect4::new(config), &tokens)
    }
}

impl BoardView for Connect4 {
    fn text_position(&self, (row, col): (usize, usize)) -> Option<(usize, usize)> {
        // One line per row, top first, cells two characters apart.
        (row < C4_HEIGHT && col < C4_WIDTH).then_some((row, 2 * col))
    }
    fn axis_labels(&self) -> (Vec<String>, Vec<String>) {
        (
            (1..=C4_WIDTH).map(|c| c.to_string()).collect(),
            vec![String::new(); C4_HEIGHT],
        )
    }
    fn grid(&self) -> (usize, usize) {
        (C4_HEIGHT, C4_WIDTH)
    }
    fn piece(&self, row: usize, col: usize) -> Option<(Side, u8)> {
        self.cell(col, row).map(|s| (s, 0))
    }
    fn move_cells(&self, mv: C4Move) -> ((usize, usize), Option<(usize, usize)>) {
        let col = mv.col().min(C4_WIDTH - 1);
        // The cell the disc lands on (the top cell of a full column).
        ((self.height(col).min(C4_HEIGHT - 1), col), None)
    }
    fn piece_colors(&self) -> [Rgb; 2] {
        [Rgb(220, 30, 30), Rgb(240, 200, 20)]
    }
    fn side_name(side: Side) -> &'static str {
        match side {
            Side::First => "first (X)",
            Side::Second => "second (O)",
        }
    }
    fn colorize(text: &str) -> String {
        colorize_xo(text, RED, YELLOW)
    }
    fn policy_text(&self, pi: &[(C4Move, f32)]) -> String {
        let mut cols = [0.0f32; C4_WIDTH];
        for &(mv, p) in pi {
            if mv.col() < C4_WIDTH {
                cols[mv.col()] += p;
            }
        }
        let mut s = String::new();
        for p in cols {
            s.push_str(&percent_cell(p));
        }
        s.push_str("   (percent per column 1..7)\n");
        s
    }
}
