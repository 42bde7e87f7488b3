//! `alphazero analyze`: searches one position and shows where the search looked — the root
//! visit distribution as a heatmap PNG on the board, and a table of the top moves on stdout —
//! or, with `--review`, every position of a recorded game, one line a move with its mistakes
//! marked.
//! The drawing itself is in [`crate::present`].
use crate::engine::{device, load_evaluator, search_position, PlaySearch};
use crate::games::GameArgs;
use crate::present::{board_text, draw_heatmap, pv_words, top_moves_table, use_color, BoardView};
use alphazero_game::{Game, History};
use alphazero_mcts::{ChildStats, Evaluator, SearchResult};
use alphazero_registry::with_game;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// Arguments of `alphazero analyze`.
#[derive(clap::Args, Debug)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    game: GameArgs,
    /// The position: a FEN (Xiangqi, optionally followed by `moves …`) or a move list from the
    /// start (Connect Four also as a digit string like `4453`).
    #[arg(long, default_value = "", conflicts_with = "file")]
    position: String,
    /// A game record to analyse instead: PGN (any game; Xiangqi in ICCS or WXF), PSQ or SGF
    /// (Gomoku), told apart by the extension or the text. Its board size and rule are used
    /// unless --size / --rule say otherwise (then they must agree). The final position is
    /// analysed unless --ply is given.
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
    /// Which game of a file holding several, counted from 0 (0 = the first; the output
    /// numbers games from 1: `game 1 of 3 (--game-index 0)`).
    #[arg(long, default_value_t = 0, requires = "file")]
    game_index: usize,
    /// Analyse the position after this many moves of the --file game (0 = its start).
    #[arg(long, requires = "file")]
    ply: Option<usize>,
    /// Search simulations (`--simulations` too).
    #[arg(long, visible_alias = "simulations", default_value_t = 800, value_parser = |s: &str| alphazero_mcts::knobs::SIMULATIONS.parse(s))]
    sims: u32,
    /// Network checkpoint, or a training run's folder for its champion (default: the
    /// shipped network if there is one, else uniform).
    #[arg(long, value_name = "FILE|RUN_DIR", value_parser = crate::cmd::model_arg)]
    model: Option<PathBuf>,
    /// Device: `default`, `cpu`, `cuda[:N]` or `wgpu[:N]` in builds with the `cuda` / `wgpu`
    /// feature (docs/training.md, GPU).
    #[arg(long, default_value = "default")]
    device: String,
    /// Rows of the move table.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Where to write the heatmap PNG (none if not given).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Review the whole --file game instead of one position: search the position before each
    /// move (from --ply, default the start) and print one line a move with its number (1 =
    /// the game's first move), the move played,
    /// its Q and share of the visits, the search's best move and its Q, and the root value (all
    /// from the side to move), marking a move `?` when its Q is at least 0.2 below the best
    /// move's and `??` at least 0.5 below (or when the search gave it no visit).
    #[arg(long, requires = "file", conflicts_with_all = ["out", "top"])]
    review: bool,
}

/// How far below the best move's Q a played move's Q marks it `?` (a mistake).
pub const MISTAKE_Q_GAP: f32 = 0.2;
/// How far below the best move's Q a played move's Q marks it `??` (a blunder).
pub const BLUNDER_Q_GAP: f32 = 0.5;

/// The whole game of `--file` (game `--game-index`), the ply `--ply` asks for (checked against
/// its length; default: its end, or its start for `--review`) and the configuration it is
/// played under: the file's size and rule, which must agree with `--size` / `--rule` when
/// those are given.
fn file_position<G: BoardView>(
    cfg: &G::Config,
    path: &Path,
    args: &AnalyzeArgs,
) -> Result<(History<G>, usize, G::Config)> {
    let records = super::records::read_game_file::<G>(path, cfg)?;
    let n = records.len();
    let rec = records.into_iter().nth(args.game_index).with_context(|| {
        format!(
            "--game-index {} (counted from 0): {} holds {}",
            args.game_index,
            path.display(),
            super::count(n, "game")
        )
    })?;
    let file_cfg = rec.history.start().config().clone();
    if (args.game.size.is_some() || args.game.rule.is_some()) && &file_cfg != cfg {
        bail!(
            "{} is a game of {} but --size/--rule ask for {}",
            path.display(),
            G::spec(&file_cfg).words(),
            G::spec(cfg).words()
        );
    }
    let plies = rec.history.len();
    let ply = args.ply.unwrap_or(if args.review { 0 } else { plies });
    // Games are numbered for people from 1 (`game 1 of 3`), with the --game-index that
    // picks each (counted from 0) beside the number.
    let which = format!(
        "game {} of {n} (--game-index {})",
        args.game_index + 1,
        args.game_index
    );
    if ply > plies {
        bail!(
            "--ply {ply}: {which} of {} has {plies} moves",
            path.display()
        );
    }
    eprintln!(
        "{}: {which}, {} vs {}, {} of {plies} moves",
        path.display(),
        or_unknown(&rec.players[0]),
        or_unknown(&rec.players[1]),
        if args.review {
            format!("reviewing from the position after {ply}")
        } else {
            format!("position after {ply}")
        },
    );
    Ok((rec.history, ply, file_cfg))
}

/// The first `ply` moves of `game`.
fn cut<G: Game>(game: &History<G>, ply: usize) -> History<G> {
    let mut h = History::new(game.start().clone());
    for &m in &game.moves()[..ply] {
        h.play_unchecked(m);
    }
    h
}

fn or_unknown(name: &str) -> &str {
    if name.is_empty() {
        "?"
    } else {
        name
    }
}

/// One line of a review: the move played against what the search of the position before it
/// found, all from the side to move.
struct Reviewed {
    /// Q of the move played: its own when the search visited or proved it, else (`from_after`)
    /// the negated value of the position after it (its search, or the game's end).
    played_q: f32,
    /// Whether `played_q` comes from the position after the move.
    from_after: bool,
    /// Share of the root visits the move played got, in [0, 1].
    played_share: f64,
    /// Q of the search's best move (the root value when that move was never visited).
    best_q: f32,
    /// The root value.
    value: f32,
}

impl Reviewed {
    /// The line of `played` from the search `r` of the position before it; `after` is the value
    /// of the position after it from the opponent's side (its search's root value, or the game's
    /// result), used when the search never looked at the move.
    fn of<G: Game>(r: &SearchResult<G>, played: G::Move, after: f32) -> Reviewed {
        let total = r.children.iter().map(|c| c.visits).sum::<u32>().max(1);
        fn looked<M>(c: &ChildStats<M>) -> bool {
            c.visits > 0 || c.proven.is_some()
        }
        let best_q = r
            .ranked_children()
            .first()
            .filter(|c| looked(c))
            .map_or(r.root_value, |c| c.q);
        let child = r.children.iter().find(|c| c.mv == played);
        let own = child.filter(|c| looked(c)).map(|c| c.q);
        Reviewed {
            played_q: own.unwrap_or(-after),
            from_after: own.is_none(),
            played_share: child.map_or(0.0, |c| f64::from(c.visits) / f64::from(total)),
            best_q,
            value: r.root_value,
        }
    }

    /// `??`, `?` or nothing, by how far the played move's Q is below the best's.
    fn mark(&self) -> &'static str {
        let gap = self.best_q - self.played_q;
        if gap >= BLUNDER_Q_GAP {
            "??"
        } else if gap >= MISTAKE_Q_GAP {
            "?"
        } else {
            ""
        }
    }
}

/// An undecided position of a review and its search.
type Searched<G> = (G, SearchResult<G>);

/// `alphazero analyze --review`: one search per position of `game` from ply `from` on (and
/// of its last position, for the last move's value), a line per move, and the count of
/// marked moves per side.
fn review<G: BoardView>(
    game: &History<G>,
    from: usize,
    eval: &dyn Evaluator<G>,
    config: &PlaySearch,
    sims: u32,
) -> Result<()> {
    if from >= game.len() {
        bail!(
            "--ply {from}: the game has {} moves, so there is no move after it to review",
            game.len()
        );
    }
    // The value of every position from `from` to the end, from its side to move, and the
    // position with its search for each undecided one; one walk through the game.
    let mut searched: Vec<(f32, Option<Searched<G>>)> = Vec::new();
    let mut h = cut(game, from);
    for ply in from..=game.len() {
        if let Some(o) = h.outcome() {
            searched.push((o.value(), None));
            break;
        }
        let r = search_position(&h, eval, config, None)?;
        searched.push((r.root_value, Some((h.current().clone(), r))));
        if let Some(&m) = game.moves().get(ply) {
            h.play_unchecked(m);
        }
    }
    println!(
        "{sims} simulations a position; Q and value from the side to move (`*`: the move was not \
         searched, its Q is the value after it); `?`: Q at least {MISTAKE_Q_GAP} below the best \
         move's, `??`: {BLUNDER_Q_GAP}"
    );
    println!(
        "{:>4}  {:<10} {:<8} {:>8} {:>7}  {:<8} {:>8} {:>8}  mark",
        "move", "side", "played", "Q", "share", "best", "Q best", "value"
    );
    let mut marks: Vec<(String, usize, usize)> = Vec::new();
    for (i, pair) in searched.windows(2).enumerate() {
        let (Some((pos, r)), (after, _)) = (&pair[0].1, &pair[1]) else {
            break;
        };
        // The move after `ply` moves is move number `ply + 1`.
        let ply = from + i;
        let played = game.moves()[ply];
        let line = Reviewed::of(r, played, *after);
        let best = r
            .ranked_children()
            .first()
            .map_or_else(|| "-".to_string(), |c| pos.format_move(c.mv));
        let side = G::side_name(pos.side_to_move()).to_string();
        let mark = line.mark();
        let star = if line.from_after { "*" } else { "" };
        println!(
            "{:>4}  {:<10} {:<8} {:>8} {:>6.1}%  {:<8} {:>+8.3} {:>+8.3}  {mark}",
            ply + 1,
            side,
            pos.format_move(played),
            format!("{:+.3}{star}", line.played_q),
            100.0 * line.played_share,
            best,
            line.best_q,
            line.value,
        );
        let k = match marks.iter().position(|(s, _, _)| *s == side) {
            Some(k) => k,
            None => {
                marks.push((side, 0, 0));
                marks.len() - 1
            }
        };
        match mark {
            "??" => marks[k].2 += 1,
            "?" => marks[k].1 += 1,
            _ => {}
        }
    }
    for (side, mistakes, blunders) in &marks {
        println!("{side}: {mistakes} `?`, {blunders} `??`");
    }
    Ok(())
}

fn run_for<G: BoardView>(cfg: &G::Config, args: &AnalyzeArgs) -> Result<()> {
    let (game, cfg) = match &args.file {
        Some(path) => {
            let (whole, ply, cfg) = file_position::<G>(cfg, path, args)?;
            if args.review {
                let dev = device(&args.device)?;
                let (eval, _) = load_evaluator::<G>(args.model.as_deref(), &cfg, &dev)?;
                let config = crate::engine::play_search::<G>(Some(args.sims), 0);
                return review(&whole, ply, &*eval, &config, args.sims);
            }
            (cut(&whole, ply), cfg)
        }
        None => (
            G::parse_position(cfg, &args.position).context("--position")?,
            cfg.clone(),
        ),
    };
    let cfg = &cfg;
    let pos = game.current();
    if let Some(o) = game.outcome() {
        bail!("the position is already decided ({o:?} for the side to move); nothing to analyze");
    }
    if let Some(out) = &args.out {
        super::check_output_path("--out", out)?;
        // The heatmap is a PNG whatever the name says: `x.jpg` would hold PNG bytes.
        if !out
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("png"))
        {
            anyhow::bail!(
                "--out {}: the heatmap is written as PNG; give a file name ending in .png",
                out.display()
            );
        }
    }
    let dev = device(&args.device)?;
    let (eval, _) = load_evaluator::<G>(args.model.as_deref(), cfg, &dev)?;
    let config = crate::engine::play_search::<G>(Some(args.sims), 0);
    let r = search_position(&game, &*eval, &config, None)?;
    println!("{}", board_text(pos, use_color()));
    println!(
        "{} to move; root value {:+.3} (from the side to move), {} simulations{}",
        G::side_name(pos.side_to_move()),
        r.root_value,
        r.simulations,
        match r.proven {
            Some(o) => format!(", proven {o:?}"),
            None => String::new(),
        }
    );
    let pv = pv_words(pos, &r.pv);
    println!(
        "best {}  pv {}",
        r.pv.first().map(|&m| pos.move_words(m)).unwrap_or_default(),
        pv.join(" ")
    );
    print!("{}", top_moves_table(pos, &r, args.top.max(1)));
    if let Some(out) = &args.out {
        let total: u32 = r.children.iter().map(|c| c.visits).sum::<u32>().max(1);
        let heat: Vec<(G::Move, f32)> = r
            .children
            .iter()
            .map(|c| (c.mv, c.visits as f32 / total as f32))
            .collect();
        let title = format!(
            "{} to move, {} simulations, best {}",
            G::side_name(pos.side_to_move()),
            r.simulations,
            r.pv.first().map(|&m| pos.move_words(m)).unwrap_or_default(),
        );
        draw_heatmap(pos, &heat, &title, out)?;
        eprintln!("heatmap written to {}", out.display());
    }
    Ok(())
}

/// Runs `alphazero analyze`.
pub fn run(args: &AnalyzeArgs) -> Result<()> {
    let spec = args.game.spec()?;
    with_game!(&spec, G, cfg => run_for::<G>(cfg, args))
}
