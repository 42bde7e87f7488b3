//! Run-directory recovery: what a resumed run does with what an interrupted iteration left
//! behind, before its first iteration.
//!
//! The run state is the commit point, so anything newer than it belongs to an iteration
//! that did not finish and is done again:
//! - a record file the state does not know of is set aside as `records/<id>.azr.orphan`
//!   ([`set_aside_orphan_records`]), so that its games are not counted twice;
//! - a champion or snapshot network the state does not know of is set aside as
//!   `networks/<name>.azc.orphan` ([`set_aside_orphan_networks`]);
//! - the pending trainer checkpoint becomes the latest when the state names its step (the
//!   process died between the state and the rename), and is dropped otherwise
//!   ([`settle_pending_checkpoint`]);
//! - metrics lines of uncommitted iterations are removed, a torn last line is cut and lines
//!   that are no metrics record are set aside ([`open_metrics`]).
//!
//! A committed record file that cannot be read is set aside as `records/<id>.azr.corrupt`
//! with a warning naming the games lost, and the run goes on without them; a committed
//! record file that is missing is reported the same way and marked by
//! `records/<id>.azr.missing`, so that the warning is given once ([`rebuild_buffer`]).
//!
//! What the run cannot go on without is refused, naming the missing object and the way
//! back, never rebuilt from less than was there:
//! - a storage that holds records, networks or metrics but no run state (the state was
//!   deleted or lost with a disk): starting over would set the run's history aside
//!   ([`check_resumable`]);
//! - a run that committed training but has no `networks/latest.azc`: starting the trainer
//!   from random weights would throw that training away ([`check_trainer_checkpoint`]);
//! - a run whose champion network (the one its state names) is missing.
//!
//! Each step takes the run's [`Storage`] (its keys named by [`RunDir`]) and plain data, not
//! the pipeline: [`crate::Pipeline::run`] calls them in order, and they can be tested on
//! [`crate::MemoryStorage`] without a network.

use alphazero_game::Game;
use alphazero_registry::Registered;

use crate::error::PipelineError;
use crate::metrics::MetricsLog;
use crate::observer::Observer;
use crate::record::{read_records, RecordFile};
use crate::replay::ReplayBuffer;
use crate::run_dir::{Network, RunDir, SetAside};
use crate::state::RunState;
use crate::storage::{Storage, StorageError};

/// Checks, before anything is written, that the run in `storage` can go on without losing
/// work, and returns its state (`None` for a new run): a storage without a state must hold
/// nothing of a run, a run that has trained must have its trainer checkpoint
/// [`RunDir::LATEST`] (unless a pending checkpoint may still become it: then
/// [`check_trainer_checkpoint`] decides after [`settle_pending_checkpoint`]), and the
/// champion the state names must be there. Commands call
/// it before they save the run's configuration; [`load_state`] calls it again.
///
/// # Errors
/// [`PipelineError::Invalid`] when the storage holds no state but records, networks or
/// metrics (naming what it holds and the two ways on: restore the state, or start a new run
/// from the newest champion with `--init`), when the trainer checkpoint is missing (see
/// [`check_trainer_checkpoint`]) or the champion is (naming it and how to go on); the errors
/// of [`RunState::load`].
pub fn check_resumable(storage: &dyn Storage) -> Result<Option<RunState>, PipelineError> {
    match RunState::load(storage)? {
        None => {
            refuse_history_without_state(storage)?;
            Ok(None)
        }
        Some(state) => {
            if !storage.exists(RunDir::PENDING)? {
                check_trainer_checkpoint(storage, &state)?;
            }
            check_champion(storage, &state)?;
            Ok(Some(state))
        }
    }
}

/// Refuses a run whose champion network (the one `state` names, which self-play plays) is
/// missing, saying so in words and how to go on: a snapshot of the iteration that promoted
/// it holds the same network; otherwise it is to be restored.
fn check_champion(storage: &dyn Storage, state: &RunState) -> Result<(), PipelineError> {
    let Some(champion) = state.champions.iter().find(|c| c.id == state.champion_id) else {
        // A new run's champion 0 is made when the run starts.
        return Ok(());
    };
    if storage.exists(&champion.key)? {
        return Ok(());
    }
    let snapshot = RunDir::snapshot_key(champion.iteration);
    let way_on = if champion.iteration > 0 && storage.exists(&snapshot)? {
        format!(
            "restore it (e.g. from a backup of the run), or copy {snapshot} (the same \
             network, saved by the iteration that promoted it) to {}",
            champion.key
        )
    } else {
        format!(
            "restore it (e.g. from a backup of the run), or copy {} (the trainer's \
             network, trained at least as far) to {} to make that the champion",
            RunDir::LATEST,
            champion.key
        )
    };
    Err(PipelineError::Invalid(format!(
        "the champion network {} (champion {}, which {} names and self-play plays) is \
         missing: it was deleted or lost, so the run is not started; {way_on}",
        champion.key,
        champion.id,
        RunState::KEY
    )))
}

/// The run state to resume ([`check_resumable`]), or for a new run a new state of `seed`
/// (`run.seed`) saved at once, before anything else is written: so a storage that holds the
/// run's records, networks or metrics always holds its state too, and one without it has
/// lost it.
///
/// # Errors
/// As [`check_resumable`], and the errors of [`RunState::save`].
pub fn load_state(storage: &dyn Storage, seed: u64) -> Result<RunState, PipelineError> {
    if let Some(state) = check_resumable(storage)? {
        return Ok(state);
    }
    let state = RunState::new(seed);
    state.save(storage)?;
    Ok(state)
}

/// [`PipelineError::Invalid`] when `storage` (which holds no run state) holds what only a run
/// with a state writes: record files, networks, the pending trainer checkpoint or metrics
/// lines.
fn refuse_history_without_state(storage: &dyn Storage) -> Result<(), PipelineError> {
    let run = RunDir::new(storage);
    let records = run.records()?;
    let networks = run.networks()?;
    let pending = storage.exists(RunDir::PENDING)?;
    let metrics_lines = match storage.get(RunDir::METRICS) {
        Ok(b) => b
            .split(|&c| c == b'\n')
            .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
            .count(),
        Err(StorageError::NotFound { .. }) => 0,
        Err(e) => return Err(e.into()),
    };
    if records.is_empty() && networks.is_empty() && !pending && metrics_lines == 0 {
        return Ok(());
    }
    let newest_champion = networks.newest_champion();
    let mut held = Vec::new();
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    if !records.is_empty() {
        held.push(plural(records.len(), "record file", "record files"));
    }
    if !networks.is_empty() {
        held.push(plural(networks.len(), "network", "networks"));
    }
    if metrics_lines > 0 {
        held.push(format!(
            "{} in {}",
            plural(metrics_lines, "line", "lines"),
            RunDir::METRICS
        ));
    }
    if pending {
        held.push(RunDir::PENDING.to_string());
    }
    let way_on = match newest_champion {
        Some(id) => format!(
            "or go on from its newest champion in a new run directory NEW: `alphazero train \
             --run NEW --config RUN/{} --init RUN/{}` (RUN being this run), which keeps this \
             run as it is",
            RunDir::CONFIG,
            RunDir::champion_key(id)
        ),
        None => {
            "or, if none of it is worth keeping, start a new run in a new directory".to_string()
        }
    };
    Err(PipelineError::Invalid(format!(
        "the run state {key} is missing, but the run holds {}: it was deleted or lost, and \
         starting the run over would set all of that history aside, so the run is not \
         started. Restore {key} (e.g. from a backup of the run), {way_on}",
        match held.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => String::new(),
        },
        key = RunState::KEY,
    )))
}

/// Refuses a run that holds a run state but no configuration [`RunDir::CONFIG`] (deleted or
/// lost). Started as a new run there, it would resume its state, networks and records under
/// the default settings instead of its own (another seed, budget or model shape). Commands
/// call it before anything is written, whether or not a new run was asked for (`--force`).
///
/// # Errors
/// [`PipelineError::Invalid`] naming both files and the ways on: restore the configuration,
/// or go on from the newest champion in a new run directory; [`PipelineError::Storage`].
pub fn refuse_state_without_config(storage: &dyn Storage) -> Result<(), PipelineError> {
    if storage.exists(RunDir::CONFIG)? || !storage.exists(RunDir::STATE)? {
        return Ok(());
    }
    let way_on = match RunDir::new(storage).networks()?.newest_champion() {
        Some(id) => format!(
            ", or go on from its newest champion in a new run directory NEW: `alphazero \
             train --run NEW --init RUN/{}` with the run's options (RUN being this run)",
            RunDir::champion_key(id)
        ),
        None => String::new(),
    };
    Err(PipelineError::Invalid(format!(
        "the run's configuration {} is missing, but its state {} is there: it was deleted or \
         lost, and the run would go on under default settings instead of its own, so it is not \
         started. Restore {} (e.g. from a backup of the run; `alphazero train --dry-run` with \
         the run's options prints one){way_on}",
        RunDir::CONFIG,
        RunState::KEY,
        RunDir::CONFIG,
    )))
}

/// Refuses to go on without the trainer checkpoint [`RunDir::LATEST`] once the run has one to
/// lose: after a committed iteration (or a start from `--init`), a trainer started afresh
/// from random weights would throw the run's training away (and without gating become the
/// next champion). Called after [`settle_pending_checkpoint`].
///
/// # Errors
/// [`PipelineError::Invalid`] naming the missing file and the way on (the champion copied
/// over it); [`PipelineError::Storage`].
pub fn check_trainer_checkpoint(
    storage: &dyn Storage,
    state: &RunState,
) -> Result<(), PipelineError> {
    let new_run = state.iteration == 0 && state.trainer_step.is_none() && state.init.is_none();
    if new_run || storage.exists(RunDir::LATEST)? {
        return Ok(());
    }
    let trained = match (&state.init, state.iteration) {
        (Some(i), 0) => format!("the run was started from {}", i.path),
        (_, n) => format!(
            "the run has committed {n} iteration{}{}",
            if n == 1 { "" } else { "s" },
            state
                .trainer_step
                .map_or_else(String::new, |s| format!(" (trainer step {s})"))
        ),
    };
    Err(PipelineError::Invalid(format!(
        "{latest} (the trainer's network and optimizer state) is missing, though \
         {trained}: the trainer would start again from random weights and throw that \
         training away, so the run is not started. Restore it (e.g. from a backup of the \
         run), or go on from the champion: copy {} to {latest} (the optimizer state then \
         starts afresh)",
        RunDir::champion_key(state.champion_id),
        latest = RunDir::LATEST,
    )))
}

/// Finishes or drops the commit of the trainer checkpoint of the last iteration: the
/// pending checkpoint [`RunDir::PENDING`] becomes [`RunDir::LATEST`] when `state` names its
/// step (the process died between saving the state and the rename), and is deleted
/// otherwise (its iteration was not committed and is done again). `pending_step` reads the
/// pending checkpoint's optimizer step (`None` when it cannot be read); it is called only
/// when there is one.
///
/// # Errors
/// [`PipelineError::Storage`].
pub fn settle_pending_checkpoint(
    storage: &dyn Storage,
    state: &RunState,
    pending_step: impl FnOnce() -> Option<u64>,
) -> Result<(), PipelineError> {
    if !storage.exists(RunDir::PENDING)? {
        return Ok(());
    }
    let step = pending_step();
    if step.is_some() && step == state.trainer_step {
        storage.rename(RunDir::PENDING, RunDir::LATEST)?;
    } else {
        storage.delete(RunDir::PENDING)?;
    }
    Ok(())
}

/// Sets aside record files that `state` does not know of (ids at or above
/// `state.next_record_id`, written by an iteration that a crash interrupted before its
/// commit) as `records/<id>.azr.orphan`, so that the redone iteration's games are not
/// counted twice. `start` is the run's start position (its game and action space name the
/// games the warning counts).
///
/// # Errors
/// [`PipelineError::Storage`].
pub fn set_aside_orphan_records<G: Game>(
    storage: &dyn Storage,
    state: &RunState,
    start: &G,
    observer: &dyn Observer,
) -> Result<(), PipelineError> {
    let records = RunDir::new(storage).records()?;
    for (id, key) in records.numbered() {
        if id < state.next_record_id {
            continue;
        }
        let games = storage
            .get(key)
            .ok()
            .and_then(|b| read_records(&b, G::NAME, start.num_actions() as u32).ok())
            .map_or_else(|| "its".to_string(), |f| f.games.len().to_string());
        let to = RunDir::set_aside(key, SetAside::Orphan);
        storage.rename(key, &to)?;
        observer.warning(&format!(
            "{key} was written by iteration {} that did not finish; moved it to {to} \
             ({games} games not counted); that iteration's self-play is done again",
            state.iteration
        ));
    }
    Ok(())
}

/// Sets aside the champion and snapshot networks that `state` does not know of (a champion
/// id above `state.champion_id`, a snapshot after `state.iteration` iterations: written by
/// an iteration that a crash interrupted before its commit) as `networks/<name>.azc.orphan`,
/// so that neither the redone iteration nor `arena --snapshots` takes them for the run's
/// networks.
///
/// # Errors
/// [`PipelineError::Storage`].
pub fn set_aside_orphan_networks(
    storage: &dyn Storage,
    state: &RunState,
    observer: &dyn Observer,
) -> Result<(), PipelineError> {
    let networks = RunDir::new(storage).networks()?;
    for (key, network) in networks.parsed() {
        let uncommitted = match network {
            Network::Champion(id) => id > state.champion_id,
            Network::Snapshot(iterations) => iterations > state.iteration,
        };
        if uncommitted {
            let to = RunDir::set_aside(key, SetAside::Orphan);
            storage.rename(key, &to)?;
            observer.warning(&format!(
                "{key} was written by iteration {} that did not finish; moved it to {to} \
                 (that iteration is done again)",
                state.iteration
            ));
        }
    }
    Ok(())
}

/// The replay buffer of a resumed run: the committed record files, newest first, until the
/// buffer's `capacity` (`replay.capacity`, in positions) is covered, their games played from
/// `start` (the run's start position). A file that cannot be decoded or
/// replayed is set aside as `records/<id>.azr.corrupt`, and a committed file that is missing
/// is marked by `records/<id>.azr.missing` (a line saying so), each with a warning naming the
/// games lost; a file set aside or marked before is passed over without a word.
///
/// # Errors
/// [`PipelineError::Storage`]; [`PipelineError::Replay`] only if a checked file fails to
/// rebuild.
pub fn rebuild_buffer<G: Registered>(
    storage: &dyn Storage,
    state: &RunState,
    start: &G,
    capacity: usize,
    observer: &dyn Observer,
) -> Result<ReplayBuffer<G>, PipelineError> {
    let keys = RunDir::new(storage).records()?;
    let mut files: Vec<RecordFile> = Vec::new();
    let mut positions = 0usize;
    // Files lost now (unreadable or missing) waiting for the end of the next older readable
    // file, which bounds their games from below; `upper` is the first game id after them.
    // `before` counts the files set aside by an earlier resume among them, whose games the
    // same range holds.
    let mut lost: Vec<(String, String)> = Vec::new();
    let mut before = 0usize;
    let mut upper = state.next_game_id;
    let report = |lost: &mut Vec<(String, String)>, before: &mut usize, lower: u64, upper: u64| {
        if lost.is_empty() {
            *before = 0;
            return;
        }
        let names: Vec<String> = lost.iter().map(|(k, _)| k.clone()).collect();
        for (key, why) in lost.iter() {
            observer.warning(&format!("record file {key} {why}"));
        }
        let earlier = match *before {
            0 => String::new(),
            1 => " (with 1 file set aside before)".to_string(),
            n => format!(" (with {n} files set aside before)"),
        };
        observer.warning(&format!(
            "{}{earlier} lost {} games (ids {lower} to {}) and their positions from the \
             replay buffer; the run's counters still count them",
            names.join(", "),
            upper.saturating_sub(lower),
            upper.saturating_sub(1)
        ));
        lost.clear();
        *before = 0;
    };
    for id in (0..state.next_record_id).rev() {
        if positions >= capacity {
            break;
        }
        let key = RunDir::record_key(id);
        if !keys.contains(&key) {
            let missing = RunDir::set_aside(&key, SetAside::Missing);
            let corrupt = RunDir::set_aside(&key, SetAside::Corrupt);
            if keys.contains(&missing) || keys.contains(&corrupt) {
                before += 1;
                continue;
            }
            storage.put(
                &missing,
                format!(
                    "{key} (committed by the run) was missing when the run resumed; its \
                     games are lost\n"
                )
                .as_bytes(),
            )?;
            lost.push((
                key,
                format!("is missing (deleted or lost); marked it by {missing}"),
            ));
            continue;
        }
        let bytes = storage.get(&key)?;
        let checked = read_records(&bytes, G::NAME, start.num_actions() as u32)
            .map_err(PipelineError::from)
            .and_then(|file| {
                // Replay every game once so that a file whose moves do not replay is caught
                // here, not in the rebuild.
                let n = ReplayBuffer::<G>::check_replays(start, &file)?;
                Ok((file, n as usize))
            });
        match checked {
            Ok((file, n)) => {
                let end = file.header.first_game_id + file.games.len() as u64;
                report(&mut lost, &mut before, end, upper);
                upper = file.header.first_game_id;
                positions += n;
                files.push(file);
            }
            Err(e) => {
                let corrupt = RunDir::set_aside(&key, SetAside::Corrupt);
                storage.rename(&key, &corrupt)?;
                let why = crate::storage::error_chain(&e);
                lost.push((
                    key.clone(),
                    format!("cannot be read ({why}); moved it to {corrupt}"),
                ));
            }
        }
    }
    // Files still waiting are the oldest ones (the loop never stops at the capacity right
    // after a lost file), so their games start at id 0.
    report(&mut lost, &mut before, 0, upper);
    files.reverse();
    Ok(ReplayBuffer::rebuild_from(&files, capacity, start)?)
}

/// Opens the run's metrics log: a torn last line is cut and lines that are no metrics record
/// are set aside (each with a warning), and the lines of iterations that `state` has not
/// committed are removed.
///
/// # Errors
/// [`PipelineError::Metrics`].
pub fn open_metrics(
    storage: &dyn Storage,
    state: &RunState,
    observer: &dyn Observer,
) -> Result<MetricsLog, PipelineError> {
    let metrics = MetricsLog::open(storage, RunDir::METRICS)?;
    if let Some(line) = metrics.torn_line() {
        let shown: String = line.chars().take(60).collect();
        observer.warning(&format!(
            "{} ended in an incomplete line (an interrupted write); removed it, so \
             that iteration's figures are missing from the metrics and plots: {shown:?}…",
            RunDir::METRICS
        ));
    }
    for b in metrics.bad_lines() {
        observer.warning(&format!(
            "{} line {} is no metrics record ({}); moved it to {}: {:?}",
            RunDir::METRICS,
            b.line,
            b.reason,
            metrics.bad_key(),
            b.text.chars().take(60).collect::<String>()
        ));
    }
    metrics.drop_from(storage, state.iteration)?;
    Ok(metrics)
}
