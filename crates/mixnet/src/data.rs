//! Distillation data: positions labelled by a teacher, the games that make them, their file.
//!
//! A [`Sample`] is a position (stones from the side to move, the colour to move) with the
//! teacher's policy π over the empty points and its value v. [`generate`] plays games in
//! which each move is drawn from the teacher's own policy (one teacher evaluation a ply, so
//! thousands of positions a minute on one core), from random openings; each position becomes
//! a sample. Samples keep their game's number so that held-out games can be set apart.

use std::io::Read;

use alphazero_game::{random_opening, Game, Side};
use alphazero_gomoku::{transform_point, Gomoku, GomokuConfig, GomokuMove, Rule};
use alphazero_mcts::{EvalRequest, Evaluator};
use rand::{Rng, SeedableRng};

use crate::lines::{EMPTY, OPP, OWN};
use crate::MixnetError;

/// One labelled position.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The board's side.
    pub size: u8,
    /// Whether black is to move.
    pub black_to_move: bool,
    /// The game it comes from (held-out sets are chosen by game).
    pub game: u32,
    /// Row bit masks of the side to move's stones (bit `x` of `own[y]`).
    pub own: [u32; 20],
    /// Row bit masks of the opponent's stones.
    pub opp: [u32; 20],
    /// The teacher's policy over the `size²` points, quantised: probability × 65535
    /// (zero on occupied points).
    pub policy: Vec<u16>,
    /// The teacher's value in [-1, 1] from the side to move.
    pub value: f32,
}

impl Sample {
    /// The sample of `pos` with the teacher's `logits` (`[n²]`) and `value`.
    pub fn from_teacher(pos: &Gomoku, game: u32, logits: &[f32], value: f32) -> Sample {
        let n = pos.size();
        let us = pos.side_to_move();
        let mut own = [0u32; 20];
        let mut opp = [0u32; 20];
        for y in 0..n {
            own[y] = pos.row_bits(us, y);
            opp[y] = pos.row_bits(us.opponent(), y);
        }
        let probs = legal_softmax(n, &own, &opp, logits, 1.0);
        Sample {
            size: n as u8,
            black_to_move: us == Side::First,
            game,
            own,
            opp,
            policy: probs
                .iter()
                .map(|&p| (p * 65535.0).round().clamp(0.0, 65535.0) as u16)
                .collect(),
            value: value.clamp(-1.0, 1.0),
        }
    }

    /// Whether the point `(x, y)` is empty.
    pub fn is_empty(&self, x: usize, y: usize) -> bool {
        (self.own[y] | self.opp[y]) >> x & 1 == 0
    }

    /// The cell states `[n²]` ([`OWN`], [`OPP`], [`EMPTY`]).
    pub fn cells(&self, out: &mut Vec<u8>) {
        let n = usize::from(self.size);
        out.clear();
        for y in 0..n {
            for x in 0..n {
                out.push(if self.own[y] >> x & 1 == 1 {
                    OWN
                } else if self.opp[y] >> x & 1 == 1 {
                    OPP
                } else {
                    EMPTY
                });
            }
        }
    }

    /// The teacher's policy as probabilities `[n²]`.
    pub fn probabilities(&self) -> Vec<f32> {
        self.policy
            .iter()
            .map(|&q| f32::from(q) / 65535.0)
            .collect()
    }

    /// The same sample under the board symmetry `sym` (`0..8`, the game's numbering).
    pub fn transformed(&self, sym: usize) -> Sample {
        let n = self.size;
        let mut out = Sample {
            own: [0; 20],
            opp: [0; 20],
            policy: vec![0; self.policy.len()],
            ..self.clone()
        };
        for y in 0..n {
            for x in 0..n {
                let (tx, ty) = transform_point(n, sym, x, y);
                let (x, y, tx, ty) = (
                    usize::from(x),
                    usize::from(y),
                    usize::from(tx),
                    usize::from(ty),
                );
                out.own[ty] |= (self.own[y] >> x & 1) << tx;
                out.opp[ty] |= (self.opp[y] >> x & 1) << tx;
                out.policy[ty * usize::from(n) + tx] = self.policy[y * usize::from(n) + x];
            }
        }
        out
    }
}

/// Softmax of `logits / temperature` over the empty points, zero elsewhere.
pub(crate) fn legal_softmax(
    n: usize,
    own: &[u32; 20],
    opp: &[u32; 20],
    logits: &[f32],
    temperature: f32,
) -> Vec<f32> {
    let mut out = vec![0.0f32; n * n];
    let mut max = f32::NEG_INFINITY;
    for y in 0..n {
        for x in 0..n {
            if (own[y] | opp[y]) >> x & 1 == 0 {
                max = max.max(logits[y * n + x] / temperature);
            }
        }
    }
    let mut sum = 0.0;
    for y in 0..n {
        for x in 0..n {
            if (own[y] | opp[y]) >> x & 1 == 0 {
                let e = (logits[y * n + x] / temperature - max).exp();
                out[y * n + x] = e;
                sum += e;
            }
        }
    }
    if sum > 0.0 {
        for p in &mut out {
            *p /= sum;
        }
    }
    out
}

/// How [`generate`] plays its games.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GenerateOptions {
    /// Games to play.
    pub games: u32,
    /// Games played at once (their positions go to the teacher as one batch).
    pub parallel: u32,
    /// τ of the move drawn from the teacher's policy.
    pub temperature: f32,
    /// Random opening stones before the teacher plays: `0..=opening_stones`, uniform.
    pub opening_stones: u32,
    /// Chance that a move is a uniformly random point near the stones instead (diversity).
    pub random_move: f32,
    /// Seed of the openings and the moves.
    pub seed: u64,
    /// Number of the first game (so that several runs can be merged).
    pub first_game: u32,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions {
            games: 1000,
            parallel: 64,
            temperature: 1.0,
            opening_stones: 4,
            random_move: 0.05,
            seed: 1,
            first_game: 0,
        }
    }
}

/// Plays `options.games` games with moves drawn from `teacher`'s policy and returns every
/// position as a labelled sample; `progress` is called with the games finished so far.
///
/// # Errors
/// [`MixnetError::Teacher`] when the teacher fails.
pub fn generate(
    teacher: &dyn Evaluator<Gomoku>,
    config: &GomokuConfig,
    options: &GenerateOptions,
    mut progress: impl FnMut(u32, usize),
) -> Result<Vec<Sample>, MixnetError> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(options.seed);
    let n = usize::from(config.size);
    let start = Gomoku::new(config);
    let mut samples = Vec::new();
    let mut next_game = 0u32;
    let mut finished = 0u32;
    let mut live: Vec<(u32, Gomoku)> = Vec::new();
    let mut logits = Vec::new();
    let mut values = Vec::new();
    let mut candidates = Vec::new();
    loop {
        while live.len() < options.parallel.max(1) as usize && next_game < options.games {
            let stones = rng.random_range(0..=options.opening_stones);
            let pos = if stones == 0 {
                start.clone()
            } else {
                match random_opening(&start, stones, rng.random()) {
                    Some(line) => line.current().clone(),
                    None => start.clone(),
                }
            };
            live.push((options.first_game + next_game, pos));
            next_game += 1;
        }
        if live.is_empty() {
            break;
        }
        let batch: Vec<EvalRequest<'_, Gomoku>> = live
            .iter()
            .map(|(_, pos)| EvalRequest {
                position: pos,
                history: &[],
            })
            .collect();
        logits.resize(batch.len() * n * n, 0.0);
        values.resize(batch.len(), 0.0);
        teacher
            .evaluate(&batch, &mut logits, &mut values)
            .map_err(|e| MixnetError::Teacher(e.to_string()))?;
        drop(batch);
        let mut still = Vec::with_capacity(live.len());
        for (i, (game, mut pos)) in live.drain(..).enumerate() {
            let row = &logits[i * n * n..(i + 1) * n * n];
            let sample = Sample::from_teacher(&pos, game, row, values[i]);
            let mv = if rng.random::<f32>() < options.random_move {
                pos.candidate_moves(&mut candidates);
                candidates[rng.random_range(0..candidates.len())]
            } else {
                let probs = legal_softmax(n, &sample.own, &sample.opp, row, options.temperature);
                let mut r: f32 = rng.random();
                let mut chosen = None;
                for (a, &p) in probs.iter().enumerate() {
                    if p > 0.0 {
                        chosen = Some(a);
                        if r < p {
                            break;
                        }
                        r -= p;
                    }
                }
                let a = chosen.expect("a live game has an empty point");
                GomokuMove::new((a % n) as u8, (a / n) as u8)
            };
            samples.push(sample);
            pos.play_unchecked(mv);
            if pos.outcome().is_some() || pos.stone_count() == n * n {
                finished += 1;
                progress(finished, samples.len());
            } else {
                still.push((game, pos));
            }
        }
        live = still;
    }
    Ok(samples)
}

/// File magic of a sample file.
const SAMPLES_MAGIC: &[u8; 8] = b"AZMIXDAT";
/// Version of the sample file layout.
const SAMPLES_VERSION: u32 = 1;

/// The bytes of a sample file: magic, version, the rule the games were played under, count,
/// the samples, a CRC-32 of all before.
pub fn samples_to_bytes(rule: Rule, samples: &[Sample]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(SAMPLES_MAGIC);
    out.extend_from_slice(&SAMPLES_VERSION.to_le_bytes());
    out.push(rule_byte(rule));
    out.extend_from_slice(&(samples.len() as u64).to_le_bytes());
    for s in samples {
        out.push(s.size);
        out.push(u8::from(s.black_to_move));
        out.extend_from_slice(&s.game.to_le_bytes());
        for rows in [&s.own, &s.opp] {
            for &r in &rows[..usize::from(s.size)] {
                out.extend_from_slice(&r.to_le_bytes());
            }
        }
        for &q in &s.policy {
            out.extend_from_slice(&q.to_le_bytes());
        }
        out.extend_from_slice(&s.value.to_le_bytes());
    }
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// The byte of a rule in the files.
pub(crate) fn rule_byte(rule: Rule) -> u8 {
    match rule {
        Rule::Freestyle => 0,
        Rule::Standard => 1,
        Rule::Renju => 2,
    }
}

/// The rule of a byte written by [`rule_byte`].
pub(crate) fn rule_of_byte(byte: u8) -> Option<Rule> {
    match byte {
        0 => Some(Rule::Freestyle),
        1 => Some(Rule::Standard),
        2 => Some(Rule::Renju),
        _ => None,
    }
}

/// Reads a sample file written by [`samples_to_bytes`]: the rule and the samples.
///
/// # Errors
/// [`MixnetError::Format`] naming what is wrong: not a sample file, another version, a
/// checksum mismatch (a damaged file), a truncated file or an impossible sample.
pub fn samples_from_bytes(bytes: &[u8]) -> Result<(Rule, Vec<Sample>), MixnetError> {
    let bad = |why: String| MixnetError::Format(format!("sample file: {why}"));
    if bytes.len() < 24 || &bytes[..8] != SAMPLES_MAGIC {
        return Err(bad("not a sample file (no AZMIXDAT magic)".into()));
    }
    let (body, tail) = bytes.split_at(bytes.len() - 4);
    let stored = u32::from_le_bytes(tail.try_into().expect("4 bytes"));
    if crc32fast::hash(body) != stored {
        return Err(bad("checksum mismatch: the file is damaged".into()));
    }
    let mut r = &body[8..];
    let version = read_u32(&mut r).map_err(bad)?;
    if version != SAMPLES_VERSION {
        return Err(bad(format!(
            "version {version}, this program reads version {SAMPLES_VERSION}"
        )));
    }
    let mut rule = [0u8];
    r.read_exact(&mut rule)
        .map_err(|_| bad("truncated".into()))?;
    let rule = rule_of_byte(rule[0]).ok_or_else(|| bad(format!("unknown rule {}", rule[0])))?;
    let count = read_u64(&mut r).map_err(bad)?;
    let mut samples = Vec::with_capacity(count.min(1 << 24) as usize);
    for i in 0..count {
        let mut head = [0u8; 2];
        r.read_exact(&mut head)
            .map_err(|_| bad(format!("truncated at sample {i}")))?;
        let size = head[0];
        if !(alphazero_gomoku::MIN_SIZE..=alphazero_gomoku::MAX_SIZE).contains(&size) {
            return Err(bad(format!("sample {i}: board size {size}")));
        }
        let n = usize::from(size);
        let game = read_u32(&mut r).map_err(bad)?;
        let mut own = [0u32; 20];
        let mut opp = [0u32; 20];
        for rows in [&mut own, &mut opp] {
            for row in rows.iter_mut().take(n) {
                *row = read_u32(&mut r).map_err(bad)?;
            }
        }
        let mut policy = Vec::with_capacity(n * n);
        for _ in 0..n * n {
            let mut b = [0u8; 2];
            r.read_exact(&mut b)
                .map_err(|_| bad(format!("truncated at sample {i}")))?;
            policy.push(u16::from_le_bytes(b));
        }
        let value = f32::from_le_bytes(read_u32(&mut r).map_err(bad)?.to_le_bytes());
        if !(-1.0..=1.0).contains(&value) {
            return Err(bad(format!("sample {i}: value {value} outside [-1, 1]")));
        }
        samples.push(Sample {
            size,
            black_to_move: head[1] != 0,
            game,
            own,
            opp,
            policy,
            value,
        });
    }
    if !r.is_empty() {
        return Err(bad(format!("{} bytes after the last sample", r.len())));
    }
    Ok((rule, samples))
}

fn read_u32(r: &mut &[u8]) -> Result<u32, String> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b).map_err(|_| "truncated".to_string())?;
    Ok(u32::from_le_bytes(b))
}

fn read_u64(r: &mut &[u8]) -> Result<u64, String> {
    let mut b = [0u8; 8];
    r.read_exact(&mut b).map_err(|_| "truncated".to_string())?;
    Ok(u64::from_le_bytes(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alphazero_mcts::UniformEvaluator;

    #[test]
    fn samples_survive_their_file_and_a_damaged_file_is_refused() {
        let config = GomokuConfig::new(9, Rule::Freestyle).unwrap();
        let options = GenerateOptions {
            games: 3,
            parallel: 2,
            ..GenerateOptions::default()
        };
        let samples = generate(&UniformEvaluator, &config, &options, |_, _| {}).unwrap();
        assert!(samples.len() >= 3 * 9, "games of at least 9 plies");
        let bytes = samples_to_bytes(Rule::Standard, &samples);
        assert_eq!(
            samples_from_bytes(&bytes).unwrap(),
            (Rule::Standard, samples)
        );
        let mut damaged = bytes.clone();
        damaged[40] ^= 1;
        let err = samples_from_bytes(&damaged).unwrap_err().to_string();
        assert!(err.contains("checksum"), "{err}");
        let err = samples_from_bytes(&bytes[..bytes.len() - 9])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("checksum") || err.contains("truncated"),
            "{err}"
        );
    }

    #[test]
    fn a_sample_is_the_position_from_the_side_to_move_with_pi_on_empty_points_only() {
        let config = GomokuConfig::new(9, Rule::Freestyle).unwrap();
        let mut pos = Gomoku::new(&config);
        for mv in ["e5", "e6", "f5"] {
            let mv = pos.parse_move(mv).unwrap();
            pos.play(mv).unwrap();
        }
        // White to move: its stone e6 is "own", black's e5 and f5 are "opp".
        let s = Sample::from_teacher(&pos, 7, &[0.0; 81], 0.25);
        assert!(!s.black_to_move);
        assert_eq!(s.own[5], 1 << 4);
        assert_eq!(s.opp[4], (1 << 4) | (1 << 5));
        let probs = s.probabilities();
        assert_eq!(probs[4 * 9 + 4], 0.0);
        let sum: f32 = probs.iter().sum();
        assert!((sum - 1.0).abs() < 1e-3, "{sum}");
        assert!((probs[0] - 1.0 / 78.0).abs() < 1e-4);
    }

    #[test]
    fn a_transformed_sample_is_the_sample_of_the_transformed_position() {
        let config = GomokuConfig::new(9, Rule::Freestyle).unwrap();
        let mut pos = Gomoku::new(&config);
        for mv in ["c3", "d7", "g2", "b8"] {
            let mv = pos.parse_move(mv).unwrap();
            pos.play(mv).unwrap();
        }
        let logits: Vec<f32> = (0..81).map(|i| (i as f32 * 0.37).sin()).collect();
        let s = Sample::from_teacher(&pos, 0, &logits, 0.0);
        for sym in 0..8 {
            let t = pos.transform(sym);
            let mut tl = vec![0.0; 81];
            for a in 0..81 {
                tl[pos.transform_action(sym, a)] = logits[a];
            }
            let want = Sample::from_teacher(&t, 0, &tl, 0.0);
            let got = s.transformed(sym);
            assert_eq!((got.own, got.opp), (want.own, want.opp), "symmetry {sym}");
            assert_eq!(got.policy, want.policy, "symmetry {sym}");
        }
    }
}
