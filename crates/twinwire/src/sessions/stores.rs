//! Where mirrored transcripts go: the [`TranscriptStore`] trait (TS `SessionStore`, Python
//! `SessionStore`), and three stores of ours: [`InMemoryTranscriptStore`],
//! [`DirectoryTranscriptStore`] and, in its own crate, `twinwire-store-sqlite`.
//!
//! A store keeps transcripts as lists of opaque JSON entries under a [`SessionKey`]. Only
//! [`append`](TranscriptStore::append) and [`load`](TranscriptStore::load) are required; the
//! other methods have defaults that answer [`StoreError::Unsupported`], never a silent empty
//! answer, and the callers say what they do without them (a listing through the store fails,
//! a resume restores no subagent transcripts, a delete fails). Check a store with
//! [`store_conformance::run`](super::store_conformance::run).
//!
//! No secrets at rest: the stores twinwire ships redact what they are given
//! ([`StoreRedaction`], on by default), and [`RedactingStore`] puts the same layer over any
//! other store.

mod directory;
mod memory;
mod redacting;
mod summary;

use std::path::Path;
use std::time::Duration;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use directory::DirectoryTranscriptStore;
pub use memory::InMemoryTranscriptStore;
pub use redacting::{RedactingStore, StoreRedaction};
pub use summary::{fold_session_summary, summary_to_info};

/// What a store's method returns: a future that owns what it needs (so a store can hand the
/// work to another task or thread).
pub type StoreFuture<T> = BoxFuture<'static, Result<T, StoreError>>;

/// Where one transcript goes in a store: the project directory's name, the session, and for a
/// subagent's transcript its path under the session (`subagents/agent-<id>`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SessionKey {
    /// The project's directory name under `projects/` (the sanitized working directory).
    pub project_key: String,
    /// The session id.
    pub session_id: String,
    /// A subagent transcript's path under the session directory, without `.jsonl`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subpath: Option<String>,
}

impl SessionKey {
    /// The key of a session's main transcript.
    pub fn main(project_key: impl Into<String>, session_id: impl Into<String>) -> Self {
        Self {
            project_key: project_key.into(),
            session_id: session_id.into(),
            subpath: None,
        }
    }

    /// The key of a transcript under the same session (`subpath`, e.g. `subagents/agent-1`).
    pub fn sub(&self, subpath: impl Into<String>) -> Self {
        Self {
            subpath: Some(subpath.into()),
            ..self.clone()
        }
    }

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

/// Whether a subpath from a store can name a file under a session directory: relative, no
/// empty, `.` or `..` part, no backslash, drive or NUL (a store is outside data).
pub fn is_safe_subpath(subpath: &str) -> bool {
    !subpath.is_empty()
        && !subpath.contains(['\\', '\0', ':'])
        && subpath
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..")
}

/// One session a store lists (`SessionStoreListEntry`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredSession {
    /// The session id.
    pub session_id: String,
    /// When the store last wrote its main transcript, in milliseconds since the epoch.
    pub mtime: i64,
}

/// A session's summary kept by a store as entries arrive (`SessionSummaryEntry`): what
/// [`fold_session_summary`] makes, persisted as it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionSummary {
    /// The session id.
    pub session_id: String,
    /// When the store wrote this summary, in milliseconds since the epoch, on the same clock
    /// as [`StoredSession::mtime`] (so a summary older than its session is seen as stale).
    pub mtime: i64,
    /// What the fold keeps; stores persist it without reading it.
    pub data: Map<String, Value>,
}

/// Why a store's method failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store does not implement this optional method.
    #[error("the transcript store does not support `{0}`")]
    Unsupported(&'static str),
    /// The method did not finish in time.
    #[error("{what} timed out after {after:?}")]
    TimedOut {
        /// Which call.
        what: String,
        /// The limit.
        after: Duration,
    },
    /// The store's own error.
    #[error("{0}")]
    Backend(String),
}

impl StoreError {
    /// A store's own error, from anything that can be shown.
    pub fn backend(err: impl std::fmt::Display) -> Self {
        Self::Backend(err.to_string())
    }

    /// Whether the store lacks the method (rather than failing at it).
    pub fn is_unsupported(&self) -> bool {
        matches!(self, Self::Unsupported(_))
    }
}

impl From<std::io::Error> for StoreError {
    fn from(err: std::io::Error) -> Self {
        Self::backend(err)
    }
}

impl From<super::SessionError> for StoreError {
    fn from(err: super::SessionError) -> Self {
        Self::backend(err)
    }
}

/// A store for transcripts: what the host's mirror appends to, what a resume restores from,
/// and what the session functions of [`StoreSessions`](super::StoreSessions) read and change.
///
/// Entries are opaque JSON objects, appended in order; a retried batch may repeat entries
/// (deduplicate by `uuid` if it matters). `load` returns entries equal as JSON to those
/// appended (key order may differ).
pub trait TranscriptStore: Send + Sync + 'static {
    /// Appends entries to one transcript, after those appended before (an empty batch changes
    /// nothing). A store that keeps summaries folds main transcripts' entries into them here.
    fn append(&self, key: SessionKey, entries: Vec<Value>) -> StoreFuture<()>;

    /// Every entry of one transcript, in order; `None` when nothing was ever appended to it.
    fn load(&self, key: SessionKey) -> StoreFuture<Option<Vec<Value>>>;

    /// The sessions (main transcripts only) of one project, in any order.
    fn list_sessions(&self, project_key: String) -> StoreFuture<Vec<StoredSession>> {
        let _ = project_key;
        unsupported("list_sessions")
    }

    /// The summaries of one project's sessions, kept up to date by `append` with
    /// [`fold_session_summary`]. Without it, listing through the store loads every session.
    fn list_session_summaries(&self, project_key: String) -> StoreFuture<Vec<SessionSummary>> {
        let _ = project_key;
        unsupported("list_session_summaries")
    }

    /// Deletes one transcript; for a main transcript (no subpath), its subkeys and summary
    /// too. Deleting what is not there is no error.
    fn delete(&self, key: SessionKey) -> StoreFuture<()> {
        let _ = key;
        unsupported("delete")
    }

    /// The subpaths under a session (its subagents' transcripts), in any order; the key's own
    /// subpath is ignored.
    fn list_subkeys(&self, key: SessionKey) -> StoreFuture<Vec<String>> {
        let _ = key;
        unsupported("list_subkeys")
    }
}

fn unsupported<T: Send + 'static>(method: &'static str) -> StoreFuture<T> {
    Box::pin(async move { Err(StoreError::Unsupported(method)) })
}

/// Runs a store's call with a time limit: a store that hangs gives [`StoreError::TimedOut`].
pub async fn with_timeout<T>(
    call: StoreFuture<T>,
    limit: Duration,
    what: impl FnOnce() -> String,
) -> Result<T, StoreError> {
    match tokio::time::timeout(limit, call).await {
        Ok(result) => result,
        Err(_) => Err(StoreError::TimedOut {
            what: what(),
            after: limit,
        }),
    }
}

/// The current time in milliseconds since the epoch, strictly increasing within the process
/// (two appends in one millisecond still get two times), for stores without a clock of their
/// own.
pub fn store_clock_millis() -> i64 {
    use std::sync::atomic::{AtomicI64, Ordering};
    static LAST: AtomicI64 = AtomicI64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0);
    let mut last = LAST.load(Ordering::Relaxed);
    loop {
        let next = now.max(last + 1);
        match LAST.compare_exchange_weak(last, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return next,
            Err(seen) => last = seen,
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
            Some(SessionKey::main("-w", "abc"))
        );
        assert_eq!(
            key("/h/.claude/projects/-w/abc/subagents/agent-1.jsonl"),
            Some(SessionKey::main("-w", "abc").sub("subagents/agent-1"))
        );
        assert_eq!(key("/elsewhere/x.jsonl"), None);
        assert_eq!(key("/h/.claude/projects/-w"), None);
    }

    #[test]
    fn subpaths_from_a_store_must_stay_under_the_session() {
        assert!(is_safe_subpath("subagents/agent-1"));
        assert!(is_safe_subpath("subagents/workflows/run-1/agent-2"));
        for bad in [
            "",
            "/abs",
            "../x",
            "a/../../x",
            "a//b",
            "a\\b",
            "C:x",
            "a/./b",
            "x\0",
        ] {
            assert!(!is_safe_subpath(bad), "{bad:?}");
        }
    }

    #[test]
    fn the_store_clock_never_repeats() {
        let times: Vec<i64> = (0..1000).map(|_| store_clock_millis()).collect();
        assert!(times.windows(2).all(|w| w[0] < w[1]));
        assert!(times[0] > 1_000_000_000_000);
    }
}
