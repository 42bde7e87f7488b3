//! Simulations per second with the uniform evaluator on Gomoku 15×15 (a few stones) and on
//! Xiangqi (start and a mid-game FEN), serial (K = 1) and batched (K = 8), with and without
//! the decisive-move check. Run with `cargo run --release -p alphazero-mcts --example bench_search`.

use alphazero_game::{Game, Side};
use alphazero_gomoku::{Gomoku, GomokuConfig, GomokuMove, Rule};
use alphazero_mcts::{bench_simulations, SearchBudget, SearchConfig, UniformEvaluator};
use alphazero_xiangqi::{Xiangqi, XiangqiConfig};

fn report<G: Game>(name: &str, pos: &G) {
    for (k, tc) in [(1, true), (8, true), (8, false)] {
        let cfg = SearchConfig {
            leaves_per_batch: k,
            terminal_check: tc,
            ..Default::default()
        };
        let r = bench_simulations(
            pos,
            &cfg,
            &SearchBudget::simulations(800),
            &UniformEvaluator,
            20,
        )
        .expect("uniform evaluator cannot fail");
        println!(
            "{name:<28} K={k} terminal_check={tc:<5} {:>10.0} sims/s  ({} sims in {:.3} s, last tree {} nodes)",
            r.sims_per_sec, r.simulations, r.seconds, r.tree_size
        );
    }
}

fn main() {
    let config = GomokuConfig::new(15, Rule::Freestyle).expect("15x15 freestyle is valid");
    let m = GomokuMove::new;
    let g = Gomoku::from_stones(
        &config,
        &[m(7, 7), m(8, 8), m(6, 9)],
        &[m(7, 8), m(8, 6)],
        Side::Second,
    )
    .expect("valid stones");
    report("gomoku 15x15 (5 stones)", &g);
    let x = Xiangqi::start(XiangqiConfig::default());
    report("xiangqi start", &x);
    let mid = Xiangqi::from_fen(
        "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN3NC1/9/R1BAKAB1R w - - 0 1",
        XiangqiConfig::default(),
    )
    .expect("valid FEN");
    report("xiangqi mid-game", &mid);
}
