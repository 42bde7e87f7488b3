//! The training configuration: TOML with per-game defaults, `--set key=value` overrides and
//! validation that names the offending key.
//!
//! A config file only needs the keys it changes; everything else comes from
//! [`TrainConfig::default_for`] of its `game.name`. Unknown keys and values of the wrong type
//! are errors naming the full key (`selfplay.simulatons`), and [`TrainConfig::validate`]
//! rejects out-of-range values the same way (`selfplay.simulations must be >= 1`). Every
//! struct also carries `#[serde(deny_unknown_fields)]`.
//!
//! Sections are the libraries' own configs where they can be: `[selfplay.search]` is
//! `alphazero_mcts::SearchConfig` itself, and `[gating.search]` lays keys of it over
//! self-play's ([`SearchOverlay`]); `[game]` is the registry's [`GameSpec`]; [`settings`]
//! holds the remaining translations. Files in the older flat layout (`[selfplay] c_puct = …`)
//! still read ([`LEGACY_SEARCH_KEYS`]).
//!
//! One file per stage, each using only the ones above it:
//! - `keys`: the key names the others share ([`LEGACY_SEARCH_KEYS`], [`ROOT_NOISE_KEYS`]);
//! - `errors`: [`ConfigError`];
//! - `schema`: the typed sections ([`TrainConfig`] and its parts; `[game]`'s written form);
//! - `overrides`: `--set key=value`, the legacy key spellings, what a source's text sets;
//! - `validate`: [`TrainConfig::validate`], the searches by the search's own rules;
//! - `merge`: the TOML merge engine (a source's table over the config's, every key checked);
//! - `defaults`: [`TrainConfig::default_for`], a game-neutral base under the registry's preset;
//! - `layers`: [`TrainConfig::parse`] and [`TrainConfig::with_overrides`] (defaults < file <
//!   overrides, merged as TOML tables with every key checked), [`TrainConfig::to_toml_string`];
//! - [`settings`]: the config as the search's, the actor's, the network's and the trainer's
//!   settings and the replay buffer's sampling (validation does not use it).
//!
//! ```
//! use alphazero_train::config::TrainConfig;
//! let cfg = TrainConfig::parse(
//!     "[game]\nname = \"connect4\"\n[selfplay]\nsimulations = 64\n",
//!     &["train.lr=0.002"],
//! ).unwrap();
//! assert_eq!(cfg.selfplay.simulations, 64);
//! assert_eq!(cfg.train.lr, 0.002);
//! assert_eq!(cfg.model.blocks, 4); // connect4 default
//! ```

mod defaults;
mod errors;
mod keys;
mod layers;
mod merge;
mod overrides;
mod schema;
pub mod settings;
mod validate;

#[cfg(test)]
mod tests;

pub use alphazero_registry::GameSpec;
pub use defaults::GAMES;
pub use errors::ConfigError;
pub use keys::{differing_keys, LEGACY_SEARCH_KEYS, ROOT_NOISE_KEYS};
pub use overrides::{
    game_field_in, game_name_in, game_name_in_override, override_key_value, sets_section_in,
};
pub use schema::{
    ActorsSection, BudgetClock, EvalSection, GatingSection, LearnerSection, LrSchedule,
    ModelSection, Optimizer, PlayoutCapSection, PolicyHead, RandomStartsSection, ReplaySection,
    ResignSection, RestartRule, RestartsSection, RunSection, SearchOverlay, SelfPlaySection,
    SprtSection, TrainConfig, ValueHead,
};
pub use validate::{MAX_BATCH_SIZE, MAX_BLOCKS, MAX_CHANNELS, MAX_SIMULATIONS, MAX_VALUE_HIDDEN};
