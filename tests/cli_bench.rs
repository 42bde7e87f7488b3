//! `alphazero bench`: the output format only (no timings are asserted).
mod common;
use common::{alphazero, assert_clean_error};

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

/// `--games 0` ran the first self-play figure and then failed on the second ("parallel_games:
/// must be at least 1"); it is refused before any work, naming the flag.
#[test]
fn bench_selfplay_zero_games_is_refused_before_any_work() {
    let out = alphazero(&["bench", "selfplay", "--games", "0", "--workers", "1"]);
    assert_clean_error(&out, "bench selfplay --games 0");
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(out.stderr.contains("--games"), "{}", out.stderr);
    assert!(out.stderr.contains("1..=1000000"), "{}", out.stderr);
}
