//! `alphazero actor` and `alphazero learner`: one run on many machines, sharing only its
//! storage (a bucket). The roles are the `alphazero_train::roles` library (how they exchange
//! batches and champions is documented there); these commands parse flags, open the storage
//! and show progress.
use super::runs::{finish, install_ctrl_c, solver_slice, Bars, ITERATION_CTRL_C};
use crate::cmd::train::RunFlags;
use alphazero_registry::with_game;
use alphazero_train::roles::{self, ActorBatches, ActorOptions, DEFAULT_POLL};
use alphazero_train::storage::exchange::{claim_run, Outbox};
use alphazero_train::storage::lease::{LearnerLease, DEFAULT_LEASE};
use alphazero_train::storage::{Location, Storage};
use alphazero_train::Pipeline;
use anyhow::{bail, Result};

/// `--storage`: where the run lives.
const STORAGE_HELP: &str = "Where the run lives: s3://bucket/path, gs://bucket/path, \
    az://container/path (credentials and endpoint from the usual environment variables: \
    AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_ENDPOINT_URL, AWS_ALLOW_HTTP, …), or a \
    directory (file:// or a path) that every process sees";

/// Arguments of `alphazero actor`.
#[derive(clap::Args, Debug)]
pub struct ActorArgs {
    #[arg(long, help = STORAGE_HELP)]
    storage: String,
    /// Refuse a run of another game (the game and its settings come from the run).
    #[arg(long, value_parser = crate::games::game_names())]
    game: Option<String>,
    /// A name for this actor in its batches' keys (`incoming/<name>-<random>/…`) and logs;
    /// letters, digits, `-`, `_` (default: a random id).
    #[arg(long, value_name = "ID", value_parser = parse_actor_id)]
    actor_id: Option<String>,
    /// Stop after N games (default: until Ctrl-C or SIGTERM, which finish the batch under way).
    #[arg(long, value_name = "N")]
    games: Option<u64>,
    /// Self-play worker threads (default: the run's selfplay.workers; 0 = one per core).
    #[arg(long, value_name = "N")]
    workers: Option<u32>,
    /// Device: `cpu` (burn Flex), `cuda[:N]` or `wgpu[:N]` in builds with the `cuda` / `wgpu`
    /// feature (docs/training.md, GPU).
    #[arg(long, default_value = "default")]
    device: String,
    /// No progress bars (one line per published batch only).
    #[arg(long)]
    quiet: bool,
}

/// Arguments of `alphazero learner`.
#[derive(clap::Args, Debug)]
pub struct LearnerArgs {
    #[arg(long, help = STORAGE_HELP)]
    storage: String,
    #[command(flatten)]
    flags: RunFlags,
    /// The learner lease time in seconds (one learner per run): this learner renews its
    /// lease every third of it; a learner that was killed is replaced by the next one after
    /// it at most (default 60; a short one suits tests).
    #[arg(long, value_name = "S", default_value_t = DEFAULT_LEASE.as_secs_f64(), value_parser = parse_lease)]
    lease_seconds: f64,
}

/// Checks `--lease-seconds`: a number of seconds > 0 and at most a day.
fn parse_lease(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 86_400.0 => Ok(s),
        _ => Err(format!(
            "{}: expected a number of seconds > 0 and <= 86400",
            alphazero_game::quoted_excerpt(text)
        )),
    }
}

/// Opens an actor's `--storage` (an object store is checked by one listing: an unreachable
/// server, a missing bucket or refused credentials are an error naming it). Returns it and
/// its name.
fn open_storage(text: &str) -> Result<(Box<dyn Storage>, String)> {
    let location: Location = text.parse()?;
    Ok((location.open()?, location.to_string()))
}

/// Runs `alphazero actor`.
// The macro instantiates this for each game; some game configs are `Copy`.
#[allow(clippy::clone_on_copy)]
pub fn run_actor(args: &ActorArgs) -> Result<()> {
    if args.games == Some(0) {
        bail!("--games must be >= 1 (got 0)");
    }
    let (storage, name) = open_storage(&args.storage)?;
    let (manifest, mut cfg) = roles::open_run(&*storage, &name, args.game.as_deref())?;
    if let Some(w) = args.workers {
        cfg.selfplay.workers = w;
    }
    let spec = cfg.game;
    let device = crate::engine::device(&args.device)?;
    let bars = Bars::new(args.quiet);
    let mut outbox = match &args.actor_id {
        Some(id) => Outbox::named(id),
        None => Outbox::new(),
    };
    eprintln!(
        "actor {} on run {name} ({}), {} a batch, device {}",
        outbox.actor(),
        manifest.game,
        super::count(cfg.selfplay.games_per_iteration as usize, "game"),
        crate::engine::device_words(&device)
    );
    install_ctrl_c([
        "Ctrl-C or SIGTERM: finishing the batch under way and stopping after it is published; press \
         Ctrl-C again to stop at once (that batch is then lost)",
        "Ctrl-C again: stopping now",
    ]);
    let options = ActorOptions {
        location: name.clone(),
        games: args.games,
        poll: DEFAULT_POLL,
    };
    let summary = with_game!(&spec, G, gcfg => roles::run_actor(
        &Pipeline::<G>::new(cfg.clone(), gcfg.clone(), &*storage, device)?,
        &mut outbox, &options, &bars
    )?);
    eprintln!(
        "done: {} published ({} {})",
        super::count(summary.games as usize, "game"),
        summary.batches,
        if summary.batches == 1 {
            "batch"
        } else {
            "batches"
        }
    );
    if summary.stopped_by_request && !summary.run_complete {
        std::process::exit(130);
    }
    Ok(())
}

/// Runs `alphazero learner`.
// The macro instantiates this for each game; some game configs are `Copy`.
#[allow(clippy::clone_on_copy)]
pub fn run_learner(args: &LearnerArgs) -> Result<()> {
    let location: Location = args.storage.parse()?;
    let name = location.to_string();
    // Opening a directory creates it and its lock, so its saved config is read without
    // opening it, and a refusal or --dry-run below leaves nothing behind. An object store is
    // opened at once (a listing, no write) to read the run's config.
    let (opened, saved) = match &location {
        Location::Directory(dir) => (None, alphazero_train::local::saved_config(dir)?),
        Location::ObjectStore(_) => {
            let storage = location.open()?;
            let saved = alphazero_train::sources::saved_config(&*storage, &name)?;
            (Some(storage), saved)
        }
    };
    let bars = Bars::new(args.flags.quiet);
    let run = args.flags.prepare(&name, saved, &bars)?;
    let (cfg, spec, device) = (&run.cfg, &run.spec, run.device);
    bars.explain_lines(cfg, run.resumed, true);
    if args.flags.dry_run() {
        print!("{}", cfg.to_toml_string()?);
        return Ok(());
    }
    if cfg.run.budget_clock == alphazero_train::config::BudgetClock::Cpu {
        bail!(
            "run.budget_clock = \"cpu\" counts the CPU time of one process, and a learner's \
             actors spend theirs on other machines: limit a run of actors and a learner with \
             run.budget_clock = \"wall\" (the default) or run.iterations"
        );
    }
    let storage = match opened {
        Some(storage) => storage,
        None => location.open_exclusive()?,
    };
    // The first write: refused, having written nothing, when the storage holds another game.
    claim_run(&*storage, &name, &cfg.game.words())?;
    // One learner per run: refused here, before any other write, when another holds it.
    let lease = LearnerLease::acquire(
        &*storage,
        &name,
        std::time::Duration::from_secs_f64(args.lease_seconds),
        &|line| eprintln!("{line}"),
    )?;
    alphazero_train::recovery::refuse_state_without_config(&*storage)?;
    alphazero_train::recovery::check_resumable(&*storage)?;
    let init = match run.init {
        Some(i) if i.needed(&*storage, &name, &bars)? => Some(i),
        _ => None,
    };
    alphazero_train::sources::save_config(&*storage, cfg)?;
    eprintln!(
        "{} run {name} ({}) as its learner, device {}; one learner per run",
        if run.resumed { "resuming" } else { "starting" },
        cfg.game.words(),
        crate::engine::device_words(&device)
    );
    install_ctrl_c(ITERATION_CTRL_C);
    let mut source = ActorBatches::new(&name, DEFAULT_POLL).with_lease(&lease);
    let summary = with_game!(&spec, G, gcfg => roles::run_learner(
        &Pipeline::<G>::new(cfg.clone(), gcfg.clone(), &*storage, device)?
            .with_solver_slice(|| solver_slice(cfg, &bars)),
        &mut source, &lease, init.as_ref(), &run.limits, &bars
    )?);
    let champion = format!("{}/{}", name.trim_end_matches('/'), summary.champion_key);
    // The run is in a bucket (or a folder shared as one): no local folder to name.
    finish(&summary, &champion, None)
}

/// The longest `--actor-id`.
const MAX_ACTOR_ID: usize = 64;

/// Checks an `--actor-id`: 1–64 letters, digits, `-` or `_` (it becomes one segment of an
/// object key, so `/` and the like are refused rather than nesting keys).
fn parse_actor_id(text: &str) -> Result<String, String> {
    let ok = !text.is_empty()
        && text.len() <= MAX_ACTOR_ID
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(text.to_string())
    } else {
        Err(format!(
            "{}: expected 1–{MAX_ACTOR_ID} letters, digits, '-' or '_'",
            alphazero_game::quoted_excerpt(text)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::parse_actor_id;

    #[test]
    fn actor_ids_are_one_key_segment_of_letters_digits_dash_underscore() {
        // Regression (fresh-user trial): `--actor-id a/b` published under a nested key.
        for good in ["a1", "gpu-box_3", &"x".repeat(64)] {
            assert_eq!(parse_actor_id(good).as_deref(), Ok(good));
        }
        for bad in ["", "a/b", "a b", "..", "é", &"x".repeat(65)] {
            let e = parse_actor_id(bad).unwrap_err();
            assert!(e.contains("letters, digits"), "{bad:?}: {e}");
        }
    }
}
