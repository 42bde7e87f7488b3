//! Times the solver on the Pons test sets and checks every score.
//!
//! `cargo run --release -p alphazero-connect4 --example solve_bench -- [LIMIT] [SET...]`
//! LIMIT = positions per set (default 1000); SET defaults to L3_R1 L2_R1 L2_R2 L1_R1 L1_R2.
//! The sets are read from `$C4_TESTDATA/Test_<SET>` (default: the repository's tests/data/connect4).
use std::time::Instant;

use alphazero_connect4::{solver::Solver, Connect4};

fn main() {
    let mut args = std::env::args().skip(1);
    let limit: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let mut sets: Vec<String> = args.collect();
    if sets.is_empty() {
        sets = ["L3_R1", "L2_R1", "L2_R2", "L1_R1", "L1_R2"]
            .map(String::from)
            .to_vec();
    }
    let dir = std::env::var("C4_TESTDATA").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/connect4").to_string()
    });
    let mut solver = Solver::new();
    for set in sets {
        let path = format!("{dir}/Test_{set}");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        solver.reset();
        let (mut n, mut wrong) = (0usize, 0usize);
        let mut times = Vec::new();
        let start = Instant::now();
        for line in text.lines().take(limit) {
            let mut it = line.split_whitespace();
            let (Some(moves), Some(score)) = (it.next(), it.next()) else {
                continue;
            };
            let expected: i32 = score.parse().expect("score");
            let pos = Connect4::from_moves(moves).expect("moves");
            let t = Instant::now();
            let nodes = solver.nodes();
            let got = solver.solve(&pos);
            times.push((t.elapsed().as_secs_f64(), solver.nodes() - nodes, moves));
            if got != expected {
                wrong += 1;
                eprintln!("{set}: {moves}: expected {expected}, got {got}");
            }
            n += 1;
        }
        let total = start.elapsed().as_secs_f64();
        times.sort_by(|a, b| b.0.total_cmp(&a.0));
        let pct = |q: f64| 1e3 * times[((1.0 - q) * n as f64) as usize].0;
        println!(
            "Test_{set}: {n} positions, {wrong} wrong, total {total:.3} s, mean {:.3} ms, \
             median {:.3} ms, p99 {:.3} ms, max {:.3} ms, {:.0} nodes/position",
            1e3 * total / n as f64,
            pct(0.5),
            pct(0.99),
            1e3 * times[0].0,
            solver.nodes() as f64 / n as f64
        );
        for (t, nodes, moves) in times.iter().take(3) {
            println!("  slowest: {moves} {:.3} ms {nodes} nodes", 1e3 * t);
        }
    }
}
