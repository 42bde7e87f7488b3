//! The batched network [`Evaluator`] used by the search.

use std::marker::PhantomData;
use std::sync::Arc;

use alphazero_game::count_repetitions;
use alphazero_mcts::{EvalError, EvalRequest, Evaluator};
use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};

use crate::{Conv3x3Algorithm, Encode, FoldedNet, ModelConfig, NnError, PolicyValueNet};

/// Evaluates positions with a [`PolicyValueNet`] in inference mode (no autodiff, batch norm
/// on running statistics).
///
/// Each call encodes the whole batch into one `[B, C, H, W]` array (Xiangqi's repetition
/// count is read from the request's history), runs one forward pass and copies the policy
/// logits `[B, A]` and values `[B]` (from each position's side to move) into the caller's
/// buffers. On the CPU (burn's Flex device) the forward pass is the [`FoldedNet`] (batch norm
/// folded into the convolutions, one GEMM per layer for the whole batch); on other devices
/// (CUDA) it is burn's eval-mode forward. It is `Send + Sync`; concurrent calls run
/// concurrently.
///
/// Wrap it in `alphazero_mcts::CachedEvaluator` to avoid re-evaluating transpositions and
/// repeated positions (the cache key is [`alphazero_game::Game::eval_key`]).
///
/// Cloning is cheap: the clones share the network's weights (read-only), e.g. one evaluator
/// per self-play worker thread, each behind its own cache.
pub struct NetworkEvaluator<G: Encode> {
    forward: Forward,
    config: ModelConfig,
    device: Device,
    _game: PhantomData<fn() -> G>,
}

impl<G: Encode> std::fmt::Debug for NetworkEvaluator<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetworkEvaluator")
            .field("game", &G::NAME)
            .field("config", &self.config)
            .field("device", &self.device)
            .finish()
    }
}

impl<G: Encode> Clone for NetworkEvaluator<G> {
    fn clone(&self) -> Self {
        NetworkEvaluator {
            forward: self.forward.clone(),
            config: self.config.clone(),
            device: self.device.clone(),
            _game: PhantomData,
        }
    }
}

/// The forward pass an evaluator runs: exactly one copy of the weights, shared by clones.
#[derive(Clone)]
enum Forward {
    /// The folded CPU path (burn's Flex device).
    Folded(Arc<FoldedNet>),
    /// burn's eval-mode forward on the evaluator's device (CUDA, or the CPU reference).
    Burn(Arc<PolicyValueNet>),
}

impl Forward {
    fn new(
        net: &PolicyValueNet,
        config: &ModelConfig,
        device: &Device,
        folded: Option<Conv3x3Algorithm>,
    ) -> Result<Forward, NnError> {
        Ok(if let Some(algorithm) = folded {
            Forward::Folded(Arc::new(FoldedNet::with_algorithm(net, config, algorithm)?))
        } else {
            Forward::Burn(Arc::new(net.valid().to_device(device)))
        })
    }
}

impl<G: Encode> NetworkEvaluator<G> {
    /// An evaluator running `net` (of shape `config`) on `device` (a plain device; a net on
    /// an autodiff device is converted with `valid()` and moved).
    ///
    /// # Errors
    /// [`NnError::InvalidConfig`] if `config` is invalid.
    pub fn new(
        net: &PolicyValueNet,
        config: &ModelConfig,
        device: &Device,
    ) -> Result<NetworkEvaluator<G>, NnError> {
        let cpu = device.clone().without_autodiff() == Device::flex();
        Self::build(net, config, device, cpu.then_some(Conv3x3Algorithm::Auto))
    }

    /// On the CPU, an evaluator whose folded network computes its 3×3 convolutions with
    /// `algorithm` (e.g. [`Conv3x3Algorithm::Direct`] to measure against); on other devices
    /// the same as [`NetworkEvaluator::new`].
    ///
    /// # Errors
    /// [`NnError::InvalidConfig`] if `config` is invalid.
    pub fn with_algorithm(
        net: &PolicyValueNet,
        config: &ModelConfig,
        device: &Device,
        algorithm: Conv3x3Algorithm,
    ) -> Result<NetworkEvaluator<G>, NnError> {
        let cpu = device.clone().without_autodiff() == Device::flex();
        Self::build(net, config, device, cpu.then_some(algorithm))
    }

    fn build(
        net: &PolicyValueNet,
        config: &ModelConfig,
        device: &Device,
        folded: Option<Conv3x3Algorithm>,
    ) -> Result<NetworkEvaluator<G>, NnError> {
        config.validate()?;
        let device = device.clone().without_autodiff();
        Ok(NetworkEvaluator {
            forward: Forward::new(net, config, &device, folded)?,
            config: config.clone(),
            device,
            _game: PhantomData,
        })
    }

    /// The network's configuration.
    pub fn model_config(&self) -> &ModelConfig {
        &self.config
    }

    /// An evaluator that always runs burn's eval-mode forward, also on the CPU (the
    /// reference the folded path is checked against, and a figure in `alphazero bench nn`).
    ///
    /// # Errors
    /// [`NnError::InvalidConfig`] if `config` is invalid.
    pub fn with_burn_forward(
        net: &PolicyValueNet,
        config: &ModelConfig,
        device: &Device,
    ) -> Result<NetworkEvaluator<G>, NnError> {
        Self::build(net, config, device, None)
    }

    fn check(&self, pos: &G) -> Result<(), EvalError> {
        let (h, w) = pos.board_shape();
        let c = G::num_planes(pos.config());
        let a = pos.num_actions();
        let m = &self.config;
        if (c, h, w, a) != (m.input_planes, m.board_height, m.board_width, m.num_actions) {
            return Err(EvalError(format!(
                "position of {} planes {h}×{w} and {a} actions does not fit the network \
                 ({} planes {}×{}, {} actions)",
                c, m.input_planes, m.board_height, m.board_width, m.num_actions
            )));
        }
        Ok(())
    }
}

impl<G: Encode> Evaluator<G> for NetworkEvaluator<G> {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, G>],
        policy_logits: &mut [f32],
        values: &mut [f32],
    ) -> Result<(), EvalError> {
        let b = batch.len();
        let m = &self.config;
        let a = m.num_actions;
        if policy_logits.len() != b * a || values.len() != b {
            return Err(EvalError(format!(
                "buffers of {} logits and {} values for a batch of {b} with {a} actions",
                policy_logits.len(),
                values.len()
            )));
        }
        if b == 0 {
            return Ok(());
        }
        let per = m.input_planes * m.board_height * m.board_width;
        let mut planes = vec![0.0f32; b * per];
        for (req, out) in batch.iter().zip(planes.chunks_exact_mut(per)) {
            self.check(req.position)?;
            let reps = count_repetitions(req.history, req.position.zobrist());
            req.position.encode(reps, out);
        }
        let net = match &self.forward {
            Forward::Folded(folded) => {
                return folded
                    .forward(&planes, policy_logits, values)
                    .map_err(|e| EvalError(e.to_string()));
            }
            Forward::Burn(net) => net,
        };
        let input: Tensor<4> = Tensor::from_data(
            TensorData::new(planes, [b, m.input_planes, m.board_height, m.board_width]),
            &self.device,
        );
        let (logits, v) = net.forward(input);
        let logits = logits
            .into_data()
            .try_into_vec::<f32>()
            .map_err(|e| EvalError(format!("reading policy logits: {e:?}")))?;
        let v = v
            .into_data()
            .try_into_vec::<f32>()
            .map_err(|e| EvalError(format!("reading values: {e:?}")))?;
        policy_logits.copy_from_slice(&logits);
        values.copy_from_slice(&v);
        Ok(())
    }
}
