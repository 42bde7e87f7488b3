//! `pbrain-alphazero`: the Gomocup brain as its own executable (Piskvork and the Gomocup
//! tournament manager want a `pbrain-*` program speaking the protocol on stdin/stdout).
//!
//! Usage: `pbrain-alphazero [--model FILE|RUN_DIR] [--device NAME] [--fixed-sims N] [--flat-time]
//! [--no-tree-reuse]`.
//! Same brain as `alphazero gomocup` (shared start-up code in the `alphazero_engine` crate).
use alphazero_engine as engine;
use alphazero_train::local::network_or_champion;
use alphazero_train::storage::error_chain;

fn main() {
    let mut opts = engine::BrainOptions {
        device: "default".into(),
        ..Default::default()
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--flat-time" {
            opts.flat_time = true;
            continue;
        }
        if a == "--no-tree-reuse" {
            opts.no_tree_reuse = true;
            continue;
        }
        let value = match a.as_str() {
            "--model" | "--device" | "--fixed-sims" => match args.next() {
                Some(v) => v,
                None => fail(&format!("{a} needs a value")),
            },
            "-h" | "--help" => {
                println!(
                    "usage: pbrain-alphazero [--model FILE|RUN_DIR] [--device NAME] [--fixed-sims N] \
                     [--flat-time] [--no-tree-reuse]"
                );
                return;
            }
            other => fail(&format!("unknown argument {other:?}")),
        };
        match a.as_str() {
            // A training run's folder means its champion, as for `alphazero gomocup`.
            "--model" => match network_or_champion(std::path::Path::new(&value)) {
                Ok(path) => opts.model = Some(path),
                Err(e) => {
                    let reason = format!("--model: {}", error_chain(&e));
                    eprintln!("error: {reason}");
                    engine::refuse_gomocup_brain(&reason);
                    std::process::exit(1);
                }
            },
            "--device" => opts.device = value,
            _ => match value.parse::<u32>() {
                Ok(n) if n > 0 => opts.fixed_simulations = Some(n),
                _ => fail(&format!(
                    "--fixed-sims needs a positive number, got {value:?}"
                )),
            },
        }
    }
    if let Err(e) = engine::run_gomocup_brain(&opts) {
        fail(&format!("{e:#}"));
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(1);
}
