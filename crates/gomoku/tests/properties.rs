//! Property tests: legality agreement, action indices, symmetries, Zobrist hashing and
//! candidate moves over random games.

use alphazero_game::{Game, Side};
use alphazero_gomoku::{inverse_symmetry, Gomoku, GomokuConfig, GomokuMove, Rule};
use proptest::prelude::*;

fn rule_strategy() -> impl Strategy<Value = Rule> {
    prop_oneof![
        Just(Rule::Freestyle),
        Just(Rule::Standard),
        Just(Rule::Renju)
    ]
}

fn config_strategy() -> impl Strategy<Value = GomokuConfig> {
    (5u8..=20, rule_strategy(), 1u8..=3).prop_map(|(size, rule, r)| {
        GomokuConfig::new(size, rule)
            .unwrap()
            .with_candidate_radius(r)
    })
}

/// A random game: each pick selects among the candidate moves (or, when `wild`, all legal
/// moves), so games look like search games and still reach odd corners.
fn random_game(cfg: &GomokuConfig, picks: &[(u16, bool)]) -> Vec<Gomoku> {
    let mut pos = Gomoku::new(cfg);
    let mut out = vec![pos.clone()];
    let mut buf = Vec::new();
    for &(pick, wild) in picks {
        if wild {
            pos.legal_moves(&mut buf);
        } else {
            pos.candidate_moves(&mut buf);
        }
        if buf.is_empty() {
            break;
        }
        let mv = buf[usize::from(pick) % buf.len()];
        pos.play(mv).unwrap();
        out.push(pos.clone());
    }
    out
}

fn picks() -> impl Strategy<Value = Vec<(u16, bool)>> {
    prop::collection::vec((any::<u16>(), prop::bool::weighted(0.2)), 0..120)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Where a position says no move ends the game at once, none does; and where one does,
    /// it says so.
    #[test]
    fn may_end_in_one_holds_for_every_move(cfg in config_strategy(), picks in picks()) {
        for pos in random_game(&cfg, &picks) {
            let ends = pos.legal_moves_vec().into_iter().any(|m| {
                let mut after = pos.clone();
                after.play_unchecked(m);
                after.outcome().is_some()
            });
            if ends {
                prop_assert!(pos.may_end_in_one(), "{pos}");
            }
        }
    }

    #[test]
    fn legal_moves_agree_with_checked_play(cfg in config_strategy(), picks in picks(), probe in any::<(u8, u8)>()) {
        for pos in random_game(&cfg, &picks) {
            let legal = pos.legal_moves_vec();
            let n = pos.size();
            if pos.outcome().is_none() {
                prop_assert_eq!(legal.len(), n * n - pos.stone_count());
            } else {
                prop_assert!(legal.is_empty());
            }
            for &m in &legal {
                prop_assert!(pos.is_legal(m));
                prop_assert!(pos.clone().play(m).is_ok());
            }
            // A random point: legal exactly when listed.
            let p = GomokuMove::new(probe.0 % 22, probe.1 % 22);
            let mut after = pos.clone();
            let res = after.play(p);
            prop_assert_eq!(res.is_ok(), legal.contains(&p));
            if res.is_err() {
                prop_assert_eq!(&after, &pos);
            }
            // Every stone on the board is refused as occupied.
            if let Some(last) = pos.last_move() {
                let err = pos.clone().play(last).unwrap_err();
                prop_assert!(err.reason == "occupied" || err.reason == "game over");
            }
            let off = GomokuMove::new(n as u8, probe.1 % n as u8);
            prop_assert!(pos.clone().play(off).is_err());
        }
    }

    #[test]
    fn candidate_moves_are_a_nonempty_subset_of_legal_moves(cfg in config_strategy(), picks in picks()) {
        let mut cands = Vec::new();
        for pos in random_game(&cfg, &picks) {
            pos.candidate_moves(&mut cands);
            let legal = pos.legal_moves_vec();
            prop_assert_eq!(cands.is_empty(), legal.is_empty());
            for m in &cands {
                prop_assert!(legal.contains(m));
            }
            if cfg.rule == Rule::Renju && pos.side_to_move() == Side::First
                && cands.len() < legal.len()
            {
                for m in &cands {
                    prop_assert_eq!(pos.is_forbidden(*m), None);
                }
            }
        }
    }

    #[test]
    fn action_indices_round_trip(cfg in config_strategy()) {
        let pos = Gomoku::new(&cfg);
        let n = pos.num_actions();
        prop_assert_eq!(n, usize::from(cfg.size) * usize::from(cfg.size));
        for a in 0..n {
            let m = pos.action_to_move(a).unwrap();
            prop_assert_eq!(pos.move_to_action(m), a);
            prop_assert_eq!(usize::from(m.y) * pos.size() + usize::from(m.x), a);
            prop_assert_eq!(pos.parse_move(&m.to_string()).unwrap(), m);
            prop_assert_eq!(pos.parse_move(&m.to_gomocup()).unwrap(), m);
        }
        prop_assert_eq!(pos.action_to_move(n), None);
    }

    #[test]
    fn symmetries_map_legal_moves_and_commute_with_play(cfg in config_strategy(), picks in picks()) {
        let game = random_game(&cfg, &picks);
        for w in game.windows(2) {
            let (before, after) = (&w[0], &w[1]);
            let mv = after.last_move().unwrap();
            for s in 0..before.num_symmetries() {
                let tb = before.transform(s);
                prop_assert_eq!(tb.zobrist(), tb.zobrist_from_scratch());
                // Legal moves map onto legal moves.
                let mut mapped: Vec<usize> = before
                    .legal_moves_vec()
                    .iter()
                    .map(|&m| before.transform_action(s, before.move_to_action(m)))
                    .collect();
                let mut direct: Vec<usize> =
                    tb.legal_moves_vec().iter().map(|&m| tb.move_to_action(m)).collect();
                mapped.sort_unstable();
                direct.sort_unstable();
                prop_assert_eq!(mapped, direct);
                // Commutes with play.
                let tm = before
                    .action_to_move(before.transform_action(s, before.move_to_action(mv)))
                    .unwrap();
                let mut played = tb.clone();
                played.play(tm).unwrap();
                prop_assert_eq!(&played, &after.transform(s));
                prop_assert_eq!(played.outcome(), after.outcome());
                // Renju fouls are symmetric too.
                if cfg.rule == Rule::Renju {
                    let fouls: Vec<_> = before.forbidden_points().iter()
                        .map(|&(m, f)| (before.move_to_action(before.transform_move(s, m)), f))
                        .collect();
                    let mut fouls = fouls;
                    fouls.sort_unstable_by_key(|&(a, _)| a);
                    let direct: Vec<_> = tb.forbidden_points().iter()
                        .map(|&(m, f)| (tb.move_to_action(m), f)).collect();
                    prop_assert_eq!(fouls, direct);
                }
            }
        }
    }

    #[test]
    fn transform_then_inverse_is_identity(cfg in config_strategy(), picks in picks()) {
        let game = random_game(&cfg, &picks);
        let pos = game.last().unwrap();
        for s in 0..8 {
            let back = pos.transform(s).transform(inverse_symmetry(s));
            prop_assert_eq!(&back, pos);
            let mut seen = vec![false; pos.num_actions()];
            for a in 0..pos.num_actions() {
                let t = pos.transform_action(s, a);
                prop_assert!(!seen[t], "symmetry {} is not a permutation", s);
                seen[t] = true;
                prop_assert_eq!(pos.transform_action(inverse_symmetry(s), t), a);
            }
        }
        prop_assert_eq!(pos.transform(0), pos.clone());
    }

    #[test]
    fn incremental_zobrist_equals_from_scratch(cfg in config_strategy(), picks in picks()) {
        let game = random_game(&cfg, &picks);
        for pos in &game {
            prop_assert_eq!(pos.zobrist(), pos.zobrist_from_scratch());
        }
        for w in game.windows(2) {
            prop_assert_ne!(w[0].zobrist(), w[1].zobrist());
        }
    }
}
