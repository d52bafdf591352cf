//! A session's summary folded as its entries arrive (the SDKs' `fold_session_summary`), so a
//! store can list sessions without reading them again. Every field is set once or last-wins,
//! so a batch never needs the entries before it. The `data` keys are the official SDKs'
//! (`first_prompt`, `custom_title`, …): a summary written by one reads in the other.

use serde_json::{Map, Value};

use super::super::lite::{epoch_millis, prompt_in_entry};
use super::super::SessionInfo;
use super::{SessionKey, SessionSummary};

/// Entry fields whose last value wins, and their names in the summary.
const LAST_WINS: [(&str, &str); 5] = [
    ("customTitle", "custom_title"),
    ("aiTitle", "ai_title"),
    ("lastPrompt", "last_prompt"),
    ("summary", "summary_hint"),
    ("gitBranch", "git_branch"),
];

/// Folds a batch of entries appended to `key` (a main transcript: do not fold a subagent's)
/// into the summary before it (`prev`, `None` for the first batch). The `mtime` is kept from
/// `prev` (0 for a new one): the store stamps it with its own write time.
pub fn fold_session_summary(
    prev: Option<&SessionSummary>,
    key: &SessionKey,
    entries: &[Value],
) -> SessionSummary {
    let mut summary = match prev {
        Some(prev) => prev.clone(),
        None => SessionSummary {
            session_id: key.session_id.clone(),
            mtime: 0,
            data: Map::new(),
        },
    };
    let data = &mut summary.data;
    for entry in entries {
        if !data.contains_key("is_sidechain") {
            let sidechain = entry["isSidechain"] == Value::Bool(true);
            data.insert("is_sidechain".into(), sidechain.into());
        }
        if !data.contains_key("created_at") {
            if let Some(ms) = entry["timestamp"].as_str().and_then(epoch_millis) {
                data.insert("created_at".into(), ms.into());
            }
        }
        if !data.contains_key("cwd") {
            if let Some(cwd) = entry["cwd"].as_str().filter(|c| !c.is_empty()) {
                data.insert("cwd".into(), cwd.into());
            }
        }
        fold_first_prompt(data, entry);
        for (from, to) in LAST_WINS {
            if let Some(value) = entry[from].as_str() {
                data.insert(to.into(), value.into());
            }
        }
        if entry["type"] == "tag" {
            match entry["tag"].as_str().filter(|t| !t.is_empty()) {
                Some(tag) => {
                    data.insert("tag".into(), tag.into());
                }
                // An empty tag clears it.
                None => {
                    data.remove("tag");
                }
            }
        }
    }
    summary
}

fn fold_first_prompt(data: &mut Map<String, Value>, entry: &Value) {
    if data.get("first_prompt_locked") == Some(&Value::Bool(true)) {
        return;
    }
    let found = prompt_in_entry(entry);
    if let Some(prompt) = found.prompt {
        data.insert("first_prompt".into(), prompt.into());
        data.insert("first_prompt_locked".into(), true.into());
    } else if let Some(command) = found.command {
        if !data.contains_key("command_fallback") {
            data.insert("command_fallback".into(), command.into());
        }
    }
}

/// The session's [`SessionInfo`] from its summary (`project_path`: the project's directory,
/// for a session whose entries name no `cwd`); `None` for a subagent's session or one with
/// nothing to show, as a listing of files leaves them out.
pub fn summary_to_info(
    summary: &SessionSummary,
    project_path: Option<&str>,
) -> Option<SessionInfo> {
    let data = &summary.data;
    if data.get("is_sidechain") == Some(&Value::Bool(true)) {
        return None;
    }
    let text = |key: &str| {
        data.get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let first_prompt = if data.get("first_prompt_locked") == Some(&Value::Bool(true)) {
        text("first_prompt")
    } else {
        text("command_fallback")
    };
    let custom_title = text("custom_title").or_else(|| text("ai_title"));
    let summary_text = custom_title
        .clone()
        .or_else(|| text("last_prompt"))
        .or_else(|| text("summary_hint"))
        .or_else(|| first_prompt.clone())?;
    Some(SessionInfo {
        session_id: summary.session_id.clone(),
        summary: summary_text,
        last_modified: summary.mtime,
        // A byte count means something only for a file.
        file_size: None,
        custom_title,
        first_prompt,
        git_branch: text("git_branch"),
        cwd: text("cwd").or_else(|| project_path.map(str::to_owned)),
        tag: text("tag"),
        created_at: data.get("created_at").and_then(Value::as_i64),
        archived: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_summary_folds_batch_by_batch_as_the_listing_reads_the_file() {
        let key = SessionKey::main("p", "s");
        let first = fold_session_summary(
            None,
            &key,
            &[
                json!({"type": "user", "isMeta": true, "message": {"content": "meta"}}),
                json!({"type": "user", "message": {"content": "<command-name>/init</command-name>"},
                       "timestamp": "1970-01-01T00:00:01.500Z", "cwd": "/w"}),
            ],
        );
        let info = summary_to_info(&first, None).unwrap();
        assert_eq!(info.first_prompt.as_deref(), Some("/init"));
        assert_eq!(info.created_at, Some(1500));
        let second = fold_session_summary(
            Some(&first),
            &key,
            &[
                json!({"type": "user", "message": {"content": [{"type": "text", "text": "Fix\nit"}]}}),
                json!({"type": "custom-title", "customTitle": "Named"}),
                json!({"type": "tag", "tag": "t1"}),
                json!({"type": "user", "message": {"content": "later"}, "gitBranch": "main"}),
            ],
        );
        let info = summary_to_info(&second, Some("/elsewhere")).unwrap();
        assert_eq!(info.first_prompt.as_deref(), Some("Fix it"));
        assert_eq!(info.summary, "Named");
        assert_eq!(info.tag.as_deref(), Some("t1"));
        assert_eq!(info.git_branch.as_deref(), Some("main"));
        assert_eq!(info.cwd.as_deref(), Some("/w"));
        let cleared =
            fold_session_summary(Some(&second), &key, &[json!({"type": "tag", "tag": ""})]);
        assert_eq!(summary_to_info(&cleared, None).unwrap().tag, None);
        let sidechain = fold_session_summary(
            None,
            &key,
            &[json!({"type": "user", "isSidechain": true, "message": {"content": "x"}})],
        );
        assert_eq!(summary_to_info(&sidechain, None), None);
    }
}
