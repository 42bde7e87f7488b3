//! A run kept in a local directory: its saved configuration, the checks made before a
//! directory becomes a run, and opening it for the one process that trains it.

use std::path::Path;

use crate::error::PipelineError;
use crate::run_dir::RunDir;
use crate::state::RunState;
use crate::storage::{LocalStorage, StorageError, LOCK_FILE};

/// The text of the saved [`RunDir::CONFIG`] of the run in `dir`, `None` when `dir` holds no run
/// (yet). Reads without creating or locking anything, so that a run's configuration is
/// resolved ([`crate::sources::ConfigSources`]) before anything is written.
///
/// # Errors
/// [`PipelineError::Context`] naming the file when it exists but cannot be read as text.
pub fn saved_config(dir: &Path) -> Result<Option<String>, PipelineError> {
    let path = dir.join(RunDir::CONFIG);
    if !path.is_file() {
        return Ok(None);
    }
    std::fs::read_to_string(&path).map(Some).map_err(|e| {
        PipelineError::from(e).context(format!("reading the run's saved {}", path.display()))
    })
}

/// The champion network of the local run directory `dir`: the file of the champion its run
/// state names (the champion of its last committed iteration). Reads only, so a run another
/// process is training can be read; a champion published by an iteration that is not
/// committed yet is not taken.
///
/// # Errors
/// [`PipelineError::Invalid`] naming the folder when it is not a run folder with a committed
/// champion (no run state yet, or the champion's file is missing); the run state's errors.
pub fn champion(dir: &Path) -> Result<std::path::PathBuf, PipelineError> {
    let storage = LocalStorage::existing(dir).map_err(|e| open_error(dir, e))?;
    let no_champion = |why: &str| {
        PipelineError::Invalid(format!(
            "{} is a folder but holds no champion network ({why}); give a network file (.azc) \
             or a training run folder after its first iteration",
            dir.display()
        ))
    };
    let state = RunState::load(&storage)
        .map_err(|e| PipelineError::from(e).context(format!("reading run {}", dir.display())))?
        .ok_or_else(|| no_champion(&format!("no {}", RunDir::STATE)))?;
    let key = RunDir::champion_key(state.champion_id);
    let path = dir.join(&key);
    if !path.is_file() {
        return Err(no_champion(&format!(
            "its state names {key}, which is missing"
        )));
    }
    Ok(path)
}

/// The network file a `--model` argument names: a file is itself, a folder is a training
/// run's folder and means its [`champion`].
///
/// # Errors
/// As [`champion`] for a folder.
pub fn network_or_champion(path: &Path) -> Result<std::path::PathBuf, PipelineError> {
    if path.is_dir() {
        champion(path)
    } else {
        Ok(path.to_path_buf())
    }
}

/// Opens the run directory `dir` for the one process that trains it: creates it when new and
/// takes its exclusive lock ([`LocalStorage::open_exclusive`]), before anything is written.
///
/// # Errors
/// [`PipelineError::Invalid`] when another process holds the lock (naming it and what to do)
/// or the directory cannot be created or opened (naming it);
/// [`PipelineError::Storage`] for any other storage error.
pub fn open_run(dir: &Path) -> Result<LocalStorage, PipelineError> {
    LocalStorage::open_exclusive(dir).map_err(|e| open_error(dir, e))
}

/// An error of opening or locking the run directory `dir`, in the words of [`open_run`].
fn open_error(dir: &Path, e: StorageError) -> PipelineError {
    match e {
        e @ StorageError::Locked { .. } => {
            PipelineError::Invalid(format!("{e}; wait for it to finish or stop it"))
        }
        StorageError::Open { root, source } => PipelineError::Invalid(format!(
            "cannot open run directory {}: {source}",
            root.display()
        )),
        e => PipelineError::from(e).context(format!("opening run directory {}", dir.display())),
    }
}

/// Refuses to start a new run in `dir` when it exists and holds anything but a run's lock
/// file: a directory with other files is probably not meant for a run (`--force` starts one
/// there anyway). A missing or empty directory is fine.
///
/// # Errors
/// [`PipelineError::Invalid`] naming the directory and (up to 5 of) its entries, or, when
/// another process holds the directory's run lock, naming that process as [`open_run`] does.
pub fn check_new_run_directory(dir: &Path) -> Result<(), PipelineError> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        // Missing, not a directory or unreadable: opening the run says why.
        return Ok(());
    };
    // A run another process is starting holds its first files before its config: the
    // directory is in use, whatever it holds at this instant.
    LocalStorage::check_unlocked(dir).map_err(|e| open_error(dir, e))?;
    if dir.join(RunDir::STATE).exists() {
        // A run that lost its config: refused after the lock, never "started anyway"
        // ([`crate::recovery::refuse_state_without_config`]).
        return Ok(());
    }
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
        "--run {} exists and holds no training run (no {}) but {} other entr{} \
         ({}{more}); give a new or empty directory, or add --force to start a run there anyway",
        dir.display(),
        RunDir::CONFIG,
        names.len(),
        if names.len() == 1 { "y" } else { "ies" },
        shown.join(", "),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_folder_means_the_champion_its_state_names() {
        use crate::storage::Storage;
        let dir = tempfile::tempdir().unwrap();
        let e = champion(dir.path()).unwrap_err().to_string();
        assert!(
            e.contains("holds no champion network") && e.contains("no state/run.json"),
            "{e}"
        );
        let storage = LocalStorage::existing(dir.path()).unwrap();
        let mut state = RunState::new(0);
        state.champion_id = 2;
        state.save(&storage).unwrap();
        let e = champion(dir.path()).unwrap_err().to_string();
        assert!(
            e.contains("networks/champion-0002.azc, which is missing"),
            "{e}"
        );
        // A newer champion file than the state names is not committed: not taken.
        for id in [1, 2, 3] {
            storage.put(&RunDir::champion_key(id), b"net").unwrap();
        }
        assert_eq!(
            champion(dir.path()).unwrap(),
            dir.path().join("networks/champion-0002.azc")
        );
        let e = champion(&dir.path().join("nowhere"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot open run directory"), "{e}");
        // A file is itself, a folder its champion.
        let file = dir.path().join("networks/champion-0001.azc");
        assert_eq!(network_or_champion(&file).unwrap(), file);
        assert_eq!(
            network_or_champion(dir.path()).unwrap(),
            dir.path().join("networks/champion-0002.azc")
        );
    }

    #[test]
    fn a_directory_another_trainer_is_starting_is_in_use_not_a_stranger_folder() {
        // Regression: a second trainer started while the first wrote its config was told the
        // directory "holds no training run but 1 other entry", not that it was in use.
        let dir = tempfile::tempdir().unwrap();
        check_new_run_directory(dir.path()).unwrap();
        let held = LocalStorage::open_exclusive(dir.path()).unwrap();
        std::fs::write(dir.path().join(".config.toml.tmp-1-0"), b"half").unwrap();
        let e = check_new_run_directory(dir.path()).unwrap_err().to_string();
        let pid = format!("pid {}", std::process::id());
        assert!(e.contains("is in use") && e.contains(&pid), "{e}");
        drop(held);
        let e = check_new_run_directory(dir.path()).unwrap_err().to_string();
        assert!(e.contains("holds no training run"), "{e}");
    }
}
