//! The training-only auxiliary heads (opponent reply, ownership): their outputs and losses,
//! that they learn, that inference never runs them, and that checkpoints without them (older
//! files) and with them load, for play and for training.

mod common;

use std::path::Path;

use alphazero_connect4::{Connect4, Connect4Config};
use alphazero_game::Game;
use alphazero_mcts::{EvalRequest, Evaluator};
use alphazero_nn::export::export_network;
use alphazero_nn::{
    default_device, load_checkpoint, save_checkpoint, save_model, AuxHeads, AuxTargets, Batch,
    Encode, FoldedNet, ModelConfig, ModelPreset, NetworkEvaluator, PolicyValueNet, Trainer,
    TrainerConfig,
};
use alphazero_registry::GameSpec;
use burn::module::Module;
use burn::tensor::{Tensor, TensorData};
use common::{max_abs_diff, random_batch, random_position, temp_dir, Rng};

fn tiny() -> ModelConfig {
    ModelConfig::preset(ModelPreset::Tiny, 3, 5, 4, 11)
}

const BOTH: AuxHeads = AuxHeads {
    reply_policy: true,
    ownership: true,
};

fn aux_train_config(policy: f32, ownership: f32) -> TrainerConfig {
    TrainerConfig {
        learning_rate: 1e-2,
        aux_policy_weight: policy,
        aux_ownership_weight: ownership,
        ..TrainerConfig::default()
    }
}

/// `random_batch`'s samples with auxiliary targets: a random reply (none for every fourth
/// sample) and a random ownership map of −1/0/+1 (none for every fifth).
fn aux_batch(config: &ModelConfig, n: usize, rng: &mut Rng) -> Batch {
    let plain = random_batch(config, n, rng);
    let [_, c, h, w] = plain.planes_shape();
    let a = plain.num_actions();
    let mut batch = Batch::with_capacity([c, h, w], a, n);
    for i in 0..n {
        let legal: Vec<bool> = plain.legal_mask()[i * a..(i + 1) * a]
            .iter()
            .map(|&m| m > 0.5)
            .collect();
        let map: Vec<f32> = (0..h * w).map(|_| rng.below(3) as f32 - 1.0).collect();
        let aux = AuxTargets {
            reply: (i % 4 != 3).then(|| rng.below(a)),
            ownership: (i % 5 != 4).then_some(&map[..]),
        };
        batch
            .push_with_aux(
                &plain.planes()[i * c * h * w..(i + 1) * c * h * w],
                &legal,
                &plain.target_policy()[i * a..(i + 1) * a],
                plain.target_value()[i],
                aux,
            )
            .unwrap();
    }
    batch
}

/// Every float tensor of `net` by module path, with its values (the export's own listing).
fn tensors(net: &PolicyValueNet) -> Vec<(String, Vec<f32>)> {
    alphazero_nn::export::network_tensors(net)
        .unwrap()
        .into_iter()
        .map(|t| (t.name, t.values))
        .collect()
}

fn aux_tensors(net: &PolicyValueNet) -> Vec<(String, Vec<f32>)> {
    tensors(net)
        .into_iter()
        .filter(|(name, _)| name.starts_with("aux_"))
        .collect()
}

#[test]
fn forward_with_aux_gives_the_inference_outputs_and_each_head_asked_for() {
    let device = default_device();
    let config = tiny().with_aux(BOTH);
    let net = config.init(&device);
    assert_eq!(net.aux_heads(), BOTH);
    let mut rng = Rng(5);
    let planes: Vec<f32> = (0..6 * 60).map(|_| rng.below(2) as f32).collect();
    let x = || Tensor::<4>::from_data(TensorData::new(planes.clone(), [6, 3, 5, 4]), &device);
    let (logits, values) = net.forward(x());
    let out = net.forward_with_aux(x(), BOTH);
    let host = |t: Tensor<2>| t.into_data().try_to_vec::<f32>().unwrap();
    assert_eq!(host(out.logits), host(logits));
    assert_eq!(
        out.values.into_data().try_to_vec::<f32>().unwrap(),
        values.into_data().try_to_vec::<f32>().unwrap()
    );
    let reply = out.reply_logits.expect("the reply head");
    assert_eq!(reply.dims(), [6, 11]);
    let ownership = out.ownership.expect("the ownership head");
    assert_eq!(ownership.dims(), [6, 5 * 4]);
    assert!(host(ownership).iter().all(|v| (-1.0..=1.0).contains(v)));
    // A head not asked for is not run; a network without heads runs none.
    let only_reply = net.forward_with_aux(
        x(),
        AuxHeads {
            reply_policy: true,
            ownership: false,
        },
    );
    assert!(only_reply.reply_logits.is_some() && only_reply.ownership.is_none());
    let plain = tiny().init(&device).forward_with_aux(x(), BOTH);
    assert!(plain.reply_logits.is_none() && plain.ownership.is_none());
}

#[test]
fn num_params_counts_the_aux_heads() {
    let c = tiny().with_aux(BOTH);
    let net = c.init(&default_device());
    // burn also counts the batch-norm running mean and variance (2 per channel), the reply
    // head's batch norm included.
    let bn_channels = c.channels * (1 + 2 * c.residual_blocks)
        + c.policy_channels
        + c.value_channels
        + c.policy_channels;
    assert_eq!(net.num_params(), c.num_params() + 2 * bn_channels);
    assert!(c.num_params() > tiny().num_params());
    // Inference cost is the same with and without the training-only heads.
    assert_eq!(c.forward_macs(), tiny().forward_macs());
}

#[test]
fn aux_heads_learn_a_toy_batch_and_their_losses_enter_the_total() {
    let device = default_device();
    let config = tiny();
    let mut trainer = Trainer::new(&config, aux_train_config(0.15, 1.0), &device).unwrap();
    // A positive weight gives the network its head.
    assert_eq!(trainer.model_config().aux(), BOTH);
    assert_eq!(trainer.model().aux_heads(), BOTH);
    let batch = aux_batch(&config, 12, &mut Rng(17));
    let first = trainer.train_step(&batch).unwrap();
    let total = first.policy_loss
        + first.value_loss
        + 0.15 * first.aux_policy_loss
        + first.aux_ownership_loss;
    assert!((first.total_loss - total).abs() < 1e-4, "{first:?}");
    // An untrained reply head is about uniform over the 11 actions; an untrained ownership
    // head's squared error is about that of 0 against −1/0/+1.
    assert!(
        (first.aux_policy_loss - 11f32.ln()).abs() < 0.7,
        "{first:?}"
    );
    assert!(
        first.aux_ownership_loss > 0.3 && first.aux_ownership_loss < 1.5,
        "{first:?}"
    );
    let mut last = first;
    for _ in 0..60 {
        last = trainer.train_step(&batch).unwrap();
    }
    assert!(
        last.aux_policy_loss < 0.7 * first.aux_policy_loss,
        "reply loss {} -> {}",
        first.aux_policy_loss,
        last.aux_policy_loss
    );
    assert!(
        last.aux_ownership_loss < 0.7 * first.aux_ownership_loss,
        "ownership loss {} -> {}",
        first.aux_ownership_loss,
        last.aux_ownership_loss
    );
}

#[test]
fn the_aux_losses_change_the_trunk_only_when_weighted() {
    let device = default_device();
    let config = tiny().with_aux(BOTH);
    let batch = aux_batch(&config, 8, &mut Rng(23));
    let start = config.init(&device);
    let trunk_after = |policy: f32, ownership: f32| {
        let mut t = Trainer::from_model(
            start.clone(),
            &config,
            TrainerConfig {
                grad_clip_norm: None,
                weight_decay: 0.0,
                ..aux_train_config(policy, ownership)
            },
            &device,
            0,
        )
        .unwrap();
        let s = t.train_step(&batch).unwrap();
        let stem = tensors(t.model())
            .into_iter()
            .find(|(n, _)| n == "stem.weight")
            .unwrap()
            .1;
        (s, stem, aux_tensors(t.model()))
    };
    let (plain, stem_plain, heads_plain) = trunk_after(0.0, 0.0);
    let (_, stem_aux, heads_aux) = trunk_after(0.15, 1.0);
    // Unweighted heads are not run (their losses read 0) and do not move.
    assert_eq!(
        (plain.aux_policy_loss, plain.aux_ownership_loss),
        (0.0, 0.0)
    );
    assert_eq!(heads_plain, aux_tensors(&start));
    // Weighted, their gradient reaches the heads and the trunk.
    for ((name, a), (_, b)) in heads_aux.iter().zip(&aux_tensors(&start)) {
        // A conv bias that feeds a training-mode batch norm has an exactly zero gradient (the
        // norm subtracts the batch mean), so whether it moves is rounding noise.
        if name.ends_with("running_mean")
            || name.ends_with("running_var")
            || name == "aux_policy.conv.bias"
        {
            continue;
        }
        assert!(max_abs_diff(a, b) > 0.0, "{name} did not move");
    }
    assert!(max_abs_diff(&stem_aux, &stem_plain) > 0.0);
}

#[test]
fn batch_rejects_bad_aux_targets() {
    let mut b = Batch::with_capacity([3, 5, 4], 11, 2);
    let push = |b: &mut Batch, aux: AuxTargets<'_>| {
        b.push_with_aux(&[0.0; 60], &[true; 11], &[0.0; 11], 0.0, aux)
    };
    assert!(push(
        &mut b,
        AuxTargets {
            reply: Some(11),
            ownership: None
        }
    )
    .is_err());
    assert!(push(
        &mut b,
        AuxTargets {
            reply: None,
            ownership: Some(&[0.0; 19])
        }
    )
    .is_err());
    assert!(push(
        &mut b,
        AuxTargets {
            reply: None,
            ownership: Some(&[f32::NAN; 20])
        }
    )
    .is_err());
    assert!(b.is_empty());
    let map = [0.5; 20];
    push(
        &mut b,
        AuxTargets {
            reply: Some(10),
            ownership: Some(&map),
        },
    )
    .unwrap();
    b.push(&[0.0; 60], &[true; 11], &[0.0; 11], 0.0).unwrap();
    assert_eq!(b.reply_action(), &[Some(10), None]);
    assert_eq!(b.ownership(0), Some(&map[..]));
    assert_eq!(b.ownership(1), None);
}

fn models_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../models"))
}

/// The policy logits and values of `n` random Connect Four positions through the search's
/// evaluator.
fn evaluate(net: &PolicyValueNet, config: &ModelConfig, n: usize) -> (Vec<f32>, Vec<f32>) {
    let eval = NetworkEvaluator::<Connect4>::new(net, config, &default_device()).unwrap();
    let positions: Vec<Connect4> = (0..n)
        .map(|i| random_position(&Connect4Config, i % 20, &mut Rng(i as u64 + 1)))
        .collect();
    let reqs: Vec<EvalRequest<Connect4>> = positions
        .iter()
        .map(|position| EvalRequest {
            position,
            history: &[],
        })
        .collect();
    let mut logits = vec![0f32; n * config.num_actions];
    let mut values = vec![0f32; n];
    eval.evaluate(&reqs, &mut logits, &mut values).unwrap();
    (logits, values)
}

/// A Connect Four batch with auxiliary targets for the shipped network's shape.
fn connect4_batch(n: usize) -> Batch {
    let pos = Connect4::new(&Connect4Config);
    let (h, w) = pos.board_shape();
    let planes = Connect4::num_planes(&Connect4Config);
    let mut batch = Batch::with_capacity([planes, h, w], 7, n);
    let mut rng = Rng(99);
    for i in 0..n {
        let p: Connect4 = random_position(&Connect4Config, i % 12, &mut rng);
        let mut x = vec![0f32; planes * h * w];
        p.encode(0, &mut x);
        let map: Vec<f32> = (0..h * w).map(|_| rng.below(3) as f32 - 1.0).collect();
        batch
            .push_with_aux(
                &x,
                &[true; 7],
                &[1.0 / 7.0; 7],
                0.0,
                AuxTargets {
                    reply: Some(rng.below(7)),
                    ownership: Some(&map),
                },
            )
            .unwrap();
    }
    batch
}

#[test]
fn an_old_checkpoint_without_aux_heads_loads_and_resumes_with_them() {
    let device = default_device();
    let ck = load_checkpoint(&models_dir().join("connect4.azc"), "connect4", &device).unwrap();
    // Written before the heads: its header has no `aux_heads`, its network none.
    assert_eq!(ck.header.model.aux_heads, None);
    assert_eq!(ck.model.aux_heads(), AuxHeads::default());
    let config = ck.header.model.clone();
    let before = evaluate(&ck.model, &config, 9);
    let shipped = ck.model.clone();

    let mut trainer = ck
        .into_trainer(Some(aux_train_config(0.15, 1.0)), &device)
        .unwrap();
    assert_eq!(trainer.model_config().aux(), BOTH);
    assert_eq!(trainer.model_config().without_aux(), config);
    // The grafted heads leave what play computes unchanged.
    let grafted = trainer.inference_model();
    let after = evaluate(&grafted, &config, 9);
    assert_eq!(before, after);
    assert_eq!(
        tensors(&grafted.clone().without_aux_heads()),
        tensors(&shipped)
    );
    let s = trainer.train_step(&connect4_batch(16)).unwrap();
    assert!(
        s.aux_policy_loss > 0.0 && s.aux_ownership_loss > 0.0,
        "{s:?}"
    );

    // Saved with its heads, resumed with them (the saved weights and training config).
    let dir = temp_dir("aux-resume");
    let path = dir.join("latest.azc");
    save_checkpoint(&path, &GameSpec::Connect4, &trainer).unwrap();
    let back = load_checkpoint(&path, "connect4", &device).unwrap();
    assert_eq!(back.header.model.aux(), BOTH);
    assert_eq!(back.model.aux_heads(), BOTH);
    assert_eq!(
        aux_tensors(&back.model),
        aux_tensors(&trainer.inference_model())
    );
    let mut resumed = back.into_trainer(None, &device).unwrap();
    assert_eq!(resumed.config().aux_policy_weight, 0.15);
    assert_eq!(resumed.model_config().aux(), BOTH);
    resumed.train_step(&connect4_batch(16)).unwrap();
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_checkpoint_with_aux_heads_loads_for_play_and_plays_as_without_them() {
    let device = default_device();
    let config = ModelConfig::for_game::<Connect4>(ModelPreset::Tiny, &Connect4Config);
    let mut trainer = Trainer::new(&config, aux_train_config(0.15, 1.0), &device).unwrap();
    for _ in 0..3 {
        trainer.train_step(&connect4_batch(16)).unwrap();
    }
    let dir = temp_dir("aux-play");
    let path = dir.join("net.azc");
    save_checkpoint(&path, &GameSpec::Connect4, &trainer).unwrap();
    let ck = load_checkpoint(&path, "connect4", &device).unwrap();
    assert_eq!(ck.model.aux_heads(), BOTH);
    let with = evaluate(&ck.model, &ck.header.model, 7);
    let stripped = ck.model.clone().without_aux_heads();
    let without = evaluate(&stripped, &config, 7);
    assert_eq!(with, without);
    // The folded inference path takes the network with its heads as well.
    FoldedNet::new(&ck.model, &ck.header.model).unwrap();
    // An exported network is the one play runs: no auxiliary tensor, none described.
    let exported =
        export_network::<Connect4>(&ck.model, &ck.header, &Connect4Config, "net.azc").unwrap();
    let names: Vec<String> = safetensors::SafeTensors::deserialize(&exported.safetensors)
        .unwrap()
        .names()
        .into_iter()
        .map(str::to_string)
        .collect();
    assert_eq!(names.len(), tensors(&stripped).len());
    assert!(!names.iter().any(|n| n.starts_with("aux_")), "{names:?}");
    let text = exported.description.to_string();
    assert!(!text.contains("aux_policy") && !text.contains("aux_ownership"));

    // A network file records the heads its network has, whatever config it is given.
    let play = dir.join("play.azc");
    save_model(&play, &GameSpec::Connect4, &ck.model, &config, 3).unwrap();
    let back = load_checkpoint(&play, "connect4", &device).unwrap();
    assert_eq!(back.header.model.aux(), BOTH);
    save_model(&play, &GameSpec::Connect4, &stripped, &ck.header.model, 3).unwrap();
    let back = load_checkpoint(&play, "connect4", &device).unwrap();
    assert_eq!(back.header.model.aux_heads, None);
    assert_eq!(evaluate(&back.model, &back.header.model, 7), without);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn heads_turned_on_mid_run_are_added_and_never_removed() {
    let device = default_device();
    let config = tiny();
    let mut trainer = Trainer::new(&config, aux_train_config(0.0, 0.0), &device).unwrap();
    assert_eq!(trainer.model().aux_heads(), AuxHeads::default());
    assert_eq!(trainer.model_config().aux_heads, None);
    trainer.set_config(aux_train_config(0.0, 1.0)).unwrap();
    let own = AuxHeads {
        reply_policy: false,
        ownership: true,
    };
    assert_eq!(trainer.model().aux_heads(), own);
    assert_eq!(trainer.model_config().aux(), own);
    let batch = aux_batch(&config, 6, &mut Rng(4));
    let s = trainer.train_step(&batch).unwrap();
    assert!(s.aux_ownership_loss > 0.0 && s.aux_policy_loss == 0.0);
    // Off again: the head stays (a checkpoint keeps it), untrained.
    trainer.set_config(aux_train_config(0.0, 0.0)).unwrap();
    assert_eq!(trainer.model().aux_heads(), own);
    let s = trainer.train_step(&batch).unwrap();
    assert_eq!(s.aux_ownership_loss, 0.0);
    assert!(TrainerConfig {
        aux_policy_weight: -1.0,
        ..TrainerConfig::default()
    }
    .validate()
    .is_err());
    assert!(TrainerConfig {
        aux_ownership_weight: f32::NAN,
        ..TrainerConfig::default()
    }
    .validate()
    .is_err());
}
