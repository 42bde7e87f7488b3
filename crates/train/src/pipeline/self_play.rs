//! **Self-play**: the champion's games of an iteration, and where a run's games come from
//! ([`BatchSource`]: this process's self-play, or a learner's actors).

use std::sync::Arc;
use std::time::Instant;

use alphazero_game::mix_seed as mix;
use alphazero_mcts::CachedEvaluator;
use alphazero_nn::{Encode, NetworkEvaluator};
use alphazero_selfplay::{
    play_selfplay_games_parallel, worker_count, RestartPositions, SelfPlayStats, Starts,
};

use super::{Iteration, Pipeline};
use crate::error::PipelineError;
use crate::metrics::ActorIntake;
use crate::observer::Stage;
use crate::record::{write_records, GameRecord, RecordHeader};
use crate::replay::ReplayBuffer;
use crate::run_dir::RunDir;
use crate::settings::selfplay_config;
use crate::state::RunState;

/// The tag of the random start positions' seed stream (apart from self-play's own draws).
const RANDOM_START_TAG: u64 = u64::from_le_bytes(*b"randpos_");

/// One self-play batch ([`Pipeline::self_play`]), written as one record file.
#[derive(Clone, Debug)]
pub struct SelfPlayBatch {
    /// The record file's key (`records/<id>.azr`).
    pub key: String,
    /// The id of the first game; the others follow.
    pub first_game_id: u64,
    /// The games, in id order.
    pub games: Vec<GameRecord>,
    /// Counts and times of the self-play.
    pub stats: SelfPlayStats,
    /// Wall-clock seconds, the write included (for a learner: since its last take).
    pub seconds: f64,
    /// Whether the games were played in this process, so that `stats`' times and network
    /// share are known (`false` for a learner's batches of actors' games: those are absent
    /// from its metrics, not 0).
    pub played_here: bool,
    /// How a learner took these games from actors; `None` when they were played here.
    pub intake: Option<ActorIntake>,
}

impl<G: Encode> Pipeline<'_, G> {
    /// **Self-play**: `selfplay.games_per_iteration` games of `it`'s champion against itself
    /// ([`Pipeline::self_play_games`], a share restarted from positions of `buffer`'s games
    /// under `[selfplay.restarts]`) written as the record file `records/<record_id>.azr`
    /// ([`Pipeline::record_file`]); the games get ids from `first_game_id` on.
    ///
    /// # Errors
    /// A network or self-play error; [`PipelineError::Storage`] writing the file.
    pub fn self_play(
        &self,
        it: &Iteration<'_>,
        buffer: &ReplayBuffer<G>,
        first_game_id: u64,
        record_id: u64,
    ) -> Result<SelfPlayBatch, PipelineError> {
        let start = Instant::now();
        let games_n = u64::from(self.cfg.selfplay.games_per_iteration);
        let (games, stats) = self.self_play_games(it, buffer, games_n, first_game_id)?;
        let key = RunDir::record_key(record_id);
        self.storage
            .put(&key, &self.record_file(first_game_id, &games)?)?;
        Ok(SelfPlayBatch {
            key,
            first_game_id,
            games,
            stats,
            seconds: start.elapsed().as_secs_f64(),
            played_here: true,
            intake: None,
        })
    }

    /// The games of self-play, without writing them: `games` games of `it`'s champion against
    /// itself with the run's `[selfplay]` settings and `it`'s seed, many at once with their
    /// leaves batched through the network, one worker per core (`selfplay.workers`); ids
    /// from `first_game_id` on, in id order. With `selfplay.restarts.share` > 0, that share of the
    /// games starts from positions of `buffer`'s games ([`Pipeline::restart_positions`]);
    /// with `selfplay.random_starts.share` > 0, that share of the others from random start
    /// positions ([`Pipeline::random_starts`]).
    /// The one self-play code path of `train` (through [`Pipeline::self_play`]) and of an
    /// actor ([`crate::roles::run_actor`]).
    ///
    /// # Errors
    /// A network or self-play error.
    pub fn self_play_games(
        &self,
        it: &Iteration<'_>,
        buffer: &ReplayBuffer<G>,
        games: u64,
        first_game_id: u64,
    ) -> Result<(Vec<GameRecord>, SelfPlayStats), PipelineError> {
        let Iteration {
            number: iteration,
            seed,
            champion,
            observer,
        } = *it;
        let cfg = &self.cfg;
        let start_pos = self.start_position();
        let mut sp_cfg = selfplay_config(cfg, seed);
        sp_cfg.restarts.positions = Arc::new(self.restart_positions(buffer));
        let random = self.random_starts(games, seed);
        let starts = Starts {
            start: &start_pos,
            random_share: cfg.selfplay.random_starts.share as f32,
            random: &random,
        };
        let net = NetworkEvaluator::<G>::new(champion, &self.model_config, &self.device)?;
        observer.stage_started(Stage::SelfPlay, iteration, games);
        let mut out: Vec<GameRecord> = Vec::with_capacity(games as usize);
        // One worker per core (selfplay.workers), each with its own cache.
        let workers = worker_count(cfg.selfplay.workers as usize, games, sp_cfg.parallel_games);
        let stats = play_selfplay_games_parallel(
            starts,
            workers,
            |_| CachedEvaluator::new(net.clone(), 200_000 / workers),
            &sp_cfg,
            games,
            first_game_id,
            |g| {
                out.push(g);
                observer.advanced(Stage::SelfPlay, 1);
            },
        )?;
        observer.stage_finished(Stage::SelfPlay);
        Ok((out, stats))
    }

    /// The random start positions (with their texts) an iteration's `games` games may start
    /// from, one a game, drawn from `seed` by the game's
    /// [`alphazero_registry::Registered::random_start`]; none when
    /// `selfplay.random_starts.share` is 0 or the game has no random starts.
    pub fn random_starts(&self, games: u64, seed: u64) -> Vec<(G, String)> {
        let r = &self.cfg.selfplay.random_starts;
        if r.share <= 0.0 {
            return Vec::new();
        }
        let stream = mix(seed, RANDOM_START_TAG);
        (0..games)
            .map_while(|i| {
                G::random_start(&self.game_config, r.max_removed, r.plies, mix(stream, i))
            })
            .collect()
    }

    /// The positions of `buffer`'s games that restarted self-play games start from:
    /// those `selfplay.restarts.rule` picks ([`ReplayBuffer::restart_positions`]); none when
    /// restarts are off (`selfplay.restarts.share` 0).
    pub fn restart_positions(&self, buffer: &ReplayBuffer<G>) -> RestartPositions {
        let r = &self.cfg.selfplay.restarts;
        if r.share > 0.0 {
            buffer.restart_positions(r.rule, r.window as usize)
        } else {
            RestartPositions::new()
        }
    }

    /// The bytes of a record file of the run's game holding `games`, whose ids start at
    /// `first_game_id`.
    ///
    /// # Errors
    /// [`PipelineError::Record`].
    pub fn record_file(
        &self,
        first_game_id: u64,
        games: &[GameRecord],
    ) -> Result<Vec<u8>, PipelineError> {
        let header = RecordHeader::for_spec(&self.tag, self.num_actions(), first_game_id);
        Ok(write_records(&header, games)?)
    }
}

/// Where the games of each iteration of [`Pipeline::run_with`] come from.
pub trait BatchSource<G: Encode> {
    /// The games of iteration `it` (`state.iteration`), with ids from `state.next_game_id`
    /// on, written as the record file `records/<state.next_record_id>.azr` of `pipeline`'s
    /// storage before this returns (the commit of the iteration counts them). `it` holds the
    /// run's champion and the iteration's seed, `buffer` is the replay buffer (whose games
    /// restarted games start from, [`Pipeline::restart_positions`]). `None` when
    /// [`Observer::stop_requested`](crate::Observer::stop_requested) said so while waiting
    /// for games: the run stops.
    ///
    /// # Errors
    /// The source's failure; the iteration is not committed.
    fn next_batch(
        &mut self,
        pipeline: &Pipeline<'_, G>,
        it: &Iteration<'_>,
        state: &RunState,
        buffer: &ReplayBuffer<G>,
    ) -> Result<Option<SelfPlayBatch>, PipelineError>;

    /// Called right before each write of the run state (an iteration's commit, or the
    /// record that the run is complete): an error stops the run with nothing more
    /// committed (the learner's check that it still holds the run's lease).
    ///
    /// # Errors
    /// The source's refusal.
    fn before_commit(
        &mut self,
        _pipeline: &Pipeline<'_, G>,
        _state: &RunState,
    ) -> Result<(), PipelineError> {
        Ok(())
    }
}

/// The games of `alphazero train`: this process's own self-play ([`Pipeline::self_play`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct LocalSelfPlay;

impl<G: Encode> BatchSource<G> for LocalSelfPlay {
    fn next_batch(
        &mut self,
        pipeline: &Pipeline<'_, G>,
        it: &Iteration<'_>,
        state: &RunState,
        buffer: &ReplayBuffer<G>,
    ) -> Result<Option<SelfPlayBatch>, PipelineError> {
        pipeline
            .self_play(it, buffer, state.next_game_id, state.next_record_id)
            .map(Some)
    }
}
