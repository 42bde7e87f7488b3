//! Each game's play search: how every program that plays or analyses a game searches it
//! (`play`, `analyze`, `serve`, the arena's `net:` players, the Gomocup brain and the UCCI/UCI
//! engine), so that a position gets the same tactics whichever program is asked. Each game
//! states its preset in its own module ([`crate::Registered::play_search`]); the tactical
//! budgets they share are here.
//!
//! A preset says *how* to search (PUCT, first-play urgency, solver, decisive-move check, the
//! game's tactics); *how long* (simulations, nodes, time) and root noise, temperature and seed
//! belong to the program and are left at [`SearchConfig`]'s defaults in a preset.
//!
//! Self-play is not a play search: the training configuration's `[selfplay.search]` sets its
//! own, cheaper tactics (see [`crate::GameSpec::training_preset`]).

use alphazero_mcts::SearchConfig;

/// Node budget of the game's tactical search at every expanded node of a play search
/// ([`SearchConfig::tactical_budget`]): Gomoku's VCF; Xiangqi's mates in one and mates by
/// checks (~18 µs per call on average on game positions, ~6% of a 4×32 network evaluation).
pub const PLAY_TACTICAL_BUDGET: u32 = 2_000;

/// Node budget of the deeper tactical search at the root of a play search
/// ([`SearchConfig::root_tactical_budget`]): Gomoku's VCT, about 0.25 s at ~40,000 nodes/s;
/// Xiangqi's mate search by checks, deeper.
pub const PLAY_ROOT_TACTICAL_BUDGET: u32 = 10_000;

/// Node budget of the same deeper search for the opponent after each root candidate
/// ([`SearchConfig::reply_tactical_budget`]), per candidate visited: a candidate that lets
/// the opponent win by force (Gomoku: a VCT; Xiangqi: a mate by checks) is proven lost on its
/// first visit, so the search defends against threats two moves deep.
pub const PLAY_REPLY_TACTICAL_BUDGET: u32 = 3_000;

/// `config` with its budget fields (`simulations`, `root_noise`, `temperature`, `seed`) at
/// [`SearchConfig`]'s defaults, as a play preset has them: what is left is how the program
/// searches, to compare with its game's [`crate::GameSpec::play_search`].
pub fn play_settings(config: &SearchConfig) -> SearchConfig {
    let defaults = SearchConfig::default();
    SearchConfig {
        simulations: defaults.simulations,
        root_noise: defaults.root_noise,
        temperature: defaults.temperature,
        seed: defaults.seed,
        ..config.clone()
    }
}
