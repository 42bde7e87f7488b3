//! Rule unit tests on small hand-made positions.

use alphazero_game::{Game, History, Outcome, Side};
use alphazero_xiangqi::{
    Move, Piece, PieceKind, RepetitionVerdict, Square, Xiangqi, XiangqiConfig, NUM_ACTIONS,
};

fn pos(fen: &str) -> Xiangqi {
    Xiangqi::from_fen(fen, XiangqiConfig::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn mv(s: &str) -> Move {
    s.parse().unwrap_or_else(|e| panic!("{e}"))
}

/// Legal moves starting on `from`, as sorted ICCS strings.
fn moves_from(p: &Xiangqi, from: &str) -> Vec<String> {
    let from = Square::parse(from).expect("square");
    let mut v: Vec<String> = p
        .legal_moves_vec()
        .into_iter()
        .filter(|m| m.from == from)
        .map(|m| m.to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn start_position_has_44_moves_and_standard_fen() {
    let p = Xiangqi::new(&XiangqiConfig::default());
    assert_eq!(p.legal_moves_vec().len(), 44);
    assert_eq!(
        p.to_fen(),
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
    );
    assert_eq!(p.side_to_move(), Side::First);
    assert!(p.is_legal(mv("h2e2")));
    assert!(p.is_legal(mv("c3c4")));
}

#[test]
fn flying_general_pinned_piece_cannot_leave_file() {
    // The red horse on e1 is the only piece between the generals: it may not move.
    let p = pos("4k4/9/9/9/9/9/9/9/4N4/4K4 w - - 0 1");
    assert!(moves_from(&p, "e1").is_empty());
    // Off the file it moves freely.
    let q = pos("4k4/9/9/9/9/9/9/9/4N4/3K5 w - - 0 1");
    assert_eq!(moves_from(&q, "e1").len(), 6);
    // A pinned cannon may still slide along the file, not leave it.
    let r = pos("4k4/4c4/9/9/9/9/9/9/9/4K4 b - - 0 1");
    let m = moves_from(&r, "e8");
    assert_eq!(m.len(), 7, "e8e7..e8e1: {m:?}");
    assert!(m.iter().all(|x| x.starts_with("e8e")));
}

#[test]
fn flying_general_general_cannot_step_onto_open_file() {
    let p = pos("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1");
    let m = moves_from(&p, "d0");
    assert_eq!(m, vec!["d0d1".to_string()]);
    assert!(!p.is_legal(mv("d0e0")));
    let mut q = p.clone();
    let err = q.play(mv("d0e0")).expect_err("facing generals");
    assert!(err.to_string().contains("d0e0"));
    assert_eq!(q, p, "a refused move leaves the position unchanged");
}

#[test]
fn facing_generals_in_fen_is_rejected() {
    assert!(Xiangqi::from_fen(
        "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1",
        XiangqiConfig::default()
    )
    .is_err());
}

#[test]
fn horse_is_blocked_by_its_leg() {
    // Horse b0, own chariot on b1 blocks the legs towards a2 and c2.
    let p = pos("4k4/9/9/9/9/9/9/9/1R7/1N1K5 w - - 0 1");
    assert_eq!(moves_from(&p, "b0"), vec!["b0d1".to_string()]);
    let free = pos("4k4/9/9/9/9/9/9/9/9/1N1K5 w - - 0 1");
    assert_eq!(
        moves_from(&free, "b0"),
        vec!["b0a2".to_string(), "b0c2".to_string(), "b0d1".to_string()]
    );
}

#[test]
fn elephant_is_blocked_by_its_eye_and_never_crosses_the_river() {
    let p = pos("4k4/9/9/9/9/9/9/9/3R5/2B2K3 w - - 0 1");
    assert_eq!(moves_from(&p, "c0"), vec!["c0a2".to_string()]);
    let river = pos("3k5/9/9/9/9/2B6/9/9/9/4K4 w - - 0 1");
    assert_eq!(
        moves_from(&river, "c4"),
        vec!["c4a2".to_string(), "c4e2".to_string()]
    );
}

#[test]
fn cannon_captures_over_exactly_one_screen() {
    // Red cannon a0; a3 red soldier (screen), a6 black chariot (target), a9 black chariot.
    let p = pos("r2k5/9/9/r8/9/9/P8/9/9/C3K4 w - - 0 1");
    let m = moves_from(&p, "a0");
    assert!(m.contains(&"a0a6".to_string()), "{m:?}");
    assert!(!m.contains(&"a0a9".to_string()), "two screens");
    assert!(!m.contains(&"a0a3".to_string()), "own piece");
    assert!(m.contains(&"a0a2".to_string()));
    assert!(
        !m.contains(&"a0a4".to_string()),
        "cannot move past a screen without capturing"
    );
    // No screen: no capture.
    let q = pos("r2k5/9/9/9/9/9/9/9/9/C3K4 w - - 0 1");
    assert!(!moves_from(&q, "a0").contains(&"a0a9".to_string()));
}

#[test]
fn soldier_moves_sideways_only_after_the_river_and_never_back() {
    let p = pos("3k5/9/9/9/4P4/9/4P4/9/9/5K3 w - - 0 1");
    assert_eq!(moves_from(&p, "e3"), vec!["e3e4".to_string()]);
    assert_eq!(
        moves_from(&p, "e5"),
        vec!["e5d5".to_string(), "e5e6".to_string(), "e5f5".to_string()]
    );
    // A soldier on the last rank only moves sideways.
    let q = pos("3k5/9/9/9/9/9/9/9/9/p4K3 b - - 0 1");
    assert_eq!(moves_from(&q, "a0"), vec!["a0b0".to_string()]);
    let black = pos("3k5/9/9/4p4/9/9/9/9/9/5K3 b - - 0 1");
    assert_eq!(moves_from(&black, "e6"), vec!["e6e5".to_string()]);
    let r = pos("P2k5/9/9/9/9/9/9/9/9/5K3 w - - 0 1");
    assert_eq!(moves_from(&r, "a9"), vec!["a9b9".to_string()]);
}

#[test]
fn checkmate_is_a_loss_for_the_side_to_move() {
    let p = pos("R3k4/R8/9/9/9/9/9/9/9/3K5 b - - 0 1");
    assert!(p.in_check());
    assert!(p.legal_moves_vec().is_empty());
    assert_eq!(p.outcome(), Some(Outcome::Loss));
    assert_eq!(p.adjudicate(&[]), Some(Outcome::Loss));
}

#[test]
fn stalemate_is_a_loss_for_the_side_to_move() {
    let p = pos("4k4/R8/9/9/9/9/9/9/5R3/3K5 b - - 0 1");
    assert!(!p.in_check());
    assert!(p.legal_moves_vec().is_empty());
    assert_eq!(p.outcome(), Some(Outcome::Loss));
}

fn play_all(h: &mut History<Xiangqi>, moves: &[&str]) {
    for m in moves {
        h.play(mv(m)).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn perpetual_check_loses() {
    let start = pos("4k4/R8/9/9/9/9/9/9/9/5K3 w - - 0 1");
    let mut h = History::new(start);
    play_all(&mut h, &["a8a9", "e9e8", "a9a8", "e8e9"]);
    // Second occurrence of the start position: not yet decided.
    assert_eq!(h.outcome(), None);
    play_all(&mut h, &["a8a9", "e9e8", "a9a8", "e8e9"]);
    // Third occurrence: Red checked with every move of the cycle and is to move: Red lost.
    assert_eq!(h.outcome(), Some(Outcome::Loss));
    assert_eq!(h.current().side_to_move(), Side::First);
    // Refused once decided.
    assert!(h.play(mv("a8a9")).is_err());
}

#[test]
fn perpetual_check_win_for_the_side_to_move_when_the_opponent_checked() {
    // Same cycle, judged one ply later (the checked side to move wins).
    let start = pos("4k4/9/R8/9/9/9/9/9/9/5K3 w - - 0 1");
    let mut h = History::new(start);
    play_all(
        &mut h,
        &[
            "a7a9", "e9e8", "a9a8", "e8e9", "a8a9", "e9e8", "a9a8", "e8e9", "a8a9",
        ],
    );
    // Position (R a9, k e9, Black to move) occurs for the third time.
    assert_eq!(h.outcome(), Some(Outcome::Win));
}

/// Regression: perpetual check used to be judged on every move since the *first* occurrence of
/// the repeated position, so one quiet move in an earlier cycle excused the checks of the last
/// one (draw). The cycle between the last two occurrences is judged now.
#[test]
fn perpetual_check_is_judged_on_the_last_cycle_not_since_the_first_occurrence() {
    let start = pos("4k4/R8/9/9/9/9/9/9/9/5K3 w - - 0 1");
    let mut h = History::new(start);
    // First cycle: a quiet chariot move (a8a7), then a check.
    play_all(&mut h, &["a8a7", "e9e8", "a7a8", "e8e9"]);
    assert_eq!(h.outcome(), None);
    // Second cycle: checks only.
    play_all(&mut h, &["a8a9", "e9e8", "a9a8", "e8e9"]);
    assert_eq!(h.current().side_to_move(), Side::First);
    assert_eq!(h.outcome(), Some(Outcome::Loss), "red checked perpetually");
    assert_eq!(
        h.current().repetition_verdict(h.entries()),
        Some(RepetitionVerdict::PerpetualCheck { by: Side::First })
    );
}

#[test]
fn plain_repetition_is_a_draw() {
    let start = pos("4k4/9/9/9/9/9/9/9/9/R4K3 w - - 0 1");
    let mut h = History::new(start);
    play_all(&mut h, &["a0a1", "e9d9", "a1a0", "d9e9"]);
    assert_eq!(h.outcome(), None);
    play_all(&mut h, &["a0a1", "e9d9", "a1a0", "d9e9"]);
    assert_eq!(h.outcome(), Some(Outcome::Draw));
}

#[test]
fn repetition_count_is_configurable() {
    let cfg = XiangqiConfig {
        repetition_count: 2,
        ..XiangqiConfig::default()
    };
    let start = Xiangqi::from_fen("4k4/9/9/9/9/9/9/9/9/R4K3 w - - 0 1", cfg).expect("FEN");
    let mut h = History::new(start);
    play_all(&mut h, &["a0a1", "e9d9", "a1a0", "d9e9"]);
    assert_eq!(h.outcome(), Some(Outcome::Draw));
}

#[test]
fn eval_key_mixes_in_the_repetition_count() {
    let start = pos("4k4/9/9/9/9/9/9/9/9/R4K3 w - - 0 1");
    let mut h = History::new(start.clone());
    assert_eq!(start.eval_key(&[]), start.zobrist());
    play_all(&mut h, &["a0a1", "e9d9", "a1a0", "d9e9"]);
    assert_eq!(h.current().zobrist(), start.zobrist());
    assert_ne!(h.current().eval_key(h.entries()), start.eval_key(&[]));
}

#[test]
fn no_capture_limit_draws_at_120_plies() {
    let p = pos("4k4/9/9/9/9/9/9/9/9/R4K3 w - - 119 80");
    assert_eq!(p.outcome(), None);
    let mut q = p.clone();
    q.play(mv("a0a1")).expect("legal");
    assert_eq!(q.halfmove_clock(), 120);
    assert_eq!(q.outcome(), Some(Outcome::Draw));
    // A capture resets the counter.
    let c = pos("4k4/9/9/9/9/9/9/9/r8/R4K3 w - - 119 80");
    let mut d = c.clone();
    assert!(c.is_capture(mv("a0a1")));
    assert!(c.is_irreversible(mv("a0a1")));
    assert!(!c.is_irreversible(mv("a0b0")));
    d.play(mv("a0a1")).expect("legal");
    assert_eq!(d.halfmove_clock(), 0);
    assert_eq!(d.outcome(), None);
}

#[test]
fn checkmate_takes_precedence_over_the_move_limit() {
    let p = pos("R3k4/R8/9/9/9/9/9/9/9/3K5 b - - 150 90");
    assert_eq!(p.outcome(), Some(Outcome::Loss));
}

#[test]
fn bad_fens_are_rejected_with_the_input() {
    let cases = [
        ("", "empty"),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w",
            "10 ranks",
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRR w",
            "longer",
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w",
            "8 files",
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX w",
            "unknown",
        ),
        (
            "rnbaqabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
            "unknown",
        ),
        (
            "rnba1abnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
            "no general",
        ),
        // A piece on a point it can never reach is named in words.
        (
            "4k4/9/9/9/9/9/9/9/9/4K3P w",
            "red soldier (P) cannot stand on i0",
        ),
        (
            "4k3b/9/9/9/9/9/9/9/9/4K4 w",
            "black elephant (b) cannot stand on i9",
        ),
        (
            "rnbakabnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
            "at most",
        ),
        ("4k4/9/9/9/9/9/9/9/9/K8 w", "cannot stand"),
        ("4k4/9/9/9/9/9/9/9/A8/4K4 w", "cannot stand"),
        ("4k4/9/9/9/9/B8/9/9/9/4K4 w", "cannot stand"),
        ("4k4/9/9/9/9/9/9/9/P8/4K4 w", "cannot stand"),
        ("4k4/9/9/9/9/9/1P7/9/9/4K4 w", "cannot stand"),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x",
            "side",
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - z 1",
            "halfmove",
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - -1 1",
            "halfmove",
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 x",
            "fullmove",
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 9",
            "extra",
        ),
        ("3k5/9/9/9/9/9/9/9/9/3K5 w", "not to move is in check"),
    ];
    for (fen, why) in cases {
        let e = Xiangqi::from_fen(fen, XiangqiConfig::default())
            .expect_err(&format!("{fen:?} must be rejected ({why})"));
        assert_eq!(e.input, fen);
        assert!(
            e.reason.contains(why),
            "{fen:?}: {} (wanted {why:?})",
            e.reason
        );
    }
}

#[test]
fn fen_accepts_aliases_red_r_and_missing_counters() {
    let p = pos("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR r");
    assert_eq!(p, Xiangqi::new(&XiangqiConfig::default()));
    // Counters may be missing; the side to move may not (see fen.rs).
    let q = pos("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w");
    assert_eq!(q.side_to_move(), Side::First);
    assert_eq!(q.halfmove_clock(), 0);
    assert_eq!(q.fullmove_number(), 1);
    assert!(Xiangqi::from_fen(
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR",
        XiangqiConfig::default()
    )
    .is_err());
    let b = pos("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 7 12");
    assert_eq!(b.side_to_move(), Side::Second);
    assert_eq!(b.halfmove_clock(), 7);
    assert_eq!(b.fullmove_number(), 12);
    assert_eq!(
        b.to_fen(),
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 7 12"
    );
}

#[test]
fn piece_accessors_report_the_start_position() {
    let p = Xiangqi::new(&XiangqiConfig::default());
    let e0 = Square::new(4, 0).expect("on board");
    assert_eq!(
        p.piece_at(e0),
        Some(Piece {
            kind: PieceKind::General,
            side: Side::First
        })
    );
    assert_eq!(
        p.piece_at(Square::new(1, 7).expect("b7")).map(|x| x.kind),
        Some(PieceKind::Cannon)
    );
    assert_eq!(p.piece_at(Square::new(4, 4).expect("e4")), None);
    assert_eq!(Square::new(9, 0), None);
    assert_eq!(Square::new(0, 10), None);
    assert_eq!(e0.file(), 4);
    assert_eq!(e0.rank(), 0);
    assert_eq!(
        p.general_square(Side::Second),
        Square::new(4, 9).expect("e9")
    );
}

#[test]
fn iccs_moves_display_and_parse() {
    let m = mv("h2e2");
    assert_eq!(m.to_string(), "h2e2");
    assert_eq!(mv("H2-E2"), m);
    for bad in ["", "h2e", "j2e2", "h2e:", "h2h2", "h2e2x"] {
        let e = bad.parse::<Move>().expect_err(bad);
        assert_eq!(e.input, bad);
        assert!(e.to_string().contains(&format!("{bad:?}")));
    }
    let p = Xiangqi::new(&XiangqiConfig::default());
    assert_eq!(p.parse_move("b0c2").expect("parses"), mv("b0c2"));
    assert_eq!(p.format_move(mv("b0c2")), "b0c2");
}

#[test]
fn illegal_moves_are_refused_with_a_reason() {
    let mut p = Xiangqi::new(&XiangqiConfig::default());
    let e = p.play(mv("e4e5")).expect_err("empty square");
    assert!(e.reason.contains("no piece"));
    let e = p.play(mv("h7e7")).expect_err("black cannon");
    assert!(e.reason.contains("opponent"));
    let e = p.play(mv("b0b1")).expect_err("horse");
    assert!(e.reason.contains("cannot move"));
}

#[test]
fn action_space_has_2086_actions_seen_from_the_side_to_move() {
    let p = Xiangqi::new(&XiangqiConfig::default());
    assert_eq!(p.num_actions(), NUM_ACTIONS);
    assert_eq!(NUM_ACTIONS, 2086);
    let mut seen = std::collections::HashSet::new();
    for a in 0..NUM_ACTIONS {
        let m = p.action_to_move(a).expect("every index names a move");
        assert_eq!(p.move_to_action(m), a);
        assert!(seen.insert(m));
    }
    assert_eq!(p.action_to_move(NUM_ACTIONS), None);
    // Red's h2e2 and Black's mirror-image-by-rotation b7e7 share an index.
    let mut q = p.clone();
    q.play(mv("h2e2")).expect("legal");
    assert_eq!(q.move_to_action(mv("b7e7")), p.move_to_action(mv("h2e2")));
    assert_eq!(
        p.try_move_to_action(mv("a0b2")),
        Some(p.move_to_action(mv("a0b2")))
    );
    assert_eq!(p.try_move_to_action(mv("a0b3")), None);
    assert_eq!(p.move_to_action(mv("a0b3")), NUM_ACTIONS);
    assert_eq!(p.board_shape(), (10, 9));
    assert_eq!(p.num_symmetries(), 2);
}

#[test]
fn mirror_symmetry_maps_actions_and_positions() {
    let p = Xiangqi::new(&XiangqiConfig::default());
    let a = p.move_to_action(mv("h2e2"));
    assert_eq!(p.transform_action(1, a), p.move_to_action(mv("b2e2")));
    assert_eq!(p.transform_action(0, a), a);
    assert_eq!(p.transform(1), p, "the start position is symmetric");
    let q = pos("4k4/9/9/9/9/9/9/9/9/R4K3 w - - 0 1");
    assert_eq!(
        q.transform(1).to_fen(),
        "4k4/9/9/9/9/9/9/9/9/3K4R w - - 0 1"
    );
}

#[test]
fn display_shows_the_board_with_coordinates() {
    let p = Xiangqi::new(&XiangqiConfig::default());
    let s = p.to_string();
    assert!(s.starts_with("9 r n b a k a b n r\n"), "{s}");
    assert!(
        s.contains("0 R N B A K A B N R\n  a b c d e f g h i"),
        "{s}"
    );
    assert!(s.ends_with("Red to move"));
}
