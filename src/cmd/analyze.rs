//! `alphazero analyze`: searches one position and shows where the search looked — the root
//! visit distribution as a heatmap PNG on the board, and a table of the top moves on stdout.
//! The drawing itself is in [`crate::present`].
use crate::engine::{device, load_evaluator, search_position};
use crate::games::GameArgs;
use crate::present::{board_text, draw_heatmap, pv_words, top_moves_table, use_color, BoardView};
use alphazero_game::History;
use alphazero_registry::with_game;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// Arguments of `alphazero analyze`.
#[derive(clap::Args, Debug)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    game: GameArgs,
    /// The position: a FEN (Xiangqi, optionally followed by `moves …`) or a move list from the
    /// start (Connect Four also as a digit string like `4453`).
    #[arg(long, default_value = "", conflicts_with = "file")]
    position: String,
    /// A game record to analyse instead: PGN (any game; Xiangqi in ICCS or WXF), PSQ or SGF
    /// (Gomoku), told apart by the extension or the text. Its board size and rule are used
    /// unless --size / --rule say otherwise (then they must agree). The final position is
    /// analysed unless --ply is given.
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
    /// Which game of a file holding several (0 = the first).
    #[arg(long, default_value_t = 0, requires = "file")]
    game_index: usize,
    /// Analyse the position after this many moves of the --file game (0 = its start).
    #[arg(long, requires = "file")]
    ply: Option<usize>,
    /// Search simulations.
    #[arg(long, default_value_t = 800, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    sims: u32,
    /// Network checkpoint (default: the shipped network if there is one, else uniform).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Device: `default`, `cpu`, or `cuda[:N]` with the `cuda` feature.
    #[arg(long, default_value = "default")]
    device: String,
    /// Rows of the move table.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Where to write the heatmap PNG (none if not given).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// The game of `--file` (game `--game-index`, cut after `--ply` moves) and the configuration
/// it is played under: the file's size and rule, which must agree with `--size` / `--rule`
/// when those are given.
fn file_position<G: BoardView>(
    cfg: &G::Config,
    path: &Path,
    args: &AnalyzeArgs,
) -> Result<(History<G>, G::Config)> {
    let records = super::records::read_game_file::<G>(path, cfg)?;
    let n = records.len();
    let rec = records.into_iter().nth(args.game_index).with_context(|| {
        format!(
            "--game-index {} (counted from 0): {} holds {}",
            args.game_index,
            path.display(),
            super::count(n, "game")
        )
    })?;
    let file_cfg = rec.history.start().config().clone();
    if (args.game.size.is_some() || args.game.rule.is_some()) && &file_cfg != cfg {
        bail!(
            "{} is a game of {} but --size/--rule ask for {}",
            path.display(),
            G::spec(&file_cfg).words(),
            G::spec(cfg).words()
        );
    }
    let plies = rec.history.len();
    let ply = args.ply.unwrap_or(plies);
    if ply > plies {
        bail!(
            "--ply {ply}: game {} of {} has {plies} moves",
            args.game_index,
            path.display()
        );
    }
    let mut h = History::new(rec.history.start().clone());
    for &m in &rec.history.moves()[..ply] {
        h.play_unchecked(m);
    }
    eprintln!(
        "{}: game {} ({} vs {}), position after {ply} of {plies} moves",
        path.display(),
        args.game_index,
        or_unknown(&rec.players[0]),
        or_unknown(&rec.players[1]),
    );
    Ok((h, file_cfg))
}

fn or_unknown(name: &str) -> &str {
    if name.is_empty() {
        "?"
    } else {
        name
    }
}

fn run_for<G: BoardView>(cfg: &G::Config, args: &AnalyzeArgs) -> Result<()> {
    let (game, cfg) = match &args.file {
        Some(path) => file_position::<G>(cfg, path, args)?,
        None => (
            G::parse_position(cfg, &args.position).context("--position")?,
            cfg.clone(),
        ),
    };
    let cfg = &cfg;
    let pos = game.current();
    if let Some(o) = game.outcome() {
        bail!("the position is already decided ({o:?} for the side to move); nothing to analyze");
    }
    if let Some(out) = &args.out {
        super::check_output_path("--out", out)?;
        // The heatmap is a PNG whatever the name says: `x.jpg` would hold PNG bytes.
        if !out
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("png"))
        {
            anyhow::bail!(
                "--out {}: the heatmap is written as PNG; give a file name ending in .png",
                out.display()
            );
        }
    }
    let dev = device(&args.device)?;
    let (eval, _) = load_evaluator::<G>(args.model.as_deref(), cfg, &dev)?;
    let config = crate::engine::play_search::<G>(Some(args.sims), 0);
    let r = search_position(&game, &*eval, &config, None)?;
    println!("{}", board_text(pos, use_color()));
    println!(
        "{} to move; root value {:+.3} (from the side to move), {} simulations{}",
        G::side_name(pos.side_to_move()),
        r.root_value,
        r.simulations,
        match r.proven {
            Some(o) => format!(", proven {o:?}"),
            None => String::new(),
        }
    );
    let pv = pv_words(pos, &r.pv);
    println!(
        "best {}  pv {}",
        r.pv.first().map(|&m| pos.move_words(m)).unwrap_or_default(),
        pv.join(" ")
    );
    print!("{}", top_moves_table(pos, &r, args.top.max(1)));
    if let Some(out) = &args.out {
        let total: u32 = r.children.iter().map(|c| c.visits).sum::<u32>().max(1);
        let heat: Vec<(G::Move, f32)> = r
            .children
            .iter()
            .map(|c| (c.mv, c.visits as f32 / total as f32))
            .collect();
        draw_heatmap(pos, &heat, out)?;
        eprintln!("heatmap written to {}", out.display());
    }
    Ok(())
}

/// Runs `alphazero analyze`.
pub fn run(args: &AnalyzeArgs) -> Result<()> {
    let spec = args.game.spec()?;
    with_game!(&spec, G, cfg => run_for::<G>(cfg, args))
}
