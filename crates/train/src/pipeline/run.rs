//! The loop: recovery and the trainer opened, then iterations of self-play → ingest → learn
//! → gate → commit until a limit.

use std::time::Instant;

use alphazero_game::Game;
use alphazero_nn::{Encode, PolicyValueNet, Trainer};
use cpu_time::ProcessTime;

use super::{
    BatchSource, InvocationLimits, Iteration, LocalSelfPlay, Outcome, Pipeline, RunSummary,
};
use crate::config::BudgetClock;
use crate::error::PipelineError;
use crate::init::InitNetwork;
use crate::metrics::MetricsLog;
use crate::observer::Observer;
use crate::recovery;
use crate::replay::ReplayBuffer;
use crate::run_dir::RunDir;
use crate::state::{ChampionInfo, RunState};

/// The run's training time: what its state recorded before this session, and this
/// session's, on the wall clock and in the process's CPU time.
struct RunClock {
    session_start: Instant,
    elapsed_before: f64,
    session_cpu: ProcessTime,
    cpu_before: f64,
}

impl RunClock {
    /// Starts this session's clocks on a run whose state is `state`.
    fn start(state: &RunState) -> Self {
        RunClock {
            session_start: Instant::now(),
            elapsed_before: state.elapsed_s,
            session_cpu: ProcessTime::now(),
            cpu_before: state.cpu_s,
        }
    }

    /// The run's wall-clock training seconds so far.
    fn elapsed_s(&self) -> f64 {
        self.elapsed_before + self.session_start.elapsed().as_secs_f64()
    }

    /// The CPU seconds of the run's trainer processes so far.
    fn cpu_s(&self) -> f64 {
        self.cpu_before + self.session_cpu.elapsed().as_secs_f64()
    }
}

/// What the loop carries from one iteration to the next: the run state (committed at the
/// end of each iteration), the trainer, the champion, the replay buffer, the metrics log and
/// the run's clocks.
struct Session<G: Game> {
    state: RunState,
    trainer: Trainer,
    champion: PolicyValueNet,
    buffer: ReplayBuffer<G>,
    metrics_log: MetricsLog,
    clock: RunClock,
}

impl<G: Encode> Pipeline<'_, G> {
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
        limits: &InvocationLimits,
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
        limits: &InvocationLimits,
        observer: &dyn Observer,
    ) -> Result<RunSummary, PipelineError> {
        let mut s = self.open_session(init, observer)?;
        self.solver_slice();
        let first_iteration = s.state.iteration;
        let (mut stopped_by_request, mut stopped_while_waiting) = (false, false);
        loop {
            if observer.stop_requested() {
                stopped_by_request = true;
                break;
            }
            let spent = self.spent(&s.clock);
            // The run's own limits, recorded in its state for the actors (they stop then).
            let complete = self.run_limit_reached(&s.state, spent);
            if complete != s.state.complete {
                s.state.complete = complete;
                source.before_commit(self, &s.state)?;
                s.state.save(self.storage)?;
            }
            let session_start = s.clock.session_start;
            if let Some(line) =
                self.limit_reached(&s.state, first_iteration, spent, limits, session_start)
            {
                observer.info(&line);
                break;
            }
            if !self.iterate(source, &mut s, observer)? {
                (stopped_by_request, stopped_while_waiting) = (true, true);
                break;
            }
        }
        let state = &s.state;
        Ok(RunSummary {
            iterations: state.iteration,
            total_games: state.total_games,
            champion_id: state.champion_id,
            champion_key: RunDir::champion_key(state.champion_id),
            stopped_by_request,
            stopped_while_waiting,
        })
    }

    /// One iteration of the loop on session `s`: its games from `source`, then ingest →
    /// learn → (the solver's measure) → gate → commit, reported to `observer`. `false` when
    /// `source` had no games for it ([`BatchSource::next_batch`]: a stop was requested
    /// while it waited); nothing is committed then.
    fn iterate(
        &self,
        source: &mut dyn BatchSource<G>,
        s: &mut Session<G>,
        observer: &dyn Observer,
    ) -> Result<bool, PipelineError> {
        let it_start = Instant::now();
        let it = Iteration::of(&s.state, &s.champion, observer);
        let Some(batch) = source.next_batch(self, &it, &s.state, &s.buffer)? else {
            return Ok(false);
        };
        let new_positions = self.ingest(&mut s.buffer, batch.first_game_id, &batch.games)?;
        let lr = self.learning_rate(it.number, self.spent(&s.clock));
        let learned = self.learn(&it, &mut s.trainer, &s.buffer, new_positions, lr)?;
        // Connect Four: the trained network against the solver (measured, not trained on).
        let solver = self.measure_solver(&learned.candidate, it.number)?;
        let gated = self.gate(&it, &learned)?;
        source.before_commit(self, &s.state)?;
        let outcome = Outcome {
            batch: &batch,
            new_positions,
            buffer: &s.buffer,
            learned: &learned,
            gated: &gated,
            solver,
            elapsed_s: s.clock.elapsed_s(),
            cpu_s: s.clock.cpu_s(),
        };
        let mut report = self.commit(&it, &mut s.state, &outcome, &s.metrics_log)?;
        if gated.promoted {
            s.champion = learned.candidate;
        }
        report.seconds = it_start.elapsed().as_secs_f64();
        observer.iteration_done(&report);
        Ok(true)
    }

    /// The seconds of the time budget spent so far on `clock`, on the run's clock
    /// (`run.budget_clock`).
    fn spent(&self, clock: &RunClock) -> f64 {
        self.budget_spent(clock.elapsed_s(), clock.cpu_s())
    }

    /// The session a run goes on with: its state and trainer (`resume`), its champion, its
    /// replay buffer rebuilt from the committed record files, its metrics log, and its
    /// clocks started, after the lines that say where it stands.
    fn open_session(
        &self,
        init: Option<&InitNetwork>,
        observer: &dyn Observer,
    ) -> Result<Session<G>, PipelineError> {
        let storage = self.storage;
        let (state, trainer) = self.resume(init, observer)?;
        let champion = self.champion(&state)?;
        let capacity = self.cfg.replay.capacity as usize;
        let start = self.start_position();
        let buffer = recovery::rebuild_buffer(storage, &state, &start, capacity, observer)?;
        let metrics_log = recovery::open_metrics(storage, &state, observer)?;
        self.say_where_the_run_stands(&state, &buffer, observer);
        let clock = RunClock::start(&state);
        Ok(Session {
            state,
            trainer,
            champion,
            buffer,
            metrics_log,
            clock,
        })
    }

    /// The run state and the trainer a run goes on with: what an interrupted iteration left
    /// undone or set aside ([`crate::recovery`]), the trainer opened
    /// ([`Pipeline::open_trainer`]), champion 0 named in a new run's state, and a run started
    /// from `init` committed at once.
    fn resume(
        &self,
        init: Option<&InitNetwork>,
        observer: &dyn Observer,
    ) -> Result<(RunState, Trainer), PipelineError> {
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
        let trainer = self.open_trainer(&mut state, init, lr0, observer)?;
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
        Ok((state, trainer))
    }

    /// The lines that open a run: where its networks came from, and where it stands.
    fn say_where_the_run_stands(
        &self,
        state: &RunState,
        buffer: &ReplayBuffer<G>,
        observer: &dyn Observer,
    ) {
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
        limits: &InvocationLimits,
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
