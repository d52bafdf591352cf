//! A session's summary without reading it whole: its size and time, and the first and last
//! 64 KiB, searched as text (a gigabyte transcript costs two small reads to list).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde_json::Value;

use super::config_dir::ConfigDir;
use super::SessionInfo;

/// How much of each end of a transcript is read.
pub(crate) const END_BYTES: u64 = 64 * 1024;

/// The ends of a transcript, and its stat.
pub(crate) struct Ends {
    pub(crate) head: String,
    pub(crate) tail: String,
    pub(crate) size: u64,
    /// Milliseconds since the epoch.
    pub(crate) modified: i64,
}

/// Reads the ends of the transcript at `path` (under the config directory); `None` when it
/// cannot be read (or is a link out of the config directory) or is empty.
pub(crate) fn read_ends(root: &ConfigDir, path: &Path) -> Option<Ends> {
    match root.open_read(path) {
        Ok(file) => ends_of(file),
        Err(err) => {
            if matches!(err, super::SessionError::Outside(_)) {
                tracing::warn!("{err}");
            }
            None
        }
    }
}

fn ends_of(mut file: std::fs::File) -> Option<Ends> {
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    let size = meta.len();
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        // Rounded, as JavaScript's `Math.round(stat.mtimeMs)`.
        .map(|d| ((d.as_nanos() + 500_000) / 1_000_000) as i64)
        .unwrap_or(0);
    let mut head = Vec::new();
    (&mut file).take(END_BYTES).read_to_end(&mut head).ok()?;
    if head.is_empty() {
        return None;
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let tail = if size <= END_BYTES {
        head.clone()
    } else {
        file.seek(SeekFrom::Start(size - END_BYTES)).ok()?;
        let mut tail = Vec::new();
        file.take(END_BYTES).read_to_end(&mut tail).ok()?;
        String::from_utf8_lossy(&tail).into_owned()
    };
    Some(Ends {
        head,
        tail,
        size,
        modified,
    })
}

/// The string value of the first `"key":"…"` in `text`, without parsing the JSON around it
/// (the ends of a file cut lines in two).
pub(crate) fn first_string_field(text: &str, key: &str) -> Option<String> {
    string_fields(text, key).next()
}

/// The string value of the last `"key":"…"` in `text`.
pub(crate) fn last_string_field(text: &str, key: &str) -> Option<String> {
    string_fields(text, key).last()
}

fn string_fields<'a>(text: &'a str, key: &str) -> impl Iterator<Item = String> + 'a {
    let patterns = [format!("\"{key}\":\""), format!("\"{key}\": \"")];
    let mut found: Vec<(usize, String)> = Vec::new();
    for pattern in patterns {
        let mut from = 0;
        while let Some(at) = text[from..].find(&pattern) {
            let start = from + at + pattern.len();
            let bytes = text.as_bytes();
            let mut i = start;
            let mut end = None;
            while i < bytes.len() {
                match bytes[i] {
                    b'\\' => i += 2,
                    b'"' => {
                        end = Some(i);
                        break;
                    }
                    _ => i += 1,
                }
            }
            match end {
                Some(end) => {
                    found.push((start, unescape(&text[start..end])));
                    from = end + 1;
                }
                None => break,
            }
        }
    }
    // The patterns are searched one after the other; positions give the file's order.
    found.sort_by_key(|(at, _)| *at);
    found.into_iter().map(|(_, value)| value)
}

fn unescape(raw: &str) -> String {
    if !raw.contains('\\') {
        return raw.to_owned();
    }
    serde_json::from_str::<String>(&format!("\"{raw}\"")).unwrap_or_else(|_| raw.to_owned())
}

/// Prompts that are not the user's own words: command output, hook and IDE context, an
/// interrupt notice.
fn is_generated_prompt(text: &str) -> bool {
    const PREFIXES: [&str; 4] = [
        "<local-command-stdout>",
        "<session-start-hook>",
        "<tick>",
        "<goal>",
    ];
    if PREFIXES.iter().any(|p| text.starts_with(p))
        || text.starts_with("[Request interrupted by user")
    {
        return true;
    }
    let trimmed = text.trim();
    ["ide_opened_file", "ide_selection"].iter().any(|tag| {
        trimmed.starts_with(&format!("<{tag}>")) && trimmed.ends_with(&format!("</{tag}>"))
    })
}

/// The first prompt the user wrote, from the head of a transcript: not a tool result, a meta
/// or compaction entry, a slash command (the first command's name is the fallback) or
/// generated text; newlines folded, cut at 200 characters.
pub(crate) fn first_prompt(head: &str) -> Option<String> {
    let mut command_fallback = None;
    for line in head.split('\n') {
        if !(line.contains("\"type\":\"user\"") || line.contains("\"type\": \"user\"")) {
            continue;
        }
        if line.contains("\"tool_result\"")
            || line.contains("\"isMeta\":true")
            || line.contains("\"isMeta\": true")
            || line.contains("\"isCompactSummary\":true")
            || line.contains("\"isCompactSummary\": true")
        {
            continue;
        }
        let Ok(entry) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let found = prompt_in_entry(&entry);
        if let Some(prompt) = found.prompt {
            return Some(prompt);
        }
        if command_fallback.is_none() {
            command_fallback = found.command;
        }
    }
    command_fallback
}

/// What one transcript entry offers as the session's first prompt.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct PromptFound {
    /// The user's own words (folded, cut), if the entry has them.
    pub(crate) prompt: Option<String>,
    /// The first slash command's name in it, before any prompt.
    pub(crate) command: Option<String>,
}

/// The first prompt of one entry, by the rules of [`first_prompt`]: nothing for an entry
/// that is not the user's, a meta or compaction entry, or one carrying tool results.
pub(crate) fn prompt_in_entry(entry: &Value) -> PromptFound {
    let mut found = PromptFound::default();
    if entry["type"] != "user"
        || entry["isMeta"] == Value::Bool(true)
        || entry["isCompactSummary"] == Value::Bool(true)
    {
        return found;
    }
    let texts: Vec<&str> = match &entry["message"]["content"] {
        Value::String(text) => vec![text.as_str()],
        Value::Array(blocks) => {
            if blocks.iter().any(|b| b["type"] == "tool_result") {
                return found;
            }
            blocks
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str())
                .collect()
        }
        _ => return found,
    };
    for raw in texts {
        let text = raw.replace('\n', " ");
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        if let Some(name) = command_name(text) {
            found.command.get_or_insert(name);
            continue;
        }
        if is_generated_prompt(text) {
            continue;
        }
        found.prompt = Some(cut(text));
        return found;
    }
    found
}

fn command_name(text: &str) -> Option<String> {
    let start = text.find("<command-name>")? + "<command-name>".len();
    let end = text[start..].find("</command-name>")?;
    Some(text[start..start + end].to_owned())
}

/// At most 200 characters (UTF-16 units, as JavaScript counts), marked with `…` when cut.
fn cut(text: &str) -> String {
    if text.encode_utf16().count() <= 200 {
        return text.to_owned();
    }
    let mut units = 0;
    let mut out = String::new();
    for c in text.chars() {
        units += c.len_utf16();
        if units > 200 {
            break;
        }
        out.push(c);
    }
    format!("{}…", out.trim_end())
}

/// Milliseconds since the epoch of an RFC 3339 time.
pub(crate) fn epoch_millis(text: &str) -> Option<i64> {
    let parsed =
        time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).ok()?;
    Some((parsed.unix_timestamp_nanos() / 1_000_000) as i64)
}

/// The session's title from the ends of its transcript: the last custom title (`/rename`),
/// else the last AI title.
pub(crate) fn title(head: &str, tail: &str) -> Option<String> {
    let nonempty = |v: Option<String>| v.filter(|s| !s.is_empty());
    nonempty(last_string_field(tail, "customTitle"))
        .or_else(|| nonempty(last_string_field(head, "customTitle")))
        .or_else(|| nonempty(last_string_field(tail, "aiTitle")))
        .or_else(|| nonempty(last_string_field(head, "aiTitle")))
}

/// The summary of a session from the ends of its transcript (`archived`: what its archive
/// mark says, if it has one); `None` for a subagent's transcript or one with nothing to show
/// (no title, summary or prompt).
pub(crate) fn session_info(
    session_id: &str,
    ends: &Ends,
    project_path: Option<&str>,
    archived: Option<bool>,
) -> Option<SessionInfo> {
    let (head, tail) = (&ends.head, &ends.tail);
    let first_line = head.split('\n').next().unwrap_or("");
    if first_line.contains("\"isSidechain\":true") || first_line.contains("\"isSidechain\": true") {
        return None;
    }
    let nonempty = |v: Option<String>| v.filter(|s| !s.is_empty());
    let custom_title = title(head, tail);
    let first_prompt = first_prompt(head);
    let summary = custom_title
        .clone()
        .or_else(|| nonempty(last_string_field(tail, "lastPrompt")))
        .or_else(|| nonempty(last_string_field(tail, "summary")))
        .or_else(|| first_prompt.clone())?;
    let git_branch = nonempty(last_string_field(tail, "gitBranch"))
        .or_else(|| nonempty(first_string_field(head, "gitBranch")));
    let cwd = nonempty(first_string_field(head, "cwd")).or_else(|| project_path.map(str::to_owned));
    // Only `{"type":"tag"` lines: a tool input can hold a `"tag"` too.
    let tag = tail
        .split('\n')
        .rev()
        .find(|line| line.starts_with("{\"type\":\"tag\""))
        .and_then(|line| last_string_field(line, "tag"))
        .filter(|tag| !tag.is_empty());
    let created_at = first_string_field(head, "timestamp").and_then(|t| epoch_millis(&t));
    Some(SessionInfo {
        session_id: session_id.to_owned(),
        summary,
        last_modified: ends.modified,
        file_size: Some(ends.size),
        custom_title,
        first_prompt,
        git_branch,
        cwd,
        tag,
        created_at,
        archived,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_found_as_text() {
        let text = r#"{"a":"x","customTitle":"one"}
{"customTitle": "two \"quoted\""}
{"customTitle":"three"#;
        assert_eq!(
            first_string_field(text, "customTitle").as_deref(),
            Some("one")
        );
        assert_eq!(
            last_string_field(text, "customTitle").as_deref(),
            Some("two \"quoted\"")
        );
        assert_eq!(last_string_field(text, "missing"), None);
    }

    #[test]
    fn the_first_prompt_is_the_users_own() {
        let head = [
            r#"{"type":"user","isMeta":true,"message":{"content":"meta"}}"#,
            r#"{"type":"user","message":{"content":"<command-name>/init</command-name>"}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","content":"x"}]}}"#,
            r#"{"type":"user","message":{"content":"<local-command-stdout>out</local-command-stdout>"}}"#,
            r#"{"type":"user","message":{"content":[{"type":"text","text":"  Fix\nthe bug  "}]}}"#,
        ]
        .join("\n");
        assert_eq!(first_prompt(&head).as_deref(), Some("Fix the bug"));
        let only_command =
            r#"{"type":"user","message":{"content":"<command-name>/init</command-name>"}}"#;
        assert_eq!(first_prompt(only_command).as_deref(), Some("/init"));
        let long = format!(
            r#"{{"type":"user","message":{{"content":"{}"}}}}"#,
            "é".repeat(300)
        );
        let cut = first_prompt(&long).unwrap_or_default();
        assert_eq!(cut.chars().count(), 201);
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn times() {
        assert_eq!(epoch_millis("1970-01-01T00:00:01.500Z"), Some(1500));
        assert_eq!(
            epoch_millis("2026-11-25T19:46:19.177Z"),
            Some(1_795_635_979_177)
        );
        assert_eq!(epoch_millis("yesterday"), None);
    }
}
