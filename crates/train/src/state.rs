//! The resumable state of a training run, saved as JSON through [`Storage`] under
//! [`RunState::KEY`]. [`Storage::put`] is atomic, so a crash leaves the previous state.

use serde::{Deserialize, Serialize};

use crate::run_dir::RunDir;
use crate::storage::{Storage, StorageError};

/// An error saving or loading the run state.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The storage failed.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// The stored state is not valid JSON of a [`RunState`].
    #[error("run state {key:?} is corrupt")]
    Corrupt {
        /// The key read.
        key: String,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
    /// The state was written by a newer format.
    #[error(
        "run state {key:?} has format version {found}, this build reads {}",
        RunState::FORMAT_VERSION
    )]
    UnsupportedVersion {
        /// The key read.
        key: String,
        /// The version found.
        found: u32,
    },
}

/// A promoted network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChampionInfo {
    /// Champion id (0 = the initial network).
    pub id: u32,
    /// The iteration that produced it.
    pub iteration: u32,
    /// Its storage key (e.g. `networks/champion-0005.azc`).
    pub key: String,
    /// Estimated Elo relative to champion 0 (the sum of the gating estimates of the
    /// promotions up to it; 0 without gating).
    pub elo: f64,
    /// Standard error of `elo` (the promotions' standard errors added in quadrature); 0
    /// without gating and in states written before this field existed.
    #[serde(default)]
    pub elo_se: f64,
}

/// The network file a run was started from (`alphazero train --init FILE`, or
/// `--init-trunk FILE` for its trunk alone).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InitInfo {
    /// The file as given, made absolute when the run started.
    pub path: String,
    /// A fingerprint of the file's bytes (`fnv1a64:` and 16 hex digits, see
    /// [`file_fingerprint`]): a later `--init` is the same network when it has the same
    /// fingerprint, wherever the file lies.
    pub fingerprint: String,
    /// The training step stored in the file.
    pub step: u64,
    /// The game and rules the file was trained for, in words (`gomoku 8x8 freestyle`).
    pub trained_for: String,
    /// Whether only the file's trunk was taken, the heads starting fresh (`--init-trunk`);
    /// false in states written before the field existed.
    #[serde(default)]
    pub trunk_only: bool,
    /// Whether the file's network was grown into the run's larger model, computing the same
    /// function at first (`--init-grow`, [`alphazero_nn::PolicyValueNet::grown_into`]); false
    /// in states written before the field existed.
    #[serde(default)]
    pub grown: bool,
}

/// The fingerprint [`InitInfo::fingerprint`] of a file's bytes: `fnv1a64:` followed by the
/// 64-bit FNV-1a hash in 16 lower-case hex digits.
///
/// ```
/// use alphazero_train::state::file_fingerprint;
/// assert_eq!(file_fingerprint(b""), "fnv1a64:cbf29ce484222325");
/// assert_ne!(file_fingerprint(b"a"), file_fingerprint(b"b"));
/// ```
pub fn file_fingerprint(bytes: &[u8]) -> String {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    format!("fnv1a64:{h:016x}")
}

/// Everything needed to resume a run (besides the stored records and networks).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    /// Format version of this JSON ([`RunState::FORMAT_VERSION`]).
    pub format_version: u32,
    /// The next iteration to run (0-based).
    pub iteration: u32,
    /// Self-play games played so far.
    pub total_games: u64,
    /// Training positions produced so far.
    pub total_positions: u64,
    /// Id of the current champion.
    pub champion_id: u32,
    /// Id of the next record file (`records/<id>.azr`).
    pub next_record_id: u64,
    /// Id of the next self-play game.
    pub next_game_id: u64,
    /// The run's RNG seed.
    pub rng_seed: u64,
    /// How many RNG streams have been derived from the seed so far (the next stream's index).
    pub rng_counter: u64,
    /// Seconds of training so far (for time budgets across resumes).
    pub elapsed_s: f64,
    /// CPU seconds (user + system, every thread) the trainer processes have used so far,
    /// summed over resumes; `0` in states written before this field existed (the sum then
    /// counts from that resume on).
    #[serde(default)]
    pub cpu_s: f64,
    /// Every promoted network, oldest first.
    pub champions: Vec<ChampionInfo>,
    /// Optimizer steps of the trainer checkpoint that belongs to this state (the one an
    /// iteration saved before committing it); `None` in states written before this field
    /// existed or before the first iteration.
    #[serde(default)]
    pub trainer_step: Option<u64>,
    /// The network file the run was started from (`train --init`); `None` for a run that
    /// started from random weights (and in states written before this field existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init: Option<InitInfo>,
    /// Whether the run reached its own limits (`run.iterations`, `run.time_budget_minutes`)
    /// when last saved: actors stop then. Cleared when a resumed run's limits are raised.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub complete: bool,
}

impl RunState {
    /// The storage key of the run state ([`RunDir::STATE`]).
    pub const KEY: &'static str = RunDir::STATE;
    /// The JSON format version written.
    pub const FORMAT_VERSION: u32 = 1;

    /// The state of a new run with `seed`: iteration 0, champion 0 (not yet in `champions`).
    pub fn new(seed: u64) -> Self {
        RunState {
            format_version: Self::FORMAT_VERSION,
            iteration: 0,
            total_games: 0,
            total_positions: 0,
            champion_id: 0,
            next_record_id: 0,
            next_game_id: 0,
            rng_seed: seed,
            rng_counter: 0,
            elapsed_s: 0.0,
            cpu_s: 0.0,
            champions: Vec::new(),
            trainer_step: None,
            init: None,
            complete: false,
        }
    }

    /// Saves the state atomically under [`RunState::KEY`] (pretty JSON).
    ///
    /// # Errors
    /// [`StateError::Storage`].
    pub fn save(&self, storage: &dyn Storage) -> Result<(), StateError> {
        let json = serde_json::to_vec_pretty(self).map_err(|source| StateError::Corrupt {
            key: Self::KEY.into(),
            source,
        })?;
        storage.put(Self::KEY, &json)?;
        Ok(())
    }

    /// Loads the state, or `None` when the storage holds none (a new run).
    ///
    /// # Errors
    /// [`StateError::Storage`], [`StateError::Corrupt`], [`StateError::UnsupportedVersion`].
    pub fn load(storage: &dyn Storage) -> Result<Option<Self>, StateError> {
        let bytes = match storage.get(Self::KEY) {
            Ok(b) => b,
            Err(StorageError::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let state: RunState =
            serde_json::from_slice(&bytes).map_err(|source| StateError::Corrupt {
                key: Self::KEY.into(),
                source,
            })?;
        if state.format_version > Self::FORMAT_VERSION {
            return Err(StateError::UnsupportedVersion {
                key: Self::KEY.into(),
                found: state.format_version,
            });
        }
        Ok(Some(state))
    }

    /// Takes the next RNG stream index (returns the current `rng_counter` and increments it).
    pub fn next_rng_stream(&mut self) -> u64 {
        let c = self.rng_counter;
        self.rng_counter += 1;
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{LocalStorage, MemoryStorage};

    fn example() -> RunState {
        let mut s = RunState::new(42);
        s.iteration = 7;
        s.total_games = 1400;
        s.total_positions = 30_000;
        s.champion_id = 2;
        s.next_record_id = 7;
        s.next_game_id = 1400;
        s.next_rng_stream();
        s.elapsed_s = 1234.5;
        s.trainer_step = Some(321);
        s.init = Some(InitInfo {
            path: "/models/connect4.azc".into(),
            fingerprint: file_fingerprint(b"weights"),
            step: 9000,
            trained_for: "connect4".into(),
            trunk_only: true,
            grown: false,
        });
        s.champions = (0..3)
            .map(|id| ChampionInfo {
                id,
                iteration: id * 3,
                key: RunDir::champion_key(id),
                elo: f64::from(id) * 50.0,
                elo_se: f64::from(id) * 20.0,
            })
            .collect();
        s
    }

    #[test]
    fn state_saves_and_loads_equal() {
        let dir = tempfile::tempdir().unwrap();
        let storage = LocalStorage::open(dir.path()).unwrap();
        assert_eq!(RunState::load(&storage).unwrap(), None);
        let s = example();
        s.save(&storage).unwrap();
        let storage = LocalStorage::open(dir.path()).unwrap();
        assert_eq!(RunState::load(&storage).unwrap(), Some(s));
        assert_eq!(storage.list("state/").unwrap(), vec![RunState::KEY]);
    }

    #[test]
    fn corrupt_or_newer_state_is_an_error() {
        let storage = MemoryStorage::new();
        storage.put(RunState::KEY, b"{not json").unwrap();
        assert!(matches!(
            RunState::load(&storage),
            Err(StateError::Corrupt { .. })
        ));
        let mut s = example();
        s.format_version = 99;
        s.save(&storage).unwrap();
        assert!(matches!(
            RunState::load(&storage),
            Err(StateError::UnsupportedVersion { found: 99, .. })
        ));
    }

    #[test]
    fn state_without_trainer_step_from_older_builds_still_loads() {
        let storage = MemoryStorage::new();
        let mut v = serde_json::to_value(example()).unwrap();
        v.as_object_mut().unwrap().remove("trainer_step");
        v.as_object_mut().unwrap().remove("init");
        storage
            .put(RunState::KEY, &serde_json::to_vec(&v).unwrap())
            .unwrap();
        let s = RunState::load(&storage).unwrap().unwrap();
        assert_eq!(s.trainer_step, None);
        assert_eq!(s.init, None);
        assert_eq!(s.iteration, 7);
    }

    #[test]
    fn rng_streams_are_consecutive() {
        let mut s = RunState::new(1);
        assert_eq!((s.next_rng_stream(), s.next_rng_stream()), (0, 1));
        assert_eq!(s.rng_counter, 2);
    }
}
