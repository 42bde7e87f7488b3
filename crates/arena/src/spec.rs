//! The player-spec notation of `alphazero arena --players` and `--ladder`: one text names a
//! kind of player and its settings, e.g. `net:models/connect4.azc:200`, `heuristic:2`,
//! `gomocup:/path/pbrain-rapfi{info=MAX_DEPTH 2}` or `ucci:'./eleeye' {depth=1,
//! option=usebook=false}`. [`PlayerSpec`] parses it ([`FromStr`]) and prints it back
//! ([`fmt::Display`]; printing then parsing gives the same spec).
//!
//! | kind | meaning |
//! |---|---|
//! | `random` | uniformly random legal moves |
//! | `rollout:N` | pure MCTS, one random playout per leaf, N simulations |
//! | `uniform:N` | PUCT search with the uniform evaluator, N simulations |
//! | `net:FILE[:SIMS]` | PUCT search with the network in FILE (its own simulations, or the match's) |
//! | `heuristic:L` | the Gomoku threat heuristic of level L (0–2) |
//! | `alphabeta:D` | the Xiangqi alpha-beta searcher of depth D (1–8) |
//! | `gomocup:CMD`, `ucci:CMD`, `uci:CMD` | an external engine over its protocol |
//!
//! CMD is a command line split into words as a POSIX shell would (`'…'` and `"…"` quote, `\`
//! escapes; [`shell_words`]). Which settings (see [`crate::settings`]) a kind accepts is
//! checked here: external Gomocup engines take `info`, UCCI/UCI engines `depth`, `nodes` and
//! `option`, network players `option` (their search settings, e.g.
//! `option=policy_temperature=1.5`); every kind takes `movetime` and `name`.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use crate::settings::{PlayerSettings, SettingsError};

/// The largest `alphabeta:D` depth.
pub const MAX_ALPHABETA_DEPTH: u32 = 8;
/// The largest `heuristic:L` level.
pub const MAX_HEURISTIC_LEVEL: u8 = 2;

/// What plays: the part of a spec before its settings block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayerKind {
    /// `random`: uniformly random legal moves.
    Random,
    /// `rollout:N`: pure MCTS with one random playout per leaf, N simulations a move.
    Rollout(u32),
    /// `uniform:N`: PUCT search with the uniform evaluator, N simulations a move.
    Uniform(u32),
    /// `net:FILE[:SIMS]`: PUCT search guided by the network in `file`, with its own
    /// simulations a move or (`None`) the match's.
    Net {
        /// The checkpoint file.
        file: PathBuf,
        /// Simulations a move, when given in the spec.
        simulations: Option<u32>,
    },
    /// `heuristic:L`: the Gomoku threat heuristic of level L (0–2).
    Heuristic(u8),
    /// `alphabeta:D`: the Xiangqi alpha-beta searcher of depth D (1–8).
    AlphaBeta(u32),
    /// `gomocup:CMD`: an external Gomocup brain; the command line as words.
    Gomocup(Vec<String>),
    /// `ucci:CMD`: an external UCCI engine; the command line as words.
    Ucci(Vec<String>),
    /// `uci:CMD`: an external UCI engine; the command line as words.
    Uci(Vec<String>),
}

impl PlayerKind {
    /// Whether the player is an external engine process (Gomocup, UCCI or UCI).
    pub fn is_external(&self) -> bool {
        matches!(
            self,
            PlayerKind::Gomocup(_) | PlayerKind::Ucci(_) | PlayerKind::Uci(_)
        )
    }

    /// The settings keys this kind of player accepts.
    pub fn allowed_settings(&self) -> &'static [&'static str] {
        match self {
            PlayerKind::Gomocup(_) => &["info", "movetime", "name"],
            PlayerKind::Ucci(_) | PlayerKind::Uci(_) => {
                &["depth", "nodes", "option", "movetime", "name"]
            }
            // Its depth is the spec's D (1–8): a `depth` setting would contradict it, or
            // get round the 1–8 bound (`alphabeta:1{depth=20}` searched for minutes).
            PlayerKind::AlphaBeta(_) => &["movetime", "name"],
            // A network player's search settings (the binary's arena checks the names).
            PlayerKind::Net { .. } => &["option", "movetime", "name"],
            _ => &["movetime", "name"],
        }
    }
}

/// One player spec: the kind of player and the settings of its `{…}` block.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerSpec {
    /// What plays.
    pub kind: PlayerKind,
    /// The settings block (empty when the spec has none).
    pub settings: PlayerSettings,
}

impl PlayerSpec {
    /// Whether the player is an external engine process (Gomocup, UCCI or UCI).
    pub fn is_external(&self) -> bool {
        self.kind.is_external()
    }
}

/// A player spec that cannot be used. Every variant names the whole spec.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// The settings block is malformed.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// The kind needs an argument (`rollout:N`, `net:FILE`, `gomocup:CMD`, …) that is missing.
    #[error("player {spec:?}: expected {kind}:{what}")]
    MissingArgument {
        /// The whole spec.
        spec: String,
        /// The kind, lower case.
        kind: String,
        /// What is missing, e.g. `N` or `FILE[:SIMS]`.
        what: String,
    },
    /// A count that must be a positive number is not one.
    #[error("player {spec:?}: {what} must be a positive number, got {text:?}")]
    NotPositive {
        /// The whole spec.
        spec: String,
        /// Which count, e.g. `N` or `SIMS`.
        what: String,
        /// The text given.
        text: String,
    },
    /// A count is a number too large for it.
    #[error("player {spec:?}: {what} {text} is too large (at most {max})")]
    TooLarge {
        /// The whole spec.
        spec: String,
        /// Which count.
        what: String,
        /// The text given.
        text: String,
        /// The largest value accepted.
        max: u64,
    },
    /// `heuristic:L` with L outside 0–2.
    #[error("player {spec:?}: heuristic level must be 0, 1 or 2")]
    HeuristicLevel {
        /// The whole spec.
        spec: String,
    },
    /// `alphabeta:D` with D outside 1–8.
    #[error("player {spec:?}: alpha-beta depth must be 1–8")]
    AlphaBetaDepth {
        /// The whole spec.
        spec: String,
    },
    /// An engine command line that cannot be split into words (an unterminated quote).
    #[error(
        "player {spec:?}: the engine command {command:?} cannot be split into words: {reason}"
    )]
    Command {
        /// The whole spec.
        spec: String,
        /// The command text.
        command: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No such kind of player.
    #[error(
        "unknown player {spec:?}: expected random, rollout:N, uniform:N, net:FILE[:SIMS], \
         heuristic:L, alphabeta:D, gomocup:CMD, ucci:CMD or uci:CMD"
    )]
    UnknownKind {
        /// The whole spec.
        spec: String,
    },
    /// A setting the kind of player does not take.
    #[error(
        "player {spec:?}: setting {key} does not apply to this kind of player (it takes \
         {allowed}){hint}"
    )]
    Setting {
        /// The whole spec.
        spec: String,
        /// The rejected key.
        key: String,
        /// The keys it takes, comma-separated.
        allowed: String,
        /// A hint on what to write instead (empty or starting with `; `).
        hint: String,
    },
}

fn count(spec: &str, what: &str, text: &str) -> Result<u32, SpecError> {
    match text.parse::<u32>() {
        Ok(n) if n > 0 => Ok(n),
        // A number, but not one that fits: say so rather than "must be positive".
        _ if text.parse::<u128>().is_ok_and(|n| n > u128::from(u32::MAX)) => {
            Err(SpecError::TooLarge {
                spec: spec.into(),
                what: what.into(),
                text: text.into(),
                max: u64::from(u32::MAX),
            })
        }
        _ => Err(SpecError::NotPositive {
            spec: spec.into(),
            what: what.into(),
            text: text.into(),
        }),
    }
}

fn command(spec: &str, text: &str) -> Result<Vec<String>, SpecError> {
    shell_words::split(text).map_err(|e| SpecError::Command {
        spec: spec.into(),
        command: text.into(),
        reason: e.to_string(),
    })
}

impl PlayerKind {
    /// Parses the part of `spec` before its settings block (`base`).
    fn parse(spec: &str, base: &str) -> Result<PlayerKind, SpecError> {
        let s = base.trim();
        let (kind, arg) = match s.split_once(':') {
            Some((k, a)) => (k.to_ascii_lowercase(), Some(a)),
            None => (s.to_ascii_lowercase(), None),
        };
        let need = |what: &str| -> Result<&str, SpecError> {
            arg.filter(|a| !a.trim().is_empty())
                .ok_or_else(|| SpecError::MissingArgument {
                    spec: spec.into(),
                    kind: kind.clone(),
                    what: what.into(),
                })
        };
        Ok(match kind.as_str() {
            "random" if arg.is_none() => PlayerKind::Random,
            "rollout" => PlayerKind::Rollout(count(spec, "N", need("N")?)?),
            "uniform" => PlayerKind::Uniform(count(spec, "N", need("N")?)?),
            "net" => {
                let a = need("FILE[:SIMS]")?;
                match a.rsplit_once(':') {
                    Some((file, sims))
                        if !file.is_empty() && sims.chars().all(|c| c.is_ascii_digit()) =>
                    {
                        PlayerKind::Net {
                            file: file.into(),
                            simulations: Some(count(spec, "SIMS", sims)?),
                        }
                    }
                    _ => PlayerKind::Net {
                        file: a.into(),
                        simulations: None,
                    },
                }
            }
            "heuristic" => match need("L")?.parse::<u8>() {
                Ok(v) if v <= MAX_HEURISTIC_LEVEL => PlayerKind::Heuristic(v),
                _ => return Err(SpecError::HeuristicLevel { spec: spec.into() }),
            },
            "alphabeta" => {
                let d = count(spec, "depth D", need("D")?)?;
                if d > MAX_ALPHABETA_DEPTH {
                    return Err(SpecError::AlphaBetaDepth { spec: spec.into() });
                }
                PlayerKind::AlphaBeta(d)
            }
            "gomocup" => PlayerKind::Gomocup(command(spec, need("CMD")?)?),
            "ucci" => PlayerKind::Ucci(command(spec, need("CMD")?)?),
            "uci" => PlayerKind::Uci(command(spec, need("CMD")?)?),
            _ => return Err(SpecError::UnknownKind { spec: spec.into() }),
        })
    }
}

impl FromStr for PlayerSpec {
    type Err = SpecError;

    /// Parses one `--players` / `--ladder` entry with its settings block (if any), and
    /// checks that each setting applies to that kind of player.
    ///
    /// ```
    /// # use alphazero_arena::{PlayerKind, PlayerSpec};
    /// let p: PlayerSpec = "ucci:'/opt/my engine/eleeye' -v{depth=1}".parse().unwrap();
    /// assert_eq!(p.kind, PlayerKind::Ucci(vec!["/opt/my engine/eleeye".into(), "-v".into()]));
    /// assert_eq!(p.settings.limits.depth, Some(1));
    /// assert!("gomocup:pbrain{depth=2}".parse::<PlayerSpec>().is_err());
    /// ```
    fn from_str(spec: &str) -> Result<Self, SpecError> {
        let (base, settings) = PlayerSettings::split(spec)?;
        let kind = PlayerKind::parse(spec, base)?;
        let allowed = kind.allowed_settings();
        if let Some(key) = settings.keys().into_iter().find(|k| !allowed.contains(k)) {
            let hint = match (&kind, key) {
                (PlayerKind::Gomocup(_), "depth" | "nodes") => {
                    "; the Gomocup protocol has no depth or node limit, Rapfi takes \
                     info=MAX_DEPTH N or info=MAX_NODE N"
                }
                (
                    PlayerKind::Net { .. } | PlayerKind::Uniform(_) | PlayerKind::Rollout(_),
                    "nodes",
                ) => "; give the simulations in the spec (uniform:N, net:FILE:SIMS)",
                (PlayerKind::AlphaBeta(_), "depth") => {
                    "; the depth is the spec's D (alphabeta:D, 1–8)"
                }
                _ => "",
            };
            return Err(SpecError::Setting {
                spec: spec.into(),
                key: key.into(),
                allowed: allowed.join(", "),
                hint: hint.into(),
            });
        }
        Ok(PlayerSpec { kind, settings })
    }
}

impl fmt::Display for PlayerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let words = |w: &[String]| shell_words::join(w);
        match self {
            PlayerKind::Random => write!(f, "random"),
            PlayerKind::Rollout(n) => write!(f, "rollout:{n}"),
            PlayerKind::Uniform(n) => write!(f, "uniform:{n}"),
            PlayerKind::Net { file, simulations } => {
                write!(f, "net:{}", file.display())?;
                match simulations {
                    Some(s) => write!(f, ":{s}"),
                    None => Ok(()),
                }
            }
            PlayerKind::Heuristic(l) => write!(f, "heuristic:{l}"),
            PlayerKind::AlphaBeta(d) => write!(f, "alphabeta:{d}"),
            PlayerKind::Gomocup(c) => write!(f, "gomocup:{}", words(c)),
            PlayerKind::Ucci(c) => write!(f, "ucci:{}", words(c)),
            PlayerKind::Uci(c) => write!(f, "uci:{}", words(c)),
        }
    }
}

impl fmt::Display for PlayerSpec {
    /// The spec in the notation [`FromStr`] reads: the kind, then the settings block when
    /// there are settings (`gomocup:pbrain-rapfi{info=MAX_DEPTH 2}`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        if !self.settings.is_empty() {
            write!(f, "{{{}}}", self.settings.block())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::time::Duration;

    fn err(spec: &str) -> String {
        match spec.parse::<PlayerSpec>() {
            Ok(p) => panic!("{spec:?} parsed as {p:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn every_kind_parses_with_its_arguments() {
        let cases: Vec<(&str, PlayerKind)> = vec![
            ("random", PlayerKind::Random),
            ("ROLLOUT:200", PlayerKind::Rollout(200)),
            ("uniform:8", PlayerKind::Uniform(8)),
            (
                "net:models/c4.azc",
                PlayerKind::Net {
                    file: "models/c4.azc".into(),
                    simulations: None,
                },
            ),
            (
                "net:C:/nets/c4.azc:400",
                PlayerKind::Net {
                    file: "C:/nets/c4.azc".into(),
                    simulations: Some(400),
                },
            ),
            ("heuristic:0", PlayerKind::Heuristic(0)),
            ("alphabeta:8", PlayerKind::AlphaBeta(8)),
            (
                "gomocup:/e/pbrain-rapfi --x 'a b'",
                PlayerKind::Gomocup(vec!["/e/pbrain-rapfi".into(), "--x".into(), "a b".into()]),
            ),
            (
                r#"ucci:"./my engine" -q\ r"#,
                PlayerKind::Ucci(vec!["./my engine".into(), "-q r".into()]),
            ),
            (
                "uci:fairy-stockfish",
                PlayerKind::Uci(vec!["fairy-stockfish".into()]),
            ),
        ];
        for (text, kind) in cases {
            let p: PlayerSpec = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(p.kind, kind, "{text}");
            assert!(p.settings.is_empty(), "{text}");
        }
    }

    #[test]
    fn settings_are_checked_against_the_kind() {
        let p: PlayerSpec = "gomocup:rapfi{info=MAX_DEPTH 2,movetime=500}"
            .parse()
            .unwrap();
        assert_eq!(p.settings.info, vec!["MAX_DEPTH 2".to_string()]);
        assert_eq!(p.settings.limits.movetime, Some(Duration::from_millis(500)));
        let e = err("gomocup:rapfi{depth=2}");
        assert!(
            e.contains("setting depth does not apply") && e.contains("MAX_DEPTH"),
            "{e}"
        );
        let e = err("net:x.azc{nodes=5}");
        assert!(e.contains("net:FILE:SIMS"), "{e}");
        let e = err("random{option=a=b}");
        assert!(e.contains("it takes movetime, name"), "{e}");
    }

    #[test]
    fn net_players_take_search_options() {
        let p: PlayerSpec = "net:a.azc:200{option=policy_temperature=1.5,option=c_puct=2}"
            .parse()
            .unwrap();
        assert_eq!(
            p.settings.options,
            vec![
                ("policy_temperature".to_string(), "1.5".to_string()),
                ("c_puct".to_string(), "2".to_string())
            ]
        );
        assert!("uniform:20{option=c_puct=2}".parse::<PlayerSpec>().is_err());
    }

    #[test]
    fn bad_specs_get_errors_naming_the_spec() {
        for (spec, needle) in [
            ("rollout", "expected rollout:N"),
            ("net:", "expected net:FILE[:SIMS]"),
            ("uniform:0", "must be a positive number"),
            ("uniform:x", "must be a positive number"),
            ("rollout:99999999999", "too large (at most 4294967295)"),
            ("heuristic:3", "heuristic level must be 0, 1 or 2"),
            ("alphabeta:9", "alpha-beta depth must be 1–8"),
            // A `{depth=…}` setting must not get round the bound or contradict the spec's D.
            (
                "alphabeta:1{depth=20}",
                "the depth is the spec's D (alphabeta:D, 1–8)",
            ),
            ("gomocup:'unterminated", "cannot be split into words"),
            ("random:3", "unknown player"),
            ("stockfish", "unknown player"),
            ("ucci:e{depth=1", "not closed"),
        ] {
            let e = err(spec);
            assert!(e.contains(needle), "{spec}: {e}");
            assert!(e.contains(&format!("{spec:?}")), "{spec}: {e}");
        }
    }

    fn word() -> impl Strategy<Value = String> {
        // Words of a command line: anything printable but the characters of the settings
        // notation (`{`, `}`, `,` cannot appear in a spec at all).
        "[a-zA-Z0-9 ./'\"\\\\=:_-]{1,12}".prop_filter("a word", |w| !w.trim().is_empty())
    }

    fn kind() -> impl Strategy<Value = PlayerKind> {
        prop_oneof![
            Just(PlayerKind::Random),
            (1u32..).prop_map(PlayerKind::Rollout),
            (1u32..).prop_map(PlayerKind::Uniform),
            // A file name without ':' (`net:a:12` reads 12 as the simulations).
            ("[a-zA-Z0-9./_-]{1,16}", proptest::option::of(1u32..)).prop_map(|(f, s)| {
                PlayerKind::Net {
                    file: f.into(),
                    simulations: s,
                }
            }),
            (0u8..=2).prop_map(PlayerKind::Heuristic),
            (1u32..=8).prop_map(PlayerKind::AlphaBeta),
            proptest::collection::vec(word(), 1..4).prop_map(PlayerKind::Gomocup),
            proptest::collection::vec(word(), 1..4).prop_map(PlayerKind::Ucci),
            proptest::collection::vec(word(), 1..4).prop_map(PlayerKind::Uci),
        ]
    }

    fn value() -> impl Strategy<Value = String> {
        "[a-zA-Z0-9_][a-zA-Z0-9 _.=-]{0,10}[a-zA-Z0-9_]"
    }

    fn spec() -> impl Strategy<Value = PlayerSpec> {
        (
            kind(),
            proptest::option::of(1u32..=1000),
            proptest::option::of(1u32..),
            proptest::option::of(1u64..=3_600_000),
            proptest::collection::vec(value(), 0..3),
            proptest::collection::vec(("[a-zA-Z][a-zA-Z0-9_]{0,8}", value()), 0..3),
            proptest::option::of(value()),
        )
            .prop_map(|(kind, depth, nodes, ms, info, options, name)| {
                let mut s = PlayerSettings::default();
                // Only the settings the kind takes, so that the spec is valid.
                let allowed = kind.allowed_settings();
                if allowed.contains(&"depth") {
                    s.limits.depth = depth;
                }
                if allowed.contains(&"nodes") {
                    s.limits.simulations = nodes;
                }
                s.limits.movetime = ms.map(Duration::from_millis);
                if allowed.contains(&"info") {
                    s.info = info;
                }
                if allowed.contains(&"option") {
                    s.options = options;
                }
                s.name = name;
                PlayerSpec { kind, settings: s }
            })
    }

    proptest! {
        #[test]
        fn a_printed_spec_parses_back_to_itself(p in spec()) {
            let text = p.to_string();
            let back: PlayerSpec = text.parse().map_err(|e| {
                TestCaseError::fail(format!("{text}: {e}"))
            })?;
            prop_assert_eq!(back, p, "{}", text);
        }
    }
}
