#![allow(clippy::unwrap_used)]

mod differential;
mod oracle;
mod oracle_fork;
mod scale;
mod via_store;

use std::path::Path;

use serde_json::{json, Value};

use super::*;

const ID: &str = "11111111-2222-4333-8444-555555555555";

/// A store with one project (`/work`) holding `entries` as session `ID`.
fn store_with(entries: &[Value]) -> (tempfile::TempDir, SavedSessions, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("projects").join(sanitize_path("/work"));
    std::fs::create_dir_all(&project).unwrap();
    let text: String = entries.iter().map(|e| format!("{e}\n")).collect();
    let path = project.join(format!("{ID}.jsonl"));
    std::fs::write(&path, text).unwrap();
    let store = SavedSessions::at(dir.path());
    (dir, store, path)
}

fn user(uuid: &str, parent: Option<&str>, content: Value) -> Value {
    json!({"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": ID, "cwd": "/work",
           "timestamp": "2026-01-01T00:00:00.000Z", "message": {"role": "user", "content": content}})
}

fn assistant(uuid: &str, parent: &str, id: &str, block: Value) -> Value {
    json!({"type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": ID,
           "timestamp": "2026-01-01T00:00:01.000Z",
           "message": {"id": id, "role": "assistant", "content": [block]}})
}

fn result(uuid: &str, parent: &str, call: &str) -> Value {
    user(
        uuid,
        Some(parent),
        json!([{"type": "tool_result", "tool_use_id": call, "content": "ok"}]),
    )
}

#[test]
fn parallel_tool_calls_come_back_whole() {
    // One response with two calls, written as two assistant entries; each result hangs off
    // its own call, and the next turn continues from the second: the first result is off the
    // chain.
    let (_dir, store, _) = store_with(&[
        user("u1", None, json!("run both")),
        assistant(
            "a1",
            "u1",
            "m1",
            json!({"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}),
        ),
        assistant(
            "a2",
            "a1",
            "m1",
            json!({"type": "tool_use", "id": "t2", "name": "Bash", "input": {}}),
        ),
        result("r1", "a1", "t1"),
        result("r2", "a2", "t2"),
        assistant(
            "a3",
            "r2",
            "m2",
            json!({"type": "text", "text": "both done"}),
        ),
    ]);
    let uuids: Vec<String> = store
        .messages(ID, &MessagesOptions::default())
        .into_iter()
        .map(|m| m.uuid)
        .collect();
    assert_eq!(uuids, ["u1", "a1", "a2", "r1", "r2", "a3"]);
}

#[test]
fn the_newest_branch_is_the_conversation() {
    // A retry: `b1` and `b2` both answer `u1`; the later one in the file wins.
    let (_dir, store, _) = store_with(&[
        user("u1", None, json!("hi")),
        assistant(
            "b1",
            "u1",
            "m1",
            json!({"type": "text", "text": "first try"}),
        ),
        assistant(
            "b2",
            "u1",
            "m2",
            json!({"type": "text", "text": "second try"}),
        ),
    ]);
    let messages = store.messages(ID, &MessagesOptions::default());
    let uuids: Vec<&str> = messages.iter().map(|m| m.uuid.as_str()).collect();
    assert_eq!(uuids, ["u1", "b2"]);
    let page = store.messages(
        ID,
        &MessagesOptions {
            offset: 1,
            limit: Some(5),
            ..MessagesOptions::default()
        },
    );
    assert_eq!(page.len(), 1);
}

#[test]
fn titles_tags_and_archive_marks() {
    let (_dir, store, path) = store_with(&[user("u1", None, json!("Fix the bug"))]);
    let info = store.info(ID, None).unwrap();
    assert_eq!(
        (info.summary.as_str(), info.first_prompt.as_deref()),
        ("Fix the bug", Some("Fix the bug"))
    );
    assert_eq!(info.archived, None);
    store.rename(ID, "  Bug hunt ", None).unwrap();
    store.tag(ID, Some("urgent\u{200b}"), None).unwrap();
    let info = store.info(ID, None).unwrap();
    assert_eq!(
        (info.summary.as_str(), info.tag.as_deref()),
        ("Bug hunt", Some("urgent"))
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.ends_with(&format!(
        "{{\"type\":\"custom-title\",\"customTitle\":\"Bug hunt\",\"sessionId\":\"{ID}\"}}\n{{\"type\":\"tag\",\"tag\":\"urgent\",\"sessionId\":\"{ID}\"}}\n"
    )));
    store.tag(ID, None, None).unwrap();
    assert_eq!(store.info(ID, None).unwrap().tag, None);
    store.archive(ID, None).unwrap();
    assert_eq!(store.info(ID, None).unwrap().archived, Some(true));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mark = path.with_extension("").join("archived.json");
        assert_eq!(
            std::fs::metadata(&mark).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    store.unarchive(ID, None).unwrap();
    assert_eq!(store.info(ID, None).unwrap().archived, Some(false));
    assert!(matches!(
        store.rename(ID, "  ", None),
        Err(SessionError::Invalid(_))
    ));
    assert!(matches!(
        store.tag(ID, Some("\u{200b}"), None),
        Err(SessionError::Invalid(_))
    ));
}

#[test]
fn ids_that_are_not_uuids_name_no_file() {
    let (_dir, store, _) = store_with(&[user("u1", None, json!("hi"))]);
    for bad in [
        "../../etc/passwd",
        "",
        "x",
        "11111111-2222-4333-8444-55555555555/",
    ] {
        assert!(
            matches!(
                store.rename(bad, "t", None),
                Err(SessionError::InvalidId(_))
            ),
            "{bad}"
        );
        assert!(store.info(bad, None).is_none());
        assert!(store.messages(bad, &MessagesOptions::default()).is_empty());
        assert!(matches!(
            store.delete(bad, None),
            Err(SessionError::InvalidId(_))
        ));
    }
    let other = "22222222-2222-4333-8444-555555555555";
    assert!(matches!(
        store.delete(other, None),
        Err(SessionError::NotFound(_))
    ));
}

#[test]
fn subagent_and_empty_transcripts_are_not_listed() {
    let (dir, store, _) = store_with(&[user("u1", None, json!("listed"))]);
    let project = dir.path().join("projects").join(sanitize_path("/work"));
    let side = "33333333-2222-4333-8444-555555555555";
    std::fs::write(
        project.join(format!("{side}.jsonl")),
        "{\"type\":\"user\",\"isSidechain\":true,\"message\":{\"content\":\"x\"}}\n",
    )
    .unwrap();
    let meta_only = "44444444-2222-4333-8444-555555555555";
    std::fs::write(
        project.join(format!("{meta_only}.jsonl")),
        "{\"type\":\"atis-latch\",\"atis\":\"\"}\n",
    )
    .unwrap();
    std::fs::write(project.join("not-a-session.jsonl"), "{}\n").unwrap();
    let listed: Vec<String> = store
        .list(&ListOptions::default())
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    assert_eq!(listed, [ID]);
    assert_eq!(
        store.list(&ListOptions::for_dir(Path::new("/work"))).len(),
        1
    );
    assert!(store
        .list(&ListOptions::for_dir(Path::new("/elsewhere")))
        .is_empty());
}

#[test]
fn a_fork_is_a_new_session_up_to_a_message() {
    let (_dir, store, path) = store_with(&[
        user("u1", None, json!("first")),
        assistant("a1", "u1", "m1", json!({"type": "text", "text": "one"})),
        user("u2", Some("a1"), json!("second")),
        assistant("a2", "u2", "m2", json!({"type": "text", "text": "two"})),
    ]);
    let fork = store
        .fork(
            ID,
            &ForkOptions {
                up_to: Some("a1".into()),
                ..ForkOptions::default()
            },
        )
        .unwrap_err();
    // "a1" is not a UUID: refused before reading.
    assert!(matches!(fork, SessionError::Invalid(_)));
    let full = store.fork(ID, &ForkOptions::default()).unwrap();
    let messages = store.messages(&full, &MessagesOptions::default());
    assert_eq!(messages.len(), 4);
    assert!(messages
        .iter()
        .all(|m| m.session_id == full && m.uuid != "u1"));
    assert_eq!(store.info(&full, None).unwrap().summary, "first (fork)");
    // The source is untouched, and forking never overwrites.
    assert!(std::fs::read_to_string(&path).unwrap().lines().count() == 4);
}

#[test]
fn lines_over_the_limit_and_transcripts_over_the_entries_are_told() {
    let long = user("u2", Some("u1"), json!("x".repeat(2000)));
    let (_dir, store, _) = store_with(&[
        user("u1", None, json!("short")),
        long,
        user("u3", Some("u2"), json!("after")),
    ]);
    let store = store.max_line_bytes(1000);
    let mut reader = store
        .read_messages(ID, &MessagesOptions::default())
        .unwrap();
    let uuids: Vec<String> = reader.by_ref().map(|m| m.uuid).collect();
    // The long line is not kept: the chain stops at it.
    assert_eq!(uuids, ["u3"]);
    assert!(matches!(
        reader.skipped(),
        [Skipped::TooLong {
            line: 2,
            max: 1000,
            ..
        }]
    ));
    let store = store.max_entries(1);
    assert!(matches!(
        store.read_messages(ID, &MessagesOptions::default()),
        Err(SessionError::TooLarge { entries: 1 })
    ));
}
