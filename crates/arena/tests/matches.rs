//! Games and matches: failure handling, ply cap, colour balance, determinism, records.

use alphazero_arena::matches::SideName;
use alphazero_arena::{
    play_game, random_opening, run_match, Entrant, GameRecord, Limits, MatchConfig, MatchError,
    MatchResult, MoveChoice, Pairing, Player, PlayerError, RandomPlayer, Termination,
};
use alphazero_connect4::{C4Move, Connect4, Connect4Config};
use alphazero_formats::{read_records, Format, MoveNotation};
use alphazero_game::{Game, History, Side};

/// Always answers column 1 (illegal once it is full).
struct FirstColumn;
impl Player<Connect4> for FirstColumn {
    fn name(&self) -> String {
        "first-column".into()
    }
    fn choose_move(
        &mut self,
        _: &History<Connect4>,
        _: &Limits,
    ) -> Result<MoveChoice<Connect4>, PlayerError> {
        Ok(MoveChoice {
            mv: C4Move(0),
            value: None,
            pv: vec![],
            info: String::new(),
        })
    }
}

/// Fails (error or panic) at its `after`-th move.
struct Broken {
    moves: u32,
    after: u32,
    panic: bool,
}
impl Player<Connect4> for Broken {
    fn name(&self) -> String {
        "broken".into()
    }
    fn choose_move(
        &mut self,
        g: &History<Connect4>,
        _: &Limits,
    ) -> Result<MoveChoice<Connect4>, PlayerError> {
        self.moves += 1;
        if self.moves > self.after {
            if self.panic {
                panic!("engine exploded");
            }
            return Err(PlayerError::Failed {
                player: "broken".into(),
                message: "pipe closed".into(),
            });
        }
        let mv = g.current().legal_moves_vec()[0];
        Ok(MoveChoice {
            mv,
            value: None,
            pv: vec![],
            info: String::new(),
        })
    }
}

#[test]
fn illegal_move_loses_the_game_and_is_reported() {
    let mut a = FirstColumn;
    let mut b = FirstColumn;
    let r = play_game(
        &mut a,
        &mut b,
        History::new(Connect4::default()),
        &Limits::default(),
        100,
    );
    // Six stones fill column 1 with alternating colours; the 7th move (first side) is illegal.
    assert_eq!(r.moves().len(), 6);
    assert_eq!(r.winner, Some(Side::Second));
    match &r.termination {
        Termination::Failure { side, message } => {
            assert_eq!(*side, SideName::First);
            assert!(
                message.contains("first-column") && message.contains('1'),
                "{message}"
            );
        }
        t => panic!("expected a failure, got {t:?}"),
    }
}

#[test]
fn player_error_and_panic_lose_the_game() {
    for panic in [false, true] {
        let mut a = RandomPlayer::new(1);
        let mut b = Broken {
            moves: 0,
            after: 2,
            panic,
        };
        let r = play_game(
            &mut a,
            &mut b,
            History::new(Connect4::default()),
            &Limits::default(),
            100,
        );
        assert_eq!(r.winner, Some(Side::First), "panic = {panic}");
        let Termination::Failure { side, message } = &r.termination else {
            panic!("expected a failure, got {:?}", r.termination);
        };
        assert_eq!(*side, SideName::Second);
        let expected = if panic {
            "engine exploded"
        } else {
            "pipe closed"
        };
        assert!(message.contains(expected), "{message}");
    }
}

#[test]
fn ply_cap_is_a_draw() {
    let mut a = RandomPlayer::new(1);
    let mut b = RandomPlayer::new(2);
    let r = play_game(
        &mut a,
        &mut b,
        History::new(Connect4::default()),
        &Limits::default(),
        3,
    );
    assert_eq!(r.moves().len(), 3);
    assert_eq!(r.winner, None);
    assert_eq!(r.termination, Termination::PlyCap);
    assert_eq!(r.result_text(), "1/2-1/2");
}

#[test]
fn finished_game_ends_by_the_rules() {
    let mut a = RandomPlayer::new(1);
    let mut b = RandomPlayer::new(2);
    let start = History::new(Connect4::from_moves("121212").expect("moves"));
    let r = play_game(&mut a, &mut b, start, &Limits::default(), 100);
    assert_eq!(r.termination, Termination::Rules);
    assert!(r.winner.is_some());
    assert_eq!(r.score(r.winner.expect("winner")), 1.0);
}

fn random_match(threads: usize, seed: u64) -> MatchResult {
    let mk = |name: &'static str| {
        Entrant::new(name, || {
            Box::new(RandomPlayer::new(0)) as Box<dyn Player<Connect4>>
        })
    };
    let mut m = MatchConfig::new(vec![mk("a"), mk("b"), mk("c")], Connect4::default());
    m.openings_per_pair = 3;
    m.opening_plies = 4;
    m.threads = threads;
    m.seed = seed;
    run_match(&m).expect("match")
}

/// The records without the time each side spent (a clock reading, different every run).
fn untimed(mut r: MatchResult) -> MatchResult {
    for g in &mut r.games {
        for t in &mut g.think {
            t.us = 0;
        }
    }
    r
}

#[test]
fn match_records_do_not_depend_on_thread_count() {
    let one = untimed(random_match(1, 9));
    let three = untimed(random_match(3, 9));
    assert_eq!(one, three);
    assert_ne!(one.games, random_match(1, 10).games);
}

#[test]
fn every_opening_is_played_with_both_colours() {
    let r = random_match(2, 1);
    // 3 pairs x 3 openings x 2 colours.
    assert_eq!(r.games.len(), 18);
    for g in &r.games {
        let twin: Vec<&GameRecord> = r
            .games
            .iter()
            .filter(|h| h.opening == g.opening && h.first == g.second && h.second == g.first)
            .collect();
        assert_eq!(twin.len(), 1);
        assert_eq!(twin[0].moves[..4], g.moves[..4]);
        assert_eq!(g.opening_plies, 4);
    }
    let stats = r.pair_stats();
    assert_eq!(stats.len(), 3);
    assert!(stats.iter().all(|p| p.wins + p.draws + p.losses == 6));
    let scores = r.scores();
    assert!(scores.iter().all(|&(_, n)| n == 12));
    assert!((scores.iter().map(|s| s.0).sum::<f64>() - 18.0).abs() < 1e-9);
    let ratings = r.ratings(0).expect("ratings");
    assert_eq!(ratings.players[0].elo, 0.0);
}

#[test]
fn results_round_trip_through_json_and_print_as_text() {
    let r = random_match(1, 3);
    let back: MatchResult = serde_json::from_str(&r.to_json()).expect("json");
    assert_eq!(back, r);
}

/// Regression: the PGN held the opening moves in `{…}` comments, so PGN readers
/// could not replay the games; now every move is a move, and the text reads back as the same
/// games.
#[test]
fn match_pgn_holds_the_openings_as_moves_and_reads_back_as_the_same_games() {
    let r = random_match(1, 3);
    let start = Connect4::default();
    let tags = [("Event", "test match".to_string())];
    let text = r
        .to_pgn(&start, MoveNotation::Iccs, &tags)
        .expect("the games replay");
    assert_eq!(text.matches("[Game \"connect4\"]").count(), r.games.len());
    let back = read_records::<Connect4>(&text, Format::Pgn, &Connect4Config).expect("PGN reads");
    assert_eq!(back.len(), r.games.len());
    for (g, b) in r.games.iter().zip(&back) {
        let mut pos = start;
        let moves: Vec<String> = b
            .history
            .moves()
            .iter()
            .map(|&m| {
                let t = pos.format_move(m);
                pos.play_unchecked(m);
                t
            })
            .collect();
        assert_eq!(moves, g.moves, "game {}", g.index);
        assert_eq!(b.opening_plies, g.opening_plies);
        assert_eq!(b.players, [g.first_name.clone(), g.second_name.clone()]);
        assert_eq!(b.result.pgn(), g.result);
        assert_eq!(b.tag("Round"), Some((g.index + 1).to_string().as_str()));
        assert_eq!(b.tag("Event"), Some("test match"));
    }
    assert!(!text.contains(&format!("{{{}}}", r.games[0].moves[0])));
    assert!(text.contains("{end of opening}"));
}

#[test]
fn bad_match_configs_are_rejected() {
    let mk = |name: &'static str| {
        Entrant::new(name, || {
            Box::new(RandomPlayer::new(0)) as Box<dyn Player<Connect4>>
        })
    };
    let m = MatchConfig::new(vec![mk("a")], Connect4::default());
    assert_eq!(
        run_match(&m).expect_err("one entrant"),
        MatchError::TooFewEntrants(1)
    );
    let mut m = MatchConfig::new(vec![mk("a"), mk("b")], Connect4::default());
    m.pairing = Pairing::Gauntlet { challenger: 5 };
    assert_eq!(
        run_match(&m).expect_err("bad index"),
        MatchError::BadChallenger {
            index: 5,
            entrants: 2
        }
    );
    assert_eq!(
        random_opening(&Connect4::default(), 43, 0).expect_err("too long"),
        MatchError::NoOpening { plies: 43 }
    );
}

#[test]
fn factory_panic_loses_the_game_without_stopping_the_match() {
    let good = Entrant::new("good", || {
        Box::new(RandomPlayer::new(0)) as Box<dyn Player<Connect4>>
    });
    let bad = Entrant::new("bad", || -> Box<dyn Player<Connect4>> {
        panic!("cannot load network")
    });
    let m = MatchConfig::new(vec![good, bad], Connect4::default());
    let r = run_match(&m).expect("match");
    assert_eq!(r.games.len(), 2);
    assert!(r.games.iter().all(|g| g.winner == Some(0)));
    assert!(r.games.iter().all(|g| matches!(&g.termination, Termination::Failure { message, .. } if message.contains("cannot load network"))));
}
