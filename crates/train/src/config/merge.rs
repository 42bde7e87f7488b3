//! The TOML merge engine of the layers: a source's table laid over the full config table
//! key by key, every key checked against the config's own (it must exist and keep its
//! type), with the few keys of two forms and the optional ones handled here.

use toml::{Table, Value};

use super::keys::ROOT_NOISE_KEYS;
use super::validate::integer_minimum;
use super::{ConfigError, TrainConfig};

/// `cfg` as a TOML table (the base the layers merge into).
///
/// # Errors
/// [`ConfigError::Value`] when a value has no TOML form (`run.seed` above 2^63 − 1).
pub(super) fn to_table(cfg: &TrainConfig) -> Result<Table, ConfigError> {
    match Value::try_from(cfg) {
        Ok(Value::Table(t)) => Ok(t),
        Ok(_) => Err(ConfigError::Value(
            "config did not serialise to a table".into(),
        )),
        Err(e) => Err(ConfigError::Value(e.to_string())),
    }
}

/// Whether a key may be written in either of two forms, a plain value or a table: a
/// search's `c_puct` and `gumbel` (see [`alphazero_mcts::SearchConfig`]).
fn has_two_forms(key: &str) -> bool {
    ["selfplay.search.", "gating.search."]
        .iter()
        .any(|p| matches!(key.strip_prefix(p), Some("c_puct" | "gumbel")))
}

/// The type of `v` in words, for [`ConfigError::Type`].
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a number",
        Value::Boolean(_) => "a boolean",
        Value::Datetime(_) => "a datetime",
        Value::Array(_) => "an array",
        Value::Table(_) => "a table",
    }
}

/// The keys set in `[gating.search]` of a config table.
fn gating_search_keys_set(table: &Table) -> Vec<String> {
    match table.get("gating").and_then(|g| g.get("search")) {
        Some(Value::Table(t)) => t.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// [`merge_checked`] of `user` into the config table `base`, where `[gating.search]`'s keys,
/// optional, are checked against their `[selfplay.search]` namesakes' types and stay absent
/// unless `base` or `user` sets them, and `game.size` and `game.rule`, absent from a game
/// without them, are text keys of every `[game]` (empty = not given), so that a size for
/// Connect Four is told "applies to gomoku only" by the game's spec, and the empty ones that
/// earlier builds saved still read.
pub(super) fn merge_user(base: &mut Table, user: &Table) -> Result<(), ConfigError> {
    if let Some(Value::Table(game)) = base.get_mut("game") {
        for key in ["size", "rule"] {
            game.entry(key)
                .or_insert_with(|| Value::String(String::new()));
        }
    }
    let mut keep = gating_search_keys_set(base);
    keep.extend(gating_search_keys_set(user));
    let templates: Table = match base.get("selfplay").and_then(|sp| sp.get("search")) {
        Some(Value::Table(search)) => search
            .iter()
            .filter(|(k, _)| !ROOT_NOISE_KEYS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        _ => Table::new(),
    };
    if let Some(Value::Table(gating)) = base.get_mut("gating") {
        let search = gating
            .entry("search")
            .or_insert_with(|| Value::Table(Table::new()));
        if let Value::Table(search) = search {
            for (k, v) in templates {
                search.entry(k).or_insert(v);
            }
        }
    }
    merge_checked(base, user, "")?;
    if let Some(Value::Table(gating)) = base.get_mut("gating") {
        if let Some(Value::Table(search)) = gating.get_mut("search") {
            search.retain(|k, _| keep.iter().any(|s| s == k));
            if search.is_empty() {
                gating.remove("search");
            }
        }
    }
    Ok(())
}

/// Merges `user` into `base` (the full default config as a table), checking that every key
/// exists in `base` and has the same type (an integer is accepted for a float). `prefix` is
/// the dotted path of `base` ("" at the top).
pub(super) fn merge_checked(
    base: &mut Table,
    user: &Table,
    prefix: &str,
) -> Result<(), ConfigError> {
    for (k, uv) in user {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        let Some(bv) = base.get_mut(k) else {
            // An unknown section: name the first full key set in it (`foo.bar`, not `foo`).
            let mut key = key;
            let mut v = uv;
            while let Value::Table(t) = v {
                let Some((k2, v2)) = t.iter().next() else {
                    break;
                };
                key = format!("{key}.{k2}");
                v = v2;
            }
            return Err(ConfigError::UnknownKey { key });
        };
        match (bv, uv) {
            (Value::Table(bt), Value::Table(ut)) => merge_checked(bt, ut, &key)?,
            (bv @ Value::Float(_), Value::Integer(i)) => *bv = Value::Float(*i as f64),
            (bv @ Value::Integer(_), Value::Integer(i)) => {
                if *i < 0 {
                    let min = integer_minimum(&key);
                    return Err(ConfigError::Invalid {
                        key,
                        message: format!("must be >= {min}"),
                        value: i.to_string(),
                    });
                }
                *bv = Value::Integer(*i);
            }
            // A search's `c_puct` (a number or a table) and `gumbel` (a boolean or a table)
            // may change form.
            (bv, uv)
                if has_two_forms(&key)
                    && matches!(bv, Value::Table(_)) != matches!(uv, Value::Table(_)) =>
            {
                *bv = match uv {
                    Value::Integer(i) => Value::Float(*i as f64),
                    uv => uv.clone(),
                };
            }
            // `game.size` is text in the config but naturally written as a number.
            (bv @ Value::String(_), Value::Integer(i)) if key == "game.size" => {
                *bv = Value::String(i.to_string());
            }
            (bv, uv) if std::mem::discriminant(bv) == std::mem::discriminant(uv) => {
                *bv = uv.clone();
            }
            (bv, uv) => {
                // A key of two forms names both (`gumbel = 16` must not be told "a boolean" only).
                let expected = match (has_two_forms(&key), &*bv) {
                    (true, Value::Boolean(_)) => "a boolean or a table",
                    (true, Value::Float(_) | Value::Integer(_)) => "a number or a table",
                    _ => type_name(bv),
                };
                return Err(ConfigError::Type {
                    key,
                    expected,
                    found: uv.to_string(),
                });
            }
        }
    }
    Ok(())
}
