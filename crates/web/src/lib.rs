//! `alphazero serve`: play Gomoku, Xiangqi or Connect Four against the engine in a browser,
//! with the search's visit heatmap, value bar, principal variation and move list.
//!
//! * [`Engines`]: how to make an evaluator for each [`GameSpec`] (the binary passes network
//!   evaluators; [`Engines::uniform`] needs no network), with a description shown on the page.
//!   Each game is searched with its play search from the registry
//!   ([`GameSpec::play_search`], as every other program plays it) and the simulations the
//!   page asks for. What the page draws of each game is the registry's
//!   [`alphazero_registry::WebGame`]; this crate names no game.
//! * [`serve`] binds an address and serves until the process ends; [`router`] (and
//!   [`router_with`] for other [`ServerLimits`]) gives the bare [`axum::Router`] for tests.
//! * The JSON API is documented in `crates/web/API.md`. Game state lives on the server, per
//!   random session id, in a map with a cap on sessions and an idle expiry; the page keeps
//!   only the id. Searches run on the blocking thread pool, at most
//!   [`ServerLimits::max_concurrent_searches`] at a time.
//! * Analysis board: every position of the game can be viewed (`ply`), searched, and played
//!   from (the later moves are dropped); the latest search of each position is kept for the
//!   value graph. A continuous analysis grows one search tree in steps on a background task
//!   (one per session, at most [`ServerLimits::max_live_analyses`] at once, each bounded by
//!   [`ServerLimits::analysis_max_time`] and [`ServerLimits::analysis_max_simulations`]) while the page
//!   polls the state.
//! * The page (`static/index.html`, `app.js`, `style.css`) is embedded with `include_str!`.
#![deny(missing_docs)]

mod error;
mod games;
mod play;

use std::any::Any;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use alphazero_game::{Game, Side};
use alphazero_mcts::{Evaluator, SearchBudget, UniformEvaluator};
use alphazero_registry::{with_game, GameSpec, SpecError};
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Query, State};
use axum::http::{header, Method, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

pub use error::WebError;

use error::{plain_rejection, ApiError};
use games::WebGame;
use play::{Analyser, AnyMatch, LiveJson, Match, StateJson};

/// An evaluator for the game of one [`GameSpec`], as an [`EngineFactory`] gives it: an
/// `Arc<dyn Evaluator<G>>` for that spec's game type `G`, behind a type-neutral handle.
#[derive(Clone)]
pub struct GameEvaluator(Arc<dyn Any + Send + Sync>);

impl GameEvaluator {
    /// Wraps an evaluator of game `G`.
    pub fn new<G: Game>(evaluator: Arc<dyn Evaluator<G>>) -> Self {
        GameEvaluator(Arc::new(evaluator))
    }

    /// [`UniformEvaluator`] for the game of `spec` (flat priors, value 0).
    pub fn uniform(spec: &GameSpec) -> Self {
        with_game!(spec, G, _config => GameEvaluator::new::<G>(Arc::new(UniformEvaluator)))
    }

    /// The evaluator, when it is one of game `G` (`None` for another game's).
    pub fn of<G: Game>(&self) -> Option<Arc<dyn Evaluator<G>>> {
        self.0.downcast_ref::<Arc<dyn Evaluator<G>>>().cloned()
    }
}

/// Makes the evaluator for a game spec (a game with its board size and rule), with its
/// one-line description shown on the page and written into records (e.g. `"shipped network
/// connect4.azc (…)"`, `"uniform evaluator (no network)"`). Called once per new game; it may
/// hand out the same evaluator every time. It must give an evaluator of the spec's game.
pub type EngineFactory = Arc<dyn Fn(&GameSpec) -> (GameEvaluator, String) + Send + Sync>;

/// The engine behind every game: the evaluator factory. How each game is searched is its
/// play search from the registry ([`GameSpec::play_search`]), with the simulations of the
/// game's setting (1–800) or of each step of a continuous analysis.
#[derive(Clone)]
pub struct Engines {
    /// The evaluator and its description for each game spec.
    pub evaluator: EngineFactory,
}

impl Engines {
    /// Every game searched with [`UniformEvaluator`] (no network: flat priors, value 0); the
    /// game's play search still takes and stops wins in one and sees its tactics.
    pub fn uniform() -> Self {
        Engines {
            evaluator: Arc::new(|spec: &GameSpec| {
                (
                    GameEvaluator::uniform(spec),
                    "uniform evaluator (no network)".to_string(),
                )
            }),
        }
    }
}

/// Server limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerLimits {
    /// Most sessions kept at once (default 1000); creating one more first drops expired
    /// sessions, then the least recently used one.
    pub max_sessions: usize,
    /// A session unused for this long is dropped (default 2 hours).
    pub idle_expiry: Duration,
    /// Most searches running at once (default: the number of CPUs); more wait their turn.
    /// A continuous analysis takes one of these for each of its steps only.
    pub max_concurrent_searches: usize,
    /// Most continuous analyses at once over all sessions (default: the number of CPUs);
    /// starting one more is refused with 503.
    pub max_live_analyses: usize,
    /// Longest a continuous analysis runs (default 2 minutes); a request may ask for less.
    pub analysis_max_time: Duration,
    /// Most simulations of a continuous analysis (default 200,000, which also bounds its
    /// tree's memory); a request may ask for fewer.
    pub analysis_max_simulations: u32,
}

impl Default for ServerLimits {
    fn default() -> Self {
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
        ServerLimits {
            max_sessions: 1000,
            idle_expiry: Duration::from_secs(2 * 3600),
            max_concurrent_searches: cpus,
            max_live_analyses: cpus,
            analysis_max_time: Duration::from_secs(120),
            analysis_max_simulations: 200_000,
        }
    }
}

/// Smallest and largest simulations per engine move that a game may ask for.
pub const SIMULATIONS: std::ops::RangeInclusive<u32> = 1..=800;

struct Session {
    game: Box<dyn AnyMatch>,
    simulations: u32,
    engine: String,
    last_used: Instant,
    /// Bumped on every change; a search result is applied only if it is unchanged.
    version: u64,
    thinking: bool,
    live: Option<Live>,
}

/// The continuous analysis of a session.
struct Live {
    /// Tells this analysis from a later one of the same session.
    key: u64,
    ply: usize,
    started: Instant,
    /// Set when it stopped (the clock stops then).
    ended: Option<Instant>,
    simulations: u32,
    max_simulations: u32,
    max_time: Duration,
    stopped: Option<String>,
}

impl Live {
    fn running(&self) -> bool {
        self.stopped.is_none()
    }

    fn stop(&mut self, why: &str) {
        if self.running() {
            self.stopped = Some(why.to_string());
            self.ended = Some(Instant::now());
        }
    }

    fn json(&self) -> LiveJson {
        let elapsed = self.ended.unwrap_or_else(Instant::now) - self.started;
        LiveJson {
            running: self.running(),
            ply: self.ply,
            simulations: self.simulations,
            elapsed_ms: u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX),
            max_simulations: self.max_simulations,
            max_seconds: u32::try_from(self.max_time.as_secs()).unwrap_or(u32::MAX),
            stopped: self.stopped.clone(),
        }
    }
}

impl Session {
    /// Stops a running continuous analysis because the game changes.
    fn game_changes(&mut self) {
        if let Some(l) = &mut self.live {
            l.stop("the game changed");
        }
    }

    /// 409 when a search is running in this session.
    fn check_idle(&self) -> Result<(), ApiError> {
        if self.thinking {
            return Err(ApiError::Conflict(
                "the engine is already thinking in this session".into(),
            ));
        }
        if self.live.as_ref().is_some_and(Live::running) {
            return Err(ApiError::Conflict(
                "an analysis is already running in this session: stop it first".into(),
            ));
        }
        Ok(())
    }
}

struct Shared {
    engines: Engines,
    limits: ServerLimits,
    sessions: Mutex<HashMap<String, Session>>,
    searches: Semaphore,
    live_slots: Arc<Semaphore>,
    live_keys: AtomicU64,
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

    fn state_of(id: &str, s: &Session, ply: Option<usize>) -> Result<StateJson, ApiError> {
        let mut state = s.game.state(id, &s.engine, s.simulations, ply)?;
        state.live = s.live.as_ref().map(Live::json);
        Ok(state)
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

/// Serves the page and the API on `addr` with default [`ServerLimits`] until the process ends
/// ([`bind`] then [`serve_listener`]).
///
/// # Errors
/// [`WebError::Bind`] when the address cannot be bound; [`WebError::Serve`] when the server
/// loop fails.
pub async fn serve(addr: SocketAddr, engines: Engines) -> Result<(), WebError> {
    serve_listener(bind(addr).await?, engines, ServerLimits::default()).await
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
    limits: ServerLimits,
) -> Result<(), WebError> {
    axum::serve(listener, router_with(engines, limits))
        .await
        .map_err(WebError::Serve)
}

/// The page and the JSON API with default [`ServerLimits`].
pub fn router(engines: Engines) -> Router {
    router_with(engines, ServerLimits::default())
}

/// The page and the JSON API with the given [`ServerLimits`].
pub fn router_with(engines: Engines, limits: ServerLimits) -> Router {
    let app: App = Arc::new(Shared {
        engines,
        limits,
        sessions: Mutex::new(HashMap::new()),
        searches: Semaphore::new(limits.max_concurrent_searches.max(1)),
        live_slots: Arc::new(Semaphore::new(limits.max_live_analyses.max(1))),
        live_keys: AtomicU64::new(0),
    });
    Router::new()
        .route("/", get(index))
        .route("/app.js", get(app_js))
        .route("/style.css", get(style_css))
        .route("/api/new", post(new_game))
        .route("/api/move", post(human_move))
        .route("/api/engine", post(engine_move))
        .route("/api/analysis", post(analysis))
        .route("/api/analysis/start", post(analysis_start))
        .route("/api/analysis/stop", post(analysis_stop))
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
        ApiError::Rejected(status, plain_rejection(&e.body_text()))
    })
}

/// Accepts a query string; a missing or malformed parameter is a 400.
fn query<T>(q: Result<Query<T>, QueryRejection>) -> Result<T, ApiError> {
    q.map(|Query(v)| v)
        .map_err(|e| ApiError::Rejected(StatusCode::BAD_REQUEST, plain_rejection(&e.body_text())))
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

/// A game name of the registry ([`GameSpec::NAMES`]); any other is refused as serde refuses
/// an unknown enum variant.
fn game_name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let name = String::deserialize(d)?;
    if !GameSpec::NAMES.contains(&name.as_str()) {
        return Err(serde::de::Error::unknown_variant(&name, &GameSpec::NAMES));
    }
    Ok(name)
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
    #[serde(deserialize_with = "game_name")]
    game: String,
    size: Option<u8>,
    rule: Option<String>,
    human_side: HumanSide,
    simulations: u32,
    /// Xiangqi: the start position.
    fen: Option<String>,
    /// Moves played from the start position before the game goes on.
    #[serde(default)]
    moves: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveRequest {
    session: String,
    #[serde(rename = "move")]
    mv: String,
    /// Play in the position after this many moves (dropping the later ones).
    ply: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalysisRequest {
    session: String,
    /// Search the position after this many moves (default: the current one).
    ply: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LiveRequest {
    session: String,
    ply: Option<usize>,
    max_simulations: Option<u32>,
    max_seconds: Option<u32>,
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
    let spec =
        GameSpec::from_parts(&req.game, req.size, req.rule.as_deref()).map_err(|e| match e {
            SpecError::NotForGame { .. } => {
                ApiError::BadRequest("size and rule apply to gomoku only".into())
            }
            e => ApiError::BadRequest(e.to_string()),
        })?;
    let (game, engine) =
        with_game!(&spec, G, cfg => new_match::<G>(&spec, cfg, &req, human, &app.engines))?;
    let mut game = game;
    game.play_opening(&req.moves)?;
    let session = Session {
        game,
        simulations: req.simulations,
        engine,
        last_used: Instant::now(),
        version: 0,
        thinking: false,
        live: None,
    };
    let state = Shared::state_of("", &session, None)?;
    let id = app.insert(session);
    Ok(Json(StateJson {
        session: id,
        ..state
    }))
}

/// A new match of game `G` (`spec`) under `config` (the request's start position, the human
/// on `human`), with its engine's description.
fn new_match<G: WebGame>(
    spec: &GameSpec,
    config: &G::Config,
    req: &NewGame,
    human: Side,
    engines: &Engines,
) -> Result<(Box<dyn AnyMatch>, String), ApiError> {
    let start =
        G::start(config, req.fen.as_deref()).map_err(|e| ApiError::BadRequest(e.to_string()))?;
    let (evaluator, description) = (engines.evaluator)(spec);
    let evaluator = evaluator.of::<G>().ok_or_else(|| {
        ApiError::Internal(format!(
            "the engine of {spec} is an evaluator of another game"
        ))
    })?;
    Ok((Box::new(Match::new(start, human, evaluator)), description))
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
        s.game.human_move(&req.mv, req.ply)?;
        s.game_changes();
        s.version += 1;
        Ok(Json(Shared::state_of(&req.session, s, None)?))
    })
}

async fn engine_move(
    State(app): State<App>,
    b: Result<Json<SessionRequest>, JsonRejection>,
) -> Result<Json<StateJson>, ApiError> {
    think(app, body(b)?.session, true, None).await
}

async fn analysis(
    State(app): State<App>,
    b: Result<Json<AnalysisRequest>, JsonRejection>,
) -> Result<Json<StateJson>, ApiError> {
    let req = body(b)?;
    think(app, req.session, false, req.ply).await
}

/// Runs a search on a copy of the session's game on the blocking pool, then stores the
/// result if the session did not change meanwhile. The engine's move (`play`) stops a
/// running continuous analysis; a one-position analysis waits for none (409).
async fn think(
    app: App,
    id: String,
    play: bool,
    ply: Option<usize>,
) -> Result<Json<StateJson>, ApiError> {
    let (game, version, config, budget) = app.with_session(&id, |s| {
        if s.thinking {
            return Err(ApiError::Conflict(
                "the engine is already thinking in this session".into(),
            ));
        }
        if !play {
            s.check_idle()?;
        }
        s.game.check_search(play, ply)?;
        if play {
            s.game_changes();
        }
        s.thinking = true;
        let budget = SearchBudget::simulations(s.simulations);
        Ok((s.game.clone(), s.version, s.game.search(), budget))
    })?;
    let result = async {
        let _permit = app
            .searches
            .acquire()
            .await
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        tokio::task::spawn_blocking(move || {
            let mut game = game;
            game.think(&config, budget, play, ply).map(|()| game)
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
        Ok(Json(Shared::state_of(&id, s, ply)?))
    })
}

/// Starts the continuous analysis of a position (see API.md).
async fn analysis_start(
    State(app): State<App>,
    b: Result<Json<LiveRequest>, JsonRejection>,
) -> Result<Json<StateJson>, ApiError> {
    let req = body(b)?;
    let limits = app.limits;
    let max_simulations = match req.max_simulations {
        None => limits.analysis_max_simulations,
        Some(n) if (1..=limits.analysis_max_simulations).contains(&n) => n,
        Some(n) => {
            return Err(ApiError::BadRequest(format!(
                "max_simulations must be between 1 and {}, got {n}",
                limits.analysis_max_simulations
            )))
        }
    };
    let max_secs = limits.analysis_max_time.as_secs().max(1);
    let max_time = match req.max_seconds {
        None => limits.analysis_max_time,
        Some(n) if (1..=max_secs).contains(&u64::from(n)) => Duration::from_secs(n.into()),
        Some(n) => {
            return Err(ApiError::BadRequest(format!(
                "max_seconds must be between 1 and {max_secs}, got {n}"
            )))
        }
    };
    // Check the request before waiting for a slot, so that bad input is answered at once.
    app.with_session(&req.session, |s| {
        s.check_idle()?;
        s.game.check_search(false, req.ply)
    })?;
    // A slot of the server-wide cap (an analysis stopped a moment ago gives its slot back
    // after its current step).
    let slot = tokio::time::timeout(
        Duration::from_secs(2),
        Arc::clone(&app.live_slots).acquire_owned(),
    )
    .await
    .map_err(|_| {
        ApiError::Unavailable(format!(
            "the server is running its maximum of {} analyses: try again later",
            limits.max_live_analyses.max(1)
        ))
    })?
    .map_err(|e| ApiError::Internal(e.to_string()))?;
    let key = app.live_keys.fetch_add(1, Ordering::Relaxed);
    let (analyser, state) = app.with_session(&req.session, |s| {
        s.check_idle()?;
        // Each step sets its own simulations.
        let analyser = s.game.analyser(&s.game.search(), req.ply)?;
        s.live = Some(Live {
            key,
            ply: req.ply.unwrap_or_else(|| s.game.len()),
            started: Instant::now(),
            ended: None,
            simulations: 0,
            max_simulations,
            max_time,
            stopped: None,
        });
        Ok((analyser, Shared::state_of(&req.session, s, req.ply)?))
    })?;
    tokio::spawn(live_analysis(
        Arc::clone(&app),
        req.session,
        key,
        analyser,
        slot,
    ));
    Ok(Json(state))
}

/// Stops the continuous analysis of a session (nothing to do when none is running).
async fn analysis_stop(
    State(app): State<App>,
    b: Result<Json<SessionRequest>, JsonRejection>,
) -> Result<Json<StateJson>, ApiError> {
    let req = body(b)?;
    app.with_session(&req.session, |s| {
        // The analysed position, unless a move at an earlier ply has dropped it since.
        let ply = s
            .live
            .as_ref()
            .map(|l| l.ply)
            .filter(|&p| p <= s.game.len());
        if let Some(l) = &mut s.live {
            l.stop("stopped");
        }
        Ok(Json(Shared::state_of(&req.session, s, ply)?))
    })
}

/// The loop of a continuous analysis: steps of simulations on the blocking pool (each under
/// a search permit, sized to take about a quarter of a second), each result stored in the
/// session, until it is stopped, the session or its game changes, a limit is reached or the
/// position is proven.
async fn live_analysis(
    app: App,
    id: String,
    key: u64,
    mut analyser: Box<dyn Analyser>,
    _slot: OwnedSemaphorePermit,
) {
    let mut chunk = 8u32;
    let mut done = 0u32;
    // Runs `f` on the session's analysis while it is this one and running.
    let with_live = |f: &mut dyn FnMut(&mut Session, &mut Live) -> Option<String>| -> bool {
        let mut map = app.lock();
        let Some(s) = map.get_mut(&id) else {
            return false;
        };
        let Some(mut live) = s.live.take() else {
            return false;
        };
        let keep = live.key == key && live.running();
        if keep {
            if let Some(why) = f(s, &mut live) {
                live.stop(&why);
            }
        }
        let running = keep && live.running();
        s.live = Some(live);
        running
    };
    let (max_simulations, max_time) = {
        let map = app.lock();
        match map.get(&id).and_then(|s| s.live.as_ref()) {
            Some(l) if l.key == key => (l.max_simulations, l.max_time),
            _ => return,
        }
    };
    let started = Instant::now();
    loop {
        let limit = if done >= max_simulations {
            Some("simulation limit")
        } else if started.elapsed() >= max_time {
            Some("time limit")
        } else {
            None
        };
        if !with_live(&mut |_, _| limit.map(str::to_string)) {
            return;
        }
        let n = chunk.min(max_simulations - done);
        let Ok(permit) = app.searches.acquire().await else {
            with_live(&mut |_, _| Some("error: the server is shutting down".into()));
            return;
        };
        let step_start = Instant::now();
        let joined = tokio::task::spawn_blocking(move || {
            let r = analyser.step(n);
            (analyser, r)
        })
        .await;
        drop(permit);
        let took = step_start.elapsed();
        let (back, result) = match joined {
            Ok(x) => x,
            Err(e) => {
                with_live(&mut |_, _| Some(format!("error: analysis task failed: {e}")));
                return;
            }
        };
        analyser = back;
        let mut result = Some(result);
        let running = with_live(&mut |s, live| match result.take() {
            Some(Ok((analysis, proven))) => {
                done = analysis.simulations;
                live.simulations = done;
                s.game.store(analysis);
                proven.then(|| "proven".to_string())
            }
            Some(Err(e)) => Some(format!("error: {e}")),
            None => None,
        });
        if !running {
            return;
        }
        // Aim at steps of 0.1–0.4 s: the page sees progress, a stop is quick.
        if took < Duration::from_millis(100) {
            chunk = chunk.saturating_mul(2).min(1 << 14);
        } else if took > Duration::from_millis(400) {
            chunk = (chunk / 2).max(1);
        }
    }
}

async fn undo(
    State(app): State<App>,
    b: Result<Json<SessionRequest>, JsonRejection>,
) -> Result<Json<StateJson>, ApiError> {
    let req = body(b)?;
    app.with_session(&req.session, |s| {
        s.game.undo()?;
        s.game_changes();
        s.version += 1;
        Ok(Json(Shared::state_of(&req.session, s, None)?))
    })
}

#[derive(Deserialize)]
struct SessionQuery {
    session: String,
}

#[derive(Deserialize)]
struct StateQuery {
    session: String,
    ply: Option<usize>,
}

async fn state(
    State(app): State<App>,
    q: Result<Query<StateQuery>, QueryRejection>,
) -> Result<Json<StateJson>, ApiError> {
    let q = query(q)?;
    app.with_session(&q.session, |s| {
        Ok(Json(Shared::state_of(&q.session, s, q.ply)?))
    })
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
    let disposition = format!("attachment; filename=\"alphazero-{name}-{short}.pgn\"");
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A session of each game searches as every other program plays that game: the
    /// registry's play search (`serve` once had its own, without root or reply tactics).
    #[test]
    fn sessions_search_with_the_games_play_search() {
        let engines = Engines::uniform();
        for spec in GameSpec::DEFAULTS {
            let (size, rule) = spec.options();
            let req: NewGame = serde_json::from_value(serde_json::json!({
                "game": spec.name(),
                "size": size,
                "rule": rule,
                "human_side": "first",
                "simulations": 50,
            }))
            .unwrap();
            let (game, _) =
                with_game!(&spec, G, cfg => new_match::<G>(&spec, cfg, &req, Side::First, &engines))
                    .unwrap();
            assert_eq!(game.search(), spec.play_search(), "{spec}");
        }
    }
}
