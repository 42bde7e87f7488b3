//! `alphazero gomocup`, `pbrain-alphazero` and `alphazero ucci`: transcripts through the binaries.
mod common;
use common::{alphazero_with_input, run_with_input};

fn is_gomocup_move(line: &str, size: u32) -> bool {
    let mut it = line.trim().split(',');
    let ok = |t: Option<&str>| {
        t.and_then(|t| t.parse::<u32>().ok())
            .is_some_and(|v| v < size)
    };
    ok(it.next()) && ok(it.next()) && it.next().is_none()
}

fn check_gomocup(stdout: &str) {
    let lines: Vec<&str> = stdout
        .lines()
        .filter(|l| !l.starts_with("MESSAGE") && !l.starts_with("DEBUG"))
        .collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert_eq!(lines[0], "OK");
    assert!(is_gomocup_move(lines[1], 15), "{stdout}");
}

#[test]
fn gomocup_brain_answers_start_and_begin() {
    let out = alphazero_with_input(&["gomocup", "--fixed-sims", "30"], "START 15\nBEGIN\nEND\n");
    assert_eq!(out.code, 0, "{}", out.stderr);
    check_gomocup(&out.stdout);
}

#[test]
fn pbrain_binary_runs_the_same_brain() {
    let out = run_with_input(
        env!("CARGO_BIN_EXE_pbrain-alphazero"),
        &["--fixed-sims", "30"],
        "START 15\r\nBEGIN\r\nEND\r\n",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    check_gomocup(&out.stdout);
    let bad = run_with_input(env!("CARGO_BIN_EXE_pbrain-alphazero"), &["--bogus"], "");
    assert_ne!(bad.code, 0);
    assert!(bad.stderr.starts_with("error:"), "{}", bad.stderr);
}

/// `pbrain-alphazero` parsed its five flags by hand beside `alphazero gomocup`'s: it now
/// takes the same arguments (one declaration), and a bad one is also told to the manager.
#[test]
fn pbrain_takes_the_same_arguments_as_alphazero_gomocup() {
    let options = |help: &str| -> String {
        let at = help.find("Options:").unwrap_or_else(|| panic!("{help}"));
        help[at..].to_string()
    };
    let pbrain = run_with_input(env!("CARGO_BIN_EXE_pbrain-alphazero"), &["--help"], "");
    let gomocup = alphazero_with_input(&["gomocup", "--help"], "");
    assert_eq!(pbrain.code, 0, "{}", pbrain.stderr);
    assert_eq!(options(&pbrain.stdout), options(&gomocup.stdout));
    // The same range as `alphazero gomocup --fixed-sims`, refused where the manager shows it.
    let bad = run_with_input(
        env!("CARGO_BIN_EXE_pbrain-alphazero"),
        &["--fixed-sims", "0"],
        "START 15\r\nEND\r\n",
    );
    let gomocup = alphazero_with_input(&["gomocup", "--fixed-sims", "0"], "");
    assert_eq!((bad.code, gomocup.code), (2, 2), "{}", bad.stderr);
    assert!(bad.stdout.starts_with("ERROR "), "{}", bad.stdout);
    assert!(bad.stdout.contains("--fixed-sims"), "{}", bad.stdout);
    assert!(bad.stderr.contains("1-10000000"), "{}", bad.stderr);
    assert!(gomocup.stderr.contains("1-10000000"), "{}", gomocup.stderr);
}

#[test]
fn ucci_engine_transcript() {
    let out = alphazero_with_input(
        &["ucci", "--fixed-sims", "50"],
        "ucci\nisready\nposition startpos\ngo nodes 50\nquit\n",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(lines.contains(&"ucciok"), "{}", out.stdout);
    assert!(lines.contains(&"readyok"), "{}", out.stdout);
    let best = lines.iter().find(|l| l.starts_with("bestmove ")).unwrap();
    let mv = best.split_whitespace().nth(1).unwrap();
    assert_eq!(mv.len(), 4, "{best}");
    assert!(
        lines.iter().any(|l| l.starts_with("info ")),
        "{}",
        out.stdout
    );
}

/// A UCI session as Fairy-Stockfish's GUIs drive it (ranks 1–10), with the
/// options of `alphazero ucci` (network loaded without the binary's own cache: `Hash` sizes
/// the engine's).
#[test]
fn uci_engine_takes_ranks_1_to_10_and_reports_multipv_and_wdl() {
    let out = alphazero_with_input(
        &["ucci", "--fixed-sims", "60"],
        "uci\nsetoption name UCI_Variant value xiangqi\nsetoption name MultiPV value 2\n\
         setoption name UCI_ShowWDL value true\nsetoption name Hash value 8\n\
         setoption name Threads value 2\nisready\nposition startpos moves h3e3 h10g8\n\
         go nodes 60\nposition startpos moves h3e3 h0g2\n",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(
        lines.contains(&"uciok") && lines.contains(&"readyok"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("error: option"), "{}", out.stdout);
    let best = lines.iter().find(|l| l.starts_with("bestmove ")).unwrap();
    let mv = best.split_whitespace().nth(1).unwrap();
    let legal = alphazero_protocols::parse_move(mv, alphazero_protocols::Notation::FairyRanks);
    assert!(legal.is_ok(), "{best}");
    let report: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("info depth") && l.contains(" wdl "))
        .collect();
    assert!(
        report.iter().any(|l| l.contains(" multipv 2 ")),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("\"h0g2\": cannot parse move \"h0g2\": rank 0 exists only with ranks 0–9"),
        "{}",
        out.stdout
    );
}

/// Piskvork shows `MESSAGE` lines, never stderr: a 20×20 board (Gomocup's freestyle league)
/// without a network of its size used to be played network-less with a word on stderr only.
#[test]
fn gomocup_brain_on_a_board_without_a_network_says_so_in_a_message() {
    let out = alphazero_with_input(
        &["gomocup", "--model", "models/gomoku-15x15-freestyle.azc"],
        "START 20\nEND\n",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let message = out
        .stdout
        .lines()
        .find(|l| l.starts_with("MESSAGE"))
        .unwrap_or_else(|| panic!("no MESSAGE: {}", out.stdout));
    assert!(
        message.contains("no network for 20x20") && message.contains("15x15"),
        "{message}"
    );
    let out = alphazero_with_input(
        &["gomocup", "--model", "models/gomoku-15x15-freestyle.azc"],
        "START 15\nEND\n",
    );
    assert_eq!(out.stdout, "OK\n", "its own board: no warning");
}

/// A one-iteration 9×9 Gomoku run of a tiny network in `run` with `extra` flags (`--rule`,
/// `--set`); its network file.
fn tiny_gomoku_network(run: &std::path::Path, extra: &[&str]) -> std::path::PathBuf {
    let mut args = vec![
        "train",
        "--game",
        "gomoku",
        "--size",
        "9",
        "--run",
        run.to_str().unwrap(),
        "--set",
        "model.blocks=1",
        "--set",
        "model.channels=8",
        "--set",
        "model.value_hidden=8",
        "--set",
        "selfplay.games_per_iteration=2",
        "--set",
        "selfplay.simulations=8",
        "--set",
        "run.iterations=1",
        "--set",
        "gating.enabled=false",
        "--quiet",
    ];
    args.extend_from_slice(extra);
    let out = alphazero_with_input(&args, "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    run.join("networks/champion-0000.azc")
}

/// A size-independent network (conv policy head, pooled value head) plays every board size
/// with its own weights: no network-less warning on 20×20 or 5×5, and a move.
#[test]
fn gomocup_brain_plays_every_board_with_a_size_independent_network() {
    let run = common::fresh_dir("gomocup_size_independent_run");
    let net = tiny_gomoku_network(
        &run,
        &[
            "--set",
            "model.policy_head=conv",
            "--set",
            "model.value_head=pooled",
        ],
    );

    // Shipped under the name searched first for a board without a network of its own (the
    // 15×15 one, in $ALPHAZERO_MODELS before the repository's), it is what `analyze` (and
    // play, serve, Python) use on a 12×12 board: those once searched it without a network.
    let models = common::fresh_dir("size_independent_models");
    std::fs::copy(&net, models.join("gomoku-15x15-freestyle.azc")).unwrap();
    let out = common::alphazero_in(
        &models,
        &[("ALPHAZERO_MODELS", models.to_str().unwrap())],
        &["analyze", "--game", "gomoku", "--size", "12", "--sims", "8"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("shipped network")
            && out.stderr.contains(&format!(
                "{}",
                models.join("gomoku-15x15-freestyle.azc").display()
            )),
        "{}",
        out.stderr
    );
    for size in [20, 5] {
        let out = alphazero_with_input(
            &[
                "gomocup",
                "--model",
                net.to_str().unwrap(),
                "--fixed-sims",
                "16",
            ],
            &format!("START {size}\nBEGIN\nEND\n"),
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(!out.stdout.contains("MESSAGE warning"), "{}", out.stdout);
        assert!(out.stdout.starts_with("OK\n"), "{}", out.stdout);
        let mv = out.stdout.lines().last().unwrap();
        assert!(is_gomocup_move(mv, size), "{}", out.stdout);
        assert!(
            out.stderr.contains("(size-independent) also on"),
            "{}",
            out.stderr
        );
    }
    let _ = std::fs::remove_dir_all(&run);
}

/// The brain loaded only freestyle networks: a renju network shipped for a board
/// (`gomoku-9x9-renju.azc`) was never used, and renju on that board warned "trained for
/// freestyle". It now loads each rule's network and plays `INFO rule 4` with it.
#[test]
fn gomocup_brain_plays_renju_with_the_renju_network_of_the_board() {
    let models = common::fresh_dir("gomocup_renju_models");
    let run = common::fresh_dir("gomocup_renju_run");
    let net = tiny_gomoku_network(&run, &["--rule", "renju"]);
    std::fs::copy(net, models.join("gomoku-9x9-renju.azc")).unwrap();
    let brain = |input: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_alphazero"))
            .args(["gomocup", "--fixed-sims", "16"])
            .env("ALPHAZERO_MODELS", &models)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child.stdin.take().unwrap().write_all(input.as_bytes())?;
                child.wait_with_output()
            })
            .expect("run the brain");
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // The rule before START (the protocol allows either order): START warns about the rule
    // then in force.
    let (stdout, stderr) = brain("INFO rule 4\nSTART 9\nBEGIN\nEND\n");
    assert!(
        stderr.contains("gomoku-9x9-renju.azc") && stderr.contains("used on 9x9 renju boards"),
        "{stderr}"
    );
    assert!(!stdout.contains("MESSAGE warning"), "{stdout}");
    assert!(
        is_gomocup_move(stdout.lines().last().unwrap(), 9),
        "{stdout}"
    );
    // Freestyle on that board has no network of its rule: the renju one plays it, and says so.
    let (stdout, _) = brain("START 9\nINFO rule 0\nEND\n");
    assert!(
        stdout.contains("MESSAGE warning: the network was trained for renju on 9x9"),
        "{stdout}"
    );
}

/// The brain used only the first shipped network it found (15×15) and played the 8×8 board
/// without the shipped 8×8 network. Each board size takes its own shipped evaluator.
#[test]
fn gomocup_brain_plays_each_board_size_with_its_shipped_network() {
    for size in [8, 15, 20] {
        let out = alphazero_with_input(&["gomocup"], &format!("START {size}\nEND\n"));
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(out.stdout, "OK\n", "{size}x{size}: no warning");
        // 15×15 freestyle ships a fast evaluator, which plays before its network.
        let kind = if size == 15 { "azm" } else { "azc" };
        let name = format!("gomoku-{size}x{size}-freestyle.{kind} (");
        assert!(out.stderr.contains(&name), "{}", out.stderr);
    }
    // Every other size: the size-independent 20×20 network, without a warning.
    let out = alphazero_with_input(&["gomocup"], "START 12\nEND\n");
    assert_eq!(out.stdout, "OK\n", "{}", out.stdout);
    assert!(
        out.stderr.contains(
            "gomoku-20x20-freestyle.azc (size-independent) also on the 5, 6, 7, 9, 10, 11, 12,"
        ),
        "{}",
        out.stderr
    );
}

/// A brain whose network cannot be loaded died with the reason on stderr only, which a
/// Gomocup manager does not show: it now answers the manager's commands with it.
#[test]
fn pbrain_with_a_damaged_network_tells_the_manager_why() {
    let dir = common::fresh_dir("pbrain_damaged_model");
    let mut bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/models/gomoku-8x8-freestyle.azc"
    ))
    .unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    let damaged = dir.join("damaged.azc");
    std::fs::write(&damaged, bytes).unwrap();
    let out = run_with_input(
        env!("CARGO_BIN_EXE_pbrain-alphazero"),
        &["--model", damaged.to_str().unwrap()],
        "START 8\r\nBEGIN\r\nEND\r\n",
    );
    assert_ne!(out.code, 0);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", out.stdout);
    for line in lines {
        assert!(
            line.starts_with("ERROR ") && line.contains("damaged.azc"),
            "{line}"
        );
    }
    assert!(out.stderr.starts_with("error:"), "{}", out.stderr);
}

#[test]
fn pbrain_finds_networks_in_models_beside_the_executable_from_any_working_directory() {
    // A Gomocup zip: pbrain-alphazero with models/ in the same folder; the manager starts it
    // from its own working directory.
    let zip = common::fresh_dir("gomocup_zip");
    std::fs::create_dir_all(zip.join("models")).unwrap();
    let exe = zip.join("pbrain-alphazero");
    std::fs::copy(env!("CARGO_BIN_EXE_pbrain-alphazero"), &exe).unwrap();
    let net = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/models/gomoku-8x8-freestyle.azc"
    );
    std::fs::copy(net, zip.join("models/gomoku-8x8-freestyle.azc")).unwrap();
    let cwd = common::fresh_dir("gomocup_manager_cwd");
    let out = std::process::Command::new(&exe)
        .current_dir(&cwd)
        .env_remove("ALPHAZERO_MODELS")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(b"START 8\r\nBEGIN\r\nEND\r\n")?;
            child.wait_with_output()
        })
        .expect("run the copied brain");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let beside = zip.join("models/gomoku-8x8-freestyle.azc");
    assert!(
        stderr.contains(&format!("network {}", beside.display())),
        "{stderr}"
    );
    assert!(
        stdout.lines().any(|l| is_gomocup_move(l, 8)),
        "{stdout}\n{stderr}"
    );
}

/// `alphazero ucci` plays Xiangqi with the play search's mate tactics (the registry's, as
/// `analyze` and `play` use them): on the positions of the Xiangqi mate data with a mate by
/// checks (a mate in one, two or three moves), a search of a few nodes answers a first move of
/// a shortest mate and reports the proven win. The engine once searched with no tactics: at
/// this budget it found the mates in one (answered before any search) but none of the mates
/// in two or three, and ElephantEye at depth 1 mated it.
#[test]
fn ucci_engine_plays_mates_with_the_play_search_tactics() {
    // Our own mate data and the mates in one made and classified by Fairy-Stockfish
    // (scripts/xiangqi-mates-in-one.py): every one must be found.
    let data = [
        include_str!("../crates/xiangqi/tests/data/mates.tsv"),
        include_str!("../crates/xiangqi/tests/data/mates-ffish.tsv"),
    ];
    // (FEN, shortest mate by checks in plies, the first moves of such mates, ICCS).
    let rows: Vec<(&str, u32, Vec<&str>)> = data
        .iter()
        .flat_map(|d| d.lines())
        .filter(|l| !l.starts_with('#') && !l.starts_with("fen\t"))
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            let plies = cols[2].parse().ok()?;
            Some((cols[0], plies, cols[3].split_whitespace().collect()))
        })
        .filter(|(_, plies, _)| *plies <= 5)
        .collect();
    assert!(
        rows.iter().filter(|r| r.1 > 1).count() >= 5,
        "mates in two and three in the data"
    );
    assert!(
        rows.iter().filter(|r| r.1 == 1).count() >= 100,
        "the mates in one of both files"
    );
    let mut input = String::from("ucci\n");
    for (fen, _, _) in &rows {
        input.push_str(&format!("position fen {fen}\ngo nodes 8\n"));
    }
    input.push_str("quit\n");
    let out = alphazero_with_input(&["ucci"], &input);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Each search's report: its info lines, then its bestmove.
    let mut searches: Vec<(Vec<&str>, &str)> = Vec::new();
    let mut infos = Vec::new();
    for line in out.stdout.lines() {
        if line.starts_with("info ") {
            infos.push(line);
        } else if let Some(rest) = line.strip_prefix("bestmove ") {
            let mv = rest.split_whitespace().next().unwrap_or("");
            searches.push((std::mem::take(&mut infos), mv));
        }
    }
    assert_eq!(searches.len(), rows.len(), "{}", out.stdout);
    for ((fen, plies, mating), (infos, mv)) in rows.iter().zip(&searches) {
        assert!(
            mating.contains(mv),
            "{fen}: played {mv}, not one of the mates in {plies} plies {mating:?}\n{}",
            infos.join("\n")
        );
        // UCCI reports a proven win as `score 30000 − plies`.
        let proven = infos.iter().any(|l| {
            l.split_whitespace()
                .skip_while(|w| *w != "score")
                .nth(1)
                .and_then(|s| s.parse::<i32>().ok())
                .is_some_and(|s| s > 29_000)
        });
        assert!(
            proven,
            "{fen}: no proven win reported\n{}",
            infos.join("\n")
        );
    }
}
