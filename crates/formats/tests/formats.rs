//! Record formats: golden files written byte for byte and read back, games written by other
//! programs (tests/data/foreign), refused inputs with their exact errors (tests/data/bad), and
//! write → read round trips of random games in every format.
//!
//! `UPDATE_GOLDEN=1 cargo test --release --workspace --test formats` rewrites tests/data/golden.

use alphazero_connect4::{Connect4, Connect4Config};
use alphazero_formats::{
    pgn, psq, read_records, sgf, write_records, Format, FormatError, MoveNotation, Record,
    RecordGame, RecordResult,
};
use alphazero_game::{splitmix64, Game, History};
use alphazero_gomoku::{Gomoku, GomokuConfig, Rule};
use alphazero_xiangqi::{Xiangqi, XiangqiConfig};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

fn read_text(rel: &str) -> String {
    let p = data(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn tsv(rel: &str) -> Vec<(usize, Vec<String>)> {
    read_text(rel)
        .lines()
        .enumerate()
        .skip_while(|(_, l)| l.starts_with('#'))
        .skip(1) // the header row
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l.split('\t').map(str::to_string).collect()))
        .collect()
}

fn play<G: Game>(start: G, moves: &[&str]) -> History<G> {
    let mut h = History::new(start);
    for m in moves {
        let mv = h.current().parse_move(m).expect(m);
        h.play(mv).expect(m);
    }
    h
}

fn moves_text<G: Game>(h: &History<G>) -> String {
    let mut pos = h.start().clone();
    let mut out = Vec::new();
    for &m in h.moves() {
        out.push(pos.format_move(m));
        pos.play_unchecked(m);
    }
    out.join(" ")
}

/// The fixed records of the golden files.
fn xiangqi_record() -> Record<Xiangqi> {
    let h = play(
        Xiangqi::new(&XiangqiConfig::default()),
        &[
            "h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "h0h4", "h7i7", "h4h9", "g7h9",
        ],
    );
    let mut r = Record::new(h);
    r.players = ["net:models/xiangqi.azc:200".into(), "random".into()];
    r.result = RecordResult::FirstWon;
    r.opening_plies = 2;
    r.set_tag("Event", "alphazero arena");
    r.set_tag("Date", "2025.01.31");
    r.set_tag("Round", "7");
    r.set_tag("Termination", "Second failed: random: \"resigned\"");
    r
}

fn xiangqi_fen_record() -> Record<Xiangqi> {
    let start = Xiangqi::from_fen(
        "3k5/9/9/9/9/9/9/R8/9/R3K4 b - - 0 1",
        XiangqiConfig::default(),
    )
    .expect("FEN");
    let mut r = Record::new(play(start, &["d9d8", "a2a7", "d8d9", "a0d0"]));
    r.result = RecordResult::Unknown;
    r
}

fn gomoku_record() -> Record<Gomoku> {
    let cfg = GomokuConfig::new(15, Rule::Renju).expect("config");
    let h = play(
        Gomoku::new(&cfg),
        &["h8", "i9", "a1", "o15", "a15", "o1", "g7", "j10"],
    );
    let mut r = Record::new(h);
    r.players = ["alphazero [net]".into(), "pbrain-rapfi".into()];
    r.result = RecordResult::SecondWon;
    r.opening_plies = 4;
    r.times_ms = vec![0, 15, 250, 1000, 3, 0, 99, 12345];
    r.set_tag("Event", "alphazero arena");
    r.set_tag("Date", "2025.01.31");
    r.set_tag("Round", "2");
    r.set_tag("Termination", "rules");
    r
}

fn gomoku_setup_record() -> Record<Gomoku> {
    let cfg = GomokuConfig::new(9, Rule::Freestyle).expect("config");
    let start = Gomoku::from_stones(
        &cfg,
        &["e5".parse().expect("e5"), "d4".parse().expect("d4")],
        &["f6".parse().expect("f6")],
        alphazero_game::Side::Second,
    )
    .expect("stones");
    let mut r = Record::new(play(start, &["c3", "e4"]));
    r.result = RecordResult::Draw;
    r
}

fn connect4_record() -> Record<Connect4> {
    let mut r = Record::new(play(
        Connect4::new(&Connect4Config),
        &["4", "4", "3", "5", "2"],
    ));
    r.players = ["rollout-50".into(), "random".into()];
    r.result = RecordResult::Unknown;
    r.opening_plies = 1;
    r
}

/// Compares with (or, with UPDATE_GOLDEN=1, writes) a golden file.
fn golden(name: &str, text: &str) {
    let path = data(&format!("golden/{name}"));
    if std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1") {
        std::fs::write(&path, text).expect("writing a golden file");
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(text, want, "{name} differs from the golden file");
}

/// Everything a reader must give back of a written record.
fn assert_same<G: RecordGame>(a: &Record<G>, b: &Record<G>, what: &str) {
    assert_eq!(a.history.start(), b.history.start(), "{what}: start");
    assert_eq!(a.history.moves(), b.history.moves(), "{what}: moves");
    assert_eq!(a.players, b.players, "{what}: players");
    assert_eq!(a.result, b.result, "{what}: result");
    assert_eq!(a.opening_plies, b.opening_plies, "{what}: opening plies");
}

#[test]
fn golden_pgn_files_are_written_byte_for_byte_and_read_back() {
    let x = xiangqi_record();
    let text = pgn::write(&x, MoveNotation::Iccs);
    golden("xiangqi-iccs.pgn", &text);
    let wxf = pgn::write(&x, MoveNotation::Wxf);
    golden("xiangqi-wxf.pgn", &wxf);
    let f = xiangqi_fen_record();
    golden("xiangqi-fen.pgn", &pgn::write(&f, MoveNotation::Wxf));
    let cfg = XiangqiConfig::default();
    for (name, rec) in [
        ("xiangqi-iccs.pgn", &x),
        ("xiangqi-wxf.pgn", &x),
        ("xiangqi-fen.pgn", &f),
    ] {
        let back =
            read_records::<Xiangqi>(&read_text(&format!("golden/{name}")), Format::Pgn, &cfg)
                .expect(name);
        assert_eq!(back.len(), 1);
        assert_same(rec, &back[0], name);
        for tag in ["Event", "Date", "Round", "Termination"] {
            let want = match (rec.tag(tag), tag) {
                (Some(v), _) => Some(v),
                (None, "Termination") => None,
                (None, "Date") => Some("????.??.??"),
                (None, _) => Some("?"),
            };
            assert_eq!(back[0].tag(tag), want, "{name}: {tag}");
        }
    }
    let g = gomoku_record();
    golden("gomoku-renju.pgn", &pgn::write(&g, MoveNotation::Iccs));
    let s = gomoku_setup_record();
    golden("gomoku-setup.pgn", &pgn::write(&s, MoveNotation::Iccs));
    for (name, rec) in [("gomoku-renju.pgn", &g), ("gomoku-setup.pgn", &s)] {
        let back = read_records::<Gomoku>(
            &read_text(&format!("golden/{name}")),
            Format::Pgn,
            &GomokuConfig::default(),
        )
        .expect(name);
        assert_same(rec, &back[0], name);
    }
    let c = connect4_record();
    golden("connect4.pgn", &pgn::write(&c, MoveNotation::Iccs));
    let back = read_records::<Connect4>(
        &read_text("golden/connect4.pgn"),
        Format::Pgn,
        &Connect4Config,
    )
    .expect("connect4");
    assert_same(&c, &back[0], "connect4.pgn");
}

#[test]
fn golden_psq_and_sgf_files_are_written_byte_for_byte_and_read_back() {
    let g = gomoku_record();
    let text = psq::write(&g).expect("psq");
    golden("gomoku-renju.psq", &text);
    // PSQ names no rule: read with the rule given, it is the same game, times included.
    let back = psq::read(
        &read_text("golden/gomoku-renju.psq"),
        &GomokuConfig::new(15, Rule::Renju).expect("cfg"),
    )
    .expect("psq");
    assert_same(
        &g,
        &Record {
            result: g.result,
            opening_plies: g.opening_plies,
            ..back.clone()
        },
        "psq",
    );
    assert_eq!(back.times_ms, g.times_ms);
    assert_eq!(back.result, RecordResult::Unknown, "PSQ holds no result");
    let text = sgf::write(&g);
    golden("gomoku-renju.sgf", &text);
    let s = gomoku_setup_record();
    golden("gomoku-setup.sgf", &sgf::write(&s));
    for (name, rec) in [("gomoku-renju.sgf", &g), ("gomoku-setup.sgf", &s)] {
        let back = sgf::read(
            &read_text(&format!("golden/{name}")),
            &GomokuConfig::default(),
        )
        .expect(name);
        assert_eq!(back.len(), 1);
        assert_same(rec, &back[0], name);
    }
    let back = &sgf::read(
        &read_text("golden/gomoku-renju.sgf"),
        &GomokuConfig::default(),
    )
    .expect("sgf")[0];
    for tag in ["Event", "Date", "Round", "Termination"] {
        assert_eq!(back.tag(tag), g.tag(tag), "sgf {tag}");
    }
}

#[test]
fn games_written_by_other_programs_are_read_move_for_move() {
    let rows = tsv("foreign/expected.tsv");
    assert!(rows.len() >= 10);
    for (line, c) in rows {
        let (file, game, index) = (&c[0], &c[1], c[2].parse::<usize>().expect("index"));
        let text = read_text(&format!("foreign/{file}"));
        let format = Format::detect(Path::new(file), &text).expect("format");
        assert_eq!(Format::sniff(&text), Some(format), "{file}: sniffed format");
        let what = format!("expected.tsv line {line} ({file} game {index})");
        let check = |start: Option<String>,
                     board: String,
                     moves: String,
                     players: [String; 2],
                     result: RecordResult| {
            assert_eq!(start.unwrap_or_else(|| "-".into()), c[3], "{what}: start");
            assert_eq!(board, c[4], "{what}: board");
            assert_eq!(moves, c[5], "{what}: moves");
            assert_eq!(players, [c[6].clone(), c[7].clone()], "{what}: players");
            assert_eq!(result.pgn(), c[8], "{what}: result");
        };
        fn start_desc<G: RecordGame>(r: &Record<G>) -> Option<String> {
            G::start_tags(r.history.start())
                .into_iter()
                .find(|(k, _)| *k == "FEN" || *k == "Setup")
                .map(|(_, v)| v)
        }
        match game.as_str() {
            "xiangqi" => {
                let recs =
                    read_records::<Xiangqi>(&text, format, &XiangqiConfig::default()).expect(&what);
                let r = &recs[index];
                check(
                    start_desc(r),
                    "-".into(),
                    moves_text(&r.history),
                    r.players.clone(),
                    r.result,
                );
            }
            "gomoku" => {
                let recs =
                    read_records::<Gomoku>(&text, format, &GomokuConfig::default()).expect(&what);
                let r = &recs[index];
                let s = r.history.start();
                check(
                    start_desc(r),
                    format!("{} {}", s.size(), s.rule()),
                    moves_text(&r.history),
                    r.players.clone(),
                    r.result,
                );
            }
            "connect4" => {
                let recs = read_records::<Connect4>(&text, format, &Connect4Config).expect(&what);
                let r = &recs[index];
                check(
                    start_desc(r),
                    "-".into(),
                    moves_text(&r.history),
                    r.players.clone(),
                    r.result,
                );
            }
            other => panic!("{what}: unknown game {other}"),
        }
    }
}

#[test]
fn the_gomocup_psq_keeps_its_move_times_and_the_sgf_its_tags() {
    let r = read_records::<Gomoku>(
        &read_text("foreign/gomocup.psq"),
        Format::Psq,
        &GomokuConfig::default(),
    )
    .expect("psq");
    assert_eq!(r[0].times_ms, vec![0, 312, 1250, 15, 0]);
    let r = read_records::<Gomoku>(
        &read_text("foreign/renju.sgf"),
        Format::Sgf,
        &GomokuConfig::default(),
    )
    .expect("sgf");
    assert_eq!(r[0].tag("Date"), Some("2019.03.02"));
    assert_eq!(r[0].tag("Event"), Some("Some Cup"));
    let r = read_records::<Xiangqi>(
        &read_text("foreign/xqbase-iccs.pgn"),
        Format::Pgn,
        &XiangqiConfig::default(),
    )
    .expect("pgn");
    assert_eq!(r[0].tag("ECCO"), Some("C20"));
    assert_eq!(r[0].tag("RedTeam"), Some("Team A"));
}

#[test]
fn malformed_files_are_refused_with_the_line_and_the_move() {
    let rows = tsv("bad/expected.tsv");
    assert!(rows.len() >= 24);
    for (line, c) in rows {
        let (file, game, expected) = (&c[0], &c[1], &c[2]);
        let text = read_text(&format!("bad/{file}"));
        let format = Format::detect(Path::new(file), &text).expect("format");
        let err: FormatError = match game.as_str() {
            "xiangqi" => {
                read_records::<Xiangqi>(&text, format, &XiangqiConfig::default()).map(|_| ())
            }
            "gomoku" => read_records::<Gomoku>(&text, format, &GomokuConfig::default()).map(|_| ()),
            "connect4" => read_records::<Connect4>(&text, format, &Connect4Config).map(|_| ()),
            other => panic!("unknown game {other}"),
        }
        .expect_err(file);
        assert!(
            err.to_string().contains(expected.as_str()),
            "expected.tsv line {line}: {file}: {err}\n  does not contain: {expected}"
        );
    }
}

#[test]
fn gomoku_formats_are_refused_for_other_games() {
    let text = read_text("foreign/gomocup.psq");
    let e = read_records::<Xiangqi>(&text, Format::Psq, &XiangqiConfig::default())
        .expect_err("psq as xiangqi");
    assert_eq!(
        e.to_string(),
        "line 1: the file holds a Gomoku (PSQ) game, not xiangqi"
    );
    let e = write_records(&[xiangqi_record()], Format::Sgf, MoveNotation::Iccs)
        .expect_err("xiangqi sgf");
    assert!(
        e.to_string().starts_with("sgf cannot hold xiangqi games"),
        "{e}"
    );
    let two = [gomoku_record(), gomoku_record()];
    let e = write_records(&two, Format::Psq, MoveNotation::Iccs).expect_err("two games in a psq");
    assert!(e.to_string().contains("2 games in one file"), "{e}");
    let e = psq::write(&gomoku_setup_record()).expect_err("setup in psq");
    assert!(e.to_string().contains("3 stones set up"), "{e}");
}

/// A random game of `G` from `start`: up to `plies` random legal moves, seeded.
fn random_history<G: Game>(start: G, seed: u64, plies: usize) -> History<G> {
    let mut h = History::new(start);
    let mut state = seed;
    for _ in 0..plies {
        if h.outcome().is_some() {
            break;
        }
        let moves = h.current().legal_moves_vec();
        if moves.is_empty() {
            break;
        }
        let (s, z) = splitmix64(state);
        state = s;
        h.play_unchecked(moves[(z % moves.len() as u64) as usize]);
    }
    h
}

fn random_record<G: Game>(h: History<G>, seed: u64) -> Record<G> {
    let n = h.len();
    let mut r = Record::new(h);
    r.players = [format!("player \"{seed}\" [a]"), "second; {x}".into()];
    r.result = [
        RecordResult::FirstWon,
        RecordResult::SecondWon,
        RecordResult::Draw,
        RecordResult::Unknown,
    ][(seed % 4) as usize];
    r.opening_plies = if n > 1 { (seed as usize) % n } else { 0 };
    r
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn gomoku_games_round_trip_through_pgn_sgf_and_psq(
        seed in any::<u64>(), size in 5u8..=20, rule in 0usize..3, plies in 0usize..120
    ) {
        let rule = [Rule::Freestyle, Rule::Standard, Rule::Renju][rule];
        let cfg = GomokuConfig::new(size, rule).expect("config");
        let rec = random_record(random_history(Gomoku::new(&cfg), seed, plies), seed);
        for format in [Format::Pgn, Format::Sgf, Format::Psq] {
            let text = write_records(std::slice::from_ref(&rec), format, MoveNotation::Iccs).expect("write");
            // PSQ names no rule: read it with the game's rule as the fallback.
            let back = read_records::<Gomoku>(&text, format, &cfg).map_err(|e| TestCaseError::fail(format!("{format:?}: {e}\n{text}")))?;
            prop_assert_eq!(back.len(), 1);
            let b = &back[0];
            prop_assert_eq!(b.history.start(), rec.history.start());
            prop_assert_eq!(b.history.moves(), rec.history.moves());
            prop_assert_eq!(b.history.current(), rec.history.current());
            if format != Format::Psq {
                prop_assert_eq!(&b.players, &rec.players);
                prop_assert_eq!(b.result, rec.result);
                prop_assert_eq!(b.opening_plies, rec.opening_plies);
            }
        }
    }

    #[test]
    fn xiangqi_games_round_trip_through_pgn_in_iccs_and_wxf(
        seed in any::<u64>(), lead in 0usize..60, plies in 0usize..160
    ) {
        // Start from the position after `lead` random plies (a FEN start) or the standard one.
        let cfg = XiangqiConfig::default();
        let pre = random_history(Xiangqi::new(&cfg), seed ^ 0x5eed, lead);
        let start = if pre.outcome().is_none() { pre.current().clone() } else { Xiangqi::new(&cfg) };
        let rec = random_record(random_history(start, seed, plies), seed);
        for notation in [MoveNotation::Iccs, MoveNotation::Wxf] {
            let text = pgn::write(&rec, notation);
            let back = read_records::<Xiangqi>(&text, Format::Pgn, &cfg).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            prop_assert_eq!(back.len(), 1);
            let b = &back[0];
            prop_assert_eq!(b.history.start(), rec.history.start());
            prop_assert_eq!(b.history.moves(), rec.history.moves());
            prop_assert_eq!(&b.players, &rec.players);
            prop_assert_eq!(b.result, rec.result);
            prop_assert_eq!(b.opening_plies, rec.opening_plies);
        }
    }

    #[test]
    fn several_connect4_games_round_trip_through_one_pgn(seeds in proptest::collection::vec(any::<u64>(), 1..5)) {
        let recs: Vec<Record<Connect4>> = seeds
            .iter()
            .map(|&s| random_record(random_history(Connect4::new(&Connect4Config), s, 42), s))
            .collect();
        let text = write_records(&recs, Format::Pgn, MoveNotation::Iccs).expect("write");
        let back = read_records::<Connect4>(&text, Format::Pgn, &Connect4Config).expect("read");
        prop_assert_eq!(back.len(), recs.len());
        for (a, b) in recs.iter().zip(&back) {
            prop_assert_eq!(a.history.moves(), b.history.moves());
            prop_assert_eq!(a.result, b.result);
        }
    }
}

#[test]
fn the_game_of_a_file_is_told_from_its_tags_or_its_format() {
    use alphazero_formats::game_name_of;
    let cases = [
        ("foreign/xqbase-iccs.pgn", Some("xiangqi")),
        ("foreign/uci-moves.pgn", Some("xiangqi")),
        ("foreign/web-record.pgn", Some("gomoku")),
        ("foreign/connect4.pgn", Some("connect4")),
        ("foreign/gomocup.psq", Some("gomoku")),
        ("foreign/renju.sgf", Some("gomoku")),
    ];
    for (file, want) in cases {
        let text = read_text(file);
        let format = Format::detect(Path::new(file), &text).expect("format");
        assert_eq!(game_name_of(&text, format), want, "{file}");
    }
    assert_eq!(game_name_of("1. e4 e5 *", Format::Pgn), None);
    assert_eq!(
        game_name_of("[Game \"Chess\"]\n\n1. e4 *", Format::Pgn),
        None
    );
}
