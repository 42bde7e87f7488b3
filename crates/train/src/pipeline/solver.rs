//! The exact solver's measure of a trained network (Connect Four: measured, never trained
//! on).

use std::path::Path;
use std::time::Instant;

use alphazero_mcts::{EvalRequest, Evaluator};
use alphazero_nn::{Encode, NetworkEvaluator, PolicyValueNet};
use alphazero_registry::{Registered, Yardstick};

use super::Pipeline;
use crate::config::EvalSection;
use crate::error::PipelineError;
use crate::metrics::SolverMetrics;
use crate::observer::Observer;

impl<G: Encode> Pipeline<'_, G> {
    /// The exact solver's measure of `net` alone (no search) at iteration `iteration`: the
    /// share of the game's yardstick on which it picks a best move, a move that keeps the
    /// result, and a value of the right sign. `None` without a yardstick, or when
    /// `eval.solver_every` does not divide `iteration`.
    ///
    /// # Errors
    /// A network evaluation error.
    pub fn measure_solver(
        &self,
        net: &PolicyValueNet,
        iteration: u32,
    ) -> Result<Option<SolverMetrics>, PipelineError> {
        let every = self.cfg.eval.solver_every;
        if every == 0 || !iteration.is_multiple_of(every) {
            return Ok(None);
        }
        let Some(slice) = self.solver_slice() else {
            return Ok(None);
        };
        let eval = NetworkEvaluator::<G>::new(net, &self.model_config, &self.device)?;
        let a = self.model_config.num_actions;
        let positions = slice.positions();
        let mut outputs = Vec::with_capacity(positions.len());
        for chunk in positions.chunks(64) {
            let reqs: Vec<EvalRequest<G>> = chunk
                .iter()
                .map(|&position| EvalRequest {
                    position,
                    history: &[],
                })
                .collect();
            let mut logits = vec![0f32; chunk.len() * a];
            let mut values = vec![0f32; chunk.len()];
            eval.evaluate(&reqs, &mut logits, &mut values)?;
            for (i, v) in values.into_iter().enumerate() {
                outputs.push((logits[i * a..(i + 1) * a].to_vec(), v));
            }
        }
        let r = slice.measure(&outputs);
        let share = |k: usize| k as f64 / r.positions.max(1) as f64;
        Ok(Some(SolverMetrics {
            positions: r.positions as u32,
            policy_best: share(r.policy_best),
            policy_keeps: share(r.policy_keeps),
            value_sign: share(r.value_sign),
        }))
    }
}

/// The exact-solver yardstick of `eval.solver_every` of game `G` from its test data folder
/// `dir`: `eval.solver_positions` positions of its sets, solved once (said through
/// `observer`). `None` for a game without a yardstick ([`Registered::solver_yardstick`]),
/// and, with a warning, when the positions cannot be read: the run goes on unmeasured.
pub fn solver_slice<G: Registered>(
    dir: &Path,
    eval: &EvalSection,
    observer: &dyn Observer,
) -> Option<Box<dyn Yardstick<G>>> {
    let yardstick = G::solver_yardstick()?;
    let want = eval.solver_positions as usize;
    let start = Instant::now();
    match (yardstick.load)(dir, want) {
        Ok(slice) => {
            observer.info(&format!(
                "solver agreement every {} iterations on {} positions of {} in {} (measured \
                 only, never trained on; solved in {:.1}s)",
                eval.solver_every,
                slice.positions().len(),
                yardstick.info.sets.join(" and "),
                dir.display(),
                start.elapsed().as_secs_f64()
            ));
            Some(slice)
        }
        Err(err) => {
            observer.warning(&format!(
                "no solver agreement measured (eval.solver_every): {err}"
            ));
            None
        }
    }
}
