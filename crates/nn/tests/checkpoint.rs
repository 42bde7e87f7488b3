//! Checkpoint round trips, resuming, and every error case.

mod common;

use std::path::Path;

use alphazero_nn::checkpoint::FORMAT_VERSION;
use alphazero_nn::{
    default_device, load_checkpoint, save_checkpoint, save_model, CheckpointError, ModelConfig,
    ModelPreset, PolicyValueNet, Trainer, TrainerConfig,
};
use alphazero_registry::games::Rule;
use alphazero_registry::GameSpec;
use burn::module::{Module, ModuleVisitor, Param};
use burn::tensor::Tensor;
use common::{max_abs_diff, random_batch, temp_dir, Rng};

fn config() -> ModelConfig {
    ModelConfig::preset(ModelPreset::Tiny, 3, 5, 4, 11).with_residual_blocks(2)
}

/// The game the test checkpoints name (the networks do not fit it: the header is not checked
/// against the model's shapes).
fn tag() -> GameSpec {
    GameSpec::Gomoku {
        size: 5,
        rule: Rule::Standard,
    }
}

/// Every float tensor of the module (parameters and batch-norm running statistics) by path.
fn tensors(net: &PolicyValueNet) -> Vec<(String, Vec<f32>)> {
    struct V {
        stack: Vec<String>,
        out: Vec<(String, Vec<f32>)>,
    }
    impl ModuleVisitor for V {
        fn enter_module(&mut self, name: &str, _: &str) {
            self.stack.push(name.to_string());
        }
        fn exit_module(&mut self, _: &str, _: &str) {
            self.stack.pop();
        }
        fn visit_float<const D: usize>(&mut self, p: &Param<Tensor<D>>) {
            let v = p.val().into_data().try_into_vec::<f32>().unwrap();
            self.out.push((self.stack.join("."), v));
        }
    }
    let mut v = V {
        stack: vec![],
        out: vec![],
    };
    net.visit(&mut v);
    v.out
}

fn trained(steps: usize) -> Trainer {
    let device = default_device();
    let mut trainer = Trainer::new(&config(), TrainerConfig::default(), &device).unwrap();
    let batch = random_batch(&config(), 8, &mut Rng(21));
    for _ in 0..steps {
        trainer.train_step(&batch).unwrap();
    }
    trainer
}

fn outputs(net: &PolicyValueNet) -> (Vec<f32>, Vec<f32>) {
    let batch = random_batch(&config(), 6, &mut Rng(99));
    net.predict(&config(), batch.planes(), &default_device())
        .unwrap()
}

#[test]
fn saved_and_loaded_network_gives_the_live_networks_eval_outputs() {
    let dir = temp_dir("roundtrip");
    let path = dir.join("net.ckpt");
    let trainer = trained(5);
    save_checkpoint(&path, &tag(), &trainer).unwrap();
    let ckpt = load_checkpoint(&path, "gomoku", &default_device()).unwrap();
    assert_eq!(ckpt.header.step, 5);
    assert_eq!(ckpt.header.model, config());
    assert_eq!(ckpt.header.game, tag());
    assert_eq!(ckpt.header.train, Some(TrainerConfig::default()));
    assert!(ckpt.optimizer_state.is_some());

    let live = outputs(&trainer.inference_model());
    let loaded = outputs(&ckpt.model);
    assert!(max_abs_diff(&live.0, &loaded.0) <= 1e-5);
    assert!(max_abs_diff(&live.1, &loaded.1) <= 1e-5);
}

/// burn 0.22 keeps the batch-norm running statistics of the last training step pending until
/// the module is synchronised; a checkpoint must hold the up-to-date statistics, not the
/// ones of the step before.
#[test]
fn checkpoint_holds_batch_norm_running_statistics_of_the_last_step() {
    let dir = temp_dir("bnstats");
    let path = dir.join("net.ckpt");
    let trainer = trained(3);
    save_checkpoint(&path, &tag(), &trainer).unwrap();
    let loaded = load_checkpoint(&path, "gomoku", &default_device()).unwrap();
    let live = tensors(&trainer.inference_model());
    let back = tensors(&loaded.model);
    assert_eq!(live.len(), back.len());
    let mut running = 0;
    for ((name_a, a), (name_b, b)) in live.iter().zip(&back) {
        assert_eq!(name_a, name_b);
        assert_eq!(a, b, "tensor {name_a} differs after the round trip");
        if name_a.contains("running") {
            running += 1;
        }
    }
    assert!(
        running >= 2 * 6,
        "running statistics are saved ({running} found)"
    );
    // And they are not the initial ones (mean 0, var 1): training moved them.
    let mean = &live
        .iter()
        .find(|(n, _)| n == "stem_bn.running_mean")
        .unwrap()
        .1;
    assert!(mean.iter().any(|&m| m != 0.0));
}

#[test]
fn resumed_training_continues_exactly_like_uninterrupted_training() {
    let dir = temp_dir("resume");
    let path = dir.join("net.ckpt");
    let mut a = trained(3);
    save_checkpoint(&path, &tag(), &a).unwrap();
    let mut b = load_checkpoint(&path, "gomoku", &default_device())
        .unwrap()
        .into_trainer(None, &default_device())
        .unwrap();
    assert_eq!(b.step(), 3);
    let batch = random_batch(&config(), 8, &mut Rng(1234));
    for _ in 0..3 {
        let sa = a.train_step(&batch).unwrap();
        let sb = b.train_step(&batch).unwrap();
        assert!(
            (sa.total_loss - sb.total_loss).abs() < 1e-5,
            "{sa:?} vs {sb:?}"
        );
    }
    let oa = outputs(&a.inference_model());
    let ob = outputs(&b.inference_model());
    assert!(max_abs_diff(&oa.0, &ob.0) < 1e-4);
    assert!(max_abs_diff(&oa.1, &ob.1) < 1e-4);
}

#[test]
fn model_only_checkpoint_has_no_optimizer_state() {
    let dir = temp_dir("modelonly");
    let path = dir.join("net.ckpt");
    let trainer = trained(2);
    save_model(&path, &tag(), &trainer.inference_model(), &config(), 2).unwrap();
    let c = load_checkpoint(&path, "gomoku", &default_device()).unwrap();
    assert!(c.optimizer_state.is_none() && c.header.train.is_none());
    let live = outputs(&trainer.inference_model());
    assert!(max_abs_diff(&live.0, &outputs(&c.model).0) <= 1e-5);
}

#[test]
fn saving_over_an_existing_checkpoint_replaces_it_and_leaves_no_temporary_file() {
    let dir = temp_dir("atomic");
    let path = dir.join("net.ckpt");
    save_checkpoint(&path, &tag(), &trained(1)).unwrap();
    save_checkpoint(&path, &tag(), &trained(2)).unwrap();
    assert_eq!(
        load_checkpoint(&path, "gomoku", &default_device())
            .unwrap()
            .header
            .step,
        2
    );
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

fn saved_bytes(dir: &Path) -> Vec<u8> {
    let path = dir.join("orig.ckpt");
    save_checkpoint(&path, &tag(), &trained(1)).unwrap();
    std::fs::read(path).unwrap()
}

fn load_bytes(dir: &Path, bytes: &[u8]) -> Result<(), CheckpointError> {
    let path = dir.join("bad.ckpt");
    std::fs::write(&path, bytes).unwrap();
    load_checkpoint(&path, "gomoku", &default_device()).map(|_| ())
}

#[test]
fn wrong_game_is_an_error() {
    let dir = temp_dir("wronggame");
    let path = dir.join("net.ckpt");
    save_checkpoint(&path, &tag(), &trained(1)).unwrap();
    match load_checkpoint(&path, "xiangqi", &default_device()) {
        Err(CheckpointError::WrongGame {
            expected, found, ..
        }) => {
            assert_eq!((expected.as_str(), found.as_str()), ("xiangqi", "gomoku"));
        }
        other => panic!("expected WrongGame, got {other:?}"),
    }
}

#[test]
fn bad_magic_is_an_error() {
    let dir = temp_dir("magic");
    let mut bytes = saved_bytes(&dir);
    bytes[0] = b'X';
    assert!(matches!(
        load_bytes(&dir, &bytes),
        Err(CheckpointError::BadMagic { .. })
    ));
    assert!(matches!(
        load_bytes(&dir, b"AZ"),
        Err(CheckpointError::BadMagic { .. })
    ));
}

#[test]
fn unsupported_version_is_an_error() {
    let dir = temp_dir("version");
    let mut bytes = saved_bytes(&dir);
    bytes[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    match load_bytes(&dir, &bytes) {
        Err(CheckpointError::UnsupportedVersion { found, .. }) => {
            assert_eq!(found, FORMAT_VERSION + 1)
        }
        other => panic!("expected UnsupportedVersion, got {other:?}"),
    }
}

#[test]
fn truncated_files_are_errors_at_every_length() {
    let dir = temp_dir("truncated");
    let bytes = saved_bytes(&dir);
    let cuts = [
        12,
        13,
        20,
        100,
        bytes.len() / 2,
        bytes.len() - 9,
        bytes.len() - 1,
    ];
    for cut in cuts {
        match load_bytes(&dir, &bytes[..cut]) {
            Err(CheckpointError::Truncated { .. }) => {}
            other => panic!("cut at {cut}: expected Truncated, got {other:?}"),
        }
    }
}

#[test]
fn flipped_bytes_are_detected_by_the_checksum() {
    let dir = temp_dir("corrupt");
    let mut bytes = saved_bytes(&dir);
    let i = bytes.len() - 100;
    bytes[i] ^= 0x40;
    assert!(matches!(
        load_bytes(&dir, &bytes),
        Err(CheckpointError::Corrupt { .. })
    ));
}

#[test]
fn missing_file_is_an_io_error() {
    let dir = temp_dir("missing");
    assert!(matches!(
        load_checkpoint(&dir.join("nope.ckpt"), "gomoku", &default_device()),
        Err(CheckpointError::Io { .. })
    ));
}

/// Rewrites the header of a checkpoint (and its checksum) to claim another model shape.
fn with_header_model(bytes: &[u8], model: &ModelConfig) -> Vec<u8> {
    let hlen = u64::from_le_bytes(bytes[12..20].try_into().unwrap()) as usize;
    let mut header: serde_json::Value = serde_json::from_slice(&bytes[20..20 + hlen]).unwrap();
    header["model"] = serde_json::to_value(model).unwrap();
    let new_header = serde_json::to_vec(&header).unwrap();
    let mut out = bytes[..12].to_vec();
    out.extend_from_slice(&(new_header.len() as u64).to_le_bytes());
    out.extend_from_slice(&new_header);
    out.extend_from_slice(&bytes[20 + hlen..bytes.len() - 8]);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in &out {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    out.extend_from_slice(&h.to_le_bytes());
    out
}

#[test]
fn shape_mismatch_names_the_tensor_and_both_shapes() {
    let dir = temp_dir("shape");
    let bytes = saved_bytes(&dir);
    let wider = config().with_channels(12);
    match load_bytes(&dir, &with_header_model(&bytes, &wider)) {
        Err(CheckpointError::ShapeMismatch {
            tensor,
            expected,
            found,
            ..
        }) => {
            assert!(!tensor.is_empty());
            assert_ne!(expected, found);
            assert!(
                expected.contains(&12) && found.contains(&8),
                "{expected:?} {found:?}"
            );
            let msg = CheckpointError::ShapeMismatch {
                path: "x".into(),
                tensor: tensor.clone(),
                expected,
                found,
            }
            .to_string();
            assert!(msg.contains(&tensor));
        }
        other => panic!("expected ShapeMismatch, got {other:?}"),
    }
}

#[test]
fn missing_and_unexpected_tensors_are_errors() {
    let dir = temp_dir("structure");
    let bytes = saved_bytes(&dir);
    let deeper = config().with_residual_blocks(3);
    assert!(matches!(
        load_bytes(&dir, &with_header_model(&bytes, &deeper)),
        Err(CheckpointError::MissingTensor { .. })
    ));
    let shallower = config().with_residual_blocks(1);
    assert!(matches!(
        load_bytes(&dir, &with_header_model(&bytes, &shallower)),
        Err(CheckpointError::UnexpectedTensor { .. })
    ));
}

#[test]
fn malformed_header_is_an_error() {
    let dir = temp_dir("header");
    let bytes = saved_bytes(&dir);
    let zero = ModelConfig {
        channels: 0,
        ..config()
    };
    assert!(matches!(
        load_bytes(&dir, &with_header_model(&bytes, &zero)),
        Err(CheckpointError::BadHeader { .. })
    ));
}

/// A checkpoint written by the build before the game registry (its header names the game as
/// `{"name": "gomoku", "config": "GomokuConfig { size: 7, rule: Renju, .. }"}`): written by
/// `alphazero train --game gomoku --size 7 --rule renju` at commit fb8cf69.
const PRE_REGISTRY_CHECKPOINT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/legacy/gomoku-7x7-renju.azc"
);

#[test]
fn checkpoint_written_before_the_registry_reads_its_game_as_a_spec() {
    let bytes = std::fs::read(PRE_REGISTRY_CHECKPOINT).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains(r#""name":"gomoku","config":"GomokuConfig {"#));
    let ck = load_checkpoint(
        Path::new(PRE_REGISTRY_CHECKPOINT),
        "gomoku",
        &default_device(),
    )
    .unwrap();
    let spec = GameSpec::Gomoku {
        size: 7,
        rule: Rule::Renju,
    };
    assert_eq!(ck.header.game, spec);
    // Saved again, the header holds the spec's table and reads back the same.
    let dir = temp_dir("pre_registry");
    let path = dir.join("again.ckpt");
    save_model(
        &path,
        &ck.header.game,
        &ck.model,
        &ck.header.model,
        ck.header.step,
    )
    .unwrap();
    let again = std::fs::read(&path).unwrap();
    assert!(String::from_utf8_lossy(&again)
        .contains(r#""game":{"game":"gomoku","size":7,"rule":"renju"}"#));
    let back = load_checkpoint(&path, "gomoku", &default_device()).unwrap();
    assert_eq!(back.header.game, spec);
}

/// The shipped Connect Four network, written before global pooling existed: its header has
/// no `global_pooling` field.
const SHIPPED_CONNECT4: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/connect4.azc");

#[test]
fn checkpoints_written_before_global_pooling_load_without_it() {
    let bytes = std::fs::read(SHIPPED_CONNECT4).unwrap();
    assert!(!String::from_utf8_lossy(&bytes).contains("global_pooling"));
    let device = default_device();
    let ck = load_checkpoint(Path::new(SHIPPED_CONNECT4), "connect4", &device).unwrap();
    assert_eq!(ck.header.model.global_pooling, None);
    assert!(tensors(&ck.model)
        .iter()
        .all(|(name, _)| !name.contains("pool")));
    // It still evaluates, on both forward paths alike.
    let m = &ck.header.model;
    let planes = random_batch(m, 3, &mut Rng(5)).planes().to_vec();
    let (logits, values) = ck.model.predict(m, &planes, &device).unwrap();
    let folded = alphazero_nn::FoldedNet::new(&ck.model, m).unwrap();
    let (mut l2, mut v2) = (vec![0.0; logits.len()], vec![0.0; values.len()]);
    folded.forward(&planes, &mut l2, &mut v2).unwrap();
    assert!(max_abs_diff(&logits, &l2) < 1e-3 && max_abs_diff(&values, &v2) < 1e-4);
}

/// Trains a network of `config` for three steps, saves it as `dir/net.ckpt` (a new temporary
/// folder named `name`) and loads it back: its header's model must be `config` and its
/// outputs the live network's. Returns the folder, the file and the loaded names of tensors.
fn round_trip(
    config: &ModelConfig,
    name: &str,
    seed: u64,
) -> (std::path::PathBuf, std::path::PathBuf, Vec<String>) {
    let device = default_device();
    let mut trainer = Trainer::new(config, TrainerConfig::default(), &device).unwrap();
    let batch = random_batch(config, 8, &mut Rng(seed));
    for _ in 0..3 {
        trainer.train_step(&batch).unwrap();
    }
    let dir = temp_dir(name);
    let path = dir.join("net.ckpt");
    save_checkpoint(&path, &tag(), &trainer).unwrap();
    let ck = load_checkpoint(&path, "gomoku", &device).unwrap();
    assert_eq!(&ck.header.model, config);
    let planes = random_batch(config, 4, &mut Rng(seed + 1))
        .planes()
        .to_vec();
    let live = trainer
        .inference_model()
        .predict(config, &planes, &device)
        .unwrap();
    let loaded = ck.model.predict(config, &planes, &device).unwrap();
    assert!(max_abs_diff(&live.0, &loaded.0) <= 1e-5);
    assert!(max_abs_diff(&live.1, &loaded.1) <= 1e-5);
    let names = tensors(&ck.model).into_iter().map(|(n, _)| n).collect();
    (dir, path, names)
}

#[test]
fn checkpoint_with_global_pooling_round_trips_its_config_and_outputs() {
    let config = config().with_default_global_pooling();
    assert!(config.global_pooling.is_some());
    let (dir, path, names) = round_trip(&config, "pooled", 22);
    assert!(
        names.iter().any(|n| n == "blocks.1.pool_fc.weight"),
        "{names:?}"
    );
    // The same weights under a header without pooling are refused, naming the tensor.
    let bytes = std::fs::read(&path).unwrap();
    let plain = ModelConfig {
        global_pooling: None,
        ..config.clone()
    };
    match load_bytes(&dir, &with_header_model(&bytes, &plain)) {
        Err(CheckpointError::ShapeMismatch { tensor, .. }) => {
            assert!(tensor.contains("conv2"), "{tensor}")
        }
        Err(CheckpointError::UnexpectedTensor { tensor, .. }) => {
            assert!(tensor.contains("pool_fc"), "{tensor}")
        }
        r => panic!("expected a tensor error, got {r:?}"),
    }
}

/// A network with a convolutional policy head: its layout travels in the header (the
/// checkpoint describes itself), it loads back with the same outputs, the shipped networks
/// (written before the field existed) still load with the dense head, and its weights under
/// a dense header are refused naming a tensor.
#[test]
fn checkpoint_with_a_conv_policy_head_round_trips_its_layout_and_outputs() {
    use alphazero_registry::games::{Gomoku, GomokuConfig};
    let gomoku = GomokuConfig::new(5, Rule::Standard).unwrap();
    let config = ModelConfig::for_game::<Gomoku>(ModelPreset::Tiny, &gomoku)
        .with_conv_policy::<Gomoku>(&gomoku)
        .unwrap();
    let (dir, path, names) = round_trip(&config, "conv-policy", 41);
    assert!(names.iter().any(|n| n == "policy_out.weight"), "{names:?}");
    assert!(
        !names.iter().any(|n| n.starts_with("policy_fc")),
        "{names:?}"
    );
    let bytes = std::fs::read(&path).unwrap();
    let dense = ModelConfig {
        policy_planes: None,
        ..config.clone()
    };
    match load_bytes(&dir, &with_header_model(&bytes, &dense)) {
        Err(CheckpointError::MissingTensor { tensor, .. })
        | Err(CheckpointError::UnexpectedTensor { tensor, .. }) => {
            assert!(tensor.contains("policy"), "{tensor}")
        }
        r => panic!("expected a tensor error, got {r:?}"),
    }
    let shipped =
        load_checkpoint(Path::new(SHIPPED_CONNECT4), "connect4", &default_device()).unwrap();
    assert_eq!(shipped.header.model.policy_planes, None);
}

/// A network with a pooled value head (`ValuePool::MeanMax`): the pooling travels in the
/// header and the network loads back with the same outputs; the shipped networks (written
/// before the field existed) load with the flattened value head; the pooled weights under a
/// flattened header are refused naming the value layer.
#[test]
fn checkpoint_with_a_pooled_value_head_round_trips_its_config_and_outputs() {
    use alphazero_nn::ValuePool;
    let mut config = config().with_value_pool(Some(ValuePool::MeanMax));
    config.value_channels = 4;
    let (dir, path, _) = round_trip(&config, "pooled-value", 71);
    let bytes = std::fs::read(&path).unwrap();
    let flat = ModelConfig {
        value_pool: None,
        ..config.clone()
    };
    match load_bytes(&dir, &with_header_model(&bytes, &flat)) {
        Err(CheckpointError::ShapeMismatch { tensor, .. }) => {
            assert!(tensor.contains("value_fc1"), "{tensor}")
        }
        r => panic!("expected a shape error, got {r:?}"),
    }
    let shipped =
        load_checkpoint(Path::new(SHIPPED_CONNECT4), "connect4", &default_device()).unwrap();
    assert_eq!(shipped.header.model.value_pool, None);
}
