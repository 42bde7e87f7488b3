//! A small object-store interface ([`Storage`]) and its implementations: [`LocalStorage`] on a
//! local directory (the default), [`ObjectStorage`] on S3, Google Cloud Storage or Azure Blob
//! Storage through the `object_store` crate, and [`MemoryStorage`] in memory for tests.
//! [`Location`] parses a `--storage` argument (a directory, `file://`, `s3://`, `gs://`,
//! `az://`) and opens the matching one. [`exchange`] is how actors and a learner share one.
//!
//! Keys are `/`-separated relative paths such as `records/000123.azr` or
//! `networks/champion-0005.azc` (a run's keys are named by [`crate::RunDir`]). A key is valid when
//! it is non-empty and every `/`-separated component is non-empty, does not start with `.`,
//! and consists only of ASCII letters, digits, `.`, `_` and `-`. That keeps keys portable to
//! object stores and lets [`LocalStorage`] use names starting with `.` for its temporary files.

pub mod exchange;
pub mod lease;
#[cfg(feature = "object-store")]
pub mod object;

mod local;
mod memory;

pub use local::{LocalStorage, LOCK_FILE};
pub use memory::MemoryStorage;
#[cfg(feature = "object-store")]
pub use object::ObjectStorage;

use std::io;
use std::path::PathBuf;
use std::str::FromStr;

/// An error of a [`Storage`] operation. Carries the key (or root) and the underlying cause.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// The key is not a valid storage key (see the module documentation).
    #[error("invalid storage key {key:?}: {reason}")]
    InvalidKey {
        /// The rejected key.
        key: String,
        /// Why it was rejected.
        reason: &'static str,
    },
    /// No object is stored under the key.
    #[error("{key} is missing from the run's storage")]
    NotFound {
        /// The missing key.
        key: String,
    },
    /// The key names something that is not a regular file (a device, a FIFO, a socket, a
    /// directory, or a symbolic link to one), which the storage neither reads nor replaces.
    #[error("{path} (key {key:?}) is not a regular file; move it out of the run directory")]
    NotAFile {
        /// The key.
        key: String,
        /// Its path.
        path: PathBuf,
    },
    /// An I/O error while operating on a key (full disk, permission denied, a path
    /// component that is a file, …).
    #[error("storage {op} of key {key:?} failed")]
    Io {
        /// The operation: "put", "get", "list", "delete", "rename" or "exists".
        op: &'static str,
        /// The key (or list prefix) operated on.
        key: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// An operation on an object store failed: a permanent answer (permission denied, …), or
    /// transient failures that lasted longer than [`ObjectStorage::patience`].
    #[error("storage {op} of key {key:?} at {url} failed")]
    Remote {
        /// The operation: "put", "put_if_absent", "get", "list", "delete", "rename" or "exists".
        op: &'static str,
        /// The store's URL.
        url: String,
        /// The key (or list prefix) operated on.
        key: String,
        /// The object store's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A storage URL that cannot be used, found before any work: not a storage URL, a server
    /// that does not answer, a missing bucket, refused credentials.
    #[error("cannot use storage {url}: {reason}")]
    Unusable {
        /// The URL as given.
        url: String,
        /// What is wrong, in words.
        reason: String,
        /// The underlying error, when there is one.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// The storage root could not be opened or created.
    #[error("cannot open storage root {root}")]
    Open {
        /// The root directory.
        root: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// Another process holds the exclusive lock of the storage root
    /// ([`LocalStorage::open_exclusive`]).
    #[error(
        "run directory {root} is in use by another process{}; lock file {lock} is held",
        pid.map_or_else(String::new, |p| format!(" (pid {p})"))
    )]
    Locked {
        /// The root directory.
        root: PathBuf,
        /// The lock file.
        lock: PathBuf,
        /// The process id written in the lock file by its holder, when readable.
        pid: Option<u32>,
    },
}

/// An object store: whole objects written and read by key.
///
/// Implementations must be safe to share between threads. A `put` is atomic: a concurrent or
/// later `get` sees either the previous object or the complete new one, never a partial one.
pub trait Storage: Send + Sync {
    /// Stores `bytes` under `key`, replacing any previous object.
    ///
    /// # Errors
    /// [`StorageError::InvalidKey`] for a bad key, [`StorageError::Io`] when writing fails
    /// (nothing is left under `key` then, or the previous object stays).
    fn put(&self, key: &str, bytes: &[u8]) -> Result<(), StorageError>;

    /// Stores `bytes` under `key` only when nothing is stored there yet, atomically (a
    /// conditional put): of concurrent writers of one key exactly one succeeds, and no writer
    /// ever replaces another's object. Returns whether this call created the object.
    ///
    /// # Errors
    /// As [`Storage::put`].
    fn put_if_absent(&self, key: &str, bytes: &[u8]) -> Result<bool, StorageError>;

    /// Reads the object stored under `key`.
    ///
    /// # Errors
    /// [`StorageError::NotFound`] when nothing is stored under `key`,
    /// [`StorageError::InvalidKey`], [`StorageError::Io`].
    fn get(&self, key: &str) -> Result<Vec<u8>, StorageError>;

    /// All keys that start with `prefix` (a plain string prefix, e.g. `"records/"` or
    /// `"networks/champion-"`; `""` lists everything), sorted ascending.
    ///
    /// # Errors
    /// [`StorageError::InvalidKey`] when the prefix contains characters no key can contain,
    /// [`StorageError::Io`].
    fn list(&self, prefix: &str) -> Result<Vec<String>, StorageError>;

    /// Removes the object under `key`. Removing a missing key is not an error.
    ///
    /// # Errors
    /// [`StorageError::InvalidKey`], [`StorageError::Io`].
    fn delete(&self, key: &str) -> Result<(), StorageError>;

    /// Whether an object is stored under `key`.
    ///
    /// # Errors
    /// [`StorageError::InvalidKey`], [`StorageError::Io`].
    fn exists(&self, key: &str) -> Result<bool, StorageError>;

    /// Moves the object under `from` to `to` atomically, replacing any object under `to`.
    ///
    /// # Errors
    /// [`StorageError::NotFound`] when nothing is stored under `from`,
    /// [`StorageError::InvalidKey`], [`StorageError::Io`].
    fn rename(&self, from: &str, to: &str) -> Result<(), StorageError>;
}

fn valid_component_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')
}

/// Checks that `key` is a valid storage key (see the module documentation).
///
/// # Errors
/// [`StorageError::InvalidKey`] naming the key and the reason.
pub fn validate_key(key: &str) -> Result<(), StorageError> {
    let bad = |reason| {
        Err(StorageError::InvalidKey {
            key: key.to_string(),
            reason,
        })
    };
    if key.is_empty() {
        return bad("key is empty");
    }
    for comp in key.split('/') {
        if comp.is_empty() {
            return bad("key has an empty path component (leading, trailing or double '/')");
        }
        if comp.starts_with('.') {
            return bad("a key component must not start with '.'");
        }
        if !comp.chars().all(valid_component_char) {
            return bad("a key may only contain ASCII letters, digits, '.', '_', '-' and '/'");
        }
    }
    Ok(())
}

fn validate_prefix(prefix: &str) -> Result<(), StorageError> {
    if prefix.chars().all(|c| valid_component_char(c) || c == '/') {
        Ok(())
    } else {
        Err(StorageError::InvalidKey {
            key: prefix.to_string(),
            reason: "a list prefix may only contain ASCII letters, digits, '.', '_', '-' and '/'",
        })
    }
}

/// Why a storage URL is refused by a build without the `object-store` feature.
#[cfg_attr(feature = "object-store", allow(dead_code))]
const NO_OBJECT_STORE: &str = "this build has no object storage (alphazero-train without its \
     object-store feature); give a directory";

/// Where a run's objects live, as given to `--storage`: a local directory (a plain path or a
/// `file://` URL) or an object store URL (`s3://bucket/path`, `gs://…`, `az://…`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A local directory, opened as a [`LocalStorage`].
    Directory(PathBuf),
    /// An object store URL, opened as an [`ObjectStorage`].
    ObjectStore(String),
}

impl FromStr for Location {
    type Err = StorageError;

    /// A string with `://` is a URL: `file://` names a directory, `s3://`, `gs://`, `az://`
    /// (and the other schemes of [`object::is_object_store_url`]) an object store; anything
    /// else with `://` is an error naming it. A string without `://` is a directory path.
    fn from_str(s: &str) -> Result<Self, StorageError> {
        if s.trim().is_empty() {
            return Err(StorageError::Unusable {
                url: format!("{s:?}"),
                reason: "the storage location is empty; give a directory, or a URL such as \
                         s3://bucket/path"
                    .into(),
                source: None,
            });
        }
        if !s.contains("://") {
            return Ok(Location::Directory(PathBuf::from(s)));
        }
        let unusable = |reason: &str| StorageError::Unusable {
            url: s.to_string(),
            reason: reason.to_string(),
            source: None,
        };
        let url = url::Url::parse(s).map_err(|e| unusable(&format!("not a URL ({e})")))?;
        if url.scheme() == "file" {
            return url
                .to_file_path()
                .map(Location::Directory)
                .map_err(|()| unusable("not a local file URL (file:///absolute/path)"));
        }
        #[cfg(feature = "object-store")]
        if object::is_object_store_url(&url) {
            return Ok(Location::ObjectStore(s.to_string()));
        }
        if !cfg!(feature = "object-store") {
            return Err(unusable(NO_OBJECT_STORE));
        }
        Err(unusable(
            "not a storage URL (a directory, file://, s3://, gs:// or az://)",
        ))
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Directory(p) => write!(f, "{}", p.display()),
            Location::ObjectStore(url) => f.write_str(url),
        }
    }
}

impl Location {
    /// Opens the storage: [`LocalStorage::open`] for a directory, [`ObjectStorage::open`]
    /// (credentials from the environment, checked by one listing) for an object store.
    ///
    /// # Errors
    /// [`StorageError::Open`] for a directory that cannot be created, [`StorageError::Unusable`]
    /// naming the URL for an object store that cannot be used.
    pub fn open(&self) -> Result<Box<dyn Storage>, StorageError> {
        Ok(match self {
            Location::Directory(p) => Box::new(LocalStorage::open(p)?),
            #[cfg(feature = "object-store")]
            Location::ObjectStore(url) => Box::new(ObjectStorage::open(url)?),
            #[cfg(not(feature = "object-store"))]
            Location::ObjectStore(url) => {
                return Err(StorageError::Unusable {
                    url: url.clone(),
                    reason: NO_OBJECT_STORE.into(),
                    source: None,
                })
            }
        })
    }

    /// As [`Location::open`], but a directory is opened with
    /// [`LocalStorage::open_exclusive`] (its lock held for the storage's life): the learner's
    /// way, so that a `train` or another learner on the same directory is refused.
    ///
    /// # Errors
    /// As [`Location::open`]; [`StorageError::Locked`] when another process holds the lock.
    pub fn open_exclusive(&self) -> Result<Box<dyn Storage>, StorageError> {
        Ok(match self {
            Location::Directory(p) => Box::new(LocalStorage::open_exclusive(p)?),
            Location::ObjectStore(_) => self.open()?,
        })
    }
}

/// An error and its causes joined by ": " (as `anyhow` prints them with `{:#}`): the one
/// rendering used in storage warnings, recovery reports and the Python package's exceptions.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}
