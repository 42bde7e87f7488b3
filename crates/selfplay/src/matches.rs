//! Evaluator-vs-evaluator matches (gating, net-vs-net arena games), batched across games.

use alphazero_game::{Game, History, Side};
use alphazero_mcts::{EvalRequest, Evaluator, Search, SearchConfig};
use alphazero_records::GameResult;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::{evaluate_round, SelfPlayError};

/// A match between two evaluators.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchConfig {
    /// Number of games; rounded up to an even number so that each opening is played with both
    /// colours.
    pub games: u32,
    /// The search both sides use (fixed simulations; root noise should be off).
    pub search: SearchConfig,
    /// Random plies played before the searches take over, so that games differ (each
    /// opening is played twice, colours swapped).
    pub opening_random_plies: u32,
    /// Games reaching this many plies are scored a draw.
    pub max_plies: u32,
    /// Games played at the same time.
    pub parallel_games: usize,
    /// Seed of the openings and searches.
    pub seed: u64,
}

/// The result of a match, counted from player A's side.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MatchOutcome {
    /// Games A won.
    pub wins: u32,
    /// Drawn games.
    pub draws: u32,
    /// Games A lost.
    pub losses: u32,
    /// Every game: (A played first, moves in the game's notation, result).
    pub games: Vec<(bool, Vec<String>, GameResult)>,
}

impl MatchOutcome {
    /// A's score (wins + draws/2) / games, 0.5 for no games.
    pub fn score(&self) -> f64 {
        let n = (self.wins + self.draws + self.losses) as f64;
        if n == 0.0 {
            0.5
        } else {
            (self.wins as f64 + 0.5 * self.draws as f64) / n
        }
    }
}

struct MatchSlot<G: Game> {
    index: usize,
    a_first: bool,
    history: History<G>,
    search_a: Search<G>,
    search_b: Search<G>,
    started: bool,
}

impl<G: Game> MatchSlot<G> {
    fn a_to_move(&self) -> bool {
        (self.history.current().side_to_move() == Side::First) == self.a_first
    }
}

/// A random opening of `plies` moves from `start` that does not end the game (shorter if
/// every continuation would end it).
fn random_opening<G: Game>(start: &G, plies: u32, rng: &mut StdRng) -> History<G> {
    let mut h = History::new(start.clone());
    let mut moves = Vec::new();
    for _ in 0..plies {
        h.current().candidate_moves(&mut moves);
        let mut tries = 0;
        loop {
            if moves.is_empty() || tries > 16 {
                return h;
            }
            let i = rng.random_range(0..moves.len());
            let mv = moves.swap_remove(i);
            h.play_unchecked(mv);
            if h.outcome().is_none() {
                break;
            }
            h.undo();
            tries += 1;
        }
    }
    h
}

/// Plays `config.games` games between evaluator A and evaluator B (colours alternating, each
/// random opening played with both colours) and counts the result from A's side. Every round,
/// the leaves of all games where A is to move go to A in one call, and likewise for B.
///
/// # Errors
/// [`SelfPlayError`] on an invalid search config or an evaluator failure.
pub fn play_match<G: Game, A: Evaluator<G> + ?Sized, B: Evaluator<G> + ?Sized>(
    start: &G,
    a: &A,
    b: &B,
    config: &MatchConfig,
) -> Result<MatchOutcome, SelfPlayError> {
    config.search.validate()?;
    let games = config.games.div_ceil(2) * 2;
    let mut rng = StdRng::seed_from_u64(config.seed);
    let openings: Vec<History<G>> = (0..games / 2)
        .map(|_| random_opening(start, config.opening_random_plies, &mut rng))
        .collect();
    let mut results: Vec<Option<(bool, Vec<String>, GameResult)>> = vec![None; games as usize];
    let make_slot = |i: usize| -> Result<MatchSlot<G>, SelfPlayError> {
        let history = openings[i / 2].clone();
        let mut sc = config.search.clone();
        sc.seed = config.seed ^ (i as u64 / 2).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Ok(MatchSlot {
            index: i,
            a_first: i.is_multiple_of(2),
            search_a: Search::from_history(&history, sc.clone())?,
            search_b: Search::from_history(&history, sc)?,
            history,
            started: false,
        })
    };
    let mut next = 0usize;
    let mut slots: Vec<MatchSlot<G>> = Vec::new();
    while next < games as usize && slots.len() < config.parallel_games.max(1) {
        slots.push(make_slot(next)?);
        next += 1;
    }
    let (mut logits, mut values) = (Vec::new(), Vec::new());
    let mut requests: Vec<EvalRequest<'static, G>> = Vec::new();
    while !slots.is_empty() {
        for s in slots.iter_mut().filter(|s| !s.started) {
            s.started = true;
            if s.a_to_move() {
                s.search_a.begin_run();
            } else {
                s.search_b.begin_run();
            }
        }
        {
            let mut refs: Vec<&mut Search<G>> = slots
                .iter_mut()
                .filter(|s| s.a_to_move())
                .map(|s| &mut s.search_a)
                .collect();
            evaluate_round(&mut refs, a, &mut logits, &mut values, &mut requests)?;
        }
        {
            let mut refs: Vec<&mut Search<G>> = slots
                .iter_mut()
                .filter(|s| !s.a_to_move())
                .map(|s| &mut s.search_b)
                .collect();
            evaluate_round(&mut refs, b, &mut logits, &mut values, &mut requests)?;
        }
        let mut i = 0;
        while i < slots.len() {
            let s = &mut slots[i];
            let over = s.history.outcome().is_some();
            let done = over
                || if s.a_to_move() {
                    s.search_a.is_done()
                } else {
                    s.search_b.is_done()
                };
            if !done {
                i += 1;
                continue;
            }
            if !over {
                let result = if s.a_to_move() {
                    s.search_a.result()
                } else {
                    s.search_b.result()
                };
                if let Some(mv) = result.best_move {
                    s.history.play_unchecked(mv);
                    let _ = s.search_a.advance(mv);
                    let _ = s.search_b.advance(mv);
                }
            }
            let outcome = s.history.outcome();
            let finished = match outcome {
                Some(o) => Some(GameResult::from_outcome(
                    o,
                    s.history.current().side_to_move(),
                )),
                None if s.history.len() as u32 >= config.max_plies => Some(GameResult::Draw),
                None => None,
            };
            match finished {
                Some(res) => {
                    let pos0 = s.history.start().clone();
                    let mut replay = pos0;
                    let mut text = Vec::with_capacity(s.history.len());
                    for &m in s.history.moves() {
                        text.push(replay.format_move(m));
                        replay.play_unchecked(m);
                    }
                    results[s.index] = Some((s.a_first, text, res));
                    if next < games as usize {
                        slots[i] = make_slot(next)?;
                        next += 1;
                        i += 1;
                    } else {
                        slots.swap_remove(i);
                    }
                }
                None => {
                    s.started = false;
                    i += 1;
                }
            }
        }
    }
    let mut out = MatchOutcome::default();
    for (a_first, moves, res) in results.into_iter().flatten() {
        let a_side_won = match res {
            GameResult::FirstWon => Some(a_first),
            GameResult::SecondWon => Some(!a_first),
            GameResult::Draw => None,
        };
        match a_side_won {
            Some(true) => out.wins += 1,
            Some(false) => out.losses += 1,
            None => out.draws += 1,
        }
        out.games.push((a_first, moves, res));
    }
    Ok(out)
}
