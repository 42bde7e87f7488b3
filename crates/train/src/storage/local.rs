//! [`LocalStorage`]: a run's objects as files under a root directory, written atomically.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::{valid_component_char, validate_key, validate_prefix, Storage, StorageError};

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
            let chain = crate::storage::error_chain(&e);
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
