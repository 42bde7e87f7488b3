//! `alphazero serve`: the web page to play every game against the engine, with the search's
//! visit heatmap (see `crates/web/API.md` for the JSON API behind it).
use crate::engine;
use alphazero_registry::{with_game, GameSpec};
use alphazero_web::{Engines, GameEvaluator, Limits};
use anyhow::{Context, Result};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

/// Arguments of `alphazero serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on (keep it on loopback unless you mean to expose it).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: String,
    /// Device for the networks: `cpu`, or `cuda[:N]` in builds with the `cuda` feature.
    #[arg(long, default_value = "default")]
    device: String,
    /// Longest continuous analysis on the page, in seconds.
    #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u32).range(1..=86_400))]
    analysis_seconds: u32,
    /// Most simulations of one continuous analysis (bounds its memory too).
    #[arg(long, default_value_t = 200_000, value_parser = clap::value_parser!(u32).range(1..=100_000_000))]
    analysis_simulations: u32,
}

/// An evaluator and its public description.
type Choice = (GameEvaluator, String);

/// The description of the engine of a game spec without a shipped network.
const UNIFORM: &str = "uniform evaluator (no network for this size/rule)";

/// The evaluator for a game spec: the shipped network for it (named by file name only), else
/// the uniform evaluator. A shipped file that cannot be loaded is reported on stderr and
/// replaced by the uniform evaluator, and the page's engine description says so.
fn evaluator_for(spec: &GameSpec, device: &alphazero_nn::Device) -> Choice {
    let uniform = || -> Choice { (GameEvaluator::uniform(spec), UNIFORM.into()) };
    with_game!(spec, G, cfg => match engine::shipped_model_path::<G>(cfg) {
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

/// Runs `alphazero serve` until interrupted.
pub fn run(args: &ServeArgs) -> Result<()> {
    let addr: SocketAddr = args.addr.parse().with_context(|| {
        format!(
            "--addr {:?} is not an address like 127.0.0.1:8080",
            args.addr
        )
    })?;
    let device = engine::device(&args.device)?;
    // One evaluator per game spec, kept once made: the shipped network for that spec where
    // there is one, else the uniform evaluator. Each game's default spec is loaded before
    // serving; the others on first use. The page and game records name the file only, not
    // the server's folders.
    let cache: HashMap<GameSpec, Choice> = GameSpec::DEFAULTS
        .iter()
        .map(|spec| {
            let choice = evaluator_for(spec, &device);
            eprintln!("{}: {}", spec.words(), choice.1);
            (*spec, choice)
        })
        .collect();
    let cache = Mutex::new(cache);
    let engines = Engines {
        evaluator: Arc::new(move |spec: &GameSpec| -> Choice {
            let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
            cache
                .entry(*spec)
                .or_insert_with(|| evaluator_for(spec, &device))
                .clone()
        }),
    };
    let rt = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    rt.block_on(async {
        // Announce the address only once the socket is bound (a bind error is the only line).
        let listener = alphazero_web::bind(addr).await?;
        let local = listener.local_addr().unwrap_or(addr);
        eprintln!("serving on http://{local}/");
        let limits = Limits {
            analysis_max_time: std::time::Duration::from_secs(args.analysis_seconds.into()),
            analysis_max_simulations: args.analysis_simulations,
            ..Limits::default()
        };
        alphazero_web::serve_listener(listener, engines, limits).await
    })?;
    Ok(())
}
