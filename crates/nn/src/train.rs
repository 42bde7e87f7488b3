//! Training: batches, the loss, optimizers, learning-rate schedules, the [`Trainer`].

use burn::module::{Module, ModuleVisitor, Param};
use burn::optim::decay::WeightDecayConfig;
use burn::optim::momentum::MomentumConfig;
use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer, SgdConfig};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Bytes, Device, Tensor, TensorData};
use serde::{Deserialize, Serialize};

use crate::{AuxHeads, ModelConfig, NnError, PolicyValueNet};

/// Logit given to illegal actions before the log-softmax of the loss: far below any real
/// logit, yet finite so that `0 × logit` stays 0.
pub const ILLEGAL_LOGIT: f32 = -1.0e9;

/// A training batch, held in host memory as flat row-major arrays.
///
/// * `planes`: `[B, C, H, W]` encoded positions (from the side to move);
/// * `legal_mask`: `[B, A]`, 1.0 for legal actions and 0.0 for illegal ones;
/// * `target_policy`: `[B, A]`, the search's visit distribution π (zero on illegal actions);
/// * `target_value`: `[B]`, the game result z in [-1, 1] from the side to move;
/// * the auxiliary targets ([`AuxTargets`]), each per sample or absent: `reply_action` `[B]`,
///   `ownership` `[B, H, W]` (zeros where absent) and its mask `[B]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Batch {
    shape: [usize; 4],
    num_actions: usize,
    planes: Vec<f32>,
    legal_mask: Vec<f32>,
    target_policy: Vec<f32>,
    target_value: Vec<f32>,
    reply_action: Vec<Option<u32>>,
    ownership: Vec<f32>,
    ownership_mask: Vec<f32>,
}

/// The auxiliary targets of one training sample (for the heads of [`AuxHeads`]); a target
/// left `None` is left out of its loss for that sample.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AuxTargets<'a> {
    /// The move the opponent played next, as an action index of the position it was played
    /// from (`< A`); `None` at a game's last move.
    pub reply: Option<usize>,
    /// The ownership map `[H, W]` ([`crate::Encode::ownership`]), values in [-1, 1].
    pub ownership: Option<&'a [f32]>,
}

impl Batch {
    /// An empty batch for positions of `[C, H, W] = planes_shape` and `num_actions` actions,
    /// with room for `capacity` samples.
    pub fn with_capacity(planes_shape: [usize; 3], num_actions: usize, capacity: usize) -> Batch {
        let [c, h, w] = planes_shape;
        Batch {
            shape: [0, c, h, w],
            num_actions,
            planes: Vec::with_capacity(capacity * c * h * w),
            legal_mask: Vec::with_capacity(capacity * num_actions),
            target_policy: Vec::with_capacity(capacity * num_actions),
            target_value: Vec::with_capacity(capacity),
            reply_action: Vec::with_capacity(capacity),
            ownership: Vec::with_capacity(capacity * h * w),
            ownership_mask: Vec::with_capacity(capacity),
        }
    }

    /// Appends one sample without auxiliary targets.
    ///
    /// * `planes`: `[C, H, W]`; `legal`: `[A]` (true = legal); `policy`: `[A]` target π;
    ///   `value`: z from the side to move.
    ///
    /// # Errors
    /// [`NnError::BatchShape`] when a length does not match; the batch is left unchanged.
    pub fn push(
        &mut self,
        planes: &[f32],
        legal: &[bool],
        policy: &[f32],
        value: f32,
    ) -> Result<(), NnError> {
        self.push_with_aux(planes, legal, policy, value, AuxTargets::default())
    }

    /// Appends one sample with its auxiliary targets `aux` (see [`Batch::push`] for the
    /// others).
    ///
    /// # Errors
    /// [`NnError::BatchShape`] when a length does not match, the reply action is outside the
    /// action space or an ownership value is not finite; the batch is left unchanged.
    pub fn push_with_aux(
        &mut self,
        planes: &[f32],
        legal: &[bool],
        policy: &[f32],
        value: f32,
        aux: AuxTargets<'_>,
    ) -> Result<(), NnError> {
        let [_, c, h, w] = self.shape;
        let checks = [
            ("planes", planes.len(), c * h * w),
            ("legal mask", legal.len(), self.num_actions),
            ("target policy", policy.len(), self.num_actions),
            (
                "ownership target",
                aux.ownership.map_or(h * w, <[f32]>::len),
                h * w,
            ),
        ];
        for (what, got, want) in checks {
            if got != want {
                return Err(NnError::BatchShape(format!(
                    "{what} of sample {} has {got} elements, expected {want}",
                    self.shape[0]
                )));
            }
        }
        if !value.is_finite() {
            return Err(NnError::BatchShape(format!(
                "target value {value} of sample {} is not finite",
                self.shape[0]
            )));
        }
        if let Some(a) = aux.reply.filter(|&a| a >= self.num_actions) {
            return Err(NnError::BatchShape(format!(
                "reply action {a} of sample {} is outside the {} actions",
                self.shape[0], self.num_actions
            )));
        }
        if aux
            .ownership
            .is_some_and(|o| !o.iter().all(|v| v.is_finite()))
        {
            return Err(NnError::BatchShape(format!(
                "ownership target of sample {} is not finite",
                self.shape[0]
            )));
        }
        self.planes.extend_from_slice(planes);
        self.legal_mask
            .extend(legal.iter().map(|&l| if l { 1.0 } else { 0.0 }));
        self.target_policy.extend_from_slice(policy);
        self.target_value.push(value);
        self.reply_action.push(aux.reply.map(|a| a as u32));
        match aux.ownership {
            Some(o) => self.ownership.extend_from_slice(o),
            None => self.ownership.resize(self.ownership.len() + h * w, 0.0),
        }
        self.ownership_mask
            .push(if aux.ownership.is_some() { 1.0 } else { 0.0 });
        self.shape[0] += 1;
        Ok(())
    }

    /// Removes every sample, keeping the allocation.
    pub fn clear(&mut self) {
        self.shape[0] = 0;
        self.planes.clear();
        self.legal_mask.clear();
        self.target_policy.clear();
        self.target_value.clear();
        self.reply_action.clear();
        self.ownership.clear();
        self.ownership_mask.clear();
    }

    /// Number of samples `B`.
    pub fn len(&self) -> usize {
        self.shape[0]
    }

    /// Whether the batch holds no sample.
    pub fn is_empty(&self) -> bool {
        self.shape[0] == 0
    }

    /// `[B, C, H, W]`.
    pub fn planes_shape(&self) -> [usize; 4] {
        self.shape
    }

    /// `A`.
    pub fn num_actions(&self) -> usize {
        self.num_actions
    }

    /// The planes, `[B, C, H, W]` row-major.
    pub fn planes(&self) -> &[f32] {
        &self.planes
    }

    /// The legal mask, `[B, A]` (1.0 legal, 0.0 illegal).
    pub fn legal_mask(&self) -> &[f32] {
        &self.legal_mask
    }

    /// The target policies π, `[B, A]`.
    pub fn target_policy(&self) -> &[f32] {
        &self.target_policy
    }

    /// The target values z, `[B]`.
    pub fn target_value(&self) -> &[f32] {
        &self.target_value
    }

    /// The opponent-reply targets, `[B]` (`None` where a sample has none).
    pub fn reply_action(&self) -> &[Option<u32>] {
        &self.reply_action
    }

    /// The ownership target of sample `i`, `[H, W]`; `None` where it has none.
    pub fn ownership(&self, i: usize) -> Option<&[f32]> {
        let [_, _, h, w] = self.shape;
        (self.ownership_mask.get(i) == Some(&1.0))
            .then(|| &self.ownership[i * h * w..(i + 1) * h * w])
    }

    fn check_model(&self, config: &ModelConfig) -> Result<(), NnError> {
        let [b, c, h, w] = self.shape;
        if b == 0 {
            return Err(NnError::BatchShape("the batch is empty".into()));
        }
        if [c, h, w] != [config.input_planes, config.board_height, config.board_width]
            || self.num_actions != config.num_actions
        {
            return Err(NnError::BatchShape(format!(
                "batch of [C,H,W]=[{c},{h},{w}] and {} actions does not fit the model \
                 ([{},{},{}], {} actions)",
                self.num_actions,
                config.input_planes,
                config.board_height,
                config.board_width,
                config.num_actions
            )));
        }
        Ok(())
    }

    fn tensors(&self, device: &Device) -> BatchTensors {
        let [b, c, h, w] = self.shape;
        let a = self.num_actions;
        BatchTensors {
            planes: Tensor::from_data(TensorData::new(self.planes.clone(), [b, c, h, w]), device),
            mask: Tensor::from_data(TensorData::new(self.legal_mask.clone(), [b, a]), device),
            policy: Tensor::from_data(TensorData::new(self.target_policy.clone(), [b, a]), device),
            value: Tensor::from_data(TensorData::new(self.target_value.clone(), [b]), device),
        }
    }

    /// The targets of the auxiliary `heads` as tensors, with how many samples have each.
    fn aux_tensors(&self, heads: AuxHeads, device: &Device) -> AuxTensors {
        let [b, _, h, w] = self.shape;
        let a = self.num_actions;
        let reply = heads.reply_policy.then(|| {
            let mut one_hot = vec![0f32; b * a];
            for (i, r) in self.reply_action.iter().enumerate() {
                if let Some(r) = r {
                    one_hot[i * a + *r as usize] = 1.0;
                }
            }
            Tensor::from_data(TensorData::new(one_hot, [b, a]), device)
        });
        let ownership = heads.ownership.then(|| {
            (
                Tensor::from_data(TensorData::new(self.ownership.clone(), [b, h * w]), device),
                Tensor::from_data(TensorData::new(self.ownership_mask.clone(), [b]), device),
            )
        });
        AuxTensors {
            reply,
            reply_count: self.reply_action.iter().flatten().count(),
            ownership,
            ownership_count: self.ownership_mask.iter().filter(|&&m| m > 0.0).count(),
        }
    }
}

struct BatchTensors {
    planes: Tensor<4>,
    mask: Tensor<2>,
    policy: Tensor<2>,
    value: Tensor<1>,
}

struct AuxTensors {
    /// One-hot replies `[B, A]` (a zero row where a sample has none).
    reply: Option<Tensor<2>>,
    reply_count: usize,
    /// Ownership maps `[B, H·W]` and their mask `[B]`.
    ownership: Option<(Tensor<2>, Tensor<1>)>,
    ownership_count: usize,
}

/// The auxiliary losses (`[1]` each) of the heads `out` ran, over the samples that have each
/// target: the opponent-reply cross-entropy (softmax over the whole action space) and the
/// ownership MSE averaged over the points. A loss whose head did not run is `None`.
fn aux_loss_terms(
    reply_logits: Option<Tensor<2>>,
    ownership: Option<Tensor<2>>,
    t: &AuxTensors,
) -> (Option<Tensor<1>>, Option<Tensor<1>>) {
    let reply = reply_logits.zip(t.reply.clone()).map(|(logits, one_hot)| {
        (one_hot * log_softmax(logits, 1))
            .sum()
            .neg()
            .div_scalar(t.reply_count.max(1) as f32)
    });
    let ownership = ownership
        .zip(t.ownership.clone())
        .map(|(pred, (target, mask))| {
            let per_sample: Tensor<1> = (pred - target).square().mean_dim(1).squeeze_dim(1);
            (per_sample * mask)
                .sum()
                .div_scalar(t.ownership_count.max(1) as f32)
        });
    (reply, ownership)
}

/// Log-probabilities over the legal actions: illegal logits are replaced by
/// [`ILLEGAL_LOGIT`] before the log-softmax, so they receive no gradient and do not affect
/// the result. `logits`, `mask`: `[B, A]`; returns `[B, A]`.
pub fn masked_log_softmax(logits: Tensor<2>, mask: Tensor<2>) -> Tensor<2> {
    let illegal = mask.lower_scalar(0.5);
    log_softmax(logits.mask_fill(illegal, ILLEGAL_LOGIT), 1)
}

/// Cross-entropy of the masked policy against `target`, averaged over the batch:
/// `−mean_b Σ_a π[b,a]·mask[b,a]·log_softmax_legal(logits)[b,a]`. `logits`, `mask`, `target`:
/// `[B, A]`; returns `[1]`. Illegal logits have no effect and receive zero gradient.
pub fn policy_cross_entropy(logits: Tensor<2>, mask: Tensor<2>, target: Tensor<2>) -> Tensor<1> {
    let log_p = masked_log_softmax(logits, mask.clone());
    (target * mask * log_p).sum_dim(1).mean().neg()
}

/// The loss terms as tensors (`[1]` each): policy cross-entropy, value MSE, policy entropy.
fn loss_terms(
    logits: Tensor<2>,
    values: Tensor<1>,
    t: &BatchTensors,
) -> (Tensor<1>, Tensor<1>, Tensor<1>) {
    let log_p = masked_log_softmax(logits.clone(), t.mask.clone());
    let policy_loss = policy_cross_entropy(logits, t.mask.clone(), t.policy.clone());
    let entropy = (log_p.clone().exp() * log_p * t.mask.clone())
        .sum_dim(1)
        .mean()
        .neg();
    let value_loss = (values - t.value.clone()).square().mean();
    (policy_loss, value_loss, entropy)
}

/// Figures of one training step (or one loss evaluation), averaged over the batch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrainStats {
    /// Cross-entropy of the network's policy (over legal actions) against π, in nats.
    pub policy_loss: f32,
    /// Mean squared error of the value against z.
    pub value_loss: f32,
    /// Entropy of the network's policy over legal actions, in nats.
    pub policy_entropy: f32,
    /// `policy_loss + value_loss_weight × value_loss` plus the weighted auxiliary losses
    /// (weight decay is in the optimizer).
    pub total_loss: f32,
    /// Global L2 norm of the gradient before clipping (0 when only evaluating the loss).
    pub grad_norm: f32,
    /// Learning rate used for the step (0 when only evaluating the loss).
    pub learning_rate: f64,
    /// Cross-entropy of the opponent-reply head against the move played next, in nats,
    /// over the samples with a next move; 0 when that head is not trained.
    #[serde(default)]
    pub aux_policy_loss: f32,
    /// Mean squared error of the ownership head per point; 0 when that head is not trained.
    #[serde(default)]
    pub aux_ownership_loss: f32,
}

/// The optimizer algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum OptimizerKind {
    /// AdamW (decoupled weight decay).
    AdamW {
        /// First-moment decay β₁ (0.9).
        beta1: f32,
        /// Second-moment decay β₂ (0.999).
        beta2: f32,
        /// ε (1e-8).
        epsilon: f32,
    },
    /// SGD with momentum; weight decay is an L2 penalty added to the gradient.
    Sgd {
        /// Momentum factor (0.9).
        momentum: f64,
        /// Nesterov momentum.
        nesterov: bool,
    },
}

impl OptimizerKind {
    /// AdamW with β₁ 0.9, β₂ 0.999, ε 1e-8.
    pub fn adamw() -> OptimizerKind {
        OptimizerKind::AdamW {
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
        }
    }

    /// SGD with momentum 0.9 (the AlphaZero paper's optimizer).
    pub fn sgd() -> OptimizerKind {
        OptimizerKind::Sgd {
            momentum: 0.9,
            nesterov: false,
        }
    }
}

/// Optimizer and loss settings of a [`Trainer`]. Saved as JSON in checkpoints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainerConfig {
    /// The optimizer.
    pub optimizer: OptimizerKind,
    /// Learning rate (the training loop schedules it over the run and sets it with
    /// [`Trainer::set_config`]).
    pub learning_rate: f64,
    /// Weight decay: decoupled for AdamW, L2 penalty for SGD (0 disables it).
    pub weight_decay: f32,
    /// Clip the global gradient L2 norm to this value (`None`: no clipping).
    pub grad_clip_norm: Option<f32>,
    /// Weight of the value MSE in the total loss.
    pub value_loss_weight: f32,
    /// Weight of the opponent-reply cross-entropy in the total loss; 0 (the default, and
    /// what checkpoints written before it read as) trains no such head. A positive weight
    /// gives the network the head ([`AuxHeads::reply_policy`]) if it lacks it.
    #[serde(default)]
    pub aux_policy_weight: f32,
    /// Weight of the ownership MSE in the total loss; 0 (the default) trains no such head,
    /// a positive weight gives the network the head ([`AuxHeads::ownership`]).
    #[serde(default)]
    pub aux_ownership_weight: f32,
}

impl Default for TrainerConfig {
    /// AdamW, learning rate 1e-3 constant, weight decay 1e-4, clipping at norm 5, value weight 1.
    fn default() -> Self {
        TrainerConfig {
            optimizer: OptimizerKind::adamw(),
            learning_rate: 1e-3,
            weight_decay: 1e-4,
            grad_clip_norm: Some(5.0),
            value_loss_weight: 1.0,
            aux_policy_weight: 0.0,
            aux_ownership_weight: 0.0,
        }
    }
}

impl TrainerConfig {
    /// Checks the numbers.
    ///
    /// # Errors
    /// [`NnError::InvalidConfig`] naming the bad field.
    pub fn validate(&self) -> Result<(), NnError> {
        let bad = |m: &str| Err(NnError::InvalidConfig(format!("{m} in {self:?}")));
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return bad("learning_rate must be positive");
        }
        if !(self.weight_decay.is_finite() && self.weight_decay >= 0.0) {
            return bad("weight_decay must be non-negative");
        }
        if let Some(c) = self.grad_clip_norm {
            if !(c.is_finite() && c > 0.0) {
                return bad("grad_clip_norm must be positive");
            }
        }
        if !(self.value_loss_weight.is_finite() && self.value_loss_weight >= 0.0) {
            return bad("value_loss_weight must be non-negative");
        }
        if !(self.aux_policy_weight.is_finite() && self.aux_policy_weight >= 0.0) {
            return bad("aux_policy_weight must be non-negative");
        }
        if !(self.aux_ownership_weight.is_finite() && self.aux_ownership_weight >= 0.0) {
            return bad("aux_ownership_weight must be non-negative");
        }
        Ok(())
    }

    /// The auxiliary heads this configuration trains (those of positive weight).
    pub fn aux_heads(&self) -> AuxHeads {
        AuxHeads {
            reply_policy: self.aux_policy_weight > 0.0,
            ownership: self.aux_ownership_weight > 0.0,
        }
    }

    fn build_optimizer(&self) -> ModuleOptimizer {
        match self.optimizer {
            OptimizerKind::AdamW {
                beta1,
                beta2,
                epsilon,
            } => AdamWConfig::new()
                .with_beta_1(beta1)
                .with_beta_2(beta2)
                .with_epsilon(epsilon)
                .with_weight_decay(self.weight_decay)
                .init(),
            OptimizerKind::Sgd { momentum, nesterov } => {
                let wd =
                    (self.weight_decay > 0.0).then(|| WeightDecayConfig::new(self.weight_decay));
                SgdConfig::new()
                    .with_weight_decay(wd)
                    .with_momentum(Some(
                        MomentumConfig::new()
                            .with_momentum(momentum)
                            .with_dampening(0.0)
                            .with_nesterov(nesterov),
                    ))
                    .init()
            }
        }
    }
}

/// Sums the squares of every parameter's gradient, or scales every gradient.
struct GradVisitor<'a> {
    grads: &'a mut GradientsParams,
    scale: Option<f32>,
    squares: Vec<Tensor<1>>,
}

impl ModuleVisitor for GradVisitor<'_> {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        match self.scale {
            None => {
                if let Some(g) = self.grads.get::<D>(param.id) {
                    self.squares.push(g.square().sum());
                }
            }
            Some(s) => {
                if let Some(g) = self.grads.remove::<D>(param.id) {
                    self.grads.register::<D>(param.id, g.mul_scalar(s));
                }
            }
        }
    }
}

/// Trains a [`PolicyValueNet`]: holds the model (on an autodiff device), the optimizer state
/// and the step counter.
pub struct Trainer {
    model: PolicyValueNet,
    optimizer: ModuleOptimizer,
    model_config: ModelConfig,
    config: TrainerConfig,
    step: u64,
    device: Device,
}

impl std::fmt::Debug for Trainer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trainer")
            .field("model_config", &self.model_config)
            .field("config", &self.config)
            .field("step", &self.step)
            .field("device", &self.device)
            .finish()
    }
}

impl Trainer {
    /// A trainer for a freshly initialised network on `device` (a plain device such as
    /// [`crate::default_device`]; autodiff is enabled internally).
    ///
    /// # Errors
    /// [`NnError::InvalidConfig`] for a bad model or training configuration.
    pub fn new(
        model_config: &ModelConfig,
        config: TrainerConfig,
        device: &Device,
    ) -> Result<Trainer, NnError> {
        model_config.validate()?;
        let model = model_config.init(&device.clone().autodiff());
        Trainer::from_model(model, model_config, config, device, 0)
    }

    /// A trainer continuing from `model` (e.g. loaded from a checkpoint) at step `step`, with a
    /// fresh optimizer state.
    ///
    /// The model keeps the auxiliary heads it has, and gets those `config` trains (positive
    /// weight) that it lacks, freshly initialised; the trainer's model config names them all
    /// ([`Trainer::model_config`], what its checkpoints record), whatever `model_config` says
    /// of them.
    ///
    /// # Errors
    /// [`NnError::InvalidConfig`] for a bad configuration.
    pub fn from_model(
        model: PolicyValueNet,
        model_config: &ModelConfig,
        config: TrainerConfig,
        device: &Device,
        step: u64,
    ) -> Result<Trainer, NnError> {
        model_config.validate()?;
        config.validate()?;
        let ad = device.clone().autodiff();
        let heads = model.aux_heads().union(config.aux_heads());
        let model_config = model_config.clone().with_aux(heads);
        let model = model.fork(&ad).add_aux_heads(&model_config, &ad).train();
        Ok(Trainer {
            model,
            optimizer: config.build_optimizer(),
            model_config,
            config,
            step,
            device: ad,
        })
    }

    /// One optimizer step on `batch`: forward in training mode (batch-norm on batch
    /// statistics, running statistics updated), loss, backward, global gradient-norm
    /// clipping, optimizer update at the scheduled learning rate. Increments the step count.
    ///
    /// # Errors
    /// [`NnError::BatchShape`] if the batch is empty or does not fit the model;
    /// [`NnError::NonFinite`] if the loss is not finite (the model is then left unchanged).
    pub fn train_step(&mut self, batch: &Batch) -> Result<TrainStats, NnError> {
        batch.check_model(&self.model_config)?;
        let t = batch.tensors(&self.device);
        let heads = self.config.aux_heads();
        let out = self.model.forward_with_aux(t.planes.clone(), heads);
        let (policy_loss, value_loss, entropy) = loss_terms(out.logits, out.values, &t);
        let aux_t = batch.aux_tensors(heads, &self.device);
        let (reply_loss, ownership_loss) = aux_loss_terms(out.reply_logits, out.ownership, &aux_t);
        let mut total =
            policy_loss.clone() + value_loss.clone().mul_scalar(self.config.value_loss_weight);
        if let Some(l) = &reply_loss {
            total = total + l.clone().mul_scalar(self.config.aux_policy_weight);
        }
        if let Some(l) = &ownership_loss {
            total = total + l.clone().mul_scalar(self.config.aux_ownership_weight);
        }
        let zero = || Tensor::<1>::zeros([1], &self.device);
        let reply_loss = reply_loss.unwrap_or_else(zero);
        let ownership_loss = ownership_loss.unwrap_or_else(zero);
        let grads = total.backward();
        let mut grads = GradientsParams::from_grads(grads, &self.model);

        let mut visitor = GradVisitor {
            grads: &mut grads,
            scale: None,
            squares: Vec::new(),
        };
        self.model.visit(&mut visitor);
        let squares = std::mem::take(&mut visitor.squares);
        let sq_sum = Tensor::cat(squares, 0).sum();
        let figures = Tensor::cat(
            vec![
                policy_loss.detach().without_autodiff(),
                value_loss.detach().without_autodiff(),
                entropy.detach().without_autodiff(),
                total.detach().without_autodiff(),
                sq_sum.detach().without_autodiff(),
                reply_loss.detach().without_autodiff(),
                ownership_loss.detach().without_autodiff(),
            ],
            0,
        )
        .into_data();
        let f: Vec<f32> = figures
            .try_to_vec::<f32>()
            .map_err(|e| NnError::Backend(format!("reading the loss: {e:?}")))?;
        let grad_norm = f[4].sqrt();
        if !f.iter().all(|x| x.is_finite()) {
            return Err(NnError::NonFinite(format!(
                "step {}: policy loss {}, value loss {}, reply loss {}, ownership loss {}, \
                 gradient norm {grad_norm}",
                self.step, f[0], f[1], f[5], f[6]
            )));
        }
        if let Some(max) = self.config.grad_clip_norm {
            if grad_norm > max {
                let mut visitor = GradVisitor {
                    grads: &mut grads,
                    scale: Some(max / grad_norm),
                    squares: Vec::new(),
                };
                self.model.visit(&mut visitor);
            }
        }
        let lr = self.learning_rate();
        self.model = self.optimizer.step(lr, self.model.clone(), grads);
        self.step += 1;
        Ok(TrainStats {
            policy_loss: f[0],
            value_loss: f[1],
            policy_entropy: f[2],
            total_loss: f[3],
            grad_norm,
            learning_rate: lr,
            aux_policy_loss: f[5],
            aux_ownership_loss: f[6],
        })
    }

    /// The learning rate the next step will use.
    pub fn learning_rate(&self) -> f64 {
        self.config.learning_rate
    }

    /// Number of optimizer steps taken (including those before a checkpoint was loaded).
    pub fn step(&self) -> u64 {
        self.step
    }

    /// The model in training state (parameters on the autodiff device).
    pub fn model(&self) -> &PolicyValueNet {
        &self.model
    }

    /// An inference copy of the model: no autodiff, batch norm on running statistics
    /// (synchronised with the latest training step).
    pub fn inference_model(&self) -> PolicyValueNet {
        self.model.valid()
    }

    /// The model's configuration.
    pub fn model_config(&self) -> &ModelConfig {
        &self.model_config
    }

    /// The training configuration.
    pub fn config(&self) -> &TrainerConfig {
        &self.config
    }

    /// Replaces the training configuration (e.g. a new learning rate). The optimizer state is
    /// kept when the optimizer kind is unchanged and reset otherwise. An auxiliary head that
    /// `config` trains and the model lacks is added, freshly initialised (heads are never
    /// removed).
    ///
    /// # Errors
    /// [`NnError::InvalidConfig`] for a bad configuration; nothing changes then.
    pub fn set_config(&mut self, config: TrainerConfig) -> Result<(), NnError> {
        config.validate()?;
        let heads = self.model_config.aux().union(config.aux_heads());
        if heads != self.model_config.aux() {
            self.model_config = self.model_config.clone().with_aux(heads);
            self.model = self
                .model
                .clone()
                .add_aux_heads(&self.model_config, &self.device);
        }
        if config.optimizer != self.config.optimizer
            || config.weight_decay != self.config.weight_decay
        {
            let same_kind = std::mem::discriminant(&config.optimizer)
                == std::mem::discriminant(&self.config.optimizer);
            let mut optimizer = config.build_optimizer();
            if same_kind {
                let bytes = self.optimizer_bytes()?;
                optimizer = optimizer
                    .from_bytes(Bytes::from_bytes_vec(bytes))
                    .map_err(|e| NnError::Backend(format!("restoring the optimizer: {e}")))?;
            }
            self.optimizer = optimizer;
        }
        self.config = config;
        Ok(())
    }

    /// The optimizer state as burnpack bytes (keyed by parameter id).
    ///
    /// # Errors
    /// [`NnError::Backend`] if burn fails to serialise it.
    pub fn optimizer_bytes(&self) -> Result<Vec<u8>, NnError> {
        let bytes = self
            .optimizer
            .into_bytes()
            .map_err(|e| NnError::Backend(format!("serialising the optimizer state: {e}")))?;
        Ok(bytes.to_vec())
    }

    /// Restores the optimizer state from [`Trainer::optimizer_bytes`] of a trainer whose model
    /// has the same parameter ids (see [`crate::checkpoint`]).
    ///
    /// # Errors
    /// [`NnError::Backend`] if the bytes are not an optimizer record.
    pub fn load_optimizer_bytes(&mut self, bytes: &[u8]) -> Result<(), NnError> {
        self.optimizer = self
            .config
            .build_optimizer()
            .from_bytes(Bytes::from_bytes_vec(bytes.to_vec()))
            .map_err(|e| NnError::Backend(format!("reading the optimizer state: {e}")))?;
        Ok(())
    }

    /// The (autodiff) device the model trains on.
    pub fn device(&self) -> &Device {
        &self.device
    }
}

/// Policy loss, value loss and entropy of `net` on `batch` **in inference mode** (batch norm
/// on running statistics, no gradient); `grad_norm`, `learning_rate` and the auxiliary
/// losses are 0.
///
/// # Errors
/// [`NnError::BatchShape`] if the batch is empty or does not fit `config`.
pub fn evaluate_loss(
    net: &PolicyValueNet,
    config: &ModelConfig,
    value_loss_weight: f32,
    batch: &Batch,
    device: &Device,
) -> Result<TrainStats, NnError> {
    batch.check_model(config)?;
    let net = net.valid();
    let t = batch.tensors(device);
    let (logits, values) = net.forward(t.planes.clone());
    let (p, v, e) = loss_terms(logits, values, &t);
    let total = p.clone() + v.clone().mul_scalar(value_loss_weight);
    let f: Vec<f32> = Tensor::cat(vec![p, v, e, total], 0)
        .into_data()
        .try_to_vec::<f32>()
        .map_err(|e| NnError::Backend(format!("reading the loss: {e:?}")))?;
    Ok(TrainStats {
        policy_loss: f[0],
        value_loss: f[1],
        policy_entropy: f[2],
        total_loss: f[3],
        grad_norm: 0.0,
        learning_rate: 0.0,
        aux_policy_loss: 0.0,
        aux_ownership_loss: 0.0,
    })
}

/// Mean KL divergence KL(old ‖ new) of the two networks' policies over the legal actions of
/// each position of `batch`, in nats (both run in inference mode). Measures how far one
/// training round moved the policy.
///
/// # Errors
/// [`NnError::BatchShape`] if the batch is empty or does not fit `config`.
pub fn kl_divergence(
    old_net: &PolicyValueNet,
    new_net: &PolicyValueNet,
    config: &ModelConfig,
    batch: &Batch,
    device: &Device,
) -> Result<f32, NnError> {
    batch.check_model(config)?;
    let t = batch.tensors(device);
    let (old_logits, _) = old_net.valid().forward(t.planes.clone());
    let (new_logits, _) = new_net.valid().forward(t.planes);
    let lp_old = masked_log_softmax(old_logits, t.mask.clone());
    let lp_new = masked_log_softmax(new_logits, t.mask.clone());
    let kl = (lp_old.clone().exp() * (lp_old - lp_new) * t.mask)
        .sum_dim(1)
        .mean();
    let v: Vec<f32> = kl
        .into_data()
        .try_to_vec::<f32>()
        .map_err(|e| NnError::Backend(format!("reading the KL divergence: {e:?}")))?;
    Ok(v[0])
}
