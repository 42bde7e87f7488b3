//! `alphazero records`: list and show record files written by `alphazero train`.
mod common;
use common::{alphazero, assert_clean_error, fresh_dir, tiny_connect4_run};

#[test]
fn records_list_show_and_ply_view_of_a_trained_run() {
    let dir = fresh_dir("records");
    tiny_connect4_run(&dir);
    let out = alphazero(&["records", "list", dir.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let row = out
        .stdout
        .lines()
        .find(|l| l.starts_with("000000.azr"))
        .unwrap();
    assert_eq!(row.split_whitespace().nth(1), Some("4"), "{row}");

    let file = dir.join("records/000000.azr");
    let out = alphazero(&["records", "show", file.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("game connect4"), "{}", out.stdout);
    assert_eq!(out.stdout.matches("  moves: ").count(), 4, "{}", out.stdout);
    let moves = out
        .stdout
        .lines()
        .find(|l| l.starts_with("  moves: "))
        .unwrap();
    assert!(
        moves[9..].split(' ').all(|m| ("1"..="7").contains(&m)),
        "{moves}"
    );

    let out = alphazero(&[
        "records",
        "show",
        file.to_str().unwrap(),
        "--game-index",
        "1",
        "--ply",
        "2",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("position before ply 2"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("π (search policy)"), "{}", out.stdout);
    assert!(
        out.stdout.contains("(percent per column 1..7)"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("game 0 "), "{}", out.stdout);
}

#[test]
fn records_errors_are_one_line() {
    let dir = fresh_dir("records_bad");
    let junk = dir.join("junk.azr");
    std::fs::write(&junk, b"AZRC\x01\x00garbage").unwrap();
    let empty = fresh_dir("records_empty");
    for args in [
        vec!["records", "show", junk.to_str().unwrap()],
        vec!["records", "show", "/nonexistent/file.azr"],
        vec!["records", "list", empty.to_str().unwrap()],
    ] {
        assert_clean_error(&alphazero(&args), &format!("{args:?}"));
    }
    let run = fresh_dir("records_range");
    tiny_connect4_run(&run);
    let file = run.join("records/000000.azr");
    for extra in [vec!["--game-index", "99"], vec!["--ply", "999"]] {
        let mut args = vec!["records", "show", file.to_str().unwrap()];
        args.extend(extra.iter());
        assert_clean_error(&alphazero(&args), &format!("{args:?}"));
    }
}
