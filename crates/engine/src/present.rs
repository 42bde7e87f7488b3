//! How positions and searches are shown: with [`BoardView`], the per-game drawing knowledge
//! (cells, pieces, colours, text heatmaps; the registry's trait, each game's impl in its module
//! of `alphazero_registry`), the board and top-moves text, board PNGs, move lists and principal
//! variations in the game's notations — shared by `play`, `analyze`, `records`, `eval` and
//! `arena`.
use alphazero_charts::{draw_text, encode_png, text_width};
use alphazero_game::{History, Side};
use alphazero_mcts::SearchResult;
pub use alphazero_registry::{BoardView, Rgb, WebGame};
use anyhow::{Context, Result};
use plotters::prelude::*;
use std::fmt::Write as _;
use std::path::Path;

/// Whether stdout gets ANSI colours: it is a terminal and `NO_COLOR` is unset.
pub fn use_color() -> bool {
    use std::io::IsTerminal;
    std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal()
}

/// The board as text, coloured when `color`.
pub fn board_text<G: BoardView>(pos: &G, color: bool) -> String {
    let text = pos.to_string();
    if color {
        G::colorize(&text)
    } else {
        text
    }
}

/// The board text of a game in play, marked where the grid allows
/// ([`BoardView::text_position`]): the last move's cells in brackets (`[X]`), the stones of a
/// finished game's winning row in lower case (`x`, `o`; a renju foul's point too), and the
/// points the side to move may not play (renju: black's forbidden points) as `!`; a line
/// under the board says what the marks used mean. Coloured when `color`.
pub fn board_text_marked<G: BoardView + WebGame>(game: &History<G>, color: bool) -> String {
    let pos = game.current();
    let mut lines: Vec<Vec<char>> = pos
        .to_string()
        .lines()
        .map(|l| l.chars().collect())
        .collect();
    let sizes: Vec<usize> = lines.iter().map(Vec::len).collect();
    let at = |cell: (usize, usize)| {
        pos.text_position(cell)
            .filter(|&(l, c)| l < sizes.len() && c < sizes[l])
    };
    let mut legend = Vec::new();
    let forbidden: Vec<(usize, usize)> = pos
        .forbidden_moves()
        .into_iter()
        .filter_map(|m| at(WebGame::move_cells(pos, m).0))
        .collect();
    for &(l, c) in &forbidden {
        if lines[l][c] == '.' {
            lines[l][c] = '!';
        }
    }
    if !forbidden.is_empty() {
        legend.push("! forbidden for black".to_string());
    }
    let last = game.moves().last().copied();
    if let (Some(o), Some(mv)) = (game.outcome(), last) {
        let mut row = false;
        for (l, c) in pos
            .decisive_cells(o, Some(mv), game.entries())
            .into_iter()
            .filter_map(at)
        {
            if matches!(lines[l][c], 'X' | 'O') {
                lines[l][c] = lines[l][c].to_ascii_lowercase();
                row = true;
            }
        }
        if row {
            legend.push("x/o: the winning row".to_string());
        }
    }
    if let Some(mv) = last {
        let mut marked = false;
        let cells: Vec<(usize, usize)> =
            pos.last_move_cells(mv).into_iter().filter_map(at).collect();
        // A cell at the start of its line (Connect Four's first column) gets its bracket in
        // a column of blanks put before every line.
        let shift = usize::from(cells.iter().any(|&(_, c)| c == 0));
        if shift == 1 {
            for line in lines.iter_mut() {
                line.insert(0, ' ');
            }
        }
        for (l, c) in cells.into_iter().map(|(l, c)| (l, c + shift)) {
            let line = &mut lines[l];
            let open = c > 0 && line[c - 1] == ' ';
            let close = c + 1 == line.len() || line[c + 1] == ' ';
            if open && close {
                line[c - 1] = '[';
                if c + 1 == line.len() {
                    line.push(']');
                } else {
                    line[c + 1] = ']';
                }
                marked = true;
            }
        }
        if marked {
            legend.insert(0, format!("[ ]: the last move, {}", pos_before_words(game)));
        }
    }
    let mut text: String = lines
        .iter()
        .map(|l| l.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join("\n");
    if !legend.is_empty() {
        text.push_str(&format!("\n({})", legend.join("; ")));
    }
    if color {
        G::colorize(&text)
    } else {
        text
    }
}

/// The last move of `game` in words (`h8 (X)` as the position before it writes it).
fn pos_before_words<G: BoardView>(game: &History<G>) -> String {
    let mut before = game.clone();
    match before.undo() {
        Some(mv) => before.current().move_words(mv),
        None => String::new(),
    }
}

/// The top `n` root children of a search result as a table: rank, move, visits, share of the
/// root visits, Q (`-` for a move not visited) and prior (values from the side to move at
/// the root); proven wins first (with their exact Q), proven losses last.
pub fn top_moves_table<G: BoardView>(pos: &G, r: &SearchResult<G>, n: usize) -> String {
    let kids = r.ranked_children();
    let total: u32 = r.children.iter().map(|c| c.visits).sum::<u32>().max(1);
    // The second notation (Xiangqi WXF) is a last column, so the others keep their places.
    let second = if G::SECOND_NOTATION.is_empty() {
        String::new()
    } else {
        format!(" {:<6}", G::SECOND_NOTATION)
    };
    let mut s = format!(
        "{:>4}  {:<8} {:>8} {:>7} {:>7} {:>7}{second}\n",
        "rank", "move", "visits", "share", "Q", "prior"
    );
    for (i, c) in kids.iter().take(n).enumerate() {
        let proven = match c.proven {
            Some(o) => format!("  proven {o:?}"),
            None => String::new(),
        };
        let second = pos
            .second_notation(c.mv)
            .map_or_else(String::new, |t| format!(" {t:<6}"));
        // An unvisited move has no value yet: `-`, not a Q of 0 that reads like a draw.
        let q = if c.visits == 0 && c.proven.is_none() {
            "-".to_string()
        } else {
            format!("{:+.3}", c.q)
        };
        let _ = writeln!(
            s,
            "{:>4}  {:<8} {:>8} {:>6.1}% {q:>7} {:>7.3}{second}{proven}",
            i + 1,
            pos.format_move(c.mv),
            c.visits,
            100.0 * c.visits as f64 / f64::from(total),
            c.prior
        );
    }
    s
}

/// An error of the plotting backend as an `anyhow` error.
fn draw_err(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("drawing: {e}")
}

/// Encodes an RGB buffer of `w × h` pixels as PNG and writes it to `path`.
fn write_png(path: &Path, buf: &[u8], w: u32, h: u32) -> Result<()> {
    let bytes = encode_png("heatmap", buf, w, h)?;
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
}

const CELL: i32 = 40;
/// Height of a line of a board PNG's legend.
const LEGEND_LINE: i32 = 22;

/// `entries` joined by two blanks into lines of at most `width` pixels (drawn at scale 2).
fn legend_lines(entries: &[String], width: i32) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for e in entries {
        match lines.last_mut() {
            Some(l) if text_width(&format!("{l}  {e}"), 2) <= width => {
                l.push_str("  ");
                l.push_str(e);
            }
            _ => lines.push(e.clone()),
        }
    }
    lines
}
const MARGIN: i32 = 30;
/// The colour of a board's lines (cell borders, or the lines of a board of points).
const GRID_INK: RGBColor = RGBColor(120, 100, 70);

/// The shade of a heatmap cell at `t` of the hottest one's heat (0–1; the square root of
/// the share ratio, so that small shares still show).
fn heat_color(t: f32) -> RGBColor {
    RGBColor(
        (235.0 + 20.0 * t) as u8,
        (215.0 * (1.0 - 0.8 * t)) as u8,
        (165.0 * (1.0 - 0.9 * t)) as u8,
    )
}

/// `text` cut at blanks into lines of at most `width` pixels (drawn at scale 2).
fn wrap_words(text: &str, width: i32) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(l) if text_width(&format!("{l} {word}"), 2) <= width => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// Draws the board of `pos` with each cell shaded by `heat` (`(move, share)`, shares in
/// [0, 1]; the hottest cell darkest) under `title` (what was searched: e.g. the side to move
/// and the simulations) and a scale of the shades from 0 to the hottest cell's share of the
/// visits; the pieces as coloured discs with their letters ([`BoardView::piece_letter`]) —
/// in their cells, or on the intersections of a board of points ([`BoardView::point_lines`]:
/// Gomoku's grid, Xiangqi's with its river and palaces), whose heat is centred on each point —
/// under a legend of the sides' colours and the letters, a blue frame on the best move and,
/// for piece moves, lines from origin to destination of the top three; the coordinates
/// ([`BoardView::axis_labels`]) along the bottom and left edges.
///
/// # Errors
/// Drawing, encoding or writing failed.
pub fn draw_heatmap<G: BoardView>(
    pos: &G,
    heat: &[(G::Move, f32)],
    title: &str,
    path: &Path,
) -> Result<()> {
    let (buf, w, h) = heatmap_pixels(pos, heat, title)?;
    write_png(path, &buf, w, h)
}

/// The picture of [`draw_heatmap`]: RGB bytes, row by row, and its width and height.
fn heatmap_pixels<G: BoardView>(
    pos: &G,
    heat: &[(G::Move, f32)],
    title: &str,
) -> Result<(Vec<u8>, u32, u32)> {
    let (rows, cols) = pos.grid();
    let w = (cols as i32 * CELL + 2 * MARGIN) as u32;
    let title_lines = wrap_words(title, w as i32 - 2 * 4);
    // Above the board: the title, the heat scale, the sides, then the piece letters.
    let head = title_lines.len() as i32 + 1;
    let legend = head + 1 + legend_lines(&G::piece_legend(), w as i32 - 2 * 4).len() as i32;
    let top = LEGEND_LINE * legend + 4;
    let h = (rows as i32 * CELL + 2 * MARGIN + top) as u32;
    let mut buf = vec![255u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
        root.fill(&RGBColor(235, 215, 165)).map_err(draw_err)?;
        let mut cell_heat = vec![0.0f32; rows * cols];
        for &(mv, p) in heat {
            let ((r, c), _) = pos.move_cells(mv);
            if r < rows && c < cols {
                cell_heat[r * cols + c] += p;
            }
        }
        let max = cell_heat.iter().copied().fold(0.0f32, f32::max);
        let lines = pos.point_lines();
        let corner = |r: usize, c: usize| {
            // Row 0 is drawn at the bottom, the legend above the top margin.
            let x = MARGIN + c as i32 * CELL;
            let y = top + MARGIN + (rows - 1 - r) as i32 * CELL;
            (x, y)
        };
        let centre = |r: usize, c: usize| {
            let (x, y) = corner(r, c);
            (x + CELL / 2, y + CELL / 2)
        };
        for r in 0..rows {
            for c in 0..cols {
                let (x, y) = corner(r, c);
                let t = if max > 0.0 {
                    (cell_heat[r * cols + c] / max).sqrt()
                } else {
                    0.0
                };
                if t > 0.0 {
                    let col = heat_color(t);
                    root.draw(&Rectangle::new(
                        [(x, y), (x + CELL, y + CELL)],
                        col.filled(),
                    ))
                    .map_err(draw_err)?;
                }
                if lines.is_empty() {
                    root.draw(&Rectangle::new(
                        [(x, y), (x + CELL, y + CELL)],
                        GRID_INK.stroke_width(1),
                    ))
                    .map_err(draw_err)?;
                }
            }
        }
        // A board of points (Gomoku, Xiangqi): its lines through the cells' centres, where
        // the pieces stand, over the heat.
        for [a, b] in &lines {
            root.draw(&PathElement::new(
                vec![centre(a.0, a.1), centre(b.0, b.1)],
                GRID_INK.stroke_width(1),
            ))
            .map_err(draw_err)?;
        }
        let colors = pos.piece_colors().map(|Rgb(r, g, b)| RGBColor(r, g, b));
        for r in 0..rows {
            for c in 0..cols {
                if let Some((side, kind)) = pos.piece(r, c) {
                    let ctr = centre(r, c);
                    root.draw(&Circle::new(
                        ctr,
                        CELL / 2 - 4,
                        colors[side.index()].filled(),
                    ))
                    .map_err(draw_err)?;
                    root.draw(&Circle::new(ctr, CELL / 2 - 4, BLACK.stroke_width(1)))
                        .map_err(draw_err)?;
                    if let Some(letter) = G::piece_letter(kind) {
                        // The piece's letter (as the legend names it), as the web page
                        // writes its name on each piece.
                        let text = letter.to_string();
                        let tw = text_width(&text, 2);
                        draw_text(&root, &text, (ctr.0 - tw / 2, ctr.1 - 9), 2, WHITE)
                            .map_err(draw_err)?;
                    }
                }
            }
        }
        let (col_labels, row_labels) = pos.axis_labels();
        let ink = RGBColor(60, 45, 25);
        for (i, line) in title_lines.iter().enumerate() {
            draw_text(&root, line, (4, 4 + LEGEND_LINE * i as i32), 2, ink).map_err(draw_err)?;
        }
        // The scale: the shades from none to the hottest cell, whose share of the visits
        // ends it.
        let scale_y = 4 + LEGEND_LINE * title_lines.len() as i32;
        let mut x = 4;
        draw_text(&root, "visits 0%", (x, scale_y), 2, ink).map_err(draw_err)?;
        x += text_width("visits 0%", 2) + 6;
        const STEPS: i32 = 8;
        for i in 0..=STEPS {
            let t = i as f32 / STEPS as f32;
            let col = if t > 0.0 {
                heat_color(t)
            } else {
                RGBColor(235, 215, 165)
            };
            root.draw(&Rectangle::new(
                [(x, scale_y + 2), (x + 12, scale_y + LEGEND_LINE - 6)],
                col.filled(),
            ))
            .map_err(draw_err)?;
            root.draw(&Rectangle::new(
                [(x, scale_y + 2), (x + 12, scale_y + LEGEND_LINE - 6)],
                GRID_INK.stroke_width(1),
            ))
            .map_err(draw_err)?;
            x += 12;
        }
        let hottest = format!("{:.0}%", 100.0 * max);
        draw_text(&root, &hottest, (x + 6, scale_y), 2, ink).map_err(draw_err)?;
        // The legend above the board: each side's piece colour and name, then what the
        // piece letters mean.
        let mut x = MARGIN;
        for side in [Side::First, Side::Second] {
            let y = 4 + LEGEND_LINE * head + LEGEND_LINE / 2;
            root.draw(&Circle::new((x + 7, y), 7, colors[side.index()].filled()))
                .map_err(draw_err)?;
            root.draw(&Circle::new((x + 7, y), 7, BLACK.stroke_width(1)))
                .map_err(draw_err)?;
            let name = G::side_name(side);
            draw_text(&root, name, (x + 18, y - 9), 2, ink).map_err(draw_err)?;
            x += 18 + text_width(name, 2) + 16;
        }
        for (i, line) in legend_lines(&G::piece_legend(), w as i32 - 2 * 4)
            .iter()
            .enumerate()
        {
            draw_text(
                &root,
                line,
                (4, 4 + LEGEND_LINE * (head + i as i32 + 1)),
                2,
                ink,
            )
            .map_err(draw_err)?;
        }
        for (c, label) in col_labels.iter().enumerate().take(cols) {
            let (x, _) = centre(0, c);
            let tw = text_width(label, 2);
            draw_text(
                &root,
                label,
                (x - tw / 2, top + MARGIN + rows as i32 * CELL + 7),
                2,
                ink,
            )
            .map_err(draw_err)?;
        }
        for (r, label) in row_labels.iter().enumerate().take(rows) {
            let (_, y) = centre(r, 0);
            let tw = text_width(label, 2);
            draw_text(&root, label, (MARGIN - 5 - tw, y - 7), 2, ink).map_err(draw_err)?;
        }
        let mut sorted = heat.to_vec();
        sorted.sort_by(|a, b| b.1.total_cmp(&a.1));
        for (i, &(mv, p)) in sorted.iter().take(3).enumerate() {
            if p <= 0.0 {
                break;
            }
            let ((r, c), from) = pos.move_cells(mv);
            if let Some((fr, fc)) = from {
                root.draw(&PathElement::new(
                    vec![centre(fr, fc), centre(r, c)],
                    RGBColor(30, 90, 220).stroke_width(if i == 0 { 4 } else { 2 }),
                ))
                .map_err(draw_err)?;
            }
            if i == 0 {
                let (x, y) = corner(r, c);
                root.draw(&Rectangle::new(
                    [(x + 1, y + 1), (x + CELL - 1, y + CELL - 1)],
                    RGBColor(30, 90, 220).stroke_width(3),
                ))
                .map_err(draw_err)?;
            }
        }
        root.present().map_err(draw_err)?;
    }
    Ok((buf, w, h))
}

/// The moves of a game for `play`'s `moves` command: `moves: h2e2 h9g7`, and for games
/// with a second notation a numbered line of it (Xiangqi: `WXF: 1. C2=5 H8+7`); each line ends with a
/// newline.
pub fn moves_lines<G: BoardView>(game: &History<G>) -> String {
    let mut pos = game.start().clone();
    let mut primary = Vec::new();
    let mut second = Vec::new();
    let mut number = 1;
    for &m in game.moves() {
        primary.push(pos.format_move(m));
        if let Some(s) = pos.second_notation(m) {
            match pos.side_to_move() {
                Side::First => second.push(format!("{number}. {s}")),
                Side::Second if second.is_empty() => second.push(format!("{number}... {s}")),
                Side::Second => second.push(s),
            }
        }
        if pos.side_to_move() == Side::Second {
            number += 1;
        }
        pos.play_unchecked(m);
    }
    let mut s = format!("moves: {}\n", primary.join(" "));
    if !second.is_empty() {
        let _ = writeln!(s, "{}: {}", G::SECOND_NOTATION, second.join(" "));
    }
    s
}

/// A principal variation from `pos` in the game's notation, each move written in the
/// position it is played from (WXF depends on the side to move); the second notation, when
/// the game has one, follows in brackets: `h2e2 h9g7 [C2=5 H8+7]`.
pub fn pv_words<G: BoardView>(pos: &G, pv: &[G::Move]) -> Vec<String> {
    let mut p = pos.clone();
    let mut primary = Vec::new();
    let mut second = Vec::new();
    for &m in pv {
        primary.push(p.format_move(m));
        if let Some(s) = p.second_notation(m) {
            second.push(s);
        }
        if !p.is_legal(m) {
            break;
        }
        p.play_unchecked(m);
    }
    if !second.is_empty() {
        primary.push(format!("[{}]", second.join(" ")));
    }
    primary
}

#[cfg(test)]
mod tests {
    use super::*;
    use alphazero_game::Game;
    use alphazero_registry::games::{Xiangqi, XiangqiConfig};

    /// The colour at pixel `(x, y)` of an RGB picture `w` pixels wide.
    fn at(buf: &[u8], w: u32, (x, y): (i32, i32)) -> RGBColor {
        let i = 3 * (y as usize * w as usize + x as usize);
        RGBColor(buf[i], buf[i + 1], buf[i + 2])
    }

    /// Regression: Xiangqi heatmaps drew the board as cells with a piece in each, not the
    /// pieces on the intersections of the ranks and files as a Xiangqi board has them.
    #[test]
    fn xiangqi_heatmap_has_its_pieces_on_the_intersections_of_its_lines() {
        let pos = Xiangqi::new(&XiangqiConfig::default());
        let (buf, w, h) = heatmap_pixels(&pos, &[], "red to move").unwrap();
        let (rows, _) = pos.grid();
        // The board's top-left cell starts at (MARGIN, top): the picture is as high as the
        // board and its margins plus what is above them.
        let top = h as i32 - rows as i32 * CELL - 2 * MARGIN;
        let centre = |r: usize, c: usize| {
            (
                MARGIN + c as i32 * CELL + CELL / 2,
                top + MARGIN + (rows - 1 - r) as i32 * CELL + CELL / 2,
            )
        };
        let board = RGBColor(235, 215, 165);
        // An empty point (c1, on the empty rank 1) is a crossing of two lines; the corner
        // where four cells would meet, between points, is bare board.
        let (x, y) = centre(1, 2);
        assert_eq!(
            at(&buf, w, (x, y)),
            GRID_INK,
            "the point c1 is on the lines"
        );
        assert_eq!(
            at(&buf, w, (x + CELL / 2, y + CELL / 2)),
            board,
            "between points"
        );
        // A piece (red's chariot at a0) is centred on the corner point of the lines: the
        // rank 0 line leaves the disc to the right, the file a line leaves it upwards.
        let (x, y) = centre(0, 0);
        assert_eq!(
            at(&buf, w, (x + CELL / 2 + 3, y)),
            GRID_INK,
            "rank 0 from a0"
        );
        assert_eq!(
            at(&buf, w, (x, y - CELL / 2 - 3)),
            GRID_INK,
            "file a from a0"
        );
        // The river breaks the inner files between ranks 4 and 5, not the edge ones.
        let (x, y) = centre(4, 4);
        assert_eq!(at(&buf, w, (x, y - CELL / 2 - 3)), board, "river on file e");
        let (x, y) = centre(4, 0);
        assert_eq!(
            at(&buf, w, (x, y - CELL / 2 - 3)),
            GRID_INK,
            "file a crosses the river"
        );
    }

    /// Connect Four is played in cells: its picture keeps the cell borders.
    #[test]
    fn connect4_heatmap_keeps_its_cells() {
        use alphazero_registry::games::Connect4;
        let pos = Connect4::new(&Default::default());
        let (buf, w, h) = heatmap_pixels(&pos, &[], "X to move").unwrap();
        let (rows, _) = pos.grid();
        let top = h as i32 - rows as i32 * CELL - 2 * MARGIN;
        // The top-left corner of the bottom-left cell is on its border.
        let corner = (MARGIN, top + MARGIN + (rows as i32 - 1) * CELL);
        assert_eq!(at(&buf, w, corner), GRID_INK);
    }
}
