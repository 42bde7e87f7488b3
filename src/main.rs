//! `alphazero`: learn board games from zero by AlphaZero self-play, then play and measure them.
//!
//! Subcommands are added here as the crates behind them land.
use clap::{Parser, Subcommand};

/// `println!` for commands that must keep `SIGPIPE` ignored (they talk to child processes or
/// sockets): a closed stdout (`| head`) ends the program quietly with the shell's SIGPIPE status
/// 141 instead of panicking; another write error is reported and exits 1.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` counterpart of [`outln!`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::write_stdout(format_args!($($arg)*))
    };
}

mod cmd;
mod engine;
mod games;
mod present;

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
    Arena(Box<cmd::arena::ArenaArgs>),
    /// Learning-quality reports: Connect Four against the solver, value calibration of a run.
    Eval(cmd::eval::EvalArgs),
    /// Inspects self-play game records (`.azr`) and exports games as PGN, SGF or PSQ.
    Records(cmd::records::RecordsArgs),
    /// Exports a network as plain safetensors plus a JSON description (shapes, input planes,
    /// policy layout, value perspective) for other programs.
    Export(cmd::export::ExportArgs),
    /// Gomocup brain on stdin/stdout (Piskvork protocol).
    Gomocup(cmd::protocols::EngineArgs),
    /// UCCI / UCI Xiangqi engine on stdin/stdout.
    Ucci(cmd::protocols::EngineArgs),
    /// Throughput benchmarks, one `bench <name> <figure> <unit>` line per figure.
    Bench(cmd::bench::BenchArgs),
}

/// Writes to stdout; see [`outln!`].
fn write_stdout(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(141);
        }
        eprintln!("error: writing to stdout: {e}");
        std::process::exit(1);
    }
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
    let result: anyhow::Result<()> = match cli.command {
        Command::Perft(a) => cmd::perft::run(&a),
        Command::Serve(a) => cmd::serve::run(&a),
        Command::Train(a) => cmd::train::run(&a),
        Command::Play(a) => cmd::play::run(&a),
        Command::Analyze(a) => cmd::analyze::run(&a),
        Command::Arena(a) => cmd::arena::run(&a),
        Command::Eval(a) => cmd::eval::run(&a),
        Command::Records(a) => cmd::records::run(&a),
        Command::Export(a) => cmd::export::run(&a),
        Command::Gomocup(a) => cmd::protocols::run_gomocup(&a),
        Command::Ucci(a) => cmd::protocols::run_ucci(&a),
        Command::Bench(a) => cmd::bench::run(&a),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
