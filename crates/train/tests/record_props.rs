//! Property tests of the record format: exact round trips and no panics on arbitrary input.

use alphazero_train::record::{
    read_records, read_records_any, write_records, GameFlags, GameRecord, GameResult, PlyRecord,
    RecordHeader,
};
use proptest::prelude::*;

fn ply(num_actions: u16) -> impl Strategy<Value = PlyRecord> {
    (
        0..num_actions,
        prop::collection::vec((0..num_actions, any::<u16>()), 0..8),
        -1.0f32..=1.0,
        any::<u16>(),
        any::<bool>(),
    )
        .prop_map(
            |(action, policy, root_value, simulations, threat)| PlyRecord {
                action,
                policy,
                root_value,
                simulations,
                threat,
            },
        )
}

fn game(num_actions: u16) -> impl Strategy<Value = GameRecord> {
    (
        "[a-z0-9/ ]{0,12}",
        prop_oneof![
            Just(GameResult::FirstWon),
            Just(GameResult::Draw),
            Just(GameResult::SecondWon)
        ],
        any::<(bool, bool, bool)>(),
        prop::collection::vec(ply(num_actions), 0..12),
    )
        .prop_map(
            |(start, result, (resigned, no_resign, truncated), plies)| GameRecord {
                start,
                result,
                flags: GameFlags {
                    resigned,
                    no_resign,
                    truncated,
                },
                plies,
            },
        )
}

proptest! {
    #[test]
    fn any_records_roundtrip_exactly(
        games in prop::collection::vec(game(90), 0..6),
        config in "[ -~]{0,20}",
        first_game_id in any::<u64>(),
    ) {
        let header = RecordHeader {
            game: "xiangqi-ish".into(),
            config,
            num_actions: 90,
            first_game_id,
        };
        let bytes = write_records(&header, &games).unwrap();
        let back = read_records(&bytes, "xiangqi-ish", 90).unwrap();
        prop_assert_eq!(back.header, header);
        prop_assert_eq!(back.games, games);
    }

    #[test]
    fn arbitrary_bytes_after_the_prefix_never_panic(tail in prop::collection::vec(any::<u8>(), 0..256)) {
        let mut bytes = b"AZRC\x01\x00".to_vec();
        bytes.extend_from_slice(&tail);
        let _ = read_records_any(&bytes);
    }

    #[test]
    fn corrupted_payload_bytes_are_errors_or_valid_files(
        games in prop::collection::vec(game(7), 1..3),
        flip in any::<prop::sample::Index>(),
        value in any::<u8>(),
    ) {
        let header = RecordHeader { game: "connect4".into(), config: String::new(), num_actions: 7, first_game_id: 0 };
        let mut bytes = write_records(&header, &games).unwrap();
        let i = 6 + flip.index(bytes.len() - 6);
        bytes[i] = value;
        // Either an error or a decodable file; never a panic or an out-of-range action.
        if let Ok(f) = read_records_any(&bytes) {
            for g in &f.games {
                for p in &g.plies {
                    prop_assert!(u32::from(p.action) < f.header.num_actions);
                }
            }
        }
    }
}
