//! Xiangqi: its positions as text (FEN, move lists), how it is drawn (ICCS and WXF), and its
//! arena players (alpha-beta, UCCI/UCI engines).
use crate::arena::{wrong_game, ArenaGame, Factory};
use crate::position::{play_move_list, split_moves, PositionText};
use crate::present::{BoardView, BLUE, RED, RESET};
use alphazero_arena::{Player, PlayerKind, PlayerSpec};
use alphazero_game::{Game, History, Side};
use alphazero_xiangqi::{Move as XqMove, Square, Xiangqi, XiangqiConfig};
use anyhow::Result;
use plotters::style::RGBColor;
use std::fmt::Write as _;
use std::sync::Arc;

impl PositionText for Xiangqi {
    fn parse_position(config: &XiangqiConfig, text: &str) -> Result<History<Self>> {
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
                    e.context(format!(
                        "{t:?} is neither a FEN (ranks separated by '/', e.g. \
                         rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w) nor a \
                         move list from the start position"
                    ))
                } else {
                    e
                }
            });
        };
        play_move_list(start, &split_moves(moves_part))
    }
}

fn xq_cell(sq: Square) -> (usize, usize) {
    (usize::from(sq.rank()), usize::from(sq.file()))
}

impl BoardView for Xiangqi {
    const SECOND_NOTATION: &'static str = "WXF";
    fn second_notation(&self, mv: XqMove) -> Option<String> {
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
    fn piece(&self, row: usize, col: usize) -> Option<(Side, u8)> {
        let sq = Square::new(col as u8, row as u8)?;
        self.piece_at(sq).map(|p| (p.side, p.kind as u8 + 1))
    }
    fn move_cells(&self, mv: XqMove) -> ((usize, usize), Option<(usize, usize)>) {
        (xq_cell(mv.to), Some(xq_cell(mv.from)))
    }
    fn piece_colors(&self) -> [RGBColor; 2] {
        [RGBColor(200, 30, 30), RGBColor(30, 30, 30)]
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

impl ArenaGame for Xiangqi {
    fn special(spec: &PlayerSpec, text: &str, seed: u64) -> Result<(String, Factory<Self>)> {
        use alphazero_protocols::{Dialect, UcciClient, UcciClientConfig};
        match &spec.kind {
            PlayerKind::AlphaBeta(d) => {
                let d = *d;
                Ok((
                    format!("alphabeta-d{d}"),
                    Arc::new(move || {
                        Box::new(alphazero_arena::XiangqiAlphaBeta::new(d, seed))
                            as Box<dyn Player<Xiangqi>>
                    }),
                ))
            }
            PlayerKind::Ucci(cmd) | PlayerKind::Uci(cmd) => {
                let dialect = if matches!(spec.kind, PlayerKind::Ucci(_)) {
                    Dialect::Ucci
                } else {
                    Dialect::Uci
                };
                let mut cfg = UcciClientConfig::new(cmd.clone(), dialect);
                cfg.options.extend(spec.settings.options.iter().cloned());
                let name = cfg.name.clone();
                Ok((
                    name,
                    Arc::new(move || {
                        Box::new(UcciClient::new(cfg.clone())) as Box<dyn Player<Xiangqi>>
                    }),
                ))
            }
            _ => Err(wrong_game::<Self>(text)),
        }
    }
}
