//! A few fields of a JSON object without building it: the raw text of chosen top-level keys
//! (borrowed from the line, the rest skipped unparsed), and for a damaged line the string and
//! boolean values of its top-level keys found by a byte scan that needs neither UTF-8 nor a
//! complete line.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// The raw values of `keys` in the JSON object `json` (the last of a repeated key, as
/// `JSON.parse` keeps it); `Ok(None)` when `json` is JSON but not an object.
pub(crate) fn pick<'a, const N: usize>(
    json: &'a str,
    keys: &[&str; N],
) -> serde_json::Result<Option<[Option<&'a RawValue>; N]>> {
    let mut de = serde_json::Deserializer::from_str(json);
    let picked = Pick(keys).deserialize(&mut de)?;
    de.end()?;
    Ok(picked)
}

/// The elements of a JSON array, raw; `None` when it is not an array.
pub(crate) fn elements(json: &RawValue) -> Option<Vec<&RawValue>> {
    if !json.get().starts_with('[') {
        return None;
    }
    serde_json::from_str(json.get()).ok()
}

/// A raw value that is a string, unescaped (borrowed when it has no escapes).
pub(crate) fn string(raw: &RawValue) -> Option<Cow<'_, str>> {
    let text = raw.get();
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    if !inner.contains('\\') {
        return Some(Cow::Borrowed(inner));
    }
    serde_json::from_str::<String>(text).ok().map(Cow::Owned)
}

/// Whether a raw value is `true`.
pub(crate) fn is_true(raw: Option<&RawValue>) -> bool {
    raw.is_some_and(|r| r.get() == "true")
}

/// Whether a raw value is present and not `null`.
pub(crate) fn is_set(raw: Option<&RawValue>) -> bool {
    raw.is_some_and(|r| r.get() != "null")
}

struct Pick<'k, const N: usize>(&'k [&'k str; N]);

impl<'de, const N: usize> DeserializeSeed<'de> for Pick<'_, N> {
    type Value = Option<[Option<&'de RawValue>; N]>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, const N: usize> Visitor<'de> for Pick<'_, N> {
    type Value = Option<[Option<&'de RawValue>; N]>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = [None; N];
        while let Some(Key(key)) = map.next_key()? {
            match self.0.iter().position(|k| *k == key) {
                Some(i) => found[i] = Some(map.next_value::<&'de RawValue>()?),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Some(found))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// An object key, borrowed unless it has escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(key)))
            }
            fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(key.to_owned())))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// What a byte scan finds in a damaged line: the top-level string and boolean values, up to
/// where the line stops making sense.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Salvaged {
    pub(crate) kind: Option<String>,
    pub(crate) uuid: Option<String>,
    pub(crate) parent: Option<String>,
    pub(crate) sidechain: bool,
}

/// Scans a line that is not JSON (a bad byte, or cut short) for the keys that link it into
/// the conversation. Strings are taken as written (a bad byte becomes U+FFFD); nested values
/// are skipped, so a `"uuid"` inside a message is not mistaken for the entry's.
pub(crate) fn salvage(line: &[u8]) -> Salvaged {
    let mut found = Salvaged::default();
    let mut scan = Scan { bytes: line, at: 0 };
    scan.space();
    if !scan.eat(b'{') {
        return found;
    }
    loop {
        scan.space();
        let Some(key) = scan.string() else {
            return found;
        };
        scan.space();
        if !scan.eat(b':') {
            return found;
        }
        scan.space();
        match scan.peek() {
            Some(b'"') => {
                let Some(value) = scan.string() else {
                    return found;
                };
                let value = String::from_utf8_lossy(value).into_owned();
                match key {
                    b"type" => found.kind = Some(value),
                    b"uuid" => found.uuid = Some(value),
                    b"parentUuid" => found.parent = Some(value),
                    _ => {}
                }
            }
            Some(b'{' | b'[') => {
                if !scan.nested() {
                    return found;
                }
            }
            Some(_) => {
                let start = scan.at;
                while scan.peek().is_some_and(|b| !matches!(b, b',' | b'}')) {
                    scan.at += 1;
                }
                if key == b"isSidechain" {
                    found.sidechain = line[start..scan.at].trim_ascii() == b"true";
                }
            }
            None => return found,
        }
        scan.space();
        if !scan.eat(b',') {
            return found;
        }
    }
}

struct Scan<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scan<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn space(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == Some(byte);
        self.at += usize::from(found);
        found
    }

    /// A string's raw bytes (escapes left as written), after its opening quote.
    fn string(&mut self) -> Option<&'a [u8]> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.at;
        loop {
            match self.peek()? {
                b'\\' => self.at += 2,
                b'"' => {
                    let end = self.at;
                    self.at += 1;
                    return Some(&self.bytes[start..end]);
                }
                _ => self.at += 1,
            }
        }
    }

    /// Skips an object or array; `false` when the line ends inside it.
    fn nested(&mut self) -> bool {
        let mut depth = 0usize;
        loop {
            match self.peek() {
                None => return false,
                Some(b'"') => {
                    if self.string().is_none() {
                        return false;
                    }
                    continue;
                }
                Some(b'{' | b'[') => depth += 1,
                Some(b'}' | b']') => {
                    depth -= 1;
                    if depth == 0 {
                        self.at += 1;
                        return true;
                    }
                }
                Some(_) => {}
            }
            self.at += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_last_of_a_repeated_key_and_skips_the_rest() {
        let line = r#"{"a":1,"uuid":"x","message":{"uuid":"inner"},"uuid":"y","b\u0021":[1]}"#;
        let [uuid, b] = pick(line, &["uuid", "b!"]).unwrap().unwrap();
        assert_eq!(uuid.map(RawValue::get), Some(r#""y""#));
        assert_eq!(b.map(RawValue::get), Some("[1]"));
        assert!(pick("[1,2]", &["uuid"]).unwrap().is_none());
        assert!(pick(r#"{"uuid":"#, &["uuid"]).is_err());
        let escaped: Box<RawValue> = serde_json::from_str(r#""a\"b""#).unwrap();
        assert_eq!(string(&escaped).as_deref(), Some("a\"b"));
    }

    #[test]
    fn a_damaged_line_still_names_its_links() {
        let mut line = br#"{"parentUuid":"p1","isSidechain":false,"type":"user","message":{"uuid":"no","content":"caf"#.to_vec();
        line.push(0xff);
        line.extend_from_slice(br#""},"uuid":"u1","timestamp":"t"}"#);
        assert_eq!(
            salvage(&line),
            Salvaged {
                kind: Some("user".into()),
                uuid: Some("u1".into()),
                parent: Some("p1".into()),
                sidechain: false,
            }
        );
        // Cut short: what came before the cut.
        let cut = br#"{"parentUuid":"p1","type":"assistant","message":{"content":"half"#;
        let found = salvage(cut);
        assert_eq!((found.parent.as_deref(), found.uuid), (Some("p1"), None));
    }
}
