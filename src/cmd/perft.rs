//! `alphazero perft`: counts the leaf nodes of the legal-move tree to a fixed depth.
use crate::games::{check_depth, GameArgs, PositionText};
use alphazero_registry::{with_game, Registered};
use anyhow::{Context, Result};
use std::time::Instant;

/// Arguments of `alphazero perft`.
#[derive(clap::Args, Debug)]
pub struct PerftArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Start position: a FEN (Xiangqi, optionally followed by `moves …`) or a move list.
    #[arg(long, alias = "position")]
    fen: Option<String>,
    /// Depth in plies (1–12).
    #[arg(long)]
    depth: u32,
    /// Print the node count below each legal move first.
    #[arg(long)]
    divide: bool,
}

fn run_for<G: PositionText + Registered>(cfg: &G::Config, args: &PerftArgs) -> Result<()> {
    let pos = match &args.fen {
        Some(text) if text.trim().is_empty() => {
            anyhow::bail!("--fen is empty (leave it out for the start position)")
        }
        Some(text) => G::parse_position(cfg, text)
            .context("--fen")?
            .current()
            .clone(),
        None => G::new(cfg),
    };
    let start = Instant::now();
    let mut total = 0;
    if args.divide {
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        for m in moves {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let n = if args.depth == 1 {
                1
            } else {
                child.perft(args.depth - 1)
            };
            println!("{}: {n}", pos.format_move(m));
            total += n;
        }
    } else {
        total = pos.perft(args.depth);
    }
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "perft {} depth {}: {total} nodes in {secs:.3} s ({:.2} M nodes/s)",
        G::NAME,
        args.depth,
        total as f64 / secs.max(1e-9) / 1e6
    );
    println!("{total}");
    Ok(())
}

/// Runs `alphazero perft`.
pub fn run(args: &PerftArgs) -> Result<()> {
    check_depth(args.depth)?;
    let spec = args.game.spec()?;
    with_game!(&spec, G, cfg => run_for::<G>(cfg, args))
}
