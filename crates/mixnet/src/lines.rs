//! Line codes: what each point sees along each of the four directions.
//!
//! For a point `p` and a direction `d` the line code holds the `2H + 1` cells at offsets
//! `−H..=H` along `d` (`H` = the half-width, 4 by default), 2 bits a cell, the cell at offset
//! `−H` in the lowest bits: [`EMPTY`], [`OWN`] (a stone of the side to move), [`OPP`] or
//! [`WALL`] (off the board). A line read backwards is the same pattern, so a code and its
//! reverse share one table row ([`LineTable::row`]); codes that cannot occur on a board (a
//! wall between two on-board cells, a wall at the centre) have no row.

/// An empty point.
pub const EMPTY: u8 = 0;
/// A stone of the side to move.
pub const OWN: u8 = 1;
/// A stone of the opponent.
pub const OPP: u8 = 2;
/// Off the board.
pub const WALL: u8 = 3;

/// The four line directions `(dx, dy)`: horizontal, vertical, diagonal, anti-diagonal.
pub const DIRECTIONS: [(isize, isize); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// The largest half-width: 11 cells a line, 22 bits a code (Rapfi's Mixnet window).
pub const MAX_HALF_WIDTH: usize = 5;

/// The side of the largest padded grid: a 20×20 board with walls 5 deep on each side.
const GRID_MAX: usize = 20 + 2 * MAX_HALF_WIDTH;

/// Row given to a code that cannot occur.
const NO_ROW: u32 = u32::MAX;

/// The map from raw line codes to table rows for one half-width.
#[derive(Clone, Debug)]
pub struct LineTable {
    half: usize,
    /// `4^(2H+1)` entries: the row of each raw code, [`NO_ROW`] where none.
    index: Vec<u32>,
    rows: usize,
}

impl LineTable {
    /// The table of half-width `half` (`1..=MAX_HALF_WIDTH`): every code a board can show,
    /// a code and its reverse on one row, rows numbered in a fixed order.
    ///
    /// # Panics
    /// When `half` is outside `1..=MAX_HALF_WIDTH` (the file reader checks it first).
    pub fn new(half: usize) -> LineTable {
        assert!(
            (1..=MAX_HALF_WIDTH).contains(&half),
            "line half-width {half} outside 1..={MAX_HALF_WIDTH}"
        );
        let cells = 2 * half + 1;
        let mut index = vec![NO_ROW; 1 << (2 * cells)];
        let mut rows = 0u32;
        // `left`/`right`: on-board cells on each side of the centre; the rest are walls.
        for left in 0..=half {
            for right in 0..=half {
                let free = left + right + 1;
                let first = half - left;
                for mut digits in 0..3usize.pow(free as u32) {
                    let mut code = 0u32;
                    for i in 0..cells {
                        let cell = if i < first || i > half + right {
                            u32::from(WALL)
                        } else {
                            let c = (digits % 3) as u32;
                            digits /= 3;
                            c
                        };
                        code |= cell << (2 * i);
                    }
                    let rev = reverse(code, cells);
                    let canon = code.min(rev) as usize;
                    if index[canon] == NO_ROW {
                        index[canon] = rows;
                        rows += 1;
                    }
                    index[code as usize] = index[canon];
                }
            }
        }
        LineTable {
            half,
            index,
            rows: rows as usize,
        }
    }

    /// The half-width `H` (cells at offsets `−H..=H`).
    pub fn half_width(&self) -> usize {
        self.half
    }

    /// Number of distinct rows (codes that can occur, a code and its reverse counted once).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The row of a raw code, `None` for a code no board shows.
    pub fn row(&self, code: u32) -> Option<usize> {
        match self.index.get(code as usize) {
            Some(&r) if r != NO_ROW => Some(r as usize),
            _ => None,
        }
    }

    /// The rows of every point and direction of an `n × n` board.
    ///
    /// * `cells`: `[n·n]`, point `(x, y)` at `y·n + x`, each [`EMPTY`], [`OWN`] or [`OPP`];
    /// * `out`: `[n·n·4]`, the row of point `p` in direction `d` at `p·4 + d`
    ///   ([`DIRECTIONS`] order), plus `offset` (a colour's table in a two-table file).
    ///
    /// Each line of the board is read once, its codes slid one cell at a time.
    ///
    /// # Panics
    /// When the lengths do not fit `n`, or a cell is not one of the three states.
    pub fn board_rows(&self, n: usize, cells: &[u8], offset: u32, out: &mut [u32]) {
        assert_eq!(cells.len(), n * n, "cells of an {n}×{n} board");
        assert_eq!(out.len(), n * n * 4, "rows of an {n}×{n} board");
        let h = self.half;
        // The board inside a border of walls `h` wide: every cell a line reads is in it.
        let w = n + 2 * h;
        let mut grid = [WALL; (GRID_MAX) * (GRID_MAX)];
        for y in 0..n {
            let row = &cells[y * n..(y + 1) * n];
            for (x, &c) in row.iter().enumerate() {
                assert!(c < WALL, "cell state {c} at ({x}, {y})");
                grid[(y + h) * w + x + h] = c;
            }
        }
        let top = 4 * h as u32;
        for (d, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
            // The step along the line in the padded grid (the anti-diagonal steps up a row).
            let step = dy * w as isize + dx;
            for y0 in 0..n as i32 {
                for x0 in 0..n as i32 {
                    let (px, py) = (x0 - dx as i32, y0 - dy as i32);
                    if px >= 0 && py >= 0 && px < n as i32 && py < n as i32 {
                        continue; // not the first point of its line
                    }
                    let centre = (y0 as usize + h) * w + x0 as usize + h;
                    let mut code = 0u32;
                    for i in 0..=2 * h {
                        let g = (centre as isize + (i as isize - h as isize) * step) as usize;
                        code |= u32::from(grid[g]) << (2 * i);
                    }
                    let (mut x, mut y, mut g) = (x0, y0, centre as isize);
                    loop {
                        let row = self.index[code as usize];
                        debug_assert_ne!(row, NO_ROW, "a board code has a row");
                        out[(y as usize * n + x as usize) * 4 + d] = row + offset;
                        x += dx as i32;
                        y += dy as i32;
                        if x < 0 || y < 0 || x >= n as i32 || y >= n as i32 {
                            break;
                        }
                        g += step;
                        let ahead = (g + h as isize * step) as usize;
                        code = (code >> 2) | (u32::from(grid[ahead]) << top);
                    }
                }
            }
        }
    }
}

/// The code of the same cells read in the other direction.
fn reverse(code: u32, cells: usize) -> u32 {
    let mut rev = 0;
    for i in 0..cells {
        rev |= ((code >> (2 * i)) & 3) << (2 * (cells - 1 - i));
    }
    rev
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The code of one point read cell by cell, the reference for the sliding reader.
    fn slow_code(n: usize, cells: &[u8], half: usize, x: i32, y: i32, d: (isize, isize)) -> u32 {
        let h = half as i32;
        let d = (d.0 as i32, d.1 as i32);
        let mut code = 0;
        for i in 0..=2 * h {
            let (cx, cy) = (x + (i - h) * d.0, y + (i - h) * d.1);
            let c = if cx < 0 || cy < 0 || cx >= n as i32 || cy >= n as i32 {
                WALL
            } else {
                cells[cy as usize * n + cx as usize]
            };
            code |= u32::from(c) << (2 * i);
        }
        code
    }

    #[test]
    fn row_counts_are_the_possible_codes_with_each_reverse_counted_once() {
        // H = 1: left/right each 0 or 1 on-board cell around the centre.
        // 3 + 9 + 9 + 27 = 48 codes; palindromes: 3 (walls both sides) + 9 (xax) = 12.
        // Rows = (48 + 12) / 2 = 30.
        assert_eq!(LineTable::new(1).rows(), 30);
        let t4 = LineTable::new(4);
        // 3 · (1 + 3 + 9 + 27 + 81)² = 43,923 codes; rows about half of them.
        assert!(t4.rows() > 43_923 / 2 && t4.rows() < 43_923 / 2 + 3usize.pow(5));
    }

    #[test]
    fn a_wall_inside_a_line_or_at_its_centre_has_no_row() {
        let t = LineTable::new(2);
        let code = |cells: [u8; 5]| {
            cells
                .iter()
                .enumerate()
                .fold(0u32, |acc, (i, &c)| acc | (u32::from(c) << (2 * i)))
        };
        assert!(t.row(code([WALL, OWN, EMPTY, OPP, WALL])).is_some());
        assert!(t.row(code([OWN, WALL, EMPTY, OPP, EMPTY])).is_none());
        assert!(t.row(code([EMPTY, OWN, WALL, OPP, EMPTY])).is_none());
        assert_eq!(
            t.row(code([OWN, OWN, EMPTY, OPP, WALL])),
            t.row(code([WALL, OPP, EMPTY, OWN, OWN]))
        );
        assert_ne!(
            t.row(code([OWN, OWN, EMPTY, OPP, WALL])),
            t.row(code([OPP, OWN, EMPTY, OPP, WALL]))
        );
    }

    proptest! {
        #[test]
        fn sliding_codes_equal_codes_read_cell_by_cell(
            n in 5usize..=20,
            half in 1usize..=MAX_HALF_WIDTH,
            seed in any::<u64>(),
        ) {
            use rand::{Rng, SeedableRng};
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let cells: Vec<u8> = (0..n * n).map(|_| rng.random_range(0..3u8)).collect();
            let table = LineTable::new(half);
            let mut out = vec![0; n * n * 4];
            table.board_rows(n, &cells, 7, &mut out);
            for y in 0..n {
                for x in 0..n {
                    for (d, &dir) in DIRECTIONS.iter().enumerate() {
                        let code = slow_code(n, &cells, half, x as i32, y as i32, dir);
                        let want = table.row(code).expect("a board code has a row") as u32 + 7;
                        prop_assert_eq!(out[(y * n + x) * 4 + d], want);
                    }
                }
            }
        }
    }
}
