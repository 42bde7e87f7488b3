//! The swap2 opening of the Gomocup brain (`SWAP2BOARD`): placing the first three stones,
//! choosing a colour or placing two more.

use std::io::{self, Write};
use std::time::{Duration, Instant};

use alphazero_game::{Game, History, Side};
use alphazero_gomoku::{Gomoku, GomokuConfig, GomokuMove};

use super::{err_line, GomocupEngine};

/// `SWAP2BOARD` with 3 stones: the search's value for white (to move) below `-SWAP2_MARGIN`
/// → `SWAP`, above it → stay white and play the 4th stone, otherwise place the 4th and 5th
/// stones and let the opponent choose.
const SWAP2_MARGIN: f32 = 0.1;

/// The 3-stone openings (black, white, black) `SWAP2BOARD` with an empty board chooses from,
/// as offsets from the centre; the one whose searched value for white is nearest 0 is played.
const SWAP2_OPENINGS: [[(i8, i8); 3]; 6] = [
    [(0, 0), (1, 1), (2, 0)],
    [(0, 0), (0, 1), (2, 2)],
    [(0, 0), (1, 0), (-1, 2)],
    [(0, 0), (2, 1), (1, -1)],
    [(0, 0), (-1, -1), (2, 1)],
    [(0, 0), (1, 2), (2, -1)],
];

impl GomocupEngine {
    /// Answers a `SWAP2BOARD` block whose stones are `moves` (see [`Self::handle_line`]).
    pub(super) fn swap2(
        &mut self,
        moves: &[GomokuMove],
        received: Instant,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        if ![0, 3, 5].contains(&moves.len()) {
            return err_line(
                out,
                format!(
                    "SWAP2BOARD needs 0, 3 or 5 stones (the three swap2 stages), got {}",
                    moves.len()
                ),
            );
        }
        let (old_stones, old_side) = (std::mem::take(&mut self.stones), self.to_move);
        self.stones = moves
            .iter()
            .enumerate()
            .map(|(i, &m)| {
                (
                    m,
                    if i % 2 == 0 {
                        Side::First
                    } else {
                        Side::Second
                    },
                )
            })
            .collect();
        self.to_move = if moves.len().is_multiple_of(2) {
            Side::First
        } else {
            Side::Second
        };
        let rejected = match self.rebuild() {
            Err(e) => Some(e),
            Ok(()) if self.game.as_ref().and_then(History::outcome).is_some() => {
                Some("the game is already over".to_string())
            }
            Ok(()) => None,
        };
        if let Some(e) = rejected {
            self.stones = old_stones;
            self.to_move = old_side;
            let _ = self.rebuild();
            return err_line(out, format!("SWAP2BOARD rejected: {e}"));
        }
        let r = match moves.len() {
            0 => self.swap2_open(received, out),
            3 => self.swap2_choose(received, out, true),
            _ => self.swap2_choose(received, out, false),
        };
        self.match_used += received.elapsed();
        r
    }

    /// Stage 1: places the opening of [`SWAP2_OPENINGS`] whose searched value for white (to
    /// move) is nearest 0 (the first such on ties).
    fn swap2_open(&mut self, received: Instant, out: &mut dyn Write) -> io::Result<()> {
        let Some(n) = self.size else {
            return err_line(out, "no board: send START first");
        };
        let Ok(config) = GomokuConfig::new(n, self.rule) else {
            return err_line(out, format!("unsupported size {n}"));
        };
        let c = i16::from(n / 2);
        let k = SWAP2_OPENINGS.len() as u32;
        let empty = Gomoku::new(&config);
        let plan = self.move_plan(&empty).map(|b| b.share(k));
        let mut each = self.search_budget();
        each.simulations = each.simulations.map(|cap| (cap / k).max(1));
        let mut best: Option<(f32, Vec<GomokuMove>)> = None;
        for opening in SWAP2_OPENINGS {
            let stones: Vec<GomokuMove> = opening
                .iter()
                .map(|&(dx, dy)| {
                    let at = |d: i8| (c + i16::from(d)).clamp(0, i16::from(n) - 1) as u8;
                    GomokuMove::new(at(dx), at(dy))
                })
                .collect();
            let mut h = History::new(empty.clone());
            if stones.iter().any(|&m| h.play(m).is_err()) {
                continue;
            }
            // Each opening gets its share of the time from now on.
            let t = match self.search(&h, Instant::now(), plan, each) {
                Ok(t) => t,
                Err(e) => return err_line(out, e),
            };
            if best.as_ref().is_none_or(|(v, _)| t.value.abs() < v.abs()) {
                best = Some((t.value, stones));
            }
            if received.elapsed() >= self.move_plan(&empty).map_or(Duration::MAX, |b| b.search) {
                break;
            }
        }
        let Some((value, stones)) = best else {
            return err_line(out, "no swap2 opening fits this board");
        };
        for &m in &stones {
            if let Err(e) = self.place(m) {
                return err_line(out, format!("internal: swap2 opening stone: {e}"));
            }
        }
        let text: Vec<String> = stones.iter().map(|m| m.to_gomocup()).collect();
        writeln!(
            out,
            "MESSAGE swap2 opening: value for white to move {value:+.3} (nearest 0 of {k})"
        )?;
        writeln!(out, "{}", text.join(" "))
    }

    /// Stages 2 (`three`, 3 stones) and 3 (5 stones): white is to move; `SWAP`, a move as
    /// white, or (stage 2, a balanced position) two stones, from the search's value.
    fn swap2_choose(
        &mut self,
        received: Instant,
        out: &mut dyn Write,
        three: bool,
    ) -> io::Result<()> {
        let Some(game) = self.game.clone() else {
            return err_line(out, "no board: send START first");
        };
        let full = self.move_plan(game.current());
        // Stage 2 may need a second search for the 5th stone: half the time each.
        let plan = if three {
            full.map(|b| b.share(2))
        } else {
            full
        };
        let t = match self.search(&game, received, plan, self.search_budget()) {
            Ok(t) => t,
            Err(e) => return err_line(out, e),
        };
        let v = t.value;
        let stage = if three { 2 } else { 3 };
        let swap = if three { v < -SWAP2_MARGIN } else { v < 0.0 };
        if swap {
            writeln!(
                out,
                "MESSAGE swap2 stage {stage}: value for white to move {v:+.3}: SWAP (taking black)"
            )?;
            return writeln!(out, "SWAP");
        }
        let Some(w) = t.mv else {
            return err_line(out, format!("no move: {}", t.reason));
        };
        if !three || v > SWAP2_MARGIN {
            writeln!(
                out,
                "MESSAGE swap2 stage {stage}: value for white to move {v:+.3}: staying white"
            )?;
            self.report(&t, plan, out)?;
            return match self.place(w) {
                Ok(()) => writeln!(out, "{}", w.to_gomocup()),
                Err(e) => err_line(out, format!("internal: {e}")),
            };
        }
        // Balanced: the 4th (white) stone, then the 5th (black) that keeps it nearest 0.
        if let Err(e) = self.place(w) {
            return err_line(out, format!("internal: {e}"));
        }
        let Some(after) = self.game.clone() else {
            return err_line(out, "no board: send START first");
        };
        let r = match self.search(&after, Instant::now(), plan, self.search_budget()) {
            Ok(r) => r,
            Err(e) => return err_line(out, e),
        };
        let b = r
            .children
            .iter()
            .filter(|c| c.1 > 0)
            .min_by(|x, y| x.2.abs().total_cmp(&y.2.abs()))
            .map(|c| c.0)
            .or(r.mv);
        let Some(b) = b else {
            return err_line(out, format!("no 5th stone: {}", r.reason));
        };
        if let Err(e) = self.place(b) {
            return err_line(out, format!("internal: {e}"));
        }
        writeln!(
            out,
            "MESSAGE swap2 stage 2: value for white to move {v:+.3}: balanced, placing two \
             stones for the opponent to choose"
        )?;
        writeln!(out, "{} {}", w.to_gomocup(), b.to_gomocup())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use alphazero_mcts::{EvalRequest, Evaluator};

    use super::*;
    use crate::EngineConfig;

    /// Uniform policy; the value is `v` for white to move and `-v` for black to move.
    struct WhiteValue(f32);

    impl Evaluator<Gomoku> for WhiteValue {
        fn evaluate(
            &self,
            batch: &[EvalRequest<'_, Gomoku>],
            policy_logits: &mut [f32],
            values: &mut [f32],
        ) -> Result<(), alphazero_mcts::EvalError> {
            policy_logits.iter_mut().for_each(|l| *l = 0.0);
            for (v, r) in values.iter_mut().zip(batch) {
                let white = r.position.side_to_move() == Side::Second;
                *v = if white { self.0 } else { -self.0 };
            }
            Ok(())
        }
    }

    fn swap2_answer(white_value: f32, stones: &[&str]) -> (String, GomocupEngine) {
        let mut e = GomocupEngine::new(
            Arc::new(WhiteValue(white_value)),
            EngineConfig::fixed(32, 1),
        );
        e.handle_line("START 15", &mut Vec::new()).unwrap();
        let mut out = Vec::new();
        for l in ["SWAP2BOARD"].iter().chain(stones).chain(&["DONE"]) {
            e.handle_line(l, &mut out).unwrap();
        }
        let out = String::from_utf8(out).unwrap();
        (out.lines().last().unwrap_or_default().to_string(), e)
    }

    #[test]
    fn swap2_swaps_when_white_to_move_is_worse_and_stays_white_when_better() {
        let three = ["7,7", "8,7", "9,9"];
        let five = ["7,7", "8,7", "9,9", "8,8", "8,6"];
        let (a, e) = swap2_answer(-0.6, &three);
        assert_eq!(a, "SWAP");
        // The board is the three stones, white (the opponent now) to move.
        let p = e.position().unwrap();
        assert_eq!((p.stone_count(), p.side_to_move()), (3, Side::Second));
        let (a, e) = swap2_answer(-0.6, &five);
        assert_eq!(a, "SWAP");
        assert_eq!(e.position().unwrap().stone_count(), 5);
        // White better: stay white and play the 4th / 6th stone.
        let (a, e) = swap2_answer(0.6, &three);
        assert_eq!(a.split(',').count(), 2, "{a}");
        assert_eq!(e.position().unwrap().stone_count(), 4);
        let (a, e) = swap2_answer(0.6, &five);
        assert_eq!(a.split(',').count(), 2, "{a}");
        assert_eq!(e.position().unwrap().stone_count(), 6);
        // Balanced (stage 2): the 4th and 5th stones; black's turn is the opponent's choice.
        let (a, e) = swap2_answer(0.0, &three);
        assert_eq!(a.split(' ').count(), 2, "{a}");
        let p = e.position().unwrap();
        assert_eq!((p.stone_count(), p.side_to_move()), (5, Side::Second));
        // Stage 1: three stones, black-white-black from the centre.
        let (a, e) = swap2_answer(0.0, &[]);
        assert_eq!(a.split(' ').count(), 3, "{a}");
        let p = e.position().unwrap();
        assert_eq!(p.stone_at(7, 7), Some(Side::First));
        assert_eq!((p.stone_count(), p.side_to_move()), (3, Side::Second));
    }
}
