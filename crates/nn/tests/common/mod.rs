//! Helpers shared by the integration tests.
#![allow(dead_code)]

use alphazero_game::Game;
use alphazero_nn::{Batch, ModelConfig};

/// A small deterministic xorshift generator (the crate has no RNG dependency).
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        let mut s = self.0 | 1;
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        self.0 = s;
        s
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// Plays up to `plies` random legal moves from the start position (stops at the end of the game).
pub fn random_position<G: Game>(config: &G::Config, plies: usize, rng: &mut Rng) -> G {
    let mut pos = G::new(config);
    let mut moves = Vec::new();
    for _ in 0..plies {
        if pos.outcome().is_some() {
            break;
        }
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        let mv = moves[rng.below(moves.len())];
        pos.play_unchecked(mv);
    }
    pos
}

/// A batch of `n` random samples for `config`: 0/1 planes, about two thirds of the actions
/// legal, a random target policy on the legal ones, z in {-1, 0, 1}.
pub fn random_batch(config: &ModelConfig, n: usize, rng: &mut Rng) -> Batch {
    let (c, h, w, a) = (
        config.input_planes,
        config.board_height,
        config.board_width,
        config.num_actions,
    );
    let mut batch = Batch::with_capacity([c, h, w], a, n);
    for _ in 0..n {
        let planes: Vec<f32> = (0..c * h * w).map(|_| (rng.below(2)) as f32).collect();
        let mut legal: Vec<bool> = (0..a).map(|_| rng.below(3) != 0).collect();
        legal[rng.below(a)] = true;
        let mut policy: Vec<f32> = legal
            .iter()
            .map(|&l| if l { rng.unit() } else { 0.0 })
            .collect();
        let sum: f32 = policy.iter().sum();
        if sum > 0.0 {
            policy.iter_mut().for_each(|p| *p /= sum);
        } else {
            let i = legal.iter().position(|&l| l).unwrap();
            policy[i] = 1.0;
        }
        let z = [1.0, 0.0, -1.0][rng.below(3)];
        batch.push(&planes, &legal, &policy, z).unwrap();
    }
    batch
}

/// Largest absolute difference of two slices (panics on different lengths).
pub fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// A unique empty directory under the system temp dir.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("alphazero-nn-{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
