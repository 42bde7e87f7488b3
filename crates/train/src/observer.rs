//! How the pipeline reports progress: an [`Observer`] that a front end implements (the
//! `alphazero` binary draws progress bars and prints summary lines; a test can count calls).

use alphazero_arena::rating;
use alphazero_selfplay::SelfPlayStats;

use crate::metrics::IterationMetrics;

/// A stage of an iteration that reports progress in units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Self-play; units are games.
    SelfPlay,
    /// Training; units are optimizer steps.
    Learn,
    /// The gating match; units are games.
    Gate,
}

/// What one committed iteration did: its metrics line plus the self-play figures that are
/// not in it.
#[derive(Clone, Debug)]
pub struct IterationReport {
    /// The line appended to `metrics.jsonl`.
    pub metrics: IterationMetrics,
    /// The self-play stage's counts and times.
    pub selfplay: SelfPlayStats,
    /// Whether a candidate became champion without a gating match (`gating.enabled = false`).
    pub promoted_without_gating: bool,
    /// Whether gating is on for the run (the champion's Elo exists only then).
    pub gated: bool,
    /// The standard error of the champion's Elo (Elo points).
    pub champion_elo_se: f64,
    /// Wall-clock seconds of the whole iteration.
    pub seconds: f64,
}

impl IterationReport {
    /// The iteration's summary line: games and their results, positions, the losses, the
    /// gating match, the champion (with its Elo where gating measures it), the solver's
    /// measure, and where the time went.
    pub fn summary(&self) -> String {
        let r = self;
        let (m, sp) = (&r.metrics, &r.selfplay);
        let gate_text = match &m.gating {
            Some(g) => format!(
                "gating +{}={}-{} {}",
                g.wins,
                g.draws,
                g.losses,
                if g.promoted {
                    "PROMOTED"
                } else {
                    "kept champion"
                }
            ),
            None if r.promoted_without_gating => "promoted (no gating)".into(),
            None => "no training yet".into(),
        };
        // The champion's Elo exists only where gating measures it.
        let champion_text = match r.gated {
            true => format!(
                "champion {} ({:+.0} Elo ±{:.0})",
                m.champion_id,
                m.elo,
                rating::Z95 * r.champion_elo_se
            ),
            false => format!("champion {}", m.champion_id),
        };
        let solver_text = m.solver.as_ref().map_or_else(String::new, |s| {
            format!(
                "; solver: policy best {:.0}%, keeps result {:.0}%, value sign {:.0}%",
                100.0 * s.policy_best,
                100.0 * s.policy_keeps,
                100.0 * s.value_sign
            )
        });
        // The auxiliary heads' losses only where they are trained.
        let aux_text: String = [
            ("reply", m.aux_policy_loss),
            ("ownership", m.aux_ownership_loss),
        ]
        .iter()
        .filter_map(|(name, loss)| loss.map(|l| format!(" {name} {l:.3}")))
        .collect();
        // Self-play that ran elsewhere (a learner's actors) has no times here: left out.
        let selfplay_text = match (m.selfplay_s, m.network_time_fraction) {
            (Some(s), Some(f)) => format!(
                "self-play {s:.0}s, {:.0}% in network, batch {:.1}; ",
                100.0 * f,
                sp.mean_batch()
            ),
            _ => String::new(),
        };
        // Restarted games (`[selfplay.restarts]`) are named only when there are some.
        let restarted_text = match m.restarted_games {
            0 => String::new(),
            n => format!(", {n} restarted"),
        };
        format!(
            "iter {}: {} games ({:.0}/h, W/D/L {}/{}/{}, {:.1} plies avg{restarted_text}), {} new positions, buffer {}; \
             {} steps: policy {:.3} value {:.3} entropy {:.3}{aux_text} KL {:.4}; {gate_text}; {champion_text}{solver_text}; \
             {:.0}s ({selfplay_text}train {:.0}s; gating {:.0}s)",
            m.iteration,
            sp.games,
            m.selfplay_games_per_hour,
            sp.first_wins,
            sp.draws,
            sp.second_wins,
            sp.plies as f64 / sp.games.max(1) as f64,
            m.positions,
            m.buffer_fill,
            m.train_steps,
            m.policy_loss,
            m.value_loss,
            m.policy_entropy,
            m.kl,
            r.seconds,
            m.train_s,
            m.gating_s
        )
    }
}

/// Receives the pipeline's progress. Every method has a default that does nothing, so an
/// observer implements only what it shows.
pub trait Observer {
    /// `stage` of iteration `iteration` (0-based) starts with `total` units to do.
    fn stage_started(&self, _stage: Stage, _iteration: u32, _total: u64) {}
    /// `n` more units of `stage` are done.
    fn advanced(&self, _stage: Stage, _n: u64) {}
    /// `stage` ended (completely or, for gating, early by SPRT).
    fn stage_finished(&self, _stage: Stage) {}
    /// A line of information (what is resumed, why the run stops).
    fn info(&self, _line: &str) {}
    /// Something was wrong and was dealt with (a file set aside, a figure not measured); the
    /// line does not start with `warning:`.
    fn warning(&self, _line: &str) {}
    /// An iteration was committed.
    fn iteration_done(&self, _report: &IterationReport) {}
    /// Asked between iterations: `true` stops the run after the committed iteration.
    fn stop_requested(&self) -> bool {
        false
    }
}

/// An observer that shows nothing and never asks to stop.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Observer for Silent {}
