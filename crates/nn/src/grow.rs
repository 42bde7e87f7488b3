//! Growing a trained network into a larger one that computes the same function at first
//! (Net2Net, Chen, Goodfellow and Shlens, arXiv 1511.05641; zero-γ residual branches, Goyal et
//! al., arXiv 1706.02677): how a run moves to a deeper or wider trunk without starting from
//! random weights and without losing what the smaller network knows.
//!
//! The larger network is a fresh network's random weights with the smaller network's written
//! over the same indices (the first channels, the first blocks, the first value-head units).
//! Call the smaller network's units *old* (its trunk channels, the channels inside its blocks,
//! its head units) and the others *new*. New units may read anything, but no old unit may
//! read a new one: the weights from new to old units start at 0 —
//!
//! * each old block's first and second convolution from the new channels to the old ones;
//! * the heads' first convolutions from the new trunk channels;
//! * the value head's output layer from its new hidden units;
//! * a **new block** adds nothing to the old channels: its last batch norm has γ = β = 0 on
//!   them, so they leave the block as `relu(x + 0) = x` (its input is non-negative).
//!
//! The old units then compute what they did, in inference mode (batch norm on running
//! statistics) and in training mode (batch statistics; each old channel's statistics are its
//! own), and so do the outputs. The new units are live from the start (random features of the
//! input), so the zero weights reading them get gradients at the first step: the new
//! capacity is used as soon as training finds it useful. (Silencing the new channels instead,
//! γ = β = 0, would keep them at exactly 0 before a ReLU, whose gradient there is 0: they
//! would never wake.)

use burn::module::{Param, RunningState};
use burn::nn::conv::Conv2d;
use burn::nn::{BatchNorm, Linear};
use burn::tensor::{s, Tensor};

use crate::model::{ModelConfig, PolicyValueNet, ReplyPolicyHead};

impl ModelConfig {
    /// Whether a network of this config can grow into one of `larger`
    /// ([`PolicyValueNet::grown_into`]): the same input planes, board, actions and heads
    /// (policy head kind and channels, value channels and pooling), no global pooling in
    /// either, and at least as many blocks, channels and value-head units.
    ///
    /// # Errors
    /// A sentence naming the first difference that stops it.
    pub fn can_grow_into(&self, larger: &ModelConfig) -> Result<(), String> {
        let shape = |m: &ModelConfig| (m.input_planes, m.board_height, m.board_width);
        if shape(self) != shape(larger) || self.num_actions != larger.num_actions {
            return Err(format!(
                "the input ({} planes {}×{}, {} actions) differs from the larger network's \
                 ({} planes {}×{}, {} actions)",
                self.input_planes,
                self.board_height,
                self.board_width,
                self.num_actions,
                larger.input_planes,
                larger.board_height,
                larger.board_width,
                larger.num_actions
            ));
        }
        if self.global_pooling.is_some() || larger.global_pooling.is_some() {
            return Err(
                "a trunk with global pooling cannot grow (its pooled channels are the \
                        last ones of a block, where new channels would go)"
                    .into(),
            );
        }
        if self.policy_planes != larger.policy_planes
            || self.policy_channels != larger.policy_channels
            || self.value_channels != larger.value_channels
            || self.value_pool != larger.value_pool
        {
            return Err(
                "the heads differ (policy head kind or channels, value channels or \
                        pooling): only the trunk and the value head's hidden units grow"
                    .into(),
            );
        }
        let shrinks = [
            ("blocks", self.residual_blocks, larger.residual_blocks),
            ("channels", self.channels, larger.channels),
            ("value-head units", self.value_hidden, larger.value_hidden),
        ];
        if let Some((what, from, to)) = shrinks.iter().find(|(_, from, to)| to < from) {
            return Err(format!("{what} would shrink from {from} to {to}"));
        }
        Ok(())
    }
}

impl PolicyValueNet {
    /// This network (of config `config`) grown into `fresh`, a freshly initialised network
    /// of config `larger` ([`ModelConfig::init`]): the result has `larger`'s shape and, at
    /// first, this network's outputs (see the [module docs](self) for which weights are
    /// copied and which start at zero). Auxiliary heads present in both are carried over
    /// like the policy head; others stay as in `fresh`.
    ///
    /// # Errors
    /// [`crate::NnError::InvalidConfig`] with [`ModelConfig::can_grow_into`]'s reason.
    pub fn grown_into(
        self,
        config: &ModelConfig,
        mut fresh: PolicyValueNet,
        larger: &ModelConfig,
    ) -> Result<PolicyValueNet, crate::NnError> {
        config.can_grow_into(larger).map_err(|e| {
            crate::NnError::InvalidConfig(format!(
                "a {}x{} network cannot grow into {}x{}: {e}",
                config.residual_blocks, config.channels, larger.residual_blocks, larger.channels
            ))
        })?;
        let c = config.channels;
        fresh.stem = conv(&fresh.stem, &self.stem);
        fresh.stem_bn = batch_norm(&fresh.stem_bn, &self.stem_bn);
        for (i, big) in fresh.blocks.iter_mut().enumerate() {
            match self.blocks.get(i) {
                Some(small) => {
                    big.conv1 = old_reads_old(conv(&big.conv1, &small.conv1), c);
                    big.bn1 = batch_norm(&big.bn1, &small.bn1);
                    big.conv2 = old_reads_old(conv(&big.conv2, &small.conv2), c);
                    big.bn2 = batch_norm(&big.bn2, &small.bn2);
                }
                // A new block: its residual branch adds nothing to the old channels.
                None => big.bn2 = silenced(&big.bn2, c),
            }
        }
        fresh.policy_conv = old_reads_old(conv(&fresh.policy_conv, &self.policy_conv), c);
        fresh.policy_bn = batch_norm(&fresh.policy_bn, &self.policy_bn);
        if let (Some(big), Some(small)) = (&fresh.policy_fc, &self.policy_fc) {
            fresh.policy_fc = Some(linear(big, small));
        }
        if let (Some(big), Some(small)) = (&fresh.policy_out, &self.policy_out) {
            fresh.policy_out = Some(conv(big, small));
        }
        fresh.value_conv = old_reads_old(conv(&fresh.value_conv, &self.value_conv), c);
        fresh.value_bn = batch_norm(&fresh.value_bn, &self.value_bn);
        fresh.value_fc1 = linear(&fresh.value_fc1, &self.value_fc1);
        fresh.value_fc2 = linear(&fresh.value_fc2, &self.value_fc2);
        // The output reads no new hidden unit (rows of fc2's `[hidden, 1]` weight).
        let [hidden, outputs] = fresh.value_fc2.weight.dims();
        if hidden > config.value_hidden {
            let w = fresh
                .value_fc2
                .weight
                .val()
                .slice_fill([config.value_hidden..hidden, 0..outputs], 0.0);
            fresh.value_fc2.weight = Param::from_tensor(w);
        }
        if let (Some(big), Some(small)) = (&fresh.aux_policy, &self.aux_policy) {
            fresh.aux_policy = Some(ReplyPolicyHead {
                conv: old_reads_old(conv(&big.conv, &small.conv), c),
                bn: batch_norm(&big.bn, &small.bn),
                fc: linear(&big.fc, &small.fc),
            });
        }
        if let (Some(big), Some(small)) = (&fresh.aux_ownership, &self.aux_ownership) {
            fresh.aux_ownership = Some(old_reads_old(conv(big, small), c));
        }
        Ok(fresh)
    }
}

/// `big` with `small` written over its leading corner (every dimension from index 0).
fn paste<const D: usize>(big: Tensor<D>, small: Tensor<D>) -> Tensor<D> {
    let ranges = small.dims().map(|d| 0..d);
    big.slice_assign(ranges, small)
}

fn param<const D: usize>(big: &Param<Tensor<D>>, small: &Param<Tensor<D>>) -> Param<Tensor<D>> {
    Param::from_tensor(paste(big.val(), small.val()))
}

/// A convolution of `big`'s shape with `small`'s weights and bias at the leading indices.
fn conv(big: &Conv2d, small: &Conv2d) -> Conv2d {
    let mut out = big.clone();
    out.weight = param(&big.weight, &small.weight);
    if let (Some(b), Some(s)) = (&big.bias, &small.bias) {
        out.bias = Some(param(b, s));
    }
    out
}

/// A linear layer of `big`'s shape (`[in, out]` weight) with `small`'s at the leading indices.
fn linear(big: &Linear, small: &Linear) -> Linear {
    let mut out = big.clone();
    out.weight = param(&big.weight, &small.weight);
    if let (Some(b), Some(s)) = (&big.bias, &small.bias) {
        out.bias = Some(param(b, s));
    }
    out
}

/// `conv` (`[out, in, kh, kw]`) with the weights from input channels `old..` to output
/// channels `..old` set to 0: the old outputs read no new input.
fn old_reads_old(mut conv: Conv2d, old: usize) -> Conv2d {
    let [out, inp, kh, kw] = conv.weight.dims();
    if inp > old {
        let w = conv
            .weight
            .val()
            .slice_fill([0..old.min(out), old..inp, 0..kh, 0..kw], 0.0);
        conv.weight = Param::from_tensor(w);
    }
    conv
}

/// A batch norm of `big`'s width with `small`'s γ, β and running statistics on the first
/// channels; the others keep `big`'s (γ = 1, β = 0, fresh statistics).
fn batch_norm(big: &BatchNorm, small: &BatchNorm) -> BatchNorm {
    let mut out = big.clone();
    out.gamma = param(&big.gamma, &small.gamma);
    out.beta = param(&big.beta, &small.beta);
    out.running_mean =
        RunningState::new(paste(big.running_mean.value(), small.running_mean.value()));
    out.running_var = RunningState::new(paste(big.running_var.value(), small.running_var.value()));
    out
}

/// `bn` with γ = β = 0 on channels `..old`: they output 0 in either mode.
fn silenced(bn: &BatchNorm, old: usize) -> BatchNorm {
    let [c] = bn.gamma.dims();
    let old = old.min(c);
    let mut out = bn.clone();
    out.gamma = Param::from_tensor(bn.gamma.val().slice_fill(s![0..old], 0.0));
    out.beta = Param::from_tensor(bn.beta.val().slice_fill(s![0..old], 0.0));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::host;
    use crate::{Batch, ModelPreset, Trainer, TrainerConfig};

    /// A deterministic xorshift stream in [0, 1).
    struct Rng(u64);
    impl Rng {
        fn unit(&mut self) -> f32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }
    }

    fn small() -> ModelConfig {
        ModelConfig::preset(ModelPreset::Tiny, 3, 5, 4, 11)
            .with_residual_blocks(2)
            .with_channels(8)
    }

    fn larger() -> ModelConfig {
        let mut c = small().with_residual_blocks(4).with_channels(16);
        c.value_hidden = small().value_hidden + 8;
        c
    }

    /// `n` samples of 0/1 planes, every action legal, a random policy target, z = ±1.
    fn batch(config: &ModelConfig, n: usize, rng: &mut Rng) -> Batch {
        let (p, h, w, a) = (
            config.input_planes,
            config.board_height,
            config.board_width,
            config.num_actions,
        );
        let mut b = Batch::with_capacity([p, h, w], a, n);
        for i in 0..n {
            let planes: Vec<f32> = (0..p * h * w).map(|_| (rng.unit() * 2.0).floor()).collect();
            let raw: Vec<f32> = (0..a).map(|_| rng.unit() + 0.01).collect();
            let sum: f32 = raw.iter().sum();
            let policy: Vec<f32> = raw.iter().map(|x| x / sum).collect();
            let z = if i % 2 == 0 { 1.0 } else { -1.0 };
            b.push(&planes, &vec![true; a], &policy, z).unwrap();
        }
        b
    }

    /// A small network trained a few steps (so that its batch-norm statistics and weights are
    /// no longer the initial ones) and the batch it was trained on.
    fn trained_small() -> (PolicyValueNet, Batch) {
        let device = crate::default_device();
        let data = batch(&small(), 16, &mut Rng(0x9e37_79b9_7f4a_7c15));
        let mut t = Trainer::new(&small(), TrainerConfig::default(), &device).unwrap();
        for _ in 0..5 {
            t.train_step(&data).unwrap();
        }
        (t.inference_model(), data)
    }

    fn grown(net: PolicyValueNet) -> PolicyValueNet {
        let device = crate::default_device();
        net.grown_into(&small(), larger().init(&device), &larger())
            .unwrap()
    }

    #[test]
    fn a_grown_network_predicts_what_the_smaller_one_did() {
        let device = crate::default_device();
        let (net, data) = trained_small();
        let (l0, v0) = net.predict(&small(), data.planes(), &device).unwrap();
        let big = grown(net);
        assert_eq!(big.num_blocks(), 4);
        let (l1, v1) = big.predict(&larger(), data.planes(), &device).unwrap();
        let diff = |a: &[f32], b: &[f32]| {
            a.iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0f32, f32::max)
        };
        assert!(
            diff(&l0, &l1) < 1e-4,
            "policy logits moved by {}",
            diff(&l0, &l1)
        );
        assert!(diff(&v0, &v1) < 1e-5, "values moved by {}", diff(&v0, &v1));
        // A fresh network of the larger size is not the small one: the test can fail.
        let (l2, _) = larger()
            .init(&device)
            .predict(&larger(), data.planes(), &device)
            .unwrap();
        assert!(diff(&l0, &l2) > 1e-2);
    }

    #[test]
    fn a_grown_network_starts_training_from_the_smaller_ones_loss_and_wakes_its_new_channels() {
        let device = crate::default_device();
        let (net, data) = trained_small();
        let train = TrainerConfig::default();
        let mut small_t =
            Trainer::from_model(net.clone(), &small(), train.clone(), &device, 0).unwrap();
        let mut big_t = Trainer::from_model(grown(net), &larger(), train, &device, 0).unwrap();
        // The loss of a step is taken before its update, in training mode (batch statistics).
        let (s, b) = (
            small_t.train_step(&data).unwrap(),
            big_t.train_step(&data).unwrap(),
        );
        assert!(
            (s.total_loss - b.total_loss).abs() < 1e-4,
            "small {s:?}, grown {b:?}"
        );
        for _ in 0..5 {
            big_t.train_step(&data).unwrap();
        }
        // The weights that started at 0 learn: the heads read the new channels, the old
        // channels the new blocks.
        let model = big_t.inference_model();
        let policy = host(model.policy_conv.weight.val()); // [2, 16, 1, 1]
        assert!(
            policy
                .chunks(16)
                .all(|row| row[8..].iter().any(|w| *w != 0.0)),
            "the policy head still reads no new channel"
        );
        assert!(
            host(model.blocks[3].bn2.gamma.val())[..8]
                .iter()
                .any(|g| *g != 0.0),
            "the new block still adds nothing to the old channels"
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]
        /// Any growth (deeper, wider, a wider value head, or none), with a dense or a pooled
        /// value head and with the auxiliary heads, keeps the outputs of a trained network.
        #[test]
        fn any_growth_keeps_the_outputs(
            blocks in 1usize..3,
            more_blocks in 0usize..3,
            channels in 2usize..9,
            more_channels in 0usize..9,
            more_hidden in 0usize..5,
            pooled in proptest::bool::ANY,
            aux in proptest::bool::ANY,
        ) {
            let device = crate::default_device();
            let mut from = ModelConfig::preset(ModelPreset::Tiny, 3, 5, 4, 11)
                .with_residual_blocks(blocks)
                .with_channels(channels);
            if pooled {
                from.value_pool = Some(crate::ValuePool::MeanMax);
            }
            let mut to = from
                .clone()
                .with_residual_blocks(blocks + more_blocks)
                .with_channels(channels + more_channels);
            to.value_hidden += more_hidden;
            let mut train = TrainerConfig::default();
            if aux {
                train.aux_policy_weight = 0.15;
                train.aux_ownership_weight = 0.15;
            }
            let data = batch(&from, 8, &mut Rng(0x2545_f491_4f6c_dd1d ^ channels as u64));
            let mut t = Trainer::new(&from, train, &device).unwrap();
            for _ in 0..3 {
                t.train_step(&data).unwrap();
            }
            let net = t.inference_model();
            let to = to.with_aux(t.model_config().aux());
            let (l0, v0) = net.predict(&from, data.planes(), &device).unwrap();
            let big = net
                .grown_into(t.model_config(), to.init(&device), &to)
                .unwrap();
            let (l1, v1) = big.predict(&to, data.planes(), &device).unwrap();
            for (a, b) in l0.iter().zip(&l1).chain(v0.iter().zip(&v1)) {
                proptest::prop_assert!((a - b).abs() < 1e-4, "{a} vs {b}");
            }
        }
    }

    #[test]
    fn growing_refuses_a_smaller_trunk_or_other_heads() {
        let device = crate::default_device();
        let (net, _) = trained_small();
        let shallower = small().with_residual_blocks(1);
        let err = net
            .clone()
            .grown_into(&small(), shallower.init(&device), &shallower)
            .unwrap_err()
            .to_string();
        assert!(err.contains("blocks would shrink from 2 to 1"), "{err}");
        let mut other_head = larger();
        other_head.policy_channels += 1;
        assert!(small()
            .can_grow_into(&other_head)
            .unwrap_err()
            .contains("heads"));
        let mut pooled = larger();
        pooled.global_pooling = Some(crate::GlobalPooling {
            blocks: vec![2],
            channels: 4,
        });
        assert!(small()
            .can_grow_into(&pooled)
            .unwrap_err()
            .contains("global pooling"));
        let other_board = ModelConfig::preset(ModelPreset::Tiny, 3, 5, 5, 11);
        assert!(small()
            .can_grow_into(&other_board)
            .unwrap_err()
            .contains("input"));
    }
}
