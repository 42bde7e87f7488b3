//! Encoders: symmetries commute with encoding, fast paths agree with plain accessors, and the
//! network evaluator's batched results equal one-by-one evaluation.

mod common;

use alphazero_connect4::{Connect4, Connect4Config};
use alphazero_game::{count_repetitions, Game, History, Side};
use alphazero_gomoku::{Gomoku, GomokuConfig, Rule};
use alphazero_mcts::{EvalRequest, Evaluator};
use alphazero_nn::{
    default_device, transform_policy, Encode, ModelConfig, ModelPreset, NetworkEvaluator, Trainer,
    TrainerConfig,
};
use alphazero_xiangqi::{PieceKind, Square, Xiangqi, XiangqiConfig};
use common::{max_abs_diff, random_position, Rng};

fn encoding<G: Encode>(pos: &G, reps: u32) -> Vec<f32> {
    let mut out = vec![f32::NAN; G::input_len(pos.config())];
    pos.encode(reps, &mut out);
    out
}

fn legal_mask<G: Game>(pos: &G) -> Vec<bool> {
    let mut mask = vec![false; pos.num_actions()];
    for mv in pos.legal_moves_vec() {
        mask[pos.move_to_action(mv)] = true;
    }
    mask
}

/// For random positions and every symmetry: encode(transform(p)) = transform_planes(encode(p)),
/// and the legal-action mask of transform(p) is the mask of p mapped by transform_action.
fn check_symmetries<G: Encode>(config: &G::Config, max_plies: usize, seeds: u64) {
    let mut rng = Rng(0x1234_5678);
    for seed in 0..seeds {
        let plies = rng.below(max_plies + 1);
        let pos: G = random_position(config, plies, &mut Rng(seed * 7919 + 1));
        let reps = (seed % 3) as u32;
        let planes = encoding(&pos, reps);
        assert!(
            planes.iter().all(|x| x.is_finite()),
            "every element written"
        );
        for sym in 0..pos.num_symmetries() {
            let t = pos.transform(sym);
            let mut mapped = vec![0.0; planes.len()];
            G::transform_planes(config, sym, &planes, &mut mapped);
            assert_eq!(
                encoding(&t, reps),
                mapped,
                "{} symmetry {sym} of\n{pos}",
                G::NAME
            );
            let mut mask = vec![false; pos.num_actions()];
            transform_policy(&pos, sym, &legal_mask(&pos), &mut mask);
            assert_eq!(
                legal_mask(&t),
                mask,
                "{} symmetry {sym} policy of\n{pos}",
                G::NAME
            );
        }
    }
}

#[test]
fn gomoku_encoding_commutes_with_every_symmetry() {
    check_symmetries::<Gomoku>(&GomokuConfig::default(), 40, 30);
    check_symmetries::<Gomoku>(&GomokuConfig::new(9, Rule::Renju).unwrap(), 30, 20);
}

#[test]
fn xiangqi_encoding_commutes_with_the_mirror() {
    check_symmetries::<Xiangqi>(&XiangqiConfig::default(), 60, 40);
}

#[test]
fn connect4_encoding_commutes_with_the_mirror() {
    check_symmetries::<Connect4>(&Connect4Config, 30, 40);
}

#[test]
fn gomoku_planes_agree_with_stone_at_and_mark_last_move_and_colour() {
    let config = GomokuConfig::new(11, Rule::Freestyle).unwrap();
    for seed in 0..20 {
        let pos: Gomoku = random_position(&config, 5 + seed as usize, &mut Rng(seed + 100));
        let p = encoding(&pos, 0);
        let n = pos.size();
        let us = pos.side_to_move();
        for y in 0..n {
            for x in 0..n {
                let stone = pos.stone_at(x, y);
                assert_eq!(p[y * n + x], f32::from(u8::from(stone == Some(us))));
                assert_eq!(
                    p[n * n + y * n + x],
                    f32::from(u8::from(stone == Some(us.opponent())))
                );
                let last = pos.last_move().map(|m| (m.x as usize, m.y as usize));
                assert_eq!(
                    p[2 * n * n + y * n + x],
                    f32::from(u8::from(last == Some((x, y))))
                );
                assert_eq!(
                    p[3 * n * n + y * n + x],
                    f32::from(u8::from(us == Side::First))
                );
            }
        }
    }
}

/// Renju's fifth plane is black's forbidden points, exactly the rule's fouls, whichever side
/// is to move; the other rules keep four planes.
#[test]
fn renju_encodes_black_forbidden_points_as_a_fifth_plane_for_either_side() {
    let config = GomokuConfig::new(15, Rule::Renju).unwrap();
    assert_eq!(Gomoku::num_planes(&config), 5);
    assert_eq!(Gomoku::common_planes(&config), 4);
    for rule in [Rule::Freestyle, Rule::Standard] {
        assert_eq!(Gomoku::num_planes(&GomokuConfig::new(15, rule).unwrap()), 4);
    }
    // Black f8 g8 and h6 h7: h8 makes two open threes (a double-three); white far away.
    let mut pos = Gomoku::new(&config);
    for mv in ["f8", "a1", "g8", "a3", "h6", "a5", "h7", "a13"] {
        let mv = pos.parse_move(mv).unwrap();
        pos.play(mv).unwrap();
    }
    let n = pos.size();
    let h8 = 7 * n + 7;
    for to_move in [Side::First, Side::Second] {
        assert_eq!(pos.side_to_move(), to_move);
        let p = encoding(&pos, 0);
        assert_eq!(p.len(), 5 * n * n);
        assert_eq!(p[4 * n * n + h8], 1.0, "h8 is a double-three for black");
        // The forbidden point moves with the board under every symmetry.
        for sym in 0..pos.num_symmetries() {
            let mut mapped = vec![0.0; p.len()];
            Gomoku::transform_planes(&config, sym, &p, &mut mapped);
            assert_eq!(encoding(&pos.transform(sym), 0), mapped, "symmetry {sym}");
        }
        for y in 0..n {
            for x in 0..n {
                let mv = alphazero_gomoku::GomokuMove::new(x as u8, y as u8);
                let foul = pos.is_forbidden(mv).is_some();
                assert_eq!(
                    p[4 * n * n + y * n + x],
                    f32::from(u8::from(foul)),
                    "{x},{y}"
                );
            }
        }
        // A black stone far away hands the move to white; h8 stays forbidden.
        if to_move == Side::First {
            let mv = pos.parse_move("o15").unwrap();
            pos.play(mv).unwrap();
        }
    }
}

#[test]
fn xiangqi_board_is_seen_from_the_side_to_move() {
    let mut pos = Xiangqi::new(&XiangqiConfig::default());
    let hw = 90;
    let general_plane = PieceKind::General.index();
    let p = encoding(&pos, 0);
    // Red's general on e0: row 0, column 4 of the own general plane.
    assert_eq!(p[general_plane * hw + 4], 1.0);
    let mv = pos.parse_move("h2e2").unwrap();
    pos.play(mv).unwrap();
    assert_eq!(pos.side_to_move(), Side::Second);
    let p = encoding(&pos, 0);
    // Black's general on e9 is also at row 0, column 4 once the board is turned.
    assert_eq!(p[general_plane * hw + 4], 1.0);
    // Red's cannon that moved to e2 is, from Black's side, at row 7, column 4.
    let cannon = 7 + PieceKind::Cannon.index();
    assert_eq!(p[cannon * hw + 7 * 9 + 4], 1.0);
    assert!(pos.piece_at(Square::new(4, 2).unwrap()).is_some());
}

/// Planes 16 and 17 are the attack counts of the side to move and of the opponent, turned with
/// the board for Black; a network from before them (16 planes) reads them with zero weights.
#[test]
fn xiangqi_attack_planes_follow_the_side_to_move() {
    let config = XiangqiConfig::default();
    assert_eq!(Xiangqi::num_planes(&config), 18);
    assert_eq!(Xiangqi::common_planes(&config), 16);
    let mut pos = Xiangqi::new(&config);
    // Red's cannon h2 takes nothing yet; after h2e2 it aims over the e3 soldier at e6.
    let mv = pos.parse_move("h2e2").unwrap();
    pos.play(mv).unwrap();
    let (red, black) = (
        pos.attack_counts(Side::First),
        pos.attack_counts(Side::Second),
    );
    let e6 = Square::new(4, 6).unwrap().index();
    assert!(
        red[e6] >= 1,
        "the cannon over its screen attacks Black's e6 soldier"
    );
    let p = encoding(&pos, 0);
    for sq in 0..90 {
        let (file, rank) = (sq % 9, sq / 9);
        // Black to move: own = Black's attacks, board turned by 180°.
        let point = (9 - rank) * 9 + (8 - file);
        let want = |n: u8| f32::from(n.min(2)) / 2.0;
        assert_eq!(p[16 * 90 + point], want(black[sq]), "own attacks at {sq}");
        assert_eq!(
            p[17 * 90 + point],
            want(red[sq]),
            "opponent's attacks at {sq}"
        );
    }
}

#[test]
fn xiangqi_repetition_and_no_capture_planes() {
    let mut history = History::new(Xiangqi::new(&XiangqiConfig::default()));
    for mv in ["b0c2", "b9c7", "c2b0", "c7b9"] {
        let m = history.current().parse_move(mv).unwrap();
        history.play(m).unwrap();
    }
    let pos = history.current().clone();
    let reps = count_repetitions(history.entries(), pos.zobrist());
    assert_eq!(reps, 1);
    let p = encoding(&pos, reps);
    assert!(p[14 * 90..15 * 90].iter().all(|&v| v == 0.5));
    assert!(p[15 * 90..16 * 90]
        .iter()
        .all(|&v| (v - 4.0 / 120.0).abs() < 1e-7));
    let p0 = encoding(&pos, 0);
    assert!(p0[14 * 90..15 * 90].iter().all(|&v| v == 0.0));
    let p9 = encoding(&pos, 9);
    assert!(p9[14 * 90..15 * 90].iter().all(|&v| v == 1.0));
}

#[test]
fn connect4_planes_agree_with_cells() {
    for seed in 0..20 {
        let pos: Connect4 = random_position(&Connect4Config, seed as usize, &mut Rng(seed + 5));
        let p = encoding(&pos, 0);
        let us = pos.side_to_move();
        for row in 0..6 {
            for col in 0..7 {
                let c = pos.cell(col, row);
                assert_eq!(p[row * 7 + col], f32::from(u8::from(c == Some(us))));
                assert_eq!(
                    p[42 + row * 7 + col],
                    f32::from(u8::from(c == Some(us.opponent())))
                );
            }
        }
    }
}

fn batch_equals_single<G: Encode>(config: &G::Config, plies: usize) {
    let device = default_device();
    let model = ModelConfig::for_game::<G>(ModelPreset::Tiny, config).with_residual_blocks(2);
    // A few training steps give the batch norms non-trivial running statistics.
    let mut trainer = Trainer::new(&model, TrainerConfig::default(), &device).unwrap();
    let batch = common::random_batch(&model, 4, &mut Rng(3));
    for _ in 0..3 {
        trainer.train_step(&batch).unwrap();
    }
    let net = trainer.inference_model();
    let eval = NetworkEvaluator::<G>::new(&net, &model, &device).unwrap();
    let mut rng = Rng(77);
    let positions: Vec<G> = (0..7)
        .map(|_| {
            let n = rng.below(plies + 1);
            random_position(config, n, &mut rng)
        })
        .collect();
    let requests: Vec<EvalRequest<'_, G>> = positions
        .iter()
        .map(|p| EvalRequest {
            position: p,
            history: &[],
        })
        .collect();
    let a = model.num_actions;
    let mut logits = vec![0.0; requests.len() * a];
    let mut values = vec![0.0; requests.len()];
    eval.evaluate(&requests, &mut logits, &mut values).unwrap();
    for (i, r) in requests.iter().enumerate() {
        let mut l1 = vec![0.0; a];
        let mut v1 = vec![0.0; 1];
        eval.evaluate(std::slice::from_ref(r), &mut l1, &mut v1)
            .unwrap();
        assert!(
            max_abs_diff(&l1, &logits[i * a..(i + 1) * a]) < 1e-5,
            "{}",
            G::NAME
        );
        assert!((v1[0] - values[i]).abs() < 1e-5);
        assert!((-1.0..=1.0).contains(&values[i]));
        // And the evaluator agrees with the network run on the encoding directly.
        let (pl, pv) = net
            .predict(&model, &encoding(r.position, 0), &device)
            .unwrap();
        assert!(max_abs_diff(&pl, &l1) < 1e-5 && (pv[0] - v1[0]).abs() < 1e-5);
    }
    // Wrong buffer sizes are errors, not panics.
    assert!(eval
        .evaluate(&requests, &mut logits[1..], &mut values)
        .is_err());
}

#[test]
fn network_evaluator_batch_equals_one_by_one_for_every_game() {
    batch_equals_single::<Gomoku>(&GomokuConfig::new(9, Rule::Freestyle).unwrap(), 20);
    batch_equals_single::<Xiangqi>(&XiangqiConfig::default(), 30);
    batch_equals_single::<Connect4>(&Connect4Config, 20);
}

#[test]
fn network_evaluator_refuses_positions_of_another_shape() {
    let device = default_device();
    let small = GomokuConfig::new(9, Rule::Freestyle).unwrap();
    let model = ModelConfig::for_game::<Gomoku>(ModelPreset::Tiny, &small);
    let eval = NetworkEvaluator::<Gomoku>::new(&model.init(&device), &model, &device).unwrap();
    let big = Gomoku::new(&GomokuConfig::default());
    let req = [EvalRequest {
        position: &big,
        history: &[],
    }];
    let mut l = vec![0.0; 81];
    let mut v = vec![0.0; 1];
    assert!(eval.evaluate(&req, &mut l, &mut v).is_err());
}

#[test]
fn evaluator_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<NetworkEvaluator<Gomoku>>();
    assert_send_sync::<NetworkEvaluator<Xiangqi>>();
    assert_send_sync::<NetworkEvaluator<Connect4>>();
}
