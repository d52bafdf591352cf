//! Mirroring a session's transcript into a store of the host's (TS `sessionStore`, Python
//! `session_store`): with [`OptionsBuilder::transcript_store`](crate::host::options::OptionsBuilder),
//! the CLI runs with `--session-mirror` and writes every transcript entry it saves on disk as
//! a `transcript_mirror` frame too; the host batches them and appends them to the store, per
//! turn (at each result) or sooner when 500 entries or 1 MiB are waiting, and once more when
//! the session ends. A store that fails never fails the session (the CLI's own file is
//! durable): the batch is retried twice (a timed-out append is not retried), then dropped with
//! a warning and a `system/mirror_error` message in the session's stream ([`MirrorFailure`]).
//! With [`StoreFlush::Eager`] each frame is appended as it arrives.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;

pub use super::stores::{
    DirectoryTranscriptStore, InMemoryTranscriptStore, SessionKey, StoreError, TranscriptStore,
};

/// When the mirror writes what it has to the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum StoreFlush {
    /// At the end of each turn, or sooner when 500 entries or 1 MiB are waiting.
    #[default]
    Batched,
    /// As soon as each `transcript_mirror` frame arrives (more appends, less to lose).
    Eager,
}

/// How long one append may take before the batch is given up (not retried: the append may
/// still land, and a retry could write it twice).
pub const APPEND_TIMEOUT: Duration = Duration::from_secs(60);

/// A batch the mirror could not write: it is dropped, and the host is told (as a
/// `system/mirror_error` message in the session's stream).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MirrorFailure {
    /// The transcript the batch was for.
    pub key: SessionKey,
    /// The store's last error.
    pub error: String,
    /// How many entries were dropped.
    pub entries: usize,
}

/// How the mirror runs.
#[derive(Debug, Clone)]
pub(crate) struct MirrorConfig {
    pub(crate) flush: StoreFlush,
    pub(crate) append_timeout: Duration,
}

impl Default for MirrorConfig {
    fn default() -> Self {
        Self {
            flush: StoreFlush::Batched,
            append_timeout: APPEND_TIMEOUT,
        }
    }
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
/// (the session's output ended), then flushes what is left. A batch that cannot be written is
/// reported to `on_failure` and dropped.
pub(crate) async fn run(
    store: Arc<dyn TranscriptStore>,
    projects_dir: PathBuf,
    mut events: mpsc::UnboundedReceiver<MirrorEvent>,
    config: MirrorConfig,
    on_failure: OnFailure,
) {
    let (max_entries, max_bytes) = match config.flush {
        StoreFlush::Batched => (MAX_PENDING_ENTRIES, MAX_PENDING_BYTES),
        StoreFlush::Eager => (0, 0),
    };
    let writer = Writer {
        store,
        projects_dir,
        append_timeout: config.append_timeout,
        on_failure,
    };
    let mut pending: Vec<(String, Vec<Value>)> = Vec::new();
    let (mut count, mut bytes) = (0usize, 0usize);
    while let Some(event) = events.recv().await {
        match event {
            MirrorEvent::Entries { file_path, entries } => {
                count += entries.len();
                bytes += entries.iter().map(|e| e.to_string().len()).sum::<usize>();
                pending.push((file_path, entries));
                if count > max_entries || bytes > max_bytes {
                    writer.flush(std::mem::take(&mut pending)).await;
                    (count, bytes) = (0, 0);
                }
            }
            MirrorEvent::Flush => {
                writer.flush(std::mem::take(&mut pending)).await;
                (count, bytes) = (0, 0);
            }
        }
    }
    writer.flush(pending).await;
}

struct Writer {
    store: Arc<dyn TranscriptStore>,
    projects_dir: PathBuf,
    append_timeout: Duration,
    on_failure: OnFailure,
}

/// What the mirror does with a batch it had to drop (besides a warning).
pub(crate) type OnFailure = Box<dyn Fn(MirrorFailure) + Send + Sync>;

impl Writer {
    async fn flush(&self, batch: Vec<(String, Vec<Value>)>) {
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
            if entries.is_empty() {
                continue;
            }
            let Some(key) = SessionKey::for_path(Path::new(&path), &self.projects_dir) else {
                tracing::warn!(
                    path,
                    "transcript_mirror for a file outside the projects directory: not mirrored"
                );
                continue;
            };
            if let Err(error) = self.append(&key, &entries).await {
                tracing::warn!(
                    ?key,
                    %error,
                    entries = entries.len(),
                    "the transcript store failed: entries dropped"
                );
                (self.on_failure)(MirrorFailure {
                    key,
                    error: error.to_string(),
                    entries: entries.len(),
                });
            }
        }
    }

    /// Appends with retries (200 ms, then 800 ms apart, as the SDKs); a timeout is final.
    async fn append(&self, key: &SessionKey, entries: &[Value]) -> Result<(), StoreError> {
        let mut last_error = StoreError::Backend(String::new());
        for attempt in 0..ATTEMPTS {
            if attempt > 0 {
                tokio::time::sleep(BACKOFF[attempt - 1]).await;
            }
            let call = self.store.append(key.clone(), entries.to_vec());
            match super::stores::with_timeout(call, self.append_timeout, || {
                format!("appending to the transcript store ({key:?})")
            })
            .await
            {
                Ok(()) => return Ok(()),
                Err(err @ StoreError::TimedOut { .. }) => return Err(err),
                Err(err) => last_error = err,
            }
        }
        Err(last_error)
    }
}

const BACKOFF: [Duration; ATTEMPTS - 1] = [Duration::from_millis(200), Duration::from_millis(800)];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::stores::StoreFuture;

    fn entries(n: usize) -> Vec<Value> {
        (0..n)
            .map(|i| serde_json::json!({"type": "user", "n": i}))
            .collect()
    }

    fn frame(path: &str, n: usize) -> MirrorEvent {
        MirrorEvent::Entries {
            file_path: path.into(),
            entries: entries(n),
        }
    }

    #[tokio::test]
    async fn batches_reach_the_store_grouped_by_transcript() {
        let store = InMemoryTranscriptStore::new();
        let (tx, rx) = mpsc::unbounded_channel();
        let task = tokio::spawn(run(
            Arc::new(store.clone()),
            "/p".into(),
            rx,
            MirrorConfig::default(),
            Box::new(|_| {}),
        ));
        tx.send(frame("/p/k/s.jsonl", 2)).unwrap();
        tx.send(frame("/p/k/s/subagents/agent-a.jsonl", 1)).unwrap();
        tx.send(frame("/p/k/s.jsonl", 1)).unwrap();
        tx.send(MirrorEvent::Flush).unwrap();
        // More than 500 waiting entries flush without a result.
        tx.send(frame("/p/k/t.jsonl", 501)).unwrap();
        drop(tx);
        task.await.unwrap();
        let main = SessionKey::main("k", "s");
        assert_eq!(store.load(main).await.unwrap().unwrap().len(), 3);
        assert_eq!(store.keys().len(), 3);
    }

    #[tokio::test]
    async fn eager_flushing_writes_each_frame_before_the_turn_ends() {
        let store = InMemoryTranscriptStore::new();
        let (tx, rx) = mpsc::unbounded_channel();
        let config = MirrorConfig {
            flush: StoreFlush::Eager,
            ..MirrorConfig::default()
        };
        let task = tokio::spawn(run(
            Arc::new(store.clone()),
            "/p".into(),
            rx,
            config,
            Box::new(|_| {}),
        ));
        tx.send(frame("/p/k/s.jsonl", 1)).unwrap();
        let key = SessionKey::main("k", "s");
        // No result yet: the entry is in the store all the same (bounded wait).
        let mut stored = None;
        for _ in 0..500 {
            stored = store.load(key.clone()).await.unwrap();
            if stored.is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(stored.map(|e| e.len()), Some(1));
        drop(tx);
        task.await.unwrap();
    }

    /// A store whose appends fail (or never finish).
    struct Broken {
        hang: bool,
        calls: Arc<std::sync::atomic::AtomicUsize>,
    }

    impl TranscriptStore for Broken {
        fn append(&self, _key: SessionKey, _entries: Vec<Value>) -> StoreFuture<()> {
            self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let hang = self.hang;
            Box::pin(async move {
                if hang {
                    std::future::pending::<()>().await;
                }
                Err(StoreError::Backend("disk on fire".into()))
            })
        }
        fn load(&self, _key: SessionKey) -> StoreFuture<Option<Vec<Value>>> {
            Box::pin(async { Ok(None) })
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_batch_that_cannot_be_written_is_reported_after_three_attempts() {
        let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let store = Broken {
            hang: false,
            calls: Arc::clone(&calls),
        };
        let (tx, rx) = mpsc::unbounded_channel();
        let (failures_tx, mut failures) = mpsc::unbounded_channel();
        let task = tokio::spawn(run(
            Arc::new(store),
            "/p".into(),
            rx,
            MirrorConfig::default(),
            Box::new(move |failure| {
                let _ = failures_tx.send(failure);
            }),
        ));
        tx.send(frame("/p/k/s.jsonl", 2)).unwrap();
        drop(tx);
        task.await.unwrap();
        let failure = failures.recv().await.unwrap();
        assert_eq!(failure.key, SessionKey::main("k", "s"));
        assert_eq!(failure.error, "disk on fire");
        assert_eq!(failure.entries, 2);
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 3);
    }

    #[tokio::test(start_paused = true)]
    async fn an_append_that_hangs_is_given_up_once_without_a_retry() {
        let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let store = Broken {
            hang: true,
            calls: Arc::clone(&calls),
        };
        let (tx, rx) = mpsc::unbounded_channel();
        let (failures_tx, mut failures) = mpsc::unbounded_channel();
        let task = tokio::spawn(run(
            Arc::new(store),
            "/p".into(),
            rx,
            MirrorConfig::default(),
            Box::new(move |failure| {
                let _ = failures_tx.send(failure);
            }),
        ));
        tx.send(frame("/p/k/s.jsonl", 1)).unwrap();
        drop(tx);
        task.await.unwrap();
        let failure = failures.recv().await.unwrap();
        assert!(failure.error.contains("timed out"), "{}", failure.error);
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
    }
}
