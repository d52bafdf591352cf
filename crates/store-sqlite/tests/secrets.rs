#![allow(clippy::unwrap_used)]

//! No secrets at rest: a session of the real CLI (offline, against `twinwire-model-server`)
//! whose prompt, reply, Bash command and Bash output carry the redaction suite's secrets
//! (`twinwire_testkit::secrets`; the environment's secret comes from a real `echo` of the
//! variable) is mirrored into a SQLite file, and none of the secrets is in the file, its
//! write-ahead log, its shared memory or a journal, byte for byte. Through the mirror's
//! redaction, through the store's own, and (the control that shows the check can fail) with
//! both turned off, when they are all there.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use serde_json::json;
use twinwire::protocol::Message;
use twinwire::sessions::stores::{StoreRedaction, TranscriptStore};
use twinwire::sessions::{MessagesOptions, StoreSessions};
use twinwire_model_server::{ModelScript, ModelServer};
use twinwire_store_sqlite::SqliteTranscriptStore;
use twinwire_testkit::secrets;

/// Generous: the machine may be busy; a hang still ends.
const TURN_LIMIT: Duration = Duration::from_secs(180);

/// The model runs Bash printing the secrets (the variable's value as bash expands it), then
/// answers with the secrets in its text.
fn script() -> ModelScript {
    let printed = secrets::text().replace(
        &format!("deployed with {}", secrets::ENV_VALUE),
        &format!("deployed with ${}", secrets::ENV_NAME),
    );
    let command = format!("cat <<EOF\n{printed}\nEOF");
    serde_json::from_value(json!({"rules": [
        {"when": {"last_is_tool_result": true},
         "reply": {"text": format!("Here it is: {}", secrets::text())}},
        {"when": {"last_user_text_contains": "LEAK"}, "times": 1,
         "reply": {"tool_use": {"name": "Bash", "text": "Printing.",
                                "input": {"command": command, "description": "print"}}}}
    ], "default": {"text": "ok"}}))
    .expect("a script")
}

/// The database's files: the file, its WAL, its shared memory, a rollback journal.
fn database_bytes(db: &Path) -> Vec<(String, Vec<u8>)> {
    ["", "-wal", "-shm", "-journal"]
        .iter()
        .filter_map(|suffix| {
            let path = format!("{}{suffix}", db.display());
            std::fs::read(&path).ok().map(|bytes| (path, bytes))
        })
        .collect()
}

/// Runs one session with the secrets through a SQLite store at `db` (with `store_redaction`
/// for the store and `mirror_redaction` for the mirror), and returns the files' bytes while
/// the store is still open, then after it is closed.
async fn session_into(
    db: &Path,
    store_redaction: StoreRedaction,
    mirror_redaction: Option<StoreRedaction>,
) -> Vec<(String, Vec<u8>)> {
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
    let store = Arc::new(
        SqliteTranscriptStore::open(db)
            .unwrap()
            .redaction(store_redaction),
    );
    let mut builder = twinwire::Options::builder()
        .cli_path(twinwire_testkit::real_claude())
        .cwd(&work)
        .env("HOME", &home)
        .env("CLAUDE_CONFIG_DIR", home.join(".claude"))
        .env("TMPDIR", &tmp)
        .env("CLAUDE_CODE_TMPDIR", &tmp)
        .env("ANTHROPIC_BASE_URL", server.url())
        .env("ANTHROPIC_API_KEY", "store-test-key")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_MAX_RETRIES", "0")
        .env(secrets::ENV_NAME, secrets::ENV_VALUE)
        .allowed_tools(["Bash"])
        .transcript_store(Arc::clone(&store) as Arc<dyn TranscriptStore>);
    if let Some(redaction) = mirror_redaction {
        builder = builder.transcript_redaction(redaction);
    }
    let client = twinwire::Client::connect(builder.build().unwrap())
        .await
        .unwrap();
    client
        .send(format!("LEAK these: {}", secrets::text()))
        .await
        .unwrap();
    let read = async {
        let mut turn = std::pin::pin!(client.receive_response());
        let mut text = String::new();
        while let Some(message) = turn.next().await {
            match message.unwrap() {
                Message::Result(result) => assert!(!result.is_error, "{result:?}"),
                other => text.push_str(&other.to_value().to_string()),
            }
        }
        text
    };
    let seen = tokio::time::timeout(TURN_LIMIT, read)
        .await
        .expect("the turn ended");
    client.close().await.unwrap();
    // The session itself carried every secret: the host saw them all (nothing is redacted in
    // what the CLI says), and bash printed the variable's value.
    assert_eq!(secrets::leaks(seen.as_bytes()), secrets::ALL.to_vec());
    // The store has the session, whatever it holds of it.
    let sessions = StoreSessions::new(Arc::clone(&store) as Arc<dyn TranscriptStore>);
    let listed = sessions.list(&work, None, 0).await.unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    let messages = sessions
        .messages(&listed[0].session_id, &work, &MessagesOptions::default())
        .await
        .unwrap();
    assert!(messages.len() >= 4, "{messages:?}");
    let open = database_bytes(db);
    drop(sessions);
    drop(store);
    server.shutdown().await;
    let mut all = open;
    all.extend(database_bytes(db));
    all
}

/// Every secret found in the files, by file.
fn leaks(files: &[(String, Vec<u8>)]) -> Vec<(String, Vec<&'static str>)> {
    files
        .iter()
        .map(|(path, bytes)| (path.clone(), secrets::leaks(bytes)))
        .filter(|(_, found)| !found.is_empty())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_through_the_sqlite_store_leaves_no_secret_in_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    let files = session_into(&db, StoreRedaction::default(), None).await;
    assert!(files.iter().any(|(path, _)| path.ends_with("-wal")));
    assert_eq!(leaks(&files), Vec::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stores_own_redaction_holds_without_the_mirrors() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    // The store knows the variable's value as a host does: from its own environment.
    let redactor = twinwire::redact::Redactor::from_env([(secrets::ENV_NAME, secrets::ENV_VALUE)]);
    let files = session_into(
        &db,
        StoreRedaction::with(redactor),
        Some(StoreRedaction::off()),
    )
    .await;
    assert_eq!(leaks(&files), Vec::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_redaction_every_secret_reaches_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    let files = session_into(&db, StoreRedaction::off(), Some(StoreRedaction::off())).await;
    let mut found: Vec<&str> = leaks(&files).into_iter().flat_map(|(_, f)| f).collect();
    found.sort();
    found.dedup();
    let mut all = secrets::ALL.to_vec();
    all.sort();
    assert_eq!(found, all);
}
