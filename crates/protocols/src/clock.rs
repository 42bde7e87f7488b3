//! The engines' clock: what one move may take, planned from what the protocol said (a turn
//! limit, a player's clock with its moves to go or its increment). Both engines translate
//! their commands into a [`TimeControl`] (the Gomocup brain from `INFO timeout_turn`,
//! `timeout_match` and `time_left`; the UCCI/UCI engine from `go movetime`, `time`, `wtime`,
//! `movestogo`, …) and play by the [`MovePlan`] it gives; neither keeps a time rule of its
//! own.

use std::time::{Duration, Instant};

use crate::think::Steer;
use crate::EngineConfig;

/// The least time between the hard deadline and the end of the turn: on a loaded 2-core
/// machine the thread waiting for the deadline was seen waking 20–31 ms late, so a 20 ms
/// margin answered a 500 ms turn in 501–511 ms (a loss under Gomocup rules).
const HARD_MARGIN: Duration = Duration::from_millis(50);

/// What the protocol said about the time of one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TimeControl {
    /// The most one move may take (Gomocup `timeout_turn`, UCI `movetime`); `None`: no limit
    /// per move.
    pub turn: Option<Duration>,
    /// The player's clock, when there is one (time saved on one move is there for the next).
    pub clock: Option<PlayerClock>,
}

/// A player's clock: the time left and how it is shared out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PlayerClock {
    /// Time left on the clock.
    pub left: Duration,
    /// The moves it is for.
    pub moves: MovesToGo,
}

/// The moves a player's clock is shared out over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MovesToGo {
    /// A Gomoku board with this many empty points: a game to its end, about half of them
    /// ours (10 to 40 moves).
    EmptyPoints(u32),
    /// UCI/UCCI `movestogo` (`None`: the rest of the game, sudden death) and the increment
    /// added after each move. With 1 move to go the clock is refilled after this move.
    Control {
        /// `movestogo`, when given.
        moves: Option<u64>,
        /// The increment per move.
        increment: Duration,
    },
}

impl MovesToGo {
    /// The move's share of `left`: the clock over the moves still to come (all of it for
    /// the last move before the clock is refilled, at most three quarters otherwise), or
    /// in sudden death a thirtieth and three quarters of the increment.
    fn share(self, left: Duration) -> Duration {
        match self {
            MovesToGo::EmptyPoints(empties) => left / (empties / 2).clamp(10, 40),
            // The last move before the clock is refilled (`go time T movestogo 1`, how
            // ElephantEye's match runners ask for T a move): all of it, less the safety
            // margin that `EngineConfig::usable` keeps back.
            MovesToGo::Control { moves: Some(1), .. } => left,
            MovesToGo::Control {
                moves: Some(m @ 2..),
                ..
            } => (left / m.min(u64::from(u32::MAX)) as u32).min(left * 3 / 4),
            MovesToGo::Control { increment, .. } => {
                (left / 30 + increment * 3 / 4).min(left * 3 / 4)
            }
        }
    }

    /// Whether the clock is refilled after this move (nothing saved is there for later).
    fn last(self) -> bool {
        matches!(self, MovesToGo::Control { moves: Some(1), .. })
    }
}

/// The time one move may take: `allotted` (the turn limit, or the move's share of the
/// clock) and `search`, the part the search aims at (`allotted` less the safety margin,
/// [`EngineConfig::usable`]). On a player's clock with [`EngineConfig::steer_time`],
/// `stretched` is the (allotted, search) pair of an unsure root ([`Steer`]). An engine that
/// must never be late answers at [`MovePlan::hard`] at the latest, with the search's best
/// move so far if it has not finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MovePlan {
    pub allotted: Duration,
    pub search: Duration,
    pub stretched: Option<(Duration, Duration)>,
}

impl TimeControl {
    /// The plan of one move.
    ///
    /// The turn limit (without one, and without a clock, [`EngineConfig::default_move_time`])
    /// capped by the move's share of the clock ([`MovesToGo`]). On a clock with
    /// [`EngineConfig::steer_time`], an unsure search may stretch to 3 such shares, at most a
    /// sixth of the time left and never past the turn limit; not on the last move before the
    /// clock is refilled.
    pub(crate) fn plan(&self, config: &EngineConfig) -> MovePlan {
        let Some(clock) = self.clock else {
            let b = self.turn.unwrap_or(config.default_move_time);
            return MovePlan {
                allotted: b,
                search: config.usable(b),
                stretched: None,
            };
        };
        let turn = self.turn.unwrap_or(Duration::MAX);
        let b = turn.min(clock.moves.share(clock.left));
        let stretched = (config.steer_time && !clock.moves.last()).then(|| {
            let most = turn.min(b * 3).min(clock.left / 6).max(b);
            (most, config.usable(most))
        });
        MovePlan {
            allotted: b,
            search: config.usable(b),
            stretched,
        }
    }
}

impl MovePlan {
    /// The hard deadline's distance from the command: the allotted time (stretched when the
    /// search may stretch) less 2 % (at least [`HARD_MARGIN`]), never before the search's.
    pub(crate) fn hard(&self) -> Duration {
        let (allotted, search) = self.stretched.unwrap_or((self.allotted, self.search));
        let margin = (allotted / 50).max(HARD_MARGIN);
        allotted.saturating_sub(margin).max(search)
    }

    /// One `k`-th of the plan (`k` ≥ 1), for one of `k` searches answering one command.
    pub(crate) fn share(&self, k: u32) -> MovePlan {
        let k = k.max(1);
        MovePlan {
            allotted: self.allotted / k,
            search: self.search / k,
            stretched: self.stretched.map(|(a, s)| (a / k, s / k)),
        }
    }

    /// The time steering of a search started at `received` ([`Steer`]), on a clock.
    pub(crate) fn steer(&self, received: Instant) -> Option<Steer> {
        self.stretched.map(|(_, s)| Steer {
            target: received + self.search,
            stretch: received + s.max(self.search),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    /// A Gomocup match clock on an empty 15×15 board (225 empty points).
    fn match_clock(turn: Option<u64>, left: u64) -> TimeControl {
        TimeControl {
            turn: turn.map(ms),
            clock: Some(PlayerClock {
                left: ms(left),
                moves: MovesToGo::EmptyPoints(225),
            }),
        }
    }

    /// A UCCI/UCI clock: `time` (or `wtime`/`btime`) with `movestogo` and no increment.
    fn go_time(left: u64, moves: Option<u64>) -> TimeControl {
        TimeControl {
            turn: None,
            clock: Some(PlayerClock {
                left: ms(left),
                moves: MovesToGo::Control {
                    moves,
                    increment: Duration::ZERO,
                },
            }),
        }
    }

    fn turn(t: Option<u64>) -> TimeControl {
        TimeControl {
            turn: t.map(ms),
            clock: None,
        }
    }

    fn search_ms(tc: TimeControl) -> u128 {
        tc.plan(&EngineConfig::default()).search.as_millis()
    }

    #[test]
    fn move_budget_follows_the_limits_with_a_margin() {
        assert_eq!(search_ms(turn(None)), 950);
        assert_eq!(search_ms(turn(Some(5000))), 4750);
        assert_eq!(search_ms(turn(Some(0))), 0);
        // 10 s left on an empty 15x15 board: 225 / 2 expected moves, clamped to 40 → 250 ms.
        assert_eq!(search_ms(match_clock(Some(5000), 10_000)), 200);
        assert_eq!(search_ms(match_clock(Some(5000), 0)), 0);
        // 60 s per match, no turn limit: 60000 / 40 moves = 1500 ms → 1425.
        assert_eq!(search_ms(match_clock(None, 60_000)), 1425);
        // 10 s left (after 50 s of thinking): 250 ms → 200; 5 s: 125 ms → 75.
        assert_eq!(search_ms(match_clock(None, 10_000)), 200);
        assert_eq!(search_ms(match_clock(Some(5000), 5000)), 75);
    }

    #[test]
    fn the_hard_deadline_lies_between_the_search_target_and_the_turn_limit() {
        let c = EngineConfig::default();
        let t = turn(Some(1000)).plan(&c);
        assert_eq!(t.search.as_millis(), 950);
        assert_eq!(t.hard().as_millis(), 950);
        // A long turn keeps 2 % (5000 ms: search 4750, answer by 4900).
        let t = turn(Some(5000)).plan(&c);
        assert_eq!((t.search.as_millis(), t.hard().as_millis()), (4750, 4900));
        let zero = MovePlan {
            allotted: Duration::ZERO,
            search: Duration::ZERO,
            stretched: None,
        };
        assert_eq!(zero.hard(), Duration::ZERO);
    }

    #[test]
    fn an_unsure_search_on_a_match_clock_may_take_three_shares_within_the_turn_and_a_sixth_of_the_clock(
    ) {
        let m = |d: Duration| d.as_millis();
        let stretched = |tc: TimeControl| {
            let t = tc.plan(&EngineConfig::default());
            t.stretched
                .map(|(a, s)| (m(t.search), m(a), m(s), m(t.hard())))
        };
        // 60 s a match: a share of 1500 ms (search 1425), up to 4500 (search 4275, answered
        // by 4410).
        assert_eq!(
            stretched(match_clock(Some(5000), 60_000)),
            Some((1425, 4500, 4275, 4410))
        );
        // Never past the turn limit.
        assert_eq!(
            stretched(match_clock(Some(2000), 60_000)),
            Some((1425, 2000, 1900, 1950))
        );
        // 10 s left: shares of 250 ms, 750 at most (a sixth of the clock would be 1666).
        assert_eq!(
            stretched(match_clock(Some(5000), 10_000)),
            Some((200, 750, 700, 700))
        );
        // No match clock (a turn limit alone), or steering off: nothing to stretch.
        assert_eq!(stretched(turn(Some(1000))), None);
        let off = EngineConfig {
            steer_time: false,
            ..EngineConfig::default()
        };
        let t = match_clock(None, 60_000).plan(&off);
        assert_eq!((m(t.search), t.stretched), (1425, None));
    }

    /// `go time 1000 movestogo 1` (a second a move, as match runners ask ElephantEye) used
    /// to get three quarters of the second: the clock is refilled after this move, so all of
    /// it but the safety margin is the move's; with more moves to go a share is kept back.
    #[test]
    fn the_last_move_before_the_time_control_gets_the_whole_clock() {
        assert_eq!(search_ms(go_time(1000, Some(1))), 950);
        assert_eq!(search_ms(go_time(10_000, Some(2))), 4750);
        assert_eq!(search_ms(go_time(10_000, Some(40))), 200);
        assert_eq!(search_ms(go_time(12_000, None)), 350);
    }

    #[test]
    fn an_unsure_search_on_a_players_clock_may_take_three_shares_and_at_most_a_sixth() {
        let plan = |steer_time: bool, tc: TimeControl| {
            let c = EngineConfig {
                steer_time,
                ..EngineConfig::default()
            };
            let p = tc.plan(&c);
            (
                p.allotted.as_millis(),
                p.stretched.map(|(most, _)| most.as_millis()),
            )
        };
        // Sudden death, 60 s: a thirtieth (2000 ms), up to three of them.
        assert_eq!(plan(true, go_time(60_000, None)), (2000, Some(6000)));
        // 40 moves in 10 s: 250 ms, up to 750.
        assert_eq!(plan(true, go_time(10_000, Some(40))), (250, Some(750)));
        // 2 moves in 10 s: 5000 ms, and no more than that (a sixth is 1666).
        assert_eq!(plan(true, go_time(10_000, Some(2))), (5000, Some(5000)));
        // The last move before the clock is refilled, a fixed move time, or steering off:
        // nothing to stretch.
        assert_eq!(plan(true, go_time(1000, Some(1))), (1000, None));
        assert_eq!(plan(true, turn(Some(700))), (700, None));
        assert_eq!(plan(false, go_time(60_000, None)), (2000, None));
        // An increment adds three quarters of itself to a thirtieth of the clock.
        let with_inc = TimeControl {
            turn: None,
            clock: Some(PlayerClock {
                left: ms(30_000),
                moves: MovesToGo::Control {
                    moves: None,
                    increment: ms(400),
                },
            }),
        };
        assert_eq!(plan(false, with_inc), (1300, None));
    }

    #[test]
    fn a_steered_search_aims_at_its_share_and_may_stretch_to_the_stretched_search_time() {
        let p = match_clock(Some(5000), 60_000).plan(&EngineConfig::default());
        let now = Instant::now();
        let s = p.steer(now).unwrap();
        assert_eq!((s.target - now, s.stretch - now), (ms(1425), ms(4275)));
        // A share for one of two searches (swap2) halves every part.
        let half = p.share(2);
        assert_eq!(
            (half.allotted, half.search, half.stretched),
            (
                ms(750),
                ms(712) + Duration::from_micros(500),
                Some((ms(2250), ms(2137) + Duration::from_micros(500)))
            )
        );
        assert_eq!(
            turn(Some(1000)).plan(&EngineConfig::default()).steer(now),
            None
        );
    }
}
