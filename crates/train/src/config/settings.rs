//! The settings of the libraries a training configuration drives: one place that turns the
//! config file's keys into the search's, the actor's, the network's and the trainer's
//! settings and the replay buffer's sampling, for the training loop and the benchmarks alike.
//!
//! `[selfplay.search]` is already the search's [`SearchConfig`]; what is left here is what
//! the loop decides per search. `[model]` and `[train]` are not read straight into the
//! network's and the trainer's configs: those are saved as JSON in every checkpoint under
//! their own field names (`residual_blocks`, `learning_rate`, …), hold what no user sets
//! (the game's plane count and board shape; the scheduled learning rate) and have other
//! shapes (SGD momentum inside the optimizer, 0 = no gradient clipping); the two functions
//! below are their one translation.

use alphazero_mcts::SearchConfig;
use alphazero_nn::OptimizerKind;
use alphazero_selfplay::{PlayoutCap, Resignation, Restarts, SelfPlayConfig};

use alphazero_registry::Encode;

use crate::config::{ConfigError, Optimizer, PolicyHead, TrainConfig, ValueHead};
use crate::replay::SampleOptions;

/// The network of `[model]` (residual blocks, channels, value head width, global pooling,
/// policy head and its width) for game `G` under `game_config` (its planes, board shape and actions).
/// `model.global_pooling` places the pooling in the network crate's default blocks
/// ([`alphazero_nn::GlobalPooling::default_for`]), with `model.global_pooling_channels`
/// pooled channels when that is not 0; `model.policy_head = "conv"` lays the policy out as
/// the game's [`Encode::policy_planes`] (a game without them keeps the dense head:
/// validation refuses `conv` for it); `model.policy_channels = 0` is 2 channels for the dense
/// head and the trunk's for the conv head; `model.value_head = "pooled"` pools
/// `value_hidden` planes over the board ([`alphazero_nn::ValuePool::MeanMax`]).
pub fn network_config<G: Encode>(
    cfg: &TrainConfig,
    game_config: &G::Config,
) -> alphazero_nn::ModelConfig {
    let m = &cfg.model;
    let blocks = m.blocks as usize;
    let channels = m.channels as usize;
    let pooling = m
        .global_pooling
        .then(|| alphazero_nn::GlobalPooling::default_for(blocks, channels))
        .flatten()
        .map(|mut g| {
            if m.global_pooling_channels > 0 {
                g.channels = m.global_pooling_channels as usize;
            }
            g
        });
    let policy_planes = match m.policy_head {
        PolicyHead::Dense => None,
        PolicyHead::Conv => G::policy_planes(game_config),
    };
    let policy_channels = match (m.policy_channels, &policy_planes) {
        (0, None) => 2,
        (0, Some(_)) => channels,
        (n, _) => n as usize,
    };
    let pos = G::new(game_config);
    let (h, w) = pos.board_shape();
    alphazero_nn::ModelConfig::new(G::num_planes(game_config), h, w, pos.num_actions())
        .with_residual_blocks(blocks)
        .with_channels(channels)
        .with_value_hidden(m.value_hidden as usize)
        .with_global_pooling(pooling)
        .with_policy_planes(policy_planes)
        .with_policy_channels(policy_channels)
        .with_value_pool(match m.value_head {
            ValueHead::Dense => None,
            ValueHead::Pooled => Some(alphazero_nn::ValuePool::MeanMax),
        })
        .with_value_channels(match m.value_head {
            ValueHead::Dense => 1,
            ValueHead::Pooled => m.value_hidden as usize,
        })
}

/// The trainer's settings of `[train]` at learning rate `lr` (the schedule's value,
/// [`crate::config::LearnerSection::lr_at_progress`]).
pub fn trainer_config(cfg: &TrainConfig, lr: f64) -> alphazero_nn::TrainerConfig {
    let t = &cfg.train;
    alphazero_nn::TrainerConfig {
        optimizer: match t.optimizer {
            Optimizer::Adamw => OptimizerKind::adamw(),
            Optimizer::Sgd => OptimizerKind::Sgd {
                momentum: t.momentum,
                nesterov: false,
            },
        },
        learning_rate: lr,
        weight_decay: t.weight_decay as f32,
        grad_clip_norm: (t.grad_clip > 0.0).then_some(t.grad_clip as f32),
        value_loss_weight: 1.0,
        aux_policy_weight: t.aux_policy_weight as f32,
        aux_ownership_weight: t.aux_ownership_weight as f32,
    }
}

/// How the learner draws its batches from the replay buffer (`[replay]`: the recent part,
/// the symmetries, hard-position mining).
pub fn sample_options(cfg: &TrainConfig) -> SampleOptions {
    let r = &cfg.replay;
    SampleOptions {
        recent_fraction: r.recent_fraction as f32,
        recent_window: r.recent_window as usize,
        symmetries: r.symmetries,
        hard_mining: r.hard_mining,
        threat_weight: r.threat_weight as f32,
    }
}

/// The self-play settings of `[selfplay]` (full searches of `selfplay.simulations` with
/// root noise, playout cap, resignation, temperatures, ply cap, the share of restarted
/// games), seeded with `seed`. The restart positions are left empty: they come from the
/// run's replay buffer (`Pipeline::restart_positions`).
pub fn selfplay_config(cfg: &TrainConfig, seed: u64) -> SelfPlayConfig {
    let s = &cfg.selfplay;
    SelfPlayConfig {
        search: s.search.clone(),
        simulations: s.simulations,
        parallel_games: s.parallel_games as usize,
        temperature_moves: s.temperature_moves,
        temperature: s.temperature as f32,
        final_temperature: s.final_temperature as f32,
        playout_cap: s.playout_cap.enabled.then_some(PlayoutCap {
            fast_simulations: s.playout_cap.fast_simulations,
            full_probability: s.playout_cap.full_probability as f32,
        }),
        resign: s.resign.enabled.then_some(Resignation {
            threshold: s.resign.threshold as f32,
            min_ply: s.resign.min_ply,
            no_resign_fraction: s.resign.no_resign_fraction as f32,
        }),
        max_plies: s.max_plies,
        seed,
        restarts: Restarts {
            share: s.restarts.share as f32,
            positions: Default::default(),
        },
    }
}

/// How the gating match (`[gating]`) searches: the self-play search with every key
/// `[gating.search]` sets in place of `[selfplay.search]`'s. Its budget is
/// `gating.simulations` per move, without root noise (the arena sets each game's seed).
///
/// # Errors
/// [`ConfigError::Value`] when `[gating.search]` holds a key or value the search does not
/// read (never for a config [`TrainConfig::parse`] accepted).
pub fn gating_search_config(cfg: &TrainConfig) -> Result<SearchConfig, ConfigError> {
    cfg.gating.search.over(&cfg.selfplay.search)
}
