//! What the commands that run a training run (`train`, `learner`, `actor`) show and how they
//! stop: the progress [`Bars`] (their [`Observer`]), Ctrl-C handling ([`install_ctrl_c`]), the
//! closing lines ([`finish`]) and the game's exact-solver yardstick ([`solver_slice`]).
use alphazero_registry::{GameSpec, Registered, Yardstick};
use alphazero_train::{IterationReport, Observer, RunSummary, Stage, TrainConfig};
use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::cmd::count;

/// The last lines of a run's invocation (`train`, `learner`): how it stopped, what the run
/// holds, where its champion is, and for a local run (`local`: its game and folder) how to
/// play, analyze and serve that champion ([`next_steps`]); exits with the shell's status for
/// an interrupted command (130) when Ctrl-C stopped it.
pub fn finish(
    summary: &RunSummary,
    champion: &str,
    local: Option<(&GameSpec, &Path)>,
) -> Result<()> {
    if summary.stopped_while_waiting {
        eprintln!(
            "stopped by Ctrl-C or SIGTERM while waiting for the games of iter {} (not started; {} \
             saved); run the command again to go on",
            summary.iterations,
            count(summary.iterations as usize, "iteration"),
        );
    } else if summary.stopped_by_request {
        // Named as the iteration lines name it (`iter N:` counts from 0): after the line
        // `iter 3`, "after iter 3", not 4.
        match summary.iterations.checked_sub(1) {
            Some(last) => eprintln!(
                "stopped by Ctrl-C or SIGTERM after iter {last} ({} saved); run the command \
                 again to go on",
                count(summary.iterations as usize, "iteration"),
            ),
            None => eprintln!(
                "stopped by Ctrl-C or SIGTERM before the first iteration; run the command again \
                 to go on"
            ),
        }
    }
    eprintln!(
        "done: {}, {}, champion {} at {champion}",
        count(summary.iterations as usize, "iteration"),
        count(summary.total_games as usize, "game"),
        summary.champion_id,
    );
    // Before the first committed iteration the folder has no champion to name.
    if let (Some((spec, run)), true) = (local, summary.iterations > 0) {
        eprint!("{}", next_steps(spec, run));
    }
    if ctrl_c_count() > 0 {
        // Stopped cleanly by Ctrl-C: everything is committed; the shell's status for an
        // interrupted command.
        std::process::exit(130);
    }
    Ok(())
}

/// The commands that play, analyze and serve the champion of the run in folder `run` of game
/// `spec` (`--model RUN_DIR` means the run's champion), one line each.
pub fn next_steps(spec: &GameSpec, run: &Path) -> String {
    let mut game = format!("--game {}", spec.name());
    if let (Some(size), Some(rule)) = spec.options() {
        game.push_str(&format!(" --size {size} --rule {rule}"));
    }
    let run = shell_word(&run.display().to_string());
    format!(
        "play the champion:    alphazero play {game} --model {run}\n\
         analyze a position:   alphazero analyze {game} --model {run} --out analysis.png\n\
         play it in a browser: alphazero serve --model {run}   (then open http://127.0.0.1:8080/)\n"
    )
}

/// `text` as one word of a POSIX shell command line: as it is when it holds only letters,
/// digits and `/._-+,:@=`, else in single quotes.
fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@=".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// The exact-solver yardstick of `eval.solver_every` of game `G`, from its test data folder
/// (`None` when it is 0, for a game without one ([`Registered::solver_yardstick`]), or when
/// the data cannot be found or read).
pub fn solver_slice<G: Registered>(
    cfg: &TrainConfig,
    observer: &dyn Observer,
) -> Option<Box<dyn Yardstick<G>>> {
    if cfg.eval.solver_every == 0 {
        return None;
    }
    let folder = G::solver_yardstick()?.info.folder;
    match super::eval::testdata_dir(None, folder) {
        Ok(dir) => alphazero_train::solver_slice::<G>(&dir, &cfg.eval, observer),
        Err(err) => {
            observer.warning(&format!(
                "no solver agreement measured (eval.solver_every): {err:#}"
            ));
            None
        }
    }
}

/// Ctrl-C presses seen by [`install_ctrl_c`]'s handler.
static CTRL_C: AtomicUsize = AtomicUsize::new(0);

/// How many times Ctrl-C (SIGINT) was pressed.
pub fn ctrl_c_count() -> usize {
    CTRL_C.load(Ordering::SeqCst)
}

/// What Ctrl-C does in `train` and `learner`: the two lines of [`install_ctrl_c`].
pub const ITERATION_CTRL_C: [&str; 2] = [
    "Ctrl-C or SIGTERM: finishing the iteration under way and stopping after it is saved; press Ctrl-C \
     again to stop at once (that iteration is then lost and done again on resume)",
    "Ctrl-C again: stopping now; the run resumes from its last saved iteration",
];

/// The first Ctrl-C or SIGTERM lets the work under way finish (an iteration is committed,
/// an actor's batch published), then the command stops; the second stops the process at
/// once (a run resumes from its last committed iteration, as after any crash). `lines` are
/// what each says.
pub fn install_ctrl_c(lines: [&'static str; 2]) {
    let handler = move || {
        if CTRL_C.fetch_add(1, Ordering::SeqCst) == 0 {
            eprintln!("\n{}", lines[0]);
        } else {
            eprintln!("\n{}", lines[1]);
            std::process::exit(130);
        }
    };
    if let Err(e) = ctrlc::set_handler(handler) {
        eprintln!("warning: Ctrl-C cannot be caught ({e}); it stops the run at once");
    }
}

/// The command's [`Observer`]: a progress bar per stage (hidden with `--quiet`), warnings and
/// information on stderr, one summary line per iteration (what its fields mean is said once,
/// before a run's first: [`Bars::explain_lines`]).
pub struct Bars {
    quiet: bool,
    bar: Mutex<Option<ProgressBar>>,
    /// The legend still to print before the next iteration line.
    legend: Mutex<Option<String>>,
}

impl Bars {
    /// Bars drawn on stderr, or hidden with `quiet` (the summary lines are printed either way).
    pub fn new(quiet: bool) -> Self {
        Bars {
            quiet,
            bar: Mutex::new(None),
            legend: Mutex::new(None),
        }
    }

    /// Prints what the iteration lines' fields mean ([`alphazero_train::summary_legend`])
    /// before the first of them, once per run: not when the run is `resumed` (it was printed
    /// when the run started). `learner`: a learner's line (its actors' batches); the solver
    /// agreement is explained where `cfg` measures it.
    pub fn explain_lines(&self, cfg: &TrainConfig, resumed: bool, learner: bool) {
        let solver = cfg.eval.solver_every > 0 && cfg.game.solver_yardstick().is_some();
        *self.legend.lock().unwrap_or_else(|e| e.into_inner()) =
            (!resumed).then(|| alphazero_train::summary_legend(learner, solver));
    }

    fn with_bar(&self, f: impl FnOnce(&ProgressBar)) {
        if let Some(pb) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            f(pb);
        }
    }
}

impl Observer for Bars {
    fn stage_started(&self, stage: Stage, iteration: u32, total: u64) {
        let pb = ProgressBar::new(total);
        if self.quiet {
            pb.set_draw_target(ProgressDrawTarget::hidden());
        }
        pb.set_style(
            ProgressStyle::with_template("{msg:>22} [{bar:30}] {pos}/{len} {per_sec} eta {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        pb.set_message(match stage {
            Stage::SelfPlay => format!("iter {iteration} self-play"),
            Stage::Learn => format!("iter {iteration} training"),
            Stage::Gate => "gating".to_string(),
        });
        *self.bar.lock().unwrap_or_else(|e| e.into_inner()) = Some(pb);
    }

    fn advanced(&self, _stage: Stage, n: u64) {
        self.with_bar(|pb| pb.inc(n));
    }

    fn stage_finished(&self, _stage: Stage) {
        self.with_bar(ProgressBar::finish_and_clear);
    }

    fn info(&self, line: &str) {
        eprintln!("{line}");
    }

    fn warning(&self, line: &str) {
        eprintln!("warning: {line}");
    }

    fn stop_requested(&self) -> bool {
        ctrl_c_count() > 0
    }

    fn iteration_done(&self, report: &IterationReport) {
        if let Some(legend) = self.legend.lock().unwrap_or_else(|e| e.into_inner()).take() {
            eprintln!("{legend}");
        }
        eprintln!("{}", report.summary());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_steps_name_the_game_its_board_and_the_run_folder_as_the_model() {
        let spec = GameSpec::gomoku(9, alphazero_gomoku::Rule::Renju).unwrap();
        let text = next_steps(&spec, Path::new("runs/try 2"));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(
            lines[0].ends_with(
                "alphazero play --game gomoku --size 9 --rule renju --model 'runs/try 2'"
            ),
            "{text}"
        );
        assert!(
            lines[1].contains(
                "alphazero analyze --game gomoku --size 9 --rule renju --model 'runs/try 2' --out"
            ),
            "{text}"
        );
        assert!(
            lines[2].contains("alphazero serve --model 'runs/try 2'"),
            "{text}"
        );
        let c4 = next_steps(&GameSpec::Connect4, Path::new("runs/c4"));
        assert!(c4.contains("--model runs/c4"), "{c4}");
        assert!(!c4.contains("--size"), "{c4}");
    }

    #[test]
    fn shell_words_are_quoted_only_when_a_shell_would_split_or_expand_them() {
        assert_eq!(shell_word("runs/try-1.x"), "runs/try-1.x");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word("$HOME"), "'$HOME'");
        assert_eq!(shell_word(""), "''");
    }
}
