//! The [`Evaluator`] the search calls.

use std::cell::RefCell;
use std::sync::Arc;

use alphazero_game::{Game, Side};
use alphazero_gomoku::Gomoku;
use alphazero_mcts::{EvalError, EvalRequest, Evaluator};

use crate::lines::{EMPTY, OPP, OWN};
use crate::model::{InferScratch, Mixnet};

/// A [`Mixnet`] behind the search's evaluator interface: each position evaluated from
/// scratch (line codes, table rows, the heads), single-threaded per call.
#[derive(Clone, Debug)]
pub struct MixnetEvaluator {
    net: Arc<Mixnet>,
}

impl MixnetEvaluator {
    /// The evaluator of `net`.
    pub fn new(net: Mixnet) -> MixnetEvaluator {
        MixnetEvaluator { net: Arc::new(net) }
    }

    /// The network.
    pub fn net(&self) -> &Mixnet {
        &self.net
    }
}

thread_local! {
    /// Buffers reused by every evaluation on this thread.
    static SCRATCH: RefCell<(InferScratch, Vec<u8>)> =
        RefCell::new((InferScratch::default(), Vec::new()));
}

/// The cells of `pos` from its side to move.
pub fn position_cells(pos: &Gomoku, out: &mut Vec<u8>) {
    let n = pos.size();
    let us = pos.side_to_move();
    out.clear();
    out.resize(n * n, EMPTY);
    for (side, state) in [(us, OWN), (us.opponent(), OPP)] {
        for y in 0..n {
            let mut bits = pos.row_bits(side, y);
            while bits != 0 {
                let x = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                out[y * n + x] = state;
            }
        }
    }
}

impl Evaluator<Gomoku> for MixnetEvaluator {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, Gomoku>],
        policy_logits: &mut [f32],
        values: &mut [f32],
    ) -> Result<(), EvalError> {
        let Some(first) = batch.first() else {
            return Ok(());
        };
        let actions = first.position.num_actions();
        if policy_logits.len() != batch.len() * actions || values.len() != batch.len() {
            return Err(EvalError(format!(
                "buffers of {} logits and {} values for {} positions of {actions} actions",
                policy_logits.len(),
                values.len(),
                batch.len()
            )));
        }
        SCRATCH.with(|cell| {
            let (scratch, cells) = &mut *cell.borrow_mut();
            for (i, req) in batch.iter().enumerate() {
                let pos = req.position;
                let n = pos.size();
                if n * n != actions {
                    return Err(EvalError(format!(
                        "a batch mixes boards: {n}×{n} among positions of {actions} actions"
                    )));
                }
                position_cells(pos, cells);
                values[i] = self.net.infer(
                    n,
                    cells,
                    pos.side_to_move() == Side::First,
                    &mut policy_logits[i * actions..(i + 1) * actions],
                    scratch,
                );
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::MixnetConfig;
    use alphazero_gomoku::{GomokuConfig, Rule};

    #[test]
    fn a_batch_evaluates_each_position_as_alone_and_any_board_size() {
        let net = Mixnet::new(MixnetConfig::default(), 4);
        let eval = MixnetEvaluator::new(net);
        for size in [7u8, 15, 20] {
            let config = GomokuConfig::new(size, Rule::Freestyle).unwrap();
            let mut a = Gomoku::new(&config);
            let mut b = a.clone();
            a.play(a.parse_move("d4").unwrap()).unwrap();
            b.play(b.parse_move("c3").unwrap()).unwrap();
            b.play(b.parse_move("e5").unwrap()).unwrap();
            let n2 = usize::from(size) * usize::from(size);
            let mut both = vec![0.0; 2 * n2];
            let mut vals = vec![0.0; 2];
            let reqs = [
                EvalRequest {
                    position: &a,
                    history: &[],
                },
                EvalRequest {
                    position: &b,
                    history: &[],
                },
            ];
            eval.evaluate(&reqs, &mut both, &mut vals).unwrap();
            let mut one = vec![0.0; n2];
            let mut v = vec![0.0];
            eval.evaluate(&reqs[1..], &mut one, &mut v).unwrap();
            assert_eq!(&both[n2..], &one[..]);
            assert_eq!(vals[1], v[0]);
            assert!(vals.iter().all(|v| (-1.0..=1.0).contains(v)));
        }
    }

    #[test]
    fn the_evaluators_fast_path_computes_what_the_training_pass_computes() {
        use crate::model::Scratch;
        let net = Mixnet::new(
            MixnetConfig {
                colour_tables: true,
                ..MixnetConfig::default()
            },
            11,
        );
        let eval = MixnetEvaluator::new(net.clone());
        for (size, moves) in [(15u8, "h8 i9 j9 g7 k10 a1 o15"), (9, "a1 b2 c3 e5 e6 i9")] {
            let config = GomokuConfig::new(size, Rule::Renju).unwrap();
            let mut pos = Gomoku::new(&config);
            for mv in moves.split(' ') {
                pos.play(pos.parse_move(mv).unwrap()).unwrap();
            }
            let n2 = usize::from(size) * usize::from(size);
            let (mut fast, mut reference) = (vec![0.0; n2], vec![0.0; n2]);
            let mut v = [0.0];
            eval.evaluate(
                &[EvalRequest {
                    position: &pos,
                    history: &[],
                }],
                &mut fast,
                &mut v,
            )
            .unwrap();
            let mut cells = Vec::new();
            position_cells(&pos, &mut cells);
            let want = net.forward(
                usize::from(size),
                &cells,
                pos.side_to_move() == Side::First,
                &mut reference,
                &mut Scratch::default(),
            );
            assert!((v[0] - want).abs() < 1e-5, "{} vs {want}", v[0]);
            for (a, b) in fast.iter().zip(&reference) {
                assert!((a - b).abs() < 1e-4 * (1.0 + b.abs()), "{a} vs {b}");
            }
        }
    }

    #[test]
    fn a_symmetric_position_gets_the_value_of_its_mirror_image() {
        // Line codes read a line and its reverse on one row and the four directions are
        // summed, so a mirrored board gives the same value and mirrored logits.
        let net = Mixnet::new(MixnetConfig::default(), 8);
        let eval = MixnetEvaluator::new(net);
        let config = GomokuConfig::new(15, Rule::Freestyle).unwrap();
        let mut pos = Gomoku::new(&config);
        for mv in ["h8", "i9", "j9", "g7", "k10"] {
            pos.play(pos.parse_move(mv).unwrap()).unwrap();
        }
        let mut l0 = vec![0.0; 225];
        let mut v0 = vec![0.0];
        eval.evaluate(
            &[EvalRequest {
                position: &pos,
                history: &[],
            }],
            &mut l0,
            &mut v0,
        )
        .unwrap();
        for sym in 1..8 {
            let t = pos.transform(sym);
            let mut l1 = vec![0.0; 225];
            let mut v1 = vec![0.0];
            eval.evaluate(
                &[EvalRequest {
                    position: &t,
                    history: &[],
                }],
                &mut l1,
                &mut v1,
            )
            .unwrap();
            assert!((v0[0] - v1[0]).abs() < 1e-5, "symmetry {sym}");
            for (a, &logit) in l0.iter().enumerate() {
                let ta = pos.transform_action(sym, a);
                assert!((logit - l1[ta]).abs() < 1e-4, "symmetry {sym}, action {a}");
            }
        }
    }
}
