//! `alphazero serve`: the web page to play every game against the engine, with the search's
//! visit heatmap (see `crates/web/API.md` for the JSON API behind it).
use crate::engine;
use alphazero_registry::{with_game, GameSpec};
use alphazero_web::{Engines, GameEvaluator, ServerLimits};
use anyhow::{bail, Context, Result};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Arguments of `alphazero serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on (keep it on loopback unless you mean to expose it).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: String,
    /// Network checkpoint to play, or a training run's folder for its champion; one per game
    /// (repeat the flag): each plays the game, board size and rule it was trained for (read
    /// from the file), and the page names its file. Games without one play their shipped
    /// network (else the uniform evaluator).
    #[arg(long, value_name = "FILE|RUN_DIR", value_parser = crate::cmd::model_arg)]
    model: Vec<PathBuf>,
    /// Device for the networks: `cpu`, `cuda[:N]` or `wgpu[:N]` in builds with the `cuda` / `wgpu`
    /// feature (docs/training.md, GPU).
    #[arg(long, default_value = "default")]
    device: String,
    /// Longest continuous analysis on the page, in seconds.
    #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u32).range(1..=86_400))]
    analysis_seconds: u32,
    /// Most simulations of one continuous analysis (bounds its memory too).
    #[arg(long, default_value_t = 200_000, value_parser = |s: &str| alphazero_mcts::knobs::SIMULATIONS.parse(s))]
    analysis_simulations: u32,
}

/// An evaluator and its public description.
type Choice = (GameEvaluator, String);

/// The description of the engine of a game spec without a shipped network.
const UNIFORM: &str = "uniform evaluator (no network for this size/rule)";

/// The game spec each `--model` file was trained for (read from its header), in the order
/// given, refusing two files for the same one.
fn model_specs(models: &[PathBuf]) -> Result<Vec<(GameSpec, PathBuf)>> {
    let mut by_spec: Vec<(GameSpec, PathBuf)> = Vec::new();
    for path in models {
        // Only the header is needed: the CPU device, whatever the server runs on.
        let ck = alphazero_nn::load_any_checkpoint(path, &alphazero_nn::Device::flex())
            .with_context(|| format!("--model {}", path.display()))?;
        let spec = ck.header.game;
        if let Some((_, other)) = by_spec.iter().find(|(s, _)| *s == spec) {
            bail!(
                "--model {} and --model {} are both networks for {}: give one per game and board",
                other.display(),
                path.display(),
                spec.words()
            );
        }
        by_spec.push((spec, path.clone()));
    }
    Ok(by_spec)
}

/// The evaluator of a `--model` file for `spec`, named on the page by its file name only.
fn model_evaluator(spec: &GameSpec, path: &Path, device: &alphazero_nn::Device) -> Result<Choice> {
    with_game!(spec, G, cfg => {
        let (e, desc) = engine::load_network::<G>(path, cfg, device)?;
        Ok((GameEvaluator::new(e), engine::public_description(&desc, path)))
    })
}

/// The evaluator for a game spec without a `--model` file: the shipped evaluator for it
/// ([`engine::shipped_evaluator_path`], named by file name only), else the uniform evaluator. A shipped file that cannot be loaded is
/// reported on stderr and replaced by the uniform evaluator, and the page's engine
/// description says so.
fn shipped_evaluator(spec: &GameSpec, device: &alphazero_nn::Device) -> Choice {
    let uniform = || -> Choice { (GameEvaluator::uniform(spec), UNIFORM.into()) };
    with_game!(spec, G, cfg => match engine::shipped_evaluator_path::<G>(cfg) {
        Some(p) => match engine::load_network::<G>(&p, cfg, device) {
            Ok((e, desc)) => (
                GameEvaluator::new(e),
                format!("shipped {}", engine::public_description(&desc, &p)),
            ),
            Err(e) => {
                eprintln!("warning: {e:#}; using the uniform evaluator");
                let name = p.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                (
                    GameEvaluator::uniform(spec),
                    format!("uniform evaluator (the shipped {name} could not be loaded)"),
                )
            }
        },
        None => uniform(),
    })
}

/// The engines of the page: for each game spec, its `--model` file (`models`) or its shipped
/// network ([`model_evaluator`], [`shipped_evaluator`]). Every game's default spec and every
/// `--model` file is loaded before serving (a `--model` file that cannot be loaded stops the server here, with its
/// error), each announced on stderr with its full path; other specs on first use. The page
/// and game records name the files only, not the server's folders.
fn engines(models: &[PathBuf], device: alphazero_nn::Device) -> Result<Engines> {
    let models = model_specs(models)?;
    let mut specs: Vec<GameSpec> = GameSpec::DEFAULTS.to_vec();
    for (spec, _) in &models {
        if !specs.contains(spec) {
            specs.push(*spec);
        }
    }
    let mut cache: HashMap<GameSpec, Choice> = HashMap::new();
    for spec in specs {
        let model = models.iter().find(|(s, _)| *s == spec).map(|(_, p)| p);
        let choice = match model {
            Some(p) => {
                let choice = model_evaluator(&spec, p, &device)?;
                eprintln!("{}: {} ({})", spec.words(), choice.1, p.display());
                choice
            }
            None => {
                let choice = shipped_evaluator(&spec, &device);
                eprintln!("{}: {}", spec.words(), choice.1);
                choice
            }
        };
        cache.insert(spec, choice);
    }
    let cache = Mutex::new(cache);
    Ok(Engines {
        evaluator: Arc::new(move |spec: &GameSpec| -> Choice {
            let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
            cache
                .entry(*spec)
                // Every `--model` spec is in the cache already.
                .or_insert_with(|| shipped_evaluator(spec, &device))
                .clone()
        }),
    })
}

/// Runs `alphazero serve` until interrupted.
pub fn run(args: &ServeArgs) -> Result<()> {
    let addr: SocketAddr = args.addr.parse().with_context(|| {
        format!(
            "--addr {:?} is not an address like 127.0.0.1:8080",
            args.addr
        )
    })?;
    let device = engine::device(&args.device)?;
    let engines = engines(&args.model, device)?;
    let rt = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    rt.block_on(async {
        // Announce the address only once the socket is bound (a bind error is the only line).
        let listener = alphazero_web::bind(addr).await?;
        let local = listener.local_addr().unwrap_or(addr);
        eprintln!("serving on http://{local}/");
        let limits = ServerLimits {
            analysis_max_time: std::time::Duration::from_secs(args.analysis_seconds.into()),
            analysis_max_simulations: args.analysis_simulations,
            ..ServerLimits::default()
        };
        alphazero_web::serve_listener(listener, engines, limits).await
    })?;
    Ok(())
}
