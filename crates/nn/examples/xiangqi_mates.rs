//! How often the search plays a mating move in the Xiangqi mate positions of
//! `crates/xiangqi/tests/data/mates*.tsv`, by evaluator (uniform, and a network checkpoint when
//! given), simulations and [`SearchConfig::tactical_budget`] (`none`: no tactics; `0`: mates in
//! one only; `N`: mate search by checks within N nodes at every expanded node, the root
//! included). Prints a Markdown table.
//!
//! Positions are grouped by the length of their shortest forced win, from the reference
//! minimax ([`reference::mating_moves`]): M1 (1 ply), M2 (3 plies, all moves), M2q (3 plies
//! but only by a quiet first move: no mate by checks exists), M3 (5 plies by checks, none in
//! 3). A played move counts as mating when it starts a forced win of that length (M3: a mate
//! by checks; a quiet first move that also mates in 5 plies is not recognised), or when the
//! search proved the root won (then its move is a proven forced win, maybe a longer one).
//!
//! With `--cost GAMES` it measures instead what the tactics cost per call where a search
//! calls them: it plays GAMES games (the network, else the uniform evaluator, 96 simulations,
//! the first 20 plies sampled from the visit distribution), then times `tactical_proof` for
//! each budget on every child of every game position (the nodes a search expands), and the
//! network's evaluation per position in batches of 32, and prints the overhead per expansion.
//!
//! ```text
//! cargo run --release -p alphazero-nn --example xiangqi_mates -- \
//!     [--model FILE.azc] [--sims 200,800] [--budgets none,0,200,2000] [--cost GAMES]
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use alphazero_game::{Game, Outcome};
use alphazero_mcts::{Evaluator, Search, SearchBudget, SearchConfig, UniformEvaluator};
use alphazero_nn::{default_device, load_checkpoint, NetworkEvaluator};
use alphazero_xiangqi::{reference, Move, Xiangqi, XiangqiConfig};

const DATA: [&str; 2] = [
    include_str!("../../xiangqi/tests/data/mates.tsv"),
    include_str!("../../xiangqi/tests/data/mates-random.tsv"),
];

/// A measured position: its group and the moves that count as mating.
struct Position {
    fen: String,
    pos: Xiangqi,
    group: &'static str,
    mating: Vec<Move>,
}

fn positions() -> Vec<Position> {
    let mut out = Vec::new();
    for data in DATA {
        for row in data.lines() {
            if row.starts_with('#') || row.starts_with("fen\t") || row.trim().is_empty() {
                continue;
            }
            let cols: Vec<&str> = row.split('\t').collect();
            let pos = Xiangqi::from_fen(cols[0], XiangqiConfig::default())
                .unwrap_or_else(|e| panic!("{e}"));
            let checks: Option<u32> = cols[2].parse().ok();
            let one = reference::mating_moves(&pos, 1, false);
            let (group, mating) = if !one.is_empty() {
                ("M1", one)
            } else {
                let three = reference::mating_moves(&pos, 3, false);
                match checks {
                    _ if !three.is_empty() && checks == Some(3) => ("M2", three),
                    _ if !three.is_empty() => ("M2q", three),
                    Some(5) => ("M3", reference::mating_moves(&pos, 5, true)),
                    _ => continue,
                }
            };
            out.push(Position {
                fen: cols[0].to_string(),
                pos,
                group,
                mating,
            });
        }
    }
    out
}

fn list<T: std::str::FromStr>(text: &str, what: &str) -> Vec<Option<T>> {
    text.split(',')
        .map(|t| match t {
            "none" => None,
            t => Some(
                t.parse()
                    .unwrap_or_else(|_| panic!("{what}: cannot parse {t:?}")),
            ),
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter().position(|a| a == flag).map(|i| {
            args.get(i + 1)
                .cloned()
                .unwrap_or_else(|| panic!("{flag} needs a value"))
        })
    };
    let model = value("--model").map(PathBuf::from);
    let sims: Vec<u32> = list(&value("--sims").unwrap_or("200,800".into()), "--sims")
        .into_iter()
        .map(|s| s.expect("--sims: a number"))
        .collect();
    let budgets: Vec<Option<u32>> = list(
        &value("--budgets").unwrap_or("none,0,200,2000".into()),
        "--budgets",
    );
    let positions = positions();
    let mut groups: BTreeMap<&str, usize> = BTreeMap::new();
    for p in &positions {
        *groups.entry(p.group).or_default() += 1;
    }
    eprintln!("{} positions: {groups:?}", positions.len());

    let device = default_device();
    let mut evaluators: Vec<(String, Box<dyn Evaluator<Xiangqi>>)> =
        vec![("uniform".into(), Box::new(UniformEvaluator))];
    if let Some(path) = &model {
        let ck = load_checkpoint(path, Xiangqi::NAME, &device)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let m = &ck.header.model;
        let name = format!(
            "{} ({}x{}, step {})",
            path.file_name().unwrap_or_default().to_string_lossy(),
            m.residual_blocks,
            m.channels,
            ck.header.step
        );
        let net = NetworkEvaluator::<Xiangqi>::new(&ck.model, m, &device)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        evaluators.push((name, Box::new(net)));
    }

    if let Some(games) = value("--cost") {
        let games: u64 = games.parse().expect("--cost: a number of games");
        let (name, eval) = evaluators.last().expect("the uniform evaluator at least");
        cost(name, eval.as_ref(), games, &budgets);
        return;
    }
    let names: Vec<&str> = groups.keys().copied().collect();
    print!("| evaluator | sims | tactical_budget |");
    for g in &names {
        print!(" {g} ({}) |", groups[g]);
    }
    println!(" all | ms/search |");
    println!("|---|---|---|{}---|---|", "---|".repeat(names.len()));
    for (name, eval) in &evaluators {
        for &s in &sims {
            for &b in &budgets {
                let config = SearchConfig {
                    tactical_budget: b,
                    ..SearchConfig::default()
                };
                let sims = SearchBudget::simulations(s);
                let mut found: BTreeMap<&str, usize> = BTreeMap::new();
                let mut missed = Vec::new();
                let start = Instant::now();
                for p in &positions {
                    let mut search = Search::new(p.pos.clone(), Vec::new(), config.clone(), sims)
                        .expect("valid search config");
                    let r = search.run(eval.as_ref()).expect("evaluation");
                    // A root proven won plays a proven win (the tactics and the solver are
                    // sound), possibly a longer mate than the shortest.
                    let proven = r.proven == Some(Outcome::Win);
                    if proven || r.best_move.is_some_and(|m| p.mating.contains(&m)) {
                        *found.entry(p.group).or_default() += 1;
                    } else {
                        missed.push(format!("{} {}", p.group, p.fen));
                    }
                }
                let ms = start.elapsed().as_secs_f64() * 1e3 / positions.len() as f64;
                let budget = b.map_or("none".to_string(), |b| b.to_string());
                print!("| {name} | {s} | {budget} |");
                let mut total = 0;
                for g in &names {
                    let f = found.get(g).copied().unwrap_or(0);
                    total += f;
                    print!(" {f} |");
                }
                println!(" {total}/{} | {ms:.1} |", positions.len());
                if std::env::var_os("MISSED").is_some() {
                    for m in missed {
                        eprintln!("  missed: {m}");
                    }
                }
            }
        }
    }
}

/// The per-call cost of the tactics on the children of self-play-like game positions, against
/// the evaluator's cost per position (see the module docs).
fn cost(name: &str, eval: &dyn Evaluator<Xiangqi>, games: u64, budgets: &[Option<u32>]) {
    let mut rng = 0x5EED_u64;
    let mut random = || {
        let (s, z) = alphazero_game::splitmix64(rng);
        rng = s;
        (z >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut roots = Vec::new();
    for g in 0..games {
        let mut pos = Xiangqi::new(&XiangqiConfig::default());
        let mut history = Vec::new();
        for ply in 0..150 {
            if pos.outcome().is_some() {
                break;
            }
            roots.push(pos.clone());
            let budget = SearchBudget {
                seed: g * 1000 + ply,
                ..SearchBudget::simulations(96)
            };
            let mut search = Search::new(
                pos.clone(),
                history.clone(),
                SearchConfig::default(),
                budget,
            )
            .expect("valid search config");
            let r = search.run(eval).expect("evaluation");
            let mv = if ply < 20 {
                let x = random();
                let mut acc = 0.0;
                let total: u32 = r.children.iter().map(|c| c.visits).sum();
                r.children
                    .iter()
                    .find(|c| {
                        acc += c.visits as f64 / total.max(1) as f64;
                        acc >= x
                    })
                    .map_or(r.best_move, |c| Some(c.mv))
            } else {
                r.best_move
            };
            let Some(mv) = mv else { break };
            history.push(alphazero_game::HistoryEntry {
                hash: pos.zobrist(),
                in_check: pos.in_check(),
                irreversible: false,
            });
            pos.play_unchecked(mv);
        }
    }
    let mut nodes = Vec::new();
    for r in &roots {
        for m in r.legal_moves_vec() {
            let mut c = r.clone();
            c.play_unchecked(m);
            if c.outcome().is_none() {
                nodes.push(c);
            }
        }
    }
    let with_check = nodes
        .iter()
        .filter(|p| {
            p.legal_moves_vec().into_iter().any(|m| {
                let mut c = (*p).clone();
                c.play_unchecked(m);
                c.in_check()
            })
        })
        .count();
    // The evaluator's cost per position, in batches of 32.
    let a = alphazero_xiangqi::NUM_ACTIONS;
    let sample: Vec<&Xiangqi> = nodes.iter().step_by((nodes.len() / 2048).max(1)).collect();
    let (mut logits, mut values) = (vec![0.0; 32 * a], vec![0.0; 32]);
    let start = Instant::now();
    for chunk in sample.chunks(32) {
        let batch: Vec<_> = chunk
            .iter()
            .map(|p| alphazero_mcts::EvalRequest {
                position: *p,
                history: &[],
            })
            .collect();
        eval.evaluate(
            &batch,
            &mut logits[..chunk.len() * a],
            &mut values[..chunk.len()],
        )
        .expect("evaluation");
    }
    let eval_us = start.elapsed().as_secs_f64() * 1e6 / sample.len() as f64;
    println!(
        "{games} games by {name}: {} game positions, {} children ({with_check} with a checking move); evaluator {eval_us:.1} us/position (batches of 32)",
        roots.len(),
        nodes.len()
    );
    println!("| tactical_budget | us/call | max us/call | mates proven | overhead per expansion |");
    println!("|---|---|---|---|---|");
    for &b in budgets {
        let Some(b) = b else { continue };
        let (mut wins, mut max) = (0, 0.0f64);
        let start = Instant::now();
        for p in &nodes {
            let t = Instant::now();
            wins += usize::from(p.tactical_proof(b).is_some());
            max = max.max(t.elapsed().as_secs_f64() * 1e6);
        }
        let us = start.elapsed().as_secs_f64() * 1e6 / nodes.len() as f64;
        println!(
            "| {b} | {us:.2} | {max:.0} | {wins} | {:.1}% |",
            100.0 * us / eval_us
        );
    }
}
