//! `alphazero serve`: start-up errors (the server loop itself is tested in `alphazero-web`).
mod common;
use common::{alphazero, assert_clean_error};

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
