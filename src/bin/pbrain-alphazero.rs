//! `pbrain-alphazero`: the Gomocup brain as its own executable (Piskvork and the Gomocup
//! tournament manager want a `pbrain-*` program speaking the protocol on stdin/stdout).
//!
//! Same brain and the same arguments as `alphazero gomocup` ([`engine::BrainOptions`]; shared
//! start-up code in the `alphazero_engine` crate). A brain that cannot start — a bad
//! argument, a network that cannot be found or loaded — says why on stderr and answers the
//! manager `ERROR <reason>`, which the manager shows.
use alphazero_engine as engine;
use alphazero_train::local::network_or_champion;
use alphazero_train::storage::error_chain;
use clap::Parser;

/// The Gomocup brain (Piskvork protocol on stdin/stdout).
#[derive(Parser, Debug)]
#[command(name = "pbrain-alphazero")]
struct Args {
    #[command(flatten)]
    brain: engine::BrainOptions,
}

fn main() {
    let args = match Args::try_parse() {
        Ok(args) => args,
        Err(e) if !e.use_stderr() => e.exit(), // --help
        Err(e) => {
            let reason = e.to_string();
            eprint!("{reason}");
            let first = reason.lines().next().unwrap_or("bad arguments");
            engine::refuse_gomocup_brain(first.trim_start_matches("error: "));
            std::process::exit(e.exit_code());
        }
    };
    let model_of =
        |p: &std::path::Path| network_or_champion(p).map_err(|e| anyhow::anyhow!(error_chain(&e)));
    if let Err(e) = engine::run_gomocup_brain(&args.brain, &model_of) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
