//! Ladders.
//!
//! * A strength ladder: one challenger against a list of opponents of rising strength (the
//!   rungs), each met in its own gauntlet ([`crate::Pairing::Gauntlet`] via
//!   [`crate::run_match`]), reported as one row per rung with W-D-L, score and Elo ± 95%
//!   ([`crate::elo_from_wdl`]), as plain text or Markdown.
//! * A rating ladder over many players in chronological order (the networks of a training
//!   run): [`snapshot_pairs`] chooses the pairs that meet — each player against its next
//!   neighbours and against a few anchors spread over the run, the anchors among themselves —
//!   so that the games grow linearly with the players instead of quadratically, and
//!   [`run_pairs`] plays them; the Bradley–Terry fit over all games
//!   ([`crate::MatchResult::ratings`]) gives every player an Elo with its interval.
//! * Both at once: a run's networks (some of them, [`every_nth`]) each against the same
//!   fixed rungs, the pairs of [`rung_pairs`] played by [`run_pairs`], one
//!   [`NetworkRungs`] row per network ([`rungs_table`], [`rungs_markdown`]): Elo against
//!   fixed opponents over training, which the self-relative rating ladder overstates.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use alphazero_game::{mix_seed, Game};
use serde::{Deserialize, Serialize};

use crate::matches::{MatchConfig, MatchError, MatchResult, Pairing, Termination};
use crate::rating::{elo_from_wdl, EloEstimate};
use crate::schedule::run_match;

/// The pairs of a rating ladder over `n` players in chronological order (0 the oldest), each
/// pair `(a, b)` with `a < b`, sorted:
/// * every player against its next `neighbours` players (the chain that measures each
///   step of training);
/// * `anchors` anchor players spread evenly over the order (the first and the last among
///   them) in a round robin, and every other player against the anchor at or before it,
///   the one after it, and one more anchor drawn with `seed` (the links that keep the
///   chain's errors from adding up over a long run).
///
/// About `n · (neighbours + 3) + anchors² / 2` pairs, against `n (n − 1) / 2` for a round
/// robin: 1,300 instead of 31,000 for 250 networks with 2 neighbours and 10 anchors. With
/// `anchors` ≥ `n` (or `n` small) every pair is played. The pairs connect all players when
/// `n` ≥ 2 and `neighbours` or `anchors` ≥ 1.
pub fn snapshot_pairs(
    n: usize,
    neighbours: usize,
    anchors: usize,
    seed: u64,
) -> Vec<(usize, usize)> {
    let mut pairs = std::collections::BTreeSet::new();
    if n < 2 {
        return Vec::new();
    }
    if anchors >= n {
        for a in 0..n {
            for b in a + 1..n {
                pairs.insert((a, b));
            }
        }
        return pairs.into_iter().collect();
    }
    for a in 0..n {
        for b in a + 1..=(a + neighbours).min(n - 1) {
            pairs.insert((a, b));
        }
    }
    let k = anchors.max(usize::from(anchors > 0) * 2).min(n);
    let anchor_ids: Vec<usize> = (0..k)
        .map(|i| {
            if k == 1 {
                0
            } else {
                (i * (n - 1) + (k - 1) / 2) / (k - 1)
            }
        })
        .collect();
    for (i, &a) in anchor_ids.iter().enumerate() {
        for &b in &anchor_ids[i + 1..] {
            if a != b {
                pairs.insert((a.min(b), a.max(b)));
            }
        }
    }
    if !anchor_ids.is_empty() {
        for p in 0..n {
            let below = anchor_ids.iter().rposition(|&a| a <= p).unwrap_or(0);
            let above = (below + 1).min(anchor_ids.len() - 1);
            // One reproducible draw per player: the one seed mixer.
            let drawn = (mix_seed(seed, p as u64) % anchor_ids.len() as u64) as usize;
            for j in [below, above, drawn] {
                let a = anchor_ids[j];
                if a != p {
                    pairs.insert((a.min(p), a.max(p)));
                }
            }
        }
    }
    pairs.into_iter().collect()
}

/// The networks a ladder over `n` networks in training order takes when it takes every
/// `every`-th (0 counts as 1): the first, the `every + 1`-th, … and always the last (the
/// run's newest strength), as increasing indices.
///
/// ```
/// use alphazero_arena::ladder::every_nth;
/// assert_eq!(every_nth(7, 3), [0, 3, 6]);
/// assert_eq!(every_nth(8, 3), [0, 3, 6, 7]);
/// assert_eq!(every_nth(3, 1), [0, 1, 2]);
/// assert!(every_nth(0, 2).is_empty());
/// ```
pub fn every_nth(n: usize, every: usize) -> Vec<usize> {
    let mut picked: Vec<usize> = (0..n).step_by(every.max(1)).collect();
    if n > 0 && picked.last() != Some(&(n - 1)) {
        picked.push(n - 1);
    }
    picked
}

/// The pairs of a rungs ladder: entrants `0..networks` are the networks, the `rungs` after
/// them the rungs, and every network meets every rung, `(network, rung)` ordered by network
/// and then by rung, for [`run_pairs`].
pub fn rung_pairs(networks: usize, rungs: usize) -> Vec<(usize, usize)> {
    (0..networks)
        .flat_map(|a| (networks..networks + rungs).map(move |b| (a, b)))
        .collect()
}

/// One network of a training run against the fixed rungs: what training was behind it and
/// its results against each rung (from its side).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NetworkRungs {
    /// The network's player name (e.g. `champion-0003@200`).
    pub network: String,
    /// Iterations of training behind it (0 = the initial network).
    pub iteration: u32,
    /// Self-play games of the run behind it; `None` where the run's metrics do not say.
    pub selfplay_games: Option<u64>,
    /// The trainer's CPU-hours behind it; `None` where the run's metrics do not say (metrics
    /// written before CPU time was logged).
    pub cpu_hours: Option<f64>,
    /// Its results against each rung, in the rungs' order.
    pub rungs: Vec<LadderRow>,
}

impl NetworkRungs {
    /// The row of entrant `network` of `result` against each of the entrants `rungs`.
    pub fn from_match(
        result: &MatchResult,
        network: usize,
        rungs: std::ops::Range<usize>,
        iteration: u32,
        selfplay_games: Option<u64>,
        cpu_hours: Option<f64>,
    ) -> NetworkRungs {
        NetworkRungs {
            network: result.players.get(network).cloned().unwrap_or_default(),
            iteration,
            selfplay_games,
            cpu_hours,
            rungs: rungs
                .map(|r| LadderRow::from_match(result, network, r))
                .collect(),
        }
    }

    /// The cells of the row: network, iteration, self-play games, CPU-hours (`-` where
    /// unknown), then per rung `W-D-L` (with the failures, if any) and `Elo [lo, hi]`.
    fn cells(&self) -> Vec<String> {
        let mut cells = vec![
            self.network.clone(),
            self.iteration.to_string(),
            self.selfplay_games
                .map_or_else(|| "-".into(), |g| g.to_string()),
            self.cpu_hours.map_or_else(|| "-".into(), cpu_hours_text),
        ];
        for row in &self.rungs {
            let c = row.cells();
            cells.push(if row.failures > 0 {
                format!("{} ({} failed)", c[2], row.failures)
            } else {
                c[2].clone()
            });
            cells.push(c[4].clone());
        }
        cells
    }
}

/// CPU-hours with about three significant digits for a table cell: `0.0635`, `1.25`, `312.4`
/// (a young run's minutes are not rounded to `0.000`).
fn cpu_hours_text(h: f64) -> String {
    if h < 0.1 {
        format!("{h:.4}")
    } else if h < 10.0 {
        format!("{h:.3}")
    } else {
        format!("{h:.1}")
    }
}

/// The header of a rungs table over `rows`: the network's four columns, then `RUNG W-D-L`
/// and `RUNG Elo (95%)` for each rung of the first row.
fn rungs_header(rows: &[NetworkRungs]) -> Vec<String> {
    let mut header: Vec<String> = ["network", "iteration", "self-play games", "CPU-hours"]
        .map(String::from)
        .into();
    for r in rows.first().map_or(&[][..], |r| &r.rungs) {
        header.push(format!("{} W-D-L", r.rung));
        header.push(format!("{} Elo (95%)", r.rung));
    }
    header
}

/// The rungs ladder as an aligned text table: one row per network in training order (its
/// iteration, the self-play games and trainer CPU-hours behind it), then W-D-L and Elo ± 95%
/// of the network over each rung ([`LadderRow::elo`], as in [`ladder_table`]).
pub fn rungs_table(rows: &[NetworkRungs]) -> String {
    let cells: Vec<Vec<String>> = rows.iter().map(NetworkRungs::cells).collect();
    let mut s = "Networks against fixed rungs (W-D-L and Elo of each network over each rung, 95% \
         interval):\n"
        .to_string();
    s.push_str(&aligned(&rungs_header(rows), &cells));
    s
}

/// The rungs ladder as a Markdown section: a heading naming the run and game, a pipe table
/// with the columns of [`rungs_table`], and `notes` (e.g. the command line and settings) as
/// a paragraph after it when not empty. `|` in names is escaped.
pub fn rungs_markdown(run: &str, game: &str, rows: &[NetworkRungs], notes: &str) -> String {
    let esc = |t: &str| t.replace('|', "\\|");
    let header = rungs_header(rows);
    let mut s = format!("## Rungs: the networks of {} ({game})\n\n", esc(run));
    let line = |cells: &[String]| {
        let cells: Vec<String> = cells.iter().map(|c| esc(c)).collect();
        format!("| {} |\n", cells.join(" | "))
    };
    s.push_str(&line(&header));
    s.push_str("|---");
    s.push_str(&"|---:".repeat(header.len() - 1));
    s.push_str("|\n");
    for r in rows {
        s.push_str(&line(&r.cells()));
    }
    s.push_str(
        "\nW-D-L and Elo are each network's over the rung; Elo ± 95% from the per-game score \
         variance; self-play games and CPU-hours (the trainer's) are those behind the network, \
         from the run's metrics.\n",
    );
    if !notes.trim().is_empty() {
        let _ = write!(s, "\n{}\n", notes.trim_end());
    }
    s
}

/// `header` and `rows` as an aligned text table: the first column left-aligned, the others
/// right-aligned, two spaces between columns, widths in characters.
fn aligned<S: AsRef<str>>(header: &[S], rows: &[Vec<String>]) -> String {
    let chars = |s: &str| s.chars().count();
    let width: Vec<usize> = (0..header.len())
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|t| chars(t))
                .chain([chars(header[c].as_ref())])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut s = String::new();
    let mut line = |r: &[&str]| {
        let _ = write!(s, "{:<w$}", r[0], w = width[0]);
        for c in 1..r.len() {
            let _ = write!(s, "  {:>w$}", r[c], w = width[c]);
        }
        s.push('\n');
    };
    line(&header.iter().map(AsRef::as_ref).collect::<Vec<_>>());
    for r in rows {
        line(&r.iter().map(String::as_str).collect::<Vec<_>>());
    }
    s
}

/// Plays the `pairs` of `config.entrants` (indices; `config.pairing` is ignored), each pair
/// `config.openings_per_pair` openings with both colours from the same openings
/// (`config.seed`), pairs spread over `config.threads` threads (each pair a one-thread
/// [`run_match`] of its two entrants), and returns one result over all entrants with the
/// games in pair order. `config.on_game` is called after every game.
///
/// # Errors
/// [`MatchError::TooFewEntrants`] with fewer than two entrants,
/// [`MatchError::BadChallenger`] for a pair naming an entrant out of range or one entrant
/// twice, and the errors of [`run_match`].
pub fn run_pairs<G: Game>(
    config: &MatchConfig<G>,
    pairs: &[(usize, usize)],
) -> Result<MatchResult, MatchError> {
    let n = config.entrants.len();
    if n < 2 {
        return Err(MatchError::TooFewEntrants(n));
    }
    if let Some(&(a, b)) = pairs.iter().find(|&&(a, b)| a >= n || b >= n || a == b) {
        return Err(MatchError::BadChallenger {
            index: if a >= n || a == b { a } else { b },
            entrants: n,
        });
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<MatchResult, MatchError>>>> =
        Mutex::new(vec![None; pairs.len()]);
    std::thread::scope(|scope| {
        for _ in 0..config.threads.clamp(1, pairs.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(a, b)) = pairs.get(i) else { break };
                let mut c = MatchConfig::new(
                    vec![config.entrants[a].clone(), config.entrants[b].clone()],
                    config.start.clone(),
                );
                c.pairing = Pairing::Gauntlet { challenger: 0 };
                c.openings_per_pair = config.openings_per_pair;
                c.opening_plies = config.opening_plies;
                c.book = config.book.clone();
                c.limits = config.limits;
                c.max_plies = config.max_plies;
                c.threads = 1;
                c.seed = config.seed;
                c.on_game = config.on_game.clone();
                let r = run_match(&c);
                results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
            });
        }
    });
    let mut all = MatchResult {
        game: G::NAME.to_string(),
        players: config.entrants.iter().map(|e| e.name.clone()).collect(),
        games: Vec::new(),
    };
    let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    for (r, &(a, b)) in results.into_iter().zip(pairs) {
        let Some(r) = r else { continue };
        all.append_pair(r?, a, b);
    }
    Ok(all)
}

/// A strength ladder: `config.entrants[0]` (the challenger) plays a gauntlet [`run_match`]
/// against each other entrant (the rungs, weakest first) in turn, every rung from the same
/// openings (`config.seed`) with colours alternating, `config.threads` games at once.
/// `on_rung(k, row)` is called after rung `k` (1-based). Returns all games as one result
/// over all entrants (indices as in `config.entrants`) and one [`LadderRow`] per rung.
///
/// # Errors
/// [`MatchError::TooFewEntrants`] without a rung, and the errors of [`run_match`].
pub fn run_ladder<G: Game>(
    config: &MatchConfig<G>,
    mut on_rung: impl FnMut(usize, &LadderRow),
) -> Result<(MatchResult, Vec<LadderRow>), MatchError> {
    let n = config.entrants.len();
    if n < 2 {
        return Err(MatchError::TooFewEntrants(n));
    }
    let mut all = MatchResult {
        game: G::NAME.to_string(),
        players: config.entrants.iter().map(|e| e.name.clone()).collect(),
        games: Vec::new(),
    };
    let mut rows = Vec::with_capacity(n - 1);
    for k in 1..n {
        let rung = MatchConfig {
            entrants: vec![config.entrants[0].clone(), config.entrants[k].clone()],
            pairing: Pairing::Gauntlet { challenger: 0 },
            ..config.clone()
        };
        let r = run_match(&rung)?;
        let row = LadderRow::from_match(&r, 0, 1);
        on_rung(k, &row);
        rows.push(row);
        all.append_pair(r, 0, k);
    }
    Ok((all, rows))
}

/// The challenger's results against one rung.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LadderRow {
    /// The rung's name.
    pub rung: String,
    /// Games the challenger won.
    pub wins: u32,
    /// Draws (the ply cap included).
    pub draws: u32,
    /// Games the challenger lost.
    pub losses: u32,
    /// Games of the pair decided by a player failure (crash, timeout, illegal move), either
    /// side's.
    pub failures: u32,
}

impl LadderRow {
    /// The row of entrant `challenger` against entrant `rung` over the games of `result`
    /// in which the two met (in either colour).
    pub fn from_match(result: &MatchResult, challenger: usize, rung: usize) -> LadderRow {
        let mut row = LadderRow {
            rung: result.players.get(rung).cloned().unwrap_or_default(),
            wins: 0,
            draws: 0,
            losses: 0,
            failures: 0,
        };
        let pair =
            |a: usize, b: usize| (a == challenger && b == rung) || (a == rung && b == challenger);
        for g in result.games.iter().filter(|g| pair(g.first, g.second)) {
            match g.winner {
                Some(w) if w == challenger => row.wins += 1,
                Some(_) => row.losses += 1,
                None => row.draws += 1,
            }
            if matches!(g.termination, Termination::Failure { .. }) {
                row.failures += 1;
            }
        }
        row
    }

    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The challenger's Elo over the rung with its 95% interval; `None` without games.
    pub fn elo(&self) -> Option<EloEstimate> {
        elo_from_wdl(
            u64::from(self.wins),
            u64::from(self.draws),
            u64::from(self.losses),
        )
    }

    /// The cells of the row: rung, games, `W-D-L`, score in percent, `Elo [lo, hi]`,
    /// failures.
    fn cells(&self) -> [String; 6] {
        let (score, elo) = match self.elo() {
            Some(e) => (format!("{:.1}%", 100.0 * e.score), e.interval_text()),
            None => ("-".into(), "-".into()),
        };
        [
            self.rung.clone(),
            self.games().to_string(),
            format!("{}-{}-{}", self.wins, self.draws, self.losses),
            score,
            elo,
            self.failures.to_string(),
        ]
    }
}

const HEADER: [&str; 6] = ["rung", "games", "W-D-L", "score", "Elo (95%)", "failures"];

/// The ladder as an aligned text table with a title line naming the challenger: one row per
/// rung, W-D-L and score from the challenger's side, Elo of the challenger over the rung.
pub fn ladder_table(challenger: &str, rows: &[LadderRow]) -> String {
    let cells: Vec<Vec<String>> = rows.iter().map(|r| r.cells().into()).collect();
    let mut s = format!("Ladder of {challenger} (W-D-L, score and Elo from its side):\n");
    s.push_str(&aligned(&HEADER, &cells));
    s
}

/// The ladder as a Markdown section: a heading naming the challenger and game, a pipe table
/// with the columns of [`ladder_table`], and `notes` (e.g. the command line and settings)
/// as a paragraph after it when not empty. `|` in names is escaped.
pub fn ladder_markdown(challenger: &str, game: &str, rows: &[LadderRow], notes: &str) -> String {
    let esc = |t: &str| t.replace('|', "\\|");
    let mut s = format!("## Ladder: {} ({game})\n\n", esc(challenger));
    s.push_str("| rung | games | W-D-L | score | Elo (95%) | failures |\n");
    s.push_str("|---|---:|---:|---:|---:|---:|\n");
    for r in rows {
        let c = r.cells();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            esc(&c[0]),
            c[1],
            c[2],
            c[3],
            c[4],
            c[5]
        );
    }
    s.push_str("\nW-D-L, score and Elo are the challenger's; Elo ± 95% from the per-game score variance.\n");
    if !notes.trim().is_empty() {
        let _ = write!(s, "\n{}\n", notes.trim_end());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matches::GameRecord;
    use crate::rating::fmt_elo;

    fn game(first: usize, second: usize, winner: Option<usize>, fail: bool) -> GameRecord {
        GameRecord {
            index: 0,
            first,
            second,
            first_name: String::new(),
            second_name: String::new(),
            opening: 0,
            opening_plies: 0,
            result: String::new(),
            winner,
            termination: if fail {
                Termination::Failure {
                    side: crate::matches::SideName::First,
                    message: "x".into(),
                }
            } else {
                Termination::Rules
            },
            moves: Vec::new(),
            think: Default::default(),
        }
    }

    #[test]
    fn rows_count_both_colours_and_only_the_pair() {
        let r = MatchResult {
            game: "gomoku".into(),
            players: vec!["net".into(), "d1".into(), "d2".into()],
            games: vec![
                game(0, 1, Some(0), false),
                game(1, 0, Some(0), false),
                game(0, 1, None, false),
                game(1, 0, Some(1), true),
                game(0, 2, Some(2), false),
                game(2, 0, Some(2), false),
            ],
        };
        let a = LadderRow::from_match(&r, 0, 1);
        assert_eq!(
            (a.rung.as_str(), a.wins, a.draws, a.losses, a.failures),
            ("d1", 2, 1, 1, 1)
        );
        assert_eq!(a.games(), 4);
        let e = a.elo().unwrap();
        assert!((e.score - 0.625).abs() < 1e-12);
        let b = LadderRow::from_match(&r, 0, 2);
        assert_eq!((b.wins, b.draws, b.losses), (0, 0, 2));
        assert_eq!(b.elo().unwrap().elo, f64::NEG_INFINITY);
        let table = ladder_table("net", &[a.clone(), b.clone()]);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4, "{table}");
        assert!(lines[0].contains("Ladder of net"), "{table}");
        assert!(lines[2].starts_with("d1 "), "{table}");
        assert!(
            lines[2].contains("2-1-1") && lines[2].contains("62.5%"),
            "{table}"
        );
        assert!(
            lines[3].contains("0-0-2") && lines[3].contains("-inf"),
            "{table}"
        );
        // Columns line up: every row as long as the header.
        assert!(
            lines[1..].iter().all(|l| l.len() == lines[1].len()),
            "{table}"
        );
        let md = ladder_markdown("net|x", "gomoku", &[a, b], "`cmd`");
        assert!(md.starts_with("## Ladder: net\\|x (gomoku)\n"), "{md}");
        assert!(md.contains("| d1 | 4 | 2-1-1 | 62.5% | +89 ["), "{md}");
        assert!(
            md.contains("| d2 | 2 | 0-0-2 | 0.0% | -inf [-inf, +113] | 0 |"),
            "{md}"
        );
        assert!(md.trim_end().ends_with("`cmd`"), "{md}");
    }

    #[test]
    fn snapshot_ladder_of_250_networks_plays_linearly_many_connected_pairs() {
        // Regression: a full round robin over ~250 networks took hours.
        for (n, nb, anchors) in [(250, 2, 10), (40, 1, 5), (7, 2, 3), (3, 1, 8), (2, 0, 1)] {
            let pairs = snapshot_pairs(n, nb, anchors, 7);
            assert!(pairs.iter().all(|&(a, b)| a < b && b < n), "{pairs:?}");
            let mut sorted = pairs.clone();
            sorted.dedup();
            assert_eq!(sorted, pairs, "sorted, no pair twice");
            assert!(pairs.len() <= n * (nb + 3) + anchors * anchors / 2);
            // Every player is connected to player 0 (so every rating is defined).
            let mut reached = vec![false; n];
            reached[0] = true;
            for _ in 0..n {
                for &(a, b) in &pairs {
                    if reached[a] || reached[b] {
                        reached[a] = true;
                        reached[b] = true;
                    }
                }
            }
            assert!(reached.iter().all(|&r| r), "{n} {nb} {anchors}: {pairs:?}");
            // Neighbours always meet.
            for a in 0..n {
                for b in a + 1..=(a + nb).min(n - 1) {
                    assert!(pairs.contains(&(a, b)), "{a}-{b}");
                }
            }
        }
        let big = snapshot_pairs(250, 2, 10, 7);
        assert!(big.len() < 1_500, "{}", big.len());
        assert!(big.len() > 250 * 2, "{}", big.len());
        assert_eq!(snapshot_pairs(250, 2, 10, 7), big, "reproducible");
        // The first and last networks are anchors and meet directly.
        assert!(big.contains(&(0, 249)));
        // With as many anchors as players: the round robin.
        assert_eq!(snapshot_pairs(6, 1, 6, 0).len(), 15);
        assert!(snapshot_pairs(1, 2, 3, 0).is_empty());
    }

    #[test]
    fn pairs_are_played_with_both_colours_and_mapped_to_the_entrants() {
        use crate::matches::Entrant;
        use crate::players::RandomPlayer;
        use crate::Player;
        use alphazero_connect4::Connect4;
        let entrants: Vec<Entrant<Connect4>> = (0..4)
            .map(|i| {
                Entrant::new(format!("r{i}"), move || {
                    Box::new(RandomPlayer::new(i)) as Box<dyn Player<Connect4>>
                })
            })
            .collect();
        let mut config = MatchConfig::new(entrants, Connect4::default());
        config.openings_per_pair = 2;
        config.threads = 3;
        let pairs = [(0, 1), (1, 3), (0, 2)];
        let r = run_pairs(&config, &pairs).unwrap();
        assert_eq!(r.players, ["r0", "r1", "r2", "r3"]);
        assert_eq!(r.games.len(), 12);
        for (k, &(a, b)) in pairs.iter().enumerate() {
            let games = &r.games[4 * k..4 * k + 4];
            assert!(games
                .iter()
                .all(|g| (g.first, g.second) == (a, b) || (g.first, g.second) == (b, a)));
            assert_eq!(
                games.iter().filter(|g| g.first == a).count(),
                2,
                "both colours"
            );
            for g in games {
                assert!(g.winner.is_none_or(|w| w == a || w == b));
                assert_eq!(g.first_name, format!("r{}", g.first));
            }
        }
        assert!(r.games.iter().enumerate().all(|(i, g)| g.index == i));
        assert!(matches!(
            run_pairs(&config, &[(0, 4)]),
            Err(MatchError::BadChallenger { index: 4, .. })
        ));
        let ratings = r.ratings(0).unwrap();
        assert_eq!(ratings.players.len(), 4);
    }

    #[test]
    fn rungs_rows_give_each_network_its_results_against_every_rung() {
        // Entrants: two networks, then two rungs; every network met every rung twice.
        let pairs = rung_pairs(2, 2);
        assert_eq!(pairs, [(0, 2), (0, 3), (1, 2), (1, 3)]);
        let r = MatchResult {
            game: "connect4".into(),
            players: vec![
                "champion-0000@8".into(),
                "champion-0001@8".into(),
                "random".into(),
                "alpha|beta".into(),
            ],
            games: vec![
                game(0, 2, Some(2), false),
                game(2, 0, None, false),
                game(0, 3, Some(3), false),
                game(3, 0, Some(3), false),
                game(1, 2, Some(1), false),
                game(2, 1, Some(1), false),
                game(1, 3, Some(1), false),
                game(3, 1, Some(3), true),
            ],
        };
        let rows = [
            NetworkRungs::from_match(&r, 0, 2..4, 0, Some(0), Some(0.0)),
            NetworkRungs::from_match(&r, 1, 2..4, 1, Some(48), None),
        ];
        assert_eq!(rows[0].network, "champion-0000@8");
        let wdl: Vec<(u32, u32, u32)> = rows
            .iter()
            .flat_map(|n| n.rungs.iter().map(|r| (r.wins, r.draws, r.losses)))
            .collect();
        assert_eq!(wdl, [(0, 1, 1), (0, 0, 2), (2, 0, 0), (1, 0, 1)]);
        let table = rungs_table(&rows);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4, "{table}");
        let header: Vec<&str> = lines[1]
            .split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        assert_eq!(
            header[..5],
            [
                "network",
                "iteration",
                "self-play games",
                "CPU-hours",
                "random W-D-L"
            ],
            "{table}"
        );
        assert!(lines[1].ends_with("alpha|beta Elo (95%)"), "{table}");
        assert!(
            lines[1..].iter().all(|l| l.len() == lines[1].len()),
            "{table}"
        );
        assert!(
            lines[2].contains("0.0000") && lines[2].contains("0-1-1"),
            "{table}"
        );
        // Unknown CPU time is a dash; a failure is counted beside the W-D-L.
        assert!(lines[3].contains("  48          -  "), "{table}");
        assert!(lines[3].contains("+inf [") && lines[3].contains("1-0-1 (1 failed)"));
        let md = rungs_markdown("runs/c4", "connect4", &rows, "Command: `x`");
        assert!(
            md.starts_with("## Rungs: the networks of runs/c4 (connect4)\n"),
            "{md}"
        );
        assert!(md.contains("| alpha\\|beta W-D-L | alpha\\|beta Elo (95%) |\n|---|---:|"));
        assert!(
            md.contains("| champion-0001@8 | 1 | 48 | - | 2-0-0 | +inf ["),
            "{md}"
        );
        assert!(md.trim_end().ends_with("Command: `x`"), "{md}");
        // Nothing to rate: a header without rungs.
        assert_eq!(rungs_table(&[]).lines().count(), 2);
        assert_eq!(every_nth(1, 5), [0]);
        assert_eq!(cpu_hours_text(0.06355), "0.0635");
        assert_eq!(cpu_hours_text(1.25), "1.250");
        assert_eq!(cpu_hours_text(312.44), "312.4");
    }

    #[test]
    fn a_rung_without_games_has_no_score() {
        let r = MatchResult {
            game: "g".into(),
            players: vec!["a".into(), "b".into()],
            games: vec![],
        };
        let row = LadderRow::from_match(&r, 0, 1);
        assert_eq!(row.games(), 0);
        assert!(row.elo().is_none());
        assert!(ladder_table("a", &[row])
            .lines()
            .nth(2)
            .unwrap()
            .contains(" -"));
        assert_eq!(fmt_elo(f64::NAN), "?");
        assert_eq!(fmt_elo(12.4), "+12");
        assert_eq!(fmt_elo(-0.4), "0");
    }
}
