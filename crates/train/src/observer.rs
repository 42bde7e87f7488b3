//! How the pipeline reports progress: an [`Observer`] that a front end implements (the
//! `alphazero` binary draws progress bars and prints summary lines; a test can count calls).

use alphazero_arena::rating;
use alphazero_selfplay::SelfPlayStats;

use crate::metrics::{IterationMetrics, SOLVER_CHANCE, SOLVER_SHIPPED};

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

/// What the fields of [`IterationReport::summary`] mean, printed once before a run's first
/// line (every figure is also in `metrics.jsonl`, with more): the fields of every run, with
/// the Connect Four solver agreement where it is measured (`solver`: what chance and the
/// shipped network score on it, [`SOLVER_CHANCE`], [`SOLVER_SHIPPED`]) and a learner's intake of its actors'
/// batches (`learner`).
pub fn summary_legend(learner: bool, solver: bool) -> String {
    let mut text = String::from(
        "each iteration prints: its self-play games (W/D/L: first player wins/draws/second \
         player wins; mean plies; games restarted or from random starts, if any), the new \
         positions and the replay buffer's; the training steps with the mean policy/value \
         loss (and auxiliary losses where trained) and the policy shift (the KL divergence of \
         the new policy from the champion's, in nats); the gating match (W-D-L of the new \
         network) or `promoted`; the champion (with its Elo when gating measures it)",
    );
    if solver {
        let pct = |x: f64| format!("{:.0}%", 100.0 * x);
        let (c, s) = (&SOLVER_CHANCE, &SOLVER_SHIPPED);
        text.push_str(&format!(
            "; solver: on {} fixed Connect Four positions, the network alone (no search): best = \
             its policy's move is a best move, keeps = it keeps the result (win/draw/loss), \
             sign = its value has the result's sign (a draw: |value| < 0.2); chance: best {}, \
             keeps {} (a random legal move), sign {} (a random sign; an untrained network's \
             value of about 0 scores the 10% of draws); the shipped connect4.azc: best {}, \
             keeps {}, sign {}",
            c.positions,
            pct(c.policy_best),
            pct(c.policy_keeps),
            pct(c.value_sign),
            pct(s.policy_best),
            pct(s.policy_keeps),
            pct(s.value_sign),
        ));
    }
    if learner {
        text.push_str(
            "; the actors' batches (taken, the most champions a taken batch's champion was \
             behind, games left waiting, games skipped as too old)",
        );
    }
    text.push_str(
        "; the seconds taken (self-play/training/gating). metrics.jsonl holds these and more",
    );
    text
}

impl IterationReport {
    /// The iteration's summary line (see [`summary_legend`]): games and their results,
    /// positions, the losses and the policy shift, the gating match, the champion (with its
    /// Elo where gating measures it), the solver's measure, and where the time went.
    pub fn summary(&self) -> String {
        let r = self;
        let (m, sp) = (&r.metrics, &r.selfplay);
        let gate_text = match &m.gating {
            Some(g) => format!(
                "gating {}-{}-{} {}",
                g.wins,
                g.draws,
                g.losses,
                if g.promoted { "promoted" } else { "kept" }
            ),
            None if r.promoted_without_gating => "promoted".into(),
            None => "no training yet".into(),
        };
        // The champion's Elo exists only where gating measures it.
        let champion_text = match r.gated {
            true => format!(
                "champion {} ({:+.0} ±{:.0} Elo)",
                m.champion_id,
                m.elo,
                rating::Z95 * r.champion_elo_se
            ),
            false => format!("champion {}", m.champion_id),
        };
        let solver_text = m.solver.as_ref().map_or_else(String::new, |s| {
            format!(
                "; solver: best {:.0}%, keeps {:.0}%, sign {:.0}%",
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
        .filter_map(|(name, loss)| loss.map(|l| format!(", {name} {l:.3}")))
        .collect();
        // Restarted games (`[selfplay.restarts]`) are named only when there are some.
        let restarted_text = match m.restarted_games {
            0 => String::new(),
            n => format!(", {n} restarted"),
        } + &match m.random_start_games {
            0 => String::new(),
            n => format!(", {n} from random starts"),
        };
        // A learner's intake of its actors' games.
        let intake_text = m.intake.as_ref().map_or_else(String::new, |i| {
            format!(
                "; actors: {} batches, lag {}, backlog {} games, {} stale",
                i.batches, i.champion_lag_max, i.backlog_games, i.stale_games
            )
        });
        // Self-play that ran elsewhere (a learner's actors) has no time here: `-`.
        let selfplay_s = m
            .selfplay_s
            .map_or_else(|| "-".into(), |s| format!("{s:.0}"));
        format!(
            "iter {}: {} games (W/D/L {}/{}/{}, {:.0} plies{restarted_text}), {} positions, buffer {}; \
             {} steps: loss {:.3}/{:.3}{aux_text}, shift {:.4}; {gate_text}; {champion_text}{solver_text}{intake_text}; \
             {:.0}s ({selfplay_s}/{:.0}/{:.0})",
            m.iteration,
            sp.games,
            sp.first_wins,
            sp.draws,
            sp.second_wins,
            sp.plies as f64 / sp.games.max(1) as f64,
            m.positions,
            m.buffer_fill,
            m.train_steps,
            m.policy_loss,
            m.value_loss,
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
