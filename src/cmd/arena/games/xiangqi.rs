//! Xiangqi's arena players (alpha-beta, UCCI/UCI engines); its positions as text and how it
//! is drawn are in the registry (`alphazero_registry`).
use super::super::{wrong_game, ArenaGame, Factory};
use alphazero_arena::{Player, PlayerKind, PlayerSpec};
use alphazero_xiangqi::Xiangqi;
use anyhow::Result;
use std::sync::Arc;

impl ArenaGame for Xiangqi {
    fn special(spec: &PlayerSpec, text: &str, seed: u64) -> Result<(String, Factory<Self>)> {
        use alphazero_protocols::{Dialect, UcciClient, UcciClientConfig};
        match &spec.kind {
            PlayerKind::AlphaBeta(d) => {
                let d = *d;
                Ok((
                    format!("alphabeta-d{d}"),
                    Arc::new(move || {
                        Box::new(alphazero_arena::XiangqiAlphaBeta::new(d, seed))
                            as Box<dyn Player<Xiangqi>>
                    }),
                ))
            }
            PlayerKind::Ucci(cmd) | PlayerKind::Uci(cmd) => {
                let dialect = if matches!(spec.kind, PlayerKind::Ucci(_)) {
                    Dialect::Ucci
                } else {
                    Dialect::Uci
                };
                let mut cfg = UcciClientConfig::new(cmd.clone(), dialect);
                cfg.options.extend(spec.settings.options.iter().cloned());
                let name = cfg.name.clone();
                Ok((
                    name,
                    Arc::new(move || {
                        Box::new(UcciClient::new(cfg.clone())) as Box<dyn Player<Xiangqi>>
                    }),
                ))
            }
            _ => Err(wrong_game::<Self>(text)),
        }
    }
}
