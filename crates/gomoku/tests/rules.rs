//! Hand-written rule tests: wins on edges and corners in every direction, draws, overlines,
//! renju fouls as played moves, notation, set-up and error reporting.

use alphazero_game::{Game, Outcome, Side};
use alphazero_gomoku::{Foul, Gomoku, GomokuConfig, GomokuMove, Rule};

fn mv(s: &str) -> GomokuMove {
    s.parse().unwrap()
}

fn moves(list: &[&str]) -> Vec<GomokuMove> {
    list.iter().map(|s| mv(s)).collect()
}

fn config(size: u8, rule: Rule) -> GomokuConfig {
    GomokuConfig::new(size, rule).unwrap()
}

/// Plays alternately from the start position, `moves` in order (black first).
fn play_all(cfg: &GomokuConfig, list: &[GomokuMove]) -> Gomoku {
    let mut pos = Gomoku::new(cfg);
    for &m in list {
        pos.play(m).unwrap_or_else(|e| panic!("{e}\n{pos}"));
    }
    pos
}

/// Black's five points, placing the one at `last_index` last (white answers far away).
fn five_then_outcome(size: u8, rule: Rule, five: &[GomokuMove], last_index: usize) -> Gomoku {
    let cfg = config(size, rule);
    let mut black: Vec<GomokuMove> = five.to_vec();
    let last = black.remove(last_index);
    // White stones spread over the middle, away from every edge line used below.
    let white = [(6, 6), (9, 7), (7, 9), (9, 10)]
        .map(|(x, y)| GomokuMove::new(x, y))
        .to_vec();
    let mut pos = Gomoku::from_stones(&cfg, &black, &white, Side::First).unwrap();
    assert_eq!(pos.outcome(), None);
    pos.play(last).unwrap();
    pos
}

#[test]
fn edge_and_corner_fives_win_in_all_four_directions() {
    for size in [15u8, 20] {
        let m = size - 1;
        let lines: Vec<Vec<GomokuMove>> = vec![
            // horizontal along the bottom edge from the corner a1
            (0..5).map(|i| GomokuMove::new(i, 0)).collect(),
            // horizontal along the top edge into the corner
            (0..5).map(|i| GomokuMove::new(m - i, m)).collect(),
            // vertical along the right edge into the top-right corner
            (0..5).map(|i| GomokuMove::new(m, m - i)).collect(),
            // vertical along the left edge
            (0..5).map(|i| GomokuMove::new(0, 3 + i)).collect(),
            // diagonal from the a1 corner
            (0..5).map(|i| GomokuMove::new(i, i)).collect(),
            // diagonal into the top-right corner
            (0..5).map(|i| GomokuMove::new(m - i, m - i)).collect(),
            // anti-diagonal from the top-left corner
            (0..5).map(|i| GomokuMove::new(i, m - i)).collect(),
            // anti-diagonal into the bottom-right corner
            (0..5).map(|i| GomokuMove::new(m - i, i)).collect(),
        ];
        for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju] {
            for line in &lines {
                for last in 0..5 {
                    let pos = five_then_outcome(size, rule, line, last);
                    assert_eq!(
                        pos.outcome(),
                        Some(Outcome::Loss),
                        "{rule} size {size} line {line:?} last {last}\n{pos}"
                    );
                    assert_eq!(
                        pos.outcome().unwrap().winner(pos.side_to_move()),
                        Some(Side::First)
                    );
                    assert!(pos.legal_moves_vec().is_empty());
                }
            }
        }
    }
}

#[test]
fn four_in_a_row_at_the_edge_does_not_win() {
    let line: Vec<GomokuMove> = (0..4).map(|i| GomokuMove::new(0, i)).collect();
    let pos = five_then_outcome(15, Rule::Freestyle, &line, 3);
    assert_eq!(pos.outcome(), None);
}

#[test]
fn white_five_wins_and_reads_loss_for_black_to_move() {
    // Black scatters, white builds e1..e5 (vertical).
    let list = moves(&[
        "h8", "e1", "a15", "e2", "o15", "e3", "o1", "e4", "j12", "e5",
    ]);
    let pos = play_all(&GomokuConfig::default(), &list);
    assert_eq!(pos.side_to_move(), Side::First);
    assert_eq!(pos.outcome(), Some(Outcome::Loss));
    assert_eq!(
        pos.outcome().unwrap().winner(Side::First),
        Some(Side::Second)
    );
}

/// 5×5, rows from y = 0: black fills row 0 last at e1; no other five anywhere.
const LAST_POINT_WIN: [&str; 5] = ["XXXXX", "XXOOO", "XOOOX", "OXOOO", "OXXOX"];

fn play_grid(rows: &[&str], last: GomokuMove, rule: Rule) -> Gomoku {
    let (mut black, mut white) = (Vec::new(), Vec::new());
    for (y, row) in rows.iter().enumerate() {
        for (x, c) in row.chars().enumerate() {
            let m = GomokuMove::new(x as u8, y as u8);
            match c {
                'X' if m != last => black.push(m),
                'O' => white.push(m),
                _ => {}
            }
        }
    }
    assert_eq!(black.len(), white.len());
    let mut order = Vec::new();
    for (b, w) in black.iter().zip(&white) {
        order.push(*b);
        order.push(*w);
    }
    order.push(last);
    let cfg = config(rows.len() as u8, rule);
    let mut pos = Gomoku::new(&cfg);
    for (i, &m) in order.iter().enumerate() {
        assert_eq!(
            pos.outcome(),
            None,
            "game ended early before move {i} {m}\n{pos}"
        );
        pos.play(m).unwrap();
    }
    pos
}

#[test]
fn full_board_without_five_is_a_draw() {
    // colour = (x / 2 + y) % 2: runs of at most two in every direction; 13 black, 12 white.
    let rows: Vec<String> = (0..5)
        .map(|y| {
            (0..5)
                .map(|x| if (x / 2 + y) % 2 == 0 { 'X' } else { 'O' })
                .collect()
        })
        .collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju] {
        let pos = play_grid(&rows, GomokuMove::new(4, 4), rule);
        assert_eq!(pos.stone_count(), 25);
        assert_eq!(pos.outcome(), Some(Outcome::Draw), "{rule}\n{pos}");
        assert!(pos.legal_moves_vec().is_empty());
        let mut c = Vec::new();
        pos.candidate_moves(&mut c);
        assert!(c.is_empty());
    }
}

#[test]
fn five_on_the_last_empty_point_is_a_win_not_a_draw() {
    for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju] {
        let pos = play_grid(&LAST_POINT_WIN, GomokuMove::new(4, 0), rule);
        assert_eq!(pos.stone_count(), 25);
        assert_eq!(pos.outcome(), Some(Outcome::Loss), "{rule}\n{pos}");
    }
}

/// Black a1..c1 and e1..f1 with d1 empty; white far away; black to play d1 (six in a row).
fn overline_position(rule: Rule, black_to_move: bool) -> (Gomoku, GomokuMove) {
    let cfg = config(15, rule);
    let row = moves(&["a1", "b1", "c1", "e1", "f1"]);
    let far = moves(&["h8", "j10", "l12", "h12", "n14"]);
    let (black, white, side) = if black_to_move {
        (row, far, Side::First)
    } else {
        (far, row, Side::Second)
    };
    (
        Gomoku::from_stones(&cfg, &black, &white, side).unwrap(),
        mv("d1"),
    )
}

#[test]
fn standard_overline_does_not_win_for_either_side() {
    for black_to_move in [true, false] {
        let (mut pos, d1) = overline_position(Rule::Standard, black_to_move);
        pos.play(d1).unwrap();
        assert_eq!(pos.outcome(), None, "\n{pos}");
    }
}

#[test]
fn freestyle_overline_wins_for_both_sides() {
    for black_to_move in [true, false] {
        let (mut pos, d1) = overline_position(Rule::Freestyle, black_to_move);
        pos.play(d1).unwrap();
        assert_eq!(pos.outcome(), Some(Outcome::Loss), "\n{pos}");
    }
}

#[test]
fn renju_overline_wins_for_white_and_loses_for_black() {
    let (mut white, d1) = overline_position(Rule::Renju, false);
    white.play(d1).unwrap();
    assert_eq!(white.outcome(), Some(Outcome::Loss));
    assert_eq!(
        white.outcome().unwrap().winner(white.side_to_move()),
        Some(Side::Second)
    );

    let (mut black, d1) = overline_position(Rule::Renju, true);
    assert_eq!(black.is_forbidden(d1), Some(Foul::Overline));
    black.play(d1).unwrap();
    // White to move has won.
    assert_eq!(black.outcome(), Some(Outcome::Win));
    assert_eq!(
        black.outcome().unwrap().winner(Side::Second),
        Some(Side::Second)
    );
}

#[test]
fn renju_double_three_is_legal_but_loses_and_is_no_candidate() {
    // Black h9, g8, i8, h7 around the empty h8: h8 makes two open threes.
    let cfg = config(15, Rule::Renju);
    let black = moves(&["h9", "g8", "i8", "h7"]);
    let white = moves(&["a1", "a3", "o1", "o3"]);
    let pos = Gomoku::from_stones(&cfg, &black, &white, Side::First).unwrap();
    let h8 = mv("h8");
    assert_eq!(pos.is_forbidden(h8), Some(Foul::DoubleThree));
    assert!(pos.is_legal(h8));
    let mut cands = Vec::new();
    pos.candidate_moves(&mut cands);
    assert!(!cands.contains(&h8));
    assert!(cands.contains(&mv("g9")));
    let mut after = pos.clone();
    after.play(h8).unwrap();
    assert_eq!(after.outcome(), Some(Outcome::Win));
    // The same point is fine for white and under the other rules.
    let white_to_move = Gomoku::from_stones(&cfg, &black, &white, Side::Second).unwrap();
    let mut c = Vec::new();
    white_to_move.candidate_moves(&mut c);
    assert!(c.contains(&h8));
    let free =
        Gomoku::from_stones(&config(15, Rule::Freestyle), &black, &white, Side::First).unwrap();
    assert_eq!(free.is_forbidden(h8), None);
}

#[test]
fn renju_five_with_overline_on_another_line_wins() {
    // h8 makes exactly five vertically (h4..h8) and six horizontally (e8..j8).
    let cfg = config(15, Rule::Renju);
    let black = moves(&["h4", "h5", "h6", "h7", "e8", "f8", "g8", "i8", "j8"]);
    let white = moves(&["a1", "a3", "a5", "a7", "a9", "a11", "a13", "o1", "o3"]);
    let mut pos = Gomoku::from_stones(&cfg, &black, &white, Side::First).unwrap();
    assert_eq!(pos.is_forbidden(mv("h8")), None);
    // Without the vertical four the same point is an overline foul.
    let no_five = Gomoku::from_stones(&cfg, &black[1..], &white, Side::First).unwrap();
    assert_eq!(no_five.is_forbidden(mv("h8")), Some(Foul::Overline));
    pos.play(mv("h8")).unwrap();
    assert_eq!(pos.outcome(), Some(Outcome::Loss));
}

#[test]
fn candidate_moves_open_around_the_centre_and_stay_near_stones() {
    // The empty board: the 5×5 square around the centre (the opening set), not only the centre.
    for size in [5u8, 15, 19, 20] {
        let pos = Gomoku::new(&config(size, Rule::Freestyle));
        let mut c = Vec::new();
        pos.candidate_moves(&mut c);
        let centre = i32::from(size / 2);
        assert_eq!(c.len(), 25, "size {size}");
        assert!(c.contains(&GomokuMove::new(size / 2, size / 2)));
        assert!(c
            .iter()
            .all(|m| (i32::from(m.x) - centre).abs() <= 2 && (i32::from(m.y) - centre).abs() <= 2));
    }
    let mut pos = Gomoku::new(&GomokuConfig::default());
    pos.play(mv("a1")).unwrap();
    let mut c = Vec::new();
    pos.candidate_moves(&mut c);
    // Radius 2 around the corner: 3×3 minus the stone.
    assert_eq!(c.len(), 8);
    assert!(c.iter().all(|m| m.x <= 2 && m.y <= 2));
    let wide = Gomoku::new(&GomokuConfig::default().with_candidate_radius(1));
    let mut wide = wide;
    wide.play(mv("h8")).unwrap();
    wide.candidate_moves(&mut c);
    assert_eq!(c.len(), 8);
}

#[test]
fn illegal_moves_report_their_reason_and_leave_the_position_unchanged() {
    let mut pos = Gomoku::new(&config(9, Rule::Freestyle));
    pos.play(mv("e5")).unwrap();
    let before = pos.clone();
    let e = pos.play(mv("e5")).unwrap_err();
    assert_eq!((e.mv.as_str(), e.reason.as_str()), ("e5", "occupied"));
    let e = pos.play(GomokuMove::new(9, 0)).unwrap_err();
    assert_eq!(e.reason, "off the board");
    assert_eq!(pos, before);
    assert_eq!(pos.illegal_reason(mv("e5")), "occupied");
    let done = play_all(
        &config(9, Rule::Freestyle),
        &moves(&["a1", "a9", "b1", "b9", "c1", "c9", "d1", "d9", "e1"]),
    );
    assert_eq!(done.clone().play(mv("e5")).unwrap_err().reason, "game over");
    // play_unchecked on an occupied point is a no-op.
    let mut p = before.clone();
    p.play_unchecked(mv("e5"));
    assert_eq!(p, before);
}

#[test]
fn parse_move_accepts_both_notations_and_rejects_points_off_the_board() {
    let pos = Gomoku::new(&config(9, Rule::Freestyle));
    assert_eq!(pos.parse_move("H8").unwrap(), GomokuMove::new(7, 7));
    assert_eq!(pos.parse_move("7,7").unwrap(), GomokuMove::new(7, 7));
    assert_eq!(pos.parse_move("a1").unwrap(), GomokuMove::new(0, 0));
    for bad in ["j1", "a10", "9,0", "0,9", "zz", ""] {
        let e = pos.parse_move(bad).unwrap_err();
        assert_eq!(e.input, bad);
    }
    assert_eq!(pos.format_move(GomokuMove::new(8, 8)), "i9");
    assert_eq!(
        GomokuMove::parse_gomocup("3,4").unwrap().to_gomocup(),
        "3,4"
    );
}

#[test]
fn config_and_rule_parsing_validate_their_input() {
    assert_eq!(GomokuConfig::default(), config(15, Rule::Freestyle));
    assert_eq!(GomokuConfig::default().candidate_radius, 2);
    for bad in [0u8, 4, 21, 255] {
        let e = GomokuConfig::new(bad, Rule::Renju).unwrap_err();
        assert_eq!(e.input, bad.to_string());
    }
    for r in [Rule::Freestyle, Rule::Standard, Rule::Renju] {
        assert_eq!(r.to_string().parse::<Rule>().unwrap(), r);
    }
    assert_eq!("Renju".parse::<Rule>().unwrap(), Rule::Renju);
    let e = "caro".parse::<Rule>().unwrap_err();
    assert_eq!(e.input, "caro");
    assert!(e.to_string().contains("caro"));
}

#[test]
fn from_stones_rejects_bad_setups_and_detects_finished_games() {
    let cfg = config(15, Rule::Freestyle);
    let e = Gomoku::from_stones(&cfg, &[GomokuMove::new(15, 0)], &[], Side::First).unwrap_err();
    assert_eq!(e.input, "p1");
    let e = Gomoku::from_stones(&cfg, &moves(&["h8"]), &moves(&["h8"]), Side::First).unwrap_err();
    assert_eq!(e.input, "h8");
    let bad = GomokuConfig { size: 30, ..cfg };
    assert!(Gomoku::from_stones(&bad, &[], &[], Side::First).is_err());
    let five = moves(&["a1", "b1", "c1", "d1", "e1"]);
    let won = Gomoku::from_stones(
        &cfg,
        &five,
        &moves(&["h8", "h9", "h10", "h11"]),
        Side::Second,
    )
    .unwrap();
    assert_eq!(won.outcome(), Some(Outcome::Loss));
    let p = Gomoku::from_stones(&cfg, &moves(&["h8"]), &[], Side::Second).unwrap();
    assert_eq!((p.stone_count(), p.ply(), p.last_move()), (1, 0, None));
    assert_eq!(p.stone_at(7, 7), Some(Side::First));
    assert_eq!(p.stone_at(7, 8), None);
    assert_eq!(p.stone_at(99, 7), None);
    assert_eq!(p.row_bits(Side::First, 7), 1 << 7);
    assert_eq!(p.zobrist(), p.zobrist_from_scratch());
}

#[test]
fn display_draws_coordinates_and_stones() {
    let pos = play_all(&config(5, Rule::Freestyle), &moves(&["a1", "e5"]));
    let text = pos.to_string();
    let want = "   a b c d e\n 5 . . . . O 5\n 4 . . . . . 4\n 3 . . . . . 3\n 2 . . . . . 2\n 1 X . . . . 1\n   a b c d e\n";
    assert_eq!(text, want);
    assert_eq!(pos.last_move(), Some(mv("e5")));
    assert_eq!(pos.rule(), Rule::Freestyle);
    assert_eq!(pos.size(), 5);
    assert_eq!(pos.board_shape(), (5, 5));
    assert_eq!(pos.num_actions(), 25);
}
