//! Versioned checkpoint files: network weights, optimizer state and what they belong to.
//!
//! # File layout (version 1)
//!
//! All integers little-endian.
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `AZNNCKPT` |
//! | 4 | format version (`u32`, currently 1) |
//! | 8 + n | header length `n` (`u64`), then the header: UTF-8 JSON [`CheckpointHeader`] |
//! | 8 + m | weights length `m`, then the weights as a safetensors file (batch-norm running mean and variance included) |
//! | 8 + k | optimizer length `k` (0 = none), then burn's burnpack optimizer record |
//! | 8 | FNV-1a 64 checksum of every byte before it |
//!
//! Files are written atomically: a temporary file in the same directory is written,
//! fsynced and renamed over the target, then the directory is fsynced.
//!
//! Burn keys optimizer state by parameter id, which safetensors does not store; the header
//! keeps each parameter's id by module path so that a loaded model gets its ids back and the
//! optimizer state applies to it.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use alphazero_registry::GameSpec;
use burn::module::{Module, ModuleMapper, ModuleVisitor, Param, ParamId};
use burn::store::{ApplyError, ModuleSnapshot, SafetensorsStore};
use burn::tensor::{Device, Tensor};
use serde::{Deserialize, Serialize};

use crate::{ModelConfig, NnError, PolicyValueNet, Trainer, TrainerConfig};

/// The first 8 bytes of every checkpoint file.
pub const MAGIC: [u8; 8] = *b"AZNNCKPT";
/// The checkpoint format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// The JSON header of a checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointHeader {
    /// Game and rules, the registry's tagged table (`{"game": "gomoku", "size": 15, "rule":
    /// "renju"}`); headers written before the registry (`{"name": "gomoku", "config":
    /// "GomokuConfig { .. }"}`) read as the same spec.
    pub game: GameSpec,
    /// The network's shape.
    pub model: ModelConfig,
    /// Optimizer steps taken when it was saved.
    pub step: u64,
    /// The training configuration, when saved from a [`Trainer`].
    pub train: Option<TrainerConfig>,
    /// Parameter id of every trainable tensor by module path (optimizer state is keyed by id).
    pub param_ids: BTreeMap<String, u64>,
    /// Writer, e.g. `alphazero-nn 0.1.0`.
    pub writer: String,
}

/// A loaded checkpoint.
#[derive(Debug)]
pub struct Checkpoint {
    /// The header.
    pub header: CheckpointHeader,
    /// The network on the device it was loaded to, ready for inference (`net.valid()` state,
    /// batch norm on the saved running statistics).
    pub model: PolicyValueNet,
    /// The optimizer state (burnpack bytes), if one was saved.
    pub optimizer_state: Option<Vec<u8>>,
}

impl Checkpoint {
    /// A trainer resuming from this checkpoint: weights, step count, optimizer state, and the
    /// saved training configuration unless `config` overrides it (the default
    /// [`TrainerConfig`] when neither exists). The optimizer state is dropped when `config`
    /// names another optimizer kind.
    ///
    /// # Errors
    /// [`NnError::InvalidConfig`] for a bad configuration, [`NnError::Backend`] if the
    /// optimizer state cannot be read.
    pub fn into_trainer(
        self,
        config: Option<TrainerConfig>,
        device: &Device,
    ) -> Result<Trainer, NnError> {
        let saved = self.header.train.clone();
        let config = config.or_else(|| saved.clone()).unwrap_or_default();
        let same_kind = saved.as_ref().is_some_and(|s| {
            std::mem::discriminant(&s.optimizer) == std::mem::discriminant(&config.optimizer)
        });
        let mut trainer = Trainer::from_model(
            self.model,
            &self.header.model,
            config,
            device,
            self.header.step,
        )?;
        if let (Some(bytes), true) = (self.optimizer_state, same_kind) {
            trainer.load_optimizer_bytes(&bytes)?;
        }
        Ok(trainer)
    }
}

/// Why a checkpoint could not be written or read. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Reading, writing, syncing or renaming failed. The message names the file only; the I/O
    /// error is the [`std::error::Error::source`] (so a chain printer shows it once).
    #[error("{path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file does not start with [`MAGIC`].
    #[error("{path}: not an alphazero checkpoint ({})", if found.is_empty() { "the file is empty".to_string() } else { format!("starts with {found:02x?}") })]
    BadMagic {
        /// The file.
        path: PathBuf,
        /// Its first bytes.
        found: Vec<u8>,
    },
    /// The format version is not [`FORMAT_VERSION`].
    #[error("{path}: checkpoint format version {found} is not supported (this build reads {FORMAT_VERSION})")]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// The version in the file.
        found: u32,
    },
    /// The file ends before a section it announces.
    #[error("{path}: truncated: {section} needs {needed} bytes at offset {offset}, the file has {file_len}")]
    Truncated {
        /// The file.
        path: PathBuf,
        /// The section being read.
        section: &'static str,
        /// Where it starts.
        offset: u64,
        /// Its length.
        needed: u64,
        /// The file's length.
        file_len: u64,
    },
    /// The checksum does not match (corrupted file) or bytes follow the checksum.
    #[error("{path}: corrupted: {reason}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What does not match.
        reason: String,
    },
    /// The JSON header does not parse or holds an invalid model configuration.
    #[error("{path}: bad header: {reason}")]
    BadHeader {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The checkpoint belongs to another game.
    #[error("{path}: checkpoint is for game {found:?}, expected {expected:?}")]
    WrongGame {
        /// The file.
        path: PathBuf,
        /// The game asked for.
        expected: String,
        /// The game in the file.
        found: String,
    },
    /// A tensor of the file does not have the shape the model expects.
    #[error("{path}: tensor {tensor} has shape {found:?} in the checkpoint but {expected:?} in the model")]
    ShapeMismatch {
        /// The file.
        path: PathBuf,
        /// Module path of the tensor, e.g. `blocks.0.conv1.weight`.
        tensor: String,
        /// The model's shape.
        expected: Vec<usize>,
        /// The checkpoint's shape.
        found: Vec<usize>,
    },
    /// A tensor of the model is not in the file.
    #[error("{path}: tensor {tensor} is missing from the checkpoint")]
    MissingTensor {
        /// The file.
        path: PathBuf,
        /// Module path of the tensor.
        tensor: String,
    },
    /// The file holds a tensor the model does not have.
    #[error("{path}: the checkpoint holds tensor {tensor}, which the model does not have")]
    UnexpectedTensor {
        /// The file.
        path: PathBuf,
        /// Name of the tensor.
        tensor: String,
    },
    /// The weights or optimizer sections could not be encoded or decoded.
    #[error("{path}: {reason}")]
    Format {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

/// Saves a trainer's network, optimizer state, step count and training configuration.
///
/// # Errors
/// [`CheckpointError::Io`] or [`CheckpointError::Format`]; an existing file at `path` is then
/// left unchanged.
pub fn save_checkpoint(
    path: &Path,
    game: &GameSpec,
    trainer: &Trainer,
) -> Result<(), CheckpointError> {
    write_atomically(path, &checkpoint_to_bytes(path, game, trainer)?)
}

/// The bytes of the checkpoint file that [`save_checkpoint`] writes (for storage that is not a
/// local file); `name` only names the object in errors.
///
/// # Errors
/// [`CheckpointError::Format`].
pub fn checkpoint_to_bytes(
    name: &Path,
    game: &GameSpec,
    trainer: &Trainer,
) -> Result<Vec<u8>, CheckpointError> {
    let optimizer = trainer
        .optimizer_bytes()
        .map_err(|e| CheckpointError::Format {
            path: name.to_path_buf(),
            reason: e.to_string(),
        })?;
    encode_parts(
        name,
        game,
        trainer.model(),
        trainer.model_config(),
        trainer.step(),
        Some(trainer.config().clone()),
        Some(&optimizer),
    )
}

/// Saves a network without optimizer state (e.g. for play or evaluation).
///
/// # Errors
/// [`CheckpointError::Io`] or [`CheckpointError::Format`]; an existing file at `path` is then
/// left unchanged.
pub fn save_model(
    path: &Path,
    game: &GameSpec,
    net: &PolicyValueNet,
    config: &ModelConfig,
    step: u64,
) -> Result<(), CheckpointError> {
    write_atomically(path, &model_to_bytes(path, game, net, config, step)?)
}

/// The bytes of the network file that [`save_model`] writes (for storage that is not a local
/// file); `name` only names the object in errors.
///
/// # Errors
/// [`CheckpointError::Format`].
pub fn model_to_bytes(
    name: &Path,
    game: &GameSpec,
    net: &PolicyValueNet,
    config: &ModelConfig,
    step: u64,
) -> Result<Vec<u8>, CheckpointError> {
    encode_parts(name, game, net, config, step, None, None)
}

fn encode_parts(
    path: &Path,
    game: &GameSpec,
    net: &PolicyValueNet,
    config: &ModelConfig,
    step: u64,
    train: Option<TrainerConfig>,
    optimizer: Option<&[u8]>,
) -> Result<Vec<u8>, CheckpointError> {
    // `valid()` folds the pending batch-norm running-statistics update of the last training
    // step into the running mean/var; visiting the training module directly would read them
    // one update stale.
    let net = net.valid();
    let header = CheckpointHeader {
        game: *game,
        // The heads the file holds are the network's, whatever `config` says of them.
        model: config.clone().with_aux(net.aux_heads()),
        step,
        train,
        param_ids: param_paths(&net)
            .into_iter()
            .map(|(p, id)| (p, id.val()))
            .collect(),
        writer: format!("alphazero-nn {}", env!("CARGO_PKG_VERSION")),
    };
    let weights = weights_to_safetensors(&net).map_err(|reason| CheckpointError::Format {
        path: path.to_path_buf(),
        reason,
    })?;
    let header_json = serde_json::to_vec(&header).map_err(|e| CheckpointError::Format {
        path: path.to_path_buf(),
        reason: format!("encoding the header: {e}"),
    })?;
    Ok(assemble(&header_json, &weights, optimizer.unwrap_or(&[])))
}

pub(crate) fn weights_to_safetensors(net: &PolicyValueNet) -> Result<Vec<u8>, String> {
    let mut store = SafetensorsStore::from_bytes(None);
    net.save_into(&mut store)
        .map_err(|e| format!("encoding the weights: {e}"))?;
    store
        .get_bytes()
        .map_err(|e| format!("encoding the weights: {e}"))
}

pub(crate) fn assemble(header: &[u8], weights: &[u8], optimizer: &[u8]) -> Vec<u8> {
    let mut out =
        Vec::with_capacity(8 + 4 + 24 + header.len() + weights.len() + optimizer.len() + 8);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    for section in [header, weights, optimizer] {
        out.extend_from_slice(&(section.len() as u64).to_le_bytes());
        out.extend_from_slice(section);
    }
    let sum = fnv1a64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), CheckpointError> {
    let io = |source| CheckpointError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().ok_or_else(|| {
        io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "no file name",
        ))
    })?;
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(
        ".{}.tmp.{}.{n}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)?;
        #[cfg(unix)]
        std::fs::File::open(&dir)?.sync_all()?;
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)
}

/// Loads a checkpoint for game `expected_game` ([`alphazero_game::Game::NAME`]) onto `device` (a plain
/// device; the model is returned ready for inference).
///
/// # Errors
/// [`CheckpointError::Io`] (unreadable file), [`CheckpointError::BadMagic`],
/// [`CheckpointError::UnsupportedVersion`], [`CheckpointError::Truncated`],
/// [`CheckpointError::Corrupt`], [`CheckpointError::BadHeader`],
/// [`CheckpointError::WrongGame`], [`CheckpointError::ShapeMismatch`] (naming the tensor and
/// both shapes), [`CheckpointError::MissingTensor`], [`CheckpointError::UnexpectedTensor`],
/// [`CheckpointError::Format`].
pub fn load_checkpoint(
    path: &Path,
    expected_game: &str,
    device: &Device,
) -> Result<Checkpoint, CheckpointError> {
    let bytes = std::fs::read(path).map_err(|source| CheckpointError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_checkpoint(path, &bytes, Some(expected_game), device)
}

/// Loads a checkpoint of whichever game it was trained for (its header's
/// [`CheckpointHeader::game`] says which) onto `device`: for programs that take any network
/// (`alphazero export`, the Python package).
///
/// # Errors
/// As [`load_checkpoint`], except [`CheckpointError::WrongGame`].
pub fn load_any_checkpoint(path: &Path, device: &Device) -> Result<Checkpoint, CheckpointError> {
    let bytes = std::fs::read(path).map_err(|source| CheckpointError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_checkpoint(path, &bytes, None, device)
}

/// Reads a checkpoint from the bytes of a checkpoint file (for storage that is not a local
/// file): the same checks as [`load_checkpoint`]; `name` names the object in errors.
///
/// # Errors
/// As [`load_checkpoint`], except [`CheckpointError::Io`].
pub fn checkpoint_from_bytes(
    name: &Path,
    bytes: &[u8],
    expected_game: &str,
    device: &Device,
) -> Result<Checkpoint, CheckpointError> {
    parse_checkpoint(name, bytes, Some(expected_game), device)
}

/// The network of a checkpoint file's bytes in a canonical form: its weights (a safetensors
/// table) with the tensor table's keys sorted and burn's `__metadata__` left out, then the
/// tensor data. Two files with equal forms hold the same network whatever their headers say
/// (a champion and the snapshot of the same step: their safetensors metadata is written in
/// hash-map order, so their bytes differ). The file is checked (magic, format version,
/// section lengths, checksum) but its tensors are not decoded.
///
/// # Errors
/// As [`load_checkpoint`] for a file that is not a whole checkpoint of this format, and
/// [`CheckpointError::Corrupt`] for a weights section that is not a safetensors table;
/// `path` names the file.
pub fn canonical_weights(path: &Path, bytes: &[u8]) -> Result<Vec<u8>, CheckpointError> {
    let weights = checked_sections(path, bytes)?[1];
    let bad = |reason: String| CheckpointError::Corrupt {
        path: path.to_path_buf(),
        reason,
    };
    let table_len = weights
        .get(..8)
        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
        .ok_or_else(|| bad("weights shorter than their table length".into()))?;
    let end = usize::try_from(table_len)
        .ok()
        .and_then(|n| n.checked_add(8))
        .filter(|&e| e <= weights.len())
        .ok_or_else(|| {
            bad(format!(
                "weights table of {table_len} bytes past the section"
            ))
        })?;
    let mut table: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&weights[8..end]).map_err(|e| bad(format!("weights table: {e}")))?;
    table.remove("__metadata__");
    // serde_json's map is ordered by key (no `preserve_order`): the text is canonical.
    let mut out = serde_json::to_vec(&table).expect("a JSON map serializes");
    out.extend_from_slice(&weights[end..]);
    Ok(out)
}

/// The header, weights and optimizer-state sections of a checkpoint file's bytes, after the
/// magic, the format version, the section lengths and the checksum are checked.
fn checked_sections<'a>(path: &Path, bytes: &'a [u8]) -> Result<[&'a [u8]; 3], CheckpointError> {
    let p = || path.to_path_buf();
    let file_len = bytes.len() as u64;
    let take = |offset: usize, len: u64, section: &'static str| -> Result<&[u8], CheckpointError> {
        let end = (offset as u64).checked_add(len);
        match end {
            Some(end) if end <= file_len => Ok(&bytes[offset..end as usize]),
            _ => Err(CheckpointError::Truncated {
                path: p(),
                section,
                offset: offset as u64,
                needed: len,
                file_len,
            }),
        }
    };
    let magic = take(0, 8, "magic").map_err(|_| CheckpointError::BadMagic {
        path: p(),
        found: bytes[..bytes.len().min(8)].to_vec(),
    })?;
    if magic != MAGIC {
        return Err(CheckpointError::BadMagic {
            path: p(),
            found: magic.to_vec(),
        });
    }
    let version = u32::from_le_bytes(take(8, 4, "format version")?.try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(CheckpointError::UnsupportedVersion {
            path: p(),
            found: version,
        });
    }
    let mut offset = 12usize;
    let mut sections = [&[][..]; 3];
    for (i, name) in ["header", "weights", "optimizer state"]
        .into_iter()
        .enumerate()
    {
        let len = u64::from_le_bytes(take(offset, 8, name)?.try_into().expect("8 bytes"));
        offset += 8;
        sections[i] = take(offset, len, name)?;
        offset += len as usize;
    }
    let stored = u64::from_le_bytes(take(offset, 8, "checksum")?.try_into().expect("8 bytes"));
    let computed = fnv1a64(&bytes[..offset]);
    if stored != computed {
        return Err(CheckpointError::Corrupt {
            path: p(),
            reason: format!("checksum {stored:016x} stored, {computed:016x} computed"),
        });
    }
    if offset + 8 != bytes.len() {
        return Err(CheckpointError::Corrupt {
            path: p(),
            reason: format!("{} bytes after the checksum", bytes.len() - offset - 8),
        });
    }
    Ok(sections)
}

fn parse_checkpoint(
    path: &Path,
    bytes: &[u8],
    expected_game: Option<&str>,
    device: &Device,
) -> Result<Checkpoint, CheckpointError> {
    let p = || path.to_path_buf();
    let sections = checked_sections(path, bytes)?;
    let header: CheckpointHeader =
        serde_json::from_slice(sections[0]).map_err(|e| CheckpointError::BadHeader {
            path: p(),
            reason: e.to_string(),
        })?;
    if let Some(expected_game) = expected_game.filter(|&g| g != header.game.name()) {
        return Err(CheckpointError::WrongGame {
            path: p(),
            expected: expected_game.to_string(),
            found: header.game.name().to_string(),
        });
    }
    header
        .model
        .validate()
        .map_err(|e| CheckpointError::BadHeader {
            path: p(),
            reason: e.to_string(),
        })?;
    let model = header.model.init(device);
    let model = load_weights(path, model, sections[1])?;
    let model = restore_param_ids(model, &header.param_ids);
    let optimizer_state = (!sections[2].is_empty()).then(|| sections[2].to_vec());
    Ok(Checkpoint {
        header,
        model,
        optimizer_state,
    })
}

/// Loads safetensors `weights` into `net`, checking every tensor's presence and shape.
pub(crate) fn load_weights(
    path: &Path,
    mut net: PolicyValueNet,
    weights: &[u8],
) -> Result<PolicyValueNet, CheckpointError> {
    let p = || path.to_path_buf();
    let mut store = SafetensorsStore::from_bytes(Some(weights.to_vec()))
        .validate(false)
        .allow_partial(true);
    let result = net
        .load_from(&mut store)
        .map_err(|e| CheckpointError::Format {
            path: p(),
            reason: format!("decoding the weights: {e}"),
        })?;
    if let Some(err) = result.errors.into_iter().next() {
        return Err(match err {
            ApplyError::ShapeMismatch {
                path: tensor,
                expected,
                found,
            } => CheckpointError::ShapeMismatch {
                path: p(),
                tensor,
                expected: expected.as_slice().to_vec(),
                found: found.as_slice().to_vec(),
            },
            other => CheckpointError::Format {
                path: p(),
                reason: other.to_string(),
            },
        });
    }
    if let Some((tensor, _)) = result.missing.into_iter().next() {
        return Err(CheckpointError::MissingTensor { path: p(), tensor });
    }
    if let Some(tensor) = result.unused.into_iter().next() {
        return Err(CheckpointError::UnexpectedTensor { path: p(), tensor });
    }
    Ok(net)
}

/// Module path and id of every float tensor (parameters and running statistics).
pub(crate) fn param_paths(net: &PolicyValueNet) -> Vec<(String, ParamId)> {
    struct Paths {
        stack: Vec<String>,
        out: Vec<(String, ParamId)>,
    }
    impl ModuleVisitor for Paths {
        fn enter_module(&mut self, name: &str, _container_type: &str) {
            self.stack.push(name.to_string());
        }
        fn exit_module(&mut self, _name: &str, _container_type: &str) {
            self.stack.pop();
        }
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            self.out.push((self.stack.join("."), param.id));
        }
    }
    let mut v = Paths {
        stack: Vec::new(),
        out: Vec::new(),
    };
    net.visit(&mut v);
    v.out
}

fn restore_param_ids(net: PolicyValueNet, ids: &BTreeMap<String, u64>) -> PolicyValueNet {
    struct Ids<'a> {
        stack: Vec<String>,
        ids: &'a BTreeMap<String, u64>,
    }
    impl ModuleMapper for Ids<'_> {
        fn enter_module(&mut self, name: &str, _container_type: &str) {
            self.stack.push(name.to_string());
        }
        fn exit_module(&mut self, _name: &str, _container_type: &str) {
            self.stack.pop();
        }
        fn map_float<const D: usize>(&mut self, mut param: Param<Tensor<D>>) -> Param<Tensor<D>> {
            if let Some(&id) = self.ids.get(&self.stack.join(".")) {
                param.id = ParamId::from(id);
            }
            param
        }
    }
    net.map(&mut Ids {
        stack: Vec::new(),
        ids,
    })
}
