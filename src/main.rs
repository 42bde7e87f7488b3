//! `alphazero`: learn board games from zero by AlphaZero self-play, then play and measure them.
//!
//! Subcommands are added here as the crates behind them land.
use clap::{Parser, Subcommand};

mod cmd;
mod games;
mod stdout;

use alphazero_engine as engine;
use alphazero_engine::present;

/// AlphaZero self-play learning for Gomoku, Xiangqi and Connect Four.
#[derive(Parser, Debug)]
#[command(name = "alphazero", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Counts the leaf nodes of the legal-move tree (move-generator check; prints the total
    /// alone on the last line).
    Perft(cmd::perft::PerftArgs),
    /// Learns a game from zero by self-play: self-play → replay buffer → training → gating,
    /// resumable (run it again on the same --run directory to continue).
    Train(cmd::train::TrainArgs),
    /// Self-play for a run on shared storage (a bucket): plays batches with the run's latest
    /// committed champion and publishes them for the learner; any number may run, anywhere.
    Actor(cmd::roles::ActorArgs),
    /// Trains a run on shared storage (a bucket) from the actors' batches: ingest → training →
    /// gating → champions for the actors; resumable (run it again to continue).
    Learner(cmd::roles::LearnerArgs),
    /// Serves the web page to play the games in a browser, with the search's heatmap.
    Serve(cmd::serve::ServeArgs),
    /// Plays a game in the terminal against the engine: type moves in the game's notation,
    /// `undo`, `hint`, `quit`.
    Play(cmd::play::PlayArgs),
    /// Searches one position: a table of the top moves on stdout and the visit heatmap as a PNG.
    Analyze(cmd::analyze::AnalyzeArgs),
    /// Matches between players (baselines, networks, external engines): cross table,
    /// Bradley–Terry ratings, SPRT; or a rating ladder over a run's networks.
    Arena(Box<cmd::arena::ArenaArgs>),
    /// Learning-quality reports: Connect Four against the solver, value calibration of a run.
    Eval(cmd::eval::EvalArgs),
    /// Inspects self-play game records (`.azr`) and exports games as PGN, SGF or PSQ.
    Records(cmd::records::RecordsArgs),
    /// Exports a network for other programs: an ONNX model (`--out F.onnx`), or plain
    /// safetensors plus a JSON description (shapes, input planes, policy layout, value
    /// perspective).
    Export(cmd::export::ExportArgs),
    /// Distils a Gomoku network into a fast line-pattern evaluator (`.azm`): `data` (the
    /// teacher's labelled positions), `train`, `gates` (agreement and speed against the teacher).
    Distill(cmd::distill::DistillArgs),
    /// Gomocup brain on stdin/stdout (Piskvork protocol).
    Gomocup(engine::BrainOptions),
    /// UCCI / UCI Xiangqi engine on stdin/stdout.
    Ucci(engine::BrainOptions),
    /// Throughput benchmarks, one `bench <name> <figure> <unit>` line per figure.
    Bench(cmd::bench::BenchArgs),
}

/// Lets a closed stdout (`alphazero records show F | head`) end the process the usual Unix
/// way, by `SIGPIPE`, instead of `println!` panicking on the `EPIPE` error (Rust ignores
/// `SIGPIPE` by default). Only for commands that start no child process and serve no socket:
/// there a peer that goes away must be an error, not the end of the program.
fn default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called at the start of `main`, before any other thread exists; restoring a
    // signal's default disposition has no other effect on the program's state.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() {
    let cli = Cli::parse();
    match cli.command {
        // Child processes (external engines), sockets and protocol pipes: keep SIGPIPE ignored.
        Command::Arena(_) | Command::Serve(_) | Command::Gomocup(_) | Command::Ucci(_) => {}
        _ => default_sigpipe(),
    }
    // The storage's log lines (an object store unreachable, then reachable again).
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .init();
    let result: anyhow::Result<()> = match cli.command {
        Command::Perft(a) => cmd::perft::run(&a),
        Command::Serve(a) => cmd::serve::run(&a),
        Command::Train(a) => cmd::train::run(&a),
        Command::Actor(a) => cmd::roles::run_actor(&a),
        Command::Learner(a) => cmd::roles::run_learner(&a),
        Command::Play(a) => cmd::play::run(&a),
        Command::Analyze(a) => cmd::analyze::run(&a),
        Command::Arena(a) => cmd::arena::run(&a),
        Command::Eval(a) => cmd::eval::run(&a),
        Command::Records(a) => cmd::records::run(&a),
        Command::Export(a) => cmd::export::run(&a),
        Command::Distill(a) => cmd::distill::run(&a),
        Command::Gomocup(a) => cmd::protocols::run_gomocup(&a),
        Command::Ucci(a) => cmd::protocols::run_ucci(&a),
        Command::Bench(a) => cmd::bench::run(&a),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    /// What each path makes of one value of a knob: `true` taken, `false` refused.
    type Path<'a> = (&'a str, Box<dyn Fn(&str) -> bool + 'a>);

    /// Values a knob takes, and values it refuses.
    type Edges = (Vec<String>, Vec<String>);

    /// Values just inside and just outside an integer knob's range.
    fn int_edges(k: alphazero_mcts::knobs::IntKnob) -> Edges {
        let mut out = vec![(u64::from(k.max) + 1).to_string()];
        if k.min > 0 {
            out.push((k.min - 1).to_string());
        }
        (vec![k.min.to_string(), k.max.to_string()], out)
    }

    /// Values just inside and just outside a real knob's range, and what is never a value.
    fn real_edges(k: alphazero_mcts::knobs::RealKnob) -> Edges {
        let mut taken = vec![];
        let mut out = vec!["nan".to_string(), "inf".to_string()];
        if k.min_included {
            taken.push(k.min.to_string());
            out.push((k.min - 0.01).to_string());
        } else {
            taken.push((k.min + 0.01).to_string());
            out.push(k.min.to_string());
        }
        if k.max.is_finite() {
            taken.push(k.max.to_string());
            out.push((k.max + 0.5).to_string());
        }
        (taken, out)
    }

    /// Each search knob's range through every path that takes it — the training config's
    /// keys (with its validation), the command-line flags, a `net:` arena player's options and
    /// the UCI/UCCI engine's options — is the knob's own: its edges are taken and the values
    /// just past them refused by every path alike.
    #[test]
    fn each_search_knob_has_one_range_through_every_path() {
        use alphazero_mcts::knobs;
        use alphazero_train::config::TrainConfig;
        let base = &TrainConfig::default_for("gomoku").unwrap();
        let toml = |key: &'static str| -> Box<dyn Fn(&str) -> bool + '_> {
            Box::new(move |v: &str| base.with_overrides(&[format!("{key}={v}")]).is_ok())
        };
        let cli =
            |command: &'static [&'static str], flag: &'static str| -> Box<dyn Fn(&str) -> bool> {
                Box::new(move |v: &str| {
                    let argv = ["alphazero"]
                        .iter()
                        .chain(command)
                        .copied()
                        .chain([flag, v]);
                    super::Cli::try_parse_from(argv).is_ok()
                })
            };
        let net = |key: &'static str| -> Box<dyn Fn(&str) -> bool> {
            Box::new(move |v: &str| {
                crate::cmd::arena::NetSearch::default()
                    .with_options("net:f", &[(key.to_string(), v.to_string())])
                    .is_ok()
            })
        };
        let uci = |name: &'static str| -> Box<dyn Fn(&str) -> bool> {
            Box::new(move |v: &str| {
                let input = format!("uci\nsetoption name {name} value {v}\nquit\n");
                let mut out = Vec::new();
                alphazero_protocols::run_ucci(
                    std::io::Cursor::new(input.into_bytes()),
                    &mut out,
                    std::sync::Arc::new(alphazero_mcts::UniformEvaluator),
                    alphazero_protocols::EngineConfig::default(),
                )
                .unwrap();
                !String::from_utf8(out)
                    .unwrap()
                    .contains("info string error")
            })
        };
        const ARENA: &[&str] = &["arena", "--game", "gomoku", "--players", "random", "random"];
        let table: Vec<(&str, Edges, Vec<Path>)> = vec![
            (
                knobs::LEAVES_PER_BATCH.name,
                int_edges(knobs::LEAVES_PER_BATCH),
                vec![
                    ("toml", toml("selfplay.search.leaves_per_batch")),
                    ("gating toml", toml("gating.search.leaves_per_batch")),
                    ("arena --leaves-per-batch", cli(ARENA, "--leaves-per-batch")),
                    ("net:", net("leaves_per_batch")),
                ],
            ),
            (
                knobs::POLICY_TEMPERATURE.name,
                real_edges(knobs::POLICY_TEMPERATURE),
                vec![
                    ("toml", toml("selfplay.search.policy_temperature")),
                    ("net:", net("policy_temperature")),
                    ("uci", uci("PolicyTemperature")),
                ],
            ),
            (
                knobs::C_PUCT.name,
                real_edges(knobs::C_PUCT),
                vec![
                    ("toml", toml("selfplay.search.c_puct")),
                    ("arena --c-puct", cli(ARENA, "--c-puct")),
                    ("net:", net("c_puct")),
                ],
            ),
            (
                knobs::FPU_REDUCTION.name,
                real_edges(knobs::FPU_REDUCTION),
                vec![
                    ("toml", toml("selfplay.search.fpu_reduction")),
                    ("net:", net("fpu_reduction")),
                ],
            ),
            (
                knobs::GUMBEL_SAMPLED_ACTIONS.name,
                int_edges(knobs::GUMBEL_SAMPLED_ACTIONS),
                vec![("arena --gumbel", cli(ARENA, "--gumbel"))],
            ),
            (
                knobs::SIMULATIONS.name,
                int_edges(knobs::SIMULATIONS),
                vec![
                    ("gomocup --fixed-sims", cli(&["gomocup"], "--fixed-sims")),
                    ("ucci --fixed-sims", cli(&["ucci"], "--fixed-sims")),
                    ("arena --sims", cli(ARENA, "--sims")),
                    ("play --sims", cli(&["play", "--game", "gomoku"], "--sims")),
                    (
                        "analyze --sims",
                        cli(&["analyze", "--game", "gomoku"], "--sims"),
                    ),
                    (
                        "serve --analysis-simulations",
                        cli(&["serve"], "--analysis-simulations"),
                    ),
                    ("uci", uci("Simulations")),
                ],
            ),
        ];
        for (knob, (taken, refused), paths) in &table {
            for (path, takes) in paths {
                for v in taken {
                    assert!(takes(v), "{knob} = {v} refused by {path}");
                }
                for v in refused {
                    assert!(!takes(v), "{knob} = {v} taken by {path}");
                }
            }
        }
    }

    #[test]
    fn the_compose_files_commands_are_valid_command_lines_of_this_binary() {
        let text = include_str!("../deploy/compose.yaml");
        let mut roles = Vec::new();
        for line in text.lines() {
            let Some(list) = line.trim().strip_prefix("command: ") else {
                continue;
            };
            // The commands are flow sequences of double-quoted strings: JSON arrays.
            let args: Vec<String> = serde_json::from_str(list).expect("a JSON array");
            if args[0] == "server" {
                continue; // MinIO's
            }
            let argv = std::iter::once("alphazero".to_string()).chain(args.iter().cloned());
            if let Err(e) = super::Cli::try_parse_from(argv) {
                panic!("deploy/compose.yaml: {args:?}: {e}");
            }
            roles.push(args[0].clone());
        }
        assert_eq!(roles, ["learner", "actor"]);
    }
}
