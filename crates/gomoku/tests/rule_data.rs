//! Data-driven rule tests over the repository's `tests/data/gomoku` (rule_tests.json and the
//! forbidden-point cases of renju_puzzles.json).

use alphazero_game::{Game, Outcome, Side};
use alphazero_gomoku::{Gomoku, GomokuConfig, GomokuMove, Rule};
use serde_json::Value;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/gomoku");

fn load(name: &str) -> Value {
    let path = format!("{DATA}/{name}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {path}: {e}"))
}

/// `Xa0` → (side, move): colour, column letter, 0-based row index of the board list.
fn parse_op_move(text: &str) -> (Side, GomokuMove) {
    let side = match &text[..1] {
        "X" => Side::First,
        "O" => Side::Second,
        other => panic!("bad colour {other:?} in {text:?}"),
    };
    let x = text.as_bytes()[1] - b'a';
    let y: u8 = text[2..]
        .parse()
        .unwrap_or_else(|_| panic!("bad row in {text:?}"));
    (side, GomokuMove::new(x, y))
}

fn position(rule: Rule, black: &[GomokuMove], white: &[GomokuMove], stm: Side) -> Gomoku {
    let config = GomokuConfig::new(15, rule).unwrap();
    Gomoku::from_stones(&config, black, white, stm).unwrap()
}

#[test]
fn rule_tests_json_cases_all_pass() {
    let cases = load("rule_tests.json");
    let cases = cases.as_array().expect("a list of cases");
    assert_eq!(cases.len(), 25);
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in cases {
        let name = format!("{} ({})", case["test"].as_str().unwrap(), case["rule"]);
        let rule: Rule = case["rule"].as_str().unwrap().parse().unwrap();
        let (mut black, mut white) = (Vec::new(), Vec::new());
        for (y, row) in case["board"].as_array().unwrap().iter().enumerate() {
            for (x, c) in row.as_str().unwrap().chars().enumerate() {
                let mv = GomokuMove::new(x as u8, y as u8);
                match c {
                    'X' => black.push(mv),
                    'O' => white.push(mv),
                    '_' | '!' => {}
                    other => panic!("{name}: bad board char {other:?}"),
                }
            }
        }
        for op in case["ops"].as_array().unwrap() {
            let (side, mv) = parse_op_move(op["move"].as_str().unwrap());
            match op["op"].as_str().unwrap() {
                "check_forbidden" => {
                    let pos = position(rule, &black, &white, Side::First);
                    let got = side == Side::First && pos.is_forbidden(mv).is_some();
                    let want = op["expect"].as_bool().unwrap();
                    if got != want {
                        failures.push(format!(
                            "{name}: forbidden({side:?} {mv}) = {got} ({:?}), expected {want}",
                            pos.is_forbidden(mv)
                        ));
                    }
                    checked += 1;
                }
                "outcome_after" => {
                    let rule: Rule = op["rule"].as_str().unwrap().parse().unwrap();
                    let mut pos = position(rule, &black, &white, side);
                    pos.play(mv).unwrap();
                    let got = match pos.outcome() {
                        None => "UNKNOWN",
                        Some(Outcome::Draw) => "DRAW",
                        Some(o) => match o.winner(pos.side_to_move()) {
                            Some(Side::First) => "CROSS_WIN",
                            _ => "CIRCLE_WIN",
                        },
                    };
                    let want = op["expect"].as_str().unwrap();
                    if got != want {
                        failures.push(format!(
                            "{name}: outcome after {side:?} {mv} = {got}, expected {want}"
                        ));
                    }
                    checked += 1;
                }
                "add" => match side {
                    Side::First => black.push(mv),
                    Side::Second => white.push(mv),
                },
                "undo" => {
                    let list = match side {
                        Side::First => &mut black,
                        Side::Second => &mut white,
                    };
                    let i = list
                        .iter()
                        .position(|&m| m == mv)
                        .unwrap_or_else(|| panic!("{name}: undo of absent stone {mv}"));
                    list.remove(i);
                }
                other => panic!("{name}: unknown op {other:?}"),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 80, "only {checked} checks ran");
}

fn parse_points(v: &Value) -> Vec<GomokuMove> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| GomokuMove::parse_coord(s.as_str().unwrap()).unwrap())
        .collect()
}

#[test]
fn renju_puzzles_forbidden_points_all_pass() {
    let data = load("renju_puzzles.json");
    let cases = data["forbidden"].as_array().expect("forbidden cases");
    assert!(!cases.is_empty());
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let black = parse_points(&case["black"]);
        let white = parse_points(&case["white"]);
        // The grid (row 15 first) must agree with the stone lists in our coordinates.
        for (r, row) in case["grid"].as_array().unwrap().iter().enumerate() {
            for (x, c) in row.as_str().unwrap().chars().enumerate() {
                let mv = GomokuMove::new(x as u8, 14 - r as u8);
                assert_eq!(
                    c == 'B',
                    black.contains(&mv),
                    "case {i}: grid vs black at {mv}"
                );
                assert_eq!(
                    c == 'W',
                    white.contains(&mv),
                    "case {i}: grid vs white at {mv}"
                );
            }
        }
        let pos = position(Rule::Renju, &black, &white, Side::First);
        let point = case["point"].as_str().unwrap();
        if point == "ALL" {
            let mut want: Vec<String> = case["expect"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    let mv = GomokuMove::parse_coord(p[1].as_str().unwrap()).unwrap();
                    format!("{} {}", p[0].as_str().unwrap(), mv)
                })
                .collect();
            let mut got: Vec<String> = pos
                .forbidden_points()
                .iter()
                .map(|(mv, f)| format!("{f} {mv}"))
                .collect();
            want.sort();
            got.sort();
            if got != want {
                failures.push(format!(
                    "case {i}: all fouls {got:?}, expected {want:?}\n{pos}"
                ));
            }
        } else {
            let mv = GomokuMove::parse_coord(point).unwrap();
            let got = pos.is_forbidden(mv).map(|f| f.to_string());
            let want = case["expect"].as_str().map(str::to_string);
            if got != want {
                failures.push(format!(
                    "case {i}: {mv} foul {got:?}, expected {want:?}\n{pos}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
