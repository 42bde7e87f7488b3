//! `alphazero learner` and `alphazero actor` as separate processes on a real S3 server
//! (`s3s-fs` on loopback, see `crates/train/tests/s3_server`): a learner and actors that are
//! killed, replaced and cut off from the server for 10 s, after which every published batch
//! is counted once, a second learner is refused and actors stop when the run is complete; and
//! the bad-input errors, which name the URL before any work.

#[path = "../crates/train/tests/s3_server/mod.rs"]
mod s3_server;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use alphazero_train::record::read_records;
use alphazero_train::state::RunState;
use alphazero_train::storage::exchange::{claim_run, Inbox};
use alphazero_train::storage::{ObjectStorage, Storage};
use alphazero_train::RunDir;
use s3_server::S3Server;

/// Games in each actor batch and in each learner iteration.
const GAMES_PER_BATCH: u64 = 4;
/// The run's iterations.
const ITERATIONS: u32 = 6;
/// The learners' `--lease-seconds`.
const LEASE_SECONDS: &str = "4";

/// A tiny Connect Four run: 1×8 network, batches of 4 games of 8 simulations, 3 training
/// steps an iteration, no gating (every trained candidate is promoted).
fn tiny() -> Vec<String> {
    let sets = [
        "model.blocks=1".to_string(),
        "model.channels=8".into(),
        "model.value_hidden=8".into(),
        format!("selfplay.games_per_iteration={GAMES_PER_BATCH}"),
        format!("selfplay.parallel_games={GAMES_PER_BATCH}"),
        "selfplay.workers=1".into(),
        "selfplay.simulations=8".into(),
        "selfplay.playout_cap.enabled=false".into(),
        "train.batch_size=32".into(),
        "train.steps_per_iteration=3".into(),
        "gating.enabled=false".into(),
        "eval.solver_every=0".into(),
        "run.time_budget_minutes=0".into(),
        format!("run.iterations={ITERATIONS}"),
    ];
    sets.into_iter()
        .flat_map(|s| ["--set".to_string(), s])
        .collect()
}

/// A process of the binary with the server's environment, its stderr in `log`.
fn spawn(server: &S3Server, args: &[&str], log: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_alphazero"))
        .args(args)
        .envs(server.env())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(File::create(log).expect("log file"))
        .spawn()
        .expect("start alphazero")
}

fn read(log: &Path) -> String {
    std::fs::read_to_string(log).unwrap_or_default()
}

/// The learner's committed state, read from the server's folder (`None` before the first
/// commit or while a write is under way).
fn state(server: &S3Server, run: &str) -> Option<RunState> {
    let path = server
        .root()
        .join(S3Server::BUCKET)
        .join(run)
        .join(RunState::KEY);
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// The published batches on the server's disk that the run's inbox names neither consumed
/// nor skipped: the backlog a learner finds when it starts.
fn pending_batches(server: &S3Server, run: &str) -> usize {
    let root = server.root().join(S3Server::BUCKET).join(run);
    let inbox: serde_json::Value = std::fs::read(root.join("state/inbox.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let known = |key: &str| {
        ["consumed", "skipped"]
            .iter()
            .any(|m| inbox[m].get(key).is_some())
    };
    let mut n = 0;
    for actor in std::fs::read_dir(root.join(RunDir::INCOMING))
        .into_iter()
        .flatten()
    {
        let actor = actor.unwrap();
        for batch in std::fs::read_dir(actor.path()).into_iter().flatten() {
            let name = batch.unwrap().file_name().to_string_lossy().into_owned();
            let key = format!(
                "{}{}/{name}",
                RunDir::INCOMING,
                actor.file_name().to_string_lossy()
            );
            n += usize::from(name.ends_with(".azr") && !known(&key));
        }
    }
    n
}

/// Waits until `done` holds, failing after 3 minutes with the logs.
fn wait_for(what: &str, logs: &[PathBuf], mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(180);
    while !done() {
        if Instant::now() > deadline {
            let text: Vec<String> = logs
                .iter()
                .map(|l| format!("== {}\n{}", l.display(), read(l)))
                .collect();
            panic!("timed out waiting for {what}\n{}", text.join("\n"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Waits for `child` to exit, failing after 3 minutes with its log.
fn exited(child: &mut Child, what: &str, log: &Path) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}:\n{}",
            read(log)
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn sigterm(child: &Child) {
    // SAFETY: kill(2) on the pid of a child this test started and has not reaped.
    let r = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(r, 0, "SIGTERM to {}", child.id());
}

#[test]
fn every_published_batch_is_counted_once_through_killed_actors_a_killed_learner_and_an_outage() {
    let mut server = S3Server::start();
    let run = "runs/c4";
    let url = server.url(run);
    let dir = tempfile::tempdir().unwrap();
    let log = |name: &str| dir.path().join(format!("{name}.log"));
    // A short learner lease: the restarted learner waits for the killed one's lease to
    // expire (at most this long).
    let mut learner_args = vec![
        "learner",
        "--storage",
        &url,
        "--game",
        "connect4",
        "--quiet",
        "--lease-seconds",
        LEASE_SECONDS,
    ];
    let sets = tiny();
    learner_args.extend(sets.iter().map(String::as_str));
    let mut learner = spawn(&server, &learner_args, &log("learner1"));
    let config = server
        .root()
        .join(S3Server::BUCKET)
        .join(run)
        .join("config.toml");
    wait_for("the learner's config.toml", &[log("learner1")], || {
        config.is_file()
    });
    // One learner per run: a second one is refused, naming the URL and the holder (checked
    // before any actor runs, so that the first learner is still at iteration 0).
    let second = spawn(
        &server,
        &["learner", "--storage", &url, "--quiet"],
        &log("learner3"),
    )
    .wait_with_output()
    .unwrap();
    let l3 = read(&log("learner3"));
    assert_eq!(second.status.code(), Some(1), "{l3}");
    assert!(
        l3.contains(&url) && l3.contains("already has a learner") && l3.contains("pid "),
        "{l3}"
    );
    let actor = |name: &str| {
        spawn(
            &server,
            &["actor", "--storage", &url, "--actor-id", name, "--quiet"],
            &log(name),
        )
    };
    let mut a1 = actor("a1");
    let mut a2 = actor("a2");
    let all_logs: Vec<PathBuf> = ["learner1", "learner2", "learner3", "a1", "a2", "a3"]
        .iter()
        .map(|n| log(n))
        .collect();
    let srv = &server;
    let at = |i: u32| move || state(srv, run).is_some_and(|s| s.iteration >= i);

    wait_for("iteration 1", &all_logs, at(1));
    a1.kill().unwrap(); // SIGKILL, possibly mid-upload
    a1.wait().unwrap();
    let mut a3 = actor("a3");

    wait_for("iteration 2", &all_logs, at(2));
    learner.kill().unwrap(); // SIGKILL at any point of an iteration
    learner.wait().unwrap();
    // A backlog of more than one iteration's games for the restarted learner.
    wait_for("a backlog of three batches", &all_logs, || {
        pending_batches(&server, run) >= 3
    });
    let at_kill = state(&server, run).unwrap();
    let (champion_at_kill, killed_at) = (at_kill.champion_id, at_kill.iteration);
    let mut learner = spawn(
        &server,
        &[
            "learner",
            "--storage",
            &url,
            "--quiet",
            "--lease-seconds",
            LEASE_SECONDS,
        ],
        &log("learner2"),
    );

    wait_for("iteration 3", &all_logs, at(3));
    // Ctrl-C / SIGTERM: the batch under way is published, then the actor stops (130).
    sigterm(&a3);
    let status = a3.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(130),
        "actor a3 stopped by SIGTERM:\n{}",
        read(&log("a3"))
    );

    // The outage once the restarted learner has committed an iteration of its own.
    wait_for("iteration 4", &all_logs, at(4.max(killed_at + 1)));
    server.stop();
    std::thread::sleep(Duration::from_secs(10));
    server.restart();

    let status = exited(&mut learner, "the learner to finish", &log("learner2"));
    assert!(status.success(), "learner: {}", read(&log("learner2")));
    // The run is complete: the actor stops by itself, with one line (it must not publish
    // forever).
    let status = exited(&mut a2, "actor a2 to stop, the run complete", &log("a2"));
    let a2_log = read(&log("a2"));
    assert_eq!(status.code(), Some(0), "actor a2:\n{a2_log}");
    assert!(a2_log.contains("is complete"), "{a2_log}");
    let (l1, l2) = (read(&log("learner1")), read(&log("learner2")));
    assert!(l2.contains("resuming run"), "{l2}");
    // The restarted learner took the killed one's lease (after watching it for up to the
    // lease time, or at once when it was already older than that).
    assert!(l2.contains("took over the learner lease"), "{l2}");
    let actor_logs: Vec<String> = ["a1", "a2", "a3"].iter().map(|n| read(&log(n))).collect();
    // The outage: a clear line when the server went away and when it came back, and the
    // processes carried on.
    for text in actor_logs[1..2].iter().chain([&l2]) {
        assert!(text.contains("is unreachable"), "{text}");
        assert!(text.contains("is reachable again"), "{text}");
    }
    for text in [&l1, &l2] {
        assert!(!text.contains("no record file"), "{text}");
    }

    // The ledger against the objects.
    let options = server.options();
    let options: Vec<(&str, &str)> = options.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let s = ObjectStorage::open_with(&url, &options).unwrap();
    let st = RunState::load(&s).unwrap().unwrap();
    assert_eq!(st.iteration, ITERATIONS);
    let mut games = 0;
    for id in 0..st.next_record_id {
        let file = read_records(&s.get(&RunDir::record_key(id)).unwrap(), "connect4", 7)
            .unwrap_or_else(|e| panic!("records/{id}: {e}"));
        assert_eq!(file.header.first_game_id, games);
        games += file.games.len() as u64;
    }
    assert_eq!(games, st.total_games);
    let inbox = Inbox::load(&s, &url, st.iteration).unwrap();
    // Every batch holds GAMES_PER_BATCH games: a batch counted twice, or a partial one,
    // would break this.
    assert_eq!(
        inbox.consumed_count() as u64 * GAMES_PER_BATCH,
        st.total_games
    );
    let incoming = s.list(RunDir::INCOMING).unwrap();
    assert!(incoming.iter().all(|k| k.ends_with(".azr")), "{incoming:?}");
    // Every batch an actor said it published is counted or still waiting.
    let mut published = 0;
    for text in &actor_logs {
        for line in text.lines() {
            let Some(key) = line
                .split("published ")
                .nth(1)
                .filter(|r| r.starts_with(RunDir::INCOMING))
                .and_then(|r| r.split(':').next())
            else {
                continue;
            };
            published += 1;
            assert!(
                inbox.is_consumed(key)
                    || inbox.is_skipped(key)
                    || incoming.iter().any(|k| k == key),
                "{key} was published and is neither counted, skipped nor waiting"
            );
        }
    }
    assert!(
        published as u64 * GAMES_PER_BATCH >= st.total_games - GAMES_PER_BATCH,
        "{published} batches in the logs, {} games counted",
        st.total_games
    );
    // The restarted learner took its backlog at its own pace: one batch an iteration, the
    // rest left waiting (the iteration line says how many).
    let metrics: Vec<serde_json::Value> = String::from_utf8(s.get("metrics.jsonl").unwrap())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The last line of the iteration (a killed learner may have logged it before losing it).
    let after_kill = metrics
        .iter()
        .rev()
        .find(|m| m["iteration"] == killed_at)
        .unwrap();
    assert_eq!(after_kill["games"], GAMES_PER_BATCH, "{after_kill}");
    assert_eq!(after_kill["intake"]["batches"], 1, "{after_kill}");
    assert!(
        after_kill["intake"]["backlog_games"].as_u64().unwrap() >= 2 * GAMES_PER_BATCH,
        "{after_kill}"
    );
    for m in &metrics {
        assert_eq!(
            m["games"], GAMES_PER_BATCH,
            "an iteration of one batch: {m}"
        );
    }
    // The restarted learner went on training and published champions.
    assert!(st.champion_id > champion_at_kill, "{st:?}");
    assert!(s.exists(&RunDir::champion_key(st.champion_id)).unwrap());
}

#[test]
fn bad_storage_and_a_run_of_another_game_are_one_error_naming_the_url_before_any_work() {
    let server = S3Server::start();
    let bin = env!("CARGO_BIN_EXE_alphazero");
    let run = |env: &[(&'static str, String)], args: &[&str]| {
        let out = Command::new(bin)
            .args(args)
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let expect = |what: &str, (code, err): (Option<i32>, String), url: &str, words: &str| {
        assert_eq!(code, Some(1), "{what}: {err}");
        assert!(
            err.contains(url) && err.contains(words),
            "{what}: wants {url:?} and {words:?}: {err}"
        );
        assert_eq!(
            err.lines().filter(|l| l.starts_with("error")).count(),
            1,
            "{err}"
        );
    };
    let env = server.env();

    // Nothing listens on the port.
    let mut down = env.clone();
    down[2].1 = format!("http://127.0.0.1:{}", S3Server::free_port());
    let url = server.url("runs/x");
    for role in [
        &["actor", "--storage", &url][..],
        &["learner", "--storage", &url, "--game", "connect4"],
    ] {
        expect("unreachable", run(&down, role), &url, "does not answer");
    }
    // A bucket that does not exist, refused credentials.
    let missing = "s3://no-such-bucket/runs/x";
    expect(
        "missing bucket",
        run(&env, &["actor", "--storage", missing]),
        missing,
        "bucket does not exist",
    );
    let mut wrong = env.clone();
    wrong[1].1 = "not-the-secret".into();
    expect(
        "wrong credentials",
        run(
            &wrong,
            &["learner", "--storage", &url, "--game", "connect4"],
        ),
        &url,
        "credentials are refused",
    );
    // No credentials at all: said so, not "refused".
    let mut bare_env = env.clone();
    bare_env.retain(|(k, _)| !k.starts_with("AWS_ACCESS") && !k.starts_with("AWS_SECRET"));
    let out = Command::new(bin)
        .args(["actor", "--storage", &url])
        .env_remove("AWS_ACCESS_KEY_ID")
        .env_remove("AWS_SECRET_ACCESS_KEY")
        .env_remove("AWS_PROFILE")
        .envs(bare_env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    expect(
        "no credentials",
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ),
        &url,
        "no credentials found: set AWS_ACCESS_KEY_ID",
    );
    // An empty --storage.
    expect(
        "empty storage",
        run(&env, &["actor", "--storage", ""]),
        "\"\"",
        "the storage location is empty",
    );
    // No run there yet: an actor waits for nothing, it says so.
    expect(
        "no run",
        run(&env, &["actor", "--storage", &url]),
        &url,
        "holds no run yet",
    );

    let options = server.options();
    let options: Vec<(&str, &str)> = options.iter().map(|(k, v)| (*k, v.as_str())).collect();
    // A budget on the CPU clock: a learner cannot count its actors' CPU; refused before any
    // write.
    let cpu = server.url("runs/cpu");
    let (code, err) = run(
        &env,
        &[
            "learner",
            "--storage",
            &cpu,
            "--game",
            "connect4",
            "--set",
            "run.budget_clock=cpu",
        ],
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("run.budget_clock = \"cpu\"") && err.contains("run.budget_clock = \"wall\""),
        "{err}"
    );
    let s = ObjectStorage::open_with(&cpu, &options).unwrap();
    assert_eq!(s.list("").unwrap(), Vec::<String>::new());

    // A run of another game.
    let other = server.url("runs/gomoku");
    let s = ObjectStorage::open_with(&other, &options).unwrap();
    claim_run(&s, &other, "gomoku 9x9 freestyle").unwrap();
    s.put("config.toml", b"[game]\nname = \"gomoku\"\nsize = 9\n")
        .unwrap();
    let before = s.list("").unwrap();
    expect(
        "actor of another game",
        run(&env, &["actor", "--storage", &other, "--game", "connect4"]),
        &other,
        "gomoku 9x9 freestyle",
    );
    expect(
        "learner of another game",
        run(
            &env,
            &["learner", "--storage", &other, "--game", "connect4"],
        ),
        &other,
        "gomoku",
    );
    // Only the manifest: the learner's claim refuses it.
    let bare = server.url("runs/bare");
    let b = ObjectStorage::open_with(&bare, &options).unwrap();
    claim_run(&b, &bare, "gomoku 9x9 freestyle").unwrap();
    expect(
        "learner on a manifest of another game",
        run(&env, &["learner", "--storage", &bare, "--game", "connect4"]),
        &bare,
        "not of connect4",
    );
    assert_eq!(s.list("").unwrap(), before, "nothing written");
    assert_eq!(b.list("").unwrap(), vec!["run.json".to_string()]);
}

#[test]
fn learner_refusal_and_dry_run_leave_no_directory_behind() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("run");
    let storage = dir.to_str().unwrap();
    let learner = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_alphazero"))
            .args(["learner", "--storage", storage, "--game", "connect4"])
            .args(extra)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            err,
        )
    };
    // A budget on the CPU clock is refused: the directory it names is not created (it used
    // to be created and locked before the config was read).
    let (code, _, err) = learner(&["--set", "run.budget_clock=cpu"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("run.budget_clock = \"cpu\""), "{err}");
    assert!(!dir.exists(), "a refused learner created {}", dir.display());
    // --dry-run prints the config and writes nothing.
    let (code, out, err) = learner(&["--dry-run"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("[game]") && out.contains("connect4"), "{out}");
    assert!(!dir.exists(), "--dry-run created {}", dir.display());
    // A directory holding a run of the learner's is still read before it is opened: its
    // saved budget clock is refused, and its files are left as they were.
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(
        dir.join(RunDir::CONFIG),
        "[game]\nname = \"connect4\"\n\n[run]\nbudget_clock = \"cpu\"\n",
    )
    .unwrap();
    let (code, _, err) = learner(&[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("run.budget_clock = \"cpu\""), "{err}");
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, vec![RunDir::CONFIG.to_string()]);
}
