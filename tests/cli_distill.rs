//! `alphazero distill`: the teacher's labelled positions, a student trained on them, its gates,
//! and the student played through the engine like any network file.
mod common;
use common::{alphazero, alphazero_with_bytes, assert_clean_error, fresh_dir};

#[test]
fn distill_makes_data_trains_a_student_measures_it_and_the_brain_plays_with_it() {
    let dir = fresh_dir("cli_distill");
    let teacher = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/models/gomoku-8x8-freestyle.azc"
    );
    let data = dir.join("g8.azd");
    let student = dir.join("g8.azm");
    let (data_s, student_s) = (data.to_str().unwrap(), student.to_str().unwrap());
    let out = alphazero(&[
        "distill",
        "data",
        "--teacher",
        teacher,
        "--games",
        "30",
        "--parallel",
        "8",
        "--out",
        data_s,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("30 games"), "{}", out.stdout);
    let out = alphazero(&[
        "distill",
        "train",
        "--data",
        data_s,
        "--out",
        student_s,
        "--minutes",
        "0.02",
        "--features",
        "8",
        "--half-width",
        "2",
        "--heldout-every",
        "5",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("held-out"), "{}", out.stdout);
    let out = alphazero(&[
        "distill",
        "gates",
        "--student",
        student_s,
        "--teacher",
        teacher,
        "--data",
        data_s,
        "--heldout-every",
        "5",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("top-1 agreement"), "{}", out.stdout);
    assert!(
        out.stdout.contains("teacher") && out.stdout.contains("student"),
        "{}",
        out.stdout
    );
    // The Gomocup brain plays the student on a board it was not distilled on.
    let out = alphazero_with_bytes(
        &["gomocup", "--model", student_s, "--fixed-sims", "50"],
        b"START 10\nBEGIN\nEND\n",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("Mixnet evaluator"), "{}", out.stderr);
    let moves: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.contains(',') && !l.starts_with("MESSAGE") && !l.starts_with("DEBUG"))
        .collect();
    assert_eq!(moves.len(), 1, "one move: {}", out.stdout);
    // A damaged sample file is one clear error.
    let mut bytes = std::fs::read(&data).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 1;
    std::fs::write(&data, bytes).unwrap();
    let out = alphazero(&[
        "distill",
        "train",
        "--data",
        data_s,
        "--out",
        student_s,
        "--minutes",
        "0.02",
    ]);
    assert_clean_error(&out, "a damaged sample file");
    assert!(out.stderr.contains("checksum"), "{}", out.stderr);
}
