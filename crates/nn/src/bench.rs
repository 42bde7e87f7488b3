//! Network benchmarks (what `alphazero bench nn` runs): inference positions/s at several
//! batch sizes, training samples/s, and the achieved GFLOP/s next to the GFLOP/s of a large
//! matrix product on the same device.
//!
//! Inputs are 15×15 Gomoku-shaped (4 planes, 225 actions) with pseudo-random 0/1 planes.
//! Inference timings include building the input tensor and reading the outputs back, as the
//! [`crate::NetworkEvaluator`] does; they exclude position encoding.

use std::io::Write;
use std::time::{Duration, Instant};

use burn::tensor::{Device, Tensor, TensorData};

use crate::{Batch, ModelConfig, ModelPreset, Trainer, TrainerConfig};

/// Inference throughput of one network at one batch size.
#[derive(Clone, Debug, PartialEq)]
pub struct InferenceFigure {
    /// Network size, e.g. `6x64`.
    pub model: String,
    /// The forward path: `folded` ([`crate::FoldedNet`], the CPU evaluator's) or `burn`
    /// (burn's eval-mode forward, the CUDA evaluator's).
    pub path: &'static str,
    /// Positions per forward pass.
    pub batch: usize,
    /// Positions evaluated per second.
    pub positions_per_sec: f64,
    /// Achieved GFLOP/s (2 × multiply-accumulates of convolutions and linear layers).
    pub gflops: f64,
}

/// Training throughput of one network at one batch size.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainFigure {
    /// Network size, e.g. `6x64`.
    pub model: String,
    /// Samples per training step.
    pub batch: usize,
    /// Training samples per second (forward + backward + optimizer step).
    pub samples_per_sec: f64,
    /// Achieved GFLOP/s, counting a training step as 3 forward passes.
    pub gflops: f64,
}

/// What to measure.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchOptions {
    /// Network sizes for inference.
    pub inference_presets: Vec<ModelPreset>,
    /// Inference batch sizes.
    pub batch_sizes: Vec<usize>,
    /// Network sizes for training.
    pub train_presets: Vec<ModelPreset>,
    /// Training batch size.
    pub train_batch: usize,
    /// Side of the square matrices of the reference product.
    pub matmul_size: usize,
    /// Minimum measuring time of each figure (after one warm-up run).
    pub min_time: Duration,
}

impl Default for BenchOptions {
    /// 6×64 and 10×128 at batches 1, 8, 32, 128; training 6×64 at batch 256; 1024³ matmul;
    /// 2 s per figure.
    fn default() -> Self {
        BenchOptions {
            inference_presets: vec![ModelPreset::Medium, ModelPreset::Large],
            batch_sizes: vec![1, 8, 32, 128],
            train_presets: vec![ModelPreset::Medium],
            train_batch: 256,
            matmul_size: 1024,
            min_time: Duration::from_secs(2),
        }
    }
}

/// All figures of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchReport {
    /// The device, as burn prints it.
    pub device: String,
    /// GFLOP/s of an `n×n×n` f32 matrix product on the device (the achievable peak).
    pub matmul_gflops: f64,
    /// Inference figures.
    pub inference: Vec<InferenceFigure>,
    /// Training figures.
    pub training: Vec<TrainFigure>,
}

/// The 15×15 Gomoku-shaped config of a preset.
pub fn gomoku15_config(preset: ModelPreset) -> ModelConfig {
    ModelConfig::preset(preset, 4, 15, 15, 225)
}

fn model_name(c: &ModelConfig) -> String {
    format!("{}x{}", c.residual_blocks, c.channels)
}

/// Deterministic pseudo-random 0/1 values (xorshift), so the benchmark needs no RNG crate.
fn binary_noise(len: usize, seed: u64) -> Vec<f32> {
    let mut s = seed | 1;
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            if s & 4 == 0 {
                0.0
            } else {
                1.0
            }
        })
        .collect()
}

/// Runs `f` once to warm up, then repeatedly for at least `min_time`; returns runs per second.
fn time_it(min_time: Duration, mut f: impl FnMut()) -> f64 {
    f();
    let start = Instant::now();
    let mut runs = 0u64;
    while runs == 0 || start.elapsed() < min_time {
        f();
        runs += 1;
    }
    runs as f64 / start.elapsed().as_secs_f64()
}

/// Inference throughput of a freshly initialised `config` network at batch size `batch`.
pub fn bench_inference(
    config: &ModelConfig,
    batch: usize,
    min_time: Duration,
    device: &Device,
) -> InferenceFigure {
    let device = device.clone().without_autodiff();
    let net = config.init(&device);
    let dims = [
        batch,
        config.input_planes,
        config.board_height,
        config.board_width,
    ];
    let planes = binary_noise(dims.iter().product(), 0x5eed);
    let mut sink = 0.0f32;
    let per_sec = time_it(min_time, || {
        let x: Tensor<4> = Tensor::from_data(TensorData::new(planes.clone(), dims), &device);
        let (logits, values) = net.forward(x);
        let l = logits.into_data().try_into_vec::<f32>().unwrap_or_default();
        let v = values.into_data().try_into_vec::<f32>().unwrap_or_default();
        sink += l.first().copied().unwrap_or(0.0) + v.first().copied().unwrap_or(0.0);
    });
    std::hint::black_box(sink);
    let positions_per_sec = per_sec * batch as f64;
    InferenceFigure {
        model: model_name(config),
        path: "burn",
        batch,
        positions_per_sec,
        gflops: positions_per_sec * 2.0 * config.forward_macs() as f64 / 1e9,
    }
}

/// Inference throughput of the [`crate::FoldedNet`] of a freshly initialised `config` network
/// at batch size `batch` (host memory in and out, as the CPU evaluator runs it).
pub fn bench_inference_folded(
    config: &ModelConfig,
    batch: usize,
    min_time: Duration,
) -> InferenceFigure {
    bench_inference_folded_with(config, batch, min_time, crate::Conv3x3Algorithm::Auto)
}

/// As [`bench_inference_folded`] with the 3×3 convolutions computed by `algorithm`. The
/// GFLOP/s are *effective*: the direct convolution's multiply-accumulates per second,
/// whatever the algorithm does.
pub fn bench_inference_folded_with(
    config: &ModelConfig,
    batch: usize,
    min_time: Duration,
    algorithm: crate::Conv3x3Algorithm,
) -> InferenceFigure {
    let net = config.init(&Device::flex());
    let folded = crate::FoldedNet::with_algorithm(&net, config, algorithm)
        .expect("benchmark configs are valid");
    let per = config.input_planes * config.board_height * config.board_width;
    let planes = binary_noise(batch * per, 0x5eed);
    let mut logits = vec![0.0f32; batch * config.num_actions];
    let mut values = vec![0.0f32; batch];
    let per_sec = time_it(min_time, || {
        folded
            .forward(&planes, &mut logits, &mut values)
            .expect("buffers fit");
        std::hint::black_box((&logits, &values));
    });
    let positions_per_sec = per_sec * batch as f64;
    InferenceFigure {
        model: model_name(config),
        path: "folded",
        batch,
        positions_per_sec,
        gflops: positions_per_sec * 2.0 * config.forward_macs() as f64 / 1e9,
    }
}

/// Training throughput of a freshly initialised `config` network (AdamW) at batch `batch`.
pub fn bench_training(
    config: &ModelConfig,
    batch: usize,
    min_time: Duration,
    device: &Device,
) -> TrainFigure {
    bench_training_with(config, &TrainerConfig::default(), batch, min_time, device)
}

/// [`bench_training`] under the training settings `train`: with positive auxiliary weights
/// the network gets those heads and every sample their targets (a reply and an ownership
/// map of noise), so that the figure includes their cost.
///
/// # Panics
/// If `train` is invalid.
pub fn bench_training_with(
    config: &ModelConfig,
    train: &TrainerConfig,
    batch: usize,
    min_time: Duration,
    device: &Device,
) -> TrainFigure {
    let mut trainer =
        Trainer::new(config, train.clone(), device).expect("benchmark configs are valid");
    let (c, h, w, a) = (
        config.input_planes,
        config.board_height,
        config.board_width,
        config.num_actions,
    );
    let mut b = Batch::with_capacity([c, h, w], a, batch);
    let planes = binary_noise(batch * c * h * w, 0xbeef);
    let legal: Vec<bool> = (0..a).map(|i| i % 3 != 0).collect();
    let mut policy = vec![0.0f32; a];
    let n_legal = legal.iter().filter(|&&l| l).count() as f32;
    for (p, &l) in policy.iter_mut().zip(&legal) {
        *p = if l { 1.0 / n_legal } else { 0.0 };
    }
    let ownership: Vec<f32> = binary_noise(h * w, 0x0aa5)
        .iter()
        .map(|v| 2.0 * v - 1.0)
        .collect();
    for (i, chunk) in planes.chunks_exact(c * h * w).enumerate() {
        let z = [1.0, -1.0, 0.0][i % 3];
        let aux = crate::AuxTargets {
            reply: Some(i % a),
            ownership: Some(&ownership),
        };
        b.push_with_aux(chunk, &legal, &policy, z, aux)
            .expect("shapes match");
    }
    let per_sec = time_it(min_time, || {
        let _ = trainer.train_step(&b);
    });
    let samples_per_sec = per_sec * batch as f64;
    TrainFigure {
        model: model_name(config),
        batch,
        samples_per_sec,
        gflops: samples_per_sec * 3.0 * 2.0 * config.forward_macs() as f64 / 1e9,
    }
}

/// One layer type of the training step, timed alone (forward and backward).
#[derive(Clone, Debug, PartialEq)]
pub struct LayerFigure {
    /// The layer type: `conv3x3` (a trunk convolution, `C → C` channels) or `bn-relu` (a
    /// training-mode batch norm fused with its ReLU).
    pub layer: &'static str,
    /// Milliseconds per forward + backward pass of one such layer on the whole batch.
    pub ms: f64,
    /// Effective GFLOP/s (the direct convolution's 3 × 2 × multiply-accumulates of forward,
    /// input gradient and weight gradient per second, whatever the algorithm does); `None`
    /// for layers without multiply-accumulates worth counting.
    pub gflops: Option<f64>,
}

/// The trunk's layer types of a training step of `config` at batch `batch` on `device` (with
/// autodiff), each timed alone, forward and backward, in the layout the training step runs
/// them in ([`crate::PolicyValueNet::trunk_layout`]).
pub fn bench_training_layers(
    config: &ModelConfig,
    batch: usize,
    min_time: Duration,
    device: &Device,
) -> Vec<LayerFigure> {
    use crate::batch_norm::{batch_norm_act, Activation};
    use crate::conv3x3::{conv3x3_forward, Layout};
    use burn::tensor::Distribution;
    let device = device.clone().autodiff();
    let net = config.init(&device);
    let layout = net.trunk_layout(&device);
    let (c, h, w) = (config.channels, config.board_height, config.board_width);
    let dims = match layout {
        Layout::Nchw => [batch, c, h, w],
        Layout::Nhwc => [batch, h, w, c],
    };
    let x: Tensor<4> = Tensor::random(dims, Distribution::Normal(0.0, 1.0), &device).require_grad();
    let mut figures = Vec::new();
    let Some(block) = net.blocks.first() else {
        return figures;
    };
    let mut sink = 0.0f32;
    let per_sec = time_it(min_time, || {
        let y = conv3x3_forward(&block.conv1, x.clone(), layout);
        let g = y.sum().backward();
        sink += x
            .grad(&g)
            .map_or(0.0, |g| g.slice([0..1, 0..1, 0..1, 0..1]).into_scalar());
    });
    let macs = (batch * h * w * c * c * 9) as f64;
    figures.push(LayerFigure {
        layer: "conv3x3",
        ms: 1e3 / per_sec,
        gflops: Some(per_sec * 3.0 * 2.0 * macs / 1e9),
    });
    let per_sec = time_it(min_time, || {
        let y = batch_norm_act(&block.bn1, x.clone(), None, Activation::Relu, layout);
        let g = y.sum().backward();
        sink += x
            .grad(&g)
            .map_or(0.0, |g| g.slice([0..1, 0..1, 0..1, 0..1]).into_scalar());
    });
    figures.push(LayerFigure {
        layer: "bn-relu",
        ms: 1e3 / per_sec,
        gflops: None,
    });
    std::hint::black_box(sink);
    figures
}

/// The f32 fused-multiply-add peak of one core, GFLOP/s (2 FLOPs per lane of an FMA), measured
/// by a short loop of independent vector FMAs on each of `threads` threads at once (the sum over
/// the threads): 12 independent 8-lane AVX2 FMA chains where the CPU has AVX2 and FMA, else 12
/// scalar chains that the compiler may vectorise. Registers only, no memory traffic, so this
/// is the ceiling any kernel can reach; `threads = 2` on a 2-core machine shows whether the
/// cores have FMA units of their own (2× the one-thread figure) or share one core's (1×, e.g.
/// two hyperthreads).
pub fn bench_fma_peak(threads: usize, min_time: Duration) -> f64 {
    let threads = threads.max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| s.spawn(move || fma_peak_one_thread(min_time)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or(0.0)).sum()
    })
}

/// Threads the network kernels split their work over (rayon's pool; 1 without the `rayon`
/// feature): the cores whose FMA peak bounds a figure.
pub fn compute_threads() -> usize {
    #[cfg(feature = "rayon")]
    {
        rayon::current_num_threads()
    }
    #[cfg(not(feature = "rayon"))]
    {
        1
    }
}

/// FLOPs per call of [`fma_chains`]: 12 chains × 8 lanes × 2 FLOPs × `iters`.
const FMA_ITERS: u64 = 1 << 16;

fn fma_peak_one_thread(min_time: Duration) -> f64 {
    let mut sink = 0.0f32;
    let per_sec = time_it(min_time, || sink += fma_chains(FMA_ITERS, sink));
    std::hint::black_box(sink);
    per_sec * (12 * 8 * 2 * FMA_ITERS) as f64 / 1e9
}

/// Runs 12 independent 8-lane FMA chains `iters` times; returns a value depending on all of
/// them (so nothing is optimised away).
fn fma_chains(iters: u64, seed: f32) -> f32 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU has AVX2 and FMA (checked above).
            return unsafe { fma_chains_avx2(iters, seed) };
        }
    }
    let mut acc = [[seed; 8]; 12];
    let (a, b) = (0.999_99f32, 1e-6f32);
    for _ in 0..iters {
        for chain in acc.iter_mut() {
            for v in chain.iter_mut() {
                *v = v.mul_add(a, b);
            }
        }
    }
    acc.iter().flatten().sum()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn fma_chains_avx2(iters: u64, seed: f32) -> f32 {
    use std::arch::x86_64::*;
    let a = _mm256_set1_ps(0.999_99);
    let b = _mm256_set1_ps(1e-6);
    let mut acc = [_mm256_set1_ps(seed); 12];
    for _ in 0..iters {
        for v in acc.iter_mut() {
            *v = _mm256_fmadd_ps(*v, a, b);
        }
    }
    let mut total = _mm256_setzero_ps();
    for v in acc {
        total = _mm256_add_ps(total, v);
    }
    let mut lanes = [0.0f32; 8];
    _mm256_storeu_ps(lanes.as_mut_ptr(), total);
    lanes.iter().sum()
}

/// GFLOP/s of an `n×n` by `n×n` f32 matrix product on `device` (2n³ FLOPs per product).
pub fn bench_matmul(n: usize, min_time: Duration, device: &Device) -> f64 {
    let device = device.clone().without_autodiff();
    let a: Tensor<2> = Tensor::from_data(TensorData::new(binary_noise(n * n, 1), [n, n]), &device);
    let b: Tensor<2> = Tensor::from_data(TensorData::new(binary_noise(n * n, 2), [n, n]), &device);
    let mut sink = 0.0f32;
    let per_sec = time_it(min_time, || {
        let c = a.clone().matmul(b.clone());
        sink += c.sum().into_scalar::<f32>();
    });
    std::hint::black_box(sink);
    per_sec * 2.0 * (n as f64).powi(3) / 1e9
}

/// Runs every figure of `options`, printing one line per figure to `out` as it is measured.
///
/// # Errors
/// Only errors writing to `out`.
pub fn run(
    options: &BenchOptions,
    device: &Device,
    out: &mut dyn Write,
) -> std::io::Result<BenchReport> {
    writeln!(out, "device: {device:?}")?;
    let matmul_gflops = bench_matmul(options.matmul_size, options.min_time, device);
    let n = options.matmul_size;
    writeln!(out, "matmul {n}x{n}x{n} f32: {matmul_gflops:.1} GFLOP/s")?;
    let mut inference = Vec::new();
    for &preset in &options.inference_presets {
        let config = gomoku15_config(preset);
        for &batch in &options.batch_sizes {
            let mut figures = vec![bench_inference(&config, batch, options.min_time, device)];
            if device.clone().without_autodiff() == Device::flex() {
                figures.push(bench_inference_folded(&config, batch, options.min_time));
            }
            for f in figures {
                writeln!(
                    out,
                    "inference {} {:<6} gomoku15 batch {:>4}: {:>9.1} positions/s, {:>7.1} GFLOP/s ({:.0}% of matmul)",
                    f.model,
                    f.path,
                    f.batch,
                    f.positions_per_sec,
                    f.gflops,
                    100.0 * f.gflops / matmul_gflops.max(1e-9)
                )?;
                inference.push(f);
            }
        }
    }
    let mut training = Vec::new();
    for &preset in &options.train_presets {
        let config = gomoku15_config(preset);
        let f = bench_training(&config, options.train_batch, options.min_time, device);
        writeln!(
            out,
            "training  {} gomoku15 batch {:>4}: {:>9.1} samples/s,   {:>7.1} GFLOP/s ({:.0}% of matmul)",
            f.model,
            f.batch,
            f.samples_per_sec,
            f.gflops,
            100.0 * f.gflops / matmul_gflops.max(1e-9)
        )?;
        training.push(f);
    }
    Ok(BenchReport {
        device: format!("{device:?}"),
        matmul_gflops,
        inference,
        training,
    })
}
