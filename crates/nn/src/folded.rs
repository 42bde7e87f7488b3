//! Fast CPU inference: the [`PolicyValueNet`] with batch norm folded into the convolutions,
//! run on host memory with the `gemm` crate (the matrix kernels burn's Flex backend uses), or,
//! on CPUs with AVX-512F, with this crate's own products of few columns (`narrow.rs`: the
//! bias in the accumulators, no per-call packing: `gemm`'s AVX2 kernels and per-call cost
//! held the shipped 4×32 Xiangqi network at par with ONNX Runtime on one core; with these it
//! ran 1.5–1.8× ONNX Runtime's speed at batches 1–128, `scripts/inference-vs-onnxruntime.py`).
//!
//! Why: burn's Flex convolution runs one small GEMM per position of the batch and re-packs
//! the weights on every call, and every batch norm, ReLU and addition is a separate pass
//! with its own allocation. Here a whole batch is one GEMM per layer (`M = B·H·W` rows), the
//! weights are laid out once, and bias, residual addition and ReLU are applied while the
//! output tile is still in cache.
//!
//! Layout: activations are `[B·H·W, C]` row-major (NHWC); a 3×3 convolution (padding 1) is
//! an im2col of `[rows, 9·C_in]` (zero outside the board) times the folded weights
//! `[9·C_in, C_out]`; the 1×1 head convolutions are `[B·H·W, C] × [C, C_head]`; the heads'
//! first linear layers have their input rows permuted once so that they read the NHWC
//! flatten (`hw·C_head + c`) instead of burn's NCHW flatten (`c·H·W + hw`).
//!
//! Batch norm in inference mode is `γ·(x − μ)/√(σ² + ε) + β`, an affine map per channel,
//! folded into the preceding convolution: `W' = W·s`, `b' = (b − μ)·s + β` with
//! `s = γ/√(σ² + ε)` (Ioffe & Szegedy 2015, §3.1 on inference). The result equals burn's
//! eval-mode forward to float rounding (tested to 1e-4 on trained networks).
//!
//! A block with global pooling ([`crate::GlobalPooling`]) runs its first convolution with
//! the bias only (no ReLU), then, per position, the means and maxima of the ReLU of the last
//! `c_g` channels, the pooling's linear layer for the whole batch, and one pass that writes
//! `relu(x + bias)` of the first `C − c_g` channels as the second convolution's input.

use std::cell::RefCell;

use burn::module::Module;
use burn::nn::conv::Conv2d;
use burn::nn::{BatchNorm, Linear};
use burn::tensor::Tensor;

use crate::winograd::{self, Tiling, Transform};
use crate::{ModelConfig, NnError, PolicyValueNet, Tile, ValuePool};

/// A convolution with its batch norm folded in: weights `[k·k·C_in, C_out]` row-major
/// (row index `(ky·k + kx)·C_in + c_in`), bias `[C_out]`; a 3×3 convolution may run as a
/// Winograd convolution (its transformed weights `[t², C_in, C_out]` kept beside).
#[derive(Clone, Debug)]
struct FoldedConv {
    kernel: usize,
    cin: usize,
    cout: usize,
    weight: Vec<f32>,
    bias: Vec<f32>,
    winograd: Option<(Transform, Vec<f32>)>,
}

/// How [`FoldedNet`] computes its 3×3 convolutions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Conv3x3Algorithm {
    /// im2col and one matrix product per layer (9 multiplications per output and channel
    /// pair).
    Direct,
    /// Winograd minimal filtering with the given output tile (see [`Tile`]).
    Winograd(Tile),
    /// Per layer, the faster of the two as measured on an AVX2 CPU; see
    /// [`Conv3x3Algorithm::choose`].
    Auto,
}

impl Conv3x3Algorithm {
    /// The algorithm [`Conv3x3Algorithm::Auto`] picks for a 3×3 convolution of `cin` → `cout`
    /// channels: F(4×4, 3×3) when both channel counts are multiples of 8 and at least 16 and
    /// the CPU has AVX2 and FMA (the vectorised transforms), else the direct convolution (the
    /// stem, whose few input planes leave the Winograd products too thin to pay for the
    /// transforms). Measured on one core of an AVX2 CPU (`alphazero bench nn`, positions/s at
    /// batch 8 and 32): F(4×4) ≈2× the direct convolution for 15×15 with 64 channels, 1.6–1.8×
    /// with 48, 1.3–1.4× for Xiangqi's 10×9 with 32, and about even for Connect Four's 6×7
    /// with 32 (whose 4×4 tiles overhang the board by half); F(2×2) was between the two.
    pub fn choose(cin: usize, cout: usize) -> Conv3x3Algorithm {
        let vector = |c: usize| c >= 16 && c.is_multiple_of(8);
        if vector(cin) && vector(cout) && winograd::fast_path(cin) {
            Conv3x3Algorithm::Winograd(Tile::F4)
        } else {
            Conv3x3Algorithm::Direct
        }
    }
}

/// A linear layer: weights `[D_in, D_out]` row-major, bias `[D_out]`.
#[derive(Clone, Debug)]
pub(crate) struct Dense {
    /// Inputs.
    pub(crate) din: usize,
    /// Outputs.
    pub(crate) dout: usize,
    /// `[D_in, D_out]` row-major: `y = x·W + b`.
    pub(crate) weight: Vec<f32>,
    /// `[D_out]`.
    pub(crate) bias: Vec<f32>,
}

/// Which element-wise operation follows a convolution's bias.
#[derive(Clone, Copy)]
enum Epilogue<'a> {
    /// `relu(x)`.
    Relu,
    /// `relu(x + residual)`; the residual has the output's shape `[rows, C_out]`.
    ResidualRelu(&'a [f32]),
    /// `x`: the bias only (a global pooling block's first convolution, whose ReLU comes after
    /// the pooling bias).
    Linear,
}

/// A residual block: its two folded convolutions and, with global pooling, the pooling's
/// linear layer `[2·c_g, C − c_g]` (the second convolution then reads `C − c_g` channels).
#[derive(Clone, Debug)]
struct FoldedBlock {
    conv1: FoldedConv,
    pool_fc: Option<Dense>,
    conv2: FoldedConv,
}

/// The policy head's last layer ([`ModelConfig::policy_planes`]).
#[derive(Clone, Debug)]
enum PolicyOut {
    /// The dense head's linear layer over the NHWC flatten.
    Dense(Dense),
    /// The convolutional head: a 1×1 convolution to `K` planes, and each action's point of
    /// them as `(h·W + w)·K + k` (the NHWC layout of one position's planes).
    Planes(FoldedConv, Vec<usize>),
}

/// The policy-value network prepared for CPU inference (batch norm folded, NHWC layout).
///
/// Built from a [`PolicyValueNet`] with [`FoldedNet::new`]; [`FoldedNet::forward`] gives the
/// same policy logits and values as the network's eval-mode forward (batch norm on running
/// statistics). Immutable and `Send + Sync`: concurrent calls run concurrently. With the
/// crate's `rayon` feature, the rows of each convolution are split over rayon's threads.
#[derive(Clone, Debug)]
pub struct FoldedNet {
    config: ModelConfig,
    algorithm: Conv3x3Algorithm,
    stem: FoldedConv,
    blocks: Vec<FoldedBlock>,
    policy_conv: FoldedConv,
    policy_out: PolicyOut,
    value_conv: FoldedConv,
    value_fc1: Dense,
    value_fc2: Dense,
}

fn host(t: Tensor<1>) -> Result<Vec<f32>, NnError> {
    t.into_data()
        .convert::<f32>()
        .try_into_vec::<f32>()
        .map_err(|e| NnError::Backend(format!("reading weights: {e:?}")))
}

fn host_nd<const D: usize>(t: Tensor<D>) -> Result<(Vec<f32>, [usize; D]), NnError> {
    let dims = t.dims();
    let v = t
        .into_data()
        .convert::<f32>()
        .try_into_vec::<f32>()
        .map_err(|e| NnError::Backend(format!("reading weights: {e:?}")))?;
    Ok((v, dims))
}

/// A convolution with its batch norm folded in, in the convolution's own layout: weights
/// `[C_out, C_in, k, k]` row-major (PyTorch's and ONNX's `Conv` layout), bias `[C_out]`.
/// What both the CPU path and the ONNX export compute with.
#[derive(Clone, Debug)]
pub(crate) struct FoldedOihw {
    /// `k` of the `k × k` kernel.
    pub(crate) kernel: usize,
    /// Input channels.
    pub(crate) cin: usize,
    /// Output channels.
    pub(crate) cout: usize,
    /// `[C_out, C_in, k, k]` row-major.
    pub(crate) weight: Vec<f32>,
    /// `[C_out]`.
    pub(crate) bias: Vec<f32>,
}

/// A convolution without batch norm after it (a head's last layer), in its own layout.
pub(crate) fn plain_conv(conv: &Conv2d) -> Result<FoldedOihw, NnError> {
    let (weight, [cout, cin, kh, kw]) = host_nd(conv.weight.val())?;
    if kh != kw {
        return Err(NnError::InvalidConfig(format!(
            "cannot fold a {kh}×{kw} convolution"
        )));
    }
    let bias = match &conv.bias {
        Some(b) => host(b.val())?,
        None => vec![0.0; cout],
    };
    if bias.len() != cout {
        return Err(NnError::InvalidConfig(format!(
            "a bias of {} values for a convolution of {cout} output channels",
            bias.len()
        )));
    }
    Ok(FoldedOihw {
        kernel: kh,
        cin,
        cout,
        weight,
        bias,
    })
}

/// Folds the inference-mode batch norm `bn` into the convolution `conv` before it:
/// `W' = W·s`, `b' = (b − μ)·s + β` with `s = γ/√(σ² + ε)` per output channel.
pub(crate) fn fold_batch_norm(conv: &Conv2d, bn: &BatchNorm) -> Result<FoldedOihw, NnError> {
    let FoldedOihw {
        kernel: k,
        cin,
        cout,
        weight: w,
        bias,
    } = plain_conv(conv)?;
    let gamma = host(bn.gamma.val())?;
    let beta = host(bn.beta.val())?;
    let mean = host(bn.running_mean.value())?;
    let var = host(bn.running_var.value())?;
    if [gamma.len(), beta.len(), mean.len(), var.len()]
        .iter()
        .any(|&n| n != cout)
    {
        return Err(NnError::InvalidConfig(format!(
            "batch norm of the wrong size after a convolution of {cout} output channels"
        )));
    }
    let mut weight = w;
    let mut folded_bias = vec![0.0f32; cout];
    let per_output = cin * k * k;
    for co in 0..cout {
        let scale = (gamma[co] as f64 / (var[co] as f64 + bn.epsilon).sqrt()) as f32;
        folded_bias[co] = (bias[co] - mean[co]) * scale + beta[co];
        for v in &mut weight[co * per_output..(co + 1) * per_output] {
            *v *= scale;
        }
    }
    Ok(FoldedOihw {
        kernel: k,
        cin,
        cout,
        weight,
        bias: folded_bias,
    })
}

fn fold_conv(conv: &Conv2d, bn: &BatchNorm) -> Result<FoldedConv, NnError> {
    Ok(nhwc_conv(fold_batch_norm(conv, bn)?))
}

/// A convolution in the CPU path's layout: weights `[k, k, C_in, C_out]`.
fn nhwc_conv(folded: FoldedOihw) -> FoldedConv {
    let FoldedOihw {
        kernel: k,
        cin,
        cout,
        weight: oihw,
        bias,
    } = folded;
    let mut weight = vec![0.0f32; k * k * cin * cout];
    for co in 0..cout {
        for ci in 0..cin {
            for ky in 0..k {
                for kx in 0..k {
                    let src = ((co * cin + ci) * k + ky) * k + kx;
                    let dst = ((ky * k + kx) * cin + ci) * cout + co;
                    weight[dst] = oihw[src];
                }
            }
        }
    }
    FoldedConv {
        kernel: k,
        cin,
        cout,
        weight,
        bias,
        winograd: None,
    }
}

/// A linear layer; with `nchw = Some((channels, hw))` its input rows are permuted from burn's
/// NCHW flatten (`c·hw + p`) to the NHWC flatten (`p·channels + c`).
pub(crate) fn dense(linear: &Linear, nchw: Option<(usize, usize)>) -> Result<Dense, NnError> {
    let (w, [din, dout]) = host_nd(linear.weight.val())?;
    let bias = match &linear.bias {
        Some(b) => host(b.val())?,
        None => vec![0.0; dout],
    };
    let weight = match nchw {
        None => w,
        Some((channels, hw)) => {
            if channels * hw != din {
                return Err(NnError::InvalidConfig(format!(
                    "linear layer of {din} inputs after {channels} planes of {hw} points"
                )));
            }
            let mut out = vec![0.0f32; din * dout];
            for c in 0..channels {
                for p in 0..hw {
                    let src = (c * hw + p) * dout;
                    let dst = (p * channels + c) * dout;
                    out[dst..dst + dout].copy_from_slice(&w[src..src + dout]);
                }
            }
            out
        }
    };
    Ok(Dense {
        din,
        dout,
        weight,
        bias,
    })
}

/// `dst[m, n] = lhs[m, k] · rhs[k, n] (+ bias[n])` (all row-major, contiguous),
/// single-threaded unless `parallel`: with AVX-512F by [`crate::narrow::product`] (the bias
/// its accumulators' start) unless `parallel` asks for threads on a product large enough to
/// split, else by `gemm` and a pass adding the bias.
#[allow(clippy::too_many_arguments)]
fn matmul(
    dst: &mut [f32],
    lhs: &[f32],
    rhs: &[f32],
    bias: Option<&[f32]>,
    m: usize,
    k: usize,
    n: usize,
    parallel: bool,
) {
    assert!(dst.len() >= m * n && lhs.len() >= m * k && rhs.len() >= k * n);
    if m == 0 || n == 0 {
        return;
    }
    #[cfg(feature = "rayon")]
    let threads = parallel && m * n * k >= (1 << 21) && rayon::current_num_threads() > 1;
    #[cfg(not(feature = "rayon"))]
    let threads = {
        let _ = parallel;
        false
    };
    if !threads && crate::narrow::product((m, n, k), lhs, k, rhs, bias, dst, n) {
        return;
    }
    gemm_product(dst, lhs, rhs, m, k, n, threads);
    if let Some(bias) = bias {
        for row in dst[..m * n].chunks_exact_mut(n) {
            for (v, b) in row.iter_mut().zip(bias) {
                *v += b;
            }
        }
    }
}

/// `dst[m, n] = lhs[m, k] · rhs[k, n]` by `gemm`, on rayon's threads when `threads`.
fn gemm_product(
    dst: &mut [f32],
    lhs: &[f32],
    rhs: &[f32],
    m: usize,
    k: usize,
    n: usize,
    threads: bool,
) {
    if k == 0 {
        dst[..m * n].fill(0.0);
        return;
    }
    #[cfg(feature = "rayon")]
    let parallelism = if threads {
        gemm::Parallelism::Rayon(0)
    } else {
        gemm::Parallelism::None
    };
    #[cfg(not(feature = "rayon"))]
    let parallelism = {
        let _ = threads;
        gemm::Parallelism::None
    };
    // SAFETY: the asserts above bound every index gemm reads or writes: dst is m×n with row
    // stride n, lhs m×k with row stride k, rhs k×n with row stride n, all column stride 1.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            n as isize,
            false,
            lhs.as_ptr(),
            1,
            k as isize,
            rhs.as_ptr(),
            1,
            n as isize,
            0.0,
            1.0,
            false,
            false,
            false,
            parallelism,
        );
    }
}

thread_local! {
    /// Per-thread im2col buffer, grown on demand and reused across calls.
    static COLUMNS: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// Rows of the output computed by one task (one GEMM).
const TILE_ROWS: usize = 128;

impl FoldedConv {
    /// Sets the algorithm of a 3×3 convolution (1×1 convolutions are always direct).
    fn set_algorithm(&mut self, algorithm: Conv3x3Algorithm) {
        if self.kernel != 3 {
            return;
        }
        let algorithm = match algorithm {
            Conv3x3Algorithm::Auto => Conv3x3Algorithm::choose(self.cin, self.cout),
            a => a,
        };
        self.winograd = match algorithm {
            Conv3x3Algorithm::Winograd(tile) => {
                let tr = Transform::new(tile);
                let u = tr.weights_from_hwio(&self.weight, self.cin, self.cout);
                Some((tr, u))
            }
            _ => None,
        };
    }

    /// Applies the convolution (padding `kernel / 2`, stride 1) to `input` `[B·H·W, C_in]`,
    /// writing `[B·H·W, C_out]` to `out`, then the epilogue.
    fn forward(&self, input: &[f32], h: usize, w: usize, out: &mut [f32], epi: Epilogue<'_>) {
        let rows = input.len() / self.cin;
        debug_assert_eq!(out.len(), rows * self.cout);
        if let Some((tr, u)) = &self.winograd {
            let tiling = Tiling::new(tr, rows / (h * w), h, w);
            let (residual, relu) = match epi {
                Epilogue::Relu => (None, true),
                Epilogue::ResidualRelu(r) => (Some(r), true),
                Epilogue::Linear => (None, false),
            };
            winograd::forward_nhwc(
                tr, &tiling, input, self.cin, u, &self.bias, self.cout, residual, relu, out,
            );
            return;
        }
        let tile = |start: usize, out_tile: &mut [f32]| {
            let n = out_tile.len() / self.cout;
            if self.kernel == 1 {
                matmul(
                    out_tile,
                    &input[start * self.cin..(start + n) * self.cin],
                    &self.weight,
                    Some(&self.bias),
                    n,
                    self.cin,
                    self.cout,
                    false,
                );
            } else {
                COLUMNS.with(|cell| {
                    let mut col = cell.borrow_mut();
                    let width = self.kernel * self.kernel * self.cin;
                    if col.len() < n * width {
                        col.resize(n * width, 0.0);
                    }
                    self.im2col(input, h, w, start, n, &mut col[..n * width]);
                    matmul(
                        out_tile,
                        &col[..n * width],
                        &self.weight,
                        Some(&self.bias),
                        n,
                        width,
                        self.cout,
                        false,
                    );
                });
            }
            self.epilogue(start, out_tile, epi);
        };
        let chunk = TILE_ROWS * self.cout;
        #[cfg(feature = "rayon")]
        {
            use rayon::prelude::*;
            if rows > TILE_ROWS {
                out.par_chunks_mut(chunk)
                    .enumerate()
                    .for_each(|(i, t)| tile(i * TILE_ROWS, t));
                return;
            }
        }
        for (i, t) in out.chunks_mut(chunk).enumerate() {
            tile(i * TILE_ROWS, t);
        }
    }

    /// Fills `col` `[n, k·k·C_in]` with the patches of output rows `start..start + n`.
    fn im2col(&self, input: &[f32], h: usize, w: usize, start: usize, n: usize, col: &mut [f32]) {
        let k = self.kernel;
        let pad = (k / 2) as isize;
        let cin = self.cin;
        let width = k * k * cin;
        let hw = h * w;
        for (r, row) in col.chunks_exact_mut(width).take(n).enumerate() {
            let idx = start + r;
            let b = idx / hw;
            let y = ((idx % hw) / w) as isize;
            let x = (idx % w) as isize;
            for ky in 0..k {
                let yy = y + ky as isize - pad;
                for kx in 0..k {
                    let xx = x + kx as isize - pad;
                    let dst = &mut row[(ky * k + kx) * cin..(ky * k + kx + 1) * cin];
                    if yy < 0 || yy >= h as isize || xx < 0 || xx >= w as isize {
                        dst.fill(0.0);
                    } else {
                        let src = (b * hw + yy as usize * w + xx as usize) * cin;
                        dst.copy_from_slice(&input[src..src + cin]);
                    }
                }
            }
        }
    }

    /// The element-wise step after a direct convolution (whose product added the bias).
    fn epilogue(&self, start: usize, out_tile: &mut [f32], epi: Epilogue<'_>) {
        let cout = self.cout;
        match epi {
            Epilogue::Relu => {
                for v in out_tile.iter_mut() {
                    *v = v.max(0.0);
                }
            }
            Epilogue::ResidualRelu(residual) => {
                let res = &residual[start * cout..start * cout + out_tile.len()];
                for (v, r) in out_tile.iter_mut().zip(res) {
                    *v = (*v + r).max(0.0);
                }
            }
            Epilogue::Linear => {}
        }
    }
}

/// The global pooling step of a block on host memory: `y` `[B·HW, C]` (the first
/// convolution's output, batch norm folded, no ReLU) → `out` `[B·HW, C − c_g]` =
/// `relu(y[.., ..C − c_g] + fc([mean, max] of relu(y[.., C − c_g..])))`, the mean and max
/// over each position's `HW` rows (see [`crate::GlobalPooling`]).
fn global_pooling_bias(fc: &Dense, y: &[f32], hw: usize, out: &mut [f32]) {
    let pooled = fc.din / 2;
    let regular = fc.dout;
    let c = pooled + regular;
    let b = y.len() / (hw * c);
    let mut features = vec![0.0f32; b * 2 * pooled];
    for (sample, f) in y
        .chunks_exact(hw * c)
        .zip(features.chunks_exact_mut(2 * pooled))
    {
        let (mean, max) = f.split_at_mut(pooled);
        // max starts at 0: the maximum of ReLU outputs is never below it.
        for row in sample.chunks_exact(c) {
            for ((m, x), &v) in mean.iter_mut().zip(max.iter_mut()).zip(&row[regular..]) {
                let v = v.max(0.0);
                *m += v;
                *x = x.max(v);
            }
        }
        for m in mean.iter_mut() {
            *m /= hw as f32;
        }
    }
    let mut bias = vec![0.0f32; b * regular];
    fc.forward(&features, b, &mut bias);
    for ((sample, dst), bias) in y
        .chunks_exact(hw * c)
        .zip(out.chunks_exact_mut(hw * regular))
        .zip(bias.chunks_exact(regular))
    {
        for (row, dst_row) in sample.chunks_exact(c).zip(dst.chunks_exact_mut(regular)) {
            for ((d, &v), bb) in dst_row.iter_mut().zip(&row[..regular]).zip(bias) {
                *d = (v + bb).max(0.0);
            }
        }
    }
}

/// The pooled value features of NHWC planes `v` `[B, H·W, c]` (after the ReLU):
/// `[B, 3·c]`, each sample's channel means, the means times [`ValuePool::size_scale`] and
/// the maxima, as the burn model's `value_pool`.
fn value_pool(v: &[f32], c: usize, hw: usize) -> Vec<f32> {
    let scale = ValuePool::size_scale(hw);
    let mut out = vec![0.0f32; v.len() / hw * 3];
    for (sample, f) in v.chunks_exact(hw * c).zip(out.chunks_exact_mut(3 * c)) {
        let (mean, rest) = f.split_at_mut(c);
        let (scaled, max) = rest.split_at_mut(c);
        // max starts at 0: the maximum of ReLU outputs is never below it.
        for row in sample.chunks_exact(c) {
            for ((m, x), &v) in mean.iter_mut().zip(max.iter_mut()).zip(row) {
                *m += v;
                *x = x.max(v);
            }
        }
        for (m, s) in mean.iter_mut().zip(scaled.iter_mut()) {
            *m /= hw as f32;
            *s = *m * scale;
        }
    }
    out
}

impl Dense {
    /// `out[B, D_out] = input[B, D_in] · W + b`.
    fn forward(&self, input: &[f32], batch: usize, out: &mut [f32]) {
        matmul(
            out,
            input,
            &self.weight,
            Some(&self.bias),
            batch,
            self.din,
            self.dout,
            true,
        );
    }
}

impl FoldedNet {
    /// Folds `net` (of shape `config`) for CPU inference. The network may live on any device
    /// (its weights are copied to host memory) and may be a training module (its batch norm
    /// running statistics are read as eval mode would use them).
    ///
    /// # Errors
    /// [`NnError::InvalidConfig`] if `config` is invalid or does not match the network's
    /// tensors; [`NnError::Backend`] if the weights cannot be read.
    pub fn new(net: &PolicyValueNet, config: &ModelConfig) -> Result<FoldedNet, NnError> {
        Self::with_algorithm(net, config, Conv3x3Algorithm::Auto)
    }

    /// As [`FoldedNet::new`], computing the 3×3 convolutions with `algorithm` (the results
    /// agree to float rounding: ≈1e-6 relative for the direct and F(2×2) paths, ≈1e-5 for
    /// F(4×4)).
    ///
    /// # Errors
    /// As [`FoldedNet::new`].
    pub fn with_algorithm(
        net: &PolicyValueNet,
        config: &ModelConfig,
        algorithm: Conv3x3Algorithm,
    ) -> Result<FoldedNet, NnError> {
        config.validate()?;
        // `valid()` applies a pending running-statistics update of the last training step.
        let net = net.valid();
        let hw = config.board_height * config.board_width;
        let stem = fold_conv(&net.stem, &net.stem_bn)?;
        let blocks = net
            .blocks
            .iter()
            .map(|b| {
                Ok(FoldedBlock {
                    conv1: fold_conv(&b.conv1, &b.bn1)?,
                    pool_fc: b.pool_fc.as_ref().map(|fc| dense(fc, None)).transpose()?,
                    conv2: fold_conv(&b.conv2, &b.bn2)?,
                })
            })
            .collect::<Result<Vec<_>, NnError>>()?;
        let mut folded = FoldedNet {
            config: config.clone(),
            algorithm,
            stem,
            blocks,
            policy_conv: fold_conv(&net.policy_conv, &net.policy_bn)?,
            policy_out: match (&net.policy_fc, &net.policy_out, &config.policy_planes) {
                (Some(fc), None, None) => {
                    PolicyOut::Dense(dense(fc, Some((config.policy_channels, hw)))?)
                }
                (None, Some(out), Some(planes)) => {
                    let k = planes.planes;
                    // NCHW flat point (k·H·W + p) → NHWC (p·K + k).
                    let nhwc = planes
                        .index
                        .iter()
                        .map(|&i| {
                            let i = i as usize;
                            (i % hw) * k + i / hw
                        })
                        .collect();
                    PolicyOut::Planes(nhwc_conv(plain_conv(out)?), nhwc)
                }
                _ => {
                    return Err(NnError::InvalidConfig(
                        "the network's policy head is not the one its config names".into(),
                    ))
                }
            },
            value_conv: fold_conv(&net.value_conv, &net.value_bn)?,
            value_fc1: match config.value_pool {
                None => dense(&net.value_fc1, Some((config.value_channels, hw)))?,
                // Pooled features are per channel, in no board layout.
                Some(_) => dense(&net.value_fc1, None)?,
            },
            value_fc2: dense(&net.value_fc2, None)?,
        };
        folded.check_shapes()?;
        folded.stem.set_algorithm(algorithm);
        for block in &mut folded.blocks {
            block.conv1.set_algorithm(algorithm);
            block.conv2.set_algorithm(algorithm);
        }
        Ok(folded)
    }

    fn check_shapes(&self) -> Result<(), NnError> {
        let m = &self.config;
        let c = m.channels;
        let mut problems = Vec::new();
        match (&self.policy_out, &m.policy_planes) {
            (PolicyOut::Dense(_), None) => {}
            (PolicyOut::Planes(_, index), Some(_)) if index.len() == m.num_actions => {}
            (PolicyOut::Planes(_, index), Some(_)) => problems.push(format!(
                "policy planes: {} actions where the config says {}",
                index.len(),
                m.num_actions
            )),
            _ => problems.push("the policy head is not the one the config names".into()),
        }
        let mut conv = |name: &str, f: &FoldedConv, k: usize, cin: usize, cout: usize| {
            if (f.kernel, f.cin, f.cout) != (k, cin, cout) {
                problems.push(format!(
                    "{name}: {}×{} conv {}→{} where the config says {k}×{k} {cin}→{cout}",
                    f.kernel, f.kernel, f.cin, f.cout
                ));
            }
        };
        conv("stem", &self.stem, 3, m.input_planes, c);
        let mut pools = Vec::new();
        for (i, block) in self.blocks.iter().enumerate() {
            let pooling = m.pooling_of_block(i);
            conv(&format!("block {i} conv1"), &block.conv1, 3, c, c);
            let mid = pooling.map_or(c, |(_, regular)| regular);
            conv(&format!("block {i} conv2"), &block.conv2, 3, mid, c);
            pools.push((i, pooling, block.pool_fc.as_ref()));
        }
        conv("policy conv", &self.policy_conv, 1, c, m.policy_channels);
        if let PolicyOut::Planes(out, _) = &self.policy_out {
            let k = m.policy_planes.as_ref().map_or(0, |p| p.planes);
            conv("policy out", out, 1, m.policy_channels, k);
        }
        conv("value conv", &self.value_conv, 1, c, m.value_channels);
        if self.blocks.len() != m.residual_blocks {
            problems.push(format!(
                "{} residual blocks where the config says {}",
                self.blocks.len(),
                m.residual_blocks
            ));
        }
        let hw = m.board_height * m.board_width;
        let mut lin = |name: &str, d: &Dense, din: usize, dout: usize| {
            if (d.din, d.dout) != (din, dout) {
                problems.push(format!(
                    "{name}: linear {}→{} where the config says {din}→{dout}",
                    d.din, d.dout
                ));
            }
        };
        if let PolicyOut::Dense(fc) = &self.policy_out {
            lin("policy fc", fc, m.policy_channels * hw, m.num_actions);
        }
        lin(
            "value fc1",
            &self.value_fc1,
            m.value_features(),
            m.value_hidden,
        );
        lin("value fc2", &self.value_fc2, m.value_hidden, 1);
        let mut missing = Vec::new();
        for (i, pooling, fc) in pools {
            match (pooling, fc) {
                (Some((pooled, regular)), Some(fc)) => {
                    lin(&format!("block {i} pool fc"), fc, 2 * pooled, regular)
                }
                (None, None) => {}
                (Some(_), None) => missing.push(format!(
                    "block {i} has no global pooling where the config says it has"
                )),
                (None, Some(_)) => missing.push(format!(
                    "block {i} has global pooling where the config says it has none"
                )),
            }
        }
        problems.extend(missing);
        if problems.is_empty() {
            Ok(())
        } else {
            Err(NnError::InvalidConfig(problems.join("; ")))
        }
    }

    /// The network's configuration.
    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// The 3×3 convolution algorithm it was built with.
    pub fn algorithm(&self) -> Conv3x3Algorithm {
        self.algorithm
    }

    /// Runs the network on `planes` `[B, C, H, W]` (row-major, each position from its side to
    /// move), writing the policy logits `[B, A]` and the values `[B]` (in [-1, 1], from the
    /// side to move) into the caller's buffers.
    ///
    /// # Errors
    /// [`NnError::BatchShape`] if `planes` is not a multiple of `C·H·W` or the output buffers
    /// do not hold `B·A` logits and `B` values.
    pub fn forward(
        &self,
        planes: &[f32],
        policy_logits: &mut [f32],
        values: &mut [f32],
    ) -> Result<(), NnError> {
        let m = &self.config;
        let (cin, h, w) = (m.input_planes, m.board_height, m.board_width);
        let hw = h * w;
        let per = cin * hw;
        if !planes.len().is_multiple_of(per) {
            return Err(NnError::BatchShape(format!(
                "{} plane values are not a multiple of C·H·W = {per}",
                planes.len()
            )));
        }
        let b = planes.len() / per;
        if policy_logits.len() != b * m.num_actions || values.len() != b {
            return Err(NnError::BatchShape(format!(
                "buffers of {} logits and {} values for a batch of {b} with {} actions",
                policy_logits.len(),
                values.len(),
                m.num_actions
            )));
        }
        if b == 0 {
            return Ok(());
        }
        // The whole network runs on a few samples at a time, so that one layer's output is
        // still in the nearest caches when the next layer reads it (a layer of a 48-position
        // 15×15 batch is 2 MB; the transforms' loads missed the cache).
        let chunk = samples_per_pass(m);
        let actions = m.num_actions;
        #[cfg(feature = "rayon")]
        {
            use rayon::prelude::*;
            if rayon::current_num_threads() > 1 && b > chunk {
                planes
                    .par_chunks(chunk * per)
                    .zip(policy_logits.par_chunks_mut(chunk * actions))
                    .zip(values.par_chunks_mut(chunk))
                    .for_each(|((x, l), v)| self.forward_samples(x, l, v));
                return Ok(());
            }
        }
        for ((x, l), v) in planes
            .chunks(chunk * per)
            .zip(policy_logits.chunks_mut(chunk * actions))
            .zip(values.chunks_mut(chunk))
        {
            self.forward_samples(x, l, v);
        }
        Ok(())
    }

    /// [`FoldedNet::forward`] on buffers already checked to hold `values.len()` samples.
    fn forward_samples(&self, planes: &[f32], policy_logits: &mut [f32], values: &mut [f32]) {
        let m = &self.config;
        let (cin, h, w) = (m.input_planes, m.board_height, m.board_width);
        let hw = h * w;
        let per = cin * hw;
        let b = values.len();
        let rows = b * hw;
        // NCHW → NHWC.
        let mut input = take_buffer(rows * cin);
        for (bi, pos) in planes.chunks_exact(per).enumerate() {
            for (c, plane) in pos.chunks_exact(hw).enumerate() {
                for (p, &v) in plane.iter().enumerate() {
                    input[(bi * hw + p) * cin + c] = v;
                }
            }
        }
        let c = m.channels;
        let mut x = take_buffer(rows * c);
        let mut t = take_buffer(rows * c);
        let mut u = take_buffer(rows * c);
        // The second convolution's input of a global pooling block (its regular channels).
        let mut regular = Vec::new();
        self.stem.forward(&input, h, w, &mut x, Epilogue::Relu);
        for block in &self.blocks {
            match &block.pool_fc {
                None => {
                    block.conv1.forward(&x, h, w, &mut t, Epilogue::Relu);
                    block
                        .conv2
                        .forward(&t, h, w, &mut u, Epilogue::ResidualRelu(&x));
                }
                Some(fc) => {
                    block.conv1.forward(&x, h, w, &mut t, Epilogue::Linear);
                    regular.resize(rows * fc.dout, 0.0);
                    global_pooling_bias(fc, &t, hw, &mut regular);
                    block
                        .conv2
                        .forward(&regular, h, w, &mut u, Epilogue::ResidualRelu(&x));
                }
            }
            std::mem::swap(&mut x, &mut u);
        }
        // Policy head: 1×1 conv → (folded BN) → ReLU → NHWC flatten → linear, or → 1×1 conv
        // to K planes and each action's point of them.
        let mut p = take_buffer(rows * m.policy_channels);
        self.policy_conv.forward(&x, h, w, &mut p, Epilogue::Relu);
        match &self.policy_out {
            PolicyOut::Dense(fc) => fc.forward(&p, b, policy_logits),
            PolicyOut::Planes(out, index) => {
                let k = out.cout;
                let mut maps = vec![0.0f32; rows * k];
                out.forward(&p, h, w, &mut maps, Epilogue::Linear);
                for (logits, maps) in policy_logits
                    .chunks_exact_mut(m.num_actions)
                    .zip(maps.chunks_exact(hw * k))
                {
                    for (l, &i) in logits.iter_mut().zip(index) {
                        *l = maps[i];
                    }
                }
            }
        }
        // Value head: 1×1 conv → (folded BN) → ReLU → (pooled over the board) → linear →
        // ReLU → linear → tanh.
        let mut v = vec![0.0f32; rows * m.value_channels];
        self.value_conv.forward(&x, h, w, &mut v, Epilogue::Relu);
        if m.value_pool.is_some() {
            v = value_pool(&v, m.value_channels, hw);
        }
        let mut hidden = vec![0.0f32; b * m.value_hidden];
        self.value_fc1.forward(&v, b, &mut hidden);
        for h in hidden.iter_mut() {
            *h = h.max(0.0);
        }
        self.value_fc2.forward(&hidden, b, values);
        for v in values.iter_mut() {
            *v = v.tanh();
        }
        for buffer in [input, x, t, u, p] {
            give_buffer(buffer);
        }
    }
}

/// Samples [`FoldedNet::forward`] runs through the whole network at once: as many as keep
/// about 4 MiB of activations and Winograd buffers (whose tiles take about 2.5× the
/// activations' room: F(4×4, 3×3) has 36 points per 16 board points), at least 1 — 12 of
/// 15×15 at 48 channels, 6 of 20×20. Measured on one thread (5×48, batch 48): passes of 8–16
/// samples took ~10% less CPU than the whole batch at once, 2–4 samples as much or more
/// (small products).
fn samples_per_pass(m: &ModelConfig) -> usize {
    let width = m.channels.max(m.policy_channels).max(m.input_planes);
    // Three activation buffers and the transformed input and product (≈ 2.5 each).
    let bytes = 8 * m.board_height * m.board_width * width * 4;
    ((4 << 20) / bytes.max(1)).max(1)
}

thread_local! {
    /// Activation buffers of [`FoldedNet::forward`], kept between calls: fresh zeroed
    /// allocations of a batch's activations (megabytes) cost page faults and a memset on every
    /// call, about a tenth of a self-play evaluation.
    static BUFFERS: RefCell<Vec<Vec<f32>>> = const { RefCell::new(Vec::new()) };
}

/// A buffer of `len` values from this thread's [`BUFFERS`] (or a new one); its contents are
/// arbitrary: the caller writes every value before reading it.
fn take_buffer(len: usize) -> Vec<f32> {
    let mut buffer = BUFFERS.with(|b| b.borrow_mut().pop()).unwrap_or_default();
    buffer.truncate(len);
    buffer.resize(len, 0.0);
    buffer
}

/// Returns a buffer of [`take_buffer`] for the next call on this thread.
fn give_buffer(buffer: Vec<f32>) {
    BUFFERS.with(|b| b.borrow_mut().push(buffer));
}
