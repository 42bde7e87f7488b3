//! Serves the page with the uniform evaluator (no network), for trying the page and for the
//! browser test: `cargo run --release -p alphazero-web --example serve_uniform -- 127.0.0.1:8080`.

use std::net::SocketAddr;

use alphazero_web::{serve, Engines};

#[tokio::main]
async fn main() {
    let arg = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8080".to_string());
    let addr: SocketAddr = match arg.parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("serve_uniform: bad address {arg:?}: {e} (expected e.g. 127.0.0.1:8080)");
            std::process::exit(2);
        }
    };
    println!("serving on http://{addr}/");
    if let Err(e) = serve(addr, Engines::uniform()).await {
        eprintln!("serve_uniform: {e}");
        std::process::exit(1);
    }
}
