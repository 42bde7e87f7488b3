//! Search entrants played with batched evaluation: every game of a match runs at once on the
//! calling thread, and each round the leaves of all the games where an entrant is to move go
//! to that entrant's evaluator in **one** call (what keeps a network busy in gating).
//!
//! Each game is the one [`MctsPlayer`](crate::MctsPlayer) would play with the same seeds: a
//! side's tree is built from the game's history at its first move, kept and advanced through
//! every move (rebuilt when it cannot be), searched `simulations` simulations (the match's
//! [`Limits::simulations`](crate::Limits) when set) without root noise, and its best move
//! played. A search that fails (invalid config, evaluator error, no move) loses the game for
//! its side ([`Termination::Failure`]), as a failing player does.

use alphazero_game::{Game, History, Side};
use alphazero_mcts::{Driver, Search, SearchBudget};

use crate::matches::{player_seed, BatchedSearch, MatchConfig, Scheduled, Termination};

/// How a game of a batched match ended: the winner (`None` for a draw), why, and the game.
pub(crate) struct Finished<G: Game> {
    pub(crate) index: usize,
    pub(crate) winner: Option<Side>,
    pub(crate) termination: Termination,
    pub(crate) history: History<G>,
}

/// One game under way.
struct Slot<G: Game> {
    /// Index in the match schedule.
    index: usize,
    /// Entrant index of the first and of the second side.
    entrants: [usize; 2],
    history: History<G>,
    /// Each side's tree (`None` before its first move, or after it could not be advanced).
    trees: [Option<Search<G>>; 2],
    /// Whether the side to move has begun its search of this move.
    searching: bool,
    /// A side's search failed: that side and what went wrong.
    failed: Option<(Side, String)>,
}

fn side_index(side: Side) -> usize {
    usize::from(side == Side::Second)
}

impl<G: Game> Slot<G> {
    fn mover(&self) -> Side {
        self.history.current().side_to_move()
    }

    fn mover_entrant(&self) -> usize {
        self.entrants[side_index(self.mover())]
    }

    fn mover_tree(&mut self) -> Option<&mut Search<G>> {
        let i = side_index(self.mover());
        self.trees[i].as_mut()
    }

    /// Ends the game (returns how) or makes sure the side to move is searching.
    fn prepare(
        &mut self,
        config: &MatchConfig<G>,
        searches: &[&BatchedSearch<G>],
    ) -> Option<(Option<Side>, Termination)> {
        if let Some((side, message)) = self.failed.take() {
            let side_name = side.into();
            return Some((
                Some(side.opponent()),
                Termination::Failure {
                    side: side_name,
                    message,
                },
            ));
        }
        if let Some(o) = self.history.outcome() {
            return Some((o.winner(self.mover()), Termination::Rules));
        }
        if self.history.len() as u64 >= u64::from(config.max_plies) {
            return Some((None, Termination::PlyCap));
        }
        if self.searching {
            return None;
        }
        let side = self.mover();
        let i = side_index(side);
        let entrant = self.entrants[i];
        let search = searches[entrant];
        let budget = SearchBudget {
            simulations: Some(
                config
                    .limits
                    .simulations
                    .map_or(search.simulations, |s| s.max(1)),
            ),
            root_noise: false,
            seed: player_seed(config.seed, self.index, side),
        };
        let built = match self.trees[i].take() {
            Some(mut t) => t.set_budget(budget).map(|()| t),
            None => Search::from_history(&self.history, search.config.clone(), budget),
        };
        match built {
            Ok(mut t) => {
                t.begin_run();
                self.trees[i] = Some(t);
                self.searching = true;
                None
            }
            Err(e) => {
                let name = &config.entrants[entrant].name;
                self.failed = Some((side, format!("{name}: {e}")));
                self.prepare(config, searches)
            }
        }
    }

    /// Plays the best move of the side to move's finished search.
    fn play_best(&mut self, config: &MatchConfig<G>) {
        let side = self.mover();
        let name = &config.entrants[self.mover_entrant()].name;
        self.searching = false;
        let Some(tree) = self.mover_tree() else {
            return;
        };
        let Some(mv) = tree.result().best_move else {
            let message = format!("{name}: the search found no move (position is over)");
            self.failed = Some((side, message));
            return;
        };
        if let Err(e) = self.history.play(mv) {
            let text = self.history.current().format_move(mv);
            let message = format!("{name}: illegal or unparsable move {text:?}: {}", e.reason);
            self.failed = Some((side, message));
            return;
        }
        for tree in &mut self.trees {
            let kept = tree.take().and_then(|mut t| {
                (t.advance(mv).is_ok() && t.root_position() == self.history.current()).then_some(t)
            });
            *tree = kept;
        }
    }
}

/// Plays every game of `schedule` (with its `openings`) at once between entrants whose
/// batched searches are `searches` (by entrant index), calling `done` with each game as it
/// ends.
pub(crate) fn play_batched<G: Game>(
    config: &MatchConfig<G>,
    openings: &[History<G>],
    schedule: &[Scheduled],
    searches: &[&BatchedSearch<G>],
    mut done: impl FnMut(Finished<G>),
) {
    let mut slots: Vec<Slot<G>> = schedule
        .iter()
        .enumerate()
        .map(|(index, s)| Slot {
            index,
            entrants: [s.first, s.second],
            history: openings[s.opening].clone(),
            trees: [None, None],
            searching: false,
            failed: None,
        })
        .collect();
    let mut driver = Driver::new();
    while !slots.is_empty() {
        let mut open = Vec::with_capacity(slots.len());
        for mut slot in slots {
            match slot.prepare(config, searches) {
                None => open.push(slot),
                Some((winner, termination)) => done(Finished {
                    index: slot.index,
                    winner,
                    termination,
                    history: slot.history,
                }),
            }
        }
        slots = open;
        for (entrant, search) in searches.iter().enumerate() {
            let mut movers: Vec<&mut Slot<G>> = slots
                .iter_mut()
                .filter(|s| s.mover_entrant() == entrant)
                .collect();
            if movers.is_empty() {
                continue;
            }
            let mut trees: Vec<&mut Search<G>> =
                movers.iter_mut().filter_map(|s| s.mover_tree()).collect();
            if let Err(e) = driver.round(&mut trees, &*search.evaluator) {
                let name = &config.entrants[entrant].name;
                for s in movers {
                    s.failed = Some((s.mover(), format!("{name}: {e}")));
                }
            }
        }
        for s in &mut slots {
            if s.failed.is_none() && s.mover_tree().is_some_and(|t| t.is_done()) {
                s.play_best(config);
            }
        }
    }
}
