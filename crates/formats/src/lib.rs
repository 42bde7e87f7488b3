//! Game records in the file formats other programs read and write.
//!
//! * **PGN** ([`pgn`]) for every game: tags, then the moves as moves (random openings
//!   included, ended by a comment), then the result. Xiangqi follows the XQBase dialect that
//!   xiangqi PGN readers expect: `[Game "Chinese Chess"]` first, `[Red]` / `[Black]`, a `[FEN]`
//!   tag for any other start position, `[Format "ICCS"]` with moves written `H2-E2`, or
//!   `[Format "WXF"]` with `C2=5`. Gomoku carries `[Size]` and `[Rule]`, moves `h8`.
//! * **PSQ** ([`psq`]), the Piskvork / Gomocup game file: `Piskvorky 15x15, 11:11, 0`, then one
//!   `x,y,milliseconds` line per move (1-based Gomocup coordinates), then the player names.
//! * **SGF** ([`sgf`]) for Gomoku and Renju: `(;GM[4]FF[4]SZ[15]RU[renju]PB[..]PW[..]RE[B+]
//!   ;B[hh];W[ii]…)`, points as two letters, column from the left and row **from the top**,
//!   so `a1` (the lower left corner in this project's drawings) is `ao` on 15×15; set-up
//!   stones (`AB`, `AW`, `PL`) are read and written.
//!
//! A [`Record`] is one game: its [`History`] (start position and legal moves), the players,
//! the result and the other tags. Readers replay every move and stop at the first bad one with
//! a [`FormatError`] that names the line, the move number and the text; nothing is returned
//! then. [`read_records`] is the one entry point for every format ([`Format::detect`] picks it
//! from the file name or the text), [`write_records`] its counterpart.
//!
//! ```
//! use alphazero_formats::{read_records, write_records, Format, MoveNotation, Record};
//! use alphazero_game::{Game, History};
//! use alphazero_gomoku::{Gomoku, GomokuConfig, Rule};
//!
//! let config = GomokuConfig::new(15, Rule::Renju)?;
//! let mut h = History::new(Gomoku::new(&config));
//! for m in ["h8", "i9", "j8"] {
//!     let mv = h.current().parse_move(m)?;
//!     h.play(mv)?;
//! }
//! let sgf = write_records(&[Record::new(h)], Format::Sgf, MoveNotation::Iccs)?;
//! assert!(sgf.starts_with("(;GM[4]FF[4]") && sgf.contains("SZ[15]") && sgf.contains(";B[hh];W[ig];B[jh]"));
//! let back = read_records::<Gomoku>(&sgf, Format::Sgf, &GomokuConfig::default())?;
//! assert_eq!(back[0].history.moves().len(), 3);
//! assert_eq!(back[0].history.start().rule(), Rule::Renju);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

use std::path::Path;

use alphazero_connect4::{Connect4, Connect4Config};
use alphazero_game::{Game, History, Side};
use alphazero_gomoku::{Gomoku, GomokuConfig, GomokuMove, Rule};
use alphazero_xiangqi::{Xiangqi, XiangqiConfig};

pub mod pgn;
pub mod psq;
pub mod sgf;

/// How a recorded game ended, as PGN writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecordResult {
    /// The first player (Black in Gomoku, Red in Xiangqi) won: `1-0`.
    FirstWon,
    /// The second player won: `0-1`.
    SecondWon,
    /// Drawn: `1/2-1/2`.
    Draw,
    /// Unfinished or unknown: `*`.
    Unknown,
}

impl RecordResult {
    /// The result of a game won by `winner` (`None`: a draw).
    pub fn from_winner(winner: Option<Side>) -> RecordResult {
        match winner {
            Some(Side::First) => RecordResult::FirstWon,
            Some(Side::Second) => RecordResult::SecondWon,
            None => RecordResult::Draw,
        }
    }

    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub fn pgn(self) -> &'static str {
        match self {
            RecordResult::FirstWon => "1-0",
            RecordResult::SecondWon => "0-1",
            RecordResult::Draw => "1/2-1/2",
            RecordResult::Unknown => "*",
        }
    }

    /// The result of a PGN result text (`1-0`, `0-1`, `1/2-1/2`, `½-½`, `*`).
    pub fn from_pgn(text: &str) -> Option<RecordResult> {
        Some(match text.trim() {
            "1-0" => RecordResult::FirstWon,
            "0-1" => RecordResult::SecondWon,
            "1/2-1/2" | "½-½" => RecordResult::Draw,
            "*" => RecordResult::Unknown,
            _ => return None,
        })
    }
}

/// One game of a record file.
#[derive(Clone, Debug)]
pub struct Record<G: Game> {
    /// The start position and every move, replayed and legal.
    pub history: History<G>,
    /// The players' names by [`Side::index`] (empty when unknown).
    pub players: [String; 2],
    /// How the game ended.
    pub result: RecordResult,
    /// How many of the first moves were a given opening (random plies of an arena match;
    /// 0 = none). PGN ends them with a comment and keeps the count in `[OpeningPlies]`.
    pub opening_plies: usize,
    /// Milliseconds each move took, when known (PSQ's third column); empty or one per move.
    pub times_ms: Vec<u64>,
    /// Every other tag, in order (`Event`, `Site`, `Date`, `Round`, `Termination`, …).
    pub tags: Vec<(String, String)>,
}

impl<G: Game> Record<G> {
    /// A record of `history` with no names, an unknown result and no tags.
    pub fn new(history: History<G>) -> Self {
        Record {
            history,
            players: [String::new(), String::new()],
            result: RecordResult::Unknown,
            opening_plies: 0,
            times_ms: Vec::new(),
            tags: Vec::new(),
        }
    }

    /// The value of tag `key` (case-sensitive), if any.
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Sets tag `key` to `value` (replacing an earlier value, else appended).
    pub fn set_tag(&mut self, key: &str, value: impl Into<String>) {
        let value = value.into();
        match self.tags.iter_mut().find(|(k, _)| k == key) {
            Some(t) => t.1 = value,
            None => self.tags.push((key.to_string(), value)),
        }
    }
}

/// How Xiangqi moves are written in PGN (the other games have one notation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MoveNotation {
    /// ICCS coordinates as XQBase writes them: `H2-E2` (`[Format "ICCS"]`).
    #[default]
    Iccs,
    /// WXF: `C2=5` (`[Format "WXF"]`).
    Wxf,
}

impl std::str::FromStr for MoveNotation {
    type Err = alphazero_game::ParseError;

    /// `iccs` or `wxf`, any case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "iccs" => Ok(MoveNotation::Iccs),
            "wxf" => Ok(MoveNotation::Wxf),
            _ => Err(alphazero_game::ParseError::new(
                "move notation",
                s,
                "expected iccs or wxf",
            )),
        }
    }
}

/// A record file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Portable Game Notation, any number of games.
    Pgn,
    /// Piskvork's `.psq`, one Gomoku game.
    Psq,
    /// Smart Game Format, Gomoku/Renju (`GM[4]`), any number of games.
    Sgf,
}

impl Format {
    /// `pgn`, `psq` or `sgf`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Pgn => "pgn",
            Format::Psq => "psq",
            Format::Sgf => "sgf",
        }
    }

    /// The format of a file name's extension (`.pgn`, `.psq`, `.sgf`, any case).
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        ext.parse().ok()
    }

    /// The format a text looks like: `Piskvorky` first → PSQ, `(;` → SGF, a tag or a move
    /// number → PGN.
    pub fn sniff(text: &str) -> Option<Format> {
        let t = text.trim_start_matches('\u{feff}').trim_start();
        if t.starts_with("Piskvorky") {
            Some(Format::Psq)
        } else if t.starts_with('(') {
            Some(Format::Sgf)
        } else if t.starts_with('[') || t.starts_with(|c: char| c.is_ascii_digit()) {
            Some(Format::Pgn)
        } else {
            None
        }
    }

    /// The format of a file: its extension, else what its text looks like.
    ///
    /// # Errors
    /// [`FormatError::Syntax`] (line 1) when neither tells.
    pub fn detect(path: &Path, text: &str) -> Result<Format, FormatError> {
        Format::from_path(path)
            .or_else(|| Format::sniff(text))
            .ok_or_else(|| FormatError::Syntax {
                line: 1,
                reason: format!(
                    "{} is not a PGN, PSQ or SGF file (name it .pgn, .psq or .sgf)",
                    path.display()
                ),
            })
    }
}

impl std::str::FromStr for Format {
    type Err = alphazero_game::ParseError;

    /// `pgn`, `psq` or `sgf`, any case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "pgn" => Ok(Format::Pgn),
            "psq" => Ok(Format::Psq),
            "sgf" => Ok(Format::Sgf),
            _ => Err(alphazero_game::ParseError::new(
                "record format",
                s,
                "expected pgn, psq or sgf",
            )),
        }
    }
}

/// Why a record could not be read or written. Line numbers are 1-based lines of the text; move
/// numbers count plies from 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// The text is not of the format's form.
    #[error("line {line}: {reason}")]
    Syntax {
        /// Where.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A tag or property value that cannot be used (a board size off 5–20, a bad FEN, …).
    #[error("line {line}: {tag} {value:?}: {reason}")]
    BadTag {
        /// Where.
        line: usize,
        /// The tag or property name.
        tag: String,
        /// Its value.
        value: String,
        /// Why it cannot be used.
        reason: String,
    },
    /// A move that does not parse, or is illegal where it is played.
    #[error("line {line}: move {ply} {text:?}: {reason}")]
    BadMove {
        /// Where.
        line: usize,
        /// The move's number in the game (1 = the first move).
        ply: usize,
        /// The move as written.
        text: String,
        /// Why it was refused.
        reason: String,
    },
    /// A move of a record made in memory (not read from a text) that does not replay from
    /// the record's start position.
    #[error("move {ply} {text:?} does not replay: {reason}")]
    Replay {
        /// The move's number in the game (1 = the first move).
        ply: usize,
        /// The move as recorded.
        text: String,
        /// Why it was refused.
        reason: String,
    },
    /// The file holds a game of another kind than the one asked for.
    #[error("line {line}: the file holds a {found} game, not {expected}")]
    WrongGame {
        /// Where that shows.
        line: usize,
        /// What the file holds.
        found: String,
        /// The game asked for.
        expected: &'static str,
    },
    /// The text holds no game.
    #[error("no game in the text")]
    NoGame,
    /// The format cannot hold this record (a set-up position in PSQ, several games in one
    /// PSQ file, a Xiangqi game in SGF).
    #[error("{format} cannot hold {what}")]
    Unsupported {
        /// The format's name.
        format: &'static str,
        /// What it cannot hold.
        what: String,
    },
}

/// The per-game knowledge of the record formats: PGN tags, move texts, start positions, and
/// which formats the game has.
pub trait RecordGame: Game {
    /// The value of the PGN `Game` tag (`Chinese Chess` for Xiangqi, as XQBase requires).
    const PGN_GAME: &'static str;
    /// The PGN tags naming the players: `[first, second]` (`Red`, `Black` in Xiangqi).
    const PLAYER_TAGS: [&'static str; 2];

    /// Whether a PGN `Game` or `Variant` tag value names this game (any case).
    fn is_game_name(name: &str) -> bool {
        name.eq_ignore_ascii_case(Self::PGN_GAME) || name.eq_ignore_ascii_case(Self::NAME)
    }

    /// Tags describing the rules and the start position, written after the result: Gomoku's
    /// `Size` and `Rule` (and `Setup` for stones placed before the first move), Xiangqi's
    /// `FEN` when the game does not start from the standard position.
    fn start_tags(start: &Self) -> Vec<(&'static str, String)>;

    /// The start position described by `tags` (those [`RecordGame::start_tags`] writes;
    /// missing ones taken from `fallback`).
    ///
    /// # Errors
    /// `(tag, reason)` for a tag that cannot be used.
    fn start_from_tags(
        tags: &[(String, String)],
        fallback: &Self::Config,
    ) -> Result<Self, (String, String)>;

    /// The move as PGN writes it in `notation` (only Xiangqi has a choice).
    fn pgn_move(pos: &Self, mv: Self::Move, notation: MoveNotation) -> String {
        let _ = notation;
        pos.format_move(mv)
    }

    /// The value of the `[Format]` tag for `notation`, where the game has one.
    fn format_tag(notation: MoveNotation) -> Option<&'static str> {
        let _ = notation;
        None
    }

    /// Reads records of a Gomoku-only `format` (PSQ, SGF); other games refuse.
    ///
    /// # Errors
    /// [`FormatError::WrongGame`] by default; the format's errors for Gomoku.
    fn read_gomoku_format(
        text: &str,
        format: Format,
        fallback: &Self::Config,
    ) -> Result<Vec<Record<Self>>, FormatError> {
        let _ = (text, fallback);
        Err(FormatError::WrongGame {
            line: 1,
            found: format!("Gomoku ({})", format.name().to_ascii_uppercase()),
            expected: Self::NAME,
        })
    }

    /// Writes records in a Gomoku-only `format` (PSQ, SGF); other games refuse.
    ///
    /// # Errors
    /// [`FormatError::Unsupported`] by default; the format's errors for Gomoku.
    fn write_gomoku_format(
        records: &[Record<Self>],
        format: Format,
    ) -> Result<String, FormatError> {
        let _ = records;
        Err(FormatError::Unsupported {
            format: format.name(),
            what: format!("{} games (it is a Gomoku format)", Self::NAME),
        })
    }
}

/// The game a record text holds, when the text says: PSQ and SGF hold Gomoku; a PGN names
/// its game in the first `[Game]` or `[Variant]` tag (`Chinese Chess` and `xiangqi` are
/// Xiangqi). Returns [`Game::NAME`] of the game, `None` for a PGN that names none or an
/// unknown one.
pub fn game_name_of(text: &str, format: Format) -> Option<&'static str> {
    if format != Format::Pgn {
        return Some(Gomoku::NAME);
    }
    for line in text
        .lines()
        .map(str::trim)
        .take_while(|l| l.is_empty() || l.starts_with('['))
    {
        let Some(rest) = line.strip_prefix('[') else {
            continue;
        };
        let (key, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        if !(key.eq_ignore_ascii_case("Game") || key.eq_ignore_ascii_case("Variant")) {
            continue;
        }
        let v = value.trim().trim_end_matches(']').trim().trim_matches('"');
        if Gomoku::is_game_name(v) {
            return Some(Gomoku::NAME);
        }
        if Xiangqi::is_game_name(v) {
            return Some(Xiangqi::NAME);
        }
        if Connect4::is_game_name(v) {
            return Some(Connect4::NAME);
        }
    }
    None
}

/// Reads every game of `text` in `format` as games of `G`. `fallback` supplies what the file
/// does not say (the Gomoku rule of a PSQ file, the board size of a PGN without `[Size]`).
///
/// # Errors
/// The first [`FormatError`]: malformed text, a bad tag, an illegal move (with its line and
/// number), a file of another game, no game at all.
pub fn read_records<G: RecordGame>(
    text: &str,
    format: Format,
    fallback: &G::Config,
) -> Result<Vec<Record<G>>, FormatError> {
    let records = match format {
        Format::Pgn => pgn::read(text, fallback)?,
        Format::Psq | Format::Sgf => G::read_gomoku_format(text, format, fallback)?,
    };
    if records.is_empty() {
        return Err(FormatError::NoGame);
    }
    Ok(records)
}

/// Writes `records` in `format` (`notation`: Xiangqi moves in PGN).
///
/// # Errors
/// [`FormatError::Unsupported`]: PSQ or SGF for a game other than Gomoku, more than one
/// game or a set-up position in PSQ.
pub fn write_records<G: RecordGame>(
    records: &[Record<G>],
    format: Format,
    notation: MoveNotation,
) -> Result<String, FormatError> {
    match format {
        Format::Pgn => Ok(records.iter().map(|r| pgn::write(r, notation)).collect()),
        Format::Psq | Format::Sgf => G::write_gomoku_format(records, format),
    }
}

/// The PGN date `YYYY.MM.DD` (UTC) of a time in seconds since the Unix epoch.
///
/// ```
/// assert_eq!(alphazero_formats::pgn_date(0), "1970.01.01");
/// assert_eq!(alphazero_formats::pgn_date(951_782_400), "2000.02.29");
/// assert_eq!(alphazero_formats::pgn_date(1_738_281_600), "2025.01.31");
/// assert_eq!(alphazero_formats::pgn_date(4_107_628_740), "2100.03.01");
/// ```
pub fn pgn_date(unix_seconds: u64) -> String {
    // Days to civil date (H. Hinnant's algorithm, proleptic Gregorian calendar).
    let z = (unix_seconds / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

/// Today's PGN date (UTC) from the system clock (`????.??.??` when the clock is before 1970).
pub fn pgn_date_today() -> String {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or_else(|_| "????.??.??".to_string(), |d| pgn_date(d.as_secs()))
}

/// A move as a reader found it: where, the text to read, and the text as the file wrote it
/// (for errors; `B[hh]` in SGF, `8,8,0` in PSQ).
pub(crate) struct RawMove {
    pub(crate) line: usize,
    pub(crate) text: String,
    pub(crate) written: String,
}

impl RawMove {
    /// A move read as written.
    pub(crate) fn plain(line: usize, text: String) -> RawMove {
        RawMove {
            line,
            written: text.clone(),
            text,
        }
    }
}

/// Replays moves from `start`: each is read with `read` and played with the repetition
/// rules; the first that fails stops with [`FormatError::BadMove`] naming it as written.
pub(crate) fn replay<G: Game>(
    start: G,
    moves: &[RawMove],
    read: impl Fn(&G, &str) -> Result<G::Move, String>,
) -> Result<History<G>, FormatError> {
    let mut h = History::new(start);
    for (i, m) in moves.iter().enumerate() {
        let bad = |reason: String| FormatError::BadMove {
            line: m.line,
            ply: i + 1,
            text: m.written.clone(),
            reason,
        };
        let mv = read(h.current(), &m.text).map_err(bad)?;
        h.play(mv).map_err(|e| bad(e.to_string()))?;
    }
    Ok(h)
}

fn tag_value<'a>(tags: &'a [(String, String)], key: &str) -> Option<&'a str> {
    tags.iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v.as_str())
}

impl RecordGame for Gomoku {
    const PGN_GAME: &'static str = "gomoku";
    const PLAYER_TAGS: [&'static str; 2] = ["Black", "White"];

    fn is_game_name(name: &str) -> bool {
        ["gomoku", "renju", "gobang", "five in a row"]
            .iter()
            .any(|n| name.eq_ignore_ascii_case(n))
    }

    fn start_tags(start: &Self) -> Vec<(&'static str, String)> {
        let mut v = vec![
            ("Size", start.size().to_string()),
            ("Rule", start.rule().name().to_string()),
        ];
        if start.stone_count() > 0 {
            v.push(("Setup", gomoku_setup_text(start)));
        }
        v
    }

    fn start_from_tags(
        tags: &[(String, String)],
        fallback: &GomokuConfig,
    ) -> Result<Self, (String, String)> {
        let size = match tag_value(tags, "Size") {
            None => fallback.size,
            Some(v) => gomoku_size(v).map_err(|r| ("Size".to_string(), r))?,
        };
        let rule = match tag_value(tags, "Rule") {
            None => fallback.rule,
            Some(v) => v
                .parse::<Rule>()
                .map_err(|e| ("Rule".to_string(), e.reason))?,
        };
        let config = GomokuConfig::new(size, rule).map_err(|e| ("Size".to_string(), e.reason))?;
        match tag_value(tags, "Setup") {
            None => Ok(Gomoku::new(&config)),
            Some(v) => parse_gomoku_setup(&config, v).map_err(|r| ("Setup".to_string(), r)),
        }
    }

    fn read_gomoku_format(
        text: &str,
        format: Format,
        fallback: &GomokuConfig,
    ) -> Result<Vec<Record<Self>>, FormatError> {
        match format {
            Format::Psq => Ok(vec![psq::read(text, fallback)?]),
            Format::Sgf => sgf::read(text, fallback),
            Format::Pgn => pgn::read(text, fallback),
        }
    }

    fn write_gomoku_format(
        records: &[Record<Self>],
        format: Format,
    ) -> Result<String, FormatError> {
        match format {
            Format::Psq => match records {
                [r] => psq::write(r),
                _ => Err(FormatError::Unsupported {
                    format: "psq",
                    what: format!(
                        "{} games in one file (one game per .psq file)",
                        records.len()
                    ),
                }),
            },
            Format::Sgf => Ok(records.iter().map(sgf::write).collect()),
            Format::Pgn => Ok(records
                .iter()
                .map(|r| pgn::write(r, MoveNotation::Iccs))
                .collect()),
        }
    }
}

/// A Gomoku board size text `15` or `15x15` → 15, checked against 5–20.
pub(crate) fn gomoku_size(text: &str) -> Result<u8, String> {
    let t = text.trim();
    let (w, h) = match t.split_once(['x', 'X', ':']) {
        Some((w, h)) => (w.trim(), h.trim()),
        None => (t, t),
    };
    let (Ok(w), Ok(h)) = (w.parse::<u32>(), h.parse::<u32>()) else {
        return Err("expected a board size like 15 or 15x15".into());
    };
    if w != h {
        return Err(format!(
            "wrong board size: a {w}x{h} board is not square (Gomoku boards here are N x N)"
        ));
    }
    if !(u32::from(alphazero_gomoku::MIN_SIZE)..=u32::from(alphazero_gomoku::MAX_SIZE)).contains(&w)
    {
        return Err(format!(
            "wrong board size: {w}x{w} is outside the supported {0}x{0} to {1}x{1}",
            alphazero_gomoku::MIN_SIZE,
            alphazero_gomoku::MAX_SIZE
        ));
    }
    Ok(w as u8)
}

/// The stones of a Gomoku set-up as `black h8 i9; white j10; white to move`.
fn gomoku_setup_text(pos: &Gomoku) -> String {
    let n = pos.size();
    let stones = |side: Side| {
        let mut v = Vec::new();
        for y in 0..n {
            for x in 0..n {
                if pos.stone_at(x, y) == Some(side) {
                    v.push(GomokuMove::new(x as u8, y as u8).to_string());
                }
            }
        }
        v.join(" ")
    };
    let to_move = match pos.side_to_move() {
        Side::First => "black",
        Side::Second => "white",
    };
    format!(
        "black {}; white {}; {to_move} to move",
        stones(Side::First),
        stones(Side::Second)
    )
}

/// Reads [`gomoku_setup_text`]'s form back.
fn parse_gomoku_setup(config: &GomokuConfig, text: &str) -> Result<Gomoku, String> {
    let mut black = Vec::new();
    let mut white = Vec::new();
    let mut to_move = None;
    for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let mut words = part.split_whitespace();
        let head = words.next().unwrap_or_default().to_ascii_lowercase();
        let rest: Vec<&str> = words.collect();
        if rest == ["to", "move"] {
            to_move = Some(match head.as_str() {
                "black" => Side::First,
                "white" => Side::Second,
                _ => return Err(format!("{head:?} is not black or white")),
            });
            continue;
        }
        let list = match head.as_str() {
            "black" => &mut black,
            "white" => &mut white,
            _ => {
                return Err(format!(
                    "{part:?}: expected 'black POINTS', 'white POINTS' or 'COLOUR to move'"
                ))
            }
        };
        for p in rest {
            list.push(GomokuMove::parse_coord_within(p, config.size).map_err(|e| e.to_string())?);
        }
    }
    let to_move = to_move.unwrap_or(if black.len() > white.len() {
        Side::Second
    } else {
        Side::First
    });
    Gomoku::from_stones(config, &black, &white, to_move).map_err(|e| e.to_string())
}

impl RecordGame for Xiangqi {
    const PGN_GAME: &'static str = "Chinese Chess";
    const PLAYER_TAGS: [&'static str; 2] = ["Red", "Black"];

    fn is_game_name(name: &str) -> bool {
        ["chinese chess", "xiangqi", "xiang qi"]
            .iter()
            .any(|n| name.eq_ignore_ascii_case(n))
    }

    fn start_tags(start: &Self) -> Vec<(&'static str, String)> {
        let standard = Xiangqi::new(start.config());
        if start.to_fen() == standard.to_fen() {
            Vec::new()
        } else {
            vec![("FEN", start.to_fen())]
        }
    }

    fn start_from_tags(
        tags: &[(String, String)],
        fallback: &XiangqiConfig,
    ) -> Result<Self, (String, String)> {
        match tag_value(tags, "FEN") {
            None => Ok(Xiangqi::new(fallback)),
            Some(fen) => {
                Xiangqi::from_fen(fen, *fallback).map_err(|e| ("FEN".to_string(), e.reason))
            }
        }
    }

    fn pgn_move(pos: &Self, mv: Self::Move, notation: MoveNotation) -> String {
        match notation {
            MoveNotation::Iccs => format!(
                "{}-{}",
                mv.from.to_string().to_ascii_uppercase(),
                mv.to.to_string().to_ascii_uppercase()
            ),
            MoveNotation::Wxf => pos.to_wxf(mv).unwrap_or_else(|| mv.to_string()),
        }
    }

    fn format_tag(notation: MoveNotation) -> Option<&'static str> {
        Some(match notation {
            MoveNotation::Iccs => "ICCS",
            MoveNotation::Wxf => "WXF",
        })
    }
}

impl RecordGame for Connect4 {
    const PGN_GAME: &'static str = "connect4";
    const PLAYER_TAGS: [&'static str; 2] = ["Red", "Yellow"];

    fn is_game_name(name: &str) -> bool {
        ["connect4", "connect four", "connect-four"]
            .iter()
            .any(|n| name.eq_ignore_ascii_case(n))
    }

    fn start_tags(_start: &Self) -> Vec<(&'static str, String)> {
        Vec::new()
    }

    fn start_from_tags(
        _tags: &[(String, String)],
        fallback: &Connect4Config,
    ) -> Result<Self, (String, String)> {
        Ok(Connect4::new(fallback))
    }
}
