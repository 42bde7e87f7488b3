//! `alphazero bench`: throughput figures in a stable, greppable format — one line
//! `bench <name> <figure> <unit>` per figure on stdout (details on stderr). The benchmarks
//! are [`crate::work::bench`].
use crate::work::bench::BenchWhat;
use anyhow::Result;

/// Arguments of `alphazero bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Which benchmark.
    #[arg(value_enum, default_value = "all")]
    pub(crate) what: BenchWhat,
    /// Shorter runs (perft depth 4, fewer simulations, 0.3 s per network figure).
    #[arg(long)]
    pub(crate) quick: bool,
    /// Device for the network benchmarks: `default`, `cpu`, `cuda[:N]` or `wgpu[:N]` in builds with
    /// the `cuda` / `wgpu` feature (docs/training.md, GPU).
    #[arg(long, default_value = "default")]
    pub(crate) device: String,
    /// Self-play worker counts to measure the config-file games with (0 = one per core).
    #[arg(long, value_delimiter = ',', default_value = "1,0")]
    pub(crate) workers: Vec<usize>,
    /// Games per self-play figure of the config-file games (default: the config's
    /// `selfplay.games_per_iteration`, with `--quick` 8); they are played all at once.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub(crate) games: Option<u64>,
}

/// Runs `alphazero bench`.
pub fn run(args: &BenchArgs) -> Result<()> {
    crate::work::bench::run(args)
}
