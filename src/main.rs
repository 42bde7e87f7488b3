//! `alphazero`: learn board games from zero by AlphaZero self-play, then play and measure them.
//!
//! Subcommands are added here as the crates behind them land.
use clap::{Parser, Subcommand};

mod cmd;
mod engine;
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
    /// Serves the web page to play the games in a browser, with the search's heatmap.
    Serve(cmd::serve::ServeArgs),
    /// Plays a game in the terminal against the engine: type moves in the game's notation,
    /// `undo`, `hint`, `quit`.
    Play(cmd::play::PlayArgs),
    /// Searches one position: a table of the top moves on stdout and the visit heatmap as a PNG.
    Analyze(cmd::analyze::AnalyzeArgs),
    /// Matches between players (baselines, networks, external engines): cross table,
    /// Bradley–Terry ratings, SPRT; or a rating ladder over a run's networks.
    Arena(cmd::arena::ArenaArgs),
    /// Learning-quality reports: Connect Four against the solver, value calibration of a run.
    Eval(cmd::eval::EvalArgs),
    /// Inspects self-play game records (`.azr`).
    Records(cmd::records::RecordsArgs),
    /// Gomocup brain on stdin/stdout (Piskvork protocol).
    Gomocup(cmd::protocols::EngineArgs),
    /// UCCI / UCI Xiangqi engine on stdin/stdout.
    Ucci(cmd::protocols::EngineArgs),
    /// Throughput benchmarks, one `bench <name> <figure> <unit>` line per figure.
    Bench(cmd::bench::BenchArgs),
}

fn main() {
    let cli = Cli::parse();
    let result: anyhow::Result<()> = match cli.command {
        Command::Perft(a) => cmd::perft::run(&a),
        Command::Serve(a) => cmd::serve::run(&a),
        Command::Train(a) => cmd::train::run(&a),
        Command::Play(a) => cmd::play::run(&a),
        Command::Analyze(a) => cmd::analyze::run(&a),
        Command::Arena(a) => cmd::arena::run(&a),
        Command::Eval(a) => cmd::eval::run(&a),
        Command::Records(a) => cmd::records::run(&a),
        Command::Gomocup(a) => cmd::protocols::run_gomocup(&a),
        Command::Ucci(a) => cmd::protocols::run_ucci(&a),
        Command::Bench(a) => cmd::bench::run(&a),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
