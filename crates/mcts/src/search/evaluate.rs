//! Leaves and their batched evaluation: the step API the driver calls (collect the leaves,
//! hand them out as evaluator requests, apply the outputs).

use alphazero_game::Game;

use super::tree::NodeState;
use super::Search;
use crate::evaluator::{EvalError, EvalRequest};

impl<G: Game> Search<G> {
    /// Selects up to `leaves_per_batch` new leaves with virtual loss and returns how many
    /// leaves are pending. Terminal and proven leaves met on the way are backed up at once
    /// (they count as simulations without an evaluation). Does nothing and returns the pending
    /// count if leaves are already pending. May return 0 while not done (every leaf selected
    /// was terminal); call again.
    pub fn collect_leaves(&mut self) -> usize {
        if !self.pending.is_empty() || self.is_done() {
            return self.pending.len();
        }
        match self.nodes[0].state {
            NodeState::New => {
                self.ensure_slot(0);
                let mut h = std::mem::take(&mut self.leaf_hist[0]);
                h.clear();
                h.extend_from_slice(&self.history);
                if let Some(o) = self.states[0].adjudicate(&h) {
                    let value = self.outcome_value(o, self.nodes[0].side);
                    let root = &mut self.nodes[0];
                    root.state = NodeState::Terminal;
                    root.proven = Some(o);
                    root.raw_value = value;
                } else {
                    self.nodes[0].state = NodeState::Pending;
                    self.pending.push(0);
                }
                self.leaf_hist[0] = h;
                return self.pending.len();
            }
            NodeState::Terminal | NodeState::Pending => return self.pending.len(),
            NodeState::Expanded => {}
        }
        if !self.root_prepared {
            self.prepare_root();
        }
        let k = self.config.leaves_per_batch;
        for _ in 0..k {
            if self
                .sims_target
                .is_some_and(|t| self.sims_done + self.pending.len() as u32 >= t)
                || (self.config.solver && self.nodes[0].proven.is_some())
            {
                break;
            }
            self.select_leaf();
        }
        self.pending.len()
    }

    /// The pending leaves as evaluator requests, in the order [`Search::apply_evaluations`]
    /// expects their outputs.
    pub fn pending_requests(&self) -> impl Iterator<Item = EvalRequest<'_, G>> + '_ {
        self.pending
            .iter()
            .enumerate()
            .map(move |(i, &id)| EvalRequest {
                position: &self.states[id as usize],
                history: &self.leaf_hist[i],
            })
    }

    /// Expands the pending leaves with the evaluator's outputs and backs their values up.
    ///
    /// * `policy_logits`: `[P, A]` row-major, `P = num_pending()`, `A = num_actions()`.
    /// * `values`: `[P]`, from each leaf's side to move (clamped to [-1, 1]).
    ///
    /// # Errors
    /// [`EvalError`] when the buffer lengths do not match or a value is not finite; nothing
    /// is applied then (the leaves stay pending).
    pub fn apply_evaluations(
        &mut self,
        policy_logits: &[f32],
        values: &[f32],
    ) -> Result<(), EvalError> {
        let p = self.pending.len();
        let a = self.states[0].num_actions();
        if values.len() != p || policy_logits.len() != p * a {
            return Err(EvalError(format!(
                "expected {p} values and {p}x{a} logits, got {} values and {} logits",
                values.len(),
                policy_logits.len()
            )));
        }
        if let Some(v) = values.iter().find(|v| !v.is_finite()) {
            return Err(EvalError(format!(
                "evaluator returned a non-finite value {v}"
            )));
        }
        for i in 0..p {
            let id = self.pending[i];
            let v = values[i].clamp(-1.0, 1.0);
            let terminal = self.expand(id, &policy_logits[i * a..(i + 1) * a], v);
            if self.config.terminal_check && !terminal {
                self.check_terminal_children(id, i);
            }
            let node = &self.nodes[id as usize];
            let val = match node.proven {
                Some(o) if self.config.solver || terminal => self.outcome_value(o, node.side),
                _ => node.raw_value,
            };
            if id == 0 {
                // The root's own evaluation is not a simulation.
                self.nodes[0].n += 1;
                self.nodes[0].w += val;
            } else {
                self.backup(id, val);
                if self.config.solver && self.nodes[id as usize].proven.is_some() {
                    self.propagate_proof(id);
                }
                self.sims_done += 1;
            }
        }
        self.pending.clear();
        Ok(())
    }

    /// Discards pending leaves, undoing their virtual loss.
    pub(crate) fn cancel_pending(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        for &id in &pending {
            self.undo_virtual(id);
            self.nodes[id as usize].state = NodeState::New;
        }
        self.pending = pending;
        self.pending.clear();
    }
}
