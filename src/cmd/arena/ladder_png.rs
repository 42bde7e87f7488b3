//! `ladder.png` of the snapshot ladder (`arena --snapshots`): the networks' Elo over the
//! iterations of training behind them, drawn with the chart kit (`alphazero_charts`) on the
//! training figures' x axis.
use alphazero_charts::palette::{BLUE, ORANGE};
use alphazero_charts::{render, ChartError, Panel, Plot, Series, Style};
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
}
