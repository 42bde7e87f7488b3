//! One game against the engine ([`Match`]), its JSON view ([`StateJson`]), the search analysis
//! ([`AnalysisJson`]) and the text record.

use std::sync::Arc;

use alphazero_connect4::Connect4;
use alphazero_game::{Game, History, Outcome, Side};
use alphazero_gomoku::Gomoku;
use alphazero_mcts::{ChildStats, Evaluator, Search, SearchConfig, SearchResult};
use alphazero_xiangqi::Xiangqi;
use serde::Serialize;

use crate::error::ApiError;
use crate::games::WebGame;

/// How many moves of the search are listed in [`AnalysisJson::top_moves`].
const TOP_MOVES: usize = 10;

/// One row of the analysis table.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct TopMove {
    /// The move in the game's notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// Root visits N(a).
    pub visits: u32,
    /// Share of the root visits N(a) / Σ N in [0, 1] (1 for a win in one proven before any
    /// visit).
    pub share: f32,
    /// Q(a) in [-1, 1] from the side that was searched (the side to move at the root).
    pub q: f32,
    /// Prior P(a) of the evaluator, in [0, 1].
    pub prior: f32,
    /// `"win"`, `"loss"` or `"draw"` when the solver or the game's tactics proved the result
    /// of this move (from the searched side), else `null`.
    pub proven: Option<&'static str>,
}

/// The last search of a session, as sent to the page.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct AnalysisJson {
    /// Number of moves played before the searched position (index into the move list).
    pub ply: usize,
    /// The side to move in the searched position (`first` / `second`).
    pub side: &'static str,
    /// The move the engine played from it (`/api/engine`), or `null` (`/api/analysis`).
    pub played: Option<String>,
    /// The search's choice.
    pub best_move: Option<String>,
    /// Simulations the search ran.
    pub simulations: u32,
    /// Root value in [-1, 1] **from the engine's side** (+1: the engine expects to win).
    pub value: f32,
    /// Visit share per board cell, `[rows][cols]` like `board`, summing to 1 over the board
    /// (Connect Four: the landing cell of each column; Xiangqi: aggregated on destinations).
    pub heatmap: Vec<Vec<f32>>,
    /// Xiangqi only: visit share aggregated on the origin squares, `[rows][cols]`.
    pub heatmap_from: Option<Vec<Vec<f32>>>,
    /// Connect Four only: visit share per column, `[7]`.
    pub columns: Option<Vec<f32>>,
    /// The most visited root moves, most visits first (at most 10).
    pub top_moves: Vec<TopMove>,
    /// Principal variation from the searched position, in notation.
    pub pv: Vec<String>,
}

/// The outcome of a finished game.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct OutcomeJson {
    /// `1-0` (first side won), `0-1`, or `1/2-1/2`.
    pub result: &'static str,
    /// `first`, `second`, or `null` for a draw.
    pub winner: Option<&'static str>,
    /// e.g. "Black wins — you win" / "Draw".
    pub text: String,
    /// Why the game ended, in words (`five in a row with h8`, `repetition: perpetual chase
    /// by red loses`, `black's h8 is a renju forbidden move, a double-three, and loses`), or
    /// `null` when the game has nothing more to say.
    pub reason: Option<String>,
}

/// The whole state of a session as sent to the page (see API.md).
#[derive(Clone, Debug, Serialize)]
pub(crate) struct StateJson {
    pub session: String,
    pub game: &'static str,
    pub rule: Option<String>,
    pub engine: String,
    pub rows: usize,
    pub cols: usize,
    pub board: Vec<Vec<String>>,
    pub cells: Vec<Vec<String>>,
    pub side_to_move: &'static str,
    pub colour_to_move: &'static str,
    pub human_side: &'static str,
    pub human_colour: &'static str,
    pub engine_colour: &'static str,
    pub human_to_move: bool,
    pub in_check: bool,
    pub legal_moves: Vec<String>,
    pub last_move: Option<String>,
    pub last_move_cells: Vec<[usize; 2]>,
    pub moves: Vec<String>,
    pub simulations: u32,
    pub outcome: Option<OutcomeJson>,
    pub analysis: Option<AnalysisJson>,
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::First => "first",
        Side::Second => "second",
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// A game between a human and the engine.
#[derive(Clone)]
pub(crate) struct Match<G: WebGame> {
    pub history: History<G>,
    pub human: Side,
    pub evaluator: Arc<dyn Evaluator<G>>,
    pub analysis: Option<AnalysisJson>,
}

impl<G: WebGame> Match<G> {
    pub fn new(start: G, human: Side, evaluator: Arc<dyn Evaluator<G>>) -> Self {
        Match {
            history: History::new(start),
            human,
            evaluator,
            analysis: None,
        }
    }

    fn engine(&self) -> Side {
        self.human.opponent()
    }

    fn outcome(&self) -> Option<OutcomeJson> {
        let o = self.history.outcome()?;
        let winner = o.winner(self.history.current().side_to_move());
        let (result, text) = match winner {
            None => ("1/2-1/2", "Draw".to_string()),
            Some(w) => {
                let who = if w == self.human {
                    "you win"
                } else {
                    "the engine wins"
                };
                let res = if w == Side::First { "1-0" } else { "0-1" };
                (res, format!("{} wins — {who}", capitalise(G::colour(w))))
            }
        };
        let reason = self
            .history
            .current()
            .end_reason_text(self.history.entries());
        let text = match &reason {
            Some(r) => format!("{text} ({r})"),
            None => text,
        };
        Some(OutcomeJson {
            result,
            winner: winner.map(side_name),
            text,
            reason,
        })
    }

    /// Plays the human's move given in notation.
    pub fn human_move(&mut self, text: &str) -> Result<(), ApiError> {
        if self.history.outcome().is_some() {
            return Err(ApiError::BadRequest("the game is over".into()));
        }
        let pos = self.history.current();
        if pos.side_to_move() != self.human {
            return Err(ApiError::BadRequest(
                "it is not your turn: the engine is to move".into(),
            ));
        }
        let mv = pos
            .parse_move(text)
            .map_err(|e| ApiError::BadRequest(e.to_string()))?;
        self.history
            .play(mv)
            .map_err(|e| ApiError::BadRequest(e.to_string()))
    }

    /// Checks that a search may start (game not over; with `play`, the engine is to move).
    pub fn check_search(&self, play: bool) -> Result<(), ApiError> {
        if self.history.outcome().is_some() {
            return Err(ApiError::BadRequest("the game is over".into()));
        }
        if play && self.history.current().side_to_move() != self.engine() {
            return Err(ApiError::BadRequest(
                "it is your turn, not the engine's".into(),
            ));
        }
        Ok(())
    }

    /// Searches the current position (blocking) and, with `play`, plays the engine's move.
    pub fn think(&mut self, config: &SearchConfig, play: bool) -> Result<(), ApiError> {
        self.check_search(play)?;
        let mut search = Search::from_history(&self.history, config.clone())
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        let result = search
            .run(&*self.evaluator)
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        let mut analysis = self.analyse(&result);
        if play {
            let mv = result
                .best_move
                .ok_or_else(|| ApiError::Internal("the search returned no move".into()))?;
            self.history
                .play(mv)
                .map_err(|e| ApiError::Internal(format!("engine move refused: {e}")))?;
            analysis.played = Some(self.history.current().format_move(mv));
        }
        self.analysis = Some(analysis);
        Ok(())
    }

    fn analyse(&self, result: &SearchResult<G>) -> AnalysisJson {
        let pos = self.history.current();
        let (rows, cols) = pos.dims();
        let mut heat = vec![vec![0.0f32; cols]; rows];
        let mut from: Option<Vec<Vec<f32>>> = None;
        let mut columns: Option<Vec<f32>> = None;
        // π over the action space: the visit distribution, or one-hot on a proven win found
        // before any visit; fall back to one-hot on the best move if it is all zero.
        let policy_sum: f32 = result.policy.iter().sum();
        let share = |ch: &ChildStats<G::Move>| {
            if policy_sum > 0.0 {
                result.policy.get(ch.action).copied().unwrap_or(0.0) / policy_sum
            } else if Some(ch.mv) == result.best_move {
                1.0
            } else {
                0.0
            }
        };
        for ch in &result.children {
            let s = share(ch);
            let ((r, c), origin) = pos.move_cells(ch.mv);
            heat[r][c] += s;
            if let Some((r, c)) = origin {
                from.get_or_insert_with(|| vec![vec![0.0; cols]; rows])[r][c] += s;
            }
        }
        if G::NAME == "connect4" {
            let mut col = vec![0.0f32; cols];
            for row in &heat {
                for (c, v) in row.iter().enumerate() {
                    col[c] += v;
                }
            }
            columns = Some(col);
        }
        let top_moves = result
            .ranked_children()
            .into_iter()
            .take(TOP_MOVES)
            .map(|ch| TopMove {
                mv: pos.format_move(ch.mv),
                visits: ch.visits,
                share: share(ch),
                q: ch.q,
                prior: ch.prior,
                proven: ch.proven.map(|o| match o {
                    Outcome::Win => "win",
                    Outcome::Loss => "loss",
                    Outcome::Draw => "draw",
                }),
            })
            .collect();
        let mut pv = Vec::with_capacity(result.pv.len());
        let mut walk = pos.clone();
        for &mv in &result.pv {
            pv.push(walk.format_move(mv));
            walk.play_unchecked(mv);
        }
        let searched = pos.side_to_move();
        let value = if searched == self.engine() {
            result.root_value
        } else {
            -result.root_value
        };
        AnalysisJson {
            ply: self.history.len(),
            side: side_name(searched),
            played: None,
            best_move: result.best_move.map(|m| pos.format_move(m)),
            simulations: result.simulations,
            value: value.clamp(-1.0, 1.0),
            heatmap: heat,
            heatmap_from: from,
            columns,
            top_moves,
            pv,
        }
    }

    /// Takes back moves to the human's previous turn.
    pub fn undo(&mut self) -> Result<(), ApiError> {
        let engine_first = usize::from(self.human == Side::Second);
        if self.history.len() <= engine_first {
            return Err(ApiError::BadRequest(
                "there is no move of yours to undo".into(),
            ));
        }
        self.history.undo();
        while self.history.current().side_to_move() != self.human && self.history.undo().is_some() {
        }
        self.analysis = None;
        Ok(())
    }

    fn notation_moves(&self) -> Vec<String> {
        let mut pos = self.history.start().clone();
        let mut out = Vec::with_capacity(self.history.len());
        for &mv in self.history.moves() {
            out.push(pos.format_move(mv));
            pos.play_unchecked(mv);
        }
        out
    }

    pub fn state(&self, session: &str, engine: &str, simulations: u32) -> StateJson {
        let pos = self.history.current();
        let (rows, cols) = pos.dims();
        let board = (0..rows)
            .map(|r| (0..cols).map(|c| pos.cell((r, c))).collect())
            .collect();
        let cells = (0..rows)
            .map(|r| (0..cols).map(|c| pos.cell_name((r, c))).collect())
            .collect();
        let outcome = self.outcome();
        let legal_moves = if outcome.is_some() {
            Vec::new()
        } else {
            pos.legal_moves_vec()
                .into_iter()
                .map(|m| pos.format_move(m))
                .collect()
        };
        let moves = self.notation_moves();
        let last = self.history.moves().last().copied();
        let stm = pos.side_to_move();
        StateJson {
            session: session.to_string(),
            game: G::NAME,
            rule: pos.rule_name(),
            engine: engine.to_string(),
            rows,
            cols,
            board,
            cells,
            side_to_move: side_name(stm),
            colour_to_move: G::colour(stm),
            human_side: side_name(self.human),
            human_colour: G::colour(self.human),
            engine_colour: G::colour(self.engine()),
            human_to_move: outcome.is_none() && stm == self.human,
            in_check: pos.in_check(),
            legal_moves,
            last_move: moves.last().cloned(),
            last_move_cells: last
                .map(|m| {
                    pos.last_move_cells(m)
                        .into_iter()
                        .map(|(r, c)| [r, c])
                        .collect()
                })
                .unwrap_or_default(),
            moves,
            simulations,
            outcome,
            analysis: self.analysis.clone(),
        }
    }

    /// The game as a PGN-like text record: tags, numbered moves, result.
    pub fn record(&self, engine: &str, simulations: u32) -> String {
        let start = self.history.start();
        let mut out = String::new();
        let mut tag = |k: &str, v: &str| {
            out.push_str(&format!("[{k} \"{}\"]\n", v.replace('"', "'")));
        };
        tag("Game", G::NAME);
        for (k, v) in G::record_tags(start) {
            tag(k, &v);
        }
        let engine_desc = format!("engine: {engine}, {simulations} simulations");
        for side in [Side::First, Side::Second] {
            let who = if side == self.human {
                "human"
            } else {
                &engine_desc
            };
            tag(&capitalise(G::colour(side)), who);
        }
        let outcome = self.outcome();
        tag("Result", outcome.as_ref().map_or("*", |o| o.result));
        if let Some(o) = &outcome {
            tag("Termination", &o.text);
        }
        out.push('\n');
        let moves = self.notation_moves();
        let mut line = String::new();
        for (i, pair) in moves.chunks(2).enumerate() {
            line.push_str(&format!("{}. {}", i + 1, pair.join(" ")));
            line.push(' ');
        }
        line.push_str(outcome.as_ref().map_or("*", |o| o.result));
        out.push_str(&line);
        out.push('\n');
        out
    }
}

/// A match of any of the three games.
#[derive(Clone)]
pub(crate) enum AnyMatch {
    Gomoku(Box<Match<Gomoku>>),
    Xiangqi(Box<Match<Xiangqi>>),
    Connect4(Box<Match<Connect4>>),
}

/// Calls the same generic code on whichever game a match holds.
macro_rules! with_match {
    ($m:expr, $g:ident => $body:expr) => {
        match $m {
            AnyMatch::Gomoku($g) => $body,
            AnyMatch::Xiangqi($g) => $body,
            AnyMatch::Connect4($g) => $body,
        }
    };
}

impl AnyMatch {
    pub fn human_move(&mut self, text: &str) -> Result<(), ApiError> {
        with_match!(self, m => m.human_move(text))
    }

    pub fn check_search(&self, play: bool) -> Result<(), ApiError> {
        with_match!(self, m => m.check_search(play))
    }

    pub fn think(&mut self, config: &SearchConfig, play: bool) -> Result<(), ApiError> {
        with_match!(self, m => m.think(config, play))
    }

    pub fn undo(&mut self) -> Result<(), ApiError> {
        with_match!(self, m => m.undo())
    }

    pub fn state(&self, session: &str, engine: &str, simulations: u32) -> StateJson {
        with_match!(self, m => m.state(session, engine, simulations))
    }

    pub fn record(&self, engine: &str, simulations: u32) -> String {
        with_match!(self, m => m.record(engine, simulations))
    }

    pub fn name(&self) -> &'static str {
        match self {
            AnyMatch::Gomoku(_) => Gomoku::NAME,
            AnyMatch::Xiangqi(_) => Xiangqi::NAME,
            AnyMatch::Connect4(_) => Connect4::NAME,
        }
    }
}
