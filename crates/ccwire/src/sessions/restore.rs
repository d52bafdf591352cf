//! Resuming a session from a [`TranscriptStore`] (TS `sessionStore` with `resume`, Python
//! `session_store`): before the CLI starts, the session's transcript is loaded from the store
//! and written into a temporary configuration directory (`CLAUDE_CONFIG_DIR`), with the
//! user's `.credentials.json` and `settings.json` copied beside it, so that `--resume` finds
//! it on a machine that never had it. The CLI appends the new turns there, and the mirror
//! appends them to the store under the same key. The directory goes when the session ends.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use super::mirror::{SessionKey, TranscriptStore};
use super::store::{canonicalize, sanitize_path};

/// How long loading a transcript from the store may take.
pub const LOAD_TIMEOUT: Duration = Duration::from_secs(60);

/// The files of the user's configuration directory copied into the temporary one.
const COPIED: [&str; 2] = [".credentials.json", "settings.json"];

/// Loads `session_id` of the project `cwd` from `store` and writes it under a new temporary
/// configuration directory, copying the auth and settings files of `config_dir`. `Ok(None)`
/// when the store does not have the session (the CLI's own file, if any, is resumed).
pub(crate) async fn restore(
    store: &dyn TranscriptStore,
    session_id: &str,
    cwd: &Path,
    config_dir: &Path,
) -> std::io::Result<Option<tempfile::TempDir>> {
    let key = SessionKey {
        project_key: sanitize_path(&canonicalize(cwd)),
        session_id: session_id.to_owned(),
        subpath: None,
    };
    let loaded = tokio::time::timeout(LOAD_TIMEOUT, store.load(key.clone()))
        .await
        .map_err(|_| std::io::Error::other("loading the session from the store timed out"))?
        .map_err(std::io::Error::other)?;
    let Some(entries) = loaded.filter(|entries| !entries.is_empty()) else {
        return Ok(None);
    };
    let temp = tempfile::Builder::new()
        .prefix("ccwire-resume-")
        .tempdir()?;
    let project = temp.path().join("projects").join(&key.project_key);
    std::fs::create_dir_all(&project)?;
    let mut text = String::new();
    for entry in &entries {
        text.push_str(&entry.to_string());
        text.push('\n');
    }
    write_private(
        &project.join(format!("{session_id}.jsonl")),
        text.as_bytes(),
    )?;
    for name in COPIED {
        if let Ok(bytes) = std::fs::read(config_dir.join(name)) {
            write_private(&temp.path().join(name), &bytes)?;
        }
    }
    tracing::debug!(
        session_id,
        entries = entries.len(),
        dir = %temp.path().display(),
        "restored a session from the transcript store"
    );
    Ok(Some(temp))
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
    use crate::sessions::mirror::InMemoryTranscriptStore;

    #[tokio::test]
    async fn a_stored_session_is_written_where_the_cli_looks() {
        let cwd = tempfile::tempdir().unwrap();
        let config = tempfile::tempdir().unwrap();
        std::fs::write(config.path().join(".credentials.json"), "{\"token\":1}").unwrap();
        let store = InMemoryTranscriptStore::new();
        let key = SessionKey {
            project_key: sanitize_path(&canonicalize(cwd.path())),
            session_id: "s-1".into(),
            subpath: None,
        };
        store
            .append(key, vec![serde_json::json!({"type": "user", "uuid": "u1"})])
            .await
            .unwrap();
        let restored = restore(&store, "s-1", cwd.path(), config.path())
            .await
            .unwrap()
            .expect("restored");
        let project = sanitize_path(&canonicalize(cwd.path()));
        let file = restored
            .path()
            .join("projects")
            .join(project)
            .join("s-1.jsonl");
        assert_eq!(
            std::fs::read_to_string(file).unwrap(),
            "{\"type\":\"user\",\"uuid\":\"u1\"}\n"
        );
        assert!(restored.path().join(".credentials.json").exists());
        assert!(restore(&store, "other", cwd.path(), config.path())
            .await
            .unwrap()
            .is_none());
    }
}
