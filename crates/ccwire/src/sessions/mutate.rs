//! Changing sessions the way the CLI and the official SDKs do: metadata entries appended to
//! the transcript (one `write` with `O_APPEND`, so a CLI writing the same session at the same
//! time cannot interleave inside a line), a fork written to a new file created exclusively,
//! a delete that removes the transcript and its side directory.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use serde_json::{json, Map, Value};
use unicode_normalization::UnicodeNormalization;

use super::lite::{first_prompt, last_string_field, END_BYTES};
use super::SessionError;

/// Appends `entry` as one line to the transcript at `path`.
pub(crate) fn append(path: &Path, entry: &Value) -> Result<(), SessionError> {
    let mut line =
        serde_json::to_string(entry).map_err(|e| SessionError::Io(std::io::Error::other(e)))?;
    line.push('\n');
    let mut file = std::fs::OpenOptions::new().append(true).open(path)?;
    file.write_all(line.as_bytes())?;
    Ok(())
}

/// A tag made safe to show: NFKC, then format, private-use and direction-control characters
/// taken out, until nothing changes; trimmed.
pub(crate) fn clean_tag(tag: &str) -> String {
    let mut current = tag.to_owned();
    for _ in 0..10 {
        let next: String = current.nfkc().filter(|c| !is_invisible(*c)).collect();
        if next == current {
            break;
        }
        current = next;
    }
    current.trim().to_owned()
}

/// Format (Cf) and private-use (Co) characters: zero-width and direction controls, the BOM,
/// tag characters, soft hyphens.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{ad}' | '\u{600}'..='\u{605}' | '\u{61c}' | '\u{6dd}' | '\u{70f}' | '\u{180e}'
        | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}' | '\u{110bd}'
        | '\u{1bca0}'..='\u{1bca3}' | '\u{1d173}'..='\u{1d17a}' | '\u{e0001}' | '\u{e0020}'..='\u{e007f}'
        | '\u{e000}'..='\u{f8ff}' | '\u{f0000}'..='\u{ffffd}' | '\u{100000}'..='\u{10fffd}')
}

/// The title of a session for its fork: its custom or AI title, else its first prompt.
fn derived_title(content: &str) -> Option<String> {
    let head = head_of(content);
    let tail = tail_of(content);
    let nonempty = |v: Option<String>| v.filter(|s| !s.is_empty());
    nonempty(last_string_field(tail, "customTitle"))
        .or_else(|| nonempty(last_string_field(head, "customTitle")))
        .or_else(|| nonempty(last_string_field(tail, "aiTitle")))
        .or_else(|| nonempty(last_string_field(head, "aiTitle")))
        .or_else(|| first_prompt(head))
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
pub(crate) fn fork_lines(
    content: &str,
    session_id: &str,
    up_to: Option<&str>,
    title: Option<&str>,
) -> Result<(String, Vec<String>), SessionError> {
    let mut transcript: Vec<Map<String, Value>> = Vec::new();
    let mut replacements: Vec<Value> = Vec::new();
    for line in content.split('\n').filter(|l| !l.trim().is_empty()) {
        let Ok(Value::Object(entry)) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let kind = entry
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if ["user", "assistant", "attachment", "system", "progress"].contains(&kind)
            && entry.get("uuid").is_some_and(Value::is_string)
        {
            transcript.push(entry);
        } else if kind == "content-replacement"
            && entry.get("sessionId").and_then(Value::as_str) == Some(session_id)
        {
            if let Some(Value::Array(list)) = entry.get("replacements") {
                replacements.extend(list.iter().cloned());
            }
        }
    }
    transcript.retain(|e| e.get("isSidechain").and_then(Value::as_bool) != Some(true));
    let no_messages =
        || SessionError::Invalid(format!("session {session_id} has no messages to fork"));
    if transcript.is_empty() {
        return Err(no_messages());
    }
    if let Some(up_to) = up_to {
        let cut = transcript
            .iter()
            .position(|e| e.get("uuid").and_then(Value::as_str) == Some(up_to))
            .ok_or_else(|| {
                SessionError::Invalid(format!("message {up_to} not found in session {session_id}"))
            })?;
        transcript.truncate(cut + 1);
    }
    let uuid_of = |e: &Map<String, Value>| {
        e.get("uuid")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let new_ids: HashMap<String, String> = transcript
        .iter()
        .map(|e| (uuid_of(e), new_uuid()))
        .collect();
    let by_uuid: HashMap<String, &Map<String, Value>> =
        transcript.iter().map(|e| (uuid_of(e), e)).collect();
    let writable: Vec<&Map<String, Value>> = transcript
        .iter()
        .filter(|e| e.get("type").and_then(Value::as_str) != Some("progress"))
        .collect();
    if writable.is_empty() {
        return Err(no_messages());
    }
    let fork_id = new_uuid();
    let now = super::now_rfc3339();
    let mut lines = Vec::with_capacity(writable.len() + 2);
    for (i, original) in writable.iter().enumerate() {
        let original_uuid = uuid_of(original);
        // The nearest ancestor that is not a progress entry.
        let mut new_parent = Value::Null;
        let mut parent_id = original
            .get("parentUuid")
            .and_then(Value::as_str)
            .map(str::to_owned);
        while let Some(id) = parent_id {
            let Some(parent) = by_uuid.get(&id) else {
                break;
            };
            if parent.get("type").and_then(Value::as_str) != Some("progress") {
                new_parent = new_ids.get(&id).cloned().map_or(Value::Null, Value::String);
                break;
            }
            parent_id = parent
                .get("parentUuid")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        let mut forked = (*original).clone();
        let timestamp = if i + 1 == writable.len() {
            Value::String(now.clone())
        } else {
            original
                .get("timestamp")
                .cloned()
                .unwrap_or_else(|| Value::String(now.clone()))
        };
        let logical = match original.get("logicalParentUuid") {
            Some(Value::String(id)) => new_ids.get(id).cloned().map_or(Value::Null, Value::String),
            other => other.cloned().unwrap_or(Value::Null),
        };
        forked.insert(
            "uuid".into(),
            Value::String(new_ids[&original_uuid].clone()),
        );
        forked.insert("parentUuid".into(), new_parent);
        forked.insert("logicalParentUuid".into(), logical);
        forked.insert("sessionId".into(), Value::String(fork_id.clone()));
        forked.insert("timestamp".into(), timestamp);
        forked.insert("isSidechain".into(), Value::Bool(false));
        forked.insert(
            "forkedFrom".into(),
            json!({"sessionId": session_id, "messageUuid": original_uuid}),
        );
        for key in ["teamName", "agentName", "slug", "sourceToolAssistantUUID"] {
            forked.remove(key);
        }
        lines.push(Value::Object(forked).to_string());
    }
    if !replacements.is_empty() {
        lines.push(
            json!({"type": "content-replacement", "sessionId": fork_id, "replacements": replacements,
                   "uuid": new_uuid(), "timestamp": now})
            .to_string(),
        );
    }
    let title = match title.map(str::trim).filter(|t| !t.is_empty()) {
        Some(title) => title.to_owned(),
        None => format!(
            "{} (fork)",
            derived_title(content).unwrap_or_else(|| "Forked session".to_owned())
        ),
    };
    lines.push(
        json!({"type": "custom-title", "sessionId": fork_id, "customTitle": title,
               "uuid": new_uuid(), "timestamp": now})
        .to_string(),
    );
    Ok((fork_id, lines))
}

/// Writes a new file that must not exist yet, `0600`.
pub(crate) fn create_new(path: &Path, text: &str) -> Result<(), SessionError> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    Ok(())
}

/// A random (v4) UUID.
pub(crate) fn new_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_lose_what_cannot_be_seen() {
        assert_eq!(clean_tag("  важно  "), "важно");
        assert_eq!(clean_tag("a\u{200b}b\u{202e}c\u{feff}"), "abc");
        assert_eq!(clean_tag("ｆｕｌｌ"), "full");
        assert_eq!(clean_tag("\u{200b} "), "");
    }
}
