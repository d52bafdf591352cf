//! Mirroring a session's transcript into a store of the host's (TS `sessionStore`, Python
//! `session_store`): with [`OptionsBuilder::transcript_store`](crate::host::options::OptionsBuilder),
//! the CLI runs with `--session-mirror` and writes every transcript entry it saves on disk as
//! a `transcript_mirror` frame too; the host batches them and appends them to the store, per
//! turn (at each result) or sooner when 500 entries or 1 MiB are waiting, and once more when
//! the session ends. A store that fails never fails the session (the CLI's own file is
//! durable): the batch is retried twice, then dropped with a warning.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde_json::Value;
use tokio::sync::mpsc;

use super::config_dir::{ConfigDir, PROJECTS};
use super::SessionError;

/// Where one transcript goes in a store: the project directory's name, the session, and for a
/// subagent's transcript its path under the session (`subagents/agent-<id>`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionKey {
    /// The project's directory name under `projects/` (the sanitized working directory).
    pub project_key: String,
    /// The session id.
    pub session_id: String,
    /// A subagent transcript's path under the session directory, without `.jsonl`.
    pub subpath: Option<String>,
}

impl SessionKey {
    /// The key of a transcript file the CLI names in a `transcript_mirror` frame:
    /// `<projects>/<project>/<session>.jsonl` or
    /// `<projects>/<project>/<session>/subagents/agent-<id>.jsonl`. `None` outside `projects`.
    pub fn for_path(file_path: &Path, projects_dir: &Path) -> Option<SessionKey> {
        let relative = file_path.strip_prefix(projects_dir).ok()?;
        let parts: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts.iter().any(|p| p == "..") {
            return None;
        }
        match parts.as_slice() {
            [project, file] => Some(SessionKey {
                project_key: project.clone(),
                session_id: file.strip_suffix(".jsonl")?.to_owned(),
                subpath: None,
            }),
            [project, session, rest @ ..] if rest.len() >= 2 => {
                let mut sub: Vec<String> = rest.to_vec();
                let last = sub.pop()?;
                sub.push(last.strip_suffix(".jsonl").unwrap_or(&last).to_owned());
                Some(SessionKey {
                    project_key: project.clone(),
                    session_id: session.clone(),
                    subpath: Some(sub.join("/")),
                })
            }
            _ => None,
        }
    }
}

/// A store for transcripts: what the host's mirror appends to. Entries are opaque JSON objects,
/// appended in order; a retried batch may repeat entries (deduplicate by `uuid` if it
/// matters).
pub trait TranscriptStore: Send + Sync + 'static {
    /// Appends entries to one transcript.
    fn append(
        &self,
        key: SessionKey,
        entries: Vec<Value>,
    ) -> BoxFuture<'static, Result<(), String>>;

    /// Every entry of one transcript, in order; `None` when the store has none.
    fn load(&self, key: SessionKey) -> BoxFuture<'static, Result<Option<Vec<Value>>, String>>;
}

/// A store in memory, for tests and short-lived hosts.
#[derive(Debug, Clone, Default)]
pub struct InMemoryTranscriptStore {
    transcripts: Arc<Mutex<HashMap<SessionKey, Vec<Value>>>>,
}

impl InMemoryTranscriptStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// The keys stored, sorted.
    pub fn keys(&self) -> Vec<SessionKey> {
        let mut keys: Vec<SessionKey> = self.locked().keys().cloned().collect();
        keys.sort();
        keys
    }

    fn locked(&self) -> std::sync::MutexGuard<'_, HashMap<SessionKey, Vec<Value>>> {
        self.transcripts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl TranscriptStore for InMemoryTranscriptStore {
    fn append(
        &self,
        key: SessionKey,
        entries: Vec<Value>,
    ) -> BoxFuture<'static, Result<(), String>> {
        self.locked().entry(key).or_default().extend(entries);
        Box::pin(async { Ok(()) })
    }

    fn load(&self, key: SessionKey) -> BoxFuture<'static, Result<Option<Vec<Value>>, String>> {
        let entries = self.locked().get(&key).cloned();
        Box::pin(async move { Ok(entries) })
    }
}

/// A store in a directory laid out like the CLI's config directory
/// (`<dir>/projects/<project>/<session>.jsonl`), so that
/// [`SavedSessions::at(dir)`](super::SavedSessions::at) and the official SDKs (with
/// `CLAUDE_CONFIG_DIR=<dir>`) read the mirrored sessions like local ones. Appends are one
/// `O_APPEND` write per batch; files are created `0600`.
#[derive(Debug, Clone)]
pub struct DirectoryTranscriptStore {
    dir: PathBuf,
}

impl DirectoryTranscriptStore {
    /// A store under `dir` (created as needed).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The file of `key`, relative to the store's directory.
    fn path(key: &SessionKey) -> Option<PathBuf> {
        let safe = |part: &str| {
            !part.is_empty() && !part.contains(['/', '\\']) && part != ".." && part != "."
        };
        if !safe(&key.project_key) || !safe(&key.session_id) {
            return None;
        }
        let project = Path::new(PROJECTS).join(&key.project_key);
        match &key.subpath {
            None => Some(project.join(format!("{}.jsonl", key.session_id))),
            Some(sub) => {
                if !sub.split('/').all(safe) {
                    return None;
                }
                Some(project.join(&key.session_id).join(format!("{sub}.jsonl")))
            }
        }
    }
}

impl TranscriptStore for DirectoryTranscriptStore {
    fn append(
        &self,
        key: SessionKey,
        entries: Vec<Value>,
    ) -> BoxFuture<'static, Result<(), String>> {
        let path = Self::path(&key);
        let dir = self.dir.clone();
        Box::pin(async move {
            let path = path.ok_or_else(|| format!("{key:?} does not name a file"))?;
            let text: String = entries.iter().map(|e| format!("{e}\n")).collect();
            tokio::task::spawn_blocking(move || append_private(&dir, &path, &text))
                .await
                .map_err(|e| e.to_string())?
                .map_err(|e| e.to_string())
        })
    }

    fn load(&self, key: SessionKey) -> BoxFuture<'static, Result<Option<Vec<Value>>, String>> {
        let path = Self::path(&key);
        let dir = self.dir.clone();
        Box::pin(async move {
            let Some(path) = path else { return Ok(None) };
            tokio::task::spawn_blocking(move || load_lines(&dir, &path))
                .await
                .map_err(|e| e.to_string())?
        })
    }
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

/// The entries of `<dir>/<path>` (a line that is not JSON is left out, the rest kept).
fn load_lines(dir: &Path, path: &Path) -> Result<Option<Vec<Value>>, String> {
    let root = match ConfigDir::open(dir) {
        Ok(root) => root,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err.to_string()),
    };
    let file = match root.open_read(path) {
        Ok(file) => file,
        Err(SessionError::Io(err)) if err.kind() == std::io::ErrorKind::NotFound => {
            return Ok(None)
        }
        Err(err) => return Err(err.to_string()),
    };
    let mut entries = Vec::new();
    for line in std::io::BufReader::new(file).split(b'\n') {
        let line = line.map_err(|e| e.to_string())?;
        if let Ok(entry) = serde_json::from_slice(&line) {
            entries.push(entry);
        }
    }
    Ok(Some(entries))
}

/// Batching thresholds, as the official SDKs.
const MAX_PENDING_ENTRIES: usize = 500;
const MAX_PENDING_BYTES: usize = 1 << 20;
const ATTEMPTS: usize = 3;

/// What the reader hands the mirror task.
pub(crate) enum MirrorEvent {
    /// A `transcript_mirror` frame.
    Entries {
        file_path: String,
        entries: Vec<Value>,
    },
    /// A turn ended: flush.
    Flush,
}

/// Runs the mirror: batches what arrives and appends it to `store`, until the channel closes
/// (the session's output ended), then flushes what is left.
pub(crate) async fn run(
    store: Arc<dyn TranscriptStore>,
    projects_dir: PathBuf,
    mut events: mpsc::UnboundedReceiver<MirrorEvent>,
) {
    let mut pending: Vec<(String, Vec<Value>)> = Vec::new();
    let (mut count, mut bytes) = (0usize, 0usize);
    while let Some(event) = events.recv().await {
        match event {
            MirrorEvent::Entries { file_path, entries } => {
                count += entries.len();
                bytes += entries.iter().map(|e| e.to_string().len()).sum::<usize>();
                pending.push((file_path, entries));
                if count > MAX_PENDING_ENTRIES || bytes > MAX_PENDING_BYTES {
                    flush(&store, &projects_dir, std::mem::take(&mut pending)).await;
                    (count, bytes) = (0, 0);
                }
            }
            MirrorEvent::Flush => {
                flush(&store, &projects_dir, std::mem::take(&mut pending)).await;
                (count, bytes) = (0, 0);
            }
        }
    }
    flush(&store, &projects_dir, pending).await;
}

async fn flush(
    store: &Arc<dyn TranscriptStore>,
    projects_dir: &Path,
    batch: Vec<(String, Vec<Value>)>,
) {
    // One append per transcript, in the order the transcripts first appeared.
    let mut order: Vec<String> = Vec::new();
    let mut by_path: HashMap<String, Vec<Value>> = HashMap::new();
    for (path, entries) in batch {
        if !by_path.contains_key(&path) {
            order.push(path.clone());
        }
        by_path.entry(path).or_default().extend(entries);
    }
    for path in order {
        let entries = by_path.remove(&path).unwrap_or_default();
        let Some(key) = SessionKey::for_path(Path::new(&path), projects_dir) else {
            tracing::warn!(
                path,
                "transcript_mirror for a file outside the projects directory: not mirrored"
            );
            continue;
        };
        let mut last_error = String::new();
        let mut stored = false;
        for attempt in 0..ATTEMPTS {
            match store.append(key.clone(), entries.clone()).await {
                Ok(()) => {
                    stored = true;
                    break;
                }
                Err(err) => last_error = err,
            }
            tokio::time::sleep(std::time::Duration::from_millis(200 * (attempt as u64 + 1))).await;
        }
        if !stored {
            tracing::warn!(
                ?key,
                error = last_error,
                entries = entries.len(),
                "the transcript store failed: entries dropped"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_of_transcript_paths() {
        let projects = Path::new("/h/.claude/projects");
        let key = |p: &str| SessionKey::for_path(Path::new(p), projects);
        assert_eq!(
            key("/h/.claude/projects/-w/abc.jsonl"),
            Some(SessionKey {
                project_key: "-w".into(),
                session_id: "abc".into(),
                subpath: None
            })
        );
        assert_eq!(
            key("/h/.claude/projects/-w/abc/subagents/agent-1.jsonl"),
            Some(SessionKey {
                project_key: "-w".into(),
                session_id: "abc".into(),
                subpath: Some("subagents/agent-1".into())
            })
        );
        assert_eq!(key("/elsewhere/x.jsonl"), None);
        assert_eq!(key("/h/.claude/projects/-w"), None);
    }

    #[tokio::test]
    async fn batches_reach_the_store_grouped_by_transcript() {
        let store = InMemoryTranscriptStore::new();
        let (tx, rx) = mpsc::unbounded_channel();
        let task = tokio::spawn(run(Arc::new(store.clone()), "/p".into(), rx));
        let entries = |n: usize| {
            (0..n)
                .map(|i| serde_json::json!({"type": "user", "n": i}))
                .collect::<Vec<_>>()
        };
        tx.send(MirrorEvent::Entries {
            file_path: "/p/k/s.jsonl".into(),
            entries: entries(2),
        })
        .unwrap();
        tx.send(MirrorEvent::Entries {
            file_path: "/p/k/s/subagents/agent-a.jsonl".into(),
            entries: entries(1),
        })
        .unwrap();
        tx.send(MirrorEvent::Entries {
            file_path: "/p/k/s.jsonl".into(),
            entries: entries(1),
        })
        .unwrap();
        tx.send(MirrorEvent::Flush).unwrap();
        // More than 500 waiting entries flush without a result.
        tx.send(MirrorEvent::Entries {
            file_path: "/p/k/t.jsonl".into(),
            entries: entries(501),
        })
        .unwrap();
        drop(tx);
        task.await.unwrap();
        let main = SessionKey {
            project_key: "k".into(),
            session_id: "s".into(),
            subpath: None,
        };
        assert_eq!(store.load(main).await.unwrap().unwrap().len(), 3);
        assert_eq!(store.keys().len(), 3);
    }

    #[tokio::test]
    async fn a_directory_store_refuses_keys_that_escape_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = DirectoryTranscriptStore::new(dir.path());
        let bad = SessionKey {
            project_key: "..".into(),
            session_id: "x".into(),
            subpath: None,
        };
        assert!(store.append(bad, vec![]).await.is_err());
        let sneaky = SessionKey {
            project_key: "p".into(),
            session_id: "s".into(),
            subpath: Some("../../x".into()),
        };
        assert!(store.append(sneaky, vec![]).await.is_err());
        let good = SessionKey {
            project_key: "p".into(),
            session_id: "s".into(),
            subpath: None,
        };
        store
            .append(good.clone(), vec![serde_json::json!({"type": "user"})])
            .await
            .unwrap();
        assert_eq!(store.load(good).await.unwrap().unwrap().len(), 1);
    }
}
