//! What the commands that run a training run (`train`, `learner`, `actor`) show and how they
//! stop: the progress [`Bars`] (their [`Observer`]), Ctrl-C handling ([`install_ctrl_c`]), the
//! closing lines ([`finish`]) and the game's exact-solver yardstick ([`solver_slice`]).
use alphazero_registry::{Registered, Yardstick};
use alphazero_train::{IterationReport, Observer, RunSummary, Stage, TrainConfig};
use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::cmd::count;

/// The last lines of a run's invocation (`train`, `learner`): how it stopped, what the run
/// holds, where its champion is; exits with the shell's status for an interrupted command
/// (130) when Ctrl-C stopped it.
pub fn finish(summary: &RunSummary, champion: &str) -> Result<()> {
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
    if ctrl_c_count() > 0 {
        // Stopped cleanly by Ctrl-C: everything is committed; the shell's status for an
        // interrupted command.
        std::process::exit(130);
    }
    Ok(())
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
/// before the first).
pub struct Bars {
    quiet: bool,
    bar: Mutex<Option<ProgressBar>>,
    legend: std::sync::Once,
}

impl Bars {
    /// Bars drawn on stderr, or hidden with `quiet` (the summary lines are printed either way).
    pub fn new(quiet: bool) -> Self {
        Bars {
            quiet,
            bar: Mutex::new(None),
            legend: std::sync::Once::new(),
        }
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
        self.legend
            .call_once(|| eprintln!("{}", alphazero_train::SUMMARY_LEGEND));
        eprintln!("{}", report.summary());
    }
}
