//! The self-play and search settings of a training configuration (`[selfplay]` of
//! [`TrainConfig`]): one place that turns the config file's keys into the search's and the
//! actor's settings, for the training loop and the benchmarks alike.

use alphazero_mcts::{CPuct, GumbelConfig, SearchConfig};
use alphazero_selfplay::{PlayoutCap, Resignation, SelfPlayConfig};

use crate::config::TrainConfig;

/// The search settings of `[selfplay]` with `simulations` simulations, root noise on or off,
/// and the search's seed.
pub fn search_config(cfg: &TrainConfig, simulations: u32, noise: bool, seed: u64) -> SearchConfig {
    let s = &cfg.selfplay;
    SearchConfig {
        simulations,
        c_puct: CPuct::Constant(s.c_puct as f32),
        fpu_reduction: s.fpu_reduction as f32,
        dirichlet_alpha: s.dirichlet_alpha as f32,
        dirichlet_epsilon: s.dirichlet_epsilon as f32,
        root_noise: noise,
        gumbel: s.gumbel.then(GumbelConfig::default),
        terminal_check: s.terminal_check,
        tactical_budget: (s.tactical_budget > 0).then_some(s.tactical_budget),
        dirichlet_alpha_total: (s.dirichlet_alpha_total > 0.0)
            .then_some(s.dirichlet_alpha_total as f32),
        draw_score: s.draw_score as f32,
        seed,
        ..SearchConfig::default()
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
/// `[selfplay]`'s (the arena sets each game's seed; `seed` is the config's default).
pub fn gating_search_config(cfg: &TrainConfig, seed: u64) -> SearchConfig {
    let base = search_config(cfg, cfg.gating.simulations, false, seed);
    let g = &cfg.gating.search;
    SearchConfig {
        c_puct: g.c_puct.map_or(base.c_puct, |c| CPuct::Constant(c as f32)),
        fpu_reduction: g.fpu_reduction.map_or(base.fpu_reduction, |f| f as f32),
        gumbel: g
            .gumbel
            .map_or(base.gumbel, |on| on.then(GumbelConfig::default)),
        terminal_check: g.terminal_check.unwrap_or(base.terminal_check),
        tactical_budget: g
            .tactical_budget
            .map_or(base.tactical_budget, |b| (b > 0).then_some(b)),
        draw_score: g.draw_score.map_or(base.draw_score, |d| d as f32),
        ..base
    }
}
