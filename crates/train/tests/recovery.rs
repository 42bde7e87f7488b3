//! Run recovery on the in-memory storage, without a network: what an interrupted iteration
//! left behind is found and set aside, the pending trainer checkpoint settled, the replay
//! buffer rebuilt from the committed record files (lost ones reported once), the metrics
//! log cut back to the committed iterations, and a run that lost its state or its networks
//! refused with the way back.
use std::cell::RefCell;

use alphazero_game::Game;
use alphazero_registry::games::Connect4;
use alphazero_registry::GameSpec;
use alphazero_train::recovery;
use alphazero_train::run_dir::{RunDir, SetAside};
use alphazero_train::state::ChampionInfo;
use alphazero_train::{
    write_records, GameRecord, GameResult, MemoryStorage, MetricsLog, Observer, PlyRecord,
    RecordHeader, RunState, Storage,
};

/// Collects the warnings recovery gives.
#[derive(Default)]
struct Warnings(RefCell<Vec<String>>);

impl Observer for Warnings {
    fn warning(&self, line: &str) {
        self.0.borrow_mut().push(line.to_string());
    }
}

impl Warnings {
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut self.0.borrow_mut())
    }
}

fn start() -> Connect4 {
    Connect4::new(&Default::default())
}

/// A Connect Four game the first player wins in seven plies (four in column 0), every ply
/// searched: seven replay positions.
fn game() -> GameRecord {
    let plies = [0u16, 1, 0, 1, 0, 1, 0]
        .iter()
        .map(|&a| PlyRecord::new(a, &[(a, 1.0)], 0.0, 8))
        .collect();
    GameRecord {
        start: String::new(),
        result: GameResult::FirstWon,
        flags: Default::default(),
        prefix: Vec::new(),
        plies,
    }
}

/// The bytes of a record file of `games` games whose ids start at `first_game_id`.
fn record_file(first_game_id: u64, games: usize) -> Vec<u8> {
    let start = start();
    let header = RecordHeader::for_spec(
        &GameSpec::of::<Connect4>(&Default::default()),
        start.num_actions() as u32,
        first_game_id,
    );
    write_records(&header, &vec![game(); games]).unwrap()
}

/// The state of a run that committed `iterations` iterations of 3-game record files, one
/// champion promoted per iteration, and trainer step `10 * iterations`.
fn committed(iterations: u32) -> RunState {
    let mut state = RunState::new(7);
    state.iteration = iterations;
    state.next_record_id = u64::from(iterations);
    state.next_game_id = 3 * u64::from(iterations);
    state.total_games = state.next_game_id;
    state.champion_id = iterations;
    state.trainer_step = Some(10 * u64::from(iterations));
    state.champions = (0..=iterations)
        .map(|id| ChampionInfo {
            id,
            iteration: id,
            key: RunDir::champion_key(id),
            elo: 0.0,
            elo_se: 0.0,
        })
        .collect();
    state
}

/// Everything `storage` holds, sorted.
fn keys(storage: &dyn Storage) -> Vec<String> {
    storage.list("").unwrap()
}

#[test]
fn an_interrupted_iterations_records_and_networks_are_set_aside_and_the_committed_stay() {
    let storage = MemoryStorage::new();
    let state = committed(2);
    state.save(&storage).unwrap();
    for id in 0..2 {
        storage
            .put(&RunDir::record_key(id), &record_file(3 * id, 3))
            .unwrap();
    }
    for id in 0..=2 {
        storage.put(&RunDir::champion_key(id), b"net").unwrap();
    }
    storage.put(&RunDir::snapshot_key(2), b"net").unwrap();
    storage.put(RunDir::LATEST, b"trainer").unwrap();
    // Iteration 2 died before its commit: its games, its champion and its snapshot.
    storage
        .put(&RunDir::record_key(2), &record_file(6, 4))
        .unwrap();
    storage.put(&RunDir::champion_key(3), b"net").unwrap();
    storage.put(&RunDir::snapshot_key(3), b"net").unwrap();

    let obs = Warnings::default();
    recovery::set_aside_orphan_records(&storage, &state, &start(), &obs).unwrap();
    recovery::set_aside_orphan_networks(&storage, &state, &obs).unwrap();

    let orphan = |key: String| RunDir::set_aside(&key, SetAside::Orphan);
    let mut want = vec![
        RunDir::champion_key(0),
        RunDir::champion_key(1),
        RunDir::champion_key(2),
        orphan(RunDir::champion_key(3)),
        RunDir::LATEST.to_string(),
        RunDir::snapshot_key(2),
        orphan(RunDir::snapshot_key(3)),
        RunDir::record_key(0),
        RunDir::record_key(1),
        orphan(RunDir::record_key(2)),
        RunDir::STATE.to_string(),
    ];
    want.sort();
    assert_eq!(keys(&storage), want);
    let warnings = obs.take();
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(
        warnings[0].contains("records/000002.azr was written by iteration 2")
            && warnings[0].contains("(4 games not counted)"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].contains("networks/champion-0003.azc was written by iteration 2"),
        "{warnings:?}"
    );
    // A second resume finds nothing more to set aside.
    recovery::set_aside_orphan_records(&storage, &state, &start(), &obs).unwrap();
    recovery::set_aside_orphan_networks(&storage, &state, &obs).unwrap();
    assert_eq!(keys(&storage), want);
    assert!(obs.take().is_empty());
}

#[test]
fn the_pending_checkpoint_becomes_the_latest_only_when_the_state_names_its_step() {
    let storage = MemoryStorage::new();
    let state = committed(1);
    // No pending checkpoint: nothing to read, nothing done.
    recovery::settle_pending_checkpoint(&storage, &state, || {
        panic!("no pending checkpoint to read")
    })
    .unwrap();
    // Died between the state and the rename: the commit is finished.
    storage.put(RunDir::LATEST, b"step 0").unwrap();
    storage.put(RunDir::PENDING, b"step 10").unwrap();
    recovery::settle_pending_checkpoint(&storage, &state, || Some(10)).unwrap();
    assert_eq!(storage.get(RunDir::LATEST).unwrap(), b"step 10");
    assert!(!storage.exists(RunDir::PENDING).unwrap());
    // Died before the state: the iteration is done again, its checkpoint dropped; so is one
    // that cannot be read.
    for step in [Some(11), None] {
        storage.put(RunDir::PENDING, b"uncommitted").unwrap();
        recovery::settle_pending_checkpoint(&storage, &state, || step).unwrap();
        assert_eq!(storage.get(RunDir::LATEST).unwrap(), b"step 10");
        assert!(!storage.exists(RunDir::PENDING).unwrap());
    }
}

#[test]
fn the_buffer_is_rebuilt_from_the_committed_files_and_lost_ones_are_reported_once() {
    let storage = MemoryStorage::new();
    let state = committed(4);
    storage
        .put(&RunDir::record_key(0), &record_file(0, 3))
        .unwrap();
    // File 1 is lost; file 2 does not decode.
    storage
        .put(&RunDir::record_key(2), b"not a record file")
        .unwrap();
    storage
        .put(&RunDir::record_key(3), &record_file(9, 3))
        .unwrap();

    let obs = Warnings::default();
    let buffer = recovery::rebuild_buffer(&storage, &state, &start(), 1000, &obs).unwrap();
    assert_eq!(
        buffer.len(),
        2 * 3 * 7,
        "two files of 3 games of 7 positions"
    );
    let missing = RunDir::set_aside(&RunDir::record_key(1), SetAside::Missing);
    let corrupt = RunDir::set_aside(&RunDir::record_key(2), SetAside::Corrupt);
    assert!(storage.exists(&missing).unwrap());
    assert!(storage.exists(&corrupt).unwrap());
    assert!(!storage.exists(&RunDir::record_key(2)).unwrap());
    let warnings = obs.take();
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(
        warnings[2].contains("lost 6 games (ids 3 to 8)"),
        "one account of both files' games: {warnings:?}"
    );

    // The next resume passes over what was set aside or marked without a word.
    let again = recovery::rebuild_buffer(&storage, &state, &start(), 1000, &obs).unwrap();
    assert_eq!(again.len(), buffer.len());
    assert!(obs.take().is_empty());

    // Newest first, only as far back as the capacity needs.
    storage
        .put(&RunDir::record_key(0), b"damaged later")
        .unwrap();
    let newest = recovery::rebuild_buffer(&storage, &state, &start(), 21, &obs).unwrap();
    assert_eq!(newest.len(), 21);
    assert!(obs.take().is_empty(), "file 0 is not read");
}

#[test]
fn the_metrics_log_keeps_only_committed_iterations_and_cuts_a_torn_line() {
    let storage = MemoryStorage::new();
    let state = committed(1);
    storage
        .put(
            RunDir::METRICS,
            b"{\"iteration\":0,\"games\":3}\n{\"iteration\":1,\"games\":3}\n{\"iterat",
        )
        .unwrap();
    let obs = Warnings::default();
    let log = recovery::open_metrics(&storage, &state, &obs).unwrap();
    let lines = log.read_all(&storage).unwrap();
    assert_eq!(
        lines.iter().map(|m| m.iteration).collect::<Vec<_>>(),
        [0],
        "iteration 1 was never committed"
    );
    let warnings = obs.take();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("metrics.jsonl ended in an incomplete line"),
        "{warnings:?}"
    );
    let reopened = MetricsLog::open(&storage, RunDir::METRICS).unwrap();
    assert_eq!(reopened.read_all(&storage).unwrap(), lines);
}

#[test]
fn a_run_that_lost_its_state_is_refused_naming_its_newest_champion() {
    let storage = MemoryStorage::new();
    // A new run: a state of the run's seed is saved before anything else.
    let state = recovery::load_state(&storage, 42).unwrap();
    assert_eq!((state.iteration, state.rng_seed), (0, 42));
    assert_eq!(keys(&storage), [RunDir::STATE]);
    assert_eq!(recovery::load_state(&storage, 1).unwrap(), state);

    storage.delete(RunDir::STATE).unwrap();
    storage.put(&RunDir::record_key(0), b"r").unwrap();
    storage.put(&RunDir::record_key(1), b"r").unwrap();
    for id in [0, 2, 10, 9] {
        storage.put(&RunDir::champion_key(id), b"net").unwrap();
    }
    let e = recovery::check_resumable(&storage).unwrap_err().to_string();
    for part in [
        "the run state state/run.json is missing",
        "2 record files and 4 networks",
        "--config RUN/config.toml --init RUN/networks/champion-0010.azc",
    ] {
        assert!(e.contains(part), "{part:?} in {e}");
    }
    assert!(recovery::load_state(&storage, 42).is_err());
    assert!(!storage.exists(RunDir::STATE).unwrap(), "nothing written");
}

#[test]
fn a_run_missing_its_trainer_checkpoint_or_its_champion_is_refused_with_the_way_on() {
    let storage = MemoryStorage::new();
    let state = committed(2);
    state.save(&storage).unwrap();
    storage.put(&RunDir::champion_key(2), b"net").unwrap();
    let e = recovery::check_resumable(&storage).unwrap_err().to_string();
    assert!(
        e.contains("networks/latest.azc (the trainer's network and optimizer state) is missing")
            && e.contains("copy networks/champion-0002.azc to networks/latest.azc"),
        "{e}"
    );
    // A pending checkpoint may still become it: decided after it is settled.
    storage.put(RunDir::PENDING, b"step 20").unwrap();
    assert_eq!(
        recovery::check_resumable(&storage).unwrap(),
        Some(state.clone())
    );
    recovery::settle_pending_checkpoint(&storage, &state, || Some(20)).unwrap();
    recovery::check_trainer_checkpoint(&storage, &state).unwrap();

    // The champion the state names is gone; the snapshot of the iteration that promoted it
    // holds the same network.
    storage.delete(&RunDir::champion_key(2)).unwrap();
    storage.put(&RunDir::snapshot_key(2), b"net").unwrap();
    let e = recovery::check_resumable(&storage).unwrap_err().to_string();
    assert!(
        e.contains("the champion network networks/champion-0002.azc (champion 2")
            && e.contains("copy networks/snapshot-00002.azc"),
        "{e}"
    );
}
