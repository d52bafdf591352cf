//! Resuming a session from a [`TranscriptStore`] (TS `sessionStore` with `resume`, Python
//! `session_store`): before the CLI starts, the session's transcript is loaded from the store
//! and written into a temporary configuration directory (`CLAUDE_CONFIG_DIR`), with the
//! user's `.credentials.json` and `settings.json` copied beside it, so that `--resume` finds
//! it on a machine that never had it. The CLI appends the new turns there, and the mirror
//! appends them to the store under the same key. The directory goes when the session ends.
//!
//! A store with [`list_subkeys`](TranscriptStore::list_subkeys) gets its subagents'
//! transcripts restored too (under `<session>/subagents/…`), each `agent_metadata` entry
//! becoming the `.meta.json` beside its transcript, as the CLI keeps it; a subpath that would
//! lead out of the session directory is skipped. Every store call has a time limit.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::store::{canonicalize, sanitize_path};
use super::stores::{is_safe_subpath, with_timeout, SessionKey, StoreError, TranscriptStore};

/// How long loading a transcript (or listing a session's subkeys) from the store may take,
/// unless the options say otherwise.
pub const LOAD_TIMEOUT: Duration = Duration::from_secs(60);

/// The files of the user's configuration directory copied into the temporary one.
const COPIED: [&str; 2] = [".credentials.json", "settings.json"];

/// Loads `session_id` of the project `cwd` from `store` and writes it under a new temporary
/// configuration directory, copying the auth and settings files of `config_dir` (none when it
/// is `None`: the directory goes to another machine, which copies its own). `Ok(None)`
/// when the store does not have the session (the CLI's own file, if any, is resumed). Each
/// store call may take `timeout`.
pub(crate) async fn restore(
    store: &dyn TranscriptStore,
    session_id: &str,
    cwd: &Path,
    config_dir: Option<&Path>,
    timeout: Duration,
) -> Result<Option<tempfile::TempDir>, StoreError> {
    let key = SessionKey::main(sanitize_path(&canonicalize(cwd)), session_id);
    let Some(entries) = load_nonempty(store, &key, timeout).await? else {
        return Ok(None);
    };
    write_restored(store, &key, entries, config_dir, timeout)
        .await
        .map(Some)
}

/// For `continue`: the project's newest session in the store that is not a subagent's
/// (walked newest first by the store's times, as the SDKs do), restored as [`restore`] does;
/// its id and directory. `Ok(None)` when the store has none (the CLI continues from its own
/// files, or starts a new session). A store without `list_sessions` fails.
pub(crate) async fn restore_newest(
    store: &dyn TranscriptStore,
    cwd: &Path,
    config_dir: Option<&Path>,
    timeout: Duration,
) -> Result<Option<(String, tempfile::TempDir)>, StoreError> {
    let project_key = sanitize_path(&canonicalize(cwd));
    let mut sessions = with_timeout(store.list_sessions(project_key.clone()), timeout, || {
        "listing the transcript store's sessions".to_owned()
    })
    .await?;
    sessions.sort_by_key(|s| std::cmp::Reverse(s.mtime));
    for session in sessions {
        if !super::store::is_uuid(&session.session_id) {
            continue;
        }
        let key = SessionKey::main(&project_key, &session.session_id);
        let Some(entries) = load_nonempty(store, &key, timeout).await? else {
            continue;
        };
        if entries[0]["isSidechain"] == Value::Bool(true) {
            continue;
        }
        let dir = write_restored(store, &key, entries, config_dir, timeout).await?;
        return Ok(Some((session.session_id, dir)));
    }
    Ok(None)
}

async fn load_nonempty(
    store: &dyn TranscriptStore,
    key: &SessionKey,
    timeout: Duration,
) -> Result<Option<Vec<Value>>, StoreError> {
    let session_id = &key.session_id;
    let loaded = with_timeout(store.load(key.clone()), timeout, || {
        format!("loading session {session_id} from the transcript store")
    })
    .await?;
    Ok(loaded.filter(|entries| !entries.is_empty()))
}

/// Writes a loaded session (and its subagents) into a new temporary configuration directory.
async fn write_restored(
    store: &dyn TranscriptStore,
    key: &SessionKey,
    entries: Vec<Value>,
    config_dir: Option<&Path>,
    timeout: Duration,
) -> Result<tempfile::TempDir, StoreError> {
    let session_id = key.session_id.as_str();
    let temp = tempfile::Builder::new()
        .prefix("twinwire-resume-")
        .tempdir()?;
    let project = temp.path().join("projects").join(&key.project_key);
    std::fs::create_dir_all(&project)?;
    write_private(
        &project.join(format!("{session_id}.jsonl")),
        &lines(&entries),
    )?;
    for name in COPIED {
        let Some(config_dir) = config_dir else { break };
        if let Ok(bytes) = std::fs::read(config_dir.join(name)) {
            write_private(&temp.path().join(name), &bytes)?;
        }
    }
    restore_subkeys(store, key, &project.join(session_id), timeout).await?;
    tracing::debug!(
        session_id,
        entries = entries.len(),
        dir = %temp.path().display(),
        "restored a session from the transcript store"
    );
    Ok(temp)
}

/// Writes the session's subagent transcripts (and their `.meta.json`) under `session_dir`. A
/// store without `list_subkeys` restores none: the main transcript still resumes.
async fn restore_subkeys(
    store: &dyn TranscriptStore,
    key: &SessionKey,
    session_dir: &Path,
    timeout: Duration,
) -> Result<(), StoreError> {
    let session_id = &key.session_id;
    let subkeys = match with_timeout(store.list_subkeys(key.clone()), timeout, || {
        format!("listing the subkeys of session {session_id} in the transcript store")
    })
    .await
    {
        Ok(subkeys) => subkeys,
        Err(StoreError::Unsupported(_)) => {
            tracing::debug!("the transcript store cannot list subkeys: no subagents restored");
            return Ok(());
        }
        Err(err) => return Err(err),
    };
    for subpath in subkeys {
        if !is_safe_subpath(&subpath) {
            tracing::warn!(subpath, "a subkey that leads out of the session: skipped");
            continue;
        }
        let loaded = with_timeout(store.load(key.sub(&subpath)), timeout, || {
            format!("loading {subpath} of session {session_id} from the transcript store")
        })
        .await?;
        let Some(entries) = loaded.filter(|e| !e.is_empty()) else {
            continue;
        };
        let (metadata, transcript) = split_agent_metadata(entries);
        let file = session_dir.join(format!("{subpath}.jsonl"));
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)?;
        }
        if !transcript.is_empty() {
            write_private(&file, &lines(&transcript))?;
        }
        if let Some(Value::Object(mut metadata)) = metadata {
            metadata.remove("type");
            let meta = session_dir.join(format!("{subpath}.meta.json"));
            write_private(&meta, Value::Object(metadata).to_string().as_bytes())?;
        }
    }
    Ok(())
}

/// The last `agent_metadata` entry (the `.meta.json` a store keeps inline, as the SDKs), and
/// the transcript's own entries.
pub(crate) fn split_agent_metadata(entries: Vec<Value>) -> (Option<Value>, Vec<Value>) {
    let mut metadata = None;
    let mut transcript = Vec::with_capacity(entries.len());
    for entry in entries {
        if entry["type"] == "agent_metadata" {
            metadata = Some(entry);
        } else {
            transcript.push(entry);
        }
    }
    (metadata, transcript)
}

fn lines(entries: &[Value]) -> Vec<u8> {
    let mut text = String::new();
    for entry in entries {
        text.push_str(&entry.to_string());
        text.push('\n');
    }
    text.into_bytes()
}

fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)?.write_all(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::stores::{InMemoryTranscriptStore, StoreFuture};

    #[tokio::test]
    async fn a_stored_session_is_written_where_the_cli_looks() {
        let cwd = tempfile::tempdir().unwrap();
        let config = tempfile::tempdir().unwrap();
        std::fs::write(config.path().join(".credentials.json"), "{\"token\":1}").unwrap();
        let store = InMemoryTranscriptStore::new();
        let project = sanitize_path(&canonicalize(cwd.path()));
        let key = SessionKey::main(&project, "s-1");
        store
            .append(
                key.clone(),
                vec![serde_json::json!({"type": "user", "uuid": "u1"})],
            )
            .await
            .unwrap();
        let sub = key.sub("subagents/agent-a");
        store
            .append(
                sub,
                vec![
                    serde_json::json!({"type": "user", "uuid": "a1", "isSidechain": true}),
                    serde_json::json!({"type": "agent_metadata", "agentType": "explorer"}),
                ],
            )
            .await
            .unwrap();
        // A subkey from the store that would lead out of the session is not written.
        store
            .append(
                key.sub("../../escape"),
                vec![serde_json::json!({"type": "user"})],
            )
            .await
            .unwrap();
        let restored = restore(&store, "s-1", cwd.path(), Some(config.path()), LOAD_TIMEOUT)
            .await
            .unwrap()
            .expect("restored");
        let project_dir = restored.path().join("projects").join(&project);
        assert_eq!(
            std::fs::read_to_string(project_dir.join("s-1.jsonl")).unwrap(),
            "{\"type\":\"user\",\"uuid\":\"u1\"}\n"
        );
        let agents = project_dir.join("s-1").join("subagents");
        assert_eq!(
            std::fs::read_to_string(agents.join("agent-a.jsonl")).unwrap(),
            "{\"isSidechain\":true,\"type\":\"user\",\"uuid\":\"a1\"}\n"
        );
        assert_eq!(
            std::fs::read_to_string(agents.join("agent-a.meta.json")).unwrap(),
            "{\"agentType\":\"explorer\"}"
        );
        assert!(!restored
            .path()
            .join("projects")
            .join("escape.jsonl")
            .exists());
        assert!(restored.path().join(".credentials.json").exists());
        assert!(restore(
            &store,
            "other",
            cwd.path(),
            Some(config.path()),
            LOAD_TIMEOUT
        )
        .await
        .unwrap()
        .is_none());
    }

    /// A store whose load never finishes.
    struct Hanging;

    impl TranscriptStore for Hanging {
        fn append(&self, _key: SessionKey, _entries: Vec<Value>) -> StoreFuture<()> {
            Box::pin(async { Ok(()) })
        }
        fn load(&self, _key: SessionKey) -> StoreFuture<Option<Vec<Value>>> {
            Box::pin(std::future::pending())
        }
    }

    #[tokio::test]
    async fn a_store_that_hangs_gives_a_timeout_error() {
        let cwd = tempfile::tempdir().unwrap();
        let limit = Duration::from_millis(50);
        let err = restore(&Hanging, "s-1", cwd.path(), Some(cwd.path()), limit)
            .await
            .unwrap_err();
        assert!(
            matches!(err, StoreError::TimedOut { after, .. } if after == limit),
            "{err}"
        );
    }
}
