//! Each game's ownership map (`Encode::ownership`, the training-only dense target): its values
//! on small hand-made games, and that it commutes with the board symmetries
//! (`Encode::transform_ownership`) on random games.

use alphazero_game::{Game, Side};
use alphazero_registry::games::{Connect4, Connect4Config, Gomoku, GomokuConfig, Rule, Xiangqi};
use alphazero_registry::Encode;
use proptest::prelude::*;

/// The positions of the game `moves` played from `start` (`moves.len() + 1`, the start first).
fn line<G: Game>(start: &G, moves: &[G::Move]) -> Vec<G> {
    let mut out = vec![start.clone()];
    for &mv in moves {
        let mut next = out.last().expect("the start").clone();
        next.play(mv)
            .unwrap_or_else(|e| panic!("{mv} in\n{next}: {e}"));
        out.push(next);
    }
    out
}

/// The ownership map of every position of the game `moves` from `start`, in order.
fn maps<G: Encode>(start: &G, moves: &[G::Move]) -> Vec<Vec<f32>> {
    let positions = line(start, moves);
    let end = positions.last().expect("the end").clone();
    let (h, w) = start.board_shape();
    positions
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut out = vec![f32::NAN; h * w];
            p.ownership(&moves[i..], &end, &mut out);
            out
        })
        .collect()
}

fn parse_moves<G: Game>(start: &G, text: &str) -> Vec<G::Move> {
    let mut pos = start.clone();
    text.split_whitespace()
        .map(|t| {
            let mv = pos.parse_move(t).unwrap();
            pos.play(mv).unwrap();
            mv
        })
        .collect()
}

#[test]
fn connect4_ownership_is_the_final_board_from_the_side_to_move() {
    let start = Connect4::new(&Connect4Config);
    // Columns 4 4 4 5 5 (1-based): the first player's discs at (col 3, row 0), (3, 2) and
    // (4, 1), the second player's at (3, 1) and (4, 0).
    let moves = parse_moves(&start, "4 4 4 5 5");
    let all = maps(&start, &moves);
    let at = |m: &[f32], col: usize, row: usize| m[row * 7 + col];
    for (ply, m) in all.iter().enumerate() {
        // +1 for the first player's discs when the first player is to move (even plies).
        let first = if ply % 2 == 0 { 1.0 } else { -1.0 };
        for (col, row) in [(3, 0), (3, 2), (4, 1)] {
            assert_eq!(at(m, col, row), first, "ply {ply} ({col}, {row})");
        }
        for (col, row) in [(3, 1), (4, 0)] {
            assert_eq!(at(m, col, row), -first, "ply {ply} ({col}, {row})");
        }
        assert_eq!(m.iter().filter(|&&v| v == 0.0).count(), 42 - 5, "ply {ply}");
    }
}

#[test]
fn gomoku_ownership_is_the_final_owner_of_each_point() {
    let config = GomokuConfig::new(9, Rule::Freestyle).unwrap();
    let start = Gomoku::new(&config);
    let moves = parse_moves(&start, "e5 d4 f6 c3 g7");
    let all = maps(&start, &moves);
    // Point (x, y) of "e5" is (4, 4); the map is row y, column x.
    let at = |m: &[f32], x: usize, y: usize| m[y * 9 + x];
    for (ply, m) in all.iter().enumerate() {
        let black = if ply % 2 == 0 { 1.0 } else { -1.0 };
        for (x, y) in [(4, 4), (5, 5), (6, 6)] {
            assert_eq!(at(m, x, y), black, "ply {ply}");
        }
        for (x, y) in [(3, 3), (2, 2)] {
            assert_eq!(at(m, x, y), -black, "ply {ply}");
        }
        assert_eq!(m.iter().filter(|&&v| v != 0.0).count(), 5, "ply {ply}");
    }
}

#[test]
fn xiangqi_ownership_marks_captured_pieces_as_not_surviving() {
    let start = Xiangqi::new(&Default::default());
    // Red's cannon h2 takes the horse h9, Black's chariot i9 takes the cannon back, then Red's
    // other cannon moves (b2e2) and survives on another point.
    let moves = parse_moves(&start, "h2h9 i9h9 b2e2");
    let all = maps(&start, &moves);
    // Red to move at the start: the map is the board as stored, index rank * 9 + file.
    let sq = |name: &str| {
        let file = usize::from(name.as_bytes()[0] - b'a');
        let rank = usize::from(name.as_bytes()[1] - b'0');
        rank * 9 + file
    };
    let m = &all[0];
    assert_eq!(m[sq("h2")], 0.0, "the cannon that is taken back");
    assert_eq!(m[sq("h9")], 0.0, "the horse taken by the cannon");
    assert_eq!(m[sq("i9")], -1.0, "Black's chariot survives, moved to h9");
    assert_eq!(m[sq("b2")], 1.0, "Red's other cannon survives, moved to e2");
    assert_eq!(m[sq("e0")], 1.0, "Red's general");
    assert_eq!(m[sq("e9")], -1.0, "Black's general");
    assert_eq!(m[sq("e4")], 0.0, "an empty point");
    assert_eq!(m.iter().filter(|&&v| v == 1.0).count(), 15);
    assert_eq!(m.iter().filter(|&&v| v == -1.0).count(), 15);
    // After h2h9, Black to move: the board is turned 180° (index 89 − rank * 9 − file), and
    // Black's pieces are the side to move's.
    let turned = |name: &str| 89 - sq(name);
    let m = &all[1];
    assert_eq!(Side::Second, line(&start, &moves)[1].side_to_move());
    assert_eq!(m[turned("h9")], 0.0, "Red's cannon on h9 is taken");
    assert_eq!(m[turned("i9")], 1.0, "Black's chariot survives");
    assert_eq!(m[turned("b2")], -1.0, "Red's other cannon survives");
    assert_eq!(m.iter().filter(|&&v| v == 1.0).count(), 15);
    assert_eq!(m.iter().filter(|&&v| v == -1.0).count(), 15);
    // The last position: nothing is taken any more, every piece survives.
    let last = all.last().unwrap();
    assert_eq!(last.iter().filter(|&&v| v != 0.0).count(), 30);
}

/// The game `moves` from `start` with every move transformed by `sym`: each move through its
/// action index, transformed with the position it is played from as the receiver.
fn transformed_moves<G: Game>(start: &G, moves: &[G::Move], sym: usize) -> Vec<G::Move> {
    line(start, moves)
        .iter()
        .zip(moves)
        .map(|(p, &mv)| {
            let a = p.transform_action(sym, p.move_to_action(mv));
            p.transform(sym)
                .action_to_move(a)
                .expect("a transformed legal move")
        })
        .collect()
}

/// For the game `moves` from `start`, every position and every symmetry: the ownership map of
/// the transformed position (with the transformed moves and end) is `transform_ownership` of the
/// position's map.
fn check_commutes<G: Encode>(start: &G, moves: &[G::Move]) -> Result<(), TestCaseError> {
    let config = start.config();
    let original = maps(start, moves);
    for sym in 0..start.num_symmetries() {
        let t_start = start.transform(sym);
        let t_moves = transformed_moves(start, moves, sym);
        let t_maps = maps(&t_start, &t_moves);
        for (ply, (m, t)) in original.iter().zip(&t_maps).enumerate() {
            let mut mapped = vec![f32::NAN; m.len()];
            G::transform_ownership(config, sym, m, &mut mapped);
            prop_assert_eq!(&mapped, t, "{} symmetry {} ply {}", G::NAME, sym, ply);
        }
    }
    Ok(())
}

/// A random game of up to `max_plies` plies from `start`, choices drawn from `picks`.
fn random_game<G: Game>(start: &G, picks: &[u16], max_plies: usize) -> Vec<G::Move> {
    let mut pos = start.clone();
    let mut moves = Vec::new();
    for &pick in picks.iter().take(max_plies) {
        if pos.outcome().is_some() {
            break;
        }
        let legal = pos.legal_moves_vec();
        if legal.is_empty() {
            break;
        }
        let mv = legal[usize::from(pick) % legal.len()];
        pos.play_unchecked(mv);
        moves.push(mv);
    }
    moves
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn connect4_ownership_commutes_with_the_mirror(picks in prop::collection::vec(any::<u16>(), 0..42)) {
        let start = Connect4::new(&Connect4Config);
        check_commutes(&start, &random_game(&start, &picks, 42))?;
    }

    #[test]
    fn gomoku_ownership_commutes_with_every_symmetry(picks in prop::collection::vec(any::<u16>(), 0..40)) {
        let start = Gomoku::new(&GomokuConfig::new(9, Rule::Freestyle).unwrap());
        check_commutes(&start, &random_game(&start, &picks, 40))?;
    }

    #[test]
    fn xiangqi_ownership_commutes_with_the_mirror(picks in prop::collection::vec(any::<u16>(), 0..80)) {
        let start = Xiangqi::new(&Default::default());
        let moves = random_game(&start, &picks, 80);
        check_commutes(&start, &moves)?;
    }
}

/// Random Xiangqi games capture: the survival map then differs from the pieces on the board.
#[test]
fn random_xiangqi_games_with_captures_mark_fewer_survivors_than_pieces() {
    let start = Xiangqi::new(&Default::default());
    let picks: Vec<u16> = (0..200u32).map(|i| (i * 7919 % 251) as u16).collect();
    let moves = random_game(&start, &picks, 200);
    let all = maps(&start, &moves);
    let survivors = all[0].iter().filter(|&&v| v != 0.0).count();
    let end = line(&start, &moves).pop().unwrap();
    let mut on_end = vec![0f32; 90];
    end.ownership(&[], &end, &mut on_end);
    // The start's survivors are exactly the pieces left at the end.
    assert_eq!(survivors, on_end.iter().filter(|&&v| v != 0.0).count());
    assert!(survivors < 32, "{} moves captured nothing", moves.len());
}
