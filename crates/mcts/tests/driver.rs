//! The search driver itself: each stop condition, batched vs single-tree equivalence with a
//! deterministic evaluator, and the error rule.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use alphazero_connect4::Connect4;
use alphazero_game::Game;
use alphazero_gomoku::{Gomoku, GomokuConfig, Rule};
use alphazero_mcts::{
    run_many, Control, Driver, EvalError, EvalRequest, Evaluator, RunLimits, Search, SearchBudget,
    SearchConfig, SearchResult,
};
use common::HashEvaluator;

fn cfg(simulations: u32, leaves_per_batch: u32, seed: u64) -> (SearchConfig, SearchBudget) {
    let (config, budget) = uncapped(leaves_per_batch, seed);
    let budget = SearchBudget {
        simulations: Some(simulations),
        ..budget
    };
    (config, budget)
}

/// A search without a simulation cap: only the run's limits or its callback end it.
fn uncapped(leaves_per_batch: u32, seed: u64) -> (SearchConfig, SearchBudget) {
    let config = SearchConfig {
        leaves_per_batch,
        ..SearchConfig::default()
    };
    let budget = SearchBudget {
        simulations: None,
        root_noise: false,
        seed,
    };
    (config, budget)
}

/// Connect Four after `moves` (columns 1–7), a fresh tree.
fn tree(moves: &str, (config, budget): (SearchConfig, SearchBudget)) -> Search<Connect4> {
    let pos = if moves.is_empty() {
        Connect4::default()
    } else {
        Connect4::from_moves(moves).unwrap()
    };
    Search::new(pos, Vec::new(), config, budget).unwrap()
}

/// Everything a result says, for equality between two searches.
fn same<G: Game>(a: &SearchResult<G>, b: &SearchResult<G>) -> bool {
    a.best_move == b.best_move
        && a.policy == b.policy
        && a.root_value == b.root_value
        && a.pv == b.pv
        && a.children == b.children
        && a.simulations == b.simulations
        && a.root_visits == b.root_visits
}

/// A run of `trees` stopped by its callback after `rounds` evaluating rounds.
fn run_rounds<G: Game>(trees: &mut [Search<G>], rounds: u64) {
    Driver::new()
        .run(trees, &HashEvaluator, &mut RunLimits::default(), |p, _| {
            if p.rounds() == rounds {
                Control::Stop
            } else {
                Control::Continue
            }
        })
        .unwrap();
}

fn never_stop<G: Game, S>(_: &alphazero_mcts::Progress<'_, G, S>, _: &mut RunLimits) -> Control {
    Control::Continue
}

#[test]
fn each_tree_stops_at_its_own_simulation_budget_when_batched() {
    let mut trees = vec![
        tree("", cfg(40, 4, 1)),
        tree("44", cfg(130, 8, 2)),
        tree("4435", cfg(7, 3, 3)),
    ];
    let results = run_many(&mut trees, &HashEvaluator).unwrap();
    let sims: Vec<u32> = results.iter().map(|r| r.simulations).collect();
    assert_eq!(sims, vec![40, 130, 7]);
    assert!(trees.iter().all(|t| t.is_done() && t.num_pending() == 0));
}

#[test]
fn batched_run_gives_each_tree_the_result_it_gets_alone() {
    let specs = [
        ("", 200, 8),
        ("44", 150, 4),
        ("4435", 90, 1),
        ("123", 60, 16),
    ];
    let limits = RunLimits {
        nodes: Some(120),
        ..RunLimits::default()
    };
    let mut batched: Vec<Search<Connect4>> = specs
        .iter()
        .enumerate()
        .map(|(i, &(m, s, k))| tree(m, cfg(s, k, i as u64)))
        .collect();
    Driver::new()
        .run(
            &mut batched,
            &HashEvaluator,
            &mut limits.clone(),
            never_stop,
        )
        .unwrap();
    for (i, &(m, s, k)) in specs.iter().enumerate() {
        let alone = tree(m, cfg(s, k, i as u64))
            .run_with(&HashEvaluator, limits)
            .unwrap();
        assert!(same(&alone, &batched[i].result()), "tree {i} ({m:?})");
    }
}

#[test]
fn stepping_rounds_by_hand_equals_a_run() {
    // Self-play drives `Driver::round` itself between moves; a tree stepped that way to the
    // end of its budget has the result of `Search::run`.
    let mut stepped = vec![tree("", cfg(100, 8, 5)), tree("7", cfg(60, 2, 6))];
    for t in stepped.iter_mut() {
        t.begin_run();
    }
    let mut driver = Driver::new();
    let mut positions = 0;
    while !stepped.iter().all(Search::is_done) {
        positions += driver
            .round(&mut stepped, &HashEvaluator)
            .unwrap()
            .positions;
    }
    let run = [
        tree("", cfg(100, 8, 5)).run(&HashEvaluator).unwrap(),
        tree("7", cfg(60, 2, 6)).run(&HashEvaluator).unwrap(),
    ];
    for (s, r) in stepped.iter().zip(&run) {
        assert!(same(&s.result(), r));
    }
    // Two root evaluations and one evaluation per simulation (no terminal leaf this early).
    assert_eq!(positions, 2 + 100 + 60);
}

#[test]
fn node_cap_stops_a_tree_within_one_round_of_the_cap() {
    for k in [1, 4, 8] {
        let mut t = tree("", cfg(10_000, k, 0));
        let r = t
            .run_with(
                &HashEvaluator,
                RunLimits {
                    nodes: Some(50),
                    ..RunLimits::default()
                },
            )
            .unwrap();
        let size = t.tree_size();
        assert!((50..50 + k as usize).contains(&size), "k {k}: {size} nodes");
        assert!(r.simulations < 10_000);
    }
}

#[test]
fn depth_goal_stops_at_the_first_round_whose_pv_is_long_enough() {
    let limits = RunLimits {
        depth: Some(4),
        ..RunLimits::default()
    };
    let r = tree("", cfg(10_000, 1, 9))
        .run_with(&HashEvaluator, limits)
        .unwrap();
    assert!(r.pv.len() >= 4, "{:?}", r.pv);
    assert!(r.simulations < 10_000);
    // One simulation fewer (one leaf a round): the PV was still shorter.
    let before = tree("", cfg(r.simulations - 1, 1, 9))
        .run(&HashEvaluator)
        .unwrap();
    assert!(before.pv.len() < 4, "{:?}", before.pv);
}

#[test]
fn a_passed_deadline_still_gives_one_round_of_simulations() {
    // Round 1 evaluates the root (no simulation yet), round 2 the first leaves; the deadline,
    // already passed, stops the run right after.
    for k in [1, 8] {
        let r = tree("", uncapped(k, 0))
            .run_with(
                &HashEvaluator,
                RunLimits {
                    deadline: Some(Instant::now()),
                    ..RunLimits::default()
                },
            )
            .unwrap();
        let mut two_rounds = [tree("", uncapped(k, 0))];
        run_rounds(&mut two_rounds, 2);
        assert!(r.simulations >= 1, "k {k}");
        assert!(same(&r, &two_rounds[0].result()), "k {k}");
    }
}

#[test]
fn callback_sees_every_evaluating_round_and_may_stop_the_run_or_set_a_deadline() {
    let mut seen = Vec::new();
    let mut t = [tree("", uncapped(4, 0))];
    Driver::new()
        .run(&mut t, &HashEvaluator, &mut RunLimits::default(), |p, _| {
            seen.push((
                p.rounds(),
                p.last_round().positions,
                p.tree(0).simulations_done(),
            ));
            if p.rounds() == 3 {
                Control::Stop
            } else {
                Control::Continue
            }
        })
        .unwrap();
    assert_eq!(seen, vec![(1, 1, 0), (2, 4, 4), (3, 4, 8)]);
    assert_eq!(t[0].result().simulations, 8);
    // A deadline set by the callback (a ponder hit) is read by the checks after it.
    let mut t = [tree("", uncapped(4, 0))];
    Driver::new()
        .run(&mut t, &HashEvaluator, &mut RunLimits::default(), |p, l| {
            if p.rounds() == 5 {
                l.deadline = Some(Instant::now());
            }
            Control::Continue
        })
        .unwrap();
    assert_eq!(t[0].result().simulations, 16);
}

/// [`HashEvaluator`] that fails its `fail_on`-th call (1-based), or, with `nan_for`, returns a
/// NaN value for that position in that call instead.
struct Faulty {
    fail_on: usize,
    nan_for: Option<u64>,
    calls: AtomicUsize,
}

impl Faulty {
    fn new(fail_on: usize, nan_for: Option<u64>) -> Self {
        Faulty {
            fail_on,
            nan_for,
            calls: AtomicUsize::new(0),
        }
    }
}

impl<G: Game> Evaluator<G> for Faulty {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, G>],
        logits: &mut [f32],
        values: &mut [f32],
    ) -> Result<(), EvalError> {
        let call = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        HashEvaluator.evaluate(batch, logits, values)?;
        if call != self.fail_on {
            return Ok(());
        }
        match self.nan_for {
            None => Err(EvalError("the network is gone".into())),
            Some(hash) => {
                for (r, v) in batch.iter().zip(values.iter_mut()) {
                    if r.position.zobrist() == hash {
                        *v = f32::NAN;
                    }
                }
                Ok(())
            }
        }
    }
}

/// The two trees of the error-rule tests after `rounds` good rounds.
fn after_rounds(rounds: u64) -> Vec<Search<Connect4>> {
    let mut trees = vec![tree("", cfg(300, 8, 1)), tree("44", cfg(300, 8, 2))];
    run_rounds(&mut trees, rounds);
    trees
}

#[test]
fn evaluator_error_leaves_every_tree_as_after_the_last_good_round() {
    let mut trees = vec![tree("", cfg(300, 8, 1)), tree("44", cfg(300, 8, 2))];
    let err = run_many(&mut trees, &Faulty::new(4, None)).unwrap_err();
    assert!(err.to_string().contains("the network is gone"), "{err}");
    let twins = after_rounds(3);
    for (t, twin) in trees.iter_mut().zip(twins) {
        assert_eq!(t.num_pending(), 0);
        assert_eq!(t.root_visits(), twin.root_visits());
        // Virtual loss undone: searching on from here is searching on from the twin.
        let mut twin = twin;
        let (a, b) = (
            t.run(&HashEvaluator).unwrap(),
            twin.run(&HashEvaluator).unwrap(),
        );
        assert!(same(&a, &b));
    }
}

#[test]
fn non_finite_value_for_one_tree_applies_nothing_to_any_tree() {
    // The NaN belongs to the second tree's root (evaluated in round 1); the first tree's
    // evaluation in that same call is not applied either.
    let second_root = Connect4::from_moves("44").unwrap().zobrist();
    let mut trees = vec![tree("", cfg(300, 8, 1)), tree("44", cfg(300, 8, 2))];
    let err = run_many(&mut trees, &Faulty::new(1, Some(second_root))).unwrap_err();
    assert!(err.to_string().contains("non-finite"), "{err}");
    for t in &trees {
        assert_eq!((t.num_pending(), t.root_visits(), t.tree_size()), (0, 0, 1));
    }
}

#[test]
fn trees_with_other_action_spaces_in_one_round_are_an_error() {
    let board = |size| Gomoku::new(&GomokuConfig::new(size, Rule::Freestyle).unwrap());
    let (config, budget) = cfg(20, 4, 0);
    let mut trees = vec![
        Search::new(board(9), Vec::new(), config.clone(), budget).unwrap(),
        Search::new(board(15), Vec::new(), config, budget).unwrap(),
    ];
    let err = run_many(&mut trees, &HashEvaluator).unwrap_err();
    assert!(
        err.to_string().contains("mixed action spaces 81 and 225"),
        "{err}"
    );
    assert!(trees.iter().all(|t| t.num_pending() == 0));
}
