//! The `Game` trait that every board game of alphazero-rs implements.
//!
//! Everything above this crate (search, network, self-play, arena, protocols) is generic over
//! [`Game`]; nothing above it names a specific game. The trait follows the shape of
//! shakmaty's `Position`: a position type that is `Clone + Eq + Hash`, a `Move` type, legal
//! moves, checked and unchecked play, an outcome from the side to move, a fixed action space
//! with move ↔ action-index conversion, the board symmetries as permutations of action
//! indices, and an incrementally updated 64-bit Zobrist hash.
//!
//! History (what repetition rules need) lives outside the position, in [`History`].
//!
//! Code above this crate sees a game only through the trait, as here (Connect Four from its
//! own crate):
//!
//! ```
//! use alphazero_connect4::Connect4;
//! use alphazero_game::{Game, History, Outcome, Side};
//!
//! /// Plays the first legal move until the game ends: works for every game.
//! fn play_out<G: Game>(start: G) -> History<G> {
//!     let mut history = History::new(start);
//!     while history.outcome().is_none() {
//!         let mv = history.current().legal_moves_vec()[0];
//!         history.play(mv).expect("a legal move is accepted");
//!     }
//!     history
//! }
//!
//! let start = Connect4::new(&Default::default());
//! assert_eq!(start.side_to_move(), Side::First);
//! // Moves and the network's action indices convert both ways.
//! for mv in start.legal_moves_vec() {
//!     assert_eq!(start.action_to_move(start.move_to_action(mv)), Some(mv));
//! }
//! // Columns fill left to right, so every row is one colour: the first player's four on
//! // the bottom row come with the 19th move, and the side to move then has lost.
//! let game = play_out(start);
//! assert_eq!(game.moves().len(), 19);
//! assert_eq!(game.outcome(), Some(Outcome::Loss));
//! assert_eq!(game.current().side_to_move(), Side::Second);
//! ```
#![deny(missing_docs)]

use std::fmt::{Debug, Display};
use std::hash::Hash;

/// Which player is to move. `First` moves first: Black in Gomoku/Renju, Red in Xiangqi,
/// the first player in Connect Four.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// The player who moves first (Gomoku: black, Xiangqi: red).
    First,
    /// The player who moves second (Gomoku: white, Xiangqi: black).
    Second,
}

impl Side {
    /// The other side.
    #[inline]
    pub fn opponent(self) -> Side {
        match self {
            Side::First => Side::Second,
            Side::Second => Side::First,
        }
    }

    /// 0 for `First`, 1 for `Second`.
    #[inline]
    pub fn index(self) -> usize {
        match self {
            Side::First => 0,
            Side::Second => 1,
        }
    }
}

/// The result of a finished game, **from the point of view of the side to move** in the
/// final position. After a winning move the side to move is the loser, so a won game usually
/// reads `Loss`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The side to move has won.
    Win,
    /// The side to move has lost.
    Loss,
    /// Draw.
    Draw,
}

impl Outcome {
    /// The game value z in {+1, 0, -1} from the side to move.
    #[inline]
    pub fn value(self) -> f32 {
        match self {
            Outcome::Win => 1.0,
            Outcome::Loss => -1.0,
            Outcome::Draw => 0.0,
        }
    }

    /// The same result seen from the other side.
    #[inline]
    pub fn flip(self) -> Outcome {
        match self {
            Outcome::Win => Outcome::Loss,
            Outcome::Loss => Outcome::Win,
            Outcome::Draw => Outcome::Draw,
        }
    }

    /// The winner, given the side to move of the position this outcome was read from.
    pub fn winner(self, side_to_move: Side) -> Option<Side> {
        match self {
            Outcome::Win => Some(side_to_move),
            Outcome::Loss => Some(side_to_move.opponent()),
            Outcome::Draw => None,
        }
    }
}

/// A move that was refused by [`Game::play`]. Carries the rejected move as text and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("illegal move {mv}: {reason}")]
pub struct IllegalMove {
    /// The rejected move, formatted in the game's notation.
    pub mv: String,
    /// Why it was rejected (e.g. "point is occupied", "game is over").
    pub reason: String,
}

/// A string that could not be parsed (move, position, rule name, …). Carries the input
/// whole; its message quotes it shortened by [`quoted_excerpt`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot parse {what} {}: {reason}", quoted_excerpt(.input))]
pub struct ParseError {
    /// What was being parsed ("move", "FEN", "board size", …).
    pub what: &'static str,
    /// The rejected input.
    pub input: String,
    /// Why it was rejected.
    pub reason: String,
}

/// The longest input (in characters) that error messages quote whole.
pub const QUOTED_INPUT_MAX: usize = 80;

/// `text` quoted as `{:?}` does when it has at most [`QUOTED_INPUT_MAX`] characters;
/// otherwise its first 60 characters quoted, then `…` and the whole length, so that a
/// message about a pasted megabyte stays one line.
pub fn quoted_excerpt(text: &str) -> String {
    let n = text.chars().count();
    if n <= QUOTED_INPUT_MAX {
        return format!("{text:?}");
    }
    let head: String = text.chars().take(60).collect();
    format!("{head:?}… ({n} characters)")
}

impl ParseError {
    /// Builds a parse error.
    pub fn new(what: &'static str, input: impl Into<String>, reason: impl Into<String>) -> Self {
        ParseError {
            what,
            input: input.into(),
            reason: reason.into(),
        }
    }
}

/// What the repetition rules need to know about one earlier position of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HistoryEntry {
    /// Zobrist hash of that position (includes the side to move).
    pub hash: u64,
    /// Whether the side to move in that position was in check (so the previous move gave check).
    pub in_check: bool,
    /// Whether the move that led *to* this position was irreversible (a capture, a pawn
    /// move, a stone drop): no earlier position can repeat across it.
    pub irreversible: bool,
}

/// A two-player, zero-sum, perfect-information board game.
///
/// Implementations hold the position only; repetition rules read a [`History`].
/// `Eq` and `Hash` compare the full position (board, side to move, counters that matter).
pub trait Game: Clone + Eq + Hash + Debug + Display + Send + Sync + 'static {
    /// A move of this game.
    type Move: Copy + Eq + Hash + Debug + Display + Send + Sync + 'static;
    /// Rules and size options (e.g. Gomoku board size and rule). `Default` is the standard game.
    type Config: Clone + Debug + Default + PartialEq + Send + Sync + 'static;

    /// Short lower-case name used on the command line and in files (`gomoku`, `xiangqi`, `connect4`).
    const NAME: &'static str;

    /// The start position for a configuration.
    fn new(config: &Self::Config) -> Self;

    /// The configuration this position was created with.
    fn config(&self) -> &Self::Config;

    /// The side to move.
    fn side_to_move(&self) -> Side;

    /// Number of plies played since the start position (or since the position set-up).
    fn ply(&self) -> u32;

    /// Appends every legal move to `out` (which is cleared first). No allocation beyond `out`.
    fn legal_moves(&self, out: &mut Vec<Self::Move>);

    /// The moves the search should consider, appended to `out` (cleared first). Defaults to
    /// all legal moves; a game may restrict it (Gomoku: empty points near stones; renju:
    /// black's forbidden points are left out). Must be a non-empty subset of the legal moves
    /// whenever a legal move exists.
    fn candidate_moves(&self, out: &mut Vec<Self::Move>) {
        self.legal_moves(out)
    }

    /// The search's candidate moves (what [`Game::candidate_moves`] gives) and whether they
    /// are **complete**: whether they provably contain every move that could change the
    /// game-theoretic result here, so that a solver may prove the position lost (or drawn)
    /// from these moves alone. Defaults to the candidate moves, complete when they are all the
    /// legal moves. Gomoku narrows the set to the forced replies when a five is threatened.
    fn search_moves(&self, out: &mut Vec<Self::Move>) -> bool {
        self.candidate_moves(out);
        let n = out.len();
        let mut all = Vec::new();
        self.legal_moves(&mut all);
        all.len() == n
    }

    /// When the opponent would win by force if the side to move passed (Gomoku: a VCF found
    /// within `budget` nodes), the moves that can still stop it, in `out` (cleared first):
    /// every legal move left out provably loses to that same win, so the set is complete in
    /// [`Game::search_moves`]' sense, and a search may look at these moves alone. `false`
    /// (`out` unspecified) when there is no such threat or the game cannot narrow its moves
    /// this way (the default).
    fn threat_replies(&self, budget: u32, out: &mut Vec<Self::Move>) -> bool {
        let _ = (budget, out);
        false
    }

    /// A result proven by the game's own tactical search, from the side to move, spending
    /// at most `budget` nodes of it (Gomoku: a five now, an unstoppable five of the opponent,
    /// a VCF). `None` when nothing was proven (always, by default). A `Win` names the winning
    /// first move in [`TacticalProof::best`], which must be one of [`Game::search_moves`].
    fn tactical_proof(&self, budget: u32) -> Option<TacticalProof<Self::Move>> {
        let _ = budget;
        None
    }

    /// A deeper, costlier tactical search for the root of a search (Gomoku: VCT, threats of
    /// three and four), at most `budget` nodes. Defaults to [`Game::tactical_proof`].
    fn root_tactical_proof(&self, budget: u32) -> Option<TacticalProof<Self::Move>> {
        self.tactical_proof(budget)
    }

    /// Whether the opponent might win by force if the side to move passed (a null-move
    /// threat), as far as the deeper tactics ([`Game::root_tactical_proof`]) tell within
    /// `budget` nodes. `false` promises that after **any** move of the side to move the
    /// opponent's [`Game::root_tactical_proof`] finds no win either (a move can only get in
    /// the opponent's way), so a search may skip checking each reply. Default `true`.
    fn opponent_may_force_win(&self, budget: u32) -> bool {
        let _ = budget;
        true
    }

    /// Whether some legal move here may end the game at once (what [`Game::adjudicate`] would
    /// say of the position after it). `false` promises that no move does, so that a search's
    /// decisive-move check need not play each one to see. Default `true`.
    fn may_end_in_one(&self) -> bool {
        true
    }

    /// Whether `mv` is legal here. Must agree with [`Game::legal_moves`].
    fn is_legal(&self, mv: Self::Move) -> bool {
        let mut v = Vec::new();
        self.legal_moves(&mut v);
        v.contains(&mv)
    }

    /// Plays a move that the caller knows is legal. Behaviour for an illegal move is
    /// unspecified (may corrupt the position, must not be memory-unsafe).
    fn play_unchecked(&mut self, mv: Self::Move);

    /// Plays a move after checking that it is legal.
    ///
    /// # Errors
    /// [`IllegalMove`] with the reason when the move is not legal or the game is over; the
    /// position is left unchanged.
    fn play(&mut self, mv: Self::Move) -> Result<(), IllegalMove> {
        if self.outcome().is_some() {
            return Err(IllegalMove {
                mv: mv.to_string(),
                reason: "the game is over".into(),
            });
        }
        if !self.is_legal(mv) {
            return Err(IllegalMove {
                mv: mv.to_string(),
                reason: self.illegal_reason(mv),
            });
        }
        self.play_unchecked(mv);
        Ok(())
    }

    /// A human-readable reason why `mv` is illegal (only called for illegal moves).
    fn illegal_reason(&self, _mv: Self::Move) -> String {
        "not a legal move in this position".into()
    }

    /// The result if the game is over by the position alone (five in a row, no legal move,
    /// move limit, full board), from the side to move; `None` while it goes on.
    /// Repetition rules are in [`Game::adjudicate`].
    fn outcome(&self) -> Option<Outcome>;

    /// The result including rules that need the game's history (repetition). `history` holds
    /// the earlier positions of the game, oldest first, not including `self`.
    /// Defaults to [`Game::outcome`].
    fn adjudicate(&self, history: &[HistoryEntry]) -> Option<Outcome> {
        let _ = history;
        self.outcome()
    }

    /// Why the game is over here, in words for players (`"five in a row with h8"`,
    /// `"repetition: perpetual chase by red loses"`, `"the board is full"`), with the same
    /// `history` as [`Game::adjudicate`]; `None` while the game goes on, or when the game has
    /// nothing more specific to say than who won (the default).
    fn end_reason_text(&self, history: &[HistoryEntry]) -> Option<String> {
        let _ = history;
        None
    }

    /// Whether playing `mv` here makes every earlier position unreachable (a capture in
    /// Xiangqi, any stone drop in Gomoku and Connect Four). Defaults to `true`.
    fn is_irreversible(&self, mv: Self::Move) -> bool {
        let _ = mv;
        true
    }

    /// Whether the side to move is in check (only meaningful for games with checks).
    fn in_check(&self) -> bool {
        false
    }

    /// 64-bit Zobrist hash of the position, side to move included, updated incrementally.
    fn zobrist(&self) -> u64;

    /// Zobrist hash recomputed from scratch (reference for tests of the incremental hash).
    fn zobrist_from_scratch(&self) -> u64;

    /// The key under which an evaluation of this position in this history may be cached: the
    /// hash plus whatever part of the history the network sees (Xiangqi: repetition count).
    /// Defaults to [`Game::zobrist`].
    fn eval_key(&self, history: &[HistoryEntry]) -> u64 {
        let _ = history;
        self.zobrist()
    }

    /// Size of the fixed action space (Gomoku N×N, Xiangqi 2086, Connect Four 7).
    fn num_actions(&self) -> usize;

    /// The action index of a move, in `0..num_actions()`. May depend on the side to move
    /// (Xiangqi indexes moves as seen from the side to move).
    fn move_to_action(&self, mv: Self::Move) -> usize;

    /// The move of an action index, or `None` if the index names no move of this geometry.
    /// Does not check legality.
    fn action_to_move(&self, action: usize) -> Option<Self::Move>;

    /// Number of board symmetries including the identity (index 0): 8 for square Gomoku,
    /// 2 (left-right mirror) for Xiangqi and Connect Four.
    fn num_symmetries(&self) -> usize;

    /// The image of an action index under symmetry `sym` (a permutation of `0..num_actions()`).
    fn transform_action(&self, sym: usize, action: usize) -> usize;

    /// The position transformed by symmetry `sym`. Must commute with play:
    /// `p.transform(s)` after the transformed move equals `(p after move).transform(s)`.
    fn transform(&self, sym: usize) -> Self;

    /// Parses a move in the game's standard notation(s).
    ///
    /// # Errors
    /// [`ParseError`] naming the input and what was wrong. Does not check legality.
    fn parse_move(&self, text: &str) -> Result<Self::Move, ParseError>;

    /// Formats a move in the game's primary notation (parsable by [`Game::parse_move`]).
    fn format_move(&self, mv: Self::Move) -> String {
        mv.to_string()
    }

    /// Board height and width of the network's input planes `[H, W]`.
    fn board_shape(&self) -> (usize, usize);

    /// Convenience: all legal moves in a new vector.
    fn legal_moves_vec(&self) -> Vec<Self::Move> {
        let mut v = Vec::new();
        self.legal_moves(&mut v);
        v
    }
}

/// A result proven by [`Game::tactical_proof`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TacticalProof<M> {
    /// The proven result from the side to move.
    pub outcome: Outcome,
    /// For a win: the first move of the proof (it wins by force).
    pub best: Option<M>,
    /// The proof line, the side to move's moves and the forced replies alternating (empty
    /// when the game does not give one).
    pub line: Vec<M>,
}

/// A game in progress: the start position, the moves played, and what the repetition rules
/// need (the [`HistoryEntry`] of every earlier position).
#[derive(Clone, Debug)]
pub struct History<G: Game> {
    start: G,
    current: G,
    moves: Vec<G::Move>,
    /// Positions before each move, as history entries (len == moves.len()).
    entries: Vec<HistoryEntry>,
    /// The full positions before each move (for undo), len == moves.len().
    positions: Vec<G>,
    /// Whether the move that led to the current position was irreversible.
    current_irreversible: bool,
}

impl<G: Game> History<G> {
    /// A new game from `start`.
    pub fn new(start: G) -> Self {
        History {
            current: start.clone(),
            start,
            moves: Vec::new(),
            entries: Vec::new(),
            positions: Vec::new(),
            current_irreversible: true,
        }
    }

    /// The position the game started from.
    pub fn start(&self) -> &G {
        &self.start
    }

    /// The current position.
    pub fn current(&self) -> &G {
        &self.current
    }

    /// The moves played so far, oldest first.
    pub fn moves(&self) -> &[G::Move] {
        &self.moves
    }

    /// The history entries of the earlier positions, oldest first (not the current one).
    pub fn entries(&self) -> &[HistoryEntry] {
        &self.entries
    }

    /// The entry describing the current position.
    pub fn current_entry(&self) -> HistoryEntry {
        HistoryEntry {
            hash: self.current.zobrist(),
            in_check: self.current.in_check(),
            irreversible: self.current_irreversible,
        }
    }

    /// The result of the game including repetition rules, from the side to move.
    pub fn outcome(&self) -> Option<Outcome> {
        self.current.adjudicate(&self.entries)
    }

    /// Plays a checked move.
    ///
    /// # Errors
    /// [`IllegalMove`] when the move is illegal or the game is already decided (also by
    /// repetition); nothing changes then.
    pub fn play(&mut self, mv: G::Move) -> Result<(), IllegalMove> {
        if self.outcome().is_some() {
            return Err(IllegalMove {
                mv: mv.to_string(),
                reason: "the game is over".into(),
            });
        }
        self.play_on(mv)
    }

    /// Plays the move of action index `action` (`Game::action_to_move`, as records and
    /// network outputs number moves), checked as [`History::play`] checks; returns the move.
    ///
    /// # Errors
    /// [`IllegalMove`] when no move has this index in the current position (its `mv` is
    /// `action N`), when the move is illegal or the game is already decided; nothing
    /// changes then.
    pub fn play_action(&mut self, action: u16) -> Result<G::Move, IllegalMove> {
        let mv = self
            .current
            .action_to_move(usize::from(action))
            .ok_or_else(|| IllegalMove {
                mv: format!("action {action}"),
                reason: "no move has this action index".into(),
            })?;
        self.play(mv)?;
        Ok(mv)
    }

    /// Plays a move that is legal in the current position even when the history has already
    /// decided the game (repetition, move limit): for engines whose GUI judges the game by its
    /// own rules and sends the moves played after our rules' end. A position that is over by
    /// itself (mate, five in a row) has no legal move, so that is still refused.
    ///
    /// # Errors
    /// [`IllegalMove`] when the move is illegal in the position; nothing changes then.
    pub fn play_on(&mut self, mv: G::Move) -> Result<(), IllegalMove> {
        let before = self.current.clone();
        self.current.play(mv)?;
        self.record(before, mv);
        Ok(())
    }

    /// Plays a move known to be legal.
    pub fn play_unchecked(&mut self, mv: G::Move) {
        let before = self.current.clone();
        self.current.play_unchecked(mv);
        self.record(before, mv);
    }

    fn record(&mut self, before: G, mv: G::Move) {
        self.entries.push(HistoryEntry {
            hash: before.zobrist(),
            in_check: before.in_check(),
            irreversible: self.current_irreversible,
        });
        self.current_irreversible = before.is_irreversible(mv);
        self.positions.push(before);
        self.moves.push(mv);
    }

    /// Takes back the last move; returns it, or `None` at the start.
    pub fn undo(&mut self) -> Option<G::Move> {
        let mv = self.moves.pop()?;
        let entry = self
            .entries
            .pop()
            .expect("entries and moves have equal length");
        self.current_irreversible = entry.irreversible;
        self.current = self
            .positions
            .pop()
            .expect("positions and moves have equal length");
        Some(mv)
    }

    /// Number of moves played.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// Whether no move has been played.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
}

/// How many earlier positions in `history` have the Zobrist hash `hash` (0 = the position has
/// not occurred before). Only positions since the last irreversible move can repeat, so the
/// scan stops there.
pub fn count_repetitions(history: &[HistoryEntry], hash: u64) -> u32 {
    let mut n = 0;
    for e in history.iter().rev() {
        if e.hash == hash {
            n += 1;
        }
        if e.irreversible {
            break;
        }
    }
    n
}

/// A deterministic stream of 64-bit keys for Zobrist tables (SplitMix64), usable in `const`
/// contexts so that tables are fixed across builds and machines.
pub const fn splitmix64(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

/// Mixes a base seed and an index (a game, an opening, a player, an iteration) into a seed of
/// its own: the SplitMix64 output of `seed ^ index · 0xD1B5_4A32_D192_ED03`. Nearby indices
/// give unrelated seeds, and the same pair always gives the same seed.
pub const fn mix_seed(seed: u64, index: u64) -> u64 {
    splitmix64(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03)).1
}

/// A random opening: `plies` moves drawn uniformly from the candidate moves
/// ([`Game::candidate_moves`]) from `start`, seeded; redrawn (up to 100 tries, each from
/// `mix_seed(seed, try)`) while it ends the game or runs out of moves. The arena's random
/// openings and self-play's random starts; the same `start`, `plies` and `seed` give the same
/// moves.
///
/// Returns `None` when every try ended the game or ran out of moves.
pub fn random_opening<G: Game>(start: &G, plies: u32, seed: u64) -> Option<History<G>> {
    use rand::{rngs::StdRng, Rng, SeedableRng};
    let mut moves = Vec::new();
    for attempt in 0..100u64 {
        let mut rng = StdRng::seed_from_u64(mix_seed(seed, attempt));
        let mut h = History::new(start.clone());
        let mut ok = true;
        for _ in 0..plies {
            if h.outcome().is_some() {
                ok = false;
                break;
            }
            h.current().candidate_moves(&mut moves);
            if moves.is_empty() {
                ok = false;
                break;
            }
            h.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
        if ok && h.outcome().is_none() {
            return Some(h);
        }
    }
    None
}

/// Fills a `const` Zobrist table of `N` keys from a seed.
pub const fn zobrist_table<const N: usize>(seed: u64) -> [u64; N] {
    let mut out = [0u64; N];
    let mut state = seed;
    let mut i = 0;
    while i < N {
        let (s, z) = splitmix64(state);
        state = s;
        out[i] = z;
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcome_flip_and_value_are_consistent() {
        for o in [Outcome::Win, Outcome::Loss, Outcome::Draw] {
            assert_eq!(o.flip().flip(), o);
            assert_eq!(o.flip().value(), -o.value());
        }
        assert_eq!(Outcome::Loss.winner(Side::First), Some(Side::Second));
    }

    #[test]
    fn parse_errors_quote_a_long_input_shortened_and_a_short_one_whole() {
        let short = ParseError::new("move", "z99", "off the board");
        assert_eq!(
            short.to_string(),
            "cannot parse move \"z99\": off the board"
        );
        let pasted = "h8 ".repeat(20_000);
        let long = ParseError::new("move list", pasted.clone(), "too many moves");
        let text = long.to_string();
        assert!(text.len() < 200, "{} bytes: {text}", text.len());
        assert!(text.contains("(60000 characters)"), "{text}");
        assert!(text.starts_with("cannot parse move list \"h8 h8"), "{text}");
        // The error still carries the input whole.
        assert_eq!(long.input, pasted);
        // Exactly at the limit: quoted whole.
        let edge = "a".repeat(QUOTED_INPUT_MAX);
        assert_eq!(quoted_excerpt(&edge), format!("{edge:?}"));
    }

    #[test]
    fn mix_seed_keeps_the_arena_seeds_and_separates_nearby_indices() {
        // Pinned: the arena's openings and player seeds follow this function.
        assert_eq!(mix_seed(7, 3), 0xdcfa_1426_c230_ef5f);
        let mut v: Vec<u64> = (0..1000).map(|i| mix_seed(7, i)).collect();
        v.sort_unstable();
        v.dedup();
        assert_eq!(v.len(), 1000);
    }

    #[test]
    fn zobrist_table_keys_are_distinct() {
        const T: [u64; 512] = zobrist_table::<512>(42);
        let mut v = T.to_vec();
        v.sort_unstable();
        v.dedup();
        assert_eq!(v.len(), 512);
    }
}
