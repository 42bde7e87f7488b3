//! The search tree and the PUCT / Gumbel / solver search over it: [`Search`], its
//! constructors, settings and run state. The rest by role: the tree as data and its reuse
//! (`tree`), leaves and batched evaluation (`evaluate`), expansion and tactics (`expand`),
//! selection (`select`), backup and proofs (`backup`), results and PV (`results`).

mod backup;
mod evaluate;
mod expand;
mod results;
mod select;
mod tree;

use alphazero_game::{Game, History, HistoryEntry};
use rand::rngs::StdRng;
use rand::SeedableRng;

use crate::budget::SearchBudget;
use crate::config::{ConfigError, SearchConfig};
use select::GumbelRoot;
use tree::{Edge, Node, NodeState};

pub use results::{ChildStats, SearchResult};
pub use select::dirichlet_noise;

/// The search tree for one game: PUCT MCTS with batched leaf evaluation, tree reuse,
/// MCTS-solver and an optional Gumbel root.
///
/// Nodes live in an arena indexed by `u32`, edges `(move, action, prior, N, W)` in a second
/// arena (a node's edges are contiguous and allocated when it is expanded), and the position of
/// every node is kept so that no simulation replays moves. The root is node 0.
///
/// It is driven by the one [`Driver`](crate::Driver): [`Search::run`] /
/// [`Search::run_with`] (this tree alone, one evaluator call per batch of up to
/// `leaves_per_batch` leaves), [`crate::run_many`] and [`crate::Driver::run`] /
/// [`crate::Driver::round`] (many trees, one evaluator call per round). The step API the
/// driver uses ([`Search::begin_run`] / [`Search::collect_leaves`] /
/// [`Search::pending_requests`] / [`Search::apply_evaluations`] / [`Search::is_done`] /
/// [`Search::result`]) stays public for tests and tools that step a tree by hand.
pub struct Search<G: Game> {
    config: SearchConfig,
    budget: SearchBudget,
    rng: StdRng,
    /// Entries of the positions before the root, oldest first.
    history: Vec<HistoryEntry>,
    nodes: Vec<Node>,
    edges: Vec<Edge<G::Move>>,
    states: Vec<G>,
    pending: Vec<u32>,
    /// History buffer per pending slot (root history + path entries), reused.
    leaf_hist: Vec<Vec<HistoryEntry>>,
    moves: Vec<G::Move>,
    path: Vec<HistoryEntry>,
    sims_done: u32,
    /// The current run's simulation cap ([`SearchBudget::simulations`] at its start).
    sims_target: Option<u32>,
    root_prepared: bool,
    noise_applied: bool,
    gumbel: Option<GumbelRoot>,
    values_buf: Vec<f32>,
    /// The tactical proof line of the root, when the game's tactics decided it.
    root_line: Vec<G::Move>,
    /// Whether the root got its deeper tactical search ([`SearchConfig::root_tactical_budget`]).
    root_tactics_done: bool,
    /// Whether the root's children need the reply tactics
    /// ([`SearchConfig::reply_tactical_budget`]; [`Game::opponent_may_force_win`] at the
    /// root), once asked.
    reply_threat: Option<bool>,
}

impl<G: Game> Search<G> {
    /// A new tree rooted at `position`. `history` holds the entries of the earlier positions
    /// of the game, oldest first, not including `position` (what [`History::entries`] gives);
    /// repetition rules inside the tree read it. It searches as `config` says, for as long as
    /// `budget` says (each run; see [`Search::set_budget`]), its RNG seeded with `budget.seed`.
    ///
    /// # Errors
    /// [`ConfigError`] when `config` or `budget` does not validate.
    pub fn new(
        position: G,
        history: Vec<HistoryEntry>,
        config: SearchConfig,
        budget: SearchBudget,
    ) -> Result<Self, ConfigError> {
        config.validate()?;
        budget.validate(&config)?;
        let entry = HistoryEntry {
            hash: position.zobrist(),
            in_check: position.in_check(),
            // Unknown: not stopping the repetition scan here is always safe.
            irreversible: history.is_empty(),
        };
        Ok(Self::with_root(position, entry, history, config, budget))
    }

    /// A new tree rooted at the current position of a game record (history and the root's own
    /// irreversibility flag taken from it), with `config` and `budget` as in [`Search::new`].
    ///
    /// # Errors
    /// [`ConfigError`] when `config` or `budget` does not validate.
    pub fn from_history(
        game: &History<G>,
        config: SearchConfig,
        budget: SearchBudget,
    ) -> Result<Self, ConfigError> {
        config.validate()?;
        budget.validate(&config)?;
        Ok(Self::with_root(
            game.current().clone(),
            game.current_entry(),
            game.entries().to_vec(),
            config,
            budget,
        ))
    }

    fn with_root(
        position: G,
        entry: HistoryEntry,
        history: Vec<HistoryEntry>,
        config: SearchConfig,
        budget: SearchBudget,
    ) -> Self {
        let rng = StdRng::seed_from_u64(budget.seed);
        let mut s = Search {
            config,
            budget,
            rng,
            history,
            nodes: Vec::new(),
            edges: Vec::new(),
            states: Vec::new(),
            pending: Vec::new(),
            leaf_hist: Vec::new(),
            moves: Vec::new(),
            path: Vec::new(),
            sims_done: 0,
            sims_target: Some(0),
            root_prepared: false,
            noise_applied: false,
            gumbel: None,
            values_buf: Vec::new(),
            root_line: Vec::new(),
            root_tactics_done: false,
            reply_threat: None,
        };
        s.reset_root(position, entry);
        s
    }

    /// The configuration: how the tree is searched.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Replaces the configuration; the tree is kept.
    ///
    /// # Errors
    /// [`ConfigError`] when `config` does not validate, or does not go with the budget (a
    /// Gumbel root without a simulation cap); nothing changes then.
    pub fn set_config(&mut self, config: SearchConfig) -> Result<(), ConfigError> {
        config.validate()?;
        self.budget.validate(&config)?;
        self.config = config;
        Ok(())
    }

    /// The budget: how long each run searches, root noise, seed.
    pub fn budget(&self) -> &SearchBudget {
        &self.budget
    }

    /// Replaces the budget of the next runs (e.g. self-play switching between a full search
    /// with root noise and a fast one between moves); the tree is kept, and so is its RNG
    /// (`budget.seed` is read only when the tree is built). A run already begun keeps the
    /// simulation cap it began with.
    ///
    /// # Errors
    /// [`ConfigError`] when `budget` does not validate with the configuration; nothing changes
    /// then.
    pub fn set_budget(&mut self, budget: SearchBudget) -> Result<(), ConfigError> {
        budget.validate(&self.config)?;
        self.budget = budget;
        Ok(())
    }

    /// The root position.
    pub fn root_position(&self) -> &G {
        &self.states[0]
    }

    /// The history entries before the root, oldest first.
    pub fn history(&self) -> &[HistoryEntry] {
        &self.history
    }

    /// Number of nodes in the tree (positions reached, evaluated or not).
    pub fn tree_size(&self) -> usize {
        self.nodes.len()
    }

    /// Completed visits of the root node.
    pub fn root_visits(&self) -> u32 {
        self.nodes[0].n
    }

    /// Starts a new run of the step API: resets the simulation counter to 0 and the target to
    /// the budget's simulations, discards pending leaves, and re-samples the Gumbel root.
    pub fn begin_run(&mut self) {
        self.cancel_pending();
        self.sims_done = 0;
        self.sims_target = self.budget.simulations;
        if let Some(t) = self.sims_target {
            // Room for a node a simulation at once, instead of copying the arenas as they
            // double (up to a bound: a long search may end early, proven).
            let room = (t as usize).min(1 << 16);
            self.nodes.reserve(room);
            self.states.reserve(room);
        }
        self.root_prepared = false;
        self.gumbel = None;
    }

    /// Whether the current run is finished: no leaf pending and the simulation budget spent,
    /// or the root terminal or proven (solver).
    pub fn is_done(&self) -> bool {
        if !self.pending.is_empty() {
            return false;
        }
        let root = &self.nodes[0];
        root.state == NodeState::Terminal
            || (self.config.solver && root.proven.is_some())
            || (root.state == NodeState::Expanded
                && self.sims_target.is_some_and(|t| self.sims_done >= t))
    }

    /// Number of leaves waiting for [`Search::apply_evaluations`].
    pub fn num_pending(&self) -> usize {
        self.pending.len()
    }

    /// Simulations completed in the current run.
    pub fn simulations_done(&self) -> u32 {
        self.sims_done
    }
}
