//! Move choice from a search result, with temperature.

use alphazero_game::{Game, Outcome};
use rand::Rng;

use crate::search::{ChildStats, SearchResult};

/// Picks the move to play from a search result with temperature `tau`.
///
/// * `tau` ≤ 1e-3 (τ → 0): `result.best_move` (argmax, deterministic tie-break).
/// * otherwise: samples a root child with probability ∝ `policy[action]^(1/τ)` (τ = 1:
///   proportional to visits, or to the Gumbel improved policy).
///
/// A proven-won root always gives `best_move`; proven-losing moves are never sampled while
/// another move exists. `None` only when the result has no moves (terminal root).
pub fn select_move<G: Game, R: Rng + ?Sized>(
    result: &SearchResult<G>,
    tau: f32,
    rng: &mut R,
) -> Option<G::Move> {
    if result.proven == Some(Outcome::Win) || tau.is_nan() || tau <= 1e-3 {
        return result.best_move;
    }
    let all_lose = result
        .children
        .iter()
        .all(|c| c.proven == Some(Outcome::Loss));
    let weight = |c: &ChildStats<G::Move>| {
        if !all_lose && c.proven == Some(Outcome::Loss) {
            return 0.0;
        }
        result.policy.get(c.action).copied().unwrap_or(0.0) as f64
    };
    let pmax = result.children.iter().map(weight).fold(0.0f64, f64::max);
    if pmax <= 0.0 {
        return result.best_move;
    }
    let inv = 1.0 / tau as f64;
    let w = |c: &ChildStats<G::Move>| {
        let p = weight(c);
        if p <= 0.0 {
            0.0
        } else {
            (p / pmax).powf(inv)
        }
    };
    let total: f64 = result.children.iter().map(w).sum();
    let mut x = rng.random::<f64>() * total;
    let mut last = result.best_move;
    for c in &result.children {
        let wc = w(c);
        if wc <= 0.0 {
            continue;
        }
        last = Some(c.mv);
        if x < wc {
            return Some(c.mv);
        }
        x -= wc;
    }
    last
}
