//! Random starts (`Registered::random_start`): Xiangqi's initial position with pieces taken
//! off each side and random moves played, Gomoku's random stones, and no random starts for
//! Connect Four.

use std::collections::BTreeSet;

use alphazero_game::{Game, Side};
use alphazero_registry::games::{
    Connect4, Connect4Config, Gomoku, GomokuConfig, Rule, Xiangqi, XiangqiConfig,
};
use alphazero_registry::{PositionText, Registered};

const INITIAL: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR";
/// The start seed 17 draws with `max_removed` 2 and no plies.
const GOLDEN_SEED_17: &str =
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RN1AKABNR w - - 0 1";

/// The pieces of a FEN's board field, Red's (upper case) and Black's, sorted.
fn pieces(fen: &str) -> (String, String) {
    let board = fen.split(' ').next().expect("a board field");
    let mut red: Vec<char> = board.chars().filter(char::is_ascii_uppercase).collect();
    let mut black: Vec<char> = board.chars().filter(char::is_ascii_lowercase).collect();
    red.sort_unstable();
    black.sort_unstable();
    (red.into_iter().collect(), black.into_iter().collect())
}

/// How many of each letter `fewer` lacks against `more` (`None` if `fewer` has a letter
/// `more` has not, or more of it).
fn removed(more: &str, fewer: &str) -> Option<Vec<char>> {
    let mut left: Vec<char> = more.chars().collect();
    for c in fewer.chars() {
        let i = left.iter().position(|&d| d == c)?;
        left.remove(i);
    }
    Some(left)
}

#[test]
fn xiangqi_random_starts_remove_at_most_max_removed_non_general_pieces_a_side() {
    let config = XiangqiConfig::default();
    let (red0, black0) = pieces(INITIAL);
    for seed in 0..300u64 {
        let (pos, fen) =
            Xiangqi::random_start(&config, 3, 0, seed).expect("xiangqi has random starts");
        // The text reads back to the same position, Red to move, a game not over.
        let parsed = Xiangqi::parse_position(&config, &fen).expect("the start text parses");
        assert_eq!(parsed.current().to_fen(), pos.to_fen(), "seed {seed}");
        assert_eq!(pos.to_fen(), fen, "seed {seed}");
        assert_eq!(pos.side_to_move(), Side::First, "seed {seed}: {fen}");
        assert!(pos.outcome().is_none(), "seed {seed}: {fen}");
        let (red, black) = pieces(&fen);
        for (all, kept) in [(&red0, &red), (&black0, &black)] {
            let gone = removed(all, kept).unwrap_or_else(|| panic!("seed {seed}: {fen} adds"));
            assert!(gone.len() <= 3, "seed {seed}: {fen} removes {gone:?}");
            assert!(!gone.iter().any(|c| matches!(c, 'K' | 'k')), "{fen}");
        }
        // Pieces are taken off, never moved: every piece left stands on its initial point.
        let start_board: Vec<char> = expand(INITIAL);
        for (i, c) in expand(&fen).into_iter().enumerate() {
            assert!(
                c == '.' || c == start_board[i],
                "seed {seed}: {fen} moved a piece"
            );
        }
    }
}

/// The 90 cells of a FEN's board, '.' for empty.
fn expand(fen: &str) -> Vec<char> {
    let board = fen.split(' ').next().expect("a board field");
    board
        .chars()
        .filter(|&c| c != '/')
        .flat_map(|c| match c.to_digit(10) {
            Some(d) => vec!['.'; d as usize],
            None => vec![c],
        })
        .collect()
}

#[test]
fn xiangqi_random_starts_follow_the_seed_and_cover_every_count() {
    let config = XiangqiConfig::default();
    let a = Xiangqi::random_start(&config, 2, 0, 17).expect("a start");
    let b = Xiangqi::random_start(&config, 2, 0, 17).expect("a start");
    assert_eq!(a.1, b.1, "the same seed draws the same position");
    let (red0, black0) = pieces(INITIAL);
    let mut counts = BTreeSet::new();
    let mut texts = BTreeSet::new();
    for seed in 0..200u64 {
        let (_, fen) = Xiangqi::random_start(&config, 2, 0, seed).expect("a start");
        let (red, black) = pieces(&fen);
        counts.insert((red0.len() - red.len(), black0.len() - black.len()));
        texts.insert(fen);
    }
    // Each side's count is drawn from 0..=2 apart from the other's: all nine pairs occur
    // but (0, 0), the initial position.
    assert_eq!(counts.len(), 8, "{counts:?}");
    assert!(!counts.contains(&(0, 0)), "{counts:?}");
    assert!(texts.len() > 100, "only {} distinct starts", texts.len());
}

#[test]
fn xiangqi_random_starts_never_leave_the_generals_facing() {
    // With every piece but the generals removable, many draws empty the e-file; those must
    // be drawn again (the side not to move would be in check).
    let config = XiangqiConfig::default();
    for seed in 0..300u64 {
        let (pos, fen) = Xiangqi::random_start(&config, 15, 0, seed).expect("a start");
        assert!(
            Xiangqi::from_fen(&fen, config).is_ok(),
            "seed {seed}: {fen}"
        );
        assert!(pos.outcome().is_none(), "seed {seed}: {fen}");
    }
}

#[test]
fn xiangqi_random_start_plies_are_legal_moves_from_the_removal_and_follow_the_seed() {
    let config = XiangqiConfig::default();
    let mut black_to_move = 0;
    let mut moved = 0;
    let mut can_capture = 0;
    for seed in 0..200u64 {
        let (pos, fen) = Xiangqi::random_start(&config, 2, 12, seed).expect("a start");
        assert_eq!(
            Xiangqi::random_start(&config, 2, 12, seed)
                .expect("a start")
                .1,
            fen,
            "seed {seed}: the same seed draws the same position"
        );
        let parsed = Xiangqi::parse_position(&config, &fen).expect("the start text parses");
        assert_eq!(parsed.current().to_fen(), pos.to_fen(), "seed {seed}");
        assert!(pos.outcome().is_none(), "seed {seed}: {fen}");
        // Moves only take pieces off: neither side has a piece the initial position lacks.
        let (red0, black0) = pieces(INITIAL);
        let (red, black) = pieces(&fen);
        assert!(removed(&red0, &red).is_some(), "seed {seed}: {fen}");
        assert!(removed(&black0, &black).is_some(), "seed {seed}: {fen}");
        black_to_move += usize::from(pos.side_to_move() == Side::Second);
        let start_board = expand(INITIAL);
        moved += usize::from(
            expand(&fen)
                .iter()
                .zip(&start_board)
                .any(|(&c, &s)| c != '.' && c != s),
        );
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        let cells = expand(&fen);
        // A capture: a move onto an occupied point (the board field runs from Black's back
        // rank, rank 9, to Red's, rank 0).
        can_capture += usize::from(moves.iter().any(|m| {
            let to = m.to;
            cells[(9 - to.rank() as usize) * 9 + to.file() as usize] != '.'
        }));
    }
    // 0..=12 plies: odd counts leave Black to move, and most starts have moved pieces.
    assert!(
        (60..=140).contains(&black_to_move),
        "{black_to_move} of 200"
    );
    assert!(moved > 150, "only {moved} of 200 starts moved a piece");
    assert!(
        can_capture > 100,
        "only {can_capture} of 200 random-move starts offer a capture"
    );
}

#[test]
fn xiangqi_random_starts_without_plies_keep_their_seeds_positions() {
    // A start drawn before random moves existed (plies = 0): seed 17, two pieces at most.
    let config = XiangqiConfig::default();
    let (_, fen) = Xiangqi::random_start(&config, 2, 0, 17).expect("a start");
    assert_eq!(
        fen, GOLDEN_SEED_17,
        "plies = 0 must draw what it drew before"
    );
}

#[test]
fn games_without_random_starts_have_none() {
    assert!(Connect4::random_start(&Connect4Config, 3, 8, 1).is_none());
    // Gomoku has no pieces to take off: without plies there is nothing to draw.
    assert!(Gomoku::random_start(&GomokuConfig::default(), 3, 0, 1).is_none());
}

/// The stones of a Gomoku position: (x, y, side), from its move list replayed.
fn stones(config: &GomokuConfig, text: &str) -> Vec<String> {
    let line = Gomoku::parse_position(config, text).expect("the start text parses");
    let mut out: Vec<String> = line.moves().iter().map(|m| m.to_string()).collect();
    out.sort();
    out
}

#[test]
fn gomoku_random_starts_place_one_to_plies_stones_that_read_back_and_follow_the_seed() {
    for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju] {
        let config = GomokuConfig::new(15, rule).expect("15x15");
        let mut counts = BTreeSet::new();
        let mut texts = BTreeSet::new();
        let mut white_to_move = 0;
        for seed in 0..300u64 {
            let (pos, text) = Gomoku::random_start(&config, 1, 6, seed).expect("a start");
            let again = Gomoku::random_start(&config, 1, 6, seed).expect("a start");
            assert_eq!(
                again.1, text,
                "{rule:?} seed {seed}: the seed decides the start"
            );
            let parsed = Gomoku::parse_position(&config, &text).expect("the start text parses");
            assert_eq!(
                parsed.current().zobrist(),
                pos.zobrist(),
                "{rule:?} seed {seed}: {text} reads back to another position"
            );
            assert_eq!(parsed.current().side_to_move(), pos.side_to_move());
            assert!(
                pos.outcome().is_none(),
                "{rule:?} seed {seed}: {text} ended"
            );
            let n = parsed.moves().len();
            assert!((1..=6).contains(&n), "{rule:?} seed {seed}: {n} stones");
            // Black moves first: an odd count of stones leaves white to move.
            let want = if n % 2 == 1 {
                Side::Second
            } else {
                Side::First
            };
            assert_eq!(pos.side_to_move(), want, "{rule:?} seed {seed}: {text}");
            white_to_move += usize::from(want == Side::Second);
            counts.insert(n);
            texts.insert(stones(&config, &text));
        }
        assert_eq!(counts.len(), 6, "{rule:?}: counts drawn {counts:?}");
        assert!(
            (100..=200).contains(&white_to_move),
            "{white_to_move} of 300"
        );
        assert!(texts.len() > 250, "only {} distinct starts", texts.len());
    }
}

#[test]
fn gomoku_random_starts_keep_their_stones_near_the_centre_and_each_other() {
    // The first stone within distance 2 of the centre (h8 on 15x15), every later one within
    // distance 2 of an earlier stone: the opening set of the arena's random-N openings.
    let config = GomokuConfig::new(15, Rule::Freestyle).expect("15x15");
    for seed in 0..200u64 {
        let (_, text) = Gomoku::random_start(&config, 1, 8, seed).expect("a start");
        let line = Gomoku::parse_position(&config, &text).expect("parses");
        let points: Vec<(i32, i32)> = line
            .moves()
            .iter()
            .map(|m| (i32::from(m.x), i32::from(m.y)))
            .collect();
        let (x0, y0) = points[0];
        assert!((x0 - 7).abs() <= 2 && (y0 - 7).abs() <= 2, "{text}");
        for (i, &(x, y)) in points.iter().enumerate().skip(1) {
            assert!(
                points[..i]
                    .iter()
                    .any(|&(a, b)| (a - x).abs() <= 2 && (b - y).abs() <= 2),
                "seed {seed}: {text}: stone {i} is far from the others"
            );
        }
    }
}
