//! `alphazero train`: runs, resumes, survives SIGKILL at any moment without losing or
//! corrupting anything, and rejects bad input with one clear error line.
use alphazero_train::record::read_records_any;
use alphazero_train::state::RunState;
use alphazero_train::storage::{LocalStorage, Storage};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// A tiny, fast configuration: 1×8 network, 6 games of 8 simulations per iteration.
const TINY: &[&str] = &[
    "--set",
    "model.blocks=1",
    "--set",
    "model.channels=8",
    "--set",
    "model.value_hidden=8",
    "--set",
    "selfplay.games_per_iteration=6",
    "--set",
    "selfplay.parallel_games=6",
    "--set",
    "selfplay.simulations=8",
    "--set",
    "selfplay.playout_cap.enabled=false",
    "--set",
    "train.batch_size=32",
    "--set",
    "train.steps_per_iteration=3",
    "--set",
    "gating.games=2",
    "--set",
    "gating.simulations=4",
    "--set",
    "run.time_budget_minutes=0",
    "--set",
    "run.snapshot_every=2",
    "--quiet",
];

fn train_cmd(run: &Path, iterations: u32) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_alphazero"));
    c.args(["train", "--game", "connect4", "--run"])
        .arg(run)
        .args(["--iterations", &iterations.to_string()])
        .args(TINY)
        .stdin(Stdio::null());
    c
}

fn temp_run(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("alphazero-cli-train-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Everything a finished or interrupted run directory must satisfy.
fn check_run_dir(run: &Path) -> RunState {
    let storage = LocalStorage::open(run).expect("open run dir");
    let state = RunState::load(&storage)
        .expect("state readable")
        .expect("state exists");
    // Every record file is complete and readable; game ids never repeat.
    let mut ids = Vec::new();
    let keys = storage.list("records/").unwrap();
    for key in &keys {
        let file =
            read_records_any(&storage.get(key).unwrap()).unwrap_or_else(|e| panic!("{key}: {e}"));
        assert_eq!(file.header.game, "connect4");
        for i in 0..file.games.len() as u64 {
            ids.push(file.header.first_game_id + i);
        }
    }
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n, "a game id was written twice");
    // Completed iterations' games are all on disk (interrupted ones may add more).
    assert!(
        n as u64 >= state.total_games,
        "{n} games on disk, state counts {}",
        state.total_games
    );
    // The champion's network exists and every network file is complete.
    let nets = storage.list("networks/").unwrap();
    assert!(
        nets.contains(&format!("networks/champion-{:04}.azc", state.champion_id)),
        "{nets:?}"
    );
    for key in nets {
        alphazero_nn::load_checkpoint(
            &storage.path_of(&key).unwrap(),
            "connect4",
            &alphazero_nn::default_device(),
        )
        .unwrap_or_else(|e| panic!("{key}: {e}"));
    }
    // No temporary file is left under a final name (LocalStorage cleans temp files at open).
    state
}

#[test]
fn train_runs_resumes_and_writes_records_metrics_and_plots() {
    let run = temp_run("resume");
    let out = train_cmd(&run, 2).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = check_run_dir(&run);
    assert_eq!((s.iteration, s.total_games), (2, 12));
    assert!(run.join("config.toml").exists());
    assert!(run.join("plots/losses.png").exists());
    assert_eq!(
        std::fs::read_to_string(run.join("metrics.jsonl"))
            .unwrap()
            .lines()
            .count(),
        2
    );
    // Resume: two more iterations on the same directory.
    let out = train_cmd(&run, 4).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("resuming"), "{err}");
    let s = check_run_dir(&run);
    assert_eq!((s.iteration, s.total_games), (4, 24));
    assert_eq!(
        LocalStorage::open(&run)
            .unwrap()
            .list("records/")
            .unwrap()
            .len(),
        4
    );
    assert!(run.join("networks/snapshot-00004.azc").exists());
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn train_killed_with_sigkill_at_any_moment_resumes_with_nothing_lost() {
    let run = temp_run("sigkill");
    // Kill the run at several moments (start-up, self-play, training, writing), then finish it.
    for (i, ms) in [700u64, 1900, 3100, 1300, 4200].into_iter().enumerate() {
        let mut child = train_cmd(&run, 6).stderr(Stdio::null()).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(ms));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        if run.join("state/run.json").exists() {
            let s = check_run_dir(&run);
            assert!(s.iteration <= 6, "kill {i}");
        }
    }
    let out = train_cmd(&run, 6).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = check_run_dir(&run);
    assert_eq!(s.iteration, 6);
    assert_eq!(s.total_games, 36);
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn train_bad_input_is_one_clear_error_line() {
    let file =
        std::env::temp_dir().join(format!("alphazero-cli-train-{}-file", std::process::id()));
    std::fs::write(&file, b"not a directory").unwrap();
    let under_file = file.join("run");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "--game".into(),
                "connect4".into(),
                "--run".into(),
                under_file.display().to_string(),
            ],
            "run directory",
        ),
        (
            vec![
                "--game".into(),
                "connect4".into(),
                "--run".into(),
                "/tmp/x".into(),
                "--set".into(),
                "selfplay.simulatoins=5".into(),
            ],
            "selfplay.simulatoins",
        ),
        (
            vec![
                "--game".into(),
                "connect4".into(),
                "--run".into(),
                "/tmp/x".into(),
                "--set".into(),
                "selfplay.simulations=0".into(),
            ],
            "selfplay.simulations",
        ),
        (
            vec![
                "--game".into(),
                "gomoku".into(),
                "--size".into(),
                "30".into(),
                "--run".into(),
                "/tmp/x".into(),
            ],
            "game.size",
        ),
        (
            vec!["--run".into(), "/tmp/alphazero-no-such-run-dir".into()],
            "game.name",
        ),
    ];
    for (args, needle) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_alphazero"))
            .arg("train")
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} should fail");
        assert!(
            err.contains("error:") && err.contains(needle),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let _ = std::fs::remove_file(&file);
    let _ = std::fs::remove_dir_all("/tmp/alphazero-no-such-run-dir");
}
