//! `alphazero records`: inspect self-play game records (`.azr` files written by `train`), and
//! export games in the formats other programs read (PGN, SGF, PSQ). The work is in
//! [`crate::work::records`], whose record-file helpers the other commands reach here.
pub use crate::work::records::read_game_file;
use crate::work::records::{export, list, show};
pub use alphazero_engine::files::write_atomic;
use anyhow::Result;
use std::path::PathBuf;

/// Arguments of `alphazero records`.
#[derive(clap::Args, Debug)]
pub struct RecordsArgs {
    #[command(subcommand)]
    command: RecordsCommand,
}

#[derive(clap::Subcommand, Debug)]
enum RecordsCommand {
    /// Prints a record file: header, then per game the result, flags and moves; with `--ply`
    /// the board before that ply and the search's move distribution π.
    Show {
        /// The record file (`records/000000.azr` in a run directory).
        file: PathBuf,
        /// Only this game (0-based index in the file).
        #[arg(long)]
        game_index: Option<usize>,
        /// Show the position before this ply (0-based) with π and the root value (game 0 unless
        /// --game-index is given).
        #[arg(long)]
        ply: Option<usize>,
    },
    /// Lists the record files of a run directory with their game and position counts.
    List {
        /// The run directory (or a folder of `.azr` files).
        run_dir: PathBuf,
    },
    /// Writes games in a format other programs read: PGN (any game; Xiangqi in the XQBase
    /// dialect), SGF or PSQ (Gomoku). The input is a self-play record file (`.azr`) or a
    /// `.pgn` / `.sgf` / `.psq` file (converted).
    Export {
        /// The games: a `.azr` record file, or a PGN, SGF or PSQ file.
        file: PathBuf,
        /// Where to write. PSQ holds one game per file: with several games this is a folder,
        /// which gets `game-0001.psq`, `game-0002.psq`, …
        #[arg(long)]
        out: PathBuf,
        /// The format to write: pgn, sgf or psq (default: the extension of --out).
        #[arg(long)]
        to: Option<String>,
        /// Only this game (0-based index in the file).
        #[arg(long)]
        game_index: Option<usize>,
        /// Xiangqi moves in PGN: iccs (H2-E2) or wxf (C2=5).
        #[arg(long, default_value = "iccs")]
        notation: String,
        /// The Gomoku rule of a PSQ input (PSQ files do not name one): freestyle, standard or
        /// renju.
        #[arg(long)]
        rule: Option<String>,
    },
}

/// Runs `alphazero records`.
pub fn run(args: &RecordsArgs) -> Result<()> {
    match &args.command {
        RecordsCommand::Show {
            file,
            game_index,
            ply,
        } => show(file, *game_index, *ply),
        RecordsCommand::List { run_dir } => list(run_dir),
        RecordsCommand::Export {
            file,
            out,
            to,
            game_index,
            notation,
            rule,
        } => export(
            file,
            out,
            to.as_deref(),
            *game_index,
            notation,
            rule.as_deref(),
        ),
    }
}
