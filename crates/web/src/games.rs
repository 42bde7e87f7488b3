//! What the web page needs to know about each game: board cells as strings, the board point
//! of every notation, where a move's search visits are drawn, colour names.
//!
//! Board coordinates `(r, c)` are as drawn on the page: row 0 is the **top** row, column 0 the
//! left column. Gomoku draws its highest row (y = size − 1) on top, Xiangqi Black's back rank
//! (rank 9) on top, Connect Four its top row (row 5) on top.

use std::sync::Arc;

use alphazero_connect4::{C4Move, Connect4, Connect4Config, HEIGHT, WIDTH};
use alphazero_formats::RecordGame;
use alphazero_game::{Game, HistoryEntry, Outcome, Side};
use alphazero_gomoku::{Foul, Gomoku, GomokuConfig, GomokuMove, Rule};
use alphazero_mcts::Evaluator;
use alphazero_registry::Registered;
use alphazero_xiangqi::{EndReason, Move, Square, Xiangqi, XiangqiConfig, FILES, RANKS};

use crate::error::ApiError;
use crate::Engines;

/// A board point as drawn: `(row from the top, column from the left)`.
pub(crate) type Cell = (usize, usize);

/// A game as the web page shows it.
pub(crate) trait WebGame: Game + Registered + RecordGame {
    /// The start position of a new game under `config`: the request's `fen` where the game
    /// reads one (Xiangqi), else the standard start.
    ///
    /// # Errors
    /// 400 for a FEN that does not parse, or a FEN for a game that reads none.
    fn start(config: &Self::Config, fen: Option<&str>) -> Result<Self, ApiError> {
        if fen.is_some() {
            return Err(ApiError::BadRequest("fen applies to xiangqi only".into()));
        }
        Ok(Self::new(config))
    }

    /// The evaluator `engines` gives games under `config`, with its description for the page.
    fn engine(engines: &Engines, config: &Self::Config) -> (Arc<dyn Evaluator<Self>>, String);

    /// `(rows, columns)` of the drawn board.
    fn dims(&self) -> (usize, usize);

    /// The content of a cell: `""` empty; a stone colour (`"black"`, `"white"`, `"red"`,
    /// `"yellow"`); or a Xiangqi FEN piece letter (upper case Red, lower case Black).
    fn cell(&self, cell: Cell) -> String;

    /// The name of a cell in the game's move notation (Gomoku `h8`, Xiangqi square `e2`,
    /// Connect Four column `4`).
    fn cell_name(&self, cell: Cell) -> String;

    /// Colour name of a side (`black`/`white`, `red`/`black`, `red`/`yellow`).
    fn colour(side: Side) -> &'static str;

    /// The cells a move's visits are drawn on: `(destination, origin)`. Gomoku: the point;
    /// Connect Four: the cell the stone lands on in `self` (the position before the move);
    /// Xiangqi: the destination and the origin square.
    fn move_cells(&self, mv: Self::Move) -> (Cell, Option<Cell>);

    /// The cells to mark for the move that led to `self` (the position after it).
    fn last_move_cells(&self, mv: Self::Move) -> Vec<Cell>;

    /// Rule name where the game has rule options (Gomoku: `freestyle`, `standard`, `renju`).
    fn rule_name(&self) -> Option<String> {
        None
    }

    /// The points where a black stone would be a renju foul, whoever is to move: `(cell,
    /// point in notation, kind)` with kind `double-three`, `double-four` or `overline`.
    /// Empty for every other game and rule.
    fn foul_points(&self) -> Vec<(Cell, String, &'static str)> {
        Vec::new()
    }

    /// The cells that decided a finished game (`self` is its final position, `outcome` from
    /// its side to move, `last` the move that led to it, `history` the entries before it):
    /// the winning row, a foul's point, a mating move and the mated general. Empty for a draw.
    fn decisive_cells(
        &self,
        outcome: Outcome,
        last: Option<Self::Move>,
        history: &[HistoryEntry],
    ) -> Vec<Cell>;
}

/// The rows of `min` or more cells through `at` (horizontal, vertical, both diagonals) whose
/// cells all satisfy `same` (`at` included), each row from one end to the other; with
/// `exact`, only rows of exactly `min` cells. Cells lie in `rows × cols`.
fn rows_through(
    at: Cell,
    (rows, cols): (usize, usize),
    min: usize,
    exact: bool,
    same: impl Fn(Cell) -> bool,
) -> Vec<Cell> {
    let step = |(r, c): Cell, (dr, dc): (isize, isize)| -> Option<Cell> {
        let (r, c) = (r.checked_add_signed(dr)?, c.checked_add_signed(dc)?);
        (r < rows && c < cols && same((r, c))).then_some((r, c))
    };
    let mut out = Vec::new();
    for dir in [(0, 1), (1, 0), (1, 1), (1, -1)] {
        let back = (-dir.0, -dir.1);
        let mut start = at;
        while let Some(prev) = step(start, back) {
            start = prev;
        }
        let mut run = vec![start];
        while let Some(next) = step(*run.last().expect("not empty"), dir) {
            run.push(next);
        }
        if run.len() == min || (!exact && run.len() > min) {
            out.extend(run);
        }
    }
    out
}

impl WebGame for Gomoku {
    fn engine(engines: &Engines, config: &GomokuConfig) -> (Arc<dyn Evaluator<Self>>, String) {
        (engines.gomoku)(config)
    }

    fn dims(&self) -> (usize, usize) {
        (self.size(), self.size())
    }

    fn cell(&self, (r, c): Cell) -> String {
        let y = self.size() - 1 - r;
        match self.stone_at(c, y) {
            Some(side) => Self::colour(side).to_string(),
            None => String::new(),
        }
    }

    fn cell_name(&self, (r, c): Cell) -> String {
        let y = self.size() - 1 - r;
        GomokuMove::new(c as u8, y as u8).to_string()
    }

    fn colour(side: Side) -> &'static str {
        match side {
            Side::First => "black",
            Side::Second => "white",
        }
    }

    fn move_cells(&self, mv: GomokuMove) -> (Cell, Option<Cell>) {
        (
            (self.size() - 1 - usize::from(mv.y), usize::from(mv.x)),
            None,
        )
    }

    fn last_move_cells(&self, mv: GomokuMove) -> Vec<Cell> {
        vec![self.move_cells(mv).0]
    }

    fn rule_name(&self) -> Option<String> {
        Some(self.rule().name().to_string())
    }

    fn foul_points(&self) -> Vec<(Cell, String, &'static str)> {
        self.forbidden_points()
            .into_iter()
            .map(|(mv, foul)| {
                let kind = match foul {
                    Foul::DoubleThree => "double-three",
                    Foul::DoubleFour => "double-four",
                    Foul::Overline => "overline",
                };
                (self.move_cells(mv).0, mv.to_string(), kind)
            })
            .collect()
    }

    fn decisive_cells(
        &self,
        outcome: Outcome,
        last: Option<GomokuMove>,
        _history: &[HistoryEntry],
    ) -> Vec<Cell> {
        let Some(last) = last else {
            return Vec::new();
        };
        let at = self.move_cells(last).0;
        match outcome {
            Outcome::Draw => Vec::new(),
            // The side to move won on the other side's move: black's forbidden point.
            Outcome::Win => vec![at],
            Outcome::Loss => {
                let mover = self.side_to_move().opponent();
                let colour = <Self as WebGame>::colour(mover);
                let exact = match self.rule() {
                    Rule::Freestyle => false,
                    Rule::Standard => true,
                    Rule::Renju => mover == Side::First,
                };
                let five = rows_through(at, self.dims(), 5, exact, |cell| {
                    WebGame::cell(self, cell) == colour
                });
                if five.is_empty() {
                    vec![at]
                } else {
                    five
                }
            }
        }
    }
}

fn square_cell(sq: Square) -> Cell {
    (usize::from(RANKS - 1 - sq.rank()), usize::from(sq.file()))
}

fn cell_square((r, c): Cell) -> Option<Square> {
    let rank = (RANKS as usize).checked_sub(1 + r)?;
    Square::new(u8::try_from(c).ok()?, u8::try_from(rank).ok()?)
}

impl WebGame for Xiangqi {
    fn start(config: &XiangqiConfig, fen: Option<&str>) -> Result<Self, ApiError> {
        match fen {
            None => Ok(Xiangqi::new(config)),
            Some(fen) => Xiangqi::from_fen(fen, *config)
                .map_err(|e| ApiError::BadRequest(format!("fen: {e}"))),
        }
    }

    fn engine(engines: &Engines, _: &XiangqiConfig) -> (Arc<dyn Evaluator<Self>>, String) {
        ((engines.xiangqi)(), engines.describe.xiangqi.clone())
    }

    fn dims(&self) -> (usize, usize) {
        (RANKS as usize, FILES as usize)
    }

    fn cell(&self, cell: Cell) -> String {
        match cell_square(cell).and_then(|sq| self.piece_at(sq)) {
            Some(p) => p.to_char().to_string(),
            None => String::new(),
        }
    }

    fn cell_name(&self, cell: Cell) -> String {
        cell_square(cell).map(|s| s.to_string()).unwrap_or_default()
    }

    fn colour(side: Side) -> &'static str {
        match side {
            Side::First => "red",
            Side::Second => "black",
        }
    }

    fn move_cells(&self, mv: Move) -> (Cell, Option<Cell>) {
        (square_cell(mv.to), Some(square_cell(mv.from)))
    }

    fn last_move_cells(&self, mv: Move) -> Vec<Cell> {
        vec![square_cell(mv.from), square_cell(mv.to)]
    }

    fn decisive_cells(
        &self,
        _outcome: Outcome,
        last: Option<Move>,
        history: &[HistoryEntry],
    ) -> Vec<Cell> {
        match (self.end_reason(history), last) {
            (Some(EndReason::Checkmate | EndReason::Stalemate), Some(mv)) => {
                let mut cells = self.last_move_cells(mv);
                cells.push(square_cell(self.general_square(self.side_to_move())));
                cells
            }
            _ => Vec::new(),
        }
    }
}

impl WebGame for Connect4 {
    fn engine(engines: &Engines, _: &Connect4Config) -> (Arc<dyn Evaluator<Self>>, String) {
        ((engines.connect4)(), engines.describe.connect4.clone())
    }

    fn dims(&self) -> (usize, usize) {
        (HEIGHT, WIDTH)
    }

    fn cell(&self, (r, c): Cell) -> String {
        match self.cell(c, HEIGHT - 1 - r) {
            Some(side) => <Self as WebGame>::colour(side).to_string(),
            None => String::new(),
        }
    }

    fn cell_name(&self, (_, c): Cell) -> String {
        C4Move(c as u8).to_string()
    }

    fn colour(side: Side) -> &'static str {
        match side {
            Side::First => "red",
            Side::Second => "yellow",
        }
    }

    fn move_cells(&self, mv: C4Move) -> (Cell, Option<Cell>) {
        let h = self.height(mv.col()).min(HEIGHT - 1);
        ((HEIGHT - 1 - h, mv.col()), None)
    }

    fn last_move_cells(&self, mv: C4Move) -> Vec<Cell> {
        let h = self.height(mv.col()).clamp(1, HEIGHT);
        vec![(HEIGHT - h, mv.col())]
    }

    fn decisive_cells(
        &self,
        outcome: Outcome,
        last: Option<C4Move>,
        _history: &[HistoryEntry],
    ) -> Vec<Cell> {
        match (outcome, last) {
            (Outcome::Draw, _) | (_, None) => Vec::new(),
            (_, Some(mv)) => {
                let at = self.last_move_cells(mv)[0];
                let colour = WebGame::cell(self, at);
                rows_through(at, self.dims(), 4, false, |cell| {
                    WebGame::cell(self, cell) == colour
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alphazero_game::Game;
    use alphazero_gomoku::{GomokuConfig, Rule};
    use alphazero_xiangqi::XiangqiConfig;

    #[test]
    fn gomoku_cells_put_the_highest_row_on_top() {
        let mut g = Gomoku::new(&GomokuConfig::new(15, Rule::Freestyle).unwrap());
        let mv = g.parse_move("a1").unwrap();
        g.play(mv).unwrap();
        assert_eq!(g.cell_name((14, 0)), "a1");
        assert_eq!(g.cell_name((0, 14)), "o15");
        assert_eq!(WebGame::cell(&g, (14, 0)), "black");
        assert_eq!(g.last_move_cells(mv), vec![(14, 0)]);
    }

    #[test]
    fn xiangqi_cells_put_black_on_top() {
        let x = Xiangqi::new(&XiangqiConfig::default());
        assert_eq!(x.cell_name((9, 0)), "a0");
        assert_eq!(WebGame::cell(&x, (9, 0)), "R");
        assert_eq!(WebGame::cell(&x, (0, 4)), "k");
        let mv: Move = "h2e2".parse().unwrap();
        assert_eq!(x.move_cells(mv), ((7, 4), Some((7, 7))));
    }

    #[test]
    fn connect4_move_lands_on_the_lowest_free_cell() {
        let c = Connect4::from_moves("44").unwrap();
        assert_eq!(c.move_cells(C4Move(3)), ((3, 3), None));
        assert_eq!(c.last_move_cells(C4Move(3)), vec![(4, 3)]);
        assert_eq!(WebGame::cell(&c, (5, 3)), "red");
        assert_eq!(WebGame::cell(&c, (4, 3)), "yellow");
        assert_eq!(c.cell_name((0, 3)), "4");
    }
}
