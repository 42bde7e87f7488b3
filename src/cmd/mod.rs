//! One module per subcommand.
pub mod analyze;
pub mod arena;
pub mod bench;
pub mod eval;
pub mod export;
pub mod perft;
pub mod play;
pub mod protocols;
pub mod records;
pub mod roles;
pub mod serve;
pub mod train;

use std::path::Path;

/// Refuses an output file that cannot be written, before the work that produces it (a
/// search, a match) instead of after: the folder must exist and take a new file (probed by
/// creating and removing an empty one), and the path must not name a folder.
///
/// # Errors
/// One line naming `flag`, the path and why.
pub fn check_output_path(flag: &str, out: &Path) -> anyhow::Result<()> {
    let dir = out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !dir.is_dir() {
        anyhow::bail!(
            "{flag} {}: the folder {} does not exist",
            out.display(),
            dir.display()
        );
    }
    if out.is_dir() {
        anyhow::bail!("{flag} {}: is a folder, not a file name", out.display());
    }
    let probe = dir.join(format!(".alphazero-write-probe-{}", std::process::id()));
    match std::fs::File::create(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
        }
        Err(e) => anyhow::bail!(
            "{flag} {}: cannot write into {}: {e}",
            out.display(),
            dir.display()
        ),
    }
    if out.exists() {
        if let Err(e) = std::fs::OpenOptions::new().append(true).open(out) {
            anyhow::bail!("{flag} {}: cannot be overwritten: {e}", out.display());
        }
    }
    Ok(())
}

/// `n` and the noun, plural when `n` is not 1: `count(1, "game")` is "1 game", `count(2,
/// "game")` "2 games" (the messages' "game(s)" of issue 19 defect 8).
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
