//! The typed configuration: [`TrainConfig`] and one `…Section` struct per TOML section, each
//! `#[serde(deny_unknown_fields)]`; the larger sections in their own files.

use alphazero_registry::GameSpec;
use serde::{Deserialize, Serialize};

pub(super) mod game;
mod gating;
mod learner;
mod selfplay;

pub use gating::{GatingSection, SearchOverlay, SprtSection};
pub use learner::{LearnerSection, LrSchedule, Optimizer};
pub use selfplay::{
    PlayoutCapSection, RandomStartsSection, ResignSection, RestartRule, RestartsSection,
    SelfPlaySection,
};

/// `[replay]`: the replay buffer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplaySection {
    /// Positions held.
    pub capacity: u32,
    /// Fraction of each batch drawn from the newest `recent_window` positions, in [0, 1].
    pub recent_fraction: f64,
    /// Size of the recent window in positions.
    pub recent_window: u32,
    /// Random board symmetry per sample.
    pub symmetries: bool,
    /// Oversample positions marked as threats.
    pub hard_mining: bool,
    /// Relative weight (>= 1) of threat positions under hard mining.
    pub threat_weight: f64,
}

/// `[model]`: the residual policy-value network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSection {
    /// Residual blocks.
    pub blocks: u32,
    /// Channels of the trunk.
    pub channels: u32,
    /// Width of the value head's hidden layer.
    pub value_hidden: u32,
    /// KataGo's global pooling bias in every third residual block from the third (the last
    /// block of a trunk of one or two blocks), see `alphazero_nn::GlobalPooling`; off by
    /// default. Files written before the key read as off.
    #[serde(default)]
    pub global_pooling: bool,
    /// Channels pooled in those blocks, below `channels`; 0 = a quarter of `channels`
    /// (rounded down to a multiple of 8 from 32 channels on).
    #[serde(default)]
    pub global_pooling_channels: u32,
    /// The policy head: `dense` (a linear layer from the flattened head planes to every
    /// action, the default; files written before the key read so) or `conv` (a 1×1
    /// convolution to the game's move-type planes, each action's logit read at its board
    /// point: AlphaZero's chess head; Gomoku and Xiangqi).
    #[serde(default)]
    pub policy_head: PolicyHead,
    /// Channels of the policy head's first 1×1 convolution; 0 (the default, and what files
    /// written before the key read as) = the head's usual width: 2 for the dense head
    /// (AlphaZero's Go head) and `channels` for the conv head (its chess head), whose
    /// move-type planes are all read off these features.
    #[serde(default)]
    pub policy_channels: u32,
    /// The value head: `dense` (its planes flattened into the hidden layer, one weight per
    /// board point; the default, and what files written before the key read as) or
    /// `pooled` (`value_hidden` planes averaged and maximised over the board, KataGo's
    /// value head, `alphazero_nn::ValuePool`). With `policy_head = "conv"` no weight
    /// depends on the board size: the network plays, and `--init` starts runs, on every
    /// board of its game.
    #[serde(default)]
    pub value_head: ValueHead,
}

/// `model.value_head`: how the value head reads the board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueHead {
    /// conv1×1 to 1 plane → BN → ReLU → flatten → linear → ReLU → linear → tanh.
    #[default]
    Dense,
    /// conv1×1 to `value_hidden` planes → BN → ReLU → mean, size-scaled mean and max of each
    /// over the board → linear → ReLU → linear → tanh.
    Pooled,
}

/// `model.policy_head`: how the network turns its trunk into the policy logits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PolicyHead {
    /// conv1×1 → BN → ReLU → a linear layer to the `A` logits.
    #[default]
    Dense,
    /// conv1×1 → BN → ReLU → conv1×1 to the game's `K` planes
    /// (`alphazero_registry::Encode::policy_planes`), each action's logit read at its point.
    Conv,
}

/// `[eval]`: measurements taken inside the training loop (never training data).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalSection {
    /// Connect Four only: every this many iterations (and after the last one), the share of
    /// a fixed slice of the solver's test positions (`tests/data/connect4`) on which the
    /// network's policy picks a best move / a move that keeps the result, and its value has
    /// the right sign; 0 = off (the default of the other games, which have no solver).
    pub solver_every: u32,
    /// Positions of that slice: the first ones of the test sets `Test_L2_R1` and
    /// `Test_L2_R2` (half each; middle-game positions, quick to solve).
    pub solver_positions: u32,
}

/// `[actors]`: the pace of a learner (`alphazero learner`) whose games come from actors
/// (`alphazero actor`); `alphazero train` plays its own games and ignores it. The learner
/// keeps its own pace, however many actors publish: each iteration takes the oldest published
/// batches only, and batches played by a champion too far behind are skipped, so that
/// iterations stay the same size and actors' games stay fresh (the windowed buffer and
/// bounded sample reuse of KataGo and lc0).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActorsSection {
    /// Games an iteration takes at most, once the published batches hold
    /// `selfplay.games_per_iteration`: whole batches, oldest champion first (at least one
    /// batch, however large); the rest wait for the next iterations. 0 =
    /// `selfplay.games_per_iteration`.
    pub max_games_per_iteration: u32,
    /// A published batch played by a champion more than this many champions before the
    /// current one is skipped: not trained on, deleted, and counted in the iteration's
    /// metrics (`stale_games`).
    pub max_champion_lag: u32,
}

impl ActorsSection {
    /// The games an iteration takes at most when `selfplay.games_per_iteration` is
    /// `games_per_iteration`.
    pub fn max_games(&self, games_per_iteration: u32) -> u64 {
        u64::from(match self.max_games_per_iteration {
            0 => games_per_iteration,
            n => n,
        })
    }
}

/// The clock a run's time budget counts (`run.budget_clock`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BudgetClock {
    /// Seconds of training on the wall clock (`elapsed_s` in the run's state), summed over
    /// the invocations that resumed the run.
    #[default]
    Wall,
    /// Seconds of CPU time of the `alphazero train` process, all its threads (`cpu_s` in the
    /// run's state), summed over invocations: runs compared at equal CPU time get the same
    /// budget however busy the machine is. An actors + learner run counts only the
    /// learner's CPU, so it is refused there.
    Cpu,
}

/// `[run]`: the run as a whole.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    /// Iterations to run; 0 = no limit (then `time_budget_minutes` must be set).
    pub iterations: u32,
    /// Time budget in minutes, on the clock [`RunSection::budget_clock`] names; 0 = no limit.
    pub time_budget_minutes: f64,
    /// The clock `time_budget_minutes` (and the cosine learning-rate schedule of a run
    /// limited by time) counts: the wall clock (the default) or the training process's CPU
    /// time. Run configs written before it read as [`BudgetClock::Wall`].
    #[serde(default)]
    pub budget_clock: BudgetClock,
    /// Save a snapshot of the network every this many iterations.
    pub snapshot_every: u32,
    /// Seed of the run's random number generators (at most 2^63 − 1).
    pub seed: u64,
    /// Worker threads; 0 = all cores.
    pub threads: u32,
}

/// The whole training configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainConfig {
    /// `[game]`: the game and its rule options, the registry's typed spec, written as
    /// `name = "gomoku"`, `size = "15"` (an integer reads too) and `rule = "freestyle"`;
    /// Connect Four and Xiangqi have no size or rule.
    #[serde(with = "game")]
    pub game: GameSpec,
    /// `[selfplay]`.
    pub selfplay: SelfPlaySection,
    /// `[replay]`.
    pub replay: ReplaySection,
    /// `[model]`.
    pub model: ModelSection,
    /// `[train]`.
    pub train: LearnerSection,
    /// `[gating]`.
    pub gating: GatingSection,
    /// `[eval]`.
    pub eval: EvalSection,
    /// `[actors]`.
    pub actors: ActorsSection,
    /// `[run]`.
    pub run: RunSection,
}
