//! Files the commands read and write: output paths checked before the work, atomic writes,
//! bounded reads, and the self-play record files (`.azr`) of a run.
use alphazero_records::{read_records_any, RecordFile};
use anyhow::{bail, Context, Result};
use std::path::Path;

/// Refuses an output file that cannot be written, before the work that produces it (a
/// search, a match) instead of after: the folder must exist and take a new file (probed by
/// creating and removing an empty one), and the path must not name a folder.
///
/// # Errors
/// One line naming `flag`, the path and why.
pub fn check_output_path(flag: &str, out: &Path) -> Result<()> {
    let dir = out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !dir.is_dir() {
        bail!(
            "{flag} {}: the folder {} does not exist",
            out.display(),
            dir.display()
        );
    }
    if out.is_dir() {
        bail!("{flag} {}: is a folder, not a file name", out.display());
    }
    let probe = dir.join(format!(".alphazero-write-probe-{}", std::process::id()));
    match std::fs::File::create(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
        }
        Err(e) => bail!(
            "{flag} {}: cannot write into {}: {e}",
            out.display(),
            dir.display()
        ),
    }
    if out.exists() {
        if let Err(e) = std::fs::OpenOptions::new().append(true).open(out) {
            bail!("{flag} {}: cannot be overwritten: {e}", out.display());
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, synced, then
/// renamed over `path` (an existing file is left as it was when anything fails). The file
/// gets the permissions any new file gets (0666 less the umask, so usually 0644), not the
/// temporary file's private 0600.
///
/// # Errors
/// The folder does not exist or cannot be written.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir).with_context(|| {
        format!(
            "writing {}: creating a file in {}",
            path.display(),
            dir.display()
        )
    })?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .with_context(|| format!("writing {}", path.display()))?;
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// Reads a whole file after checking that it is a regular file of at most `limit` bytes
/// (devices, FIFOs and huge files are refused before reading).
///
/// # Errors
/// The file cannot be opened or read, is not a regular file, or is (or grows) over `limit`.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let meta = file
        .metadata()
        .with_context(|| format!("reading the metadata of {}", path.display()))?;
    if !meta.is_file() {
        bail!(
            "{} is not a regular file (a directory, device or pipe); give a record file",
            path.display()
        );
    }
    if meta.len() > limit {
        bail!(
            "{} is {} bytes, over the {limit}-byte limit for a record file",
            path.display(),
            meta.len()
        );
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // `take` keeps the bound even if the file grows while it is read.
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {}", path.display()))?;
    if bytes.len() as u64 > limit {
        bail!(
            "{} grew past the {limit}-byte limit for a record file while it was read",
            path.display()
        );
    }
    Ok(bytes)
}

/// The largest record file `records` reads (2 GiB). `train` writes files of a few MiB; the cap
/// keeps a wrong path (a device, a disk image) from being read into memory.
pub const MAX_RECORD_FILE_BYTES: u64 = 2 << 30;

/// Reads one self-play record file (`.azr`), of at most [`MAX_RECORD_FILE_BYTES`].
///
/// # Errors
/// The file cannot be read, is too large, or is not a readable record file (naming it).
pub fn read_record_file(path: &Path) -> Result<RecordFile> {
    let bytes = read_bounded(path, MAX_RECORD_FILE_BYTES)?;
    read_records_any(&bytes)
        .with_context(|| format!("{}: not a readable record file", path.display()))
}
