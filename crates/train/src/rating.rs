//! Elo estimates and the sequential probability ratio test (SPRT) used by gating and the arena.
//!
//! Scores are from the candidate's (first-named player's) view: a win counts 1, a draw ½, a
//! loss 0. Elo is the logistic Elo: expected score `1 / (1 + 10^(-elo/400))`.
//!
//! The SPRT is fishtest's generalized SPRT on trinomial (W/D/L) results: the log-likelihood
//! ratio of "score = s1" against "score = s0", each the maximum-likelihood W/D/L distribution
//! with that expected score ([`sprt_llr`]), and its normal (Brownian) approximation
//! `N (s1 − s0)(2 s̄ − s0 − s1) / (2 σ²)` ([`sprt_llr_normal`]). Zero counts are replaced by
//! 10⁻³ before either is computed, as fishtest does.

/// The 97.5 % quantile of the standard normal distribution (for 95 % two-sided intervals).
pub const Z_975: f64 = 1.959_963_984_540_054;

/// Expected score of a player `elo` points stronger: `1 / (1 + 10^(-elo/400))`, in `(0, 1)`.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference of an expected score: `-400 · log10(1/score − 1)`.
/// Score 0.5 → 0; score ≤ 0 → −∞; score ≥ 1 → +∞; NaN → NaN.
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// An Elo estimate from W/D/L counts with a 95 % confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// Games played.
    pub games: u64,
    /// Mean score per game in `[0, 1]`.
    pub score: f64,
    /// Elo difference of the mean score (±∞ for a perfect or zero score).
    pub elo: f64,
    /// Lower end of the 95 % interval (Elo of `score − 1.96 σ/√n`).
    pub lower: f64,
    /// Upper end of the 95 % interval (Elo of `score + 1.96 σ/√n`).
    pub upper: f64,
}

/// The Elo estimate and a 95 % normal-approximation confidence interval from `wins`, `draws`
/// and `losses` (of the player whose Elo difference is estimated). `None` when no game was played.
pub fn elo_estimate(wins: u64, draws: u64, losses: u64) -> Option<EloEstimate> {
    let n = wins + draws + losses;
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let (w, d, l) = (wins as f64 / nf, draws as f64 / nf, losses as f64 / nf);
    let score = w + 0.5 * d;
    let var = w * (1.0 - score).powi(2) + d * (0.5 - score).powi(2) + l * score.powi(2);
    let half = Z_975 * (var / nf).sqrt();
    Some(EloEstimate {
        games: n,
        score,
        elo: elo_from_score(score),
        lower: elo_from_score(score - half),
        upper: elo_from_score(score + half),
    })
}

/// The decision of an SPRT after the games so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SprtDecision {
    /// The LLR reached the lower bound: accept H0 (the Elo difference is `elo0`, i.e. reject
    /// the candidate).
    AcceptH0,
    /// The LLR reached the upper bound: accept H1 (the Elo difference is `elo1`; promote).
    AcceptH1,
    /// Neither bound is reached: play more games.
    Continue,
}

/// The SPRT bounds `(ln(β/(1−α)), ln((1−β)/α))` for false-positive rate `alpha` and
/// false-negative rate `beta` (both in `(0, 1)`); α = β = 0.05 gives ±2.944.
pub fn sprt_bounds(alpha: f64, beta: f64) -> (f64, f64) {
    ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
}

/// The SPRT decision for a log-likelihood ratio `llr` (bounds from [`sprt_bounds`]).
pub fn sprt_decision(llr: f64, alpha: f64, beta: f64) -> SprtDecision {
    let (lower, upper) = sprt_bounds(alpha, beta);
    if llr >= upper {
        SprtDecision::AcceptH1
    } else if llr <= lower {
        SprtDecision::AcceptH0
    } else {
        SprtDecision::Continue
    }
}

/// The (regularised) empirical W/D/L distribution: values (0, ½, 1) for L, D, W, their
/// probabilities, and the (regularised) number of games.
fn pdf(wins: u64, draws: u64, losses: u64) -> (f64, [(f64, f64); 3]) {
    let reg = |x: u64| if x == 0 { 1e-3 } else { x as f64 };
    let (l, d, w) = (reg(losses), reg(draws), reg(wins));
    let n = l + d + w;
    (n, [(0.0, l / n), (0.5, d / n), (1.0, w / n)])
}

/// The maximum-likelihood distribution on the same values as `pdf` with expectation `s`
/// (`s` strictly inside `(0, 1)`): `p_i / (1 + x (a_i − s))` where `x` solves the secular
/// equation `Σ p_i (a_i − s) / (1 + x (a_i − s)) = 0` (found by bisection; the left side
/// decreases in `x`).
fn mle_with_expectation(pdf: &[(f64, f64); 3], s: f64) -> [f64; 3] {
    let f = |x: f64| -> f64 {
        pdf.iter()
            .map(|&(a, p)| p * (a - s) / (1.0 + x * (a - s)))
            .sum()
    };
    // The values shifted by s range over [−s, 1 − s]; 1 + x(a − s) > 0 needs x in (−1/(1−s), 1/s).
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

/// The generalized SPRT log-likelihood ratio of H1 "Elo difference = `elo1`" against H0
/// "Elo difference = `elo0`" (logistic Elo, `elo0 < elo1`) after `wins`/`draws`/`losses` of
/// the candidate, using fishtest's trinomial maximum-likelihood model (`LLR_logistic`).
/// Positive values favour H1. Returns 0 when no game was played.
pub fn sprt_llr(wins: u64, draws: u64, losses: u64, elo0: f64, elo1: f64) -> f64 {
    if wins + draws + losses == 0 {
        return 0.0;
    }
    let (n, pdf) = pdf(wins, draws, losses);
    let (s0, s1) = (score_from_elo(elo0), score_from_elo(elo1));
    let p0 = mle_with_expectation(&pdf, s0);
    let p1 = mle_with_expectation(&pdf, s1);
    let per_game: f64 = pdf
        .iter()
        .zip(p0.iter().zip(&p1))
        .map(|(&(_, p), (&q0, &q1))| p * (q1.ln() - q0.ln()))
        .sum();
    n * per_game
}

/// The normal approximation of [`sprt_llr`] (fishtest's `LLR_alt2`):
/// `N (s1 − s0)(2 s̄ − s0 − s1) / (2 σ²)` with s̄ and σ² the mean and variance of the
/// per-game score. Returns 0 when no game was played.
pub fn sprt_llr_normal(wins: u64, draws: u64, losses: u64, elo0: f64, elo1: f64) -> f64 {
    if wins + draws + losses == 0 {
        return 0.0;
    }
    let (n, pdf) = pdf(wins, draws, losses);
    let mean: f64 = pdf.iter().map(|&(a, p)| a * p).sum();
    let var: f64 = pdf.iter().map(|&(a, p)| p * (a - mean).powi(2)).sum();
    let (s0, s1) = (score_from_elo(elo0), score_from_elo(elo1));
    n * (s1 - s0) * (2.0 * mean - s0 - s1) / var / 2.0
}

/// An SPRT configuration: hypotheses `elo0 < elo1` (logistic Elo) and error rates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo difference under H0.
    pub elo0: f64,
    /// Elo difference under H1.
    pub elo1: f64,
    /// False-positive rate (accepting H1 when H0 holds).
    pub alpha: f64,
    /// False-negative rate (accepting H0 when H1 holds).
    pub beta: f64,
}

impl Sprt {
    /// The LLR ([`sprt_llr`]) and the decision for the results so far.
    pub fn test(&self, wins: u64, draws: u64, losses: u64) -> (f64, SprtDecision) {
        let llr = sprt_llr(wins, draws, losses, self.elo0, self.elo1);
        (llr, sprt_decision(llr, self.alpha, self.beta))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn elo_of_known_scores() {
        assert_eq!(elo_from_score(0.5), 0.0);
        assert!(close(elo_from_score(0.75), 190.848_501_887_865, 1e-9));
        assert!(close(elo_from_score(0.25), -190.848_501_887_865, 1e-9));
        assert!(close(elo_from_score(0.9), 381.697_003_775_73, 1e-9));
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
        for elo in [-300.0, -20.0, 0.0, 5.0, 400.0] {
            assert!(close(elo_from_score(score_from_elo(elo)), elo, 1e-9));
        }
    }

    #[test]
    fn elo_interval_contains_estimate_and_shrinks_with_games() {
        let small = elo_estimate(30, 40, 30).unwrap();
        let big = elo_estimate(300, 400, 300).unwrap();
        assert_eq!(small.elo, 0.0);
        assert!(small.lower < 0.0 && small.upper > 0.0);
        assert!(big.upper - big.lower < small.upper - small.lower);
        // 60 wins 40 losses: score 0.6, σ² = 0.24, half width 1.96·√(0.0024) = 0.0960.
        let e = elo_estimate(60, 0, 40).unwrap();
        assert!(close(e.score, 0.6, 1e-12));
        assert!(close(
            e.lower,
            elo_from_score(0.6 - Z_975 * 0.0024f64.sqrt()),
            1e-9
        ));
        assert!(close(e.lower, 2.8, 0.5), "{}", e.lower);
        assert!(elo_estimate(0, 0, 0).is_none());
    }

    #[test]
    fn sprt_bounds_for_five_percent_errors() {
        let (lo, hi) = sprt_bounds(0.05, 0.05);
        assert!(close(lo, -2.944_438_979_166_44, 1e-12));
        assert!(close(hi, 2.944_438_979_166_44, 1e-12));
        assert_eq!(sprt_decision(3.0, 0.05, 0.05), SprtDecision::AcceptH1);
        assert_eq!(sprt_decision(-3.0, 0.05, 0.05), SprtDecision::AcceptH0);
        assert_eq!(sprt_decision(0.0, 0.05, 0.05), SprtDecision::Continue);
    }

    #[test]
    fn llr_sign_follows_the_score_against_the_hypotheses() {
        // elo0 = 0, elo1 = 50: s0 = 0.5, s1 ≈ 0.5715.
        assert!(sprt_llr(60, 20, 20, 0.0, 50.0) > 0.0); // score 0.7 > s1
        assert!(sprt_llr(20, 20, 60, 0.0, 50.0) < 0.0); // score 0.3 < s0
        assert!(sprt_llr(40, 20, 40, 0.0, 50.0) < 0.0); // score 0.5 = s0
        assert_eq!(sprt_llr(0, 0, 0, 0.0, 50.0), 0.0);
        // Halfway between s0 and s1 the normal approximation is exactly 0.
        let mid = 0.5 * (score_from_elo(0.0) + score_from_elo(50.0));
        assert!(mid > 0.5);
        let llr = sprt_llr_normal(5357, 0, 4643, 0.0, 50.0);
        assert!(llr.abs() < 0.2, "{llr}");
    }

    #[test]
    fn llr_normal_matches_hand_computation() {
        // W=D=L=100: mean 0.5, σ² = 1/6; s0 = 0.5, s1 = L(10).
        let s1 = score_from_elo(10.0);
        let expected = 300.0 * (s1 - 0.5) * (1.0 - 0.5 - s1) / (1.0 / 6.0) / 2.0;
        assert!(close(
            sprt_llr_normal(100, 100, 100, 0.0, 10.0),
            expected,
            1e-9
        ));
    }

    #[test]
    fn llr_exact_is_close_to_normal_approximation_for_small_elo_gaps() {
        for (w, d, l) in [(120, 300, 100), (100, 300, 130), (1000, 1500, 900)] {
            let exact = sprt_llr(w, d, l, 0.0, 10.0);
            let approx = sprt_llr_normal(w, d, l, 0.0, 10.0);
            assert!(
                close(exact, approx, 0.02 * approx.abs().max(1.0)),
                "{exact} vs {approx}"
            );
        }
    }

    #[test]
    fn mle_distribution_has_the_requested_expectation() {
        let (_, pdf) = pdf(30, 50, 20);
        for s in [0.3, 0.5, 0.55, 0.8] {
            let q = mle_with_expectation(&pdf, s);
            let sum: f64 = q.iter().sum();
            let mean = 0.5 * q[1] + q[2];
            assert!(close(sum, 1.0, 1e-9) && close(mean, s, 1e-9), "{q:?}");
        }
    }

    #[test]
    fn sprt_accepts_clear_winner_and_rejects_clear_loser() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 35.0,
            alpha: 0.05,
            beta: 0.05,
        };
        assert_eq!(sprt.test(150, 50, 50).1, SprtDecision::AcceptH1);
        assert_eq!(sprt.test(50, 50, 150).1, SprtDecision::AcceptH0);
        assert_eq!(sprt.test(3, 2, 2).1, SprtDecision::Continue);
        // All wins (zero draws and losses) is regularised, not a division by zero.
        let (llr, d) = sprt.test(40, 0, 0);
        assert!(llr.is_finite() && d == SprtDecision::AcceptH1, "{llr}");
    }
}
