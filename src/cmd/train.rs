//! `alphazero train`: the AlphaZero loop — self-play → replay buffer → training → gating —
//! crash-safe and resumable.
//!
//! One iteration:
//! 1. **Self-play** with the champion: many games at once, all their leaves batched through the
//!    network, one worker per core
//!    ([`alphazero_selfplay::play_selfplay_games_parallel`]); the games are written as one
//!    record file `records/<id>.azr`.
//! 2. **Replay buffer**: the new positions join a ring of the most recent ones; batches mix
//!    recent and uniform samples, each with a random board symmetry.
//! 3. **Training**: `steps_for(new positions)` optimizer steps; the trainer state (weights,
//!    optimizer, step) is saved as `networks/latest.azc`.
//! 4. **Gating**: the candidate plays the champion (colours swapped, random openings, no noise);
//!    it is promoted at a score ≥ `gating.win_rate` or by SPRT, and saved as
//!    `networks/champion-<id>.azc`. Champions are never deleted.
//!
//! Durability: every file goes through [`alphazero_train::Storage`] (temp file, fsync,
//! rename). The run state (`state/run.json`) is written last in an iteration: it is the
//! commit point. A run killed at any moment resumes exactly from the last committed
//! iteration: a record file the state does not know of (written by the interrupted
//! iteration) is set aside as `records/<id>.azr.orphan` and that iteration's self-play is
//! done again; the trainer checkpoint of the interrupted iteration
//! (`state/trainer-pending.azc`) is dropped; metrics lines of uncommitted iterations are
//! removed. So the counters in the state always match the record files and the replay
//! buffer. A record file that cannot be read is set aside as `records/<id>.azr.corrupt` with
//! a warning, and the run goes on without its games.
//!
//! Only one process trains a run directory at a time: `train` holds an exclusive lock on
//! `RUN/lock` (with its pid inside) for its whole life; the OS drops it when the process
//! ends, however it ends.
//!
//! Warm start: `--init FILE` starts a run's networks from a checkpoint (a shipped
//! `models/*.azc`, or any champion, snapshot or `latest.azc` of another run) instead of
//! random weights. The file must be a network of the run's game whose input planes, board
//! and action count fit it; a different network size is refused, except that a new run
//! with no `model.*` setting (no `--set model.…`, no `[model]` in `--config`) takes the
//! file's size. Only the weights are taken (with the batch-norm statistics): the optimizer
//! and its step count start afresh, and the replay buffer fills by self-play. The file
//! becomes `networks/champion-0000.azc` and `networks/latest.azc`, and the run state records
//! it (`init`: absolute path, fingerprint of its bytes, its step, the game it was trained
//! for). A run that already has committed networks refuses `--init` with any other file
//! (its champion is never replaced silently); the file it started from (same fingerprint,
//! any path) just resumes it.
use crate::games::{GameArgs, GameName, GameSpec};
use crate::with_game;
use alphazero_arena::c4_eval::{C4EvalConfig, SolverSlice, SLICE_SETS};
use alphazero_arena::rating;
use alphazero_connect4::Connect4;
use alphazero_mcts::{CachedEvaluator, EvalRequest, Evaluator};
use alphazero_nn::{
    kl_divergence, load_checkpoint, save_checkpoint, save_model, Batch, Encode, GameTag,
    LrSchedule as NnLrSchedule, NetworkEvaluator, OptimizerKind, PolicyValueNet, Trainer,
};
use alphazero_selfplay::{
    play_match, play_selfplay_games_parallel, search_config, worker_count, MatchConfig,
    MatchOutcome, SelfPlayConfig,
};
use alphazero_train::config::{Optimizer, TrainConfig};
use alphazero_train::metrics::{GatingMetrics, IterationMetrics, MetricsLog, SolverMetrics};
use alphazero_train::record::{read_records, write_records, GameRecord, RecordFile, RecordHeader};
use alphazero_train::replay::{ReplayBuffer, SampleOptions};
use alphazero_train::state::{file_fingerprint, ChampionInfo, InitInfo, RunState};
use alphazero_train::storage::{champion_key, record_key, LocalStorage, Storage, StorageError};
use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Arguments of `alphazero train`.
#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// Game to learn (required for a new run; a resumed run reads it from its config).
    #[arg(long, value_enum)]
    game: Option<GameName>,
    /// Gomoku board size (5–20); default 15.
    #[arg(long)]
    size: Option<u8>,
    /// Gomoku rule: freestyle, standard or renju.
    #[arg(long)]
    rule: Option<String>,
    /// Run directory: created if new, resumed if it holds a run.
    #[arg(long)]
    run: PathBuf,
    /// TOML config file (keys not given take the game's defaults).
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
    device: String,
    /// No progress bars (one summary line per iteration only).
    #[arg(long)]
    quiet: bool,
    /// Validate the configuration, print the effective config and exit without writing anything.
    #[arg(long)]
    dry_run: bool,
    /// Start a new run in a --run directory that exists, holds no run and is not empty (such
    /// a directory is refused otherwise: it is probably not meant for a run).
    #[arg(long)]
    force: bool,
    /// Start the run's networks from this checkpoint (e.g. a shipped `models/*.azc`) instead
    /// of random weights; the replay buffer fills by self-play. It must be a network of the
    /// run's game and board; a new run without `model.*` settings takes its network size. A
    /// run that already has networks refuses any other file (giving the file it started from
    /// again resumes it).
    #[arg(long, value_name = "FILE")]
    init: Option<PathBuf>,
}

const CONFIG_KEY: &str = "config.toml";
const LATEST_KEY: &str = "networks/latest.azc";
/// The trainer checkpoint of an iteration that is not committed yet; it becomes
/// [`LATEST_KEY`] right after the run state that names its step is saved.
const PENDING_KEY: &str = "state/trainer-pending.azc";

/// Rejects `--size` / `--rule` for a game other than Gomoku.
fn check_gomoku_flags(args: &TrainArgs, game: &str) -> Result<()> {
    if game != "gomoku" && (args.size.is_some() || args.rule.is_some()) {
        bail!("--size and --rule apply to gomoku only, not {game}");
    }
    Ok(())
}

/// The `game.name` values given by `--set` overrides, in order.
fn override_games(args: &TrainArgs) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for o in &args.overrides {
        if let Some(g) = alphazero_train::config::game_name_in_override(o)? {
            out.push(g);
        }
    }
    Ok(out)
}

/// Builds the effective config: a resumed run's saved config, or the given file / defaults,
/// with the overrides applied.
fn effective_config(args: &TrainArgs) -> Result<(TrainConfig, bool)> {
    let (mut cfg, resumed) = effective_config_raw(args)?;
    cfg.game.rule = canonical_rule(&cfg.game.rule)?;
    Ok((cfg, resumed))
}

/// The rule's canonical lower-case name (`Renju` → `renju`); empty stays empty.
fn canonical_rule(rule: &str) -> Result<String> {
    if rule.is_empty() {
        return Ok(String::new());
    }
    let r: alphazero_gomoku::Rule = rule
        .parse()
        .with_context(|| format!("game.rule {rule:?}"))?;
    Ok(r.name().to_string())
}

/// Rejects `--size` / `--rule` that disagree with a `--set game.size=` / `game.rule=`.
fn check_flags_against_overrides(args: &TrainArgs) -> Result<()> {
    for o in &args.overrides {
        let (key, value) = alphazero_train::config::override_key_value(o)?;
        match (key.as_str(), args.size, &args.rule) {
            ("game.size", Some(size), _) if value.trim() != size.to_string() => {
                bail!("--size {size} and --set game.size={value} disagree; give the size once")
            }
            ("game.rule", _, Some(rule)) if !value.trim().eq_ignore_ascii_case(rule.trim()) => {
                bail!("--rule {rule} and --set game.rule={value} disagree; give the rule once")
            }
            _ => {}
        }
    }
    Ok(())
}

fn effective_config_raw(args: &TrainArgs) -> Result<(TrainConfig, bool)> {
    check_flags_against_overrides(args)?;
    let mut overrides = args.overrides.clone();
    if let Some(s) = args.size {
        overrides.push(format!("game.size={s}"));
    }
    if let Some(r) = &args.rule {
        overrides.push(format!("game.rule=\"{r}\""));
    }
    let set_games = override_games(args)?;
    if let Some(g) = args.game {
        if let Some(other) = set_games.iter().find(|s| s.as_str() != g.as_str()) {
            bail!(
                "--game {} and --set game.name={other} disagree; give the game once",
                g.as_str()
            );
        }
    }
    let saved_path = args.run.join(CONFIG_KEY);
    if saved_path.is_file() {
        let text = std::fs::read_to_string(&saved_path)
            .with_context(|| format!("reading the run's saved {}", saved_path.display()))?;
        let old =
            TrainConfig::parse(&text, &[] as &[String]).context("the run's saved config.toml")?;
        if let Some(g) = args.game {
            if g.as_str() != old.game.name {
                bail!(
                    "run directory {} holds a {} run; --game {} does not match",
                    args.run.display(),
                    old.game.name,
                    g.as_str()
                );
            }
        }
        if args.config.is_some() {
            bail!("--config cannot change a run that already exists; use --set for overrides");
        }
        check_gomoku_flags(args, &old.game.name)?;
        if let Some(g) = set_games.iter().find(|s| **s != old.game.name) {
            bail!(
                "run directory {} holds a {} run; --set game.name={g} does not match",
                args.run.display(),
                old.game.name
            );
        }
        let mut old = old;
        old.game.rule = canonical_rule(&old.game.rule)?;
        let mut new = old.with_overrides(&overrides)?;
        new.game.rule = canonical_rule(&new.game.rule)?;
        if new.game != old.game {
            bail!(
                "the game of an existing run cannot change: it is {} (size {:?}, rule {:?}), \
                 the options give size {:?}, rule {:?}",
                old.game.name,
                old.game.size,
                old.game.rule,
                new.game.size,
                new.game.rule
            );
        }
        if new.model != old.model {
            bail!("the model shape of an existing run cannot change");
        }
        return Ok((new, true));
    }
    let text = match &args.config {
        Some(p) => {
            std::fs::read_to_string(p).with_context(|| format!("reading config {}", p.display()))?
        }
        None => String::new(),
    };
    let file_game = alphazero_train::config::game_name_in(&text).with_context(|| {
        format!(
            "config {}",
            args.config.as_deref().unwrap_or(Path::new("")).display()
        )
    })?;
    if let Some(path) = &args.config {
        let file_size = alphazero_train::config::game_field_in(&text, "size")?;
        if let (Some(size), Some(f)) = (args.size, &file_size) {
            if f.trim() != size.to_string() {
                bail!(
                    "--size {size} and game.size = {f} in {} disagree; give the size once",
                    path.display()
                );
            }
        }
        let file_rule = alphazero_train::config::game_field_in(&text, "rule")?;
        if let (Some(rule), Some(f)) = (&args.rule, &file_rule) {
            if !f.trim().eq_ignore_ascii_case(rule.trim()) {
                bail!(
                    "--rule {rule} and game.rule = {f:?} in {} disagree; give the rule once",
                    path.display()
                );
            }
        }
    }
    if let (Some(g), Some(f), Some(path)) = (args.game, &file_game, &args.config) {
        if g.as_str() != f {
            bail!(
                "--game {} and game.name = {f:?} in {} disagree; give the game once",
                g.as_str(),
                path.display()
            );
        }
    }
    // The game the run will have: the last --set game.name, else --game, else the file's.
    let game = set_games
        .last()
        .cloned()
        .or_else(|| args.game.map(|g| g.as_str().to_string()))
        .or(file_game);
    let Some(game) = game else {
        bail!(
            "--game is required for a new run: {} holds no run yet; give --game \
             gomoku|xiangqi|connect4 (or a --config that sets game.name)",
            args.run.display()
        );
    };
    check_gomoku_flags(args, &game)?;
    let mut pre = Vec::new();
    if let Some(g) = args.game {
        pre.push(format!("game.name={}", g.as_str()));
    }
    pre.extend(overrides);
    let cfg = TrainConfig::parse(&text, &pre)?;
    Ok((cfg, false))
}

/// Whether the user set a `model.*` key: by `--set model.…` or in the `--config` file.
fn model_set_by_user(args: &TrainArgs) -> Result<bool> {
    for o in &args.overrides {
        let (key, _) = alphazero_train::config::override_key_value(o)?;
        if key == "model" || key.starts_with("model.") {
            return Ok(true);
        }
    }
    match &args.config {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("reading config {}", p.display()))?;
            Ok(alphazero_train::config::sets_section_in(&text, "model")
                .with_context(|| format!("config {}", p.display()))?)
        }
        None => Ok(false),
    }
}

/// A checked `--init` network file.
struct InitFile {
    /// The file as given.
    path: PathBuf,
    /// What the run state records of it.
    info: InitInfo,
}

/// Checks `--init FILE` against the run before anything is written: a network of game `G`
/// whose input planes, board and action count fit `game_config`, and whose network size is
/// the run's. A new run (`resumed` false) whose user did not set `model.*` takes the file's
/// size into `cfg.model` (said on stderr); otherwise a different size is an error naming
/// both. A file trained under other rules of the same shapes is used with a warning.
fn check_init<G: Encode>(
    path: &Path,
    game_config: &G::Config,
    cfg: &mut TrainConfig,
    resumed: bool,
    user_model: bool,
    device: &alphazero_nn::Device,
) -> Result<InitFile> {
    let shown = path.display();
    let bytes = std::fs::read(path).with_context(|| format!("--init {shown}: cannot read it"))?;
    let run_game = crate::engine::config_words(G::NAME, &GameTag::of::<G>(game_config).config);
    let ck = load_checkpoint(path, G::NAME, device)
        .with_context(|| format!("--init {shown} is no network for this {run_game} run"))?;
    let m = &ck.header.model;
    let trained_for = crate::engine::config_words(&ck.header.game.name, &ck.header.game.config);
    let pos = G::new(game_config);
    let (h, w) = pos.board_shape();
    let want = (G::num_planes(game_config), h, w, pos.num_actions());
    let have = (m.input_planes, m.board_height, m.board_width, m.num_actions);
    if want != have {
        let hint = if G::NAME == "gomoku" && !resumed && m.board_height == m.board_width {
            format!("; to train on its board, give --size {}", m.board_height)
        } else {
            String::new()
        };
        bail!(
            "--init {shown}: the network was trained for {trained_for} ({} planes {}×{}, {} \
             actions) and does not fit this run's {run_game} ({} planes {}×{}, {} actions){hint}",
            have.0,
            have.1,
            have.2,
            have.3,
            want.0,
            want.1,
            want.2,
            want.3
        );
    }
    let file_size = (m.residual_blocks, m.channels, m.value_hidden);
    let run_size = (
        cfg.model.blocks as usize,
        cfg.model.channels as usize,
        cfg.model.value_hidden as usize,
    );
    if file_size != run_size {
        let words = |(b, c, v): (usize, usize, usize)| format!("{b}x{c} (value head {v})");
        if resumed || user_model {
            let how = if resumed {
                "the model of an existing run cannot change".to_string()
            } else {
                format!(
                    "drop the model.* settings to take the file's size, or set \
                     model.blocks={}, model.channels={}, model.value_hidden={}",
                    file_size.0, file_size.1, file_size.2
                )
            };
            bail!(
                "--init {shown}: the network is {}, the run's model is {}; {how}",
                words(file_size),
                words(run_size)
            );
        }
        let as_u32 = |v: usize, key: &str| {
            u32::try_from(v).with_context(|| format!("--init {shown}: {key} {v} is too large"))
        };
        cfg.model.blocks = as_u32(file_size.0, "blocks")?;
        cfg.model.channels = as_u32(file_size.1, "channels")?;
        cfg.model.value_hidden = as_u32(file_size.2, "value_hidden")?;
        cfg.validate()
            .with_context(|| format!("--init {shown}: its network size"))?;
        eprintln!(
            "model {} taken from --init {shown} (no model.* setting given)",
            words(file_size)
        );
    }
    if trained_for != run_game {
        eprintln!("warning: --init {shown} was trained for {trained_for}; this run is {run_game}");
    }
    let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    Ok(InitFile {
        path: path.to_path_buf(),
        info: InitInfo {
            path: absolute.display().to_string(),
            fingerprint: file_fingerprint(&bytes),
            step: ck.header.step,
            trained_for,
        },
    })
}

/// Whether the run's networks are to be made from `init`: yes for a run without a committed
/// state (nothing of it counts yet), no for a run started from the same file (same
/// fingerprint), which resumes; an error for any other run that already has networks.
fn init_needed(storage: &LocalStorage, run: &Path, init: &InitFile) -> Result<bool> {
    let Some(state) = RunState::load(storage)? else {
        return Ok(true);
    };
    let given = init.path.display();
    match &state.init {
        Some(i) if i.fingerprint == init.info.fingerprint => {
            eprintln!(
                "--init {given}: the run was started from this network ({}); resuming it",
                i.path
            );
            Ok(false)
        }
        Some(i) => bail!(
            "run {} was started from {} ({}); --init {given} is another network ({}), and a \
             run's networks are never replaced: drop --init to resume the run, or give a new \
             --run directory",
            run.display(),
            i.path,
            i.fingerprint,
            init.info.fingerprint
        ),
        None => bail!(
            "run {} already has networks (iteration {}, champion {}) that did not come from \
             --init; --init {given} would replace them: drop --init to resume the run, or give \
             a new --run directory",
            run.display(),
            state.iteration,
            state.champion_id
        ),
    }
}

/// The fraction of the run done before `iteration` (0-based) after `elapsed_s` seconds of
/// training: by `run.iterations` when set, else by `run.time_budget_minutes`.
fn run_progress(cfg: &TrainConfig, iteration: u32, elapsed_s: f64) -> Option<f64> {
    if cfg.run.iterations > 0 {
        Some(f64::from(iteration) / f64::from(cfg.run.iterations))
    } else if cfg.run.time_budget_minutes > 0.0 {
        Some(elapsed_s / (cfg.run.time_budget_minutes * 60.0))
    } else {
        None
    }
}

pub(crate) fn game_spec(cfg: &TrainConfig) -> Result<GameSpec> {
    let name = match cfg.game.name.as_str() {
        "gomoku" => GameName::Gomoku,
        "xiangqi" => GameName::Xiangqi,
        "connect4" => GameName::Connect4,
        other => bail!("unknown game {other:?}"),
    };
    let size = if cfg.game.size.is_empty() {
        15
    } else {
        cfg.game
            .size
            .parse::<u8>()
            .with_context(|| format!("game.size {:?} is not a board size", cfg.game.size))?
    };
    let rule = if cfg.game.rule.is_empty() {
        "freestyle".to_string()
    } else {
        cfg.game.rule.clone()
    };
    GameArgs {
        game: name,
        size: (name == GameName::Gomoku).then_some(size),
        rule: (name == GameName::Gomoku).then_some(rule),
    }
    .spec()
}

/// Runs `alphazero train`.
// The macro instantiates this for each game; some game configs are `Copy`.
#[allow(clippy::clone_on_copy)]
pub fn run(args: &TrainArgs) -> Result<()> {
    // Validate everything before touching the disk.
    if args.iterations == Some(0) {
        bail!("--iterations must be >= 1 (got 0)");
    }
    if let Some(m) = args.minutes {
        if !(m.is_finite() && m > 0.0) {
            bail!("--minutes must be a number > 0 (got {m})");
        }
    }
    let (mut cfg, resumed) = effective_config(args)?;
    if cfg.run.iterations == 0 && cfg.run.time_budget_minutes <= 0.0 {
        bail!("run.iterations = 0 needs run.time_budget_minutes > 0 (the run would never stop)");
    }
    let spec = game_spec(&cfg)?;
    let device = crate::engine::device(&args.device)?;
    let init = match &args.init {
        Some(path) => {
            let user_model = model_set_by_user(args)?;
            Some(with_game!(&spec, G, gcfg => check_init::<G>(
                path, gcfg, &mut cfg, resumed, user_model, &device
            )?))
        }
        None => None,
    };
    if !resumed && !args.force {
        check_new_run_directory(&args.run)?;
    }
    if args.dry_run {
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
    let init = match init {
        Some(i) if init_needed(&storage, &args.run, &i)? => Some(i),
        _ => None,
    };
    storage.put(CONFIG_KEY, cfg.to_toml_string()?.as_bytes())?;
    eprintln!(
        "{} run {} ({}), device {}",
        if resumed { "resuming" } else { "starting" },
        args.run.display(),
        cfg.game.name,
        crate::engine::device_words(&device)
    );
    install_ctrl_c();
    with_game!(&spec, G, gcfg => Trainer_::<G>::new(cfg.clone(), gcfg.clone(), storage, device, args, init)?.run())?;
    if ctrl_c_count() > 0 {
        // Stopped cleanly by Ctrl-C: everything is committed; the shell's status for an
        // interrupted command.
        std::process::exit(130);
    }
    Ok(())
}

/// Ctrl-C presses seen by [`install_ctrl_c`]'s handler.
static CTRL_C: AtomicUsize = AtomicUsize::new(0);

/// How many times Ctrl-C (SIGINT) was pressed.
fn ctrl_c_count() -> usize {
    CTRL_C.load(Ordering::SeqCst)
}

/// The first Ctrl-C lets the iteration under way finish and commit, then the run stops; the
/// second stops the process at once (the run resumes from its last committed iteration, as
/// after any crash).
fn install_ctrl_c() {
    let handler = || {
        if CTRL_C.fetch_add(1, Ordering::SeqCst) == 0 {
            eprintln!(
                "\nCtrl-C: finishing the iteration under way and stopping after it is saved; \
                 press Ctrl-C again to stop at once (that iteration is then lost and done \
                 again on resume)"
            );
        } else {
            eprintln!(
                "\nCtrl-C again: stopping now; the run resumes from its last saved iteration"
            );
            std::process::exit(130);
        }
    };
    if let Err(e) = ctrlc::set_handler(handler) {
        eprintln!("warning: Ctrl-C cannot be caught ({e}); it stops the run at once");
    }
}

/// Refuses to start a new run in `dir` when it exists and holds anything but a run's lock
/// file: a directory with other files is probably not meant for a run (`--force` starts one
/// there anyway). A missing or empty directory is fine.
fn check_new_run_directory(dir: &Path) -> Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        // Not a directory or unreadable: opening the run says why.
        Err(_) => return Ok(()),
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != alphazero_train::storage::LOCK_FILE)
        .collect();
    if names.is_empty() {
        return Ok(());
    }
    names.sort();
    let shown: Vec<&str> = names.iter().take(5).map(String::as_str).collect();
    bail!(
        "--run {} exists and holds no training run (no {CONFIG_KEY}) but {} other entr{} ({}{}); \
         give a new or empty directory, or add --force to start a run there anyway",
        dir.display(),
        names.len(),
        if names.len() == 1 { "y" } else { "ies" },
        shown.join(", "),
        if names.len() > shown.len() {
            ", …"
        } else {
            ""
        }
    )
}

#[allow(non_camel_case_types)]
struct Trainer_<'a, G: Encode> {
    cfg: TrainConfig,
    game_config: G::Config,
    storage: LocalStorage,
    device: alphazero_nn::Device,
    args: &'a TrainArgs,
    tag: GameTag,
    model_config: alphazero_nn::ModelConfig,
    /// The `--init` network to start the run's networks from (only for a run without
    /// committed networks).
    init: Option<InitFile>,
}

fn nn_train_config(cfg: &TrainConfig, lr: f64) -> alphazero_nn::TrainConfig {
    alphazero_nn::TrainConfig {
        optimizer: match cfg.train.optimizer {
            Optimizer::Adamw => OptimizerKind::adamw(),
            Optimizer::Sgd => OptimizerKind::Sgd {
                momentum: cfg.train.momentum,
                nesterov: false,
            },
        },
        learning_rate: lr,
        lr_schedule: NnLrSchedule::Constant,
        weight_decay: cfg.train.weight_decay as f32,
        grad_clip_norm: (cfg.train.grad_clip > 0.0).then_some(cfg.train.grad_clip as f32),
        value_loss_weight: 1.0,
    }
}

fn mix(a: u64, b: u64) -> u64 {
    let mut z = a ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl<'a, G: Encode> Trainer_<'a, G> {
    fn new(
        cfg: TrainConfig,
        game_config: G::Config,
        storage: LocalStorage,
        device: alphazero_nn::Device,
        args: &'a TrainArgs,
        init: Option<InitFile>,
    ) -> Result<Self> {
        let pos = G::new(&game_config);
        let (h, w) = pos.board_shape();
        let model_config =
            alphazero_nn::ModelConfig::new(G::num_planes(&game_config), h, w, pos.num_actions())
                .with_residual_blocks(cfg.model.blocks as usize)
                .with_channels(cfg.model.channels as usize)
                .with_value_hidden(cfg.model.value_hidden as usize);
        model_config.validate()?;
        Ok(Trainer_ {
            tag: GameTag::of::<G>(&game_config),
            cfg,
            game_config,
            storage,
            device,
            args,
            model_config,
            init,
        })
    }

    /// A new run's first networks: `t` saved as champion 0 and as the trainer's latest state.
    fn first_networks(&self, t: Trainer) -> Result<Trainer> {
        save_model(
            &self.path(&champion_key(0))?,
            &self.tag,
            &t.inference_model(),
            &self.model_config,
            0,
        )?;
        save_checkpoint(&self.path(LATEST_KEY)?, &self.tag, &t)?;
        Ok(t)
    }

    fn path(&self, key: &str) -> Result<PathBuf> {
        let p = self.storage.path_of(key)?;
        if let Some(dir) = p.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        Ok(p)
    }

    fn load_net(&self, key: &str) -> Result<PolicyValueNet> {
        let ck = load_checkpoint(&self.path(key)?, G::NAME, &self.device)?;
        if ck.header.model != self.model_config {
            bail!(
                "{key}: network shape {:?} does not match the run's model {:?}",
                ck.header.model,
                self.model_config
            );
        }
        Ok(ck.model)
    }

    /// Sets aside record files that the committed state does not know of (ids at or above
    /// `state.next_record_id`, written by an iteration that a crash interrupted before its
    /// commit) as `records/<id>.azr.orphan`, so that the redone iteration's games are not
    /// counted twice.
    fn set_aside_orphans(&self, state: &RunState) -> Result<()> {
        let num_actions = G::new(&self.game_config).num_actions() as u32;
        for key in self.storage.list("records/")? {
            let Some(id) = record_id(&key) else { continue };
            if id < state.next_record_id {
                continue;
            }
            let games = self
                .storage
                .get(&key)
                .ok()
                .and_then(|b| read_records(&b, G::NAME, num_actions).ok())
                .map_or_else(|| "its".to_string(), |f| f.games.len().to_string());
            let to = format!("{key}.orphan");
            self.storage.rename(&key, &to)?;
            eprintln!(
                "warning: {key} was written by iteration {} that did not finish; moved it to {to} \
                 ({games} games not counted); that iteration's self-play is done again",
                state.iteration
            );
        }
        Ok(())
    }

    /// The Connect Four solver's test slice of `eval.solver_every` (`None` when it is 0, for
    /// another game, or when the test data cannot be found or read: then with a warning,
    /// the run goes on unmeasured).
    fn solver_slice(&self) -> Option<SolverSlice> {
        let e = &self.cfg.eval;
        if e.solver_every == 0 || G::NAME != "connect4" {
            return None;
        }
        let dir = match super::eval::testdata_dir(None) {
            Ok(d) => d,
            Err(err) => {
                eprintln!("warning: no solver agreement measured (eval.solver_every): {err:#}");
                return None;
            }
        };
        let want = e.solver_positions as usize;
        let start = Instant::now();
        match SolverSlice::load(&dir, &SLICE_SETS, want.div_ceil(SLICE_SETS.len())) {
            Ok(mut slice) => {
                slice.positions.truncate(want);
                eprintln!(
                    "solver agreement every {} iterations on {} positions of {} in {} \
                     (measured only, never trained on; solved in {:.1}s)",
                    e.solver_every,
                    slice.positions.len(),
                    SLICE_SETS.join(" and "),
                    dir.display(),
                    start.elapsed().as_secs_f64()
                );
                Some(slice)
            }
            Err(err) => {
                eprintln!("warning: no solver agreement measured (eval.solver_every): {err}");
                None
            }
        }
    }

    /// The share of `slice` on which `net` alone (no search) picks a best move, a move that
    /// keeps the result, and a value of the right sign.
    fn solver_agreement(&self, slice: &SolverSlice, net: &PolicyValueNet) -> Result<SolverMetrics> {
        let eval = NetworkEvaluator::<Connect4>::new(net, &self.model_config, &self.device)?;
        let a = self.model_config.num_actions;
        let mut outputs = Vec::with_capacity(slice.positions.len());
        for chunk in slice.positions.chunks(64) {
            let reqs: Vec<EvalRequest<Connect4>> = chunk
                .iter()
                .map(|(t, _)| EvalRequest {
                    position: &t.position,
                    history: &[],
                })
                .collect();
            let mut logits = vec![0f32; chunk.len() * a];
            let mut values = vec![0f32; chunk.len()];
            eval.evaluate(&reqs, &mut logits, &mut values)?;
            for (i, v) in values.into_iter().enumerate() {
                outputs.push((logits[i * a..(i + 1) * a].to_vec(), v));
            }
        }
        let r = slice.measure(&outputs, C4EvalConfig::default().draw_margin);
        let share = |k: usize| k as f64 / r.positions.max(1) as f64;
        Ok(SolverMetrics {
            positions: r.positions as u32,
            policy_best: share(r.policy_best),
            policy_keeps: share(r.policy_keeps),
            value_sign: share(r.value_sign),
        })
    }

    /// Sets aside the champion and snapshot networks that the committed state does not know
    /// of (a champion id above `state.champion_id`, a snapshot after `state.iteration`
    /// iterations: written by an iteration that a crash interrupted before its commit) as
    /// `networks/<name>.azc.orphan`, so that neither the redone iteration nor
    /// `arena --snapshots` takes them for the run's networks.
    fn set_aside_orphan_networks(&self, state: &RunState) -> Result<()> {
        for key in self.storage.list("networks/")? {
            let Some(name) = key
                .strip_prefix("networks/")
                .and_then(|k| k.strip_suffix(".azc"))
            else {
                continue;
            };
            let uncommitted = if let Some(id) = name.strip_prefix("champion-") {
                id.parse::<u32>().is_ok_and(|id| id > state.champion_id)
            } else if let Some(it) = name.strip_prefix("snapshot-") {
                it.parse::<u32>().is_ok_and(|it| it > state.iteration)
            } else {
                false
            };
            if uncommitted {
                let to = format!("{key}.orphan");
                self.storage.rename(&key, &to)?;
                eprintln!(
                    "warning: {key} was written by iteration {} that did not finish; moved it \
                     to {to} (that iteration is done again)",
                    state.iteration
                );
            }
        }
        Ok(())
    }

    /// Loads the committed record files, newest first, until the buffer's capacity is
    /// covered. A file that cannot be decoded or replayed is set aside as
    /// `records/<id>.azr.corrupt` with a warning naming the games lost.
    fn rebuild_buffer(&self, state: &RunState) -> Result<ReplayBuffer<G>> {
        let capacity = self.cfg.replay.capacity as usize;
        let num_actions = G::new(&self.game_config).num_actions() as u32;
        let mut ids: Vec<u64> = self
            .storage
            .list("records/")?
            .iter()
            .filter_map(|k| record_id(k))
            .filter(|&id| id < state.next_record_id)
            .collect();
        ids.sort_unstable();
        let mut files: Vec<RecordFile> = Vec::new();
        let mut positions = 0usize;
        // Unreadable files waiting for the end of the next older readable file, which
        // bounds their games from below; `upper` is the first game id after them.
        let mut corrupt: Vec<(String, String)> = Vec::new();
        let mut upper = state.next_game_id;
        let report = |corrupt: &mut Vec<(String, String)>, lower: u64, upper: u64| {
            if corrupt.is_empty() {
                return;
            }
            let names: Vec<String> = corrupt.iter().map(|(k, _)| k.clone()).collect();
            for (key, why) in corrupt.iter() {
                eprintln!(
                    "warning: record file {key} cannot be read ({why}); moved it to {key}.corrupt"
                );
            }
            eprintln!(
                "warning: {} lost {} games (ids {lower}..{upper}) and their positions from the \
                 replay buffer; the run's counters still count them",
                names.join(", "),
                upper.saturating_sub(lower)
            );
            corrupt.clear();
        };
        for &id in ids.iter().rev() {
            if positions >= capacity {
                break;
            }
            let key = record_key(id);
            let bytes = self.storage.get(&key)?;
            let checked = read_records(&bytes, G::NAME, num_actions)
                .map_err(anyhow::Error::from)
                .and_then(|file| {
                    // Replay every game once (into a one-slot scratch buffer) so that a file
                    // whose moves do not replay is caught here, not in the rebuild.
                    let mut scratch = ReplayBuffer::<G>::new(1);
                    let mut n = 0usize;
                    for (i, g) in file.games.iter().enumerate() {
                        n += scratch.add_game(
                            G::new(&self.game_config),
                            g,
                            file.header.first_game_id + i as u64,
                        )?;
                    }
                    Ok((file, n))
                });
            match checked {
                Ok((file, n)) => {
                    let end = file.header.first_game_id + file.games.len() as u64;
                    report(&mut corrupt, end, upper);
                    upper = file.header.first_game_id;
                    positions += n;
                    files.push(file);
                }
                Err(e) => {
                    self.storage.rename(&key, &format!("{key}.corrupt"))?;
                    corrupt.push((key, format!("{e:#}")));
                }
            }
        }
        // Unreadable files still waiting are the oldest ones (the loop never stops at the
        // capacity right after an unreadable file), so their games start at id 0.
        report(&mut corrupt, 0, upper);
        files.reverse();
        let gc = self.game_config.clone();
        let buf = ReplayBuffer::rebuild_from(&files, capacity, |_, _| Ok(G::new(&gc)))?;
        Ok(buf)
    }

    /// Finishes or drops the commit of the trainer checkpoint of the last iteration: the
    /// pending checkpoint becomes `networks/latest.azc` when the state names its step (the
    /// process died between saving the state and the rename), and is deleted otherwise
    /// (its iteration was not committed and is done again).
    fn settle_pending_checkpoint(&self, state: &RunState) -> Result<()> {
        if !self.storage.exists(PENDING_KEY)? {
            return Ok(());
        }
        let step = load_checkpoint(&self.path(PENDING_KEY)?, G::NAME, &self.device)
            .ok()
            .map(|ck| ck.header.step);
        if step.is_some() && step == state.trainer_step {
            self.storage.rename(PENDING_KEY, LATEST_KEY)?;
        } else {
            self.storage.delete(PENDING_KEY)?;
        }
        Ok(())
    }

    fn run(self) -> Result<()> {
        let cfg = &self.cfg;
        let start_pos = G::new(&self.game_config);
        let mut state = match RunState::load(&self.storage)? {
            Some(s) => s,
            None => RunState::new(cfg.run.seed),
        };
        // Undo what an interrupted, uncommitted iteration left behind.
        self.settle_pending_checkpoint(&state)?;
        self.set_aside_orphans(&state)?;
        self.set_aside_orphan_networks(&state)?;
        // Networks: the trainer (latest, with optimizer state) and the champion.
        let lr0 = cfg.train.lr_at_progress(
            state.iteration,
            run_progress(cfg, state.iteration, state.elapsed_s),
        );
        let mut trainer = if let Some(init) = &self.init {
            // Warm start: the file's weights, a fresh optimizer at step 0.
            let ck = load_checkpoint(&init.path, G::NAME, &self.device)
                .with_context(|| format!("--init {}", init.path.display()))?;
            if ck.header.model != self.model_config {
                bail!(
                    "--init {}: network shape {:?} does not match the run's model {:?}",
                    init.path.display(),
                    ck.header.model,
                    self.model_config
                );
            }
            state.init = Some(init.info.clone());
            self.first_networks(Trainer::from_model(
                ck.model,
                &self.model_config,
                nn_train_config(cfg, lr0),
                &self.device,
                0,
            )?)?
        } else if self.storage.exists(LATEST_KEY)? {
            let ck = load_checkpoint(&self.path(LATEST_KEY)?, G::NAME, &self.device).with_context(
                || {
                    format!(
                        "networks/latest.azc (the trainer's network and optimizer state) \
                         cannot be loaded; to go on from the champion instead, copy {} over \
                         it (the optimizer state then starts afresh)",
                        champion_key(state.champion_id)
                    )
                },
            )?;
            if ck.header.model != self.model_config {
                bail!(
                    "networks/latest.azc has shape {:?}, the run's model is {:?}",
                    ck.header.model,
                    self.model_config
                );
            }
            ck.into_trainer(Some(nn_train_config(cfg, lr0)), &self.device)?
        } else {
            self.first_networks(Trainer::new(
                &self.model_config,
                nn_train_config(cfg, lr0),
                &self.device,
            )?)?
        };
        if state.champions.is_empty() {
            state.champions.push(ChampionInfo {
                id: 0,
                iteration: 0,
                key: champion_key(0),
                elo: 0.0,
                elo_se: 0.0,
            });
        }
        if self.init.is_some() {
            // Committed at once, so that the run knows where its networks came from even if
            // it is stopped before its first iteration ends.
            state.save(&self.storage)?;
        }
        let mut champion = self.load_net(&champion_key(state.champion_id))?;
        let mut buffer = self.rebuild_buffer(&state)?;
        let metrics = MetricsLog::open(self.storage.root().join("metrics.jsonl"))?;
        if let Some(line) = metrics.torn_line() {
            let shown: String = line.chars().take(60).collect();
            eprintln!(
                "warning: metrics.jsonl ended in an incomplete line (an interrupted write); \
                 removed it, so that iteration's figures are missing from the metrics and \
                 plots: {shown:?}…"
            );
        }
        for b in metrics.bad_lines() {
            eprintln!(
                "warning: metrics.jsonl line {} is no metrics record ({}); moved it to {}: {:?}",
                b.line,
                b.reason,
                metrics.bad_path().display(),
                b.text.chars().take(60).collect::<String>()
            );
        }
        metrics.drop_from(state.iteration)?;
        if let Some(i) = &state.init {
            eprintln!(
                "networks initialised from {} (step {}, trained for {}, {})",
                i.path, i.step, i.trained_for, i.fingerprint
            );
        }
        eprintln!(
            "iteration {}, champion {}, {} games so far, replay buffer {} positions; network {}x{} ({} parameters)",
            state.iteration,
            state.champion_id,
            state.total_games,
            buffer.len(),
            self.model_config.residual_blocks,
            self.model_config.channels,
            self.model_config.num_params()
        );
        let session_start = Instant::now();
        let elapsed_before = state.elapsed_s;
        let mut champion_elo = state.champions.last().map(|c| c.elo).unwrap_or(0.0);
        let mut champion_elo_se = state.champions.last().map(|c| c.elo_se).unwrap_or(0.0);
        let first_iteration = state.iteration;
        let gated = cfg.gating.enabled;
        let solver_slice = self.solver_slice();
        loop {
            if ctrl_c_count() > 0 {
                eprintln!(
                    "stopped by Ctrl-C after iteration {} (saved); run the command again to go on",
                    state.iteration
                );
                break;
            }
            let elapsed = elapsed_before + session_start.elapsed().as_secs_f64();
            let done_here = state.iteration - first_iteration;
            if cfg.run.iterations > 0 && state.iteration >= cfg.run.iterations {
                eprintln!(
                    "the run is complete: reached run.iterations = {}{}",
                    cfg.run.iterations,
                    if done_here == 0 {
                        "; to go on, raise it, e.g. --set run.iterations=N"
                    } else {
                        ""
                    }
                );
                break;
            }
            if cfg.run.time_budget_minutes > 0.0 && elapsed >= cfg.run.time_budget_minutes * 60.0 {
                eprintln!(
                    "the run is complete: reached run.time_budget_minutes = {}{}",
                    cfg.run.time_budget_minutes,
                    if done_here == 0 {
                        "; to go on, raise it, e.g. --set run.time_budget_minutes=M"
                    } else {
                        ""
                    }
                );
                break;
            }
            if let Some(n) = self.args.iterations {
                if done_here >= n {
                    eprintln!(
                        "stopping after {n} iteration{} (--iterations); run the command again to go on",
                        if n == 1 { "" } else { "s" }
                    );
                    break;
                }
            }
            if let Some(m) = self.args.minutes {
                if session_start.elapsed().as_secs_f64() >= m * 60.0 {
                    eprintln!(
                        "stopping after {m} minutes (--minutes); run the command again to go on"
                    );
                    break;
                }
            }
            let it_start = Instant::now();
            let iter = state.iteration;
            let seed = mix(state.rng_seed, u64::from(iter));

            // 1. Self-play with the champion.
            let sp_cfg = SelfPlayConfig::from_train_config(cfg, seed);
            let net = NetworkEvaluator::<G>::new(&champion, &self.model_config, &self.device)?;
            let games_n = u64::from(cfg.selfplay.games_per_iteration);
            let pb = self.progress(games_n, format!("iter {iter} self-play"));
            let mut games: Vec<GameRecord> = Vec::with_capacity(games_n as usize);
            // One worker per core (selfplay.workers), each with its own cache.
            let workers = worker_count(
                cfg.selfplay.workers as usize,
                games_n,
                sp_cfg.parallel_games,
            );
            let sp = play_selfplay_games_parallel(
                &start_pos,
                workers,
                |_| CachedEvaluator::new(net.clone(), 200_000 / workers),
                &sp_cfg,
                games_n,
                state.next_game_id,
                |g| {
                    games.push(g);
                    pb.inc(1);
                },
            )?;
            pb.finish_and_clear();
            let header = RecordHeader {
                game: G::NAME.to_string(),
                config: format!("{:?}", self.game_config),
                num_actions: start_pos.num_actions() as u32,
                first_game_id: state.next_game_id,
            };
            let bytes = write_records(&header, &games)?;
            let rkey = record_key(state.next_record_id);
            self.storage.put(&rkey, &bytes)?;
            let mut new_positions = 0u64;
            for (i, g) in games.iter().enumerate() {
                new_positions +=
                    buffer.add_game(start_pos.clone(), g, state.next_game_id + i as u64)? as u64;
            }
            state.next_record_id += 1;
            state.next_game_id += games.len() as u64;
            let selfplay_secs = it_start.elapsed().as_secs_f64();

            // 2.–3. Training on the replay buffer.
            let batch_size = cfg.train.batch_size as usize;
            let lr = cfg.train.lr_at_progress(
                iter,
                run_progress(
                    cfg,
                    iter,
                    elapsed_before + session_start.elapsed().as_secs_f64(),
                ),
            );
            trainer.set_config(nn_train_config(cfg, lr))?;
            let steps = if buffer.len() >= batch_size.min(256) {
                cfg.train.steps_for(new_positions)
            } else {
                0
            };
            let opts = SampleOptions {
                recent_fraction: cfg.replay.recent_fraction as f32,
                recent_window: cfg.replay.recent_window as usize,
                symmetries: cfg.replay.symmetries,
                hard_mining: cfg.replay.hard_mining,
                threat_weight: cfg.replay.threat_weight as f32,
            };
            let mut rng = StdRng::seed_from_u64(mix(seed, 1));
            let (c, h, w) = (
                self.model_config.input_planes,
                self.model_config.board_height,
                self.model_config.board_width,
            );
            let a = self.model_config.num_actions;
            let mut batch = Batch::with_capacity([c, h, w], a, batch_size);
            let (mut planes, mut legal, mut pi) =
                (vec![0f32; c * h * w], vec![false; a], vec![0f32; a]);
            let mut moves = Vec::new();
            let q_weight = cfg.train.value_q_weight as f32;
            let mut sums = [0f64; 4];
            let pb = self.progress(steps, format!("iter {iter} training"));
            let train_start = Instant::now();
            for _ in 0..steps {
                batch.clear();
                for s in buffer.sample_batch(batch_size, &mut rng, &opts) {
                    let p = &s.sample.position;
                    p.encode(u32::from(s.sample.repetitions), &mut planes);
                    legal.iter_mut().for_each(|l| *l = false);
                    p.legal_moves(&mut moves);
                    for &m in &moves {
                        legal[p.move_to_action(m)] = true;
                    }
                    pi.iter_mut().for_each(|x| *x = 0.0);
                    for &(act, prob) in &s.sample.policy {
                        pi[act as usize] = prob;
                    }
                    batch.push(&planes, &legal, &pi, s.sample.value_target(q_weight))?;
                }
                let st = trainer.train_step(&batch)?;
                sums[0] += f64::from(st.policy_loss);
                sums[1] += f64::from(st.value_loss);
                sums[2] += f64::from(st.policy_entropy);
                sums[3] += f64::from(st.total_loss);
                pb.inc(1);
            }
            pb.finish_and_clear();
            let train_secs = train_start.elapsed().as_secs_f64();
            let n = steps.max(1) as f64;
            let candidate = trainer.inference_model();
            let kl = if steps > 0 {
                kl_divergence(
                    &champion,
                    &candidate,
                    &self.model_config,
                    &batch,
                    &self.device,
                )? as f64
            } else {
                0.0
            };
            save_checkpoint(&self.path(PENDING_KEY)?, &self.tag, &trainer)?;
            // Connect Four: the trained network against the solver (measured, not trained on).
            let solver = match &solver_slice {
                Some(slice) if iter.is_multiple_of(cfg.eval.solver_every) => {
                    Some(self.solver_agreement(slice, &candidate)?)
                }
                _ => None,
            };

            // 4. Gating.
            let gate_start = Instant::now();
            let (gating, promoted) = if steps == 0 {
                (None, false)
            } else if cfg.gating.enabled {
                let (m, llr, promote) = self.gate(&start_pos, &candidate, &champion, seed)?;
                let e =
                    rating::elo_from_wdl_bounded(m.wins.into(), m.draws.into(), m.losses.into());
                (
                    Some(GatingMetrics {
                        wins: m.wins,
                        draws: m.draws,
                        losses: m.losses,
                        llr,
                        promoted: promote,
                        elo: Some(e.elo),
                        elo_lo: Some(e.lo),
                        elo_hi: Some(e.hi),
                    }),
                    promote,
                )
            } else {
                (None, true)
            };
            let gate_secs = gate_start.elapsed().as_secs_f64();
            if promoted {
                let id = state.champion_id + 1;
                // The gating estimate (bounded however few the games) with its standard
                // error; nothing is added without gating, where nothing measures it.
                if let Some(g) = &gating {
                    if let (Some(e), Some(lo), Some(hi)) = (g.elo, g.elo_lo, g.elo_hi) {
                        champion_elo += e;
                        let se = (hi - lo) / (2.0 * rating::Z95);
                        champion_elo_se = (champion_elo_se.powi(2) + se * se).sqrt();
                    }
                }
                save_model(
                    &self.path(&champion_key(id))?,
                    &self.tag,
                    &candidate,
                    &self.model_config,
                    trainer.step(),
                )?;
                state.champion_id = id;
                state.champions.push(ChampionInfo {
                    id,
                    iteration: iter + 1,
                    key: champion_key(id),
                    elo: champion_elo,
                    elo_se: champion_elo_se,
                });
                champion = candidate;
            }
            if cfg.run.snapshot_every > 0 && (iter + 1).is_multiple_of(cfg.run.snapshot_every) {
                let key = format!("networks/snapshot-{:05}.azc", iter + 1);
                save_model(
                    &self.path(&key)?,
                    &self.tag,
                    &trainer.inference_model(),
                    &self.model_config,
                    trainer.step(),
                )?;
            }

            // Bookkeeping: metrics, plots, then the state (last: it marks the iteration done).
            let it_secs = it_start.elapsed().as_secs_f64();
            state.iteration += 1;
            state.total_games += games.len() as u64;
            state.total_positions += new_positions;
            state.elapsed_s = elapsed_before + session_start.elapsed().as_secs_f64();
            let m = IterationMetrics {
                iteration: iter,
                unix_time: SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map(|d| d.as_secs_f64())
                    .unwrap_or(0.0),
                elapsed_s: state.elapsed_s,
                games: games.len() as u64,
                total_games: state.total_games,
                positions: new_positions,
                total_positions: state.total_positions,
                buffer_fill: buffer.len() as u64,
                buffer_capacity: buffer.capacity() as u64,
                train_steps: steps,
                lr,
                policy_loss: sums[0] / n,
                value_loss: sums[1] / n,
                total_loss: sums[3] / n,
                policy_entropy: sums[2] / n,
                kl,
                gating: gating.clone(),
                champion_id: state.champion_id,
                elo: champion_elo,
                elo_lo: gated.then_some(champion_elo - rating::Z95 * champion_elo_se),
                elo_hi: gated.then_some(champion_elo + rating::Z95 * champion_elo_se),
                selfplay_games_per_hour: sp.games as f64 / selfplay_secs.max(1e-9) * 3600.0,
                network_time_fraction: sp.evaluator_share(),
                selfplay_s: selfplay_secs,
                train_s: train_secs,
                gating_s: gate_secs,
                solver: solver.clone(),
            };
            metrics.append(&m)?;
            let all = dedup_metrics(metrics.read_all()?);
            let csv = self.storage.root().join("metrics.csv");
            if let Err(e) = alphazero_train::metrics::write_csv(&all, &csv) {
                eprintln!("warning: {} not written: {e}", csv.display());
            }
            if let Err(e) =
                alphazero_train::plots::write_plots(&all, &self.storage.root().join("plots"))
            {
                eprintln!("warning: plots not written: {e}");
            }
            state.trainer_step = Some(trainer.step());
            state.save(&self.storage)?;
            // Committed: the iteration's trainer checkpoint becomes the latest.
            self.storage.rename(PENDING_KEY, LATEST_KEY)?;
            let gate_text = match &gating {
                Some(g) => format!(
                    "gating +{}={}-{} {}",
                    g.wins,
                    g.draws,
                    g.losses,
                    if g.promoted {
                        "PROMOTED"
                    } else {
                        "kept champion"
                    }
                ),
                None if promoted => "promoted (no gating)".into(),
                None => "no training yet".into(),
            };
            // The champion's Elo exists only where gating measures it.
            let champion_text = if gated {
                format!(
                    "champion {} ({:+.0} Elo ±{:.0})",
                    state.champion_id,
                    champion_elo,
                    rating::Z95 * champion_elo_se
                )
            } else {
                format!("champion {}", state.champion_id)
            };
            let solver_text = solver.as_ref().map_or_else(String::new, |s| {
                format!(
                    "; solver: policy best {:.0}%, keeps result {:.0}%, value sign {:.0}%",
                    100.0 * s.policy_best,
                    100.0 * s.policy_keeps,
                    100.0 * s.value_sign
                )
            });
            eprintln!(
                "iter {iter}: {} games ({:.0}/h, W/D/L {}/{}/{}, {:.1} plies avg), {} new positions, buffer {}; \
                 {steps} steps: policy {:.3} value {:.3} entropy {:.3} KL {:.4}; {gate_text}; {champion_text}{solver_text}; \
                 {:.0}s (self-play {:.0}s, {:.0}% in network, batch {:.1}; train {:.0}s; gating {:.0}s)",
                sp.games,
                m.selfplay_games_per_hour,
                sp.first_wins,
                sp.draws,
                sp.second_wins,
                sp.plies as f64 / sp.games.max(1) as f64,
                new_positions,
                buffer.len(),
                m.policy_loss,
                m.value_loss,
                m.policy_entropy,
                kl,
                it_secs,
                selfplay_secs,
                100.0 * sp.evaluator_share(),
                sp.mean_batch(),
                train_secs,
                gate_secs
            );
        }
        let plural =
            |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        eprintln!(
            "done: {}, {}, champion {} at {}",
            plural(u64::from(state.iteration), "iteration", "iterations"),
            plural(state.total_games, "game", "games"),
            state.champion_id,
            self.storage
                .path_of(&champion_key(state.champion_id))?
                .display()
        );
        Ok(())
    }

    /// The gating match: candidate (A) against champion (B), in chunks so that the SPRT can
    /// stop it early. Returns the match, the LLR and whether to promote.
    fn gate(
        &self,
        start: &G,
        candidate: &PolicyValueNet,
        champion: &PolicyValueNet,
        seed: u64,
    ) -> Result<(MatchOutcome, f64, bool)> {
        let g = &self.cfg.gating;
        let a = CachedEvaluator::new(
            NetworkEvaluator::<G>::new(candidate, &self.model_config, &self.device)?,
            100_000,
        );
        let b = CachedEvaluator::new(
            NetworkEvaluator::<G>::new(champion, &self.model_config, &self.device)?,
            100_000,
        );
        let chunk = if g.sprt.enabled {
            10.min(g.games)
        } else {
            g.games
        }
        .max(2);
        let mut total = MatchOutcome::default();
        let mut llr = 0.0;
        let mut played = 0;
        let mut chunk_index = 0u64;
        let pb = self.progress(u64::from(g.games), "gating".into());
        while played < g.games {
            let n = chunk.min(g.games - played);
            let mc = MatchConfig {
                games: n,
                search: search_config(
                    &self.cfg,
                    g.simulations,
                    false,
                    mix(seed, 100 + chunk_index),
                ),
                opening_random_plies: g.opening_random_plies,
                max_plies: self.cfg.selfplay.max_plies,
                parallel_games: n as usize,
                seed: mix(seed, 200 + chunk_index),
            };
            let m = play_match(start, &a, &b, &mc)?;
            played += m.wins + m.draws + m.losses;
            total.wins += m.wins;
            total.draws += m.draws;
            total.losses += m.losses;
            total.games.extend(m.games);
            pb.inc(u64::from(n));
            chunk_index += 1;
            if g.sprt.enabled {
                let sprt = rating::Sprt {
                    elo0: g.sprt.elo0,
                    elo1: g.sprt.elo1,
                    alpha: g.sprt.alpha,
                    beta: g.sprt.beta,
                };
                let (w, d, l) = (total.wins.into(), total.draws.into(), total.losses.into());
                llr = sprt.llr(w, d, l);
                match sprt.decision(w, d, l) {
                    rating::SprtDecision::AcceptH1 => {
                        pb.finish_and_clear();
                        return Ok((total, llr, true));
                    }
                    rating::SprtDecision::AcceptH0 => {
                        pb.finish_and_clear();
                        return Ok((total, llr, false));
                    }
                    rating::SprtDecision::Continue => {}
                }
            }
        }
        pb.finish_and_clear();
        let promote = total.score() >= g.win_rate;
        Ok((total, llr, promote))
    }

    fn progress(&self, len: u64, msg: String) -> ProgressBar {
        let pb = ProgressBar::new(len);
        if self.args.quiet {
            pb.set_draw_target(ProgressDrawTarget::hidden());
        }
        pb.set_style(
            ProgressStyle::with_template("{msg:>22} [{bar:30}] {pos}/{len} {per_sec} eta {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        pb.set_message(msg);
        pb
    }
}

/// The id of a record file key `records/<id>.azr` (`None` for other keys, e.g. set-aside
/// `*.orphan` / `*.corrupt` files).
fn record_id(key: &str) -> Option<u64> {
    key.strip_prefix("records/")?
        .strip_suffix(".azr")?
        .parse()
        .ok()
}

/// Keeps the last line of each iteration (a run killed after writing metrics but before its
/// state re-runs that iteration).
fn dedup_metrics(all: Vec<IterationMetrics>) -> Vec<IterationMetrics> {
    let mut out: Vec<IterationMetrics> = Vec::with_capacity(all.len());
    for m in all {
        while out.last().is_some_and(|l| l.iteration >= m.iteration) {
            out.pop();
        }
        out.push(m);
    }
    out
}
