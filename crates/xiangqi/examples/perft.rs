//! Prints perft of a position and the speed: `cargo run --release --example perft -- [DEPTH] [FEN]`
//! (defaults: depth 5, start position).

use alphazero_xiangqi::{perft, Xiangqi, XiangqiConfig};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let depth: u32 = match args.next().map(|d| d.parse()) {
        None => 5,
        Some(Ok(d)) => d,
        Some(Err(e)) => {
            eprintln!("bad depth: {e}");
            std::process::exit(2);
        }
    };
    let fen = args.collect::<Vec<_>>().join(" ");
    let fen = if fen.is_empty() {
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1".to_string()
    } else {
        fen
    };
    let pos = match Xiangqi::from_fen(&fen, XiangqiConfig::default()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let t = Instant::now();
    let n = perft(&pos, depth);
    let s = t.elapsed().as_secs_f64();
    println!(
        "perft {depth}: {n} nodes in {s:.3} s = {:.2} M nodes/s",
        n as f64 / s / 1e6
    );
}
