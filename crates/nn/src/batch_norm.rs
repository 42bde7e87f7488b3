//! Batch normalisation in training mode (batch statistics) for burn's Flex CPU backend, with a
//! hand-written backward pass.
//!
//! burn 0.22's generic `batch_norm_train` (which Flex does not override) reduces over
//! `[B, H, W]` by swapping the batch and channel dimensions and reshaping, which copies the
//! whole activation tensor twice in the forward pass and twice more in the backward pass. On
//! a 6×64 network at batch 256 those copies were the largest cost after the matrix products.
//! This backend extension reduces over NCHW (`[B, C, H, W]`) in place instead.
//!
//! Forward (Ioffe & Szegedy 2015, Algorithm 1), per channel `c` over the `N = B·H·W` values:
//! `μ_c = mean(x)`, `σ²_c = mean((x − μ_c)²)` (biased, as burn), `x̂ = (x − μ_c)/√(σ²_c + ε)`,
//! `y = γ_c·x̂ + β_c`. Backward (ibid., §3): `dβ_c = Σ dy`, `dγ_c = Σ dy·x̂`,
//! `dx = γ_c/√(σ²_c + ε) · (dy − dβ_c/N − x̂·dγ_c/N)`.
//!
//! [`batch_norm`] is a drop-in for `BatchNorm::forward` that also updates the running
//! statistics exactly as burn does (`running ← (1 − momentum)·running + momentum·batch`,
//! biased variance). Checked against burn's `BatchNorm` (outputs, all gradients and the running
//! statistics) in this module's tests. Tensors must be `f32` (the only dtype the networks of
//! this crate use; other dtypes panic with a message naming the operation).

use burn::backend::autodiff::checkpoint::base::Checkpointer;
use burn::backend::autodiff::checkpoint::strategy::CheckpointStrategy;
use burn::backend::autodiff::grads::Gradients;
use burn::backend::autodiff::ops::{Backward, Ops, OpsKind};
use burn::backend::autodiff::NodeId;
use burn::backend::flex::FlexTensor;
use burn::backend::tensor::FloatTensor;
use burn::backend::{backend_extension, Autodiff, Backend, Dispatch, Flex, TensorMetadata};
use burn::nn::BatchNorm;
use burn::tensor::{DType, Tensor, TensorData};

use crate::conv3x3::{contiguous, fast_path_on, for_sample_chunks, for_sample_ranges, slice};

/// The custom operations.
#[backend_extension(Flex, Autodiff)]
pub trait BatchNormBackend: Backend {
    /// `x` `[B, C, H, W]`, `gamma`, `beta` `[C]` → `[B, C, H, W]` normalised with the batch's
    /// statistics (see the module docs).
    fn batch_norm_batch_stats(
        x: FloatTensor<Self>,
        gamma: FloatTensor<Self>,
        beta: FloatTensor<Self>,
        epsilon: f64,
    ) -> FloatTensor<Self>;

    /// `x` `[B, C, H, W]` → `[2, C]`: each channel's mean and biased variance over `B·H·W`.
    /// Not differentiable (the result is a constant for autodiff).
    fn channel_mean_var(x: FloatTensor<Self>) -> FloatTensor<Self>;
}

/// Per-channel statistics of `x` `[B, C, HW]`: `(mean, biased variance)`, two passes, partial
/// sums per task in `f64`.
fn stats(x: &[f32], b: usize, c: usize, hw: usize) -> (Vec<f32>, Vec<f32>) {
    let n = (b * hw) as f64;
    let sums = for_sample_ranges(b, |first, count| {
        let mut acc = vec![0.0f64; c];
        for s in first..first + count {
            for (ch, a) in acc.iter_mut().enumerate() {
                let plane = &x[(s * c + ch) * hw..(s * c + ch + 1) * hw];
                *a += plane.iter().sum::<f32>() as f64;
            }
        }
        acc
    });
    let mean: Vec<f64> = (0..c)
        .map(|ch| sums.iter().map(|p| p[ch]).sum::<f64>() / n)
        .collect();
    let sq = for_sample_ranges(b, |first, count| {
        let mut acc = vec![0.0f64; c];
        for s in first..first + count {
            for (ch, a) in acc.iter_mut().enumerate() {
                let m = mean[ch] as f32;
                let plane = &x[(s * c + ch) * hw..(s * c + ch + 1) * hw];
                *a += plane.iter().map(|v| (v - m) * (v - m)).sum::<f32>() as f64;
            }
        }
        acc
    });
    let var = (0..c)
        .map(|ch| (sq.iter().map(|p| p[ch]).sum::<f64>() / n) as f32)
        .collect();
    (mean.into_iter().map(|m| m as f32).collect(), var)
}

fn inv_std(var: &[f32], epsilon: f64) -> Vec<f32> {
    var.iter()
        .map(|v| (1.0 / (*v as f64 + epsilon).sqrt()) as f32)
        .collect()
}

/// `y = (x − mean)·inv_std·γ + β` over `[B, C, HW]`.
fn normalise(
    x: &[f32],
    dims: [usize; 3],
    mean: &[f32],
    inv: &[f32],
    gamma: &[f32],
    beta: &[f32],
) -> Vec<f32> {
    let [b, c, hw] = dims;
    let scale: Vec<f32> = inv.iter().zip(gamma).map(|(i, g)| i * g).collect();
    let shift: Vec<f32> = (0..c).map(|ch| beta[ch] - mean[ch] * scale[ch]).collect();
    let mut out = vec![0.0f32; b * c * hw];
    for_sample_chunks(&mut out, b, c * hw, |first, count, chunk| {
        for s in 0..count {
            for ch in 0..c {
                let base = ((first + s) * c + ch) * hw;
                let src = &x[base..base + hw];
                let dst = &mut chunk[(s * c + ch) * hw..(s * c + ch + 1) * hw];
                let (k, d) = (scale[ch], shift[ch]);
                for (o, v) in dst.iter_mut().zip(src) {
                    *o = v * k + d;
                }
            }
        }
    });
    out
}

fn dims_of(x: &FlexTensor) -> [usize; 3] {
    let shape = x.shape();
    let d = shape.dims::<4>();
    [d[0], d[1], d[2] * d[3]]
}

fn is_f32(ts: &[&FlexTensor]) -> bool {
    ts.iter().all(|t| t.dtype() == DType::F32)
}

/// The forward pass on host data: the normalised output `[B, C, H, W]`, the batch mean and
/// `1/√(σ² + ε)` per channel (what the backward pass needs).
fn forward_host(
    x: &FlexTensor,
    gamma: &FlexTensor,
    beta: &FlexTensor,
    epsilon: f64,
) -> (FlexTensor, Vec<f32>, Vec<f32>) {
    assert!(
        is_f32(&[x, gamma, beta]),
        "batch_norm_batch_stats: f32 tensors only"
    );
    let shape = x.shape();
    let dims = dims_of(x);
    let (x, gamma, beta) = (
        contiguous(x.clone()),
        contiguous(gamma.clone()),
        contiguous(beta.clone()),
    );
    let (mean, var) = stats(slice(&x), dims[0], dims[1], dims[2]);
    let inv = inv_std(&var, epsilon);
    let out = normalise(slice(&x), dims, &mean, &inv, slice(&gamma), slice(&beta));
    (
        FlexTensor::from_data(TensorData::new(out, shape)),
        mean,
        inv,
    )
}

impl BatchNormBackend for Flex {
    fn batch_norm_batch_stats(
        x: FlexTensor,
        gamma: FlexTensor,
        beta: FlexTensor,
        epsilon: f64,
    ) -> FlexTensor {
        forward_host(&x, &gamma, &beta, epsilon).0
    }

    fn channel_mean_var(x: FlexTensor) -> FlexTensor {
        assert!(is_f32(&[&x]), "channel_mean_var: f32 tensors only");
        let [b, c, hw] = dims_of(&x);
        let x = contiguous(x);
        let (mut mean, var) = stats(slice(&x), b, c, hw);
        mean.extend(var);
        FlexTensor::from_data(TensorData::new(mean, [2, c]))
    }
}

#[derive(Debug)]
struct BatchNormBackward;

impl Backward<Flex, 3> for BatchNormBackward {
    /// Input and γ (checkpointed), the batch mean and 1/√(σ² + ε) per channel.
    type State = (NodeId, NodeId, Vec<f32>, Vec<f32>);

    fn backward(
        self,
        ops: Ops<Self::State, 3>,
        grads: &mut Gradients,
        checkpointer: &mut Checkpointer,
    ) {
        let [node_x, node_gamma, node_beta] = ops.parents;
        let grad = grads.consume::<Flex>(&ops.node);
        let (x_state, gamma_state, mean, inv) = ops.state;
        let x: FlexTensor = checkpointer.retrieve_node_output(x_state);
        let gamma: FlexTensor = checkpointer.retrieve_node_output(gamma_state);
        let shape = x.shape();
        let [b, c, hw] = dims_of(&x);
        let (x, gamma, grad) = (contiguous(x), contiguous(gamma), contiguous(grad));
        let (xs, gs, dy) = (slice(&x), slice(&gamma), slice(&grad));
        // dβ = Σ dy, dγ = Σ dy·x̂ (per task, then summed).
        let partial = for_sample_ranges(b, |first, count| {
            let mut db = vec![0.0f64; c];
            let mut dg = vec![0.0f64; c];
            for s in first..first + count {
                for ch in 0..c {
                    let base = (s * c + ch) * hw;
                    let (m, i) = (mean[ch], inv[ch]);
                    let (mut sb, mut sg) = (0.0f32, 0.0f32);
                    for (g, v) in dy[base..base + hw].iter().zip(&xs[base..base + hw]) {
                        sb += g;
                        sg += g * (v - m) * i;
                    }
                    db[ch] += sb as f64;
                    dg[ch] += sg as f64;
                }
            }
            (db, dg)
        });
        let dbeta: Vec<f32> = (0..c)
            .map(|ch| partial.iter().map(|p| p.0[ch]).sum::<f64>() as f32)
            .collect();
        let dgamma: Vec<f32> = (0..c)
            .map(|ch| partial.iter().map(|p| p.1[ch]).sum::<f64>() as f32)
            .collect();
        if let Some(node) = node_x {
            let n = (b * hw) as f32;
            let mut dx = vec![0.0f32; b * c * hw];
            for_sample_chunks(&mut dx, b, c * hw, |first, count, chunk| {
                for s in 0..count {
                    for ch in 0..c {
                        let base = ((first + s) * c + ch) * hw;
                        let (m, i) = (mean[ch], inv[ch]);
                        let k = gs[ch] * i;
                        let (mb, mg) = (dbeta[ch] / n, dgamma[ch] / n);
                        let dst = &mut chunk[(s * c + ch) * hw..(s * c + ch + 1) * hw];
                        for ((o, g), v) in dst
                            .iter_mut()
                            .zip(&dy[base..base + hw])
                            .zip(&xs[base..base + hw])
                        {
                            *o = k * (g - mb - (v - m) * i * mg);
                        }
                    }
                }
            });
            grads.register::<Flex>(node.id, FlexTensor::from_data(TensorData::new(dx, shape)));
        }
        if let Some(node) = node_gamma {
            let t = FlexTensor::from_data(TensorData::new(dgamma, [c]));
            grads.register::<Flex>(node.id, t);
        }
        if let Some(node) = node_beta {
            let t = FlexTensor::from_data(TensorData::new(dbeta, [c]));
            grads.register::<Flex>(node.id, t);
        }
    }
}

impl<C: CheckpointStrategy> BatchNormBackend for Autodiff<Flex, C> {
    fn batch_norm_batch_stats(
        x: FloatTensor<Self>,
        gamma: FloatTensor<Self>,
        beta: FloatTensor<Self>,
        epsilon: f64,
    ) -> FloatTensor<Self> {
        let prep = BatchNormBackward
            .prepare::<C>([x.node(), gamma.node(), beta.node()])
            .compute_bound()
            .stateful();
        let run = |x: &FlexTensor, gamma: &FlexTensor, beta: &FlexTensor| {
            forward_host(x, gamma, beta, epsilon)
        };
        match prep {
            OpsKind::Tracked(mut prep) => {
                let x_state = prep.checkpoint(&x);
                let gamma_state = prep.checkpoint(&gamma);
                let (out, mean, inv) = run(x.primitive(), gamma.primitive(), beta.primitive());
                prep.finish((x_state, gamma_state, mean, inv), out)
            }
            OpsKind::UnTracked(prep) => {
                prep.finish(run(x.primitive(), gamma.primitive(), beta.primitive()).0)
            }
        }
    }

    fn channel_mean_var(x: FloatTensor<Self>) -> FloatTensor<Self> {
        FloatTensor::<Self>::new(Flex::channel_mean_var(x.primitive().clone()))
    }
}

/// `bn.forward(x)` for `x` `[B, C, H, W]`: in training mode on burn's Flex autodiff device,
/// this module's operation (batch statistics) plus burn's running-statistics update;
/// everywhere else (inference mode, CUDA) burn's own `BatchNorm::forward`.
pub fn batch_norm(bn: &BatchNorm, x: Tensor<4>) -> Tensor<4> {
    let device = x.device();
    if !(device.is_autodiff() && bn.training.is_enabled() && fast_path_on(&device)) {
        return bn.forward(x);
    }
    let stats = Tensor::<2>::from_dispatch(<Dispatch as BatchNormBackend>::channel_mean_var(
        x.clone().into_dispatch(),
    ));
    let out = Tensor::from_dispatch(<Dispatch as BatchNormBackend>::batch_norm_batch_stats(
        x.into_dispatch(),
        bn.gamma.val().into_dispatch(),
        bn.beta.val().into_dispatch(),
        bn.epsilon,
    ));
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
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{host, max_rel_diff};
    use burn::module::Param;
    use burn::nn::BatchNormConfig;
    use burn::tensor::{Device, Distribution};

    /// Outputs, the gradients of input, γ and β, and the running statistics after two steps
    /// agree with burn's `BatchNorm` (non-trivial γ, β, shifted and scaled inputs).
    #[test]
    fn batch_norm_matches_burn_outputs_gradients_and_running_statistics() {
        let device = Device::flex().autodiff();
        for &(b, c, h, w) in &[(1, 2, 1, 5), (3, 4, 5, 6), (16, 8, 6, 7), (5, 3, 15, 15)] {
            let mut bn = BatchNormConfig::new(c).init(&device);
            bn.gamma = Param::from_tensor(Tensor::random(
                [c],
                Distribution::Uniform(0.5, 1.5),
                &device,
            ));
            bn.beta = Param::from_tensor(Tensor::random(
                [c],
                Distribution::Uniform(-1.0, 1.0),
                &device,
            ));
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
                let pairs = [
                    (
                        "x",
                        host(x.grad(&g_fast).unwrap()),
                        host(x.grad(&g_ref).unwrap()),
                    ),
                    (
                        "gamma",
                        host(bn.gamma.val().grad(&g_fast).unwrap()),
                        host(reference.gamma.val().grad(&g_ref).unwrap()),
                    ),
                    (
                        "beta",
                        host(bn.beta.val().grad(&g_fast).unwrap()),
                        host(reference.beta.val().grad(&g_ref).unwrap()),
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
                ];
                for (name, fast, slow) in pairs {
                    let d = max_rel_diff(&fast, &slow);
                    assert!(d < 1e-4, "{what}: {name} differs by {d}");
                }
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
