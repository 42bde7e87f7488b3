//! `[selfplay]`: self-play game generation, its search, playout cap, resignation and
//! restarts and random starts.

use alphazero_mcts::SearchConfig;
use serde::{Deserialize, Serialize};

/// `[selfplay.playout_cap]`: KataGo's playout-cap randomisation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayoutCapSection {
    /// Whether some moves are searched with only `fast_simulations`.
    pub enabled: bool,
    /// Simulations of a fast move (not trained on).
    pub fast_simulations: u32,
    /// Probability in (0, 1] that a move gets the full search.
    pub full_probability: f64,
}

/// `[selfplay.resign]`: resignation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResignSection {
    /// Whether self-play games may resign.
    pub enabled: bool,
    /// Resign when the root value from the side to move is below this (in [-1, 1]).
    pub threshold: f64,
    /// No resignation before this ply.
    pub min_ply: u32,
    /// Fraction of games in [0, 1] played out without resigning (to check false resigns).
    pub no_resign_fraction: f64,
}

/// How `[selfplay.restarts]` picks the positions restarted games start from. Both take the
/// positions of the games whose positions are in the replay buffer, each game's own plies
/// only (a restarted game's prefix belongs to the game it came from), never the initial
/// position; a game is picked from when any of its positions qualifies, and a position is
/// drawn uniformly among all that qualify.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RestartRule {
    /// Positions where the side to move had to defend: in a game won by one side (by the
    /// rules or by resignation; not a draw, not a game cut at `selfplay.max_plies`), the
    /// positions among the last `window` before its end at which the side that lost was to
    /// move; and, in any game, the positions marked *threat* (the search proved that some
    /// move there loses: the opponent had an immediate threat).
    Defend,
    /// Every position.
    Uniform,
}

/// `[selfplay.restarts]`: game restarts. A share of the self-play games start from a
/// position of an earlier game in the replay buffer, picked by `rule`, instead of the initial
/// position: the position's moves are replayed (so the repetition rules see them) and the
/// game is played on from there with the champion's searches; its π, root values and result
/// z are its own, never copied from the earlier game. Plies count from the initial position,
/// as in the earlier game (the temperature schedule, `resign.min_ply` and `max_plies`). The
/// record keeps the moves before its first ply (`.azr` version 3), so `records show` and the
/// replay buffer replay it from the initial position; only its own plies are trained on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RestartsSection {
    /// Share of each iteration's games, in [0, 1), drawn per game, that restart (0 = off).
    /// Games start from the initial position while no position qualifies (the first
    /// iteration).
    pub share: f64,
    /// `defend` or `uniform` ([`RestartRule`]).
    pub rule: RestartRule,
    /// `defend`: how many of a game's last positions (plies before its end) are looked at
    /// for the losing side's turns (>= 1).
    pub window: u32,
}

/// `[selfplay.random_starts]`: a share of the self-play games start from a position made from
/// the rules alone instead of the initial position (the game's
/// [`Registered::random_start`](alphazero_registry::Registered::random_start); Xiangqi: the
/// initial position with up to `max_removed` pieces other than the general taken off each
/// side, then up to `plies` uniformly random legal moves). Material imbalances end games
/// sooner and teach what pieces are worth; random moves leave pieces where they can be taken
/// (positions self-play's own moves rarely reach) and teach taking them. A random
/// start's record keeps its position as text (the record's start field), so `records show`
/// and the replay buffer replay it from there; restarts are never drawn from such games.
/// Refused (share > 0) for a game without random starts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RandomStartsSection {
    /// Share of each iteration's games, in [0, 1), drawn per game, that start from a random
    /// position (0 = off).
    pub share: f64,
    /// The most pieces taken off each side, 1 to 15 (Xiangqi's pieces besides the general);
    /// each side's count is drawn uniformly from 0 to this.
    pub max_removed: u32,
    /// The most uniformly random legal moves played after the pieces are taken off, 0 to
    /// 200 (0 = none, the default); each start's count is drawn uniformly from 0 to this.
    #[serde(default)]
    pub plies: u32,
}

/// `[selfplay]`: self-play game generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelfPlaySection {
    /// Games generated per iteration.
    pub games_per_iteration: u32,
    /// Games played concurrently (their leaves are batched together), over all workers.
    pub parallel_games: u32,
    /// Self-play worker threads, each single-threaded with its own share of the games and
    /// its own network cache; 0 = one per core.
    pub workers: u32,
    /// MCTS simulations per full search.
    pub simulations: u32,
    /// Number of opening plies sampled with `temperature`; later plies use `final_temperature`.
    pub temperature_moves: u32,
    /// Visit-count temperature of the opening plies.
    pub temperature: f64,
    /// Temperature after `temperature_moves` (0 = pick the most visited move).
    pub final_temperature: f64,
    /// Playout-cap randomisation.
    pub playout_cap: PlayoutCapSection,
    /// Resignation.
    pub resign: ResignSection,
    /// Games reaching this many plies are stopped and recorded as draws flagged
    /// `truncated`. A cut-off game has no result, so its positions are not trained as draws:
    /// their value target is the search's root value q alone (as if
    /// `train.value_q_weight` were 1 for that game); their policy targets are kept.
    pub max_plies: u32,
    /// `[selfplay.restarts]`: game restarts (off by default).
    pub restarts: RestartsSection,
    /// `[selfplay.random_starts]`: starts made from the rules (off by default).
    pub random_starts: RandomStartsSection,
    /// `[selfplay.search]`: the search of every self-play move, read straight into the
    /// search's own configuration (its keys are [`SearchConfig`]'s fields: `c_puct`,
    /// `fpu_reduction`, `dirichlet_alpha`, `dirichlet_epsilon`, `dirichlet_alpha_total`,
    /// `virtual_loss`, `leaves_per_batch`, `use_candidate_moves`, `solver`,
    /// `terminal_check`, `gumbel`, `tactical_budget`, `root_tactical_budget`,
    /// `reply_tactical_budget`, `threat_replies_budget`, `draw_score`). The loop sets the rest: the simulations
    /// (`selfplay.simulations`, or the playout cap's), the root noise (on) and the seed.
    /// A key written flat in `[selfplay]` (`[selfplay] c_puct = 1.5`, the layout of files
    /// and saved run configs before `[selfplay.search]`, see [`LEGACY_SEARCH_KEYS`]) still
    /// reads here.
    ///
    /// The game presets set `tactical_budget` (Gomoku and Xiangqi 200: fives, threats and
    /// VCF / mates by checks at every expanded node), `draw_score` (Xiangqi −0.2: each side's
    /// search avoids the repetition draws early networks end most games with; results and
    /// targets are unchanged) and `dirichlet_alpha_total` (Gomoku 10: α = 10 / candidates).
    ///
    /// [`LEGACY_SEARCH_KEYS`]: crate::config::LEGACY_SEARCH_KEYS
    pub search: SearchConfig,
}
