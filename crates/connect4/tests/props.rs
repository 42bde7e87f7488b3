//! Property tests: legality agreement, action round trips, mirror symmetry, incremental
//! Zobrist hashing, and solver self-consistency.
use alphazero_connect4::{solver::Solver, C4Move, Connect4};
use alphazero_game::Game;
use proptest::prelude::*;

/// Plays `choices` from `start`, each one the first non-full column at or right of the choice
/// (cyclically); stops when the game ends.
fn play_choices(start: Connect4, choices: &[u8]) -> Connect4 {
    let mut p = start;
    for &c in choices {
        if p.outcome().is_some() {
            break;
        }
        let col = (0..7)
            .map(|k| C4Move((c + k) % 7))
            .find(|&m| p.is_legal(m))
            .expect("a game in progress has a legal move");
        p.play(col).expect("legal");
    }
    p
}

fn position() -> impl Strategy<Value = Connect4> {
    prop::collection::vec(0u8..7, 0..48).prop_map(|v| play_choices(Connect4::default(), &v))
}

const L2_R1: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/connect4/Test_L2_R1"
);

/// Positions with at most ~13 moves left: a Test_L2_R1 line plus a few random moves.
fn late_position() -> impl Strategy<Value = Connect4> {
    let lines: Vec<String> = std::fs::read_to_string(L2_R1)
        .expect("Test_L2_R1")
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .collect();
    (0..lines.len(), prop::collection::vec(0u8..7, 0..6)).prop_map(move |(i, extra)| {
        let p = Connect4::from_moves(&lines[i]).expect("test data parses");
        play_choices(p, &extra)
    })
}

proptest! {
    #[test]
    fn legal_moves_agree_with_is_legal_and_checked_play(p in position()) {
        let legal = p.legal_moves_vec();
        prop_assert_eq!(legal.is_empty(), p.outcome().is_some());
        for col in 0..10u8 {
            let m = C4Move(col);
            let mut q = p;
            let played = q.play(m);
            prop_assert_eq!(p.is_legal(m), legal.contains(&m));
            prop_assert_eq!(played.is_ok(), legal.contains(&m));
            if played.is_err() {
                prop_assert_eq!(q, p);
                prop_assert_eq!(q.moves_string(), p.moves_string());
            } else {
                prop_assert_eq!(q.ply(), p.ply() + 1);
                prop_assert_eq!(q.side_to_move(), p.side_to_move().opponent());
            }
        }
    }

    #[test]
    fn actions_round_trip(p in position()) {
        for m in p.legal_moves_vec() {
            let a = p.move_to_action(m);
            prop_assert!(a < p.num_actions());
            prop_assert_eq!(p.action_to_move(a), Some(m));
            prop_assert_eq!(p.parse_move(&p.format_move(m)), Ok(m));
        }
        for a in 0..p.num_actions() {
            let m = p.action_to_move(a).expect("every action is a column");
            prop_assert_eq!(p.move_to_action(m), a);
        }
    }

    #[test]
    fn mirror_commutes_with_play_and_maps_legal_to_legal(p in position()) {
        let q = p.transform(1);
        prop_assert_eq!(q.transform(1), p);
        prop_assert_eq!(p.transform(0), p);
        prop_assert_eq!(q.zobrist(), q.zobrist_from_scratch());
        prop_assert_eq!(q.outcome(), p.outcome());
        let mapped: Vec<usize> = p
            .legal_moves_vec()
            .iter()
            .map(|&m| p.transform_action(1, p.move_to_action(m)))
            .collect();
        let mut mirrored: Vec<usize> =
            q.legal_moves_vec().iter().map(|&m| q.move_to_action(m)).collect();
        mirrored.sort_unstable();
        let mut mapped_sorted = mapped.clone();
        mapped_sorted.sort_unstable();
        prop_assert_eq!(&mirrored, &mapped_sorted);
        for (m, a) in p.legal_moves_vec().into_iter().zip(mapped) {
            let mut after = p;
            after.play(m).expect("legal");
            let mut q_after = q;
            q_after.play(q.action_to_move(a).expect("column")).expect("mirror of legal is legal");
            prop_assert_eq!(q_after, after.transform(1));
            prop_assert_eq!(q_after.zobrist(), after.transform(1).zobrist());
        }
        for col in 0..7 {
            for row in 0..6 {
                prop_assert_eq!(q.cell(6 - col, row), p.cell(col, row));
            }
        }
    }

    #[test]
    fn incremental_zobrist_equals_from_scratch(v in prop::collection::vec(0u8..7, 0..48)) {
        let mut p = Connect4::default();
        prop_assert_eq!(p.zobrist(), p.zobrist_from_scratch());
        for c in v {
            if p.outcome().is_some() {
                break;
            }
            p = play_choices(p, &[c]);
            prop_assert_eq!(p.zobrist(), p.zobrist_from_scratch());
            prop_assert_eq!(Connect4::from_moves(&p.moves_string()).expect("own notation"), p);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(debug_assertions) { 24 } else { 200 }))]

    #[test]
    fn solver_score_is_the_best_child_score(p in late_position()) {
        let mut solver = Solver::new();
        let score = solver.solve(&p);
        let moves = solver.score_moves(&p);
        let mut best = None;
        for col in 0..7u8 {
            let m = C4Move(col);
            if !p.is_legal(m) {
                prop_assert_eq!(moves[col as usize], None);
                continue;
            }
            let mut child = p;
            child.play(m).expect("legal");
            let s = -solver.solve(&child);
            prop_assert_eq!(moves[col as usize], Some(s));
            best = best.max(Some(s));
        }
        match best {
            Some(b) => prop_assert_eq!(score, b, "{}", p.moves_string()),
            None => prop_assert!(p.outcome().is_some()),
        }
        prop_assert_eq!(solver.solve_weak(&p), score.signum());
        let bm = solver.best_moves(&p);
        prop_assert_eq!(bm.is_empty(), p.outcome().is_some());
        for m in bm {
            prop_assert_eq!(moves[m.col()], best);
        }
    }
}
