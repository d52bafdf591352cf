//! Whether a file is text at all, from its first bytes, as `git` and `grep` decide it: a file
//! given to `check` by mistake (a binary, an image, a UTF-16 export) is reported once instead of
//! line by line.

use std::io::{self, Read};

/// How many bytes of a file are read to tell text from binary.
pub const SNIFF_BYTES: usize = 8192;

/// Reads the first [`SNIFF_BYTES`] of `input` (fewer at its end).
pub fn read_head(input: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    input.take(SNIFF_BYTES as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// Why `head`, the start of a file, is not text: a NUL byte (no NDJSON line holds one), or
/// bytes that are not UTF-8 in its first line.
pub fn not_text(head: &[u8]) -> Option<String> {
    if let Some(at) = head.iter().position(|&byte| byte == 0) {
        return Some(format!("a NUL byte at offset {at}"));
    }
    let first_line = head
        .iter()
        .position(|&byte| byte == b'\n')
        .map_or(head, |end| &head[..end]);
    match std::str::from_utf8(first_line) {
        Ok(_) => None,
        // A character cut by the end of the sample is not a fault of the file.
        Err(err) if err.error_len().is_none() && first_line.len() == SNIFF_BYTES => None,
        Err(err) => Some(format!(
            "its first line is not UTF-8 (offset {})",
            err.valid_up_to()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binaries_and_other_encodings_are_not_text() {
        assert_eq!(
            not_text(b"\x7fELF\x02\x01\x01\x00rest").as_deref(),
            Some("a NUL byte at offset 7")
        );
        // UTF-16 with its byte order mark.
        assert!(not_text(b"\xff\xfe{\x00}\x00").is_some());
        assert!(not_text(b"\xff\xfe{}\n")
            .unwrap()
            .contains("first line is not UTF-8 (offset 0)"));
        assert_eq!(not_text(b"{\"type\":\"keep_alive\"}\n"), None);
        assert_eq!(not_text(b""), None);
        // A bad line further down is the line's fault, reported with its number.
        assert_eq!(not_text(b"{}\n\xff\n"), None);
        // A multi-byte character cut by the sample's end.
        let mut cut = vec![b'a'; SNIFF_BYTES - 1];
        cut.push(0xc3);
        assert_eq!(not_text(&cut), None);
    }
}
