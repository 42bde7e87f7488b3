//! Ratings: Elo ↔ expected score, Elo ± confidence interval from W/D/L, Bradley–Terry
//! (logistic Elo) maximum-likelihood fit over all pairwise results, and the SPRT of fishtest.
//!
//! All Elo here is logistic Elo: the expected score of A against B is
//! `1 / (1 + 10^(-(R_A - R_B) / 400))`. A draw counts as half a win.
//!
//! The SPRT is fishtest's generalised SPRT on trinomial (W/D/L) results: [`sprt_llr`] (exact
//! maximum-likelihood model) and its normal approximation [`sprt_llr_normal`], with the
//! stopping rule in [`Sprt`].

use serde::{Deserialize, Serialize};

/// z for a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Expected score (in [0, 1]) of a player `elo` points stronger than its opponent.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference giving expected score `score`: `-400 log10(1/score - 1)`.
/// `score` 0 gives `-inf`, 1 gives `+inf`, outside [0, 1] NaN.
pub fn elo_from_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// An Elo difference estimated from one player's wins, draws and losses against another.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloEstimate {
    /// Games played.
    pub games: u64,
    /// Score per game in [0, 1] (draw = 1/2).
    pub score: f64,
    /// Elo difference of the player over its opponent (±inf for a score of 1 or 0).
    pub elo: f64,
    /// Lower end of the 95% interval (normal approximation on the per-game score, mapped
    /// through [`elo_from_score`]).
    pub lo: f64,
    /// Upper end of the 95% interval.
    pub hi: f64,
    /// Likelihood of superiority `Φ((W − L) / sqrt(W + L))` in [0, 1] (0.5 when W + L = 0).
    pub los: f64,
}

/// An Elo value rounded to an integer with its sign (`0` without), `+inf` / `-inf` for a 100% / 0% score.
pub fn fmt_elo(x: f64) -> String {
    if x.is_nan() {
        "?".into()
    } else if x == f64::INFINITY {
        "+inf".into()
    } else if x == f64::NEG_INFINITY {
        "-inf".into()
    } else if x.round() == 0.0 {
        "0".into()
    } else {
        format!("{:+.0}", x)
    }
}

impl EloEstimate {
    /// `elo [lo, hi]` rounded to whole Elo, `+inf` / `-inf` for an open bound (a 100% / 0%
    /// score): the one way ladders, matches and tables print an estimate.
    ///
    /// ```
    /// use alphazero_arena::rating::elo_from_wdl;
    /// // A 4-0 sweep: the Wilson lower bound, an open upper one.
    /// assert_eq!(elo_from_wdl(4, 0, 0).unwrap().interval_text(), "+inf [+7, +inf]");
    /// ```
    pub fn interval_text(&self) -> String {
        format!(
            "{} [{}, {}]",
            fmt_elo(self.elo),
            fmt_elo(self.lo),
            fmt_elo(self.hi)
        )
    }
}

/// The standard normal CDF (Abramowitz–Stegun 7.1.26 erf, |error| < 1.5e-7).
pub fn normal_cdf(x: f64) -> f64 {
    let z = x.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-z * z).exp();
    if x >= 0.0 {
        0.5 * (1.0 + erf)
    } else {
        0.5 * (1.0 - erf)
    }
}

/// Elo ± 95% interval from wins, draws and losses (of the player whose Elo is estimated);
/// `None` when no game was played. The interval uses the per-game score variance of the
/// trinomial (draws shrink it).
pub fn elo_from_wdl(wins: u64, draws: u64, losses: u64) -> Option<EloEstimate> {
    let n = wins + draws + losses;
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let (w, d, l) = (wins as f64 / nf, draws as f64 / nf, losses as f64 / nf);
    let s = w + d / 2.0;
    let var = w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s * s;
    let (lo, hi) = if var > 0.0 {
        let se = (var / nf).sqrt();
        (
            (s - Z95 * se).clamp(0.0, 1.0),
            (s + Z95 * se).clamp(0.0, 1.0),
        )
    } else {
        // Every game had one result (0-0-20, 20-0-0, 0-20-0): the sample variance is 0 and
        // the normal interval would collapse to the point (`-inf [-inf, -inf]`). The Wilson
        // score interval stays honest there: 0-0-20 is −inf [−inf, −287].
        wilson_interval(s, nf)
    };
    let (lo, hi) = (elo_from_score(lo), elo_from_score(hi));
    let decisive = (wins + losses) as f64;
    let los = if decisive > 0.0 {
        normal_cdf((wins as f64 - losses as f64) / decisive.sqrt())
    } else {
        0.5
    };
    Some(EloEstimate {
        games: n,
        score: s,
        elo: elo_from_score(s),
        lo,
        hi,
        los,
    })
}

/// The Wilson score 95% interval of a proportion `p` observed over `n` trials (Wilson, 1927):
/// unlike the normal approximation it does not collapse at `p` = 0 or 1.
pub fn wilson_interval(p: f64, n: f64) -> (f64, f64) {
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = Z95 / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// An Elo difference from wins, draws and losses that stays finite however few the games:
/// one win and one loss are added to them (a weak prior at an even score), and the 95%
/// interval is taken in Elo space, `elo ± 1.96 · se`, with the score's standard error mapped
/// by the slope of [`elo_from_score`] (the delta method). A handful of games gives a wide
/// but bounded interval: 2-0-0 is +191 [−202, +584], 30-0-0 is +597 [+251, +943]. Used for
/// gating matches, whose few games must not give a "+1970 Elo" champion.
///
/// ```
/// use alphazero_arena::rating::elo_from_wdl_bounded;
/// let e = elo_from_wdl_bounded(2, 0, 0);
/// assert!((e.elo - 190.8).abs() < 0.1 && e.lo.is_finite() && e.hi.is_finite());
/// assert_eq!(elo_from_wdl_bounded(0, 0, 0).elo, 0.0);
/// ```
pub fn elo_from_wdl_bounded(wins: u64, draws: u64, losses: u64) -> EloEstimate {
    let (w, d, l) = (wins + 1, draws, losses + 1);
    let n = (w + d + l) as f64;
    let (pw, pd, pl) = (w as f64 / n, d as f64 / n, l as f64 / n);
    let s = pw + pd / 2.0;
    let var = pw * (1.0 - s).powi(2) + pd * (0.5 - s).powi(2) + pl * s * s;
    let se_score = (var / n).sqrt();
    // d elo / d score = 400 / (ln 10 · s (1 − s)).
    let se = se_score * 400.0 / (std::f64::consts::LN_10 * s * (1.0 - s));
    let elo = elo_from_score(s);
    let decisive = (wins + losses) as f64;
    EloEstimate {
        games: wins + draws + losses,
        score: s,
        elo,
        lo: elo - Z95 * se,
        hi: elo + Z95 * se,
        los: if decisive > 0.0 {
            normal_cdf((wins as f64 - losses as f64) / decisive.sqrt())
        } else {
            0.5
        },
    }
}

/// The results between two players `a` and `b` (indices into the name list), from `a`'s
/// point of view. Counts are `f64` so that weighted or fractional results are allowed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairResult {
    /// First player index.
    pub a: usize,
    /// Second player index.
    pub b: usize,
    /// Games `a` won.
    pub wins: f64,
    /// Draws.
    pub draws: f64,
    /// Games `a` lost.
    pub losses: f64,
}

/// One player's fitted rating.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerRating {
    /// Name.
    pub name: String,
    /// Elo relative to the anchor (the anchor is exactly 0).
    pub elo: f64,
    /// Standard error of `elo` (from the inverse Fisher information, relative to the anchor;
    /// 0 for the anchor).
    pub se: f64,
    /// `elo − 1.96 se`.
    pub lo: f64,
    /// `elo + 1.96 se`.
    pub hi: f64,
    /// Games played.
    pub games: f64,
    /// Points scored (win 1, draw 1/2).
    pub score: f64,
}

/// The result of [`fit_ratings`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ratings {
    /// Index of the anchor (rating fixed at 0).
    pub anchor: usize,
    /// Every player, in input order.
    pub players: Vec<PlayerRating>,
    /// Newton iterations used.
    pub iterations: u32,
}

impl Ratings {
    /// A text table sorted by Elo, best first: rank, name, Elo, its 95% interval `[lo, hi]`,
    /// games, score %. Elo values are rounded as [`EloEstimate::interval_text`] prints them;
    /// a player who won (lost) every game has an open bound, `+inf` (`-inf`), as in the
    /// ladder's Wilson intervals, not the finite value the fit's prior holds it at.
    pub fn to_table(&self) -> String {
        let mut idx: Vec<usize> = (0..self.players.len()).collect();
        idx.sort_by(|&a, &b| self.players[b].elo.total_cmp(&self.players[a].elo));
        let width = self
            .players
            .iter()
            .map(|p| p.name.len())
            .max()
            .unwrap_or(4)
            .max(4);
        let mut s = format!(
            "{:>3} {:<width$} {:>6} {:>15} {:>7} {:>7}\n",
            "#", "name", "elo", "95% interval", "games", "score"
        );
        for (rank, &i) in idx.iter().enumerate() {
            let p = &self.players[i];
            let pct = if p.games > 0.0 {
                100.0 * p.score / p.games
            } else {
                0.0
            };
            let (elo, interval) = if i == self.anchor {
                ("0".to_string(), "anchor".to_string())
            } else {
                let swept = p.games > 0.0 && (p.score == p.games || p.score == 0.0);
                let (elo, lo, hi) = match (swept, p.score > 0.0) {
                    (true, true) => (f64::INFINITY, p.lo, f64::INFINITY),
                    (true, false) => (f64::NEG_INFINITY, f64::NEG_INFINITY, p.hi),
                    (false, _) => (p.elo, p.lo, p.hi),
                };
                (fmt_elo(elo), format!("[{}, {}]", fmt_elo(lo), fmt_elo(hi)))
            };
            s.push_str(&format!(
                "{:>3} {:<width$} {elo:>6} {interval:>15} {:>7} {:>6.1}%\n",
                rank + 1,
                p.name,
                p.games,
                pct
            ));
        }
        s
    }
}

/// Rating input that cannot be fitted. Carries the rejected value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RatingError {
    /// The anchor index is out of range.
    #[error("anchor index {anchor} out of range for {players} players")]
    BadAnchor {
        /// The rejected index.
        anchor: usize,
        /// Number of players.
        players: usize,
    },
    /// A result names a player index out of range, the same player twice, or a negative or
    /// non-finite count.
    #[error("bad pair result {0:?}")]
    BadPair(PairResult),
}

/// Standard deviation (Elo) of the weak Gaussian prior that keeps ratings finite when a
/// player won or lost every game or is not connected to the anchor.
pub const PRIOR_SD: f64 = 2000.0;
const K: f64 = std::f64::consts::LN_10 / 400.0;

fn log_likelihood(r: &[f64], pairs: &[PairResult]) -> f64 {
    let mut ll = 0.0;
    for p in pairs {
        let x = K * (r[p.a] - r[p.b]);
        let s = p.wins + p.draws / 2.0;
        let n = p.wins + p.draws + p.losses;
        // ln σ(x) = -ln(1 + e^-x), stable for both signs.
        let ln_p = -softplus(-x);
        let ln_q = -softplus(x);
        ll += s * ln_p + (n - s) * ln_q;
    }
    ll - r.iter().map(|v| v * v).sum::<f64>() / (2.0 * PRIOR_SD * PRIOR_SD)
}

fn softplus(x: f64) -> f64 {
    if x > 30.0 {
        x
    } else {
        x.exp().ln_1p()
    }
}

/// The inverse of a small dense symmetric positive definite `a` (Gauss–Jordan elimination
/// with partial pivoting, `O(n³)`); `None` when singular. Newton steps multiply by it and
/// the standard errors are its diagonal.
fn inverse(mut a: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut inv: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
        .collect();
    for c in 0..n {
        let piv = (c..n).max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))?;
        if a[piv][c].abs() < 1e-300 {
            return None;
        }
        a.swap(c, piv);
        inv.swap(c, piv);
        let p = a[c][c];
        a[c].iter_mut().for_each(|x| *x /= p);
        inv[c].iter_mut().for_each(|x| *x /= p);
        let (pivot_a, pivot_inv) = (a[c].clone(), inv[c].clone());
        for i in (0..n).filter(|&i| i != c) {
            let f = a[i][c];
            if f != 0.0 {
                for (x, p) in a[i].iter_mut().zip(&pivot_a) {
                    *x -= f * p;
                }
                for (x, p) in inv[i].iter_mut().zip(&pivot_inv) {
                    *x -= f * p;
                }
            }
        }
    }
    Some(inv)
}

/// Fits Bradley–Terry (logistic Elo) ratings by maximum likelihood over all pairwise results
/// (draw = half a win) with Newton iterations and a line search, player `anchor` fixed at 0.
/// A weak Gaussian prior (sd [`PRIOR_SD`] Elo) keeps every rating finite (a player with only
/// wins gets a large finite rating). 95% intervals come from the inverse of the observed
/// Fisher information (the negative Hessian) of the free ratings.
///
/// # Errors
/// [`RatingError`] for an anchor out of range or a malformed [`PairResult`].
pub fn fit_ratings(
    names: &[String],
    pairs: &[PairResult],
    anchor: usize,
) -> Result<Ratings, RatingError> {
    let n = names.len();
    if anchor >= n {
        return Err(RatingError::BadAnchor { anchor, players: n });
    }
    for p in pairs {
        let counts_ok = [p.wins, p.draws, p.losses]
            .iter()
            .all(|c| c.is_finite() && *c >= 0.0);
        if p.a >= n || p.b >= n || p.a == p.b || !counts_ok {
            return Err(RatingError::BadPair(*p));
        }
    }
    // Free parameters: every player but the anchor.
    let free: Vec<usize> = (0..n).filter(|&i| i != anchor).collect();
    let pos_of = |i: usize| free.iter().position(|&f| f == i);
    let mut r = vec![0.0; n];
    let mut iterations = 0;
    let hessian = |r: &[f64]| {
        let m = free.len();
        let mut h = vec![vec![0.0; m]; m];
        let mut g = vec![0.0; m];
        for (k, row) in h.iter_mut().enumerate() {
            row[k] = 1.0 / (PRIOR_SD * PRIOR_SD);
            g[k] = -r[free[k]] / (PRIOR_SD * PRIOR_SD);
        }
        for p in pairs {
            let x = K * (r[p.a] - r[p.b]);
            let prob = 1.0 / (1.0 + (-x).exp());
            let games = p.wins + p.draws + p.losses;
            let s = p.wins + p.draws / 2.0;
            let grad = K * (s - games * prob);
            let info = K * K * games * prob * (1.0 - prob);
            let (ia, ib) = (pos_of(p.a), pos_of(p.b));
            if let Some(i) = ia {
                g[i] += grad;
                h[i][i] += info;
            }
            if let Some(j) = ib {
                g[j] -= grad;
                h[j][j] += info;
            }
            if let (Some(i), Some(j)) = (ia, ib) {
                h[i][j] -= info;
                h[j][i] -= info;
            }
        }
        (h, g)
    };
    for it in 0..200 {
        iterations = it + 1;
        let (h, g) = hessian(&r);
        let Some(inv) = inverse(h) else { break };
        let step: Vec<f64> = inv
            .iter()
            .map(|row| row.iter().zip(&g).map(|(a, b)| a * b).sum())
            .collect();
        let ll0 = log_likelihood(&r, pairs);
        let mut t = 1.0;
        let mut improved = false;
        for _ in 0..40 {
            let mut cand = r.clone();
            for (k, &i) in free.iter().enumerate() {
                cand[i] += t * step[k];
            }
            if log_likelihood(&cand, pairs) >= ll0 - 1e-12 {
                r = cand;
                improved = true;
                break;
            }
            t /= 2.0;
        }
        let max_step = step.iter().fold(0.0f64, |m, s| m.max((t * s).abs()));
        if !improved || max_step < 1e-7 {
            break;
        }
    }
    let (h, _) = hessian(&r);
    let mut se = vec![0.0; n];
    if let Some(inv) = inverse(h) {
        for (k, row) in inv.iter().enumerate() {
            se[free[k]] = row[k].max(0.0).sqrt();
        }
    }
    let mut games = vec![0.0; n];
    let mut score = vec![0.0; n];
    for p in pairs {
        let g = p.wins + p.draws + p.losses;
        games[p.a] += g;
        games[p.b] += g;
        score[p.a] += p.wins + p.draws / 2.0;
        score[p.b] += p.losses + p.draws / 2.0;
    }
    let players = (0..n)
        .map(|i| PlayerRating {
            name: names[i].clone(),
            elo: r[i],
            se: se[i],
            lo: r[i] - Z95 * se[i],
            hi: r[i] + Z95 * se[i],
            games: games[i],
            score: score[i],
        })
        .collect();
    Ok(Ratings {
        anchor,
        players,
        iterations,
    })
}

/// What an SPRT says after some games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SprtDecision {
    /// The LLR fell to the lower bound: the Elo difference is `elo0` or less (reject the
    /// tested player).
    AcceptH0,
    /// The LLR rose to the upper bound: the Elo difference is `elo1` or more (promote it).
    AcceptH1,
    /// Keep playing.
    #[default]
    Continue,
}

/// The (regularised) empirical W/D/L distribution: the number of games and the pairs
/// (per-game score, probability) for a loss (0), a draw (½) and a win (1). Zero counts are
/// replaced by 1e-3 as fishtest does, so every probability is positive.
fn wdl_pdf(wins: u64, draws: u64, losses: u64) -> (f64, [(f64, f64); 3]) {
    let reg = |x: u64| if x == 0 { 1e-3 } else { x as f64 };
    let (l, d, w) = (reg(losses), reg(draws), reg(wins));
    let n = l + d + w;
    (n, [(0.0, l / n), (0.5, d / n), (1.0, w / n)])
}

/// The maximum-likelihood distribution on the values of `pdf` with expectation `s` (`s`
/// strictly inside (0, 1)): `p_i / (1 + x (a_i − s))` where `x` solves
/// `Σ p_i (a_i − s) / (1 + x (a_i − s)) = 0` (by bisection: the left side decreases in `x`).
fn mle_with_expectation(pdf: &[(f64, f64); 3], s: f64) -> [f64; 3] {
    let f = |x: f64| -> f64 {
        pdf.iter()
            .map(|&(a, p)| p * (a - s) / (1.0 + x * (a - s)))
            .sum()
    };
    // a − s ranges over [−s, 1 − s]; 1 + x (a − s) > 0 needs x in (−1/(1 − s), 1/s).
    let (mut lo, mut hi) = (-1.0 / (1.0 - s), 1.0 / s);
    let eps = 1e-12 * (hi - lo);
    lo += eps;
    hi -= eps;
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let x = 0.5 * (lo + hi);
    let mut out = [0.0; 3];
    for (o, &(a, p)) in out.iter_mut().zip(pdf) {
        *o = p / (1.0 + x * (a - s));
    }
    out
}

/// The generalised SPRT log-likelihood ratio of H1 "Elo = `elo1`" over H0 "Elo = `elo0`"
/// (logistic Elo of the tested player over its opponent, `elo0 < elo1`) after `wins`,
/// `draws` and `losses` of the tested player: fishtest's trinomial model (`LLR_logistic`),
/// `N Σ p_i ln(q1_i / q0_i)` with `p` the empirical W/D/L distribution and `q0`, `q1` the
/// maximum-likelihood W/D/L distributions with expected scores `score_from_elo(elo0)`,
/// `score_from_elo(elo1)`. Zero counts are replaced by 1e-3. Positive values favour H1;
/// 0 when no game was played.
pub fn sprt_llr(wins: u64, draws: u64, losses: u64, elo0: f64, elo1: f64) -> f64 {
    if wins + draws + losses == 0 {
        return 0.0;
    }
    let (n, pdf) = wdl_pdf(wins, draws, losses);
    let (s0, s1) = (score_from_elo(elo0), score_from_elo(elo1));
    let q0 = mle_with_expectation(&pdf, s0);
    let q1 = mle_with_expectation(&pdf, s1);
    let per_game: f64 = pdf
        .iter()
        .zip(q0.iter().zip(&q1))
        .map(|(&(_, p), (&a, &b))| p * (b.ln() - a.ln()))
        .sum();
    n * per_game
}

/// The normal (Brownian) approximation of [`sprt_llr`] (fishtest's `LLR_alt2`):
/// `N (s1 − s0) (2 s̄ − s0 − s1) / (2 σ²)` with `s0`, `s1` the expected scores of `elo0`,
/// `elo1`, `s̄` the mean score per game and `σ²` its variance. Zero counts are replaced by
/// 1e-3. 0 when no game was played.
pub fn sprt_llr_normal(wins: u64, draws: u64, losses: u64, elo0: f64, elo1: f64) -> f64 {
    if wins + draws + losses == 0 {
        return 0.0;
    }
    let (n, pdf) = wdl_pdf(wins, draws, losses);
    let mean: f64 = pdf.iter().map(|&(a, p)| a * p).sum();
    let var: f64 = pdf.iter().map(|&(a, p)| p * (a - mean).powi(2)).sum();
    if var <= 0.0 {
        return 0.0;
    }
    let (s0, s1) = (score_from_elo(elo0), score_from_elo(elo1));
    n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
}

/// Sequential probability ratio test of H0: Elo = `elo0` against H1: Elo = `elo1` (logistic
/// Elo of the tested player over its opponent), with error rates `alpha` (false H1) and
/// `beta` (false H0), as on fishtest.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    /// Elo under H0 (e.g. 0).
    pub elo0: f64,
    /// Elo under H1 (e.g. 10).
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds (e.g. 0.05).
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds (e.g. 0.05).
    pub beta: f64,
}

impl Sprt {
    /// The log-likelihood ratio of H1 over H0 after `w` wins, `d` draws and `l` losses of the
    /// tested player: [`sprt_llr`] (fishtest's trinomial generalised SPRT). 0 when no game
    /// was played.
    pub fn llr(&self, w: u64, d: u64, l: u64) -> f64 {
        sprt_llr(w, d, l, self.elo0, self.elo1)
    }

    /// The normal approximation [`sprt_llr_normal`] of [`Sprt::llr`].
    pub fn llr_normal(&self, w: u64, d: u64, l: u64) -> f64 {
        sprt_llr_normal(w, d, l, self.elo0, self.elo1)
    }

    /// The stopping bounds `(ln(β / (1 − α)), ln((1 − β) / α))`; α = β = 0.05 gives ±2.944.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The decision for a log-likelihood ratio `llr`: H1 at or above the upper
    /// [`bounds`](Sprt::bounds), H0 at or below the lower one, else continue.
    pub fn decision_for_llr(&self, llr: f64) -> SprtDecision {
        let (lo, hi) = self.bounds();
        if llr >= hi {
            SprtDecision::AcceptH1
        } else if llr <= lo {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }

    /// Games before [`Sprt::decision`] may stop. The generalised LLR plugs in the empirical
    /// W/D/L distribution, whose variance is near zero after a handful of equal results:
    /// two draws give an LLR of −1.46 for `elo1 = 200`, past the bound of α = β = 0.2, so a
    /// test could "accept" after two games. Fishtest runs thousands of games; here a floor
    /// keeps short tests honest.
    pub const MIN_GAMES: u64 = 16;

    /// The decision after `w` wins, `d` draws and `l` losses (from [`Sprt::llr`]); always
    /// [`SprtDecision::Continue`] before [`Sprt::MIN_GAMES`] games.
    pub fn decision(&self, w: u64, d: u64, l: u64) -> SprtDecision {
        if w + d + l < Self::MIN_GAMES {
            return SprtDecision::Continue;
        }
        self.decision_for_llr(self.llr(w, d, l))
    }
}

/// Where a match played by [`sprt_match`] ended: the tested player's wins, draws and
/// losses, the SPRT's decision and log-likelihood ratio (both from the totals).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SprtMatch {
    /// Games the tested player won.
    pub wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games the tested player lost.
    pub losses: u64,
    /// The SPRT's decision ([`SprtDecision::Continue`] without a test, or when the match
    /// ended undecided).
    pub decision: SprtDecision,
    /// The log-likelihood ratio of the totals (0 without a test).
    pub llr: f64,
}

/// The one SPRT match loop (gating in training, `alphazero arena --sprt`): plays up to
/// `total` units (games, or openings) in chunks of `chunk` units by calling
/// `play_chunk(units, units_done, chunk_index)`, which returns that chunk's wins, draws and
/// losses of the tested player, and stops as soon as `sprt` decides ([`Sprt::decision`]:
/// never before [`Sprt::MIN_GAMES`] games). Without a test the whole match is one chunk.
///
/// # Errors
/// The first error of `play_chunk`.
pub fn sprt_match<E>(
    sprt: Option<&Sprt>,
    total: u32,
    chunk: u32,
    mut play_chunk: impl FnMut(u32, u32, u64) -> Result<(u64, u64, u64), E>,
) -> Result<SprtMatch, E> {
    let chunk = if sprt.is_some() {
        chunk.max(1)
    } else {
        total.max(1)
    };
    let mut m = SprtMatch::default();
    let mut done = 0u32;
    let mut index = 0u64;
    while done < total {
        let n = chunk.min(total - done);
        let (w, d, l) = play_chunk(n, done, index)?;
        (m.wins, m.draws, m.losses) = (m.wins + w, m.draws + d, m.losses + l);
        done += n;
        index += 1;
        if let Some(s) = sprt {
            m.llr = s.llr(m.wins, m.draws, m.losses);
            m.decision = s.decision(m.wins, m.draws, m.losses);
            if m.decision != SprtDecision::Continue {
                break;
            }
        }
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    #[test]
    fn sprt_match_stops_at_the_first_decided_chunk_and_plays_all_without_a_test() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 100.0,
            alpha: 0.05,
            beta: 0.05,
        };
        // A player that wins every game: H1 once MIN_GAMES games are in.
        let mut chunks = Vec::new();
        let m = sprt_match(Some(&sprt), 100, 10, |n, done, i| {
            chunks.push((n, done, i));
            Ok::<_, ()>((u64::from(n), 0, 0))
        })
        .unwrap();
        assert_eq!(m.decision, SprtDecision::AcceptH1);
        assert_eq!(
            chunks,
            vec![(10, 0, 0), (10, 10, 1)],
            "stopped after 20 games"
        );
        assert_eq!((m.wins, m.draws, m.losses), (20, 0, 0));
        assert_eq!(m.llr, sprt.llr(20, 0, 0));
        // No test: one chunk of everything, no decision, LLR 0.
        let mut calls = 0;
        let m = sprt_match(None, 7, 2, |n, _, _| {
            calls += 1;
            Ok::<_, ()>((0, u64::from(n), 0))
        })
        .unwrap();
        assert_eq!(
            (calls, m.draws, m.decision, m.llr),
            (1, 7, SprtDecision::Continue, 0.0)
        );
        // Even results stay undecided: the last chunk is cut to the total. An error stops
        // the match.
        let mut sizes = Vec::new();
        let m = sprt_match(Some(&sprt), 25, 10, |n, _, _| {
            sizes.push(n);
            let wins = u64::from(n / 2);
            Ok::<_, ()>((wins, 0, u64::from(n) - wins))
        })
        .unwrap();
        assert_eq!(sizes, vec![10, 10, 5]);
        assert_eq!(
            (m.wins + m.losses, m.decision),
            (25, SprtDecision::Continue)
        );
        let e = sprt_match(Some(&sprt), 25, 10, |_, _, _| {
            Err::<(u64, u64, u64), _>("x")
        });
        assert_eq!(e, Err("x"));
    }

    #[test]
    fn gating_elo_with_few_games_stays_bounded_with_its_interval() {
        // Regression: gating matches of a few games reported "+1970 Elo".
        let cases = [
            ((2, 0, 0), 190.8, -202.3, 584.0),
            ((30, 0, 0), 596.6, 250.7, 942.5),
            ((0, 0, 2), -190.8, -584.0, 202.3),
        ];
        for ((w, d, l), elo, lo, hi) in cases {
            let e = elo_from_wdl_bounded(w, d, l);
            assert!((e.elo - elo).abs() < 0.5, "{w}-{d}-{l}: {e:?}");
            assert!((e.lo - lo).abs() < 0.5 && (e.hi - hi).abs() < 0.5, "{e:?}");
            assert_eq!(e.games, w + d + l);
        }
        for n in [0u64, 1, 3, 10, 100, 10_000] {
            let e = elo_from_wdl_bounded(n, 0, 0);
            assert!(
                e.lo.is_finite() && e.hi.is_finite() && e.lo < e.elo && e.elo < e.hi,
                "{e:?}"
            );
            // More games: a narrower interval around a larger estimate.
            if n >= 3 {
                let fewer = elo_from_wdl_bounded(n / 3, 0, 0);
                assert!(e.elo > fewer.elo, "{n}");
            }
        }
        // Even results give 0 with a symmetric interval that shrinks with the games.
        let a = elo_from_wdl_bounded(5, 10, 5);
        let b = elo_from_wdl_bounded(50, 100, 50);
        assert!(a.elo.abs() < 1e-9 && (a.lo + a.hi).abs() < 1e-9);
        assert!(b.hi - b.lo < a.hi - a.lo);
    }

    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    #[test]
    fn score_of_three_quarters_is_plus_190_85_elo() {
        assert!((elo_from_score(0.75) - 190.848_501_887_865).abs() < 1e-6);
        assert!((score_from_elo(190.848_501_887_865) - 0.75).abs() < 1e-9);
        assert_eq!(elo_from_score(0.5), 0.0);
    }

    #[test]
    fn symmetric_results_give_zero_elo() {
        let e = elo_from_wdl(30, 40, 30).expect("games");
        assert!(e.elo.abs() < 1e-9);
        assert!(e.lo < 0.0 && e.hi > 0.0);
        assert!((e.lo + e.hi).abs() < 1e-6);
        assert!((e.los - 0.5).abs() < 1e-9);
        assert!(elo_from_wdl(0, 0, 0).is_none());
        let names: Vec<String> = ["a", "b"].map(String::from).to_vec();
        let pairs = [PairResult {
            a: 0,
            b: 1,
            wins: 12.0,
            draws: 6.0,
            losses: 12.0,
        }];
        let r = fit_ratings(&names, &pairs, 0).expect("fit");
        assert!(r.players[1].elo.abs() < 1e-6);
    }

    #[test]
    fn draws_narrow_the_interval() {
        let decisive = elo_from_wdl(60, 0, 40).expect("games");
        let drawish = elo_from_wdl(30, 60, 10).expect("games");
        assert!((decisive.score - drawish.score).abs() < 1e-12);
        assert!(drawish.hi - drawish.lo < decisive.hi - decisive.lo);
    }

    #[test]
    fn two_player_fit_matches_the_score_formula() {
        let names: Vec<String> = ["a", "b"].map(String::from).to_vec();
        let pairs = [PairResult {
            a: 0,
            b: 1,
            wins: 50.0,
            draws: 20.0,
            losses: 30.0,
        }];
        let r = fit_ratings(&names, &pairs, 1).expect("fit");
        // The prior pulls the estimate by a negligible amount.
        assert!(
            (r.players[0].elo - elo_from_score(0.6)).abs() < 0.5,
            "{:?}",
            r.players[0]
        );
        assert_eq!(r.players[1].elo, 0.0);
        assert_eq!(r.players[1].se, 0.0);
    }

    /// A 4-0 sweep printed `818.9 ±1645.9` (the fit's prior holds the sweeper finite) where
    /// the ladder prints an open bound: the table now shows the sweeper's open bound too.
    #[test]
    fn ratings_table_gives_a_sweep_an_open_bound_not_the_priors_finite_value() {
        let names: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let pair = |a, b, wins, draws, losses| PairResult {
            a,
            b,
            wins,
            draws,
            losses,
        };
        // b beats everyone; c loses to everyone; a is the anchor.
        let pairs = [
            pair(1, 0, 4.0, 0.0, 0.0),
            pair(1, 2, 4.0, 0.0, 0.0),
            pair(0, 2, 3.0, 0.0, 0.0),
        ];
        let fit = fit_ratings(&names, &pairs, 0).unwrap();
        let table = fit.to_table();
        let row = |name: &str| {
            table
                .lines()
                .find(|l| l.split_whitespace().nth(1) == Some(name))
                .unwrap_or_else(|| panic!("{name}: {table}"))
                .to_string()
        };
        assert!(
            row("b").contains("+inf") && row("b").trim_end().ends_with("100.0%"),
            "{table}"
        );
        assert!(row("b").contains(", +inf]"), "{table}");
        assert!(row("c").contains("[-inf, "), "{table}");
        assert!(row("a").contains("anchor"), "{table}");
        assert!(!table.contains('±'), "{table}");
        // The pair estimate the ladder and a two-player arena print.
        assert_eq!(
            elo_from_wdl(4, 0, 0).unwrap().interval_text(),
            "+inf [+7, +inf]"
        );
    }

    #[test]
    fn bradley_terry_fit_recovers_synthetic_ratings_within_ci() {
        let truth = [0.0, 120.0, 300.0, -150.0];
        let names: Vec<String> = (0..truth.len()).map(|i| format!("p{i}")).collect();
        let mut rng = StdRng::seed_from_u64(2024);
        let mut pairs = Vec::new();
        for a in 0..truth.len() {
            for b in a + 1..truth.len() {
                let p = score_from_elo(truth[a] - truth[b]);
                let draw = 0.2f64.min(2.0 * p.min(1.0 - p));
                let mut r = PairResult {
                    a,
                    b,
                    wins: 0.0,
                    draws: 0.0,
                    losses: 0.0,
                };
                for _ in 0..400 {
                    let x: f64 = rng.random();
                    if x < p - draw / 2.0 {
                        r.wins += 1.0;
                    } else if x < p + draw / 2.0 {
                        r.draws += 1.0;
                    } else {
                        r.losses += 1.0;
                    }
                }
                pairs.push(r);
            }
        }
        let fit = fit_ratings(&names, &pairs, 0).expect("fit");
        for (p, t) in fit.players.iter().zip(truth) {
            assert!(
                p.lo <= t && t <= p.hi,
                "{} fitted {:.1} [{:.1}, {:.1}], true {t}",
                p.name,
                p.elo,
                p.lo,
                p.hi
            );
            if p.name != "p0" {
                assert!(p.se > 5.0 && p.se < 60.0, "{p:?}");
            }
        }
        let order: Vec<usize> = {
            let mut v: Vec<usize> = (0..4).collect();
            v.sort_by(|&a, &b| fit.players[b].elo.total_cmp(&fit.players[a].elo));
            v
        };
        assert_eq!(order, vec![2, 1, 0, 3]);
        assert!(fit.to_table().contains("p2"));
    }

    #[test]
    fn all_wins_give_a_large_finite_rating() {
        let names: Vec<String> = ["a", "b"].map(String::from).to_vec();
        let pairs = [PairResult {
            a: 0,
            b: 1,
            wins: 20.0,
            draws: 0.0,
            losses: 0.0,
        }];
        let r = fit_ratings(&names, &pairs, 1).expect("fit");
        assert!(
            r.players[0].elo.is_finite() && r.players[0].elo > 500.0,
            "{:?}",
            r.players[0]
        );
    }

    #[test]
    fn fit_rejects_bad_input() {
        let names: Vec<String> = ["a", "b"].map(String::from).to_vec();
        assert_eq!(
            fit_ratings(&names, &[], 2),
            Err(RatingError::BadAnchor {
                anchor: 2,
                players: 2
            })
        );
        let bad = PairResult {
            a: 0,
            b: 0,
            wins: 1.0,
            draws: 0.0,
            losses: 0.0,
        };
        assert_eq!(
            fit_ratings(&names, &[bad], 0),
            Err(RatingError::BadPair(bad))
        );
        let neg = PairResult {
            a: 0,
            b: 1,
            wins: -1.0,
            draws: 0.0,
            losses: 0.0,
        };
        assert_eq!(
            fit_ratings(&names, &[neg], 0),
            Err(RatingError::BadPair(neg))
        );
    }

    #[test]
    fn sprt_decides_clear_cases_and_continues_otherwise() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let (lo, hi) = sprt.bounds();
        assert!((hi - (0.95f64 / 0.05).ln()).abs() < 1e-12);
        assert!((lo + hi).abs() < 1e-12);
        assert_eq!(sprt.decision(2000, 500, 1000), SprtDecision::AcceptH1);
        assert_eq!(sprt.decision(1000, 500, 2000), SprtDecision::AcceptH0);
        assert_eq!(sprt.decision(10, 5, 9), SprtDecision::Continue);
        assert_eq!(sprt.llr(0, 0, 0), 0.0);
        assert!(sprt.llr(100, 0, 100) < 0.0);
    }

    #[test]
    fn sprt_llr_normal_matches_hand_computation() {
        // w=60 d=20 l=20: mu = 0.7, var = 0.6*0.09 + 0.2*0.04 + 0.2*0.49 = 0.16.
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 100.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let s1 = score_from_elo(100.0);
        let expected = 100.0 * (s1 - 0.5) * (1.4 - 0.5 - s1) / (2.0 * 0.16);
        assert!((sprt.llr_normal(60, 20, 20) - expected).abs() < 1e-9);
        // W = D = L = 100: mean 0.5, σ² = 1/6; s0 = 0.5, s1 = L(10).
        let s1 = score_from_elo(10.0);
        let expected = 300.0 * (s1 - 0.5) * (1.0 - 0.5 - s1) / (1.0 / 6.0) / 2.0;
        assert!((sprt_llr_normal(100, 100, 100, 0.0, 10.0) - expected).abs() < 1e-9);
        assert_eq!(sprt_llr_normal(0, 0, 0, 0.0, 10.0), 0.0);
    }

    #[test]
    fn sprt_llr_exact_is_close_to_normal_approximation_for_small_elo_gaps() {
        for (w, d, l) in [(120, 300, 100), (100, 300, 130), (1000, 1500, 900)] {
            let exact = sprt_llr(w, d, l, 0.0, 10.0);
            let approx = sprt_llr_normal(w, d, l, 0.0, 10.0);
            assert!(
                (exact - approx).abs() <= 0.02 * approx.abs().max(1.0),
                "{exact} vs {approx}"
            );
        }
    }

    #[test]
    fn sprt_llr_sign_follows_the_score_against_the_hypotheses() {
        // elo0 = 0, elo1 = 50: s0 = 0.5, s1 ≈ 0.5715.
        assert!(sprt_llr(60, 20, 20, 0.0, 50.0) > 0.0); // score 0.7 > s1
        assert!(sprt_llr(20, 20, 60, 0.0, 50.0) < 0.0); // score 0.3 < s0
        assert!(sprt_llr(40, 20, 40, 0.0, 50.0) < 0.0); // score 0.5 = s0
        assert_eq!(sprt_llr(0, 0, 0, 0.0, 50.0), 0.0);
        // Near the midpoint (s0 + s1) / 2 ≈ 0.5357 the LLR is about 0.
        let llr = sprt_llr_normal(5357, 0, 4643, 0.0, 50.0);
        assert!(llr.abs() < 0.2, "{llr}");
    }

    #[test]
    fn mle_distribution_has_the_requested_expectation() {
        let (_, pdf) = wdl_pdf(30, 50, 20);
        for s in [0.3, 0.5, 0.55, 0.8] {
            let q = mle_with_expectation(&pdf, s);
            let sum: f64 = q.iter().sum();
            let mean = 0.5 * q[1] + q[2];
            assert!((sum - 1.0).abs() < 1e-9 && (mean - s).abs() < 1e-9, "{q:?}");
        }
    }

    #[test]
    fn sprt_all_wins_is_regularised_and_accepts_h1() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 35.0,
            alpha: 0.05,
            beta: 0.05,
        };
        assert_eq!(sprt.decision(150, 50, 50), SprtDecision::AcceptH1);
        assert_eq!(sprt.decision(50, 50, 150), SprtDecision::AcceptH0);
        assert_eq!(sprt.decision(3, 2, 2), SprtDecision::Continue);
        let llr = sprt.llr(40, 0, 0);
        assert!(llr.is_finite(), "{llr}");
        assert_eq!(sprt.decision_for_llr(llr), SprtDecision::AcceptH1);
        assert!((sprt.bounds().1 - 2.944_438_979_166_44).abs() < 1e-12);
    }

    #[test]
    fn elo_interval_matches_hand_computation_and_shrinks_with_games() {
        // 60 wins 40 losses: score 0.6, σ² = 0.24, half width 1.96·√(0.0024).
        let e = elo_from_wdl(60, 0, 40).expect("games");
        assert!((e.score - 0.6).abs() < 1e-12);
        let lo = elo_from_score(0.6 - Z95 * 0.0024f64.sqrt());
        assert!(
            (e.lo - lo).abs() < 1e-9 && (e.lo - 2.8).abs() < 0.5,
            "{}",
            e.lo
        );
        let small = elo_from_wdl(30, 40, 30).expect("games");
        let big = elo_from_wdl(300, 400, 300).expect("games");
        assert!(big.hi - big.lo < small.hi - small.lo);
    }

    /// A 0-0-20 ladder rung printed `-inf [-inf, -inf]`: an interval of one point from 20
    /// games. The bound away from the observed score is now the Wilson one.
    #[test]
    fn elo_interval_of_a_one_sided_result_is_not_a_point() {
        let lost = elo_from_wdl(0, 0, 20).expect("games");
        assert_eq!((lost.elo, lost.lo), (f64::NEG_INFINITY, f64::NEG_INFINITY));
        // Wilson upper bound for 0/20: (z²/2n + z·√(z²/4n²)) / (1 + z²/n) = 0.1611.
        assert!(
            (lost.hi - elo_from_score(0.161_12)).abs() < 0.5,
            "{}",
            lost.hi
        );
        assert!((lost.hi + 287.0).abs() < 1.0, "{}", lost.hi);
        let won = elo_from_wdl(20, 0, 0).expect("games");
        assert_eq!(won.hi, f64::INFINITY);
        assert!((won.lo - 287.0).abs() < 1.0, "{}", won.lo);
        let drawn = elo_from_wdl(0, 20, 0).expect("games");
        assert!(drawn.elo == 0.0 && drawn.lo < -100.0 && (drawn.lo + drawn.hi).abs() < 1e-9);
        // More games, a narrower bound.
        assert!(elo_from_wdl(0, 0, 200).unwrap().hi < lost.hi);
    }

    #[test]
    fn elo_from_score_round_trips_and_saturates() {
        assert!((elo_from_score(0.9) - 381.697_003_775_73).abs() < 1e-9);
        assert!((elo_from_score(0.25) + 190.848_501_887_865).abs() < 1e-9);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
        for elo in [-300.0, -20.0, 0.0, 5.0, 400.0] {
            assert!((elo_from_score(score_from_elo(elo)) - elo).abs() < 1e-9);
        }
    }

    #[test]
    fn normal_cdf_known_values() {
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_cdf(Z95) - 0.975).abs() < 1e-6);
        assert!((normal_cdf(-1.0) - 0.158_655_25).abs() < 1e-6);
    }

    #[test]
    fn sprt_does_not_stop_after_two_draws() {
        // A wide test (elo1 = 200, α = β = 0.2: bounds ±1.386).
        let s = Sprt {
            elo0: 0.0,
            elo1: 200.0,
            alpha: 0.2,
            beta: 0.2,
        };
        // The raw LLR after two draws already crosses the lower bound (≈ −1.46)...
        assert_eq!(s.decision_for_llr(s.llr(0, 2, 0)), SprtDecision::AcceptH0);
        // ...but the test itself waits for MIN_GAMES games.
        assert_eq!(s.decision(0, 2, 0), SprtDecision::Continue);
        assert_eq!(s.decision(2, 0, 0), SprtDecision::Continue);
        assert_eq!(s.decision(0, Sprt::MIN_GAMES, 0), SprtDecision::AcceptH0);
        assert_eq!(s.decision(Sprt::MIN_GAMES, 0, 0), SprtDecision::AcceptH1);
    }
}
