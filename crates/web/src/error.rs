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
