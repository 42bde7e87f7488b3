//! One game against the engine ([`Match`]), its JSON view ([`StateJson`]), the search analysis
//! ([`AnalysisJson`], kept per position for stepping through the game and the value graph), the
//! continuous analysis of one position ([`Analyser`]) and the text record.

use std::sync::Arc;

use alphazero_formats::{MoveNotation, Record, RecordResult};
use alphazero_game::{History, Outcome, Side};
use alphazero_mcts::{ChildStats, Evaluator, Search, SearchBudget, SearchConfig, SearchResult};
use serde::Serialize;

use crate::error::ApiError;
use crate::games::{Cell, WebGame};

/// How many moves of the search are listed in [`AnalysisJson::top_moves`].
const TOP_MOVES: usize = 10;

/// Longest line kept per top move ([`TopMove::pv`]), in plies.
const LINE_PLIES: usize = 20;

/// Where one move of a line is drawn: `to` the cell it is played on (Connect Four: where the
/// stone lands), `from` the origin square (Xiangqi) or `null`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct LineCell {
    pub to: [usize; 2],
    pub from: Option<[usize; 2]>,
}

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
    /// The line the search expects after this move (the move first, then the best reply at
    /// each ply while it has visits; at most 20 plies), in notation.
    pub pv: Vec<String>,
    /// The cells of each move of `pv`, for drawing it on the board.
    pub pv_cells: Vec<LineCell>,
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
    /// Simulations the search ran (a continuous analysis: all of its simulations so far).
    pub simulations: u32,
    /// Completed visits of the searched position (simulations plus its own evaluation).
    pub visits: u32,
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
    /// The cells of each move of `pv`.
    pub pv_cells: Vec<LineCell>,
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
    /// The cells that decided the game, `[r, c]`: the winning five or four, black's forbidden
    /// point, the mating move (origin, destination) and the mated general; empty for a draw.
    pub cells: Vec<[usize; 2]>,
}

/// A point where a black stone would be a renju foul (forbidden move).
#[derive(Clone, Debug, Serialize)]
pub(crate) struct ForbiddenJson {
    /// The point in notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// `[r, c]` as drawn.
    pub cell: [usize; 2],
    /// `double-three`, `double-four` or `overline`.
    pub kind: &'static str,
}

/// The continuous analysis of a session, as sent to the page.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct LiveJson {
    /// Whether it is still searching.
    pub running: bool,
    /// The ply of the analysed position.
    pub ply: usize,
    /// Simulations so far.
    pub simulations: u32,
    /// Milliseconds since it started (until it stopped).
    pub elapsed_ms: u64,
    /// Its simulation limit.
    pub max_simulations: u32,
    /// Its time limit in seconds.
    pub max_seconds: u32,
    /// Why it stopped (`null` while running): `stopped`, `time limit`, `simulation limit`,
    /// `proven`, `the game changed`, or `error: …`.
    pub stopped: Option<String>,
}

/// The whole state of a session as sent to the page (see API.md).
#[derive(Clone, Debug, Serialize)]
pub(crate) struct StateJson {
    pub session: String,
    /// The viewed position: moves played before it (`moves.len()` unless a ply was asked for).
    pub ply: usize,
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
    /// Per position of the game (`moves.len() + 1` entries): the value of its latest search
    /// from the engine's side, or `null`.
    pub values: Vec<Option<f32>>,
    /// Renju: black's forbidden points in the viewed position when black is to move.
    pub forbidden: Vec<ForbiddenJson>,
    /// The session's continuous analysis (running or finished), or `null`.
    pub live: Option<LiveJson>,
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

fn cell_json((r, c): Cell) -> [usize; 2] {
    [r, c]
}

/// The moves of a line in notation and where each is drawn, played from `pos`.
fn line_json<G: WebGame>(pos: &G, line: &[G::Move]) -> (Vec<String>, Vec<LineCell>) {
    let mut walk = pos.clone();
    let mut text = Vec::with_capacity(line.len());
    let mut cells = Vec::with_capacity(line.len());
    for &mv in line {
        let (to, from) = walk.move_cells(mv);
        text.push(walk.format_move(mv));
        cells.push(LineCell {
            to: cell_json(to),
            from: from.map(cell_json),
        });
        walk.play_unchecked(mv);
    }
    (text, cells)
}

/// The JSON view of a search of `pos` (`ply` moves into the game) whose value is shown from
/// `engine`'s side; `search` gives each top move's line.
fn analysis_json<G: WebGame>(
    pos: &G,
    ply: usize,
    engine: Side,
    result: &SearchResult<G>,
    search: &Search<G>,
) -> AnalysisJson {
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
    if G::column_heat() {
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
        .map(|ch| {
            let mut line = search.pv_from(ch.mv).unwrap_or_else(|| vec![ch.mv]);
            if Some(ch.mv) == result.best_move && result.pv.len() > line.len() {
                line.clone_from(&result.pv); // a tactical proof line
            }
            line.truncate(LINE_PLIES);
            let (pv, pv_cells) = line_json(pos, &line);
            TopMove {
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
                pv,
                pv_cells,
            }
        })
        .collect();
    let (pv, pv_cells) = line_json(pos, &result.pv);
    let searched = pos.side_to_move();
    let value = if searched == engine {
        result.root_value
    } else {
        -result.root_value
    };
    AnalysisJson {
        ply,
        side: side_name(searched),
        played: None,
        best_move: result.best_move.map(|m| pos.format_move(m)),
        simulations: result.simulations,
        visits: result.root_visits,
        value: value.clamp(-1.0, 1.0),
        heatmap: heat,
        heatmap_from: from,
        columns,
        top_moves,
        pv,
        pv_cells,
    }
}

/// A search of one position that runs in steps (the continuous analysis), whatever the game.
pub(crate) trait Analyser: Send {
    /// Runs `simulations` more simulations (blocking) and returns the analysis so far (its
    /// `simulations` counts every step) and whether the position's result is proven (more
    /// simulations would change nothing).
    fn step(&mut self, simulations: u32) -> Result<(AnalysisJson, bool), ApiError>;
}

/// The continuous analysis of one position of a [`Match`]: one tree, grown step by step.
pub(crate) struct LiveSearch<G: WebGame> {
    search: Search<G>,
    evaluator: Arc<dyn Evaluator<G>>,
    ply: usize,
    engine: Side,
    simulations: u32,
}

impl<G: WebGame> Analyser for LiveSearch<G> {
    fn step(&mut self, simulations: u32) -> Result<(AnalysisJson, bool), ApiError> {
        self.search
            .set_budget(SearchBudget::simulations(simulations.max(1)))
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        let result = self
            .search
            .run(&*self.evaluator)
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        self.simulations += result.simulations;
        let pos = self.search.root_position();
        let mut analysis = analysis_json(pos, self.ply, self.engine, &result, &self.search);
        analysis.simulations = self.simulations;
        Ok((analysis, result.proven.is_some()))
    }
}

/// A game between a human and the engine.
#[derive(Clone)]
pub(crate) struct Match<G: WebGame> {
    pub history: History<G>,
    pub human: Side,
    pub evaluator: Arc<dyn Evaluator<G>>,
    /// The latest search of each position of the game (`history.len() + 1` entries).
    analyses: Vec<Option<AnalysisJson>>,
    /// The ply of the latest search (cleared by undo).
    last_search: Option<usize>,
}

impl<G: WebGame> Match<G> {
    pub fn new(start: G, human: Side, evaluator: Arc<dyn Evaluator<G>>) -> Self {
        Match {
            history: History::new(start),
            human,
            evaluator,
            analyses: vec![None],
            last_search: None,
        }
    }

    fn engine(&self) -> Side {
        self.human.opponent()
    }

    /// Plays opening moves (given in notation) from the start, for a game set up from moves.
    ///
    /// # Errors
    /// 400 naming the first move that does not parse or is illegal (also after the end).
    pub fn play_opening(&mut self, moves: &[String]) -> Result<(), ApiError> {
        for (i, text) in moves.iter().enumerate() {
            let pos = self.history.current();
            let mv = pos
                .parse_move(text)
                .map_err(|e| ApiError::BadRequest(format!("moves[{i}]: {e}")))?;
            self.history
                .play(mv)
                .map_err(|e| ApiError::BadRequest(format!("moves[{i}]: {e}")))?;
            self.analyses.push(None);
        }
        Ok(())
    }

    /// The game as it was after `ply` moves (the current one for `None`).
    ///
    /// # Errors
    /// 400 when `ply` is beyond the last move.
    fn at(&self, ply: Option<usize>) -> Result<std::borrow::Cow<'_, History<G>>, ApiError> {
        let len = self.history.len();
        match ply {
            None => Ok(std::borrow::Cow::Borrowed(&self.history)),
            Some(p) if p == len => Ok(std::borrow::Cow::Borrowed(&self.history)),
            Some(p) if p > len => Err(ApiError::BadRequest(format!(
                "ply {p} is beyond the end of the game ({len} moves)"
            ))),
            Some(p) => {
                let mut h = self.history.clone();
                while h.len() > p {
                    h.undo();
                }
                Ok(std::borrow::Cow::Owned(h))
            }
        }
    }

    fn outcome_of(&self, h: &History<G>) -> Option<OutcomeJson> {
        let o = h.outcome()?;
        let pos = h.current();
        let winner = o.winner(pos.side_to_move());
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
        let reason = pos.end_reason_text(h.entries());
        let text = match &reason {
            Some(r) => format!("{text} ({r})"),
            None => text,
        };
        let cells = pos
            .decisive_cells(o, h.moves().last().copied(), h.entries())
            .into_iter()
            .map(cell_json)
            .collect();
        Some(OutcomeJson {
            result,
            winner: winner.map(side_name),
            text,
            reason,
            cells,
        })
    }

    /// Plays the human's move given in notation, at the end of the game or, with `ply`, in
    /// the position after `ply` moves: the moves after it are then dropped (the game goes on
    /// from the new move; their analyses go too).
    pub fn human_move(&mut self, text: &str, ply: Option<usize>) -> Result<(), ApiError> {
        let at = self.at(ply)?;
        if at.outcome().is_some() {
            return Err(ApiError::BadRequest("the game is over".into()));
        }
        let pos = at.current();
        if pos.side_to_move() != self.human {
            return Err(ApiError::BadRequest(match ply {
                Some(p) if p < self.history.len() => {
                    format!("it is not your turn at ply {p}: the engine is to move there")
                }
                _ => "it is not your turn: the engine is to move".into(),
            }));
        }
        let mv = pos
            .parse_move(text)
            .map_err(|e| ApiError::BadRequest(e.to_string()))?;
        let keep = at.len();
        let mut game = at.into_owned();
        game.play(mv)
            .map_err(|e| ApiError::BadRequest(e.to_string()))?;
        self.truncate(keep);
        self.history = game;
        self.analyses.push(None);
        Ok(())
    }

    /// Drops the moves after the first `ply` (and their analyses).
    fn truncate(&mut self, ply: usize) {
        while self.history.len() > ply && self.history.undo().is_some() {}
        self.analyses.truncate(ply + 1);
        if self.last_search.is_some_and(|p| p > ply) {
            self.last_search = None;
        }
    }

    /// Checks that a search may start in the position after `ply` moves (the end for
    /// `None`): the game not over there; with `play`, at the end with the engine to move.
    pub fn check_search(&self, play: bool, ply: Option<usize>) -> Result<(), ApiError> {
        let at = self.at(ply)?;
        if at.outcome().is_some() {
            return Err(ApiError::BadRequest("the game is over".into()));
        }
        if play && self.history.current().side_to_move() != self.engine() {
            return Err(ApiError::BadRequest(
                "it is your turn, not the engine's".into(),
            ));
        }
        Ok(())
    }

    /// Searches the position after `ply` moves (the current one for `None`; blocking) as
    /// `config` says, for `budget`, and, with `play`, plays the engine's move at the end of
    /// the game.
    pub fn think(
        &mut self,
        config: &SearchConfig,
        budget: SearchBudget,
        play: bool,
        ply: Option<usize>,
    ) -> Result<(), ApiError> {
        self.check_search(play, ply)?;
        let at = self.at(ply)?;
        let mut search = Search::from_history(&at, config.clone(), budget)
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        let result = search
            .run(&*self.evaluator)
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        let mut analysis = analysis_json(at.current(), at.len(), self.engine(), &result, &search);
        drop(at);
        if play {
            let mv = result
                .best_move
                .ok_or_else(|| ApiError::Internal("the search returned no move".into()))?;
            analysis.played = Some(self.history.current().format_move(mv));
            self.history
                .play(mv)
                .map_err(|e| ApiError::Internal(format!("engine move refused: {e}")))?;
            self.analyses.push(None);
        }
        self.store(analysis);
        Ok(())
    }

    /// A continuous analysis of the position after `ply` moves (the end for `None`), searched
    /// as `config` says (each step sets its own simulations).
    pub fn analyser(
        &self,
        config: &SearchConfig,
        ply: Option<usize>,
    ) -> Result<LiveSearch<G>, ApiError> {
        self.check_search(false, ply)?;
        let at = self.at(ply)?;
        let search = Search::from_history(&at, config.clone(), SearchBudget::simulations(1))
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        Ok(LiveSearch {
            search,
            evaluator: Arc::clone(&self.evaluator),
            ply: at.len(),
            engine: self.engine(),
            simulations: 0,
        })
    }

    /// Keeps a search as the latest of its position (ignored when the position is gone).
    pub fn store(&mut self, analysis: AnalysisJson) {
        let ply = analysis.ply;
        if let Some(slot) = self.analyses.get_mut(ply) {
            *slot = Some(analysis);
            self.last_search = Some(ply);
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
        let mut h = self.history.clone();
        h.undo();
        while h.current().side_to_move() != self.human && h.undo().is_some() {}
        self.truncate(h.len());
        self.last_search = None;
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

    /// The state as seen in the position after `ply` moves (`None`: the current position,
    /// with the latest search when it was of this position or the one before).
    pub fn state(
        &self,
        session: &str,
        engine: &str,
        simulations: u32,
        ply: Option<usize>,
    ) -> Result<StateJson, ApiError> {
        let at = self.at(ply)?;
        let pos = at.current();
        let (rows, cols) = pos.dims();
        let board = (0..rows)
            .map(|r| (0..cols).map(|c| pos.cell((r, c))).collect())
            .collect();
        let cells = (0..rows)
            .map(|r| (0..cols).map(|c| pos.cell_name((r, c))).collect())
            .collect();
        let outcome = self.outcome_of(&at);
        let legal_moves = if outcome.is_some() {
            Vec::new()
        } else {
            pos.legal_moves_vec()
                .into_iter()
                .map(|m| pos.format_move(m))
                .collect()
        };
        let forbidden = if outcome.is_none() && pos.side_to_move() == Side::First {
            pos.foul_points()
                .into_iter()
                .map(|(cell, mv, kind)| ForbiddenJson {
                    mv,
                    cell: cell_json(cell),
                    kind,
                })
                .collect()
        } else {
            Vec::new()
        };
        let moves = self.notation_moves();
        let last = at.moves().last().copied();
        let stm = pos.side_to_move();
        let analysis = match ply {
            Some(p) => self.analyses.get(p).cloned().flatten(),
            None => self
                .last_search
                .filter(|&p| p + 1 >= at.len())
                .and_then(|p| self.analyses.get(p).cloned().flatten()),
        };
        Ok(StateJson {
            session: session.to_string(),
            ply: at.len(),
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
            last_move: at.len().checked_sub(1).map(|i| moves[i].clone()),
            last_move_cells: last
                .map(|m| pos.last_move_cells(m).into_iter().map(cell_json).collect())
                .unwrap_or_default(),
            moves,
            simulations,
            outcome,
            analysis,
            values: self
                .analyses
                .iter()
                .map(|a| a.as_ref().map(|a| a.value))
                .collect(),
            forbidden,
            live: None,
        })
    }

    /// The game as PGN (`alphazero_formats::pgn`, the one PGN writer): the players (`human`,
    /// the engine), the day of the download (UTC), the result, why it ended, the rule and
    /// start tags, every move.
    pub fn record(&self, engine: &str, simulations: u32) -> String {
        let mut rec = Record::new(self.history.clone());
        let engine_desc = format!("engine: {engine}, {simulations} simulations");
        for side in [Side::First, Side::Second] {
            rec.players[side.index()] = if side == self.human {
                "human".to_string()
            } else {
                engine_desc.clone()
            };
        }
        let outcome = self.outcome_of(&self.history);
        rec.result = outcome
            .as_ref()
            .and_then(|o| RecordResult::from_pgn(o.result))
            .unwrap_or(RecordResult::Unknown);
        rec.set_tag("Event", "alphazero serve");
        rec.set_tag("Date", alphazero_formats::pgn_date_today());
        if let Some(o) = &outcome {
            rec.set_tag("Termination", o.text.clone());
        }
        alphazero_formats::pgn::write(&rec, MoveNotation::Iccs)
    }
}

/// A match of any game: [`Match`] of the game a session plays, behind one type (the
/// registry's `with_game!` picks the game once, when the session starts).
pub(crate) trait AnyMatch: Send {
    /// See [`Match::play_opening`].
    fn play_opening(&mut self, moves: &[String]) -> Result<(), ApiError>;
    /// See [`Match::human_move`].
    fn human_move(&mut self, text: &str, ply: Option<usize>) -> Result<(), ApiError>;
    /// See [`Match::check_search`].
    fn check_search(&self, play: bool, ply: Option<usize>) -> Result<(), ApiError>;
    /// See [`Match::think`].
    fn think(
        &mut self,
        config: &SearchConfig,
        budget: SearchBudget,
        play: bool,
        ply: Option<usize>,
    ) -> Result<(), ApiError>;
    /// A continuous analysis of the position after `ply` moves (the end for `None`).
    fn analyser(
        &self,
        config: &SearchConfig,
        ply: Option<usize>,
    ) -> Result<Box<dyn Analyser>, ApiError>;
    /// See [`Match::store`].
    fn store(&mut self, analysis: AnalysisJson);
    /// See [`Match::undo`].
    fn undo(&mut self) -> Result<(), ApiError>;
    /// The moves played.
    fn len(&self) -> usize;
    /// See [`Match::state`].
    fn state(
        &self,
        session: &str,
        engine: &str,
        simulations: u32,
        ply: Option<usize>,
    ) -> Result<StateJson, ApiError>;
    /// See [`Match::record`].
    fn record(&self, engine: &str, simulations: u32) -> String;
    /// The game's name ([`Game::NAME`]).
    fn name(&self) -> &'static str;
    /// How this game is searched: its play search from the registry
    /// ([`alphazero_registry::Registered::play_search`], as every program plays the game).
    fn search(&self) -> SearchConfig;
    /// A copy of the match (a search runs on a copy).
    fn clone_box(&self) -> Box<dyn AnyMatch>;
}

impl Clone for Box<dyn AnyMatch> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

impl<G: WebGame> AnyMatch for Match<G> {
    fn play_opening(&mut self, moves: &[String]) -> Result<(), ApiError> {
        Match::play_opening(self, moves)
    }

    fn human_move(&mut self, text: &str, ply: Option<usize>) -> Result<(), ApiError> {
        Match::human_move(self, text, ply)
    }

    fn check_search(&self, play: bool, ply: Option<usize>) -> Result<(), ApiError> {
        Match::check_search(self, play, ply)
    }

    fn think(
        &mut self,
        config: &SearchConfig,
        budget: SearchBudget,
        play: bool,
        ply: Option<usize>,
    ) -> Result<(), ApiError> {
        Match::think(self, config, budget, play, ply)
    }

    fn analyser(
        &self,
        config: &SearchConfig,
        ply: Option<usize>,
    ) -> Result<Box<dyn Analyser>, ApiError> {
        Ok(Box::new(Match::analyser(self, config, ply)?))
    }

    fn store(&mut self, analysis: AnalysisJson) {
        Match::store(self, analysis)
    }

    fn undo(&mut self) -> Result<(), ApiError> {
        Match::undo(self)
    }

    fn len(&self) -> usize {
        self.history.len()
    }

    fn state(
        &self,
        session: &str,
        engine: &str,
        simulations: u32,
        ply: Option<usize>,
    ) -> Result<StateJson, ApiError> {
        Match::state(self, session, engine, simulations, ply)
    }

    fn record(&self, engine: &str, simulations: u32) -> String {
        Match::record(self, engine, simulations)
    }

    fn name(&self) -> &'static str {
        G::NAME
    }

    fn search(&self) -> SearchConfig {
        G::play_search()
    }

    fn clone_box(&self) -> Box<dyn AnyMatch> {
        Box::new(self.clone())
    }
}
