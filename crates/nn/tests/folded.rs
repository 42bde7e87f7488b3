//! The folded CPU inference path against burn's eval-mode forward (the slow reference), on
//! trained networks (so batch norm has non-trivial running statistics, γ and β) of every
//! game's shape, at batch sizes below, at and above the row tile.

mod common;

use alphazero_connect4::{Connect4, Connect4Config};
use alphazero_game::Game;
use alphazero_gomoku::{Gomoku, GomokuConfig};
use alphazero_mcts::{EvalRequest, Evaluator};
use alphazero_nn::{
    default_device, Conv3x3Algorithm, Encode, FoldedNet, GlobalPooling, ModelConfig, ModelPreset,
    NetworkEvaluator, NnError, PolicyValueNet, Tile, Trainer, TrainerConfig, ValuePool,
};
use alphazero_xiangqi::{Xiangqi, XiangqiConfig};
use common::{max_abs_diff, random_batch, random_position, Rng};

/// A network of `config` after a few AdamW steps on random batches (moves γ, β and the
/// running mean/var away from their initial 1, 0, 0, 1).
fn trained(config: &ModelConfig, steps: usize, seed: u64) -> Trainer {
    let device = default_device();
    let train = TrainerConfig {
        learning_rate: 0.02,
        ..TrainerConfig::default()
    };
    let mut trainer = Trainer::new(config, train, &device).unwrap();
    let mut rng = Rng(seed);
    for _ in 0..steps {
        let batch = random_batch(config, 16, &mut rng);
        trainer.train_step(&batch).unwrap();
    }
    trainer
}

fn random_planes(config: &ModelConfig, b: usize, rng: &mut Rng) -> Vec<f32> {
    let per = config.input_planes * config.board_height * config.board_width;
    (0..b * per).map(|_| rng.below(2) as f32).collect()
}

/// Largest difference relative to the reference's scale.
fn assert_close(fast: &[f32], reference: &[f32], what: &str) {
    let scale = reference.iter().fold(1.0f32, |m, v| m.max(v.abs()));
    let diff = max_abs_diff(fast, reference);
    assert!(
        diff <= 1e-4 * scale,
        "{what}: folded differs from burn by {diff} (scale {scale})"
    );
}

fn check_against_burn(config: &ModelConfig, batches: &[usize], seed: u64) {
    check_algorithm_against_burn(config, batches, seed, Conv3x3Algorithm::Auto);
}

fn check_algorithm_against_burn(
    config: &ModelConfig,
    batches: &[usize],
    seed: u64,
    algorithm: Conv3x3Algorithm,
) {
    let trainer = trained(config, 4, seed);
    let net = trainer.model();
    let folded = FoldedNet::with_algorithm(net, config, algorithm).unwrap();
    let device = default_device();
    let mut rng = Rng(seed ^ 0x5eed);
    for &b in batches {
        let planes = random_planes(config, b, &mut rng);
        let (ref_logits, ref_values) = net.predict(config, &planes, &device).unwrap();
        let mut logits = vec![0.0; b * config.num_actions];
        let mut values = vec![0.0; b];
        folded.forward(&planes, &mut logits, &mut values).unwrap();
        assert_close(
            &logits,
            &ref_logits,
            &format!("{config} logits at batch {b}"),
        );
        assert_close(
            &values,
            &ref_values,
            &format!("{config} values at batch {b}"),
        );
    }
}

#[test]
fn folded_forward_matches_burn_on_a_trained_tiny_gomoku_net() {
    let config = ModelConfig::for_game::<Gomoku>(ModelPreset::Tiny, &GomokuConfig::default());
    check_against_burn(&config, &[1, 3, 17], 1);
}

#[test]
fn folded_forward_matches_burn_on_a_trained_connect4_net_across_row_tiles() {
    // 6×7 = 42 rows a position: batch 7 spans three 128-row tiles with a ragged last tile.
    let config = ModelConfig::for_game::<Connect4>(ModelPreset::Small, &Connect4Config);
    check_against_burn(&config, &[1, 2, 7, 64], 2);
}

#[test]
fn folded_forward_matches_burn_on_a_trained_xiangqi_net() {
    let config = ModelConfig::for_game::<Xiangqi>(ModelPreset::Tiny, &XiangqiConfig::default());
    check_against_burn(&config, &[1, 5], 3);
}

#[test]
fn folded_forward_matches_burn_with_wider_heads() {
    // Two-channel value head and three-channel policy head exercise the NHWC re-ordering of
    // the heads' linear layers (a wrong permutation passes with one channel).
    let mut config = ModelConfig::preset(ModelPreset::Tiny, 3, 5, 4, 11);
    config.policy_channels = 3;
    config.value_channels = 2;
    config.residual_blocks = 2;
    check_against_burn(&config, &[1, 9], 4);
}

/// A batch larger than one pass of the network (18 positions of 15×15 at 32 channels) runs
/// in passes, on one thread and on several: a ragged last pass and the parallel passes give
/// burn's outputs.
#[test]
fn folded_forward_in_passes_of_a_few_samples_matches_burn() {
    let config = ModelConfig::for_game::<Gomoku>(ModelPreset::Small, &GomokuConfig::default());
    // Without the rayon feature the passes run one after another on this thread.
    #[cfg(not(feature = "rayon"))]
    check_against_burn(&config, &[40], 5);
    #[cfg(feature = "rayon")]
    for threads in [1, 2] {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| check_against_burn(&config, &[40], 5));
    }
}

/// Every 3×3 convolution algorithm (direct, Winograd F(2×2) and F(4×4)) gives burn's
/// forward to 1e-4 of the outputs' scale, on boards whose Winograd tiles overhang the edge
/// (15×15, Xiangqi's 10×9, Connect Four's 6×7) with 32 channels (the vectorised
/// transforms) and on a 5×4 board with 8 channels (the reference transforms).
#[test]
fn folded_forward_matches_burn_with_every_conv_algorithm() {
    let gomoku = ModelConfig::for_game::<Gomoku>(ModelPreset::Small, &GomokuConfig::default());
    let xiangqi = ModelConfig::for_game::<Xiangqi>(ModelPreset::Small, &XiangqiConfig::default());
    let connect4 = ModelConfig::for_game::<Connect4>(ModelPreset::Small, &Connect4Config);
    let odd = ModelConfig::preset(ModelPreset::Tiny, 3, 5, 4, 11);
    for algorithm in [
        Conv3x3Algorithm::Direct,
        Conv3x3Algorithm::Winograd(Tile::F2),
        Conv3x3Algorithm::Winograd(Tile::F4),
    ] {
        check_algorithm_against_burn(&gomoku, &[1, 6], 21, algorithm);
        check_algorithm_against_burn(&xiangqi, &[3], 22, algorithm);
        check_algorithm_against_burn(&connect4, &[5], 23, algorithm);
        check_algorithm_against_burn(&odd, &[2], 24, algorithm);
    }
}

/// Global pooling: the folded path (first convolution without ReLU, pooling on host memory,
/// second convolution of the regular channels) gives burn's forward to 1e-4 with every 3×3
/// algorithm: a 15×15 32-channel trunk pooling 8 channels in its last block (the second
/// convolution's 24 inputs run Winograd's vectorised transforms), Connect Four's 6×7 with
/// that network shape across row tiles, and a 4-block 16-channel trunk that pools 4
/// channels in its first and third blocks (pooled and plain blocks in turn; the direct
/// convolution for 12 inputs).
#[test]
fn folded_forward_matches_burn_with_global_pooling() {
    let gomoku = ModelConfig::for_game::<Gomoku>(ModelPreset::Small, &GomokuConfig::default())
        .with_default_global_pooling();
    assert_eq!(
        gomoku.global_pooling,
        Some(GlobalPooling {
            blocks: vec![1],
            channels: 8
        })
    );
    let connect4 = ModelConfig::for_game::<Connect4>(ModelPreset::Small, &Connect4Config)
        .with_default_global_pooling();
    let mixed = ModelConfig::preset(ModelPreset::Tiny, 3, 5, 4, 11)
        .with_residual_blocks(4)
        .with_channels(16)
        .with_global_pooling(Some(GlobalPooling {
            blocks: vec![0, 2],
            channels: 4,
        }));
    for algorithm in [
        Conv3x3Algorithm::Auto,
        Conv3x3Algorithm::Direct,
        Conv3x3Algorithm::Winograd(Tile::F2),
        Conv3x3Algorithm::Winograd(Tile::F4),
    ] {
        check_algorithm_against_burn(&gomoku, &[1, 6], 31, algorithm);
        check_algorithm_against_burn(&connect4, &[1, 7], 32, algorithm);
        check_algorithm_against_burn(&mixed, &[3], 33, algorithm);
    }
}

#[test]
fn folding_a_pooled_network_into_a_config_without_pooling_is_refused_naming_the_block() {
    let config = ModelConfig::preset(ModelPreset::Tiny, 3, 5, 4, 11)
        .with_residual_blocks(2)
        .with_default_global_pooling();
    let net = config.init(&default_device());
    let mut other = config.clone();
    other.global_pooling = None;
    match FoldedNet::new(&net, &other) {
        Err(NnError::InvalidConfig(msg)) => assert!(msg.contains("block 1"), "{msg}"),
        r => panic!("expected InvalidConfig, got {r:?}"),
    }
}

#[test]
fn folding_a_network_into_the_wrong_config_is_refused_naming_the_layer() {
    let config = ModelConfig::preset(ModelPreset::Tiny, 3, 5, 4, 11);
    let net = config.init(&default_device());
    let mut other = config.clone();
    other.channels = 16;
    match FoldedNet::new(&net, &other) {
        Err(NnError::InvalidConfig(msg)) => assert!(msg.contains("stem"), "{msg}"),
        r => panic!("expected InvalidConfig, got {r:?}"),
    }
}

#[test]
fn folded_forward_refuses_badly_sized_buffers() {
    let config = ModelConfig::preset(ModelPreset::Tiny, 3, 5, 4, 11);
    let net = config.init(&default_device());
    let folded = FoldedNet::new(&net, &config).unwrap();
    let planes = vec![0.0; 3 * 5 * 4 * 2];
    let mut values = vec![0.0; 2];
    assert!(matches!(
        folded.forward(&planes[1..], &mut [0.0; 22], &mut values),
        Err(NnError::BatchShape(_))
    ));
    assert!(matches!(
        folded.forward(&planes, &mut [0.0; 21], &mut values),
        Err(NnError::BatchShape(_))
    ));
}

/// The search's evaluator (folded on the CPU) and the burn-forward evaluator agree on real
/// encoded positions with histories.
fn evaluators_agree<G: Encode>(
    config: &G::Config,
    preset: ModelPreset,
    global_pooling: bool,
    seed: u64,
) {
    let mut mcfg = ModelConfig::for_game::<G>(preset, config);
    if global_pooling {
        mcfg = mcfg.with_default_global_pooling();
    }
    evaluators_agree_on::<G>(config, &mcfg, seed);
}

/// [`evaluators_agree`] with or without the game's convolutional policy head.
fn evaluators_agree_with<G: Encode>(
    config: &G::Config,
    preset: ModelPreset,
    conv_policy: bool,
    seed: u64,
) {
    let mut mcfg = ModelConfig::for_game::<G>(preset, config);
    if conv_policy {
        mcfg = mcfg.with_conv_policy::<G>(config).unwrap();
    }
    evaluators_agree_on::<G>(config, &mcfg, seed);
}

/// The two evaluators of a network of `mcfg` agree on positions of game `G`.
fn evaluators_agree_on<G: Encode>(config: &G::Config, mcfg: &ModelConfig, seed: u64) {
    let trainer = trained(mcfg, 3, seed);
    evaluators_agree_for::<G>(trainer.model(), mcfg, config, seed);
}

/// The two evaluators of `net` (of config `mcfg`) agree on six positions of game `G` under
/// `config`; returns the fast path's values.
fn evaluators_agree_for<G: Encode>(
    net: &PolicyValueNet,
    mcfg: &ModelConfig,
    config: &G::Config,
    seed: u64,
) -> Vec<f32> {
    let device = default_device();
    let fast = NetworkEvaluator::<G>::new(net, mcfg, &device).unwrap();
    let slow = NetworkEvaluator::<G>::with_burn_forward(net, mcfg, &device).unwrap();
    let mut rng = Rng(seed);
    let positions: Vec<G> = (0..6)
        .map(|i| random_position::<G>(config, 3 * i, &mut rng))
        .collect();
    let batch: Vec<EvalRequest<'_, G>> = positions
        .iter()
        .map(|p| EvalRequest {
            position: p,
            history: &[],
        })
        .collect();
    let a = mcfg.num_actions;
    let (mut l1, mut v1) = (vec![0.0; 6 * a], vec![0.0; 6]);
    let (mut l2, mut v2) = (vec![0.0; 6 * a], vec![0.0; 6]);
    fast.evaluate(&batch, &mut l1, &mut v1).unwrap();
    slow.evaluate(&batch, &mut l2, &mut v2).unwrap();
    let what = format!("{} on {:?}", G::NAME, positions[0].board_shape());
    assert_close(&l1, &l2, &what);
    assert_close(&v1, &v2, &what);
    v1
}

#[test]
fn network_evaluator_fast_path_agrees_with_burn_forward_for_every_game() {
    evaluators_agree::<Connect4>(&Connect4Config, ModelPreset::Tiny, false, 11);
    evaluators_agree::<Gomoku>(&GomokuConfig::default(), ModelPreset::Tiny, false, 12);
    evaluators_agree::<Xiangqi>(&XiangqiConfig::default(), ModelPreset::Tiny, false, 13);
}

#[test]
fn network_evaluator_fast_path_agrees_with_burn_forward_with_global_pooling() {
    evaluators_agree::<Connect4>(&Connect4Config, ModelPreset::Small, true, 14);
    evaluators_agree::<Xiangqi>(&XiangqiConfig::default(), ModelPreset::Small, true, 15);
}

/// The convolutional policy head (`ModelConfig::with_conv_policy`): the folded path (a 1×1
/// convolution to K planes in NHWC, each action's point read there) gives burn's forward
/// (the planes flattened NCHW and selected), on Gomoku's one plane and Xiangqi's 50, with
/// every 3×3 algorithm, and through the search's evaluator on real positions.
#[test]
fn folded_forward_matches_burn_with_a_conv_policy_head() {
    let gomoku = ModelConfig::for_game::<Gomoku>(ModelPreset::Tiny, &GomokuConfig::default())
        .with_conv_policy::<Gomoku>(&GomokuConfig::default())
        .unwrap();
    let xiangqi = ModelConfig::for_game::<Xiangqi>(ModelPreset::Small, &XiangqiConfig::default())
        .with_conv_policy::<Xiangqi>(&XiangqiConfig::default())
        .unwrap();
    check_against_burn(&gomoku, &[1, 3, 17], 31);
    for algorithm in [
        Conv3x3Algorithm::Direct,
        Conv3x3Algorithm::Winograd(Tile::F4),
    ] {
        check_algorithm_against_burn(&xiangqi, &[1, 5], 32, algorithm);
    }
    let mut wide = xiangqi.clone();
    wide.policy_channels = 3;
    check_against_burn(&wide, &[2], 33);
}

#[test]
fn network_evaluator_fast_path_agrees_with_burn_forward_with_a_conv_policy_head() {
    evaluators_agree_with::<Gomoku>(&GomokuConfig::default(), ModelPreset::Tiny, true, 34);
    evaluators_agree_with::<Xiangqi>(&XiangqiConfig::default(), ModelPreset::Tiny, true, 35);
}

#[test]
fn conv_policy_heads_are_refused_for_connect4_and_never_folded_into_a_dense_config() {
    let c4 = ModelConfig::for_game::<Connect4>(ModelPreset::Tiny, &Connect4Config);
    match c4.with_conv_policy::<Connect4>(&Connect4Config) {
        Err(NnError::InvalidConfig(m)) => assert!(m.contains("connect4"), "{m}"),
        other => panic!("{other:?}"),
    }
    let dense = ModelConfig::for_game::<Gomoku>(ModelPreset::Tiny, &GomokuConfig::default());
    let conv = dense
        .clone()
        .with_conv_policy::<Gomoku>(&GomokuConfig::default())
        .unwrap();
    let device = default_device();
    for (net_config, fold_config) in [(&dense, &conv), (&conv, &dense)] {
        let net = net_config.init(&device);
        match FoldedNet::new(&net, fold_config) {
            Err(NnError::InvalidConfig(m)) => assert!(m.contains("policy head"), "{m}"),
            other => panic!("{:?}", other.map(|_| ())),
        }
    }
    // A layout that does not fit the action space is refused by validation.
    let mut bad = conv;
    bad.policy_planes.as_mut().unwrap().index.pop();
    assert!(bad.validate().is_err());
}

/// `config` with game `G`'s convolutional policy head and a pooled value head of 4 channels:
/// a network none of whose weights depends on the board size.
fn size_independent<G: Encode>(preset: ModelPreset, config: &G::Config) -> ModelConfig {
    let mut m = ModelConfig::for_game::<G>(preset, config)
        .with_conv_policy::<G>(config)
        .unwrap()
        .with_value_pool(Some(ValuePool::MeanMax));
    m.value_channels = 4;
    assert!(m.size_independent());
    m
}

/// The pooled value head (`ValuePool::MeanMax`: channel means, size-scaled means, maxima):
/// the folded path pools NHWC planes as burn pools NCHW ones, with global pooling in the
/// trunk too, and through the search's evaluator on real positions.
#[test]
fn folded_forward_matches_burn_with_a_pooled_value_head() {
    let gomoku = size_independent::<Gomoku>(ModelPreset::Tiny, &GomokuConfig::default());
    assert_eq!(gomoku.value_features(), 12);
    check_against_burn(&gomoku, &[1, 3, 17], 51);
    check_against_burn(&gomoku.clone().with_default_global_pooling(), &[2], 52);
    let xiangqi = size_independent::<Xiangqi>(ModelPreset::Tiny, &XiangqiConfig::default());
    check_against_burn(&xiangqi, &[1, 5], 53);
    evaluators_agree_on::<Gomoku>(&GomokuConfig::default(), &gomoku, 54);
}

/// A size-independent Gomoku network trained on 9×9 runs on 13×13 and 5×5 boards with the
/// same weights: its resized config has the new board's layout, the folded path and burn's
/// forward agree there, and the search's evaluator takes that board's positions.
#[test]
fn a_size_independent_network_runs_on_other_boards_with_the_same_weights() {
    use alphazero_gomoku::Rule;
    let nine = GomokuConfig::new(9, Rule::Freestyle).unwrap();
    let config = size_independent::<Gomoku>(ModelPreset::Tiny, &nine);
    let trainer = trained(&config, 4, 61);
    for side in [13u8, 5] {
        let board = GomokuConfig::new(side, Rule::Freestyle).unwrap();
        let pos = Gomoku::new(&board);
        let side = usize::from(side);
        let resized = config
            .resized(
                side,
                side,
                pos.num_actions(),
                Gomoku::policy_planes(&board).unwrap(),
            )
            .unwrap();
        assert_eq!(
            (resized.board_height, resized.num_actions),
            (side, side * side)
        );
        let net = trainer.model().clone().resized(&resized);
        let values = evaluators_agree_for::<Gomoku>(&net, &resized, &board, 62);
        assert!(values.iter().all(|v| v.abs() <= 1.0));
    }
}

/// Only a size-independent network changes board: a dense policy head or a flattened value
/// head is refused, naming the board it fits, and so is a layout of another plane count.
#[test]
fn resizing_a_network_with_a_board_sized_head_is_refused() {
    use alphazero_gomoku::Rule;
    let nine = GomokuConfig::new(9, Rule::Freestyle).unwrap();
    let thirteen = GomokuConfig::new(13, Rule::Freestyle).unwrap();
    let planes = Gomoku::policy_planes(&thirteen).unwrap();
    let full = size_independent::<Gomoku>(ModelPreset::Tiny, &nine);
    let flat_value = full.clone().with_value_pool(None);
    let dense_policy = ModelConfig {
        policy_planes: None,
        ..full.clone()
    };
    for config in [&flat_value, &dense_policy] {
        assert!(!config.size_independent());
        match config.resized(13, 13, 169, planes.clone()) {
            Err(NnError::InvalidConfig(m)) => assert!(m.contains("9x9 boards only"), "{m}"),
            other => panic!("{other:?}"),
        }
    }
    // The same board is no change, whatever the heads.
    let nine_planes = Gomoku::policy_planes(&nine).unwrap();
    assert_eq!(
        flat_value.resized(9, 9, 81, nine_planes.clone()).unwrap(),
        flat_value
    );
    let mut other_layout = planes;
    other_layout.planes = 2;
    assert!(full.resized(13, 13, 169, other_layout).is_err());
}

/// A Gomoku network trained without renju's forbidden-point plane plays renju: fitted to renju
/// positions it takes five planes and gives, whatever the fifth holds, what it gave on the
/// first four; both evaluators agree on renju positions. A network of another plane count
/// does not fit.
#[test]
fn a_network_without_the_renju_plane_plays_renju_with_the_same_outputs() {
    use alphazero_gomoku::Rule;
    let free = GomokuConfig::new(9, Rule::Freestyle).unwrap();
    let renju = GomokuConfig::new(9, Rule::Renju).unwrap();
    let mcfg = ModelConfig::for_game::<Gomoku>(ModelPreset::Tiny, &free);
    assert_eq!(mcfg.input_planes, 4);
    let trainer = trained(&mcfg, 4, 71);
    assert_eq!(mcfg.for_positions_of::<Gomoku>(&free), None);
    let (net, fitted) = trainer
        .model()
        .clone()
        .for_positions_of::<Gomoku>(&mcfg, &renju);
    assert_eq!(fitted.input_planes, 5);
    assert_eq!(
        ModelConfig {
            input_planes: 4,
            ..fitted.clone()
        },
        mcfg
    );
    let hw = 81;
    let five = random_planes(&fitted, 3, &mut Rng(72));
    let four: Vec<f32> = five
        .chunks(5 * hw)
        .flat_map(|s| s[..4 * hw].to_vec())
        .collect();
    let device = default_device();
    let (l5, v5) = net.predict(&fitted, &five, &device).unwrap();
    let (l4, v4) = trainer.model().predict(&mcfg, &four, &device).unwrap();
    assert_close(&l5, &l4, "policy with the fifth plane");
    assert_close(&v5, &v4, "value with the fifth plane");
    // The fifth plane held ones: the comparison above is not vacuous.
    assert!(five
        .chunks(5 * hw)
        .any(|s| s[4 * hw..].iter().any(|&x| x != 0.0)));
    evaluators_agree_for::<Gomoku>(&net, &fitted, &renju, 73);
    // The other way: a five-plane network off renju drops its fifth plane, as if it held
    // zeros (no point is forbidden there); a network trained with the plane, so that its
    // weights there are not 0.
    let net = trained(&fitted, 3, 74).model().clone();
    let (back, four_again) = net.clone().for_positions_of::<Gomoku>(&fitted, &free);
    assert_eq!(four_again, mcfg);
    let zeroed: Vec<f32> = five
        .chunks(5 * hw)
        .flat_map(|s| {
            s[..4 * hw]
                .iter()
                .copied()
                .chain([0.0; 81])
                .collect::<Vec<_>>()
        })
        .collect();
    let (lz, vz) = net.predict(&fitted, &zeroed, &device).unwrap();
    let (lb, vb) = back.predict(&mcfg, &four, &device).unwrap();
    assert_close(&lb, &lz, "policy without the fifth plane");
    assert_close(&vb, &vz, "value without the fifth plane");
    let other = ModelConfig {
        input_planes: 3,
        ..mcfg.clone()
    };
    assert_eq!(other.for_positions_of::<Gomoku>(&renju), None);
}
