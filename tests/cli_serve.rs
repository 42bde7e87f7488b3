//! `alphazero serve`: start-up errors (the server loop itself is tested in `alphazero-web`).
mod common;
use common::{alphazero, assert_clean_error, fresh_dir, tiny_connect4_run};
use std::io::BufRead;
use std::process::{Child, Command, Stdio};

/// Starts `alphazero serve --addr 127.0.0.1:0 --device cpu ARGS` and reads its stderr up to
/// the address it announces; returns the process, the address and the lines before it.
fn start_serve(args: &[&str]) -> (Child, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_alphazero"))
        .args(["serve", "--addr", "127.0.0.1:0", "--device", "cpu"])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut lines = String::new();
    let mut line = String::new();
    while stderr.read_line(&mut line).unwrap() > 0 {
        if let Some(rest) = line.trim().strip_prefix("serving on http://") {
            let addr = rest.trim_end_matches('/').to_string();
            return (child, addr, lines);
        }
        lines.push_str(&line);
        line.clear();
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("serve did not announce its address: {lines}");
}

#[test]
fn serve_on_a_busy_port_fails_without_claiming_to_serve() {
    // Regression: "serving on http://…" was printed before the bind, which then failed.
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = busy.local_addr().unwrap().to_string();
    let out = alphazero(&["serve", "--addr", &addr]);
    assert_clean_error(&out, "serve on a busy port");
    assert!(!out.stderr.contains("serving on"), "{}", out.stderr);
    let error = out
        .stderr
        .lines()
        .find(|l| l.starts_with("error:"))
        .unwrap();
    assert!(
        error.contains(&format!("cannot listen on {addr}")),
        "{error}"
    );
    // The OS reason appears once, not twice.
    assert_eq!(error.matches("os error").count(), 1, "{error}");
}

/// POSTs `body` to `path` on `addr` over a plain HTTP/1.1 connection; returns the response text.
fn post_raw_http(addr: &str, path: &str, body: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    reply
}

#[test]
fn gomoku_engine_field_names_the_network_only_on_its_board() {
    use std::io::BufRead;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_alphazero"))
        .args(["serve", "--addr", "127.0.0.1:0", "--device", "cpu"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut addr = None;
    let mut line = String::new();
    while stderr.read_line(&mut line).unwrap() > 0 {
        if let Some(rest) = line.trim().strip_prefix("serving on http://") {
            addr = Some(rest.trim_end_matches('/').to_string());
            break;
        }
        line.clear();
    }
    let addr = addr.expect("serve announces its address");
    let new_game = |size: u8, rule: &str| {
        post_raw_http(
            &addr,
            "/api/new",
            &format!(
                r#"{{"game":"gomoku","size":{size},"rule":"{rule}","human_side":"first","simulations":1}}"#
            ),
        )
    };
    let on_8 = new_game(8, "freestyle");
    let on_8_renju = new_game(8, "renju");
    let on_20 = new_game(20, "freestyle");
    let on_12 = new_game(12, "freestyle");
    let on_15 = new_game(15, "freestyle");
    let on_15_renju = new_game(15, "renju");
    let _ = child.kill();
    let _ = child.wait();
    // The shipped 8×8 freestyle network is in the repository's models/ folder.
    assert!(
        on_8.contains("\"engine\":\"shipped network gomoku-8x8-freestyle.azc"),
        "{on_8}"
    );
    // Regression: a renju board took the uniform evaluator here while the Gomocup brain played
    // it with the freestyle network of its size; every front end now takes that network, and
    // its description says what it was trained on.
    assert!(
        on_8_renju.contains("\"engine\":\"shipped network gomoku-8x8-freestyle.azc")
            && on_8_renju.contains("trained on gomoku 8x8 freestyle"),
        "{on_8_renju}"
    );
    assert!(
        on_20.contains("\"engine\":\"shipped network gomoku-20x20-freestyle.azc"),
        "{on_20}"
    );
    // 15×15 ships a fast evaluator for freestyle and one for renju, each distilled from that
    // rule's network: the page plays each on its rule.
    assert!(
        on_15.contains("\"engine\":\"shipped Mixnet evaluator gomoku-15x15-freestyle.azm"),
        "{on_15}"
    );
    assert!(
        on_15_renju.contains("\"engine\":\"shipped Mixnet evaluator gomoku-15x15-renju.azm")
            && on_15_renju.contains("renju rule"),
        "{on_15_renju}"
    );
    // A board without a network of its size takes the size-independent 20×20 network (it
    // was searched without a network before), and says what it was trained on.
    assert!(
        on_12.contains("\"engine\":\"shipped network gomoku-20x20-freestyle.azc")
            && on_12.contains("trained on gomoku 20x20 freestyle"),
        "{on_12}"
    );
}

/// `serve --model` plays the given network (here a training run's folder: its champion) on
/// the board it was trained for, and the page names that file, not a shipped network; the
/// other games keep their shipped networks.
#[test]
fn serve_model_plays_the_given_network_and_the_page_names_its_file() {
    let run = fresh_dir("serve-model-run");
    tiny_connect4_run(&run);
    // One iteration without gating: champion 1, after 2 optimizer steps.
    let champion = run.join("networks/champion-0001.azc");
    assert!(champion.is_file());
    for model in [run.clone(), champion] {
        let (mut child, addr, lines) = start_serve(&["--model", model.to_str().unwrap()]);
        let connect4 = post_raw_http(
            &addr,
            "/api/new",
            r#"{"game":"connect4","human_side":"second","simulations":4}"#,
        );
        let session = connect4
            .split("\"session\":\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .expect("a session id")
            .to_string();
        let moved = post_raw_http(
            &addr,
            "/api/engine",
            &format!(r#"{{"session":"{session}"}}"#),
        );
        let gomoku = post_raw_http(
            &addr,
            "/api/new",
            r#"{"game":"gomoku","size":8,"rule":"freestyle","human_side":"first","simulations":1}"#,
        );
        let _ = child.kill();
        let _ = child.wait();
        // The trained 1×8 network, by file name only; the server's log has its full path.
        assert!(
            connect4.contains(
                "\"engine\":\"network champion-0001.azc (1x8, step 2, trained on connect4)"
            ),
            "{connect4}"
        );
        assert!(!connect4.contains("shipped"), "{connect4}");
        assert!(
            moved.contains("200 OK") && moved.contains("\"moves\":[\""),
            "{moved}"
        );
        assert!(
            lines.contains("connect4: network champion-0001.azc")
                && lines.contains(&run.join("networks/champion-0001.azc").display().to_string()),
            "{lines}"
        );
        assert!(
            gomoku.contains("\"engine\":\"shipped network gomoku-8x8-freestyle.azc"),
            "{gomoku}"
        );
    }
}

#[test]
fn serve_model_refuses_two_networks_for_one_board_and_a_folder_without_champion() {
    let c4 = concat!(env!("CARGO_MANIFEST_DIR"), "/models/connect4.azc");
    let out = alphazero(&["serve", "--model", c4, "--model", c4]);
    assert_clean_error(&out, "two networks for connect4");
    assert!(
        out.stderr.contains("are both networks for connect4"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("serving on"), "{}", out.stderr);
    let empty = fresh_dir("serve-model-empty");
    let out = alphazero(&["serve", "--model", empty.to_str().unwrap()]);
    assert_clean_error(&out, "a folder without a champion");
    assert!(
        out.stderr.contains("holds no champion network"),
        "{}",
        out.stderr
    );
}

#[test]
fn out_of_range_counts_name_a_readable_range_not_the_integer_maximum() {
    // Regression (fresh-user trial): `--analysis-seconds 0` said "0 is not in
    // 1..18446744073709551615"; every open-ended count now has a stated upper bound.
    for (args, range) in [
        (vec!["serve", "--analysis-seconds", "0"], "1..=86400"),
        (vec!["serve", "--analysis-simulations", "0"], "1-10000000"),
        (vec!["gomocup", "--fixed-sims", "0"], "1-10000000"),
    ] {
        let out = alphazero(&args);
        assert_clean_error(&out, &format!("{args:?}"));
        assert!(out.stderr.contains(range), "{args:?}: {}", out.stderr);
        assert!(
            !out.stderr.contains("18446744073709551615"),
            "{}",
            out.stderr
        );
        assert!(!out.stderr.contains("4294967295"), "{}", out.stderr);
    }
}

/// A shipped network that cannot be loaded: serve still starts (the other games keep their
/// networks) but says so on stderr, and the engine description the page shows names the
/// failure instead of claiming that no network exists for the game.
#[test]
fn broken_shipped_network_is_reported_and_named_in_the_engine_description() {
    use std::io::BufRead;
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("connect4.azc"), b"not a checkpoint").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_alphazero"))
        .args(["serve", "--addr", "127.0.0.1:0", "--device", "cpu"])
        .env("ALPHAZERO_MODELS", dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut lines = Vec::new();
    let mut line = String::new();
    while stderr.read_line(&mut line).unwrap() > 0 {
        let done = line.starts_with("serving on http://");
        lines.push(std::mem::take(&mut line));
        if done {
            break;
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let text = lines.concat();
    assert!(
        text.contains("warning: ") && text.contains("connect4.azc: not an alphazero checkpoint"),
        "{text}"
    );
    assert!(
        text.contains("connect4: uniform evaluator (the shipped connect4.azc could not be loaded)"),
        "{text}"
    );
    assert!(text.contains("serving on http://"), "{text}");
}
