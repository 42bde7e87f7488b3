//! A Gomocup brain as an arena [`Player`].

use std::time::Duration;

use alphazero_arena::{Limits, MoveChoice, Player, PlayerError};
use alphazero_game::{Game, History, Side};
use alphazero_gomoku::{Gomoku, GomokuMove, Rule};

use crate::process::EngineProcess;

/// How to run an external Gomocup brain.
#[derive(Clone, Debug)]
pub struct GomocupClientConfig {
    /// Program and arguments, e.g. `["./pbrain-rapfi"]` or `["sh", "-c", "…"]`.
    pub command: Vec<String>,
    /// Name for tables and error messages.
    pub name: String,
    /// Turn time sent as `INFO timeout_turn` when [`Limits::movetime`] is not set (1 s).
    pub default_move_time: Duration,
    /// Extra time granted beyond the turn time before the brain is declared timed out (1 s).
    pub timeout_margin: Duration,
    /// Time allowed for `START` to be answered (10 s: brains load their files then).
    pub start_timeout: Duration,
    /// Extra `INFO` payloads sent after every `START` (after `INFO rule`), e.g. `MAX_DEPTH 2`
    /// or `MAX_NODE 1000` to hold Rapfi (and other brains with the Yixin-Board extensions)
    /// to a strength. Empty by default.
    pub info: Vec<String>,
}

impl GomocupClientConfig {
    /// A config for `command` with the defaults above; the name is the program's file name.
    pub fn new(command: Vec<String>) -> Self {
        let name = command
            .first()
            .map(|p| p.rsplit(['/', '\\']).next().unwrap_or(p).to_string())
            .unwrap_or_else(|| "gomocup".into());
        GomocupClientConfig {
            command,
            name,
            default_move_time: Duration::from_secs(1),
            timeout_margin: Duration::from_secs(1),
            start_timeout: Duration::from_secs(10),
            info: Vec::new(),
        }
    }
}

/// An external Gomocup brain behind [`Player<Gomoku>`].
///
/// The process is started on first use and restarted after any failure. Every game begins
/// with `START N` and `INFO rule R` (0 freestyle, 1 standard, 4 renju), then
/// `INFO <payload>` for each of [`GomocupClientConfig::info`]; every move begins with
/// `INFO timeout_turn`, `INFO timeout_match 0`, `INFO time_left 2147483647` (what Piskvork and
/// c-gomoku-cli send before every move, with c-gomoku-cli's values for no match clock), then
/// `TURN X,Y` when exactly one opponent move is new since the brain's last move, `BEGIN` on an
/// empty board, else `BOARD` with every stone in move order (`X,Y,1` own, `X,Y,2` opponent) and
/// `DONE`. `MESSAGE`, `DEBUG`, `UNKNOWN` and `ERROR` lines are skipped (the last `ERROR` is
/// quoted if the brain then times out); `SUGGEST X,Y` is answered with `PLAY X,Y`. The child
/// is killed on drop.
pub struct GomocupClient {
    config: GomocupClientConfig,
    process: Option<EngineProcess>,
    /// (size, rule) the brain was started with for this game; `None` = send START.
    started: Option<(usize, Rule)>,
    /// Moves the brain knows (the game's moves up to its last answer).
    known: Vec<GomokuMove>,
    /// Whether the brain's known game started from the empty board.
    known_from_empty: bool,
}

fn rule_code(rule: Rule) -> u32 {
    match rule {
        Rule::Freestyle => 0,
        Rule::Standard => 1,
        Rule::Renju => 4,
    }
}

impl GomocupClient {
    /// A client; the process starts on first use.
    pub fn new(config: GomocupClientConfig) -> Self {
        GomocupClient {
            config,
            process: None,
            started: None,
            known: Vec::new(),
            known_from_empty: true,
        }
    }

    fn process(&mut self) -> Result<&mut EngineProcess, PlayerError> {
        if self.process.as_ref().is_none_or(|p| p.broken) {
            self.process = None;
            self.started = None;
            self.process = Some(EngineProcess::spawn(
                &self.config.name,
                &self.config.command,
            )?);
        }
        Ok(self.process.as_mut().expect("just started"))
    }

    fn start(&mut self, size: usize, rule: Rule) -> Result<(), PlayerError> {
        let timeout = self.config.start_timeout;
        let info = self.config.info.clone();
        let p = self.process()?;
        p.send(&format!("START {size}"))?;
        let reply = p.recv_until(timeout, |l| {
            let w = l
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_ascii_uppercase();
            match w.as_str() {
                "OK" => Some(Ok(())),
                // Informational lines a brain may send at any time (Gomocup protocol).
                "MESSAGE" | "DEBUG" => None,
                "ERROR" | "UNKNOWN" => Some(Err(l.to_string())),
                // Anything else is not a Gomocup brain's answer (e.g. a program that echoes
                // its input): fail now instead of waiting for the start timeout.
                _ => Some(Err(format!("unexpected reply {l:?} (expected OK)"))),
            }
        })?;
        if let Err(e) = reply {
            return Err(p.error(format!("START {size} refused: {e}")));
        }
        p.send(&format!("INFO rule {}", rule_code(rule)))?;
        for payload in &info {
            p.send(&format!("INFO {payload}"))?;
        }
        self.started = Some((size, rule));
        self.known.clear();
        self.known_from_empty = true;
        Ok(())
    }

    /// The stones of `game` in move order with their colours (set-up stones first, black
    /// and white interleaved as well as the counts allow).
    fn stones(game: &History<Gomoku>) -> Vec<(GomokuMove, Side)> {
        let start = game.start();
        let n = start.size();
        let mut black = Vec::new();
        let mut white = Vec::new();
        for y in 0..n {
            for x in 0..n {
                match start.stone_at(x, y) {
                    Some(Side::First) => black.push(GomokuMove::new(x as u8, y as u8)),
                    Some(Side::Second) => white.push(GomokuMove::new(x as u8, y as u8)),
                    None => {}
                }
            }
        }
        let mut out = Vec::new();
        let (mut b, mut w) = (black.into_iter(), white.into_iter());
        loop {
            match (b.next(), w.next()) {
                (None, None) => break,
                (bb, ww) => {
                    out.extend(bb.map(|m| (m, Side::First)));
                    out.extend(ww.map(|m| (m, Side::Second)));
                }
            }
        }
        let mut pos = start.clone();
        for &mv in game.moves() {
            out.push((mv, pos.side_to_move()));
            pos.play_unchecked(mv);
        }
        out
    }
}

impl Player<Gomoku> for GomocupClient {
    fn name(&self) -> String {
        self.config.name.clone()
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        self.started = None;
        self.process().map(|_| ())
    }

    fn choose_move(
        &mut self,
        game: &History<Gomoku>,
        limits: &Limits,
    ) -> Result<MoveChoice<Gomoku>, PlayerError> {
        let pos = game.current();
        let (size, rule) = (pos.size(), pos.rule());
        if self.process.as_ref().is_none_or(|p| p.broken) || self.started != Some((size, rule)) {
            self.start(size, rule)?;
        }
        let movetime = limits.movetime.unwrap_or(self.config.default_move_time);
        let from_empty = game.start().stone_count() == 0;
        let moves = game.moves();
        let one_new = from_empty
            && self.known_from_empty
            && moves.len() == self.known.len() + 1
            && moves[..self.known.len()] == self.known[..];
        let me = pos.side_to_move();
        let mut lines = vec![
            format!("INFO timeout_turn {}", movetime.as_millis()),
            "INFO timeout_match 0".to_string(),
            "INFO time_left 2147483647".to_string(),
        ];
        if one_new {
            lines.push(format!("TURN {}", moves[moves.len() - 1].to_gomocup()));
        } else if from_empty && moves.is_empty() {
            lines.push("BEGIN".into());
        } else {
            lines.push("BOARD".into());
            for (mv, side) in Self::stones(game) {
                lines.push(format!(
                    "{},{}",
                    mv.to_gomocup(),
                    if side == me { 1 } else { 2 }
                ));
            }
            lines.push("DONE".into());
        }
        let timeout = movetime + self.config.timeout_margin;
        let name = self.config.name.clone();
        let p = self.process()?;
        for l in &lines {
            p.send(l)?;
        }
        let mut last_error = None;
        let mut messages = Vec::new();
        let text = loop {
            let got = p.recv_until(timeout, |l| {
                let w = l
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .to_ascii_uppercase();
                match w.as_str() {
                    "MESSAGE" | "DEBUG" | "UNKNOWN" | "ERROR" | "SUGGEST" => {
                        Some((w, l.to_string()))
                    }
                    _ => Some((String::new(), l.to_string())),
                }
            });
            let (kind, line) = match got {
                Ok(x) => x,
                Err(PlayerError::Timeout { player, elapsed_ms }) if last_error.is_some() => {
                    return Err(PlayerError::Failed {
                        player,
                        message: format!(
                            "no move after {elapsed_ms} ms; last error: {}",
                            last_error.unwrap_or_default()
                        ),
                    })
                }
                Err(e) => return Err(e),
            };
            match kind.as_str() {
                "" => break line,
                "ERROR" => last_error = Some(line),
                "MESSAGE" => messages.push(line["MESSAGE".len()..].trim().to_string()),
                "SUGGEST" => {
                    let mv = line["SUGGEST".len()..].trim().to_string();
                    p.send(&format!("PLAY {mv}"))?;
                }
                _ => {}
            }
        };
        let illegal = |reason: String| PlayerError::IllegalMove {
            player: name.clone(),
            text: text.clone(),
            reason,
        };
        let mv = match GomokuMove::parse_gomocup(&text) {
            Ok(m) => m,
            Err(e) => {
                p.broken = true;
                return Err(illegal(e.to_string()));
            }
        };
        if !pos.is_legal(mv) {
            p.broken = true;
            return Err(illegal(pos.illegal_reason(mv)));
        }
        self.known = moves.to_vec();
        self.known.push(mv);
        self.known_from_empty = from_empty;
        Ok(MoveChoice {
            mv,
            value: None,
            pv: vec![mv],
            info: messages.last().cloned().unwrap_or_default(),
        })
    }
}
