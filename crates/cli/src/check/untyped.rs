//! `twinwire check --coverage`: what of the frames the typed schema does not know yet.
//!
//! Beyond unknown kinds (which the check reports anyway) this finds the fields the schema keeps
//! only as they came: in `extra` maps, or as raw JSON. It probes each field of a frame: the
//! field's value is replaced by a marker object and the frame read again; a typed field turns
//! the marker into its default (the liberal reader repairs it) while a field the schema does
//! not type hands the marker back untouched. Fields inside a typed field are probed too, to a
//! bounded depth, and only the first elements of an array. Routing fields (`type`, `subtype`,
//! ids) are not probed: changing them changes what the frame is, and an object that has one (a
//! union member) is probed field by field, never replaced whole.
//!
//! A field is untyped only when it keeps both an object marker and a text marker, and the reader
//! repaired nothing to read either: a field typed as a struct takes an object (its unknown keys
//! go to its `extra`) but not text, one typed as text takes text but not an object, a union
//! keeps what does not fit as its `Malformed` variant but records the repair; only raw JSON
//! takes both as they are.
//!
//! A user frame's `tool_use_result` is typed by the tool that made it
//! ([`ToolOutput`](twinwire_protocol::tool_output::ToolOutput)): the probe learns each tool call's
//! name from the `tool_use` blocks before it and probes the result as that tool's output. A
//! control response's payload is typed by the subtype of the request it answers, learned the
//! same way from the requests before it.

use std::collections::BTreeMap;

use std::collections::{HashMap, VecDeque};

use serde::Serialize;
use serde_json::{json, Value};
use twinwire_protocol::hooks::HookEvent;
use twinwire_protocol::tool_output::ToolOutput;
use twinwire_protocol::{InputMessage, Message};

use super::Direction;

/// Fields that route a frame; probing them would read it as something else.
const ROUTING: &[&str] = &["type", "subtype", "request_id", "tag"];
/// How deep the probe goes into nested objects.
const MAX_DEPTH: usize = 6;
/// How many elements of an array are probed.
const ARRAY_SAMPLE: usize = 2;
/// How many tool calls' names, and control requests' subtypes, are remembered for the frames
/// that answer them (the oldest are forgotten).
const NAMES_KEPT: usize = 4096;
/// The field whose type depends on the tool call a user frame answers.
const TOOL_RESULT: &str = "tool_use_result";

/// What the typed schema does not know, over all frames checked.
#[derive(Debug, Default, Serialize)]
pub struct Coverage {
    /// `dir kind: path` → frames in which the field was kept untyped.
    pub untyped_fields: BTreeMap<String, usize>,
    /// Hook events of `hook_callback` requests → count; unknown ones are marked `?`.
    pub hook_events: BTreeMap<String, usize>,
    /// Tool call id → tool name, from the `tool_use` blocks seen so far (bounded).
    #[serde(skip)]
    tool_names: Recent,
    /// `dir request_id` of a control request → its subtype (bounded).
    #[serde(skip)]
    request_subtypes: Recent,
}

/// The latest names by id, at most [`NAMES_KEPT`].
#[derive(Debug, Default)]
struct Recent {
    by_id: HashMap<String, String>,
    order: VecDeque<String>,
}

impl Recent {
    fn insert(&mut self, id: String, name: &str) {
        if self.by_id.insert(id.clone(), name.to_owned()).is_none() {
            self.order.push_back(id);
            if self.order.len() > NAMES_KEPT {
                if let Some(oldest) = self.order.pop_front() {
                    self.by_id.remove(&oldest);
                }
            }
        }
    }

    fn get(&self, id: &str) -> Option<&str> {
        self.by_id.get(id).map(String::as_str)
    }

    /// The name of the tool whose call the user `frame`'s `tool_result` block answers.
    fn answered_by(&self, frame: &Value) -> Option<&str> {
        let blocks = frame.pointer("/message/content")?.as_array()?;
        blocks
            .iter()
            .filter(|block| block["type"] == "tool_result")
            .find_map(|block| self.get(block["tool_use_id"].as_str()?))
    }
}

/// The key of a control request: its direction and its id (each side numbers its own).
fn request_key(direction: Direction, id: &Value) -> String {
    let side = match direction {
        Direction::Out => "out",
        Direction::In => "in",
    };
    format!("{side} {id}")
}

impl Coverage {
    /// Probes one frame that read without repairs.
    pub fn add(&mut self, direction: Direction, kind: &str, frame: &Value) {
        let label = match direction {
            Direction::Out => "out",
            Direction::In => "in",
        };
        let mut paths = Vec::new();
        let read_frame = |probed: &Value| read_back(direction, probed);
        let is_user = frame["type"] == "user" && matches!(direction, Direction::Out);
        let mut message_frame = frame.clone();
        let tool_result = if is_user {
            message_frame
                .as_object_mut()
                .and_then(|map| map.remove(TOOL_RESULT))
        } else {
            None
        };
        // A success's payload, when the request it answers is known: probed as that request's
        // typed response.
        let answered = (frame["type"] == "control_response"
            && frame.pointer("/response/subtype") == Some(&json!("success")))
        .then(|| {
            let asked = match direction {
                Direction::Out => Direction::In,
                Direction::In => Direction::Out,
            };
            let id = frame.pointer("/response/request_id")?;
            self.request_subtypes
                .get(&request_key(asked, id))
                .map(str::to_owned)
        })
        .flatten()
        .filter(|subtype| {
            twinwire_protocol::control::reencode_response(subtype, &json!({})).is_some()
        });
        // A PostToolUse hook's `tool_response` is the tool's output too, named in its input.
        let hook_output = if frame.pointer("/request/subtype") == Some(&json!("hook_callback")) {
            let name = frame
                .pointer("/request/input/tool_name")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let output = message_frame
                .pointer_mut("/request/input")
                .and_then(Value::as_object_mut)
                .and_then(|input| input.remove("tool_response"));
            name.zip(output)
        } else {
            None
        };
        let payload = match &answered {
            Some(_) => message_frame
                .get_mut("response")
                .and_then(Value::as_object_mut)
                .and_then(|response| response.remove("response")),
            None => None,
        };
        probe(
            &read_frame,
            &message_frame,
            &mut Vec::new(),
            &message_frame,
            &mut paths,
            0,
        );
        if let Some(result) = tool_result {
            match self.tool_names.answered_by(frame) {
                Some(name) => {
                    let read_output = |probed: &Value| {
                        let output = ToolOutput::parse(name, probed);
                        output.is_typed().then(|| (output.to_value(), false))
                    };
                    let mut found = Vec::new();
                    probe(
                        &read_output,
                        &result,
                        &mut Vec::new(),
                        &result,
                        &mut found,
                        1,
                    );
                    paths.extend(found.into_iter().map(|path| match path.as_str() {
                        "" => TOOL_RESULT.to_owned(),
                        _ if path.starts_with('[') => format!("{TOOL_RESULT}{path}"),
                        _ => format!("{TOOL_RESULT}.{path}"),
                    }));
                }
                // A result of a call not seen: nothing says what it is.
                None => paths.push(TOOL_RESULT.to_owned()),
            }
        }
        if let (Some(subtype), Some(payload)) = (&answered, payload) {
            let read_payload = |probed: &Value| match twinwire_protocol::control::reencode_response(
                subtype, probed,
            ) {
                Some(Ok(written)) => Some((written, false)),
                _ => None,
            };
            let mut found = Vec::new();
            probe(
                &read_payload,
                &payload,
                &mut Vec::new(),
                &payload,
                &mut found,
                1,
            );
            paths.extend(found.into_iter().map(|path| match path.as_str() {
                "" => "response.response".to_owned(),
                _ if path.starts_with('[') => format!("response.response{path}"),
                _ => format!("response.response.{path}"),
            }));
        }
        if let Some((name, output)) = hook_output {
            let read_output = |probed: &Value| {
                let output = ToolOutput::parse(&name, probed);
                output.is_typed().then(|| (output.to_value(), false))
            };
            let mut found = Vec::new();
            probe(
                &read_output,
                &output,
                &mut Vec::new(),
                &output,
                &mut found,
                1,
            );
            paths.extend(found.into_iter().map(|path| match path.as_str() {
                "" => "request.input.tool_response".to_owned(),
                _ if path.starts_with('[') => format!("request.input.tool_response{path}"),
                _ => format!("request.input.tool_response.{path}"),
            }));
        }
        if frame["type"] == "control_request" {
            if let (Some(id), Some(subtype)) = (
                frame.get("request_id"),
                frame.pointer("/request/subtype").and_then(Value::as_str),
            ) {
                self.request_subtypes
                    .insert(request_key(direction, id), subtype);
            }
        }
        if frame["type"] == "assistant" {
            for block in frame
                .pointer("/message/content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|block| block["type"] == "tool_use")
            {
                if let (Some(id), Some(name)) = (block["id"].as_str(), block["name"].as_str()) {
                    self.tool_names.insert(id.to_owned(), name);
                }
            }
        }
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

/// Reads a probed value and writes it back, saying whether the reader had to repair anything;
/// `None` when it no longer reads as typed.
type ReadBack<'a> = dyn Fn(&Value) -> Option<(Value, bool)> + 'a;

/// Probes every field of the object or array `here` (at `path` in `frame`), collecting the
/// paths of untyped fields into `out`.
fn probe(
    read: &ReadBack<'_>,
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
                if !routed && is_untyped(read, frame, path) {
                    out.push(render(path));
                } else if value.is_object() || value.is_array() {
                    probe(read, frame, path, value, out, depth + 1);
                }
                path.pop();
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate().take(ARRAY_SAMPLE) {
                if item.is_object() {
                    path.push(Step::Index(index));
                    probe(read, frame, path, item, out, depth + 1);
                    path.pop();
                }
            }
        }
        _ => {}
    }
}

/// Whether the field at `path` comes back as given after the frame is read and written, both
/// when it is an object and when it is text: only a field kept as raw JSON does both.
fn is_untyped(read: &ReadBack<'_>, frame: &Value, path: &[Step]) -> bool {
    let markers = [
        json!({"twinwire-probe": [1, "marker"]}),
        json!("twinwire-probe marker"),
    ];
    markers.iter().all(|marker| {
        let mut probed = frame.clone();
        let Some(slot) = at_mut(&mut probed, path) else {
            return false;
        };
        *slot = marker.clone();
        // `None`: the marker made the whole frame unreadable, so the field is typed and
        // required.
        read(&probed).is_some_and(|(mut written, repaired)| {
            !repaired && at_mut(&mut written, path).is_some_and(|value| value == marker)
        })
    })
}

/// `frame` read as a message of `direction` and written back, and whether reading it took
/// repairs; `None` when it does not read.
fn read_back(direction: Direction, frame: &Value) -> Option<(Value, bool)> {
    let text = frame.to_string();
    match direction {
        Direction::Out => Message::decode(&text).ok().and_then(|read| {
            (!matches!(read.value, Message::Malformed(_)))
                .then(|| (read.value.to_value(), !read.repairs.is_empty()))
        }),
        Direction::In => InputMessage::decode(&text).ok().and_then(|read| {
            (!matches!(read.value, InputMessage::Malformed(_)))
                .then(|| (read.value.to_value(), !read.repairs.is_empty()))
        }),
    }
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
    fn a_struct_that_takes_any_object_is_still_typed() {
        // `stop_details` and `diagnostics` are structs with an `extra` map: an object marker
        // lands in that map, a text marker does not fit.
        let mut coverage = Coverage::default();
        let frame = json!({
            "type": "assistant", "uuid": "u", "session_id": "s", "parent_tool_use_id": null,
            "message": {"id": "m", "type": "message", "role": "assistant", "model": "x",
                "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": 1, "output_tokens": 1, "fallback_credit": null},
                "stop_details": null, "diagnostics": null, "brand_new": null}
        });
        coverage.add(Direction::Out, "assistant", &frame);
        let fields: Vec<&String> = coverage.untyped_fields.keys().collect();
        assert_eq!(fields, ["out assistant: message.brand_new"]);
    }

    #[test]
    fn a_tool_result_is_probed_as_the_output_of_its_tool() {
        let mut coverage = Coverage::default();
        let call = json!({"type": "assistant", "uuid": "u", "session_id": "s",
            "parent_tool_use_id": null, "message": {"id": "m", "type": "message",
            "role": "assistant", "model": "x", "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1},
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                "input": {"command": "ls"}}]}});
        coverage.add(Direction::Out, "assistant", &call);
        let result = |id: &str| {
            json!({"type": "user", "uuid": "u2", "session_id": "s", "parent_tool_use_id": null,
                "message": {"role": "user", "content": [{"type": "tool_result",
                    "tool_use_id": id, "content": "a"}]},
                "tool_use_result": {"stdout": "a", "stderr": "", "interrupted": false,
                    "isImage": false, "brand_new": {"x": 1}}})
        };
        coverage.add(Direction::Out, "user", &result("toolu_1"));
        coverage.add(Direction::Out, "user", &result("toolu_unseen"));
        let fields: Vec<&String> = coverage
            .untyped_fields
            .keys()
            .filter(|field| field.starts_with("out user"))
            .collect();
        assert_eq!(
            fields,
            [
                "out user: tool_use_result",
                "out user: tool_use_result.brand_new"
            ]
        );
        assert_eq!(coverage.untyped_fields["out user: tool_use_result"], 1);
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
