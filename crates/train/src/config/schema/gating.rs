//! `[gating]`: the match of the candidate against the champion, its SPRT, and the keys of its
//! search that differ from self-play's.

use alphazero_mcts::SearchConfig;
use serde::{Deserialize, Serialize};
use toml::{Table, Value};

use crate::config::ConfigError;

/// `[gating.sprt]`: stop gating matches early with an SPRT.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SprtSection {
    /// Whether gating stops early on an SPRT decision.
    pub enabled: bool,
    /// Elo difference under H0.
    pub elo0: f64,
    /// Elo difference under H1 (> elo0).
    pub elo1: f64,
    /// False-positive rate in (0, 0.5).
    pub alpha: f64,
    /// False-negative rate in (0, 0.5).
    pub beta: f64,
}

/// `[gating]`: candidate against champion.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatingSection {
    /// Whether candidates must beat the champion to be promoted (false: always promote).
    pub enabled: bool,
    /// Games of a gating match (at most, when the SPRT is enabled).
    pub games: u32,
    /// Simulations per move in gating games.
    pub simulations: u32,
    /// Score (wins + draws/2 over games) in (0, 1] needed for promotion.
    pub win_rate: f64,
    /// Early stopping.
    pub sprt: SprtSection,
    /// Plies played uniformly at random at the start of each gating game (for variety).
    pub opening_random_plies: u32,
    /// `[gating.search]`: the gating search's own settings; a key left out is
    /// `[selfplay.search]`'s (the default: gating searches as self-play does, with
    /// `gating.simulations`, no root noise, τ = 0).
    #[serde(default, skip_serializing_if = "SearchOverlay::is_unset")]
    pub search: SearchOverlay,
}

/// `[gating.search]`: the keys of `[selfplay.search]` (any but the root noise's,
/// [`ROOT_NOISE_KEYS`]) that the gating match sets differently, as written; each is read by
/// [`SearchConfig`]'s own definition when laid over self-play's search
/// ([`SearchOverlay::over`]). Empty = gating searches exactly as self-play.
///
/// [`ROOT_NOISE_KEYS`]: crate::config::ROOT_NOISE_KEYS
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SearchOverlay(pub Table);

impl SearchOverlay {
    /// Whether no key is set (gating searches exactly as self-play).
    pub fn is_unset(&self) -> bool {
        self.0.is_empty()
    }

    /// `base` with every key of this overlay in place of its own.
    ///
    /// # Errors
    /// [`ConfigError::Value`] naming `gating.search` when a key is unknown or of the wrong
    /// type (never for a config that [`TrainConfig::parse`] accepted).
    ///
    /// [`TrainConfig::parse`]: crate::config::TrainConfig::parse
    pub fn over(&self, base: &SearchConfig) -> Result<SearchConfig, ConfigError> {
        let bad = |e: &dyn std::fmt::Display| ConfigError::Value(format!("gating.search: {e}"));
        let mut table = match Value::try_from(base) {
            Ok(Value::Table(t)) => t,
            Ok(v) => return Err(bad(&format!("the search config is not a table: {v}"))),
            Err(e) => return Err(bad(&e)),
        };
        for (k, v) in &self.0 {
            table.insert(k.clone(), v.clone());
        }
        Value::Table(table).try_into().map_err(|e| bad(&e))
    }
}
