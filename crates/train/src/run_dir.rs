//! The run folder: [`RunDir`] names every object of a training run in its [`Storage`] (a local
//! directory or an object-store prefix), parses those names back, and lists the run's record
//! files and networks through the storage. The rest of the crate and the programs that read a
//! run ask it rather than spell keys themselves.
//!
//! The layout (keys relative to the run's root; numbers zero-padded to the width shown):
//!
//! - `run.json` ([`RunDir::MANIFEST`]): the run's game, for actors and learners to agree on;
//! - `config.toml` ([`RunDir::CONFIG`]): the run's configuration;
//! - `state/run.json` ([`RunDir::STATE`]): the run state, written last in an iteration (the
//!   commit point);
//! - `state/trainer-pending.azc` ([`RunDir::PENDING`]): the trainer checkpoint of an
//!   iteration not committed yet;
//! - `state/inbox.json` ([`RunDir::INBOX`]): the actors' batches the learner took or skipped;
//! - `state/learner-lease-00000003.json` ([`RunDir::lease_key`]): the learner lease;
//! - `networks/champion-0005.azc` ([`RunDir::champion_key`]): champion 5;
//! - `networks/snapshot-00010.azc` ([`RunDir::snapshot_key`]): the network after 10
//!   iterations;
//! - `networks/latest.azc` ([`RunDir::LATEST`]): the trainer's network and optimizer state;
//! - `records/000123.azr` ([`RunDir::record_key`]): one iteration's games;
//! - `incoming/<actor>/00000007-champion-0005.azr` ([`RunDir::batch_key`]): a batch an actor
//!   published, played by champion 5;
//! - `metrics.jsonl`, `metrics.csv`, `plots/` ([`RunDir::METRICS`], [`RunDir::METRICS_CSV`],
//!   [`RunDir::PLOTS`]): the metrics as lines, as a table and as plots;
//! - `plots/ladder.png` ([`RunDir::LADDER`]): the snapshot ladder of `arena --snapshots`,
//!   beside the training figures; `plots/rungs.png` ([`RunDir::RUNGS`]): the networks
//!   against fixed rungs, `arena --snapshots --ladder`;
//! - `<key>.orphan`, `<key>.corrupt`, `<key>.missing`, `<key>.bad` ([`RunDir::set_aside`]):
//!   what recovery (or the learner) set aside.
//!
//! A local run directory also holds the lock file of [`crate::storage::LocalStorage`]
//! (`lock`, [`crate::storage::LOCK_FILE`]): the storage's, not an object of the run.

use std::path::{Path, PathBuf};

use crate::storage::{LocalStorage, Storage, StorageError};

/// A training run's folder in a [`Storage`]: the names of its objects (associated constants
/// and functions, which need no storage) and the listings of its record files and networks.
#[derive(Clone, Copy)]
pub struct RunDir<'s> {
    storage: &'s dyn Storage,
}

impl std::fmt::Debug for RunDir<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RunDir")
    }
}

/// A network of the run named by its key ([`RunDir::network`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Network {
    /// Champion number `id` (`networks/champion-NNNN.azc`).
    Champion(u32),
    /// The network after `iterations` committed iterations (`networks/snapshot-NNNNN.azc`).
    Snapshot(u32),
}

/// Why an object was set aside ([`RunDir::set_aside`]): the suffix added to its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetAside {
    /// Written by an iteration that was never committed (`.orphan`).
    Orphan,
    /// A committed record file (or an actor's batch) that cannot be read (`.corrupt`).
    Corrupt,
    /// The mark left for a committed record file that was missing (`.missing`).
    Missing,
    /// Lines of the metrics log that are no metrics record (`.bad`).
    Bad,
}

impl SetAside {
    /// The suffix, with its dot: `.orphan`, `.corrupt`, `.missing`, `.bad`.
    pub fn suffix(self) -> &'static str {
        match self {
            SetAside::Orphan => ".orphan",
            SetAside::Corrupt => ".corrupt",
            SetAside::Missing => ".missing",
            SetAside::Bad => ".bad",
        }
    }
}

/// The run's record folder (`records/`) as listed once ([`RunDir::records`]): its record
/// files and what recovery set aside beside them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Records {
    /// Every key under `records/`, sorted.
    keys: Vec<String>,
}

impl Records {
    /// The record files: keys `records/<name>.azr` (files in sub-folders and set-aside files
    /// are not record files), sorted by name: oldest first, as a run numbers them.
    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.keys.iter().map(String::as_str).filter(|k| {
            k.strip_prefix(RunDir::RECORDS)
                .and_then(|name| name.strip_suffix(".azr"))
                .is_some_and(|stem| !stem.contains('/'))
        })
    }

    /// The numbered record files ([`RunDir::record_id`]): id and key, in id order.
    pub fn numbered(&self) -> impl Iterator<Item = (u64, &str)> {
        self.keys
            .iter()
            .filter_map(|k| Some((RunDir::record_id(k)?, k.as_str())))
    }

    /// Whether the listing holds `key` (a record file or a set-aside one).
    pub fn contains(&self, key: &str) -> bool {
        self.keys.binary_search_by(|k| k.as_str().cmp(key)).is_ok()
    }

    /// How many objects the folder holds, set-aside ones included.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the folder holds nothing.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// The run's network folder (`networks/`) as listed once ([`RunDir::networks`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Networks {
    /// Every key under `networks/`, sorted.
    keys: Vec<String>,
}

impl Networks {
    /// The champions and snapshots ([`RunDir::network`]) with their keys, sorted by key;
    /// the trainer's [`RunDir::LATEST`], set-aside files and other names are left out.
    pub fn parsed(&self) -> impl Iterator<Item = (&str, Network)> {
        self.keys
            .iter()
            .filter_map(|k| Some((k.as_str(), RunDir::network(k)?)))
    }

    /// The highest champion id published, `None` before the first.
    pub fn newest_champion(&self) -> Option<u32> {
        self.parsed()
            .filter_map(|(_, n)| match n {
                Network::Champion(id) => Some(id),
                Network::Snapshot(_) => None,
            })
            .max()
    }

    /// How many objects the folder holds (the trainer's checkpoint and set-aside networks
    /// included).
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the folder holds nothing.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

impl<'s> RunDir<'s> {
    /// The run's identity: its game, for actors and learners to agree on.
    pub const MANIFEST: &'static str = "run.json";
    /// The run's configuration as saved (TOML).
    pub const CONFIG: &'static str = "config.toml";
    /// The run state, written last in an iteration: the commit point.
    pub const STATE: &'static str = "state/run.json";
    /// The trainer checkpoint of an iteration that is not committed yet; it becomes
    /// [`RunDir::LATEST`] right after the run state that names its step is saved.
    pub const PENDING: &'static str = "state/trainer-pending.azc";
    /// The learner's record of the actors' batches it consumed or skipped.
    pub const INBOX: &'static str = "state/inbox.json";
    /// The prefix of the learner lease objects ([`RunDir::lease_key`]).
    pub const LEASE_PREFIX: &'static str = "state/learner-lease-";
    /// The trainer's network and optimizer state of the last committed iteration.
    pub const LATEST: &'static str = "networks/latest.azc";
    /// The folder of the run's networks.
    pub const NETWORKS: &'static str = "networks/";
    /// The folder of the run's record files.
    pub const RECORDS: &'static str = "records/";
    /// Where actors publish record batches ([`RunDir::batch_key`]).
    pub const INCOMING: &'static str = "incoming/";
    /// The metrics log: one JSON line per committed iteration.
    pub const METRICS: &'static str = "metrics.jsonl";
    /// The metrics as a CSV table (rewritten every iteration).
    pub const METRICS_CSV: &'static str = "metrics.csv";
    /// The folder of the metrics' plots.
    pub const PLOTS: &'static str = "plots/";
    /// The snapshot ladder's plot (`arena --snapshots`).
    pub const LADDER: &'static str = "plots/ladder.png";
    /// The plot of the run's networks against fixed rungs (`arena --snapshots --ladder`).
    pub const RUNGS: &'static str = "plots/rungs.png";

    const CHAMPION_PREFIX: &'static str = "networks/champion-";
    const SNAPSHOT_PREFIX: &'static str = "networks/snapshot-";
    /// What separates a batch's number from the id of the champion that played it.
    const BATCH_CHAMPION: &'static str = "-champion-";

    /// The run folder in `storage`.
    pub fn new(storage: &'s dyn Storage) -> Self {
        RunDir { storage }
    }

    /// The storage the run lives in.
    pub fn storage(&self) -> &'s dyn Storage {
        self.storage
    }

    /// The key of record file number `id`: `records/000123.azr` (at least six digits).
    pub fn record_key(id: u64) -> String {
        format!("{}{id:06}.azr", Self::RECORDS)
    }

    /// The key of champion network number `id`: `networks/champion-0005.azc` (at least four
    /// digits).
    pub fn champion_key(id: u32) -> String {
        format!("{}{id:04}.azc", Self::CHAMPION_PREFIX)
    }

    /// The key of the snapshot after `iterations` committed iterations:
    /// `networks/snapshot-00010.azc` (at least five digits).
    pub fn snapshot_key(iterations: u32) -> String {
        format!("{}{iterations:05}.azc", Self::SNAPSHOT_PREFIX)
    }

    /// The key of learner lease number `n`: `state/learner-lease-00000003.json` (at least
    /// eight digits).
    pub fn lease_key(n: u64) -> String {
        format!("{}{n:08}.json", Self::LEASE_PREFIX)
    }

    /// The key of batch `seq` of actor `actor`, played by champion `champion`:
    /// `incoming/<actor>/<seq, 8 digits>-champion-<champion, 4 digits>.azr`.
    pub fn batch_key(actor: &str, seq: u64, champion: u32) -> String {
        format!(
            "{}{actor}/{seq:08}{}{champion:04}.azr",
            Self::INCOMING,
            Self::BATCH_CHAMPION
        )
    }

    /// The key `key` is moved to (or marked by) when it is set aside for `why`:
    /// `records/000001.azr.orphan`.
    pub fn set_aside(key: &str, why: SetAside) -> String {
        format!("{key}{}", why.suffix())
    }

    /// The id of a record file key `records/<id>.azr` (`None` for other keys, e.g. set-aside
    /// `*.orphan` / `*.corrupt` files).
    pub fn record_id(key: &str) -> Option<u64> {
        key.strip_prefix(Self::RECORDS)?
            .strip_suffix(".azr")?
            .parse()
            .ok()
    }

    /// The champion or snapshot a key of the network folder names
    /// (`networks/champion-0005.azc`, `networks/snapshot-00010.azc`); `None` for other keys
    /// ([`RunDir::LATEST`], set-aside `*.orphan` files, a number that does not parse).
    pub fn network(key: &str) -> Option<Network> {
        let name = key.strip_prefix(Self::NETWORKS)?.strip_suffix(".azc")?;
        if let Some(id) = name.strip_prefix("champion-") {
            id.parse().ok().map(Network::Champion)
        } else if let Some(it) = name.strip_prefix("snapshot-") {
            it.parse().ok().map(Network::Snapshot)
        } else {
            None
        }
    }

    /// The id of the champion that played the batch published under `key`
    /// (`incoming/<actor>/<seq>-champion-<id>.azr`); `None` for a key without one (batches
    /// published before keys named their champion, which the learner never counts as stale).
    pub fn batch_champion(key: &str) -> Option<u32> {
        let stem = key.strip_suffix(".azr")?;
        let (_, id) = stem.rsplit_once(Self::BATCH_CHAMPION)?;
        id.parse().ok()
    }

    /// The number of a learner lease key (`state/learner-lease-<n>.json`).
    pub fn lease_number(key: &str) -> Option<u64> {
        key.strip_prefix(Self::LEASE_PREFIX)?
            .strip_suffix(".json")?
            .parse()
            .ok()
    }

    /// The record folder, listed once: the one listing of a run's record files (recovery,
    /// `alphazero eval`, `alphazero records`).
    ///
    /// # Errors
    /// The storage's listing error.
    pub fn records(&self) -> Result<Records, StorageError> {
        Ok(Records {
            keys: sorted(self.storage.list(Self::RECORDS)?),
        })
    }

    /// The network folder, listed once.
    ///
    /// # Errors
    /// The storage's listing error.
    pub fn networks(&self) -> Result<Networks, StorageError> {
        Ok(Networks {
            keys: sorted(self.storage.list(Self::NETWORKS)?),
        })
    }

    /// The record files of the local run directory `run` ([`RunDir::records`] of its
    /// `records/` folder), as paths, oldest first. Reads only: nothing is created or cleaned,
    /// so a run another process is writing can be read.
    ///
    /// # Errors
    /// [`StorageError::Open`] when `run` is not a directory; the listing's errors.
    pub fn local_records(run: &Path) -> Result<Vec<PathBuf>, StorageError> {
        let storage = LocalStorage::existing(run)?;
        let records = RunDir::new(&storage).records()?;
        Ok(records.files().map(|k| run.join(k)).collect())
    }

    /// The record files (`*.azr`) of `dir`: a run directory's ([`RunDir::local_records`])
    /// when `dir` has a `records/` folder, else those in `dir` itself (a folder of record
    /// files that is no run: every `.azr` file in it, whatever its name, sub-folders not
    /// searched), sorted by name.
    ///
    /// # Errors
    /// [`StorageError::Open`] when the folder cannot be read; the listing's errors.
    pub fn local_record_files(dir: &Path) -> Result<Vec<PathBuf>, StorageError> {
        if dir.join(Self::RECORDS).is_dir() {
            return Self::local_records(dir);
        }
        let open = |source| StorageError::Open {
            root: dir.to_path_buf(),
            source,
        };
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(open)? {
            let path = entry.map_err(open)?.path();
            if path.extension().is_some_and(|e| e == "azr") {
                files.push(path);
            }
        }
        files.sort();
        Ok(files)
    }

    /// The champions and snapshots of the local run directory `run`
    /// ([`Networks::parsed`]): each one's key (its path is `run.join(key)`) and what its name
    /// says, sorted by key. Reads only, as [`RunDir::local_records`].
    ///
    /// # Errors
    /// [`StorageError::Open`] when `run` is not a directory; the listing's errors.
    pub fn local_networks(run: &Path) -> Result<Vec<(String, Network)>, StorageError> {
        let storage = LocalStorage::existing(run)?;
        let networks = RunDir::new(&storage).networks()?;
        Ok(networks.parsed().map(|(k, n)| (k.to_string(), n)).collect())
    }
}

/// `keys` sorted: every [`Storage::list`] sorts, but the listings' lookups rely on it.
fn sorted(mut keys: Vec<String>) -> Vec<String> {
    keys.sort();
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::MemoryStorage;

    /// Every key of a run's folder, spelled out: the layout of existing runs, which must not
    /// change (runs already on disk and in buckets resume by these names).
    #[test]
    fn keys_are_the_layout_of_existing_runs_byte_for_byte() {
        let fixed = [
            (RunDir::MANIFEST, "run.json"),
            (RunDir::CONFIG, "config.toml"),
            (RunDir::STATE, "state/run.json"),
            (RunDir::PENDING, "state/trainer-pending.azc"),
            (RunDir::INBOX, "state/inbox.json"),
            (RunDir::LEASE_PREFIX, "state/learner-lease-"),
            (RunDir::LATEST, "networks/latest.azc"),
            (RunDir::NETWORKS, "networks/"),
            (RunDir::RECORDS, "records/"),
            (RunDir::INCOMING, "incoming/"),
            (RunDir::METRICS, "metrics.jsonl"),
            (RunDir::METRICS_CSV, "metrics.csv"),
            (RunDir::PLOTS, "plots/"),
            (RunDir::LADDER, "plots/ladder.png"),
            (RunDir::RUNGS, "plots/rungs.png"),
        ];
        for (key, want) in fixed {
            assert_eq!(key, want);
        }
        let made = [
            (RunDir::record_key(123), "records/000123.azr"),
            (RunDir::record_key(1_234_567), "records/1234567.azr"),
            (RunDir::champion_key(5), "networks/champion-0005.azc"),
            (RunDir::snapshot_key(10), "networks/snapshot-00010.azc"),
            (RunDir::lease_key(3), "state/learner-lease-00000003.json"),
            (
                RunDir::batch_key("box-1-0a0b0c0d", 7, 5),
                "incoming/box-1-0a0b0c0d/00000007-champion-0005.azr",
            ),
            (
                RunDir::set_aside("records/000001.azr", SetAside::Orphan),
                "records/000001.azr.orphan",
            ),
            (
                RunDir::set_aside("records/000001.azr", SetAside::Corrupt),
                "records/000001.azr.corrupt",
            ),
            (
                RunDir::set_aside("records/000001.azr", SetAside::Missing),
                "records/000001.azr.missing",
            ),
            (
                RunDir::set_aside("metrics.jsonl", SetAside::Bad),
                "metrics.jsonl.bad",
            ),
        ];
        for (key, want) in made {
            assert_eq!(key, want);
        }
        for key in [
            RunDir::record_key(1_234_567),
            RunDir::champion_key(5),
            RunDir::snapshot_key(10),
            RunDir::lease_key(3),
            RunDir::batch_key("box-1", 0, 0),
        ] {
            crate::storage::validate_key(&key).unwrap();
        }
    }

    #[test]
    fn names_parse_back_to_what_made_them_and_others_to_none() {
        assert_eq!(RunDir::record_id(&RunDir::record_key(42)), Some(42));
        assert_eq!(RunDir::record_id("records/000001.azr.orphan"), None);
        assert_eq!(RunDir::record_id("records/notes.azr"), None);
        assert_eq!(RunDir::record_id("incoming/a/00000001.azr"), None);
        assert_eq!(
            RunDir::network(&RunDir::champion_key(7)),
            Some(Network::Champion(7))
        );
        assert_eq!(
            RunDir::network(&RunDir::snapshot_key(12)),
            Some(Network::Snapshot(12))
        );
        for other in [
            RunDir::LATEST,
            "networks/champion-0007.azc.orphan",
            "networks/champion-notes.azc",
            "networks/old/champion-0001.azc",
            "records/champion-0001.azc",
        ] {
            assert_eq!(RunDir::network(other), None, "{other}");
        }
        assert_eq!(
            RunDir::batch_champion(&RunDir::batch_key("a", 3, 12345)),
            Some(12345)
        );
        // Keys of batches published before keys named their champion.
        assert_eq!(
            RunDir::batch_champion("incoming/0123456789abcdef/00000004.azr"),
            None
        );
        assert_eq!(
            RunDir::batch_champion("incoming/a/00000004-champion-x.azr"),
            None
        );
        assert_eq!(RunDir::lease_number(&RunDir::lease_key(9)), Some(9));
        assert_eq!(RunDir::lease_number("state/learner-lease-x.json"), None);
    }

    #[test]
    fn listings_tell_record_files_from_set_aside_ones_and_find_the_newest_champion() {
        let s = MemoryStorage::new();
        let run = RunDir::new(&s);
        assert!(run.records().unwrap().is_empty());
        assert_eq!(run.networks().unwrap().newest_champion(), None);
        for key in [
            RunDir::record_key(0),
            RunDir::record_key(2),
            RunDir::set_aside(&RunDir::record_key(1), SetAside::Missing),
            RunDir::set_aside(&RunDir::record_key(3), SetAside::Orphan),
            "records/notes.azr".to_string(),
            "records/old/000009.azr".to_string(),
            RunDir::champion_key(2),
            RunDir::champion_key(10),
            RunDir::champion_key(9),
            RunDir::set_aside(&RunDir::champion_key(11), SetAside::Orphan),
            RunDir::snapshot_key(20),
            RunDir::LATEST.to_string(),
            "networks/champion-notes.txt".to_string(),
        ] {
            s.put(&key, b"x").unwrap();
        }
        let records = run.records().unwrap();
        assert_eq!(
            records.files().collect::<Vec<_>>(),
            [
                "records/000000.azr",
                "records/000002.azr",
                "records/notes.azr"
            ]
        );
        assert_eq!(
            records.numbered().collect::<Vec<_>>(),
            [(0, "records/000000.azr"), (2, "records/000002.azr")]
        );
        assert!(records.contains("records/000001.azr.missing"));
        assert!(!records.contains("records/000001.azr"));
        assert_eq!(records.len(), 6);
        let networks = run.networks().unwrap();
        assert_eq!(
            networks.newest_champion(),
            Some(10),
            "highest, not last listed"
        );
        assert_eq!(
            networks.parsed().map(|(_, n)| n).collect::<Vec<_>>(),
            [
                Network::Champion(2),
                Network::Champion(9),
                Network::Champion(10),
                Network::Snapshot(20)
            ]
        );
        assert_eq!(networks.len(), 7);
    }

    #[test]
    fn a_local_run_is_listed_without_creating_or_cleaning_anything() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        assert!(matches!(
            RunDir::local_records(&run),
            Err(StorageError::Open { .. })
        ));
        assert!(!run.exists(), "a missing run is not created");
        let s = LocalStorage::open(&run).unwrap();
        s.put(&RunDir::record_key(1), b"r").unwrap();
        s.put(&RunDir::record_key(0), b"r").unwrap();
        s.put(&RunDir::snapshot_key(2), b"n").unwrap();
        s.put(&RunDir::champion_key(1), b"n").unwrap();
        // A write in flight of the process that runs it.
        let tmp = run.join("records/.000002.azr.tmp-1-0");
        std::fs::write(&tmp, b"half").unwrap();
        assert_eq!(
            RunDir::local_records(&run).unwrap(),
            [
                run.join("records/000000.azr"),
                run.join("records/000001.azr")
            ]
        );
        assert_eq!(
            RunDir::local_record_files(&run).unwrap(),
            RunDir::local_records(&run).unwrap()
        );
        assert_eq!(
            RunDir::local_networks(&run).unwrap(),
            [
                (
                    "networks/champion-0001.azc".to_string(),
                    Network::Champion(1)
                ),
                (
                    "networks/snapshot-00002.azc".to_string(),
                    Network::Snapshot(2)
                ),
            ]
        );
        assert!(tmp.exists(), "a reader cleans nothing");
        // A folder of record files that is no run: every .azr file in it.
        let plain = dir.path().join("plain");
        std::fs::create_dir(&plain).unwrap();
        std::fs::write(plain.join("my games.azr"), b"r").unwrap();
        std::fs::write(plain.join("notes.txt"), b"t").unwrap();
        assert_eq!(
            RunDir::local_record_files(&plain).unwrap(),
            [plain.join("my games.azr")]
        );
    }
}
