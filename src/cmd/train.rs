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
//! Warm start: `--init FILE` starts a run's networks from a checkpoint (see
//! [`alphazero_train::InitNetwork`]).
use alphazero_arena::c4_eval::SolverSlice;
use alphazero_registry::with_game;
use alphazero_registry::GameSpec;
use alphazero_train::sources::ConfigSources;
use alphazero_train::storage::{LocalStorage, Storage, StorageError};
use alphazero_train::{
    InitNetwork, IterationReport, Limits, Observer, Pipeline, RunSummary, Stage, TrainConfig,
    CONFIG_KEY,
};
use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

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
    /// Device: `cpu` (burn Flex) or, in builds with the `cuda` feature, `cuda[:N]`.
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
    pub limits: Limits,
    /// The game.
    pub spec: GameSpec,
    /// The device of the networks.
    pub device: alphazero_nn::Device,
    /// The `--init` network, when given.
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
        let file = match &self.config {
            Some(p) if saved.is_none() => Some((
                p.display().to_string(),
                std::fs::read_to_string(p)
                    .with_context(|| format!("reading config {}", p.display()))?,
            )),
            Some(p) => Some((p.display().to_string(), String::new())),
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
        let spec = game_spec(&cfg)?;
        let device = crate::engine::device(&self.device)?;
        let init = match &self.init {
            Some(path) => Some(with_game!(&spec, G, gcfg => InitNetwork::from_file::<G>(
                path, gcfg, &mut cfg, resumed, user_model, &device, observer
            )?)),
            None => None,
        };
        Ok(Prepared {
            cfg,
            resumed,
            limits: Limits {
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

pub(crate) fn game_spec(cfg: &TrainConfig) -> Result<GameSpec> {
    let g = &cfg.game;
    let size = match g.size.as_str() {
        "" => None,
        s => Some(
            s.parse::<u8>()
                .with_context(|| format!("game.size {s:?} is not a board size"))?,
        ),
    };
    let rule = Some(g.rule.as_str()).filter(|r| !r.is_empty());
    Ok(GameSpec::from_parts(&g.name, size, rule)?)
}

/// Runs `alphazero train`.
// The macro instantiates this for each game; some game configs are `Copy`.
#[allow(clippy::clone_on_copy)]
pub fn run(args: &TrainArgs) -> Result<()> {
    // Validate everything before touching the disk.
    let saved_path = args.run.join(CONFIG_KEY);
    let saved = match saved_path.is_file() {
        true => Some(
            std::fs::read_to_string(&saved_path)
                .with_context(|| format!("reading the run's saved {}", saved_path.display()))?,
        ),
        false => None,
    };
    let bars = Bars::new(args.flags.quiet);
    let run_name = args.run.display().to_string();
    let run = args.flags.prepare(&run_name, saved, &bars)?;
    let (cfg, spec, device) = (&run.cfg, &run.spec, run.device);
    if !run.resumed && !args.force {
        alphazero_train::local::check_new_run_directory(&args.run)?;
    }
    if args.flags.dry_run {
        print!("{}", cfg.to_toml_string()?);
        return Ok(());
    }
    // The lock comes first: a second trainer on this directory stops here, having written
    // nothing.
    let storage = match LocalStorage::open_exclusive(&args.run) {
        Ok(s) => s,
        Err(e @ StorageError::Locked { .. }) => bail!("{e}; wait for it to finish or stop it"),
        Err(StorageError::Open { root, source }) => {
            bail!("cannot open run directory {}: {source}", root.display())
        }
        Err(e) => {
            return Err(e).with_context(|| format!("opening run directory {}", args.run.display()))
        }
    };
    // Checked before anything is written: a run's networks are never replaced.
    let init = match run.init {
        Some(i) if i.needed(&storage, &run_name, &bars)? => Some(i),
        _ => None,
    };
    storage.put(CONFIG_KEY, cfg.to_toml_string()?.as_bytes())?;
    eprintln!(
        "{} run {run_name} ({}), device {}",
        if run.resumed { "resuming" } else { "starting" },
        cfg.game.name,
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
    )
}

/// The last lines of a run's invocation (`train`, `learner`): how it stopped, what the run
/// holds, where its champion is; exits with the shell's status for an interrupted command
/// (130) when Ctrl-C stopped it.
pub(crate) fn finish(summary: &RunSummary, champion: &str) -> Result<()> {
    if summary.stopped_while_waiting {
        eprintln!(
            "stopped by Ctrl-C while waiting for the games of iteration {} (not started; {} \
             saved); run the command again to go on",
            summary.iterations,
            super::count(summary.iterations as usize, "iteration"),
        );
    } else if summary.stopped_by_request {
        eprintln!(
            "stopped by Ctrl-C after iteration {} (saved); run the command again to go on",
            summary.iterations
        );
    }
    eprintln!(
        "done: {}, {}, champion {} at {champion}",
        super::count(summary.iterations as usize, "iteration"),
        super::count(summary.total_games as usize, "game"),
        summary.champion_id,
    );
    if ctrl_c_count() > 0 {
        // Stopped cleanly by Ctrl-C: everything is committed; the shell's status for an
        // interrupted command.
        std::process::exit(130);
    }
    Ok(())
}

/// The Connect Four solver's test slice of `eval.solver_every`, from the test data folder
/// (`None` when it is 0, for another game, or when the data cannot be found or read).
pub(crate) fn solver_slice(cfg: &TrainConfig, observer: &dyn Observer) -> Option<SolverSlice> {
    if cfg.eval.solver_every == 0 || cfg.game.name != "connect4" {
        return None;
    }
    match super::eval::testdata_dir(None) {
        Ok(dir) => alphazero_train::solver_slice(&dir, &cfg.eval, observer),
        Err(err) => {
            observer.warning(&format!(
                "no solver agreement measured (eval.solver_every): {err:#}"
            ));
            None
        }
    }
}

/// Ctrl-C presses seen by [`install_ctrl_c`]'s handler.
static CTRL_C: AtomicUsize = AtomicUsize::new(0);

/// How many times Ctrl-C (SIGINT) was pressed.
pub(crate) fn ctrl_c_count() -> usize {
    CTRL_C.load(Ordering::SeqCst)
}

/// What Ctrl-C does in `train` and `learner`: the two lines of [`install_ctrl_c`].
pub(crate) const ITERATION_CTRL_C: [&str; 2] = [
    "Ctrl-C: finishing the iteration under way and stopping after it is saved; press Ctrl-C \
     again to stop at once (that iteration is then lost and done again on resume)",
    "Ctrl-C again: stopping now; the run resumes from its last saved iteration",
];

/// The first Ctrl-C or SIGTERM lets the work under way finish (an iteration is committed,
/// an actor's batch published), then the command stops; the second stops the process at
/// once (a run resumes from its last committed iteration, as after any crash). `lines` are
/// what each says.
pub(crate) fn install_ctrl_c(lines: [&'static str; 2]) {
    let handler = move || {
        if CTRL_C.fetch_add(1, Ordering::SeqCst) == 0 {
            eprintln!("\n{}", lines[0]);
        } else {
            eprintln!("\n{}", lines[1]);
            std::process::exit(130);
        }
    };
    if let Err(e) = ctrlc::set_handler(handler) {
        eprintln!("warning: Ctrl-C cannot be caught ({e}); it stops the run at once");
    }
}

/// The command's [`Observer`]: a progress bar per stage (hidden with `--quiet`), warnings and
/// information on stderr, one summary line per iteration.
pub(crate) struct Bars {
    quiet: bool,
    bar: Mutex<Option<ProgressBar>>,
}

impl Bars {
    pub(crate) fn new(quiet: bool) -> Self {
        Bars {
            quiet,
            bar: Mutex::new(None),
        }
    }

    fn with_bar(&self, f: impl FnOnce(&ProgressBar)) {
        if let Some(pb) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            f(pb);
        }
    }
}

impl Observer for Bars {
    fn stage_started(&self, stage: Stage, iteration: u32, total: u64) {
        let pb = ProgressBar::new(total);
        if self.quiet {
            pb.set_draw_target(ProgressDrawTarget::hidden());
        }
        pb.set_style(
            ProgressStyle::with_template("{msg:>22} [{bar:30}] {pos}/{len} {per_sec} eta {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        pb.set_message(match stage {
            Stage::SelfPlay => format!("iter {iteration} self-play"),
            Stage::Learn => format!("iter {iteration} training"),
            Stage::Gate => "gating".to_string(),
        });
        *self.bar.lock().unwrap_or_else(|e| e.into_inner()) = Some(pb);
    }

    fn advanced(&self, _stage: Stage, n: u64) {
        self.with_bar(|pb| pb.inc(n));
    }

    fn stage_finished(&self, _stage: Stage) {
        self.with_bar(ProgressBar::finish_and_clear);
    }

    fn info(&self, line: &str) {
        eprintln!("{line}");
    }

    fn warning(&self, line: &str) {
        eprintln!("warning: {line}");
    }

    fn stop_requested(&self) -> bool {
        ctrl_c_count() > 0
    }

    fn iteration_done(&self, report: &IterationReport) {
        eprintln!("{}", report.summary());
    }
}
