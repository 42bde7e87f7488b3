//! How actors and a learner share one run's [`Storage`] (a bucket, or a directory) without a
//! server of their own: every game counted once, nothing lost or duplicated when any of them
//! is killed at any moment.
//!
//! - **The run's game** ([`claim_run`]): the first process writes [`RunDir::MANIFEST`] with the
//!   game (a conditional put); any process of another game is refused before any work.
//! - **Actors publish** record batches through an [`Outbox`]: each actor has a random id and
//!   numbers its batches, and each batch is one object
//!   `incoming/<actor>/<seq>-champion-<id>.azr` ([`RunDir::batch_key`]: the champion that
//!   played it) created with [`Storage::put_if_absent`]. An object store shows an object
//!   only once its upload is complete, so an actor killed mid-upload leaves nothing, and a
//!   restarted actor takes a new id (its old batches stay valid).
//! - **The learner consumes** them through an [`Inbox`]: it lists what it has not consumed,
//!   records the keys it takes for iteration `i` in [`RunDir::INBOX`] *before* it commits `i`
//!   (its run state), and on restart forgets the entries of iterations it never committed —
//!   so a batch is consumed again only when the iteration that took it was lost. Consumed
//!   batches of committed iterations are deleted afterwards ([`Inbox::tidy`]); their keys
//!   are kept in the inbox, so a late duplicate upload is never counted twice. Batches the
//!   learner skips (played by a champion too old, [`RunDir::batch_champion`]) are recorded the same
//!   way, as skipped.
//! - **Champions** are published by the learner under unique names
//!   (`networks/champion-NNNN.azc`, [`RunDir::champion_key`]); actors play the one the run
//!   state names.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Storage, StorageError};
use crate::run_dir::RunDir;

/// An error of the actor/learner exchange.
#[derive(Debug, thiserror::Error)]
pub enum ExchangeError {
    /// The storage failed.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// The storage holds a run of another game.
    #[error("{location} holds a run of {found}, not of {expected}; use another bucket path")]
    OtherGame {
        /// The storage's location (URL or directory).
        location: String,
        /// The game in its [`RunDir::MANIFEST`].
        found: String,
        /// The game of this process.
        expected: String,
    },
    /// The storage holds no run yet (no [`RunDir::MANIFEST`] or no configuration): an actor
    /// waits for a learner to start it.
    #[error(
        "{location} holds no run yet (no {key}); start one there first with `alphazero \
         learner --storage {location} --game GAME`"
    )]
    NoRun {
        /// The storage's location.
        location: String,
        /// The object that is missing.
        key: String,
    },
    /// An exchange object that does not parse.
    #[error("{key} in {location} is not a valid exchange object: {reason}")]
    Corrupt {
        /// The storage's location.
        location: String,
        /// The object's key.
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// Another learner holds the run's learner lease and renews it ([`super::lease`]): one
    /// learner per run.
    #[error(
        "{location} already has a learner: {holder} holds its learner lease and renews it; \
         one learner per run: stop that one first (or use another bucket path)"
    )]
    Held {
        /// The storage's location.
        location: String,
        /// The holder in words (id, pid, host).
        holder: String,
    },
    /// This learner lost the run's learner lease to another learner (it stopped renewing it
    /// for longer than the lease time): it stops, committing nothing more.
    #[error(
        "this learner lost the learner lease of {location} to {by} (it was not renewed within \
         the lease time); stopping without committing: the other learner goes on with the run"
    )]
    Lost {
        /// The storage's location.
        location: String,
        /// The learner that holds it now, in words.
        by: String,
    },
    /// Another actor already published under this actor's key (two actors with one id).
    #[error("{key} was already published by another actor with id {actor}")]
    Taken {
        /// The actor id.
        actor: String,
        /// The key.
        key: String,
    },
}

/// The run's identity, [`RunDir::MANIFEST`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunManifest {
    /// Format version (1).
    pub version: u32,
    /// The game with its variant, as the caller names it (e.g. `connect4` or `gomoku 15x15
    /// renju`); two processes share a run only when these are equal.
    pub game: String,
}

/// Reads the run's manifest and checks that the run is one of `game` when given (the game's
/// name, `connect4`, or the name with its variant, `gomoku 15x15 renju`: the words given must
/// begin the manifest's). `location` is named in errors. Writes nothing (an actor's check).
///
/// # Errors
/// [`ExchangeError::NoRun`] without a manifest, [`ExchangeError::OtherGame`],
/// [`ExchangeError::Corrupt`], [`ExchangeError::Storage`].
pub fn read_run(
    storage: &dyn Storage,
    location: &str,
    game: Option<&str>,
) -> Result<RunManifest, ExchangeError> {
    if !storage.exists(RunDir::MANIFEST)? {
        return Err(ExchangeError::NoRun {
            location: location.to_string(),
            key: RunDir::MANIFEST.to_string(),
        });
    }
    let there: RunManifest = parse(storage, location, RunDir::MANIFEST)?;
    if let Some(game) = game {
        let mut ours = game.split_whitespace();
        let matches = there
            .game
            .split_whitespace()
            .zip(ours.by_ref())
            .all(|(a, b)| a == b);
        if !matches || ours.next().is_some() {
            return Err(ExchangeError::OtherGame {
                location: location.to_string(),
                found: there.game,
                expected: game.to_string(),
            });
        }
    }
    Ok(there)
}

/// Writes the run's manifest for `game` unless there is one, and checks that the run is one of
/// `game`. `location` (the URL or directory) is named in errors.
///
/// # Errors
/// [`ExchangeError::OtherGame`] when the storage holds a run of another game,
/// [`ExchangeError::Corrupt`] for a manifest that does not parse, [`ExchangeError::Storage`].
pub fn claim_run(
    storage: &dyn Storage,
    location: &str,
    game: &str,
) -> Result<RunManifest, ExchangeError> {
    let ours = RunManifest {
        version: 1,
        game: game.to_string(),
    };
    let bytes = serde_json::to_vec_pretty(&ours).expect("a manifest serializes");
    if storage.put_if_absent(RunDir::MANIFEST, &bytes)? {
        return Ok(ours);
    }
    let there: RunManifest = parse(storage, location, RunDir::MANIFEST)?;
    if there.game != game {
        return Err(ExchangeError::OtherGame {
            location: location.to_string(),
            found: there.game,
            expected: game.to_string(),
        });
    }
    Ok(there)
}

fn parse<T: for<'de> Deserialize<'de>>(
    storage: &dyn Storage,
    location: &str,
    key: &str,
) -> Result<T, ExchangeError> {
    let bytes = storage.get(key)?;
    serde_json::from_slice(&bytes).map_err(|e| ExchangeError::Corrupt {
        location: location.to_string(),
        key: key.to_string(),
        reason: e.to_string(),
    })
}

/// An actor's side: publishes its record batches under unique keys.
#[derive(Debug, Clone)]
pub struct Outbox {
    actor: String,
    next_seq: u64,
}

impl Default for Outbox {
    fn default() -> Self {
        Self::new()
    }
}

impl Outbox {
    /// An outbox with a new random actor id (16 hex digits), numbering from 0.
    pub fn new() -> Self {
        Outbox {
            actor: format!("{:016x}", rand::random::<u64>()),
            next_seq: 0,
        }
    }

    /// An outbox whose actor id is `name`, a dash and 8 random hex digits (so that a restarted
    /// actor of the same name never reuses a key), numbering from 0. `name` should be made of
    /// letters, digits, `-` and `_` (a key that is not valid is refused at the first publish).
    pub fn named(name: &str) -> Self {
        Outbox {
            actor: format!("{name}-{:08x}", rand::random::<u32>()),
            next_seq: 0,
        }
    }

    /// The actor id.
    pub fn actor(&self) -> &str {
        &self.actor
    }

    /// The key batch `seq` of this actor, played by champion `champion`, gets:
    /// `incoming/<actor>/<seq, 8 digits>-champion-<champion, 4 digits>.azr`.
    pub fn key(&self, seq: u64, champion: u32) -> String {
        RunDir::batch_key(&self.actor, seq, champion)
    }

    /// Publishes one record batch (the bytes of a record file) played by champion `champion`
    /// as the next key; returns it. The object appears whole or not at all.
    ///
    /// # Errors
    /// [`ExchangeError::Taken`] when the key exists (another actor with the same id),
    /// [`ExchangeError::Storage`].
    pub fn publish(
        &mut self,
        storage: &dyn Storage,
        records: &[u8],
        champion: u32,
    ) -> Result<String, ExchangeError> {
        let key = self.key(self.next_seq, champion);
        if !storage.put_if_absent(&key, records)? {
            return Err(ExchangeError::Taken {
                actor: self.actor.clone(),
                key,
            });
        }
        self.next_seq += 1;
        Ok(key)
    }
}

/// The learner's side: which published batches it has consumed or skipped, and in which
/// iteration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inbox {
    /// Format version (1).
    version: u32,
    /// Consumed key → the iteration that consumed it.
    consumed: BTreeMap<String, u32>,
    /// Skipped key (a batch whose games were not trained on: played by a champion too old)
    /// → the iteration that skipped it; absent in inboxes written before skipping existed.
    #[serde(default)]
    skipped: BTreeMap<String, u32>,
}

impl Inbox {
    /// Loads [`RunDir::INBOX`] (empty when absent) and forgets the batches consumed by iterations
    /// `committed_iterations` and later, which were never committed (the learner's run state
    /// says how many iterations it committed): those batches are pending again.
    ///
    /// # Errors
    /// [`ExchangeError::Corrupt`] naming `location` and the key, [`ExchangeError::Storage`].
    pub fn load(
        storage: &dyn Storage,
        location: &str,
        committed_iterations: u32,
    ) -> Result<Self, ExchangeError> {
        let mut inbox: Inbox = match storage.exists(RunDir::INBOX)? {
            true => parse(storage, location, RunDir::INBOX)?,
            false => Inbox {
                version: 1,
                consumed: BTreeMap::new(),
                skipped: BTreeMap::new(),
            },
        };
        inbox
            .consumed
            .retain(|_, &mut it| it < committed_iterations);
        inbox.skipped.retain(|_, &mut it| it < committed_iterations);
        Ok(inbox)
    }

    /// The published batches neither consumed nor skipped yet, sorted by actor and number.
    ///
    /// # Errors
    /// [`ExchangeError::Storage`].
    pub fn pending(&self, storage: &dyn Storage) -> Result<Vec<String>, ExchangeError> {
        let mut keys = storage.list(RunDir::INCOMING)?;
        keys.retain(|k| {
            k.ends_with(".azr") && !self.consumed.contains_key(k) && !self.skipped.contains_key(k)
        });
        Ok(keys)
    }

    /// Records that iteration `iteration` consumes `keys` and skips `skipped` (their games are
    /// not trained on), and saves the inbox. Call it after the iteration's records are
    /// written and before its run state (the commit point).
    ///
    /// # Errors
    /// [`ExchangeError::Storage`].
    pub fn consume(
        &mut self,
        storage: &dyn Storage,
        keys: &[String],
        skipped: &[String],
        iteration: u32,
    ) -> Result<(), ExchangeError> {
        for k in keys {
            self.consumed.insert(k.clone(), iteration);
        }
        for k in skipped {
            self.skipped.insert(k.clone(), iteration);
        }
        let bytes = serde_json::to_vec(self).expect("an inbox serializes");
        storage.put(RunDir::INBOX, &bytes)?;
        Ok(())
    }

    /// Whether `key` was consumed (by an iteration that is committed or under way).
    pub fn is_consumed(&self, key: &str) -> bool {
        self.consumed.contains_key(key)
    }

    /// Whether `key` was skipped (by an iteration that is committed or under way).
    pub fn is_skipped(&self, key: &str) -> bool {
        self.skipped.contains_key(key)
    }

    /// The number of consumed batches.
    pub fn consumed_count(&self) -> usize {
        self.consumed.len()
    }

    /// The number of skipped batches.
    pub fn skipped_count(&self) -> usize {
        self.skipped.len()
    }

    /// Deletes the published objects of batches consumed or skipped by committed iterations
    /// (fewer than `committed_iterations`); their keys stay in the inbox. Returns how many
    /// were deleted.
    ///
    /// # Errors
    /// [`ExchangeError::Storage`].
    pub fn tidy(
        &self,
        storage: &dyn Storage,
        committed_iterations: u32,
    ) -> Result<usize, ExchangeError> {
        let mut deleted = 0;
        for key in storage.list(RunDir::INCOMING)? {
            let by = self.consumed.get(&key).or(self.skipped.get(&key));
            if by.is_some_and(|&it| it < committed_iterations) {
                storage.delete(&key)?;
                deleted += 1;
            }
        }
        Ok(deleted)
    }
}

#[cfg(test)]
mod tests {
    use super::super::MemoryStorage;
    use super::*;

    #[test]
    fn a_run_of_another_game_is_refused_naming_the_location_and_both_games() {
        let s = MemoryStorage::new();
        claim_run(&s, "s3://b/run", "connect4").unwrap();
        assert_eq!(
            claim_run(&s, "s3://b/run", "connect4").unwrap().game,
            "connect4"
        );
        let e = claim_run(&s, "s3://b/run", "gomoku 15x15 freestyle").unwrap_err();
        let msg = e.to_string();
        for part in ["s3://b/run", "connect4", "gomoku 15x15 freestyle"] {
            assert!(msg.contains(part), "{msg}");
        }
    }

    #[test]
    fn a_batch_taken_by_an_uncommitted_iteration_is_pending_again_after_a_restart() {
        let s = MemoryStorage::new();
        let mut actor = Outbox::new();
        let k0 = actor.publish(&s, b"batch 0", 0).unwrap();
        let k1 = actor.publish(&s, b"batch 1", 0).unwrap();
        let mut inbox = Inbox::load(&s, "mem", 0).unwrap();
        assert_eq!(inbox.pending(&s).unwrap(), vec![k0.clone(), k1.clone()]);
        inbox
            .consume(&s, std::slice::from_ref(&k0), &[], 0)
            .unwrap();
        // Iteration 0 is committed; iteration 1 takes batch 1 and the learner dies before
        // committing it.
        inbox
            .consume(&s, std::slice::from_ref(&k1), &[], 1)
            .unwrap();
        assert!(inbox.pending(&s).unwrap().is_empty());
        let inbox = Inbox::load(&s, "mem", 1).unwrap();
        assert_eq!(inbox.pending(&s).unwrap(), vec![k1.clone()]);
        assert!(inbox.is_consumed(&k0));
        // Only the committed iteration's batch is deleted; its key stays consumed.
        assert_eq!(inbox.tidy(&s, 1).unwrap(), 1);
        assert!(!s.exists(&k0).unwrap() && s.exists(&k1).unwrap());
        assert!(inbox.pending(&s).unwrap() == vec![k1]);
    }

    #[test]
    fn an_actor_finds_no_run_or_a_run_of_another_game_naming_the_location() {
        let s = MemoryStorage::new();
        let e = read_run(&s, "s3://b/run", None).unwrap_err();
        assert!(matches!(e, ExchangeError::NoRun { .. }), "{e}");
        assert!(e.to_string().contains("s3://b/run"), "{e}");
        claim_run(&s, "s3://b/run", "gomoku 9x9 renju").unwrap();
        assert_eq!(
            read_run(&s, "s3://b/run", None).unwrap().game,
            "gomoku 9x9 renju"
        );
        assert!(read_run(&s, "s3://b/run", Some("gomoku")).is_ok());
        assert!(read_run(&s, "s3://b/run", Some("gomoku 9x9")).is_ok());
        for other in ["connect4", "gomoku 15x15", "gomoku 9x9 renju extra"] {
            let e = read_run(&s, "s3://b/run", Some(other)).unwrap_err();
            let msg = e.to_string();
            assert!(msg.contains("s3://b/run") && msg.contains(other), "{msg}");
        }
    }

    #[test]
    fn a_named_actor_restarted_under_the_same_name_publishes_new_keys() {
        let (a, b) = (Outbox::named("box-1"), Outbox::named("box-1"));
        assert!(a.actor().starts_with("box-1-"), "{}", a.actor());
        assert_ne!(a.key(0, 0), b.key(0, 0));
    }

    #[test]
    fn two_actors_never_share_a_key_and_a_reused_id_is_refused() {
        let s = MemoryStorage::new();
        let (mut a, mut b) = (Outbox::new(), Outbox::new());
        assert_ne!(a.actor(), b.actor());
        let ka = a.publish(&s, b"a", 0).unwrap();
        let kb = b.publish(&s, b"b", 0).unwrap();
        assert_ne!(ka, kb);
        let mut twin = Outbox {
            actor: a.actor().to_string(),
            next_seq: 0,
        };
        assert!(matches!(
            twin.publish(&s, b"twin", 0),
            Err(ExchangeError::Taken { .. })
        ));
        assert_eq!(s.get(&ka).unwrap(), b"a");
    }

    #[test]
    fn a_batch_key_names_the_champion_that_played_it() {
        let s = MemoryStorage::new();
        let mut a = Outbox::named("box-1");
        let k = a.publish(&s, b"a", 17).unwrap();
        assert!(k.ends_with("/00000000-champion-0017.azr"), "{k}");
        assert_eq!(RunDir::batch_champion(&k), Some(17));
        assert_eq!(RunDir::batch_champion(&a.key(3, 12345)), Some(12345));
    }

    #[test]
    fn a_skipped_batch_is_not_pending_is_tidied_and_is_pending_again_if_never_committed() {
        let s = MemoryStorage::new();
        let mut actor = Outbox::new();
        let k0 = actor.publish(&s, b"batch 0", 0).unwrap();
        let k1 = actor.publish(&s, b"batch 1", 3).unwrap();
        let mut inbox = Inbox::load(&s, "mem", 0).unwrap();
        inbox
            .consume(&s, std::slice::from_ref(&k1), std::slice::from_ref(&k0), 0)
            .unwrap();
        assert!(inbox.pending(&s).unwrap().is_empty());
        assert_eq!((inbox.consumed_count(), inbox.skipped_count()), (1, 1));
        // Iteration 0 never committed: both batches are pending again.
        let again = Inbox::load(&s, "mem", 0).unwrap();
        assert_eq!(again.pending(&s).unwrap(), vec![k0.clone(), k1.clone()]);
        // Committed: both deleted, neither pending, the skipped one still known as skipped.
        let committed = Inbox::load(&s, "mem", 1).unwrap();
        assert_eq!(committed.tidy(&s, 1).unwrap(), 2);
        s.put(&k0, b"late duplicate").unwrap();
        assert!(committed.pending(&s).unwrap().is_empty());
        assert_eq!(committed.skipped_count(), 1);
    }
}
