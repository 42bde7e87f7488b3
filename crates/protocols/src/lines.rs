//! Reading the engines' input: one line at a time, whatever its end (LF, CR or CR LF),
//! with memory bounded however long a line is.

use std::io::{self, BufRead};

use crate::ECHO_CHARS;

/// Bytes of an over-long line kept to quote it (enough for [`crate::ECHO_CHARS`] characters).
const TOO_LONG_HEAD: usize = 4 * ECHO_CHARS;

/// The head of an over-long line quoted as [`crate::Clipped`] quotes: `"first 80 characters…"
/// (N bytes)`.
pub(crate) fn too_long_quote(head: &str, bytes: usize) -> String {
    let head: String = head.chars().take(ECHO_CHARS).collect();
    format!("{:?} ({bytes} bytes)", format!("{head}…"))
}

/// What [`read_line_any`] read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReadLine {
    /// End of input, nothing read.
    Eof,
    /// A whole line.
    Line,
    /// A line of this many bytes, longer than the limit: only its first bytes were kept
    /// (enough to quote it), the rest was read and dropped.
    TooLong(usize),
}

/// Reads one line ending in LF, CR or CR LF (the terminator is dropped) into `buf`; invalid
/// UTF-8 is replaced. A line longer than `max_bytes` is read to its end but not stored:
/// `buf` gets only its first bytes and the answer is [`ReadLine::TooLong`], so memory stays
/// bounded by `max_bytes` whatever the input.
pub(crate) fn read_line_any<R: BufRead + ?Sized>(
    r: &mut R,
    buf: &mut String,
    max_bytes: usize,
) -> io::Result<ReadLine> {
    buf.clear();
    let mut bytes = Vec::new();
    let mut total = 0usize;
    loop {
        let (done, used) = {
            let chunk = match r.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let (part, done, used) = if chunk.is_empty() {
                if total == 0 {
                    return Ok(ReadLine::Eof);
                }
                (&chunk[..0], true, 0)
            } else if let Some(i) = chunk.iter().position(|&b| b == b'\n' || b == b'\r') {
                (&chunk[..i], true, i + 1)
            } else {
                (chunk, false, chunk.len())
            };
            if total + part.len() <= max_bytes {
                bytes.extend_from_slice(part);
            } else {
                // Over the limit: keep only a head to quote in the error.
                bytes.truncate(TOO_LONG_HEAD);
                let take = TOO_LONG_HEAD.saturating_sub(bytes.len()).min(part.len());
                bytes.extend_from_slice(&part[..take]);
            }
            total += part.len();
            (done, used)
        };
        r.consume(used);
        if done {
            buf.push_str(&String::from_utf8_lossy(&bytes));
            return Ok(if total > max_bytes {
                ReadLine::TooLong(total)
            } else {
                ReadLine::Line
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MAX_LINE_BYTES;

    #[test]
    fn lines_split_on_cr_lf_and_crlf() {
        let mut r = io::Cursor::new(b"a\r\nb\rc\nd".to_vec());
        let mut got = Vec::new();
        let mut l = String::new();
        while read_line_any(&mut r, &mut l, MAX_LINE_BYTES).unwrap() == ReadLine::Line {
            got.push(l.clone());
        }
        assert_eq!(got, ["a", "", "b", "c", "d"]);
    }

    #[test]
    fn a_line_over_the_limit_is_read_to_its_end_and_only_its_head_is_kept() {
        // Small chunks, so the limit is crossed in the middle of a chunk and after it.
        let long = format!("START {}", "9".repeat(5000));
        let input = format!("{long}\nSTART 15\nab\n");
        let mut r = io::BufReader::with_capacity(7, io::Cursor::new(input.into_bytes()));
        let mut l = String::new();
        assert_eq!(
            read_line_any(&mut r, &mut l, 1000).unwrap(),
            ReadLine::TooLong(long.len())
        );
        assert_eq!(l, long[..TOO_LONG_HEAD]);
        // The next lines are intact; a line of exactly the limit is whole.
        assert_eq!(read_line_any(&mut r, &mut l, 8).unwrap(), ReadLine::Line);
        assert_eq!(l, "START 15");
        assert_eq!(
            read_line_any(&mut r, &mut l, 1).unwrap(),
            ReadLine::TooLong(2)
        );
        assert_eq!(l, "ab");
        assert_eq!(read_line_any(&mut r, &mut l, 1).unwrap(), ReadLine::Eof);
    }
}
