//! Gomoku's arena players (heuristic, Gomocup engines) and opening files (Gomocup's offset
//! format); its positions as text and how it is
//! drawn are in the registry (`alphazero_registry`).
use super::super::{wrong_game, ArenaGame, Factory};
use alphazero_arena::{Player, PlayerKind, PlayerSpec};
use alphazero_game::History;
use alphazero_gomoku::Gomoku;
use anyhow::Result;
use std::sync::Arc;

impl ArenaGame for Gomoku {
    fn special(spec: &PlayerSpec, text: &str, seed: u64) -> Result<(String, Factory<Self>)> {
        match &spec.kind {
            PlayerKind::Heuristic(l) => {
                let l = *l;
                Ok((
                    format!("heuristic-{l}"),
                    Arc::new(move || {
                        Box::new(alphazero_arena::GomokuHeuristic::new(l, seed))
                            as Box<dyn Player<Gomoku>>
                    }),
                ))
            }
            PlayerKind::Gomocup(cmd) => {
                let mut cfg = alphazero_protocols::GomocupClientConfig::new(cmd.clone());
                cfg.info = spec.settings.info.clone();
                let name = cfg.name.clone();
                Ok((
                    name,
                    Arc::new(move || {
                        Box::new(alphazero_protocols::GomocupClient::new(cfg.clone()))
                            as Box<dyn Player<Gomoku>>
                    }),
                ))
            }
            _ => Err(wrong_game::<Self>(text)),
        }
    }

    fn opening_file(start: &Self, text: &str) -> Result<Vec<History<Self>>> {
        Ok(alphazero_arena::gomocup_offset_openings(text, start)?)
    }
}
