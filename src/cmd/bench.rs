//! `alphazero bench`: throughput figures in a stable, greppable format — one line
//! `bench <name> <figure> <unit>` per figure on stdout (details on stderr).
use alphazero_connect4::{Connect4, Connect4Config};
use alphazero_engine::device;
use alphazero_engine::position::PositionText;
use alphazero_game::Game;
use alphazero_gomoku::{Gomoku, GomokuConfig};
use alphazero_mcts::{bench_simulations, SearchBudget, SearchConfig, UniformEvaluator};
use alphazero_nn::bench::{
    bench_fma_peak, bench_inference, bench_inference_folded, bench_inference_folded_with,
    bench_matmul, bench_training, bench_training_layers, compute_threads, gomoku15_config,
};
use alphazero_nn::{Conv3x3Algorithm, ModelConfig, ModelPreset, NetworkEvaluator, Tile};
use alphazero_selfplay::{
    play_selfplay_games, play_selfplay_games_parallel, worker_count, SelfPlayConfig,
};
use alphazero_train::config::TrainConfig;
use alphazero_xiangqi::{Xiangqi, XiangqiConfig};
use anyhow::{Context, Result};
use std::time::{Duration, Instant};

/// Arguments of `alphazero bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Which benchmark.
    #[arg(value_enum, default_value = "all")]
    what: BenchWhat,
    /// Shorter runs (perft depth 4, fewer simulations, 0.3 s per network figure).
    #[arg(long)]
    quick: bool,
    /// Device for the network benchmarks: `default`, `cpu`, `cuda[:N]` or `wgpu[:N]` in builds
    /// with the `cuda` / `wgpu` feature (docs/training.md, GPU).
    #[arg(long, default_value = "default")]
    device: String,
    /// Self-play worker counts to measure the config-file games with (0 = one per core).
    #[arg(long, value_delimiter = ',', default_value = "1,0")]
    workers: Vec<usize>,
    /// Games per self-play figure of the config-file games (default: the config's
    /// `selfplay.games_per_iteration`, with `--quick` 8); they are played all at once.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    games: Option<u64>,
}

/// What to measure.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BenchWhat {
    /// Xiangqi move generation: perft nodes/s from the start position.
    Perft,
    /// Search simulations/s with the uniform evaluator (no network): the default search on
    /// each game, and the Gomoku play search (tactics on) on four middle-game positions of the
    /// must-defend set, 20,000 simulations each (`--quick`: 2,000).
    Search,
    /// Network positions/s (inference) and samples/s (training), effective GFLOP/s (also per
    /// 3×3 convolution algorithm, and per layer type of the training step: a trunk 3×3
    /// convolution and a batch norm with its ReLU, forward + backward, in ms) and their share
    /// of the FMA peak measured by an FMA loop.
    Nn,
    /// Self-play games/hour: Connect Four with a small fresh network; Gomoku 15×15 and
    /// Xiangqi with their CPU configs (`configs/*-cpu.toml`) and shipped networks: the old
    /// path (`-w1-direct`: one worker, direct convolutions split over the cores), then each
    /// `--workers` count with the default (Winograd) convolutions.
    Selfplay,
    /// Gomoku threat-space search: VCF nodes/s on random 15×15 middle-game positions, and
    /// the time to find the 9- and 11-ply VCFs of the rule test data. Xiangqi mate search:
    /// µs per `tactical_proof` call by budget on random-playout positions, check-search
    /// nodes/s, and the time to find the 5- and 7-ply mates of the test data.
    Tactics,
    /// Everything.
    All,
}

fn line(name: &str, figure: f64, unit: &str) {
    println!("bench {name} {} {unit}", figure_text(figure));
}

/// A figure with at least three significant digits and at least one decimal: `12345.6`,
/// `45.0`, `5.30`, `0.0230` (one decimal alone printed a 0.023 ms figure as `0.0`).
fn figure_text(figure: f64) -> String {
    let decimals = if figure == 0.0 || !figure.is_finite() || figure.abs() >= 100.0 {
        1
    } else {
        (2 - figure.abs().log10().floor() as i32).clamp(1, 9) as usize
    };
    format!("{figure:.decimals$}")
}

fn perft(quick: bool) {
    let depth = if quick { 4 } else { 5 };
    let pos = Xiangqi::new(&XiangqiConfig::default());
    let start = Instant::now();
    let nodes = alphazero_xiangqi::perft(&pos, depth);
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    eprintln!("perft xiangqi start depth {depth}: {nodes} nodes in {secs:.3} s");
    line(
        &format!("perft-xiangqi-d{depth}"),
        nodes as f64 / secs,
        "nodes/s",
    );
}

fn search_one<G: Game>(name: &str, pos: &G, sims: u32, runs: u32) -> Result<()> {
    let budget = SearchBudget::simulations(sims);
    let r = bench_simulations(
        pos,
        &SearchConfig::default(),
        &budget,
        &UniformEvaluator,
        runs,
    )?;
    eprintln!(
        "search {name}: {runs} searches of {sims} simulations ({} in all) in {:.3} s, last tree {} nodes",
        r.simulations, r.seconds, r.tree_size
    );
    line(&format!("search-{name}"), r.sims_per_sec, "sims/s");
    Ok(())
}

fn search(quick: bool) -> Result<()> {
    let (sims, runs) = if quick { (800, 2) } else { (3200, 5) };
    let g15 = Gomoku::parse_position(&GomokuConfig::default(), "h8 i9 g9 h10 i8 j10")?;
    search_one("gomoku15", g15.current(), sims, runs)?;
    let xq = Xiangqi::new(&XiangqiConfig::default());
    search_one("xiangqi-start", &xq, sims, runs)?;
    let mid = Xiangqi::parse_position(
        &XiangqiConfig::default(),
        "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R w - - 4 3",
    )?;
    search_one("xiangqi-mid", mid.current(), sims, runs)?;
    let c4 = Connect4::new(&Connect4Config);
    search_one("connect4", &c4, sims, runs)?;
    gomoku_play_search(quick)
}

/// VCF positions of `crates/gomoku/tests/data/vcf.txt` (rule, size, side, plies, stones).
const VCF_DATA: &str = include_str!("../../crates/gomoku/tests/data/vcf.txt");

fn tactics(quick: bool) -> Result<()> {
    use alphazero_game::Side;
    use alphazero_gomoku::{GomokuMove, Rule, VcfResult};
    use rand::{Rng, SeedableRng};
    // Random middle-game positions (fixed seed): 20–40 stones near the centre.
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let count = if quick { 100 } else { 1_000 };
    let mut positions = Vec::new();
    while positions.len() < count {
        let mut pos = Gomoku::new(&GomokuConfig::default());
        let stones = rng.random_range(20..40);
        for _ in 0..stones {
            let x = rng.random_range(3u8..12);
            let y = rng.random_range(3u8..12);
            let _ = pos.play(GomokuMove::new(x, y));
        }
        if pos.outcome().is_none() {
            positions.push(pos);
        }
    }
    let start = Instant::now();
    let (mut nodes, mut wins) = (0u64, 0);
    for p in &positions {
        let (r, n) = p.vcf_counted(20_000);
        nodes += u64::from(n);
        wins += u32::from(matches!(r, VcfResult::Win(_)));
    }
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    eprintln!(
        "tactics: VCF on {count} random 15x15 positions: {nodes} nodes in {secs:.3} s, {wins} wins"
    );
    line("vcf-gomoku15", nodes as f64 / secs, "nodes/s");
    line("vcf-gomoku15-per-position", secs * 1e3 / count as f64, "ms");
    for row in VCF_DATA.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = row.split_whitespace().collect();
        if f.len() != 6 || !(f[3] == "9" || f[3] == "11") {
            continue;
        }
        let rule: Rule = f[0].parse()?;
        let cfg = GomokuConfig::new(f[1].parse()?, rule)?;
        let side = if f[2] == "black" {
            Side::First
        } else {
            Side::Second
        };
        let stones = |s: &str| -> Result<Vec<GomokuMove>> {
            s.split(',')
                .map(|t| GomokuMove::parse_coord(t).map_err(Into::into))
                .collect()
        };
        let pos = Gomoku::from_stones(&cfg, &stones(f[4])?, &stones(f[5])?, side)?;
        let start = Instant::now();
        let (r, n) = pos.vcf_counted(1_000_000);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        anyhow::ensure!(matches!(r, VcfResult::Win(_)), "no VCF found in {row}");
        eprintln!(
            "tactics: {}-ply VCF ({rule}) found in {ms:.3} ms, {n} nodes",
            f[3]
        );
        line(&format!("vcf-{}ply-{rule}", f[3]), ms, "ms");
    }
    gomoku_vct(quick)?;
    xiangqi_tactics(quick)
}

/// Positions where Rapfi proves a forced win for the side to move
/// (`crates/gomoku/tests/data/rapfi-wins.tsv`: moves, side, `+MN`, note).
const RAPFI_WINS: &str = include_str!("../../crates/gomoku/tests/data/rapfi-wins.tsv");

/// Gomoku 15×15 positions where the side to move has to defend, classified by Rapfi
/// (`crates/gomoku/tests/data/must-defend.tsv`: moves, side, defences, candidates, note).
const MUST_DEFEND: &str = include_str!("../../crates/gomoku/tests/data/must-defend.tsv");

/// The rows of a Gomoku position file (`x,y` moves from the empty 15×15 freestyle board in
/// the first tab-separated column; `#` comments and the `moves` header skipped): each
/// position and the row's columns.
fn gomoku_rows(text: &'static str) -> Result<Vec<(Gomoku, Vec<&'static str>)>> {
    let mut out = Vec::new();
    for row in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("moves\t"))
    {
        let f: Vec<&str> = row.split('\t').collect();
        let mut pos = Gomoku::new(&GomokuConfig::default());
        for t in f[0].split_whitespace() {
            let mv = pos.parse_move(t)?;
            pos.play(mv).map_err(|e| anyhow::anyhow!("{row}: {e}"))?;
        }
        out.push((pos, f));
    }
    Ok(out)
}

/// The must-defend rows (0-based) whose positions `search-gomoku15-play` searches: middle
/// games of 18 to 36 stones that the search does not decide within its simulations.
const PLAY_SEARCH_ROWS: [usize; 4] = [0, 1, 6, 7];

/// The Gomoku play search (the preset every program uses: the decisive-move check, VCF at
/// every node, VCT at the root and after each root move, the solver) with the uniform
/// evaluator on one thread, one search of each [`PLAY_SEARCH_ROWS`] position: what a search
/// costs besides its evaluator.
fn gomoku_play_search(quick: bool) -> Result<()> {
    let sims = if quick { 2_000 } else { 20_000 };
    let rows = gomoku_rows(MUST_DEFEND)?;
    let config = <Gomoku as alphazero_registry::Registered>::play_search();
    let (mut total, mut seconds) = (0u64, 0.0);
    for &i in &PLAY_SEARCH_ROWS {
        let (pos, _) = rows
            .get(i)
            .with_context(|| format!("must-defend row {i}"))?;
        let r = bench_simulations(
            pos,
            &config,
            &SearchBudget::simulations(sims),
            &UniformEvaluator,
            1,
        )?;
        eprintln!(
            "search gomoku15-play: must-defend row {i} ({} stones): {} simulations in {:.3} s, \
             {:.0} a second",
            pos.stone_count(),
            r.simulations,
            r.seconds,
            r.sims_per_sec
        );
        total += r.simulations;
        seconds += r.seconds;
    }
    line(
        "search-gomoku15-play",
        total as f64 / seconds.max(1e-9),
        "sims/s",
    );
    Ok(())
}

/// The play search's root VCT ([`alphazero_game::Game::root_tactical_proof`] at the Gomoku
/// preset's budget) on Rapfi's proven wins: how many it proves, by Rapfi's length of the win,
/// and its time per position; then on the must-defend positions, where the side to move has
/// no win, so the whole budget is spent.
fn gomoku_vct(quick: bool) -> Result<()> {
    let budget = <Gomoku as alphazero_registry::Registered>::play_search()
        .root_tactical_budget
        .context("the Gomoku play search has a root VCT")?;
    let mut wins = gomoku_rows(RAPFI_WINS)?;
    if quick {
        wins.truncate(100);
    }
    let start = Instant::now();
    let (mut proved, mut short, mut short_proved) = (0, 0, 0);
    for (pos, f) in &wins {
        let found = pos.root_tactical_proof(budget).is_some();
        let plies: u32 = f[2].trim_start_matches("+M").parse()?;
        proved += usize::from(found);
        if plies <= 11 {
            short += 1;
            short_proved += usize::from(found);
        }
    }
    let ms = start.elapsed().as_secs_f64() * 1e3 / wins.len().max(1) as f64;
    eprintln!(
        "tactics: root VCT ({budget} nodes) proves {proved} of {} Rapfi wins ({short_proved} of \
         {short} within 11 plies), {ms:.1} ms a position",
        wins.len()
    );
    line(
        "vct-rapfi-wins-proved",
        proved as f64 / wins.len().max(1) as f64 * 100.0,
        "%",
    );
    line("vct-rapfi-wins-per-position", ms, "ms");
    let open = gomoku_rows(MUST_DEFEND)?;
    let start = Instant::now();
    for (pos, _) in &open {
        let _ = pos.root_tactical_proof(budget);
    }
    let ms = start.elapsed().as_secs_f64() * 1e3 / open.len().max(1) as f64;
    eprintln!(
        "tactics: root VCT on {} must-defend positions: {ms:.1} ms a position",
        open.len()
    );
    line("vct-no-win-per-position", ms, "ms");
    Ok(())
}

/// Mate positions of `crates/xiangqi/tests/data/mates.tsv` (FEN, side, plies, moves, note).
const XQ_MATES: &str = include_str!("../../crates/xiangqi/tests/data/mates.tsv");

/// Xiangqi's `tactical_proof` (mate in one, then the mate search by checks): the cost per call
/// on the positions of random playouts from the start (fixed seed; the nodes a search expands
/// are of this kind), by node budget, and the time to find the data file's longest mates.
fn xiangqi_tactics(quick: bool) -> Result<()> {
    use alphazero_xiangqi::MateResult;
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let games = if quick { 20 } else { 100 };
    let mut positions = Vec::new();
    for _ in 0..games {
        let mut pos = Xiangqi::new(&XiangqiConfig::default());
        for _ in 0..200 {
            if pos.outcome().is_some() {
                break;
            }
            positions.push(pos.clone());
            let moves = pos.legal_moves_vec();
            pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
    }
    let checks = positions
        .iter()
        .filter(|p| {
            p.legal_moves_vec().into_iter().any(|m| {
                let mut c = (*p).clone();
                c.play_unchecked(m);
                c.in_check()
            })
        })
        .count();
    eprintln!(
        "tactics: {} random-playout xiangqi positions, {checks} with a checking move",
        positions.len()
    );
    for budget in [0u32, 200, 2_000] {
        let start = Instant::now();
        let wins = positions
            .iter()
            .filter(|p| p.tactical_proof(budget).is_some())
            .count();
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        eprintln!(
            "tactics: xiangqi tactical_proof({budget}) on {} positions in {secs:.3} s, {wins} mates",
            positions.len()
        );
        line(
            &format!("mate-xiangqi-per-call-b{budget}"),
            secs * 1e6 / positions.len() as f64,
            "us",
        );
    }
    let start = Instant::now();
    let mut nodes = 0u64;
    for p in &positions {
        nodes += u64::from(p.mate_search(2_000, alphazero_xiangqi::MAX_MATE_PLIES).1);
    }
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    line("mate-xiangqi", nodes as f64 / secs, "nodes/s");
    for plies in ["5", "7"] {
        let (mut ms, mut count) = (0.0, 0);
        for row in XQ_MATES.lines().filter(|l| !l.starts_with('#')) {
            let f: Vec<&str> = row.split('\t').collect();
            if f.len() != 5 || f[2] != plies {
                continue;
            }
            let pos = Xiangqi::from_fen(f[0], XiangqiConfig::default())?;
            let start = Instant::now();
            let (r, n) = pos.mate_search(1_000_000, alphazero_xiangqi::MAX_MATE_PLIES);
            let t = start.elapsed().as_secs_f64() * 1e3;
            anyhow::ensure!(
                matches!(r, MateResult::Win { .. }),
                "no mate found in {}",
                f[0]
            );
            eprintln!(
                "tactics: {plies}-ply xiangqi mate found in {t:.3} ms, {n} nodes: {}",
                f[0]
            );
            ms += t;
            count += 1;
        }
        if count > 0 {
            line(
                &format!("mate-xiangqi-{plies}ply"),
                ms / f64::from(count),
                "ms",
            );
        }
    }
    Ok(())
}

fn nn(quick: bool, dev: &alphazero_nn::Device) {
    let t = if quick {
        Duration::from_millis(300)
    } else {
        Duration::from_secs(2)
    };
    eprintln!("network device: {}", alphazero_engine::device_words(dev));
    let mm = bench_matmul(if quick { 512 } else { 1024 }, t, dev);
    line("matmul", mm, "GFLOP/s");
    // The ceiling: independent FMA chains in registers, on one core and on the threads the
    // network kernels use; every "-fma-peak-share" line is a figure over the latter.
    let threads = compute_threads();
    let peak1 = bench_fma_peak(1, t);
    let peak = if threads > 1 {
        bench_fma_peak(threads, t)
    } else {
        peak1
    };
    line("fma-peak-1core", peak1, "GFLOP/s");
    line(&format!("fma-peak-{threads}threads"), peak, "GFLOP/s");
    // The shares are printed last, over the larger of this peak and one measured after the
    // figures: on a loaded machine one peak alone can fall below a figure (a share > 100%).
    let shares = std::cell::RefCell::new(Vec::<(String, f64)>::new());
    let share = |name: &str, gflops: f64| shares.borrow_mut().push((name.to_string(), gflops));
    let cpu = dev.clone().without_autodiff() == alphazero_nn::Device::flex();
    if cpu {
        // The 3×3 convolution algorithms on the whole 6×64 network at batch 32, effective
        // GFLOP/s (the direct convolution's multiply-accumulates per second; the trunk's
        // 3×3 convolutions are 99.8% of them).
        let cfg = gomoku15_config(ModelPreset::Medium);
        for (tag, alg) in [
            ("direct", Conv3x3Algorithm::Direct),
            ("winograd-f2", Conv3x3Algorithm::Winograd(Tile::F2)),
            ("winograd-f4", Conv3x3Algorithm::Winograd(Tile::F4)),
        ] {
            let f = bench_inference_folded_with(&cfg, 32, t, alg);
            let name = format!("nn-conv3x3-{tag}-6x64-gomoku15-b32");
            line(&name, f.positions_per_sec, "positions/s");
            line(&format!("{name}-gflops"), f.gflops, "GFLOP/s");
            share(&name, f.gflops);
        }
    }
    for preset in [ModelPreset::Medium, ModelPreset::Large] {
        let cfg = gomoku15_config(preset);
        let name = format!("{}x{}", cfg.residual_blocks, cfg.channels);
        for batch in [1usize, 8, 32, 128] {
            // The evaluator's path on this device first (folded on the CPU), then burn's
            // forward on the CPU as the reference.
            let mut figures = Vec::new();
            if cpu {
                figures.push((String::new(), bench_inference_folded(&cfg, batch, t)));
            }
            let burn_tag = if cpu { "-burn" } else { "" };
            figures.push((burn_tag.to_string(), bench_inference(&cfg, batch, t, dev)));
            for (tag, f) in figures {
                line(
                    &format!("nn-infer{tag}-{name}-gomoku15-b{batch}"),
                    f.positions_per_sec,
                    "positions/s",
                );
                line(
                    &format!("nn-infer{tag}-{name}-gomoku15-b{batch}-gflops"),
                    f.gflops,
                    "GFLOP/s",
                );
                share(&format!("nn-infer{tag}-{name}-gomoku15-b{batch}"), f.gflops);
            }
        }
    }
    if cpu {
        // The shipped Xiangqi network's shape (4×32, 18 planes of 10×9, a dense policy head
        // over 2,086 moves, value hidden 32) at the batches of play (1, 8: one tree's
        // leaves) and self-play (32 and more: several trees' leaves).
        let cfg = ModelConfig::for_game::<Xiangqi>(ModelPreset::Small, &XiangqiConfig::default())
            .with_residual_blocks(4);
        for batch in [1usize, 8, 32] {
            let f = bench_inference_folded(&cfg, batch, t);
            let name = format!("nn-infer-4x32-xiangqi-b{batch}");
            line(&name, f.positions_per_sec, "positions/s");
            share(&name, f.gflops);
        }
    }
    // Global pooling's cost: the 6×64 network with the pooling bias in blocks 3 and 6 (16 of
    // 64 channels pooled), the evaluator's path at batch 32.
    let pooled = gomoku15_config(ModelPreset::Medium).with_default_global_pooling();
    let f = if cpu {
        bench_inference_folded(&pooled, 32, t)
    } else {
        bench_inference(&pooled, 32, t, dev)
    };
    line(
        "nn-infer-6x64-gpool-gomoku15-b32",
        f.positions_per_sec,
        "positions/s",
    );
    let cfg = gomoku15_config(ModelPreset::Medium);
    let f = bench_training(&cfg, 256, t, dev);
    line(
        "nn-train-6x64-gomoku15-b256",
        f.samples_per_sec,
        "samples/s",
    );
    line("nn-train-6x64-gomoku15-b256-gflops", f.gflops, "GFLOP/s");
    share("nn-train-6x64-gomoku15-b256", f.gflops);
    // The trunk's layer types of that step, each alone (forward + backward).
    for l in bench_training_layers(&cfg, 256, t, dev) {
        let name = format!("nn-train-{}-6x64-gomoku15-b256", l.layer);
        line(&format!("{name}-ms"), l.ms, "ms");
        if let Some(g) = l.gflops {
            line(&format!("{name}-gflops"), g, "GFLOP/s");
            share(&name, g);
        }
    }
    let f = bench_training(&pooled, 256, t, dev);
    line(
        "nn-train-6x64-gpool-gomoku15-b256",
        f.samples_per_sec,
        "samples/s",
    );
    if !cpu {
        // The shares are of the CPU's FMA peak: no measure of a device.
        return;
    }
    let peak_after = if threads > 1 {
        bench_fma_peak(threads, t)
    } else {
        bench_fma_peak(1, t)
    };
    let peak = peak.max(peak_after);
    eprintln!("fma peak over {threads} thread(s): {peak:.1} GFLOP/s (the larger of before and after the figures)");
    for (name, gflops) in shares.into_inner() {
        let pct = 100.0 * gflops / peak.max(1e-9);
        if pct > 100.0 {
            eprintln!("note: {name} is above the measured FMA peak: the machine was busy while the peak was measured");
        }
        line(&format!("{name}-fma-peak-share"), pct, "%");
    }
}

fn selfplay(quick: bool, dev: &alphazero_nn::Device) -> Result<()> {
    let (games, sims) = if quick { (4u64, 32u32) } else { (8, 64) };
    let mcfg = ModelConfig::for_game::<Connect4>(ModelPreset::Small, &Connect4Config);
    let net = mcfg.init(dev);
    let eval = NetworkEvaluator::<Connect4>::new(&net, &mcfg, dev)?;
    let config = SelfPlayConfig {
        simulations: sims,
        parallel_games: games as usize,
        ..SelfPlayConfig::default()
    };
    let start = Connect4::new(&Connect4Config);
    let stats = play_selfplay_games(&start, &eval, &config, games, 0, |_| {})
        .context("self-play benchmark")?;
    let secs = stats.total_time.as_secs_f64().max(1e-9);
    eprintln!(
        "selfplay connect4 {}x{} net, {games} games at {sims} sims: {} plies, {} evaluations in {} calls (mean batch {:.1}), {secs:.2} s",
        mcfg.residual_blocks,
        mcfg.channels,
        stats.plies,
        stats.evaluations,
        stats.evaluator_calls,
        stats.mean_batch()
    );
    line(
        &format!(
            "selfplay-connect4-{}x{}-s{sims}",
            mcfg.residual_blocks, mcfg.channels
        ),
        stats.games as f64 * 3600.0 / secs,
        "games/h",
    );
    line(
        "selfplay-connect4-network-share",
        100.0 * stats.evaluator_share(),
        "%",
    );
    Ok(())
}

/// The CPU configs whose self-play `bench selfplay` measures: (figure name, config text).
const SELFPLAY_CONFIGS: [(&str, &str); 2] = [
    (
        "gomoku15",
        include_str!("../../configs/gomoku-15x15-cpu.toml"),
    ),
    ("xiangqi", include_str!("../../configs/xiangqi-cpu.toml")),
];

/// Self-play games/hour of a CPU config with its shipped network (a fresh network of the
/// config's size where none is found): `games` games all at once, for each worker count.
fn selfplay_config(
    name: &str,
    text: &str,
    args: &BenchArgs,
    dev: &alphazero_nn::Device,
) -> Result<()> {
    let (games, quick, workers) = (args.games, args.quick, &args.workers[..]);
    let cfg = TrainConfig::from_toml_str(text).with_context(|| format!("{name} config"))?;
    let spec = cfg.game;
    alphazero_registry::with_game!(&spec, G, gc => {
        selfplay_game::<G>(name, &cfg, gc, games, quick, workers, dev)
    })
}

fn selfplay_game<G: alphazero_nn::Encode>(
    name: &str,
    cfg: &TrainConfig,
    game_config: &G::Config,
    games: Option<u64>,
    quick: bool,
    workers: &[usize],
    dev: &alphazero_nn::Device,
) -> Result<()> {
    let start = G::new(game_config);
    let (h, w) = start.board_shape();
    let mcfg = ModelConfig::new(G::num_planes(game_config), h, w, start.num_actions())
        .with_residual_blocks(cfg.model.blocks as usize)
        .with_channels(cfg.model.channels as usize)
        .with_value_hidden(cfg.model.value_hidden as usize);
    let shipped = alphazero_engine::shipped_model_path::<G>(game_config);
    let (net, mcfg, which) = match &shipped {
        Some(path) => {
            let ck = alphazero_nn::load_checkpoint(path, G::NAME, dev)?;
            (ck.model, ck.header.model, path.display().to_string())
        }
        None => (mcfg.init(dev), mcfg, "a fresh network".to_string()),
    };
    let base = NetworkEvaluator::<G>::new(&net, &mcfg, dev)?;
    // The path before Winograd and workers: one worker, every layer split over the cores,
    // the direct 3×3 convolution.
    let direct = NetworkEvaluator::<G>::with_algorithm(&net, &mcfg, dev, Conv3x3Algorithm::Direct)?;
    let games = games.unwrap_or(if quick {
        8
    } else {
        u64::from(cfg.selfplay.games_per_iteration)
    });
    let mut config = alphazero_train::settings::selfplay_config(cfg, 1);
    config.parallel_games = games as usize;
    let sims = cfg.selfplay.simulations;
    let net_name = format!("{}x{}", mcfg.residual_blocks, mcfg.channels);
    let runs = std::iter::once((1, "-direct"))
        .chain(workers.iter().map(|&w| (w, "")))
        .collect::<Vec<_>>();
    for (wanted, tag) in runs {
        let n = worker_count(wanted, games, config.parallel_games);
        let eval = if tag.is_empty() { &base } else { &direct };
        let stats = play_selfplay_games_parallel(
            &start,
            n,
            |_| alphazero_mcts::CachedEvaluator::new(eval.clone(), 200_000 / n),
            &config,
            games,
            0,
            |_| {},
        )
        .with_context(|| format!("self-play benchmark {name}"))?;
        let secs = stats.total_time.as_secs_f64().max(1e-9);
        eprintln!(
            "selfplay {name} {net_name} ({which}), {games} games at {sims} sims, {}: {} plies, {} evaluations in {} calls (mean batch {:.1}), {secs:.2} s",
            crate::cmd::count(n as usize, "worker"),
            stats.plies,
            stats.evaluations,
            stats.evaluator_calls,
            stats.mean_batch()
        );
        let fig = format!("selfplay-{name}-{net_name}-s{sims}-w{n}{tag}");
        line(&fig, stats.games as f64 * 3600.0 / secs, "games/h");
        // Plies/s: the same figure without the noise of how long the games happened to be.
        line(
            &format!("{fig}-plies"),
            stats.plies as f64 / secs,
            "plies/s",
        );
        line(
            &format!("{fig}-network-share"),
            100.0 * stats.evaluator_share(),
            "%",
        );
    }
    Ok(())
}

/// Runs the benchmarks `args.what` names, one `bench <name> <figure> <unit>` line per figure
/// on stdout, details on stderr.
///
/// # Errors
/// A bad device name, a config or shipped network that cannot be read, a search or self-play
/// failure, a tactics position whose known win is not found.
pub fn run(args: &BenchArgs) -> Result<()> {
    let w = args.what;
    let all = w == BenchWhat::All;
    if all || w == BenchWhat::Perft {
        perft(args.quick);
    }
    if all || w == BenchWhat::Search {
        search(args.quick)?;
    }
    if all || w == BenchWhat::Tactics {
        tactics(args.quick)?;
    }
    if all || w == BenchWhat::Nn || w == BenchWhat::Selfplay {
        let dev = device(&args.device)?;
        if all || w == BenchWhat::Nn {
            nn(args.quick, &dev);
        }
        if all || w == BenchWhat::Selfplay {
            selfplay(args.quick, &dev)?;
            for (name, text) in SELFPLAY_CONFIGS {
                selfplay_config(name, text, args, &dev)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bench tactics` printed a 0.023 ms mate search as `0.0 ms`.
    #[test]
    fn small_figures_keep_three_significant_digits() {
        assert_eq!(figure_text(0.023), "0.0230");
        assert_eq!(figure_text(5.3), "5.30");
        assert_eq!(figure_text(45.0), "45.0");
        assert_eq!(figure_text(123_456.78), "123456.8");
        assert_eq!(figure_text(0.0), "0.0");
        assert_eq!(figure_text(-0.5), "-0.500");
    }
}
