//! Xiangqi (Chinese chess) for alphazero-rs: complete rules behind [`alphazero_game::Game`].
//!
//! * Board: 9 files a–i (left to right from Red's view) × 10 ranks 0–9 (from Red's side), as in
//!   ICCS/UCCI. Red is [`Side::First`](alphazero_game::Side::First) and moves first.
//! * Moves: [`Move`] `{ from, to }`, written in ICCS (`h2e2`); WXF notation (`C2=5`) with
//!   [`Xiangqi::to_wxf`] / [`Xiangqi::parse_wxf`] (see [`wxf`](mod@wxf)).
//! * Positions: [`Xiangqi`], read and written as FEN ([`Xiangqi::from_fen`], [`Xiangqi::to_fen`]).
//! * Legal moves: palace for generals and advisors, elephant eye and river, horse leg, cannon
//!   screen, soldiers sideways after the river, flying general, no move may leave the own
//!   general attacked. The fast generator uses precomputed tables and an attack test from the
//!   general's square; [`reference`](mod@reference) is a slow, obviously-correct generator it is tested against.
//! * End of game ([`Game::outcome`](alphazero_game::Game::outcome)): a side with no legal move
//!   (checkmate or stalemate) loses; `no_capture_draw_plies` plies without capture draw.
//! * Repetition ([`Game::adjudicate`](alphazero_game::Game::adjudicate)): when the position has
//!   occurred `repetition_count` times since the last capture, the cycle since its previous
//!   occurrence is judged: a side that gave check with every one of its moves loses (perpetual
//!   check); otherwise, under the default [`RepetitionRule::Asian`], a side that chased the
//!   same unprotected piece with every move loses (perpetual chase); both or neither: draw.
//!   [`Xiangqi::end_reason`] and [`Xiangqi::repetition_verdict`] name the rule that ended a
//!   game; the rules and what is not judged are in [`repetition`](mod@repetition).
//!
//! * Action space ([`NUM_ACTIONS`] = 2086): all geometrically possible from→to moves (line
//!   moves, horse, elephant and advisor moves), **seen from the side to move**: Black's moves are
//!   rotated by 180° before indexing. Symmetry 1 mirrors the files.
//! * Tactics ([`Game::tactical_proof`](alphazero_game::Game::tactical_proof)): every mate in
//!   one ([`Xiangqi::mates_in_one`]), then a mate search by continuous checks under a node
//!   budget ([`Xiangqi::mate_search`]).
//! * [`perft`], [`perft_divide`], [`reference::perft`].
//!
//! ```
//! use alphazero_game::Game;
//! use alphazero_xiangqi::{perft, Move, Xiangqi, XiangqiConfig};
//!
//! let mut pos = Xiangqi::new(&XiangqiConfig::default());
//! assert_eq!(perft(&pos, 2), 1920);
//! let mv: Move = "h2e2".parse()?;
//! pos.play(mv)?;
//! assert_eq!(
//!     pos.to_fen(),
//!     "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
//! );
//! let same = Xiangqi::from_fen(&pos.to_fen(), XiangqiConfig::default())?;
//! assert_eq!(same, pos);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod actions;
mod fen;
mod game_impl;
mod perft;
mod position;
pub mod reference;
pub mod repetition;
mod tables;
mod tactics;
mod types;
pub mod wxf;

pub use actions::NUM_ACTIONS;
pub use perft::{perft, perft_divide};
pub use position::{Xiangqi, XiangqiConfig};
pub use repetition::{EndReason, RepetitionRule, RepetitionVerdict};
pub use tactics::{MateResult, MAX_MATE_PLIES};
pub use types::{Move, Piece, PieceKind, Square, FILES, NUM_SQUARES, RANKS};
