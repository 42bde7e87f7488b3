//! Batched search entrants: the same games as their players, failures that lose games, and a
//! match counted from a side (the one match engine; self-play has no match loop of its own).

use std::sync::Arc;

use alphazero_arena::{
    run_match, run_match_sprt, Entrant, MatchConfig, MatchResult, Sprt, Termination,
};
use alphazero_connect4::Connect4;
use alphazero_game::{Game, History, Side};
use alphazero_gomoku::{Gomoku, GomokuConfig, Rule};
use alphazero_mcts::{
    EvalError, EvalRequest, Evaluator, RolloutEvaluator, SearchConfig, UniformEvaluator,
};

fn search() -> SearchConfig {
    SearchConfig {
        terminal_check: true,
        ..SearchConfig::default()
    }
}

/// Rollouts (entrant 0) against uniform priors and value 0 (entrant 1), batched or, with
/// `batched = false`, the same entrants as plain players on `threads` threads.
fn rollout_vs_uniform<G: Game>(start: G, sims: u32, batched: bool, threads: usize) -> MatchResult {
    let mut entrants = vec![
        Entrant::batched_search(
            "rollout",
            Arc::new(RolloutEvaluator::new(1, 9)),
            search(),
            sims,
        ),
        Entrant::batched_search("uniform", Arc::new(UniformEvaluator), search(), sims),
    ];
    if !batched {
        for e in &mut entrants {
            e.batched = None;
        }
    }
    let mut m = MatchConfig::new(entrants, start);
    m.openings_per_pair = 3;
    m.opening_plies = 2;
    m.threads = threads;
    m.seed = 5;
    run_match(&m).expect("match")
}

#[test]
fn batched_search_entrants_play_the_games_of_their_players() {
    let batched = rollout_vs_uniform(Connect4::default(), 48, true, 1);
    let threaded = rollout_vs_uniform(Connect4::default(), 48, false, 2);
    // The same games; only the players' time differs (a batched match times no one).
    assert!(batched.think_time().iter().all(|t| t.moves == 0));
    assert!(threaded.think_time().iter().all(|t| t.moves > 0));
    let untimed = |mut r: MatchResult| {
        for g in &mut r.games {
            g.think = Default::default();
        }
        r
    };
    assert_eq!(untimed(batched.clone()), untimed(threaded));
    assert_eq!(batched.games.len(), 6);
}

#[test]
fn a_batched_match_counts_from_a_side_and_alternates_colours() {
    let start = Gomoku::new(&GomokuConfig::new(9, Rule::Freestyle).expect("config"));
    let m = rollout_vs_uniform(start.clone(), 200, true, 1);
    let (w, d, l) = m.first_pair_wdl();
    assert_eq!(w + d + l, 6);
    assert_eq!(m.games.iter().filter(|g| g.first == 0).count(), 3);
    // Rollouts know who is winning; a uniform value of 0 does not.
    assert!(w > l, "rollout vs uniform: {}", m.cross_table());
    // Each game is a legal game ending as recorded.
    for g in &m.games {
        let mut h = History::new(start.clone());
        for t in &g.moves {
            let mv = h.current().parse_move(t).expect("move");
            h.play(mv).expect("legal");
        }
        let winner = h
            .outcome()
            .and_then(|o| o.winner(h.current().side_to_move()));
        let expected = winner.map(|s| if s == Side::First { g.first } else { g.second });
        assert_eq!(g.winner, expected);
    }
}

/// Fails every evaluation.
struct Broken;
impl<G: Game> Evaluator<G> for Broken {
    fn evaluate(
        &self,
        _: &[EvalRequest<'_, G>],
        _: &mut [f32],
        _: &mut [f32],
    ) -> Result<(), EvalError> {
        Err(EvalError("device lost".into()))
    }
}

/// A search with uniform priors against one whose evaluator always fails.
fn good_against_broken() -> MatchConfig<Connect4> {
    let entrants = vec![
        Entrant::batched_search("good", Arc::new(UniformEvaluator), search(), 8),
        Entrant::batched_search("broken", Arc::new(Broken), search(), 8),
    ];
    MatchConfig::new(entrants, Connect4::default())
}

#[test]
fn a_failing_evaluator_loses_its_games_without_stopping_the_match() {
    let mut m = good_against_broken();
    m.openings_per_pair = 2;
    let r = run_match(&m).expect("match");
    assert_eq!(r.games.len(), 4);
    assert!(r.games.iter().all(|g| g.winner == Some(0)));
    assert!(r.games.iter().all(|g| matches!(&g.termination,
        Termination::Failure { message, .. } if message.starts_with("broken: ") && message.ends_with("device lost"))));
}

#[test]
fn a_batched_sprt_match_reports_each_chunk_and_stops_when_decided() {
    let mut m = good_against_broken();
    m.openings_per_pair = 100;
    m.threads = 5;
    let sprt = Sprt {
        elo0: 0.0,
        elo1: 100.0,
        alpha: 0.05,
        beta: 0.05,
    };
    let mut chunks = Vec::new();
    let (r, tested) =
        run_match_sprt(&m, Some(&sprt), |c| chunks.push(c.games.len())).expect("match");
    let tested = tested.expect("a test");
    // Every game won: decided once Sprt::MIN_GAMES games are in, after two chunks of 10.
    assert_eq!(chunks, vec![10, 10]);
    assert_eq!((tested.wins, r.games.len()), (20, 20));
}
