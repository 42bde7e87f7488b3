//! Xiangqi in the registry: one spec, the standard rules.

use alphazero_game::Game;
use alphazero_xiangqi::{Xiangqi, XiangqiConfig};

use crate::{GameSpec, Registered};

/// [`Game::NAME`] of Xiangqi.
pub(crate) const NAME: &str = <Xiangqi as Game>::NAME;

/// The game in one line (`--help`).
pub(crate) const ABOUT: &str = "Xiangqi (Chinese chess)";

impl Registered for Xiangqi {
    /// Always [`GameSpec::Xiangqi`]: the repetition and no-capture options are not part of a
    /// spec.
    fn spec(_config: &XiangqiConfig) -> GameSpec {
        GameSpec::Xiangqi
    }

    fn config_of(spec: &GameSpec) -> Option<XiangqiConfig> {
        matches!(spec, GameSpec::Xiangqi).then(XiangqiConfig::default)
    }
}
