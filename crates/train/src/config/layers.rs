//! The layers of a config and their one precedence: the game's defaults < a config file <
//! `key=value` overrides, each laid over the one before as TOML tables
//! ([`super::merge`]), then read into the typed config and validated; and the config saved as
//! TOML.

use toml::{Table, Value};

use super::merge::{merge_user, to_table};
use super::overrides::{game_name_in_table, move_legacy_keys, parse_overrides, set_path};
use super::schema::game::spec_of;
use super::{ConfigError, TrainConfig};

impl TrainConfig {
    /// Parses a config file's text (may be empty), applies `overrides` (`"key=value"`, the
    /// value in TOML syntax or a bare string), fills every missing key from
    /// [`TrainConfig::default_for`] of the resulting `game.name`, and validates.
    ///
    /// # Errors
    /// [`ConfigError::Syntax`], [`ConfigError::BadOverride`],
    /// [`ConfigError::MissingKey`] (`game.name`), [`ConfigError::UnknownKey`],
    /// [`ConfigError::Type`], [`ConfigError::Value`] and the errors of
    /// [`TrainConfig::validate`], each naming the key.
    pub fn parse<S: AsRef<str>>(text: &str, overrides: &[S]) -> Result<Self, ConfigError> {
        let mut user: Table =
            toml::from_str(text).map_err(|e| ConfigError::Syntax(e.to_string()))?;
        move_legacy_keys(&mut user)?;
        for (path, value) in parse_overrides(overrides)? {
            set_path(&mut user, &path, value)?;
        }
        let Some(name) = game_name_in_table(&user)? else {
            return Err(ConfigError::MissingKey {
                key: "game.name".into(),
            });
        };
        let base = TrainConfig::default_for(&name)?;
        let mut table = to_table(&base)?;
        merge_user(&mut table, &user)?;
        config_of(table)
    }

    /// Parses and validates a config file's text (see [`TrainConfig::parse`]).
    ///
    /// # Errors
    /// As [`TrainConfig::parse`].
    pub fn from_toml_str(text: &str) -> Result<Self, ConfigError> {
        Self::parse::<&str>(text, &[])
    }

    /// This config with `overrides` (`"selfplay.simulations=50"`) applied and validated.
    /// Changing `game.name` here does not switch to the other game's defaults; use
    /// [`TrainConfig::parse`] for that.
    ///
    /// # Errors
    /// As [`TrainConfig::parse`].
    pub fn with_overrides<S: AsRef<str>>(&self, overrides: &[S]) -> Result<Self, ConfigError> {
        let mut table = to_table(self)?;
        for (path, value) in parse_overrides(overrides)? {
            let mut single = Table::new();
            set_path(&mut single, &path, value)?;
            merge_user(&mut table, &single)?;
        }
        config_of(table)
    }

    /// The effective config as TOML text (every key; `[game]` without the size and rule a
    /// game other than Gomoku does not have; parses back to an equal config).
    ///
    /// # Errors
    /// [`ConfigError::Value`] when a value has no TOML form (`run.seed` above 2^63 − 1).
    pub fn to_toml_string(&self) -> Result<String, ConfigError> {
        toml::to_string(self).map_err(|e| ConfigError::Value(e.to_string()))
    }
}

/// The config of a merged table, validated. `[game]` is read first, so that a bad game, size
/// or rule is told by its key.
fn config_of(table: Table) -> Result<TrainConfig, ConfigError> {
    if let Some(game) = table.get("game") {
        spec_of(game)?;
    }
    let cfg: TrainConfig = Value::Table(table)
        .try_into()
        .map_err(|e: toml::de::Error| ConfigError::Value(e.to_string()))?;
    cfg.validate()?;
    Ok(cfg)
}
