//! `alphazero gomocup` and `alphazero ucci`: the engine on stdin/stdout for GUIs and tournament
//! managers (Piskvork / Gomocup; UCCI / UCI Xiangqi GUIs). Their arguments are
//! [`BrainOptions`], the same as `pbrain-alphazero`'s.
use crate::cmd::model_path;
use crate::engine::{run_gomocup_brain, run_ucci_engine, BrainOptions};
use anyhow::Result;

/// Runs `alphazero gomocup`.
pub fn run_gomocup(args: &BrainOptions) -> Result<()> {
    run_gomocup_brain(args, &model_path)
}

/// Runs `alphazero ucci`.
pub fn run_ucci(args: &BrainOptions) -> Result<()> {
    run_ucci_engine(args, &model_path)
}
