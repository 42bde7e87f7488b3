//! The training pipeline on the in-memory storage with a tiny network: the whole loop, its
//! stages called one by one, resuming, and recovery of what an interrupted iteration left.
use std::cell::RefCell;

use alphazero_registry::games::Connect4;
use alphazero_train::record::read_records;
use alphazero_train::{
    ActorIntake, InvocationLimits, Iteration, MemoryStorage, MetricsLog, Observer, Outcome,
    Pipeline, ReplayBuffer, RunDir, RunState, Silent, Stage, Storage, TrainConfig,
};

/// A tiny, fast Connect Four configuration: 1×8 network, 6 games of 8 simulations per
/// iteration, 3 training steps, a 2-game gating match (gating on), `iterations` iterations.
fn tiny(iterations: u32) -> TrainConfig {
    tiny_with(iterations, &[])
}

/// [`tiny`] with the overrides `extra` on top.
fn tiny_with(iterations: u32, extra: &[&str]) -> TrainConfig {
    tiny_game("connect4", iterations, extra)
}

/// [`tiny_with`] for the game named `game`.
fn tiny_game(game: &str, iterations: u32, extra: &[&str]) -> TrainConfig {
    let iterations = format!("run.iterations={iterations}");
    let base = [
        "model.blocks=1",
        "model.channels=8",
        "model.value_hidden=8",
        "selfplay.games_per_iteration=6",
        "selfplay.parallel_games=6",
        "selfplay.workers=1",
        "selfplay.simulations=8",
        "selfplay.playout_cap.enabled=false",
        "train.batch_size=32",
        "train.steps_per_iteration=3",
        "gating.enabled=true",
        "gating.games=2",
        "gating.simulations=4",
        "run.snapshot_every=2",
        "run.time_budget_minutes=0",
        &iterations,
    ];
    let overrides: Vec<&str> = base.iter().chain(extra).copied().collect();
    TrainConfig::parse(&format!("[game]\nname = \"{game}\"\n"), &overrides).unwrap()
}

fn pipeline(storage: &dyn Storage, iterations: u32) -> Pipeline<'_, Connect4> {
    Pipeline::new(
        tiny(iterations),
        Default::default(),
        storage,
        Default::default(),
    )
    .unwrap()
}

/// Records network 0 (written by `open_trainer`) as the run's first champion.
fn name_the_first_champion(state: &mut RunState) {
    state.champions.push(alphazero_train::state::ChampionInfo {
        id: 0,
        iteration: 0,
        key: RunDir::champion_key(0),
        elo: 0.0,
        elo_se: 0.0,
    });
}

/// Counts what the pipeline reports.
#[derive(Default)]
struct Counting {
    stages: RefCell<Vec<(Stage, u64, u64)>>,
    iterations: RefCell<Vec<u32>>,
    warnings: RefCell<Vec<String>>,
}

impl Observer for Counting {
    fn stage_started(&self, stage: Stage, _iteration: u32, total: u64) {
        self.stages.borrow_mut().push((stage, total, 0));
    }
    fn advanced(&self, _stage: Stage, n: u64) {
        if let Some(last) = self.stages.borrow_mut().last_mut() {
            last.2 += n;
        }
    }
    fn warning(&self, line: &str) {
        self.warnings.borrow_mut().push(line.to_string());
    }
    fn iteration_done(&self, report: &alphazero_train::IterationReport) {
        self.iterations.borrow_mut().push(report.metrics.iteration);
    }
}

#[test]
fn whole_loop_runs_on_memory_storage_and_resumes() {
    let storage = MemoryStorage::new();
    let obs = Counting::default();
    let summary = pipeline(&storage, 2)
        .run(None, &InvocationLimits::default(), &obs)
        .unwrap();
    assert_eq!((summary.iterations, summary.total_games), (2, 12));
    assert_eq!(*obs.iterations.borrow(), vec![0, 1]);
    // Every self-play stage played its 6 games, every learn stage took its 3 steps.
    for &(stage, total, done) in obs.stages.borrow().iter() {
        match stage {
            Stage::SelfPlay => assert_eq!((total, done), (6, 6)),
            Stage::Learn => assert!(total == 0 || total == 3, "{total}"),
            Stage::Gate => assert_eq!(total, 2),
        }
        assert_eq!(total, done, "{stage:?}");
    }
    assert!(obs.stages.borrow().iter().any(|s| s.0 == Stage::Gate));
    let state = RunState::load(&storage).unwrap().unwrap();
    assert_eq!((state.iteration, state.next_record_id), (2, 2));
    for key in [
        RunDir::record_key(0),
        RunDir::record_key(1),
        RunDir::champion_key(0),
        RunDir::LATEST.to_string(),
        "networks/snapshot-00002.azc".to_string(),
        "metrics.csv".to_string(),
        "plots/losses.png".to_string(),
        "plots/plots.txt".to_string(),
    ] {
        assert!(storage.exists(&key).unwrap(), "{key} is written");
    }
    assert!(
        !storage.exists(RunDir::PENDING).unwrap(),
        "the pending checkpoint is committed"
    );
    let log = MetricsLog::open(&storage, RunDir::METRICS).unwrap();
    assert_eq!(log.read_all(&storage).unwrap().len(), 2);
    // Resume to 3 iterations: one more, the counters go on.
    let summary = pipeline(&storage, 3)
        .run(None, &InvocationLimits::default(), &Silent)
        .unwrap();
    assert_eq!((summary.iterations, summary.total_games), (3, 18));
    assert_eq!(log.read_all(&storage).unwrap().len(), 3);
    let third = read_records(&storage.get(&RunDir::record_key(2)).unwrap(), "connect4", 7).unwrap();
    assert_eq!((third.header.first_game_id, third.games.len()), (12, 6));
    // The invocation's limit: no iteration when it is reached at once.
    let summary = pipeline(&storage, 3)
        .run(None, &InvocationLimits::default(), &Silent)
        .unwrap();
    assert_eq!(summary.iterations, 3);
}

#[test]
fn a_run_with_restarts_starts_a_share_of_its_games_from_positions_of_earlier_games() {
    let storage = MemoryStorage::new();
    let cfg = tiny(3)
        .with_overrides(&["selfplay.restarts.share=0.5"])
        .unwrap();
    let p =
        Pipeline::<Connect4>::new(cfg, Default::default(), &storage, Default::default()).unwrap();
    p.run(None, &InvocationLimits::default(), &Silent).unwrap();
    let metrics = MetricsLog::open(&storage, RunDir::METRICS)
        .unwrap()
        .read_all(&storage)
        .unwrap();
    let files: Vec<_> = (0..3)
        .map(|id| {
            read_records(
                &storage.get(&RunDir::record_key(id)).unwrap(),
                "connect4",
                7,
            )
            .unwrap()
        })
        .collect();
    // The first iteration has no earlier games: every game starts from the initial position.
    assert_eq!(metrics[0].restarted_games, 0);
    assert!(files[0].games.iter().all(|g| g.prefix.is_empty()));
    let mut restarted = 0;
    for (k, file) in files.iter().enumerate() {
        let here = file.games.iter().filter(|g| !g.prefix.is_empty());
        assert_eq!(metrics[k].restarted_games, here.clone().count() as u64);
        for g in here {
            restarted += 1;
            // The prefix leads to a position of an earlier game, one where that game's loser
            // was to move or a threat was marked (the default rule, defend), never its end.
            let from = files[..k]
                .iter()
                .flat_map(|f| &f.games)
                .find(|e| {
                    let line: Vec<u16> = e.actions().collect();
                    line.len() > g.prefix.len() && line.starts_with(&g.prefix)
                })
                .unwrap_or_else(|| panic!("prefix {:?} is no earlier game's", g.prefix));
            let own = g.prefix.len() - from.prefix.len();
            let loser_to_move = match from.result {
                alphazero_train::GameResult::FirstWon => g.prefix.len() % 2 == 1,
                alphazero_train::GameResult::SecondWon => g.prefix.len() % 2 == 0,
                alphazero_train::GameResult::Draw => false,
            };
            assert!(
                loser_to_move || from.plies[own].threat,
                "prefix {:?} of {from:?}",
                g.prefix
            );
            assert!(!g.plies.is_empty());
        }
    }
    assert!(restarted > 0, "some of the 12 later games restarted");
    // Resumed, the buffer is rebuilt from the records: the run goes on with restarts.
    let more = Pipeline::<Connect4>::new(
        tiny(4)
            .with_overrides(&["selfplay.restarts.share=0.5"])
            .unwrap(),
        Default::default(),
        &storage,
        Default::default(),
    )
    .unwrap();
    assert_eq!(
        more.run(None, &InvocationLimits::default(), &Silent)
            .unwrap()
            .iterations,
        4
    );
}

#[test]
fn a_run_with_random_starts_records_each_start_and_trains_and_resumes_on_them() {
    use alphazero_registry::games::Xiangqi;
    let storage = MemoryStorage::new();
    let cfg = |iterations| {
        tiny_game(
            "xiangqi",
            iterations,
            &[
                "selfplay.max_plies=24",
                "selfplay.random_starts.share=0.5",
                "selfplay.random_starts.max_removed=4",
            ],
        )
    };
    let p =
        Pipeline::<Xiangqi>::new(cfg(2), Default::default(), &storage, Default::default()).unwrap();
    p.run(None, &InvocationLimits::default(), &Silent).unwrap();
    let metrics = MetricsLog::open(&storage, RunDir::METRICS)
        .unwrap()
        .read_all(&storage)
        .unwrap();
    let actions = p.num_actions();
    let files: Vec<_> = (0..2)
        .map(|id| {
            read_records(
                &storage.get(&RunDir::record_key(id)).unwrap(),
                "xiangqi",
                actions,
            )
            .unwrap()
        })
        .collect();
    let mut random = 0;
    for (k, file) in files.iter().enumerate() {
        let here: Vec<_> = file.games.iter().filter(|g| !g.start.is_empty()).collect();
        assert_eq!(metrics[k].random_start_games, here.len() as u64);
        for g in here {
            random += 1;
            // The start is a FEN of the initial position less some pieces, Red to move.
            let pos = Xiangqi::from_fen(
                &g.start,
                alphazero_registry::games::XiangqiConfig::default(),
            )
            .unwrap_or_else(|e| panic!("{:?}: {e}", g.start));
            let pieces = g.start.split(' ').next().unwrap();
            let count = |upper: bool| {
                pieces
                    .chars()
                    .filter(|c| c.is_ascii_alphabetic() && c.is_ascii_uppercase() == upper)
                    .count()
            };
            assert!((12..=16).contains(&count(true)), "{}", g.start);
            assert!((12..=16).contains(&count(false)), "{}", g.start);
            assert_eq!(
                alphazero_game::Game::side_to_move(&pos),
                alphazero_game::Side::First
            );
        }
    }
    assert!(random > 0, "some of the 12 games started at random");
    // No two games of an iteration share a random start (each game takes its own).
    for file in &files {
        let starts: Vec<&str> = file
            .games
            .iter()
            .map(|g| g.start.as_str())
            .filter(|s| !s.is_empty())
            .collect();
        let distinct: std::collections::HashSet<&str> = starts.iter().copied().collect();
        assert_eq!(distinct.len(), starts.len(), "{starts:?}");
    }
    // The buffer replays every game from its own start: as many positions as full plies.
    let plies: usize = files
        .iter()
        .flat_map(|f| &f.games)
        .map(|g| g.plies.len())
        .sum();
    let start = p.start_position();
    let buffer = ReplayBuffer::rebuild_from(&files, 10_000, &start).unwrap();
    assert_eq!(buffer.len(), plies);
    // Resumed, the buffer is rebuilt from the records (random starts included).
    let more =
        Pipeline::<Xiangqi>::new(cfg(3), Default::default(), &storage, Default::default()).unwrap();
    let summary = more
        .run(None, &InvocationLimits::default(), &Silent)
        .unwrap();
    assert_eq!(summary.iterations, 3);
}

/// Plays one iteration of `game` under `game_config` with the overrides `extra`, rebuilds a
/// replay buffer from its record file and checks that every game gave one sample a ply with z
/// the result from the sample's side to move, whoever moved first. Returns each game's
/// start text and the position of its first sample, and how many samples of decided games
/// had the second player to move.
fn one_iteration_checking_z<G: alphazero_registry::Encode>(
    game: &str,
    game_config: G::Config,
    extra: &[&str],
) -> (Vec<(String, G)>, usize) {
    use alphazero_game::Side;
    use alphazero_records::GameResult;
    let storage = MemoryStorage::new();
    let cfg = tiny_game(game, 1, extra);
    let p = Pipeline::<G>::new(cfg, game_config, &storage, Default::default()).unwrap();
    p.run(None, &InvocationLimits::default(), &Silent).unwrap();
    let file = read_records(
        &storage.get(&RunDir::record_key(0)).unwrap(),
        game,
        p.num_actions(),
    )
    .unwrap();
    let buffer =
        ReplayBuffer::rebuild_from(std::slice::from_ref(&file), 10_000, &p.start_position())
            .unwrap();
    let mut starts = Vec::new();
    let mut second_to_move = 0;
    for (i, g) in file.games.iter().enumerate() {
        let id = file.header.first_game_id + i as u64;
        let winner = match g.result {
            GameResult::FirstWon => Some(Side::First),
            GameResult::SecondWon => Some(Side::Second),
            _ => None,
        };
        let samples: Vec<_> = buffer.iter().filter(|s| s.game_id == id).collect();
        assert_eq!(samples.len(), g.plies.len(), "game {id}");
        // The position's own ply: a Gomoku start's counts its stones.
        let first = samples
            .iter()
            .min_by_key(|s| s.ply)
            .expect("the start position");
        starts.push((g.start.clone(), first.position.clone()));
        for s in samples.iter().filter(|_| !g.flags.truncated) {
            let want = match winner {
                Some(w) if w == s.position.side_to_move() => 1.0,
                Some(_) => -1.0,
                None => 0.0,
            };
            assert_eq!(s.z, want, "game {id} ply {}", s.ply);
            second_to_move +=
                usize::from(winner.is_some() && s.position.side_to_move() == Side::Second);
        }
    }
    (starts, second_to_move)
}

#[test]
fn random_move_starts_with_either_side_to_move_train_on_z_of_the_side_to_move() {
    use alphazero_game::{Game, Side};
    use alphazero_registry::games::Xiangqi;
    let (starts, checked) = one_iteration_checking_z::<Xiangqi>(
        "xiangqi",
        Default::default(),
        &[
            "selfplay.games_per_iteration=24",
            "selfplay.parallel_games=24",
            "selfplay.max_plies=200",
            "selfplay.random_starts.share=0.9",
            "selfplay.random_starts.max_removed=6",
            "selfplay.random_starts.plies=30",
        ],
    );
    let black_first = starts
        .iter()
        .filter(|(text, pos)| !text.is_empty() && pos.side_to_move() == Side::Second)
        .count();
    assert!(black_first > 0, "no random start left Black to move");
    assert!(
        checked > 0,
        "no decided game had a position with Black to move"
    );
}

#[test]
fn gomoku_random_stone_starts_replay_from_their_text_and_train_on_z_of_the_side_to_move() {
    use alphazero_game::{Game, Side};
    use alphazero_registry::games::{Gomoku, GomokuConfig, Rule};
    use alphazero_registry::PositionText;
    let game_config = GomokuConfig::new(9, Rule::Freestyle).unwrap();
    let (starts, _) = one_iteration_checking_z::<Gomoku>(
        "gomoku",
        game_config,
        &[
            "game.size=9",
            "selfplay.games_per_iteration=16",
            "selfplay.parallel_games=16",
            "selfplay.random_starts.share=0.9",
            "selfplay.random_starts.plies=5",
        ],
    );
    let (mut random, mut white_first) = (0, 0);
    for (i, (text, first)) in starts.iter().enumerate() {
        if text.is_empty() {
            continue;
        }
        random += 1;
        // The buffer's first position is the start text's: its stones, its side to move.
        let start = Gomoku::parse_position(&game_config, text).expect("start text");
        assert_eq!(
            first.zobrist(),
            start.current().zobrist(),
            "game {i}: {text}"
        );
        white_first += usize::from(first.side_to_move() == Side::Second);
    }
    assert!(
        random >= 8,
        "only {random} of 16 games started from random stones"
    );
    assert!(white_first > 0, "no random start left white to move");
}

#[test]
fn random_starts_are_refused_for_a_game_without_them() {
    let err = tiny(1)
        .with_overrides(&["selfplay.random_starts.share=0.3"])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("selfplay.random_starts.share must be 0 for connect4"),
        "{err}"
    );
    // Gomoku's random starts are stones: without plies there are none.
    let err = TrainConfig::parse(
        "[game]\nname = \"gomoku\"\n",
        &["selfplay.random_starts.share=0.3"],
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("must be 0 for gomoku: its random starts are random moves only, set selfplay.random_starts.plies >= 1"),
        "{err}"
    );
    TrainConfig::parse(
        "[game]\nname = \"gomoku\"\n",
        &[
            "selfplay.random_starts.share=0.3",
            "selfplay.random_starts.plies=4",
        ],
    )
    .expect("gomoku with random stones");
    for (set, says) in [
        (
            "selfplay.random_starts.share=1",
            "selfplay.random_starts.share must be in [0, 1)",
        ),
        (
            "selfplay.random_starts.max_removed=0",
            "selfplay.random_starts.max_removed must be >= 1",
        ),
        (
            "selfplay.random_starts.max_removed=16",
            "selfplay.random_starts.max_removed must be <= 15",
        ),
        (
            "selfplay.random_starts.plies=201",
            "selfplay.random_starts.plies must be <= 200",
        ),
    ] {
        let err = TrainConfig::parse("[game]\nname = \"xiangqi\"\n", &[set])
            .unwrap_err()
            .to_string();
        assert!(err.contains(says), "{set}: {err}");
    }
}

#[test]
fn a_run_without_aux_heads_resumes_training_them_and_logs_their_losses() {
    use alphazero_nn::{checkpoint_from_bytes, AuxHeads};
    let storage = MemoryStorage::new();
    pipeline(&storage, 1)
        .run(None, &InvocationLimits::default(), &Silent)
        .unwrap();
    let header = |key: &str| {
        let bytes = storage.get(key).unwrap();
        checkpoint_from_bytes(key.as_ref(), &bytes, "connect4", &Default::default())
            .unwrap()
            .header
    };
    assert_eq!(header(RunDir::LATEST).model.aux_heads, None);
    let aux = [
        "train.aux_policy_weight=0.15",
        "train.aux_ownership_weight=1",
    ];
    let with_aux = |iterations| {
        Pipeline::<Connect4>::new(
            tiny_with(iterations, &aux),
            Default::default(),
            &storage,
            Default::default(),
        )
        .unwrap()
    };
    with_aux(3)
        .run(None, &InvocationLimits::default(), &Silent)
        .unwrap();
    let log = MetricsLog::open(&storage, RunDir::METRICS).unwrap();
    let metrics = log.read_all(&storage).unwrap();
    assert_eq!(metrics.len(), 3);
    assert_eq!(
        (metrics[0].aux_policy_loss, metrics[0].aux_ownership_loss),
        (None, None)
    );
    for m in &metrics[1..] {
        assert!(m.train_steps > 0);
        let (reply, ownership) = (m.aux_policy_loss.unwrap(), m.aux_ownership_loss.unwrap());
        // Cross-entropy over 7 columns (about ln 7 untrained) and a per-point MSE in [0, 4].
        assert!(reply > 0.0 && reply < 4.0, "{m:?}");
        assert!(ownership > 0.0 && ownership < 4.0, "{m:?}");
    }
    let csv = String::from_utf8(storage.get("metrics.csv").unwrap()).unwrap();
    let columns = csv.lines().next().unwrap();
    assert!(
        columns.contains(",aux_policy_loss,aux_ownership_loss,"),
        "{columns}"
    );
    // The trainer's checkpoint carries the heads (a resumed run trains them on); the
    // networks for play do not.
    let both = AuxHeads {
        reply_policy: true,
        ownership: true,
    };
    assert_eq!(header(RunDir::LATEST).model.aux(), both);
    let state = RunState::load(&storage).unwrap().unwrap();
    assert_eq!(
        header(&RunDir::champion_key(state.champion_id))
            .model
            .aux_heads,
        None
    );
    // Resumed with the heads off, the run keeps them in its checkpoint and logs no losses.
    pipeline(&storage, 4)
        .run(None, &InvocationLimits::default(), &Silent)
        .unwrap();
    let metrics = log.read_all(&storage).unwrap();
    assert_eq!(metrics[3].aux_policy_loss, None);
    assert_eq!(header(RunDir::LATEST).model.aux(), both);
}

#[test]
fn stages_called_alone_make_one_iteration_that_commits() {
    let storage = MemoryStorage::new();
    let p = pipeline(&storage, 1);
    let mut state = RunState::new(7);
    let mut trainer = p.open_trainer(&mut state, None, 1e-3, &Silent).unwrap();
    name_the_first_champion(&mut state);
    // The actor's side: the champion from storage, one record batch written.
    let champion = p.champion(&state).unwrap();
    let it = Iteration {
        number: 0,
        seed: 11,
        champion: &champion,
        observer: &Silent,
    };
    let no_games = ReplayBuffer::<Connect4>::new(1);
    let batch = p.self_play(&it, &no_games, 0, 0).unwrap();
    assert_eq!(batch.games.len(), 6);
    let file = read_records(&storage.get(&batch.key).unwrap(), "connect4", 7).unwrap();
    assert_eq!(
        file.games, batch.games,
        "the batch is what the record file holds"
    );
    // The learner's side.
    let mut buffer = ReplayBuffer::<Connect4>::new(10_000);
    let positions = p
        .ingest(&mut buffer, file.header.first_game_id, &file.games)
        .unwrap();
    assert_eq!(positions as usize, buffer.len());
    assert!(positions > 0);
    let learned = p
        .learn(&it, &mut trainer, &buffer, positions, 1e-3)
        .unwrap();
    assert_eq!(learned.steps, 3);
    assert!(storage.exists(RunDir::PENDING).unwrap());
    let gated = p.gate(&it, &learned).unwrap();
    let g = gated.metrics.as_ref().expect("gating is on");
    assert_eq!(g.wins + g.draws + g.losses, 2);
    let log = MetricsLog::open(&storage, RunDir::METRICS).unwrap();
    let outcome = Outcome {
        batch: &batch,
        new_positions: positions,
        buffer: &buffer,
        learned: &learned,
        gated: &gated,
        solver: None,
        elapsed_s: 1.0,
        cpu_s: 0.5,
    };
    let report = p.commit(&it, &mut state, &outcome, &log).unwrap();
    assert_eq!(report.metrics.games, 6);
    assert_eq!(report.metrics.train_steps, 3);
    let saved = RunState::load(&storage).unwrap().unwrap();
    assert_eq!(
        (saved.iteration, saved.next_game_id, saved.total_games),
        (1, 6, 6)
    );
    assert_eq!(saved.champion_id, u32::from(gated.promoted));
    assert!(!storage.exists(RunDir::PENDING).unwrap());
    assert!(storage.exists(RunDir::LATEST).unwrap());
}

#[test]
fn orphan_record_and_pending_checkpoint_of_an_uncommitted_iteration_are_set_aside_on_resume() {
    let storage = MemoryStorage::new();
    pipeline(&storage, 1)
        .run(None, &InvocationLimits::default(), &Silent)
        .unwrap();
    // An iteration that died before its commit: a record file and a pending checkpoint.
    storage
        .put(
            &RunDir::record_key(1),
            &storage.get(&RunDir::record_key(0)).unwrap(),
        )
        .unwrap();
    storage
        .put(RunDir::PENDING, &storage.get(RunDir::LATEST).unwrap())
        .unwrap();
    storage
        .put(
            &RunDir::champion_key(5),
            &storage.get(&RunDir::champion_key(0)).unwrap(),
        )
        .unwrap();
    let obs = Counting::default();
    let summary = pipeline(&storage, 2)
        .run(None, &InvocationLimits::default(), &obs)
        .unwrap();
    assert_eq!(
        (summary.iterations, summary.total_games),
        (2, 12),
        "counted once"
    );
    assert!(storage
        .exists(&format!("{}.orphan", RunDir::record_key(1)))
        .unwrap());
    assert!(storage
        .exists(&format!("{}.orphan", RunDir::champion_key(5)))
        .unwrap());
    let warnings = obs.warnings.borrow();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("records/000001.azr was written by iteration 1")),
        "{warnings:?}"
    );
    // The redone iteration wrote its own record file 1.
    assert!(storage.exists(&RunDir::record_key(1)).unwrap());
}

#[test]
fn corrupt_record_file_is_set_aside_and_the_run_goes_on() {
    let storage = MemoryStorage::new();
    pipeline(&storage, 1)
        .run(None, &InvocationLimits::default(), &Silent)
        .unwrap();
    let mut bytes = storage.get(&RunDir::record_key(0)).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    storage.put(&RunDir::record_key(0), &bytes).unwrap();
    let obs = Counting::default();
    let summary = pipeline(&storage, 2)
        .run(None, &InvocationLimits::default(), &obs)
        .unwrap();
    assert_eq!(summary.iterations, 2);
    assert!(storage
        .exists(&format!("{}.corrupt", RunDir::record_key(0)))
        .unwrap());
    let warnings = obs.warnings.borrow();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("lost 6 games (ids 0 to 5)")),
        "{warnings:?}"
    );
}

/// An observer that says "stop" once told to.
#[derive(Default)]
struct StopWhenTold(std::sync::atomic::AtomicBool);

impl Observer for StopWhenTold {
    fn stop_requested(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }
}

#[test]
fn an_actor_and_a_learner_on_one_storage_count_every_published_game_once() {
    use alphazero_train::roles::{run_actor, run_learner, ActorBatches, ActorOptions};
    use alphazero_train::storage::exchange::{claim_run, Inbox, Outbox};
    use alphazero_train::storage::lease::LearnerLease;
    use std::time::Duration;

    let storage = MemoryStorage::new();
    let cfg = tiny(3);
    claim_run(&storage, "mem://run", &cfg.game.words()).unwrap();
    storage
        .put(RunDir::CONFIG, cfg.to_toml_string().unwrap().as_bytes())
        .unwrap();
    let poll = Duration::from_millis(20);
    let stop = StopWhenTold::default();
    let lease =
        LearnerLease::acquire(&storage, "mem://run", Duration::from_secs(60), &|_| {}).unwrap();
    let (actor, learner) = std::thread::scope(|scope| {
        let actor = scope.spawn(|| {
            let options = ActorOptions {
                location: "mem://run".into(),
                games: None,
                poll,
            };
            run_actor(&pipeline(&storage, 3), &mut Outbox::new(), &options, &stop).unwrap()
        });
        let mut source = ActorBatches::new("mem://run", poll).with_lease(&lease);
        let learner = run_learner(
            &pipeline(&storage, 3),
            &mut source,
            &lease,
            None,
            &InvocationLimits::default(),
            &Silent,
        );
        if learner.is_err() {
            // The actor would wait for the run to complete.
            stop.0.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        (actor.join().unwrap(), learner.unwrap())
    });
    // Regression: actors published forever after the run was complete.
    assert!(actor.run_complete && !actor.stopped_by_request, "{actor:?}");
    assert!(RunState::load(&storage).unwrap().unwrap().complete);
    // The lease is released when the learner stops: the next learner takes it at once.
    let leases = storage.list(RunDir::LEASE_PREFIX).unwrap();
    let record: alphazero_train::storage::lease::LeaseRecord =
        serde_json::from_slice(&storage.get(&leases[0]).unwrap()).unwrap();
    assert!(record.released, "{record:?}");
    assert_eq!(actor.games, 6 * actor.batches);
    assert_eq!(learner.iterations, 3);
    let state = RunState::load(&storage).unwrap().unwrap();
    let mut counted = 0;
    for id in 0..state.next_record_id {
        let file = read_records(
            &storage.get(&RunDir::record_key(id)).unwrap(),
            "connect4",
            7,
        )
        .unwrap();
        assert_eq!(file.header.first_game_id, counted);
        counted += file.games.len() as u64;
    }
    assert_eq!(counted, state.total_games);
    // Every published batch is counted once or still waiting.
    let inbox = Inbox::load(&storage, "mem://run", state.iteration).unwrap();
    assert_eq!(inbox.consumed_count() as u64 * 6, state.total_games);
    let waiting = inbox.pending(&storage).unwrap().len() as u64;
    assert_eq!(inbox.consumed_count() as u64 + waiting, actor.batches);
}

/// An observer that says "stop" from its `n`th question on.
struct StopFrom(std::cell::Cell<u32>);

impl Observer for StopFrom {
    fn stop_requested(&self) -> bool {
        let left = self.0.get().saturating_sub(1);
        self.0.set(left);
        left == 0
    }
}

#[test]
fn a_learner_stopped_while_waiting_for_batches_says_it_stopped_waiting() {
    // Regression: Ctrl-C while the learner waited printed "after iteration N
    // (saved)" for an iteration that never ran.
    use alphazero_train::roles::ActorBatches;
    let storage = MemoryStorage::new();
    let mut source = ActorBatches::new("mem://run", std::time::Duration::from_millis(5));
    // The loop asks once before the iteration, then the source asks while it waits.
    let summary = pipeline(&storage, 3)
        .run_with(
            &mut source,
            None,
            &InvocationLimits::default(),
            &StopFrom(2.into()),
        )
        .unwrap();
    assert!(summary.stopped_by_request && summary.stopped_while_waiting);
    assert_eq!(summary.iterations, 0);
}

#[test]
fn the_learner_reports_the_results_of_the_games_it_took_and_no_self_play_times() {
    // Regression: a learner's iteration line said W/D/L 0/0/0 and 0% in network.
    use alphazero_train::roles::ActorBatches;
    use alphazero_train::storage::exchange::Outbox;
    let storage = MemoryStorage::new();
    let p = pipeline(&storage, 1);
    let games = actor_games(&p);
    Outbox::new()
        .publish(&storage, &p.record_file(0, &games).unwrap(), 0)
        .unwrap();
    let obs = Reports::default();
    let mut source = ActorBatches::new("mem://run", std::time::Duration::from_millis(5));
    p.run_with(&mut source, None, &InvocationLimits::default(), &obs)
        .unwrap();
    let reports = obs.0.borrow();
    let r = &reports[0];
    let sp = &r.selfplay;
    assert_eq!(sp.first_wins + sp.draws + sp.second_wins, 6);
    let result = |want: alphazero_train::GameResult| {
        games.iter().filter(|g| g.result == want).count() as u64
    };
    assert_eq!(sp.first_wins, result(alphazero_train::GameResult::FirstWon));
    assert_eq!(
        sp.second_wins,
        result(alphazero_train::GameResult::SecondWon)
    );
    assert_eq!(
        r.metrics.network_time_fraction, None,
        "unknown to the learner"
    );
    assert_eq!(r.metrics.selfplay_s, None, "unknown to the learner");
    assert!(r.metrics.selfplay_games_per_hour > 0.0);
    let line = r.summary();
    assert!(line.contains("W/D/L"), "{line}");
    assert!(!line.contains("% in network"), "{line}");
}

#[test]
fn a_learner_with_a_backlog_takes_the_oldest_batches_at_its_pace_and_skips_stale_ones() {
    // Regression: a learner took every published batch at once, so iterations grew
    // geometrically (16, 40, 216, 544, 1,280 games) and actors played an ever older champion.
    use alphazero_train::roles::ActorBatches;
    use alphazero_train::storage::exchange::{Inbox, Outbox};
    let storage = MemoryStorage::new();
    let cfg = tiny_with(3, &["gating.enabled=false", "actors.max_champion_lag=1"]);
    let p =
        Pipeline::<Connect4>::new(cfg, Default::default(), &storage, Default::default()).unwrap();
    let bytes = p.record_file(0, &actor_games(&p)).unwrap();
    // A backlog of four iterations before the learner starts: one actor's four batches
    // played by champion 0, another's one batch by champion 2.
    let mut a = Outbox::named("a");
    let old: Vec<String> = (0..4)
        .map(|_| a.publish(&storage, &bytes, 0).unwrap())
        .collect();
    let new = Outbox::named("b").publish(&storage, &bytes, 2).unwrap();
    let obs = Reports::default();
    let mut source = ActorBatches::new("mem://run", std::time::Duration::from_millis(5));
    let summary = p
        .run_with(&mut source, None, &InvocationLimits::default(), &obs)
        .unwrap();
    assert_eq!(summary.iterations, 3);
    let intakes: Vec<ActorIntake> = obs
        .0
        .borrow()
        .iter()
        .map(|r| r.metrics.intake.clone().expect("a learner's iteration"))
        .collect();
    let intake = |batches, lag, backlog_batches, stale_batches| ActorIntake {
        batches,
        champion_lag_max: lag,
        backlog_batches,
        backlog_games: 6 * backlog_batches,
        stale_batches,
        stale_games: 6 * stale_batches,
    };
    assert_eq!(
        intakes,
        vec![
            // Champion 0: the oldest batch, one iteration's games; four wait.
            intake(1, 0, 4, 0),
            // Champion 1: the next oldest, one champion behind.
            intake(1, 1, 3, 0),
            // Champion 2: champion 0's last two are two behind (> 1): skipped.
            intake(1, 0, 0, 2),
        ]
    );
    let line = obs.0.borrow()[2].summary();
    assert!(
        line.contains("actors: 1 batches, lag 0, backlog 0 games, 12 stale"),
        "{line}"
    );
    let state = RunState::load(&storage).unwrap().unwrap();
    assert_eq!(state.total_games, 18);
    let inbox = Inbox::load(&storage, "mem://run", state.iteration).unwrap();
    assert_eq!((inbox.consumed_count(), inbox.skipped_count()), (3, 2));
    assert!(inbox.is_consumed(&old[0]) && inbox.is_consumed(&old[1]));
    assert!(inbox.is_consumed(&new) && !inbox.is_consumed(&old[2]));
    assert!(inbox.pending(&storage).unwrap().is_empty());
}

/// Six self-play games of `p`'s settings, as an actor plays them: their network comes from
/// elsewhere, since the learner's storage holds no networks before its run state (such a
/// storage is a run that lost its state, and is refused).
fn actor_games(p: &Pipeline<'_, Connect4>) -> Vec<alphazero_train::GameRecord> {
    let elsewhere = MemoryStorage::new();
    let mut state = RunState::new(1);
    let champion = pipeline(&elsewhere, 1)
        .open_trainer(&mut state, None, 0.01, &Silent)
        .unwrap()
        .inference_model();
    let it = Iteration {
        number: 0,
        seed: 7,
        champion: &champion,
        observer: &Silent,
    };
    let (games, _) = p.self_play_games(&it, &ReplayBuffer::new(1), 6, 0).unwrap();
    games
}

/// Keeps the iteration reports.
#[derive(Default)]
struct Reports(RefCell<Vec<alphazero_train::IterationReport>>);

impl Observer for Reports {
    fn iteration_done(&self, report: &alphazero_train::IterationReport) {
        self.0.borrow_mut().push(report.clone());
    }
}

#[test]
fn the_games_solver_yardstick_measures_the_network_every_solver_every_iterations() {
    // The pipeline names no game; the yardstick comes from the game's registry
    // entry (Connect Four's exact solver on Pascal Pons' test sets).
    let storage = MemoryStorage::new();
    let cfg = tiny(1)
        .with_overrides(&["eval.solver_every=2", "eval.solver_positions=7"])
        .unwrap();
    let dir = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/connect4"
    ));
    let eval = cfg.eval.clone();
    let p = Pipeline::<Connect4>::new(cfg, Default::default(), &storage, Default::default())
        .unwrap()
        .with_solver_slice(|| alphazero_train::solver_slice::<Connect4>(dir, &eval, &Silent));
    let mut state = RunState::new(7);
    p.open_trainer(&mut state, None, 1e-3, &Silent).unwrap();
    name_the_first_champion(&mut state);
    let net = p.champion(&state).unwrap();
    assert_eq!(
        p.measure_solver(&net, 3).unwrap(),
        None,
        "3 is not a multiple of 2"
    );
    let m = p
        .measure_solver(&net, 4)
        .unwrap()
        .expect("measured at iteration 4");
    assert_eq!(m.positions, 7);
    for share in [m.policy_best, m.policy_keeps, m.value_sign] {
        assert!((0.0..=1.0).contains(&share), "{m:?}");
    }
    assert!(m.policy_best <= m.policy_keeps, "{m:?}");
    // Without a yardstick (none loaded) nothing is measured.
    let bare = pipeline(&storage, 1);
    assert_eq!(bare.measure_solver(&net, 4).unwrap(), None);
}

#[test]
fn iteration_line_is_short_and_its_fields_are_explained() {
    // The line was ~330 characters with fields no one explained (`KL`, `batch`).
    let storage = MemoryStorage::new();
    let obs = Reports::default();
    pipeline(&storage, 1)
        .run(None, &InvocationLimits::default(), &obs)
        .unwrap();
    let line = obs.0.borrow()[0].summary();
    assert!(line.starts_with("iter 0: "), "{line}");
    assert!(line.chars().count() <= 200, "{} chars: {line}", line.len());
    assert!(!line.contains("KL") && !line.contains("batch"), "{line}");
    // Every field of the line is named in the legend printed before it.
    let legend = alphazero_train::summary_legend(false, false);
    for field in [
        "W/D/L",
        "plies",
        "positions",
        "buffer",
        "steps",
        "loss",
        "shift",
        "champion",
    ] {
        assert!(line.contains(field), "{field}: {line}");
        assert!(legend.contains(field), "{field} not explained: {legend}");
    }
    assert!(legend.contains("KL divergence"), "{legend}");
    // A plain run's legend is short and leaves out what its line never shows: the actors'
    // batches of a learner, the solver agreement where it is not measured.
    assert!(legend.chars().count() <= 700, "{legend}");
    assert!(
        !legend.contains("actors") && !legend.contains("solver"),
        "{legend}"
    );
    let full = alphazero_train::summary_legend(true, true);
    assert!(
        full.contains("actors' batches") && full.contains("chance"),
        "{full}"
    );
    // metrics.jsonl keeps its fields.
    let text = String::from_utf8(storage.get("metrics.jsonl").unwrap()).unwrap();
    for key in [
        "\"kl\":",
        "\"policy_entropy\":",
        "\"selfplay_games_per_hour\":",
    ] {
        assert!(text.contains(key), "{key}: {text}");
    }
}

#[test]
fn an_actor_on_a_train_run_is_told_to_start_a_learner_there() {
    // Regression: an actor on a folder `alphazero train` made said it "holds no run yet".
    let storage = MemoryStorage::new();
    pipeline(&storage, 1)
        .run(None, &InvocationLimits::default(), &Silent)
        .unwrap();
    let e = alphazero_train::roles::open_run(&storage, "runs/r1", None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("run of `alphazero train`") && e.contains("alphazero learner --storage runs/r1"),
        "{e}"
    );
}
