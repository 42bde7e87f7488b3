//! **Commit**: an iteration's champion and snapshot, its metrics line, then the run state
//! (written last: the commit point), then the pending checkpoint becomes the latest.

use alphazero_arena::rating;
use alphazero_game::Game;
use alphazero_nn::Encode;

use super::{Gated, Iteration, Learned, Pipeline, SelfPlayBatch};
use crate::error::PipelineError;
use crate::metrics::{MetricsLog, SolverMetrics};
use crate::observer::IterationReport;
use crate::replay::ReplayBuffer;
use crate::run_dir::RunDir;
use crate::state::{ChampionInfo, RunState};

/// What the stages of an iteration produced: what [`Pipeline::commit`] records.
pub struct Outcome<'a, G: Game> {
    /// The iteration's games ([`Pipeline::self_play`] or a [`super::BatchSource`]).
    pub batch: &'a SelfPlayBatch,
    /// The positions they added to the replay buffer ([`Pipeline::ingest`]).
    pub new_positions: u64,
    /// The replay buffer with them.
    pub buffer: &'a ReplayBuffer<G>,
    /// The training ([`Pipeline::learn`]).
    pub learned: &'a Learned,
    /// The gate's decision ([`Pipeline::gate`]).
    pub gated: &'a Gated,
    /// The exact solver's measure of the candidate, when taken ([`Pipeline::measure_solver`]).
    pub solver: Option<SolverMetrics>,
    /// The run's training time so far, in wall-clock seconds.
    pub elapsed_s: f64,
    /// The CPU time of the run's trainer processes so far, in seconds.
    pub cpu_s: f64,
}

impl<G: Encode> Pipeline<'_, G> {
    /// **Commit** iteration `state.iteration` (`it`'s) with its stages' `outcome`: saves a
    /// promoted candidate as the next champion and a snapshot every `run.snapshot_every`
    /// iterations, appends the metrics line to `metrics_log` (and rewrites `metrics.csv` and
    /// the plots; failures there are warnings to `it`'s observer), saves the run state — the
    /// commit point — and then makes the pending trainer checkpoint the latest.
    ///
    /// # Errors
    /// [`PipelineError::Storage`] and the errors of the metrics log and the state.
    pub fn commit(
        &self,
        it: &Iteration<'_>,
        state: &mut RunState,
        outcome: &Outcome<'_, G>,
        metrics_log: &MetricsLog,
    ) -> Result<IterationReport, PipelineError> {
        let cfg = &self.cfg;
        let (batch, learned, gated) = (outcome.batch, outcome.learned, outcome.gated);
        let iter = state.iteration;
        let (champion_elo, champion_elo_se) = self.promote(state, learned, gated)?;
        if cfg.run.snapshot_every > 0 && (iter + 1).is_multiple_of(cfg.run.snapshot_every) {
            let key = RunDir::snapshot_key(iter + 1);
            self.save_network(&key, &learned.candidate, learned.trainer_step)?;
        }
        let games = batch.games.len() as u64;
        state.iteration += 1;
        state.next_record_id += 1;
        state.next_game_id = batch.first_game_id + games;
        state.total_games += games;
        state.total_positions += outcome.new_positions;
        state.elapsed_s = outcome.elapsed_s;
        state.cpu_s = outcome.cpu_s;
        let m = self.iteration_metrics(iter, state, outcome, (champion_elo, champion_elo_se));
        self.write_metrics(&m, metrics_log, it.observer)?;
        state.trainer_step = Some(learned.trainer_step);
        state.save(self.storage)?;
        // Committed: the iteration's trainer checkpoint becomes the latest.
        self.storage.rename(RunDir::PENDING, RunDir::LATEST)?;
        Ok(IterationReport {
            metrics: m,
            selfplay: batch.stats.clone(),
            promoted_without_gating: gated.promoted && gated.metrics.is_none(),
            gated: cfg.gating.enabled,
            champion_elo_se,
            seconds: 0.0,
        })
    }

    /// The champion after `gated`'s decision: a promoted candidate of `learned` is saved as
    /// the next champion and named in `state`. Returns the champion's Elo and its standard
    /// error.
    fn promote(
        &self,
        state: &mut RunState,
        learned: &Learned,
        gated: &Gated,
    ) -> Result<(f64, f64), PipelineError> {
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
                iteration: state.iteration + 1,
                key: RunDir::champion_key(id),
                elo: champion_elo,
                elo_se: champion_elo_se,
            });
        }
        Ok((champion_elo, champion_elo_se))
    }
}
