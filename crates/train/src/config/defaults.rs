//! Each game's default configuration: a game-neutral base with the game's training preset
//! from the registry laid over it (the registry holds what is the game's own; the base, what
//! every game shares).

use alphazero_mcts::{CPuct, SearchConfig};
use alphazero_registry::GameSpec;
use toml::{Table, Value};

use super::merge::{merge_checked, to_table};
use super::schema::{
    ActorsSection, BudgetClock, EvalSection, GatingSection, LearnerSection, LrSchedule,
    ModelSection, Optimizer, PlayoutCapSection, PolicyHead, RandomStartsSection, ReplaySection,
    ResignSection, RestartRule, RestartsSection, RunSection, SearchOverlay, SelfPlaySection,
    SprtSection, TrainConfig, ValueHead,
};
use super::ConfigError;

/// The games a config may name: the registry's ([`GameSpec::NAMES`]).
pub const GAMES: [&str; 3] = GameSpec::NAMES;

impl TrainConfig {
    /// The defaults for a game: a game-neutral base (below) with the game's training preset
    /// from the registry ([`GameSpec::training_preset`]) laid over it: `connect4` (4×32
    /// network, 128 simulations with playout-cap randomisation, 60 minutes, no gating, value
    /// target (z + q)/2), `gomoku` (15×15 freestyle, the registry's default spec; 10×128, 400
    /// simulations, gating, value target z) or `xiangqi` (10×128, 400 simulations,
    /// resignation, no gating, value target (z + q)/2).
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] for `game.name` when the game is unknown.
    pub fn default_for(game: &str) -> Result<Self, ConfigError> {
        let spec = GAMES
            .contains(&game)
            .then(|| GameSpec::from_parts(game, None, None).ok())
            .flatten();
        let Some(spec) = spec else {
            return Err(ConfigError::Invalid {
                key: "game.name".into(),
                message: format!("must be one of {}", GAMES.join(", ")),
                value: format!("{game:?}"),
            });
        };
        let base = TrainConfig {
            game: spec,
            selfplay: SelfPlaySection {
                games_per_iteration: 200,
                parallel_games: 64,
                workers: 0,
                simulations: 400,
                temperature_moves: 30,
                temperature: 1.0,
                final_temperature: 0.0,
                playout_cap: PlayoutCapSection {
                    enabled: false,
                    fast_simulations: 64,
                    full_probability: 0.25,
                },
                resign: ResignSection {
                    enabled: false,
                    threshold: -0.9,
                    min_ply: 20,
                    no_resign_fraction: 0.1,
                },
                max_plies: 400,
                restarts: RestartsSection {
                    share: 0.0,
                    rule: RestartRule::Defend,
                    window: 10,
                },
                random_starts: RandomStartsSection {
                    share: 0.0,
                    max_removed: 3,
                    plies: 0,
                },
                search: SearchConfig {
                    c_puct: CPuct::Constant(1.5),
                    fpu_reduction: 0.2,
                    dirichlet_alpha: 0.3,
                    dirichlet_epsilon: 0.25,
                    terminal_check: true,
                    tactical_budget: None,
                    dirichlet_alpha_total: None,
                    draw_score: 0.0,
                    ..SearchConfig::default()
                },
            },
            replay: ReplaySection {
                capacity: 200_000,
                recent_fraction: 0.25,
                recent_window: 20_000,
                symmetries: true,
                hard_mining: false,
                threat_weight: 4.0,
            },
            model: ModelSection {
                blocks: 10,
                channels: 128,
                value_hidden: 128,
                global_pooling: false,
                global_pooling_channels: 0,
                policy_head: PolicyHead::Dense,
                policy_channels: 0,
                value_head: ValueHead::Dense,
            },
            train: LearnerSection {
                batch_size: 256,
                steps_per_iteration: 0,
                samples_per_position: 4.0,
                optimizer: Optimizer::Adamw,
                lr: 1e-3,
                lr_schedule: LrSchedule::Constant,
                lr_step_every: 50,
                lr_step_factor: 0.5,
                lr_min: 1e-5,
                weight_decay: 1e-4,
                momentum: 0.9,
                grad_clip: 5.0,
                value_q_weight: 0.0,
                aux_policy_weight: 0.0,
                aux_ownership_weight: 0.0,
            },
            gating: GatingSection {
                enabled: true,
                games: 100,
                simulations: 400,
                win_rate: 0.55,
                sprt: SprtSection {
                    enabled: true,
                    elo0: 0.0,
                    elo1: 35.0,
                    alpha: 0.05,
                    beta: 0.05,
                },
                opening_random_plies: 4,
                search: SearchOverlay::default(),
            },
            eval: EvalSection {
                solver_every: 0,
                solver_positions: 200,
            },
            actors: ActorsSection {
                max_games_per_iteration: 0,
                max_champion_lag: 4,
            },
            run: RunSection {
                iterations: 100,
                time_budget_minutes: 0.0,
                budget_clock: BudgetClock::Wall,
                snapshot_every: 10,
                seed: 0,
                threads: 0,
            },
        };
        // The game's own defaults, from its registry module, over the game-neutral base.
        let preset: Table = toml::from_str(spec.training_preset()).map_err(|e| {
            ConfigError::Value(format!("the {game} training preset of the registry: {e}"))
        })?;
        let mut table = to_table(&base)?;
        merge_checked(&mut table, &preset, "")?;
        Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| ConfigError::Value(e.to_string()))
    }
}
