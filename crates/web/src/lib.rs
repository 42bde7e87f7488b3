//! `alphazero serve`: play Gomoku, Xiangqi or Connect Four against the engine in a browser,
//! with the search's visit heatmap, value bar, principal variation and move list.
//!
//! * [`Engines`]: how to make an evaluator for each game (the binary passes network
//!   evaluators; [`Engines::uniform`] needs no network), with a description shown on the page
//!   and the base [`SearchConfig`].
//! * [`serve`] binds an address and serves until the process ends; [`router`] (and
//!   [`router_with`] for other [`Limits`]) gives the bare [`axum::Router`] for tests.
//! * The JSON API is documented in `crates/web/API.md`. Game state lives on the server, per
//!   random session id, in a map with a cap on sessions and an idle expiry; the page keeps
//!   only the id. Searches run on the blocking thread pool, at most
//!   [`Limits::max_concurrent_searches`] at a time.
//! * The page (`static/index.html`, `app.js`, `style.css`) is embedded with `include_str!`.
#![deny(missing_docs)]

mod error;
mod games;
mod play;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use alphazero_connect4::{Connect4, Connect4Config};
use alphazero_game::{Game, Side};
use alphazero_gomoku::{Gomoku, GomokuConfig, Rule};
use alphazero_mcts::{Evaluator, SearchConfig, UniformEvaluator};
use alphazero_xiangqi::{Xiangqi, XiangqiConfig};
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Query, State};
use axum::http::{header, Method, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use tokio::sync::Semaphore;

pub use error::WebError;

use error::ApiError;
use play::{AnyMatch, Match, StateJson};

/// Makes the Gomoku evaluator for a board size and rule, with its one-line description for
/// that board (shown on the page and written into records, like [`Descriptions`]): e.g. a
/// network for one size and rule, the uniform evaluator for the others.
pub type GomokuEngine =
    Arc<dyn Fn(&GomokuConfig) -> (Arc<dyn Evaluator<Gomoku>>, String) + Send + Sync>;
/// Makes the Xiangqi evaluator.
pub type XiangqiEngine = Arc<dyn Fn() -> Arc<dyn Evaluator<Xiangqi>> + Send + Sync>;
/// Makes the Connect Four evaluator.
pub type Connect4Engine = Arc<dyn Fn() -> Arc<dyn Evaluator<Connect4>> + Send + Sync>;

/// A one-line description of the Xiangqi and Connect Four engines, shown on the page and
/// written into game records (e.g. `"network connect4.azc"`, `"uniform evaluator (no
/// network)"`). The Gomoku engine describes itself per board (see [`GomokuEngine`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Descriptions {
    /// Xiangqi engine.
    pub xiangqi: String,
    /// Connect Four engine.
    pub connect4: String,
}

/// The engine behind each game: an evaluator factory, called once per new game (a factory may
/// hand out the same `Arc` every time), plus descriptions and the search settings.
#[derive(Clone)]
pub struct Engines {
    /// Evaluator for a Gomoku board size and rule.
    pub gomoku: GomokuEngine,
    /// Evaluator for Xiangqi.
    pub xiangqi: XiangqiEngine,
    /// Evaluator for Connect Four.
    pub connect4: Connect4Engine,
    /// What to show on the page about each engine.
    pub describe: Descriptions,
    /// Base search settings; `simulations` is replaced by the game's setting (1–800) and the
    /// rest used as given (keep `root_noise` off for play).
    pub search: SearchConfig,
}

impl Engines {
    /// Every game searched with [`UniformEvaluator`] (no network: flat priors, value 0), with
    /// the decisive-move check on so that the engine at least takes and stops wins in one.
    pub fn uniform() -> Self {
        let d = "uniform evaluator (no network)".to_string();
        Engines {
            gomoku: {
                let d = d.clone();
                Arc::new(move |_: &GomokuConfig| {
                    (
                        Arc::new(UniformEvaluator) as Arc<dyn Evaluator<Gomoku>>,
                        d.clone(),
                    )
                })
            },
            xiangqi: Arc::new(|| Arc::new(UniformEvaluator) as Arc<dyn Evaluator<Xiangqi>>),
            connect4: Arc::new(|| Arc::new(UniformEvaluator) as Arc<dyn Evaluator<Connect4>>),
            describe: Descriptions {
                xiangqi: d.clone(),
                connect4: d,
            },
            search: SearchConfig {
                terminal_check: true,
                // Gomoku's fives, unstoppable threats and VCF; Xiangqi's mates in one and by checks.
                tactical_budget: Some(2_000),
                root_noise: false,
                ..SearchConfig::default()
            },
        }
    }
}

/// Server limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most sessions kept at once (default 1000); creating one more first drops expired
    /// sessions, then the least recently used one.
    pub max_sessions: usize,
    /// A session unused for this long is dropped (default 2 hours).
    pub idle_expiry: Duration,
    /// Most searches running at once (default: the number of CPUs); more wait their turn.
    pub max_concurrent_searches: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_sessions: 1000,
            idle_expiry: Duration::from_secs(2 * 3600),
            max_concurrent_searches: std::thread::available_parallelism().map_or(2, |n| n.get()),
        }
    }
}

/// Smallest and largest simulations per engine move that a game may ask for.
pub const SIMULATIONS: std::ops::RangeInclusive<u32> = 1..=800;

struct Session {
    game: AnyMatch,
    simulations: u32,
    engine: String,
    last_used: Instant,
    /// Bumped on every change; a search result is applied only if it is unchanged.
    version: u64,
    thinking: bool,
}

struct Shared {
    engines: Engines,
    limits: Limits,
    sessions: Mutex<HashMap<String, Session>>,
    searches: Semaphore,
}

type App = Arc<Shared>;

impl Shared {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Session>> {
        // A panic while holding the lock cannot leave a session half-changed in a way that
        // matters more than losing the server, so recover the map.
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f` on a live session (refreshing its idle clock), or 404.
    fn with_session<T>(
        &self,
        id: &str,
        f: impl FnOnce(&mut Session) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        let mut map = self.lock();
        let now = Instant::now();
        let expired = match map.get(id) {
            None => return Err(unknown_session(id)),
            Some(s) => now.duration_since(s.last_used) > self.limits.idle_expiry,
        };
        if expired {
            map.remove(id);
            return Err(ApiError::NotFound(format!("session {id:?} has expired")));
        }
        let s = map.get_mut(id).ok_or_else(|| unknown_session(id))?;
        s.last_used = now;
        f(s)
    }

    fn state_of(id: &str, s: &Session) -> StateJson {
        s.game.state(id, &s.engine, s.simulations)
    }

    fn insert(&self, session: Session) -> String {
        let id = new_session_id();
        let mut map = self.lock();
        let now = Instant::now();
        let expiry = self.limits.idle_expiry;
        map.retain(|_, s| now.duration_since(s.last_used) <= expiry);
        while map.len() >= self.limits.max_sessions.max(1) {
            let oldest = map
                .iter()
                .min_by_key(|(_, s)| s.last_used)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => map.remove(&k),
                None => break,
            };
        }
        map.insert(id.clone(), session);
        id
    }
}

fn unknown_session(id: &str) -> ApiError {
    ApiError::NotFound(format!("unknown session {id:?}"))
}

/// 128 random bits as 32 hex digits.
fn new_session_id() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// Serves the page and the API on `addr` until the process ends ([`bind`] then
/// [`serve_listener`]).
///
/// # Errors
/// [`WebError::Bind`] when the address cannot be bound; [`WebError::Serve`] when the server
/// loop fails.
pub async fn serve(addr: SocketAddr, engines: Engines) -> Result<(), WebError> {
    serve_listener(bind(addr).await?, engines).await
}

/// Binds the listening socket, so that a caller can report the address only once it is
/// really listening (port 0 picks a free port: see `local_addr`).
///
/// # Errors
/// [`WebError::Bind`] when the address cannot be bound (in use, not a local address, no
/// permission).
pub async fn bind(addr: SocketAddr) -> Result<tokio::net::TcpListener, WebError> {
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|error| WebError::Bind { addr, error })
}

/// Serves the page and the API on a bound listener until the process ends.
///
/// # Errors
/// [`WebError::Serve`] when the server loop fails.
pub async fn serve_listener(
    listener: tokio::net::TcpListener,
    engines: Engines,
) -> Result<(), WebError> {
    axum::serve(listener, router(engines))
        .await
        .map_err(WebError::Serve)
}

/// The page and the JSON API with default [`Limits`].
pub fn router(engines: Engines) -> Router {
    router_with(engines, Limits::default())
}

/// The page and the JSON API with the given [`Limits`].
pub fn router_with(engines: Engines, limits: Limits) -> Router {
    let app: App = Arc::new(Shared {
        engines,
        limits,
        sessions: Mutex::new(HashMap::new()),
        searches: Semaphore::new(limits.max_concurrent_searches.max(1)),
    });
    Router::new()
        .route("/", get(index))
        .route("/app.js", get(app_js))
        .route("/style.css", get(style_css))
        .route("/api/new", post(new_game))
        .route("/api/move", post(human_move))
        .route("/api/engine", post(engine_move))
        .route("/api/analysis", post(analysis))
        .route("/api/undo", post(undo))
        .route("/api/state", get(state))
        .route("/api/record", get(record))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(app)
}

async fn index() -> Html<&'static str> {
    Html(include_str!("../static/index.html"))
}

async fn app_js() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        include_str!("../static/app.js"),
    )
        .into_response()
}

async fn style_css() -> Response {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        include_str!("../static/style.css"),
    )
        .into_response()
}

async fn not_found() -> ApiError {
    ApiError::NotFound("no such page or API endpoint".into())
}

/// Accepts a JSON body, turning extractor failures into `{error}` answers: 415 without a JSON
/// content type, 413 for a body over the size limit, 400 for anything else (not JSON, or JSON
/// of the wrong shape: a missing or unknown field, a wrong type, an unknown game).
fn body<T>(b: Result<Json<T>, JsonRejection>) -> Result<T, ApiError> {
    b.map(|Json(v)| v).map_err(|e| {
        let status = match e.status() {
            s @ (StatusCode::UNSUPPORTED_MEDIA_TYPE | StatusCode::PAYLOAD_TOO_LARGE) => s,
            _ => StatusCode::BAD_REQUEST,
        };
        ApiError::Rejected(status, format!("bad request body: {}", e.body_text()))
    })
}

/// Accepts a query string; a missing or malformed parameter is a 400.
fn query<T>(q: Result<Query<T>, QueryRejection>) -> Result<T, ApiError> {
    q.map(|Query(v)| v).map_err(|e| {
        ApiError::Rejected(
            StatusCode::BAD_REQUEST,
            format!("bad query: {}", e.body_text()),
        )
    })
}

async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    let allowed = if uri.path().starts_with("/api/state") || uri.path().starts_with("/api/record") {
        "GET"
    } else if uri.path().starts_with("/api/") {
        "POST"
    } else {
        "GET"
    };
    ApiError::Rejected(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("{method} is not allowed on {}: use {allowed}", uri.path()),
    )
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum GameName {
    Gomoku,
    Xiangqi,
    Connect4,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum HumanSide {
    First,
    Second,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGame {
    game: GameName,
    size: Option<u8>,
    rule: Option<String>,
    human_side: HumanSide,
    simulations: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveRequest {
    session: String,
    #[serde(rename = "move")]
    mv: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionRequest {
    session: String,
}

async fn new_game(
    State(app): State<App>,
    b: Result<Json<NewGame>, JsonRejection>,
) -> Result<Json<StateJson>, ApiError> {
    let req = body(b)?;
    if !SIMULATIONS.contains(&req.simulations) {
        return Err(ApiError::BadRequest(format!(
            "simulations must be between {} and {}, got {}",
            SIMULATIONS.start(),
            SIMULATIONS.end(),
            req.simulations
        )));
    }
    let human = match req.human_side {
        HumanSide::First => Side::First,
        HumanSide::Second => Side::Second,
    };
    let e = &app.engines;
    let (game, engine) = match req.game {
        GameName::Gomoku => {
            let rule = match &req.rule {
                None => Rule::Freestyle,
                Some(r) => r
                    .parse::<Rule>()
                    .map_err(|e| ApiError::BadRequest(e.to_string()))?,
            };
            let config = GomokuConfig::new(req.size.unwrap_or(15), rule)
                .map_err(|e| ApiError::BadRequest(e.to_string()))?;
            let (evaluator, description) = (e.gomoku)(&config);
            let m = Match::new(Gomoku::new(&config), human, evaluator);
            (AnyMatch::Gomoku(Box::new(m)), description)
        }
        GameName::Xiangqi | GameName::Connect4 => {
            if req.size.is_some() || req.rule.is_some() {
                return Err(ApiError::BadRequest(
                    "size and rule apply to gomoku only".into(),
                ));
            }
            if matches!(req.game, GameName::Xiangqi) {
                let m = Match::new(
                    Xiangqi::new(&XiangqiConfig::default()),
                    human,
                    (e.xiangqi)(),
                );
                (AnyMatch::Xiangqi(Box::new(m)), e.describe.xiangqi.clone())
            } else {
                let m = Match::new(Connect4::new(&Connect4Config), human, (e.connect4)());
                (AnyMatch::Connect4(Box::new(m)), e.describe.connect4.clone())
            }
        }
    };
    let session = Session {
        game,
        simulations: req.simulations,
        engine,
        last_used: Instant::now(),
        version: 0,
        thinking: false,
    };
    let state = session.game.state("", &session.engine, session.simulations);
    let id = app.insert(session);
    Ok(Json(StateJson {
        session: id,
        ..state
    }))
}

async fn human_move(
    State(app): State<App>,
    b: Result<Json<MoveRequest>, JsonRejection>,
) -> Result<Json<StateJson>, ApiError> {
    let req = body(b)?;
    app.with_session(&req.session, |s| {
        if s.thinking {
            return Err(ApiError::Conflict("wait: the engine is thinking".into()));
        }
        s.game.human_move(&req.mv)?;
        s.version += 1;
        Ok(Json(Shared::state_of(&req.session, s)))
    })
}

async fn engine_move(
    State(app): State<App>,
    b: Result<Json<SessionRequest>, JsonRejection>,
) -> Result<Json<StateJson>, ApiError> {
    think(app, body(b)?.session, true).await
}

async fn analysis(
    State(app): State<App>,
    b: Result<Json<SessionRequest>, JsonRejection>,
) -> Result<Json<StateJson>, ApiError> {
    think(app, body(b)?.session, false).await
}

/// Runs a search on a copy of the session's game on the blocking pool, then stores the
/// result if the session did not change meanwhile.
async fn think(app: App, id: String, play: bool) -> Result<Json<StateJson>, ApiError> {
    let (game, version, config) = app.with_session(&id, |s| {
        if s.thinking {
            return Err(ApiError::Conflict(
                "the engine is already thinking in this session".into(),
            ));
        }
        s.game.check_search(play)?;
        s.thinking = true;
        let config = SearchConfig {
            simulations: s.simulations,
            ..app.engines.search.clone()
        };
        Ok((s.game.clone(), s.version, config))
    })?;
    let result = async {
        let _permit = app
            .searches
            .acquire()
            .await
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        tokio::task::spawn_blocking(move || {
            let mut game = game;
            game.think(&config, play).map(|()| game)
        })
        .await
        .map_err(|e| ApiError::Internal(format!("search task failed: {e}")))?
    }
    .await;
    app.with_session(&id, |s| {
        s.thinking = false;
        let game = result?;
        if s.version != version {
            return Err(ApiError::Conflict(
                "the game changed while the engine was thinking".into(),
            ));
        }
        s.game = game;
        s.version += 1;
        Ok(Json(Shared::state_of(&id, s)))
    })
}

async fn undo(
    State(app): State<App>,
    b: Result<Json<SessionRequest>, JsonRejection>,
) -> Result<Json<StateJson>, ApiError> {
    let req = body(b)?;
    app.with_session(&req.session, |s| {
        s.game.undo()?;
        s.version += 1;
        Ok(Json(Shared::state_of(&req.session, s)))
    })
}

#[derive(Deserialize)]
struct SessionQuery {
    session: String,
}

async fn state(
    State(app): State<App>,
    q: Result<Query<SessionQuery>, QueryRejection>,
) -> Result<Json<StateJson>, ApiError> {
    let id = query(q)?.session;
    app.with_session(&id, |s| Ok(Json(Shared::state_of(&id, s))))
}

async fn record(
    State(app): State<App>,
    q: Result<Query<SessionQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let id = query(q)?.session;
    let (name, text) = app.with_session(&id, |s| {
        Ok((s.game.name(), s.game.record(&s.engine, s.simulations)))
    })?;
    let short: String = id.chars().take(8).collect();
    let disposition = format!("attachment; filename=\"alphazero-{name}-{short}.txt\"");
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "text/plain; charset=utf-8".to_string(),
            ),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        text,
    )
        .into_response())
}
