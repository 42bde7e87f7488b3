//! The Gomocup (Piskvork "new" pipe protocol) brain.

use std::io::{self, BufRead, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use alphazero_game::{Game, History, Outcome, Side};
use alphazero_gomoku::{Gomoku, GomokuConfig, GomokuMove, Rule, MAX_SIZE, MIN_SIZE};
use alphazero_mcts::Evaluator;

use crate::think::{think, Control, ThinkLimits};
use crate::EngineConfig;

/// Reads one line ending in LF, CR or CR LF (the terminator is dropped) into `buf`.
/// Returns `false` at end of input with nothing read. Invalid UTF-8 is replaced.
pub(crate) fn read_line_any<R: BufRead + ?Sized>(r: &mut R, buf: &mut String) -> io::Result<bool> {
    buf.clear();
    let mut bytes = Vec::new();
    loop {
        let (done, used) = {
            let chunk = match r.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                if bytes.is_empty() {
                    return Ok(false);
                }
                (true, 0)
            } else if let Some(i) = chunk.iter().position(|&b| b == b'\n' || b == b'\r') {
                bytes.extend_from_slice(&chunk[..i]);
                (true, i + 1)
            } else {
                bytes.extend_from_slice(chunk);
                (false, chunk.len())
            }
        };
        r.consume(used);
        if done {
            buf.push_str(&String::from_utf8_lossy(&bytes));
            return Ok(true);
        }
    }
}

/// A `BOARD` block being read: its stones (`X,Y,F` with F 1 or 2) with the number of the
/// line that gave each, the number of stone lines read so far, and the block's first error.
#[derive(Default)]
struct BoardBlock {
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
    time_left: Option<i64>,
    max_memory: Option<u64>,
    folder: Option<String>,
    /// Lines of a `BOARD` block being read, and the first error in it.
    board: Option<BoardBlock>,
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
    writeln!(out, "ERROR {}", msg.as_ref())
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
            max_memory: None,
            folder: None,
            board: None,
        }
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

    /// Reads commands from `input` until `END` or end of input; see [`run_gomocup`].
    ///
    /// # Errors
    /// I/O errors only.
    pub fn run<R: BufRead, W: Write>(&mut self, mut input: R, mut output: W) -> io::Result<()> {
        let mut line = String::new();
        while read_line_any(&mut input, &mut line)? {
            let flow = self.handle_line(&line, &mut output)?;
            output.flush()?;
            if flow == Flow::Quit {
                break;
            }
        }
        Ok(())
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
                _ => err_line(out, format!("unsupported size {rest}"))?,
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
                    None => err_line(out, format!("bad RECTSTART size {rest:?}"))?,
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
            "BOARD" => {
                // Without a board the block is still swallowed, so its lines are not taken
                // as commands.
                self.board = Some(BoardBlock {
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
            _ => writeln!(out, "UNKNOWN unknown command {word}")?,
        }
        Ok(Flow::Continue)
    }

    fn start(&mut self, n: u8, out: &mut dyn Write) -> io::Result<()> {
        self.size = Some(n);
        self.stones.clear();
        self.to_move = Side::First;
        match self.rebuild() {
            Ok(()) => writeln!(out, "OK"),
            Err(e) => err_line(out, e),
        }
    }

    fn info(&mut self, rest: &str, out: &mut dyn Write) -> io::Result<()> {
        let (key, value) = match rest.split_once(char::is_whitespace) {
            Some((k, v)) => (k.to_ascii_lowercase(), v.trim()),
            None => (rest.to_ascii_lowercase(), ""),
        };
        let int = value.parse::<i64>();
        let bad = |out: &mut dyn Write| err_line(out, format!("bad INFO {key} value {value:?}"));
        match key.as_str() {
            "timeout_turn" | "timeout_match" | "max_memory" => match int {
                Ok(v) => {
                    let v = v.max(0) as u64;
                    match key.as_str() {
                        "timeout_turn" => self.timeout_turn = Some(v),
                        "timeout_match" => self.timeout_match = Some(v),
                        _ => self.max_memory = Some(v),
                    }
                }
                Err(_) => bad(out)?,
            },
            "time_left" => match int {
                Ok(v) => self.time_left = Some(v),
                Err(_) => bad(out)?,
            },
            "rule" => match int {
                Ok(bits) if bits >= 0 => {
                    if bits & 2 != 0 {
                        err_line(out, "continuous game unsupported")?;
                    }
                    if bits & 8 != 0 {
                        err_line(out, "caro rule unsupported")?;
                    }
                    let rule = if bits & 4 != 0 {
                        Rule::Renju
                    } else if bits & 1 != 0 {
                        Rule::Standard
                    } else {
                        Rule::Freestyle
                    };
                    if rule != self.rule {
                        let old = self.rule;
                        self.rule = rule;
                        if self.size.is_some() {
                            if let Err(e) = self.rebuild() {
                                self.rule = old;
                                err_line(out, e)?;
                            }
                        }
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
            .ok_or_else(|| format!("bad point {text:?}: expected X,Y"))?;
        let coord = |v: &str, name: &str| -> Result<u8, String> {
            let v = v.trim();
            match v.parse::<i64>() {
                Ok(c) if (0..i64::from(n)).contains(&c) => Ok(c as u8),
                Ok(_) => Err(format!(
                    "{text:?} is off the {n}x{n} board: {name} must be in 0..{}",
                    n - 1
                )),
                Err(_) => Err(format!(
                    "bad point {text:?}: {name} is not a number (0..{} on the {n}x{n} board)",
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
        if block.error.is_none() {
            match self.board_stone(line) {
                Ok((mv, f)) => match block.stones.iter().find(|s| s.0 == mv) {
                    Some(&(_, _, first)) => {
                        block.error = Some(format!(
                            "BOARD line {n} {line:?}: {} is already given on BOARD line {first}",
                            mv.to_gomocup()
                        ));
                    }
                    None => block.stones.push((mv, f, n)),
                },
                Err(e) => block.error = Some(format!("BOARD line {n} {line:?}: {e}")),
            }
        }
        self.board = Some(block);
        Ok(Flow::Continue)
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
                "field must be 1 (own stone) or 2 (opponent's stone), got {f:?}"
            )),
        }
    }

    /// Time this move may take, from the `INFO` limits; `None` with fixed simulations.
    fn budget(&self, pos: &Gomoku) -> Option<Duration> {
        if self.config.fixed_simulations {
            return None;
        }
        let mut b = match self.timeout_turn {
            Some(ms) => Duration::from_millis(ms),
            None => self.config.default_move_time,
        };
        if let (Some(left), true) = (self.time_left, self.timeout_match != Some(0)) {
            if left < i64::from(i32::MAX) {
                let empties = (pos.size() * pos.size()).saturating_sub(pos.stone_count()) as u64;
                let moves = (empties / 2).clamp(10, 40);
                b = b.min(Duration::from_millis(left.max(0) as u64 / moves));
            }
        }
        Some(self.config.usable(b))
    }

    /// Searches, plays and prints our move.
    fn respond(&mut self, received: Instant, out: &mut dyn Write) -> io::Result<()> {
        let Some(game) = self.game.as_ref() else {
            return err_line(out, "no board: send START first");
        };
        if let Some(o) = game.outcome() {
            let what = match o {
                Outcome::Draw => "draw",
                _ => "decided",
            };
            return err_line(out, format!("the game is over ({what})"));
        }
        let budget = self.budget(game.current());
        let mut cap = self.config.search.simulations;
        if let Some(mem) = self.max_memory.filter(|&m| m > 0) {
            cap = cap.min(
                (mem / self.config.bytes_per_simulation.max(1)).clamp(1, u64::from(u32::MAX))
                    as u32,
            );
        }
        let mut limits = ThinkLimits {
            max_simulations: cap.max(1),
            deadline: budget.map(|b| received + b),
            depth: None,
        };
        let result = think(
            game,
            &[],
            &*self.evaluator,
            &self.config.search,
            &mut limits,
            received,
            |_, _| Control::Continue,
        );
        let t = match result {
            Ok(t) => t,
            Err(e) => return err_line(out, format!("search failed: {e}")),
        };
        let Some(mv) = t.mv else {
            return err_line(out, format!("no move: {}", t.reason));
        };
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
            match budget {
                Some(b) => format!("{} ms", b.as_millis()),
                None => "none (fixed simulations)".to_string(),
            }
        )?;
        match self.place(mv) {
            Ok(()) => writeln!(out, "{}", mv.to_gomocup()),
            Err(e) => err_line(
                out,
                format!(
                    "internal: chose an unplayable move {}: {e}",
                    mv.to_gomocup()
                ),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alphazero_mcts::UniformEvaluator;

    fn engine(infos: &[&str]) -> GomocupEngine {
        // Clock-based config (for the budget) with a tiny simulation cap (fast searches).
        let mut config = EngineConfig::default();
        config.search.simulations = 8;
        let mut e = GomocupEngine::new(Arc::new(UniformEvaluator), config);
        let mut sink = Vec::new();
        for l in ["START 15"].iter().chain(infos) {
            e.handle_line(l, &mut sink).unwrap();
        }
        e
    }

    fn budget_ms(infos: &[&str]) -> u128 {
        let e = engine(infos);
        e.budget(e.position().unwrap()).unwrap().as_millis()
    }

    #[test]
    fn move_budget_follows_info_limits_with_a_margin() {
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
        // 2147483647 means unlimited.
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
    }

    #[test]
    fn fixed_simulations_ignore_the_clock() {
        let mut e = GomocupEngine::new(Arc::new(UniformEvaluator), EngineConfig::fixed(8, 0));
        e.handle_line("START 15", &mut Vec::new()).unwrap();
        assert_eq!(e.budget(e.position().unwrap()), None);
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
    fn lines_split_on_cr_lf_and_crlf() {
        let mut r = io::Cursor::new(b"a\r\nb\rc\nd".to_vec());
        let mut got = Vec::new();
        let mut l = String::new();
        while read_line_any(&mut r, &mut l).unwrap() {
            got.push(l.clone());
        }
        assert_eq!(got, ["a", "", "b", "c", "d"]);
    }
}
