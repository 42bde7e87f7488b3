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
        // Most games from the start (no prefix), some restarted.
        prop_oneof![
            3 => Just(Vec::new()),
            1 => prop::collection::vec(0..num_actions, 1..6),
        ],
        prop::collection::vec(ply(num_actions), 0..12),
    )
        .prop_map(
            |(start, result, (resigned, no_resign, truncated), prefix, plies)| GameRecord {
                start,
                result,
                flags: GameFlags {
                    resigned,
                    no_resign,
                    truncated,
                },
                prefix,
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
    fn arbitrary_bytes_after_a_v1_v2_or_v3_prefix_never_panic(
        tail in prop::collection::vec(any::<u8>(), 0..256),
        version in 1u8..=3,
    ) {
        let mut bytes = b"AZRC".to_vec();
        bytes.extend_from_slice(&[version, 0]);
        bytes.extend_from_slice(&tail);
        let _ = read_records_any(&bytes);
    }

    #[test]
    fn any_changed_byte_of_a_written_file_is_an_error(
        games in prop::collection::vec(game(90), 1..6),
        at in any::<prop::sample::Index>(),
        mask in 1u8..=255,
    ) {
        let header = RecordHeader { game: "xiangqi-ish".into(), config: "9x10".into(), num_actions: 90, first_game_id: 0 };
        let mut bytes = write_records(&header, &games).unwrap();
        let i = at.index(bytes.len());
        bytes[i] ^= mask;
        let read = read_records_any(&bytes);
        prop_assert!(read.is_err(), "byte {} of {} xor {:#04x} was read", i, bytes.len(), mask);
    }
}
