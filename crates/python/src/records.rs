//! `alphazero.load_records`: self-play records (`.azr`) as the arrays the trainer learns
//! from. The files are read by the record reader (`alphazero_engine::files`), the games
//! replayed into a [`ReplayBuffer`] (the trainer's replay, which counts repetitions and
//! gives z from each position's side to move) and the positions encoded by the game's
//! encoder ([`alphazero_registry::Encode`]), as the trainer does before each step, without
//! symmetries.

use std::path::{Path, PathBuf};

use alphazero_engine::files::read_record_file;
use alphazero_engine::position::replay;
use alphazero_game::Game;
use alphazero_registry::{with_game, BoardView, GameSpec};
use alphazero_train::record::{GameResult, RecordFile};
use alphazero_train::{ReplayBuffer, RunDir};
use anyhow::{bail, Context};
use numpy::ndarray::{Array1, Array2, Array4};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArray4};
use pyo3::prelude::*;

use crate::app_error;
use crate::game::side_index;

/// One recorded game of `Records.games`.
#[pyclass(module = "alphazero", name = "RecordedGame", frozen, get_all)]
pub struct PyRecordedGame {
    /// The game's id in its run.
    id: u64,
    /// The start position as the record gives it (`""`: the game's start position).
    start: String,
    /// Every move from the start, in the game's notation: a restarted game's prefix (moves of
    /// the earlier game it restarted from), then its own plies (fast playout-cap moves
    /// included).
    moves: Vec<String>,
    /// How many of `moves` are the prefix of a restarted game (0 for most games).
    prefix: usize,
    /// The result from the first player's view: +1 the first player won, 0 a draw, -1 the
    /// second player won.
    result: i8,
    /// The game ended by resignation.
    resigned: bool,
    /// The game was cut off at the ply limit (its result is 0 and no game result).
    truncated: bool,
}

#[pymethods]
impl PyRecordedGame {
    fn __repr__(&self) -> String {
        format!(
            "RecordedGame(id={}, result={:+}, {} moves)",
            self.id,
            self.result,
            self.moves.len()
        )
    }
}

/// Self-play training positions: what `load_records` returns. Row `i` of every array is
/// one position (a ply searched with a full search; fast playout-cap moves are not trained on
/// and not here), in the order of the files and their games.
#[pyclass(module = "alphazero", name = "Records", frozen, get_all)]
pub struct PyRecords {
    /// The game spec of the records (`"connect4"`, `"gomoku:15:freestyle"`).
    spec: String,
    /// Input planes, float32 `[N, C, H, W]`, from each position's side to move (the
    /// trainer's encoding; `Game.planes()` of the position).
    planes: Py<PyArray4<f32>>,
    /// The search policy π, float32 `[N, A]` over the whole action space (each row sums to 1
    /// up to the records' 16-bit quantisation).
    pi: Py<PyArray2<f32>>,
    /// The game result z from each position's side to move, float32 `[N]`: +1 won, 0 drawn
    /// (or cut off at the ply limit), -1 lost.
    z: Py<PyArray1<f32>>,
    /// The search's root value from the side to move, float32 `[N]`.
    root_value: Py<PyArray1<f32>>,
    /// The action index of the move played from each position, int64 `[N]`.
    action: Py<PyArray1<i64>>,
    /// The move played from each position, in the game's notation.
    moves: Vec<String>,
    /// The side to move of each position (0 first player, 1 second), int8 `[N]`.
    side_to_move: Py<PyArray1<i8>>,
    /// The ply of each position in its game (0 = the start), int64 `[N]`.
    ply: Py<PyArray1<i64>>,
    /// The id of each position's game (`RecordedGame.id`), int64 `[N]`.
    game_id: Py<PyArray1<i64>>,
    /// The games of the files, in order.
    games: Vec<Py<PyRecordedGame>>,
}

#[pymethods]
impl PyRecords {
    /// The number of positions `N`.
    fn __len__(&self) -> usize {
        self.moves.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "Records({:?}: {} positions of {} games)",
            self.spec,
            self.moves.len(),
            self.games.len()
        )
    }
}

/// The arrays and games of record files, made without the GIL.
struct Loaded {
    spec: GameSpec,
    shape: [usize; 4],
    num_actions: usize,
    planes: Vec<f32>,
    pi: Vec<f32>,
    z: Vec<f32>,
    root_value: Vec<f32>,
    action: Vec<i64>,
    moves: Vec<String>,
    side: Vec<i8>,
    ply: Vec<i64>,
    game_id: Vec<i64>,
    games: Vec<PyRecordedGame>,
}

fn load_game<G: BoardView>(
    cfg: &G::Config,
    spec: GameSpec,
    files: &[RecordFile],
) -> anyhow::Result<Loaded> {
    let plies: usize = files
        .iter()
        .flat_map(|f| &f.games)
        .map(|g| g.plies.len())
        .sum();
    let buffer = ReplayBuffer::<G>::rebuild_from(files, plies.max(1), &G::new(cfg))
        .context("replaying the records")?;
    let pos = G::new(cfg);
    let (h, w) = pos.board_shape();
    let (c, a) = (G::num_planes(cfg), pos.num_actions());
    let n = buffer.len();
    let mut out = Loaded {
        spec,
        shape: [n, c, h, w],
        num_actions: a,
        planes: vec![0f32; n * c * h * w],
        pi: vec![0f32; n * a],
        z: Vec::with_capacity(n),
        root_value: Vec::with_capacity(n),
        action: Vec::with_capacity(n),
        moves: Vec::with_capacity(n),
        side: Vec::with_capacity(n),
        ply: Vec::with_capacity(n),
        game_id: Vec::with_capacity(n),
        games: Vec::new(),
    };
    let per = c * h * w;
    for ((s, planes), pi) in buffer
        .iter()
        .zip(out.planes.chunks_exact_mut(per))
        .zip(out.pi.chunks_exact_mut(a))
    {
        s.position.encode(u32::from(s.repetitions), planes);
        for &(action, p) in &s.policy {
            pi[usize::from(action)] = p;
        }
        let index = s.move_index as usize;
        out.z.push(s.z);
        out.root_value.push(s.root_value);
        out.action.push(i64::from(s.line.actions[index]));
        out.moves.push(s.position.format_move(s.line.moves[index]));
        out.side.push(side_index(s.position.side_to_move()) as i8);
        out.ply.push(i64::from(s.ply));
        out.game_id.push(s.game_id as i64);
    }
    for file in files {
        for (i, rec) in file.games.iter().enumerate() {
            let id = file.header.first_game_id + i as u64;
            let history = replay::<G>(cfg, rec).with_context(|| format!("game {id}"))?;
            let mut p = history.start().clone();
            let moves = history
                .moves()
                .iter()
                .map(|&m| {
                    let text = p.format_move(m);
                    p.play_unchecked(m);
                    text
                })
                .collect();
            out.games.push(PyRecordedGame {
                id,
                start: rec.start.clone(),
                moves,
                prefix: rec.prefix.len(),
                result: match rec.result {
                    GameResult::FirstWon => 1,
                    GameResult::Draw => 0,
                    GameResult::SecondWon => -1,
                },
                resigned: rec.flags.resigned,
                truncated: rec.flags.truncated,
            });
        }
    }
    Ok(out)
}

fn load(path: &Path) -> anyhow::Result<Loaded> {
    let paths = if path.is_dir() {
        let files = RunDir::local_record_files(path)
            .with_context(|| format!("reading directory {}", path.display()))?;
        if files.is_empty() {
            bail!("no record files (*.azr) in {}", path.display());
        }
        files
    } else {
        vec![path.to_path_buf()]
    };
    let mut files = Vec::with_capacity(paths.len());
    let mut spec: Option<GameSpec> = None;
    for p in &paths {
        let file = read_record_file(p)?;
        let s = file
            .header
            .spec()
            .with_context(|| format!("{}: the records' game", p.display()))?;
        match spec {
            Some(first) if first != s => bail!(
                "{}: records of {}, but {} holds records of {}",
                p.display(),
                s.words(),
                paths[0].display(),
                first.words()
            ),
            _ => spec = Some(s),
        }
        let actions = with_game!(&s, G, cfg => G::new(cfg).num_actions());
        if file.header.num_actions as usize != actions {
            bail!(
                "{}: the header says {} actions but {} has {actions}",
                p.display(),
                file.header.num_actions,
                s.words()
            );
        }
        files.push(file);
    }
    let spec = spec.context("no record files")?;
    with_game!(&spec, G, cfg => load_game::<G>(cfg, spec, &files))
}

/// Reads self-play records: one `.azr` file, or a run folder (its `records/`) or any folder
/// of `.azr` files, read in name order (a run's order: oldest first). Every game is replayed
/// (repetitions counted, a restarted game's prefix played first) and each position searched
/// with a full search becomes a row of the returned `Records`: `planes` `[N, C, H, W]`, `pi`
/// `[N, A]`, `z` `[N]` — the trainer's inputs and targets, without symmetries — plus the
/// moves and the games. The GIL is released while reading. Raises `OSError` when a file
/// cannot be read, `ValueError` when it is no record file, holds another game than the
/// others, or a recorded move does not replay.
#[pyfunction]
pub fn load_records(py: Python<'_>, path: PathBuf) -> PyResult<PyRecords> {
    let loaded = py
        .detach(move || load(&path).with_context(|| format!("reading records {}", path.display())))
        .map_err(app_error)?;
    let err =
        |e: numpy::ndarray::ShapeError| pyo3::exceptions::PyValueError::new_err(e.to_string());
    let [n, c, h, w] = loaded.shape;
    let planes = Array4::from_shape_vec((n, c, h, w), loaded.planes).map_err(err)?;
    let pi = Array2::from_shape_vec((n, loaded.num_actions), loaded.pi).map_err(err)?;
    let games = loaded
        .games
        .into_iter()
        .map(|g| Py::new(py, g))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyRecords {
        spec: loaded.spec.to_string(),
        planes: planes.into_pyarray(py).unbind(),
        pi: pi.into_pyarray(py).unbind(),
        z: Array1::from_vec(loaded.z).into_pyarray(py).unbind(),
        root_value: Array1::from_vec(loaded.root_value)
            .into_pyarray(py)
            .unbind(),
        action: Array1::from_vec(loaded.action).into_pyarray(py).unbind(),
        moves: loaded.moves,
        side_to_move: Array1::from_vec(loaded.side).into_pyarray(py).unbind(),
        ply: Array1::from_vec(loaded.ply).into_pyarray(py).unbind(),
        game_id: Array1::from_vec(loaded.game_id).into_pyarray(py).unbind(),
        games,
    })
}
