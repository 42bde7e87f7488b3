//! Runs the training benchmark of `alphazero bench nn` (6×64, 15×15 Gomoku shapes, batch 256,
//! AdamW) alone, for profiling: `cargo run --release -p alphazero-nn --example train_step
//! [SECONDS] [aux]`; prints samples/s. Run with `RAYON_NUM_THREADS=1` for the one-thread
//! figure. `aux` trains the auxiliary heads as well (reply weight 0.15, ownership weight 1).
use std::time::Duration;

use alphazero_nn::bench::{bench_training_with, gomoku15_config};
use alphazero_nn::{default_device, ModelPreset, TrainConfig};

fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10.0);
    let aux = std::env::args().nth(2).is_some_and(|a| a == "aux");
    let train = TrainConfig {
        aux_policy_weight: if aux { 0.15 } else { 0.0 },
        aux_ownership_weight: if aux { 1.0 } else { 0.0 },
        ..TrainConfig::default()
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
