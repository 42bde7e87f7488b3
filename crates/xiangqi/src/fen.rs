//! FEN parsing and formatting.

use crate::position::{kind_code, Xiangqi, XiangqiConfig};
use crate::types::{Piece, PieceKind, Square};
use alphazero_game::{ParseError, Side};

fn err(input: &str, reason: impl Into<String>) -> ParseError {
    ParseError::new("FEN", input, reason)
}

/// A part of the FEN quoted in a reason: at most 20 characters (then `…`), so that a
/// garbage field of megabytes is not repeated (the whole input is in [`ParseError::input`]).
fn shown(part: &str) -> String {
    match part.char_indices().nth(20) {
        Some((i, _)) => format!("{:?}", format!("{}…", &part[..i])),
        None => format!("{part:?}"),
    }
}

/// Whether a piece may ever stand on `sq` (generals/advisors in their palace points,
/// elephants on their seven points, soldiers never behind their start rank and, before the
/// river, only on their start files).
fn placement_ok(p: Piece, sq: Square) -> bool {
    let (f, r) = (sq.file(), sq.rank());
    // Work in Red's orientation.
    let r = if p.side == Side::First { r } else { 9 - r };
    let f = if p.side == Side::First { f } else { 8 - f };
    match p.kind {
        PieceKind::General => (3..=5).contains(&f) && r <= 2,
        PieceKind::Advisor => matches!((f, r), (3, 0) | (5, 0) | (4, 1) | (3, 2) | (5, 2)),
        PieceKind::Elephant => matches!(
            (f, r),
            (2, 0) | (6, 0) | (0, 2) | (4, 2) | (8, 2) | (2, 4) | (6, 4)
        ),
        PieceKind::Soldier => r >= 5 || (r >= 3 && f % 2 == 0),
        _ => true,
    }
}

const MAX_COUNT: [usize; 7] = [1, 2, 2, 2, 2, 2, 5];

impl Xiangqi {
    /// Parses a FEN such as
    /// `rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1`.
    ///
    /// Ranks are listed from Black's back rank (9) down to Red's (0), files a–i; upper case is
    /// Red. Letters `K A B N R C P` (aliases `E` = elephant, `H` = horse). The side to move
    /// is required: `w` or `r` = Red, `b` = Black. Then two `-` fields (optional), the
    /// halfmove clock (plies since the last capture, the no-capture draw counter) and the
    /// fullmove number; missing counters default to `0` and `1`. `config` may be given by
    /// value or reference.
    ///
    /// A board without a side to move is refused rather than read as Red to move:
    /// half of all positions are Black to move, and a silent guess analyses the
    /// wrong one.
    ///
    /// # Errors
    /// [`ParseError`] with the input and the reason for: a rank count other than 10, a rank
    /// longer or shorter than 9 files, an unknown letter, a missing or second general of one
    /// side, a general/advisor/elephant off its possible points, a soldier behind its start
    /// rank (or off its start file before the river), more pieces of a kind than the game
    /// has, a missing or bad side field, bad counters, extra fields, or the side not to move
    /// being in check (its general could be captured).
    pub fn from_fen(fen: &str, config: impl Into<XiangqiConfig>) -> Result<Xiangqi, ParseError> {
        let mut pos = Xiangqi::empty(config.into());
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let Some(board) = fields.first() else {
            return Err(err(fen, "empty FEN"));
        };
        let rows: Vec<&str> = board.split('/').collect();
        if rows.len() != 10 {
            return Err(err(
                fen,
                format!("expected 10 ranks separated by '/', found {}", rows.len()),
            ));
        }
        let mut counts = [[0usize; 7]; 2];
        for (i, row) in rows.iter().enumerate() {
            let rank = 9 - i as u8;
            let mut file: u8 = 0;
            for c in row.chars() {
                if let Some(d) = c.to_digit(10) {
                    if d == 0 {
                        return Err(err(fen, format!("rank {rank}: empty-run digit 0")));
                    }
                    file += d as u8;
                    if file > 9 {
                        return Err(err(
                            fen,
                            format!("rank {rank} ({}) is longer than 9 files", shown(row)),
                        ));
                    }
                    continue;
                }
                let Some(p) = Piece::from_char(c) else {
                    return Err(err(fen, format!("rank {rank}: unknown piece letter {c:?}")));
                };
                let Some(sq) = Square::new(file, rank) else {
                    return Err(err(
                        fen,
                        format!("rank {rank} ({}) is longer than 9 files", shown(row)),
                    ));
                };
                if !placement_ok(p, sq) {
                    return Err(err(
                        fen,
                        format!("{} ({c}) cannot stand on {sq}", piece_words(p.side, p.kind)),
                    ));
                }
                counts[p.side.index()][p.kind.index()] += 1;
                pos.board[sq.index()] = p.code();
                file += 1;
            }
            if file != 9 {
                return Err(err(
                    fen,
                    format!("rank {rank} ({}) has {file} files, expected 9", shown(row)),
                ));
            }
        }
        for side in [Side::First, Side::Second] {
            let name = if side == Side::First { "Red" } else { "Black" };
            for kind in PieceKind::ALL {
                let n = counts[side.index()][kind_code(kind) as usize];
                if kind == PieceKind::General && n == 0 {
                    return Err(err(fen, format!("{name} has no general")));
                }
                if n > MAX_COUNT[kind.index()] {
                    return Err(err(
                        fen,
                        format!(
                            "{name} has {n} pieces of kind {kind:?}, at most {} exist",
                            MAX_COUNT[kind.index()]
                        ),
                    ));
                }
            }
        }
        pos.side = match fields.get(1).copied() {
            None => {
                return Err(err(
                    fen,
                    "no side to move after the board: add w (Red to move) or b (Black to move)",
                ))
            }
            Some("w") | Some("r") | Some("W") | Some("R") => Side::First,
            Some("b") | Some("B") => Side::Second,
            Some(s) => {
                return Err(err(
                    fen,
                    format!("side to move must be w, r or b, found {}", shown(s)),
                ))
            }
        };
        let mut rest: &[&str] = if fields.len() > 2 { &fields[2..] } else { &[] };
        // Castling and en-passant placeholders.
        for _ in 0..2 {
            if rest.first() == Some(&"-") {
                rest = &rest[1..];
            }
        }
        if rest.len() > 2 {
            return Err(err(
                fen,
                format!(
                    "unexpected extra field(s) after the fullmove number: {}",
                    shown(&rest[2..].join(" "))
                ),
            ));
        }
        if let Some(h) = rest.first() {
            pos.halfmove = h.parse::<u16>().map_err(|_| {
                err(
                    fen,
                    format!("halfmove clock {} is not a number 0-65535", shown(h)),
                )
            })?;
        }
        if let Some(fm) = rest.get(1) {
            let n = fm.parse::<u32>().map_err(|_| {
                err(
                    fen,
                    format!("fullmove number {} is not a number", shown(fm)),
                )
            })?;
            pos.fullmove = n.max(1);
        }
        pos.refresh();
        if pos.opponent_in_check() {
            return Err(err(
                fen,
                "the side not to move is in check (its general could be captured)",
            ));
        }
        Ok(pos)
    }

    /// The FEN of the position: board, `w`/`b`, `- -`, halfmove clock, fullmove number.
    pub fn to_fen(&self) -> String {
        let mut s = String::with_capacity(90);
        for rank in (0..10u8).rev() {
            let mut run = 0;
            for file in 0..9u8 {
                match Square::new(file, rank).and_then(|q| self.piece_at(q)) {
                    None => run += 1,
                    Some(p) => {
                        if run > 0 {
                            s.push(char::from(b'0' + run));
                            run = 0;
                        }
                        s.push(p.to_char());
                    }
                }
            }
            if run > 0 {
                s.push(char::from(b'0' + run));
            }
            if rank > 0 {
                s.push('/');
            }
        }
        let side = if self.side == Side::First { 'w' } else { 'b' };
        format!("{s} {side} - - {} {}", self.halfmove, self.fullmove)
    }
}

/// A piece in words: `red soldier`, `black elephant`, …
fn piece_words(side: Side, kind: PieceKind) -> String {
    let colour = if side == Side::First { "red" } else { "black" };
    let name = match kind {
        PieceKind::General => "general",
        PieceKind::Advisor => "advisor",
        PieceKind::Elephant => "elephant",
        PieceKind::Horse => "horse",
        PieceKind::Chariot => "chariot",
        PieceKind::Cannon => "cannon",
        PieceKind::Soldier => "soldier",
    };
    format!("{colour} {name}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const START_BOARD: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR";

    /// Regression: a FEN without a side to move was silently read as Red to move.
    #[test]
    fn fen_without_side_to_move_is_refused_not_read_as_red() {
        for fen in [
            START_BOARD.to_string(),
            format!("{START_BOARD} "),
            // Black to move would be the only legal reading here (Black's general is
            // attacked), so a silent default would not even be a legal position.
            "4k4/9/9/9/9/9/9/9/9/3KR4".to_string(),
        ] {
            let e = Xiangqi::from_fen(&fen, XiangqiConfig::default())
                .expect_err("a board alone must be refused");
            assert_eq!(e.input, fen);
            assert!(e.reason.contains("no side to move"), "{}", e.reason);
            assert!(
                e.reason.contains("w (Red to move) or b (Black to move)"),
                "{}",
                e.reason
            );
        }
        // With the side given, both sides parse and keep it.
        for (side, want) in [("w", Side::First), ("r", Side::First), ("b", Side::Second)] {
            let p = Xiangqi::from_fen(&format!("{START_BOARD} {side}"), XiangqiConfig::default())
                .expect("board and side");
            assert_eq!(p.side, want);
        }
    }

    #[test]
    fn fen_errors_quote_at_most_20_characters_of_a_bad_field() {
        let long = "R".repeat(100_000);
        for fen in [
            format!("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/{long} w"),
            format!("{START_BOARD} {long}"),
            format!("{START_BOARD} w - - {long} 1"),
            format!("{START_BOARD} w - - 0 {long}"),
            format!("{START_BOARD} w - - 0 1 {long}"),
        ] {
            let e = Xiangqi::from_fen(&fen, XiangqiConfig::default()).expect_err("bad field");
            assert!(e.reason.len() < 120, "{}", e.reason);
            assert!(
                e.reason.contains(&format!("\"{}…\"", "R".repeat(20))),
                "{}",
                e.reason
            );
            assert_eq!(e.input, fen);
        }
    }
}
