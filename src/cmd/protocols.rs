//! `alphazero gomocup` and `alphazero ucci`: the engine on stdin/stdout for GUIs and tournament
//! managers (Piskvork / Gomocup; UCCI / UCI Xiangqi GUIs).
use crate::engine::{run_gomocup_brain, run_ucci_engine, BrainOptions};
use anyhow::Result;
use std::path::PathBuf;

/// Arguments of `alphazero gomocup` and `alphazero ucci`.
#[derive(clap::Args, Debug)]
pub struct EngineArgs {
    /// Network checkpoint, or a training run's folder for its champion (default: the shipped
    /// network if there is one, else the uniform evaluator).
    #[arg(long, value_name = "FILE|RUN_DIR", value_parser = crate::cmd::model_arg)]
    model: Option<PathBuf>,
    /// Device: `default`, `cpu`, `cuda[:N]` or `wgpu[:N]` in builds with the `cuda` / `wgpu`
    /// feature (docs/training.md, GPU).
    #[arg(long, default_value = "default")]
    device: String,
    /// Play exactly N simulations per move and ignore the clock (reproducible answers).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000_000))]
    fixed_sims: Option<u32>,
    /// Spend every move's share of a match clock evenly. By default, on a match clock
    /// (Gomocup `timeout_match`/`time_left`, UCCI/UCI `time`/`wtime`/`btime`) a search stops
    /// early once its move cannot change and takes up to 3 shares when it is unsure.
    #[arg(long)]
    flat_time: bool,
    /// Start every search from an empty tree. By default a search starts from the previous
    /// search's subtree of the moves played since, keeping its visits.
    #[arg(long)]
    no_tree_reuse: bool,
}

impl EngineArgs {
    fn options(&self) -> BrainOptions {
        BrainOptions {
            model: self.model.clone(),
            device: self.device.clone(),
            fixed_simulations: self.fixed_sims,
            flat_time: self.flat_time,
            no_tree_reuse: self.no_tree_reuse,
        }
    }
}

/// Runs `alphazero gomocup`.
pub fn run_gomocup(args: &EngineArgs) -> Result<()> {
    run_gomocup_brain(&args.options())
}

/// Runs `alphazero ucci`.
pub fn run_ucci(args: &EngineArgs) -> Result<()> {
    run_ucci_engine(&args.options())
}
