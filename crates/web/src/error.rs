//! Errors: [`WebError`] for the server as a whole, [`ApiError`] for one request.

use std::net::SocketAddr;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// The server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    /// The listening socket could not be bound.
    // The cause is the `source`, not part of the message, so that a printed error chain
    // (`{:#}`) does not repeat it.
    #[error("cannot listen on {addr}")]
    Bind {
        /// The address that was asked for.
        addr: SocketAddr,
        /// Why binding failed.
        #[source]
        error: std::io::Error,
    },
    /// The server loop failed.
    #[error("web server failed")]
    Serve(#[source] std::io::Error),
}

/// Why one API request failed; answered as `{"error": "..."}` with the status below.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ApiError {
    /// 400: a bad parameter, an illegal or unparsable move, a move out of turn.
    #[error("{0}")]
    BadRequest(String),
    /// A request the extractors or the router refused: 400 (not JSON, wrong shape, bad query),
    /// 405 (wrong method), 413 (body too large), 415 (not `application/json`).
    #[error("{1}")]
    Rejected(StatusCode, String),
    /// 404: no such session (never created, or expired).
    #[error("{0}")]
    NotFound(String),
    /// 409: the engine is already thinking or an analysis is running in this session, or the
    /// game changed meanwhile.
    #[error("{0}")]
    Conflict(String),
    /// 500: the evaluator or the search failed.
    #[error("{0}")]
    Internal(String),
    /// 503: the server runs as many continuous analyses as it allows.
    #[error("{0}")]
    Unavailable(String),
}

impl ApiError {
    fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Rejected(s, _) => *s,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

/// Characters of an error message answered; the rest is cut (`… (N bytes)`), so a request
/// carrying a huge bad value (a 1 MB `game`, move or field name) gets a short answer rather
/// than its input echoed back.
pub(crate) const ERROR_CHARS: usize = 300;

/// `msg` cut to [`ERROR_CHARS`] characters, then `… (N bytes)` with its full length.
fn cut(msg: String) -> String {
    match msg.char_indices().nth(ERROR_CHARS) {
        Some((i, _)) => format!("{}… ({} bytes)", &msg[..i], msg.len()),
        None => msg,
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": cut(self.to_string()) });
        (self.status(), Json(body)).into_response()
    }
}

/// An extractor's refusal (axum's `body_text()`: its own lead, then serde's message, with the
/// path of the field when there is one) as a sentence that names the field and what it must
/// be, in the API's words rather than the framework's or the server's types:
/// `Failed to deserialize the JSON body into the target type: simulations: invalid value:
/// integer `-3`, expected u32 at line 1 column 9` becomes `bad request body: simulations must
/// be a whole number from 0 to 4294967295, not -3`, and `invalid length 0, expected struct
/// MoveRequest with 3 elements` (a body that is an array) becomes `bad request body: the body
/// must be a JSON object, not an array`. A message not recognised is kept, after the lead.
pub(crate) fn plain_rejection(text: &str) -> String {
    const DATA: &str = "Failed to deserialize the JSON body into the target type: ";
    const SYNTAX: &str = "Failed to parse the request body as JSON: ";
    const QUERY: &str = "Failed to deserialize query string: ";
    if let Some(rest) = text.strip_prefix(SYNTAX) {
        return format!("the body is not JSON: {rest}");
    }
    let (lead, rest) = match (text.strip_prefix(DATA), text.strip_prefix(QUERY)) {
        (Some(rest), _) => ("bad request body", rest),
        (None, Some(rest)) => ("bad query", rest),
        (None, None) => ("bad request", text),
    };
    // Where in the text: said by the field's name, so dropped.
    let rest = match rest.rfind(" at line ") {
        Some(i) if rest[i..].contains(" column ") => &rest[..i],
        _ => rest,
    };
    format!("{lead}: {}", field_sentence(rest))
}

/// serde's message `[PATH: ]WHAT` as a sentence naming the field (see [`plain_rejection`]).
fn field_sentence(msg: &str) -> String {
    // serde_path_to_error writes the path (`session`, `moves[2]`) before `: `; serde's own
    // messages start with words and blanks.
    let (path, what) = match msg.split_once(": ") {
        Some((p, w))
            if !p.is_empty()
                && p.chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '[' | ']')) =>
        {
            (Some(p), w)
        }
        _ => (None, msg),
    };
    let inside = |f: &str| match path {
        Some(p) => format!("{p}.{f}"),
        None => f.to_string(),
    };
    if let Some(f) = what
        .strip_prefix("missing field `")
        .and_then(|f| f.strip_suffix('`'))
    {
        return format!("the field {} is missing", inside(f));
    }
    // serde lists what it expected as `a`, `a` or `b`, or one of `a`, `b`, `c`.
    let expected = |rest: &str| {
        rest.strip_prefix(", expected one of ")
            .map(|k| format!("one of {k}"))
            .or_else(|| rest.strip_prefix(", expected ").map(str::to_string))
    };
    if let Some(f) = what.strip_prefix("unknown field `") {
        let (name, rest) = f.split_once('`').unwrap_or((f, ""));
        // The path of an unknown field ends with the field itself.
        let field = match path {
            Some(p) if p == name || p.ends_with(&format!(".{name}")) => p.to_string(),
            _ => inside(name),
        };
        return match expected(rest) {
            Some(known) => format!(
                "unknown field {field}: the fields are {}",
                known.trim_start_matches("one of ").replace(" or ", " and ")
            ),
            None => format!("unknown field {field}"),
        };
    }
    if let Some(v) = what.strip_prefix("unknown variant `") {
        let (value, rest) = v.split_once('`').unwrap_or((v, ""));
        let field = path.unwrap_or("the value");
        return match expected(rest) {
            Some(known) => format!("{field} must be {known}, not `{value}`"),
            None => format!("{field}: unknown value `{value}`"),
        };
    }
    // A number of a query string, parsed from its text (std's `ParseIntError` words); the
    // query's numbers are counts (`ply`).
    if let Some(p) = path {
        match what {
            "invalid digit found in string" | "cannot parse integer from empty string" => {
                return format!("{p} must be a whole number, 0 or more");
            }
            "number too large to fit in target type" => return format!("{p} is too large"),
            _ => {}
        }
    }
    // `invalid type: FOUND, expected WANT` / `invalid value: …` / `invalid length N, …`.
    let invalid = what
        .strip_prefix("invalid type: ")
        .or_else(|| what.strip_prefix("invalid value: "));
    let (found, want) = match invalid.and_then(|r| r.rsplit_once(", expected ")) {
        Some((found, want)) => (found_words(found), want),
        None => match what
            .strip_prefix("invalid length ")
            .and_then(|r| r.split_once(", expected "))
        {
            Some((_, want)) => ("an array".to_string(), want),
            None => {
                return match path {
                    Some(p) => format!("{p}: {what}"),
                    None => what.to_string(),
                }
            }
        },
    };
    match path {
        Some(p) => format!("{p} must be {}, not {found}", want_words(want)),
        // The body itself: the server's struct names mean nothing to a client.
        None if want.starts_with("struct ") => {
            format!("the body must be a JSON object, not {found}")
        }
        None => format!("the value must be {}, not {found}", want_words(want)),
    }
}

/// What serde found, in JSON's words: `integer `-3`` → `-3`, `string "x"` → `the string
/// "x"`, `sequence` → `an array`.
fn found_words(found: &str) -> String {
    let quoted = |s: &str| {
        s.strip_prefix('`')
            .and_then(|s| s.strip_suffix('`'))
            .map(str::to_string)
    };
    for kind in ["integer ", "floating point ", "boolean "] {
        if let Some(v) = found.strip_prefix(kind).and_then(quoted) {
            return v;
        }
    }
    if let Some(s) = found.strip_prefix("string ") {
        return format!("the string {s}");
    }
    match found {
        "sequence" => "an array".into(),
        "map" => "an object".into(),
        "null" | "unit value" => "null".into(),
        other => other.to_string(),
    }
}

/// What serde expected, in JSON's words: Rust's integer types as the whole numbers they take,
/// `a sequence` as an array.
fn want_words(want: &str) -> String {
    let range = |max: u64| format!("a whole number from 0 to {max}");
    match want {
        "u8" => range(u8::MAX.into()),
        "u16" => range(u16::MAX.into()),
        "u32" => range(u32::MAX.into()),
        "u64" | "usize" => "a whole number, 0 or more".into(),
        "i32" | "i64" | "isize" => "a whole number".into(),
        "f32" | "f64" => "a number".into(),
        "a sequence" => "an array".into(),
        "a map" => "an object".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (fresh-user trial): refusals were framework wording (`Failed to
    /// deserialize the JSON body into the target type`), named a server type (`expected
    /// struct MoveRequest with 3 elements`) or a Rust one (`expected u32`). Each case of a
    /// wrong or missing field is answered with the field and what it must be.
    #[test]
    fn refusals_name_the_field_and_no_server_type_or_framework() {
        const DATA: &str = "Failed to deserialize the JSON body into the target type: ";
        for (text, want) in [
            (
                "invalid length 0, expected struct MoveRequest with 3 elements at line 1 column 2"
                    .to_string(),
                "bad request body: the body must be a JSON object, not an array",
            ),
            (
                "invalid type: string \"x\", expected struct NewGame at line 1 column 3".into(),
                "bad request body: the body must be a JSON object, not the string \"x\"",
            ),
            (
                "missing field `session` at line 1 column 2".into(),
                "bad request body: the field session is missing",
            ),
            (
                "session: invalid type: integer `5`, expected a string at line 1 column 13".into(),
                "bad request body: session must be a string, not 5",
            ),
            (
                "simulations: invalid value: integer `-3`, expected u32 at line 1 column 60".into(),
                "bad request body: simulations must be a whole number from 0 to 4294967295, not -3",
            ),
            (
                "size: invalid type: floating point `8.5`, expected u8 at line 1 column 9".into(),
                "bad request body: size must be a whole number from 0 to 255, not 8.5",
            ),
            (
                "moves: invalid type: string \"h2e2\", expected a sequence at line 1 column 9"
                    .into(),
                "bad request body: moves must be an array, not the string \"h2e2\"",
            ),
            (
                "game: unknown variant `chess`, expected one of `connect4`, `gomoku`, `xiangqi` \
                 at line 1 column 15"
                    .into(),
                "bad request body: game must be one of `connect4`, `gomoku`, `xiangqi`, not `chess`",
            ),
            (
                "human_side: unknown variant `left`, expected `first` or `second` at line 1 column 30"
                    .into(),
                "bad request body: human_side must be `first` or `second`, not `left`",
            ),
            (
                "extra: unknown field `extra`, expected `session` at line 1 column 8".into(),
                "bad request body: unknown field extra: the fields are `session`",
            ),
            (
                "unknown field `extra`, expected one of `session`, `move`, `ply` at line 1 column 8"
                    .into(),
                "bad request body: unknown field extra: the fields are `session`, `move`, `ply`",
            ),
        ] {
            assert_eq!(plain_rejection(&format!("{DATA}{text}")), want);
        }
        for (text, want) in [
            (
                "Failed to parse the request body as JSON: EOF while parsing an object at line 1 column 1",
                "the body is not JSON: EOF while parsing an object at line 1 column 1",
            ),
            (
                "Failed to deserialize query string: missing field `session`",
                "bad query: the field session is missing",
            ),
            (
                "Failed to deserialize query string: ply: invalid digit found in string",
                "bad query: ply must be a whole number, 0 or more",
            ),
        ] {
            assert_eq!(plain_rejection(text), want);
        }
    }
}
