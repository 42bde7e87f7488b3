//! Golden transcript tests: every `tests/transcripts/*.in` is fed to the engine its name
//! starts with (`gomocup_…` → the Gomocup brain, `ucci_…`/`uci_…` → the UCCI/UCI engine) with
//! the uniform evaluator, 64 fixed simulations per move and seed 7, and the normalised output
//! is compared with the `.out` file beside it.
//!
//! A transcript never sends `quit` or `stop` right after a `go`: read while the search runs,
//! either stops it at a moment that depends on the machine's load (the golden's `nodes` would
//! too); the end of the input lets the last search finish its budget.
//!
//! Normalisation removes what depends on the clock: `DEBUG` lines are dropped and the values
//! of `time` and `nps` in `info` lines become `*`.
//!
//! Regenerate after an intended change with
//! `UPDATE_GOLDEN=1 cargo test --release --workspace --test transcripts` and review the diff.

use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use alphazero_mcts::UniformEvaluator;
use alphazero_protocols::{parse_move, run_gomocup, run_ucci, EngineConfig, Notation};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/transcripts")
}

fn normalise(raw: &str) -> String {
    let mut out = String::new();
    for line in raw.lines() {
        if line.starts_with("DEBUG") {
            continue;
        }
        if line.starts_with("info ") {
            let mut words: Vec<String> = line.split(' ').map(str::to_string).collect();
            for i in 1..words.len() {
                if words[i - 1] == "time" || words[i - 1] == "nps" {
                    words[i] = "*".into();
                }
            }
            out.push_str(&words.join(" "));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

fn run_transcript(name: &str) -> String {
    let input = std::fs::read(dir().join(format!("{name}.in"))).expect("transcript input");
    let mut output = Vec::new();
    let config = EngineConfig::fixed(64, 7);
    if name.starts_with("gomocup") {
        run_gomocup(
            Cursor::new(input),
            &mut output,
            Arc::new(UniformEvaluator),
            config,
        )
        .expect("in-memory I/O");
    } else {
        run_ucci(
            Cursor::new(input),
            &mut output,
            Arc::new(UniformEvaluator),
            config,
        )
        .expect("in-memory I/O");
    }
    normalise(&String::from_utf8(output).expect("engine output is UTF-8"))
}

fn check(name: &str) {
    let got = run_transcript(name);
    let path = dir().join(format!("{name}.out"));
    if std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &got).expect("write golden file");
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1)", path.display()));
    if got != want {
        for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
            if g != w {
                panic!("{name}: first difference at output line {}:\n got: {g}\nwant: {w}\n\nfull output:\n{got}", i + 1);
            }
        }
        panic!(
            "{name}: output has {} lines, golden {}:\n{got}",
            got.lines().count(),
            want.lines().count()
        );
    }
}

#[test]
fn no_transcript_stops_a_search_at_a_moment_that_depends_on_load() {
    for entry in std::fs::read_dir(dir()).expect("transcript folder") {
        let path = entry.expect("transcript entry").path();
        if path.extension().is_none_or(|e| e != "in") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("transcript input");
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for pair in lines.windows(2) {
            let stops = pair[1] == "quit" || pair[1] == "stop";
            let searches = pair[0].starts_with("go ")
                && ["nodes", "depth", "movetime", "wtime"]
                    .iter()
                    .any(|w| pair[0].split(' ').any(|x| x == *w));
            assert!(
                !(searches && stops),
                "{}: `{}` right after `{}` races the search",
                path.display(),
                pair[1],
                pair[0]
            );
        }
    }
}

#[test]
fn gomocup_session_matches_golden() {
    check("gomocup_session");
}

#[test]
fn gomocup_commands_before_start_and_mixed_line_endings_match_golden() {
    check("gomocup_before_start");
}

#[test]
fn gomocup_second_begin_and_coordinates_off_the_board_are_errors_naming_the_board() {
    check("gomocup_bad_input");
    let out = run_transcript("gomocup_bad_input");
    // The second BEGIN (stones on the board) is refused, not answered with a second move.
    let begin_errors = out
        .lines()
        .filter(|l| l.starts_with("ERROR BEGIN needs an empty board"))
        .count();
    assert_eq!(begin_errors, 3, "{out}");
    assert!(out.contains("on the 15x15 board"), "{out}");
    assert!(!out.contains("20x20"), "{out}");
}

#[test]
fn gomocup_board_field_3_bad_lines_duplicates_and_off_board_points_are_errors_naming_the_line() {
    check("gomocup_board_errors");
    let out = run_transcript("gomocup_board_errors");
    let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("ERROR ")).collect();
    for want in [
        "ERROR BOARD line 2 \"8,8,3\": field 3",
        "ERROR BOARD line 2 \"7,7,2\": 7,7 is already given on BOARD line 1",
        "ERROR BOARD line 2 \"15,3,2\": \"15,3\" is off the 15x15 board",
        "ERROR BOARD line 1 \"-1,3,2\": \"-1,3\" is off the 15x15 board",
        "ERROR BOARD line 1 \"7,7\": expected X,Y,F",
        "ERROR BOARD line 1 \"7,7,1,2\": expected X,Y,F (three comma-separated numbers), got 4",
        "ERROR BOARD line 1 \"7,7,4\": field must be 1",
        "ERROR BOARD line 1 \"7,7,x\": field must be 1",
        "ERROR BOARD line 1 \"7,7,0\": field must be 1",
        "ERROR BOARD line 1 \"a,7,1\": bad point \"a,7\"",
        "ERROR BOARD line 1 \"7,7,3\": field 3",
    ] {
        assert!(
            errors.iter().any(|l| l.starts_with(want)),
            "missing {want:?} in:\n{out}"
        );
    }
    // Every bad block gets exactly one ERROR and no move; the brain then still answers TURN,
    // RESTART and a good BOARD with moves (3 moves in all), and the stones of a rejected block
    // never reach the board (TURN 8,8 after the field-3 block is legal).
    assert_eq!(errors.len(), 11, "{out}");
    let moves = out
        .lines()
        .filter(|l| l.split(',').count() == 2 && !l.contains(' '))
        .count();
    assert_eq!(moves, 3, "{out}");
}

#[test]
fn ucci_go_with_zero_negative_or_garbage_limits_is_refused_without_searching() {
    check("ucci_bad_go");
    let out = run_transcript("ucci_bad_go");
    for bad in [
        "go depth must be a positive number, got -1",
        "go depth must be a positive number, got 0",
        "go nodes must be a positive number, got 0",
        "go movetime must be a positive number, got -5",
        "go depth needs a number, got \"x\"",
        "go movetime needs a number, got \"abc\"",
        "go movetime 18446744073709551615 is out of range (at most 9223372036854775807)",
    ] {
        assert!(
            out.contains(&format!(
                "info string error: {bad}; nothing searched\nnobestmove\n"
            )),
            "{bad}: {out}"
        );
    }
    // Only the one good `go` at the end searched.
    assert_eq!(out.matches("bestmove ").count(), 1, "{out}");
}

#[test]
fn ucci_illegal_position_move_is_reported_with_its_index_and_go_never_searches_a_stale_position() {
    check("ucci_position_errors");
    let out = run_transcript("ucci_position_errors");
    let lines: Vec<&str> = out.lines().collect();
    let after = |cmd_line: &str| -> Vec<&str> {
        let i = lines
            .iter()
            .position(|l| l.starts_with(cmd_line))
            .unwrap_or_else(|| panic!("no {cmd_line:?} in:\n{out}"));
        lines[i..].to_vec()
    };
    let err = after("info string error: position move 3 of 4 \"e0e5\" is illegal: ");
    assert!(
        err[0].ends_with("; no position is set until the next position command"),
        "{out}"
    );
    // The following go, d and go infinite answer the error at once, with no search.
    let no_position = "info string error: no position: the last position command was rejected";
    assert!(err[1].starts_with(no_position), "{out}");
    assert_eq!(err[2], "nobestmove", "{out}");
    assert!(err[3].starts_with(no_position), "{out}");
    assert!(err[4].starts_with(no_position), "{out}");
    assert_eq!(err[5], "nobestmove", "{out}");
    // banmoves is accepted, but go still refuses.
    assert!(err[6].starts_with(no_position), "{out}");
    assert_eq!(err[7], "nobestmove", "{out}");
    let parse = after("info string error: position move 2 of 2 \"x\": cannot parse move");
    assert!(parse[1].starts_with(no_position), "{out}");
    assert_eq!(parse[2], "nobestmove", "{out}");
    let fen = after("info string error: position: cannot parse FEN");
    assert!(fen[1].starts_with(no_position), "{out}");
    // A good position searches again; ucinewgame sets the start position.
    let ok = after("info string fen rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR");
    assert!(ok[2].starts_with("bestmove "), "{out}");
    let new =
        after("info string fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w");
    assert!(new[2].starts_with("bestmove "), "{out}");
    // Exactly one search per accepted position: 3 bestmoves (first, good, newgame).
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("bestmove")).count(),
        3,
        "{out}"
    );
}

#[test]
fn uci_illegal_position_move_in_fairy_ranks_is_named_as_written_and_answers_bestmove_none() {
    check("uci_position_errors");
    let out = run_transcript("uci_position_errors");
    assert!(
        out.contains("info string error: position move 3 of 3 \"e1e6\" (ICCS e0e5) is illegal: "),
        "{out}"
    );
    let lines: Vec<&str> = out.lines().collect();
    let nones = lines.iter().filter(|l| **l == "bestmove (none)").count();
    assert_eq!(nones, 2, "go and go ponder answer at once:\n{out}");
    // After the good position the search runs, in rank-base-1 notation.
    assert!(
        lines
            .last()
            .is_some_and(|l| l.starts_with("bestmove ") && *l != "bestmove (none)"),
        "{out}"
    );
}

#[test]
fn ucci_session_matches_golden() {
    check("ucci_session");
}

#[test]
fn uci_session_matches_golden() {
    check("uci_session");
}

#[test]
fn transcripts_are_deterministic_across_runs() {
    for name in ["gomocup_session", "ucci_session"] {
        assert_eq!(run_transcript(name), run_transcript(name), "{name}");
    }
}

#[test]
fn gomocup_swap2board_answers_all_three_stages_and_refuses_bad_blocks() {
    check("gomocup_swap2");
    let out = run_transcript("gomocup_swap2");
    let lines: Vec<&str> = out.lines().collect();
    // Before START: one error, the block's lines are not taken as commands.
    assert!(lines[0].starts_with("ERROR no board"), "{out}");
    assert!(!out.contains("UNKNOWN"), "{out}");
    // Stage 1: three points; stage 2 (uniform: balanced): two points; stage 3: one point.
    let answers: Vec<usize> = lines
        .iter()
        .filter(|l| !l.starts_with("MESSAGE") && !l.starts_with("ERROR") && **l != "OK")
        .map(|l| l.split(' ').count())
        .collect();
    assert_eq!(&answers[..3], &[3, 2, 1], "{out}");
    for want in [
        "ERROR SWAP2BOARD needs 0, 3 or 5 stones (the three swap2 stages), got 2",
        "ERROR SWAP2BOARD line 2 \"7,7\": 7,7 is already given on SWAP2BOARD line 1",
        "ERROR SWAP2BOARD line 1 \"7,7,1\": expected X,Y (two comma-separated numbers",
        "ERROR SWAP2BOARD line 1 \"15,1\": \"15,1\" is off the 15x15 board",
        "ERROR SWAP2BOARD needs 0, 3 or 5 stones (the three swap2 stages), got 6",
    ] {
        assert!(
            lines.iter().any(|l| l.starts_with(want)),
            "missing {want:?} in:\n{out}"
        );
    }
    assert!(
        out.contains("MESSAGE swap2 stage 2: value for white to move"),
        "{out}"
    );
    assert!(
        out.contains("MESSAGE swap2 stage 3: value for white to move"),
        "{out}"
    );
}

#[test]
fn gomocup_renju_foul_of_the_opponent_is_reported_and_still_answered() {
    check("gomocup_renju_foul");
    let out = run_transcript("gomocup_renju_foul");
    assert!(
        out.contains(
            "MESSAGE foul: the opponent's black stone at 8,8 is forbidden under renju \
             (DoubleThree); black loses by the rules, playing on"
        ),
        "{out}"
    );
    // The foul as the last BOARD stone and as a TURN: reported both times, and every
    // command gets a move (no "game is over" error).
    assert_eq!(out.matches("MESSAGE foul: ").count(), 2, "{out}");
    assert!(!out.contains("ERROR"), "{out}");
    let moves = out
        .lines()
        .filter(|l| l.split(',').count() == 2 && !l.contains(' '))
        .count();
    assert_eq!(moves, 4, "{out}");
}

#[test]
fn uci_uses_ranks_1_to_10_by_default_and_refuses_moves_only_the_other_numbering_has() {
    check("uci_fairy_ranks");
    let out = run_transcript("uci_fairy_ranks");
    let lines: Vec<&str> = out.lines().collect();
    let has = |want: &str| {
        assert!(
            lines.iter().any(|l| l.starts_with(want)),
            "missing {want:?} in:\n{out}"
        )
    };
    // Moves in 1–10 are played, and every move the engine writes (pv, bestmove, ponder)
    // is in 1–10 until UCI_RankBase 0; after it, in 0–9.
    let switch = lines
        .iter()
        .position(|l| l.contains("\"a10a9\""))
        .expect("the rank-10 error");
    let moves_of = |l: &str| -> Vec<String> {
        let w: Vec<&str> = l.split(' ').collect();
        match w[0] {
            "bestmove" => w
                .iter()
                .skip(1)
                .filter(|m| **m != "ponder" && **m != "(none)")
                .map(|m| m.to_string())
                .collect(),
            "info" if w[1] == "depth" => {
                let pv = w.iter().position(|x| *x == "pv").unwrap();
                w[pv + 1..].iter().map(|m| m.to_string()).collect()
            }
            _ => Vec::new(),
        }
    };
    let mut written = 0;
    for (i, l) in lines.iter().enumerate() {
        let notation = if i < switch {
            Notation::FairyRanks
        } else {
            Notation::Iccs
        };
        for m in moves_of(l) {
            assert!(
                parse_move(&m, notation).is_ok(),
                "{m} in {l:?} is not {notation:?}"
            );
            written += 1;
        }
    }
    assert!(written >= 15, "{out}");
    // A rank 0 under 1–10, and a rank 10 under 0–9, are refused and leave no position.
    has("info string error: position move 3 of 3 \"h0g2\": cannot parse move \"h0g2\": rank 0 exists only with ranks 0–9, and moves are read with ranks 1–10");
    has("info string error: position move 2 of 2 \"a10a9\": cannot parse move \"a10a9\": rank 10 exists only with ranks 1–10, and moves are read with ranks 0–9");
    // An ambiguous string is read by the numbering in use; when the other reading is legal
    // the error says so.
    has("info string error: position move 1 of 1 \"h2e2\" (ICCS h1e1) is illegal: there is no piece on h1 (moves are read with ranks 1–10; with ranks 0–9 it would be legal: setoption name UCI_RankBase value 0)");
    // searchmoves: bad ones are named and ignored, the good one is searched.
    has("info string error: go searchmoves \"i0i1\": cannot parse move \"i0i1\": rank 0 exists only");
    has("info string error: go searchmoves \"zz\": cannot parse move");
    has("info string error: go searchmoves: none of the moves can be searched; searching every move");
    // A FEN without a side to move is refused, not guessed as Red to move.
    has("info string error: position: cannot parse FEN \"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR\": no side to move");
    assert_eq!(out.matches("no side to move").count(), 3, "{out}");
    // After each refused position, go answers bestmove (none) at once.
    let bests: Vec<&&str> = lines.iter().filter(|l| l.starts_with("bestmove")).collect();
    assert_eq!(bests.len(), 8, "{out}");
    let searched: Vec<&str> = bests.iter().map(|l| l.split(' ').nth(1).unwrap()).collect();
    assert_eq!(searched[1], "(none)", "{out}");
    assert_eq!(searched[2], "(none)", "{out}");
    assert_eq!(searched[3], "e1e2", "the only searchmove left: {out}");
    assert_eq!(searched[5], "(none)", "{out}");
}

#[test]
fn uci_options_are_validated_and_multipv_and_wdl_lines_follow_the_search() {
    check("uci_options");
    let out = run_transcript("uci_options");
    for want in [
        "option name MultiPV type spin default 1 min 1 max 500",
        "option name Hash type spin default 256 min 0 max 1048576",
        "option name Threads type spin default 1 min 1 max 256",
        "option name Move Overhead type spin default 50 min 0 max 5000",
        "option name UCI_ShowWDL type check default false",
        "option name UCI_RankBase type spin default 1 min 0 max 1",
        "info string error: option MultiPV: expected an integer from 1 to 500, got \"0\"; unchanged",
        "info string error: option MultiPV: expected an integer from 1 to 500, got \"501\"; unchanged",
        "info string error: option MultiPV: expected an integer from 1 to 500, got \"three\"; unchanged",
        "info string error: option Hash: expected an integer from 0 to 1048576, got \"-1\"; unchanged",
        "info string error: option Threads: expected an integer from 1 to 256, got \"0\"; unchanged",
        "info string error: option Move Overhead: expected an integer from 0 to 5000, got \"5001\"; unchanged",
        "info string error: option UCI_ShowWDL: expected true or false, got \"yes\"; unchanged",
        "info string error: option UCI_Variant: unsupported value (only xiangqi), got \"chess\"; unchanged",
        "info string error: unknown option \"Frobnicate\"; ignored",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
    // Ponder and UCI_AnalyseMode are accepted silently; 13 bad settings, 13 errors.
    assert_eq!(out.matches("info string error").count(), 13, "{out}");
    let blocks: Vec<&str> = out.split("readyok\n").collect();
    // The bad values changed nothing: one plain line, no multipv, no wdl.
    let before = blocks[1];
    assert!(
        !before.contains("multipv") && !before.contains("wdl"),
        "{out}"
    );
    // MultiPV 3 with WDL: three lines per report, k = 1, 2, 3, different first moves; line 1
    // is the move played; every line has wdl W D L summing to 1000.
    let after = blocks[2];
    let last_report: Vec<&str> = after
        .lines()
        .take_while(|l| !l.starts_with("bestmove"))
        .collect();
    let tail = &last_report[last_report.len() - 3..];
    let mut firsts = Vec::new();
    for (k, l) in tail.iter().enumerate() {
        let w: Vec<&str> = l.split(' ').collect();
        assert_eq!(w[3..5], ["multipv", &(k + 1).to_string()], "{l}");
        let at = w.iter().position(|x| *x == "wdl").expect("wdl");
        let sum: u32 = w[at + 1..at + 4]
            .iter()
            .map(|x| x.parse::<u32>().unwrap())
            .sum();
        assert_eq!(sum, 1000, "{l}");
        let pv = w.iter().position(|x| *x == "pv").unwrap();
        firsts.push(w[pv + 1]);
    }
    firsts.dedup();
    assert_eq!(firsts.len(), 3, "{out}");
    let best = after.lines().find(|l| l.starts_with("bestmove")).unwrap();
    assert_eq!(best.split(' ').nth(1), Some(firsts[0]), "{out}");
    // A proven mate: line 1 is the mate with wdl 1000 0 0.
    assert!(
        after.contains("multipv 1 score mate 1 wdl 1000 0 0"),
        "{out}"
    );
}

#[test]
fn ucci_declares_and_validates_hashsize_and_threads() {
    check("ucci_options");
    let out = run_transcript("ucci_options");
    for want in [
        "option hashsize type spin min 0 max 1048576 default 256",
        "option threads type spin min 1 max 256 default 1",
        "option rankbase type spin min 0 max 1 default 0",
        "info string error: option hashsize: expected an integer from 0 to 1048576, got \"-5\"; unchanged",
        "info string error: option threads: expected an integer from 1 to 256, got \"0\"; unchanged",
        "info string error: option threads: expected an integer from 1 to 256, got \"many\"; unchanged",
        "info string error: option usemillisec: expected true or false, got \"maybe\"; unchanged",
        "info string error: option rankbase: expected an integer from 0 to 1, got \"5\"; unchanged",
        "info string error: unknown option \"frobnicate\"; ignored",
        "option policytemperature type string default 1",
        "info string error: option policytemperature: expected a number in [0.1, 10], got \"0\"; unchanged",
        "info string error: option policytemperature: expected a number in [0.1, 10], got \"warm\"; unchanged",
        // UCCI keeps ICCS (0–9) until rankbase 1.
        "info string error: position move 1 of 1 \"h2e2\" (ICCS h1e1) is illegal: there is no piece on h1 (moves are read with ranks 1–10; with ranks 0–9 it would be legal: setoption rankbase 0)",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
    assert!(!out.contains("MultiPV") && !out.contains("UCI_"), "{out}");
    assert_eq!(out.matches("info string error").count(), 9, "{out}");
    assert_eq!(
        out.lines().filter(|l| l.starts_with("bestmove ")).count(),
        2,
        "{out}"
    );
}

/// Regression: error lines repeated the whole bad input.
#[test]
fn long_bad_lines_are_echoed_cut_to_80_characters_with_their_length() {
    check("uci_long_lines");
    check("gomocup_long_lines");
    for name in ["uci_long_lines", "gomocup_long_lines"] {
        let out = run_transcript(name);
        let errors: Vec<&str> = out
            .lines()
            .filter(|l| {
                l.starts_with("info string error")
                    || l.starts_with("ERROR")
                    || l.starts_with("UNKNOWN")
            })
            .collect();
        assert!(errors.len() >= 7, "{name}:\n{out}");
        for l in &errors {
            assert!(l.chars().count() < 400, "{name}: {l}");
        }
        assert!(out.contains("… ("), "{name}:\n{out}");
    }
    let uci = run_transcript("uci_long_lines");
    assert!(
        uci.contains(&format!(
            "unknown command frobnicate{}… (310 bytes)",
            "x".repeat(70)
        )),
        "{uci}"
    );
    let gomocup = run_transcript("gomocup_long_lines");
    assert!(
        gomocup.contains(&format!(
            "UNKNOWN unknown command FOO{}… (303 bytes)",
            "O".repeat(77)
        )),
        "{gomocup}"
    );
}

/// Lines of 1 MB (read, answered with a short error) and 10 MB (over the 1 MiB limit: not
/// stored, one error) in both protocols; the engines answer normally afterwards.
#[test]
fn megabyte_lines_get_short_errors_and_the_engines_go_on() {
    let mb = "x".repeat(1_000_000);
    let ten = "y".repeat(10_000_000);
    let cases = [
        (
            "uci",
            format!(
                "uci\nposition fen {mb} w\nposition startpos moves h3e3 {ten}\ngo nodes 8\n{mb}\nposition startpos moves h3e3\ngo nodes 8\n"
            ),
        ),
        (
            "gomocup",
            format!("START 15\nTURN {mb}\n{ten}\nINFO folder {mb}\nTURN 7,7\nEND\n"),
        ),
    ];
    for (name, input) in cases {
        let mut output = Vec::new();
        let config = EngineConfig::fixed(16, 7);
        if name == "gomocup" {
            run_gomocup(
                Cursor::new(input),
                &mut output,
                Arc::new(UniformEvaluator),
                config,
            )
            .unwrap();
        } else {
            run_ucci(
                Cursor::new(input),
                &mut output,
                Arc::new(UniformEvaluator),
                config,
            )
            .unwrap();
        }
        let out = String::from_utf8(output).unwrap();
        assert!(out.len() < 4000, "{name}: {} bytes of output", out.len());
        for l in out.lines() {
            assert!(l.len() < 400, "{name}: {l}");
        }
        if name == "uci" {
            assert!(out.contains("(1000002 bytes): expected 10 ranks"), "{out}");
            assert!(out.contains("(10000029 bytes) is longer than the 1048576 bytes a line may have; no position is set"), "{out}");
            assert!(out.contains("unknown command xxxxxxxx"), "{out}");
            let bests: Vec<&str> = out.lines().filter(|l| l.starts_with("bestmove")).collect();
            // The over-long position leaves no position; the last one is searched.
            assert_eq!(bests.len(), 2, "{out}");
            assert_eq!(bests[0], "bestmove (none)", "{out}");
            assert_ne!(bests[1], "bestmove (none)", "{out}");
        } else {
            assert!(out.contains("(1000000 bytes)"), "{out}");
            assert!(
                out.contains("(10000000 bytes) is longer than the 1048576 bytes"),
                "{out}"
            );
            assert_eq!(
                out.lines()
                    .filter(|l| l.split(',').count() == 2 && !l.contains(' '))
                    .count(),
                1,
                "{out}"
            );
        }
    }
}

/// Regression guard: a GUI that judges repetitions by its own rules sends the moves played
/// after our threefold repetition; `position` accepts them (the engine answers a legal move,
/// not `bestmove (none)`), while a move in a mated position is still refused.
#[test]
fn uci_moves_after_a_repetition_our_rules_end_are_accepted_and_answered_with_a_move() {
    check("uci_moves_after_repetition");
    let out = run_transcript("uci_moves_after_repetition");
    let best: Vec<&str> = out.lines().filter(|l| l.starts_with("bestmove")).collect();
    assert_eq!(best.len(), 3, "{out}");
    assert!(
        best[0] != "bestmove (none)" && best[1] != "bestmove (none)",
        "{out}"
    );
    assert_eq!(best[2], "bestmove (none)", "{out}");
    assert!(out.contains("is illegal"), "{out}");
}
