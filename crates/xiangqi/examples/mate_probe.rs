//! Classifies Xiangqi positions for the mate data file `tests/data/mates.tsv`: for each FEN
//! on stdin (one per line, `#` comments), one tab-separated line with the shortest forced win
//! over all moves (reference minimax, up to `ALL` plies) and its first moves, the shortest
//! mate by checks (up to `CHECKS` plies) and its first moves, and what
//! [`Xiangqi::mate_search`] finds with its nodes and time.
//!
//! ```text
//! cargo run --release -p alphazero-xiangqi --example mate_probe -- [CHECKS=5] [ALL=3] < fens.txt
//! ```
use alphazero_game::Game;
use alphazero_xiangqi::{reference, MateResult, Move, Xiangqi, XiangqiConfig};
use std::io::BufRead;
use std::time::Instant;

fn text(moves: &[Move]) -> String {
    moves
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

fn main() {
    let arg = |i: usize, default: u32| {
        std::env::args()
            .nth(i)
            .map(|a| {
                a.parse()
                    .unwrap_or_else(|e| panic!("argument {i} {a:?}: {e}"))
            })
            .unwrap_or(default)
    };
    let (max_checks, max_all) = (arg(1, 5), arg(2, 3));
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("stdin is readable");
        let fen = line.trim();
        if fen.is_empty() || fen.starts_with('#') {
            continue;
        }
        let pos = match Xiangqi::from_fen(fen, XiangqiConfig::default()) {
            Ok(p) => p,
            Err(e) => {
                println!("{fen}\tERROR {e}");
                continue;
            }
        };
        let shortest = |max: u32, checks_only: bool| {
            let n = reference::shortest_mate(&pos, max, checks_only);
            let moves = n.map_or(Vec::new(), |n| {
                reference::mating_moves(&pos, n, checks_only)
            });
            (n, text(&moves))
        };
        let (all, all_moves) = shortest(max_all, false);
        let (chk, chk_moves) = shortest(max_checks, true);
        let t = Instant::now();
        let (r, nodes) = pos.mate_search(1_000_000, 15);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let found = match &r {
            MateResult::Win { plies, line } => format!("Win {plies}: {}", text(line)),
            o => format!("{o:?}"),
        };
        println!(
            "{fen}\tall≤{max_all}: {all:?} [{all_moves}]\tchecks≤{max_checks}: {chk:?} [{chk_moves}]\tsearch: {found} {nodes} nodes {ms:.2} ms\tlegal {}",
            pos.legal_moves_vec().len()
        );
    }
}
