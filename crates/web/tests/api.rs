//! The JSON API driven through `router(Engines::uniform())` with `tower::ServiceExt::oneshot`.

use std::time::Duration;

use alphazero_registry::games::{Connect4, Gomoku};
use alphazero_registry::GameSpec;
use alphazero_web::{router, router_with, Engines, GameEvaluator, ServerLimits};
use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

struct Reply {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    text: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }
}

async fn send(app: &Router, req: Request<Body>) -> Reply {
    let resp = app
        .clone()
        .oneshot(req)
        .await
        .expect("router is infallible");
    let status = resp.status();
    let headers = resp.headers().clone();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    Reply {
        status,
        headers,
        text: String::from_utf8(bytes.to_vec()).unwrap(),
    }
}

async fn post(app: &Router, path: &str, body: Value) -> Reply {
    post_raw(app, path, &body.to_string()).await
}

async fn post_raw(app: &Router, path: &str, body: &str) -> Reply {
    let req = Request::post(path)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    send(app, req).await
}

async fn get(app: &Router, path: &str) -> Reply {
    send(app, Request::get(path).body(Body::empty()).unwrap()).await
}

/// POSTs and expects 200, returning the state.
async fn ok(app: &Router, path: &str, body: Value) -> Value {
    let r = post(app, path, body).await;
    assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.text);
    r.json()
}

fn app() -> Router {
    router(Engines::uniform())
}

fn sid(state: &Value) -> String {
    state["session"].as_str().unwrap().to_string()
}

/// Plays the human's first legal move, then lets the engine answer, until the game ends;
/// checks the state invariants on the way. Returns the final state.
async fn play_out(app: &Router, mut state: Value, max_plies: usize) -> Value {
    let id = sid(&state);
    for _ in 0..max_plies {
        if !state["outcome"].is_null() {
            return state;
        }
        if state["human_to_move"].as_bool().unwrap() {
            let mv = state["legal_moves"][0].as_str().unwrap().to_string();
            let before = state["moves"].as_array().unwrap().len();
            state = ok(app, "/api/move", json!({"session": id, "move": mv})).await;
            assert_eq!(state["moves"].as_array().unwrap().len(), before + 1);
            assert_eq!(state["last_move"], json!(mv));
        } else {
            state = ok(app, "/api/engine", json!({"session": id})).await;
            let a = &state["analysis"];
            assert_eq!(a["played"], state["last_move"]);
            let v = a["value"].as_f64().unwrap();
            assert!((-1.0..=1.0).contains(&v), "value {v}");
            let heat: f64 = a["heatmap"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|row| row.as_array().unwrap().iter())
                .map(|x| x.as_f64().unwrap())
                .sum();
            assert!((heat - 1.0).abs() < 1e-3, "heatmap sums to {heat}");
        }
    }
    panic!("game did not end within {max_plies} plies: {state}");
}

#[tokio::test]
async fn connect4_full_game_flow_ends_with_a_result() {
    let app = app();
    let s = ok(
        &app,
        "/api/new",
        json!({"game": "connect4", "human_side": "first", "simulations": 20}),
    )
    .await;
    assert_eq!(s["game"], "connect4");
    assert_eq!((s["rows"].as_u64(), s["cols"].as_u64()), (Some(6), Some(7)));
    assert_eq!(s["legal_moves"], json!(["1", "2", "3", "4", "5", "6", "7"]));
    assert_eq!(s["human_to_move"], true);
    assert_eq!(s["engine"], "uniform evaluator (no network)");
    let id = sid(&s);
    let s = ok(&app, "/api/move", json!({"session": id, "move": "4"})).await;
    assert_eq!(s["board"][5][3], "red");
    assert_eq!(s["last_move_cells"], json!([[5, 3]]));
    let s = ok(&app, "/api/engine", json!({"session": id})).await;
    let cols = s["analysis"]["columns"].as_array().unwrap();
    assert_eq!(cols.len(), 7);
    assert!(s["analysis"]["top_moves"].as_array().unwrap().len() >= 2);
    assert_eq!(s["human_to_move"], true);
    let end = play_out(&app, s, 60).await;
    let result = end["outcome"]["result"].as_str().unwrap();
    assert!(["1-0", "0-1", "1/2-1/2"].contains(&result));
    assert!(end["legal_moves"].as_array().unwrap().is_empty());
    let reason = end["outcome"]["reason"].as_str().unwrap();
    let expected = if result == "1/2-1/2" {
        "the board is full"
    } else {
        "four in a row"
    };
    assert_eq!(reason, expected);
}

#[tokio::test]
async fn gomoku_full_game_flow_with_engine_first_on_small_board() {
    let app = app();
    let s = ok(
        &app,
        "/api/new",
        json!({"game": "gomoku", "size": 7, "rule": "standard", "human_side": "second", "simulations": 10}),
    )
    .await;
    assert_eq!(s["rule"], "standard");
    assert_eq!(s["human_to_move"], false);
    assert_eq!(s["cells"][6][0], "a1");
    assert_eq!(s["cells"][0][6], "g7");
    let id = sid(&s);
    // Not the human's turn: refused, nothing changes.
    let r = post(&app, "/api/move", json!({"session": id, "move": "d4"})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.json()["error"]
        .as_str()
        .unwrap()
        .contains("not your turn"));
    let s = ok(&app, "/api/engine", json!({"session": id})).await;
    // The opening set of an empty board: the 5×5 square around the centre d4 (b2..f6).
    let first = s["last_move"].as_str().unwrap().to_string();
    let (col, row) = (
        first.as_bytes()[0] - b'a',
        first[1..].parse::<usize>().unwrap() - 1,
    );
    assert!((1..=5).contains(&col) && (1..=5).contains(&row), "{first}");
    assert_eq!(s["board"][6 - row][usize::from(col)], "black");
    let heat: f64 = s["analysis"]["heatmap"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()))
        .sum();
    assert!((heat - 1.0).abs() < 1e-4, "heatmap sums to {heat}");
    // Gomocup x,y notation is accepted too.
    let s = ok(&app, "/api/move", json!({"session": id, "move": "0,0"})).await;
    assert_eq!(s["last_move"], "a1");
    assert_eq!(s["board"][6][0], "white");
    let end = play_out(&app, s, 60).await;
    assert!(!end["outcome"]["text"].as_str().unwrap().is_empty());
    // The reason in words: a five (with its point) or a full board.
    let reason = end["outcome"]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("five in a row with ") || reason == "the board is full",
        "{reason}"
    );
    assert!(end["outcome"]["text"].as_str().unwrap().contains(reason));
}

#[tokio::test]
async fn xiangqi_flow_moves_pieces_and_aggregates_heat_on_squares() {
    let app = app();
    let s = ok(
        &app,
        "/api/new",
        json!({"game": "xiangqi", "human_side": "first", "simulations": 30}),
    )
    .await;
    assert_eq!(s["board"][9][0], "R");
    assert_eq!(s["board"][0][4], "k");
    assert_eq!(s["legal_moves"].as_array().unwrap().len(), 44);
    let id = sid(&s);
    let s = ok(&app, "/api/move", json!({"session": id, "move": "h2e2"})).await;
    assert_eq!(s["board"][7][4], "C");
    assert_eq!(s["board"][7][7], "");
    assert_eq!(s["last_move_cells"], json!([[7, 7], [7, 4]]));
    let mut s = ok(&app, "/api/engine", json!({"session": id})).await;
    let a = &s["analysis"];
    assert_eq!(a["side"], "second");
    let from: f64 = a["heatmap_from"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r.as_array().unwrap().iter())
        .map(|x| x.as_f64().unwrap())
        .sum();
    assert!((from - 1.0).abs() < 1e-3);
    assert!(!a["pv"].as_array().unwrap().is_empty());
    assert_eq!(s["moves"].as_array().unwrap().len(), 2);
    assert_eq!(s["human_to_move"], true);
    // A few more plies in each direction.
    for _ in 0..3 {
        let mv = s["legal_moves"][0].as_str().unwrap().to_string();
        let s2 = ok(&app, "/api/move", json!({"session": id, "move": mv})).await;
        assert_eq!(s2["human_to_move"], false);
        s = ok(&app, "/api/engine", json!({"session": id})).await;
    }
    let s = ok(&app, "/api/analysis", json!({"session": id})).await;
    assert_eq!(s["analysis"]["played"], Value::Null);
    assert_eq!(s["moves"].as_array().unwrap().len(), 8);
}

#[tokio::test]
async fn illegal_move_is_400_and_leaves_state_unchanged() {
    let app = app();
    let s = ok(
        &app,
        "/api/new",
        json!({"game": "xiangqi", "human_side": "first", "simulations": 5}),
    )
    .await;
    let id = sid(&s);
    let before = get(&app, &format!("/api/state?session={id}")).await.json();
    for bad in ["h2h8", "h2g3", "e0e2", "zz", "", "a0a0a0"] {
        let r = post(&app, "/api/move", json!({"session": id, "move": bad})).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}: {}", r.text);
        assert!(!r.json()["error"].as_str().unwrap().is_empty());
    }
    let after = get(&app, &format!("/api/state?session={id}")).await.json();
    assert_eq!(before, after);

    let c = ok(
        &app,
        "/api/new",
        json!({"game": "connect4", "human_side": "first", "simulations": 5}),
    )
    .await;
    let cid = sid(&c);
    for bad in ["0", "8", "x"] {
        let r = post(&app, "/api/move", json!({"session": cid, "move": bad})).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}");
    }
    let r = post(&app, "/api/move", json!({"session": cid, "move": "4"})).await;
    assert_eq!(r.status, StatusCode::OK);
    // The engine is to move now: a human move is refused.
    let r = post(&app, "/api/move", json!({"session": cid, "move": "4"})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);

    // An occupied Gomoku point.
    let g = ok(
        &app,
        "/api/new",
        json!({"game": "gomoku", "size": 7, "human_side": "first", "simulations": 5}),
    )
    .await;
    let gid = sid(&g);
    ok(&app, "/api/move", json!({"session": gid, "move": "d4"})).await;
    let before = ok(&app, "/api/engine", json!({"session": gid})).await;
    let r = post(&app, "/api/move", json!({"session": gid, "move": "d4"})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.json()["error"].as_str().unwrap().contains("d4"));
    let r = post(&app, "/api/move", json!({"session": gid, "move": "h8"})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST); // off the 7x7 board
    let after = get(&app, &format!("/api/state?session={gid}")).await.json();
    assert_eq!(before, after);
}

#[tokio::test]
async fn unknown_session_is_404() {
    let app = app();
    let r = post(&app, "/api/move", json!({"session": "nope", "move": "4"})).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert!(r.json()["error"].as_str().unwrap().contains("nope"));
    for path in ["/api/engine", "/api/undo", "/api/analysis"] {
        let r = post(&app, path, json!({"session": "nope"})).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{path}");
    }
    assert_eq!(
        get(&app, "/api/state?session=nope").await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        get(&app, "/api/record?session=nope").await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        get(&app, "/api/nothing").await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn bad_json_and_bad_parameters_are_4xx_with_an_error() {
    let app = app();
    let cases: Vec<(&str, String)> = vec![
        ("/api/new", "{not json".into()),
        (
            "/api/new",
            json!({"game": "chess", "human_side": "first", "simulations": 5}).to_string(),
        ),
        (
            "/api/new",
            json!({"game": "gomoku", "human_side": "left", "simulations": 5}).to_string(),
        ),
        (
            "/api/new",
            json!({"game": "gomoku", "human_side": "first"}).to_string(),
        ),
        (
            "/api/new",
            json!({"game": "gomoku", "human_side": "first", "simulations": -3}).to_string(),
        ),
        (
            "/api/new",
            json!({"game": "gomoku", "size": 30, "human_side": "first", "simulations": 5})
                .to_string(),
        ),
        (
            "/api/new",
            json!({"game": "gomoku", "rule": "go", "human_side": "first", "simulations": 5})
                .to_string(),
        ),
        (
            "/api/new",
            json!({"game": "connect4", "size": 9, "human_side": "first", "simulations": 5})
                .to_string(),
        ),
        (
            "/api/new",
            json!({"game": "connect4", "human_side": "first", "simulations": 5, "extra": 1})
                .to_string(),
        ),
        ("/api/move", json!({"session": "x"}).to_string()),
        ("/api/engine", "[]".into()),
    ];
    for (path, body) in cases {
        let r = post_raw(&app, path, &body).await;
        // API.md: every malformed request (not JSON, wrong shape, bad value) is a 400.
        assert_eq!(
            r.status,
            StatusCode::BAD_REQUEST,
            "{path} {body}: {}",
            r.text
        );
        let err = r.json()["error"].as_str().unwrap().to_string();
        assert!(!err.is_empty(), "{body}");
        // Plain words: no server type (`struct MoveRequest`) and no framework phrase.
        assert!(
            !err.contains("struct") && !err.contains("target type") && !err.contains("Failed to"),
            "{path} {body}: {err}"
        );
    }
    let r = post_raw(&app, "/api/move", "[]").await;
    let err = r.json()["error"].as_str().unwrap().to_string();
    assert!(err.contains("must be a JSON object, not an array"), "{err}");
    // No content type at all.
    let req = Request::post("/api/new").body(Body::from("{}")).unwrap();
    let r = send(&app, req).await;
    assert_eq!(r.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(r.json()["error"].is_string());
    // Missing query parameter.
    let r = get(&app, "/api/state").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.json()["error"].is_string());
}

/// Regression (fresh-user trial): a wrong body was answered in serde's and axum's words
/// (`expected struct MoveRequest with 3 elements`, `expected u32`). Each case of a wrong,
/// missing or unknown field is answered with one sentence naming the field.
#[tokio::test]
async fn a_wrong_or_missing_field_is_answered_with_a_sentence_naming_it() {
    let app = app();
    let new = |extra: Value| {
        let mut body = json!({"game": "connect4", "human_side": "first", "simulations": 5});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        body.to_string()
    };
    for (path, body, want) in [
        (
            "/api/move",
            "[]".to_string(),
            "bad request body: the body must be a JSON object, not an array",
        ),
        (
            "/api/move",
            "\"h8\"".to_string(),
            "bad request body: the body must be a JSON object, not the string \"h8\"",
        ),
        (
            "/api/move",
            json!({"move": "d1"}).to_string(),
            "bad request body: the field session is missing",
        ),
        (
            "/api/move",
            json!({"session": 5, "move": "d1"}).to_string(),
            "bad request body: session must be a string, not 5",
        ),
        (
            "/api/move",
            json!({"session": "x", "move": "d1", "ply": -1}).to_string(),
            "bad request body: ply must be a whole number, 0 or more, not -1",
        ),
        (
            "/api/new",
            new(json!({"simulations": -3})),
            "bad request body: simulations must be a whole number from 0 to 4294967295, not -3",
        ),
        (
            "/api/new",
            new(json!({"size": 8.5})),
            "bad request body: size must be a whole number from 0 to 255, not 8.5",
        ),
        (
            "/api/new",
            new(json!({"moves": "d1"})),
            "bad request body: moves must be an array, not the string \"d1\"",
        ),
        (
            "/api/new",
            new(json!({"human_side": "left"})),
            "bad request body: human_side must be `first` or `second`, not `left`",
        ),
        (
            "/api/new",
            new(json!({"game": "chess"})),
            "bad request body: game must be one of `gomoku`, `xiangqi`, `connect4`, not `chess`",
        ),
        (
            "/api/new",
            new(json!({"extra": 1})),
            "bad request body: unknown field extra: the fields are `game`, `size`, `rule`, \
             `human_side`, `simulations`, `fen`, `moves`",
        ),
    ] {
        let r = post_raw(&app, path, &body).await;
        assert_eq!(
            r.status,
            StatusCode::BAD_REQUEST,
            "{path} {body}: {}",
            r.text
        );
        assert_eq!(r.json()["error"], want, "{path} {body}");
    }
    for (query, want) in [
        ("/api/state", "bad query: the field session is missing"),
        (
            "/api/state?session=x&ply=-1",
            "bad query: ply must be a whole number, 0 or more",
        ),
    ] {
        let r = get(&app, query).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{query}: {}", r.text);
        assert_eq!(r.json()["error"], want, "{query}");
    }
}

#[tokio::test]
async fn unknown_game_and_missing_fields_are_400_naming_the_input() {
    let app = app();
    let r = post(
        &app,
        "/api/new",
        json!({"game": "chess", "human_side": "first", "simulations": 5}),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    assert!(
        r.json()["error"].as_str().unwrap().contains("chess"),
        "{}",
        r.text
    );
    for missing in ["human_side", "simulations", "game"] {
        let mut body = json!({"game": "connect4", "human_side": "first", "simulations": 5});
        body.as_object_mut().unwrap().remove(missing);
        let r = post(&app, "/api/new", body).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{missing}: {}", r.text);
        assert!(
            r.json()["error"].as_str().unwrap().contains(missing),
            "{}",
            r.text
        );
    }
}

#[tokio::test]
async fn wrong_method_is_405_with_a_json_error() {
    let app = app();
    let r = get(&app, "/api/new").await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    let err = r.json()["error"].as_str().unwrap().to_string();
    assert!(err.contains("GET") && err.contains("POST"), "{err}");
    let r = post(&app, "/api/state", json!({})).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    assert!(r.json()["error"].as_str().unwrap().contains("use GET"));
}

#[tokio::test]
async fn oversized_body_is_413_with_a_json_error() {
    let app = app();
    let big = format!(
        "{{\"game\": \"connect4\", \"pad\": \"{}\"}}",
        "x".repeat(3 << 20)
    );
    let r = post_raw(&app, "/api/new", &big).await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(r.json()["error"].is_string(), "{}", r.text);
}

#[tokio::test]
async fn huge_bad_values_get_short_errors_that_still_name_them() {
    let app = app();
    let huge = "x".repeat(100_000);
    let bodies = [
        json!({"game": huge, "human_side": "first", "simulations": 5}),
        json!({"game": "gomoku", "human_side": "first", "simulations": 5, "moves": [huge]}),
        json!({"game": "xiangqi", "human_side": "first", "simulations": 5, "fen": format!("{huge} w")}),
        json!({"game": "gomoku", "human_side": "first", "simulations": 5, huge.clone(): 1}),
    ];
    for body in bodies {
        let r = post(&app, "/api/new", body).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", &r.text[..200]);
        let err = r.json()["error"].as_str().unwrap().to_string();
        assert!(err.chars().count() < 400, "{} characters", err.len());
        // Cut either here (`… (N bytes)`) or already where the value was parsed
        // (`alphazero_game::quoted_excerpt`: `… (N characters)`).
        assert!(
            err.contains("xxxxxxxxxx") && (err.contains(" bytes)") || err.contains(" characters)")),
            "{err}"
        );
    }
    // (a URI holds at most 64 KiB)
    let r = get(&app, &format!("/api/state?session={}", &huge[..60_000])).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert!(r.json()["error"].as_str().unwrap().chars().count() < 400);
}

#[tokio::test]
async fn simulations_out_of_range_is_400() {
    let app = app();
    for sims in [0, 801, 100_000] {
        let r = post(
            &app,
            "/api/new",
            json!({"game": "connect4", "human_side": "first", "simulations": sims}),
        )
        .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{sims}");
        assert!(r.json()["error"].as_str().unwrap().contains("simulations"));
    }
    for sims in [1, 800] {
        ok(
            &app,
            "/api/new",
            json!({"game": "connect4", "human_side": "first", "simulations": sims}),
        )
        .await;
    }
}

#[tokio::test]
async fn undo_takes_back_to_the_humans_previous_turn() {
    let app = app();
    let s = ok(
        &app,
        "/api/new",
        json!({"game": "connect4", "human_side": "second", "simulations": 5}),
    )
    .await;
    let id = sid(&s);
    // Nothing of the human's to undo yet.
    assert_eq!(
        post(&app, "/api/undo", json!({"session": id})).await.status,
        StatusCode::BAD_REQUEST
    );
    let s = ok(&app, "/api/engine", json!({"session": id})).await;
    assert_eq!(
        post(&app, "/api/undo", json!({"session": id})).await.status,
        StatusCode::BAD_REQUEST
    );
    let after_engine = s["moves"].clone();
    ok(&app, "/api/move", json!({"session": id, "move": "1"})).await;
    let s = ok(&app, "/api/engine", json!({"session": id})).await;
    assert_eq!(s["moves"].as_array().unwrap().len(), 3);
    let s = ok(&app, "/api/undo", json!({"session": id})).await;
    assert_eq!(s["moves"], after_engine);
    assert_eq!(s["human_to_move"], true);
    assert_eq!(s["analysis"], Value::Null);
    // Undo right after the human's own move (engine not yet answered): one ply.
    ok(&app, "/api/move", json!({"session": id, "move": "2"})).await;
    let s = ok(&app, "/api/undo", json!({"session": id})).await;
    assert_eq!(s["moves"], after_engine);
    assert_eq!(s["human_to_move"], true);
}

#[tokio::test]
async fn record_download_lists_tags_moves_and_result() {
    let app = app();
    let s = ok(
        &app,
        "/api/new",
        json!({"game": "gomoku", "size": 9, "rule": "renju", "human_side": "first", "simulations": 5}),
    )
    .await;
    let id = sid(&s);
    ok(&app, "/api/move", json!({"session": id, "move": "e5"})).await;
    ok(&app, "/api/engine", json!({"session": id})).await;
    let r = get(&app, &format!("/api/record?session={id}")).await;
    assert_eq!(r.status, StatusCode::OK);
    let disp = r.headers[header::CONTENT_DISPOSITION].to_str().unwrap();
    assert!(
        disp.starts_with("attachment; filename=\"alphazero-gomoku-"),
        "{disp}"
    );
    assert!(r.text.contains("[Game \"gomoku\"]"), "{}", r.text);
    assert!(r.text.contains("[Rule \"renju\"]"));
    assert!(r.text.contains("[Size \"9\"]"));
    assert!(r.text.contains("[Black \"human\"]"));
    assert!(r.text.contains("[Result \"*\"]"));
    assert!(r.text.contains("1. e5 "), "{}", r.text);
    // The record is dated (it said `????.??.??`), like `play --save` and `arena --pgn`.
    let date = r.text.lines().find(|l| l.starts_with("[Date ")).unwrap();
    let day = date.trim_start_matches("[Date \"").trim_end_matches("\"]");
    assert!(
        day.len() == 10 && day.split('.').all(|p| p.parse::<u32>().is_ok()),
        "{date}"
    );

    // A finished Connect Four game records its result.
    let s = ok(
        &app,
        "/api/new",
        json!({"game": "connect4", "human_side": "first", "simulations": 5}),
    )
    .await;
    let end = play_out(&app, s, 60).await;
    let id = sid(&end);
    let r = get(&app, &format!("/api/record?session={id}")).await;
    let result = end["outcome"]["result"].as_str().unwrap();
    assert!(
        r.text.contains(&format!("[Result \"{result}\"]")),
        "{}",
        r.text
    );
    assert!(r.text.trim_end().ends_with(result));
}

#[tokio::test]
async fn engine_and_analysis_refuse_when_not_allowed() {
    let app = app();
    let s = ok(
        &app,
        "/api/new",
        json!({"game": "connect4", "human_side": "first", "simulations": 5}),
    )
    .await;
    let id = sid(&s);
    let r = post(&app, "/api/engine", json!({"session": id})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    // Analysis of the human's position is allowed and changes no move.
    let s = ok(&app, "/api/analysis", json!({"session": id})).await;
    assert!(s["moves"].as_array().unwrap().is_empty());
    assert_eq!(s["analysis"]["side"], "first");
    assert!(s["analysis"]["best_move"].is_string());
}

#[tokio::test]
async fn expired_and_evicted_sessions_are_gone() {
    let limits = ServerLimits {
        max_sessions: 2,
        idle_expiry: Duration::from_secs(3600),
        max_concurrent_searches: 1,
        ..ServerLimits::default()
    };
    let app = router_with(Engines::uniform(), limits);
    let new = json!({"game": "connect4", "human_side": "first", "simulations": 5});
    let a = sid(&ok(&app, "/api/new", new.clone()).await);
    let b = sid(&ok(&app, "/api/new", new.clone()).await);
    assert_ne!(a, b);
    assert_eq!(a.len(), 32);
    // Touch `a` so that `b` is the least recently used one, then create a third.
    assert_eq!(
        get(&app, &format!("/api/state?session={a}")).await.status,
        StatusCode::OK
    );
    let c = sid(&ok(&app, "/api/new", new.clone()).await);
    assert_eq!(
        get(&app, &format!("/api/state?session={b}")).await.status,
        StatusCode::NOT_FOUND
    );
    for id in [&a, &c] {
        assert_eq!(
            get(&app, &format!("/api/state?session={id}")).await.status,
            StatusCode::OK
        );
    }

    let expiring = router_with(
        Engines::uniform(),
        ServerLimits {
            idle_expiry: Duration::ZERO,
            ..limits
        },
    );
    let id = sid(&ok(&expiring, "/api/new", new).await);
    std::thread::sleep(Duration::from_millis(2));
    let r = get(&expiring, &format!("/api/state?session={id}")).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert!(r.json()["error"].as_str().unwrap().contains("expired"));
}

#[tokio::test]
async fn page_and_assets_are_served() {
    let app = app();
    let r = get(&app, "/").await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.text.contains("<script src=\"/app.js\""));
    let js = get(&app, "/app.js").await;
    assert!(js.headers[header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .starts_with("text/javascript"));
    assert!(js.text.contains("/api/new"));
    let css = get(&app, "/style.css").await;
    assert!(css.headers[header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .starts_with("text/css"));
}

#[tokio::test]
async fn page_size_selector_offers_every_size_the_api_accepts() {
    let app = app();
    let page = get(&app, "/").await.text;
    let start = page.find("<select id=\"size\"").expect("size selector");
    let select = &page[start..start + page[start..].find("</select>").unwrap()];
    let values: Vec<u8> = select
        .split("value=\"")
        .skip(1)
        .map(|v| v[..v.find('"').unwrap()].parse().unwrap())
        .collect();
    let sizes: Vec<u8> =
        (alphazero_registry::games::MIN_SIZE..=alphazero_registry::games::MAX_SIZE).collect();
    assert_eq!(values, sizes, "{select}");
    assert!(
        select.contains("<option value=\"15\" selected>"),
        "{select}"
    );
    // Every offered size starts a game.
    for size in sizes {
        let r = post(
            &app,
            "/api/new",
            json!({"game": "gomoku", "size": size, "human_side": "first", "simulations": 1}),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK, "size {size}: {}", r.text);
    }
}

#[tokio::test]
async fn gomoku_engine_field_describes_the_evaluator_of_that_board() {
    use alphazero_mcts::{Evaluator, UniformEvaluator};
    use alphazero_registry::games::Rule;
    use std::sync::Arc;
    let mut engines = Engines::uniform();
    let uniform = engines.evaluator.clone();
    engines.evaluator = Arc::new(move |spec: &GameSpec| {
        let &GameSpec::Gomoku { size, rule } = spec else {
            return uniform(spec);
        };
        let desc = if size == 8 && rule == Rule::Freestyle {
            "network for 8x8".to_string()
        } else {
            format!("uniform on {size}x{size} {rule:?}")
        };
        (
            GameEvaluator::new(Arc::new(UniformEvaluator) as Arc<dyn Evaluator<Gomoku>>),
            desc,
        )
    });
    let app = router(engines);
    for (size, rule, want) in [
        (8, "freestyle", "network for 8x8"),
        (8, "renju", "uniform on 8x8 Renju"),
        (20, "freestyle", "uniform on 20x20 Freestyle"),
    ] {
        let s = ok(
            &app,
            "/api/new",
            json!({"game": "gomoku", "size": size, "rule": rule, "human_side": "first", "simulations": 1}),
        )
        .await;
        assert_eq!(s["engine"], want, "{size} {rule}");
    }
}

// ---- Analysis board: earlier positions, continuous analysis, set-up positions, endings ----

fn moves_of(state: &Value) -> Vec<String> {
    state["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect()
}

fn stones(state: &Value) -> usize {
    state["board"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r.as_array().unwrap().iter())
        .filter(|c| !c.as_str().unwrap().is_empty())
        .count()
}

/// A Connect Four game where the human (first) and the engine played two moves each.
async fn connect4_four_plies(app: &Router) -> (String, Value) {
    let s = ok(
        app,
        "/api/new",
        json!({"game": "connect4", "human_side": "first", "simulations": 8}),
    )
    .await;
    let id = sid(&s);
    ok(app, "/api/move", json!({"session": id, "move": "4"})).await;
    ok(app, "/api/engine", json!({"session": id})).await;
    ok(app, "/api/move", json!({"session": id, "move": "1"})).await;
    let s = ok(app, "/api/engine", json!({"session": id})).await;
    assert_eq!(s["moves"].as_array().unwrap().len(), 4);
    (id, s)
}

#[tokio::test]
async fn state_at_an_earlier_ply_shows_that_position_and_a_bad_ply_is_400() {
    let app = app();
    let (id, end) = connect4_four_plies(&app).await;
    let all = moves_of(&end);
    assert_eq!(end["ply"], 4);
    assert_eq!(end["values"].as_array().unwrap().len(), 5);
    for ply in 0..=4usize {
        let s = get(&app, &format!("/api/state?session={id}&ply={ply}")).await;
        assert_eq!(s.status, StatusCode::OK, "{}", s.text);
        let s = s.json();
        assert_eq!(s["ply"], ply);
        assert_eq!(stones(&s), ply, "ply {ply}");
        assert_eq!(moves_of(&s), all, "the whole game is listed at every ply");
        let last = if ply == 0 {
            Value::Null
        } else {
            json!(all[ply - 1])
        };
        assert_eq!(s["last_move"], last);
        assert_eq!(s["human_to_move"], ply % 2 == 0, "ply {ply}");
        assert_eq!(
            s["side_to_move"],
            if ply % 2 == 0 { "first" } else { "second" }
        );
        // The engine searched plies 1 and 3 before moving: their analyses are kept.
        if ply % 2 == 1 {
            assert_eq!(s["analysis"]["ply"], ply);
            assert_eq!(s["analysis"]["played"], json!(all[ply]));
        } else {
            assert_eq!(s["analysis"], Value::Null, "ply {ply}");
        }
    }
    for (i, v) in end["values"].as_array().unwrap().iter().enumerate() {
        assert_eq!(v.is_null(), i % 2 == 0, "values[{i}] = {v}");
    }
    let r = get(&app, &format!("/api/state?session={id}&ply=5")).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let err = r.json()["error"].as_str().unwrap().to_string();
    assert!(err.contains("ply 5") && err.contains("4 moves"), "{err}");
    for bad in ["-1", "x", "1.5"] {
        let r = get(&app, &format!("/api/state?session={id}&ply={bad}")).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}");
        assert!(r.json()["error"].is_string());
    }
    let r = get(&app, "/api/state?session=nope&ply=0").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_move_at_an_earlier_ply_drops_the_later_moves() {
    let app = app();
    let (id, end) = connect4_four_plies(&app).await;
    let all = moves_of(&end);
    // Bad input changes nothing: the engine's turn at ply 1, a ply past the end, an illegal move.
    for (body, want) in [
        (
            json!({"session": id, "move": "2", "ply": 1}),
            "not your turn at ply 1",
        ),
        (json!({"session": id, "move": "2", "ply": 9}), "ply 9"),
        (json!({"session": id, "move": "8", "ply": 2}), "8"),
    ] {
        let r = post(&app, "/api/move", body.clone()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body}: {}", r.text);
        let err = r.json()["error"].as_str().unwrap().to_string();
        assert!(err.contains(want), "{body}: {err}");
    }
    let r = post(
        &app,
        "/api/move",
        json!({"session": "nope", "move": "2", "ply": 0}),
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(
        get(&app, &format!("/api/state?session={id}")).await.json(),
        end
    );
    // A move at ply 2: plies 2 and 3 are dropped, the engine is to move.
    let s = ok(
        &app,
        "/api/move",
        json!({"session": id, "move": "7", "ply": 2}),
    )
    .await;
    let mut want = all[..2].to_vec();
    want.push("7".into());
    assert_eq!(moves_of(&s), want);
    assert_eq!(s["ply"], 3);
    assert_eq!(s["human_to_move"], false);
    let values = s["values"].as_array().unwrap();
    assert_eq!(values.len(), 4);
    assert!(!values[1].is_null(), "ply 1's analysis is kept");
    assert!(values[2].is_null() && values[3].is_null());
    // A move at the end with ply = moves.len() is a plain move.
    let s = ok(&app, "/api/engine", json!({"session": id})).await;
    let n = s["moves"].as_array().unwrap().len();
    let s = ok(
        &app,
        "/api/move",
        json!({"session": id, "move": "7", "ply": n}),
    )
    .await;
    assert_eq!(s["moves"].as_array().unwrap().len(), n + 1);
}

#[tokio::test]
async fn analysis_of_an_earlier_ply_is_kept_for_that_position_only() {
    let app = app();
    let (id, end) = connect4_four_plies(&app).await;
    let s = ok(&app, "/api/analysis", json!({"session": id, "ply": 0})).await;
    assert_eq!(s["ply"], 0, "the answer shows the analysed position");
    assert_eq!(s["analysis"]["ply"], 0);
    assert_eq!(s["analysis"]["side"], "first");
    assert_eq!(moves_of(&s), moves_of(&end), "no move is undone");
    let now = get(&app, &format!("/api/state?session={id}")).await.json();
    assert!(!now["values"][0].is_null());
    // At the end, the latest search (of ply 0) is not shown over the current position.
    assert_eq!(now["analysis"], Value::Null);
    assert_eq!(now["ply"], 4);
    // Top moves carry their own lines, drawn cell by cell.
    for t in s["analysis"]["top_moves"].as_array().unwrap() {
        let pv = t["pv"].as_array().unwrap();
        assert_eq!(pv[0], t["move"]);
        assert_eq!(pv.len(), t["pv_cells"].as_array().unwrap().len());
        let col: usize = t["move"].as_str().unwrap().parse().unwrap();
        assert_eq!(t["pv_cells"][0]["to"][1], col - 1);
    }
    for (body, status) in [
        (json!({"session": id, "ply": 5}), StatusCode::BAD_REQUEST),
        (json!({"session": id, "ply": -1}), StatusCode::BAD_REQUEST),
        (json!({"session": "nope", "ply": 0}), StatusCode::NOT_FOUND),
        (
            json!({"session": id, "ply": 0, "extra": 1}),
            StatusCode::BAD_REQUEST,
        ),
    ] {
        let r = post(&app, "/api/analysis", body.clone()).await;
        assert_eq!(r.status, status, "{body}: {}", r.text);
        assert!(r.json()["error"].is_string());
    }
}

/// The uniform evaluator, 2 ms a batch: a continuous analysis stays far from its limits
/// while a test talks to it (the bare one reaches 200,000 simulations in a fraction of a second).
struct SlowUniform;

impl alphazero_mcts::Evaluator<Connect4> for SlowUniform {
    fn evaluate(
        &self,
        batch: &[alphazero_mcts::EvalRequest<'_, Connect4>],
        policy_logits: &mut [f32],
        values: &mut [f32],
    ) -> Result<(), alphazero_mcts::EvalError> {
        std::thread::sleep(Duration::from_millis(2));
        alphazero_mcts::UniformEvaluator.evaluate(batch, policy_logits, values)
    }
}

fn slow_engines() -> Engines {
    let mut e = Engines::uniform();
    let uniform = e.evaluator.clone();
    e.evaluator = std::sync::Arc::new(move |spec: &GameSpec| match spec {
        GameSpec::Connect4 => {
            let slow = std::sync::Arc::new(SlowUniform)
                as std::sync::Arc<dyn alphazero_mcts::Evaluator<Connect4>>;
            (
                GameEvaluator::new(slow),
                "uniform evaluator (no network)".into(),
            )
        }
        _ => uniform(spec),
    });
    e
}

/// Polls the state until `done` holds (a deadline only against a hang: no timing is checked).
async fn wait_state(app: &Router, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    loop {
        let s = get(app, &format!("/api/state?session={id}")).await.json();
        if done(&s) {
            return s;
        }
        assert!(std::time::Instant::now() < deadline, "gave up waiting: {s}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn live_sims(s: &Value) -> u64 {
    s["live"]["simulations"].as_u64().unwrap()
}

#[tokio::test]
async fn continuous_analysis_grows_reports_and_stops_on_request() {
    let app = router(slow_engines());
    let (id, _) = connect4_four_plies(&app).await;
    let r = post(&app, "/api/analysis/stop", json!({"session": id})).await;
    assert_eq!(
        r.status,
        StatusCode::OK,
        "stop without an analysis is harmless"
    );
    assert_eq!(r.json()["live"], Value::Null);
    let s = ok(
        &app,
        "/api/analysis/start",
        json!({"session": id, "ply": 2}),
    )
    .await;
    assert_eq!(s["live"]["running"], true);
    assert_eq!(s["live"]["ply"], 2);
    assert_eq!(s["ply"], 2);
    let first = wait_state(&app, &id, |s| live_sims(s) > 0).await;
    let grown = wait_state(&app, &id, |s| live_sims(s) > live_sims(&first)).await;
    assert_eq!(grown["values"].as_array().unwrap().len(), 5);
    assert!(!grown["values"][2].is_null());
    let at2 = get(&app, &format!("/api/state?session={id}&ply=2"))
        .await
        .json();
    assert_eq!(at2["analysis"]["ply"], 2);
    assert!(at2["analysis"]["simulations"].as_u64().unwrap() >= live_sims(&first));
    // One analysis per session: a second one, and a one-position analysis, wait (409).
    for (path, body) in [
        ("/api/analysis/start", json!({"session": id})),
        ("/api/analysis", json!({"session": id})),
    ] {
        let r = post(&app, path, body).await;
        assert_eq!(r.status, StatusCode::CONFLICT, "{path}: {}", r.text);
        assert!(r.json()["error"]
            .as_str()
            .unwrap()
            .contains("already running"));
    }
    let s = ok(&app, "/api/analysis/stop", json!({"session": id})).await;
    assert_eq!(s["live"]["running"], false);
    assert_eq!(s["live"]["stopped"], "stopped");
    assert_eq!(s["ply"], 2);
    let stopped_at = live_sims(&s);
    // Nothing changes after the stop (a step in flight is discarded).
    for _ in 0..3 {
        let again = get(&app, &format!("/api/state?session={id}")).await.json();
        assert_eq!(live_sims(&again), stopped_at);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // A new one may start at once.
    let s = ok(&app, "/api/analysis/start", json!({"session": id})).await;
    assert_eq!(s["live"]["ply"], 4);
    assert_eq!(s["live"]["simulations"], 0);
    ok(&app, "/api/analysis/stop", json!({"session": id})).await;
}

#[tokio::test]
async fn continuous_analysis_stops_at_its_simulation_limit() {
    let app = app();
    let (id, _) = connect4_four_plies(&app).await;
    ok(
        &app,
        "/api/analysis/start",
        json!({"session": id, "max_simulations": 300, "max_seconds": 60}),
    )
    .await;
    let s = wait_state(&app, &id, |s| s["live"]["running"] == false).await;
    assert_eq!(s["live"]["stopped"], "simulation limit");
    assert_eq!(s["live"]["simulations"], 300);
    assert_eq!(s["live"]["max_simulations"], 300);
    assert_eq!(s["live"]["max_seconds"], 60);
    assert_eq!(s["analysis"]["simulations"], 300);
    assert_eq!(s["analysis"]["ply"], 4);
}

#[tokio::test]
async fn a_move_stops_the_continuous_analysis() {
    let app = router(slow_engines());
    let (id, _) = connect4_four_plies(&app).await;
    ok(&app, "/api/analysis/start", json!({"session": id})).await;
    let s = ok(&app, "/api/move", json!({"session": id, "move": "4"})).await;
    assert_eq!(s["live"]["running"], false);
    assert_eq!(s["live"]["stopped"], "the game changed");
    let s = ok(&app, "/api/analysis/start", json!({"session": id})).await;
    assert_eq!(s["live"]["running"], true);
    // The engine's move stops it too.
    let s = ok(&app, "/api/engine", json!({"session": id})).await;
    assert_eq!(s["live"]["stopped"], "the game changed");
    assert_eq!(s["moves"].as_array().unwrap().len(), 6);
    ok(&app, "/api/analysis/start", json!({"session": id})).await;
    let s = ok(&app, "/api/undo", json!({"session": id})).await;
    assert_eq!(s["live"]["stopped"], "the game changed");
    // An analysis of a position that a move at an earlier ply dropped: stop still answers.
    ok(&app, "/api/analysis/start", json!({"session": id})).await;
    let s = ok(
        &app,
        "/api/move",
        json!({"session": id, "move": "2", "ply": 0}),
    )
    .await;
    assert_eq!(s["live"]["stopped"], "the game changed");
    let s = ok(&app, "/api/analysis/stop", json!({"session": id})).await;
    assert_eq!(s["ply"], 1);
    assert_eq!(s["live"]["stopped"], "the game changed");
}

#[tokio::test]
async fn continuous_analysis_bad_input_is_refused_and_changes_nothing() {
    let app = router_with(
        Engines::uniform(),
        ServerLimits {
            analysis_max_simulations: 1000,
            analysis_max_time: Duration::from_secs(30),
            ..ServerLimits::default()
        },
    );
    let (id, _) = connect4_four_plies(&app).await;
    let before = get(&app, &format!("/api/state?session={id}")).await.json();
    let cases = [
        (json!({"session": "nope"}), StatusCode::NOT_FOUND, "nope"),
        (
            json!({"session": id, "ply": 5}),
            StatusCode::BAD_REQUEST,
            "ply 5",
        ),
        (
            json!({"session": id, "max_simulations": 0}),
            StatusCode::BAD_REQUEST,
            "max_simulations",
        ),
        (
            json!({"session": id, "max_simulations": 1001}),
            StatusCode::BAD_REQUEST,
            "1000",
        ),
        (
            json!({"session": id, "max_seconds": 0}),
            StatusCode::BAD_REQUEST,
            "max_seconds",
        ),
        (
            json!({"session": id, "max_seconds": 31}),
            StatusCode::BAD_REQUEST,
            "30",
        ),
        (
            json!({"session": id, "depth": 3}),
            StatusCode::BAD_REQUEST,
            "depth",
        ),
        (json!({"ply": 0}), StatusCode::BAD_REQUEST, "session"),
    ];
    for (body, status, want) in cases {
        let r = post(&app, "/api/analysis/start", body.clone()).await;
        assert_eq!(r.status, status, "{body}: {}", r.text);
        let err = r.json()["error"].as_str().unwrap().to_string();
        assert!(err.contains(want), "{body}: {err}");
    }
    assert_eq!(
        get(&app, &format!("/api/state?session={id}")).await.json(),
        before
    );
    let r = post(&app, "/api/analysis/stop", json!({"session": "nope"})).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let r = get(&app, "/api/analysis/start").await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    // A finished game has nothing to analyse at its end.
    let s = ok(
        &app,
        "/api/new",
        json!({"game": "connect4", "human_side": "first", "simulations": 1,
               "moves": ["4", "3", "4", "3", "4", "3", "4"]}),
    )
    .await;
    assert!(!s["outcome"].is_null());
    let r = post(&app, "/api/analysis/start", json!({"session": sid(&s)})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.json()["error"].as_str().unwrap().contains("over"));
    // …but an earlier position of it has.
    let s2 = ok(
        &app,
        "/api/analysis/start",
        json!({"session": sid(&s), "ply": 6, "max_simulations": 50}),
    )
    .await;
    assert_eq!(s2["live"]["ply"], 6);
}

#[tokio::test]
async fn server_wide_cap_on_continuous_analyses_is_503() {
    let app = router_with(
        slow_engines(),
        ServerLimits {
            max_live_analyses: 1,
            ..ServerLimits::default()
        },
    );
    let (a, _) = connect4_four_plies(&app).await;
    let (b, _) = connect4_four_plies(&app).await;
    ok(&app, "/api/analysis/start", json!({"session": a})).await;
    let r = post(&app, "/api/analysis/start", json!({"session": b})).await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.text);
    assert!(r.json()["error"].as_str().unwrap().contains("maximum of 1"));
    let s = get(&app, &format!("/api/state?session={b}")).await.json();
    assert_eq!(s["live"], Value::Null);
    // Once the first stops, its slot is free again.
    ok(&app, "/api/analysis/stop", json!({"session": a})).await;
    let s = ok(&app, "/api/analysis/start", json!({"session": b})).await;
    assert_eq!(s["live"]["running"], true);
    ok(&app, "/api/analysis/stop", json!({"session": b})).await;
}

#[tokio::test]
async fn new_game_from_moves_or_a_fen_and_bad_ones_are_400() {
    let app = app();
    let s = ok(
        &app,
        "/api/new",
        json!({"game": "gomoku", "size": 9, "human_side": "second", "simulations": 1,
               "moves": ["e5", "3,3", "f6"]}),
    )
    .await;
    assert_eq!(moves_of(&s), ["e5", "d4", "f6"]);
    assert_eq!(s["human_to_move"], true);
    assert_eq!(s["values"].as_array().unwrap().len(), 4);
    for (body, want) in [
        (
            json!({"game": "gomoku", "size": 9, "human_side": "first", "simulations": 1,
                "moves": ["e5", "e5"]}),
            "moves[1]",
        ),
        (
            json!({"game": "connect4", "human_side": "first", "simulations": 1,
                "moves": ["4", "9"]}),
            "moves[1]",
        ),
        (
            json!({"game": "connect4", "human_side": "first", "simulations": 1,
                "moves": ["4", "3", "4", "3", "4", "3", "4", "5"]}),
            "moves[7]",
        ),
        (
            json!({"game": "connect4", "human_side": "first", "simulations": 1,
                "moves": "4"}),
            "moves",
        ),
        (
            json!({"game": "gomoku", "human_side": "first", "simulations": 1,
                "fen": "4k4/9/9/9/9/9/9/9/9/4K4 w"}),
            "xiangqi only",
        ),
        (
            json!({"game": "xiangqi", "human_side": "first", "simulations": 1,
                "fen": "4k4/9/9 w"}),
            "fen",
        ),
    ] {
        let r = post(&app, "/api/new", body.clone()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body}: {}", r.text);
        let err = r.json()["error"].as_str().unwrap().to_string();
        assert!(err.contains(want), "{body}: {err}");
    }
    let s = ok(
        &app,
        "/api/new",
        json!({"game": "xiangqi", "human_side": "second", "simulations": 1,
               "fen": "4k4/R8/9/9/9/9/9/9/9/1R1K5 b - - 0 1", "moves": ["e9f9"]}),
    )
    .await;
    assert_eq!(s["board"][0][5], "k");
    assert_eq!(s["human_to_move"], false);
}

#[tokio::test]
async fn renju_forbidden_points_are_listed_and_playing_one_loses_with_its_kind() {
    let app = app();
    // Black f8 g8 (row) and h6 h7 (column): h8 makes two open threes.
    let s = ok(
        &app,
        "/api/new",
        json!({"game": "gomoku", "size": 15, "rule": "renju", "human_side": "first",
               "simulations": 1, "moves": ["f8", "a1", "g8", "a3", "h6", "a5", "h7", "a7"]}),
    )
    .await;
    let id = sid(&s);
    let forbidden = s["forbidden"].as_array().unwrap();
    let h8 = forbidden
        .iter()
        .find(|f| f["move"] == "h8")
        .unwrap_or_else(|| panic!("h8 not forbidden: {forbidden:?}"));
    assert_eq!(h8["kind"], "double-three");
    assert_eq!(h8["cell"], json!([7, 7]));
    // Not listed while white is to move (an earlier ply), nor under freestyle.
    let at1 = get(&app, &format!("/api/state?session={id}&ply=1"))
        .await
        .json();
    assert!(at1["forbidden"].as_array().unwrap().is_empty());
    let s = ok(&app, "/api/move", json!({"session": id, "move": "h8"})).await;
    let o = &s["outcome"];
    assert_eq!(o["result"], "0-1");
    let reason = o["reason"].as_str().unwrap();
    assert!(
        reason.contains("h8") && reason.contains("double-three"),
        "{reason}"
    );
    assert_eq!(o["cells"], json!([[7, 7]]));
    assert!(
        s["forbidden"].as_array().unwrap().is_empty(),
        "the game is over"
    );
}

#[tokio::test]
async fn the_winning_row_is_the_outcomes_cells() {
    let app = app();
    // Gomoku 9x9 freestyle: black a1..d1, e1 completes five.
    let s = ok(
        &app,
        "/api/new",
        json!({"game": "gomoku", "size": 9, "human_side": "first", "simulations": 1,
               "moves": ["a1", "i9", "b1", "i8", "c1", "i7", "d1", "h9"]}),
    )
    .await;
    assert!(
        s["forbidden"].as_array().unwrap().is_empty(),
        "freestyle has no fouls"
    );
    let s = ok(&app, "/api/move", json!({"session": sid(&s), "move": "e1"})).await;
    assert_eq!(s["outcome"]["reason"], "five in a row with e1");
    assert_eq!(
        s["outcome"]["cells"],
        json!([[8, 0], [8, 1], [8, 2], [8, 3], [8, 4]])
    );
    // Connect Four: a column of four.
    let s = ok(
        &app,
        "/api/new",
        json!({"game": "connect4", "human_side": "first", "simulations": 1,
               "moves": ["4", "3", "4", "3", "4", "3"]}),
    )
    .await;
    let s = ok(&app, "/api/move", json!({"session": sid(&s), "move": "4"})).await;
    assert_eq!(s["outcome"]["result"], "1-0");
    assert_eq!(
        s["outcome"]["cells"],
        json!([[2, 3], [3, 3], [4, 3], [5, 3]])
    );
    // Xiangqi: the mating move (origin, destination) and the mated general.
    let s = ok(
        &app,
        "/api/new",
        json!({"game": "xiangqi", "human_side": "first", "simulations": 1,
               "fen": "4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1"}),
    )
    .await;
    let s = ok(
        &app,
        "/api/move",
        json!({"session": sid(&s), "move": "b0b9"}),
    )
    .await;
    assert_eq!(s["outcome"]["reason"], "checkmate");
    assert_eq!(s["outcome"]["cells"], json!([[9, 1], [0, 1], [0, 4]]));
    // Viewed at an earlier ply, the game is not over.
    let at0 = get(&app, &format!("/api/state?session={}&ply=0", sid(&s)))
        .await
        .json();
    assert_eq!(at0["outcome"], Value::Null);
    assert_eq!(at0["human_to_move"], true);
}
