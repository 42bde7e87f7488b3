//! `alphazero arena`: matches between players (built-in baselines, networks, external
//! engines) with a cross table and Bradley–Terry ratings, an SPRT mode for two players, a
//! strength ladder of one challenger against rungs, a rating ladder over the networks of a
//! training run, and those networks against fixed rungs. [`run`] takes the flags ([`ArenaArgs`], in [`args`]) and checks them before
//! any game; each game's own players ([`ArenaGame`]) are in [`games`].
mod args;
mod games;
mod ladder_png;

use crate::stdout::{out, outln};
use alphazero_arena::{
    ladder_markdown, ladder_table, run_ladder, run_match_sprt, Entrant, GameRecord, LimitedPlayer,
    Limits, MatchConfig, MatchResult, MctsPlayer, OpeningBook, Pairing, Player, PlayerKind,
    PlayerSettings, PlayerSpec, RandomPlayer, Ratings, Sprt, SprtDecision,
};
use alphazero_engine::files::check_output_path;
use alphazero_engine::present::BoardView;
use alphazero_engine::{device, load_network};
use alphazero_formats::{Format, MoveNotation};
use alphazero_game::{mix_seed, Game, History};
use alphazero_mcts::{knobs, CPuct, Evaluator, GumbelConfig, SearchBudget, SearchConfig};
use alphazero_nn::Device;
use alphazero_registry::with_game;
use alphazero_registry::{GameSpec, Registered};
use anyhow::{bail, Context, Result};
pub use args::ArenaArgs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// A player with its own simulation count, whatever the match-wide limits say.
fn with_sims<G: Game>(inner: Box<dyn Player<G>>, sims: Option<u32>) -> Box<dyn Player<G>> {
    Box::new(LimitedPlayer::new(
        inner,
        Limits {
            simulations: sims,
            ..Limits::default()
        },
    ))
}

/// Makes a fresh player for each game (one per worker thread and game).
pub type Factory<G> = Arc<dyn Fn() -> Box<dyn Player<G>> + Send + Sync>;

/// Games with players of their own (heuristics, engines over a protocol).
pub trait ArenaGame: BoardView {
    /// A factory for a game-specific spec, or an error saying the spec is for another game.
    /// The spec's settings carry the protocol extras of an external engine (Gomocup `INFO`
    /// lines, UCCI/UCI options); limits and names are applied by the caller.
    ///
    /// # Errors
    /// The spec does not apply to this game.
    fn special(spec: &PlayerSpec, text: &str, seed: u64) -> Result<(String, Factory<Self>)>;

    /// The openings of an opening file's `text` for games from `start`, in file order; only
    /// games with a file format of their own have them (Gomoku: Gomocup's offset format).
    ///
    /// # Errors
    /// This game reads no opening files, or a line is not an opening of `start`'s board.
    fn opening_file(start: &Self, text: &str) -> Result<Vec<History<Self>>> {
        let _ = (start, text);
        bail!(
            "opening files are Gomoku's (Gomocup offset format); {} takes --openings random-K \
             or none",
            Self::NAME
        )
    }
}

pub(crate) fn wrong_game<G: Game>(text: &str) -> anyhow::Error {
    anyhow::anyhow!("player {text:?} cannot play {}", G::NAME)
}

/// Search settings of the network players (`--c-puct`, `--leaves-per-batch`, `--gumbel`, and
/// a `net:` player's own `option=NAME=VALUE` settings), each `None` when not given: the game's
/// play search decides.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct NetSearch {
    c_puct: Option<f32>,
    leaves_per_batch: Option<u32>,
    gumbel: Option<u32>,
    fpu_reduction: Option<f32>,
    policy_temperature: Option<f32>,
}

/// The search settings a `net:` player takes as `option=NAME=VALUE`, each with its range
/// (the search's own declarations, [`alphazero_mcts::knobs`]).
pub(crate) fn net_options() -> String {
    format!(
        "{}, {}, {}, {}",
        knobs::C_PUCT,
        knobs::FPU_REDUCTION,
        knobs::POLICY_TEMPERATURE,
        knobs::LEAVES_PER_BATCH
    )
}

impl NetSearch {
    fn of(args: &ArenaArgs) -> Self {
        NetSearch {
            c_puct: args.c_puct,
            leaves_per_batch: args.leaves_per_batch,
            gumbel: args.gumbel,
            ..NetSearch::default()
        }
    }

    /// These settings with a `net:` player's own `option=NAME=VALUE` settings laid over them
    /// (names case-insensitive, `-` read as `_`), so that two players of one match can search
    /// differently (e.g. `net:F:200{option=policy_temperature=1.5}` against `net:F:200`).
    ///
    /// # Errors
    /// An unknown name, a value that is not a number, or one the search cannot use, with
    /// the names it knows.
    pub(crate) fn with_options(mut self, text: &str, options: &[(String, String)]) -> Result<Self> {
        for (name, value) in options {
            let key = name.trim().to_ascii_lowercase().replace('-', "_");
            let bad = |e: knobs::KnobError| {
                anyhow::anyhow!(
                    "player {text:?}: option {name}={value:?}: expected {}",
                    e.expected
                )
            };
            match key.as_str() {
                "c_puct" => self.c_puct = Some(knobs::C_PUCT.parse(value).map_err(bad)?),
                "fpu_reduction" => {
                    self.fpu_reduction = Some(knobs::FPU_REDUCTION.parse(value).map_err(bad)?)
                }
                "policy_temperature" => {
                    self.policy_temperature =
                        Some(knobs::POLICY_TEMPERATURE.parse(value).map_err(bad)?)
                }
                "leaves_per_batch" => {
                    self.leaves_per_batch = Some(knobs::LEAVES_PER_BATCH.parse(value).map_err(bad)?)
                }
                _ => {
                    bail!(
                        "player {text:?}: unknown option {name:?}; a net: player takes {}",
                        net_options()
                    )
                }
            }
        }
        Ok(self)
    }

    /// How a network player searches: the game's [`alphazero_engine::play_search`], and these
    /// flags where given (the experiments the flags are for: a constant c_puct, another batch
    /// of leaves, a Gumbel root).
    pub(crate) fn config<G: Registered>(self) -> SearchConfig {
        let play = G::play_search();
        SearchConfig {
            c_puct: self.c_puct.map_or(play.c_puct, CPuct::Constant),
            leaves_per_batch: self.leaves_per_batch.unwrap_or(play.leaves_per_batch),
            gumbel: self
                .gumbel
                .map(|m| GumbelConfig {
                    num_sampled_actions: m,
                    ..GumbelConfig::default()
                })
                .or(play.gumbel),
            fpu_reduction: self.fpu_reduction.unwrap_or(play.fpu_reduction),
            policy_temperature: self.policy_temperature.unwrap_or(play.policy_temperature),
            ..play
        }
    }
}

fn net_entrant<G: ArenaGame>(
    file: &Path,
    sims: Option<u32>,
    cfg: &G::Config,
    dev: &Device,
    seed: u64,
    search: NetSearch,
) -> Result<Entrant<G>> {
    // `net:FILE:abc` reads `FILE:abc` as the file (a path may hold ':'): when only `FILE`
    // exists, the count was meant, and saying so beats "no such file".
    if !file.exists() {
        let text = file.to_string_lossy();
        if let Some((prefix, count)) = text.rsplit_once(':') {
            if !prefix.is_empty() && Path::new(prefix).exists() {
                bail!(
                    "player net:{text}: SIMS must be a positive number, got {count:?} \
                     (net:FILE[:SIMS])"
                );
            }
        }
    }
    // A run's folder plays its champion, as `--model` takes it.
    let file = &alphazero_train::local::network_or_champion(file)?;
    let (eval, desc) = load_network::<G>(file, cfg, dev)?;
    let shown = search.config::<G>();
    let c = match shown.c_puct {
        CPuct::Constant(c) => format!("c_puct {c}"),
        CPuct::AlphaZero { .. } => "c_puct AlphaZero c(N)".into(),
    };
    let c = match shown.gumbel {
        Some(g) => format!(
            "Gumbel root (m = {}), {c} below the root",
            g.num_sampled_actions
        ),
        None => c,
    };
    eprintln!(
        "player net: {desc}; search {c}, FPU reduction {}, policy temperature {}, {} {} per \
         network call",
        shown.fpu_reduction,
        shown.policy_temperature,
        shown.leaves_per_batch,
        if shown.leaves_per_batch == 1 {
            "leaf"
        } else {
            "leaves"
        }
    );
    let stem = file
        .file_stem()
        .map_or_else(|| "net".into(), |s| s.to_string_lossy().into_owned());
    let name = match sims {
        Some(s) => format!("{stem}@{s}"),
        None => stem,
    };
    Ok(mcts_entrant(name, eval, 100, sims, seed, search))
}

fn mcts_entrant<G: Registered>(
    name: String,
    eval: Arc<dyn Evaluator<G>>,
    default_sims: u32,
    sims: Option<u32>,
    seed: u64,
    search: NetSearch,
) -> Entrant<G> {
    let n = name.clone();
    Entrant::new(name, move || {
        let budget = SearchBudget {
            seed,
            ..SearchBudget::simulations(sims.unwrap_or(default_sims))
        };
        let p = MctsPlayer::new(n.clone(), eval.clone(), search.config::<G>(), budget);
        with_sims(Box::new(p), sims)
    })
}

/// Starts one instance of an external engine and asks it for a move from `start`, so that
/// an engine that cannot start, or does not speak its protocol, stops the command with one
/// clear error before any game is played (instead of losing every game of the match).
fn preflight<G: ArenaGame>(entrant: &Entrant<G>, start: &G, limits: &Limits) -> Result<()> {
    let mut player = (entrant.factory)();
    let checked = player.new_game().and_then(|()| {
        player
            .choose_move(&History::new(start.clone()), limits)
            .map(|_| ())
    });
    if let Err(e) = checked {
        bail!(
            "player {} cannot play, so the match was not started: {e}",
            entrant.name
        );
    }
    Ok(())
}

/// The player of `spec` (written as `text` on the command line, for error messages).
fn build_entrant<G: ArenaGame>(
    spec: &PlayerSpec,
    text: &str,
    cfg: &G::Config,
    dev: &Device,
    seed: u64,
    search: NetSearch,
) -> Result<Entrant<G>> {
    let entrant = match &spec.kind {
        PlayerKind::Random => Entrant::new("random", move || {
            Box::new(RandomPlayer::new(seed)) as Box<dyn Player<G>>
        }),
        PlayerKind::Rollout(n) => {
            let n = *n;
            Entrant::new(format!("rollout-{n}"), move || {
                with_sims(Box::new(MctsPlayer::<G>::rollout(n, seed)), Some(n))
            })
        }
        PlayerKind::Uniform(n) => {
            let n = *n;
            Entrant::new(format!("uniform-{n}"), move || {
                with_sims(Box::new(MctsPlayer::<G>::uniform(n)), Some(n))
            })
        }
        PlayerKind::Net { file, simulations } => {
            let search = search.with_options(text, &spec.settings.options)?;
            search.config::<G>().validate().map_err(|e| {
                anyhow::anyhow!(
                    "player {text:?}: {e}; a net: player takes {}",
                    net_options()
                )
            })?;
            net_entrant::<G>(file, *simulations, cfg, dev, seed, search)?
        }
        _ => {
            let (name, f) = G::special(spec, text, seed)?;
            Entrant {
                name,
                factory: f,
                batched: None,
            }
        }
    };
    Ok(with_settings(entrant, &spec.settings))
}

/// The entrant under its settings' name and own limits (unchanged without settings).
fn with_settings<G: Game>(entrant: Entrant<G>, settings: &PlayerSettings) -> Entrant<G> {
    let name = settings.display_name(&entrant.name);
    let own = settings.limits;
    if own == Limits::default() {
        return Entrant { name, ..entrant };
    }
    let inner = entrant.factory;
    Entrant::new(name, move || {
        Box::new(LimitedPlayer::new(inner(), own)) as Box<dyn Player<G>>
    })
}

fn unique_names<G: Game>(entrants: &mut [Entrant<G>]) {
    let names: Vec<String> = entrants.iter().map(|e| e.name.clone()).collect();
    for (i, e) in entrants.iter_mut().enumerate() {
        let same = names.iter().filter(|n| **n == names[i]).count();
        if same > 1 {
            let k = names[..i].iter().filter(|n| **n == names[i]).count() + 1;
            e.name = format!("{}#{k}", names[i]);
        }
    }
}

/// The openings of `--openings`: K random plies, or an opening file's openings in order.
struct Openings<G: Game> {
    /// Random plies of each opening (0 with a file or `none`).
    plies: u32,
    /// The file's openings.
    book: Option<OpeningBook<G>>,
    /// The openings in words, for the summary lines: `of K random plies` / `of FILE`.
    words: String,
}

/// `--openings`: `random-K`, `none`, or the path of an opening file (read with
/// [`ArenaGame::opening_file`]; a note when the match wants more openings than it holds,
/// which are then played again from its first, as c-gomoku-cli does).
fn parse_openings<G: ArenaGame>(text: &str, cfg: &G::Config, games: u32) -> Result<Openings<G>> {
    let t = text.trim().to_ascii_lowercase();
    let random = |plies: u32| Openings {
        plies,
        book: None,
        words: format!("of {plies} random plies"),
    };
    if t == "none" {
        return Ok(random(0));
    }
    if let Some(k) = t.strip_prefix("random-") {
        return match k.parse::<u32>() {
            Ok(k) if k <= 100 => Ok(random(k)),
            _ => bail!("--openings {text:?}: expected random-K (K = 0–100), none or a file"),
        };
    }
    let path = Path::new(text);
    if !path.is_file() {
        bail!(
            "--openings {text:?}: no such file (expected random-K with K = 0–100, none, or an \
             opening file)"
        );
    }
    let body =
        std::fs::read_to_string(path).with_context(|| format!("reading --openings {text}"))?;
    let lines = G::opening_file(&G::new(cfg), &body)
        .with_context(|| format!("--openings {text}: not an opening file of {}", G::NAME))?;
    let book = OpeningBook::new(lines).with_context(|| format!("--openings {text}"))?;
    let wanted = games.div_ceil(2) as usize;
    if wanted > book.len() {
        eprintln!(
            "note: --openings {text} holds {} openings, {wanted} wanted: played again from the \
             first",
            book.len()
        );
    }
    Ok(Openings {
        plies: 0,
        book: Some(book),
        words: format!("of {text}"),
    })
}

/// The largest Elo difference `--sprt` accepts for `elo0` and `elo1` (a 1000-Elo edge is a
/// 99.7% score; larger hypotheses are typos).
const MAX_SPRT_ELO: f64 = 1000.0;

fn parse_sprt(text: &str) -> Result<Sprt> {
    let v: Vec<f64> = text
        .split(',')
        .map(|x| x.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| anyhow::anyhow!("--sprt {text:?}: expected numbers elo0,elo1[,alpha,beta]"))?;
    let (elo0, elo1, alpha, beta) = match v.as_slice() {
        [a, b] => (*a, *b, 0.05, 0.05),
        [a, b, c, d] => (*a, *b, *c, *d),
        _ => bail!("--sprt {text:?}: expected elo0,elo1 or elo0,elo1,alpha,beta"),
    };
    if let Some(bad) = [elo0, elo1, alpha, beta].iter().find(|x| !x.is_finite()) {
        bail!("--sprt {text:?}: every value must be a finite number, got {bad}");
    }
    if let Some(bad) = [elo0, elo1].iter().find(|x| x.abs() > MAX_SPRT_ELO) {
        bail!("--sprt {text:?}: Elo values must be within ±{MAX_SPRT_ELO}, got {bad}");
    }
    let ok = elo0 < elo1 && alpha > 0.0 && alpha < 0.5 && beta > 0.0 && beta < 0.5;
    if !ok {
        bail!("--sprt {text:?}: need elo0 < elo1 and 0 < alpha, beta < 0.5");
    }
    Ok(Sprt {
        elo0,
        elo1,
        alpha,
        beta,
    })
}

fn progress_callback(total: usize) -> alphazero_arena::matches::GameCallback {
    let done = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    Arc::new(move |g: &GameRecord| {
        let k = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let fail = match &g.termination {
            alphazero_arena::Termination::Failure { side, message } => {
                format!("  ({side:?} failed: {message})")
            }
            _ => String::new(),
        };
        eprintln!(
            "game {k}/{total}: {} vs {}: {}{fail}",
            g.first_name, g.second_name, g.result
        );
    })
}

/// Lists (up to 10 of) the games lost by a player failure, if any.
fn print_failures(r: &MatchResult) {
    let failures: Vec<&GameRecord> = r
        .games
        .iter()
        .filter(|g| matches!(g.termination, alphazero_arena::Termination::Failure { .. }))
        .collect();
    if !failures.is_empty() {
        outln!(
            "\n{} lost by a player failure:",
            crate::cmd::count(failures.len(), "game")
        );
        for g in failures.iter().take(10) {
            if let alphazero_arena::Termination::Failure { side, message } = &g.termination {
                outln!(
                    "  game {}: {} vs {}: {side:?} failed: {message}",
                    g.index + 1,
                    g.first_name,
                    g.second_name
                );
            }
        }
    }
}

fn report(
    r: &MatchResult,
    anchor: usize,
    sprt: Option<(Sprt, SprtDecision, f64)>,
    out: Option<&Path>,
) -> Result<Ratings> {
    outln!("{} games of {}", r.games.len(), r.game);
    out!("{}", r.cross_table());
    let ratings = r.ratings(anchor).context("fitting ratings")?;
    if r.players.len() == 2 {
        // Two players: the pair's own estimate, by the ladder's rule (Wilson bounds when
        // every game had one result), not the fit's prior-held value. The first player over
        // the second, as the cross table's first row counts W-D-L and the SPRT tests it.
        let (first, second) = (0, 1);
        let (mut w, mut d, mut l) = (0u64, 0u64, 0u64);
        for p in r.pair_stats() {
            let (ow, ol) = if p.a == first {
                (p.wins, p.losses)
            } else {
                (p.losses, p.wins)
            };
            (w, d, l) = (w + u64::from(ow), d + u64::from(p.draws), l + u64::from(ol));
        }
        if let Some(e) = alphazero_arena::rating::elo_from_wdl(w, d, l) {
            outln!(
                "\nElo of {} over {} ({w}-{d}-{l}; 95% interval, an open bound after a sweep): {}",
                r.players[first],
                r.players[second],
                e.interval_text()
            );
        }
    } else {
        outln!(
            "\nBradley–Terry ratings (anchor {} = 0, 95% interval):",
            r.players[anchor]
        );
        out!("{}", ratings.to_table());
    }
    if let Some((s, d, llr)) = sprt {
        let (lo, hi) = s.bounds();
        let verdict = match d {
            SprtDecision::AcceptH0 => format!("H0 accepted (elo <= {})", s.elo0),
            SprtDecision::AcceptH1 => format!("H1 accepted (elo >= {})", s.elo1),
            SprtDecision::Continue if (r.games.len() as u64) < Sprt::MIN_GAMES => format!(
                "no decision: the SPRT decides only after {} games, {} played (raise --games)",
                Sprt::MIN_GAMES,
                r.games.len()
            ),
            SprtDecision::Continue => "no decision within --games".into(),
        };
        outln!(
            "SPRT [{}, {}]: LLR {llr:.3} (bounds {lo:.3}, {hi:.3}): {verdict}",
            s.elo0,
            s.elo1
        );
    }
    print_think_time(r);
    print_failures(r);
    if let Some(p) = out {
        let json = serde_json::json!({
            "match": r,
            "cross_table": r.pair_stats(),
            "ratings": ratings,
            "sprt": sprt.map(|(s, d, llr)| serde_json::json!({"test": s, "decision": d, "llr": llr})),
        });
        write_json(p, &json)?;
    }
    Ok(ratings)
}

/// The match-wide limits of the flags (`--sims`, `--movetime`).
fn match_limits(args: &ArenaArgs) -> Limits {
    Limits {
        simulations: args.sims,
        movetime: args.movetime.map(Duration::from_millis),
        depth: None,
    }
}

/// The players of `texts` (each with its own seed from `--seed`), names made unique, and
/// every external engine checked to answer one move under `limits` before any game.
fn build_entrants<G: ArenaGame>(
    texts: &[&String],
    cfg: &G::Config,
    args: &ArenaArgs,
    limits: &Limits,
) -> Result<Vec<Entrant<G>>> {
    let specs = texts
        .iter()
        .map(|t| t.parse::<PlayerSpec>())
        .collect::<Result<Vec<_>, _>>()?;
    let dev = device(&args.device)?;
    let mut entrants = specs
        .iter()
        .zip(texts)
        .enumerate()
        .map(|(i, (spec, text))| {
            let seed = mix_seed(args.seed, i as u64 + 1);
            build_entrant::<G>(spec, text, cfg, &dev, seed, NetSearch::of(args))
        })
        .collect::<Result<Vec<_>>>()?;
    unique_names(&mut entrants);
    for (spec, entrant) in specs.iter().zip(&entrants) {
        if spec.is_external() {
            preflight(entrant, &G::new(cfg), limits)?;
        }
    }
    Ok(entrants)
}

/// A match of `entrants` under the flags (openings, ply cap, threads, seed) with one
/// progress line per game of its `pairs` pairings.
fn match_config<G: Game>(
    entrants: Vec<Entrant<G>>,
    cfg: &G::Config,
    args: &ArenaArgs,
    openings: &Openings<G>,
    limits: Limits,
    pairs: usize,
) -> MatchConfig<G> {
    let mut config = MatchConfig::new(entrants, G::new(cfg));
    config.openings_per_pair = args.games.div_ceil(2);
    config.opening_plies = openings.plies;
    config.book = openings.book.clone();
    config.limits = limits;
    config.max_plies = args.max_plies;
    config.threads = args.threads as usize;
    config.seed = args.seed;
    config.on_game = Some(progress_callback(
        pairs * 2 * config.openings_per_pair as usize,
    ));
    config
}

fn run_players<G: ArenaGame>(cfg: &G::Config, args: &ArenaArgs) -> Result<()> {
    if args.players.len() < 2 {
        bail!(
            "--players needs at least 2 players, got {}",
            args.players.len()
        );
    }
    let openings = parse_openings::<G>(&args.openings, cfg, args.games)?;
    if openings.plies == 0 && openings.book.is_none() && args.games > 2 {
        let specs = args
            .players
            .iter()
            .map(|p| p.parse::<PlayerSpec>())
            .collect::<Result<Vec<_>, _>>()?;
        if specs
            .iter()
            .all(|s| matches!(s.kind, PlayerKind::Net { .. } | PlayerKind::Uniform(_)))
        {
            eprintln!(
                "warning: --openings none with only network / uniform players: their search has \
                 no randomness, so each pair plays the same two games over and over (use \
                 --openings random-K for different games)"
            );
        }
    }
    let sprt = args.sprt.as_deref().map(parse_sprt).transpose()?;
    if sprt.is_some() && args.players.len() != 2 {
        bail!("--sprt needs exactly 2 players, got {}", args.players.len());
    }
    let limits = match_limits(args);
    let texts: Vec<&String> = args.players.iter().collect();
    let entrants = build_entrants::<G>(&texts, cfg, args, &limits)?;
    let anchor = match &args.anchor {
        None => 0,
        Some(a) => entrants
            .iter()
            .position(|e| e.name == *a)
            .or_else(|| args.players.iter().position(|p| p.trim() == a.trim()))
            .with_context(|| {
                let names: Vec<&str> = entrants.iter().map(|e| e.name.as_str()).collect();
                format!("--anchor {a:?} is none of the players {names:?}")
            })?,
    };
    let n = entrants.len();
    let pairing = if args.gauntlet {
        Pairing::Gauntlet { challenger: 0 }
    } else {
        Pairing::RoundRobin
    };
    let pairs = if args.gauntlet {
        n - 1
    } else {
        n * (n - 1) / 2
    };
    let mut config = match_config(entrants, cfg, args, &openings, limits, pairs);
    config.pairing = pairing;
    let (r, tested) = run_match_sprt(&config, sprt.as_ref(), |_| {})?;
    report(
        &r,
        anchor,
        sprt.zip(tested).map(|(s, m)| (s, m.decision, m.llr)),
        args.out.as_deref(),
    )?;
    write_games::<G>(&r, cfg, args)?;
    Ok(())
}

/// A network of a training run, for the snapshot ladder.
struct RunNetwork {
    path: PathBuf,
    /// Iterations of training behind it (0 = the initial network).
    iteration: u32,
    /// A champion (promoted network) rather than a snapshot.
    champion: bool,
}

/// The champions and snapshots of `run` in training order (by the iterations behind them,
/// then by name). Networks the committed run state does not know of (a champion id above
/// its champion, a snapshot after its iterations: left by an iteration that never
/// committed) are left out with a note. Without a run state, champion `k` counts as
/// iteration `k`.
fn run_networks(run: &Path) -> Result<Vec<RunNetwork>> {
    use alphazero_train::run_dir::{Network, RunDir};
    use alphazero_train::state::RunState;
    let state_path = run.join(RunState::KEY);
    let state: Option<RunState> = match std::fs::read(&state_path) {
        Ok(bytes) => Some(
            serde_json::from_slice(&bytes)
                .with_context(|| format!("reading the run state {}", state_path.display()))?,
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!(
                "note: {} has no run state; champion k is taken as iteration k",
                run.display()
            );
            None
        }
        Err(e) => return Err(e).with_context(|| format!("reading {}", state_path.display())),
    };
    let mut nets = Vec::new();
    let listed =
        RunDir::local_networks(run).with_context(|| format!("reading {}", run.display()))?;
    for (key, network) in listed {
        let (champion, number) = match network {
            Network::Champion(id) => (true, id),
            Network::Snapshot(iterations) => (false, iterations),
        };
        let iteration = match (&state, champion) {
            (Some(s), true) if number > s.champion_id => None,
            (Some(s), true) => s
                .champions
                .iter()
                .find(|c| c.id == number)
                .map(|c| c.iteration),
            (Some(s), false) if number > s.iteration => None,
            _ => Some(number),
        };
        match iteration {
            Some(iteration) => nets.push(RunNetwork {
                path: run.join(&key),
                iteration,
                champion,
            }),
            None => eprintln!(
                "note: {key} is not in the run's committed state (an iteration that did not \
                 finish); left out (train sets it aside on resume)"
            ),
        }
    }
    nets.sort_by_key(|n| (n.iteration, !n.champion));
    dedupe_networks(nets)
}

/// `nets` (in training order) without a snapshot whose weights equal those of a champion of
/// the same iteration: a network promoted at an iteration and that iteration's snapshot are
/// one network in two files, and rated twice they split its games and its rating. Each one
/// left out is named with the champion it equals.
fn dedupe_networks(nets: Vec<RunNetwork>) -> Result<Vec<RunNetwork>> {
    let weights = |n: &RunNetwork| -> Result<Vec<u8>> {
        let bytes =
            std::fs::read(&n.path).with_context(|| format!("reading {}", n.path.display()))?;
        Ok(alphazero_nn::canonical_weights(&n.path, &bytes)?)
    };
    let mut kept: Vec<RunNetwork> = Vec::with_capacity(nets.len());
    for net in nets {
        let twin = match kept.last() {
            Some(c) if !net.champion && c.champion && c.iteration == net.iteration => {
                (weights(c)? == weights(&net)?).then_some(c)
            }
            _ => None,
        };
        match twin {
            Some(c) => eprintln!(
                "note: {} has the weights of {}; rated once, as the champion",
                net.path.display(),
                c.path.display()
            ),
            None => kept.push(net),
        }
    }
    Ok(kept)
}

/// The plot `key` (e.g. `plots/ladder.png`) of the run folder `run`, its `plots/` folder made
/// and the file checked to be writable, so that a ladder stops before its first game, not
/// after its last, when it could not write the plot.
fn run_plot_path(run: &Path, key: &str) -> Result<PathBuf> {
    let png = run.join(key);
    if let Some(plots) = png.parent() {
        // The run's plots/ folder, beside its training figures; when it cannot be made, the
        // check below says why.
        let _ = std::fs::create_dir_all(plots);
    }
    check_output_path(&format!("--snapshots ({key})"), &png)?;
    Ok(png)
}

/// The networks of `run` a ladder plays ([`run_networks`]), every `--snapshot-every`-th and
/// the last, with a note naming how many of them that is.
fn ladder_networks(run: &Path, args: &ArenaArgs) -> Result<Vec<RunNetwork>> {
    let nets = run_networks(run)?;
    if nets.is_empty() {
        bail!(
            "no networks (champion-*.azc, snapshot-*.azc) in {}",
            run.join(alphazero_train::RunDir::NETWORKS).display()
        );
    }
    let total = nets.len();
    let picked = alphazero_arena::ladder::every_nth(total, args.every() as usize);
    if picked.len() < total {
        eprintln!(
            "note: --snapshot-every {}: {} of the run's {total} networks (one in {} and the \
             last)",
            args.every(),
            picked.len(),
            args.every()
        );
    }
    let mut nets: Vec<Option<RunNetwork>> = nets.into_iter().map(Some).collect();
    Ok(picked.into_iter().filter_map(|i| nets[i].take()).collect())
}

/// The `net:` players of `nets` at `--sims` simulations (default 100), each with a seed of
/// its own from `--seed`.
fn network_entrants<G: ArenaGame>(
    nets: &[RunNetwork],
    cfg: &G::Config,
    args: &ArenaArgs,
) -> Result<Vec<Entrant<G>>> {
    let dev = device(&args.device)?;
    let sims = args.sims.unwrap_or(100);
    nets.iter()
        .enumerate()
        .map(|(i, net)| {
            net_entrant::<G>(
                &net.path,
                Some(sims),
                cfg,
                &dev,
                mix_seed(args.seed, i as u64 + 1),
                NetSearch::of(args),
            )
        })
        .collect()
}

/// The run's metrics (for the training behind each network), or none with a note saying
/// what `plot` is drawn without.
fn run_metrics(run: &Path, plot: &str) -> Vec<alphazero_train::metrics::IterationMetrics> {
    match alphazero_train::metrics::read_metrics(&run.join(alphazero_train::RunDir::METRICS)) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("note: {plot} without games and time beneath the iterations: {e}");
            Vec::new()
        }
    }
}

fn run_snapshot_ladder<G: ArenaGame>(cfg: &G::Config, run: &Path, args: &ArenaArgs) -> Result<()> {
    // Everything the ladder writes is checked before the first game.
    let png = run_plot_path(run, alphazero_train::RunDir::LADDER)?;
    let nets = ladder_networks(run, args)?;
    let seed = args.seed;
    let mut entrants: Vec<Entrant<G>> = vec![Entrant::new("random", move || {
        Box::new(RandomPlayer::new(seed)) as Box<dyn Player<G>>
    })];
    entrants.extend(network_entrants::<G>(&nets, cfg, args)?);
    let n = entrants.len();
    let pairs = alphazero_arena::ladder::snapshot_pairs(
        n,
        args.neighbours() as usize,
        args.anchors() as usize,
        seed,
    );
    let openings = args.games.div_ceil(2);
    // The networks' own --sims; no match-wide simulation limit.
    let limits = Limits {
        simulations: None,
        ..match_limits(args)
    };
    let opening_set = parse_openings::<G>(&args.openings, cfg, args.games)?;
    let config = match_config(entrants, cfg, args, &opening_set, limits, pairs.len());
    // The plan only: the header of the results (the networks, the run, the pairs) is the
    // first line on stdout, printed once when the games are done.
    eprintln!(
        "playing {} pairs of {} games (each network against its {} next and some of {} \
         anchors; a round robin would be {} pairs)",
        pairs.len(),
        2 * openings,
        args.neighbours(),
        args.anchors(),
        n * (n - 1) / 2
    );
    let r = alphazero_arena::ladder::run_pairs(&config, &pairs)?;
    let ratings = r.ratings(0).context("fitting ratings")?;
    outln!(
        "{} games of {}: {} networks of {} and random, {} pairs",
        r.games.len(),
        r.game,
        nets.len(),
        run.display(),
        pairs.len()
    );
    outln!("\nBradley–Terry ratings (anchor random = 0, 95% interval):");
    out!("{}", ratings.to_table());
    print_failures(&r);
    if let Some(p) = &args.out {
        let json = serde_json::json!({
            "match": r,
            "pairs": pairs,
            "ratings": ratings,
        });
        write_json(p, &json)?;
    }
    write_games::<G>(&r, cfg, args)?;

    let metrics = run_metrics(run, "ladder.png");
    let points: Vec<ladder_png::LadderPoint> = nets
        .iter()
        .zip(&ratings.players[1..])
        .map(|(net, p)| ladder_png::LadderPoint {
            iteration: f64::from(net.iteration),
            elo: p.elo,
            lo: p.lo,
            hi: p.hi,
            champion: net.champion,
        })
        .collect();
    let title = format!(
        "Rating ladder of {}: {} networks, {} games",
        run.display(),
        nets.len(),
        r.games.len()
    );
    let plot = ladder_png::render_ladder(&title, "random", &points, &metrics)?;
    alphazero_engine::files::write_atomic(&png, &plot.png)?;
    outln!("\nplots/ladder.png: x = iterations of training behind each network, y = Elo ± 95%");
    for (net, p) in nets.iter().zip(&ratings.players[1..]) {
        outln!(
            "  iteration {}{}: {} {:+.1} [{:+.1}, {:+.1}]",
            net.iteration,
            training_behind(&metrics, net.iteration),
            p.name,
            p.elo,
            p.lo,
            p.hi
        );
    }
    eprintln!("ladder plot written to {}", png.display());
    Ok(())
}

/// ` (G games, H CPU-hours)`: the self-play games and the trainer's CPU time behind the
/// network of `iterations` iterations, from the run's metrics
/// ([`IterationMetrics::network_iterations`](alphazero_train::metrics::IterationMetrics::network_iterations)),
/// for an Elo-against-CPU-hours reading of the ladder; the CPU-hours are left
/// out for metrics written before they were logged, and everything where the run has no
/// metrics or they do not cover the iteration.
fn training_behind(
    metrics: &[alphazero_train::metrics::IterationMetrics],
    iterations: u32,
) -> String {
    if iterations == 0 && !metrics.is_empty() {
        return " (0 games)".into();
    }
    match behind(metrics, iterations) {
        Some((games, Some(h))) => format!(" ({games} games, {h:.2} CPU-hours)"),
        Some((games, None)) => format!(" ({games} games)"),
        None => String::new(),
    }
}

/// The self-play games and the trainer's CPU-hours behind the network of `iterations`
/// iterations, from the run's metrics row of its last iteration
/// ([`IterationMetrics::network_iterations`](alphazero_train::metrics::IterationMetrics::network_iterations)):
/// none where the metrics do not cover it (or the run has none), no CPU-hours in metrics
/// written before they were logged; the initial network has 0 of both.
fn behind(
    metrics: &[alphazero_train::metrics::IterationMetrics],
    iterations: u32,
) -> Option<(u64, Option<f64>)> {
    if metrics.is_empty() {
        return None;
    }
    if iterations == 0 {
        return Some((0, Some(0.0)));
    }
    let m = metrics
        .iter()
        .find(|m| m.network_iterations() == iterations)?;
    Some((m.total_games, (m.cpu_s > 0.0).then(|| m.cpu_s / 3600.0)))
}

/// `--snapshots RUN --ladder RUNG…`: every network of the run that `--snapshot-every`
/// selects against each rung, `--games` games a pair from the same openings (`--seed`) with
/// colours alternating, the pairs of [`alphazero_arena::ladder::rung_pairs`] played by the
/// snapshot ladder's [`alphazero_arena::ladder::run_pairs`]; then one table row per network
/// (its iteration, the self-play games and CPU-hours behind it, W-D-L and Elo ± 95% per rung),
/// `plots/rungs.png` in the run folder and the `--ladder-out` / `--out` files.
fn run_snapshot_rungs<G: ArenaGame>(cfg: &G::Config, run: &Path, args: &ArenaArgs) -> Result<()> {
    use alphazero_arena::ladder::{run_pairs, rung_pairs};
    let png = run_plot_path(run, alphazero_train::RunDir::RUNGS)?;
    let nets = ladder_networks(run, args)?;
    // The networks' own --sims and no match-wide simulation limit, as in the snapshot ladder:
    // a rung plays under its own settings (`{depth=1}`), not as a 200-node engine.
    let limits = Limits {
        simulations: None,
        ..match_limits(args)
    };
    let rung_texts: Vec<&String> = args.ladder.iter().collect();
    // Rungs first: an external engine that cannot play stops the command before any network
    // is loaded.
    let rungs = build_entrants::<G>(&rung_texts, cfg, args, &limits)?;
    let mut entrants = network_entrants::<G>(&nets, cfg, args)?;
    let (k, r) = (entrants.len(), rungs.len());
    entrants.extend(rungs);
    unique_names(&mut entrants);
    let pairs = rung_pairs(k, r);
    let opening_set = parse_openings::<G>(&args.openings, cfg, args.games)?;
    let openings = args.games.div_ceil(2);
    let config = match_config(entrants, cfg, args, &opening_set, limits, pairs.len());
    eprintln!(
        "playing {} networks against {} ({} games)",
        k,
        crate::cmd::count(r, "rung"),
        pairs.len() as u64 * 2 * u64::from(openings)
    );
    let all = run_pairs(&config, &pairs)?;
    let metrics = run_metrics(run, "rungs.png");
    let rows: Vec<alphazero_arena::NetworkRungs> = nets
        .iter()
        .enumerate()
        .map(|(i, net)| {
            let (games, cpu) = behind(&metrics, net.iteration).unzip();
            alphazero_arena::NetworkRungs::from_match(
                &all,
                i,
                k..k + r,
                net.iteration,
                games,
                cpu.flatten(),
            )
        })
        .collect();
    outln!(
        "{} games of {}: {} networks of {} against {}, {} games each from {} {}, colours \
         alternating",
        all.games.len(),
        all.game,
        k,
        run.display(),
        crate::cmd::count(r, "rung"),
        2 * openings,
        crate::cmd::count(openings as usize, "opening"),
        opening_set.words,
    );
    out!("{}", alphazero_arena::rungs_table(&rows));
    print_think_time(&all);
    print_failures(&all);
    if let Some(p) = &args.out {
        let json = serde_json::json!({ "match": all, "rungs": rows });
        write_json(p, &json)?;
    }
    write_games::<G>(&all, cfg, args)?;
    if let Some(p) = &args.ladder_out {
        let mut notes = format!(
            "{} games per network and rung ({} {}, each played with both colours), networks \
             at {} simulations, seed {}, ply cap {}",
            2 * openings,
            crate::cmd::count(openings as usize, "opening"),
            opening_set.words,
            args.sims.unwrap_or(100),
            args.seed,
            args.max_plies
        );
        if let Some(t) = args.movetime {
            notes.push_str(&format!(", --movetime {t} ms"));
        }
        notes.push_str(&format!(
            ".\n\nCommand: `{}`",
            shell_words::join(std::env::args())
        ));
        let md =
            alphazero_arena::rungs_markdown(&run.display().to_string(), &all.game, &rows, &notes);
        std::fs::write(p, md).with_context(|| format!("writing {}", p.display()))?;
        eprintln!("ladder written to {}", p.display());
    }
    let title = format!(
        "Networks of {} against fixed rungs: {} networks, {} games",
        run.display(),
        k,
        all.games.len()
    );
    let plot = ladder_png::render_rungs(&title, &rows, &metrics)?;
    alphazero_engine::files::write_atomic(&png, &plot.png)?;
    let x = if rows.iter().all(|r| r.cpu_hours.is_some()) {
        "the trainer's CPU-hours"
    } else {
        // render_rungs falls back to iterations when one network's CPU time is unknown.
        "iterations of training (CPU-hours unknown)"
    };
    outln!("\nplots/rungs.png: x = {x} behind each network, y = Elo over each rung ± 95%");
    eprintln!("rungs plot written to {}", png.display());
    Ok(())
}

/// `--ladder`: the challenger (the one `--players` entry) against each rung in turn, one
/// gauntlet [`run_match`] per rung from the same openings (`--seed`), then the ladder table.
fn run_engine_ladder<G: ArenaGame>(cfg: &G::Config, args: &ArenaArgs) -> Result<()> {
    if args.players.len() != 1 {
        bail!(
            "--ladder needs exactly one --players entry (the challenger), got {}",
            args.players.len()
        );
    }
    let opening_set = parse_openings::<G>(&args.openings, cfg, args.games)?;
    let texts: Vec<&String> = args.players.iter().chain(&args.ladder).collect();
    // Every external engine answers one move before any game: a bad rung stops the ladder
    // now, not after the rungs before it were played.
    let entrants = build_entrants::<G>(&texts, cfg, args, &match_limits(args))?;
    let openings = args.games.div_ceil(2);
    let rungs = entrants.len() - 1;
    let challenger = entrants[0].name.clone();
    let config = match_config(entrants, cfg, args, &opening_set, match_limits(args), rungs);
    let (all, rows) = run_ladder(&config, |k, row| {
        eprintln!(
            "rung {k}/{rungs} {}: {}-{}-{}",
            row.rung, row.wins, row.draws, row.losses
        );
    })?;
    outln!(
        "{} games of {}: {} against {}, {} games each from {} {}, colours alternating",
        all.games.len(),
        all.game,
        challenger,
        crate::cmd::count(rungs, "rung"),
        2 * openings,
        crate::cmd::count(openings as usize, "opening"),
        opening_set.words,
    );
    out!("{}", ladder_table(&challenger, &rows));
    print_think_time(&all);
    print_failures(&all);
    if let Some(p) = &args.out {
        let json = serde_json::json!({ "match": all, "ladder": rows });
        write_json(p, &json)?;
    }
    write_games::<G>(&all, cfg, args)?;
    if let Some(p) = &args.ladder_out {
        let mut notes = format!(
            "{} games per rung ({} {}, each played with both colours), seed {}, ply cap {}",
            2 * openings,
            crate::cmd::count(openings as usize, "opening"),
            opening_set.words,
            args.seed,
            args.max_plies
        );
        if let Some(s) = args.sims {
            notes.push_str(&format!(", --sims {s}"));
        }
        if let Some(t) = args.movetime {
            notes.push_str(&format!(", --movetime {t} ms"));
        }
        notes.push_str(&format!(
            ".\n\nCommand: `{}`",
            shell_words::join(std::env::args())
        ));
        let md = ladder_markdown(&challenger, &all.game, &rows, &notes);
        std::fs::write(p, md).with_context(|| format!("writing {}", p.display()))?;
        eprintln!("ladder written to {}", p.display());
    }
    Ok(())
}

/// Writes the games of a match to the files of `--pgn`, `--sgf` and `--psq` (atomically),
/// with `[Event "alphazero arena"]` and today's date.
fn write_games<G: ArenaGame>(r: &MatchResult, cfg: &G::Config, args: &ArenaArgs) -> Result<()> {
    if args.pgn.is_none() && args.sgf.is_none() && args.psq.is_none() {
        return Ok(());
    }
    let tags = [
        ("Event", "alphazero arena".to_string()),
        ("Date", alphazero_formats::pgn_date_today()),
    ];
    let records = r
        .to_records(&G::new(cfg), &tags)
        .context("replaying the match's games for the record files")?;
    let notation: MoveNotation = args.notation.parse().context("--notation")?;
    let outputs = [
        (&args.pgn, Format::Pgn),
        (&args.sgf, Format::Sgf),
        (&args.psq, Format::Psq),
    ];
    for (path, format) in outputs {
        if let Some(p) = path {
            let msg = if format == Format::Psq && records.len() == 1 {
                // One game still goes into the folder.
                std::fs::create_dir_all(p)
                    .with_context(|| format!("creating the folder {}", p.display()))?;
                super::records::save_records(&p.join("game-0001.psq"), &records, format, notation)?
            } else {
                super::records::save_records(p, &records, format, notation)?
            };
            eprintln!("{msg}");
        }
    }
    Ok(())
}

/// `time a move: NAME M ms (N moves), …`: each player's mean wall-clock time a move over
/// the match (as the arena measured it, answering included); nothing for a batched match,
/// whose players share each evaluator call.
fn print_think_time(r: &MatchResult) {
    let parts: Vec<String> = r
        .think_time()
        .iter()
        .zip(&r.players)
        .filter_map(|(t, name)| {
            t.mean_ms().map(|ms| {
                format!(
                    "{name} {ms:.0} ms ({})",
                    crate::cmd::count(t.moves as usize, "move")
                )
            })
        })
        .collect();
    if !parts.is_empty() {
        outln!("time a move: {}", parts.join(", "));
    }
}

/// Writes the `--out` JSON file.
fn write_json(p: &Path, json: &serde_json::Value) -> Result<()> {
    let text = serde_json::to_string_pretty(json).context("encoding results")?;
    std::fs::write(p, text).with_context(|| format!("writing {}", p.display()))?;
    eprintln!("results written to {}", p.display());
    Ok(())
}

/// Runs `alphazero arena` for the game of `--game`: a match of `--players` (round robin,
/// gauntlet or SPRT), the `--ladder` of one challenger against rungs, the `--snapshots`
/// ladder of a training run, or (both flags) the run's networks against the rungs; the report on stdout, progress on stderr, and the `--out`,
/// `--pgn`, `--sgf`, `--psq` and `--ladder-out` files.
///
/// # Errors
/// A bad game or option (named by its flag), an output path that cannot be written (checked before
/// any game), a player that cannot be built or does not answer its first move, a failed
/// match, or a file that cannot be written.
pub fn run(args: &ArenaArgs) -> Result<()> {
    let spec = &args.game.spec()?;
    // Output files that cannot be written are refused before the match, not after it; so is
    // one file given for two outputs (the second written would replace the first).
    let outputs = [
        ("--out", &args.out),
        ("--pgn", &args.pgn),
        ("--sgf", &args.sgf),
        ("--ladder-out", &args.ladder_out),
    ];
    for (i, (flag, path)) in outputs.iter().enumerate() {
        let Some(path) = path else { continue };
        if let Some((other, _)) = outputs[..i].iter().find(|(_, p)| p.as_ref() == Some(path)) {
            bail!(
                "{other} and {flag} name one file, {}: give each output its own",
                path.display()
            );
        }
    }
    if let Some(p) = &args.out {
        check_output_path("--out", p)?;
    }
    if let Some(p) = &args.pgn {
        check_output_path("--pgn", p)?;
    }
    super::records::parse_notation(&args.notation, spec, args.pgn.is_some())?;
    if let Some(p) = &args.sgf {
        check_output_path("--sgf", p)?;
    }
    if (args.sgf.is_some() || args.psq.is_some()) && !matches!(spec, GameSpec::Gomoku { .. }) {
        bail!(
            "--sgf and --psq write Gomoku games; use --pgn for {}",
            spec.name()
        );
    }
    if let Some(d) = &args.psq {
        if d.exists() && !d.is_dir() {
            bail!("--psq {}: is not a folder", d.display());
        }
    }
    if let Some(p) = &args.ladder_out {
        check_output_path("--ladder-out", p)?;
    }
    if args.snapshots.is_none() {
        let given = [
            ("--snapshot-neighbours", args.snapshot_neighbours),
            ("--snapshot-anchors", args.snapshot_anchors),
            ("--snapshot-every", args.snapshot_every),
        ];
        if let Some((flag, _)) = given.iter().find(|(_, v)| v.is_some()) {
            bail!("{flag} selects the networks of a run: it needs --snapshots RUN_DIR");
        }
    }
    match (&args.snapshots, args.ladder.is_empty()) {
        (Some(run_dir), false) => {
            return with_game!(spec, G, cfg => run_snapshot_rungs::<G>(cfg, run_dir, args));
        }
        (None, false) => return with_game!(spec, G, cfg => run_engine_ladder::<G>(cfg, args)),
        _ => {}
    }
    match &args.snapshots {
        Some(run_dir) => with_game!(spec, G, cfg => run_snapshot_ladder::<G>(cfg, run_dir, args)),
        None => with_game!(spec, G, cfg => run_players::<G>(cfg, args)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The arena's `net:` players without search flags search a game with its registry play
    /// search (their budget is their own), as `play`, `analyze` and the protocol engines do
    /// (checked in `alphazero_engine`).
    #[test]
    fn net_players_without_search_flags_use_the_registry_play_search() {
        for spec in GameSpec::DEFAULTS {
            let config = with_game!(&spec, G, _cfg => NetSearch::default().config::<G>());
            assert_eq!(config, spec.play_search(), "{spec}");
        }
    }

    /// A network of `k` iterations is labelled with metrics row `k - 1` (the games of
    /// iterations 0..k), not row `k`, which trained the next network.
    #[test]
    fn snapshot_ladder_labels_a_network_with_the_training_behind_it() {
        use alphazero_train::metrics::IterationMetrics;
        let metrics: Vec<IterationMetrics> = (0..3u32)
            .map(|i| IterationMetrics {
                iteration: i,
                total_games: 48 * u64::from(i + 1),
                cpu_s: 90.0 * f64::from(i + 1),
                ..IterationMetrics::default()
            })
            .collect();
        assert_eq!(training_behind(&metrics, 0), " (0 games)");
        assert_eq!(training_behind(&metrics, 1), " (48 games, 0.03 CPU-hours)");
        assert_eq!(training_behind(&metrics, 3), " (144 games, 0.07 CPU-hours)");
        assert_eq!(training_behind(&metrics, 4), "");
        let old: Vec<IterationMetrics> = metrics
            .into_iter()
            .map(|m| IterationMetrics { cpu_s: 0.0, ..m })
            .collect();
        assert_eq!(training_behind(&old, 2), " (96 games)");
        // A folder of networks without metrics: nothing is known of their training.
        assert_eq!(training_behind(&[], 0), "");
    }

    fn options(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_net_players_options_override_the_play_search_and_the_match_flags() {
        let flags = NetSearch {
            c_puct: Some(3.0),
            ..NetSearch::default()
        };
        let own = flags
            .with_options(
                "net:f",
                &options(&[
                    ("Policy-Temperature", "1.5"),
                    ("fpu_reduction", "0.1"),
                    ("leaves_per_batch", "4"),
                ]),
            )
            .unwrap();
        let play = alphazero_gomoku::Gomoku::play_search();
        let c = own.config::<alphazero_gomoku::Gomoku>();
        assert_eq!(c.policy_temperature, 1.5);
        assert_eq!(c.fpu_reduction, 0.1);
        assert_eq!(c.leaves_per_batch, 4);
        assert_eq!(c.c_puct, CPuct::Constant(3.0), "the match's flag stays");
        assert_eq!(c.tactical_budget, play.tactical_budget);
        let c = own
            .with_options("net:f", &options(&[("c_puct", "0.5")]))
            .unwrap()
            .config::<alphazero_gomoku::Gomoku>();
        assert_eq!(c.c_puct, CPuct::Constant(0.5), "the player's own wins");
    }

    #[test]
    fn bad_net_player_options_are_refused_with_the_known_names() {
        for (item, needle) in [
            (("temperature", "2"), "unknown option"),
            (("policy_temperature", "hot"), "expected a number"),
            (("policy_temperature", "NaN"), "expected a number"),
            (("c_puct", "-1"), "expected a number in (0, 100]"),
            (("leaves_per_batch", "0"), "1-256"),
        ] {
            let e = NetSearch::default()
                .with_options("net:f{…}", &options(&[item]))
                .unwrap_err()
                .to_string();
            assert!(e.contains(needle), "{item:?}: {e}");
            assert!(e.contains("net:f{…}"), "{item:?}: {e}");
        }
        // The option's range is the search's own: what the option takes, the search takes.
        for (knob, value, taken) in [
            ("policy_temperature", "0.05", false),
            ("policy_temperature", "10", true),
            ("leaves_per_batch", "256", true),
            ("leaves_per_batch", "257", false),
            ("c_puct", "100", true),
            ("fpu_reduction", "-0.1", false),
        ] {
            let parsed = NetSearch::default().with_options("net:f", &options(&[(knob, value)]));
            assert_eq!(parsed.is_ok(), taken, "{knob}={value}");
            if let Ok(n) = parsed {
                let c = n.config::<alphazero_gomoku::Gomoku>();
                assert_eq!(c.validate(), Ok(()), "{knob}={value}");
            }
        }
    }
}
