//! Repetition rules (perpetual check, perpetual chase) from the data file
//! `tests/data/repetition.tsv`: each row plays moves from a FEN under a repetition rule and
//! states the result and the [`EndReason`] after the last move.

use alphazero_game::{Game, History, Outcome, Side};
use alphazero_xiangqi::{EndReason, Move, RepetitionRule, Xiangqi, XiangqiConfig};

const DATA: &str = include_str!("data/repetition.tsv");

/// One row of the data file.
struct Case {
    line: usize,
    rule: RepetitionRule,
    fen: String,
    moves: Vec<Move>,
    times: usize,
    result: String,
    reason: String,
    note: String,
}

fn parse_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for (i, text) in DATA.lines().enumerate() {
        let line = i + 1;
        if text.trim().is_empty() || text.starts_with('#') || text.starts_with("rule\t") {
            continue;
        }
        let cols: Vec<&str> = text.split('\t').collect();
        assert_eq!(
            cols.len(),
            7,
            "line {line}: expected 7 tab-separated columns, found {}: {text:?}",
            cols.len()
        );
        let rule = RepetitionRule::parse(cols[0]).unwrap_or_else(|e| panic!("line {line}: {e}"));
        let moves = cols[2]
            .split_whitespace()
            .map(|m| m.parse().unwrap_or_else(|e| panic!("line {line}: {e}")))
            .collect();
        let times = cols[3]
            .parse()
            .unwrap_or_else(|e| panic!("line {line}: times {:?}: {e}", cols[3]));
        cases.push(Case {
            line,
            rule,
            fen: cols[1].to_string(),
            moves,
            times,
            result: cols[4].to_string(),
            reason: cols[5].to_string(),
            note: cols[6].to_string(),
        });
    }
    cases
}

fn result_word(o: Option<Outcome>, side_to_move: Side) -> &'static str {
    match o {
        None => "none",
        Some(o) => match o.winner(side_to_move) {
            Some(Side::First) => "red",
            Some(Side::Second) => "black",
            None => "draw",
        },
    }
}

#[test]
fn repetition_cases_from_the_data_file() {
    let cases = parse_cases();
    assert!(cases.len() >= 10, "only {} cases read", cases.len());
    let mut failures = Vec::new();
    for c in &cases {
        let config = XiangqiConfig {
            repetition: c.rule,
            ..XiangqiConfig::default()
        };
        let start =
            Xiangqi::from_fen(&c.fen, config).unwrap_or_else(|e| panic!("line {}: {e}", c.line));
        let mut game = History::new(start);
        let all: Vec<Move> = (0..c.times).flat_map(|_| c.moves.iter().copied()).collect();
        for (ply, &mv) in all.iter().enumerate() {
            if let Err(e) = game.play(mv) {
                panic!(
                    "line {} ({}): ply {} {mv}: {e} (ended by {:?})",
                    c.line,
                    c.note,
                    ply + 1,
                    game.current().end_reason(game.entries())
                );
            }
        }
        let pos = game.current();
        let got = result_word(game.outcome(), pos.side_to_move());
        let reason = pos.end_reason(game.entries());
        let got_reason = reason.map_or("-", EndReason::tag);
        // The reason agrees with the adjudicated outcome.
        if let Some(EndReason::Repetition(v)) = reason {
            assert_eq!(
                Some(v.outcome(pos.side_to_move())),
                game.outcome(),
                "line {}",
                c.line
            );
        }
        assert_eq!(
            reason.is_some(),
            game.outcome().is_some(),
            "line {}",
            c.line
        );
        if got != c.result || got_reason != c.reason {
            failures.push(format!(
                "line {} ({}, {}): expected {} / {}, got {got} / {got_reason} ({})",
                c.line,
                c.rule,
                c.note,
                c.result,
                c.reason,
                reason.map_or("-".to_string(), |r| r.to_string())
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Under the default (Asian) rule the adjudicated outcome also changes what `Game::adjudicate`
/// reports inside a search, not just the reason: the chasing side to move has lost.
#[test]
fn issue_example_chariot_chasing_a_horse_loses_by_default() {
    let start = Xiangqi::from_fen(
        "4k2n1/9/9/9/9/9/9/9/6R2/3K5 w - - 0 1",
        XiangqiConfig::default(),
    )
    .expect("FEN");
    let mut game = History::new(start);
    for _ in 0..2 {
        for m in ["g1h1", "h9g7", "h1g1", "g7h9"] {
            game.play(m.parse().expect("ICCS")).expect("legal");
        }
    }
    let pos = game.current();
    assert_eq!(pos.side_to_move(), Side::First);
    assert_eq!(pos.adjudicate(game.entries()), Some(Outcome::Loss));
    assert_eq!(
        pos.end_reason(game.entries()).map(|r| r.to_string()),
        Some("repetition: perpetual chase by red loses".to_string())
    );
}
