use super::*;
use crate::record::{GameFlags, GameResult, PlyRecord, RecordHeader};
use alphazero_registry::games::{Connect4, Connect4Config};
use rand::rngs::StdRng;
use rand::SeedableRng;

/// A Connect Four game record from 0-based columns; π puts 0.75 on the played column and
/// 0.25 on column 0 (or all on it when it is column 0); `fast` plies get 0 simulations.
fn c4_game(cols: &[u16], result: GameResult, fast: &[usize]) -> GameRecord {
    GameRecord {
        start: String::new(),
        result,
        flags: GameFlags::default(),
        prefix: Vec::new(),
        plies: cols
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let policy: Vec<(u16, f32)> = if c == 0 {
                    vec![(0, 1.0)]
                } else {
                    vec![(c, 0.75), (0, 0.25)]
                };
                let sims = if fast.contains(&i) { 0 } else { 100 };
                PlyRecord::new(c, &policy, 0.0, sims)
            })
            .collect(),
    }
}

fn start() -> Connect4 {
    Connect4::new(&Connect4Config)
}

#[test]
fn value_target_mixes_z_with_the_root_value_from_the_same_side() {
    let mut buf = ReplayBuffer::new(100);
    let mut g = c4_game(&[0, 1, 0, 1, 0, 1, 0], GameResult::FirstWon, &[]);
    for (i, p) in g.plies.iter_mut().enumerate() {
        // The search's root value, from the side to move: the winner's positions +0.5.
        p.root_value = if i % 2 == 0 { 0.5 } else { -0.5 };
    }
    buf.add_game(start(), &g, 1).unwrap();
    for s in buf.iter() {
        assert_eq!(s.value_target(0.0), s.z);
        assert_eq!(s.value_target(1.0), s.root_value);
        let want = 0.5 * s.z + 0.5 * s.root_value;
        assert!((s.value_target(0.5) - want).abs() < 1e-6, "ply {}", s.ply);
        // Same sign as z here: both say the first player wins.
        assert_eq!(s.value_target(0.5).signum(), s.z.signum());
    }
    let mut odd = buf.get(0).unwrap().clone();
    odd.root_value = f32::NAN;
    assert_eq!(odd.value_target(0.5), odd.z);
}

#[test]
fn truncated_game_samples_have_the_root_value_target_not_a_draw() {
    let mut g = c4_game(&[0, 1, 2, 3, 4, 5], GameResult::Draw, &[]);
    g.flags.truncated = true;
    for (i, p) in g.plies.iter_mut().enumerate() {
        p.root_value = if i % 2 == 0 { 0.6 } else { -0.6 };
    }
    let mut buf = ReplayBuffer::new(100);
    buf.add_game(start(), &g, 4).unwrap();
    assert_eq!(buf.len(), 6);
    for s in buf.iter() {
        assert!(s.truncated);
        assert_eq!(s.z, 0.0);
        for lambda in [0.0, 0.5, 1.0] {
            assert_eq!(s.value_target(lambda), s.root_value, "ply {}", s.ply);
        }
    }
    // The same moves as a genuine draw keep z for λ = 0.
    g.flags.truncated = false;
    let mut buf = ReplayBuffer::new(100);
    buf.add_game(start(), &g, 5).unwrap();
    assert!(buf
        .iter()
        .all(|s| !s.truncated && s.value_target(0.0) == 0.0));
}

#[test]
fn ring_keeps_the_newest_capacity_positions() {
    let mut buf = ReplayBuffer::new(5);
    let n = buf
        .add_game(
            start(),
            &c4_game(&[0, 1, 2, 3, 4, 5, 6, 0], GameResult::Draw, &[]),
            7,
        )
        .unwrap();
    assert_eq!((n, buf.len(), buf.total_added()), (8, 5, 8));
    let plies: Vec<u32> = buf.iter().map(|s| s.ply).collect();
    assert_eq!(plies, vec![3, 4, 5, 6, 7]);
    assert_eq!(buf.get(0).unwrap().ply, 7);
    assert_eq!(buf.get(4).unwrap().ply, 3);
    assert!(buf.get(5).is_none());
    assert!(buf.iter().all(|s| s.game_id == 7));
}

#[test]
fn z_is_from_the_side_to_move_and_fast_plies_are_skipped() {
    let mut buf = ReplayBuffer::new(100);
    // First player plays column 0 four times and wins.
    let g = c4_game(&[0, 1, 0, 1, 0, 1, 0], GameResult::FirstWon, &[2]);
    assert_eq!(buf.add_game(start(), &g, 1).unwrap(), 6);
    for s in buf.iter() {
        assert_ne!(s.ply, 2);
        let expected = if s.ply % 2 == 0 { 1.0 } else { -1.0 };
        assert_eq!(s.z, expected, "ply {}", s.ply);
    }
    let mut buf = ReplayBuffer::new(100);
    buf.add_game(start(), &c4_game(&[3, 3], GameResult::SecondWon, &[]), 2)
        .unwrap();
    let z: Vec<f32> = buf.iter().map(|s| s.z).collect();
    assert_eq!(z, vec![-1.0, 1.0]);
}

#[test]
fn illegal_recorded_move_rejects_the_whole_game() {
    let mut buf = ReplayBuffer::new(100);
    // Column 0 holds six stones; the seventh drop is illegal.
    let g = c4_game(&[0, 0, 0, 0, 0, 0, 0], GameResult::Draw, &[]);
    match buf.add_game(start(), &g, 9) {
        Err(ReplayError::IllegalAction {
            game_id: 9,
            ply,
            action: 0,
            ..
        }) => assert_eq!(ply, 6),
        other => panic!("{other:?}"),
    }
    assert!(buf.is_empty());
    let mut bad = c4_game(&[3], GameResult::Draw, &[]);
    bad.plies[0].policy.push((7, 1));
    assert!(matches!(
        buf.add_game(start(), &bad, 3),
        Err(ReplayError::PolicyAction { action: 7, .. })
    ));
}

#[test]
fn symmetry_moves_position_and_policy_together() {
    let mut buf = ReplayBuffer::new(100);
    buf.add_game(start(), &c4_game(&[1, 2, 5], GameResult::Draw, &[]), 1)
        .unwrap();
    let mut rng = StdRng::seed_from_u64(7);
    let opts = SampleOptions::default();
    let batch = buf.sample_batch(200, &mut rng, &opts);
    let mut seen = [false; 2];
    for b in &batch {
        seen[b.symmetry] = true;
        let original = buf.get(b.age).unwrap();
        assert_eq!(b.sample.position, original.position.transform(b.symmetry));
        let legal: Vec<usize> = b
            .sample
            .position
            .legal_moves_vec()
            .into_iter()
            .map(|m| b.sample.position.move_to_action(m))
            .collect();
        for (&(a, p), &(oa, op)) in b.sample.policy.iter().zip(&original.policy) {
            assert_eq!(p, op);
            let expected = if b.symmetry == 1 { 6 - oa } else { oa };
            assert_eq!(a, expected);
            assert!(legal.contains(&usize::from(a)));
        }
        // The played move's column carries 0.75 and is mirrored with the board.
        let played = original.policy[0].0;
        if b.symmetry == 1 {
            assert_eq!(b.sample.policy[0], (6 - played, original.policy[0].1));
        }
    }
    assert!(seen[0] && seen[1]);
}

#[test]
fn reply_target_is_the_next_recorded_move_and_moves_with_the_symmetry() {
    let mut buf = ReplayBuffer::new(100);
    // The second ply is a fast playout-cap move: no sample, but still the first one's
    // reply.
    buf.add_game(start(), &c4_game(&[1, 2, 5, 0], GameResult::Draw, &[1]), 1)
        .unwrap();
    let replies: Vec<(u32, Option<u16>)> = buf.iter().map(|s| (s.ply, s.reply_action())).collect();
    assert_eq!(replies, vec![(0, Some(2)), (2, Some(0)), (3, None)]);
    let batch = buf.sample_batch(
        100,
        &mut StdRng::seed_from_u64(3),
        &SampleOptions::default(),
    );
    let mut seen = [false; 2];
    for b in &batch {
        seen[b.symmetry] = true;
        let want = buf.get(b.age).unwrap().reply_action();
        let want = want.map(|a| if b.symmetry == 1 { 6 - a } else { a });
        assert_eq!(
            b.reply, want,
            "ply {} symmetry {}",
            b.sample.ply, b.symmetry
        );
    }
    assert!(seen[0] && seen[1]);
}

#[test]
fn ownership_target_lies_on_the_drawn_planes() {
    use alphazero_registry::Encode;
    let mut buf = ReplayBuffer::new(100);
    // An asymmetric game, so that the mirror changes the map.
    buf.add_game(
        start(),
        &c4_game(&[0, 0, 1, 2, 1, 6, 1], GameResult::SecondWon, &[]),
        1,
    )
    .unwrap();
    let batch = buf.sample_batch(60, &mut StdRng::seed_from_u64(9), &SampleOptions::default());
    let (mut map, mut planes) = (vec![0f32; 42], vec![0f32; 84]);
    let mut mirrored_differs = false;
    for b in &batch {
        buf.ownership(b, &mut map);
        let s = &b.sample;
        // Connect Four's map is the final board seen from the side to move: the drawn
        // position's own discs (plane 0) are +1, the opponent's (plane 1) −1.
        s.position.encode(0, &mut planes);
        for p in 0..42 {
            if planes[p] == 1.0 {
                assert_eq!(map[p], 1.0, "own disc at {p}, symmetry {}", b.symmetry);
            }
            if planes[42 + p] == 1.0 {
                assert_eq!(map[p], -1.0, "opponent disc at {p}");
            }
        }
        let mut want = vec![0f32; 42];
        s.position
            .ownership(&[], &s.line.end.transform(b.symmetry), &mut want);
        assert_eq!(map, want, "ply {} symmetry {}", s.ply, b.symmetry);
        assert_eq!(map.iter().filter(|&&v| v != 0.0).count(), 7);
        if b.symmetry == 1 {
            let original = buf.get(b.age).unwrap();
            let mut unmirrored = vec![0f32; 42];
            original.position.ownership(
                original.continuation(),
                &original.line.end,
                &mut unmirrored,
            );
            mirrored_differs |= unmirrored != map;
        }
    }
    assert!(mirrored_differs);
}

#[test]
fn sampling_is_deterministic_for_a_seed() {
    let mut buf = ReplayBuffer::new(50);
    for id in 0..5 {
        buf.add_game(
            start(),
            &c4_game(&[3, 2, 4, 1, 5], GameResult::Draw, &[]),
            id,
        )
        .unwrap();
    }
    let opts = SampleOptions {
        recent_fraction: 0.25,
        recent_window: 5,
        ..SampleOptions::default()
    };
    let a = buf.sample_batch(64, &mut StdRng::seed_from_u64(42), &opts);
    let b = buf.sample_batch(64, &mut StdRng::seed_from_u64(42), &opts);
    let c = buf.sample_batch(64, &mut StdRng::seed_from_u64(43), &opts);
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert!(ReplayBuffer::<Connect4>::new(3)
        .sample_batch(4, &mut StdRng::seed_from_u64(1), &opts)
        .is_empty());
}

#[test]
fn recent_part_draws_only_from_the_window() {
    let mut buf = ReplayBuffer::new(100);
    for id in 0..10 {
        buf.add_game(start(), &c4_game(&[3, 3, 3], GameResult::Draw, &[]), id)
            .unwrap();
    }
    let opts = SampleOptions {
        recent_fraction: 0.5,
        recent_window: 3,
        symmetries: false,
        ..SampleOptions::default()
    };
    let batch = buf.sample_batch(100, &mut StdRng::seed_from_u64(5), &opts);
    assert!(batch[..50]
        .iter()
        .all(|b| b.age < 3 && b.sample.game_id == 9));
    assert!(batch[50..].iter().any(|b| b.age >= 3));
    assert!(batch.iter().all(|b| b.symmetry == 0));
}

#[test]
fn hard_mining_oversamples_threat_positions() {
    let mut buf = ReplayBuffer::new(100);
    let mut g = c4_game(&[0, 1, 2, 3, 4, 5, 6, 0, 1, 2], GameResult::Draw, &[]);
    g.plies[4].threat = true;
    buf.add_game(start(), &g, 0).unwrap();
    let count = |hard| {
        let opts = SampleOptions {
            hard_mining: hard,
            threat_weight: 4.0,
            ..SampleOptions::default()
        };
        buf.sample_batch(4000, &mut StdRng::seed_from_u64(11), &opts)
            .iter()
            .filter(|b| b.sample.threat)
            .count() as f64
            / 4000.0
    };
    let (plain, hard) = (count(false), count(true));
    // Expected 1/10 without and 4/13 ≈ 0.31 with mining.
    assert!((plain - 0.1).abs() < 0.03, "{plain}");
    assert!((hard - 4.0 / 13.0).abs() < 0.04, "{hard}");
}

#[test]
fn rebuild_from_records_matches_incremental_adds() {
    let games = vec![
        c4_game(&[3, 3, 2], GameResult::Draw, &[]),
        c4_game(&[0, 1, 2, 3], GameResult::FirstWon, &[1]),
    ];
    let file = RecordFile {
        header: RecordHeader {
            game: "connect4".into(),
            config: String::new(),
            num_actions: 7,
            first_game_id: 10,
        },
        games: games.clone(),
    };
    let rebuilt =
        ReplayBuffer::rebuild_from(&[file], 4, &Connect4::new(&Default::default())).unwrap();
    let mut inc = ReplayBuffer::new(4);
    inc.add_game(start(), &games[0], 10).unwrap();
    inc.add_game(start(), &games[1], 11).unwrap();
    let a: Vec<_> = rebuilt.iter().cloned().collect();
    let b: Vec<_> = inc.iter().cloned().collect();
    assert_eq!(a, b);
    assert_eq!(a.len(), 4);
    assert_eq!(a[0].game_id, 10);
}

mod walk {
    //! A tiny test game with reversible moves (so positions repeat): a token on cells
    //! 0..=6 moves one step left or right; no one wins, the game is drawn at ply 12.
    use alphazero_game::{Game, Outcome, ParseError, Side};
    use std::fmt;

    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct Walk {
        pub x: u8,
        pub ply: u32,
    }

    impl fmt::Display for Walk {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "x={} ply={}", self.x, self.ply)
        }
    }

    impl Game for Walk {
        type Move = u8;
        type Config = ();
        const NAME: &'static str = "walk";
        fn new(_: &()) -> Self {
            Walk { x: 3, ply: 0 }
        }
        fn config(&self) -> &() {
            &()
        }
        fn side_to_move(&self) -> Side {
            if self.ply.is_multiple_of(2) {
                Side::First
            } else {
                Side::Second
            }
        }
        fn ply(&self) -> u32 {
            self.ply
        }
        fn legal_moves(&self, out: &mut Vec<u8>) {
            out.clear();
            if self.ply >= 12 {
                return;
            }
            if self.x > 0 {
                out.push(self.x - 1);
            }
            if self.x < 6 {
                out.push(self.x + 1);
            }
        }
        fn play_unchecked(&mut self, mv: u8) {
            self.x = mv;
            self.ply += 1;
        }
        fn outcome(&self) -> Option<Outcome> {
            (self.ply >= 12).then_some(Outcome::Draw)
        }
        fn is_irreversible(&self, _: u8) -> bool {
            false
        }
        fn zobrist(&self) -> u64 {
            u64::from(self.x) * 2 + self.ply as u64 % 2 + 1
        }
        fn zobrist_from_scratch(&self) -> u64 {
            self.zobrist()
        }
        fn num_actions(&self) -> usize {
            7
        }
        fn move_to_action(&self, mv: u8) -> usize {
            mv as usize
        }
        fn action_to_move(&self, a: usize) -> Option<u8> {
            (a < 7).then_some(a as u8)
        }
        fn num_symmetries(&self) -> usize {
            2
        }
        fn transform_action(&self, sym: usize, a: usize) -> usize {
            if sym == 1 {
                6 - a
            } else {
                a
            }
        }
        fn transform(&self, sym: usize) -> Self {
            Walk {
                x: if sym == 1 { 6 - self.x } else { self.x },
                ply: self.ply,
            }
        }
        fn parse_move(&self, text: &str) -> Result<u8, ParseError> {
            text.parse()
                .map_err(|_| ParseError::new("move", text, "not a cell"))
        }
        fn board_shape(&self) -> (usize, usize) {
            (1, 7)
        }
    }
}

#[test]
fn a_restarted_game_trains_only_its_own_plies_with_its_own_result() {
    // Restarted after the earlier game's first three moves (columns 0, 1, 0); this game
    // (five plies of its own) was won by the second player.
    let mut g = c4_game(&[3, 4, 5, 6, 2], GameResult::SecondWon, &[]);
    g.prefix = vec![0, 1, 0];
    let mut buf = ReplayBuffer::new(100);
    assert_eq!(buf.add_game(start(), &g, 5).unwrap(), 5);
    let samples: Vec<&Sample<Connect4>> = buf.iter().collect();
    // The first sample is the position after the prefix, second player to move.
    assert_eq!(samples[0].position, Connect4::from_moves("121").unwrap());
    assert_eq!(samples[0].ply, 3);
    // Its game line is its own plies: the reply and the continuation start there.
    assert_eq!(samples[0].reply_action(), Some(4));
    assert_eq!(samples[0].continuation().len(), 5);
    assert_eq!(
        samples[0].line.end,
        Connect4::from_moves("12145673").unwrap()
    );
    for s in &samples {
        // z from this game's result (second player won), from the side to move.
        let want = if s.ply % 2 == 1 { 1.0 } else { -1.0 };
        assert_eq!(s.z, want, "ply {}", s.ply);
    }
    // An illegal prefix move names its ply from the start position.
    let mut bad = c4_game(&[3], GameResult::Draw, &[]);
    bad.prefix = vec![0; 7];
    match buf.add_game(start(), &bad, 6) {
        Err(ReplayError::IllegalAction {
            ply: 6, action: 0, ..
        }) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_restarted_games_repetitions_count_the_prefix_positions() {
    use walk::Walk;
    // Prefix 3 → 4 → 3: the restart position (x 3, first to move) already occurred twice.
    let g = GameRecord {
        start: String::new(),
        result: GameResult::Draw,
        flags: GameFlags::default(),
        prefix: vec![4, 3, 4, 3],
        plies: [4u16, 3]
            .iter()
            .map(|&a| PlyRecord::new(a, &[(a, 1.0)], 0.0, 10))
            .collect(),
    };
    let mut buf = ReplayBuffer::new(10);
    buf.add_game(Walk::new(&()), &g, 0).unwrap();
    let got: Vec<(u32, u8)> = buf.iter().map(|s| (s.ply, s.repetitions)).collect();
    assert_eq!(got, vec![(4, 2), (5, 2)]);
}

/// The restart positions of `buf` as move lists.
fn restarts(buf: &ReplayBuffer<Connect4>, rule: RestartRule, window: usize) -> Vec<Vec<u16>> {
    let p = buf.restart_positions(rule, window);
    (0..p.len()).map(|i| p.get(i).unwrap().to_vec()).collect()
}

#[test]
fn defend_picks_the_losers_last_turns_and_threats_uniform_picks_every_position() {
    let mut buf = ReplayBuffer::new(100);
    // Game 1: the first player wins at ply 7 (column 0 four times); the second player,
    // who lost, was to move at plies 1, 3, 5.
    buf.add_game(
        start(),
        &c4_game(&[0, 1, 0, 1, 0, 1, 0], GameResult::FirstWon, &[]),
        1,
    )
    .unwrap();
    // Game 2: a draw with a threat marked at its ply 2, and a fast ply (still a position).
    let mut draw = c4_game(&[3, 3, 2, 2], GameResult::Draw, &[1]);
    draw.plies[2].threat = true;
    buf.add_game(start(), &draw, 2).unwrap();
    // Game 3: cut at the ply limit: no loser.
    let mut cut = c4_game(&[4, 4, 5], GameResult::Draw, &[]);
    cut.flags.truncated = true;
    buf.add_game(start(), &cut, 3).unwrap();
    // Game 4: restarted after 6, 6 (columns); the second player wins by resignation
    // after four plies of its own; the first player (to move at own plies 0 and 2) lost.
    let mut resigned = c4_game(&[2, 5, 2, 5], GameResult::SecondWon, &[]);
    resigned.prefix = vec![6, 6];
    resigned.flags.resigned = true;
    buf.add_game(start(), &resigned, 4).unwrap();
    let line1 = [0u16, 1, 0, 1, 0, 1, 0];
    let defend = restarts(&buf, RestartRule::Defend, 4);
    assert_eq!(
        defend,
        vec![
            // Game 1's last four positions are plies 3..=6; the loser moved at 3 and 5.
            line1[..3].to_vec(),
            line1[..5].to_vec(),
            vec![3, 3],
            // Game 4: own plies 0 and 2 (from the start: 2 and 4), never its prefix.
            vec![6, 6],
            vec![6, 6, 2, 5],
        ]
    );
    // A window of 1: the last position of games 1 and 4 was the winner's turn, so only
    // the threat is left.
    assert_eq!(restarts(&buf, RestartRule::Defend, 1), vec![vec![3, 3]]);
    let uniform = restarts(&buf, RestartRule::Uniform, 4);
    // Every position but the start: 6 + 3 + 2 of games 1–3, all 4 own ones of game 4.
    assert_eq!(uniform.len(), 6 + 3 + 2 + 4);
    assert!(uniform.iter().all(|p| !p.is_empty()));
    assert!(
        !uniform.contains(&vec![6]),
        "a prefix position is the earlier game's"
    );
}

#[test]
fn restart_positions_follow_the_games_still_in_the_buffer() {
    let mut buf = ReplayBuffer::new(6);
    let won = || c4_game(&[0, 1, 0, 1, 0, 1, 0], GameResult::FirstWon, &[]);
    buf.add_game(start(), &won(), 1).unwrap();
    assert_eq!(buf.games(), 1);
    // The next game pushes every sample of the first out: its moves go with them.
    buf.add_game(
        start(),
        &c4_game(&[3, 3, 3, 3, 3, 3], GameResult::Draw, &[]),
        2,
    )
    .unwrap();
    assert_eq!(buf.games(), 1);
    assert_eq!(restarts(&buf, RestartRule::Uniform, 4).len(), 5);
    assert!(restarts(&buf, RestartRule::Defend, 4).is_empty());
    // Partly overwritten games stay while one of their samples is left.
    buf.add_game(start(), &c4_game(&[2, 2], GameResult::Draw, &[]), 3)
        .unwrap();
    assert_eq!(buf.games(), 2);
    // A rebuilt buffer keeps the same games.
    let file = RecordFile {
        header: RecordHeader {
            game: "connect4".into(),
            config: String::new(),
            num_actions: 7,
            first_game_id: 1,
        },
        games: vec![
            won(),
            c4_game(&[3, 3, 3, 3, 3, 3], GameResult::Draw, &[]),
            c4_game(&[2, 2], GameResult::Draw, &[]),
        ],
    };
    let rebuilt = ReplayBuffer::rebuild_from(&[file], 6, &start()).unwrap();
    assert_eq!(
        restarts(&rebuilt, RestartRule::Uniform, 4),
        restarts(&buf, RestartRule::Uniform, 4)
    );
}

#[test]
fn repetitions_are_counted_from_the_game_history() {
    use walk::Walk;
    // 3 → 4 → 3 → 4 → 3: positions (x, side) repeat every two plies.
    let g = GameRecord {
        start: String::new(),
        result: GameResult::Draw,
        flags: GameFlags::default(),
        prefix: Vec::new(),
        plies: [4u16, 3, 4, 3, 2]
            .iter()
            .map(|&a| PlyRecord::new(a, &[(a, 1.0)], 0.0, 10))
            .collect(),
    };
    let mut buf = ReplayBuffer::new(10);
    buf.add_game(Walk::new(&()), &g, 0).unwrap();
    let reps: Vec<u8> = buf.iter().map(|s| s.repetitions).collect();
    assert_eq!(reps, vec![0, 0, 1, 1, 2]);
}
