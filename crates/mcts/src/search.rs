//! The search tree and the PUCT / Gumbel / solver search over it.

use alphazero_game::{Game, History, HistoryEntry, IllegalMove, Outcome, Side};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Gamma, Gumbel};

use crate::config::{ConfigError, SearchConfig};
use crate::driver::{Control, Driver, RunLimits, SearchBudget};
use crate::evaluator::{EvalError, EvalRequest, Evaluator};
use crate::gumbel;

/// "No node" / "no parent".
const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NodeState {
    /// Created (position known) but never evaluated and not waiting for the evaluator.
    New,
    /// Waiting for the evaluator (one of the pending leaves).
    Pending,
    /// Evaluated; its edges exist.
    Expanded,
    /// The game is over here (by [`Game::adjudicate`] with the path's history).
    Terminal,
}

#[derive(Clone, Debug)]
struct Node {
    parent: u32,
    parent_edge: u32,
    first_edge: u32,
    num_edges: u32,
    /// Completed visits (own evaluation + back-ups through it).
    n: u32,
    /// Sum of backed-up values, from this node's side to move.
    w: f32,
    /// Simulations in flight below this node.
    in_flight: u32,
    /// The evaluator's value (side to move), or the exact terminal value.
    raw_value: f32,
    side: Side,
    state: NodeState,
    /// Proven result from this node's side to move (terminal, or by the solver).
    proven: Option<Outcome>,
    /// This position as a history entry (for repetition checks of its descendants).
    entry: HistoryEntry,
    /// Whether the node's edges provably contain every move that could change the result
    /// ([`Game::search_moves`]), so that a loss or draw may be proven from them.
    complete: bool,
    /// The edge that wins by the game's tactical proof ([`Game::tactical_proof`]), or `NONE`.
    win_edge: u32,
}

#[derive(Clone, Copy, Debug)]
struct Edge<M> {
    mv: M,
    action: u32,
    prior: f32,
    /// Completed visits through this edge.
    n: u32,
    /// Sum of backed-up values from the perspective of the side moving at the parent.
    w: f32,
    /// Virtual visits in flight.
    vl: u32,
    child: u32,
}

/// Statistics of one root child in a [`SearchResult`].
#[derive(Clone, Debug, PartialEq)]
pub struct ChildStats<M> {
    /// The move.
    pub mv: M,
    /// Its action index in `0..num_actions()`.
    pub action: usize,
    /// Completed visits N(a) (including visits kept from a reused subtree).
    pub visits: u32,
    /// Mean value Q(a) = W(a)/N(a) in [-1, 1] from the root's side to move; 0 if unvisited.
    pub q: f32,
    /// The prior P(a) used by the search (after root noise, if any); priors of all root
    /// children sum to 1.
    pub prior: f32,
    /// Proven result of playing this move, from the root's side to move (`Win`: this move
    /// wins), when the solver or a terminal position decided it.
    pub proven: Option<Outcome>,
}

/// What a search returns.
#[derive(Clone, Debug)]
pub struct SearchResult<G: Game> {
    /// The move to play at τ → 0: a proven win if there is one, else the most visited child
    /// (ties: higher prior, then candidate order) avoiding proven losses, or with Gumbel the
    /// sequential-halving winner. `None` only when the root position is terminal.
    pub best_move: Option<G::Move>,
    /// The action index of `best_move`.
    pub action: Option<usize>,
    /// π over the full action space (`[num_actions]`, sums to 1 unless the root is terminal,
    /// then all 0): the root visit distribution, or with Gumbel the completed-Q improved policy
    /// `softmax(logits + σ(completed Q))`. A proven-won root gives a one-hot on `best_move`.
    pub policy: Vec<f32>,
    /// The root value in [-1, 1] from the side to move: the mean of all backed-up values, or
    /// the exact value of a proven root.
    pub root_value: f32,
    /// Principal variation from the root (best child at each ply, first move = `best_move`
    /// except with Gumbel where it follows visits).
    pub pv: Vec<G::Move>,
    /// Every root child in candidate order.
    pub children: Vec<ChildStats<G::Move>>,
    /// The proven result of the root position from its side to move, if decided.
    pub proven: Option<Outcome>,
    /// Simulations done by this run (completed back-ups, root evaluation not counted).
    pub simulations: u32,
    /// Completed visits of the root node (including reused ones).
    pub root_visits: u32,
}

impl<G: Game> SearchResult<G> {
    /// The root children in display order: proven wins first, proven losses last, the rest by
    /// visits, then prior, then candidate order (what analysis tables show).
    pub fn ranked_children(&self) -> Vec<&ChildStats<G::Move>> {
        let class = |c: &ChildStats<G::Move>| match c.proven {
            Some(Outcome::Win) => 2u8,
            Some(Outcome::Loss) => 0,
            _ => 1,
        };
        let mut kids: Vec<(usize, &ChildStats<G::Move>)> =
            self.children.iter().enumerate().collect();
        kids.sort_by(|(i, a), (j, b)| {
            class(b)
                .cmp(&class(a))
                .then(b.visits.cmp(&a.visits))
                .then(b.prior.total_cmp(&a.prior))
                .then(i.cmp(j))
        });
        kids.into_iter().map(|(_, c)| c).collect()
    }
}

struct GumbelRoot {
    /// Gumbel(0, 1) sample per root edge.
    g: Vec<f32>,
    /// ln P(a) per root edge (normalised logits).
    logits: Vec<f32>,
    /// Root edge visits at the start of this run.
    base: Vec<u32>,
    /// Sequential-halving visit table indexed by simulation number.
    table: Vec<u32>,
}

/// The search tree for one game: PUCT MCTS with batched leaf evaluation, tree reuse,
/// MCTS-solver and an optional Gumbel root.
///
/// Nodes live in an arena indexed by `u32`, edges `(move, action, prior, N, W)` in a second
/// arena (a node's edges are contiguous and allocated when it is expanded), and the position of
/// every node is kept so that no simulation replays moves. The root is node 0.
///
/// It is driven by the one [`Driver`]: [`Search::run`] / [`Search::run_with`] (this tree
/// alone, one evaluator call per batch of up to `leaves_per_batch` leaves), [`crate::run_many`]
/// and [`Driver::run`] / [`Driver::round`] (many trees, one evaluator call per round). The
/// step API the driver uses ([`Search::begin_run`] / [`Search::collect_leaves`] /
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

#[inline]
fn from_view(o: Outcome, of: Side, to: Side) -> Outcome {
    if of == to {
        o
    } else {
        o.flip()
    }
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

    fn reset_root(&mut self, position: G, entry: HistoryEntry) {
        self.nodes.clear();
        self.edges.clear();
        self.states.clear();
        self.pending.clear();
        self.nodes.push(Node {
            parent: NONE,
            parent_edge: NONE,
            first_edge: 0,
            num_edges: 0,
            n: 0,
            w: 0.0,
            in_flight: 0,
            raw_value: 0.0,
            side: position.side_to_move(),
            state: NodeState::New,
            proven: None,
            entry,
            complete: false,
            win_edge: NONE,
        });
        self.states.push(position);
        self.noise_applied = false;
        self.root_prepared = false;
        self.gumbel = None;
        self.root_line.clear();
        self.root_tactics_done = false;
        self.reply_threat = None;
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

    /// Runs the budget's simulations (fewer if the root gets proven) and returns the result:
    /// [`Search::run_with`] without limits. The budget must have a simulation cap: without
    /// one only a proven root ends this run. Leaves are evaluated `leaves_per_batch` at
    /// a time, one evaluator call each.
    ///
    /// # Errors
    /// [`EvalError`] by the driver's [error rule](crate::Driver#error-rule): the tree is left
    /// without pending leaves (their virtual loss undone).
    pub fn run<E: Evaluator<G> + ?Sized>(
        &mut self,
        evaluator: &E,
    ) -> Result<SearchResult<G>, EvalError> {
        self.run_with(evaluator, RunLimits::default())
    }

    /// Runs this tree alone through the [`Driver`] under `limits` (node cap, deadline, PV
    /// depth; see [`RunLimits`]) besides the budget's simulations, and returns the result.
    ///
    /// # Errors
    /// As [`Search::run`].
    pub fn run_with<E: Evaluator<G> + ?Sized>(
        &mut self,
        evaluator: &E,
        mut limits: RunLimits,
    ) -> Result<SearchResult<G>, EvalError> {
        Driver::new().run(
            std::slice::from_mut(self),
            evaluator,
            &mut limits,
            |_, _| Control::Continue,
        )?;
        Ok(self.result())
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

    /// Selects up to `leaves_per_batch` new leaves with virtual loss and returns how many
    /// leaves are pending. Terminal and proven leaves met on the way are backed up at once
    /// (they count as simulations without an evaluation). Does nothing and returns the pending
    /// count if leaves are already pending. May return 0 while not done (every leaf selected
    /// was terminal); call again.
    pub fn collect_leaves(&mut self) -> usize {
        if !self.pending.is_empty() || self.is_done() {
            return self.pending.len();
        }
        match self.nodes[0].state {
            NodeState::New => {
                self.ensure_slot(0);
                let mut h = std::mem::take(&mut self.leaf_hist[0]);
                h.clear();
                h.extend_from_slice(&self.history);
                if let Some(o) = self.states[0].adjudicate(&h) {
                    let value = self.outcome_value(o, self.nodes[0].side);
                    let root = &mut self.nodes[0];
                    root.state = NodeState::Terminal;
                    root.proven = Some(o);
                    root.raw_value = value;
                } else {
                    self.nodes[0].state = NodeState::Pending;
                    self.pending.push(0);
                }
                self.leaf_hist[0] = h;
                return self.pending.len();
            }
            NodeState::Terminal | NodeState::Pending => return self.pending.len(),
            NodeState::Expanded => {}
        }
        if !self.root_prepared {
            self.prepare_root();
        }
        let k = self.config.leaves_per_batch;
        for _ in 0..k {
            if self
                .sims_target
                .is_some_and(|t| self.sims_done + self.pending.len() as u32 >= t)
                || (self.config.solver && self.nodes[0].proven.is_some())
            {
                break;
            }
            self.select_leaf();
        }
        self.pending.len()
    }

    /// The pending leaves as evaluator requests, in the order [`Search::apply_evaluations`]
    /// expects their outputs.
    pub fn pending_requests(&self) -> impl Iterator<Item = EvalRequest<'_, G>> + '_ {
        self.pending
            .iter()
            .enumerate()
            .map(move |(i, &id)| EvalRequest {
                position: &self.states[id as usize],
                history: &self.leaf_hist[i],
            })
    }

    /// Expands the pending leaves with the evaluator's outputs and backs their values up.
    ///
    /// * `policy_logits`: `[P, A]` row-major, `P = num_pending()`, `A = num_actions()`.
    /// * `values`: `[P]`, from each leaf's side to move (clamped to [-1, 1]).
    ///
    /// # Errors
    /// [`EvalError`] when the buffer lengths do not match or a value is not finite; nothing
    /// is applied then (the leaves stay pending).
    pub fn apply_evaluations(
        &mut self,
        policy_logits: &[f32],
        values: &[f32],
    ) -> Result<(), EvalError> {
        let p = self.pending.len();
        let a = self.states[0].num_actions();
        if values.len() != p || policy_logits.len() != p * a {
            return Err(EvalError(format!(
                "expected {p} values and {p}x{a} logits, got {} values and {} logits",
                values.len(),
                policy_logits.len()
            )));
        }
        if let Some(v) = values.iter().find(|v| !v.is_finite()) {
            return Err(EvalError(format!(
                "evaluator returned a non-finite value {v}"
            )));
        }
        for i in 0..p {
            let id = self.pending[i];
            let v = values[i].clamp(-1.0, 1.0);
            let terminal = self.expand(id, &policy_logits[i * a..(i + 1) * a], v);
            if self.config.terminal_check && !terminal {
                self.check_terminal_children(id, i);
            }
            let node = &self.nodes[id as usize];
            let val = match node.proven {
                Some(o) if self.config.solver || terminal => self.outcome_value(o, node.side),
                _ => node.raw_value,
            };
            if id == 0 {
                // The root's own evaluation is not a simulation.
                self.nodes[0].n += 1;
                self.nodes[0].w += val;
            } else {
                self.backup(id, val);
                if self.config.solver && self.nodes[id as usize].proven.is_some() {
                    self.propagate_proof(id);
                }
                self.sims_done += 1;
            }
        }
        self.pending.clear();
        Ok(())
    }

    fn ensure_slot(&mut self, slot: usize) {
        while self.leaf_hist.len() <= slot {
            self.leaf_hist.push(Vec::new());
        }
    }

    /// Discards pending leaves, undoing their virtual loss.
    pub(crate) fn cancel_pending(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        for &id in &pending {
            self.undo_virtual(id);
            self.nodes[id as usize].state = NodeState::New;
        }
        self.pending = pending;
        self.pending.clear();
    }

    fn undo_virtual(&mut self, leaf: u32) {
        let mut id = leaf;
        loop {
            let node = &self.nodes[id as usize];
            let (p, pe) = (node.parent, node.parent_edge);
            if p == NONE {
                break;
            }
            self.edges[pe as usize].vl -= 1;
            self.nodes[p as usize].in_flight -= 1;
            id = p;
        }
    }

    /// Backs `value` (from the leaf's side to move) up from `leaf` to the root, removing the
    /// virtual loss on the way.
    fn backup(&mut self, leaf: u32, value: f32) {
        let leaf_side = self.nodes[leaf as usize].side;
        let mut id = leaf;
        loop {
            let node = &mut self.nodes[id as usize];
            let v = if node.side == leaf_side {
                value
            } else {
                -value
            };
            node.n += 1;
            node.w += v;
            if id != leaf {
                node.in_flight -= 1;
            }
            let (p, pe) = (node.parent, node.parent_edge);
            if p == NONE {
                break;
            }
            let ps = self.nodes[p as usize].side;
            let e = &mut self.edges[pe as usize];
            e.n += 1;
            e.w += if ps == leaf_side { value } else { -value };
            e.vl -= 1;
            id = p;
        }
    }

    /// Proven result of the node reached by edge `e` from the parent's view, if any.
    #[inline]
    fn edge_proven(&self, e: &Edge<G::Move>, parent_side: Side) -> Option<Outcome> {
        if e.child == NONE {
            return None;
        }
        let c = &self.nodes[e.child as usize];
        c.proven.map(|o| from_view(o, c.side, parent_side))
    }

    /// Re-derives proofs from `from`'s parent upwards.
    fn propagate_proof(&mut self, from: u32) {
        let mut id = self.nodes[from as usize].parent;
        while id != NONE {
            let node = &self.nodes[id as usize];
            if node.proven.is_some() || node.state != NodeState::Expanded {
                break;
            }
            let side = node.side;
            let (f, n) = (node.first_edge as usize, node.num_edges as usize);
            let mut all = true;
            let mut best = Outcome::Loss;
            let mut won = false;
            for e in &self.edges[f..f + n] {
                match self.edge_proven(e, side) {
                    Some(Outcome::Win) => {
                        won = true;
                        break;
                    }
                    Some(Outcome::Draw) => best = Outcome::Draw,
                    Some(Outcome::Loss) => {}
                    None => all = false,
                }
            }
            let proof = if won {
                Some(Outcome::Win)
            } else if all && self.nodes[id as usize].complete {
                Some(best)
            } else {
                None
            };
            match proof {
                Some(o) => self.nodes[id as usize].proven = Some(o),
                None => break,
            }
            id = self.nodes[id as usize].parent;
        }
    }

    /// Expands node `id` with the evaluator's logits row and value. Returns whether the node
    /// turned out terminal (no candidate move).
    fn expand(&mut self, id: u32, logits: &[f32], value: f32) -> bool {
        let pos = &self.states[id as usize];
        let narrowed = self.config.use_candidate_moves
            && self
                .config
                .threat_replies_budget
                .is_some_and(|b| pos.threat_replies(b, &mut self.moves));
        let complete = if narrowed {
            true
        } else if self.config.use_candidate_moves {
            pos.search_moves(&mut self.moves)
        } else {
            pos.legal_moves(&mut self.moves);
            true
        };
        let node = &mut self.nodes[id as usize];
        node.complete = complete;
        if self.moves.is_empty() {
            // The game should have reported an outcome; treat as a draw rather than panic.
            node.state = NodeState::Terminal;
            node.proven = Some(Outcome::Draw);
            node.raw_value = 0.0;
            return true;
        }
        node.state = NodeState::Expanded;
        node.raw_value = value;
        node.first_edge = self.edges.len() as u32;
        node.num_edges = self.moves.len() as u32;
        let first = self.edges.len();
        let mut max = f32::NEG_INFINITY;
        for &mv in &self.moves {
            let a = pos.move_to_action(mv);
            let l = logits
                .get(a)
                .copied()
                .filter(|l| l.is_finite())
                .unwrap_or(f32::NEG_INFINITY);
            max = max.max(l);
            self.edges.push(Edge {
                mv,
                action: a as u32,
                prior: l,
                n: 0,
                w: 0.0,
                vl: 0,
                child: NONE,
            });
        }
        let edges = &mut self.edges[first..];
        if max == f32::NEG_INFINITY {
            let u = 1.0 / edges.len() as f32;
            edges.iter_mut().for_each(|e| e.prior = u);
        } else {
            let inv_t = 1.0 / self.config.policy_temperature;
            let mut sum = 0.0;
            for e in edges.iter_mut() {
                e.prior = ((e.prior - max) * inv_t).exp();
                sum += e.prior;
            }
            edges.iter_mut().for_each(|e| e.prior /= sum);
        }
        let reply_budget = self.config.reply_tactical_budget;
        let reply = match reply_budget {
            Some(b) if id != 0 && self.nodes[id as usize].parent == 0 && self.reply_threat(b) => {
                Some(b)
            }
            _ => None,
        };
        match (
            id,
            self.config.root_tactical_budget,
            reply,
            self.config.tactical_budget,
        ) {
            (0, Some(budget), _, _) => {
                self.root_tactics_done = true;
                self.apply_tactics(id, budget, true);
            }
            (_, _, Some(budget), _) => self.apply_tactics(id, budget, true),
            (_, _, _, Some(budget)) => self.apply_tactics(id, budget, false),
            _ => {}
        }
        false
    }

    /// Runs the game's tactical search (`deep`: the root's deeper one,
    /// [`Game::root_tactical_proof`]) on the freshly expanded node `id` and records a proven
    /// result: a win through its winning edge, a loss as it is. The node's value becomes the
    /// exact one.
    fn apply_tactics(&mut self, id: u32, budget: u32, deep: bool) {
        let pos = &self.states[id as usize];
        let proof = if deep {
            pos.root_tactical_proof(budget)
        } else {
            pos.tactical_proof(budget)
        };
        let Some(proof) = proof else {
            return;
        };
        let node = &self.nodes[id as usize];
        let (f, n) = (node.first_edge as usize, node.num_edges as usize);
        match proof.outcome {
            Outcome::Win => {
                let Some(mv) = proof.best else { return };
                let Some(i) = self.edges[f..f + n].iter().position(|e| e.mv == mv) else {
                    // The game broke its promise (the move is not a search move): no proof.
                    return;
                };
                let node = &mut self.nodes[id as usize];
                node.win_edge = (f + i) as u32;
                node.proven = Some(Outcome::Win);
                node.raw_value = 1.0;
            }
            o => {
                let value = self.outcome_value(o, self.nodes[id as usize].side);
                let node = &mut self.nodes[id as usize];
                node.proven = Some(o);
                node.raw_value = value;
            }
        }
        if id == 0 {
            self.root_line = proof.line;
        }
    }

    /// The value of a decided result `o` for `side` (the side to move where it is decided):
    /// ±1 for a win / loss; a draw is worth [`SearchConfig::draw_score`] to the root's side to
    /// move and its negation to the other side (0 by default: a draw is a draw).
    fn outcome_value(&self, o: Outcome, side: Side) -> f32 {
        match o {
            Outcome::Draw if self.config.draw_score != 0.0 => {
                if side == self.nodes[0].side {
                    self.config.draw_score
                } else {
                    -self.config.draw_score
                }
            }
            o => o.value(),
        }
    }

    /// Appends the child reached from node `id` by edge `e` (position `pos`, `irreversible`
    /// move) and links it: a terminal node with the exact value of `outcome` when the game is
    /// over there, else a new node awaiting evaluation. Returns the child's id.
    fn push_child(
        &mut self,
        id: u32,
        e: usize,
        pos: G,
        irreversible: bool,
        outcome: Option<Outcome>,
    ) -> u32 {
        let cid = self.nodes.len() as u32;
        let raw_value = outcome.map_or(0.0, |o| self.outcome_value(o, pos.side_to_move()));
        self.nodes.push(Node {
            parent: id,
            parent_edge: e as u32,
            first_edge: 0,
            num_edges: 0,
            n: 0,
            w: 0.0,
            in_flight: 0,
            raw_value,
            side: pos.side_to_move(),
            state: if outcome.is_some() {
                NodeState::Terminal
            } else {
                NodeState::New
            },
            proven: outcome,
            entry: HistoryEntry {
                hash: pos.zobrist(),
                in_check: pos.in_check(),
                irreversible,
            },
            complete: false,
            win_edge: NONE,
        });
        self.states.push(pos);
        self.edges[e].child = cid;
        cid
    }

    /// Plays every edge of the freshly expanded node `id` once and creates a terminal child
    /// for each move that ends the game ("decisive move" check); with the solver the node's
    /// proof is then derived at once. `slot` holds the node's history.
    fn check_terminal_children(&mut self, id: u32, slot: usize) {
        if !self.states[id as usize].may_end_in_one() {
            // The game promises that none of its moves ends it: nothing to play out.
            return;
        }
        let node = &self.nodes[id as usize];
        let (f, n) = (node.first_edge as usize, node.num_edges as usize);
        let entry = node.entry;
        let mut hist = std::mem::take(&mut self.leaf_hist[slot]);
        hist.push(entry);
        let mut last_terminal = NONE;
        for e in f..f + n {
            let mv = self.edges[e].mv;
            let parent = &self.states[id as usize];
            let irreversible = parent.is_irreversible(mv);
            let mut pos = parent.clone();
            pos.play_unchecked(mv);
            let Some(o) = pos.adjudicate(&hist) else {
                continue;
            };
            let cid = self.push_child(id, e, pos, irreversible, Some(o));
            last_terminal = cid;
        }
        hist.pop();
        self.leaf_hist[slot] = hist;
        if last_terminal != NONE && self.config.solver {
            self.propagate_proof(last_terminal);
        }
    }

    /// Whether the root's children need the reply tactics: the game's null-move threat
    /// check at the root, asked once per root.
    fn reply_threat(&mut self, budget: u32) -> bool {
        *self
            .reply_threat
            .get_or_insert_with(|| self.states[0].opponent_may_force_win(budget))
    }

    /// A reused root's children were expanded as deeper nodes, with the per-node tactics
    /// only: gives each expanded, unproven one the reply tactics now
    /// ([`SearchConfig::reply_tactical_budget`]) and propagates what they prove.
    fn reply_tactics_for_reused_children(&mut self, budget: u32) {
        let root = &self.nodes[0];
        if root.state != NodeState::Expanded || root.proven.is_some() {
            return;
        }
        let (f, n) = (root.first_edge as usize, root.num_edges as usize);
        if !self.reply_threat(budget) {
            return;
        }
        for e in f..f + n {
            let c = self.edges[e].child;
            if c == NONE {
                continue;
            }
            let child = &self.nodes[c as usize];
            if child.state != NodeState::Expanded || child.proven.is_some() {
                continue;
            }
            self.apply_tactics(c, budget, true);
            if self.config.solver && self.nodes[c as usize].proven.is_some() {
                self.propagate_proof(c);
            }
        }
    }

    fn prepare_root(&mut self) {
        self.root_prepared = true;
        if let (Some(budget), false) = (self.config.root_tactical_budget, self.root_tactics_done) {
            // A reused root was expanded as an inner node: give it the root's tactics now.
            self.root_tactics_done = true;
            if self.nodes[0].proven.is_none() {
                self.apply_tactics(0, budget, true);
                if self.config.solver && self.nodes[0].proven.is_some() {
                    return;
                }
            }
        }
        if let Some(budget) = self.config.reply_tactical_budget {
            self.reply_tactics_for_reused_children(budget);
            if self.config.solver && self.nodes[0].proven.is_some() {
                return;
            }
        }
        let root = &self.nodes[0];
        let (f, n) = (root.first_edge as usize, root.num_edges as usize);
        if let Some(gc) = self.config.gumbel {
            let dist = Gumbel::new(0.0f32, 1.0).expect("Gumbel(0, 1) is valid");
            let edges = &self.edges[f..f + n];
            let g: Vec<f32> = edges.iter().map(|_| dist.sample(&mut self.rng)).collect();
            // The edges hold softmax(logits / T) (`policy_temperature`); T · ln P gives back
            // the network's logits up to a constant, which neither the sampling nor the
            // improved policy sees.
            let t = self.config.policy_temperature;
            let logits = edges
                .iter()
                .map(|e| t * e.prior.max(f32::MIN_POSITIVE).ln())
                .collect();
            let base = edges.iter().map(|e| e.n).collect();
            let m = (gc.num_sampled_actions as usize).min(n);
            // A Gumbel root's budget always has a cap (`SearchBudget::validate`).
            let budget = self
                .sims_target
                .map_or(0, |t| t.saturating_sub(self.sims_done)) as usize;
            let table = gumbel::considered_visit_sequence(m, budget);
            self.gumbel = Some(GumbelRoot {
                g,
                logits,
                base,
                table,
            });
        } else if self.budget.root_noise && !self.noise_applied {
            self.noise_applied = true;
            let mut priors: Vec<f32> = self.edges[f..f + n].iter().map(|e| e.prior).collect();
            let alpha = match self.config.dirichlet_alpha_total {
                Some(total) => total / priors.len().max(1) as f32,
                None => self.config.dirichlet_alpha,
            };
            crate::dirichlet_noise(
                &mut priors,
                alpha,
                self.config.dirichlet_epsilon,
                &mut self.rng,
            );
            for (e, p) in self.edges[f..f + n].iter_mut().zip(priors) {
                e.prior = p;
            }
        }
    }

    /// Descends from the root to one leaf and either queues it, backs up an exact value, or
    /// (on a collision with a pending leaf) undoes its virtual loss.
    fn select_leaf(&mut self) {
        let mut id = 0u32;
        loop {
            let node = &self.nodes[id as usize];
            if node.state == NodeState::Terminal || (self.config.solver && node.proven.is_some()) {
                let v = node
                    .proven
                    .map_or(node.raw_value, |o| self.outcome_value(o, node.side));
                self.backup(id, v);
                self.sims_done += 1;
                return;
            }
            match node.state {
                NodeState::Pending => {
                    self.undo_virtual(id);
                    return;
                }
                NodeState::New => {
                    let slot = self.pending.len();
                    self.fill_leaf_history(id, slot);
                    self.nodes[id as usize].state = NodeState::Pending;
                    self.pending.push(id);
                    return;
                }
                NodeState::Terminal => unreachable!("handled above"),
                NodeState::Expanded => {}
            }
            let e = if id == 0 && self.gumbel.is_some() {
                self.select_root_gumbel()
            } else if id == 0 {
                self.select_forced().unwrap_or_else(|| self.select_puct(0))
            } else {
                self.select_puct(id)
            };
            self.nodes[id as usize].in_flight += 1;
            self.edges[e].vl += 1;
            let child = self.edges[e].child;
            if child != NONE {
                id = child;
                continue;
            }
            // Create the child.
            let mv = self.edges[e].mv;
            let parent = &self.states[id as usize];
            let irreversible = parent.is_irreversible(mv);
            let mut pos = parent.clone();
            pos.play_unchecked(mv);
            let cid = self.push_child(id, e, pos, irreversible, None);
            let slot = self.pending.len();
            self.fill_leaf_history(cid, slot);
            if let Some(o) = self.states[cid as usize].adjudicate(&self.leaf_hist[slot]) {
                let value = self.outcome_value(o, self.nodes[cid as usize].side);
                let c = &mut self.nodes[cid as usize];
                c.state = NodeState::Terminal;
                c.proven = Some(o);
                c.raw_value = value;
                self.backup(cid, value);
                self.sims_done += 1;
                if self.config.solver {
                    self.propagate_proof(cid);
                }
            } else {
                self.nodes[cid as usize].state = NodeState::Pending;
                self.pending.push(cid);
            }
            return;
        }
    }

    /// Writes root history + the entries of `leaf`'s ancestors (root first) into slot `slot`.
    fn fill_leaf_history(&mut self, leaf: u32, slot: usize) {
        self.ensure_slot(slot);
        self.path.clear();
        let mut id = self.nodes[leaf as usize].parent;
        while id != NONE {
            let n = &self.nodes[id as usize];
            self.path.push(n.entry);
            id = n.parent;
        }
        let h = &mut self.leaf_hist[slot];
        h.clear();
        h.extend_from_slice(&self.history);
        h.extend(self.path.iter().rev());
    }

    /// PUCT with FPU reduction and virtual loss; skips proven-losing children (solver).
    fn select_puct(&self, id: u32) -> usize {
        let node = &self.nodes[id as usize];
        let (f, n) = (node.first_edge as usize, node.num_edges as usize);
        let edges = &self.edges[f..f + n];
        let parent_n = (node.n + node.in_flight) as f32;
        let c = self.config.c_puct.value(parent_n) * parent_n.max(1.0).sqrt();
        let parent_q = if node.n > 0 {
            node.w / node.n as f32
        } else {
            0.0
        };
        let visited: f32 = edges
            .iter()
            .filter(|e| e.n + e.vl > 0)
            .map(|e| e.prior)
            .sum();
        let fpu = parent_q - self.config.fpu_reduction * visited.sqrt();
        let vl = self.config.virtual_loss;
        let solver = self.config.solver;
        let mut best = usize::MAX;
        let mut best_score = f32::NEG_INFINITY;
        let mut fallback = f;
        let mut fallback_score = f32::NEG_INFINITY;
        for (i, e) in edges.iter().enumerate() {
            let ne = e.n + e.vl;
            if e.child == NONE {
                // No child yet, so nothing proven: FPU or the visits in flight.
                let score = if ne == 0 {
                    fpu + c * e.prior
                } else {
                    (e.w - vl * e.vl as f32) / ne as f32 + c * e.prior / (1 + ne) as f32
                };
                if score > best_score || best == usize::MAX {
                    best_score = score;
                    best = f + i;
                }
                continue;
            }
            let proven = self.edge_proven(e, node.side);
            let score = if ne == 0 {
                // A child already known to end the game has an exact value, not FPU.
                let q = match proven {
                    Some(o) => self.outcome_value(o, node.side),
                    None => fpu,
                };
                // Divided by 1 + 0: exactly c · P.
                q + c * e.prior
            } else {
                let q = (e.w - vl * e.vl as f32) / ne as f32;
                q + c * e.prior / (1 + ne) as f32
            };
            if solver && proven == Some(Outcome::Loss) {
                if score > fallback_score {
                    fallback_score = score;
                    fallback = f + i;
                }
                continue;
            }
            if score > best_score || best == usize::MAX {
                best_score = score;
                best = f + i;
            }
        }
        if best == usize::MAX {
            fallback
        } else {
            best
        }
    }

    /// The forced-playout bound `k` when forced playouts are active in this search: at the
    /// root of a PUCT search with root noise ([`SearchConfig::forced_playouts`]).
    fn forced_k(&self) -> Option<f32> {
        match self.config.forced_playouts {
            Some(k) if self.budget.root_noise && self.config.gumbel.is_none() => Some(k),
            _ => None,
        }
    }

    /// Forced playouts at the root: the visited root child (counting in-flight visits) that is
    /// furthest below `sqrt(k · P · N)`, `N` the root children's visits; `None` when none is
    /// below or forced playouts are off. Proven children are never forced (their value is
    /// exact).
    fn select_forced(&self) -> Option<usize> {
        let k = self.forced_k()?;
        let root = &self.nodes[0];
        let (f, n) = (root.first_edge as usize, root.num_edges as usize);
        let edges = &self.edges[f..f + n];
        let total: u32 = edges.iter().map(|e| e.n + e.vl).sum();
        let mut best = None;
        let mut best_deficit = 0.0f32;
        for (i, e) in edges.iter().enumerate() {
            let ne = e.n + e.vl;
            if ne == 0 || self.edge_proven(e, root.side).is_some() {
                continue;
            }
            let deficit = (k * e.prior * total as f32).sqrt() - ne as f32;
            if deficit > best_deficit {
                best_deficit = deficit;
                best = Some(f + i);
            }
        }
        best
    }

    /// The root's visit counts for the policy target under policy target pruning (KataGo):
    /// each child but the most visited loses up to `sqrt(k · P · N)` visits as long as its
    /// PUCT score (with those visits removed) stays below the most visited child's; a child
    /// left with one visit or fewer gets none. Proven children keep their visits. `None` when
    /// forced playouts are off for this search.
    fn pruned_root_visits(&self) -> Option<Vec<u32>> {
        let k = self.forced_k()?;
        let root = &self.nodes[0];
        let (f, n) = (root.first_edge as usize, root.num_edges as usize);
        let edges = &self.edges[f..f + n];
        let total: u32 = edges.iter().map(|e| e.n).sum();
        let best = (0..n).max_by_key(|&i| edges[i].n)?;
        if edges[best].n == 0 {
            return None;
        }
        let parent_n = root.n as f32;
        let c = self.config.c_puct.value(parent_n) * parent_n.max(1.0).sqrt();
        let q = |e: &Edge<G::Move>| e.w / e.n.max(1) as f32;
        let best_score = q(&edges[best]) + c * edges[best].prior / (1 + edges[best].n) as f32;
        let visits = edges
            .iter()
            .enumerate()
            .map(|(i, e)| {
                if i == best || e.n == 0 || self.edge_proven(e, root.side).is_some() {
                    return e.n;
                }
                let forced = (k * e.prior * total as f32).sqrt().floor() as u32;
                // PUCT(c, m) < best_score  ⇔  m > c · P / (best_score − Q) − 1.
                let gap = best_score - q(e);
                let keep = if gap <= 0.0 {
                    e.n
                } else {
                    let bound = c * e.prior / gap - 1.0;
                    let m = if bound < 0.0 {
                        0
                    } else {
                        bound.floor() as u32 + 1
                    };
                    m.min(e.n)
                };
                let m = keep.max(e.n.saturating_sub(forced));
                if m <= 1 {
                    0
                } else {
                    m
                }
            })
            .collect();
        Some(visits)
    }

    /// Completed Q of the root edges (root's view), mapped through σ, written into `out`.
    fn root_sigma_q(&self, out: &mut [f32]) {
        let Some(gc) = self.config.gumbel else { return };
        let root = &self.nodes[0];
        let (f, n) = (root.first_edge as usize, root.num_edges as usize);
        let edges = &self.edges[f..f + n];
        let mut sum_n = 0.0;
        let mut sum_p = 0.0;
        let mut sum_pq = 0.0;
        let mut max_n = 0;
        // The network's own policy weighs v_mix: P^T is proportional to it (see prepare_root).
        let t = self.config.policy_temperature;
        for e in edges {
            if e.n > 0 {
                let q = e.w / e.n as f32;
                let p = if t == 1.0 { e.prior } else { e.prior.powf(t) };
                sum_n += e.n as f32;
                sum_p += p;
                sum_pq += p * q;
            }
            max_n = max_n.max(e.n);
        }
        let weighted = if sum_p > 0.0 { sum_pq / sum_p } else { 0.0 };
        let v_mix = (root.raw_value + sum_n * weighted) / (sum_n + 1.0);
        let scale = (gc.c_visit + max_n as f32) * gc.c_scale;
        for (o, e) in out.iter_mut().zip(edges) {
            let q = if e.n > 0 { e.w / e.n as f32 } else { v_mix };
            *o = scale * (q + 1.0) * 0.5;
        }
    }

    /// Sequential-halving root selection (mctx `gumbel_muzero_root_action_selection`).
    fn select_root_gumbel(&mut self) -> usize {
        let root = &self.nodes[0];
        let (f, n) = (root.first_edge as usize, root.num_edges as usize);
        let mut sigma = std::mem::take(&mut self.values_buf);
        sigma.clear();
        sigma.resize(n, 0.0);
        self.root_sigma_q(&mut sigma);
        let gr = self.gumbel.as_ref().expect("gumbel root prepared");
        let edges = &self.edges[f..f + n];
        let rel = |i: usize| edges[i].n + edges[i].vl - gr.base[i];
        let sim: u32 = (0..n).map(rel).sum();
        let considered = gr
            .table
            .get(sim as usize)
            .or(gr.table.last())
            .copied()
            .unwrap_or(0);
        let score = |i: usize| gr.g[i] + gr.logits[i] + sigma[i];
        let mut best = usize::MAX;
        let mut best_score = f32::NEG_INFINITY;
        for i in 0..n {
            if rel(i) != considered {
                continue;
            }
            let s = score(i);
            if best == usize::MAX || s > best_score {
                best = i;
                best_score = s;
            }
        }
        if best == usize::MAX {
            // Fall back to the least visited of the highest-scoring actions.
            let mut key = (u32::MAX, f32::NEG_INFINITY);
            for i in 0..n {
                let s = score(i);
                let r = rel(i);
                if r < key.0 || (r == key.0 && s > key.1) {
                    key = (r, s);
                    best = i;
                }
            }
        }
        self.values_buf = sigma;
        f + best
    }

    /// Ranking of a child for move choice: proven wins first, proven losses last, then
    /// visits, then prior (earlier candidate wins ties).
    fn child_rank(&self, e: &Edge<G::Move>, side: Side) -> (u8, u32, f32) {
        let class = if self.config.solver || e.child != NONE {
            match self.edge_proven(e, side) {
                Some(Outcome::Win) => 2,
                Some(Outcome::Loss) => 0,
                _ => 1,
            }
        } else {
            1
        };
        (class, e.n, e.prior)
    }

    fn best_edge(&self, id: u32) -> Option<usize> {
        let node = &self.nodes[id as usize];
        if node.state != NodeState::Expanded {
            return None;
        }
        if node.win_edge != NONE && node.proven == Some(Outcome::Win) {
            return Some(node.win_edge as usize);
        }
        let (f, n) = (node.first_edge as usize, node.num_edges as usize);
        let mut best: Option<(usize, (u8, u32, f32))> = None;
        for i in f..f + n {
            let r = self.child_rank(&self.edges[i], node.side);
            if best.is_none_or(|(_, b)| r > b) {
                best = Some((i, r));
            }
        }
        best.map(|(i, _)| i)
    }

    /// The result of the search so far (may be called at any time).
    pub fn result(&self) -> SearchResult<G> {
        let root = &self.nodes[0];
        let pos = &self.states[0];
        let num_actions = pos.num_actions();
        let mut policy = vec![0.0f32; num_actions];
        let proven = root.proven;
        let root_value = match proven {
            Some(o) => self.outcome_value(o, root.side),
            None if root.n > 0 => root.w / root.n as f32,
            None => root.raw_value,
        };
        if root.state != NodeState::Expanded {
            return SearchResult {
                best_move: None,
                action: None,
                policy,
                root_value,
                pv: Vec::new(),
                children: Vec::new(),
                proven,
                simulations: self.sims_done,
                root_visits: root.n,
            };
        }
        let (f, n) = (root.first_edge as usize, root.num_edges as usize);
        let edges = &self.edges[f..f + n];
        let children: Vec<ChildStats<G::Move>> = edges
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let proven = if f + i == root.win_edge as usize {
                    Some(Outcome::Win)
                } else {
                    self.edge_proven(e, root.side)
                };
                ChildStats {
                    mv: e.mv,
                    action: e.action as usize,
                    visits: e.n,
                    q: match (proven, e.n) {
                        (Some(o), _) => self.outcome_value(o, root.side),
                        (None, 0) => 0.0,
                        (None, n) => e.w / n as f32,
                    },
                    prior: e.prior,
                    proven,
                }
            })
            .collect();
        let mut best = self.best_edge(0).expect("expanded root has edges");
        let root_won = self.config.solver && proven == Some(Outcome::Win);
        if let (Some(gr), false) = (&self.gumbel, root_won) {
            // Completed-Q improved policy and the sequential-halving winner.
            let mut sigma = vec![0.0; n];
            self.root_sigma_q(&mut sigma);
            let max = gr
                .logits
                .iter()
                .zip(&sigma)
                .map(|(l, s)| l + s)
                .fold(f32::NEG_INFINITY, f32::max);
            let mut sum = 0.0;
            for (i, e) in edges.iter().enumerate() {
                let p = (gr.logits[i] + sigma[i] - max).exp();
                policy[e.action as usize] += p;
                sum += p;
            }
            policy.iter_mut().for_each(|p| *p /= sum);
            let rel = |i: usize| edges[i].n - gr.base[i].min(edges[i].n);
            let max_rel = (0..n).map(rel).max().unwrap_or(0);
            let mut bs = f32::NEG_INFINITY;
            for i in 0..n {
                let lost = self.config.solver
                    && self.edge_proven(&edges[i], root.side) == Some(Outcome::Loss);
                let s = gr.g[i] + gr.logits[i] + sigma[i];
                if rel(i) == max_rel && !lost && s > bs {
                    bs = s;
                    best = f + i;
                }
            }
        } else if root_won {
            policy[self.edges[best].action as usize] = 1.0;
        } else {
            let visits = self
                .pruned_root_visits()
                .unwrap_or_else(|| edges.iter().map(|e| e.n).collect());
            let total: u32 = visits.iter().sum();
            for (e, &v) in edges.iter().zip(&visits) {
                policy[e.action as usize] += if total > 0 {
                    v as f32 / total as f32
                } else {
                    e.prior
                };
            }
        }
        let tactical_pv = root_won && self.edges[best].child == NONE && self.root_line.len() > 1;
        let pv = if tactical_pv {
            // The tactical proof line is the principal variation.
            self.root_line.clone()
        } else {
            let mut pv = vec![self.edges[best].mv];
            self.extend_pv(self.edges[best].child, &mut pv);
            pv
        };
        SearchResult {
            best_move: Some(self.edges[best].mv),
            action: Some(self.edges[best].action as usize),
            policy,
            root_value,
            pv,
            children,
            proven,
            simulations: self.sims_done,
            root_visits: root.n,
        }
    }

    /// The principal variation that starts with the root move `mv`: `mv`, then the best
    /// visited child at each ply (the walk [`SearchResult::pv`] makes from `best_move`), e.g.
    /// the line of each move of a multi-PV display. `None` when the root is not expanded or
    /// `mv` is not one of its moves.
    pub fn pv_from(&self, mv: G::Move) -> Option<Vec<G::Move>> {
        let root = &self.nodes[0];
        if root.state != NodeState::Expanded {
            return None;
        }
        let (f, n) = (root.first_edge as usize, root.num_edges as usize);
        let e = (f..f + n).find(|&i| self.edges[i].mv == mv)?;
        let mut pv = vec![mv];
        self.extend_pv(self.edges[e].child, &mut pv);
        Some(pv)
    }

    /// Appends the best visited child of node `id`, then of that child's node, … to `pv`.
    fn extend_pv(&self, mut id: u32, pv: &mut Vec<G::Move>) {
        while id != NONE {
            match self.best_edge(id) {
                Some(e) if self.edges[e].n > 0 => {
                    pv.push(self.edges[e].mv);
                    id = self.edges[e].child;
                }
                _ => break,
            }
        }
    }

    /// Plays `mv` at the root and keeps its subtree (with all its statistics) as the new
    /// tree; the rest is dropped. Pending leaves are discarded, root noise will be drawn anew.
    ///
    /// # Errors
    /// [`IllegalMove`] when `mv` is not legal at the root (the tree is unchanged).
    pub fn advance(&mut self, mv: G::Move) -> Result<(), IllegalMove> {
        self.cancel_pending();
        let root = &self.nodes[0];
        let (f, n) = (root.first_edge as usize, root.num_edges as usize);
        let child = if root.state == NodeState::Expanded {
            self.edges[f..f + n]
                .iter()
                .find(|e| e.mv == mv)
                .map(|e| e.child)
        } else {
            None
        };
        let old_entry = root.entry;
        match child {
            Some(c) if c != NONE => {
                self.history.push(old_entry);
                self.compact(c);
            }
            _ => {
                let mut pos = self.states[0].clone();
                pos.play(mv)?;
                let entry = HistoryEntry {
                    hash: pos.zobrist(),
                    in_check: pos.in_check(),
                    irreversible: self.states[0].is_irreversible(mv),
                };
                self.history.push(old_entry);
                self.reset_root(pos, entry);
            }
        }
        Ok(())
    }

    /// Rebuilds the arenas with `new_root`'s subtree only (breadth-first, root = 0).
    fn compact(&mut self, new_root: u32) {
        let old_nodes = std::mem::take(&mut self.nodes);
        let old_edges = std::mem::take(&mut self.edges);
        let mut old_states: Vec<Option<G>> = std::mem::take(&mut self.states)
            .into_iter()
            .map(Some)
            .collect();
        let mut nodes = Vec::with_capacity(old_nodes.len());
        let mut edges = Vec::with_capacity(old_edges.len());
        let mut states = Vec::with_capacity(old_nodes.len());
        let mut old_of_new: Vec<u32> = vec![new_root];
        let mut r = old_nodes[new_root as usize].clone();
        r.parent = NONE;
        r.parent_edge = NONE;
        nodes.push(r);
        states.push(
            old_states[new_root as usize]
                .take()
                .expect("each node is visited once"),
        );
        let mut i = 0;
        while i < old_of_new.len() {
            let old = &old_nodes[old_of_new[i] as usize];
            let first = edges.len() as u32;
            if old.state == NodeState::Expanded {
                let (f, n) = (old.first_edge as usize, old.num_edges as usize);
                for oe in &old_edges[f..f + n] {
                    let mut e = *oe;
                    if e.child != NONE {
                        let nid = nodes.len() as u32;
                        let mut c = old_nodes[e.child as usize].clone();
                        c.parent = i as u32;
                        c.parent_edge = edges.len() as u32;
                        nodes.push(c);
                        states.push(
                            old_states[e.child as usize]
                                .take()
                                .expect("each node is visited once"),
                        );
                        old_of_new.push(e.child);
                        e.child = nid;
                    }
                    edges.push(e);
                }
            }
            nodes[i].first_edge = first;
            if old.win_edge != NONE {
                // The winning edge moves with its node's edges.
                nodes[i].win_edge = first + (old.win_edge - old.first_edge);
            }
            i += 1;
        }
        self.nodes = nodes;
        self.edges = edges;
        self.states = states;
        self.root_line.clear();
        self.root_tactics_done = false;
        self.reply_threat = None;
        self.noise_applied = false;
        self.root_prepared = false;
        self.gumbel = None;
    }
}

/// Adds Dirichlet noise to a prior vector over the legal (candidate) moves only:
/// `P ← (1 − ε) · P + ε · η` with `η_i = g_i / Σ g`, `g_i ~ Gamma(α, 1)` independently.
/// `priors` must already be normalised over those moves; the result sums to 1 again. Does
/// nothing for an empty slice or `ε = 0`; a bad `α` (≤ 0 or not finite) leaves `priors` as is.
pub fn dirichlet_noise<R: Rng + ?Sized>(priors: &mut [f32], alpha: f32, epsilon: f32, rng: &mut R) {
    if priors.is_empty() || epsilon <= 0.0 {
        return;
    }
    let Ok(gamma) = Gamma::new(alpha, 1.0) else {
        return;
    };
    let samples: Vec<f32> = priors.iter().map(|_| gamma.sample(rng)).collect();
    let total: f32 = samples.iter().sum();
    let n = priors.len() as f32;
    for (p, g) in priors.iter_mut().zip(&samples) {
        let eta = if total > 0.0 { g / total } else { 1.0 / n };
        *p = (1.0 - epsilon) * *p + epsilon * eta;
    }
}
