//! [`Encode`] for Gomoku, Xiangqi and Connect Four (encodings documented in the crate docs).

use alphazero_connect4::{Connect4, Connect4Config, HEIGHT as C4_HEIGHT, WIDTH as C4_WIDTH};
use alphazero_game::{Game, Side};
use alphazero_gomoku::{transform_point, Gomoku, GomokuConfig};
use alphazero_xiangqi::{Square, Xiangqi, XiangqiConfig};

use crate::encode::{permute_squares, Encode};

/// Gomoku planes: own stones, opponent stones, last move, colour to move.
const GOMOKU_PLANES: usize = 4;

impl Encode for Gomoku {
    fn num_planes(_config: &GomokuConfig) -> usize {
        GOMOKU_PLANES
    }

    fn encode(&self, _repetitions: u32, out: &mut [f32]) {
        let n = self.size();
        let hw = n * n;
        assert_eq!(out.len(), GOMOKU_PLANES * hw, "gomoku planes buffer length");
        out.fill(0.0);
        let us = self.side_to_move();
        for (plane, side) in [(0, us), (1, us.opponent())] {
            for y in 0..n {
                let mut bits = self.row_bits(side, y);
                while bits != 0 {
                    let x = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if x < n {
                        out[plane * hw + y * n + x] = 1.0;
                    }
                }
            }
        }
        if let Some(m) = self.last_move() {
            let (x, y) = (usize::from(m.x), usize::from(m.y));
            if x < n && y < n {
                out[2 * hw + y * n + x] = 1.0;
            }
        }
        if us == Side::First {
            out[3 * hw..4 * hw].fill(1.0);
        }
    }

    fn transform_planes(_config: &GomokuConfig, sym: usize, src: &[f32], dst: &mut [f32]) {
        let hw = src.len() / GOMOKU_PLANES;
        let n = (hw as f64).sqrt().round() as usize;
        assert_eq!(
            n * n * GOMOKU_PLANES,
            src.len(),
            "gomoku planes buffer length"
        );
        permute_squares(n, n, src, dst, |x, y| {
            let (tx, ty) = transform_point(n as u8, sym, x as u8, y as u8);
            (usize::from(tx), usize::from(ty))
        });
    }
}

/// Xiangqi planes: 7 own piece kinds, 7 opponent piece kinds, repetitions, no-capture counter.
const XIANGQI_PLANES: usize = 16;
const XQ_H: usize = 10;
const XQ_W: usize = 9;

/// Scale of the Xiangqi no-capture plane: the configured no-capture draw limit, or 120 plies
/// when the rule is disabled.
fn no_capture_scale(config: &XiangqiConfig) -> f32 {
    if config.no_capture_draw_plies > 0 {
        f32::from(config.no_capture_draw_plies)
    } else {
        120.0
    }
}

impl Encode for Xiangqi {
    fn num_planes(_config: &XiangqiConfig) -> usize {
        XIANGQI_PLANES
    }

    fn encode(&self, repetitions: u32, out: &mut [f32]) {
        let hw = XQ_H * XQ_W;
        assert_eq!(
            out.len(),
            XIANGQI_PLANES * hw,
            "xiangqi planes buffer length"
        );
        out.fill(0.0);
        let us = self.side_to_move();
        for rank in 0..XQ_H as u8 {
            for file in 0..XQ_W as u8 {
                let Some(sq) = Square::new(file, rank) else {
                    continue;
                };
                let Some(piece) = self.piece_at(sq) else {
                    continue;
                };
                // Seen from the side to move: Black's view is the board turned 180°.
                let (row, col) = match us {
                    Side::First => (usize::from(rank), usize::from(file)),
                    Side::Second => (XQ_H - 1 - usize::from(rank), XQ_W - 1 - usize::from(file)),
                };
                let plane = piece.kind.index() + if piece.side == us { 0 } else { 7 };
                out[plane * hw + row * XQ_W + col] = 1.0;
            }
        }
        let rep = repetitions.min(2) as f32 / 2.0;
        out[14 * hw..15 * hw].fill(rep);
        let clock = (f32::from(self.halfmove_clock()) / no_capture_scale(self.config())).min(1.0);
        out[15 * hw..16 * hw].fill(clock);
    }

    fn transform_planes(_config: &XiangqiConfig, sym: usize, src: &[f32], dst: &mut [f32]) {
        // The left-right mirror is a mirror of columns in the side-to-move frame as well.
        let mirror = sym % 2 == 1;
        permute_squares(XQ_H, XQ_W, src, dst, |x, y| {
            if mirror {
                (XQ_W - 1 - x, y)
            } else {
                (x, y)
            }
        });
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
}
