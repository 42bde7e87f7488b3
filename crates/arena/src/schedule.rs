//! Playing a match: its schedule (every pair of entrants × every opening × both colours),
//! played on worker threads, or batched when every entrant is a batched search
//! ([`crate::batched`]); and the two-entrant match stopped early by an SPRT.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use alphazero_game::{mix_seed, Game, History, Side};

use crate::batched::{play_batched, Finished};
use crate::matches::{
    panic_message, play_game, player_seed, random_opening, result_text, BatchedSearch, GameRecord,
    MatchConfig, MatchError, MatchResult, Pairing, Scheduled, SideName, Termination, ThinkTime,
};
use crate::player::Player;
use crate::rating::{sprt_match, Sprt, SprtMatch};

/// Plays a match: every pair of [`MatchConfig::pairing`] plays
/// [`MatchConfig::openings_per_pair`] openings, each with both colours, on
/// [`MatchConfig::threads`] threads. Each thread makes its own players from the factories and
/// re-seeds them per game ([`Player::set_seed`] with a seed derived from the match seed and
/// the game index), so the records do not depend on the thread count or timing for players
/// that are deterministic given their seed.
///
/// When every entrant has a [batched search](Entrant::batched_search) and the limits set no
/// `movetime`, the games are played batched instead, all at once on the calling thread: each
/// round, the leaves of every game where an entrant is to move go to its evaluator in one
/// call. The records are those its players would give (same seeds, same trees) for
/// deterministic evaluators.
///
/// # Errors
/// [`MatchError`] for fewer than two entrants, a bad gauntlet index, or when no opening can be
/// drawn. Player failures do not stop the match; they lose their game.
pub fn run_match<G: Game>(config: &MatchConfig<G>) -> Result<MatchResult, MatchError> {
    let n = config.entrants.len();
    if n < 2 {
        return Err(MatchError::TooFewEntrants(n));
    }
    let pairs: Vec<(usize, usize)> = match config.pairing {
        Pairing::RoundRobin => (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .collect(),
        Pairing::Gauntlet { challenger } => {
            if challenger >= n {
                return Err(MatchError::BadChallenger {
                    index: challenger,
                    entrants: n,
                });
            }
            (0..n)
                .filter(|&b| b != challenger)
                .map(|b| (challenger, b))
                .collect()
        }
    };
    let openings: Vec<History<G>> = (0..config.openings_per_pair as u64)
        .map(|i| match &config.book {
            Some(book) => Ok(book.opening(i as usize).clone()),
            None => random_opening(
                &config.start,
                config.opening_plies,
                mix_seed(config.seed, i),
            ),
        })
        .collect::<Result<_, _>>()?;
    let mut schedule = Vec::new();
    for o in 0..openings.len() {
        for &(a, b) in &pairs {
            schedule.push(Scheduled {
                first: a,
                second: b,
                opening: o,
            });
            schedule.push(Scheduled {
                first: b,
                second: a,
                opening: o,
            });
        }
    }
    let batched: Option<Vec<&BatchedSearch<G>>> = config
        .entrants
        .iter()
        .map(|e| e.batched.as_ref())
        .collect::<Option<_>>()
        .filter(|_| config.limits.movetime.is_none());
    if let Some(searches) = batched {
        let mut games: Vec<Option<GameRecord>> = vec![None; schedule.len()];
        play_batched(config, &openings, &schedule, &searches, |f: Finished<G>| {
            let s = &schedule[f.index];
            let record = game_record(
                config,
                s,
                f.index,
                &openings[s.opening],
                f.winner,
                f.termination,
                &f.history,
            );
            if let Some(cb) = &config.on_game {
                cb(&record);
            }
            games[f.index] = Some(record);
        });
        return Ok(MatchResult {
            game: G::NAME.to_string(),
            players: config.entrants.iter().map(|e| e.name.clone()).collect(),
            games: games.into_iter().flatten().collect(),
        });
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<GameRecord>>> = Mutex::new(vec![None; schedule.len()]);
    let threads = config.threads.clamp(1, schedule.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut players: Vec<Option<Box<dyn Player<G>>>> = (0..n).map(|_| None).collect();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(s) = schedule.get(i) else { break };
                    let record = play_scheduled(config, &openings, &mut players, s, i);
                    if let Some(cb) = &config.on_game {
                        cb(&record);
                    }
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(record);
                }
            });
        }
    });
    let games = results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .flatten()
        .collect();
    Ok(MatchResult {
        game: G::NAME.to_string(),
        players: config.entrants.iter().map(|e| e.name.clone()).collect(),
        games,
    })
}

fn make_player<G: Game>(
    config: &MatchConfig<G>,
    players: &mut [Option<Box<dyn Player<G>>>],
    i: usize,
) -> Result<Box<dyn Player<G>>, String> {
    match players[i].take() {
        Some(p) => Ok(p),
        None => catch_unwind(AssertUnwindSafe(|| (config.entrants[i].factory)()))
            .map_err(|p| panic_message(&*p)),
    }
}

fn play_scheduled<G: Game>(
    config: &MatchConfig<G>,
    openings: &[History<G>],
    players: &mut [Option<Box<dyn Player<G>>>],
    s: &Scheduled,
    index: usize,
) -> GameRecord {
    let opening = &openings[s.opening];
    let record = |winner: Option<Side>, termination: Termination, history: &History<G>| {
        game_record(config, s, index, opening, winner, termination, history)
    };
    let mut a = match make_player(config, players, s.first) {
        Ok(p) => p,
        Err(m) => {
            let t = Termination::Failure {
                side: SideName::First,
                message: format!("factory panicked: {m}"),
            };
            return record(Some(Side::Second), t, opening);
        }
    };
    let mut b = match make_player(config, players, s.second) {
        Ok(p) => p,
        Err(m) => {
            players[s.first] = Some(a);
            let t = Termination::Failure {
                side: SideName::Second,
                message: format!("factory panicked: {m}"),
            };
            return record(Some(Side::First), t, opening);
        }
    };
    a.set_seed(player_seed(config.seed, index, Side::First));
    b.set_seed(player_seed(config.seed, index, Side::Second));
    let r = play_game(
        a.as_mut(),
        b.as_mut(),
        opening.clone(),
        &config.limits,
        config.max_plies,
    );
    players[s.first] = Some(a);
    players[s.second] = Some(b);
    GameRecord {
        think: r.think,
        ..record(r.winner, r.termination, &r.history)
    }
}

/// The record of game `index` of the schedule (`s`, from `opening`): `history` is the whole
/// game, opening included.
fn game_record<G: Game>(
    config: &MatchConfig<G>,
    s: &Scheduled,
    index: usize,
    opening: &History<G>,
    winner: Option<Side>,
    termination: Termination,
    history: &History<G>,
) -> GameRecord {
    let mut pos = history.start().clone();
    let moves = history
        .moves()
        .iter()
        .map(|&m| {
            let t = pos.format_move(m);
            pos.play_unchecked(m);
            t
        })
        .collect();
    GameRecord {
        index,
        first: s.first,
        second: s.second,
        first_name: config.entrants[s.first].name.clone(),
        second_name: config.entrants[s.second].name.clone(),
        opening: s.opening,
        opening_plies: opening.len(),
        result: result_text(winner).to_string(),
        winner: winner.map(|w| if w == Side::First { s.first } else { s.second }),
        termination,
        moves,
        think: [ThinkTime::default(); 2],
    }
}

/// A two-entrant match stopped early by an SPRT on entrant 0's W/D/L against entrant 1
/// ([`sprt_match`]): the openings are played in chunks of `config.threads` (each chunk a
/// [`run_match`] with its own seed mixed from `config.seed` and the games already played)
/// until the test decides or `config.openings_per_pair` openings were played. Without a
/// test it is one [`run_match`]. `on_chunk` is called with the games of each chunk as it
/// ends (progress). Returns all games and, with a test, its W/D/L, LLR and decision. Gating
/// and `alphazero arena --sprt` both run their match through it.
///
/// # Errors
/// The errors of [`run_match`].
pub fn run_match_sprt<G: Game>(
    config: &MatchConfig<G>,
    sprt: Option<&Sprt>,
    mut on_chunk: impl FnMut(&MatchResult),
) -> Result<(MatchResult, Option<SprtMatch>), MatchError> {
    let Some(sprt) = sprt else {
        let r = run_match(config)?;
        on_chunk(&r);
        return Ok((r, None));
    };
    let mut all = MatchResult {
        game: G::NAME.into(),
        players: config.entrants.iter().map(|e| e.name.clone()).collect(),
        games: Vec::new(),
    };
    let chunk = (config.threads as u32).max(1);
    let m = sprt_match(Some(sprt), config.openings_per_pair, chunk, |k, done, _| {
        let cfg = MatchConfig {
            openings_per_pair: k,
            book: config.book.as_ref().map(|b| b.skip(done as usize)),
            seed: mix_seed(config.seed, u64::from(done)),
            ..config.clone()
        };
        let r = run_match(&cfg)?;
        on_chunk(&r);
        let wdl = r.first_pair_wdl();
        all.append_pair(r, 0, 1);
        Ok::<_, MatchError>(wdl)
    })?;
    Ok((all, Some(m)))
}
