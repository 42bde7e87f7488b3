//! Players behind one interface, matches between them, ratings (Elo / Bradley–Terry with
//! confidence intervals, SPRT), and value calibration (a game's agreement with an exact
//! solver is its registry entry's yardstick, `alphazero_registry::Yardstick`).
//!
//! * [`Player`]: the interface; [`RandomPlayer`], [`MctsPlayer`] (any evaluator: uniform,
//!   rollouts, a network), [`GomokuHeuristic`] (levels 0–2), [`XiangqiAlphaBeta`].
//! * [`play_game`], [`run_match`] with [`MatchConfig`] (the match's terms in [`matches`], how
//!   it is played in [`schedule`]): round robin or gauntlet, balanced
//!   random openings, threads, JSON records; [`MatchResult::to_pgn`] / [`MatchResult::to_records`]
//!   give the games to the record formats of `alphazero-formats` (PGN, SGF, PSQ).
//!   Search entrants made with [`Entrant::batched_search`] play batched: all games at once,
//!   each entrant's leaves from every game in one evaluator call (gating in training).
//! * [`rating`]: Elo ↔ score, W/D/L → Elo ± CI, Bradley–Terry fit, SPRT.
//! * [`settings`]: per-player settings in a spec's `{…}` block (own limits, Gomocup `INFO`
//!   lines, UCCI/UCI options), applied with [`LimitedPlayer`].
//! * [`spec`]: the player-spec notation (`net:FILE:SIMS`, `gomocup:CMD{info=…}`, …) as
//!   [`PlayerSpec`], parsed with `FromStr` and printed back with `Display`.
//! * [`openings`]: fixed openings from a file ([`OpeningBook`]; Gomoku in Gomocup's offset
//!   format), played in order with both colours.
//! * [`ladder`]: one challenger against rungs of rising strength, as a W-D-L / Elo table; a
//!   training run's networks against the same fixed rungs.
//! * [`calibration`](mod@calibration): value calibration (reliability diagram, expected calibration error).
#![deny(missing_docs)]

pub mod batched;
pub mod calibration;
pub mod ladder;
pub mod matches;
pub mod openings;
pub mod player;
pub mod players;
pub mod rating;
pub mod schedule;
pub mod settings;
pub mod spec;

pub use calibration::{calibration, expected_calibration_error, Bin};
pub use ladder::{
    ladder_markdown, ladder_table, run_ladder, rungs_markdown, rungs_table, LadderRow, NetworkRungs,
};
pub use matches::{
    play_game, random_opening, BatchedSearch, Entrant, GameRecord, GameResult, MatchConfig,
    MatchError, MatchResult, PairStats, Pairing, PlayerFactory, Termination, ThinkTime,
};
pub use openings::{gomocup_offset_openings, OpeningBook, OpeningFileError};
pub use player::{LimitedPlayer, Limits, MoveChoice, Player, PlayerError};
pub use players::{GomokuHeuristic, MctsPlayer, RandomPlayer, XiangqiAlphaBeta};
pub use rating::{
    elo_from_score, elo_from_wdl, fit_ratings, score_from_elo, sprt_llr, sprt_llr_normal,
    sprt_match, EloEstimate, Ratings, Sprt, SprtDecision, SprtMatch,
};
pub use schedule::{run_match, run_match_sprt};
pub use settings::{PlayerSettings, SettingsError};
pub use spec::{PlayerKind, PlayerSpec, SpecError};
