//! A store in memory, with every method: for tests, short-lived hosts, and as the model of
//! what a store does.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde_json::Value;

use super::{
    fold_session_summary, store_clock_millis, SessionKey, SessionSummary, StoreFuture,
    StoreRedaction, StoredSession, TranscriptStore,
};

/// A store in memory (lost when the process ends). Clones share the same transcripts. Entries
/// are redacted as they are appended ([`StoreRedaction::default`]; see
/// [`InMemoryTranscriptStore::redaction`]).
#[derive(Debug, Clone, Default)]
pub struct InMemoryTranscriptStore {
    state: Arc<Mutex<State>>,
    redaction: StoreRedaction,
}

#[derive(Debug, Default)]
struct State {
    /// Ordered by key, so a session's subkeys follow it.
    transcripts: BTreeMap<SessionKey, Transcript>,
    summaries: HashMap<(String, String), SessionSummary>,
}

#[derive(Debug, Default)]
struct Transcript {
    entries: Vec<Value>,
    mtime: i64,
}

impl InMemoryTranscriptStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same store with `redaction` (e.g. [`StoreRedaction::off`]) for what is appended from
    /// now on.
    pub fn redaction(mut self, redaction: StoreRedaction) -> Self {
        self.redaction = redaction;
        self
    }

    /// The keys stored, sorted.
    pub fn keys(&self) -> Vec<SessionKey> {
        self.locked().transcripts.keys().cloned().collect()
    }

    fn locked(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl TranscriptStore for InMemoryTranscriptStore {
    fn append(&self, key: SessionKey, mut entries: Vec<Value>) -> StoreFuture<()> {
        self.redaction.apply(&mut entries);
        if !entries.is_empty() {
            let mut state = self.locked();
            let mtime = store_clock_millis();
            if key.subpath.is_none() {
                let id = (key.project_key.clone(), key.session_id.clone());
                let mut folded = fold_session_summary(state.summaries.get(&id), &key, &entries);
                folded.mtime = mtime;
                state.summaries.insert(id, folded);
            }
            let transcript = state.transcripts.entry(key).or_default();
            transcript.entries.extend(entries);
            transcript.mtime = mtime;
        }
        Box::pin(async { Ok(()) })
    }

    fn load(&self, key: SessionKey) -> StoreFuture<Option<Vec<Value>>> {
        let entries = self
            .locked()
            .transcripts
            .get(&key)
            .map(|t| t.entries.clone());
        Box::pin(async move { Ok(entries) })
    }

    fn list_sessions(&self, project_key: String) -> StoreFuture<Vec<StoredSession>> {
        let sessions = self
            .locked()
            .transcripts
            .iter()
            .filter(|(key, _)| key.project_key == project_key && key.subpath.is_none())
            .map(|(key, t)| StoredSession {
                session_id: key.session_id.clone(),
                mtime: t.mtime,
            })
            .collect();
        Box::pin(async move { Ok(sessions) })
    }

    fn list_session_summaries(&self, project_key: String) -> StoreFuture<Vec<SessionSummary>> {
        let summaries = self
            .locked()
            .summaries
            .iter()
            .filter(|((project, _), _)| *project == project_key)
            .map(|(_, summary)| summary.clone())
            .collect();
        Box::pin(async move { Ok(summaries) })
    }

    fn delete(&self, key: SessionKey) -> StoreFuture<()> {
        let mut state = self.locked();
        if key.subpath.is_none() {
            state
                .summaries
                .remove(&(key.project_key.clone(), key.session_id.clone()));
            state
                .transcripts
                .retain(|k, _| k.project_key != key.project_key || k.session_id != key.session_id);
        } else {
            state.transcripts.remove(&key);
        }
        Box::pin(async { Ok(()) })
    }

    fn list_subkeys(&self, key: SessionKey) -> StoreFuture<Vec<String>> {
        let subkeys = self
            .locked()
            .transcripts
            .keys()
            .filter(|k| k.project_key == key.project_key && k.session_id == key.session_id)
            .filter_map(|k| k.subpath.clone())
            .collect();
        Box::pin(async move { Ok(subkeys) })
    }
}
