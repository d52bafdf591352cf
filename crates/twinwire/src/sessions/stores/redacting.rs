//! No secrets at rest: [`RedactingStore`], a layer over any store that redacts every entry
//! before it reaches the store, and [`StoreRedaction`], the setting the stores twinwire ships
//! keep (on by default).

use std::sync::Arc;

use serde_json::Value;

use super::{SessionKey, SessionSummary, StoreFuture, StoredSession, TranscriptStore};
use crate::redact::Redactor;

/// Whether a store redacts what it is given, and with which rules. The stores twinwire ships
/// ([`InMemoryTranscriptStore`](super::InMemoryTranscriptStore),
/// [`DirectoryTranscriptStore`](super::DirectoryTranscriptStore) and
/// `twinwire-store-sqlite`'s) start with [`StoreRedaction::default`]: on, with the secrets of
/// the host's environment.
#[derive(Debug, Clone)]
pub struct StoreRedaction(Option<Arc<Redactor>>);

impl Default for StoreRedaction {
    /// On, with the values of the host's secret-named environment variables
    /// ([`Redactor::from_process_env`]) besides the rules every redactor has.
    fn default() -> Self {
        Self::with(Redactor::from_process_env())
    }
}

impl StoreRedaction {
    /// On, with `redactor`.
    pub fn with(redactor: Redactor) -> Self {
        Self(Some(Arc::new(redactor)))
    }

    /// Off: entries are kept exactly as given, secrets included.
    pub fn off() -> Self {
        Self(None)
    }

    /// Whether entries are redacted.
    pub fn is_on(&self) -> bool {
        self.0.is_some()
    }

    /// Redacts `entries` in place; returns how many secrets were replaced.
    pub fn apply(&self, entries: &mut [Value]) -> usize {
        match &self.0 {
            Some(redactor) => entries.iter_mut().map(|e| redactor.value(e)).sum(),
            None => 0,
        }
    }
}

/// A store whose entries are redacted before they reach `inner`: the secrets the redaction
/// suite knows (API keys and tokens, secret-named keys and headers, private keys, the values
/// of secret environment variables, in escaped and embedded JSON too) never reach it, through
/// the mirror, an import, a rename, a tag or a fork alike. Everything else passes through.
///
/// ```
/// use twinwire::redact::Redactor;
/// use twinwire::sessions::stores::{RedactingStore, StoreRedaction};
/// # #[derive(Clone)] struct MyStore;
/// # impl twinwire::sessions::stores::TranscriptStore for MyStore {
/// #     fn append(&self, _: twinwire::sessions::stores::SessionKey, _: Vec<serde_json::Value>)
/// #         -> twinwire::sessions::stores::StoreFuture<()> { Box::pin(async { Ok(()) }) }
/// #     fn load(&self, _: twinwire::sessions::stores::SessionKey)
/// #         -> twinwire::sessions::stores::StoreFuture<Option<Vec<serde_json::Value>>> {
/// #         Box::pin(async { Ok(None) }) }
/// # }
/// let store = RedactingStore::new(MyStore);
/// let stricter = RedactingStore::with(MyStore, StoreRedaction::with(Redactor::from_env([
///     ("DATABASE_PASSWORD", "correct-horse-battery"),
/// ])));
/// # let _ = (store, stricter);
/// ```
#[derive(Debug, Clone)]
pub struct RedactingStore<S> {
    inner: S,
    redaction: StoreRedaction,
}

impl<S: TranscriptStore> RedactingStore<S> {
    /// `inner` behind the default redaction (the host's environment's secrets too).
    pub fn new(inner: S) -> Self {
        Self::with(inner, StoreRedaction::default())
    }

    /// `inner` behind `redaction`.
    pub fn with(inner: S, redaction: StoreRedaction) -> Self {
        Self { inner, redaction }
    }

    /// The store behind.
    pub fn inner(&self) -> &S {
        &self.inner
    }
}

impl<S: TranscriptStore> TranscriptStore for RedactingStore<S> {
    fn append(&self, key: SessionKey, mut entries: Vec<Value>) -> StoreFuture<()> {
        let replaced = self.redaction.apply(&mut entries);
        if replaced > 0 {
            tracing::debug!(?key, replaced, "secrets redacted before the store");
        }
        self.inner.append(key, entries)
    }

    fn load(&self, key: SessionKey) -> StoreFuture<Option<Vec<Value>>> {
        self.inner.load(key)
    }

    fn list_sessions(&self, project_key: String) -> StoreFuture<Vec<StoredSession>> {
        self.inner.list_sessions(project_key)
    }

    fn list_session_summaries(&self, project_key: String) -> StoreFuture<Vec<SessionSummary>> {
        self.inner.list_session_summaries(project_key)
    }

    fn delete(&self, key: SessionKey) -> StoreFuture<()> {
        self.inner.delete(key)
    }

    fn list_subkeys(&self, key: SessionKey) -> StoreFuture<Vec<String>> {
        self.inner.list_subkeys(key)
    }
}

impl<S: TranscriptStore + ?Sized> TranscriptStore for Arc<S> {
    fn append(&self, key: SessionKey, entries: Vec<Value>) -> StoreFuture<()> {
        (**self).append(key, entries)
    }

    fn load(&self, key: SessionKey) -> StoreFuture<Option<Vec<Value>>> {
        (**self).load(key)
    }

    fn list_sessions(&self, project_key: String) -> StoreFuture<Vec<StoredSession>> {
        (**self).list_sessions(project_key)
    }

    fn list_session_summaries(&self, project_key: String) -> StoreFuture<Vec<SessionSummary>> {
        (**self).list_session_summaries(project_key)
    }

    fn delete(&self, key: SessionKey) -> StoreFuture<()> {
        (**self).delete(key)
    }

    fn list_subkeys(&self, key: SessionKey) -> StoreFuture<Vec<String>> {
        (**self).list_subkeys(key)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::sessions::stores::{DirectoryTranscriptStore, InMemoryTranscriptStore};

    const KEY: &str = "sk-ant-api03-Zx9wVu8tSr7qPo6nMl5kJi4hGf3eDc2bA1";

    fn entries() -> Vec<Value> {
        vec![
            json!({"type": "user", "uuid": "u1", "message": {"content": format!("my key {KEY}")}}),
            json!({"type": "assistant", "uuid": "u2", "message": {"content": [
                {"type": "tool_use", "id": "t", "name": "Bash",
                 "input": {"command": "curl -H 'Authorization: Bearer abcdefgh12345678'"}}]}}),
            json!({"type": "user", "uuid": "u3", "toolUseResult": {"password": "hunter2-x"}}),
        ]
    }

    fn key() -> SessionKey {
        SessionKey::main("-work", "s1")
    }

    #[tokio::test]
    async fn no_secret_reaches_a_store_behind_the_layer_or_a_shipped_store() {
        let plain = InMemoryTranscriptStore::new().redaction(StoreRedaction::off());
        let layered = RedactingStore::new(plain.clone());
        layered.append(key(), entries()).await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let shipped: Vec<Arc<dyn TranscriptStore>> = vec![
            Arc::new(InMemoryTranscriptStore::new()),
            Arc::new(DirectoryTranscriptStore::new(dir.path())),
        ];
        for store in &shipped {
            store.append(key(), entries()).await.unwrap();
        }
        for store in shipped
            .iter()
            .cloned()
            .chain([Arc::new(plain) as Arc<dyn TranscriptStore>])
        {
            let loaded = store.load(key()).await.unwrap().unwrap();
            let text = serde_json::to_string(&loaded).unwrap();
            for secret in [KEY, "abcdefgh12345678", "hunter2-x"] {
                assert!(!text.contains(secret), "{secret} in {text}");
            }
            // Everything else as it was: ids, kinds, the shape.
            assert_eq!(loaded.len(), 3);
            assert_eq!(loaded[1]["message"]["content"][0]["name"], "Bash");
            assert_eq!(loaded[2]["toolUseResult"]["password"], "<redacted 9 chars>");
        }
        // The summary is folded from what was kept.
        let summaries = shipped[0]
            .list_session_summaries("-work".into())
            .await
            .unwrap();
        assert!(!serde_json::to_string(&summaries).unwrap().contains(KEY));
        // On disk too.
        let file = std::fs::read_to_string(dir.path().join("projects/-work/s1.jsonl")).unwrap();
        assert!(!file.contains(KEY) && file.contains("<redacted "));
    }

    #[tokio::test]
    async fn a_store_with_redaction_off_keeps_what_it_is_given() {
        let store = InMemoryTranscriptStore::new().redaction(StoreRedaction::off());
        store.append(key(), entries()).await.unwrap();
        assert_eq!(store.load(key()).await.unwrap().unwrap(), entries());
        assert!(!StoreRedaction::off().is_on() && StoreRedaction::default().is_on());
    }
}
