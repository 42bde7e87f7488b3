//! `alphazero play` driven through stdin: refusals, undo, hint, a full game.
mod common;
use common::{alphazero, alphazero_with_bytes, alphazero_with_input, assert_clean_error};

const C4: &[&str] = &["play", "--game", "connect4", "--sims", "20"];

#[test]
fn play_refuses_bad_moves_with_the_reason_and_accepts_a_legal_one() {
    let out = alphazero_with_input(C4, "9\nx\n4\nquit\n");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.matches("refused:").count(), 2, "{}", out.stdout);
    assert!(
        out.stdout.contains("column number from 1 to 7"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("you play 4"), "{}", out.stdout);
    assert!(
        out.stdout.contains("engine (second (O)) plays"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("bye"));
}

#[test]
fn undo_takes_back_the_engine_reply_and_the_human_move() {
    let out = alphazero_with_input(C4, "4\nundo\nmoves\nundo\nquit\n");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("took back 2 moves"), "{}", out.stdout);
    assert!(
        out.stdout
            .lines()
            .any(|l| l.trim_end().ends_with("> moves:")),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("nothing to undo"), "{}", out.stdout);
}

#[test]
fn hint_prints_the_top_moves_with_visits_and_values() {
    let out = alphazero_with_input(C4, "hint\nquit\n");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("hint: value"), "{}", out.stdout);
    let header = out.stdout.lines().find(|l| l.contains("visits")).unwrap();
    for col in ["move", "visits", "share", "Q", "prior"] {
        assert!(header.contains(col), "{header}");
    }
}

#[test]
fn connect4_game_against_the_engine_is_played_to_the_end() {
    let input: String = (0..12)
        .flat_map(|_| (1..=7).map(|c| format!("{c}\n")))
        .collect();
    let out = alphazero_with_input(C4, &input);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("game over:"), "{}", out.stdout);
}

#[test]
fn engine_against_itself_finishes_a_game_without_input() {
    let out = alphazero(&[
        "play", "--game", "connect4", "--sims", "10", "--human", "none",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("game over:"), "{}", out.stdout);
    assert!(out.stderr.contains("evaluator:"), "{}", out.stderr);
}

#[test]
fn end_of_input_quits_cleanly() {
    let out = alphazero_with_input(
        &["play", "--game", "gomoku", "--size", "9", "--sims", "10"],
        "e5\n",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("you play e5"), "{}", out.stdout);
    assert!(out.stdout.contains("bye"));
}

#[test]
fn play_bad_arguments_are_one_error_line() {
    for args in [
        vec!["play", "--game", "connect4", "--human", "blue"],
        vec!["play", "--game", "connect4", "--position", "4448"],
        vec!["play", "--game", "xiangqi", "--position", "rnbakabnr/9 w"],
        vec![
            "play",
            "--game",
            "connect4",
            "--model",
            "/nonexistent/net.azc",
        ],
    ] {
        assert_clean_error(&alphazero(&args), &format!("{args:?}"));
    }
}

#[test]
fn invalid_utf8_input_is_refused_and_the_game_goes_on() {
    let out = alphazero_with_bytes(C4, b"\xff\xfe\n4\nquit\n");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains("UTF-8"), "{}", out.stderr);
    assert_eq!(out.stdout.matches("refused:").count(), 1, "{}", out.stdout);
    assert!(out.stdout.contains("you play 4"), "{}", out.stdout);
    assert!(out.stdout.contains("bye"), "{}", out.stdout);
}

#[test]
fn gomoku_bad_column_names_the_last_letter_of_the_board() {
    let out = alphazero_with_input(&["play", "--game", "gomoku", "--sims", "5"], "z9\nquit\n");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("a..o"), "{}", out.stdout);
    assert!(!out.stdout.contains("a..t"), "{}", out.stdout);
}

#[test]
fn renju_forbidden_move_ends_the_game_with_the_reason() {
    // Black (the human) to move; h8 makes an open three on rank 8 (f8 g8 h8) and one on
    // file h (h6 h7 h8): a double-three, forbidden for black under renju.
    let out = alphazero_with_input(
        &[
            "play",
            "--game",
            "gomoku",
            "--rule",
            "renju",
            "--sims",
            "10",
            "--position",
            "f8 a1 g8 a3 h6 a5 h7 a7",
        ],
        // The foul is played only when typed a second time (the first is warned).
        "h8\nh8\n",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let over = out
        .stdout
        .lines()
        .find(|l| l.contains("game over:"))
        .unwrap_or_else(|| panic!("no result line in {}", out.stdout));
    assert!(over.contains("white (O) wins"), "{over}");
    assert!(
        over.contains("black's h8 is a renju forbidden move, a double-three"),
        "{over}"
    );
}

#[test]
fn connect4_result_line_names_four_in_a_row() {
    // Engine against itself: a decisive game ends with four in a row, a drawn one full.
    let out = alphazero(&[
        "play", "--game", "connect4", "--sims", "10", "--human", "none",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let over = out
        .stdout
        .lines()
        .find(|l| l.contains("game over:"))
        .unwrap();
    assert!(
        over.contains("(four in a row)") || over.contains("(the board is full)"),
        "{over}"
    );
}

#[test]
fn a_network_trained_under_other_rules_is_used_with_a_warning() {
    let model = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/models/gomoku-8x8-freestyle.azc"
    );
    let out = alphazero_with_input(
        &[
            "play", "--game", "gomoku", "--size", "8", "--rule", "renju", "--sims", "5", "--model",
            model,
        ],
        "quit\n",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("was trained for gomoku 8x8 freestyle; it is used here for gomoku 8x8 renju"),
        "{}",
        out.stderr
    );
    // The same network under its own rules: no warning.
    let out = alphazero_with_input(
        &[
            "play", "--game", "gomoku", "--size", "8", "--sims", "5", "--model", model,
        ],
        "quit\n",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains("warning"), "{}", out.stderr);
}

/// Regression guard: `--human black` in Xiangqi is the second player (it was read as
/// Gomoku's black, the first player, so the human played red), and an unknown side lists the
/// game's own colour names.
#[test]
fn human_colour_names_are_the_games_own() {
    let out = alphazero_with_input(
        &[
            "play", "--game", "xiangqi", "--sims", "5", "--human", "black",
        ],
        "quit\n",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("engine (red) plays"), "{}", out.stdout);
    assert!(out.stdout.contains("black to move>"), "{}", out.stdout);
    for (game, bad, names) in [
        ("gomoku", "red", "first, second, black, white or none"),
        ("xiangqi", "white", "first, second, red, black or none"),
        ("connect4", "black", "first, second or none"),
    ] {
        let out = alphazero(&["play", "--game", game, "--human", bad]);
        assert_clean_error(&out, game);
        assert!(out.stderr.contains(names), "{game}: {}", out.stderr);
    }
}

#[test]
fn human_renju_foul_is_warned_with_the_forbidden_points_shown() {
    // A human's double-three used to be accepted and lost without a word.
    let args = [
        "play",
        "--game",
        "gomoku",
        "--rule",
        "renju",
        "--sims",
        "10",
        "--position",
        "f8 a1 g8 a3 h6 a5 h7 a7",
    ];
    let out = alphazero_with_input(&args, "h8\nquit\n");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let warning = out
        .stdout
        .lines()
        .find(|l| l.contains("warning: h8 loses at once"))
        .unwrap_or_else(|| panic!("no warning: {}", out.stdout));
    assert!(
        warning.contains("double-three") && warning.contains("type h8 again"),
        "{warning}"
    );
    assert!(!out.stdout.contains("game over"), "{}", out.stdout);
    // The board marks black's forbidden points: h8 among them (row 8, column h).
    let row8 = out
        .stdout
        .lines()
        .find(|l| l.starts_with(" 8 "))
        .unwrap_or_else(|| panic!("no row 8: {}", out.stdout));
    let cells: Vec<&str> = row8.split_whitespace().collect();
    assert_eq!(cells[8], "!", "h8 marked forbidden: {row8}");
    assert!(
        out.stdout.contains("! forbidden for black"),
        "{}",
        out.stdout
    );
    // Another move after the warning is played as usual.
    let out = alphazero_with_input(&args, "h8\nj10\nquit\n");
    assert!(out.stdout.contains("you play j10"), "{}", out.stdout);
}

#[test]
fn terminal_board_marks_the_last_move_and_the_winning_line() {
    // X has three discs in column 1; the human (X) completes four with 1.
    let out = alphazero_with_input(
        &[
            "play",
            "--game",
            "connect4",
            "--sims",
            "10",
            "--position",
            "121212",
        ],
        "1\n",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("game over: first (X) wins"),
        "{}",
        out.stdout
    );
    // The final board: the winning column in lower case, the last disc in brackets.
    let board: Vec<&str> = out
        .stdout
        .lines()
        .skip_while(|l| !l.contains("you play 1"))
        .skip(1)
        .take(6)
        .collect();
    assert_eq!(board.len(), 6, "{}", out.stdout);
    assert!(
        board[2].starts_with("[x]"),
        "last move at the top of column 1: {board:?}"
    );
    for row in &board[3..] {
        assert!(
            row.trim_start().starts_with('x'),
            "winning column: {board:?}"
        );
    }
    assert!(
        out.stdout.contains("[ ]: the last move") && out.stdout.contains("x/o: the winning row"),
        "{}",
        out.stdout
    );
}

/// Regression (fresh-user trial): a damaged or cut-off evaluator file (`.azm`) gave an error
/// with a prefix of the reader's own (`evaluator file: checksum mismatch`). It is one line
/// naming the file and saying what is wrong, for `play` and for the Gomocup brain.
#[test]
fn a_damaged_or_truncated_evaluator_file_is_one_line_naming_the_file_and_the_fault() {
    let dir = common::fresh_dir("play_bad_azm");
    let good = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/models/gomoku-15x15-freestyle.azm"
    ))
    .unwrap();
    let truncated = dir.join("truncated.azm");
    std::fs::write(&truncated, &good[..good.len() / 2]).unwrap();
    let mut bytes = good.clone();
    bytes[good.len() / 2] ^= 0x10;
    let flipped = dir.join("flipped.azm");
    std::fs::write(&flipped, &bytes).unwrap();
    for (file, fault) in [
        (
            &truncated,
            // What its sizes need: as far as they are read before the cut.
            format!(
                "truncated evaluator file: {} bytes, its sizes need at least ",
                good.len() / 2
            ),
        ),
        (
            &flipped,
            "damaged evaluator file: its checksum does not match its contents (bytes changed \
             since it was written)"
                .to_string(),
        ),
    ] {
        let path = file.to_str().unwrap();
        let want = format!("error: {path}: {fault}");
        // The brain reads its file when the manager starts a game.
        for (args, input) in [
            (
                vec!["play", "--game", "gomoku", "--size", "15", "--model", path],
                "",
            ),
            (vec!["gomocup", "--model", path], "START 15\nEND\n"),
        ] {
            let out = alphazero_with_input(&args, input);
            assert_clean_error(&out, &format!("{args:?}"));
            let line = out
                .stderr
                .lines()
                .find(|l| l.starts_with("error:"))
                .unwrap();
            assert!(line.starts_with(&want), "{args:?}: {line}");
            assert_eq!(line.matches(path).count(), 1, "{args:?}: {line}");
        }
    }
}
