//! Test fixture: our Gomocup or UCCI engine on stdin/stdout with the uniform evaluator, so
//! the protocol clients can be tested against a real engine process.
//!
//! Usage: `alphazero-protocols-fixture gomocup|ucci [SIMULATIONS]` (default 64, fixed
//! simulations, seed 0).

use std::io::{stdin, stdout, BufReader};
use std::sync::Arc;

use alphazero_mcts::UniformEvaluator;
use alphazero_protocols::{run_gomocup, run_ucci, EngineConfig};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let sims = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(64);
    let config = EngineConfig::fixed(sims, 0);
    let r = match args.get(1).map(String::as_str) {
        Some("gomocup") => run_gomocup(
            stdin().lock(),
            stdout().lock(),
            Arc::new(UniformEvaluator),
            config,
        ),
        Some("ucci") => run_ucci(
            BufReader::new(stdin()),
            stdout().lock(),
            Arc::new(UniformEvaluator),
            config,
        ),
        _ => {
            eprintln!("usage: alphazero-protocols-fixture gomocup|ucci [SIMULATIONS]");
            std::process::exit(2);
        }
    };
    if let Err(e) = r {
        eprintln!("I/O error: {e}");
        std::process::exit(1);
    }
}
