//! Self-play actors.
//!
//! * [`play_selfplay_games`]: many games at once, every round of the searches of all of them
//!   sent to the evaluator in **one** batch (this is what keeps a network busy). Temperature
//!   schedule, Dirichlet root noise, tree reuse, playout-cap randomisation (Wu 2019, KataGo),
//!   resignation with a share of games that may not resign (to measure false resignations).
//!   Each finished game becomes a [`GameRecord`](alphazero_records::GameRecord) with π, the
//!   root value and the simulations of every ply. A share of the games may start from
//!   positions of earlier games ([`Restarts`]) or from random start positions ([`Starts`]).
//! * [`play_selfplay_games_parallel`]: the same split over one single-threaded worker per
//!   core, each with its own games and its own evaluator (the network's weights shared), so
//!   every core runs searches and forward passes instead of every convolution being split
//!   over the cores.
//!
//! Matches between networks (gating, the arena) are the arena's (`alphazero_arena::run_match`
//! with batched search entrants).
//!
//! Both are deterministic for a fixed seed and deterministic evaluators (the parallel driver for
//! a fixed worker count as well).
#![deny(missing_docs)]

mod actor;
mod workers;

pub use actor::{
    play_selfplay_games, PlayoutCap, Resignation, RestartPositions, Restarts, SelfPlayConfig,
    SelfPlayError, SelfPlayStats, Starts,
};
pub use workers::{play_selfplay_games_parallel, worker_count};
