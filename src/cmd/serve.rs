//! `alphazero serve`: the web page to play every game against the engine, with the search's
//! visit heatmap (see `crates/web/API.md` for the JSON API behind it).
use crate::engine;
use alphazero_connect4::{Connect4, Connect4Config};
use alphazero_gomoku::Gomoku;
use alphazero_mcts::{Evaluator, UniformEvaluator};
use alphazero_web::{Descriptions, Engines};
use alphazero_xiangqi::{Xiangqi, XiangqiConfig};
use anyhow::{Context, Result};
use std::net::SocketAddr;
use std::sync::Arc;

/// Arguments of `alphazero serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on (keep it on loopback unless you mean to expose it).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: String,
    /// Device for the networks: `cpu`, or `cuda[:N]` in builds with the `cuda` feature.
    #[arg(long, default_value = "default")]
    device: String,
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
    let gomoku = move |cfg: &alphazero_gomoku::GomokuConfig| -> Arc<dyn Evaluator<Gomoku>> {
        match engine::shipped_model_path::<Gomoku>(cfg) {
            Some(p) => match engine::load_network::<Gomoku>(&p, cfg, &gomoku_device) {
                Ok((e, _)) => e,
                Err(e) => {
                    eprintln!("warning: {e:#}; using the uniform evaluator");
                    Arc::new(UniformEvaluator)
                }
            },
            None => Arc::new(UniformEvaluator),
        }
    };
    let engines = Engines {
        gomoku: Arc::new(gomoku),
        xiangqi: Arc::new(move || xq.clone()),
        connect4: Arc::new(move || c4.clone()),
        describe: Descriptions {
            gomoku: "shipped network for 8×8 freestyle when present, else the uniform evaluator"
                .into(),
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
        alphazero_web::serve_listener(listener, engines).await
    })?;
    Ok(())
}
