//! `alphazero eval`: learning-quality reports — Connect Four against the exact solver, and value
//! calibration of a training run.
//! The work is in [`crate::work::eval`].
use crate::games::GameArgs;
use crate::work::eval::{run_calibration, run_connect4};
use anyhow::Result;
use std::path::PathBuf;

/// Arguments of `alphazero eval`.
#[derive(clap::Args, Debug)]
pub struct EvalArgs {
    #[command(subcommand)]
    command: EvalCommand,
}

#[derive(clap::Subcommand, Debug)]
enum EvalCommand {
    /// Connect Four against the solver on Pascal Pons' test sets: per file, the share of
    /// positions where the network alone (policy argmax) picks a best move (the fastest win,
    /// the slowest loss) and a move that keeps the result (win, draw or loss; a slower win
    /// counts), where its value has the solver's sign, and the same two shares for the
    /// search's move. The solver's answers come from the sets' caches
    /// (`tests/data/connect4/scores/`: the first 200 positions of Test_L1_R1 and Test_L1_R3,
    /// all 1,000 of Test_L1_R2) where they have them.
    Connect4(Connect4Args),
    /// Value calibration of a run: the recorded root value (prediction) against the game's
    /// result z, both from the side to move, in equal bins over [-1, 1].
    Calibration {
        #[command(flatten)]
        game: GameArgs,
        /// The run directory (its `records/*.azr` are read).
        #[arg(long)]
        run: PathBuf,
        /// Number of bins.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1000))]
        bins: u64,
    },
}

/// Arguments of `alphazero eval connect4`.
#[derive(clap::Args, Debug)]
pub struct Connect4Args {
    /// Network checkpoint, or a training run's folder for its champion (without it: the
    /// shipped network if there is one, else the uniform evaluator; the report names which).
    #[arg(long, value_name = "FILE|RUN_DIR", value_parser = crate::cmd::model_arg)]
    pub(crate) model: Option<PathBuf>,
    /// Device: `default`, `cpu`, `cuda[:N]` or `wgpu[:N]` in builds with the `cuda` / `wgpu`
    /// feature (docs/training.md, GPU).
    #[arg(long, default_value = "default")]
    pub(crate) device: String,
    /// Search simulations for the search column (0 = no search).
    #[arg(long, default_value_t = 200)]
    pub(crate) sims: u32,
    /// Positions per file (the first ones).
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub(crate) lines: u64,
    /// Test files, comma-separated (default: Test_L3_R1,Test_L2_R1,Test_L2_R2,Test_L1_R1;
    /// also Test_L1_R2, Test_L1_R3: early positions, slow to solve beyond their caches).
    #[arg(long, value_delimiter = ',')]
    pub(crate) sets: Vec<String>,
    /// Test-data folder (default: `$ALPHAZERO_TESTDATA`, else the repository's
    /// `tests/data/connect4`).
    #[arg(long)]
    pub(crate) testdata: Option<PathBuf>,
}

/// Runs `alphazero eval`.
pub fn run(args: &EvalArgs) -> Result<()> {
    match &args.command {
        EvalCommand::Connect4(a) => run_connect4(a),
        EvalCommand::Calibration { game, run, bins } => {
            run_calibration(&game.spec()?, run, *bins as usize)
        }
    }
}
