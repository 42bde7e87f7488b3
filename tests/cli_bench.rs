//! `alphazero bench`: the output format only (no timings are asserted).
mod common;
use common::alphazero;

#[test]
fn bench_perft_quick_prints_one_greppable_line() {
    let out = alphazero(&["bench", "perft", "--quick"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}", out.stdout);
    let t: Vec<&str> = lines[0].split(' ').collect();
    assert_eq!(t.len(), 4, "{}", lines[0]);
    assert_eq!((t[0], t[1], t[3]), ("bench", "perft-xiangqi-d4", "nodes/s"));
    assert!(t[2].parse::<f64>().unwrap() > 0.0);
    assert!(out.stderr.contains("3290240 nodes"), "{}", out.stderr);
}
