//! One learner per run: the **learner lease**, an object in the run's [`Storage`] that names
//! the learner holding the run (a random holder id, its host and pid) and that the holder
//! renews every third of the lease time.
//!
//! Leases are numbered: lease `n` is the object `state/learner-lease-<n, 8 digits>.json`
//! ([`RunDir::lease_key`]), created with [`Storage::put_if_absent`], and the run's lease is
//! the highest number. Only its holder writes it (renewals overwrite it with a new count and
//! time); taking the run over creates lease `n + 1`, which exactly one of several takers can
//! do. A holder has lost the run as soon as a higher lease exists, which it checks
//! ([`LearnerLease::check`]) before each write of the run's shared state.
//!
//! A learner that finds the run's lease ([`LearnerLease::acquire`]):
//! - released (its holder stopped cleanly) or older than the lease time by the clock: takes
//!   the run over at once;
//! - otherwise watches it, for up to the lease time on its own clock: a renewal means the
//!   holder is alive, and this learner is refused ([`ExchangeError::Held`], naming the
//!   location and the holder); no renewal in that time means the holder is gone (a killed
//!   learner), and the run is taken over. A live holder is therefore found within a third of
//!   the lease time, and a learner restarted after a `kill -9` waits at most the lease time.
//!
//! Clocks of different machines matter only for the "older by the clock" shortcut; they
//! should agree within the lease time.

use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::exchange::ExchangeError;
use super::{Storage, StorageError};
use crate::run_dir::RunDir;

/// The lease time of `alphazero learner` unless `--lease-seconds` says otherwise.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(60);

/// The content of a lease object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeaseRecord {
    /// Format version (1).
    pub version: u32,
    /// The holder's random id (16 hex digits), new for every learner process.
    pub holder: String,
    /// The holder's host name.
    pub host: String,
    /// The holder's process id.
    pub pid: u32,
    /// The lease time (seconds): the lease is the holder's while renewed within it.
    pub lease_s: f64,
    /// When it was last renewed (seconds since the Unix epoch, the holder's clock).
    pub renewed_unix: f64,
    /// Renewals so far (a watcher sees the holder alive when this changes).
    pub renewals: u64,
    /// Whether the holder gave it up (stopped cleanly): the next learner takes it at once.
    #[serde(default)]
    pub released: bool,
}

impl LeaseRecord {
    /// The holder in words: `learner 3f…e1 (pid 4242 on box-1)`.
    pub fn holder_words(&self) -> String {
        format!(
            "learner {} (pid {} on {})",
            self.holder, self.pid, self.host
        )
    }
}

/// Seconds in words: `60 s`, `0.3 s`.
fn seconds(s: f64) -> String {
    if s >= 10.0 {
        format!("{s:.0} s")
    } else {
        format!("{s:.1} s")
    }
}

fn now_unix() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// This machine's host name (`unknown` when it cannot be read).
fn host_name() -> String {
    std::env::var("HOSTNAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/proc/sys/kernel/hostname").ok())
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// The run's current lease: its number and content, `None` before the first.
fn current(
    storage: &dyn Storage,
    location: &str,
) -> Result<Option<(u64, LeaseRecord)>, ExchangeError> {
    let Some((n, key)) = storage
        .list(RunDir::LEASE_PREFIX)?
        .into_iter()
        .filter_map(|k| Some((RunDir::lease_number(&k)?, k)))
        .max_by_key(|&(n, _)| n)
    else {
        return Ok(None);
    };
    let bytes = match storage.get(&key) {
        Ok(b) => b,
        // Taken over and tidied between the listing and the read: look again.
        Err(StorageError::NotFound { .. }) => return current(storage, location),
        Err(e) => return Err(e.into()),
    };
    let record = serde_json::from_slice(&bytes).map_err(|e| ExchangeError::Corrupt {
        location: location.to_string(),
        key,
        reason: e.to_string(),
    })?;
    Ok(Some((n, record)))
}

/// The learner lease this process holds (see the module documentation). Shared by the
/// learner's thread and its heartbeat thread ([`LearnerLease::renew`]).
pub struct LearnerLease<'s> {
    storage: &'s dyn Storage,
    location: String,
    number: u64,
    record: Mutex<LeaseRecord>,
}

impl std::fmt::Debug for LearnerLease<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LearnerLease")
            .field("location", &self.location)
            .field("number", &self.number)
            .field("record", &self.record())
            .finish_non_exhaustive()
    }
}

impl<'s> LearnerLease<'s> {
    /// Takes the run's lease for this process with lease time `lease`, or is refused. `say`
    /// gets the one line said while it waits for a lease that may be stale, and the line said
    /// when it takes one over. `location` (URL or directory) is named in lines and errors.
    ///
    /// # Errors
    /// [`ExchangeError::Held`] when another learner renews the lease (naming `location` and
    /// that learner), [`ExchangeError::Corrupt`] for a lease object that does not parse,
    /// [`ExchangeError::Storage`].
    pub fn acquire(
        storage: &'s dyn Storage,
        location: &str,
        lease: Duration,
        say: &dyn Fn(&str),
    ) -> Result<Self, ExchangeError> {
        let ours = LeaseRecord {
            version: 1,
            holder: format!("{:016x}", rand::random::<u64>()),
            host: host_name(),
            pid: std::process::id(),
            lease_s: lease.as_secs_f64(),
            renewed_unix: now_unix(),
            renewals: 0,
            released: false,
        };
        let poll = (lease / 10).clamp(Duration::from_millis(10), Duration::from_secs(1));
        // The lease being watched: its number, renewal count, and since when (our clock).
        let mut watching: Option<(u64, u64, Instant)> = None;
        loop {
            let (number, previous) = match current(storage, location)? {
                None => (0, None),
                Some((n, there)) => {
                    let age = now_unix() - there.renewed_unix;
                    let stale_by_clock = age > there.lease_s;
                    let stale_by_watch = watching.is_some_and(|(wn, wr, since)| {
                        wn == n
                            && wr == there.renewals
                            && since.elapsed().as_secs_f64() > there.lease_s
                    });
                    if !(there.released || stale_by_clock || stale_by_watch) {
                        match watching {
                            Some((wn, wr, _)) if (wn, wr) != (n, there.renewals) => {
                                return Err(ExchangeError::Held {
                                    location: location.to_string(),
                                    holder: there.holder_words(),
                                });
                            }
                            Some(_) => {}
                            None => {
                                say(&format!(
                                    "the learner lease of {location} is held by {}, renewed \
                                     {} ago; waiting up to {} for it to expire (a learner \
                                     that was killed stops renewing it; a live one renews it \
                                     every {}, and then this one stops)",
                                    there.holder_words(),
                                    seconds(age.max(0.0)),
                                    seconds(there.lease_s),
                                    seconds(there.lease_s / 3.0)
                                ));
                                watching = Some((n, there.renewals, Instant::now()));
                            }
                        }
                        std::thread::sleep(poll);
                        continue;
                    }
                    (n + 1, Some(there))
                }
            };
            let mut record = ours.clone();
            record.renewed_unix = now_unix();
            let bytes = serde_json::to_vec_pretty(&record).expect("a lease serializes");
            if !storage.put_if_absent(&RunDir::lease_key(number), &bytes)? {
                // Another learner took it first: watch its lease.
                watching = None;
                continue;
            }
            if let Some(p) = previous {
                say(&format!(
                    "took over the learner lease of {location} from {} ({})",
                    p.holder_words(),
                    if p.released {
                        "released".to_string()
                    } else {
                        format!("not renewed for over {}", seconds(p.lease_s))
                    }
                ));
            }
            // Older leases are history: tidied (best effort).
            for n in 0..number {
                let _ = storage.delete(&RunDir::lease_key(n));
            }
            return Ok(LearnerLease {
                storage,
                location: location.to_string(),
                number,
                record: Mutex::new(record),
            });
        }
    }

    /// The lease's content as last written by this process.
    pub fn record(&self) -> LeaseRecord {
        self.record
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// How often to [`renew`](LearnerLease::renew): a third of the lease time.
    pub fn renew_every(&self) -> Duration {
        Duration::from_secs_f64(self.record().lease_s / 3.0)
    }

    /// Checks that this process still holds the run (no learner took it over).
    ///
    /// # Errors
    /// [`ExchangeError::Lost`] naming the location and the learner that took it;
    /// [`ExchangeError::Storage`], [`ExchangeError::Corrupt`].
    pub fn check(&self) -> Result<(), ExchangeError> {
        match current(self.storage, &self.location)? {
            Some((n, there)) if n == self.number && there.holder == self.record().holder => Ok(()),
            other => Err(ExchangeError::Lost {
                location: self.location.clone(),
                by: other.map_or_else(
                    || "nobody (it was deleted)".into(),
                    |(_, r)| r.holder_words(),
                ),
            }),
        }
    }

    /// Renews the lease (after [`check`](LearnerLease::check)ing that it is still ours).
    ///
    /// # Errors
    /// As [`LearnerLease::check`].
    pub fn renew(&self) -> Result<(), ExchangeError> {
        self.write(false)
    }

    /// Gives the lease up, so that the next learner takes the run at once (nothing is written
    /// when it is not ours any more).
    ///
    /// # Errors
    /// As [`LearnerLease::check`], except [`ExchangeError::Lost`].
    pub fn release(&self) -> Result<(), ExchangeError> {
        match self.write(true) {
            Err(ExchangeError::Lost { .. }) => Ok(()),
            other => other,
        }
    }

    fn write(&self, released: bool) -> Result<(), ExchangeError> {
        self.check()?;
        let bytes = {
            let mut r = self.record.lock().unwrap_or_else(|e| e.into_inner());
            r.renewals += 1;
            r.renewed_unix = now_unix();
            r.released = released;
            serde_json::to_vec_pretty(&*r).expect("a lease serializes")
        };
        Ok(self.storage.put(&RunDir::lease_key(self.number), &bytes)?)
    }
}

#[cfg(test)]
mod tests {
    use super::super::MemoryStorage;
    use super::*;

    /// A lease time that a loaded machine renews well within (a renewal every third of it).
    const SHORT: Duration = Duration::from_secs(1);

    #[test]
    fn a_second_learner_is_refused_naming_the_location_and_the_holder() {
        let s = MemoryStorage::new();
        let first = LearnerLease::acquire(&s, "s3://b/run", SHORT, &|_| {}).unwrap();
        let said = Mutex::new(Vec::new());
        let stop = std::sync::atomic::AtomicBool::new(false);
        let second = std::thread::scope(|scope| {
            // The first learner's heartbeat.
            scope.spawn(|| {
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    first.renew().unwrap();
                    std::thread::sleep(first.renew_every());
                }
            });
            let r = LearnerLease::acquire(&s, "s3://b/run", SHORT, &|l| {
                said.lock().unwrap().push(l.to_string())
            });
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
            r
        });
        let e = second.unwrap_err();
        assert!(matches!(e, ExchangeError::Held { .. }), "{e}");
        let msg = e.to_string();
        assert!(msg.contains("s3://b/run"), "{msg}");
        assert!(msg.contains(&first.record().holder), "{msg}");
        assert!(
            msg.contains(&format!("pid {}", std::process::id())),
            "{msg}"
        );
        let said = said.lock().unwrap();
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].contains("waiting up to 1.0 s"), "{said:?}");
        first.check().unwrap();
    }

    #[test]
    fn a_lease_no_longer_renewed_is_taken_over_and_its_old_holder_has_lost_the_run() {
        let s = MemoryStorage::new();
        // A learner killed with SIGKILL: it holds the lease and never renews it.
        let killed = LearnerLease::acquire(&s, "mem", SHORT, &|_| {}).unwrap();
        let said = Mutex::new(Vec::new());
        let next = LearnerLease::acquire(&s, "mem", SHORT, &|l| {
            said.lock().unwrap().push(l.to_string())
        })
        .unwrap();
        next.check().unwrap();
        let said = said.lock().unwrap();
        assert!(said.iter().any(|l| l.contains("took over")), "{said:?}");
        let e = killed.check().unwrap_err();
        assert!(matches!(e, ExchangeError::Lost { .. }), "{e}");
        assert!(e.to_string().contains(&next.record().holder), "{e}");
        assert!(killed.renew().is_err(), "a lost lease is not renewed");
        // Only the current lease is kept.
        assert_eq!(
            s.list(RunDir::LEASE_PREFIX).unwrap(),
            vec![RunDir::lease_key(1)]
        );
    }

    #[test]
    fn a_released_lease_is_taken_at_once() {
        let s = MemoryStorage::new();
        let long = Duration::from_secs(3600);
        let first = LearnerLease::acquire(&s, "mem", long, &|_| {}).unwrap();
        first.release().unwrap();
        let said = Mutex::new(Vec::new());
        let next = LearnerLease::acquire(&s, "mem", long, &|l| {
            said.lock().unwrap().push(l.to_string())
        })
        .unwrap();
        next.check().unwrap();
        let said = said.lock().unwrap();
        assert_eq!(said.len(), 1, "no wait, only the take-over: {said:?}");
        assert!(said[0].contains("(released)"), "{said:?}");
        assert!(first.check().is_err());
    }
}
