//! `alphazero serve`: the web page to play every game against the engine, with the search's
//! visit heatmap (see `crates/web/API.md` for the JSON API behind it).
use crate::engine;
use alphazero_connect4::{Connect4, Connect4Config};
use alphazero_gomoku::{Gomoku, GomokuConfig};
use alphazero_mcts::{Evaluator, UniformEvaluator};
use alphazero_web::{Descriptions, Engines, Limits};
use alphazero_xiangqi::{Xiangqi, XiangqiConfig};
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

/// A Gomoku evaluator and its public description.
type GomokuChoice = (Arc<dyn Evaluator<Gomoku>>, String);

/// The description of the Gomoku engine on boards without a shipped network.
const GOMOKU_UNIFORM: &str = "uniform evaluator (no network for this size/rule)";

/// The evaluator for a Gomoku board: the shipped network for its size and rule (named by file
/// name only), else the uniform evaluator. A shipped file that cannot be loaded is reported on
/// stderr and replaced by the uniform evaluator.
fn gomoku_evaluator(cfg: &GomokuConfig, device: &alphazero_nn::Device) -> GomokuChoice {
    let uniform = || -> GomokuChoice { (Arc::new(UniformEvaluator), GOMOKU_UNIFORM.into()) };
    match engine::shipped_model_path::<Gomoku>(cfg) {
        Some(p) => match engine::load_network::<Gomoku>(&p, cfg, device) {
            Ok((e, desc)) => (
                e,
                format!("shipped {}", engine::public_description(&desc, &p)),
            ),
            Err(e) => {
                eprintln!("warning: {e:#}; using the uniform evaluator");
                uniform()
            }
        },
        None => uniform(),
    }
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
    // Shipped networks where they exist, the uniform evaluator otherwise (each says which on
    // stderr). The page and game records name the file only, not the server's folders.
    let c4 = engine::choose_evaluator::<Connect4>(None, &Connect4Config, &device)?;
    let xq = engine::choose_evaluator::<Xiangqi>(None, &XiangqiConfig::default(), &device)?;
    let (c4_desc, xq_desc) = (c4.public_description(), xq.public_description());
    let (c4, xq) = (c4.evaluator, xq.evaluator);
    let gomoku_device = device.clone();
    // One evaluator per board size and rule, loaded on first use and kept: the shipped network
    // for that size and rule when there is one, else the uniform evaluator.
    let gomoku_cache: Mutex<HashMap<GomokuConfig, GomokuChoice>> = Mutex::new(HashMap::new());
    let gomoku = move |cfg: &GomokuConfig| -> GomokuChoice {
        let mut cache = gomoku_cache.lock().unwrap_or_else(|p| p.into_inner());
        cache
            .entry(*cfg)
            .or_insert_with(|| gomoku_evaluator(cfg, &gomoku_device))
            .clone()
    };
    let engines = Engines {
        gomoku: Arc::new(gomoku),
        xiangqi: Arc::new(move || xq.clone()),
        connect4: Arc::new(move || c4.clone()),
        describe: Descriptions {
            xiangqi: xq_desc,
            connect4: c4_desc,
        },
        ..Engines::uniform()
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
