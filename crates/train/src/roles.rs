//! The actor and learner roles: one run's stages split over many processes (many machines)
//! that share only its [`Storage`] — a bucket, through [`crate::storage::exchange`].
//!
//! - An **actor** ([`open_run`], then [`run_actor`]) plays self-play batches with the run's
//!   committed champion and its `[selfplay]` settings, through the same code as `train`
//!   ([`Pipeline::self_play_games`], [`Pipeline::record_file`]), and publishes each batch with
//!   an [`Outbox`]. It holds no state of the run: any number of actors can join or leave (or
//!   be killed) at any time.
//! - The **learner** is [`Pipeline::run_with`] with [`ActorBatches`] as the source of each
//!   iteration's games: it takes published batches through the [`Inbox`] ledger (each batch
//!   is counted by exactly one committed iteration), and the rest of the iteration — learn,
//!   gate, commit, recovery after a crash — is `train`'s. The champions it commits are what
//!   the actors play with next.
//!
//! Actors take the champion named by the run state (`state/run.json`, the learner's commit
//! point), not the newest network file: a champion written by an iteration that a killed
//! learner never committed is never played.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use alphazero_nn::{Encode, PolicyValueNet};
use alphazero_selfplay::SelfPlayStats;

use crate::config::TrainConfig;
use crate::error::PipelineError;
use crate::metrics::ActorIntake;
use crate::observer::Observer;
use crate::pipeline::{
    BatchSource, InvocationLimits, Iteration, Pipeline, RunSummary, SelfPlayBatch,
};
use crate::record::{read_records, GameRecord};
use crate::replay::ReplayBuffer;
use crate::run_dir::{RunDir, SetAside};
use crate::state::RunState;
use crate::storage::exchange::{read_run, ExchangeError, Inbox, Outbox, RunManifest};
use crate::storage::lease::LearnerLease;
use crate::storage::Storage;
use crate::InitNetwork;
use alphazero_game::mix_seed as mix;
use alphazero_records::GameResult;

/// How often an actor or the learner looks again while it waits (for the learner's first
/// network, for actors' batches).
pub const DEFAULT_POLL: Duration = Duration::from_secs(1);

/// How many reads of the run state or of the champion in a row an actor lets fail (each
/// after the storage's own retries, one [`ActorOptions::poll`] apart) before it stops with
/// the error: a single failure (e.g. a read that meets an object being replaced on a server
/// whose writes are not atomic) is a warning, and the actor goes on with the champion it has.
pub const ACTOR_READ_FAILURES: u32 = 10;

/// The run an actor joins at `location` (named in errors): its manifest, checked against
/// `game` when given ([`read_run`]), and its configuration (`config.toml`, which the learner
/// saves). Writes nothing.
///
/// # Errors
/// [`ExchangeError::NoRun`] when there is no run there yet, [`ExchangeError::OtherGame`],
/// [`PipelineError::Config`] for a configuration that does not parse, and storage errors.
pub fn open_run(
    storage: &dyn Storage,
    location: &str,
    game: Option<&str>,
) -> Result<(RunManifest, TrainConfig), PipelineError> {
    let manifest = match read_run(storage, location, game) {
        // A folder `alphazero train` made: no manifest, but a run state. A learner started
        // there adopts it; an actor alone cannot.
        Err(ExchangeError::NoRun { .. }) if storage.exists(RunState::KEY)? => {
            return Err(PipelineError::Invalid(format!(
                "{location} holds a run of `alphazero train` (no {}), not yet one of a \
                 learner; start a learner there (`alphazero learner --storage {location}`), \
                 which takes the run over, and actors join it then",
                RunDir::MANIFEST
            )))
        }
        other => other?,
    };
    let text =
        crate::sources::saved_config(storage, location)?.ok_or_else(|| ExchangeError::NoRun {
            location: location.to_string(),
            key: RunDir::CONFIG.to_string(),
        })?;
    let cfg = TrainConfig::from_toml_str(&text).map_err(|e| {
        PipelineError::Invalid(format!(
            "{} in {location} is not a run's configuration: {e}",
            RunDir::CONFIG
        ))
    })?;
    Ok((manifest, cfg))
}

/// What an actor does besides the run's settings.
#[derive(Clone, Debug)]
pub struct ActorOptions {
    /// The run's location (URL or directory), named in log lines and errors.
    pub location: String,
    /// Stop after this many games (the last batch is cut to fit); `None`: until
    /// [`Observer::stop_requested`].
    pub games: Option<u64>,
    /// How often to look again for the learner's first network.
    pub poll: Duration,
}

/// What an actor did when [`run_actor`] returns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ActorSummary {
    /// Batches published.
    pub batches: u64,
    /// Games published.
    pub games: u64,
    /// Whether it stopped because [`Observer::stop_requested`] said so.
    pub stopped_by_request: bool,
    /// Whether it stopped because the run is complete (the learner recorded that it reached
    /// the run's `run.iterations` or `run.time_budget_minutes`).
    pub run_complete: bool,
}

/// An actor: self-play batches of `selfplay.games_per_iteration` games with the run's
/// committed champion (looked up again before each batch), each published through `outbox`
/// with one log line, until `options.games`, [`Observer::stop_requested`] (a batch under
/// way is finished and published first), or the run is complete ([`RunState::complete`],
/// one log line). Waits, with a log line, until the learner has written the run's first
/// network. A read of the run state or of a champion that fails is a warning: the actor goes
/// on with the champion it has (or waits for one) and reads again before the next batch;
/// [`ACTOR_READ_FAILURES`] failures in a row end it.
///
/// Game restarts (`selfplay.restarts.share` > 0): an actor sees only the games it played
/// itself, so its restarted games start from positions of those (the run's rule over its own
/// newest `replay.capacity` positions, kept in a replay buffer of its own from its first
/// batch on: as much memory as the learner's buffer). Without restarts it keeps nothing.
///
/// # Errors
/// A storage error that outlasts the storage's own retries, a network that cannot be read,
/// each [`ACTOR_READ_FAILURES`] times in a row; a self-play error, [`ExchangeError::Taken`].
pub fn run_actor<G: Encode>(
    p: &Pipeline<'_, G>,
    outbox: &mut Outbox,
    options: &ActorOptions,
    observer: &dyn Observer,
) -> Result<ActorSummary, PipelineError> {
    let storage = p.storage();
    let per_batch = u64::from(p.config().selfplay.games_per_iteration).max(1);
    let seed = rand::random::<u64>();
    let mut champion: Option<(u32, PolicyValueNet)> = None;
    let restarts = p.config().selfplay.restarts.share > 0.0;
    // The actor's own games, what its restarts start from (one slot when there are none).
    let mut own_games = ReplayBuffer::<G>::new(if restarts {
        p.config().replay.capacity as usize
    } else {
        1
    });
    let mut summary = ActorSummary::default();
    let mut waiting = false;
    let mut failures = 0u32;
    let failed = |failures: &mut u32, what: &str, e: PipelineError| {
        read_failed(failures, what, e, &options.location, observer)
    };
    loop {
        if observer.stop_requested() {
            summary.stopped_by_request = true;
            break;
        }
        let games = match options.games {
            Some(n) if summary.games >= n => break,
            Some(n) => per_batch.min(n - summary.games),
            None => per_batch,
        };
        let committed = match RunState::load(storage) {
            Ok(state) => Some(state.unwrap_or_else(|| RunState::new(0))),
            Err(e) => {
                failed(&mut failures, RunState::KEY, e.into())?;
                None
            }
        };
        if let Some(state) = &committed {
            if state.complete {
                observer.info(&format!(
                    "the run at {} is complete ({} iterations: the learner reached \
                     run.iterations or run.time_budget_minutes); stopping",
                    options.location, state.iteration
                ));
                summary.run_complete = true;
                break;
            }
        }
        let wanted = committed.map(|s| (s.champion_id, RunDir::champion_key(s.champion_id)));
        let have = champion.as_ref().map(|c| c.0);
        if let Some((id, key)) = wanted.clone().filter(|(id, _)| have != Some(*id)) {
            match storage.exists(&key) {
                Ok(false) => {
                    if champion.is_none() {
                        if !waiting {
                            observer.info(&format!(
                                "waiting for the learner's first network {key} at {}",
                                options.location
                            ));
                            waiting = true;
                        }
                        std::thread::sleep(options.poll);
                        continue;
                    }
                }
                Ok(true) => match p.load_network(&key) {
                    Ok(net) => {
                        failures = 0;
                        champion = Some((id, net));
                        observer.info(&format!("playing with champion {id} ({key})"));
                    }
                    Err(e) => failed(&mut failures, &key, e)?,
                },
                Err(e) => failed(&mut failures, &key, e.into())?,
            }
        } else if wanted.is_some() {
            failures = 0;
        }
        let Some((id, net)) = &champion else {
            // Nothing to play with yet, and the last read failed.
            std::thread::sleep(options.poll);
            continue;
        };
        let start = Instant::now();
        let batch_seed = mix(seed, summary.batches);
        let batch = Iteration {
            number: summary.batches as u32,
            seed: batch_seed,
            champion: net,
            observer,
        };
        let (records, stats) = p.self_play_games(&batch, &own_games, games, 0)?;
        let key = outbox.publish(storage, &p.record_file(0, &records)?, *id)?;
        if restarts {
            // Ids of the actor's own: the learner numbers the games when it takes them.
            p.ingest(&mut own_games, summary.games, &records)?;
        }
        let seconds = start.elapsed().as_secs_f64();
        summary.batches += 1;
        summary.games += records.len() as u64;
        observer.info(&format!(
            "published {key}: {} games, {} plies, champion {id}, {seconds:.1} s ({:.0} games/hour)",
            records.len(),
            stats.plies,
            records.len() as f64 / seconds.max(1e-9) * 3600.0
        ));
    }
    Ok(summary)
}

/// An actor's failed read of `what` at `location`: a warning and `Ok` while the failures in a
/// row stay under [`ACTOR_READ_FAILURES`], then the error.
fn read_failed(
    failures: &mut u32,
    what: &str,
    e: PipelineError,
    location: &str,
    observer: &dyn Observer,
) -> Result<(), PipelineError> {
    *failures += 1;
    if *failures >= ACTOR_READ_FAILURES {
        return Err(e.context(format!(
            "reading {what} at {location} failed {failures} times in a row"
        )));
    }
    observer.warning(&format!(
        "reading {what} at {location} failed ({e}); going on with the champion this actor \
         has, reading again before the next batch"
    ));
    Ok(())
}

/// The learner: [`Pipeline::run_with`] on `source`, holding `lease` (see
/// [`crate::storage::lease`]) for the whole run. A heartbeat thread renews the lease every
/// [`LearnerLease::renew_every`]; `source` checks that the lease is still held before every
/// write of the run's shared state ([`ActorBatches::with_lease`]); the lease is released when
/// the run stops (so that the next learner takes it at once).
///
/// # Errors
/// As [`Pipeline::run_with`]; [`ExchangeError::Lost`] when another learner took the run over
/// (nothing more is committed).
pub fn run_learner<G: Encode>(
    p: &Pipeline<'_, G>,
    source: &mut ActorBatches<'_>,
    lease: &LearnerLease<'_>,
    init: Option<&InitNetwork>,
    limits: &InvocationLimits,
    observer: &dyn Observer,
) -> Result<RunSummary, PipelineError> {
    let (stop_tx, stop_rx) = std::sync::mpsc::channel::<()>();
    let result = std::thread::scope(|scope| {
        scope.spawn(move || {
            // Until the learner's thread hangs up.
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                stop_rx.recv_timeout(lease.renew_every())
            {
                match lease.renew() {
                    Ok(()) => {}
                    // The learner's own check says so before its next write.
                    Err(ExchangeError::Lost { .. }) => break,
                    Err(e) => tracing::warn!("the learner lease was not renewed: {e}"),
                }
            }
        });
        let result = p.run_with(source, init, limits, observer);
        drop(stop_tx);
        result
    });
    if let Err(e) = lease.release() {
        observer.warning(&format!("the learner lease was not released: {e}"));
    }
    result
}

/// The self-play figures of games the learner took: counts, plies, results (W/D/L) and
/// restarted games; the times (self-play, network) are the actors' and stay 0, unknown here.
fn taken_stats(games: &[GameRecord]) -> SelfPlayStats {
    let result = |r: GameResult| games.iter().filter(|g| g.result == r).count() as u64;
    SelfPlayStats {
        games: games.len() as u64,
        plies: games.iter().map(|g| g.plies.len() as u64).sum(),
        first_wins: result(GameResult::FirstWon),
        draws: result(GameResult::Draw),
        second_wins: result(GameResult::SecondWon),
        restarted: games.iter().filter(|g| !g.prefix.is_empty()).count() as u64,
        ..SelfPlayStats::default()
    }
}

/// The learner's source of games ([`BatchSource`]): the batches that actors published, each
/// taken by exactly one committed iteration through the [`Inbox`] ledger, at the learner's
/// own pace (`[actors]`, [`crate::config::ActorsSection`]).
///
/// An iteration waits (one log line per wait) until the published batches not taken yet
/// hold at least `selfplay.games_per_iteration` games, then takes the oldest of them (by the
/// champion that played them, then by number) while their games stay within
/// `actors.max_games_per_iteration` (at least one batch); the rest stay for the next
/// iterations. Batches played by a champion more than `actors.max_champion_lag` champions
/// before the current one are skipped: never trained on, and counted. The taken games, in
/// that order, become the iteration's record file `records/<id>.azr` (ids renumbered from the
/// run's next game id), and the ledger names the taken and skipped keys before the iteration
/// is committed. Batches of committed iterations are deleted from `incoming/` (their keys
/// stay in the ledger, so a late duplicate is never counted). A published object that is no
/// record file of the run's game is moved to `<key>.corrupt` with a warning and not counted.
pub struct ActorBatches<'l> {
    location: String,
    lease: Option<&'l LearnerLease<'l>>,
    poll: Duration,
    inbox: Option<Inbox>,
    tidied: u32,
    fetched: BTreeMap<String, Vec<GameRecord>>,
    since: Instant,
}

impl<'l> ActorBatches<'l> {
    /// The batches of the run at `location` (named in log lines and errors), looked for again
    /// every `poll` while an iteration waits.
    pub fn new(location: &str, poll: Duration) -> Self {
        ActorBatches {
            location: location.to_string(),
            lease: None,
            poll,
            inbox: None,
            tidied: 0,
            fetched: BTreeMap::new(),
            since: Instant::now(),
        }
    }

    /// The same source checking, before each write of the run's shared state (its record
    /// file, the ledger, the run state), that this process still holds `lease`.
    pub fn with_lease(mut self, lease: &'l LearnerLease<'l>) -> Self {
        self.lease = Some(lease);
        self
    }

    /// [`LearnerLease::check`] when there is a lease.
    fn check_lease(&self) -> Result<(), PipelineError> {
        match self.lease {
            Some(l) => Ok(l.check()?),
            None => Ok(()),
        }
    }

    /// Reads the pending batches not read yet; returns the pending keys whose games are read.
    fn fetch<G: Encode>(
        &mut self,
        p: &Pipeline<'_, G>,
        pending: Vec<String>,
        observer: &dyn Observer,
    ) -> Result<Vec<String>, PipelineError> {
        let storage = p.storage();
        let mut ready = Vec::with_capacity(pending.len());
        for key in pending {
            if !self.fetched.contains_key(&key) {
                let bytes = storage.get(&key)?;
                match read_records(&bytes, G::NAME, p.num_actions()) {
                    Ok(file) => {
                        self.fetched.insert(key.clone(), file.games);
                    }
                    Err(e) => {
                        let to = RunDir::set_aside(&key, SetAside::Corrupt);
                        storage.rename(&key, &to)?;
                        observer.warning(&format!(
                            "{key} at {} is no record file of this run ({e}); moved it to \
                             {to}, its games are not counted",
                            self.location
                        ));
                        continue;
                    }
                }
            }
            ready.push(key);
        }
        Ok(ready)
    }
}

impl<G: Encode> BatchSource<G> for ActorBatches<'_> {
    fn before_commit(
        &mut self,
        _p: &Pipeline<'_, G>,
        _state: &RunState,
    ) -> Result<(), PipelineError> {
        self.check_lease()
    }

    fn next_batch(
        &mut self,
        p: &Pipeline<'_, G>,
        it: &Iteration<'_>,
        state: &RunState,
        _buffer: &ReplayBuffer<G>,
    ) -> Result<Option<SelfPlayBatch>, PipelineError> {
        let observer = it.observer;
        let storage = p.storage();
        let mut inbox = match self.inbox.take() {
            Some(i) => i,
            // The first iteration of this process: the ledger as of the last commit.
            None => Inbox::load(storage, &self.location, state.iteration)?,
        };
        if self.tidied < state.iteration {
            inbox.tidy(storage, state.iteration)?;
            self.tidied = state.iteration;
        }
        let cfg = p.config();
        let want = u64::from(cfg.selfplay.games_per_iteration).max(1);
        let at_most = cfg
            .actors
            .max_games(cfg.selfplay.games_per_iteration)
            .max(want);
        let current = state.champion_id;
        // How many champions behind the current one a batch was played; `None` when its key
        // does not say (published before keys named their champion): never stale.
        let lag = |key: &str| RunDir::batch_champion(key).map(|c| current.saturating_sub(c));
        let stale = |key: &str| lag(key).is_some_and(|l| l > cfg.actors.max_champion_lag);
        let mut said = false;
        let (fresh, skipped) = loop {
            let ready = self.fetch(p, inbox.pending(storage)?, observer)?;
            let (skipped, fresh): (Vec<String>, Vec<String>) =
                ready.into_iter().partition(|k| stale(k));
            let have: u64 = fresh.iter().map(|k| self.fetched[k].len() as u64).sum();
            if have >= want {
                break (fresh, skipped);
            }
            if observer.stop_requested() {
                self.inbox = Some(inbox);
                return Ok(None);
            }
            if !said {
                observer.info(&format!(
                    "iteration {}: waiting for actors: {have} of {want} games published at {} \
                     (selfplay.games_per_iteration); start actors with `alphazero actor \
                     --storage {}`",
                    state.iteration, self.location, self.location
                ));
                said = true;
            }
            std::thread::sleep(self.poll);
        };
        // Oldest first: by the champion that played the batch, then its number within its
        // actor (an unnamed champion counts as the current one).
        let mut order = fresh;
        order.sort_by_key(|k| {
            let seq = k.rsplit('/').next().unwrap_or(k).to_string();
            (RunDir::batch_champion(k).unwrap_or(current), seq, k.clone())
        });
        let mut taken = Vec::new();
        let mut taken_games = 0u64;
        let mut backlog = ActorIntake::default();
        let mut full = false;
        for key in order {
            let n = self.fetched[&key].len() as u64;
            // In order: the first batch that does not fit ends the take.
            full = full || !(taken.is_empty() || taken_games + n <= at_most);
            if !full {
                taken_games += n;
                taken.push(key);
            } else {
                backlog.backlog_batches += 1;
                backlog.backlog_games += n;
            }
        }
        let mut games = Vec::new();
        for key in &taken {
            games.extend(self.fetched.remove(key).unwrap_or_default());
        }
        let stale_games: u64 = skipped
            .iter()
            .map(|k| self.fetched.remove(k).map_or(0, |g| g.len() as u64))
            .sum();
        let intake = ActorIntake {
            batches: taken.len() as u64,
            champion_lag_max: taken.iter().filter_map(|k| lag(k)).max().unwrap_or(0),
            stale_batches: skipped.len() as u64,
            stale_games,
            ..backlog
        };
        let first_game_id = state.next_game_id;
        let key = RunDir::record_key(state.next_record_id);
        self.check_lease()?;
        storage.put(&key, &p.record_file(first_game_id, &games)?)?;
        // The ledger names the batches before the iteration's commit.
        inbox.consume(storage, &taken, &skipped, state.iteration)?;
        self.inbox = Some(inbox);
        let stale_text = match intake.stale_batches {
            0 => String::new(),
            n => format!(
                "; skips {n} batches ({stale_games} games) played by champions more than {} \
                 behind champion {current} (actors.max_champion_lag)",
                cfg.actors.max_champion_lag
            ),
        };
        observer.info(&format!(
            "iteration {} takes {} actor batches ({} games), {} batches ({} games) left \
             waiting{stale_text}",
            state.iteration,
            taken.len(),
            games.len(),
            intake.backlog_batches,
            intake.backlog_games
        ));
        let stats = taken_stats(&games);
        let seconds = self.since.elapsed().as_secs_f64();
        self.since = Instant::now();
        Ok(Some(SelfPlayBatch {
            key,
            first_game_id,
            games,
            stats,
            seconds,
            played_here: false,
            intake: Some(intake),
        }))
    }
}
