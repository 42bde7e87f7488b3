//! PNG plots of `metrics.jsonl`: losses, throughput, gating, rating and solver agreement.
//!
//! Drawn with the project's chart kit (`alphazero_charts`): every figure is a column of panels
//! over the same x axis, the iteration, with the games played and the time of training at
//! each labelled iteration written beneath it ([`iteration_axis`]). The legend, with the exact
//! axis ranges, also goes into a sidecar `plots.txt` ([`write_plots`]). Charts of things a run
//! did not measure are not drawn: no gating and rating figures without gating, no solver
//! figure outside Connect Four.

use alphazero_charts::palette::{BLUE, GREEN, GREY, ORANGE, PURPLE, RED};
use alphazero_charts::{render, ChartError, Panel, Series, Style, XAxis};

pub use alphazero_charts::Plot;

use crate::metrics::{IterationMetrics, SOLVER_CHANCE, SOLVER_SHIPPED};
use crate::storage::{Storage, StorageError};

/// An error drawing or writing plots.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// Drawing or encoding a figure failed.
    #[error(transparent)]
    Chart(#[from] ChartError),
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

/// The x axis of a run's figures: the iterations of `metrics` (each with the games played and
/// the hours of training at its end) and the values `extra` (points of other sources, e.g.
/// the networks of a rating ladder).
pub fn iteration_axis(metrics: &[IterationMetrics], extra: &[f64]) -> XAxis {
    let marks = metrics
        .iter()
        .map(|m| {
            (
                f64::from(m.iteration),
                m.total_games as f64,
                m.elapsed_s / 3600.0,
            )
        })
        .collect();
    XAxis::new(marks, extra)
}

/// The x axis of a rating ladder over a run's networks, where `x = k` is the network trained
/// by `k` iterations (0 = the initial one): the games played and hours of training beneath each
/// labelled network are those behind it ([`IterationMetrics::network_iterations`]), the
/// initial network's none; [`iteration_axis`] would label each network with one iteration too
/// many. `extra` as there.
pub fn network_axis(metrics: &[IterationMetrics], extra: &[f64]) -> XAxis {
    let marks = if metrics.is_empty() {
        Vec::new()
    } else {
        std::iter::once((0.0, 0.0, 0.0))
            .chain(metrics.iter().map(|m| {
                (
                    f64::from(m.network_iterations()),
                    m.total_games as f64,
                    m.elapsed_s / 3600.0,
                )
            }))
            .collect()
    };
    XAxis::new(marks, extra)
}

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
    let x = iteration_axis(metrics, &[]);
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
                // The policy loss is drawn last, over the others: it is the policy's entropy
                // plus its distance from the search's π, so the two lines meet whenever the
                // network matches the search, and the entropy (dots only) must not hide it.
                series: vec![
                    Series {
                        style: Style::Dots,
                        ..Series::line(
                            "policy entropy (dots)",
                            GREEN,
                            pick_trained(&|m| m.policy_entropy),
                        )
                    },
                    Series::line(
                        "total loss (policy + value + regularisation)",
                        GREY,
                        pick_trained(&|m| m.total_loss),
                    ),
                    Series::line(
                        "policy loss (cross-entropy)",
                        RED,
                        pick_trained(&|m| m.policy_loss),
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
                    BLUE,
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
                    PURPLE,
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
                    BLUE,
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
                        RED,
                        pick_some(&|m| m.network_time_fraction.map(|f| 100.0 * f)),
                    ),
                    Series::line(
                        "self-play, of the iteration",
                        GREEN,
                        share_some(&|m| m.selfplay_s),
                    ),
                    Series::line("training, of the iteration", ORANGE, share(&|m| m.train_s)),
                    Series::line("gating, of the iteration", GREY, share(&|m| m.gating_s)),
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
                            color: BLUE,
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
                            color: ORANGE,
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
                        color: GREEN,
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
                    color: BLUE,
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
                    series("policy keeps the result (win/draw/loss)", GREEN, |s| {
                        s.policy_keeps
                    }),
                    series("policy picks a best move", BLUE, |s| s.policy_best),
                    series("value has the right sign", RED, |s| s.value_sign),
                ],
                y_include: vec![0.0, 100.0],
                // For scale: what a network that knows nothing scores (a random legal move,
                // a value of random sign) and what the shipped network scores, on the same
                // positions.
                references: {
                    let (c, s) = (&SOLVER_CHANCE, &SOLVER_SHIPPED);
                    vec![
                        (100.0 * s.policy_best, "shipped connect4.azc: best".into()),
                        (100.0 * s.value_sign, "shipped: sign".into()),
                        (100.0 * c.value_sign, "chance: sign".into()),
                        (100.0 * c.policy_best, "chance: best".into()),
                    ]
                },
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
/// [`PlotError::Chart`].
pub fn render_plots(metrics: &[IterationMetrics]) -> Result<Vec<Plot>, PlotError> {
    Ok(figures(metrics)?.plots)
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
    use alphazero_charts::figure::{
        FOOTER, HEADER, LEFT, PANEL_BOTTOM, PANEL_HEIGHT, PANEL_TOP, RIGHT, WIDTH,
    };
    use alphazero_charts::RGBColor;

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
        assert!(has(RED) && has(BLUE) && has(GREEN) && has(PURPLE));
    }

    /// Regression: the policy-loss line was drawn first and hidden under the entropy line
    /// where the two are equal (the policy entropy is the loss's lower bound).
    #[test]
    fn the_policy_loss_line_shows_where_it_meets_the_entropy() {
        let red_pixels = |ms: &[IterationMetrics]| {
            let plots = render_plots(ms).unwrap();
            let (buf, _, _) = pixels(&plot(&plots, "losses.png").png);
            buf.chunks(3)
                .filter(|p| *p == [RED.0, RED.1, RED.2])
                .count()
        };
        let apart = example_metrics(8);
        let mut equal = apart.clone();
        for m in &mut equal {
            m.policy_entropy = m.policy_loss;
        }
        let (seen_apart, seen_equal) = (red_pixels(&apart), red_pixels(&equal));
        assert!(
            seen_equal * 10 >= seen_apart * 9,
            "{seen_equal} red pixels where the lines meet, {seen_apart} apart"
        );
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
                buf[i..i + 3] == [BLUE.0, BLUE.1, BLUE.2]
            })
        });
        assert!(blue, "no colour swatch in the legend row");
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
    fn the_axis_gives_games_and_hours_at_each_iteration() {
        let ms = example_metrics(6);
        let x = iteration_axis(&ms, &[]);
        assert_eq!((x.lo, x.hi), (0.0, 5.0));
        for m in &ms {
            let (games, hours) = x.at(f64::from(m.iteration)).unwrap();
            assert_eq!(games, m.total_games as f64);
            assert!((hours - m.elapsed_s / 3600.0).abs() < 1e-12);
        }
        // The points of a ladder beyond the run's iterations widen the axis.
        assert_eq!(iteration_axis(&ms, &[9.0]).hi, 9.0);
    }

    #[test]
    fn ladder_axis_labels_each_network_with_the_games_behind_it() {
        let ms = example_metrics(6);
        let x = network_axis(&ms, &[]);
        assert_eq!((x.lo, x.hi), (0.0, 6.0));
        // The initial network has no games behind it; the network of k iterations has the
        // games of rows 0..k.
        assert_eq!(x.at(0.0), Some((0.0, 0.0)));
        for m in &ms {
            let (games, hours) = x.at(f64::from(m.iteration) + 1.0).unwrap();
            assert_eq!(games, m.total_games as f64);
            assert!((hours - m.elapsed_s / 3600.0).abs() < 1e-12);
        }
        assert!(network_axis(&[], &[3.0]).marks.is_empty());
    }

    #[test]
    fn legend_grid_values_are_rounded_and_a_flat_series_gets_a_readable_range() {
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
}
