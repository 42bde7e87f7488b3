//! SGF (Smart Game Format, FF[4]) for Gomoku and Renju, as Renju and Gomoku programs write it.
//!
//! ```text
//! (;GM[4]FF[4]CA[UTF-8]AP[alphazero-rs]SZ[15]RU[renju]PB[black]PW[white]RE[B+]
//! ;B[hh];W[ig];B[jh])
//! ```
//!
//! `GM[4]` is Gomoku, `SZ` the board size, `RU` the rule (`freestyle`, `standard`, `renju`),
//! `PB` / `PW` the players, `RE` the result (`B+`, `W+`, `0` for a draw), `EV`, `DT`, `RO`,
//! `PC` the event, date, round and place, `GC` how the game ended. A point is two letters:
//! the column from the left, then the row **from the top** (`a1`, the lower left corner of
//! this project's boards, is `ao` on 15×15; Gomocup `x,y` is turned over). Stones set up
//! before the first move are `AB` / `AW` with `PL` for the side to move. A node comment
//! `C[end of opening]` marks the last move of an opening.
//!
//! Reading takes the main line of each game tree (the first variation at every branch) and
//! any number of game trees per file; properties it does not know are ignored.

use std::fmt::Write as _;

use crate::{gomoku_size, replay, FormatError, RawMove, Record, RecordResult};
use alphazero_game::{Game, Side};
use alphazero_gomoku::{Gomoku, GomokuConfig, GomokuMove, Rule};

const OPENING_COMMENT: &str = "end of opening";

fn escape(v: &str) -> String {
    v.replace('\\', "\\\\").replace(']', "\\]")
}

/// The SGF point of a move on a board of side `n`.
fn point(mv: GomokuMove, n: usize) -> String {
    let col = (b'a' + mv.x) as char;
    let row = (b'a' + (n - 1 - usize::from(mv.y)) as u8) as char;
    format!("{col}{row}")
}

fn sgf_date(pgn: &str) -> String {
    let b = pgn.as_bytes();
    if b.len() == 10 && b[4] == b'.' && b[7] == b'.' {
        pgn.replace('.', "-")
    } else {
        pgn.to_string()
    }
}

fn pgn_date(sgf: &str) -> String {
    let b = sgf.as_bytes();
    if b.len() == 10 && b[4] == b'-' && b[7] == b'-' {
        sgf.replace('-', ".")
    } else {
        sgf.to_string()
    }
}

/// Tags that map to SGF root properties.
const TAG_PROPS: [(&str, &str); 5] = [
    ("Event", "EV"),
    ("Date", "DT"),
    ("Round", "RO"),
    ("Site", "PC"),
    ("Termination", "GC"),
];

/// The game as one SGF game tree (ending with a newline).
pub fn write(rec: &Record<Gomoku>) -> String {
    let start = rec.history.start();
    let n = start.size();
    let mut s = format!(
        "(;GM[4]FF[4]CA[UTF-8]AP[alphazero-rs:{}]SZ[{n}]RU[{}]",
        env!("CARGO_PKG_VERSION"),
        start.rule().name()
    );
    for (side, prop) in [(Side::First, "PB"), (Side::Second, "PW")] {
        let name = &rec.players[side.index()];
        if !name.is_empty() {
            let _ = write!(s, "{prop}[{}]", escape(name));
        }
    }
    match rec.result {
        RecordResult::FirstWon => s.push_str("RE[B+]"),
        RecordResult::SecondWon => s.push_str("RE[W+]"),
        RecordResult::Draw => s.push_str("RE[0]"),
        RecordResult::Unknown => {}
    }
    for (tag, prop) in TAG_PROPS {
        if let Some(v) = rec
            .tag(tag)
            .filter(|v| !v.is_empty() && *v != "?" && !v.contains("??"))
        {
            let v = if tag == "Date" {
                sgf_date(v)
            } else {
                v.to_string()
            };
            let _ = write!(s, "{prop}[{}]", escape(&v));
        }
    }
    if start.stone_count() > 0 {
        for (side, prop) in [(Side::First, "AB"), (Side::Second, "AW")] {
            let mut pts = String::new();
            for y in 0..n {
                for x in 0..n {
                    if start.stone_at(x, y) == Some(side) {
                        let _ = write!(pts, "[{}]", point(GomokuMove::new(x as u8, y as u8), n));
                    }
                }
            }
            if !pts.is_empty() {
                let _ = write!(s, "{prop}{pts}");
            }
        }
        s.push_str(if start.side_to_move() == Side::First {
            "PL[B]"
        } else {
            "PL[W]"
        });
    }
    s.push('\n');
    let mut line = String::new();
    let mut pos = start.clone();
    for (i, &mv) in rec.history.moves().iter().enumerate() {
        let colour = if pos.side_to_move() == Side::First {
            'B'
        } else {
            'W'
        };
        let mut node = format!(";{colour}[{}]", point(mv, n));
        if i + 1 == rec.opening_plies && i + 1 < rec.history.len() {
            let _ = write!(node, "C[{OPENING_COMMENT}]");
        }
        pos.play_unchecked(mv);
        if line.len() + node.len() > 78 {
            s.push_str(&line);
            s.push('\n');
            line.clear();
        }
        line.push_str(&node);
    }
    s.push_str(&line);
    s.push_str(")\n");
    s
}

/// A property value and the line it starts on.
type Value = (usize, String);
/// A node: its properties in order.
type Node = Vec<(String, Vec<Value>)>;

struct Parser {
    chars: Vec<char>,
    i: usize,
    line: usize,
}

fn syntax(line: usize, reason: impl Into<String>) -> FormatError {
    FormatError::Syntax {
        line,
        reason: reason.into(),
    }
}

impl Parser {
    fn skip_ws(&mut self) {
        while let Some(&c) = self.chars.get(self.i) {
            if c == '\n' {
                self.line += 1;
            }
            if !c.is_whitespace() && c != '\u{feff}' {
                break;
            }
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }

    /// A game tree's main line: `(` nodes, child trees `)`; the first child continues it.
    fn tree(&mut self) -> Result<Vec<Node>, FormatError> {
        let open = self.line;
        self.i += 1; // '('
        let mut nodes = Vec::new();
        let mut main_child: Option<Vec<Node>> = None;
        loop {
            self.skip_ws();
            match self.peek() {
                None => {
                    return Err(syntax(
                        open,
                        "the game tree '(' opened here is never closed",
                    ))
                }
                Some(';') if main_child.is_none() => {
                    self.i += 1;
                    nodes.push(self.node()?);
                }
                Some(';') => {
                    return Err(syntax(self.line, "a node ';' after a variation '(…)'"));
                }
                Some('(') => {
                    let child = self.tree()?;
                    if main_child.is_none() {
                        main_child = Some(child);
                    }
                }
                Some(')') => {
                    self.i += 1;
                    break;
                }
                Some(c) => {
                    return Err(syntax(
                        self.line,
                        format!("unexpected {c:?}: a node starts with ';', a variation with '('"),
                    ))
                }
            }
        }
        if nodes.is_empty() {
            return Err(syntax(open, "a game tree without a node ('(;…)')"));
        }
        nodes.extend(main_child.unwrap_or_default());
        Ok(nodes)
    }

    fn node(&mut self) -> Result<Node, FormatError> {
        let mut props: Node = Vec::new();
        loop {
            self.skip_ws();
            let Some(c) = self.peek() else { break };
            if !c.is_ascii_alphabetic() {
                break;
            }
            let start = self.i;
            while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
                self.i += 1;
            }
            // FF[3] allowed lower-case letters in names (`GaMe` = `GM`): keep the capitals.
            let ident: String = self.chars[start..self.i]
                .iter()
                .filter(|c| c.is_ascii_uppercase())
                .collect();
            let ident_line = self.line;
            let mut values = Vec::new();
            loop {
                self.skip_ws();
                if self.peek() != Some('[') {
                    break;
                }
                let vline = self.line;
                self.i += 1;
                let mut v = String::new();
                loop {
                    match self.peek() {
                        None => {
                            return Err(syntax(
                                vline,
                                format!("the value of {ident} opened here has no closing ']'"),
                            ))
                        }
                        Some('\\') => {
                            self.i += 1;
                            match self.peek() {
                                Some('\n') => {
                                    self.line += 1;
                                }
                                Some(ch) => v.push(ch),
                                None => {}
                            }
                            self.i += 1;
                        }
                        Some(']') => {
                            self.i += 1;
                            break;
                        }
                        Some(ch) => {
                            if ch == '\n' {
                                self.line += 1;
                            }
                            v.push(ch);
                            self.i += 1;
                        }
                    }
                }
                values.push((vline, v));
            }
            if values.is_empty() {
                return Err(syntax(
                    ident_line,
                    format!("property {ident} has no value '[…]'"),
                ));
            }
            props.push((ident, values));
        }
        Ok(props)
    }
}

fn prop<'a>(node: &'a Node, id: &str) -> Option<&'a Vec<Value>> {
    node.iter().find(|(k, _)| k == id).map(|(_, v)| v)
}

/// Reads every game tree of an SGF text (`GM[4]`; `SZ` and `RU` where given, else
/// `fallback`'s size and rule).
///
/// # Errors
/// [`FormatError`]: unbalanced brackets or parentheses; `GM` other than 4 (another game); a
/// board size that is not square or outside 5–20 (`wrong board size`); a bad result; a
/// point off the board, a pass, a stone of the wrong colour, a taken point or a move after
/// the end (line, move number and the property as written).
pub fn read(text: &str, fallback: &GomokuConfig) -> Result<Vec<Record<Gomoku>>, FormatError> {
    let mut p = Parser {
        chars: text.chars().collect(),
        i: 0,
        line: 1,
    };
    let mut out = Vec::new();
    loop {
        p.skip_ws();
        match p.peek() {
            None => break,
            Some('(') => {
                let nodes = p.tree()?;
                out.push(build(&nodes, fallback)?);
            }
            Some(c) => {
                return Err(syntax(
                    p.line,
                    format!("unexpected {c:?} outside a game tree '(;…)'"),
                ))
            }
        }
    }
    if out.is_empty() {
        return Err(FormatError::NoGame);
    }
    Ok(out)
}

fn rule_of(text: &str) -> Option<Rule> {
    let t = text.trim().to_ascii_lowercase();
    Some(match t.as_str() {
        "renju" | "renju rule" | "rif" | "1" => Rule::Renju,
        "freestyle" | "free" | "gomoku" | "free-style" | "0" | "五子棋" => Rule::Freestyle,
        "standard" | "exact five" | "exact" | "standard gomoku" => Rule::Standard,
        _ => return None,
    })
}

/// Why a rule named in `RU` decides games differently from every rule this program plays
/// (reading its moves under another rule would misjudge the result), or `None`.
fn other_win_rule(text: &str) -> Option<&'static str> {
    Some(match text.trim().to_ascii_lowercase().as_str() {
        "caro" | "gomoku caro" => "caro: a five blocked at both ends does not win",
        "omok" => "omok: a double three is forbidden for both players",
        "pente" | "ninuki" | "ninuki-renju" => "pente / ninuki: stones are captured",
        _ => return None,
    })
}

fn build(nodes: &[Node], fallback: &GomokuConfig) -> Result<Record<Gomoku>, FormatError> {
    let root = &nodes[0];
    let first = |id: &str| prop(root, id).and_then(|v| v.first()).cloned();
    let bad_tag = |(line, value): Value, tag: &str, reason: String| FormatError::BadTag {
        line,
        tag: tag.to_string(),
        value,
        reason,
    };
    if let Some((line, gm)) = first("GM") {
        if gm.trim() != "4" {
            let found = match gm.trim() {
                "1" => "Go (GM[1])".to_string(),
                "2" => "Othello (GM[2])".to_string(),
                "3" => "chess (GM[3])".to_string(),
                g => format!("GM[{g}]"),
            };
            return Err(FormatError::WrongGame {
                line,
                found,
                expected: "gomoku (GM[4])",
            });
        }
    }
    let size = match first("SZ") {
        None => fallback.size,
        Some(v) => gomoku_size(&v.1).map_err(|r| bad_tag(v.clone(), "SZ", r))?,
    };
    let mut tags = Vec::new();
    let rule = match first("RU") {
        Some(v) => match rule_of(&v.1) {
            Some(r) => r,
            None if other_win_rule(&v.1).is_some() => {
                let why = other_win_rule(&v.1).unwrap_or_default();
                return Err(bad_tag(
                    v.clone(),
                    "RU",
                    format!("{why}; this program plays freestyle, standard and renju"),
                ));
            }
            None => {
                tags.push(("RU".to_string(), v.1.clone()));
                fallback.rule
            }
        },
        None => fallback.rule,
    };
    let config = GomokuConfig::new(size, rule).map_err(|e| FormatError::Syntax {
        line: 1,
        reason: e.to_string(),
    })?;
    let n = usize::from(size);
    let decode = |(_, v): &Value, what: &str| -> Result<GomokuMove, String> {
        let b: Vec<char> = v.trim().chars().collect();
        if b.is_empty() || (b == ['t', 't'] && n <= 19) {
            return Err(format!("a pass ({what}[{v}]) is no Gomoku move"));
        }
        let ok = |c: char| c.is_ascii_lowercase() && ((c as u8 - b'a') as usize) < n;
        if b.len() != 2 || !ok(b[0]) || !ok(b[1]) {
            let last = (b'a' + size - 1) as char;
            return Err(format!(
                "{what}[{v}] is not a point of the {n}x{n} board (two letters a..{last})"
            ));
        }
        let x = b[0] as u8 - b'a';
        let y = (n - 1 - (b[1] as u8 - b'a') as usize) as u8;
        Ok(GomokuMove::new(x, y))
    };
    // Set-up stones.
    let mut setup = [Vec::new(), Vec::new()];
    for (i, id) in ["AB", "AW"].iter().enumerate() {
        for v in prop(root, id).into_iter().flatten() {
            let mv = decode(v, id).map_err(|r| bad_tag(v.clone(), id, r))?;
            setup[i].push(mv);
        }
    }
    let start = if setup[0].is_empty() && setup[1].is_empty() {
        Gomoku::new(&config)
    } else {
        let to_move = match first("PL") {
            Some((_, pl)) if pl.trim().eq_ignore_ascii_case("w") => Side::Second,
            Some((_, pl)) if pl.trim().eq_ignore_ascii_case("b") => Side::First,
            Some(v) => return Err(bad_tag(v, "PL", "expected B or W".into())),
            None if setup[0].len() > setup[1].len() => Side::Second,
            None => Side::First,
        };
        let line = prop(root, "AB")
            .or_else(|| prop(root, "AW"))
            .and_then(|v| v.first())
            .map_or(1, |v| v.0);
        Gomoku::from_stones(&config, &setup[0], &setup[1], to_move).map_err(|e| {
            FormatError::BadTag {
                line,
                tag: "AB/AW".into(),
                value: e.input.clone(),
                reason: e.reason,
            }
        })?
    };
    // Moves: B / W of every node of the main line, in order.
    let mut moves: Vec<RawMove> = Vec::new();
    let mut opening_plies = 0;
    let mut side = start.side_to_move();
    for node in nodes {
        for (id, values) in node {
            if id != "B" && id != "W" {
                continue;
            }
            let v = &values[0];
            let text = format!("{id}[{}]", v.1);
            let bad = |reason: String| FormatError::BadMove {
                line: v.0,
                ply: moves.len() + 1,
                text: text.clone(),
                reason,
            };
            let colour = if id == "B" { Side::First } else { Side::Second };
            if colour != side {
                let who = if side == Side::First {
                    "black"
                } else {
                    "white"
                };
                return Err(bad(format!(
                    "it is {who}'s turn (colours alternate in Gomoku)"
                )));
            }
            let mv = decode(v, id).map_err(bad)?;
            moves.push(RawMove {
                line: v.0,
                text: mv.to_string(),
                written: text,
            });
            side = side.opponent();
        }
        if prop(node, "C").is_some_and(|c| c.iter().any(|(_, t)| t.trim() == OPENING_COMMENT)) {
            opening_plies = moves.len();
        }
    }
    let history = replay(start, &moves, |pos, t| {
        pos.parse_move(t).map_err(|e| e.to_string())
    })?;
    let mut rec = Record::new(history);
    rec.opening_plies = opening_plies;
    for (i, id) in ["PB", "PW"].iter().enumerate() {
        if let Some((_, v)) = first(id) {
            rec.players[i] = v;
        }
    }
    if let Some(v) = first("RE") {
        let t = v.1.trim().to_ascii_uppercase();
        rec.result = if t.starts_with("B+") {
            RecordResult::FirstWon
        } else if t.starts_with("W+") {
            RecordResult::SecondWon
        } else if matches!(t.as_str(), "0" | "DRAW" | "JIGO") {
            RecordResult::Draw
        } else if matches!(t.as_str(), "" | "?" | "VOID") {
            RecordResult::Unknown
        } else {
            return Err(bad_tag(
                v,
                "RE",
                "expected B+…, W+…, 0 (draw) or ? (unknown)".into(),
            ));
        };
    }
    for (tag, id) in TAG_PROPS {
        if let Some((_, v)) = first(id) {
            let v = if tag == "Date" { pgn_date(&v) } else { v };
            rec.tags.push((tag.to_string(), v));
        }
    }
    rec.tags.extend(tags);
    Ok(rec)
}
