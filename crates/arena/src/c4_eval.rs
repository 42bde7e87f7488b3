//! Learning quality on Connect Four: how often a policy, a value and a search agree with
//! the exact solver on Pascal Pons' test sets (`tests/data/connect4` of the repository, one
//! `"<moves> <score>"` line per position, moves 1-based columns, score from the side to move).

use std::path::{Path, PathBuf};

use alphazero_connect4::{C4Move, Connect4, Solver, WIDTH};
use alphazero_game::Game;
use serde::{Deserialize, Serialize};

/// The Pons test sets, easiest first. `Test_L1_R2` and `Test_L1_R3` (early positions, long
/// games) take the solver seconds per position and are not in [`DEFAULT_SETS`].
pub const ALL_SETS: [&str; 6] = [
    "Test_L3_R1",
    "Test_L2_R1",
    "Test_L2_R2",
    "Test_L1_R1",
    "Test_L1_R2",
    "Test_L1_R3",
];
/// The sets evaluated by default (fast to solve).
pub const DEFAULT_SETS: [&str; 4] = ["Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1"];

/// The test-data folder as seen from this crate (`<repo>/tests/data/connect4`).
pub fn default_testdata_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/connect4"
    ))
}

/// How to evaluate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct C4EvalConfig {
    /// Positions read per file (the first ones).
    pub max_lines: usize,
    /// A value counts as "draw" when `|v| < draw_margin`, as "win" when `v ≥ draw_margin`
    /// and as "loss" when `v ≤ −draw_margin` (default 0.2).
    pub draw_margin: f32,
}

impl Default for C4EvalConfig {
    fn default() -> Self {
        C4EvalConfig {
            max_lines: 200,
            draw_margin: 0.2,
        }
    }
}

/// Agreement with the solver on one file. Shares are in [0, 1].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct C4FileReport {
    /// File name (e.g. `Test_L2_R1`).
    pub file: String,
    /// Positions evaluated (positions already decided are skipped).
    pub positions: usize,
    /// Positions where the policy's argmax over the legal columns is one of the solver's best.
    pub policy_best: usize,
    /// Positions where the value has the solver's sign (see [`C4EvalConfig::draw_margin`]).
    pub value_sign: usize,
    /// Positions where the search's chosen move is one of the solver's best (`None` without a
    /// chooser).
    pub search_best: Option<usize>,
}

impl C4FileReport {
    fn share(k: usize, n: usize) -> f64 {
        if n == 0 {
            0.0
        } else {
            k as f64 / n as f64
        }
    }

    /// `policy_best / positions`.
    pub fn policy_accuracy(&self) -> f64 {
        Self::share(self.policy_best, self.positions)
    }

    /// `value_sign / positions`.
    pub fn value_accuracy(&self) -> f64 {
        Self::share(self.value_sign, self.positions)
    }

    /// `search_best / positions`, if a chooser was given.
    pub fn search_accuracy(&self) -> Option<f64> {
        self.search_best.map(|k| Self::share(k, self.positions))
    }
}

/// A test file could not be read or holds a malformed line. Carries the path or the line.
#[derive(Debug, thiserror::Error)]
pub enum C4EvalError {
    /// Reading the file failed.
    /// The message names the file only; the I/O error is the [`std::error::Error::source`].
    #[error("cannot read {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A line is not `"<moves> <score>"` with legal moves and an integer score.
    #[error("{file}:{line}: bad test line {text:?}: {reason}")]
    BadLine {
        /// The file name.
        file: String,
        /// 1-based line number.
        line: usize,
        /// The line.
        text: String,
        /// What is wrong.
        reason: String,
    },
}

/// Whether `value` (from the side to move) agrees with the sign of the exact `score`.
pub fn value_agrees(value: f32, score: i32, draw_margin: f32) -> bool {
    match score.signum() {
        1 => value >= draw_margin,
        -1 => value <= -draw_margin,
        _ => value.abs() < draw_margin,
    }
}

/// The legal column with the largest policy entry (first on ties), `None` if none is legal.
pub fn policy_argmax(pos: &Connect4, policy: &[f32]) -> Option<C4Move> {
    let mut best: Option<(C4Move, f32)> = None;
    for c in 0..WIDTH {
        let mv = C4Move(c as u8);
        if !pos.is_legal(mv) {
            continue;
        }
        let p = policy.get(c).copied().unwrap_or(f32::NEG_INFINITY);
        if best.is_none_or(|(_, b)| p > b) {
            best = Some((mv, p));
        }
    }
    best.map(|(m, _)| m)
}

/// Evaluates one test file: for each of its first `config.max_lines` positions not already
/// decided, asks `policy_fn` for `(policy over the 7 columns, value from the side to move)`
/// and `chooser` (if any) for a move, and counts agreement with `solver`'s best moves
/// ([`Solver::best_moves`]) and the file's score sign.
///
/// # Errors
/// [`C4EvalError`] when the file cannot be read or a line is malformed.
pub fn evaluate_file(
    path: &Path,
    solver: &mut Solver,
    policy_fn: &mut dyn FnMut(&Connect4) -> (Vec<f32>, f32),
    mut chooser: Option<&mut dyn FnMut(&Connect4) -> C4Move>,
    config: &C4EvalConfig,
) -> Result<C4FileReport, C4EvalError> {
    let text = std::fs::read_to_string(path).map_err(|source| C4EvalError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let file = path.file_name().map_or_else(
        || path.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    );
    let mut report = C4FileReport {
        file: file.clone(),
        positions: 0,
        policy_best: 0,
        value_sign: 0,
        search_best: chooser.as_ref().map(|_| 0),
    };
    for (i, line) in text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(config.max_lines)
        .enumerate()
    {
        let bad = |reason: String| C4EvalError::BadLine {
            file: file.clone(),
            line: i + 1,
            text: line.to_string(),
            reason,
        };
        let mut parts = line.split_whitespace();
        let (Some(moves), Some(score), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(bad("expected \"<moves> <score>\"".into()));
        };
        let score: i32 = score
            .parse()
            .map_err(|_| bad("score is not an integer".into()))?;
        let pos = Connect4::from_moves(moves).map_err(|e| bad(e.to_string()))?;
        if pos.outcome().is_some() {
            continue;
        }
        let best = solver.best_moves(&pos);
        report.positions += 1;
        let (policy, value) = policy_fn(&pos);
        if policy_argmax(&pos, &policy).is_some_and(|m| best.contains(&m)) {
            report.policy_best += 1;
        }
        if value_agrees(value, score, config.draw_margin) {
            report.value_sign += 1;
        }
        if let (Some(ch), Some(k)) = (chooser.as_mut(), report.search_best.as_mut()) {
            if best.contains(&ch(&pos)) {
                *k += 1;
            }
        }
    }
    Ok(report)
}

/// [`evaluate_file`] on each of `sets` (file names such as [`DEFAULT_SETS`]) in `dir`, with
/// one solver shared by all.
///
/// # Errors
/// The first [`C4EvalError`].
pub fn evaluate_sets(
    dir: &Path,
    sets: &[&str],
    policy_fn: &mut dyn FnMut(&Connect4) -> (Vec<f32>, f32),
    mut chooser: Option<&mut dyn FnMut(&Connect4) -> C4Move>,
    config: &C4EvalConfig,
) -> Result<Vec<C4FileReport>, C4EvalError> {
    let mut solver = Solver::new();
    let mut out = Vec::new();
    for set in sets {
        let ch: Option<&mut dyn FnMut(&Connect4) -> C4Move> = match chooser.as_mut() {
            Some(c) => Some(&mut **c),
            None => None,
        };
        out.push(evaluate_file(
            &dir.join(set),
            &mut solver,
            policy_fn,
            ch,
            config,
        )?);
    }
    Ok(out)
}

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

    fn perfect_policy(solver: &mut Solver) -> impl FnMut(&Connect4) -> (Vec<f32>, f32) + '_ {
        move |pos| {
            let best = solver.best_moves(pos);
            let mut p = vec![0.0; WIDTH];
            p[best[0].col()] = 1.0;
            (p, solver.solve_weak(pos) as f32)
        }
    }

    #[test]
    fn perfect_policy_and_search_score_one_hundred_percent() {
        let cfg = C4EvalConfig {
            max_lines: 15,
            draw_margin: 0.2,
        };
        let mut oracle = Solver::with_table_log2(20);
        let mut oracle2 = Solver::with_table_log2(20);
        let mut policy = perfect_policy(&mut oracle);
        let mut chooser = |pos: &Connect4| oracle2.best_moves(pos)[0];
        let reports = evaluate_sets(
            &default_testdata_dir(),
            &["Test_L3_R1", "Test_L2_R1"],
            &mut policy,
            Some(&mut chooser),
            &cfg,
        )
        .expect("test data");
        assert_eq!(reports.len(), 2);
        for r in &reports {
            assert_eq!(r.positions, 15, "{r:?}");
            assert_eq!(r.policy_accuracy(), 1.0, "{r:?}");
            assert_eq!(r.value_accuracy(), 1.0, "{r:?}");
            assert_eq!(r.search_accuracy(), Some(1.0), "{r:?}");
        }
    }

    #[test]
    fn uniform_policy_and_constant_value_score_well_below_perfect() {
        let cfg = C4EvalConfig {
            max_lines: 30,
            draw_margin: 0.2,
        };
        let mut uniform = |_: &Connect4| (vec![1.0 / 7.0; WIDTH], 0.0);
        let mut solver = Solver::with_table_log2(20);
        let path = default_testdata_dir().join("Test_L2_R1");
        let r = evaluate_file(&path, &mut solver, &mut uniform, None, &cfg).expect("test data");
        assert_eq!(r.positions, 30);
        assert!(r.policy_accuracy() < 0.7, "{r:?}");
        assert!(r.value_accuracy() < 0.7, "{r:?}");
        assert_eq!(r.search_best, None);
    }

    #[test]
    fn missing_file_and_bad_line_are_errors_naming_the_input() {
        let mut solver = Solver::with_table_log2(18);
        let mut f = |_: &Connect4| (vec![0.0; WIDTH], 0.0);
        let cfg = C4EvalConfig::default();
        let err = evaluate_file(
            Path::new("/nonexistent/Test_X"),
            &mut solver,
            &mut f,
            None,
            &cfg,
        )
        .expect_err("missing");
        assert!(err.to_string().contains("/nonexistent/Test_X"));
        let dir = std::env::temp_dir().join(format!("c4eval-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("Test_bad");
        std::fs::write(&path, "2252576253462244111563365343671351441 -1\n44x 3\n").expect("write");
        let err = evaluate_file(&path, &mut solver, &mut f, None, &cfg).expect_err("bad line");
        assert!(err.to_string().contains("44x"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn value_sign_uses_the_draw_margin() {
        assert!(value_agrees(0.5, 3, 0.2));
        assert!(!value_agrees(0.1, 3, 0.2));
        assert!(value_agrees(-0.3, -1, 0.2));
        assert!(value_agrees(0.1, 0, 0.2));
        assert!(!value_agrees(-0.25, 0, 0.2));
    }

    #[test]
    fn policy_argmax_skips_full_columns() {
        let pos = Connect4::from_moves("444444").expect("moves");
        let mut p = vec![0.0; WIDTH];
        p[3] = 1.0;
        p[5] = 0.5;
        assert_eq!(policy_argmax(&pos, &p), Some(C4Move(5)));
    }

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
