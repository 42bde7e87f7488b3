//! **Learn**: optimizer steps on batches of the replay buffer, the trainer saved as the
//! pending checkpoint.

use std::time::Instant;

use alphazero_game::mix_seed as mix;
use alphazero_nn::{kl_divergence, Encode, PolicyValueNet, TrainStats, Trainer};
use rand::rngs::StdRng;
use rand::SeedableRng;

use super::{Iteration, Pipeline};
use crate::error::PipelineError;
use crate::observer::Stage;
use crate::replay::{BatchEncoder, ReplayBuffer};
use crate::run_dir::RunDir;
use crate::settings::{sample_options, trainer_config};

/// What [`Pipeline::learn`] did.
#[derive(Clone, Debug)]
pub struct Learned {
    /// Optimizer steps taken (0 while the replay buffer is too small).
    pub steps: u64,
    /// The learning rate of these steps.
    pub lr: f64,
    /// Mean policy loss (cross-entropy with π) over the steps.
    pub policy_loss: f64,
    /// Mean value loss (squared error with z) over the steps.
    pub value_loss: f64,
    /// Mean policy entropy over the steps (nats).
    pub policy_entropy: f64,
    /// Mean total loss over the steps.
    pub total_loss: f64,
    /// KL divergence of the candidate's policy from the champion's on the last batch
    /// (0 without steps).
    pub kl: f64,
    /// Mean opponent-reply loss over the steps; `None` when `train.aux_policy_weight` is 0
    /// or no step was taken.
    pub aux_policy_loss: Option<f64>,
    /// Mean ownership loss over the steps; `None` when `train.aux_ownership_weight` is 0 or
    /// no step was taken.
    pub aux_ownership_loss: Option<f64>,
    /// The trained network, ready for inference.
    pub candidate: PolicyValueNet,
    /// The trainer's optimizer step count after them.
    pub trainer_step: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// The sums of the optimizer steps' losses, for their means.
#[derive(Clone, Copy, Debug, Default)]
struct LossSums {
    policy: f64,
    value: f64,
    entropy: f64,
    total: f64,
    aux_policy: f64,
    aux_ownership: f64,
}

impl LossSums {
    fn add(&mut self, st: &TrainStats) {
        self.policy += f64::from(st.policy_loss);
        self.value += f64::from(st.value_loss);
        self.entropy += f64::from(st.policy_entropy);
        self.total += f64::from(st.total_loss);
        self.aux_policy += f64::from(st.aux_policy_loss);
        self.aux_ownership += f64::from(st.aux_ownership_loss);
    }
}

impl<G: Encode> Pipeline<'_, G> {
    /// **Learn**: `train.steps_for(new_positions)` optimizer steps at learning rate `lr` on
    /// batches sampled from `buffer` with `it`'s seed (none while it holds fewer than
    /// `min(batch, 256)` positions); the trainer is then saved as [`RunDir::PENDING`]. The
    /// candidate's KL divergence is measured from `it`'s champion.
    ///
    /// # Errors
    /// A network error; [`PipelineError::Storage`] writing the checkpoint.
    pub fn learn(
        &self,
        it: &Iteration<'_>,
        trainer: &mut Trainer,
        buffer: &ReplayBuffer<G>,
        new_positions: u64,
        lr: f64,
    ) -> Result<Learned, PipelineError> {
        let cfg = &self.cfg;
        let batch_size = cfg.train.batch_size as usize;
        trainer.set_config(trainer_config(&self.cfg, lr))?;
        let steps = if buffer.len() >= batch_size.min(256) {
            cfg.train.steps_for(new_positions)
        } else {
            0
        };
        let mut rng = StdRng::seed_from_u64(mix(it.seed, 1));
        let heads = trainer.config().aux_heads();
        let mut batches = BatchEncoder::<G>::new(
            &self.model_config,
            batch_size,
            sample_options(cfg),
            cfg.train.value_q_weight as f32,
            heads,
        );
        let mut sums = LossSums::default();
        it.observer.stage_started(Stage::Learn, it.number, steps);
        let start = Instant::now();
        for _ in 0..steps {
            let batch = batches.next_batch(buffer, &mut rng)?;
            sums.add(&trainer.train_step(batch)?);
            it.observer.advanced(Stage::Learn, 1);
        }
        it.observer.stage_finished(Stage::Learn);
        let seconds = start.elapsed().as_secs_f64();
        let n = steps.max(1) as f64;
        let candidate = trainer.inference_model();
        let kl = if steps > 0 {
            f64::from(kl_divergence(
                it.champion,
                &candidate,
                &self.model_config,
                batches.last(),
                &self.device,
            )?)
        } else {
            0.0
        };
        self.save_trainer(RunDir::PENDING, trainer)?;
        Ok(Learned {
            steps,
            lr,
            policy_loss: sums.policy / n,
            value_loss: sums.value / n,
            policy_entropy: sums.entropy / n,
            total_loss: sums.total / n,
            kl,
            aux_policy_loss: (steps > 0 && heads.reply_policy).then_some(sums.aux_policy / n),
            aux_ownership_loss: (steps > 0 && heads.ownership).then_some(sums.aux_ownership / n),
            candidate,
            trainer_step: trainer.step(),
            seconds,
        })
    }
}
