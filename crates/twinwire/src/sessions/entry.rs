//! One entry of a transcript as the official SDKs present it: whether the conversation
//! shows it, and the fields they add to its message.

use serde_json::Value;

/// One parsed entry.
pub(crate) type Entry = serde_json::Map<String, Value>;

pub(crate) fn str_field<'a>(entry: &'a Entry, key: &str) -> Option<&'a str> {
    entry.get(key).and_then(Value::as_str)
}

pub(crate) fn kind(entry: &Entry) -> &str {
    str_field(entry, "type").unwrap_or_default()
}

fn flag(entry: &Entry, key: &str) -> bool {
    entry.get(key).is_some_and(|v| v.as_bool() == Some(true))
}

/// Whether the main conversation shows an entry: user and assistant entries (and system ones
/// when asked) that are not sidechain or team entries, not meta entries (unless a channel,
/// observer or peer sent them), and not an empty reply that only closes a quiet turn.
/// Compaction summaries are shown: they are all that is left of what they summarize.
pub(crate) fn is_visible(entry: &Entry, with_system: bool) -> bool {
    let shown_kind =
        matches!(kind(entry), "user" | "assistant") || (with_system && kind(entry) == "system");
    shown_kind
        && !closes_quiet_turn(entry)
        && (!flag(entry, "isMeta") || from_outside(entry.get("origin")))
        && !flag(entry, "isSidechain")
        && entry
            .get("teamName")
            .is_none_or(|t| t.is_null() || t.as_str() == Some(""))
}

/// An assistant entry that only closes a quiet turn: no text, or "No response requested.".
fn closes_quiet_turn(entry: &Entry) -> bool {
    if kind(entry) != "assistant" || !flag(entry, "closesQuietTurn") {
        return false;
    }
    let text = match entry.get("message").and_then(|m| m.get("content")) {
        Some(Value::String(text)) => Some(text.as_str()),
        Some(Value::Array(blocks)) if blocks.len() == 1 && blocks[0]["type"] == "text" => {
            blocks[0]["text"].as_str()
        }
        _ => None,
    };
    matches!(text, Some("" | "No response requested."))
}

/// Prompts that came from a channel, an observer, Slack, a voice call or a peer session.
fn from_outside(origin: Option<&Value>) -> bool {
    let kind = origin.and_then(|o| o.get("kind")).and_then(Value::as_str);
    matches!(
        kind,
        Some("channel" | "observer" | "observer-activity" | "slack-ping" | "voice-call" | "peer")
    )
}

/// The fields the TypeScript SDK adds to a message (see `SessionMessage::extra`).
pub(crate) fn message_extras(entry: &Entry) -> serde_json::Map<String, Value> {
    let mut extra = serde_json::Map::new();
    for key in [
        "interruptedByShutdown",
        "isCompactSummary",
        "isQueuedCommand",
        "isCompletedLocalCommand",
    ] {
        if flag(entry, key) {
            extra.insert(key.to_owned(), Value::Bool(true));
        }
    }
    if str_field(entry, "toolDenialUnanswered") == Some("stream-closed") {
        extra.insert("toolDenialUnanswered".into(), "stream-closed".into());
    }
    const DENIAL_KINDS: [&str; 7] = [
        "user-rejected",
        "permission-rule",
        "automode-blocked",
        "automode-unavailable",
        "automode-parsing-error",
        "interrupted",
        "cancelled",
    ];
    if let Some(denial) = str_field(entry, "toolDenialKind").filter(|k| DENIAL_KINDS.contains(k)) {
        let results = block_ids(entry, "tool_result", "tool_use_id");
        let blocks = entry
            .get("message")
            .and_then(|m| m.get("content"))
            .and_then(Value::as_array);
        let result_blocks = blocks.map_or(0, |b| {
            b.iter().filter(|b| b["type"] == "tool_result").count()
        });
        if result_blocks == 1 && results.len() == 1 {
            extra.insert(
                "tool_result_meta".into(),
                serde_json::json!([{"id": results[0], "non_execution_kind": denial}]),
            );
        }
    }
    if flag(entry, "isMeta")
        || flag(entry, "isCompactSummary")
        || flag(entry, "isVisibleInTranscriptOnly")
    {
        extra.insert("is_meta".into(), Value::Bool(true));
    }
    if let Some(origin) = entry.get("origin").filter(|o| !o.is_null()) {
        extra.insert("origin".into(), normalized_origin(origin));
    }
    extra
}

/// A task notification's origin with only the fields the SDK passes on (and a run id only
/// when it looks like one).
fn normalized_origin(origin: &Value) -> Value {
    if origin.get("kind").and_then(Value::as_str) != Some("task-notification") {
        return origin.clone();
    }
    let mut out = serde_json::Map::new();
    out.insert("kind".into(), "task-notification".into());
    for key in ["subkind", "fireReason", "producer"] {
        if let Some(value) = origin.get(key) {
            out.insert(key.into(), value.clone());
        }
    }
    if let Some(run) = origin.get("runId").and_then(Value::as_str) {
        let plain = !run.is_empty()
            && run.len() <= 128
            && run
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'));
        if plain {
            out.insert("runId".into(), run.into());
        }
    }
    if origin.get("taskKind").and_then(Value::as_str) == Some("mcp-task") {
        out.insert("taskKind".into(), "mcp-task".into());
    }
    Value::Object(out)
}

/// The `field` of every `block_type` block of an entry's message.
fn block_ids<'a>(entry: &'a Entry, block_type: &str, field: &str) -> Vec<&'a str> {
    let Some(Value::Array(blocks)) = entry.get("message").and_then(|m| m.get("content")) else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some(block_type))
        .filter_map(|b| b.get(field).and_then(Value::as_str))
        .collect()
}
