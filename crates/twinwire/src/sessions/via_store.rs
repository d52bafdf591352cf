//! The session functions through a [`TranscriptStore`] (the SDKs' `*_from_store` and
//! `*_via_store` functions, and `import_session_to_store`): list, info, messages, subagents,
//! rename, tag, delete and fork a session kept in a store, and import a session from the
//! config directory into one.
//!
//! Reading messages or forking writes the session from the store into a temporary directory
//! (as a resume does) and reads it with [`SavedSessions`]: the same reader, the same results
//! as for the CLI's own files. Every store call has a time limit
//! ([`StoreSessions::load_timeout`]).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::lines::{Line, Lines};
use super::mutate::clean_tag;
use super::restore::{restore, LOAD_TIMEOUT};
use super::store::{canonicalize, is_uuid, sanitize_path};
use super::stores::{
    fold_session_summary, summary_to_info, with_timeout, SessionKey, StoreError, StoreFuture,
    StoredSession, TranscriptStore,
};
use super::{
    fork::new_uuid, now_rfc3339, page, ForkOptions, MessagesOptions, SavedSessions, SessionInfo,
    SessionMessage,
};

/// Entries per append when importing, and the bytes of text that flush a batch sooner (as
/// the mirror batches).
const IMPORT_BATCH: usize = 500;
const IMPORT_BATCH_BYTES: usize = 1 << 20;

/// Sessions kept in a transcript store. Cheap to clone.
#[derive(Clone)]
pub struct StoreSessions {
    store: Arc<dyn TranscriptStore>,
    timeout: Duration,
}

impl std::fmt::Debug for StoreSessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreSessions")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// How [`StoreSessions::import`] imports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportOptions {
    /// The project directory to find the session in; `None`: every project.
    pub dir: Option<PathBuf>,
    /// Import its subagents' transcripts (and their `.meta.json`) too.
    pub include_subagents: bool,
    /// At most this many entries per append (0: the default, 500).
    pub batch_size: usize,
}

impl Default for ImportOptions {
    fn default() -> Self {
        Self {
            dir: None,
            include_subagents: true,
            batch_size: IMPORT_BATCH,
        }
    }
}

fn invalid(message: impl Into<String>) -> StoreError {
    StoreError::Backend(message.into())
}

fn checked_id(session_id: &str) -> Result<(), StoreError> {
    if is_uuid(session_id) {
        Ok(())
    } else {
        Err(invalid(format!(
            "invalid session id `{session_id}`: a session id is a UUID"
        )))
    }
}

/// The store's key of a project directory (the CLI's directory name for it).
pub fn project_key_for_directory(dir: &Path) -> String {
    sanitize_path(&canonicalize(dir))
}

impl StoreSessions {
    /// The sessions of `store`.
    pub fn new(store: Arc<dyn TranscriptStore>) -> Self {
        Self {
            store,
            timeout: LOAD_TIMEOUT,
        }
    }

    /// How long each store call may take (default 60 s).
    #[must_use]
    pub fn load_timeout(mut self, limit: Duration) -> Self {
        self.timeout = limit;
        self
    }

    async fn call<T>(&self, call: StoreFuture<T>, what: &str) -> Result<T, StoreError> {
        with_timeout(call, self.timeout, || {
            format!("the transcript store's {what}")
        })
        .await
    }

    /// The sessions of the project `dir`, newest first, `offset` skipped and at most `limit`
    /// (`None`: all). With summaries, one call; with only `list_sessions`, one load per
    /// session (and per summary older than its session). A store with neither fails with
    /// [`StoreError::Unsupported`].
    pub async fn list(
        &self,
        dir: &Path,
        limit: Option<usize>,
        offset: usize,
    ) -> Result<Vec<SessionInfo>, StoreError> {
        let project_key = project_key_for_directory(dir);
        let project_path = canonicalize(dir);
        let listed = self
            .call(
                self.store.list_sessions(project_key.clone()),
                "list_sessions",
            )
            .await;
        let summaries = self
            .call(
                self.store.list_session_summaries(project_key.clone()),
                "list_session_summaries",
            )
            .await;
        let mut infos = Vec::new();
        match (summaries, listed) {
            (Ok(summaries), listed) => {
                let listed = match listed {
                    Ok(listed) => Some(listed),
                    Err(StoreError::Unsupported(_)) => None,
                    Err(err) => return Err(err),
                };
                let mut fresh = std::collections::HashSet::new();
                for summary in &summaries {
                    let stale = listed.as_ref().is_some_and(|listed| {
                        listed
                            .iter()
                            .any(|s| s.session_id == summary.session_id && s.mtime > summary.mtime)
                    });
                    if !stale {
                        fresh.insert(summary.session_id.clone());
                        infos.extend(summary_to_info(summary, Some(&project_path)));
                    }
                }
                for session in listed.unwrap_or_default() {
                    if !fresh.contains(&session.session_id) {
                        infos.extend(self.info_of(&project_key, &session, &project_path).await?);
                    }
                }
            }
            (Err(StoreError::Unsupported(_)), Ok(listed)) => {
                for session in listed {
                    infos.extend(self.info_of(&project_key, &session, &project_path).await?);
                }
            }
            (Err(StoreError::Unsupported(_)), Err(err)) | (Err(err), _) => return Err(err),
        }
        infos.sort_by_key(|s| std::cmp::Reverse(s.last_modified));
        Ok(page(infos, offset, limit))
    }

    async fn info_of(
        &self,
        project_key: &str,
        session: &StoredSession,
        project_path: &str,
    ) -> Result<Option<SessionInfo>, StoreError> {
        let key = SessionKey::main(project_key, &session.session_id);
        let Some(entries) = self.call(self.store.load(key.clone()), "load").await? else {
            return Ok(None);
        };
        let mut summary = fold_session_summary(None, &key, &entries);
        summary.mtime = session.mtime;
        Ok(summary_to_info(&summary, Some(project_path)))
    }

    /// One session's summary; `None` when the store does not have it, it is a subagent's, or
    /// it has nothing to show. Its time is the store's (`list_sessions`) when the store says,
    /// else its last entry's.
    pub async fn info(
        &self,
        session_id: &str,
        dir: &Path,
    ) -> Result<Option<SessionInfo>, StoreError> {
        checked_id(session_id)?;
        let project_key = project_key_for_directory(dir);
        let key = SessionKey::main(&project_key, session_id);
        let Some(entries) = self.call(self.store.load(key.clone()), "load").await? else {
            return Ok(None);
        };
        let mut summary = fold_session_summary(None, &key, &entries);
        let listed = match self
            .call(self.store.list_sessions(project_key), "list_sessions")
            .await
        {
            Ok(listed) => listed.into_iter().find(|s| s.session_id == session_id),
            Err(StoreError::Unsupported(_)) => None,
            Err(err) => return Err(err),
        };
        summary.mtime = match listed {
            Some(session) => session.mtime,
            None => entries
                .iter()
                .rev()
                .find_map(|e| e["timestamp"].as_str().and_then(super::lite::epoch_millis))
                .unwrap_or(0),
        };
        Ok(summary_to_info(&summary, Some(&canonicalize(dir))))
    }

    /// Writes the session (and its subagents) from the store into a temporary directory, read
    /// there with [`SavedSessions`]; `None` when the store does not have it.
    async fn materialized(
        &self,
        session_id: &str,
        dir: &Path,
    ) -> Result<Option<(tempfile::TempDir, SavedSessions)>, StoreError> {
        checked_id(session_id)?;
        // No configuration directory to copy from: only the transcripts are needed.
        let restored = restore(self.store.as_ref(), session_id, dir, None, self.timeout).await?;
        Ok(restored.map(|temp| {
            let saved = SavedSessions::at(temp.path());
            (temp, saved)
        }))
    }

    /// The session's conversation (see [`SavedSessions::messages`]; `options.dir` is ignored:
    /// the project is `dir`). Empty when the store does not have the session.
    pub async fn messages(
        &self,
        session_id: &str,
        dir: &Path,
        options: &MessagesOptions,
    ) -> Result<Vec<SessionMessage>, StoreError> {
        let Some((temp, saved)) = self.materialized(session_id, dir).await? else {
            return Ok(Vec::new());
        };
        let options = MessagesOptions {
            dir: None,
            ..options.clone()
        };
        let id = session_id.to_owned();
        blocking(move || {
            let messages = saved.messages(&id, &options);
            drop(temp);
            Ok(messages)
        })
        .await
    }

    /// The ids of the session's subagents (from `list_subkeys`).
    pub async fn subagents(&self, session_id: &str, dir: &Path) -> Result<Vec<String>, StoreError> {
        checked_id(session_id)?;
        let key = SessionKey::main(project_key_for_directory(dir), session_id);
        let subkeys = self
            .call(self.store.list_subkeys(key), "list_subkeys")
            .await?;
        let mut ids: Vec<String> = subkeys
            .iter()
            .filter_map(|s| {
                s.rsplit('/')
                    .next()?
                    .strip_prefix("agent-")
                    .map(str::to_owned)
            })
            .collect();
        ids.sort();
        Ok(ids)
    }

    /// A subagent's conversation (see [`SavedSessions::subagent_messages`]).
    pub async fn subagent_messages(
        &self,
        session_id: &str,
        agent_id: &str,
        dir: &Path,
        options: &MessagesOptions,
    ) -> Result<Vec<SessionMessage>, StoreError> {
        let Some((temp, saved)) = self.materialized(session_id, dir).await? else {
            return Ok(Vec::new());
        };
        let options = MessagesOptions {
            dir: None,
            ..options.clone()
        };
        let (id, agent) = (session_id.to_owned(), agent_id.to_owned());
        blocking(move || {
            let messages = saved.subagent_messages(&id, &agent, &options);
            drop(temp);
            Ok(messages)
        })
        .await
    }

    /// Sets the session's title: appends a `custom-title` entry.
    pub async fn rename(
        &self,
        session_id: &str,
        title: &str,
        dir: &Path,
    ) -> Result<(), StoreError> {
        checked_id(session_id)?;
        let title = title.trim();
        if title.is_empty() {
            return Err(invalid("the title must not be empty"));
        }
        let entry = json!({
            "type": "custom-title",
            "customTitle": title,
            "sessionId": session_id,
            "uuid": new_uuid(),
            "timestamp": now_rfc3339(),
        });
        self.append_to(session_id, dir, entry).await
    }

    /// Sets the session's tag (`None` clears it): appends a `tag` entry, the tag cleaned of
    /// invisible and direction-control characters first.
    pub async fn tag(
        &self,
        session_id: &str,
        tag: Option<&str>,
        dir: &Path,
    ) -> Result<(), StoreError> {
        checked_id(session_id)?;
        let tag = match tag {
            Some(tag) => {
                let clean = clean_tag(tag);
                if clean.is_empty() {
                    return Err(invalid("the tag must not be empty (clear it with none)"));
                }
                clean
            }
            None => String::new(),
        };
        let entry = json!({
            "type": "tag",
            "tag": tag,
            "sessionId": session_id,
            "uuid": new_uuid(),
            "timestamp": now_rfc3339(),
        });
        self.append_to(session_id, dir, entry).await
    }

    async fn append_to(
        &self,
        session_id: &str,
        dir: &Path,
        entry: Value,
    ) -> Result<(), StoreError> {
        let key = SessionKey::main(project_key_for_directory(dir), session_id);
        self.call(self.store.append(key, vec![entry]), "append")
            .await
    }

    /// Deletes the session and its subagents' transcripts. A store without `delete` fails
    /// with [`StoreError::Unsupported`] (nothing is deleted).
    pub async fn delete(&self, session_id: &str, dir: &Path) -> Result<(), StoreError> {
        checked_id(session_id)?;
        let key = SessionKey::main(project_key_for_directory(dir), session_id);
        self.call(self.store.delete(key), "delete").await
    }

    /// Forks the session into a new one in the same store and project (see
    /// [`SavedSessions::fork`]; `options.dir` is ignored: the project is `dir`); returns the
    /// new id.
    pub async fn fork(
        &self,
        session_id: &str,
        dir: &Path,
        options: &ForkOptions,
    ) -> Result<String, StoreError> {
        let Some((temp, saved)) = self.materialized(session_id, dir).await? else {
            return Err(invalid(format!(
                "session {session_id} not found in the store"
            )));
        };
        let options = ForkOptions {
            dir: None,
            ..options.clone()
        };
        let id = session_id.to_owned();
        let (forked, entries) = blocking(move || {
            let forked = saved.fork(&id, &options)?;
            let path = saved
                .transcript_path(&forked, None)
                .ok_or_else(|| invalid("the fork was not written"))?;
            let mut entries = Vec::new();
            for_each_entry(&path, saved.limits().max_line_bytes, |entry, _| {
                entries.push(entry);
                Ok(())
            })?;
            drop(temp);
            Ok((forked, entries))
        })
        .await?;
        let key = SessionKey::main(project_key_for_directory(dir), &forked);
        self.call(self.store.append(key, entries), "append").await?;
        Ok(forked)
    }

    /// Copies a session from a configuration directory (`saved`) into the store, under the
    /// key the mirror would give it, in batches; with its subagents' transcripts and their
    /// `.meta.json` (as an `agent_metadata` entry) unless `options` says not. A line that is
    /// not JSON (or longer than `saved`'s line limit) stops the import with an error naming
    /// it. Stores that treat `uuid` as a key make a repeated import harmless.
    pub async fn import(
        &self,
        saved: &SavedSessions,
        session_id: &str,
        options: &ImportOptions,
    ) -> Result<(), StoreError> {
        checked_id(session_id)?;
        let path = saved
            .transcript_path(session_id, options.dir.as_deref())
            .ok_or_else(|| invalid(format!("session {session_id} not found")))?;
        let project_key = path
            .parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| invalid("the session is not in a project directory"))?;
        let key = SessionKey::main(project_key, session_id);
        let batch = if options.batch_size == 0 {
            IMPORT_BATCH
        } else {
            options.batch_size
        };
        let max_line = saved.limits().max_line_bytes;
        self.import_file(path.clone(), key.clone(), batch, max_line)
            .await?;
        if !options.include_subagents {
            return Ok(());
        }
        let saved_clone = saved.clone();
        let (id, dir) = (session_id.to_owned(), options.dir.clone());
        let agents = blocking(move || {
            let (_, files) = saved_clone.agent_files(&id, dir.as_deref())?;
            Ok(files)
        })
        .await?;
        let session_dir = path.with_extension("");
        for (_, relative) in agents {
            let file = saved.config_dir().join(&relative);
            let Some(subpath) = file
                .strip_prefix(&session_dir)
                .ok()
                .and_then(|p| p.to_str())
                .and_then(|p| p.strip_suffix(".jsonl"))
                .map(|p| p.replace('\\', "/"))
            else {
                continue;
            };
            let sub = key.sub(subpath);
            self.import_file(file.clone(), sub.clone(), batch, max_line)
                .await?;
            let meta = file.with_extension("meta.json");
            if let Ok(text) = std::fs::read_to_string(&meta) {
                if let Ok(Value::Object(mut fields)) = serde_json::from_str::<Value>(&text) {
                    fields.insert("type".into(), "agent_metadata".into());
                    self.call(
                        self.store.append(sub, vec![Value::Object(fields)]),
                        "append",
                    )
                    .await?;
                }
            }
        }
        Ok(())
    }

    /// Streams one transcript file into the store: a reading thread hands batches over a
    /// channel of two, so at most a few batches are in memory.
    async fn import_file(
        &self,
        path: PathBuf,
        key: SessionKey,
        batch: usize,
        max_line: usize,
    ) -> Result<(), StoreError> {
        let (tx, mut rx) = tokio::sync::mpsc::channel::<Vec<Value>>(2);
        let reader = tokio::task::spawn_blocking(move || {
            let mut pending = Vec::new();
            let mut bytes = 0;
            for_each_entry(&path, max_line, |entry, len| {
                pending.push(entry);
                bytes += len;
                if pending.len() >= batch || bytes >= IMPORT_BATCH_BYTES {
                    bytes = 0;
                    tx.blocking_send(std::mem::take(&mut pending))
                        .map_err(|_| invalid("the import stopped"))?;
                }
                Ok(())
            })?;
            if !pending.is_empty() {
                let _ = tx.blocking_send(pending);
            }
            Ok::<(), StoreError>(())
        });
        while let Some(entries) = rx.recv().await {
            self.call(self.store.append(key.clone(), entries), "append")
                .await?;
        }
        reader.await.map_err(StoreError::backend)?
    }
}

/// Each entry of the transcript at `path` (blank lines skipped), with its line's length; a
/// line that is not JSON or is too long is an error naming it.
fn for_each_entry(
    path: &Path,
    max_line: usize,
    mut each: impl FnMut(Value, usize) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let file = std::fs::File::open(path)?;
    let mut lines = Lines::new(file.take(u64::MAX), max_line);
    while let Some(line) = lines.next_line()? {
        match line {
            Line::TooLong(place) => {
                return Err(invalid(format!(
                    "{} line {}: longer than {max_line} bytes",
                    path.display(),
                    place.number
                )))
            }
            Line::Text(place, text) => {
                if text.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let entry = serde_json::from_slice(text).map_err(|err| {
                    invalid(format!("{} line {}: {err}", path.display(), place.number))
                })?;
                each(entry, text.len())?;
            }
        }
    }
    Ok(())
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(StoreError::backend)?
}
