//! PSQ: the game file of Piskvork, the Gomocup manager (one Gomoku game per file).
//!
//! ```text
//! Piskvorky 15x15, 11:11, 0
//! 8,8,0
//! 9,7,1250
//! …
//! black player name
//! white player name
//! ```
//!
//! The header gives the board size (`WIDTHxHEIGHT`; the other two fields are Piskvork's and
//! are written as the Gomocup files have them). Each move line is `x,y,time`: the Gomocup
//! protocol's column and row, **1-based**, then the milliseconds the move took (0 when
//! unknown). Black moves first and colours alternate. After the moves come the players'
//! names, then whatever Piskvork adds (a result code, a tournament line), which is ignored.
//! PSQ names no rule: the reader takes it from its fallback configuration.

use crate::{gomoku_size, replay, FormatError, RawMove, Record};
use alphazero_game::{Game, Side};
use alphazero_gomoku::{Gomoku, GomokuConfig, GomokuMove};

/// The game as a PSQ file.
///
/// # Errors
/// [`FormatError::Unsupported`] when the game starts from stones set up before the first
/// move (PSQ has no place for them; write SGF or PGN).
pub fn write(rec: &Record<Gomoku>) -> Result<String, FormatError> {
    let start = rec.history.start();
    if start.stone_count() > 0 {
        return Err(FormatError::Unsupported {
            format: "psq",
            what: format!(
                "a game that starts from {} stones set up before the first move (write SGF or PGN)",
                start.stone_count()
            ),
        });
    }
    if start.side_to_move() != Side::First {
        return Err(FormatError::Unsupported {
            format: "psq",
            what: "a game in which white moves first".into(),
        });
    }
    let n = start.size();
    let mut out = format!("Piskvorky {n}x{n}, 11:11, 0\n");
    for (i, mv) in rec.history.moves().iter().enumerate() {
        let t = rec.times_ms.get(i).copied().unwrap_or(0);
        out.push_str(&format!("{},{},{t}\n", mv.x + 1, mv.y + 1));
    }
    if rec.players.iter().any(|p| !p.is_empty()) {
        for p in &rec.players {
            // A name line must not read as a move line.
            let name = if p.is_empty() { "?" } else { p.as_str() };
            out.push_str(&name.replace(['\n', '\r'], " "));
            out.push('\n');
        }
    }
    Ok(out)
}

fn syntax(line: usize, reason: impl Into<String>) -> FormatError {
    FormatError::Syntax {
        line,
        reason: reason.into(),
    }
}

/// Reads a PSQ file; the rule comes from `fallback` (PSQ does not name one), the board size
/// from the header.
///
/// # Errors
/// [`FormatError`]: no `Piskvorky WxH` header; a board that is not square or outside
/// 5–20 (`wrong board size`); a move line that is not `x,y[,time]` numbers; a point off the
/// board, taken, or played after the game ended (line, move number and text).
pub fn read(text: &str, fallback: &GomokuConfig) -> Result<Record<Gomoku>, FormatError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_start_matches('\u{feff}').trim()));
    let (hl, header) = lines
        .by_ref()
        .find(|(_, l)| !l.is_empty())
        .ok_or(FormatError::NoGame)?;
    let rest = header.strip_prefix("Piskvorky").ok_or_else(|| {
        syntax(
            hl,
            format!("expected the header 'Piskvorky 15x15, 11:11, 0', found {header:?}"),
        )
    })?;
    let dims = rest.split(',').next().unwrap_or_default().trim();
    let size = gomoku_size(dims).map_err(|reason| FormatError::BadTag {
        line: hl,
        tag: "board size".into(),
        value: dims.to_string(),
        reason,
    })?;
    let config = GomokuConfig::new(size, fallback.rule).map_err(|e| FormatError::BadTag {
        line: hl,
        tag: "board size".into(),
        value: dims.to_string(),
        reason: e.reason,
    })?;
    let mut moves: Vec<RawMove> = Vec::new();
    let mut times = Vec::new();
    let mut names = Vec::new();
    let mut in_moves = true;
    for (ln, l) in lines {
        if l.is_empty() {
            continue;
        }
        let numeric = l
            .chars()
            .all(|c| c.is_ascii_digit() || c == ',' || c == '-' || c.is_whitespace());
        // A line that starts like a move is read as one (and refused when it is not one).
        let move_like = numeric || (l.starts_with(|c: char| c.is_ascii_digit()) && l.contains(','));
        if in_moves && move_like {
            if l == "-1" {
                in_moves = false;
                continue;
            }
            let fields: Vec<&str> = l.split(',').map(str::trim).collect();
            let bad = |reason: String| FormatError::BadMove {
                line: ln,
                ply: moves.len() + 1,
                text: l.to_string(),
                reason,
            };
            if !(2..=3).contains(&fields.len()) {
                return Err(bad("expected x,y,time (1-based column and row)".into()));
            }
            let coord = |s: &str, what: &str| -> Result<u8, FormatError> {
                match s.parse::<u32>() {
                    Ok(v) if (1..=u32::from(size)).contains(&v) => Ok(v as u8 - 1),
                    _ => Err(bad(format!(
                        "{what} {s:?} is off the {size}x{size} board (1..{size})"
                    ))),
                }
            };
            let (x, y) = (coord(fields[0], "column")?, coord(fields[1], "row")?);
            let t = match fields.get(2) {
                None => 0,
                Some(t) => t
                    .parse::<u64>()
                    .map_err(|_| bad(format!("time {t:?} is not a number of milliseconds")))?,
            };
            moves.push(RawMove {
                line: ln,
                text: GomokuMove::new(x, y).to_string(),
                written: l.to_string(),
            });
            times.push(t);
        } else {
            in_moves = false;
            if names.len() < 2 && !numeric {
                names.push(l.to_string());
            }
        }
    }
    let history = replay(Gomoku::new(&config), &moves, |pos, t| {
        pos.parse_move(t).map_err(|e| e.to_string())
    })?;
    let mut rec = Record::new(history);
    rec.times_ms = times;
    for (i, n) in names.into_iter().enumerate() {
        rec.players[i] = if n == "?" { String::new() } else { n };
    }
    Ok(rec)
}
