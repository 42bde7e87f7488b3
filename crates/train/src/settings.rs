//! The self-play and search settings of a training configuration (`[selfplay]` of
//! [`TrainConfig`]): one place that turns the config file's keys into the search's and the
//! actor's settings, for the training loop and the benchmarks alike. `[selfplay.search]` is
//! already a [`SearchConfig`]; what is left here is what the loop decides per search.

use alphazero_mcts::SearchConfig;
use alphazero_selfplay::{PlayoutCap, Resignation, SelfPlayConfig};

use crate::config::{ConfigError, TrainConfig};

/// `[selfplay.search]` with `simulations` simulations, root noise on or off, and the
/// search's seed.
pub fn search_config(cfg: &TrainConfig, simulations: u32, noise: bool, seed: u64) -> SearchConfig {
    SearchConfig {
        simulations,
        root_noise: noise,
        seed,
        ..cfg.selfplay.search.clone()
    }
}

/// The self-play settings of `[selfplay]` (full searches of `selfplay.simulations` with
/// root noise, playout cap, resignation, temperatures, ply cap), seeded with `seed`.
pub fn selfplay_config(cfg: &TrainConfig, seed: u64) -> SelfPlayConfig {
    let s = &cfg.selfplay;
    SelfPlayConfig {
        search: search_config(cfg, s.simulations, true, seed),
        parallel_games: s.parallel_games as usize,
        temperature_moves: s.temperature_moves,
        temperature: s.temperature as f32,
        final_temperature: s.final_temperature as f32,
        playout_cap: s.playout_cap.enabled.then_some(PlayoutCap {
            fast_simulations: s.playout_cap.fast_simulations,
            full_probability: s.playout_cap.full_probability as f32,
        }),
        resign: s.resign.enabled.then_some(Resignation {
            threshold: s.resign.threshold as f32,
            min_ply: s.resign.min_ply,
            no_resign_fraction: s.resign.no_resign_fraction as f32,
        }),
        max_plies: s.max_plies,
        seed,
    }
}

/// The search of the gating match (`[gating]`): the self-play search with
/// `gating.simulations`, no root noise, and every key `[gating.search]` sets in place of
/// `[selfplay.search]`'s (the arena sets each game's seed; `seed` is the config's default).
///
/// # Errors
/// [`ConfigError::Value`] when `[gating.search]` holds a key or value the search does not
/// read (never for a config [`TrainConfig::parse`] accepted).
pub fn gating_search_config(cfg: &TrainConfig, seed: u64) -> Result<SearchConfig, ConfigError> {
    cfg.gating
        .search
        .over(&search_config(cfg, cfg.gating.simulations, false, seed))
}
