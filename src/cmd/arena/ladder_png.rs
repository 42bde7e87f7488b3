//! `ladder.png` of the snapshot ladder (`arena --snapshots`): the networks' Elo over the
//! iterations of training behind them, drawn with the chart kit (`alphazero_charts`) on the
//! training figures' x axis; and `rungs.png` (`arena --snapshots --ladder`): their Elo over
//! fixed rungs against the trainer's CPU-hours.
use alphazero_arena::NetworkRungs;
use alphazero_charts::palette::{BLUE, GREEN, GREY, ORANGE, PURPLE, RED};
use alphazero_charts::{render, ChartError, Panel, Plot, Series, Style, XAxis};
use alphazero_train::metrics::IterationMetrics;
use alphazero_train::plots::network_axis;

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
/// `anchor`, and, where the run's `metrics` cover them, the games and hours of training behind
/// each labelled network beneath it. Elo values beyond ±4000 are drawn at ±4000.
///
/// # Errors
/// [`ChartError::Draw`], [`ChartError::Encode`].
pub fn render_ladder(
    title: &str,
    anchor: &str,
    points: &[LadderPoint],
    metrics: &[IterationMetrics],
) -> Result<Plot, ChartError> {
    let clamp = |v: f64| v.clamp(-4000.0, 4000.0);
    let xs: Vec<f64> = points.iter().map(|p| p.iteration).collect();
    let x = network_axis(metrics, &xs);
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
                series(true, "champion", BLUE),
                series(false, "snapshot", ORANGE),
            ],
            y_include: vec![0.0],
            references: vec![(0.0, format!("{anchor} = 0"))],
        }],
    )
}

/// The Elo at which `rungs.png` draws a sweep (±inf) and values beyond: a sweep of 20 games
/// is at least about ±150, and the axis of a few hundred Elo stays readable.
const RUNGS_CLAMP: f64 = 1000.0;

/// `rungs.png`: one line per rung, the networks' Elo over it with 95% interval bars, against
/// the trainer's CPU-hours behind each network (the run's `metrics` beneath the labels:
/// self-play games and wall time), or against the iterations where a network's CPU-hours are
/// unknown (metrics written before they were logged, or none); a dashed line at 0 (even with
/// the rung). Elo values beyond ±[`RUNGS_CLAMP`] (sweeps) are drawn there.
///
/// # Errors
/// [`ChartError::Draw`], [`ChartError::Encode`].
pub fn render_rungs(
    title: &str,
    rows: &[NetworkRungs],
    metrics: &[IterationMetrics],
) -> Result<Plot, ChartError> {
    let clamp = |v: f64| v.clamp(-RUNGS_CLAMP, RUNGS_CLAMP);
    let cpu: Option<Vec<f64>> = rows.iter().map(|r| r.cpu_hours).collect();
    let (xs, x) =
        match cpu {
            Some(xs) if !xs.is_empty() => {
                // Training after the last network (a run still going on) is not shown: the
                // axis ends with the networks.
                let last = xs.iter().copied().fold(0.0, f64::max);
                let marks =
                    std::iter::once((0.0, 0.0, 0.0))
                        .chain(metrics.iter().filter(|m| m.cpu_s > 0.0).map(|m| {
                            (m.cpu_s / 3600.0, m.total_games as f64, m.elapsed_s / 3600.0)
                        }))
                        .filter(|m| m.0 <= last * (1.0 + 1e-9))
                        .collect();
                let axis = XAxis::measure("CPU-hours", marks, &xs);
                (xs, axis)
            }
            _ => {
                let xs: Vec<f64> = rows.iter().map(|r| f64::from(r.iteration)).collect();
                let axis = network_axis(metrics, &xs);
                (xs, axis)
            }
        };
    let colors = [BLUE, ORANGE, GREEN, RED, PURPLE, GREY];
    let rungs = rows.first().map_or(0, |r| r.rungs.len());
    let series = (0..rungs)
        .map(|j| {
            let estimates: Vec<(f64, alphazero_arena::EloEstimate)> = rows
                .iter()
                .zip(&xs)
                .filter_map(|(r, &x)| Some((x, r.rungs.get(j)?.elo()?)))
                .collect();
            Series {
                label: rows[0].rungs[j].rung.clone(),
                color: colors[j % colors.len()],
                points: estimates.iter().map(|(x, e)| (*x, clamp(e.elo))).collect(),
                style: Style::Line,
                bars: estimates
                    .iter()
                    .map(|(x, e)| (*x, clamp(e.lo), clamp(e.hi)))
                    .collect(),
            }
        })
        .collect();
    render(
        "rungs.png",
        title,
        &x,
        &[Panel {
            title: "Network strength against fixed rungs".into(),
            y_desc: format!("Elo over the rung, 95% interval (a sweep at ±{RUNGS_CLAMP})"),
            series,
            y_include: vec![0.0],
            references: vec![(0.0, "even with the rung".into())],
        }],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use alphazero_charts::figure::{HEADER, WIDTH};
    use alphazero_charts::RGBColor;

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
        // The run's metrics: 100 games and a minute of training per iteration.
        let metrics: Vec<IterationMetrics> = (0..12u32)
            .map(|i| IterationMetrics {
                iteration: i,
                total_games: 100 * u64::from(i + 1),
                elapsed_s: 60.0 * f64::from(i + 1),
                ..IterationMetrics::default()
            })
            .collect();
        let p = render_ladder("Rating ladder of runs/x", "random", &points, &metrics).unwrap();
        assert_eq!(p.name, "ladder.png");
        let mut reader = png::Decoder::new(std::io::Cursor::new(&p.png))
            .read_info()
            .unwrap();
        let mut buf = vec![0u8; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!(info.width, WIDTH);
        let has = |c: RGBColor| buf.chunks(3).any(|q| q == [c.0, c.1, c.2]);
        assert!(has(BLUE) && has(ORANGE));
        // The title: dark pixels (anti-aliased text counts when dark grey) above the panel.
        let title_ink = buf[..(HEADER * WIDTH * 3) as usize]
            .chunks(3)
            .filter(|p| p.iter().all(|&c| c < 110))
            .count();
        assert!(title_ink > 100, "no title");
        assert!(p.legend.contains("Elo relative to random"), "{}", p.legend);
        assert!(p.legend.contains("champion") && p.legend.contains("snapshot"));
        // An unbounded interval end is drawn at the clamp, not dropped or overflowing.
        assert!(p.legend.contains(".. 4"), "{}", p.legend);
    }

    #[test]
    fn rungs_plot_draws_one_line_per_rung_against_cpu_hours() {
        use alphazero_arena::LadderRow;
        let row = |rung: &str, w: u32, l: u32| LadderRow {
            rung: rung.into(),
            wins: w,
            draws: 0,
            losses: l,
            failures: 0,
        };
        let rows: Vec<NetworkRungs> = (0..4u32)
            .map(|i| NetworkRungs {
                network: format!("champion-{i:04}@8"),
                iteration: i,
                selfplay_games: Some(32 * u64::from(i)),
                cpu_hours: Some(54.0 * f64::from(i) / 3600.0),
                rungs: vec![row("random", 5 + i, 5 - i), row("alphabeta-1", 0, 10)],
            })
            .collect();
        let metrics: Vec<IterationMetrics> = (0..4u32)
            .map(|i| IterationMetrics {
                iteration: i,
                total_games: 32 * u64::from(i + 1),
                elapsed_s: 70.0 * f64::from(i + 1),
                cpu_s: 54.0 * f64::from(i + 1),
                ..IterationMetrics::default()
            })
            .collect();
        let p = render_rungs("Networks of runs/x", &rows, &metrics).unwrap();
        assert_eq!(p.name, "rungs.png");
        // The axis ends with the last network, not with the run's later training.
        assert!(
            p.legend.contains("x: CPU-hours 0 .. 0.045 "),
            "{}",
            p.legend
        );
        assert!(p.legend.contains("random") && p.legend.contains("alphabeta-1"));
        let mut reader = png::Decoder::new(std::io::Cursor::new(&p.png))
            .read_info()
            .unwrap();
        let mut buf = vec![0u8; reader.output_buffer_size().unwrap()];
        reader.next_frame(&mut buf).unwrap();
        let has = |c: alphazero_charts::RGBColor| buf.chunks(3).any(|q| q == [c.0, c.1, c.2]);
        assert!(has(BLUE) && has(ORANGE));
        // A network without CPU-hours: the iterations instead.
        let mut old = rows.clone();
        old[2].cpu_hours = None;
        let p = render_rungs("t", &old, &[]).unwrap();
        assert!(p.legend.contains("x: iteration 0 .. 3"), "{}", p.legend);
    }
}
