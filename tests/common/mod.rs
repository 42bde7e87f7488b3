//! Running the `alphazero` binary from integration tests.
#![allow(dead_code)]
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Exit code, stdout and stderr of a finished run.
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

fn finish(out: std::process::Output) -> Output {
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `alphazero ARGS` with `input` on stdin.
pub fn run_with_input(bin: &str, args: &[&str], input: &str) -> Output {
    run_with_bytes(bin, args, input.as_bytes())
}

/// Runs `alphazero ARGS` with the raw bytes `input` on stdin (e.g. invalid UTF-8).
pub fn run_with_bytes(bin: &str, args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(bin)
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start binary");
    let mut stdin = child.stdin.take().expect("stdin");
    // The program may exit before reading everything (game over); ignore a broken pipe.
    let _ = stdin.write_all(input);
    drop(stdin);
    finish(child.wait_with_output().expect("wait for binary"))
}

/// Runs `alphazero ARGS` with empty stdin.
pub fn alphazero(args: &[&str]) -> Output {
    run_with_input(env!("CARGO_BIN_EXE_alphazero"), args, "")
}

/// Runs `alphazero ARGS` with the raw bytes `input` on stdin.
pub fn alphazero_with_bytes(args: &[&str], input: &[u8]) -> Output {
    run_with_bytes(env!("CARGO_BIN_EXE_alphazero"), args, input)
}

/// Runs `alphazero ARGS` with `input` on stdin.
pub fn alphazero_with_input(args: &[&str], input: &str) -> Output {
    run_with_input(env!("CARGO_BIN_EXE_alphazero"), args, input)
}

/// Runs `alphazero ARGS` in `cwd` with extra environment variables (empty stdin).
pub fn alphazero_in(cwd: &std::path::Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_alphazero"))
        .args(args)
        .current_dir(cwd)
        .envs(env.iter().copied())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("run alphazero");
    finish(out)
}

/// A fresh empty directory under the target's test temp dir.
pub fn fresh_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create temp dir");
    d
}

/// Trains a one-iteration Connect Four run in `dir`: 1×8 network, 4 games of 8 simulations,
/// no playout cap, no gating, a snapshot after the iteration.
pub fn tiny_connect4_run(dir: &std::path::Path) -> Output {
    tiny_connect4_run_of(dir, 1)
}

/// [`tiny_connect4_run`] of `iterations` iterations (a champion and a snapshot after each).
pub fn tiny_connect4_run_of(dir: &std::path::Path, iterations: u32) -> Output {
    let iterations = format!("run.iterations={iterations}");
    let mut args = vec![
        "train",
        "--game",
        "connect4",
        "--run",
        dir.to_str().expect("utf-8 path"),
        "--quiet",
    ];
    for set in [
        "model.blocks=1",
        "model.channels=8",
        "model.value_hidden=8",
        "selfplay.games_per_iteration=4",
        "selfplay.parallel_games=4",
        "selfplay.simulations=8",
        "selfplay.playout_cap.enabled=false",
        "train.batch_size=32",
        "train.steps_per_iteration=2",
        "gating.enabled=false",
        &iterations,
        "run.time_budget_minutes=0",
        "run.snapshot_every=1",
    ] {
        args.push("--set");
        args.push(set);
    }
    let out = alphazero(&args);
    assert_eq!(out.code, 0, "train failed: {}", out.stderr);
    out
}

/// Asserts a failed run: non-zero exit, exactly one `error:` line on stderr, no panic.
pub fn assert_clean_error(out: &Output, what: &str) {
    assert_ne!(out.code, 0, "{what} should fail; stdout: {}", out.stdout);
    let errors = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("error:"))
        .count();
    assert_eq!(errors, 1, "{what}: stderr {:?}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "{what}: {}", out.stderr);
}

/// Runs `alphazero ARGS` with stdout on a pipe that the reader closes early: after reading
/// `read_lines` lines (0: closed right after the start, before the program writes). Returns
/// the exit code (-1 when killed by a signal, as by the default `SIGPIPE`) and stderr.
pub fn alphazero_stdout_closed_early(args: &[&str], read_lines: usize) -> (i32, String) {
    use std::io::{BufRead, Read};
    let mut child = Command::new(env!("CARGO_BIN_EXE_alphazero"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start binary");
    let stdout = child.stdout.take().expect("stdout");
    if read_lines > 0 {
        let mut reader = std::io::BufReader::new(stdout);
        let mut line = String::new();
        for _ in 0..read_lines {
            line.clear();
            let n = reader.read_line(&mut line).expect("read stdout");
            assert!(n > 0, "{args:?} ended before printing {read_lines} lines");
        }
        drop(reader);
    } else {
        drop(stdout);
    }
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    let status = child.wait().expect("wait for binary");
    (status.code().unwrap_or(-1), stderr)
}

/// Asserts that a program whose stdout was closed early ended without a panic.
pub fn assert_quiet_on_closed_stdout(code: i32, stderr: &str, what: &str) {
    assert_ne!(code, 101, "{what} panicked: {stderr}");
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    assert!(!stderr.contains("Broken pipe"), "{what}: {stderr}");
}
