//! Games and matches between players: one game with failure handling, round-robin and
//! gauntlet matches on threads with balanced random openings, JSON records, and the games as
//! [`Record`]s for the record formats (PGN, SGF, PSQ).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Instant;

use alphazero_formats::{FormatError, MoveNotation, Record, RecordGame, RecordResult};
use alphazero_game::{mix_seed, Game, History, Outcome, Side};
use alphazero_mcts::{Evaluator, SearchConfig};
use serde::{Deserialize, Serialize};

use crate::openings::OpeningBook;
use crate::player::{Limits, Player, PlayerError};
use crate::players::MctsPlayer;
use crate::rating::{fit_ratings, PairResult, RatingError, Ratings};

/// Why a game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Termination {
    /// By the rules of the game (win, loss or draw, repetition included).
    Rules,
    /// The ply cap was reached: scored as a draw.
    PlyCap,
    /// A player failed (error, panic, illegal move): it loses the game.
    Failure {
        /// The side that failed.
        side: SideName,
        /// What went wrong (the [`PlayerError`] text or the panic message).
        message: String,
    },
}

/// [`Side`] in serialisable form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SideName {
    /// `Side::First` (black in Gomoku, red in Xiangqi).
    First,
    /// `Side::Second`.
    Second,
}

impl From<Side> for SideName {
    fn from(s: Side) -> Self {
        match s {
            Side::First => SideName::First,
            Side::Second => SideName::Second,
        }
    }
}

impl From<SideName> for Side {
    fn from(s: SideName) -> Self {
        match s {
            SideName::First => Side::First,
            SideName::Second => Side::Second,
        }
    }
}

/// The time one side spent choosing its moves in a game (wall clock, each call of
/// [`Player::choose_move`] measured by the match; the opening's moves are no one's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThinkTime {
    /// Moves chosen.
    pub moves: u32,
    /// Microseconds spent choosing them, summed.
    pub us: u64,
}

impl ThinkTime {
    /// Mean milliseconds a move; `None` without moves.
    pub fn mean_ms(&self) -> Option<f64> {
        (self.moves > 0).then(|| self.us as f64 / 1000.0 / f64::from(self.moves))
    }

    /// The sum of two tallies.
    pub fn plus(self, other: ThinkTime) -> ThinkTime {
        ThinkTime {
            moves: self.moves + other.moves,
            us: self.us + other.us,
        }
    }
}

/// The result of one game from [`play_game`].
#[derive(Clone, Debug)]
pub struct GameResult<G: Game> {
    /// The winner, `None` for a draw (including the ply cap).
    pub winner: Option<Side>,
    /// The whole game: start position, every move (the opening plies included).
    pub history: History<G>,
    /// Why it ended.
    pub termination: Termination,
    /// Time each side spent on its moves: `Side::First`'s, then `Side::Second`'s.
    pub think: [ThinkTime; 2],
}

impl<G: Game> GameResult<G> {
    /// The moves played, oldest first (the opening plies included).
    pub fn moves(&self) -> &[G::Move] {
        self.history.moves()
    }

    /// The score of `side`: 1 win, 0.5 draw, 0 loss.
    pub fn score(&self, side: Side) -> f64 {
        match self.winner {
            Some(w) if w == side => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        }
    }

    /// `1-0` (first side won), `0-1` or `1/2-1/2`.
    pub fn result_text(&self) -> &'static str {
        result_text(self.winner)
    }
}

pub(crate) fn result_text(winner: Option<Side>) -> &'static str {
    match winner {
        Some(Side::First) => "1-0",
        Some(Side::Second) => "0-1",
        None => "1/2-1/2",
    }
}

pub(crate) fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panicked".into()
    }
}

/// Plays one game from `start` (which may already hold opening moves): `first` plays
/// `Side::First`, `second` plays `Side::Second`, whoever is to move in `start`.
///
/// Both players get [`Player::new_game`] first and [`Player::game_over`] at the end. A player
/// that returns an error, panics, or answers an illegal move loses the game
/// ([`Termination::Failure`] says which side and why); nothing here waits on a player beyond
/// its own call (timeouts of external engines are theirs to enforce). When the history reaches
/// `max_plies` moves in total (opening included) without a result, the game is a draw
/// ([`Termination::PlyCap`]). A `start` that is already over returns its result at once.
pub fn play_game<G: Game>(
    first: &mut dyn Player<G>,
    second: &mut dyn Player<G>,
    start: History<G>,
    limits: &Limits,
    max_plies: u32,
) -> GameResult<G> {
    let mut history = start;
    let mut think = [ThinkTime::default(); 2];
    let fail = |history: History<G>, side: Side, message: String, think| GameResult {
        winner: Some(side.opponent()),
        history,
        termination: Termination::Failure {
            side: side.into(),
            message,
        },
        think,
    };
    for side in [Side::First, Side::Second] {
        let p: &mut dyn Player<G> = if side == Side::First {
            &mut *first
        } else {
            &mut *second
        };
        let r = catch_unwind(AssertUnwindSafe(|| p.new_game()));
        match r {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return fail(history, side, e.to_string(), think),
            Err(panic) => {
                return fail(
                    history,
                    side,
                    format!("{}: panicked: {}", p.name(), panic_message(&*panic)),
                    think,
                )
            }
        }
    }
    let result = loop {
        if let Some(o) = history.outcome() {
            let stm = history.current().side_to_move();
            break GameResult {
                winner: o.winner(stm),
                history,
                termination: Termination::Rules,
                think,
            };
        }
        if history.len() as u64 >= u64::from(max_plies) {
            break GameResult {
                winner: None,
                history,
                termination: Termination::PlyCap,
                think,
            };
        }
        let side = history.current().side_to_move();
        let player: &mut dyn Player<G> = if side == Side::First {
            &mut *first
        } else {
            &mut *second
        };
        let clock = Instant::now();
        let choice = catch_unwind(AssertUnwindSafe(|| player.choose_move(&history, limits)));
        let t = &mut think[usize::from(side == Side::Second)];
        t.moves += 1;
        t.us += clock.elapsed().as_micros() as u64;
        let mv = match choice {
            Ok(Ok(c)) => c.mv,
            Ok(Err(e)) => break fail(history, side, e.to_string(), think),
            Err(panic) => {
                let msg = format!("{}: panicked: {}", player.name(), panic_message(&*panic));
                break fail(history, side, msg, think);
            }
        };
        if let Err(e) = history.play(mv) {
            let err = PlayerError::IllegalMove {
                player: player.name(),
                text: history.current().format_move(mv),
                reason: e.reason,
            };
            break fail(history, side, err.to_string(), think);
        }
    };
    let final_outcome = match result.winner {
        Some(w) if w == result.history.current().side_to_move() => Outcome::Win,
        Some(_) => Outcome::Loss,
        None => Outcome::Draw,
    };
    let _ = catch_unwind(AssertUnwindSafe(|| {
        first.game_over(&result.history, final_outcome)
    }));
    let _ = catch_unwind(AssertUnwindSafe(|| {
        second.game_over(&result.history, final_outcome)
    }));
    result
}

/// Creates a fresh player; called once per worker thread and entrant.
pub type PlayerFactory<G> = Arc<dyn Fn() -> Box<dyn Player<G>> + Send + Sync>;

/// One participant of a match.
#[derive(Clone)]
pub struct Entrant<G: Game> {
    /// Name used in tables and records.
    pub name: String,
    /// Makes the player (one instance per thread).
    pub factory: PlayerFactory<G>,
    /// The entrant's search, when it is a search that can play many games at once with its
    /// leaves evaluated in batches ([`Entrant::batched_search`]); see [`run_match`](crate::run_match).
    pub batched: Option<BatchedSearch<G>>,
}

impl<G: Game> Entrant<G> {
    /// An entrant from a name and a factory closure.
    pub fn new(
        name: impl Into<String>,
        factory: impl Fn() -> Box<dyn Player<G>> + Send + Sync + 'static,
    ) -> Self {
        Entrant {
            name: name.into(),
            factory: Arc::new(factory),
            batched: None,
        }
    }

    /// A search entrant (PUCT with `evaluator` as `config` says, `simulations` per move, no
    /// root noise) that plays batched: in a match where every entrant is one, all games run at
    /// once and each round sends the leaves of every game where this entrant is to move to
    /// `evaluator` in one call (see [`run_match`](crate::run_match)). Elsewhere it plays as the
    /// [`MctsPlayer`] with the same settings, and the games are the same.
    pub fn batched_search(
        name: impl Into<String>,
        evaluator: Arc<dyn Evaluator<G>>,
        config: SearchConfig,
        simulations: u32,
    ) -> Self {
        let name = name.into();
        let (player_name, player_eval, player_config) =
            (name.clone(), evaluator.clone(), config.clone());
        Entrant {
            factory: Arc::new(move || {
                Box::new(MctsPlayer::new(
                    player_name.clone(),
                    player_eval.clone(),
                    player_config.clone(),
                    alphazero_mcts::SearchBudget::simulations(simulations),
                )) as Box<dyn Player<G>>
            }),
            name,
            batched: Some(BatchedSearch {
                evaluator,
                config,
                simulations,
            }),
        }
    }
}

/// An entrant's search for batched matches: the evaluator its leaves go to, how it searches
/// and its simulations per move (no root noise; the seed is set per game).
#[derive(Clone)]
pub struct BatchedSearch<G: Game> {
    /// Values the leaves of all the games this entrant is to move in, one call per round.
    pub evaluator: Arc<dyn Evaluator<G>>,
    /// The search settings.
    pub config: SearchConfig,
    /// Simulations per move (≥ 1) when the match's [`Limits::simulations`](crate::Limits)
    /// does not set them.
    pub simulations: u32,
}

/// Who plays whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Pairing {
    /// Every entrant against every other.
    RoundRobin,
    /// The entrant at this index against every other one (and no other games).
    Gauntlet {
        /// Index of the challenger in [`MatchConfig::entrants`].
        challenger: usize,
    },
}

/// Called with each finished game (from the worker thread that played it).
pub type GameCallback = Arc<dyn Fn(&GameRecord) + Send + Sync>;

/// Everything a match needs.
#[derive(Clone)]
pub struct MatchConfig<G: Game> {
    /// The participants (at least two).
    pub entrants: Vec<Entrant<G>>,
    /// Round robin or gauntlet.
    pub pairing: Pairing,
    /// Openings per pair; each is played twice with colours swapped, so a pair plays
    /// `2 × openings_per_pair` games.
    pub openings_per_pair: u32,
    /// Random plies of each opening (uniform over [`Game::candidate_moves`], drawn with
    /// `seed`; openings that end the game are redrawn). 0 = every game from `start`. Not
    /// used with a [`MatchConfig::book`].
    pub opening_plies: u32,
    /// Fixed openings (an opening file) instead of random ones: the match's opening `i` is
    /// the book's [`OpeningBook::opening`]`(i)`, each played with both colours, the first
    /// opening's two games first (c-gomoku-cli's `order=sequential -repeat`). `None` (the
    /// default): [`MatchConfig::opening_plies`] random plies.
    pub book: Option<OpeningBook<G>>,
    /// The start position.
    pub start: G,
    /// Per-move limits given to every player.
    pub limits: Limits,
    /// Ply cap per game (opening included); reaching it is a draw.
    pub max_plies: u32,
    /// Worker threads (at least 1). A batched match (see [`run_match`](crate::run_match)) plays on the calling
    /// thread; there, as everywhere, this is also the chunk of openings of
    /// [`run_match_sprt`](crate::run_match_sprt).
    pub threads: usize,
    /// Seed of the openings and of the players' per-game seeds ([`Player::set_seed`]).
    pub seed: u64,
    /// Optional progress callback, called once per finished game.
    pub on_game: Option<GameCallback>,
}

impl<G: Game> MatchConfig<G> {
    /// A round robin between `entrants` from `start`: 1 opening per pair of 4 random plies,
    /// default limits, a 1000-ply cap, one thread, seed 0, no callback.
    pub fn new(entrants: Vec<Entrant<G>>, start: G) -> Self {
        MatchConfig {
            entrants,
            pairing: Pairing::RoundRobin,
            openings_per_pair: 1,
            opening_plies: 4,
            book: None,
            start,
            limits: Limits::default(),
            max_plies: 1000,
            threads: 1,
            seed: 0,
            on_game: None,
        }
    }
}

/// A match configuration that cannot be run. Carries the rejected value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MatchError {
    /// Fewer than two entrants.
    #[error("a match needs at least 2 entrants, got {0}")]
    TooFewEntrants(usize),
    /// The gauntlet challenger index is out of range.
    #[error("gauntlet challenger index {index} is out of range for {entrants} entrants")]
    BadChallenger {
        /// The rejected index.
        index: usize,
        /// Number of entrants.
        entrants: usize,
    },
    /// No opening of the requested length could be drawn (every try ended the game).
    #[error("could not draw a {plies}-ply opening that leaves the game open")]
    NoOpening {
        /// The requested opening length.
        plies: u32,
    },
}

/// One finished game of a match, in serialisable form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Index of the game in the match schedule.
    pub index: usize,
    /// Entrant index playing `Side::First`.
    pub first: usize,
    /// Entrant index playing `Side::Second`.
    pub second: usize,
    /// Name of the first-side player.
    pub first_name: String,
    /// Name of the second-side player.
    pub second_name: String,
    /// Index of the opening used.
    pub opening: usize,
    /// How many of `moves` belong to the opening.
    pub opening_plies: usize,
    /// `1-0`, `0-1` or `1/2-1/2` (first side's result first).
    pub result: String,
    /// Winning entrant index, `None` for a draw.
    pub winner: Option<usize>,
    /// Why the game ended.
    pub termination: Termination,
    /// Every move in the game's notation ([`Game::format_move`]), opening included.
    pub moves: Vec<String>,
    /// Time each side spent on its moves, the first side's then the second's (zero in a
    /// batched match, where the games share each evaluator call).
    #[serde(default)]
    pub think: [ThinkTime; 2],
}

impl GameRecord {
    /// The game as a [`Record`] of the record formats (PGN, SGF, PSQ): the moves replayed
    /// from `start` (the match's start position), the players, the result, the opening
    /// plies, and the tags `Round` (the game's number, from 1) and `Termination`, then
    /// `tags` (e.g. `Event`, `Date`).
    ///
    /// # Errors
    /// [`FormatError::Replay`] if a recorded move does not replay from `start` (a record
    /// of another start position or game).
    pub fn to_record<G: RecordGame>(
        &self,
        start: &G,
        tags: &[(&str, String)],
    ) -> Result<Record<G>, FormatError> {
        let mut h = History::new(start.clone());
        for (i, text) in self.moves.iter().enumerate() {
            let bad = |reason: String| FormatError::Replay {
                ply: i + 1,
                text: text.clone(),
                reason,
            };
            let mv = h
                .current()
                .parse_move(text)
                .map_err(|e| bad(e.to_string()))?;
            h.play(mv).map_err(|e| bad(e.to_string()))?;
        }
        let mut rec = Record::new(h);
        rec.players = [self.first_name.clone(), self.second_name.clone()];
        rec.result = RecordResult::from_pgn(&self.result).unwrap_or(RecordResult::Unknown);
        rec.opening_plies = self.opening_plies;
        for (k, v) in tags {
            rec.set_tag(k, v.clone());
        }
        rec.set_tag("Round", (self.index + 1).to_string());
        let term = match &self.termination {
            Termination::Rules => "rules".to_string(),
            Termination::PlyCap => "ply cap (scored as a draw)".to_string(),
            Termination::Failure { side, message } => format!("{side:?} failed: {message}"),
        };
        rec.set_tag("Termination", term);
        Ok(rec)
    }
}

/// Wins, draws and losses of entrant `a` against entrant `b`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairStats {
    /// First entrant index.
    pub a: usize,
    /// Second entrant index.
    pub b: usize,
    /// Games `a` won.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Games `a` lost.
    pub losses: u32,
}

/// The outcome of [`run_match`](crate::run_match).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    /// The game's name ([`Game::NAME`]).
    pub game: String,
    /// Entrant names, by index.
    pub players: Vec<String>,
    /// Every game, in schedule order (independent of thread timing).
    pub games: Vec<GameRecord>,
}

impl MatchResult {
    /// W/D/L per pair that met, `a < b`, from `a`'s point of view, ordered by `(a, b)`.
    pub fn pair_stats(&self) -> Vec<PairStats> {
        let mut out: Vec<PairStats> = Vec::new();
        for g in &self.games {
            let (a, b) = (g.first.min(g.second), g.first.max(g.second));
            let idx = match out.iter().position(|p| p.a == a && p.b == b) {
                Some(i) => i,
                None => {
                    out.push(PairStats {
                        a,
                        b,
                        ..Default::default()
                    });
                    out.len() - 1
                }
            };
            let p = &mut out[idx];
            match g.winner {
                Some(w) if w == a => p.wins += 1,
                Some(_) => p.losses += 1,
                None => p.draws += 1,
            }
        }
        out.sort_by_key(|p| (p.a, p.b));
        out
    }

    /// The time each entrant spent on its moves over all its games, by index.
    pub fn think_time(&self) -> Vec<ThinkTime> {
        let mut t = vec![ThinkTime::default(); self.players.len()];
        for g in &self.games {
            t[g.first] = t[g.first].plus(g.think[0]);
            t[g.second] = t[g.second].plus(g.think[1]);
        }
        t
    }

    /// Total score of each entrant (1 per win, 0.5 per draw) and games played, by index.
    pub fn scores(&self) -> Vec<(f64, u32)> {
        let mut s = vec![(0.0, 0u32); self.players.len()];
        for g in &self.games {
            for i in [g.first, g.second] {
                s[i].1 += 1;
                s[i].0 += match g.winner {
                    Some(w) if w == i => 1.0,
                    Some(_) => 0.0,
                    None => 0.5,
                };
            }
        }
        s
    }

    /// Bradley–Terry / Elo ratings of the entrants with entrant `anchor` fixed at 0
    /// (see [`fit_ratings`]).
    ///
    /// # Errors
    /// [`RatingError`] when `anchor` is out of range or no games were played.
    pub fn ratings(&self, anchor: usize) -> Result<Ratings, RatingError> {
        let pairs: Vec<PairResult> = self
            .pair_stats()
            .iter()
            .map(|p| PairResult {
                a: p.a,
                b: p.b,
                wins: f64::from(p.wins),
                draws: f64::from(p.draws),
                losses: f64::from(p.losses),
            })
            .collect();
        fit_ratings(&self.players, &pairs, anchor)
    }

    /// Appends the games of a two-entrant match `pair` to this result, its entrant 0 being
    /// this result's entrant `a` and its entrant 1 entrant `b`; game indices continue this
    /// result's.
    pub fn append_pair(&mut self, pair: MatchResult, a: usize, b: usize) {
        let to_all = |i: usize| if i == 0 { a } else { b };
        for mut g in pair.games {
            g.index = self.games.len();
            g.first = to_all(g.first);
            g.second = to_all(g.second);
            g.winner = g.winner.map(to_all);
            self.games.push(g);
        }
    }

    /// Wins, draws and losses of entrant 0 against entrant 1 (zeros before any game): the
    /// figures an SPRT between two entrants tests.
    pub fn first_pair_wdl(&self) -> (u64, u64, u64) {
        self.pair_stats().first().map_or((0, 0, 0), |p| {
            (u64::from(p.wins), u64::from(p.draws), u64::from(p.losses))
        })
    }

    /// The cross table as text: one row per entrant (`#i name`), W-D-L against each other
    /// entrant from the row's side (`-` for pairs that did not meet), and the total score
    /// `points/games`. Columns are padded by characters, so non-ASCII names line up.
    pub fn cross_table(&self) -> String {
        let n = self.players.len();
        let mut cell = vec![vec![String::from("-"); n]; n];
        for p in self.pair_stats() {
            cell[p.a][p.b] = format!("{}-{}-{}", p.wins, p.draws, p.losses);
            cell[p.b][p.a] = format!("{}-{}-{}", p.losses, p.draws, p.wins);
        }
        let labels: Vec<String> = (0..n)
            .map(|i| format!("#{} {}", i + 1, self.players[i]))
            .collect();
        let chars = |s: &String| s.chars().count();
        let w = labels.iter().map(chars).max().unwrap_or(5).max(5);
        let cw = cell.iter().flatten().map(chars).max().unwrap_or(5).max(5);
        let mut s = format!("{:<w$}", "W-D-L");
        for i in 0..n {
            s.push_str(&format!(" {:>cw$}", format!("#{}", i + 1)));
        }
        s.push_str("   score\n");
        let scores = self.scores();
        for i in 0..n {
            s.push_str(&format!("{:<w$}", labels[i]));
            for c in &cell[i] {
                s.push_str(&format!(" {c:>cw$}"));
            }
            let (pts, games) = scores[i];
            s.push_str(&format!("   {pts:.1}/{games}\n"));
        }
        s
    }

    /// The results as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// Every game as a [`Record`] ([`GameRecord::to_record`] with the match's start position
    /// `start` and the extra `tags`).
    ///
    /// # Errors
    /// [`FormatError`] when a game does not replay from `start`.
    pub fn to_records<G: RecordGame>(
        &self,
        start: &G,
        tags: &[(&str, String)],
    ) -> Result<Vec<Record<G>>, FormatError> {
        self.games
            .iter()
            .map(|g| g.to_record(start, tags))
            .collect()
    }

    /// Every game as PGN ([`alphazero_formats::pgn`]): real moves from the start position
    /// (the random opening too, ended by a comment), `[Round]`, `[Termination]`,
    /// `[OpeningPlies]`, the game's rule tags (Gomoku `[Size]`/`[Rule]`; Xiangqi in the XQBase
    /// dialect with moves in `notation`) and `tags`.
    ///
    /// # Errors
    /// [`FormatError`] when a game does not replay from `start`.
    pub fn to_pgn<G: RecordGame>(
        &self,
        start: &G,
        notation: MoveNotation,
        tags: &[(&str, String)],
    ) -> Result<String, FormatError> {
        Ok(self
            .to_records(start, tags)?
            .iter()
            .map(|r| alphazero_formats::pgn::write(r, notation))
            .collect())
    }
}

/// A random opening of `plies` moves over the candidate moves from `start`, seeded; redrawn
/// (up to 100 tries) while it ends the game ([`alphazero_game::random_opening`]).
///
/// # Errors
/// [`MatchError::NoOpening`] when every try ended the game or ran out of moves.
pub fn random_opening<G: Game>(start: &G, plies: u32, seed: u64) -> Result<History<G>, MatchError> {
    alphazero_game::random_opening(start, plies, seed).ok_or(MatchError::NoOpening { plies })
}

/// One game of a match schedule: who plays first, who second, from which opening.
pub(crate) struct Scheduled {
    pub(crate) first: usize,
    pub(crate) second: usize,
    pub(crate) opening: usize,
}

/// The search seed of `side`'s player in game `index` of a match seeded `match_seed` (the
/// threaded and the batched match engines give a side the same seed, so they play the same
/// games).
pub(crate) fn player_seed(match_seed: u64, index: usize, side: Side) -> u64 {
    let side = u64::from(side == Side::Second);
    mix_seed(match_seed, 2 * index as u64 + 1 + side)
}
