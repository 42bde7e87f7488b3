//! `alphazero play`: a game in the terminal against the engine (or the engine against
//! itself), on stdin and stdout.
//!
//! Moves are typed in the game's notation (Gomoku `h8` or `7,7`, Xiangqi ICCS `h2e2` or WXF
//! `C2=5`, Connect Four the column `1`–`7`); Xiangqi moves are shown in both notations.
//! Commands: `undo` (back to your previous turn), `hint` (the engine's top moves for you),
//! `moves` (the game so far), `help`, `quit` (or end of input). A save file gets the game as
//! PGN, SGF or PSQ when it ends or you quit, and also on Ctrl-C or SIGTERM (the game so far,
//! unfinished; the process then exits with status 130).
use super::records::{output_format, parse_notation, save_records};
use crate::games::GameArgs;
use alphazero_engine::files::check_output_path;
use alphazero_engine::present::{
    board_text_marked, moves_lines, top_moves_table, use_color, BoardView, WebGame,
};
use alphazero_engine::{device, load_evaluator, search_position, PlaySearch};
use alphazero_formats::{write_records, Format, MoveNotation, Record, RecordResult};
use alphazero_game::{History, Outcome, Side};
use alphazero_mcts::Evaluator;
use alphazero_registry::with_game;
use anyhow::{bail, Context, Result};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Arguments of `alphazero play`.
#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Network checkpoint, or a training run's folder for its champion (default: the
    /// shipped network if there is one, else uniform).
    #[arg(long, value_name = "FILE|RUN_DIR", value_parser = crate::cmd::model_arg)]
    model: Option<PathBuf>,
    /// Device: `default`, `cpu`, `cuda[:N]` or `wgpu[:N]` in builds with the `cuda` / `wgpu`
    /// feature (docs/training.md, GPU).
    #[arg(long, default_value = "default")]
    device: String,
    /// Engine simulations per move (also for `hint`); `--simulations`, the web API's name, too.
    #[arg(long, visible_alias = "simulations", default_value_t = 800, value_parser = |s: &str| alphazero_mcts::knobs::SIMULATIONS.parse(s))]
    sims: u32,
    /// Engine thinking time per move in milliseconds (stops at --sims or the time, whichever
    /// comes first).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    movetime: Option<u64>,
    /// Which side you play: first or second, the game's colour (Gomoku black|white, Xiangqi
    /// red|black), or none (the engine plays both).
    #[arg(long, default_value = "first")]
    human: String,
    /// Start position: a FEN (Xiangqi, optionally with `moves …`) or a move list.
    #[arg(long)]
    position: Option<String>,
    /// Seed of the engine's search.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Write the game here when it ends or you quit (Ctrl-C too): `.pgn` (any game), `.sgf`
    /// or `.psq` (Gomoku), by the extension.
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    /// Xiangqi moves in a --save PGN: iccs (H2-E2) or wxf (C2=5).
    #[arg(long, default_value = "iccs")]
    notation: String,
}

/// Runs `alphazero play`: a game of `--game` in the terminal (stdin/stdout) with the settings
/// `args`.
///
/// # Errors
/// A bad game, notation, `human` or position; a save file that cannot be written (refused
/// before the game); an evaluator that cannot be loaded; a search failure; an I/O error.
pub fn run(args: &PlayArgs) -> Result<()> {
    let spec = &args.game.spec()?;
    let writes_pgn = args
        .save
        .as_deref()
        .is_some_and(|p| output_format("--save", p, None).ok() == Some(Format::Pgn));
    parse_notation(&args.notation, spec, writes_pgn)?;
    with_game!(spec, G, cfg => run_for::<G>(cfg, args))
}

/// `--human`: `first`/`second`/`1`/`2`, the game's own colour names (Gomoku black/white,
/// Xiangqi red/black: "black" is the first player in one and the second in the other), or
/// `none`.
fn parse_human<G: BoardView>(text: &str) -> Result<Option<Side>> {
    let colour = |side| G::side_name(side).split(' ').next().unwrap_or_default();
    let (first, second) = (colour(Side::First), colour(Side::Second));
    let t = text.trim().to_ascii_lowercase();
    Ok(match t.as_str() {
        "first" | "1" => Some(Side::First),
        "second" | "2" => Some(Side::Second),
        "none" | "engine" => None,
        c if c == first => Some(Side::First),
        c if c == second => Some(Side::Second),
        _ => {
            let mut names = vec!["first", "second"];
            for n in [first, second] {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
            bail!("--human {text:?}: expected {} or none", names.join(", "))
        }
    })
}

fn result_line<G: BoardView>(game: &History<G>, o: Outcome) -> String {
    let result = match o.winner(game.current().side_to_move()) {
        Some(s) => format!("game over: {} wins", G::side_name(s)),
        None => "game over: draw".into(),
    };
    match game.current().end_reason_text(game.entries()) {
        Some(reason) => format!("{result} ({reason})"),
        None => result,
    }
}

struct Session<'a, G: BoardView + WebGame> {
    game: History<G>,
    /// The game as `--save` writes it on Ctrl-C ([`SaveFile`]), kept up to date.
    saved: Option<Arc<SaveFile<G>>>,
    human: Option<Side>,
    eval: &'a dyn Evaluator<G>,
    config: PlaySearch,
    movetime: Option<u64>,
    color: bool,
}

impl<G: BoardView + WebGame> Session<'_, G> {
    fn show(&self, out: &mut impl Write) -> Result<()> {
        writeln!(out, "{}", board_text_marked(&self.game, self.color))?;
        Ok(())
    }

    fn engine_move(&mut self, out: &mut impl Write) -> Result<()> {
        let pos = self.game.current().clone();
        let r = search_position(&self.game, self.eval, &self.config, self.movetime)?;
        let Some(mv) = r.best_move else {
            bail!("the engine found no move");
        };
        writeln!(
            out,
            "engine ({}) plays {}  value {:+.3} for the engine, {} simulations",
            G::side_name(pos.side_to_move()),
            pos.move_words(mv),
            r.root_value,
            r.simulations
        )?;
        write!(out, "{}", top_moves_table(&pos, &r, 3))?;
        self.game
            .play(mv)
            .with_context(|| format!("engine move {}", pos.format_move(mv)))?;
        Ok(())
    }

    fn hint(&self, out: &mut impl Write) -> Result<()> {
        let pos = self.game.current();
        let r = search_position(&self.game, self.eval, &self.config, self.movetime)?;
        writeln!(
            out,
            "hint: value {:+.3} for you after {} simulations",
            r.root_value, r.simulations
        )?;
        write!(out, "{}", top_moves_table(pos, &r, 5))?;
        Ok(())
    }

    fn undo(&mut self, out: &mut impl Write) -> Result<()> {
        let Some(human) = self.human else {
            writeln!(out, "nothing to undo: no human player")?;
            return Ok(());
        };
        let mut undone = Vec::new();
        let mut human_undone = false;
        while let Some(mv) = self.game.undo() {
            undone.push(mv);
            let side = self.game.current().side_to_move();
            if side == human {
                human_undone = true;
                break;
            }
        }
        if undone.is_empty() || !human_undone {
            // Redo what was taken back: nothing of the human's to undo.
            for mv in undone.into_iter().rev() {
                self.game.play_unchecked(mv);
            }
            writeln!(out, "nothing to undo")?;
        } else {
            writeln!(out, "took back {}", crate::cmd::count(undone.len(), "move"))?;
        }
        Ok(())
    }

    fn run(&mut self, input: &mut impl BufRead, out: &mut impl Write) -> Result<()> {
        // Raw bytes, decoded lossily: a line that is not UTF-8 is refused like any bad move
        // instead of ending the game.
        let mut raw = Vec::new();
        let mut shown = false;
        // The forbidden move the person was just warned of (typing it again plays it).
        let mut warned: Option<G::Move> = None;
        loop {
            if let Some(saved) = &self.saved {
                saved.update(&self.game);
            }
            if !shown {
                self.show(out)?;
                shown = true;
            }
            if let Some(o) = self.game.outcome() {
                writeln!(out, "{}", result_line(&self.game, o))?;
                write!(out, "{}", moves_lines(&self.game))?;
                return Ok(());
            }
            let side = self.game.current().side_to_move();
            if self.human != Some(side) {
                self.engine_move(out)?;
                shown = false;
                continue;
            }
            write!(out, "{} to move> ", G::side_name(side))?;
            out.flush()?;
            raw.clear();
            if input.read_until(b'\n', &mut raw)? == 0 {
                writeln!(out, "\nbye")?;
                return Ok(());
            }
            let line = String::from_utf8_lossy(&raw);
            let cmd = line.trim();
            match cmd.to_ascii_lowercase().as_str() {
                "" => {}
                "quit" | "exit" | "q" => {
                    writeln!(out, "bye")?;
                    return Ok(());
                }
                "help" | "?" => writeln!(
                    out,
                    "type a move in the game's notation, or: undo, hint, moves, board, quit"
                )?,
                "hint" => self.hint(out)?,
                "undo" => {
                    self.undo(out)?;
                    shown = false;
                }
                "board" => shown = false,
                "moves" => write!(out, "{}", moves_lines(&self.game))?,
                _ => {
                    let pos = self.game.current().clone();
                    match pos.parse_move(cmd) {
                        Err(e) => writeln!(out, "refused: {e}")?,
                        // A move that loses at once by a rule (a renju foul) is played only
                        // when typed twice in a row: the first time says why it loses.
                        Ok(mv) if warned != Some(mv) && pos.forbidden_moves().contains(&mv) => {
                            let mut after = self.game.clone();
                            let why = match after.play(mv) {
                                Ok(()) => after.current().end_reason_text(after.entries()),
                                Err(_) => None,
                            }
                            .unwrap_or_else(|| "a forbidden move".into());
                            writeln!(
                                out,
                                "warning: {} loses at once ({why}); the points marked ! are \
                                 forbidden: type {} again to play it anyway, or another move",
                                pos.move_words(mv),
                                pos.format_move(mv)
                            )?;
                            warned = Some(mv);
                            continue;
                        }
                        Ok(mv) => match self.game.play(mv) {
                            Err(e) => writeln!(out, "refused: {e}")?,
                            Ok(()) => {
                                writeln!(out, "you play {}", pos.move_words(mv))?;
                                shown = false;
                                warned = None;
                            }
                        },
                    }
                }
            }
        }
    }
}

/// The game as a record for `--save`: the players (`human`, the engine), the result (`*`
/// while unfinished), why it ended, the date.
fn game_record<G: BoardView>(game: &History<G>, human: Option<Side>, engine: &str) -> Record<G> {
    let mut rec = Record::new(game.clone());
    for side in [Side::First, Side::Second] {
        rec.players[side.index()] = if human == Some(side) {
            "human".to_string()
        } else {
            engine.to_string()
        };
    }
    let stm = game.current().side_to_move();
    rec.result = match game.outcome() {
        Some(o) => RecordResult::from_winner(o.winner(stm)),
        None => RecordResult::Unknown,
    };
    rec.set_tag("Event", "alphazero play");
    rec.set_tag("Date", alphazero_formats::pgn_date_today());
    let termination = match game.outcome() {
        Some(_) => game
            .current()
            .end_reason_text(game.entries())
            .unwrap_or_else(|| "rules".into()),
        None => "unfinished".into(),
    };
    rec.set_tag("Termination", termination);
    rec
}

fn run_for<G: BoardView + WebGame>(cfg: &G::Config, args: &PlayArgs) -> Result<()> {
    let human = parse_human::<G>(&args.human)?;
    let game = match &args.position {
        Some(t) => G::parse_position(cfg, t).context("--position")?,
        None => History::new(G::new(cfg)),
    };
    // A --save that cannot be written is refused before the game, not after it.
    let save = match &args.save {
        Some(path) => {
            let format = output_format("--save", path, None)?;
            let notation: MoveNotation = args.notation.parse().context("--notation")?;
            check_output_path("--save", path)?;
            write_records(&[Record::new(game.clone())], format, notation)
                .with_context(|| format!("--save {}", path.display()))?;
            Some((path, format, notation))
        }
        None => None,
    };
    let dev = device(&args.device)?;
    let (eval, desc) = load_evaluator::<G>(args.model.as_deref(), cfg, &dev)?;
    let engine = format!(
        "alphazero {}, {} simulations",
        public_engine(&desc),
        args.sims
    );
    let saved = save.map(|(path, format, notation)| {
        let file = Arc::new(SaveFile {
            path: path.clone(),
            format,
            notation,
            human,
            engine,
            game: Mutex::new((game.clone(), false)),
        });
        let on_signal = Arc::clone(&file);
        let handler = move || {
            eprintln!();
            if let Err(e) = on_signal.save_once() {
                eprintln!("error: {e:#}");
            }
            std::process::exit(130);
        };
        if let Err(e) = ctrlc::set_handler(handler) {
            eprintln!("warning: Ctrl-C cannot be caught ({e}); it ends the game unsaved");
        }
        file
    });
    let mut s = Session {
        game,
        saved: saved.clone(),
        human,
        eval: &*eval,
        config: alphazero_engine::play_search::<G>(Some(args.sims), args.seed),
        movetime: args.movetime,
        color: use_color(),
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let played = s.run(&mut stdin.lock(), &mut stdout.lock());
    if let Some(saved) = saved {
        saved.update(&s.game);
        saved.save_once()?;
    }
    played
}

/// Where `--save` writes the game, and the game so far: written once, when the game ends,
/// the person quits, or on Ctrl-C / SIGTERM (from the signal handler's thread, hence the
/// lock).
struct SaveFile<G: BoardView> {
    path: PathBuf,
    format: Format,
    notation: MoveNotation,
    human: Option<Side>,
    engine: String,
    /// The game so far, and whether it has been written.
    game: Mutex<(History<G>, bool)>,
}

impl<G: BoardView> SaveFile<G> {
    /// Takes the game so far (unless it has been written).
    fn update(&self, game: &History<G>) {
        let mut g = self.game.lock().unwrap_or_else(|e| e.into_inner());
        if !g.1 {
            g.0 = game.clone();
        }
    }

    /// Writes the game unless it was written already, saying where on stderr.
    fn save_once(&self) -> Result<()> {
        let mut g = self.game.lock().unwrap_or_else(|e| e.into_inner());
        if g.1 {
            return Ok(());
        }
        g.1 = true;
        let rec = game_record(&g.0, self.human, &self.engine);
        let msg = save_records(Path::new(&self.path), &[rec], self.format, self.notation)?;
        eprintln!("{msg}");
        Ok(())
    }
}

/// The engine's description without folders (`network xiangqi.azc (4x32, …)`).
fn public_engine(desc: &str) -> String {
    let mut out = desc.to_string();
    for word in desc.split_whitespace() {
        let p = std::path::Path::new(word);
        if p.components().count() > 1 {
            out = alphazero_engine::public_description(&out, p);
        }
    }
    out
}
