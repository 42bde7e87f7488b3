//! Per-player settings written in braces after a player spec, e.g.
//! `gomocup:/path/pbrain-rapfi{info=MAX_NODE 1000}` or `ucci:/path/eleeye{depth=1,
//! option=usebook=false}`: limits of the player's own (replacing the match-wide ones for it),
//! extra protocol lines for an external engine, and a display name.
//!
//! The syntax is `BASE{KEY=VALUE,KEY=VALUE,…}` at the very end of the spec. Keys
//! (case-insensitive):
//!
//! | key | value | meaning |
//! |---|---|---|
//! | `depth` | 1–1000 | search depth in plies ([`Limits::depth`]; UCCI/UCI `go depth D`) |
//! | `nodes` | positive | node / simulation limit ([`Limits::simulations`]; `go nodes N`) |
//! | `movetime` | 1–3600000 ms | time per move ([`Limits::movetime`]; Gomocup `INFO timeout_turn`, UCI `go movetime`) |
//! | `info` | text, repeatable | a Gomocup `INFO` payload sent after every `START`, e.g. `MAX_DEPTH 2` |
//! | `option` | `NAME=VALUE`, repeatable | a UCCI/UCI option set after the handshake, e.g. `usebook=false`; a network player's search setting, e.g. `policy_temperature=1.5` |
//! | `name` | text | the player's name in tables (default: the spec's name and the settings) |
//!
//! Values cannot contain `,`, `{` or `}`. Which keys a kind of player accepts is decided by
//! whoever builds the player (the `alphazero arena` command); this module only parses.

use std::time::Duration;

use crate::player::Limits;

/// The largest `movetime` in milliseconds (one hour, as `--movetime`).
pub const MAX_MOVETIME_MS: u64 = 3_600_000;
/// The largest `depth`.
pub const MAX_DEPTH: u32 = 1000;

/// Settings of one player, parsed from the `{…}` block of its spec ([`PlayerSettings::split`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlayerSettings {
    /// The player's own limits (`depth`, `nodes`, `movetime`); unset fields fall back to the
    /// match-wide limits ([`Limits::overridden_by`]).
    pub limits: Limits,
    /// Gomocup `INFO` payloads (`info=…`), in the order written, e.g. `"MAX_DEPTH 2"`.
    pub info: Vec<String>,
    /// UCCI/UCI options (`option=NAME=VALUE`) as `(NAME, VALUE)`, in the order written.
    pub options: Vec<(String, String)>,
    /// Display name (`name=…`).
    pub name: Option<String>,
}

/// A settings block that cannot be used. Every variant names the whole player spec and the
/// rejected part.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// A `{` with no `}` after it.
    #[error("player {spec:?}: the settings block after '{{' is not closed with '}}'")]
    Unclosed {
        /// The whole player spec.
        spec: String,
    },
    /// A `}` at the end with no `{`, or a brace inside the block.
    #[error("player {spec:?}: unbalanced braces in the settings block {block:?}")]
    Unbalanced {
        /// The whole player spec.
        spec: String,
        /// The text between the braces (or the whole spec when there is no `{`).
        block: String,
    },
    /// An item that is not `KEY=VALUE` (an empty item included).
    #[error("player {spec:?}: setting {item:?} is not KEY=VALUE")]
    NotKeyValue {
        /// The whole player spec.
        spec: String,
        /// The rejected item.
        item: String,
    },
    /// A key that is none of the known ones.
    #[error(
        "player {spec:?}: unknown setting {key:?} (expected depth, nodes, movetime, info, \
         option or name)"
    )]
    UnknownKey {
        /// The whole player spec.
        spec: String,
        /// The rejected key.
        key: String,
    },
    /// A value that does not fit its key.
    #[error("player {spec:?}: {key}={value:?}: {reason}")]
    BadValue {
        /// The whole player spec.
        spec: String,
        /// The key.
        key: String,
        /// The rejected value.
        value: String,
        /// What a good value looks like.
        reason: String,
    },
    /// A key that may be given once was given twice.
    #[error("player {spec:?}: {key} is given twice")]
    Repeated {
        /// The whole player spec.
        spec: String,
        /// The repeated key.
        key: String,
    },
}

fn count(text: &str, max: u64) -> Option<u64> {
    text.parse::<u64>().ok().filter(|&n| n >= 1 && n <= max)
}

impl PlayerSettings {
    /// Splits a player spec into its base (everything before the settings block, trimmed)
    /// and its settings. A spec that does not end with `}` and has no unclosed `{` has no
    /// block: the whole spec is the base and the settings are empty.
    ///
    /// ```
    /// # use alphazero_arena::PlayerSettings;
    /// let (base, s) = PlayerSettings::split("ucci:./eleeye {depth=1, option=usebook=false}").unwrap();
    /// assert_eq!(base, "ucci:./eleeye");
    /// assert_eq!(s.limits.depth, Some(1));
    /// assert_eq!(s.options, vec![("usebook".to_string(), "false".to_string())]);
    /// assert_eq!(s.label(), "depth 1, usebook=false");
    /// ```
    ///
    /// # Errors
    /// [`SettingsError`] for unbalanced braces, an item that is not `KEY=VALUE`, an unknown
    /// key, a bad value or a repeated single-valued key.
    pub fn split(spec: &str) -> Result<(&str, PlayerSettings), SettingsError> {
        let t = spec.trim();
        let Some(open) = t.rfind('{') else {
            if t.ends_with('}') {
                return Err(SettingsError::Unbalanced {
                    spec: spec.into(),
                    block: t.into(),
                });
            }
            return Ok((t, PlayerSettings::default()));
        };
        let Some(inner) = t[open + 1..].strip_suffix('}') else {
            return Err(SettingsError::Unclosed { spec: spec.into() });
        };
        if inner.contains('}') {
            return Err(SettingsError::Unbalanced {
                spec: spec.into(),
                block: inner.into(),
            });
        }
        let settings = Self::parse_block(spec, inner)?;
        Ok((t[..open].trim_end(), settings))
    }

    /// Parses the text between the braces: `KEY=VALUE` items separated by commas.
    fn parse_block(spec: &str, block: &str) -> Result<PlayerSettings, SettingsError> {
        let mut s = PlayerSettings::default();
        for item in block.split(',') {
            let item = item.trim();
            let Some((key, value)) = item.split_once('=') else {
                return Err(SettingsError::NotKeyValue {
                    spec: spec.into(),
                    item: item.into(),
                });
            };
            let key = key.trim().to_ascii_lowercase();
            let value = value.trim();
            let bad = |reason: &str| SettingsError::BadValue {
                spec: spec.into(),
                key: key.clone(),
                value: value.into(),
                reason: reason.into(),
            };
            let repeated = || SettingsError::Repeated {
                spec: spec.into(),
                key: key.clone(),
            };
            if value.chars().any(char::is_control) {
                return Err(bad("control characters are not allowed"));
            }
            match key.as_str() {
                "depth" => {
                    let d = count(value, u64::from(MAX_DEPTH))
                        .ok_or_else(|| bad(&format!("expected a depth 1–{MAX_DEPTH}")))?;
                    if s.limits.depth.replace(d as u32).is_some() {
                        return Err(repeated());
                    }
                }
                "nodes" => {
                    let n = count(value, u64::from(u32::MAX))
                        .ok_or_else(|| bad(&format!("expected a node count 1–{}", u32::MAX)))?;
                    if s.limits.simulations.replace(n as u32).is_some() {
                        return Err(repeated());
                    }
                }
                "movetime" => {
                    let ms = count(value, MAX_MOVETIME_MS).ok_or_else(|| {
                        bad(&format!("expected milliseconds 1–{MAX_MOVETIME_MS}"))
                    })?;
                    if s.limits
                        .movetime
                        .replace(Duration::from_millis(ms))
                        .is_some()
                    {
                        return Err(repeated());
                    }
                }
                "info" => {
                    if value.is_empty() {
                        return Err(bad("expected an INFO payload such as MAX_DEPTH 2"));
                    }
                    s.info.push(value.into());
                }
                "option" => match value.split_once('=') {
                    Some((name, v)) if !name.trim().is_empty() => {
                        s.options.push((name.trim().into(), v.trim().into()));
                    }
                    _ => return Err(bad("expected NAME=VALUE, e.g. option=usebook=false")),
                },
                "name" => {
                    if value.is_empty() {
                        return Err(bad("expected a name"));
                    }
                    if s.name.replace(value.into()).is_some() {
                        return Err(repeated());
                    }
                }
                _ => {
                    return Err(SettingsError::UnknownKey {
                        spec: spec.into(),
                        key,
                    })
                }
            }
        }
        Ok(s)
    }

    /// The settings in the notation [`PlayerSettings::split`] reads, without the braces:
    /// `KEY=VALUE` items joined by `,` in the order `depth`, `nodes`, `movetime` (ms),
    /// `info`, `option`, `name` (empty when nothing is set).
    pub fn block(&self) -> String {
        let l = &self.limits;
        let mut items: Vec<String> = Vec::new();
        items.extend(l.depth.map(|d| format!("depth={d}")));
        items.extend(l.simulations.map(|n| format!("nodes={n}")));
        items.extend(l.movetime.map(|t| format!("movetime={}", t.as_millis())));
        items.extend(self.info.iter().map(|i| format!("info={i}")));
        items.extend(self.options.iter().map(|(k, v)| format!("option={k}={v}")));
        items.extend(self.name.iter().map(|n| format!("name={n}")));
        items.join(",")
    }

    /// Whether nothing is set.
    pub fn is_empty(&self) -> bool {
        *self == PlayerSettings::default()
    }

    /// The keys that are set, in the table's order (`depth`, `nodes`, `movetime`, `info`,
    /// `option`, `name`): for checking which ones a kind of player supports.
    pub fn keys(&self) -> Vec<&'static str> {
        let mut k = Vec::new();
        let l = &self.limits;
        for (set, key) in [
            (l.depth.is_some(), "depth"),
            (l.simulations.is_some(), "nodes"),
            (l.movetime.is_some(), "movetime"),
            (!self.info.is_empty(), "info"),
            (!self.options.is_empty(), "option"),
            (self.name.is_some(), "name"),
        ] {
            if set {
                k.push(key);
            }
        }
        k
    }

    /// A short description of the settings for a player name, without the name itself:
    /// the INFO payloads, `depth D`, `nodes N`, `T ms`, `NAME=VALUE`, joined by `, `
    /// (empty when only the name or nothing is set).
    pub fn label(&self) -> String {
        let mut parts: Vec<String> = self.info.clone();
        if let Some(d) = self.limits.depth {
            parts.push(format!("depth {d}"));
        }
        if let Some(n) = self.limits.simulations {
            parts.push(format!("nodes {n}"));
        }
        if let Some(t) = self.limits.movetime {
            parts.push(format!("{} ms", t.as_millis()));
        }
        parts.extend(self.options.iter().map(|(k, v)| format!("{k}={v}")));
        parts.join(", ")
    }

    /// The player's name: `name=` if given, else `base` followed by the [`label`] in
    /// parentheses when there is one (`pbrain-rapfi (MAX_DEPTH 2)`).
    ///
    /// [`label`]: PlayerSettings::label
    pub fn display_name(&self, base: &str) -> String {
        if let Some(n) = &self.name {
            return n.clone();
        }
        let label = self.label();
        if label.is_empty() {
            base.to_string()
        } else {
            format!("{base} ({label})")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(spec: &str) -> (&str, PlayerSettings) {
        PlayerSettings::split(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
    }

    fn err(spec: &str) -> SettingsError {
        match PlayerSettings::split(spec) {
            Ok(r) => panic!("{spec}: accepted as {r:?}"),
            Err(e) => {
                // Every error names the whole spec.
                assert!(e.to_string().contains(&format!("{spec:?}")), "{e}");
                e
            }
        }
    }

    #[test]
    fn a_spec_without_a_block_is_all_base() {
        for spec in ["random", "gomocup:./pbrain-x --flag", " uci:x "] {
            let (base, s) = ok(spec);
            assert_eq!(base, spec.trim());
            assert!(s.is_empty());
            assert!(s.keys().is_empty());
        }
    }

    #[test]
    fn gomocup_info_lines_and_movetime() {
        let (base, s) =
            ok("gomocup:/e/bin/pbrain-rapfi{info=MAX_DEPTH 2, info = MAX_NODE 100 ,movetime=1000}");
        assert_eq!(base, "gomocup:/e/bin/pbrain-rapfi");
        assert_eq!(s.info, vec!["MAX_DEPTH 2", "MAX_NODE 100"]);
        assert_eq!(s.limits.movetime, Some(Duration::from_millis(1000)));
        assert_eq!(s.limits.depth, None);
        assert_eq!(s.keys(), vec!["movetime", "info"]);
        assert_eq!(s.label(), "MAX_DEPTH 2, MAX_NODE 100, 1000 ms");
        assert_eq!(
            s.display_name("pbrain-rapfi"),
            "pbrain-rapfi (MAX_DEPTH 2, MAX_NODE 100, 1000 ms)"
        );
    }

    #[test]
    fn ucci_depth_nodes_options_and_name() {
        let (base, s) =
            ok("ucci:sh -c 'exec ./eleeye' {DEPTH=3,Nodes=5000,option=usebook=false,option=Skill Level=3,name=ee-d3}");
        assert_eq!(base, "ucci:sh -c 'exec ./eleeye'");
        assert_eq!(s.limits.depth, Some(3));
        assert_eq!(s.limits.simulations, Some(5000));
        assert_eq!(
            s.options,
            vec![
                ("usebook".to_string(), "false".to_string()),
                ("Skill Level".to_string(), "3".to_string())
            ]
        );
        assert_eq!(s.name.as_deref(), Some("ee-d3"));
        assert_eq!(s.display_name("eleeye"), "ee-d3");
        assert_eq!(s.keys(), vec!["depth", "nodes", "option", "name"]);
        // An option value may be empty (`setoption NAME` with no value).
        let (_, s) = ok("uci:x{option=Clear Hash=}");
        assert_eq!(s.options, vec![("Clear Hash".to_string(), String::new())]);
    }

    #[test]
    fn bad_blocks_are_refused_naming_the_spec_and_the_part() {
        assert!(matches!(
            err("gomocup:x{info=MAX_DEPTH 2"),
            SettingsError::Unclosed { .. }
        ));
        assert!(matches!(
            err("gomocup:x}"),
            SettingsError::Unbalanced { .. }
        ));
        assert!(matches!(
            err("gomocup:x{info=a}b}"),
            SettingsError::Unbalanced { .. }
        ));
        match err("ucci:x{depth 1}") {
            SettingsError::NotKeyValue { item, .. } => assert_eq!(item, "depth 1"),
            e => panic!("{e:?}"),
        }
        assert!(matches!(err("ucci:x{}"), SettingsError::NotKeyValue { .. }));
        assert!(matches!(
            err("ucci:x{depth=1,}"),
            SettingsError::NotKeyValue { .. }
        ));
        match err("ucci:x{dpeth=1}") {
            SettingsError::UnknownKey { key, .. } => assert_eq!(key, "dpeth"),
            e => panic!("{e:?}"),
        }
        for (spec, key, value) in [
            ("ucci:x{depth=0}", "depth", "0"),
            ("ucci:x{depth=1001}", "depth", "1001"),
            ("ucci:x{depth=two}", "depth", "two"),
            ("ucci:x{nodes=-5}", "nodes", "-5"),
            ("ucci:x{nodes=99999999999}", "nodes", "99999999999"),
            ("ucci:x{movetime=0}", "movetime", "0"),
            ("ucci:x{movetime=3600001}", "movetime", "3600001"),
            ("gomocup:x{info=}", "info", ""),
            ("ucci:x{option=usebook}", "option", "usebook"),
            ("ucci:x{option==false}", "option", "=false"),
            ("ucci:x{name=}", "name", ""),
        ] {
            match err(spec) {
                SettingsError::BadValue {
                    key: k, value: v, ..
                } => {
                    assert_eq!((k.as_str(), v.as_str()), (key, value), "{spec}");
                    let text = err(spec).to_string();
                    assert!(text.contains(&format!("{key}={value:?}")), "{text}");
                }
                e => panic!("{spec}: {e:?}"),
            }
        }
        for spec in [
            "ucci:x{depth=1,depth=2}",
            "ucci:x{nodes=1,nodes=2}",
            "ucci:x{movetime=1,movetime=2}",
            "ucci:x{name=a,name=b}",
        ] {
            assert!(
                matches!(err(spec), SettingsError::Repeated { .. }),
                "{spec}"
            );
        }
    }
}
