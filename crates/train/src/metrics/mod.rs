//! Per-iteration metrics: one JSON object per line in `metrics.jsonl`.
//!
//! The log is an object of the run's [`Storage`], rewritten atomically at every append; a
//! line torn by a crash of an older build (which appended in place) is cut off when the log
//! is opened again ([`MetricsLog::open`]), and a line that is no metrics
//! record (garbage written into the file) is moved to `metrics.jsonl.bad` there. Readers
//! ignore unknown fields and fill missing ones with defaults, so older logs stay readable as
//! fields are added. [`to_csv`] turns the same records into a CSV table (`metrics.csv`) for
//! spreadsheets and other tools.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::run_dir::{RunDir, SetAside};
use crate::storage::{Storage, StorageError};

mod table;

pub use table::to_csv;

/// An error reading or writing the metrics log.
#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    /// File system error on `path`.
    #[error("metrics file {path}")]
    Io {
        /// The metrics file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The log object could not be read or written.
    #[error("metrics object {key}")]
    Storage {
        /// The object's key, e.g. `metrics.jsonl`.
        key: String,
        /// The cause.
        #[source]
        source: StorageError,
    },
    /// A line is not a valid metrics record.
    #[error("metrics line {line} ({text:?}) is not a metrics record")]
    Parse {
        /// 1-based line number.
        line: usize,
        /// The line (up to 200 characters).
        text: String,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
    /// A record could not be serialised (a non-finite float is written as null, so this is
    /// not expected).
    #[error("cannot serialise metrics")]
    Serialize(#[source] serde_json::Error),
    /// The CSV table could not be written.
    #[error("cannot write the metrics table {path}")]
    Csv {
        /// The CSV file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: csv::Error,
    },
}

/// The result of a gating match, from the candidate's view.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GatingMetrics {
    /// Candidate wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Candidate losses.
    pub losses: u32,
    /// SPRT log-likelihood ratio at the end (0 when the SPRT is off).
    pub llr: f64,
    /// Whether the candidate became the champion.
    pub promoted: bool,
    /// The candidate's Elo over the champion, estimated with one win and one loss added to
    /// the games (so that a few games never give an unbounded figure); `None` in logs
    /// written before this field existed.
    pub elo: Option<f64>,
    /// Lower end of the 95% interval of `elo`.
    pub elo_lo: Option<f64>,
    /// Upper end of the 95% interval of `elo`.
    pub elo_hi: Option<f64>,
}

/// Agreement of the network with the Connect Four solver on a fixed slice of its test
/// positions (measured only, never trained on). Shares in [0, 1].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SolverMetrics {
    /// Positions measured.
    pub positions: u32,
    /// Share where the policy's most likely move is one of the solver's best (fastest win,
    /// slowest loss).
    pub policy_best: f64,
    /// Share where the policy's most likely move keeps the game-theoretic result (win, draw
    /// or loss) of the position.
    pub policy_keeps: f64,
    /// Share where the value has the sign of the solver's score.
    pub value_sign: f64,
}

/// The solver agreement of a network that knows nothing, on the training loop's 200
/// positions (the first 100 of each of the solver slice's sets): a uniformly random legal
/// move (`policy_best`, `policy_keeps`: the expected shares) and a value of random sign
/// (`value_sign`: half the decided positions; a value of 0, an untrained network's, agrees
/// on the 19 draws only, 9.5%). Computed from the solver's answers (a test checks them).
pub const SOLVER_CHANCE: SolverMetrics = SolverMetrics {
    positions: 200,
    policy_best: 0.243,
    policy_keeps: 0.613,
    value_sign: 0.4525,
};

/// The shipped `models/connect4.azc` on the same 200 positions: `alphazero eval connect4
/// --model models/connect4.azc --sims 0 --lines 100 --sets Test_L2_R1,Test_L2_R2` (best 71%
/// and 75%, keeps 91% and 86%, sign 76% and 56% on the two sets).
pub const SOLVER_SHIPPED: SolverMetrics = SolverMetrics {
    positions: 200,
    policy_best: 0.73,
    policy_keeps: 0.885,
    value_sign: 0.66,
};

/// How a learner's iteration took the games of actors (`alphazero learner`; absent for
/// `alphazero train`, which plays its own): what it took, what is left waiting (the backlog)
/// and what was too old to train on (`[actors] max_champion_lag`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ActorIntake {
    /// Published batches taken.
    pub batches: u64,
    /// The most champions any taken batch's champion was behind the current one (0: all
    /// played by the current champion; batches whose key names no champion are left out).
    pub champion_lag_max: u32,
    /// Published batches left waiting for the next iterations after this one's take.
    pub backlog_batches: u64,
    /// Their games.
    pub backlog_games: u64,
    /// Batches skipped by this iteration: played by a champion more than
    /// `actors.max_champion_lag` champions behind.
    pub stale_batches: u64,
    /// Their games (played, never trained on).
    pub stale_games: u64,
}

/// What one training iteration did. Times in seconds, rates per hour.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct IterationMetrics {
    /// The iteration (0-based).
    pub iteration: u32,
    /// Unix time at the end of the iteration (seconds).
    pub unix_time: f64,
    /// Seconds since the run started.
    pub elapsed_s: f64,
    /// CPU seconds (user + system, every thread) the trainer processes have used since the
    /// run started, over resumes: what a run costs on a shared machine, where wall time
    /// overstates it. A learner counts its own process, not its actors'. `0` in logs written
    /// before it existed.
    pub cpu_s: f64,
    /// Self-play games of this iteration.
    pub games: u64,
    /// Of these, games restarted from a position of an earlier game
    /// (`[selfplay.restarts]`; 0 in logs written before restarts existed).
    pub restarted_games: u64,
    /// Of these, games started from a random start position (`[selfplay.random_starts]`; 0
    /// in logs written before random starts existed).
    pub random_start_games: u64,
    /// Self-play games of the whole run.
    pub total_games: u64,
    /// Training positions added this iteration.
    pub positions: u64,
    /// Training positions added over the whole run.
    pub total_positions: u64,
    /// Positions in the replay buffer.
    pub buffer_fill: u64,
    /// Replay buffer capacity.
    pub buffer_capacity: u64,
    /// Optimizer steps this iteration.
    pub train_steps: u64,
    /// Learning rate used.
    pub lr: f64,
    /// Mean policy cross-entropy loss over the iteration's steps.
    pub policy_loss: f64,
    /// Mean value (MSE) loss.
    pub value_loss: f64,
    /// Mean total loss (policy + value + regularisation).
    pub total_loss: f64,
    /// Mean entropy of the network's policy (nats).
    pub policy_entropy: f64,
    /// Mean KL divergence of the policy before → after the iteration's training (nats).
    pub kl: f64,
    /// The gating match, if one was played.
    pub gating: Option<GatingMetrics>,
    /// The champion's id after this iteration.
    pub champion_id: u32,
    /// Estimated Elo of the champion relative to the first one: the sum of the gating
    /// estimates ([`GatingMetrics::elo`]) of its promotions; 0 without gating (nothing
    /// measures it then).
    pub elo: f64,
    /// Lower end of the 95% interval of `elo` (the promotions' variances added); `None`
    /// without gating.
    pub elo_lo: Option<f64>,
    /// Upper end of the 95% interval of `elo`.
    pub elo_hi: Option<f64>,
    /// Self-play throughput (games per hour).
    pub selfplay_games_per_hour: f64,
    /// Fraction in [0, 1] of self-play time spent in network evaluation; `None` where the
    /// self-play ran elsewhere (a learner's iteration takes actors' games).
    pub network_time_fraction: Option<f64>,
    /// Seconds of this iteration's self-play; `None` where the self-play ran elsewhere (a
    /// learner's: its games/hour are the games it took over the time since its last take).
    pub selfplay_s: Option<f64>,
    /// Seconds of this iteration's training.
    pub train_s: f64,
    /// Seconds of this iteration's gating match (0 without one).
    pub gating_s: f64,
    /// Connect Four solver agreement, on the iterations that measure it
    /// (`eval.solver_every`).
    pub solver: Option<SolverMetrics>,
    /// Mean cross-entropy of the opponent-reply head against the move played next (nats);
    /// `None` when it is not trained (`train.aux_policy_weight` 0) or no step was taken.
    pub aux_policy_loss: Option<f64>,
    /// Mean squared error per point of the ownership head; `None` when it is not trained
    /// (`train.aux_ownership_weight` 0) or no step was taken.
    pub aux_ownership_loss: Option<f64>,
    /// How a learner took its actors' games; `None` for games played by the iteration
    /// itself (`alphazero train`).
    pub intake: Option<ActorIntake>,
}

impl IterationMetrics {
    /// The iterations of training behind the network this iteration ended with: its
    /// `iteration + 1` (row `i` of a run's metrics ends iteration `i`, counted from 0, and
    /// its games are behind the networks of `i + 1` iterations: champion and snapshot).
    pub fn network_iterations(&self) -> u32 {
        self.iteration + 1
    }
}

/// Parses `metrics.jsonl` text (empty lines are skipped).
///
/// # Errors
/// [`MetricsError::Parse`] naming the 1-based line number.
pub fn parse_metrics(text: &str) -> Result<Vec<IterationMetrics>, MetricsError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let m = serde_json::from_str(line).map_err(|source| MetricsError::Parse {
            line: i + 1,
            text: line.chars().take(200).collect(),
            source,
        })?;
        out.push(m);
    }
    Ok(out)
}

/// One metrics record as a JSON line (with the trailing newline).
///
/// # Errors
/// [`MetricsError::Serialize`].
pub fn to_json_line(m: &IterationMetrics) -> Result<String, MetricsError> {
    let mut s = serde_json::to_string(m).map_err(MetricsError::Serialize)?;
    s.push('\n');
    Ok(s)
}

/// A line of `metrics.jsonl` that is no metrics record, set aside by [`MetricsLog::open`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadLine {
    /// 1-based line number in the file as it was.
    pub line: usize,
    /// The line (up to 200 characters).
    pub text: String,
    /// Why it does not parse.
    pub reason: String,
}

/// The append-only `metrics.jsonl` object of a run, kept in a [`Storage`].
///
/// Every append rewrites the object atomically through [`Storage::put`] (the log is small:
/// one line per iteration), so a crash leaves the old or the new log, never half a line;
/// a torn last line can still be met in a log written by older builds, which appended in
/// place.
#[derive(Debug, Clone)]
pub struct MetricsLog {
    key: String,
    torn_line: Option<String>,
    bad_lines: Vec<BadLine>,
}

impl MetricsLog {
    /// The key beside the log that receives lines set aside as not being metrics records
    /// (`metrics.jsonl.bad` for `metrics.jsonl`, [`SetAside::Bad`]).
    pub fn bad_key(&self) -> String {
        RunDir::set_aside(&self.key, SetAside::Bad)
    }

    /// Opens the log `key` of `storage` (an absent object is an empty log), cuts off a torn
    /// last line (one without a trailing newline), and moves every other line that is no
    /// metrics record to [`MetricsLog::bad_key`] (appended, each after a `# line N: reason`
    /// comment), so that one bad line never stops a run. The log is then rewritten
    /// atomically without them.
    ///
    /// # Errors
    /// [`MetricsError::Storage`] naming the key.
    pub fn open(storage: &dyn Storage, key: &str) -> Result<Self, MetricsError> {
        let mut log = MetricsLog {
            key: key.to_string(),
            torn_line: None,
            bad_lines: Vec::new(),
        };
        let bytes = log.bytes(storage)?;
        let mut keep = bytes.len();
        if !bytes.is_empty() && bytes.last() != Some(&b'\n') {
            keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            log.torn_line = Some(String::from_utf8_lossy(&bytes[keep..]).into_owned());
        }
        let text = String::from_utf8_lossy(&bytes[..keep]);
        let mut good = String::with_capacity(text.len());
        let mut bad = String::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<IterationMetrics>(line) {
                Ok(_) => {
                    good.push_str(line);
                    good.push('\n');
                }
                Err(e) => {
                    bad.push_str(&format!("# line {}: {e}\n{line}\n", i + 1));
                    log.bad_lines.push(BadLine {
                        line: i + 1,
                        text: line.chars().take(200).collect(),
                        reason: e.to_string(),
                    });
                }
            }
        }
        if !log.bad_lines.is_empty() {
            let bad_key = log.bad_key();
            let mut old = match storage.get(&bad_key) {
                Ok(b) => b,
                Err(StorageError::NotFound { .. }) => Vec::new(),
                Err(source) => {
                    return Err(MetricsError::Storage {
                        key: bad_key,
                        source,
                    })
                }
            };
            old.extend_from_slice(bad.as_bytes());
            put(storage, &bad_key, &old)?;
        }
        if !log.bad_lines.is_empty() || log.torn_line.is_some() {
            put(storage, key, good.as_bytes())?;
        }
        Ok(log)
    }

    /// The incomplete last line that [`MetricsLog::open`] cut off, if there was one (so
    /// that the caller can say that this iteration's figures were lost).
    pub fn torn_line(&self) -> Option<&str> {
        self.torn_line.as_deref()
    }

    /// The lines that [`MetricsLog::open`] moved to [`MetricsLog::bad_key`], in file order
    /// (so that the caller can warn about them).
    pub fn bad_lines(&self) -> &[BadLine] {
        &self.bad_lines
    }

    /// The log's key.
    pub fn key(&self) -> &str {
        &self.key
    }

    fn bytes(&self, storage: &dyn Storage) -> Result<Vec<u8>, MetricsError> {
        match storage.get(&self.key) {
            Ok(b) => Ok(b),
            Err(StorageError::NotFound { .. }) => Ok(Vec::new()),
            Err(source) => Err(MetricsError::Storage {
                key: self.key.clone(),
                source,
            }),
        }
    }

    /// Appends one record as a line (the log is rewritten atomically).
    ///
    /// # Errors
    /// [`MetricsError::Storage`], [`MetricsError::Serialize`].
    pub fn append(&self, storage: &dyn Storage, m: &IterationMetrics) -> Result<(), MetricsError> {
        let mut bytes = self.bytes(storage)?;
        bytes.extend_from_slice(to_json_line(m)?.as_bytes());
        put(storage, &self.key, &bytes)
    }

    /// Reads every record.
    ///
    /// # Errors
    /// [`MetricsError::Storage`], [`MetricsError::Parse`].
    pub fn read_all(&self, storage: &dyn Storage) -> Result<Vec<IterationMetrics>, MetricsError> {
        parse_metrics(&String::from_utf8_lossy(&self.bytes(storage)?))
    }

    /// Removes the lines of iterations `>= iteration` (left by iterations that a crash
    /// interrupted before they were committed, and that a resumed run does again) and
    /// returns how many were removed. Lines that do not parse are kept. The log is replaced
    /// atomically; nothing is written when no line is removed.
    ///
    /// # Errors
    /// [`MetricsError::Storage`] naming the key.
    pub fn drop_from(&self, storage: &dyn Storage, iteration: u32) -> Result<usize, MetricsError> {
        let bytes = self.bytes(storage)?;
        let text = String::from_utf8_lossy(&bytes);
        let mut kept = String::with_capacity(text.len());
        let mut removed = 0;
        for line in text.lines() {
            let it = serde_json::from_str::<serde_json::Value>(line)
                .ok()
                .and_then(|v| v.get("iteration").and_then(serde_json::Value::as_u64));
            if it.is_some_and(|i| i >= u64::from(iteration)) {
                removed += 1;
            } else {
                kept.push_str(line);
                kept.push('\n');
            }
        }
        if removed == 0 {
            return Ok(0);
        }
        put(storage, &self.key, kept.as_bytes())?;
        Ok(removed)
    }
}

/// [`Storage::put`] with the key in the error.
fn put(storage: &dyn Storage, key: &str, bytes: &[u8]) -> Result<(), MetricsError> {
    storage
        .put(key, bytes)
        .map_err(|source| MetricsError::Storage {
            key: key.to_string(),
            source,
        })
}

/// Reads a `metrics.jsonl` file.
///
/// # Errors
/// [`MetricsError::Io`] naming the path, [`MetricsError::Parse`] naming the line.
pub fn read_metrics(path: &Path) -> Result<Vec<IterationMetrics>, MetricsError> {
    let text = fs::read_to_string(path).map_err(|source| MetricsError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_metrics(&text)
}

#[cfg(test)]
pub(crate) fn example_metrics(n: u32) -> Vec<IterationMetrics> {
    (0..n)
        .map(|i| {
            let f = f64::from(i);
            IterationMetrics {
                iteration: i,
                elapsed_s: 60.0 * (f + 1.0),
                cpu_s: 45.0 * (f + 1.0),
                games: 100,
                total_games: 100 * u64::from(i + 1),
                positions: 2000,
                total_positions: 2000 * u64::from(i + 1),
                buffer_fill: (2000 * u64::from(i + 1)).min(10_000),
                buffer_capacity: 10_000,
                train_steps: 50,
                lr: 1e-3,
                policy_loss: 1.9 / (1.0 + 0.1 * f),
                value_loss: 0.9 / (1.0 + 0.2 * f),
                total_loss: 1.9 / (1.0 + 0.1 * f) + 0.9 / (1.0 + 0.2 * f),
                policy_entropy: 1.8 - 0.05 * f,
                kl: 0.02,
                gating: (i > 0).then(|| GatingMetrics {
                    wins: 40 + i,
                    draws: 20,
                    losses: 40 - i.min(40),
                    llr: 0.5 * f,
                    promoted: i % 2 == 0,
                    elo: Some(7.0 * f),
                    elo_lo: Some(7.0 * f - 60.0),
                    elo_hi: Some(7.0 * f + 60.0),
                }),
                champion_id: i / 2,
                elo: 30.0 * f,
                elo_lo: Some(30.0 * f - 40.0),
                elo_hi: Some(30.0 * f + 40.0),
                selfplay_games_per_hour: 6000.0 + 100.0 * f,
                network_time_fraction: Some(0.7),
                selfplay_s: Some(40.0),
                train_s: 15.0,
                gating_s: 5.0,
                solver: (i % 2 == 0).then_some(SolverMetrics {
                    positions: 200,
                    policy_best: 0.3 + 0.05 * f,
                    policy_keeps: 0.5 + 0.04 * f,
                    value_sign: 0.4 + 0.03 * f,
                }),
                ..Default::default()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    /// The chance figures the iteration legend and `solver.png` show are those of the
    /// training loop's positions: a random legal move's expected shares, half the decided
    /// positions for a random sign.
    #[test]
    fn solver_chance_is_that_of_the_slices_positions() {
        use alphazero_registry::connect4_yardstick::{
            default_testdata_dir, SolverSlice, SLICE_SETS,
        };
        let slice = SolverSlice::load(&default_testdata_dir(), &SLICE_SETS, 100).unwrap();
        let n = slice.positions.len() as f64;
        let (mut best, mut keeps, mut decided) = (0.0, 0.0, 0.0);
        for (t, scores) in &slice.positions {
            let legal: Vec<i32> = scores.iter().flatten().copied().collect();
            let top = *legal.iter().max().unwrap();
            let share = |f: &dyn Fn(i32) -> bool| {
                legal.iter().filter(|&&s| f(s)).count() as f64 / legal.len() as f64
            };
            best += share(&|s| s == top);
            keeps += share(&|s| s.signum() == top.signum());
            decided += f64::from(u8::from(t.score != 0));
        }
        let c = super::SOLVER_CHANCE;
        assert_eq!(f64::from(c.positions), n);
        assert!((c.policy_best - best / n).abs() < 0.001, "{}", best / n);
        assert!((c.policy_keeps - keeps / n).abs() < 0.001, "{}", keeps / n);
        assert!(
            (c.value_sign - decided / n / 2.0).abs() < 0.001,
            "{}",
            decided / n
        );
    }

    use super::*;

    use crate::storage::MemoryStorage;

    #[test]
    fn appended_metrics_read_back_equal() {
        let st = MemoryStorage::new();
        let log = MetricsLog::open(&st, "metrics.jsonl").unwrap();
        let ms = example_metrics(4);
        for m in &ms {
            log.append(&st, m).unwrap();
        }
        assert_eq!(log.read_all(&st).unwrap(), ms);
        let text = String::from_utf8(st.get("metrics.jsonl").unwrap()).unwrap();
        assert_eq!(text.lines().count(), 4);
    }

    #[test]
    fn drop_from_removes_uncommitted_iterations_and_keeps_the_rest() {
        let st = MemoryStorage::new();
        let log = MetricsLog::open(&st, "metrics.jsonl").unwrap();
        let ms = example_metrics(4);
        for m in &ms {
            log.append(&st, m).unwrap();
        }
        assert_eq!(log.drop_from(&st, 4).unwrap(), 0);
        assert_eq!(log.drop_from(&st, 2).unwrap(), 2);
        assert_eq!(log.read_all(&st).unwrap(), ms[..2].to_vec());
        log.append(&st, &ms[2]).unwrap();
        assert_eq!(log.read_all(&st).unwrap(), ms[..3].to_vec());
        assert_eq!(st.list("").unwrap(), vec!["metrics.jsonl"]);
    }

    #[test]
    fn torn_last_line_is_cut_at_open() {
        let st = MemoryStorage::new();
        let ms = example_metrics(2);
        let mut text = to_json_line(&ms[0]).unwrap();
        text.push_str(&to_json_line(&ms[1]).unwrap()[..20]);
        st.put("metrics.jsonl", text.as_bytes()).unwrap();
        let log = MetricsLog::open(&st, "metrics.jsonl").unwrap();
        assert_eq!(log.read_all(&st).unwrap(), vec![ms[0].clone()]);
        let torn = &to_json_line(&ms[1]).unwrap()[..20];
        assert_eq!(log.torn_line(), Some(torn), "the cut line is reported");
        assert_eq!(
            MetricsLog::open(&st, "metrics.jsonl").unwrap().torn_line(),
            None
        );
        log.append(&st, &ms[1]).unwrap();
        assert_eq!(log.read_all(&st).unwrap(), ms);
    }

    #[test]
    fn garbage_line_in_the_middle_of_metrics_is_set_aside_and_the_log_resumes() {
        // Regression: one garbage line made the run unresumable.
        let st = MemoryStorage::new();
        let ms = example_metrics(3);
        let text = format!(
            "{}this is not JSON\n{}{{\"iteration\": \"x\"}}\n{}",
            to_json_line(&ms[0]).unwrap(),
            to_json_line(&ms[1]).unwrap(),
            to_json_line(&ms[2]).unwrap()
        );
        st.put("metrics.jsonl", text.as_bytes()).unwrap();
        let log = MetricsLog::open(&st, "metrics.jsonl").unwrap();
        let lines: Vec<usize> = log.bad_lines().iter().map(|b| b.line).collect();
        assert_eq!(lines, vec![2, 4]);
        assert_eq!(log.bad_lines()[0].text, "this is not JSON");
        assert_eq!(
            log.read_all(&st).unwrap(),
            ms,
            "the good lines are kept in order"
        );
        let bad = String::from_utf8(st.get(&log.bad_key()).unwrap()).unwrap();
        assert!(
            bad.contains("# line 2: ") && bad.contains("\nthis is not JSON\n"),
            "{bad}"
        );
        assert!(bad.contains("{\"iteration\": \"x\"}"), "{bad}");
        // The log takes new lines, and opening it again finds nothing more to set aside.
        log.append(&st, &example_metrics(4)[3]).unwrap();
        assert_eq!(log.read_all(&st).unwrap().len(), 4);
        let again = MetricsLog::open(&st, "metrics.jsonl").unwrap();
        assert!(again.bad_lines().is_empty());
        assert_eq!(st.get(&again.bad_key()).unwrap(), bad.as_bytes());
    }

    #[test]
    fn metrics_csv_has_a_header_and_one_row_per_record() {
        let ms = example_metrics(3);
        let text = String::from_utf8(to_csv(&ms, Path::new("metrics.csv")).unwrap()).unwrap();
        let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
        assert_eq!(rows.len(), 4, "{text}");
        let header = &rows[0];
        assert!(rows.iter().all(|r| r.len() == header.len()), "{text}");
        let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
        for (m, row) in ms.iter().zip(&rows[1..]) {
            assert_eq!(row[col("iteration")].parse::<u32>().unwrap(), m.iteration);
            assert_eq!(
                row[col("total_games")].parse::<u64>().unwrap(),
                m.total_games
            );
            let hours: f64 = row[col("hours")].parse().unwrap();
            assert!((hours - m.elapsed_s / 3600.0).abs() < 1e-12);
            let cpu_hours: f64 = row[col("cpu_hours")].parse().unwrap();
            assert!((cpu_hours - m.cpu_s / 3600.0).abs() < 1e-12);
            assert_eq!(
                row[col("policy_loss")].parse::<f64>().unwrap(),
                m.policy_loss
            );
            match &m.gating {
                Some(g) => assert_eq!(row[col("gating_wins")].parse::<u32>().unwrap(), g.wins),
                None => assert_eq!(row[col("gating_wins")], ""),
            }
            match &m.solver {
                Some(s) => assert_eq!(
                    row[col("solver_policy_best")].parse::<f64>().unwrap(),
                    s.policy_best
                ),
                None => assert_eq!(row[col("solver_policy_best")], ""),
            }
        }
    }

    #[test]
    fn csv_leaves_losses_of_untrained_iterations_and_unmeasured_elo_empty() {
        let mut ms = example_metrics(2);
        ms[0].train_steps = 0;
        ms[0].policy_loss = 0.0;
        ms[1].elo_lo = None;
        ms[1].elo_hi = None;
        let text = String::from_utf8(to_csv(&ms, Path::new("metrics.csv")).unwrap()).unwrap();
        let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
        let col = |name: &str| rows[0].iter().position(|h| *h == name).unwrap();
        for name in [
            "policy_loss",
            "value_loss",
            "total_loss",
            "policy_entropy",
            "kl",
        ] {
            assert_eq!(
                rows[1][col(name)],
                "",
                "{name} of an iteration without steps: {text}"
            );
            assert_ne!(
                rows[2][col(name)],
                "",
                "{name} of a trained iteration: {text}"
            );
        }
        assert_ne!(rows[1][col("elo")], "", "{text}");
        assert_eq!(
            rows[2][col("elo")],
            "",
            "elo without an interval is unmeasured: {text}"
        );
    }

    #[test]
    fn bad_line_is_reported_with_its_number() {
        let good = to_json_line(&example_metrics(1)[0]).unwrap();
        let text = format!("{good}\n{{\"iteration\": \"x\"}}\n");
        match parse_metrics(&text) {
            Err(MetricsError::Parse { line, .. }) => assert_eq!(line, 3),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn unknown_and_missing_fields_are_tolerated() {
        let ms = parse_metrics("{\"iteration\": 3, \"future_field\": 1}\n").unwrap();
        assert_eq!(ms[0].iteration, 3);
        assert_eq!(ms[0].gating, None);
    }

    #[test]
    fn unwritable_log_is_a_storage_error_naming_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let st = crate::storage::LocalStorage::open(dir.path()).unwrap();
        st.put("file", b"x").unwrap();
        let log = MetricsLog::open(&st, "file/metrics.jsonl").unwrap();
        match log.append(&st, &example_metrics(1)[0]) {
            Err(e @ MetricsError::Storage { .. }) => {
                assert!(e.to_string().contains("file/metrics.jsonl"), "{e}")
            }
            other => panic!("{other:?}"),
        }
    }
}
