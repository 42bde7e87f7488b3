//! Figures: a column of [`Panel`]s over one x axis, the iteration ([`XAxis`]), drawn by
//! [`render`] into a [`Plot`].
//!
//! Each panel has a title, its y description, a legend row above the data area (so that it
//! never covers data), light grey grid lines at labelled y values and (where the range crosses
//! it) a darker line at y = 0. Under the last panel each labelled iteration gets the games
//! played and the time of training at it (three label rows), where the axis knows them.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use crate::text::{draw_label, text_size};
use crate::{encode_png, ChartError, Plot};

/// Width of every figure in pixels.
pub const WIDTH: u32 = 1000;
/// Height in pixels of one panel of a figure (a figure of `k` panels is
/// [`HEADER`] + `k` × this + [`FOOTER`] tall).
pub const PANEL_HEIGHT: u32 = 300;
/// Pixels above the first panel (the figure's title).
pub const HEADER: u32 = 44;
/// Pixels below the last panel's data area for the three rows of x labels and the x
/// description.
pub const FOOTER: u32 = 70;

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Style {
    /// Line through the points, with dots.
    Line,
    /// Dots only.
    Dots,
    /// Dots with vertical 95% interval bars (`Series::bars`).
    Bars,
}

/// One series of a panel: its points, drawn in its colour and style, and its name in the
/// panel's legend row.
pub struct Series {
    /// Its name in the legend row and the text legend.
    pub label: String,
    /// Its colour.
    pub color: RGBColor,
    /// `(x, y)` points; points with a non-finite coordinate are not drawn.
    pub points: Vec<(f64, f64)>,
    /// How it is drawn.
    pub style: Style,
    /// `(x, lo, hi)` interval bars (style [`Style::Bars`]).
    pub bars: Vec<(f64, f64, f64)>,
}

impl Series {
    /// A line through `points`, with dots, named `label`.
    pub fn line(label: &str, color: RGBColor, points: Vec<(f64, f64)>) -> Self {
        Series {
            label: label.to_string(),
            color,
            points,
            style: Style::Line,
            bars: Vec::new(),
        }
    }
}

/// One panel of a figure: a data area with its own y axis under a title line and a legend row.
pub struct Panel {
    /// The title, above the data area.
    pub title: String,
    /// The y axis description, e.g. `loss (nats)`.
    pub y_desc: String,
    /// The series, drawn in order (the legend row names them in order, as many as fit).
    pub series: Vec<Series>,
    /// The y range always includes these values (e.g. 0, or 0 and 100 for percentages).
    pub y_include: Vec<f64>,
    /// Horizontal reference lines (`value`, label) drawn dashed.
    pub references: Vec<(f64, String)>,
}

/// The "nice" grid step (1, 2 or 5 × 10^k) giving about `n` lines over `[lo, hi]`; `None`
/// for an empty or non-finite range.
fn grid_step_n(lo: f64, hi: f64, n: f64) -> Option<f64> {
    let span = hi - lo;
    if !(span.is_finite() && span > 0.0) {
        return None;
    }
    let raw = span / n;
    let mag = 10f64.powf(raw.log10().floor());
    Some(
        [1.0, 2.0, 5.0, 10.0]
            .iter()
            .map(|m| m * mag)
            .find(|&s| s >= raw)
            .unwrap_or(10.0 * mag),
    )
}

/// The "nice" grid step (1, 2 or 5 × 10^k) giving about six lines over `[lo, hi]`; `None`
/// for an empty or non-finite range.
fn grid_step(lo: f64, hi: f64) -> Option<f64> {
    grid_step_n(lo, hi, 6.0)
}

/// Round grid values (multiples of `step`) inside `[lo, hi]`.
fn grid_lines_with(lo: f64, hi: f64, step: Option<f64>) -> Vec<f64> {
    let Some(step) = step else {
        return Vec::new();
    };
    let span = hi - lo;
    let first = (lo / step).ceil() as i64;
    let mut out = Vec::new();
    for k in first..first + 40 {
        // Adding 0.0 turns -0.0 into 0.0.
        let v = (k as f64 * step) + 0.0;
        if v > hi + 1e-9 * span {
            break;
        }
        out.push(v);
    }
    out
}

/// Round grid values (multiples of [`grid_step`]) inside `[lo, hi]`.
fn grid_lines(lo: f64, hi: f64) -> Vec<f64> {
    grid_lines_with(lo, hi, grid_step(lo, hi))
}

/// A grid value with as many decimals as the grid step needs (`0.3`, not
/// `0.30000000000000004`; `-0` printed as `0`).
fn format_tick(v: f64, step: f64) -> String {
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10() - 1e-9).ceil().max(0.0) as usize
    };
    let text = format!("{v:.decimals$}");
    if text
        .trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        "0".to_string()
    } else {
        text
    }
}

/// A game count for an x label: `950`, `12.3k`, `1.25M`.
fn format_games(g: f64) -> String {
    if g < 1e4 {
        format!("{g:.0}")
    } else if g < 1e6 {
        format!("{:.1}k", g / 1e3)
    } else {
        format!("{:.2}M", g / 1e6)
    }
}

/// Training time for an x label, given in hours: `40 s`, `12 min`, `3.5 h`, `120 h`.
fn format_hours(h: f64) -> String {
    if h < 1.0 / 60.0 {
        format!("{:.0} s", h * 3600.0)
    } else if h < 1.0 {
        format!("{:.0} min", h * 60.0)
    } else if h < 100.0 {
        format!("{h:.1} h")
    } else {
        format!("{h:.0} h")
    }
}

/// The x axis: iterations (or another measure of training, [`XAxis::measure`]), with the
/// games played and hours of training after each.
#[derive(Clone, Debug, PartialEq)]
pub struct XAxis {
    /// The first value shown.
    pub lo: f64,
    /// The last value shown (at least `lo + 1` on an iteration axis).
    pub hi: f64,
    /// `(x, total games, hours)` of the records, by x.
    pub marks: Vec<(f64, f64, f64)>,
    /// What x is, under the data area and in the legend: `iteration` unless
    /// [`XAxis::measure`] says otherwise.
    pub name: String,
    /// Labels at whole values only (iterations); a measure takes round fractions too.
    pub whole: bool,
}

impl XAxis {
    /// The axis over the iterations of `marks` (`(iteration, total games, hours of
    /// training)`, by iteration) and the values `extra` (points of other sources); `0..1` when
    /// there are none.
    pub fn new(marks: Vec<(f64, f64, f64)>, extra: &[f64]) -> Self {
        let xs = || marks.iter().map(|m| m.0).chain(extra.iter().copied());
        let lo = xs().filter(|x| x.is_finite()).fold(f64::MAX, f64::min);
        let hi = xs().filter(|x| x.is_finite()).fold(f64::MIN, f64::max);
        let (lo, hi) = if lo > hi { (0.0, 1.0) } else { (lo, hi) };
        XAxis {
            lo,
            hi: if hi - lo < 1.0 { lo + 1.0 } else { hi },
            marks,
            name: "iteration".into(),
            whole: true,
        }
    }

    /// The axis over another measure of training than the iteration, named `name` (e.g.
    /// `trainer CPU-hours`): `marks` are `(value, total games, hours)` by value, increasing,
    /// `extra` as in [`XAxis::new`]; labels at round values of any size (0.05, 0.1, …), and
    /// a range of any width above zero (0..1 without values).
    pub fn measure(name: &str, marks: Vec<(f64, f64, f64)>, extra: &[f64]) -> Self {
        let xs = || marks.iter().map(|m| m.0).chain(extra.iter().copied());
        let lo = xs().filter(|x| x.is_finite()).fold(f64::MAX, f64::min);
        let hi = xs().filter(|x| x.is_finite()).fold(f64::MIN, f64::max);
        let (lo, hi) = match (lo, hi) {
            (lo, hi) if lo > hi => (0.0, 1.0),
            // One value: a range around it that still shows it.
            (lo, hi) if hi - lo <= 1e-12 => (lo, lo + lo.abs().max(1e-3)),
            range => range,
        };
        XAxis {
            lo,
            hi,
            marks,
            name: name.into(),
            whole: false,
        }
    }

    /// Games and hours at iteration `x`, interpolated between the marks around it; `None`
    /// outside them.
    pub fn at(&self, x: f64) -> Option<(f64, f64)> {
        let i = self.marks.iter().position(|m| m.0 >= x)?;
        let b = self.marks[i];
        if b.0 == x || i == 0 {
            return (b.0 == x).then_some((b.1, b.2));
        }
        let a = self.marks[i - 1];
        let t = (x - a.0) / (b.0 - a.0);
        Some((a.1 + t * (b.1 - a.1), a.2 + t * (b.2 - a.2)))
    }

    /// Labelled iterations: integer multiples of a round step.
    fn ticks(&self) -> (Vec<f64>, f64) {
        let step = grid_step_n(self.lo, self.hi, 8.0).unwrap_or(1.0);
        let step = if self.whole {
            step.max(1.0).round()
        } else {
            step
        };
        let ticks = grid_lines_with(self.lo, self.hi, Some(step));
        (ticks, step)
    }
}

/// Pixels left of the data areas (y tick labels, the names of the x label rows).
pub const LEFT: i32 = 100;
/// Pixels right of the data areas.
pub const RIGHT: i32 = 24;
/// Pixels of a panel above its data area (title, y description, legend row).
pub const PANEL_TOP: i32 = 58;
/// Pixels of a panel below its data area (iteration labels).
pub const PANEL_BOTTOM: i32 = 26;

const INK: RGBColor = RGBColor(40, 40, 40);
const SOFT: RGBColor = RGBColor(90, 90, 90);
const FRAME: RGBColor = RGBColor(160, 160, 160);
const GRID: RGBColor = RGBColor(225, 225, 225);
const ZERO: RGBColor = RGBColor(120, 120, 120);

/// The data range of a panel: finite points, interval bars and `y_include`, padded by 5%
/// (a flat series gets a readable range around its value).
fn y_range(panel: &Panel) -> (f64, f64) {
    let mut ys: Vec<f64> = panel
        .series
        .iter()
        .flat_map(|s| {
            s.points
                .iter()
                .map(|p| p.1)
                .chain(s.bars.iter().flat_map(|b| [b.1, b.2]))
        })
        .chain(panel.y_include.iter().copied())
        .chain(panel.references.iter().map(|r| r.0))
        .filter(|y| y.is_finite())
        .collect();
    if ys.is_empty() {
        ys = vec![0.0, 1.0];
    }
    let y0 = ys.iter().copied().fold(f64::MAX, f64::min);
    let y1 = ys.iter().copied().fold(f64::MIN, f64::max);
    let pad = if y1 - y0 > 1e-9 {
        (y1 - y0) * 0.05
    } else {
        (y1.abs() * 0.1).max(1.0)
    };
    (y0 - pad, y1 + pad)
}

/// Draws the figure `name` (its file name, e.g. `losses.png`) titled `title`: `panels` one
/// under the other over the axis `x`, [`WIDTH`] wide and [`HEADER`] + [`PANEL_HEIGHT`] per
/// panel + [`FOOTER`] tall, with its text legend (the series and their colours, the axis
/// ranges and grid values).
///
/// # Errors
/// [`ChartError::Draw`], [`ChartError::Encode`].
pub fn render(
    name: &'static str,
    title: &str,
    x: &XAxis,
    panels: &[Panel],
) -> Result<Plot, ChartError> {
    let draw_err = |e: &dyn std::fmt::Display| ChartError::Draw {
        name,
        message: e.to_string(),
    };
    let height = HEADER + PANEL_HEIGHT * panels.len() as u32 + FOOTER;
    // The data area reaches 2% beyond the first and last iteration, so that points and
    // interval bars at the ends are not cut by the frame.
    let pad = 0.02 * (x.hi - x.lo);
    let (vx0, vx1) = (x.lo - pad, x.hi + pad);
    let (x_ticks, x_step) = x.ticks();
    let mut legend = format!(
        "{name}: {title}\n  x: {} {} .. {} (labels also give the games played and the time of training)\n",
        x.name, x.lo, x.hi
    );
    let mut buf = vec![255u8; (WIDTH * height * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| draw_err(&e))?;
        let t = |e: DrawingAreaErrorKind<_>| draw_err(&e);
        const TL: (HPos, VPos) = (HPos::Left, VPos::Top);
        draw_label(&root, title, (LEFT, 10), 21.0, INK, TL).map_err(t)?;
        for (k, panel) in panels.iter().enumerate() {
            let top = HEADER as i32 + k as i32 * PANEL_HEIGHT as i32;
            let (px0, py0) = (LEFT, top + PANEL_TOP);
            let (px1, py1) = (
                WIDTH as i32 - RIGHT,
                top + PANEL_HEIGHT as i32 - PANEL_BOTTOM,
            );
            // Panel title and y description on one line, the legend row under it.
            draw_label(&root, &panel.title, (px0, top + 4), 16.0, INK, TL).map_err(t)?;
            let tw = text_size(&panel.title, 16.0).0;
            let y_desc = format!("y: {}", panel.y_desc);
            draw_label(&root, &y_desc, (px0 + tw + 14, top + 7), 13.0, SOFT, TL).map_err(t)?;
            let mut lx = px0;
            let ly = top + 28;
            for s in panel.series.iter().filter(|s| !s.points.is_empty()) {
                let w = text_size(&s.label, 13.0).0;
                if lx + 22 + w > px1 && lx > px0 {
                    break;
                }
                match s.style {
                    Style::Line => root
                        .draw(&Rectangle::new(
                            [(lx, ly + 6), (lx + 16, ly + 9)],
                            s.color.filled(),
                        ))
                        .map_err(t)?,
                    Style::Dots | Style::Bars => {
                        root.draw(&Circle::new((lx + 8, ly + 7), 4, s.color.filled()))
                            .map_err(t)?;
                        if s.style == Style::Bars {
                            root.draw(&PathElement::new(
                                vec![(lx + 8, ly), (lx + 8, ly + 14)],
                                s.color.stroke_width(1),
                            ))
                            .map_err(t)?;
                        }
                    }
                }
                draw_label(&root, &s.label, (lx + 22, ly), 13.0, INK, TL).map_err(t)?;
                lx += 22 + w + 18;
            }

            let (y0, y1) = y_range(panel);
            let y_step = grid_step(y0, y1).unwrap_or(1.0);
            let grid = grid_lines(y0, y1);
            let area = root
                .clone()
                .shrink((px0, py0), ((px1 - px0) as u32, (py1 - py0) as u32));
            let mut chart = ChartBuilder::on(&area)
                .build_cartesian_2d(vx0..vx1, y0..y1)
                .map_err(|e| draw_err(&e))?;
            for &g in &grid {
                let color = if g.abs() < 1e-12 { ZERO } else { GRID };
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(vx0, g), (vx1, g)],
                        color.stroke_width(1),
                    )))
                    .map_err(|e| draw_err(&e))?;
            }
            for &v in &x_ticks {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(v, y0), (v, y1)],
                        GRID.stroke_width(1),
                    )))
                    .map_err(|e| draw_err(&e))?;
            }
            for (v, text) in &panel.references {
                let dashes: Vec<PathElement<(f64, f64)>> = (0..60)
                    .step_by(2)
                    .map(|i| {
                        let a = vx0 + (vx1 - vx0) * f64::from(i) / 60.0;
                        let b = vx0 + (vx1 - vx0) * f64::from(i + 1) / 60.0;
                        PathElement::new(vec![(a, *v), (b, *v)], ZERO.stroke_width(1))
                    })
                    .collect();
                chart.draw_series(dashes).map_err(|e| draw_err(&e))?;
                let (rx, ry) = chart.backend_coord(&(vx1, *v));
                draw_label(
                    &root,
                    text,
                    (rx - 4, ry - 1),
                    12.0,
                    SOFT,
                    (HPos::Right, VPos::Bottom),
                )
                .map_err(t)?;
            }
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(vx0, y0), (vx1, y1)],
                    FRAME.stroke_width(1),
                )))
                .map_err(|e| draw_err(&e))?;
            for s in &panel.series {
                let pts: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .copied()
                    .filter(|p| p.0.is_finite() && p.1.is_finite())
                    .collect();
                if s.style == Style::Line {
                    chart
                        .draw_series(LineSeries::new(
                            pts.iter().copied(),
                            s.color.stroke_width(2),
                        ))
                        .map_err(|e| draw_err(&e))?;
                }
                for &(bx, lo, hi) in s.bars.iter().filter(|b| b.1.is_finite() && b.2.is_finite()) {
                    chart
                        .draw_series(std::iter::once(PathElement::new(
                            vec![(bx, lo), (bx, hi)],
                            s.color.stroke_width(1),
                        )))
                        .map_err(|e| draw_err(&e))?;
                    for end in [lo, hi] {
                        let (cx, cy) = chart.backend_coord(&(bx, end));
                        root.draw(&PathElement::new(
                            vec![(cx - 3, cy), (cx + 3, cy)],
                            s.color.stroke_width(1),
                        ))
                        .map_err(t)?;
                    }
                }
                let radius = if s.style == Style::Line { 2 } else { 4 };
                chart
                    .draw_series(
                        pts.iter()
                            .map(|&p| Circle::new(p, radius, s.color.filled())),
                    )
                    .map_err(|e| draw_err(&e))?;
            }
            // Tick labels: y on the left, iterations under the data area.
            for &g in &grid {
                let (_, py) = chart.backend_coord(&(vx0, g));
                draw_label(
                    &root,
                    &format_tick(g, y_step),
                    (px0 - 6, py),
                    12.5,
                    INK,
                    (HPos::Right, VPos::Center),
                )
                .map_err(t)?;
            }
            let last = k + 1 == panels.len();
            for &v in &x_ticks {
                let (px, _) = chart.backend_coord(&(v, y0));
                const TC: (HPos, VPos) = (HPos::Center, VPos::Top);
                let label = format_tick(v, x_step);
                draw_label(&root, &label, (px, py1 + 4), 12.5, INK, TC).map_err(t)?;
                if last {
                    if let Some((games, hours)) = x.at(v) {
                        draw_label(&root, &format_games(games), (px, py1 + 21), 12.5, SOFT, TC)
                            .map_err(t)?;
                        draw_label(&root, &format_hours(hours), (px, py1 + 38), 12.5, SOFT, TC)
                            .map_err(t)?;
                    }
                }
            }
            // The names of the label rows, in the left margin clear of the first label.
            // A long measure's name is the x description's alone: the row name must not
            // run into the first label.
            let row_name = if x.name.chars().count() <= 10 {
                x.name.as_str()
            } else {
                "x"
            };
            draw_label(&root, row_name, (6, py1 + 4), 12.5, INK, TL).map_err(t)?;
            if last && !x.marks.is_empty() {
                draw_label(&root, "games", (6, py1 + 21), 12.5, SOFT, TL).map_err(t)?;
                draw_label(&root, "time", (6, py1 + 38), 12.5, SOFT, TL).map_err(t)?;
            }

            let ticks: Vec<String> = grid.iter().map(|&g| format_tick(g, y_step)).collect();
            legend.push_str(&format!(
                "  panel {}: {}\n    y: {} {y0:.4} .. {y1:.4}; grid lines at {}\n",
                k + 1,
                panel.title,
                panel.y_desc,
                ticks.join(" ")
            ));
            for s in &panel.series {
                let RGBColor(r, g, b) = s.color;
                let none = if s.points.is_empty() { " (none)" } else { "" };
                legend.push_str(&format!("    #{r:02x}{g:02x}{b:02x} {}{none}\n", s.label));
            }
        }
        let x_desc = if x.marks.is_empty() {
            x.name.clone()
        } else {
            format!(
                "{} (with the games played and the time of training beneath)",
                x.name
            )
        };
        draw_label(
            &root,
            &x_desc,
            ((LEFT + WIDTH as i32 - RIGHT) / 2, height as i32 - 4),
            14.0,
            INK,
            (HPos::Center, VPos::Bottom),
        )
        .map_err(t)?;
        root.present().map_err(|e| draw_err(&e))?;
    }
    Ok(Plot {
        name,
        png: encode_png(name, &buf, WIDTH, height)?,
        height,
        legend,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG_MAGIC: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];

    /// Marks of iterations 0..n: 100 games and one minute of training each.
    fn marks(n: u32) -> Vec<(f64, f64, f64)> {
        (0..n)
            .map(|i| {
                let f = f64::from(i);
                (f, 100.0 * (f + 1.0), (f + 1.0) / 60.0)
            })
            .collect()
    }

    #[test]
    fn x_labels_give_games_and_hours_at_each_labelled_iteration() {
        let x = XAxis::new(marks(6), &[]);
        assert_eq!((x.lo, x.hi), (0.0, 5.0));
        for &(it, games, hours) in &marks(6) {
            assert_eq!(x.at(it), Some((games, hours)));
        }
        // Between marks: interpolated; before the first: nothing.
        let (g, _) = x.at(2.5).unwrap();
        assert!((g - 350.0).abs() < 1e-9, "{g}");
        assert_eq!(x.at(-1.0), None);
        // Values of other sources widen the axis; no marks at all: 0..1.
        let wide = XAxis::new(marks(3), &[7.0]);
        assert_eq!((wide.lo, wide.hi), (0.0, 7.0));
        let empty = XAxis::new(Vec::new(), &[]);
        assert_eq!((empty.lo, empty.hi), (0.0, 1.0));
        // A measure (CPU-hours) keeps its narrow range and labels it at round fractions.
        let cpu = XAxis::measure("CPU-hours", vec![(0.0, 0.0, 0.0), (0.06, 160.0, 0.12)], &[]);
        assert_eq!((cpu.lo, cpu.hi), (0.0, 0.06));
        let (ticks, step) = cpu.ticks();
        assert!(step < 0.06 && ticks.len() >= 4, "{ticks:?}");
        let (g, h) = cpu.at(0.03).unwrap();
        assert!((g - 80.0).abs() < 1e-9 && (h - 0.06).abs() < 1e-9);
        let one = XAxis::measure("CPU-hours", Vec::new(), &[2.0]);
        assert!(one.lo == 2.0 && one.hi > 2.0);
        assert_eq!(format_games(950.0), "950");
        assert_eq!(format_games(12_345.0), "12.3k");
        assert_eq!(format_hours(0.01), "36 s");
        assert_eq!(format_hours(0.25), "15 min");
        assert_eq!(format_hours(3.5), "3.5 h");
        assert_eq!(format_hours(250.0), "250 h");
    }

    #[test]
    fn grid_values_are_rounded() {
        assert_eq!(format_tick(0.30000000000000004, 0.1), "0.3");
        assert_eq!(format_tick(-0.0, 0.5), "0");
        assert_eq!(format_tick(0.05, 0.05), "0.05");
        assert_eq!(format_tick(200.0, 100.0), "200");
    }

    #[test]
    fn grid_lines_are_round_numbers_inside_the_range() {
        let g = grid_lines(0.0, 1.0);
        assert_eq!(g.len(), 6);
        for (i, v) in g.iter().enumerate() {
            assert!((v - 0.2 * i as f64).abs() < 1e-12, "{g:?}");
        }
        assert!(grid_lines(-0.3, 1.0).iter().all(|v| v.to_string() != "-0"));
        assert!(grid_lines(-3.0, 57.0).contains(&0.0));
        assert!(grid_lines(1.0, 1.0).is_empty());
    }

    #[test]
    fn a_figure_is_a_png_of_its_panels_with_a_legend() {
        let panel = |title: &str| Panel {
            title: title.into(),
            y_desc: "units".into(),
            series: vec![Series::line(
                "a line",
                crate::palette::RED,
                vec![(0.0, 1.0), (1.0, 2.0), (2.0, f64::NAN)],
            )],
            y_include: vec![0.0],
            references: vec![(1.5, "reference".into())],
        };
        let p = render(
            "two.png",
            "Two panels",
            &XAxis::new(marks(3), &[]),
            &[panel("first"), panel("second")],
        )
        .unwrap();
        assert_eq!(p.name, "two.png");
        assert_eq!(p.png[..8], PNG_MAGIC);
        assert_eq!(p.height, HEADER + 2 * PANEL_HEIGHT + FOOTER);
        assert!(
            p.legend.starts_with("two.png: Two panels\n"),
            "{}",
            p.legend
        );
        assert!(p.legend.contains("panel 2: second"), "{}", p.legend);
        assert!(p.legend.contains("#d62728 a line"), "{}", p.legend);
    }
}
