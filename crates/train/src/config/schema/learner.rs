//! `[train]`: the optimisation of the network, and its learning-rate schedule.

use serde::{Deserialize, Serialize};

/// The optimizer of `[train]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Optimizer {
    /// AdamW (decoupled weight decay).
    Adamw,
    /// SGD with momentum.
    Sgd,
}

/// The learning-rate schedule of `[train]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LrSchedule {
    /// `lr` throughout.
    Constant,
    /// `lr · lr_step_factor^(iteration / lr_step_every)`.
    Step,
    /// Cosine decay from `lr` to `lr_min` over the run: over `run.iterations` when that is
    /// set, else over `run.time_budget_minutes` of training time.
    Cosine,
}

/// `[train]`: the optimisation of the network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LearnerSection {
    /// Positions per training batch.
    pub batch_size: u32,
    /// Training steps per iteration; 0 derives them from `samples_per_position`.
    pub steps_per_iteration: u32,
    /// When `steps_per_iteration` is 0: how many times each new position is sampled on
    /// average, i.e. steps = ceil(new positions · samples_per_position / batch_size).
    pub samples_per_position: f64,
    /// `adamw` or `sgd`.
    pub optimizer: Optimizer,
    /// Peak learning rate.
    pub lr: f64,
    /// `constant`, `step` or `cosine`.
    pub lr_schedule: LrSchedule,
    /// Iterations between decays of the `step` schedule.
    pub lr_step_every: u32,
    /// Decay factor in (0, 1] of the `step` schedule.
    pub lr_step_factor: f64,
    /// Final learning rate of the `cosine` schedule.
    pub lr_min: f64,
    /// Weight decay (L2 for SGD, decoupled for AdamW).
    pub weight_decay: f64,
    /// SGD momentum in [0, 1) (β1 is fixed for AdamW).
    pub momentum: f64,
    /// Gradient-norm clip; 0 disables clipping.
    pub grad_clip: f64,
    /// Weight λ in [0, 1] of the search's root value q in the value target
    /// `(1 − λ)·z + λ·q`, both from the side to move (0 = the game result z alone, as in
    /// AlphaZero; 0.5 = the "(z + q)/2" target of Prasad's "Lessons from AlphaZero" for
    /// Connect Four, a short-term value in KataGo's sense). Older records without a root
    /// value do not exist: every recorded ply carries it. Positions of games cut off at
    /// `selfplay.max_plies` always take q alone (their z = 0 is no result).
    pub value_q_weight: f64,
    /// Weight (≥ 0) of the training-only opponent-reply policy head's loss: cross-entropy
    /// against the move the opponent played next (KataGo's auxiliary policy target, weight
    /// 0.15 there; a position whose move ended the game has no target). 0 = no such head.
    pub aux_policy_weight: f64,
    /// Weight (≥ 0) of the training-only ownership head's loss: mean squared error per point
    /// against the game's ownership map (`Encode::ownership`: the final board for Gomoku and
    /// Connect Four, which pieces survive for Xiangqi). 0 = no such head.
    pub aux_ownership_weight: f64,
}

impl LearnerSection {
    /// Training steps for an iteration that added `new_positions` positions (at least 1).
    pub fn steps_for(&self, new_positions: u64) -> u64 {
        if self.steps_per_iteration > 0 {
            return u64::from(self.steps_per_iteration);
        }
        let samples = new_positions as f64 * self.samples_per_position;
        ((samples / f64::from(self.batch_size.max(1))).ceil() as u64).max(1)
    }

    /// The learning rate of `iteration` (0-based) when a fraction `progress` (in [0, 1],
    /// `None` when unknown) of the run is done: the cosine schedule follows `progress` (and
    /// stays at `lr` when it is unknown), the step schedule follows `iteration`. A run
    /// limited by time passes the fraction of `run.time_budget_minutes` spent.
    pub fn lr_at_progress(&self, iteration: u32, progress: Option<f64>) -> f64 {
        match self.lr_schedule {
            LrSchedule::Constant => self.lr,
            LrSchedule::Step => {
                let k = iteration / self.lr_step_every.max(1);
                self.lr * self.lr_step_factor.powi(k as i32)
            }
            LrSchedule::Cosine => {
                let Some(t) = progress else {
                    return self.lr;
                };
                let t = t.clamp(0.0, 1.0);
                self.lr_min
                    + 0.5 * (self.lr - self.lr_min) * (1.0 + (std::f64::consts::PI * t).cos())
            }
        }
    }
}
