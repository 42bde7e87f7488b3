//! The self-play actor: many games in parallel through one batched evaluator.

use std::borrow::{Borrow, BorrowMut};
use std::sync::Arc;
use std::time::{Duration, Instant};

use alphazero_game::{mix_seed, Game, History, Outcome, Side};
use alphazero_mcts::{
    select_move, ConfigError, Driver, EvalError, Evaluator, Search, SearchBudget, SearchConfig,
};
use alphazero_records::{GameFlags, GameRecord, GameResult, PlyRecord};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Playout-cap randomisation (Wu 2019, "Accelerating Self-Play Learning in Go", KataGo): most
/// moves get a cheap search whose π is not trained on; a fraction `full_probability` get the
/// full search (with root noise) and become training targets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayoutCap {
    /// Simulations of a fast move (no root noise, not recorded as a target).
    pub fast_simulations: u32,
    /// Probability that a move gets the full search.
    pub full_probability: f32,
}

/// Resignation: the side to move resigns when its root value falls below `threshold`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Resignation {
    /// Root value (from the side to move) below which it resigns, e.g. -0.95.
    pub threshold: f32,
    /// No resignation before this ply.
    pub min_ply: u32,
    /// Share of games that may not resign, to measure false resignations.
    pub no_resign_fraction: f32,
}

/// Positions of earlier games that self-play games may start from (game restarts): move lines
/// (action indices from the start position, each in the position before it) and, for each
/// position, the length of the line's prefix that leads to it. Built by the caller from its
/// records (the training loop: the games of its replay buffer, by `selfplay.restarts.rule`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RestartPositions {
    lines: Vec<Vec<u16>>,
    /// `(line index, prefix length)` of each position.
    points: Vec<(u32, u32)>,
}

impl RestartPositions {
    /// No positions.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the positions after `prefix_lens` moves of `line` (the moves of a game from the
    /// start position). Lengths outside `1..line.len()` are left out: a restart from the start
    /// position is no restart, and the position after a line's last move is the game's final
    /// one. A line none of whose lengths is kept is not stored.
    pub fn add_line(&mut self, line: Vec<u16>, prefix_lens: impl IntoIterator<Item = usize>) {
        let index = self.lines.len() as u32;
        let before = self.points.len();
        self.points.extend(
            prefix_lens
                .into_iter()
                .filter(|&n| n >= 1 && n < line.len())
                .map(|n| (index, n as u32)),
        );
        if self.points.len() > before {
            self.lines.push(line);
        }
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Whether there is no position.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// Position `i` (in the order added) as the moves that lead to it from the start
    /// position; `None` when `i >= len()`.
    pub fn get(&self, i: usize) -> Option<&[u16]> {
        let &(line, n) = self.points.get(i)?;
        Some(&self.lines[line as usize][..n as usize])
    }
}

/// Game restarts: a share of the games start from positions of earlier games instead of the
/// start position. A restarted game replays the position's moves (with a [`History`], so
/// the repetition rules see them), then plays on as any self-play game: its π, root values
/// and result are its own; its record keeps the moves in [`GameRecord::prefix`]. Plies are
/// counted from the start position, as in the game the position came from: the
/// temperature schedule, resignation's `min_ply` and `max_plies` apply as they did there.
///
/// Which games restart, and from where, is drawn per game index from the config's seed (a
/// stream of its own): the same seed gives the same choices whatever the worker count, and
/// with `share` 0 or no positions nothing is drawn, so the games are those of self-play
/// without restarts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Restarts {
    /// Probability in `[0, 1]` that a game starts from a position of `positions` (uniformly
    /// drawn) instead of the start position.
    pub share: f32,
    /// The positions restarted games start from.
    pub positions: Arc<RestartPositions>,
}

/// The tag of the restart draws' seed stream (apart from the call's draws and each game's
/// search seed, which use the config's seed mixed with even and odd game indices).
const RESTART_STREAM: u64 = u64::from_le_bytes(*b"restarts");

impl Restarts {
    /// The moves leading to the position game `game_index` starts from, or `None` for a game
    /// from the start position.
    pub fn choose(&self, seed: u64, game_index: u64) -> Option<&[u16]> {
        if self.share.is_nan() || self.share <= 0.0 || self.positions.is_empty() {
            return None;
        }
        let mut rng = StdRng::seed_from_u64(mix_seed(mix_seed(seed, RESTART_STREAM), game_index));
        if rng.random::<f32>() >= self.share {
            return None;
        }
        self.positions
            .get(rng.random_range(0..self.positions.len()))
    }
}

/// Where self-play games start: `start`, or for a share of the games one of `random`
/// (positions made from the rules alone, e.g. Xiangqi with pieces removed; each with its
/// text, which the game's record keeps as [`GameRecord::start`]). Which games start from a
/// random position is drawn per game index from the config's seed (a stream of its own), so
/// the choices do not depend on the worker count; game `i` takes `random[i % len]`, so games
/// of consecutive indices take different positions. A game that restarts from
/// an earlier game's position ([`Restarts`]) never starts from a random position: restart
/// lines are moves from `start`.
#[derive(Debug)]
pub struct Starts<'a, G> {
    /// The game's start position.
    pub start: &'a G,
    /// Probability in `[0, 1]` that a game starts from one of `random`.
    pub random_share: f32,
    /// The random start positions with their texts.
    pub random: &'a [(G, String)],
}

impl<G> Clone for Starts<'_, G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G> Copy for Starts<'_, G> {}

impl<'a, G> From<&'a G> for Starts<'a, G> {
    /// Every game from `start`.
    fn from(start: &'a G) -> Self {
        Starts {
            start,
            random_share: 0.0,
            random: &[],
        }
    }
}

/// The tag of the random-start draws' seed stream.
const RANDOM_START_STREAM: u64 = u64::from_le_bytes(*b"randstrt");

impl<'a, G> Starts<'a, G> {
    /// The random start (position and text) of game `game_index`, or `None` for a game from
    /// `start`.
    pub fn choose(&self, seed: u64, game_index: u64) -> Option<&'a (G, String)> {
        if self.random_share.is_nan() || self.random_share <= 0.0 || self.random.is_empty() {
            return None;
        }
        let mut rng =
            StdRng::seed_from_u64(mix_seed(mix_seed(seed, RANDOM_START_STREAM), game_index));
        if rng.random::<f32>() >= self.random_share {
            return None;
        }
        // By the game's index, so that consecutive games (an iteration's) start from
        // different positions.
        self.random
            .get((game_index % self.random.len() as u64) as usize)
    }
}

/// Everything that controls self-play. How it searches (c_puct, FPU, Dirichlet α/ε, virtual
/// loss, K leaves per batch, Gumbel) is `search`; how long is `simulations` (a full move, with
/// root noise) and `playout_cap` (a fast move, without).
#[derive(Clone, Debug, PartialEq)]
pub struct SelfPlayConfig {
    /// How every move is searched.
    pub search: SearchConfig,
    /// Simulations of a full move's search (≥ 1), which has root noise and is a training
    /// target (800).
    pub simulations: u32,
    /// Games played at the same time (their leaves share one evaluator call).
    pub parallel_games: usize,
    /// Plies played with temperature `temperature`; later plies use `final_temperature`.
    pub temperature_moves: u32,
    /// τ for the opening plies (1.0 = proportional to visits).
    pub temperature: f32,
    /// τ after the opening (≈0 = most visited).
    pub final_temperature: f32,
    /// Playout-cap randomisation, if on.
    pub playout_cap: Option<PlayoutCap>,
    /// Resignation, if on.
    pub resign: Option<Resignation>,
    /// A game reaching this many plies is stopped and scored a draw (flag `truncated`).
    pub max_plies: u32,
    /// Seed of move choice, playout-cap draws and the no-resign draw; each game's search is
    /// seeded from it and the game's index ([`alphazero_mcts::SearchBudget::seed`]).
    pub seed: u64,
    /// Game restarts (none by default).
    pub restarts: Restarts,
}

impl SelfPlayConfig {
    /// The budget of a full move's search: `simulations`, root noise on, `seed`.
    fn full_search(&self, seed: u64) -> SearchBudget {
        SearchBudget {
            simulations: Some(self.simulations),
            root_noise: true,
            seed,
        }
    }

    /// Checks the search settings and the full moves' simulations.
    ///
    /// # Errors
    /// [`ConfigError`] naming the bad field (`simulations` for a full search of 0).
    pub(crate) fn validate_search(&self) -> Result<(), ConfigError> {
        self.search.validate()?;
        self.full_search(self.seed).validate(&self.search)
    }
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            search: SearchConfig::default(),
            simulations: 800,
            parallel_games: 32,
            temperature_moves: 8,
            temperature: 1.0,
            final_temperature: 0.0,
            playout_cap: None,
            resign: None,
            max_plies: 512,
            seed: 0,
            restarts: Restarts::default(),
        }
    }
}

/// Self-play failed.
#[derive(Debug, thiserror::Error)]
pub enum SelfPlayError {
    /// The search configuration is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The evaluator failed.
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// A self-play setting is invalid.
    #[error("invalid self-play setting {field}: {reason}")]
    Invalid {
        /// The setting.
        field: &'static str,
        /// Why.
        reason: String,
    },
    /// The moves of a restart position ([`Restarts`]) do not replay from the start position,
    /// or the last one ends the game.
    #[error(
        "game {game_index}: its restart position is refused at move {ply} (action {action}): \
         {reason}"
    )]
    Restart {
        /// The game that was to start there.
        game_index: u64,
        /// The index of the move in the position's moves.
        ply: usize,
        /// Its action index.
        action: u16,
        /// Why.
        reason: String,
    },
}

/// What a call of [`play_selfplay_games`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SelfPlayStats {
    /// Games finished.
    pub games: u64,
    /// Plies played.
    pub plies: u64,
    /// Plies with a full search (training targets).
    pub full_plies: u64,
    /// Positions sent to the evaluator.
    pub evaluations: u64,
    /// Evaluator calls.
    pub evaluator_calls: u64,
    /// Wall time spent inside the evaluator.
    pub evaluator_time: Duration,
    /// Total wall time.
    pub total_time: Duration,
    /// Sum of the wall times of the workers that played the games (`total_time` with one
    /// worker; see [`crate::play_selfplay_games_parallel`]).
    pub worker_time: Duration,
    /// Games won by the first player / drawn / won by the second player.
    pub first_wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games won by the second player.
    pub second_wins: u64,
    /// Games ended by resignation.
    pub resigned: u64,
    /// No-resign games in which a side fell below the threshold (would have resigned).
    pub would_resign: u64,
    /// … of which that side did not go on to lose (a false resignation).
    pub false_resign: u64,
    /// Games that started from a position of an earlier game ([`Restarts`]).
    pub restarted: u64,
    /// Games that started from a random start position ([`Starts`]).
    pub random_starts: u64,
}

impl SelfPlayStats {
    /// Share of the workers' time spent in the evaluator (0–1): `evaluator_time /
    /// worker_time` (with one worker, the share of wall time).
    pub fn evaluator_share(&self) -> f64 {
        let t = self.worker_time.as_secs_f64();
        if t > 0.0 {
            self.evaluator_time.as_secs_f64() / t
        } else {
            0.0
        }
    }

    /// Adds the counts and times of `other` (another worker's games) to these.
    pub fn add(&mut self, other: &SelfPlayStats) {
        self.games += other.games;
        self.plies += other.plies;
        self.full_plies += other.full_plies;
        self.evaluations += other.evaluations;
        self.evaluator_calls += other.evaluator_calls;
        self.evaluator_time += other.evaluator_time;
        self.total_time += other.total_time;
        self.worker_time += other.worker_time;
        self.first_wins += other.first_wins;
        self.draws += other.draws;
        self.second_wins += other.second_wins;
        self.resigned += other.resigned;
        self.would_resign += other.would_resign;
        self.false_resign += other.false_resign;
        self.restarted += other.restarted;
        self.random_starts += other.random_starts;
    }

    /// Average evaluator batch size.
    pub fn mean_batch(&self) -> f64 {
        if self.evaluator_calls == 0 {
            0.0
        } else {
            self.evaluations as f64 / self.evaluator_calls as f64
        }
    }
}

struct Slot<G: Game> {
    history: History<G>,
    /// The moves before the game's first ply (a restarted game), as action indices.
    prefix: Vec<u16>,
    /// The text of a random start position ([`Starts`]), empty for the game's start.
    start_text: String,
    search: Search<G>,
    plies: Vec<PlyRecord>,
    no_resign: bool,
    full_move: bool,
    /// Side that fell below the resignation threshold in a no-resign game (first time).
    would_resign: Option<Side>,
}

/// A slot is driven as its search tree.
impl<G: Game> Borrow<Search<G>> for Slot<G> {
    fn borrow(&self) -> &Search<G> {
        &self.search
    }
}

impl<G: Game> BorrowMut<Search<G>> for Slot<G> {
    fn borrow_mut(&mut self) -> &mut Search<G> {
        &mut self.search
    }
}

/// Plays `num_games` self-play games from `starts` (a start position, or a [`Starts`] with
/// random start positions) with `evaluator` and hands each finished game to `on_game` (in
/// order of completion) as a [`GameRecord`] (start text empty for a game from the start
/// position, whose config the caller knows; a random start's text otherwise).
/// `first_game_index` offsets the per-game seeds so that consecutive calls play different
/// games. A share of the games may start from positions of earlier games instead
/// (`config.restarts`, [`Restarts`]).
///
/// # Errors
/// [`SelfPlayError`] on an invalid config or an evaluator failure;
/// [`SelfPlayError::Restart`] when a restart position's moves do not replay from the start
/// or lead to a finished game; [`SelfPlayError::Invalid`] for a random-start share outside
/// `[0, 1]`.
pub fn play_selfplay_games<'a, G: Game + 'a, E: Evaluator<G> + ?Sized>(
    starts: impl Into<Starts<'a, G>>,
    evaluator: &E,
    config: &SelfPlayConfig,
    num_games: u64,
    first_game_index: u64,
    mut on_game: impl FnMut(GameRecord),
) -> Result<SelfPlayStats, SelfPlayError> {
    config.validate_search()?;
    if config.parallel_games == 0 {
        return Err(SelfPlayError::Invalid {
            field: "parallel_games",
            reason: "must be at least 1".into(),
        });
    }
    if let Some(pc) = config.playout_cap {
        if pc.fast_simulations == 0 || !(0.0..=1.0).contains(&pc.full_probability) {
            return Err(SelfPlayError::Invalid {
                field: "playout_cap",
                reason: format!(
                    "fast_simulations {} must be >= 1 and full_probability {} in [0, 1]",
                    pc.fast_simulations, pc.full_probability
                ),
            });
        }
    }
    let share = config.restarts.share;
    if !(0.0..=1.0).contains(&share) {
        return Err(SelfPlayError::Invalid {
            field: "restarts.share",
            reason: format!("{share} must be in [0, 1]"),
        });
    }
    let starts: Starts<'a, G> = starts.into();
    if !(0.0..=1.0).contains(&starts.random_share) {
        return Err(SelfPlayError::Invalid {
            field: "random_starts.share",
            reason: format!("{} must be in [0, 1]", starts.random_share),
        });
    }
    let t0 = Instant::now();
    let mut stats = SelfPlayStats::default();
    // The one seed mixer; even indices for this call's own draws, odd ones for each game's
    // search, so that the two never share a stream when the seeds are equal (as in training).
    let mut rng = StdRng::seed_from_u64(mix_seed(config.seed, 2 * first_game_index));
    let mut next_game = 0u64;
    let mut slots: Vec<Slot<G>> = Vec::new();
    let new_slot = |next_game: &mut u64, rng: &mut StdRng| -> Result<Slot<G>, SelfPlayError> {
        let game_index = first_game_index + *next_game;
        *next_game += 1;
        let budget = config.full_search(mix_seed(config.seed, 2 * game_index + 1));
        let prefix = config
            .restarts
            .choose(config.seed, game_index)
            .unwrap_or_default()
            .to_vec();
        let random = match prefix.is_empty() {
            true => starts.choose(config.seed, game_index),
            false => None,
        };
        let (start, start_text) = match random {
            Some((position, text)) => (position, text.clone()),
            None => (starts.start, String::new()),
        };
        let history = replay_prefix(start, &prefix, game_index)?;
        let search = Search::from_history(&history, config.search.clone(), budget)?;
        let no_resign = match config.resign {
            Some(r) => rng.random::<f32>() < r.no_resign_fraction,
            None => false,
        };
        Ok(Slot {
            history,
            prefix,
            start_text,
            search,
            plies: Vec::new(),
            no_resign,
            full_move: true,
            would_resign: None,
        })
    };
    while (slots.len() as u64) < num_games.min(config.parallel_games as u64) {
        let s = new_slot(&mut next_game, &mut rng)?;
        slots.push(s);
    }
    for s in slots.iter_mut() {
        start_move(s, config, &mut rng)?;
    }
    let mut driver = Driver::new();
    while !slots.is_empty() {
        // One round: every unfinished search contributes its leaves to one evaluator call.
        let round = driver.round(&mut slots, evaluator)?;
        if round.positions > 0 {
            stats.evaluator_time += round.eval_time;
            stats.evaluations += round.positions as u64;
            stats.evaluator_calls += 1;
        }
        // Finished searches make their move; finished games are emitted and replaced.
        let mut i = 0;
        while i < slots.len() {
            if !slots[i].search.is_done() {
                i += 1;
                continue;
            }
            let finished = make_move(&mut slots[i], config, &mut rng, &mut stats)?;
            if let Some(record) = finished {
                stats.games += 1;
                match record.result {
                    GameResult::FirstWon => stats.first_wins += 1,
                    GameResult::Draw => stats.draws += 1,
                    GameResult::SecondWon => stats.second_wins += 1,
                }
                if record.flags.resigned {
                    stats.resigned += 1;
                }
                on_game(record);
                if next_game < num_games {
                    slots[i] = new_slot(&mut next_game, &mut rng)?;
                    start_move(&mut slots[i], config, &mut rng)?;
                    i += 1;
                } else {
                    slots.swap_remove(i);
                }
            } else {
                start_move(&mut slots[i], config, &mut rng)?;
                i += 1;
            }
        }
    }
    stats.total_time = t0.elapsed();
    stats.worker_time = stats.total_time;
    Ok(stats)
}

/// The history of a game that starts after `prefix` (action indices) from `start`.
fn replay_prefix<G: Game>(
    start: &G,
    prefix: &[u16],
    game_index: u64,
) -> Result<History<G>, SelfPlayError> {
    let mut history = History::new(start.clone());
    for (ply, &action) in prefix.iter().enumerate() {
        history
            .play_action(action)
            .map_err(|e| SelfPlayError::Restart {
                game_index,
                ply,
                action,
                reason: e.to_string(),
            })?;
    }
    if let (Some(o), Some(&action)) = (history.outcome(), prefix.last()) {
        return Err(SelfPlayError::Restart {
            game_index,
            ply: prefix.len() - 1,
            action,
            reason: format!("it ends the game ({o:?} for the side to move)"),
        });
    }
    Ok(history)
}

/// Configures the next search of a slot (full or fast) and starts it.
fn start_move<G: Game>(
    slot: &mut Slot<G>,
    config: &SelfPlayConfig,
    rng: &mut StdRng,
) -> Result<(), SelfPlayError> {
    let full = match config.playout_cap {
        Some(pc) => rng.random::<f32>() < pc.full_probability,
        None => true,
    };
    slot.full_move = full;
    // The tree keeps the seed it was built with.
    let seed = slot.search.budget().seed;
    let budget = match config.playout_cap {
        Some(pc) if !full => SearchBudget {
            simulations: Some(pc.fast_simulations),
            root_noise: false,
            seed,
        },
        _ => config.full_search(seed),
    };
    slot.search.set_budget(budget)?;
    slot.search.begin_run();
    Ok(())
}

/// The search of `slot` is done: record the ply, choose and play the move. Returns the game
/// record when the game has ended.
fn make_move<G: Game>(
    slot: &mut Slot<G>,
    config: &SelfPlayConfig,
    rng: &mut StdRng,
    stats: &mut SelfPlayStats,
) -> Result<Option<GameRecord>, SelfPlayError> {
    let result = slot.search.result();
    let pos = slot.history.current();
    let side = pos.side_to_move();
    let ply = slot.history.len() as u32;
    // Resignation (never on a proven or terminal root: those end by themselves).
    if let Some(r) = config.resign {
        if ply >= r.min_ply && result.root_value < r.threshold && result.best_move.is_some() {
            if slot.no_resign {
                if slot.would_resign.is_none() {
                    slot.would_resign = Some(side);
                }
            } else {
                let res = GameResult::from_outcome(Outcome::Loss, side);
                return Ok(Some(finish(
                    slot,
                    res,
                    GameFlags {
                        resigned: true,
                        no_resign: false,
                        truncated: false,
                    },
                    stats,
                )));
            }
        }
    }
    let tau = if ply < config.temperature_moves {
        config.temperature
    } else {
        config.final_temperature
    };
    let mv = match select_move(&result, tau, rng) {
        Some(m) => m,
        None => {
            // Terminal root: should have been caught after the previous move.
            let o = slot.history.outcome().unwrap_or(Outcome::Draw);
            let res = GameResult::from_outcome(o, side);
            return Ok(Some(finish(slot, res, flags(slot, false), stats)));
        }
    };
    let action = pos.move_to_action(mv) as u16;
    let children: Vec<(usize, Option<Outcome>)> = result
        .children
        .iter()
        .map(|c| (c.action, c.proven))
        .collect();
    let policy = policy_target(&result.policy, &children);
    let sims = if slot.full_move {
        result.simulations.clamp(1, u16::MAX as u32) as u16
    } else {
        0
    };
    let mut rec = PlyRecord::new(action, &policy, result.root_value, sims);
    // A hard position: some move loses at once (the opponent has an immediate threat).
    rec.threat = result
        .children
        .iter()
        .any(|c| c.proven == Some(Outcome::Loss));
    slot.plies.push(rec);
    stats.plies += 1;
    if slot.full_move {
        stats.full_plies += 1;
    }
    slot.history.play_unchecked(mv);
    slot.search
        .advance(mv)
        .map_err(|e| SelfPlayError::Invalid {
            field: "search",
            reason: e.to_string(),
        })?;
    if let Some(o) = slot.history.outcome() {
        let res = GameResult::from_outcome(o, slot.history.current().side_to_move());
        return Ok(Some(finish(slot, res, flags(slot, false), stats)));
    }
    if slot.history.len() as u32 >= config.max_plies {
        return Ok(Some(finish(
            slot,
            GameResult::Draw,
            flags(slot, true),
            stats,
        )));
    }
    Ok(None)
}

/// The policy target π recorded for a ply: the search's policy (`[num_actions]`) as sparse
/// `(action, probability)` pairs, without the moves the search proved losing.
///
/// `children` are the root's moves as `(action index, proven result of playing it from the
/// root's side to move)`. The search's π counts the visits a move got before the solver (or a
/// terminal check) proved it lost, so after a proof, e.g. at a root proven drawn, part of π
/// still sits on losing moves. Those entries are dropped and the rest renormalised; when the
/// non-losing moves got no weight at all, π is uniform over them. When every move is proven
/// lost (a lost root) nothing is dropped: any π would name a losing move, and the visits
/// still rank how long each one resists.
fn policy_target(policy: &[f32], children: &[(usize, Option<Outcome>)]) -> Vec<(u16, f32)> {
    let all = || {
        policy
            .iter()
            .enumerate()
            .filter(|(_, &p)| p > 0.0)
            .map(|(a, &p)| (a as u16, p))
            .collect::<Vec<_>>()
    };
    let lost = |a: usize| {
        children
            .iter()
            .any(|&(c, proven)| c == a && proven == Some(Outcome::Loss))
    };
    let keep: Vec<usize> = children
        .iter()
        .filter(|&&(_, proven)| proven != Some(Outcome::Loss))
        .map(|&(a, _)| a)
        .collect();
    if keep.is_empty() || keep.len() == children.len() {
        return all();
    }
    let kept: Vec<(u16, f32)> = all()
        .into_iter()
        .filter(|&(a, _)| !lost(a.into()))
        .collect();
    let mass: f32 = kept.iter().map(|&(_, p)| p).sum();
    if mass > 0.0 {
        kept.into_iter().map(|(a, p)| (a, p / mass)).collect()
    } else {
        let p = 1.0 / keep.len() as f32;
        keep.into_iter().map(|a| (a as u16, p)).collect()
    }
}

fn flags<G: Game>(slot: &Slot<G>, truncated: bool) -> GameFlags {
    GameFlags {
        resigned: false,
        no_resign: slot.no_resign,
        truncated,
    }
}

fn finish<G: Game>(
    slot: &mut Slot<G>,
    result: GameResult,
    flags: GameFlags,
    stats: &mut SelfPlayStats,
) -> GameRecord {
    if !slot.prefix.is_empty() {
        stats.restarted += 1;
    }
    if !slot.start_text.is_empty() {
        stats.random_starts += 1;
    }
    if let Some(side) = slot.would_resign {
        stats.would_resign += 1;
        let lost = matches!(
            (side, result),
            (Side::First, GameResult::SecondWon) | (Side::Second, GameResult::FirstWon)
        );
        if !lost {
            stats.false_resign += 1;
        }
    }
    GameRecord {
        start: std::mem::take(&mut slot.start_text),
        result,
        flags: GameFlags {
            no_resign: slot.no_resign,
            ..flags
        },
        prefix: std::mem::take(&mut slot.prefix),
        plies: std::mem::take(&mut slot.plies),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_target_drops_moves_proven_losing() {
        let policy = [0.5, 0.25, 0.25, 0.0];
        let children = [
            (0, Some(Outcome::Loss)),
            (1, None),
            (2, Some(Outcome::Draw)),
            (3, None),
        ];
        assert_eq!(policy_target(&policy, &children), vec![(1, 0.5), (2, 0.5)]);
        // No proof: π as searched, zero entries left out.
        let open = [(0, None), (1, None), (2, None), (3, None)];
        assert_eq!(
            policy_target(&policy, &open),
            vec![(0, 0.5), (1, 0.25), (2, 0.25)]
        );
        // Every move lost: nothing to move the weight to, π as searched.
        let lost = [0, 1, 2, 3].map(|a| (a, Some(Outcome::Loss)));
        assert_eq!(policy_target(&policy, &lost).len(), 3);
        // All the weight on losing moves, an unvisited move proven drawn: it gets π.
        let draw_unvisited = [
            (0, Some(Outcome::Loss)),
            (1, Some(Outcome::Loss)),
            (2, Some(Outcome::Loss)),
            (3, Some(Outcome::Draw)),
        ];
        assert_eq!(policy_target(&policy, &draw_unvisited), vec![(3, 1.0)]);
    }
}
