//! The `alphazero perft` command: last line is the node count; bad input is one error line and a
//! non-zero exit, never a panic.
mod common;
use common::{alphazero, Output};

#[test]
fn perft_cli_matches_every_shared_row_at_depth_3() {
    let data = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/xiangqi/perft.tsv"
    ))
    .expect("shared perft.tsv");
    let mut rows = 0;
    for line in data
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let Output {
            code,
            stdout,
            stderr,
        } = alphazero(&[
            "perft", "--game", "xiangqi", "--fen", cols[0], "--depth", "3",
        ]);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(stdout.lines().last(), Some(cols[3]), "FEN {}", cols[0]);
        rows += 1;
    }
    assert_eq!(rows, 14);
}

#[test]
fn perft_divide_sums_to_total() {
    let Output { code, stdout, .. } =
        alphazero(&["perft", "--game", "xiangqi", "--depth", "2", "--divide"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = stdout.lines().collect();
    let total: u64 = lines.last().unwrap().parse().unwrap();
    let sum: u64 = lines[..lines.len() - 1]
        .iter()
        .map(|l| l.rsplit(": ").next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(lines.len() - 1, 44);
    assert_eq!((total, sum), (1920, 1920));
}

#[test]
fn perft_bad_input_is_one_clear_error_line() {
    for args in [
        vec![
            "perft",
            "--game",
            "xiangqi",
            "--fen",
            "rnbakabnr/9/9 w",
            "--depth",
            "2",
        ],
        vec!["perft", "--game", "xiangqi", "--depth", "0"],
        vec!["perft", "--game", "gomoku", "--size", "30", "--depth", "1"],
        vec![
            "perft", "--game", "gomoku", "--rule", "caro", "--depth", "1",
        ],
        vec![
            "perft", "--game", "connect4", "--fen", "4448", "--depth", "1",
        ],
        // Gomoku-only flags for other games are refused, not ignored.
        vec!["perft", "--game", "xiangqi", "--size", "9", "--depth", "1"],
        vec![
            "perft", "--game", "connect4", "--rule", "renju", "--depth", "1",
        ],
    ] {
        let Output {
            code,
            stdout,
            stderr,
        } = alphazero(&args);
        assert_ne!(code, 0, "{args:?} should fail");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
        assert!(stderr.starts_with("error:"), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn perft_bad_fen_names_the_fen_not_a_move_list() {
    let cases: [(&[&str], &str); 4] = [
        (&["--game", "xiangqi", "--fen", "garbage"], "neither a FEN"),
        (&["--game", "xiangqi", "--fen", ""], "--fen is empty"),
        (
            &["--game", "gomoku", "--fen", "8/8/8 w"],
            "looks like a FEN",
        ),
        (
            &["--game", "xiangqi", "--fen", "4k4/9/9/9/9/9/9/9/9/4K3P w"],
            "--fen",
        ),
    ];
    for (extra, want) in cases {
        let mut args = vec!["perft", "--depth", "1"];
        args.extend_from_slice(extra);
        let Output { code, stderr, .. } = alphazero(&args);
        assert_ne!(code, 0, "{args:?}");
        assert!(stderr.contains(want), "{args:?}: {stderr}");
    }
}

#[test]
fn perft_divide_into_a_closed_pipe_does_not_panic() {
    // Regression: `perft --divide | head -1` panicked in println! (exit 101).
    for read in [0, 1] {
        let (code, stderr) = common::alphazero_stdout_closed_early(
            &["perft", "--game", "xiangqi", "--depth", "2", "--divide"],
            read,
        );
        common::assert_quiet_on_closed_stdout(code, &stderr, "perft --divide | head");
    }
}
