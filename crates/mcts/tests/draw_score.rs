//! [`SearchConfig::draw_score`] (contempt): a drawn end is worth `draw_score` to the root's
//! side to move. Regression guard for the Xiangqi self-play "both sides repeat a cannon move
//! until the threefold repetition" draws.

mod common;

use alphazero_game::{Game, History, Outcome, Side};
use alphazero_mcts::{
    EvalError, EvalRequest, Evaluator, Search, SearchBudget, SearchConfig, UniformEvaluator,
};
use alphazero_xiangqi::{Xiangqi, XiangqiConfig};
use common::Ttt;

/// Uniform priors; the value is −0.1 for the side `worse` and +0.1 for the other side.
struct SideIsWorse(Side);

impl<G: Game> Evaluator<G> for SideIsWorse {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, G>],
        policy_logits: &mut [f32],
        values: &mut [f32],
    ) -> Result<(), EvalError> {
        policy_logits.fill(0.0);
        for (v, r) in values.iter_mut().zip(batch) {
            *v = if r.position.side_to_move() == self.0 {
                -0.1
            } else {
                0.1
            };
        }
        Ok(())
    }
}

/// Kings, a rook each; the rooks have gone a2-a3 / i6-i7 and back once and then half of the
/// cycle again: Black to move, and i7i6 repeats the start position a third time (a draw
/// under both repetition rules: no check, no chase).
fn repetition_history() -> History<Xiangqi> {
    let start = Xiangqi::from_fen(
        "3k5/9/9/8r/9/9/9/R8/9/4K4 w - - 0 1",
        XiangqiConfig::default(),
    )
    .unwrap();
    let mut h = History::new(start);
    for m in ["a2a3", "i6i7", "a3a2", "i7i6", "a2a3", "i6i7", "a3a2"] {
        let mv = h.current().parse_move(m).unwrap();
        h.play(mv).unwrap();
    }
    h
}

fn best_move(draw_score: f32) -> String {
    let h = repetition_history();
    let config = SearchConfig {
        leaves_per_batch: 1,
        draw_score,
        ..SearchConfig::default()
    };
    let mut s = Search::from_history(&h, config, SearchBudget::simulations(400)).unwrap();
    let r = s.run(&SideIsWorse(Side::Second)).unwrap();
    h.current().format_move(r.best_move.unwrap())
}

#[test]
fn a_side_that_values_its_position_below_a_draw_repeats_without_contempt() {
    assert_eq!(best_move(0.0), "i7i6");
}

#[test]
fn contempt_below_the_position_value_makes_the_root_side_avoid_the_repetition() {
    assert_ne!(best_move(-0.2), "i7i6");
}

#[test]
fn a_proven_draw_is_worth_draw_score_to_the_root_side_and_its_move() {
    // X to move, one empty square left: the last move draws.
    for draw_score in [0.0f32, -0.3, 0.25] {
        let config = SearchConfig {
            draw_score,
            ..SearchConfig::default()
        };
        let budget = SearchBudget::simulations(20);
        let mut s = Search::new(Ttt::from_str("xoxxooox."), Vec::new(), config, budget).unwrap();
        let r = s.run(&UniformEvaluator).unwrap();
        assert_eq!(r.proven, Some(Outcome::Draw));
        assert_eq!(r.root_value, draw_score);
        assert_eq!(r.children.len(), 1);
        assert_eq!(r.children[0].q, draw_score);
    }
}

#[test]
fn draw_score_outside_minus_one_to_one_is_refused() {
    for bad in [-1.5f32, 2.0, f32::NAN] {
        let config = SearchConfig {
            draw_score: bad,
            ..SearchConfig::default()
        };
        let err = config.validate().unwrap_err();
        assert_eq!(err.field, "draw_score", "{bad}");
    }
}
