//! Expansion of an evaluated leaf (its candidate moves and priors) and the game's tactics at
//! new nodes: decisive moves one ply deep, tactical proofs, the root's and its replies'
//! deeper tactics.

use alphazero_game::{Game, Outcome};

use super::tree::{Edge, NodeState, NONE};
use super::Search;

impl<G: Game> Search<G> {
    /// Expands node `id` with the evaluator's logits row and value. Returns whether the node
    /// turned out terminal (no candidate move).
    pub(super) fn expand(&mut self, id: u32, logits: &[f32], value: f32) -> bool {
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
    pub(super) fn apply_tactics(&mut self, id: u32, budget: u32, deep: bool) {
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

    /// Plays every edge of the freshly expanded node `id` once and creates a terminal child
    /// for each move that ends the game ("decisive move" check); with the solver the node's
    /// proof is then derived at once. `slot` holds the node's history.
    pub(super) fn check_terminal_children(&mut self, id: u32, slot: usize) {
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
    /// ([`SearchConfig::reply_tactical_budget`](crate::SearchConfig::reply_tactical_budget))
    /// and propagates what they prove.
    pub(super) fn reply_tactics_for_reused_children(&mut self, budget: u32) {
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
}
