//! The network on burn's wgpu backend against the CPU path: the shipped networks' outputs and
//! a training step. Built only with the `wgpu` feature and run where a wgpu adapter answers
//! (CI: Mesa's lavapipe, a software Vulkan device, so these check the wgpu code path, shader
//! compilation and autodiff on the device included, not a GPU's speed).
#![cfg(feature = "wgpu")]

mod common;

use std::path::{Path, PathBuf};

use alphazero_mcts::{EvalRequest, Evaluator};
use alphazero_nn::{
    device_from_name, evaluate_loss, load_any_checkpoint, Device, Encode, NetworkEvaluator,
    NnError, TrainerConfig,
};
use alphazero_registry::with_game;
use common::{max_abs_diff, random_batch, random_position, Rng};

/// Positions compared per shipped network.
const POSITIONS: usize = 128;
/// Positions per evaluator call (as a search sends its leaves).
const BATCH: usize = 32;
/// Largest difference allowed between the device's and the CPU's policy logits, relative to
/// the largest logit magnitude of the batch: the device sums the convolutions in another
/// order (and the CPU path folds batch norm into them), so f32 rounding differs. lavapipe
/// stays under 2e-6 on every shipped network.
const LOGIT_TOLERANCE: f32 = 1e-4;
/// Largest difference allowed between the device's and the CPU's values (in [-1, 1]);
/// lavapipe stays under 6e-6.
const VALUE_TOLERANCE: f32 = 1e-4;

fn wgpu() -> Device {
    device_from_name("wgpu").expect("a wgpu adapter (install mesa-vulkan-drivers for lavapipe)")
}

fn shipped_networks() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "azc"))
        .collect();
    paths.sort();
    paths
}

/// Largest differences (logits relative to the batch's largest logit, values absolute) of the
/// device's evaluator against the CPU's on `POSITIONS` random positions of `G`.
fn largest_differences<G: Encode>(config: &G::Config, path: &Path, device: &Device) -> (f32, f32) {
    let cpu = Device::flex();
    let ck = load_any_checkpoint(path, &cpu).unwrap();
    let m = &ck.header.model;
    let on_cpu = NetworkEvaluator::<G>::new(&ck.model, m, &cpu).unwrap();
    let on_device = NetworkEvaluator::<G>::new(&ck.model, m, device).unwrap();
    let mut rng = Rng(55);
    let positions: Vec<G> = (0..POSITIONS)
        .map(|_| {
            let plies = rng.below(60);
            random_position::<G>(config, plies, &mut rng)
        })
        .collect();
    let (mut logits_diff, mut values_diff) = (0.0f32, 0.0f32);
    for chunk in positions.chunks(BATCH) {
        let requests: Vec<EvalRequest<'_, G>> = chunk
            .iter()
            .map(|position| EvalRequest {
                position,
                history: &[],
            })
            .collect();
        let run = |e: &NetworkEvaluator<G>| {
            let mut logits = vec![0.0; chunk.len() * m.num_actions];
            let mut values = vec![0.0; chunk.len()];
            e.evaluate(&requests, &mut logits, &mut values).unwrap();
            (logits, values)
        };
        let (cpu_logits, cpu_values) = run(&on_cpu);
        let (dev_logits, dev_values) = run(&on_device);
        let scale = cpu_logits.iter().fold(1.0f32, |s, l| s.max(l.abs()));
        logits_diff = logits_diff.max(max_abs_diff(&cpu_logits, &dev_logits) / scale);
        values_diff = values_diff.max(max_abs_diff(&cpu_values, &dev_values));
    }
    (logits_diff, values_diff)
}

#[test]
fn wgpu_shipped_networks_match_the_cpu_path() {
    let device = wgpu();
    let paths = shipped_networks();
    assert!(paths.len() >= 3, "{paths:?}");
    for path in paths {
        let game = load_any_checkpoint(&path, &Device::flex())
            .unwrap()
            .header
            .game;
        let (logits, values) =
            with_game!(&game, G, cfg => largest_differences::<G>(cfg, &path, &device));
        // Printed for the record (`-- --nocapture`): the margins under the tolerances.
        eprintln!(
            "{}: {POSITIONS} positions, largest difference: logits {logits:.2e} (relative), \
             values {values:.2e}",
            path.file_name().unwrap().to_string_lossy()
        );
        assert!(
            logits <= LOGIT_TOLERANCE && values <= VALUE_TOLERANCE,
            "{}: logits {logits}, values {values}",
            path.display()
        );
    }
}

/// Relative difference of two losses.
fn relative(a: f32, b: f32) -> f32 {
    (a - b).abs() / a.abs().max(b.abs()).max(1e-6)
}

#[test]
fn wgpu_training_steps_lower_the_loss_as_on_the_cpu() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/connect4.azc");
    let config = TrainerConfig {
        learning_rate: 1e-2,
        ..TrainerConfig::default()
    };
    let mut runs = Vec::new();
    for device in [Device::flex(), wgpu()] {
        let ck = load_any_checkpoint(&path, &Device::flex()).unwrap();
        let m = ck.header.model.clone();
        // The same batch on both devices.
        let batch = random_batch(&m, 64, &mut Rng(7));
        let mut trainer = ck.into_trainer(Some(config.clone()), &device).unwrap();
        let before = evaluate_loss(
            &trainer.inference_model(),
            &m,
            config.value_loss_weight,
            &batch,
            &device,
        )
        .unwrap()
        .total_loss;
        let steps: Vec<f32> = (0..3)
            .map(|_| trainer.train_step(&batch).unwrap().total_loss)
            .collect();
        let after = evaluate_loss(
            &trainer.inference_model(),
            &m,
            config.value_loss_weight,
            &batch,
            &device,
        )
        .unwrap()
        .total_loss;
        eprintln!("{device:?}: loss {before} → steps {steps:?} → {after}");
        assert!(after < before, "{device:?}: {before} → {after}");
        runs.push((before, steps, after));
    }
    // The same loss before training; the steps' rounding differences grow from step to step
    // (the optimizer divides each gradient by its running scale, so the smallest components
    // move by as much as the largest), so each later figure gets a wider margin. lavapipe:
    // 4e-7 before, 2e-4 at the third step, 1.7e-3 after it.
    let (cpu, dev) = (&runs[0], &runs[1]);
    assert!(relative(cpu.0, dev.0) < 1e-5, "{cpu:?} {dev:?}");
    for (c, d) in cpu.1.iter().zip(&dev.1) {
        assert!(relative(*c, *d) < 2e-3, "{cpu:?} {dev:?}");
    }
    assert!(relative(cpu.2, dev.2) < 1e-2, "{cpu:?} {dev:?}");
}

#[test]
fn wgpu_device_names_parse_and_absent_adapters_are_refused() {
    assert!(device_from_name("wgpu").is_ok());
    assert!(device_from_name("wgpu:0").is_ok());
    match device_from_name("wgpu:99") {
        Err(NnError::NoAdapter { reason, .. }) => assert!(reason.contains("wgpu:0"), "{reason}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        device_from_name("wgpu:x"),
        Err(NnError::UnknownDevice(_))
    ));
}
