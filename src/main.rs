//! `alphazero`: learn board games from zero by AlphaZero self-play, then play and measure them.
//!
//! Subcommands are added here as the crates behind them land.
use clap::{Parser, Subcommand};

mod cmd;
mod games;
mod stdout;

use alphazero_engine as engine;
use alphazero_engine::present;

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
    /// Self-play for a run on shared storage (a bucket): plays batches with the run's latest
    /// committed champion and publishes them for the learner; any number may run, anywhere.
    Actor(cmd::roles::ActorArgs),
    /// Trains a run on shared storage (a bucket) from the actors' batches: ingest → training →
    /// gating → champions for the actors; resumable (run it again to continue).
    Learner(cmd::roles::LearnerArgs),
    /// Serves the web page to play the games in a browser, with the search's heatmap.
    Serve(cmd::serve::ServeArgs),
    /// Plays a game in the terminal against the engine: type moves in the game's notation,
    /// `undo`, `hint`, `quit`.
    Play(cmd::play::PlayArgs),
    /// Searches one position: a table of the top moves on stdout and the visit heatmap as a PNG.
    Analyze(cmd::analyze::AnalyzeArgs),
    /// Matches between players (baselines, networks, external engines): cross table,
    /// Bradley–Terry ratings, SPRT; or a rating ladder over a run's networks.
    Arena(Box<cmd::arena::ArenaArgs>),
    /// Learning-quality reports: Connect Four against the solver, value calibration of a run.
    Eval(cmd::eval::EvalArgs),
    /// Inspects self-play game records (`.azr`) and exports games as PGN, SGF or PSQ.
    Records(cmd::records::RecordsArgs),
    /// Exports a network for other programs: an ONNX model (`--out F.onnx`), or plain
    /// safetensors plus a JSON description (shapes, input planes, policy layout, value
    /// perspective).
    Export(cmd::export::ExportArgs),
    /// Distils a Gomoku network into a fast line-pattern evaluator (`.azm`): `data` (the
    /// teacher's labelled positions), `train`, `gates` (agreement and speed against the teacher).
    Distill(cmd::distill::DistillArgs),
    /// Gomocup brain on stdin/stdout (Piskvork protocol).
    Gomocup(cmd::protocols::EngineArgs),
    /// UCCI / UCI Xiangqi engine on stdin/stdout.
    Ucci(cmd::protocols::EngineArgs),
    /// Throughput benchmarks, one `bench <name> <figure> <unit>` line per figure.
    Bench(cmd::bench::BenchArgs),
}

/// Lets a closed stdout (`alphazero records show F | head`) end the process the usual Unix
/// way, by `SIGPIPE`, instead of `println!` panicking on the `EPIPE` error (Rust ignores
/// `SIGPIPE` by default). Only for commands that start no child process and serve no socket:
/// there a peer that goes away must be an error, not the end of the program.
fn default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called at the start of `main`, before any other thread exists; restoring a
    // signal's default disposition has no other effect on the program's state.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() {
    let cli = Cli::parse();
    match cli.command {
        // Child processes (external engines), sockets and protocol pipes: keep SIGPIPE ignored.
        Command::Arena(_) | Command::Serve(_) | Command::Gomocup(_) | Command::Ucci(_) => {}
        _ => default_sigpipe(),
    }
    // The storage's log lines (an object store unreachable, then reachable again).
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .init();
    let result: anyhow::Result<()> = match cli.command {
        Command::Perft(a) => cmd::perft::run(&a),
        Command::Serve(a) => cmd::serve::run(&a),
        Command::Train(a) => cmd::train::run(&a),
        Command::Actor(a) => cmd::roles::run_actor(&a),
        Command::Learner(a) => cmd::roles::run_learner(&a),
        Command::Play(a) => cmd::play::run(&a),
        Command::Analyze(a) => cmd::analyze::run(&a),
        Command::Arena(a) => cmd::arena::run(&a),
        Command::Eval(a) => cmd::eval::run(&a),
        Command::Records(a) => cmd::records::run(&a),
        Command::Export(a) => cmd::export::run(&a),
        Command::Distill(a) => cmd::distill::run(&a),
        Command::Gomocup(a) => cmd::protocols::run_gomocup(&a),
        Command::Ucci(a) => cmd::protocols::run_ucci(&a),
        Command::Bench(a) => cmd::bench::run(&a),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    #[test]
    fn the_compose_files_commands_are_valid_command_lines_of_this_binary() {
        let text = include_str!("../deploy/compose.yaml");
        let mut roles = Vec::new();
        for line in text.lines() {
            let Some(list) = line.trim().strip_prefix("command: ") else {
                continue;
            };
            // The commands are flow sequences of double-quoted strings: JSON arrays.
            let args: Vec<String> = serde_json::from_str(list).expect("a JSON array");
            if args[0] == "server" {
                continue; // MinIO's
            }
            let argv = std::iter::once("alphazero".to_string()).chain(args.iter().cloned());
            if let Err(e) = super::Cli::try_parse_from(argv) {
                panic!("deploy/compose.yaml: {args:?}: {e}");
            }
            roles.push(args[0].clone());
        }
        assert_eq!(roles, ["learner", "actor"]);
    }
}
