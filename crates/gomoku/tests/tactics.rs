//! Threat-space tactics against slow references built from the public rules alone:
//! five points, the certified search-move set (property test against every legal move), and
//! VCF (data file `tests/data/vcf.txt`: positions whose shortest VCF has a known length,
//! checked against a brute-force search over every legal move), and the Rapfi-classified
//! must-defend positions of `tests/data/must-defend.tsv` against the exact VCF.

use alphazero_game::{Game, Outcome, Side};
use alphazero_gomoku::{Gomoku, GomokuConfig, GomokuMove, Rule, VcfResult};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn stones(pos: &Gomoku) -> (Vec<GomokuMove>, Vec<GomokuMove>) {
    let (mut b, mut w) = (Vec::new(), Vec::new());
    for y in 0..pos.size() {
        for x in 0..pos.size() {
            match pos.stone_at(x, y) {
                Some(Side::First) => b.push(GomokuMove::new(x as u8, y as u8)),
                Some(Side::Second) => w.push(GomokuMove::new(x as u8, y as u8)),
                None => {}
            }
        }
    }
    (b, w)
}

/// The same stones with `side` to move.
fn with_side(pos: &Gomoku, side: Side) -> Gomoku {
    let (b, w) = stones(pos);
    Gomoku::from_stones(pos.config(), &b, &w, side).unwrap()
}

/// Reference five points: every legal move of `side` after which the game is won.
fn ref_fives(pos: &Gomoku, side: Side) -> Vec<GomokuMove> {
    let p = with_side(pos, side);
    if p.outcome().is_some() {
        return Vec::new();
    }
    p.legal_moves_vec()
        .into_iter()
        .filter(|&m| {
            let mut q = p.clone();
            q.play(m).unwrap();
            q.outcome() == Some(Outcome::Loss)
        })
        .collect()
}

/// Brute-force VCF of the side to move within `plies` plies: the attacker's every legal move
/// that leaves a five point, the defender's only reply.
fn ref_vcf(pos: &Gomoku, plies: u32) -> bool {
    let a = pos.side_to_move();
    let d = a.opponent();
    if plies >= 1 && !ref_fives(pos, a).is_empty() {
        return true;
    }
    if plies < 3 {
        return false;
    }
    let threats = ref_fives(pos, d);
    if threats.len() >= 2 {
        return false;
    }
    for m in pos.legal_moves_vec() {
        if !threats.is_empty() && threats[0] != m {
            continue;
        }
        let mut p = pos.clone();
        p.play(m).unwrap();
        if p.outcome().is_some() {
            continue; // a five is found above; a renju foul loses
        }
        let fives = ref_fives(&p, a);
        if fives.is_empty() || !ref_fives(&p, d).is_empty() {
            continue;
        }
        if fives.len() >= 2 {
            return true;
        }
        let mut q = p.clone();
        q.play(fives[0]).unwrap();
        if q.outcome() == Some(Outcome::Win) {
            return true; // black blocked on a forbidden point
        }
        if ref_vcf(&q, plies - 2) {
            return true;
        }
    }
    false
}

/// Checks that `line` is a forced win for the side to move of `pos`: every attacker move
/// leaves a five point (or wins), the defender has no five of its own and plays the only
/// block, and the line ends won.
fn check_line(pos: &Gomoku, line: &[GomokuMove]) {
    let a = pos.side_to_move();
    let mut p = pos.clone();
    for (i, &m) in line.iter().enumerate() {
        if i % 2 == 0 {
            p.play(m)
                .unwrap_or_else(|e| panic!("attacker move {i} {m}: {e}"));
            if p.outcome() == Some(Outcome::Loss) {
                assert_eq!(i + 1, line.len(), "the line goes on after a five");
                return;
            }
            assert!(p.outcome().is_none(), "attacker move {m} ends the game");
            let fives = ref_fives(&p, a);
            assert!(!fives.is_empty(), "attacker move {m} is not a four");
            assert!(
                ref_fives(&p, a.opponent()).is_empty(),
                "defender can make five"
            );
            if fives.len() >= 2 {
                assert_eq!(i + 1, line.len(), "the line goes on after a double threat");
                return;
            }
            assert_eq!(
                line.get(i + 1),
                Some(&fives[0]),
                "the defender's only reply"
            );
        } else {
            p.play(m).unwrap();
            if p.outcome() == Some(Outcome::Win) {
                assert_eq!(i + 1, line.len());
                return; // renju: black's block was a foul
            }
        }
    }
    panic!("the line {line:?} does not end in a win");
}

fn line_of(pos: &Gomoku, budget: u32) -> Vec<GomokuMove> {
    match pos.vcf(budget) {
        VcfResult::Win(line) => line,
        other => panic!("no VCF found ({other:?}) in\n{pos}"),
    }
}

/// One row of `tests/data/vcf.txt`: `rule side plies black white` with the stones as
/// comma-separated `h8` points.
struct Case {
    rule: Rule,
    pos: Gomoku,
    plies: u32,
    text: String,
}

fn cases() -> Vec<Case> {
    let text = include_str!("data/vcf.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 6, "line {l:?}");
            let rule: Rule = f[0].parse().unwrap();
            let size: u8 = f[1].parse().unwrap();
            let side = match f[2] {
                "black" => Side::First,
                "white" => Side::Second,
                s => panic!("side {s}"),
            };
            let plies: u32 = f[3].parse().unwrap();
            let parse = |s: &str| -> Vec<GomokuMove> {
                s.split(',')
                    .filter(|t| *t != "-")
                    .map(|t| GomokuMove::parse_coord(t).unwrap())
                    .collect()
            };
            let cfg = GomokuConfig::new(size, rule).unwrap();
            let pos = Gomoku::from_stones(&cfg, &parse(f[4]), &parse(f[5]), side).unwrap();
            Case {
                rule,
                pos,
                plies,
                text: l.to_string(),
            }
        })
        .collect()
}

#[test]
fn vcf_data_file_lines_are_forced_wins_of_the_stated_length() {
    let cases = cases();
    assert!(
        cases.len() >= 6,
        "the data file holds {} cases",
        cases.len()
    );
    for plies in [3, 5, 7, 9] {
        assert!(
            cases.iter().any(|c| c.plies == plies),
            "no case with a {plies}-ply VCF"
        );
    }
    for c in &cases {
        let line = line_of(&c.pos, 200_000);
        check_line(&c.pos, &line);
        assert!(
            line.len() as u32 + 2 >= c.plies,
            "a shorter VCF than stated: {}",
            c.text
        );
        // The stated length is the shortest: the brute force agrees on both sides of it.
        assert!(
            ref_vcf(&c.pos, c.plies),
            "reference finds no VCF: {}",
            c.text
        );
        assert!(
            !ref_vcf(&c.pos, c.plies - 2),
            "reference finds a shorter VCF: {}",
            c.text
        );
        let _ = c.rule;
    }
}

#[test]
fn renju_white_four_on_a_black_forbidden_block_wins() {
    // White g7 makes a four on the d4-h8 diagonal (c3 is black) whose only five point, h8,
    // is a double three for black (f8 g8 _ and h6 h7 _): black cannot block, white wins.
    let p = |s: &str| GomokuMove::parse_coord(s).unwrap();
    let black = [p("f8"), p("g8"), p("h6"), p("h7"), p("c3")];
    let white = [p("d4"), p("e5"), p("f6"), p("a15")];
    let cfg = GomokuConfig::new(15, Rule::Renju).unwrap();
    let pos = Gomoku::from_stones(&cfg, &black, &white, Side::Second).unwrap();
    let line = line_of(&pos, 10_000);
    check_line(&pos, &line);
    assert_eq!(line, vec![p("g7"), p("h8")]);
    assert!(ref_vcf(&pos, 3));
    let mut after = pos.clone();
    after.play(p("g7")).unwrap();
    assert_eq!(
        after.is_forbidden(p("h8")),
        Some(alphazero_gomoku::Foul::DoubleThree)
    );
    // Black to move after g7: the only block is forbidden, so the position is lost.
    let proof = after.tactical_proof(0).expect("an unblockable four");
    assert_eq!(proof.outcome, Outcome::Loss);
    // Freestyle: black blocks h8 and white has no VCF here.
    let free = Gomoku::from_stones(
        &GomokuConfig::new(15, Rule::Freestyle).unwrap(),
        &black,
        &white,
        Side::Second,
    )
    .unwrap();
    assert!(!matches!(free.vcf(10_000), VcfResult::Win(ref l) if l == &vec![p("g7"), p("h8")]));
}

#[test]
fn two_five_points_of_the_opponent_are_a_proven_loss() {
    let p = |s: &str| GomokuMove::parse_coord(s).unwrap();
    let black = [p("a1"), p("h1")];
    let white = [p("b7"), p("c7"), p("d7"), p("e7")];
    for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju] {
        let cfg = GomokuConfig::new(12, rule).unwrap();
        let pos = Gomoku::from_stones(&cfg, &black, &white, Side::First).unwrap();
        assert_eq!(pos.five_points(Side::Second), vec![p("a7"), p("f7")]);
        let proof = pos.tactical_proof(0).expect("two five points");
        assert_eq!(proof.outcome, Outcome::Loss, "{rule}");
        // One five point only: the block is the whole (complete) search-move set.
        let cfg = GomokuConfig::new(12, rule).unwrap();
        let one = Gomoku::from_stones(&cfg, &[p("a1"), p("a7")], &white, Side::First).unwrap();
        let mut set = Vec::new();
        assert!(one.search_moves(&mut set));
        assert_eq!(set, vec![p("f7")]);
        assert_eq!(one.tactical_proof(0), None);
    }
}

#[test]
fn renju_black_five_on_an_otherwise_forbidden_point_wins() {
    // Black e5 would be a double four (row and column) but it also completes five on the
    // diagonal, so it is a winning five, not a foul.
    let cfg = GomokuConfig::new(15, Rule::Renju).unwrap();
    let p = |s: &str| GomokuMove::parse_coord(s).unwrap();
    let black = [
        p("a1"),
        p("b2"),
        p("c3"),
        p("d4"), // diagonal a1-d4: e5 makes five
        p("b5"),
        p("c5"),
        p("d5"), // row 5: e5 makes four
        p("e2"),
        p("e3"),
        p("e4"), // column e: e5 makes four
    ];
    let white = [p("a5"), p("e1"), p("o15"), p("m15"), p("k15")];
    let pos = Gomoku::from_stones(&cfg, &black, &white, Side::First).unwrap();
    assert_eq!(pos.is_forbidden(p("e5")), None);
    assert!(pos.five_points(Side::First).contains(&p("e5")));
    let proof = pos.tactical_proof(0).unwrap();
    assert_eq!((proof.outcome, proof.best), (Outcome::Win, Some(p("e5"))));
}

#[test]
fn renju_black_four_on_a_forbidden_point_is_not_a_vcf_move() {
    // Black's only four-making moves are a double four (forbidden): no VCF for black,
    // although the same stones give white-free freestyle black a win.
    let p = |s: &str| GomokuMove::parse_coord(s).unwrap();
    let black = [p("b5"), p("c5"), p("d5"), p("e2"), p("e3"), p("e4")];
    let white = [p("a5"), p("e1")];
    for (rule, wins) in [(Rule::Freestyle, true), (Rule::Renju, false)] {
        let cfg = GomokuConfig::new(15, rule).unwrap();
        let pos = Gomoku::from_stones(&cfg, &black, &white, Side::First).unwrap();
        assert_eq!(
            matches!(pos.vcf(100_000), VcfResult::Win(_)),
            wins,
            "{rule}: {:?}",
            pos.vcf(100_000)
        );
        assert_eq!(ref_vcf(&pos, 5), wins, "{rule} reference");
    }
}

/// A random position: `stones` alternating random moves near the centre, stopped early if the
/// game ends (then `None`).
fn random_position(rule: Rule, size: u8, stones: usize, seed: u64) -> Option<Gomoku> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut pos = Gomoku::new(&GomokuConfig::new(size, rule).unwrap());
    let c = i32::from(size / 2);
    for _ in 0..stones {
        let x = (c + rng.random_range(-4..=4)).clamp(0, i32::from(size) - 1) as u8;
        let y = (c + rng.random_range(-4..=4)).clamp(0, i32::from(size) - 1) as u8;
        let _ = pos.play(GomokuMove::new(x, y));
        if pos.outcome().is_some() {
            return None;
        }
    }
    Some(pos)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The fast five points are the reference five points (every legal move tried).
    #[test]
    fn five_points_match_the_reference(seed in any::<u64>(), stones in 10usize..50, r in 0usize..3) {
        let rule = [Rule::Freestyle, Rule::Standard, Rule::Renju][r];
        if let Some(pos) = random_position(rule, 13, stones, seed) {
            for side in [Side::First, Side::Second] {
                prop_assert_eq!(pos.five_points(side), ref_fives(&pos, side));
            }
        }
    }

    /// A complete search-move set holds every move that avoids losing at once: against a
    /// threat of five, every legal move outside the set lets the opponent make five.
    #[test]
    fn certified_search_moves_hold_every_move_that_does_not_lose(
        seed in any::<u64>(), stones in 10usize..60, r in 0usize..3,
    ) {
        let rule = [Rule::Freestyle, Rule::Standard, Rule::Renju][r];
        if let Some(pos) = random_position(rule, 13, stones, seed) {
            let mut set = Vec::new();
            let complete = pos.search_moves(&mut set);
            let me = pos.side_to_move();
            if complete {
                for m in pos.legal_moves_vec() {
                    if set.contains(&m) {
                        continue;
                    }
                    let mut q = pos.clone();
                    q.play(m).unwrap();
                    // Outside the set: the move loses (a foul) or the opponent makes five now.
                    let loses = q.outcome() == Some(Outcome::Win)
                        || !ref_fives(&q, me.opponent()).is_empty();
                    let own_five = !ref_fives(&pos, me).is_empty();
                    prop_assert!(loses || own_five, "{} left out of {:?}\n{}", m, set, pos);
                }
            }
            // The tactical verdict agrees with the reference on threats of five.
            if let Some(proof) = pos.tactical_proof(0) {
                match proof.outcome {
                    Outcome::Win => prop_assert!(ref_fives(&pos, me).contains(&proof.best.unwrap())),
                    Outcome::Loss => {
                        prop_assert!(ref_fives(&pos, me).is_empty());
                        // Two threats, or (renju) every block is a foul that loses at once.
                        let threats = ref_fives(&pos, me.opponent());
                        let blockable = threats.iter().any(|&t| {
                            let mut q = pos.clone();
                            q.play(t).is_ok() && q.outcome().is_none()
                        });
                        prop_assert!(threats.len() >= 2 || (threats.len() == 1 && !blockable));
                    }
                    Outcome::Draw => prop_assert!(false, "no draws from tactics"),
                }
            }
        }
    }

    /// The null-move threat check keeps its promise: when it says the opponent cannot force
    /// a win if the side to move passed, no move of the side to move lets the opponent's
    /// deeper tactics (VCF, then VCT) find one.
    #[test]
    fn no_null_move_threat_means_no_move_allows_a_forced_win(
        seed in any::<u64>(), stones in 8usize..40, r in 0usize..2,
    ) {
        let rule = [Rule::Freestyle, Rule::Standard][r];
        if let Some(pos) = random_position(rule, 13, stones, seed) {
            let budget = 3_000;
            if !pos.opponent_may_force_win(budget) {
                let mut moves = Vec::new();
                pos.search_moves(&mut moves);
                for m in moves {
                    let mut q = pos.clone();
                    q.play(m).unwrap();
                    let proof = q.root_tactical_proof(budget).map(|p| p.outcome);
                    prop_assert!(proof != Some(Outcome::Win), "{} lets the opponent win\n{}", m, pos);
                }
            }
        }
    }

    /// The fast VCF agrees with the brute force on random middle-game positions (5 plies),
    /// and every line it returns is a forced win.
    #[test]
    fn vcf_matches_the_brute_force_reference(seed in any::<u64>(), stones in 16usize..44, r in 0usize..3) {
        let rule = [Rule::Freestyle, Rule::Standard, Rule::Renju][r];
        if let Some(pos) = random_position(rule, 11, stones, seed) {
            let fast = pos.vcf(1_000_000);
            if let VcfResult::Win(line) = &fast {
                check_line(&pos, line);
                // A line ends with the attacker's double threat (then the five follows: the
                // win takes len + 2 plies) or with black's forbidden block (len + 1).
                if line.len() + 2 <= 5 {
                    prop_assert!(ref_vcf(&pos, 5));
                }
            } else {
                prop_assert_eq!(&fast, &VcfResult::NoWin);
                prop_assert!(!ref_vcf(&pos, 5), "reference finds a VCF the fast search missed\n{}", pos);
            }
        }
    }
}

/// Prints candidate rows for `tests/data/vcf.txt` (positions whose shortest VCF is 3..=11
/// plies), found in random positions: `cargo test --release -p alphazero-gomoku --test tactics
/// -- --ignored --nocapture print_vcf_cases`.
#[test]
#[ignore]
fn print_vcf_cases() {
    let mut found = [0u32; 12];
    for seed in 0..20_000u64 {
        let rule = [Rule::Freestyle, Rule::Standard, Rule::Renju][(seed % 3) as usize];
        let Some(pos) = random_position(rule, 15, 24 + (seed % 20) as usize, seed) else {
            continue;
        };
        if !pos.five_points(Side::First).is_empty() || !pos.five_points(Side::Second).is_empty() {
            continue;
        }
        if let VcfResult::Win(line) = pos.vcf(100_000) {
            let mut plies = 1;
            while !ref_vcf(&pos, plies) {
                plies += 2;
                if plies > 11 {
                    break;
                }
            }
            if plies > 11 || found[plies as usize] >= 2 {
                continue;
            }
            found[plies as usize] += 1;
            let (b, w) = stones(&pos);
            let j = |v: &[GomokuMove]| {
                v.iter()
                    .map(|m| m.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            };
            let side = if pos.side_to_move() == Side::First {
                "black"
            } else {
                "white"
            };
            println!(
                "{} 15 {side} {plies} {} {}  # line {}",
                rule,
                j(&b),
                j(&w),
                j(&line)
            );
        }
    }
}

#[test]
fn tactical_proof_names_the_vcf_first_move_among_the_search_moves() {
    for c in cases() {
        let proof = c.pos.tactical_proof(200_000).expect("a VCF is a proof");
        assert_eq!(proof.outcome, Outcome::Win);
        let mut set = Vec::new();
        c.pos.search_moves(&mut set);
        assert!(set.contains(&proof.best.unwrap()), "{}", c.text);
    }
}

/// Checks a VCT first move `m` of at most `threats` non-four threats against **every** legal
/// reply (far ones included): after `m` and any reply the attacker has a VCF, or (with
/// threats left) a VCT whose own first move passes the same check.
fn check_vct_win(pos: &Gomoku, m: GomokuMove, threats: u32) {
    let mut after = pos.clone();
    after.play(m).unwrap();
    assert!(after.outcome().is_none(), "{m} ends the game");
    for r in after.legal_moves_vec() {
        let mut q = after.clone();
        q.play(r).unwrap();
        match q.outcome() {
            Some(Outcome::Win) => continue, // the defender's reply was a foul
            Some(o) => panic!("reply {r} to {m} ends the game with {o:?}\n{pos}"),
            None => {}
        }
        if matches!(q.vcf(1_000_000), VcfResult::Win(_)) {
            continue;
        }
        assert!(
            threats > 1,
            "after {m} the reply {r} refutes the VCT\n{pos}"
        );
        let (next, _) = q.vct(threats - 1, 1_000_000);
        let next = next.unwrap_or_else(|| panic!("after {m} the reply {r} refutes the VCT\n{pos}"));
        check_vct_win(&q, next, threats - 1);
    }
}

#[test]
fn vct_finds_a_double_three_that_no_vcf_sees() {
    let p = |s: &str| GomokuMove::parse_coord(s).unwrap();
    let black = [p("f8"), p("g8"), p("h6"), p("h7")];
    let white = [p("a15"), p("c15"), p("o1"), p("m1")];
    for (rule, wins) in [
        (Rule::Freestyle, true),
        (Rule::Standard, true),
        (Rule::Renju, false), // h8 is a double three: forbidden for black
    ] {
        let cfg = GomokuConfig::new(15, rule).unwrap();
        let pos = Gomoku::from_stones(&cfg, &black, &white, Side::First).unwrap();
        assert_eq!(pos.vcf(100_000), VcfResult::NoWin, "{rule}");
        let (found, _) = pos.vct(1, 200_000);
        assert_eq!(found.is_some(), wins, "{rule}: {found:?}");
        if let Some(m) = found {
            check_vct_win(&pos, m, 1);
        }
    }
}

#[test]
fn one_threat_vcts_in_random_positions_hold_against_every_reply() {
    let mut checked = 0;
    for seed in 0..400u64 {
        let rule = [Rule::Freestyle, Rule::Standard, Rule::Renju][(seed % 3) as usize];
        let Some(pos) = random_position(rule, 13, 12 + (seed % 14) as usize, seed) else {
            continue;
        };
        if pos.vcf(100_000) != VcfResult::NoWin
            || !pos.five_points(pos.side_to_move().opponent()).is_empty()
        {
            continue;
        }
        if let (Some(m), _) = pos.vct(1, 50_000) {
            check_vct_win(&pos, m, 1);
            checked += 1;
            if checked >= 5 {
                break;
            }
        }
    }
    assert!(checked >= 3, "only {checked} VCT positions found");
}

/// The rows of `tests/data/must-defend.tsv` (made by `scripts/gomoku-must-defend.py make`,
/// classified by Rapfi): the position after the moves, and the moves Rapfi found no forced
/// win against (the defences).
fn must_defend_rows() -> Vec<(String, Gomoku, Vec<GomokuMove>)> {
    let text = include_str!("data/must-defend.tsv");
    let point = |t: &str| -> GomokuMove {
        let (x, y) = t.split_once(',').expect("x,y");
        GomokuMove::new(x.parse().unwrap(), y.parse().unwrap())
    };
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("moves\t") && !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 5, "row {l:?}");
            let mut pos = Gomoku::new(&GomokuConfig::new(15, Rule::Freestyle).unwrap());
            for t in f[0].split_whitespace() {
                pos.play(point(t))
                    .unwrap_or_else(|e| panic!("row {l:?}: {e}"));
            }
            let side = match f[1] {
                "black" => Side::First,
                "white" => Side::Second,
                s => panic!("side {s}"),
            };
            assert_eq!(pos.side_to_move(), side, "row {l:?}");
            let defences = f[2].split_whitespace().map(point).collect();
            (l.to_string(), pos, defences)
        })
        .collect()
}

#[test]
fn must_defend_rows_are_open_positions_whose_defences_no_vcf_refutes() {
    // The defence yardstick is another engine's classification: a listed defence that our
    // exact VCF refutes would mean a wrong row (or a wrong VCF), and either falsifies the
    // defence figure measured on the file.
    let rows = must_defend_rows();
    assert!(rows.len() >= 50, "the file holds {} positions", rows.len());
    for (line, pos, defences) in &rows {
        assert!(pos.outcome().is_none(), "a finished game: {line}");
        assert!(
            !matches!(pos.vcf(200_000), VcfResult::Win(_)),
            "the side to move has a VCF, so it has nothing to defend: {line}"
        );
        let legal = pos.legal_moves_vec();
        assert!(!defences.is_empty() && defences.len() < legal.len());
        for &d in defences {
            assert!(legal.contains(&d), "defence {d} is not legal: {line}");
            let mut after = pos.clone();
            after.play(d).unwrap();
            assert!(
                !matches!(after.vcf(200_000), VcfResult::Win(_)),
                "the opponent wins by VCF after the listed defence {d}: {line}"
            );
        }
    }
}

/// The rows of `tests/data/rapfi-wins.tsv` (made by `scripts/gomoku-must-defend.py wins`):
/// positions where Rapfi proves a forced win for the side to move, and its length in plies.
fn rapfi_win_rows() -> Vec<(String, Gomoku, u32)> {
    let text = include_str!("data/rapfi-wins.tsv");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("moves\t") && !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4, "row {l:?}");
            let mut pos = Gomoku::new(&GomokuConfig::new(15, Rule::Freestyle).unwrap());
            for t in f[0].split_whitespace() {
                let (x, y) = t.split_once(',').expect("x,y");
                pos.play(GomokuMove::new(x.parse().unwrap(), y.parse().unwrap()))
                    .unwrap_or_else(|e| panic!("row {l:?}: {e}"));
            }
            let plies = f[2].strip_prefix("+M").and_then(|m| m.parse().ok());
            (
                l.to_string(),
                pos,
                plies.unwrap_or_else(|| panic!("eval of {l:?}")),
            )
        })
        .collect()
}

#[test]
fn vct_proves_every_rapfi_win_of_at_most_five_plies() {
    // A win in five plies is a VCF or one three and a VCF: the threat search must see all.
    let mut checked = 0;
    for (line, pos, plies) in rapfi_win_rows() {
        if plies > 5 {
            continue;
        }
        let (found, _) = pos.vct(8, 40_000);
        assert!(found.is_some(), "no VCT found: {line}\n{pos}");
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} short wins in the data");
}

#[test]
fn two_threat_vcts_of_rapfi_wins_hold_against_every_reply() {
    // The threat search's proofs skip defender replies that cannot touch the attacker's
    // fours, and replay the fours instead of searching: checked here against every legal
    // reply, on the positions where a win needs two threes.
    let mut checked = 0;
    for (line, pos, _) in rapfi_win_rows() {
        if pos.vct(1, 200_000).0.is_some() {
            continue;
        }
        let Some(m) = pos.vct(2, 40_000).0 else {
            continue;
        };
        check_vct_win(&pos, m, 2);
        checked += 1;
        if checked == 4 {
            break;
        }
        let _ = line;
    }
    assert!(checked >= 2, "only {checked} two-threat wins in the data");
}

/// Checks [`Game::threat_replies`] where it narrows: every legal move it leaves out loses to a
/// VCF of the opponent (searched afresh, with a large budget), and what it keeps is legal.
/// Returns whether it narrowed.
fn check_threat_replies(pos: &Gomoku) -> bool {
    let mut kept = Vec::new();
    if !pos.threat_replies(2_000, &mut kept) {
        return false;
    }
    let legal = pos.legal_moves_vec();
    assert!(!kept.is_empty());
    for m in &kept {
        assert!(legal.contains(m), "{m} is not legal\n{pos}");
    }
    for &m in legal.iter().filter(|m| !kept.contains(m)) {
        let mut after = pos.clone();
        after.play(m).unwrap();
        if after.outcome().is_some() {
            panic!("{m}, left out, ends the game\n{pos}");
        }
        assert!(
            matches!(after.vcf(1_000_000), VcfResult::Win(_)),
            "{m}, left out of the threat replies, does not lose to a VCF\n{pos}"
        );
    }
    true
}

#[test]
fn threat_replies_leave_out_only_moves_that_lose_to_a_vcf() {
    let mut narrowed = 0;
    for seed in 0..300u64 {
        let rule = [Rule::Freestyle, Rule::Standard][(seed % 2) as usize];
        let Some(pos) = random_position(rule, 15, 14 + (seed % 20) as usize, seed) else {
            continue;
        };
        narrowed += usize::from(check_threat_replies(&pos));
    }
    for (_, pos, _) in must_defend_rows().into_iter().take(30) {
        narrowed += usize::from(check_threat_replies(&pos));
    }
    assert!(narrowed >= 20, "only {narrowed} positions narrowed");
}

#[test]
fn threat_replies_keep_every_defence_rapfi_found() {
    // An independent engine's defences against the threat must all survive the narrowing.
    let mut narrowed = 0;
    for (line, pos, defences) in must_defend_rows() {
        let mut kept = Vec::new();
        if !pos.threat_replies(2_000, &mut kept) {
            continue;
        }
        narrowed += 1;
        for d in &defences {
            assert!(
                kept.contains(d),
                "Rapfi's defence {d} left out: {line}\n{pos}"
            );
        }
        assert!(kept.len() < pos.legal_moves_vec().len());
    }
    assert!(
        narrowed >= 30,
        "only {narrowed} must-defend positions narrowed"
    );
}

#[test]
fn threat_replies_do_not_narrow_under_renju() {
    for (_, pos, _) in must_defend_rows().into_iter().take(10) {
        let mut stones = [Vec::new(), Vec::new()];
        for y in 0..15u8 {
            for x in 0..15u8 {
                match pos.stone_at(x.into(), y.into()) {
                    Some(Side::First) => stones[0].push(GomokuMove::new(x, y)),
                    Some(Side::Second) => stones[1].push(GomokuMove::new(x, y)),
                    None => {}
                }
            }
        }
        let cfg = GomokuConfig::new(15, Rule::Renju).unwrap();
        let Ok(renju) = Gomoku::from_stones(&cfg, &stones[0], &stones[1], pos.side_to_move())
        else {
            continue;
        };
        assert!(!renju.threat_replies(2_000, &mut Vec::new()));
    }
}
