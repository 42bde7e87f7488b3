//! Runs the network benchmarks (`alphazero bench nn` calls the same function).
//!
//! `cargo run --release -p alphazero-nn --example bench_nn [seconds-per-figure]`

use std::time::Duration;

use alphazero_nn::bench::{run, BenchOptions};
use alphazero_nn::default_device;

fn main() -> std::io::Result<()> {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.0);
    let options = BenchOptions {
        min_time: Duration::from_secs_f64(secs),
        ..BenchOptions::default()
    };
    run(&options, &default_device(), &mut std::io::stdout().lock())?;
    Ok(())
}
