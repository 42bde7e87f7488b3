//! What the sources other than the defaults give: `--set key=value` overrides, the keys of
//! the older flat `[selfplay]` layout moved to their place in `[selfplay.search]`, and what a
//! source's text sets before it is merged (its game, a section), for the precedence of the
//! sources ([`crate::sources`]).

use toml::{Table, Value};

use super::keys::LEGACY_SEARCH_KEYS;
use super::ConfigError;

/// The `game.name` a config file's text sets, if any (without applying defaults or
/// validating anything else).
///
/// # Errors
/// [`ConfigError::Syntax`] when the text is not TOML, [`ConfigError::Type`] when
/// `game.name` is not a string.
pub fn game_name_in(text: &str) -> Result<Option<String>, ConfigError> {
    let t: Table = toml::from_str(text).map_err(|e| ConfigError::Syntax(e.to_string()))?;
    game_name_in_table(&t)
}

/// The `game.name` a config table sets, if any.
///
/// # Errors
/// [`ConfigError::Type`] when `game.name` is not a string.
pub(super) fn game_name_in_table(t: &Table) -> Result<Option<String>, ConfigError> {
    game_name_of(t.get("game").and_then(|g| g.get("name")).cloned())
}

/// The game a `game.name` value names.
///
/// # Errors
/// [`ConfigError::Type`] when it is not a string.
fn game_name_of(value: Option<Value>) -> Result<Option<String>, ConfigError> {
    match value {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => Err(ConfigError::Type {
            key: "game.name".into(),
            expected: "a string",
            found: v.to_string(),
        }),
    }
}

/// The value of `[game] key` in a config file's text, as text (a string's contents or the
/// TOML text of another value), if the file sets it.
///
/// # Errors
/// [`ConfigError::Syntax`] if the text is not TOML.
pub fn game_field_in(text: &str, key: &str) -> Result<Option<String>, ConfigError> {
    let t: Table = toml::from_str(text).map_err(|e| ConfigError::Syntax(e.to_string()))?;
    Ok(t.get("game").and_then(|g| g.get(key)).map(|v| match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }))
}

/// Whether a config file's text sets any key of the table `[section]` (e.g. `model`).
///
/// # Errors
/// [`ConfigError::Syntax`] if the text is not TOML.
pub fn sets_section_in(text: &str, section: &str) -> Result<bool, ConfigError> {
    let t: Table = toml::from_str(text).map_err(|e| ConfigError::Syntax(e.to_string()))?;
    Ok(match t.get(section) {
        None => false,
        Some(Value::Table(s)) => !s.is_empty(),
        Some(_) => true,
    })
}

/// The `game.name` an override (`"game.name=xiangqi"`) sets, if it sets that key.
///
/// # Errors
/// [`ConfigError::BadOverride`] when `text` is not `key=value`, [`ConfigError::Type`] when
/// the value is not a string.
pub fn game_name_in_override(text: &str) -> Result<Option<String>, ConfigError> {
    let (path, value) = parse_override(text)?;
    if path != ["game", "name"] {
        return Ok(None);
    }
    game_name_of(Some(value))
}

/// The dotted key and the value (a string's contents, or the TOML text of any other value)
/// of a `key=value` override as [`super::TrainConfig::with_overrides`] reads it.
///
/// # Errors
/// [`ConfigError::BadOverride`] without `=`.
pub fn override_key_value(text: &str) -> Result<(String, String), ConfigError> {
    let (path, value) = parse_override(text)?;
    let value = match value {
        Value::String(s) => s,
        v => v.to_string(),
    };
    Ok((path.join("."), value))
}

/// Splits `key=value`; the value is TOML (`50`, `0.5`, `true`, `"x"`) or else a bare string.
fn parse_override(text: &str) -> Result<(Vec<String>, Value), ConfigError> {
    let (key, raw) = text
        .split_once('=')
        .ok_or_else(|| ConfigError::BadOverride(text.to_string()))?;
    let key = key.trim();
    let path: Vec<String> = key.split('.').map(str::to_string).collect();
    if key.is_empty() || path.iter().any(|p| p.is_empty()) {
        return Err(ConfigError::BadOverride(text.to_string()));
    }
    let raw = raw.trim();
    let value = match toml::from_str::<Table>(&format!("v = {raw}")) {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| Value::String(raw.to_string())),
        Err(_) => Value::String(raw.to_string()),
    };
    Ok((path, value))
}

/// The key an override path names: a [`LEGACY_SEARCH_KEYS`] key of `[selfplay]` moves to
/// `[selfplay.search]`.
fn current_path(mut path: Vec<String>) -> Vec<String> {
    if path.len() == 2 && path[0] == "selfplay" && LEGACY_SEARCH_KEYS.contains(&path[1].as_str()) {
        path.insert(1, "search".into());
    }
    path
}

/// The `key=value` overrides parsed, each key in its current place ([`current_path`]).
///
/// # Errors
/// [`ConfigError::BadOverride`]; [`ConfigError::TwoSpellings`] when two overrides give one
/// key in its old and its new place.
pub(super) fn parse_overrides<S: AsRef<str>>(
    overrides: &[S],
) -> Result<Vec<(Vec<String>, Value)>, ConfigError> {
    let mut out: Vec<(Vec<String>, Value)> = Vec::with_capacity(overrides.len());
    let mut written: Vec<Vec<String>> = Vec::with_capacity(overrides.len());
    for o in overrides {
        let (path, value) = parse_override(o.as_ref())?;
        let current = current_path(path.clone());
        for (w, (c, _)) in written.iter().zip(&out) {
            if *c == current && *w != path {
                let (old, new) = if w.len() < path.len() {
                    (w, &path)
                } else {
                    (&path, w)
                };
                return Err(ConfigError::TwoSpellings {
                    old: old.join("."),
                    new: new.join("."),
                });
            }
        }
        written.push(path);
        out.push((current, value));
    }
    Ok(out)
}

/// Moves the [`LEGACY_SEARCH_KEYS`] a config file's table writes flat in `[selfplay]` to
/// `[selfplay.search]`.
///
/// # Errors
/// [`ConfigError::TwoSpellings`] when the file gives a key in both places;
/// [`ConfigError::Type`] when `selfplay.search` is not a table.
pub(super) fn move_legacy_keys(user: &mut Table) -> Result<(), ConfigError> {
    let Some(Value::Table(selfplay)) = user.get_mut("selfplay") else {
        return Ok(());
    };
    let moved: Vec<(String, Value)> = LEGACY_SEARCH_KEYS
        .iter()
        .filter_map(|k| Some((k.to_string(), selfplay.remove(*k)?)))
        .collect();
    if moved.is_empty() {
        return Ok(());
    }
    let search = selfplay
        .entry("search")
        .or_insert_with(|| Value::Table(Table::new()));
    let Value::Table(search) = search else {
        return Err(ConfigError::Type {
            key: "selfplay.search".into(),
            expected: "a table",
            found: search.to_string(),
        });
    };
    for (k, v) in moved {
        if search.contains_key(&k) {
            return Err(ConfigError::TwoSpellings {
                old: format!("selfplay.{k}"),
                new: format!("selfplay.search.{k}"),
            });
        }
        search.insert(k, v);
    }
    Ok(())
}

/// Sets `path` in `table`, creating intermediate tables.
pub(super) fn set_path(
    table: &mut Table,
    path: &[String],
    value: Value,
) -> Result<(), ConfigError> {
    let (last, parents) = path.split_last().expect("override paths are non-empty");
    let mut cur = table;
    for (i, p) in parents.iter().enumerate() {
        let entry = cur
            .entry(p.clone())
            .or_insert_with(|| Value::Table(Table::new()));
        cur = match entry {
            Value::Table(t) => t,
            other => {
                return Err(ConfigError::Type {
                    key: path[..=i].join("."),
                    expected: "a table",
                    found: other.to_string(),
                });
            }
        };
    }
    cur.insert(last.clone(), value);
    Ok(())
}
