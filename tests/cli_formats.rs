//! Record formats on the command line: `arena --pgn/--sgf/--psq`, `records export`,
//! `analyze --file`, `play --save`, WXF in `play`, and `export` of a network.
mod common;
use common::{alphazero, alphazero_with_input, assert_clean_error, fresh_dir, tiny_connect4_run};
use std::path::{Path, PathBuf};

fn formats_data(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/formats/tests/data")
        .join(rel)
        .to_str()
        .unwrap()
        .to_string()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Regression: `arena --pgn` wrote the random openings inside `{…}` comments and
/// no board tags, so no reader could replay the games. The PGN now holds every move with
/// [Size]/[Rule]; the SGF and PSQ files of the same match are exactly what converting that
/// PGN gives.
#[test]
fn arena_writes_gomoku_games_as_pgn_sgf_and_psq_that_convert_into_each_other() {
    let dir = fresh_dir("formats_arena_gomoku");
    let (pgn, sgf, psq) = (dir.join("g.pgn"), dir.join("g.sgf"), dir.join("psq"));
    let out = alphazero(&[
        "arena",
        "--game",
        "gomoku",
        "--size",
        "7",
        "--players",
        "random",
        "rollout:10",
        "--games",
        "4",
        "--openings",
        "random-3",
        "--seed",
        "3",
        "--pgn",
        s(&pgn),
        "--sgf",
        s(&sgf),
        "--psq",
        s(&psq),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = read(&pgn);
    assert_eq!(text.matches("[Game \"gomoku\"]").count(), 4, "{text}");
    assert_eq!(text.matches("[Size \"7\"]").count(), 4);
    assert_eq!(text.matches("[Rule \"freestyle\"]").count(), 4);
    assert_eq!(text.matches("{end of opening}").count(), 4);
    assert_eq!(
        text.matches('{').count(),
        4,
        "only the opening comments: {text}"
    );
    assert!(text.contains("[Event \"alphazero arena\"]"));
    let sgf_text = read(&sgf);
    assert_eq!(sgf_text.matches("(;GM[4]FF[4]").count(), 4);
    for i in 1..=4 {
        assert!(psq.join(format!("game-{i:04}.psq")).is_file(), "game {i}");
    }
    // The PGN converted by `records export` gives the same SGF and PSQ files.
    let (sgf2, psq2) = (dir.join("c.sgf"), dir.join("cpsq"));
    let out = alphazero(&["records", "export", s(&pgn), "--out", s(&sgf2)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(read(&sgf2), sgf_text);
    let out = alphazero(&[
        "records",
        "export",
        s(&pgn),
        "--to",
        "psq",
        "--out",
        s(&psq2),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for i in 1..=4 {
        let name = format!("game-{i:04}.psq");
        assert_eq!(read(&psq2.join(&name)), read(&psq.join(&name)), "{name}");
    }
    // Regression guard: `--to pgn` into a `.psq` name wrote PGN text under a PSQ name.
    let wrong = dir.join("wrong.psq");
    let out = alphazero(&[
        "records",
        "export",
        s(&pgn),
        "--to",
        "pgn",
        "--out",
        s(&wrong),
    ]);
    assert_clean_error(&out, "--to pgn --out wrong.psq");
    assert!(
        out.stderr
            .contains("the extension names PSQ but --to says PGN"),
        "{}",
        out.stderr
    );
    assert!(!wrong.exists());
    // And each of them is read by analyze (the board size comes from the file).
    for file in [pgn.clone(), sgf.clone(), psq.join("game-0002.psq")] {
        let out = alphazero(&[
            "analyze",
            "--game",
            "gomoku",
            "--file",
            s(&file),
            "--ply",
            "3",
            "--sims",
            "20",
        ]);
        assert_eq!(out.code, 0, "{}: {}", file.display(), out.stderr);
        assert!(out.stderr.contains("position after 3 of"), "{}", out.stderr);
        assert!(
            out.stdout.contains("  a  ") || out.stdout.contains(" a "),
            "{}",
            out.stdout
        );
    }
}

#[test]
fn arena_writes_xiangqi_pgn_in_the_xqbase_dialect_with_wxf_moves() {
    let dir = fresh_dir("formats_arena_xiangqi");
    let pgn = dir.join("x.pgn");
    let out = alphazero(&[
        "arena",
        "--game",
        "xiangqi",
        "--players",
        "random",
        "random",
        "--games",
        "2",
        "--max-plies",
        "16",
        "--openings",
        "random-2",
        "--pgn",
        s(&pgn),
        "--notation",
        "wxf",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = read(&pgn);
    assert!(
        text.starts_with("[Game \"Chinese Chess\"]\n[Variant \"xiangqi\"]\n"),
        "{text}"
    );
    assert_eq!(text.matches("[Format \"WXF\"]").count(), 2);
    assert_eq!(text.matches("[Red \"random").count(), 2);
    assert!(text.contains("1. "), "{text}");
    let out = alphazero(&[
        "analyze",
        "--game",
        "xiangqi",
        "--file",
        s(&pgn),
        "--game-index",
        "1",
        "--ply",
        "6",
        "--sims",
        "20",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // WXF beside ICCS in the move table and the principal variation.
    assert!(
        out.stdout.contains('(') && out.stdout.contains('='),
        "{}",
        out.stdout
    );
    let out = alphazero(&[
        "arena",
        "--game",
        "xiangqi",
        "--players",
        "random",
        "random",
        "--games",
        "2",
        "--sgf",
        s(&dir.join("x.sgf")),
    ]);
    assert_clean_error(&out, "xiangqi --sgf");
    assert!(
        out.stderr.contains("--sgf and --psq write Gomoku games"),
        "{}",
        out.stderr
    );
    assert!(!dir.join("x.sgf").exists());
}

#[test]
fn analyze_reads_games_written_by_other_programs() {
    let out = alphazero(&[
        "analyze",
        "--game",
        "gomoku",
        "--file",
        &formats_data("foreign/gomocup.psq"),
        "--sims",
        "30",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("RAPFI.zip vs EMBRYO.zip"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("position after 5 of 5 moves"),
        "{}",
        out.stderr
    );
    // The SGF names its rule: renju is used without --rule.
    let out = alphazero(&[
        "analyze",
        "--game",
        "gomoku",
        "--file",
        &formats_data("foreign/renju.sgf"),
        "--ply",
        "2",
        "--sims",
        "30",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = alphazero(&[
        "analyze",
        "--game",
        "xiangqi",
        "--file",
        &formats_data("foreign/xqbase-wxf.pgn"),
        "--game-index",
        "1",
        "--ply",
        "2",
        "--sims",
        "30",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("K4-1") || out.stdout.contains("K4+1") || out.stdout.contains("K4="),
        "{}",
        out.stdout
    );
    let out = alphazero(&[
        "analyze",
        "--game",
        "connect4",
        "--file",
        &formats_data("foreign/connect4.pgn"),
        "--sims",
        "30",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn analyze_refuses_bad_record_files_naming_the_line_and_move() {
    let cases = [
        (
            vec!["--game", "xiangqi"],
            "bad/illegal-move.pgn",
            "line 5: move 3 \"E2-E9\": illegal move e2e9",
        ),
        (
            vec!["--game", "gomoku"],
            "bad/off-board.psq",
            "line 3: move 2 \"16,3,0\"",
        ),
        (
            vec!["--game", "gomoku"],
            "bad/wrong-colour.sgf",
            "it is white's turn",
        ),
        (
            vec!["--game", "gomoku"],
            "bad/not-square.psq",
            "wrong board size",
        ),
        (
            vec!["--game", "gomoku"],
            "foreign/xqbase-iccs.pgn",
            "holds a Chinese Chess game, not gomoku",
        ),
        (
            vec!["--game", "xiangqi"],
            "foreign/gomocup.psq",
            "holds a Gomoku (PSQ) game, not xiangqi",
        ),
        // The file says 15x15 renju; --size 19 asks for another board.
        (
            vec!["--game", "gomoku", "--size", "19"],
            "foreign/renju.sgf",
            "is a game of gomoku 15x15 renju but --size/--rule ask for gomoku 19x19 freestyle",
        ),
        (
            vec!["--game", "gomoku", "--ply", "9"],
            "foreign/gomocup.psq",
            "--ply 9: game 1 of 1 (--game-index 0)",
        ),
        (
            vec!["--game", "gomoku", "--game-index", "3"],
            "foreign/collection.sgf",
            "--game-index 3",
        ),
    ];
    for (args, file, expected) in cases {
        let path = formats_data(file);
        let mut full = vec!["analyze", "--sims", "5", "--file", &path];
        full.extend(args.iter());
        let out = alphazero(&full);
        assert_clean_error(&out, file);
        assert!(out.stderr.contains(expected), "{file}: {}", out.stderr);
    }
}

#[test]
fn play_shows_wxf_and_saves_the_game_when_the_player_quits() {
    let dir = fresh_dir("formats_play");
    let pgn = dir.join("game.pgn");
    let out = alphazero_with_input(
        &[
            "play",
            "--game",
            "xiangqi",
            "--sims",
            "4",
            "--save",
            s(&pgn),
            "--notation",
            "wxf",
        ],
        "C2=5\nmoves\nquit\n",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("you play h2e2 (C2=5)"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("WXF: 1. C2=5 "), "{}", out.stdout);
    let text = read(&pgn);
    assert!(text.contains("[Red \"human\"]"), "{text}");
    assert!(text.contains("[Termination \"unfinished\"]"), "{text}");
    assert!(text.contains("[Result \"*\"]"), "{text}");
    assert!(text.contains("1. C2=5 "), "{text}");
    // The saved game is read back by analyze.
    let out = alphazero(&[
        "analyze",
        "--game",
        "xiangqi",
        "--file",
        s(&pgn),
        "--sims",
        "10",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("position after 2 of 2 moves"),
        "{}",
        out.stderr
    );
}

#[test]
fn ctrl_c_during_play_writes_the_save_file() {
    use std::io::{BufRead, Write};
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("game.pgn");
    let mut child = Command::new(env!("CARGO_BIN_EXE_alphazero"))
        .args(["play", "--game", "connect4", "--sims", "10", "--save"])
        .arg(&pgn)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // One move each, then Ctrl-C while the game waits for the next move (stdin stays open).
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"4\n").unwrap();
    stdin.flush().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        assert_ne!(
            stdout.read_line(&mut line).unwrap(),
            0,
            "ended early: {seen}"
        );
        seen.push_str(&line);
        if line.contains("engine (second (O)) plays") {
            break;
        }
    }
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("game.pgn"), "says where the game went: {err}");
    drop(stdin);
    let text = read(&pgn);
    assert!(text.contains("[Termination \"unfinished\"]"), "{text}");
    assert!(text.contains("[Result \"*\"]"), "{text}");
    assert!(text.contains("1. 4 "), "both moves saved: {text}");
}

#[test]
fn play_refuses_a_save_file_it_cannot_write_before_the_game() {
    let dir = fresh_dir("formats_play_bad");
    for (args, expected) in [
        (
            vec!["--game", "xiangqi", "--save", "x.psq"],
            "psq cannot hold xiangqi games",
        ),
        (
            vec!["--game", "gomoku", "--save", "x.txt"],
            "name the format with a .pgn, .sgf or .psq extension",
        ),
        (
            vec!["--game", "gomoku", "--save", "/nonexistent-folder/x.sgf"],
            "does not exist",
        ),
    ] {
        let path = dir.join("never");
        let mut full = vec!["play", "--sims", "2"];
        full.extend(args.iter());
        let out = alphazero_with_input(&full, "quit\n");
        assert_clean_error(&out, &format!("{args:?}"));
        assert!(out.stderr.contains(expected), "{args:?}: {}", out.stderr);
        // `play` has no --to: its error must not suggest one.
        assert!(!out.stderr.contains("--to"), "{args:?}: {}", out.stderr);
        assert!(
            !out.stdout.contains("to move>"),
            "the game started: {}",
            out.stdout
        );
        assert!(!path.exists());
    }
}

#[test]
fn self_play_records_export_as_pgn_that_analyze_reads() {
    let dir = fresh_dir("formats_records_export");
    tiny_connect4_run(&dir);
    let azr: PathBuf = std::fs::read_dir(dir.join("records"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "azr"))
        .expect("a record file");
    let pgn = dir.join("self-play.pgn");
    let out = alphazero(&["records", "export", s(&azr), "--out", s(&pgn)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = read(&pgn);
    assert_eq!(text.matches("[Game \"connect4\"]").count(), 4, "{text}");
    assert!(text.contains("[Event \"alphazero self-play\"]"));
    exported_files_get_the_permissions_of_any_new_file(&pgn);
    let out = alphazero(&[
        "analyze",
        "--game",
        "connect4",
        "--file",
        s(&pgn),
        "--game-index",
        "2",
        "--ply",
        "3",
        "--sims",
        "10",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = alphazero(&["records", "export", s(&azr), "--out", s(&dir.join("x.sgf"))]);
    assert_clean_error(&out, "connect4 as sgf");
    assert!(
        out.stderr.contains("sgf cannot hold connect4 games"),
        "{}",
        out.stderr
    );
    assert!(!dir.join("x.sgf").exists());
}

/// Regression (fresh-user trial): written files kept the temporary file's private mode
/// 0600, so other users could not read an exported game. A written file has the mode any
/// new file in that folder gets (0666 less the umask).
fn exported_files_get_the_permissions_of_any_new_file(written: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let plain = written.with_extension("plain");
        std::fs::write(&plain, b"x").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(
            mode(written),
            mode(&plain),
            "{} has mode {:o}",
            written.display(),
            mode(written)
        );
        std::fs::remove_file(plain).unwrap();
    }
}

/// `export --out F.onnx`: an ONNX model in a folder made for it, with the network's named
/// input and outputs and its game (the Python package's tests run it in ONNX Runtime against
/// our inference).
#[test]
fn export_writes_an_onnx_model_with_named_input_outputs_and_game() {
    let dir = fresh_dir("formats_export_onnx");
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/connect4.azc");
    let file = dir.join("new/c4.onnx");
    let out = alphazero(&["export", s(&model), "--out", s(&file)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("ONNX model (connect4, 4x32"),
        "{}",
        out.stderr
    );
    let bytes = std::fs::read(&file).expect("ONNX file written");
    let text = String::from_utf8_lossy(&bytes);
    for name in [
        "planes",
        "policy",
        "value",
        "game_spec",
        "alphazero-rs",
        "Conv",
        "Gemm",
    ] {
        assert!(text.contains(name), "{name} in the ONNX file");
    }
    exported_files_get_the_permissions_of_any_new_file(&file);
}

/// `export`: the safetensors header names exactly the tensors the JSON describes, with the
/// same shapes (the nn crate's tests check values and the forward pass).
#[test]
fn export_writes_safetensors_and_a_json_description_that_agree() {
    let dir = fresh_dir("formats_export");
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/connect4.azc");
    let out = alphazero(&["export", s(&model), "--out", s(&dir.join("net"))]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let st = std::fs::read(dir.join("net/connect4.safetensors")).expect("safetensors written");
    let n = u64::from_le_bytes(st[..8].try_into().unwrap()) as usize;
    let header: serde_json::Value = serde_json::from_slice(&st[8..8 + n]).expect("header JSON");
    let desc: serde_json::Value =
        serde_json::from_str(&read(&dir.join("net/connect4.json"))).expect("description JSON");
    let listed = desc["tensors"].as_array().expect("tensors");
    let in_file = header
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| *k != "__metadata__")
        .count();
    assert_eq!(listed.len(), in_file);
    for t in listed {
        let name = t["name"].as_str().unwrap();
        assert_eq!(header[name]["shape"], t["shape"], "{name}");
        assert_eq!(header[name]["dtype"], "F32", "{name}");
    }
    assert_eq!(desc["input"]["shape"], serde_json::json!(["B", 2, 6, 7]));
    assert_eq!(
        desc["outputs"]["policy"]["actions"]
            .as_array()
            .unwrap()
            .len(),
        7
    );
    assert_eq!(header["__metadata__"]["game"], "connect4");
    // A file name with .safetensors: the description goes beside it.
    let out = alphazero(&["export", s(&model), "--out", s(&dir.join("c4.safetensors"))]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(dir.join("c4.json").is_file());
    for (args, expected) in [
        (
            vec!["export", s(&model), "--out", "x.bin"],
            "give a folder or a file name ending in .safetensors",
        ),
        (
            vec!["export", "no-such.azc", "--out", s(&dir)],
            "no-such.azc",
        ),
    ] {
        let out = alphazero(&args);
        assert_clean_error(&out, &format!("{args:?}"));
        assert!(out.stderr.contains(expected), "{args:?}: {}", out.stderr);
    }
}
