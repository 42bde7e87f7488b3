//! The policy-value residual network and its configuration.

use burn::config::Config;
use burn::module::{Module, Param};
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::{relu, tanh};
use burn::tensor::{Device, Tensor};
use serde::{Deserialize, Serialize};

use alphazero_registry::PolicyPlanes;
use burn::tensor::{Int, TensorData};

use crate::batch_norm::{batch_norm_act, Activation};
use crate::conv3x3::{conv3x3_forward, Layout};

/// Global pooling in residual blocks (Wu, "Accelerating Self-Play Learning in Go", arXiv
/// 1902.10565, §"Global pooling"): in each of [`GlobalPooling::blocks`], the output of the
/// first convolution (after its batch norm) is split into the first `C − c_g` *regular*
/// channels and the last `c_g` = [`GlobalPooling::channels`] *pooled* ones; the pooled
/// channels go through a ReLU and are averaged and maximised over the board, and a linear
/// layer turns those `2·c_g` figures into one bias per regular channel, added before the
/// regular channels' ReLU. The second convolution then reads the `C − c_g` regular channels
/// only. A convolution sees a 3×3 neighbourhood; the bias carries whole-board facts (a
/// threat anywhere, the material balance) to every point in one block.
///
/// KataGo adds the bias to its pre-activation block's `conv1` output before the batch norm
/// and ReLU; the blocks here are post-activation (conv → BN → ReLU), so the bias goes after
/// the batch norm and before the ReLU: it still moves each channel's ReLU threshold per
/// position, and the batch statistics do not absorb it.
///
/// The pooled features are the mean and the max of each pooled channel. KataGo also feeds a
/// third, the mean scaled by `(board width − 14)/10`, so that one network can tell board
/// sizes apart; a network here has one board size, so that feature would be the mean times
/// a constant, which the linear layer already has.
///
/// Saved in every checkpoint header as [`ModelConfig::global_pooling`]; checkpoints written
/// before it read as `None` (no pooling).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GlobalPooling {
    /// Indices (0-based, ascending, each below [`ModelConfig::residual_blocks`]) of the
    /// residual blocks that have the pooling bias.
    pub blocks: Vec<usize>,
    /// `c_g`: how many of the first convolution's output channels are pooled (the last
    /// `c_g`); at least 1 and below [`ModelConfig::channels`].
    pub channels: usize,
}

impl GlobalPooling {
    /// The placement and width this crate uses when asked for global pooling in a trunk of
    /// `residual_blocks` blocks of `channels` channels:
    ///
    /// * blocks: every third block from the third (indices 2, 5, 8, …), as KataGo spaces its
    ///   pooling blocks through the trunk, so that the blocks before them have built local
    ///   features worth pooling and later blocks can use the pooled facts; a trunk of one or
    ///   two blocks pools in its last block;
    /// * channels: a quarter of the channels (KataGo's b10c128 and b20c256 pool 32 of 128
    ///   and 64 of 256), rounded down to a multiple of 8 from 32 channels on so that the
    ///   second convolution's `C − c_g` inputs stay a multiple of 8 (the vectorised
    ///   Winograd kernels, [`crate::Conv3x3Algorithm::choose`]); at least 1.
    ///
    /// Returns `None` when the trunk cannot pool (no block, or fewer than 2 channels).
    pub fn default_for(residual_blocks: usize, channels: usize) -> Option<GlobalPooling> {
        if residual_blocks == 0 || channels < 2 {
            return None;
        }
        let blocks = if residual_blocks < 3 {
            vec![residual_blocks - 1]
        } else {
            (2..residual_blocks).step_by(3).collect()
        };
        let quarter = channels / 4;
        let pooled = if quarter >= 8 {
            quarter / 8 * 8
        } else {
            quarter.max(1)
        };
        Some(GlobalPooling {
            blocks,
            channels: pooled,
        })
    }

    /// Whether residual block `index` has the pooling bias.
    pub fn has_block(&self, index: usize) -> bool {
        self.blocks.contains(&index)
    }
}

/// How a value head reduces its `value_channels` planes `[B, c_v, H, W]` to the input of its
/// hidden layer ([`ModelConfig::value_pool`]).
///
/// Without it (`None`, the default and every checkpoint written before the field existed) the
/// planes are flattened: `c_v·H·W` inputs, one weight per board point, so the network fits
/// one board size only. [`ValuePool::MeanMax`] pools each channel over the board instead, as
/// KataGo's value head does (Wu, arXiv 1902.10565, §"Global pooling"): `3·c_v` inputs, the
/// means, the means times `(√(H·W) − 14)/10` (so that the layer can tell board sizes apart:
/// 0.1 on 15×15, 0.6 on 20×20) and the maxima. With the convolutional policy head
/// ([`ModelConfig::policy_planes`]) no weight depends on the board size
/// ([`ModelConfig::size_independent`]): the network runs on any board of its game
/// ([`ModelConfig::resized`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ValuePool {
    /// Mean, size-scaled mean and maximum of each channel over the board.
    MeanMax,
}

impl ValuePool {
    /// The size-scaled mean's factor `(√(H·W) − 14)/10` on a board of `points` points.
    pub fn size_scale(points: usize) -> f32 {
        ((points as f32).sqrt() - 14.0) / 10.0
    }
}

/// Shape and size of a [`PolicyValueNet`].
///
/// Saved as JSON in every checkpoint header (field names are part of the checkpoint format).
#[derive(Config, Debug, PartialEq)]
pub struct ModelConfig {
    /// Number of input planes `C` (see [`crate::Encode::num_planes`]).
    pub input_planes: usize,
    /// Board height `H` (rows of the input planes).
    pub board_height: usize,
    /// Board width `W` (columns of the input planes).
    pub board_width: usize,
    /// Size `A` of the action space (length of the policy logits).
    pub num_actions: usize,
    /// Number of residual blocks in the trunk.
    #[config(default = 6)]
    pub residual_blocks: usize,
    /// Number of channels of the trunk's 3×3 convolutions.
    #[config(default = 64)]
    pub channels: usize,
    /// Width of the value head's hidden linear layer.
    #[config(default = 64)]
    pub value_hidden: usize,
    /// Number of channels of the policy head's 1×1 convolution.
    #[config(default = 2)]
    pub policy_channels: usize,
    /// Number of channels of the value head's 1×1 convolution.
    #[config(default = 1)]
    pub value_channels: usize,
    /// The training-only auxiliary heads the network has ([`AuxHeads`]); `None`, the
    /// default and what headers written before these heads read as, is none of them. Set it
    /// with [`ModelConfig::with_aux`], which keeps "no heads" as `None`.
    pub aux_heads: Option<AuxHeads>,
    /// Global pooling in some residual blocks; `None` (the default, and every checkpoint
    /// written before the field existed): none.
    pub global_pooling: Option<GlobalPooling>,
    /// A convolutional policy head laid out by the game ([`PolicyPlanes`], from
    /// [`crate::Encode::policy_planes`]): conv1×1 → BN → ReLU → conv1×1 to `K` planes, each
    /// action's logit read at its own point. `None` (the default, and every checkpoint
    /// written before the field existed): the dense head, a linear layer from the flattened
    /// `policy_channels` planes to the `A` logits.
    pub policy_planes: Option<PolicyPlanes>,
    /// The value head's pooling over the board ([`ValuePool`]); `None` (the default, and
    /// every checkpoint written before the field existed): the planes are flattened into the
    /// hidden layer.
    pub value_pool: Option<ValuePool>,
}

/// The training-only auxiliary heads of a [`PolicyValueNet`]. They read the trunk's output
/// beside the policy and value heads, are trained by [`crate::Trainer`] when their loss
/// weights are positive ([`crate::TrainerConfig::aux_policy_weight`],
/// [`crate::TrainerConfig::aux_ownership_weight`]) and are never run in inference
/// ([`PolicyValueNet::forward`], [`crate::FoldedNet`] and [`crate::NetworkEvaluator`] skip
/// them): their only use is the extra gradient they give the trunk (KataGo's auxiliary
/// targets).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AuxHeads {
    /// The opponent-reply policy head: conv1×1 → BN → ReLU → linear to `A` logits (the
    /// policy head's shape), predicting the move the opponent plays after this position's
    /// move, as an action of the position it is played from.
    pub reply_policy: bool,
    /// The ownership head: conv1×1 (channels → 1) → tanh, one value in [-1, 1] per point
    /// `[H, W]` in the planes' frame, predicting [`crate::Encode::ownership`].
    pub ownership: bool,
}

impl AuxHeads {
    /// Whether no head is on.
    pub fn is_empty(&self) -> bool {
        !self.reply_policy && !self.ownership
    }

    /// The heads of either.
    pub fn union(self, other: AuxHeads) -> AuxHeads {
        AuxHeads {
            reply_policy: self.reply_policy || other.reply_policy,
            ownership: self.ownership || other.ownership,
        }
    }
}

/// Named network sizes, smallest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModelPreset {
    /// 1 block × 8 channels, value hidden 8: for tests only.
    Tiny,
    /// 2 blocks × 32 channels, value hidden 32: quick experiments on a CPU.
    Small,
    /// 6 blocks × 64 channels, value hidden 64: the default CPU training size.
    Medium,
    /// 10 blocks × 128 channels, value hidden 128: GPU-sized.
    Large,
}

impl ModelPreset {
    /// All presets, smallest first.
    pub const ALL: [ModelPreset; 4] = [
        ModelPreset::Tiny,
        ModelPreset::Small,
        ModelPreset::Medium,
        ModelPreset::Large,
    ];

    /// `(residual_blocks, channels, value_hidden)` of this preset.
    pub fn dims(self) -> (usize, usize, usize) {
        match self {
            ModelPreset::Tiny => (1, 8, 8),
            ModelPreset::Small => (2, 32, 32),
            ModelPreset::Medium => (6, 64, 64),
            ModelPreset::Large => (10, 128, 128),
        }
    }

    /// Lower-case name (`tiny`, `small`, `medium`, `large`).
    pub fn name(self) -> &'static str {
        match self {
            ModelPreset::Tiny => "tiny",
            ModelPreset::Small => "small",
            ModelPreset::Medium => "medium",
            ModelPreset::Large => "large",
        }
    }

    /// Parses a preset name as given by [`ModelPreset::name`], or `BLOCKSxCHANNELS` such as
    /// `6x64` for the preset with those dimensions.
    ///
    /// # Errors
    /// [`crate::NnError::UnknownPreset`] with the rejected text.
    pub fn parse(text: &str) -> Result<ModelPreset, crate::NnError> {
        let t = text.trim().to_ascii_lowercase();
        ModelPreset::ALL
            .into_iter()
            .find(|p| {
                let (b, c, _) = p.dims();
                p.name() == t || format!("{b}x{c}") == t
            })
            .ok_or_else(|| crate::NnError::UnknownPreset(text.to_string()))
    }
}

impl ModelConfig {
    /// A config of the given preset size for an input of `input_planes × board_height ×
    /// board_width` planes and `num_actions` actions.
    pub fn preset(
        preset: ModelPreset,
        input_planes: usize,
        board_height: usize,
        board_width: usize,
        num_actions: usize,
    ) -> ModelConfig {
        let (blocks, channels, hidden) = preset.dims();
        ModelConfig::new(input_planes, board_height, board_width, num_actions)
            .with_residual_blocks(blocks)
            .with_channels(channels)
            .with_value_hidden(hidden)
    }

    /// A config of the given preset size for game `G` with game configuration `config`.
    pub fn for_game<G: crate::Encode>(preset: ModelPreset, config: &G::Config) -> ModelConfig {
        let pos = G::new(config);
        let (h, w) = pos.board_shape();
        ModelConfig::preset(preset, G::num_planes(config), h, w, pos.num_actions())
    }

    /// This config with game `G`'s convolutional policy head ([`ModelConfig::policy_planes`]
    /// from [`crate::Encode::policy_planes`]).
    ///
    /// # Errors
    /// [`crate::NnError::InvalidConfig`] for a game without one (Connect Four), or whose
    /// layout does not fit this config's board and action space.
    pub fn with_conv_policy<G: crate::Encode>(
        mut self,
        config: &G::Config,
    ) -> Result<ModelConfig, crate::NnError> {
        let planes = G::policy_planes(config).ok_or_else(|| {
            crate::NnError::InvalidConfig(format!(
                "{} has no convolutional policy head (its actions have no board point)",
                G::NAME
            ))
        })?;
        self.policy_planes = Some(planes);
        self.validate()?;
        Ok(self)
    }

    /// The auxiliary heads of this config (none when [`ModelConfig::aux_heads`] is `None`).
    pub fn aux(&self) -> AuxHeads {
        self.aux_heads.unwrap_or_default()
    }

    /// This config with auxiliary heads `aux` (`None` when `aux` has no head, so that configs
    /// of the same network compare equal).
    pub fn with_aux(mut self, aux: AuxHeads) -> ModelConfig {
        self.aux_heads = (!aux.is_empty()).then_some(aux);
        self
    }

    /// This config without auxiliary heads: the network play runs, which two configs must
    /// share for one network to stand in for the other.
    pub fn without_aux(&self) -> ModelConfig {
        self.clone().with_aux(AuxHeads::default())
    }

    /// Inputs of the value head's hidden layer: `value_channels·H·W` flattened, or
    /// `3·value_channels` with [`ModelConfig::value_pool`].
    pub fn value_features(&self) -> usize {
        match self.value_pool {
            None => self.value_channels * self.board_height * self.board_width,
            Some(ValuePool::MeanMax) => 3 * self.value_channels,
        }
    }

    /// Whether no weight of the network depends on the board size: a convolutional policy
    /// head and a pooled value head (the training-only reply-policy head, dense, is left out
    /// of a resized network). Such a network runs on any board of its game
    /// ([`ModelConfig::resized`]).
    pub fn size_independent(&self) -> bool {
        self.policy_planes.is_some() && self.value_pool.is_some()
    }

    /// This config on a board of `board_height × board_width` with `num_actions` actions laid
    /// out by `policy_planes` (the game's [`crate::Encode::policy_planes`] for that board),
    /// without the reply-policy head where the board size changes (its linear layer has one
    /// weight per point; training adds it back fresh).
    ///
    /// # Errors
    /// [`crate::NnError::InvalidConfig`] if the network is not
    /// [`ModelConfig::size_independent`] and the board differs, if the planes' count differs
    /// from the network's, or if the result does not validate.
    pub fn resized(
        &self,
        board_height: usize,
        board_width: usize,
        num_actions: usize,
        policy_planes: PolicyPlanes,
    ) -> Result<ModelConfig, crate::NnError> {
        let same_board = (board_height, board_width) == (self.board_height, self.board_width);
        if !same_board && !self.size_independent() {
            return Err(crate::NnError::InvalidConfig(format!(
                "the network fits {}x{} boards only (a size-independent network has a \
                 convolutional policy head and a pooled value head)",
                self.board_height, self.board_width
            )));
        }
        let have = self.policy_planes.as_ref().map(|p| p.planes);
        if have != Some(policy_planes.planes) {
            return Err(crate::NnError::InvalidConfig(format!(
                "the network's policy head has {have:?} planes, the board's layout {}",
                policy_planes.planes
            )));
        }
        let mut aux = self.aux();
        aux.reply_policy &= same_board;
        let mut resized = self.clone().with_aux(aux);
        resized.board_height = board_height;
        resized.board_width = board_width;
        resized.num_actions = num_actions;
        resized.policy_planes = Some(policy_planes);
        resized.validate()?;
        Ok(resized)
    }

    /// This config for the positions of game `G` under `game_config`, when it differs from
    /// the network's own and the network fits them: when the network and the positions
    /// differ in the planes after the game's common ones ([`crate::Encode::common_planes`]),
    /// the positions' plane count (a freestyle Gomoku network on a renju board reads the
    /// forbidden-point plane with zero weights; a renju network off renju, where no point is
    /// forbidden, drops it); and the [`ModelConfig::resized`] config on that board when the
    /// network is [`ModelConfig::size_independent`] and was made for another. `None` for
    /// positions the network takes as it is, or does not fit.
    pub fn for_positions_of<G: crate::Encode>(
        &self,
        game_config: &G::Config,
    ) -> Option<ModelConfig> {
        let pos = G::new(game_config);
        let (h, w) = pos.board_shape();
        let mut m = self.clone();
        m.input_planes = self.input_planes_for::<G>(game_config)?;
        if (m.board_height, m.board_width) != (h, w) {
            if !m.size_independent() {
                return None;
            }
            m = m
                .resized(h, w, pos.num_actions(), G::policy_planes(game_config)?)
                .ok()?;
        }
        (m != *self).then_some(m)
    }

    /// The input planes this network takes for positions of game `G` under `game_config`:
    /// theirs, when it has them or differs from them only after the game's common planes
    /// ([`crate::Encode::common_planes`]; [`PolicyValueNet::with_input_planes`] makes its
    /// weights so); `None` when its planes are other ones.
    pub fn input_planes_for<G: crate::Encode>(&self, game_config: &G::Config) -> Option<usize> {
        let planes = G::num_planes(game_config);
        (self.input_planes == planes
            || self.input_planes.min(planes) >= G::common_planes(game_config))
        .then_some(planes)
    }

    /// Checks that every size is non-zero and that [`ModelConfig::global_pooling`] fits the
    /// trunk (at least one block, blocks ascending and below `residual_blocks`, `1 ≤ c_g <
    /// channels`).
    ///
    /// # Errors
    /// [`crate::NnError::InvalidConfig`] naming the zero field or the pooling rule broken.
    pub fn validate(&self) -> Result<(), crate::NnError> {
        let fields = [
            ("input_planes", self.input_planes),
            ("board_height", self.board_height),
            ("board_width", self.board_width),
            ("num_actions", self.num_actions),
            ("channels", self.channels),
            ("value_hidden", self.value_hidden),
            ("policy_channels", self.policy_channels),
            ("value_channels", self.value_channels),
        ];
        for (name, v) in fields {
            if v == 0 {
                return Err(crate::NnError::InvalidConfig(format!(
                    "{name} must be positive in {self}"
                )));
            }
        }
        if let Some(p) = &self.policy_planes {
            let points = p.planes * self.board_height * self.board_width;
            let bad = |rule: String| {
                Err(crate::NnError::InvalidConfig(format!(
                    "policy_planes: {rule} ({} planes of {}x{})",
                    p.planes, self.board_height, self.board_width
                )))
            };
            if p.planes == 0 {
                return bad("no plane".into());
            }
            if p.index.len() != self.num_actions {
                return bad(format!(
                    "{} actions laid out for {} actions",
                    p.index.len(),
                    self.num_actions
                ));
            }
            if let Some((a, &i)) = p
                .index
                .iter()
                .enumerate()
                .find(|&(_, &i)| i as usize >= points)
            {
                return bad(format!("action {a} at {i}, outside the {points} points"));
            }
        }
        if let Some(g) = &self.global_pooling {
            let bad = |rule: String| {
                Err(crate::NnError::InvalidConfig(format!(
                    "global_pooling: {rule} in {self}"
                )))
            };
            if g.blocks.is_empty() {
                return bad("names no block (leave global pooling out instead)".into());
            }
            if let Some(&b) = g.blocks.iter().find(|&&b| b >= self.residual_blocks) {
                return bad(format!(
                    "block {b} does not exist in a trunk of {} blocks (indices from 0)",
                    self.residual_blocks
                ));
            }
            if g.blocks.windows(2).any(|w| w[0] >= w[1]) {
                return bad(format!("blocks {:?} must be strictly ascending", g.blocks));
            }
            if g.channels == 0 || g.channels >= self.channels {
                return bad(format!(
                    "{} pooled channels where 1..{} are possible (some of the {} channels \
                     must stay regular)",
                    g.channels, self.channels, self.channels
                ));
            }
        }
        Ok(())
    }

    /// This config with global pooling in [`GlobalPooling::default_for`]'s blocks and
    /// channels of its trunk (`None` where the trunk cannot pool).
    pub fn with_default_global_pooling(self) -> ModelConfig {
        let pooling = GlobalPooling::default_for(self.residual_blocks, self.channels);
        self.with_global_pooling(pooling)
    }

    /// `(c_g, C − c_g)` of residual block `index`: its pooled and regular channels, or
    /// `None` for a block without global pooling.
    pub fn pooling_of_block(&self, index: usize) -> Option<(usize, usize)> {
        self.global_pooling
            .as_ref()
            .filter(|g| g.has_block(index))
            .map(|g| (g.channels, self.channels - g.channels))
    }

    /// Builds a freshly initialised network on `device` (use `device.autodiff()` for training).
    ///
    /// # Panics
    /// If a size is zero (call [`ModelConfig::validate`] first for untrusted configs).
    pub fn init(&self, device: &Device) -> PolicyValueNet {
        let c = self.channels;
        let hw = self.board_height * self.board_width;
        PolicyValueNet {
            stem: conv3x3(self.input_planes, c, device),
            stem_bn: BatchNormConfig::new(c).init(device),
            blocks: (0..self.residual_blocks)
                .map(|i| {
                    let pooling = self.pooling_of_block(i);
                    // The second convolution reads the regular channels only.
                    let mid = pooling.map_or(c, |(_, regular)| regular);
                    ResidualBlock {
                        conv1: conv3x3(c, c, device),
                        bn1: BatchNormConfig::new(c).init(device),
                        pool_fc: pooling.map(|(pooled, regular)| {
                            LinearConfig::new(2 * pooled, regular).init(device)
                        }),
                        conv2: conv3x3(mid, c, device),
                        bn2: BatchNormConfig::new(c).init(device),
                    }
                })
                .collect(),
            policy_conv: conv1x1(c, self.policy_channels, device),
            policy_bn: BatchNormConfig::new(self.policy_channels).init(device),
            policy_fc: self.policy_planes.is_none().then(|| {
                LinearConfig::new(self.policy_channels * hw, self.num_actions).init(device)
            }),
            policy_out: self
                .policy_planes
                .as_ref()
                .map(|p| conv1x1(self.policy_channels, p.planes, device)),
            policy_index: self
                .policy_planes
                .as_ref()
                .map(|p| p.index.iter().map(|&i| i64::from(i)).collect()),
            value_conv: conv1x1(c, self.value_channels, device),
            value_bn: BatchNormConfig::new(self.value_channels).init(device),
            value_fc1: LinearConfig::new(self.value_features(), self.value_hidden).init(device),
            value_fc2: LinearConfig::new(self.value_hidden, 1).init(device),
            value_pooled: self.value_pool.is_some(),
            aux_policy: None,
            aux_ownership: None,
        }
        .add_aux_heads(self, device)
    }

    /// Multiply-accumulate operations of one forward pass for one position (convolutions and
    /// linear layers, the global pooling's linear layer included; batch norm, ReLU,
    /// additions and the pooling's sums and maxima are not counted; the training-only
    /// auxiliary heads are not run in inference and not counted). FLOPs = 2 × MACs.
    pub fn forward_macs(&self) -> u64 {
        let hw = (self.board_height * self.board_width) as u64;
        let c = self.channels as u64;
        let cin = self.input_planes as u64;
        let stem = hw * cin * c * 9;
        let blocks: u64 = (0..self.residual_blocks)
            .map(|i| match self.pooling_of_block(i) {
                None => 2 * hw * c * c * 9,
                Some((pooled, regular)) => {
                    let (g, r) = (pooled as u64, regular as u64);
                    hw * c * c * 9 + 2 * g * r + hw * r * c * 9
                }
            })
            .sum();
        let pc = self.policy_channels as u64;
        let vc = self.value_channels as u64;
        let policy = hw * c * pc
            + match &self.policy_planes {
                None => pc * hw * self.num_actions as u64,
                Some(p) => hw * pc * p.planes as u64,
            };
        let vh = self.value_hidden as u64;
        let value = hw * c * vc + self.value_features() as u64 * vh + vh;
        stem + blocks + policy + value
    }

    /// Number of trainable parameters (BatchNorm running statistics not included; the
    /// auxiliary heads' included).
    pub fn num_params(&self) -> usize {
        let c = self.channels;
        let hw = self.board_height * self.board_width;
        let conv = |i: usize, o: usize, k: usize| i * o * k * k + o;
        let bn = |n: usize| 2 * n;
        let lin = |i: usize, o: usize| i * o + o;
        let blocks: usize = (0..self.residual_blocks)
            .map(|i| match self.pooling_of_block(i) {
                None => 2 * (conv(c, c, 3) + bn(c)),
                Some((pooled, regular)) => {
                    conv(c, c, 3) + bn(c) + lin(2 * pooled, regular) + conv(regular, c, 3) + bn(c)
                }
            })
            .sum();
        conv(self.input_planes, c, 3)
            + bn(c)
            + blocks
            + conv(c, self.policy_channels, 1)
            + bn(self.policy_channels)
            + match &self.policy_planes {
                None => lin(self.policy_channels * hw, self.num_actions),
                Some(p) => conv(self.policy_channels, p.planes, 1),
            }
            + conv(c, self.value_channels, 1)
            + bn(self.value_channels)
            + lin(self.value_features(), self.value_hidden)
            + lin(self.value_hidden, 1)
            + if self.aux().reply_policy {
                conv(c, self.policy_channels, 1)
                    + bn(self.policy_channels)
                    + lin(self.policy_channels * hw, self.num_actions)
            } else {
                0
            }
            + if self.aux().ownership {
                conv(c, 1, 1)
            } else {
                0
            }
    }
}

fn conv3x3(cin: usize, cout: usize, device: &Device) -> Conv2d {
    Conv2dConfig::new([cin, cout], [3, 3])
        .with_padding(PaddingConfig2d::Explicit(1, 1, 1, 1))
        .init(device)
}

fn conv1x1(cin: usize, cout: usize, device: &Device) -> Conv2d {
    Conv2dConfig::new([cin, cout], [1, 1]).init(device)
}

/// One residual block: conv3×3 → BN → ReLU → conv3×3 → BN, plus the input, then ReLU; with
/// global pooling ([`GlobalPooling`]), conv3×3 → BN → (pooling bias on the regular channels)
/// → ReLU → conv3×3 of the regular channels → BN, plus the input, then ReLU.
#[derive(Module, Debug)]
pub struct ResidualBlock {
    pub(crate) conv1: Conv2d,
    pub(crate) bn1: BatchNorm,
    /// The global pooling's linear layer, `[2·c_g, C − c_g]`: the means then the maxima of
    /// the pooled channels in, one bias per regular channel out.
    pub(crate) pool_fc: Option<Linear>,
    pub(crate) conv2: Conv2d,
    pub(crate) bn2: BatchNorm,
}

impl ResidualBlock {
    /// `[B, C, H, W]` → `[B, C, H, W]` (or `[B, H, W, C]` → `[B, H, W, C]` with
    /// [`Layout::Nhwc`], on burn's Flex device in training mode only, see
    /// [`PolicyValueNet::trunk_layout`]). The batch norms, the ReLUs and the residual addition
    /// are fused there ([`crate::batch_norm`]); the global pooling is burn's own tensor
    /// operations (slices, mean, max, linear), so autodiff gives its backward pass.
    pub fn forward(&self, x: Tensor<4>, layout: Layout) -> Tensor<4> {
        let y = conv3x3_forward(&self.conv1, x.clone(), layout);
        let y = match &self.pool_fc {
            None => batch_norm_act(&self.bn1, y, None, Activation::Relu, layout),
            Some(fc) => {
                let y = batch_norm_act(&self.bn1, y, None, Activation::Identity, layout);
                global_pooling_bias(fc, y, layout)
            }
        };
        let y = conv3x3_forward(&self.conv2, y, layout);
        batch_norm_act(&self.bn2, y, Some(x), Activation::Relu, layout)
    }
}

/// The global pooling step of a block ([`GlobalPooling`]): `y` (`[B, C, H, W]` or `[B, H,
/// W, C]` by `layout`, the first convolution's batch-normed output before any ReLU) →
/// `relu(regular + fc([mean(g), max(g)]))` of shape `[B, C − c_g, H, W]` (or `[B, H, W,
/// C − c_g]`), where `regular` is the first `C − c_g` channels of `y` and `g = relu(·)` of
/// the last `c_g`, the mean and max taken over the `H·W` points of each sample.
fn global_pooling_bias(fc: &Linear, y: Tensor<4>, layout: Layout) -> Tensor<4> {
    let dims = y.dims();
    let [b, c, hw] = layout.bchw(dims);
    let [pooled_in, regular] = fc.weight.dims();
    let pooled = pooled_in / 2;
    assert_eq!(
        pooled + regular,
        c,
        "global pooling of {pooled} + {regular} channels on {c}"
    );
    let channel_dim = match layout {
        Layout::Nchw => 1,
        Layout::Nhwc => 3,
    };
    let r = y.clone().narrow(channel_dim, 0, regular);
    let g = relu(y.narrow(channel_dim, regular, pooled));
    // `[B, c_g, HW]` either way, so the features are ordered by channel.
    let g: Tensor<3> = match layout {
        Layout::Nchw => g.reshape([b, pooled, hw]),
        Layout::Nhwc => g.reshape([b, hw, pooled]).swap_dims(1, 2),
    };
    let mean: Tensor<2> = g.clone().mean_dim(2).reshape([b, pooled]);
    let max: Tensor<2> = g.max_dim(2).reshape([b, pooled]);
    let bias = fc.forward(Tensor::cat(vec![mean, max], 1));
    let bias: Tensor<4> = match layout {
        Layout::Nchw => bias.reshape([b, regular, 1, 1]),
        Layout::Nhwc => bias.reshape([b, 1, 1, regular]),
    };
    relu(r + bias)
}

/// The pooled value features ([`ValuePool::MeanMax`]) of the value head's planes `v` `[B,
/// c_v, H, W]`: `[B, 3·c_v]`, the means of the channels, the means times
/// [`ValuePool::size_scale`], the maxima.
fn value_pool(v: Tensor<4>) -> Tensor<2> {
    let [b, c, h, w] = v.dims();
    let v: Tensor<3> = v.reshape([b, c, h * w]);
    let mean: Tensor<2> = v.clone().mean_dim(2).reshape([b, c]);
    let max: Tensor<2> = v.max_dim(2).reshape([b, c]);
    let scaled = mean.clone() * ValuePool::size_scale(h * w);
    Tensor::cat(vec![mean, scaled, max], 1)
}

/// The AlphaZero policy-value network: a convolutional stem, a tower of residual blocks, a
/// policy head and a value head.
///
/// * stem: conv3×3 (input planes → channels) → BN → ReLU;
/// * trunk: [`ModelConfig::residual_blocks`] × [`ResidualBlock`];
/// * policy head: conv1×1 → BN → ReLU → flatten → linear to the `A` action logits, or with
///   [`ModelConfig::policy_planes`] conv1×1 → BN → ReLU → conv1×1 to `K` planes, action `a`'s
///   logit read at its point `index[a]`;
/// * value head: conv1×1 → BN → ReLU → flatten (or with [`ModelConfig::value_pool`] pool over
///   the board, [`ValuePool`]) → linear → ReLU → linear → tanh.
///
/// The same module type is used for training (parameters on an autodiff device, batch norm
/// on batch statistics) and inference (`net.valid()`, or a net on a plain device: batch norm
/// on running statistics).
#[derive(Module, Debug)]
pub struct PolicyValueNet {
    pub(crate) stem: Conv2d,
    pub(crate) stem_bn: BatchNorm,
    pub(crate) blocks: Vec<ResidualBlock>,
    pub(crate) policy_conv: Conv2d,
    pub(crate) policy_bn: BatchNorm,
    /// The dense head's linear layer (`None` with [`ModelConfig::policy_planes`]).
    pub(crate) policy_fc: Option<Linear>,
    /// The convolutional head's last layer, to `K` planes (with
    /// [`ModelConfig::policy_planes`]).
    pub(crate) policy_out: Option<Conv2d>,
    /// The convolutional head's flat point of each action in `[K·H·W]` (from the config;
    /// not a parameter).
    #[module(skip)]
    pub(crate) policy_index: Option<Vec<i64>>,
    pub(crate) value_conv: Conv2d,
    pub(crate) value_bn: BatchNorm,
    /// `[value_features, value_hidden]` ([`ModelConfig::value_features`]).
    pub(crate) value_fc1: Linear,
    pub(crate) value_fc2: Linear,
    /// Whether the value head pools its planes over the board ([`ModelConfig::value_pool`];
    /// from the config, not a parameter).
    #[module(skip)]
    pub(crate) value_pooled: bool,
    /// The opponent-reply policy head ([`AuxHeads::reply_policy`]), training only.
    pub(crate) aux_policy: Option<ReplyPolicyHead>,
    /// The ownership head ([`AuxHeads::ownership`]), training only.
    pub(crate) aux_ownership: Option<Conv2d>,
}

/// The opponent-reply policy head: conv1×1 → BN → ReLU → flatten → linear to `A` logits.
#[derive(Module, Debug)]
pub struct ReplyPolicyHead {
    pub(crate) conv: Conv2d,
    pub(crate) bn: BatchNorm,
    pub(crate) fc: Linear,
}

/// What [`PolicyValueNet::forward_with_aux`] returns: the inference outputs and those of the
/// auxiliary heads the network has.
#[derive(Debug)]
pub struct AuxOutput {
    /// Policy logits `[B, A]`, as [`PolicyValueNet::forward`].
    pub logits: Tensor<2>,
    /// Values `[B]` in [-1, 1] from the side to move, as [`PolicyValueNet::forward`].
    pub values: Tensor<1>,
    /// Opponent-reply logits `[B, A]` (unnormalised, over the whole action space), if the
    /// network has that head.
    pub reply_logits: Option<Tensor<2>>,
    /// Ownership `[B, H·W]` in [-1, 1] from the side to move (row-major points of the
    /// planes' frame), if the network has that head.
    pub ownership: Option<Tensor<2>>,
}

impl PolicyValueNet {
    /// Runs the network.
    ///
    /// * `planes`: `[B, C, H, W]` encoded positions (each from its side to move);
    /// * returns policy logits `[B, A]` (unnormalised, over the whole action space) and values
    ///   `[B]` in [-1, 1] from the side to move.
    ///
    /// # Panics
    /// If `C`, `H` or `W` differ from the model's configuration (burn checks shapes).
    pub fn forward(&self, planes: Tensor<4>) -> (Tensor<2>, Tensor<1>) {
        self.heads(self.trunk(planes))
    }

    /// The stem and the residual blocks: `[B, C, H, W]` planes → `[B, channels, H, W]`.
    fn trunk(&self, planes: Tensor<4>) -> Tensor<4> {
        let layout = self.trunk_layout(&planes.device());
        let x = conv3x3_forward(&self.stem, planes, Layout::Nchw);
        let mut x = batch_norm_act(&self.stem_bn, x, None, Activation::Relu, Layout::Nchw);
        if layout == Layout::Nhwc {
            x = x.permute([0, 2, 3, 1]);
        }
        for block in &self.blocks {
            x = block.forward(x, layout);
        }
        if layout == Layout::Nhwc {
            x = x.permute([0, 3, 1, 2]);
        }
        x
    }

    /// The policy and value heads on the trunk's output `x` `[B, channels, H, W]`.
    fn heads(&self, x: Tensor<4>) -> (Tensor<2>, Tensor<1>) {
        let [b, _, _, _] = x.dims();
        let p = self.policy_conv.forward(x.clone());
        let p = batch_norm_act(&self.policy_bn, p, None, Activation::Relu, Layout::Nchw);
        let logits = self.policy_logits(p);
        let v = self.value_conv.forward(x);
        let v = batch_norm_act(&self.value_bn, v, None, Activation::Relu, Layout::Nchw);
        let v: Tensor<2> = if self.value_pooled {
            value_pool(v)
        } else {
            v.reshape([b as i32, -1])
        };
        let v = relu(self.value_fc1.forward(v));
        let v = tanh(self.value_fc2.forward(v));
        (logits, v.reshape([b as i32]))
    }

    /// The policy head after its first layer: `p` `[B, policy_channels, H, W]` (after BN
    /// and ReLU) → logits `[B, A]`, by the dense layer or by the convolution to `K` planes
    /// and each action's point of them.
    fn policy_logits(&self, p: Tensor<4>) -> Tensor<2> {
        let [b, _, _, _] = p.dims();
        match (&self.policy_fc, &self.policy_out, &self.policy_index) {
            (Some(fc), _, _) => fc.forward(p.reshape([b as i32, -1])),
            (None, Some(out), Some(index)) => {
                let maps: Tensor<2> = out.forward(p).reshape([b as i32, -1]);
                let device = maps.device();
                let index = Tensor::<1, Int>::from_data(
                    TensorData::new(index.clone(), [index.len()]),
                    &device,
                );
                maps.select(1, index)
            }
            _ => unreachable!("a policy head is dense or convolutional with its index"),
        }
    }

    /// Runs the network with its auxiliary heads (training): the outputs of
    /// [`PolicyValueNet::forward`] and of each head in `heads` that the network has (a head
    /// left out of `heads` is not run).
    ///
    /// # Panics
    /// As [`PolicyValueNet::forward`].
    pub fn forward_with_aux(&self, planes: Tensor<4>, heads: AuxHeads) -> AuxOutput {
        let x = self.trunk(planes);
        let [b, _, _, _] = x.dims();
        let reply_logits = self
            .aux_policy
            .as_ref()
            .filter(|_| heads.reply_policy)
            .map(|head| {
                let p = head.conv.forward(x.clone());
                let p = batch_norm_act(&head.bn, p, None, Activation::Relu, Layout::Nchw);
                head.fc.forward(p.reshape([b as i32, -1]))
            });
        let ownership = self
            .aux_ownership
            .as_ref()
            .filter(|_| heads.ownership)
            .map(|conv| tanh(conv.forward(x.clone())).reshape([b as i32, -1]));
        let (logits, values) = self.heads(x);
        AuxOutput {
            logits,
            values,
            reply_logits,
            ownership,
        }
    }

    /// The auxiliary heads this network has.
    pub fn aux_heads(&self) -> AuxHeads {
        AuxHeads {
            reply_policy: self.aux_policy.is_some(),
            ownership: self.aux_ownership.is_some(),
        }
    }

    /// This network with the heads of `config`'s [`ModelConfig::aux`] that it lacks added,
    /// freshly initialised on `device` (use the device its parameters are on); the heads it
    /// has are kept. How a network saved without them goes on training with them.
    pub fn add_aux_heads(mut self, config: &ModelConfig, device: &Device) -> PolicyValueNet {
        let c = config.channels;
        let hw = config.board_height * config.board_width;
        let want = config.aux();
        if want.reply_policy && self.aux_policy.is_none() {
            self.aux_policy = Some(ReplyPolicyHead {
                conv: conv1x1(c, config.policy_channels, device),
                bn: BatchNormConfig::new(config.policy_channels).init(device),
                fc: LinearConfig::new(config.policy_channels * hw, config.num_actions).init(device),
            });
        }
        if want.ownership && self.aux_ownership.is_none() {
            self.aux_ownership = Some(conv1x1(c, 1, device));
        }
        self
    }

    /// This network on the board of `config`, a [`ModelConfig::resized`] copy of its own
    /// config: the policy head reads the new board's points, and the reply-policy head goes
    /// where `config` has none. Every weight is kept (none of a size-independent network
    /// depends on the board).
    pub fn resized(mut self, config: &ModelConfig) -> PolicyValueNet {
        self.policy_index = config
            .policy_planes
            .as_ref()
            .map(|p| p.index.iter().map(|&i| i64::from(i)).collect());
        if !config.aux().reply_policy {
            self.aux_policy = None;
        }
        self
    }

    /// This network (of config `config`) for the positions of game `G` under `game_config`
    /// with its own weights, and its config there ([`ModelConfig::for_positions_of`]: the
    /// game's added input planes read with zero weights, another board for a size-independent
    /// network); else the network and `config` as they are.
    pub fn for_positions_of<G: crate::Encode>(
        self,
        config: &ModelConfig,
        game_config: &G::Config,
    ) -> (PolicyValueNet, ModelConfig) {
        match config.for_positions_of::<G>(game_config) {
            Some(fitted) => (
                self.with_input_planes(fitted.input_planes).resized(&fitted),
                fitted,
            ),
            None => (self, config.clone()),
        }
    }

    /// This network reading `planes` input planes. Planes added after its own get zero stem
    /// weights, so it computes what it did whatever they hold; dropping its last planes
    /// computes what it did when they held zeros.
    pub fn with_input_planes(mut self, planes: usize) -> PolicyValueNet {
        let [out, have, kh, kw] = self.stem.weight.dims();
        if planes < have {
            let kept = self
                .stem
                .weight
                .val()
                .slice([0..out, 0..planes, 0..kh, 0..kw]);
            self.stem.weight = Param::from_tensor(kept.detach());
        }
        if planes > have {
            let old = self.stem.weight.val();
            let zeros = Tensor::<4>::zeros([out, planes, kh, kw], &old.device());
            // Detached: a parameter must be a leaf of the autodiff graph.
            let w = zeros.slice_assign([0..out, 0..have, 0..kh, 0..kw], old);
            self.stem.weight = Param::from_tensor(w.detach());
        }
        self
    }

    /// This network with the stem and residual blocks of `donor` (its heads kept): how a
    /// network with new heads starts from a trained trunk. The donor must have this
    /// network's input planes, blocks, channels and global pooling (as `--init-trunk`
    /// checks): the forward pass of a mixed network panics on the shapes otherwise.
    pub fn with_trunk_of(mut self, donor: PolicyValueNet) -> PolicyValueNet {
        self.stem = donor.stem;
        self.stem_bn = donor.stem_bn;
        self.blocks = donor.blocks;
        self
    }

    /// This network without its auxiliary heads (what play needs; a network file for play
    /// need not carry them).
    pub fn without_aux_heads(mut self) -> PolicyValueNet {
        self.aux_policy = None;
        self.aux_ownership = None;
        self
    }

    /// Runs the network in inference mode (`valid()`: no autodiff, batch norm on running
    /// statistics) on host data: `planes` `[B, C, H, W]` row-major with `B = planes.len() /
    /// (C·H·W)`; returns the policy logits `[B, A]` and the values `[B]` (from the side to
    /// move). Convenient for tests and tools; [`crate::NetworkEvaluator`] is the search's path.
    ///
    /// # Errors
    /// [`crate::NnError::BatchShape`] if `planes` is empty or not a multiple of `C·H·W`;
    /// [`crate::NnError::Backend`] if the outputs cannot be read.
    pub fn predict(
        &self,
        config: &ModelConfig,
        planes: &[f32],
        device: &Device,
    ) -> Result<(Vec<f32>, Vec<f32>), crate::NnError> {
        let per = config.input_planes * config.board_height * config.board_width;
        if per == 0 || planes.is_empty() || !planes.len().is_multiple_of(per) {
            return Err(crate::NnError::BatchShape(format!(
                "{} plane values are not a positive multiple of C·H·W = {per}",
                planes.len()
            )));
        }
        let b = planes.len() / per;
        let device = device.clone().without_autodiff();
        let net = self.valid().to_device(&device);
        let x: Tensor<4> = Tensor::from_data(
            burn::tensor::TensorData::new(
                planes.to_vec(),
                [
                    b,
                    config.input_planes,
                    config.board_height,
                    config.board_width,
                ],
            ),
            &device,
        );
        let (logits, values) = net.forward(x);
        let read = |d: burn::tensor::TensorData| {
            d.try_into_vec::<f32>()
                .map_err(|e| crate::NnError::Backend(format!("reading outputs: {e:?}")))
        };
        Ok((read(logits.into_data())?, read(values.into_data())?))
    }

    /// Number of residual blocks.
    pub fn num_blocks(&self) -> usize {
        self.blocks.len()
    }

    /// The layout the residual blocks run in on `device`: [`Layout::Nhwc`] in training mode
    /// on burn's Flex autodiff device when the trunk's 3×3 convolutions run as Winograd
    /// ([`crate::Conv3x3Algorithm::choose`]; NHWC is what its kernels read and write, so the
    /// activations are transposed once before the trunk and once after it instead of around
    /// every convolution), [`Layout::Nchw`] everywhere else.
    pub fn trunk_layout(&self, device: &Device) -> Layout {
        let channels = self.stem.weight.dims()[0];
        let winograd = matches!(
            crate::Conv3x3Algorithm::choose(channels, channels),
            crate::Conv3x3Algorithm::Winograd(_)
        );
        if winograd
            && !self.blocks.is_empty()
            && crate::batch_norm::fast_path(&self.stem_bn, device)
        {
            Layout::Nhwc
        } else {
            Layout::Nchw
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{host, max_rel_diff};
    use burn::module::{ModuleVisitor, Param};
    use burn::optim::GradientsParams;
    use burn::tensor::Distribution;

    /// Every parameter's gradient, in visiting order.
    struct CollectGrads<'a> {
        grads: &'a GradientsParams,
        out: Vec<(String, Vec<f32>)>,
    }

    impl ModuleVisitor for CollectGrads<'_> {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            if let Some(g) = self.grads.get::<D>(param.id) {
                self.out.push((format!("{:?}", param.id), host(g)));
            }
        }
    }

    impl PolicyValueNet {
        /// The forward pass with burn's own layers only (NCHW, `Conv2d::forward`,
        /// `BatchNorm::forward`, `relu`, addition): the reference the fast training path is
        /// checked against.
        fn forward_reference(&self, planes: Tensor<4>) -> (Tensor<2>, Tensor<1>) {
            let [b, _, _, _] = planes.dims();
            let mut x = relu(self.stem_bn.forward(self.stem.forward(planes)));
            for block in &self.blocks {
                let y = block.bn1.forward(block.conv1.forward(x.clone()));
                let y = match &block.pool_fc {
                    None => relu(y),
                    Some(fc) => {
                        // Pooling over dimensions 2 and 3 of the NCHW tensor directly
                        // (the model reshapes to `[B, c_g, HW]` first).
                        let [b, c, _, _] = y.dims();
                        let regular = fc.weight.dims()[1];
                        let g = relu(y.clone().slice([0..b, regular..c]));
                        let mean = g.clone().mean_dim(3).mean_dim(2);
                        let max = g.max_dim(3).max_dim(2);
                        let features: Tensor<2> =
                            Tensor::cat(vec![mean, max], 1).reshape([b as i32, -1]);
                        let bias: Tensor<4> = fc.forward(features).reshape([b, regular, 1, 1]);
                        relu(y.slice([0..b, 0..regular]) + bias)
                    }
                };
                let y = block.bn2.forward(block.conv2.forward(y));
                x = relu(y + x);
            }
            let p = relu(self.policy_bn.forward(self.policy_conv.forward(x.clone())));
            let logits = self.policy_logits(p);
            let v = relu(self.value_bn.forward(self.value_conv.forward(x)));
            let v = relu(self.value_fc1.forward(v.reshape([b as i32, -1])));
            let v = tanh(self.value_fc2.forward(v));
            (logits, v.reshape([b as i32]))
        }
    }

    /// The training forward pass (NHWC trunk where Winograd runs, fused batch norm + ReLU +
    /// residual) gives burn's layers' outputs and every parameter gradient, to 1e-4 of the
    /// largest value (Winograd F(4×4) rounding), for a trunk that runs NHWC (16 channels)
    /// and one that stays NCHW (8 channels).
    #[test]
    fn training_forward_and_gradients_match_burns_layers() {
        let plain = |channels| {
            ModelConfig::new(4, 7, 6, 42)
                .with_residual_blocks(2)
                .with_channels(channels)
                .with_value_hidden(8)
        };
        for channels in [16, 8] {
            check_training_forward_and_gradients(&plain(channels));
        }
    }

    /// As [`training_forward_and_gradients_match_burns_layers`] with global pooling in the
    /// second of three blocks (the pooling's gradient is burn's autodiff of its tensor
    /// operations; what this checks is that the fused kernels around it, in both layouts,
    /// still give burn's layers' outputs and gradients): 32 channels pooling 8 (NHWC trunk,
    /// Winograd second convolution of 24 inputs), 16 pooling 4 (NHWC trunk, direct second
    /// convolution of 12 inputs) and 8 pooling 2 (NCHW).
    #[test]
    fn training_forward_and_gradients_with_global_pooling_match_burns_layers() {
        for (channels, pooled) in [(32, 8), (16, 4), (8, 2)] {
            let config = ModelConfig::new(4, 7, 6, 42)
                .with_residual_blocks(3)
                .with_channels(channels)
                .with_value_hidden(8)
                .with_global_pooling(Some(GlobalPooling {
                    blocks: vec![1],
                    channels: pooled,
                }));
            config.validate().unwrap();
            check_training_forward_and_gradients(&config);
        }
    }

    /// Runs [`training_forward_in_one_draw`] on five independent draws of network, input
    /// and probe, and fails unless at least three agree. A ReLU whose input lies within
    /// rounding of zero is open in one path and closed in the other, which moves that one
    /// cell's share of a gradient (0.2–4% of its largest value): measured in 9 of 300 runs
    /// of the three pooled trunks and 2 of 300 of the two plain ones. A fused kernel that is
    /// wrong differs in every draw.
    fn check_training_forward_and_gradients(config: &ModelConfig) {
        let failures: Vec<String> = (0..5)
            .filter_map(|_| training_forward_in_one_draw(config).err())
            .collect();
        assert!(failures.len() <= 2, "{}", failures.join("\n"));
    }

    fn training_forward_in_one_draw(config: &ModelConfig) -> Result<(), String> {
        let device = Device::flex().autodiff();
        let channels = config.channels;
        let net = config.init(&device);
        let winograd =
            crate::Conv3x3Algorithm::choose(channels, channels) != crate::Conv3x3Algorithm::Direct;
        let want = if winograd { Layout::Nhwc } else { Layout::Nchw };
        assert_eq!(net.trunk_layout(&device), want, "{channels} channels");
        let planes: Tensor<4> =
            Tensor::random([5, 4, 7, 6], Distribution::Normal(0.0, 1.0), &device);
        let probe: Tensor<2> = Tensor::random([5, 42], Distribution::Normal(0.0, 1.0), &device);
        let run = |reference: bool| {
            let (logits, values) = if reference {
                net.forward_reference(planes.clone())
            } else {
                net.forward(planes.clone())
            };
            let loss = (logits.clone() * probe.clone()).sum() + values.clone().sum();
            let grads = GradientsParams::from_grads(loss.backward(), &net);
            let mut visitor = CollectGrads {
                grads: &grads,
                out: Vec::new(),
            };
            net.visit(&mut visitor);
            (host(logits), host(values), visitor.out)
        };
        let (l_fast, v_fast, g_fast) = run(false);
        let (l_ref, v_ref, g_ref) = run(true);
        let d = max_rel_diff(&l_fast, &l_ref).max(max_rel_diff(&v_fast, &v_ref));
        if d >= 1e-4 {
            return Err(format!("{channels} channels: outputs differ by {d}"));
        }
        assert_eq!(g_fast.len(), g_ref.len());
        // The biases of convolutions followed by a batch norm have a zero gradient: what
        // both paths give there is rounding of a sum of terms that cancel (up to 2e-7 of
        // the network's largest gradient, in the NCHW path without Winograd as well), while
        // every other gradient agrees to ~5e-6 of its own largest value. Each gradient is
        // compared relative to its largest value or, if larger, 1e-2 of the largest
        // gradient of the network.
        let floor = g_ref
            .iter()
            .flat_map(|(_, g)| g.iter())
            .fold(0.0f32, |m, v| m.max(v.abs()))
            * 1e-2;
        for ((name, fast), (_, slow)) in g_fast.iter().zip(&g_ref) {
            let scale = slow.iter().fold(floor, |m, v| m.max(v.abs()));
            let d = fast
                .iter()
                .zip(slow)
                .fold(0.0f32, |m, (a, b)| m.max((a - b).abs() / scale));
            if d >= 1e-4 {
                return Err(format!(
                    "{channels} channels: gradient of {name} differs by {d}"
                ));
            }
        }
        Ok(())
    }
}
