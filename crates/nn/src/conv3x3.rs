//! A 3×3 convolution (stride 1, padding 1, bias) for training on burn's Flex CPU backend,
//! with a hand-written backward pass.
//!
//! burn 0.22's Flex backend computes a convolution's gradients with its generic defaults: the
//! weight gradient as a convolution whose kernel is the whole `B·H·W` image batch (a matrix
//! product with 9 output columns) and the input gradient as a transposed convolution
//! (a scatter loop). Both run far below the machine's matrix-product rate, and they made
//! training the slowest part of an iteration. This module is a burn *backend extension*
//! (burn's documented mechanism for custom operations with their own backward pass) that
//! computes all three products as per-sample GEMMs with the `gemm` crate (the matrix kernels
//! Flex itself uses):
//!
//! * forward: `y_b[Co, HW] = W[Co, Ci·9] · col(x_b)[Ci·9, HW] + bias`;
//! * input gradient: `dx_b = col⁻¹(Wᵀ[Ci·9, Co] · dy_b[Co, HW])` (col2im: a scatter-add of nine
//!   shifted planes);
//! * weight gradient: `dW[Co, Ci·9] = Σ_b dy_b[Co, HW] · col(x_b)ᵀ[HW, Ci·9]`;
//! * bias gradient: `db[Co] = Σ_b Σ_hw dy_b`.
//!
//! From 16 channels (multiples of 8) on CPUs with AVX2 and FMA the three products run as a
//! Winograd F(4×4, 3×3) convolution instead (`crate::winograd`: 4× fewer multiplications;
//! the backward pass is the exact gradient of that forward), 6×64 training on 15×15 boards
//! ~1.7× faster on one core. Winograd reads and writes NHWC, the direct convolution NCHW;
//! the operation takes its [`Layout`] as an argument and transposes only data that is not in
//! its algorithm's layout, so a trunk kept in NHWC (see `PolicyValueNet::trunk_layout`) is
//! never transposed around its convolutions.
//!
//! `col(x_b)` (im2col) is recomputed in the backward pass instead of being kept, so the memory
//! held for the backward pass is the same as burn's own convolution (the input and the weight).
//! Tensors are `f32`; other dtypes fall back to burn's convolution (NCHW only).
//! Checked against burn's `conv2d` and its autodiff gradients in this module's tests (the fast
//! path against the library reference) and through whole training steps in `train.rs`.

use burn::backend::autodiff::checkpoint::base::Checkpointer;
use burn::backend::autodiff::checkpoint::strategy::CheckpointStrategy;
use burn::backend::autodiff::grads::Gradients;
use burn::backend::autodiff::ops::{Backward, Ops, OpsKind};
use burn::backend::autodiff::NodeId;
use burn::backend::flex::FlexTensor;
use burn::backend::ops::{ConvOptions, ModuleOps};
use burn::backend::tensor::FloatTensor;
use burn::backend::{backend_extension, Autodiff, Backend, Dispatch, Flex, TensorMetadata};
use burn::nn::conv::Conv2d;
use burn::tensor::{DType, Device, Shape, Tensor, TensorData};

use crate::winograd::{self, Tiling, Transform};
use crate::Tile;

/// Memory order of a 4-d activation tensor of `B` samples, `C` channels and `H × W` points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// `[B, C, H, W]`: each channel's plane together (burn's convention; what the direct
    /// convolution reads and writes).
    Nchw,
    /// `[B, H, W, C]`: each point's channels together (what the Winograd kernels read and
    /// write; the trunk of a training network runs in it, see [`crate::PolicyValueNet`]).
    Nhwc,
}

impl Layout {
    /// `[B, C, HW]` of a tensor of this layout with dimensions `dims`.
    pub fn bchw(self, dims: [usize; 4]) -> [usize; 3] {
        match self {
            Layout::Nchw => [dims[0], dims[1], dims[2] * dims[3]],
            Layout::Nhwc => [dims[0], dims[3], dims[1] * dims[2]],
        }
    }

    /// `[B, H, W, C]` of a tensor of this layout with dimensions `dims`.
    fn bhwc(self, dims: [usize; 4]) -> [usize; 4] {
        match self {
            Layout::Nchw => [dims[0], dims[2], dims[3], dims[1]],
            Layout::Nhwc => dims,
        }
    }

    /// The dimensions of a `[B, H, W, C]` tensor in this layout.
    fn dims(self, [b, h, w, c]: [usize; 4]) -> [usize; 4] {
        match self {
            Layout::Nchw => [b, c, h, w],
            Layout::Nhwc => [b, h, w, c],
        }
    }

    /// `x` (`[B, C, HW]` in this layout) in the other layout.
    fn transposed(self, x: &[f32], c: usize, hw: usize) -> Vec<f32> {
        let mut out = vec![0.0f32; x.len()];
        match self {
            Layout::Nchw => transpose_samples(x, c, hw, &mut out),
            Layout::Nhwc => transpose_samples(x, hw, c, &mut out),
        }
        out
    }
}

/// The custom operation: `conv3x3(x, weight [Co, Ci, 3, 3], bias [Co], layout)`, stride 1,
/// zero padding 1 (the output has the input's height and width): `x` `[B, Ci, H, W]` →
/// `[B, Co, H, W]` in [`Layout::Nchw`], `[B, H, W, Ci]` → `[B, H, W, Co]` in
/// [`Layout::Nhwc`].
#[backend_extension(Flex, Autodiff)]
pub trait Conv3x3Backend: Backend {
    /// The convolution; see the trait docs for shapes.
    fn conv3x3(
        x: FloatTensor<Self>,
        weight: FloatTensor<Self>,
        bias: FloatTensor<Self>,
        layout: Layout,
    ) -> FloatTensor<Self>;
}

fn options() -> ConvOptions<2> {
    ConvOptions::new([1, 1], [1, 1], [1, 1], 1)
}

impl Conv3x3Backend for Flex {
    fn conv3x3(x: FlexTensor, weight: FlexTensor, bias: FlexTensor, layout: Layout) -> FlexTensor {
        if x.dtype() != DType::F32 || weight.dtype() != DType::F32 || bias.dtype() != DType::F32 {
            assert_eq!(layout, Layout::Nchw, "conv3x3: NHWC needs f32 tensors");
            return Flex::conv2d(x, weight, Some(bias), options());
        }
        let dims = Dims::of(&x, &weight, layout);
        let x = contiguous(x);
        let weight = contiguous(weight);
        let bias = contiguous(bias);
        let out = forward(&dims, layout, slice(&x), slice(&weight), slice(&bias));
        let shape = layout.dims([dims.b, dims.h, dims.w, dims.co]);
        FlexTensor::from_data(TensorData::new(out, shape))
    }
}

#[derive(Debug)]
struct Conv3x3Backward;

impl Backward<Flex, 3> for Conv3x3Backward {
    /// Input and weight (checkpointed), the layout.
    type State = (NodeId, NodeId, Layout);

    fn backward(
        self,
        ops: Ops<Self::State, 3>,
        grads: &mut Gradients,
        checkpointer: &mut Checkpointer,
    ) {
        let [node_x, node_w, node_b] = ops.parents;
        let grad = grads.consume::<Flex>(&ops.node);
        let (x_state, w_state, layout) = ops.state;
        let x: FlexTensor = checkpointer.retrieve_node_output(x_state);
        let weight: FlexTensor = checkpointer.retrieve_node_output(w_state);
        if x.dtype() != DType::F32 || weight.dtype() != DType::F32 || grad.dtype() != DType::F32 {
            if let Some(node) = node_x {
                let g = Flex::conv2d_x_backward(x.clone(), weight.clone(), grad.clone(), options());
                grads.register::<Flex>(node.id, g);
            }
            if let Some(node) = node_w {
                let g = Flex::conv2d_weight_backward(
                    x.clone(),
                    weight.clone(),
                    grad.clone(),
                    options(),
                );
                grads.register::<Flex>(node.id, g);
            }
            if let Some(node) = node_b {
                let co = weight.shape().dims::<4>()[0];
                let bias = FlexTensor::zeros(Shape::new([co]), grad.dtype());
                grads.register::<Flex>(node.id, Flex::conv2d_bias_backward(x, bias, grad));
            }
            return;
        }
        let dims = Dims::of(&x, &weight, layout);
        let x = contiguous(x);
        let weight = contiguous(weight);
        let grad = contiguous(grad);
        let g = backward(
            &dims,
            layout,
            slice(&x),
            slice(&weight),
            slice(&grad),
            node_x.is_some(),
        );
        if let Some(node) = node_x {
            let dx = g.dx.expect("input gradient requested");
            let shape = layout.dims([dims.b, dims.h, dims.w, dims.ci]);
            let t = FlexTensor::from_data(TensorData::new(dx, shape));
            grads.register::<Flex>(node.id, t);
        }
        if let Some(node) = node_w {
            let t = FlexTensor::from_data(TensorData::new(g.dw, [dims.co, dims.ci, 3, 3]));
            grads.register::<Flex>(node.id, t);
        }
        if let Some(node) = node_b {
            let t = FlexTensor::from_data(TensorData::new(g.db, [dims.co]));
            grads.register::<Flex>(node.id, t);
        }
    }
}

impl<C: CheckpointStrategy> Conv3x3Backend for Autodiff<Flex, C> {
    fn conv3x3(
        x: FloatTensor<Self>,
        weight: FloatTensor<Self>,
        bias: FloatTensor<Self>,
        layout: Layout,
    ) -> FloatTensor<Self> {
        match Conv3x3Backward
            .prepare::<C>([x.node(), weight.node(), bias.node()])
            .compute_bound()
            .stateful()
        {
            OpsKind::Tracked(mut prep) => {
                let x_state = prep.checkpoint(&x);
                let w_state = prep.checkpoint(&weight);
                prep.finish(
                    (x_state, w_state, layout),
                    Flex::conv3x3(
                        x.into_primitive(),
                        weight.into_primitive(),
                        bias.into_primitive(),
                        layout,
                    ),
                )
            }
            OpsKind::UnTracked(prep) => prep.finish(Flex::conv3x3(
                x.into_primitive(),
                weight.into_primitive(),
                bias.into_primitive(),
                layout,
            )),
        }
    }
}

/// Applies `conv` (which must be 3×3, stride 1, padding 1, with a bias) to `x` in `layout`
/// (`[B, Ci, H, W]` or `[B, H, W, Ci]`). On burn's Flex device (with or without autodiff)
/// this runs the fast operation of this module; elsewhere (CUDA) burn's own convolution.
///
/// # Panics
/// With [`Layout::Nhwc`] off the Flex device (burn's convolution is NCHW).
pub fn conv3x3_forward(conv: &Conv2d, x: Tensor<4>, layout: Layout) -> Tensor<4> {
    match &conv.bias {
        Some(bias) if fast_path_on(&x.device()) => {
            conv3x3(x, conv.weight.val(), bias.val(), layout)
        }
        _ => {
            assert_eq!(layout, Layout::Nchw, "burn's Conv2d is NCHW");
            conv.forward(x)
        }
    }
}

/// Whether [`conv3x3_forward`] uses this module's operation on `device` (burn's Flex CPU
/// device, with or without autodiff).
pub fn fast_path_on(device: &Device) -> bool {
    device.clone().without_autodiff() == Device::flex()
}

/// The operation on dispatch tensors: `x` `[B, Ci, H, W]` ([`Layout::Nchw`]) or `[B, H, W,
/// Ci]` ([`Layout::Nhwc`]), `weight` `[Co, Ci, 3, 3]`, `bias` `[Co]` → `[B, Co, H, W]` or
/// `[B, H, W, Co]`.
///
/// # Panics
/// If the tensors are not on a Flex device (see [`fast_path_on`]) or the shapes do not fit.
pub fn conv3x3(x: Tensor<4>, weight: Tensor<4>, bias: Tensor<1>, layout: Layout) -> Tensor<4> {
    Tensor::from_dispatch(<Dispatch as Conv3x3Backend>::conv3x3(
        x.into_dispatch(),
        weight.into_dispatch(),
        bias.into_dispatch(),
        layout,
    ))
}

/// Sizes of one convolution.
#[derive(Clone, Copy, Debug)]
struct Dims {
    b: usize,
    ci: usize,
    co: usize,
    h: usize,
    w: usize,
}

impl Dims {
    fn of(x: &FlexTensor, weight: &FlexTensor, layout: Layout) -> Dims {
        let [b, h, w, ci] = layout.bhwc(x.shape().dims::<4>());
        let [co, wci, kh, kw] = weight.shape().dims::<4>();
        assert!(
            wci == ci && kh == 3 && kw == 3,
            "conv3x3: weight [{co}, {wci}, {kh}, {kw}] does not fit input [{b}, {ci}, {h}, {w}]"
        );
        Dims { b, ci, co, h, w }
    }

    fn hw(&self) -> usize {
        self.h * self.w
    }

    /// Rows of the im2col matrix: `Ci·9`.
    fn k(&self) -> usize {
        self.ci * 9
    }
}

pub(crate) fn contiguous(t: FlexTensor) -> FlexTensor {
    if t.is_contiguous() && t.as_slice::<f32>().is_some() {
        t
    } else {
        t.to_contiguous()
    }
}

pub(crate) fn slice(t: &FlexTensor) -> &[f32] {
    t.as_slice::<f32>()
        .expect("contiguous f32 tensor (checked by the caller)")
}

/// `col[(ci·9 + ky·3 + kx), y·W + x] = x[ci, y + ky − 1, x + kx − 1]` (zero outside).
fn im2col(d: &Dims, x: &[f32], col: &mut [f32]) {
    let (h, w, hw) = (d.h, d.w, d.hw());
    for ci in 0..d.ci {
        let plane = &x[ci * hw..(ci + 1) * hw];
        for ky in 0..3 {
            for kx in 0..3 {
                let row = &mut col[(ci * 9 + ky * 3 + kx) * hw..(ci * 9 + ky * 3 + kx + 1) * hw];
                for y in 0..h {
                    let dst = &mut row[y * w..(y + 1) * w];
                    let sy = y + ky;
                    if sy < 1 || sy > h {
                        dst.fill(0.0);
                        continue;
                    }
                    let src = &plane[(sy - 1) * w..sy * w];
                    // dst[x] = src[x + kx − 1]
                    match kx {
                        0 => {
                            dst[0] = 0.0;
                            dst[1..].copy_from_slice(&src[..w - 1]);
                        }
                        1 => dst.copy_from_slice(src),
                        _ => {
                            dst[..w - 1].copy_from_slice(&src[1..]);
                            dst[w - 1] = 0.0;
                        }
                    }
                }
            }
        }
    }
}

/// The adjoint of [`im2col`]: `dx[ci, y, x] = Σ_{ky,kx} dcol[(ci,ky,kx), (y − ky + 1)·W + (x − kx + 1)]`.
fn col2im(d: &Dims, dcol: &[f32], dx: &mut [f32]) {
    let (h, w, hw) = (d.h, d.w, d.hw());
    dx.fill(0.0);
    for ci in 0..d.ci {
        let plane = &mut dx[ci * hw..(ci + 1) * hw];
        for ky in 0..3 {
            for kx in 0..3 {
                let row = &dcol[(ci * 9 + ky * 3 + kx) * hw..(ci * 9 + ky * 3 + kx + 1) * hw];
                for y in 0..h {
                    // Output row y read input row y + ky − 1.
                    let sy = y + ky;
                    if sy < 1 || sy > h {
                        continue;
                    }
                    let src = &row[y * w..(y + 1) * w];
                    let dst = &mut plane[(sy - 1) * w..sy * w];
                    match kx {
                        0 => {
                            for (a, b) in dst[..w - 1].iter_mut().zip(&src[1..]) {
                                *a += b;
                            }
                        }
                        1 => {
                            for (a, b) in dst.iter_mut().zip(src) {
                                *a += b;
                            }
                        }
                        _ => {
                            for (a, b) in dst[1..].iter_mut().zip(&src[..w - 1]) {
                                *a += b;
                            }
                        }
                    }
                }
            }
        }
    }
}

/// `dst[m, n] (+)= lhs[m, k] · rhs[k, n]` with explicit (column, row) strides of each operand.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm_strided(
    m: usize,
    n: usize,
    k: usize,
    dst: &mut [f32],
    accumulate: bool,
    lhs: &[f32],
    (lhs_cs, lhs_rs): (usize, usize),
    rhs: &[f32],
    (rhs_cs, rhs_rs): (usize, usize),
) {
    let last = |cs: usize, rs: usize, rows: usize, cols: usize| {
        if rows == 0 || cols == 0 {
            0
        } else {
            (rows - 1) * rs + (cols - 1) * cs + 1
        }
    };
    assert!(dst.len() >= m * n);
    assert!(lhs.len() >= last(lhs_cs, lhs_rs, m, k));
    assert!(rhs.len() >= last(rhs_cs, rhs_rs, k, n));
    if m == 0 || n == 0 {
        return;
    }
    // SAFETY: the asserts above bound every element gemm reads (lhs m×k, rhs k×n at the given
    // strides) or writes (dst m×n, row-major contiguous).
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            n as isize,
            accumulate,
            lhs.as_ptr(),
            lhs_cs as isize,
            lhs_rs as isize,
            rhs.as_ptr(),
            rhs_cs as isize,
            rhs_rs as isize,
            if accumulate { 1.0 } else { 0.0 },
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// Number of tasks to split a batch of `b` samples into.
fn tasks(b: usize) -> usize {
    #[cfg(feature = "rayon")]
    let threads = rayon::current_num_threads();
    #[cfg(not(feature = "rayon"))]
    let threads = 1;
    threads.min(b).max(1)
}

/// Runs `f(first_sample, samples, chunk)` over `out` split into per-task chunks of whole
/// samples (`per_sample` values each); returns the tasks' results in order.
pub(crate) fn for_sample_chunks<R: Send>(
    out: &mut [f32],
    b: usize,
    per_sample: usize,
    f: impl Fn(usize, usize, &mut [f32]) -> R + Sync,
) -> Vec<R> {
    let n = tasks(b);
    let per_task = b.div_ceil(n);
    // At least 1: an empty batch gives no chunks (and no panic).
    let chunk = (per_task * per_sample).max(1);
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        if n > 1 {
            return out
                .par_chunks_mut(chunk)
                .enumerate()
                .map(|(i, c)| f(i * per_task, c.len() / per_sample.max(1), c))
                .collect();
        }
    }
    out.chunks_mut(chunk)
        .enumerate()
        .map(|(i, c)| f(i * per_task, c.len() / per_sample.max(1), c))
        .collect()
}

/// Runs `f(first_sample, samples)` over the batch split into per-task ranges; returns the
/// tasks' results in order.
pub(crate) fn for_sample_ranges<R: Send>(b: usize, f: impl Fn(usize, usize) -> R + Sync) -> Vec<R> {
    let n = tasks(b);
    let per_task = b.div_ceil(n);
    let range = |i: usize| (i * per_task, per_task.min(b.saturating_sub(i * per_task)));
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        if n > 1 {
            return (0..n)
                .into_par_iter()
                .map(|i| {
                    let (first, count) = range(i);
                    f(first, count)
                })
                .collect();
        }
    }
    (0..n)
        .map(|i| {
            let (first, count) = range(i);
            f(first, count)
        })
        .collect()
}

/// The layout an algorithm reads and writes: NHWC for Winograd, NCHW for the direct
/// convolution.
fn native_layout(tile: Option<Tile>) -> Layout {
    match tile {
        Some(_) => Layout::Nhwc,
        None => Layout::Nchw,
    }
}

/// Forward pass on host slices (see the module docs): `x` in `layout`, the output in
/// `layout`. Data in the other layout than the algorithm's is transposed in and out.
fn forward(d: &Dims, layout: Layout, x: &[f32], weight: &[f32], bias: &[f32]) -> Vec<f32> {
    let tile = winograd_tile(d);
    let native = native_layout(tile);
    let converted;
    let x = if layout == native {
        x
    } else {
        converted = layout.transposed(x, d.ci, d.hw());
        &converted
    };
    let mut out = vec![0.0f32; d.b * d.co * d.hw()];
    match tile {
        Some(tile) => forward_winograd(d, tile, x, weight, bias, &mut out),
        None => forward_direct(d, x, weight, bias, &mut out),
    }
    if layout == native {
        out
    } else {
        native.transposed(&out, d.co, d.hw())
    }
}

/// The direct forward pass (im2col and GEMM), NCHW; `out` is `[B, Co, H, W]`.
fn forward_direct(d: &Dims, x: &[f32], weight: &[f32], bias: &[f32], out: &mut [f32]) {
    let (hw, k, co) = (d.hw(), d.k(), d.co);
    for_sample_chunks(out, d.b, co * hw, |first, samples, chunk| {
        let mut col = vec![0.0f32; k * hw];
        for s in 0..samples {
            let b = first + s;
            im2col(d, &x[b * d.ci * hw..(b + 1) * d.ci * hw], &mut col);
            let y = &mut chunk[s * co * hw..(s + 1) * co * hw];
            for (row, &bv) in y.chunks_exact_mut(hw).zip(bias) {
                row.fill(bv);
            }
            gemm_strided(co, hw, k, y, true, weight, (1, k), &col, (1, hw));
        }
    });
}

/// Gradients of one backward pass.
struct Grads {
    /// `[B, Ci, H, W]`, when requested.
    dx: Option<Vec<f32>>,
    /// `[Co, Ci, 3, 3]`.
    dw: Vec<f32>,
    /// `[Co]`.
    db: Vec<f32>,
}

/// Backward pass on host slices (see the module docs): `x`, `grad` and the input gradient in
/// `layout`. Data in the other layout than the algorithm's is transposed in and out.
fn backward(
    d: &Dims,
    layout: Layout,
    x: &[f32],
    weight: &[f32],
    grad: &[f32],
    want_dx: bool,
) -> Grads {
    let tile = winograd_tile(d);
    let native = native_layout(tile);
    if layout != native {
        let x = layout.transposed(x, d.ci, d.hw());
        let grad = layout.transposed(grad, d.co, d.hw());
        let mut g = backward(d, native, &x, weight, &grad, want_dx);
        g.dx = g.dx.map(|dx| native.transposed(&dx, d.ci, d.hw()));
        return g;
    }
    match tile {
        Some(tile) => backward_winograd(d, tile, x, weight, grad, want_dx),
        None => backward_direct(d, x, weight, grad, want_dx),
    }
}

/// The direct backward pass (im2col, GEMMs, col2im), NCHW.
fn backward_direct(d: &Dims, x: &[f32], weight: &[f32], grad: &[f32], want_dx: bool) -> Grads {
    let (hw, k, co, ci) = (d.hw(), d.k(), d.co, d.ci);
    let mut dx = vec![0.0f32; if want_dx { d.b * ci * hw } else { d.b }];
    let per_sample = if want_dx { ci * hw } else { 1 };
    let partials = for_sample_chunks(&mut dx, d.b, per_sample, |first, samples, chunk| {
        let mut col = vec![0.0f32; k * hw];
        let mut dcol = if want_dx {
            vec![0.0f32; k * hw]
        } else {
            Vec::new()
        };
        let mut dw = vec![0.0f32; co * k];
        let mut db = vec![0.0f32; co];
        for s in 0..samples {
            let b = first + s;
            let g = &grad[b * co * hw..(b + 1) * co * hw];
            im2col(d, &x[b * ci * hw..(b + 1) * ci * hw], &mut col);
            // dW[Co, K] += g[Co, HW] · colᵀ[HW, K]
            gemm_strided(co, k, hw, &mut dw, true, g, (1, hw), &col, (hw, 1));
            for (acc, row) in db.iter_mut().zip(g.chunks_exact(hw)) {
                *acc += row.iter().sum::<f32>();
            }
            if want_dx {
                // dcol[K, HW] = Wᵀ[K, Co] · g[Co, HW]
                gemm_strided(k, hw, co, &mut dcol, false, weight, (k, 1), g, (1, hw));
                col2im(d, &dcol, &mut chunk[s * ci * hw..(s + 1) * ci * hw]);
            }
        }
        (dw, db)
    });
    let mut parts = partials.into_iter();
    let (mut dw, mut db) = parts
        .next()
        .unwrap_or_else(|| (vec![0.0; co * k], vec![0.0; co]));
    for (pw, pb) in parts {
        for (a, b) in dw.iter_mut().zip(&pw) {
            *a += b;
        }
        for (a, b) in db.iter_mut().zip(&pb) {
            *a += b;
        }
    }
    Grads {
        dx: want_dx.then_some(dx),
        dw,
        db,
    }
}

/// The Winograd algorithm training uses for a convolution, if any: F(4×4, 3×3) when both
/// channel counts are multiples of 8 and at least 16 and the CPU has AVX2 and FMA (as
/// [`crate::Conv3x3Algorithm::choose`] for inference), else none (the direct convolution).
fn winograd_tile(d: &Dims) -> Option<Tile> {
    match crate::Conv3x3Algorithm::choose(d.ci, d.co) {
        crate::Conv3x3Algorithm::Winograd(tile) => Some(tile),
        _ => None,
    }
}

/// Transposes each sample's `[rows, cols]` matrix of `src` into `[cols, rows]` in `dst`,
/// eight source rows at a time (eight reading streams, whole cache lines written).
fn transpose_samples(src: &[f32], rows: usize, cols: usize, dst: &mut [f32]) {
    for (s, d) in src
        .chunks_exact(rows * cols)
        .zip(dst.chunks_exact_mut(rows * cols))
    {
        let mut r0 = 0;
        while r0 + 8 <= rows {
            let block: [&[f32]; 8] =
                std::array::from_fn(|i| &s[(r0 + i) * cols..(r0 + i + 1) * cols]);
            for (c, out) in d.chunks_exact_mut(rows).enumerate() {
                let out = &mut out[r0..r0 + 8];
                for (o, row) in out.iter_mut().zip(block) {
                    *o = row[c];
                }
            }
            r0 += 8;
        }
        for r in r0..rows {
            for c in 0..cols {
                d[c * rows + r] = s[r * cols + c];
            }
        }
    }
}

/// The forward pass as a Winograd convolution (see [`crate::winograd`]), NHWC: `x` `[B, H,
/// W, Ci]`, `out` `[B, H, W, Co]`.
fn forward_winograd(
    d: &Dims,
    tile: Tile,
    x: &[f32],
    weight: &[f32],
    bias: &[f32],
    out: &mut [f32],
) {
    let tr = Transform::new(tile);
    let g = Tiling::new(&tr, d.b, d.h, d.w);
    let u = tr.weights_from_oihw(weight, d.ci, d.co);
    winograd::forward_nhwc(&tr, &g, x, d.ci, &u, bias, d.co, None, false, out);
}

/// The backward pass of [`forward_winograd`]: the exact gradient of the Winograd forward
/// (`dM = A dY Aᵀ`, `dU = Vᵀ dM`, `dV = dM Uᵀ`, `dx = B dV Bᵀ`, `dW = Gᵀ dU G`), per task over
/// chunks of samples. NHWC: `x` `[B, H, W, Ci]`, `grad` `[B, H, W, Co]`, the input gradient
/// `[B, H, W, Ci]`.
fn backward_winograd(
    d: &Dims,
    tile: Tile,
    x: &[f32],
    weight: &[f32],
    grad: &[f32],
    want_dx: bool,
) -> Grads {
    let (hw, ci, co) = (d.hw(), d.ci, d.co);
    let tr = Transform::new(tile);
    let g = Tiling::new(&tr, d.b, d.h, d.w);
    let (pts, per) = (tr.points(), g.per_sample());
    let (xn, dyn_) = (x, grad);
    let u = tr.weights_from_oihw(weight, ci, co);
    let chunk = winograd::samples_per_chunk(&tr, &g, ci.max(co));
    let mut dxn = vec![0.0f32; if want_dx { d.b * hw * ci } else { d.b }];
    let per_sample = if want_dx { hw * ci } else { 1 };
    let partials = for_sample_chunks(&mut dxn, d.b, per_sample, |first, samples, out| {
        let mut du = vec![0.0f32; pts * ci * co];
        let mut db = vec![0.0f32; co];
        // One chunk's transformed input, product gradient and input gradient, reused.
        let most = chunk.min(samples) * per * pts;
        let (mut v_buf, mut dm_buf) = (vec![0.0f32; most * ci], vec![0.0f32; most * co]);
        let mut dv_buf = vec![0.0f32; if want_dx { most * ci } else { 0 }];
        let mut s = 0;
        while s < samples {
            let count = chunk.min(samples - s);
            let (first_tile, n) = ((first + s) * per, count * per);
            let v = &mut v_buf[..n * pts * ci];
            let dm = &mut dm_buf[..n * pts * co];
            winograd::input_transform(&tr, &g, xn, ci, first_tile, v);
            winograd::output_transform_adjoint(&tr, &g, dyn_, co, first_tile, dm);
            for xi in 0..pts {
                // dU[ξ] [ci, co] += V[·, ξ]ᵀ · dM[·, ξ]
                winograd::gemm_at(
                    (ci, co, n),
                    &mut du[xi * ci * co..(xi + 1) * ci * co],
                    (1, co),
                    true,
                    &v[xi * ci..],
                    (pts * ci, 1),
                    &dm[xi * co..],
                    (1, pts * co),
                );
            }
            if want_dx {
                let dv = &mut dv_buf[..n * pts * ci];
                for xi in 0..pts {
                    // dV[·, ξ] [n, ci] = dM[·, ξ] · U[ξ]ᵀ
                    winograd::gemm_at(
                        (n, ci, co),
                        &mut dv[xi * ci..],
                        (1, pts * ci),
                        false,
                        &dm[xi * co..],
                        (1, pts * co),
                        &u[xi * ci * co..(xi + 1) * ci * co],
                        (co, 1),
                    );
                }
                let dst = &mut out[s * hw * ci..(s + count) * hw * ci];
                winograd::input_transform_adjoint(&tr, &g, dv, ci, first_tile, first + s, dst);
            }
            s += count;
        }
        // db = Σ over samples and points of dy (NHWC rows of Co), per sample then summed.
        let mut per_sample = vec![0.0f32; co];
        for sample in grad[first * hw * co..(first + samples) * hw * co].chunks_exact(hw * co) {
            per_sample.fill(0.0);
            for row in sample.chunks_exact(co) {
                for (acc, v) in per_sample.iter_mut().zip(row) {
                    *acc += v;
                }
            }
            for (acc, v) in db.iter_mut().zip(&per_sample) {
                *acc += v;
            }
        }
        (du, db)
    });
    let mut du = vec![0.0f32; pts * ci * co];
    let mut db = vec![0.0f32; co];
    for (pu, pb) in partials {
        for (a, b) in du.iter_mut().zip(&pu) {
            *a += b;
        }
        for (a, b) in db.iter_mut().zip(&pb) {
            *a += b;
        }
    }
    Grads {
        dx: want_dx.then_some(dxn),
        dw: tr.weight_grad_to_oihw(&du, ci, co),
        db,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{host, max_rel_diff};
    use burn::nn::conv::Conv2dConfig;
    use burn::nn::PaddingConfig2d;
    use burn::tensor::Distribution;

    /// The fast forward and all three gradients agree with burn's `conv2d` and its autodiff
    /// gradients, for several shapes (1-sample and multi-sample batches, one input channel,
    /// boards as narrow as 2 columns, non-square boards; the im2col path and, from 16
    /// channels, the Winograd path), in both layouts (NHWC through permutations of burn's
    /// NCHW tensors: the Winograd path without transposes, the im2col path with them).
    #[test]
    fn conv3x3_matches_burn_conv2d_forward_and_gradients() {
        for layout in [Layout::Nchw, Layout::Nhwc] {
            conv3x3_matches_burn_conv2d_in(layout);
        }
    }

    fn conv3x3_matches_burn_conv2d_in(layout: Layout) {
        let device = Device::flex().autodiff();
        for &(b, ci, co, h, w) in &[
            (1, 1, 1, 3, 3),
            (3, 2, 5, 6, 7),
            (5, 4, 8, 15, 15),
            (2, 3, 4, 2, 9),
            (7, 8, 6, 5, 2),
            // Winograd F(4×4) (channel counts of 16 and more, multiples of 8): a 15×15 board
            // whose tiles overhang it, Xiangqi's 10×9, and a batch split over tasks.
            (2, 16, 16, 15, 15),
            (5, 16, 24, 10, 9),
            (3, 24, 16, 6, 7),
        ] {
            let conv = Conv2dConfig::new([ci, co], [3, 3])
                .with_padding(PaddingConfig2d::Explicit(1, 1, 1, 1))
                .init(&device);
            let x: Tensor<4> =
                Tensor::random([b, ci, h, w], Distribution::Normal(0.0, 1.0), &device)
                    .require_grad();
            // A loss with a non-uniform upstream gradient.
            let probe: Tensor<4> =
                Tensor::random([b, co, h, w], Distribution::Normal(0.0, 1.0), &device);

            let y_ref = conv.forward(x.clone());
            let grads_ref = (y_ref.clone() * probe.clone()).sum().backward();
            assert!(fast_path_on(&device));
            let bias = conv.bias.as_ref().unwrap().val();
            let y_fast = match layout {
                Layout::Nchw => conv3x3(x.clone(), conv.weight.val(), bias, layout),
                Layout::Nhwc => conv3x3(
                    x.clone().permute([0, 2, 3, 1]),
                    conv.weight.val(),
                    bias,
                    layout,
                )
                .permute([0, 3, 1, 2]),
            };
            let grads_fast = (y_fast.clone() * probe.clone()).sum().backward();

            let shape = format!("{layout:?} b{b} ci{ci} co{co} {h}x{w}");
            let d = max_rel_diff(&host(y_fast), &host(y_ref));
            assert!(d < 1e-5, "{shape}: forward differs by {d}");
            let pairs = [
                (
                    "input",
                    host(x.grad(&grads_fast).unwrap()),
                    host(x.grad(&grads_ref).unwrap()),
                ),
                (
                    "weight",
                    host(conv.weight.val().grad(&grads_fast).unwrap()),
                    host(conv.weight.val().grad(&grads_ref).unwrap()),
                ),
                (
                    "bias",
                    host(conv.bias.as_ref().unwrap().val().grad(&grads_fast).unwrap()),
                    host(conv.bias.as_ref().unwrap().val().grad(&grads_ref).unwrap()),
                ),
            ];
            for (name, fast, reference) in pairs {
                let d = max_rel_diff(&fast, &reference);
                assert!(d < 1e-4, "{shape}: {name} gradient differs by {d}");
            }
        }
    }

    /// Without autodiff the operation is the plain forward pass.
    #[test]
    fn conv3x3_without_autodiff_matches_burn_conv2d() {
        let device = Device::flex();
        let conv = Conv2dConfig::new([3, 4], [3, 3])
            .with_padding(PaddingConfig2d::Explicit(1, 1, 1, 1))
            .init(&device);
        let x: Tensor<4> = Tensor::random([2, 3, 6, 7], Distribution::Normal(0.0, 1.0), &device);
        let bias = conv.bias.as_ref().unwrap().val();
        let d = max_rel_diff(
            &host(conv3x3(x.clone(), conv.weight.val(), bias, Layout::Nchw)),
            &host(conv.forward(x)),
        );
        assert!(d < 1e-5, "forward differs by {d}");
    }

    /// col2im is the adjoint of im2col: ⟨im2col(x), c⟩ = ⟨x, col2im(c)⟩.
    #[test]
    fn col2im_is_the_adjoint_of_im2col() {
        let d = Dims {
            b: 1,
            ci: 2,
            co: 1,
            h: 4,
            w: 5,
        };
        let x: Vec<f32> = (0..d.ci * d.hw())
            .map(|i| (i as f32 * 0.37).sin())
            .collect();
        let c: Vec<f32> = (0..d.k() * d.hw())
            .map(|i| (i as f32 * 0.11).cos())
            .collect();
        let mut col = vec![0.0; d.k() * d.hw()];
        im2col(&d, &x, &mut col);
        let mut back = vec![0.0; x.len()];
        col2im(&d, &c, &mut back);
        let lhs: f64 = col
            .iter()
            .zip(&c)
            .map(|(a, b)| (*a as f64) * (*b as f64))
            .sum();
        let rhs: f64 = x
            .iter()
            .zip(&back)
            .map(|(a, b)| (*a as f64) * (*b as f64))
            .sum();
        assert!(
            (lhs - rhs).abs() < 1e-4 * lhs.abs().max(1.0),
            "{lhs} vs {rhs}"
        );
    }
}
