//! The replay buffer: a ring of the most recent training positions, filled from finished
//! games and sampled with recency mixing, random board symmetries and optional hard-position
//! mining. It also keeps the moves of the games whose positions it holds, the positions
//! restarted self-play games start from ([`ReplayBuffer::restart_positions`]).
//!
//! # Symmetries
//! A sampled position is returned already transformed by its symmetry `s`
//! ([`Game::transform`]) and its policy target by [`Game::transform_action`] (applied with the
//! *original* position as receiver). The network must encode the returned, transformed
//! position; then the input planes and the policy target always move together.
//!
//! # Auxiliary targets
//! Every sample keeps its game's moves and last position ([`GameLine`], shared by the
//! game's samples), from which the auxiliary targets are computed when a sample is drawn,
//! never stored: the opponent's reply ([`BatchSample::reply`], transformed like π) and the
//! ownership map ([`ReplayBuffer::ownership`], transformed like the planes).

use std::collections::VecDeque;
use std::sync::Arc;

use alphazero_game::{count_repetitions, Game, History, Side};
use alphazero_registry::{Encode, PositionError, Registered};
use alphazero_selfplay::RestartPositions;
use rand::Rng;

use crate::config::RestartRule;
use crate::record::{GameRecord, GameResult, RecordFile};

/// Default number of positions a buffer holds.
pub const DEFAULT_CAPACITY: usize = 200_000;

/// The moves of one recorded game and the position it ends in, shared by its samples: what
/// the auxiliary targets are computed from.
#[derive(Clone, Debug, PartialEq)]
pub struct GameLine<G: Game> {
    /// Every move of the game, in order (fast playout-cap moves included), from its first
    /// ply: a restarted game's prefix ([`GameRecord::prefix`]) belongs to the earlier game
    /// and is not here.
    pub moves: Vec<G::Move>,
    /// The record's action index of each move (from the position it was played from).
    pub actions: Vec<u16>,
    /// The position after the last move (where a resigned or cut-off game stopped).
    pub end: G,
}

/// One training position.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample<G: Game> {
    /// The position (side to move included).
    pub position: G,
    /// How many times this position occurred earlier in its game (0 = first occurrence),
    /// saturated at 255; what repetition-aware input planes encode.
    pub repetitions: u8,
    /// The policy target π: sparse (action index, probability) in this position's action
    /// indexing; probabilities sum to ≈ 1.
    pub policy: Vec<(u16, f32)>,
    /// The game result z in {−1, 0, +1} **from the side to move of this position**.
    pub z: f32,
    /// The search's root value at this position, from the side to move.
    pub root_value: f32,
    /// Ply of this position in its game (0 = the start position).
    pub ply: u32,
    /// The id of the game it comes from.
    pub game_id: u64,
    /// The caller marked this position as hard (threat) for hard-position mining.
    pub threat: bool,
    /// Its game was cut off at the ply limit (`selfplay.max_plies`, record flag
    /// `truncated`): `z` (0) is no game result, and [`Sample::value_target`] uses the root
    /// value alone.
    pub truncated: bool,
    /// The game this position comes from.
    pub line: Arc<GameLine<G>>,
    /// The index in [`GameLine::moves`] of the move played from this position.
    pub move_index: u32,
}

impl<G: Game> Sample<G> {
    /// The value target `(1 − λ)·z + λ·q` for `q_weight` λ (clamped to [0, 1]): the game
    /// result z mixed with the search's root value q, both from the side to move of this
    /// position (see `train.value_q_weight`). A game cut off at the ply limit has no result,
    /// so its positions take λ = 1 (q alone) whatever `q_weight` is. A non-finite root value
    /// counts as z.
    pub fn value_target(&self, q_weight: f32) -> f32 {
        let l = if self.truncated {
            1.0
        } else {
            q_weight.clamp(0.0, 1.0)
        };
        if l == 0.0 || !self.root_value.is_finite() {
            return self.z;
        }
        ((1.0 - l) * self.z + l * self.root_value.clamp(-1.0, 1.0)).clamp(-1.0, 1.0)
    }

    /// The moves from this position to the end of its game, this position's own move first.
    pub fn continuation(&self) -> &[G::Move] {
        &self.line.moves[self.move_index as usize..]
    }

    /// The opponent's reply to this position's move, as the record's action index (of the
    /// position after this position's move); `None` when this position's move ends the game.
    pub fn reply_action(&self) -> Option<u16> {
        self.line.actions.get(self.move_index as usize + 1).copied()
    }
}

/// Plays the recorded `action` of ply `ply` of game `game_id`; returns its move.
fn play_action<G: Game>(
    history: &mut History<G>,
    action: u16,
    game_id: u64,
    ply: usize,
) -> Result<G::Move, ReplayError> {
    history
        .play_action(action)
        .map_err(|e| ReplayError::IllegalAction {
            game_id,
            ply,
            action,
            reason: e.to_string(),
        })
}

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

/// An error replaying a recorded game into the buffer. Carries the game id and ply.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The recorded action names no move, or the move is illegal in the replayed position.
    #[error("game {game_id}, ply {ply}: recorded action {action} cannot be played: {reason}")]
    IllegalAction {
        /// The game.
        game_id: u64,
        /// The ply of the position the action was played from, counted from the start
        /// position (a restarted game's prefix moves included).
        ply: usize,
        /// The recorded action index.
        action: u16,
        /// Why it cannot be played.
        reason: String,
    },
    /// A policy entry names an action outside the game's action space.
    #[error(
        "game {game_id}, ply {ply}: policy action {action} is outside the action space of {num_actions}"
    )]
    PolicyAction {
        /// The game.
        game_id: u64,
        /// The ply, counted from the start position (as in [`ReplayError::IllegalAction`]).
        ply: usize,
        /// The rejected action index.
        action: u16,
        /// The action-space size.
        num_actions: usize,
    },
    /// The start position of a recorded game (its start text) does not read.
    #[error("game {game_id}: bad start position")]
    Start {
        /// The game.
        game_id: u64,
        /// Why.
        #[source]
        source: PositionError,
    },
}

/// A game whose positions are in the buffer, as its moves: what restarts start from.
#[derive(Clone, Debug, PartialEq)]
struct BufferedGame<G: Game> {
    game_id: u64,
    /// A restarted game's prefix (the moves of the earlier game it restarted after).
    prefix: Vec<u16>,
    /// Whether it started from a position of its own (a random start), not the game's start
    /// position: its moves do not lead anywhere from there, so restarts skip it.
    own_start: bool,
    /// Its own plies (shared with its samples).
    line: Arc<GameLine<G>>,
    /// Per ply of its own: [`LOST`] and [`THREAT`] bits.
    marks: Vec<u8>,
    /// Its samples still in the buffer.
    samples: usize,
}

/// The side to move at this ply lost the game (decided by the rules or by resignation).
const LOST: u8 = 1;
/// The ply was marked threat.
const THREAT: u8 = 2;

/// A ring buffer of the `capacity` most recent [`Sample`]s, and the moves of the games they
/// come from.
#[derive(Clone, Debug)]
pub struct ReplayBuffer<G: Game> {
    slots: Vec<Sample<G>>,
    capacity: usize,
    /// The slot the next sample goes to.
    next: usize,
    total_added: u64,
    /// The games that have samples in the buffer (added by [`ReplayBuffer::add_game`]),
    /// oldest first.
    games: VecDeque<BufferedGame<G>>,
}

impl<G: Game> ReplayBuffer<G> {
    /// An empty buffer holding at most `capacity` positions (at least 1).
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        ReplayBuffer {
            slots: Vec::with_capacity(capacity.min(1 << 20)),
            capacity,
            next: 0,
            total_added: 0,
            games: VecDeque::new(),
        }
    }

    /// Maximum number of positions.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Number of positions held.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the buffer is empty.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Number of positions ever added (including those since overwritten).
    pub fn total_added(&self) -> u64 {
        self.total_added
    }

    /// Adds one sample, overwriting the oldest when full.
    pub fn push(&mut self, sample: Sample<G>) {
        if self.slots.len() < self.capacity {
            self.slots.push(sample);
        } else {
            let old = std::mem::replace(&mut self.slots[self.next], sample);
            // Samples leave in the order their games came in: the oldest game loses one.
            if let Some(g) = self.games.front_mut() {
                if g.game_id == old.game_id {
                    g.samples = g.samples.saturating_sub(1);
                }
            }
            while self.games.front().is_some_and(|g| g.samples == 0) {
                self.games.pop_front();
            }
        }
        self.next = (self.next + 1) % self.capacity;
        self.total_added += 1;
    }

    /// The number of games whose moves the buffer keeps (those with samples in it).
    pub fn games(&self) -> usize {
        self.games.len()
    }

    /// The positions of the buffer's games that `rule` picks (see [`RestartRule`]), for
    /// self-play games to restart from: of each game its own plies only (never a restarted
    /// game's prefix), never the start position; `window` is the `defend` rule's number of
    /// last positions of a game looked at for the losing side's turns. In the order of the
    /// games, oldest first, and of their plies.
    pub fn restart_positions(&self, rule: RestartRule, window: usize) -> RestartPositions {
        let mut out = RestartPositions::new();
        for g in self.games.iter().filter(|g| !g.own_start) {
            let n = g.marks.len();
            let picked = g.marks.iter().enumerate().filter(|&(i, &m)| match rule {
                RestartRule::Uniform => true,
                RestartRule::Defend => (m & LOST != 0 && n - i <= window) || m & THREAT != 0,
            });
            let lens: Vec<usize> = picked.map(|(i, _)| g.prefix.len() + i).collect();
            if !lens.is_empty() {
                let line = g.prefix.iter().chain(&g.line.actions).copied().collect();
                out.add_line(line, lens);
            }
        }
        out
    }

    fn slot_of_age(&self, age: usize) -> usize {
        (self.next + self.capacity - 1 - age) % self.capacity
    }

    /// The sample of the given age (0 = newest), or `None` when `age >= len()`.
    pub fn get(&self, age: usize) -> Option<&Sample<G>> {
        (age < self.len()).then(|| &self.slots[self.slot_of_age(age)])
    }

    /// The samples from oldest to newest.
    pub fn iter(&self) -> impl Iterator<Item = &Sample<G>> + '_ {
        (0..self.len())
            .rev()
            .map(move |age| &self.slots[self.slot_of_age(age)])
    }

    /// Replays a finished game from `start` (with a [`History`], so repetitions are counted)
    /// and adds one sample per ply searched with `simulations > 0` (fast playout-cap moves
    /// are skipped). A restarted game's prefix ([`GameRecord::prefix`]) is replayed first
    /// and adds no sample: its positions were the earlier game's, and the samples' history
    /// (repetitions, ply) includes it. z of each sample is the game result seen from that
    /// position's side to move; the samples of a game flagged `truncated` are marked
    /// [`Sample::truncated`]. The game is added whole or not at all; its moves are kept for
    /// [`ReplayBuffer::restart_positions`] while it has samples in the buffer. Returns the
    /// number of samples added.
    ///
    /// # Errors
    /// [`ReplayError::IllegalAction`] when a recorded move cannot be played,
    /// [`ReplayError::PolicyAction`] when π names an action outside the action space.
    pub fn add_game(
        &mut self,
        start: G,
        game: &GameRecord,
        game_id: u64,
    ) -> Result<usize, ReplayError> {
        let z_first = f32::from(game.result.z_first());
        let mut history = History::new(start);
        let own_from = game.prefix.len();
        for (ply, &action) in game.prefix.iter().enumerate() {
            play_action(&mut history, action, game_id, ply)?;
        }
        let loser = match game.result {
            _ if game.flags.truncated => None,
            GameResult::FirstWon => Some(Side::Second),
            GameResult::SecondWon => Some(Side::First),
            GameResult::Draw => None,
        };
        let mut marks = Vec::with_capacity(game.plies.len());
        let mut pending = Vec::with_capacity(game.plies.len());
        let mut moves = Vec::with_capacity(game.plies.len());
        // The samples get the game's line once it is replayed whole.
        let placeholder = Arc::new(GameLine {
            moves: Vec::new(),
            actions: Vec::new(),
            end: history.current().clone(),
        });
        for (own_index, ply) in game.plies.iter().enumerate() {
            let ply_index = own_from + own_index;
            let pos = history.current();
            marks.push(
                u8::from(loser == Some(pos.side_to_move())) * LOST + u8::from(ply.threat) * THREAT,
            );
            if ply.simulations > 0 {
                let num_actions = pos.num_actions();
                if let Some(&(action, _)) = ply
                    .policy
                    .iter()
                    .find(|&&(a, _)| usize::from(a) >= num_actions)
                {
                    return Err(ReplayError::PolicyAction {
                        game_id,
                        ply: ply_index,
                        action,
                        num_actions,
                    });
                }
                let reps = count_repetitions(history.entries(), pos.zobrist());
                pending.push(Sample {
                    position: pos.clone(),
                    repetitions: reps.min(255) as u8,
                    policy: ply.policy_f32().collect(),
                    z: match pos.side_to_move() {
                        Side::First => z_first,
                        Side::Second => -z_first,
                    },
                    root_value: ply.root_value,
                    ply: pos.ply(),
                    game_id,
                    threat: ply.threat,
                    truncated: game.flags.truncated,
                    line: Arc::clone(&placeholder),
                    move_index: own_index as u32,
                });
            }
            moves.push(play_action(&mut history, ply.action, game_id, ply_index)?);
        }
        let line = Arc::new(GameLine {
            moves,
            actions: game.plies.iter().map(|p| p.action).collect(),
            end: history.current().clone(),
        });
        let n = pending.len();
        for s in pending {
            self.push(Sample {
                line: Arc::clone(&line),
                ..s
            });
        }
        self.games.push_back(BufferedGame {
            game_id,
            prefix: game.prefix.clone(),
            own_start: !game.start.trim().is_empty(),
            line,
            marks,
            // A game longer than the buffer keeps only its newest positions.
            samples: n.min(self.capacity),
        });
        while self.games.front().is_some_and(|g| g.samples == 0) {
            self.games.pop_front();
        }
        Ok(n)
    }

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

impl<G: Registered> ReplayBuffer<G> {
    /// The position recorded game `game` (id `game_id`) starts from: `start` (the run's
    /// start position) when its start text is empty, else that text (a random start) read
    /// in `start`'s configuration by [`PositionText::parse_position`].
    ///
    /// [`PositionText::parse_position`]: alphazero_registry::PositionText::parse_position
    ///
    /// # Errors
    /// [`ReplayError::Start`] for a start text that does not read.
    pub fn start_of(start: &G, game: &GameRecord, game_id: u64) -> Result<G, ReplayError> {
        let text = game.start.trim();
        if text.is_empty() {
            return Ok(start.clone());
        }
        G::parse_position(start.config(), text)
            .map(|h| h.current().clone())
            .map_err(|source| ReplayError::Start { game_id, source })
    }

    /// Adds `games` (ids from `first_game_id` on, each played from
    /// [`ReplayBuffer::start_of`]) with [`ReplayBuffer::add_game`]; returns the number of
    /// samples added.
    ///
    /// # Errors
    /// The first error of [`ReplayBuffer::start_of`] or [`ReplayBuffer::add_game`]; the
    /// games before it stay added.
    pub fn add_games(
        &mut self,
        start: &G,
        first_game_id: u64,
        games: &[GameRecord],
    ) -> Result<u64, ReplayError> {
        let mut added = 0u64;
        for (i, g) in games.iter().enumerate() {
            let game_id = first_game_id + i as u64;
            added += self.add_game(Self::start_of(start, g, game_id)?, g, game_id)? as u64;
        }
        Ok(added)
    }

    /// Replays every game of `file` from [`ReplayBuffer::start_of`] as a resume's rebuild
    /// does, keeping nothing: whether the file's games would enter a buffer. Returns the
    /// number of samples they hold.
    ///
    /// # Errors
    /// The first error of [`ReplayBuffer::start_of`] or [`ReplayBuffer::add_game`].
    pub fn check_replays(start: &G, file: &RecordFile) -> Result<u64, ReplayError> {
        // A one-slot buffer: each game is still replayed and checked whole.
        ReplayBuffer::<G>::new(1).add_games(start, file.header.first_game_id, &file.games)
    }

    /// Rebuilds a buffer (for resume) from record files, oldest file first: every game is
    /// replayed with [`ReplayBuffer::add_game`] from [`ReplayBuffer::start_of`] under id
    /// `header.first_game_id + index`, and the buffer keeps the newest `capacity` positions.
    ///
    /// # Errors
    /// The errors of [`ReplayBuffer::start_of`] and [`ReplayBuffer::add_game`].
    pub fn rebuild_from(
        files: &[RecordFile],
        capacity: usize,
        start: &G,
    ) -> Result<Self, ReplayError> {
        let mut buf = ReplayBuffer::new(capacity);
        for file in files {
            buf.add_games(start, file.header.first_game_id, &file.games)?;
        }
        Ok(buf)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{GameFlags, GameResult, PlyRecord, RecordHeader};
    use alphazero_registry::games::{Connect4, Connect4Config};
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    /// A Connect Four game record from 0-based columns; π puts 0.75 on the played column and
    /// 0.25 on column 0 (or all on it when it is column 0); `fast` plies get 0 simulations.
    fn c4_game(cols: &[u16], result: GameResult, fast: &[usize]) -> GameRecord {
        GameRecord {
            start: String::new(),
            result,
            flags: GameFlags::default(),
            prefix: Vec::new(),
            plies: cols
                .iter()
                .enumerate()
                .map(|(i, &c)| {
                    let policy: Vec<(u16, f32)> = if c == 0 {
                        vec![(0, 1.0)]
                    } else {
                        vec![(c, 0.75), (0, 0.25)]
                    };
                    let sims = if fast.contains(&i) { 0 } else { 100 };
                    PlyRecord::new(c, &policy, 0.0, sims)
                })
                .collect(),
        }
    }

    fn start() -> Connect4 {
        Connect4::new(&Connect4Config)
    }

    #[test]
    fn value_target_mixes_z_with_the_root_value_from_the_same_side() {
        let mut buf = ReplayBuffer::new(100);
        let mut g = c4_game(&[0, 1, 0, 1, 0, 1, 0], GameResult::FirstWon, &[]);
        for (i, p) in g.plies.iter_mut().enumerate() {
            // The search's root value, from the side to move: the winner's positions +0.5.
            p.root_value = if i % 2 == 0 { 0.5 } else { -0.5 };
        }
        buf.add_game(start(), &g, 1).unwrap();
        for s in buf.iter() {
            assert_eq!(s.value_target(0.0), s.z);
            assert_eq!(s.value_target(1.0), s.root_value);
            let want = 0.5 * s.z + 0.5 * s.root_value;
            assert!((s.value_target(0.5) - want).abs() < 1e-6, "ply {}", s.ply);
            // Same sign as z here: both say the first player wins.
            assert_eq!(s.value_target(0.5).signum(), s.z.signum());
        }
        let mut odd = buf.get(0).unwrap().clone();
        odd.root_value = f32::NAN;
        assert_eq!(odd.value_target(0.5), odd.z);
    }

    #[test]
    fn truncated_game_samples_have_the_root_value_target_not_a_draw() {
        let mut g = c4_game(&[0, 1, 2, 3, 4, 5], GameResult::Draw, &[]);
        g.flags.truncated = true;
        for (i, p) in g.plies.iter_mut().enumerate() {
            p.root_value = if i % 2 == 0 { 0.6 } else { -0.6 };
        }
        let mut buf = ReplayBuffer::new(100);
        buf.add_game(start(), &g, 4).unwrap();
        assert_eq!(buf.len(), 6);
        for s in buf.iter() {
            assert!(s.truncated);
            assert_eq!(s.z, 0.0);
            for lambda in [0.0, 0.5, 1.0] {
                assert_eq!(s.value_target(lambda), s.root_value, "ply {}", s.ply);
            }
        }
        // The same moves as a genuine draw keep z for λ = 0.
        g.flags.truncated = false;
        let mut buf = ReplayBuffer::new(100);
        buf.add_game(start(), &g, 5).unwrap();
        assert!(buf
            .iter()
            .all(|s| !s.truncated && s.value_target(0.0) == 0.0));
    }

    #[test]
    fn ring_keeps_the_newest_capacity_positions() {
        let mut buf = ReplayBuffer::new(5);
        let n = buf
            .add_game(
                start(),
                &c4_game(&[0, 1, 2, 3, 4, 5, 6, 0], GameResult::Draw, &[]),
                7,
            )
            .unwrap();
        assert_eq!((n, buf.len(), buf.total_added()), (8, 5, 8));
        let plies: Vec<u32> = buf.iter().map(|s| s.ply).collect();
        assert_eq!(plies, vec![3, 4, 5, 6, 7]);
        assert_eq!(buf.get(0).unwrap().ply, 7);
        assert_eq!(buf.get(4).unwrap().ply, 3);
        assert!(buf.get(5).is_none());
        assert!(buf.iter().all(|s| s.game_id == 7));
    }

    #[test]
    fn z_is_from_the_side_to_move_and_fast_plies_are_skipped() {
        let mut buf = ReplayBuffer::new(100);
        // First player plays column 0 four times and wins.
        let g = c4_game(&[0, 1, 0, 1, 0, 1, 0], GameResult::FirstWon, &[2]);
        assert_eq!(buf.add_game(start(), &g, 1).unwrap(), 6);
        for s in buf.iter() {
            assert_ne!(s.ply, 2);
            let expected = if s.ply % 2 == 0 { 1.0 } else { -1.0 };
            assert_eq!(s.z, expected, "ply {}", s.ply);
        }
        let mut buf = ReplayBuffer::new(100);
        buf.add_game(start(), &c4_game(&[3, 3], GameResult::SecondWon, &[]), 2)
            .unwrap();
        let z: Vec<f32> = buf.iter().map(|s| s.z).collect();
        assert_eq!(z, vec![-1.0, 1.0]);
    }

    #[test]
    fn illegal_recorded_move_rejects_the_whole_game() {
        let mut buf = ReplayBuffer::new(100);
        // Column 0 holds six stones; the seventh drop is illegal.
        let g = c4_game(&[0, 0, 0, 0, 0, 0, 0], GameResult::Draw, &[]);
        match buf.add_game(start(), &g, 9) {
            Err(ReplayError::IllegalAction {
                game_id: 9,
                ply,
                action: 0,
                ..
            }) => assert_eq!(ply, 6),
            other => panic!("{other:?}"),
        }
        assert!(buf.is_empty());
        let mut bad = c4_game(&[3], GameResult::Draw, &[]);
        bad.plies[0].policy.push((7, 1));
        assert!(matches!(
            buf.add_game(start(), &bad, 3),
            Err(ReplayError::PolicyAction { action: 7, .. })
        ));
    }

    #[test]
    fn symmetry_moves_position_and_policy_together() {
        let mut buf = ReplayBuffer::new(100);
        buf.add_game(start(), &c4_game(&[1, 2, 5], GameResult::Draw, &[]), 1)
            .unwrap();
        let mut rng = StdRng::seed_from_u64(7);
        let opts = SampleOptions::default();
        let batch = buf.sample_batch(200, &mut rng, &opts);
        let mut seen = [false; 2];
        for b in &batch {
            seen[b.symmetry] = true;
            let original = buf.get(b.age).unwrap();
            assert_eq!(b.sample.position, original.position.transform(b.symmetry));
            let legal: Vec<usize> = b
                .sample
                .position
                .legal_moves_vec()
                .into_iter()
                .map(|m| b.sample.position.move_to_action(m))
                .collect();
            for (&(a, p), &(oa, op)) in b.sample.policy.iter().zip(&original.policy) {
                assert_eq!(p, op);
                let expected = if b.symmetry == 1 { 6 - oa } else { oa };
                assert_eq!(a, expected);
                assert!(legal.contains(&usize::from(a)));
            }
            // The played move's column carries 0.75 and is mirrored with the board.
            let played = original.policy[0].0;
            if b.symmetry == 1 {
                assert_eq!(b.sample.policy[0], (6 - played, original.policy[0].1));
            }
        }
        assert!(seen[0] && seen[1]);
    }

    #[test]
    fn reply_target_is_the_next_recorded_move_and_moves_with_the_symmetry() {
        let mut buf = ReplayBuffer::new(100);
        // The second ply is a fast playout-cap move: no sample, but still the first one's
        // reply.
        buf.add_game(start(), &c4_game(&[1, 2, 5, 0], GameResult::Draw, &[1]), 1)
            .unwrap();
        let replies: Vec<(u32, Option<u16>)> =
            buf.iter().map(|s| (s.ply, s.reply_action())).collect();
        assert_eq!(replies, vec![(0, Some(2)), (2, Some(0)), (3, None)]);
        let batch = buf.sample_batch(
            100,
            &mut StdRng::seed_from_u64(3),
            &SampleOptions::default(),
        );
        let mut seen = [false; 2];
        for b in &batch {
            seen[b.symmetry] = true;
            let want = buf.get(b.age).unwrap().reply_action();
            let want = want.map(|a| if b.symmetry == 1 { 6 - a } else { a });
            assert_eq!(
                b.reply, want,
                "ply {} symmetry {}",
                b.sample.ply, b.symmetry
            );
        }
        assert!(seen[0] && seen[1]);
    }

    #[test]
    fn ownership_target_lies_on_the_drawn_planes() {
        use alphazero_registry::Encode;
        let mut buf = ReplayBuffer::new(100);
        // An asymmetric game, so that the mirror changes the map.
        buf.add_game(
            start(),
            &c4_game(&[0, 0, 1, 2, 1, 6, 1], GameResult::SecondWon, &[]),
            1,
        )
        .unwrap();
        let batch = buf.sample_batch(60, &mut StdRng::seed_from_u64(9), &SampleOptions::default());
        let (mut map, mut planes) = (vec![0f32; 42], vec![0f32; 84]);
        let mut mirrored_differs = false;
        for b in &batch {
            buf.ownership(b, &mut map);
            let s = &b.sample;
            // Connect Four's map is the final board seen from the side to move: the drawn
            // position's own discs (plane 0) are +1, the opponent's (plane 1) −1.
            s.position.encode(0, &mut planes);
            for p in 0..42 {
                if planes[p] == 1.0 {
                    assert_eq!(map[p], 1.0, "own disc at {p}, symmetry {}", b.symmetry);
                }
                if planes[42 + p] == 1.0 {
                    assert_eq!(map[p], -1.0, "opponent disc at {p}");
                }
            }
            let mut want = vec![0f32; 42];
            s.position
                .ownership(&[], &s.line.end.transform(b.symmetry), &mut want);
            assert_eq!(map, want, "ply {} symmetry {}", s.ply, b.symmetry);
            assert_eq!(map.iter().filter(|&&v| v != 0.0).count(), 7);
            if b.symmetry == 1 {
                let original = buf.get(b.age).unwrap();
                let mut unmirrored = vec![0f32; 42];
                original.position.ownership(
                    original.continuation(),
                    &original.line.end,
                    &mut unmirrored,
                );
                mirrored_differs |= unmirrored != map;
            }
        }
        assert!(mirrored_differs);
    }

    #[test]
    fn sampling_is_deterministic_for_a_seed() {
        let mut buf = ReplayBuffer::new(50);
        for id in 0..5 {
            buf.add_game(
                start(),
                &c4_game(&[3, 2, 4, 1, 5], GameResult::Draw, &[]),
                id,
            )
            .unwrap();
        }
        let opts = SampleOptions {
            recent_fraction: 0.25,
            recent_window: 5,
            ..SampleOptions::default()
        };
        let a = buf.sample_batch(64, &mut StdRng::seed_from_u64(42), &opts);
        let b = buf.sample_batch(64, &mut StdRng::seed_from_u64(42), &opts);
        let c = buf.sample_batch(64, &mut StdRng::seed_from_u64(43), &opts);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(ReplayBuffer::<Connect4>::new(3)
            .sample_batch(4, &mut StdRng::seed_from_u64(1), &opts)
            .is_empty());
    }

    #[test]
    fn recent_part_draws_only_from_the_window() {
        let mut buf = ReplayBuffer::new(100);
        for id in 0..10 {
            buf.add_game(start(), &c4_game(&[3, 3, 3], GameResult::Draw, &[]), id)
                .unwrap();
        }
        let opts = SampleOptions {
            recent_fraction: 0.5,
            recent_window: 3,
            symmetries: false,
            ..SampleOptions::default()
        };
        let batch = buf.sample_batch(100, &mut StdRng::seed_from_u64(5), &opts);
        assert!(batch[..50]
            .iter()
            .all(|b| b.age < 3 && b.sample.game_id == 9));
        assert!(batch[50..].iter().any(|b| b.age >= 3));
        assert!(batch.iter().all(|b| b.symmetry == 0));
    }

    #[test]
    fn hard_mining_oversamples_threat_positions() {
        let mut buf = ReplayBuffer::new(100);
        let mut g = c4_game(&[0, 1, 2, 3, 4, 5, 6, 0, 1, 2], GameResult::Draw, &[]);
        g.plies[4].threat = true;
        buf.add_game(start(), &g, 0).unwrap();
        let count = |hard| {
            let opts = SampleOptions {
                hard_mining: hard,
                threat_weight: 4.0,
                ..SampleOptions::default()
            };
            buf.sample_batch(4000, &mut StdRng::seed_from_u64(11), &opts)
                .iter()
                .filter(|b| b.sample.threat)
                .count() as f64
                / 4000.0
        };
        let (plain, hard) = (count(false), count(true));
        // Expected 1/10 without and 4/13 ≈ 0.31 with mining.
        assert!((plain - 0.1).abs() < 0.03, "{plain}");
        assert!((hard - 4.0 / 13.0).abs() < 0.04, "{hard}");
    }

    #[test]
    fn rebuild_from_records_matches_incremental_adds() {
        let games = vec![
            c4_game(&[3, 3, 2], GameResult::Draw, &[]),
            c4_game(&[0, 1, 2, 3], GameResult::FirstWon, &[1]),
        ];
        let file = RecordFile {
            header: RecordHeader {
                game: "connect4".into(),
                config: String::new(),
                num_actions: 7,
                first_game_id: 10,
            },
            games: games.clone(),
        };
        let rebuilt =
            ReplayBuffer::rebuild_from(&[file], 4, &Connect4::new(&Default::default())).unwrap();
        let mut inc = ReplayBuffer::new(4);
        inc.add_game(start(), &games[0], 10).unwrap();
        inc.add_game(start(), &games[1], 11).unwrap();
        let a: Vec<_> = rebuilt.iter().cloned().collect();
        let b: Vec<_> = inc.iter().cloned().collect();
        assert_eq!(a, b);
        assert_eq!(a.len(), 4);
        assert_eq!(a[0].game_id, 10);
    }

    mod walk {
        //! A tiny test game with reversible moves (so positions repeat): a token on cells
        //! 0..=6 moves one step left or right; no one wins, the game is drawn at ply 12.
        use alphazero_game::{Game, Outcome, ParseError, Side};
        use std::fmt;

        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct Walk {
            pub x: u8,
            pub ply: u32,
        }

        impl fmt::Display for Walk {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "x={} ply={}", self.x, self.ply)
            }
        }

        impl Game for Walk {
            type Move = u8;
            type Config = ();
            const NAME: &'static str = "walk";
            fn new(_: &()) -> Self {
                Walk { x: 3, ply: 0 }
            }
            fn config(&self) -> &() {
                &()
            }
            fn side_to_move(&self) -> Side {
                if self.ply.is_multiple_of(2) {
                    Side::First
                } else {
                    Side::Second
                }
            }
            fn ply(&self) -> u32 {
                self.ply
            }
            fn legal_moves(&self, out: &mut Vec<u8>) {
                out.clear();
                if self.ply >= 12 {
                    return;
                }
                if self.x > 0 {
                    out.push(self.x - 1);
                }
                if self.x < 6 {
                    out.push(self.x + 1);
                }
            }
            fn play_unchecked(&mut self, mv: u8) {
                self.x = mv;
                self.ply += 1;
            }
            fn outcome(&self) -> Option<Outcome> {
                (self.ply >= 12).then_some(Outcome::Draw)
            }
            fn is_irreversible(&self, _: u8) -> bool {
                false
            }
            fn zobrist(&self) -> u64 {
                u64::from(self.x) * 2 + self.ply as u64 % 2 + 1
            }
            fn zobrist_from_scratch(&self) -> u64 {
                self.zobrist()
            }
            fn num_actions(&self) -> usize {
                7
            }
            fn move_to_action(&self, mv: u8) -> usize {
                mv as usize
            }
            fn action_to_move(&self, a: usize) -> Option<u8> {
                (a < 7).then_some(a as u8)
            }
            fn num_symmetries(&self) -> usize {
                2
            }
            fn transform_action(&self, sym: usize, a: usize) -> usize {
                if sym == 1 {
                    6 - a
                } else {
                    a
                }
            }
            fn transform(&self, sym: usize) -> Self {
                Walk {
                    x: if sym == 1 { 6 - self.x } else { self.x },
                    ply: self.ply,
                }
            }
            fn parse_move(&self, text: &str) -> Result<u8, ParseError> {
                text.parse()
                    .map_err(|_| ParseError::new("move", text, "not a cell"))
            }
            fn board_shape(&self) -> (usize, usize) {
                (1, 7)
            }
        }
    }

    #[test]
    fn a_restarted_game_trains_only_its_own_plies_with_its_own_result() {
        // Restarted after the earlier game's first three moves (columns 0, 1, 0); this game
        // (five plies of its own) was won by the second player.
        let mut g = c4_game(&[3, 4, 5, 6, 2], GameResult::SecondWon, &[]);
        g.prefix = vec![0, 1, 0];
        let mut buf = ReplayBuffer::new(100);
        assert_eq!(buf.add_game(start(), &g, 5).unwrap(), 5);
        let samples: Vec<&Sample<Connect4>> = buf.iter().collect();
        // The first sample is the position after the prefix, second player to move.
        assert_eq!(samples[0].position, Connect4::from_moves("121").unwrap());
        assert_eq!(samples[0].ply, 3);
        // Its game line is its own plies: the reply and the continuation start there.
        assert_eq!(samples[0].reply_action(), Some(4));
        assert_eq!(samples[0].continuation().len(), 5);
        assert_eq!(
            samples[0].line.end,
            Connect4::from_moves("12145673").unwrap()
        );
        for s in &samples {
            // z from this game's result (second player won), from the side to move.
            let want = if s.ply % 2 == 1 { 1.0 } else { -1.0 };
            assert_eq!(s.z, want, "ply {}", s.ply);
        }
        // An illegal prefix move names its ply from the start position.
        let mut bad = c4_game(&[3], GameResult::Draw, &[]);
        bad.prefix = vec![0; 7];
        match buf.add_game(start(), &bad, 6) {
            Err(ReplayError::IllegalAction {
                ply: 6, action: 0, ..
            }) => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_restarted_games_repetitions_count_the_prefix_positions() {
        use walk::Walk;
        // Prefix 3 → 4 → 3: the restart position (x 3, first to move) already occurred twice.
        let g = GameRecord {
            start: String::new(),
            result: GameResult::Draw,
            flags: GameFlags::default(),
            prefix: vec![4, 3, 4, 3],
            plies: [4u16, 3]
                .iter()
                .map(|&a| PlyRecord::new(a, &[(a, 1.0)], 0.0, 10))
                .collect(),
        };
        let mut buf = ReplayBuffer::new(10);
        buf.add_game(Walk::new(&()), &g, 0).unwrap();
        let got: Vec<(u32, u8)> = buf.iter().map(|s| (s.ply, s.repetitions)).collect();
        assert_eq!(got, vec![(4, 2), (5, 2)]);
    }

    /// The restart positions of `buf` as move lists.
    fn restarts(buf: &ReplayBuffer<Connect4>, rule: RestartRule, window: usize) -> Vec<Vec<u16>> {
        let p = buf.restart_positions(rule, window);
        (0..p.len()).map(|i| p.get(i).unwrap().to_vec()).collect()
    }

    #[test]
    fn defend_picks_the_losers_last_turns_and_threats_uniform_picks_every_position() {
        let mut buf = ReplayBuffer::new(100);
        // Game 1: the first player wins at ply 7 (column 0 four times); the second player,
        // who lost, was to move at plies 1, 3, 5.
        buf.add_game(
            start(),
            &c4_game(&[0, 1, 0, 1, 0, 1, 0], GameResult::FirstWon, &[]),
            1,
        )
        .unwrap();
        // Game 2: a draw with a threat marked at its ply 2, and a fast ply (still a position).
        let mut draw = c4_game(&[3, 3, 2, 2], GameResult::Draw, &[1]);
        draw.plies[2].threat = true;
        buf.add_game(start(), &draw, 2).unwrap();
        // Game 3: cut at the ply limit: no loser.
        let mut cut = c4_game(&[4, 4, 5], GameResult::Draw, &[]);
        cut.flags.truncated = true;
        buf.add_game(start(), &cut, 3).unwrap();
        // Game 4: restarted after 6, 6 (columns); the second player wins by resignation
        // after four plies of its own; the first player (to move at own plies 0 and 2) lost.
        let mut resigned = c4_game(&[2, 5, 2, 5], GameResult::SecondWon, &[]);
        resigned.prefix = vec![6, 6];
        resigned.flags.resigned = true;
        buf.add_game(start(), &resigned, 4).unwrap();
        let line1 = [0u16, 1, 0, 1, 0, 1, 0];
        let defend = restarts(&buf, RestartRule::Defend, 4);
        assert_eq!(
            defend,
            vec![
                // Game 1's last four positions are plies 3..=6; the loser moved at 3 and 5.
                line1[..3].to_vec(),
                line1[..5].to_vec(),
                vec![3, 3],
                // Game 4: own plies 0 and 2 (from the start: 2 and 4), never its prefix.
                vec![6, 6],
                vec![6, 6, 2, 5],
            ]
        );
        // A window of 1: the last position of games 1 and 4 was the winner's turn, so only
        // the threat is left.
        assert_eq!(restarts(&buf, RestartRule::Defend, 1), vec![vec![3, 3]]);
        let uniform = restarts(&buf, RestartRule::Uniform, 4);
        // Every position but the start: 6 + 3 + 2 of games 1–3, all 4 own ones of game 4.
        assert_eq!(uniform.len(), 6 + 3 + 2 + 4);
        assert!(uniform.iter().all(|p| !p.is_empty()));
        assert!(
            !uniform.contains(&vec![6]),
            "a prefix position is the earlier game's"
        );
    }

    #[test]
    fn restart_positions_follow_the_games_still_in_the_buffer() {
        let mut buf = ReplayBuffer::new(6);
        let won = || c4_game(&[0, 1, 0, 1, 0, 1, 0], GameResult::FirstWon, &[]);
        buf.add_game(start(), &won(), 1).unwrap();
        assert_eq!(buf.games(), 1);
        // The next game pushes every sample of the first out: its moves go with them.
        buf.add_game(
            start(),
            &c4_game(&[3, 3, 3, 3, 3, 3], GameResult::Draw, &[]),
            2,
        )
        .unwrap();
        assert_eq!(buf.games(), 1);
        assert_eq!(restarts(&buf, RestartRule::Uniform, 4).len(), 5);
        assert!(restarts(&buf, RestartRule::Defend, 4).is_empty());
        // Partly overwritten games stay while one of their samples is left.
        buf.add_game(start(), &c4_game(&[2, 2], GameResult::Draw, &[]), 3)
            .unwrap();
        assert_eq!(buf.games(), 2);
        // A rebuilt buffer keeps the same games.
        let file = RecordFile {
            header: RecordHeader {
                game: "connect4".into(),
                config: String::new(),
                num_actions: 7,
                first_game_id: 1,
            },
            games: vec![
                won(),
                c4_game(&[3, 3, 3, 3, 3, 3], GameResult::Draw, &[]),
                c4_game(&[2, 2], GameResult::Draw, &[]),
            ],
        };
        let rebuilt = ReplayBuffer::rebuild_from(&[file], 6, &start()).unwrap();
        assert_eq!(
            restarts(&rebuilt, RestartRule::Uniform, 4),
            restarts(&buf, RestartRule::Uniform, 4)
        );
    }

    #[test]
    fn repetitions_are_counted_from_the_game_history() {
        use walk::Walk;
        // 3 → 4 → 3 → 4 → 3: positions (x, side) repeat every two plies.
        let g = GameRecord {
            start: String::new(),
            result: GameResult::Draw,
            flags: GameFlags::default(),
            prefix: Vec::new(),
            plies: [4u16, 3, 4, 3, 2]
                .iter()
                .map(|&a| PlyRecord::new(a, &[(a, 1.0)], 0.0, 10))
                .collect(),
        };
        let mut buf = ReplayBuffer::new(10);
        buf.add_game(Walk::new(&()), &g, 0).unwrap();
        let reps: Vec<u8> = buf.iter().map(|s| s.repetitions).collect();
        assert_eq!(reps, vec![0, 0, 1, 1, 2]);
    }
}
