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

use cpu_time::ProcessTime;
use std::cell::{Cell, OnceCell};
use std::path::Path;
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use alphazero_arena::matches::Termination;
use alphazero_arena::{rating, run_match_sprt, Entrant, MatchConfig, MatchResult, Pairing};
use alphazero_game::mix_seed as mix;
use alphazero_mcts::{CachedEvaluator, EvalRequest, Evaluator};
use alphazero_nn::{
    checkpoint_from_bytes, checkpoint_to_bytes, kl_divergence, model_to_bytes, AuxTargets, Batch,
    Checkpoint, Device, Encode, ModelConfig, NetworkEvaluator, PolicyValueNet, Trainer,
};
use alphazero_registry::{GameSpec, Registered, Yardstick};
use alphazero_selfplay::{
    play_selfplay_games_parallel, worker_count, RestartPositions, SelfPlayStats, Starts,
};
use rand::rngs::StdRng;
use rand::SeedableRng;

use crate::config::{BudgetClock, EvalConfig, TrainConfig};
use crate::error::PipelineError;
use crate::init::InitNetwork;
use crate::metrics::{ActorIntake, GatingMetrics, IterationMetrics, MetricsLog, SolverMetrics};
use crate::observer::{IterationReport, Observer, Stage};
use crate::record::{write_records, GameRecord, RecordHeader};
use crate::recovery;
use crate::replay::{ReplayBuffer, SampleOptions};
use crate::run_dir::RunDir;
use crate::settings::{gating_search_config, network_config, selfplay_config, trainer_config};
use crate::state::{ChampionInfo, RunState};
use crate::storage::Storage;

/// Openings per chunk of the gating match's SPRT (each played with both colours: 10 games).
const GATING_CHUNK_OPENINGS: usize = 5;
/// The tag of the random start positions' seed stream (apart from self-play's own draws).
const RANDOM_START_TAG: u64 = u64::from_le_bytes(*b"randpos_");

/// A gating game lost by a failure (a network that cannot evaluate) is an error of the gate,
/// not a loss of the candidate.
fn gating_failure(played: &MatchResult) -> Result<(), PipelineError> {
    match played.games.iter().find_map(|g| match &g.termination {
        Termination::Failure { message, .. } => Some(message),
        _ => None,
    }) {
        Some(message) => Err(PipelineError::Invalid(format!("gating match: {message}"))),
        None => Ok(()),
    }
}

/// Limits of one invocation of [`Pipeline::run`] (not saved: the run's own limits are
/// `run.iterations` and `run.time_budget_minutes`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Limits {
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

/// One self-play batch ([`Pipeline::self_play`]), written as one record file.
#[derive(Clone, Debug)]
pub struct SelfPlayBatch {
    /// The record file's key (`records/<id>.azr`).
    pub key: String,
    /// The id of the first game; the others follow.
    pub first_game_id: u64,
    /// The games, in id order.
    pub games: Vec<GameRecord>,
    /// Counts and times of the self-play.
    pub stats: SelfPlayStats,
    /// Wall-clock seconds, the write included (for a learner: since its last take).
    pub seconds: f64,
    /// Whether the games were played in this process, so that `stats`' times and network
    /// share are known (`false` for a learner's batches of actors' games: those are absent
    /// from its metrics, not 0).
    pub played_here: bool,
    /// How a learner took these games from actors; `None` when they were played here.
    pub intake: Option<ActorIntake>,
}

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

/// What [`Pipeline::gate`] decided.
#[derive(Clone, Debug, PartialEq)]
pub struct Gated {
    /// The gating match (`None` without one: no training yet, or gating off).
    pub metrics: Option<GatingMetrics>,
    /// Whether the candidate becomes champion.
    pub promoted: bool,
    /// Wall-clock seconds.
    pub seconds: f64,
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
    /// yardstick ([`Registered::solver_yardstick`]) every `eval.solver_every` iterations.
    /// `load` gives the yardstick (or `None`: not measured, as for a game without one);
    /// [`Pipeline::run`] calls it once, after the run's networks and replay buffer are ready.
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

    /// The trainer to go on with: from `init` for a run being started from a network (its
    /// weights, a fresh optimizer at step 0; recorded in `state`), else from
    /// [`RunDir::LATEST`] (one saved before the game's encoder gained planes, renju's
    /// forbidden points, goes on with them at zero weight and a fresh optimizer, said through
    /// `observer`), else a new random network. A new trainer is saved at once as champion 0
    /// and as [`RunDir::LATEST`].
    ///
    /// # Errors
    /// A checkpoint that cannot be read, or whose shape is not the run's model.
    pub fn open_trainer(
        &self,
        state: &mut RunState,
        init: Option<&InitNetwork>,
        lr: f64,
        observer: &dyn Observer,
    ) -> Result<Trainer, PipelineError> {
        let tc = trainer_config(&self.cfg, lr);
        if let Some(init) = init {
            let ck =
                checkpoint_from_bytes(Path::new(&init.name), &init.bytes, G::NAME, &self.device)?;
            if init.info.trunk_only {
                // The file's stem and blocks (InitNetwork::trunk_from_file checked their
                // sizes) under fresh heads of the run's model.
                let model = Trainer::new(&self.model_config, tc.clone(), &self.device)?
                    .inference_model()
                    .with_trunk_of(ck.model.with_input_planes(self.model_config.input_planes));
                state.init = Some(init.info.clone());
                let t = Trainer::from_model(model, &self.model_config, tc, &self.device, 0)?;
                return self.first_networks(t);
            }
            if init.info.grown {
                // The file's network inside a fresh one of the run's larger model
                // (InitNetwork::grown_from_file checked that it can grow into it).
                let fresh =
                    Trainer::new(&self.model_config, tc.clone(), &self.device)?.inference_model();
                let file = crate::init::with_run_planes::<G>(&ck.header.model, &self.game_config);
                let model = ck
                    .model
                    .without_aux_heads()
                    .with_input_planes(file.input_planes)
                    .grown_into(&file.without_aux(), fresh, &self.model_config)
                    .map_err(|e| PipelineError::from(e).context(init.name.clone()))?;
                state.init = Some(init.info.clone());
                let t = Trainer::from_model(model, &self.model_config, tc, &self.device, 0)?;
                return self.first_networks(t);
            }
            // A size-independent network of another board takes this run's.
            let (model, file) = ck
                .model
                .for_positions_of::<G>(&ck.header.model.without_aux(), &self.game_config);
            if file != self.model_config {
                return Err(PipelineError::Invalid(format!(
                    "{}: network shape {:?} does not match the run's model {:?}",
                    init.name, ck.header.model, self.model_config
                )));
            }
            state.init = Some(init.info.clone());
            let t = Trainer::from_model(model, &self.model_config, tc, &self.device, 0)?;
            return self.first_networks(t);
        }
        if self.storage.exists(RunDir::LATEST)? {
            let way_on = format!(
                "to go on from the champion instead, copy {} over it (the optimizer state then \
                 starts afresh)",
                RunDir::champion_key(state.champion_id)
            );
            let ck = self.read_checkpoint(RunDir::LATEST).map_err(|e| {
                e.context(format!(
                    "{} (the trainer's network and optimizer state) cannot be loaded; {way_on}",
                    RunDir::LATEST
                ))
            })?;
            let have = ck.header.model.without_aux();
            if have.input_planes != self.model_config.input_planes {
                // Saved by a build whose encoder had fewer planes (renju's forbidden points):
                // the network reads the added ones at zero weight; the optimizer state has
                // the old shapes, so it starts afresh.
                let (model, fitted) = ck
                    .model
                    .clone()
                    .for_positions_of::<G>(&ck.header.model, &self.game_config);
                if fitted.without_aux() == self.model_config {
                    observer.info(&format!(
                        "{} takes {} input planes, this build's {} encoder {}: going on with \
                         the added planes at zero weight and a fresh optimizer state",
                        RunDir::LATEST,
                        have.input_planes,
                        G::spec(&self.game_config).words(),
                        self.model_config.input_planes
                    ));
                    return Ok(Trainer::from_model(
                        model,
                        &self.model_config,
                        tc,
                        &self.device,
                        ck.header.step,
                    )?);
                }
            }
            if have != self.model_config {
                return Err(PipelineError::Invalid(format!(
                    "{} holds a {} network, the run's model is {}; {way_on}",
                    RunDir::LATEST,
                    crate::init::shape_words(&have),
                    crate::init::shape_words(&self.model_config)
                )));
            }
            return Ok(ck.into_trainer(Some(tc), &self.device)?);
        }
        self.first_networks(Trainer::new(&self.model_config, tc, &self.device)?)
    }

    /// A new run's first networks: `t` saved as champion 0 and as the trainer's latest state.
    fn first_networks(&self, t: Trainer) -> Result<Trainer, PipelineError> {
        self.save_network(&RunDir::champion_key(0), &t.inference_model(), 0)?;
        self.save_trainer(RunDir::LATEST, &t)?;
        Ok(t)
    }

    /// **Self-play**: `selfplay.games_per_iteration` games of the champion against itself
    /// ([`Pipeline::self_play_games`], a share restarted from positions of `buffer`'s games
    /// under `[selfplay.restarts]`) written as the record file `records/<record_id>.azr`
    /// ([`Pipeline::record_file`]); the games get ids from `first_game_id` on.
    ///
    /// # Errors
    /// A network or self-play error; [`PipelineError::Storage`] writing the file.
    #[allow(clippy::too_many_arguments)]
    pub fn self_play(
        &self,
        champion: &PolicyValueNet,
        buffer: &ReplayBuffer<G>,
        first_game_id: u64,
        record_id: u64,
        seed: u64,
        iteration: u32,
        observer: &dyn Observer,
    ) -> Result<SelfPlayBatch, PipelineError> {
        let start = Instant::now();
        let games_n = u64::from(self.cfg.selfplay.games_per_iteration);
        let (games, stats) = self.self_play_games(
            champion,
            buffer,
            games_n,
            first_game_id,
            seed,
            iteration,
            observer,
        )?;
        let key = RunDir::record_key(record_id);
        self.storage
            .put(&key, &self.record_file(first_game_id, &games)?)?;
        Ok(SelfPlayBatch {
            key,
            first_game_id,
            games,
            stats,
            seconds: start.elapsed().as_secs_f64(),
            played_here: true,
            intake: None,
        })
    }

    /// The games of self-play, without writing them: `games` games of `champion` against
    /// itself with the run's `[selfplay]` settings, many at once with their leaves batched
    /// through the network, one worker per core (`selfplay.workers`); ids from
    /// `first_game_id` on, in id order. With `selfplay.restarts.share` > 0, that share of the
    /// games starts from positions of `buffer`'s games ([`Pipeline::restart_positions`]);
    /// with `selfplay.random_starts.share` > 0, that share of the others from random start
    /// positions ([`Pipeline::random_starts`]).
    /// The one self-play code path of `train` (through [`Pipeline::self_play`]) and of an
    /// actor ([`crate::roles::run_actor`]).
    ///
    /// # Errors
    /// A network or self-play error.
    #[allow(clippy::too_many_arguments)]
    pub fn self_play_games(
        &self,
        champion: &PolicyValueNet,
        buffer: &ReplayBuffer<G>,
        games: u64,
        first_game_id: u64,
        seed: u64,
        iteration: u32,
        observer: &dyn Observer,
    ) -> Result<(Vec<GameRecord>, SelfPlayStats), PipelineError> {
        let cfg = &self.cfg;
        let start_pos = self.start_position();
        let mut sp_cfg = selfplay_config(cfg, seed);
        sp_cfg.restarts.positions = Arc::new(self.restart_positions(buffer));
        let random = self.random_starts(games, seed);
        let starts = Starts {
            start: &start_pos,
            random_share: cfg.selfplay.random_starts.share as f32,
            random: &random,
        };
        let net = NetworkEvaluator::<G>::new(champion, &self.model_config, &self.device)?;
        observer.stage_started(Stage::SelfPlay, iteration, games);
        let mut out: Vec<GameRecord> = Vec::with_capacity(games as usize);
        // One worker per core (selfplay.workers), each with its own cache.
        let workers = worker_count(cfg.selfplay.workers as usize, games, sp_cfg.parallel_games);
        let stats = play_selfplay_games_parallel(
            starts,
            workers,
            |_| CachedEvaluator::new(net.clone(), 200_000 / workers),
            &sp_cfg,
            games,
            first_game_id,
            |g| {
                out.push(g);
                observer.advanced(Stage::SelfPlay, 1);
            },
        )?;
        observer.stage_finished(Stage::SelfPlay);
        Ok((out, stats))
    }

    /// The random start positions (with their texts) an iteration's `games` games may start
    /// from, one a game, drawn from `seed` by the game's
    /// [`Registered::random_start`]; none when `selfplay.random_starts.share` is 0 or the
    /// game has no random starts.
    pub fn random_starts(&self, games: u64, seed: u64) -> Vec<(G, String)> {
        let r = &self.cfg.selfplay.random_starts;
        if r.share <= 0.0 {
            return Vec::new();
        }
        let stream = mix(seed, RANDOM_START_TAG);
        (0..games)
            .map_while(|i| {
                G::random_start(&self.game_config, r.max_removed, r.plies, mix(stream, i))
            })
            .collect()
    }

    /// The positions of `buffer`'s games that restarted self-play games start from:
    /// those `selfplay.restarts.rule` picks ([`ReplayBuffer::restart_positions`]); none when
    /// restarts are off (`selfplay.restarts.share` 0).
    pub fn restart_positions(&self, buffer: &ReplayBuffer<G>) -> RestartPositions {
        let r = &self.cfg.selfplay.restarts;
        if r.share > 0.0 {
            buffer.restart_positions(r.rule, r.window as usize)
        } else {
            RestartPositions::new()
        }
    }

    /// The bytes of a record file of the run's game holding `games`, whose ids start at
    /// `first_game_id`.
    ///
    /// # Errors
    /// [`PipelineError::Record`].
    pub fn record_file(
        &self,
        first_game_id: u64,
        games: &[GameRecord],
    ) -> Result<Vec<u8>, PipelineError> {
        let header = RecordHeader::for_spec(&self.tag, self.num_actions(), first_game_id);
        Ok(write_records(&header, games)?)
    }

    /// **Ingest**: the positions of `games` (ids from `first_game_id` on) join `buffer`.
    /// Returns the number of positions added.
    ///
    /// # Errors
    /// [`PipelineError::Replay`] for a game whose moves do not replay.
    pub fn ingest(
        &self,
        buffer: &mut ReplayBuffer<G>,
        first_game_id: u64,
        games: &[GameRecord],
    ) -> Result<u64, PipelineError> {
        Ok(buffer.add_games(&self.start_position(), first_game_id, games)?)
    }

    /// **Learn**: `train.steps_for(new_positions)` optimizer steps at learning rate `lr` on
    /// batches sampled from `buffer` (none while it holds fewer than `min(batch, 256)`
    /// positions); the trainer is then saved as [`RunDir::PENDING`].
    ///
    /// # Errors
    /// A network error; [`PipelineError::Storage`] writing the checkpoint.
    #[allow(clippy::too_many_arguments)]
    pub fn learn(
        &self,
        trainer: &mut Trainer,
        buffer: &ReplayBuffer<G>,
        champion: &PolicyValueNet,
        new_positions: u64,
        lr: f64,
        seed: u64,
        iteration: u32,
        observer: &dyn Observer,
    ) -> Result<Learned, PipelineError> {
        let cfg = &self.cfg;
        let batch_size = cfg.train.batch_size as usize;
        trainer.set_config(trainer_config(&self.cfg, lr))?;
        let steps = if buffer.len() >= batch_size.min(256) {
            cfg.train.steps_for(new_positions)
        } else {
            0
        };
        let opts = SampleOptions {
            recent_fraction: cfg.replay.recent_fraction as f32,
            recent_window: cfg.replay.recent_window as usize,
            symmetries: cfg.replay.symmetries,
            hard_mining: cfg.replay.hard_mining,
            threat_weight: cfg.replay.threat_weight as f32,
        };
        let mut rng = StdRng::seed_from_u64(mix(seed, 1));
        let m = &self.model_config;
        let (c, h, w, a) = (m.input_planes, m.board_height, m.board_width, m.num_actions);
        let mut batch = Batch::with_capacity([c, h, w], a, batch_size);
        let (mut planes, mut legal, mut pi) =
            (vec![0f32; c * h * w], vec![false; a], vec![0f32; a]);
        let mut ownership = vec![0f32; h * w];
        let heads = trainer.config().aux_heads();
        let mut moves = Vec::new();
        let q_weight = cfg.train.value_q_weight as f32;
        let mut sums = [0f64; 6];
        observer.stage_started(Stage::Learn, iteration, steps);
        let start = Instant::now();
        for _ in 0..steps {
            batch.clear();
            for s in buffer.sample_batch(batch_size, &mut rng, &opts) {
                let p = &s.sample.position;
                p.encode(u32::from(s.sample.repetitions), &mut planes);
                legal.iter_mut().for_each(|l| *l = false);
                p.legal_moves(&mut moves);
                for &mv in &moves {
                    legal[p.move_to_action(mv)] = true;
                }
                pi.iter_mut().for_each(|x| *x = 0.0);
                for &(act, prob) in &s.sample.policy {
                    pi[act as usize] = prob;
                }
                if heads.ownership {
                    buffer.ownership(&s, &mut ownership);
                }
                let aux = AuxTargets {
                    reply: s.reply.filter(|_| heads.reply_policy).map(usize::from),
                    ownership: heads.ownership.then_some(&ownership[..]),
                };
                let z = s.sample.value_target(q_weight);
                batch.push_with_aux(&planes, &legal, &pi, z, aux)?;
            }
            let st = trainer.train_step(&batch)?;
            sums[0] += f64::from(st.policy_loss);
            sums[1] += f64::from(st.value_loss);
            sums[2] += f64::from(st.policy_entropy);
            sums[3] += f64::from(st.total_loss);
            sums[4] += f64::from(st.aux_policy_loss);
            sums[5] += f64::from(st.aux_ownership_loss);
            observer.advanced(Stage::Learn, 1);
        }
        observer.stage_finished(Stage::Learn);
        let seconds = start.elapsed().as_secs_f64();
        let n = steps.max(1) as f64;
        let candidate = trainer.inference_model();
        let kl = if steps > 0 {
            f64::from(kl_divergence(
                champion,
                &candidate,
                m,
                &batch,
                &self.device,
            )?)
        } else {
            0.0
        };
        self.save_trainer(RunDir::PENDING, trainer)?;
        Ok(Learned {
            steps,
            lr,
            policy_loss: sums[0] / n,
            value_loss: sums[1] / n,
            policy_entropy: sums[2] / n,
            total_loss: sums[3] / n,
            kl,
            aux_policy_loss: (steps > 0 && heads.reply_policy).then_some(sums[4] / n),
            aux_ownership_loss: (steps > 0 && heads.ownership).then_some(sums[5] / n),
            candidate,
            trainer_step: trainer.step(),
            seconds,
        })
    }

    /// The exact solver's measure of `net` alone (no search) at iteration `iteration`: the
    /// share of the game's yardstick on which it picks a best move, a move that keeps the
    /// result, and a value of the right sign. `None` without a yardstick, or when
    /// `eval.solver_every` does not divide `iteration`.
    ///
    /// # Errors
    /// A network evaluation error.
    pub fn measure_solver(
        &self,
        net: &PolicyValueNet,
        iteration: u32,
    ) -> Result<Option<SolverMetrics>, PipelineError> {
        let every = self.cfg.eval.solver_every;
        if every == 0 || !iteration.is_multiple_of(every) {
            return Ok(None);
        }
        let Some(slice) = self.solver_slice() else {
            return Ok(None);
        };
        let eval = NetworkEvaluator::<G>::new(net, &self.model_config, &self.device)?;
        let a = self.model_config.num_actions;
        let positions = slice.positions();
        let mut outputs = Vec::with_capacity(positions.len());
        for chunk in positions.chunks(64) {
            let reqs: Vec<EvalRequest<G>> = chunk
                .iter()
                .map(|&position| EvalRequest {
                    position,
                    history: &[],
                })
                .collect();
            let mut logits = vec![0f32; chunk.len() * a];
            let mut values = vec![0f32; chunk.len()];
            eval.evaluate(&reqs, &mut logits, &mut values)?;
            for (i, v) in values.into_iter().enumerate() {
                outputs.push((logits[i * a..(i + 1) * a].to_vec(), v));
            }
        }
        let r = slice.measure(&outputs);
        let share = |k: usize| k as f64 / r.positions.max(1) as f64;
        Ok(Some(SolverMetrics {
            positions: r.positions as u32,
            policy_best: share(r.policy_best),
            policy_keeps: share(r.policy_keeps),
            value_sign: share(r.value_sign),
        }))
    }

    /// **Gate**: whether `learned`'s candidate replaces `champion`. Without training steps
    /// nothing changes; with `gating.enabled = false` it is promoted; otherwise it plays the
    /// champion (colours swapped, random openings, no noise) in chunks so that the SPRT can
    /// stop the match early, and is promoted by the SPRT or at a score ≥ `gating.win_rate`.
    ///
    /// # Errors
    /// A network or match error.
    pub fn gate(
        &self,
        learned: &Learned,
        champion: &PolicyValueNet,
        seed: u64,
        iteration: u32,
        observer: &dyn Observer,
    ) -> Result<Gated, PipelineError> {
        let start = Instant::now();
        let (metrics, promoted) = if learned.steps == 0 {
            (None, false)
        } else if self.cfg.gating.enabled {
            let m = self.gating_match(&learned.candidate, champion, seed, iteration, observer)?;
            let promoted = m.promoted;
            (Some(m), promoted)
        } else {
            (None, true)
        };
        Ok(Gated {
            metrics,
            promoted,
            seconds: start.elapsed().as_secs_f64(),
        })
    }

    /// The gating match: candidate (entrant 0) against champion (entrant 1), two batched
    /// search players through the arena's one SPRT match ([`run_match_sprt`]: chunks of
    /// [`GATING_CHUNK_OPENINGS`] openings, each played with both colours, so that the SPRT
    /// can stop it early). Returns the candidate's W/D/L, the LLR, its Elo and whether to
    /// promote it.
    fn gating_match(
        &self,
        candidate: &PolicyValueNet,
        champion: &PolicyValueNet,
        seed: u64,
        iteration: u32,
        observer: &dyn Observer,
    ) -> Result<GatingMetrics, PipelineError> {
        let g = &self.cfg.gating;
        let search = gating_search_config(&self.cfg)?;
        let entrant = |name: &str, net: &PolicyValueNet| -> Result<Entrant<G>, PipelineError> {
            let eval = NetworkEvaluator::<G>::new(net, &self.model_config, &self.device)?;
            let eval = Arc::new(CachedEvaluator::new(eval, 100_000));
            Ok(Entrant::batched_search(
                name,
                eval,
                search.clone(),
                g.simulations,
            ))
        };
        let config = MatchConfig {
            pairing: Pairing::RoundRobin,
            openings_per_pair: g.games.div_ceil(2),
            opening_plies: g.opening_random_plies,
            max_plies: self.cfg.selfplay.max_plies,
            threads: GATING_CHUNK_OPENINGS,
            seed: mix(seed, 200),
            ..MatchConfig::new(
                vec![
                    entrant("candidate", candidate)?,
                    entrant("champion", champion)?,
                ],
                self.start_position(),
            )
        };
        let sprt = g.sprt.enabled.then_some(rating::Sprt {
            elo0: g.sprt.elo0,
            elo1: g.sprt.elo1,
            alpha: g.sprt.alpha,
            beta: g.sprt.beta,
        });
        observer.stage_started(Stage::Gate, iteration, u64::from(g.games));
        let (played, tested) = run_match_sprt(&config, sprt.as_ref(), |chunk| {
            observer.advanced(Stage::Gate, chunk.games.len() as u64);
        })
        .map_err(|e| PipelineError::Invalid(format!("gating match: {e}")))?;
        observer.stage_finished(Stage::Gate);
        gating_failure(&played)?;
        let (w, d, l) = played.first_pair_wdl();
        let n = (w + d + l).max(1) as f64;
        let score = (w as f64 + 0.5 * d as f64) / n;
        let (decision, llr) = tested.map_or((rating::SprtDecision::Continue, 0.0), |m| {
            (m.decision, m.llr)
        });
        let promote = match decision {
            rating::SprtDecision::AcceptH1 => true,
            rating::SprtDecision::AcceptH0 => false,
            rating::SprtDecision::Continue => score >= g.win_rate,
        };
        let e = rating::elo_from_wdl_bounded(w, d, l);
        Ok(GatingMetrics {
            wins: w as u32,
            draws: d as u32,
            losses: l as u32,
            llr,
            promoted: promote,
            elo: Some(e.elo),
            elo_lo: Some(e.lo),
            elo_hi: Some(e.hi),
        })
    }

    /// **Commit** iteration `state.iteration`: saves a promoted candidate as the next
    /// champion and a snapshot every `run.snapshot_every` iterations, appends the metrics
    /// line (and rewrites `metrics.csv` and the plots; failures there are warnings), saves
    /// the run state — the commit point — and then makes the pending trainer checkpoint the
    /// latest. `elapsed_s` is the run's training time so far, `cpu_s` the CPU time of its
    /// trainer processes so far.
    ///
    /// # Errors
    /// [`PipelineError::Storage`] and the errors of the metrics log and the state.
    #[allow(clippy::too_many_arguments)]
    pub fn commit(
        &self,
        state: &mut RunState,
        batch: &SelfPlayBatch,
        new_positions: u64,
        buffer: &ReplayBuffer<G>,
        learned: &Learned,
        gated: &Gated,
        solver: Option<SolverMetrics>,
        elapsed_s: f64,
        cpu_s: f64,
        metrics_log: &MetricsLog,
        observer: &dyn Observer,
    ) -> Result<IterationReport, PipelineError> {
        let cfg = &self.cfg;
        let iter = state.iteration;
        let (mut champion_elo, mut champion_elo_se) = state
            .champions
            .last()
            .map_or((0.0, 0.0), |c| (c.elo, c.elo_se));
        if gated.promoted {
            let id = state.champion_id + 1;
            // The gating estimate (bounded however few the games) with its standard error;
            // nothing is added without gating, where nothing measures it.
            if let Some(g) = &gated.metrics {
                if let (Some(e), Some(lo), Some(hi)) = (g.elo, g.elo_lo, g.elo_hi) {
                    champion_elo += e;
                    let se = (hi - lo) / (2.0 * rating::Z95);
                    champion_elo_se = (champion_elo_se.powi(2) + se * se).sqrt();
                }
            }
            self.save_network(
                &RunDir::champion_key(id),
                &learned.candidate,
                learned.trainer_step,
            )?;
            state.champion_id = id;
            state.champions.push(ChampionInfo {
                id,
                iteration: iter + 1,
                key: RunDir::champion_key(id),
                elo: champion_elo,
                elo_se: champion_elo_se,
            });
        }
        if cfg.run.snapshot_every > 0 && (iter + 1).is_multiple_of(cfg.run.snapshot_every) {
            let key = RunDir::snapshot_key(iter + 1);
            self.save_network(&key, &learned.candidate, learned.trainer_step)?;
        }
        let games = batch.games.len() as u64;
        let gated_run = cfg.gating.enabled;
        state.iteration += 1;
        state.next_record_id += 1;
        state.next_game_id = batch.first_game_id + games;
        state.total_games += games;
        state.total_positions += new_positions;
        state.elapsed_s = elapsed_s;
        state.cpu_s = cpu_s;
        let sp = &batch.stats;
        let m = IterationMetrics {
            iteration: iter,
            unix_time: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs_f64())
                .unwrap_or(0.0),
            elapsed_s: state.elapsed_s,
            cpu_s: state.cpu_s,
            games,
            restarted_games: batch.games.iter().filter(|g| !g.prefix.is_empty()).count() as u64,
            random_start_games: batch
                .games
                .iter()
                .filter(|g| !g.start.trim().is_empty())
                .count() as u64,
            total_games: state.total_games,
            positions: new_positions,
            total_positions: state.total_positions,
            buffer_fill: buffer.len() as u64,
            buffer_capacity: buffer.capacity() as u64,
            train_steps: learned.steps,
            lr: learned.lr,
            policy_loss: learned.policy_loss,
            value_loss: learned.value_loss,
            total_loss: learned.total_loss,
            policy_entropy: learned.policy_entropy,
            kl: learned.kl,
            aux_policy_loss: learned.aux_policy_loss,
            aux_ownership_loss: learned.aux_ownership_loss,
            gating: gated.metrics.clone(),
            champion_id: state.champion_id,
            elo: champion_elo,
            elo_lo: gated_run.then_some(champion_elo - rating::Z95 * champion_elo_se),
            elo_hi: gated_run.then_some(champion_elo + rating::Z95 * champion_elo_se),
            selfplay_games_per_hour: sp.games as f64 / batch.seconds.max(1e-9) * 3600.0,
            network_time_fraction: batch.played_here.then(|| sp.evaluator_share()),
            selfplay_s: batch.played_here.then_some(batch.seconds),
            train_s: learned.seconds,
            gating_s: gated.seconds,
            solver,
            intake: batch.intake.clone(),
        };
        metrics_log.append(self.storage, &m)?;
        let all = dedup_metrics(metrics_log.read_all(self.storage)?);
        match crate::metrics::to_csv(&all, Path::new(RunDir::METRICS_CSV)) {
            Ok(csv) => {
                if let Err(e) = self.storage.put(RunDir::METRICS_CSV, &csv) {
                    observer.warning(&format!("{} not written: {e}", RunDir::METRICS_CSV));
                }
            }
            Err(e) => observer.warning(&format!("{} not written: {e}", RunDir::METRICS_CSV)),
        }
        if let Err(e) = crate::plots::write_plots(&all, self.storage, RunDir::PLOTS) {
            observer.warning(&format!("plots not written: {e}"));
        }
        state.trainer_step = Some(learned.trainer_step);
        state.save(self.storage)?;
        // Committed: the iteration's trainer checkpoint becomes the latest.
        self.storage.rename(RunDir::PENDING, RunDir::LATEST)?;
        Ok(IterationReport {
            metrics: m,
            selfplay: batch.stats.clone(),
            promoted_without_gating: gated.promoted && gated.metrics.is_none(),
            gated: gated_run,
            champion_elo_se,
            seconds: 0.0,
        })
    }

    /// Runs the loop until the run's limits (`run.iterations`, `run.time_budget_minutes`),
    /// this invocation's `limits`, or [`Observer::stop_requested`]: first
    /// [`crate::recovery`] of what an interrupted iteration left, the trainer
    /// ([`Pipeline::open_trainer`], from `init` for a run being started from a network), the
    /// replay buffer rebuilt from the committed record files, then iterations of
    /// self-play → ingest → learn → gate → commit.
    ///
    /// # Errors
    /// The first error of a stage; everything committed before it stays.
    pub fn run(
        &self,
        init: Option<&InitNetwork>,
        limits: &Limits,
        observer: &dyn Observer,
    ) -> Result<RunSummary, PipelineError> {
        self.run_with(&mut LocalSelfPlay, init, limits, observer)
    }

    /// [`Pipeline::run`] with each iteration's games from `source` instead of this process's
    /// self-play: the learner of [`crate::roles`] takes them from actors.
    ///
    /// # Errors
    /// As [`Pipeline::run`], and the errors of `source`.
    pub fn run_with(
        &self,
        source: &mut dyn BatchSource<G>,
        init: Option<&InitNetwork>,
        limits: &Limits,
        observer: &dyn Observer,
    ) -> Result<RunSummary, PipelineError> {
        let storage = self.storage;
        let mut state = recovery::load_state(storage, self.cfg.run.seed)?;
        recovery::settle_pending_checkpoint(storage, &state, || {
            self.read_checkpoint(RunDir::PENDING)
                .ok()
                .map(|ck| ck.header.step)
        })?;
        recovery::check_trainer_checkpoint(storage, &state)?;
        let start = self.start_position();
        recovery::set_aside_orphan_records(storage, &state, &start, observer)?;
        recovery::set_aside_orphan_networks(storage, &state, observer)?;
        let lr0 = self.learning_rate(
            state.iteration,
            self.budget_spent(state.elapsed_s, state.cpu_s),
        );
        let mut trainer = self.open_trainer(&mut state, init, lr0, observer)?;
        if state.champions.is_empty() {
            state.champions.push(ChampionInfo {
                id: 0,
                iteration: 0,
                key: RunDir::champion_key(0),
                elo: 0.0,
                elo_se: 0.0,
            });
        }
        if init.is_some() {
            // Committed at once, so that the run knows where its networks came from even if
            // it is stopped before its first iteration ends.
            state.save(self.storage)?;
        }
        let mut champion = self.champion(&state)?;
        let capacity = self.cfg.replay.capacity as usize;
        let mut buffer = recovery::rebuild_buffer(storage, &state, &start, capacity, observer)?;
        let metrics_log = recovery::open_metrics(storage, &state, observer)?;
        if let Some(i) = &state.init {
            observer.info(&format!(
                "networks initialised from {}{} (step {}, trained for {}, {})",
                if i.trunk_only {
                    "the trunk of "
                } else if i.grown {
                    "a growth of "
                } else {
                    ""
                },
                i.path,
                i.step,
                i.trained_for,
                i.fingerprint
            ));
        }
        observer.info(&format!(
            "iteration {}, champion {}, {} games so far, replay buffer {} positions; network {} ({} parameters)",
            state.iteration,
            state.champion_id,
            state.total_games,
            buffer.len(),
            crate::init::shape_words(&self.model_config),
            self.model_config.num_params()
        ));
        let session_start = Instant::now();
        let elapsed_before = state.elapsed_s;
        let (session_cpu, cpu_before) = (ProcessTime::now(), state.cpu_s);
        // The seconds of the time budget spent so far, on the run's clock.
        let spent_now = || {
            self.budget_spent(
                elapsed_before + session_start.elapsed().as_secs_f64(),
                cpu_before + session_cpu.elapsed().as_secs_f64(),
            )
        };
        self.solver_slice();
        let first_iteration = state.iteration;
        let (mut stopped_by_request, mut stopped_while_waiting) = (false, false);
        loop {
            if observer.stop_requested() {
                stopped_by_request = true;
                break;
            }
            let spent = spent_now();
            // The run's own limits, recorded in its state for the actors (they stop then).
            let complete = self.run_limit_reached(&state, spent);
            if complete != state.complete {
                state.complete = complete;
                source.before_commit(self, &state)?;
                state.save(self.storage)?;
            }
            if let Some(line) =
                self.limit_reached(&state, first_iteration, spent, limits, session_start)
            {
                observer.info(&line);
                break;
            }
            let it_start = Instant::now();
            let iter = state.iteration;
            let seed = mix(state.rng_seed, u64::from(iter));
            let Some(batch) =
                source.next_batch(self, &state, &champion, &buffer, seed, observer)?
            else {
                (stopped_by_request, stopped_while_waiting) = (true, true);
                break;
            };
            let new_positions = self.ingest(&mut buffer, batch.first_game_id, &batch.games)?;
            let lr = self.learning_rate(iter, spent_now());
            let learned = self.learn(
                &mut trainer,
                &buffer,
                &champion,
                new_positions,
                lr,
                seed,
                iter,
                observer,
            )?;
            // Connect Four: the trained network against the solver (measured, not trained on).
            let solver = self.measure_solver(&learned.candidate, iter)?;
            let gated = self.gate(&learned, &champion, seed, iter, observer)?;
            source.before_commit(self, &state)?;
            let mut report = self.commit(
                &mut state,
                &batch,
                new_positions,
                &buffer,
                &learned,
                &gated,
                solver,
                elapsed_before + session_start.elapsed().as_secs_f64(),
                cpu_before + session_cpu.elapsed().as_secs_f64(),
                &metrics_log,
                observer,
            )?;
            if gated.promoted {
                champion = learned.candidate;
            }
            report.seconds = it_start.elapsed().as_secs_f64();
            observer.iteration_done(&report);
        }
        Ok(RunSummary {
            iterations: state.iteration,
            total_games: state.total_games,
            champion_id: state.champion_id,
            champion_key: RunDir::champion_key(state.champion_id),
            stopped_by_request,
            stopped_while_waiting,
        })
    }

    /// Whether the run's own limits (`run.iterations`, `run.time_budget_minutes`) are
    /// reached after `spent_s` seconds of the time budget ([`Pipeline::budget_spent`]).
    fn run_limit_reached(&self, state: &RunState, spent_s: f64) -> bool {
        let r = &self.cfg.run;
        (r.iterations > 0 && state.iteration >= r.iterations)
            || (r.time_budget_minutes > 0.0 && spent_s >= r.time_budget_minutes * 60.0)
    }

    /// The line saying why the run stops now, if a limit is reached: the run's
    /// `run.iterations` or `run.time_budget_minutes`, or this invocation's `limits`.
    fn limit_reached(
        &self,
        state: &RunState,
        first_iteration: u32,
        spent_s: f64,
        limits: &Limits,
        session_start: Instant,
    ) -> Option<String> {
        let r = &self.cfg.run;
        let done_here = state.iteration - first_iteration;
        if r.iterations > 0 && state.iteration >= r.iterations {
            return Some(format!(
                "the run is complete: reached run.iterations = {}{}",
                r.iterations,
                if done_here == 0 {
                    "; to go on, raise it, e.g. --set run.iterations=N"
                } else {
                    ""
                }
            ));
        }
        if r.time_budget_minutes > 0.0 && spent_s >= r.time_budget_minutes * 60.0 {
            return Some(format!(
                "the run is complete: reached run.time_budget_minutes = {}{}{}",
                r.time_budget_minutes,
                match r.budget_clock {
                    BudgetClock::Wall => "",
                    BudgetClock::Cpu => " of CPU time (run.budget_clock = \"cpu\")",
                },
                if done_here == 0 {
                    "; to go on, raise it, e.g. --set run.time_budget_minutes=M"
                } else {
                    ""
                }
            ));
        }
        if let Some(n) = limits.iterations {
            if done_here >= n {
                return Some(format!(
                    "stopping after {n} iteration{} (--iterations); run the command again to go on",
                    if n == 1 { "" } else { "s" }
                ));
            }
        }
        if let Some(m) = limits.minutes {
            if session_start.elapsed().as_secs_f64() >= m * 60.0 {
                return Some(format!(
                    "stopping after {m} minute{} (--minutes); run the command again to go on",
                    if m == 1.0 { "" } else { "s" }
                ));
            }
        }
        None
    }
}

/// Where the games of each iteration of [`Pipeline::run_with`] come from.
pub trait BatchSource<G: Encode> {
    /// The games of iteration `state.iteration`, with ids from `state.next_game_id` on,
    /// written as the record file `records/<state.next_record_id>.azr` of `pipeline`'s
    /// storage before this returns (the commit of the iteration counts them). `champion` is
    /// the run's champion, `buffer` the replay buffer (whose games restarted games start
    /// from, [`Pipeline::restart_positions`]) and `seed` the iteration's seed. `None` when
    /// [`Observer::stop_requested`] said so while waiting for games: the run stops.
    ///
    /// # Errors
    /// The source's failure; the iteration is not committed.
    #[allow(clippy::too_many_arguments)]
    fn next_batch(
        &mut self,
        pipeline: &Pipeline<'_, G>,
        state: &RunState,
        champion: &PolicyValueNet,
        buffer: &ReplayBuffer<G>,
        seed: u64,
        observer: &dyn Observer,
    ) -> Result<Option<SelfPlayBatch>, PipelineError>;

    /// Called right before each write of the run state (an iteration's commit, or the
    /// record that the run is complete): an error stops the run with nothing more
    /// committed (the learner's check that it still holds the run's lease).
    ///
    /// # Errors
    /// The source's refusal.
    fn before_commit(
        &mut self,
        _pipeline: &Pipeline<'_, G>,
        _state: &RunState,
    ) -> Result<(), PipelineError> {
        Ok(())
    }
}

/// The games of `alphazero train`: this process's own self-play ([`Pipeline::self_play`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct LocalSelfPlay;

impl<G: Encode> BatchSource<G> for LocalSelfPlay {
    fn next_batch(
        &mut self,
        pipeline: &Pipeline<'_, G>,
        state: &RunState,
        champion: &PolicyValueNet,
        buffer: &ReplayBuffer<G>,
        seed: u64,
        observer: &dyn Observer,
    ) -> Result<Option<SelfPlayBatch>, PipelineError> {
        pipeline
            .self_play(
                champion,
                buffer,
                state.next_game_id,
                state.next_record_id,
                seed,
                state.iteration,
                observer,
            )
            .map(Some)
    }
}

/// The exact-solver yardstick of `eval.solver_every` of game `G` from its test data folder
/// `dir`: `eval.solver_positions` positions of its sets, solved once (said through
/// `observer`). `None` for a game without a yardstick ([`Registered::solver_yardstick`]),
/// and, with a warning, when the positions cannot be read: the run goes on unmeasured.
pub fn solver_slice<G: Registered>(
    dir: &Path,
    eval: &EvalConfig,
    observer: &dyn Observer,
) -> Option<Box<dyn Yardstick<G>>> {
    let yardstick = G::solver_yardstick()?;
    let want = eval.solver_positions as usize;
    let start = Instant::now();
    match (yardstick.load)(dir, want) {
        Ok(slice) => {
            observer.info(&format!(
                "solver agreement every {} iterations on {} positions of {} in {} (measured \
                 only, never trained on; solved in {:.1}s)",
                eval.solver_every,
                slice.positions().len(),
                yardstick.info.sets.join(" and "),
                dir.display(),
                start.elapsed().as_secs_f64()
            ));
            Some(slice)
        }
        Err(err) => {
            observer.warning(&format!(
                "no solver agreement measured (eval.solver_every): {err}"
            ));
            None
        }
    }
}

/// Keeps the last line of each iteration (a run killed after writing metrics but before its
/// state re-runs that iteration).
fn dedup_metrics(all: Vec<IterationMetrics>) -> Vec<IterationMetrics> {
    let mut out: Vec<IterationMetrics> = Vec::with_capacity(all.len());
    for m in all {
        while out.last().is_some_and(|l| l.iteration >= m.iteration) {
            out.pop();
        }
        out.push(m);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alphazero_arena::matches::SideName;
    use alphazero_arena::GameRecord;

    #[test]
    fn a_gating_game_lost_by_a_network_failure_is_an_error_not_a_loss() {
        let game = |termination: Termination| GameRecord {
            index: 0,
            first: 0,
            second: 1,
            first_name: "candidate".into(),
            second_name: "champion".into(),
            opening: 0,
            opening_plies: 0,
            result: "0-1".into(),
            winner: Some(1),
            termination,
            moves: Vec::new(),
            think: Default::default(),
        };
        let mut played = MatchResult {
            game: "connect4".into(),
            players: vec!["candidate".into(), "champion".into()],
            games: vec![game(Termination::Rules)],
        };
        assert!(gating_failure(&played).is_ok());
        played.games.push(game(Termination::Failure {
            side: SideName::First,
            message: "candidate: evaluator failed: shape".into(),
        }));
        let e = gating_failure(&played).expect_err("a failure");
        assert_eq!(
            e.to_string(),
            "gating match: candidate: evaluator failed: shape"
        );
    }
}
