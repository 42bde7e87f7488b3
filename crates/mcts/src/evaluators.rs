//! Stand-in evaluators (uniform, random rollouts) and the caching decorator.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use alphazero_game::{mix_seed, Game, HistoryEntry};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::evaluator::{EvalError, EvalRequest, Evaluator};

/// Uniform policy (all logits 0) and value 0: search guided by nothing but visits and terminal
/// positions.
#[derive(Clone, Copy, Debug, Default)]
pub struct UniformEvaluator;

impl<G: Game> Evaluator<G> for UniformEvaluator {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, G>],
        policy_logits: &mut [f32],
        values: &mut [f32],
    ) -> Result<(), EvalError> {
        check_shapes(batch, policy_logits, values)?;
        policy_logits.fill(0.0);
        values.fill(0.0);
        Ok(())
    }
}

fn check_shapes<G: Game>(
    batch: &[EvalRequest<'_, G>],
    policy_logits: &[f32],
    values: &[f32],
) -> Result<usize, EvalError> {
    let a = batch.first().map_or(0, |r| r.position.num_actions());
    if values.len() != batch.len() || policy_logits.len() != batch.len() * a {
        return Err(EvalError(format!(
            "buffer shapes: batch {} x {a} actions, got {} logits and {} values",
            batch.len(),
            policy_logits.len(),
            values.len()
        )));
    }
    if let Some(r) = batch.iter().find(|r| r.position.num_actions() != a) {
        return Err(EvalError(format!(
            "mixed action spaces in one batch: {a} and {}",
            r.position.num_actions()
        )));
    }
    Ok(a)
}

/// "Pure MCTS" baseline: uniform logits, value = mean result of `playouts` games played on
/// from the position with uniformly random legal moves, from the position's side to move.
///
/// Deterministic: the RNG of each request is seeded from `seed` and the request's
/// [`Game::eval_key`]. Repetition rules apply during the playout (history is extended); a
/// playout still running after `max_plies` plies counts as a draw.
#[derive(Clone, Copy, Debug)]
pub struct RolloutEvaluator {
    /// Playouts per leaf (≥ 1; 0 is treated as 1).
    pub playouts: u32,
    /// Base seed.
    pub seed: u64,
    /// Ply cap per playout (a draw when reached).
    pub max_plies: u32,
}

impl RolloutEvaluator {
    /// `playouts` random games per leaf, seeded with `seed`, capped at 1000 plies.
    pub fn new(playouts: u32, seed: u64) -> Self {
        RolloutEvaluator {
            playouts,
            seed,
            max_plies: 1000,
        }
    }

    fn rollout<G: Game, R: Rng>(
        &self,
        req: &EvalRequest<'_, G>,
        rng: &mut R,
        moves: &mut Vec<G::Move>,
        hist: &mut Vec<HistoryEntry>,
    ) -> f32 {
        let me = req.position.side_to_move();
        let mut pos = req.position.clone();
        hist.clear();
        hist.extend_from_slice(req.history);
        let mut irreversible = false;
        for _ in 0..self.max_plies {
            if let Some(o) = pos.adjudicate(hist) {
                return if pos.side_to_move() == me {
                    o.value()
                } else {
                    -o.value()
                };
            }
            pos.legal_moves(moves);
            if moves.is_empty() {
                return 0.0;
            }
            let mv = moves[rng.random_range(0..moves.len())];
            hist.push(HistoryEntry {
                hash: pos.zobrist(),
                in_check: pos.in_check(),
                irreversible,
            });
            irreversible = pos.is_irreversible(mv);
            pos.play_unchecked(mv);
        }
        0.0
    }
}

impl<G: Game> Evaluator<G> for RolloutEvaluator {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, G>],
        policy_logits: &mut [f32],
        values: &mut [f32],
    ) -> Result<(), EvalError> {
        check_shapes(batch, policy_logits, values)?;
        policy_logits.fill(0.0);
        let mut moves = Vec::new();
        let mut hist = Vec::new();
        let k = self.playouts.max(1);
        for (req, v) in batch.iter().zip(values.iter_mut()) {
            let key = req.position.eval_key(req.history);
            let mut rng = StdRng::seed_from_u64(mix_seed(self.seed, key));
            let total: f32 = (0..k)
                .map(|_| self.rollout(req, &mut rng, &mut moves, &mut hist))
                .sum();
            *v = total / k as f32;
        }
        Ok(())
    }
}

struct Shard {
    map: HashMap<u64, (Box<[f32]>, f32)>,
    order: VecDeque<u64>,
}

/// Caching decorator around any evaluator, keyed by [`Game::eval_key`] of the request (the
/// position hash, side to move and whatever history the network sees, e.g. the Xiangqi
/// repetition count).
///
/// **Known bug to avoid:** keying by the board alone would hand a position the evaluation of
/// the same board reached with a different history (repetition planes) — always go through
/// `eval_key(history)`.
///
/// Bounded: `capacity` entries over 16 shards (`Mutex<HashMap>` each), oldest-inserted
/// evicted first. Thread-safe; counts hits and misses. Misses of one batch go to the inner
/// evaluator in one call.
pub struct CachedEvaluator<E> {
    inner: E,
    shards: Vec<Mutex<Shard>>,
    per_shard: usize,
    hits: AtomicU64,
    misses: AtomicU64,
}

const SHARDS: usize = 16;

impl<E> CachedEvaluator<E> {
    /// Wraps `inner` with room for about `capacity` positions (0 disables storing).
    pub fn new(inner: E, capacity: usize) -> Self {
        CachedEvaluator {
            inner,
            shards: (0..SHARDS)
                .map(|_| {
                    Mutex::new(Shard {
                        map: HashMap::new(),
                        order: VecDeque::new(),
                    })
                })
                .collect(),
            per_shard: capacity.div_ceil(SHARDS),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// Requests answered from the cache.
    pub fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    /// Requests passed to the inner evaluator.
    pub fn misses(&self) -> u64 {
        self.misses.load(Ordering::Relaxed)
    }

    /// Entries stored now.
    pub fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.lock().map_or(0, |s| s.map.len()))
            .sum()
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every entry (counters are kept), e.g. after the network changed.
    pub fn clear(&self) {
        for s in &self.shards {
            if let Ok(mut s) = s.lock() {
                s.map.clear();
                s.order.clear();
            }
        }
    }

    /// The wrapped evaluator.
    pub fn inner(&self) -> &E {
        &self.inner
    }

    fn shard(&self, key: u64) -> &Mutex<Shard> {
        &self.shards[(key >> 60) as usize % SHARDS]
    }
}

fn poisoned() -> EvalError {
    EvalError("cache lock poisoned".into())
}

impl<G: Game, E: Evaluator<G>> Evaluator<G> for CachedEvaluator<E> {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, G>],
        policy_logits: &mut [f32],
        values: &mut [f32],
    ) -> Result<(), EvalError> {
        let a = check_shapes(batch, policy_logits, values)?;
        let mut miss_idx = Vec::new();
        let mut keys = Vec::with_capacity(batch.len());
        for (i, req) in batch.iter().enumerate() {
            let key = req.position.eval_key(req.history);
            keys.push(key);
            let shard = self.shard(key).lock().map_err(|_| poisoned())?;
            match shard.map.get(&key) {
                Some((l, v)) if l.len() == a => {
                    policy_logits[i * a..(i + 1) * a].copy_from_slice(l);
                    values[i] = *v;
                }
                _ => miss_idx.push(i),
            }
        }
        self.hits
            .fetch_add((batch.len() - miss_idx.len()) as u64, Ordering::Relaxed);
        self.misses
            .fetch_add(miss_idx.len() as u64, Ordering::Relaxed);
        if miss_idx.is_empty() {
            return Ok(());
        }
        let sub: Vec<EvalRequest<'_, G>> = miss_idx
            .iter()
            .map(|&i| EvalRequest {
                position: batch[i].position,
                history: batch[i].history,
            })
            .collect();
        let mut sub_logits = vec![0.0; sub.len() * a];
        let mut sub_values = vec![0.0; sub.len()];
        self.inner
            .evaluate(&sub, &mut sub_logits, &mut sub_values)?;
        for (j, &i) in miss_idx.iter().enumerate() {
            let row = &sub_logits[j * a..(j + 1) * a];
            policy_logits[i * a..(i + 1) * a].copy_from_slice(row);
            values[i] = sub_values[j];
            if self.per_shard == 0 {
                continue;
            }
            let key = keys[i];
            let mut shard = self.shard(key).lock().map_err(|_| poisoned())?;
            if shard.map.contains_key(&key) {
                continue;
            }
            while shard.map.len() >= self.per_shard {
                match shard.order.pop_front() {
                    Some(old) => {
                        shard.map.remove(&old);
                    }
                    None => break,
                }
            }
            shard.map.insert(key, (row.into(), sub_values[j]));
            shard.order.push_back(key);
        }
        Ok(())
    }
}
