//! Backup of values along the path, virtual loss, and proofs (MCTS-solver): a node is won
//! when one child is lost for its opponent, lost or drawn when every move is decided.

use alphazero_game::{Game, Outcome, Side};

use super::tree::{Edge, NodeState, NONE};
use super::Search;

#[inline]
fn from_view(o: Outcome, of: Side, to: Side) -> Outcome {
    if of == to {
        o
    } else {
        o.flip()
    }
}

impl<G: Game> Search<G> {
    pub(super) fn undo_virtual(&mut self, leaf: u32) {
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
    pub(super) fn backup(&mut self, leaf: u32, value: f32) {
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
    pub(super) fn edge_proven(&self, e: &Edge<G::Move>, parent_side: Side) -> Option<Outcome> {
        if e.child == NONE {
            return None;
        }
        let c = &self.nodes[e.child as usize];
        c.proven.map(|o| from_view(o, c.side, parent_side))
    }

    /// Re-derives proofs from `from`'s parent upwards.
    pub(super) fn propagate_proof(&mut self, from: u32) {
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

    /// The value of a decided result `o` for `side` (the side to move where it is decided):
    /// ±1 for a win / loss; a draw is worth
    /// [`SearchConfig::draw_score`](crate::SearchConfig::draw_score) to the root's side to
    /// move and its negation to the other side (0 by default: a draw is a draw).
    pub(super) fn outcome_value(&self, o: Outcome, side: Side) -> f32 {
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
}
