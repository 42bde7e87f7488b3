//! WXF move notation (World Xiangqi Federation, also called AXF or "C2=5" notation).
//!
//! A move is four characters, read from the mover's side of the board:
//!
//! 1. the piece letter: `K` general, `A` advisor, `E` elephant (`B` accepted), `H` horse (`N`
//!    accepted), `R` chariot, `C` cannon, `P` soldier;
//! 2. the file it stands on, **numbered 1–9 from the mover's right**: Red's file 1 is ICCS file
//!    `i`, Black's file 1 is ICCS file `a`;
//! 3. the direction: `+` forward (towards the opponent), `-` backward, `=` sideways along the
//!    rank (`.` accepted, as the WXF documents write it);
//! 4. for a sideways move, and for every horse, elephant and advisor move, the file it lands
//!    on; for a forward or backward move of a general, chariot, cannon or soldier, the number
//!    of ranks it moves.
//!
//! So from the start position `h2e2` is `C2=5`, Black's reply `h9g7` is `H8+7`, and `i0i1`
//! is `R1+1`.
//!
//! **Tandem pieces.** Two chariots, horses or cannons of one side on one file are told apart
//! by `+` (the front one, nearer the opponent) and `-` (the rear one) in place of the file
//! digit: `C+=5`, `R-+1`. Soldiers follow the WXF's tandem-pawn rules: with several soldiers
//! on the mover's one crowded file, the front is `P+` and the rear `P-`; with three, the middle
//! one keeps its file digit (`P3=4`); with four or five, the foremost and rearmost are `++` and
//! `--` (piece letter dropped), the next ones `P+` / `P-`. When two files hold several
//! soldiers each, the piece letter is replaced by the file digit: `3+=4`, `33=4` (the middle
//! one), `3-=4`. Advisors and elephants on one file keep the file digit, as in the Chinese
//! notation: their direction already says which one moves (`A6+5` from `d0`, `A6-5` from
//! `d2`).
//!
//! [`Xiangqi::parse_wxf`] also reads the prefix form of the tandem marks (`+C=5`, `-R+1`),
//! `.` for `=`, lower case, and tandem marks on advisors and elephants.

use crate::position::Xiangqi;
use crate::types::{Move, PieceKind, Square, FILES, RANKS};
use alphazero_game::{Game, ParseError, Side};

/// The WXF letter of a kind.
fn letter(kind: PieceKind) -> char {
    match kind {
        PieceKind::General => 'K',
        PieceKind::Advisor => 'A',
        PieceKind::Elephant => 'E',
        PieceKind::Horse => 'H',
        PieceKind::Chariot => 'R',
        PieceKind::Cannon => 'C',
        PieceKind::Soldier => 'P',
    }
}

/// The kind of a WXF letter (upper case; `B` and `N` accepted as aliases).
fn kind_of_letter(c: char) -> Option<PieceKind> {
    Some(match c {
        'K' | 'G' => PieceKind::General,
        'A' => PieceKind::Advisor,
        'E' | 'B' => PieceKind::Elephant,
        'H' | 'N' => PieceKind::Horse,
        'R' => PieceKind::Chariot,
        'C' => PieceKind::Cannon,
        'P' => PieceKind::Soldier,
        _ => return None,
    })
}

/// The mover's file number 1–9 of an ICCS file 0–8.
fn file_number(side: Side, file: u8) -> u8 {
    match side {
        Side::First => FILES - file,
        Side::Second => file + 1,
    }
}

/// The ICCS file 0–8 of a mover's file number 1–9.
fn file_of_number(side: Side, n: u8) -> u8 {
    match side {
        Side::First => FILES - n,
        Side::Second => n - 1,
    }
}

/// Ranks advanced by going from `from` to `to` as `side` (negative: backwards).
fn advance(side: Side, from: Square, to: Square) -> i32 {
    let d = i32::from(to.rank()) - i32::from(from.rank());
    match side {
        Side::First => d,
        Side::Second => -d,
    }
}

/// Whether a kind moves diagonally (its last WXF digit is always a file).
fn diagonal(kind: PieceKind) -> bool {
    matches!(
        kind,
        PieceKind::Advisor | PieceKind::Elephant | PieceKind::Horse
    )
}

impl Xiangqi {
    /// The squares of `side`'s pieces of `kind` on `file`, front first (the most advanced
    /// from `side`'s view first).
    fn file_pieces(&self, side: Side, kind: PieceKind, file: u8) -> Vec<Square> {
        let mut v: Vec<Square> = (0..RANKS)
            .filter_map(|r| Square::new(file, r))
            .filter(|&s| {
                self.piece_at(s)
                    .is_some_and(|p| p.side == side && p.kind == kind)
            })
            .collect();
        if side == Side::First {
            v.reverse();
        }
        v
    }

    /// The files (0–8) on which `side` has two or more soldiers, in the mover's numbering
    /// order (file 1 first).
    fn crowded_soldier_files(&self, side: Side) -> Vec<u8> {
        let mut v: Vec<u8> = (0..FILES)
            .filter(|&f| self.file_pieces(side, PieceKind::Soldier, f).len() >= 2)
            .collect();
        v.sort_by_key(|&f| file_number(side, f));
        v
    }

    /// The first two characters of a WXF move of the piece on `from` (which must hold a piece
    /// of the side to move): which piece moves.
    fn wxf_designator(&self, from: Square, kind: PieceKind) -> String {
        let side = self.side_to_move();
        let digit = char::from(b'0' + file_number(side, from.file()));
        let tandem = self.file_pieces(side, kind, from.file());
        let i = tandem.iter().position(|&s| s == from).unwrap_or(0);
        let n = tandem.len();
        let l = letter(kind);
        match kind {
            _ if n < 2 => format!("{l}{digit}"),
            PieceKind::Advisor | PieceKind::Elephant | PieceKind::General => format!("{l}{digit}"),
            PieceKind::Soldier => {
                let mark = match (n, i) {
                    (_, 0) => '+',
                    (_, i) if i == n - 1 => '-',
                    (3, 1) | (5, 2) => digit,
                    (4 | 5, 1) => '+',
                    _ => '-',
                };
                if self.crowded_soldier_files(side).len() >= 2 {
                    format!("{digit}{mark}")
                } else if n >= 4 && (i == 0 || i == n - 1) {
                    format!("{mark}{mark}")
                } else {
                    format!("{l}{mark}")
                }
            }
            _ => format!("{l}{}", if i == 0 { '+' } else { '-' }),
        }
    }

    /// The move in WXF notation (see the [module docs](crate::wxf)), e.g. `C2=5`; `None` when
    /// `mv.from` holds no piece of the side to move or the piece cannot move that way
    /// geometrically (a chariot moving diagonally, a horse moving straight). Legality is not
    /// checked: every legal move has a WXF text, and [`Xiangqi::parse_wxf`] reads it back.
    ///
    /// ```
    /// use alphazero_game::Game;
    /// use alphazero_xiangqi::{Xiangqi, XiangqiConfig};
    ///
    /// let mut pos = Xiangqi::new(&XiangqiConfig::default());
    /// assert_eq!(pos.to_wxf("h2e2".parse()?).as_deref(), Some("C2=5"));
    /// pos.play("h2e2".parse()?)?;
    /// assert_eq!(pos.to_wxf("h9g7".parse()?).as_deref(), Some("H8+7"));
    /// assert_eq!(pos.parse_wxf("H8+7")?, "h9g7".parse()?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_wxf(&self, mv: Move) -> Option<String> {
        let side = self.side_to_move();
        let piece = self.piece_at(mv.from).filter(|p| p.side == side)?;
        let kind = piece.kind;
        let df = i32::from(mv.to.file()) - i32::from(mv.from.file());
        let dr = advance(side, mv.from, mv.to);
        let fits = match kind {
            PieceKind::Advisor => df.abs() == 1 && dr.abs() == 1,
            PieceKind::Elephant => df.abs() == 2 && dr.abs() == 2,
            PieceKind::Horse => {
                (df.abs() == 1 && dr.abs() == 2) || (df.abs() == 2 && dr.abs() == 1)
            }
            _ => (df == 0) != (dr == 0),
        };
        if !fits {
            return None;
        }
        let op = match dr {
            0 => '=',
            d if d > 0 => '+',
            _ => '-',
        };
        let last = if dr == 0 || diagonal(kind) {
            file_number(side, mv.to.file())
        } else {
            dr.unsigned_abs() as u8
        };
        Some(format!("{}{op}{last}", self.wxf_designator(mv.from, kind)))
    }

    /// Reads a move in WXF notation (see the [module docs](crate::wxf)) for the side to move:
    /// `C2=5`, `H8+7`, `R+=3`, `+R=3`, `P3.4`, `33=4`, `++=4`, `c2.5` (case, `.`/`=` and the
    /// prefix form of tandem marks are all accepted).
    ///
    /// The piece is found from the letter and the file or tandem mark; the destination follows
    /// from the direction and the last digit. Where the text leaves a choice (advisors or
    /// elephants on one file, a file digit given for tandem pieces), the one piece whose move
    /// is legal is taken. The move returned may still be illegal (a pinned piece): playing it
    /// checks that.
    ///
    /// # Errors
    /// [`ParseError`] (what = `"WXF move"`) naming the input and what is wrong: not of the
    /// WXF form, no such piece of the side to move on that file, a tandem mark with fewer than
    /// two pieces on the file, a destination off the board or not reachable by that piece
    /// kind, or two pieces that could make it.
    pub fn parse_wxf(&self, text: &str) -> Result<Move, ParseError> {
        let err = |reason: String| ParseError::new("WXF move", text, reason);
        let side = self.side_to_move();
        let colour = if side == Side::First { "red" } else { "black" };
        let t: Vec<char> = text
            .trim()
            .chars()
            .map(|c| match c {
                '.' => '=',
                '＋' => '+',
                '－' => '-',
                c => c.to_ascii_uppercase(),
            })
            .collect();
        if t.len() != 4 {
            return Err(err(
                "expected 4 characters: piece letter, file 1-9 (or +/- for tandem pieces), \
                 direction +, - or =, and a number 1-9 (e.g. C2=5)"
                    .into(),
            ));
        }
        let (op, last) = (t[2], t[3]);
        if !matches!(op, '+' | '-' | '=') {
            return Err(err(format!(
                "the third character {op:?} must be + (forward), - (backward) or = (sideways)"
            )));
        }
        let last = match last.to_digit(10) {
            Some(d @ 1..=9) => d as u8,
            _ => {
                return Err(err(format!(
                    "the last character {last:?} must be a digit 1-9"
                )))
            }
        };
        let digit = |c: char| {
            c.to_digit(10)
                .filter(|d| (1..=9).contains(d))
                .map(|d| d as u8)
        };
        let mark_of = |c: char| if c == '+' { Mark::Front } else { Mark::Rear };
        let (kind, which) = match (t[0], t[1]) {
            ('+' | '-', c) if kind_of_letter(c).is_some() => (
                kind_of_letter(c).expect("checked"),
                Which::Mark(None, mark_of(t[0])),
            ),
            ('+', '+') => (PieceKind::Soldier, Which::Mark(None, Mark::Foremost)),
            ('-', '-') => (PieceKind::Soldier, Which::Mark(None, Mark::Rearmost)),
            (a, b) if digit(a).is_some() => match b {
                '+' | '-' => (PieceKind::Soldier, Which::Mark(digit(a), mark_of(b))),
                b if b == a => (PieceKind::Soldier, Which::Mark(digit(a), Mark::Middle)),
                _ => {
                    return Err(err(format!(
                        "a soldier's file digit {a} is followed by +, - or the same digit, \
                         not {b:?}"
                    )))
                }
            },
            (a, b) => {
                let kind = kind_of_letter(a).ok_or_else(|| {
                    err(format!(
                        "{a:?} is no piece letter (K, A, E, H, R, C or P; B and N accepted)"
                    ))
                })?;
                match (b, digit(b)) {
                    ('+' | '-', _) => (kind, Which::Mark(None, mark_of(b))),
                    (_, Some(d)) => (kind, Which::File(d)),
                    _ => {
                        return Err(err(format!(
                            "the second character {b:?} must be a file 1-9, or + / - for \
                             tandem pieces"
                        )))
                    }
                }
            }
        };
        let words = format!("{colour} {}", format!("{kind:?}").to_ascii_lowercase());
        let candidates: Vec<Square> = match which {
            Which::File(n) => {
                let v = self.file_pieces(side, kind, file_of_number(side, n));
                if v.is_empty() {
                    return Err(err(format!("there is no {words} on file {n}")));
                }
                if kind == PieceKind::Soldier && v.len() % 2 == 1 && v.len() >= 3 {
                    // The middle one of three or five tandem soldiers keeps its file digit.
                    vec![v[v.len() / 2]]
                } else {
                    v
                }
            }
            Which::Mark(file, mark) => {
                let files: Vec<u8> = match file {
                    Some(n) => vec![file_of_number(side, n)],
                    None => (0..FILES)
                        .filter(|&f| self.file_pieces(side, kind, f).len() >= 2)
                        .collect(),
                };
                let many = kind == PieceKind::Soldier && file.is_none();
                let found: Vec<Square> = files
                    .into_iter()
                    .filter_map(|f| {
                        let v = self.file_pieces(side, kind, f);
                        let n = v.len();
                        let i = match mark {
                            _ if n < 2 => return None,
                            Mark::Front if many && n >= 4 => 1,
                            Mark::Front => 0,
                            Mark::Rear if many && n >= 4 => n - 2,
                            Mark::Rear => n - 1,
                            Mark::Middle if n == 3 => 1,
                            Mark::Foremost if n >= 4 => 0,
                            Mark::Rearmost if n >= 4 => n - 1,
                            _ => return None,
                        };
                        Some(v[i])
                    })
                    .collect();
                if found.is_empty() {
                    let at = file.map_or(String::new(), |n| format!(" on file {n}"));
                    return Err(err(format!(
                        "{} needs {} {words}s{at} (the tandem marks name one of several \
                         pieces on one file)",
                        mark.words(),
                        mark.needs()
                    )));
                }
                found
            }
        };
        let moves: Vec<Move> = candidates
            .iter()
            .filter_map(|&from| {
                self.wxf_destination(side, kind, from, op, last)
                    .map(|to| Move::new(from, to))
            })
            .collect();
        match moves.len() {
            0 => Err(err(format!(
                "the {words} on file {} cannot move {op}{last}",
                file_number(side, candidates[0].file())
            ))),
            1 => Ok(moves[0]),
            n => {
                let legal: Vec<Move> = moves
                    .iter()
                    .copied()
                    .filter(|&m| self.is_legal(m))
                    .collect();
                match legal.len() {
                    1 => Ok(legal[0]),
                    0 => Err(err(format!(
                        "none of the {n} {words}s it may name has a legal move {op}{last}"
                    ))),
                    k => Err(err(format!(
                        "ambiguous: {k} {words}s can move {op}{last} ({}); write + / - for the \
                         front / rear one",
                        legal
                            .iter()
                            .map(|m| m.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))),
                }
            }
        }
    }

    /// Where the `kind` on `from` lands for direction `op` and last digit `last`, or `None`
    /// when that is off the board or not a move of the kind.
    fn wxf_destination(
        &self,
        side: Side,
        kind: PieceKind,
        from: Square,
        op: char,
        last: u8,
    ) -> Option<Square> {
        let fwd: i32 = if side == Side::First { 1 } else { -1 };
        let sign: i32 = match op {
            '+' => 1,
            '-' => -1,
            _ => 0,
        };
        let (file, rank) = (i32::from(from.file()), i32::from(from.rank()));
        let (to_file, to_rank) = if diagonal(kind) {
            if sign == 0 {
                return None;
            }
            let tf = i32::from(file_of_number(side, last));
            let df = (tf - file).abs();
            let dr = match (kind, df) {
                (PieceKind::Advisor, 1) => 1,
                (PieceKind::Elephant, 2) => 2,
                (PieceKind::Horse, 1) => 2,
                (PieceKind::Horse, 2) => 1,
                _ => return None,
            };
            (tf, rank + sign * fwd * dr)
        } else if sign == 0 {
            let tf = i32::from(file_of_number(side, last));
            if tf == file {
                return None;
            }
            (tf, rank)
        } else {
            (file, rank + sign * fwd * i32::from(last))
        };
        Square::new(u8::try_from(to_file).ok()?, u8::try_from(to_rank).ok()?)
    }
}

/// Which piece of a kind a WXF designator names.
enum Which {
    /// The piece(s) on this file (mover's number 1-9).
    File(u8),
    /// A tandem mark, on the given file (two-file soldiers) or on the one crowded file.
    Mark(Option<u8>, Mark),
}

/// A tandem mark.
#[derive(Clone, Copy)]
enum Mark {
    /// `+`: the front piece (the second foremost of four or five soldiers).
    Front,
    /// `-`: the rear piece (the second rearmost of four or five soldiers).
    Rear,
    /// The file digit twice (`33`): the middle one of three soldiers.
    Middle,
    /// `++`: the foremost of four or five soldiers.
    Foremost,
    /// `--`: the rearmost of four or five soldiers.
    Rearmost,
}

impl Mark {
    fn words(self) -> &'static str {
        match self {
            Mark::Front => "the front mark +",
            Mark::Rear => "the rear mark -",
            Mark::Middle => "the middle mark (file digit twice)",
            Mark::Foremost => "the foremost mark ++",
            Mark::Rearmost => "the rearmost mark --",
        }
    }
    fn needs(self) -> &'static str {
        match self {
            Mark::Front | Mark::Rear => "two or more",
            Mark::Middle => "three",
            Mark::Foremost | Mark::Rearmost => "four or five",
        }
    }
}
