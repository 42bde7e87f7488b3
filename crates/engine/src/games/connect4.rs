//! Connect Four: its positions as text (moves or a digit string), how it is drawn, and its
//! arena players (none of its own).
use crate::arena::{wrong_game, ArenaGame, Factory};
use crate::position::{play_move_list, refuse_fen, PositionText};
use crate::present::{colorize_xo, percent_cell, BoardView, RED, YELLOW};
use alphazero_arena::PlayerSpec;
use alphazero_connect4::{
    C4Move, Connect4, Connect4Config, HEIGHT as C4_HEIGHT, WIDTH as C4_WIDTH,
};
use alphazero_game::{Game, History, Side};
use anyhow::Result;
use plotters::style::RGBColor;

impl PositionText for Connect4 {
    fn parse_position(config: &Connect4Config, text: &str) -> Result<History<Self>> {
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

fn c4_landing_row(pos: &Connect4, col: usize) -> usize {
    (0..C4_HEIGHT)
        .find(|&r| pos.cell(col, r).is_none())
        .unwrap_or(C4_HEIGHT - 1)
}

impl BoardView for Connect4 {
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
        ((c4_landing_row(self, col), col), None)
    }
    fn piece_colors(&self) -> [RGBColor; 2] {
        [RGBColor(220, 30, 30), RGBColor(240, 200, 20)]
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

impl ArenaGame for Connect4 {
    fn special(_: &PlayerSpec, text: &str, _: u64) -> Result<(String, Factory<Self>)> {
        Err(wrong_game::<Self>(text))
    }
}
