//! The engine set-up shared by the `alphazero` and `pbrain-alphazero` binaries and the Python
//! package: choosing and loading the evaluator (a checkpoint, the shipped network of a game, or
//! the uniform evaluator), the play search of each game, running one search under a simulation
//! and/or time limit, and starting the Gomocup / UCCI engines on stdin/stdout (this module);
//! how positions and searches are shown ([`present`]); positions read as text and recorded
//! games replayed ([`position`]); and the files the programs read and write ([`files`]). The
//! commands' own work (play, records, eval, arena, bench) is in the `alphazero` binary.
//!
//! Errors are [`anyhow::Error`]s with the context a person needs (the file, the flag, the
//! input): every caller is a command that prints them.
#![deny(missing_docs)]

pub mod files;
pub mod position;
pub mod present;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use alphazero_game::{Game, History};
use alphazero_mcts::{
    knobs, CachedEvaluator, Control, Driver, EvalError, EvalRequest, Evaluator, RunLimits, Search,
    SearchBudget, SearchConfig, SearchResult, UniformEvaluator,
};
use alphazero_nn::{load_checkpoint, Device, Encode, NetworkEvaluator};
use alphazero_registry::Registered;
use anyhow::{bail, Context, Result};

/// Positions kept by the evaluation cache of a loaded network, at most (see [`CACHE_MIB`]).
pub const CACHE_CAPACITY: usize = 1 << 18;

/// The memory (MiB) the evaluation cache of a network loaded by [`load_network`] may hold. A
/// cached position keeps every action's logit: a Xiangqi position (2,086 actions) takes ~8.4
/// KB, so [`CACHE_CAPACITY`] positions would be 2.2 GB a network, and `arena --snapshots` loads
/// one network a player (ten Xiangqi networks grew past 10 GB by the third). Boards of up to
/// ~270 actions keep all [`CACHE_CAPACITY`] positions.
pub const CACHE_MIB: u32 = 256;

/// The positions the evaluation cache of a network for `game_config` keeps:
/// [`CACHE_CAPACITY`], or fewer where that many would take more than [`CACHE_MIB`]
/// (costed as the engines' `Hash` option is, [`alphazero_protocols::cache_entries`]).
pub fn cache_positions<G: Game>(game_config: &G::Config) -> usize {
    let actions = G::new(game_config).num_actions();
    CACHE_CAPACITY.min(alphazero_protocols::cache_entries(CACHE_MIB, actions))
}

/// The file name of the network shipped for a game configuration under `models/`:
/// `connect4.azc`, `xiangqi.azc`, `gomoku-<N>x<N>-<rule>.azc`.
pub fn shipped_model_name<G: Registered>(config: &G::Config) -> String {
    G::spec(config).model_file_name()
}

/// The folders searched for shipped networks, in order (the first one holding the file wins):
/// 1. `$ALPHAZERO_MODELS` when set;
/// 2. `models/` beside the executable (how a Gomocup brain's zip is laid out:
///    `pbrain-alphazero` with `models/` in the same folder; the manager may start it from
///    any working directory);
/// 3. `./models` under the current directory;
/// 4. `models/` of the repository the executable was built in, found by walking up from the
///    executable (`target/release/alphazero` → the folder with `Cargo.toml` and `models/`);
/// 5. `models/` of the source tree this binary was compiled from (a path fixed at build time).
///
/// Duplicates are dropped.
pub fn model_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = std::env::var_os("ALPHAZERO_MODELS").filter(|d| !d.is_empty()) {
        dirs.push(PathBuf::from(d));
    }
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.canonicalize().ok().or(Some(e)))
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        dirs.push(dir.join("models"));
    }
    if let Ok(cwd) = std::env::current_dir() {
        dirs.push(cwd.join("models"));
    }
    if let Some(repo) = exe_repository() {
        dirs.push(repo.join("models"));
    }
    dirs.push(source_tree().join("models"));
    let mut unique: Vec<PathBuf> = Vec::new();
    for d in dirs {
        let key = d.canonicalize().unwrap_or_else(|_| d.clone());
        if !unique
            .iter()
            .any(|u| u.canonicalize().unwrap_or_else(|_| u.clone()) == key)
        {
            unique.push(d);
        }
    }
    unique
}

/// The source tree this crate was compiled from (the workspace root, two folders above this
/// crate's `Cargo.toml`), a path fixed at build time.
pub fn source_tree() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .nth(2)
        .unwrap_or(manifest)
        .to_path_buf()
}

/// The repository the running executable lies in: the nearest folder above it that holds a
/// `Cargo.toml` (`…/repo/target/release/alphazero` → `…/repo`). `None` when there is none.
pub fn exe_repository() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let exe = exe.canonicalize().unwrap_or(exe);
    exe.ancestors()
        .skip(1)
        .find(|d| d.join("Cargo.toml").is_file())
        .map(Path::to_path_buf)
}

/// Where the shipped network of a game configuration lies: `<dir>/<name>` for the first of
/// [`model_dirs`] that holds it; without one, the same for the other networks usable for it
/// ([`alphazero_registry::GameSpec::model_file_names`]: a Gomoku standard or renju board takes
/// the freestyle network of its size, and loading it warns that it was trained for another
/// rule); without any, the first size-independent network shipped for another board of the
/// game ([`alphazero_registry::GameSpec::other_board_model_file_names`],
/// [`PolicyValueNet::for_positions_of`]: a Gomoku 18×18 board takes a size-independent 20×20
/// network). `None` when no folder holds any of them.
pub fn shipped_model_path<G: Registered>(config: &G::Config) -> Option<PathBuf> {
    let dirs = model_dirs();
    let spec = G::spec(config);
    let in_dirs = |names: Vec<String>| -> Vec<PathBuf> {
        names
            .iter()
            .flat_map(|name| dirs.iter().map(move |d| d.join(name)))
            .filter(|p| p.is_file())
            .collect()
    };
    if let Some(own) = in_dirs(spec.model_file_names()).into_iter().next() {
        return Some(own);
    }
    // Only the header is looked at: the CPU device, whatever the program runs on.
    let device = Device::flex();
    in_dirs(spec.other_board_model_file_names())
        .into_iter()
        .find(|p| {
            load_checkpoint(p, G::NAME, &device).is_ok_and(|ck| ck.header.model.size_independent())
        })
}

/// The evaluator every program plays with when no `--model` is given: the first of
/// [`alphazero_registry::GameSpec::evaluator_file_names`] that one of [`model_dirs`] holds (a
/// board's fast evaluator, a Gomoku `.azm` of a rule whose tables fit, before its network: it
/// plays stronger at equal time than the network it was distilled from); else
/// [`shipped_model_path`] (a size-independent network of another board). Programs that need a
/// network itself (training, the network benchmarks, Python's `Network`) take
/// [`shipped_model_path`].
pub fn shipped_evaluator_path<G: Registered>(config: &G::Config) -> Option<PathBuf> {
    first_file_in(&model_dirs(), &G::spec(config).evaluator_file_names())
        .or_else(|| shipped_model_path::<G>(config))
}

/// The first of `names` that one of `dirs` holds (each name in every folder before the next
/// name), as a path.
fn first_file_in(dirs: &[PathBuf], names: &[String]) -> Option<PathBuf> {
    names
        .iter()
        .find_map(|n| dirs.iter().map(|d| d.join(n)).find(|p| p.is_file()))
}

/// The folders of [`model_dirs`] as one line for messages (`a, b, c`).
pub fn model_dirs_text() -> String {
    model_dirs()
        .iter()
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A network description for people other than the one running the program (the web page,
/// game records): `desc` with the file's full path replaced by its file name.
pub fn public_description(desc: &str, path: &Path) -> String {
    match path.file_name() {
        Some(name) => desc.replace(&path.display().to_string(), &name.to_string_lossy()),
        None => desc.to_string(),
    }
}

/// Loads a checkpoint of game `G` for positions of `game_config` and wraps it in a
/// [`NetworkEvaluator`] behind a [`CachedEvaluator`] of [`cache_positions`] positions. Returns
/// the evaluator and a one-line description (file, network size, training step).
///
/// A size-independent network trained on another board of the game plays on this one, and a
/// Gomoku network trained without renju's forbidden-point plane plays renju with zero weights
/// on it ([`PolicyValueNet::for_positions_of`]).
///
/// # Errors
/// The file cannot be read, is not a checkpoint, is corrupt, belongs to another game, or its
/// network does not fit the positions of `game_config` (input planes, board, action count).
pub fn load_network<G: Encode>(
    path: &Path,
    game_config: &G::Config,
    device: &Device,
) -> Result<(Arc<dyn Evaluator<G>>, String)> {
    load_network_cached(path, game_config, device, cache_positions::<G>(game_config))
}

/// As [`load_network`] with a cache of `cache` positions; 0: no cache (for engines that keep
/// their own, sized by the GUI: the UCCI/UCI engine's `Hash`).
///
/// # Errors
/// As [`load_network`].
pub fn load_network_cached<G: Encode>(
    path: &Path,
    game_config: &G::Config,
    device: &Device,
    cache: usize,
) -> Result<(Arc<dyn Evaluator<G>>, String)> {
    load_network_warning::<G>(path, game_config, device, cache, true)
}

/// As [`load_network_cached`]; `warn_other_rules`: whether to warn on stderr that the
/// network was trained under other rules (a program that says so itself passes false).
fn load_network_warning<G: Encode>(
    path: &Path,
    game_config: &G::Config,
    device: &Device,
    cache: usize,
    warn_other_rules: bool,
) -> Result<(Arc<dyn Evaluator<G>>, String)> {
    if let Some(loaded) = load_mixnet::<G>(path, game_config, cache, warn_other_rules)? {
        return Ok(loaded);
    }
    let ck = load_checkpoint(path, G::NAME, device).context("loading network")?;
    let pos = G::new(game_config);
    let (h, w) = pos.board_shape();
    let want = (G::num_planes(game_config), h, w, pos.num_actions());
    let (model, m) = ck
        .model
        .for_positions_of::<G>(&ck.header.model, game_config);
    let m = &m;
    let have = (m.input_planes, m.board_height, m.board_width, m.num_actions);
    if want != have {
        bail!(
            "network {} was trained for {} ({} planes {}×{}, {} actions) and does not fit \
             {} ({} planes {}×{}, {} actions)",
            path.display(),
            ck.header.game.words(),
            have.0,
            have.1,
            have.2,
            have.3,
            G::spec(game_config).words(),
            want.0,
            want.1,
            want.2,
            want.3
        );
    }
    let trained_for = ck.header.game.words();
    let used_for = G::spec(game_config).words();
    let resized = (ck.header.model.board_height, ck.header.model.board_width) != (h, w);
    // A resized network's description names the board it was trained on.
    if warn_other_rules && trained_for != used_for && !resized {
        // Same shapes, other rules (e.g. a renju network on a freestyle board): usable, but
        // its policy and values were learnt under other rules.
        eprintln!(
            "warning: network {} was trained for {trained_for}; it is used here for {used_for}",
            path.display()
        );
    }
    let net = NetworkEvaluator::<G>::new(&model, m, device)
        .with_context(|| format!("network {}", path.display()))?;
    let desc = format!(
        "network {} ({}x{}, step {}, trained on {})",
        path.display(),
        m.residual_blocks,
        m.channels,
        ck.header.step,
        ck.header.game.words()
    );
    if cache == 0 {
        return Ok((Arc::new(net), desc));
    }
    Ok((Arc::new(CachedEvaluator::new(net, cache)), desc))
}

/// Whether `path` is a Mixnet evaluator file (`.azm`), by its first bytes.
pub fn is_mixnet_path(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 8];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && alphazero_mixnet::is_mixnet_file(&head)
}

/// The game a network or evaluator file was made for, from its header: a checkpoint's game,
/// or a Mixnet file's Gomoku board and rule.
///
/// # Errors
/// The file cannot be read, or is neither a checkpoint nor a Mixnet file.
pub fn file_game_spec(path: &Path) -> Result<alphazero_registry::GameSpec> {
    if is_mixnet_path(path) {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let file = alphazero_mixnet::MixnetFile::from_bytes(&bytes)
            .with_context(|| path.display().to_string())?;
        return Ok(alphazero_registry::GameSpec::Gomoku {
            size: file.size,
            rule: file.rule,
        });
    }
    let ck = alphazero_nn::load_any_checkpoint(path, &Device::flex())
        .with_context(|| format!("loading {}", path.display()))?;
    Ok(ck.header.game)
}

/// An evaluator and its one-line description.
type Loaded<G> = (Arc<dyn Evaluator<G>>, String);

/// A Mixnet evaluator file (`.azm`, a Gomoku evaluator distilled from a network, see
/// `alphazero distill`) as the evaluator of `G`, where a network file would be read;
/// `None` when `path` is not one. It evaluates every board size; `cache` as for networks.
///
/// # Errors
/// The file is damaged, or `G` is not Gomoku.
fn load_mixnet<G: Encode>(
    path: &Path,
    game_config: &G::Config,
    cache: usize,
    warn_other_rules: bool,
) -> Result<Option<Loaded<G>>> {
    use alphazero_gomoku::{Gomoku, GomokuConfig};
    use std::any::Any;
    if !is_mixnet_path(path) {
        return Ok(None);
    }
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let file = alphazero_mixnet::MixnetFile::from_bytes(&bytes)
        .with_context(|| path.display().to_string())?;
    let Some(cfg) = (game_config as &dyn Any).downcast_ref::<GomokuConfig>() else {
        bail!(
            "{} is a Gomoku evaluator (Mixnet); it cannot evaluate {}",
            path.display(),
            G::spec(game_config).words()
        );
    };
    if warn_other_rules && cfg.rule != file.rule {
        eprintln!(
            "warning: evaluator {} was distilled for {}; it is used here for {}",
            path.display(),
            file.rule,
            cfg.rule
        );
    }
    let c = file.net.config();
    let desc = format!(
        "Mixnet evaluator {} (lines ±{}, {} features, {} rule)",
        path.display(),
        c.half_width,
        c.features,
        file.rule
    );
    let student = alphazero_mixnet::MixnetEvaluator::new(file.net);
    let eval: Arc<dyn Evaluator<Gomoku>> = if cache == 0 {
        Arc::new(student)
    } else {
        Arc::new(CachedEvaluator::new(student, cache))
    };
    // G is Gomoku (its config is GomokuConfig): the Arc is already of G's evaluator type.
    let eval = *(Box::new(eval) as Box<dyn Any>)
        .downcast::<Arc<dyn Evaluator<G>>>()
        .map_err(|_| anyhow::anyhow!("a Gomoku configuration for a game other than Gomoku"))?;
    Ok(Some((eval, desc)))
}

/// The evaluator to play with: `--model FILE` if given; else the shipped evaluator of the game
/// (see [`shipped_evaluator_path`]) when one exists; else the [`UniformEvaluator`]. Prints which one
/// is used on stderr and returns it with its description.
///
/// # Errors
/// As [`load_network`] for an explicit or shipped file.
pub fn load_evaluator<G: Encode>(
    model: Option<&Path>,
    game_config: &G::Config,
    device: &Device,
) -> Result<(Arc<dyn Evaluator<G>>, String)> {
    let c = choose_evaluator::<G>(model, game_config, device)?;
    Ok((c.evaluator, c.description))
}

/// An evaluator chosen by [`choose_evaluator`].
pub struct ChosenEvaluator<G: Game> {
    /// The evaluator.
    pub evaluator: Arc<dyn Evaluator<G>>,
    /// One line saying what it is (a network with its full path, or the uniform evaluator).
    pub description: String,
    /// The network file, `None` for the uniform evaluator.
    pub path: Option<PathBuf>,
}

impl<G: Game> ChosenEvaluator<G> {
    /// [`Self::description`] naming the network by its file name only, for people other
    /// than the one running the program (the web page, game records).
    pub fn public_description(&self) -> String {
        match &self.path {
            Some(p) => public_description(&self.description, p),
            None => self.description.clone(),
        }
    }
}

/// As [`load_evaluator`], also returning the network file used (`None` for the uniform
/// evaluator), e.g. to describe it without its folder.
///
/// # Errors
/// As [`load_network`] for an explicit or shipped file.
pub fn choose_evaluator<G: Encode>(
    model: Option<&Path>,
    game_config: &G::Config,
    device: &Device,
) -> Result<ChosenEvaluator<G>> {
    choose_evaluator_cached(
        model,
        game_config,
        device,
        cache_positions::<G>(game_config),
    )
}

/// As [`choose_evaluator`] with a network cache of `cache` positions (0: none, see
/// [`load_network_cached`]).
///
/// # Errors
/// As [`load_network`] for an explicit or shipped file.
pub fn choose_evaluator_cached<G: Encode>(
    model: Option<&Path>,
    game_config: &G::Config,
    device: &Device,
    cache: usize,
) -> Result<ChosenEvaluator<G>> {
    let (eval, desc, path) = match model {
        Some(p) => {
            let (e, d) = load_network_cached::<G>(p, game_config, device, cache)?;
            (e, d, Some(p.to_path_buf()))
        }
        None => match shipped_evaluator_path::<G>(game_config) {
            Some(p) => {
                let (e, d) = load_network_cached::<G>(&p, game_config, device, cache)?;
                (e, format!("shipped {d}"), Some(p))
            }
            None => {
                let name = shipped_model_name::<G>(game_config);
                eprintln!("note: no {name} in {}", model_dirs_text());
                (
                    Arc::new(UniformEvaluator) as Arc<dyn Evaluator<G>>,
                    format!("uniform evaluator (no --model and no shipped {name})"),
                    None,
                )
            }
        },
    };
    match path {
        Some(_) => eprintln!("evaluator: {desc}, on {}", device_words(device)),
        None => eprintln!("evaluator: {desc}"),
    }
    Ok(ChosenEvaluator {
        evaluator: eval,
        description: desc,
        path,
    })
}

/// A device by name (`default`, `cpu`, `cuda[:N]`, `wgpu[:N]`) with a readable error.
///
/// # Errors
/// Unknown device names, a CUDA or wgpu device in a build without that feature (the error
/// names the feature), a wgpu device with no adapter behind it (no GPU driver).
pub fn device(name: &str) -> Result<Device> {
    Ok(alphazero_nn::device_from_name(name)?)
}

/// A device in words for messages: `cpu (burn Flex)`, `cuda:0`, `wgpu (ADAPTER NAME)` (which
/// opens the device); burn's `Debug` text for anything else.
pub fn device_words(device: &Device) -> String {
    let debug = format!("{device:?}");
    if debug.contains("Flex") {
        "cpu (burn Flex)".to_string()
    } else if debug.contains("Wgpu") {
        #[cfg(feature = "wgpu")]
        if let Some(id) = device.identity() {
            return format!("wgpu ({})", id.name);
        }
        "wgpu".to_string()
    } else if let Some(i) = debug
        .split("Cuda(")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .filter(|i| !i.is_empty())
    {
        format!("cuda:{i}")
    } else {
        debug
    }
}

/// Runs one search from the current position of `game` as `search.config` says, for the
/// simulations of `search.budget`, or until `movetime_ms` has passed when given, whichever
/// comes first (the search driver's deadline, [`RunLimits::deadline`]: no evaluator batch is
/// started that is expected to end after it, and at least one simulation is done); a budget
/// without a simulation cap needs the time. Root noise is off.
///
/// # Errors
/// A bad search configuration or budget (no simulation cap and no time), or an evaluator
/// failure.
pub fn search_position<G: Game>(
    game: &History<G>,
    evaluator: &dyn Evaluator<G>,
    search: &PlaySearch,
    movetime_ms: Option<u64>,
) -> Result<SearchResult<G>> {
    search_position_until(
        game,
        evaluator,
        search,
        movetime_ms,
        &AtomicBool::new(false),
    )
}

/// [`search_position`] that also ends, with the result so far, after the first round of
/// network evaluations that finds `stop` set (another thread's Ctrl-C, a caller's stop).
///
/// # Errors
/// As [`search_position`].
pub fn search_position_until<G: Game>(
    game: &History<G>,
    evaluator: &dyn Evaluator<G>,
    search: &PlaySearch,
    movetime_ms: Option<u64>,
    stop: &AtomicBool,
) -> Result<SearchResult<G>> {
    let budget = SearchBudget {
        root_noise: false,
        ..search.budget
    };
    if budget.simulations.is_none() && movetime_ms.is_none() {
        bail!("a search without a simulation cap needs a time limit");
    }
    let mut search = Search::from_history(game, search.config.clone(), budget)
        .context("search configuration")?;
    let mut limits = RunLimits {
        deadline: movetime_ms.map(|ms| Instant::now() + std::time::Duration::from_millis(ms)),
        ..RunLimits::default()
    };
    Driver::new().run(
        std::slice::from_mut(&mut search),
        evaluator,
        &mut limits,
        |_, _| match stop.load(Ordering::Relaxed) {
            true => Control::Stop,
            false => Control::Continue,
        },
    )?;
    Ok(search.result())
}

/// Evaluates positions with the network of their game configuration (board and rule), else
/// with the first network that fits their input shape (e.g. a freestyle network on a renju
/// board of its size), and with the [`UniformEvaluator`] when none does (a Gomocup brain is
/// told the board size only at `START` and the rule by `INFO rule`).
pub struct ShapeFallback<G: Encode> {
    /// The networks with the configuration and input shape each was added for.
    nets: Vec<Served<G>>,
}

/// A network with the configuration and input shape it was added for.
type Served<G> = (<G as Game>::Config, InputShape, Arc<dyn Evaluator<G>>);

/// A network's input shape: `(planes, height, width, actions)`.
type InputShape = (usize, usize, usize, usize);

impl<G: Encode> ShapeFallback<G> {
    /// Wraps `net`, which takes positions of `config`.
    pub fn new(net: Arc<dyn Evaluator<G>>, config: &G::Config) -> Self {
        ShapeFallback { nets: Vec::new() }.with(net, config)
    }

    /// Adds `net`, which takes positions of `config` (a configuration already served keeps
    /// its first network; among networks of other configurations with the same input shape,
    /// the first added serves a configuration none was added for).
    pub fn with(mut self, net: Arc<dyn Evaluator<G>>, config: &G::Config) -> Self {
        let shape = Self::shape(&G::new(config));
        self.nets.push((config.clone(), shape, net));
        self
    }

    fn shape(pos: &G) -> InputShape {
        let (h, w) = pos.board_shape();
        (G::num_planes(pos.config()), h, w, pos.num_actions())
    }

    /// The network for a batch whose positions are all of `config` and `shape`.
    fn network(&self, config: &G::Config, shape: InputShape) -> Option<&Arc<dyn Evaluator<G>>> {
        let exact = self
            .nets
            .iter()
            .find(|(c, s, _)| c == config && *s == shape);
        exact
            .or_else(|| self.nets.iter().find(|(_, s, _)| *s == shape))
            .map(|(_, _, net)| net)
    }
}

impl<G: Encode> Evaluator<G> for ShapeFallback<G> {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, G>],
        policy_logits: &mut [f32],
        values: &mut [f32],
    ) -> Result<(), EvalError> {
        let net = batch.first().and_then(|first| {
            let (config, shape) = (first.position.config(), Self::shape(first.position));
            let same = batch
                .iter()
                .all(|r| r.position.config() == config && Self::shape(r.position) == shape);
            if same {
                self.network(config, shape)
            } else {
                None
            }
        });
        match net {
            Some(net) => net.evaluate(batch, policy_logits, values),
            None => UniformEvaluator.evaluate(batch, policy_logits, values),
        }
    }
}

/// How a program searches a game and for how long: [`play_search`].
#[derive(Clone, Debug, PartialEq)]
pub struct PlaySearch {
    /// How: the game's play preset ([`Registered::play_search`]).
    pub config: SearchConfig,
    /// How long and the seed, the program's; no root noise.
    pub budget: SearchBudget,
}

/// The search every program plays game `G` with (`play`, `analyze`, the arena's `net:`
/// players, the Gomocup brain and the UCCI/UCI engine; `serve` takes the same preset from the
/// registry): the game's play preset ([`Registered::play_search`]: its decisive-move check and
/// tactics, the same whichever program is asked), with the program's budget: `simulations`
/// (`None`: no cap, for a search limited by time) and `seed`, without root noise.
pub fn play_search<G: Registered>(simulations: Option<u32>, seed: u64) -> PlaySearch {
    PlaySearch {
        config: G::play_search(),
        budget: SearchBudget {
            simulations,
            root_noise: false,
            seed,
        },
    }
}

/// Settings of the protocol engines, and the command-line arguments of `alphazero gomocup`,
/// `alphazero ucci` and `pbrain-alphazero` alike (one declaration: the three take the same
/// flags, checked by the same parsers).
#[derive(clap::Args, Clone, Debug, Default, PartialEq, Eq)]
pub struct BrainOptions {
    /// Network checkpoint, or a training run's folder for its champion (default: the shipped
    /// network if there is one, else the uniform evaluator).
    #[arg(long, value_name = "FILE|RUN_DIR")]
    pub model: Option<PathBuf>,
    /// Device: `default`, `cpu`, `cuda[:N]` or `wgpu[:N]` in builds with the `cuda` / `wgpu`
    /// feature (docs/training.md, GPU; empty: `default`).
    #[arg(long, default_value = "default")]
    pub device: String,
    /// Play exactly N simulations per move and ignore the clock (reproducible answers).
    #[arg(
        long = "fixed-sims",
        value_name = "N",
        value_parser = |s: &str| knobs::SIMULATIONS.parse(s)
    )]
    pub fixed_simulations: Option<u32>,
    /// Spend every move's share of a match clock evenly. By default, on a match clock
    /// (Gomocup `timeout_match`/`time_left`, UCCI/UCI `time`/`wtime`/`btime`) a search stops
    /// early once its move cannot change and takes up to 3 shares when it is unsure
    /// ([`alphazero_protocols::EngineConfig::steer_time`] off).
    #[arg(long)]
    pub flat_time: bool,
    /// Start every search from an empty tree. By default a search starts from the previous
    /// search's subtree of the moves played since, keeping its visits
    /// ([`alphazero_protocols::EngineConfig::reuse_tree`] off).
    #[arg(long)]
    pub no_tree_reuse: bool,
}

/// How a program finds the network a `--model` names: a file as it is, a training run's
/// folder as its champion. The programs pass `alphazero_train::local::network_or_champion`
/// (this crate does not read run folders).
pub type ModelOf<'a> = &'a dyn Fn(&Path) -> Result<PathBuf>;

impl BrainOptions {
    /// These options with `--model` found by `model_of`.
    ///
    /// # Errors
    /// `model_of`'s, with `--model` as its context.
    pub fn with_model_found(&self, model_of: ModelOf<'_>) -> Result<BrainOptions> {
        let model = match &self.model {
            Some(m) => Some(model_of(m).context("--model")?),
            None => None,
        };
        Ok(BrainOptions {
            model,
            ..self.clone()
        })
    }
}

/// The settings of a protocol engine playing game `G` (the Gomocup brain: Gomoku; the UCCI/UCI
/// engine: Xiangqi): the game's [`play_search`] with seed 0 as the engine's search and budget,
/// its simulations exactly [`BrainOptions::fixed_simulations`] when given (the clock ignored),
/// else the protocol engine's cap; the protocol defaults otherwise.
pub fn brain_config<G: Registered>(opts: &BrainOptions) -> alphazero_protocols::EngineConfig {
    let defaults = alphazero_protocols::EngineConfig::default();
    let cap = opts.fixed_simulations.or(defaults.budget.simulations);
    let play = play_search::<G>(cap, 0);
    alphazero_protocols::EngineConfig {
        search: play.config,
        budget: play.budget,
        fixed_simulations: opts.fixed_simulations.is_some(),
        steer_time: !opts.flat_time,
        reuse_tree: !opts.no_tree_reuse,
        ..defaults
    }
}

/// Runs the Gomocup brain on stdin/stdout until `END` or end of input. The network given, or
/// else every shipped network (`gomoku-<N>x<N>-<rule>.azc` of every size and rule), is used
/// for boards of its size, under its rule first ([`ShapeFallback`]);
/// a size-independent one ([`PolicyValueNet::for_positions_of`]) also for every size no network was
/// trained on;
/// other sizes are searched with the uniform evaluator.
///
/// A brain whose evaluator cannot be loaded answers the manager `ERROR <reason>`
/// ([`refuse_gomocup_brain`]) before it stops.
///
/// `--model` is found by `model_of` ([`ModelOf`]).
///
/// # Errors
/// A network that cannot be found or loaded, or an I/O error on stdin/stdout.
pub fn run_gomocup_brain(opts: &BrainOptions, model_of: ModelOf<'_>) -> Result<()> {
    let brain = opts
        .with_model_found(model_of)
        .and_then(|opts| gomocup_brain(&opts));
    let (evaluator, config) = match brain {
        Ok(brain) => brain,
        Err(e) => {
            refuse_gomocup_brain(&format!("{e:#}"));
            return Err(e);
        }
    };
    alphazero_protocols::run_gomocup(
        std::io::stdin().lock(),
        std::io::stdout().lock(),
        evaluator,
        config,
    )
    .context("Gomocup brain I/O")
}

/// Answers the Gomocup manager on stdin/stdout `ERROR <reason>` to each command until `END`
/// or the end of input ([`alphazero_protocols::refuse_gomocup`]): a brain that cannot play
/// says why where the manager shows it, not only on stderr.
pub fn refuse_gomocup_brain(reason: &str) {
    // The reason is on stderr too; a manager that closed the pipe needs no answer.
    let _ = alphazero_protocols::refuse_gomocup(
        std::io::stdin().lock(),
        std::io::stdout().lock(),
        reason,
    );
}

/// The Gomocup brain's evaluator and configuration (see [`run_gomocup_brain`]).
fn gomocup_brain(
    opts: &BrainOptions,
) -> Result<(
    Arc<dyn Evaluator<alphazero_gomoku::Gomoku>>,
    alphazero_protocols::EngineConfig,
)> {
    use alphazero_gomoku::{Gomoku, GomokuConfig, Rule};
    let device = device(if opts.device.is_empty() {
        "default"
    } else {
        &opts.device
    })?;
    let mut found: Vec<(PathBuf, GomokuConfig)> = Vec::new();
    if let Some(p) = opts.model.as_ref().filter(|p| is_mixnet_path(p)) {
        // A Mixnet evaluator plays every board size and rule with one table.
        let cfg = GomokuConfig::default();
        let (evaluator, desc) = load_network::<Gomoku>(p, &cfg, &device)?;
        eprintln!("evaluator: {desc}, used on every board");
        let config = alphazero_protocols::EngineConfig {
            networks_trained_for: Vec::new(),
            warn_network_less: false,
            ..brain_config::<Gomoku>(opts)
        };
        return Ok((evaluator, config));
    }
    if let Some(p) = &opts.model {
        let ck = load_checkpoint(p, Gomoku::NAME, &device).context("loading network")?;
        // The board and rule it was trained for, from its header (the rule decides nothing
        // about the input shape: the brain warns when a game is played under another rule).
        let (size, rule) = match ck.header.game {
            alphazero_registry::GameSpec::Gomoku { size, rule } => (size, rule),
            _ => (ck.header.model.board_height as u8, Rule::Freestyle),
        };
        let cfg = GomokuConfig::new(size, rule)
            .with_context(|| format!("network {} has board size {size}", p.display()))?;
        found.push((p.clone(), cfg));
    } else {
        // Each board size's and rule's shipped network, from the first folder of
        // `model_dirs` that holds one (a Gomocup zip's own models/ before the repository's):
        // the main sizes first (the first size-independent one found plays the other sizes),
        // freestyle before the rules whose boards it also serves.
        let sizes = [15u8, 20, 8].into_iter().chain(
            (alphazero_gomoku::MIN_SIZE..=alphazero_gomoku::MAX_SIZE)
                .filter(|s| ![15, 20, 8].contains(s)),
        );
        let dirs = model_dirs();
        for size in sizes {
            for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju] {
                let Ok(cfg) = GomokuConfig::new(size, rule) else {
                    continue;
                };
                let spec = Gomoku::spec(&cfg);
                let own: Vec<String> = spec
                    .fast_evaluator_file_name()
                    .into_iter()
                    .chain([spec.model_file_name()])
                    .collect();
                if let Some(p) = first_file_in(&dirs, &own) {
                    found.push((p, cfg));
                }
            }
        }
    }
    // A size-independent network (the first found) also plays every board size that no
    // network was trained on, with the same weights (`PolicyValueNet::for_positions_of`).
    let anywhere = found.iter().find_map(|(p, cfg)| {
        load_checkpoint(p, Gomoku::NAME, &device)
            .ok()
            .filter(|ck| ck.header.model.size_independent())
            .map(|_| (p.clone(), *cfg))
    });
    let trained_sizes = found.len();
    if let Some((p, trained)) = anywhere {
        for size in alphazero_gomoku::MIN_SIZE..=alphazero_gomoku::MAX_SIZE {
            if found.iter().all(|(_, c)| c.size != size) {
                if let Ok(cfg) = GomokuConfig::new(size, trained.rule) {
                    found.push((p.clone(), cfg));
                }
            }
        }
    }
    let trained_for: Vec<(u8, Rule)> = found.iter().map(|(_, c)| (c.size, c.rule)).collect();
    let other_planes = gomoku_networks_for_other_planes(&found);
    let mut networks: Option<ShapeFallback<Gomoku>> = None;
    let mut resized_sizes = Vec::new();
    for (i, (p, cfg)) in found.iter().enumerate() {
        let (net, desc) = load_network::<Gomoku>(p, cfg, &device)?;
        if i < trained_sizes {
            eprintln!(
                "evaluator: {desc}, used on {0}x{0} {1} boards",
                cfg.size,
                cfg.rule.name()
            );
        } else {
            resized_sizes.push(cfg.size.to_string());
        }
        networks = Some(match networks {
            None => ShapeFallback::new(net, cfg),
            Some(n) => n.with(net, cfg),
        });
    }
    if let Some((p, _)) = found.get(trained_sizes) {
        eprintln!(
            "evaluator: {} (size-independent) also on the {} boards",
            p.display(),
            resized_sizes.join(", ")
        );
    }
    for (p, cfg) in &other_planes {
        // The brain warns in a MESSAGE when a game is played under a rule its network was
        // not trained for (`networks_trained_for`), and says below what it loaded.
        let (net, _) =
            load_network_warning::<Gomoku>(p, cfg, &device, cache_positions::<Gomoku>(cfg), false)?;
        networks = networks.map(|n| n.with(net, cfg));
    }
    if !other_planes.is_empty() {
        eprintln!(
            "evaluator: a board with no renju network plays renju with its network, which \
             reads black's forbidden points with zero weights (and a board with renju \
             networks only plays the other rules with one, without that plane)"
        );
    }
    let sizes = usize::from(alphazero_gomoku::MAX_SIZE - alphazero_gomoku::MIN_SIZE) + 1;
    let evaluator: Arc<dyn Evaluator<Gomoku>> = match networks {
        Some(n) => {
            let mut served: Vec<u8> = found.iter().map(|(_, c)| c.size).collect();
            served.sort_unstable();
            served.dedup();
            if served.len() < sizes {
                eprintln!("evaluator: uniform on other boards");
            }
            Arc::new(n)
        }
        None => {
            eprintln!(
                "evaluator: uniform evaluator (no --model and no shipped gomoku network in {})",
                model_dirs_text()
            );
            Arc::new(UniformEvaluator)
        }
    };
    let config = alphazero_protocols::EngineConfig {
        networks_trained_for: trained_for,
        warn_network_less: true,
        ..brain_config::<Gomoku>(opts)
    };
    Ok((evaluator, config))
}

/// The networks a Gomocup brain loads once more, for positions of the other plane count:
/// renju positions carry a plane more than the other rules' (black's forbidden points), and a
/// network serves positions of the other count only when loaded for them
/// ([`PolicyValueNet::for_positions_of`]; [`ShapeFallback`] matches shapes). So a board
/// whose networks in `found` (each file with the board and rule it serves) are all of renju,
/// or all of the other rules, gets its first network for the other kind: under renju, or
/// under freestyle (whose planes standard shares, so one network serves both).
fn gomoku_networks_for_other_planes(
    found: &[(PathBuf, alphazero_gomoku::GomokuConfig)],
) -> Vec<(PathBuf, alphazero_gomoku::GomokuConfig)> {
    use alphazero_gomoku::{GomokuConfig, Rule};
    let renju = |r: Rule| r == Rule::Renju;
    let mut other_planes: Vec<(PathBuf, GomokuConfig)> = Vec::new();
    for (p, c) in found {
        let rule = if renju(c.rule) {
            Rule::Freestyle
        } else {
            Rule::Renju
        };
        let served = |o: &GomokuConfig| o.size == c.size && renju(o.rule) == renju(rule);
        if !found.iter().chain(&other_planes).any(|(_, o)| served(o)) {
            other_planes.push((p.clone(), GomokuConfig { rule, ..*c }));
        }
    }
    other_planes
}

/// Runs the UCCI / UCI Xiangqi engine on stdin/stdout until `quit` or end of input.
///
/// `--model` is found by `model_of` ([`ModelOf`]).
///
/// # Errors
/// A network that cannot be found or loaded, or an I/O error on stdout.
pub fn run_ucci_engine(opts: &BrainOptions, model_of: ModelOf<'_>) -> Result<()> {
    use alphazero_xiangqi::{Xiangqi, XiangqiConfig};
    let opts = &opts.with_model_found(model_of)?;
    let device = device(if opts.device.is_empty() {
        "default"
    } else {
        &opts.device
    })?;
    // No cache here: the engine keeps its own, sized by the GUI's `Hash` / `hashsize`.
    let evaluator = choose_evaluator_cached::<Xiangqi>(
        opts.model.as_deref(),
        &XiangqiConfig::default(),
        &device,
        0,
    )?
    .evaluator;
    alphazero_protocols::run_ucci(
        std::io::BufReader::new(std::io::stdin()),
        std::io::stdout().lock(),
        evaluator,
        brain_config::<Xiangqi>(opts),
    )
    .context("UCCI engine I/O")
}

#[cfg(test)]
mod tests {
    use super::*;
    use alphazero_registry::games::{Gomoku, Xiangqi, XiangqiConfig};
    use alphazero_registry::{with_game, GameSpec};

    /// A Xiangqi network's cache (2,086 logits a position) is cut to its memory, while a
    /// 15×15 board's keeps every position it is allowed.
    #[test]
    fn the_network_cache_keeps_to_its_memory_whatever_the_action_count() {
        let xiangqi = cache_positions::<Xiangqi>(&XiangqiConfig::default());
        assert!(xiangqi < CACHE_CAPACITY / 4, "{xiangqi}");
        assert!(
            xiangqi * 2086 * 4 <= (CACHE_MIB as usize) << 20,
            "{xiangqi}"
        );
        assert!(xiangqi > 10_000, "{xiangqi}: still a useful cache");
        let cfg = alphazero_gomoku::GomokuConfig::default();
        assert_eq!(cache_positions::<Gomoku>(&cfg), CACHE_CAPACITY);
    }

    /// A Mixnet file is read wherever a network file is, evaluates any Gomoku board with
    /// the same numbers as the Mixnet itself, and is refused for another game by name.
    #[test]
    fn a_mixnet_file_loads_as_a_gomoku_evaluator_and_is_refused_for_other_games() {
        use alphazero_gomoku::{GomokuConfig, Rule};
        use alphazero_mixnet::{Mixnet, MixnetConfig, MixnetEvaluator, MixnetFile};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("student.azm");
        let net = Mixnet::new(MixnetConfig::default(), 5);
        let file = MixnetFile {
            rule: Rule::Freestyle,
            size: 15,
            provenance: "test".into(),
            net: net.clone(),
        };
        std::fs::write(&path, file.to_bytes()).unwrap();
        assert!(is_mixnet_path(&path));
        assert_eq!(
            file_game_spec(&path).unwrap(),
            GameSpec::Gomoku {
                size: 15,
                rule: Rule::Freestyle
            }
        );
        let dev = device("cpu").unwrap();
        for size in [9u8, 15, 20] {
            let cfg = GomokuConfig::new(size, Rule::Freestyle).unwrap();
            let (eval, desc) = load_network::<Gomoku>(&path, &cfg, &dev).unwrap();
            assert!(desc.contains("Mixnet"), "{desc}");
            let pos = Gomoku::new(&cfg);
            let n2 = usize::from(size) * usize::from(size);
            let req = [EvalRequest {
                position: &pos,
                history: &[],
            }];
            let (mut got, mut want) = (vec![0.0; n2], vec![0.0; n2]);
            let (mut gv, mut wv) = ([0.0], [0.0]);
            eval.evaluate(&req, &mut got, &mut gv).unwrap();
            MixnetEvaluator::new(net.clone())
                .evaluate(&req, &mut want, &mut wv)
                .unwrap();
            assert_eq!((got, gv), (want, wv));
        }
        let err = load_network::<Xiangqi>(&path, &XiangqiConfig::default(), &dev)
            .err()
            .expect("a Gomoku evaluator for Xiangqi")
            .to_string();
        assert!(err.contains("Gomoku evaluator"), "{err}");
        let mut damaged = file.to_bytes();
        damaged[60] ^= 1;
        std::fs::write(&path, damaged).unwrap();
        let cfg = GomokuConfig::default();
        let err = format!(
            "{:#}",
            load_network::<Gomoku>(&path, &cfg, &dev).err().unwrap()
        );
        assert!(err.contains("checksum"), "{err}");
    }

    /// Without `--model`, a board plays with the fast evaluator of a rule whose tables fit
    /// when one is shipped (never freestyle's for renju), and with the network otherwise.
    #[test]
    fn the_shipped_fast_evaluator_of_the_boards_rule_comes_before_the_network() {
        use alphazero_gomoku::{GomokuConfig, Rule};
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let dirs = [a.path().to_path_buf(), b.path().to_path_buf()];
        std::fs::write(a.path().join("gomoku-15x15-freestyle.azc"), b"x").unwrap();
        std::fs::write(b.path().join("gomoku-15x15-freestyle.azm"), b"x").unwrap();
        let found = |s: &str| {
            let names = s.parse::<GameSpec>().unwrap().evaluator_file_names();
            first_file_in(&dirs, &names)
        };
        let azm = Some(b.path().join("gomoku-15x15-freestyle.azm"));
        assert_eq!(found("gomoku:15"), azm);
        assert_eq!(found("gomoku:15:standard"), azm);
        assert_eq!(
            found("gomoku:15:renju"),
            Some(a.path().join("gomoku-15x15-freestyle.azc"))
        );
        assert_eq!(found("gomoku:20"), None);
        assert_eq!(found("xiangqi"), None);
        // This repository ships one for 15×15 freestyle: every program without `--model`
        // plays with it, and the network stays what the network-only programs take.
        let cfg = GomokuConfig::new(15, Rule::Freestyle).unwrap();
        let chosen = shipped_evaluator_path::<Gomoku>(&cfg).expect("a shipped evaluator");
        assert!(is_mixnet_path(&chosen), "{}", chosen.display());
        let net = shipped_model_path::<Gomoku>(&cfg).expect("a shipped network");
        assert!(!is_mixnet_path(&net), "{}", net.display());
        let (_, desc) = load_evaluator::<Gomoku>(None, &cfg, &device("cpu").unwrap()).unwrap();
        assert!(desc.starts_with("shipped Mixnet evaluator"), "{desc}");
        let renju = GomokuConfig::new(15, Rule::Renju).unwrap();
        let chosen = shipped_evaluator_path::<Gomoku>(&renju).expect("a shipped evaluator");
        assert_eq!(chosen.file_name().unwrap(), "gomoku-15x15-renju.azm");
        let xq = shipped_evaluator_path::<Xiangqi>(&XiangqiConfig::default()).unwrap();
        assert_eq!(xq.file_name().unwrap(), "xiangqi.azc");
    }

    /// `play` and `analyze` ([`play_search`]), the Gomocup brain and the UCCI/UCI engine all
    /// search a game with its registry play search, their budgets apart (the arena's `net:`
    /// players are checked in the `alphazero` binary, `serve` in `alphazero-web`). The
    /// UCCI/UCI engine once had no tactics.
    #[test]
    fn every_program_plays_each_game_with_its_registry_play_search() {
        for spec in GameSpec::DEFAULTS {
            let preset = spec.play_search();
            let search = with_game!(&spec, G, _cfg => play_search::<G>(Some(37), 5));
            assert_eq!(search.config, preset, "{spec}");
            assert_eq!(
                search.budget,
                SearchBudget {
                    simulations: Some(37),
                    root_noise: false,
                    seed: 5
                },
                "{spec}"
            );
        }
        for opts in [
            BrainOptions::default(),
            BrainOptions {
                fixed_simulations: Some(30),
                ..BrainOptions::default()
            },
        ] {
            let evaluator = Arc::new(UniformEvaluator);
            let gomocup = alphazero_protocols::GomocupEngine::new(
                evaluator.clone(),
                brain_config::<Gomoku>(&opts),
            );
            let ucci = alphazero_protocols::UcciEngine::new(
                evaluator,
                brain_config::<Xiangqi>(&opts),
                XiangqiConfig::default(),
            );
            for (spec, config) in [
                (GameSpec::DEFAULTS[0], gomocup.config()),
                (GameSpec::Xiangqi, ucci.config()),
            ] {
                assert_eq!(config.search, spec.play_search(), "{spec}");
                assert_eq!(
                    config.fixed_simulations,
                    opts.fixed_simulations.is_some(),
                    "{spec}"
                );
                // The play preset's budget as the search takes it: the fixed count, else
                // the protocol engine's cap, seed 0, no root noise.
                let cap = opts
                    .fixed_simulations
                    .or(alphazero_protocols::EngineConfig::default()
                        .budget
                        .simulations);
                assert_eq!(
                    config.budget,
                    with_game!(&spec, G, _cfg => play_search::<G>(cap, 0)).budget,
                    "{spec}"
                );
            }
        }
    }

    /// Answers every position with one value: which network a [`ShapeFallback`] picked.
    struct Constant(f32);

    impl<G: Game> Evaluator<G> for Constant {
        fn evaluate(
            &self,
            batch: &[EvalRequest<'_, G>],
            policy_logits: &mut [f32],
            values: &mut [f32],
        ) -> Result<(), EvalError> {
            policy_logits.fill(0.0);
            values[..batch.len()].fill(self.0);
            Ok(())
        }
    }

    /// A Gomocup brain with a renju network beside the freestyle one of the same board used
    /// the freestyle one for renju boards (the fallback matched input shapes only).
    #[test]
    fn shape_fallback_takes_the_network_of_the_board_and_rule_then_of_the_shape() {
        use alphazero_gomoku::{GomokuConfig, Rule};
        let cfg = |size, rule| GomokuConfig::new(size, rule).unwrap();
        let nets = ShapeFallback::<Gomoku>::new(Arc::new(Constant(0.1)), &cfg(9, Rule::Freestyle))
            .with(Arc::new(Constant(0.2)), &cfg(9, Rule::Renju))
            .with(Arc::new(Constant(0.3)), &cfg(9, Rule::Renju))
            .with(Arc::new(Constant(0.4)), &cfg(11, Rule::Standard));
        let value = |size, rule| {
            let pos = Gomoku::new(&cfg(size, rule));
            let batch = [EvalRequest {
                position: &pos,
                history: &[],
            }];
            let mut logits = vec![9.0; pos.num_actions()];
            let mut values = [9.0];
            nets.evaluate(&batch, &mut logits, &mut values).unwrap();
            values[0]
        };
        assert_eq!(value(9, Rule::Freestyle), 0.1);
        assert_eq!(value(9, Rule::Renju), 0.2, "its own rule's first network");
        assert_eq!(value(9, Rule::Standard), 0.1, "the first of its shape");
        assert_eq!(value(11, Rule::Freestyle), 0.4, "the only one of its shape");
        // Renju positions have a plane more (black's forbidden points): no network of the
        // other rules' shape takes them (the Gomocup brain loads one for them).
        assert_eq!(
            value(11, Rule::Renju),
            0.0,
            "uniform: not the standard network"
        );
        assert_eq!(value(13, Rule::Freestyle), 0.0, "uniform: no network fits");
        // A batch mixing rules is not given to one rule's network.
        let (a, b) = (
            Gomoku::new(&cfg(9, Rule::Renju)),
            Gomoku::new(&cfg(9, Rule::Freestyle)),
        );
        let batch = [
            EvalRequest {
                position: &a,
                history: &[],
            },
            EvalRequest {
                position: &b,
                history: &[],
            },
        ];
        let mut logits = vec![9.0; 2 * a.num_actions()];
        let mut values = [9.0; 2];
        nets.evaluate(&batch, &mut logits, &mut values).unwrap();
        assert_eq!(values, [0.0, 0.0]);
    }

    /// Renju positions have a plane more than the other rules': the brain loads a board's
    /// network once more for the other plane count, once per board, where no network of that
    /// kind was found (a renju-only board once played freestyle by the uniform evaluator).
    #[test]
    fn gomocup_brain_loads_a_network_for_the_other_plane_count_once_per_board() {
        use alphazero_gomoku::{GomokuConfig, Rule};
        let cfg = |size, rule| GomokuConfig::new(size, rule).unwrap();
        let file = |name: &str| PathBuf::from(name);
        let found = vec![
            (file("f15"), cfg(15, Rule::Freestyle)),
            (file("s15"), cfg(15, Rule::Standard)),
            (file("r9"), cfg(9, Rule::Renju)),
            (file("f11"), cfg(11, Rule::Freestyle)),
            (file("r11"), cfg(11, Rule::Renju)),
        ];
        assert_eq!(
            gomoku_networks_for_other_planes(&found),
            vec![
                (file("f15"), cfg(15, Rule::Renju)),
                (file("r9"), cfg(9, Rule::Freestyle)),
            ]
        );
    }

    #[test]
    fn the_source_tree_is_the_workspace_root() {
        assert!(super::source_tree().join("Cargo.toml").is_file());
        assert!(super::source_tree().join("crates/engine").is_dir());
    }
}
