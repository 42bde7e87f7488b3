//! The AlphaZero training loop as a library, generic over [`alphazero_nn::Encode`] games.
//!
//! The loop is five named stages, each a method of [`Pipeline`] in its own file of
//! `pipeline/`, that can be called and tested alone and reads and writes only through a
//! [`Storage`] (the stages that play, train or report take the [`Iteration`] they belong to:
//! its number, seed, champion and observer):
//!
//! 1. [`Pipeline::self_play`]: the champion plays a batch of games; they are written as one
//!    record file `records/<id>.azr`;
//! 2. [`Pipeline::ingest`]: a record batch's positions join the [`ReplayBuffer`];
//! 3. [`Pipeline::learn`]: optimizer steps on replay samples; the trainer state is saved as
//!    the pending checkpoint;
//! 4. [`Pipeline::gate`]: the candidate plays the champion; promoted by score or SPRT;
//! 5. [`Pipeline::commit`]: champion, snapshot, metrics, plots and the run state (written
//!    last: the commit point), then the pending checkpoint becomes the latest.
//!
//! [`Pipeline::run`] chains them until a limit; [`recovery`] undoes what an interrupted
//! iteration left behind; progress goes to an [`Observer`].
//!
//! The building blocks:
//! - [`storage`]: the object-store interface [`storage::Storage`] on a local directory (atomic,
//!   fsynced) or on S3 / Google Cloud Storage / Azure by URL ([`storage::ObjectStorage`]);
//! - [`run_dir`]: the run folder in a storage ([`RunDir`]): every key of a run, parsed back,
//!   and the one listing of its record files and networks;
//! - [`record`]: the compact versioned binary game-record format (`.azr`, the
//!   `alphazero-records` crate; checksummed since version 2, restarted games' prefixes since
//!   version 3, version-1 files are still read);
//! - [`replay`]: the replay buffer of recent positions with symmetry-augmented sampling, and
//!   the training batches built from it;
//! - [`config`]: the TOML training configuration with per-game defaults and `--set` overrides;
//! - [`settings`]: the search and self-play settings of a configuration;
//! - [`sources`]: the precedence of saved config, `--config`, flags and `--set`;
//! - [`metrics`]: one JSON line per iteration (`metrics.jsonl`);
//! - [`plots`]: PNG plots of the metrics;
//! - [`state`]: the resumable run state;
//! - [`local`]: checks of a local run directory.
#![deny(missing_docs)]

pub mod config;
mod error;
mod init;
pub mod local;
pub mod metrics;
mod observer;
mod pipeline;
pub mod plots;
pub mod recovery;
pub mod replay;
pub mod roles;
pub mod run_dir;
pub mod sources;
pub mod state;
pub mod storage;

/// The game-record format (re-exported from `alphazero-records`).
pub use alphazero_records as record;

pub use config::{settings, ConfigError, TrainConfig};
pub use error::PipelineError;
pub use init::InitNetwork;
pub use metrics::{ActorIntake, IterationMetrics, MetricsLog};
pub use observer::{summary_legend, IterationReport, Observer, Silent, Stage};
pub use pipeline::{
    solver_slice, BatchSource, Gated, InvocationLimits, Iteration, Learned, LocalSelfPlay, Outcome,
    Pipeline, RunSummary, SelfPlayBatch,
};
pub use record::{
    read_records, write_records, GameRecord, GameResult, PlyRecord, RecordError, RecordFile,
    RecordHeader,
};
pub use replay::{BatchEncoder, BatchSample, ReplayBuffer, Sample, SampleOptions};
pub use run_dir::RunDir;
pub use state::RunState;
#[cfg(feature = "object-store")]
pub use storage::ObjectStorage;
pub use storage::{LocalStorage, Location, MemoryStorage, Storage, StorageError};
