//! `--device`: every command that runs a network refuses a device this build was compiled
//! without, or one this machine has no adapter for, with one clear error line naming what is
//! missing (the feature to build with, or the adapters there are).
mod common;
use common::{alphazero, assert_clean_error, fresh_dir};

/// The commands with `--device`, each with the arguments it needs to get that far (`train`
/// in a new folder named `run`).
fn commands(run: &str) -> Vec<Vec<String>> {
    let run = fresh_dir(run);
    let run = run.to_str().unwrap();
    [
        vec!["train", "--game", "connect4", "--run", run, "--quiet"],
        vec![
            "play", "--game", "connect4", "--sims", "8", "--human", "none",
        ],
        vec!["analyze", "--game", "connect4", "--sims", "8"],
        vec!["gomocup"],
        vec!["ucci"],
        vec!["bench", "nn", "--quick"],
        vec!["serve", "--addr", "127.0.0.1:0"],
    ]
    .into_iter()
    .map(|c| c.into_iter().map(String::from).collect())
    .collect()
}

fn refused(command: &[String], device: &str) -> String {
    let mut args: Vec<&str> = command.iter().map(String::as_str).collect();
    args.extend(["--device", device]);
    let out = alphazero(&args);
    let what = args.join(" ");
    assert_clean_error(&out, &what);
    assert!(
        out.stderr.contains(&format!("device {device:?}")),
        "{what}: {}",
        out.stderr
    );
    out.stderr
}

#[test]
fn a_device_the_build_or_machine_lacks_is_one_clear_error_line() {
    for (i, device) in ["wgpu:99", "cuda:1", "tpu"].into_iter().enumerate() {
        if device == "cuda:1" && cfg!(feature = "cuda") {
            // A CUDA build takes it (no adapter check there).
            continue;
        }
        for command in commands(&format!("device-run-{i}")) {
            check(&command, device);
        }
    }
}

fn check(command: &[String], device: &str) {
    let err = refused(command, device);
    match device {
        // Without the feature the line names it; with it, no machine has a 100th adapter.
        "wgpu:99" if cfg!(feature = "wgpu") => assert!(err.contains("wgpu adapter"), "{err}"),
        "wgpu:99" => assert!(err.contains("rebuild with `--features wgpu`"), "{err}"),
        "cuda:1" => assert!(err.contains("rebuild with `--features cuda`"), "{err}"),
        _ => assert!(err.contains("unknown device"), "{err}"),
    }
}
