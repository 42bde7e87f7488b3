//! The games as the page plays them: the registry's [`Board`] view (per game, in
//! `alphazero-registry`) plus what a game record needs.

use alphazero_formats::RecordGame;

pub(crate) use alphazero_registry::{Cell, WebGame as Board};

/// A game the page can play and record.
pub(crate) trait WebGame: Board + RecordGame {}

impl<G: Board + RecordGame> WebGame for G {}
