//! `alphazero train`: the AlphaZero loop — self-play → replay buffer → training → gating —
//! crash-safe and resumable. The loop is the `alphazero_train` library
//! ([`alphazero_train::Pipeline`]: its stages, run-directory recovery and durability rules are
//! documented there); this command parses the flags, resolves the configuration
//! ([`alphazero_train::sources::ConfigSources`]), opens the run directory and shows progress.
//!
//! Only one process trains a run directory at a time: `train` holds an exclusive lock on
//! `RUN/lock` (with its pid inside) for its whole life; the OS drops it when the process
//! ends, however it ends.
//!
//! Warm start: `--init FILE` starts a run's networks from a checkpoint, `--init-trunk FILE`
//! from its trunk with fresh heads, `--init-grow FILE` from it grown into a larger model (see
//! [`alphazero_train::InitNetwork`]).
use super::runs::{finish, install_ctrl_c, solver_slice, Bars, ITERATION_CTRL_C};
use alphazero_registry::with_game;
use alphazero_registry::GameSpec;
use alphazero_train::sources::ConfigSources;
use alphazero_train::{InitNetwork, InvocationLimits, Observer, Pipeline, TrainConfig};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;

/// The flags that say which run and for how long, shared by `train` and `learner`.
#[derive(clap::Args, Debug)]
pub struct RunFlags {
    /// Game to learn (required for a new run; a resumed run reads it from its config).
    #[arg(long, value_parser = crate::games::game_names())]
    game: Option<String>,
    /// Gomoku board size (5–20); default 15.
    #[arg(long)]
    size: Option<u8>,
    /// Gomoku rule: freestyle, standard or renju.
    #[arg(long)]
    rule: Option<String>,
    /// TOML config file (keys not given take the game's defaults); for a new run only (a
    /// resumed run keeps its saved config; change it with --set).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Config override `section.key=value`, e.g. `--set selfplay.simulations=50` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
    /// Stop this invocation after N more iterations (not saved; the whole run's limit is
    /// `run.iterations`, e.g. `--set run.iterations=200`).
    #[arg(long, value_name = "N")]
    iterations: Option<u32>,
    /// Stop this invocation after M minutes (not saved; the whole run's limit is
    /// `run.time_budget_minutes`). The iteration under way is finished first.
    #[arg(long, value_name = "M")]
    minutes: Option<f64>,
    /// Device: `cpu` (burn Flex), `cuda[:N]` or `wgpu[:N]` in builds with the `cuda` / `wgpu`
    /// feature (docs/training.md, GPU).
    #[arg(long, default_value = "default")]
    pub(crate) device: String,
    /// No progress bars (one summary line per iteration only).
    #[arg(long)]
    pub(crate) quiet: bool,
    /// Validate the configuration, print the effective config and exit without writing anything.
    #[arg(long)]
    dry_run: bool,
    /// Start the run's networks from this checkpoint (e.g. a shipped `models/*.azc`) instead
    /// of random weights; the replay buffer fills by self-play. It must be a network of the
    /// run's game and board; a new run without `model.*` settings takes its network size. A
    /// run that already has networks refuses any other file (giving the file it started from
    /// again resumes it).
    #[arg(long, value_name = "FILE")]
    init: Option<PathBuf>,
    /// Start the run's networks from this checkpoint's trunk (stem and residual blocks) with
    /// fresh heads: for a run whose heads or board differ from the file's (e.g.
    /// `model.policy_head=conv`, `model.value_head=pooled`, another `--size`). Its input
    /// planes (but for renju's forbidden-point plane, read at zero weight as with --init),
    /// blocks, channels and global pooling must be the run's. A run that already has
    /// networks refuses any other file, as with --init.
    #[arg(long, value_name = "FILE", conflicts_with = "init")]
    init_trunk: Option<PathBuf>,
    /// Start the run's networks from this checkpoint grown into the run's larger model
    /// (`model.blocks`, `model.channels`, `model.value_hidden` at least the file's): its
    /// weights at the same indices, and new blocks, channels and units that the old ones do
    /// not read yet, so the grown network plays as the file does and training takes up the
    /// new capacity. Heads, board and input (but for renju's forbidden-point plane) must be
    /// the file's; no global pooling. A
    /// run that already has networks refuses any other file, as with --init.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["init", "init_trunk"])]
    init_grow: Option<PathBuf>,
}

/// Arguments of `alphazero train`.
#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// Run directory: created if new, resumed if it holds a run.
    #[arg(long)]
    run: PathBuf,
    #[command(flatten)]
    flags: RunFlags,
    /// Start a new run in a --run directory that exists, holds no run and is not empty (such
    /// a directory is refused otherwise: it is probably not meant for a run).
    #[arg(long)]
    force: bool,
}

/// A run's configuration and start as its flags and its storage give them, checked before
/// anything is written ([`RunFlags::prepare`]).
pub(crate) struct Prepared {
    /// The effective configuration.
    pub cfg: TrainConfig,
    /// Whether the run exists (has a saved config).
    pub resumed: bool,
    /// This invocation's limits.
    pub limits: InvocationLimits,
    /// The game.
    pub spec: GameSpec,
    /// The device of the networks.
    pub device: alphazero_nn::Device,
    /// The `--init`, `--init-trunk` or `--init-grow` network, when given.
    pub init: Option<InitNetwork>,
}

impl RunFlags {
    /// Checks the flags and resolves the run's configuration from its sources: the saved
    /// `config.toml` text of a run that exists (`saved`), `--config`, the flags and `--set`
    /// (the precedence is the library's); `run` names the run in messages.
    pub(crate) fn prepare(
        &self,
        run: &str,
        saved: Option<String>,
        observer: &dyn Observer,
    ) -> Result<Prepared> {
        if self.iterations == Some(0) {
            bail!("--iterations must be >= 1 (got 0)");
        }
        if let Some(m) = self.minutes {
            if !(m.is_finite() && m > 0.0) {
                bail!("--minutes must be a number > 0 (got {m})");
            }
        }
        // Read for a resumed run too: the library checks that it gives the run's settings.
        let file = match &self.config {
            Some(p) => Some((
                p.display().to_string(),
                std::fs::read_to_string(p)
                    .with_context(|| format!("reading config {}", p.display()))?,
            )),
            None => None,
        };
        let sources = ConfigSources {
            run,
            saved: saved.as_deref(),
            file: file.as_ref().map(|(n, t)| (n.as_str(), t.as_str())),
            game: self.game.as_deref(),
            size: self.size,
            rule: self.rule.as_deref(),
            overrides: &self.overrides,
        };
        let (mut cfg, resumed) = sources.resolve()?;
        let user_model = sources.sets_model()?;
        if cfg.run.iterations == 0 && cfg.run.time_budget_minutes <= 0.0 {
            bail!(
                "run.iterations = 0 needs run.time_budget_minutes > 0 (the run would never stop)"
            );
        }
        let spec = cfg.game;
        let device = crate::engine::device(&self.device)?;
        let init = match (&self.init, &self.init_trunk, &self.init_grow) {
            (Some(path), _, _) => Some(with_game!(&spec, G, gcfg => InitNetwork::from_file::<G>(
                path, gcfg, &mut cfg, resumed, user_model, &device, observer
            )?)),
            (None, Some(path), _) => Some(with_game!(&spec, G, gcfg =>
                InitNetwork::trunk_from_file::<G>(path, gcfg, &cfg, &device)?)),
            (None, None, Some(path)) => Some(with_game!(&spec, G, gcfg =>
                InitNetwork::grown_from_file::<G>(path, gcfg, &cfg, &device)?)),
            (None, None, None) => None,
        };
        Ok(Prepared {
            cfg,
            resumed,
            limits: InvocationLimits {
                iterations: self.iterations,
                minutes: self.minutes,
            },
            spec,
            device,
            init,
        })
    }

    /// Whether `--dry-run` was given.
    pub(crate) fn dry_run(&self) -> bool {
        self.dry_run
    }
}

/// Runs `alphazero train`.
// The macro instantiates this for each game; some game configs are `Copy`.
#[allow(clippy::clone_on_copy)]
pub fn run(args: &TrainArgs) -> Result<()> {
    // Validate everything before touching the disk.
    let saved = alphazero_train::local::saved_config(&args.run)?;
    let bars = Bars::new(args.flags.quiet);
    let run_name = args.run.display().to_string();
    let run = args.flags.prepare(&run_name, saved, &bars)?;
    let (cfg, spec, device) = (&run.cfg, &run.spec, run.device);
    bars.explain_lines(cfg, run.resumed, false);
    if !run.resumed && !args.force {
        alphazero_train::local::check_new_run_directory(&args.run)?;
    }
    if args.flags.dry_run {
        print!("{}", cfg.to_toml_string()?);
        return Ok(());
    }
    // The lock comes first: a second trainer on this directory stops here, having written
    // nothing.
    let storage = alphazero_train::local::open_run(&args.run)?;
    alphazero_train::recovery::refuse_state_without_config(&storage)?;
    // A run that lost its state or its trainer checkpoint is refused before anything is
    // written (its saved config included).
    alphazero_train::recovery::check_resumable(&storage)?;
    // Checked before anything is written: a run's networks are never replaced.
    let init = match run.init {
        Some(i) if i.needed(&storage, &run_name, &bars)? => Some(i),
        _ => None,
    };
    alphazero_train::sources::save_config(&storage, cfg)?;
    eprintln!(
        "{} run {run_name} ({}), device {}",
        if run.resumed { "resuming" } else { "starting" },
        cfg.game.name(),
        crate::engine::device_words(&device)
    );
    install_ctrl_c(ITERATION_CTRL_C);
    let summary = with_game!(&spec, G, gcfg => Pipeline::<G>::new(cfg.clone(), gcfg.clone(), &storage, device)?
        .with_solver_slice(|| solver_slice(cfg, &bars))
        .run(init.as_ref(), &run.limits, &bars)?);
    finish(
        &summary,
        &storage
            .path_of(&summary.champion_key)?
            .display()
            .to_string(),
        Some((spec, &args.run)),
    )
}
