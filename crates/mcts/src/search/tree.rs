//! The tree as data: nodes and edges in two `u32`-indexed arenas, the positions kept beside
//! them, and the tree's reuse (a root move keeps its subtree, [`Search::advance`]).

use alphazero_game::{Game, HistoryEntry, IllegalMove, Outcome, Side};

use super::Search;

/// "No node" / "no parent".
pub(super) const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NodeState {
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
pub(super) struct Node {
    pub(super) parent: u32,
    pub(super) parent_edge: u32,
    pub(super) first_edge: u32,
    pub(super) num_edges: u32,
    /// Completed visits (own evaluation + back-ups through it).
    pub(super) n: u32,
    /// Sum of backed-up values, from this node's side to move.
    pub(super) w: f32,
    /// Simulations in flight below this node.
    pub(super) in_flight: u32,
    /// The evaluator's value (side to move), or the exact terminal value.
    pub(super) raw_value: f32,
    pub(super) side: Side,
    pub(super) state: NodeState,
    /// Proven result from this node's side to move (terminal, or by the solver).
    pub(super) proven: Option<Outcome>,
    /// This position as a history entry (for repetition checks of its descendants).
    pub(super) entry: HistoryEntry,
    /// Whether the node's edges provably contain every move that could change the result
    /// ([`Game::search_moves`]), so that a loss or draw may be proven from them.
    pub(super) complete: bool,
    /// The edge that wins by the game's tactical proof ([`Game::tactical_proof`]), or `NONE`.
    pub(super) win_edge: u32,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Edge<M> {
    pub(super) mv: M,
    pub(super) action: u32,
    pub(super) prior: f32,
    /// Completed visits through this edge.
    pub(super) n: u32,
    /// Sum of backed-up values from the perspective of the side moving at the parent.
    pub(super) w: f32,
    /// Virtual visits in flight.
    pub(super) vl: u32,
    pub(super) child: u32,
}

impl<G: Game> Search<G> {
    pub(super) fn reset_root(&mut self, position: G, entry: HistoryEntry) {
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

    /// Appends the child reached from node `id` by edge `e` (position `pos`, `irreversible`
    /// move) and links it: a terminal node with the exact value of `outcome` when the game is
    /// over there, else a new node awaiting evaluation. Returns the child's id.
    pub(super) fn push_child(
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

    /// Writes root history + the entries of `leaf`'s ancestors (root first) into slot `slot`.
    pub(super) fn fill_leaf_history(&mut self, leaf: u32, slot: usize) {
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

    pub(super) fn ensure_slot(&mut self, slot: usize) {
        while self.leaf_hist.len() <= slot {
            self.leaf_hist.push(Vec::new());
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
