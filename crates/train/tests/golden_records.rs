//! Golden test of the record format: a committed record file decodes to known records, and
//! writing those records reproduces the file byte for byte. `connect4-v1.azr` was written by
//! the version-1 writer (no checksums) and must keep decoding to the same records, so run
//! directories from older builds still resume; it is never regenerated.
//!
//! `connect4-v3.azr` holds the same games with game 0 restarted (a prefix of two moves): files
//! with a restarted game are version 3, the others still version 2.
//!
//! Regenerate the current-version files (after a deliberate format change or a zstd upgrade
//! that changes the compressed bytes) with
//! `UPDATE_GOLDEN=1 cargo test --release --workspace --test golden_records`.

use alphazero_game::Game;
use alphazero_registry::games::Connect4;
use alphazero_train::record::{
    read_records, write_records, GameFlags, GameRecord, GameResult, PlyRecord, RecordFile,
    RecordHeader,
};
use alphazero_train::replay::ReplayBuffer;

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/connect4-v2.azr");
/// The games of [`expected_restarted`]: version 3.
const GOLDEN_V3: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/connect4-v3.azr");
/// Written by the version-1 writer; read only.
const GOLDEN_V1: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/connect4-v1.azr");

fn expected() -> RecordFile {
    // Game 0: the first player stacks column 4 (0-based 3) and wins vertically at ply 7.
    let cols = [3u16, 2, 3, 2, 3, 2, 3];
    let game0 = GameRecord {
        start: String::new(),
        result: GameResult::FirstWon,
        flags: GameFlags::default(),
        prefix: Vec::new(),
        plies: cols
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let other = if c == 3 { 2 } else { 3 };
                PlyRecord::new(
                    c,
                    &[(c, 0.7), (other, 0.2), (0, 0.1)],
                    0.1 * i as f32 - 0.3,
                    if i == 1 { 0 } else { 200 },
                )
            })
            .collect(),
    };
    // Game 1: from a set-up position "44", second player resigns after two moves.
    let mut game1 = GameRecord {
        start: "44".into(),
        result: GameResult::FirstWon,
        flags: GameFlags {
            resigned: true,
            no_resign: false,
            truncated: false,
        },
        prefix: Vec::new(),
        plies: vec![
            PlyRecord::new(4, &[(4, 0.5), (2, 0.5)], 0.95, 64),
            PlyRecord::new(
                0,
                &[(0, 1.0 / 3.0), (1, 1.0 / 3.0), (6, 1.0 / 3.0)],
                -0.99,
                64,
            ),
        ],
    };
    game1.plies[1].threat = true;
    // Game 2: an empty, truncated no-resign draw.
    let game2 = GameRecord {
        start: String::new(),
        result: GameResult::Draw,
        flags: GameFlags {
            resigned: false,
            no_resign: true,
            truncated: true,
        },
        prefix: Vec::new(),
        plies: vec![],
    };
    RecordFile {
        header: RecordHeader {
            game: "connect4".into(),
            config: "7x6".into(),
            num_actions: 7,
            first_game_id: 1000,
        },
        games: vec![game0, game1, game2],
    }
}

/// [`expected`] with game 0 restarted after the moves a1 (column 0) and g1 (column 6).
fn expected_restarted() -> RecordFile {
    let mut f = expected();
    f.games[0].prefix = vec![0, 6];
    f
}

#[test]
fn writing_the_restarted_records_reproduces_the_version_3_golden_bytes() {
    let f = expected_restarted();
    let bytes = write_records(&f.header, &f.games).unwrap();
    if std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1") {
        std::fs::write(GOLDEN_V3, &bytes).unwrap();
    }
    let golden = std::fs::read(GOLDEN_V3).expect("golden file (regenerate with UPDATE_GOLDEN=1)");
    assert_eq!(&golden[..6], b"AZRC\x03\x00");
    assert_eq!(bytes, golden);
    assert_eq!(read_records(&golden, "connect4", 7).unwrap(), f);
}

#[test]
fn restarted_golden_game_replays_its_prefix_without_training_on_it() {
    let f = read_records(&std::fs::read(GOLDEN_V3).unwrap(), "connect4", 7).unwrap();
    let buf = ReplayBuffer::rebuild_from(&[f], 100, &Connect4::new(&Default::default())).unwrap();
    // The same 8 samples as without the prefix: its two moves are not trained on.
    assert_eq!(buf.len(), 8);
    let game0: Vec<_> = buf.iter().filter(|s| s.game_id == 1000).collect();
    assert_eq!(game0.len(), 6);
    // Plies count from the start: game 0's first position is the one after a1 g1.
    assert_eq!(game0[0].ply, 2);
    assert_eq!(game0[0].position, Connect4::from_moves("17").unwrap());
    assert_eq!(game0[0].z, 1.0, "the first player (to move) won this game");
    assert_eq!(
        game0.last().unwrap().position,
        Connect4::from_moves("17434343").unwrap()
    );
}

#[test]
fn writing_the_expected_records_reproduces_the_golden_bytes() {
    let f = expected();
    let bytes = write_records(&f.header, &f.games).unwrap();
    if std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1") {
        std::fs::write(GOLDEN, &bytes).unwrap();
    }
    let golden = std::fs::read(GOLDEN).expect("golden file (regenerate with UPDATE_GOLDEN=1)");
    assert_eq!(bytes, golden);
    assert_eq!(bytes, write_records(&f.header, &f.games).unwrap());
}

#[test]
fn golden_file_decodes_to_the_expected_records() {
    let golden = std::fs::read(GOLDEN).unwrap();
    assert_eq!(&golden[..6], b"AZRC\x02\x00");
    let f = read_records(&golden, "connect4", 7).unwrap();
    assert_eq!(f, expected());
    assert_eq!(
        f.games[0].plies[0].policy,
        vec![(3, 45875), (2, 13107), (0, 6554)]
    );
}

#[test]
fn version_1_file_from_the_old_writer_still_decodes_to_the_same_records() {
    let v1 = std::fs::read(GOLDEN_V1).unwrap();
    assert_eq!(&v1[..6], b"AZRC\x01\x00");
    assert_eq!(read_records(&v1, "connect4", 7).unwrap(), expected());
}

#[test]
fn golden_games_replay_into_the_buffer() {
    for path in [GOLDEN, GOLDEN_V1] {
        golden_games_replay(path);
    }
}

fn golden_games_replay(path: &str) {
    let f = read_records(&std::fs::read(path).unwrap(), "connect4", 7).unwrap();
    let buf = ReplayBuffer::rebuild_from(&[f], 100, &Connect4::new(&Default::default())).unwrap();
    // 7 plies minus one fast ply, plus 2 plies of game 1.
    assert_eq!(buf.len(), 8);
    let newest = buf.get(0).unwrap();
    assert_eq!((newest.game_id, newest.ply, newest.threat), (1001, 3, true));
    // Game 1 starts after "44": ply 2, first player to move, first player won.
    assert_eq!(buf.get(1).unwrap().z, 1.0);
    assert_eq!(newest.z, -1.0);
    let last_of_game0 = buf.get(2).unwrap();
    assert_eq!(
        last_of_game0.position,
        Connect4::from_moves("434343").unwrap()
    );
    assert!(last_of_game0.position.outcome().is_none());
}
