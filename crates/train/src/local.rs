//! A run kept in a local directory: the checks made before a directory becomes a run.

use std::path::Path;

use crate::error::PipelineError;
use crate::pipeline::CONFIG_KEY;
use crate::storage::LOCK_FILE;

/// Refuses to start a new run in `dir` when it exists and holds anything but a run's lock
/// file: a directory with other files is probably not meant for a run (`--force` starts one
/// there anyway). A missing or empty directory is fine.
///
/// # Errors
/// [`PipelineError::Invalid`] naming the directory and (up to 5 of) its entries.
pub fn check_new_run_directory(dir: &Path) -> Result<(), PipelineError> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        // Missing, not a directory or unreadable: opening the run says why.
        return Ok(());
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != LOCK_FILE)
        .collect();
    if names.is_empty() {
        return Ok(());
    }
    names.sort();
    let shown: Vec<&str> = names.iter().take(5).map(String::as_str).collect();
    let more = if names.len() > shown.len() {
        ", …"
    } else {
        ""
    };
    Err(PipelineError::Invalid(format!(
        "--run {} exists and holds no training run (no {CONFIG_KEY}) but {} other entr{} \
         ({}{more}); give a new or empty directory, or add --force to start a run there anyway",
        dir.display(),
        names.len(),
        if names.len() == 1 { "y" } else { "ies" },
        shown.join(", "),
    )))
}
