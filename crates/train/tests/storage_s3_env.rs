//! `--storage s3://…` with the settings in the usual AWS environment variables
//! (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP`,
//! `AWS_DEFAULT_REGION`), against a real S3 server (`s3s-fs`, see `s3_server/mod.rs`).
//! Alone in its test binary: it sets the process's environment.

mod s3_server;

use alphazero_train::storage::Location;
use s3_server::S3Server;

#[test]
fn an_s3_location_opens_with_credentials_and_endpoint_from_the_environment() {
    let server = S3Server::start();
    for (k, v) in server.env() {
        std::env::set_var(k, v);
    }
    let url = server.url("runs/env");
    let location: Location = url.parse().unwrap();
    assert_eq!(location, Location::ObjectStore(url.clone()));
    let storage = location.open().unwrap();
    storage.put("records/000001.azr", b"games").unwrap();
    assert_eq!(storage.get("records/000001.azr").unwrap(), b"games");
    // The object is in the bucket below the URL's path.
    let file = server
        .root()
        .join(S3Server::BUCKET)
        .join("runs/env/records/000001.azr");
    assert_eq!(std::fs::read(file).unwrap(), b"games");

    std::env::set_var("AWS_SECRET_ACCESS_KEY", "wrong");
    let e = location.open().map(|_| ()).unwrap_err();
    assert!(e.to_string().contains(&url), "{e}");
}
