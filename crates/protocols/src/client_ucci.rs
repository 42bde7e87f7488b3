//! A UCCI / UCI Xiangqi engine as an arena [`Player`].

use std::time::Duration;

use alphazero_arena::{Limits, MoveChoice, Player, PlayerError};
use alphazero_game::{Game, History};
use alphazero_xiangqi::{Move, Xiangqi};

use crate::cp_to_value;
use crate::process::EngineProcess;
use crate::ucci::{format_move, parse_move, Dialect, Notation};

/// How to run an external UCCI / UCI engine.
#[derive(Clone, Debug)]
pub struct UcciClientConfig {
    /// Program and arguments, e.g. `["./pikafish"]`.
    pub command: Vec<String>,
    /// Name for tables and error messages.
    pub name: String,
    /// Handshake: `ucci` (ElephantEye) or `uci` (Pikafish, Fairy-Stockfish).
    pub dialect: Dialect,
    /// Move notation of the engine: [`Notation::Iccs`] (ranks 0–9, Pikafish, ElephantEye) or
    /// [`Notation::FairyRanks`] (ranks 1–10, Fairy-Stockfish); `None` (the default): decided
    /// at the handshake, see [`UcciClient`].
    pub notation: Option<Notation>,
    /// Options sent after the handshake as `(name, value)`; e.g. `("UCI_Variant",
    /// "xiangqi")` for Fairy-Stockfish, `("Threads", "1")`.
    pub options: Vec<(String, String)>,
    /// Move time used when [`Limits`] has no limit at all (1 s).
    pub default_move_time: Duration,
    /// Extra time beyond the move time before the engine is declared timed out (1 s).
    pub timeout_margin: Duration,
    /// Time to wait for a move under a depth or node limit only (60 s).
    pub max_wait: Duration,
    /// Time allowed for the handshake and `isready` (10 s).
    pub handshake_timeout: Duration,
}

impl UcciClientConfig {
    /// A config for `command` speaking `dialect`, its notation decided at the handshake, and
    /// the defaults above.
    pub fn new(command: Vec<String>, dialect: Dialect) -> Self {
        let name = command
            .first()
            .map(|p| p.rsplit(['/', '\\']).next().unwrap_or(p).to_string())
            .unwrap_or_else(|| "ucci".into());
        UcciClientConfig {
            command,
            name,
            dialect,
            notation: None,
            options: Vec::new(),
            default_move_time: Duration::from_secs(1),
            timeout_margin: Duration::from_secs(1),
            max_wait: Duration::from_secs(60),
            handshake_timeout: Duration::from_secs(10),
        }
    }
}

/// An external UCCI/UCI Xiangqi engine behind [`Player<Xiangqi>`].
///
/// Started on first use (and after any failure): `ucci`→`ucciok` (then `setoption
/// usemillisec true`) or `uci`→`uciok`, the configured options, `isready`→`readyok`.
///
/// Notation, unless [`UcciClientConfig::notation`] says: UCCI engines get ICCS (ranks 0–9);
/// a UCI engine that declares a `UCI_Variant` option offering `xiangqi` (Fairy-Stockfish,
/// this project's engine) gets ranks 1–10 and `setoption name UCI_Variant value xiangqi`
/// (unless the options set `UCI_Variant`), other UCI engines (Pikafish) ICCS; an option
/// `UCI_RankBase` 0 or 1 among the configured ones decides instead. Each
/// move sends `position fen <start FEN> moves …` and one `go`: UCI `go [depth D] [nodes N]
/// [movetime T]`; UCCI allows one mode, so `go depth D`, else `go nodes N`, else `go time T
/// movestogo 1`. `info` lines are read for the last score and PV; `bestmove M` ends the
/// move, `nobestmove` / `bestmove (none)` is an error. A crash, a broken pipe, an
/// unparsable or illegal move, or no answer within the move time plus
/// [`UcciClientConfig::timeout_margin`] is a [`PlayerError`]. The child is killed on drop.
pub struct UcciClient {
    config: UcciClientConfig,
    process: Option<EngineProcess>,
    /// The notation of the running process (decided at its handshake).
    notation: Notation,
}

impl UcciClient {
    /// A client; the process starts on first use.
    pub fn new(config: UcciClientConfig) -> Self {
        UcciClient {
            notation: config.notation.unwrap_or_default(),
            config,
            process: None,
        }
    }

    fn process(&mut self) -> Result<&mut EngineProcess, PlayerError> {
        if self.process.as_ref().is_none_or(|p| p.broken) {
            self.process = None;
            let mut p = EngineProcess::spawn(&self.config.name, &self.config.command)?;
            let t = self.config.handshake_timeout;
            let (hello, ok) = match self.config.dialect {
                Dialect::Ucci => ("ucci", "ucciok"),
                Dialect::Uci => ("uci", "uciok"),
            };
            p.send(hello)?;
            let mut offers_xiangqi_variant = false;
            p.recv_until(t, |l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                if w.starts_with(&["option", "name", "UCI_Variant"]) && w.contains(&"xiangqi") {
                    offers_xiangqi_variant = true;
                }
                (l == ok).then_some(())
            })?;
            if self.config.dialect == Dialect::Ucci {
                p.send("setoption usemillisec true")?;
            }
            let option = |name: &str| {
                self.config
                    .options
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(name))
                    .map(|(_, v)| v.trim())
            };
            let uci = self.config.dialect == Dialect::Uci;
            self.notation = match (self.config.notation, option("UCI_RankBase")) {
                (Some(n), _) => n,
                (None, Some("0")) => Notation::Iccs,
                (None, Some("1")) => Notation::FairyRanks,
                _ if uci && offers_xiangqi_variant => Notation::FairyRanks,
                _ => Notation::Iccs,
            };
            if uci && offers_xiangqi_variant && option("UCI_Variant").is_none() {
                p.send("setoption name UCI_Variant value xiangqi")?;
            }
            for (k, v) in &self.config.options {
                match self.config.dialect {
                    Dialect::Ucci => p.send(&format!("setoption {k} {v}"))?,
                    Dialect::Uci => p.send(&format!("setoption name {k} value {v}"))?,
                }
            }
            Self::sync(&mut p, t)?;
            self.process = Some(p);
        }
        Ok(self.process.as_mut().expect("just started"))
    }

    fn sync(p: &mut EngineProcess, t: Duration) -> Result<(), PlayerError> {
        p.send("isready")?;
        p.recv_until(t, |l| (l == "readyok").then_some(()))
    }
}

/// The last `score` and `pv` of an `info` line, if present.
fn parse_info(line: &str, notation: Notation) -> (Option<f32>, Option<Vec<Move>>) {
    let t: Vec<&str> = line.split_whitespace().collect();
    let mut value = None;
    let mut pv = None;
    let mut i = 1;
    while i < t.len() {
        match t[i] {
            "score" => {
                let (kind, num) = match t.get(i + 1) {
                    Some(&"cp") | Some(&"mate") => (t[i + 1], t.get(i + 2)),
                    _ => ("cp", t.get(i + 1)),
                };
                if let Some(n) = num.and_then(|n| n.parse::<i32>().ok()) {
                    value = Some(if kind == "mate" {
                        n.signum() as f32
                    } else {
                        cp_to_value(n)
                    });
                }
                i += 1;
            }
            "pv" => {
                pv = Some(
                    t[i + 1..]
                        .iter()
                        .map_while(|m| parse_move(m, notation).ok())
                        .collect(),
                );
                break;
            }
            _ => i += 1,
        }
    }
    (value, pv)
}

impl Player<Xiangqi> for UcciClient {
    fn name(&self) -> String {
        self.config.name.clone()
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        let t = self.config.handshake_timeout;
        let uci = self.config.dialect == Dialect::Uci;
        let p = self.process()?;
        if uci {
            p.send("ucinewgame")?;
            Self::sync(p, t)?;
        }
        Ok(())
    }

    fn choose_move(
        &mut self,
        game: &History<Xiangqi>,
        limits: &Limits,
    ) -> Result<MoveChoice<Xiangqi>, PlayerError> {
        // The handshake decides the notation.
        self.process()?;
        let n = self.notation;
        let mut position = format!("position fen {}", game.start().to_fen());
        if !game.moves().is_empty() {
            position.push_str(" moves");
            for &m in game.moves() {
                position.push(' ');
                position.push_str(&format_move(m, n));
            }
        }
        let movetime = match (limits.movetime, limits.depth, limits.simulations) {
            (None, None, None) => Some(self.config.default_move_time),
            (mt, _, _) => mt,
        };
        let go = match self.config.dialect {
            Dialect::Uci => {
                let mut g = "go".to_string();
                if let Some(d) = limits.depth {
                    g.push_str(&format!(" depth {d}"));
                }
                if let Some(s) = limits.simulations {
                    g.push_str(&format!(" nodes {s}"));
                }
                if let Some(t) = movetime {
                    g.push_str(&format!(" movetime {}", t.as_millis()));
                }
                g
            }
            Dialect::Ucci => match (limits.depth, limits.simulations, movetime) {
                (Some(d), _, _) => format!("go depth {d}"),
                (None, Some(s), _) => format!("go nodes {s}"),
                (None, None, t) => format!(
                    "go time {} movestogo 1",
                    t.unwrap_or(self.config.default_move_time).as_millis()
                ),
            },
        };
        let timeout = match movetime {
            Some(t) => t + self.config.timeout_margin,
            None => self.config.max_wait,
        };
        let name = self.config.name.clone();
        let p = self.process()?;
        p.send(&position)?;
        p.send(&go)?;
        let mut value = None;
        let mut pv = Vec::new();
        let mut last_info = String::new();
        let text = p.recv_until(timeout, |l| {
            let w = l.split_whitespace().next().unwrap_or("");
            match w {
                "info" => {
                    let (v, m) = parse_info(l, n);
                    value = v.or(value);
                    if let Some(m) = m {
                        pv = m;
                    }
                    last_info = l.to_string();
                    None
                }
                "bestmove" | "nobestmove" => Some(l.to_string()),
                _ => None,
            }
        })?;
        let mut words = text.split_whitespace();
        let first = words.next().unwrap_or("");
        let mtext = words.next().unwrap_or("").to_string();
        let illegal = |reason: String| PlayerError::IllegalMove {
            player: name.clone(),
            text: text.clone(),
            reason,
        };
        if first == "nobestmove" || mtext == "(none)" || mtext.is_empty() {
            return Err(illegal(
                "the engine reports no move in a position that has legal moves".into(),
            ));
        }
        let mv = match parse_move(&mtext, n) {
            Ok(m) => m,
            Err(e) => {
                p.broken = true;
                return Err(illegal(e.to_string()));
            }
        };
        let pos = game.current();
        if !pos.is_legal(mv) {
            p.broken = true;
            return Err(illegal(pos.illegal_reason(mv)));
        }
        if pv.first() != Some(&mv) {
            pv = vec![mv];
        }
        Ok(MoveChoice {
            mv,
            value,
            pv,
            info: last_info,
        })
    }
}
