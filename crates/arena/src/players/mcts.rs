//! The search as a player, with any evaluator (uniform, rollouts, a network).
//!
//! A player searches with the [`SearchConfig`] and [`SearchBudget`] it is given: the network
//! players of
//! `alphazero arena` get their game's play search from the registry, as every program that
//! plays a game does. The baselines here ([`MctsPlayer::rollout`], [`MctsPlayer::uniform`])
//! keep their own fixed search (the decisive-move check, no game tactics): they are yardsticks,
//! and results measured against them stay comparable only while they stay the same.

use std::sync::Arc;
use std::time::Instant;

use alphazero_game::{Game, History};
use alphazero_mcts::{
    Evaluator, RolloutEvaluator, RunLimits, Search, SearchBudget, SearchConfig, UniformEvaluator,
};

use crate::player::{Limits, MoveChoice, Player, PlayerError};

/// PUCT search behind [`Player`]: plays the search's best move (τ → 0, no root noise).
///
/// The tree is reused across the moves of one game: when the game handed to
/// [`Player::choose_move`] extends the one searched last time (same start position, the old
/// moves as a prefix), the tree is advanced through the new moves with [`Search::advance`];
/// otherwise it is rebuilt from the game's history. [`Player::new_game`] drops it.
///
/// Limits: [`Limits::simulations`] replaces the budget's simulation count for that move;
/// [`Limits::movetime`] is the search driver's deadline ([`RunLimits::deadline`]: no
/// evaluator batch is started that is expected to end after it, and at least one simulation
/// is done). With both, whichever comes first; with the time alone, the search has no
/// simulation cap. [`Limits::depth`] is ignored.
pub struct MctsPlayer<G: Game> {
    name: String,
    evaluator: Arc<dyn Evaluator<G>>,
    config: SearchConfig,
    budget: SearchBudget,
    search: Option<Search<G>>,
    /// Start position and moves of the game at the tree's root.
    searched: Option<(G, Vec<G::Move>)>,
    /// Playouts per leaf of a rollout player, whose evaluator is re-seeded by
    /// [`Player::set_seed`] (its playouts are a function of the position and its seed).
    rollout_playouts: Option<u32>,
}

impl<G: Game> MctsPlayer<G> {
    /// A search player named `name` with `evaluator`, searching as `config` says.
    /// `budget.simulations` is the default per move and `budget.seed` the seed until
    /// [`Player::set_seed`]; root noise is switched off.
    pub fn new(
        name: impl Into<String>,
        evaluator: Arc<dyn Evaluator<G>>,
        config: SearchConfig,
        budget: SearchBudget,
    ) -> Self {
        MctsPlayer {
            name: name.into(),
            evaluator,
            config,
            budget: SearchBudget {
                root_noise: false,
                ..budget
            },
            search: None,
            searched: None,
            rollout_playouts: None,
        }
    }

    /// The "pure MCTS" baseline `rollout-N`: `playouts` simulations per move, each leaf valued
    /// by one random playout ([`RolloutEvaluator`] with 1 playout, seeded with `seed`),
    /// uniform priors, paper defaults otherwise.
    ///
    /// [`Player::set_seed`] re-seeds the playouts too, so games of a match from the same
    /// opening differ (the evaluator's playouts depend only on the position and its seed).
    pub fn rollout(playouts: u32, seed: u64) -> Self {
        let mut player = Self::new(
            format!("rollout-{playouts}"),
            Arc::new(RolloutEvaluator::new(1, seed)),
            SearchConfig {
                // The strong form of the classic baseline: immediate wins and forced
                // replies are seen when a node is expanded (a naive rollout MCTS misses
                // them and fails to block a Gomoku four).
                terminal_check: true,
                ..SearchConfig::default()
            },
            SearchBudget {
                seed,
                ..SearchBudget::simulations(playouts.max(1))
            },
        );
        player.rollout_playouts = Some(1);
        player
    }

    /// `uniform-N`: search with the [`UniformEvaluator`] (uniform priors, value 0), `simulations`
    /// per move. With the solver on, it finds forced wins and avoids forced losses it can see.
    pub fn uniform(simulations: u32) -> Self {
        Self::new(
            format!("uniform-{simulations}"),
            Arc::new(UniformEvaluator),
            SearchConfig {
                terminal_check: true,
                ..SearchConfig::default()
            },
            SearchBudget::simulations(simulations.max(1)),
        )
    }

    /// The search configuration.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// The budget of a move without limits of its own (its `simulations` is the default per
    /// move).
    pub fn budget(&self) -> &SearchBudget {
        &self.budget
    }

    /// Nodes in the tree kept for the next move (0 when there is none).
    pub fn tree_size(&self) -> usize {
        self.search.as_ref().map_or(0, Search::tree_size)
    }

    fn failed(&self, message: impl std::fmt::Display) -> PlayerError {
        PlayerError::Failed {
            player: self.name.clone(),
            message: message.to_string(),
        }
    }

    /// Takes the kept tree if the game extends what it searched, advanced to the current
    /// position; `None` when it must be rebuilt.
    fn reuse(&mut self, game: &History<G>) -> Option<Search<G>> {
        let mut search = self.search.take()?;
        let (start, moves) = self.searched.take()?;
        if &start != game.start() || !game.moves().starts_with(&moves) {
            return None;
        }
        for &mv in &game.moves()[moves.len()..] {
            search.advance(mv).ok()?;
        }
        (search.root_position() == game.current()).then_some(search)
    }
}

impl<G: Game> Player<G> for MctsPlayer<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        self.search = None;
        self.searched = None;
        Ok(())
    }

    fn choose_move(
        &mut self,
        game: &History<G>,
        limits: &Limits,
    ) -> Result<MoveChoice<G>, PlayerError> {
        let simulations = match (limits.simulations, limits.movetime) {
            (Some(s), _) => Some(s.max(1)),
            (None, Some(_)) => None,
            (None, None) => self.budget.simulations,
        };
        let budget = SearchBudget {
            simulations,
            ..self.budget
        };
        let mut search = match self.reuse(game) {
            Some(mut s) => {
                s.set_budget(budget).map_err(|e| self.failed(e))?;
                s
            }
            None => Search::from_history(game, self.config.clone(), budget)
                .map_err(|e| self.failed(e))?,
        };
        let run_limits = RunLimits {
            deadline: limits.movetime.map(|t| Instant::now() + t),
            ..RunLimits::default()
        };
        let result = search
            .run_with(&*self.evaluator, run_limits)
            .map_err(|e| self.failed(e))?;
        let mv = result
            .best_move
            .ok_or_else(|| self.failed("the search found no move (position is over)"))?;
        let info = match result.proven {
            Some(o) => format!(
                "sims {} visits {} proven {o:?}",
                result.simulations, result.root_visits
            ),
            None => format!("sims {} visits {}", result.simulations, result.root_visits),
        };
        self.search = Some(search);
        self.searched = Some((game.start().clone(), game.moves().to_vec()));
        Ok(MoveChoice {
            mv,
            value: Some(result.root_value),
            pv: result.pv,
            info,
        })
    }

    fn game_over(&mut self, _game: &History<G>, _outcome: alphazero_game::Outcome) {
        self.search = None;
        self.searched = None;
    }

    fn set_seed(&mut self, seed: u64) {
        self.budget.seed = seed;
        if let Some(k) = self.rollout_playouts {
            self.evaluator = Arc::new(RolloutEvaluator::new(k, seed));
            self.search = None;
            self.searched = None;
        }
    }
}
