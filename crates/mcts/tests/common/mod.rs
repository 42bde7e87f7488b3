//! Test helpers: a tiny tic-tac-toe `Game` and a deterministic fake evaluator.
#![allow(dead_code)]

use std::fmt;

use alphazero_game::{zobrist_table, Game, Outcome, ParseError, Side};
use alphazero_mcts::{EvalError, EvalRequest, Evaluator};

const KEYS: [u64; 19] = zobrist_table::<19>(7);
const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

/// Tic-tac-toe; cells 0..9 row-major, `X` moves first.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Ttt {
    cells: [u8; 9],
    side: Side,
    ply: u32,
    hash: u64,
}

impl Ttt {
    /// Parses 9 characters of `x`, `o`, `.` (row-major); the side to move follows the counts.
    pub fn from_str(s: &str) -> Ttt {
        let mut p = Ttt::new(&());
        let mut nx = 0;
        let mut no = 0;
        for (i, c) in s.chars().filter(|c| !c.is_whitespace()).enumerate() {
            match c {
                'x' => {
                    p.cells[i] = 1;
                    nx += 1;
                }
                'o' => {
                    p.cells[i] = 2;
                    no += 1;
                }
                _ => {}
            }
        }
        p.side = if nx > no { Side::Second } else { Side::First };
        p.ply = nx + no;
        p.hash = p.zobrist_from_scratch();
        p
    }

    fn line_of(&self, v: u8) -> bool {
        LINES.iter().any(|l| l.iter().all(|&i| self.cells[i] == v))
    }
}

impl fmt::Display for Ttt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.cells {
            write!(f, "{}", ['.', 'x', 'o'][c as usize])?;
        }
        Ok(())
    }
}

impl Game for Ttt {
    type Move = u8;
    type Config = ();
    const NAME: &'static str = "tictactoe";

    fn new(_: &()) -> Self {
        let mut p = Ttt {
            cells: [0; 9],
            side: Side::First,
            ply: 0,
            hash: 0,
        };
        p.hash = p.zobrist_from_scratch();
        p
    }
    fn config(&self) -> &() {
        &()
    }
    fn side_to_move(&self) -> Side {
        self.side
    }
    fn ply(&self) -> u32 {
        self.ply
    }
    fn legal_moves(&self, out: &mut Vec<u8>) {
        out.clear();
        if self.outcome().is_some() {
            return;
        }
        out.extend((0..9u8).filter(|&i| self.cells[i as usize] == 0));
    }
    fn play_unchecked(&mut self, mv: u8) {
        let v = if self.side == Side::First { 1 } else { 2 };
        self.cells[mv as usize] = v;
        self.hash ^= KEYS[mv as usize * 2 + (v as usize - 1)] ^ KEYS[18];
        self.side = self.side.opponent();
        self.ply += 1;
    }
    fn outcome(&self) -> Option<Outcome> {
        let last = if self.side == Side::First { 2 } else { 1 };
        if self.line_of(last) {
            Some(Outcome::Loss)
        } else if self.cells.iter().all(|&c| c != 0) {
            Some(Outcome::Draw)
        } else {
            None
        }
    }
    fn zobrist(&self) -> u64 {
        self.hash
    }
    fn zobrist_from_scratch(&self) -> u64 {
        let mut h = 0;
        for (i, &c) in self.cells.iter().enumerate() {
            if c != 0 {
                h ^= KEYS[i * 2 + (c as usize - 1)];
            }
        }
        if self.side == Side::Second {
            h ^= KEYS[18];
        }
        h
    }
    fn num_actions(&self) -> usize {
        9
    }
    fn move_to_action(&self, mv: u8) -> usize {
        mv as usize
    }
    fn action_to_move(&self, a: usize) -> Option<u8> {
        (a < 9).then_some(a as u8)
    }
    fn num_symmetries(&self) -> usize {
        1
    }
    fn transform_action(&self, _: usize, a: usize) -> usize {
        a
    }
    fn transform(&self, _: usize) -> Self {
        self.clone()
    }
    fn parse_move(&self, text: &str) -> Result<u8, ParseError> {
        text.parse::<u8>()
            .ok()
            .filter(|&m| m < 9)
            .ok_or_else(|| ParseError::new("move", text, "expected 0..8"))
    }
    fn board_shape(&self) -> (usize, usize) {
        (3, 3)
    }
}

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Deterministic fake network: logit of action `a` from a hash of (position, a), value from the
/// position hash; both in a small range so the search still matters.
#[derive(Default)]
pub struct HashEvaluator;

impl<G: Game> Evaluator<G> for HashEvaluator {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, G>],
        logits: &mut [f32],
        values: &mut [f32],
    ) -> Result<(), EvalError> {
        let a = batch.first().map_or(0, |r| r.position.num_actions());
        for (i, r) in batch.iter().enumerate() {
            let h = r.position.zobrist();
            for (j, l) in logits[i * a..(i + 1) * a].iter_mut().enumerate() {
                *l = (mix(h ^ (j as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)) % 1000) as f32
                    / 500.0
                    - 1.0;
            }
            values[i] = (mix(h) % 2001) as f32 / 1000.0 - 1.0;
            values[i] *= 0.5;
        }
        Ok(())
    }
}

/// Counts evaluated positions and calls.
#[derive(Default)]
pub struct CountingEvaluator {
    pub calls: std::sync::atomic::AtomicUsize,
    pub positions: std::sync::atomic::AtomicUsize,
}

impl<G: Game> Evaluator<G> for CountingEvaluator {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, G>],
        logits: &mut [f32],
        values: &mut [f32],
    ) -> Result<(), EvalError> {
        use std::sync::atomic::Ordering;
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.positions.fetch_add(batch.len(), Ordering::Relaxed);
        HashEvaluator.evaluate(batch, logits, values)
    }
}
