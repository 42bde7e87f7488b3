//! Rule tests: wins in every direction and at the edges, draws, notation and errors.
use alphazero_connect4::{solver::Solver, C4Move, Connect4, Connect4Config};
use alphazero_game::{Game, Outcome, Side};

fn pos(moves: &str) -> Connect4 {
    Connect4::from_moves(moves).unwrap_or_else(|e| panic!("{e}"))
}

/// The game is undecided before the last move of `moves` and won by its mover after it.
fn assert_last_move_wins(moves: &str) {
    let before = pos(&moves[..moves.len() - 1]);
    assert_eq!(before.outcome(), None, "{moves}: decided too early");
    let last = before.parse_move(&moves[moves.len() - 1..]).expect("digit");
    assert!(
        before.is_winning_move(last),
        "{moves}: last move not seen as winning"
    );
    assert!(before.can_win_next(), "{moves}");
    let after = pos(moves);
    assert_eq!(after.outcome(), Some(Outcome::Loss), "{moves}");
    let winner = before.side_to_move();
    assert_eq!(Outcome::Loss.winner(after.side_to_move()), Some(winner));
    assert!(
        after.legal_moves_vec().is_empty(),
        "{moves}: moves after the end"
    );
}

#[test]
fn vertical_win_in_the_left_edge_column() {
    assert_last_move_wins("1212121");
}

#[test]
fn vertical_win_at_the_top_of_the_right_edge_column() {
    // Second player's four fills rows 2..5 of column 7.
    assert_last_move_wins("7177172727");
}

#[test]
fn horizontal_win_touching_the_right_edge() {
    assert_last_move_wins("4454647");
}

#[test]
fn horizontal_win_touching_the_left_edge() {
    assert_last_move_wins("1121314");
}

#[test]
fn diagonal_wins_through_each_corner() {
    for (moves, (col, row)) in DIAGONALS.into_iter().zip([(0, 0), (6, 0), (6, 5), (0, 5)]) {
        assert_last_move_wins(moves);
        let winner = pos(&moves[..moves.len() - 1]).side_to_move();
        assert_eq!(pos(moves).cell(col, row), Some(winner), "{moves}");
    }
}

// Found by random play; each ends with the only four in a row of the game, a diagonal through
// (in order) the bottom-left, bottom-right, top-right and top-left corner.
const DIAGONALS: [&str; 4] = [DIAG_BL, ANTI_BR, DIAG_TR, ANTI_TL];
const DIAG_BL: &str = "12234334544";
const ANTI_BR: &str = "76654554344";
const DIAG_TR: &str = "72332146451136656171154762335327727";
const ANTI_TL: &str = "16556742437752232717734126553561161";

#[test]
fn a_win_with_the_last_empty_cell_is_a_win_not_a_draw() {
    let moves = "567555452343641722571334167142211647237366";
    assert_last_move_wins(moves);
    let p = pos(moves);
    assert_eq!(p.ply(), 42);
    assert_eq!(p.outcome(), Some(Outcome::Loss));
    assert_eq!(Solver::new().solve(&p), -1, "won with the 21st stone");
}

#[test]
fn a_full_board_without_four_is_a_draw() {
    let moves = "547125662261271266215743771576315353334444";
    let p = pos(moves);
    assert_eq!(p.ply(), 42);
    assert_eq!(p.outcome(), Some(Outcome::Draw));
    assert!(p.legal_moves_vec().is_empty());
    assert_eq!(Solver::new().solve(&p), 0);
    assert_eq!(pos(&moves[..41]).outcome(), None);
}

#[test]
fn win_in_one_is_detected_and_scored() {
    // First player has three on the bottom row (columns 4-6), open at both ends.
    let p = pos("445566");
    let wins: Vec<C4Move> = (0..7)
        .map(C4Move)
        .filter(|&m| p.is_winning_move(m))
        .collect();
    assert_eq!(wins, vec![C4Move(2), C4Move(6)]);
    let mut solver = Solver::new();
    // Winning with its 4th stone: 22 - 4.
    assert_eq!(solver.solve(&p), 18);
    assert_eq!(solver.best_moves(&p), vec![C4Move(2), C4Move(6)]);
    let scores = solver.score_moves(&p);
    assert_eq!(scores[2], Some(18));
    assert!(scores[0].is_some_and(|s| s < 18));
}

#[test]
fn the_start_position_is_empty_with_first_player_to_move() {
    let p = Connect4::new(&Connect4Config);
    assert_eq!(p.side_to_move(), Side::First);
    assert_eq!(p.legal_moves_vec().len(), 7);
    assert_eq!(format!("{p:?}"), "Connect4 { moves: \"\" }");
}

#[test]
fn illegal_moves_are_refused_with_their_reason() {
    let mut p = pos("1111111".get(..6).expect("six"));
    let e = p.play(C4Move(0)).unwrap_err();
    assert_eq!((e.mv.as_str(), e.reason.as_str()), ("1", "column full"));
    let e = p.play(C4Move(7)).unwrap_err();
    assert_eq!((e.mv.as_str(), e.reason.as_str()), ("8", "off the board"));
    let mut won = pos("1212121");
    let e = won.play(C4Move(3)).unwrap_err();
    assert_eq!(e.reason, "game over");
    assert_eq!(won, pos("1212121"), "unchanged after a refused move");
}

#[test]
fn play_unchecked_ignores_impossible_moves() {
    let mut p = pos("111111");
    let before = p;
    p.play_unchecked(C4Move(0));
    p.play_unchecked(C4Move(200));
    assert_eq!(p, before);
    assert_eq!(p.zobrist(), before.zobrist());
}

#[test]
fn from_moves_rejects_bad_characters_full_columns_and_moves_after_the_end() {
    let e = Connect4::from_moves("448").unwrap_err();
    assert_eq!(e.input, "448");
    assert!(e.reason.contains("'8'"), "{e}");
    let e = Connect4::from_moves("12a").unwrap_err();
    assert!(e.reason.contains("'a'"), "{e}");
    let e = Connect4::from_moves("4444444").unwrap_err();
    assert!(e.reason.contains("full"), "{e}");
    let e = Connect4::from_moves("12121213").unwrap_err();
    assert!(e.reason.contains("after the game ended"), "{e}");
    assert_eq!(
        Connect4::from_moves("").expect("empty board"),
        Connect4::default()
    );
}

#[test]
fn parse_move_accepts_1_to_7_and_names_bad_input() {
    let p = Connect4::default();
    for n in 1..=7u8 {
        let m = p.parse_move(&n.to_string()).expect("valid");
        assert_eq!(m, C4Move(n - 1));
        assert_eq!(m.to_string(), n.to_string());
        assert_eq!(p.format_move(m), n.to_string());
    }
    for bad in ["0", "8", "", "a", "-1", "44"] {
        let e = p.parse_move(bad).unwrap_err();
        assert_eq!(e.input, bad);
        assert_eq!(e.what, "move");
    }
}

#[test]
fn cells_heights_and_display_follow_the_moves() {
    let p = pos("4453");
    assert_eq!(p.cell(3, 0), Some(Side::First));
    assert_eq!(p.cell(3, 1), Some(Side::Second));
    assert_eq!(p.cell(4, 0), Some(Side::First));
    assert_eq!(p.cell(2, 0), Some(Side::Second));
    assert_eq!(p.cell(3, 2), None);
    assert_eq!(p.cell(7, 0), None);
    assert_eq!(p.cell(0, 6), None);
    assert_eq!(
        [p.height(3), p.height(4), p.height(2), p.height(0)],
        [2, 1, 1, 0]
    );
    assert_eq!(p.height(9), 0);
    let expected = "\
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
. . . O . . .
. . O X X . .
1 2 3 4 5 6 7";
    assert_eq!(p.to_string(), expected);
}

#[test]
fn game_trait_constants_and_geometry() {
    let p = Connect4::default();
    assert_eq!(Connect4::NAME, "connect4");
    assert_eq!(p.num_actions(), 7);
    assert_eq!(p.board_shape(), (6, 7));
    assert_eq!(p.num_symmetries(), 2);
    assert_eq!(p.transform_action(1, 0), 6);
    assert_eq!(p.transform_action(1, 3), 3);
    assert_eq!(p.transform_action(0, 5), 5);
    assert_eq!(p.action_to_move(7), None);
    assert_eq!(pos("4453").transform(1).moves_string(), "4435");
    assert_eq!(*p.config(), Connect4Config);
}

#[test]
fn transpositions_are_equal_and_hash_alike() {
    let a = pos("1234");
    let b = pos("3214");
    assert_eq!(a, b);
    assert_eq!(a.zobrist(), b.zobrist());
    assert_ne!(a.moves_string(), b.moves_string());
    assert_ne!(pos("44"), pos("4"));
}

#[test]
fn position_is_small_and_copy() {
    assert!(std::mem::size_of::<Connect4>() <= 48);
}

#[test]
fn history_play_action_refuses_an_unknown_index_a_full_column_and_a_finished_game() {
    use alphazero_game::History;
    let mut h = History::new(pos(""));
    let e = h.play_action(7).unwrap_err();
    assert_eq!(
        e.to_string(),
        "illegal move action 7: no move has this action index"
    );
    // Column 0 six times fills it; the seventh is refused and changes nothing.
    for _ in 0..6 {
        h.play_action(0).unwrap();
    }
    assert!(h.play_action(0).is_err());
    assert_eq!(h.moves().len(), 6);
    // Columns 1 and 2 alternately until the first player has four in column 1.
    for a in [1, 2, 1, 2, 1, 2, 1] {
        h.play_action(a).unwrap();
    }
    assert_eq!(h.outcome(), Some(Outcome::Loss));
    let e = h.play_action(3).unwrap_err();
    assert!(e.to_string().contains("the game is over"), "{e}");
}
