//! PNG plots of `metrics.jsonl`: losses, throughput, gating, rating and solver agreement.
//!
//! Drawn with plotters' bitmap backend into a memory buffer and encoded with `png`. Text is
//! set in DejaVu Sans, bundled with this crate (`assets/fonts/DejaVuSans.ttf`, Bitstream Vera
//! licence beside it) and rasterised with `ab_glyph` ([`draw_label`]), so no system font is
//! needed. The legend, with the exact axis ranges, also goes into a sidecar `plots.txt`
//! ([`write_plots`]).
//!
//! Every figure is a column of panels over the same x axis: the iteration, with the games
//! played and the time of training at each labelled iteration written beneath it (three
//! label rows). Each panel has a title, its y description, a legend row above the data area
//! (so that it never covers data), light grey grid lines at labelled y values and (where the
//! range crosses it) a darker line at y = 0. Charts of things a run did not measure are not
//! drawn: no gating and rating figures without gating, no solver figure outside Connect Four.

use std::sync::OnceLock;

use ab_glyph::{point, Font, FontRef, PxScale, ScaleFont};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use crate::metrics::IterationMetrics;
use crate::storage::{Storage, StorageError};

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

/// The bundled DejaVu Sans (Bitstream Vera licence, `assets/fonts/LICENSE-DejaVu.txt`).
static FONT_BYTES: &[u8] = include_bytes!("../assets/fonts/DejaVuSans.ttf");

/// The parsed bundled font.
fn font() -> &'static FontRef<'static> {
    static FONT: OnceLock<FontRef<'static>> = OnceLock::new();
    FONT.get_or_init(|| {
        FontRef::try_from_slice(FONT_BYTES).expect("the bundled DejaVu Sans is a valid font")
    })
}

/// Width and height (ascent + descent) in pixels of `text` set at `px` pixels per em.
pub fn text_size(text: &str, px: f32) -> (i32, i32) {
    let f = font().as_scaled(PxScale::from(px));
    let mut width = 0.0f32;
    let mut prev = None;
    for c in text.chars() {
        let id = f.glyph_id(c);
        if let Some(p) = prev {
            width += f.kern(p, id);
        }
        width += f.h_advance(id);
        prev = Some(id);
    }
    (
        width.ceil() as i32,
        (f.ascent() - f.descent()).ceil() as i32,
    )
}

/// Draws `text` in the bundled font at `px` pixels per em, anti-aliased, placed so that the
/// point `(x, y)` is at its `h` side (left, centre, right) and `v` side (top of the ascent,
/// centre, bottom of the descent).
///
/// # Errors
/// The drawing backend's error.
pub fn draw_label<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    (x, y): (i32, i32),
    px: f32,
    color: RGBColor,
    (h, v): (HPos, VPos),
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let f = font().as_scaled(PxScale::from(px));
    let (w, tall) = text_size(text, px);
    let left = match h {
        HPos::Left => x,
        HPos::Center => x - w / 2,
        HPos::Right => x - w,
    } as f32;
    let top = match v {
        VPos::Top => y,
        VPos::Center => y - tall / 2,
        VPos::Bottom => y - tall,
    } as f32;
    let baseline = top + f.ascent();
    let mut caret = left;
    let mut prev = None;
    for c in text.chars() {
        let id = f.glyph_id(c);
        if let Some(p) = prev {
            caret += f.kern(p, id);
        }
        prev = Some(id);
        let glyph = id.with_scale_and_position(PxScale::from(px), point(caret, baseline));
        caret += f.h_advance(id);
        let Some(outline) = font().outline_glyph(glyph) else {
            continue;
        };
        let b = outline.px_bounds();
        let mut pixels = Vec::new();
        outline.draw(|gx, gy, coverage| {
            if coverage > 0.02 {
                pixels.push((
                    b.min.x as i32 + gx as i32,
                    b.min.y as i32 + gy as i32,
                    coverage.min(1.0),
                ));
            }
        });
        for (px_, py_, a) in pixels {
            area.draw_pixel((px_, py_), &color.mix(f64::from(a)))?;
        }
    }
    Ok(())
}

/// Pixel size of the font for [`draw_text`]'s `scale`: scale 1 is 12 px, 2 is 19 px.
fn size_of_scale(scale: i32) -> f32 {
    5.0 + 7.0 * scale.max(1) as f32
}

/// Width in pixels of `text` drawn at `scale` with [`draw_text`].
pub fn text_width(text: &str, scale: i32) -> i32 {
    text_size(text, size_of_scale(scale)).0
}

/// Draws `text` in the bundled font with its top-left corner at `(x, y)` (pixels); `scale`
/// 1 is the size of tick labels (12 px), 2 of axis titles (19 px).
///
/// # Errors
/// The drawing backend's error.
pub fn draw_text<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    (x, y): (i32, i32),
    scale: i32,
    color: RGBColor,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    draw_label(
        area,
        text,
        (x, y),
        size_of_scale(scale),
        color,
        (HPos::Left, VPos::Top),
    )
}

/// An error drawing or writing plots.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// Drawing failed.
    #[error("cannot draw plot {name}: {message}")]
    Draw {
        /// The plot's file name.
        name: &'static str,
        /// The backend's message.
        message: String,
    },
    /// PNG encoding failed.
    #[error("cannot encode plot {name} as PNG: {source}")]
    Encode {
        /// The plot's file name.
        name: &'static str,
        /// The cause.
        #[source]
        source: png::EncodingError,
    },
    /// Writing or removing a plot object failed.
    #[error("cannot write plot {key}: {source}")]
    Storage {
        /// The object's key, e.g. `plots/losses.png`.
        key: String,
        /// The cause.
        #[source]
        source: StorageError,
    },
}

/// One rendered plot.
#[derive(Clone, Debug, PartialEq)]
pub struct Plot {
    /// File name, e.g. `losses.png`.
    pub name: &'static str,
    /// The PNG file's bytes ([`WIDTH`] wide, 8-bit RGB).
    pub png: Vec<u8>,
    /// Height in pixels.
    pub height: u32,
    /// The legend: one line per panel and series, and the axis ranges.
    pub legend: String,
}

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Style {
    /// Line through the points, with dots.
    Line,
    /// Dots only.
    Dots,
    /// Dots with vertical 95% interval bars (`Series::bars`).
    Bars,
}

struct Series {
    label: String,
    color: RGBColor,
    points: Vec<(f64, f64)>,
    style: Style,
    /// `(x, lo, hi)` interval bars (style [`Style::Bars`]).
    bars: Vec<(f64, f64, f64)>,
}

impl Series {
    fn line(label: &str, color: RGBColor, points: Vec<(f64, f64)>) -> Self {
        Series {
            label: label.to_string(),
            color,
            points,
            style: Style::Line,
            bars: Vec::new(),
        }
    }
}

struct Panel {
    title: String,
    /// The y axis description, e.g. `loss (nats)`.
    y_desc: String,
    series: Vec<Series>,
    /// The y range always includes these values (e.g. 0, or 0 and 100 for percentages).
    y_include: Vec<f64>,
    /// Horizontal reference lines (`value`, label) drawn dashed.
    references: Vec<(f64, String)>,
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

/// The x axis: iterations, with the games played and hours of training after each.
struct XAxis {
    lo: f64,
    hi: f64,
    /// `(iteration, total games, hours)` of the records, by iteration.
    marks: Vec<(f64, f64, f64)>,
}

impl XAxis {
    /// The axis over the iterations of `metrics` and the values `extra` (points of other
    /// sources).
    fn new(metrics: &[IterationMetrics], extra: &[f64]) -> Self {
        let marks: Vec<(f64, f64, f64)> = metrics
            .iter()
            .map(|m| {
                (
                    f64::from(m.iteration),
                    m.total_games as f64,
                    m.elapsed_s / 3600.0,
                )
            })
            .collect();
        let xs = || marks.iter().map(|m| m.0).chain(extra.iter().copied());
        let lo = xs().filter(|x| x.is_finite()).fold(f64::MAX, f64::min);
        let hi = xs().filter(|x| x.is_finite()).fold(f64::MIN, f64::max);
        let (lo, hi) = if lo > hi { (0.0, 1.0) } else { (lo, hi) };
        XAxis {
            lo,
            hi: if hi - lo < 1.0 { lo + 1.0 } else { hi },
            marks,
        }
    }

    /// Games and hours at iteration `x`, interpolated between the records around it.
    fn at(&self, x: f64) -> Option<(f64, f64)> {
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
        let step = grid_step_n(self.lo, self.hi, 8.0)
            .unwrap_or(1.0)
            .max(1.0)
            .round();
        let ticks = grid_lines_with(self.lo, self.hi, Some(step));
        (ticks, step)
    }
}

/// Plot area margins in pixels: left (y tick labels, x label row names), right, and per
/// panel: top (title, y description, legend row), bottom (iteration labels).
const LEFT: i32 = 100;
const RIGHT: i32 = 24;
const PANEL_TOP: i32 = 58;
const PANEL_BOTTOM: i32 = 26;

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

fn render(name: &'static str, title: &str, x: &XAxis, panels: &[Panel]) -> Result<Plot, PlotError> {
    let draw_err = |e: &dyn std::fmt::Display| PlotError::Draw {
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
        "{name}: {title}\n  x: iteration {} .. {} (labels also give the games played and the time of training)\n",
        x.lo, x.hi
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
            draw_label(&root, "iteration", (6, py1 + 4), 12.5, INK, TL).map_err(t)?;
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
            "iteration"
        } else {
            "iteration (with the games played and the time of training beneath)"
        };
        draw_label(
            &root,
            x_desc,
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

/// Encodes an 8-bit RGB buffer of `width` × `height` pixels as PNG.
///
/// # Errors
/// [`PlotError::Encode`] naming `name`.
pub fn encode_png(
    name: &'static str,
    rgb: &[u8],
    width: u32,
    height: u32,
) -> Result<Vec<u8>, PlotError> {
    let mut png_bytes = Vec::new();
    let mut enc = png::Encoder::new(&mut png_bytes, width, height);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let encode_err = |source| PlotError::Encode { name, source };
    let mut w = enc.write_header().map_err(encode_err)?;
    w.write_image_data(rgb).map_err(encode_err)?;
    w.finish().map_err(encode_err)?;
    Ok(png_bytes)
}

const RED_: RGBColor = RGBColor(214, 39, 40);
const BLUE_: RGBColor = RGBColor(31, 119, 180);
const GREEN_: RGBColor = RGBColor(44, 160, 44);
const GREY_: RGBColor = RGBColor(90, 90, 90);
const ORANGE_: RGBColor = RGBColor(255, 127, 14);
const PURPLE_: RGBColor = RGBColor(148, 103, 189);

/// The figures drawn from `metrics`, and the ones left out with the reason.
struct Figures {
    plots: Vec<Plot>,
    /// `(file name, why it is not drawn)`.
    skipped: Vec<(&'static str, &'static str)>,
}

/// A gating match's candidate score in percent with its 95% interval, `(score, lo, hi)`
/// (normal approximation of the per-game score). The spread is taken with one win and one
/// loss added, as the Elo panel does, so that an all-draw or all-win match still shows an
/// interval rather than a bare point.
fn gating_score_percent(g: &crate::metrics::GatingMetrics) -> (f64, f64, f64) {
    let n = f64::from(g.wins + g.draws + g.losses);
    let s = (f64::from(g.wins) + f64::from(g.draws) / 2.0) / n;
    let n2 = n + 2.0;
    let (w, d, l) = (
        (f64::from(g.wins) + 1.0) / n2,
        f64::from(g.draws) / n2,
        (f64::from(g.losses) + 1.0) / n2,
    );
    let s2 = w + d / 2.0;
    let var = w * (1.0 - s2).powi(2) + d * (0.5 - s2).powi(2) + l * s2 * s2;
    let half = 1.96 * (var / n2).sqrt();
    (
        100.0 * s,
        100.0 * (s - half).max(0.0),
        100.0 * (s + half).min(1.0),
    )
}

fn figures(metrics: &[IterationMetrics]) -> Result<Figures, PlotError> {
    let x = XAxis::new(metrics, &[]);
    let it = |m: &IterationMetrics| f64::from(m.iteration);
    let pick = |f: &dyn Fn(&IterationMetrics) -> f64| -> Vec<(f64, f64)> {
        metrics.iter().map(|m| (it(m), f(m))).collect()
    };
    // Losses exist only for iterations that took optimizer steps (a ramp from 0.0 otherwise).
    let pick_trained = |f: &dyn Fn(&IterationMetrics) -> f64| -> Vec<(f64, f64)> {
        metrics
            .iter()
            .filter(|m| m.train_steps > 0)
            .map(|m| (it(m), f(m)))
            .collect()
    };
    let mut plots = Vec::new();
    let mut skipped = Vec::new();
    plots.push(render(
        "losses.png",
        "Training losses",
        &x,
        &[
            Panel {
                title: "Policy".into(),
                y_desc: "nats".into(),
                series: vec![
                    Series::line(
                        "policy loss (cross-entropy)",
                        RED_,
                        pick_trained(&|m| m.policy_loss),
                    ),
                    Series::line(
                        "policy entropy",
                        GREEN_,
                        pick_trained(&|m| m.policy_entropy),
                    ),
                    Series::line(
                        "total loss (policy + value + regularisation)",
                        GREY_,
                        pick_trained(&|m| m.total_loss),
                    ),
                ],
                y_include: vec![0.0],
                references: Vec::new(),
            },
            Panel {
                title: "Value".into(),
                y_desc: "mean squared error".into(),
                series: vec![Series::line(
                    "value loss (MSE)",
                    BLUE_,
                    pick_trained(&|m| m.value_loss),
                )],
                y_include: vec![0.0],
                references: Vec::new(),
            },
            Panel {
                title: "Policy change per iteration".into(),
                y_desc: "nats".into(),
                series: vec![Series::line(
                    "KL(before ‖ after training)",
                    PURPLE_,
                    pick_trained(&|m| m.kl),
                )],
                y_include: vec![0.0],
                references: Vec::new(),
            },
        ],
    )?);
    // The self-play figures exist only where the self-play ran in the process (not a
    // learner's): absent, not 0.
    let pick_some = |f: &dyn Fn(&IterationMetrics) -> Option<f64>| -> Vec<(f64, f64)> {
        metrics
            .iter()
            .filter_map(|m| f(m).map(|v| (it(m), v)))
            .collect()
    };
    let share_some = |part: &dyn Fn(&IterationMetrics) -> Option<f64>| -> Vec<(f64, f64)> {
        metrics
            .iter()
            .filter_map(|m| {
                let p = part(m)?;
                let total = p + m.train_s + m.gating_s;
                (total > 0.0).then(|| (it(m), 100.0 * p / total))
            })
            .collect()
    };
    let share = |part: &dyn Fn(&IterationMetrics) -> f64| -> Vec<(f64, f64)> {
        metrics
            .iter()
            .filter(|m| m.selfplay_s.unwrap_or(0.0) + m.train_s + m.gating_s > 0.0)
            .map(|m| {
                (
                    it(m),
                    100.0 * part(m) / (m.selfplay_s.unwrap_or(0.0) + m.train_s + m.gating_s),
                )
            })
            .collect()
    };
    plots.push(render(
        "throughput.png",
        "Self-play throughput and where the time goes",
        &x,
        &[
            Panel {
                title: "Self-play games per hour".into(),
                y_desc: "games / hour of self-play".into(),
                series: vec![Series::line(
                    "games per hour",
                    BLUE_,
                    pick(&|m| m.selfplay_games_per_hour),
                )],
                y_include: vec![0.0],
                references: Vec::new(),
            },
            Panel {
                title: "Share of time".into(),
                y_desc: "%".into(),
                series: vec![
                    Series::line(
                        "network evaluation, of self-play time",
                        RED_,
                        pick_some(&|m| m.network_time_fraction.map(|f| 100.0 * f)),
                    ),
                    Series::line(
                        "self-play, of the iteration",
                        GREEN_,
                        share_some(&|m| m.selfplay_s),
                    ),
                    Series::line("training, of the iteration", ORANGE_, share(&|m| m.train_s)),
                    Series::line("gating, of the iteration", GREY_, share(&|m| m.gating_s)),
                ],
                y_include: vec![0.0, 100.0],
                references: Vec::new(),
            },
        ],
    )?);

    let gated: Vec<(&IterationMetrics, &crate::metrics::GatingMetrics)> = metrics
        .iter()
        .filter_map(|m| {
            let g = m.gating.as_ref()?;
            (g.wins + g.draws + g.losses > 0).then_some((m, g))
        })
        .collect();
    if gated.is_empty() {
        skipped.push((
            "gating.png",
            "no gating match was played (gating.enabled = false: every iteration's network is the champion)",
        ));
        skipped.push((
            "rating.png",
            "without gating nothing measures the champions against each other (alphazero arena --snapshots RUN rates the networks)",
        ));
    } else {
        let score = gating_score_percent;
        let promoted: Vec<(f64, f64)> = gated
            .iter()
            .filter(|(_, g)| g.promoted)
            .map(|(m, g)| (it(m), score(g).0))
            .collect();
        let with_elo: Vec<_> = gated
            .iter()
            .filter_map(|(m, g)| Some((it(m), g.elo?, g.elo_lo?, g.elo_hi?)))
            .collect();
        plots.push(render(
            "gating.png",
            "Gating: the candidate against the champion",
            &x,
            &[
                Panel {
                    title: "Candidate score".into(),
                    y_desc: "% of the gating games (wins + draws/2), 95% interval".into(),
                    series: vec![
                        Series {
                            label: "score".into(),
                            color: BLUE_,
                            points: gated.iter().map(|(m, g)| (it(m), score(g).0)).collect(),
                            style: Style::Bars,
                            bars: gated
                                .iter()
                                .map(|(m, g)| {
                                    let (_, lo, hi) = score(g);
                                    (it(m), lo, hi)
                                })
                                .collect(),
                        },
                        Series {
                            label: "promoted".into(),
                            color: ORANGE_,
                            points: promoted,
                            style: Style::Dots,
                            bars: Vec::new(),
                        },
                    ],
                    y_include: vec![0.0, 100.0],
                    references: vec![(50.0, "50%".into())],
                },
                Panel {
                    title: "Candidate Elo over the champion".into(),
                    y_desc: "Elo, one win and one loss added; 95% interval".into(),
                    series: vec![Series {
                        label: "Elo of the candidate".into(),
                        color: GREEN_,
                        points: with_elo.iter().map(|e| (e.0, e.1)).collect(),
                        style: Style::Bars,
                        bars: with_elo.iter().map(|e| (e.0, e.2, e.3)).collect(),
                    }],
                    y_include: vec![0.0],
                    references: Vec::new(),
                },
            ],
        )?);
        let rated: Vec<(f64, f64, f64, f64)> = metrics
            .iter()
            .filter_map(|m| Some((it(m), m.elo, m.elo_lo?, m.elo_hi?)))
            .collect();
        plots.push(render(
            "rating.png",
            "Champion Elo (sum of the gating estimates of its promotions)",
            &x,
            &[Panel {
                title: "Champion Elo relative to the first network".into(),
                y_desc: "Elo, 95% interval".into(),
                series: vec![Series {
                    label: "champion Elo".into(),
                    color: BLUE_,
                    points: rated.iter().map(|r| (r.0, r.1)).collect(),
                    style: Style::Bars,
                    bars: rated.iter().map(|r| (r.0, r.2, r.3)).collect(),
                }],
                y_include: vec![0.0],
                references: Vec::new(),
            }],
        )?);
    }

    let solved: Vec<(f64, &crate::metrics::SolverMetrics)> = metrics
        .iter()
        .filter_map(|m| Some((it(m), m.solver.as_ref()?)))
        .collect();
    if solved.is_empty() {
        skipped.push((
            "solver.png",
            "no solver agreement measured (Connect Four with eval.solver_every > 0 only)",
        ));
    } else {
        let n = solved.last().map_or(0, |s| s.1.positions);
        let series = |label: &str, color, f: fn(&crate::metrics::SolverMetrics) -> f64| {
            Series::line(
                label,
                color,
                solved.iter().map(|(x, s)| (*x, 100.0 * f(s))).collect(),
            )
        };
        plots.push(render(
            "solver.png",
            &format!("Agreement with the Connect Four solver ({n} fixed test positions)"),
            &x,
            &[Panel {
                title: "The network alone (no search)".into(),
                y_desc: "% of the positions".into(),
                series: vec![
                    series("policy keeps the result (win/draw/loss)", GREEN_, |s| {
                        s.policy_keeps
                    }),
                    series("policy picks a best move", BLUE_, |s| s.policy_best),
                    series("value has the right sign", RED_, |s| s.value_sign),
                ],
                y_include: vec![0.0, 100.0],
                references: Vec::new(),
            }],
        )?);
    }
    Ok(Figures { plots, skipped })
}

/// Renders the figures of `metrics`: `losses.png` (policy and total loss with the entropy,
/// value loss, KL of the policy per iteration), `throughput.png` (self-play games per hour;
/// the share of self-play time in the network and of the iteration in each phase), and
/// when measured `gating.png` (candidate score and Elo with 95% intervals, promotions),
/// `rating.png` (champion Elo with its interval) and `solver.png` (Connect Four solver
/// agreement).
///
/// # Errors
/// [`PlotError::Draw`], [`PlotError::Encode`].
pub fn render_plots(metrics: &[IterationMetrics]) -> Result<Vec<Plot>, PlotError> {
    Ok(figures(metrics)?.plots)
}

/// One network of a rating ladder ([`render_ladder`]).
#[derive(Clone, Debug, PartialEq)]
pub struct LadderPoint {
    /// The iterations of training behind the network (0 = the initial network).
    pub iteration: f64,
    /// Its Elo relative to the ladder's anchor.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub lo: f64,
    /// Upper end of the 95% interval.
    pub hi: f64,
    /// A champion (promoted network) rather than a snapshot.
    pub champion: bool,
}

/// `ladder.png`: the networks' Elo with 95% intervals over the iterations of training
/// (champions and snapshots in two colours), a dashed line at the anchor's 0 named
/// `anchor`, and, where the run's `metrics` cover them, the games and hours beneath the
/// iterations. Elo values beyond ±4000 are drawn at ±4000.
///
/// # Errors
/// [`PlotError::Draw`], [`PlotError::Encode`].
pub fn render_ladder(
    title: &str,
    anchor: &str,
    points: &[LadderPoint],
    metrics: &[IterationMetrics],
) -> Result<Plot, PlotError> {
    let clamp = |v: f64| v.clamp(-4000.0, 4000.0);
    let xs: Vec<f64> = points.iter().map(|p| p.iteration).collect();
    let x = XAxis::new(metrics, &xs);
    let series = |champion: bool, label: &str, color| Series {
        label: label.to_string(),
        color,
        points: points
            .iter()
            .filter(|p| p.champion == champion)
            .map(|p| (p.iteration, clamp(p.elo)))
            .collect(),
        style: Style::Bars,
        bars: points
            .iter()
            .filter(|p| p.champion == champion)
            .map(|p| (p.iteration, clamp(p.lo), clamp(p.hi)))
            .collect(),
    };
    render(
        "ladder.png",
        title,
        &x,
        &[Panel {
            title: "Network strength over training".into(),
            y_desc: format!("Elo relative to {anchor}, 95% interval"),
            series: vec![
                series(true, "champion", BLUE_),
                series(false, "snapshot", ORANGE_),
            ],
            y_include: vec![0.0],
            references: vec![(0.0, format!("{anchor} = 0"))],
        }],
    )
}

/// The figures [`render_plots`] may draw.
pub const PLOT_NAMES: [&str; 5] = [
    "losses.png",
    "throughput.png",
    "gating.png",
    "rating.png",
    "solver.png",
];

/// Renders the plots of `metrics` and writes them with the legend `plots.txt` into `storage`
/// under `prefix` (e.g. `plots/`); a figure of something not measured is not drawn, and an
/// older object of that name is removed (the legend says why it is missing). Returns the keys
/// written.
///
/// # Errors
/// [`PlotError::Storage`] naming the key, and the errors of [`render_plots`].
pub fn write_plots(
    metrics: &[IterationMetrics],
    storage: &dyn Storage,
    prefix: &str,
) -> Result<Vec<String>, PlotError> {
    let Figures { plots, skipped } = figures(metrics)?;
    let mut written = Vec::new();
    let mut legend = String::new();
    let storage_err = |key: &str| {
        let key = key.to_string();
        move |source| PlotError::Storage { key, source }
    };
    for p in &plots {
        let key = format!("{prefix}{}", p.name);
        storage.put(&key, &p.png).map_err(storage_err(&key))?;
        legend.push_str(&p.legend);
        written.push(key);
    }
    for (name, why) in skipped {
        legend.push_str(&format!("{name}: not drawn: {why}\n"));
        let key = format!("{prefix}{name}");
        if storage.exists(&key).map_err(storage_err(&key))? {
            storage.delete(&key).map_err(storage_err(&key))?;
        }
    }
    let key = format!("{prefix}plots.txt");
    storage
        .put(&key, legend.as_bytes())
        .map_err(storage_err(&key))?;
    written.push(key);
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::example_metrics;
    use crate::storage::MemoryStorage;

    const PNG_MAGIC: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];

    fn pixels(png_bytes: &[u8]) -> (Vec<u8>, u32, u32) {
        let mut reader = png::Decoder::new(std::io::Cursor::new(png_bytes))
            .read_info()
            .unwrap();
        let mut buf = vec![0u8; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        (buf, info.width, info.height)
    }

    fn plot<'a>(plots: &'a [Plot], name: &str) -> &'a Plot {
        plots.iter().find(|p| p.name == name).unwrap()
    }

    #[test]
    fn plots_are_valid_pngs_with_a_legend() {
        let st = MemoryStorage::new();
        let keys = write_plots(&example_metrics(6), &st, "plots/").unwrap();
        let names: Vec<&str> = keys
            .iter()
            .map(|k| k.strip_prefix("plots/").unwrap())
            .collect();
        assert_eq!(names, [&PLOT_NAMES[..], &["plots.txt"]].concat());
        for k in &keys[..5] {
            let bytes = st.get(k).unwrap();
            assert_eq!(bytes[..8], PNG_MAGIC, "{k}");
            let (_, w, h) = pixels(&bytes);
            assert_eq!(w, WIDTH);
            assert!(h >= HEADER + PANEL_HEIGHT + FOOTER, "{k}");
        }
        let legend = String::from_utf8(st.get(&keys[5]).unwrap()).unwrap();
        assert!(legend.contains("losses.png") && legend.contains("policy loss"));
        assert!(legend.contains("rating.png") && legend.contains("gating.png"));
        assert!(legend.contains("games per hour") && legend.contains("network evaluation"));
    }

    #[test]
    fn lines_are_drawn_in_the_series_colours() {
        let plots = render_plots(&example_metrics(5)).unwrap();
        let (buf, _, _) = pixels(&plot(&plots, "losses.png").png);
        let has = |c: RGBColor| buf.chunks(3).any(|p| p == [c.0, c.1, c.2]);
        assert!(has(RED_) && has(BLUE_) && has(GREEN_) && has(PURPLE_));
    }

    #[test]
    fn losses_of_iterations_without_optimizer_steps_are_not_drawn_as_zeros() {
        let mut ms = example_metrics(2);
        for m in &mut ms {
            m.train_steps = 0;
            m.policy_loss = 0.0;
        }
        let plots = render_plots(&ms).unwrap();
        let legend = &plot(&plots, "losses.png").legend;
        assert!(
            legend.contains("policy loss (cross-entropy) (none)"),
            "{legend}"
        );
        assert!(legend.contains("value loss (MSE) (none)"), "{legend}");
        let trained = render_plots(&example_metrics(2)).unwrap();
        assert!(!plot(&trained, "losses.png").legend.contains("(none)"));
    }

    #[test]
    fn all_draw_gating_match_still_has_a_score_interval() {
        let g = crate::metrics::GatingMetrics {
            wins: 0,
            draws: 4,
            losses: 0,
            llr: 0.0,
            promoted: false,
            elo: None,
            elo_lo: None,
            elo_hi: None,
        };
        let (s, lo, hi) = gating_score_percent(&g);
        assert_eq!(s, 50.0);
        assert!(lo < 40.0 && hi > 60.0, "+0=4-0 gave [{lo}, {hi}]");
        let (s, lo, hi) = gating_score_percent(&crate::metrics::GatingMetrics {
            wins: 4,
            draws: 0,
            ..g
        });
        assert_eq!(s, 100.0);
        assert!(lo < 90.0 && hi == 100.0, "+4=0-0 gave [{lo}, {hi}]");
    }

    #[test]
    fn empty_and_single_iteration_metrics_still_plot() {
        assert_eq!(render_plots(&[]).unwrap().len(), 2);
        let one = render_plots(&example_metrics(1)).unwrap();
        assert!(one.iter().all(|p| p.png[..8] == PNG_MAGIC));
    }

    /// Pixels of a colour (text is anti-aliased: dark grey counts as ink) in a rectangle.
    fn ink_in(buf: &[u8], height: u32, (x0, x1, y0, y1): (u32, u32, u32, u32)) -> usize {
        (y0..y1.min(height))
            .flat_map(|y| (x0..x1).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                let i = ((y * WIDTH + x) * 3) as usize;
                buf[i..i + 3].iter().all(|&c| c < 110)
            })
            .count()
    }

    #[test]
    fn plots_carry_text_in_the_margins() {
        let plots = render_plots(&example_metrics(6)).unwrap();
        for p in &plots {
            let (buf, _, h) = pixels(&p.png);
            let top = HEADER + PANEL_TOP as u32;
            assert!(
                ink_in(&buf, h, (0, WIDTH, 0, HEADER)) > 100,
                "{}: no title",
                p.name
            );
            assert!(
                ink_in(&buf, h, (0, LEFT as u32 - 4, top, top + 200)) > 10,
                "{}: no y tick labels",
                p.name
            );
            let bottom = h - FOOTER - PANEL_BOTTOM as u32;
            for (row, what) in [(0, "iterations"), (17, "games"), (34, "hours")] {
                let y = bottom + 4 + row;
                assert!(
                    ink_in(&buf, h, (LEFT as u32, WIDTH, y, y + 15)) > 30,
                    "{}: no x labels in {what}",
                    p.name
                );
            }
            assert!(
                ink_in(&buf, h, (LEFT as u32, WIDTH, h - 22, h)) > 100,
                "{}: no x description",
                p.name
            );
        }
    }

    #[test]
    fn legends_sit_above_the_data_area_and_never_cover_data() {
        // A series whose points fill the whole top of the range: nothing but data and the
        // frame may be drawn inside the data area, so no legend box can be there.
        let mut ms = example_metrics(8);
        for m in &mut ms {
            m.value_loss = 1.0;
        }
        let plots = render_plots(&ms).unwrap();
        let (buf, _, h) = pixels(&plot(&plots, "losses.png").png);
        // The value panel's data area: every dark pixel there is a tick label outside it,
        // so inside it only the blue line, grid and frame colours occur (no legend text).
        let top = HEADER + PANEL_HEIGHT + PANEL_TOP as u32;
        let bottom = HEADER + 2 * PANEL_HEIGHT - PANEL_BOTTOM as u32;
        let inside = (
            LEFT as u32 + 2,
            WIDTH - RIGHT as u32 - 2,
            top + 2,
            bottom - 2,
        );
        assert_eq!(ink_in(&buf, h, inside), 0, "text inside the data area");
        // The legend row above it holds the series' name in ink and its colour swatch.
        let row = (LEFT as u32, WIDTH - RIGHT as u32, top - 32, top - 2);
        assert!(
            ink_in(&buf, h, row) > 50,
            "no legend text above the data area"
        );
        let blue = (row.2..row.3).any(|y| {
            (row.0..row.1).any(|x| {
                let i = ((y * WIDTH + x) * 3) as usize;
                buf[i..i + 3] == [BLUE_.0, BLUE_.1, BLUE_.2]
            })
        });
        assert!(blue, "no colour swatch in the legend row");
    }

    #[test]
    fn text_is_drawn_with_the_bundled_font() {
        // Proportional widths: "W" is wider than "i"; the bitmap font made them equal.
        assert!(text_width("WWWW", 1) > text_width("iiii", 1) + 10);
        assert!(text_width("iteration", 2) > text_width("iteration", 1));
        assert_eq!(text_width("", 1), 0);
        let mut buf = vec![255u8; 200 * 40 * 3];
        {
            let root = BitMapBackend::with_buffer(&mut buf, (200, 40)).into_drawing_area();
            draw_text(&root, "Elo ±95%", (4, 4), 2, RGBColor(0, 0, 0)).unwrap();
            root.present().unwrap();
        }
        // Anti-aliased: grey levels between ink and paper occur.
        let dark = buf.chunks(3).filter(|p| p[0] < 60).count();
        let grey = buf.chunks(3).filter(|p| p[0] > 60 && p[0] < 200).count();
        assert!(dark > 40 && grey > 20, "dark {dark}, grey {grey}");
    }

    #[test]
    fn without_gating_no_gating_or_rating_figure_is_drawn_and_old_ones_go() {
        let mut ms = example_metrics(6);
        for m in &mut ms {
            m.gating = None;
            m.elo = 0.0;
            m.elo_lo = None;
            m.elo_hi = None;
            m.solver = None;
        }
        let st = MemoryStorage::new();
        write_plots(&example_metrics(6), &st, "plots/").unwrap();
        assert!(st.exists("plots/gating.png").unwrap());
        write_plots(&ms, &st, "plots/").unwrap();
        for gone in ["gating.png", "rating.png", "solver.png"] {
            assert!(!st.exists(&format!("plots/{gone}")).unwrap(), "{gone}");
        }
        let legend = String::from_utf8(st.get("plots/plots.txt").unwrap()).unwrap();
        assert!(
            legend.contains("gating.png: not drawn: no gating match was played"),
            "{legend}"
        );
        assert!(legend.contains("rating.png: not drawn"), "{legend}");
        assert!(!legend.contains("+0"), "{legend}");
    }

    #[test]
    fn x_labels_give_games_and_hours_at_each_labelled_iteration() {
        let ms = example_metrics(6);
        let x = XAxis::new(&ms, &[]);
        assert_eq!((x.lo, x.hi), (0.0, 5.0));
        for m in &ms {
            let (games, hours) = x.at(f64::from(m.iteration)).unwrap();
            assert_eq!(games, m.total_games as f64);
            assert!((hours - m.elapsed_s / 3600.0).abs() < 1e-12);
        }
        // Between records: interpolated; before the first: nothing.
        let (g, _) = x.at(2.5).unwrap();
        assert!((g - 350.0).abs() < 1e-9, "{g}");
        assert_eq!(x.at(-1.0), None);
        assert_eq!(format_games(950.0), "950");
        assert_eq!(format_games(12_345.0), "12.3k");
        assert_eq!(format_hours(0.01), "36 s");
        assert_eq!(format_hours(0.25), "15 min");
        assert_eq!(format_hours(3.5), "3.5 h");
        assert_eq!(format_hours(250.0), "250 h");
    }

    #[test]
    fn legend_grid_values_are_rounded_and_a_flat_series_gets_a_readable_range() {
        assert_eq!(format_tick(0.30000000000000004, 0.1), "0.3");
        assert_eq!(format_tick(-0.0, 0.5), "0");
        assert_eq!(format_tick(0.05, 0.05), "0.05");
        assert_eq!(format_tick(200.0, 100.0), "200");
        let plots = render_plots(&example_metrics(6)).unwrap();
        for p in &plots {
            for grid in p.legend.lines().filter(|l| l.contains("grid lines at")) {
                let values = grid.split("grid lines at").nth(1).unwrap();
                for v in values.split_whitespace() {
                    let decimals = v.split('.').nth(1).map_or(0, str::len);
                    assert!(decimals <= 3, "{}: {grid}", p.name);
                }
            }
        }
        let mut flat = example_metrics(4);
        for m in &mut flat {
            m.elo = 0.0;
            m.elo_lo = Some(0.0);
            m.elo_hi = Some(0.0);
        }
        let rating = render_plots(&flat).unwrap();
        let rating = plot(&rating, "rating.png");
        let grid = rating
            .legend
            .lines()
            .find(|l| l.contains("grid lines at"))
            .unwrap();
        assert!(grid.contains("-1.0000 .. 1.0000"), "{grid}");
        assert!(!grid.contains("0.000001"), "{grid}");
    }

    #[test]
    fn ladder_plot_has_a_title_axes_and_both_kinds_of_network() {
        let points: Vec<LadderPoint> = (0..12)
            .map(|i| LadderPoint {
                iteration: f64::from(i),
                elo: 40.0 * f64::from(i),
                lo: 40.0 * f64::from(i) - 50.0,
                hi: if i == 11 {
                    f64::INFINITY
                } else {
                    40.0 * f64::from(i) + 50.0
                },
                champion: i % 3 != 0,
            })
            .collect();
        let p = render_ladder(
            "Rating ladder of runs/x",
            "random",
            &points,
            &example_metrics(12),
        )
        .unwrap();
        assert_eq!(p.name, "ladder.png");
        let (buf, _, h) = pixels(&p.png);
        let has = |c: RGBColor| buf.chunks(3).any(|q| q == [c.0, c.1, c.2]);
        assert!(has(BLUE_) && has(ORANGE_));
        assert!(ink_in(&buf, h, (0, WIDTH, 0, HEADER)) > 100, "no title");
        assert!(p.legend.contains("Elo relative to random"), "{}", p.legend);
        assert!(p.legend.contains("champion") && p.legend.contains("snapshot"));
        // An unbounded interval end is drawn at the clamp, not dropped or overflowing.
        assert!(p.legend.contains(".. 4"), "{}", p.legend);
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
}
