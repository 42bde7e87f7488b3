//! Per-iteration metrics: one JSON object per line in `metrics.jsonl`.
//!
//! Lines are appended whole with a single write and synced; a line torn by a crash is cut
//! off when the log is opened again ([`MetricsLog::open`]). Readers ignore unknown fields and
//! fill missing ones with defaults, so older logs stay readable as fields are added.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

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
    /// Self-play games of this iteration.
    pub games: u64,
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
    /// Estimated Elo of the champion (relative to the first one).
    pub elo: f64,
    /// Self-play throughput (games per hour).
    pub selfplay_games_per_hour: f64,
    /// Fraction in [0, 1] of self-play time spent in network evaluation.
    pub network_time_fraction: f64,
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

/// An append-only `metrics.jsonl` file.
#[derive(Debug, Clone)]
pub struct MetricsLog {
    path: PathBuf,
    torn_line: Option<String>,
}

impl MetricsLog {
    /// Opens (creating it if missing) the log at `path` and cuts off a torn last line (one
    /// without a trailing newline, left by a crash during an append).
    ///
    /// # Errors
    /// [`MetricsError::Io`] naming the path.
    pub fn open(path: impl Into<PathBuf>) -> Result<Self, MetricsError> {
        let path = path.into();
        let io_err = |source| MetricsError::Io {
            path: path.clone(),
            source,
        };
        let f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io_err)?;
        let bytes = fs::read(&path).map_err(io_err)?;
        let mut torn_line = None;
        if !bytes.is_empty() && bytes.last() != Some(&b'\n') {
            let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            torn_line = Some(String::from_utf8_lossy(&bytes[keep..]).into_owned());
            f.set_len(keep as u64).map_err(io_err)?;
            f.sync_all().map_err(io_err)?;
        }
        Ok(MetricsLog { path, torn_line })
    }

    /// The incomplete last line that [`MetricsLog::open`] cut off, if there was one (so
    /// that the caller can say that this iteration's figures were lost).
    pub fn torn_line(&self) -> Option<&str> {
        self.torn_line.as_deref()
    }

    /// The file path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record as a line and syncs it to disk.
    ///
    /// # Errors
    /// [`MetricsError::Io`], [`MetricsError::Serialize`].
    pub fn append(&self, m: &IterationMetrics) -> Result<(), MetricsError> {
        let line = to_json_line(m)?;
        let io_err = |source| MetricsError::Io {
            path: self.path.clone(),
            source,
        };
        let mut f = OpenOptions::new()
            .append(true)
            .open(&self.path)
            .map_err(io_err)?;
        f.write_all(line.as_bytes()).map_err(io_err)?;
        f.sync_data().map_err(io_err)
    }

    /// Reads every record.
    ///
    /// # Errors
    /// [`MetricsError::Io`], [`MetricsError::Parse`].
    pub fn read_all(&self) -> Result<Vec<IterationMetrics>, MetricsError> {
        read_metrics(&self.path)
    }

    /// Removes the lines of iterations `>= iteration` (left by iterations that a crash
    /// interrupted before they were committed, and that a resumed run does again) and
    /// returns how many were removed. Lines that do not parse are kept. The file is
    /// replaced atomically (temporary file, fsync, rename); nothing is written when no line
    /// is removed.
    ///
    /// # Errors
    /// [`MetricsError::Io`] naming the path.
    pub fn drop_from(&self, iteration: u32) -> Result<usize, MetricsError> {
        let io_err = |source| MetricsError::Io {
            path: self.path.clone(),
            source,
        };
        let text = fs::read_to_string(&self.path).map_err(io_err)?;
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
        let name = self
            .path
            .file_name()
            .map_or_else(|| "metrics.jsonl".into(), |n| n.to_string_lossy());
        let tmp = self
            .path
            .with_file_name(format!(".{name}.tmp-{}-metrics", std::process::id()));
        let result = (|| {
            let mut f = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&tmp)?;
            f.write_all(kept.as_bytes())?;
            f.sync_all()?;
            drop(f);
            fs::rename(&tmp, &self.path)?;
            if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
                fs::File::open(dir)?.sync_all()?;
            }
            Ok(())
        })();
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        result.map_err(io_err)?;
        Ok(removed)
    }
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
                }),
                champion_id: i / 2,
                elo: 30.0 * f,
                selfplay_games_per_hour: 6000.0,
                network_time_fraction: 0.7,
                ..Default::default()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appended_metrics_read_back_equal() {
        let dir = tempfile::tempdir().unwrap();
        let log = MetricsLog::open(dir.path().join("metrics.jsonl")).unwrap();
        let ms = example_metrics(4);
        for m in &ms {
            log.append(m).unwrap();
        }
        assert_eq!(log.read_all().unwrap(), ms);
        let text = fs::read_to_string(log.path()).unwrap();
        assert_eq!(text.lines().count(), 4);
    }

    #[test]
    fn drop_from_removes_uncommitted_iterations_and_keeps_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let log = MetricsLog::open(dir.path().join("metrics.jsonl")).unwrap();
        let ms = example_metrics(4);
        for m in &ms {
            log.append(m).unwrap();
        }
        assert_eq!(log.drop_from(4).unwrap(), 0);
        assert_eq!(log.drop_from(2).unwrap(), 2);
        assert_eq!(log.read_all().unwrap(), ms[..2].to_vec());
        log.append(&ms[2]).unwrap();
        assert_eq!(log.read_all().unwrap(), ms[..3].to_vec());
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, vec!["metrics.jsonl"]);
    }

    #[test]
    fn torn_last_line_is_cut_at_open() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("metrics.jsonl");
        let ms = example_metrics(2);
        let mut text = to_json_line(&ms[0]).unwrap();
        text.push_str(&to_json_line(&ms[1]).unwrap()[..20]);
        fs::write(&path, text).unwrap();
        let log = MetricsLog::open(&path).unwrap();
        assert_eq!(log.read_all().unwrap(), vec![ms[0].clone()]);
        let torn = &to_json_line(&ms[1]).unwrap()[..20];
        assert_eq!(log.torn_line(), Some(torn), "the cut line is reported");
        assert_eq!(MetricsLog::open(&path).unwrap().torn_line(), None);
        log.append(&ms[1]).unwrap();
        assert_eq!(log.read_all().unwrap(), ms);
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
    fn unwritable_log_path_is_an_io_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        fs::write(&file, b"x").unwrap();
        match MetricsLog::open(file.join("metrics.jsonl")) {
            Err(e @ MetricsError::Io { .. }) => {
                assert!(e.to_string().contains("file/metrics.jsonl"))
            }
            other => panic!("{other:?}"),
        }
    }
}
