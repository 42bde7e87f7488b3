//! The material yardstick `tests/data/material-eleeye.tsv` (made by
//! `scripts/xiangqi-material.py make`: random games of Fairy-Stockfish's move generator,
//! every legal move scored by ElephantEye; measurement data, never training input) against
//! our rules: every position parses, is no check and has no mate in one for the side to move,
//! and every listed winning move is legal here and takes a piece or gives check (what the
//! set's winning moves are: a capture at once, or a check that wins material after it).

use alphazero_game::Game;
use alphazero_xiangqi::{Move, Xiangqi, XiangqiConfig};

const DATA: &str = include_str!("data/material-eleeye.tsv");

/// The rows: (`material-eleeye.tsv:line`, position, winning moves).
fn rows() -> Vec<(String, Xiangqi, Vec<Move>)> {
    DATA.lines()
        .enumerate()
        .filter(|(_, t)| !t.trim().is_empty() && !t.starts_with('#') && !t.starts_with("fen\t"))
        .map(|(i, text)| {
            let line = format!("material-eleeye.tsv:{}", i + 1);
            let cols: Vec<&str> = text.split('\t').collect();
            assert_eq!(cols.len(), 7, "{line}: expected 7 columns: {text:?}");
            let pos = Xiangqi::from_fen(cols[0], XiangqiConfig::default())
                .unwrap_or_else(|e| panic!("{line}: {e}"));
            let moves = cols[1]
                .split_whitespace()
                .map(|m| m.parse().unwrap_or_else(|e| panic!("{line}: {m:?}: {e}")))
                .collect();
            (line, pos, moves)
        })
        .collect()
}

#[test]
fn material_set_rows_are_quiet_positions_whose_winning_moves_are_legal_captures_or_checks() {
    let rows = rows();
    assert!(rows.len() >= 30, "only {} rows", rows.len());
    let mut captures = 0;
    for (line, pos, moves) in &rows {
        assert!(pos.outcome().is_none(), "{line}: the game is over");
        assert!(!pos.is_check(), "{line}: the side to move is in check");
        assert!(
            pos.mates_in_one().is_empty(),
            "{line}: a mate in one {:?}",
            pos.mates_in_one()
        );
        assert!(!moves.is_empty(), "{line}: no winning move");
        let mut legal = Vec::new();
        pos.legal_moves(&mut legal);
        for &m in moves {
            assert!(legal.contains(&m), "{line}: {m} is not legal here");
            let mut after = pos.clone();
            after.play(m).unwrap_or_else(|e| panic!("{line}: {m}: {e}"));
            let capture = pos.is_capture(m);
            captures += usize::from(capture);
            assert!(
                capture || after.is_check(),
                "{line}: {m} neither takes a piece nor gives check"
            );
        }
    }
    // Most of the set's wins take a rook at once.
    assert!(
        captures * 2 > rows.len(),
        "{captures} captures in {} rows",
        rows.len()
    );
}
