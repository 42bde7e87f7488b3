//! Selection: PUCT with FPU reduction and virtual loss, forced playouts and policy target
//! pruning at the root, root noise, and the Gumbel root with sequential halving.

use alphazero_game::{Game, Outcome};
use rand::Rng;
use rand_distr::{Distribution, Gamma, Gumbel};

use super::tree::{Edge, NodeState, NONE};
use super::Search;
use crate::gumbel;

pub(super) struct GumbelRoot {
    /// Gumbel(0, 1) sample per root edge.
    pub(super) g: Vec<f32>,
    /// ln P(a) per root edge (normalised logits).
    pub(super) logits: Vec<f32>,
    /// Root edge visits at the start of this run.
    pub(super) base: Vec<u32>,
    /// Sequential-halving visit table indexed by simulation number.
    pub(super) table: Vec<u32>,
}

impl<G: Game> Search<G> {
    pub(super) fn prepare_root(&mut self) {
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
    pub(super) fn select_leaf(&mut self) {
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
    /// root of a PUCT search with root noise
    /// ([`SearchConfig::forced_playouts`](crate::SearchConfig::forced_playouts)).
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
    pub(super) fn pruned_root_visits(&self) -> Option<Vec<u32>> {
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
    pub(super) fn root_sigma_q(&self, out: &mut [f32]) {
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
