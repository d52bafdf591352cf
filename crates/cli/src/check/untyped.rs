//! `ccwire check --coverage`: what of the frames the typed schema does not know yet.
//!
//! Beyond unknown kinds (which the check reports anyway) this finds the fields the schema keeps
//! only as they came: in `extra` maps, or as raw JSON. It probes each field of a frame: the
//! field's value is replaced by a marker object and the frame read again; a typed field turns
//! the marker into its default (the liberal reader repairs it) while a field the schema does
//! not type hands the marker back untouched. Fields inside a typed field are probed too, to a
//! bounded depth, and only the first elements of an array. Routing fields (`type`, `subtype`,
//! ids) are not probed: changing them changes what the frame is, and an object that has one (a
//! union member) is probed field by field, never replaced whole.

use std::collections::BTreeMap;

use ccwire_protocol::hooks::HookEvent;
use ccwire_protocol::{InputMessage, Message};
use serde::Serialize;
use serde_json::{json, Value};

use super::Direction;

/// Fields that route a frame; probing them would read it as something else.
const ROUTING: &[&str] = &["type", "subtype", "request_id", "tag"];
/// How deep the probe goes into nested objects.
const MAX_DEPTH: usize = 6;
/// How many elements of an array are probed.
const ARRAY_SAMPLE: usize = 2;

/// What the typed schema does not know, over all frames checked.
#[derive(Debug, Default, Serialize)]
pub struct Coverage {
    /// `dir kind: path` → frames in which the field was kept untyped.
    pub untyped_fields: BTreeMap<String, usize>,
    /// Hook events of `hook_callback` requests → count; unknown ones are marked `?`.
    pub hook_events: BTreeMap<String, usize>,
}

impl Coverage {
    /// Probes one frame that read without repairs.
    pub fn add(&mut self, direction: Direction, kind: &str, frame: &Value) {
        let label = match direction {
            Direction::Out => "out",
            Direction::In => "in",
        };
        let mut paths = Vec::new();
        probe(direction, frame, &mut Vec::new(), frame, &mut paths, 0);
        paths.sort();
        paths.dedup();
        for path in paths {
            *self
                .untyped_fields
                .entry(format!("{label} {kind}: {path}"))
                .or_default() += 1;
        }
        if frame.pointer("/request/subtype") == Some(&json!("hook_callback")) {
            if let Some(event) = frame
                .pointer("/request/input/hook_event_name")
                .and_then(Value::as_str)
            {
                let known = !matches!(HookEvent::from(event), HookEvent::Other(_));
                let name = if known {
                    event.to_owned()
                } else {
                    format!("{event} ?")
                };
                *self.hook_events.entry(name).or_default() += 1;
            }
        }
    }
}

/// A step of a path into a frame.
#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// Probes every field of the object or array `here` (at `path` in `frame`), collecting the
/// paths of untyped fields into `out`.
fn probe(
    direction: Direction,
    frame: &Value,
    path: &mut Vec<Step>,
    here: &Value,
    out: &mut Vec<String>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    match here {
        Value::Object(map) => {
            for (key, value) in map {
                if ROUTING.contains(&key.as_str()) {
                    continue;
                }
                path.push(Step::Key(key.clone()));
                // An object that carries its own routing field (a control request's
                // `request`, a stream event, a content block) is a union member: replacing it
                // whole would re-route it, so only its fields are probed.
                let routed = value
                    .as_object()
                    .is_some_and(|inner| ROUTING.iter().any(|key| inner.contains_key(*key)));
                if !routed && is_untyped(direction, frame, path) {
                    out.push(render(path));
                } else if value.is_object() || value.is_array() {
                    probe(direction, frame, path, value, out, depth + 1);
                }
                path.pop();
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate().take(ARRAY_SAMPLE) {
                if item.is_object() {
                    path.push(Step::Index(index));
                    probe(direction, frame, path, item, out, depth + 1);
                    path.pop();
                }
            }
        }
        _ => {}
    }
}

/// Whether the field at `path` comes back as the marker after the frame is read and written.
fn is_untyped(direction: Direction, frame: &Value, path: &[Step]) -> bool {
    let marker = json!({"ccwire-probe": [1, "marker"]});
    let mut probed = frame.clone();
    let Some(slot) = at_mut(&mut probed, path) else {
        return false;
    };
    *slot = marker.clone();
    let text = probed.to_string();
    let written = match direction {
        Direction::Out => Message::from_json(&text).ok().and_then(|message| {
            (!matches!(message, Message::Malformed(_))).then(|| message.to_value())
        }),
        Direction::In => InputMessage::from_json(&text).ok().and_then(|message| {
            (!matches!(message, InputMessage::Malformed(_))).then(|| message.to_value())
        }),
    };
    let Some(mut written) = written else {
        // The marker made the whole frame unreadable: the field is typed and required.
        return false;
    };
    at_mut(&mut written, path).is_some_and(|value| *value == marker)
}

fn at_mut<'a>(value: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    path.iter().try_fold(value, |value, step| match step {
        Step::Key(key) => value.get_mut(key.as_str()),
        Step::Index(index) => value.get_mut(*index),
    })
}

/// `message.content[].text`: array indices are not part of a field's name.
fn render(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Step::Index(_) => out.push_str("[]"),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_the_schema_does_not_know_is_found_and_typed_ones_are_not() {
        let mut coverage = Coverage::default();
        let frame = json!({
            "type": "result", "subtype": "success", "is_error": false, "num_turns": 1,
            "duration_ms": 5, "session_id": "s", "result": "ok",
            "brand_new_field": {"a": 1},
            "usage": {"input_tokens": 1, "output_tokens": 2, "future_usage": 3}
        });
        coverage.add(Direction::Out, "result/success", &frame);
        let fields: Vec<&String> = coverage.untyped_fields.keys().collect();
        assert!(
            fields.contains(&&"out result/success: brand_new_field".to_owned()),
            "{fields:?}"
        );
        assert!(
            fields.contains(&&"out result/success: usage.future_usage".to_owned()),
            "{fields:?}"
        );
        for typed in ["num_turns", "is_error", "duration_ms", "usage.input_tokens"] {
            assert!(
                !fields.iter().any(|f| f.ends_with(&format!(": {typed}"))),
                "{typed} is typed: {fields:?}"
            );
        }
    }

    #[test]
    fn hook_events_are_counted_and_unknown_ones_marked() {
        let mut coverage = Coverage::default();
        for event in ["PreToolUse", "SomeFutureEvent"] {
            let frame = json!({"type": "control_request", "request_id": "1", "request": {
                "subtype": "hook_callback", "callback_id": "hook_0",
                "input": {"hook_event_name": event}}});
            coverage.add(Direction::Out, "control_request/hook_callback", &frame);
        }
        assert_eq!(coverage.hook_events.get("PreToolUse"), Some(&1));
        assert_eq!(coverage.hook_events.get("SomeFutureEvent ?"), Some(&1));
    }

    #[test]
    fn paths_read_as_field_names() {
        let path = [
            Step::Key("message".into()),
            Step::Key("content".into()),
            Step::Index(0),
            Step::Key("text".into()),
        ];
        assert_eq!(render(&path), "message.content[].text");
    }
}
