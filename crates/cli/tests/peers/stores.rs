//! Transcript stores beside the Python SDK: a session summary folded by twinwire
//! (`fold_session_summary`) has the same `data` as the Python SDK's fold of the same batches,
//! so a summary one of them persisted reads in the other, and the two make the same
//! `SessionInfo` of it.

use std::io::Write as _;
use std::process::Stdio;

use serde_json::{json, Value};
use twinwire::sessions::stores::{fold_session_summary, summary_to_info, SessionKey};

/// Folds `batches` with the Python SDK: the `data` after each batch, and the `SDKSessionInfo`
/// of the last (as JSON, `None` as null).
const PYTHON_FOLD: &str = r#"
import json, sys
from dataclasses import asdict
from claude_agent_sdk._internal.session_summary import fold_session_summary, summary_entry_to_sdk_info
batches = json.load(sys.stdin)
key = {"project_key": "proj", "session_id": "s-1"}
summary, datas = None, []
for batch in batches:
    summary = fold_session_summary(summary, key, batch)
    summary["mtime"] = 1767225600000
    datas.append(summary["data"])
info = summary_entry_to_sdk_info(summary, "/work")
print(json.dumps({"datas": datas, "info": None if info is None else asdict(info)}))
"#;

fn python_fold(batches: &Value) -> Value {
    let mut child = std::process::Command::new(crate::installed("TWINWIRE_PEERS_PYTHON"))
        .args(["-c", PYTHON_FOLD])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(batches.to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn user(content: Value, extra: Value) -> Value {
    let mut entry = json!({"type": "user", "message": {"role": "user", "content": content}});
    if let (Some(entry), Value::Object(extra)) = (entry.as_object_mut(), extra) {
        entry.extend(extra);
    }
    entry
}

#[test]
fn python_sdk_fold_matches_twinwire_fold_batch_by_batch() {
    let long = "é".repeat(250);
    let batches = json!([
        [
            user(json!("meta words"), json!({"isMeta": true, "timestamp": "2026-01-01T00:00:00.500Z", "cwd": "/work", "isSidechain": false})),
            user(json!("<command-name>/init</command-name>"), json!({})),
            user(json!([{"type": "tool_result", "tool_use_id": "t", "content": "x"}]), json!({})),
            user(json!("<local-command-stdout>out</local-command-stdout>"), json!({})),
            {"type": "summary", "summary": "An earlier summary"}
        ],
        [
            user(json!([{"type": "text", "text": format!("  Fix\nthe {long}  ")}]), json!({"gitBranch": "main"})),
            {"type": "ai-title", "aiTitle": "Generated title"},
            {"type": "tag", "tag": "review"},
            {"type": "last-prompt", "lastPrompt": "the last thing asked"}
        ],
        [
            {"type": "custom-title", "customTitle": "Named by hand"},
            {"type": "tag", "tag": ""},
            user(json!("a later prompt"), json!({"gitBranch": "feature", "timestamp": "2026-01-02T00:00:00.000Z"}))
        ]
    ]);
    let python = python_fold(&batches);
    let key = SessionKey::main("proj", "s-1");
    let mut summary = None;
    for (n, batch) in batches.as_array().unwrap().iter().enumerate() {
        let mut folded = fold_session_summary(summary.as_ref(), &key, batch.as_array().unwrap());
        folded.mtime = 1_767_225_600_000;
        assert_eq!(
            Value::Object(folded.data.clone()),
            python["datas"][n],
            "the data after batch {n}"
        );
        summary = Some(folded);
    }
    let ours = summary_to_info(summary.as_ref().unwrap(), Some("/work")).unwrap();
    let theirs = &python["info"];
    assert_eq!(ours.summary, theirs["summary"]);
    assert_eq!(
        ours.custom_title.as_deref(),
        theirs["custom_title"].as_str()
    );
    assert_eq!(
        ours.first_prompt.as_deref(),
        theirs["first_prompt"].as_str()
    );
    assert_eq!(ours.git_branch.as_deref(), theirs["git_branch"].as_str());
    assert_eq!(ours.cwd.as_deref(), theirs["cwd"].as_str());
    assert_eq!(ours.tag.as_deref(), theirs["tag"].as_str());
    assert_eq!(ours.created_at, theirs["created_at"].as_i64());
    assert_eq!(
        ours.last_modified,
        theirs["last_modified"].as_i64().unwrap()
    );
}
