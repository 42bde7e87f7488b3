//! PNG plots of `metrics.jsonl`: losses, gating results and rating over iterations.
//!
//! Drawn with plotters' bitmap backend into a memory buffer and encoded with `png`, with no
//! font dependency: the pictures carry no text. What each line is, and the axis ranges, go
//! into a sidecar legend (`plots.txt`) written beside them ([`write_plots`]).
//!
//! Every plot has the iteration on the x axis, a light grey frame, light grey horizontal grid
//! lines at the y values listed in the legend, and (where the range crosses it) a darker line
//! at y = 0.

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

/// "Nice" grid steps (1, 2 or 5 × 10^k) giving about five lines over `[lo, hi]`.
fn grid_lines(lo: f64, hi: f64) -> Vec<f64> {
    let span = hi - lo;
    if !(span.is_finite() && span > 0.0) {
        return Vec::new();
    }
    let raw = span / 8.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * mag);
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

fn render(
    name: &'static str,
    title: &str,
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
    let pad = ((y1 - y0) * 0.05).max(1e-6);
    let (y0, y1) = (y0 - pad, y1 + pad);
    let grid = grid_lines(y0, y1);

    let mut buf = vec![255u8; (WIDTH * HEIGHT * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| draw_err(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .margin(20)
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

    let mut legend = format!(
        "{name}: {title}\n  x: iteration {x0} .. {x1}\n  y: {y0:.4} .. {y1:.4}; grid lines at"
    );
    for g in &grid {
        legend.push_str(&format!(" {g}"));
    }
    legend.push('\n');
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
        "gating matches: candidate against champion (fractions of games)",
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
        "champion Elo over iterations (relative to the first network)",
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
