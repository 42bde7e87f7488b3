//! The Gomoku play search (the preset every program uses: tactics, solver, root and reply
//! VCT) with the uniform evaluator, on one thread: simulations a second on middle-game
//! positions of the must-defend set, and what the search chose on every position of that set
//! (to check that a faster search still searches the same).
//!
//! ```sh
//! cargo run --release -p alphazero-registry --example gomoku_play_search -- speed [SIMS] [ROWS]
//! cargo run --release -p alphazero-registry --example gomoku_play_search -- defend [SIMS]
//! ```
//!
//! `speed`: each of ROWS (comma-separated row numbers of
//! `crates/gomoku/tests/data/must-defend.tsv`, default `0,1,6,7`) searched once with SIMS
//! simulations (default 20,000): one line per position, then the total.
//! `defend`: every row searched with SIMS simulations (default 2,000): the move chosen, whether
//! Rapfi lists it as a defence, the root value and visits of the chosen move, then how many
//! rows got a defence.
use std::time::Instant;

use alphazero_game::{Game, Side};
use alphazero_gomoku::{Gomoku, GomokuConfig, GomokuMove, Rule};
use alphazero_mcts::{Search, SearchBudget, UniformEvaluator};
use alphazero_registry::Registered;

/// The must-defend rows: the position and Rapfi's defences.
fn rows() -> Vec<(Gomoku, Vec<GomokuMove>)> {
    let text = include_str!("../../gomoku/tests/data/must-defend.tsv");
    let point = |t: &str| -> GomokuMove {
        let (x, y) = t.split_once(',').expect("x,y");
        GomokuMove::new(x.parse().expect("x"), y.parse().expect("y"))
    };
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("moves\t") && !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let mut pos = Gomoku::new(&GomokuConfig::new(15, Rule::Freestyle).expect("15x15"));
            for t in f[0].split_whitespace() {
                pos.play(point(t)).expect("a legal move");
            }
            let defences = f[2].split_whitespace().map(point).collect();
            (pos, defences)
        })
        .collect()
}

/// A digest of the root's children (move, visits, Q, proof): two searches that searched
/// the same tree give the same digest.
fn digest(r: &alphazero_mcts::SearchResult<Gomoku>) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for c in &r.children {
        (c.mv, c.visits, c.q.to_bits(), format!("{:?}", c.proven)).hash(&mut h);
    }
    h.finish()
}

/// This thread's CPU seconds so far (Linux `/proc/thread-self/schedstat`), 0 elsewhere: on a
/// shared machine CPU time varies less than wall-clock time.
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns * 1e-9)
}

/// The search's result, wall-clock and CPU seconds, and tree size.
fn search(pos: &Gomoku, sims: u32) -> (alphazero_mcts::SearchResult<Gomoku>, f64, f64, usize) {
    let budget = SearchBudget {
        simulations: Some(sims),
        root_noise: false,
        seed: 0,
    };
    let start = Instant::now();
    let cpu = cpu_seconds();
    let mut s = Search::new(pos.clone(), Vec::new(), Gomoku::play_search(), budget)
        .expect("the play search is valid");
    let r = s
        .run(&UniformEvaluator)
        .expect("the uniform evaluator cannot fail");
    let cpu = cpu_seconds() - cpu;
    (r, start.elapsed().as_secs_f64(), cpu, s.tree_size())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rows = rows();
    match args.first().map(String::as_str) {
        Some("speed") => {
            let sims: u32 = args.get(1).map_or(20_000, |s| s.parse().expect("SIMS"));
            let which: Vec<usize> = args
                .get(2)
                .map_or("0,1,6,7", String::as_str)
                .split(',')
                .map(|s| s.parse().expect("ROWS"))
                .collect();
            let (mut total_sims, mut total_secs, mut total_cpu) = (0u64, 0.0, 0.0);
            for &i in &which {
                let (pos, _) = &rows[i];
                let (r, secs, cpu, tree) = search(pos, sims);
                let best = r.best_move.map_or("-".into(), |m| m.to_string());
                println!(
                    "row {i:>3} ({} stones): {} sims in {secs:.3} s = {:.0} sims/s ({:.0} a CPU \
                     second), tree {tree}, \
                     best {best}, value {:+.4}, proven {:?}, digest {:016x}",
                    pos.stone_count(),
                    r.simulations,
                    f64::from(r.simulations) / secs,
                    f64::from(r.simulations) / cpu,
                    r.root_value,
                    r.proven,
                    digest(&r)
                );
                total_sims += u64::from(r.simulations);
                total_secs += secs;
                total_cpu += cpu;
            }
            println!(
                "total: {total_sims} sims in {total_secs:.3} s = {:.0} sims/s ({:.0} a CPU second)",
                total_sims as f64 / total_secs,
                total_sims as f64 / total_cpu
            );
        }
        Some("defend") => {
            let sims: u32 = args.get(1).map_or(2_000, |s| s.parse().expect("SIMS"));
            let mut good = 0;
            for (i, (pos, defences)) in rows.iter().enumerate() {
                let (r, _, _, _) = search(pos, sims);
                let best = r.best_move.expect("an open position");
                let ok = defences.contains(&best);
                good += usize::from(ok);
                let side = if pos.side_to_move() == Side::First {
                    "black"
                } else {
                    "white"
                };
                let visits = r
                    .children
                    .iter()
                    .find(|c| c.mv == best)
                    .map_or(0, |c| c.visits);
                println!(
                    "row {i:>3} {side}: {best} {} value {:+.4} visits {visits} sims {} proven {:?} \
                     digest {:016x}",
                    if ok { "defends" } else { "LOSES" },
                    r.root_value,
                    r.simulations,
                    r.proven,
                    digest(&r)
                );
            }
            println!("defended {good} of {}", rows.len());
        }
        _ => eprintln!("usage: gomoku_play_search speed [SIMS] [ROWS] | defend [SIMS]"),
    }
}
