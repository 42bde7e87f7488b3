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
//!
//! # Batches
//! [`BatchEncoder`] builds the network's training batches: the drawn samples encoded as
//! planes, legal moves, π, the value target and the auxiliary targets (the `batch` file,
//! with the drawing itself, [`ReplayBuffer::sample_batch`]).

use std::collections::VecDeque;
use std::sync::Arc;

use alphazero_game::{count_repetitions, Game, History, Side};
use alphazero_registry::{PositionError, Registered};
use alphazero_selfplay::RestartPositions;

use crate::config::RestartRule;
use crate::record::{GameRecord, GameResult, RecordFile};

mod batch;

pub use batch::{BatchEncoder, BatchSample, SampleOptions};

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

#[cfg(test)]
mod tests;
