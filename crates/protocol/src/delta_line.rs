//! A direct reader for the commonest line of a streamed response: a `stream_event` carrying a
//! `content_block_delta` of text, tool-input JSON or thinking, written the way the CLI writes
//! it (`type` first, no whitespace).
//!
//! With partial messages on, such lines are nearly all of a session's output, and serde's
//! general path spends most of its time on the unions and field names around a few short
//! strings. This reader walks the line once and builds the same typed value. On anything it
//! does not expect (another kind, an unknown or repeated field, whitespace, a `null` where a
//! string goes, a number other than plain digits, a malformed escape) it declines, and the
//! line takes the general path, which reads it (or repairs it) as before. A test checks, over
//! every recorded line and many generated and mutated ones, that it gives exactly what serde
//! gives, or declines.

use serde_json::Map;

use crate::stream::{
    ContentBlockDeltaEvent, ContentDelta, InputJsonDelta, StreamEvent, StreamEventMessage,
    TextDelta, ThinkingDelta,
};

/// The frame on `line` if it is a content-block delta this reader knows how to read; `None`
/// when the general path must read it.
pub(crate) fn read(line: &str) -> Option<StreamEventMessage> {
    let rest = line.strip_prefix(r#"{"type":"stream_event","#)?;
    let mut cursor = Cursor {
        bytes: rest.as_bytes(),
        text: rest,
        pos: 0,
    };
    let mut event = None;
    let mut parent_tool_use_id = None;
    let mut uuid = None;
    let mut session_id = None;
    let mut api_message_id = None;
    let mut thinking_display = None;
    let mut user_message_uuid = None;
    let mut resume_reason = None;
    loop {
        cursor.byte(b'"')?;
        let key = cursor.key()?;
        // Each field once: a repeated one is an error on the general path.
        match key {
            "event" if event.is_none() => event = Some(cursor.delta_event()?),
            "parent_tool_use_id" if parent_tool_use_id.is_none() => {
                parent_tool_use_id = Some(cursor.nullable_string()?);
            }
            "uuid" if uuid.is_none() => uuid = Some(cursor.string_value()?),
            "session_id" if session_id.is_none() => session_id = Some(cursor.string_value()?),
            "api_message_id" if api_message_id.is_none() => {
                api_message_id = Some(cursor.nullable_string()?);
            }
            "thinking_display" if thinking_display.is_none() => {
                thinking_display = Some(cursor.nullable_string()?);
            }
            "user_message_uuid" if user_message_uuid.is_none() => {
                user_message_uuid = Some(cursor.nullable_string()?);
            }
            "resume_reason" if resume_reason.is_none() => {
                resume_reason = Some(cursor.nullable_string()?);
            }
            _ => return None,
        }
        if !cursor.next_member()? {
            break;
        }
    }
    if cursor.pos != cursor.bytes.len() {
        return None;
    }
    Some(StreamEventMessage {
        event: StreamEvent::ContentBlockDelta(event?),
        parent_tool_use_id: parent_tool_use_id.flatten(),
        uuid: uuid.unwrap_or_default(),
        session_id: session_id.unwrap_or_default(),
        ttft_ms: None,
        api_message_id: api_message_id.flatten(),
        thinking_display: thinking_display.flatten(),
        user_message_uuid: user_message_uuid.flatten(),
        user_message_uuids: None,
        resume_reason: resume_reason.flatten(),
        abandoned_blocks: None,
        extra: Map::new(),
    })
}

struct Cursor<'a> {
    bytes: &'a [u8],
    /// The same bytes as text: every slice taken ends at an ASCII byte, so it is whole UTF-8.
    text: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn byte(&mut self, expected: u8) -> Option<()> {
        (self.bytes.get(self.pos) == Some(&expected)).then(|| self.pos += 1)
    }

    fn literal(&mut self, expected: &str) -> Option<()> {
        let end = self.pos + expected.len();
        (self.bytes.get(self.pos..end) == Some(expected.as_bytes())).then(|| self.pos = end)
    }

    /// After a member: `true` at a `,` (another member follows), `false` at the closing `}`.
    fn next_member(&mut self) -> Option<bool> {
        let byte = *self.bytes.get(self.pos)?;
        self.pos += 1;
        match byte {
            b',' => Some(true),
            b'}' => Some(false),
            _ => None,
        }
    }

    /// A key after its opening quote, with no escape in it, and the `:` after it.
    fn key(&mut self) -> Option<&'a str> {
        let start = self.pos;
        let end = start + plain_len(self.bytes.get(start..)?);
        if self.bytes.get(end..end + 2)? != b"\":" {
            return None;
        }
        self.pos = end + 2;
        self.text.get(start..end)
    }

    /// `null` or a string.
    fn nullable_string(&mut self) -> Option<Option<String>> {
        if self.literal("null").is_some() {
            return Some(None);
        }
        self.string_value().map(Some)
    }

    /// A string value, from its opening quote.
    fn string_value(&mut self) -> Option<String> {
        self.byte(b'"')?;
        let start = self.pos;
        let i = start + plain_len(self.bytes.get(start..)?);
        match *self.bytes.get(i)? {
            b'"' => {
                self.pos = i + 1;
                return self.text.get(start..i).map(str::to_owned);
            }
            b'\\' => {}
            // A raw control character: the general path reports it.
            _ => return None,
        }
        let mut out = String::with_capacity(i - start + 16);
        out.push_str(self.text.get(start..i)?);
        self.pos = i;
        self.escaped_rest(out)
    }

    /// The rest of a string that has an escape, at `self.pos`.
    #[cold]
    fn escaped_rest(&mut self, mut out: String) -> Option<String> {
        loop {
            let start = self.pos;
            let i = start + plain_len(self.bytes.get(start..)?);
            if *self.bytes.get(i)? < 0x20 {
                return None;
            }
            out.push_str(self.text.get(start..i)?);
            self.pos = i + 1;
            if self.bytes[i] == b'"' {
                return Some(out);
            }
            let escape = *self.bytes.get(self.pos)?;
            self.pos += 1;
            out.push(match escape {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => self.unicode_escape()?,
                _ => return None,
            });
        }
    }

    /// The character of a `\u` escape (after the `u`): a surrogate pair is read whole; a lone
    /// surrogate declines.
    fn unicode_escape(&mut self) -> Option<char> {
        let first = self.hex4()?;
        match first {
            0xD800..=0xDBFF => {
                self.literal("\\u")?;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return None;
                }
                char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            }
            0xDC00..=0xDFFF => None,
            code => char::from_u32(code),
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.bytes.get(self.pos..self.pos + 4)?;
        let mut value = 0;
        for &digit in digits {
            value = value * 16 + char::from(digit).to_digit(16)?;
        }
        self.pos += 4;
        Some(value)
    }

    /// A non-negative integer written as plain digits (no sign, fraction, exponent or leading
    /// zero), that fits a `u64`.
    fn integer(&mut self) -> Option<u64> {
        let start = self.pos;
        let mut value: u64 = 0;
        while let Some(digit) = self.bytes.get(self.pos).filter(|b| b.is_ascii_digit()) {
            value = value
                .checked_mul(10)?
                .checked_add(u64::from(digit - b'0'))?;
            self.pos += 1;
        }
        let digits = self.pos - start;
        (digits == 1 || (digits > 1 && self.bytes[start] != b'0')).then_some(value)
    }

    /// `{"type":"content_block_delta",…}` with `index` and `delta`, in either order.
    fn delta_event(&mut self) -> Option<ContentBlockDeltaEvent> {
        self.literal(r#"{"type":"content_block_delta","#)?;
        let mut index = None;
        let mut delta = None;
        loop {
            self.byte(b'"')?;
            match self.key()? {
                "index" if index.is_none() => index = Some(self.integer()?),
                "delta" if delta.is_none() => delta = Some(self.delta()?),
                _ => return None,
            }
            if !self.next_member()? {
                break;
            }
        }
        Some(ContentBlockDeltaEvent {
            index: index.unwrap_or_default(),
            delta: delta?,
            extra: Map::new(),
        })
    }

    /// A text, input-JSON or thinking delta: its tag, then its one field.
    fn delta(&mut self) -> Option<ContentDelta> {
        self.literal(r#"{"type":""#)?;
        let delta = if self.literal(r#"text_delta","text":"#).is_some() {
            ContentDelta::Text(TextDelta {
                text: self.string_value()?,
                extra: Map::new(),
            })
        } else if self
            .literal(r#"input_json_delta","partial_json":"#)
            .is_some()
        {
            ContentDelta::InputJson(InputJsonDelta {
                partial_json: self.string_value()?,
                extra: Map::new(),
            })
        } else if self.literal(r#"thinking_delta","thinking":"#).is_some() {
            ContentDelta::Thinking(ThinkingDelta {
                thinking: self.string_value()?,
                extra: Map::new(),
            })
        } else {
            return None;
        };
        self.byte(b'}')?;
        Some(delta)
    }
}

/// How many bytes of `bytes` come before the first `"`, `\\` or control character (all of them
/// when there is none), eight at a time.
fn plain_len(bytes: &[u8]) -> usize {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    // A byte of `word` is zero, or under 0x20: its high bit set in the result (exact for the
    // first such byte, which is all that is looked at).
    let special = |word: u64| {
        let zero = |w: u64| w.wrapping_sub(ONES) & !w & HIGHS;
        zero(word ^ (ONES * u64::from(b'"')))
            | zero(word ^ (ONES * u64::from(b'\\')))
            | (word.wrapping_sub(ONES * 0x20) & !word & HIGHS)
    };
    let mut i = 0;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let found = special(u64::from_le_bytes(word));
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&byte) = bytes.get(i) {
        if byte == b'"' || byte == b'\\' || byte < 0x20 {
            break;
        }
        i += 1;
    }
    i
}

#[cfg(test)]
#[path = "delta_line/tests.rs"]
mod tests;
