//! PGN: tag pairs, then the moves with move numbers, then the result.
//!
//! Written in PGN's export form: the seven-tag roster first (`Event`, `Site`, `Date`,
//! `Round`, the two players under the game's colour names, `Result`) after a leading
//! `[Game]` tag (and `[Variant "xiangqi"]` for Xiangqi), then the start and rule tags
//! ([`RecordGame::start_tags`]), `[Format]` (Xiangqi), the record's other tags,
//! `[OpeningPlies]` and `[PlyCount]`; move text wrapped below 80 columns; the last opening
//! move is followed by the comment `{end of opening}`.
//!
//! Read leniently: comments (`{…}`, `;…`), variations (`(…)`, skipped), NAGs (`$1`), move
//! numbers (also glued to the move, `1.h8`), annotation marks (`!`, `?`) and any number of
//! games per file. Moves are read by [`alphazero_game::Game::parse_move`] (Xiangqi: ICCS
//! `h2e2` / `H2-E2` or WXF `C2=5`; Gomoku: `h8` or Gomocup `7,7`; Connect Four: the column).

use std::fmt::Write as _;

use crate::{replay, FormatError, MoveNotation, RawMove, Record, RecordGame, RecordResult};
use alphazero_game::{Game, Side};

/// Tags the writer produces itself; a record's own copies of them are not written twice.
const OWN_TAGS: [&str; 12] = [
    "Game",
    "Variant",
    "Event",
    "Site",
    "Date",
    "Round",
    "Result",
    "Format",
    "OpeningPlies",
    "PlyCount",
    "FEN",
    "SetUp",
];

fn quote(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// One game as PGN text, ending with a blank line.
pub fn write<G: RecordGame>(rec: &Record<G>, notation: MoveNotation) -> String {
    let start = rec.history.start();
    let mut out = String::new();
    let mut tag = |k: &str, v: &str| {
        let _ = writeln!(out, "[{k} \"{}\"]", quote(v));
    };
    tag("Game", G::PGN_GAME);
    if G::PGN_GAME != G::NAME && !G::PGN_GAME.eq_ignore_ascii_case(G::NAME) {
        tag("Variant", G::NAME);
    }
    for (k, default) in [
        ("Event", "?"),
        ("Site", "?"),
        ("Date", "????.??.??"),
        ("Round", "?"),
    ] {
        tag(k, rec.tag(k).unwrap_or(default));
    }
    for side in [Side::First, Side::Second] {
        let name = &rec.players[side.index()];
        tag(
            G::PLAYER_TAGS[side.index()],
            if name.is_empty() { "?" } else { name },
        );
    }
    tag("Result", rec.result.pgn());
    let start_tags = G::start_tags(start);
    for (k, v) in &start_tags {
        tag(k, v);
    }
    if let Some(f) = G::format_tag(notation) {
        tag("Format", f);
    }
    for (k, v) in &rec.tags {
        let own = OWN_TAGS.contains(&k.as_str())
            || G::PLAYER_TAGS.contains(&k.as_str())
            || start_tags.iter().any(|(s, _)| s == k);
        if !own {
            tag(k, v);
        }
    }
    if rec.opening_plies > 0 {
        tag("OpeningPlies", &rec.opening_plies.to_string());
    }
    tag("PlyCount", &rec.history.len().to_string());
    out.push('\n');

    let mut words: Vec<String> = Vec::new();
    let mut pos = start.clone();
    let mut number = 1u32;
    let mut need_number = true;
    for (i, &mv) in rec.history.moves().iter().enumerate() {
        // A move number stays on the line of its move.
        let text = G::pgn_move(&pos, mv, notation);
        words.push(match pos.side_to_move() {
            Side::First => format!("{number}. {text}"),
            Side::Second if need_number => format!("{number}... {text}"),
            Side::Second => text,
        });
        need_number = false;
        if pos.side_to_move() == Side::Second {
            number += 1;
        }
        pos.play_unchecked(mv);
        if i + 1 == rec.opening_plies && i + 1 < rec.history.len() {
            words.push("{end of opening}".into());
            need_number = true;
        }
    }
    words.push(rec.result.pgn().to_string());
    let mut line = String::new();
    for w in words {
        if !line.is_empty() && line.len() + 1 + w.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&w);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

/// A lexical element of PGN text and the line it starts on.
enum Token {
    Tag(String, String),
    Word(String),
    Result(RecordResult),
}

fn syntax(line: usize, reason: impl Into<String>) -> FormatError {
    FormatError::Syntax {
        line,
        reason: reason.into(),
    }
}

/// Splits PGN text into tags, words (moves, glued move numbers) and results; skips comments,
/// variations, NAGs, bare move numbers and `%` escape lines.
fn lex(text: &str) -> Result<Vec<(usize, Token)>, FormatError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1;
    let mut at_line_start = true;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
            at_line_start = true;
            continue;
        }
        if c.is_whitespace() || c == '\u{feff}' {
            i += 1;
            continue;
        }
        let start_line = line;
        if c == '%' && at_line_start {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        at_line_start = false;
        match c {
            '[' => {
                i += 1;
                while i < chars.len() && chars[i] != '\n' && chars[i].is_whitespace() {
                    i += 1;
                }
                let k0 = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let key: String = chars[k0..i].iter().collect();
                if key.is_empty() {
                    return Err(syntax(
                        start_line,
                        "a tag '[' is not followed by a tag name",
                    ));
                }
                while i < chars.len() && chars[i] != '\n' && chars[i].is_whitespace() {
                    i += 1;
                }
                if chars.get(i) != Some(&'"') {
                    return Err(syntax(
                        start_line,
                        format!("tag {key}: expected a quoted value like [{key} \"…\"]"),
                    ));
                }
                i += 1;
                let mut value = String::new();
                loop {
                    match chars.get(i) {
                        None | Some('\n') => {
                            return Err(syntax(
                                start_line,
                                format!("tag {key}: the value's closing quote is missing"),
                            ))
                        }
                        Some('\\') if matches!(chars.get(i + 1), Some('"' | '\\')) => {
                            value.push(chars[i + 1]);
                            i += 2;
                        }
                        Some('"') => {
                            i += 1;
                            break;
                        }
                        Some(&ch) => {
                            value.push(ch);
                            i += 1;
                        }
                    }
                }
                while i < chars.len() && chars[i] != '\n' && chars[i].is_whitespace() {
                    i += 1;
                }
                if chars.get(i) != Some(&']') {
                    return Err(syntax(start_line, format!("tag {key}: ']' expected")));
                }
                i += 1;
                out.push((start_line, Token::Tag(key, value)));
            }
            '{' => {
                while i < chars.len() && chars[i] != '}' {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
                if i == chars.len() {
                    return Err(syntax(
                        start_line,
                        "the comment '{' opened here is never closed",
                    ));
                }
                i += 1;
            }
            ';' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '(' => {
                let mut depth = 0;
                loop {
                    match chars.get(i) {
                        None => {
                            return Err(syntax(
                                start_line,
                                "the variation '(' opened here is never closed",
                            ))
                        }
                        Some('(') => depth += 1,
                        Some(')') => {
                            depth -= 1;
                            if depth == 0 {
                                i += 1;
                                break;
                            }
                        }
                        Some('\n') => line += 1,
                        Some('{') => {
                            while i < chars.len() && chars[i] != '}' {
                                if chars[i] == '\n' {
                                    line += 1;
                                }
                                i += 1;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
            }
            ')' => return Err(syntax(start_line, "')' without an opening '('")),
            ']' => return Err(syntax(start_line, "']' outside a tag")),
            _ => {
                let w0 = i;
                while i < chars.len()
                    && !chars[i].is_whitespace()
                    && !matches!(chars[i], '{' | '}' | '(' | ')' | '[' | ']' | ';')
                {
                    i += 1;
                }
                let word: String = chars[w0..i].iter().collect();
                if word.starts_with('$') && word[1..].chars().all(|c| c.is_ascii_digit()) {
                    continue;
                }
                if let Some(r) = RecordResult::from_pgn(&word) {
                    out.push((start_line, Token::Result(r)));
                    continue;
                }
                let digits = word.trim_end_matches('.');
                if digits.len() < word.len() && digits.chars().all(|c| c.is_ascii_digit()) {
                    continue; // a bare move number, `12.` or `12...`
                }
                out.push((start_line, Token::Word(word)));
            }
        }
    }
    Ok(out)
}

/// A move word without a glued move number (`12.h8` → `h8`), if it has one.
fn strip_number(word: &str) -> Option<&str> {
    let rest = word.trim_start_matches(|c: char| c.is_ascii_digit());
    if rest.len() == word.len() || !rest.starts_with('.') {
        return None;
    }
    let rest = rest.trim_start_matches('.');
    (!rest.is_empty()).then_some(rest)
}

/// Reads a move word: as written, else without a glued move number, annotation marks
/// (`!`, `?`) ignored.
fn read_move<G: Game>(pos: &G, word: &str) -> Result<G::Move, String> {
    let w = word.trim_end_matches(['!', '?']);
    match pos.parse_move(w) {
        Ok(m) => Ok(m),
        Err(e) => match strip_number(w).map(|rest| pos.parse_move(rest)) {
            Some(Ok(m)) => Ok(m),
            _ => Err(e.to_string()),
        },
    }
}

/// One game's tokens before they are replayed.
#[derive(Default)]
struct RawGame {
    tags: Vec<(usize, String, String)>,
    moves: Vec<RawMove>,
    result: Option<RecordResult>,
    first_line: usize,
}

/// Reads every game of a PGN text as games of `G` (missing rule tags from `fallback`).
///
/// # Errors
/// [`FormatError`]: malformed tags, comments or variations; a `[Game]` / `[Variant]` tag of
/// another game; an unusable start tag (`[FEN]`, `[Size]`, …); a move that does not parse or
/// is illegal (line, number and text).
pub fn read<G: RecordGame>(
    text: &str,
    fallback: &G::Config,
) -> Result<Vec<Record<G>>, FormatError> {
    let mut games: Vec<RawGame> = Vec::new();
    let mut cur = RawGame::default();
    let mut open = false;
    for (line, tok) in lex(text)? {
        if !open {
            cur = RawGame {
                first_line: line,
                ..RawGame::default()
            };
            open = true;
        }
        match tok {
            Token::Tag(k, v) => {
                if !cur.moves.is_empty() {
                    // A new tag section without a result marker: the game before has ended.
                    games.push(std::mem::take(&mut cur));
                    cur.first_line = line;
                }
                cur.tags.push((line, k, v));
            }
            Token::Word(w) => cur.moves.push(RawMove::plain(line, w)),
            Token::Result(r) => {
                cur.result = Some(r);
                games.push(std::mem::take(&mut cur));
                open = false;
            }
        }
    }
    if open && (!cur.tags.is_empty() || !cur.moves.is_empty()) {
        games.push(cur);
    }
    games.into_iter().map(|g| build::<G>(g, fallback)).collect()
}

fn build<G: RecordGame>(g: RawGame, fallback: &G::Config) -> Result<Record<G>, FormatError> {
    let find = |key: &str| {
        g.tags
            .iter()
            .find(|(_, k, _)| k.eq_ignore_ascii_case(key))
            .map(|(l, _, v)| (*l, v.as_str()))
    };
    let names: Vec<(usize, &str)> = ["Game", "Variant"]
        .iter()
        .filter_map(|k| find(k))
        .filter(|(_, v)| !v.trim().is_empty() && *v != "?")
        .collect();
    if !names.is_empty() && !names.iter().any(|(_, v)| G::is_game_name(v)) {
        let (line, found) = names[names.len() - 1];
        return Err(FormatError::WrongGame {
            line,
            found: found.to_string(),
            expected: G::NAME,
        });
    }
    if let Some((line, f)) = find("Format") {
        if !matches!(f.to_ascii_uppercase().as_str(), "ICCS" | "WXF" | "") {
            return Err(FormatError::BadTag {
                line,
                tag: "Format".into(),
                value: f.into(),
                reason: "only ICCS (H2-E2) and WXF (C2=5) moves are read".into(),
            });
        }
    }
    let plain: Vec<(String, String)> = g
        .tags
        .iter()
        .map(|(_, k, v)| (k.clone(), v.clone()))
        .collect();
    let start = G::start_from_tags(&plain, fallback).map_err(|(tag, reason)| {
        let (line, value) = find(&tag).unwrap_or((g.first_line, ""));
        FormatError::BadTag {
            line,
            tag,
            value: value.to_string(),
            reason,
        }
    })?;
    let history = replay(start, &g.moves, read_move::<G>)?;
    let mut rec = Record::new(history);
    let name = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| find(k))
            .map(|(_, v)| {
                if v == "?" {
                    String::new()
                } else {
                    v.to_string()
                }
            })
            .unwrap_or_default()
    };
    let first_alias = if G::PLAYER_TAGS[0] == "Black" {
        "First"
    } else {
        "White"
    };
    rec.players = [
        name(&[G::PLAYER_TAGS[0], "First", first_alias]),
        name(&[G::PLAYER_TAGS[1], "Second"]),
    ];
    rec.result = find("Result")
        .and_then(|(_, v)| RecordResult::from_pgn(v))
        .or(g.result)
        .unwrap_or(RecordResult::Unknown);
    if let Some((line, v)) = find("OpeningPlies") {
        rec.opening_plies = v.trim().parse().map_err(|_| FormatError::BadTag {
            line,
            tag: "OpeningPlies".into(),
            value: v.into(),
            reason: "expected a number of plies".into(),
        })?;
    }
    let start_tags: Vec<&str> = G::start_tags(rec.history.start())
        .into_iter()
        .map(|(k, _)| k)
        .chain(["Size", "Rule", "Setup"])
        .collect();
    for (_, k, v) in &g.tags {
        let consumed = OWN_TAGS.iter().any(|o| o.eq_ignore_ascii_case(k))
            || start_tags.iter().any(|o| o.eq_ignore_ascii_case(k))
            || G::PLAYER_TAGS.iter().any(|o| o.eq_ignore_ascii_case(k))
            || ["First", "Second", "White", "Black", "Result"]
                .iter()
                .any(|o| o.eq_ignore_ascii_case(k));
        let kept = ["Event", "Site", "Date", "Round"]
            .iter()
            .any(|o| o.eq_ignore_ascii_case(k));
        if kept || !consumed {
            rec.tags.push((k.clone(), v.clone()));
        }
    }
    Ok(rec)
}
