//! A child engine process: line I/O with a reader thread and timeouts; killed on drop.

use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use alphazero_arena::PlayerError;

use crate::lines::{read_line_any, ReadLine};
use crate::MAX_LINE_BYTES;

/// A running engine. Lines from its stdout arrive through a channel filled by a reader
/// thread, so every read has a deadline.
pub(crate) struct EngineProcess {
    name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Option<String>>,
    /// Set once the engine failed (crash, timeout, garbage): it must be restarted.
    pub broken: bool,
}

impl EngineProcess {
    /// Spawns `command[0]` with the other elements as arguments (stderr discarded).
    pub fn spawn(name: &str, command: &[String]) -> Result<Self, PlayerError> {
        let failed = |message: String| PlayerError::Failed {
            player: name.to_string(),
            message,
        };
        let (program, args) = command
            .split_first()
            .ok_or_else(|| failed("empty engine command".into()))?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| failed(format!("cannot start {program:?}: {e}")))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| failed("no stdout pipe".into()))?;
        let stdin = child.stdin.take();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            let mut line = String::new();
            // A line over the limit arrives as its first bytes (memory stays bounded; such
            // a line is garbage to the client anyway).
            while let Ok(ReadLine::Line | ReadLine::TooLong(_)) =
                read_line_any(&mut r, &mut line, MAX_LINE_BYTES)
            {
                if tx.send(Some(line.clone())).is_err() {
                    return;
                }
            }
            let _ = tx.send(None);
        });
        Ok(EngineProcess {
            name: name.to_string(),
            child,
            stdin,
            lines: rx,
            broken: false,
        })
    }

    fn failed(&mut self, message: String) -> PlayerError {
        self.broken = true;
        PlayerError::Failed {
            player: self.name.clone(),
            message,
        }
    }

    /// Sends one line (LF-terminated) and flushes.
    pub fn send(&mut self, line: &str) -> Result<(), PlayerError> {
        let r = match self.stdin.as_mut() {
            Some(s) => writeln!(s, "{line}").and_then(|()| s.flush()),
            None => Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "stdin closed",
            )),
        };
        r.map_err(|e| self.failed(format!("cannot send {line:?}: {e} (engine exited?)")))
    }

    /// The next non-empty line, waiting until `deadline`.
    ///
    /// # Errors
    /// `Timeout` when nothing comes in time, `Failed` when the engine closed its output.
    pub fn recv(&mut self, deadline: Instant, started: Instant) -> Result<String, PlayerError> {
        loop {
            let wait = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(wait) {
                Ok(Some(l)) => {
                    let l = l.trim();
                    if !l.is_empty() {
                        return Ok(l.to_string());
                    }
                }
                Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                    let status = self
                        .child
                        .try_wait()
                        .ok()
                        .flatten()
                        .map(|s| format!(" ({s})"))
                        .unwrap_or_default();
                    return Err(self.failed(format!("engine closed its output{status}")));
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.broken = true;
                    return Err(PlayerError::Timeout {
                        player: self.name.clone(),
                        elapsed_ms: started.elapsed().as_millis() as u64,
                    });
                }
            }
        }
    }

    /// Reads lines until `accept` returns `Some`, skipping the others.
    pub fn recv_until<T>(
        &mut self,
        timeout: Duration,
        mut accept: impl FnMut(&str) -> Option<T>,
    ) -> Result<T, PlayerError> {
        let started = Instant::now();
        let deadline = started + timeout;
        loop {
            let l = self.recv(deadline, started)?;
            if let Some(t) = accept(&l) {
                return Ok(t);
            }
        }
    }

    /// A `Failed` error for this engine (and marks it broken).
    pub fn error(&mut self, message: String) -> PlayerError {
        self.failed(message)
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
