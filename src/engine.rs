//! Shared engine plumbing of the binaries: choosing and loading the evaluator (a checkpoint, the
//! shipped network of a game, or the uniform evaluator), running one search under a simulation
//! and/or time limit, and starting the Gomocup / UCCI engines on stdin/stdout.
//!
//! Used by `alphazero` (as `crate::engine`) and by `pbrain-alphazero` (included with `#[path]`),
//! so it names only library crates.
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use alphazero_game::{Game, History};
use alphazero_mcts::{
    CachedEvaluator, EvalError, EvalRequest, Evaluator, Search, SearchConfig, SearchResult,
    UniformEvaluator,
};
use alphazero_nn::{load_checkpoint, Device, Encode, GameTag, NetworkEvaluator};
use anyhow::{bail, Context, Result};

/// Positions kept by the evaluation cache of a loaded network.
pub const CACHE_CAPACITY: usize = 1 << 18;

/// The file name of the network shipped for a game configuration under `models/`:
/// `connect4.azc`, `xiangqi.azc`, `gomoku-<N>x<N>-<rule>.azc`.
pub fn shipped_model_name<G: Game>(config: &G::Config) -> String {
    let tag = GameTag::of::<G>(config);
    if G::NAME == "gomoku" {
        let pos = G::new(config);
        let (n, _) = pos.board_shape();
        let rule = tag
            .config
            .split("rule: ")
            .nth(1)
            .and_then(|r| r.split([',', ' ', '}']).next())
            .unwrap_or("Freestyle")
            .to_ascii_lowercase();
        format!("gomoku-{n}x{n}-{rule}.azc")
    } else {
        format!("{}.azc", G::NAME)
    }
}

/// Where a shipped network may lie: `models/<name>` under the repository
/// (`CARGO_MANIFEST_DIR`) and under the current directory. The first existing one wins.
pub fn shipped_model_path<G: Game>(config: &G::Config) -> Option<PathBuf> {
    let name = shipped_model_name::<G>(config);
    let mut candidates = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("models")
        .join(&name)];
    if let Ok(cwd) = std::env::current_dir() {
        candidates.push(cwd.join("models").join(&name));
    }
    candidates.into_iter().find(|p| p.is_file())
}

/// Loads a checkpoint of game `G` for positions of `game_config` and wraps it in a
/// [`NetworkEvaluator`] behind a [`CachedEvaluator`]. Returns the evaluator and a one-line
/// description (file, network size, training step).
///
/// # Errors
/// The file cannot be read, is not a checkpoint, is corrupt, belongs to another game, or its
/// network does not fit the positions of `game_config` (input planes, board, action count).
pub fn load_network<G: Encode>(
    path: &Path,
    game_config: &G::Config,
    device: &Device,
) -> Result<(Arc<dyn Evaluator<G>>, String)> {
    let ck = load_checkpoint(path, G::NAME, device)
        .with_context(|| format!("loading network {}", path.display()))?;
    let m = &ck.header.model;
    let pos = G::new(game_config);
    let (h, w) = pos.board_shape();
    let want = (G::num_planes(game_config), h, w, pos.num_actions());
    let have = (m.input_planes, m.board_height, m.board_width, m.num_actions);
    if want != have {
        bail!(
            "network {} was trained for {} {} ({} planes {}×{}, {} actions) and does not fit \
             {:?} ({} planes {}×{}, {} actions)",
            path.display(),
            ck.header.game.name,
            ck.header.game.config,
            have.0,
            have.1,
            have.2,
            have.3,
            game_config,
            want.0,
            want.1,
            want.2,
            want.3
        );
    }
    let net = NetworkEvaluator::<G>::new(&ck.model, m, device)
        .with_context(|| format!("network {}", path.display()))?;
    let desc = format!(
        "network {} ({}x{}, step {}, trained on {})",
        path.display(),
        m.residual_blocks,
        m.channels,
        ck.header.step,
        ck.header.game.config
    );
    Ok((Arc::new(CachedEvaluator::new(net, CACHE_CAPACITY)), desc))
}

/// The evaluator to play with: `--model FILE` if given; else the shipped network of the game
/// (see [`shipped_model_path`]) when one exists; else the [`UniformEvaluator`]. Prints which one
/// is used on stderr and returns it with its description.
///
/// # Errors
/// As [`load_network`] for an explicit or shipped file.
pub fn load_evaluator<G: Encode>(
    model: Option<&Path>,
    game_config: &G::Config,
    device: &Device,
) -> Result<(Arc<dyn Evaluator<G>>, String)> {
    let (eval, desc) = match model {
        Some(p) => load_network::<G>(p, game_config, device)?,
        None => match shipped_model_path::<G>(game_config) {
            Some(p) => {
                let (e, d) = load_network::<G>(&p, game_config, device)?;
                (e, format!("shipped {d}"))
            }
            None => (
                Arc::new(UniformEvaluator) as Arc<dyn Evaluator<G>>,
                format!(
                    "uniform evaluator (no --model and no shipped models/{})",
                    shipped_model_name::<G>(game_config)
                ),
            ),
        },
    };
    eprintln!("evaluator: {desc}");
    Ok((eval, desc))
}

/// A device by name (`default`, `cpu`, `cuda[:N]`) with a readable error.
///
/// # Errors
/// Unknown device names, CUDA without the `cuda` feature.
pub fn device(name: &str) -> Result<Device> {
    Ok(alphazero_nn::device_from_name(name)?)
}

/// Runs one search from the current position of `game` with `config.simulations` simulations,
/// or until `movetime_ms` has passed (after at least one simulation) when given, whichever comes
/// first. Root noise is off.
///
/// # Errors
/// A bad search configuration or an evaluator failure.
pub fn search_position<G: Game>(
    game: &History<G>,
    evaluator: &dyn Evaluator<G>,
    config: &SearchConfig,
    movetime_ms: Option<u64>,
) -> Result<SearchResult<G>> {
    let mut config = SearchConfig {
        root_noise: false,
        ..config.clone()
    };
    if movetime_ms.is_some() && config.simulations == 0 {
        config.simulations = u32::MAX / 2;
    }
    let mut search = Search::from_history(game, config).context("search configuration")?;
    let Some(ms) = movetime_ms else {
        return Ok(search.run(evaluator)?);
    };
    let deadline = Instant::now() + std::time::Duration::from_millis(ms);
    search.begin_run();
    let a = search.root_position().num_actions();
    let (mut logits, mut values) = (Vec::new(), Vec::new());
    while !search.is_done() {
        if search.simulations_done() >= 1 && search.num_pending() == 0 && Instant::now() >= deadline
        {
            break;
        }
        let n = search.collect_leaves();
        if n == 0 {
            continue;
        }
        logits.resize(n * a, 0.0);
        values.resize(n, 0.0);
        let batch: Vec<EvalRequest<'_, G>> = search.pending_requests().collect();
        let r = evaluator.evaluate(&batch, &mut logits, &mut values);
        drop(batch);
        r.and_then(|()| search.apply_evaluations(&logits, &values))?;
    }
    Ok(search.result())
}

/// Evaluates positions with a network when they fit its input shape and with the
/// [`UniformEvaluator`] otherwise (a Gomocup brain is told the board size only at `START`).
pub struct ShapeFallback<G: Encode> {
    net: Arc<dyn Evaluator<G>>,
    /// `(planes, height, width, actions)` the network takes.
    shape: (usize, usize, usize, usize),
}

impl<G: Encode> ShapeFallback<G> {
    /// Wraps `net`, which takes positions of `config`.
    pub fn new(net: Arc<dyn Evaluator<G>>, config: &G::Config) -> Self {
        let pos = G::new(config);
        let (h, w) = pos.board_shape();
        ShapeFallback {
            net,
            shape: (G::num_planes(config), h, w, pos.num_actions()),
        }
    }

    fn fits(&self, pos: &G) -> bool {
        let (h, w) = pos.board_shape();
        (G::num_planes(pos.config()), h, w, pos.num_actions()) == self.shape
    }
}

impl<G: Encode> Evaluator<G> for ShapeFallback<G> {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, G>],
        policy_logits: &mut [f32],
        values: &mut [f32],
    ) -> Result<(), EvalError> {
        if batch.iter().all(|r| self.fits(r.position)) {
            self.net.evaluate(batch, policy_logits, values)
        } else {
            UniformEvaluator.evaluate(batch, policy_logits, values)
        }
    }
}

/// Settings of the protocol engines (`alphazero gomocup`, `alphazero ucci`, `pbrain-alphazero`).
#[derive(Clone, Debug, Default)]
pub struct BrainOptions {
    /// Checkpoint to play with (else the shipped network, else uniform).
    pub model: Option<PathBuf>,
    /// Device name.
    pub device: String,
    /// Exactly this many simulations per move, ignoring the clock (reproducible).
    pub fixed_simulations: Option<u32>,
}

fn engine_config(opts: &BrainOptions) -> alphazero_protocols::EngineConfig {
    match opts.fixed_simulations {
        Some(n) => alphazero_protocols::EngineConfig::fixed(n.max(1), 0),
        None => alphazero_protocols::EngineConfig::default(),
    }
}

/// Runs the Gomocup brain on stdin/stdout until `END` or end of input. The network (explicit
/// or shipped 15×15 / 8×8 freestyle) is used for boards of its size; other sizes are searched
/// with the uniform evaluator.
///
/// # Errors
/// A network that cannot be loaded, or an I/O error on stdin/stdout.
pub fn run_gomocup_brain(opts: &BrainOptions) -> Result<()> {
    use alphazero_gomoku::{Gomoku, GomokuConfig, Rule};
    let device = device(if opts.device.is_empty() {
        "default"
    } else {
        &opts.device
    })?;
    let mut found: Option<(PathBuf, GomokuConfig)> = None;
    if let Some(p) = &opts.model {
        let ck = load_checkpoint(p, Gomoku::NAME, &device)
            .with_context(|| format!("loading network {}", p.display()))?;
        let size = ck.header.model.board_height as u8;
        let cfg = GomokuConfig::new(size, Rule::Freestyle)
            .with_context(|| format!("network {} has board size {size}", p.display()))?;
        found = Some((p.clone(), cfg));
    } else {
        for size in [15u8, 20, 8] {
            let Ok(cfg) = GomokuConfig::new(size, Rule::Freestyle) else {
                continue;
            };
            if let Some(p) = shipped_model_path::<Gomoku>(&cfg) {
                found = Some((p, cfg));
                break;
            }
        }
    }
    let evaluator: Arc<dyn Evaluator<Gomoku>> = match found {
        Some((p, cfg)) => {
            let (net, desc) = load_network::<Gomoku>(&p, &cfg, &device)?;
            eprintln!(
                "evaluator: {desc}, used on {0}x{0} boards (uniform on others)",
                cfg.size
            );
            Arc::new(ShapeFallback::new(net, &cfg))
        }
        None => {
            eprintln!("evaluator: uniform evaluator (no --model and no shipped gomoku network)");
            Arc::new(UniformEvaluator)
        }
    };
    alphazero_protocols::run_gomocup(
        std::io::stdin().lock(),
        std::io::stdout().lock(),
        evaluator,
        engine_config(opts),
    )
    .context("Gomocup brain I/O")
}

/// Runs the UCCI / UCI Xiangqi engine on stdin/stdout until `quit` or end of input.
///
/// # Errors
/// A network that cannot be loaded, or an I/O error on stdout.
pub fn run_ucci_engine(opts: &BrainOptions) -> Result<()> {
    use alphazero_xiangqi::{Xiangqi, XiangqiConfig};
    let device = device(if opts.device.is_empty() {
        "default"
    } else {
        &opts.device
    })?;
    let (evaluator, _) =
        load_evaluator::<Xiangqi>(opts.model.as_deref(), &XiangqiConfig::default(), &device)?;
    alphazero_protocols::run_ucci(
        std::io::BufReader::new(std::io::stdin()),
        std::io::stdout().lock(),
        evaluator,
        engine_config(opts),
    )
    .context("UCCI engine I/O")
}
