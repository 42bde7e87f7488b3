//! The AlphaZero policy-value network on [burn](https://burn.dev) 0.22: input encoders, the
//! residual network, the training step, checkpoints and the batched network evaluator.
//!
//! # Backend
//!
//! burn 0.22 tensors carry their backend in their [`Device`], so model code has no backend
//! type parameter. [`default_device`] is burn's pure-Rust CPU backend (Flex), or CUDA device 0
//! when the crate is built with the `cuda` feature; with the `wgpu` feature (Vulkan, Metal,
//! DirectX 12) a wgpu device is asked for by name ([`device_from_name`]). Training enables
//! autodiff on the device internally; inference runs on the plain device.
//!
//! # Network
//!
//! [`PolicyValueNet`]: conv3×3 stem → BN → ReLU, `N` residual blocks, a policy head
//! (1×1 conv → BN → ReLU → linear to `A` logits) and a value head (1×1 conv → BN → ReLU →
//! linear → ReLU → linear → tanh). Input `[B, C, H, W]`; output policy logits `[B, A]` and
//! values `[B]` in [-1, 1], both from the side to move. Sizes are [`ModelConfig`]
//! ([`ModelPreset`]: tiny 1×8 for tests … large 10×128). Optionally some residual blocks
//! carry KataGo's global pooling bias ([`GlobalPooling`], off by default).
//!
//! Training-only auxiliary heads ([`AuxHeads`], KataGo's auxiliary targets) may sit beside
//! them: an opponent-reply policy head (logits `[B, A]` for the move the opponent plays
//! next) and an ownership head (`[B, H·W]` in [-1, 1], [`Encode::ownership`]). Only
//! [`PolicyValueNet::forward_with_aux`] runs them; inference ([`PolicyValueNet::forward`],
//! [`FoldedNet`], [`NetworkEvaluator`]) ignores them, so they cost nothing in play.
//!
//! # Input encodings
//!
//! Planes are `[C, H, W]` row-major, `H × W` = [`alphazero_game::Game::board_shape`], always
//! **from the side to move** ([`Encode`], re-exported from `alphazero-registry`, where each
//! game's encoder lives with the rest of its registry code; its docs give every game's planes).
//!
//! # Training
//!
//! [`Trainer::train_step`] on a [`Batch`]: loss = cross-entropy of the policy over **legal
//! actions only** (illegal logits set to [`train::ILLEGAL_LOGIT`] before the log-softmax)
//! against π, plus `value_loss_weight` × MSE(value, z); weight decay is the optimizer's
//! (decoupled for AdamW, L2 for SGD with momentum); optional global gradient-norm clipping;
//! the learning rate is set by the caller (the training loop schedules it over the run).
//! With positive [`TrainerConfig::aux_policy_weight`] / [`TrainerConfig::aux_ownership_weight`]
//! the loss adds the reply head's cross-entropy (softmax over the whole action space, over the
//! samples with a next move) and the ownership head's per-point MSE, weighted, on the targets
//! of [`Batch::push_with_aux`]; the trainer adds a weighted head the network lacks.
//!
//! On burn's Flex CPU device the trunk's 3×3 convolutions ([`conv3x3`]) and the batch norms in
//! training mode ([`batch_norm`], fused with the ReLU and the residual addition after them)
//! are burn *backend extensions* with hand-written backward passes (per-sample GEMMs with
//! im2col/col2im, or, from 16 channels on AVX2 CPUs, Winograd F(4×4, 3×3) forward and
//! backward, see `winograd.rs`; per-channel reductions in place). Where Winograd runs, the
//! residual blocks keep their activations NHWC, the Winograd kernels' layout
//! ([`PolicyValueNet::trunk_layout`]):
//! burn 0.22's generic convolution backward and batch-norm reductions copy and scatter the
//! activations and ran at half the machine's matrix-product rate. Both are checked against
//! burn's own layers (outputs and every gradient); on CUDA burn's layers are used unchanged.
//!
//! # Checkpoints
//!
//! [`save_checkpoint`] / [`load_checkpoint`]: one versioned file (see [`checkpoint`]).
//! [`export::export_network`]: plain safetensors plus a JSON description for other programs.
//!
//! # Inference
//!
//! [`NetworkEvaluator`] implements `alphazero_mcts::Evaluator` on the [`FoldedNet`] (3×3
//! convolutions as Winograd F(4×4, 3×3) where [`Conv3x3Algorithm::choose`] says so); wrap it in
//! `alphazero_mcts::CachedEvaluator` for self-play and play.
#![deny(missing_docs)]

pub mod batch_norm;
pub mod bench;
pub mod checkpoint;
pub mod conv3x3;
mod evaluator;
pub mod export;
mod folded;
mod grow;
mod model;
mod narrow;
pub mod onnx;
#[cfg(test)]
mod test_util;
pub mod train;
mod winograd;

pub use alphazero_registry::{transform_policy, Encode};
pub use burn::tensor::Device;
pub use checkpoint::{
    canonical_weights, checkpoint_from_bytes, checkpoint_to_bytes, load_any_checkpoint,
    load_checkpoint, model_to_bytes, save_checkpoint, save_model, Checkpoint, CheckpointError,
    CheckpointHeader,
};
pub use evaluator::NetworkEvaluator;
pub use folded::{Conv3x3Algorithm, FoldedNet};
pub use model::{
    AuxHeads, AuxOutput, GlobalPooling, ModelConfig, ModelPreset, PolicyValueNet, ReplyPolicyHead,
    ResidualBlock, ValuePool,
};
pub use train::{
    evaluate_loss, kl_divergence, masked_log_softmax, policy_cross_entropy, AuxTargets, Batch,
    OptimizerKind, TrainStats, Trainer, TrainerConfig,
};
pub use winograd::Tile;

/// Errors of the network crate (other than checkpoint files, see [`CheckpointError`]).
#[derive(Debug, thiserror::Error)]
pub enum NnError {
    /// A model or training configuration is invalid; carries the message and the config.
    #[error("invalid configuration: {0}")]
    InvalidConfig(String),
    /// An unknown model preset name; carries the name.
    #[error("unknown model preset {0:?} (expected tiny, small, medium, large or BLOCKSxCHANNELS)")]
    UnknownPreset(String),
    /// A batch or sample has the wrong shape; says which part and both sizes.
    #[error("batch shape: {0}")]
    BatchShape(String),
    /// The loss or gradient is NaN or infinite.
    #[error("non-finite training figures: {0}")]
    NonFinite(String),
    /// An unknown device name; carries the name.
    #[error("unknown device {0:?} (expected cpu, flex, cuda[:N] or wgpu[:N])")]
    UnknownDevice(String),
    /// A device of a backend this build was compiled without.
    #[error(
        "device {name:?}: this build has no {feature} support (rebuild with \
         `--features {feature}`); use cpu"
    )]
    MissingFeature {
        /// The device name as given.
        name: String,
        /// The cargo feature that brings the backend (`cuda`, `wgpu`).
        feature: &'static str,
    },
    /// A GPU device the machine does not have: no driver answers, or fewer adapters than the
    /// index asks for.
    #[error("device {name:?}: {reason}")]
    NoAdapter {
        /// The device name as given.
        name: String,
        /// What was looked for and what was found.
        reason: String,
    },
    /// burn reported an error.
    #[error("backend: {0}")]
    Backend(String),
}

/// The default device: CUDA device 0 with the `cuda` feature, burn's Flex CPU backend
/// otherwise (the `wgpu` feature leaves the default on the CPU: a wgpu device is asked for by
/// name).
pub fn default_device() -> Device {
    #[cfg(feature = "cuda")]
    {
        Device::cuda(0usize)
    }
    #[cfg(not(feature = "cuda"))]
    {
        Device::flex()
    }
}

/// A device by name: `cpu` / `flex` (Flex CPU backend), `cuda` / `cuda:N` (with the `cuda`
/// feature), `wgpu` (the adapter wgpu ranks best: a discrete GPU first) / `wgpu:N` (the `N`th
/// adapter of the graphics API wgpu settles on: Vulkan, Metal or DirectX 12; with the `wgpu`
/// feature), `default` ([`default_device`]).
///
/// # Errors
/// [`NnError::UnknownDevice`] for another name or a bad index, [`NnError::MissingFeature`] for
/// a CUDA or wgpu device in a build without that feature, [`NnError::NoAdapter`] for a wgpu
/// device the machine has no adapter for (no GPU driver, or fewer adapters than `N + 1`).
pub fn device_from_name(name: &str) -> Result<Device, NnError> {
    let n = name.trim().to_ascii_lowercase();
    let index = |prefix: &str| -> Result<Option<usize>, NnError> {
        match n.strip_prefix(prefix) {
            Some("") => Ok(None),
            Some(rest) => match rest.strip_prefix(':').map(str::parse::<usize>) {
                Some(Ok(i)) => Ok(Some(i)),
                _ => Err(NnError::UnknownDevice(name.to_string())),
            },
            None => Err(NnError::UnknownDevice(name.to_string())),
        }
    };
    match n.as_str() {
        "default" => Ok(default_device()),
        "cpu" | "flex" => Ok(Device::flex()),
        _ if n.starts_with("cuda") => {
            let idx = index("cuda")?;
            #[cfg(feature = "cuda")]
            {
                Ok(Device::cuda(idx.unwrap_or(0)))
            }
            #[cfg(not(feature = "cuda"))]
            {
                let _ = idx;
                Err(NnError::MissingFeature {
                    name: name.to_string(),
                    feature: "cuda",
                })
            }
        }
        _ if n.starts_with("wgpu") => {
            let idx = index("wgpu")?;
            wgpu_device(name, idx)
        }
        _ => Err(NnError::UnknownDevice(name.to_string())),
    }
}

/// The wgpu device `name` (`wgpu`, or `wgpu:index`), once an adapter is known to answer:
/// burn brings a wgpu device up lazily and panics on its first tensor when none does.
#[cfg(feature = "wgpu")]
fn wgpu_device(name: &str, index: Option<usize>) -> Result<Device, NnError> {
    use burn::tensor::{DeviceKind, DeviceType};
    let adapters = Device::enumerate(DeviceType::Wgpu);
    let no_adapter = |reason: String| NnError::NoAdapter {
        name: name.to_string(),
        reason,
    };
    match index {
        _ if adapters.is_empty() => Err(no_adapter(
            "no wgpu adapter found (no Vulkan, Metal or DirectX 12 driver answered; on Linux \
             install the GPU's Vulkan driver and the Vulkan loader, libvulkan1)"
                .to_string(),
        )),
        None => Ok(Device::wgpu(DeviceKind::DefaultDevice)),
        Some(i) => adapters.get(i).cloned().ok_or_else(|| {
            no_adapter(format!(
                "wgpu adapter {i} asked for, this machine has {} (wgpu:0 to wgpu:{})",
                adapters.len(),
                adapters.len() - 1
            ))
        }),
    }
}

#[cfg(not(feature = "wgpu"))]
fn wgpu_device(name: &str, _index: Option<usize>) -> Result<Device, NnError> {
    Err(NnError::MissingFeature {
        name: name.to_string(),
        feature: "wgpu",
    })
}
