//! The direct reader against serde: same value, or it declines.

use proptest::prelude::*;
use serde_json::value::RawValue;

use super::read;
use crate::Message;

/// Reads `line` both ways: when the direct reader accepts it, serde must read it too, with no
/// repair, to an equal value that writes back the same JSON. Returns whether it was accepted.
fn check(line: &str) -> bool {
    let Some(fast) = read(line).map(|frame| Message::StreamEvent(Box::new(frame))) else {
        return false;
    };
    let slow = crate::error::decode_frame::<Message>(line)
        .unwrap_or_else(|err| panic!("accepted a line serde refuses ({err}): {line}"));
    assert!(
        slow.repairs.is_empty(),
        "accepted a line serde repairs: {line}"
    );
    assert_eq!(fast, slow.value, "{line}");
    assert_eq!(
        serde_json::to_string(&fast).unwrap(),
        serde_json::to_string(&slow.value).unwrap(),
        "{line}"
    );
    true
}

/// `text` without the whitespace between tokens: a recorded frame as the CLI wrote it (the
/// recordings are written with spaces after `:` and `,`).
fn compact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if !c.is_ascii_whitespace() {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

/// `value` written compactly with `type` first in every object, as the CLI writes its frames
/// (the recordings of `tests/fixtures` are normalized, with keys sorted).
fn type_first(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let tag = map.get("type").map(|tag| ("type", tag));
            let rest = map.iter().filter(|(key, _)| *key != "type");
            let members: Vec<String> = tag
                .into_iter()
                .chain(rest.map(|(key, value)| (key.as_str(), value)))
                .map(|(key, value)| {
                    format!(
                        "{}:{}",
                        serde_json::to_string(key).unwrap(),
                        type_first(value)
                    )
                })
                .collect();
            format!("{{{}}}", members.join(","))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(type_first).collect();
            format!("[{}]", items.join(","))
        }
        leaf => serde_json::to_string(leaf).unwrap(),
    }
}

/// Every recorded stdout frame, in its recorded key order, compacted.
fn recorded_lines() -> Vec<String> {
    #[derive(serde::Deserialize)]
    struct Record<'a> {
        #[serde(borrow)]
        msg: Option<&'a RawValue>,
    }
    let mut lines = Vec::new();
    for path in crate::test_fixtures::files() {
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines().filter(|line| !line.trim().is_empty()) {
            let record: Record = serde_json::from_str(line).unwrap();
            if let Some(msg) = record.msg {
                lines.push(compact(msg.get()));
            }
        }
    }
    lines
}

const FLOOD_LINE: &str = r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}},"parent_tool_use_id":null,"uuid":"4ffcbf05-5354-4f0f-9f7c-9917a261919e","session_id":"3c0d98f3-796f-4810-ba6c-8a0e40294a5f","api_message_id":"msg_fake_728816d836772714094a"}"#;

/// Lines of the shapes the reader takes, and near misses.
fn base_lines() -> Vec<String> {
    let mut lines = vec![FLOOD_LINE.to_owned()];
    let deltas = [
        r#"{"type":"text_delta","text":"a \"quoted\"\nline\\ \/ \b\f\r\t \u00e9\u20AC \ud83d\ude00 é😀"}"#,
        r#"{"type":"input_json_delta","partial_json":"{\"path\": \"/tmp/a"}"#,
        r#"{"type":"thinking_delta","thinking":""}"#,
        r#"{"type":"signature_delta","signature":"abc"}"#,
        r#"{"type":"text_delta"}"#,
        r#"{"type":"text_delta","text":"a","extra":1}"#,
        r#"{"text":"a","type":"text_delta"}"#,
    ];
    let events = |delta: &str| {
        [
            format!(r#"{{"type":"content_block_delta","index":12,"delta":{delta}}}"#),
            format!(r#"{{"type":"content_block_delta","delta":{delta},"index":3}}"#),
            format!(r#"{{"type":"content_block_delta","delta":{delta}}}"#),
        ]
    };
    let tails = [
        r#","parent_tool_use_id":null,"uuid":"u","session_id":"s""#,
        r#","session_id":"s","uuid":"u","parent_tool_use_id":"toolu_1","api_message_id":null"#,
        r#","uuid":"u","thinking_display":"summarized","user_message_uuid":"m","resume_reason":"r""#,
        r#","uuid":null"#,
        r#","ttft_ms":25"#,
        r#","uuid":"a","uuid":"b""#,
        r#","type":"assistant""#,
        "",
    ];
    for delta in deltas {
        for event in events(delta) {
            for tail in tails {
                lines.push(format!(
                    r#"{{"type":"stream_event","event":{event}{tail}}}"#
                ));
                lines.push(format!(
                    r#"{{"type":"stream_event","uuid":"u2"{tail},"event":{event}}}"#
                ));
            }
        }
    }
    lines
}

#[test]
fn every_recorded_line_reads_as_serde_reads_it() {
    let mut accepted = 0;
    for line in recorded_lines() {
        check(&line);
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        accepted += usize::from(check(&type_first(&value)));
    }
    // The recordings hold text, tool-input and thinking deltas: the reader must take them.
    assert!(accepted > 20, "only {accepted} recorded lines taken");
}

#[test]
fn the_flood_line_and_its_shapes_are_read_as_serde_reads_them() {
    assert!(check(FLOOD_LINE));
    let lines = base_lines();
    let accepted = lines.iter().filter(|line| check(line)).count();
    // 3 deltas × 3 event shapes × the field sets serde reads without repair.
    assert!(accepted >= 40, "{accepted} of {}", lines.len());
}

#[test]
fn mutated_lines_read_as_serde_reads_them_or_are_declined() {
    let inserts = [
        "\"", "\\", ",", "}", "{", ":", " ", "0", "9", "-", "n", "u", "\\u", "\\ud800", "\u{1}",
        "é", "null", "\"x\":1,", "1.0", "e5",
    ];
    for base in base_lines() {
        let cuts: Vec<usize> = (0..=base.len())
            .filter(|&i| base.is_char_boundary(i))
            .collect();
        for &cut in &cuts {
            check(&base[..cut]);
            check(&format!("{}{}", &base[..cut], "\n"));
            for insert in inserts {
                check(&format!("{}{insert}{}", &base[..cut], &base[cut..]));
            }
            // Each character replaced by each insert.
            if let Some(next) = cuts.iter().find(|&&i| i > cut) {
                for insert in inserts {
                    check(&format!("{}{insert}{}", &base[..cut], &base[*next..]));
                }
            }
        }
    }
}

proptest! {
    /// Any text, written by serde_json (which escapes quotes, backslashes and control
    /// characters) or with every character as a `\u` escape (surrogate pairs beyond the BMP).
    #[test]
    fn any_text_reads_as_serde_reads_it(text in any::<String>(), index in any::<u64>()) {
        let plain = serde_json::to_string(&text).unwrap();
        let mut escaped = String::from("\"");
        for unit in text.encode_utf16() {
            escaped.push_str(&format!("\\u{unit:04x}"));
        }
        escaped.push('"');
        for (field, kind) in [("text", "text_delta"), ("partial_json", "input_json_delta"),
                              ("thinking", "thinking_delta")] {
            for value in [&plain, &escaped] {
                let line = format!(
                    r#"{{"type":"stream_event","event":{{"type":"content_block_delta","index":{index},"delta":{{"type":"{kind}","{field}":{value}}}}},"parent_tool_use_id":null,"uuid":{value},"session_id":"s"}}"#
                );
                prop_assert!(check(&line), "declined: {}", line);
            }
        }
    }

    /// Arbitrary bytes where the text goes: read as serde reads them, or declined.
    #[test]
    fn any_string_body_reads_as_serde_reads_it_or_is_declined(body in "[ -~\\\\\"\u{0}-\u{1f}é😀]{0,24}") {
        let line = format!(
            r#"{{"type":"stream_event","event":{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":"{body}"}}}},"uuid":"u"}}"#
        );
        check(&line);
    }
}

proptest! {
    /// The eight-at-a-time scan stops where a byte-by-byte one does.
    #[test]
    fn plain_len_stops_at_the_first_quote_backslash_or_control(
        bytes in proptest::collection::vec(prop_oneof![any::<u8>(), Just(b'"'), Just(b'\\'), 0x1fu8..=0x21, 0x7fu8..=0x81], 0..40)
    ) {
        let naive = bytes.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).unwrap_or(bytes.len());
        prop_assert_eq!(super::plain_len(&bytes), naive);
    }
}
