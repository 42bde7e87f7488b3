//! Data-driven perft over every row of `tests/data/xiangqi/perft.tsv` (the repository's).

use alphazero_game::Game;
use alphazero_xiangqi::{perft, perft_divide, reference, Xiangqi, XiangqiConfig};

const PERFT_TSV: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/xiangqi/perft.tsv"
);

/// (FEN, counts at depths 1..=5).
fn rows() -> Vec<(String, Vec<u64>)> {
    let text = std::fs::read_to_string(PERFT_TSV).expect("perft.tsv is readable");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut it = l.split('\t');
            let fen = it.next().expect("FEN column").to_string();
            let counts = it.map(|c| c.trim().parse().expect("count")).collect();
            (fen, counts)
        })
        .collect()
}

fn check_depths(max_depth: u32, min_depth: u32) {
    let rows = rows();
    assert_eq!(rows.len(), 14, "perft.tsv has 14 positions");
    for (fen, counts) in rows {
        let pos = Xiangqi::from_fen(&fen, XiangqiConfig::default())
            .unwrap_or_else(|e| panic!("perft FEN must parse: {e}"));
        for depth in min_depth..=max_depth {
            let expected = counts[depth as usize - 1];
            assert_eq!(perft(&pos, depth), expected, "perft {depth} of {fen}");
        }
    }
}

#[test]
fn perft_matches_published_counts_depths_1_to_4() {
    check_depths(4, 1);
}

#[test]
#[ignore = "depth 5: about 600 M nodes, run in release with --ignored"]
fn perft_matches_published_counts_depth_5() {
    check_depths(5, 5);
}

#[test]
fn reference_perft_matches_published_counts_depth_2() {
    for (fen, counts) in rows() {
        let pos = Xiangqi::from_fen(&fen, XiangqiConfig::default()).expect("FEN parses");
        assert_eq!(
            reference::perft(&pos, 1),
            counts[0],
            "reference perft 1 of {fen}"
        );
        assert_eq!(
            reference::perft(&pos, 2),
            counts[1],
            "reference perft 2 of {fen}"
        );
    }
}

#[test]
fn reference_perft_matches_published_count_start_depth_3() {
    let pos = Xiangqi::new(&XiangqiConfig::default());
    assert_eq!(reference::perft(&pos, 3), 79666);
}

#[test]
fn perft_divide_sums_to_perft() {
    let pos = Xiangqi::new(&XiangqiConfig::default());
    let div = perft_divide(&pos, 3);
    assert_eq!(div.len(), 44);
    assert_eq!(div.iter().map(|&(_, n)| n).sum::<u64>(), 79666);
    assert!(perft_divide(&pos, 0).is_empty());
}

#[test]
fn perft_depth_zero_is_one() {
    assert_eq!(perft(&Xiangqi::new(&XiangqiConfig::default()), 0), 1);
}
