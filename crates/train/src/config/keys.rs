//! The key names the stages share: the search keys that moved into `[selfplay.search]`, the
//! root noise's keys that `[gating.search]` cannot set, and the hint an unknown key gets when
//! it is one of these in another place.

use alphazero_mcts::SearchConfig;
use toml::Value;

/// The `[selfplay]` keys of the layout before `[selfplay.search]`, each now
/// `selfplay.search.<key>`: a config file or saved run config that writes one flat still
/// reads, an override `selfplay.<key>=…` sets `selfplay.search.<key>`, and giving both
/// spellings in one source is an error naming both.
pub const LEGACY_SEARCH_KEYS: [&str; 9] = [
    "dirichlet_alpha",
    "dirichlet_epsilon",
    "c_puct",
    "fpu_reduction",
    "gumbel",
    "terminal_check",
    "tactical_budget",
    "dirichlet_alpha_total",
    "draw_score",
];

/// The `[selfplay.search]` keys `[gating.search]` cannot set: the root noise's, and forced
/// playouts, which act only at a noised root (gating searches without noise).
pub const ROOT_NOISE_KEYS: [&str; 4] = [
    "dirichlet_alpha",
    "dirichlet_epsilon",
    "dirichlet_alpha_total",
    "forced_playouts",
];

/// " (did you mean …?)" when `key`, unknown, is a key of the config in another place: a
/// search key directly in `[selfplay]` or `[gating]`, the simulations in a search table, or a
/// root-noise key in `[gating.search]`; else nothing.
pub(super) fn moved_key_hint(key: &str) -> String {
    let search_keys: Vec<String> = match Value::try_from(SearchConfig::default()) {
        Ok(Value::Table(t)) => t.keys().cloned().collect(),
        _ => Vec::new(),
    };
    let is_search_key = |k: &str| search_keys.iter().any(|s| s == k);
    let parts: Vec<&str> = key.split('.').collect();
    let place = match parts.as_slice() {
        [section @ ("selfplay" | "gating"), k] if is_search_key(k) => {
            format!("{section}.search.{k}")
        }
        [section @ ("selfplay" | "gating"), "search", "simulations"] => {
            format!("{section}.simulations")
        }
        ["gating", "search", k] if ROOT_NOISE_KEYS.contains(k) => {
            return format!(" (the gating search has no root noise; {k} is selfplay.search's)");
        }
        _ => return String::new(),
    };
    format!(" (did you mean {place}?)")
}

/// The keys (`section.key`) whose values differ between two configs, sorted.
pub fn differing_keys(a: &super::TrainConfig, b: &super::TrainConfig) -> Vec<String> {
    fn leaves(prefix: &str, v: &Value, out: &mut std::collections::BTreeMap<String, String>) {
        match v {
            Value::Table(t) => {
                for (k, v) in t {
                    let key = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    leaves(&key, v, out);
                }
            }
            other => {
                out.insert(prefix.to_string(), other.to_string());
            }
        }
    }
    let flat = |c: &super::TrainConfig| {
        let mut out = std::collections::BTreeMap::new();
        if let Ok(v) = Value::try_from(c) {
            leaves("", &v, &mut out);
        }
        out
    };
    let (fa, fb) = (flat(a), flat(b));
    let mut keys: Vec<String> = fa
        .keys()
        .chain(fb.keys())
        .filter(|k| fa.get(*k) != fb.get(*k))
        .cloned()
        .collect();
    keys.sort();
    keys.dedup();
    keys
}
