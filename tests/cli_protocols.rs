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
