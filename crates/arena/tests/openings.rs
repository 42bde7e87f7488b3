//! The committed balanced Gomoku openings, read through the arena's opening files and played.

use alphazero_arena::{
    gomocup_offset_openings, run_match, run_match_sprt, Entrant, MatchConfig, OpeningBook, Player,
    RandomPlayer, Sprt,
};
use alphazero_game::Game;
use alphazero_gomoku::{Gomoku, GomokuConfig, Rule};

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/gomoku/openings"
);

fn board(size: u8, rule: Rule) -> Gomoku {
    Gomoku::new(&GomokuConfig::new(size, rule).expect("a board size"))
}

fn random_pair() -> Vec<Entrant<Gomoku>> {
    vec![
        Entrant::new("random-a", || {
            Box::new(RandomPlayer::new(1)) as Box<dyn Player<Gomoku>>
        }),
        Entrant::new("random-b", || {
            Box::new(RandomPlayer::new(2)) as Box<dyn Player<Gomoku>>
        }),
    ]
}

/// The openings of a committed file (`balanced-NxN-RULE.txt`, on the N×N board), as moves in
/// the game's notation.
fn read(file: &str, rule: Rule) -> (Gomoku, Vec<Vec<String>>, OpeningBook<Gomoku>) {
    let text = std::fs::read_to_string(format!("{DIR}/{file}")).expect("committed file");
    let size = file
        .split(['-', 'x'])
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("the board size in the file name");
    let start = board(size, rule);
    let lines = gomocup_offset_openings(&text, &start).expect("a valid opening file");
    let moves = lines
        .iter()
        .map(|h| {
            let mut pos = h.start().clone();
            h.moves()
                .iter()
                .map(|&m| {
                    let t = pos.format_move(m);
                    pos.play_unchecked(m);
                    t
                })
                .collect()
        })
        .collect();
    (start, moves, OpeningBook::new(lines).expect("not empty"))
}

#[test]
fn every_committed_set_has_its_openings_of_3_to_5_stones_none_twice_up_to_symmetry() {
    for (file, rule, count) in [
        ("balanced-15x15-freestyle.txt", Rule::Freestyle, 100),
        ("balanced-15x15-renju.txt", Rule::Renju, 20),
        ("balanced-15x15-standard.txt", Rule::Standard, 20),
        ("balanced-20x20-freestyle.txt", Rule::Freestyle, 20),
    ] {
        let (start, moves, _) = read(file, rule);
        assert_eq!(moves.len(), count, "{file}");
        for m in &moves {
            assert!((3..=5).contains(&m.len()), "{file}: {m:?}");
        }
        // An opening and its mirror image are one opening played twice: each position is
        // keyed by the smallest hash of its 8 images.
        let keys: std::collections::HashSet<u64> = moves
            .iter()
            .map(|m| {
                let mut pos = start.clone();
                for mv in m {
                    let mv = pos.parse_move(mv).expect("a move");
                    pos.play(mv).expect("a legal opening");
                }
                (0..8).map(|s| pos.transform(s).zobrist()).min().unwrap()
            })
            .collect();
        assert_eq!(keys.len(), count, "{file}: an opening twice");
    }
}

#[test]
fn a_match_plays_the_file_in_order_each_opening_with_both_colours() {
    let (start, moves, book) = read("balanced-15x15-freestyle.txt", Rule::Freestyle);
    let mut m = MatchConfig::new(random_pair(), start);
    m.book = Some(book.clone());
    m.openings_per_pair = 2;
    m.max_plies = 225;
    let r = run_match(&m).expect("match");
    assert_eq!(r.games.len(), 4);
    for (i, g) in r.games.iter().enumerate() {
        let opening = &moves[i / 2];
        assert_eq!(g.opening, i / 2);
        assert_eq!(g.opening_plies, opening.len(), "game {i}");
        assert_eq!(&g.moves[..opening.len()], &opening[..], "game {i}");
        assert!(g.moves.len() > opening.len(), "game {i} was played on");
        // Opening k's two games: each player once with black.
        let first = if i % 2 == 0 { 0 } else { 1 };
        assert_eq!((g.first, g.second), (first, 1 - first), "game {i}");
        assert!(g.think[0].moves > 0 && g.think[1].moves > 0, "game {i}");
    }
    let t = r.think_time();
    let made: u32 = r
        .games
        .iter()
        .map(|g| (g.moves.len() - g.opening_plies) as u32)
        .sum();
    assert_eq!(
        t[0].moves + t[1].moves,
        made,
        "every move after the opening timed"
    );

    // An SPRT plays the file in chunks (threads = 1: one opening a chunk), still in order
    // (it decides nothing before 16 games).
    m.threads = 1;
    m.openings_per_pair = 3;
    let sprt = Sprt {
        elo0: -10.0,
        elo1: 10.0,
        alpha: 0.05,
        beta: 0.05,
    };
    let (all, _) = run_match_sprt(&m, Some(&sprt), |_| {}).expect("sprt match");
    assert_eq!(all.games.len(), 6);
    for (i, g) in all.games.iter().enumerate() {
        let opening = &moves[i / 2];
        assert_eq!(&g.moves[..opening.len()], &opening[..], "sprt game {i}");
    }
}
