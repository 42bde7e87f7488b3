//! The search with the game's tactical proofs (Gomoku: fives, unstoppable threats, VCF) in
//! the MCTS-solver: proven wins are played and named, losses are proven from certified move
//! sets instead of spending every simulation.

use alphazero_game::{Game, Outcome, Side};
use alphazero_gomoku::{Gomoku, GomokuConfig, GomokuMove, Rule, VcfResult};
use alphazero_mcts::{Search, SearchBudget, SearchConfig, UniformEvaluator};

fn sims(n: u32) -> SearchBudget {
    SearchBudget::simulations(n)
}

fn p(s: &str) -> GomokuMove {
    GomokuMove::parse_coord(s).unwrap()
}

fn cfg(tactics: Option<u32>) -> SearchConfig {
    SearchConfig {
        terminal_check: true,
        tactical_budget: tactics,
        ..SearchConfig::default()
    }
}

/// The positions of `crates/gomoku/tests/data/vcf.txt` (side to move has a VCF).
fn vcf_positions() -> Vec<(String, Gomoku)> {
    include_str!("../../gomoku/tests/data/vcf.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let rule: Rule = f[0].parse().unwrap();
            let cfg = GomokuConfig::new(f[1].parse().unwrap(), rule).unwrap();
            let side = if f[2] == "black" {
                Side::First
            } else {
                Side::Second
            };
            let stones = |s: &str| s.split(',').map(p).collect::<Vec<_>>();
            let pos = Gomoku::from_stones(&cfg, &stones(f[4]), &stones(f[5]), side).unwrap();
            (l.to_string(), pos)
        })
        .collect()
}

#[test]
fn vcf_positions_are_proven_won_and_the_vcf_move_is_played() {
    for (text, pos) in vcf_positions() {
        let mut s = Search::new(pos.clone(), Vec::new(), cfg(Some(20_000)), sims(400)).unwrap();
        let r = s.run(&UniformEvaluator).unwrap();
        assert_eq!(r.proven, Some(Outcome::Win), "{text}");
        assert_eq!(r.root_value, 1.0);
        let VcfResult::Win(line) = pos.vcf(20_000) else {
            panic!("no VCF: {text}")
        };
        assert_eq!(r.best_move, Some(line[0]), "{text}");
        // The winning child is reported as a proven win with its exact value, and the PV is
        // the proof line.
        let child = r
            .children
            .iter()
            .find(|c| Some(c.mv) == r.best_move)
            .unwrap();
        assert_eq!((child.proven, child.q), (Some(Outcome::Win), 1.0));
        assert_eq!(r.pv, line);
        let total: f32 = r.policy.iter().sum();
        assert!((total - 1.0).abs() < 1e-5);
        assert_eq!(r.policy[pos.move_to_action(line[0])], 1.0);
    }
}

#[test]
fn without_tactics_the_uniform_search_does_not_prove_the_vcf_positions() {
    // The reason for the tactics: the plain search proves none of the longer VCFs.
    let proven = vcf_positions()
        .into_iter()
        .filter(|(_, pos)| {
            let mut s = Search::new(pos.clone(), Vec::new(), cfg(None), sims(400)).unwrap();
            s.run(&UniformEvaluator).unwrap().proven == Some(Outcome::Win)
        })
        .count();
    assert!(
        proven < vcf_positions().len(),
        "{proven} proven without tactics"
    );
}

/// White to move; black has a four (b5–e5, a5 white: the only five point is f5) and an open
/// three c7 d7 e7: after the forced block black makes an open four.
fn four_and_three() -> Gomoku {
    let cfg = GomokuConfig::new(15, Rule::Freestyle).unwrap();
    let black = [
        p("b5"),
        p("c5"),
        p("d5"),
        p("e5"),
        p("c7"),
        p("d7"),
        p("e7"),
    ];
    let white = [p("a5"), p("j12"), p("k13"), p("m13"), p("n2"), p("l2")];
    Gomoku::from_stones(&cfg, &black, &white, Side::Second).unwrap()
}

#[test]
fn a_forced_block_into_a_lost_position_is_proven_lost_at_once() {
    let pos = four_and_three();
    let mut s = Search::new(pos, Vec::new(), cfg(Some(2_000)), sims(800)).unwrap();
    let r = s.run(&UniformEvaluator).unwrap();
    assert_eq!(r.proven, Some(Outcome::Loss));
    assert_eq!(
        r.best_move,
        Some(p("f5")),
        "the block is the only search move"
    );
    assert_eq!(r.children.len(), 1);
    assert!(r.simulations <= 2, "{} simulations spent", r.simulations);
}

#[test]
fn an_open_four_against_the_side_to_move_is_proven_lost_without_search() {
    // Regression: before certified move sets the root was never proven and every simulation
    // was spent on the two blocks.
    let cfg15 = GomokuConfig::new(15, Rule::Freestyle).unwrap();
    let black = [p("d8"), p("e8"), p("f8"), p("g8"), p("a1")];
    let white = [p("h1"), p("j2"), p("l3"), p("n5")];
    let pos = Gomoku::from_stones(&cfg15, &black, &white, Side::Second).unwrap();
    for tactics in [Some(0), None] {
        let mut s = Search::new(pos.clone(), Vec::new(), cfg(tactics), sims(800)).unwrap();
        let r = s.run(&UniformEvaluator).unwrap();
        assert_eq!(r.proven, Some(Outcome::Loss), "tactics {tactics:?}");
        assert!(r.simulations <= 4, "{} simulations", r.simulations);
    }
}

#[test]
fn the_defender_of_a_vcf_position_avoids_moves_that_leave_the_vcf() {
    // In each VCF position, give the move to the defender instead: whenever some candidate
    // leaves the attacker no VCF (checked with a large budget), the search's move must be one
    // of those (or the defender's own win).
    let mut checked = 0;
    for (text, pos) in vcf_positions() {
        let stones: Vec<(usize, usize, Side)> = (0..pos.size())
            .flat_map(|y| (0..pos.size()).map(move |x| (x, y)))
            .filter_map(|(x, y)| pos.stone_at(x, y).map(|s| (x, y, s)))
            .collect();
        let of = |side| -> Vec<GomokuMove> {
            stones
                .iter()
                .filter(|s| s.2 == side)
                .map(|s| GomokuMove::new(s.0 as u8, s.1 as u8))
                .collect()
        };
        let defender = pos.side_to_move().opponent();
        let flipped =
            Gomoku::from_stones(pos.config(), &of(Side::First), &of(Side::Second), defender)
                .unwrap();
        let mut moves = Vec::new();
        flipped.search_moves(&mut moves);
        let safe: Vec<GomokuMove> = moves
            .iter()
            .copied()
            .filter(|&m| {
                let mut q = flipped.clone();
                q.play(m).unwrap();
                q.outcome().is_some() || !matches!(q.vcf(200_000), VcfResult::Win(_))
            })
            .collect();
        if safe.is_empty() || safe.len() == moves.len() {
            continue;
        }
        let mut s = Search::new(flipped.clone(), Vec::new(), cfg(Some(20_000)), sims(800)).unwrap();
        let r = s.run(&UniformEvaluator).unwrap();
        if r.proven == Some(Outcome::Win) {
            continue; // the defender has its own forced win
        }
        let mv = r.best_move.unwrap();
        assert!(
            safe.contains(&mv),
            "{mv} leaves a VCF; safe: {safe:?}\n{text}"
        );
        checked += 1;
    }
    assert!(
        checked >= 3,
        "only {checked} positions had a defence to check"
    );
}

#[test]
fn tree_reuse_keeps_the_winning_edge_of_a_tactically_proven_node() {
    // Regression: after `advance` the arenas are renumbered; the node's winning edge kept its
    // old index (out of bounds in a self-play game on 15×15).
    let mut checked = 0;
    for (text, pos) in vcf_positions() {
        let defender = pos.side_to_move().opponent();
        let stones = |side| -> Vec<GomokuMove> {
            (0..pos.size())
                .flat_map(|y| (0..pos.size()).map(move |x| (x, y)))
                .filter(|&(x, y)| pos.stone_at(x, y) == Some(side))
                .map(|(x, y)| GomokuMove::new(x as u8, y as u8))
                .collect()
        };
        let flipped = Gomoku::from_stones(
            pos.config(),
            &stones(Side::First),
            &stones(Side::Second),
            defender,
        )
        .unwrap();
        let mut s = Search::new(flipped.clone(), Vec::new(), cfg(Some(20_000)), sims(300)).unwrap();
        let r = s.run(&UniformEvaluator).unwrap();
        // A move after which the attacker's VCF was proven inside the tree.
        let Some(lost) = r
            .children
            .iter()
            .find(|c| c.proven == Some(Outcome::Loss) && c.visits > 0)
        else {
            continue;
        };
        let mv = lost.mv;
        s.advance(mv).unwrap();
        let after = s.result();
        assert_eq!(after.proven, Some(Outcome::Win), "{text}");
        let mut child = flipped.clone();
        child.play(mv).unwrap();
        let proof = child.tactical_proof(20_000).expect("the attacker's win");
        assert_eq!(after.best_move, proof.best, "{text}");
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} positions checked");
}

#[test]
fn root_vct_plays_a_double_three_the_per_node_tactics_cannot_prove() {
    let cfg15 = GomokuConfig::new(15, Rule::Freestyle).unwrap();
    let black = [p("f8"), p("g8"), p("h6"), p("h7")];
    let white = [p("a15"), p("c15"), p("o1"), p("m1")];
    let pos = Gomoku::from_stones(&cfg15, &black, &white, Side::First).unwrap();
    let mut config = cfg(Some(2_000));
    let mut s = Search::new(pos.clone(), Vec::new(), config.clone(), sims(200)).unwrap();
    let plain = s.run(&UniformEvaluator).unwrap();
    assert_ne!(plain.proven, Some(Outcome::Win));
    config.root_tactical_budget = Some(200_000);
    let mut s = Search::new(pos.clone(), Vec::new(), config.clone(), sims(200)).unwrap();
    let r = s.run(&UniformEvaluator).unwrap();
    assert_eq!((r.proven, r.best_move), (Some(Outcome::Win), Some(p("h8"))));
    // A reused root (expanded as an inner node) gets the root tactics on its next run.
    let white_first = Gomoku::from_stones(&cfg15, &black, &white[..3], Side::Second).unwrap();
    let mut s = Search::new(white_first, Vec::new(), config, sims(200)).unwrap();
    s.run(&UniformEvaluator).unwrap();
    s.advance(p("m1")).unwrap();
    let r = s.run(&UniformEvaluator).unwrap();
    assert_eq!((r.proven, r.best_move), (Some(Outcome::Win), Some(p("h8"))));
}

/// A game of the first 15×15 network's ladder against Rapfi at MAX_DEPTH 2: black played f7
/// here and Rapfi won by a VCT (threes, then fours), which the per-node VCF cannot see after
/// f7. With the reply tactics, f7 is proven lost on its first visit and another move is played.
#[test]
fn reply_vct_proves_a_candidate_that_allows_the_opponent_a_vct_lost() {
    let mut pos = Gomoku::new(&GomokuConfig::new(15, Rule::Freestyle).unwrap());
    for m in "g6 e8 c10 g4 h8 e6 f5 e4 g7 f4 h4 d5".split(' ') {
        pos.play(p(m)).unwrap();
    }
    // The premise: after f7 White has a forced win the VCF alone does not find.
    let mut after = pos.clone();
    after.play(p("f7")).unwrap();
    assert!(after.tactical_proof(20_000).is_none());
    let proof = after
        .root_tactical_proof(3_000)
        .expect("White's VCT after f7");
    assert_eq!(proof.outcome, Outcome::Win);

    let f7 = |r: &alphazero_mcts::SearchResult<Gomoku>| {
        r.children
            .iter()
            .find(|c| c.mv == p("f7"))
            .map(|c| c.proven)
    };
    let mut config = cfg(Some(2_000));
    let mut s = Search::new(pos.clone(), Vec::new(), config.clone(), sims(600)).unwrap();
    let plain = s.run(&UniformEvaluator).unwrap();
    assert_eq!(
        f7(&plain),
        Some(None),
        "without reply tactics f7 is visited, unproven"
    );

    config.reply_tactical_budget = Some(3_000);
    let mut s = Search::new(pos.clone(), Vec::new(), config.clone(), sims(600)).unwrap();
    let r = s.run(&UniformEvaluator).unwrap();
    assert_eq!(
        f7(&r),
        Some(Some(Outcome::Loss)),
        "f7 proven lost for Black"
    );
    assert_ne!(r.best_move, Some(p("f7")));

    // A reused root: its children were expanded as inner nodes, and get the reply tactics
    // when it becomes the root.
    let mut before = Gomoku::new(&GomokuConfig::new(15, Rule::Freestyle).unwrap());
    let moves: Vec<&str> = "g6 e8 c10 g4 h8 e6 f5 e4 g7 f4 h4".split(' ').collect();
    for m in &moves {
        before.play(p(m)).unwrap();
    }
    let mut s = Search::new(before, Vec::new(), config, sims(30_000)).unwrap();
    s.run(&UniformEvaluator).unwrap();
    s.advance(p("d5")).unwrap();
    let r = s.run(&UniformEvaluator).unwrap();
    assert_eq!(
        f7(&r),
        Some(Some(Outcome::Loss)),
        "reused root: f7 proven lost"
    );
}

#[test]
fn a_vcf_threat_narrows_the_defenders_moves_to_those_that_can_stop_it() {
    let mut narrowed = 0;
    for (text, pos) in vcf_positions() {
        if pos.rule() == Rule::Renju {
            continue;
        }
        // The same stones with the defender to move: the attacker's VCF is now a threat.
        let mut stones = [Vec::new(), Vec::new()];
        for y in 0..pos.size() {
            for x in 0..pos.size() {
                match pos.stone_at(x, y) {
                    Some(Side::First) => stones[0].push(GomokuMove::new(x as u8, y as u8)),
                    Some(Side::Second) => stones[1].push(GomokuMove::new(x as u8, y as u8)),
                    None => {}
                }
            }
        }
        let cfg_ = GomokuConfig::new(pos.size() as u8, pos.rule()).unwrap();
        let side = pos.side_to_move().opponent();
        let Ok(defender) = Gomoku::from_stones(&cfg_, &stones[0], &stones[1], side) else {
            continue;
        };
        let mut replies = Vec::new();
        if !defender.threat_replies(2_000, &mut replies) {
            continue;
        }
        let mut candidates = Vec::new();
        defender.search_moves(&mut candidates);
        let config = SearchConfig {
            threat_replies_budget: Some(2_000),
            ..cfg(Some(2_000))
        };
        let mut s = Search::new(defender.clone(), Vec::new(), config, sims(200)).unwrap();
        let r = s.run(&UniformEvaluator).unwrap();
        let searched: Vec<GomokuMove> = r.children.iter().map(|c| c.mv).collect();
        assert_eq!(searched.len(), replies.len(), "{text}");
        assert!(searched.iter().all(|m| replies.contains(m)), "{text}");
        assert!(replies.len() < candidates.len(), "{text}");
        narrowed += 1;
    }
    assert!(narrowed >= 3, "only {narrowed} positions narrowed");
}
