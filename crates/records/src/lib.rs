//! The compact, versioned binary game-record format (`.azr` files).
//!
//! # Layout (version 3)
//! All integers little-endian. The first six bytes are plain so that a wrong or newer file
//! is recognised without decompressing; then comes exactly one zstd frame that carries zstd's
//! content checksum (the low 32 bits of the XXH64 of the decompressed payload, written by the
//! encoder with `include_checksum(true)` and verified by the decoder) and the payload size in
//! its frame header; the last four bytes are a CRC-32 of every byte before them.
//!
//! ```text
//! magic            4 bytes  b"AZRC"
//! version          u16      3 (or 2, see below)
//! -- one zstd frame (content checksum flag set, content size in the header) --
//! game name        u16 length + UTF-8        (Game::NAME, e.g. "connect4")
//! config text      u32 length + UTF-8        (the game spec, e.g. "gomoku:15:renju")
//! action space     u32                       (Game::num_actions)
//! first game id    u64                       (id of the first game; the others follow)
//! game count       u32
//! per game:
//!   start          u32 length + UTF-8        (start position, e.g. FEN; "" = default start)
//!   result         i8                        (+1 first player won, 0 draw, -1 second won)
//!   flags          u8                        (bit 0 resigned, bit 1 no-resign game, bit 2 truncated)
//!   prefix count   u32                       (version 3 only; absent in versions 1 and 2)
//!   prefix         count × action u16        (a restarted game: the moves played from the
//!                                             start position before its first ply, each an
//!                                             action index of the position before it)
//!   ply count      u32
//!   per ply:
//!     action       u16                       (action index of the move played, from the
//!                                             position before it, as Game::move_to_action)
//!     flags        u8                        (bit 0 threat: the caller marked a hard position)
//!     simulations  u16                       (0 = fast playout-cap move, not to train on)
//!     root value   f32                       (search value from the side to move)
//!     policy len   u16
//!     policy       len × (action u16, probability u16 quantised: p = q / 65535)
//! -- end of the zstd frame --
//! file CRC         u32      CRC-32 (IEEE, as in zlib and PNG) of all bytes before it
//! ```
//!
//! Action indices may depend on the side to move; replaying the moves from the start position
//! (the prefix, then the plies) reproduces the positions they were taken from.
//!
//! # Versions 2 and 3
//! Version 3 adds the per-game prefix of a restarted game (a self-play game that started from
//! a position of an earlier game: [`GameRecord::prefix`]). Files without any restarted game
//! are still written as version 2, byte for byte as before, so that a run without restarts
//! stays readable by builds that know only version 2; a file holding a restarted game is
//! written as version 3. Both are read, a version-2 game having an empty prefix.
//!
//! # Integrity
//! Two checks, each for what the other cannot see. zstd's content checksum covers the
//! decompressed payload, so a corrupt frame can never decode to different records; but zstd
//! ignores some bits of a frame (an unused header bit, the single-segment flag, padding and
//! unused table entries inside compressed blocks), so a flip there would decode to the same
//! records unnoticed. The file CRC-32 covers every byte as stored (it detects any change of one
//! byte, and any burst up to 32 bits) and is checked first. A version-2 or 3 reader also refuses a
//! frame without the checksum flag or with bytes between the frame and the CRC. So a changed
//! byte anywhere in a file is an error ([`RecordError::ChecksumMismatch`],
//! [`RecordError::BadMagic`] or [`RecordError::UnsupportedVersion`]), never a different game
//! and never a panic. The payload is still parsed strictly (ranges, lengths, no trailing bytes)
//! behind the checksums.
//!
//! # Version 1 (read only)
//! Version 1 (files written before the checksums) is the magic, the version and the same
//! payload in a zstd frame without content checksum, and no file CRC. It is still read (a run
//! directory written by an older build resumes); only zstd's own frame checks and the strict
//! parse guard it. Nothing writes version 1 any more.

#![deny(missing_docs)]

use std::io::Read;

use alphazero_registry::{GameSpec, SpecError};

/// The file magic.
pub const MAGIC: [u8; 4] = *b"AZRC";
/// The newest format version this crate writes and reads (version 3: games may have a
/// prefix; files without one are written as [`NO_PREFIX_VERSION`]).
pub const FORMAT_VERSION: u16 = 3;
/// The version written for files in which no game has a prefix (their layout is version 2's).
pub const NO_PREFIX_VERSION: u16 = 2;
/// The oldest format version this crate still reads (version 1: no frame checksum).
pub const OLDEST_READABLE_VERSION: u16 = 1;
/// The zstd compression level used for writing.
pub const ZSTD_LEVEL: i32 = 9;
/// Upper bound on the decompressed size of one file (guards against decompression bombs).
pub const MAX_DECOMPRESSED_BYTES: u64 = 1 << 30;

const GAME_FLAG_RESIGNED: u8 = 1;
const GAME_FLAG_NO_RESIGN: u8 = 2;
const GAME_FLAG_TRUNCATED: u8 = 4;
const PLY_FLAG_THREAT: u8 = 1;

/// An error reading or writing a record file. Carries the offending values.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The file does not start with [`MAGIC`].
    #[error(
        "not a game-record file: it starts with \"{}\", not \"AZRC\"{}",
        found.escape_ascii(),
        if found.is_empty() { " (the file is empty)" } else { "" }
    )]
    BadMagic {
        /// The first (up to four) bytes found.
        found: Vec<u8>,
    },
    /// The file has a format version this build cannot read.
    #[error(
        "unsupported record format version {found} (this build reads versions \
         {OLDEST_READABLE_VERSION} to {FORMAT_VERSION})"
    )]
    UnsupportedVersion {
        /// The version in the file.
        found: u16,
    },
    /// The data ends in the middle of a field.
    #[error("record data truncated: needed {needed} more bytes for {what} at offset {offset}, {available} available")]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Offset in the decompressed payload (or in the file for the plain prefix).
        offset: usize,
        /// Bytes needed.
        needed: usize,
        /// Bytes left.
        available: usize,
    },
    /// The file holds records of another game or action space than expected.
    #[error("record file is for game {found_game:?} with {found_actions} actions, expected {expected_game:?} with {expected_actions}")]
    GameMismatch {
        /// Game name in the file.
        found_game: String,
        /// Action-space size in the file.
        found_actions: u32,
        /// The game name the caller expected.
        expected_game: String,
        /// The action-space size the caller expected.
        expected_actions: u32,
    },
    /// The file CRC-32 (versions 2 and 3) does not match the bytes before it: the file was changed
    /// or cut short after it was written.
    #[error("record file is damaged or cut short (checksum mismatch: stored CRC-32 {stored:#010x}, computed {computed:#010x} over {len} bytes)")]
    ChecksumMismatch {
        /// The CRC-32 stored in the last four bytes.
        stored: u32,
        /// The CRC-32 of the bytes before them.
        computed: u32,
        /// How many bytes the CRC was computed over.
        len: usize,
    },
    /// The zstd frame could not be decompressed: corrupt, cut short, or (versions 2 and 3) its
    /// content checksum does not match the payload.
    #[error("cannot decompress record payload (corrupt, cut short or checksum mismatch)")]
    Decompress(#[source] std::io::Error),
    /// The zstd frame could not be produced.
    #[error("cannot compress record payload")]
    Compress(#[source] std::io::Error),
    /// A field holds a value outside its range (or a record cannot be encoded).
    #[error("invalid record data: {what} is {value}")]
    Invalid {
        /// Which field.
        what: &'static str,
        /// The offending value, formatted.
        value: String,
    },
}

/// How a game ended, from the first player's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// The first player won (z = +1 for the first player).
    FirstWon,
    /// Draw (z = 0).
    Draw,
    /// The second player won (z = -1 for the first player).
    SecondWon,
}

impl GameResult {
    /// z in {+1, 0, -1} from the first player's view.
    pub fn z_first(self) -> i8 {
        match self {
            GameResult::FirstWon => 1,
            GameResult::Draw => 0,
            GameResult::SecondWon => -1,
        }
    }

    /// The result for z from the first player's view (`None` unless z is -1, 0 or +1).
    pub fn from_z_first(z: i8) -> Option<Self> {
        match z {
            1 => Some(GameResult::FirstWon),
            0 => Some(GameResult::Draw),
            -1 => Some(GameResult::SecondWon),
            _ => None,
        }
    }

    /// The result given the [`alphazero_game::Outcome`] read in the final position and the
    /// side to move there.
    pub fn from_outcome(
        outcome: alphazero_game::Outcome,
        side_to_move: alphazero_game::Side,
    ) -> Self {
        match outcome.winner(side_to_move) {
            Some(alphazero_game::Side::First) => GameResult::FirstWon,
            Some(alphazero_game::Side::Second) => GameResult::SecondWon,
            None => GameResult::Draw,
        }
    }
}

/// Per-game flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GameFlags {
    /// The game ended by resignation.
    pub resigned: bool,
    /// Resignation was disabled for this game (to measure false resignations).
    pub no_resign: bool,
    /// The game was cut off at the ply limit and adjudicated.
    pub truncated: bool,
}

impl GameFlags {
    fn to_bits(self) -> u8 {
        (self.resigned as u8 * GAME_FLAG_RESIGNED)
            | (self.no_resign as u8 * GAME_FLAG_NO_RESIGN)
            | (self.truncated as u8 * GAME_FLAG_TRUNCATED)
    }

    fn from_bits(bits: u8) -> Option<Self> {
        if bits & !(GAME_FLAG_RESIGNED | GAME_FLAG_NO_RESIGN | GAME_FLAG_TRUNCATED) != 0 {
            return None;
        }
        Some(GameFlags {
            resigned: bits & GAME_FLAG_RESIGNED != 0,
            no_resign: bits & GAME_FLAG_NO_RESIGN != 0,
            truncated: bits & GAME_FLAG_TRUNCATED != 0,
        })
    }
}

/// Quantises a probability in `[0, 1]` to `u16` (`round(p · 65535)`, clamped; NaN → 0).
pub fn quantise_prob(p: f32) -> u16 {
    if p.is_nan() {
        return 0;
    }
    (p.clamp(0.0, 1.0) * 65535.0).round() as u16
}

/// The probability of a quantised value: `q / 65535`.
pub fn dequantise_prob(q: u16) -> f32 {
    q as f32 / 65535.0
}

/// One move of a recorded game with the search result at the position before it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlyRecord {
    /// Action index of the move played, in the position before it.
    pub action: u16,
    /// The search policy π as a sparse list of (action index, quantised probability
    /// `q`, p = q / 65535), actions in the position before the move.
    pub policy: Vec<(u16, u16)>,
    /// The root value of the search, from the side to move, in `[-1, 1]`.
    pub root_value: f32,
    /// Number of simulations of the search; 0 marks a fast playout-cap move that is not
    /// trained on.
    pub simulations: u16,
    /// The caller marked this position as a hard one (threat) for hard-position mining.
    pub threat: bool,
}

impl PlyRecord {
    /// A ply from a float policy (quantised with [`quantise_prob`]; zero entries dropped).
    pub fn new(action: u16, policy: &[(u16, f32)], root_value: f32, simulations: u16) -> Self {
        PlyRecord {
            action,
            policy: policy
                .iter()
                .map(|&(a, p)| (a, quantise_prob(p)))
                .filter(|&(_, q)| q > 0)
                .collect(),
            root_value,
            simulations,
            threat: false,
        }
    }

    /// The policy as (action, probability) with probabilities dequantised.
    pub fn policy_f32(&self) -> impl Iterator<Item = (u16, f32)> + '_ {
        self.policy.iter().map(|&(a, q)| (a, dequantise_prob(q)))
    }
}

/// One recorded game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// The start position as text (e.g. FEN); empty for the default start of the config.
    pub start: String,
    /// The result from the first player's view.
    pub result: GameResult,
    /// Resignation / truncation flags.
    pub flags: GameFlags,
    /// A restarted game (a self-play game that started from a position of an earlier game):
    /// the moves played from `start` before its first ply, as action indices (each in the
    /// position before it). They belong to the earlier game: no search data, never training
    /// targets of this one, whose result and π are its own. Empty for a game played from
    /// `start` (every game of a version-1 or version-2 file).
    pub prefix: Vec<u16>,
    /// The moves with their search data, in order.
    pub plies: Vec<PlyRecord>,
}

impl GameRecord {
    /// Every move of the game from `start` as action indices: the prefix, then the plies.
    pub fn actions(&self) -> impl Iterator<Item = u16> + '_ {
        self.prefix
            .iter()
            .copied()
            .chain(self.plies.iter().map(|p| p.action))
    }
}

/// The header of a record file.
///
/// The game is stored as two texts, its name and its [`GameSpec`] (written by
/// [`RecordHeader::for_spec`], read back by [`RecordHeader::spec`]); the format itself reads
/// any texts, so files written before the registry (the configuration's `Debug` text) still
/// read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordHeader {
    /// The game's name ([`alphazero_game::Game::NAME`]).
    pub game: String,
    /// The game's spec as text (`gomoku:15:renju`, `connect4`); files written before the
    /// registry hold the rules configuration's `Debug` text instead.
    pub config: String,
    /// Size of the action space ([`alphazero_game::Game::num_actions`]).
    pub num_actions: u32,
    /// The id of the first game in the file; game `i` has id `first_game_id + i`.
    pub first_game_id: u64,
}

/// A decoded record file.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordFile {
    /// The header.
    pub header: RecordHeader,
    /// The games, in file order.
    pub games: Vec<GameRecord>,
}

impl RecordHeader {
    /// The header of a file of games of `spec` (`num_actions` = [`alphazero_game::Game::num_actions`]),
    /// whose first game has id `first_game_id`.
    pub fn for_spec(spec: &GameSpec, num_actions: u32, first_game_id: u64) -> RecordHeader {
        RecordHeader {
            game: spec.name().to_string(),
            config: spec.to_string(),
            num_actions,
            first_game_id,
        }
    }

    /// The game of the records: the spec written by [`RecordHeader::for_spec`], or the one
    /// named by the configuration text of a file written before the registry.
    ///
    /// # Errors
    /// [`SpecError`] (naming both texts) for a game this build does not know or a text that
    /// names no valid spec.
    pub fn spec(&self) -> Result<GameSpec, SpecError> {
        GameSpec::from_header(&self.game, &self.config)
    }
}

fn put_str<const W: usize>(
    out: &mut Vec<u8>,
    s: &str,
    what: &'static str,
) -> Result<(), RecordError> {
    let len = s.len();
    let max = if W == 2 {
        u16::MAX as usize
    } else {
        u32::MAX as usize
    };
    if len > max {
        return Err(RecordError::Invalid {
            what,
            value: format!("a string of {len} bytes (at most {max})"),
        });
    }
    out.extend_from_slice(&(len as u64).to_le_bytes()[..W]);
    out.extend_from_slice(s.as_bytes());
    Ok(())
}

/// Encodes a record file: the magic and the version ([`FORMAT_VERSION`] when a game has a
/// prefix, else [`NO_PREFIX_VERSION`]), the payload in one zstd frame with its content
/// checksum, and the file CRC-32. The output is a pure function of the input (deterministic
/// for a given zstd library version).
///
/// # Errors
/// [`RecordError::Invalid`] when a record cannot be represented: an action (played, in π or
/// in a prefix) `>= header.num_actions`, more than 65535 policy entries or a string too long;
/// [`RecordError::Compress`] when zstd fails.
pub fn write_records(header: &RecordHeader, games: &[GameRecord]) -> Result<Vec<u8>, RecordError> {
    let version = if games.iter().any(|g| !g.prefix.is_empty()) {
        FORMAT_VERSION
    } else {
        NO_PREFIX_VERSION
    };
    let payload = encode_payload(header, games, version)?;
    let mut out = Vec::with_capacity(6 + payload.len() / 4);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    let mut zstd = zstd::bulk::Compressor::new(ZSTD_LEVEL).map_err(RecordError::Compress)?;
    zstd.include_checksum(true).map_err(RecordError::Compress)?;
    let compressed = zstd.compress(&payload).map_err(RecordError::Compress)?;
    out.extend_from_slice(&compressed);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    Ok(out)
}

/// The payload of `version` (1 and 2 have no prefixes: a game with one is an error there).
fn encode_payload(
    header: &RecordHeader,
    games: &[GameRecord],
    version: u16,
) -> Result<Vec<u8>, RecordError> {
    let mut p = Vec::new();
    put_str::<2>(&mut p, &header.game, "game name")?;
    put_str::<4>(&mut p, &header.config, "config text")?;
    p.extend_from_slice(&header.num_actions.to_le_bytes());
    p.extend_from_slice(&header.first_game_id.to_le_bytes());
    let count = u32::try_from(games.len()).map_err(|_| RecordError::Invalid {
        what: "game count",
        value: games.len().to_string(),
    })?;
    p.extend_from_slice(&count.to_le_bytes());
    let check_action = |a: u16, what| {
        if u32::from(a) >= header.num_actions {
            Err(RecordError::Invalid {
                what,
                value: format!("{a} (action space {})", header.num_actions),
            })
        } else {
            Ok(())
        }
    };
    for g in games {
        put_str::<4>(&mut p, &g.start, "start position")?;
        p.push(g.result.z_first() as u8);
        p.push(g.flags.to_bits());
        if version >= 3 {
            let n = u32::try_from(g.prefix.len()).map_err(|_| RecordError::Invalid {
                what: "prefix length",
                value: g.prefix.len().to_string(),
            })?;
            p.extend_from_slice(&n.to_le_bytes());
            for &a in &g.prefix {
                check_action(a, "prefix action")?;
                p.extend_from_slice(&a.to_le_bytes());
            }
        } else if !g.prefix.is_empty() {
            return Err(RecordError::Invalid {
                what: "prefix",
                value: format!(
                    "{} moves (format version {version} has no prefixes)",
                    g.prefix.len()
                ),
            });
        }
        let n = u32::try_from(g.plies.len()).map_err(|_| RecordError::Invalid {
            what: "ply count",
            value: g.plies.len().to_string(),
        })?;
        p.extend_from_slice(&n.to_le_bytes());
        for ply in &g.plies {
            check_action(ply.action, "played action")?;
            p.extend_from_slice(&ply.action.to_le_bytes());
            p.push(if ply.threat { PLY_FLAG_THREAT } else { 0 });
            p.extend_from_slice(&ply.simulations.to_le_bytes());
            p.extend_from_slice(&ply.root_value.to_le_bytes());
            let len = u16::try_from(ply.policy.len()).map_err(|_| RecordError::Invalid {
                what: "policy length",
                value: ply.policy.len().to_string(),
            })?;
            p.extend_from_slice(&len.to_le_bytes());
            for &(a, q) in &ply.policy {
                check_action(a, "policy action")?;
                p.extend_from_slice(&a.to_le_bytes());
                p.extend_from_slice(&q.to_le_bytes());
            }
        }
    }
    Ok(p)
}

/// Decodes a record file (format version 1, 2 or 3) and checks that it belongs to `game` with
/// `num_actions` actions.
///
/// # Errors
/// [`RecordError::BadMagic`], [`RecordError::UnsupportedVersion`], [`RecordError::Truncated`],
/// [`RecordError::ChecksumMismatch`] (versions 2 and 3: the file CRC-32 does not match),
/// [`RecordError::Decompress`] (corrupt frame or content checksum mismatch),
/// [`RecordError::Invalid`]
/// (out-of-range field, trailing bytes, a version-2 frame without checksum or with bytes after
/// it), [`RecordError::GameMismatch`] when the header names another game or action-space size.
pub fn read_records(bytes: &[u8], game: &str, num_actions: u32) -> Result<RecordFile, RecordError> {
    let file = read_records_any(bytes)?;
    if file.header.game != game || file.header.num_actions != num_actions {
        return Err(RecordError::GameMismatch {
            found_game: file.header.game,
            found_actions: file.header.num_actions,
            expected_game: game.to_string(),
            expected_actions: num_actions,
        });
    }
    Ok(file)
}

/// Decodes a record file of any game (for inspection tools); see [`read_records`].
///
/// # Errors
/// As [`read_records`] except [`RecordError::GameMismatch`].
pub fn read_records_any(bytes: &[u8]) -> Result<RecordFile, RecordError> {
    if bytes.len() < 4 || bytes[..4] != MAGIC {
        return Err(RecordError::BadMagic {
            found: bytes[..bytes.len().min(4)].to_vec(),
        });
    }
    if bytes.len() < 6 {
        return Err(RecordError::Truncated {
            what: "format version",
            offset: 4,
            needed: 2,
            available: bytes.len() - 4,
        });
    }
    let version = u16::from_le_bytes([bytes[4], bytes[5]]);
    if !(OLDEST_READABLE_VERSION..=FORMAT_VERSION).contains(&version) {
        return Err(RecordError::UnsupportedVersion { found: version });
    }
    let frame = if version >= 2 {
        let frame = check_v2_crc(bytes)?;
        check_v2_frame(frame)?;
        frame
    } else {
        &bytes[6..]
    };
    let mut payload = Vec::new();
    zstd::stream::read::Decoder::new(frame)
        .map_err(RecordError::Decompress)?
        .take(MAX_DECOMPRESSED_BYTES + 1)
        .read_to_end(&mut payload)
        .map_err(RecordError::Decompress)?;
    if payload.len() as u64 > MAX_DECOMPRESSED_BYTES {
        return Err(RecordError::Invalid {
            what: "decompressed size",
            value: format!("over {MAX_DECOMPRESSED_BYTES} bytes"),
        });
    }
    decode_payload(&payload, version)
}

/// The zstd frame magic number, as it appears in the file.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];
/// Bit of the zstd frame header descriptor that says a content checksum follows the frame.
const ZSTD_CHECKSUM_FLAG: u8 = 1 << 2;

/// Versions 2 and 3: checks the trailing file CRC-32 and returns the bytes between the version and
/// the CRC (the zstd frame).
fn check_v2_crc(bytes: &[u8]) -> Result<&[u8], RecordError> {
    let Some(body_len) = bytes.len().checked_sub(4).filter(|&n| n >= 6) else {
        return Err(RecordError::Truncated {
            what: "file CRC-32",
            offset: 6,
            needed: 4,
            available: bytes.len() - 6,
        });
    };
    let (body, tail) = bytes.split_at(body_len);
    let stored = u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
    let computed = crc32fast::hash(body);
    if stored != computed {
        return Err(RecordError::ChecksumMismatch {
            stored,
            computed,
            len: body_len,
        });
    }
    Ok(&body[6..])
}

/// Versions 2 and 3: `frame` is one zstd frame, with the content checksum flag, and nothing after it
/// (a writer bug, as the file CRC already matched).
fn check_v2_frame(frame: &[u8]) -> Result<(), RecordError> {
    if frame.len() < 5 {
        return Err(RecordError::Truncated {
            what: "zstd frame header",
            offset: 6,
            needed: 5,
            available: frame.len(),
        });
    }
    if frame[..4] != ZSTD_MAGIC {
        return Err(RecordError::Invalid {
            what: "zstd frame magic",
            value: format!("{:02x?}", &frame[..4]),
        });
    }
    if frame[4] & ZSTD_CHECKSUM_FLAG == 0 {
        return Err(RecordError::Invalid {
            what: "zstd frame checksum flag",
            value: format!("off (frame header descriptor {:#04x})", frame[4]),
        });
    }
    match zstd::zstd_safe::find_frame_compressed_size(frame) {
        Ok(n) if n == frame.len() => Ok(()),
        Ok(n) => Err(RecordError::Invalid {
            what: "bytes after the zstd frame",
            value: (frame.len().saturating_sub(n)).to_string(),
        }),
        Err(code) => Err(RecordError::Decompress(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            zstd::zstd_safe::get_error_name(code),
        ))),
    }
}

struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], RecordError> {
        let available = self.buf.len() - self.pos;
        if n > available {
            return Err(RecordError::Truncated {
                what,
                offset: self.pos,
                needed: n,
                available,
            });
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u8(&mut self, what: &'static str) -> Result<u8, RecordError> {
        Ok(self.take(1, what)?[0])
    }
    fn u16(&mut self, what: &'static str) -> Result<u16, RecordError> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self, what: &'static str) -> Result<u32, RecordError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self, what: &'static str) -> Result<u64, RecordError> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8, what)?);
        Ok(u64::from_le_bytes(a))
    }
    fn f32(&mut self, what: &'static str) -> Result<f32, RecordError> {
        Ok(f32::from_bits(self.u32(what)?))
    }
    fn string(&mut self, len: usize, what: &'static str) -> Result<String, RecordError> {
        let b = self.take(len, what)?;
        String::from_utf8(b.to_vec()).map_err(|e| RecordError::Invalid {
            what,
            value: format!("not UTF-8 ({e})"),
        })
    }
    fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
}

fn decode_payload(payload: &[u8], version: u16) -> Result<RecordFile, RecordError> {
    let mut c = Cursor {
        buf: payload,
        pos: 0,
    };
    let len = c.u16("game name length")? as usize;
    let game = c.string(len, "game name")?;
    let len = c.u32("config text length")? as usize;
    let config = c.string(len, "config text")?;
    let num_actions = c.u32("action space size")?;
    let first_game_id = c.u64("first game id")?;
    let count = c.u32("game count")? as usize;
    let header = RecordHeader {
        game,
        config,
        num_actions,
        first_game_id,
    };
    let check_action = |a: u16, what| {
        if u32::from(a) >= num_actions {
            Err(RecordError::Invalid {
                what,
                value: format!("{a} (action space {num_actions})"),
            })
        } else {
            Ok(())
        }
    };
    // Never trust counts for allocation beyond what the remaining bytes can hold.
    let mut games = Vec::with_capacity(count.min(c.remaining() / 10));
    for _ in 0..count {
        let len = c.u32("start position length")? as usize;
        let start = c.string(len, "start position")?;
        let z = c.u8("game result")? as i8;
        let result = GameResult::from_z_first(z).ok_or(RecordError::Invalid {
            what: "game result",
            value: z.to_string(),
        })?;
        let bits = c.u8("game flags")?;
        let flags = GameFlags::from_bits(bits).ok_or(RecordError::Invalid {
            what: "game flags",
            value: format!("{bits:#04x}"),
        })?;
        let mut prefix = Vec::new();
        if version >= 3 {
            let n = c.u32("prefix length")? as usize;
            prefix.reserve(n.min(c.remaining() / 2));
            for _ in 0..n {
                let a = c.u16("prefix action")?;
                check_action(a, "prefix action")?;
                prefix.push(a);
            }
        }
        let n = c.u32("ply count")? as usize;
        let mut plies = Vec::with_capacity(n.min(c.remaining() / 11));
        for _ in 0..n {
            let action = c.u16("played action")?;
            check_action(action, "played action")?;
            let pbits = c.u8("ply flags")?;
            if pbits & !PLY_FLAG_THREAT != 0 {
                return Err(RecordError::Invalid {
                    what: "ply flags",
                    value: format!("{pbits:#04x}"),
                });
            }
            let simulations = c.u16("simulations")?;
            let root_value = c.f32("root value")?;
            let len = c.u16("policy length")? as usize;
            let mut policy = Vec::with_capacity(len.min(c.remaining() / 4));
            for _ in 0..len {
                let a = c.u16("policy action")?;
                check_action(a, "policy action")?;
                let q = c.u16("policy probability")?;
                policy.push((a, q));
            }
            plies.push(PlyRecord {
                action,
                policy,
                root_value,
                simulations,
                threat: pbits & PLY_FLAG_THREAT != 0,
            });
        }
        games.push(GameRecord {
            start,
            result,
            flags,
            prefix,
            plies,
        });
    }
    if c.remaining() != 0 {
        return Err(RecordError::Invalid {
            what: "trailing bytes after the last game",
            value: c.remaining().to_string(),
        });
    }
    Ok(RecordFile { header, games })
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample_file() -> RecordFile {
        RecordFile {
            header: RecordHeader {
                game: "connect4".into(),
                config: String::new(),
                num_actions: 7,
                first_game_id: 40,
            },
            games: vec![
                GameRecord {
                    start: String::new(),
                    result: GameResult::FirstWon,
                    flags: GameFlags::default(),
                    prefix: Vec::new(),
                    plies: vec![
                        PlyRecord::new(3, &[(2, 0.25), (3, 0.5), (4, 0.25)], 0.125, 100),
                        PlyRecord {
                            threat: true,
                            ..PlyRecord::new(3, &[(3, 1.0)], -0.5, 0)
                        },
                    ],
                },
                GameRecord {
                    start: "4".into(),
                    result: GameResult::SecondWon,
                    flags: GameFlags {
                        resigned: true,
                        no_resign: false,
                        truncated: true,
                    },
                    prefix: Vec::new(),
                    plies: vec![],
                },
            ],
        }
    }

    /// [`sample_file`] with a restarted game: game 0 started after the moves 3, 3, 2.
    pub(crate) fn restarted_file() -> RecordFile {
        let mut f = sample_file();
        f.games[0].prefix = vec![3, 3, 2];
        f
    }

    #[test]
    fn restarted_games_roundtrip_in_version_3_and_others_stay_version_2() {
        let plain = sample_file();
        let bytes = write_records(&plain.header, &plain.games).unwrap();
        assert_eq!(&bytes[4..6], &NO_PREFIX_VERSION.to_le_bytes());
        let f = restarted_file();
        let bytes = write_records(&f.header, &f.games).unwrap();
        assert_eq!(&bytes[4..6], &3u16.to_le_bytes());
        let back = read_records(&bytes, "connect4", 7).unwrap();
        assert_eq!(back, f);
        assert_eq!(
            back.games[0].actions().collect::<Vec<_>>(),
            vec![3, 3, 2, 3, 3]
        );
        assert!(back.games[1].prefix.is_empty());
    }

    #[test]
    fn out_of_range_prefix_action_is_rejected_when_writing_and_reading() {
        let mut f = restarted_file();
        f.games[0].prefix.push(7);
        assert!(matches!(
            write_records(&f.header, &f.games),
            Err(RecordError::Invalid {
                what: "prefix action",
                ..
            })
        ));
        // The same payload written past the writer's check is refused by the reader.
        let mut header = f.header.clone();
        header.num_actions = 8;
        let mut payload = encode_payload(&header, &f.games, 3).unwrap();
        // num_actions sits after the game name (2 + 8 bytes) and the config text (4 + 0).
        payload[14..18].copy_from_slice(&7u32.to_le_bytes());
        match read_records_any(&v3_file(&payload)) {
            Err(RecordError::Invalid { what, value }) => {
                assert_eq!(what, "prefix action");
                assert!(value.starts_with('7'), "{value}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_prefix_cannot_be_encoded_in_a_version_without_prefixes() {
        let f = restarted_file();
        assert!(matches!(
            encode_payload(&f.header, &f.games, 2),
            Err(RecordError::Invalid { what: "prefix", .. })
        ));
    }

    #[test]
    fn records_roundtrip_exactly() {
        let f = sample_file();
        let bytes = write_records(&f.header, &f.games).unwrap();
        assert_eq!(&bytes[..4], b"AZRC");
        assert_eq!(read_records(&bytes, "connect4", 7).unwrap(), f);
    }

    #[test]
    fn quantisation_roundtrips_within_half_a_step() {
        for p in [0.0f32, 1.0, 0.5, 1.0 / 3.0, 1e-6] {
            assert!((dequantise_prob(quantise_prob(p)) - p).abs() <= 0.5 / 65535.0 + 1e-7);
        }
        assert_eq!(quantise_prob(f32::NAN), 0);
        assert_eq!(quantise_prob(2.0), u16::MAX);
    }

    #[test]
    fn bad_magic_is_rejected_with_the_bytes_found() {
        match read_records_any(b"PK\x03\x04rest") {
            Err(RecordError::BadMagic { found }) => assert_eq!(found, b"PK\x03\x04"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            read_records_any(b"AZ"),
            Err(RecordError::BadMagic { .. })
        ));
    }

    #[test]
    fn newer_or_zero_version_is_unsupported() {
        let f = sample_file();
        let mut bytes = write_records(&f.header, &f.games).unwrap();
        assert_eq!(&bytes[4..6], &2u16.to_le_bytes());
        for v in [0, FORMAT_VERSION + 1, u16::MAX] {
            bytes[4..6].copy_from_slice(&v.to_le_bytes());
            match read_records_any(&bytes) {
                Err(RecordError::UnsupportedVersion { found }) => assert_eq!(found, v),
                other => panic!("version {v}: {other:?}"),
            }
        }
    }

    /// A file as the version-1 writer made it: no frame checksum.
    fn write_v1(f: &RecordFile) -> Vec<u8> {
        let mut bytes = b"AZRC\x01\x00".to_vec();
        let payload = encode_payload(&f.header, &f.games, 1).unwrap();
        bytes.extend_from_slice(&zstd::bulk::compress(&payload, ZSTD_LEVEL).unwrap());
        bytes
    }

    /// Appends the file CRC-32 of `body`.
    fn with_crc(mut body: Vec<u8>) -> Vec<u8> {
        let crc = crc32fast::hash(&body);
        body.extend_from_slice(&crc.to_le_bytes());
        body
    }

    /// A version-2 file around `payload` (which need not be a valid payload).
    fn v2_file(payload: &[u8]) -> Vec<u8> {
        versioned_file(2, payload)
    }

    /// A version-3 file around `payload` (which need not be a valid payload).
    fn v3_file(payload: &[u8]) -> Vec<u8> {
        versioned_file(3, payload)
    }

    fn versioned_file(version: u16, payload: &[u8]) -> Vec<u8> {
        let mut bytes = b"AZRC".to_vec();
        bytes.extend_from_slice(&version.to_le_bytes());
        let mut z = zstd::bulk::Compressor::new(3).unwrap();
        z.include_checksum(true).unwrap();
        bytes.extend_from_slice(&z.compress(payload).unwrap());
        with_crc(bytes)
    }

    #[test]
    fn version_1_files_without_checksum_are_still_read() {
        let f = sample_file();
        let v1 = write_v1(&f);
        assert_eq!(
            v1[6 + 4] & ZSTD_CHECKSUM_FLAG,
            0,
            "the old writer had no checksum"
        );
        assert_eq!(read_records(&v1, "connect4", 7).unwrap(), f);
    }

    #[test]
    fn written_frames_carry_the_zstd_checksum() {
        let f = sample_file();
        let bytes = write_records(&f.header, &f.games).unwrap();
        assert_eq!(&bytes[6..10], &ZSTD_MAGIC);
        assert_ne!(bytes[10] & ZSTD_CHECKSUM_FLAG, 0);
    }

    #[test]
    fn version_2_frame_without_checksum_or_with_bytes_after_it_is_rejected() {
        let f = sample_file();
        // A version-1 frame relabelled as version 2 (with a matching CRC).
        let mut relabelled = write_v1(&f);
        relabelled[4..6].copy_from_slice(&NO_PREFIX_VERSION.to_le_bytes());
        assert!(matches!(
            read_records_any(&with_crc(relabelled)),
            Err(RecordError::Invalid {
                what: "zstd frame checksum flag",
                ..
            })
        ));
        // A second (valid, checksummed) frame appended before the CRC.
        let mut appended = write_records(&f.header, &f.games).unwrap();
        appended.truncate(appended.len() - 4);
        let extra = v2_file(b"more");
        appended.extend_from_slice(&extra[6..extra.len() - 4]);
        assert!(matches!(
            read_records_any(&with_crc(appended)),
            Err(RecordError::Invalid {
                what: "bytes after the zstd frame",
                ..
            })
        ));
        // Something else than a zstd frame.
        let mut not_zstd = b"AZRC\x02\x00".to_vec();
        not_zstd.extend_from_slice(&[0u8; 16]);
        assert!(matches!(
            read_records_any(&with_crc(not_zstd)),
            Err(RecordError::Invalid {
                what: "zstd frame magic",
                ..
            })
        ));
    }

    #[test]
    fn file_crc_mismatch_reports_both_values() {
        let f = sample_file();
        let mut bytes = write_records(&f.header, &f.games).unwrap();
        let n = bytes.len();
        let stored = u32::from_le_bytes(bytes[n - 4..].try_into().unwrap());
        bytes[n - 4] ^= 1;
        match read_records_any(&bytes) {
            Err(RecordError::ChecksumMismatch {
                stored: s,
                computed,
                len,
            }) => {
                assert_eq!((s, computed, len), (stored ^ 1, stored, n - 4));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn every_flipped_byte_or_bit_is_an_error_never_a_wrong_game() {
        for f in [sample_file(), restarted_file()] {
            let bytes = write_records(&f.header, &f.games).unwrap();
            let mut flipped = bytes.clone();
            for i in 0..bytes.len() {
                for mask in [0xFFu8, 1, 2, 4, 8, 16, 32, 64, 128] {
                    flipped[i] = bytes[i] ^ mask;
                    let what = format!("byte {i} of {} xor {mask:#04x}", bytes.len());
                    let version = u16::from_le_bytes([flipped[4], flipped[5]]);
                    match (i, read_records_any(&flipped)) {
                        (_, Ok(got)) => panic!(
                            "{what} was read as {}",
                            if got == f {
                                "the original"
                            } else {
                                "different records"
                            }
                        ),
                        (0..4, Err(RecordError::BadMagic { .. }))
                        | (4..6, Err(RecordError::UnsupportedVersion { .. }))
                        | (6.., Err(RecordError::ChecksumMismatch { .. })) => {}
                        // Version 2 and 3 turned into each other: the CRC covers the version.
                        (4..6, Err(RecordError::ChecksumMismatch { .. })) if version >= 2 => {}
                        // 3 turned into 1, whose files end with no CRC: the frame is refused.
                        (4..6, Err(_)) if version == 1 => {}
                        (_, Err(e)) => panic!("{what}: unexpected error {e:?}"),
                    }
                    flipped[i] = bytes[i];
                }
            }
        }
    }

    #[test]
    fn truncated_payload_names_the_field() {
        let f = sample_file();
        let payload = encode_payload(&f.header, &f.games, 2).unwrap();
        for cut in [1, 10, payload.len() / 2, payload.len() - 1] {
            match read_records_any(&v2_file(&payload[..cut])) {
                Err(RecordError::Truncated { offset, .. }) => assert!(offset <= cut),
                other => panic!("cut {cut}: {other:?}"),
            }
        }
        let f = restarted_file();
        let payload = encode_payload(&f.header, &f.games, 3).unwrap();
        for cut in [1, 10, payload.len() / 2, payload.len() - 1] {
            match read_records_any(&v3_file(&payload[..cut])) {
                Err(RecordError::Truncated { offset, .. }) => assert!(offset <= cut),
                other => panic!("cut {cut}: {other:?}"),
            }
        }
    }

    #[test]
    fn truncated_file_is_an_error_not_a_panic() {
        let f = sample_file();
        let bytes = write_records(&f.header, &f.games).unwrap();
        for cut in 0..bytes.len() {
            assert!(read_records_any(&bytes[..cut]).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn game_or_action_space_mismatch_is_rejected() {
        let f = sample_file();
        let bytes = write_records(&f.header, &f.games).unwrap();
        match read_records(&bytes, "gomoku", 225) {
            Err(RecordError::GameMismatch {
                found_game,
                found_actions,
                ..
            }) => assert_eq!((found_game.as_str(), found_actions), ("connect4", 7)),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            read_records(&bytes, "connect4", 8),
            Err(RecordError::GameMismatch { .. })
        ));
    }

    #[test]
    fn out_of_range_action_is_rejected_when_writing() {
        let mut f = sample_file();
        f.games[0].plies[0].policy.push((7, 10));
        assert!(matches!(
            write_records(&f.header, &f.games),
            Err(RecordError::Invalid {
                what: "policy action",
                ..
            })
        ));
    }

    #[test]
    fn writing_is_deterministic() {
        let f = sample_file();
        assert_eq!(
            write_records(&f.header, &f.games).unwrap(),
            write_records(&f.header, &f.games).unwrap()
        );
    }

    /// A record file written by the build before the game registry, whose header holds the
    /// Gomoku configuration's `Debug` text: written by `alphazero train --game gomoku --size 7
    /// --rule renju` at commit fb8cf69.
    const PRE_REGISTRY_RECORDS: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/legacy/gomoku-7x7-renju-v2.azr"
    );

    #[test]
    fn records_written_before_the_registry_read_their_game_as_a_spec() {
        let f = read_records(&std::fs::read(PRE_REGISTRY_RECORDS).unwrap(), "gomoku", 49).unwrap();
        assert!(f
            .header
            .config
            .starts_with("GomokuConfig { size: 7, rule: Renju"));
        let spec = GameSpec::Gomoku {
            size: 7,
            rule: alphazero_registry::games::Rule::Renju,
        };
        assert_eq!(f.header.spec().unwrap(), spec);
        assert_eq!(f.games.len(), 2);
        // Written again, the header holds the spec's text and reads back the same.
        let header = RecordHeader::for_spec(&spec, 49, f.header.first_game_id);
        assert_eq!(header.config, "gomoku:7:renju");
        let back = read_records_any(&write_records(&header, &f.games).unwrap()).unwrap();
        assert_eq!(back.header.spec().unwrap(), spec);
        assert_eq!(back.games, f.games);
    }

    #[test]
    fn a_header_naming_no_valid_game_is_an_error_naming_it() {
        let mut h = sample_file().header;
        h.game = "gomoku".into();
        h.config = "GomokuConfig { size: 30, rule: Renju }".into();
        let e = h.spec().unwrap_err().to_string();
        assert!(e.contains("gomoku") && e.contains("size: 30"), "{e}");
    }
}
