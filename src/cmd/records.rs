//! `alphazero records`: inspect self-play game records (`.azr` files written by `train`).
use super::analyze::BoardView;
use crate::games::{GameArgs, GameName, GameSpec};
use crate::with_game;
use alphazero_game::{Game, History};
use alphazero_train::record::{read_records_any, GameRecord, RecordFile};
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
}

/// The largest record file `records` reads (2 GiB). `train` writes files of a few MiB; the cap
/// keeps a wrong path (a device, a disk image) from being read into memory.
pub const MAX_RECORD_FILE_BYTES: u64 = 2 << 30;

/// Reads a whole record file after checking that it is a regular file of at most
/// [`MAX_RECORD_FILE_BYTES`] bytes (devices, FIFOs and huge files are refused before reading).
fn read_bounded(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let meta = file
        .metadata()
        .with_context(|| format!("reading the metadata of {}", path.display()))?;
    if !meta.is_file() {
        bail!(
            "{} is not a regular file (a directory, device or pipe); give a .azr record file",
            path.display()
        );
    }
    if meta.len() > MAX_RECORD_FILE_BYTES {
        bail!(
            "{} is {} bytes, over the {MAX_RECORD_FILE_BYTES}-byte limit for a record file",
            path.display(),
            meta.len()
        );
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // `take` keeps the bound even if the file grows while it is read.
    file.take(MAX_RECORD_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {}", path.display()))?;
    if bytes.len() as u64 > MAX_RECORD_FILE_BYTES {
        bail!(
            "{} grew past the {MAX_RECORD_FILE_BYTES}-byte limit for a record file while it was read",
            path.display()
        );
    }
    Ok(bytes)
}

fn read_file(path: &Path) -> Result<RecordFile> {
    let bytes = read_bounded(path)?;
    read_records_any(&bytes)
        .with_context(|| format!("{}: not a readable record file", path.display()))
}

/// The game of a record header: its name and the config's `Debug` text (for Gomoku the size
/// and rule are read out of `GomokuConfig { size: 8, rule: Freestyle, .. }`).
///
/// # Errors
/// An unknown game or a Gomoku config text without a valid size/rule.
pub fn spec_from_header(game: &str, config: &str) -> Result<GameSpec> {
    let field = |name: &str| -> Option<String> {
        let rest = config.split(&format!("{name}: ")).nth(1)?;
        Some(
            rest.split([',', ' ', '}'])
                .next()
                .unwrap_or_default()
                .to_string(),
        )
    };
    let name = match game {
        "gomoku" => GameName::Gomoku,
        "xiangqi" => GameName::Xiangqi,
        "connect4" => GameName::Connect4,
        other => bail!("record of unknown game {other:?}"),
    };
    let (size, rule) = if name == GameName::Gomoku {
        let size = field("size")
            .and_then(|s| s.parse::<u8>().ok())
            .with_context(|| format!("no board size in gomoku config {config:?}"))?;
        let rule = field("rule")
            .with_context(|| format!("no rule in gomoku config {config:?}"))?
            .to_ascii_lowercase();
        (Some(size), Some(rule))
    } else {
        (None, None)
    };
    GameArgs {
        game: name,
        size,
        rule,
    }
    .spec()
}

fn result_text(r: alphazero_train::GameResult) -> &'static str {
    match r {
        alphazero_train::GameResult::FirstWon => "1-0 (first player won)",
        alphazero_train::GameResult::Draw => "1/2-1/2 (draw)",
        alphazero_train::GameResult::SecondWon => "0-1 (second player won)",
    }
}

/// Replays a recorded game; returns the history and the positions before each ply with π
/// translated into moves. Stops with an error at the first action that is not a legal move.
fn replay<G: BoardView>(cfg: &G::Config, rec: &GameRecord) -> Result<History<G>> {
    let mut h = if rec.start.trim().is_empty() {
        History::new(G::new(cfg))
    } else {
        G::parse_position(cfg, &rec.start).context("the record's start position")?
    };
    for (i, ply) in rec.plies.iter().enumerate() {
        let pos = h.current();
        let mv = pos
            .action_to_move(usize::from(ply.action))
            .with_context(|| format!("ply {i}: action {} names no move", ply.action))?;
        h.play(mv)
            .with_context(|| format!("ply {i}: recorded move {mv}"))?;
    }
    Ok(h)
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
        let moves: Vec<String> = h.moves().iter().map(|m| m.to_string()).collect();
        println!("  moves: {}", moves.join(" "));
        if let Some(p) = ply {
            if p >= rec.plies.len() {
                bail!(
                    "--ply {p} out of range: game {i} has {} plies",
                    rec.plies.len()
                );
            }
            let mut before = h.clone();
            while before.len() > p {
                before.undo();
            }
            let pos = before.current();
            let pr = &rec.plies[p];
            let played = h.moves()[p];
            println!(
                "\nposition before ply {p} ({} to move):\n{pos}",
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

fn show(file_path: &Path, game_index: Option<usize>, ply: Option<usize>) -> Result<()> {
    let file = read_file(file_path)?;
    let h = &file.header;
    println!(
        "{}: game {}, {} actions, {} games, first id {}",
        file_path.display(),
        crate::engine::config_words(&h.game, &h.config),
        h.num_actions,
        file.games.len(),
        h.first_game_id
    );
    let spec = spec_from_header(&h.game, &h.config)?;
    with_game!(&spec, G, cfg => {
        let n = G::new(cfg).num_actions() as u32;
        if n != h.num_actions {
            bail!(
                "header says {} actions but {} has {n}",
                h.num_actions,
                crate::engine::config_words(&h.game, &h.config)
            );
        }
        show_for::<G>(cfg, &file, game_index, ply)
    })
}

fn list(dir: &Path) -> Result<()> {
    let rec_dir = if dir.join("records").is_dir() {
        dir.join("records")
    } else {
        dir.to_path_buf()
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&rec_dir)
        .with_context(|| format!("reading directory {}", rec_dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "azr"))
        .collect();
    files.sort();
    if files.is_empty() {
        bail!("no record files (*.azr) in {}", rec_dir.display());
    }
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
        match read_file(f) {
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

/// Runs `alphazero records`.
pub fn run(args: &RecordsArgs) -> Result<()> {
    match &args.command {
        RecordsCommand::Show {
            file,
            game_index,
            ply,
        } => show(file, *game_index, *ply),
        RecordsCommand::List { run_dir } => list(run_dir),
    }
}
