//! Property tests over random playouts: the fast generator against checked play and the slow
//! reference, action indices, the mirror symmetry, the incremental Zobrist hash, FEN.

use alphazero_game::{Game, Side};
use alphazero_xiangqi::{reference, Move, Xiangqi, XiangqiConfig, NUM_ACTIONS};
use proptest::prelude::*;

const PERFT_TSV: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/xiangqi/perft.tsv"
);

/// Start positions: the standard one and every perft.tsv position.
fn starts() -> Vec<Xiangqi> {
    let text = std::fs::read_to_string(PERFT_TSV).expect("perft.tsv is readable");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let fen = l.split('\t').next().expect("FEN column");
            Xiangqi::from_fen(fen, XiangqiConfig::default()).expect("FEN parses")
        })
        .collect()
}

/// The positions of a random playout from start `start % n`, the start included, choosing
/// move `choice % len` at each ply and stopping when no move is left.
fn playout(start: usize, choices: &[u32]) -> Vec<Xiangqi> {
    let s = starts();
    let mut p = s[start % s.len()].clone();
    let mut out = vec![p.clone()];
    for &c in choices {
        let moves = p.legal_moves_vec();
        if moves.is_empty() {
            break;
        }
        p.play_unchecked(moves[c as usize % moves.len()]);
        out.push(p.clone());
    }
    out
}

fn sorted(mut v: Vec<Move>) -> Vec<Move> {
    v.sort();
    v
}

/// 48 cases by default (the reference generator is slow in debug builds); `PROPTEST_CASES`
/// overrides.
fn cfg() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48);
    ProptestConfig::with_cases(cases)
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn legal_moves_agree_with_reference_and_checked_play(
        start in 0usize..15,
        choices in prop::collection::vec(any::<u32>(), 0..60),
        probes in prop::collection::vec(0usize..NUM_ACTIONS, 8),
    ) {
        for p in playout(start, &choices) {
            let fast = sorted(p.legal_moves_vec());
            prop_assert_eq!(&fast, &sorted(reference::legal_moves(&p)), "{}", p.to_fen());
            prop_assert_eq!(p.in_check(), reference::in_check(&p), "{}", p.to_fen());
            prop_assert_eq!(
                sorted(p.pseudo_legal_moves()),
                sorted(reference::pseudo_legal_moves(&p)),
                "{}",
                p.to_fen()
            );
            for &m in &fast {
                prop_assert!(p.is_legal(m));
            }
            // Arbitrary moves of the action space: is_legal and play agree with the list.
            for &a in &probes {
                let m = p.action_to_move(a).expect("in range");
                let legal = fast.contains(&m);
                prop_assert_eq!(p.is_legal(m), legal);
                let mut q = p.clone();
                match q.play(m) {
                    Ok(()) => prop_assert!(legal && p.outcome().is_none()),
                    Err(e) => {
                        prop_assert!(!legal || p.outcome().is_some());
                        prop_assert_eq!(&q, &p);
                        prop_assert!(e.to_string().contains(&m.to_string()));
                    }
                }
            }
        }
    }

    #[test]
    fn action_indices_round_trip_for_both_sides(
        start in 0usize..15,
        choices in prop::collection::vec(any::<u32>(), 0..80),
    ) {
        let mut sides = [false, false];
        for p in playout(start, &choices) {
            sides[p.side_to_move().index()] = true;
            for m in p.legal_moves_vec() {
                let a = p.move_to_action(m);
                prop_assert!(a < NUM_ACTIONS);
                prop_assert_eq!(p.action_to_move(a), Some(m));
                // The index is the same as the rotated move's for the other side.
                let mut flipped = p.clone();
                flipped.play_unchecked(m);
                let seen_by_other = flipped.move_to_action(m.rotate());
                prop_assert_eq!(seen_by_other, a);
            }
        }
        prop_assert!(sides[Side::First.index()]);
    }

    #[test]
    fn mirror_maps_legal_moves_and_commutes_with_play(
        start in 0usize..15,
        choices in prop::collection::vec(any::<u32>(), 0..60),
    ) {
        for p in playout(start, &choices) {
            let m1 = p.transform(1);
            prop_assert_eq!(m1.transform(1), p.clone());
            prop_assert_eq!(m1.zobrist(), m1.zobrist_from_scratch());
            let mirrored: Vec<Move> = p.legal_moves_vec().into_iter().map(Move::mirror).collect();
            prop_assert_eq!(sorted(mirrored), sorted(m1.legal_moves_vec()));
            for m in p.legal_moves_vec() {
                let a = p.move_to_action(m);
                prop_assert_eq!(p.transform_action(1, a), m1.move_to_action(m.mirror()));
                prop_assert_eq!(p.transform_action(1, p.transform_action(1, a)), a);
                let mut after = p.clone();
                after.play_unchecked(m);
                let mut after_m = m1.clone();
                after_m.play_unchecked(m.mirror());
                prop_assert_eq!(after.transform(1), after_m);
            }
        }
    }

    #[test]
    fn incremental_zobrist_equals_from_scratch(
        start in 0usize..15,
        choices in prop::collection::vec(any::<u32>(), 0..150),
    ) {
        for p in playout(start, &choices) {
            prop_assert_eq!(p.zobrist(), p.zobrist_from_scratch());
        }
    }

    #[test]
    fn fen_round_trips(
        start in 0usize..15,
        choices in prop::collection::vec(any::<u32>(), 0..150),
    ) {
        for p in playout(start, &choices) {
            let fen = p.to_fen();
            let q = Xiangqi::from_fen(&fen, XiangqiConfig::default())
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(&q, &p);
            prop_assert_eq!(q.to_fen(), fen);
            prop_assert_eq!(q.zobrist(), p.zobrist());
        }
    }
}
