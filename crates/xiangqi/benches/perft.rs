//! Start-position perft speed (leaf nodes per second via criterion throughput).

use alphazero_game::Game;
use alphazero_xiangqi::{perft, Xiangqi, XiangqiConfig};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn bench_perft(c: &mut Criterion) {
    let pos = Xiangqi::new(&XiangqiConfig::default());
    let mut group = c.benchmark_group("xiangqi_perft_startpos");
    group.sample_size(10);
    for depth in [3u32, 4] {
        let nodes = perft(&pos, depth);
        group.throughput(Throughput::Elements(nodes));
        group.bench_with_input(BenchmarkId::from_parameter(depth), &depth, |b, &d| {
            b.iter(|| perft(std::hint::black_box(&pos), d))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
