//! `alphazero eval`: learning-quality reports — Connect Four against the exact solver, and
//! value calibration of a training run.
use crate::games::GameArgs;
use alphazero_arena::{calibration, expected_calibration_error};
use alphazero_connect4::{C4Move, Connect4, Connect4Config};
use alphazero_engine::{device, load_evaluator, search_position};
use alphazero_game::{Game, History, Side};
use alphazero_mcts::EvalRequest;
use alphazero_registry::connect4_yardstick::{evaluate_sets, C4EvalConfig, DEFAULT_SETS};
use alphazero_registry::{with_game, GameSpec};
use alphazero_train::record::read_records_any;
use alphazero_train::RunDir;
use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};

/// Arguments of `alphazero eval`.
#[derive(clap::Args, Debug)]
pub struct EvalArgs {
    #[command(subcommand)]
    command: EvalCommand,
}

#[derive(clap::Subcommand, Debug)]
enum EvalCommand {
    /// Connect Four against the solver on Pascal Pons' test sets: per file, the share of
    /// positions where the network alone (policy argmax) picks a best move (the fastest win,
    /// the slowest loss) and a move that keeps the result (win, draw or loss; a slower win
    /// counts), where its value has the solver's sign, and the same two shares for the
    /// search's move. The solver's answers come from the sets' caches
    /// (`tests/data/connect4/scores/`: the first 200 positions of Test_L1_R1 and Test_L1_R3,
    /// all 1,000 of Test_L1_R2) where they have them.
    Connect4(Connect4Args),
    /// Value calibration of a run: the recorded root value (prediction) against the game's
    /// result z, both from the side to move, in equal bins over [-1, 1].
    Calibration {
        #[command(flatten)]
        game: GameArgs,
        /// The run directory (its `records/*.azr` are read).
        #[arg(long)]
        run: PathBuf,
        /// Number of bins.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1000))]
        bins: u64,
    },
}

/// Arguments of `alphazero eval connect4`.
#[derive(clap::Args, Debug)]
pub struct Connect4Args {
    /// Network checkpoint, or a training run's folder for its champion (without it: the
    /// shipped network if there is one, else the uniform evaluator; the report names which).
    #[arg(long, value_name = "FILE|RUN_DIR", value_parser = crate::cmd::model_arg)]
    model: Option<PathBuf>,
    /// Device: `default`, `cpu`, `cuda[:N]` or `wgpu[:N]` in builds with the `cuda` / `wgpu`
    /// feature (docs/training.md, GPU).
    #[arg(long, default_value = "default")]
    device: String,
    /// Search simulations for the search column (0 = no search).
    #[arg(long, default_value_t = 200)]
    sims: u32,
    /// Positions per file (the first ones).
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    lines: u64,
    /// Test files, comma-separated (default: Test_L3_R1,Test_L2_R1,Test_L2_R2,Test_L1_R1;
    /// also Test_L1_R2, Test_L1_R3: early positions, slow to solve beyond their caches).
    #[arg(long, value_delimiter = ',')]
    sets: Vec<String>,
    /// Test-data folder (default: `$ALPHAZERO_TESTDATA`, else the repository's
    /// `tests/data/connect4`).
    #[arg(long)]
    testdata: Option<PathBuf>,
}

/// Runs `alphazero eval`.
pub fn run(args: &EvalArgs) -> Result<()> {
    match &args.command {
        EvalCommand::Connect4(a) => run_connect4(a),
        EvalCommand::Calibration { game, run, bins } => {
            run_calibration(&game.spec()?, run, *bins as usize)
        }
    }
}

/// The test-data folders of a game's exact solver (its [`alphazero_registry::YardstickInfo::folder`], e.g.
/// `connect4`) to try without `--testdata`, in order: `$ALPHAZERO_TESTDATA` (its `<folder>/`
/// subfolder, or the folder itself when it has none), `tests/data/<folder>` of the
/// repository the executable lies in, of the current directory, and of the source tree it
/// was compiled from (so `cargo install --path .` still finds the clone's data).
fn testdata_candidates(folder: &str) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = std::env::var_os("ALPHAZERO_TESTDATA").filter(|d| !d.is_empty()) {
        let d = PathBuf::from(d);
        if d.join(folder).is_dir() {
            dirs.push(d.join(folder));
        } else {
            dirs.push(d);
        }
    }
    let in_repo = Path::new("tests/data").join(folder);
    if let Some(repo) = alphazero_engine::exe_repository() {
        dirs.push(repo.join(&in_repo));
    }
    if let Ok(cwd) = std::env::current_dir() {
        let here = cwd.join(&in_repo);
        if !dirs.contains(&here) {
            dirs.push(here);
        }
    }
    let built = alphazero_engine::source_tree().join(&in_repo);
    if !dirs.contains(&built) {
        dirs.push(built);
    }
    dirs
}

/// The test-data folder of a game's exact solver, named `folder` ([`alphazero_registry::YardstickInfo::folder`],
/// e.g. `connect4`): `--testdata`, else the first existing of `$ALPHAZERO_TESTDATA` (its
/// `<folder>/` subfolder, or the folder itself when it has none) and the `tests/data/<folder>`
/// of the repository the executable lies in, of the current directory, and of the source tree
/// this crate was compiled from.
///
/// # Errors
/// `--testdata` is not a folder, or none of the candidates exists.
pub fn testdata_dir(explicit: Option<&Path>, folder: &str) -> Result<PathBuf> {
    if let Some(d) = explicit {
        if !d.is_dir() {
            bail!("--testdata {} is not a folder", d.display());
        }
        return Ok(d.to_path_buf());
    }
    let tried = testdata_candidates(folder);
    if let Some(d) = tried.iter().find(|d| d.is_dir()) {
        return Ok(d.clone());
    }
    bail!(
        "no {folder} test data found (tried {}); give --testdata DIR or set \
         ALPHAZERO_TESTDATA",
        tried
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn softmax_legal(pos: &Connect4, logits: &[f32]) -> Vec<f32> {
    let legal = pos.legal_moves_vec();
    let max = legal
        .iter()
        .map(|m| logits[m.col()])
        .fold(f32::NEG_INFINITY, f32::max);
    let mut p = vec![0.0f32; logits.len()];
    let mut sum = 0.0;
    for m in &legal {
        let e = (logits[m.col()] - max).exp();
        p[m.col()] = e;
        sum += e;
    }
    if sum > 0.0 {
        p.iter_mut().for_each(|x| *x /= sum);
    }
    p
}

/// `eval connect4`: the network's policy and value, and the search's move, against the exact
/// solver on Pascal Pons' test sets; one table row per file on stdout, a progress bar on
/// stderr.
///
/// # Errors
/// No test data or an unknown test file; the evaluator cannot be loaded; an evaluation or
/// search failed.
fn run_connect4(args: &Connect4Args) -> Result<()> {
    let (model, device_name, sims, lines) =
        (args.model.as_deref(), &args.device, args.sims, args.lines);
    let (sets, testdata) = (&args.sets, args.testdata.as_deref());
    let dir = testdata_dir(testdata, <Connect4 as Game>::NAME)?;
    let sets: Vec<String> = if sets.is_empty() {
        DEFAULT_SETS.iter().map(|s| s.to_string()).collect()
    } else {
        sets.iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    };
    if sets.is_empty() {
        bail!(
            "--sets names no test file (leave it out for {})",
            DEFAULT_SETS.join(",")
        );
    }
    for s in &sets {
        if !dir.join(s).is_file() {
            bail!("test file {s:?} not found in {}", dir.display());
        }
    }
    let dev = device(device_name)?;
    let (eval, desc) = load_evaluator::<Connect4>(model, &Connect4Config, &dev)?;
    // The positions each file gives (the first `lines` non-empty ones), for the progress bar.
    let mut per_file = Vec::new();
    for s in &sets {
        let path = dir.join(s);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        per_file.push((text.lines().filter(|l| !l.trim().is_empty()).count() as u64).min(lines));
    }
    let pb = ProgressBar::new(per_file.iter().sum());
    pb.set_style(
        ProgressStyle::with_template(
            "{msg:>12} [{bar:30}] {pos}/{len} positions {per_sec} eta {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    let mut err: Option<anyhow::Error> = None;
    let mut policy_fn = |pos: &Connect4| -> (Vec<f32>, f32) {
        pb.inc(1);
        let mut logits = vec![0.0f32; pos.num_actions()];
        let mut v = [0.0f32];
        let req = [EvalRequest {
            position: pos,
            history: &[],
        }];
        if let Err(e) = eval.evaluate(&req, &mut logits, &mut v) {
            err.get_or_insert(e.into());
        }
        (softmax_legal(pos, &logits), v[0])
    };
    let mut search_err: Option<anyhow::Error> = None;
    // The move a player would make: Connect Four's play search.
    let config = alphazero_engine::play_search::<Connect4>(Some(sims.max(1)), 0);
    let mut chooser = |pos: &Connect4| -> C4Move {
        let h = History::new(*pos);
        match search_position(&h, &*eval, &config, None) {
            Ok(r) => r.best_move.unwrap_or(C4Move(0)),
            Err(e) => {
                search_err.get_or_insert(e);
                C4Move(0)
            }
        }
    };
    let set_refs: Vec<&str> = sets.iter().map(String::as_str).collect();
    let cfg = C4EvalConfig {
        max_lines: lines as usize,
        ..C4EvalConfig::default()
    };
    let mut reports = Vec::new();
    let mut done = 0;
    for (set, n) in set_refs.iter().zip(&per_file) {
        pb.set_message(set.to_string());
        let ch: Option<&mut dyn FnMut(&Connect4) -> C4Move> =
            if sims > 0 { Some(&mut chooser) } else { None };
        reports.extend(evaluate_sets(&dir, &[set], &mut policy_fn, ch, &cfg)?);
        // Positions already decided are skipped without an evaluation: count them too.
        done += n;
        pb.set_position(done);
    }
    pb.finish_and_clear();
    if let Some(e) = err.or(search_err) {
        return Err(e.context("evaluating positions"));
    }
    println!(
        "connect4 eval: {desc}; search {sims} simulations; {} positions per file at most",
        lines
    );
    println!(
        "{:<12} {:>9} {:>12} {:>12} {:>11} {:>12} {:>13} {:>7}",
        "file",
        "positions",
        "policy-best",
        "policy-keeps",
        "value-sign",
        "search-best",
        "search-keeps",
        "cached"
    );
    let pct = |a: Option<f64>| a.map_or_else(|| "-".to_string(), |a| format!("{:.1}%", 100.0 * a));
    for r in &reports {
        println!(
            "{:<12} {:>9} {:>11.1}% {:>11.1}% {:>10.1}% {:>12} {:>13} {:>7}",
            r.file,
            r.positions,
            100.0 * r.policy_accuracy(),
            100.0 * r.policy_keep_accuracy(),
            100.0 * r.value_accuracy(),
            pct(r.search_accuracy()),
            pct(r.search_keep_accuracy()),
            r.cached
        );
    }
    println!(
        "best = one of the solver's best moves (fastest win, slowest loss); keeps = a move that \
         keeps the position's result (win, draw, loss); cached = positions answered from \
         scores/<file>.scores"
    );
    Ok(())
}

fn samples_for<G: alphazero_engine::present::BoardView>(
    cfg: &G::Config,
    rec: &alphazero_train::GameRecord,
    out: &mut Vec<(f32, f32)>,
) -> Result<()> {
    let mut h = if rec.start.trim().is_empty() {
        History::new(G::new(cfg))
    } else {
        G::parse_position(cfg, &rec.start)?
    };
    // A restarted game's prefix: the earlier game's moves, no samples of this one.
    for &action in &rec.prefix {
        let mv = h
            .current()
            .action_to_move(usize::from(action))
            .with_context(|| format!("restart move: action {action} names no move"))?;
        h.play(mv)?;
    }
    let z_first = f32::from(rec.result.z_first());
    for ply in &rec.plies {
        let pos = h.current();
        let z = if pos.side_to_move() == Side::First {
            z_first
        } else {
            -z_first
        };
        if ply.simulations > 0 {
            out.push((ply.root_value, z));
        }
        let mv = pos
            .action_to_move(usize::from(ply.action))
            .with_context(|| format!("action {} names no move", ply.action))?;
        h.play(mv)?;
    }
    Ok(())
}

/// `eval calibration`: the recorded root values of a run's records (`<run>/records/*.azr`,
/// games of `want`) against the results z, both from the side to move, in `bins` equal bins
/// over [-1, 1], with the expected calibration error. A file recorded under other Gomoku
/// options than `want` is read under its own (with a note on stderr).
///
/// # Errors
/// No readable record files, a file of another game, a recorded move that is illegal.
fn run_calibration(want: &GameSpec, run: &Path, bins: usize) -> Result<()> {
    let dir = run.join(RunDir::RECORDS);
    let files = RunDir::local_records(run).with_context(|| format!("reading {}", dir.display()))?;
    if files.is_empty() {
        bail!("no record files in {}", dir.display());
    }
    let mut samples = Vec::new();
    let mut games = 0usize;
    for f in &files {
        let bytes = std::fs::read(f).with_context(|| format!("reading {}", f.display()))?;
        let rf = read_records_any(&bytes).with_context(|| format!("{}", f.display()))?;
        if rf.header.game != want.name() {
            bail!(
                "{} holds {} games, not {}",
                f.display(),
                rf.header.game,
                want.name()
            );
        }
        let spec = rf
            .header
            .spec()
            .with_context(|| format!("{}", f.display()))?;
        if spec != *want {
            eprintln!(
                "note: {} was recorded with {} (not the --size/--rule given); using the file's",
                f.display(),
                spec.words()
            );
        }
        with_game!(&spec, G, cfg => {
            for (i, rec) in rf.games.iter().enumerate() {
                samples_for::<G>(cfg, rec, &mut samples)
                    .with_context(|| format!("{} game {i}", f.display()))?;
            }
        });
        games += rf.games.len();
    }
    let b = calibration(&samples, bins);
    println!(
        "calibration of {}: {} files, {games} games, {} positions (root value vs result z, side to move)",
        run.display(),
        files.len(),
        samples.len()
    );
    println!(
        "{:<13} {:>8} {:>10} {:>10}",
        "bin", "count", "mean pred", "mean z"
    );
    for (i, bin) in b.iter().enumerate() {
        // Bins are half-open except the last, which holds +1 itself.
        let close = if i + 1 == b.len() { ']' } else { ')' };
        let label = format!("[{:>+5.2},{:>+5.2}{close}", bin.lo, bin.hi);
        if bin.count == 0 {
            println!("{label} {:>8} {:>10} {:>10}", 0, "-", "-");
        } else {
            println!(
                "{label} {:>8} {:>+10.3} {:>+10.3}",
                bin.count, bin.mean_pred, bin.mean_z
            );
        }
    }
    println!(
        "expected calibration error: {:.4}",
        expected_calibration_error(&b)
    );
    Ok(())
}
