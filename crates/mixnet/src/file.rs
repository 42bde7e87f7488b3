//! The evaluator's file (`.azm`): magic, version, what it was distilled for, sizes, the
//! weights, a CRC-32 of everything before it.

use std::io::Read;

use alphazero_gomoku::Rule;

use crate::data::{rule_byte, rule_of_byte};
use crate::lines::MAX_HALF_WIDTH;
use crate::model::{t, Mixnet, MixnetConfig};
use crate::MixnetError;

/// File magic.
const MAGIC: &[u8; 8] = b"AZMIXNET";
/// Version of the layout.
const VERSION: u32 = 1;

/// Whether `bytes` start like an evaluator file (the magic), for choosing a reader by content.
pub fn is_mixnet_file(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// A [`Mixnet`] with what it was made for.
#[derive(Clone, Debug)]
pub struct MixnetFile {
    /// The rule it was distilled under (its teacher's rule).
    pub rule: Rule,
    /// The board side of its training positions (it evaluates any side).
    pub size: u8,
    /// Where it came from, in words (the teacher's file, the samples, the steps).
    pub provenance: String,
    /// The network.
    pub net: Mixnet,
}

impl MixnetFile {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let c = self.net.config();
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.push(rule_byte(self.rule));
        out.push(self.size);
        out.push(c.half_width);
        out.push(u8::from(c.colour_tables));
        out.extend_from_slice(&c.features.to_le_bytes());
        out.extend_from_slice(&c.value_hidden.to_le_bytes());
        let text = self.provenance.as_bytes();
        let len = text.len().min(u16::MAX as usize);
        out.extend_from_slice(&(len as u16).to_le_bytes());
        out.extend_from_slice(&text[..len]);
        for tensor in &self.net.tensors {
            out.extend_from_slice(&(tensor.len() as u32).to_le_bytes());
            for x in tensor {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// Reads a file written by [`MixnetFile::to_bytes`].
    ///
    /// # Errors
    /// [`MixnetError::Format`] saying what is wrong: another kind of file, a file cut short
    /// (shorter than its sizes need) or otherwise damaged (checksum), another version,
    /// impossible sizes, tensors of the wrong length or non-finite weights.
    pub fn from_bytes(bytes: &[u8]) -> Result<MixnetFile, MixnetError> {
        // The reader of a file names it; the message says what is wrong with its contents.
        let bad = |why: String| MixnetError::Format(format!("evaluator file: {why}"));
        let whole = |why: String| MixnetError::Format(why);
        if !is_mixnet_file(bytes) {
            return Err(whole(
                "not a Mixnet evaluator file (it does not start with AZMIXNET)".into(),
            ));
        }
        let (body, tail) = bytes.split_at(bytes.len().saturating_sub(4).max(MAGIC.len()));
        let crc_ok = tail.len() == 4
            && crc32fast::hash(body) == u32::from_le_bytes(tail.try_into().expect("4 bytes"));
        if !crc_ok {
            // Short of what its own sizes need: cut off (a partial copy or download);
            // otherwise some bytes changed since it was written.
            return Err(whole(match needed_len(bytes) {
                need if need > bytes.len() => format!(
                    "truncated evaluator file: {} bytes, its sizes need at least {need}",
                    bytes.len()
                ),
                _ => "damaged evaluator file: its checksum does not match its contents \
                      (bytes changed since it was written)"
                    .into(),
            }));
        }
        let mut r = &body[8..];
        let version =
            u32::from_le_bytes(take(&mut r, 4).map_err(bad)?.try_into().expect("4 bytes"));
        if version != VERSION {
            return Err(bad(format!(
                "version {version}, this program reads version {VERSION}"
            )));
        }
        let head = take(&mut r, 8).map_err(bad)?;
        let rule = rule_of_byte(head[0]).ok_or_else(|| bad(format!("unknown rule {}", head[0])))?;
        let size = head[1];
        let half_width = head[2];
        if !(1..=MAX_HALF_WIDTH as u8).contains(&half_width) {
            return Err(bad(format!(
                "line half-width {half_width} outside 1..={MAX_HALF_WIDTH}"
            )));
        }
        let features = u16::from_le_bytes([head[4], head[5]]);
        let value_hidden = u16::from_le_bytes([head[6], head[7]]);
        if features == 0 || value_hidden == 0 {
            return Err(bad("a layer of size 0".into()));
        }
        let config = MixnetConfig {
            half_width,
            features,
            value_hidden,
            colour_tables: head[3] != 0,
        };
        let len = u16::from_le_bytes(take(&mut r, 2).map_err(bad)?.try_into().expect("2 bytes"));
        let provenance =
            String::from_utf8_lossy(&take(&mut r, usize::from(len)).map_err(bad)?).into_owned();
        let mut tensors = Vec::with_capacity(t::COUNT);
        for name in t::NAMES {
            let count =
                u32::from_le_bytes(take(&mut r, 4).map_err(bad)?.try_into().expect("4 bytes"))
                    as usize;
            if count > (1 << 28) {
                return Err(bad(format!("tensor {name} of {count} numbers")));
            }
            let raw = take(&mut r, count * 4).map_err(bad)?;
            tensors.push(
                raw.chunks_exact(4)
                    .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
                    .collect(),
            );
        }
        if !r.is_empty() {
            return Err(bad(format!("{} bytes after the weights", r.len())));
        }
        let net = Mixnet::from_tensors(config, tensors).map_err(bad)?;
        Ok(MixnetFile {
            rule,
            size,
            provenance,
            net,
        })
    }
}

/// The length a file of [`MixnetFile::to_bytes`]'s layout needs, from the sizes it holds
/// (the header, the provenance's length, each tensor's count, the checksum), as far as
/// `bytes` holds them: more than `bytes.len()` when the file is cut short.
fn needed_len(bytes: &[u8]) -> usize {
    // Magic, version, the 8 bytes of rule, size and layer sizes; then the provenance.
    let mut at = MAGIC.len() + 4 + 8;
    let field = |at: usize, n: usize| bytes.get(at..at + n);
    let Some(len) = field(at, 2) else {
        return at + 2;
    };
    at += 2 + usize::from(u16::from_le_bytes([len[0], len[1]]));
    for _ in 0..t::COUNT {
        let Some(count) = field(at, 4) else {
            return at + 4;
        };
        let count = u32::from_le_bytes(count.try_into().expect("4 bytes")) as usize;
        at = at.saturating_add(4).saturating_add(count.saturating_mul(4));
    }
    at.saturating_add(4)
}

/// The next `len` bytes of `r`.
fn take(r: &mut &[u8], len: usize) -> Result<Vec<u8>, String> {
    let mut buf = vec![0u8; len];
    r.read_exact(&mut buf)
        .map_err(|_| "truncated".to_string())?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> MixnetFile {
        MixnetFile {
            rule: Rule::Renju,
            size: 15,
            provenance: "test".into(),
            net: Mixnet::new(
                MixnetConfig {
                    half_width: 2,
                    features: 8,
                    value_hidden: 4,
                    colour_tables: true,
                },
                9,
            ),
        }
    }

    #[test]
    fn a_file_reads_back_to_the_same_network() {
        let file = small();
        let back = MixnetFile::from_bytes(&file.to_bytes()).unwrap();
        assert_eq!(back.rule, Rule::Renju);
        assert_eq!(back.provenance, "test");
        assert_eq!(back.net.config(), file.net.config());
        assert_eq!(back.net.tensors, file.net.tensors);
    }

    #[test]
    fn damaged_truncated_and_foreign_files_are_refused_with_the_reason() {
        let bytes = small().to_bytes();
        let mut damaged = bytes.clone();
        damaged[100] ^= 0x40;
        let err = MixnetFile::from_bytes(&damaged).unwrap_err().to_string();
        assert_eq!(
            err,
            "damaged evaluator file: its checksum does not match its contents (bytes changed \
             since it was written)"
        );
        // Cut anywhere, down to its magic: truncated, with its length and what it needs.
        for cut in [8, 12, 30, bytes.len() / 2, bytes.len() - 1] {
            let err = MixnetFile::from_bytes(&bytes[..cut])
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with(&format!(
                    "truncated evaluator file: {cut} bytes, its sizes need at least "
                )),
                "{cut}: {err}"
            );
        }
        let err = MixnetFile::from_bytes(b"AZC1 something else entirely")
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a Mixnet"), "{err}");
        // A well-formed file whose table is one row short.
        let mut file = small();
        let len = file.net.tensors[t::TABLE].len();
        file.net.tensors[t::TABLE].truncate(len - 8);
        let err = MixnetFile::from_bytes(&file.to_bytes())
            .unwrap_err()
            .to_string();
        assert!(err.contains("tensor table"), "{err}");
    }
}
