//! Connect Four in the registry: one spec (7×6) and its encoder (2 planes).

use alphazero_connect4::{Connect4, Connect4Config, HEIGHT as C4_HEIGHT, WIDTH as C4_WIDTH};
use alphazero_game::Game;

use crate::encode::{permute_squares, Encode};
use crate::{GameSpec, Registered};

/// [`Game::NAME`] of Connect Four.
pub(crate) const NAME: &str = <Connect4 as Game>::NAME;

/// The game in one line (`--help`).
pub(crate) const ABOUT: &str = "Connect Four, 7×6";

impl Registered for Connect4 {
    fn spec(_config: &Connect4Config) -> GameSpec {
        GameSpec::Connect4
    }

    fn config_of(spec: &GameSpec) -> Option<Connect4Config> {
        matches!(spec, GameSpec::Connect4).then_some(Connect4Config)
    }
}

/// Connect Four planes: own discs, opponent discs.
const C4_PLANES: usize = 2;

impl Encode for Connect4 {
    fn num_planes(_config: &Connect4Config) -> usize {
        C4_PLANES
    }

    fn encode(&self, _repetitions: u32, out: &mut [f32]) {
        let hw = C4_HEIGHT * C4_WIDTH;
        assert_eq!(out.len(), C4_PLANES * hw, "connect4 planes buffer length");
        out.fill(0.0);
        let us = self.side_to_move();
        for row in 0..C4_HEIGHT {
            for col in 0..C4_WIDTH {
                if let Some(side) = self.cell(col, row) {
                    let plane = if side == us { 0 } else { 1 };
                    out[plane * hw + row * C4_WIDTH + col] = 1.0;
                }
            }
        }
    }

    fn transform_planes(_config: &Connect4Config, sym: usize, src: &[f32], dst: &mut [f32]) {
        let mirror = sym == 1;
        permute_squares(C4_HEIGHT, C4_WIDTH, src, dst, |x, y| {
            if mirror {
                (C4_WIDTH - 1 - x, y)
            } else {
                (x, y)
            }
        });
    }

    fn plane_meanings(_config: &Self::Config) -> Vec<String> {
        vec![
            "discs of the side to move".into(),
            "discs of the opponent".into(),
        ]
    }
    fn board_layout() -> &'static str {
        "row r, column c of the planes is board row r (0 = bottom), column c (0 = leftmost, \
         the move '1')"
    }
    fn policy_layout() -> &'static str {
        "action = column, 0-6 (the moves '1'-'7')"
    }
}
