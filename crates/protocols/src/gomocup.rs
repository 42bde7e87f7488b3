//! The Gomocup (Piskvork "new" pipe protocol) brain.

use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use alphazero_game::{Game, History, Outcome, Side};
use alphazero_gomoku::{Gomoku, GomokuConfig, GomokuMove, Rule, MAX_SIZE, MIN_SIZE};
use alphazero_mcts::{EvalRequest, Evaluator, Search, SearchBudget};

use crate::clock::{MovePlan, MovesToGo, PlayerClock, TimeControl};
use crate::lines::{read_line_any, too_long_quote, ReadLine};
use crate::think::{think, Control, Event, ThinkLimits, Thought};

mod swap2;
use crate::{bounded, Clipped, EngineConfig, MAX_LINE_BYTES};

/// Nodes of the tactical search (five, forced block, VCF) for a move made with no time to
/// search (`INFO time_left` ≤ 0, `timeout_turn 0`, or nothing from the search by the hard
/// deadline).
const QUICK_TACTICAL_BUDGET: u32 = 500;

/// A `BOARD` or `SWAP2BOARD` block being read: its stones (`X,Y,F` with F 1 or 2; `X,Y` in
/// move order for `SWAP2BOARD`, stored with F 0) with the number of the line that gave each,
/// the number of stone lines read so far, and the block's first error.
#[derive(Default)]
struct BoardBlock {
    swap2: bool,
    stones: Vec<(GomokuMove, u8, usize)>,
    lines: usize,
    error: Option<String>,
}

/// Whether the engine goes on after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep reading commands.
    Continue,
    /// `END` (or `quit`) was received: stop without printing anything more.
    Quit,
}

/// A Gomocup brain: keeps the board, answers commands, searches with the evaluator.
///
/// Board state is the list of stones in move order with their colours; the position for the
/// search is rebuilt from it by replaying the moves when the colours alternate from black (so
/// renju fouls and the last move are exact), else from the stone sets
/// ([`Gomoku::from_stones`]).
///
/// Colours in `BOARD`: the side with more stones is black; with equal counts the side to move
/// (us) is black. Replies and errors are described on [`GomocupEngine::handle_line`].
pub struct GomocupEngine {
    evaluator: Arc<dyn Evaluator<Gomoku>>,
    config: EngineConfig,
    size: Option<u8>,
    rule: Rule,
    stones: Vec<(GomokuMove, Side)>,
    to_move: Side,
    game: Option<History<Gomoku>>,
    timeout_turn: Option<u64>,
    timeout_match: Option<u64>,
    /// The last `INFO time_left` (ms) and [`Self::match_used`] when it came.
    time_left: Option<(i64, Duration)>,
    /// Time spent answering moves since `START` / `RESTART` (from each command to its answer).
    match_used: Duration,
    max_memory: Option<u64>,
    folder: Option<String>,
    /// Lines of a `BOARD` block being read, and the first error in it.
    board: Option<BoardBlock>,
    /// The board side and rule last warned about (see [`EngineConfig::networks_trained_for`]).
    rule_warned: Option<(u8, Rule)>,
    /// The board side last warned about as played without a network (see
    /// [`EngineConfig::warn_network_less`]).
    network_less_warned: Option<u8>,
    /// The last search's tree, for the next search to start from the subtree of the moves
    /// played since ([`EngineConfig::reuse_tree`]), with the number of the search that may
    /// put its tree back: shared with the search's worker thread, which puts its tree back
    /// when it ends (also after an answer at the hard deadline), unless a later search has
    /// started without it.
    tree: Arc<Mutex<(u64, Option<Search<Gomoku>>)>>,
    /// Told (or dropped) by the last search's worker thread when it has ended and put its
    /// tree back; `None` when no worker may still be running.
    worker_done: Mutex<Option<mpsc::Receiver<()>>>,
}

/// Answers a Gomocup manager for a brain that cannot play (its evaluator could not be
/// loaded): `ERROR <reason>` to every command that expects a reply, until `END` or the end of
/// input, so that the manager shows why instead of a brain that died without a word.
///
/// # Errors
/// Only I/O errors of `input`/`output`.
pub fn refuse_gomocup<R: BufRead, W: Write>(
    input: R,
    mut output: W,
    reason: &str,
) -> io::Result<()> {
    let reason = reason.replace(['\r', '\n'], " ");
    for line in input.lines() {
        let line = line?;
        let command = line.split_whitespace().next().unwrap_or("");
        match command.to_ascii_uppercase().as_str() {
            "END" => break,
            "START" | "RECTSTART" | "RESTART" | "BEGIN" | "TURN" | "BOARD" | "SWAP2BOARD"
            | "TAKEBACK" | "PLAY" | "ABOUT" => {
                writeln!(output, "ERROR {reason}")?;
                output.flush()?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// Runs a Gomocup brain over `input`/`output` until `END` or end of input, flushing after
/// every reply. Lines may end in CR LF, LF or CR; commands are case-insensitive.
///
/// # Errors
/// Only I/O errors of `input`/`output`. Protocol errors are answered with `ERROR …` /
/// `UNKNOWN …` lines and the brain keeps running.
pub fn run_gomocup<R: BufRead, W: Write>(
    input: R,
    output: W,
    evaluator: Arc<dyn Evaluator<Gomoku>>,
    config: EngineConfig,
) -> io::Result<()> {
    GomocupEngine::new(evaluator, config).run(input, output)
}

fn err_line(out: &mut dyn Write, msg: impl AsRef<str>) -> io::Result<()> {
    writeln!(out, "ERROR {}", bounded(msg.as_ref()))
}

impl GomocupEngine {
    /// A brain with no board yet (`START` comes first).
    pub fn new(evaluator: Arc<dyn Evaluator<Gomoku>>, config: EngineConfig) -> Self {
        GomocupEngine {
            evaluator,
            config,
            size: None,
            rule: Rule::Freestyle,
            stones: Vec::new(),
            to_move: Side::First,
            game: None,
            timeout_turn: None,
            timeout_match: None,
            time_left: None,
            match_used: Duration::ZERO,
            max_memory: None,
            folder: None,
            board: None,
            rule_warned: None,
            network_less_warned: None,
            tree: Arc::new(Mutex::new((0, None))),
            worker_done: Mutex::new(None),
        }
    }

    /// Says once per board side and rule, in a `MESSAGE`, that the network plays a rule it
    /// was not trained for on its own board size (no network of the side was trained for
    /// the rule; other sizes use no network).
    fn warn_untrained_rule(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let Some(n) = self.size else { return Ok(()) };
        let trained = &self.config.networks_trained_for;
        let Some(&(_, trained_rule)) = trained.iter().find(|(side, _)| *side == n) else {
            return Ok(());
        };
        if trained.contains(&(n, self.rule)) || self.rule_warned == Some((n, self.rule)) {
            return Ok(());
        }
        self.rule_warned = Some((n, self.rule));
        writeln!(
            out,
            "MESSAGE warning: the network was trained for {} on {n}x{n}; it plays {} here \
             without having learnt it (the search applies the {} rules)",
            trained_rule.name(),
            self.rule.name(),
            self.rule.name()
        )
    }

    /// Says in a `MESSAGE` that a board without a network is played by a search without one
    /// ([`EngineConfig::warn_network_less`]): once for a board side, until another board is
    /// started.
    fn warn_network_less(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let Some(n) = self.size else { return Ok(()) };
        let trained = &self.config.networks_trained_for;
        if trained.iter().any(|(side, _)| *side == n) {
            // A network's own board: a later board without one is announced again.
            self.network_less_warned = None;
            return Ok(());
        }
        if !self.config.warn_network_less || self.network_less_warned == Some(n) {
            return Ok(());
        }
        self.network_less_warned = Some(n);
        let which = match trained.as_slice() {
            [] => "the brain has no network".to_string(),
            sides => {
                let mut sides: Vec<String> =
                    sides.iter().map(|(t, _)| format!("{t}x{t}")).collect();
                // One entry per side: a side may have a network for each rule.
                sides.dedup();
                format!("the brain's networks are for {} boards", sides.join(", "))
            }
        };
        writeln!(
            out,
            "MESSAGE warning: no network for {n}x{n} ({which}): this game is played by a \
             search without a network (uniform priors), far weaker"
        )
    }

    /// The current position, `None` before `START`.
    pub fn position(&self) -> Option<&Gomoku> {
        self.game.as_ref().map(History::current)
    }

    /// The rule in force (`INFO rule`).
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The persistent-file folder given by `INFO folder`, if any.
    pub fn folder(&self) -> Option<&str> {
        self.folder.as_deref()
    }

    /// The engine's settings, among them the search it plays with
    /// ([`EngineConfig::search`]).
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// Reads commands from `input` until `END` or end of input; see [`run_gomocup`].
    ///
    /// # Errors
    /// I/O errors only.
    pub fn run<R: BufRead, W: Write>(&mut self, mut input: R, mut output: W) -> io::Result<()> {
        let mut line = String::new();
        loop {
            let flow = match read_line_any(&mut input, &mut line, MAX_LINE_BYTES)? {
                ReadLine::Eof => break,
                ReadLine::Line => self.handle_line(&line, &mut output)?,
                ReadLine::TooLong(bytes) => {
                    self.too_long(&line, bytes, &mut output)?;
                    Flow::Continue
                }
            };
            output.flush()?;
            if flow == Flow::Quit {
                break;
            }
        }
        Ok(())
    }

    /// A line longer than [`MAX_LINE_BYTES`] (`head`: its first bytes): an `ERROR` now, or
    /// inside a `BOARD` / `SWAP2BOARD` block the block's error at `DONE` (the line counts as
    /// one of its lines). Nothing else changes.
    fn too_long(&mut self, head: &str, bytes: usize, out: &mut dyn Write) -> io::Result<()> {
        let what = format!(
            "{} is longer than the {MAX_LINE_BYTES} bytes a line may have",
            too_long_quote(head, bytes)
        );
        match self.board.as_mut() {
            Some(block) => {
                block.lines += 1;
                let cmd = if block.swap2 { "SWAP2BOARD" } else { "BOARD" };
                let n = block.lines;
                block
                    .error
                    .get_or_insert_with(|| format!("{cmd} line {n} {what}"));
                Ok(())
            }
            None => err_line(out, format!("input line {what}; ignored")),
        }
    }

    /// Handles one command line and writes the reply lines (if any) to `out`.
    ///
    /// * `START N` → `OK`, or `ERROR unsupported size N` outside 5–20; `RECTSTART W,H` the
    ///   same when `W = H`, else `ERROR`; `RESTART` → `OK`.
    /// * `BEGIN`, `TURN X,Y`, `BOARD`…`DONE` → `MESSAGE …` (value, visits, PV), `DEBUG …`
    ///   (time) and the move `X,Y`. `PLAY X,Y` plays our move X,Y and echoes it. `BEGIN`
    ///   (move first on an empty board) when stones are already on the board → `ERROR …`.
    /// * `BOARD` block lines are `X,Y,F` with F = 1 (our stone) or 2 (the opponent's), in any
    ///   order (move order for renju). F = 3 marks a winning-line or renju-forbidden stone and
    ///   is allowed by the spec only in a continuous game, which this brain does not support,
    ///   so it is an error like the others. A block with a malformed line, a bad field, a
    ///   point off the board or a point given twice is answered at `DONE` with one
    ///   `ERROR BOARD line N "<line>": <reason>` (its first bad line, numbered from 1 after
    ///   `BOARD`) and no move; the previous position is kept and the brain reads commands as
    ///   before. A well-formed block that is not a reachable position →
    ///   `ERROR BOARD rejected: <reason>`.
    /// * `SWAP2BOARD` block (lines `X,Y` in move order, black first, then `DONE`; Gomocup's
    ///   swap2 opening): 0 stones → the three opening stones `X,Y X,Y X,Y` (black, white,
    ///   black; of a few fixed openings the one the search finds nearest to balanced);
    ///   3 stones → `SWAP` (take black) when the search's value for white is below −0.1,
    ///   `X,Y` (stay white, 4th stone) above +0.1, else `X,Y X,Y` (4th and 5th stones, the
    ///   opponent chooses); 5 stones → `SWAP` when white's value is negative, else `X,Y`
    ///   (the 6th stone, as white). Each answer follows `MESSAGE swap2 …` (the value and
    ///   the choice). The board becomes the block's stones plus those answered. Bad lines
    ///   are errors as in `BOARD` (`ERROR SWAP2BOARD line N …`); another stone count →
    ///   `ERROR SWAP2BOARD needs 0, 3 or 5 stones …`; the position is then unchanged.
    /// * Renju: when the opponent's move (`TURN`, or the last stone of `BOARD`) is a black
    ///   foul, `MESSAGE foul: …` names it (black loses by the rules; the manager judges) and
    ///   the brain still answers a move, playing on from the stones as they stand.
    /// * Time: a move is answered within `timeout_turn` and within its share of the match
    ///   (`time_left`, or `timeout_match` less the time this brain has used since `START`
    ///   when no `time_left` comes), see [`EngineConfig::safety_margin`]; with no time left,
    ///   the move is the tactical one (a five, the forced block, a VCF win) or else the
    ///   network's first choice, without search.
    /// * `INFO key value` → nothing (`rule` 0/1/4 = freestyle/standard/renju, bit 2
    ///   "continuous" and bit 8 "caro" → `ERROR … unsupported`); unknown keys are ignored.
    /// * `TAKEBACK X,Y` → `OK`. `ABOUT` → `name="…", version="…", author="…", country="…"`.
    /// * `END` → nothing, [`Flow::Quit`]. Empty lines are ignored.
    /// * Unknown command → `UNKNOWN …`; malformed or illegal input (bad coordinates, occupied
    ///   or off-board point, a move before `START`, a finished game) → `ERROR <reason>`; the
    ///   state is then unchanged.
    ///
    /// # Errors
    /// I/O errors of `out` only.
    pub fn handle_line(&mut self, line: &str, out: &mut dyn Write) -> io::Result<Flow> {
        let received = Instant::now();
        let line = line.trim();
        if line.is_empty() {
            return Ok(Flow::Continue);
        }
        if self.board.is_some() {
            return self.board_line(line, received, out);
        }
        let (word, rest) = match line.split_once(char::is_whitespace) {
            Some((w, r)) => (w, r.trim()),
            None => (line, ""),
        };
        let word = word.to_ascii_uppercase();
        match word.as_str() {
            "START" => match rest.parse::<u8>() {
                Ok(n) if (MIN_SIZE..=MAX_SIZE).contains(&n) => self.start(n, out)?,
                _ => err_line(out, format!("unsupported size {}", Clipped(rest)))?,
            },
            "RECTSTART" => {
                let dims = rest.split_once(',').and_then(|(w, h)| {
                    Some((w.trim().parse::<u8>().ok()?, h.trim().parse::<u8>().ok()?))
                });
                match dims {
                    Some((w, h)) if w == h && (MIN_SIZE..=MAX_SIZE).contains(&w) => {
                        self.start(w, out)?
                    }
                    Some((w, h)) if w == h => err_line(out, format!("unsupported size {w}"))?,
                    Some((w, h)) => {
                        err_line(out, format!("rectangular board {w}x{h} unsupported"))?
                    }
                    None => err_line(out, format!("bad RECTSTART size {:?}", Clipped(rest)))?,
                }
            }
            "RESTART" => match self.size {
                Some(n) => self.start(n, out)?,
                None => err_line(out, "no board: send START first")?,
            },
            "END" => return Ok(Flow::Quit),
            "ABOUT" => writeln!(
                out,
                "name=\"{}\", version=\"{}\", author=\"{}\", country=\"{}\"",
                self.config.name, self.config.version, self.config.author, self.config.country
            )?,
            "INFO" => self.info(rest, out)?,
            "BEGIN" => {
                if self.size.is_none() {
                    err_line(out, "no board: send START first")?;
                } else if !self.stones.is_empty() {
                    // BEGIN means "move first on the empty board"; a second BEGIN would
                    // otherwise make us move twice in a row.
                    err_line(
                        out,
                        format!(
                            "BEGIN needs an empty board, this one has {} stone(s): send \
                             RESTART or START first",
                            self.stones.len()
                        ),
                    )?;
                } else {
                    self.respond(received, out)?;
                }
            }
            "TURN" => match self.parse_point(rest) {
                Err(e) => err_line(out, e)?,
                Ok(mv) => match self.place(mv) {
                    Err(e) => err_line(out, e)?,
                    Ok(()) => self.respond(received, out)?,
                },
            },
            "PLAY" => match self
                .parse_point(rest)
                .and_then(|mv| self.place(mv).map(|()| mv))
            {
                Err(e) => err_line(out, e)?,
                Ok(mv) => writeln!(out, "{}", mv.to_gomocup())?,
            },
            "BOARD" | "SWAP2BOARD" => {
                // Without a board the block is still swallowed, so its lines are not taken
                // as commands.
                self.board = Some(BoardBlock {
                    swap2: word == "SWAP2BOARD",
                    error: self
                        .size
                        .is_none()
                        .then(|| "no board: send START first".into()),
                    ..BoardBlock::default()
                });
            }
            "TAKEBACK" => match self.parse_point(rest).and_then(|mv| self.takeback(mv)) {
                Err(e) => err_line(out, e)?,
                Ok(()) => writeln!(out, "OK")?,
            },
            _ => writeln!(out, "UNKNOWN unknown command {}", Clipped(&word))?,
        }
        Ok(Flow::Continue)
    }

    fn start(&mut self, n: u8, out: &mut dyn Write) -> io::Result<()> {
        self.size = Some(n);
        self.stones.clear();
        self.to_move = Side::First;
        // A new match: the match clock starts again (a time_left sent before START stands).
        self.match_used = Duration::ZERO;
        self.time_left = self.time_left.map(|(ms, _)| (ms, Duration::ZERO));
        match self.rebuild() {
            Ok(()) => {
                writeln!(out, "OK")?;
                self.warn_untrained_rule(out)?;
                self.warn_network_less(out)
            }
            Err(e) => err_line(out, e),
        }
    }

    fn info(&mut self, rest: &str, out: &mut dyn Write) -> io::Result<()> {
        let (key, value) = match rest.split_once(char::is_whitespace) {
            Some((k, v)) => (k.to_ascii_lowercase(), v.trim()),
            None => (rest.to_ascii_lowercase(), ""),
        };
        let int = value.parse::<i64>();
        let bad = |out: &mut dyn Write| {
            err_line(
                out,
                format!("bad INFO {} value {:?}", Clipped(&key), Clipped(value)),
            )
        };
        match key.as_str() {
            // Limits are never negative (only `time_left` may be, in overtime): a negative
            // one is refused and the old value stays.
            "timeout_turn" | "timeout_match" | "max_memory" => match int {
                Ok(v) if v >= 0 => {
                    let v = v as u64;
                    match key.as_str() {
                        "timeout_turn" => self.timeout_turn = Some(v),
                        "timeout_match" => self.timeout_match = Some(v),
                        _ => self.max_memory = Some(v),
                    }
                }
                _ => bad(out)?,
            },
            "time_left" => match int {
                Ok(v) => self.time_left = Some((v, self.match_used)),
                Err(_) => bad(out)?,
            },
            "rule" => match int {
                Ok(bits) if bits > 15 => {
                    // Bits the protocol does not define: nothing is applied, not even the
                    // known ones (the manager meant some other rule).
                    err_line(
                        out,
                        format!(
                            "INFO rule {bits}: unknown rule bits {} (known: 1 exactly five, \
                             2 continuous, 4 renju, 8 caro); the rule stays {}",
                            bits & !15,
                            self.rule.name()
                        ),
                    )?;
                }
                Ok(bits) if bits >= 0 => {
                    let rule = if bits & 4 != 0 {
                        Rule::Renju
                    } else if bits & 1 != 0 {
                        Rule::Standard
                    } else {
                        Rule::Freestyle
                    };
                    if bits & 2 != 0 {
                        // Says which rule it plays instead, as for caro, so that the manager's
                        // user does not believe the rule asked for is played.
                        err_line(
                            out,
                            format!(
                                "continuous game unsupported; playing {} single games",
                                rule.name()
                            ),
                        )?;
                    }
                    if bits & 8 != 0 {
                        // Caro (a five blocked at both ends does not win) is not one of our
                        // rules; the brain says which rule it plays instead.
                        err_line(
                            out,
                            format!("caro rule unsupported; playing {} instead", rule.name()),
                        )?;
                    }
                    if rule != self.rule {
                        let old = self.rule;
                        self.rule = rule;
                        if self.size.is_some() {
                            if let Err(e) = self.rebuild() {
                                self.rule = old;
                                err_line(out, e)?;
                            }
                        }
                        self.warn_untrained_rule(out)?;
                    }
                }
                _ => bad(out)?,
            },
            "folder" => self.folder = Some(value.to_string()),
            // game_type, evaluate and unknown keys need nothing.
            _ => {}
        }
        Ok(())
    }

    /// `X,Y` on the current board; errors name the text and the board's range.
    fn parse_point(&self, text: &str) -> Result<GomokuMove, String> {
        let n = self.size.ok_or("no board: send START first")?;
        let (x, y) = text
            .split_once(',')
            .ok_or_else(|| format!("bad point {:?}: expected X,Y", Clipped(text)))?;
        let coord = |v: &str, name: &str| -> Result<u8, String> {
            let v = v.trim();
            match v.parse::<i64>() {
                Ok(c) if (0..i64::from(n)).contains(&c) => Ok(c as u8),
                Ok(_) => Err(format!(
                    "{:?} is off the {n}x{n} board: {name} must be in 0..{}",
                    Clipped(text),
                    n - 1
                )),
                Err(_) => Err(format!(
                    "bad point {:?}: {name} is not a number (0..{} on the {n}x{n} board)",
                    Clipped(text),
                    n - 1
                )),
            }
        };
        Ok(GomokuMove::new(coord(x, "x")?, coord(y, "y")?))
    }

    /// Plays `mv` for the side to move.
    fn place(&mut self, mv: GomokuMove) -> Result<(), String> {
        let game = self.game.as_mut().ok_or("no board: send START first")?;
        if game.current().stone_at(mv.x.into(), mv.y.into()).is_some() {
            return Err(format!("{} is occupied", mv.to_gomocup()));
        }
        if game.outcome().is_some() {
            return Err("the game is over".into());
        }
        let side = game.current().side_to_move();
        game.play(mv).map_err(|e| e.to_string())?;
        self.stones.push((mv, side));
        self.to_move = side.opponent();
        Ok(())
    }

    fn takeback(&mut self, mv: GomokuMove) -> Result<(), String> {
        let i = self
            .stones
            .iter()
            .rposition(|&(m, _)| m == mv)
            .ok_or_else(|| format!("no stone at {}", mv.to_gomocup()))?;
        let (old_stones, old_side) = (self.stones.clone(), self.to_move);
        let (_, side) = self.stones.remove(i);
        self.to_move = side;
        self.rebuild().inspect_err(|_| {
            self.stones = old_stones;
            self.to_move = old_side;
        })
    }

    /// Rebuilds the game from the stone list and `to_move`.
    fn rebuild(&mut self) -> Result<(), String> {
        let n = self.size.ok_or("no board: send START first")?;
        let config = GomokuConfig::new(n, self.rule).map_err(|e| e.to_string())?;
        let alternating = self.stones.iter().enumerate().all(|(i, &(_, s))| {
            s == if i % 2 == 0 {
                Side::First
            } else {
                Side::Second
            }
        }) && (self.to_move == Side::First)
            == self.stones.len().is_multiple_of(2);
        if alternating {
            let mut h = History::new(Gomoku::new(&config));
            if self.stones.iter().all(|&(m, _)| h.play(m).is_ok()) {
                self.game = Some(h);
                return Ok(());
            }
        }
        let pick = |side: Side| -> Vec<GomokuMove> {
            self.stones
                .iter()
                .filter(|s| s.1 == side)
                .map(|s| s.0)
                .collect()
        };
        let pos = Gomoku::from_stones(
            &config,
            &pick(Side::First),
            &pick(Side::Second),
            self.to_move,
        )
        .map_err(|e| e.to_string())?;
        self.game = Some(History::new(pos));
        Ok(())
    }

    fn board_line(
        &mut self,
        line: &str,
        received: Instant,
        out: &mut dyn Write,
    ) -> io::Result<Flow> {
        if line.eq_ignore_ascii_case("DONE") {
            let block = self.board.take().unwrap_or_default();
            if let Some(e) = block.error {
                err_line(out, e)?;
                return Ok(Flow::Continue);
            }
            if block.swap2 {
                let moves: Vec<GomokuMove> = block.stones.iter().map(|s| s.0).collect();
                self.swap2(&moves, received, out)?;
                return Ok(Flow::Continue);
            }
            let list = block.stones;
            let own = list.iter().filter(|s| s.1 == 1).count();
            let opp = list.len() - own;
            // The side with more stones moved first; equal counts: we (to move) are black.
            let us = if opp > own { Side::Second } else { Side::First };
            let (old_stones, old_side) = (std::mem::take(&mut self.stones), self.to_move);
            self.stones = list
                .iter()
                .map(|&(m, f, _)| (m, if f == 1 { us } else { us.opponent() }))
                .collect();
            self.to_move = us;
            if let Err(e) = self.rebuild() {
                self.stones = old_stones;
                self.to_move = old_side;
                return err_line(out, format!("BOARD rejected: {e}")).map(|()| Flow::Continue);
            }
            self.respond(received, out)?;
            return Ok(Flow::Continue);
        }
        let Some(mut block) = self.board.take() else {
            return Ok(Flow::Continue);
        };
        block.lines += 1;
        let n = block.lines;
        let cmd = if block.swap2 { "SWAP2BOARD" } else { "BOARD" };
        if block.error.is_none() {
            let stone = if block.swap2 {
                self.swap2_stone(line).map(|mv| (mv, 0))
            } else {
                self.board_stone(line)
            };
            match stone {
                Ok((mv, f)) => match block.stones.iter().find(|s| s.0 == mv) {
                    Some(&(_, _, first)) => {
                        block.error = Some(format!(
                            "{cmd} line {n} {:?}: {} is already given on {cmd} line {first}",
                            Clipped(line),
                            mv.to_gomocup()
                        ));
                    }
                    None => block.stones.push((mv, f, n)),
                },
                Err(e) => block.error = Some(format!("{cmd} line {n} {:?}: {e}", Clipped(line))),
            }
        }
        self.board = Some(block);
        Ok(Flow::Continue)
    }

    /// One `X,Y` line of a `SWAP2BOARD` block.
    fn swap2_stone(&self, line: &str) -> Result<GomokuMove, String> {
        let fields = line.split(',').count();
        if fields != 2 {
            return Err(format!(
                "expected X,Y (two comma-separated numbers, stones in move order), got \
                 {fields} field(s)"
            ));
        }
        self.parse_point(line)
    }

    /// One `X,Y,F` line of a `BOARD` block: the point and F (1 = ours, 2 = the opponent's).
    ///
    /// F = 3 is refused: the spec allows it only in a continuous game (`INFO rule` bit 2), where
    /// it marks a stone of a winning line or a renju-forbidden stone; this brain does not play
    /// continuous games (the `INFO rule` bit is already answered with `ERROR`), so a 3 means
    /// the position cannot be represented and must not be guessed at.
    fn board_stone(&self, line: &str) -> Result<(GomokuMove, u8), String> {
        if line.split(',').count() != 3 {
            return Err(format!(
                "expected X,Y,F (three comma-separated numbers), got {} fields",
                line.split(',').count()
            ));
        }
        let (xy, f) = line
            .rsplit_once(',')
            .filter(|(xy, _)| xy.contains(','))
            .ok_or("expected X,Y,F")?;
        let f = f.trim();
        let mv = self.parse_point(xy)?;
        match f {
            "1" => Ok((mv, 1)),
            "2" => Ok((mv, 2)),
            "3" => Err(
                "field 3 (a winning-line or forbidden stone of a continuous game) is \
                        only allowed in a continuous game, which this brain does not support"
                    .into(),
            ),
            _ => Err(format!(
                "field must be 1 (own stone) or 2 (opponent's stone), got {:?}",
                Clipped(f)
            )),
        }
    }

    /// Match time left (ms) by the brain's own count: the last `INFO time_left` less the time
    /// used since it came, else `timeout_match` less the time used since `START`. `None`
    /// without a match limit (`timeout_match 0`, `time_left 2147483647`, or neither given).
    fn match_time_left(&self) -> Option<i64> {
        if self.timeout_match == Some(0) {
            return None;
        }
        let since = |at: Duration| i64::try_from(at.as_millis()).unwrap_or(i64::MAX);
        match (self.time_left, self.timeout_match) {
            (Some((left, _)), _) if left >= i64::from(i32::MAX) => None,
            (Some((left, at)), _) => {
                Some(left.saturating_sub(since(self.match_used.saturating_sub(at))))
            }
            (None, Some(total)) => Some(
                i64::try_from(total)
                    .unwrap_or(i64::MAX)
                    .saturating_sub(since(self.match_used)),
            ),
            (None, None) => None,
        }
    }

    /// Time this move may take ([`TimeControl::plan`]), from the `INFO` limits: the turn
    /// limit (`timeout_turn`) and the match time left ([`Self::match_time_left`]) over the
    /// moves still to come on this board; `None` with fixed simulations.
    fn move_plan(&self, pos: &Gomoku) -> Option<MovePlan> {
        if self.config.fixed_simulations {
            return None;
        }
        let empties = (pos.size() * pos.size()).saturating_sub(pos.stone_count()) as u32;
        let tc = TimeControl {
            turn: self.timeout_turn.map(Duration::from_millis),
            clock: self.match_time_left().map(|left| PlayerClock {
                left: Duration::from_millis(left.max(0) as u64),
                moves: MovesToGo::EmptyPoints(empties),
            }),
        };
        Some(tc.plan(&self.config))
    }

    /// The budget of one search: the configured one ([`EngineConfig::budget`]), its cap
    /// lowered by `INFO max_memory`.
    fn search_budget(&self) -> SearchBudget {
        let mut budget = self.config.budget;
        if let Some(mem) = self.max_memory.filter(|&m| m > 0) {
            let by_memory = (mem / self.config.bytes_per_simulation.max(1))
                .clamp(1, u64::from(u32::MAX)) as u32;
            budget.simulations = Some(budget.simulations.map_or(by_memory, |c| c.min(by_memory)));
        }
        budget
    }

    /// Searches `game` within `time` (counted from `received`) with `budget` and returns the
    /// move.
    ///
    /// * `time` `None` (fixed simulations): an ordinary search on this thread.
    /// * No search time at all: [`quick_move`] (tactics, else the network's first choice).
    /// * Otherwise the search runs on a worker thread aiming at `time.search`; the answer
    ///   is its result, or, at the hard deadline ([`MovePlan::hard`]), its latest snapshot
    ///   (the worker is told to stop and finishes its batch in the background), or the
    ///   quick move when it has none yet.
    fn search(
        &self,
        game: &History<Gomoku>,
        received: Instant,
        time: Option<MovePlan>,
        budget: SearchBudget,
    ) -> Result<Thought<Gomoku>, String> {
        // No time budget means fixed simulations, which answer a position the same whatever
        // came before it: no tree is kept for them.
        let Some(time) = time else {
            let limits = ThinkLimits {
                budget,
                deadline: None,
                depth: None,
                snapshot_every: None,
                multipv: 1,
                steer: None,
            };
            return think(
                game,
                &[],
                &*self.evaluator,
                &self.config.search,
                &limits,
                received,
                &mut None,
                |_, _| Control::Continue,
            )
            .map_err(|e| format!("search failed: {e}"));
        };
        if time.search.is_zero() {
            return Ok(quick_move(game, Some(&*self.evaluator), received));
        }
        let reuse = self.config.reuse_tree;
        let (generation, kept) = self.take_tree(received + time.search / 2);
        let kept = kept.filter(|_| reuse);
        let (done_tx, done_rx) = mpsc::channel::<()>();
        if let Ok(mut w) = self.worker_done.lock() {
            *w = Some(done_rx);
        }
        let stop = Arc::new(AtomicBool::new(false));
        let snapshot: Arc<Mutex<Option<Thought<Gomoku>>>> = Arc::new(Mutex::new(None));
        let (tx, rx) = mpsc::channel();
        {
            let (stop, snapshot, slot) = (
                Arc::clone(&stop),
                Arc::clone(&snapshot),
                Arc::clone(&self.tree),
            );
            let (game, evaluator) = (game.clone(), Arc::clone(&self.evaluator));
            let search = self.config.search.clone();
            let limits = ThinkLimits {
                budget,
                deadline: Some(received + time.search),
                depth: None,
                snapshot_every: Some(Duration::from_millis(5)),
                multipv: 1,
                steer: time.steer(received),
            };
            std::thread::spawn(move || {
                let mut tree = kept;
                let r = think(
                    &game,
                    &[],
                    &*evaluator,
                    &search,
                    &limits,
                    received,
                    &mut tree,
                    |ev, _| {
                        if let Event::Snapshot(t) = ev {
                            if let Ok(mut s) = snapshot.lock() {
                                *s = Some(t.clone());
                            }
                        }
                        if stop.load(Ordering::Relaxed) {
                            Control::Stop
                        } else {
                            Control::Continue
                        }
                    },
                );
                // Back before the answer, so that the next move finds it; not over the
                // tree of a later search that started without this one.
                if let Ok(mut t) = slot.lock() {
                    if reuse && t.0 == generation {
                        t.1 = tree;
                    }
                }
                let _ = done_tx.send(());
                // The receiver is gone when the answer was sent at the hard deadline.
                let _ = tx.send(r);
            });
        }
        let hard = received + time.hard();
        match rx.recv_timeout(hard.saturating_duration_since(Instant::now())) {
            Ok(r) => r.map_err(|e| format!("search failed: {e}")),
            Err(_) => {
                stop.store(true, Ordering::Relaxed);
                let latest = snapshot.lock().ok().and_then(|mut s| s.take());
                Ok(match latest {
                    Some(mut t) => {
                        t.reason = "search (answered at the hard deadline)";
                        t.elapsed = received.elapsed();
                        t
                    }
                    None => quick_move(game, None, received),
                })
            }
        }
    }

    /// The tree the last search left, and the number of the search about to start.
    ///
    /// A search answered at the hard deadline goes on in the background until its batch
    /// ends, holding the tree: on a loaded machine the next move came while it still ran,
    /// started from an empty tree beside it, and had no answer of its own by its hard
    /// deadline (a move without search). So the previous worker, already told to stop, is
    /// waited for until `until` (half the new search's time): its tree comes back with
    /// its visits and the cores are free again. A worker still running then keeps its tree
    /// (the new search starts afresh and it puts nothing back).
    fn take_tree(&self, until: Instant) -> (u64, Option<Search<Gomoku>>) {
        let previous = self.worker_done.lock().ok().and_then(|mut w| w.take());
        if let Some(done) = previous {
            // `Disconnected` (the worker ended without a word) counts as ended.
            let _ = done.recv_timeout(until.saturating_duration_since(Instant::now()));
        }
        let Ok(mut slot) = self.tree.lock() else {
            return (0, None);
        };
        slot.0 += 1;
        (slot.0, slot.1.take())
    }

    /// Before a search: when the opponent's last move was a renju foul (the position is
    /// decided for us, the side to move), says so in a `MESSAGE` and plays on from the
    /// stones as they stand. Returns `false` (after an `ERROR`) when the game is over
    /// otherwise (a five, a full board).
    fn check_game_on(&mut self, out: &mut dyn Write) -> io::Result<bool> {
        let Some(game) = self.game.as_ref() else {
            err_line(out, "no board: send START first")?;
            return Ok(false);
        };
        let Some(o) = game.outcome() else {
            return Ok(true);
        };
        let pos = game.current();
        let foul = (o == Outcome::Win && pos.rule() == Rule::Renju)
            .then(|| self.foul_of_last_stone())
            .flatten();
        let Some((mv, foul)) = foul else {
            let what = match o {
                Outcome::Draw => "draw",
                _ => "decided",
            };
            err_line(out, format!("the game is over ({what})"))?;
            return Ok(false);
        };
        writeln!(
            out,
            "MESSAGE foul: the opponent's black stone at {} is forbidden under renju ({foul}); \
             black loses by the rules, playing on",
            mv.to_gomocup()
        )?;
        let n = pos.size() as u8;
        let pick = |side: Side| -> Vec<GomokuMove> {
            self.stones
                .iter()
                .filter(|s| s.1 == side)
                .map(|s| s.0)
                .collect()
        };
        let played_on = GomokuConfig::new(n, self.rule).and_then(|c| {
            Gomoku::from_stones(&c, &pick(Side::First), &pick(Side::Second), self.to_move)
        });
        match played_on {
            Ok(p) if p.outcome().is_none() => {
                self.game = Some(History::new(p));
                Ok(true)
            }
            Ok(_) => err_line(out, "the game is over (decided)").map(|()| false),
            Err(e) => err_line(out, format!("cannot play on after the foul: {e}")).map(|()| false),
        }
    }

    /// The last stone and its renju foul, when it is black's and forbidden where it was
    /// played.
    fn foul_of_last_stone(&self) -> Option<(GomokuMove, alphazero_gomoku::Foul)> {
        let (&(mv, side), before) = self.stones.split_last()?;
        if side != Side::First {
            return None;
        }
        let cfg = GomokuConfig::new(self.size?, self.rule).ok()?;
        let pick = |s: Side| -> Vec<GomokuMove> {
            before.iter().filter(|t| t.1 == s).map(|t| t.0).collect()
        };
        let pos =
            Gomoku::from_stones(&cfg, &pick(Side::First), &pick(Side::Second), Side::First).ok()?;
        pos.is_forbidden(mv).map(|f| (mv, f))
    }

    /// Searches, plays and prints our move.
    fn respond(&mut self, received: Instant, out: &mut dyn Write) -> io::Result<()> {
        if !self.check_game_on(out)? {
            return Ok(());
        }
        let Some(game) = self.game.clone() else {
            return err_line(out, "no board: send START first");
        };
        let plan = self.move_plan(game.current());
        let t = match self.search(&game, received, plan, self.search_budget()) {
            Ok(t) => t,
            Err(e) => return err_line(out, e),
        };
        let Some(mv) = t.mv else {
            return err_line(out, format!("no move: {}", t.reason));
        };
        self.report(&t, plan, out)?;
        let r = match self.place(mv) {
            Ok(()) => writeln!(out, "{}", mv.to_gomocup()),
            Err(e) => err_line(
                out,
                format!(
                    "internal: chose an unplayable move {}: {e}",
                    mv.to_gomocup()
                ),
            ),
        };
        self.match_used += received.elapsed();
        r
    }

    /// The `MESSAGE` (value, visits, PV) and `DEBUG` (time) lines of a search.
    fn report(
        &self,
        t: &Thought<Gomoku>,
        plan: Option<MovePlan>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let pv: Vec<String> = t.pv.iter().map(|m| m.to_gomocup()).collect();
        writeln!(
            out,
            "MESSAGE {} value {:+.3} winrate {:.1}% visits {} depth {} pv {}",
            t.reason,
            t.value,
            50.0 * (1.0 + t.value),
            t.visits,
            t.depth(),
            pv.join(" ")
        )?;
        let ms = t.elapsed.as_secs_f64() * 1000.0;
        writeln!(
            out,
            "DEBUG time {:.0} ms, {} simulations, {:.0} sims/s, budget {}",
            ms,
            t.simulations,
            f64::from(t.simulations) / t.elapsed.as_secs_f64().max(1e-9),
            match plan {
                Some(b) => format!(
                    "{} ms (answer by {} ms)",
                    b.search.as_millis(),
                    b.hard().as_millis()
                ),
                None => "none (fixed simulations)".to_string(),
            }
        )
    }
}

/// A move without search, for a turn with no time: a five now, else the block of the
/// opponent's five (the game's search moves are then only the blocks), else a VCF win found
/// within [`QUICK_TACTICAL_BUDGET`] nodes, else the evaluator's most likely search move (one
/// evaluation; without an evaluator, the first search move).
fn quick_move(
    game: &History<Gomoku>,
    evaluator: Option<&dyn Evaluator<Gomoku>>,
    start: Instant,
) -> Thought<Gomoku> {
    let pos = game.current();
    let mut moves = Vec::new();
    pos.search_moves(&mut moves);
    if moves.is_empty() {
        pos.legal_moves(&mut moves);
    }
    let done = |mv: Option<GomokuMove>, value: f32, reason: &'static str| {
        Thought::quick(mv, value, None, start, reason)
    };
    if moves.is_empty() {
        return done(None, 0.0, "no legal move");
    }
    if let Some(&mv) = pos.five_points(pos.side_to_move()).first() {
        return done(Some(mv), 1.0, "five (no time to search)");
    }
    if !pos.five_points(pos.side_to_move().opponent()).is_empty() {
        return done(Some(moves[0]), 0.0, "forced block (no time to search)");
    }
    if let Some(p) = pos.tactical_proof(QUICK_TACTICAL_BUDGET) {
        if p.outcome == Outcome::Win && p.best.is_some_and(|m| moves.contains(&m)) {
            let mut t = done(p.best, 1.0, "VCF win (no time to search)");
            t.pv = p.line;
            return t;
        }
    }
    let Some(eval) = evaluator else {
        return done(Some(moves[0]), 0.0, "first candidate (no time to search)");
    };
    let mut logits = vec![0.0f32; pos.num_actions()];
    let mut value = [0.0f32];
    let req = [EvalRequest {
        position: pos,
        history: game.entries(),
    }];
    if eval.evaluate(&req, &mut logits, &mut value).is_err() {
        return done(Some(moves[0]), 0.0, "first candidate (no time to search)");
    }
    let best = moves
        .iter()
        .copied()
        .max_by(|a, b| logits[pos.move_to_action(*a)].total_cmp(&logits[pos.move_to_action(*b)]))
        .unwrap_or(moves[0]);
    done(
        Some(best),
        value[0],
        "network's first choice (no time to search)",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use alphazero_mcts::UniformEvaluator;

    /// A brain that cannot play answers each command the manager waits on with the reason,
    /// on one line, and stops at `END`.
    #[test]
    fn a_brain_that_cannot_play_says_why_to_each_command() {
        let input = "START 15\r\nINFO timeout_turn 1000\r\nBOARD\r\n7,7,1\r\nDONE\r\nBEGIN\r\nEND\r\nSTART 15\r\n";
        let mut out = Vec::new();
        refuse_gomocup(
            input.as_bytes(),
            &mut out,
            "loading x.azc:\nchecksum mismatch",
        )
        .unwrap();
        let reason = "ERROR loading x.azc: checksum mismatch\n";
        assert_eq!(String::from_utf8(out).unwrap(), reason.repeat(3));
    }

    /// A freestyle network on its 8×8 board under `INFO rule 4` (renju) used to play without a
    /// word: the brain now says once per board and rule, after `OK` or the `INFO`, that the
    /// network plays a rule it was not trained for; other board sizes (no network) stay quiet.
    #[test]
    fn network_under_an_untrained_rule_is_announced_once() {
        let config = EngineConfig {
            networks_trained_for: vec![(8, Rule::Freestyle)],
            ..EngineConfig::fixed(8, 0)
        };
        let mut e = GomocupEngine::new(Arc::new(UniformEvaluator), config);
        let mut say = |line: &str| {
            let mut out = Vec::new();
            e.handle_line(line, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(say("START 8"), "OK\n");
        let warned = say("INFO rule 4");
        assert!(
            warned.starts_with("MESSAGE warning: the network was trained for freestyle on 8x8")
                && warned.contains("it plays renju here")
                && warned.lines().count() == 1,
            "{warned}"
        );
        assert_eq!(say("INFO rule 4"), "");
        assert_eq!(say("RESTART"), "OK\n");
        assert_eq!(say("START 10"), "OK\n");
        assert_eq!(say("INFO rule 1"), "");
        let standard = say("START 8");
        assert!(
            standard.starts_with("OK\nMESSAGE warning:") && standard.contains("plays standard"),
            "{standard}"
        );
    }

    /// A board side with a network for each of two rules: no warning under either rule, and
    /// the side is named once among the networks' boards.
    #[test]
    fn a_rule_with_its_own_network_is_not_announced_as_untrained() {
        let config = EngineConfig {
            networks_trained_for: vec![(15, Rule::Freestyle), (15, Rule::Renju)],
            warn_network_less: true,
            ..EngineConfig::fixed(8, 0)
        };
        let mut e = GomocupEngine::new(Arc::new(UniformEvaluator), config);
        let mut say = |line: &str| {
            let mut out = Vec::new();
            e.handle_line(line, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(say("START 15"), "OK\n");
        assert_eq!(say("INFO rule 4"), "", "renju has its own network");
        assert_eq!(say("INFO rule 0"), "");
        let standard = say("INFO rule 1");
        assert!(
            standard.starts_with("MESSAGE warning: the network was trained for freestyle"),
            "{standard}"
        );
        let twelve = say("START 12");
        assert!(twelve.contains("networks are for 15x15 boards"), "{twelve}");
    }

    /// On a 20×20 board (Gomocup's freestyle league) with a 15×15 network the brain used to
    /// say only on stderr, which the manager never shows, that it plays without a network:
    /// a `MESSAGE` after `OK` now says so, once per board side.
    #[test]
    fn board_without_a_network_is_announced_in_a_message() {
        let config = EngineConfig {
            networks_trained_for: vec![(15, Rule::Freestyle)],
            warn_network_less: true,
            ..EngineConfig::fixed(8, 0)
        };
        let mut e = GomocupEngine::new(Arc::new(UniformEvaluator), config);
        let mut say = |line: &str| {
            let mut out = Vec::new();
            e.handle_line(line, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        let twenty = say("START 20");
        assert!(
            twenty.starts_with("OK\nMESSAGE warning: no network for 20x20")
                && twenty.contains("networks are for 15x15 boards")
                && twenty.contains("without a network")
                && twenty.lines().count() == 2,
            "{twenty}"
        );
        assert_eq!(say("RESTART"), "OK\n", "once per board side");
        assert_eq!(say("START 15"), "OK\n", "the network's own board");
        assert!(say("START 20").contains("MESSAGE warning: no network for 20x20"));
        // Without any network every board is announced.
        let config = EngineConfig {
            warn_network_less: true,
            ..EngineConfig::fixed(8, 0)
        };
        let mut e = GomocupEngine::new(Arc::new(UniformEvaluator), config);
        let mut out = Vec::new();
        e.handle_line("START 15", &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("the brain has no network"), "{out}");
    }

    /// `INFO rule 99` (bits 1, 2, 32 and 64) used to answer two errors and quietly apply the
    /// standard bit: bits the protocol does not define now leave the rule as it was, with one
    /// error naming them; caro (8) names the rule played instead.
    #[test]
    fn info_rule_with_unknown_bits_is_refused_whole_and_caro_names_the_rule_played() {
        let mut e = GomocupEngine::new(Arc::new(UniformEvaluator), EngineConfig::fixed(8, 0));
        let say = |e: &mut GomocupEngine, line: &str| {
            let mut out = Vec::new();
            e.handle_line(line, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(say(&mut e, "START 15"), "OK\n");
        let unknown = say(&mut e, "INFO rule 99");
        assert_eq!(
            unknown,
            "ERROR INFO rule 99: unknown rule bits 96 (known: 1 exactly five, 2 continuous, \
             4 renju, 8 caro); the rule stays freestyle\n"
        );
        assert_eq!(e.rule(), Rule::Freestyle);
        let caro = say(&mut e, "INFO rule 9");
        assert_eq!(
            caro,
            "ERROR caro rule unsupported; playing standard instead\n"
        );
        assert_eq!(e.rule(), Rule::Standard);
        assert_eq!(
            say(&mut e, "INFO rule 12"),
            "ERROR caro rule unsupported; playing renju instead\n"
        );
        assert_eq!(e.rule(), Rule::Renju);
    }

    fn engine(infos: &[&str]) -> GomocupEngine {
        // Clock-based config (for the budget) with a tiny simulation cap (fast searches).
        let config = EngineConfig {
            budget: SearchBudget::simulations(8),
            ..EngineConfig::default()
        };
        let mut e = GomocupEngine::new(Arc::new(UniformEvaluator), config);
        let mut sink = Vec::new();
        for l in ["START 15"].iter().chain(infos) {
            e.handle_line(l, &mut sink).unwrap();
        }
        e
    }

    fn budget_ms(infos: &[&str]) -> u128 {
        let e = engine(infos);
        e.move_plan(e.position().unwrap())
            .unwrap()
            .search
            .as_millis()
    }

    /// The `INFO` limits as the clock reads them ([`TimeControl`]; its rule is tested in
    /// `clock.rs`).
    #[test]
    fn info_limits_are_the_turn_limit_and_the_match_clock() {
        assert_eq!(budget_ms(&[]), 950);
        assert_eq!(budget_ms(&["INFO timeout_turn 5000"]), 4750);
        assert_eq!(budget_ms(&["INFO timeout_turn 0"]), 0);
        // 10 s left on an empty 15x15 board: 225 / 2 expected moves, clamped to 40 → 250 ms.
        assert_eq!(
            budget_ms(&[
                "INFO timeout_turn 5000",
                "INFO timeout_match 60000",
                "INFO time_left 10000"
            ]),
            200
        );
        assert_eq!(
            budget_ms(&["INFO timeout_turn 5000", "INFO time_left -300"]),
            0
        );
        // 2147483647 means unlimited, and so does a match limit of 0.
        assert_eq!(
            budget_ms(&["INFO timeout_turn 2000", "INFO time_left 2147483647"]),
            1900
        );
        assert_eq!(
            budget_ms(&[
                "INFO timeout_turn 2000",
                "INFO timeout_match 0",
                "INFO time_left 500"
            ]),
            1900
        );
        // A match clock may stretch a search; steering off, or a turn limit alone, may not.
        let e = engine(&["INFO timeout_turn 5000", "INFO timeout_match 60000"]);
        assert!(e
            .move_plan(e.position().unwrap())
            .unwrap()
            .stretched
            .is_some());
        let e = engine(&["INFO timeout_turn 1000"]);
        assert_eq!(e.move_plan(e.position().unwrap()).unwrap().stretched, None);
    }

    #[test]
    fn match_time_is_budgeted_without_time_left_from_the_brains_own_clock() {
        // 60 s per match, no turn limit, no time_left: 60000 / 40 moves = 1500 ms → 1425.
        assert_eq!(budget_ms(&["INFO timeout_match 60000"]), 1425);
        let mut e = engine(&["INFO timeout_match 60000"]);
        // After 50 s of our own thinking 10 s are left: 250 ms → 200.
        e.match_used = Duration::from_secs(50);
        assert_eq!(
            e.move_plan(e.position().unwrap())
                .unwrap()
                .search
                .as_millis(),
            200
        );
        // All used up: no search time.
        e.match_used = Duration::from_secs(61);
        assert_eq!(
            e.move_plan(e.position().unwrap()).unwrap().search,
            Duration::ZERO
        );
        // A time_left counts from when it came: 10 s, then 5 s used → 125 ms → 75.
        let mut e = engine(&["INFO timeout_turn 5000", "INFO time_left 10000"]);
        e.match_used += Duration::from_secs(5);
        assert_eq!(
            e.move_plan(e.position().unwrap())
                .unwrap()
                .search
                .as_millis(),
            75
        );
        // START begins a new match clock.
        e.handle_line("START 15", &mut Vec::new()).unwrap();
        assert_eq!(
            e.move_plan(e.position().unwrap())
                .unwrap()
                .search
                .as_millis(),
            200
        );
    }

    #[test]
    fn control_characters_of_an_unknown_command_are_echoed_escaped() {
        let mut e = engine(&[]);
        let mut out = Vec::new();
        e.handle_line("\u{1b}[2J\0BOOM", &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "UNKNOWN unknown command \\u{1b}[2J\\u{0}BOOM\n"
        );
    }

    #[test]
    fn negative_info_limits_are_refused_naming_the_value_and_change_nothing() {
        let mut e = engine(&["INFO timeout_turn 2000", "INFO timeout_match 60000"]);
        let before = e.move_plan(e.position().unwrap()).unwrap().search;
        for line in [
            "INFO timeout_turn -5",
            "INFO timeout_match -1",
            "INFO max_memory -100",
        ] {
            let mut out = Vec::new();
            e.handle_line(line, &mut out).unwrap();
            let (key, value) = line[5..].split_once(' ').unwrap();
            assert_eq!(
                String::from_utf8(out).unwrap(),
                format!("ERROR bad INFO {key} value \"{value}\"\n"),
                "{line}"
            );
        }
        assert_eq!(e.move_plan(e.position().unwrap()).unwrap().search, before);
        assert_eq!(e.max_memory, None);
    }

    #[test]
    fn fixed_simulations_ignore_the_clock() {
        let mut e = GomocupEngine::new(Arc::new(UniformEvaluator), EngineConfig::fixed(8, 0));
        e.handle_line("START 15", &mut Vec::new()).unwrap();
        assert_eq!(e.move_plan(e.position().unwrap()), None);
    }

    #[test]
    fn info_rule_switches_the_rule_and_keeps_the_stones() {
        let mut e = engine(&["BOARD", "7,7,2", "DONE", "INFO rule 4"]);
        assert_eq!(e.rule(), Rule::Renju);
        assert_eq!(e.position().unwrap().stone_count(), 2);
        e.handle_line("INFO rule 1", &mut Vec::new()).unwrap();
        assert_eq!(e.position().unwrap().rule(), Rule::Standard);
    }

    #[test]
    fn board_colours_follow_the_stone_counts() {
        // Opponent has more stones: it is black and we play white.
        let e = engine(&["BOARD", "7,7,2", "DONE"]);
        let p = e.position().unwrap();
        assert_eq!(p.stone_at(7, 7), Some(Side::First));
        assert_eq!(p.stone_count(), 2);
        // Equal counts: we are black and to move; our reply is a black stone.
        let e = engine(&["BOARD", "7,7,1", "8,8,2", "DONE"]);
        let p = e.position().unwrap();
        assert_eq!(p.stone_at(7, 7), Some(Side::First));
        assert_eq!(p.stone_at(8, 8), Some(Side::Second));
        assert_eq!(p.side_to_move(), Side::Second);
    }

    #[test]
    fn rejected_board_block_keeps_the_previous_position_and_makes_no_move() {
        let mut e = engine(&["BOARD", "7,7,2", "8,8,1", "DONE"]);
        let before = e.position().unwrap().clone();
        for block in [
            &["BOARD", "1,1,1", "2,2,3", "DONE"][..],
            &["BOARD", "1,1,1", "1,1,2", "DONE"],
            &["BOARD", "1,1,1", "2,15,2", "DONE"],
            &["BOARD", "1,1", "DONE"],
        ] {
            let mut out = Vec::new();
            for l in block {
                e.handle_line(l, &mut out).unwrap();
            }
            let out = String::from_utf8(out).unwrap();
            assert!(out.starts_with("ERROR BOARD line "), "{block:?}: {out}");
            assert_eq!(out.lines().count(), 1, "{block:?}: {out}");
            assert_eq!(e.position(), Some(&before), "{block:?}");
        }
        // Still usable: the next block is read as a block, not as commands.
        let mut out = Vec::new();
        for l in ["BOARD", "3,3,2", "DONE"] {
            e.handle_line(l, &mut out).unwrap();
        }
        assert_eq!(e.position().unwrap().stone_count(), 2);
    }

    #[test]
    fn an_over_long_line_is_one_error_quoting_80_characters_and_in_a_board_block_the_blocks_error()
    {
        let mut e = GomocupEngine::new(Arc::new(UniformEvaluator), EngineConfig::fixed(8, 1));
        let long = format!("TURN {}", "7".repeat(MAX_LINE_BYTES + 10));
        let input = format!("START 15\n{long}\nBOARD\n7,7,1\n{long}\nDONE\nEND\n");
        let mut out = Vec::new();
        e.run(io::Cursor::new(input.into_bytes()), &mut out)
            .unwrap();
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        let quoted = format!("\"{}…\" ({} bytes)", &long[..crate::ECHO_CHARS], long.len());
        assert_eq!(lines[0], "OK");
        assert_eq!(
            lines[1],
            format!(
                "ERROR input line {quoted} is longer than the {MAX_LINE_BYTES} bytes a line may \
                 have; ignored"
            )
        );
        assert_eq!(
            lines[2],
            format!(
                "ERROR BOARD line 2 {quoted} is longer than the {MAX_LINE_BYTES} bytes a line \
                 may have"
            )
        );
        assert_eq!(lines.len(), 3, "{out}");
        // Nothing was played.
        assert_eq!(e.position().unwrap().stone_count(), 0);
    }

    #[test]
    fn the_next_search_starts_from_the_subtree_of_the_moves_played_since() {
        // A simulation cap far below what the turn allows: each search is exactly 300 new
        // simulations, so only the kept visits differ.
        let second = |reuse: bool| {
            let config = EngineConfig {
                budget: SearchBudget::simulations(300),
                reuse_tree: reuse,
                ..EngineConfig::default()
            };
            let mut e = GomocupEngine::new(Arc::new(UniformEvaluator), config);
            let mut say = |line: &str| {
                let mut out = Vec::new();
                e.handle_line(line, &mut out).unwrap();
                String::from_utf8(out).unwrap()
            };
            for l in [
                "START 15",
                "INFO timeout_turn 600000",
                "BOARD",
                "7,7,2",
                "8,8,1",
            ] {
                say(l);
            }
            let first = say("DONE");
            let pv: Vec<&str> = first
                .lines()
                .find_map(|l| l.strip_prefix("MESSAGE search ")?.split(" pv ").nth(1))
                .expect(&first)
                .split(' ')
                .collect();
            // The expected reply has a visited reply of its own: more than one visit to keep.
            assert!(pv.len() >= 3, "{first}");
            let answer = say(&format!("TURN {}", pv[1]));
            let number_before = |word: &str| -> u32 {
                let i = answer.find(word).expect(&answer);
                let head = answer[..i].trim_end();
                head[head.rfind(' ').unwrap() + 1..].parse().unwrap()
            };
            let visits: u32 = answer
                .split(" visits ")
                .nth(1)
                .and_then(|r| r.split(' ').next()?.parse().ok())
                .expect(&answer);
            (visits, number_before(" simulations"))
        };
        let (fresh_visits, fresh_sims) = second(false);
        assert_eq!((fresh_visits, fresh_sims), (301, 300));
        let (kept_visits, kept_sims) = second(true);
        assert_eq!(kept_sims, 300);
        assert!(kept_visits > 301, "{kept_visits}");
    }

    /// Uniform policy and value, one evaluation at a time (as a network on its one-thread
    /// pool), each taking 2 ms; from its `from`-th call on, every call takes `stall` (a
    /// machine so loaded that a batch outlasts a turn).
    struct Stalling {
        calls: std::sync::atomic::AtomicU32,
        from: u32,
        stall: Duration,
        one_at_a_time: Mutex<()>,
    }

    impl Evaluator<Gomoku> for Stalling {
        fn evaluate(
            &self,
            batch: &[EvalRequest<'_, Gomoku>],
            policy_logits: &mut [f32],
            values: &mut [f32],
        ) -> Result<(), alphazero_mcts::EvalError> {
            let _turn = self.one_at_a_time.lock().unwrap();
            let call = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
            // 2 ms a quick batch: the brain's snapshots (every 5 ms) follow the search.
            let took = if call >= self.from {
                self.stall
            } else {
                Duration::from_millis(2)
            };
            std::thread::sleep(took);
            UniformEvaluator.evaluate(batch, policy_logits, values)
        }
    }

    #[test]
    fn a_move_after_one_answered_at_the_hard_deadline_still_answers_from_a_search() {
        // ~50 quick batches (~400 simulations), then every batch outlasts a 3 s turn: the
        // first move is answered at its hard deadline while its worker sleeps on. The next
        // move waits for that worker (its batch ends ~0.3 s into the move, well within the
        // 1.4 s it may wait), starts from the kept tree and answers from it although its own
        // first batch outlasts the turn too. The clock decides nothing else: the margins
        // are seconds.
        let eval = Stalling {
            calls: Default::default(),
            from: 50,
            stall: Duration::from_millis(3200),
            one_at_a_time: Mutex::new(()),
        };
        let mut e = GomocupEngine::new(Arc::new(eval), EngineConfig::default());
        let mut say = |line: &str| {
            let mut out = Vec::new();
            e.handle_line(line, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        for l in [
            "START 15",
            "INFO timeout_turn 3000",
            "BOARD",
            "7,7,2",
            "8,8,1",
        ] {
            say(l);
        }
        let first = say("DONE");
        let pv: Vec<&str> = first
            .lines()
            .find_map(|l| {
                l.strip_prefix("MESSAGE search (answered at the hard deadline) ")?
                    .split(" pv ")
                    .nth(1)
            })
            .expect(&first)
            .split(' ')
            .collect();
        assert!(pv.len() >= 3, "{first}");
        let answer = say(&format!("TURN {}", pv[1]));
        assert!(!answer.contains("no time to search"), "{answer}");
        let visits: u32 = answer
            .strip_prefix("MESSAGE search")
            .and_then(|r| r.split(" visits ").nth(1)?.split(' ').next()?.parse().ok())
            .expect(&answer);
        assert!(visits > 1, "{answer}");
    }
}
