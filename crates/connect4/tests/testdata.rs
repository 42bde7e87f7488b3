//! Data-driven tests over Pascal Pons' Connect Four test sets
//! (the repository's `tests/data/connect4/Test_L*_R*`, lines `"<moves> <score>"`).
use alphazero_connect4::{solver::Solver, Connect4};
use alphazero_game::Game;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/connect4");
const SETS: [&str; 6] = ["L1_R1", "L1_R2", "L1_R3", "L2_R1", "L2_R2", "L3_R1"];

/// `(moves, score)` of every line of `Test_<set>`.
fn load(set: &str) -> Vec<(String, i32)> {
    let path = format!("{DIR}/Test_{set}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .map(|line| {
            let mut it = line.split_whitespace();
            let moves = it.next().unwrap_or_else(|| panic!("{path}: empty line"));
            let score = it
                .next()
                .and_then(|s| s.parse().ok())
                .unwrap_or_else(|| panic!("{path}: no score in {line:?}"));
            (moves.to_string(), score)
        })
        .collect()
}

/// Solves the first `limit` positions of `set` and compares with the file's scores.
fn check_scores(set: &str, limit: usize) {
    let mut solver = Solver::new();
    let data = load(set);
    assert_eq!(data.len(), 1000, "Test_{set} should have 1000 lines");
    let mut wrong = Vec::new();
    for (moves, expected) in data.iter().take(limit) {
        let pos = Connect4::from_moves(moves).expect("test data parses");
        let got = solver.solve(&pos);
        if got != *expected {
            wrong.push(format!("{moves}: expected {expected}, got {got}"));
        }
    }
    assert!(wrong.is_empty(), "Test_{set}: {wrong:#?}");
}

/// Full sets in release mode, a prefix in debug mode (the solver is ~30x slower there).
fn limit(release: usize, debug: usize) -> usize {
    if cfg!(debug_assertions) {
        debug
    } else {
        release
    }
}

#[test]
fn every_line_of_every_test_set_parses_and_round_trips() {
    for set in SETS {
        for (moves, score) in load(set) {
            let pos =
                Connect4::from_moves(&moves).unwrap_or_else(|e| panic!("Test_{set}: {moves}: {e}"));
            assert_eq!(pos.moves_string(), moves);
            assert_eq!(pos.ply() as usize, moves.len());
            assert!((-18..=18).contains(&score), "Test_{set}: {moves} {score}");
            assert_eq!(pos.zobrist(), pos.zobrist_from_scratch());
        }
    }
}

#[test]
fn test_set_positions_are_games_in_progress() {
    for set in SETS {
        for (moves, score) in load(set) {
            let pos = Connect4::from_moves(&moves).expect("parses");
            if let Some(o) = pos.outcome() {
                panic!("Test_{set}: {moves} (score {score}) is already decided: {o:?}");
            }
        }
    }
}

#[test]
fn solver_matches_every_end_game_score_of_l3_r1() {
    check_scores("L3_R1", limit(1000, 200));
}

#[test]
fn solver_matches_every_middle_game_short_score_of_l2_r1() {
    check_scores("L2_R1", limit(1000, 100));
}

#[test]
fn solver_matches_a_sample_of_l2_r2() {
    check_scores("L2_R2", limit(100, 5));
}

#[test]
fn solver_matches_a_sample_of_l1_r2() {
    check_scores("L1_R2", limit(10, 1));
}

#[test]
fn solver_matches_a_sample_of_l1_r1() {
    check_scores("L1_R1", limit(100, 10));
}

#[test]
fn best_moves_of_test_positions_achieve_the_file_score() {
    // The best move's score from the mover equals the position's score.
    let mut solver = Solver::new();
    for (moves, expected) in load("L3_R1").iter().take(limit(200, 20)) {
        let pos = Connect4::from_moves(moves).expect("parses");
        let scores = solver.score_moves(&pos);
        let best = scores
            .iter()
            .flatten()
            .copied()
            .max()
            .expect("a legal move");
        assert_eq!(best, *expected, "{moves}: {scores:?}");
        for mv in solver.best_moves(&pos) {
            assert_eq!(scores[mv.col()], Some(best), "{moves}");
        }
    }
}
