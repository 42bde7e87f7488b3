//! PUCT Monte-Carlo tree search, generic over [`alphazero_game::Game`] and a batched
//! [`Evaluator`].
//!
//! * [`SearchConfig`]: how to search, every knob, with the AlphaZero paper's defaults,
//!   validated into a [`ConfigError`] naming the bad field. [`SearchBudget`]: how long (the
//!   simulations of each run, or none for a search limited by time), root noise and seed, the
//!   caller's for each search.
//! * [`Search`]: one tree (arena of `u32`-indexed nodes, compact edges `(move, action, P, N,
//!   W)` allocated on expansion), PUCT with FPU reduction, virtual loss and `K` leaves per
//!   evaluator call, Dirichlet root noise over the candidate moves, MCTS-solver, tree reuse
//!   ([`Search::advance`]), optional Gumbel root with sequential halving.
//! * [`Driver`]: the one collect-leaves → evaluate → apply loop, for one tree or many trees
//!   batched into one evaluator call, with its stop conditions ([`RunLimits`]: node cap,
//!   deadline, PV depth; a [`Control`] callback between rounds) and one rule for evaluator
//!   errors. [`Search::run`] and [`run_many`] are its plain forms.
//! * [`select_move`] picks the move to play with temperature.
//! * Evaluators: [`UniformEvaluator`], [`RolloutEvaluator`], [`CachedEvaluator`].
//!
//! Values are always from the side to move of the position they belong to; backed-up values
//! change sign at every ply where the side to move changes.
//!
//! Gumbel: the root uses Gumbel-top-k + sequential halving (mctx
//! `gumbel_muzero_root_action_selection`), completed Q by the mixed value, `q` mapped from
//! [-1, 1] to [0, 1] before `σ`; **non-root nodes use plain PUCT**.
//!
//! # Example
//!
//! Search a Connect Four position where the first player (stones in columns 4, 5 and 6 of the
//! bottom row) wins at once in column 3 or 7, guided by nothing but the uniform evaluator:
//!
//! ```
//! use alphazero_connect4::Connect4;
//! use alphazero_mcts::{Search, SearchBudget, SearchConfig, UniformEvaluator};
//!
//! let position = Connect4::from_moves("445566")?;
//! let (config, budget) = (SearchConfig::default(), SearchBudget::simulations(200));
//! let mut search = Search::new(position, Vec::new(), config, budget)?;
//! let result = search.run(&UniformEvaluator)?;
//! let best = result.best_move.expect("the game is not over");
//! println!("best move: {best}, value {:+.2}", result.root_value);
//! assert!(best.col() == 2 || best.col() == 6);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod bench;
mod budget;
mod config;
mod driver;
mod evaluator;
mod evaluators;
mod gumbel;
pub mod knobs;
mod search;
mod select;

pub use bench::{bench_simulations, BenchReport};
pub use budget::SearchBudget;
pub use config::{CPuct, ConfigError, GumbelConfig, SearchConfig};
pub use driver::{run_many, Control, Driver, Progress, Round, RunLimits};
pub use evaluator::{EvalError, EvalRequest, Evaluator};
pub use evaluators::{CachedEvaluator, RolloutEvaluator, UniformEvaluator};
pub use gumbel::considered_visit_sequence;
pub use search::{dirichlet_noise, ChildStats, Search, SearchResult};
pub use select::select_move;
