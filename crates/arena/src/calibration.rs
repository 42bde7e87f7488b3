//! Value calibration: how well a network's value predictions match the game results (a
//! reliability diagram and its expected calibration error).

use serde::{Deserialize, Serialize};

/// One bin of a reliability diagram.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bin {
    /// Lower edge of the predicted value (inclusive).
    pub lo: f32,
    /// Upper edge (exclusive, except the last bin which includes 1).
    pub hi: f32,
    /// Samples in the bin.
    pub count: usize,
    /// Mean predicted value of those samples (0 when empty).
    pub mean_pred: f32,
    /// Mean observed result z of those samples (0 when empty).
    pub mean_z: f32,
}

/// Value calibration: splits [-1, 1] into `bins` equal bins by predicted value (clamped into
/// [-1, 1]; NaN predictions are skipped) and gives, per bin, the mean prediction and the mean
/// observed game result z in {-1, 0, 1} (both from the same side). A calibrated value has
/// `mean_pred ≈ mean_z` in every bin. `bins` 0 gives no bins.
pub fn calibration(samples: &[(f32, f32)], bins: usize) -> Vec<Bin> {
    if bins == 0 {
        return Vec::new();
    }
    let width = 2.0 / bins as f32;
    let mut sums = vec![(0usize, 0.0f64, 0.0f64); bins];
    for &(p, z) in samples {
        if p.is_nan() || z.is_nan() {
            continue;
        }
        let p = p.clamp(-1.0, 1.0);
        let i = (((p + 1.0) / width) as usize).min(bins - 1);
        sums[i].0 += 1;
        sums[i].1 += f64::from(p);
        sums[i].2 += f64::from(z);
    }
    sums.iter()
        .enumerate()
        .map(|(i, &(count, sp, sz))| Bin {
            lo: -1.0 + i as f32 * width,
            hi: -1.0 + (i + 1) as f32 * width,
            count,
            mean_pred: if count > 0 {
                (sp / count as f64) as f32
            } else {
                0.0
            },
            mean_z: if count > 0 {
                (sz / count as f64) as f32
            } else {
                0.0
            },
        })
        .collect()
}

/// Expected calibration error of a reliability diagram: `Σ count · |mean_pred − mean_z| /
/// Σ count` (0 when there are no samples).
pub fn expected_calibration_error(bins: &[Bin]) -> f32 {
    let total: usize = bins.iter().map(|b| b.count).sum();
    if total == 0 {
        return 0.0;
    }
    bins.iter()
        .map(|b| b.count as f32 * (b.mean_pred - b.mean_z).abs())
        .sum::<f32>()
        / total as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibration_bins_average_predictions_and_results() {
        let samples = [
            (-0.9, -1.0),
            (-0.7, -1.0),
            (0.1, 1.0),
            (0.2, -1.0),
            (0.95, 1.0),
            (1.5, 1.0),
            (f32::NAN, 1.0),
        ];
        let bins = calibration(&samples, 4);
        assert_eq!(bins.len(), 4);
        assert_eq!(
            bins.iter().map(|b| b.count).collect::<Vec<_>>(),
            vec![2, 0, 2, 2]
        );
        assert!((bins[0].mean_pred + 0.8).abs() < 1e-6 && bins[0].mean_z == -1.0);
        assert!((bins[2].mean_pred - 0.15).abs() < 1e-6 && bins[2].mean_z == 0.0);
        assert!((bins[3].mean_pred - 0.975).abs() < 1e-6 && bins[3].mean_z == 1.0);
        assert_eq!((bins[1].lo, bins[1].hi), (-0.5, 0.0));
        let ece = expected_calibration_error(&bins);
        assert!(
            (ece - (2.0 * 0.2 + 2.0 * 0.15 + 2.0 * 0.025) / 6.0).abs() < 1e-6,
            "{ece}"
        );
        assert!(calibration(&samples, 0).is_empty());
    }
}
