//! The protocol clients against tiny fake engines (`sh` scripts) that answer well, crash,
//! hang or answer garbage, and against our own engines through the fixture binary.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use alphazero_game::{Game, History};
use alphazero_gomoku::{Gomoku, GomokuConfig, GomokuMove, Rule};
use alphazero_protocols::{
    Dialect, GomocupClient, GomocupClientConfig, Limits, Player, PlayerError, UcciClient,
    UcciClientConfig,
};
use alphazero_xiangqi::{Move, Xiangqi, XiangqiConfig};

const FIXTURE: &str = env!("CARGO_BIN_EXE_alphazero-protocols-fixture");

fn sh(script: &str) -> Vec<String> {
    vec!["sh".into(), "-c".into(), script.into()]
}

fn quick() -> Limits {
    Limits {
        movetime: Some(Duration::from_millis(100)),
        ..Limits::default()
    }
}

fn ucci_client(script: &str) -> UcciClient {
    let mut c = UcciClientConfig::new(sh(script), Dialect::Ucci);
    c.name = "fake".into();
    c.timeout_margin = Duration::from_millis(400);
    c.handshake_timeout = Duration::from_secs(5);
    UcciClient::new(c)
}

fn xiangqi_start() -> History<Xiangqi> {
    History::new(Xiangqi::start(XiangqiConfig::default()))
}

/// A UCCI engine script whose answer to `go` is `$1`-like text given here.
fn fake_ucci(on_go: &str) -> String {
    format!(
        r#"while read -r l; do case "$l" in ucci) echo "id name fake"; echo ucciok;; isready) echo readyok;; go*) {on_go};; quit) exit 0;; esac; done"#
    )
}

#[test]
fn ucci_client_plays_the_fake_engines_bestmove_and_reads_its_info() {
    let mut c = ucci_client(&fake_ucci(
        r#"echo "info depth 3 score 120 pv h2e2 h9g7"; echo "bestmove h2e2 ponder h9g7""#,
    ));
    c.new_game().expect("handshake");
    let choice = c.choose_move(&xiangqi_start(), &quick()).expect("a move");
    assert_eq!(choice.mv, Move::parse_iccs("h2e2").unwrap());
    assert_eq!(choice.pv.len(), 2);
    let v = choice.value.expect("score parsed");
    assert!(v > 0.2 && v < 0.4, "{v}");
}

/// A UCI engine script: `uci` answered with `$declare` lines then `uciok`; every other line
/// is appended to the file `$log`; `go` answered with `bestmove $best`.
fn fake_uci(declare: &str, log: &str, best: &str) -> String {
    format!(
        r#"while read -r l; do case "$l" in uci) echo "id name fake"; {declare} echo uciok;; isready) echo readyok;; go*) echo "$l" >> {log}; echo "bestmove {best}";; quit) exit 0;; *) echo "$l" >> {log};; esac; done"#
    )
}

#[test]
fn uci_client_uses_ranks_1_to_10_with_engines_offering_the_xiangqi_variant_and_iccs_otherwise() {
    let dir = std::env::temp_dir().join(format!("az-uci-client-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let h2e2 = Move::parse_iccs("h2e2").unwrap();
    let mut game = xiangqi_start();
    game.play(h2e2).unwrap();
    let fairy = r#"echo "option name UCI_Variant type combo default chess var chess var xiangqi";"#;
    /// Declared options, configured options, engine's answer, position sent, variant sent.
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str, &'a str, bool);
    let cases: [Case; 4] = [
        // Fairy-Stockfish-like: 1–10, the variant selected; "h10g8" is ICCS h9g7.
        (fairy, &[], "h10g8", "moves h3e3", true),
        // Pikafish-like (no UCI_Variant): ICCS.
        ("", &[], "h9g7", "moves h2e2", false),
        // The user's UCI_Variant is not doubled.
        (
            fairy,
            &[("UCI_Variant", "xiangqi")],
            "h10g8",
            "moves h3e3",
            true,
        ),
        // UCI_RankBase 0 among the options decides.
        (fairy, &[("UCI_RankBase", "0")], "h9g7", "moves h2e2", true),
    ];
    for (i, (declare, options, best, sent, variant)) in cases.into_iter().enumerate() {
        let log = dir.join(format!("{i}.log"));
        let _ = std::fs::remove_file(&log);
        let mut c = UcciClientConfig::new(
            sh(&fake_uci(declare, &log.display().to_string(), best)),
            Dialect::Uci,
        );
        c.options = options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        c.timeout_margin = Duration::from_millis(400);
        let mut c = UcciClient::new(c);
        let choice = c.choose_move(&game, &quick()).expect("a move");
        assert_eq!(choice.mv, Move::parse_iccs("h9g7").unwrap(), "case {i}");
        drop(c);
        let lines = std::fs::read_to_string(&log).unwrap();
        assert!(
            lines
                .lines()
                .any(|l| l.starts_with("position ") && l.ends_with(sent)),
            "case {i}: {lines}"
        );
        let variants = lines
            .lines()
            .filter(|l| l.starts_with("setoption name UCI_Variant value xiangqi"))
            .count();
        assert_eq!(variants, usize::from(variant), "case {i}: {lines}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ucci_client_reports_a_crash_as_failed() {
    let mut c = ucci_client(&fake_ucci("exit 3"));
    let err = c
        .choose_move(&xiangqi_start(), &quick())
        .expect_err("engine crashed");
    assert!(matches!(err, PlayerError::Failed { .. }), "{err}");
}

#[test]
fn ucci_client_reports_a_hang_as_timeout() {
    let mut c = ucci_client(&fake_ucci("exec sleep 30"));
    let err = c
        .choose_move(&xiangqi_start(), &quick())
        .expect_err("engine hangs");
    assert!(matches!(err, PlayerError::Timeout { .. }), "{err}");
}

#[test]
fn ucci_client_reports_garbage_and_illegal_moves() {
    for answer in [
        "echo bestmove zz99",
        "echo bestmove e0e5",
        "echo nobestmove",
    ] {
        let mut c = ucci_client(&fake_ucci(answer));
        let err = c.choose_move(&xiangqi_start(), &quick()).expect_err(answer);
        assert!(
            matches!(err, PlayerError::IllegalMove { .. }),
            "{answer}: {err}"
        );
    }
}

#[test]
fn ucci_client_reports_a_missing_program_as_failed() {
    let mut c = UcciClient::new(UcciClientConfig::new(
        vec!["/nonexistent/engine".into()],
        Dialect::Uci,
    ));
    assert!(matches!(c.new_game(), Err(PlayerError::Failed { .. })));
}

fn gomocup_client(script: &str) -> GomocupClient {
    let mut c = GomocupClientConfig::new(sh(script));
    c.timeout_margin = Duration::from_millis(400);
    c.start_timeout = Duration::from_secs(5);
    GomocupClient::new(c)
}

fn fake_brain(on_move: &str) -> String {
    format!(
        r#"while read -r l; do case "$l" in START*) echo OK;; BEGIN|TURN*|DONE) {on_move};; END) exit 0;; esac; done"#
    )
}

fn gomoku_15() -> History<Gomoku> {
    History::new(Gomoku::new(
        &GomokuConfig::new(15, Rule::Freestyle).unwrap(),
    ))
}

#[test]
fn gomocup_client_skips_messages_and_plays_the_move() {
    let mut c = gomocup_client(&fake_brain(
        r#"echo "MESSAGE thinking"; echo "DEBUG x"; echo "UNKNOWN what"; echo "7,7""#,
    ));
    c.new_game().unwrap();
    let choice = c.choose_move(&gomoku_15(), &quick()).expect("a move");
    assert_eq!(choice.mv, GomokuMove::new(7, 7));
    assert_eq!(choice.info, "thinking");
}

/// What a Gomocup match manager sends before every move: Piskvork and c-gomoku-cli send
/// `INFO time_left` each move (c-gomoku-cli with no match limit, `tc=0/N`, sends
/// `timeout_match 0` and `time_left 2147483647`); a brain that budgets by `time_left` (Rapfi)
/// must see the same from the arena, from the empty board (`BEGIN`, then `TURN`) and from a
/// set-up opening (`BOARD`).
#[test]
fn gomocup_client_sends_time_left_before_every_move_as_match_managers_do() {
    let dir = std::env::temp_dir().join(format!("az-gomocup-client-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("brain.log");
    let _ = std::fs::remove_file(&log);
    let script = format!(
        r#"n=0; while read -r l; do echo "$l" >> {}; case "$l" in START*) echo OK;; BEGIN|TURN*|DONE) echo "$n,0"; n=$((n+1));; END) exit 0;; esac; done"#,
        log.display()
    );
    let mut c = gomocup_client(&script);
    let limits = quick();
    c.new_game().unwrap();
    let mut game = gomoku_15();
    for k in 0..2 {
        let choice = c.choose_move(&game, &limits).expect("a move");
        game.play(choice.mv).unwrap();
        game.play(GomokuMove::new(k, 14)).unwrap();
    }
    c.new_game().unwrap();
    let mut opening = gomoku_15();
    for (x, y) in [(7, 7), (8, 8), (6, 6)] {
        opening.play(GomokuMove::new(x, y)).unwrap();
    }
    c.choose_move(&opening, &limits).expect("a move");
    let sent = std::fs::read_to_string(&log).unwrap();
    let clock = [
        "INFO timeout_turn 100",
        "INFO timeout_match 0",
        "INFO time_left 2147483647",
    ];
    let mut want = vec!["START 15", "INFO rule 0"];
    want.extend(clock);
    want.push("BEGIN");
    want.extend(clock);
    want.push("TURN 0,14");
    want.extend(["START 15", "INFO rule 0"]);
    want.extend(clock);
    want.extend(["BOARD", "7,7,2", "8,8,1", "6,6,2", "DONE"]);
    let lines: Vec<&str> = sent.lines().collect();
    assert_eq!(lines, want, "the brain was sent:\n{sent}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn gomocup_client_rejects_an_occupied_point_and_garbage() {
    let mut game = gomoku_15();
    game.play(GomokuMove::new(7, 7)).unwrap();
    for answer in ["echo 7,7", "echo 99,1", "echo hello"] {
        let mut c = gomocup_client(&fake_brain(answer));
        let err = c.choose_move(&game, &quick()).expect_err(answer);
        assert!(
            matches!(err, PlayerError::IllegalMove { .. }),
            "{answer}: {err}"
        );
    }
}

#[test]
fn gomocup_client_reports_crash_and_hang() {
    let mut c = gomocup_client(&fake_brain("exit 1"));
    assert!(matches!(
        c.choose_move(&gomoku_15(), &quick()),
        Err(PlayerError::Failed { .. })
    ));
    let mut c = gomocup_client(&fake_brain("exec sleep 30"));
    assert!(matches!(
        c.choose_move(&gomoku_15(), &quick()),
        Err(PlayerError::Timeout { .. })
    ));
}

#[test]
fn gomocup_client_against_our_brain_plays_legal_moves_for_both_sides() {
    let cfg = |n: &str| {
        let mut c = GomocupClientConfig::new(vec![FIXTURE.into(), "gomocup".into(), "32".into()]);
        c.name = n.into();
        c.timeout_margin = Duration::from_secs(20);
        GomocupClient::new(c)
    };
    let mut players = [cfg("a"), cfg("b")];
    let mut game = gomoku_15();
    for p in players.iter_mut() {
        p.new_game().unwrap();
    }
    for ply in 0..12 {
        let choice = players[ply % 2]
            .choose_move(&game, &quick())
            .expect("our brain answers");
        game.play(choice.mv).expect("the move is legal");
    }
    assert_eq!(game.len(), 12);
}

#[test]
fn ucci_and_uci_clients_against_our_engine_play_legal_moves() {
    let client = |d: Dialect| {
        let mut c = UcciClientConfig::new(vec![FIXTURE.into(), "ucci".into(), "32".into()], d);
        c.timeout_margin = Duration::from_secs(20);
        UcciClient::new(c)
    };
    let mut players = [client(Dialect::Ucci), client(Dialect::Uci)];
    let mut game = xiangqi_start();
    for p in players.iter_mut() {
        p.new_game().unwrap();
    }
    for ply in 0..8 {
        let limits = if ply % 3 == 0 {
            Limits {
                simulations: Some(16),
                ..Limits::default()
            }
        } else {
            quick()
        };
        let choice = players[ply % 2]
            .choose_move(&game, &limits)
            .expect("our engine answers");
        game.play(choice.mv).expect("the move is legal");
    }
    assert_eq!(game.len(), 8);
}

#[test]
fn ucci_engine_answers_isready_while_thinking_and_stops_an_infinite_search() {
    let mut child = Command::new(FIXTURE)
        .args(["ucci", "100000000"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("fixture starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    writeln!(stdin, "ucci\nposition startpos\ngo infinite").unwrap();
    stdin.flush().unwrap();
    while lines.next().unwrap().unwrap() != "ucciok" {}
    writeln!(stdin, "isready").unwrap();
    stdin.flush().unwrap();
    // The search never ends on its own (10^8 simulations): readyok must come first.
    let mut seen = Vec::new();
    loop {
        let l = lines.next().unwrap().unwrap();
        assert!(!l.starts_with("bestmove"), "bestmove before stop: {seen:?}");
        if l == "readyok" {
            break;
        }
        seen.push(l);
    }
    writeln!(stdin, "stop").unwrap();
    stdin.flush().unwrap();
    let best = loop {
        let l = lines.next().unwrap().unwrap();
        if let Some(m) = l.strip_prefix("bestmove ") {
            break m.split_whitespace().next().unwrap().to_string();
        }
    };
    let mv = Move::parse_iccs(&best).unwrap();
    assert!(Xiangqi::start(XiangqiConfig::default()).is_legal(mv));
    writeln!(stdin, "quit").unwrap();
    stdin.flush().unwrap();
    assert_eq!(lines.next().unwrap().unwrap(), "bye");
    assert!(child.wait().unwrap().success());
}

#[test]
fn gomocup_client_fails_at_once_when_start_is_answered_with_something_other_than_ok() {
    // `cat` echoes `START 15`; an engine that does not understand START says UNKNOWN.
    for script in ["exec cat", r#"while read -r l; do echo "UNKNOWN $l"; done"#] {
        let mut c = gomocup_client(script);
        let err = c
            .choose_move(&gomoku_15(), &quick())
            .expect_err("not a brain");
        assert!(matches!(err, PlayerError::Failed { .. }), "{script}: {err}");
        // Failed (not Timeout): refused on the first reply instead of waiting out the
        // start timeout.
        assert!(err.to_string().contains("START 15"), "{script}: {err}");
    }
}
