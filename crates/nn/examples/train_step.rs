//! Runs the training benchmark of `alphazero bench nn` (6×64, 15×15 Gomoku shapes, batch 256,
//! AdamW) alone, for profiling: `cargo run --release -p alphazero-nn --example train_step
//! [SECONDS] [aux]`; prints samples/s. Run with `RAYON_NUM_THREADS=1` for the one-thread
//! figure. `aux` trains the auxiliary heads as well (reply weight 0.15, ownership weight 1).
use std::time::Duration;

use alphazero_nn::bench::{bench_training_with, gomoku15_config};
use alphazero_nn::{default_device, ModelPreset, TrainerConfig};

fn main() {
    let usage = "usage: train_step [SECONDS > 0, default 10] [aux]";
    let args: Vec<String> = std::env::args().skip(1).collect();
    let secs: f64 = match args.first() {
        None => 10.0,
        Some(s) => match s.parse::<f64>() {
            Ok(v) if v.is_finite() && v > 0.0 => v,
            _ => {
                eprintln!("train_step: SECONDS must be a number > 0 (got {s:?}); {usage}");
                std::process::exit(2);
            }
        },
    };
    let aux = match args.get(1).map(String::as_str) {
        None => false,
        Some("aux") => true,
        Some(other) => {
            eprintln!("train_step: the second argument can only be `aux` (got {other:?}); {usage}");
            std::process::exit(2);
        }
    };
    if args.len() > 2 {
        eprintln!("train_step: too many arguments; {usage}");
        std::process::exit(2);
    }
    let train = TrainerConfig {
        aux_policy_weight: if aux { 0.15 } else { 0.0 },
        aux_ownership_weight: if aux { 1.0 } else { 0.0 },
        ..TrainerConfig::default()
    };
    let config = gomoku15_config(ModelPreset::Medium);
    let f = bench_training_with(
        &config,
        &train,
        256,
        Duration::from_secs_f64(secs),
        &default_device(),
    );
    println!(
        "train {} b{}{}: {:.1} samples/s, {:.1} GFLOP/s",
        f.model,
        f.batch,
        if aux { " aux" } else { "" },
        f.samples_per_sec,
        f.gflops
    );
}
