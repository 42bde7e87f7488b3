//! The JSON API driven through `router(Engines::uniform())` with `tower::ServiceExt::oneshot`.

use std::time::Duration;

use alphazero_web::{router, router_with, Engines, Limits};
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
    }
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
    let limits = Limits {
        max_sessions: 2,
        idle_expiry: Duration::from_secs(3600),
        max_concurrent_searches: 1,
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
        Limits {
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
    let sizes: Vec<u8> = (alphazero_gomoku::MIN_SIZE..=alphazero_gomoku::MAX_SIZE).collect();
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
    use alphazero_gomoku::{GomokuConfig, Rule};
    use alphazero_mcts::{Evaluator, UniformEvaluator};
    use std::sync::Arc;
    let mut engines = Engines::uniform();
    engines.gomoku = Arc::new(|cfg: &GomokuConfig| {
        let desc = if cfg.size == 8 && cfg.rule == Rule::Freestyle {
            "network for 8x8".to_string()
        } else {
            format!("uniform on {}x{} {:?}", cfg.size, cfg.size, cfg.rule)
        };
        (
            Arc::new(UniformEvaluator) as Arc<dyn Evaluator<alphazero_gomoku::Gomoku>>,
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
