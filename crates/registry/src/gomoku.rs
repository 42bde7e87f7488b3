//! Gomoku in the registry: its spec carries the board size and the rule.

use alphazero_game::Game;
use alphazero_gomoku::{Gomoku, GomokuConfig, Rule};

use crate::{GameSpec, Registered, SpecError};

/// [`Game::NAME`] of Gomoku.
pub(crate) const NAME: &str = <Gomoku as Game>::NAME;

/// The game in one line (`--help`).
pub(crate) const ABOUT: &str = "Gomoku / Renju on an N×N board (5–20)";

/// Gomoku on a `size × size` board under `rule`, the size checked as [`GomokuConfig::new`]
/// checks it.
pub(crate) fn spec(size: u8, rule: Rule) -> Result<GameSpec, SpecError> {
    let config = GomokuConfig::new(size, rule)?;
    Ok(Gomoku::spec(&config))
}

/// The size and rule out of a configuration's `Debug` text (`GomokuConfig { size: 8, rule:
/// Freestyle, candidate_radius: 2 }`), as headers written before the registry store them.
pub(crate) fn from_debug_text(text: &str) -> Result<GameSpec, String> {
    let field = |key: &str| {
        text.split(&format!("{key}: "))
            .nth(1)
            .and_then(|r| r.split([',', ' ', '}']).next())
            .filter(|v| !v.is_empty())
    };
    let size = field("size")
        .and_then(|s| s.parse::<u8>().ok())
        .ok_or("no board size")?;
    let rule: Rule = field("rule")
        .ok_or("no rule")?
        .parse()
        .map_err(|e: alphazero_game::ParseError| e.to_string())?;
    spec(size, rule).map_err(|e| e.to_string())
}

impl Registered for Gomoku {
    fn spec(config: &GomokuConfig) -> GameSpec {
        GameSpec::Gomoku {
            size: config.size,
            rule: config.rule,
        }
    }

    fn config_of(spec: &GameSpec) -> Option<GomokuConfig> {
        match *spec {
            GameSpec::Gomoku { size, rule } => Some(GomokuConfig {
                size,
                rule,
                ..GomokuConfig::default()
            }),
            _ => None,
        }
    }
}
