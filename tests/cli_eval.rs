//! `alphazero eval`: Connect Four against the solver, calibration of a run.
mod common;
use common::{alphazero, alphazero_in, assert_clean_error, fresh_dir, tiny_connect4_run, Output};

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
    assert!(t[2..7].iter().all(|x| x.ends_with('%')), "{row}");
    let pct = |i: usize| t[i].trim_end_matches('%').parse::<f64>().unwrap();
    // A best move keeps the result: the keeps shares are never below the best shares.
    assert!(pct(3) >= pct(2) && pct(6) >= pct(5), "{row}");
    assert_eq!(t[7], "0", "no cache for Test_L3_R1: {row}");
}

#[test]
fn connect4_eval_of_the_early_sets_takes_the_cached_solver_answers() {
    // Regression: Test_L1_R3 cost ~13 s of solver time per position.
    for set in ["Test_L1_R3", "Test_L1_R2", "Test_L1_R1"] {
        let out = alphazero(&[
            "eval", "connect4", "--sets", set, "--lines", "200", "--sims", "0",
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stdout.contains("policy-keeps") && out.stdout.contains("search-keeps"));
        let row = out.stdout.lines().find(|l| l.starts_with(set)).unwrap();
        let t: Vec<&str> = row.split_whitespace().collect();
        assert_eq!((t[1], t[7]), ("200", "200"), "every position cached: {row}");
    }
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
    let t: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        (t[5], t[6]),
        ("-", "-"),
        "no search columns with --sims 0: {row}"
    );
    for args in [
        vec!["eval", "connect4", "--sets", "Nope"],
        vec!["eval", "connect4", "--sets", ""],
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
            l.split([')', ']'])
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
    // Half-open bins except the last, which holds +1 itself.
    let labels: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with('[')).collect();
    assert!(labels[3].starts_with("[+0.50,+1.00] "), "{}", out.stdout);
    assert!(labels[0].starts_with("[-1.00,-0.50) "), "{}", out.stdout);
    assert!(positions > 0);
    assert!(out.stdout.contains("expected calibration error"));
}

#[test]
fn shipped_models_come_from_env_then_the_working_directory_before_the_build_tree() {
    let run = fresh_dir("eval_models_run");
    tiny_connect4_run(&run);
    let net = run.join("networks/champion-0000.azc");
    // ./models under the working directory.
    let cwd = fresh_dir("eval_models_cwd");
    std::fs::create_dir_all(cwd.join("models")).unwrap();
    std::fs::copy(&net, cwd.join("models/connect4.azc")).unwrap();
    // $ALPHAZERO_MODELS.
    let env_dir = fresh_dir("eval_models_env");
    std::fs::copy(&net, env_dir.join("connect4.azc")).unwrap();
    let args = [
        "eval",
        "connect4",
        "--sets",
        "Test_L3_R1",
        "--lines",
        "2",
        "--sims",
        "0",
    ];
    let Output {
        code,
        stdout,
        stderr,
    } = alphazero_in(&cwd, &[], &args);
    assert_eq!(code, 0, "{stderr}");
    let local = cwd.join("models/connect4.azc");
    assert!(
        stdout.contains(&format!("shipped network {}", local.display())),
        "{stdout}"
    );
    let env = env_dir.to_str().unwrap();
    let Output {
        code,
        stdout,
        stderr,
    } = alphazero_in(&cwd, &[("ALPHAZERO_MODELS", env)], &args);
    assert_eq!(code, 0, "{stderr}");
    let from_env = env_dir.join("connect4.azc");
    assert!(
        stdout.contains(&format!("shipped network {}", from_env.display())),
        "{stdout}"
    );
    // The description names the training config in words, not as a Rust Debug text.
    assert!(stdout.contains("trained on connect4"), "{stdout}");
    assert!(!stdout.contains("Connect4Config"), "{stdout}");
}

#[test]
fn connect4_test_data_comes_from_alphazero_testdata() {
    let data = fresh_dir("eval_testdata_env");
    std::fs::create_dir_all(data.join("connect4")).unwrap();
    let src = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/connect4/Test_L3_R1"
    );
    std::fs::copy(src, data.join("connect4/Mine")).unwrap();
    let args = [
        "eval", "connect4", "--sets", "Mine", "--lines", "2", "--sims", "0",
    ];
    let Output {
        code,
        stdout,
        stderr,
    } = alphazero_in(
        &data,
        &[("ALPHAZERO_TESTDATA", data.to_str().unwrap())],
        &args,
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.lines().any(|l| l.starts_with("Mine ")), "{stdout}");
    // Without it, the file is not in the default folder: the error names where it looked.
    let Output { code, stderr, .. } = alphazero_in(&data, &[], &args);
    assert_ne!(code, 0);
    assert!(stderr.contains("\"Mine\" not found in"), "{stderr}");
}

#[test]
fn connect4_eval_reads_the_repository_test_data_from_any_directory() {
    // Regression: the default test data was a folder beside the repository ("shared"), which
    // a user's clone does not have. It is the repository's own `tests/data/connect4` now.
    let cwd = fresh_dir("eval_default_testdata");
    let out = alphazero_in(
        &cwd,
        &[("ALPHAZERO_TESTDATA", "")],
        &[
            "eval",
            "connect4",
            "--sets",
            "Test_L2_R1",
            "--lines",
            "3",
            "--sims",
            "0",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.lines().any(|l| l.starts_with("Test_L2_R1 ")),
        "{}",
        out.stdout
    );
    let missing = alphazero_in(
        &cwd,
        &[("ALPHAZERO_TESTDATA", "")],
        &["eval", "connect4", "--sets", "Nope", "--sims", "0"],
    );
    assert_ne!(missing.code, 0);
    let want = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/connect4");
    assert!(missing.stderr.contains(want), "{}", missing.stderr);
    assert!(!missing.stderr.contains("shared"), "{}", missing.stderr);
}
