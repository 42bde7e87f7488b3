//! One position through the Mixnet evaluator (line codes, table rows, the heads) on 15×15
//! middle-game positions: `cargo bench -p alphazero-mixnet`.
use alphazero_game::{random_opening, Game};
use alphazero_gomoku::{Gomoku, GomokuConfig, Rule};
use alphazero_mcts::{EvalRequest, Evaluator};
use alphazero_mixnet::{Mixnet, MixnetConfig, MixnetEvaluator};
use criterion::{criterion_group, criterion_main, Criterion};

fn positions() -> Vec<Gomoku> {
    let start = Gomoku::new(&GomokuConfig::new(15, Rule::Freestyle).unwrap());
    (0..64u64)
        .filter_map(|seed| random_opening(&start, 10 + (seed % 40) as u32, seed))
        .map(|line| line.current().clone())
        .collect()
}

fn evaluate(c: &mut Criterion) {
    let positions = positions();
    let eval = MixnetEvaluator::new(Mixnet::new(MixnetConfig::default(), 1));
    let mut logits = vec![0.0; positions[0].num_actions()];
    let mut value = [0.0];
    let mut i = 0;
    c.bench_function("mixnet evaluate 15x15 (F=32, lines ±4)", |b| {
        b.iter(|| {
            let req = [EvalRequest {
                position: &positions[i % positions.len()],
                history: &[],
            }];
            i += 1;
            eval.evaluate(&req, &mut logits, &mut value).unwrap();
            value[0]
        })
    });
}

criterion_group!(benches, evaluate);
criterion_main!(benches);
