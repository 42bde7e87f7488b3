//! The flags of `alphazero arena` ([`ArenaArgs`]) and their parsers; the work that takes them
//! is the parent module.
use crate::games::GameArgs;
use alphazero_mcts::knobs;
use std::path::PathBuf;

/// Arguments of `alphazero arena`.
#[derive(clap::Args, Debug)]
pub struct ArenaArgs {
    #[command(flatten)]
    pub(super) game: GameArgs,
    /// Players: `random`, `rollout:N`, `uniform:N`, `net:FILE[:SIMS]` (FILE: a network,
    /// or a training run's folder for its champion), `heuristic:L` (gomoku,
    /// L = 0–2), `alphabeta:D` (xiangqi), `gomocup:CMD` (gomoku), `ucci:CMD` / `uci:CMD`
    /// (xiangqi). CMD is an external engine's command line (quote it; words split as a shell
    /// would, with '…' and "…" quoting). A spec may end in settings `{KEY=VALUE,…}`:
    /// `depth=D`, `nodes=N` (ucci/uci: `go depth D` / `go nodes N`; depth also alphabeta),
    /// `option=NAME=VALUE` (ucci/uci setoption, repeatable), `info=PAYLOAD` (gomocup: an
    /// `INFO` line after every START, e.g. `info=MAX_DEPTH 2`, repeatable), `movetime=MS` and
    /// `name=LABEL` (any player).
    #[arg(long, num_args = 1.., value_name = "SPEC")]
    pub(super) players: Vec<String>,
    /// Games per pair of players (each opening is played with both colours, so odd numbers
    /// are rounded up).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub(super) games: u32,
    /// Openings: `random-K` (K random plies), `none`, or an opening file (Gomoku: Gomocup's
    /// offset format as c-gomoku-cli reads it, one opening a line, e.g. `0,0, 1,-1, 2,1`,
    /// `#` comments allowed), its openings played in file order and again from the first
    /// when --games wants more. Each opening is played with both colours, one after the other.
    #[arg(long, default_value = "random-4")]
    pub(super) openings: String,
    /// Worker threads (games played at once).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub(super) threads: u64,
    /// Simulations per move for search players without their own count (`net:FILE`), and the
    /// node limit given to external engines.
    #[arg(long, value_parser = |s: &str| knobs::SIMULATIONS.parse(s))]
    pub(super) sims: Option<u32>,
    /// Exploration constant c_puct of the network players' PUCT search (a constant; default:
    /// the game's play search, AlphaZero's slowly growing c(N) with c_init 1.25, c_base 19652).
    #[arg(long, value_parser = |s: &str| knobs::C_PUCT.parse(s))]
    pub(super) c_puct: Option<f32>,
    /// Leaves the network players' search collects (with virtual loss) per network call: 1
    /// is the sequential search of the paper; more is faster per simulation but searches
    /// a little wider (default: the game's play search, 8).
    #[arg(long, value_parser = |s: &str| knobs::LEAVES_PER_BATCH.parse(s))]
    pub(super) leaves_per_batch: Option<u32>,
    /// Gumbel root search for the network players (Danihelka et al. 2022): M root actions
    /// sampled by Gumbel-top-k, the simulations shared out by sequential halving, instead of
    /// PUCT at the root (16 is the paper's M; needs a simulation count, not only --movetime).
    #[arg(long, value_name = "M", value_parser = |s: &str| knobs::GUMBEL_SAMPLED_ACTIONS.parse(s))]
    pub(super) gumbel: Option<u32>,
    /// Time per move in milliseconds (search players stop early, external engines get it).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub(super) movetime: Option<u64>,
    /// The first player against each of the others instead of a round robin.
    #[arg(long)]
    pub(super) gauntlet: bool,
    /// Name of the player whose rating is fixed at 0 (default: the first).
    #[arg(long)]
    pub(super) anchor: Option<String>,
    /// Two-player match stopped early by an SPRT: `elo0,elo1[,alpha,beta]` (H0: the first player
    /// is `elo0` Elo better than the second, H1: `elo1`; α = β = 0.05 by default). Elo values
    /// finite and within ±1000. `--games` is the maximum; no decision is taken before 16 games
    /// (`Sprt::MIN_GAMES`). Write negative values as `--sprt=-10,10`.
    #[arg(long)]
    pub(super) sprt: Option<String>,
    /// Ply cap per game (reaching it is a draw).
    #[arg(long, default_value_t = 1000)]
    pub(super) max_plies: u32,
    /// Seed of the openings and the players.
    #[arg(long, default_value_t = 0)]
    pub(super) seed: u64,
    /// Write the games, cross table and ratings as JSON here.
    #[arg(long)]
    pub(super) out: Option<PathBuf>,
    /// Write every game as PGN here: the moves from the start position (the random opening
    /// too, ended by a comment), the players, result, round and termination; Gomoku with
    /// [Size] and [Rule], Xiangqi in the XQBase dialect ([Game "Chinese Chess"], moves in
    /// --notation).
    #[arg(long)]
    pub(super) pgn: Option<PathBuf>,
    /// Xiangqi moves in the --pgn file: iccs (H2-E2) or wxf (C2=5).
    #[arg(long, default_value = "iccs")]
    pub(super) notation: String,
    /// Gomoku: write every game as SGF (GM[4]) here, one collection.
    #[arg(long, value_name = "FILE.sgf")]
    pub(super) sgf: Option<PathBuf>,
    /// Gomoku: write every game as a Piskvork PSQ file into this folder (game-0001.psq, …;
    /// created when missing).
    #[arg(long, value_name = "DIR")]
    pub(super) psq: Option<PathBuf>,
    /// Rating ladder over a training run's networks (its champions and snapshots that the
    /// run's state knows, in training order) plus `random` as anchor 0: each network plays
    /// its next --snapshot-neighbours networks and a few of --snapshot-anchors anchors spread
    /// over the run (games grow linearly with the networks, not quadratically); prints every
    /// network's Elo ± 95% and writes `plots/ladder.png` into the run directory. Players are not
    /// given then; --sims is the networks' simulations (default 100), --games per pair.
    /// With --ladder: each network against the fixed rungs instead (Elo against outside
    /// opponents over training; `plots/rungs.png`).
    #[arg(long, value_name = "RUN_DIR", conflicts_with_all = ["players", "gauntlet", "sprt"])]
    pub(super) snapshots: Option<PathBuf>,
    // The --snapshot-* flags have no clap default, so that `run` sees whether they were given:
    // clap waives their `requires = "snapshots"` when --players is there (--snapshots
    // conflicts with it), and `--players … --snapshot-every 2` was taken silently. Their
    // defaults are the methods below.
    /// --snapshots: how many of the following networks each network plays (default 2).
    #[arg(long, requires = "snapshots", conflicts_with = "ladder", value_parser = clap::value_parser!(u32).range(0..=64))]
    pub(super) snapshot_neighbours: Option<u32>,
    /// --snapshots: anchor networks spread evenly over the run (random and the last network
    /// among them), played in a round robin and each by the networks around it and one more
    /// network drawn with --seed; at least this many as the networks means a round robin
    /// (default 8).
    #[arg(long, requires = "snapshots", conflicts_with = "ladder", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub(super) snapshot_anchors: Option<u32>,
    /// --snapshots: only every K-th network of the run in training order (the first, the
    /// K+1-th, …) and always the last (default 1: all).
    #[arg(long, value_name = "K", requires = "snapshots", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub(super) snapshot_every: Option<u32>,
    /// Strength ladder: the one player of --players (the challenger) plays --games games
    /// against each of these rungs in turn (specs as for --players, settings included, e.g.
    /// 'gomocup:pbrain-rapfi{info=MAX_DEPTH 2}' 'ucci:eleeye{depth=1,option=usebook=false}'),
    /// every rung from the same openings with colours alternating; prints a table of W-D-L,
    /// score and Elo ±95% per rung. With --snapshots RUN_DIR instead of --players: every
    /// network of the run (--snapshot-every) is a challenger at --sims simulations (no
    /// match-wide node limit for the rungs then), one table row per network with the
    /// iteration, self-play games and CPU-hours behind it and W-D-L and Elo per rung, and
    /// `plots/rungs.png` (Elo against CPU-hours) in the run directory.
    #[arg(long, num_args = 1.., value_name = "SPEC", conflicts_with_all = ["gauntlet", "sprt", "anchor"])]
    pub(super) ladder: Vec<String>,
    /// Write the --ladder table as Markdown here (with the command line and settings).
    #[arg(long, value_name = "FILE.md", requires = "ladder")]
    pub(super) ladder_out: Option<PathBuf>,
    /// Device for networks: `default`, `cpu`, `cuda[:N]` or `wgpu[:N]` in builds with the
    /// `cuda` / `wgpu` feature (docs/training.md, GPU).
    #[arg(long, default_value = "default")]
    pub(super) device: String,
}

impl ArenaArgs {
    /// `--snapshot-neighbours`, 2 when not given.
    pub(super) fn neighbours(&self) -> u32 {
        self.snapshot_neighbours.unwrap_or(2)
    }

    /// `--snapshot-anchors`, 8 when not given.
    pub(super) fn anchors(&self) -> u32 {
        self.snapshot_anchors.unwrap_or(8)
    }

    /// `--snapshot-every`, 1 (every network) when not given.
    pub(super) fn every(&self) -> u32 {
        self.snapshot_every.unwrap_or(1)
    }
}
