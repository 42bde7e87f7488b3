//! A real S3-compatible server for tests: the `s3s-fs` binary (`cargo install s3s-fs@0.14.1
//! --features binary`; `.ci/run` installs it) on a free loopback port, serving a temporary
//! folder with static credentials. One bucket, [`S3Server::BUCKET`], exists from the start.
#![allow(dead_code)] // Each test file uses its own part of the harness.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running (or stopped) `s3s-fs` server over a temporary folder.
pub struct S3Server {
    child: Option<Child>,
    port: u16,
    root: tempfile::TempDir,
}

impl S3Server {
    /// The bucket created before the server starts.
    pub const BUCKET: &'static str = "alphazero-test";
    /// The server's access key.
    pub const ACCESS_KEY: &'static str = "alphazero-test-key";
    /// The server's secret key.
    pub const SECRET_KEY: &'static str = "alphazero-test-secret";

    /// Starts `s3s-fs` on a free loopback port and waits until it accepts connections.
    ///
    /// # Panics
    /// When `s3s-fs` is not installed (the message says how to install it) or does not start.
    pub fn start() -> Self {
        let root = tempfile::tempdir().expect("temporary folder for s3s-fs");
        std::fs::create_dir(root.path().join(Self::BUCKET)).expect("bucket folder");
        let port = free_port();
        let mut server = S3Server {
            child: None,
            port,
            root,
        };
        server.restart();
        server
    }

    /// Kills the server (`SIGKILL`: requests under way are cut off) and waits for it to end.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same port and folder and waits until it answers.
    ///
    /// # Panics
    /// As [`S3Server::start`].
    pub fn restart(&mut self) {
        self.stop();
        let child = Command::new(s3s_fs_binary())
            .args(["--host", "127.0.0.1", "--port", &self.port.to_string()])
            .args([
                "--access-key",
                Self::ACCESS_KEY,
                "--secret-key",
                Self::SECRET_KEY,
            ])
            .arg(self.root.path())
            .env("RUST_LOG", "error")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start s3s-fs ({e}); install it with \
                     `cargo install s3s-fs@0.14.1 --features binary` (.ci/run does)"
                )
            });
        self.child = Some(child);
        let addr = SocketAddr::from(([127, 0, 0, 1], self.port));
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
            assert!(
                Instant::now() < deadline,
                "s3s-fs did not listen on {addr} within 30 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// `s3://BUCKET/path`.
    pub fn url(&self, path: &str) -> String {
        format!("s3://{}/{path}", Self::BUCKET)
    }

    /// The folder the server stores objects in (bucket `b`, key `k` is the file `root/b/k`).
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// The environment a process needs to reach the server: the usual AWS variables.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ACCESS_KEY_ID", Self::ACCESS_KEY.to_string()),
            ("AWS_SECRET_ACCESS_KEY", Self::SECRET_KEY.to_string()),
            ("AWS_ENDPOINT_URL", self.endpoint()),
            ("AWS_ALLOW_HTTP", "true".to_string()),
            ("AWS_DEFAULT_REGION", "us-east-1".to_string()),
        ]
    }

    /// The same settings as `object_store` options for `ObjectStorage::open_with` (tests in
    /// one process do not change the process's environment).
    pub fn options(&self) -> Vec<(&'static str, String)> {
        vec![
            ("aws_access_key_id", Self::ACCESS_KEY.to_string()),
            ("aws_secret_access_key", Self::SECRET_KEY.to_string()),
            ("aws_endpoint", self.endpoint()),
            ("aws_allow_http", "true".to_string()),
            ("aws_region", "us-east-1".to_string()),
        ]
    }

    /// A free loopback port (nothing listens there once this returns).
    pub fn free_port() -> u16 {
        free_port()
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        self.stop();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// `s3s-fs` from `PATH`, else from `~/.cargo/bin`.
fn s3s_fs_binary() -> PathBuf {
    let name = "s3s-fs";
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    });
    on_path
        .or_else(|| {
            let home = std::env::var_os("CARGO_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
            Some(home.join("bin").join(name)).filter(|p| p.is_file())
        })
        .unwrap_or_else(|| PathBuf::from(name))
}
