//! Gomoku: its positions as text, how it is drawn, and its arena players (heuristic, Gomocup
//! engines).
use crate::arena::{wrong_game, ArenaGame, Factory};
use crate::position::{play_move_list, refuse_fen, split_moves, PositionText};
use crate::present::{colorize_xo, percent_cell, BoardView, BLUE, RED};
use alphazero_arena::{Player, PlayerKind, PlayerSpec};
use alphazero_game::{Game, History, Side};
use alphazero_gomoku::{Gomoku, GomokuConfig, GomokuMove};
use anyhow::Result;
use plotters::style::RGBColor;
use std::fmt::Write as _;
use std::sync::Arc;

impl PositionText for Gomoku {
    fn parse_position(config: &GomokuConfig, text: &str) -> Result<History<Self>> {
        refuse_fen::<Self>(text, "h8 h9 i8")?;
        // Gomocup moves contain a comma ("7,7"), so only whitespace/';' separate moves.
        play_move_list(Gomoku::new(config), &split_moves(text))
    }
}

impl BoardView for Gomoku {
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
    fn piece_colors(&self) -> [RGBColor; 2] {
        [RGBColor(20, 20, 20), RGBColor(250, 250, 250)]
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

impl ArenaGame for Gomoku {
    fn special(spec: &PlayerSpec, text: &str, seed: u64) -> Result<(String, Factory<Self>)> {
        match &spec.kind {
            PlayerKind::Heuristic(l) => {
                let l = *l;
                Ok((
                    format!("heuristic-{l}"),
                    Arc::new(move || {
                        Box::new(alphazero_arena::GomokuHeuristic::new(l, seed))
                            as Box<dyn Player<Gomoku>>
                    }),
                ))
            }
            PlayerKind::Gomocup(cmd) => {
                let mut cfg = alphazero_protocols::GomocupClientConfig::new(cmd.clone());
                cfg.info = spec.settings.info.clone();
                let name = cfg.name.clone();
                Ok((
                    name,
                    Arc::new(move || {
                        Box::new(alphazero_protocols::GomocupClient::new(cfg.clone()))
                            as Box<dyn Player<Gomoku>>
                    }),
                ))
            }
            _ => Err(wrong_game::<Self>(text)),
        }
    }
}
