//! WXF notation: the hand-checked cases of tests/data/wxf.tsv both ways, the refused texts of
//! tests/data/wxf-errors.tsv, and a round trip over every legal move of random positions
//! (random playouts, and random set-ups crowded with tandem pieces).

use alphazero_game::{splitmix64, Game};
use alphazero_xiangqi::{Move, Xiangqi, XiangqiConfig};
use proptest::prelude::*;
use std::collections::HashSet;

fn rows(name: &str) -> Vec<(usize, Vec<String>)> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#') && !l.starts_with("fen\t"))
        .map(|(i, l)| (i + 1, l.split('\t').map(str::to_string).collect()))
        .collect()
}

fn position(fen: &str) -> Xiangqi {
    Xiangqi::from_fen(fen, XiangqiConfig::default()).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

#[test]
fn wxf_cases_of_the_data_file_convert_both_ways() {
    let cases = rows("wxf.tsv");
    assert!(cases.len() >= 70, "only {} cases", cases.len());
    for (line, c) in cases {
        let (fen, iccs, wxf, also) = (&c[0], &c[1], &c[2], &c[3]);
        let pos = position(fen);
        let mv: Move = iccs.parse().expect("ICCS column");
        assert!(
            pos.is_legal(mv),
            "line {line}: {iccs} is not legal in {fen}"
        );
        assert_eq!(
            pos.to_wxf(mv).as_deref(),
            Some(wxf.as_str()),
            "line {line}: to_wxf({iccs}) in {fen}"
        );
        let spellings = std::iter::once(wxf.as_str()).chain(also.split(' ').filter(|s| *s != "-"));
        for s in spellings {
            assert_eq!(
                pos.parse_wxf(s).map_err(|e| e.to_string()),
                Ok(mv),
                "line {line}: parse_wxf({s:?}) in {fen}"
            );
        }
    }
}

#[test]
fn malformed_or_impossible_wxf_texts_are_refused_with_the_reason() {
    let cases = rows("wxf-errors.tsv");
    assert!(cases.len() >= 12);
    for (line, c) in cases {
        let (fen, text, expected) = (&c[0], &c[1], &c[2]);
        let pos = position(fen);
        let before = pos.clone();
        match pos.parse_wxf(text) {
            Ok(m) => panic!("line {line}: {text:?} was read as {m}"),
            Err(e) => {
                assert_eq!(e.input, *text, "line {line}");
                assert!(
                    e.to_string().contains(expected.as_str()),
                    "line {line}: {text:?}: {e} does not say {expected:?}"
                );
            }
        }
        assert_eq!(pos, before, "line {line}: the position changed");
    }
}

/// A random legal position crowded with pieces: up to five soldiers a side across the
/// river (often several on one file), up to two chariots, horses and cannons anywhere,
/// advisors and elephants on their points; `None` when the drawn set-up is not a legal FEN.
fn crowded(seed: u64) -> Option<Xiangqi> {
    let mut state = seed;
    let mut next = |n: u64| {
        let (s, z) = splitmix64(state);
        state = s;
        z % n
    };
    let mut grid = [['.'; 9]; 10];
    let put = |grid: &mut [[char; 9]; 10], c: char, f: u64, r: u64| {
        let (f, r) = (f as usize, r as usize);
        if grid[r][f] == '.' {
            grid[r][f] = c;
        }
    };
    put(&mut grid, 'K', 3 + next(3), next(3));
    put(&mut grid, 'k', 3 + next(3), 7 + next(3));
    for side in [0u8, 1] {
        let c = |ch: char| {
            if side == 0 {
                ch
            } else {
                ch.to_ascii_lowercase()
            }
        };
        let flip = |r: u64| if side == 0 { r } else { 9 - r };
        let crowd_file = next(9);
        for _ in 0..next(6) {
            let f = if next(3) > 0 { crowd_file } else { next(9) };
            put(&mut grid, c('P'), f, flip(5 + next(5)));
        }
        for kind in ['R', 'N', 'C'] {
            let f = next(9);
            for _ in 0..next(3) {
                let f = if next(2) == 0 { f } else { next(9) };
                put(&mut grid, c(kind), f, next(10));
            }
        }
        let advisor = [(3, 0), (5, 0), (4, 1), (3, 2), (5, 2)];
        for _ in 0..next(3) {
            let (f, r) = advisor[next(5) as usize];
            put(&mut grid, c('A'), f, flip(r));
        }
        let elephant = [(2, 0), (6, 0), (0, 2), (4, 2), (8, 2), (2, 4), (6, 4)];
        for _ in 0..next(3) {
            let (f, r) = elephant[next(7) as usize];
            put(&mut grid, c('B'), f, flip(r));
        }
    }
    let mut fen = String::new();
    for r in (0..10).rev() {
        let mut run = 0;
        for &cell in &grid[r] {
            match cell {
                '.' => run += 1,
                ch => {
                    if run > 0 {
                        fen.push_str(&run.to_string());
                        run = 0;
                    }
                    fen.push(ch);
                }
            }
        }
        if run > 0 {
            fen.push_str(&run.to_string());
        }
        if r > 0 {
            fen.push('/');
        }
    }
    fen.push_str(if next(2) == 0 {
        " w - - 0 1"
    } else {
        " b - - 0 1"
    });
    Xiangqi::from_fen(&fen, XiangqiConfig::default()).ok()
}

/// Every legal move has a WXF text, the texts are distinct, and each reads back as its move.
fn check_round_trip(pos: &Xiangqi) -> Result<(), TestCaseError> {
    let mut seen = HashSet::new();
    for mv in pos.legal_moves_vec() {
        let text = pos.to_wxf(mv);
        prop_assert!(text.is_some(), "no WXF for {} in {}", mv, pos.to_fen());
        let text = text.unwrap_or_default();
        prop_assert!(
            seen.insert(text.clone()),
            "{} written twice in {}",
            text,
            pos.to_fen()
        );
        prop_assert_eq!(
            pos.parse_wxf(&text).map_err(|e| e.to_string()),
            Ok(mv),
            "{} in {}",
            text,
            pos.to_fen()
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn wxf_round_trips_over_every_legal_move_of_random_playouts(
        choices in proptest::collection::vec(any::<u32>(), 0..120)
    ) {
        let mut p = Xiangqi::new(&XiangqiConfig::default());
        check_round_trip(&p)?;
        for c in choices {
            let moves = p.legal_moves_vec();
            if moves.is_empty() {
                break;
            }
            p.play_unchecked(moves[c as usize % moves.len()]);
            check_round_trip(&p)?;
        }
    }

    #[test]
    fn wxf_round_trips_in_random_positions_crowded_with_tandem_pieces(seed in any::<u64>()) {
        if let Some(p) = crowded(seed) {
            check_round_trip(&p)?;
        }
    }
}

/// The crowded generator does produce the tandem cases the round trip is meant to cover.
#[test]
fn crowded_positions_include_tandem_soldiers_and_pieces() {
    let (mut five, mut two_files, mut tandem_rooks, mut legal) = (false, false, false, 0);
    for seed in 0..4000u64 {
        let Some(p) = crowded(seed) else { continue };
        legal += 1;
        let texts: Vec<String> = p
            .legal_moves_vec()
            .into_iter()
            .filter_map(|m| p.to_wxf(m))
            .collect();
        five |= texts
            .iter()
            .any(|t| t.starts_with("++") || t.starts_with("--"));
        two_files |= texts.iter().any(|t| t.as_bytes()[0].is_ascii_digit());
        tandem_rooks |= texts
            .iter()
            .any(|t| t.starts_with("R+") || t.starts_with("R-"));
    }
    assert!(legal > 1000, "only {legal} legal set-ups");
    assert!(
        five && two_files && tandem_rooks,
        "{five} {two_files} {tandem_rooks}"
    );
}

#[test]
fn game_parse_move_reads_wxf_for_the_side_to_move_and_iccs_as_before() {
    let mut pos = Xiangqi::new(&XiangqiConfig::default());
    let h2e2: Move = "h2e2".parse().expect("ICCS");
    assert_eq!(pos.parse_move("C2=5"), Ok(h2e2));
    assert_eq!(pos.parse_move("h2e2"), Ok(h2e2));
    assert_eq!(pos.parse_move("H2-E2"), Ok(h2e2));
    pos.play(h2e2).expect("legal");
    assert_eq!(pos.parse_move("C8.5"), Ok("h7e7".parse().expect("ICCS")));
    let e = pos
        .parse_move("C3=5")
        .expect_err("no black cannon on file 3");
    assert_eq!((e.what, e.input.as_str()), ("move", "C3=5"));
    assert!(e.reason.contains("no black cannon on file 3"), "{e}");
    assert!(pos.parse_move("h2e").is_err());
}
