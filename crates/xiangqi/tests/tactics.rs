//! Mate tactics ([`Game::tactical_proof`], [`Xiangqi::mate_search`], [`Xiangqi::mates_in_one`])
//! against the reference minimax [`reference::mating_moves`]: the positions of
//! `tests/data/mates.tsv` (and Fairy-Stockfish's mates in one, `mates-ffish.tsv`), ElephantEye's
//! mates in two and three (`mates-eleeye.tsv`), the no-capture draw, and random playouts (every
//! claimed mate is replayed with the public rules, every defender reply considered).

use alphazero_game::{Game, Outcome, Side};
use alphazero_xiangqi::{reference, MateResult, Move, Xiangqi, XiangqiConfig, MAX_MATE_PLIES};
use proptest::prelude::*;

/// The data files: (name, text).
const DATA: [(&str, &str); 3] = [
    ("mates.tsv", include_str!("data/mates.tsv")),
    ("mates-random.tsv", include_str!("data/mates-random.tsv")),
    // Made and classified by Fairy-Stockfish (scripts/xiangqi-mates-in-one.py): the
    // reference's mating moves must be exactly its moves that end the game.
    ("mates-ffish.tsv", include_str!("data/mates-ffish.tsv")),
];

/// Enough nodes for every mate of the data file (the longest needs under 1,000).
const BUDGET: u32 = 100_000;

/// One row of the data file.
struct Case {
    /// `file:line`.
    line: String,
    pos: Xiangqi,
    side: Side,
    /// The shortest mate by checks in plies; `None` for `-`.
    plies: Option<u32>,
    moves: Vec<Move>,
    note: String,
}

fn parse_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for (file, data) in DATA {
        cases.extend(parse_file(file, data));
    }
    cases
}

fn parse_file(file: &str, data: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    for (i, text) in data.lines().enumerate() {
        let line = format!("{file}:{}", i + 1);
        if text.trim().is_empty() || text.starts_with('#') || text.starts_with("fen\t") {
            continue;
        }
        let cols: Vec<&str> = text.split('\t').collect();
        assert_eq!(
            cols.len(),
            5,
            "{line}: expected 5 tab-separated columns, found {}: {text:?}",
            cols.len()
        );
        let pos = Xiangqi::from_fen(cols[0], XiangqiConfig::default())
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        let side = match cols[1] {
            "red" => Side::First,
            "black" => Side::Second,
            other => panic!("{line}: side {other:?} is neither red nor black"),
        };
        let plies = match cols[2] {
            "-" => None,
            n => Some(
                n.parse()
                    .unwrap_or_else(|e| panic!("{line}: plies {n:?}: {e}")),
            ),
        };
        let moves = match cols[3] {
            "-" => Vec::new(),
            list => list
                .split_whitespace()
                .map(|m| m.parse().unwrap_or_else(|e| panic!("{line}: {e}")))
                .collect(),
        };
        cases.push(Case {
            line,
            pos,
            side,
            plies,
            moves,
            note: cols[4].to_string(),
        });
    }
    cases
}

fn sorted(mut v: Vec<Move>) -> Vec<Move> {
    v.sort();
    v
}

fn text(moves: &[Move]) -> String {
    moves
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Replays a claimed mate of at most `plies` plies with the public rules: every move legal
/// (checked play), every attacker move a check when the mate is longer than one ply, and at
/// each attacker turn the reference minimax confirms that the move wins within the plies left
/// against **every** reply; the last position has no legal move.
fn verify_line(pos: &Xiangqi, plies: u32, line: &[Move]) -> Result<(), String> {
    if line.is_empty() || line.len().is_multiple_of(2) || line.len() as u32 > plies {
        return Err(format!(
            "line [{}] of {} plies for a mate in {plies}",
            text(line),
            line.len()
        ));
    }
    let mut p = pos.clone();
    for (i, &m) in line.iter().enumerate() {
        if i % 2 == 0 {
            let left = plies - i as u32;
            if !reference::mating_moves(&p, left, true).contains(&m) {
                return Err(format!(
                    "ply {}: {m} does not force a mate by checks within {left} plies in {}",
                    i + 1,
                    p.to_fen()
                ));
            }
        }
        p.play(m).map_err(|e| format!("ply {}: {e}", i + 1))?;
        if i % 2 == 0 && plies > 1 && !p.in_check() {
            return Err(format!("ply {}: {m} gives no check", i + 1));
        }
    }
    if p.outcome() != Some(Outcome::Loss) {
        return Err(format!(
            "after [{}] the defender still has a move: {}",
            text(line),
            p.to_fen()
        ));
    }
    Ok(())
}

/// What is wrong with the search's answer for one data row, if anything.
fn check_case(c: &Case) -> Result<(), String> {
    if c.pos.side_to_move() != c.side {
        return Err("the side column disagrees with the FEN".into());
    }
    let reference_plies = reference::shortest_mate(&c.pos, 7, true);
    if reference_plies != c.plies {
        return Err(format!(
            "the reference finds a mate by checks in {reference_plies:?} plies, the file says {:?}",
            c.plies
        ));
    }
    let (result, nodes) = c.pos.mate_search(BUDGET, MAX_MATE_PLIES);
    let proof = c.pos.tactical_proof(BUDGET);
    match c.plies {
        Some(n) => {
            let want = sorted(reference::mating_moves(&c.pos, n, true));
            if want != sorted(c.moves.clone()) {
                return Err(format!(
                    "the reference's mating moves are [{}], the file says [{}]",
                    text(&want),
                    text(&c.moves)
                ));
            }
            let MateResult::Win { plies, line } = result else {
                return Err(format!("no mate found ({result:?}, {nodes} nodes)"));
            };
            if plies != n {
                return Err(format!("a mate in {plies} plies found, not {n}"));
            }
            if !c.moves.contains(&line[0]) {
                return Err(format!(
                    "first move {} is not a listed mating move",
                    line[0]
                ));
            }
            verify_line(&c.pos, plies, &line)?;
            let proof = proof.ok_or("tactical_proof proves nothing")?;
            if proof.outcome != Outcome::Win || proof.best != Some(line[0]) || proof.line != line {
                return Err(format!(
                    "tactical_proof disagrees with mate_search: {proof:?}"
                ));
            }
        }
        None => {
            if result != MateResult::NoWin {
                return Err(format!("expected no mate by checks, found {result:?}"));
            }
            if let Some(p) = proof {
                return Err(format!("tactical_proof claims {p:?}"));
            }
        }
    }
    Ok(())
}

#[test]
fn mate_cases_from_the_data_file() {
    let cases = parse_cases();
    assert!(cases.len() >= 60, "only {} cases read", cases.len());
    for n in [Some(1), Some(3), Some(5), None] {
        assert!(
            cases.iter().any(|c| c.plies == n),
            "no case with plies {n:?}"
        );
    }
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| {
            check_case(c)
                .err()
                .map(|e| format!("{} ({}): {e}", c.line, c.note))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// ElephantEye's mates in two and three (`mates-eleeye.tsv`, made by
/// `scripts/xiangqi-material.py mates`; quiet moves allowed, so its columns mean the shortest
/// mate over all moves): the reference minimax over every move finds no shorter mate and
/// exactly the listed first moves, and where the reference also mates by checks in that many
/// plies, the check search proves it with one of them.
#[test]
fn eleeye_mates_in_two_and_three_agree_with_the_reference() {
    let cases = parse_file("mates-eleeye.tsv", include_str!("data/mates-eleeye.tsv"));
    let mut failures = Vec::new();
    let mut by_checks = 0;
    for c in &cases {
        let fail = |e: String| format!("{} ({}): {e}", c.line, c.note);
        let Some(n) = c.plies.filter(|n| *n >= 3) else {
            failures.push(fail(format!(
                "plies {:?}, not a mate in two or more",
                c.plies
            )));
            continue;
        };
        if c.pos.side_to_move() != c.side {
            failures.push(fail("the side column disagrees with the FEN".into()));
        }
        let shorter = reference::mating_moves(&c.pos, n - 2, false);
        if !shorter.is_empty() {
            failures.push(fail(format!("a shorter mate: [{}]", text(&shorter))));
            continue;
        }
        let want = sorted(reference::mating_moves(&c.pos, n, false));
        if want != sorted(c.moves.clone()) {
            failures.push(fail(format!(
                "the reference's first moves are [{}], ElephantEye's [{}]",
                text(&want),
                text(&c.moves)
            )));
        }
        if reference::shortest_mate(&c.pos, n, true) == Some(n) {
            by_checks += 1;
            match c.pos.mate_search(BUDGET, MAX_MATE_PLIES) {
                (MateResult::Win { plies, line }, _) if plies == n && c.moves.contains(&line[0]) => {}
                (other, nodes) => failures.push(fail(format!(
                    "a mate by checks in {n} plies; the check search gives {other:?} ({nodes} nodes)"
                ))),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for n in [3, 5] {
        let count = cases.iter().filter(|c| c.plies == Some(n)).count();
        assert!(count >= 25, "only {count} mates in {n} plies");
    }
    // Most of these mates need a quiet move; 7 of the 60 are mates by checks as long.
    assert!(by_checks >= 5, "only {by_checks} mates by checks");
}

#[test]
fn budget_zero_still_finds_every_mate_in_one() {
    for c in parse_cases() {
        let proof = c.pos.tactical_proof(0);
        if c.plies == Some(1) {
            let best = proof.and_then(|p| p.best);
            assert!(
                best.is_some_and(|b| c.moves.contains(&b)),
                "{}: budget 0 gives {best:?}, mates in one are [{}]",
                c.line,
                text(&c.moves)
            );
        } else {
            assert_eq!(
                proof, None,
                "{}: budget 0 proves more than mate in one",
                c.line
            );
        }
        assert_eq!(
            sorted(c.pos.mates_in_one()),
            sorted(reference::mating_moves(&c.pos, 1, false)),
            "{}",
            c.line
        );
    }
}

/// Regression guard: a mate by checks must be complete before the no-capture draw, which
/// ends the game as soon as the clock reaches the limit (unless the side to move is mated).
#[test]
fn mate_search_respects_the_no_capture_draw() {
    // Red mates by checks in 5 plies, none of them a capture.
    let board = "5ab2/1H2k4/H4a2R/8C/2b6/9/n8/5K3/9/3A5 w - -";
    let config = XiangqiConfig::default();
    let limit = config.no_capture_draw_plies;
    let mut seen_short = false;
    for clock in limit - 8..=limit {
        let pos = Xiangqi::from_fen(&format!("{board} {clock} 1"), config).unwrap();
        let want = reference::shortest_mate(&pos, 7, true);
        let (got, _) = pos.mate_search(BUDGET, 7);
        let got_plies = match &got {
            MateResult::Win { plies, line } => {
                verify_line(&pos, *plies, line).unwrap_or_else(|e| panic!("clock {clock}: {e}"));
                Some(*plies)
            }
            _ => None,
        };
        assert_eq!(got_plies, want, "clock {clock}: {got:?}");
        if clock == limit - 5 {
            assert_eq!(want, Some(5), "the 5-ply mate still fits at clock {clock}");
        }
        if clock == limit - 4 {
            assert_ne!(
                want,
                Some(5),
                "the 5-ply mate is drawn first at clock {clock}"
            );
            seen_short = true;
        }
        if clock == limit {
            assert_eq!(got, MateResult::Unknown, "the game is already drawn");
            assert_eq!(pos.tactical_proof(BUDGET), None);
        }
    }
    assert!(seen_short);
}

/// A mate in one at clock `limit − 1` still wins: the mated side has no move, which the rules
/// judge before the clock.
#[test]
fn mate_in_one_beats_the_no_capture_draw() {
    let config = XiangqiConfig::default();
    let clock = config.no_capture_draw_plies - 1;
    let pos = Xiangqi::from_fen(
        &format!("4k4/R8/9/9/9/9/9/9/1R7/3K5 w - - {clock} 1"),
        config,
    )
    .unwrap();
    let proof = pos.tactical_proof(0).expect("mate in one");
    let mut after = pos.clone();
    after.play(proof.best.unwrap()).unwrap();
    assert_eq!(after.outcome(), Some(Outcome::Loss));
}

/// The starts of the random playouts: the standard position and every data-file position.
fn starts() -> Vec<Xiangqi> {
    let mut s = vec![Xiangqi::new(&XiangqiConfig::default())];
    s.extend(parse_cases().into_iter().map(|c| c.pos));
    s
}

/// The positions of a random playout from start `start % n`, the start included, choosing
/// move `choice % len` at each ply and stopping when the game is over by the position.
fn playout(starts: &[Xiangqi], start: usize, choices: &[u32]) -> Vec<Xiangqi> {
    let mut p = starts[start % starts.len()].clone();
    let mut out = vec![p.clone()];
    for &c in choices {
        if p.outcome().is_some() {
            break;
        }
        let moves = p.legal_moves_vec();
        p.play_unchecked(moves[c as usize % moves.len()]);
        out.push(p.clone());
    }
    out
}

/// What the claims of one position came to: (claims checked, mates by checks in ≤ 3 plies
/// the reference knows of).
fn check_position(pos: &Xiangqi, budget: u32) -> Result<(u32, u32), String> {
    if pos.outcome().is_some() {
        return Ok((0, 0));
    }
    let fen = pos.to_fen();
    if sorted(pos.mates_in_one()) != sorted(reference::mating_moves(pos, 1, false)) {
        return Err(format!("{fen}: mates in one disagree with the reference"));
    }
    let (result, _) = pos.mate_search(budget, MAX_MATE_PLIES);
    let proof = pos.tactical_proof(budget);
    let mut claims = 0;
    if let MateResult::Win { plies, line } = &result {
        claims = 1;
        if proof.as_ref().and_then(|p| p.best) != Some(line[0]) {
            return Err(format!(
                "{fen}: tactical_proof {proof:?} differs from {result:?}"
            ));
        }
        // The brute force over all moves must find a win of that length too.
        if *plies <= 3 && !reference::mating_moves(pos, *plies, false).contains(&line[0]) {
            return Err(format!(
                "{fen}: claimed mate in {plies} by {} that the brute force does not find",
                line[0]
            ));
        }
        if *plies <= 7 {
            verify_line(pos, *plies, line).map_err(|e| format!("{fen}: {e}"))?;
        }
        let mut seen = vec![pos.zobrist()];
        let mut p = pos.clone();
        for &m in line {
            p.play_unchecked(m);
            if seen.contains(&p.zobrist()) {
                return Err(format!(
                    "{fen}: the line [{}] repeats a position",
                    text(line)
                ));
            }
            seen.push(p.zobrist());
        }
    } else if proof.is_some() {
        return Err(format!("{fen}: tactical_proof {proof:?} without a mate"));
    }
    // Completeness for short mates: a mate by checks in ≤ 3 plies is found unless the budget
    // ran out first.
    let short = reference::shortest_mate(pos, 3, true);
    if let Some(n) = short {
        match &result {
            MateResult::Win { plies, .. } if *plies == n => {}
            MateResult::Unknown if n > 1 => {}
            other => {
                return Err(format!(
                    "{fen}: the reference mates by checks in {n}, the search gives {other:?}"
                ))
            }
        }
    }
    Ok((claims, u32::from(short.is_some())))
}

/// A small deterministic generator (SplitMix64) for the fixed-seed playouts.
fn choices(seed: u64, n: usize) -> Vec<u32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            let (next, z) = alphazero_game::splitmix64(s);
            s = next;
            (z >> 32) as u32
        })
        .collect()
}

/// Fixed-seed playouts: every claim is a real mate, and the playouts do reach positions with
/// mates (so the property below is not vacuous).
#[test]
fn claimed_mates_on_fixed_playouts_are_real() {
    let starts = starts();
    let (mut claims, mut short) = (0, 0);
    for seed in 0..60u64 {
        for p in playout(&starts, seed as usize, &choices(seed, 120)) {
            let (c, s) = check_position(&p, 2_000).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            claims += c;
            short += s;
        }
    }
    assert!(claims >= 20, "only {claims} claims checked");
    assert!(short >= 10, "only {short} short mates checked");
}

fn cfg() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48);
    ProptestConfig::with_cases(cases)
}

proptest! {
    #![proptest_config(cfg())]

    /// `tactical_proof` never claims a win the brute force does not confirm, and never misses
    /// a mate by checks in ≤ 3 plies, on random positions reached by random play.
    #[test]
    fn tactical_proof_claims_only_real_mates(
        start in 0usize..64,
        picks in proptest::collection::vec(any::<u32>(), 0..160),
        budget in prop_oneof![Just(0u32), Just(50), Just(2_000)],
    ) {
        let starts = starts();
        for p in playout(&starts, start, &picks) {
            if let Err(e) = check_position(&p, budget) {
                return Err(TestCaseError::fail(e));
            }
        }
    }
}
