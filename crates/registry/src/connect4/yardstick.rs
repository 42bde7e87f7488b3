//! Connect Four's yardstick (learning quality): how often a policy, a value and a search
//! agree with the exact solver on Pascal Pons' test sets (`tests/data/connect4` of the
//! repository, one `"<moves> <score>"` line per position, moves 1-based columns, score from
//! the side to move).
//!
//! A move is **best** when it has the solver's best score (the fastest win, the slowest
//! loss) and **keeps the result** when its score has the sign of the position's (it wins a
//! won position, however slowly; draws a drawn one; any move of a lost position).
//!
//! The solver's answers (the score of every column) for the early-game sets, which cost
//! seconds per position (Test_L1_R3: 23 s on average, up to 4.5 minutes), are cached in
//! `scores/<set>.scores` beside the sets ([`ScoreCache`], written by the `c4_scores`
//! example: the first 200 positions of Test_L1_R1 and Test_L1_R3, all of Test_L1_R2); every
//! cached line is checked against the set's own score when it is used.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use alphazero_connect4::{C4Move, Connect4, Solver, WIDTH};
use alphazero_game::Game;
use serde::{Deserialize, Serialize};

use crate::yardstick::{Yardstick, YardstickError, YardstickReport};

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

/// The score of every column of a position from the side to move (the solver's
/// [`Solver::score_moves`]); `None` for a full column. Index = 0-based column.
pub type MoveScores = [Option<i32>; WIDTH];

/// The best score of `scores` (`None` when no column is legal).
pub fn best_score(scores: &MoveScores) -> Option<i32> {
    scores.iter().flatten().copied().max()
}

/// Whether `mv` is one of the best moves of `scores` and whether it keeps the position's
/// game-theoretic result (its score has the sign of the best score); `(false, false)` for
/// an illegal move.
pub fn move_quality(scores: &MoveScores, mv: C4Move) -> (bool, bool) {
    match (scores.get(mv.col()).copied().flatten(), best_score(scores)) {
        (Some(s), Some(best)) => (s == best, s.signum() == best.signum()),
        _ => (false, false),
    }
}

/// Cached solver answers of a test set: for each position (by its move string), the score
/// of every column. One line per position, `"<moves> <s1> … <s7>"` with `-` for a full
/// column, in the order of the set file (a cache may cover only its first lines).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScoreCache {
    map: HashMap<String, MoveScores>,
}

impl ScoreCache {
    /// Where the cache of `set` in the test-data folder `dir` lies: `dir/scores/<set>.scores`.
    pub fn path_for(dir: &Path, set: &str) -> PathBuf {
        dir.join("scores").join(format!("{set}.scores"))
    }

    /// Reads a cache file; a missing file is an empty cache.
    ///
    /// # Errors
    /// [`C4EvalError::Io`] when the file exists but cannot be read, [`C4EvalError::BadLine`]
    /// for a line that is not a position and seven column scores.
    pub fn load(path: &Path) -> Result<Self, C4EvalError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(source) => {
                return Err(C4EvalError::Io {
                    path: path.to_path_buf(),
                    source,
                })
            }
        };
        let file = path.display().to_string();
        let mut map = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let bad = |reason: &str| C4EvalError::BadLine {
                file: file.clone(),
                line: i + 1,
                text: line.to_string(),
                reason: reason.to_string(),
            };
            let mut parts = line.split_whitespace();
            let moves = parts.next().ok_or_else(|| bad("empty line"))?;
            let pos = Connect4::from_moves(moves).map_err(|e| bad(&e.to_string()))?;
            let mut scores = [None; WIDTH];
            for (c, slot) in scores.iter_mut().enumerate() {
                let word = parts
                    .next()
                    .ok_or_else(|| bad("expected 7 column scores"))?;
                if word != "-" {
                    *slot = Some(word.parse().map_err(|_| bad("a score is not an integer"))?);
                }
                if slot.is_some() != pos.is_legal(C4Move(c as u8)) {
                    return Err(bad("a full column has a score or a free column none"));
                }
            }
            if parts.next().is_some() {
                return Err(bad("more than 7 column scores"));
            }
            map.insert(moves.to_string(), scores);
        }
        Ok(ScoreCache { map })
    }

    /// The cached scores of the position reached by `moves`, if any.
    pub fn get(&self, moves: &str) -> Option<&MoveScores> {
        self.map.get(moves)
    }

    /// Positions cached.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// One cache line for `moves` (no newline).
    pub fn format_line(moves: &str, scores: &MoveScores) -> String {
        let mut s = moves.to_string();
        for sc in scores {
            match sc {
                Some(v) => s.push_str(&format!(" {v}")),
                None => s.push_str(" -"),
            }
        }
        s
    }
}

/// One position of a test file.
#[derive(Clone, Debug, PartialEq)]
pub struct TestPosition {
    /// 1-based line number among the file's non-empty lines.
    pub line: usize,
    /// The move string (1-based columns).
    pub moves: String,
    /// The position.
    pub position: Connect4,
    /// The file's score of the position from the side to move.
    pub score: i32,
}

/// The first `max_lines` non-empty lines of a test file, positions already decided left
/// out.
///
/// # Errors
/// [`C4EvalError::Io`], [`C4EvalError::BadLine`].
pub fn read_test_file(path: &Path, max_lines: usize) -> Result<Vec<TestPosition>, C4EvalError> {
    let text = std::fs::read_to_string(path).map_err(|source| C4EvalError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let file = file_name(path);
    let mut out = Vec::new();
    for (i, line) in text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(max_lines)
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
        let position = Connect4::from_moves(moves).map_err(|e| bad(e.to_string()))?;
        if position.outcome().is_some() {
            continue;
        }
        out.push(TestPosition {
            line: i + 1,
            moves: moves.to_string(),
            position,
            score,
        });
    }
    Ok(out)
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    )
}

/// The column scores of `t`: from `cache` when it has them (checked against the file's
/// score), else from `solver`. The flag says whether the cache answered.
///
/// # Errors
/// [`C4EvalError::BadCache`] when the cached best score is not the file's score.
pub fn answer(
    t: &TestPosition,
    file: &str,
    cache: &ScoreCache,
    solver: &mut Solver,
) -> Result<(MoveScores, bool), C4EvalError> {
    match cache.get(&t.moves) {
        Some(scores) => {
            if best_score(scores) != Some(t.score) {
                return Err(C4EvalError::BadCache {
                    file: file.to_string(),
                    line: t.line,
                    moves: t.moves.clone(),
                    cached: best_score(scores),
                    score: t.score,
                });
            }
            Ok((*scores, true))
        }
        None => Ok((solver.score_moves(&t.position), false)),
    }
}

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
    /// Positions where the policy's argmax keeps the game-theoretic result.
    pub policy_keeps: usize,
    /// Positions where the value has the solver's sign (see [`C4EvalConfig::draw_margin`]).
    pub value_sign: usize,
    /// Positions where the search's chosen move is one of the solver's best (`None` without a
    /// chooser).
    pub search_best: Option<usize>,
    /// Positions where the search's chosen move keeps the game-theoretic result (`None`
    /// without a chooser).
    pub search_keeps: Option<usize>,
    /// Positions whose solver answers came from the set's [`ScoreCache`].
    pub cached: usize,
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

    /// `policy_keeps / positions`.
    pub fn policy_keep_accuracy(&self) -> f64 {
        Self::share(self.policy_keeps, self.positions)
    }

    /// `search_keeps / positions`, if a chooser was given.
    pub fn search_keep_accuracy(&self) -> Option<f64> {
        self.search_keeps.map(|k| Self::share(k, self.positions))
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
    /// A cached answer disagrees with the test file: its best column score is not the
    /// file's score of the position.
    #[error(
        "{file}:{line}: the cached scores of {moves} give {}, the test file {score}; \
         the cache file (scores/{file}.scores) is wrong: delete it or write it again",
        cached.map_or_else(|| "no legal move".to_string(), |c| c.to_string())
    )]
    BadCache {
        /// The test file name.
        file: String,
        /// 1-based line number in the test file.
        line: usize,
        /// The position's moves.
        moves: String,
        /// The best cached score.
        cached: Option<i32>,
        /// The test file's score.
        score: i32,
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
/// and `chooser` (if any) for a move, and counts agreement with the solver's column scores
/// (from `cache` when it has the position, else from `solver`): best moves, moves that keep
/// the result, and the value's sign against the file's score.
///
/// # Errors
/// [`C4EvalError`] when the file cannot be read, a line is malformed or a cached answer
/// disagrees with the file.
pub fn evaluate_file(
    path: &Path,
    solver: &mut Solver,
    cache: &ScoreCache,
    policy_fn: &mut dyn FnMut(&Connect4) -> (Vec<f32>, f32),
    mut chooser: Option<&mut dyn FnMut(&Connect4) -> C4Move>,
    config: &C4EvalConfig,
) -> Result<C4FileReport, C4EvalError> {
    let file = file_name(path);
    let mut report = C4FileReport {
        file: file.clone(),
        positions: 0,
        policy_best: 0,
        policy_keeps: 0,
        value_sign: 0,
        search_best: chooser.as_ref().map(|_| 0),
        search_keeps: chooser.as_ref().map(|_| 0),
        cached: 0,
    };
    for t in read_test_file(path, config.max_lines)? {
        let (scores, cached) = answer(&t, &file, cache, solver)?;
        report.positions += 1;
        report.cached += usize::from(cached);
        let (policy, value) = policy_fn(&t.position);
        if let Some(m) = policy_argmax(&t.position, &policy) {
            let (best, keeps) = move_quality(&scores, m);
            report.policy_best += usize::from(best);
            report.policy_keeps += usize::from(keeps);
        }
        if value_agrees(value, t.score, config.draw_margin) {
            report.value_sign += 1;
        }
        if let Some(ch) = chooser.as_mut() {
            let (best, keeps) = move_quality(&scores, ch(&t.position));
            *report.search_best.get_or_insert(0) += usize::from(best);
            *report.search_keeps.get_or_insert(0) += usize::from(keeps);
        }
    }
    Ok(report)
}

/// [`evaluate_file`] on each of `sets` (file names such as [`DEFAULT_SETS`]) in `dir`, with
/// one solver shared by all and each set's [`ScoreCache`] (if it has one).
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
        let cache = ScoreCache::load(&ScoreCache::path_for(dir, set))?;
        let ch: Option<&mut dyn FnMut(&Connect4) -> C4Move> = match chooser.as_mut() {
            Some(c) => Some(&mut **c),
            None => None,
        };
        out.push(evaluate_file(
            &dir.join(set),
            &mut solver,
            &cache,
            policy_fn,
            ch,
            config,
        )?);
    }
    Ok(out)
}

/// The test sets of the training loop's [`SolverSlice`]: middle-game positions (15–28
/// stones) with short and long finishes, a few milliseconds each for the solver (the
/// early-game sets take seconds).
pub const SLICE_SETS: [&str; 2] = ["Test_L2_R1", "Test_L2_R2"];

/// A fixed slice of test positions with the solver's answers, computed once, for measuring
/// networks again and again (the training loop's solver agreement). Never training data.
#[derive(Clone, Debug, PartialEq)]
pub struct SolverSlice {
    /// The positions with their column scores.
    pub positions: Vec<(TestPosition, MoveScores)>,
}

impl SolverSlice {
    /// The first `per_set` undecided positions of each of `sets` in `dir` (all of them when
    /// a set has fewer), answered from each set's cache or by the solver.
    ///
    /// # Errors
    /// The [`C4EvalError`]s of reading the files and caches.
    pub fn load(dir: &Path, sets: &[&str], per_set: usize) -> Result<Self, C4EvalError> {
        let mut solver = Solver::with_table_log2(22);
        let mut positions = Vec::new();
        for set in sets {
            let cache = ScoreCache::load(&ScoreCache::path_for(dir, set))?;
            let path = dir.join(set);
            let file = file_name(&path);
            // Undecided positions are the rule in the test sets; read a few lines more than
            // wanted in case some are decided.
            for t in read_test_file(&path, per_set + 16)?
                .into_iter()
                .take(per_set)
            {
                let (scores, _) = answer(&t, &file, &cache, &mut solver)?;
                positions.push((t, scores));
            }
        }
        Ok(SolverSlice { positions })
    }
}

/// The solver agreement of the training loop: the first `positions` undecided positions of
/// [`SLICE_SETS`] in the test-data folder `dir` (half from each), answered once
/// ([`crate::SolverYardstick::load`] of Connect Four).
///
/// # Errors
/// The [`C4EvalError`] of reading the files and caches.
pub fn load_yardstick(
    dir: &Path,
    positions: usize,
) -> Result<Box<dyn Yardstick<Connect4>>, YardstickError> {
    let mut slice = SolverSlice::load(dir, &SLICE_SETS, positions.div_ceil(SLICE_SETS.len()))
        .map_err(|e| YardstickError(Box::new(e)))?;
    slice.positions.truncate(positions);
    Ok(Box::new(slice))
}

impl Yardstick<Connect4> for SolverSlice {
    fn positions(&self) -> Vec<&Connect4> {
        self.positions.iter().map(|(t, _)| &t.position).collect()
    }

    /// Scores `outputs`, the (policy over the 7 columns, value from the side to move) of each
    /// position in order, against the solver, with the default draw margin
    /// ([`C4EvalConfig::draw_margin`], 0.2).
    ///
    /// # Panics
    /// When `outputs` does not have one entry per position.
    fn measure(&self, outputs: &[(Vec<f32>, f32)]) -> YardstickReport {
        let draw_margin = C4EvalConfig::default().draw_margin;
        assert_eq!(
            outputs.len(),
            self.positions.len(),
            "one output per position"
        );
        let mut r = YardstickReport {
            positions: self.positions.len(),
            ..YardstickReport::default()
        };
        for ((t, scores), (policy, value)) in self.positions.iter().zip(outputs) {
            if let Some(m) = policy_argmax(&t.position, policy) {
                let (best, keeps) = move_quality(scores, m);
                r.policy_best += usize::from(best);
                r.policy_keeps += usize::from(keeps);
            }
            r.value_sign += usize::from(value_agrees(*value, t.score, draw_margin));
        }
        r
    }
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
        let r = evaluate_file(
            &path,
            &mut solver,
            &ScoreCache::default(),
            &mut uniform,
            None,
            &cfg,
        )
        .expect("test data");
        assert_eq!(r.positions, 30);
        assert!(r.policy_accuracy() < 0.7, "{r:?}");
        assert!(r.value_accuracy() < 0.7, "{r:?}");
        assert_eq!((r.search_best, r.search_keeps, r.cached), (None, None, 0));
    }

    #[test]
    fn slower_win_keeps_the_result_without_being_solver_best() {
        // Regression: a slower win was counted as a miss.
        let scores: MoveScores = [Some(-3), Some(0), Some(2), Some(5), None, Some(5), Some(-1)];
        assert_eq!(best_score(&scores), Some(5));
        assert_eq!(move_quality(&scores, C4Move(3)), (true, true));
        assert_eq!(
            move_quality(&scores, C4Move(2)),
            (false, true),
            "slower win"
        );
        assert_eq!(move_quality(&scores, C4Move(1)), (false, false), "draw");
        assert_eq!(
            move_quality(&scores, C4Move(4)),
            (false, false),
            "full column"
        );
        let lost: MoveScores = [Some(-3), Some(-9), None, None, None, None, None];
        assert_eq!(move_quality(&lost, C4Move(1)), (false, true), "faster loss");
        // On real positions: a search that always picks the slowest move that keeps the
        // result keeps it everywhere, and is "best" less often where slower wins exist.
        let cfg = C4EvalConfig {
            max_lines: 40,
            draw_margin: 0.2,
        };
        let mut oracle = Solver::with_table_log2(20);
        let mut slowest = |pos: &Connect4| {
            let s = oracle.score_moves(pos);
            let best = best_score(&s).expect("legal moves");
            (0..WIDTH)
                .filter(|&c| s[c].is_some_and(|v| v.signum() == best.signum()))
                .min_by_key(|&c| s[c])
                .map(|c| C4Move(c as u8))
                .expect("a keeping move")
        };
        let mut uniform = |_: &Connect4| (vec![1.0 / 7.0; WIDTH], 0.0);
        let r = evaluate_sets(
            &default_testdata_dir(),
            &["Test_L2_R1"],
            &mut uniform,
            Some(&mut slowest),
            &cfg,
        )
        .expect("test data")
        .remove(0);
        assert_eq!(r.search_keeps, Some(r.positions), "{r:?}");
        assert!(r.search_best < r.search_keeps, "{r:?}");
        assert!(r.policy_keeps >= r.policy_best, "{r:?}");
    }

    #[test]
    fn cached_answers_are_used_and_checked_against_the_test_file() {
        let cfg = C4EvalConfig {
            max_lines: 12,
            draw_margin: 0.2,
        };
        let src = default_testdata_dir().join("Test_L2_R1");
        let tmp = std::env::temp_dir().join(format!("c4eval-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).expect("temp dir");
        std::fs::copy(&src, tmp.join("Test_L2_R1")).expect("copy");
        let mut solver = Solver::with_table_log2(20);
        let positions = read_test_file(&src, 8).expect("test data");
        let cache_path = ScoreCache::path_for(&tmp, "Test_L2_R1");
        std::fs::create_dir_all(cache_path.parent().unwrap()).unwrap();
        let lines: Vec<String> = positions
            .iter()
            .map(|t| ScoreCache::format_line(&t.moves, &solver.score_moves(&t.position)))
            .collect();
        std::fs::write(&cache_path, lines.join("\n") + "\n").unwrap();
        let cache = ScoreCache::load(&cache_path).unwrap();
        assert_eq!(cache.len(), 8);
        let mut policy = |p: &Connect4| {
            let mut v = vec![0.0; WIDTH];
            v[p.num_stones() as usize % WIDTH] = 1.0;
            (v, 0.5)
        };
        let eval = |dir: &Path, policy: &mut dyn FnMut(&Connect4) -> (Vec<f32>, f32)| {
            evaluate_sets(dir, &["Test_L2_R1"], policy, None, &cfg).map(|mut r| r.remove(0))
        };
        let with = eval(&tmp, &mut policy).unwrap();
        let without = eval(&default_testdata_dir(), &mut policy).unwrap();
        assert_eq!(with.cached, 8);
        assert_eq!(without.cached, 0);
        assert_eq!(
            (
                with.positions,
                with.policy_best,
                with.policy_keeps,
                with.value_sign
            ),
            (
                without.positions,
                without.policy_best,
                without.policy_keeps,
                without.value_sign
            )
        );
        // A wrong cached answer is refused, naming the line.
        let t = &positions[3];
        let mut wrong = *cache.get(&t.moves).unwrap();
        for s in wrong.iter_mut().flatten() {
            *s += 1;
        }
        let mut bad = lines.clone();
        bad[3] = ScoreCache::format_line(&t.moves, &wrong);
        std::fs::write(&cache_path, bad.join("\n") + "\n").unwrap();
        let err = eval(&tmp, &mut policy).unwrap_err().to_string();
        assert!(
            err.contains(&format!("Test_L2_R1:{}", t.line)) && err.contains(&t.moves),
            "{err}"
        );
        std::fs::write(&cache_path, format!("{} 1 2 3\n", t.moves)).unwrap();
        assert!(ScoreCache::load(&cache_path).is_err());
        let _ = std::fs::remove_dir_all(&tmp);
    }

    #[test]
    fn shipped_score_caches_agree_with_the_test_files() {
        // Every cached answer's best score is the Pons file's own score of the position (an
        // independent check of the cache), and the early-game sets have caches.
        let dir = default_testdata_dir();
        let mut checked = 0;
        for set in ALL_SETS {
            let cache = ScoreCache::load(&ScoreCache::path_for(&dir, set)).expect("cache");
            for t in read_test_file(&dir.join(set), 1000).expect("test data") {
                if let Some(s) = cache.get(&t.moves) {
                    assert_eq!(best_score(s), Some(t.score), "{set}:{} {}", t.line, t.moves);
                    checked += 1;
                }
            }
        }
        for (set, at_least) in [
            ("Test_L1_R1", 200),
            ("Test_L1_R2", 1000),
            ("Test_L1_R3", 200),
        ] {
            let cache = ScoreCache::load(&ScoreCache::path_for(&dir, set)).expect("cache");
            assert!(cache.len() >= at_least, "{set}: {} cached", cache.len());
        }
        assert!(checked >= 1400, "{checked}");
    }

    #[test]
    fn solver_slice_measures_policy_and_value_against_the_solver() {
        let dir = default_testdata_dir();
        let slice = SolverSlice::load(&dir, &SLICE_SETS, 10).expect("test data");
        assert_eq!(slice.positions.len(), 20);
        // A perfect network (the solver's best move, the score's sign) scores every position.
        let perfect: Vec<(Vec<f32>, f32)> = slice
            .positions
            .iter()
            .map(|(t, s)| {
                let mut p = vec![0.0; WIDTH];
                let best = best_score(s).unwrap();
                p[s.iter().position(|v| *v == Some(best)).unwrap()] = 1.0;
                (p, t.score.signum() as f32)
            })
            .collect();
        let r = slice.measure(&perfect);
        assert_eq!(
            (r.positions, r.policy_best, r.policy_keeps, r.value_sign),
            (20, 20, 20, 20)
        );
        // The opposite value everywhere is never of the right sign (draws aside).
        let flipped: Vec<(Vec<f32>, f32)> = perfect.iter().map(|(p, v)| (p.clone(), -v)).collect();
        let draws = slice.positions.iter().filter(|(t, _)| t.score == 0).count();
        assert_eq!(slice.measure(&flipped).value_sign, draws);
    }

    #[test]
    fn missing_file_and_bad_line_are_errors_naming_the_input() {
        let mut solver = Solver::with_table_log2(18);
        let mut f = |_: &Connect4| (vec![0.0; WIDTH], 0.0);
        let cfg = C4EvalConfig::default();
        let none = ScoreCache::default();
        let err = evaluate_file(
            Path::new("/nonexistent/Test_X"),
            &mut solver,
            &none,
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
        let err =
            evaluate_file(&path, &mut solver, &none, &mut f, None, &cfg).expect_err("bad line");
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
}
