//! `alphazero play`: a game in the terminal against the engine (or engine against itself).
//! `--save FILE` writes the game as PGN, SGF or PSQ when it ends or you quit (Ctrl-C
//! included). The game itself is [`crate::work::play`].
use crate::games::GameArgs;
use crate::work::play::play;
use anyhow::Result;
use std::path::PathBuf;

/// Arguments of `alphazero play`.
#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    pub(crate) game: GameArgs,
    /// Network checkpoint, or a training run's folder for its champion (default: the
    /// shipped network if there is one, else uniform).
    #[arg(long, value_name = "FILE|RUN_DIR", value_parser = crate::cmd::model_arg)]
    pub(crate) model: Option<PathBuf>,
    /// Device: `default`, `cpu`, `cuda[:N]` or `wgpu[:N]` in builds with the `cuda` / `wgpu`
    /// feature (docs/training.md, GPU).
    #[arg(long, default_value = "default")]
    pub(crate) device: String,
    /// Engine simulations per move (also for `hint`); `--simulations`, the web API's name, too.
    #[arg(long, visible_alias = "simulations", default_value_t = 800, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    pub(crate) sims: u32,
    /// Engine thinking time per move in milliseconds (stops at --sims or the time, whichever
    /// comes first).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub(crate) movetime: Option<u64>,
    /// Which side you play: first or second, the game's colour (Gomoku black|white, Xiangqi
    /// red|black), or none (the engine plays both).
    #[arg(long, default_value = "first")]
    pub(crate) human: String,
    /// Start position: a FEN (Xiangqi, optionally with `moves …`) or a move list.
    #[arg(long)]
    pub(crate) position: Option<String>,
    /// Seed of the engine's search.
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,
    /// Write the game here when it ends or you quit (Ctrl-C too): `.pgn` (any game), `.sgf`
    /// or `.psq` (Gomoku), by the extension.
    #[arg(long, value_name = "FILE")]
    pub(crate) save: Option<PathBuf>,
    /// Xiangqi moves in a --save PGN: iccs (H2-E2) or wxf (C2=5).
    #[arg(long, default_value = "iccs")]
    pub(crate) notation: String,
}

/// Runs `alphazero play`.
pub fn run(args: &PlayArgs) -> Result<()> {
    play(&args.game.spec()?, args)
}
