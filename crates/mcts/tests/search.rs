//! Search behaviour on tic-tac-toe (defined in `common`): signs, solver, batching, reuse,
//! noise, Gumbel, determinism, evaluators.

mod common;

use alphazero_game::{Game, History, Outcome};
use alphazero_mcts::{
    run_many, select_move, CachedEvaluator, EvalError, EvalRequest, Evaluator, GumbelConfig,
    RolloutEvaluator, Search, SearchBudget, SearchConfig, SearchResult, UniformEvaluator,
};
use common::{CountingEvaluator, HashEvaluator, Ttt};
use rand::rngs::StdRng;
use rand::SeedableRng;

/// The default search with `k` leaves per evaluator call.
fn cfg(k: u32) -> SearchConfig {
    SearchConfig {
        leaves_per_batch: k,
        ..Default::default()
    }
}

/// `n` simulations, no root noise, seed 0.
fn sims(n: u32) -> SearchBudget {
    SearchBudget::simulations(n)
}

/// `n` simulations with root noise, seeded with `seed`.
fn noisy(n: u32, seed: u64) -> SearchBudget {
    SearchBudget {
        simulations: Some(n),
        root_noise: true,
        seed,
    }
}

fn search<E: Evaluator<Ttt>>(
    board: &str,
    config: SearchConfig,
    budget: SearchBudget,
    e: &E,
) -> SearchResult<Ttt> {
    let mut s = Search::new(Ttt::from_str(board), Vec::new(), config, budget).unwrap();
    s.run(e).unwrap()
}

#[test]
fn win_in_one_is_taken_by_both_sides() {
    // X to move wins at 2; O to move wins at 5.
    for (board, win) in [("xx.oo....", 2u8), ("xx.oo.x..", 5u8)] {
        for solver in [true, false] {
            let c = SearchConfig { solver, ..cfg(1) };
            let r = search(board, c.clone(), sims(200), &UniformEvaluator);
            assert_eq!(r.best_move, Some(win), "{board} solver={solver}");
            let r = search(board, c, sims(200), &HashEvaluator);
            assert_eq!(r.best_move, Some(win), "{board} solver={solver}");
        }
    }
}

#[test]
fn loss_in_one_is_avoided_by_both_sides() {
    // X to move must block at 1; O to move must block at 1.
    for board in ["o.o.x....", "x.x.o...."] {
        for solver in [true, false] {
            let c = SearchConfig { solver, ..cfg(1) };
            assert_eq!(
                search(board, c.clone(), sims(400), &UniformEvaluator).best_move,
                Some(1),
                "{board}"
            );
            assert_eq!(
                search(board, c, sims(400), &HashEvaluator).best_move,
                Some(1),
                "{board}"
            );
        }
    }
}

#[test]
fn values_have_the_side_to_move_sign() {
    // X to move and winning: positive root value, and the winning child's Q is +1.
    let r = search(
        "xx.oo....",
        SearchConfig {
            solver: false,
            ..cfg(1)
        },
        sims(200),
        &UniformEvaluator,
    );
    assert!(r.root_value > 0.5, "{}", r.root_value);
    let win = r.children.iter().find(|c| c.mv == 2).unwrap();
    assert!((win.q - 1.0).abs() < 1e-6);
    assert_eq!(win.proven, Some(Outcome::Win));
    // O to move facing a double threat: negative.
    let r = search(
        "x.x.o...x",
        SearchConfig {
            solver: false,
            ..cfg(1)
        },
        sims(400),
        &UniformEvaluator,
    );
    assert!(r.root_value < -0.3, "{}", r.root_value);
}

#[test]
fn proven_win_stops_early_and_is_chosen() {
    let r = search("xx.oo....", cfg(8), sims(800), &UniformEvaluator);
    assert_eq!(r.proven, Some(Outcome::Win));
    assert_eq!(r.best_move, Some(2));
    assert_eq!(r.root_value, 1.0);
    assert!(r.simulations < 800, "{}", r.simulations);
    assert_eq!(r.policy[2], 1.0);
    let mut rng = StdRng::seed_from_u64(1);
    for _ in 0..20 {
        assert_eq!(select_move(&r, 1.0, &mut rng), Some(2));
    }
}

#[test]
fn proven_loss_propagates_from_every_reply() {
    // O to move; X threatens 1 and 5; O has no win: every move loses.
    let r = search("x.x.o...x", cfg(1), sims(800), &UniformEvaluator);
    assert_eq!(r.proven, Some(Outcome::Loss));
    assert_eq!(r.root_value, -1.0);
    assert!(r.children.iter().all(|c| c.proven == Some(Outcome::Loss)));
    assert!(r.simulations < 800);
}

#[test]
fn proven_draw_near_the_end() {
    // x o x / x o o / . x .  -> O to move (x=4, o=3); best play draws.
    let r = search("xoxxoo.x.", cfg(1), sims(800), &UniformEvaluator);
    assert_eq!(r.proven, Some(Outcome::Draw));
    assert_eq!(r.root_value, 0.0);
}

#[test]
fn batched_and_multi_tree_search_pick_the_serial_move() {
    let boards = [
        "xx.oo....",
        "xx.oo.x..",
        "o.o.x....",
        "x.x.o....",
        "x...o....",
    ];
    for board in boards {
        let serial = search(board, cfg(1), sims(400), &HashEvaluator).best_move;
        let batched = search(board, cfg(8), sims(400), &HashEvaluator).best_move;
        let mut many: Vec<_> = (0..3)
            .map(|i| {
                Search::new(
                    Ttt::from_str(board),
                    Vec::new(),
                    cfg(8),
                    SearchBudget {
                        seed: i,
                        ..sims(400)
                    },
                )
                .unwrap()
            })
            .collect();
        let rs = run_many(&mut many, &HashEvaluator).unwrap();
        if board != "x...o...." {
            assert_eq!(serial, batched, "{board}");
            for r in &rs {
                assert_eq!(r.best_move, serial, "{board}");
            }
        }
        assert!(rs
            .iter()
            .all(|r| r.simulations == 400 || r.proven.is_some()));
    }
}

#[test]
fn multi_tree_driver_matches_single_runs_and_batches_all_trees() {
    let boards = ["x...o....", ".........", "x.x.o...."];
    let mut many: Vec<_> = boards
        .iter()
        .map(|b| Search::new(Ttt::from_str(b), Vec::new(), cfg(4), sims(200)).unwrap())
        .collect();
    let counting = CountingEvaluator::default();
    let rs = run_many(&mut many, &counting).unwrap();
    for (b, r) in boards.iter().zip(&rs) {
        let single = search(b, cfg(4), sims(200), &HashEvaluator);
        assert_eq!(single.children, r.children, "{b}");
        assert_eq!(single.pv, r.pv);
    }
    let calls = counting.calls.load(std::sync::atomic::Ordering::Relaxed);
    let positions = counting
        .positions
        .load(std::sync::atomic::Ordering::Relaxed);
    // One call per round for all trees: far fewer calls than single-tree batches.
    assert!(calls * 4 < positions, "calls {calls} positions {positions}");
}

#[test]
fn search_is_deterministic_for_a_seed() {
    let a = search(".........", cfg(8), noisy(300, 42), &HashEvaluator);
    let b = search(".........", cfg(8), noisy(300, 42), &HashEvaluator);
    assert_eq!(a.children, b.children);
    assert_eq!(a.pv, b.pv);
    let d = search(".........", cfg(8), noisy(300, 43), &HashEvaluator);
    assert_ne!(a.children, d.children);
}

#[test]
fn tree_reuse_keeps_the_child_statistics() {
    let mut s = Search::new(Ttt::from_str("........."), Vec::new(), cfg(4), sims(400)).unwrap();
    let r = s.run(&HashEvaluator).unwrap();
    let mv = r.best_move.unwrap();
    let child = r.children.iter().find(|c| c.mv == mv).unwrap().clone();
    s.advance(mv).unwrap();
    assert_eq!(s.root_visits(), child.visits);
    assert_eq!(s.history().len(), 1);
    let r2 = s.result();
    assert_eq!(
        r2.children.iter().map(|c| c.visits).sum::<u32>() + 1,
        child.visits
    );
    assert!((r2.root_value + child.q).abs() < 1e-5, "value flips sign");
    let r3 = s.run(&HashEvaluator).unwrap();
    assert_eq!(r3.simulations, 400);
    assert_eq!(r3.root_visits, child.visits + 400);
    // A move that was never expanded still works; an illegal one is refused.
    assert!(s.advance(mv).is_err(), "occupied point");
    let before = s.root_position().clone();
    let legal = before.legal_moves_vec()[0];
    s.advance(legal).unwrap();
    assert_eq!(s.history().len(), 2);
}

#[test]
fn repetition_history_reaches_the_tree() {
    let mut h = History::new(Ttt::from_str("........."));
    h.play(4).unwrap();
    let s = Search::from_history(&h, cfg(1), sims(10)).unwrap();
    assert_eq!(s.history(), h.entries());
}

#[test]
fn policy_temperature_flattens_the_priors_as_a_softmax_of_logits_over_t() {
    // softmax(l / 2) ∝ softmax(l)^(1/2): the priors at T = 2 are the square roots of the
    // priors at T = 1, renormalised.
    let board = "x...o..x.";
    let plain = search(board, cfg(1), sims(30), &HashEvaluator);
    let flat = search(
        board,
        SearchConfig {
            policy_temperature: 2.0,
            ..cfg(1)
        },
        sims(30),
        &HashEvaluator,
    );
    let norm: f32 = plain.children.iter().map(|c| c.prior.sqrt()).sum();
    for (p, f) in plain.children.iter().zip(&flat.children) {
        assert_eq!(p.mv, f.mv);
        let want = p.prior.sqrt() / norm;
        assert!((f.prior - want).abs() < 1e-5, "{} vs {want}", f.prior);
    }
    let spread = |r: &alphazero_mcts::SearchResult<Ttt>| {
        let (lo, hi) = r.children.iter().fold((1.0f32, 0.0f32), |(lo, hi), c| {
            (lo.min(c.prior), hi.max(c.prior))
        });
        hi - lo
    };
    assert!(spread(&flat) < spread(&plain));
    let bad = SearchConfig {
        policy_temperature: 0.0,
        ..cfg(1)
    };
    assert!(bad.validate().is_err());
}

#[test]
fn dirichlet_noise_covers_only_legal_moves_and_sums_to_one() {
    let board = "x...o..x.";
    let clean = search(board, cfg(1), sims(50), &HashEvaluator);
    let noisy = search(board, cfg(1), noisy(50, 3), &HashEvaluator);
    let legal = Ttt::from_str(board).legal_moves_vec();
    assert_eq!(noisy.children.len(), legal.len());
    assert!(noisy.children.iter().all(|c| legal.contains(&c.mv)));
    let sum: f32 = noisy.children.iter().map(|c| c.prior).sum();
    assert!((sum - 1.0).abs() < 1e-5, "{sum}");
    assert!(noisy
        .children
        .iter()
        .zip(&clean.children)
        .any(|(a, b)| (a.prior - b.prior).abs() > 1e-3));
    // The free function too.
    let mut p = vec![0.5, 0.25, 0.25];
    alphazero_mcts::dirichlet_noise(&mut p, 0.3, 0.25, &mut StdRng::seed_from_u64(0));
    assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    assert!(p.iter().all(|&x| x > 0.0));
}

#[test]
fn gumbel_root_takes_the_win_and_gives_an_improved_policy() {
    let g = SearchConfig {
        gumbel: Some(GumbelConfig::default()),
        solver: false,
        ..cfg(4)
    };
    let r = search("xx.oo.x..", g.clone(), sims(64), &HashEvaluator);
    assert_eq!(r.best_move, Some(5));
    let sum: f32 = r.policy.iter().sum();
    assert!((sum - 1.0).abs() < 1e-5);
    assert_eq!(r.policy.iter().cloned().fold(0.0, f32::max), r.policy[5]);
    let r = search("o.o.x....", g, sims(64), &UniformEvaluator);
    assert_eq!(r.best_move, Some(1));
}

#[test]
fn gumbel_root_policy_target_ignores_policy_temperature() {
    // One visit to each of 4 sampled actions: every Q is a child's own evaluation, so T (which
    // flattens the priors below the root) must change neither the choice nor the improved
    // policy, which are built from the network's logits.
    let at = |t: f32| SearchConfig {
        gumbel: Some(GumbelConfig {
            num_sampled_actions: 4,
            ..Default::default()
        }),
        solver: false,
        policy_temperature: t,
        ..cfg(1)
    };
    let plain = search("x...o....", at(1.0), sims(4), &HashEvaluator);
    let flat = search("x...o....", at(2.0), sims(4), &HashEvaluator);
    assert_eq!(plain.best_move, flat.best_move);
    for (a, b) in plain.policy.iter().zip(&flat.policy) {
        assert!(
            (a - b).abs() < 1e-4,
            "{:?} vs {:?}",
            plain.policy,
            flat.policy
        );
    }
}

#[test]
fn gumbel_visits_follow_sequential_halving() {
    let g = SearchConfig {
        gumbel: Some(GumbelConfig {
            num_sampled_actions: 4,
            ..Default::default()
        }),
        solver: false,
        ..cfg(1)
    };
    let r = search(".........", g, sims(8), &HashEvaluator);
    let mut visits: Vec<u32> = r
        .children
        .iter()
        .map(|c| c.visits)
        .filter(|&v| v > 0)
        .collect();
    visits.sort_unstable();
    assert_eq!(visits, vec![1, 1, 3, 3]);
}

#[test]
fn select_move_respects_temperature() {
    let r = search("x...o....", cfg(1), sims(300), &HashEvaluator);
    let mut rng = StdRng::seed_from_u64(9);
    assert_eq!(select_move(&r, 0.0, &mut rng), r.best_move);
    let visited: Vec<u8> = r
        .children
        .iter()
        .filter(|c| c.visits > 0)
        .map(|c| c.mv)
        .collect();
    let mut seen = std::collections::HashSet::new();
    for _ in 0..200 {
        let m = select_move(&r, 1.0, &mut rng).unwrap();
        assert!(visited.contains(&m));
        seen.insert(m);
    }
    assert!(seen.len() > 1);
}

#[test]
fn terminal_root_gives_no_move() {
    let mut s = Search::new(Ttt::from_str("xxxoo...."), Vec::new(), cfg(1), sims(10)).unwrap();
    let r = s.run(&UniformEvaluator).unwrap();
    assert_eq!(r.best_move, None);
    assert_eq!(r.proven, Some(Outcome::Loss));
}

struct Broken;
impl Evaluator<Ttt> for Broken {
    fn evaluate(
        &self,
        _: &[EvalRequest<'_, Ttt>],
        _: &mut [f32],
        values: &mut [f32],
    ) -> Result<(), EvalError> {
        values.fill(f32::NAN);
        Ok(())
    }
}

#[test]
fn non_finite_values_are_an_error_not_a_panic() {
    let mut s = Search::new(Ttt::from_str("........."), Vec::new(), cfg(1), sims(10)).unwrap();
    assert!(s.run(&Broken).is_err());
    assert!(s.apply_evaluations(&[0.0; 3], &[0.0]).is_err());
}

#[test]
fn invalid_budget_is_refused() {
    let new = |config, budget| Search::new(Ttt::from_str("........."), Vec::new(), config, budget);
    let e = new(cfg(1), sims(0)).err().unwrap();
    assert_eq!(e.field, "simulations");
    // No cap is a budget (a search limited by time), but not for a Gumbel root, whose
    // sequential halving is planned over the run's simulations.
    let uncapped = SearchBudget {
        simulations: None,
        ..sims(1)
    };
    assert!(new(cfg(1), uncapped).is_ok());
    let gumbel = SearchConfig {
        gumbel: Some(GumbelConfig::default()),
        ..cfg(1)
    };
    let e = new(gumbel.clone(), uncapped).err().unwrap();
    assert_eq!(e.field, "simulations");
    let mut s = new(gumbel, sims(10)).unwrap();
    assert_eq!(s.set_budget(uncapped).unwrap_err().field, "simulations");
    assert_eq!(s.budget(), &sims(10), "a refused budget changes nothing");
}

#[test]
fn cached_evaluator_gives_the_same_search_and_counts_hits() {
    let cached = CachedEvaluator::new(HashEvaluator, 10_000);
    let a = search("x...o....", cfg(4), sims(300), &cached);
    let b = search("x...o....", cfg(4), sims(300), &HashEvaluator);
    assert_eq!(a.children, b.children);
    let misses = cached.misses();
    let _ = search("x...o....", cfg(4), sims(300), &cached);
    assert_eq!(
        cached.misses(),
        misses,
        "second search is served from the cache"
    );
    assert!(cached.hits() >= misses);
    let small = CachedEvaluator::new(HashEvaluator, 16);
    let _ = search("x...o....", cfg(4), sims(300), &small);
    assert!(small.len() <= 16);
}

#[test]
fn rollout_evaluator_is_deterministic_and_finds_the_block() {
    let r = RolloutEvaluator::new(1, 5);
    let a = search("o.o.x....", cfg(8), sims(300), &r);
    let b = search("o.o.x....", cfg(8), sims(300), &r);
    assert_eq!(a.children, b.children);
    assert_eq!(a.best_move, Some(1));
    let mut values = [0.0];
    let mut logits = [0.0; 9];
    let p = Ttt::from_str("xx.oo....");
    let req = [EvalRequest {
        position: &p,
        history: &[],
    }];
    RolloutEvaluator::new(50, 1)
        .evaluate(&req, &mut logits, &mut values)
        .unwrap();
    assert!(values[0] > 0.0, "X to move can win: {}", values[0]);
}

#[test]
fn pv_from_each_root_move_follows_best_children_and_matches_the_result_pv_for_the_best_move() {
    let mut s = Search::new(Ttt::from_str("x...o...."), Vec::new(), cfg(4), sims(300)).unwrap();
    let r = s.run(&HashEvaluator).unwrap();
    let best = r.best_move.unwrap();
    assert_eq!(s.pv_from(best).as_deref(), Some(&r.pv[..]));
    let mut longer_than_one = 0;
    for c in r.ranked_children() {
        let pv = s.pv_from(c.mv).unwrap();
        assert_eq!(pv[0], c.mv);
        // Every line is a legal sequence from the root.
        let mut p = Ttt::from_str("x...o....");
        for &m in &pv {
            assert!(p.is_legal(m), "{pv:?}");
            p.play_unchecked(m);
        }
        if c.visits > 1 {
            assert!(
                pv.len() > 1,
                "{:?} visited {} times: {pv:?}",
                c.mv,
                c.visits
            );
            longer_than_one += 1;
        }
    }
    assert!(longer_than_one >= 2, "{:?}", r.children);
    // Occupied square: not a root move.
    assert_eq!(s.pv_from(0), None);
}

/// A self-play search (root noise on) with forced playouts `k`.
fn forced(k: Option<f32>) -> SearchConfig {
    SearchConfig {
        forced_playouts: k,
        // Proven roots report a one-hot π; these tests look at visit counts.
        solver: false,
        ..cfg(1)
    }
}

/// `sqrt(k · P · N)` of each visited root child, against its visits.
fn forced_shortfall(r: &SearchResult<Ttt>, k: f32) -> f32 {
    let total: u32 = r.children.iter().map(|c| c.visits).sum();
    r.children
        .iter()
        .filter(|c| c.visits > 0 && c.proven.is_none())
        .map(|c| (k * c.prior * total as f32).sqrt() - c.visits as f32)
        .fold(f32::NEG_INFINITY, f32::max)
}

#[test]
fn forced_playouts_give_every_visited_root_child_its_minimum() {
    let boards = [".........", "x...o....", "x.o......", "....x...."];
    let mut short_without = 0;
    for (i, board) in boards.iter().enumerate() {
        let on = search(
            board,
            forced(Some(2.0)),
            noisy(600, i as u64),
            &HashEvaluator,
        );
        // The last simulation may leave a child one visit short of a bound that grew with it.
        assert!(forced_shortfall(&on, 2.0) <= 1.0, "{board}");
        let off = search(board, forced(None), noisy(600, i as u64), &HashEvaluator);
        if forced_shortfall(&off, 2.0) > 1.0 {
            short_without += 1;
        }
    }
    // Without forcing, PUCT leaves some noised child below the bound: the test can fail.
    assert!(short_without > 0);
}

#[test]
fn policy_target_pruning_removes_only_visits_puct_did_not_want() {
    let k = 2.0;
    let mut pruned_some = false;
    for (i, board) in [".........", "x...o....", "x.o......"].iter().enumerate() {
        let r = search(
            board,
            forced(Some(k)),
            noisy(600, 10 + i as u64),
            &HashEvaluator,
        );
        let sum: f32 = r.policy.iter().sum();
        assert!((sum - 1.0).abs() < 1e-5, "{board}: π sums to {sum}");
        let best = r.children.iter().max_by_key(|c| c.visits).unwrap();
        // The most visited child keeps its visits, so π·(n_best / π_best) are the kept visits.
        let scale = best.visits as f32 / r.policy[best.action];
        let total: u32 = r.children.iter().map(|c| c.visits).sum();
        let n = r.root_visits as f32;
        let c_puct = alphazero_mcts::CPuct::default().value(n) * n.sqrt();
        let puct = |q: f32, p: f32, m: f32| q + c_puct * p / (1.0 + m);
        let best_score = puct(best.q, best.prior, best.visits as f32);
        for c in r.children.iter().filter(|c| c.action != best.action) {
            let kept = r.policy[c.action] * scale;
            assert!(kept <= c.visits as f32 + 1e-3, "{board}: {c:?} kept {kept}");
            if c.visits <= 1 {
                assert_eq!(r.policy[c.action], 0.0, "{board}: single visits are pruned");
                continue;
            }
            if kept + 0.5 < c.visits as f32 {
                pruned_some = true;
                let forced = (k * c.prior * total as f32).sqrt().floor();
                assert!(c.visits as f32 - kept <= forced + 1e-3, "{board}: {c:?}");
                if kept > 0.5 {
                    assert!(puct(c.q, c.prior, kept) < best_score, "{board}: {c:?}");
                }
            }
        }
    }
    assert!(pruned_some, "no position pruned any visit");
}

#[test]
fn forced_playouts_are_off_without_root_noise() {
    for board in [".........", "x...o...."] {
        let budget = SearchBudget {
            seed: 3,
            ..sims(300)
        };
        let with_k = SearchConfig {
            forced_playouts: Some(2.0),
            ..cfg(1)
        };
        let (a, b) = (
            search(board, cfg(1), budget, &HashEvaluator),
            search(board, with_k, budget, &HashEvaluator),
        );
        assert_eq!(a.children, b.children, "{board}");
        assert_eq!(a.policy, b.policy, "{board}");
    }
}
