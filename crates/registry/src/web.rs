//! What the web page (`alphazero-web`) needs to know about a game: board cells as strings,
//! the board point of every notation, where a move's search visits are drawn, colour names.
//! Each game's impl is in its own module.
//!
//! Board coordinates `(r, c)` are as drawn on the page: row 0 is the **top** row, column 0 the
//! left column. Gomoku draws its highest row (y = size − 1) on top, Xiangqi Black's back rank
//! (rank 9) on top, Connect Four its top row (row 5) on top.

use alphazero_game::{Game, HistoryEntry, Outcome, Side};

use crate::Registered;

/// A board point as drawn: `(row from the top, column from the left)`.
pub type Cell = (usize, usize);

/// Why a game cannot start from a request ([`WebGame::start`]).
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// A FEN was given for a game that reads none.
    #[error("fen applies to xiangqi only")]
    FenNotRead,
    /// The FEN does not parse or is not a legal position (the game's own message).
    #[error("fen: {0}")]
    BadFen(String),
}

/// A game as the web page shows it.
pub trait WebGame: Game + Registered {
    /// The start position of a new game under `config`: the request's `fen` where the game
    /// reads one (Xiangqi), else the standard start.
    ///
    /// # Errors
    /// [`StartError`]: a FEN that does not parse, or a FEN for a game that reads none.
    fn start(config: &Self::Config, fen: Option<&str>) -> Result<Self, StartError> {
        if fen.is_some() {
            return Err(StartError::FenNotRead);
        }
        Ok(Self::new(config))
    }

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

    /// Whether the page also shows a move's visits summed per board column (a game whose moves
    /// are columns: Connect Four).
    fn column_heat() -> bool {
        false
    }

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
pub(crate) fn rows_through(
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

#[cfg(test)]
mod tests {
    use super::*;
    use alphazero_connect4::{C4Move, Connect4};
    use alphazero_gomoku::{Gomoku, GomokuConfig, Rule};
    use alphazero_xiangqi::{Move, Xiangqi, XiangqiConfig};

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
