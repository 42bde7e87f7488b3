//! A Mixnet-style evaluator for Gomoku: line-pattern tables distilled from the ResNet.
//!
//! Rapfi's Mixnet (Jin, Duan, Hang, arXiv 2503.13178) evaluates a Gomoku position at a
//! hundredth of a ResNet's cost by *looking up* what a network would compute: each point's
//! view along each direction (its line code, [`lines`]) indexes a table of learned features;
//! a few cheap layers ([`model`]) turn the summed features into a policy over the points and
//! a value. Here the table is learned directly (an embedding) by distillation from our own
//! ResNet teacher on positions of its own games ([`data`], [`distill`]); the result is a
//! search [`Evaluator`](alphazero_mcts::Evaluator) ([`MixnetEvaluator`]) in a file of its
//! own ([`MixnetFile`], `.azm`).
//!
//! ```
//! use alphazero_game::Game;
//! use alphazero_gomoku::{Gomoku, GomokuConfig, Rule};
//! use alphazero_mcts::{EvalRequest, Evaluator};
//! use alphazero_mixnet::{Mixnet, MixnetConfig, MixnetEvaluator};
//!
//! let eval = MixnetEvaluator::new(Mixnet::new(MixnetConfig::default(), 1));
//! let pos = Gomoku::new(&GomokuConfig::new(15, Rule::Freestyle).unwrap());
//! let mut logits = vec![0.0; 225];
//! let mut value = [0.0];
//! eval.evaluate(&[EvalRequest { position: &pos, history: &[] }], &mut logits, &mut value)
//!     .unwrap();
//! assert!((-1.0..=1.0).contains(&value[0]));
//! ```
#![deny(missing_docs)]

pub mod data;
pub mod distill;
mod evaluator;
mod file;
pub mod lines;
pub mod model;

pub use data::{generate, samples_from_bytes, samples_to_bytes, GenerateOptions, Sample};
pub use distill::{measure, Agreement, TrainOptions, Trainer};
pub use evaluator::{position_cells, MixnetEvaluator};
pub use file::{is_mixnet_file, MixnetFile};
pub use model::{InferScratch, Mixnet, MixnetConfig};

/// What can go wrong reading, making or using an evaluator.
#[derive(Debug, thiserror::Error)]
pub enum MixnetError {
    /// A file is not what it should be (the message says what).
    #[error("{0}")]
    Format(String),
    /// The teacher failed to evaluate positions.
    #[error("teacher evaluation failed: {0}")]
    Teacher(String),
}
