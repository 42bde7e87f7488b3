//! Batch normalisation in training mode (batch statistics) for burn's Flex CPU backend, with a
//! hand-written backward pass, fused with the ReLU and the residual addition that follow it in
//! the network.
//!
//! burn 0.22's generic `batch_norm_train` (which Flex does not override) reduces over
//! `[B, H, W]` by swapping the batch and channel dimensions and reshaping, which copies the
//! whole activation tensor twice in the forward pass and twice more in the backward pass; the
//! ReLU and the residual addition after it are one more pass each (forward and backward). On
//! a 6×64 network at batch 256 those passes were the largest cost after the matrix products.
//! This backend extension reads the activations in place (NCHW or NHWC, see [`Layout`]) and
//! writes `relu(bn(x) [+ residual])` in one pass.
//!
//! Forward (Ioffe & Szegedy 2015, Algorithm 1), per channel `c` over the `N = B·H·W` values:
//! `μ_c = mean(x)`, `σ²_c = mean((x − μ_c)²)` (biased, as burn), `x̂ = (x − μ_c)/√(σ²_c + ε)`,
//! `y = γ_c·x̂ + β_c`, then optionally `y ← y + r` (residual) and `y ← max(0, y)` (ReLU).
//! The statistics are computed per sample (two passes over a sample that sits in cache) and
//! merged in `f64` with Chan et al.'s pairwise update, one pass over memory.
//! Backward (ibid., §3): `g = dy·[y > 0]` (with the ReLU, else `dy`), `dr = g`, `dβ_c = Σ g`,
//! `dγ_c = Σ g·x̂`, `dx = γ_c/√(σ²_c + ε) · (g − dβ_c/N − x̂·dγ_c/N)`.
//!
//! [`batch_norm_act`] is a drop-in for `BatchNorm::forward` (then the residual addition and
//! the ReLU) that also updates the running statistics exactly as burn does
//! (`running ← (1 − momentum)·running + momentum·batch`, biased variance). Checked against
//! burn's `BatchNorm`, `relu` and addition (outputs, all gradients and the running statistics)
//! in this module's tests, in both layouts. Tensors must be `f32` (the only dtype the networks
//! of this crate use; other dtypes panic with a message naming the operation).

use burn::backend::autodiff::checkpoint::base::Checkpointer;
use burn::backend::autodiff::checkpoint::strategy::CheckpointStrategy;
use burn::backend::autodiff::grads::Gradients;
use burn::backend::autodiff::ops::{Backward, Ops, OpsKind};
use burn::backend::autodiff::NodeId;
use burn::backend::flex::FlexTensor;
use burn::backend::tensor::FloatTensor;
use burn::backend::{backend_extension, Autodiff, Backend, Dispatch, Flex, TensorMetadata};
use burn::nn::BatchNorm;
use burn::tensor::activation::relu;
use burn::tensor::{DType, Tensor, TensorData};
use std::iter::repeat;

use crate::conv3x3::Layout;
use crate::conv3x3::{contiguous, fast_path_on, for_sample_chunks, for_sample_ranges, slice};

/// What follows the normalisation in [`BatchNormBackend::batch_norm_act`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Activation {
    /// Nothing: `bn(x)`.
    Identity,
    /// `max(0, bn(x))`.
    Relu,
}

/// The custom operations.
#[backend_extension(Flex, Autodiff)]
pub trait BatchNormBackend: Backend {
    /// `x` (`[B, C, H, W]` or `[B, H, W, C]` by `layout`), `gamma`, `beta` `[C]`, `stats`
    /// `[2, C]` (the batch's mean and biased variance per channel, from
    /// [`BatchNormBackend::channel_mean_var`]; a constant for autodiff) → `act(bn(x))`, the
    /// shape of `x` (see the module docs).
    fn batch_norm_act(
        x: FloatTensor<Self>,
        gamma: FloatTensor<Self>,
        beta: FloatTensor<Self>,
        stats: FloatTensor<Self>,
        epsilon: f64,
        layout: Layout,
        activation: Activation,
    ) -> FloatTensor<Self>;

    /// As [`BatchNormBackend::batch_norm_act`] with `residual` (the shape of `x`) added before
    /// the ReLU: `max(0, bn(x) + residual)` (the end of a residual block).
    fn batch_norm_add_relu(
        x: FloatTensor<Self>,
        gamma: FloatTensor<Self>,
        beta: FloatTensor<Self>,
        stats: FloatTensor<Self>,
        residual: FloatTensor<Self>,
        epsilon: f64,
        layout: Layout,
    ) -> FloatTensor<Self>;

    /// `x` (`[B, C, H, W]` or `[B, H, W, C]` by `layout`) → `[2, C]`: each channel's mean and
    /// biased variance over `B·H·W`. Not differentiable (the result is a constant for
    /// autodiff).
    fn channel_mean_var(x: FloatTensor<Self>, layout: Layout) -> FloatTensor<Self>;
}

/// Running per-channel moments: count, mean and sum of squared deviations (`f64`).
#[derive(Clone)]
struct Moments {
    n: f64,
    mean: Vec<f64>,
    m2: Vec<f64>,
}

impl Moments {
    fn new(c: usize) -> Moments {
        Moments {
            n: 0.0,
            mean: vec![0.0; c],
            m2: vec![0.0; c],
        }
    }

    /// Merges a group of `n` values per channel with means `mean` and squared deviations
    /// `m2` (Chan, Golub & LeVeque 1979).
    fn merge(&mut self, n: f64, mean: impl Iterator<Item = f64>, m2: impl Iterator<Item = f64>) {
        let total = self.n + n;
        if n == 0.0 {
            return;
        }
        for ((a, a2), (b, b2)) in self.mean.iter_mut().zip(&mut self.m2).zip(mean.zip(m2)) {
            let delta = b - *a;
            *a += delta * n / total;
            *a2 += b2 + delta * delta * self.n * n / total;
        }
        self.n = total;
    }
}

/// Per-channel statistics of `x` (`[B, C, HW]` in `layout`'s order): `(mean, biased
/// variance)`. Each sample's moments are taken in two passes over the sample (in cache), then
/// merged over the batch in `f64`.
fn stats(x: &[f32], layout: Layout, [b, c, hw]: [usize; 3]) -> (Vec<f32>, Vec<f32>) {
    let parts = for_sample_ranges(b, |first, count| {
        with_avx2(|| {
            let mut acc = Moments::new(c);
            let mut sum = vec![0.0f32; c];
            let mut sq = vec![0.0f32; c];
            for s in first..first + count {
                let sample = &x[s * c * hw..(s + 1) * c * hw];
                match layout {
                    Layout::Nchw => {
                        for (ch, plane) in sample.chunks_exact(hw).enumerate() {
                            sum[ch] = plane.iter().sum::<f32>();
                            let m = sum[ch] / hw as f32;
                            sq[ch] = plane.iter().map(|v| (v - m) * (v - m)).sum::<f32>();
                        }
                    }
                    Layout::Nhwc => {
                        sum.fill(0.0);
                        sq.fill(0.0);
                        for row in sample.chunks_exact(c) {
                            for (a, v) in sum.iter_mut().zip(row) {
                                *a += v;
                            }
                        }
                        let mean: Vec<f32> = sum.iter().map(|s| s / hw as f32).collect();
                        for row in sample.chunks_exact(c) {
                            for ((a, v), m) in sq.iter_mut().zip(row).zip(&mean) {
                                *a += (v - m) * (v - m);
                            }
                        }
                    }
                }
                acc.merge(
                    hw as f64,
                    sum.iter().map(|&s| s as f64 / hw as f64),
                    sq.iter().map(|&q| q as f64),
                );
            }
            acc
        })
    });
    let mut total = Moments::new(c);
    for p in parts {
        total.merge(p.n, p.mean.into_iter(), p.m2.into_iter());
    }
    let n = total.n.max(1.0);
    (
        total.mean.iter().map(|&m| m as f32).collect(),
        total.m2.iter().map(|&q| (q / n) as f32).collect(),
    )
}

fn inv_std(var: &[f32], epsilon: f64) -> Vec<f32> {
    var.iter()
        .map(|v| (1.0 / (*v as f64 + epsilon).sqrt()) as f32)
        .collect()
}

/// The per-channel coefficients of a run as an iterator: one value repeated over an NCHW
/// plane (one channel), or the channels' values along an NHWC row. Written with iterators
/// so that both forms compile to vector code.
#[inline(always)]
fn coef(values: &[f32], ch: Option<usize>) -> Coef<'_> {
    match ch {
        Some(ch) => Coef::One(values[ch]),
        None => Coef::Row(values),
    }
}

/// See [`coef`].
#[derive(Clone, Copy)]
enum Coef<'a> {
    One(f32),
    Row(&'a [f32]),
}

/// Runs `f` compiled for AVX2 and FMA where the CPU has them, so that the element-wise loops
/// inlined into it vectorise 8 lanes wide (the crate is compiled for the baseline x86-64,
/// whose 4-lane code ran the batch-norm passes at a fraction of the memory bandwidth); else
/// runs `f` as it is.
#[inline(always)]
fn with_avx2<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2,fma")]
        unsafe fn run<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU has AVX2 and FMA (checked above).
            return unsafe { run(f) };
        }
    }
    f()
}

/// Calls `run(range, Some(channel))` for each channel plane of an NCHW sample, or
/// `run(range, None)` for each point's row of channels of an NHWC sample; `range` indexes the
/// sample's `C·HW` values.
fn for_runs(
    layout: Layout,
    c: usize,
    hw: usize,
    mut run: impl FnMut(std::ops::Range<usize>, Option<usize>),
) {
    match layout {
        Layout::Nchw => (0..c).for_each(|ch| run(ch * hw..(ch + 1) * hw, Some(ch))),
        Layout::Nhwc => (0..hw).for_each(|p| run(p * c..(p + 1) * c, None)),
    }
}

/// `dst = act(src·k + d [+ res])` over one run.
#[inline(always)]
fn affine_run(dst: &mut [f32], src: &[f32], res: Option<&[f32]>, k: Coef, d: Coef, relu: bool) {
    match (k, d) {
        (Coef::One(k), Coef::One(d)) => affine(dst, src, res, repeat(k), repeat(d), relu),
        (Coef::Row(k), Coef::Row(d)) => {
            affine(dst, src, res, k.iter().copied(), d.iter().copied(), relu)
        }
        _ => unreachable!("coefficients of one run have one form"),
    }
}

#[inline(always)]
fn affine(
    dst: &mut [f32],
    src: &[f32],
    res: Option<&[f32]>,
    k: impl Iterator<Item = f32>,
    d: impl Iterator<Item = f32>,
    relu: bool,
) {
    let kd = k.zip(d);
    match (res, relu) {
        (Some(r), _) => {
            for ((o, (v, r)), (k, d)) in dst.iter_mut().zip(src.iter().zip(r)).zip(kd) {
                *o = (v * k + d + r).max(0.0);
            }
        }
        (None, true) => {
            for ((o, v), (k, d)) in dst.iter_mut().zip(src).zip(kd) {
                *o = (v * k + d).max(0.0);
            }
        }
        (None, false) => {
            for ((o, v), (k, d)) in dst.iter_mut().zip(src).zip(kd) {
                *o = v * k + d;
            }
        }
    }
}

/// `out = act(x·k_c + d_c [+ residual])` over `[B, C, HW]` in `layout`, with
/// `k_c = γ_c/√(σ²_c + ε)`, `d_c = β_c − μ_c·k_c`.
#[allow(clippy::too_many_arguments)]
fn normalise(
    x: &[f32],
    layout: Layout,
    [b, c, hw]: [usize; 3],
    mean: &[f32],
    inv: &[f32],
    gamma: &[f32],
    beta: &[f32],
    residual: Option<&[f32]>,
    activation: Activation,
) -> Vec<f32> {
    let scale: Vec<f32> = inv.iter().zip(gamma).map(|(i, g)| i * g).collect();
    let shift: Vec<f32> = (0..c).map(|ch| beta[ch] - mean[ch] * scale[ch]).collect();
    let relu = activation == Activation::Relu;
    let per = c * hw;
    let mut out = vec![0.0f32; b * per];
    for_sample_chunks(&mut out, b, per, |first, count, chunk| {
        with_avx2(|| {
            for s in 0..count {
                let base = (first + s) * per;
                let (src, dst) = (&x[base..base + per], &mut chunk[s * per..(s + 1) * per]);
                let res = residual.map(|r| &r[base..base + per]);
                for_runs(layout, c, hw, |run, ch| {
                    let r = res.map(|r| &r[run.clone()]);
                    let (dst, src) = (&mut dst[run.clone()], &src[run]);
                    affine_run(dst, src, r, coef(&scale, ch), coef(&shift, ch), relu);
                });
            }
        })
    });
    out
}

/// The gradients of one backward pass: `dx`, `dγ`, `dβ` and `dr` (the gradient after the
/// ReLU mask, which is the residual's gradient).
struct BnGrads {
    dx: Option<Vec<f32>>,
    dgamma: Vec<f32>,
    dbeta: Vec<f32>,
    dr: Option<Vec<f32>>,
}

/// The backward pass on host data (see the module docs): `dy` the upstream gradient, `x` the
/// input, `out` the output (for the ReLU mask; `None` without the ReLU), all `[B, C, HW]` in
/// `layout`.
#[allow(clippy::too_many_arguments)]
fn backward_host(
    dy: &[f32],
    x: &[f32],
    out: Option<&[f32]>,
    layout: Layout,
    [b, c, hw]: [usize; 3],
    (mean, inv, gamma): (&[f32], &[f32], &[f32]),
    want_dx: bool,
    want_dr: bool,
) -> BnGrads {
    let per = c * hw;
    // dβ = Σ g, Σ g·(x − μ) (per sample in f32, then summed in f64); dγ = inv·Σ g·(x − μ).
    let partial = for_sample_ranges(b, |first, count| {
        with_avx2(|| {
            let (mut sb, mut sx) = (vec![0.0f64; c], vec![0.0f64; c]);
            let (mut rb, mut rx) = (vec![0.0f32; c], vec![0.0f32; c]);
            for s in first..first + count {
                let base = s * per;
                rb.fill(0.0);
                rx.fill(0.0);
                for_runs(layout, c, hw, |run, ch| {
                    let r = base + run.start..base + run.end;
                    let (g, xs) = (&dy[r.clone()], &x[r.clone()]);
                    let o = out.map(|o| &o[r]);
                    match ch {
                        // One channel's plane: two sums.
                        Some(ch) => {
                            let m = mean[ch];
                            let (mut a, mut ax) = (0.0f32, 0.0f32);
                            match o {
                                Some(o) => {
                                    for ((g, o), v) in g.iter().zip(o).zip(xs) {
                                        let g = *g * f32::from(u8::from(*o > 0.0));
                                        a += g;
                                        ax += g * (v - m);
                                    }
                                }
                                None => {
                                    for (g, v) in g.iter().zip(xs) {
                                        a += g;
                                        ax += g * (v - m);
                                    }
                                }
                            }
                            rb[ch] = a;
                            rx[ch] = ax;
                        }
                        // A row of channels: one sum per channel, vectorised over the channels.
                        None => {
                            let acc = rb.iter_mut().zip(rx.iter_mut()).zip(mean);
                            match o {
                                Some(o) => {
                                    for (((sb, sx), m), ((g, o), v)) in
                                        acc.zip(g.iter().zip(o).zip(xs))
                                    {
                                        let g = *g * f32::from(u8::from(*o > 0.0));
                                        *sb += g;
                                        *sx += g * (v - m);
                                    }
                                }
                                None => {
                                    for (((sb, sx), m), (g, v)) in acc.zip(g.iter().zip(xs)) {
                                        *sb += g;
                                        *sx += g * (v - m);
                                    }
                                }
                            }
                        }
                    }
                });
                for ch in 0..c {
                    sb[ch] += rb[ch] as f64;
                    sx[ch] += rx[ch] as f64;
                }
            }
            (sb, sx)
        })
    });
    let dbeta: Vec<f32> = (0..c)
        .map(|ch| partial.iter().map(|p| p.0[ch]).sum::<f64>() as f32)
        .collect();
    let dgamma: Vec<f32> = (0..c)
        .map(|ch| (partial.iter().map(|p| p.1[ch]).sum::<f64>() * inv[ch] as f64) as f32)
        .collect();
    // The residual's gradient: g = dy·[out > 0].
    let dr = (want_dr && out.is_some()).then(|| {
        let out = out.expect("checked above");
        let mut dr = vec![0.0f32; b * per];
        for_sample_chunks(&mut dr, b, per, |first, count, chunk| {
            with_avx2(|| {
                let r = first * per..(first + count) * per;
                for ((d, g), o) in chunk.iter_mut().zip(&dy[r.clone()]).zip(&out[r]) {
                    *d = if *o > 0.0 { *g } else { 0.0 };
                }
            })
        });
        dr
    });
    let dx = want_dx.then(|| {
        // dx = k·(g − dβ/N − x̂·dγ/N) = a_c·g + e_c·x + f_c with k = γ·inv,
        // a = k, e = −k·inv·dγ/N, f = −k·dβ/N − e·μ.
        let n = (b * hw) as f32;
        let a: Vec<f32> = (0..c).map(|ch| gamma[ch] * inv[ch]).collect();
        let e: Vec<f32> = (0..c).map(|ch| -a[ch] * inv[ch] * dgamma[ch] / n).collect();
        let f: Vec<f32> = (0..c)
            .map(|ch| -a[ch] * dbeta[ch] / n - e[ch] * mean[ch])
            .collect();
        let mut dx = vec![0.0f32; b * per];
        let g_src: &[f32] = dr.as_deref().unwrap_or(dy);
        let out_mask = if dr.is_some() { None } else { out };
        for_sample_chunks(&mut dx, b, per, |first, count, chunk| {
            with_avx2(|| {
                for s in 0..count {
                    let base = (first + s) * per;
                    let dst = &mut chunk[s * per..(s + 1) * per];
                    for_runs(layout, c, hw, |run, ch| {
                        let g = &g_src[base + run.start..base + run.end];
                        let o = out_mask.map(|o| &o[base + run.start..base + run.end]);
                        let xs = &x[base + run.start..base + run.end];
                        let dst = &mut dst[run];
                        dx_run(dst, g, o, xs, (coef(&a, ch), coef(&e, ch), coef(&f, ch)));
                    });
                }
            })
        });
        dx
    });
    BnGrads {
        dx,
        dgamma,
        dbeta,
        dr,
    }
}

/// `dst = a·g' + e·x + f` over one run, `g' = g·[out > 0]` when `out` is given, else `g`.
#[inline(always)]
fn dx_run(
    dst: &mut [f32],
    g: &[f32],
    out: Option<&[f32]>,
    x: &[f32],
    (a, e, f): (Coef, Coef, Coef),
) {
    match (a, e, f) {
        (Coef::One(a), Coef::One(e), Coef::One(f)) => {
            dx_kernel(dst, g, out, x, repeat(a).zip(repeat(e)).zip(repeat(f)))
        }
        (Coef::Row(a), Coef::Row(e), Coef::Row(f)) => dx_kernel(
            dst,
            g,
            out,
            x,
            a.iter()
                .copied()
                .zip(e.iter().copied())
                .zip(f.iter().copied()),
        ),
        _ => unreachable!("coefficients of one run have one form"),
    }
}

#[inline(always)]
fn dx_kernel(
    dst: &mut [f32],
    g: &[f32],
    out: Option<&[f32]>,
    x: &[f32],
    aef: impl Iterator<Item = ((f32, f32), f32)>,
) {
    match out {
        Some(o) => {
            for ((d, ((g, o), v)), ((a, e), f)) in
                dst.iter_mut().zip(g.iter().zip(o).zip(x)).zip(aef)
            {
                let g = *g * f32::from(u8::from(*o > 0.0));
                *d = a * g + e * v + f;
            }
        }
        None => {
            for ((d, (g, v)), ((a, e), f)) in dst.iter_mut().zip(g.iter().zip(x)).zip(aef) {
                *d = a * g + e * v + f;
            }
        }
    }
}

fn is_f32(ts: &[&FlexTensor]) -> bool {
    ts.iter().all(|t| t.dtype() == DType::F32)
}

/// `[B, C, HW]` of `x` in `layout`.
fn dims_of(x: &FlexTensor, layout: Layout) -> [usize; 3] {
    layout.bchw(x.shape().dims::<4>())
}

/// Mean and `1/√(σ² + ε)` per channel from a `[2, C]` statistics tensor.
fn mean_inv(stats: &FlexTensor, epsilon: f64) -> (Vec<f32>, Vec<f32>) {
    let stats = contiguous(stats.clone());
    let s = slice(&stats);
    let c = s.len() / 2;
    (s[..c].to_vec(), inv_std(&s[c..], epsilon))
}

/// The forward pass on host data: `act(bn(x) [+ residual])` with the given statistics, and
/// the mean and `1/√(σ² + ε)` per channel (what the backward pass needs).
#[allow(clippy::too_many_arguments)]
fn forward_host(
    x: &FlexTensor,
    gamma: &FlexTensor,
    beta: &FlexTensor,
    stats: &FlexTensor,
    residual: Option<&FlexTensor>,
    epsilon: f64,
    layout: Layout,
    activation: Activation,
) -> (FlexTensor, Vec<f32>, Vec<f32>) {
    assert!(
        is_f32(&[x, gamma, beta, stats]) && residual.is_none_or(|r| is_f32(&[r])),
        "batch_norm_act: f32 tensors only"
    );
    let shape = x.shape();
    let dims = dims_of(x, layout);
    let (x, gamma, beta) = (
        contiguous(x.clone()),
        contiguous(gamma.clone()),
        contiguous(beta.clone()),
    );
    let residual = residual.map(|r| contiguous(r.clone()));
    let (mean, inv) = mean_inv(stats, epsilon);
    let out = normalise(
        slice(&x),
        layout,
        dims,
        &mean,
        &inv,
        slice(&gamma),
        slice(&beta),
        residual.as_ref().map(slice),
        activation,
    );
    (
        FlexTensor::from_data(TensorData::new(out, shape)),
        mean,
        inv,
    )
}

impl BatchNormBackend for Flex {
    fn batch_norm_act(
        x: FlexTensor,
        gamma: FlexTensor,
        beta: FlexTensor,
        stats: FlexTensor,
        epsilon: f64,
        layout: Layout,
        activation: Activation,
    ) -> FlexTensor {
        forward_host(&x, &gamma, &beta, &stats, None, epsilon, layout, activation).0
    }

    fn batch_norm_add_relu(
        x: FlexTensor,
        gamma: FlexTensor,
        beta: FlexTensor,
        stats: FlexTensor,
        residual: FlexTensor,
        epsilon: f64,
        layout: Layout,
    ) -> FlexTensor {
        forward_host(
            &x,
            &gamma,
            &beta,
            &stats,
            Some(&residual),
            epsilon,
            layout,
            Activation::Relu,
        )
        .0
    }

    fn channel_mean_var(x: FlexTensor, layout: Layout) -> FlexTensor {
        assert!(is_f32(&[&x]), "channel_mean_var: f32 tensors only");
        let dims = dims_of(&x, layout);
        let x = contiguous(x);
        let (mut mean, var) = stats(slice(&x), layout, dims);
        mean.extend(var);
        FlexTensor::from_data(TensorData::new(mean, [2, dims[1]]))
    }
}

/// What the backward pass of either operation keeps: the input and γ (checkpointed), the
/// batch mean and 1/√(σ² + ε) per channel, the output when a ReLU follows (its mask), the
/// layout.
#[derive(Clone, Debug)]
struct BnState {
    x: NodeId,
    gamma: NodeId,
    mean: Vec<f32>,
    inv: Vec<f32>,
    out: Option<FlexTensor>,
    layout: Layout,
}

/// The backward pass of both operations: `[x, γ, β]` and, for
/// [`BatchNormBackend::batch_norm_add_relu`], the residual.
fn backward_ops<const N: usize>(
    ops: Ops<BnState, N>,
    grads: &mut Gradients,
    checkpointer: &mut Checkpointer,
) {
    let grad = grads.consume::<Flex>(&ops.node);
    let state = ops.state;
    let x: FlexTensor = checkpointer.retrieve_node_output(state.x);
    let gamma: FlexTensor = checkpointer.retrieve_node_output(state.gamma);
    let shape = x.shape();
    let dims = dims_of(&x, state.layout);
    let (x, gamma, grad) = (contiguous(x), contiguous(gamma), contiguous(grad));
    let out = state.out.map(contiguous);
    let node_r = ops.parents.get(3).cloned().flatten();
    let g = backward_host(
        slice(&grad),
        slice(&x),
        out.as_ref().map(slice),
        state.layout,
        dims,
        (&state.mean, &state.inv, slice(&gamma)),
        ops.parents[0].is_some(),
        node_r.is_some(),
    );
    let c = dims[1];
    if let (Some(node), Some(dx)) = (&ops.parents[0], g.dx) {
        let t = FlexTensor::from_data(TensorData::new(dx, shape.clone()));
        grads.register::<Flex>(node.id, t);
    }
    if let Some(node) = &ops.parents[1] {
        let t = FlexTensor::from_data(TensorData::new(g.dgamma, [c]));
        grads.register::<Flex>(node.id, t);
    }
    if let Some(node) = &ops.parents[2] {
        let t = FlexTensor::from_data(TensorData::new(g.dbeta, [c]));
        grads.register::<Flex>(node.id, t);
    }
    if let Some(node) = node_r {
        // Without a ReLU mask there is none to apply: dr = dy.
        let dr = match g.dr {
            Some(dr) => FlexTensor::from_data(TensorData::new(dr, shape)),
            None => grad,
        };
        grads.register::<Flex>(node.id, dr);
    }
}

#[derive(Debug)]
struct BatchNormActBackward;

impl Backward<Flex, 3> for BatchNormActBackward {
    type State = BnState;

    fn backward(
        self,
        ops: Ops<Self::State, 3>,
        grads: &mut Gradients,
        checkpointer: &mut Checkpointer,
    ) {
        backward_ops(ops, grads, checkpointer);
    }
}

#[derive(Debug)]
struct BatchNormAddReluBackward;

impl Backward<Flex, 4> for BatchNormAddReluBackward {
    type State = BnState;

    fn backward(
        self,
        ops: Ops<Self::State, 4>,
        grads: &mut Gradients,
        checkpointer: &mut Checkpointer,
    ) {
        backward_ops(ops, grads, checkpointer);
    }
}

impl<C: CheckpointStrategy> BatchNormBackend for Autodiff<Flex, C> {
    fn batch_norm_act(
        x: FloatTensor<Self>,
        gamma: FloatTensor<Self>,
        beta: FloatTensor<Self>,
        stats: FloatTensor<Self>,
        epsilon: f64,
        layout: Layout,
        activation: Activation,
    ) -> FloatTensor<Self> {
        let prep = BatchNormActBackward
            .prepare::<C>([x.node(), gamma.node(), beta.node()])
            .compute_bound()
            .stateful();
        let run = |x: &FlexTensor, gamma: &FlexTensor, beta: &FlexTensor| {
            forward_host(
                x,
                gamma,
                beta,
                stats.primitive(),
                None,
                epsilon,
                layout,
                activation,
            )
        };
        match prep {
            OpsKind::Tracked(mut prep) => {
                let x_state = prep.checkpoint(&x);
                let gamma_state = prep.checkpoint(&gamma);
                let (out, mean, inv) = run(x.primitive(), gamma.primitive(), beta.primitive());
                let state = BnState {
                    x: x_state,
                    gamma: gamma_state,
                    mean,
                    inv,
                    out: (activation == Activation::Relu).then(|| out.clone()),
                    layout,
                };
                prep.finish(state, out)
            }
            OpsKind::UnTracked(prep) => {
                prep.finish(run(x.primitive(), gamma.primitive(), beta.primitive()).0)
            }
        }
    }

    fn batch_norm_add_relu(
        x: FloatTensor<Self>,
        gamma: FloatTensor<Self>,
        beta: FloatTensor<Self>,
        stats: FloatTensor<Self>,
        residual: FloatTensor<Self>,
        epsilon: f64,
        layout: Layout,
    ) -> FloatTensor<Self> {
        let prep = BatchNormAddReluBackward
            .prepare::<C>([x.node(), gamma.node(), beta.node(), residual.node()])
            .compute_bound()
            .stateful();
        let run = |x: &FlexTensor, gamma: &FlexTensor, beta: &FlexTensor| {
            forward_host(
                x,
                gamma,
                beta,
                stats.primitive(),
                Some(residual.primitive()),
                epsilon,
                layout,
                Activation::Relu,
            )
        };
        match prep {
            OpsKind::Tracked(mut prep) => {
                let x_state = prep.checkpoint(&x);
                let gamma_state = prep.checkpoint(&gamma);
                let (out, mean, inv) = run(x.primitive(), gamma.primitive(), beta.primitive());
                let state = BnState {
                    x: x_state,
                    gamma: gamma_state,
                    mean,
                    inv,
                    out: Some(out.clone()),
                    layout,
                };
                prep.finish(state, out)
            }
            OpsKind::UnTracked(prep) => {
                prep.finish(run(x.primitive(), gamma.primitive(), beta.primitive()).0)
            }
        }
    }

    fn channel_mean_var(x: FloatTensor<Self>, layout: Layout) -> FloatTensor<Self> {
        FloatTensor::<Self>::new(Flex::channel_mean_var(x.primitive().clone(), layout))
    }
}

/// Whether [`batch_norm_act`] runs this module's operations for `bn` on `device`: training
/// mode on burn's Flex autodiff device.
pub fn fast_path(bn: &BatchNorm, device: &burn::tensor::Device) -> bool {
    device.is_autodiff() && bn.training.is_enabled() && fast_path_on(device)
}

/// `act(bn(x) [+ residual])` for `x` (and `residual`) in `layout`: in training mode on
/// burn's Flex autodiff device ([`fast_path`]), this module's operations (batch statistics,
/// one pass) plus burn's running-statistics update; everywhere else (inference mode, CUDA)
/// burn's own `BatchNorm::forward`, addition and `relu` (NCHW only there).
///
/// `activation` applies when `residual` is `None`; with a residual the ReLU always follows
/// (the end of a residual block).
///
/// # Panics
/// With [`Layout::Nhwc`] off the fast path (burn's layers are NCHW).
pub fn batch_norm_act(
    bn: &BatchNorm,
    x: Tensor<4>,
    residual: Option<Tensor<4>>,
    activation: Activation,
    layout: Layout,
) -> Tensor<4> {
    let device = x.device();
    if !fast_path(bn, &device) {
        assert_eq!(layout, Layout::Nchw, "burn's BatchNorm is NCHW");
        let y = bn.forward(x);
        return match (residual, activation) {
            (Some(r), _) => relu(y + r),
            (None, Activation::Relu) => relu(y),
            (None, Activation::Identity) => y,
        };
    }
    let stats = Tensor::<2>::from_dispatch(<Dispatch as BatchNormBackend>::channel_mean_var(
        x.clone().into_dispatch(),
        layout,
    ));
    let (gamma, beta) = (
        bn.gamma.val().into_dispatch(),
        bn.beta.val().into_dispatch(),
    );
    let out = match residual {
        Some(r) => <Dispatch as BatchNormBackend>::batch_norm_add_relu(
            x.into_dispatch(),
            gamma,
            beta,
            stats.clone().into_dispatch(),
            r.into_dispatch(),
            bn.epsilon,
            layout,
        ),
        None => <Dispatch as BatchNormBackend>::batch_norm_act(
            x.into_dispatch(),
            gamma,
            beta,
            stats.clone().into_dispatch(),
            bn.epsilon,
            layout,
            activation,
        ),
    };
    let [_, c] = stats.dims();
    let mean: Tensor<1> = stats.clone().slice([0..1, 0..c]).reshape([c as i32]);
    let var: Tensor<1> = stats.slice([1..2, 0..c]).reshape([c as i32]);
    let running_mean = bn.running_mean.value_sync().to_device(&device);
    let running_var = bn.running_var.value_sync().to_device(&device);
    let running_mean = running_mean
        .mul_scalar(1.0 - bn.momentum)
        .add(mean.detach().mul_scalar(bn.momentum));
    let running_var = running_var
        .mul_scalar(1.0 - bn.momentum)
        .add(var.detach().mul_scalar(bn.momentum));
    bn.running_mean.update(running_mean.detach());
    bn.running_var.update(running_var.detach());
    Tensor::from_dispatch(out)
}

/// `bn.forward(x)` for `x` `[B, C, H, W]` (see [`batch_norm_act`]).
pub fn batch_norm(bn: &BatchNorm, x: Tensor<4>) -> Tensor<4> {
    batch_norm_act(bn, x, None, Activation::Identity, Layout::Nchw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{host, max_rel_diff};
    use burn::module::Param;
    use burn::nn::BatchNormConfig;
    use burn::tensor::Gradients;
    use burn::tensor::{Device, Distribution};

    /// A batch normalisation over `c` channels with non-trivial γ (0.5–1.5) and β (−1–1).
    fn random_batch_norm(c: usize, device: &Device) -> BatchNorm {
        let mut bn = BatchNormConfig::new(c).init(device);
        bn.gamma = Param::from_tensor(Tensor::random([c], Distribution::Uniform(0.5, 1.5), device));
        bn.beta = Param::from_tensor(Tensor::random(
            [c],
            Distribution::Uniform(-1.0, 1.0),
            device,
        ));
        bn
    }

    /// What the fast and the reference batch normalisation must agree on after a backward
    /// pass: the gradients of the input `x`, γ and β, and the running statistics, as
    /// `(name, fast, reference)`.
    fn fast_and_reference(
        x: &Tensor<4>,
        bn: &BatchNorm,
        reference: &BatchNorm,
        g_fast: &Gradients,
        g_ref: &Gradients,
    ) -> Vec<(&'static str, Vec<f32>, Vec<f32>)> {
        vec![
            (
                "x",
                host(x.grad(g_fast).unwrap()),
                host(x.grad(g_ref).unwrap()),
            ),
            (
                "gamma",
                host(bn.gamma.val().grad(g_fast).unwrap()),
                host(reference.gamma.val().grad(g_ref).unwrap()),
            ),
            (
                "beta",
                host(bn.beta.val().grad(g_fast).unwrap()),
                host(reference.beta.val().grad(g_ref).unwrap()),
            ),
            (
                "running mean",
                host(bn.running_mean.value()),
                host(reference.running_mean.value()),
            ),
            (
                "running var",
                host(bn.running_var.value()),
                host(reference.running_var.value()),
            ),
        ]
    }

    /// Outputs, the gradients of input, γ and β, and the running statistics after two steps
    /// agree with burn's `BatchNorm` (non-trivial γ, β, shifted and scaled inputs).
    #[test]
    fn batch_norm_matches_burn_outputs_gradients_and_running_statistics() {
        let device = Device::flex().autodiff();
        for &(b, c, h, w) in &[(1, 2, 1, 5), (3, 4, 5, 6), (16, 8, 6, 7), (5, 3, 15, 15)] {
            let bn = random_batch_norm(c, &device);
            let reference = bn.clone();
            for step in 0..2 {
                let x: Tensor<4> =
                    Tensor::random([b, c, h, w], Distribution::Normal(0.7, 2.0), &device)
                        .require_grad();
                let probe: Tensor<4> =
                    Tensor::random([b, c, h, w], Distribution::Normal(0.0, 1.0), &device);
                let y_fast = batch_norm(&bn, x.clone());
                let g_fast = (y_fast.clone() * probe.clone()).sum().backward();
                let y_ref = reference.forward(x.clone());
                let g_ref = (y_ref.clone() * probe).sum().backward();
                let what = format!("[{b}, {c}, {h}, {w}] step {step}");
                let d = max_rel_diff(&host(y_fast), &host(y_ref));
                assert!(d < 1e-5, "{what}: output differs by {d}");
                let pairs = fast_and_reference(&x, &bn, &reference, &g_fast, &g_ref);
                for (name, fast, slow) in pairs {
                    let d = max_rel_diff(&fast, &slow);
                    assert!(d < 1e-4, "{what}: {name} differs by {d}");
                }
            }
        }
    }

    /// The fused forms (`relu(bn(x))`, `relu(bn(x) + r)`) in both layouts agree with burn's
    /// `BatchNorm`, `relu` and addition: outputs, the gradients of the input, γ, β and the
    /// residual, and the running statistics (NHWC through permutations of NCHW tensors).
    #[test]
    fn fused_batch_norm_relu_residual_matches_burn_in_both_layouts() {
        let device = Device::flex().autodiff();
        for layout in [Layout::Nchw, Layout::Nhwc] {
            for residual in [false, true] {
                for &(b, c, h, w) in &[(1, 2, 1, 5), (3, 8, 5, 6), (4, 16, 15, 15)] {
                    let bn = random_batch_norm(c, &device);
                    let reference = bn.clone();
                    let x: Tensor<4> =
                        Tensor::random([b, c, h, w], Distribution::Normal(0.7, 2.0), &device)
                            .require_grad();
                    let r: Tensor<4> =
                        Tensor::random([b, c, h, w], Distribution::Normal(0.0, 1.0), &device)
                            .require_grad();
                    let probe: Tensor<4> =
                        Tensor::random([b, c, h, w], Distribution::Normal(0.0, 1.0), &device);
                    let to = |t: Tensor<4>| match layout {
                        Layout::Nchw => t,
                        Layout::Nhwc => t.permute([0, 2, 3, 1]),
                    };
                    let from = |t: Tensor<4>| match layout {
                        Layout::Nchw => t,
                        Layout::Nhwc => t.permute([0, 3, 1, 2]),
                    };
                    let res = residual.then(|| to(r.clone()));
                    let y_fast = from(batch_norm_act(
                        &bn,
                        to(x.clone()),
                        res,
                        Activation::Relu,
                        layout,
                    ));
                    let g_fast = (y_fast.clone() * probe.clone()).sum().backward();
                    let y = reference.forward(x.clone());
                    let y_ref = relu(if residual { y + r.clone() } else { y });
                    let g_ref = (y_ref.clone() * probe).sum().backward();
                    let what = format!("{layout:?} residual {residual} [{b}, {c}, {h}, {w}]");
                    let d = max_rel_diff(&host(y_fast), &host(y_ref));
                    assert!(d < 1e-5, "{what}: output differs by {d}");
                    let mut pairs = fast_and_reference(&x, &bn, &reference, &g_fast, &g_ref);
                    if residual {
                        pairs.push((
                            "residual",
                            host(r.grad(&g_fast).unwrap()),
                            host(r.grad(&g_ref).unwrap()),
                        ));
                    }
                    for (name, fast, slow) in pairs {
                        let d = max_rel_diff(&fast, &slow);
                        assert!(d < 1e-4, "{what}: {name} differs by {d}");
                    }
                }
            }
        }
    }

    /// The per-sample moments merged in `f64` give the two-pass statistics of the whole
    /// batch, also for values far from zero (no cancellation), in both layouts.
    #[test]
    fn merged_channel_statistics_match_two_pass_statistics() {
        let (b, c, hw) = (5, 3, 7);
        let nchw: Vec<f32> = (0..b * c * hw)
            .map(|i| 1000.0 + (i as f32 * 0.731).sin() * (1.0 + (i % c) as f32))
            .collect();
        let mut nhwc = vec![0.0f32; nchw.len()];
        for s in 0..b {
            for ch in 0..c {
                for p in 0..hw {
                    nhwc[(s * hw + p) * c + ch] = nchw[(s * c + ch) * hw + p];
                }
            }
        }
        for (layout, x) in [(Layout::Nchw, &nchw), (Layout::Nhwc, &nhwc)] {
            let (mean, var) = stats(x, layout, [b, c, hw]);
            for ch in 0..c {
                let vals: Vec<f64> = (0..b)
                    .flat_map(|s| (0..hw).map(move |p| (s, p)))
                    .map(|(s, p)| nchw[(s * c + ch) * hw + p] as f64)
                    .collect();
                let m = vals.iter().sum::<f64>() / vals.len() as f64;
                let v = vals.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / vals.len() as f64;
                assert!(
                    (mean[ch] as f64 - m).abs() < 1e-6 * m.abs(),
                    "{layout:?} mean"
                );
                assert!(
                    (var[ch] as f64 - v).abs() < 1e-3 * v,
                    "{layout:?} var {} vs {v}",
                    var[ch]
                );
            }
        }
    }

    /// In inference mode (no autodiff) the running statistics are used, as in burn.
    #[test]
    fn batch_norm_without_autodiff_is_burns_inference_mode() {
        let device = Device::flex();
        let bn = BatchNormConfig::new(3).init(&device);
        let x: Tensor<4> = Tensor::random([2, 3, 4, 4], Distribution::Normal(1.0, 3.0), &device);
        let d = max_rel_diff(&host(batch_norm(&bn, x.clone())), &host(bn.forward(x)));
        assert!(d < 1e-6, "differs by {d}");
    }
}
