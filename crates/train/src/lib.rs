//! Infrastructure of the AlphaZero training loop, generic over [`alphazero_game::Game`]:
//!
//! - [`storage`]: the object-store interface [`storage::Storage`] on a local directory (atomic,
//!   fsynced) or on S3 / Google Cloud Storage / Azure by URL ([`storage::ObjectStorage`]);
//! - [`record`]: the compact versioned binary game-record format (`.azr`, checksummed since
//!   version 2; version-1 files are still read);
//! - [`replay`]: the replay buffer of recent positions with symmetry-augmented sampling;
//! - [`config`]: the TOML training configuration with per-game defaults and `--set` overrides;
//! - [`metrics`]: one JSON line per iteration (`metrics.jsonl`);
//! - [`plots`]: PNG plots of the metrics;
//! - [`state`]: the resumable run state.
#![deny(missing_docs)]

pub mod config;
pub mod metrics;
pub mod plots;
pub mod record;
pub mod replay;
pub mod state;
pub mod storage;

pub use config::{ConfigError, TrainConfig};
pub use metrics::{IterationMetrics, MetricsLog};
pub use record::{
    read_records, write_records, GameRecord, GameResult, PlyRecord, RecordError, RecordFile,
    RecordHeader,
};
pub use replay::{BatchSample, ReplayBuffer, Sample, SampleOptions};
pub use state::RunState;
pub use storage::{LocalStorage, Location, MemoryStorage, ObjectStorage, Storage, StorageError};
