//! One layer of JSON string escaping: taken off (to look at what a string holds), and mapped
//! back (to redact the escaped text where it was found).
//!
//! The unescaping is lenient, so it also reads text that only contains escaped JSON (a log
//! line quoting a request body): a backslash that starts no valid escape is kept as it is.

/// What one unit of escaped text stands for.
enum Unit {
    /// A byte copied as it is (part of a character without escapes).
    Byte(u8),
    /// An escape for one character.
    Char(char),
}

/// The unit at `at`, and how many bytes of `raw` it takes.
fn unit(raw: &[u8], at: usize) -> (Unit, usize) {
    let byte = raw[at];
    if byte != b'\\' || at + 1 >= raw.len() {
        return (Unit::Byte(byte), 1);
    }
    let simple = match raw[at + 1] {
        b'"' => Some('"'),
        b'\\' => Some('\\'),
        b'/' => Some('/'),
        b'n' => Some('\n'),
        b't' => Some('\t'),
        b'r' => Some('\r'),
        b'b' => Some('\u{8}'),
        b'f' => Some('\u{c}'),
        _ => None,
    };
    if let Some(c) = simple {
        return (Unit::Char(c), 2);
    }
    if raw[at + 1] == b'u' {
        if let Some(high) = hex4(raw, at + 2) {
            if (0xd800..0xdc00).contains(&high) && raw.get(at + 6..at + 8) == Some(b"\\u") {
                if let Some(low) = hex4(raw, at + 8).filter(|low| (0xdc00..0xe000).contains(low)) {
                    let code = 0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00);
                    if let Some(c) = char::from_u32(code) {
                        return (Unit::Char(c), 12);
                    }
                }
            }
            if let Some(c) = char::from_u32(high) {
                return (Unit::Char(c), 6);
            }
        }
    }
    (Unit::Byte(byte), 1)
}

fn hex4(raw: &[u8], at: usize) -> Option<u32> {
    let digits = raw.get(at..at + 4)?;
    let text = std::str::from_utf8(digits).ok()?;
    u32::from_str_radix(text, 16).ok()
}

/// `raw` with one layer of escapes taken off.
pub(super) fn unescape(raw: &str) -> String {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(raw.len());
    let mut at = 0;
    while at < bytes.len() {
        // Copy up to the next backslash at once.
        let plain = memchr::memchr(b'\\', &bytes[at..]).map_or(bytes.len(), |n| at + n);
        out.extend_from_slice(&bytes[at..plain]);
        at = plain;
        if at >= bytes.len() {
            break;
        }
        let (unit, len) = unit(bytes, at);
        match unit {
            Unit::Byte(byte) => out.push(byte),
            Unit::Char(c) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
        at += len;
    }
    // Escapes make whole characters and the rest is copied from valid UTF-8 at character
    // boundaries (a backslash is ASCII), so this never fails.
    String::from_utf8(out).unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into())
}

/// For each offset of `unescape(raw)` in `offsets` (sorted, at character boundaries), the
/// offset in `raw` where that character's escape starts (`raw.len()` at the end).
pub(super) fn raw_offsets(raw: &str, offsets: &[usize]) -> Vec<usize> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(offsets.len());
    let mut wanted = offsets.iter().peekable();
    let (mut at, mut decoded) = (0, 0);
    while let Some(&&next) = wanted.peek() {
        if decoded >= next || at >= bytes.len() {
            out.push(at);
            wanted.next();
            continue;
        }
        // Skip a run without backslashes whole when the wanted offset lies beyond it.
        let plain = memchr::memchr(b'\\', &bytes[at..]).map_or(bytes.len() - at, |n| n);
        if plain > 0 {
            let step = plain.min(next - decoded);
            at += step;
            decoded += step;
            continue;
        }
        let (unit, len) = unit(bytes, at);
        decoded += match unit {
            Unit::Byte(_) => 1,
            Unit::Char(c) => c.len_utf8(),
        };
        at += len;
    }
    out
}

/// `text` escaped to sit inside a JSON string.
pub(super) fn escape(text: &str) -> String {
    let quoted = serde_json::Value::String(text.to_owned()).to_string();
    quoted[1..quoted.len() - 1].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescaping_maps_back_to_the_escapes() {
        let raw = r#"a\"b\\c\u00e9\ud83d\ude00\n\qz"#;
        let plain = unescape(raw);
        assert_eq!(plain, "a\"b\\cé😀\n\\qz");
        let offsets: Vec<usize> = plain.char_indices().map(|(i, _)| i).collect();
        let raw_at = raw_offsets(raw, &offsets);
        let starts: Vec<&str> = raw_at.iter().map(|&i| &raw[i..]).collect();
        assert!(starts[1].starts_with(r#"\"b"#));
        assert!(starts[5].starts_with(r"\u00e9"));
        assert!(starts[6].starts_with(r"\ud83d\ude00"));
        assert!(starts[7].starts_with(r"\n"));
        assert!(starts[8].starts_with(r"\qz"));
        assert_eq!(raw_offsets(raw, &[plain.len()]), [raw.len()]);
        assert_eq!(escape("a\"b\n"), r#"a\"b\n"#);
    }
}
