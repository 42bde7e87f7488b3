//! A strength ladder: one challenger against a list of opponents of rising strength (the
//! rungs), each met in its own gauntlet ([`crate::Pairing::Gauntlet`] via
//! [`crate::run_match`]), reported as one row per rung with W-D-L, score and Elo ± 95%
//! ([`crate::elo_from_wdl`]), as plain text or Markdown.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::matches::{MatchResult, Termination};
use crate::rating::{elo_from_wdl, EloEstimate};

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
            Some(e) => (
                format!("{:.1}%", 100.0 * e.score),
                format!("{} [{}, {}]", fmt_elo(e.elo), fmt_elo(e.lo), fmt_elo(e.hi)),
            ),
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

const HEADER: [&str; 6] = ["rung", "games", "W-D-L", "score", "Elo (95%)", "failures"];

/// The ladder as an aligned text table with a title line naming the challenger: one row per
/// rung, W-D-L and score from the challenger's side, Elo of the challenger over the rung.
pub fn ladder_table(challenger: &str, rows: &[LadderRow]) -> String {
    let cells: Vec<[String; 6]> = rows.iter().map(LadderRow::cells).collect();
    let chars = |s: &str| s.chars().count();
    let width: Vec<usize> = (0..6)
        .map(|c| {
            cells
                .iter()
                .map(|r| chars(&r[c]))
                .chain([chars(HEADER[c])])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut s = format!("Ladder of {challenger} (W-D-L, score and Elo from its side):\n");
    let line = |s: &mut String, r: &[&str]| {
        let _ = write!(s, "{:<w$}", r[0], w = width[0]);
        for c in 1..6 {
            let _ = write!(s, "  {:>w$}", r[c], w = width[c]);
        }
        s.push('\n');
    };
    line(&mut s, &HEADER);
    for r in &cells {
        line(&mut s, &r.iter().map(String::as_str).collect::<Vec<_>>());
    }
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
            md.contains("| d2 | 2 | 0-0-2 | 0.0% | -inf [-inf, -inf] | 0 |"),
            "{md}"
        );
        assert!(md.trim_end().ends_with("`cmd`"), "{md}");
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
