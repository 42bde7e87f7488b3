//! `alphazero.Game`: a game in progress of any game of the registry, behind one object-safe
//! trait ([`DynGame`]) implemented once for the [`History`] of every registered game.

use std::any::Any;

use alphazero_game::{count_repetitions, Game, History, Outcome, Side};
use alphazero_registry::{with_game, BoardView, GameSpec, PositionText};
use numpy::ndarray::Array3;
use numpy::{IntoPyArray, PyArray3};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::value_error;

/// A game in progress with its history, whatever the game: what `alphazero.Game` holds.
/// Moves are text in the game's notation; errors are the engine's messages.
pub(crate) trait DynGame: Send + Sync {
    /// The game and rules.
    fn spec(&self) -> GameSpec;
    /// The current position as the terminal draws it.
    fn board(&self) -> String;
    /// The side to move.
    fn side_to_move(&self) -> Side;
    /// Plies since the game's start position.
    fn ply(&self) -> u32;
    /// Every legal move, in the game's notation.
    fn legal_moves(&self) -> Vec<String>;
    /// Parses and plays a move; the engine's message when it does not parse or is illegal.
    fn play(&mut self, text: &str) -> PyResult<()>;
    /// Takes back the last move; the move, or `None` at the start.
    fn undo(&mut self) -> Option<String>;
    /// The result, repetition rules included, from the side to move; `None` while it goes on.
    fn outcome(&self) -> Option<Outcome>;
    /// The current position's FEN where the game has one.
    fn fen(&self) -> Option<String>;
    /// The moves played from the start position, in the game's notation.
    fn moves(&self) -> Vec<String>;
    /// The size of the action space.
    fn num_actions(&self) -> usize;
    /// The action index of a legal move.
    fn move_to_action(&self, text: &str) -> PyResult<usize>;
    /// The move of an action index (`None` for an index that names no move); the index must
    /// be below [`DynGame::num_actions`].
    fn action_to_move(&self, action: usize) -> Option<String>;
    /// The number of board symmetries (identity included).
    fn num_symmetries(&self) -> usize;
    /// The game with every position moved by symmetry `sym` (`< num_symmetries`).
    fn transform(&self, sym: usize) -> PyResult<Box<dyn DynGame>>;
    /// The image of `action` (`< num_actions`) under symmetry `sym` (`< num_symmetries`).
    fn transform_action(&self, sym: usize, action: usize) -> usize;
    /// `[C, H, W]` of the input planes.
    fn planes_shape(&self) -> [usize; 3];
    /// Writes the input planes of the current position (`C·H·W` values).
    fn encode(&self, out: &mut [f32]);
    /// A copy.
    fn clone_box(&self) -> Box<dyn DynGame>;
    /// The `History<G>` itself, for code generic over the game (the search).
    fn as_any(&self) -> &dyn Any;
}

impl<G: BoardView> DynGame for History<G> {
    fn spec(&self) -> GameSpec {
        GameSpec::of::<G>(self.current().config())
    }

    fn board(&self) -> String {
        self.current().to_string()
    }

    fn side_to_move(&self) -> Side {
        self.current().side_to_move()
    }

    fn ply(&self) -> u32 {
        self.current().ply()
    }

    fn legal_moves(&self) -> Vec<String> {
        let pos = self.current();
        pos.legal_moves_vec()
            .into_iter()
            .map(|m| pos.format_move(m))
            .collect()
    }

    fn play(&mut self, text: &str) -> PyResult<()> {
        let mv = self
            .current()
            .parse_move(text)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        History::play(self, mv).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    fn undo(&mut self) -> Option<String> {
        let mv = History::undo(self)?;
        Some(self.current().format_move(mv))
    }

    fn outcome(&self) -> Option<Outcome> {
        History::outcome(self)
    }

    fn fen(&self) -> Option<String> {
        self.current().fen()
    }

    fn moves(&self) -> Vec<String> {
        let mut pos = self.start().clone();
        self.moves()
            .iter()
            .map(|&mv| {
                let text = pos.format_move(mv);
                pos.play_unchecked(mv);
                text
            })
            .collect()
    }

    fn num_actions(&self) -> usize {
        self.current().num_actions()
    }

    fn move_to_action(&self, text: &str) -> PyResult<usize> {
        let pos = self.current();
        let mv = pos
            .parse_move(text)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        // Only legal moves: an action index exists for every move a piece can make, not for
        // every pair of points.
        if !pos.is_legal(mv) {
            return Err(PyValueError::new_err(format!(
                "{} is not a legal move in this position",
                pos.format_move(mv)
            )));
        }
        Ok(pos.move_to_action(mv))
    }

    fn action_to_move(&self, action: usize) -> Option<String> {
        let pos = self.current();
        pos.action_to_move(action).map(|m| pos.format_move(m))
    }

    fn num_symmetries(&self) -> usize {
        self.current().num_symmetries()
    }

    fn transform(&self, sym: usize) -> PyResult<Box<dyn DynGame>> {
        // Each move is moved with the position it was played from (the receiver of
        // `transform_action`), so the transformed game has the same history.
        let mut before = self.start().clone();
        let mut out = History::new(before.transform(sym));
        for &mv in self.moves() {
            let action = before.transform_action(sym, before.move_to_action(mv));
            let image = out.current().action_to_move(action).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "move {mv} has no image under symmetry {sym} (action {action})"
                ))
            })?;
            out.play_unchecked(image);
            before.play_unchecked(mv);
        }
        Ok(Box::new(out))
    }

    fn transform_action(&self, sym: usize, action: usize) -> usize {
        self.current().transform_action(sym, action)
    }

    fn planes_shape(&self) -> [usize; 3] {
        let pos = self.current();
        let (h, w) = pos.board_shape();
        [G::num_planes(pos.config()), h, w]
    }

    fn encode(&self, out: &mut [f32]) {
        let pos = self.current();
        let reps = count_repetitions(self.entries(), pos.zobrist());
        pos.encode(reps, out);
    }

    fn clone_box(&self) -> Box<dyn DynGame> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Parses a game spec (`ValueError` with the registry's message).
pub(crate) fn parse_spec(spec: &str) -> PyResult<GameSpec> {
    spec.parse::<GameSpec>().map_err(|e| value_error(&e))
}

/// The game of `spec` from `position` (see `Game.__init__`).
fn new_game(spec: &GameSpec, position: Option<&str>) -> PyResult<Box<dyn DynGame>> {
    with_game!(spec, G, cfg => {
        let history = match position.map(str::trim).filter(|t| !t.is_empty()) {
            None => History::new(G::new(cfg)),
            Some(text) => G::parse_position(cfg, text).map_err(|e| value_error(&e))?,
        };
        Ok(Box::new(history) as Box<dyn DynGame>)
    })
}

/// The side as the package names it: 0 for the first player (Black in Gomoku, Red in Xiangqi,
/// the first player in Connect Four), 1 for the second.
pub(crate) fn side_index(side: Side) -> u8 {
    side.index() as u8
}

/// A game in progress: the position and the moves that led to it.
///
/// `Game(spec, position=None)`: `spec` is a game of the registry — `"gomoku:15:renju"`
/// (Gomoku on a 15×15 board under the renju rule), `"gomoku:15"` (freestyle), `"gomoku"`,
/// `"xiangqi"`, `"connect4"`; `position` is text as the command line's `--position` takes
/// it: a FEN where the game has one (Xiangqi, optionally followed by `moves …`), otherwise a
/// move list from the start in the game's notation (`"h8 h9 i8"`, Connect Four `"4 4 3"`).
/// Raises `ValueError` for a spec or position that does not read.
#[pyclass(module = "alphazero", name = "Game")]
pub struct PyGame {
    pub(crate) inner: Box<dyn DynGame>,
}

impl PyGame {
    /// The index argument `name` (`value`) when `0 ≤ value < count`, else `ValueError`
    /// naming it and saying how many the game has (`what`: "symmetries", "actions";
    /// `count` ≥ 1).
    fn index_arg(
        &self,
        value: &Bound<'_, PyAny>,
        name: &str,
        what: &str,
        count: usize,
    ) -> PyResult<usize> {
        let note = format!(" ({} has {count} {what})", self.inner.spec().words());
        let n = crate::int_arg(value, name, 0u64, count as u64 - 1, &note)?;
        // Below `count`, a usize.
        Ok(n as usize)
    }

    fn symmetry_arg(&self, sym: &Bound<'_, PyAny>) -> PyResult<usize> {
        self.index_arg(sym, "sym", "symmetries", self.inner.num_symmetries())
    }

    fn action_arg(&self, action: &Bound<'_, PyAny>) -> PyResult<usize> {
        self.index_arg(action, "action", "actions", self.inner.num_actions())
    }
}

#[pymethods]
impl PyGame {
    #[new]
    #[pyo3(signature = (spec, position = None))]
    fn py_new(spec: &str, position: Option<&str>) -> PyResult<Self> {
        Ok(PyGame {
            inner: new_game(&parse_spec(spec)?, position)?,
        })
    }

    /// The game and rules in the spec's long form (`"gomoku:15:renju"`, `"xiangqi"`).
    #[getter]
    fn spec(&self) -> String {
        self.inner.spec().to_string()
    }

    /// The side to move: 0 for the first player (Black in Gomoku, Red in Xiangqi), 1 for the
    /// second.
    #[getter]
    fn side_to_move(&self) -> u8 {
        side_index(self.inner.side_to_move())
    }

    /// Plies played since the start position of the game's rules (a Xiangqi FEN may start
    /// later).
    #[getter]
    fn ply(&self) -> u32 {
        self.inner.ply()
    }

    /// Every legal move here, in the game's notation (Gomoku `h8`, Xiangqi ICCS `h2e2`,
    /// Connect Four the column `1`–`7`); empty when the game is over.
    fn legal_moves(&self) -> Vec<String> {
        self.inner.legal_moves()
    }

    /// Plays `move` (text in the game's notation). Raises `ValueError` with the engine's
    /// message when it does not parse or is illegal (the game is then unchanged).
    fn play(&mut self, r#move: &str) -> PyResult<()> {
        self.inner.play(r#move)
    }

    /// Takes back the last move and returns it; `None` at the start.
    fn undo(&mut self) -> Option<String> {
        self.inner.undo()
    }

    /// The result when the game is over, repetition rules included, **from the side to move**:
    /// `"win"`, `"loss"` or `"draw"` (after a winning move the side to move has lost:
    /// `"loss"`); `None` while the game goes on.
    #[getter]
    fn outcome(&self) -> Option<&'static str> {
        self.inner.outcome().map(|o| match o {
            Outcome::Win => "win",
            Outcome::Loss => "loss",
            Outcome::Draw => "draw",
        })
    }

    /// The winner when the game is over: 0 (first player) or 1 (second); `None` for a draw
    /// or a game that goes on.
    #[getter]
    fn winner(&self) -> Option<u8> {
        self.inner
            .outcome()
            .and_then(|o| o.winner(self.inner.side_to_move()))
            .map(side_index)
    }

    /// Whether the game is over.
    #[getter]
    fn is_over(&self) -> bool {
        self.inner.outcome().is_some()
    }

    /// The current position's FEN where the game has one (Xiangqi); `None` for Gomoku and
    /// Connect Four, whose positions are their move lists (`moves`).
    #[getter]
    fn fen(&self) -> Option<String> {
        self.inner.fen()
    }

    /// The moves played since this game's start position, in the game's notation.
    #[getter]
    fn moves(&self) -> Vec<String> {
        self.inner.moves()
    }

    /// The size `A` of the action space: the length of the network's policy and of
    /// `SearchResult.policy` (Gomoku N², Xiangqi 2086, Connect Four 7).
    #[getter]
    fn num_actions(&self) -> usize {
        self.inner.num_actions()
    }

    /// The action index (`0 ≤ index < num_actions`) of a legal `move` here (Xiangqi indexes
    /// moves as seen from the side to move). Raises `ValueError` for a move that does not
    /// parse or is not legal.
    fn move_to_action(&self, r#move: &str) -> PyResult<usize> {
        self.inner.move_to_action(r#move)
    }

    /// The move of action index `action` here, in the game's notation (legal or not); `None`
    /// for an index of the action space that names no move. Raises `ValueError` for an
    /// index outside `0 ≤ action < num_actions`.
    fn action_to_move(&self, action: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
        let action = self.action_arg(action)?;
        Ok(self.inner.action_to_move(action))
    }

    /// The number of board symmetries, the identity (0) included: 8 for Gomoku, 2 (the
    /// left-right mirror) for Xiangqi and Connect Four.
    #[getter]
    fn num_symmetries(&self) -> usize {
        self.inner.num_symmetries()
    }

    /// This game with the board moved by symmetry `sym` (`0 ≤ sym < num_symmetries`), every
    /// earlier position and move included. Its planes are this game's planes moved alike and
    /// an action `a` here is `transform_action(sym, a)` there.
    fn transform(&self, sym: &Bound<'_, PyAny>) -> PyResult<PyGame> {
        let sym = self.symmetry_arg(sym)?;
        Ok(PyGame {
            inner: self.inner.transform(sym)?,
        })
    }

    /// The image of action index `action` of this position under symmetry `sym`: the index
    /// of the same move in `transform(sym)`. Raises `ValueError` for an index or symmetry out
    /// of range.
    fn transform_action(
        &self,
        sym: &Bound<'_, PyAny>,
        action: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let sym = self.symmetry_arg(sym)?;
        let action = self.action_arg(action)?;
        Ok(self.inner.transform_action(sym, action))
    }

    /// `(C, H, W)`: the shape of `planes()`.
    #[getter]
    fn planes_shape(&self) -> (usize, usize, usize) {
        let [c, h, w] = self.inner.planes_shape();
        (c, h, w)
    }

    /// The network's input planes of the current position, a float32 array `[C, H, W]`,
    /// always from the side to move (the encoding of the trainer and of the search; Xiangqi's
    /// repetition plane counts the game's earlier positions). `docs/python.md` gives each
    /// game's planes.
    fn planes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray3<f32>>> {
        let [c, h, w] = self.inner.planes_shape();
        let mut out = vec![0f32; c * h * w];
        self.inner.encode(&mut out);
        let array = Array3::from_shape_vec((c, h, w), out)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(array.into_pyarray(py))
    }

    /// A copy of the game (`copy.copy` and `copy.deepcopy` make the same).
    fn copy(&self) -> PyGame {
        PyGame {
            inner: self.inner.clone_box(),
        }
    }

    fn __copy__(&self) -> PyGame {
        self.copy()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyGame {
        self.copy()
    }

    /// The board as the terminal draws it.
    fn __str__(&self) -> String {
        self.inner.board()
    }

    fn __repr__(&self) -> String {
        let moves = self.inner.moves();
        match self.inner.fen() {
            Some(fen) => format!("Game({:?}, {fen:?})", self.spec()),
            None => format!("Game({:?}, {:?})", self.spec(), moves.join(" ")),
        }
    }
}
