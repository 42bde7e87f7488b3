//! `metrics.csv`: the metrics records as a table for spreadsheets and other tools.

use std::path::Path;

use serde::Serialize;

use super::{IterationMetrics, MetricsError};

/// One row of `metrics.csv`: [`IterationMetrics`] flattened (the gating match and the
/// solver agreement as prefixed columns, empty when absent), plus the hours of training.
/// The loss columns are empty for an iteration without optimizer steps and `elo` is empty
/// where no gating match measured it (not 0.0, which reads as a measurement).
#[derive(Serialize)]
struct CsvRow {
    iteration: u32,
    unix_time: f64,
    elapsed_s: f64,
    hours: f64,
    cpu_hours: f64,
    games: u64,
    restarted_games: u64,
    random_start_games: u64,
    total_games: u64,
    positions: u64,
    total_positions: u64,
    buffer_fill: u64,
    buffer_capacity: u64,
    train_steps: u64,
    lr: f64,
    policy_loss: Option<f64>,
    value_loss: Option<f64>,
    total_loss: Option<f64>,
    policy_entropy: Option<f64>,
    kl: Option<f64>,
    gating_wins: Option<u32>,
    gating_draws: Option<u32>,
    gating_losses: Option<u32>,
    gating_llr: Option<f64>,
    gating_promoted: Option<bool>,
    gating_elo: Option<f64>,
    gating_elo_lo: Option<f64>,
    gating_elo_hi: Option<f64>,
    champion_id: u32,
    elo: Option<f64>,
    elo_lo: Option<f64>,
    elo_hi: Option<f64>,
    selfplay_games_per_hour: f64,
    network_time_fraction: Option<f64>,
    selfplay_s: Option<f64>,
    train_s: f64,
    gating_s: f64,
    solver_positions: Option<u32>,
    solver_policy_best: Option<f64>,
    solver_policy_keeps: Option<f64>,
    solver_value_sign: Option<f64>,
    aux_policy_loss: Option<f64>,
    aux_ownership_loss: Option<f64>,
    actor_batches: Option<u64>,
    champion_lag_max: Option<u32>,
    backlog_games: Option<u64>,
    stale_games: Option<u64>,
}

impl From<&IterationMetrics> for CsvRow {
    fn from(m: &IterationMetrics) -> Self {
        let g = m.gating.as_ref();
        let s = m.solver.as_ref();
        // Losses exist only for iterations that took optimizer steps, the champion's Elo
        // only where gating measured it: empty cells, not zeros, otherwise.
        let trained = m.train_steps > 0;
        CsvRow {
            iteration: m.iteration,
            unix_time: m.unix_time,
            elapsed_s: m.elapsed_s,
            hours: m.elapsed_s / 3600.0,
            cpu_hours: m.cpu_s / 3600.0,
            games: m.games,
            restarted_games: m.restarted_games,
            random_start_games: m.random_start_games,
            total_games: m.total_games,
            positions: m.positions,
            total_positions: m.total_positions,
            buffer_fill: m.buffer_fill,
            buffer_capacity: m.buffer_capacity,
            train_steps: m.train_steps,
            lr: m.lr,
            policy_loss: trained.then_some(m.policy_loss),
            value_loss: trained.then_some(m.value_loss),
            total_loss: trained.then_some(m.total_loss),
            policy_entropy: trained.then_some(m.policy_entropy),
            kl: trained.then_some(m.kl),
            gating_wins: g.map(|g| g.wins),
            gating_draws: g.map(|g| g.draws),
            gating_losses: g.map(|g| g.losses),
            gating_llr: g.map(|g| g.llr),
            gating_promoted: g.map(|g| g.promoted),
            gating_elo: g.and_then(|g| g.elo),
            gating_elo_lo: g.and_then(|g| g.elo_lo),
            gating_elo_hi: g.and_then(|g| g.elo_hi),
            champion_id: m.champion_id,
            elo: m.elo_lo.map(|_| m.elo),
            elo_lo: m.elo_lo,
            elo_hi: m.elo_hi,
            selfplay_games_per_hour: m.selfplay_games_per_hour,
            network_time_fraction: m.network_time_fraction,
            selfplay_s: m.selfplay_s,
            train_s: m.train_s,
            gating_s: m.gating_s,
            solver_positions: s.map(|s| s.positions),
            solver_policy_best: s.map(|s| s.policy_best),
            solver_policy_keeps: s.map(|s| s.policy_keeps),
            solver_value_sign: s.map(|s| s.value_sign),
            aux_policy_loss: m.aux_policy_loss.filter(|_| trained),
            aux_ownership_loss: m.aux_ownership_loss.filter(|_| trained),
            actor_batches: m.intake.as_ref().map(|i| i.batches),
            champion_lag_max: m.intake.as_ref().map(|i| i.champion_lag_max),
            backlog_games: m.intake.as_ref().map(|i| i.backlog_games),
            stale_games: m.intake.as_ref().map(|i| i.stale_games),
        }
    }
}

/// `metrics` as CSV text: a header line naming the columns, then one row per record
/// (empty cells for a missing gating match or solver measurement).
///
/// # Errors
/// [`MetricsError::Csv`] (not expected for in-memory output; `path` is only named).
pub fn to_csv(metrics: &[IterationMetrics], path: &Path) -> Result<Vec<u8>, MetricsError> {
    let csv_err = |source| MetricsError::Csv {
        path: path.to_path_buf(),
        source,
    };
    let mut w = csv::Writer::from_writer(Vec::new());
    for m in metrics {
        w.serialize(CsvRow::from(m)).map_err(csv_err)?;
    }
    w.into_inner()
        .map_err(|e| csv_err(csv::Error::from(e.into_error())))
}
