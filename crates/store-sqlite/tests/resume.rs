#![allow(clippy::unwrap_used)]

//! Sessions of the real CLI (offline, against `twinwire-model-server`) mirrored into a store and
//! resumed from it alone: the first HOME is deleted, the resume runs with an empty one, and
//! the model's request for the next turn still holds the first turn's prompt. With the
//! SQLite store and the directory store; and a store that fails is reported in the stream.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use serde_json::{json, Value};
use twinwire::protocol::system::SystemMessage;
use twinwire::protocol::Message;
use twinwire::sessions::stores::{
    DirectoryTranscriptStore, SessionKey, StoreError, StoreFuture, TranscriptStore,
};
use twinwire::sessions::{MessagesOptions, StoreSessions};
use twinwire_model_server::{ModelScript, ModelServer};
use twinwire_store_sqlite::SqliteTranscriptStore;

/// Generous: the machine may be busy; a hang still ends.
const TURN_LIMIT: Duration = Duration::from_secs(180);

/// An echo, and a subagent for AGENT (which lists files and says so).
fn script() -> ModelScript {
    serde_json::from_value(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": {"text": "Done with the tool."}},
        {"when": {"last_user_text_contains": "AGENT"}, "times": 1,
         "reply": {"tool_use": {"name": "Task", "text": "Delegating.",
                                "input": {"description": "look around", "prompt": "List files SUB",
                                          "subagent_type": "general-purpose"}}}}
    ], "default": {"echo": true}}))
    .expect("a script")
}

/// Options for the real CLI offline: `home` as HOME, the model server at `url`.
fn offline(work: &Path, home: &Path, tmp: &Path, url: &str) -> twinwire::options::OptionsBuilder {
    twinwire::Options::builder()
        .cli_path(twinwire_testkit::real_claude())
        .cwd(work)
        .env("HOME", home)
        .env("CLAUDE_CONFIG_DIR", home.join(".claude"))
        .env("TMPDIR", tmp)
        .env("CLAUDE_CODE_TMPDIR", tmp)
        .env("ANTHROPIC_BASE_URL", url)
        .env("ANTHROPIC_API_KEY", "store-test-key")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_MAX_RETRIES", "0")
}

/// Sends `prompt` and reads its turn; the session id from the result.
async fn turn(client: &twinwire::Client, prompt: &str) -> String {
    client.send(prompt).await.unwrap();
    let read = async {
        let mut session_id = String::new();
        let mut turn = std::pin::pin!(client.receive_response());
        while let Some(message) = turn.next().await {
            if let Message::Result(result) = message.unwrap() {
                assert!(!result.is_error, "{result:?}");
                session_id = result.session_id.clone();
            }
        }
        session_id
    };
    tokio::time::timeout(TURN_LIMIT, read)
        .await
        .expect("the turn ended")
}

/// One session mirrored into the store `open` gives, its HOME deleted, then resumed with an
/// empty HOME from a store opened anew: the CLI goes on with the history only the store had.
async fn mirrored_then_resumed(open: impl Fn() -> Arc<dyn TranscriptStore>) {
    let root = tempfile::tempdir().unwrap();
    let (home, work, tmp) = (
        root.path().join("home"),
        root.path().join("work"),
        root.path().join("tmp"),
    );
    for dir in [&home, &work, &tmp] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let server = ModelServer::start(script()).await.unwrap();
    let options = offline(&work, &home, &tmp, &server.url())
        .transcript_store(open())
        .build()
        .unwrap();
    let client = twinwire::Client::connect(options).await.unwrap();
    let session_id = turn(&client, "Hello mirror, remember PELICAN").await;
    client.close().await.unwrap();
    // Nothing of the session is left on disk but the store.
    std::fs::remove_dir_all(&home).unwrap();

    let store = open();
    let sessions = StoreSessions::new(Arc::clone(&store));
    let listed = sessions.list(&work, None, 0).await.unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0].session_id, session_id);
    assert_eq!(
        listed[0].first_prompt.as_deref(),
        Some("Hello mirror, remember PELICAN")
    );
    let stored = sessions
        .messages(&session_id, &work, &MessagesOptions::default())
        .await
        .unwrap();
    assert_eq!(stored.len(), 2, "{stored:?}");

    let empty = root.path().join("empty-home");
    std::fs::create_dir_all(&empty).unwrap();
    let options = offline(&work, &empty, &tmp, &server.url())
        .resume(&session_id)
        .transcript_store(store)
        .build()
        .unwrap();
    let asked_before = server.message_requests().len();
    let client = twinwire::Client::connect(options).await.unwrap();
    let resumed_id = turn(&client, "What did I say first?").await;
    client.close().await.unwrap();
    assert_eq!(resumed_id, session_id, "the same session goes on");
    let requests = server.message_requests();
    let resumed = requests[asked_before..]
        .iter()
        .map(Value::to_string)
        .find(|body| body.contains("What did I say first?"))
        .expect("the resumed turn's request");
    assert!(resumed.contains("PELICAN"), "no history in {resumed}");
    // The resumed turn was mirrored into the same session.
    let stored = sessions
        .messages(&session_id, &work, &MessagesOptions::default())
        .await
        .unwrap();
    assert_eq!(stored.len(), 4, "{stored:?}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_resumes_from_the_sqlite_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    mirrored_then_resumed(|| Arc::new(SqliteTranscriptStore::open(&db).unwrap())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_resumes_from_the_directory_store_alone() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    mirrored_then_resumed(|| Arc::new(DirectoryTranscriptStore::new(&store_dir))).await;
}

/// A store that cannot write.
struct Failing;

impl TranscriptStore for Failing {
    fn append(&self, _key: SessionKey, _entries: Vec<Value>) -> StoreFuture<()> {
        Box::pin(async { Err(StoreError::Backend("the store is read-only".into())) })
    }
    fn load(&self, _key: SessionKey) -> StoreFuture<Option<Vec<Value>>> {
        Box::pin(async { Ok(None) })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_the_store_refuses_comes_as_a_mirror_error_message() {
    let root = tempfile::tempdir().unwrap();
    let (home, work, tmp) = (
        root.path().join("home"),
        root.path().join("work"),
        root.path().join("tmp"),
    );
    for dir in [&home, &work, &tmp] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let server = ModelServer::start(script()).await.unwrap();
    let options = offline(&work, &home, &tmp, &server.url())
        .transcript_store(Arc::new(Failing))
        .build()
        .unwrap();
    let client = twinwire::Client::connect(options).await.unwrap();
    let session_id = turn(&client, "Hello").await;
    // The turn ended (the session is not failed by its store); the dropped batch is told next.
    let error = tokio::time::timeout(TURN_LIMIT, async {
        while let Some(message) = client.receive().await {
            if let Message::System(system) = message.unwrap() {
                if let SystemMessage::MirrorError(error) = *system {
                    return Some(error);
                }
            }
        }
        None
    })
    .await
    .expect("a mirror error in time")
    .expect("a mirror error before the end");
    assert_eq!(error.error, "the store is read-only");
    assert_eq!(error.session_id, session_id);
    assert_eq!(error.key.session_id, session_id);
    assert!(!error.uuid.is_empty());
    client.close().await.unwrap();
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subagents_transcript_is_mirrored_and_read_back_from_the_sqlite_store() {
    let root = tempfile::tempdir().unwrap();
    let (home, work, tmp) = (
        root.path().join("home"),
        root.path().join("work"),
        root.path().join("tmp"),
    );
    for dir in [&home, &work, &tmp] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let db = root.path().join("sessions.db");
    let server = ModelServer::start(script()).await.unwrap();
    let options = offline(&work, &home, &tmp, &server.url())
        .allowed_tools(["Task"])
        .transcript_store(Arc::new(SqliteTranscriptStore::open(&db).unwrap()))
        .build()
        .unwrap();
    let client = twinwire::Client::connect(options).await.unwrap();
    let session_id = turn(&client, "Please AGENT").await;
    client.close().await.unwrap();
    std::fs::remove_dir_all(&home).unwrap();

    let store: Arc<dyn TranscriptStore> = Arc::new(SqliteTranscriptStore::open(&db).unwrap());
    let sessions = StoreSessions::new(store);
    let agents = sessions.subagents(&session_id, &work).await.unwrap();
    assert_eq!(agents.len(), 1, "{agents:?}");
    let messages = sessions
        .subagent_messages(&session_id, &agents[0], &work, &MessagesOptions::default())
        .await
        .unwrap();
    let text = serde_json::to_string(&messages).unwrap();
    assert!(text.contains("List files SUB"), "{text}");
    server.shutdown().await;
}

/// `continue` with a store: the store's newest session (not a subagent's) is restored and
/// resumed by its id, on an empty HOME.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn continue_picks_the_newest_session_of_the_sqlite_store() {
    let root = tempfile::tempdir().unwrap();
    let (home, work, tmp) = (
        root.path().join("home"),
        root.path().join("work"),
        root.path().join("tmp"),
    );
    for dir in [&home, &work, &tmp] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let db = root.path().join("sessions.db");
    let server = ModelServer::start(script()).await.unwrap();
    let mut ids = Vec::new();
    for prompt in ["The older one, OSTRICH", "The newer one, FLAMINGO"] {
        let options = offline(&work, &home, &tmp, &server.url())
            .transcript_store(Arc::new(SqliteTranscriptStore::open(&db).unwrap()))
            .build()
            .unwrap();
        let client = twinwire::Client::connect(options).await.unwrap();
        ids.push(turn(&client, prompt).await);
        client.close().await.unwrap();
    }
    std::fs::remove_dir_all(&home).unwrap();
    let empty = root.path().join("empty-home");
    std::fs::create_dir_all(&empty).unwrap();
    let options = offline(&work, &empty, &tmp, &server.url())
        .continue_conversation(true)
        .transcript_store(Arc::new(SqliteTranscriptStore::open(&db).unwrap()))
        .build()
        .unwrap();
    let asked_before = server.message_requests().len();
    let client = twinwire::Client::connect(options).await.unwrap();
    let continued = turn(&client, "Which one was this?").await;
    client.close().await.unwrap();
    assert_eq!(continued, ids[1], "the newest session goes on");
    let requests = server.message_requests();
    let body = requests[asked_before..]
        .iter()
        .map(Value::to_string)
        .find(|body| body.contains("Which one was this?"))
        .expect("the continued turn's request");
    assert!(
        body.contains("FLAMINGO") && !body.contains("OSTRICH"),
        "{body}"
    );
    server.shutdown().await;
}
