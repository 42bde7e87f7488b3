//! `[game]` as a config file writes it, read into the registry's [`GameSpec`] by serde
//! (`#[serde(with = "game")]` on [`TrainConfig::game`](super::TrainConfig::game)); the spec
//! checks the name, board size and rule, and its errors are told here under the key that is
//! wrong (`game.size must be a board side from 5 to 20 (got 30)`).
//!
//! The written form is the one saved run configs have: `name`, and for Gomoku `size` and
//! `rule`. The size is saved as text (`size = "15"`) and read as text or as an integer
//! (`size = 9`); a game without board options (Connect Four, Xiangqi) is saved with neither
//! key, and the empty values that earlier builds saved for it (`size = ""`, `rule = ""`) read
//! as not given. A rule reads in any case (`Renju`) and is saved by its canonical name.

use alphazero_registry::{GameSpec, SpecError};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use toml::Value;

use crate::config::errors::invalid;
use crate::config::ConfigError;

/// The `[game]` table as written.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct GameTable {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    size: Option<Size>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rule: Option<String>,
}

/// A board side as written: an integer or text (what is saved).
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Size {
    Number(i64),
    Text(String),
}

impl GameTable {
    /// The spec this table names ([`GameSpec::from_parts`]; empty text is not given).
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] naming `game.name`, `game.size` or `game.rule`: an unknown
    /// game, a size or rule given for a game that has none, a size that is not a board side
    /// from 5 to 20, an unknown rule.
    fn spec(&self) -> Result<GameSpec, ConfigError> {
        let name = self.name.as_str();
        if !GameSpec::NAMES.contains(&name) {
            return invalid(
                "game.name",
                format!("must be one of {}", GameSpec::NAMES.join(", ")),
                name,
            );
        }
        let size_text = match &self.size {
            None => String::new(),
            Some(Size::Number(n)) => n.to_string(),
            Some(Size::Text(t)) => t.clone(),
        };
        let rule_text = self.rule.clone().unwrap_or_default();
        let given = |t: &str| (!t.trim().is_empty()).then(|| t.trim().to_string());
        let bad_size = || {
            invalid(
                "game.size",
                "must be a board side from 5 to 20".into(),
                &size_text,
            )
        };
        let size = match given(&size_text) {
            None => None,
            Some(t) => match t.parse::<u8>() {
                Ok(n) => Some(n),
                Err(_) => return bad_size(),
            },
        };
        let not_for_game = |key: &str, value: &str| {
            invalid(key, format!("applies to gomoku only, not {name}"), value)
        };
        // Size first, then the rule, so that the error names the key that is wrong.
        match GameSpec::from_parts(name, size, None) {
            Ok(_) => {}
            Err(SpecError::NotForGame { .. }) => return not_for_game("game.size", &size_text),
            Err(_) => return bad_size(),
        }
        match GameSpec::from_parts(name, size, given(&rule_text).as_deref()) {
            Ok(spec) => Ok(spec),
            Err(SpecError::NotForGame { .. }) => not_for_game("game.rule", &rule_text),
            Err(_) => invalid(
                "game.rule",
                "must be freestyle, standard or renju".into(),
                &rule_text,
            ),
        }
    }
}

impl From<GameSpec> for GameTable {
    fn from(spec: GameSpec) -> GameTable {
        let (size, rule) = spec.options();
        GameTable {
            name: spec.name().to_string(),
            size: size.map(|s| Size::Text(s.to_string())),
            rule: rule.map(str::to_string),
        }
    }
}

/// The spec of a config table's `[game]` value, with the error naming the key (serde's own
/// would not): what the layers check before they read the whole table.
///
/// # Errors
/// As [`GameTable::spec`]; [`ConfigError::Value`] for a table of other keys or types (which
/// the layers' merge has rejected before, naming the key).
pub(in crate::config) fn spec_of(value: &Value) -> Result<GameSpec, ConfigError> {
    let table: GameTable = value
        .clone()
        .try_into()
        .map_err(|e: toml::de::Error| ConfigError::Value(format!("game: {e}")))?;
    table.spec()
}

/// Writes `spec` as `[game]` (serde's `with`).
pub(super) fn serialize<S: Serializer>(spec: &GameSpec, s: S) -> Result<S::Ok, S::Error> {
    GameTable::from(*spec).serialize(s)
}

/// Reads `[game]` into a spec (serde's `with`).
pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<GameSpec, D::Error> {
    GameTable::deserialize(d)?
        .spec()
        .map_err(serde::de::Error::custom)
}
