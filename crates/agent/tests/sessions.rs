//! Sessions saved in Claude Code's format and place, read back by twinwire's session reader
//! (the official SDKs' algorithm) and by the agent itself for --resume, --continue and
//! --fork-session.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;
use support::agent::{mentions, result, turn, World};
use twinwire::sessions::{MessagesOptions, SavedSessions};
use twinwire::Client;

async fn one_turn(
    world: &World,
    options: twinwire::options::OptionsBuilder,
    prompt: &str,
) -> (String, String) {
    let client = Client::connect(options.build().unwrap()).await.unwrap();
    client.send(prompt).await.unwrap();
    let frames = turn(&client).await;
    let result = result(&frames).clone();
    client.close().await.unwrap();
    let _ = world;
    (result.session_id, result.result.unwrap_or_default())
}

fn script() -> serde_json::Value {
    json!({"rules": [
        {"when": {"all": [{"last_user_text_contains": "which number"},
                          {"conversation_contains": "remember 42"}]},
         "reply": {"text": "It was 42."}},
        {"when": {"last_user_text_contains": "which number"}, "reply": {"text": "I do not know."}}
    ], "default": {"text": "Noted."}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_saved_where_and_as_claude_code_saves_it() {
    let world = World::new(script()).await;
    let (id, _) = one_turn(&world, world.options(), "please remember 42").await;
    let store = SavedSessions::at(world.home.join(".claude"));
    let path = store
        .transcript_path(&id, Some(&world.work))
        .expect("a transcript");
    let project = twinwire::sessions::sanitize_path(&world.work.display().to_string());
    assert_eq!(
        path,
        world
            .home
            .join(".claude/projects")
            .join(project)
            .join(format!("{id}.jsonl"))
    );
    let messages = store.messages(&id, &MessagesOptions::default());
    let kinds: Vec<&str> = messages.iter().map(|m| m.kind.as_str()).collect();
    assert_eq!(kinds, vec!["user", "assistant"]);
    assert_eq!(messages[0].message["content"], "please remember 42");
    assert_eq!(messages[1].message["content"][0]["text"], "Noted.");
    let info = store.info(&id, Some(&world.work)).unwrap();
    assert_eq!(info.summary, "please remember 42");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_continue_and_fork_go_on_from_the_saved_conversation() {
    let world = World::new(script()).await;
    let (first, _) = one_turn(&world, world.options(), "please remember 42").await;
    let (fresh, answer) = one_turn(&world, world.options(), "which number").await;
    assert_eq!(answer, "I do not know.", "a new session starts empty");
    assert_ne!(fresh, first);

    let (resumed, answer) = one_turn(&world, world.options().resume(&first), "which number").await;
    assert_eq!(answer, "It was 42.");
    assert_eq!(resumed, first, "a resumed session keeps its id");

    let (forked, answer) = one_turn(
        &world,
        world.options().resume(&first).fork_session(true),
        "which number, again",
    )
    .await;
    assert_eq!(answer, "It was 42.");
    assert_ne!(forked, first, "a fork has an id of its own");

    // --continue takes the newest session of the directory: the fork.
    let (continued, _) = one_turn(
        &world,
        world.options().continue_conversation(true),
        "and once more: which number",
    )
    .await;
    assert_eq!(continued, forked);

    let store = SavedSessions::at(world.home.join(".claude"));
    let original = store.messages(&first, &MessagesOptions::default());
    assert_eq!(
        original.len(),
        4,
        "the resumed turn was appended to the first file"
    );
    let fork = store.messages(&forked, &MessagesOptions::default());
    assert!(
        mentions(&fork[0].message, "please remember 42"),
        "the fork holds the history"
    );
    assert_eq!(
        fork.len(),
        8,
        "history (4), its own turn (2), the continued turn (2)"
    );
    let last = world.model_requests().pop().unwrap();
    assert!(mentions(&last["messages"], "which number, again"));
}

/// With a transcript store (`--session-mirror`), every entry the session file keeps reaches the
/// store as the CLI's `transcript_mirror` frames bring it; with the file gone, the session
/// resumes from the store alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transcript_store_keeps_what_the_file_keeps_and_resumes_without_it() {
    use std::sync::Arc;
    use twinwire::sessions::stores::{InMemoryTranscriptStore, SessionKey, TranscriptStore};
    let world = World::new(script()).await;
    let store = InMemoryTranscriptStore::new();
    let (id, _) = one_turn(
        &world,
        world.options().transcript_store(Arc::new(store.clone())),
        "please remember 42",
    )
    .await;
    let saved = SavedSessions::at(world.home.join(".claude"));
    let path = saved.transcript_path(&id, Some(&world.work)).unwrap();
    let file: Vec<serde_json::Value> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let project = twinwire::sessions::sanitize_path(&world.work.display().to_string());
    let stored = store
        .load(SessionKey::main(project, &id))
        .await
        .unwrap()
        .expect("the session in the store");
    assert_eq!(stored.len(), 2, "{stored:#?}");
    assert_eq!(stored, file);

    std::fs::remove_file(&path).unwrap();
    let (resumed, answer) = one_turn(
        &world,
        world
            .options()
            .transcript_store(Arc::new(store.clone()))
            .resume(&id),
        "which number",
    )
    .await;
    assert_eq!(
        (resumed.as_str(), answer.as_str()),
        (id.as_str(), "It was 42.")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resuming_a_session_that_does_not_exist_fails_clearly() {
    let world = World::new(script()).await;
    let options = world
        .options()
        .resume("0d7a1c9e-1111-4222-8333-944455556666")
        .build()
        .unwrap();
    let failed = Client::connect(options).await;
    let error = match failed {
        Ok(client) => {
            client.send("hi").await.ok();
            let end = client.wait(std::time::Duration::from_secs(30)).await;
            format!("{end:?}")
        }
        Err(err) => err.to_string(),
    };
    assert!(
        error.contains("No conversation found with session ID"),
        "{error}"
    );
}

/// A link planted where the session's folder would be (`projects/<dir>` → elsewhere) does
/// not carry the session's file out of the config directory: the turn still runs, nothing is
/// written through the link.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_in_the_projects_folder_is_not_followed_out() {
    let world = World::new(script()).await;
    let outside = world.home.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let projects = world.home.join(".claude/projects");
    std::fs::create_dir_all(&projects).unwrap();
    let project = twinwire::sessions::sanitize_path(&world.work.display().to_string());
    std::os::unix::fs::symlink(&outside, projects.join(&project)).unwrap();
    let (_, reply) = one_turn(&world, world.options(), "please remember 42").await;
    assert_eq!(reply, "Noted.");
    let written: Vec<_> = std::fs::read_dir(&outside).unwrap().flatten().collect();
    assert!(written.is_empty(), "written through the link: {written:?}");
}
