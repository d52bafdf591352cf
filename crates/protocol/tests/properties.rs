#![allow(clippy::unwrap_used)]
//! Property tests: framing does not depend on how bytes are chunked, and frames with made-up
//! kinds and fields survive a round trip.

use std::path::PathBuf;

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use twinwire_protocol::framing::LineDecoder;
use twinwire_protocol::{InputMessage, Message};

fn transcript_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/transcripts"
    ));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the transcripts must be at {}: {e}", dir.display()))
        .flat_map(|version| std::fs::read_dir(version.unwrap().path()).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

/// Decodes `bytes` fed in chunks of the given sizes (cycled), returning every item.
fn decode_chunked(bytes: &[u8], sizes: &[usize], max: usize) -> Vec<Result<String, String>> {
    let mut decoder = LineDecoder::with_max_line_length(max);
    let mut out = Vec::new();
    let mut rest = bytes;
    let mut sizes = sizes.iter().cycle();
    while !rest.is_empty() {
        let n = (*sizes.next().unwrap()).clamp(1, rest.len());
        decoder.push(&rest[..n]);
        rest = &rest[n..];
        while let Some(item) = decoder.next_line() {
            out.push(item.map(|l| l.text.to_owned()).map_err(|e| e.to_string()));
        }
    }
    while let Some(item) = decoder.finish() {
        out.push(item.map(|l| l.text.to_owned()).map_err(|e| e.to_string()));
    }
    out
}

/// Made-up field names that cannot collide with a declared field.
fn field_name() -> impl Strategy<Value = String> {
    "[a-z]{1,8}".prop_map(|s| format!("zz_{s}"))
}

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        (-1.0e9f64..1.0e9).prop_map(|f| json!(f)),
        ".{0,12}".prop_map(Value::String),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-zA-Z_]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn extra_fields() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map(field_name(), json_value(), 0..5)
        .prop_map(|m| m.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_chunking_gives_the_same_frames(
        file_index in any::<prop::sample::Index>(),
        sizes in prop::collection::vec(1usize..5000, 1..20),
    ) {
        let files = transcript_files();
        let bytes = std::fs::read(file_index.get(&files)).unwrap();
        let whole = decode_chunked(&bytes, &[usize::MAX], 1 << 30);
        let chunked = decode_chunked(&bytes, &sizes, 1 << 30);
        prop_assert_eq!(&whole, &chunked);
        // And every line is the JSON object it was written as.
        let expected: Vec<_> = String::from_utf8(bytes).unwrap().lines()
            .filter(|l| !l.trim().is_empty()).map(|l| Ok(l.to_owned())).collect();
        prop_assert_eq!(whole, expected);
    }

    #[test]
    fn chunking_does_not_change_which_lines_are_too_long(
        lines in prop::collection::vec(0usize..300, 1..30),
        sizes in prop::collection::vec(1usize..97, 1..10),
    ) {
        let text: String = lines.iter().map(|n| format!("{}\n", "x".repeat(*n))).collect();
        let whole = decode_chunked(text.as_bytes(), &[usize::MAX], 100);
        let chunked = decode_chunked(text.as_bytes(), &sizes, 100);
        prop_assert_eq!(&whole, &chunked);
        let too_long = chunked.iter().filter(|i| i.is_err()).count();
        prop_assert_eq!(too_long, lines.iter().filter(|n| **n > 100).count());
    }

    #[test]
    fn made_up_types_round_trip(
        kind in "[a-z_]{1,12}".prop_map(|s| format!("zz_{s}")),
        fields in extra_fields(),
    ) {
        let mut object = fields;
        object.insert("type".into(), Value::String(kind.clone()));
        let value = Value::Object(object);
        let message = Message::from_json(&value.to_string()).unwrap();
        prop_assert_eq!(message.unknown_kind(), Some(kind.clone()));
        prop_assert_eq!(message.to_value(), value.clone());
        let input = InputMessage::from_json(&value.to_string()).unwrap();
        prop_assert_eq!(input.unknown_kind(), Some(kind));
        prop_assert_eq!(input.to_value(), value);
    }

    #[test]
    fn made_up_subtypes_round_trip(
        subtype in "[a-z_]{1,12}".prop_map(|s| format!("zz_{s}")),
        fields in extra_fields(),
    ) {
        let mut system = fields.clone();
        system.insert("type".into(), json!("system"));
        system.insert("subtype".into(), json!(subtype));
        let system = Value::Object(system);
        let message = Message::from_json(&system.to_string()).unwrap();
        prop_assert_eq!(message.unknown_kind(), Some(format!("system/{subtype}")));
        prop_assert_eq!(message.to_value(), system);

        let mut request = fields;
        request.insert("subtype".into(), json!(subtype));
        let frame = json!({"type": "control_request", "request_id": "r1", "request": request});
        let message = Message::from_json(&frame.to_string()).unwrap();
        prop_assert_eq!(message.unknown_kind(), Some(format!("control_request/{subtype}")));
        prop_assert_eq!(message.to_value(), frame);
    }

    #[test]
    fn made_up_fields_on_known_kinds_round_trip(
        frame_index in any::<prop::sample::Index>(),
        fields in extra_fields(),
    ) {
        let frames = known_frames();
        let (out_dir, frame) = frame_index.get(&frames);
        let mut object = frame.as_object().unwrap().clone();
        object.extend(fields);
        let value = Value::Object(object);
        let written = if *out_dir {
            Message::from_json(&value.to_string()).map(|m| m.to_value())
        } else {
            InputMessage::from_json(&value.to_string()).map(|m| m.to_value())
        };
        prop_assert_eq!(written.unwrap(), value);
    }
}

/// One frame of each kind in the newest transcripts.
fn known_frames() -> Vec<(bool, Value)> {
    let mut seen = std::collections::BTreeMap::new();
    for file in transcript_files() {
        if file.to_string_lossy().ends_with(".api.jsonl") {
            continue;
        }
        for line in std::fs::read_to_string(&file).unwrap().lines() {
            let record: Value = serde_json::from_str(line).unwrap();
            let (Some(dir), Some(msg)) = (record["dir"].as_str(), record.get("msg")) else {
                continue;
            };
            let key = format!("{dir} {} {}", msg["type"], msg["subtype"]);
            seen.entry(key).or_insert((dir == "out", msg.clone()));
        }
    }
    seen.into_values().collect()
}

/// `object` written with its `type` first, its other entries after in `serde_json`'s order,
/// and the tag's first character escaped when `escape_tag` (so the parser cannot lend it).
fn with_type_first(object: &Map<String, Value>, escape_tag: bool) -> String {
    let tag = object["type"].as_str().unwrap();
    let mut first = tag.chars();
    let head = first.next().unwrap();
    let tag = if escape_tag {
        format!("\"\\u{:04x}{}\"", u32::from(head), first.as_str())
    } else {
        Value::String(tag.to_owned()).to_string()
    };
    let mut rest = object.clone();
    rest.remove("type");
    let rest = Value::Object(rest).to_string();
    let rest = &rest[1..rest.len() - 1];
    let comma = if rest.is_empty() { "" } else { "," };
    format!("{{\"type\":{tag}{comma}{rest}}}")
}

/// Known frames read the same whether the tag comes first (as the CLI writes it, read without
/// replaying anything), after other fields (`serde_json` sorts keys, so `type` comes late), or
/// escaped (the tag cannot be borrowed from the input).
#[test]
fn tag_position_and_escapes_do_not_change_what_is_read() {
    let frames = known_frames();
    assert!(frames.len() > 10, "{} kinds", frames.len());
    for (out_dir, frame) in frames {
        let object = frame.as_object().unwrap();
        let sorted = frame.to_string();
        let variants = [
            sorted.clone(),
            with_type_first(object, false),
            with_type_first(object, true),
        ];
        if out_dir {
            let expected = Message::from_json(&sorted).unwrap();
            for text in &variants {
                assert_eq!(Message::from_json(text).unwrap(), expected, "{text}");
            }
        } else {
            let expected = InputMessage::from_json(&sorted).unwrap();
            for text in &variants {
                assert_eq!(InputMessage::from_json(text).unwrap(), expected, "{text}");
            }
        }
    }
}
