//! Runs the training benchmark of `alphazero bench nn` (6×64, 15×15 Gomoku shapes, batch 256,
//! AdamW) alone, for profiling: `cargo run --release -p alphazero-nn --example train_step
//! [SECONDS]`; prints samples/s. Run with `RAYON_NUM_THREADS=1` for the one-thread figure.
use std::time::Duration;

use alphazero_nn::bench::{bench_training, gomoku15_config};
use alphazero_nn::{default_device, ModelPreset};

fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10.0);
    let config = gomoku15_config(ModelPreset::Medium);
    let f = bench_training(
        &config,
        256,
        Duration::from_secs_f64(secs),
        &default_device(),
    );
    println!(
        "train {} b{}: {:.1} samples/s, {:.1} GFLOP/s",
        f.model, f.batch, f.samples_per_sec, f.gflops
    );
}
