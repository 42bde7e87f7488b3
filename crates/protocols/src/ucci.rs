//! The UCCI / UCI engine for Xiangqi.
//!
//! # A rejected `position` leaves no position
//! `position startpos|fen FEN [moves …]` is all or nothing. When the FEN is bad, a move does
//! not parse or a move is illegal, the engine reports it as one line
//! `info string error: position move 3 of 4 "h2e3" is illegal: <reason>; no position is set
//! until the next position command` (the move as the GUI wrote it, counted from 1 among the
//! moves after `moves`), and it keeps **no** position: neither the previous one nor the
//! moves before the bad one are searched. A `go` before the next successful `position` (or
//! `ucinewgame`, which sets the start position) answers
//! `info string error: no position: …` and `nobestmove` (UCCI) / `bestmove (none)` (UCI) at
//! once, also for `go infinite` / `go ponder`, so a GUI that sent a position the engine could
//! not follow never gets a move for a different position. `d` reports the same error.
//! Other errors (bad `go` numbers, bad `banmoves`, unknown commands) leave the state unchanged.

use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::time::{Duration, Instant};

use alphazero_game::{Game, History, Outcome, ParseError, Side};
use alphazero_mcts::Evaluator;
use alphazero_xiangqi::{Move, Square, Xiangqi, XiangqiConfig};

use crate::gomocup::read_line_any;
use crate::think::{think, Control, Event, ThinkLimits, Thought};
use crate::{value_to_cp, EngineConfig};

/// Which protocol the GUI speaks (chosen by its first `ucci` or `uci`; UCCI until then).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Dialect {
    /// UCCI (ElephantEye): `ucciok`, `score S`, `nobestmove`, `bye` on `quit`,
    /// `setoption <name> <value>`, times in ms unless `setoption usemillisec false`.
    #[default]
    Ucci,
    /// UCI (Pikafish, Fairy-Stockfish): `uciok`, `score cp S` / `score mate N`,
    /// `bestmove (none)`, `setoption name … value …`, times in ms.
    Uci,
}

/// How Xiangqi moves are written on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Notation {
    /// ICCS: files `a`–`i`, ranks `0`–`9` from Red's side, e.g. `h2e2` (UCCI, Pikafish).
    #[default]
    Iccs,
    /// Fairy-Stockfish: files `a`–`i`, ranks `1`–`10`, e.g. `h3e3`, `a10a9`.
    FairyRanks,
}

/// Formats `mv` in `notation`.
pub fn format_move(mv: Move, notation: Notation) -> String {
    match notation {
        Notation::Iccs => mv.to_string(),
        Notation::FairyRanks => {
            let sq = |s: Square| format!("{}{}", (b'a' + s.file()) as char, s.rank() + 1);
            format!("{}{}", sq(mv.from), sq(mv.to))
        }
    }
}

/// Parses a move written in `notation` (case-insensitive for files). Legality is not checked.
///
/// # Errors
/// [`ParseError`] (what = "move") naming the input when it is not two squares of that
/// notation, or both squares are the same.
pub fn parse_move(text: &str, notation: Notation) -> Result<Move, ParseError> {
    match notation {
        Notation::Iccs => Move::parse_iccs(text),
        Notation::FairyRanks => {
            let err = |why: &str| ParseError::new("move", text, why);
            let t = text.trim().to_ascii_lowercase();
            let b = t.as_bytes();
            let mut i = 0;
            let mut square = || -> Result<Square, ParseError> {
                let f = *b
                    .get(i)
                    .ok_or_else(|| err("expected file a-i then rank 1-10, twice"))?;
                if !(b'a'..=b'i').contains(&f) {
                    return Err(err("file must be a-i"));
                }
                i += 1;
                let start = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                let r: u8 = t[start..i].parse().map_err(|_| err("rank must be 1-10"))?;
                if !(1..=10).contains(&r) {
                    return Err(err("rank must be 1-10"));
                }
                Square::new(f - b'a', r - 1).ok_or_else(|| err("square off the board"))
            };
            let from = square()?;
            let to = square()?;
            if i != b.len() {
                return Err(err("trailing characters"));
            }
            if from == to {
                return Err(err("origin and destination are the same point"));
            }
            Ok(Move::new(from, to))
        }
    }
}

/// A UCCI/UCI Xiangqi engine: the position (start + moves, for repetition rules), the
/// banned root moves, the dialect and the options. Drive it with [`UcciEngine::run`] or
/// [`run_ucci`].
pub struct UcciEngine {
    evaluator: Arc<dyn Evaluator<Xiangqi>>,
    config: EngineConfig,
    rules: XiangqiConfig,
    dialect: Dialect,
    notation: Notation,
    game: History<Xiangqi>,
    /// Why the last `position` was rejected; while set there is no position (`game` is stale
    /// and never searched).
    position_error: Option<String>,
    banned: Vec<Move>,
    millisec: bool,
    quit: bool,
}

/// Runs a UCCI/UCI engine over `input`/`output` until `quit` or end of input, flushing after
/// every reply. `input` is read on a separate thread, so `stop`, `quit`, `isready` and
/// `ponderhit` are seen while thinking (other commands wait until the search ends). For stdin
/// pass `BufReader::new(std::io::stdin())`. Rules (repetition, no-capture draw) are the
/// default [`XiangqiConfig`].
///
/// # Errors
/// Only I/O errors of `output` (an input error counts as end of input).
pub fn run_ucci<R: BufRead + Send + 'static, W: Write>(
    input: R,
    output: W,
    evaluator: Arc<dyn Evaluator<Xiangqi>>,
    config: EngineConfig,
) -> io::Result<()> {
    UcciEngine::new(evaluator, config, XiangqiConfig::default()).run(input, output)
}

/// Messages from the input thread: a line, or `None` at end of input.
type Input = Option<String>;

/// What the search loop does with a line read while thinking.
enum Urgent {
    Stop,
    Quit,
    IsReady,
    PonderHit,
    Later,
}

fn urgent(line: &str) -> Urgent {
    match line
        .split_whitespace()
        .next()
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("stop") => Urgent::Stop,
        Some("quit") => Urgent::Quit,
        Some("isready") => Urgent::IsReady,
        Some("ponderhit") => Urgent::PonderHit,
        _ => Urgent::Later,
    }
}

/// Parsed `go` parameters.
#[derive(Default, Debug)]
struct Go {
    depth: Option<u32>,
    nodes: Option<u64>,
    movetime: Option<u64>,
    time: Option<i64>,
    increment: Option<i64>,
    movestogo: Option<u64>,
    wtime: Option<i64>,
    btime: Option<i64>,
    winc: Option<i64>,
    binc: Option<i64>,
    infinite: bool,
    ponder: bool,
    searchmoves: Vec<Move>,
}

/// The state of a running `go` as lines arrive.
struct GoState {
    /// `go infinite` / `go ponder`: no answer before `stop` (or `ponderhit`).
    waiting: bool,
    ponder_only: bool,
    normal_budget: Option<Duration>,
    stopped: bool,
    eof: bool,
    quit: bool,
    io_err: Option<io::Error>,
}

impl GoState {
    fn on_line(
        &mut self,
        msg: Input,
        lim: &mut ThinkLimits,
        config: &EngineConfig,
        queue: &mut VecDeque<Input>,
        out: &mut dyn Write,
    ) {
        let Some(line) = msg else {
            self.eof = true;
            if self.waiting {
                self.stopped = true;
            }
            return;
        };
        // A line after queued commands belongs after them (a piped transcript's later `stop`
        // or `quit` does not cut this search short).
        let kind = if queue.is_empty() {
            urgent(&line)
        } else {
            Urgent::Later
        };
        match kind {
            Urgent::Stop => self.stopped = true,
            Urgent::Quit => {
                self.stopped = true;
                self.quit = true;
            }
            Urgent::IsReady => {
                if let Err(e) = writeln!(out, "readyok").and_then(|()| out.flush()) {
                    self.io_err.get_or_insert(e);
                }
            }
            Urgent::PonderHit => {
                if self.waiting && self.ponder_only {
                    self.waiting = false;
                    lim.deadline = self
                        .normal_budget
                        .map(|b| Instant::now() + config.usable(b));
                }
            }
            Urgent::Later => queue.push_back(Some(line)),
        }
    }
}

const GO_KEYS: &[&str] = &[
    "depth",
    "nodes",
    "movetime",
    "time",
    "increment",
    "movestogo",
    "wtime",
    "btime",
    "winc",
    "binc",
    "opptime",
    "oppincrement",
    "oppmovestogo",
    "mate",
];

impl UcciEngine {
    /// An engine at the start position with the given rules.
    pub fn new(
        evaluator: Arc<dyn Evaluator<Xiangqi>>,
        config: EngineConfig,
        rules: XiangqiConfig,
    ) -> Self {
        UcciEngine {
            evaluator,
            config,
            rules,
            dialect: Dialect::Ucci,
            notation: Notation::Iccs,
            game: History::new(Xiangqi::start(rules)),
            position_error: None,
            banned: Vec::new(),
            millisec: true,
            quit: false,
        }
    }

    /// The current game (start position and moves), `None` after a rejected `position`
    /// command until the next successful one or `ucinewgame` (see the module docs).
    pub fn game(&self) -> Option<&History<Xiangqi>> {
        match self.position_error {
            Some(_) => None,
            None => Some(&self.game),
        }
    }

    /// Why the last `position` command was rejected, while there is no position.
    pub fn position_error(&self) -> Option<&str> {
        self.position_error.as_deref()
    }

    /// Sets the start position (`ucinewgame`, `setoption newgame`).
    fn new_game(&mut self) {
        self.game = History::new(Xiangqi::start(self.rules));
        self.position_error = None;
        self.banned.clear();
    }

    /// The error line for a command that needs a position while there is none.
    fn no_position(&self) -> Option<String> {
        self.position_error.as_ref().map(|e| {
            format!("no position: the last position command was rejected ({e}); send position")
        })
    }

    /// The dialect in use.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Reads commands until `quit` or end of input; see [`run_ucci`].
    ///
    /// Commands: `ucci`, `uci`, `isready`, `setoption`, `ucinewgame`, `position startpos|fen
    /// FEN [moves …]`, `banmoves …` (excluded at the root of the next `go`; cleared by `go` and
    /// `position`), `go [ponder] depth N | nodes N | movetime T | time T [movestogo M |
    /// increment I] | wtime T btime T [winc I binc I movestogo M] | infinite [searchmoves …]`,
    /// `stop`, `ponderhit`, `quit`, `d` (prints the FEN). `go depth N` searches until the
    /// principal variation has N plies (capped by the simulation limit). Output: `info depth D
    /// … pv …` whenever the PV grows and at the end, then `bestmove M [ponder P]`, or
    /// `nobestmove` (UCCI) / `bestmove (none)` (UCI) without a legal move. Errors are reported
    /// as `info string error: …`. A rejected `position` (bad FEN, unparsable or illegal move,
    /// named with its index) leaves no position: `go` then answers the error and
    /// `nobestmove` / `bestmove (none)` until the next good `position` or `ucinewgame` (see
    /// the module docs). Other errors (bad number, bad `banmoves`) leave the state unchanged.
    ///
    /// # Errors
    /// I/O errors of `output`.
    pub fn run<R: BufRead + Send + 'static, W: Write>(
        &mut self,
        mut input: R,
        mut output: W,
    ) -> io::Result<()> {
        let (tx, rx) = mpsc::channel::<Input>();
        std::thread::spawn(move || {
            let mut line = String::new();
            loop {
                match read_line_any(&mut input, &mut line) {
                    Ok(true) => {
                        if tx.send(Some(line.clone())).is_err() {
                            return;
                        }
                    }
                    _ => {
                        let _ = tx.send(None);
                        return;
                    }
                }
            }
        });
        let mut queue: VecDeque<Input> = VecDeque::new();
        loop {
            let msg = match queue.pop_front() {
                Some(m) => m,
                None => rx.recv().unwrap_or(None),
            };
            let Some(line) = msg else {
                return output.flush();
            };
            self.handle(&line, &rx, &mut queue, &mut output)?;
            output.flush()?;
            if self.quit {
                return Ok(());
            }
        }
    }

    fn error(&self, out: &mut dyn Write, msg: impl AsRef<str>) -> io::Result<()> {
        writeln!(out, "info string error: {}", msg.as_ref())
    }

    fn handle(
        &mut self,
        line: &str,
        rx: &Receiver<Input>,
        queue: &mut VecDeque<Input>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let received = Instant::now();
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some(first) = tokens.first() else {
            return Ok(());
        };
        let cmd = first.to_ascii_lowercase();
        let args = &tokens[1..];
        match cmd.as_str() {
            "ucci" => {
                self.dialect = Dialect::Ucci;
                writeln!(out, "id name {} {}", self.config.name, self.config.version)?;
                writeln!(out, "id version {}", self.config.version)?;
                writeln!(out, "id author {}", self.config.author)?;
                writeln!(out, "option usemillisec type check default true")?;
                writeln!(
                    out,
                    "option simulations type spin min 1 max 100000000 default {}",
                    self.config.search.simulations
                )?;
                writeln!(out, "option rankbase type spin min 0 max 1 default 0")?;
                writeln!(out, "ucciok")?;
            }
            "uci" => {
                self.dialect = Dialect::Uci;
                writeln!(out, "id name {} {}", self.config.name, self.config.version)?;
                writeln!(out, "id author {}", self.config.author)?;
                writeln!(
                    out,
                    "option name UCI_Variant type combo default xiangqi var xiangqi"
                )?;
                writeln!(
                    out,
                    "option name UCI_RankBase type spin default 0 min 0 max 1"
                )?;
                writeln!(
                    out,
                    "option name Simulations type spin default {} min 1 max 100000000",
                    self.config.search.simulations
                )?;
                writeln!(out, "uciok")?;
            }
            "isready" => writeln!(out, "readyok")?,
            "setoption" => self.setoption(args, out)?,
            "ucinewgame" => self.new_game(),
            "position" => self.position(args, out)?,
            "banmoves" => {
                let parsed: Result<Vec<Move>, ParseError> =
                    args.iter().map(|t| parse_move(t, self.notation)).collect();
                match parsed {
                    Ok(v) => self.banned = v,
                    Err(e) => self.error(out, e.to_string())?,
                }
            }
            "go" => self.go(args, received, rx, queue, out)?,
            "stop" | "ponderhit" | "probe" => {}
            "quit" => {
                if self.dialect == Dialect::Ucci {
                    writeln!(out, "bye")?;
                }
                self.quit = true;
            }
            "d" => match self.no_position() {
                Some(e) => self.error(out, e)?,
                None => writeln!(out, "info string fen {}", self.game.current().to_fen())?,
            },
            _ => self.error(out, format!("unknown command {first}"))?,
        }
        Ok(())
    }

    fn setoption(&mut self, args: &[&str], out: &mut dyn Write) -> io::Result<()> {
        // UCI: setoption name <id…> [value <x…>]; UCCI: setoption <id> [<value…>].
        let (name, value) = if args.first().is_some_and(|a| a.eq_ignore_ascii_case("name")) {
            let vpos = args.iter().position(|a| a.eq_ignore_ascii_case("value"));
            let name = args[1..vpos.unwrap_or(args.len())].join(" ");
            let value = vpos.map(|p| args[p + 1..].join(" ")).unwrap_or_default();
            (name, value)
        } else {
            (
                args.first().copied().unwrap_or("").to_string(),
                args.get(1..).map(|v| v.join(" ")).unwrap_or_default(),
            )
        };
        let lname = name.to_ascii_lowercase();
        let v = value.trim().to_ascii_lowercase();
        match lname.as_str() {
            "usemillisec" => self.millisec = v != "false",
            "uci_variant" if v != "xiangqi" => {
                self.error(out, format!("unsupported variant {value:?} (only xiangqi)"))?;
            }
            "uci_rankbase" | "rankbase" => match v.as_str() {
                "0" => self.notation = Notation::Iccs,
                "1" => self.notation = Notation::FairyRanks,
                _ => self.error(out, format!("rank base must be 0 or 1, got {value:?}"))?,
            },
            "simulations" => match v.parse::<u32>() {
                Ok(n) if n >= 1 => self.config.search.simulations = n,
                _ => self.error(
                    out,
                    format!("simulations must be a positive integer, got {value:?}"),
                )?,
            },
            "newgame" => self.new_game(),
            // Hash, Threads, Ponder, batch, … are accepted and ignored.
            _ => {}
        }
        Ok(())
    }

    /// `position …`: all or nothing; on any error there is no position afterwards.
    fn position(&mut self, args: &[&str], out: &mut dyn Write) -> io::Result<()> {
        self.banned.clear();
        match self.parse_position(args) {
            Ok(game) => {
                self.game = game;
                self.position_error = None;
                Ok(())
            }
            Err(e) => {
                let line = format!("{e}; no position is set until the next position command");
                self.position_error = Some(e);
                self.error(out, line)
            }
        }
    }

    /// The game a `position` command describes, or why it cannot be set up.
    fn parse_position(&self, args: &[&str]) -> Result<History<Xiangqi>, String> {
        let moves_at = args.iter().position(|a| a.eq_ignore_ascii_case("moves"));
        let head = &args[..moves_at.unwrap_or(args.len())];
        let start = match head.first().map(|s| s.to_ascii_lowercase()).as_deref() {
            Some("startpos") if head.len() == 1 => Xiangqi::start(self.rules),
            Some("fen") => Xiangqi::from_fen(&head[1..].join(" "), self.rules)
                .map_err(|e| format!("position: {e}"))?,
            _ => {
                return Err(format!(
                    "expected position startpos|fen FEN [moves …], got {:?}",
                    args.join(" ")
                ))
            }
        };
        let mut game = History::new(start);
        let moves = moves_at.map_or(&[][..], |p| &args[p + 1..]);
        for (i, t) in moves.iter().enumerate() {
            let at = format!("position move {} of {} {t:?}", i + 1, moves.len());
            let mv = parse_move(t, self.notation).map_err(|e| format!("{at}: {e}"))?;
            game.play(mv).map_err(|e| match self.notation {
                Notation::Iccs => format!("{at} is illegal: {}", e.reason),
                // The reason names squares in ICCS; say which move that is.
                Notation::FairyRanks => format!("{at} (ICCS {mv}) is illegal: {}", e.reason),
            })?;
        }
        Ok(game)
    }

    fn parse_go(&self, args: &[&str], out: &mut dyn Write) -> io::Result<Go> {
        let mut go = Go::default();
        let mut i = 0;
        while i < args.len() {
            let key = args[i].to_ascii_lowercase();
            i += 1;
            match key.as_str() {
                "infinite" => go.infinite = true,
                "ponder" => go.ponder = true,
                "draw" => {}
                "searchmoves" => {
                    while i < args.len()
                        && !GO_KEYS.contains(&args[i].to_ascii_lowercase().as_str())
                        && !["infinite", "ponder"].contains(&args[i])
                    {
                        match parse_move(args[i], self.notation) {
                            Ok(m) => go.searchmoves.push(m),
                            Err(e) => self.error(out, e.to_string())?,
                        }
                        i += 1;
                    }
                }
                k if GO_KEYS.contains(&k) => {
                    let Some(v) = args.get(i).and_then(|v| v.parse::<i64>().ok()) else {
                        self.error(
                            out,
                            format!(
                                "go {k} needs a number, got {:?}; ignored",
                                args.get(i).unwrap_or(&"")
                            ),
                        )?;
                        i += 1;
                        continue;
                    };
                    i += 1;
                    // Limits that count something must be at least 1: `go depth 0` or
                    // `go nodes -5` is refused (the parameter is ignored, like a malformed one)
                    // rather than silently searched as a minimal search.
                    if matches!(k, "depth" | "nodes" | "movetime" | "movestogo") && v < 1 {
                        self.error(
                            out,
                            format!("go {k} must be a positive number, got {v}; ignored"),
                        )?;
                        continue;
                    }
                    let pos = v.max(0) as u64;
                    match k {
                        "depth" => go.depth = Some(pos.min(u64::from(u32::MAX)) as u32),
                        "nodes" => go.nodes = Some(pos),
                        "movetime" => go.movetime = Some(pos),
                        "time" => go.time = Some(v),
                        "increment" => go.increment = Some(v),
                        "movestogo" => go.movestogo = Some(pos),
                        "wtime" => go.wtime = Some(v),
                        "btime" => go.btime = Some(v),
                        "winc" => go.winc = Some(v),
                        "binc" => go.binc = Some(v),
                        _ => {}
                    }
                }
                other => self.error(out, format!("unknown go parameter {other:?}"))?,
            }
        }
        Ok(go)
    }

    /// The thinking time for a `go` (before the safety margin), `None` for no clock limit.
    fn budget(&self, go: &Go) -> Option<Duration> {
        let ms = |v: i64| Duration::from_millis(v.max(0) as u64);
        let unit = |v: i64| {
            if self.millisec || self.dialect == Dialect::Uci {
                ms(v)
            } else {
                ms(v.saturating_mul(1000))
            }
        };
        let share = |left: Duration, inc: Duration, mtg: Option<u64>| {
            let b = match mtg {
                Some(m) if m > 0 => left / m.min(u64::from(u32::MAX)) as u32,
                _ => left / 30 + inc * 3 / 4,
            };
            b.min(left / 2 + left / 4)
        };
        if let Some(t) = go.movetime {
            return Some(Duration::from_millis(t));
        }
        if let Some(t) = go.time {
            return Some(share(
                unit(t),
                unit(go.increment.unwrap_or(0)),
                go.movestogo,
            ));
        }
        let (own, inc) = match self.game.current().side_to_move() {
            Side::First => (go.wtime, go.winc),
            Side::Second => (go.btime, go.binc),
        };
        if let Some(t) = own {
            return Some(share(ms(t), ms(inc.unwrap_or(0)), go.movestogo));
        }
        if go.depth.is_some() || go.nodes.is_some() || go.infinite {
            return None;
        }
        Some(self.config.default_move_time)
    }

    fn info_line(&self, t: &Thought<Xiangqi>) -> String {
        let ms = t.elapsed.as_millis();
        let nps = (f64::from(t.visits) / t.elapsed.as_secs_f64().max(1e-6)) as u64;
        let plies = t.pv.len().max(1) as i32;
        let score = match (self.dialect, t.proven) {
            (Dialect::Uci, Some(Outcome::Win)) => format!("mate {}", (plies + 1) / 2),
            (Dialect::Uci, Some(Outcome::Loss)) => format!("mate -{}", (plies + 1) / 2),
            (Dialect::Uci, _) => format!("cp {}", value_to_cp(t.value)),
            (Dialect::Ucci, Some(Outcome::Win)) => format!("{}", 30000 - plies),
            (Dialect::Ucci, Some(Outcome::Loss)) => format!("{}", -(30000 - plies)),
            (Dialect::Ucci, _) => format!("{}", value_to_cp(t.value)),
        };
        let pv: Vec<String> =
            t.pv.iter()
                .map(|&m| format_move(m, self.notation))
                .collect();
        format!(
            "info depth {} score {} nodes {} time {} nps {} pv {}",
            t.depth(),
            score,
            t.visits,
            ms,
            nps,
            pv.join(" ")
        )
    }

    fn go(
        &mut self,
        args: &[&str],
        received: Instant,
        rx: &Receiver<Input>,
        queue: &mut VecDeque<Input>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        if let Some(e) = self.no_position() {
            // Answer at once (even `go infinite`): there is nothing to search, and a GUI
            // waiting for `bestmove` must not hang.
            self.error(out, e)?;
            self.banned.clear();
            match self.dialect {
                Dialect::Ucci => writeln!(out, "nobestmove")?,
                Dialect::Uci => writeln!(out, "bestmove (none)")?,
            }
            return Ok(());
        }
        let go = self.parse_go(args, out)?;
        let mut banned = std::mem::take(&mut self.banned);
        if !go.searchmoves.is_empty() {
            let legal = self.game.current().legal_moves_vec();
            banned.extend(legal.into_iter().filter(|m| !go.searchmoves.contains(m)));
        }
        let fixed = self.config.fixed_simulations;
        let waiting = go.infinite || go.ponder;
        let normal_budget = if fixed {
            None
        } else {
            self.budget(&Go {
                infinite: false,
                ..go
            })
        };
        let cap = self.config.search.simulations;
        let max_simulations = match go.nodes {
            Some(n) => n.clamp(1, u64::from(u32::MAX)) as u32,
            None => cap,
        };
        let mut limits = ThinkLimits {
            max_simulations,
            deadline: if waiting {
                None
            } else {
                normal_budget.map(|b| received + self.config.usable(b))
            },
            depth: go.depth,
            snapshot_every: None,
        };
        let mut st = GoState {
            waiting: go.infinite || go.ponder,
            ponder_only: go.ponder && !go.infinite,
            normal_budget,
            stopped: false,
            eof: false,
            quit: false,
            io_err: None,
        };
        let this = &*self;
        let result = think(
            &this.game,
            &banned,
            &*this.evaluator,
            &this.config.search,
            &mut limits,
            received,
            |ev, lim| {
                match ev {
                    Event::Depth(t) => {
                        if let Err(e) =
                            writeln!(out, "{}", this.info_line(t)).and_then(|()| out.flush())
                        {
                            st.io_err.get_or_insert(e);
                        }
                    }
                    Event::Snapshot(_) => {}
                    Event::Poll => {
                        while !st.eof {
                            let Ok(msg) = rx.try_recv() else { break };
                            st.on_line(msg, lim, &this.config, queue, out);
                        }
                    }
                }
                if st.stopped {
                    Control::Stop
                } else {
                    Control::Continue
                }
            },
        );
        // `go infinite` / `go ponder` must not answer before `stop` (or `ponderhit`).
        while result.is_ok() && st.waiting && !st.stopped && !st.eof {
            let msg = rx.recv().unwrap_or(None);
            st.on_line(msg, &mut limits, &self.config, queue, out);
        }
        if let Some(e) = st.io_err {
            return Err(e);
        }
        if st.eof {
            queue.push_back(None);
        }
        let quit = st.quit;
        if quit {
            self.quit = true;
        }
        let t = match result {
            Ok(t) => t,
            Err(e) => {
                self.error(out, format!("search failed: {e}"))?;
                Thought {
                    mv: None,
                    value: 0.0,
                    pv: Vec::new(),
                    proven: None,
                    simulations: 0,
                    visits: 0,
                    elapsed: received.elapsed(),
                    reason: "search failed",
                    children: Vec::new(),
                }
            }
        };
        match t.mv {
            Some(mv) => {
                writeln!(out, "{}", self.info_line(&t))?;
                let mut line = format!("bestmove {}", format_move(mv, self.notation));
                if let Some(&p) = t.pv.get(1) {
                    line.push_str(&format!(" ponder {}", format_move(p, self.notation)));
                }
                writeln!(out, "{line}")?;
            }
            None => {
                writeln!(out, "info string {}", t.reason)?;
                match self.dialect {
                    Dialect::Ucci => writeln!(out, "nobestmove")?,
                    Dialect::Uci => writeln!(out, "bestmove (none)")?,
                }
            }
        }
        if quit && self.dialect == Dialect::Ucci {
            writeln!(out, "bye")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fairy_ranks_round_trip_and_differ_from_iccs() {
        let mv = Move::parse_iccs("h2e2").unwrap();
        assert_eq!(format_move(mv, Notation::FairyRanks), "h3e3");
        assert_eq!(parse_move("h3e3", Notation::FairyRanks).unwrap(), mv);
        let top = Move::parse_iccs("a9a8").unwrap();
        assert_eq!(format_move(top, Notation::FairyRanks), "a10a9");
        assert_eq!(parse_move("A10A9", Notation::FairyRanks).unwrap(), top);
        for bad in ["a0a1", "a11a1", "j1a1", "a1", "a1a1", "a1a2x", ""] {
            assert!(parse_move(bad, Notation::FairyRanks).is_err(), "{bad}");
        }
    }
}
