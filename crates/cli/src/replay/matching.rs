//! When a host's frame counts as the one a recording holds: same kind, same key fields; ids,
//! uuids, timestamps and session ids never count.
//!
//! Key fields, by `type`:
//! * every frame: `type`, and `subtype` when there is one;
//! * `user`: the text of `message.content` (a string, or its text blocks joined by newlines);
//! * `control_request`: `request.subtype`, and `request.model` / `mode` /
//!   `max_thinking_tokens` / `server_name` / `serverName` / `enabled` when present;
//! * `control_response`: `response.subtype`, and in `response.response` the decision a host
//!   made: `behavior` (permission results), `decision`, `continue`,
//!   `hookSpecificOutput.permissionDecision` (hooks), `action` (elicitation), and whether an
//!   `mcp_response` carries a `result` or an `error`.
//!
//! A recorded string that holds `<redacted N chars>` (a secret the tap removed) matches any N
//! characters there.

use std::collections::BTreeMap;

use serde_json::Value;
use twinwire_protocol::InputMessage;

use crate::transcript::redact::matches_redacted;
use crate::transcript::Entry;

/// Fields of a control request compared when present.
const REQUEST_FIELDS: [&str; 6] = [
    "model",
    "mode",
    "max_thinking_tokens",
    "server_name",
    "serverName",
    "enabled",
];

/// Fields of a control response's payload compared when present.
const RESPONSE_FIELDS: [&str; 4] = ["behavior", "decision", "continue", "action"];

/// A frame as the host sent it.
#[derive(Debug, Clone)]
pub struct Frame {
    /// The line.
    pub text: String,
    /// The line parsed, if it is JSON.
    pub value: Option<Value>,
}

impl Frame {
    /// Parses a line.
    pub fn parse(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            value: serde_json::from_str(text).ok(),
        }
    }

    /// A view of it.
    pub fn view(&self) -> FrameRef<'_> {
        FrameRef {
            text: &self.text,
            value: self.value.as_ref(),
        }
    }
}

/// A frame as a recording holds it or the host sent it, borrowed.
#[derive(Debug, Clone, Copy)]
pub struct FrameRef<'a> {
    /// The line.
    pub text: &'a str,
    /// The line parsed, if it is JSON.
    pub value: Option<&'a Value>,
}

impl<'a> From<&'a Entry> for FrameRef<'a> {
    fn from(entry: &'a Entry) -> Self {
        Self {
            text: &entry.text,
            value: entry.value.as_ref(),
        }
    }
}

impl<'a> FrameRef<'a> {
    /// The frame's `type`.
    pub fn frame_type(self) -> Option<&'a str> {
        self.value?.get("type")?.as_str()
    }

    /// `type/subtype` as the protocol names it (`control_request/initialize`), or `raw line`.
    pub fn kind(self) -> String {
        match InputMessage::from_json(self.text) {
            Ok(message) => message.kind(),
            Err(_) => match self.frame_type() {
                Some(kind) => kind.to_owned(),
                None if self.value.is_some() => "JSON without a type".to_owned(),
                None => "raw line".to_owned(),
            },
        }
    }

    /// The frame pretty-printed for a diff.
    pub fn pretty(self) -> String {
        match self.value {
            Some(value) => {
                serde_json::to_string_pretty(value).unwrap_or_else(|_| self.text.to_owned())
            }
            None => self.text.to_owned(),
        }
    }

    /// The `request_id` of a control request.
    pub fn request_id(self) -> Option<&'a str> {
        let value = self.value?;
        if value.get("type")? != "control_request" {
            return None;
        }
        value.get("request_id")?.as_str()
    }
}

/// One key field that differs.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldDiff {
    /// Its name, as a path (`message.content text`, `response.response.behavior`).
    pub field: String,
    /// What the recording holds (`null` if absent).
    pub recorded: Value,
    /// What the host sent (`null` if absent).
    pub received: Value,
}

/// The key fields where `received` differs from `recorded`; empty when it matches.
pub fn diff(recorded: FrameRef<'_>, received: FrameRef<'_>) -> Vec<FieldDiff> {
    let (Some(rec), Some(got)) = (recorded.value, received.value) else {
        if recorded.value.is_none()
            && received.value.is_none()
            && matches_redacted(recorded.text, received.text)
        {
            return Vec::new();
        }
        return vec![FieldDiff {
            field: "line".to_owned(),
            recorded: Value::String(recorded.text.to_owned()),
            received: Value::String(received.text.to_owned()),
        }];
    };
    let rec = key_fields(rec);
    let got = key_fields(got);
    let mut names: Vec<&String> = rec.keys().chain(got.keys()).collect();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .filter_map(|name| {
            let recorded = rec.get(name).cloned().unwrap_or(Value::Null);
            let received = got.get(name).cloned().unwrap_or(Value::Null);
            (!values_match(&recorded, &received)).then(|| FieldDiff {
                field: name.clone(),
                recorded,
                received,
            })
        })
        .collect()
}

/// Whether `received` counts as `recorded`.
pub fn matches(recorded: FrameRef<'_>, received: FrameRef<'_>) -> bool {
    diff(recorded, received).is_empty()
}

fn values_match(recorded: &Value, received: &Value) -> bool {
    match (recorded, received) {
        (Value::String(rec), Value::String(got)) => matches_redacted(rec, got),
        _ => recorded == received,
    }
}

/// The fields that identify a frame, by name.
fn key_fields(frame: &Value) -> BTreeMap<String, Value> {
    let mut fields = BTreeMap::new();
    let mut put = |name: &str, value: Option<&Value>| {
        if let Some(value) = value {
            fields.insert(name.to_owned(), value.clone());
        }
    };
    put("type", frame.get("type"));
    put("subtype", frame.get("subtype"));
    match frame.get("type").and_then(Value::as_str) {
        Some("user") => {
            let text = frame.pointer("/message/content").map(content_text);
            put("message.content text", text.as_ref());
        }
        Some("control_request") => {
            let request = frame.get("request");
            put("request.subtype", request.and_then(|r| r.get("subtype")));
            for name in REQUEST_FIELDS {
                let value = request.and_then(|r| r.get(name));
                put(&format!("request.{name}"), value);
            }
        }
        Some("control_response") => {
            let response = frame.get("response");
            put("response.subtype", response.and_then(|r| r.get("subtype")));
            let payload = response.and_then(|r| r.get("response"));
            for name in RESPONSE_FIELDS {
                let value = payload.and_then(|p| p.get(name));
                put(&format!("response.response.{name}"), value);
            }
            let decision =
                payload.and_then(|p| p.pointer("/hookSpecificOutput/permissionDecision"));
            put(
                "response.response.hookSpecificOutput.permissionDecision",
                decision,
            );
            if let Some(mcp) = payload.and_then(|p| p.get("mcp_response")) {
                let outcome = if mcp.get("error").is_some() {
                    "error"
                } else {
                    "result"
                };
                put(
                    "response.response.mcp_response (result or error)",
                    Some(&Value::from(outcome)),
                );
            }
        }
        _ => {}
    }
    fields
}

/// The text of a user message's content.
fn content_text(content: &Value) -> Value {
    match content {
        Value::String(text) => Value::String(text.clone()),
        Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            Value::String(texts.join("\n"))
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn frame(value: Value) -> Frame {
        Frame::parse(&value.to_string())
    }

    #[test]
    fn user_text_counts_ids_and_shapes_do_not() {
        let recorded = frame(json!({"type": "user", "session_id": "", "uuid": "a",
            "message": {"role": "user", "content": [{"type": "text", "text": "hello"}]},
            "parent_tool_use_id": null}));
        let same = frame(json!({"type": "user", "session_id": "s", "uuid": "b",
            "message": {"role": "user", "content": "hello"}}));
        assert!(matches(recorded.view(), same.view()));
        let other = frame(json!({"type": "user", "message": {"role": "user", "content": "bye"}}));
        let diffs = diff(recorded.view(), other.view());
        assert_eq!(diffs.len(), 1);
        assert_eq!(diffs[0].field, "message.content text");
        assert_eq!(diffs[0].received, "bye");
    }

    #[test]
    fn control_frames() {
        let req = |id: &str, model: &str| {
            frame(json!({"type": "control_request", "request_id": id,
                "request": {"subtype": "set_model", "model": model}}))
        };
        let (a, b, c) = (req("req_1", "haiku"), req("x", "haiku"), req("a", "opus"));
        assert!(matches(a.view(), b.view()));
        assert_eq!(diff(a.view(), c.view())[0].field, "request.model");

        let answer = |behavior: &str| {
            frame(
                json!({"type": "control_response", "response": {"subtype": "success",
                "request_id": "r", "response": {"behavior": behavior, "updatedInput": {}}}}),
            )
        };
        let (allow, deny) = (answer("allow"), answer("deny"));
        assert!(matches(allow.view(), allow.view()));
        assert_eq!(
            diff(allow.view(), deny.view())[0].field,
            "response.response.behavior"
        );
    }

    #[test]
    fn redacted_secrets_match_the_live_value() {
        let recorded =
            frame(json!({"type": "user", "message": {"content": "key <redacted 5 chars>"}}));
        let live = frame(json!({"type": "user", "message": {"content": "key abcde"}}));
        assert!(matches(recorded.view(), live.view()));
        let raw = Frame::parse("not json");
        assert!(matches(raw.view(), raw.view()));
        assert!(!matches(raw.view(), live.view()));
    }
}
