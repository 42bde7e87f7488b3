//! The actor/learner exchange (`alphazero_train::storage::exchange`) on a real S3 server
//! (`s3s-fs`, see `s3_server/mod.rs`): two actors publish record batches while a learner
//! consumes them, the learner loses every third iteration before committing it (as when it
//! is killed and restarted), and the server is killed for 10 s in the middle. Every batch
//! must be committed exactly once.

mod s3_server;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use alphazero_train::storage::exchange::{claim_run, Inbox, Outbox};
use alphazero_train::storage::{ObjectStorage, Storage};
use s3_server::S3Server;

const BATCHES_PER_ACTOR: usize = 12;
const COMMITTED_KEY: &str = "state/committed";

/// The learner's commit point in this test: how many iterations are committed.
fn committed(s: &dyn Storage) -> u32 {
    match s.get(COMMITTED_KEY) {
        Ok(b) => String::from_utf8(b).unwrap().parse().unwrap(),
        Err(_) => 0,
    }
}

#[test]
fn every_batch_is_committed_once_through_learner_restarts_and_a_10_s_outage() {
    let mut server = S3Server::start();
    let url = server.url("runs/exchange");
    let options = server.options();
    let options: Vec<(&str, &str)> = options.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let storage = ObjectStorage::open_with(&url, &options)
        .unwrap()
        .with_patience(Duration::from_secs(120));
    let s: &dyn Storage = &storage;
    claim_run(s, &url, "connect4").unwrap();
    let published = AtomicUsize::new(0);
    let actors_done = AtomicBool::new(false);
    let mut lost_iterations = 0;
    std::thread::scope(|scope| {
        let actors: Vec<_> = (0..2)
            .map(|_| {
                let published = &published;
                scope.spawn(move || {
                    let mut outbox = Outbox::new();
                    for n in 0..BATCHES_PER_ACTOR {
                        let line = format!("{} {n}\n", outbox.actor());
                        outbox.publish(s, line.as_bytes(), 0).unwrap();
                        published.fetch_add(1, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(100));
                    }
                })
            })
            .collect();
        let learner = scope.spawn(|| {
            let mut lost = 0;
            loop {
                // A (re)started learner: its inbox as of its last commit.
                let iteration = committed(s);
                let mut inbox = Inbox::load(s, &url, iteration).unwrap();
                let done = actors_done.load(Ordering::SeqCst);
                let keys = inbox.pending(s).unwrap();
                if keys.is_empty() {
                    if done {
                        return lost;
                    }
                    std::thread::sleep(Duration::from_millis(50));
                    continue;
                }
                let mut records = Vec::new();
                for k in &keys {
                    records.extend(s.get(k).unwrap());
                }
                s.put(&format!("records/{iteration:06}.azr"), &records)
                    .unwrap();
                inbox.consume(s, &keys, &[], iteration).unwrap();
                if iteration % 3 == 2 && lost < 3 {
                    // Killed before the commit: the next start must take these batches again.
                    lost += 1;
                    continue;
                }
                s.put(COMMITTED_KEY, (iteration + 1).to_string().as_bytes())
                    .unwrap();
                inbox.tidy(s, iteration + 1).unwrap();
            }
        });
        while published.load(Ordering::SeqCst) < BATCHES_PER_ACTOR / 2 {
            std::thread::sleep(Duration::from_millis(20));
        }
        server.stop();
        std::thread::sleep(Duration::from_secs(10));
        server.restart();
        for a in actors {
            a.join().unwrap();
        }
        actors_done.store(true, Ordering::SeqCst);
        lost_iterations = learner.join().unwrap();
    });
    assert!(lost_iterations > 0, "the learner never lost an iteration");

    // The committed record files hold every batch exactly once.
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for i in 0..committed(s) {
        let text = String::from_utf8(s.get(&format!("records/{i:06}.azr")).unwrap()).unwrap();
        for line in text.lines() {
            *seen.entry(line.to_string()).or_default() += 1;
        }
    }
    assert_eq!(seen.len(), 2 * BATCHES_PER_ACTOR, "{seen:?}");
    assert!(seen.values().all(|&n| n == 1), "{seen:?}");
    // Everything consumed by a committed iteration is tidied away.
    assert!(s.list("incoming/").unwrap().is_empty());
}
