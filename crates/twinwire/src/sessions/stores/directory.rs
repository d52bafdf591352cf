//! A store in a directory laid out like the CLI's config directory, so that the mirrored
//! sessions read like local ones.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::config_dir::{ConfigDir, EntryKind, PROJECTS};
use super::super::SessionError;
use super::{SessionKey, StoreError, StoreFuture, StoreRedaction, StoredSession, TranscriptStore};

/// A store in a directory laid out like the CLI's config directory
/// (`<dir>/projects/<project>/<session>.jsonl`, subagents under
/// `<dir>/projects/<project>/<session>/`), so that
/// [`SavedSessions::at(dir)`](crate::sessions::SavedSessions::at) and the official SDKs (with
/// `CLAUDE_CONFIG_DIR=<dir>`) read the mirrored sessions like local ones. Appends are one
/// `O_APPEND` write per batch; files are created `0600`; every path is opened beneath the
/// directory (a link never leads out of it).
///
/// It keeps no summaries: [`list_session_summaries`](TranscriptStore::list_session_summaries)
/// is unsupported (listing through the store loads each session; `SavedSessions::at(dir)`
/// lists the directory faster). A session's time is its file's modification time.
///
/// Entries are redacted before they are written ([`StoreRedaction::default`]; see
/// [`DirectoryTranscriptStore::redaction`]).
#[derive(Debug, Clone)]
pub struct DirectoryTranscriptStore {
    dir: PathBuf,
    redaction: StoreRedaction,
}

impl DirectoryTranscriptStore {
    /// A store under `dir` (created as needed).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            redaction: StoreRedaction::default(),
        }
    }

    /// The same store with `redaction` (e.g. [`StoreRedaction::off`]).
    pub fn redaction(mut self, redaction: StoreRedaction) -> Self {
        self.redaction = redaction;
        self
    }

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of `key`, relative to the store's directory.
    fn path(key: &SessionKey) -> Option<PathBuf> {
        let session = Self::session_dir(key)?;
        match &key.subpath {
            None => Some(session.with_extension("jsonl")),
            Some(sub) => {
                if !super::is_safe_subpath(sub) {
                    return None;
                }
                Some(session.join(format!("{sub}.jsonl")))
            }
        }
    }

    /// `projects/<project>/<session>` (the directory of the session's subagents).
    fn session_dir(key: &SessionKey) -> Option<PathBuf> {
        if !safe_name(&key.project_key) || !safe_name(&key.session_id) {
            return None;
        }
        Some(
            Path::new(PROJECTS)
                .join(&key.project_key)
                .join(&key.session_id),
        )
    }

    /// Runs `work` on the store's directory off the async runtime; a directory that does not
    /// exist yet reads as empty (`absent`).
    fn blocking<T: Send + 'static>(
        &self,
        absent: T,
        work: impl FnOnce(&ConfigDir) -> Result<T, StoreError> + Send + 'static,
    ) -> StoreFuture<T> {
        let dir = self.dir.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || match ConfigDir::open(&dir) {
                Ok(root) => work(&root),
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(absent),
                Err(err) => Err(err.into()),
            })
            .await
            .map_err(StoreError::backend)?
        })
    }
}

fn safe_name(part: &str) -> bool {
    !part.is_empty() && !part.contains(['/', '\\', '\0']) && part != ".." && part != "."
}

fn refused(key: &SessionKey) -> StoreError {
    StoreError::Backend(format!("{key:?} does not name a file"))
}

impl TranscriptStore for DirectoryTranscriptStore {
    fn append(&self, key: SessionKey, mut entries: Vec<Value>) -> StoreFuture<()> {
        let Some(path) = Self::path(&key) else {
            return Box::pin(async move { Err(refused(&key)) });
        };
        if entries.is_empty() {
            return Box::pin(async { Ok(()) });
        }
        self.redaction.apply(&mut entries);
        let text: String = entries.iter().map(|e| format!("{e}\n")).collect();
        let dir = self.dir.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || append_private(&dir, &path, &text))
                .await
                .map_err(StoreError::backend)?
                .map_err(StoreError::from)
        })
    }

    fn load(&self, key: SessionKey) -> StoreFuture<Option<Vec<Value>>> {
        let Some(path) = Self::path(&key) else {
            return Box::pin(async { Ok(None) });
        };
        self.blocking(None, move |root| load_lines(root, &path))
    }

    fn list_sessions(&self, project_key: String) -> StoreFuture<Vec<StoredSession>> {
        if !safe_name(&project_key) {
            return Box::pin(async { Ok(Vec::new()) });
        }
        self.blocking(Vec::new(), move |root| {
            let project = Path::new(PROJECTS).join(&project_key);
            let mut sessions = Vec::new();
            for (name, kind) in root.entries(&project) {
                let Some(session_id) = name.strip_suffix(".jsonl") else {
                    continue;
                };
                if kind != EntryKind::File {
                    continue;
                }
                let file = root.open_read(&project.join(&name))?;
                sessions.push(StoredSession {
                    session_id: session_id.to_owned(),
                    mtime: modified_millis(&file),
                });
            }
            Ok(sessions)
        })
    }

    fn delete(&self, key: SessionKey) -> StoreFuture<()> {
        let (Some(path), Some(session_dir)) = (Self::path(&key), Self::session_dir(&key)) else {
            return Box::pin(async move { Err(refused(&key)) });
        };
        let main = key.subpath.is_none();
        self.blocking((), move |root| {
            match root.remove_file(&path) {
                Ok(()) => {}
                Err(SessionError::Io(err)) if err.kind() == std::io::ErrorKind::NotFound => {}
                Err(err) => return Err(err.into()),
            }
            if main {
                root.remove_dir_all(&session_dir)?;
            }
            Ok(())
        })
    }

    fn list_subkeys(&self, key: SessionKey) -> StoreFuture<Vec<String>> {
        let Some(session_dir) = Self::session_dir(&key) else {
            return Box::pin(async { Ok(Vec::new()) });
        };
        self.blocking(Vec::new(), move |root| {
            let mut found = Vec::new();
            collect_transcripts(root, &session_dir, "", &mut found, 0);
            Ok(found)
        })
    }
}

/// How deep subagent directories may nest (the CLI writes `subagents/…/agent-<id>`; a
/// deeper tree is not one of its).
const MAX_DEPTH: usize = 8;

/// The `.jsonl` files under `dir`, as `/`-joined paths relative to where the walk began,
/// without `.jsonl`; links are not followed.
fn collect_transcripts(
    root: &ConfigDir,
    dir: &Path,
    prefix: &str,
    found: &mut Vec<String>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    for (name, kind) in root.entries(dir) {
        let relative = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        match kind {
            EntryKind::Dir => {
                collect_transcripts(root, &dir.join(&name), &relative, found, depth + 1)
            }
            EntryKind::File => {
                if let Some(sub) = relative.strip_suffix(".jsonl") {
                    found.push(sub.to_owned());
                }
            }
            EntryKind::Other => {}
        }
    }
}

/// A file's modification time in milliseconds since the epoch.
fn modified_millis(file: &std::fs::File) -> i64 {
    file.metadata()
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Appends to `<dir>/<path>`, opened beneath `dir` (a link never leads out of it).
fn append_private(dir: &Path, path: &Path, text: &str) -> Result<(), SessionError> {
    std::fs::create_dir_all(dir)?;
    let root = ConfigDir::open(dir)?;
    if let Some(parent) = path.parent() {
        root.create_dirs(parent)?;
    }
    root.append_or_create(path, text.as_bytes())
}

/// The entries of `<dir>/<path>` (a line that is not JSON is left out, with a warning).
fn load_lines(root: &ConfigDir, path: &Path) -> Result<Option<Vec<Value>>, StoreError> {
    let file = match root.open_read(path) {
        Ok(file) => file,
        Err(SessionError::Io(err)) if err.kind() == std::io::ErrorKind::NotFound => {
            return Ok(None)
        }
        Err(err) => return Err(err.into()),
    };
    let mut entries = Vec::new();
    for (number, line) in std::io::BufReader::new(file).split(b'\n').enumerate() {
        let line = line?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice(&line) {
            Ok(entry) => entries.push(entry),
            Err(err) => tracing::warn!(
                path = %path.display(),
                line = number + 1,
                %err,
                "a transcript line that is not JSON: left out"
            ),
        }
    }
    Ok(Some(entries))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn keys_that_escape_the_directory_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let store = DirectoryTranscriptStore::new(dir.path());
        let entry = || vec![serde_json::json!({"type": "user"})];
        assert!(store
            .append(SessionKey::main("..", "x"), entry())
            .await
            .is_err());
        let sneaky = SessionKey::main("p", "s").sub("../../x");
        assert!(store.append(sneaky.clone(), entry()).await.is_err());
        assert!(store.delete(sneaky).await.is_err());
        let good = SessionKey::main("p", "s");
        store.append(good.clone(), entry()).await.unwrap();
        assert_eq!(store.load(good).await.unwrap().unwrap().len(), 1);
        let sessions = store.list_sessions("p".into()).await.unwrap();
        assert_eq!(sessions.len(), 1);
        assert!(store
            .list_session_summaries("p".into())
            .await
            .unwrap_err()
            .is_unsupported());
    }
}
