//! Self-play actor on real games with stand-in evaluators.
use alphazero_connect4::{Connect4, Connect4Config};
use alphazero_game::{Game, History};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use alphazero_mcts::{
    EvalError, EvalRequest, Evaluator, RolloutEvaluator, SearchConfig, UniformEvaluator,
};
use alphazero_records::{GameRecord, GameResult};
use alphazero_selfplay::{
    play_selfplay_games, play_selfplay_games_parallel, worker_count, PlayoutCap, Resignation,
    RestartPositions, Restarts, SelfPlayConfig, SelfPlayError, Starts,
};

fn c4_config(seed: u64) -> SelfPlayConfig {
    SelfPlayConfig {
        search: SearchConfig::default(),
        simulations: 32,
        parallel_games: 4,
        temperature_moves: 6,
        max_plies: 42,
        seed,
        ..SelfPlayConfig::default()
    }
}

/// Replays a record (its prefix, then its plies) and checks it is a legal, finished game
/// whose result matches the rules.
fn check_record(start: &Connect4, rec: &GameRecord) {
    let mut h = History::new(*start);
    for &a in &rec.prefix {
        let mv = h
            .current()
            .action_to_move(a as usize)
            .expect("prefix action");
        h.play(mv).unwrap();
    }
    for (i, ply) in rec.plies.iter().enumerate() {
        let pos = *h.current();
        let mv = pos
            .action_to_move(ply.action as usize)
            .expect("action names a move");
        assert!(pos.is_legal(mv), "ply {i}: {mv} illegal");
        let mut legal = Vec::new();
        pos.legal_moves(&mut legal);
        let legal_actions: Vec<usize> = legal.iter().map(|&m| pos.move_to_action(m)).collect();
        let mass: f32 = ply.policy_f32().map(|(_, p)| p).sum();
        assert!((mass - 1.0).abs() < 1e-3, "ply {i}: π sums to {mass}");
        for (a, _) in ply.policy_f32() {
            assert!(
                legal_actions.contains(&(a as usize)),
                "π on illegal action {a}"
            );
        }
        assert!((-1.0..=1.0).contains(&ply.root_value));
        h.play(mv).unwrap();
    }
    if rec.flags.resigned {
        return;
    }
    match h.outcome() {
        Some(o) => {
            let expect = GameResult::from_outcome(o, h.current().side_to_move());
            assert_eq!(rec.result, expect);
        }
        None => assert!(rec.flags.truncated && rec.result == GameResult::Draw),
    }
}

#[test]
fn selfplay_records_replay_legally_with_normalised_policy() {
    let start = Connect4::new(&Connect4Config);
    let mut recs = Vec::new();
    let stats = play_selfplay_games(&start, &UniformEvaluator, &c4_config(7), 6, 0, |r| {
        recs.push(r)
    })
    .unwrap();
    assert_eq!(recs.len(), 6);
    assert_eq!(stats.games, 6);
    assert_eq!(stats.first_wins + stats.draws + stats.second_wins, 6);
    assert_eq!(
        stats.plies,
        recs.iter().map(|r| r.plies.len() as u64).sum::<u64>()
    );
    // Leaves of several games share evaluator calls.
    assert!(
        stats.mean_batch() > 1.5,
        "mean batch {}",
        stats.mean_batch()
    );
    for r in &recs {
        check_record(&start, r);
        assert!(r.plies.iter().all(|p| p.simulations > 0));
    }
}

#[test]
fn selfplay_policy_has_no_weight_on_moves_the_solver_proved_losing() {
    // First has a, b, c on the bottom row; second (to move) must block d, every other
    // move loses to d1 and is proven so by the search (terminal check + solver).
    let start = Connect4::from_moves("17273").unwrap();
    let mut cfg = c4_config(5);
    cfg.simulations = 200;
    cfg.search.terminal_check = true;
    cfg.search.solver = true;
    cfg.parallel_games = 2;
    let mut recs = Vec::new();
    play_selfplay_games(&start, &UniformEvaluator, &cfg, 2, 0, |r| recs.push(r)).unwrap();
    for r in &recs {
        let first = &r.plies[0];
        let pi: Vec<(u16, f32)> = first.policy_f32().collect();
        assert_eq!(pi, vec![(3, 1.0)], "π of the forced block");
        assert_eq!(first.action, 3);
    }
}

#[test]
fn selfplay_is_deterministic_for_a_seed_and_differs_across_seeds() {
    let start = Connect4::new(&Connect4Config);
    let run = |seed| {
        let mut recs = Vec::new();
        play_selfplay_games(&start, &UniformEvaluator, &c4_config(seed), 4, 0, |r| {
            recs.push(r)
        })
        .unwrap();
        recs.sort_by_key(|r| r.plies.iter().map(|p| p.action).collect::<Vec<_>>());
        recs
    };
    assert_eq!(run(3), run(3));
    assert_ne!(run(3), run(4));
}

#[test]
fn playout_cap_marks_fast_moves_as_not_trained() {
    let start = Connect4::new(&Connect4Config);
    let mut cfg = c4_config(11);
    cfg.playout_cap = Some(PlayoutCap {
        fast_simulations: 4,
        full_probability: 0.25,
    });
    let mut recs = Vec::new();
    let stats =
        play_selfplay_games(&start, &UniformEvaluator, &cfg, 4, 0, |r| recs.push(r)).unwrap();
    let fast = recs
        .iter()
        .flat_map(|r| &r.plies)
        .filter(|p| p.simulations == 0)
        .count() as u64;
    let full = recs
        .iter()
        .flat_map(|r| &r.plies)
        .filter(|p| p.simulations > 0)
        .count() as u64;
    assert!(fast > 0 && full > 0, "fast {fast} full {full}");
    assert_eq!(full, stats.full_plies);
    for r in &recs {
        check_record(&start, r);
    }
}

#[test]
fn resignation_ends_games_and_no_resign_games_measure_false_resignations() {
    // A rollout evaluator gives decisive values; a threshold of -0.2 makes resignations common.
    let start = Connect4::new(&Connect4Config);
    let mut cfg = c4_config(5);
    cfg.resign = Some(Resignation {
        threshold: -0.2,
        min_ply: 4,
        no_resign_fraction: 0.5,
    });
    let mut recs = Vec::new();
    let stats = play_selfplay_games(&start, &RolloutEvaluator::new(2, 1), &cfg, 12, 0, |r| {
        recs.push(r)
    })
    .unwrap();
    let resigned: Vec<&GameRecord> = recs.iter().filter(|r| r.flags.resigned).collect();
    assert!(!resigned.is_empty());
    assert_eq!(resigned.len() as u64, stats.resigned);
    for r in &resigned {
        assert!(!r.flags.no_resign);
        assert_ne!(r.result, GameResult::Draw);
        assert!(r.plies.len() >= 4);
    }
    for r in recs.iter().filter(|r| r.flags.no_resign) {
        assert!(!r.flags.resigned);
    }
    assert!(stats.false_resign <= stats.would_resign);
}

/// The games of one `play_selfplay_games` call, in the order it handed them over.
fn single_call(cfg: &SelfPlayConfig, games: u64, first: u64) -> Vec<GameRecord> {
    let start = Connect4::new(&Connect4Config);
    let mut recs = Vec::new();
    play_selfplay_games(&start, &UniformEvaluator, cfg, games, first, |r| {
        recs.push(r)
    })
    .unwrap();
    recs
}

#[test]
fn parallel_selfplay_with_one_worker_is_the_single_threaded_actor() {
    let start = Connect4::new(&Connect4Config);
    let cfg = c4_config(21);
    let mut recs = Vec::new();
    let stats = play_selfplay_games_parallel(
        &start,
        1,
        |_| UniformEvaluator,
        &cfg,
        5,
        3,
        |r| recs.push(r),
    )
    .unwrap();
    assert_eq!(recs, single_call(&cfg, 5, 3));
    assert_eq!(stats.worker_time, stats.total_time);
}

#[test]
fn parallel_selfplay_workers_play_contiguous_shares_handed_over_round_robin() {
    // 7 games over 3 workers: shares of 3, 2, 2 games (indices 10–12, 13–14, 15–16), each
    // with ⌈4 / 3⌉ = 2 games at once, as one single-threaded call each would play them.
    let start = Connect4::new(&Connect4Config);
    let cfg = c4_config(9);
    let per_worker = SelfPlayConfig {
        parallel_games: 2,
        ..cfg.clone()
    };
    let shares = [
        single_call(&per_worker, 3, 10),
        single_call(&per_worker, 2, 13),
        single_call(&per_worker, 2, 15),
    ];
    let mut expected = Vec::new();
    for k in 0..3 {
        for share in &shares {
            if let Some(r) = share.get(k) {
                expected.push(r.clone());
            }
        }
    }
    let made = AtomicUsize::new(0);
    let mut recs = Vec::new();
    let stats = play_selfplay_games_parallel(
        &start,
        3,
        |_| {
            made.fetch_add(1, Ordering::Relaxed);
            UniformEvaluator
        },
        &cfg,
        7,
        10,
        |r| recs.push(r),
    )
    .unwrap();
    assert_eq!(made.load(Ordering::Relaxed), 3, "one evaluator per worker");
    assert_eq!(recs, expected);
    assert_eq!(stats.games, 7);
    assert_eq!(
        stats.plies,
        recs.iter().map(|r| r.plies.len() as u64).sum::<u64>()
    );
    for r in &recs {
        check_record(&start, r);
    }
}

#[test]
fn parallel_selfplay_is_deterministic_for_a_seed_and_worker_count() {
    let start = Connect4::new(&Connect4Config);
    let run = |workers| {
        let mut recs = Vec::new();
        play_selfplay_games_parallel(
            &start,
            workers,
            |_| UniformEvaluator,
            &c4_config(4),
            6,
            0,
            |r| recs.push(r),
        )
        .unwrap();
        recs
    };
    assert_eq!(run(2), run(2));
    assert_eq!(run(2).len(), 6);
}

/// An evaluator that records the size of the rayon pool it runs in.
struct PoolProbe(Arc<Mutex<Vec<usize>>>);

impl Evaluator<Connect4> for PoolProbe {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, Connect4>],
        policy_logits: &mut [f32],
        values: &mut [f32],
    ) -> Result<(), EvalError> {
        self.0.lock().unwrap().push(rayon::current_num_threads());
        UniformEvaluator.evaluate(batch, policy_logits, values)
    }
}

#[test]
fn parallel_selfplay_workers_run_their_evaluators_on_one_thread_each() {
    let start = Connect4::new(&Connect4Config);
    let pools: Vec<Arc<Mutex<Vec<usize>>>> = (0..2).map(|_| Arc::default()).collect();
    play_selfplay_games_parallel(
        &start,
        2,
        |w| PoolProbe(pools[w].clone()),
        &c4_config(2),
        4,
        0,
        |_| {},
    )
    .unwrap();
    for (w, p) in pools.iter().enumerate() {
        let sizes = p.lock().unwrap();
        assert!(!sizes.is_empty(), "worker {w} evaluated nothing");
        assert!(
            sizes.iter().all(|&n| n == 1),
            "worker {w}: pools of {sizes:?}"
        );
    }
}

#[test]
fn worker_count_never_exceeds_games_or_games_at_once() {
    assert_eq!(worker_count(4, 2, 8), 2);
    assert_eq!(worker_count(4, 10, 3), 3);
    assert_eq!(worker_count(3, 10, 8), 3);
    assert!(worker_count(0, 1000, 1000) >= 1);
    assert_eq!(worker_count(0, 0, 8), 1);
}

/// Restart positions from Connect Four move strings (1-based columns), each with the prefix
/// lengths to restart from.
fn positions(lines: &[(&str, &[usize])]) -> Arc<RestartPositions> {
    let mut p = RestartPositions::new();
    for (moves, lens) in lines {
        let line: Vec<u16> = moves.bytes().map(|b| u16::from(b - b'1')).collect();
        p.add_line(line, lens.iter().copied());
    }
    Arc::new(p)
}

#[test]
fn restart_positions_keep_only_positions_inside_the_line() {
    let p = positions(&[("4455", &[0, 1, 3, 4, 9]), ("7", &[1]), ("12", &[2])]);
    // 0 (the start) and 4 (after the last move, the final position) and beyond are left out,
    // and so are lines with nothing left.
    assert_eq!(p.len(), 2);
    assert_eq!(p.get(0), Some(&[3u16][..]));
    assert_eq!(p.get(1), Some(&[3u16, 3, 4][..]));
    assert_eq!(p.get(2), None);
}

#[test]
fn a_restarted_game_starts_from_exactly_the_chosen_prefix_and_plays_its_own_game() {
    let start = Connect4::new(&Connect4Config);
    let mut cfg = c4_config(13);
    cfg.restarts = Restarts {
        share: 1.0,
        positions: positions(&[("4433", &[3])]),
    };
    let mut recs = Vec::new();
    let stats =
        play_selfplay_games(&start, &UniformEvaluator, &cfg, 4, 0, |r| recs.push(r)).unwrap();
    assert_eq!((stats.games, stats.restarted), (4, 4));
    let from = Connect4::from_moves("443").unwrap();
    for r in &recs {
        assert_eq!(r.prefix, vec![3, 3, 2]);
        check_record(&start, r);
        // The first ply is searched in the restart position: its π covers that position's
        // moves and its move is legal there.
        assert_first_ply_searched_in(&from, r);
        assert!(r.plies[0].simulations > 0);
        // The result is the one the rules give at the end of prefix + plies.
        let mut h = History::new(start);
        for a in r.actions() {
            h.play(h.current().action_to_move(a as usize).unwrap())
                .unwrap();
        }
        if let Some(o) = h.outcome() {
            assert_eq!(
                r.result,
                GameResult::from_outcome(o, h.current().side_to_move())
            );
        }
    }
    // Plies count from the start position: the game is cut at max_plies moves in all.
    let mut capped = cfg.clone();
    capped.max_plies = 5;
    for r in single_call(&capped, 2, 0) {
        assert_eq!(r.prefix.len() + r.plies.len(), 5, "{r:?}");
        assert!(r.flags.truncated);
    }
}

#[test]
fn restarts_with_share_zero_or_no_positions_play_the_same_games_as_without() {
    let plain = c4_config(17);
    let baseline = single_call(&plain, 6, 2);
    let unused = SelfPlayConfig {
        restarts: Restarts {
            share: 0.0,
            positions: positions(&[("4433", &[1, 2, 3])]),
        },
        ..plain.clone()
    };
    let empty = SelfPlayConfig {
        restarts: Restarts {
            share: 0.5,
            positions: Arc::default(),
        },
        ..plain.clone()
    };
    assert_eq!(single_call(&unused, 6, 2), baseline);
    assert_eq!(single_call(&empty, 6, 2), baseline);
    assert!(baseline.iter().all(|r| r.prefix.is_empty()));
}

#[test]
fn which_games_restart_depends_on_the_seed_and_game_index_not_the_worker_count() {
    let start = Connect4::new(&Connect4Config);
    let mut cfg = c4_config(23);
    cfg.restarts = Restarts {
        share: 0.5,
        positions: positions(&[("44332", &[1, 2, 3, 4]), ("1726", &[2, 3])]),
    };
    let run = |workers| {
        let mut prefixes = Vec::new();
        play_selfplay_games_parallel(
            &start,
            workers,
            |_| UniformEvaluator,
            &cfg,
            16,
            0,
            |r| {
                check_record(&start, &r);
                prefixes.push(r.prefix);
            },
        )
        .unwrap();
        prefixes.sort();
        prefixes
    };
    let one = run(1);
    assert_eq!(one, run(2));
    let restarted = one.iter().filter(|p| !p.is_empty()).count();
    assert!((3..=13).contains(&restarted), "{restarted} of 16 restarted");
    // Each drawn prefix is one of the positions.
    for p in one.iter().filter(|p| !p.is_empty()) {
        assert!((0..cfg.restarts.positions.len()).any(|i| cfg.restarts.positions.get(i) == Some(p)));
    }
}

#[test]
fn a_restart_position_whose_moves_do_not_replay_is_an_error_naming_the_move() {
    let start = Connect4::new(&Connect4Config);
    let mut cfg = c4_config(1);
    // Column 1 holds six discs after six moves: the seventh is illegal.
    cfg.restarts = Restarts {
        share: 1.0,
        positions: positions(&[("11111111", &[7])]),
    };
    match play_selfplay_games(&start, &UniformEvaluator, &cfg, 1, 0, |_| {}) {
        Err(SelfPlayError::Restart { ply, action, .. }) => assert_eq!((ply, action), (6, 0)),
        other => panic!("{other:?}"),
    }
    // A position after which the game is over (four in column 1) is refused too.
    cfg.restarts.positions = positions(&[("12121213", &[7])]);
    match play_selfplay_games(&start, &UniformEvaluator, &cfg, 1, 0, |_| {}) {
        Err(SelfPlayError::Restart { ply, reason, .. }) => {
            assert_eq!(ply, 6);
            assert!(reason.contains("ends the game"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    cfg.restarts.share = 1.5;
    assert!(matches!(
        play_selfplay_games(&start, &UniformEvaluator, &cfg, 1, 0, |_| {}),
        Err(SelfPlayError::Invalid {
            field: "restarts.share",
            ..
        })
    ));
}

/// The first ply of `rec` was searched in `from`: its π covers only `from`'s legal moves.
fn assert_first_ply_searched_in(from: &Connect4, rec: &GameRecord) {
    let legal: Vec<usize> = from
        .legal_moves_vec()
        .into_iter()
        .map(|m| from.move_to_action(m))
        .collect();
    assert!(rec.plies[0]
        .policy
        .iter()
        .all(|&(a, _)| legal.contains(&(a as usize))));
}

/// Connect Four positions given by their move digits, each with that text.
fn random_positions(lines: &[&str]) -> Vec<(Connect4, String)> {
    lines
        .iter()
        .map(|l| (Connect4::from_moves(l).unwrap(), l.to_string()))
        .collect()
}

#[test]
fn a_random_start_game_plays_from_its_position_and_records_its_text() {
    let start = Connect4::new(&Connect4Config);
    let random = random_positions(&["44", "123"]);
    let starts = Starts {
        start: &start,
        random_share: 1.0,
        random: &random,
    };
    let cfg = c4_config(31);
    let mut recs = Vec::new();
    let stats =
        play_selfplay_games(starts, &UniformEvaluator, &cfg, 6, 0, |r| recs.push(r)).unwrap();
    assert_eq!(
        (stats.games, stats.random_starts, stats.restarted),
        (6, 6, 0)
    );
    for r in &recs {
        let (from, _) = random
            .iter()
            .find(|(_, text)| *text == r.start)
            .unwrap_or_else(|| panic!("start {:?} is none of the random starts", r.start));
        assert!(r.prefix.is_empty());
        // π of the first ply covers the random start's moves, and the game replays from it.
        assert_first_ply_searched_in(from, r);
        check_record(from, r);
    }
}

#[test]
fn which_games_start_at_random_depends_on_the_seed_and_game_index_not_the_worker_count() {
    let start = Connect4::new(&Connect4Config);
    let random = random_positions(&["4", "45", "7", "1234"]);
    let starts = Starts {
        start: &start,
        random_share: 0.5,
        random: &random,
    };
    let cfg = c4_config(29);
    let run = |workers| {
        let mut texts = Vec::new();
        play_selfplay_games_parallel(
            starts,
            workers,
            |_| UniformEvaluator,
            &cfg,
            16,
            0,
            |r| texts.push(r.start),
        )
        .unwrap();
        texts.sort();
        texts
    };
    let one = run(1);
    assert_eq!(one, run(2));
    let random_games = one.iter().filter(|t| !t.is_empty()).count();
    assert!((3..=13).contains(&random_games), "{random_games} of 16");
    // Another seed draws other games.
    let other = SelfPlayConfig {
        seed: 30,
        ..cfg.clone()
    };
    let mut texts = Vec::new();
    play_selfplay_games(starts, &UniformEvaluator, &other, 16, 0, |r| {
        texts.push(r.start)
    })
    .unwrap();
    texts.sort();
    assert_ne!(texts, one);
}

#[test]
fn random_starts_with_share_zero_or_no_positions_play_the_same_games_as_without() {
    let start = Connect4::new(&Connect4Config);
    let cfg = c4_config(17);
    let baseline = single_call(&cfg, 6, 2);
    let random = random_positions(&["44"]);
    for (share, random) in [(0.0, &random[..]), (0.7, &[][..])] {
        let starts = Starts {
            start: &start,
            random_share: share,
            random,
        };
        let mut recs = Vec::new();
        play_selfplay_games(starts, &UniformEvaluator, &cfg, 6, 2, |r| recs.push(r)).unwrap();
        assert_eq!(recs, baseline, "share {share}");
    }
    assert!(baseline.iter().all(|r| r.start.is_empty()));
}

#[test]
fn a_restarted_game_never_starts_from_a_random_position() {
    // Restart lines are moves from the start position: a game that restarts plays them
    // from there, whatever the random-start share.
    let start = Connect4::new(&Connect4Config);
    let random = random_positions(&["7777"]);
    let starts = Starts {
        start: &start,
        random_share: 1.0,
        random: &random,
    };
    let mut cfg = c4_config(5);
    cfg.restarts = Restarts {
        share: 1.0,
        positions: positions(&[("4433", &[2])]),
    };
    let mut recs = Vec::new();
    let stats =
        play_selfplay_games(starts, &UniformEvaluator, &cfg, 3, 0, |r| recs.push(r)).unwrap();
    assert_eq!((stats.restarted, stats.random_starts), (3, 0));
    for r in &recs {
        assert!(r.start.is_empty());
        check_record(&start, r);
    }
    let bad = Starts {
        random_share: 1.5,
        ..starts
    };
    assert!(matches!(
        play_selfplay_games(bad, &UniformEvaluator, &cfg, 1, 0, |_| {}),
        Err(SelfPlayError::Invalid {
            field: "random_starts.share",
            ..
        })
    ));
}
