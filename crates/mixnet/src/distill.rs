//! Distillation: training a [`Mixnet`] on a teacher's labels, and the measures of how close
//! it comes (top-1 agreement, value MSE, policy KL) on held-out positions.
//!
//! The loss of a sample is the cross-entropy of the student's policy (softmax over the empty
//! points) against the teacher's π plus `value_weight · (v − v_teacher)²`; Adam, with the
//! line table updated lazily (only the rows a batch touched, as embedding tables are), each
//! sample under a random board symmetry.

use rand::{Rng, SeedableRng};

use crate::data::Sample;
use crate::model::{t, Grads, InferScratch, Mixnet, Scratch};

/// How [`Trainer`] learns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainOptions {
    /// Samples a step.
    pub batch: usize,
    /// Adam's learning rate for the dense weights.
    pub lr: f32,
    /// Adam's learning rate for the line table.
    pub table_lr: f32,
    /// Weight of the value's squared error beside the policy's cross-entropy.
    pub value_weight: f32,
    /// Seed of the batches and symmetries.
    pub seed: u64,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            batch: 256,
            lr: 2e-3,
            table_lr: 5e-3,
            value_weight: 2.0,
            seed: 1,
        }
    }
}

/// How close a student comes to its teacher on a set of samples.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Agreement {
    /// Samples measured.
    pub samples: usize,
    /// Share of samples whose highest student logit (over the empty points) is the
    /// teacher's most probable point.
    pub top1: f64,
    /// Mean of `(v − v_teacher)²`.
    pub value_mse: f64,
    /// Mean KL divergence of the student's policy from the teacher's, in nats.
    pub policy_kl: f64,
}

/// Measures `net` against the teacher's labels of `samples`.
pub fn measure(net: &Mixnet, samples: &[Sample]) -> Agreement {
    let mut scratch = InferScratch::default();
    let mut cells = Vec::new();
    let mut logits = Vec::new();
    let mut top1 = 0usize;
    let mut mse = 0.0f64;
    let mut kl = 0.0f64;
    for s in samples {
        let n = usize::from(s.size);
        s.cells(&mut cells);
        logits.resize(n * n, 0.0);
        let v = net.infer(n, &cells, s.black_to_move, &mut logits, &mut scratch);
        mse += f64::from((v - s.value).powi(2));
        let pi = s.probabilities();
        let q = softmax_empty(&cells, &logits);
        let best_student = argmax_empty(&cells, &logits);
        let best_teacher = argmax_empty(&cells, &pi);
        top1 += usize::from(best_student == best_teacher);
        for (&p, &q) in pi.iter().zip(&q) {
            if p > 0.0 {
                kl += f64::from(p) * (f64::from(p).ln() - f64::from(q.max(1e-30)).ln());
            }
        }
    }
    let count = samples.len().max(1) as f64;
    Agreement {
        samples: samples.len(),
        top1: top1 as f64 / count,
        value_mse: mse / count,
        policy_kl: kl / count,
    }
}

/// Softmax of `logits` over the empty cells, zero elsewhere.
fn softmax_empty(cells: &[u8], logits: &[f32]) -> Vec<f32> {
    let max = cells
        .iter()
        .zip(logits)
        .filter(|(&c, _)| c == crate::lines::EMPTY)
        .map(|(_, &l)| l)
        .fold(f32::NEG_INFINITY, f32::max);
    let mut out: Vec<f32> = cells
        .iter()
        .zip(logits)
        .map(|(&c, &l)| {
            if c == crate::lines::EMPTY {
                (l - max).exp()
            } else {
                0.0
            }
        })
        .collect();
    let sum: f32 = out.iter().sum();
    if sum > 0.0 {
        for x in &mut out {
            *x /= sum;
        }
    }
    out
}

/// The empty cell of the highest score (the first of equals).
fn argmax_empty(cells: &[u8], scores: &[f32]) -> Option<usize> {
    let mut best: Option<(usize, f32)> = None;
    for (i, (&c, &x)) in cells.iter().zip(scores).enumerate() {
        if c == crate::lines::EMPTY && best.is_none_or(|(_, b)| x > b) {
            best = Some((i, x));
        }
    }
    best.map(|(i, _)| i)
}

/// Adam over a [`Mixnet`]'s weights.
pub struct Trainer {
    net: Mixnet,
    options: TrainOptions,
    grads: Grads,
    m: Vec<Vec<f32>>,
    v: Vec<Vec<f32>>,
    step: u64,
    touched: Vec<u32>,
    marked: Vec<bool>,
    scratch: Scratch,
    rng: rand::rngs::StdRng,
    lr_scale: f32,
}

const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const EPS: f32 = 1e-8;

impl Trainer {
    /// A trainer starting from `net`.
    pub fn new(net: Mixnet, options: TrainOptions) -> Trainer {
        let zeros: Vec<Vec<f32>> = net.tensors.iter().map(|x| vec![0.0; x.len()]).collect();
        let rows = net.tables() * net.lines().rows();
        Trainer {
            grads: Grads::zeros(&net),
            m: zeros.clone(),
            v: zeros,
            step: 0,
            touched: Vec::new(),
            marked: vec![false; rows],
            scratch: Scratch::default(),
            rng: rand::rngs::StdRng::seed_from_u64(options.seed),
            lr_scale: 1.0,
            net,
            options,
        }
    }

    /// The network as trained so far.
    pub fn net(&self) -> &Mixnet {
        &self.net
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.step
    }

    /// Scales both configured learning rates by `scale` from the next step on (a schedule).
    pub fn set_lr_scale(&mut self, scale: f32) {
        self.lr_scale = scale;
    }

    /// One step on a batch drawn from `samples` (each under a random symmetry); returns the
    /// batch's mean loss.
    ///
    /// # Panics
    /// When `samples` is empty.
    pub fn step(&mut self, samples: &[Sample]) -> f32 {
        assert!(!samples.is_empty(), "no samples to learn from");
        let batch = self.options.batch.max(1);
        let inv_b = 1.0 / batch as f32;
        let mut loss = 0.0f32;
        let mut cells = Vec::new();
        let mut logits = Vec::new();
        let mut dlogits = Vec::new();
        for _ in 0..batch {
            let s = &samples[self.rng.random_range(0..samples.len())];
            let s = s.transformed(self.rng.random_range(0..8));
            let n = usize::from(s.size);
            s.cells(&mut cells);
            logits.resize(n * n, 0.0);
            let v = self
                .net
                .forward(n, &cells, s.black_to_move, &mut logits, &mut self.scratch);
            let pi = s.probabilities();
            let q = softmax_empty(&cells, &logits);
            dlogits.clear();
            for ((&c, &p), &qv) in cells.iter().zip(&pi).zip(&q) {
                if c == crate::lines::EMPTY {
                    dlogits.push((qv - p) * inv_b);
                    if p > 0.0 {
                        loss -= p * qv.max(1e-30).ln() * inv_b;
                    }
                } else {
                    dlogits.push(0.0);
                }
            }
            let err = v - s.value;
            loss += self.options.value_weight * err * err * inv_b;
            let dvalue = 2.0 * self.options.value_weight * err * inv_b;
            let (touched, marked) = (&mut self.touched, &mut self.marked);
            self.net
                .backward(n, &self.scratch, &dlogits, dvalue, &mut self.grads, |r| {
                    if !marked[r as usize] {
                        marked[r as usize] = true;
                        touched.push(r);
                    }
                });
        }
        self.apply();
        loss
    }

    /// Adam's update from the accumulated gradients, which are then cleared.
    fn apply(&mut self) {
        self.step += 1;
        let step = self.step as i32;
        let c1 = 1.0 - BETA1.powi(step);
        let c2 = 1.0 - BETA2.powi(step);
        let update = |w: &mut f32, g: &mut f32, m: &mut f32, v: &mut f32, lr: f32| {
            *m = BETA1 * *m + (1.0 - BETA1) * *g;
            *v = BETA2 * *v + (1.0 - BETA2) * *g * *g;
            *w -= lr * (*m / c1) / ((*v / c2).sqrt() + EPS);
            *g = 0.0;
        };
        let f = self.net.features();
        let table_lr = self.options.table_lr * self.lr_scale;
        for &r in &self.touched {
            let r = r as usize;
            self.marked[r] = false;
            for i in r * f..(r + 1) * f {
                update(
                    &mut self.net.tensors[t::TABLE][i],
                    &mut self.grads.tensors[t::TABLE][i],
                    &mut self.m[t::TABLE][i],
                    &mut self.v[t::TABLE][i],
                    table_lr,
                );
            }
        }
        self.touched.clear();
        let lr = self.options.lr * self.lr_scale;
        for k in 0..t::COUNT {
            if k == t::TABLE {
                continue;
            }
            for i in 0..self.net.tensors[k].len() {
                update(
                    &mut self.net.tensors[k][i],
                    &mut self.grads.tensors[k][i],
                    &mut self.m[k][i],
                    &mut self.v[k][i],
                    lr,
                );
            }
        }
    }

    /// The trained network.
    pub fn into_net(self) -> Mixnet {
        self.net
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::MixnetConfig;

    /// A random 7×7 position as cells.
    fn random_cells(n: usize, seed: u64) -> Vec<u8> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        (0..n * n)
            .map(|_| match rng.random_range(0..10) {
                0..=1 => crate::lines::OWN,
                2..=3 => crate::lines::OPP,
                _ => crate::lines::EMPTY,
            })
            .collect()
    }

    /// The loss of one position: Σ_p c_p · logit_p + k · v (a linear probe of every output).
    fn probe_loss(net: &Mixnet, n: usize, cells: &[u8], c: &[f32], k: f32) -> f64 {
        let mut logits = vec![0.0; n * n];
        let v = net.forward(n, cells, true, &mut logits, &mut Scratch::default());
        let mut sum = f64::from(k * v);
        for (l, c) in logits.iter().zip(c) {
            sum += f64::from(l * c);
        }
        sum
    }

    #[test]
    fn gradients_equal_finite_differences_for_every_tensor() {
        let n = 7;
        let config = MixnetConfig {
            half_width: 2,
            features: 8,
            value_hidden: 4,
            colour_tables: false,
        };
        let mut net = Mixnet::new(config, 3);
        // Biases away from zero so that few ReLUs sit on their kink.
        for b in &mut net.tensors[t::B1] {
            *b = 0.3;
        }
        let cells = random_cells(n, 5);
        let c: Vec<f32> = (0..n * n)
            .map(|i| ((i * 7 % 11) as f32 - 5.0) * 0.1)
            .collect();
        let k = 0.7;
        let mut scratch = Scratch::default();
        let mut logits = vec![0.0; n * n];
        net.forward(n, &cells, true, &mut logits, &mut scratch);
        let mut grads = Grads::zeros(&net);
        let mut rows = Vec::new();
        net.backward(n, &scratch, &c, k, &mut grads, |r| rows.push(r));
        let grads = grads.tensors;
        let mut checked = 0;
        for (tensor, grad) in grads.iter().enumerate() {
            let len = net.tensors[tensor].len();
            // The table: only rows the position uses have a gradient; check those.
            let indices: Vec<usize> = if tensor == t::TABLE {
                let f = net.features();
                rows.iter()
                    .take(6)
                    .flat_map(|&r| (0..2).map(move |j| r as usize * f + j))
                    .collect()
            } else {
                (0..len).step_by((len / 6).max(1)).collect()
            };
            for i in indices {
                let h = 1e-3f32;
                let w = net.tensors[tensor][i];
                net.tensors[tensor][i] = w + h;
                let up = probe_loss(&net, n, &cells, &c, k);
                net.tensors[tensor][i] = w - h;
                let down = probe_loss(&net, n, &cells, &c, k);
                net.tensors[tensor][i] = w;
                let numeric = (up - down) / (2.0 * f64::from(h));
                let analytic = f64::from(grad[i]);
                assert!(
                    (numeric - analytic).abs() <= 2e-2 * (1.0 + numeric.abs()),
                    "{}[{i}]: numeric {numeric}, analytic {analytic}",
                    t::NAMES[tensor]
                );
                checked += 1;
            }
        }
        assert!(checked > 40, "{checked} weights checked");
    }

    #[test]
    fn training_on_a_teacher_s_labels_brings_the_student_closer() {
        use crate::data::{generate, GenerateOptions};
        use alphazero_gomoku::{Gomoku, GomokuConfig, Rule};
        use alphazero_mcts::{EvalError, EvalRequest, Evaluator};

        /// A teacher with local patterns a line table can hold: it prefers points beside
        /// its own stones and values a position by its horizontal pairs against the
        /// opponent's.
        struct Adjacent;
        impl Evaluator<Gomoku> for Adjacent {
            fn evaluate(
                &self,
                batch: &[EvalRequest<'_, Gomoku>],
                policy_logits: &mut [f32],
                values: &mut [f32],
            ) -> Result<(), EvalError> {
                for (i, req) in batch.iter().enumerate() {
                    let pos = req.position;
                    let n = pos.size();
                    let us = alphazero_game::Game::side_to_move(pos);
                    for y in 0..n {
                        for x in 0..n {
                            let mut near = 0;
                            for (dx, dy) in [(1i32, 0i32), (-1, 0), (0, 1), (0, -1)] {
                                let (qx, qy) = (x as i32 + dx, y as i32 + dy);
                                if qx >= 0
                                    && qy >= 0
                                    && pos.stone_at(qx as usize, qy as usize) == Some(us)
                                {
                                    near += 1;
                                }
                            }
                            policy_logits[i * n * n + y * n + x] = 2.0 * near as f32;
                        }
                    }
                    let mut pairs = 0i32;
                    for y in 0..n {
                        for x in 0..n - 1 {
                            match (pos.stone_at(x, y), pos.stone_at(x + 1, y)) {
                                (Some(a), Some(b)) if a == b && a == us => pairs += 1,
                                (Some(a), Some(b)) if a == b => pairs -= 1,
                                _ => {}
                            }
                        }
                    }
                    values[i] = 0.5 * (0.5 * pairs as f32).tanh();
                }
                Ok(())
            }
        }
        let config = GomokuConfig::new(9, Rule::Freestyle).unwrap();
        let options = GenerateOptions {
            games: 40,
            parallel: 8,
            ..GenerateOptions::default()
        };
        let samples = generate(&Adjacent, &config, &options, |_, _| {}).unwrap();
        let net = Mixnet::new(
            MixnetConfig {
                half_width: 2,
                features: 8,
                value_hidden: 8,
                colour_tables: false,
            },
            1,
        );
        let before = measure(&net, &samples);
        let mut trainer = Trainer::new(
            net,
            TrainOptions {
                batch: 32,
                ..TrainOptions::default()
            },
        );
        for _ in 0..150 {
            trainer.step(&samples);
        }
        let after = measure(trainer.net(), &samples);
        assert!(
            after.policy_kl < 0.7 * before.policy_kl,
            "KL {} -> {}",
            before.policy_kl,
            after.policy_kl
        );
        assert!(
            after.value_mse < 0.5 * before.value_mse.max(0.01),
            "value MSE {} -> {}",
            before.value_mse,
            after.value_mse
        );
    }
}
