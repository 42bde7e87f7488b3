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
pub mod object;

pub use object::ObjectStorage;

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

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
        /// The object store's error (boxed: it is large).
        #[source]
        source: Box<object_store::Error>,
    },
    /// A storage URL that cannot be used, found before any work: not a storage URL, a server
    /// that does not answer, a missing bucket, refused credentials.
    #[error("cannot use storage {url}: {reason}")]
    Unusable {
        /// The URL as given.
        url: String,
        /// What is wrong, in words.
        reason: String,
        /// The underlying error, when there is one (boxed: it is large).
        #[source]
        source: Option<Box<object_store::Error>>,
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

/// Marker in the names of [`LocalStorage`]'s temporary files: `.<name>.tmp-<pid>-<n>`.
const TMP_MARKER: &str = ".tmp-";

/// The name of the lock file in the root of a [`LocalStorage::open_exclusive`] storage.
pub const LOCK_FILE: &str = "lock";

/// A [`Storage`] on the local file system under a root directory; key `a/b.c` is the file
/// `root/a/b.c`.
///
/// `put` writes atomically: a temporary file `.<name>.tmp-<pid>-<n>` in the target directory
/// is written, `sync_all`ed, renamed over the final name, and the directory is fsynced. A
/// crash therefore never leaves a half-written file under a key's name. Leftover temporary
/// files (names starting with `.`) are never listed and are deleted by [`LocalStorage::open`].
///
/// [`LocalStorage::open_exclusive`] also holds an exclusive OS lock on the file `root/lock`
/// for the storage's lifetime, so that two processes never write one run at once.
#[derive(Debug)]
pub struct LocalStorage {
    root: PathBuf,
    counter: AtomicU64,
    /// The locked `root/lock` file (released when dropped or when the process dies).
    _lock: Option<File>,
}

impl LocalStorage {
    /// Opens (creating it if needed) the storage rooted at `root` and deletes temporary files
    /// left behind by interrupted writes.
    ///
    /// # Errors
    /// [`StorageError::Open`] when the root cannot be created or read (e.g. a path below a
    /// regular file, or no permission).
    pub fn open(root: impl Into<PathBuf>) -> Result<Self, StorageError> {
        let root = root.into();
        create_root(&root)?;
        clean_temp_files(&root).map_err(|source| StorageError::Open {
            root: root.clone(),
            source,
        })?;
        Ok(LocalStorage {
            root,
            counter: AtomicU64::new(0),
            _lock: None,
        })
    }

    /// Like [`LocalStorage::open`], but first takes an exclusive lock on the file
    /// `root/`[`LOCK_FILE`] (created if needed; this process's id is written into it) and
    /// holds it until the storage is dropped. The OS releases the lock when the process
    /// ends in any way, `SIGKILL` included. Nothing else is written when the lock is taken
    /// by another process (temporary files are only cleaned once the lock is held).
    ///
    /// # Errors
    /// [`StorageError::Locked`] at once (no waiting) when another process (or another
    /// exclusive storage of this process) holds the lock, naming the holder's pid when the
    /// lock file gives it; [`StorageError::Open`] as for [`LocalStorage::open`] or when the
    /// lock file cannot be created.
    pub fn open_exclusive(root: impl Into<PathBuf>) -> Result<Self, StorageError> {
        let root = root.into();
        create_root(&root)?;
        let lock_path = root.join(LOCK_FILE);
        let open_err = |source| StorageError::Open {
            root: root.clone(),
            source,
        };
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock_path)
            .map_err(open_err)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                let pid = fs::read_to_string(&lock_path)
                    .ok()
                    .and_then(|t| t.trim().parse::<u32>().ok());
                return Err(StorageError::Locked {
                    root,
                    lock: lock_path,
                    pid,
                });
            }
            Err(fs::TryLockError::Error(e)) => return Err(open_err(e)),
        }
        (|| {
            file.set_len(0)?;
            file.write_all(format!("{}\n", std::process::id()).as_bytes())?;
            file.sync_all()
        })()
        .map_err(open_err)?;
        clean_temp_files(&root).map_err(open_err)?;
        Ok(LocalStorage {
            root,
            counter: AtomicU64::new(0),
            _lock: Some(file),
        })
    }

    /// The existing directory `root` as it is, for reading a run that another process may be
    /// writing: nothing is created, and temporary files (that process's writes in flight)
    /// are not cleaned.
    ///
    /// # Errors
    /// [`StorageError::Open`] when `root` is not a directory (missing, or a file).
    pub fn existing(root: impl Into<PathBuf>) -> Result<Self, StorageError> {
        let root = root.into();
        match fs::metadata(&root) {
            Ok(m) if m.is_dir() => Ok(LocalStorage {
                root,
                counter: AtomicU64::new(0),
                _lock: None,
            }),
            Ok(_) => Err(StorageError::Open {
                root,
                source: io::Error::new(io::ErrorKind::NotADirectory, "not a directory"),
            }),
            Err(source) => Err(StorageError::Open { root, source }),
        }
    }

    /// Checks, without taking it, that no other process holds the run lock of `root` (as
    /// [`LocalStorage::open_exclusive`] takes it); a directory or lock file that does not
    /// exist is not locked.
    ///
    /// # Errors
    /// [`StorageError::Locked`] naming the holder's pid; [`StorageError::Open`] when the lock
    /// file cannot be opened or tried.
    pub fn check_unlocked(root: &Path) -> Result<(), StorageError> {
        let lock_path = root.join(LOCK_FILE);
        let open_err = |source| StorageError::Open {
            root: root.to_path_buf(),
            source,
        };
        let file = match OpenOptions::new().read(true).write(true).open(&lock_path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(open_err(e)),
        };
        match file.try_lock() {
            // Released when `file` is dropped.
            Ok(()) => Ok(()),
            Err(fs::TryLockError::WouldBlock) => Err(StorageError::Locked {
                root: root.to_path_buf(),
                pid: fs::read_to_string(&lock_path)
                    .ok()
                    .and_then(|t| t.trim().parse::<u32>().ok()),
                lock: lock_path,
            }),
            Err(fs::TryLockError::Error(e)) => Err(open_err(e)),
        }
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file path of `key` (the key must be valid).
    ///
    /// # Errors
    /// [`StorageError::InvalidKey`].
    pub fn path_of(&self, key: &str) -> Result<PathBuf, StorageError> {
        validate_key(key)?;
        Ok(self.root.join(key))
    }

    /// Writes `bytes` durably to a new temporary file beside `path`, then `publish`es it
    /// (renames or links it to `path`); the temporary file is removed when anything fails.
    /// Returns `publish`'s answer.
    fn put_inner<T>(
        &self,
        path: &Path,
        bytes: &[u8],
        publish: impl FnOnce(&Path, &Path) -> io::Result<T>,
    ) -> io::Result<T> {
        let dir = path.parent().unwrap_or(&self.root);
        fs::create_dir_all(dir)?;
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("object");
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}{TMP_MARKER}{}-{n}", std::process::id()));
        let result = (|| {
            let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
            f.write_all(bytes)?;
            f.sync_all()?;
            drop(f);
            let answer = publish(&tmp, path)?;
            // Make the rename (or link) itself durable.
            File::open(dir)?.sync_all()?;
            Ok(answer)
        })();
        // After a link the temporary name is left over; after a rename it is gone.
        let _ = fs::remove_file(&tmp);
        result
    }
}

/// Creates `root` (and its parents) unless it is already a directory.
fn create_root(root: &Path) -> Result<(), StorageError> {
    let open_err = |source| StorageError::Open {
        root: root.to_path_buf(),
        source,
    };
    if root.exists() && !root.is_dir() {
        return Err(open_err(io::Error::new(
            io::ErrorKind::NotADirectory,
            "it exists and is not a directory",
        )));
    }
    fs::create_dir_all(root).map_err(open_err)?;
    if !root.is_dir() {
        return Err(open_err(io::Error::new(
            io::ErrorKind::NotADirectory,
            "not a directory",
        )));
    }
    Ok(())
}

/// Deletes every file below `dir` whose name starts with `.` and contains [`TMP_MARKER`].
fn clean_temp_files(dir: &Path) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let ty = entry.file_type()?;
        if ty.is_dir() {
            clean_temp_files(&entry.path())?;
        } else if name.starts_with('.') && name.contains(TMP_MARKER) {
            fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

/// Appends to `out` the keys of all files below `dir` (whose key prefix is `key_prefix`),
/// skipping names that start with `.` and names that are not valid key components.
fn collect_keys(dir: &Path, key_prefix: &str, out: &mut Vec<String>) -> io::Result<()> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with('.') || !name.chars().all(valid_component_char) {
            continue;
        }
        let key = format!("{key_prefix}{name}");
        if entry.file_type()?.is_dir() {
            collect_keys(&entry.path(), &format!("{key}/"), out)?;
        } else {
            out.push(key);
        }
    }
    Ok(())
}

impl Storage for LocalStorage {
    fn put(&self, key: &str, bytes: &[u8]) -> Result<(), StorageError> {
        let path = self.path_of(key)?;
        self.put_inner(&path, bytes, |tmp, path| fs::rename(tmp, path))
            .map_err(|source| StorageError::Io {
                op: "put",
                key: key.to_string(),
                source,
            })
    }

    fn put_if_absent(&self, key: &str, bytes: &[u8]) -> Result<bool, StorageError> {
        let path = self.path_of(key)?;
        // A hard link never replaces an existing name: the OS decides who created the key.
        self.put_inner(&path, bytes, |tmp, path| match fs::hard_link(tmp, path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(e),
        })
        .map_err(|source| StorageError::Io {
            op: "put_if_absent",
            key: key.to_string(),
            source,
        })
    }

    fn get(&self, key: &str) -> Result<Vec<u8>, StorageError> {
        let path = self.path_of(key)?;
        // Never read a device or a FIFO (it may never end), nor a directory.
        if let Ok(m) = fs::metadata(&path) {
            if !m.is_file() {
                return Err(StorageError::NotAFile {
                    key: key.to_string(),
                    path,
                });
            }
        }
        match fs::read(&path) {
            Ok(b) => Ok(b),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ) =>
            {
                Err(StorageError::NotFound {
                    key: key.to_string(),
                })
            }
            Err(source) => Err(StorageError::Io {
                op: "get",
                key: key.to_string(),
                source,
            }),
        }
    }

    fn list(&self, prefix: &str) -> Result<Vec<String>, StorageError> {
        validate_prefix(prefix)?;
        // Only walk the directory named by the prefix's complete components.
        let (dir_part, key_prefix) = match prefix.rfind('/') {
            Some(i) => (&prefix[..i], &prefix[..=i]),
            None => ("", ""),
        };
        if dir_part.split('/').any(|c| c.starts_with('.') || c == "..") {
            return Ok(Vec::new());
        }
        let dir = if dir_part.is_empty() {
            self.root.clone()
        } else {
            self.root.join(dir_part)
        };
        let mut out = Vec::new();
        collect_keys(&dir, key_prefix, &mut out).map_err(|source| StorageError::Io {
            op: "list",
            key: prefix.to_string(),
            source,
        })?;
        out.retain(|k| k.starts_with(prefix));
        out.sort();
        Ok(out)
    }

    fn delete(&self, key: &str) -> Result<(), StorageError> {
        let path = self.path_of(key)?;
        match fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(StorageError::Io {
                op: "delete",
                key: key.to_string(),
                source,
            }),
        }
    }

    fn rename(&self, from: &str, to: &str) -> Result<(), StorageError> {
        let src = self.path_of(from)?;
        let dst = self.path_of(to)?;
        if !self.exists(from)? {
            return Err(StorageError::NotFound {
                key: from.to_string(),
            });
        }
        let io_err = |source| StorageError::Io {
            op: "rename",
            key: from.to_string(),
            source,
        };
        if let Some(dir) = dst.parent() {
            fs::create_dir_all(dir).map_err(io_err)?;
        }
        fs::rename(&src, &dst).map_err(io_err)?;
        for dir in [dst.parent(), src.parent()].into_iter().flatten() {
            File::open(dir).and_then(|d| d.sync_all()).map_err(io_err)?;
        }
        Ok(())
    }

    fn exists(&self, key: &str) -> Result<bool, StorageError> {
        let path = self.path_of(key)?;
        match fs::metadata(&path) {
            // A listed key that is not a regular file exists; `get` says what it is.
            Ok(m) => Ok(!m.is_dir()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            // A path component that is a file: nothing can be stored there.
            Err(e) if e.kind() == io::ErrorKind::NotADirectory => Ok(false),
            Err(source) => Err(StorageError::Io {
                op: "exists",
                key: key.to_string(),
                source,
            }),
        }
    }
}

/// A [`Storage`] held in memory (for tests and tools); same key rules as [`LocalStorage`].
#[derive(Debug, Default)]
pub struct MemoryStorage {
    objects: Mutex<BTreeMap<String, Vec<u8>>>,
}

impl MemoryStorage {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Vec<u8>>> {
        // A panic while holding the lock cannot leave the map half-updated.
        self.objects.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Storage for MemoryStorage {
    fn put(&self, key: &str, bytes: &[u8]) -> Result<(), StorageError> {
        validate_key(key)?;
        self.lock().insert(key.to_string(), bytes.to_vec());
        Ok(())
    }

    fn put_if_absent(&self, key: &str, bytes: &[u8]) -> Result<bool, StorageError> {
        validate_key(key)?;
        match self.lock().entry(key.to_string()) {
            std::collections::btree_map::Entry::Occupied(_) => Ok(false),
            std::collections::btree_map::Entry::Vacant(v) => {
                v.insert(bytes.to_vec());
                Ok(true)
            }
        }
    }

    fn get(&self, key: &str) -> Result<Vec<u8>, StorageError> {
        validate_key(key)?;
        self.lock()
            .get(key)
            .cloned()
            .ok_or_else(|| StorageError::NotFound {
                key: key.to_string(),
            })
    }

    fn list(&self, prefix: &str) -> Result<Vec<String>, StorageError> {
        validate_prefix(prefix)?;
        Ok(self
            .lock()
            .range(prefix.to_string()..)
            .take_while(|(k, _)| k.starts_with(prefix))
            .map(|(k, _)| k.clone())
            .collect())
    }

    fn delete(&self, key: &str) -> Result<(), StorageError> {
        validate_key(key)?;
        self.lock().remove(key);
        Ok(())
    }

    fn exists(&self, key: &str) -> Result<bool, StorageError> {
        validate_key(key)?;
        Ok(self.lock().contains_key(key))
    }

    fn rename(&self, from: &str, to: &str) -> Result<(), StorageError> {
        validate_key(from)?;
        validate_key(to)?;
        let mut map = self.lock();
        let bytes = map.remove(from).ok_or_else(|| StorageError::NotFound {
            key: from.to_string(),
        })?;
        map.insert(to.to_string(), bytes);
        Ok(())
    }
}

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
        if object::is_object_store_url(&url) {
            return Ok(Location::ObjectStore(s.to_string()));
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
            Location::ObjectStore(url) => Box::new(ObjectStorage::open(url)?),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leftover_temp_files_are_not_listed_and_are_cleaned_at_open() {
        let dir = tempfile::tempdir().unwrap();
        let s = LocalStorage::open(dir.path()).unwrap();
        s.put("records/000001.azr", b"ok").unwrap();
        let tmp = dir.path().join("records/.000002.azr.tmp-1-0");
        fs::write(&tmp, b"half").unwrap();
        assert_eq!(s.list("records/").unwrap(), vec!["records/000001.azr"]);
        drop(s);
        let s = LocalStorage::open(dir.path()).unwrap();
        assert!(!tmp.exists());
        assert_eq!(s.get("records/000001.azr").unwrap(), b"ok");
    }

    #[test]
    fn put_leaves_no_temp_file_behind() {
        let dir = tempfile::tempdir().unwrap();
        let s = LocalStorage::open(dir.path()).unwrap();
        s.put("a/b.bin", &[7u8; 10_000]).unwrap();
        let names: Vec<_> = fs::read_dir(dir.path().join("a"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, vec!["b.bin"]);
    }

    #[test]
    fn root_below_a_regular_file_is_a_clear_open_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("plain-file");
        fs::write(&file, b"x").unwrap();
        let root = file.join("run");
        match LocalStorage::open(&root) {
            Err(e @ StorageError::Open { .. }) => {
                let msg = e.to_string();
                assert!(msg.contains("plain-file/run"), "{msg}");
            }
            other => panic!("expected an open error, got {other:?}"),
        }
    }

    #[test]
    fn put_below_an_existing_object_fails_with_the_key_and_keeps_data() {
        let dir = tempfile::tempdir().unwrap();
        let s = LocalStorage::open(dir.path()).unwrap();
        s.put("a", b"file").unwrap();
        // "a" is a regular file, so directory "a" for "a/b" cannot be created, even as root.
        match s.put("a/b", b"x") {
            Err(e @ StorageError::Io { .. }) => {
                let msg = e.to_string();
                assert!(msg.contains("put of key \"a/b\""), "{msg}");
            }
            other => panic!("expected an io error, got {other:?}"),
        }
        assert_eq!(s.get("a").unwrap(), b"file");
        assert!(!s.exists("a/b").unwrap());
        assert!(matches!(s.get("a/b"), Err(StorageError::NotFound { .. })));
    }

    #[test]
    fn exclusive_open_refuses_a_second_holder_naming_the_pid_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let first = LocalStorage::open_exclusive(dir.path()).unwrap();
        let pid = std::process::id();
        assert_eq!(
            fs::read_to_string(dir.path().join(LOCK_FILE)).unwrap(),
            format!("{pid}\n")
        );
        // A leftover temp file must survive a refused open (nothing is written or deleted).
        let tmp = dir.path().join(".x.tmp-1-0");
        fs::write(&tmp, b"in flight").unwrap();
        match LocalStorage::open_exclusive(dir.path()) {
            Err(e @ StorageError::Locked { .. }) => {
                let msg = e.to_string();
                assert!(msg.contains(&format!("pid {pid}")), "{msg}");
                assert!(msg.contains(&dir.path().display().to_string()), "{msg}");
            }
            other => panic!("expected a lock error, got {other:?}"),
        }
        assert!(tmp.exists());
        drop(first);
        let again = LocalStorage::open_exclusive(dir.path()).unwrap();
        assert!(!tmp.exists());
        // The lock file is not an object a caller lists under a prefix it uses.
        assert!(again.list("records/").unwrap().is_empty());
    }

    #[test]
    fn root_that_is_a_regular_file_says_not_a_directory_without_repeating_the_cause() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("plain-file");
        fs::write(&file, b"x").unwrap();
        for result in [
            LocalStorage::open(&file),
            LocalStorage::open_exclusive(&file),
        ] {
            let e = result.unwrap_err();
            let chain = super::error_chain(&e);
            assert!(chain.contains("not a directory"), "{chain}");
            assert_eq!(chain.matches("not a directory").count(), 1, "{chain}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_key_that_is_a_symlink_to_a_device_is_listed_and_refused_as_not_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let s = LocalStorage::open(dir.path().join("run")).unwrap();
        s.put("records/000001.azr", b"one").unwrap();
        std::os::unix::fs::symlink("/dev/null", dir.path().join("run/records/000002.azr")).unwrap();
        assert_eq!(
            s.list("records/").unwrap(),
            vec!["records/000001.azr", "records/000002.azr"]
        );
        assert!(s.exists("records/000002.azr").unwrap());
        match s.get("records/000002.azr") {
            Err(e @ StorageError::NotAFile { .. }) => {
                assert!(e.to_string().contains("not a regular file"), "{e}")
            }
            other => panic!("expected NotAFile, got {other:?}"),
        }
        assert_eq!(s.get("records/000001.azr").unwrap(), b"one");
    }
}
