//! `alphazero`: learn board games from zero by AlphaZero self-play, then play and measure them.
//!
//! Subcommands are added here as the crates behind them land.
use clap::{Parser, Subcommand};

mod cmd;
mod games;

/// AlphaZero self-play learning for Gomoku, Xiangqi and Connect Four.
#[derive(Parser, Debug)]
#[command(name = "alphazero", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Counts the leaf nodes of the legal-move tree (move-generator check; prints the total
    /// alone on the last line).
    Perft(cmd::perft::PerftArgs),
    /// Learns a game from zero by self-play: self-play → replay buffer → training → gating,
    /// resumable (run it again on the same --run directory to continue).
    Train(cmd::train::TrainArgs),
}

fn main() {
    let cli = Cli::parse();
    let result: anyhow::Result<()> = match cli.command {
        Command::Perft(a) => cmd::perft::run(&a),
        Command::Train(a) => cmd::train::run(&a),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
