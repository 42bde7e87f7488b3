//! PNG plots of `metrics.jsonl`: losses, gating results and rating over iterations.
//!
//! Drawn with plotters' bitmap backend into a memory buffer and encoded with `png`. plotters
//! is built without a font backend (no system fonts, no TTF parser), so the text on the
//! pictures (title, axis descriptions, tick labels, legend) is drawn with the small built-in
//! 5×7 upper-case bitmap font of this module. The same legend, with the exact axis ranges,
//! also goes into a sidecar `plots.txt` written beside them ([`write_plots`]).
//!
//! Every plot has the iteration on the x axis (labelled ticks), a light grey frame, light grey
//! horizontal grid lines at labelled y values, (where the range crosses it) a darker line at
//! y = 0, and a legend box naming each series in its colour.

use std::fs;
use std::path::{Path, PathBuf};

use plotters::prelude::*;

use crate::metrics::IterationMetrics;

/// Width of every plot in pixels.
pub const WIDTH: u32 = 800;
/// Height of every plot in pixels.
pub const HEIGHT: u32 = 480;

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
    /// Writing a file failed.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// One rendered plot.
#[derive(Clone, Debug, PartialEq)]
pub struct Plot {
    /// File name, e.g. `losses.png`.
    pub name: &'static str,
    /// The PNG file's bytes ([`WIDTH`] × [`HEIGHT`], 8-bit RGB).
    pub png: Vec<u8>,
    /// The legend: one line per series and the axis ranges.
    pub legend: String,
}

struct Series {
    label: &'static str,
    color: RGBColor,
    points: Vec<(f64, f64)>,
    /// Draw dots only, no connecting line.
    dots_only: bool,
}

/// The "nice" grid step (1, 2 or 5 × 10^k) giving about eight lines over `[lo, hi]`; `None`
/// for an empty or non-finite range.
fn grid_step(lo: f64, hi: f64) -> Option<f64> {
    let span = hi - lo;
    if !(span.is_finite() && span > 0.0) {
        return None;
    }
    let raw = span / 8.0;
    let mag = 10f64.powf(raw.log10().floor());
    Some(
        [1.0, 2.0, 5.0, 10.0]
            .iter()
            .map(|m| m * mag)
            .find(|&s| s >= raw)
            .unwrap_or(10.0 * mag),
    )
}

/// Round grid values (multiples of [`grid_step`]) inside `[lo, hi]`.
fn grid_lines(lo: f64, hi: f64) -> Vec<f64> {
    let Some(step) = grid_step(lo, hi) else {
        return Vec::new();
    };
    let span = hi - lo;
    let first = (lo / step).ceil() as i64;
    let mut out = Vec::new();
    for k in first..first + 20 {
        // Adding 0.0 turns -0.0 into 0.0.
        let v = (k as f64 * step) + 0.0;
        if v > hi + 1e-9 * span {
            break;
        }
        out.push(v);
    }
    out
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

/// Rows of a 5×7 glyph, the top row first, bit 4 the leftmost pixel. Lower case is drawn as
/// upper case; a character without a glyph is drawn as a blank.
fn glyph(c: char) -> [u8; 7] {
    match c.to_ascii_uppercase() {
        'A' => [14, 17, 17, 31, 17, 17, 17],
        'B' => [30, 17, 17, 30, 17, 17, 30],
        'C' => [14, 17, 16, 16, 16, 17, 14],
        'D' => [28, 18, 17, 17, 17, 18, 28],
        'E' => [31, 16, 16, 30, 16, 16, 31],
        'F' => [31, 16, 16, 30, 16, 16, 16],
        'G' => [14, 17, 16, 23, 17, 17, 15],
        'H' => [17, 17, 17, 31, 17, 17, 17],
        'I' => [14, 4, 4, 4, 4, 4, 14],
        'J' => [7, 2, 2, 2, 2, 18, 12],
        'K' => [17, 18, 20, 24, 20, 18, 17],
        'L' => [16, 16, 16, 16, 16, 16, 31],
        'M' => [17, 27, 21, 21, 17, 17, 17],
        'N' => [17, 17, 25, 21, 19, 17, 17],
        'O' => [14, 17, 17, 17, 17, 17, 14],
        'P' => [30, 17, 17, 30, 16, 16, 16],
        'Q' => [14, 17, 17, 17, 21, 18, 13],
        'R' => [30, 17, 17, 30, 20, 18, 17],
        'S' => [15, 16, 16, 14, 1, 1, 30],
        'T' => [31, 4, 4, 4, 4, 4, 4],
        'U' => [17, 17, 17, 17, 17, 17, 14],
        'V' => [17, 17, 17, 17, 17, 10, 4],
        'W' => [17, 17, 17, 21, 21, 21, 10],
        'X' => [17, 17, 10, 4, 10, 17, 17],
        'Y' => [17, 17, 17, 10, 4, 4, 4],
        'Z' => [31, 1, 2, 4, 8, 16, 31],
        '0' => [14, 17, 19, 21, 25, 17, 14],
        '1' => [4, 12, 4, 4, 4, 4, 14],
        '2' => [14, 17, 1, 2, 4, 8, 31],
        '3' => [31, 2, 4, 2, 1, 17, 14],
        '4' => [2, 6, 10, 18, 31, 2, 2],
        '5' => [31, 16, 30, 1, 1, 17, 14],
        '6' => [6, 8, 16, 30, 17, 17, 14],
        '7' => [31, 1, 2, 4, 8, 8, 8],
        '8' => [14, 17, 17, 14, 17, 17, 14],
        '9' => [14, 17, 17, 15, 1, 2, 12],
        '.' => [0, 0, 0, 0, 0, 12, 12],
        ',' => [0, 0, 0, 0, 12, 4, 8],
        '-' => [0, 0, 0, 31, 0, 0, 0],
        '+' => [0, 4, 4, 31, 4, 4, 0],
        '(' => [2, 4, 8, 8, 8, 4, 2],
        ')' => [8, 4, 2, 2, 2, 4, 8],
        '/' => [0, 1, 2, 4, 8, 16, 0],
        ':' => [0, 12, 12, 0, 12, 12, 0],
        ';' => [0, 12, 12, 0, 12, 4, 8],
        '=' => [0, 0, 31, 0, 31, 0, 0],
        '%' => [24, 25, 2, 4, 8, 19, 3],
        _ => [0; 7],
    }
}

/// Pixels from one character's left edge to the next at `scale` 1 (5 wide plus 1 gap).
const ADVANCE: i32 = 6;

/// Width in pixels of `text` drawn at `scale` with [`draw_text`].
pub fn text_width(text: &str, scale: i32) -> i32 {
    (text.chars().count() as i32 * ADVANCE - 1).max(0) * scale
}

/// Draws `text` with the built-in 5×7 bitmap font (upper case, digits and common
/// punctuation) with its top-left corner at `(x, y)` (pixels), each font dot a
/// `scale`×`scale` square of pixels; a glyph is `7·scale` pixels tall.
///
/// # Errors
/// The drawing backend's error.
pub fn draw_text<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    text: &str,
    (x, y): (i32, i32),
    scale: i32,
    color: RGBColor,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    for (i, c) in text.chars().enumerate() {
        let left = x + i as i32 * ADVANCE * scale;
        for (row, bits) in glyph(c).iter().enumerate() {
            for col in 0..5 {
                if bits & (16 >> col) != 0 {
                    let (px, py) = (left + col * scale, y + row as i32 * scale);
                    for dy in 0..scale {
                        for dx in 0..scale {
                            area.draw_pixel((px + dx, py + dy), &color)?;
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// What the axes of a plot show.
struct Axes {
    /// The y axis description, e.g. `loss (nats)`.
    y: &'static str,
}

/// Plot area margins in pixels: left (y tick labels), right, top (title, y description),
/// bottom (x tick labels, x description).
const MARGIN: (u32, u32, u32, u32) = (70, 20, 44, 46);

fn render(
    name: &'static str,
    title: &str,
    axes: Axes,
    series: &[Series],
    y_floor: Option<f64>,
) -> Result<Plot, PlotError> {
    let draw_err = |e: &dyn std::fmt::Display| PlotError::Draw {
        name,
        message: e.to_string(),
    };
    let finite = series
        .iter()
        .flat_map(|s| s.points.iter())
        .filter(|p| p.0.is_finite() && p.1.is_finite());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in finite {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if let Some(f) = y_floor {
        y0 = y0.min(f);
    }
    if x1 - x0 < 1.0 {
        x1 = x0 + 1.0;
    }
    // A flat series (e.g. an Elo that never moved) gets a readable range around its value
    // rather than a microscopic one.
    let pad = if y1 - y0 > 1e-9 {
        (y1 - y0) * 0.05
    } else {
        (y1.abs() * 0.1).max(1.0)
    };
    let (y0, y1) = (y0 - pad, y1 + pad);
    let grid = grid_lines(y0, y1);
    let y_step = grid_step(y0, y1).unwrap_or(1.0);
    // Integer iterations on the x axis.
    let x_step = grid_step(x0, x1).unwrap_or(1.0).max(1.0).round();
    let x_ticks: Vec<f64> = grid_lines(x0, x1)
        .into_iter()
        .filter(|v| (v / x_step).fract().abs() < 1e-9)
        .collect();

    let text = RGBColor(40, 40, 40);
    let mut buf = vec![255u8; (WIDTH * HEIGHT * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| draw_err(&e))?;
        let (left, right, top, bottom) = MARGIN;
        let mut chart = ChartBuilder::on(&root)
            .margin_left(left)
            .margin_right(right)
            .margin_top(top)
            .margin_bottom(bottom)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| draw_err(&e))?;
        let light = RGBColor(220, 220, 220);
        for &g in &grid {
            let color = if g.abs() < 1e-12 {
                RGBColor(120, 120, 120)
            } else {
                light
            };
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x0, g), (x1, g)],
                    color.stroke_width(1),
                )))
                .map_err(|e| draw_err(&e))?;
        }
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(x0, y0), (x1, y1)],
                RGBColor(160, 160, 160).stroke_width(1),
            )))
            .map_err(|e| draw_err(&e))?;
        for s in series {
            let pts: Vec<(f64, f64)> = s
                .points
                .iter()
                .copied()
                .filter(|p| p.0.is_finite() && p.1.is_finite())
                .collect();
            if !s.dots_only {
                chart
                    .draw_series(LineSeries::new(
                        pts.iter().copied(),
                        s.color.stroke_width(2),
                    ))
                    .map_err(|e| draw_err(&e))?;
            }
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 3, s.color.filled())))
                .map_err(|e| draw_err(&e))?;
        }

        // Text: title, axis descriptions, tick labels, legend.
        let t = |r| draw_err(&r);
        draw_text(&root, title, (left as i32, 8), 2, text).map_err(t)?;
        draw_text(&root, axes.y, (8, top as i32 - 14), 1, text).map_err(t)?;
        for &g in &grid {
            let label = format_tick(g, y_step);
            let (_, py) = chart.backend_coord(&(x0, g));
            let w = text_width(&label, 1);
            draw_text(&root, &label, (left as i32 - 6 - w, py - 3), 1, text).map_err(t)?;
        }
        let (_, plot_bottom) = chart.backend_coord(&(x0, y0));
        for &v in &x_ticks {
            let label = format_tick(v, x_step);
            let (px, _) = chart.backend_coord(&(v, y0));
            let w = text_width(&label, 1);
            draw_text(&root, &label, (px - w / 2, plot_bottom + 6), 1, text).map_err(t)?;
        }
        let x_desc = "iteration";
        draw_text(
            &root,
            x_desc,
            (
                (left as i32 + WIDTH as i32 - right as i32 - text_width(x_desc, 2)) / 2,
                HEIGHT as i32 - 18,
            ),
            2,
            text,
        )
        .map_err(t)?;
        // Legend box in the top right corner of the plot area.
        let widest = series
            .iter()
            .map(|s| text_width(s.label, 1))
            .max()
            .unwrap_or(0);
        let (box_w, box_h) = (widest + 28, series.len() as i32 * 12 + 8);
        let (bx, by) = (WIDTH as i32 - right as i32 - box_w - 6, top as i32 + 6);
        root.draw(&Rectangle::new(
            [(bx, by), (bx + box_w, by + box_h)],
            WHITE.filled(),
        ))
        .map_err(t)?;
        root.draw(&Rectangle::new(
            [(bx, by), (bx + box_w, by + box_h)],
            RGBColor(160, 160, 160).stroke_width(1),
        ))
        .map_err(t)?;
        for (i, s) in series.iter().enumerate() {
            let y = by + 5 + i as i32 * 12;
            root.draw(&Rectangle::new(
                [(bx + 5, y + 1), (bx + 17, y + 5)],
                s.color.filled(),
            ))
            .map_err(t)?;
            draw_text(&root, s.label, (bx + 22, y), 1, text).map_err(t)?;
        }
        root.present().map_err(|e| draw_err(&e))?;
    }

    let mut png_bytes = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut png_bytes, WIDTH, HEIGHT);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let encode_err = |source| PlotError::Encode { name, source };
        let mut w = enc.write_header().map_err(encode_err)?;
        w.write_image_data(&buf).map_err(encode_err)?;
        w.finish().map_err(encode_err)?;
    }

    let ticks: Vec<String> = grid.iter().map(|&g| format_tick(g, y_step)).collect();
    let mut legend = format!(
        "{name}: {title}\n  x: iteration {x0} .. {x1}\n  y: {} {y0:.4} .. {y1:.4}; grid lines at {}\n",
        axes.y,
        ticks.join(" ")
    );
    for s in series {
        let RGBColor(r, g, b) = s.color;
        legend.push_str(&format!("  #{r:02x}{g:02x}{b:02x} {}\n", s.label));
    }
    Ok(Plot {
        name,
        png: png_bytes,
        legend,
    })
}

const RED_: RGBColor = RGBColor(214, 39, 40);
const BLUE_: RGBColor = RGBColor(31, 119, 180);
const GREEN_: RGBColor = RGBColor(44, 160, 44);
const GREY_: RGBColor = RGBColor(90, 90, 90);
const ORANGE_: RGBColor = RGBColor(255, 127, 14);

/// Renders `losses.png` (policy, value and total loss; policy entropy), `gating.png` (the
/// candidate's score per gating match, its win and loss fractions, and the promotion
/// dots at 1.0 for promoted candidates) and `rating.png` (champion Elo).
///
/// # Errors
/// [`PlotError::Draw`], [`PlotError::Encode`].
pub fn render_plots(metrics: &[IterationMetrics]) -> Result<Vec<Plot>, PlotError> {
    let it = |m: &IterationMetrics| f64::from(m.iteration);
    let pick = |f: fn(&IterationMetrics) -> f64| -> Vec<(f64, f64)> {
        metrics.iter().map(|m| (it(m), f(m))).collect()
    };
    let losses = render(
        "losses.png",
        "training losses per iteration",
        Axes {
            y: "loss / entropy (nats; value loss: MSE)",
        },
        &[
            Series {
                label: "policy loss (cross-entropy, nats)",
                color: RED_,
                points: pick(|m| m.policy_loss),
                dots_only: false,
            },
            Series {
                label: "value loss (MSE)",
                color: BLUE_,
                points: pick(|m| m.value_loss),
                dots_only: false,
            },
            Series {
                label: "total loss",
                color: GREY_,
                points: pick(|m| m.total_loss),
                dots_only: false,
            },
            Series {
                label: "policy entropy (nats)",
                color: GREEN_,
                points: pick(|m| m.policy_entropy),
                dots_only: false,
            },
        ],
        Some(0.0),
    )?;
    let gated: Vec<(f64, f64, f64, f64, bool)> = metrics
        .iter()
        .filter_map(|m| {
            let g = m.gating.as_ref()?;
            let n = f64::from(g.wins + g.draws + g.losses);
            (n > 0.0).then(|| {
                let (w, d, l) = (f64::from(g.wins), f64::from(g.draws), f64::from(g.losses));
                (it(m), (w + 0.5 * d) / n, w / n, l / n, g.promoted)
            })
        })
        .collect();
    let gating = render(
        "gating.png",
        "gating: candidate against champion",
        Axes {
            y: "fraction of the gating games",
        },
        &[
            Series {
                label: "candidate score (wins + draws/2)",
                color: GREY_,
                points: gated.iter().map(|g| (g.0, g.1)).collect(),
                dots_only: false,
            },
            Series {
                label: "win fraction",
                color: GREEN_,
                points: gated.iter().map(|g| (g.0, g.2)).collect(),
                dots_only: false,
            },
            Series {
                label: "loss fraction",
                color: RED_,
                points: gated.iter().map(|g| (g.0, g.3)).collect(),
                dots_only: false,
            },
            Series {
                label: "promoted (dots at 1.0)",
                color: ORANGE_,
                points: gated.iter().filter(|g| g.4).map(|g| (g.0, 1.0)).collect(),
                dots_only: true,
            },
        ],
        Some(0.0),
    )?;
    let rating = render(
        "rating.png",
        "champion Elo over iterations",
        Axes {
            y: "Elo (relative to the first network)",
        },
        &[Series {
            label: "champion Elo",
            color: BLUE_,
            points: pick(|m| m.elo),
            dots_only: false,
        }],
        None,
    )?;
    Ok(vec![losses, gating, rating])
}

/// Renders the plots of `metrics` and writes `losses.png`, `gating.png`, `rating.png` and
/// the legend `plots.txt` into `dir` (created if missing). Returns the paths written.
///
/// # Errors
/// [`PlotError::Io`] naming the path, and the errors of [`render_plots`].
pub fn write_plots(metrics: &[IterationMetrics], dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
    fs::create_dir_all(dir).map_err(|source| PlotError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let plots = render_plots(metrics)?;
    let mut written = Vec::new();
    let mut legend = String::new();
    for p in &plots {
        let path = dir.join(p.name);
        fs::write(&path, &p.png).map_err(|source| PlotError::Io {
            path: path.clone(),
            source,
        })?;
        legend.push_str(&p.legend);
        written.push(path);
    }
    let path = dir.join("plots.txt");
    fs::write(&path, legend).map_err(|source| PlotError::Io {
        path: path.clone(),
        source,
    })?;
    written.push(path);
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::example_metrics;

    const PNG_MAGIC: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];

    #[test]
    fn plots_are_valid_pngs_with_a_legend() {
        let dir = tempfile::tempdir().unwrap();
        let paths = write_plots(&example_metrics(6), &dir.path().join("plots")).unwrap();
        assert_eq!(paths.len(), 4);
        for p in &paths[..3] {
            let bytes = fs::read(p).unwrap();
            assert_eq!(bytes[..8], PNG_MAGIC, "{}", p.display());
            let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
            let reader = decoder.read_info().unwrap();
            assert_eq!((reader.info().width, reader.info().height), (WIDTH, HEIGHT));
        }
        let legend = fs::read_to_string(&paths[3]).unwrap();
        assert!(legend.contains("losses.png") && legend.contains("policy loss"));
        assert!(legend.contains("rating.png") && legend.contains("gating.png"));
    }

    #[test]
    fn lines_are_drawn_in_the_series_colours() {
        let plots = render_plots(&example_metrics(5)).unwrap();
        let losses = &plots[0];
        let mut reader = png::Decoder::new(std::io::Cursor::new(&losses.png))
            .read_info()
            .unwrap();
        let mut buf = vec![0u8; reader.output_buffer_size().unwrap()];
        reader.next_frame(&mut buf).unwrap();
        let has = |c: RGBColor| buf.chunks(3).any(|p| p == [c.0, c.1, c.2]);
        assert!(has(RED_) && has(BLUE_) && has(GREEN_));
    }

    #[test]
    fn empty_and_single_iteration_metrics_still_plot() {
        assert_eq!(render_plots(&[]).unwrap().len(), 3);
        let one = render_plots(&example_metrics(1)).unwrap();
        assert!(one.iter().all(|p| p.png[..8] == PNG_MAGIC));
    }

    fn pixels(png_bytes: &[u8]) -> Vec<u8> {
        let mut reader = png::Decoder::new(std::io::Cursor::new(png_bytes))
            .read_info()
            .unwrap();
        let mut buf = vec![0u8; reader.output_buffer_size().unwrap()];
        reader.next_frame(&mut buf).unwrap();
        buf
    }

    #[test]
    fn plots_carry_text_in_the_margins_and_a_legend_box() {
        let plots = render_plots(&example_metrics(6)).unwrap();
        for p in &plots {
            let buf = pixels(&p.png);
            let dark_in = |x0: u32, x1: u32, y0: u32, y1: u32| {
                (y0..y1).any(|y| {
                    (x0..x1).any(|x| {
                        let i = ((y * WIDTH + x) * 3) as usize;
                        buf[i..i + 3] == [40, 40, 40]
                    })
                })
            };
            let (left, _, top, bottom) = MARGIN;
            assert!(dark_in(0, WIDTH, 0, top - 16), "{}: no title", p.name);
            assert!(
                dark_in(0, left - 4, top, HEIGHT - bottom),
                "{}: no y ticks",
                p.name
            );
            assert!(
                dark_in(left, WIDTH, HEIGHT - bottom + 4, HEIGHT - 22),
                "{}: no x ticks",
                p.name
            );
            assert!(
                dark_in(left, WIDTH, HEIGHT - 18, HEIGHT),
                "{}: no x description",
                p.name
            );
        }
    }

    #[test]
    fn every_drawn_character_has_a_glyph() {
        let plots = render_plots(&example_metrics(3)).unwrap();
        let mut texts: Vec<String> = vec!["iteration".into()];
        for p in &plots {
            texts.extend(p.legend.lines().map(str::to_string));
        }
        for t in texts {
            for c in t.chars().filter(|c| !c.is_whitespace() && *c != '#') {
                assert_ne!(glyph(c), [0; 7], "{c:?} in {t:?}");
            }
        }
    }

    #[test]
    fn legend_grid_values_are_rounded_and_a_flat_series_gets_a_readable_range() {
        assert_eq!(format_tick(0.30000000000000004, 0.1), "0.3");
        assert_eq!(format_tick(-0.0, 0.5), "0");
        assert_eq!(format_tick(0.05, 0.05), "0.05");
        assert_eq!(format_tick(200.0, 100.0), "200");
        let plots = render_plots(&example_metrics(6)).unwrap();
        for p in &plots {
            let grid = p.legend.lines().nth(2).unwrap();
            let values = grid.split("grid lines at").nth(1).unwrap();
            for v in values.split_whitespace() {
                let decimals = v.split('.').nth(1).map_or(0, str::len);
                assert!(decimals <= 3, "{}: {grid}", p.name);
            }
        }
        let mut flat = example_metrics(4);
        for m in &mut flat {
            m.elo = 0.0;
        }
        let rating = &render_plots(&flat).unwrap()[2];
        let grid = rating.legend.lines().nth(2).unwrap();
        assert!(grid.contains("-1.0000 .. 1.0000"), "{grid}");
        assert!(!grid.contains("0.000001"), "{grid}");
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
