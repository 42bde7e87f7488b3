//! The network's shapes and ranges, the loss, the optimizers and the learning-rate schedules.

mod common;

use alphazero_nn::{
    default_device, kl_divergence, masked_log_softmax, policy_cross_entropy, Batch, GlobalPooling,
    ModelConfig, ModelPreset, OptimizerKind, Trainer, TrainerConfig,
};
use burn::tensor::{Tensor, TensorData};
use common::{random_batch, Rng};

fn tiny() -> ModelConfig {
    ModelConfig::preset(ModelPreset::Tiny, 3, 5, 4, 11)
}

#[test]
fn forward_gives_logits_of_every_action_and_values_in_range() {
    let device = default_device();
    let config = tiny().with_residual_blocks(2);
    let net = config.init(&device);
    let mut rng = Rng(7);
    let planes: Vec<f32> = (0..6 * 3 * 5 * 4).map(|_| rng.unit() * 4.0 - 2.0).collect();
    let x: Tensor<4> = Tensor::from_data(TensorData::new(planes.clone(), [6, 3, 5, 4]), &device);
    let (logits, values) = net.forward(x);
    assert_eq!(logits.dims(), [6, 11]);
    assert_eq!(values.dims(), [6]);
    let (l, v) = net.predict(&config, &planes, &device).unwrap();
    assert_eq!(l.len(), 6 * 11);
    assert_eq!(v.len(), 6);
    assert!(v.iter().all(|v| (-1.0..=1.0).contains(v)), "values {v:?}");
    assert!(l.iter().all(|x| x.is_finite()));
}

#[test]
fn predict_rejects_planes_of_the_wrong_length() {
    let device = default_device();
    let config = tiny();
    let net = config.init(&device);
    assert!(net.predict(&config, &[0.0; 7], &device).is_err());
    assert!(net.predict(&config, &[], &device).is_err());
}

#[test]
fn presets_parse_by_name_and_by_dimensions() {
    assert_eq!(ModelPreset::parse("medium").unwrap(), ModelPreset::Medium);
    assert_eq!(ModelPreset::parse("10x128").unwrap(), ModelPreset::Large);
    assert!(ModelPreset::parse("huge").is_err());
    let c = ModelConfig::preset(ModelPreset::Large, 4, 15, 15, 225);
    assert_eq!((c.residual_blocks, c.channels), (10, 128));
    // 10 blocks × 2 convs × 225 squares × 128² × 9 dominate the count.
    assert!(c.forward_macs() > 10 * 2 * 225 * 128 * 128 * 9);
}

#[test]
fn model_config_round_trips_through_json_and_rejects_zero_sizes() {
    let c = tiny();
    let json = serde_json::to_string(&c).unwrap();
    let back: ModelConfig = serde_json::from_str(&json).unwrap();
    assert_eq!(back, c);
    assert!(c.clone().with_channels(0).validate().is_err());
    assert!(c.validate().is_ok());
}

#[test]
fn num_params_matches_the_module() {
    use burn::module::Module;
    let c = tiny().with_residual_blocks(2);
    let net = c.init(&default_device());
    // burn also counts the batch-norm running mean and variance (2 per channel).
    let bn_channels =
        c.channels * (1 + 2 * c.residual_blocks) + c.policy_channels + c.value_channels;
    assert_eq!(net.num_params(), c.num_params() + 2 * bn_channels);
}

#[test]
fn num_params_matches_the_module_with_global_pooling() {
    use burn::module::Module;
    let c = tiny()
        .with_residual_blocks(4)
        .with_channels(16)
        .with_default_global_pooling();
    assert_eq!(
        c.global_pooling,
        Some(GlobalPooling {
            blocks: vec![2],
            channels: 4
        })
    );
    let net = c.init(&default_device());
    let bn_channels =
        c.channels * (1 + 2 * c.residual_blocks) + c.policy_channels + c.value_channels;
    assert_eq!(net.num_params(), c.num_params() + 2 * bn_channels);
    assert_ne!(
        c.num_params(),
        tiny()
            .with_residual_blocks(4)
            .with_channels(16)
            .num_params()
    );
}

/// Multiply-accumulates counted from the module's own weight shapes: a convolution of
/// weight `[o, i, k, k]` runs at every point, `H·W·o·i·k²`; a linear layer `[i, o]` once.
fn macs_of_the_module(c: &ModelConfig) -> u64 {
    use burn::module::{Module, ModuleVisitor, Param};
    struct Macs {
        hw: u64,
        total: u64,
    }
    impl ModuleVisitor for Macs {
        fn visit_float<const D: usize>(&mut self, p: &Param<Tensor<D>>) {
            let dims = p.val().dims();
            match dims.len() {
                4 => self.total += self.hw * dims.iter().map(|&d| d as u64).product::<u64>(),
                2 => self.total += (dims[0] * dims[1]) as u64,
                _ => {}
            }
        }
    }
    let mut v = Macs {
        hw: (c.board_height * c.board_width) as u64,
        total: 0,
    };
    c.init(&default_device()).visit(&mut v);
    v.total
}

#[test]
fn forward_macs_count_every_layer_with_and_without_global_pooling() {
    let plain = ModelConfig::preset(ModelPreset::Small, 4, 15, 15, 225)
        .with_residual_blocks(6)
        .with_channels(32);
    let pooled = plain.clone().with_default_global_pooling();
    assert_eq!(
        pooled.global_pooling,
        Some(GlobalPooling {
            blocks: vec![2, 5],
            channels: 8
        })
    );
    assert_eq!(plain.forward_macs(), macs_of_the_module(&plain));
    assert_eq!(pooled.forward_macs(), macs_of_the_module(&pooled));
    // Two blocks' second convolutions read 24 of 32 channels.
    assert!(pooled.forward_macs() < plain.forward_macs());
}

#[test]
fn default_global_pooling_spaces_blocks_through_the_trunk() {
    let blocks =
        |n: usize, c: usize| GlobalPooling::default_for(n, c).map(|g| (g.blocks, g.channels));
    assert_eq!(blocks(1, 8), Some((vec![0], 2)));
    assert_eq!(blocks(2, 32), Some((vec![1], 8)));
    assert_eq!(blocks(4, 32), Some((vec![2], 8)));
    assert_eq!(blocks(6, 64), Some((vec![2, 5], 16)));
    assert_eq!(blocks(10, 128), Some((vec![2, 5, 8], 32)));
    assert_eq!(blocks(6, 48), Some((vec![2, 5], 8)));
    assert_eq!(blocks(3, 2), Some((vec![2], 1)));
    assert_eq!(blocks(0, 64), None);
    assert_eq!(blocks(6, 1), None);
    // Every default validates.
    for (n, c) in [(1, 8), (2, 32), (6, 64), (10, 128), (3, 2)] {
        tiny()
            .with_residual_blocks(n)
            .with_channels(c)
            .with_default_global_pooling()
            .validate()
            .unwrap();
    }
}

#[test]
fn global_pooling_that_does_not_fit_the_trunk_is_refused_naming_the_rule() {
    let with = |blocks: Vec<usize>, channels: usize| {
        tiny()
            .with_residual_blocks(3)
            .with_global_pooling(Some(GlobalPooling { blocks, channels }))
            .validate()
            .map_err(|e| e.to_string())
    };
    assert!(with(vec![0, 2], 4).is_ok());
    let err = with(vec![3], 2).unwrap_err();
    assert!(
        err.contains("block 3 does not exist in a trunk of 3 blocks"),
        "{err}"
    );
    let err = with(vec![2, 1], 2).unwrap_err();
    assert!(err.contains("strictly ascending"), "{err}");
    let err = with(vec![1, 1], 2).unwrap_err();
    assert!(err.contains("strictly ascending"), "{err}");
    let err = with(vec![], 2).unwrap_err();
    assert!(err.contains("names no block"), "{err}");
    let err = with(vec![1], 8).unwrap_err();
    assert!(
        err.contains("8 pooled channels where 1..8 are possible"),
        "{err}"
    );
    let err = with(vec![1], 0).unwrap_err();
    assert!(err.contains("0 pooled channels"), "{err}");
}

#[test]
fn a_pooled_network_trains_and_its_pooling_layer_learns() {
    use burn::module::{Module, ModuleVisitor, Param};
    struct PoolWeights(Vec<f32>);
    impl ModuleVisitor for PoolWeights {
        fn visit_float<const D: usize>(&mut self, p: &Param<Tensor<D>>) {
            let dims = p.val().dims();
            // The pooling layer of the default 2-block, 8-channel network: [2·2, 6].
            if dims[..] == [4, 6] {
                self.0
                    .extend(p.val().into_data().try_into_vec::<f32>().unwrap());
            }
        }
    }
    let weights = |t: &Trainer| {
        let mut v = PoolWeights(Vec::new());
        t.model().visit(&mut v);
        v.0
    };
    let device = default_device();
    let config = tiny().with_residual_blocks(2).with_default_global_pooling();
    let train = TrainerConfig {
        learning_rate: 0.01,
        ..TrainerConfig::default()
    };
    let mut trainer = Trainer::new(&config, train, &device).unwrap();
    let before = weights(&trainer);
    assert_eq!(before.len(), 24);
    let batch = random_batch(&config, 16, &mut Rng(3));
    let first = trainer.train_step(&batch).unwrap();
    for _ in 0..20 {
        trainer.train_step(&batch).unwrap();
    }
    let last = trainer.train_step(&batch).unwrap();
    assert!(
        last.total_loss < first.total_loss,
        "loss {} -> {}",
        first.total_loss,
        last.total_loss
    );
    let after = weights(&trainer);
    assert!(before.iter().zip(&after).any(|(a, b)| a != b));
}

fn overfit(optimizer: OptimizerKind, lr: f64) -> (f32, f32) {
    let device = default_device();
    let config = tiny();
    let train = TrainerConfig {
        optimizer,
        learning_rate: lr,
        ..TrainerConfig::default()
    };
    let mut trainer = Trainer::new(&config, train, &device).unwrap();
    let batch = random_batch(&config, 8, &mut Rng(42));
    let first = trainer.train_step(&batch).unwrap();
    let mut last = first;
    for _ in 0..40 {
        last = trainer.train_step(&batch).unwrap();
    }
    assert_eq!(trainer.step(), 41);
    (first.total_loss, last.total_loss)
}

#[test]
fn adamw_overfits_a_tiny_fixed_batch() {
    let (first, last) = overfit(OptimizerKind::adamw(), 1e-2);
    assert!(last < 0.7 * first, "loss {first} -> {last}");
}

#[test]
fn sgd_with_momentum_overfits_a_tiny_fixed_batch() {
    let (first, last) = overfit(OptimizerKind::sgd(), 2e-2);
    assert!(last < 0.85 * first, "loss {first} -> {last}");
}

#[test]
fn train_stats_are_consistent() {
    let device = default_device();
    let config = tiny();
    let mut trainer = Trainer::new(&config, TrainerConfig::default(), &device).unwrap();
    let batch = random_batch(&config, 5, &mut Rng(3));
    let s = trainer.train_step(&batch).unwrap();
    assert!(
        (s.total_loss - (s.policy_loss + s.value_loss)).abs() < 1e-4,
        "{s:?}"
    );
    assert!(
        s.policy_entropy > 0.0 && s.policy_loss >= s.policy_entropy - 1e-4,
        "{s:?}"
    );
    assert!(s.value_loss >= 0.0 && s.grad_norm > 0.0);
    assert_eq!(s.learning_rate, 1e-3);
}

#[test]
fn gradient_clipping_bounds_the_update() {
    // With a tiny clip norm and SGD without momentum-free tricks, the stats still report the
    // unclipped norm, and training stays finite.
    let device = default_device();
    let config = tiny();
    let train = TrainerConfig {
        grad_clip_norm: Some(1e-3),
        ..TrainerConfig::default()
    };
    let mut trainer = Trainer::new(&config, train, &device).unwrap();
    let batch = random_batch(&config, 4, &mut Rng(9));
    let s = trainer.train_step(&batch).unwrap();
    assert!(s.grad_norm > 1e-3);
    assert!(trainer.train_step(&batch).unwrap().total_loss.is_finite());
}

#[test]
fn changing_an_illegal_logit_changes_neither_loss_nor_legal_probabilities() {
    let device = default_device().autodiff();
    let mask = [1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0];
    let target = [0.5, 0.0, 0.5, 0.2, 0.0, 0.0, 0.3, 0.5];
    let base = [0.3, 2.0, -1.0, 0.5, 7.0, -3.0, 1.0, 0.0];
    let run = |logits: [f32; 8]| {
        let l: Tensor<2> =
            Tensor::from_data(TensorData::new(logits.to_vec(), [2, 4]), &device).require_grad();
        let m: Tensor<2> = Tensor::from_data(TensorData::new(mask.to_vec(), [2, 4]), &device);
        let t: Tensor<2> = Tensor::from_data(TensorData::new(target.to_vec(), [2, 4]), &device);
        let loss = policy_cross_entropy(l.clone(), m.clone(), t);
        let grads = loss.backward();
        let g = l
            .grad(&grads)
            .unwrap()
            .into_data()
            .try_into_vec::<f32>()
            .unwrap();
        let lp = masked_log_softmax(l.detach(), m)
            .into_data()
            .try_into_vec::<f32>()
            .unwrap();
        (loss.into_data().try_into_vec::<f32>().unwrap()[0], g, lp)
    };
    let (loss_a, grad_a, lp_a) = run(base);
    let mut changed = base;
    changed[1] = 1000.0;
    changed[4] = -50.0;
    let (loss_b, grad_b, lp_b) = run(changed);
    assert_eq!(loss_a, loss_b);
    for i in [1, 4, 5] {
        assert_eq!(grad_a[i], 0.0, "illegal logit {i} got gradient");
        assert_eq!(grad_b[i], 0.0);
    }
    for i in [0, 2, 3, 6, 7] {
        assert_eq!(lp_a[i], lp_b[i]);
        assert_eq!(grad_a[i], grad_b[i]);
    }
    // The legal probabilities of each row sum to one.
    let row0: f32 = [0, 2, 3].iter().map(|&i| lp_a[i].exp()).sum();
    let row1: f32 = [6, 7].iter().map(|&i| lp_a[i].exp()).sum();
    assert!((row0 - 1.0).abs() < 1e-5 && (row1 - 1.0).abs() < 1e-5);
}

#[test]
fn kl_divergence_is_zero_for_the_same_net_and_positive_after_training() {
    let device = default_device();
    let config = tiny();
    let mut trainer = Trainer::new(&config, TrainerConfig::default(), &device).unwrap();
    let batch = random_batch(&config, 6, &mut Rng(11));
    let before = trainer.inference_model();
    let kl0 = kl_divergence(&before, &before, &config, &batch, &device).unwrap();
    assert!(kl0.abs() < 1e-6, "{kl0}");
    for _ in 0..5 {
        trainer.train_step(&batch).unwrap();
    }
    let after = trainer.inference_model();
    let kl = kl_divergence(&before, &after, &config, &batch, &device).unwrap();
    assert!(kl > 1e-6, "{kl}");
}

#[test]
fn batches_that_do_not_fit_are_refused() {
    let device = default_device();
    let config = tiny();
    let mut trainer = Trainer::new(&config, TrainerConfig::default(), &device).unwrap();
    let empty = Batch::with_capacity([3, 5, 4], 11, 0);
    assert!(trainer.train_step(&empty).is_err());
    let wider = ModelConfig {
        num_actions: 12,
        ..config.clone()
    };
    let other = random_batch(&wider, 2, &mut Rng(1));
    assert!(trainer.train_step(&other).is_err());
    let mut b = Batch::with_capacity([3, 5, 4], 11, 1);
    assert!(b.push(&[0.0; 59], &[true; 11], &[0.0; 11], 0.0).is_err());
    assert!(b.push(&[0.0; 60], &[true; 10], &[0.0; 11], 0.0).is_err());
    assert!(b
        .push(&[0.0; 60], &[true; 11], &[0.0; 11], f32::NAN)
        .is_err());
    assert!(b.is_empty());
    assert_eq!(trainer.step(), 0);
}

#[test]
fn invalid_training_configs_are_refused() {
    let device = default_device();
    let bad = TrainerConfig {
        learning_rate: -1.0,
        ..TrainerConfig::default()
    };
    assert!(Trainer::new(&tiny(), bad, &device).is_err());
}

#[test]
fn trainer_settings_of_older_checkpoints_with_an_lr_schedule_field_still_read() {
    // Checkpoints written before the one learning-rate schedule carry `lr_schedule` in
    // their trainer settings; it is ignored (the training loop always wrote `Constant`).
    let mut v = serde_json::to_value(TrainerConfig::default()).unwrap();
    v["lr_schedule"] = serde_json::json!("Constant");
    let read: TrainerConfig = serde_json::from_value(v).unwrap();
    assert_eq!(read, TrainerConfig::default());
}
