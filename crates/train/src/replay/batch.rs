//! Drawing training batches from a [`ReplayBuffer`] and encoding them for the network.

use alphazero_game::Game;
use alphazero_nn::{AuxHeads, AuxTargets, Batch, ModelConfig, NnError};
use alphazero_registry::Encode;
use rand::Rng;

use super::{ReplayBuffer, Sample};

/// How [`ReplayBuffer::sample_batch`] draws.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampleOptions {
    /// Fraction of the batch (in `[0, 1]`) drawn uniformly from the `recent_window` newest
    /// positions; the rest is drawn from the whole buffer.
    pub recent_fraction: f32,
    /// Number of newest positions the recent part draws from (0 disables the recent part).
    pub recent_window: usize,
    /// Apply a uniformly random board symmetry to every sample.
    pub symmetries: bool,
    /// Oversample positions marked `threat` in the whole-buffer part: a threat position is
    /// `threat_weight` times as likely as another one.
    pub hard_mining: bool,
    /// The relative weight of threat positions under `hard_mining` (≥ 1).
    pub threat_weight: f32,
}

impl Default for SampleOptions {
    fn default() -> Self {
        SampleOptions {
            recent_fraction: 0.0,
            recent_window: 0,
            symmetries: true,
            hard_mining: false,
            threat_weight: 4.0,
        }
    }
}

/// A sample drawn for a batch, already transformed by `symmetry`.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchSample<G: Game> {
    /// The transformed sample (position and policy moved by `symmetry`; its
    /// [`Sample::line`] is the recorded game's, untransformed).
    pub sample: Sample<G>,
    /// The symmetry index applied (0 = identity).
    pub symmetry: usize,
    /// Age of the drawn sample in the buffer (0 = newest).
    pub age: usize,
    /// The opponent-reply target: the move the opponent played after this position's move,
    /// as an action index of the position it was played from, transformed by `symmetry`
    /// (with that position as the receiver of [`Game::transform_action`], as π is); `None`
    /// when this position's move ended the game.
    pub reply: Option<u16>,
}

impl<G: Game> ReplayBuffer<G> {
    /// Draws a uniform age in `0..len()`, with threat positions `weight` times as likely
    /// (rejection sampling; gives up after 64 rejections and takes the last draw).
    fn draw_uniform<R: Rng + ?Sized>(&self, rng: &mut R, opts: &SampleOptions) -> usize {
        let len = self.len();
        let mut age = rng.random_range(0..len);
        if opts.hard_mining && opts.threat_weight > 1.0 {
            let accept_plain = 1.0 / f64::from(opts.threat_weight);
            for _ in 0..64 {
                if self.slots[self.slot_of_age(age)].threat || rng.random_bool(accept_plain) {
                    break;
                }
                age = rng.random_range(0..len);
            }
        }
        age
    }

    /// Draws `n` samples (none when the buffer is empty): the first
    /// `round(n · recent_fraction)` uniformly from the `recent_window` newest positions, the
    /// rest uniformly from the whole buffer (threat positions oversampled under
    /// `hard_mining`); each with a uniformly random symmetry when `symmetries` is set, which
    /// is applied to the position and the policy (see the module documentation).
    /// Deterministic for a given buffer, `rng` state and options.
    pub fn sample_batch<R: Rng + ?Sized>(
        &self,
        n: usize,
        rng: &mut R,
        opts: &SampleOptions,
    ) -> Vec<BatchSample<G>> {
        if self.is_empty() {
            return Vec::new();
        }
        let window = opts.recent_window.min(self.len());
        let n_recent = if window == 0 {
            0
        } else {
            ((n as f64) * f64::from(opts.recent_fraction.clamp(0.0, 1.0))).round() as usize
        };
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let age = if i < n_recent {
                rng.random_range(0..window)
            } else {
                self.draw_uniform(rng, opts)
            };
            let s = &self.slots[self.slot_of_age(age)];
            let nsym = s.position.num_symmetries().max(1);
            let symmetry = if opts.symmetries {
                rng.random_range(0..nsym)
            } else {
                0
            };
            let (sample, reply) = if symmetry == 0 {
                (s.clone(), s.reply_action())
            } else {
                let reply = s.reply_action().map(|a| {
                    // The reply is an action of the position after this one's move.
                    let mut next = s.position.clone();
                    next.play_unchecked(s.line.moves[s.move_index as usize]);
                    next.transform_action(symmetry, usize::from(a)) as u16
                });
                let sample = Sample {
                    position: s.position.transform(symmetry),
                    policy: s
                        .policy
                        .iter()
                        .map(|&(a, p)| {
                            let t = s.position.transform_action(symmetry, usize::from(a));
                            (t as u16, p)
                        })
                        .collect(),
                    ..s.clone()
                };
                (sample, reply)
            };
            out.push(BatchSample {
                sample,
                symmetry,
                age,
                reply,
            });
        }
        out
    }
}

impl<G: Encode> ReplayBuffer<G> {
    /// Writes the ownership target of the drawn sample `drawn` (from this buffer's
    /// [`ReplayBuffer::sample_batch`], not overwritten since) into `out` `[H, W]`:
    /// [`Encode::ownership`] of the untransformed position with its game's continuation and
    /// end, moved by the drawn symmetry with [`Encode::transform_ownership`], so that it lies
    /// on the drawn (transformed) position's planes.
    ///
    /// # Panics
    /// If `out` is not `H × W` long, or `drawn.age` is not in the buffer.
    pub fn ownership(&self, drawn: &BatchSample<G>, out: &mut [f32]) {
        let s = self.get(drawn.age).expect("a drawn sample's age");
        let line = &s.line;
        if drawn.symmetry == 0 {
            s.position.ownership(s.continuation(), &line.end, out);
        } else {
            let mut map = vec![0f32; out.len()];
            s.position.ownership(s.continuation(), &line.end, &mut map);
            G::transform_ownership(s.position.config(), drawn.symmetry, &map, out);
        }
    }
}

/// Builds the network's training batches from a [`ReplayBuffer`]: each sample drawn by
/// [`ReplayBuffer::sample_batch`] encoded as the planes of its (transformed) position, its
/// legal moves, π, the value target ([`Sample::value_target`]) and the auxiliary targets of
/// the heads trained (the reply, the ownership map), reusing its buffers from batch to batch.
#[derive(Clone, Debug)]
pub struct BatchEncoder<G: Game> {
    batch: Batch,
    size: usize,
    options: SampleOptions,
    q_weight: f32,
    heads: AuxHeads,
    planes: Vec<f32>,
    legal: Vec<bool>,
    pi: Vec<f32>,
    ownership: Vec<f32>,
    moves: Vec<G::Move>,
}

impl<G: Encode> BatchEncoder<G> {
    /// Batches of `size` samples for a network of shape `model`, drawn with `options`, the
    /// value target mixed with the root value by `q_weight`, with the targets of `heads`.
    pub fn new(
        model: &ModelConfig,
        size: usize,
        options: SampleOptions,
        q_weight: f32,
        heads: AuxHeads,
    ) -> Self {
        let (c, h, w, a) = (
            model.input_planes,
            model.board_height,
            model.board_width,
            model.num_actions,
        );
        BatchEncoder {
            batch: Batch::with_capacity([c, h, w], a, size),
            size,
            options,
            q_weight,
            heads,
            planes: vec![0f32; c * h * w],
            legal: vec![false; a],
            pi: vec![0f32; a],
            ownership: vec![0f32; h * w],
            moves: Vec::new(),
        }
    }

    /// The next batch: the samples [`ReplayBuffer::sample_batch`] draws from `buffer` with
    /// `rng`, encoded.
    ///
    /// # Errors
    /// [`NnError::BatchShape`] when a sample does not fit the network's shape.
    pub fn next_batch<R: Rng + ?Sized>(
        &mut self,
        buffer: &ReplayBuffer<G>,
        rng: &mut R,
    ) -> Result<&Batch, NnError> {
        self.batch.clear();
        for s in buffer.sample_batch(self.size, rng, &self.options) {
            let p = &s.sample.position;
            p.encode(u32::from(s.sample.repetitions), &mut self.planes);
            self.legal.iter_mut().for_each(|l| *l = false);
            p.legal_moves(&mut self.moves);
            for &mv in &self.moves {
                self.legal[p.move_to_action(mv)] = true;
            }
            self.pi.iter_mut().for_each(|x| *x = 0.0);
            for &(act, prob) in &s.sample.policy {
                self.pi[act as usize] = prob;
            }
            if self.heads.ownership {
                buffer.ownership(&s, &mut self.ownership);
            }
            let aux = AuxTargets {
                reply: s.reply.filter(|_| self.heads.reply_policy).map(usize::from),
                ownership: self.heads.ownership.then_some(&self.ownership[..]),
            };
            let z = s.sample.value_target(self.q_weight);
            self.batch
                .push_with_aux(&self.planes, &self.legal, &self.pi, z, aux)?;
        }
        Ok(&self.batch)
    }

    /// The last batch built (empty before the first).
    pub fn last(&self) -> &Batch {
        &self.batch
    }
}
