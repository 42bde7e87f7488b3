//! Self-play on several cores: one single-threaded worker per core, each with its own games
//! and its own evaluator.

use std::collections::VecDeque;
use std::sync::mpsc;
use std::time::Instant;

use alphazero_game::Game;
use alphazero_mcts::Evaluator;
use alphazero_records::GameRecord;

use crate::{play_selfplay_games, SelfPlayConfig, SelfPlayError, SelfPlayStats, Starts};

/// The number of workers [`play_selfplay_games_parallel`] runs for a `workers` setting
/// (0 = one per core, as `std::thread::available_parallelism` counts them), `num_games` games
/// and `parallel_games` games at once: never more workers than games, nor than games at once.
pub fn worker_count(workers: usize, num_games: u64, parallel_games: usize) -> usize {
    let wanted = if workers == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        workers
    };
    let games = usize::try_from(num_games).unwrap_or(usize::MAX);
    wanted.min(games).min(parallel_games).max(1)
}

/// Plays `num_games` self-play games from `starts` like [`play_selfplay_games`], split over
/// [`worker_count`]`(workers, …)` worker threads.
///
/// Worker `w` plays a contiguous share of the games (game indices `first_game_index + o_w ..
/// first_game_index + o_w + n_w`, the shares differing by at most one game) with
/// `⌈parallel_games / workers⌉` games at once, through its own evaluator `make_evaluator(w)`
/// (called on the worker's thread; give each worker its own cache, sharing the network's
/// weights). Each worker is single-threaded: it runs inside its own one-thread rayon pool, so
/// an evaluator that splits its work over rayon's threads (the network's convolutions) runs
/// serially there and the cores are used by the workers instead. With one worker this is
/// exactly [`play_selfplay_games`] on the calling thread (and rayon's global pool).
///
/// Determinism: a worker is [`play_selfplay_games`] with first game index
/// `first_game_index + o_w`, so for a fixed seed, worker count and deterministic evaluators
/// the games are the same on every run. Each game's search is seeded from the game's index
/// alone, but the move choices (temperature), playout-cap draws and no-resign draws come from
/// one random stream per worker, so another worker count plays other games.
///
/// `on_game` runs on the calling thread as games finish, in a fixed order: round-robin over
/// the workers (the first game of worker 0, the first of worker 1, …, the second of worker 0,
/// …), each worker's games in the order it finished them, skipping workers that have no game
/// left. A game is handed over once every game before it in that order has been.
///
/// The statistics are summed over the workers; `total_time` is the wall time of the call and
/// `worker_time` the sum of the workers' wall times.
///
/// # Errors
/// The first worker's error (in worker order) if any worker failed; games already finished
/// by the others have been handed to `on_game`. Failing to start a worker thread is
/// [`SelfPlayError::Invalid`] for `workers`.
pub fn play_selfplay_games_parallel<'a, G, E>(
    starts: impl Into<Starts<'a, G>>,
    workers: usize,
    make_evaluator: impl Fn(usize) -> E + Sync,
    config: &SelfPlayConfig,
    num_games: u64,
    first_game_index: u64,
    mut on_game: impl FnMut(GameRecord),
) -> Result<SelfPlayStats, SelfPlayError>
where
    G: Game + 'a,
    E: Evaluator<G>,
{
    let starts: Starts<'a, G> = starts.into();
    let n = worker_count(workers, num_games, config.parallel_games);
    if n == 1 {
        let evaluator = make_evaluator(0);
        return play_selfplay_games(
            starts,
            &evaluator,
            config,
            num_games,
            first_game_index,
            on_game,
        );
    }
    config.validate_search()?;
    let t0 = Instant::now();
    let per_worker = SelfPlayConfig {
        parallel_games: config.parallel_games.div_ceil(n),
        ..config.clone()
    };
    // Worker w: games [offset_w, offset_w + count_w) of this call.
    let shares: Vec<(u64, u64)> = (0..n as u64)
        .scan(0u64, |offset, w| {
            let count = num_games / n as u64 + u64::from(w < num_games % n as u64);
            let share = (*offset, count);
            *offset += count;
            Some(share)
        })
        .collect();
    enum Msg {
        Game(usize, GameRecord),
        Done(usize, Result<SelfPlayStats, SelfPlayError>),
    }
    let (tx, rx) = mpsc::channel::<Msg>();
    let mut results: Vec<Option<Result<SelfPlayStats, SelfPlayError>>> =
        (0..n).map(|_| None).collect();
    let mut queues: Vec<VecDeque<GameRecord>> = (0..n).map(|_| VecDeque::new()).collect();
    let mut turn = 0usize;
    std::thread::scope(|scope| -> Result<(), SelfPlayError> {
        for (w, &(offset, count)) in shares.iter().enumerate() {
            let tx = tx.clone();
            let (make_evaluator, per_worker) = (&make_evaluator, &per_worker);
            let spawned = std::thread::Builder::new()
                .name(format!("selfplay-{w}"))
                .spawn_scoped(scope, move || {
                    let run = || {
                        let evaluator = make_evaluator(w);
                        play_selfplay_games(
                            starts,
                            &evaluator,
                            per_worker,
                            count,
                            first_game_index + offset,
                            |g| {
                                let _ = tx.send(Msg::Game(w, g));
                            },
                        )
                    };
                    let result = match rayon::ThreadPoolBuilder::new().num_threads(1).build() {
                        Ok(pool) => pool.install(run),
                        Err(e) => Err(SelfPlayError::Invalid {
                            field: "workers",
                            reason: format!("cannot start the thread pool of worker {w}: {e}"),
                        }),
                    };
                    let _ = tx.send(Msg::Done(w, result));
                });
            if let Err(e) = spawned {
                // Workers already started finish their games; their results are dropped.
                results[w] = Some(Err(SelfPlayError::Invalid {
                    field: "workers",
                    reason: format!("cannot start worker thread {w}: {e}"),
                }));
                for r in results.iter_mut().skip(w + 1) {
                    *r = Some(Ok(SelfPlayStats::default()));
                }
                break;
            }
        }
        drop(tx);
        for msg in rx {
            match msg {
                Msg::Game(w, g) => queues[w].push_back(g),
                Msg::Done(w, r) => results[w] = Some(r),
            }
            // Hand over every game whose turn has come.
            loop {
                if let Some(g) = queues[turn].pop_front() {
                    on_game(g);
                } else if results[turn].is_none() {
                    break;
                }
                // This worker gave a game or has none left: the next one with games to come.
                match (1..=n)
                    .map(|k| (turn + k) % n)
                    .find(|&v| !queues[v].is_empty() || results[v].is_none())
                {
                    Some(next) => turn = next,
                    None => break,
                }
            }
        }
        Ok(())
    })?;
    let mut stats = SelfPlayStats::default();
    for r in results {
        let s = r.unwrap_or_else(|| {
            Err(SelfPlayError::Invalid {
                field: "workers",
                reason: "a worker thread stopped without a result".into(),
            })
        })?;
        stats.add(&s);
    }
    stats.total_time = t0.elapsed();
    Ok(stats)
}
