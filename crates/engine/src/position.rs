//! Positions and games given as text: [`PositionText`] (the registry's trait, each game's impl
//! in its module of `alphazero_registry`), the game spec of the command line's
//! `--game/--size/--rule`, and a self-play record's game replayed from its start ([`replay`]).
use alphazero_game::History;
use alphazero_records::GameRecord;
use alphazero_registry::{GameSpec, SpecError};
pub use alphazero_registry::{PositionError, PositionText};
use anyhow::{Context, Result};

/// The game spec of the flags `--game`, `--size` and `--rule`; `--size` and `--rule` are
/// refused for games other than Gomoku.
///
/// # Errors
/// An unknown game, a size or rule for another game than Gomoku, a bad size or rule.
pub fn spec_from_flags(game: &str, size: Option<u8>, rule: Option<&str>) -> Result<GameSpec> {
    GameSpec::from_parts(game, size, rule).map_err(|e| match e {
        SpecError::NotForGame { game } => {
            anyhow::anyhow!("--size and --rule apply to gomoku only, not {game}")
        }
        e => e.into(),
    })
}

/// Replays a recorded game from its start: a restarted game's prefix (the moves of the
/// earlier game it started from), then its plies.
///
/// # Errors
/// The record's start position does not read; the first action that is not a legal move,
/// naming its ply from the start.
pub fn replay<G: PositionText>(cfg: &G::Config, rec: &GameRecord) -> Result<History<G>> {
    let mut h = if rec.start.trim().is_empty() {
        History::new(G::new(cfg))
    } else {
        G::parse_position(cfg, &rec.start).context("the record's start position")?
    };
    for (i, action) in rec.actions().enumerate() {
        let pos = h.current();
        let mv = pos
            .action_to_move(usize::from(action))
            .with_context(|| format!("ply {i}: action {action} names no move"))?;
        h.play(mv)
            .with_context(|| format!("ply {i}: recorded move {mv}"))?;
    }
    Ok(h)
}
