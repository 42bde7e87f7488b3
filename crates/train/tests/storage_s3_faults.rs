//! Faults of a real S3 server (`s3s-fs`, see `s3_server/mod.rs`) under [`ObjectStorage`]:
//! the server killed for 10 s while writers upload, and URLs that cannot be used.

mod s3_server;

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use alphazero_train::storage::{ObjectStorage, Storage, StorageError};
use s3_server::S3Server;

fn open(
    server: &S3Server,
    url: &str,
    edit: impl Fn(&mut Vec<(&'static str, String)>),
) -> Result<ObjectStorage, StorageError> {
    let mut options = server.options();
    edit(&mut options);
    let options: Vec<(&str, &str)> = options.iter().map(|(k, v)| (*k, v.as_str())).collect();
    ObjectStorage::open_with(url, &options)
}

/// The bytes writer `w` uploads as its object number `i`: 200 kB that say who wrote them.
fn object_bytes(w: usize, i: usize) -> Vec<u8> {
    let mut bytes = format!("writer {w} object {i}\n").into_bytes();
    bytes.resize(200_000, (w * 31 + i) as u8);
    bytes
}

/// The log lines, shared with a global `tracing` subscriber.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl Write for Log {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn writers_wait_through_a_10_s_outage_log_it_once_and_leave_no_partial_object() {
    let log = Log::default();
    let writer = log.clone();
    tracing::subscriber::set_global_default(
        tracing_subscriber::fmt()
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish(),
    )
    .unwrap();

    let mut server = S3Server::start();
    let url = server.url("runs/outage");
    let storage = open(&server, &url, |_| {})
        .unwrap()
        .with_patience(Duration::from_secs(120));
    let written = AtomicUsize::new(0);
    let restarted = AtomicBool::new(false);
    let counts: Vec<usize> = std::thread::scope(|scope| {
        let writers: Vec<_> = (0..3)
            .map(|w| {
                let (storage, written, restarted) = (&storage, &written, &restarted);
                scope.spawn(move || {
                    // Upload until 3 objects have gone up after the server came back.
                    let (mut i, mut after) = (0, 0);
                    while after < 3 {
                        let was_restarted = restarted.load(Ordering::SeqCst);
                        storage
                            .put(&format!("records/w{w}-{i:04}.azr"), &object_bytes(w, i))
                            .unwrap();
                        written.fetch_add(1, Ordering::SeqCst);
                        i += 1;
                        after += usize::from(was_restarted);
                    }
                    i
                })
            })
            .collect();
        while written.load(Ordering::SeqCst) < 6 {
            std::thread::sleep(Duration::from_millis(20));
        }
        server.stop();
        std::thread::sleep(Duration::from_secs(10));
        server.restart();
        restarted.store(true, Ordering::SeqCst);
        writers.into_iter().map(|h| h.join().unwrap()).collect()
    });

    // Every upload is there, whole; nothing else is listed.
    let mut expected = Vec::new();
    for (w, &n) in counts.iter().enumerate() {
        for i in 0..n {
            let key = format!("records/w{w}-{i:04}.azr");
            assert_eq!(storage.get(&key).unwrap(), object_bytes(w, i), "{key}");
            expected.push(key);
        }
    }
    expected.sort();
    assert_eq!(storage.list("records/").unwrap(), expected);

    let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
    let down: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("is unreachable"))
        .collect();
    assert_eq!(down.len(), 1, "log:\n{text}");
    assert!(
        down[0].contains("WARN") && down[0].contains(&url),
        "{}",
        down[0]
    );
    let up = text
        .lines()
        .filter(|l| l.contains("is reachable again"))
        .count();
    assert_eq!(up, 1, "log:\n{text}");
}

#[test]
fn unreachable_server_missing_bucket_and_wrong_credentials_fail_at_open_naming_the_url() {
    let server = S3Server::start();
    let nobody = format!("http://127.0.0.1:{}", S3Server::free_port());
    // (what, URL, the option that differs from the server's, what the error says)
    let cases = [
        (
            "unreachable",
            server.url("runs/x"),
            Some(("aws_endpoint", nobody)),
            "does not answer",
        ),
        (
            "missing bucket",
            "s3://no-such-bucket/runs/x".to_string(),
            None,
            "bucket does not exist",
        ),
        (
            "wrong credentials",
            server.url("runs/x"),
            Some(("aws_secret_access_key", "wrong-secret".to_string())),
            "credentials are refused",
        ),
    ];
    for (what, url, option, says) in cases {
        match open(&server, &url, |o| o.extend(option.clone())) {
            Err(e @ StorageError::Unusable { .. }) => {
                let msg = e.to_string();
                assert!(msg.contains(&url), "{what}: {msg}");
                assert!(msg.contains(says), "{what}: {msg}");
            }
            other => panic!("{what}: expected Unusable, got {other:?}"),
        }
    }
}
