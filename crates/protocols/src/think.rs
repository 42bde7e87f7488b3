//! What both engines make of the search driver ([`alphazero_mcts::Driver`]): the quick
//! answers that need no search, root move bans, multi-PV lines, and the engines' events
//! (snapshots, depth reports, input polls) from the driver's callback between evaluator
//! batches.
//!
//! The deadline is the driver's ([`alphazero_mcts::RunLimits::deadline`]): a batch is started
//! only when the slowest of the recent batches, with half again as a margin, still ends before
//! it (a batch cannot be interrupted: the network call and the expansions' tactical searches
//! run to the end), after at least one simulation. Engines that must never be late run
//! [`think`] on a worker thread and answer from its latest [`Event::Snapshot`] at a hard
//! deadline (the Gomocup brain does).

use std::time::{Duration, Instant};

use alphazero_game::{Game, History, Outcome};
/// What the callback of [`think`] answers: the search driver's [`Control`].
pub(crate) use alphazero_mcts::Control;
use alphazero_mcts::{
    ChildStats, Driver, EvalError, EvalRequest, Evaluator, RunLimits, Search, SearchBudget,
    SearchConfig,
};

/// The budget of a search: when it stops (whichever comes first; the root being proven also
/// stops it), its seed, and what it reports.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ThinkLimits {
    /// Simulation cap (≥ 1).
    pub max_simulations: u32,
    /// Seed of the search's RNG ([`SearchBudget::seed`]).
    pub seed: u64,
    /// Wall-clock deadline: no batch is started that is expected to end after it.
    pub deadline: Option<Instant>,
    /// Stop once the principal variation has this many plies.
    pub depth: Option<u32>,
    /// Report [`Event::Snapshot`] at most this often (and after the first batch); `None`:
    /// never.
    pub snapshot_every: Option<Duration>,
    /// Lines to give in [`Thought::lines`] (≥ 1; UCI `MultiPV`).
    pub multipv: usize,
}

/// What the callback of [`think`] is told.
pub(crate) enum Event<'a, G: Game> {
    /// Between two evaluator batches: look at the input, the clock, …
    Poll,
    /// The principal variation got longer (reported after some batches, deterministic).
    Depth(&'a Thought<G>),
    /// The search's current answer (see [`ThinkLimits::snapshot_every`]).
    Snapshot(&'a Thought<G>),
}

/// The outcome of a search.
#[derive(Clone, Debug)]
pub(crate) struct Thought<G: Game> {
    /// The move to play; `None` when there is no (unbanned) legal move.
    pub mv: Option<G::Move>,
    /// Value in [-1, 1] from the side to move.
    pub value: f32,
    /// Principal variation, starting with `mv`.
    pub pv: Vec<G::Move>,
    /// Proven result of the root from the side to move (of playing `mv`).
    pub proven: Option<Outcome>,
    /// Simulations done.
    pub simulations: u32,
    /// Root visits (simulations plus the root evaluation and reused visits).
    pub visits: u32,
    /// Wall-clock time since `start`.
    pub elapsed: Duration,
    /// Why this move: "search", "proven win", "single candidate", "no legal move", ….
    pub reason: &'static str,
    /// The root's searched moves with their visits and mean value Q (from the side to move
    /// after the move's parent, i.e. the mover); empty when nothing was searched.
    pub children: Vec<(G::Move, u32, f32)>,
    /// At most [`ThinkLimits::multipv`] lines: the line of `mv` (its `pv`) first, then the
    /// other searched (visited or proven) unbanned root moves in the order of
    /// [`alphazero_mcts::SearchResult::ranked_children`], each with its own principal
    /// variation. Empty without a move.
    pub lines: Vec<Line<G>>,
}

/// One line of a multi-PV report.
#[derive(Clone, Debug)]
pub(crate) struct Line<G: Game> {
    /// The root move and its principal variation.
    pub pv: Vec<G::Move>,
    /// The move's mean value Q in [-1, 1] from the side to move at the root (exact when
    /// proven).
    pub value: f32,
    /// Proven result of playing the move, from the side to move at the root.
    pub proven: Option<Outcome>,
}

impl<G: Game> Thought<G> {
    /// An answer without search: `mv` alone as its PV and its only line.
    pub(crate) fn quick(
        mv: Option<G::Move>,
        value: f32,
        proven: Option<Outcome>,
        start: Instant,
        reason: &'static str,
    ) -> Self {
        Thought {
            mv,
            value,
            pv: mv.into_iter().collect(),
            proven,
            simulations: 0,
            visits: 0,
            elapsed: start.elapsed(),
            reason,
            children: Vec::new(),
            lines: mv
                .map(|m| Line {
                    pv: vec![m],
                    value,
                    proven,
                })
                .into_iter()
                .collect(),
        }
    }

    /// Depth reported to GUIs: the PV length, at least 1 when a move exists.
    pub fn depth(&self) -> usize {
        self.pv.len().max(usize::from(self.mv.is_some()))
    }
}

/// Sets the logits of banned root actions to a huge negative number (prior 0): the root
/// request is recognised by its hash and history length.
struct Masked<'a, G: Game> {
    inner: &'a dyn Evaluator<G>,
    root_hash: u64,
    root_history: usize,
    actions: Vec<usize>,
}

impl<G: Game> Evaluator<G> for Masked<'_, G> {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, G>],
        policy_logits: &mut [f32],
        values: &mut [f32],
    ) -> Result<(), EvalError> {
        self.inner.evaluate(batch, policy_logits, values)?;
        let a = batch.first().map_or(0, |r| r.position.num_actions());
        for (i, r) in batch.iter().enumerate() {
            if r.history.len() == self.root_history && r.position.zobrist() == self.root_hash {
                for &act in &self.actions {
                    if let Some(l) = policy_logits.get_mut(i * a + act) {
                        *l = -1.0e9;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Rank of a root child for the final choice: proven wins first, proven losses last, then
/// visits, then prior.
fn rank<M>(c: &ChildStats<M>) -> (u8, u32, f32) {
    let class = match c.proven {
        Some(Outcome::Win) => 3,
        Some(Outcome::Loss) => 0,
        _ => 1,
    };
    (class, c.visits, c.prior)
}

fn thought_of<G: Game>(
    s: &Search<G>,
    banned: &[G::Move],
    start: Instant,
    multipv: usize,
) -> Thought<G> {
    let r = s.result();
    let mut t = Thought {
        mv: r.best_move,
        value: r.root_value,
        pv: r.pv.clone(),
        proven: r.proven,
        simulations: r.simulations,
        visits: r.root_visits,
        elapsed: start.elapsed(),
        reason: if r.proven == Some(Outcome::Win) {
            "proven win"
        } else {
            "search"
        },
        children: r
            .children
            .iter()
            .filter(|c| !banned.contains(&c.mv))
            .map(|c| (c.mv, c.visits, c.q))
            .collect(),
        lines: Vec::new(),
    };
    if r.best_move.is_some_and(|m| banned.contains(&m)) {
        let best = r
            .children
            .iter()
            .filter(|c| !banned.contains(&c.mv))
            .max_by(|a, b| {
                rank(a)
                    .partial_cmp(&rank(b))
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
        match best {
            Some(c) => {
                t.mv = Some(c.mv);
                t.pv = s.pv_from(c.mv).unwrap_or_else(|| vec![c.mv]);
                t.value = c.q;
                t.proven = c.proven;
                t.reason = "search (best move banned)";
            }
            None => {
                t.mv = None;
                t.pv.clear();
                t.reason = "every move is banned";
            }
        }
    }
    let Some(best) = t.mv else {
        return t;
    };
    let ranked = r.ranked_children();
    let stats = |m: G::Move| ranked.iter().find(|c| c.mv == m);
    t.lines.push(Line {
        pv: t.pv.clone(),
        value: stats(best).map_or(t.value, |c| c.q),
        proven: stats(best).and_then(|c| c.proven),
    });
    for c in &ranked {
        if t.lines.len() >= multipv {
            break;
        }
        if c.mv == best || banned.contains(&c.mv) || (c.visits == 0 && c.proven.is_none()) {
            continue;
        }
        t.lines.push(Line {
            pv: s.pv_from(c.mv).unwrap_or_else(|| vec![c.mv]),
            value: c.q,
            proven: c.proven,
        });
    }
    t
}

/// Searches `game.current()` and returns the move to play.
///
/// Order of business: no legal move → `mv: None`; an immediately winning candidate or a single
/// candidate → answered without search; otherwise MCTS (as `search` says, without root noise,
/// seeded with `limits.seed`) until `limits.max_simulations`, the deadline, the depth goal, a
/// proven root, or the callback says stop. Moves in `banned` are never chosen (prior 0 at the
/// root and filtered from the final choice). A root decided by repetition while moves remain
/// is searched without its history.
///
/// # Errors
/// [`EvalError`] from the evaluator or an invalid search config.
pub(crate) fn think<G: Game>(
    game: &History<G>,
    banned: &[G::Move],
    evaluator: &dyn Evaluator<G>,
    search: &SearchConfig,
    limits: &mut ThinkLimits,
    start: Instant,
    mut callback: impl FnMut(Event<'_, G>, &mut ThinkLimits) -> Control,
) -> Result<Thought<G>, EvalError> {
    let pos = game.current();
    let mut cands = Vec::new();
    if search.use_candidate_moves {
        pos.candidate_moves(&mut cands);
    } else {
        pos.legal_moves(&mut cands);
    }
    if cands.is_empty() {
        pos.legal_moves(&mut cands);
    }
    let any_legal = !cands.is_empty();
    cands.retain(|m| !banned.contains(m));
    if cands.is_empty() {
        let why = if any_legal {
            "every move is banned"
        } else {
            "no legal move"
        };
        return Ok(Thought::quick(None, 0.0, pos.outcome(), start, why));
    }
    // An immediate win needs no search.
    for &mv in &cands {
        let mut g = pos.clone();
        g.play_unchecked(mv);
        if g.outcome() == Some(Outcome::Loss) {
            return Ok(Thought::quick(
                Some(mv),
                1.0,
                Some(Outcome::Win),
                start,
                "proven win",
            ));
        }
    }
    if cands.len() == 1 {
        return Ok(Thought::quick(
            Some(cands[0]),
            0.0,
            None,
            start,
            "single candidate",
        ));
    }
    let budget = SearchBudget {
        seed: limits.seed,
        ..SearchBudget::simulations(limits.max_simulations.max(1))
    };
    let cfg = search.clone();
    let cfg_err = |e: alphazero_mcts::ConfigError| EvalError(e.to_string());
    let mut s = if game.outcome().is_some() {
        // Over by repetition but moves remain (the GUI decides): search the bare position.
        Search::new(pos.clone(), Vec::new(), cfg, budget).map_err(cfg_err)?
    } else {
        Search::from_history(game, cfg, budget).map_err(cfg_err)?
    };
    let banned_actions: Vec<usize> = banned
        .iter()
        .filter(|m| pos.is_legal(**m))
        .map(|&m| pos.move_to_action(m))
        .collect();
    let masked = Masked {
        inner: evaluator,
        root_hash: pos.zobrist(),
        root_history: s.history().len(),
        actions: banned_actions,
    };
    let eval: &dyn Evaluator<G> = if masked.actions.is_empty() {
        evaluator
    } else {
        &masked
    };
    let mut last_depth = 0;
    let mut last_snapshot: Option<Instant> = None;
    let mut run_limits = RunLimits {
        deadline: limits.deadline,
        ..RunLimits::default()
    };
    Driver::new().run(
        std::slice::from_mut(&mut s),
        eval,
        &mut run_limits,
        |p, run_limits| {
            let s = p.tree(0);
            let mut report = |event: Event<'_, G>, limits: &mut ThinkLimits| {
                let c = callback(event, limits);
                // The engine may set a deadline (a ponder hit): the driver reads it next.
                run_limits.deadline = limits.deadline;
                c
            };
            if let Some(every) = limits.snapshot_every {
                if last_snapshot.is_none_or(|t| t.elapsed() >= every) {
                    last_snapshot = Some(Instant::now());
                    let t = thought_of(s, banned, start, limits.multipv);
                    if report(Event::Snapshot(&t), limits) == Control::Stop {
                        return Control::Stop;
                    }
                }
            }
            // The depth is the PV of the move played (another line when the best is banned).
            if limits.depth.is_some() || p.rounds().is_multiple_of(32) {
                let t = thought_of(s, banned, start, limits.multipv);
                let d = t.depth();
                if d > last_depth {
                    last_depth = d;
                    if report(Event::Depth(&t), limits) == Control::Stop {
                        return Control::Stop;
                    }
                }
                if limits.depth.is_some_and(|want| d >= want as usize) {
                    return Control::Stop;
                }
            }
            report(Event::Poll, limits)
        },
    )?;
    Ok(thought_of(&s, banned, start, limits.multipv))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alphazero_mcts::UniformEvaluator;
    use alphazero_xiangqi::{Move, Xiangqi, XiangqiConfig};

    fn limits(sims: u32, multipv: usize) -> ThinkLimits {
        ThinkLimits {
            max_simulations: sims,
            seed: 5,
            deadline: None,
            depth: None,
            snapshot_every: None,
            multipv,
        }
    }

    #[test]
    fn multipv_lines_are_the_move_played_then_the_ranked_children_each_with_its_own_pv() {
        let game = History::new(Xiangqi::start(XiangqiConfig::default()));
        let search = SearchConfig::default();
        let think_with = |banned: &[Move], multipv: usize| {
            think(
                &game,
                banned,
                &UniformEvaluator,
                &search,
                &mut limits(300, multipv),
                Instant::now(),
                |_, _| Control::Continue,
            )
            .unwrap()
        };
        let t = think_with(&[], 6);
        // The same search by hand.
        let budget = SearchBudget {
            seed: 5,
            ..SearchBudget::simulations(300)
        };
        let mut s = Search::from_history(&game, search.clone(), budget).unwrap();
        let r = s.run(&UniformEvaluator).unwrap();
        assert_eq!(t.mv, r.best_move);
        assert_eq!(t.lines[0].pv, t.pv);
        let ranked: Vec<_> = r
            .ranked_children()
            .into_iter()
            .filter(|c| c.visits > 0)
            .take(6)
            .collect();
        assert_eq!(t.lines.len(), 6);
        let mut firsts = Vec::new();
        for (line, c) in t.lines.iter().zip(&ranked) {
            assert_eq!(line.pv[0], c.mv);
            assert_eq!(Some(&line.pv), s.pv_from(c.mv).as_ref());
            assert_eq!(line.value, c.q);
            firsts.push(c.mv);
        }
        assert!(t.lines.iter().any(|l| l.pv.len() > 1));
        // One line, or a banned best move: the lines never show a banned move and the first
        // is the move played.
        assert_eq!(think_with(&[], 1).lines.len(), 1);
        let b = think_with(&firsts[..1], 3);
        assert_eq!(b.lines.len(), 3);
        assert_eq!(Some(b.lines[0].pv[0]), b.mv);
        assert!(b.lines.iter().all(|l| l.pv[0] != firsts[0]));
    }
}
