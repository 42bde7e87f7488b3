//! `alphazero train`: runs, resumes, survives SIGKILL at any moment without losing or
//! corrupting anything, and rejects bad input with one clear error line.
mod common;
use alphazero_train::config::TrainConfig;
use alphazero_train::metrics::read_metrics;
use alphazero_train::record::read_records_any;
use alphazero_train::state::{file_fingerprint, RunState};
use alphazero_train::storage::{LocalStorage, Storage};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// A tiny, fast configuration: 1×8 network, 6 games of 8 simulations per iteration (the
/// run's limits are left to the caller).
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
    "run.snapshot_every=2",
    "--quiet",
];

/// `train` of the tiny config until the whole run has `iterations` iterations.
fn train_cmd(run: &Path, iterations: u32) -> Command {
    let mut c = tiny_cmd(run);
    c.args(["--set", "run.time_budget_minutes=0", "--set"])
        .arg(format!("run.iterations={iterations}"));
    c
}

/// `train` of the tiny config with the run's limits left at the Connect Four defaults.
fn tiny_cmd(run: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_alphazero"));
    c.args(["train", "--game", "connect4", "--run"])
        .arg(run)
        .args(TINY)
        .stdin(Stdio::null());
    c
}

/// The `.azr` record keys of a run (not set-aside `*.orphan` / `*.corrupt` files).
fn record_keys(storage: &LocalStorage) -> Vec<String> {
    let mut keys = storage.list("records/").unwrap();
    keys.retain(|k| k.ends_with(".azr"));
    keys
}

/// A finished run's counters agree with its data: the state counts exactly the games in
/// the record files, metrics has one line per committed iteration, and the last line's
/// buffer fill equals the positions counted (the tiny runs never fill the buffer).
fn check_counts_consistent(run: &Path) -> RunState {
    let state = check_run_dir(run);
    let storage = LocalStorage::open(run).unwrap();
    let games: u64 = record_keys(&storage)
        .iter()
        .map(|k| {
            read_records_any(&storage.get(k).unwrap())
                .unwrap()
                .games
                .len() as u64
        })
        .sum();
    assert_eq!(games, state.total_games, "games on disk vs state");
    let metrics = read_metrics(&run.join("metrics.jsonl")).unwrap();
    let iterations: Vec<u32> = metrics.iter().map(|m| m.iteration).collect();
    assert_eq!(
        iterations,
        (0..state.iteration).collect::<Vec<_>>(),
        "metrics lines"
    );
    let last = metrics.last().expect("metrics");
    assert_eq!(last.total_games, state.total_games);
    assert_eq!(last.total_positions, state.total_positions);
    assert_eq!(last.buffer_fill, state.total_positions, "buffer fill");
    assert!(!run.join("state/trainer-pending.azc").exists());
    state
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
    let mut committed_games = 0u64;
    for key in &record_keys(&storage) {
        let file =
            read_records_any(&storage.get(key).unwrap()).unwrap_or_else(|e| panic!("{key}: {e}"));
        assert_eq!(file.header.game, "connect4");
        for i in 0..file.games.len() as u64 {
            ids.push(file.header.first_game_id + i);
        }
        let id: u64 = key[8..14].parse().unwrap();
        if id < state.next_record_id {
            committed_games += file.games.len() as u64;
        }
    }
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n, "a game id was written twice");
    // The committed record files hold exactly the games the state counts (files of an
    // interrupted iteration have higher ids), unless one was set aside as corrupt or missing.
    let corrupt = storage
        .list("records/")
        .unwrap()
        .iter()
        .any(|k| k.ends_with(".corrupt") || k.ends_with(".missing"));
    if !corrupt {
        assert_eq!(
            committed_games, state.total_games,
            "committed games on disk vs state"
        );
    }
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
    // The CPU time grows with every iteration and goes on across the resume (the second
    // invocation adds to what the first used), never above what one process can use in the
    // wall time.
    let ms = read_metrics(&run.join("metrics.jsonl")).unwrap();
    let cpu: Vec<f64> = ms.iter().map(|m| m.cpu_s).collect();
    assert!(
        cpu[0] > 0.0 && cpu.windows(2).all(|w| w[1] > w[0]),
        "{cpu:?}"
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    assert!(
        ms.iter().all(|m| m.cpu_s <= m.elapsed_s * cores + 1.0),
        "{cpu:?}"
    );
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
    let s = check_counts_consistent(&run);
    assert_eq!(s.iteration, 6);
    assert_eq!(s.total_games, 36);
    let _ = std::fs::remove_dir_all(&run);
}

/// Runs `cmd` to completion and returns its stderr, asserting success.
fn run_ok(mut cmd: Command) -> String {
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    err
}

#[test]
fn resume_after_kill_between_records_and_state_commit_keeps_counts_consistent() {
    let run = temp_run("orphan");
    run_ok(train_cmd(&run, 2));
    // What a kill after writing iteration 2's records, trainer checkpoint and metrics line,
    // but before committing its state, leaves behind.
    std::fs::copy(
        run.join("records/000001.azr"),
        run.join("records/000002.azr"),
    )
    .unwrap();
    std::fs::write(run.join("state/trainer-pending.azc"), b"half-trained").unwrap();
    let metrics = std::fs::read_to_string(run.join("metrics.jsonl")).unwrap();
    let last = metrics
        .lines()
        .last()
        .unwrap()
        .replace("\"iteration\":1,", "\"iteration\":2,");
    std::fs::write(run.join("metrics.jsonl"), format!("{metrics}{last}\n")).unwrap();

    let err = run_ok(train_cmd(&run, 3));
    assert!(
        err.contains("records/000002.azr") && err.contains("records/000002.azr.orphan"),
        "{err}"
    );
    assert!(run.join("records/000002.azr.orphan").exists());
    let s = check_counts_consistent(&run);
    assert_eq!((s.iteration, s.total_games, s.next_record_id), (3, 18, 3));
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn corrupt_record_file_is_quarantined_not_fatal() {
    let run = temp_run("corrupt");
    run_ok(train_cmd(&run, 2));
    let path = run.join("records/000000.azr");
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();

    let err = run_ok(train_cmd(&run, 3));
    assert!(
        err.contains("records/000000.azr") && err.contains("000000.azr.corrupt"),
        "{err}"
    );
    assert!(err.contains("lost 6 games (ids 0 to 5)"), "{err}");
    assert!(run.join("records/000000.azr.corrupt").exists());
    let s = check_run_dir(&run);
    assert_eq!((s.iteration, s.total_games), (3, 18));
    // A second resume does not trip over the set-aside file.
    let err = run_ok(train_cmd(&run, 4));
    assert!(!err.contains("warning"), "{err}");
    assert_eq!(check_run_dir(&run).iteration, 4);
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn iterations_flag_limits_one_invocation_and_is_not_saved() {
    let run = temp_run("per-invocation");
    for expected in [1, 2] {
        let mut c = tiny_cmd(&run);
        c.args(["--iterations", "1"]);
        let err = run_ok(c);
        assert!(err.contains("--iterations"), "{err}");
        assert_eq!(check_counts_consistent(&run).iteration, expected);
    }
    let saved =
        TrainConfig::from_toml_str(&std::fs::read_to_string(run.join("config.toml")).unwrap())
            .unwrap();
    let defaults = TrainConfig::default_for("connect4").unwrap();
    assert_eq!(saved.run.iterations, defaults.run.iterations);
    assert_eq!(
        saved.run.time_budget_minutes,
        defaults.run.time_budget_minutes
    );
    // A run at its whole-run limit says how to go on.
    let err = run_ok(train_cmd(&run, 2));
    assert!(err.contains("--set run.iterations=N"), "{err}");
    let _ = std::fs::remove_dir_all(&run);
}

/// Sets the saved clocks of a run (seconds of wall-clock and CPU time spent so far).
fn set_clocks(run: &Path, elapsed_s: f64, cpu_s: f64) {
    let storage = LocalStorage::open(run).unwrap();
    let mut state = RunState::load(&storage).unwrap().expect("state");
    (state.elapsed_s, state.cpu_s) = (elapsed_s, cpu_s);
    state.save(&storage).unwrap();
}

#[test]
fn cpu_budget_clock_counts_cpu_seconds_and_ignores_the_wall_clock() {
    let run = temp_run("cpu-budget");
    let one_iteration = |run: &Path| {
        let mut c = tiny_cmd(run);
        c.args([
            "--set",
            "run.iterations=0",
            "--set",
            "run.time_budget_minutes=100",
            "--set",
            "run.budget_clock=cpu",
            "--iterations",
            "1",
        ]);
        run_ok(c)
    };
    one_iteration(&run);
    assert_eq!(check_counts_consistent(&run).iteration, 1);
    // Far past the budget on the wall clock (a run that waited on a busy machine), little
    // CPU spent: a CPU budget goes on.
    set_clocks(&run, 1.0e6, 1.0);
    let err = one_iteration(&run);
    assert!(!err.contains("the run is complete"), "{err}");
    let state = check_counts_consistent(&run);
    assert_eq!(state.iteration, 2);
    assert!(state.cpu_s > 1.0 && state.elapsed_s > 1.0e6, "{state:?}");
    // The CPU budget spent: the run is complete, and says on which clock.
    set_clocks(&run, 1.0, 100.0 * 60.0);
    let err = one_iteration(&run);
    assert!(
        err.contains("reached run.time_budget_minutes = 100 of CPU time"),
        "{err}"
    );
    assert_eq!(check_counts_consistent(&run).iteration, 2);
    // The wall clock (the default) would have stopped the run at the first resume.
    let wall = temp_run("wall-budget");
    one_iteration(&wall);
    set_clocks(&wall, 1.0e6, 1.0);
    let mut c = tiny_cmd(&wall);
    c.args(["--set", "run.budget_clock=wall", "--iterations", "1"]);
    let err = run_ok(c);
    assert!(
        err.contains("reached run.time_budget_minutes = 100;"),
        "{err}"
    );
    assert_eq!(check_counts_consistent(&wall).iteration, 1);
    let _ = std::fs::remove_dir_all(&run);
    let _ = std::fs::remove_dir_all(&wall);
}

#[test]
fn the_command_that_made_a_run_with_its_config_file_resumes_it() {
    let run = temp_run("resume-with-config");
    let file = run.with_extension("toml");
    std::fs::write(
        &file,
        "[game]\nname = \"connect4\"\n[selfplay]\nsimulations = 8\n",
    )
    .unwrap();
    let cmd = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_alphazero"));
        c.args(["train", "--iterations", "1", "--run"])
            .arg(&run)
            .arg("--config")
            .arg(&file)
            .args(TINY)
            .stdin(Stdio::null());
        c
    };
    for expected in [1, 2] {
        run_ok(cmd());
        assert_eq!(check_counts_consistent(&run).iteration, expected);
    }
    // A file that now gives other settings is refused, naming the key, and the run stays.
    std::fs::write(&file, "[game]\nname = \"connect4\"\n[train]\nlr = 0.5\n").unwrap();
    let err = run_fails(cmd());
    assert!(
        err.contains("differs from the settings of the existing run") && err.contains("train.lr"),
        "{err}"
    );
    assert_eq!(check_counts_consistent(&run).iteration, 2);
    let _ = std::fs::remove_dir_all(&run);
    let _ = std::fs::remove_file(&file);
}

#[test]
fn second_trainer_on_the_same_run_directory_fails_at_once_naming_the_pid() {
    let run = temp_run("lock");
    let mut first = train_cmd(&run, 1000).stderr(Stdio::null()).spawn().unwrap();
    let pid = first.id();
    // Wait until the first trainer holds the lock (its pid is in the lock file).
    let mut held = false;
    for _ in 0..600 {
        if std::fs::read_to_string(run.join("lock")).is_ok_and(|t| t.trim() == pid.to_string()) {
            held = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(held, "the first trainer never took the lock");
    let out = train_cmd(&run, 1000).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let still_running = first.try_wait().unwrap().is_none();
    let _ = first.kill(); // SIGKILL: the OS releases the lock.
    let _ = first.wait();
    assert!(still_running, "the first trainer ended early");
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("in use")
            && err.contains(&format!("pid {pid}"))
            && err.contains(&run.display().to_string()),
        "{err}"
    );
    assert!(
        !err.contains("resuming") && !err.contains("starting"),
        "{err}"
    );
    // The killed trainer's lock is gone.
    drop(LocalStorage::open_exclusive(&run).expect("lock free after SIGKILL"));
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn game_size_and_rule_flags_must_agree_with_the_config() {
    let dir = temp_run("config-consistency");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("xiangqi.toml");
    std::fs::write(&file, "[game]\nname = \"xiangqi\"\n").unwrap();
    let run = dir.join("run");
    let run_s = run.display().to_string();
    let file_s = file.display().to_string();
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            vec!["--game", "connect4", "--config", &file_s],
            vec!["--game connect4", "xiangqi", "disagree"],
        ),
        (
            vec!["--game", "gomoku", "--set", "game.name=xiangqi"],
            vec!["--game gomoku", "game.name=xiangqi", "disagree"],
        ),
        (
            vec!["--game", "connect4", "--size", "9", "--rule", "renju"],
            vec!["gomoku only", "connect4"],
        ),
        (
            vec!["--game", "connect4", "--set", "selfplay.simulations=-5"],
            vec!["selfplay.simulations must be >= 1 (got -5)"],
        ),
        (
            vec!["--game", "connect4", "--set", "model.channels=100000"],
            vec!["model.channels must be in 1..="],
        ),
        (
            vec!["--game", "connect4", "--iterations", "0"],
            vec!["--iterations must be >= 1"],
        ),
        (vec!["--game", "connect4", "--device", "tpu"], vec!["tpu"]),
        (
            vec!["--game", "gomoku", "--size", "9", "--set", "game.size=11"],
            vec!["--size 9", "game.size=11", "disagree"],
        ),
        (
            vec![
                "--game",
                "gomoku",
                "--rule",
                "renju",
                "--set",
                "game.rule=standard",
            ],
            vec!["--rule renju", "game.rule=standard", "disagree"],
        ),
        (
            vec!["--game", "gomoku", "--set", "game.rule=gomoku-ish"],
            vec!["gomoku-ish"],
        ),
    ];
    for (args, needles) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_alphazero"))
            .args(["train", "--run", &run_s, "--dry-run"])
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} should fail");
        for n in needles {
            assert!(err.contains(n), "{args:?}: {n:?} not in {err}");
        }
        assert_eq!(err.lines().filter(|l| l.starts_with("error:")).count(), 1);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    assert!(!run.exists(), "a refused command wrote the run directory");
    // game.size as an integer, from --set or a file.
    std::fs::write(&file, "[game]\nname = \"gomoku\"\nsize = 9\n").unwrap();
    for args in [
        vec!["--game", "gomoku", "--set", "game.size=9"],
        vec!["--config", &file_s],
        vec!["--game", "gomoku", "--config", &file_s],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_alphazero"))
            .args(["train", "--run", &run_s, "--dry-run"])
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let cfg = TrainConfig::from_toml_str(&String::from_utf8_lossy(&out.stdout)).unwrap();
        assert_eq!((cfg.game.name(), cfg.game.options().0), ("gomoku", Some(9)));
    }
    // --size / --rule against the config file's [game].
    for (flags, needle) in [
        (vec!["--size", "11"], "--size 11 and game.size = 9"),
        (
            vec!["--rule", "renju"],
            "--rule renju and game.rule = \"standard\"",
        ),
    ] {
        std::fs::write(
            &file,
            "[game]\nname = \"gomoku\"\nsize = 9\nrule = \"standard\"\n",
        )
        .unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_alphazero"))
            .args(["train", "--run", &run_s, "--dry-run", "--config", &file_s])
            .args(&flags)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{flags:?} should fail");
        assert!(err.contains(needle), "{flags:?}: {err}");
    }
    // The rule is stored by its canonical name, however it was written.
    for rule in ["Renju", "RENJU", "renju"] {
        let set = format!("game.rule={rule}");
        let out = Command::new(env!("CARGO_BIN_EXE_alphazero"))
            .args(["train", "--run", &run_s, "--dry-run", "--game", "gomoku"])
            .args(["--set", &set])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{rule}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let cfg = TrainConfig::from_toml_str(&String::from_utf8_lossy(&out.stdout)).unwrap();
        assert_eq!(cfg.game.options().1, Some("renju"), "{rule}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn train_bad_input_is_one_clear_error_line() {
    let file =
        std::env::temp_dir().join(format!("alphazero-cli-train-{}-file", std::process::id()));
    std::fs::write(&file, b"not a directory").unwrap();
    let under_file = file.join("run");
    // A run folder nobody has: a fixed path such as /tmp/x may hold another game's run.
    let fresh = tempfile::tempdir().unwrap();
    let absent = fresh.path().join("run").display().to_string();
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
                file.display().to_string(),
            ],
            "not a directory",
        ),
        (
            vec![
                "--game".into(),
                "connect4".into(),
                "--run".into(),
                absent.clone(),
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
                absent.clone(),
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
                absent.clone(),
            ],
            "game.size",
        ),
        (
            vec!["--run".into(), "/tmp/alphazero-no-such-run-dir".into()],
            "game.name",
        ),
        // A value of a disabled feature (Connect Four has no SPRT).
        (
            vec![
                "--game".into(),
                "connect4".into(),
                "--run".into(),
                absent.clone(),
                "--set".into(),
                "gating.sprt.alpha=-3".into(),
            ],
            "gating.sprt.alpha must be in (0, 0.5) (got -3)",
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

#[test]
fn new_run_without_game_says_game_is_required() {
    let run = temp_run("no-game");
    let out = Command::new(env!("CARGO_BIN_EXE_alphazero"))
        .args(["train", "--run", run.to_str().unwrap(), "--iterations", "1"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert_eq!(
        err.lines().filter(|l| l.starts_with("error:")).count(),
        1,
        "{err}"
    );
    assert!(err.contains("--game is required for a new run"), "{err}");
    assert!(!err.contains("missing config key"), "{err}");
    let _ = std::fs::remove_dir_all(&run);
}

/// A shipped network of `models/`.
fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("models")
        .join(name)
}

/// The outputs (policy logits, then the value) of a Connect Four network file on a fixed input.
fn network_outputs(path: &Path) -> Vec<f32> {
    let device = alphazero_nn::default_device();
    let ck = alphazero_nn::load_checkpoint(path, "connect4", &device)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let m = &ck.header.model;
    let n = m.input_planes * m.board_height * m.board_width;
    let planes: Vec<f32> = (0..n).map(|i| (i % 3 == 0) as u8 as f32).collect();
    let (mut logits, values) = ck.model.predict(m, &planes, &device).unwrap();
    logits.extend(values);
    logits
}

#[test]
fn init_starts_a_run_from_a_checkpoint_records_it_and_never_replaces_a_runs_networks() {
    // A network to start from: the champion after one iteration of another tiny run.
    let donor = temp_run("init-donor");
    run_ok(train_cmd(&donor, 1));
    let file = donor.join("networks/champion-0001.azc");
    let run = temp_run("init");
    let mut cmd = train_cmd(&run, 1);
    cmd.arg("--init").arg(&file);
    let err = run_ok(cmd);
    assert!(err.contains("networks initialised from"), "{err}");
    let s = check_counts_consistent(&run);
    assert_eq!(s.iteration, 1);
    let init = s.init.clone().expect("the run state records --init");
    let bytes = std::fs::read(&file).unwrap();
    assert_eq!(init.fingerprint, file_fingerprint(&bytes));
    assert!(init.path.ends_with("champion-0001.azc"), "{}", init.path);
    assert_eq!(init.trained_for, "connect4");
    // The run's first champion is the file's network, not a fresh random one.
    let champion0 = network_outputs(&run.join("networks/champion-0000.azc"));
    assert_eq!(champion0, network_outputs(&file));
    assert_ne!(
        champion0,
        network_outputs(&donor.join("networks/champion-0000.azc"))
    );
    // The same network (a copy elsewhere) resumes the run.
    let copy = temp_run("init-copy.azc");
    std::fs::copy(&file, &copy).unwrap();
    let mut cmd = train_cmd(&run, 2);
    cmd.arg("--init").arg(&copy);
    let err = run_ok(cmd);
    assert!(err.contains("resuming"), "{err}");
    let s = check_counts_consistent(&run);
    assert_eq!((s.iteration, s.init.as_ref()), (2, Some(&init)));
    // Another network is refused, and nothing changes.
    let champions = std::fs::read(run.join("networks/champion-0000.azc")).unwrap();
    for (dir, other, needle) in [
        (
            &run,
            donor.join("networks/champion-0000.azc"),
            "never replaced",
        ),
        (&donor, file.clone(), "already has networks"),
    ] {
        let mut cmd = train_cmd(dir, 3);
        cmd.arg("--init").arg(&other);
        let out = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{err}");
        assert!(err.contains(needle) && err.contains("drop --init"), "{err}");
        assert_eq!(
            check_run_dir(dir).iteration,
            if *dir == run { 2 } else { 1 }
        );
    }
    assert_eq!(
        std::fs::read(run.join("networks/champion-0000.azc")).unwrap(),
        champions
    );
    for d in [&donor, &run, &copy] {
        let _ = std::fs::remove_dir_all(d);
        let _ = std::fs::remove_file(d);
    }
}

/// The named tensors of a Gomoku network file without its training-only heads.
fn gomoku_tensors(path: &Path) -> Vec<(String, Vec<f32>)> {
    let device = alphazero_nn::default_device();
    let ck = alphazero_nn::load_checkpoint(path, "gomoku", &device)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    alphazero_nn::export::network_tensors(&ck.model.without_aux_heads())
        .unwrap()
        .into_iter()
        .map(|t| (t.name, t.values))
        .collect()
}

/// Renju encodes a fifth plane (black's forbidden points): `--init` starts a renju run from a
/// freestyle network with that plane's stem weights at 0 and every other weight the file's,
/// and a run whose networks were written without the plane (by an older build) goes on with
/// it, saying that its optimizer starts afresh.
#[test]
fn a_renju_run_starts_from_a_freestyle_network_and_an_older_renju_run_goes_on_with_the_plane() {
    let gomoku = |run: &Path, rule: &str| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_alphazero"));
        cmd.args([
            "train", "--game", "gomoku", "--size", "9", "--rule", rule, "--run",
        ])
        .arg(run)
        .args(TINY)
        .args(["--set", "run.iterations=1", "--set", "gating.enabled=false"]);
        cmd
    };
    let donor = temp_run("renju-donor");
    run_ok(gomoku(&donor, "freestyle"));
    let file = donor.join("networks/champion-0001.azc");
    let run = temp_run("renju-init");
    let mut cmd = gomoku(&run, "renju");
    cmd.arg("--init").arg(&file);
    let err = run_ok(cmd);
    assert!(
        err.contains("a network of 4 input planes, started on this run's 5"),
        "{err}"
    );
    let theirs = gomoku_tensors(&file);
    let ours = gomoku_tensors(&run.join("networks/champion-0000.azc"));
    assert_eq!(ours.len(), theirs.len());
    for ((name, a), (other, b)) in ours.iter().zip(&theirs) {
        assert_eq!(name, other);
        if name != "stem.weight" {
            assert_eq!(a, b, "{name}");
            continue;
        }
        // [out, in, 3, 3]: each output channel's 4 × 9 weights, then 9 zeros.
        assert_eq!(a.len() * 4, b.len() * 5, "{name}");
        for (mine, file) in a.chunks(5 * 9).zip(b.chunks(4 * 9)) {
            assert_eq!(&mine[..4 * 9], file);
            assert!(mine[4 * 9..].iter().all(|&w| w == 0.0), "{mine:?}");
        }
    }
    // --init-grow (a second block) and --init-trunk (fresh heads) take it the same way.
    for (flag, set) in [
        ("--init-grow", "model.blocks=2"),
        ("--init-trunk", "model.blocks=1"),
    ] {
        let other = temp_run(&format!("renju{flag}"));
        let mut cmd = gomoku(&other, "renju");
        cmd.arg(flag).arg(&file).args(["--set", set]);
        run_ok(cmd);
        let tensors = gomoku_tensors(&other.join("networks/champion-0000.azc"));
        let stem = &tensors.iter().find(|(n, _)| n == "stem.weight").unwrap().1;
        let theirs = &theirs.iter().find(|(n, _)| n == "stem.weight").unwrap().1;
        for (mine, file) in stem.chunks(5 * 9).zip(theirs.chunks(4 * 9)) {
            assert_eq!(&mine[..4 * 9], file, "{flag}");
            assert!(mine[4 * 9..].iter().all(|&w| w == 0.0), "{flag}: {mine:?}");
        }
        let _ = std::fs::remove_dir_all(&other);
    }
    // The freestyle run as an older build's renju run: its networks have four planes. It goes
    // on with the fifth at zero weight and a fresh optimizer, its champion playing renju.
    let config = donor.join("config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        text.replace("rule = \"freestyle\"", "rule = \"renju\""),
    )
    .unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_alphazero"));
    cmd.args(["train", "--run"])
        .arg(&donor)
        .args(["--set", "run.iterations=2", "--quiet"]);
    let err = run_ok(cmd);
    assert!(
        err.contains("takes 4 input planes, this build's gomoku 9x9 renju encoder 5")
            && err.contains("fresh optimizer state"),
        "{err}"
    );
    let storage = LocalStorage::open(&donor).unwrap();
    let state = RunState::load(&storage).unwrap().unwrap();
    assert_eq!(state.iteration, 2);
    let latest = gomoku_tensors(&donor.join("networks/latest.azc"));
    let stem = latest.iter().find(|(n, _)| n == "stem.weight").unwrap();
    assert_eq!(stem.1.len() % (5 * 9), 0, "five planes now");
    for d in [&donor, &run] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// A network with a conv policy head and a pooled value head has no weight tied to the
/// board: `--init` starts a 13×13 run from a 9×9 network with the same weights, where a
/// network with a board-sized head is refused; `--init-trunk` takes that network's trunk
/// alone under fresh heads.
#[test]
fn init_starts_a_run_on_another_board_from_a_size_independent_network_or_a_trunk() {
    // The tiny config on a Gomoku board of `size` with the `model.*` and `run.*` settings
    // `sets` (each `KEY=VALUE`).
    let gomoku = |run: &Path, size: &str, sets: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_alphazero"));
        cmd.args(["train", "--game", "gomoku", "--size", size, "--run"])
            .arg(run)
            .args(TINY);
        for set in sets {
            cmd.args(["--set", set]);
        }
        cmd
    };
    const SIZE_INDEPENDENT: [&str; 3] = [
        "model.policy_head=conv",
        "model.value_head=pooled",
        "run.iterations=1",
    ];
    let donor = temp_run("init-size-donor");
    run_ok(gomoku(
        &donor,
        "9",
        &[
            "model.policy_head=conv",
            "model.value_head=pooled",
            "run.iterations=2",
            "gating.enabled=false",
        ],
    ));
    let file = donor.join("networks/champion-0002.azc");
    let run = temp_run("init-size");
    let mut cmd = gomoku(&run, "13", &SIZE_INDEPENDENT);
    cmd.arg("--init").arg(&file);
    let err = run_ok(cmd);
    assert!(
        err.contains("size-independent network trained on 9x9, started on 13x13"),
        "{err}"
    );
    let champion0 = run.join("networks/champion-0000.azc");
    assert_eq!(gomoku_tensors(&champion0), gomoku_tensors(&file));
    // A dense value head ties the network to its board.
    let dense = temp_run("init-size-dense");
    run_ok(gomoku(
        &dense,
        "9",
        &["model.policy_head=conv", "run.iterations=1"],
    ));
    let refused = temp_run("init-size-refused");
    let mut cmd = gomoku(&refused, "13", &[]);
    cmd.arg("--init")
        .arg(dense.join("networks/champion-0000.azc"));
    let err = run_fails(cmd);
    assert!(
        err.contains("does not fit") && err.contains("--size 9"),
        "{err}"
    );
    // Its trunk starts a run with other heads on another board: the stem and the blocks are
    // the file's, the heads fresh.
    let trunk_file = dense.join("networks/champion-0000.azc");
    let trunk_run = temp_run("init-trunk");
    let with_heads = |run: &Path| gomoku(run, "13", &SIZE_INDEPENDENT);
    let mut cmd = with_heads(&trunk_run);
    cmd.arg("--init-trunk").arg(&trunk_file);
    let err = run_ok(cmd);
    assert!(
        err.contains("networks initialised from the trunk of"),
        "{err}"
    );
    let trunk = |path: &Path| -> Vec<(String, Vec<f32>)> {
        gomoku_tensors(path)
            .into_iter()
            .filter(|(n, _)| n.starts_with("stem") || n.starts_with("blocks"))
            .collect()
    };
    let started = trunk_run.join("networks/champion-0000.azc");
    assert!(!trunk(&started).is_empty());
    assert_eq!(trunk(&started), trunk(&trunk_file));
    assert_ne!(gomoku_tensors(&started), gomoku_tensors(&trunk_file));
    let state = RunState::load(&LocalStorage::open(&trunk_run).unwrap())
        .unwrap()
        .unwrap();
    assert!(state.init.as_ref().is_some_and(|i| i.trunk_only));
    // Another trunk size is refused naming the settings that take the file's; --init and
    // --init-trunk together are refused.
    let wide = temp_run("init-trunk-wide");
    let mut cmd = with_heads(&wide);
    cmd.args(["--set", "model.channels=16", "--init-trunk"])
        .arg(&trunk_file);
    let err = run_fails(cmd);
    assert!(
        err.contains("the network's trunk is 1x8, the run's 1x16")
            && err.contains("model.channels=8"),
        "{err}"
    );
    let mut cmd = with_heads(&wide);
    cmd.arg("--init-trunk")
        .arg(&trunk_file)
        .arg("--init")
        .arg(&trunk_file);
    let err = run_fails(cmd);
    assert!(err.contains("cannot be used with"), "{err}");
    for d in [&donor, &run, &dense, &refused, &trunk_run, &wide] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// The numbers of `alphazero analyze`'s report on the empty 9×9 Gomoku board with network
/// `model` at 2 simulations (root value, Q and prior of the top moves), from its "to move"
/// line on.
fn analysis_figures(model: &Path) -> Vec<f64> {
    let out = Command::new(env!("CARGO_BIN_EXE_alphazero"))
        .args([
            "analyze", "--game", "gomoku", "--size", "9", "--sims", "2", "--top", "5",
        ])
        .arg("--model")
        .arg(model)
        .arg("--out")
        .arg(model.with_extension("png"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let report = &text[text.find("to move").expect("a report")..];
    report
        .split(|c: char| c.is_whitespace() || c == '%' || c == ',')
        .filter_map(|w| w.parse::<f64>().ok())
        .collect()
}

/// `--init-grow` starts a run with a larger trunk from a smaller network: the new run's first
/// champion has the run's size and still plays as the file did (same priors, values and Q);
/// a file that cannot grow into the run's model is refused with the reason.
#[test]
fn init_grow_starts_a_larger_network_that_plays_as_the_file_did() {
    let gomoku = |run: &Path, sets: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_alphazero"));
        cmd.args(["train", "--game", "gomoku", "--size", "9", "--run"])
            .arg(run)
            .args(TINY);
        for set in sets {
            cmd.args(["--set", set]);
        }
        cmd
    };
    let donor = temp_run("init-grow-donor");
    run_ok(gomoku(
        &donor,
        &["run.iterations=1", "gating.enabled=false"],
    ));
    let file = donor.join("networks/champion-0001.azc");
    let grown = temp_run("init-grow");
    let mut cmd = gomoku(
        &grown,
        &["model.blocks=2", "model.channels=16", "run.iterations=1"],
    );
    cmd.arg("--init-grow").arg(&file);
    let err = run_ok(cmd);
    assert!(
        err.contains("networks initialised from a growth of"),
        "{err}"
    );
    let champion0 = grown.join("networks/champion-0000.azc");
    let stem = |path: &Path| {
        gomoku_tensors(path)
            .into_iter()
            .find(|(n, _)| n.starts_with("stem"))
            .map(|(_, v)| v.len())
    };
    assert_eq!(
        stem(&champion0),
        stem(&file).map(|n| n * 2),
        "16 channels, not 8"
    );
    let (before, after) = (analysis_figures(&file), analysis_figures(&champion0));
    assert!(before.len() > 10, "{before:?}");
    assert_eq!(before.len(), after.len(), "{before:?} / {after:?}");
    for (a, b) in before.iter().zip(&after) {
        assert!((a - b).abs() <= 0.0015, "{before:?} / {after:?}");
    }
    let state = RunState::load(&LocalStorage::open(&grown).unwrap())
        .unwrap()
        .unwrap();
    assert!(state
        .init
        .as_ref()
        .is_some_and(|i| i.grown && !i.trunk_only));
    // --init with a larger model points at --init-grow; a smaller model is refused.
    let other = temp_run("init-grow-refused");
    let mut cmd = gomoku(&other, &["model.channels=16"]);
    cmd.arg("--init").arg(&file);
    let err = run_fails(cmd);
    assert!(err.contains("--init-grow"), "{err}");
    let mut cmd = gomoku(&other, &["model.channels=4", "model.value_hidden=4"]);
    cmd.arg("--init-grow").arg(&file);
    let err = run_fails(cmd);
    assert!(
        err.contains("cannot grow into the run's model") && err.contains("channels would shrink"),
        "{err}"
    );
    for d in [&donor, &grown, &other] {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn init_refuses_a_network_of_another_game_board_or_size_naming_both() {
    let run = temp_run("init-refused");
    let refused = |args: &[&str], needles: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_alphazero"))
            .args(["train", "--run", run.to_str().unwrap()])
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}: {err}");
        assert_eq!(
            err.lines().filter(|l| l.starts_with("error:")).count(),
            1,
            "{err}"
        );
        for n in needles {
            assert!(err.contains(n), "{args:?}: no {n:?} in {err}");
        }
        assert!(!run.exists(), "{args:?} wrote the run directory");
    };
    let gomoku8 = shipped("gomoku-8x8-freestyle.azc");
    let connect4 = shipped("connect4.azc");
    let g8 = gomoku8.to_str().unwrap();
    refused(
        &["--game", "connect4", "--init", g8],
        &["gomoku", "connect4"],
    );
    refused(
        &["--game", "gomoku", "--init", g8],
        &["gomoku 8x8 freestyle", "gomoku 15x15 freestyle", "--size 8"],
    );
    // The tiny run's model is 1x8; the file's 4x32.
    let mut args = vec!["--game", "connect4", "--init", connect4.to_str().unwrap()];
    args.extend(TINY);
    refused(&args, &["4x32", "1x8", "model.channels=32"]);
    // Global pooling is part of the size: the shipped 4x32 has none.
    refused(
        &[
            "--game",
            "connect4",
            "--init",
            connect4.to_str().unwrap(),
            "--set",
            "model.global_pooling=true",
        ],
        &[
            "the network is 4x32 (value head 32), the run's model is 4x32 (value head 32, \
             global pooling of 8 channels in block 3)",
            "model.global_pooling=false",
        ],
    );
    // So is the policy head's width.
    refused(
        &[
            "--game",
            "connect4",
            "--init",
            connect4.to_str().unwrap(),
            "--set",
            "model.policy_channels=4",
        ],
        &[
            "the network is 4x32 (value head 32), the run's model is 4x32 (value head 32, \
             policy head of 4 channels)",
            "model.policy_channels=2",
        ],
    );
    // Without model.* settings a new run takes the file's size.
    let out = Command::new(env!("CARGO_BIN_EXE_alphazero"))
        .args(["train", "--game", "gomoku", "--size", "8", "--run"])
        .arg(&run)
        .args(["--init", g8, "--dry-run"])
        .output()
        .unwrap();
    let (stdout, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("model 4x32 (value head 32) taken from --init"),
        "{err}"
    );
    let cfg = TrainConfig::from_toml_str(&stdout).unwrap();
    assert_eq!(
        (cfg.model.blocks, cfg.model.channels, cfg.model.value_hidden),
        (4, 32, 32)
    );
    assert!(!run.exists());
}

#[test]
fn garbage_line_in_the_middle_of_metrics_is_set_aside_and_the_run_resumes() {
    // Regression: one garbage line made the run unresumable.
    let run = temp_run("garbage-metrics");
    run_ok(train_cmd(&run, 2));
    let path = run.join("metrics.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(
        &path,
        format!("{}\n#garbage{{ not json\n{}\n", lines[0], lines[1]),
    )
    .unwrap();
    let err = run_ok(train_cmd(&run, 3));
    assert!(
        err.contains("metrics.jsonl line 2 is no metrics record")
            && err.contains("metrics.jsonl.bad"),
        "{err}"
    );
    let s = check_counts_consistent(&run);
    assert_eq!(s.iteration, 3);
    let bad = std::fs::read_to_string(run.join("metrics.jsonl.bad")).unwrap();
    assert!(bad.contains("#garbage{ not json"), "{bad}");
    // The CSV beside it has a header and one row per iteration.
    let csv = std::fs::read_to_string(run.join("metrics.csv")).unwrap();
    assert_eq!(csv.lines().count(), 4, "{csv}");
    assert!(csv.starts_with("iteration,"), "{csv}");
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn champion_and_snapshot_files_of_an_uncommitted_iteration_are_set_aside_on_resume() {
    // Regression: they stayed in networks/ and arena --snapshots rated them.
    let run = temp_run("orphan-networks");
    run_ok(train_cmd(&run, 2));
    let s = check_run_dir(&run);
    let nets = run.join("networks");
    let champion = nets.join(format!("champion-{:04}.azc", s.champion_id));
    // What iteration 2 would have written before a crash, without committing.
    let orphans = [
        format!("champion-{:04}.azc", s.champion_id + 1),
        "snapshot-00004.azc".to_string(),
    ];
    for name in &orphans {
        std::fs::copy(&champion, nets.join(name)).unwrap();
    }
    let kept_snapshot = nets.join("snapshot-00002.azc");
    assert!(kept_snapshot.exists());
    let err = run_ok(train_cmd(&run, 2));
    for name in &orphans {
        assert!(!nets.join(name).exists(), "{name} still in networks/");
        assert!(nets.join(format!("{name}.orphan")).exists(), "{name}");
        assert!(
            err.contains(&format!("networks/{name} was written by iteration 2")),
            "{err}"
        );
    }
    assert!(
        kept_snapshot.exists() && champion.exists(),
        "committed networks kept"
    );
    // The run goes on and writes its own champion of that id.
    run_ok(train_cmd(&run, 3));
    assert!(nets.join(&orphans[0]).exists());
    check_counts_consistent(&run);
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn train_on_an_existing_non_run_directory_refuses_unless_forced_or_empty() {
    // Regression: a run was started in any existing directory.
    let dir = temp_run("not-a-run");
    std::fs::create_dir_all(dir.join("photos")).unwrap();
    std::fs::write(dir.join("notes.txt"), b"mine").unwrap();
    let out = train_cmd(&dir, 1).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("holds no training run")
            && err.contains("2 other entries (notes.txt, photos)")
            && err.contains("--force"),
        "{err}"
    );
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["notes.txt", "photos"], "nothing written");
    let mut forced = train_cmd(&dir, 1);
    forced.arg("--force");
    run_ok(forced);
    assert_eq!(check_run_dir(&dir).iteration, 1);
    assert_eq!(std::fs::read(dir.join("notes.txt")).unwrap(), b"mine");
    // An existing empty directory is fine, and so is resuming a run.
    let empty = temp_run("empty-dir");
    std::fs::create_dir_all(&empty).unwrap();
    run_ok(train_cmd(&empty, 1));
    run_ok(train_cmd(&empty, 2));
    assert_eq!(check_run_dir(&empty).iteration, 2);
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&empty);
}

/// Starts `cmd` with stderr piped, waits until a stderr line contains `needle`, and returns
/// the child with the stderr read so far and the reader of the rest.
fn spawn_until(
    mut cmd: Command,
    needle: &str,
) -> (std::process::Child, String, std::thread::JoinHandle<String>) {
    use std::io::BufRead;
    let mut child = cmd.stderr(Stdio::piped()).spawn().unwrap();
    let mut reader = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap() == 0 {
            panic!("the run ended before {needle:?}: {seen}");
        }
        seen.push_str(&line);
        if line.contains(needle) {
            break;
        }
    }
    let rest = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut reader, &mut s);
        s
    });
    (child, seen, rest)
}

fn sigint(child: &std::process::Child) {
    let ok = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

#[test]
fn first_ctrl_c_finishes_the_iteration_and_the_second_stops_at_once() {
    // Regression: Ctrl-C lost the iteration in progress.
    let run = temp_run("ctrl-c");
    // First Ctrl-C: right after iteration 0's line (during iteration 1, or just before it).
    let (mut child, seen, rest) = spawn_until(train_cmd(&run, 1000), "iter 0:");
    sigint(&child);
    let status = child.wait().unwrap();
    // The signal may land before iteration 1 starts, so the saved iteration's line can be
    // among the lines read before it.
    let err = seen + &rest.join().unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(
        err.contains("Ctrl-C or SIGTERM: finishing the iteration under way"),
        "{err}"
    );
    let s = check_counts_consistent(&run);
    // The iteration under way when the signal came was finished and saved, and the last
    // line names it as its iteration line did.
    assert!((1..1000).contains(&s.iteration), "{}", s.iteration);
    assert!(err.contains(&format!("iter {}:", s.iteration - 1)), "{err}");
    assert!(
        err.contains(&format!(
            "stopped by Ctrl-C or SIGTERM after iter {} ({} iteration",
            s.iteration - 1,
            s.iteration
        )),
        "{err}"
    );
    // Second Ctrl-C: stops at once, mid-iteration, with a large iteration under way.
    let mut slow = train_cmd(&run, 1000);
    slow.args([
        "--set",
        "selfplay.games_per_iteration=400",
        "--set",
        "selfplay.parallel_games=64",
    ]);
    let (mut child, _, rest) = spawn_until(slow, "replay buffer");
    sigint(&child);
    std::thread::sleep(Duration::from_millis(300));
    sigint(&child);
    let status = child.wait().unwrap();
    let err = rest.join().unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(err.contains("Ctrl-C again: stopping now"), "{err}");
    assert!(
        !err.contains("stopped by Ctrl-C or SIGTERM after iter"),
        "{err}"
    );
    let after = check_run_dir(&run);
    assert_eq!(
        after.iteration, s.iteration,
        "the iteration under way was dropped"
    );
    // The run resumes from there.
    run_ok(train_cmd(&run, s.iteration + 1));
    assert_eq!(check_counts_consistent(&run).iteration, s.iteration + 1);
    let _ = std::fs::remove_dir_all(&run);
}

/// The run directory's files (relative paths) with fingerprints of their bytes, but the
/// lock file.
fn dir_contents(run: &Path) -> Vec<(String, String)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else if p.file_name().is_some_and(|n| n != "lock") {
                let rel = p.strip_prefix(root).unwrap().display().to_string();
                out.push((rel, file_fingerprint(&std::fs::read(&p).unwrap())));
            }
        }
    }
    let mut out = Vec::new();
    walk(run, run, &mut out);
    out.sort();
    out
}

/// Runs `cmd`, asserts that it fails, and returns its stderr.
fn run_fails(mut cmd: Command) -> String {
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{err}");
    err
}

#[test]
fn run_that_lost_its_state_is_refused_not_started_over() {
    let run = temp_run("lost-state");
    run_ok(train_cmd(&run, 2));
    let state = std::fs::read(run.join("state/run.json")).unwrap();
    let champion = check_run_dir(&run).champion_id;
    // The state deleted, and the whole state/ folder lost with a disk.
    for lose in ["state/run.json", "state"] {
        let lost = run.join(lose);
        if lost.is_dir() {
            std::fs::remove_dir_all(&lost).unwrap();
        } else {
            std::fs::remove_file(&lost).unwrap();
        }
        let before = dir_contents(&run);
        assert!(before.iter().any(|(k, _)| k == "metrics.jsonl"));
        let err = run_fails(train_cmd(&run, 3));
        assert!(
            err.contains("state/run.json is missing") && err.contains("history"),
            "{lose}: {err}"
        );
        assert!(
            err.contains(&format!("--init RUN/networks/champion-{champion:04}.azc")),
            "{lose}: {err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "one error line: {err}");
        // Nothing written, moved or cut: records, networks and metrics stay as they were.
        assert_eq!(dir_contents(&run), before, "{lose}: the run changed");
        std::fs::create_dir_all(run.join("state")).unwrap();
        std::fs::write(run.join("state/run.json"), &state).unwrap();
    }
    // The way on the message gives: a new run from the newest champion, this run untouched.
    let fresh = temp_run("lost-state-fresh");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_alphazero"));
    cmd.args(["train", "--quiet", "--iterations", "1", "--run"])
        .arg(&fresh)
        .arg("--config")
        .arg(run.join("config.toml"))
        .arg("--init")
        .arg(run.join(format!("networks/champion-{champion:04}.azc")))
        .stdin(Stdio::null());
    run_ok(cmd);
    assert_eq!(check_counts_consistent(&fresh).iteration, 1);
    // With its state restored the run resumes where it was.
    run_ok(train_cmd(&run, 3));
    assert_eq!(check_counts_consistent(&run).iteration, 3);
    let _ = std::fs::remove_dir_all(&run);
    let _ = std::fs::remove_dir_all(&fresh);
}

#[test]
fn run_that_lost_its_config_is_refused_even_with_force_not_resumed_under_defaults() {
    let run = temp_run("lost-config");
    run_ok(train_cmd(&run, 2));
    let config = std::fs::read(run.join("config.toml")).unwrap();
    let champion = check_run_dir(&run).champion_id;
    std::fs::remove_file(run.join("config.toml")).unwrap();
    let before = dir_contents(&run);
    for force in [false, true] {
        let mut cmd = train_cmd(&run, 3);
        if force {
            cmd.arg("--force");
        }
        let err = run_fails(cmd);
        assert!(
            err.contains("config.toml is missing") && err.contains("state/run.json is there"),
            "force {force}: {err}"
        );
        assert!(
            err.contains(&format!("--init RUN/networks/champion-{champion:04}.azc")),
            "force {force}: {err}"
        );
        assert!(!err.contains("--force"), "never advised: {err}");
        assert_eq!(dir_contents(&run), before, "force {force}: the run changed");
    }
    // Restored, the run resumes where it was.
    std::fs::write(run.join("config.toml"), &config).unwrap();
    run_ok(train_cmd(&run, 3));
    assert_eq!(check_counts_consistent(&run).iteration, 3);
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn trainer_checkpoint_of_another_shape_is_refused_in_words_with_the_way_on() {
    let run = temp_run("latest-shape");
    run_ok(train_cmd(&run, 1));
    let champion = format!(
        "networks/champion-{:04}.azc",
        check_run_dir(&run).champion_id
    );
    std::fs::copy(shipped("connect4.azc"), run.join("networks/latest.azc")).unwrap();
    // The run's data, not its config (which takes the new run.iterations before the load).
    let data = |run: &Path| {
        let mut d = dir_contents(run);
        d.retain(|(k, _)| k != "config.toml");
        d
    };
    let before = data(&run);
    let err = run_fails(train_cmd(&run, 2));
    assert!(
        err.contains("networks/latest.azc holds a 4x32 (value head 32) network")
            && err.contains(&format!("copy {champion} over it")),
        "{err}"
    );
    assert!(!err.contains("ModelConfig"), "no debug dump: {err}");
    assert_eq!(data(&run), before, "the run changed");
    std::fs::copy(run.join(&champion), run.join("networks/latest.azc")).unwrap();
    run_ok(train_cmd(&run, 2));
    assert_eq!(check_counts_consistent(&run).iteration, 2);
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn run_without_latest_checkpoint_is_refused_not_restarted_from_random_weights() {
    let run = temp_run("lost-latest");
    run_ok(train_cmd(&run, 2));
    let s = check_run_dir(&run);
    std::fs::remove_file(run.join("networks/latest.azc")).unwrap();
    let before = dir_contents(&run);
    let err = run_fails(train_cmd(&run, 3));
    let champion = format!("networks/champion-{:04}.azc", s.champion_id);
    assert!(
        err.contains("networks/latest.azc") && err.contains("is missing"),
        "{err}"
    );
    assert!(
        err.contains(&format!("copy {champion} to networks/latest.azc")),
        "{err}"
    );
    assert_eq!(dir_contents(&run), before, "the run changed");
    // The way on the message gives: the champion copied over it.
    std::fs::copy(run.join(&champion), run.join("networks/latest.azc")).unwrap();
    run_ok(train_cmd(&run, 3));
    assert_eq!(check_counts_consistent(&run).iteration, 3);
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn missing_record_file_is_reported_like_a_truncated_one() {
    let run = temp_run("missing-record");
    run_ok(train_cmd(&run, 2));
    std::fs::remove_file(run.join("records/000000.azr")).unwrap();
    let err = run_ok(train_cmd(&run, 3));
    assert!(
        err.contains("records/000000.azr is missing") && err.contains("records/000000.azr.missing"),
        "{err}"
    );
    assert!(err.contains("lost 6 games (ids 0 to 5)"), "{err}");
    assert!(run.join("records/000000.azr.missing").exists());
    let s = check_run_dir(&run);
    assert_eq!((s.iteration, s.total_games), (3, 18));
    // Reported once: a second resume does not warn again.
    let err = run_ok(train_cmd(&run, 4));
    assert!(!err.contains("warning"), "{err}");
    assert_eq!(check_run_dir(&run).iteration, 4);
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn missing_champion_is_refused_in_plain_words() {
    let run = temp_run("lost-champion");
    run_ok(train_cmd(&run, 2));
    let s = check_run_dir(&run);
    // The tiny run promotes every iteration (no gating) and snapshots every second one.
    assert_eq!(s.champion_id, 2);
    let champion = "networks/champion-0002.azc";
    std::fs::remove_file(run.join(champion)).unwrap();
    let before = dir_contents(&run);
    let err = run_fails(train_cmd(&run, 3));
    assert!(
        err.contains(&format!("the champion network {champion}")) && err.contains("is missing"),
        "{err}"
    );
    assert!(
        err.contains("copy networks/snapshot-00002.azc (the same network"),
        "{err}"
    );
    assert!(!err.contains("no object stored"), "{err}");
    assert_eq!(dir_contents(&run), before, "the run changed");
    std::fs::copy(run.join("networks/snapshot-00002.azc"), run.join(champion)).unwrap();
    run_ok(train_cmd(&run, 3));
    assert_eq!(check_counts_consistent(&run).iteration, 3);
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn equal_time_script_refuses_a_bad_member_before_starting_any_run() {
    let out = temp_run("equal-time");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/equal-time.sh");
    let run = |args: &[&str], clock: &str| {
        Command::new("sh")
            .arg(&script)
            .arg(&out)
            .args(args)
            .env("ALPHAZERO", env!("CARGO_BIN_EXE_alphazero"))
            .env("CLOCK", clock)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    for (args, clock, says) in [
        (
            &["--game connect4", "1", "a", "", "b", "--set bogus.key=1"][..],
            "cpu",
            "run b: error: unknown config key bogus.key",
        ),
        (
            &["--game connect4", "abc", "a", ""][..],
            "wall",
            "run.time_budget_minutes must be a number",
        ),
        (
            &["--game connect4", "1", "a", "", "lonely"][..],
            "wall",
            "the last, lonely, has none",
        ),
        (
            &["--game connect4", "1", "a", ""][..],
            "banana",
            "CLOCK must be wall or cpu",
        ),
    ] {
        let o = run(args, clock);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?}: a run was started");
    }
}

/// Regression (fresh-user trial): a run ended with its champion's path and no word on how to
/// play it, and `play --model RUN_DIR` failed with `Is a directory`. The last lines are now
/// the commands, and each runs as printed (the run folder means its champion).
#[test]
fn a_run_ends_with_the_commands_that_play_analyze_and_serve_its_champion() {
    let run = common::fresh_dir("train-next-steps");
    let out = common::tiny_connect4_run(&run);
    let shown = run.display().to_string();
    let last: Vec<&str> = out.stderr.lines().rev().take(3).collect();
    assert!(
        last[2].ends_with(&format!("alphazero play --game connect4 --model {shown}"))
            && last[1].contains(&format!(
                "alphazero analyze --game connect4 --model {shown} --out"
            ))
            && last[0].contains(&format!("alphazero serve --model {shown}")),
        "{}",
        out.stderr
    );
    let played = common::alphazero(&[
        "play", "--game", "connect4", "--model", &shown, "--human", "none", "--sims", "4",
    ]);
    assert_eq!(played.code, 0, "{}", played.stderr);
    assert!(
        played
            .stderr
            .contains("networks/champion-0001.azc (1x8, step 2"),
        "{}",
        played.stderr
    );
}

/// The run on burn's wgpu backend (CI: Mesa's lavapipe, a software Vulkan device): two
/// iterations of self-play and training on the device, killed (SIGKILL) during the second and
/// resumed to the end, its networks readable on the CPU.
#[cfg(feature = "wgpu")]
#[test]
fn wgpu_train_runs_is_killed_and_resumes() {
    let run = temp_run("wgpu");
    let on_wgpu = |iterations| {
        let mut c = train_cmd(&run, iterations);
        c.args(["--device", "wgpu"]);
        c
    };
    let (mut child, seen, _rest) = spawn_until(on_wgpu(2), "iter 0:");
    assert!(seen.contains("device wgpu"), "{seen}");
    let _ = child.kill(); // SIGKILL
    let _ = child.wait();
    assert!(check_run_dir(&run).iteration <= 2);
    let err = run_ok(on_wgpu(2));
    assert!(err.contains("resuming"), "{err}");
    let s = check_counts_consistent(&run);
    assert_eq!((s.iteration, s.total_games), (2, 12));
    let _ = std::fs::remove_dir_all(&run);
}
