//! `alphazero.Network`, `alphazero.Evaluator`, `alphazero.search` and `alphazero.SearchResult`:
//! a checkpoint (or a Mixnet evaluator file) loaded as the programs load it (`alphazero_engine::load_network`), searched with the game's play
//! preset (`alphazero_engine::play_search`, `alphazero_engine::search_position`), run
//! directly ([`FoldedNet`], the CPU inference of the search) or exported to ONNX.

use std::any::Any;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use alphazero_engine::{load_network, play_search, search_position_until};
use alphazero_game::{History, Outcome};
use alphazero_mcts::{Evaluator, UniformEvaluator};
use alphazero_nn::onnx::export_onnx;
use alphazero_nn::{load_any_checkpoint, Device, FoldedNet, ModelConfig};
use alphazero_registry::{with_game, BoardView, GameSpec};
use numpy::ndarray::{Array0, Array1, Array2};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::app_error;
use crate::game::{parse_spec, PyGame};

/// A loaded network: what it was trained for, the evaluator the search uses (an
/// `Arc<dyn Evaluator<G>>` of its game `G`, behind the evaluation cache every program uses),
/// and the folded network for direct inference.
#[pyclass(module = "alphazero", name = "Network", frozen)]
pub struct PyNetwork {
    path: PathBuf,
    spec: GameSpec,
    model: ModelConfig,
    step: u64,
    description: String,
    folded: Arc<FoldedNet>,
    /// `Arc<dyn Evaluator<G>>` for the game `G` of `spec`.
    evaluator: Arc<dyn Any + Send + Sync>,
}

/// The device named `name` for the search's evaluator (`cpu`, `cuda[:N]`, `wgpu[:N]`), as
/// `--device` takes it; `ValueError` for an unknown name, a backend this build was compiled
/// without (naming its feature) or a GPU the machine does not have.
fn device(name: &str) -> PyResult<Device> {
    alphazero_engine::device(name).map_err(|e| PyValueError::new_err(format!("{e:#}")))
}

impl PyNetwork {
    fn load(path: PathBuf, spec: Option<&str>, device_name: &str) -> PyResult<PyNetwork> {
        // The search's evaluator runs on `device`; the checkpoint is read and `predict`
        // runs on the CPU.
        let device = self::device(device_name)?;
        let cpu = Device::flex();
        // A training run's folder means its champion, as `--model` takes it.
        let path = alphazero_train::local::network_or_champion(&path)
            .map_err(|e| crate::value_error(&e))?;
        if alphazero_engine::is_mixnet_path(&path) {
            return Err(PyValueError::new_err(format!(
                "{} is a fast evaluator file (.azm), not a network: load it with \
                 alphazero.Evaluator",
                path.display()
            )));
        }
        let ck = load_any_checkpoint(&path, &cpu)
            .map_err(|e| app_error(anyhow::Error::new(e).context("loading network")))?;
        // The network's own game unless another board of the same shapes is asked for.
        let spec = match spec {
            Some(s) => parse_spec(s)?,
            None => ck.header.game,
        };
        if spec.name() != ck.header.game.name() {
            return Err(PyValueError::new_err(format!(
                "network {} was trained for {}, not {}",
                path.display(),
                ck.header.game.words(),
                spec.words()
            )));
        }
        // A size-independent network asked for another board is laid out for that board, as
        // the search's evaluator is (`load_network`): `predict` takes that board's planes.
        let own = ck.header.model.without_aux();
        let (model, folded) = with_game!(&spec, G, cfg => {
            let (net, model) = ck.model.for_positions_of::<G>(&own, cfg);
            let folded = FoldedNet::new(&net, &model);
            (model, folded)
        });
        let folded =
            folded.map_err(|e| app_error(anyhow::Error::new(e).context("loading network")))?;
        let (evaluator, description) = with_game!(&spec, G, cfg => {
            let (eval, desc) = load_network::<G>(&path, cfg, &device).map_err(app_error)?;
            (Arc::new(eval) as Arc<dyn Any + Send + Sync>, desc)
        });
        Ok(PyNetwork {
            path,
            spec,
            model,
            step: ck.header.step,
            description,
            folded: Arc::new(folded),
            evaluator,
        })
    }
}

#[pymethods]
impl PyNetwork {
    /// Loads a network checkpoint (`.azc`: a shipped `models/*.azc` or one a training run
    /// wrote; a training run's folder means its champion) for the game it was trained for, or for `game` (a spec of the same game whose
    /// positions have the network's shapes, e.g. a renju board for a freestyle network, or
    /// any board of its game for a size-independent network: `predict`, `export_onnx` and
    /// the search then take that board's shapes).
    /// `device` is where the search's evaluator runs, as `--device` takes it: `cpu`, or
    /// `cuda[:N]` / `wgpu[:N]` in a package built with that feature (`predict` runs on the
    /// CPU). Raises `OSError` when the file cannot be read, `ValueError` when it is no
    /// checkpoint or does not fit `game`, or for a device this build or machine lacks.
    #[new]
    #[pyo3(signature = (path, game = None, *, device = "cpu"))]
    fn py_new(path: PathBuf, game: Option<&str>, device: &str) -> PyResult<Self> {
        PyNetwork::load(path, game, device)
    }

    /// The shipped network for `spec` (`models/` of this repository, or `$ALPHAZERO_MODELS`;
    /// a Gomoku renju or standard board takes the freestyle network of its size, a board
    /// without a file of its own a size-independent network of another board, laid out for
    /// this one); `None` when there is none.
    #[staticmethod]
    #[pyo3(signature = (spec, *, device = "cpu"))]
    fn shipped(spec: &str, device: &str) -> PyResult<Option<PyNetwork>> {
        load_shipped(
            spec,
            |s| with_game!(s, G, cfg => alphazero_engine::shipped_model_path::<G>(cfg)),
            |p, s| PyNetwork::load(p, s, device),
        )
    }

    /// The game spec the network searches (`"gomoku:15:freestyle"`, `"xiangqi"`).
    #[getter]
    fn spec(&self) -> String {
        self.spec.to_string()
    }

    /// The checkpoint file.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// `(C, H, W)` of the input planes the network takes.
    #[getter]
    fn input_shape(&self) -> (usize, usize, usize) {
        let m = &self.model;
        (m.input_planes, m.board_height, m.board_width)
    }

    /// The size `A` of the policy output.
    #[getter]
    fn num_actions(&self) -> usize {
        self.model.num_actions
    }

    /// `(residual blocks, channels)`.
    #[getter]
    fn size(&self) -> (usize, usize) {
        (self.model.residual_blocks, self.model.channels)
    }

    /// The optimizer steps the network was trained for.
    #[getter]
    fn training_step(&self) -> u64 {
        self.step
    }

    /// Runs the network on encoded positions `planes`, a float32 array `[B, C, H, W]` (or
    /// one position `[C, H, W]`, e.g. `Game.planes()`), each from its side to move. Returns
    /// `(policy_logits, values)`: float32 `[B, A]` unnormalised logits over the whole action
    /// space and `[B]` values in [-1, 1] from each position's side to move (for one position
    /// both without the batch axis: `[A]` and a 0-d array). The CPU inference the search
    /// uses (batch norm folded); the GIL is released while it runs. Raises `TypeError` for
    /// planes that are not a float32 array (saying to cast them), `ValueError` for another
    /// shape or a value that is not finite (NaN, ±inf).
    fn predict<'py>(
        &self,
        py: Python<'py>,
        planes: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let planes = float32_planes(planes)?;
        let (c, h, w) = self.input_shape();
        let shape = planes.shape().to_vec();
        let single = shape.len() == 3;
        let fits = match shape.as_slice() {
            [c2, h2, w2] => (*c2, *h2, *w2) == (c, h, w),
            [_, c2, h2, w2] => (*c2, *h2, *w2) == (c, h, w),
            _ => false,
        };
        if !fits {
            return Err(PyValueError::new_err(format!(
                "planes of shape {shape:?} do not fit the network: it takes [B, {c}, {h}, {w}] \
                 or [{c}, {h}, {w}]"
            )));
        }
        let b = if single { 1 } else { shape[0] };
        let data: Vec<f32> = planes.as_array().iter().copied().collect();
        if let Some(i) = data.iter().position(|x| !x.is_finite()) {
            return Err(PyValueError::new_err(format!(
                "planes hold a value that is not finite ({} at flat index {i}): the network's \
                 input planes are 0/1 or small counts",
                data[i]
            )));
        }
        let a = self.model.num_actions;
        let folded = Arc::clone(&self.folded);
        let (logits, values) = py
            .detach(move || {
                let mut logits = vec![0f32; b * a];
                let mut values = vec![0f32; b];
                folded
                    .forward(&data, &mut logits, &mut values)
                    .map(|()| (logits, values))
            })
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        if single {
            let value = Array0::from_elem((), values[0]).into_pyarray(py).into_any();
            return Ok((Array1::from_vec(logits).into_pyarray(py).into_any(), value));
        }
        let values = Array1::from_vec(values).into_pyarray(py).into_any();
        let logits = Array2::from_shape_vec((b, a), logits)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok((logits.into_pyarray(py).into_any(), values))
    }

    /// Writes the network as an ONNX model to `path` (as `alphazero export MODEL --out
    /// F.onnx`): input `planes` `[batch, C, H, W]`, outputs `policy` `[batch, A]` (logits)
    /// and `value` `[batch]`, batch norm folded, the game and shapes in its metadata. Raises
    /// `OSError` when it cannot be written.
    fn export_onnx(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let source = self
            .path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let (model, spec) = (self.path.clone(), self.spec);
        py.detach(move || -> anyhow::Result<()> {
            let ck = load_any_checkpoint(&model, &Device::flex())?;
            let bytes = with_game!(&spec, G, cfg => {
                // The graph of the board the network was loaded for (`predict`'s shapes).
                let (net, resized) = ck.model.for_positions_of::<G>(&ck.header.model, cfg);
                let game = if resized == ck.header.model { ck.header.game } else { spec };
                let header = alphazero_nn::CheckpointHeader { model: resized, game, ..ck.header };
                export_onnx::<G>(&net, &header, cfg, &source)
            })?;
            alphazero_engine::files::write_atomic(&path, &bytes)
        })
        .map_err(app_error)
    }

    fn __repr__(&self) -> String {
        format!("Network({:?}, game={:?})", self.path, self.spec.to_string())
    }

    /// What the network is: its file, size, training step and game.
    fn __str__(&self) -> String {
        self.description.clone()
    }
}

/// The shipped file `find` picks for the game spec `spec` (`None`: there is none), loaded
/// for that spec by `load`.
fn load_shipped<T>(
    spec: &str,
    find: impl Fn(&GameSpec) -> Option<PathBuf>,
    load: impl Fn(PathBuf, Option<&str>) -> PyResult<T>,
) -> PyResult<Option<T>> {
    let spec = parse_spec(spec)?;
    find(&spec)
        .map(|p| load(p, Some(&spec.to_string())))
        .transpose()
}

/// An evaluator as the programs play with it: a Mixnet evaluator file (`.azm`, distilled by
/// `alphazero distill`) or a network checkpoint, for one game spec. What `play`, `analyze`,
/// `serve` and the engines take without `--model` is `Evaluator.shipped(spec)`.
#[pyclass(module = "alphazero", name = "Evaluator", frozen)]
pub struct PyEvaluator {
    path: PathBuf,
    spec: GameSpec,
    description: String,
    /// `Arc<dyn Evaluator<G>>` for the game `G` of `spec`.
    evaluator: Arc<dyn Any + Send + Sync>,
}

impl PyEvaluator {
    fn load(path: PathBuf, spec: Option<&str>, device_name: &str) -> PyResult<PyEvaluator> {
        let device = self::device(device_name)?;
        let path = alphazero_train::local::network_or_champion(&path)
            .map_err(|e| crate::value_error(&e))?;
        let own = alphazero_engine::file_game_spec(&path).map_err(app_error)?;
        let spec = match spec {
            Some(s) => parse_spec(s)?,
            None => own,
        };
        if spec.name() != own.name() {
            return Err(PyValueError::new_err(format!(
                "evaluator {} was made for {}, not {}",
                path.display(),
                own.words(),
                spec.words()
            )));
        }
        let (evaluator, description) = with_game!(&spec, G, cfg => {
            let (eval, desc) = load_network::<G>(&path, cfg, &device).map_err(app_error)?;
            (Arc::new(eval) as Arc<dyn Any + Send + Sync>, desc)
        });
        Ok(PyEvaluator {
            path,
            spec,
            description,
            evaluator,
        })
    }
}

#[pymethods]
impl PyEvaluator {
    /// Loads an evaluator file (`.azm`) or a network checkpoint (`.azc`, or a training run's
    /// folder: its champion) for the game it was made for, or for `game` (a spec of the same
    /// game: a Gomoku `.azm` evaluates any board and rule). Raises `OSError` when the file
    /// cannot be read, `ValueError` when it is neither kind of file or does not fit `game`,
    /// or for a `device` this build or machine lacks (`device` as for `Network`).
    #[new]
    #[pyo3(signature = (path, game = None, *, device = "cpu"))]
    fn py_new(path: PathBuf, game: Option<&str>, device: &str) -> PyResult<Self> {
        PyEvaluator::load(path, game, device)
    }

    /// The evaluator every program plays `spec` with when given no model: the fast
    /// evaluator shipped for the board's own rule (`models/*.azm`) if there is one, else
    /// the shipped network as `Network.shipped` finds it; `None` when there is neither.
    #[staticmethod]
    #[pyo3(signature = (spec, *, device = "cpu"))]
    fn shipped(spec: &str, device: &str) -> PyResult<Option<PyEvaluator>> {
        load_shipped(
            spec,
            |s| with_game!(s, G, cfg => alphazero_engine::shipped_evaluator_path::<G>(cfg)),
            |p, s| PyEvaluator::load(p, s, device),
        )
    }

    /// The game spec it evaluates.
    #[getter]
    fn spec(&self) -> String {
        self.spec.to_string()
    }

    /// The file.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "Evaluator({:?}, game={:?})",
            self.path,
            self.spec.to_string()
        )
    }

    /// What it is: its kind, file and what it was made for.
    fn __str__(&self) -> String {
        self.description.clone()
    }
}

/// `planes` as a float32 NumPy array, else `TypeError`: for an array of another dtype, naming
/// it and saying to cast to float32 (NumPy's default float64 is the usual case).
fn float32_planes<'py>(planes: &Bound<'py, PyAny>) -> PyResult<PyReadonlyArrayDyn<'py, f32>> {
    if let Ok(array) = planes.extract::<PyReadonlyArrayDyn<'py, f32>>() {
        return Ok(array);
    }
    let text = |v: PyResult<Bound<'py, PyAny>>| {
        v.and_then(|v| v.str().map(|s| s.to_string()))
            .unwrap_or_else(|_| "?".to_string())
    };
    let dtype = planes
        .getattr("dtype")
        .ok()
        .filter(|_| planes.hasattr("shape").unwrap_or(false));
    Err(PyTypeError::new_err(match dtype {
        Some(d) => format!(
            "planes must be a float32 array, got {}: cast to float32 (planes.astype(numpy.float32))",
            text(Ok(d))
        ),
        None => format!(
            "planes must be a NumPy float32 array [B, C, H, W] or [C, H, W], got {}: make one \
             with numpy.asarray(planes, dtype=numpy.float32)",
            text(planes.get_type().name().map(|n| n.into_any()))
        ),
    }))
}

/// What `alphazero.search` returns.
#[pyclass(module = "alphazero", name = "SearchResult", frozen, get_all)]
pub struct PySearchResult {
    /// The move to play (the most visited, or a proven win), in the game's notation; `None`
    /// when the position is over.
    r#move: Option<String>,
    /// Its action index.
    action: Option<usize>,
    /// The visit distribution over the legal moves: move → fraction of the root's visits
    /// (every legal move, 0.0 for those not visited; sums to 1 unless the game is over).
    visits: std::collections::BTreeMap<String, f32>,
    /// The same distribution over the whole action space, float32 `[A]` (π, as self-play
    /// records it).
    policy: Py<PyArray1<f32>>,
    /// The root value in [-1, 1] from the side to move (the mean of the search's values, or
    /// the proven result).
    value: f32,
    /// The principal variation: the best move, then the best reply, …, in the game's notation.
    pv: Vec<String>,
    /// Simulations done.
    simulations: u32,
    /// The proven result from the side to move (`"win"`, `"loss"`, `"draw"`) when the
    /// search's solver or tactics decided the position; `None` otherwise.
    proven: Option<&'static str>,
}

#[pymethods]
impl PySearchResult {
    fn __repr__(&self) -> String {
        let quoted = |m: &str| format!("'{m}'");
        format!(
            "SearchResult(move={}, value={:.3}, simulations={}, pv=[{}])",
            self.r#move.as_deref().map_or("None".into(), quoted),
            self.value,
            self.simulations,
            self.pv
                .iter()
                .map(|m| quoted(m))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// The plain results of one search (no Python objects: made while the GIL is released).
struct SearchOut {
    best: Option<String>,
    action: Option<usize>,
    visits: std::collections::BTreeMap<String, f32>,
    policy: Vec<f32>,
    value: f32,
    pv: Vec<String>,
    simulations: u32,
    proven: Option<Outcome>,
}

fn search_game<G: BoardView>(
    game: &History<G>,
    evaluator: &dyn Evaluator<G>,
    simulations: Option<u32>,
    time_ms: Option<u64>,
    seed: u64,
    stop: &AtomicBool,
) -> anyhow::Result<SearchOut> {
    let config = play_search::<G>(simulations, seed);
    let r = search_position_until(game, evaluator, &config, time_ms, stop)?;
    let pos = game.current();
    let visits = pos
        .legal_moves_vec()
        .into_iter()
        .map(|m| (pos.format_move(m), r.policy[pos.move_to_action(m)]))
        .collect();
    let mut p = pos.clone();
    let pv =
        r.pv.iter()
            .map(|&m| {
                let text = p.format_move(m);
                p.play_unchecked(m);
                text
            })
            .collect();
    Ok(SearchOut {
        best: r.best_move.map(|m| pos.format_move(m)),
        action: r.action,
        visits,
        policy: r.policy,
        value: r.root_value,
        pv,
        simulations: r.simulations,
        proven: r.proven,
    })
}

/// The evaluator of `network` (a `Network` or an `Evaluator`) for game `G` (the uniform
/// evaluator without one), after checking that it fits `game`: a network's shapes, an
/// evaluator's spec.
fn evaluator_for<G: BoardView>(
    network: Option<&Bound<'_, PyAny>>,
    game: &History<G>,
) -> PyResult<Arc<dyn Evaluator<G>>> {
    let Some(network) = network.filter(|n| !n.is_none()) else {
        return Ok(Arc::new(UniformEvaluator));
    };
    let pos = game.current();
    if let Ok(e) = network.cast::<PyEvaluator>() {
        let e = e.get();
        let want = G::spec(pos.config());
        return match e.evaluator.downcast_ref::<Arc<dyn Evaluator<G>>>() {
            Some(eval) if e.spec == want => Ok(Arc::clone(eval)),
            _ => Err(PyValueError::new_err(format!(
                "evaluator {} ({}) cannot search {}: load it with game={:?}",
                e.path.display(),
                e.spec.words(),
                want.words(),
                want.to_string()
            ))),
        };
    }
    let Ok(net) = network.cast::<PyNetwork>() else {
        let type_name = network
            .get_type()
            .name()
            .map_or_else(|_| "?".to_string(), |n| n.to_string());
        return Err(PyTypeError::new_err(format!(
            "network must be an alphazero.Network, an alphazero.Evaluator or None, got {type_name}"
        )));
    };
    let net = net.get();
    let (h, w) = pos.board_shape();
    let want = (G::num_planes(pos.config()), h, w, pos.num_actions());
    let m = &net.model;
    let have = (m.input_planes, m.board_height, m.board_width, m.num_actions);
    let evaluator = net.evaluator.downcast_ref::<Arc<dyn Evaluator<G>>>();
    match evaluator {
        Some(e) if want == have => Ok(Arc::clone(e)),
        _ => Err(PyValueError::new_err(format!(
            "network {} ({}: {} planes {}×{}, {} actions) cannot search {} ({} planes {}×{}, \
             {} actions)",
            net.path.display(),
            net.spec.words(),
            have.0,
            have.1,
            have.2,
            have.3,
            G::spec(pos.config()).words(),
            want.0,
            want.1,
            want.2,
            want.3
        ))),
    }
}

/// The longest search `search` takes, in milliseconds (a day): a longer `time_ms` is a
/// mistake, and one like 2⁶³ would never return.
const MAX_TIME_MS: u64 = 86_400_000;

/// How often a search in progress looks for Ctrl-C (Python's pending signals).
const SIGNAL_POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// Searches `game`'s position with the game's play search (the preset `play`, `analyze`,
/// `serve` and the engines use: its tactics and solver, no root noise) and `network` (a
/// `Network` or an `Evaluator`; `None`: the uniform evaluator, every move equally likely and
/// every position even). The budget is `simulations` (default 800 when `time_ms` is not given either), or
/// `time_ms` milliseconds of wall clock, whichever ends first when both are given. `seed`
/// fixes the search's random choices (ties). The GIL is released while it searches, so
/// other Python threads run meanwhile. Raises `TypeError` when `network` is neither kind,
/// `ValueError` when the network does not fit
/// the game or a number is out of range (naming it: `simulations` 1 to 10,000,000, `time_ms`
/// 1 to a day, `seed` 0 to 2⁶⁴ − 1), `TypeError` for a number that is not an int,
/// `RuntimeError` when the evaluation fails. Ctrl-C (a pending `KeyboardInterrupt`, or any signal handler's exception) ends the
/// search within a round of evaluations and raises it.
#[pyfunction]
#[pyo3(signature = (game, network = None, simulations = None, time_ms = None, seed = None))]
pub fn search(
    py: Python<'_>,
    game: &PyGame,
    network: Option<&Bound<'_, PyAny>>,
    simulations: Option<&Bound<'_, PyAny>>,
    time_ms: Option<&Bound<'_, PyAny>>,
    seed: Option<&Bound<'_, PyAny>>,
) -> PyResult<PySearchResult> {
    let simulations = simulations
        .map(|n| {
            // The search's own range, as every command's `--sims` takes it.
            let k = alphazero_mcts::knobs::SIMULATIONS;
            crate::int_arg(
                n,
                k.name,
                k.min,
                k.max,
                " (a larger tree would outgrow the memory; use time_ms for a long search)",
            )
        })
        .transpose()?;
    let time_ms = time_ms
        .map(|ms| crate::int_arg(ms, "time_ms", 1, MAX_TIME_MS, " (a day)"))
        .transpose()?;
    let seed = match seed {
        Some(s) => crate::int_arg(s, "seed", 0, u64::MAX, "")?,
        None => 0,
    };
    let simulations = match (simulations, time_ms) {
        (Some(n), _) => Some(n),
        (None, Some(_)) => None,
        (None, None) => Some(800),
    };
    let spec = game.inner.spec();
    let out = with_game!(&spec, G, _cfg => {
        let history = game
            .inner
            .as_any()
            .downcast_ref::<History<G>>()
            .ok_or_else(|| PyValueError::new_err("the game's type does not match its spec"))?
            .clone();
        let evaluator = evaluator_for::<G>(network, &history)?;
        // The search runs on its own thread while this one, holding the GIL only to look,
        // watches for Ctrl-C: a signal handler runs only on the main thread, between Python
        // bytecodes, never while Rust searches.
        let stop = AtomicBool::new(false);
        let mut interrupted = None;
        let result = py.detach(|| {
            std::thread::scope(|scope| {
                let job = scope.spawn(|| {
                    search_game(&history, &*evaluator, simulations, time_ms, seed, &stop)
                });
                while !job.is_finished() {
                    std::thread::sleep(SIGNAL_POLL);
                    if interrupted.is_none() {
                        if let Err(e) = Python::attach(|py| py.check_signals()) {
                            interrupted = Some(e);
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                }
                job.join()
            })
        });
        if let Some(e) = interrupted {
            return Err(e);
        }
        result
            .map_err(|_| PyRuntimeError::new_err("the search panicked"))?
            .map_err(app_error)?
    });
    Ok(PySearchResult {
        r#move: out.best,
        action: out.action,
        visits: out.visits,
        policy: Array1::from_vec(out.policy).into_pyarray(py).unbind(),
        value: out.value,
        pv: out.pv,
        simulations: out.simulations,
        proven: out.proven.map(|o| match o {
            Outcome::Win => "win",
            Outcome::Loss => "loss",
            Outcome::Draw => "draw",
        }),
    })
}
