//! What a search returns: the root's children, the move, the policy target, the principal
//! variation.

use alphazero_game::{Game, Outcome, Side};

use super::tree::{Edge, NodeState, NONE};
use super::Search;

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

impl<G: Game> Search<G> {
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
}
