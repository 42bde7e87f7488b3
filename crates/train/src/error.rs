//! The error type of the pipeline's stages.

use crate::metrics::MetricsError;
use crate::plots::PlotError;
use crate::record::RecordError;
use crate::replay::ReplayError;
use crate::state::StateError;
use crate::storage::StorageError;

/// An error of a stage of the training pipeline: the error of the layer that failed, or a
/// sentence naming the object and what is wrong with it.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// Reading or writing the run's storage.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// A record file.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// A network or checkpoint file.
    #[error(transparent)]
    Checkpoint(#[from] alphazero_nn::CheckpointError),
    /// The network (shapes, backend).
    #[error(transparent)]
    Nn(#[from] alphazero_nn::NnError),
    /// Self-play.
    #[error(transparent)]
    SelfPlay(#[from] alphazero_selfplay::SelfPlayError),
    /// A network evaluation.
    #[error(transparent)]
    Eval(#[from] alphazero_mcts::EvalError),
    /// The replay buffer (a game whose moves do not replay).
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// The metrics log.
    #[error(transparent)]
    Metrics(#[from] MetricsError),
    /// The plots.
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// The run state.
    #[error(transparent)]
    State(#[from] StateError),
    /// The actor/learner exchange (another game in the storage, a corrupt exchange object).
    #[error(transparent)]
    Exchange(#[from] crate::storage::exchange::ExchangeError),
    /// The configuration.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// A local file (e.g. the `--init` network).
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// Something the run cannot go on with, in words (e.g. a network of another shape).
    #[error("{0}")]
    Invalid(String),
    /// An error with what was being done when it happened.
    #[error("{context}")]
    Context {
        /// What was being done, naming the object.
        context: String,
        /// The cause.
        #[source]
        source: Box<PipelineError>,
    },
}

impl PipelineError {
    /// This error with `context` (what was being done) in front.
    pub fn context(self, context: impl Into<String>) -> PipelineError {
        PipelineError::Context {
            context: context.into(),
            source: Box::new(self),
        }
    }
}
