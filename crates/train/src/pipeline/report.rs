//! An iteration's metrics line and the views rewritten from the whole log (`metrics.csv`,
//! the plots): what [`Pipeline::commit`] writes before the run state.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use alphazero_arena::rating;
use alphazero_nn::Encode;

use super::{Outcome, Pipeline};
use crate::error::PipelineError;
use crate::metrics::{IterationMetrics, MetricsLog};
use crate::observer::Observer;
use crate::run_dir::RunDir;
use crate::state::RunState;

impl<G: Encode> Pipeline<'_, G> {
    /// The metrics line of iteration `iteration` from its stages' `outcome`, with the run
    /// state `state` after it and the champion's Elo and its standard error `elo`.
    pub(super) fn iteration_metrics(
        &self,
        iteration: u32,
        state: &RunState,
        outcome: &Outcome<'_, G>,
        elo: (f64, f64),
    ) -> IterationMetrics {
        let (batch, learned, gated) = (outcome.batch, outcome.learned, outcome.gated);
        let (champion_elo, champion_elo_se) = elo;
        let gated_run = self.cfg.gating.enabled;
        let games = batch.games.len() as u64;
        let sp = &batch.stats;
        IterationMetrics {
            iteration,
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
            positions: outcome.new_positions,
            total_positions: state.total_positions,
            buffer_fill: outcome.buffer.len() as u64,
            buffer_capacity: outcome.buffer.capacity() as u64,
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
            solver: outcome.solver.clone(),
            intake: batch.intake.clone(),
        }
    }

    /// Appends `m` to `log`, then rewrites `metrics.csv` and the plots from the whole log
    /// (failures there are warnings to `observer`: they are views, rewritten next time).
    pub(super) fn write_metrics(
        &self,
        m: &IterationMetrics,
        log: &MetricsLog,
        observer: &dyn Observer,
    ) -> Result<(), PipelineError> {
        log.append(self.storage, m)?;
        let all = dedup_metrics(log.read_all(self.storage)?);
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
        Ok(())
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
