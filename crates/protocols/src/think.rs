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
    /// The search's budget as the search takes it: its simulation cap and seed, no root
    /// noise ([`EngineConfig::budget`](crate::EngineConfig::budget), with the protocol's node
    /// limit or memory cap applied).
    pub budget: SearchBudget,
    /// Wall-clock deadline: no batch is started that is expected to end after it (with
    /// [`Self::steer`], the steering's target instead; the callback of [`think`] may move it).
    pub deadline: Option<Instant>,
    /// Stop once the principal variation has this many plies.
    pub depth: Option<u32>,
    /// Report [`Event::Snapshot`] at most this often (and after the first batch); `None`:
    /// never.
    pub snapshot_every: Option<Duration>,
    /// Lines to give in [`Thought::lines`] (≥ 1; UCI `MultiPV`).
    pub multipv: usize,
    /// Time steering on a match clock; `None`: the search runs to `deadline`.
    pub steer: Option<Steer>,
}

/// How a search on a match clock spends its time (a player's clock, where time saved on one
/// move is there for the next). The search aims at `target`, with `deadline` set to it:
///
/// * **Decided early:** it stops before the deadline once the most visited root move cannot
///   be overtaken by the runner-up in the simulations still to come (the search's rate so far
///   times the time left, at most the simulation cap) and the root is not unsure — the move
///   cannot change, so the time is kept for later moves (Leela Zero's "smart pruning").
/// * **Unsure: more time.** When the target comes with the root unsure ([`root_unsure`]), the
///   deadline moves once to `stretch`.
///
/// Gumbel's root (which picks by sequential halving, not by visits) is never cut short.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Steer {
    /// The time aimed at: the deadline the search starts with.
    pub target: Instant,
    /// The latest deadline when the root is unsure at `target` (≥ `target`).
    pub stretch: Instant,
}

/// Simulations a search must have done before it is cut short as decided.
const STEER_MIN_SIMULATIONS: u32 = 32;

/// Whether a root needs more time: fewer than [`STEER_MIN_SIMULATIONS`] simulations, the
/// runner-up has at least half the visits of the most visited move, or a move with at least
/// a quarter of its visits has a Q higher by more than 0.02 (the search is still moving its
/// visits). `children` are the root's (visits, Q from the root's side to move); moves proven
/// lost are left out by the caller (a proven win ends the search by itself).
pub(crate) fn root_unsure(children: &[(u32, f32)], simulations: u32) -> bool {
    if simulations < STEER_MIN_SIMULATIONS {
        return true;
    }
    let Some(&(n1, q1)) = children.iter().max_by_key(|c| c.0) else {
        return false;
    };
    let mut seen_best = false;
    children.iter().any(|&(n, q)| {
        if (n, q) == (n1, q1) && !seen_best {
            seen_best = true;
            return false;
        }
        2 * u64::from(n) >= u64::from(n1) || (4 * u64::from(n) >= u64::from(n1) && q > q1 + 0.02)
    })
}

/// Whether the most visited root move stays the most visited whatever the next `left`
/// simulations do: its lead over the runner-up is larger than `left`.
pub(crate) fn root_decided(children: &[(u32, f32)], left: u64) -> bool {
    let mut top = [0u32; 2];
    for &(n, _) in children {
        if n > top[0] {
            top = [n, top[0]];
        } else if n > top[1] {
            top[1] = n;
        }
    }
    u64::from(top[0] - top[1]) > left
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

/// Plies a kept tree may be behind the game and still be carried to its position (our move
/// and the opponent's reply, with room for moves answered without a search).
const CARRY_PLIES: usize = 6;

/// `tree` carried to `game.current()`: the moves played since its root, each kept subtree
/// with its statistics ([`Search::advance`]), when its root is one of the last
/// [`CARRY_PLIES`] positions of `game`, it searched with `search`, and the history it ends
/// with is the game's. `None` otherwise (another game, a taken-back move, a new setting).
fn carried<G: Game>(
    mut tree: Search<G>,
    game: &History<G>,
    search: &SearchConfig,
    budget: SearchBudget,
) -> Option<Search<G>> {
    if tree.config() != search {
        return None;
    }
    let root = tree.root_position().zobrist();
    let (entries, moves) = (game.entries(), game.moves());
    let from = if game.current().zobrist() == root {
        entries.len()
    } else {
        (entries.len().saturating_sub(CARRY_PLIES)..entries.len())
            .rev()
            .find(|&i| entries[i].hash == root)?
    };
    for &mv in &moves[from..] {
        tree.advance(mv).ok()?;
    }
    let same = tree.root_position() == game.current() && tree.history() == entries;
    (same && tree.set_budget(budget).is_ok()).then_some(tree)
}

/// Searches `game.current()` and returns the move to play.
///
/// Order of business: no legal move → `mv: None`; an immediately winning candidate or a single
/// candidate → answered without search; otherwise MCTS (as `search` says, without root noise,
/// as `limits.budget` says) until its simulation cap, the deadline, the depth goal, a
/// proven root, or the callback says stop. Moves in `banned` are never chosen (prior 0 at the
/// root and filtered from the final choice). A root decided by repetition while moves remain
/// is searched without its history.
///
/// `tree` is a tree left by an earlier call for the same game (or `None`); it is carried to
/// `game.current()` when it can be ([`carried`]: its visits count as the root's, not against
/// the cap) and replaced by this search's tree when the search ran, so the
/// next call starts from the subtree of the moves then played. A search with `banned` moves
/// neither starts from nor leaves a tree (its root priors are masked). Answers without a
/// search leave `tree` as it was.
///
/// `callback` is told each [`Event`] with the search's deadline, which it may move (a ponder
/// hit sets one); the driver reads it before its next batch.
///
/// # Errors
/// [`EvalError`] from the evaluator or an invalid search config; `tree` is then `None`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn think<G: Game>(
    game: &History<G>,
    banned: &[G::Move],
    evaluator: &dyn Evaluator<G>,
    search: &SearchConfig,
    limits: &ThinkLimits,
    start: Instant,
    tree: &mut Option<Search<G>>,
    mut callback: impl FnMut(Event<'_, G>, &mut Option<Instant>) -> Control,
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
    let budget = limits.budget;
    let cfg = search.clone();
    let cfg_err = |e: alphazero_mcts::ConfigError| EvalError(e.to_string());
    let kept = tree
        .take()
        .filter(|_| banned.is_empty() && game.outcome().is_none())
        .and_then(|t| carried(t, game, &cfg, budget));
    let mut s = match kept {
        Some(s) => s,
        // Over by repetition but moves remain (the GUI decides): search the bare position.
        None if game.outcome().is_some() => {
            Search::new(pos.clone(), Vec::new(), cfg, budget).map_err(cfg_err)?
        }
        None => Search::from_history(game, cfg, budget).map_err(cfg_err)?,
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
    let steer = limits.steer.filter(|_| search.gumbel.is_none());
    let mut steered: Option<&'static str> = None;
    let mut last_poll = Instant::now();
    // The search's one deadline: the driver reads it, the steering and the engine's
    // callback (a ponder hit) move it.
    let mut run_limits = RunLimits {
        deadline: steer.map_or(limits.deadline, |st| Some(st.target)),
        ..RunLimits::default()
    };
    // A carried tree already has an answer: report it before the first batch, so that an
    // engine answering at a hard deadline has a searched move even when that batch is slow
    // (a loaded machine) and never falls back to a move without search.
    let mut stopped = false;
    if limits.snapshot_every.is_some() {
        let kept = s.result();
        if kept.best_move.is_some() && kept.root_visits > 1 {
            last_snapshot = Some(Instant::now());
            let mut t = thought_of(&s, banned, start, limits.multipv);
            // Its visits are the kept tree's; this search has run none yet.
            t.simulations = 0;
            stopped = callback(Event::Snapshot(&t), &mut run_limits.deadline) == Control::Stop;
        }
    }
    // Stopped at once: no batch, the tree is kept as it came.
    if !stopped {
        Driver::new().run(
            std::slice::from_mut(&mut s),
            eval,
            &mut run_limits,
            |p, run_limits| {
                let s = p.tree(0);
                if let (Some(st), Some(deadline)) = (steer, run_limits.deadline) {
                    let now = Instant::now();
                    let batch = now.saturating_duration_since(last_poll);
                    last_poll = now;
                    let r = s.result();
                    let open: Vec<(u32, f32)> = r
                        .children
                        .iter()
                        .filter(|c| c.proven != Some(Outcome::Loss))
                        .map(|c| (c.visits, c.q))
                        .collect();
                    let unsure = root_unsure(&open, r.simulations);
                    let elapsed = now.saturating_duration_since(start).as_secs_f64();
                    let rate = f64::from(r.simulations) / elapsed.max(1e-6);
                    let by_time = rate * deadline.saturating_duration_since(now).as_secs_f64();
                    let by_cap = limits
                        .budget
                        .simulations
                        .map_or(u32::MAX, |cap| cap.saturating_sub(r.simulations));
                    let left = (by_time.ceil() as u64).min(u64::from(by_cap));
                    if !unsure && root_decided(&open, left) {
                        steered = Some("search (decided before its time)");
                        return Control::Stop;
                    }
                    // The driver starts no batch it expects to end after the deadline: decide
                    // on more time while a batch or two still fit.
                    if unsure && deadline == st.target && now + batch * 3 >= deadline {
                        run_limits.deadline = Some(st.stretch.max(st.target));
                        steered = Some("search (unsure: given more time)");
                    }
                }
                // The engine may set a deadline (a ponder hit): the driver reads it next.
                let mut report = |event: Event<'_, G>| callback(event, &mut run_limits.deadline);
                if let Some(every) = limits.snapshot_every {
                    if last_snapshot.is_none_or(|t| t.elapsed() >= every) {
                        last_snapshot = Some(Instant::now());
                        let t = thought_of(s, banned, start, limits.multipv);
                        if report(Event::Snapshot(&t)) == Control::Stop {
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
                        if report(Event::Depth(&t)) == Control::Stop {
                            return Control::Stop;
                        }
                    }
                    if limits.depth.is_some_and(|want| d >= want as usize) {
                        return Control::Stop;
                    }
                }
                report(Event::Poll)
            },
        )?;
    }
    let mut t = thought_of(&s, banned, start, limits.multipv);
    if let (Some(why), "search") = (steered, t.reason) {
        t.reason = why;
    }
    if banned.is_empty() && game.outcome().is_none() {
        *tree = Some(s);
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alphazero_mcts::UniformEvaluator;
    use alphazero_xiangqi::{Move, Xiangqi, XiangqiConfig};

    fn limits(sims: u32, multipv: usize) -> ThinkLimits {
        ThinkLimits {
            budget: SearchBudget {
                seed: 5,
                ..SearchBudget::simulations(sims)
            },
            deadline: None,
            depth: None,
            snapshot_every: None,
            multipv,
            steer: None,
        }
    }

    #[test]
    fn a_root_is_unsure_while_young_or_close_and_decided_when_the_lead_exceeds_what_is_left() {
        // Young: too few simulations to tell.
        assert!(root_unsure(&[(20, 0.1), (1, 0.0)], 21));
        // Clear: the runner-up has under half the visits and no better Q.
        let clear = [(80, 0.30), (30, 0.25), (10, 0.60)];
        assert!(!root_unsure(&clear, 120));
        // Close in visits, or a well-visited move with a better Q.
        assert!(root_unsure(&[(80, 0.30), (40, 0.25)], 120));
        assert!(root_unsure(&[(80, 0.30), (20, 0.40)], 100));
        // A better Q on a quarter of the visits, but within 0.02: not unsure.
        assert!(!root_unsure(&[(80, 0.30), (20, 0.31)], 100));
        // Two equal leaders are unsure (the tie is not the best against itself).
        assert!(root_unsure(&[(50, 0.1), (50, 0.1)], 100));
        assert!(!root_unsure(&[], 100));
        // Decided: the lead of 50 cannot be caught in 49 simulations, but can in 50.
        assert!(root_decided(&clear, 49));
        assert!(!root_decided(&clear, 50));
        assert!(root_decided(&[(3, 0.0)], 2));
        assert!(!root_decided(&[], 0));
    }

    /// Policy logits 8 on `favourite`'s action and 0 elsewhere; value 0.
    struct Favours(usize);

    impl Evaluator<Xiangqi> for Favours {
        fn evaluate(
            &self,
            batch: &[EvalRequest<'_, Xiangqi>],
            policy_logits: &mut [f32],
            values: &mut [f32],
        ) -> Result<(), EvalError> {
            let a = batch.first().map_or(0, |r| r.position.num_actions());
            policy_logits.iter_mut().for_each(|l| *l = 0.0);
            for i in 0..batch.len() {
                policy_logits[i * a + self.0] = 8.0;
            }
            values.iter_mut().for_each(|v| *v = 0.0);
            Ok(())
        }
    }

    #[test]
    fn a_steered_search_stops_once_its_move_cannot_change_and_stretches_when_unsure() {
        let game = History::new(Xiangqi::start(XiangqiConfig::default()));
        let search = SearchConfig::default();
        let mut moves = Vec::new();
        game.current().legal_moves(&mut moves);
        let favourite = moves[3];
        let eval = Favours(game.current().move_to_action(favourite));
        let far = Duration::from_secs(600);
        let run = |eval: &dyn Evaluator<Xiangqi>, steer: Option<(Duration, Duration)>| {
            let start = Instant::now();
            let mut l = limits(3000, 1);
            l.steer = steer.map(|(t, s)| Steer {
                target: start + t,
                stretch: start + s,
            });
            think(&game, &[], eval, &search, &l, start, &mut None, |_, _| {
                Control::Continue
            })
            .unwrap()
        };
        // One move takes nearly every visit: steered, the search stops as soon as the rest
        // of the cap cannot catch it up; unsteered it runs the whole cap. Same move.
        let steered = run(&eval, Some((far, far)));
        let flat = run(&eval, None);
        assert_eq!(flat.simulations, 3000);
        assert!(steered.simulations < 3000, "{}", steered.simulations);
        assert_eq!(steered.reason, "search (decided before its time)");
        assert_eq!((steered.mv, flat.mv), (Some(favourite), Some(favourite)));
        let lead = |t: &Thought<Xiangqi>| {
            let mut n: Vec<u32> = t.children.iter().map(|c| c.1).collect();
            n.sort_unstable_by(|a, b| b.cmp(a));
            u64::from(n[0] - n.get(1).copied().unwrap_or(0))
        };
        assert!(lead(&steered) > u64::from(3000 - steered.simulations));
        // A target already past with a young (unsure) root: stretched to the cap.
        let unsure = run(&UniformEvaluator, Some((Duration::ZERO, far)));
        assert_eq!(unsure.reason, "search (unsure: given more time)");
        assert_eq!(unsure.simulations, 3000);
        // Unsteered with that deadline the driver stops after its first batch.
        let start = Instant::now();
        let mut l = limits(3000, 1);
        l.deadline = Some(start);
        let t = think(
            &game,
            &[],
            &UniformEvaluator,
            &search,
            &l,
            start,
            &mut None,
            |_, _| Control::Continue,
        )
        .unwrap();
        assert!(t.simulations < 100, "{}", t.simulations);
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
                &limits(300, multipv),
                Instant::now(),
                &mut None,
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

    #[test]
    fn a_kept_tree_is_carried_over_the_moves_played_and_only_to_its_own_game() {
        let game = History::new(Xiangqi::start(XiangqiConfig::default()));
        let search = SearchConfig::default();
        let mut moves = Vec::new();
        game.current().legal_moves(&mut moves);
        let eval = Favours(game.current().move_to_action(moves[3]));
        let go = |game: &History<Xiangqi>,
                  banned: &[Move],
                  search: &SearchConfig,
                  sims: u32,
                  tree: &mut Option<Search<Xiangqi>>| {
            think(
                game,
                banned,
                &eval,
                search,
                &limits(sims, 1),
                Instant::now(),
                tree,
                |_, _| Control::Continue,
            )
            .unwrap()
        };
        let mut tree = None;
        let first = go(&game, &[], &search, 400, &mut tree);
        assert!(tree.is_some());
        assert!(first.pv.len() >= 2, "{:?}", first.pv);
        // Our move and the reply the search expected: the reply's subtree is kept.
        let mut later = game.clone();
        later.play(first.pv[0]).unwrap();
        later.play(first.pv[1]).unwrap();
        let fresh = go(&later, &[], &search, 100, &mut None);
        assert_eq!((fresh.simulations, fresh.visits), (100, 101));
        let carried = go(&later, &[], &search, 100, &mut tree);
        assert_eq!(carried.simulations, 100);
        assert!(carried.visits > 101, "{}", carried.visits);
        // The tree now stands at `later`: not carried back to an earlier position.
        let back = go(&game, &[], &search, 100, &mut tree);
        assert_eq!(back.visits, 101);
        // A different search setting starts afresh.
        let mut other = search.clone();
        other.solver = !other.solver;
        let mut kept = None;
        go(&later, &[], &search, 100, &mut kept);
        assert_eq!(go(&later, &[], &other, 100, &mut kept).visits, 101);
        // Banned moves mask the root priors: no tree in, none out.
        let mut kept = None;
        go(&later, &[], &search, 100, &mut kept);
        let banned = go(&later, &first.pv[2..3], &search, 100, &mut kept);
        assert_eq!(banned.visits, 101);
        assert!(kept.is_none());
    }
}
