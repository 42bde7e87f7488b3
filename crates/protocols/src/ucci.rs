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
use alphazero_mcts::knobs::{RealKnob, POLICY_TEMPERATURE, SIMULATIONS};
use alphazero_mcts::{Evaluator, Search};
use alphazero_xiangqi::{Move, Square, Xiangqi, XiangqiConfig};

use crate::clock::{MovesToGo, PlayerClock, TimeControl};
use crate::eval_stack::EvalStack;
use crate::lines::{read_line_any, too_long_quote, ReadLine};
use crate::think::{think, Control, Event, ThinkLimits, Thought};
use crate::{
    bounded, parse_error_text, value_to_cp, value_to_wdl, Clipped, EngineConfig, MAX_LINE_BYTES,
};

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
///
/// The two numberings share most strings (`h2e2` is a cannon move under one and a move from
/// an empty point under the other), so a string is always read by the numbering in use, and
/// one that names a rank only the other numbering has (`0` under ranks 1–10, `10` under
/// ranks 0–9) is refused by [`parse_move`] rather than guessed at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Notation {
    /// ICCS: files `a`–`i`, ranks `0`–`9` from Red's side, e.g. `h2e2` (UCCI, Pikafish).
    #[default]
    Iccs,
    /// Fairy-Stockfish's UCI: files `a`–`i`, ranks `1`–`10`, e.g. `h3e3`, `a10a9` (what
    /// GUIs and match tools send after `setoption name UCI_Variant value xiangqi`).
    FairyRanks,
}

impl Notation {
    /// The other numbering.
    pub fn other(self) -> Notation {
        match self {
            Notation::Iccs => Notation::FairyRanks,
            Notation::FairyRanks => Notation::Iccs,
        }
    }

    /// The rank range in words: `ranks 0–9` or `ranks 1–10`.
    pub fn ranks(self) -> &'static str {
        match self {
            Notation::Iccs => "ranks 0–9",
            Notation::FairyRanks => "ranks 1–10",
        }
    }

    /// The rank base (the first rank's number): 0 or 1.
    pub fn rank_base(self) -> u8 {
        match self {
            Notation::Iccs => 0,
            Notation::FairyRanks => 1,
        }
    }
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

/// The two squares of `text` read with any rank number (file `a`–`i` then digits, twice),
/// as `(file, rank number)` pairs; `None` when it is not of that shape.
fn squares_any_rank(text: &str) -> Option<[(u8, u32); 2]> {
    let t = text.trim().to_ascii_lowercase();
    let b = t.as_bytes();
    let mut i = 0;
    let mut square = || -> Option<(u8, u32)> {
        let f = *b.get(i)?;
        if !(b'a'..=b'i').contains(&f) {
            return None;
        }
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        // One or two digits, no leading zero ("a01" is no square under either numbering).
        if i == start || i - start > 2 || (i - start == 2 && b[start] == b'0') {
            return None;
        }
        Some((f - b'a', t[start..i].parse().ok()?))
    };
    let from = square()?;
    let to = square()?;
    (i == b.len()).then_some([from, to])
}

/// Parses a move written in `notation` (case-insensitive for files). Legality is not checked.
///
/// # Errors
/// [`ParseError`] (what = "move") naming the input when it is not two squares of that
/// notation or both squares are the same; a rank only the other numbering has (`0` under
/// [`Notation::FairyRanks`], `10` under [`Notation::Iccs`]) is refused with a reason that
/// says so, never read as the other numbering.
pub fn parse_move(text: &str, notation: Notation) -> Result<Move, ParseError> {
    let err = |why: String| ParseError::new("move", text, why);
    let squares = squares_any_rank(text);
    let foreign = match notation {
        Notation::Iccs => 10,
        Notation::FairyRanks => 0,
    };
    if squares.is_some_and(|sq| sq.iter().any(|&(_, r)| r == foreign)) {
        return Err(err(format!(
            "rank {foreign} exists only with {}, and moves are read with {} (UCI_RankBase / \
             UCCI rankbase {}): send the move with {} or change that option",
            notation.other().ranks(),
            notation.ranks(),
            notation.rank_base(),
            notation.ranks()
        )));
    }
    match notation {
        Notation::Iccs => Move::parse_iccs(text),
        Notation::FairyRanks => {
            let Some([from, to]) = squares else {
                return Err(err(
                    "expected file a-i then rank 1-10, twice (e.g. h3e3, a10a9)".into(),
                ));
            };
            let square = |(f, r): (u8, u32)| {
                u8::try_from(r)
                    .ok()
                    .filter(|r| (1..=10).contains(r))
                    .and_then(|r| Square::new(f, r - 1))
                    .ok_or_else(|| err(format!("rank {r} is not one of ranks 1-10")))
            };
            let (from, to) = (square(from)?, square(to)?);
            if from == to {
                return Err(err("origin and destination are the same point".into()));
            }
            Ok(Move::new(from, to))
        }
    }
}

/// A UCCI/UCI Xiangqi engine: the position (start + moves, for repetition rules), the
/// banned root moves, the dialect and the options. Drive it with [`UcciEngine::run`] or
/// [`run_ucci`].
pub struct UcciEngine {
    /// The evaluator as given, the evaluator searches use (on its threads, behind its cache).
    stack: EvalStack<Xiangqi>,
    config: EngineConfig,
    /// The configuration the engine started with: the defaults the `uci` / `ucci` reply
    /// declares.
    defaults: EngineConfig,
    rules: XiangqiConfig,
    dialect: Dialect,
    notation: Notation,
    /// Whether the GUI chose the numbering (`UCI_RankBase` / `rankbase`); otherwise `uci`
    /// selects ranks 1–10 and `ucci` ranks 0–9.
    notation_chosen: bool,
    multipv: u32,
    show_wdl: bool,
    game: History<Xiangqi>,
    /// Why the last `position` was rejected; while set there is no position (`game` is stale
    /// and never searched).
    position_error: Option<String>,
    banned: Vec<Move>,
    millisec: bool,
    quit: bool,
    /// The last search's tree, for the next search to start from the subtree of the moves
    /// played since ([`EngineConfig::reuse_tree`]).
    tree: Option<Search<Xiangqi>>,
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

/// A line from the input thread.
enum Received {
    /// A line of text.
    Line(String),
    /// A line longer than [`MAX_LINE_BYTES`]: its first bytes and its length.
    TooLong(String, usize),
}

/// Messages from the input thread: a line, or `None` at end of input.
type Input = Option<Received>;

/// What the search loop does with a line read while thinking.
enum Urgent {
    Stop,
    Quit,
    IsReady,
    PonderHit,
    Later,
}

fn urgent(msg: &Received) -> Urgent {
    let Received::Line(line) = msg else {
        return Urgent::Later;
    };
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
    /// `searchmoves` given (even if none of them could be used).
    restricted: bool,
    searchmoves: Vec<Move>,
}

/// The state of a running `go` as lines arrive.
struct GoState {
    /// `go infinite` / `go ponder`: no answer before `stop` (or `ponderhit`).
    waiting: bool,
    ponder_only: bool,
    /// The move's search time when not pondering ([`crate::clock::MovePlan::search`]),
    /// counted from a `ponderhit`.
    search_time: Option<Duration>,
    stopped: bool,
    eof: bool,
    quit: bool,
    io_err: Option<io::Error>,
}

impl GoState {
    fn on_line(
        &mut self,
        msg: Input,
        deadline: &mut Option<Instant>,
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
                    *deadline = self.search_time.map(|b| Instant::now() + b);
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

/// The most `MultiPV` lines (as Fairy-Stockfish).
const MAX_MULTIPV: i64 = 500;
/// The largest `Hash` / `hashsize` in MiB.
const MAX_HASH_MB: i64 = 1 << 20;
/// The most `Threads` / `threads`.
const MAX_THREADS: i64 = 256;
/// The largest `Move Overhead` in ms (as Fairy-Stockfish).
const MAX_MOVE_OVERHEAD_MS: i64 = 5000;

/// What an option sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Opt {
    Variant,
    RankBase,
    Simulations,
    MultiPv,
    Hash,
    Threads,
    MoveOverhead,
    ShowWdl,
    UseMillisec,
    PolicyTemperature,
}

/// An option's type and default, as the `uci` / `ucci` reply declares it.
#[derive(Clone, Copy, Debug)]
enum OptKind {
    Check(bool),
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    Combo(&'static str, &'static [&'static str]),
    /// A real number in the knob's range, declared as `type string` (UCI and UCCI have no
    /// real type; lc0 declares its `PolicyTemperature` the same way).
    Real {
        default: f32,
        knob: RealKnob,
    },
}

/// One declared option: its name in UCI and in UCCI (`None`: not declared there, though
/// `setoption` accepts either name in either dialect), its type and default.
#[derive(Clone, Copy, Debug)]
struct OptSpec {
    opt: Opt,
    uci: Option<&'static str>,
    ucci: Option<&'static str>,
    kind: OptKind,
}

/// Options GUIs send that this engine accepts without effect (no error line).
const IGNORED_OPTIONS: &[&str] = &[
    "ponder",
    "uci_analysemode",
    "uci_chess960",
    "uci_opponent",
    "uci_engineabout",
    "uci_limitstrength",
    "uci_elo",
    "clear hash",
    "batch",
    "debug",
    "usebook",
    "useegtb",
    "bookfiles",
    "egtbpaths",
    "evalapi",
    "idle",
    "pruning",
    "knowledge",
    "randomness",
    "style",
    "promotion",
    "drawmoves",
    "repetition",
];

impl UcciEngine {
    /// An engine at the start position with the given rules, its evaluator on
    /// [`EngineConfig::threads`] threads behind a cache of [`EngineConfig::hash_mb`] MiB.
    /// Should that thread pool not start, it is retried with one thread.
    pub fn new(
        evaluator: Arc<dyn Evaluator<Xiangqi>>,
        config: EngineConfig,
        rules: XiangqiConfig,
    ) -> Self {
        let actions = Xiangqi::start(rules).num_actions();
        let stack = EvalStack::new(evaluator.clone(), actions, config.hash_mb, config.threads)
            .or_else(|_| EvalStack::new(evaluator, actions, config.hash_mb, 1))
            .expect("a one-thread pool starts");
        UcciEngine {
            stack,
            defaults: config.clone(),
            config,
            rules,
            dialect: Dialect::Ucci,
            notation: Notation::Iccs,
            notation_chosen: false,
            multipv: 1,
            show_wdl: false,
            game: History::new(Xiangqi::start(rules)),
            position_error: None,
            banned: Vec::new(),
            tree: None,
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

    /// The dialect in use.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The move notation in use (see [`Notation`]).
    pub fn notation(&self) -> Notation {
        self.notation
    }

    /// The engine's settings now (with the GUI's options applied), among them the search it
    /// plays with ([`EngineConfig::search`]).
    pub fn config(&self) -> &EngineConfig {
        &self.config
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

    /// The options of both dialects, with the defaults the engine started with.
    fn option_specs(&self) -> Vec<OptSpec> {
        let d = &self.defaults;
        let spin = |default: i64, min: i64, max: i64| OptKind::Spin { default, min, max };
        let spec = |opt, uci, ucci, kind| OptSpec {
            opt,
            uci,
            ucci,
            kind,
        };
        vec![
            spec(
                Opt::Variant,
                Some("UCI_Variant"),
                None,
                OptKind::Combo("xiangqi", &["xiangqi"]),
            ),
            spec(
                Opt::UseMillisec,
                None,
                Some("usemillisec"),
                OptKind::Check(true),
            ),
            spec(Opt::RankBase, Some("UCI_RankBase"), None, spin(1, 0, 1)),
            spec(
                Opt::Simulations,
                Some("Simulations"),
                Some("simulations"),
                spin(
                    i64::from(d.budget.simulations.unwrap_or(SIMULATIONS.max)),
                    i64::from(SIMULATIONS.min),
                    i64::from(SIMULATIONS.max),
                ),
            ),
            spec(Opt::RankBase, None, Some("rankbase"), spin(0, 0, 1)),
            spec(Opt::MultiPv, Some("MultiPV"), None, spin(1, 1, MAX_MULTIPV)),
            spec(
                Opt::Hash,
                Some("Hash"),
                Some("hashsize"),
                spin(i64::from(d.hash_mb), 0, MAX_HASH_MB),
            ),
            spec(
                Opt::Threads,
                Some("Threads"),
                Some("threads"),
                spin(i64::from(d.threads), 1, MAX_THREADS),
            ),
            spec(
                Opt::MoveOverhead,
                Some("Move Overhead"),
                None,
                spin(
                    d.safety_margin
                        .as_millis()
                        .min(MAX_MOVE_OVERHEAD_MS as u128) as i64,
                    0,
                    MAX_MOVE_OVERHEAD_MS,
                ),
            ),
            spec(
                Opt::ShowWdl,
                Some("UCI_ShowWDL"),
                None,
                OptKind::Check(false),
            ),
            spec(
                Opt::PolicyTemperature,
                Some("PolicyTemperature"),
                Some("policytemperature"),
                OptKind::Real {
                    default: d.search.policy_temperature,
                    knob: POLICY_TEMPERATURE,
                },
            ),
        ]
    }

    /// The `option …` lines of the `uci` / `ucci` reply.
    fn declare_options(&self, out: &mut dyn Write) -> io::Result<()> {
        for spec in self.option_specs() {
            match self.dialect {
                Dialect::Uci => {
                    let Some(name) = spec.uci else { continue };
                    match spec.kind {
                        OptKind::Check(d) => {
                            writeln!(out, "option name {name} type check default {d}")?
                        }
                        OptKind::Spin { default, min, max } => writeln!(
                            out,
                            "option name {name} type spin default {default} min {min} max {max}"
                        )?,
                        OptKind::Combo(d, vars) => writeln!(
                            out,
                            "option name {name} type combo default {d} var {}",
                            vars.join(" var ")
                        )?,
                        OptKind::Real { default, .. } => {
                            writeln!(out, "option name {name} type string default {default}")?
                        }
                    }
                }
                Dialect::Ucci => {
                    let Some(name) = spec.ucci else { continue };
                    match spec.kind {
                        OptKind::Check(d) => writeln!(out, "option {name} type check default {d}")?,
                        OptKind::Spin { default, min, max } => writeln!(
                            out,
                            "option {name} type spin min {min} max {max} default {default}"
                        )?,
                        OptKind::Combo(d, vars) => writeln!(
                            out,
                            "option {name} type combo var {} default {d}",
                            vars.join(" var ")
                        )?,
                        OptKind::Real { default, .. } => {
                            writeln!(out, "option {name} type string default {default}")?
                        }
                    }
                }
            }
        }
        Ok(())
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
    /// as `info string error: …`, input echoed in them cut to 80 characters (then `… (N
    /// bytes)`); a line over 1 MiB is not stored and answered with one error (an over-long
    /// `position` leaves no position). A rejected `position` (bad FEN, unparsable or illegal
    /// move, named with its index) leaves no position: `go` then answers the error and
    /// `nobestmove` / `bestmove (none)` until the next good `position` or `ucinewgame` (see
    /// the module docs). Other errors (bad number, bad `banmoves`, bad option value) leave the
    /// state unchanged.
    ///
    /// # Options
    /// Declared by `uci` (UCI names) and `ucci` (UCCI names); `setoption` accepts either name
    /// in either dialect, case-insensitively. A value of the wrong type or out of range is an
    /// error that changes nothing; an unknown option is an error line too (common GUI options
    /// such as `Ponder` or UCCI's `usebook` are accepted without effect).
    ///
    /// | UCI | UCCI | type, default | effect |
    /// | --- | --- | --- | --- |
    /// | `UCI_Variant` | – | combo `xiangqi` | only Xiangqi |
    /// | `UCI_RankBase` | `rankbase` | spin 0–1; UCI 1, UCCI 0 | rank numbering of moves in and out ([`Notation`]); `uci` selects 1 and `ucci` 0 unless set |
    /// | `Simulations` | `simulations` | spin ≥ 1 | most simulations per move |
    /// | `MultiPV` | – | spin 1–500, 1 | lines reported (`info … multipv k …`) |
    /// | `Hash` | `hashsize` | spin MiB, [`EngineConfig::hash_mb`] | network evaluation cache (emptied on change) |
    /// | `Threads` | `threads` | spin 1–256, [`EngineConfig::threads`] | threads of a network evaluation |
    /// | `Move Overhead` | – | spin 0–5000 ms, [`EngineConfig::safety_margin`] | kept back from every time budget |
    /// | `UCI_ShowWDL` | – | check, false | `wdl W D L` in `info` lines |
    /// | `PolicyTemperature` | `policytemperature` | string, a number 0.1–10, the play search's (2) | priors `softmax(logits / T)` at every node ([`alphazero_mcts::SearchConfig::policy_temperature`]) |
    /// | – | `usemillisec` | check, true | UCCI times in ms (else s) |
    ///
    /// `MultiPV` N reports, with every `info`, the N best root moves (`info depth D multipv k
    /// score … pv …`, k = 1 the move played, the others in the order of
    /// [`alphazero_mcts::SearchResult::ranked_children`]: proven wins, visits, prior), each
    /// line scored by its move's mean value Q; only searched moves are listed, and the search
    /// itself is the same as with one line. With `MultiPV` 1 the line has no `multipv` field
    /// and is scored by the root value.
    ///
    /// `UCI_ShowWDL`: `wdl W D L` per mille from the side to move, see [`value_to_wdl`]
    /// (a proven win `1000 0 0`, loss `0 0 1000`, draw `0 1000 0`).
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
                let msg = match read_line_any(&mut input, &mut line, MAX_LINE_BYTES) {
                    Ok(ReadLine::Line) => Received::Line(line.clone()),
                    Ok(ReadLine::TooLong(n)) => Received::TooLong(line.clone(), n),
                    Ok(ReadLine::Eof) | Err(_) => {
                        let _ = tx.send(None);
                        return;
                    }
                };
                if tx.send(Some(msg)).is_err() {
                    return;
                }
            }
        });
        let mut queue: VecDeque<Input> = VecDeque::new();
        loop {
            let msg = match queue.pop_front() {
                Some(m) => m,
                None => rx.recv().unwrap_or(None),
            };
            match msg {
                None => return output.flush(),
                Some(Received::Line(line)) => self.handle(&line, &rx, &mut queue, &mut output)?,
                Some(Received::TooLong(head, bytes)) => self.too_long(&head, bytes, &mut output)?,
            }
            output.flush()?;
            if self.quit {
                return Ok(());
            }
        }
    }

    fn error(&self, out: &mut dyn Write, msg: impl AsRef<str>) -> io::Result<()> {
        writeln!(out, "info string error: {}", bounded(msg.as_ref()))
    }

    /// A line over [`MAX_LINE_BYTES`] (`head`: its first bytes): one error; when it was a
    /// `position` command, there is no position afterwards (the GUI's position was not read).
    fn too_long(&mut self, head: &str, bytes: usize, out: &mut dyn Write) -> io::Result<()> {
        let what = format!(
            "input line {} is longer than the {MAX_LINE_BYTES} bytes a line may have",
            too_long_quote(head, bytes)
        );
        let is_position = head
            .split_whitespace()
            .next()
            .is_some_and(|w| w.eq_ignore_ascii_case("position"));
        if is_position {
            self.banned.clear();
            let line = format!("{what}; no position is set until the next position command");
            self.position_error = Some(what);
            self.error(out, line)
        } else {
            self.error(out, format!("{what}; ignored"))
        }
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
                if !self.notation_chosen {
                    self.notation = Notation::Iccs;
                }
                writeln!(out, "id name {} {}", self.config.name, self.config.version)?;
                writeln!(out, "id version {}", self.config.version)?;
                writeln!(out, "id author {}", self.config.author)?;
                self.declare_options(out)?;
                writeln!(out, "ucciok")?;
            }
            "uci" => {
                self.dialect = Dialect::Uci;
                if !self.notation_chosen {
                    self.notation = Notation::FairyRanks;
                }
                writeln!(out, "id name {} {}", self.config.name, self.config.version)?;
                writeln!(out, "id author {}", self.config.author)?;
                self.declare_options(out)?;
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
                    Err(e) => self.error(out, parse_error_text(&e))?,
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
            _ => self.error(out, format!("unknown command {}", Clipped(first)))?,
        }
        Ok(())
    }

    /// How to choose the numbering `n` in the dialect in use.
    fn rank_base_hint(&self, n: Notation) -> String {
        match self.dialect {
            Dialect::Uci => format!("setoption name UCI_RankBase value {}", n.rank_base()),
            Dialect::Ucci => format!("setoption rankbase {}", n.rank_base()),
        }
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
        if lname == "newgame" {
            self.new_game();
            return Ok(());
        }
        let matches = |n: Option<&str>| n.is_some_and(|n| n.eq_ignore_ascii_case(&lname));
        let Some(spec) = self
            .option_specs()
            .into_iter()
            .find(|s| matches(s.uci) || matches(s.ucci))
        else {
            if !IGNORED_OPTIONS.contains(&lname.as_str()) {
                self.error(out, format!("unknown option {:?}; ignored", Clipped(&name)))?;
            }
            return Ok(());
        };
        // The name as this dialect declares it, when that is the one the GUI used.
        let shown = match self.dialect {
            Dialect::Ucci if matches(spec.ucci) => spec.ucci,
            _ if matches(spec.uci) => spec.uci,
            _ => spec.ucci,
        }
        .unwrap_or("");
        let v = value.trim();
        let bad = |why: String| {
            format!(
                "option {shown}: {why}, got {:?}; unchanged",
                Clipped(&value)
            )
        };
        // The value, checked against the option's type (a real number is kept in `real`).
        let mut real = 0.0f32;
        let number = match spec.kind {
            OptKind::Check(_) => match v.to_ascii_lowercase().as_str() {
                "true" => 1,
                "false" => 0,
                _ => return self.error(out, bad("expected true or false".into())),
            },
            OptKind::Spin { min, max, .. } => match v.parse::<i64>() {
                Ok(n) if (min..=max).contains(&n) => n,
                _ => {
                    return self.error(out, bad(format!("expected an integer from {min} to {max}")))
                }
            },
            OptKind::Combo(_, vars) => match vars.iter().position(|c| c.eq_ignore_ascii_case(v)) {
                Some(i) => i as i64,
                None => {
                    return self.error(
                        out,
                        bad(format!("unsupported value (only {})", vars.join(", "))),
                    )
                }
            },
            OptKind::Real { knob, .. } => match knob.parse(v) {
                Ok(x) => {
                    real = x;
                    0
                }
                Err(e) => return self.error(out, bad(format!("expected {}", e.expected))),
            },
        };
        // Every spin range above fits u32.
        let n32 = number as u32;
        match spec.opt {
            Opt::Variant => {}
            Opt::RankBase => {
                self.notation = if number == 0 {
                    Notation::Iccs
                } else {
                    Notation::FairyRanks
                };
                self.notation_chosen = true;
            }
            Opt::Simulations => self.config.budget.simulations = Some(n32),
            Opt::MultiPv => self.multipv = n32,
            Opt::ShowWdl => self.show_wdl = number == 1,
            Opt::PolicyTemperature => self.config.search.policy_temperature = real,
            Opt::UseMillisec => self.millisec = number == 1,
            Opt::MoveOverhead => self.config.safety_margin = Duration::from_millis(number as u64),
            Opt::Hash | Opt::Threads => {
                let (hash, threads) = match spec.opt {
                    Opt::Hash => (n32, self.stack.threads()),
                    _ => (self.stack.hash_mb(), n32),
                };
                let actions = self.game.current().num_actions();
                match self.stack.resized(actions, hash, threads) {
                    Ok(stack) => {
                        self.stack = stack;
                        self.config.hash_mb = hash;
                        self.config.threads = threads;
                    }
                    Err(e) => self.error(out, format!("option {shown}: {e}; unchanged"))?,
                }
            }
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

    /// Why `text` (read as `mv`) is not legal in `pos`, and, when the same text read with
    /// the other numbering would be a legal move there, a hint that the GUI may use it.
    fn illegal_text(&self, pos: &Xiangqi, text: &str, mv: Move, reason: &str) -> String {
        let mut s = match self.notation {
            Notation::Iccs => format!("is illegal: {reason}"),
            // The reason names squares in ICCS; say which move that is.
            Notation::FairyRanks => format!("(ICCS {mv}) is illegal: {reason}"),
        };
        let other = self.notation.other();
        if parse_move(text, other).is_ok_and(|m| pos.is_legal(m)) {
            s.push_str(&format!(
                " (moves are read with {}; with {} it would be legal: {})",
                self.notation.ranks(),
                other.ranks(),
                self.rank_base_hint(other)
            ));
        }
        s
    }

    /// The game a `position` command describes, or why it cannot be set up.
    fn parse_position(&self, args: &[&str]) -> Result<History<Xiangqi>, String> {
        let moves_at = args.iter().position(|a| a.eq_ignore_ascii_case("moves"));
        let head = &args[..moves_at.unwrap_or(args.len())];
        let start = match head.first().map(|s| s.to_ascii_lowercase()).as_deref() {
            Some("startpos") if head.len() == 1 => Xiangqi::start(self.rules),
            Some("fen") => Xiangqi::from_fen(&head[1..].join(" "), self.rules)
                .map_err(|e| format!("position: {}", parse_error_text(&e)))?,
            _ => {
                return Err(format!(
                    "expected position startpos|fen FEN [moves …], got {:?}",
                    Clipped(&args.join(" "))
                ))
            }
        };
        let mut game = History::new(start);
        let moves = moves_at.map_or(&[][..], |p| &args[p + 1..]);
        for (i, t) in moves.iter().enumerate() {
            let at = format!(
                "position move {} of {} {:?}",
                i + 1,
                moves.len(),
                Clipped(t)
            );
            let mv = parse_move(t, self.notation)
                .map_err(|e| format!("{at}: {}", parse_error_text(&e)))?;
            let before = game.current().clone();
            // Moves after a repetition our rules judge are the GUI's to allow (`go` then
            // searches the bare position, as for a repetition reached by `position`).
            game.play_on(mv)
                .map_err(|e| format!("{at} {}", self.illegal_text(&before, t, mv, &e.reason)))?;
        }
        Ok(game)
    }

    /// The limits of a `go`: `Err` (the reason) for a limit that is no number or counts
    /// nothing (`go movetime abc`, `go depth 0`), which refuses the whole command rather than
    /// searching under limits the GUI did not ask for; a `searchmoves` move that cannot be
    /// searched is left out with an error line.
    fn parse_go(&self, args: &[&str], out: &mut dyn Write) -> io::Result<Result<Go, String>> {
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
                    go.restricted = true;
                    let pos = self.game.current();
                    while i < args.len() {
                        let t = args[i];
                        let lt = t.to_ascii_lowercase();
                        if GO_KEYS.contains(&lt.as_str())
                            || ["infinite", "ponder"].contains(&lt.as_str())
                        {
                            break;
                        }
                        i += 1;
                        let at = format!("go searchmoves {:?}", Clipped(t));
                        match parse_move(t, self.notation) {
                            Ok(m) if pos.is_legal(m) => go.searchmoves.push(m),
                            Ok(m) => {
                                let why = pos.illegal_reason(m);
                                self.error(
                                    out,
                                    format!("{at} {}; ignored", self.illegal_text(pos, t, m, &why)),
                                )?
                            }
                            Err(e) => {
                                self.error(out, format!("{at}: {}; ignored", parse_error_text(&e)))?
                            }
                        }
                    }
                }
                k if GO_KEYS.contains(&k) => {
                    let Some(v) = args.get(i).and_then(|v| v.parse::<i64>().ok()) else {
                        let t = args.get(i).unwrap_or(&"");
                        let digits = t.strip_prefix('-').unwrap_or(t);
                        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                            return Ok(Err(format!(
                                "go {k} {} is out of range (at most {})",
                                Clipped(t),
                                i64::MAX
                            )));
                        }
                        return Ok(Err(format!("go {k} needs a number, got {:?}", Clipped(t))));
                    };
                    i += 1;
                    // Limits that count something must be at least 1: `go depth 0` or
                    // `go nodes -5` is refused rather than silently searched as a minimal
                    // search.
                    if matches!(k, "depth" | "nodes" | "movetime" | "movestogo") && v < 1 {
                        return Ok(Err(format!("go {k} must be a positive number, got {v}")));
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
                other => self.error(out, format!("unknown go parameter {:?}", Clipped(other)))?,
            }
        }
        if go.restricted && go.searchmoves.is_empty() {
            self.error(
                out,
                "go searchmoves: none of the moves can be searched; searching every move",
            )?;
        }
        Ok(Ok(go))
    }

    /// What a `go` says about the time ([`TimeControl`]): `movetime` a turn limit; `time`
    /// (UCCI, seconds unless `usemillisec`) or the side to move's `wtime`/`btime` (ms) a
    /// clock with `movestogo` and the increment; `None` for no clock limit (`depth`, `nodes`
    /// or `infinite` alone); nothing at all: [`EngineConfig::default_move_time`].
    fn time_control(&self, go: &Go) -> Option<TimeControl> {
        let ms = |v: i64| Duration::from_millis(v.max(0) as u64);
        let unit = |v: i64| {
            if self.millisec || self.dialect == Dialect::Uci {
                ms(v)
            } else {
                ms(v.saturating_mul(1000))
            }
        };
        let clock = |left: Duration, increment: Duration| TimeControl {
            turn: None,
            clock: Some(PlayerClock {
                left,
                moves: MovesToGo::Control {
                    moves: go.movestogo,
                    increment,
                },
            }),
        };
        if let Some(t) = go.movetime {
            return Some(TimeControl {
                turn: Some(Duration::from_millis(t)),
                clock: None,
            });
        }
        if let Some(t) = go.time {
            return Some(clock(unit(t), unit(go.increment.unwrap_or(0))));
        }
        let (own, inc) = match self.game.current().side_to_move() {
            Side::First => (go.wtime, go.winc),
            Side::Second => (go.btime, go.binc),
        };
        if let Some(t) = own {
            return Some(clock(ms(t), ms(inc.unwrap_or(0))));
        }
        if go.depth.is_some() || go.nodes.is_some() || go.infinite {
            return None;
        }
        Some(TimeControl {
            turn: None,
            clock: None,
        })
    }

    /// The `score …` text for a value (or a proven result) reached after `plies` plies.
    fn score(&self, value: f32, proven: Option<Outcome>, plies: usize) -> String {
        let plies = plies.max(1) as i32;
        match (self.dialect, proven) {
            (Dialect::Uci, Some(Outcome::Win)) => format!("mate {}", (plies + 1) / 2),
            (Dialect::Uci, Some(Outcome::Loss)) => format!("mate -{}", (plies + 1) / 2),
            (Dialect::Uci, _) => format!("cp {}", value_to_cp(value)),
            (Dialect::Ucci, Some(Outcome::Win)) => format!("{}", 30000 - plies),
            (Dialect::Ucci, Some(Outcome::Loss)) => format!("{}", -(30000 - plies)),
            (Dialect::Ucci, _) => format!("{}", value_to_cp(value)),
        }
    }

    /// The `info` lines of a search state: one line, or with `MultiPV` > 1 one per
    /// [`Thought::lines`] entry with `multipv k` (see [`UcciEngine::run`]).
    fn info_lines(&self, t: &Thought<Xiangqi>) -> String {
        let ms = t.elapsed.as_millis();
        // Nodes are the simulations this search ran: the root's own evaluation and visits
        // kept from the previous move's tree are not searched nodes.
        let nps = (f64::from(t.simulations) / t.elapsed.as_secs_f64().max(1e-6)) as u64;
        let line = |multipv: Option<usize>, value: f32, proven: Option<Outcome>, pv: &[Move]| {
            let mut s = format!("info depth {}", t.depth());
            if let Some(k) = multipv {
                s.push_str(&format!(" multipv {k}"));
            }
            s.push_str(&format!(" score {}", self.score(value, proven, pv.len())));
            if self.show_wdl {
                let [w, d, l] = match proven {
                    Some(o) => value_to_wdl(o.value()),
                    None => value_to_wdl(value),
                };
                s.push_str(&format!(" wdl {w} {d} {l}"));
            }
            let pv: Vec<String> = pv.iter().map(|&m| format_move(m, self.notation)).collect();
            s.push_str(&format!(
                " nodes {} time {ms} nps {nps} pv {}",
                t.simulations,
                pv.join(" ")
            ));
            s
        };
        if self.multipv <= 1 {
            return line(None, t.value, t.proven, &t.pv);
        }
        t.lines
            .iter()
            .enumerate()
            .map(|(k, l)| line(Some(k + 1), l.value, l.proven, &l.pv))
            .collect::<Vec<_>>()
            .join("\n")
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
        let go = match self.parse_go(args, out)? {
            Ok(go) => go,
            Err(e) => {
                // Answered at once, so that a GUI waiting for `bestmove` does not hang; the
                // `banmoves` stand for the next `go`.
                self.error(out, format!("{e}; nothing searched"))?;
                match self.dialect {
                    Dialect::Ucci => writeln!(out, "nobestmove")?,
                    Dialect::Uci => writeln!(out, "bestmove (none)")?,
                }
                return Ok(());
            }
        };
        let mut banned = std::mem::take(&mut self.banned);
        if !go.searchmoves.is_empty() {
            let legal = self.game.current().legal_moves_vec();
            banned.extend(legal.into_iter().filter(|m| !go.searchmoves.contains(m)));
        }
        let fixed = self.config.fixed_simulations;
        let waiting = go.infinite || go.ponder;
        let plan = if fixed {
            None
        } else {
            self.time_control(&Go {
                infinite: false,
                ..go
            })
            .map(|tc| tc.plan(&self.config))
        };
        let search_time = plan.map(|p| p.search);
        // `go nodes` (≥ 1, checked by `parse_go`) replaces the configured cap.
        let mut budget = self.config.budget;
        if let Some(n) = go.nodes {
            budget.simulations = Some(n.min(u64::from(u32::MAX)) as u32);
        }
        let mut limits = ThinkLimits {
            budget,
            deadline: if waiting {
                None
            } else {
                search_time.map(|b| received + b)
            },
            depth: go.depth,
            snapshot_every: None,
            multipv: self.multipv as usize,
            steer: plan.filter(|_| !waiting).and_then(|p| p.steer(received)),
        };
        let mut st = GoState {
            waiting: go.infinite || go.ponder,
            ponder_only: go.ponder && !go.infinite,
            search_time,
            stopped: false,
            eof: false,
            quit: false,
            io_err: None,
        };
        // Fixed simulations answer a position the same whatever came before it.
        let reuse = self.config.reuse_tree && !fixed;
        let mut tree = self.tree.take().filter(|_| reuse);
        let this = &*self;
        // The last info line printed, so that the final report does not repeat it.
        let mut last_info = String::new();
        let result = think(
            &this.game,
            &banned,
            this.stack.evaluator(),
            &this.config.search,
            &limits,
            received,
            &mut tree,
            |ev, lim| {
                match ev {
                    Event::Depth(t) => {
                        last_info = this.info_lines(t);
                        if let Err(e) = writeln!(out, "{last_info}").and_then(|()| out.flush()) {
                            st.io_err.get_or_insert(e);
                        }
                    }
                    Event::Snapshot(_) => {}
                    Event::Poll => {
                        while !st.eof {
                            let Ok(msg) = rx.try_recv() else { break };
                            st.on_line(msg, lim, queue, out);
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
            st.on_line(msg, &mut limits.deadline, queue, out);
        }
        self.tree = tree.filter(|_| reuse);
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
                Thought::quick(None, 0.0, None, received, "search failed")
            }
        };
        match t.mv {
            Some(mv) => {
                let info = self.info_lines(&t);
                // The last depth's report again, only later: not repeated.
                if without_clock(&info) != without_clock(&last_info) {
                    writeln!(out, "{info}")?;
                }
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

/// Info lines without their `time` and `nps` fields (which differ between two reports of the
/// same search result).
fn without_clock(info: &str) -> String {
    let mut out = Vec::new();
    let mut words = info.split(' ');
    while let Some(w) = words.next() {
        if w == "time" || w == "nps" {
            words.next();
        } else {
            out.push(w);
        }
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use alphazero_mcts::{EvalError, EvalRequest, SearchBudget, UniformEvaluator};
    use std::io::Cursor;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Mutex;

    #[test]
    fn fairy_ranks_round_trip_and_differ_from_iccs() {
        let mv = Move::parse_iccs("h2e2").unwrap();
        assert_eq!(format_move(mv, Notation::FairyRanks), "h3e3");
        assert_eq!(parse_move("h3e3", Notation::FairyRanks).unwrap(), mv);
        let top = Move::parse_iccs("a9a8").unwrap();
        assert_eq!(format_move(top, Notation::FairyRanks), "a10a9");
        assert_eq!(parse_move("A10A9", Notation::FairyRanks).unwrap(), top);
        for bad in ["a0a1", "a11a1", "j1a1", "a1", "a1a1", "a1a2x", "", "a01a2"] {
            assert!(parse_move(bad, Notation::FairyRanks).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_rank_only_the_other_numbering_has_is_refused_never_reinterpreted() {
        for (text, notation, rank) in [
            (
                "a10a9",
                Notation::Iccs,
                "rank 10 exists only with ranks 1–10",
            ),
            (
                "i9i10",
                Notation::Iccs,
                "rank 10 exists only with ranks 1–10",
            ),
            (
                "h0g2",
                Notation::FairyRanks,
                "rank 0 exists only with ranks 0–9",
            ),
            (
                "e1e0",
                Notation::FairyRanks,
                "rank 0 exists only with ranks 0–9",
            ),
        ] {
            let e = parse_move(text, notation).expect_err(text);
            assert_eq!(e.input, text);
            assert!(e.reason.starts_with(rank), "{text}: {}", e.reason);
        }
        // Strings both numberings read are read by the one in use: different squares.
        let iccs = parse_move("h2e2", Notation::Iccs).unwrap();
        let fairy = parse_move("h2e2", Notation::FairyRanks).unwrap();
        assert_ne!(iccs, fairy);
        assert_eq!(format_move(fairy, Notation::Iccs), "h1e1");
        for n in [Notation::Iccs, Notation::FairyRanks] {
            assert!(parse_move("a01a2", n).is_err());
            assert_eq!(n.other().other(), n);
        }
    }

    /// Counts the positions it evaluates and the rayon threads it sees; answers uniformly.
    #[derive(Default)]
    struct Probe {
        positions: AtomicU64,
        threads: Mutex<Vec<usize>>,
    }

    impl Evaluator<Xiangqi> for Probe {
        fn evaluate(
            &self,
            batch: &[EvalRequest<'_, Xiangqi>],
            policy_logits: &mut [f32],
            values: &mut [f32],
        ) -> Result<(), EvalError> {
            self.positions
                .fetch_add(batch.len() as u64, Ordering::Relaxed);
            self.threads
                .lock()
                .unwrap()
                .push(rayon::current_num_threads());
            UniformEvaluator.evaluate(batch, policy_logits, values)
        }
    }

    fn engine(probe: &Arc<Probe>) -> UcciEngine {
        UcciEngine::new(
            probe.clone(),
            EngineConfig::fixed(400, 3),
            XiangqiConfig::default(),
        )
    }

    fn feed(e: &mut UcciEngine, input: &str) -> String {
        let mut out = Vec::new();
        e.run(Cursor::new(input.to_string().into_bytes()), &mut out)
            .unwrap();
        String::from_utf8(out).unwrap()
    }

    /// Positions evaluated by the network for two identical searches, with `hash` MiB.
    fn evaluated_twice(hash: &str) -> (u64, u64) {
        let probe = Arc::new(Probe::default());
        let mut e = engine(&probe);
        let out = feed(&mut e, &format!("uci\nsetoption name Hash value {hash}\n"));
        assert!(!out.contains("error"), "{out}");
        let go = "position startpos moves h3e3 h10g8\ngo nodes 400\n";
        feed(&mut e, go);
        let first = probe.positions.load(Ordering::Relaxed);
        feed(&mut e, go);
        (first, probe.positions.load(Ordering::Relaxed) - first)
    }

    #[test]
    fn go_nodes_n_reports_n_nodes_searched() {
        let probe = Arc::new(Probe::default());
        let mut e = engine(&probe);
        let out = feed(&mut e, "uci\nposition startpos\ngo nodes 50\n");
        let last = out
            .lines()
            .rfind(|l| l.starts_with("info depth"))
            .unwrap_or_else(|| panic!("no info line: {out}"));
        let nodes: Vec<&str> = last.split(' ').skip_while(|&w| w != "nodes").collect();
        assert_eq!(nodes.get(1), Some(&"50"), "{last}");
        assert!(out.contains("bestmove"), "{out}");
    }

    #[test]
    fn a_search_starts_from_the_previous_trees_subtree_of_the_moves_played_since() {
        let engine = |reuse_tree: bool| {
            let config = EngineConfig {
                budget: SearchBudget::simulations(400),
                reuse_tree,
                ..EngineConfig::default()
            };
            UcciEngine::new(Arc::new(Probe::default()), config, XiangqiConfig::default())
        };
        let root_visits = |e: &UcciEngine| e.tree.as_ref().map(|t| t.result().root_visits);
        // What an empty tree gets from 300 simulations in `position`, with the same seed.
        let fresh = |position: &str| {
            let mut e = engine(true);
            let out = feed(&mut e, &format!("uci\n{position}\ngo nodes 300\n"));
            root_visits(&e).unwrap_or_else(|| panic!("no tree kept: {out}"))
        };
        let mut e = engine(true);
        let out = feed(&mut e, "uci\nposition startpos\ngo nodes 300\n");
        let pv: Vec<&str> = out
            .lines()
            .rfind(|l| l.starts_with("info depth"))
            .and_then(|l| l.split(" pv ").nth(1))
            .unwrap_or_else(|| panic!("no pv: {out}"))
            .split(' ')
            .collect();
        assert!(pv.len() >= 3, "{out}");
        // The expected line: the kept subtree's visits come on top of the 300 new ones.
        let later = format!("position startpos moves {} {}", pv[0], pv[1]);
        feed(&mut e, &format!("{later}\ngo nodes 300\n"));
        assert!(
            root_visits(&e).unwrap() > fresh(&later),
            "{:?}",
            root_visits(&e)
        );
        // Another game: an empty tree.
        let other = "position startpos moves h3e3";
        feed(&mut e, &format!("ucinewgame\n{other}\ngo nodes 300\n"));
        assert_eq!(root_visits(&e), Some(fresh(other)));
        // Fixed simulations, or reuse off, keep no tree.
        e.config.fixed_simulations = true;
        feed(&mut e, "go nodes 300\n");
        assert!(e.tree.is_none());
        let mut off = engine(false);
        feed(&mut off, "position startpos\ngo nodes 300\n");
        assert!(off.tree.is_none());
    }

    #[test]
    fn hash_sizes_the_evaluation_cache() {
        // No cache: the same search evaluates everything again.
        let (first, again) = evaluated_twice("0");
        assert!(first > 300, "{first}");
        assert_eq!(again, first);
        // 64 MiB (~7,900 positions) holds the whole search: nothing is evaluated again.
        // (Within one search, transpositions may hit it already.)
        let (first64, again64) = evaluated_twice("64");
        assert!(first64 <= first && first64 > 300, "{first64} of {first}");
        assert_eq!(again64, 0);
        // 1 MiB holds ~124 positions: some of the search comes from the cache, not all.
        let (_, again1) = evaluated_twice("1");
        assert!(again1 > 0 && again1 < first, "{again1} of {first}");
    }

    #[test]
    fn threads_sets_the_pool_network_evaluations_run_on() {
        for (setting, want) in [(None, 1), (Some(3), 3), (Some(1), 1)] {
            let probe = Arc::new(Probe::default());
            let mut e = engine(&probe);
            let mut input = "uci\n".to_string();
            if let Some(n) = setting {
                input.push_str(&format!("setoption name Threads value {n}\n"));
            }
            input.push_str("position startpos\ngo nodes 20\n");
            feed(&mut e, &input);
            let seen = probe.threads.lock().unwrap().clone();
            assert!(!seen.is_empty());
            assert!(seen.iter().all(|&t| t == want), "{setting:?}: {seen:?}");
        }
    }

    #[test]
    fn move_overhead_is_kept_back_from_the_time_budget() {
        let mut e = UcciEngine::new(
            Arc::new(UniformEvaluator),
            EngineConfig::default(),
            XiangqiConfig::default(),
        );
        let go = Go {
            movetime: Some(1000),
            ..Go::default()
        };
        let usable = |e: &UcciEngine| e.time_control(&go).unwrap().plan(&e.config).search;
        // The default (50 ms, at least 5 %).
        assert_eq!(usable(&e), Duration::from_millis(950));
        feed(&mut e, "uci\nsetoption name Move Overhead value 300\n");
        assert_eq!(usable(&e), Duration::from_millis(700));
        // A bad value changes nothing.
        let out = feed(&mut e, "setoption name Move Overhead value -1\n");
        assert!(
            out.contains("option Move Overhead: expected an integer from 0 to 5000"),
            "{out}"
        );
        assert_eq!(usable(&e), Duration::from_millis(700));
        feed(&mut e, "setoption name move overhead value 0\n");
        assert_eq!(usable(&e), Duration::from_millis(950));
    }

    #[test]
    fn go_time_is_read_as_the_clock_of_the_side_to_move_in_the_dialects_unit() {
        let mut e = UcciEngine::new(
            Arc::new(UniformEvaluator),
            EngineConfig::default(),
            XiangqiConfig::default(),
        );
        let clock = |left: u64, moves: Option<u64>, inc: u64| {
            Some(TimeControl {
                turn: None,
                clock: Some(PlayerClock {
                    left: Duration::from_millis(left),
                    moves: MovesToGo::Control {
                        moves,
                        increment: Duration::from_millis(inc),
                    },
                }),
            })
        };
        let go = |w: &str| {
            let args: Vec<&str> = w.split(' ').collect();
            let mut sink = Vec::new();
            e.parse_go(&args, &mut sink).unwrap().unwrap()
        };
        let (time, both, depth) = (
            go("time 12000 movestogo 40 increment 100"),
            go("wtime 9000 btime 7000 winc 10 binc 20"),
            go("depth 5"),
        );
        // Milliseconds (`usemillisec` is on by default); red is to move.
        assert_eq!(e.time_control(&time), clock(12_000, Some(40), 100));
        assert_eq!(e.time_control(&both), clock(9000, None, 10));
        assert_eq!(e.time_control(&depth), None);
        feed(
            &mut e,
            "ucci\nsetoption usemillisec false\nposition startpos moves h2e2\n",
        );
        assert_eq!(e.time_control(&time), clock(12_000_000, Some(40), 100_000));
        assert_eq!(e.time_control(&both), clock(7000, None, 20));
    }

    /// Logits falling by 0.05 per action index (about 2 between neighbouring legal moves at
    /// the start): a policy as sharp as a trained network's.
    struct Sharp;

    impl Evaluator<Xiangqi> for Sharp {
        fn evaluate(
            &self,
            batch: &[EvalRequest<'_, Xiangqi>],
            policy_logits: &mut [f32],
            values: &mut [f32],
        ) -> Result<(), EvalError> {
            UniformEvaluator.evaluate(batch, policy_logits, values)?;
            let actions = policy_logits.len() / batch.len().max(1);
            for (i, l) in policy_logits.iter_mut().enumerate() {
                *l = -0.05 * (i % actions) as f32;
            }
            Ok(())
        }
    }

    #[test]
    fn policy_temperature_sets_the_search_and_flatter_priors_search_more_root_moves() {
        // Root moves the search visited in 200 simulations (MultiPV lists only those).
        let searched = |setting: &str| {
            let mut e = UcciEngine::new(
                Arc::new(Sharp),
                EngineConfig::fixed(200, 5),
                XiangqiConfig::default(),
            );
            let out = feed(
                &mut e,
                &format!("uci\n{setting}setoption name MultiPV value 500\nposition startpos\ngo nodes 200\n"),
            );
            assert!(!out.contains("error"), "{out}");
            let last = out
                .lines()
                .rev()
                .find(|l| l.contains(" multipv 1 "))
                .unwrap();
            let depth = last.split(' ').nth(2).unwrap().to_string();
            let lines = out
                .lines()
                .filter(|l| {
                    l.starts_with(&format!("info depth {depth} ")) && l.contains(" multipv ")
                })
                .count();
            (e.config().search.policy_temperature, lines)
        };
        let (t1, sharp) = searched("setoption name PolicyTemperature value 1\n");
        let (t10, flat) = searched("setoption policytemperature 10\n");
        assert_eq!((t1, t10), (1.0, 10.0));
        assert!(
            flat > sharp + 5,
            "root moves searched: T = 1 {sharp}, T = 10 {flat}"
        );
        // The default is the configured search's; a bad value changes nothing.
        let mut e = UcciEngine::new(
            Arc::new(UniformEvaluator),
            EngineConfig::default(),
            XiangqiConfig::default(),
        );
        let want = EngineConfig::default().search.policy_temperature;
        let out = feed(&mut e, "uci\n");
        assert!(
            out.contains(&format!(
                "option name PolicyTemperature type string default {want}"
            )),
            "{out}"
        );
        for bad in ["0", "0.05", "11", "NaN", "inf", "hot", ""] {
            let out = feed(
                &mut e,
                &format!("setoption name PolicyTemperature value {bad}\n"),
            );
            assert!(
                out.contains("option PolicyTemperature: expected a number in [0.1, 10]"),
                "{bad}: {out}"
            );
            assert_eq!(e.config().search.policy_temperature, want, "{bad}");
        }
    }

    #[test]
    fn uci_selects_ranks_1_to_10_and_ucci_ranks_0_to_9_unless_the_gui_chose() {
        let mut e = UcciEngine::new(
            Arc::new(UniformEvaluator),
            EngineConfig::fixed(8, 1),
            XiangqiConfig::default(),
        );
        assert_eq!(e.notation(), Notation::Iccs);
        feed(&mut e, "uci\n");
        assert_eq!(e.notation(), Notation::FairyRanks);
        feed(&mut e, "ucci\n");
        assert_eq!(e.notation(), Notation::Iccs);
        feed(&mut e, "setoption rankbase 1\nucci\n");
        assert_eq!(e.notation(), Notation::FairyRanks);
        feed(&mut e, "setoption name UCI_RankBase value 0\nuci\n");
        assert_eq!(e.notation(), Notation::Iccs);
    }

    #[test]
    fn the_last_depth_report_is_not_repeated_before_bestmove() {
        let probe = Arc::new(Probe::default());
        let mut e = UcciEngine::new(
            probe.clone(),
            EngineConfig::fixed(400, 3),
            XiangqiConfig::default(),
        );
        let out = feed(&mut e, "ucci\nposition startpos\ngo depth 2\nquit\n");
        let infos: Vec<String> = out
            .lines()
            .filter(|l| l.starts_with("info depth"))
            .map(without_clock)
            .collect();
        assert!(!infos.is_empty(), "{out}");
        for pair in infos.windows(2) {
            assert_ne!(pair[0], pair[1], "a report repeated:\n{out}");
        }
        assert!(out.contains("bestmove "), "{out}");
        assert_eq!(
            without_clock("info depth 2 score 5 nodes 17 time 3 nps 5000 pv h2e2"),
            "info depth 2 score 5 nodes 17 pv h2e2"
        );
    }

    /// Uniform policy and value; from its `from`-th call on, every call takes `stall`.
    struct Stalling {
        calls: AtomicU64,
        from: u64,
        stall: Duration,
    }

    impl Evaluator<Xiangqi> for Stalling {
        fn evaluate(
            &self,
            batch: &[EvalRequest<'_, Xiangqi>],
            policy_logits: &mut [f32],
            values: &mut [f32],
        ) -> Result<(), EvalError> {
            if self.calls.fetch_add(1, Ordering::SeqCst) + 1 >= self.from {
                std::thread::sleep(self.stall);
            }
            UniformEvaluator.evaluate(batch, policy_logits, values)
        }
    }

    #[test]
    fn a_move_after_a_search_that_overran_its_deadline_still_searches() {
        // Quick batches, then each takes 0.7 s against a `movetime` of 0.3 s: the first
        // search overruns its deadline in the batch it had started; the next `go` still
        // searches (at least its first batch) and answers from that search, with the
        // first search's tree carried over.
        let eval = Stalling {
            calls: AtomicU64::new(0),
            from: 10,
            stall: Duration::from_millis(700),
        };
        let mut e = UcciEngine::new(
            Arc::new(eval),
            EngineConfig::default(),
            XiangqiConfig::default(),
        );
        let searched = |out: &str| -> (u64, String) {
            let info = out
                .lines()
                .rfind(|l| l.starts_with("info depth"))
                .unwrap_or_else(|| panic!("no info line: {out}"));
            let nodes = info
                .split(" nodes ")
                .nth(1)
                .and_then(|r| r.split(' ').next()?.parse().ok())
                .unwrap_or_else(|| panic!("no nodes: {info}"));
            let best = out
                .lines()
                .find_map(|l| l.strip_prefix("bestmove "))
                .unwrap_or_else(|| panic!("no bestmove: {out}"));
            (nodes, best.to_string())
        };
        let first = feed(&mut e, "uci\nposition startpos\ngo movetime 300\n");
        let (nodes, best) = searched(&first);
        assert!(nodes > 0, "{first}");
        // Overran: answered after a 0.7 s batch although its deadline was 0.25 s.
        let ms: u64 = first
            .lines()
            .rfind(|l| l.starts_with("info depth"))
            .and_then(|l| l.split(" time ").nth(1)?.split(' ').next()?.parse().ok())
            .expect(&first);
        assert!(ms >= 700, "{first}");
        let mut words = best.split(' ');
        let (ours, reply) = (words.next().unwrap(), words.nth(1).expect(&best));
        let second = feed(
            &mut e,
            &format!("position startpos moves {ours} {reply}\ngo movetime 300\n"),
        );
        let (nodes, _) = searched(&second);
        assert!(nodes > 0, "{second}");
        let kept = e.tree.as_ref().map_or(0, |t| t.result().root_visits);
        assert!(
            u64::from(kept) > nodes + 1,
            "{kept} visits, {nodes} nodes: {second}"
        );
    }
}
