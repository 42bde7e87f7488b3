//! How long one tree searches: the caller's part of a search ([`SearchBudget`]), apart from
//! how it searches ([`crate::SearchConfig`]).

use crate::config::{check, ConfigError, SearchConfig};

/// How long one tree searches, whether its root gets noise, and its seed: the caller's part of
/// a search, apart from how it searches ([`crate::SearchConfig`]).
///
/// Each tree has its own ([`Search::new`](crate::Search::new),
/// [`Search::set_budget`](crate::Search::set_budget)); [`crate::RunLimits`] adds the
/// conditions of a whole [`crate::Driver::run`] (node cap, deadline, PV depth). `Default`: 800
/// simulations, no root noise, seed 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchBudget {
    /// Simulations (completed leaf back-ups, evaluated or terminal) per run of the tree (a
    /// [`Search::run`](crate::Search::run), a [`crate::Driver::run`], or
    /// [`Search::begin_run`](crate::Search::begin_run) and rounds); visits already in a
    /// reused subtree do not count against it. `Some(n)`: at most `n` (≥ 1), fewer when the
    /// root gets proven. `None`: no simulation cap, for a search limited by time or nodes: the
    /// run ends only by [`crate::RunLimits`], a [`crate::Driver::run`] callback or a proven
    /// root (a run without any of them would not end). A Gumbel root
    /// ([`crate::SearchConfig::gumbel`]) needs a cap: its sequential halving is planned over
    /// the run's simulations.
    pub simulations: Option<u32>,
    /// Whether to add Dirichlet noise to the root priors (self-play's full searches: on; play,
    /// analysis, the arena: off). Ignored with a Gumbel root (its sampling is the exploration
    /// there).
    pub root_noise: bool,
    /// Seed of the tree's RNG (Dirichlet noise, Gumbel samples). Read when the tree is built:
    /// the tree keeps its random stream across runs and
    /// [`Search::set_budget`](crate::Search::set_budget) does not re-seed it.
    pub seed: u64,
}

impl Default for SearchBudget {
    fn default() -> Self {
        SearchBudget::simulations(800)
    }
}

impl SearchBudget {
    /// `n` simulations per run, no root noise, seed 0.
    pub const fn simulations(n: u32) -> Self {
        SearchBudget {
            simulations: Some(n),
            root_noise: false,
            seed: 0,
        }
    }

    /// Checks the budget on its own and with `config`, the settings it is to search with.
    ///
    /// # Errors
    /// [`ConfigError`] on `simulations`: `Some(0)`, or `None` with a Gumbel root.
    pub fn validate(&self, config: &SearchConfig) -> Result<(), ConfigError> {
        match self.simulations {
            Some(n) => check(n >= 1, "simulations", n, "must be at least 1"),
            None => check(
                config.gumbel.is_none(),
                "simulations",
                "none",
                "a Gumbel root needs a simulation cap",
            ),
        }
    }
}
