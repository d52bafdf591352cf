//! The session functions through a store, on a session imported from a config directory.

use std::sync::Arc;

use serde_json::json;

use super::{assistant, store_with, user, ID};
use crate::sessions::stores::{
    DirectoryTranscriptStore, InMemoryTranscriptStore, SessionKey, TranscriptStore,
};
use crate::sessions::{
    project_key_for_directory, ForkOptions, ImportOptions, MessagesOptions, StoreSessions,
};

fn work() -> std::path::PathBuf {
    std::path::PathBuf::from("/work")
}

#[tokio::test]
async fn a_session_imported_into_a_store_is_read_renamed_tagged_forked_and_deleted_there() {
    let (dir, saved, path) = store_with(&[
        user("u1", None, json!("Explain the parser")),
        assistant(
            "a1",
            "u1",
            "m1",
            json!({"type": "text", "text": "It parses."}),
        ),
    ]);
    // A subagent with its metadata beside it.
    let agents = path.with_extension("").join("subagents");
    std::fs::create_dir_all(&agents).unwrap();
    let sub = json!({"type": "user", "uuid": "s1", "parentUuid": null, "sessionId": ID,
                     "isSidechain": true, "agentId": "x1",
                     "timestamp": "2026-01-01T00:00:02.000Z",
                     "message": {"role": "user", "content": "look SUB"}});
    std::fs::write(agents.join("agent-x1.jsonl"), format!("{sub}\n")).unwrap();
    std::fs::write(
        agents.join("agent-x1.meta.json"),
        r#"{"agentType":"explorer"}"#,
    )
    .unwrap();

    let memory = InMemoryTranscriptStore::new();
    let sessions = StoreSessions::new(Arc::new(memory.clone()));
    let options = ImportOptions {
        batch_size: 1,
        ..ImportOptions::default()
    };
    sessions.import(&saved, ID, &options).await.unwrap();
    let key = SessionKey::main(project_key_for_directory(&work()), ID);
    assert_eq!(memory.load(key.clone()).await.unwrap().unwrap().len(), 2);
    let sub_entries = memory
        .load(key.sub("subagents/agent-x1"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(sub_entries[1]["type"], "agent_metadata");
    assert_eq!(sub_entries[1]["agentType"], "explorer");

    let all = MessagesOptions::default();
    let from_store = sessions.messages(ID, &work(), &all).await.unwrap();
    assert_eq!(from_store, saved.messages(ID, &all));
    assert_eq!(sessions.subagents(ID, &work()).await.unwrap(), vec!["x1"]);
    let agent = sessions
        .subagent_messages(ID, "x1", &work(), &all)
        .await
        .unwrap();
    assert_eq!(agent.len(), 1);

    sessions
        .rename(ID, "  Parser notes ", &work())
        .await
        .unwrap();
    sessions.tag(ID, Some("review"), &work()).await.unwrap();
    let info = sessions.info(ID, &work()).await.unwrap().unwrap();
    assert_eq!(info.summary, "Parser notes");
    assert_eq!(info.tag.as_deref(), Some("review"));
    assert_eq!(info.first_prompt.as_deref(), Some("Explain the parser"));
    assert!(sessions.rename(ID, "  ", &work()).await.is_err());
    assert!(sessions.rename("../x", "t", &work()).await.is_err());
    sessions.tag(ID, None, &work()).await.unwrap();
    assert_eq!(sessions.info(ID, &work()).await.unwrap().unwrap().tag, None);

    let fork = sessions
        .fork(ID, &work(), &ForkOptions::default())
        .await
        .unwrap();
    let listed = sessions.list(&work(), None, 0).await.unwrap();
    let mut ids: Vec<&str> = listed.iter().map(|s| s.session_id.as_str()).collect();
    ids.sort_unstable();
    let mut expected = vec![ID, fork.as_str()];
    expected.sort_unstable();
    assert_eq!(ids, expected);
    let forked = sessions.messages(&fork, &work(), &all).await.unwrap();
    assert_eq!(forked.len(), 2);
    assert_eq!(forked[0].session_id, fork);

    sessions.delete(ID, &work()).await.unwrap();
    assert_eq!(sessions.info(ID, &work()).await.unwrap(), None);
    assert!(memory
        .load(key.sub("subagents/agent-x1"))
        .await
        .unwrap()
        .is_none());
    drop(dir);
}

#[tokio::test]
async fn a_store_without_summaries_is_listed_by_loading_each_session() {
    let (_dir, saved, _) = store_with(&[user("u1", None, json!("Only prompt"))]);
    let target = tempfile::tempdir().unwrap();
    let store = DirectoryTranscriptStore::new(target.path());
    let sessions = StoreSessions::new(Arc::new(store));
    sessions
        .import(&saved, ID, &ImportOptions::default())
        .await
        .unwrap();
    let listed = sessions.list(&work(), None, 0).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].summary, "Only prompt");
    assert!(listed[0].last_modified > 1_000_000_000_000);
}

#[tokio::test]
async fn a_line_that_is_not_json_stops_an_import_with_its_number() {
    let (_dir, saved, path) = store_with(&[user("u1", None, json!("x"))]);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{not json\n");
    std::fs::write(&path, text).unwrap();
    let sessions = StoreSessions::new(Arc::new(InMemoryTranscriptStore::new()));
    let err = sessions
        .import(&saved, ID, &ImportOptions::default())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("line 2"), "{err}");
}
