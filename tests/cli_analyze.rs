//! `alphazero analyze`: the move table on stdout and the heatmap PNG.
mod common;
use common::{alphazero, assert_clean_error, fresh_dir};

const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

fn table_rows(stdout: &str) -> usize {
    stdout
        .lines()
        .filter(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            t.len() >= 6 && t[0].parse::<usize>().is_ok() && t[3].ends_with('%')
        })
        .count()
}

#[test]
fn analyze_writes_a_png_heatmap_and_a_move_table_for_each_game() {
    let dir = fresh_dir("analyze");
    for (i, args) in [
        vec!["--game", "gomoku", "--size", "8", "--position", "d4 e5 d5"],
        vec!["--game", "connect4", "--position", "4453"],
        vec![
            "--game",
            "xiangqi",
            "--position",
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 moves h2e2",
        ],
    ]
    .into_iter()
    .enumerate()
    {
        let png = dir.join(format!("heat{i}.png"));
        let mut full = vec!["analyze", "--sims", "100", "--top", "5", "--out"];
        full.push(png.to_str().unwrap());
        full.extend(args.iter());
        let out = alphazero(&full);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        let bytes = std::fs::read(&png).expect("heatmap written");
        assert!(bytes.starts_with(PNG_MAGIC), "{args:?}");
        assert_coordinate_labels_are_drawn(&bytes, &format!("{args:?}"));
        assert!(table_rows(&out.stdout) >= 4, "{args:?}: {}", out.stdout);
        assert!(out.stdout.contains("root value"), "{}", out.stdout);
    }
}

#[test]
fn analyze_rejects_bad_positions_and_finished_games() {
    for args in [
        vec!["analyze", "--game", "connect4", "--position", "4458"],
        vec!["analyze", "--game", "connect4", "--position", "4455667"],
        vec!["analyze", "--game", "gomoku", "--position", "z99"],
        vec!["analyze", "--game", "connect4", "--sims", "0"],
    ] {
        assert_clean_error(&alphazero(&args), &format!("{args:?}"));
    }
}

#[test]
fn analyze_refuses_an_unwritable_out_path_before_searching() {
    let dir = fresh_dir("analyze_out");
    let missing = dir.join("no/such/folder/x.png");
    // Regression: `--out x.jpg` wrote PNG bytes under a JPEG name.
    let jpeg = dir.join("x.jpg");
    for (out, needle) in [
        (missing.to_str().unwrap(), "does not exist"),
        (dir.to_str().unwrap(), "is a folder"),
        (jpeg.to_str().unwrap(), "written as PNG"),
    ] {
        // A million simulations would take minutes: the refusal must come first.
        let args = [
            "analyze", "--game", "connect4", "--sims", "1000000", "--out", out,
        ];
        let result = alphazero(&args);
        assert_clean_error(&result, out);
        assert!(result.stderr.contains(needle), "{out}: {}", result.stderr);
        assert!(
            result.stdout.is_empty(),
            "{out}: searched: {}",
            result.stdout
        );
    }
}

/// Regression: `analyze` (and `play`) searched without `terminal_check`, so the
/// shipped network, whose prior for the winning column 1 of `121212` is 0.004, gave all 800
/// visits to column 2 and missed the win in one.
#[test]
fn analyze_never_misses_a_win_in_one_whatever_the_prior() {
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/models/connect4.azc");
    for (position, win) in [("121212", "1"), ("767676", "7"), ("343434", "3")] {
        let out = alphazero(&[
            "analyze",
            "--game",
            "connect4",
            "--model",
            model,
            "--position",
            position,
            "--sims",
            "800",
        ]);
        assert_eq!(out.code, 0, "{position}: {}", out.stderr);
        let best = out
            .stdout
            .lines()
            .find_map(|l| l.strip_prefix("best "))
            .unwrap_or_else(|| panic!("{position}: no best line: {}", out.stdout));
        assert!(
            best.split_whitespace().next() == Some(win),
            "{position}: best {best}, expected {win}"
        );
    }
}

/// The board is framed by a 30-pixel margin; the column labels are drawn in the bottom
/// margin in dark ink (60, 45, 25): there must be ink there, in several separate places
/// (one label per column).
fn assert_coordinate_labels_are_drawn(png_bytes: &[u8], what: &str) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().expect("decodable PNG");
    let mut buf = vec![0u8; reader.output_buffer_size().expect("buffer size")];
    let info = reader.next_frame(&mut buf).expect("one frame");
    let (w, h) = (info.width as usize, info.height as usize);
    let px = |x: usize, y: usize| {
        let i = (y * w + x) * 3;
        (buf[i], buf[i + 1], buf[i + 2])
    };
    // Columns of the bottom margin band that hold at least one ink pixel.
    let inked: Vec<bool> = (0..w)
        .map(|x| (h - 28..h - 2).any(|y| px(x, y) == (60, 45, 25)))
        .collect();
    let runs = inked.windows(2).filter(|p| !p[0] && p[1]).count();
    assert!(runs >= 5, "{what}: {runs} ink runs in the label band");
}

/// A 9-ply VCF position of `crates/gomoku/tests/data/vcf.txt` (freestyle, white to move) as a
/// move list: black and white stones alternating.
const VCF_9_PLY: &str = "k4 h5 d5 g6 e6 j7 f6 l7 j6 h8 e11 i9 f11 l9 g11 d10 d12 g10 k12 k11 l12";

#[test]
fn analyze_shows_a_proven_vcf_win_first_with_its_exact_value() {
    // Regression: a proven win with 0 visits was listed below unproven moves with Q +0.000.
    let out = alphazero(&[
        "analyze",
        "--game",
        "gomoku",
        "--position",
        VCF_9_PLY,
        "--sims",
        "200",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let first = out
        .stdout
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("rank"))
        .nth(1)
        .unwrap_or_else(|| panic!("no rank-1 row: {}", out.stdout));
    assert!(
        first.contains("proven Win"),
        "rank 1: {first}\n{}",
        out.stdout
    );
    assert!(first.contains("+1.000"), "rank 1: {first}");
    let best = out
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("best "))
        .unwrap_or_else(|| panic!("no best line: {}", out.stdout));
    assert!(
        first.split_whitespace().nth(1) == best.split_whitespace().next(),
        "best {best} is not the rank-1 move {first}"
    );
}

#[test]
fn analyze_prints_a_dash_not_q_zero_for_unvisited_moves() {
    // 3 simulations over Connect Four's 7 moves: some moves get no visit, and their Q used to
    // read `+0.000`, like a drawn move.
    let out = alphazero(&["analyze", "--game", "connect4", "--sims", "3", "--top", "7"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let rows: Vec<Vec<&str>> = out
        .stdout
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("rank"))
        .skip(1)
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .take_while(|w| w.len() >= 6 && w[0].parse::<u32>().is_ok())
        .collect();
    assert_eq!(rows.len(), 7, "{}", out.stdout);
    let unvisited: Vec<&Vec<&str>> = rows.iter().filter(|w| w[2] == "0").collect();
    assert!(!unvisited.is_empty(), "{}", out.stdout);
    for w in &unvisited {
        assert_eq!(w[4], "-", "unvisited move's Q: {w:?}");
    }
    for w in rows.iter().filter(|w| w[2] != "0") {
        assert!(w[4].parse::<f64>().is_ok(), "visited move's Q: {w:?}");
    }
}

#[test]
fn analyze_png_has_a_legend_and_lettered_xiangqi_pieces() {
    // Xiangqi pieces were rings of different sizes, with no letters and no legend (Gomoku and
    // Connect Four had no legend either).
    let dir = fresh_dir("analyze_legend");
    for game in ["xiangqi", "connect4", "gomoku"] {
        let png = dir.join(format!("{game}.png"));
        let out = alphazero(&[
            "analyze",
            "--game",
            game,
            "--sims",
            "4",
            "--out",
            png.to_str().unwrap(),
        ]);
        assert_eq!(out.code, 0, "{game}: {}", out.stderr);
        let bytes = std::fs::read(&png).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(&bytes[..]));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0u8; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        let w = info.width as usize;
        let px = |x: usize, y: usize| {
            let i = (y * w + x) * 3;
            (buf[i], buf[i + 1], buf[i + 2])
        };
        // The legend band above the board holds ink: the side names in one line, and for
        // Xiangqi two more lines with the piece letters' meanings.
        // (The board's own labels start below the 30-pixel margin under the legend.)
        let inked = |ys: std::ops::Range<usize>| {
            ys.filter(|&y| (0..w).any(|x| px(x, y) == (60, 45, 25)))
                .count()
        };
        let sides = inked(0..26);
        assert!(
            sides >= 8,
            "{game}: {sides} inked rows in the legend's first line"
        );
        if game == "xiangqi" {
            let letters = inked(26..70);
            assert!(
                letters >= 20,
                "xiangqi: {letters} inked rows in the letters' legend"
            );
        }
        assert_coordinate_labels_are_drawn(&bytes, game);
    }
}

/// `--review` searches every position of a game: a move that leaves a win in one on the
/// board is marked `??`, the winning move and the forced block are not, and each side's
/// marks are counted.
#[test]
fn analyze_review_marks_the_move_that_leaves_a_win_in_one() {
    let dir = fresh_dir("analyze_review");
    let pgn = dir.join("game.pgn");
    // The first player stacks three in column 1 while the second takes the centre (a good
    // position, +0.3 by the network), then plays 5 instead of blocking at 1 and loses.
    std::fs::write(
        &pgn,
        "[Game \"connect4\"]\n[Result \"1-0\"]\n\n1. 1 4 2. 1 4 3. 1 5 4. 1 1-0\n",
    )
    .unwrap();
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/models/connect4.azc");
    let args = [
        "analyze",
        "--game",
        "connect4",
        "--model",
        model,
        "--file",
        pgn.to_str().unwrap(),
        "--review",
        "--sims",
        "200",
    ];
    let out = alphazero(&args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let rows: Vec<Vec<&str>> = out
        .stdout
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|t| t[0].parse::<usize>().is_ok() && t.iter().any(|w| w.ends_with('%')))
        .collect();
    assert_eq!(rows.len(), 7, "one line a move: {}", out.stdout);
    // The first column is the move's number, 1 for the game's first move.
    assert!(
        out.stdout
            .lines()
            .any(|l| l.trim_start().starts_with("move  side")),
        "{}",
        out.stdout
    );
    let mark = |ply: usize| {
        let row = &rows[ply - 1];
        assert_eq!(row[0], ply.to_string(), "{}", out.stdout);
        row.last().copied().filter(|w| w.starts_with('?'))
    };
    assert_eq!(mark(6), Some("??"), "{}", out.stdout);
    assert_eq!(mark(7), None, "the winning move: {}", out.stdout);
    assert_eq!(mark(2), None, "the centre: {}", out.stdout);
    assert_eq!(mark(4), None, "the centre: {}", out.stdout);
    // The last move wins: its Q is +1 whether or not the search visited it.
    assert!(
        rows[6].iter().any(|w| w.trim_end_matches('*') == "+1.000"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .lines()
            .any(|l| l.trim() == "second (O): 0 `?`, 1 `??`"),
        "the count per side: {}",
        out.stdout
    );
}

/// Regression (fresh-user trial): the second game of a file was announced as `game 1`.
/// Games are numbered from 1 as people count them, beside the --game-index (from 0) that
/// picks each, in the line saying what is analysed and in the errors.
#[test]
fn analyze_numbers_the_games_of_a_file_from_one_beside_their_index() {
    let dir = fresh_dir("analyze_game_numbers");
    let pgn = dir.join("two.pgn");
    std::fs::write(
        &pgn,
        "[Game \"connect4\"]\n[Red \"a\"]\n[Yellow \"b\"]\n\n1. 4 4 *\n\n\
         [Game \"connect4\"]\n[Red \"c\"]\n[Yellow \"d\"]\n\n1. 3 3 2. 3 *\n",
    )
    .unwrap();
    let file = pgn.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "analyze", "--game", "connect4", "--file", file, "--sims", "20",
        ];
        args.extend_from_slice(extra);
        alphazero(&args)
    };
    let out = run(&["--game-index", "1"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("two.pgn: game 2 of 2 (--game-index 1), c vs d, position after 3 of 3 moves"),
        "{}",
        out.stderr
    );
    let out = run(&["--ply", "9"]);
    assert_clean_error(&out, "--ply 9");
    assert!(
        out.stderr
            .contains("--ply 9: game 1 of 2 (--game-index 0) of "),
        "{}",
        out.stderr
    );
}

#[test]
fn analyze_review_needs_a_file_and_no_heatmap() {
    for args in [
        vec!["analyze", "--game", "connect4", "--review"],
        vec![
            "analyze", "--game", "connect4", "--review", "--file", "x.pgn", "--out", "x.png",
        ],
        vec![
            "analyze", "--game", "connect4", "--review", "--file", "x.pgn", "--top", "3",
        ],
    ] {
        assert_clean_error(&alphazero(&args), &format!("{args:?}"));
    }
    let dir = fresh_dir("analyze_review_end");
    let pgn = dir.join("game.pgn");
    std::fs::write(&pgn, "[Game \"connect4\"]\n\n1. 4 4 *\n").unwrap();
    for ply in ["2", "3"] {
        let args = [
            "analyze",
            "--game",
            "connect4",
            "--file",
            pgn.to_str().unwrap(),
            "--review",
            "--ply",
            ply,
        ];
        assert_clean_error(&alphazero(&args), &format!("{args:?}"));
    }
}

/// Regression (fresh-user trial): the heatmap PNG had no title, no side to move and no scale
/// of its shades. The band above the board now holds the title (the side to move, the
/// simulations, the best move) and a scale from no shade to the hottest cell's shade.
#[test]
fn analyze_png_has_a_title_and_a_scale_of_its_shades() {
    let dir = fresh_dir("analyze-scale");
    let png = dir.join("heat.png");
    let out = alphazero(&[
        "analyze",
        "--game",
        "connect4",
        "--position",
        "44",
        "--sims",
        "50",
        "--out",
        png.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let bytes = std::fs::read(&png).unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(&bytes[..]));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0u8; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let (w, h) = (info.width as usize, info.height as usize);
    let px = |x: usize, y: usize| {
        let i = (y * w + x) * 3;
        (buf[i], buf[i + 1], buf[i + 2])
    };
    // The board's 6 rows of 40 pixels and its margins leave the band above for the title,
    // the scale and the sides, a line each (it was the sides' line alone).
    let band = h - (6 * 40 + 2 * 30);
    assert!(band >= 3 * 22, "{band} pixels above the board");
    // Ink of the title on the first line; the hottest shade (255, 42 or 43, 16) in the
    // scale's row, which lies in the band, above the board.
    let first_line_ink = (0..w)
        .flat_map(|x| (4..22).map(move |y| (x, y)))
        .filter(|&(x, y)| px(x, y) == (60, 45, 25))
        .count();
    assert!(
        first_line_ink > 50,
        "{first_line_ink} ink pixels in the title line"
    );
    let hottest_in_band = (0..w)
        .flat_map(|x| (0..band).map(move |y| (x, y)))
        .any(|(x, y)| matches!(px(x, y), (255, 42..=43, 16)));
    assert!(hottest_in_band, "no scale in the band above the board");
    assert!(out.stdout.contains("first (X) to move;"), "{}", out.stdout);
}
