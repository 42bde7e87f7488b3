//! `alphazero eval`: Connect Four against the solver, calibration of a run.
mod common;
use common::{alphazero, assert_clean_error, fresh_dir, tiny_connect4_run};

#[test]
fn connect4_eval_without_a_model_names_its_evaluator_per_file() {
    let out = alphazero(&[
        "eval",
        "connect4",
        "--sets",
        "Test_L3_R1",
        "--lines",
        "10",
        "--sims",
        "30",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Without --model: the shipped network when the repository has one, else uniform.
    let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/connect4.azc");
    let expect = if shipped.is_file() {
        "shipped network"
    } else {
        "uniform evaluator"
    };
    assert!(out.stdout.contains(expect), "{}", out.stdout);
    let row = out
        .stdout
        .lines()
        .find(|l| l.starts_with("Test_L3_R1"))
        .unwrap();
    let t: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(t[1], "10", "{row}");
    assert!(t[2..].iter().all(|x| x.ends_with('%')), "{row}");
}

#[test]
fn connect4_eval_with_a_run_network_and_bad_inputs() {
    let dir = fresh_dir("eval_c4");
    tiny_connect4_run(&dir);
    let net = dir.join("networks/champion-0000.azc");
    let out = alphazero(&[
        "eval",
        "connect4",
        "--model",
        net.to_str().unwrap(),
        "--sets",
        "Test_L3_R1",
        "--lines",
        "5",
        "--sims",
        "0",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let row = out
        .stdout
        .lines()
        .find(|l| l.starts_with("Test_L3_R1"))
        .unwrap();
    assert!(
        row.trim_end().ends_with('-'),
        "no search column with --sims 0: {row}"
    );
    for args in [
        vec!["eval", "connect4", "--sets", "Nope"],
        vec!["eval", "connect4", "--testdata", "/nonexistent"],
        vec![
            "eval",
            "calibration",
            "--game",
            "connect4",
            "--run",
            "/nonexistent",
        ],
        vec![
            "eval",
            "calibration",
            "--game",
            "gomoku",
            "--run",
            dir.to_str().unwrap(),
        ],
    ] {
        assert_clean_error(&alphazero(&args), &format!("{args:?}"));
    }
}

#[test]
fn calibration_bins_cover_every_recorded_position() {
    let dir = fresh_dir("eval_calibration");
    tiny_connect4_run(&dir);
    let out = alphazero(&[
        "eval",
        "calibration",
        "--game",
        "connect4",
        "--run",
        dir.to_str().unwrap(),
        "--bins",
        "4",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let positions: usize = out
        .stdout
        .split(" positions")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|s| s.parse().ok())
        .expect("position count");
    let bins: Vec<usize> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with('['))
        .map(|l| {
            l.split(')')
                .nth(1)
                .unwrap()
                .split_whitespace()
                .next()
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    assert_eq!(bins.len(), 4);
    assert_eq!(bins.iter().sum::<usize>(), positions);
    assert!(positions > 0);
    assert!(out.stdout.contains("expected calibration error"));
}
