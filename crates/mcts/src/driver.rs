//! The one search driver: the collect-leaves → evaluate → apply loop, for one tree or for many
//! trees batched into one evaluator call, with its stop conditions and its error rule.
//!
//! Every caller searches through it: [`Search::run`] / [`Search::run_with`] (one tree),
//! [`run_many`] (many trees), self-play ([`Driver::round`] between moves), the arena's search
//! player, the binary's `search_position` and the engines' think loop ([`Driver::run`] with a
//! callback).

use std::borrow::{Borrow, BorrowMut};
use std::marker::PhantomData;
use std::time::{Duration, Instant};

use alphazero_game::Game;

use crate::evaluator::{EvalError, EvalRequest, Evaluator};
use crate::search::{Search, SearchResult};

/// Rounds whose durations predict the next one (see [`RunLimits::deadline`]).
const RECENT_ROUNDS: usize = 8;

/// The run-wide stop conditions of [`Driver::run`], besides each tree's own budget.
///
/// A tree always stops when [`Search::is_done`]: the simulations of its
/// [`SearchBudget`](crate::SearchBudget) for this run are backed up, or its root is terminal
/// or proven (solver). The fields below add conditions; `None` means no such limit.
/// [`RunLimits::default`] has none: a run then ends when every tree is done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunLimits {
    /// Node cap per tree: a tree with at least this many nodes ([`Search::tree_size`],
    /// positions reached) takes no more leaves in this run. Checked before every round, so a
    /// tree may end up to `leaves_per_batch` nodes above it (plus the candidates its tactics
    /// expand).
    pub nodes: Option<usize>,
    /// Wall-clock deadline of the whole run. Before every round after the first, a round is
    /// started only when it is expected to end before the deadline: now + 1.5 × the slowest
    /// of the last 8 rounds (collection, evaluator call and back-up) < deadline. After every
    /// round the run stops once the deadline has passed. A round, once started, is never
    /// interrupted, so a run may end after the deadline by at most one round. The deadline
    /// never stops a run before every unfinished tree has completed at least one simulation
    /// of this run (so that a move rests on at least one search visit).
    pub deadline: Option<Instant>,
    /// Principal-variation goal per tree, in plies: a tree whose [`SearchResult::pv`] has at
    /// least this many plies takes no more leaves in this run. Checked before every round
    /// (it builds the tree's result, so only when set).
    pub depth: Option<u32>,
}

/// What a callback of [`Driver::run`] answers after each round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// Go on with the next round (unless another condition stops the run).
    Continue,
    /// End the run now (`stop`, a ponder miss, enough progress shown, …).
    Stop,
}

/// One round of [`Driver::round`]: what was sent to the evaluator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Round {
    /// Positions evaluated in the round's single evaluator call (0: no call was made, e.g.
    /// every leaf selected was terminal, or every tree is finished).
    pub positions: usize,
    /// Wall time spent inside the evaluator call.
    pub eval_time: Duration,
}

/// The state of a run handed to the callback of [`Driver::run`] after each round that
/// evaluated positions.
pub struct Progress<'a, G: Game, S> {
    trees: &'a [S],
    rounds: u64,
    last: Round,
    started: Instant,
    _game: PhantomData<fn() -> G>,
}

impl<G: Game, S: Borrow<Search<G>>> Progress<'_, G, S> {
    /// Tree `i` of the run (in the order given to [`Driver::run`]).
    ///
    /// # Panics
    /// When `i` is not below [`Progress::num_trees`].
    pub fn tree(&self, i: usize) -> &Search<G> {
        self.trees[i].borrow()
    }

    /// Number of trees in the run.
    pub fn num_trees(&self) -> usize {
        self.trees.len()
    }

    /// Rounds that evaluated positions in this run so far, this one included (1 after the
    /// first).
    pub fn rounds(&self) -> u64 {
        self.rounds
    }

    /// The round just finished.
    pub fn last_round(&self) -> Round {
        self.last
    }

    /// Wall time since the run began.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
}

/// The search driver: reusable buffers for the evaluator's inputs and outputs, and the
/// collect → evaluate → apply loop over one or many [`Search`] trees.
///
/// One **round** collects up to `leaves_per_batch` leaves from every unfinished tree (each
/// with its own config), sends all of them to the evaluator in **one** call (trees in the
/// order given, each tree's leaves in its own order) and applies the outputs. A tree's
/// search is therefore the same whether it runs alone or batched with others, for a
/// deterministic evaluator.
///
/// # Error rule
/// When the evaluator fails, when the trees of one round have different action-space sizes,
/// or when the evaluator returns a non-finite value for any position, the round applies
/// **nothing** to any tree: every tree of the round has its pending leaves discarded and their
/// virtual loss undone (a discarded leaf stays in the tree as a position not yet evaluated),
/// keeping the simulations backed up in earlier rounds (the tree stays valid: its result may
/// be read and it may be searched again), and the error is returned.
/// [`Driver::run`] stops at the first such error.
pub struct Driver<G: Game> {
    logits: Vec<f32>,
    values: Vec<f32>,
    requests: Vec<EvalRequest<'static, G>>,
    counts: Vec<usize>,
    active: Vec<bool>,
}

impl<G: Game> Default for Driver<G> {
    fn default() -> Self {
        Self::new()
    }
}

/// Reuses a request vector's allocation for a new borrow lifetime (in-place collect of an
/// empty vector).
fn recycle<'a, 'b, G: Game>(mut v: Vec<EvalRequest<'a, G>>) -> Vec<EvalRequest<'b, G>> {
    v.clear();
    v.into_iter()
        .map(|_| unreachable!("vector is empty"))
        .collect()
}

impl<G: Game> Driver<G> {
    /// A driver with empty buffers (they grow to the largest round and are kept).
    pub fn new() -> Self {
        Driver {
            logits: Vec::new(),
            values: Vec::new(),
            requests: Vec::new(),
            counts: Vec::new(),
            active: Vec::new(),
        }
    }

    /// One round over `trees` (see [`Driver`]): every tree that is not
    /// [`Search::is_done`] contributes its leaves. Does not start a run: call
    /// [`Search::begin_run`] on a tree first (self-play does, between moves).
    ///
    /// # Errors
    /// [`EvalError`] by the [error rule](Driver#error-rule).
    pub fn round<S, E>(&mut self, trees: &mut [S], evaluator: &E) -> Result<Round, EvalError>
    where
        S: BorrowMut<Search<G>>,
        E: Evaluator<G> + ?Sized,
    {
        self.active.clear();
        self.active.resize(trees.len(), true);
        self.round_of_active(trees, evaluator)
    }

    /// [`Driver::round`] over the trees whose `self.active` flag is set.
    fn round_of_active<S, E>(&mut self, trees: &mut [S], evaluator: &E) -> Result<Round, EvalError>
    where
        S: BorrowMut<Search<G>>,
        E: Evaluator<G> + ?Sized,
    {
        self.counts.clear();
        for (t, &on) in trees.iter_mut().zip(&self.active) {
            let t = t.borrow_mut();
            self.counts.push(if on && !t.is_done() {
                t.collect_leaves()
            } else {
                0
            });
        }
        let total: usize = self.counts.iter().sum();
        if total == 0 {
            return Ok(Round::default());
        }
        let r = self.evaluate_and_apply(trees, evaluator, total);
        if r.is_err() {
            for t in trees.iter_mut() {
                t.borrow_mut().cancel_pending();
            }
        }
        r
    }

    /// The evaluator call and the back-ups of one round with `total` leaves pending; on an
    /// error nothing has been applied.
    fn evaluate_and_apply<S, E>(
        &mut self,
        trees: &mut [S],
        evaluator: &E,
        total: usize,
    ) -> Result<Round, EvalError>
    where
        S: BorrowMut<Search<G>>,
        E: Evaluator<G> + ?Sized,
    {
        let mut a = None;
        for (t, &c) in trees.iter().zip(&self.counts) {
            let n = t.borrow().root_position().num_actions();
            match a {
                _ if c == 0 => {}
                None => a = Some(n),
                Some(a) if a != n => {
                    return Err(EvalError(format!(
                        "one round of searches with mixed action spaces {a} and {n}"
                    )));
                }
                Some(_) => {}
            }
        }
        let a = a.unwrap_or(0);
        // Not cleared: the evaluator fills every entry (its contract), and zeroing `[B, A]`
        // logits each round costs Xiangqi's 2,086 actions a few per cent of search speed.
        self.logits.resize(total * a, 0.0);
        self.values.resize(total, 0.0);
        let mut batch = recycle(std::mem::take(&mut self.requests));
        for (t, &c) in trees.iter().zip(&self.counts) {
            if c > 0 {
                batch.extend(t.borrow().pending_requests());
            }
        }
        let t0 = Instant::now();
        let r = evaluator.evaluate(&batch, &mut self.logits, &mut self.values);
        let eval_time = t0.elapsed();
        self.requests = recycle(batch);
        r?;
        if let Some(v) = self.values.iter().find(|v| !v.is_finite()) {
            return Err(EvalError(format!(
                "evaluator returned a non-finite value {v}"
            )));
        }
        let mut off = 0;
        for (t, &c) in trees.iter_mut().zip(&self.counts) {
            if c > 0 {
                t.borrow_mut().apply_evaluations(
                    &self.logits[off * a..(off + c) * a],
                    &self.values[off..off + c],
                )?;
                off += c;
            }
        }
        Ok(Round {
            positions: total,
            eval_time,
        })
    }

    /// Runs one search on every tree of `trees` at once: starts a run on each
    /// ([`Search::begin_run`]), then plays rounds until every tree is finished (done, or
    /// stopped by `limits.nodes` / `limits.depth`), the deadline stops the run, or `callback`
    /// answers [`Control::Stop`]. Read each tree's answer with [`Search::result`] afterwards.
    ///
    /// `callback` is called after every round that evaluated positions (rounds that only met
    /// terminal leaves are not reported), before the deadline check; it may change `limits`
    /// (e.g. set a deadline on a ponder hit), which the next checks read.
    ///
    /// # Errors
    /// [`EvalError`] by the [error rule](Driver#error-rule); the run ends there.
    pub fn run<S, E>(
        &mut self,
        trees: &mut [S],
        evaluator: &E,
        limits: &mut RunLimits,
        mut callback: impl FnMut(&Progress<'_, G, S>, &mut RunLimits) -> Control,
    ) -> Result<(), EvalError>
    where
        S: BorrowMut<Search<G>>,
        E: Evaluator<G> + ?Sized,
    {
        let started = Instant::now();
        for t in trees.iter_mut() {
            t.borrow_mut().begin_run();
        }
        let mut recent = [Duration::ZERO; RECENT_ROUNDS];
        let mut rounds = 0u64;
        loop {
            self.active.clear();
            self.active
                .extend(trees.iter().map(|t| !finished(t.borrow(), limits)));
            if !self.active.contains(&true) {
                break;
            }
            if let Some(d) = limits.deadline {
                let slowest = recent.iter().max().copied().unwrap_or_default();
                if self.searched(trees) && Instant::now() + slowest + slowest / 2 >= d {
                    break;
                }
            }
            let round_start = Instant::now();
            let last = self.round_of_active(trees, evaluator)?;
            if last.positions == 0 {
                continue;
            }
            recent[(rounds % RECENT_ROUNDS as u64) as usize] = round_start.elapsed();
            rounds += 1;
            let progress = Progress {
                trees: &*trees,
                rounds,
                last,
                started,
                _game: PhantomData,
            };
            if callback(&progress, limits) == Control::Stop {
                break;
            }
            if limits.deadline.is_some_and(|d| Instant::now() >= d) && self.searched(trees) {
                break;
            }
        }
        Ok(())
    }

    /// Whether every tree of the run that still takes leaves has completed a simulation in
    /// this run (the deadline's minimum).
    fn searched<S: Borrow<Search<G>>>(&self, trees: &[S]) -> bool {
        trees.iter().zip(&self.active).all(|(t, &on)| {
            let t = t.borrow();
            !on || t.is_done() || t.simulations_done() >= 1
        })
    }
}

/// Whether `tree` takes no more leaves in this run under `limits`.
fn finished<G: Game>(tree: &Search<G>, limits: &RunLimits) -> bool {
    tree.is_done()
        || limits.nodes.is_some_and(|n| tree.tree_size() >= n)
        || limits
            .depth
            .is_some_and(|d| tree.result().pv.len() >= d as usize)
}

impl<G: Game> Search<G> {
    /// Runs the budget's simulations (fewer if the root gets proven) and returns the result:
    /// [`Search::run_with`] without limits. The budget must have a simulation cap: without
    /// one only a proven root ends this run. Leaves are evaluated `leaves_per_batch` at
    /// a time, one evaluator call each.
    ///
    /// # Errors
    /// [`EvalError`] by the driver's [error rule](crate::Driver#error-rule): the tree is left
    /// without pending leaves (their virtual loss undone).
    pub fn run<E: Evaluator<G> + ?Sized>(
        &mut self,
        evaluator: &E,
    ) -> Result<SearchResult<G>, EvalError> {
        self.run_with(evaluator, RunLimits::default())
    }

    /// Runs this tree alone through the [`Driver`] under `limits` (node cap, deadline, PV
    /// depth; see [`RunLimits`]) besides the budget's simulations, and returns the result.
    ///
    /// # Errors
    /// As [`Search::run`].
    pub fn run_with<E: Evaluator<G> + ?Sized>(
        &mut self,
        evaluator: &E,
        mut limits: RunLimits,
    ) -> Result<SearchResult<G>, EvalError> {
        Driver::new().run(
            std::slice::from_mut(self),
            evaluator,
            &mut limits,
            |_, _| Control::Continue,
        )?;
        Ok(self.result())
    }
}

/// Runs one search on each tree at once ([`Driver::run`] without limits or callback): every
/// round sends the pending leaves of all unfinished trees to `evaluator` in ONE call (this
/// keeps a network busy). Each tree uses its own config (`leaves_per_batch`, …) and budget
/// (simulations, seed). Results are in the order of `searches` and identical to running each
/// tree alone with the same deterministic evaluator.
///
/// # Errors
/// [`EvalError`] by the [error rule](Driver#error-rule) (mixed action spaces included).
pub fn run_many<G: Game, E: Evaluator<G> + ?Sized>(
    searches: &mut [Search<G>],
    evaluator: &E,
) -> Result<Vec<SearchResult<G>>, EvalError> {
    Driver::new().run(searches, evaluator, &mut RunLimits::default(), |_, _| {
        Control::Continue
    })?;
    Ok(searches.iter().map(Search::result).collect())
}
