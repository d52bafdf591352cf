//! A fork as the sessions module wrote it before its index (the whole file in memory): the
//! oracle for forks of small transcripts without loops.
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;

use indexmap::IndexMap;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use crate::sessions::lite::{first_prompt, title, END_BYTES};
use crate::sessions::SessionError;

fn new_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

fn null_raw() -> Box<RawValue> {
    RawValue::from_string("null".to_owned()).unwrap_or_default()
}

/// The title of a session for its fork: its custom or AI title, else its first prompt.
fn derived_title(content: &str) -> Option<String> {
    let head = head_of(content);
    title(head, tail_of(content)).or_else(|| first_prompt(head))
}

fn head_of(content: &str) -> &str {
    let mut end = (END_BYTES as usize).min(content.len());
    while !content.is_char_boundary(end) {
        end -= 1;
    }
    &content[..end]
}

fn tail_of(content: &str) -> &str {
    let mut start = content.len().saturating_sub(END_BYTES as usize);
    while !content.is_char_boundary(start) {
        start += 1;
    }
    &content[start..]
}

/// The lines of a fork of the session `session_id` (its transcript `content`) up to and
/// including the entry `up_to` (all when `None`), and the fork's id. Every uuid is new,
/// `parentUuid` links skip progress entries (which are left out), the last entry gets the
/// current time, each entry names where it came from (`forkedFrom`), and a `custom-title`
/// ends the file (`title`, else the source's title and ` (fork)`).
pub(super) fn fork_lines(
    content: &str,
    session_id: &str,
    up_to: Option<&str>,
    title: Option<&str>,
) -> Result<(String, Vec<String>), SessionError> {
    // Each entry with its top-level keys in the order written and their values untouched: a
    // fork changes a few fields and must keep the rest byte for byte.
    type Raw = IndexMap<String, Box<RawValue>>;
    let field = |e: &Raw, key: &str| {
        e.get(key)
            .and_then(|v| serde_json::from_str::<Value>(v.get()).ok())
    };
    let text = |e: &Raw, key: &str| field(e, key).and_then(|v| v.as_str().map(str::to_owned));
    let mut transcript: Vec<Raw> = Vec::new();
    let mut replacements: Vec<Value> = Vec::new();
    // The session's latest `atis-latch` and `tools-used` entries, carried into the fork.
    let mut atis_latch: Option<String> = None;
    let mut tools_used: Option<Vec<Value>> = None;
    for line in content.split('\n').filter(|l| !l.trim().is_empty()) {
        let Ok(entry) = serde_json::from_str::<Raw>(line) else {
            continue;
        };
        let kind = text(&entry, "type").unwrap_or_default();
        if ["user", "assistant", "attachment", "system", "progress"].contains(&kind.as_str())
            && text(&entry, "uuid").is_some()
        {
            transcript.push(entry);
        } else if text(&entry, "sessionId").as_deref() != Some(session_id) {
            continue;
        } else if kind == "content-replacement" {
            if let Some(Value::Array(list)) = field(&entry, "replacements") {
                replacements.extend(list);
            }
        } else if kind == "atis-latch" {
            let printable = |a: &String| a.bytes().all(|b| (0x21..=0x7e).contains(&b));
            if let Some(atis) = text(&entry, "atis").filter(printable) {
                atis_latch = Some(atis);
            }
        } else if kind == "tools-used" {
            if let Some(Value::Array(tools)) = field(&entry, "tools") {
                let named = |t: &Value| t.as_str().is_some_and(|t| !t.is_empty());
                tools_used = Some(tools.into_iter().filter(named).collect());
            }
        }
    }
    transcript.retain(|e| field(e, "isSidechain").and_then(|v| v.as_bool()) != Some(true));
    let no_messages =
        || SessionError::Invalid(format!("session {session_id} has no messages to fork"));
    if transcript.is_empty() {
        return Err(no_messages());
    }
    if let Some(up_to) = up_to {
        let cut = transcript
            .iter()
            .position(|e| text(e, "uuid").as_deref() == Some(up_to))
            .ok_or_else(|| {
                SessionError::Invalid(format!("message {up_to} not found in session {session_id}"))
            })?;
        transcript.truncate(cut + 1);
    }
    let uuid_of = |e: &Raw| text(e, "uuid").unwrap_or_default();
    let new_ids: HashMap<String, String> = transcript
        .iter()
        .map(|e| (uuid_of(e), new_uuid()))
        .collect();
    let by_uuid: HashMap<String, &Raw> = transcript.iter().map(|e| (uuid_of(e), e)).collect();
    let is_progress = |e: &Raw| text(e, "type").as_deref() == Some("progress");
    let writable: Vec<&Raw> = transcript.iter().filter(|e| !is_progress(e)).collect();
    if writable.is_empty() {
        return Err(no_messages());
    }
    let fork_id = new_uuid();
    let now = crate::sessions::now_rfc3339();
    let raw =
        |value: Value| RawValue::from_string(value.to_string()).unwrap_or_else(|_| null_raw());
    let mut lines = Vec::with_capacity(writable.len() + 2);
    for (i, original) in writable.iter().enumerate() {
        let original_uuid = uuid_of(original);
        // The nearest ancestor that is not a progress entry.
        let mut new_parent = Value::Null;
        let mut parent_id = text(original, "parentUuid");
        while let Some(id) = parent_id {
            let Some(parent) = by_uuid.get(&id) else {
                break;
            };
            if !is_progress(parent) {
                new_parent = new_ids.get(&id).cloned().map_or(Value::Null, Value::String);
                break;
            }
            parent_id = text(parent, "parentUuid");
        }
        let timestamp = if i + 1 == writable.len() {
            Value::String(now.clone())
        } else {
            field(original, "timestamp").unwrap_or_else(|| Value::String(now.clone()))
        };
        let mut forked = (*original).clone();
        let kind = text(original, "type").unwrap_or_default();
        if kind == "system"
            && text(original, "subtype").as_deref() == Some("model_refusal_fallback")
        {
            forked.insert("neutralizedByFork".into(), raw(Value::Bool(true)));
        }
        // As `{...original, uuid, parentUuid, …}`: keys already there keep their place.
        forked.insert(
            "uuid".into(),
            raw(Value::String(new_ids[&original_uuid].clone())),
        );
        forked.insert("parentUuid".into(), raw(new_parent));
        match field(original, "logicalParentUuid") {
            Some(Value::String(id)) => {
                let mapped = new_ids.get(&id).cloned().map_or(Value::Null, Value::String);
                forked.insert("logicalParentUuid".into(), raw(mapped));
            }
            Some(other) => {
                forked.insert("logicalParentUuid".into(), raw(other));
            }
            None => {}
        }
        forked.insert("sessionId".into(), raw(Value::String(fork_id.clone())));
        forked.insert("timestamp".into(), raw(timestamp));
        forked.insert("isSidechain".into(), raw(Value::Bool(false)));
        if kind == "assistant" {
            // The session the API request was made in: kept through forks of forks.
            let from = field(original, "forkedFrom").and_then(|f| {
                f.get("sessionId")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            });
            let request = text(original, "requestSessionId")
                .or(from)
                .or_else(|| text(original, "sessionId"));
            if let Some(request) = request {
                forked.insert("requestSessionId".into(), raw(Value::String(request)));
            }
        }
        forked.insert(
            "forkedFrom".into(),
            raw(json!({"sessionId": session_id, "messageUuid": original_uuid})),
        );
        for key in ["teamName", "agentName", "slug", "sourceToolAssistantUUID"] {
            forked.shift_remove(key);
        }
        lines.push(
            serde_json::to_string(&forked)
                .map_err(|e| SessionError::Io(std::io::Error::other(e)))?,
        );
    }
    if !replacements.is_empty() {
        lines.push(format!(
            "{{\"type\":\"content-replacement\",\"sessionId\":{},\"replacements\":{},\"uuid\":\"{}\",\"timestamp\":\"{now}\"}}",
            Value::String(fork_id.clone()),
            Value::Array(replacements),
            new_uuid()
        ));
    }
    if let Some(atis) = atis_latch {
        lines.push(format!(
            "{{\"type\":\"atis-latch\",\"sessionId\":\"{fork_id}\",\"atis\":{}}}",
            Value::String(atis)
        ));
    }
    if let Some(tools) = tools_used {
        lines.push(format!(
            "{{\"type\":\"tools-used\",\"sessionId\":\"{fork_id}\",\"tools\":{}}}",
            Value::Array(tools)
        ));
    }
    let title = match title.map(str::trim).filter(|t| !t.is_empty()) {
        Some(title) => title.to_owned(),
        None => format!(
            "{} (fork)",
            derived_title(content).unwrap_or_else(|| "Forked session".to_owned())
        ),
    };
    lines.push(format!(
        "{{\"type\":\"custom-title\",\"sessionId\":\"{fork_id}\",\"customTitle\":{},\"uuid\":\"{}\",\"timestamp\":\"{now}\"}}",
        Value::String(title),
        new_uuid()
    ));
    Ok((fork_id, lines))
}
