//! The stages of an AlphaZero iteration and the loop that chains them.
//!
//! Durability: every object goes through the run's [`Storage`] (atomic puts), under the keys
//! [`RunDir`] names. The run state (`state/run.json`) is written last in an iteration: it is
//! the commit point. The trainer checkpoint of an iteration is written as
//! [`RunDir::PENDING`] and becomes [`RunDir::LATEST`] right after the state that names its
//! step; [`crate::recovery`] undoes what an iteration that did not reach its commit left
//! behind, so a run killed at any moment resumes exactly from its last committed iteration.
//!
//! The stages are usable by separate processes: [`Pipeline::self_play`] needs only the
//! champion ([`Pipeline::champion`]) and writes one record batch; [`Pipeline::ingest`],
//! [`Pipeline::learn`], [`Pipeline::gate`] and [`Pipeline::commit`] are the learner's side.
//!
//! Each stage takes the [`Iteration`] it belongs to (its number, its seed, the champion, the
//! observer) and what the stage before it produced. One file per stage:
//! - `self_play`: [`Pipeline::self_play`] and where an iteration's games come from
//!   ([`BatchSource`]);
//! - `ingest`: [`Pipeline::ingest`];
//! - `learn`: [`Pipeline::learn`] (its batches are built by [`crate::replay::BatchEncoder`]);
//! - `solver`: [`Pipeline::measure_solver`], the exact solver's measure of the candidate;
//! - `gate`: [`Pipeline::gate`];
//! - `commit`: [`Pipeline::commit`], with `report` writing the metrics line and its views;
//! - `trainer`: [`Pipeline::open_trainer`], the trainer a run goes on with;
//! - `run`: [`Pipeline::run`] and [`Pipeline::run_with`], the loop that chains them.

use std::cell::{Cell, OnceCell};
use std::path::Path;

use alphazero_game::mix_seed as mix;
use alphazero_nn::{
    checkpoint_from_bytes, checkpoint_to_bytes, model_to_bytes, Checkpoint, Device, Encode,
    ModelConfig, PolicyValueNet, Trainer,
};
use alphazero_registry::{GameSpec, Yardstick};

use crate::config::{BudgetClock, TrainConfig};
use crate::error::PipelineError;
use crate::observer::Observer;
use crate::run_dir::RunDir;
use crate::settings::network_config;
use crate::state::RunState;
use crate::storage::Storage;

mod commit;
mod gate;
mod ingest;
mod learn;
mod report;
mod run;
mod self_play;
mod solver;
mod trainer;

pub use commit::Outcome;
pub use gate::Gated;
pub use learn::Learned;
pub use self_play::{BatchSource, LocalSelfPlay, SelfPlayBatch};
pub use solver::solver_slice;

/// The limits of one invocation of [`Pipeline::run`] (not saved: the run's own limits are
/// `run.iterations` and `run.time_budget_minutes`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct InvocationLimits {
    /// Stop after this many more iterations.
    pub iterations: Option<u32>,
    /// Stop after this many minutes (the iteration under way is finished first).
    pub minutes: Option<f64>,
}

/// Where a run stands when [`Pipeline::run`] returns.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSummary {
    /// Committed iterations of the whole run.
    pub iterations: u32,
    /// Games of the whole run.
    pub total_games: u64,
    /// The champion's id.
    pub champion_id: u32,
    /// The champion's key in the run's storage.
    pub champion_key: String,
    /// Whether the run stopped because [`Observer::stop_requested`] said so.
    pub stopped_by_request: bool,
    /// Whether that stop came while the iteration's source waited for games (a learner
    /// waiting for actors' batches): iteration `iterations` had not started.
    pub stopped_while_waiting: bool,
}

/// One iteration as its stages see it: which one, its seed, the champion it plays with and
/// measures against, and where its progress goes. [`Pipeline::run_with`] makes one per
/// iteration ([`Iteration::of`]); a stage called alone is given one.
#[derive(Clone, Copy)]
pub struct Iteration<'a> {
    /// The iteration's number (0-based: the run state's `iteration` until it commits).
    pub number: u32,
    /// The iteration's seed: self-play's, the learner's sampling's and the gating match's
    /// streams are drawn from it.
    pub seed: u64,
    /// The champion: self-play's network, the reference of the candidate's KL divergence
    /// and the gate's opponent.
    pub champion: &'a PolicyValueNet,
    /// Where the stages' progress goes.
    pub observer: &'a dyn Observer,
}

impl<'a> Iteration<'a> {
    /// The next iteration of a run whose state is `state` (`state.iteration`, seeded from
    /// the run's seed), with `champion`, reporting to `observer`.
    pub fn of(state: &RunState, champion: &'a PolicyValueNet, observer: &'a dyn Observer) -> Self {
        Iteration {
            number: state.iteration,
            seed: mix(state.rng_seed, u64::from(state.iteration)),
            champion,
            observer,
        }
    }
}

/// The training loop of one run of game `G`: its configuration, its storage and the device
/// its networks run on. Every stage is a method that can be called alone.
pub struct Pipeline<'s, G: Encode> {
    cfg: TrainConfig,
    game_config: G::Config,
    storage: &'s dyn Storage,
    device: Device,
    tag: GameSpec,
    model_config: ModelConfig,
    solver_loader: Cell<Option<SolverLoader<'s, G>>>,
    solver: OnceCell<Option<Box<dyn Yardstick<G>>>>,
}

/// Loads the game's solver yardstick the first time it is needed.
type SolverLoader<'s, G> = Box<dyn FnOnce() -> Option<Box<dyn Yardstick<G>>> + 's>;

impl<'s, G: Encode> Pipeline<'s, G> {
    /// The pipeline of a run with configuration `cfg` of game `G` under `game_config`,
    /// storing everything in `storage`, with networks on `device`.
    ///
    /// # Errors
    /// [`PipelineError::Nn`] when `cfg.model` gives an invalid network.
    pub fn new(
        cfg: TrainConfig,
        game_config: G::Config,
        storage: &'s dyn Storage,
        device: Device,
    ) -> Result<Self, PipelineError> {
        let model_config = network_config::<G>(&cfg, &game_config);
        model_config.validate()?;
        Ok(Pipeline {
            tag: GameSpec::of::<G>(&game_config),
            cfg,
            game_config,
            storage,
            device,
            model_config,
            solver_loader: Cell::new(None),
            solver: OnceCell::new(),
        })
    }

    /// The same pipeline measuring the trained network against the game's exact-solver
    /// yardstick ([`alphazero_registry::Registered::solver_yardstick`]) every
    /// `eval.solver_every` iterations. `load` gives the yardstick (or `None`: not measured,
    /// as for a game without one); [`Pipeline::run`] calls it once, after the run's networks
    /// and replay buffer are ready.
    pub fn with_solver_slice(
        self,
        load: impl FnOnce() -> Option<Box<dyn Yardstick<G>>> + 's,
    ) -> Self {
        self.solver_loader.set(Some(Box::new(load)));
        self
    }

    fn solver_slice(&self) -> Option<&dyn Yardstick<G>> {
        self.solver
            .get_or_init(|| self.solver_loader.take().and_then(|load| load()))
            .as_deref()
    }

    /// The run's configuration.
    pub fn config(&self) -> &TrainConfig {
        &self.cfg
    }

    /// The network shape of the run.
    pub fn model_config(&self) -> &ModelConfig {
        &self.model_config
    }

    /// The run's storage.
    pub fn storage(&self) -> &'s dyn Storage {
        self.storage
    }

    /// The start position of the run's game.
    pub fn start_position(&self) -> G {
        G::new(&self.game_config)
    }

    /// The size of the game's action space (the policy's length).
    pub fn num_actions(&self) -> u32 {
        self.model_config.num_actions as u32
    }

    /// Reads the checkpoint `key` of the run's storage (any shape).
    ///
    /// # Errors
    /// [`PipelineError::Storage`], [`PipelineError::Checkpoint`].
    pub fn read_checkpoint(&self, key: &str) -> Result<Checkpoint, PipelineError> {
        let bytes = self.storage.get(key)?;
        Ok(checkpoint_from_bytes(
            Path::new(key),
            &bytes,
            G::NAME,
            &self.device,
        )?)
    }

    /// Loads the network `key` of the run's storage.
    ///
    /// # Errors
    /// As [`Pipeline::read_checkpoint`]; [`PipelineError::Invalid`] when its shape is not
    /// the run's model.
    pub fn load_network(&self, key: &str) -> Result<PolicyValueNet, PipelineError> {
        let ck = self.read_checkpoint(key)?;
        // A network saved before the encoder gained planes reads them at zero weight.
        let (model, fitted) = ck
            .model
            .for_positions_of::<G>(&ck.header.model, &self.game_config);
        if fitted.without_aux() != self.model_config {
            return Err(PipelineError::Invalid(format!(
                "{key}: network shape {:?} does not match the run's model {:?}",
                ck.header.model, self.model_config
            )));
        }
        Ok(model)
    }

    /// The champion named by `state` (what self-play plays with).
    ///
    /// # Errors
    /// As [`Pipeline::load_network`].
    pub fn champion(&self, state: &RunState) -> Result<PolicyValueNet, PipelineError> {
        self.load_network(&RunDir::champion_key(state.champion_id))
    }

    fn save_network(
        &self,
        key: &str,
        net: &PolicyValueNet,
        step: u64,
    ) -> Result<(), PipelineError> {
        // Networks for play go without the training-only auxiliary heads.
        let net = net.clone().without_aux_heads();
        let bytes = model_to_bytes(Path::new(key), &self.tag, &net, &self.model_config, step)?;
        Ok(self.storage.put(key, &bytes)?)
    }

    fn save_trainer(&self, key: &str, trainer: &Trainer) -> Result<(), PipelineError> {
        let bytes = checkpoint_to_bytes(Path::new(key), &self.tag, trainer)?;
        Ok(self.storage.put(key, &bytes)?)
    }

    /// The seconds of the run's time budget spent after `elapsed_s` seconds of training on
    /// the wall clock and `cpu_s` seconds of the trainer's CPU time: the one `run.budget_clock`
    /// names.
    pub fn budget_spent(&self, elapsed_s: f64, cpu_s: f64) -> f64 {
        match self.cfg.run.budget_clock {
            BudgetClock::Wall => elapsed_s,
            BudgetClock::Cpu => cpu_s,
        }
    }

    /// The learning rate of iteration `iteration` (0-based) after `spent_s` seconds of the
    /// run's time budget ([`Pipeline::budget_spent`]): `train.lr` scheduled over the run's
    /// progress, by `run.iterations` when set, else by `run.time_budget_minutes`.
    pub fn learning_rate(&self, iteration: u32, spent_s: f64) -> f64 {
        let r = &self.cfg.run;
        let progress = if r.iterations > 0 {
            Some(f64::from(iteration) / f64::from(r.iterations))
        } else if r.time_budget_minutes > 0.0 {
            Some(spent_s / (r.time_budget_minutes * 60.0))
        } else {
            None
        };
        self.cfg.train.lr_at_progress(iteration, progress)
    }
}
