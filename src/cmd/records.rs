//! `alphazero records`: inspecting self-play record files (`.azr` written by `train`), and
//! exporting games in the formats other programs read (PGN, SGF, PSQ; see `alphazero_formats`).
//!
//! Also home of the record-file helpers of the commands: [`read_game_file`] (the one reader of
//! PGN, PSQ and SGF files, used by `analyze --file`) and [`save_records`] (atomic writes, used
//! by `arena`, `play --save` and `records export`). Self-play record files are read by
//! [`alphazero_engine::files::read_record_file`] (the Python package reads them too).
use alphazero_engine::files::{check_output_path, read_bounded, read_record_file, write_atomic};
use alphazero_engine::position::{replay, spec_from_flags};
use alphazero_engine::present::{moves_lines, BoardView};
use alphazero_formats::{
    game_name_of, read_records, write_records, Format, MoveNotation, Record, RecordResult,
};
use alphazero_game::Game;
use alphazero_registry::{with_game, GameSpec};
use alphazero_train::record::RecordFile;
use alphazero_train::RunDir;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// Arguments of `alphazero records`.
#[derive(clap::Args, Debug)]
pub struct RecordsArgs {
    #[command(subcommand)]
    command: RecordsCommand,
}

#[derive(clap::Subcommand, Debug)]
enum RecordsCommand {
    /// Prints a record file: header, then per game the result, flags and moves; with `--ply`
    /// the board before that ply and the search's move distribution π.
    Show {
        /// The record file (`records/000000.azr` in a run directory).
        file: PathBuf,
        /// Only this game (0-based index in the file).
        #[arg(long)]
        game_index: Option<usize>,
        /// Show the position before this ply (0-based) with π and the root value (game 0 unless
        /// --game-index is given).
        #[arg(long)]
        ply: Option<usize>,
    },
    /// Lists the record files of a run directory with their game and position counts.
    List {
        /// The run directory (or a folder of `.azr` files).
        run_dir: PathBuf,
    },
    /// Writes games in a format other programs read: PGN (any game; Xiangqi in the XQBase
    /// dialect), SGF or PSQ (Gomoku). The input is a self-play record file (`.azr`) or a
    /// `.pgn` / `.sgf` / `.psq` file (converted).
    Export {
        /// The games: a `.azr` record file, or a PGN, SGF or PSQ file.
        file: PathBuf,
        /// Where to write. PSQ holds one game per file: with several games this is a folder,
        /// which gets `game-0001.psq`, `game-0002.psq`, …
        #[arg(long)]
        out: PathBuf,
        /// The format to write: pgn, sgf or psq (default: the extension of --out).
        #[arg(long)]
        to: Option<String>,
        /// Only this game (0-based index in the file).
        #[arg(long)]
        game_index: Option<usize>,
        /// Xiangqi moves in PGN: iccs (H2-E2) or wxf (C2=5).
        #[arg(long, default_value = "iccs")]
        notation: String,
        /// The Gomoku rule of a PSQ input (PSQ files do not name one): freestyle, standard or
        /// renju.
        #[arg(long)]
        rule: Option<String>,
    },
}

/// Runs `alphazero records`.
pub fn run(args: &RecordsArgs) -> Result<()> {
    match &args.command {
        RecordsCommand::Show {
            file,
            game_index,
            ply,
        } => show(file, *game_index, *ply),
        RecordsCommand::List { run_dir } => list(run_dir),
        RecordsCommand::Export {
            file,
            out,
            to,
            game_index,
            notation,
            rule,
        } => export(
            file,
            out,
            to.as_deref(),
            *game_index,
            notation,
            rule.as_deref(),
        ),
    }
}

/// The largest PGN / SGF / PSQ file read (64 MiB).
const MAX_TEXT_RECORD_BYTES: u64 = 64 << 20;

/// Reads a PGN, PSQ or SGF file (told apart by the extension, else by the text) as games of
/// `G`; `cfg` supplies what the file does not say (a PSQ file's rule).
///
/// # Errors
/// The file cannot be read or is over 64 MiB; the format cannot be told; the first error of
/// the reader (line, move number and move), naming the file.
pub fn read_game_file<G: BoardView>(path: &Path, cfg: &G::Config) -> Result<Vec<Record<G>>> {
    let bytes = read_bounded(path, MAX_TEXT_RECORD_BYTES)?;
    let text = String::from_utf8_lossy(&bytes);
    let format = Format::detect(path, &text).with_context(|| path.display().to_string())?;
    read_records::<G>(&text, format, cfg).with_context(|| {
        format!(
            "{} ({} as {})",
            path.display(),
            format.name().to_ascii_uppercase(),
            G::NAME
        )
    })
}

/// `--notation` as given, checked against where it goes: WXF is a Xiangqi notation for PGN
/// files, so `wxf` for another game, or where no PGN file is written, is refused rather than
/// ignored. `iccs`, the default, is accepted everywhere.
///
/// # Errors
/// Not `iccs` or `wxf`; `wxf` for a game other than Xiangqi or without a PGN file
/// (`writes_pgn` false).
pub fn parse_notation(text: &str, spec: &GameSpec, writes_pgn: bool) -> Result<MoveNotation> {
    let notation: MoveNotation = text.parse().context("--notation")?;
    if notation != MoveNotation::default() {
        if !matches!(spec, GameSpec::Xiangqi) {
            bail!(
                "--notation {text}: WXF is a Xiangqi notation; {} moves have one notation",
                spec.name()
            );
        }
        if !writes_pgn {
            bail!("--notation {text}: applies to the moves of a PGN file, and none is written");
        }
    }
    Ok(notation)
}

/// Writes `records` to `path` in `format` (`notation`: Xiangqi PGN moves), atomically. PSQ
/// holds one game per file: with several games `path` is a folder (created when missing) that
/// gets `game-0001.psq`, `game-0002.psq`, …. Returns what was written, for a message.
///
/// # Errors
/// The format cannot hold these games (PSQ/SGF of Xiangqi, a set-up position in PSQ), or
/// writing failed.
pub fn save_records<G: BoardView>(
    path: &Path,
    records: &[Record<G>],
    format: Format,
    notation: MoveNotation,
) -> Result<String> {
    if format == Format::Psq && records.len() > 1 {
        let texts = records
            .iter()
            .map(|r| write_records(std::slice::from_ref(r), format, notation))
            .collect::<Result<Vec<_>, _>>()?;
        std::fs::create_dir_all(path)
            .with_context(|| format!("creating the folder {}", path.display()))?;
        for (i, t) in texts.iter().enumerate() {
            write_atomic(&path.join(format!("game-{:04}.psq", i + 1)), t.as_bytes())?;
        }
        return Ok(format!(
            "{} games written to {}/game-0001.psq … game-{:04}.psq",
            records.len(),
            path.display(),
            records.len()
        ));
    }
    let text = write_records(records, format, notation)?;
    write_atomic(path, text.as_bytes())?;
    Ok(format!(
        "{} written to {} ({})",
        crate::cmd::count(records.len(), "game"),
        path.display(),
        format.name().to_ascii_uppercase()
    ))
}

/// The format to write to `path`: `to` when given, else the path's extension.
///
/// # Errors
/// `to` is not pgn/sgf/psq, names another format than the path's record extension, or
/// neither it nor the extension names a format.
pub fn output_format(flag: &str, path: &Path, to: Option<&str>) -> Result<Format> {
    match to {
        Some(t) => {
            let format = t.parse::<Format>().map_err(anyhow::Error::from)?;
            match Format::from_path(path) {
                Some(named) if named != format => bail!(
                    "{flag} {}: the extension names {} but --to says {}; make them agree",
                    path.display(),
                    named.name().to_ascii_uppercase(),
                    format.name().to_ascii_uppercase()
                ),
                _ => Ok(format),
            }
        }
        None => Format::from_path(path).with_context(|| {
            // `play --save` has no --to: only the extension names its format.
            let or_to = if flag == "--save" { "" } else { " (or --to)" };
            format!(
                "{flag} {}: name the format with a .pgn, .sgf or .psq extension{or_to}",
                path.display()
            )
        }),
    }
}

fn result_text(r: alphazero_train::GameResult) -> &'static str {
    match r {
        alphazero_train::GameResult::FirstWon => "1-0 (first player won)",
        alphazero_train::GameResult::Draw => "1/2-1/2 (draw)",
        alphazero_train::GameResult::SecondWon => "0-1 (second player won)",
    }
}

fn show_for<G: BoardView>(
    cfg: &G::Config,
    file: &RecordFile,
    game_index: Option<usize>,
    ply: Option<usize>,
) -> Result<()> {
    let n = file.games.len();
    let indices: Vec<usize> = match (game_index, ply) {
        (Some(i), _) if i >= n => bail!("--game-index {i} out of range: the file holds {n} games"),
        (Some(i), _) => vec![i],
        (None, Some(_)) if n == 0 => bail!("the file holds no games"),
        (None, Some(_)) => vec![0],
        (None, None) => (0..n).collect(),
    };
    for &i in &indices {
        let rec = &file.games[i];
        let h = replay::<G>(cfg, rec).with_context(|| format!("game {i}"))?;
        let mut flags = Vec::new();
        if rec.flags.resigned {
            flags.push("resigned");
        }
        if rec.flags.no_resign {
            flags.push("no-resign");
        }
        if rec.flags.truncated {
            flags.push("truncated");
        }
        println!(
            "game {i} (id {}): {}, {} plies, flags: {}",
            file.header.first_game_id + i as u64,
            result_text(rec.result),
            rec.plies.len(),
            if flags.is_empty() {
                "none".to_string()
            } else {
                flags.join(",")
            }
        );
        if !rec.start.is_empty() {
            println!("  start: {}", rec.start);
        }
        if !rec.prefix.is_empty() {
            // Its plies (and `--ply`) count from the restart position.
            println!(
                "  restarted: from a position of an earlier game, after its first {} moves \
                 (the moves below include them; the game's own {} plies follow)",
                rec.prefix.len(),
                rec.plies.len()
            );
        }
        // `moves: …` and, for Xiangqi, a WXF line.
        for line in moves_lines(&h).lines() {
            println!("  {line}");
        }
        if let Some(p) = ply {
            if p >= rec.plies.len() {
                bail!(
                    "--ply {p} out of range: game {i} has {} plies",
                    rec.plies.len()
                );
            }
            let from_start = rec.prefix.len() + p;
            let mut before = h.clone();
            while before.len() > from_start {
                before.undo();
            }
            let pos = before.current();
            let pr = &rec.plies[p];
            let played = h.moves()[from_start];
            let restart_note = if rec.prefix.is_empty() {
                String::new()
            } else {
                format!(", move {} from the start", from_start + 1)
            };
            println!(
                "\nposition before ply {p}{restart_note} ({} to move):\n{pos}",
                G::side_name(pos.side_to_move())
            );
            let search = if pr.simulations == 0 {
                // The record format's marker of a fast playout-cap move.
                "fast search (playout cap), not a training target".to_string()
            } else {
                format!("{} simulations", pr.simulations)
            };
            println!(
                "played {}; root value {:+.3} (side to move), {search}{}",
                pos.format_move(played),
                pr.root_value,
                if pr.threat { ", marked threat" } else { "" }
            );
            let pi: Vec<(G::Move, f32)> = pr
                .policy_f32()
                .filter_map(|(a, p)| pos.action_to_move(usize::from(a)).map(|m| (m, p)))
                .collect();
            println!("π (search policy):\n{}", pos.policy_text(&pi));
        }
    }
    Ok(())
}

/// `records show`: prints a record file's header, then per game (all, or only game
/// `game_index`, 0-based) the result, flags and moves; with `ply` the board before that ply
/// (of game 0 unless `game_index` is given), the move played, the root value and π.
///
/// # Errors
/// The file is unreadable or not a record file, its game is unknown or its action count does
/// not fit the game, a recorded move is illegal, `game_index` or `ply` is out of range.
fn show(file_path: &Path, game_index: Option<usize>, ply: Option<usize>) -> Result<()> {
    let file = read_record_file(file_path)?;
    let h = &file.header;
    let spec = h
        .spec()
        .with_context(|| format!("{}: the records' game", file_path.display()))?;
    println!(
        "{}: game {}, {} actions, {} games, first id {}",
        file_path.display(),
        spec.words(),
        h.num_actions,
        file.games.len(),
        h.first_game_id
    );
    with_game!(&spec, G, cfg => {
        let n = G::new(cfg).num_actions() as u32;
        if n != h.num_actions {
            bail!(
                "header says {} actions but {} has {n}",
                h.num_actions,
                spec.words()
            );
        }
        show_for::<G>(cfg, &file, game_index, ply)
    })
}

/// The record files (`*.azr`) of a run directory (its `records/` folder, or `dir` itself),
/// sorted by name: oldest first, as a run names them.
///
/// # Errors
/// The folder cannot be read or holds no `.azr` file.
pub fn record_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let files = RunDir::local_record_files(dir)
        .with_context(|| format!("reading directory {}", dir.display()))?;
    if files.is_empty() {
        bail!("no record files (*.azr) in {}", dir.display());
    }
    Ok(files)
}

/// Checks that every game of `file` replays as a run's resume replays it (from its start
/// text, every move legal, its policy inside the action space): a file `list` calls fine is
/// one a resumed run keeps.
///
/// # Errors
/// The header names no game this build knows, or a game does not replay (the error names it).
fn replays(file: &RecordFile) -> Result<()> {
    let spec = file.header.spec().context("the records' game")?;
    with_game!(&spec, G, cfg => {
        alphazero_train::ReplayBuffer::<G>::check_replays(&G::new(cfg), file)
            .map(|_| ())
            .with_context(|| format!("its games do not replay as {}", spec.words()))
    })
}

/// `records list`: a table of the record files of a run directory (its `records/` folder, or
/// `dir` itself): games, plies, training positions and results per file, then the totals.
///
/// # Errors
/// The folder cannot be read or holds no `.azr` file; some files are unreadable (after the
/// table, which lists them).
fn list(dir: &Path) -> Result<()> {
    let files = record_files(dir)?;
    // "plies" counts every move played; "trained" only the full-search ones, the positions a
    // run trains on (fast playout-cap moves are recorded with 0 simulations and skipped).
    println!(
        "{:<40} {:>6} {:>7} {:>7} {:>6} {:>6} {:>6}",
        "file", "games", "plies", "trained", "1-0", "draw", "0-1"
    );
    let (mut games, mut plies, mut trained) = (0usize, 0usize, 0usize);
    let mut unreadable = 0usize;
    for f in &files {
        let name = f
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        match read_record_file(f).and_then(|rf| {
            replays(&rf)?;
            Ok(rf)
        }) {
            Ok(rf) => {
                let p: usize = rf.games.iter().map(|g| g.plies.len()).sum();
                let t: usize = rf
                    .games
                    .iter()
                    .map(|g| g.plies.iter().filter(|p| p.simulations > 0).count())
                    .sum();
                let count = |r| rf.games.iter().filter(|g| g.result == r).count();
                use alphazero_train::GameResult as R;
                println!(
                    "{:<40} {:>6} {:>7} {:>7} {:>6} {:>6} {:>6}",
                    name,
                    rf.games.len(),
                    p,
                    t,
                    count(R::FirstWon),
                    count(R::Draw),
                    count(R::SecondWon)
                );
                games += rf.games.len();
                plies += p;
                trained += t;
            }
            Err(e) => {
                unreadable += 1;
                println!("{name:<40} unreadable: {e:#}");
            }
        }
    }
    println!(
        "total: {} files, {games} games, {plies} plies, {trained} training positions \
         (full-search moves)",
        files.len()
    );
    if unreadable > 0 {
        bail!(
            "{unreadable} of {} record files are unreadable (listed above)",
            files.len()
        );
    }
    Ok(())
}

/// The games of a self-play record file as records: moves replayed, result, `Event`
/// `alphazero self-play`, `Round` the game's id.
fn azr_records<G: BoardView>(cfg: &G::Config, file: &RecordFile) -> Result<Vec<Record<G>>> {
    file.games
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let h = replay::<G>(cfg, g).with_context(|| format!("game {i}"))?;
            let mut r = Record::new(h);
            r.players = [
                "alphazero (self-play)".into(),
                "alphazero (self-play)".into(),
            ];
            r.result = match g.result {
                alphazero_train::GameResult::FirstWon => RecordResult::FirstWon,
                alphazero_train::GameResult::SecondWon => RecordResult::SecondWon,
                alphazero_train::GameResult::Draw => RecordResult::Draw,
            };
            r.set_tag("Event", "alphazero self-play");
            r.set_tag("Round", (file.header.first_game_id + i as u64).to_string());
            if g.flags.resigned {
                r.set_tag("Termination", "resigned");
            } else if g.flags.truncated {
                r.set_tag("Termination", "truncated (ply cap)");
            }
            Ok(r)
        })
        .collect()
}

struct ExportJob<'a> {
    out: &'a Path,
    format: Format,
    notation: MoveNotation,
    game_index: Option<usize>,
}

fn export_for<G: BoardView>(job: &ExportJob<'_>, records: Vec<Record<G>>) -> Result<()> {
    let n = records.len();
    let records = match job.game_index {
        Some(i) if i >= n => bail!("--game-index {i} out of range: the file holds {n} games"),
        Some(i) => records.into_iter().skip(i).take(1).collect(),
        None => records,
    };
    let msg = save_records(job.out, &records, job.format, job.notation)?;
    eprintln!("{msg}");
    Ok(())
}

/// `records export`: writes the games of `file` (a `.azr` record file, or a PGN, SGF or PSQ
/// file) to `out` in the format `to` (default: the extension of `out`); only game
/// `game_index` when given; Xiangqi PGN moves in `notation` (`iccs` or `wxf`); `rule` is the
/// Gomoku rule of a PSQ input. Says what was written on stderr.
///
/// # Errors
/// A bad format, notation or rule; `out` cannot be written; the input is unreadable, names no
/// known game, or holds games the format cannot hold; `game_index` out of range.
fn export(
    file: &Path,
    out: &Path,
    to: Option<&str>,
    game_index: Option<usize>,
    notation: &str,
    rule: Option<&str>,
) -> Result<()> {
    let format = output_format("--out", out, to)?;
    let notation: MoveNotation = notation.parse().context("--notation")?;
    if !(format == Format::Psq && out.is_dir()) {
        check_output_path("--out", out)?;
    }
    let job = ExportJob {
        out,
        format,
        notation,
        game_index,
    };
    if file.extension().is_some_and(|e| e == "azr") {
        if rule.is_some() {
            bail!("--rule applies to PSQ inputs only (a .azr file names its rule)");
        }
        let rf = read_record_file(file)?;
        let spec = rf
            .header
            .spec()
            .with_context(|| format!("{}: the records' game", file.display()))?;
        return with_game!(&spec, G, cfg => export_for::<G>(&job, azr_records::<G>(cfg, &rf)?));
    }
    let bytes = read_bounded(file, MAX_TEXT_RECORD_BYTES)?;
    let text = String::from_utf8_lossy(&bytes);
    let in_format = Format::detect(file, &text)?;
    let Some(game) = game_name_of(&text, in_format) else {
        bail!(
            "{}: the PGN names no game this program knows (a [Game \"Chinese Chess\"], \
             [Game \"gomoku\"] or [Game \"connect4\"] tag)",
            file.display()
        )
    };
    let spec = spec_from_flags(game, None, rule)?;
    with_game!(&spec, G, cfg => export_for::<G>(&job, read_game_file::<G>(file, cfg)?))
}
