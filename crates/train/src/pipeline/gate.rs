//! **Gate**: whether the trained candidate replaces the champion, by a match between them.

use std::sync::Arc;
use std::time::Instant;

use alphazero_arena::matches::Termination;
use alphazero_arena::rating::{self, SprtMatch};
use alphazero_arena::{run_match_sprt, Entrant, MatchConfig, MatchResult, Pairing};
use alphazero_game::mix_seed as mix;
use alphazero_mcts::CachedEvaluator;
use alphazero_nn::{Encode, NetworkEvaluator, PolicyValueNet};

use super::{Iteration, Learned, Pipeline};
use crate::error::PipelineError;
use crate::metrics::GatingMetrics;
use crate::observer::Stage;
use crate::settings::gating_search_config;

/// Openings per chunk of the gating match's SPRT (each played with both colours: 10 games).
const GATING_CHUNK_OPENINGS: usize = 5;

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

/// The candidate's (entrant 0's) result of the gating match `played`: W/D/L, the LLR, its
/// Elo, and whether it is promoted: by the SPRT's decision `tested` when it made one, else
/// by a score of at least `win_rate`.
fn verdict(played: &MatchResult, tested: Option<&SprtMatch>, win_rate: f64) -> GatingMetrics {
    let (w, d, l) = played.first_pair_wdl();
    let n = (w + d + l).max(1) as f64;
    let score = (w as f64 + 0.5 * d as f64) / n;
    let (decision, llr) = tested.map_or((rating::SprtDecision::Continue, 0.0), |m| {
        (m.decision, m.llr)
    });
    let promoted = match decision {
        rating::SprtDecision::AcceptH1 => true,
        rating::SprtDecision::AcceptH0 => false,
        rating::SprtDecision::Continue => score >= win_rate,
    };
    let e = rating::elo_from_wdl_bounded(w, d, l);
    GatingMetrics {
        wins: w as u32,
        draws: d as u32,
        losses: l as u32,
        llr,
        promoted,
        elo: Some(e.elo),
        elo_lo: Some(e.lo),
        elo_hi: Some(e.hi),
    }
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

impl<G: Encode> Pipeline<'_, G> {
    /// **Gate**: whether `learned`'s candidate replaces `it`'s champion. Without training steps
    /// nothing changes; with `gating.enabled = false` it is promoted; otherwise it plays the
    /// champion (colours swapped, random openings, no noise) in chunks so that the SPRT can
    /// stop the match early, and is promoted by the SPRT or at a score ≥ `gating.win_rate`.
    ///
    /// # Errors
    /// A network or match error.
    pub fn gate(&self, it: &Iteration<'_>, learned: &Learned) -> Result<Gated, PipelineError> {
        let start = Instant::now();
        let (metrics, promoted) = if learned.steps == 0 {
            (None, false)
        } else if self.cfg.gating.enabled {
            let m = self.gating_match(it, &learned.candidate)?;
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

    /// The gating match: `candidate` (entrant 0) against `it`'s champion (entrant 1), two batched
    /// search players through the arena's one SPRT match ([`run_match_sprt`]: chunks of
    /// [`GATING_CHUNK_OPENINGS`] openings, each played with both colours, so that the SPRT
    /// can stop it early). Returns the candidate's W/D/L, the LLR, its Elo and whether to
    /// promote it.
    fn gating_match(
        &self,
        it: &Iteration<'_>,
        candidate: &PolicyValueNet,
    ) -> Result<GatingMetrics, PipelineError> {
        let Iteration {
            number: iteration,
            seed,
            champion,
            observer,
        } = *it;
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
        Ok(verdict(&played, tested.as_ref(), g.win_rate))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alphazero_arena::matches::SideName;
    use alphazero_arena::GameRecord;

    /// A gating game, the candidate first, won by `winner` (0 the candidate), ended by
    /// `termination`.
    fn game(winner: usize, termination: Termination) -> GameRecord {
        GameRecord {
            index: 0,
            first: 0,
            second: 1,
            first_name: "candidate".into(),
            second_name: "champion".into(),
            opening: 0,
            opening_plies: 0,
            result: if winner == 0 { "1-0" } else { "0-1" }.into(),
            winner: Some(winner),
            termination,
            moves: Vec::new(),
            think: Default::default(),
        }
    }

    /// A gating match of `games`.
    fn played(games: Vec<GameRecord>) -> MatchResult {
        MatchResult {
            game: "connect4".into(),
            players: vec!["candidate".into(), "champion".into()],
            games,
        }
    }

    #[test]
    fn a_gating_game_lost_by_a_network_failure_is_an_error_not_a_loss() {
        let game = |termination: Termination| game(1, termination);
        let mut played = played(vec![game(Termination::Rules)]);
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

    #[test]
    fn the_sprt_decides_before_the_score() {
        let game = |winner: usize| game(winner, Termination::Rules);
        // The candidate wins 2 of 3: a score of 0.67.
        let played = played(vec![game(0), game(1), game(0)]);
        let by_score = verdict(&played, None, 0.55);
        assert_eq!((by_score.wins, by_score.draws, by_score.losses), (2, 0, 1));
        assert!(by_score.promoted);
        assert!(!verdict(&played, None, 0.7).promoted);
        let rejected = SprtMatch {
            wins: 2,
            draws: 0,
            losses: 1,
            decision: rating::SprtDecision::AcceptH0,
            llr: -3.0,
        };
        let m = verdict(&played, Some(&rejected), 0.55);
        assert!(!m.promoted);
        assert_eq!(m.llr, -3.0);
        let accepted = SprtMatch {
            decision: rating::SprtDecision::AcceptH1,
            llr: 3.0,
            ..rejected
        };
        assert!(verdict(&played, Some(&accepted), 0.7).promoted);
    }
}
