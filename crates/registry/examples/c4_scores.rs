//! Writes the solver's column scores of a Connect Four test set into its cache
//! `DIR/scores/SET.scores` (see `alphazero_registry::connect4_yardstick::ScoreCache`), so that
//! `alphazero eval connect4` need not solve those positions again.
//!
//! ```sh
//! cargo run --release -p alphazero-registry --example c4_scores -- tests/data/connect4 Test_L1_R3 200 [THREADS]
//! ```
//!
//! Positions already in the cache are kept; the others among the first LINES of the set are
//! solved on THREADS threads (default: the cores), each line appended as soon as it is
//! known (an interrupted run keeps its work), then the file is rewritten in the set's order.
//! Prints the solver seconds per position.
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use alphazero_connect4::Solver;
use alphazero_registry::connect4_yardstick::{answer, read_test_file, ScoreCache};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, set, lines, rest @ ..] = args.as_slice() else {
        return Err("usage: c4_scores DIR SET LINES [THREADS]".into());
    };
    let dir = PathBuf::from(dir);
    let lines: usize = lines.parse()?;
    let threads: usize = match rest.first() {
        Some(t) => t.parse()?,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let path = ScoreCache::path_for(&dir, set);
    std::fs::create_dir_all(path.parent().ok_or("no folder")?)?;
    let cache = ScoreCache::load(&path)?;
    let positions = read_test_file(&dir.join(set), lines)?;
    let todo: Vec<_> = positions
        .iter()
        .filter(|t| cache.get(&t.moves).is_none())
        .collect();
    eprintln!(
        "{set}: {} positions, {} cached, {} to solve on {threads} threads",
        positions.len(),
        positions.len() - todo.len(),
        todo.len()
    );
    let out = Mutex::new(
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)?,
    );
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    let empty = ScoreCache::default();
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                let mut solver = Solver::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(t) = todo.get(i) else { break };
                    let t0 = Instant::now();
                    let (scores, _) = answer(t, set, &empty, &mut solver).expect("no cache");
                    let line = ScoreCache::format_line(&t.moves, &scores);
                    eprintln!(
                        "line {:>4}: {line}  ({:.1} s)",
                        t.line,
                        t0.elapsed().as_secs_f64()
                    );
                    let mut f = out.lock().unwrap_or_else(|e| e.into_inner());
                    writeln!(f, "{line}").expect("append to the cache");
                    f.flush().expect("flush the cache");
                }
            });
        }
    });
    let secs = start.elapsed().as_secs_f64();
    // Rewrite in the set's order (atomically), now that every line is known.
    let cache = ScoreCache::load(&path)?;
    let mut text = String::new();
    for t in &positions {
        if let Some(s) = cache.get(&t.moves) {
            text.push_str(&ScoreCache::format_line(&t.moves, s));
            text.push('\n');
        }
    }
    let tmp = path.with_extension("scores.tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, &path)?;
    eprintln!(
        "{set}: solved {} positions in {secs:.1} s wall on {threads} threads ({:.2} s per position per thread); {} cached in {}",
        todo.len(),
        secs * threads as f64 / todo.len().max(1) as f64,
        cache.len(),
        path.display()
    );
    Ok(())
}
