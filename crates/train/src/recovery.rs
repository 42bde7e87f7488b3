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
//! with a warning naming the games lost, and the run goes on without them
//! ([`rebuild_buffer`]).

use alphazero_nn::Encode;

use crate::error::PipelineError;
use crate::metrics::MetricsLog;
use crate::observer::Observer;
use crate::pipeline::{Pipeline, LATEST_KEY, METRICS_KEY, PENDING_KEY};
use crate::record::{read_records, RecordFile};
use crate::replay::ReplayBuffer;
use crate::state::RunState;
use crate::storage::record_key;

/// The id of a record file key `records/<id>.azr` (`None` for other keys, e.g. set-aside
/// `*.orphan` / `*.corrupt` files).
pub fn record_id(key: &str) -> Option<u64> {
    key.strip_prefix("records/")?
        .strip_suffix(".azr")?
        .parse()
        .ok()
}

/// Finishes or drops the commit of the trainer checkpoint of the last iteration: the
/// pending checkpoint becomes [`LATEST_KEY`] when `state` names its step (the process died
/// between saving the state and the rename), and is deleted otherwise (its iteration was not
/// committed and is done again).
///
/// # Errors
/// [`PipelineError::Storage`].
pub fn settle_pending_checkpoint<G: Encode>(
    p: &Pipeline<'_, G>,
    state: &RunState,
) -> Result<(), PipelineError> {
    let storage = p.storage();
    if !storage.exists(PENDING_KEY)? {
        return Ok(());
    }
    let step = p.read_checkpoint(PENDING_KEY).ok().map(|ck| ck.header.step);
    if step.is_some() && step == state.trainer_step {
        storage.rename(PENDING_KEY, LATEST_KEY)?;
    } else {
        storage.delete(PENDING_KEY)?;
    }
    Ok(())
}

/// Sets aside record files that `state` does not know of (ids at or above
/// `state.next_record_id`, written by an iteration that a crash interrupted before its
/// commit) as `records/<id>.azr.orphan`, so that the redone iteration's games are not
/// counted twice.
///
/// # Errors
/// [`PipelineError::Storage`].
pub fn set_aside_orphan_records<G: Encode>(
    p: &Pipeline<'_, G>,
    state: &RunState,
    observer: &dyn Observer,
) -> Result<(), PipelineError> {
    let storage = p.storage();
    for key in storage.list("records/")? {
        let Some(id) = record_id(&key) else { continue };
        if id < state.next_record_id {
            continue;
        }
        let games = storage
            .get(&key)
            .ok()
            .and_then(|b| read_records(&b, G::NAME, p.num_actions()).ok())
            .map_or_else(|| "its".to_string(), |f| f.games.len().to_string());
        let to = format!("{key}.orphan");
        storage.rename(&key, &to)?;
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
pub fn set_aside_orphan_networks<G: Encode>(
    p: &Pipeline<'_, G>,
    state: &RunState,
    observer: &dyn Observer,
) -> Result<(), PipelineError> {
    let storage = p.storage();
    for key in storage.list("networks/")? {
        let Some(name) = key
            .strip_prefix("networks/")
            .and_then(|k| k.strip_suffix(".azc"))
        else {
            continue;
        };
        let uncommitted = if let Some(id) = name.strip_prefix("champion-") {
            id.parse::<u32>().is_ok_and(|id| id > state.champion_id)
        } else if let Some(it) = name.strip_prefix("snapshot-") {
            it.parse::<u32>().is_ok_and(|it| it > state.iteration)
        } else {
            false
        };
        if uncommitted {
            let to = format!("{key}.orphan");
            storage.rename(&key, &to)?;
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
/// buffer's capacity (`replay.capacity`) is covered. A file that cannot be decoded or
/// replayed is set aside as `records/<id>.azr.corrupt` with a warning naming the games lost.
///
/// # Errors
/// [`PipelineError::Storage`]; [`PipelineError::Replay`] only if a checked file fails to
/// rebuild.
pub fn rebuild_buffer<G: Encode>(
    p: &Pipeline<'_, G>,
    state: &RunState,
    observer: &dyn Observer,
) -> Result<ReplayBuffer<G>, PipelineError> {
    let storage = p.storage();
    let capacity = p.config().replay.capacity as usize;
    let mut ids: Vec<u64> = storage
        .list("records/")?
        .iter()
        .filter_map(|k| record_id(k))
        .filter(|&id| id < state.next_record_id)
        .collect();
    ids.sort_unstable();
    let mut files: Vec<RecordFile> = Vec::new();
    let mut positions = 0usize;
    // Unreadable files waiting for the end of the next older readable file, which bounds
    // their games from below; `upper` is the first game id after them.
    let mut corrupt: Vec<(String, String)> = Vec::new();
    let mut upper = state.next_game_id;
    let report = |corrupt: &mut Vec<(String, String)>, lower: u64, upper: u64| {
        if corrupt.is_empty() {
            return;
        }
        let names: Vec<String> = corrupt.iter().map(|(k, _)| k.clone()).collect();
        for (key, why) in corrupt.iter() {
            observer.warning(&format!(
                "record file {key} cannot be read ({why}); moved it to {key}.corrupt"
            ));
        }
        observer.warning(&format!(
            "{} lost {} games (ids {lower}..{upper}) and their positions from the replay \
             buffer; the run's counters still count them",
            names.join(", "),
            upper.saturating_sub(lower)
        ));
        corrupt.clear();
    };
    for &id in ids.iter().rev() {
        if positions >= capacity {
            break;
        }
        let key = record_key(id);
        let bytes = storage.get(&key)?;
        let checked = read_records(&bytes, G::NAME, p.num_actions())
            .map_err(PipelineError::from)
            .and_then(|file| {
                // Replay every game once (into a one-slot scratch buffer) so that a file
                // whose moves do not replay is caught here, not in the rebuild.
                let mut scratch = ReplayBuffer::<G>::new(1);
                let n = p.ingest(&mut scratch, file.header.first_game_id, &file.games)?;
                Ok((file, n as usize))
            });
        match checked {
            Ok((file, n)) => {
                let end = file.header.first_game_id + file.games.len() as u64;
                report(&mut corrupt, end, upper);
                upper = file.header.first_game_id;
                positions += n;
                files.push(file);
            }
            Err(e) => {
                storage.rename(&key, &format!("{key}.corrupt"))?;
                corrupt.push((key, crate::storage::error_chain(&e)));
            }
        }
    }
    // Unreadable files still waiting are the oldest ones (the loop never stops at the
    // capacity right after an unreadable file), so their games start at id 0.
    report(&mut corrupt, 0, upper);
    files.reverse();
    let start = p.start_position();
    Ok(ReplayBuffer::rebuild_from(&files, capacity, |_, _| {
        Ok(start.clone())
    })?)
}

/// Opens the run's metrics log: a torn last line is cut and lines that are no metrics record
/// are set aside (each with a warning), and the lines of iterations that `state` has not
/// committed are removed.
///
/// # Errors
/// [`PipelineError::Metrics`].
pub fn open_metrics<G: Encode>(
    p: &Pipeline<'_, G>,
    state: &RunState,
    observer: &dyn Observer,
) -> Result<MetricsLog, PipelineError> {
    let storage = p.storage();
    let metrics = MetricsLog::open(storage, METRICS_KEY)?;
    if let Some(line) = metrics.torn_line() {
        let shown: String = line.chars().take(60).collect();
        observer.warning(&format!(
            "{METRICS_KEY} ended in an incomplete line (an interrupted write); removed it, so \
             that iteration's figures are missing from the metrics and plots: {shown:?}…"
        ));
    }
    for b in metrics.bad_lines() {
        observer.warning(&format!(
            "{METRICS_KEY} line {} is no metrics record ({}); moved it to {}: {:?}",
            b.line,
            b.reason,
            metrics.bad_key(),
            b.text.chars().take(60).collect::<String>()
        ));
    }
    metrics.drop_from(storage, state.iteration)?;
    Ok(metrics)
}
