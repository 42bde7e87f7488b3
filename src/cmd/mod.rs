//! One module per subcommand, its flags (`…Args`, the help text) first and then its work: the
//! data flows one way, from `main` through the flags into the work, and no work module imports
//! a command's flags from elsewhere. A command whose work outgrows one file keeps its flags in a
//! child module (`arena/args.rs`). Shared by several commands: [`records`] (the record-file
//! helpers: reading PGN/SGF/PSQ, saving games), [`runs`] (what `train`, `learner` and `actor`
//! show and how they stop), and the helpers below. The engine set-up they build on
//! (evaluators, the play search, how positions are shown) is the `alphazero_engine` crate.
pub mod analyze;
pub mod arena;
pub mod bench;
pub mod distill;
pub mod eval;
pub mod export;
pub mod perft;
pub mod play;
pub mod protocols;
pub mod records;
pub mod roles;
pub mod runs;
pub mod serve;
pub mod train;

/// Output paths checked before the work, for every command.
pub use alphazero_engine::files::check_output_path;

use std::path::{Path, PathBuf};

/// The `--model` values of every command: a network file (`.azc`), or a training run's
/// folder, which means its champion ([`alphazero_train::local::network_or_champion`]).
pub fn model_arg(text: &str) -> Result<PathBuf, String> {
    model_path(Path::new(text)).map_err(|e| e.to_string())
}

/// [`model_arg`] of a path (the protocol engines find their `--model` after parsing:
/// [`alphazero_engine::ModelOf`]).
pub fn model_path(path: &Path) -> anyhow::Result<PathBuf> {
    alphazero_train::local::network_or_champion(path)
        .map_err(|e| anyhow::anyhow!(alphazero_train::storage::error_chain(&e)))
}

/// `n` and the noun, plural when `n` is not 1: `count(1, "game")` is "1 game", `count(2,
/// "game")` "2 games" (messages never say "game(s)").
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_say_one_game_and_two_games_not_game_s() {
        assert_eq!(super::count(1, "game"), "1 game");
        assert_eq!(super::count(0, "move"), "0 moves");
        assert_eq!(super::count(20, "rung"), "20 rungs");
    }
}
