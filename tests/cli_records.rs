//! `alphazero records`: list and show record files written by `alphazero train`.
mod common;
use alphazero_train::record::{write_records, GameFlags, GameRecord, PlyRecord, RecordHeader};
use alphazero_train::GameResult;
use common::{
    alphazero, alphazero_stdout_closed_early, assert_clean_error, assert_quiet_on_closed_stdout,
    fresh_dir, tiny_connect4_run,
};

/// A Connect Four record file of `games` copies of the game 4 4 3, whose second ply is a fast
/// playout-cap move (0 simulations).
fn write_connect4_records(path: &std::path::Path, games: usize) {
    let header = RecordHeader {
        game: "connect4".into(),
        config: "Connect4Config".into(),
        num_actions: 7,
        first_game_id: 0,
    };
    let ply = |action: u16, sims: u16| PlyRecord::new(action, &[(action, 1.0)], 0.25, sims);
    let game = GameRecord {
        start: String::new(),
        result: GameResult::Draw,
        flags: GameFlags::default(),
        prefix: Vec::new(),
        plies: vec![ply(3, 16), ply(3, 0), ply(2, 16)],
    };
    let bytes = write_records(&header, &vec![game; games]).unwrap();
    std::fs::write(path, bytes).unwrap();
}

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

#[test]
fn records_show_names_fast_playout_cap_moves_and_list_counts_training_positions() {
    let dir = fresh_dir("records_fast");
    let file = dir.join("000000.azr");
    write_connect4_records(&file, 2);
    let f = file.to_str().unwrap();
    let out = alphazero(&["records", "show", f, "--ply", "1"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("fast search (playout cap), not a training target"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("0 simulations"), "{}", out.stdout);
    assert!(!out.stdout.contains("Connect4Config"), "{}", out.stdout);
    let out = alphazero(&["records", "show", f, "--ply", "2"]);
    assert!(out.stdout.contains("16 simulations"), "{}", out.stdout);

    let out = alphazero(&["records", "list", dir.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let row: Vec<&str> = out
        .stdout
        .lines()
        .find(|l| l.starts_with("000000.azr"))
        .unwrap()
        .split_whitespace()
        .collect();
    // file, games, plies, trained (full-search plies only), ...
    assert_eq!(&row[..4], ["000000.azr", "2", "6", "4"], "{}", out.stdout);
    assert!(
        out.stdout.contains("6 plies, 4 training positions"),
        "{}",
        out.stdout
    );
}

#[test]
fn records_show_into_a_closed_pipe_does_not_panic() {
    // Regression: `records show F | head -2` panicked in println! (exit 101). The output here
    // (thousands of games) is far larger than a pipe buffer, so a write must meet the closed
    // pipe.
    let dir = fresh_dir("records_pipe");
    let file = dir.join("000000.azr");
    write_connect4_records(&file, 5000);
    let (code, stderr) =
        alphazero_stdout_closed_early(&["records", "show", file.to_str().unwrap()], 2);
    assert_quiet_on_closed_stdout(code, &stderr, "records show | head -2");
}

#[test]
fn records_show_refuses_devices_and_oversized_files_before_reading() {
    // /dev/zero never ends: reading it whole would exhaust memory.
    let out = alphazero(&["records", "show", "/dev/zero"]);
    assert_clean_error(&out, "records show /dev/zero");
    assert!(out.stderr.contains("not a regular file"), "{}", out.stderr);

    // A sparse file just over the 2 GiB cap: refused by its size, without reading it.
    let dir = fresh_dir("records_huge");
    let huge = dir.join("huge.azr");
    let f = std::fs::File::create(&huge).unwrap();
    f.set_len((2u64 << 30) + 1).unwrap();
    drop(f);
    let out = alphazero(&["records", "show", huge.to_str().unwrap()]);
    assert_clean_error(&out, "records show of a 2 GiB + 1 file");
    assert!(out.stderr.contains("limit"), "{}", out.stderr);
    std::fs::remove_file(&huge).unwrap();
}

#[test]
fn records_list_with_an_unreadable_file_lists_the_rest_and_fails() {
    let dir = fresh_dir("records_list_unreadable");
    write_connect4_records(&dir.join("000000.azr"), 2);
    std::fs::write(dir.join("000001.azr"), b"AZRC\x02\x00garbage").unwrap();
    let out = alphazero(&["records", "list", dir.to_str().unwrap()]);
    assert_clean_error(&out, "records list with a bad file");
    assert!(out.stdout.contains("000001.azr"), "{}", out.stdout);
    assert!(out.stdout.contains("unreadable"), "{}", out.stdout);
    assert!(
        out.stdout.contains("total: 2 files, 2 games"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.contains("1 of 2 record files are unreadable"),
        "{}",
        out.stderr
    );
}

#[test]
fn records_list_calls_unreadable_a_file_whose_games_a_resume_would_set_aside() {
    // A file that decodes but whose games do not replay (a start text that is no position,
    // a move into a full column) was listed as fine, though a resumed run sets it aside.
    let dir = fresh_dir("records_list_no_replay");
    write_connect4_records(&dir.join("000000.azr"), 1);
    let header = RecordHeader {
        game: "connect4".into(),
        config: "connect4".into(),
        num_actions: 7,
        first_game_id: 1,
    };
    let ply = |action: u16| PlyRecord::new(action, &[(action, 1.0)], 0.0, 16);
    let bad_start = GameRecord {
        start: "not a position".into(),
        result: GameResult::Draw,
        flags: GameFlags::default(),
        prefix: Vec::new(),
        plies: vec![ply(3)],
    };
    std::fs::write(
        dir.join("000001.azr"),
        write_records(&header, &[bad_start]).unwrap(),
    )
    .unwrap();
    let full_column = GameRecord {
        start: String::new(),
        result: GameResult::Draw,
        flags: GameFlags::default(),
        prefix: Vec::new(),
        plies: vec![ply(0); 7],
    };
    let header = RecordHeader {
        first_game_id: 2,
        ..header
    };
    std::fs::write(
        dir.join("000002.azr"),
        write_records(&header, &[full_column]).unwrap(),
    )
    .unwrap();
    let out = alphazero(&["records", "list", dir.to_str().unwrap()]);
    assert_clean_error(&out, "records list with games that do not replay");
    let row = |name: &str| {
        out.stdout
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no row {name}: {}", out.stdout))
            .to_string()
    };
    assert!(!row("000000.azr").contains("unreadable"), "{}", out.stdout);
    let start = row("000001.azr");
    assert!(
        start.contains("unreadable") && start.contains("bad start position"),
        "{start}"
    );
    let column = row("000002.azr");
    assert!(
        column.contains("unreadable") && column.contains("ply 6"),
        "{column}"
    );
    assert!(
        out.stderr.contains("2 of 3 record files are unreadable"),
        "{}",
        out.stderr
    );
}

#[test]
fn done_line_counts_in_the_singular_for_one_iteration() {
    // Regression: "done: 1 iterations".
    let dir = fresh_dir("done_line_singular");
    let out = tiny_connect4_run(&dir);
    assert!(
        out.stderr.contains("done: 1 iteration, 4 games, champion"),
        "{}",
        out.stderr
    );
}

#[test]
fn records_show_and_export_replay_a_restarted_game_from_the_initial_position() {
    let dir = fresh_dir("records_restarted");
    let file = dir.join("000000.azr");
    let header = RecordHeader {
        game: "connect4".into(),
        config: "connect4".into(),
        num_actions: 7,
        first_game_id: 0,
    };
    let ply = |action: u16| PlyRecord::new(action, &[(action, 1.0)], 0.25, 16);
    // Restarted after 1 7 (columns 0 and 6); its own plies are 4 4 3.
    let game = GameRecord {
        start: String::new(),
        result: GameResult::Draw,
        flags: GameFlags::default(),
        prefix: vec![0, 6],
        plies: vec![ply(3), ply(3), ply(2)],
    };
    std::fs::write(&file, write_records(&header, &[game]).unwrap()).unwrap();
    let f = file.to_str().unwrap();
    let out = alphazero(&["records", "show", f]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("3 plies"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("restarted: from a position of an earlier game, after its first 2 moves"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("  moves: 1 7 4 4 3"), "{}", out.stdout);
    // --ply counts the game's own plies: ply 0 is the position after 1 7.
    let out = alphazero(&["records", "show", f, "--ply", "0"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("position before ply 0, move 3 from the start"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("played 4"), "{}", out.stdout);
    let pgn = dir.join("restarted.pgn");
    let out = alphazero(&["records", "export", f, "--out", pgn.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert!(text.contains("1. 1 7 2. 4 4 3. 3"), "{text}");
}
