//! [`ConfigError`]: every way a config is rejected, each naming the key.

use super::keys::moved_key_hint;

/// An error loading, overriding or validating a config. Names the key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// The TOML text does not parse.
    #[error("config is not valid TOML: {0}")]
    Syntax(String),
    /// A key that the config does not have; the message names the key's place when it is
    /// a key of another section (`selfplay.virtual_loss`: did you mean
    /// `selfplay.search.virtual_loss`?).
    #[error("unknown config key {key}{}", moved_key_hint(key))]
    UnknownKey {
        /// The full dotted key.
        key: String,
    },
    /// A required key is missing.
    #[error("missing config key {key}")]
    MissingKey {
        /// The full dotted key.
        key: String,
    },
    /// A value of the wrong type.
    #[error("config key {key} must be {expected}, got {found}")]
    Type {
        /// The full dotted key.
        key: String,
        /// The expected type.
        expected: &'static str,
        /// The value given, as TOML.
        found: String,
    },
    /// A value out of range.
    #[error("{key} {message} (got {value})")]
    Invalid {
        /// The full dotted key.
        key: String,
        /// What is required, e.g. "must be >= 1".
        message: String,
        /// The rejected value.
        value: String,
    },
    /// A `--set` override that is not `key=value`.
    #[error("override {0:?} is not of the form key=value")]
    BadOverride(String),
    /// A value that the typed config rejects (e.g. an unknown optimizer name).
    #[error("config value rejected: {0}")]
    Value(String),
    /// One source gives a key in its old and its new place ([`LEGACY_SEARCH_KEYS`]).
    ///
    /// [`LEGACY_SEARCH_KEYS`]: super::LEGACY_SEARCH_KEYS
    #[error("{old} and {new} are one key, in its old and its new place; give it once, as {new}")]
    TwoSpellings {
        /// The old spelling, e.g. `selfplay.c_puct`.
        old: String,
        /// The new spelling, e.g. `selfplay.search.c_puct`.
        new: String,
    },
}

/// `Err(ConfigError::Invalid)` naming `key`, the rule broken and the rejected value.
pub(super) fn invalid<R, T: ToString>(
    key: &str,
    message: String,
    value: T,
) -> Result<R, ConfigError> {
    Err(ConfigError::Invalid {
        key: key.to_string(),
        message,
        value: value.to_string(),
    })
}
