//! A [`TranscriptStore`] in one SQLite file, for twinwire hosts: sessions mirrored into it
//! (`Options::builder().transcript_store(...)`), resumed from it on a machine that has nothing
//! else, listed, read, renamed, forked and deleted through
//! [`StoreSessions`](twinwire::sessions::StoreSessions).
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use twinwire_store_sqlite::SqliteTranscriptStore;
//!
//! let store = SqliteTranscriptStore::open("sessions.db")?;
//! let options = twinwire::Options::builder()
//!     .transcript_store(Arc::new(store))
//!     .build()?;
//! # Ok(()) }
//! ```
//!
//! Every method: entries in append order (one row each), the session's write time, a summary
//! folded in the same transaction as the append ([`fold_session_summary`]), subkeys, and
//! deletes that take a session's subkeys and summary along. SQLite is compiled in; its calls
//! are blocking and run on tokio's blocking threads (`spawn_blocking`), one at a time on one
//! connection. The file is opened in WAL mode, so other processes can read it while it is
//! written.
//!
//! No secrets at rest: entries are redacted before they are written
//! ([`StoreRedaction::default`]: API keys and tokens, secret-named keys and headers, private
//! keys, the values of the host's secret environment variables, in escaped and embedded JSON
//! too), so none reaches the file, its write-ahead log or a journal; deleted rows are
//! overwritten with zeros (`secure_delete`). [`SqliteTranscriptStore::redaction`] changes it.

mod pending;

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::{params, Connection, OptionalExtension};
use serde_json::Value;
use twinwire::sessions::stores::{
    fold_session_summary, store_clock_millis, SessionKey, SessionSummary, StoreError, StoreFuture,
    StoreRedaction, StoredSession, TranscriptStore,
};

pub use pending::SqlitePendingStore;

/// Opens the file for use by several processes: WAL (readers in other processes do not wait
/// for a writer), and a busy file waited for (bounded) rather than failing at once.
fn open_shared(path: &Path) -> rusqlite::Result<Connection> {
    let connection = Connection::open(path)?;
    connection.pragma_update(None, "journal_mode", "WAL")?;
    connection.busy_timeout(std::time::Duration::from_secs(5))?;
    Ok(connection)
}

/// The layout's version (SQLite's `user_version`).
const SCHEMA_VERSION: i64 = 1;

/// The tables. `subpath` is `''` for a session's main transcript (a primary key cannot hold
/// NULL); `seq` keeps the order of entries across appends.
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS transcripts (
    project_key TEXT NOT NULL,
    session_id  TEXT NOT NULL,
    subpath     TEXT NOT NULL,
    mtime       INTEGER NOT NULL,
    PRIMARY KEY (project_key, session_id, subpath)
);
CREATE TABLE IF NOT EXISTS entries (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    project_key TEXT NOT NULL,
    session_id  TEXT NOT NULL,
    subpath     TEXT NOT NULL,
    entry       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_by_key ON entries (project_key, session_id, subpath, seq);
CREATE TABLE IF NOT EXISTS summaries (
    project_key TEXT NOT NULL,
    session_id  TEXT NOT NULL,
    mtime       INTEGER NOT NULL,
    data        TEXT NOT NULL,
    PRIMARY KEY (project_key, session_id)
);
";

/// A transcript store in a SQLite database. Clones share the connection.
#[derive(Clone)]
pub struct SqliteTranscriptStore {
    connection: Arc<Mutex<Connection>>,
    redaction: StoreRedaction,
}

impl std::fmt::Debug for SqliteTranscriptStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteTranscriptStore")
            .finish_non_exhaustive()
    }
}

impl SqliteTranscriptStore {
    /// Opens (or creates) the database at `path`, with the tables it needs.
    pub fn open(path: impl AsRef<Path>) -> rusqlite::Result<Self> {
        Self::with_connection(open_shared(path.as_ref())?)
    }

    /// A database in memory (lost when the store is dropped).
    pub fn in_memory() -> rusqlite::Result<Self> {
        Self::with_connection(Connection::open_in_memory()?)
    }

    fn with_connection(connection: Connection) -> rusqlite::Result<Self> {
        // A file written by a later layout is refused rather than misread.
        let version: i64 = connection.pragma_query_value(None, "user_version", |row| row.get(0))?;
        if version > SCHEMA_VERSION {
            return Err(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_MISMATCH),
                Some(format!(
                    "the database's layout is version {version}; this store reads up to {SCHEMA_VERSION}"
                )),
            ));
        }
        connection.execute_batch(SCHEMA)?;
        connection.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        // What is deleted is overwritten, not left in free pages.
        connection.pragma_update(None, "secure_delete", true)?;
        Ok(Self {
            connection: Arc::new(Mutex::new(connection)),
            redaction: StoreRedaction::default(),
        })
    }

    /// The same store with `redaction` for what is appended from now on
    /// ([`StoreRedaction::off`] keeps entries exactly as given, secrets included).
    pub fn redaction(mut self, redaction: StoreRedaction) -> Self {
        self.redaction = redaction;
        self
    }

    /// Runs `work` with the connection on a blocking thread.
    fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> StoreFuture<T> {
        let connection = Arc::clone(&self.connection);
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                let mut connection = connection.lock().unwrap_or_else(PoisonError::into_inner);
                work(&mut connection).map_err(StoreError::backend)
            })
            .await
            .map_err(StoreError::backend)?
        })
    }
}

/// The `subpath` column of a key: `''` for the main transcript. An empty subpath would name
/// the main transcript too, so it is refused.
fn subpath(key: &SessionKey) -> rusqlite::Result<String> {
    match key.subpath.as_deref() {
        Some("") => Err(rusqlite::Error::InvalidParameterName(
            "an empty subpath (the main transcript has none)".into(),
        )),
        other => Ok(other.unwrap_or_default().to_owned()),
    }
}

/// A stored text that is not JSON (the file was changed by hand) is a clear error, not a
/// silently shorter transcript.
fn parse(text: &str, what: &str) -> rusqlite::Result<Value> {
    serde_json::from_str(text).map_err(|err| {
        rusqlite::Error::FromSqlConversionFailure(
            0,
            rusqlite::types::Type::Text,
            format!("{what}: {err}").into(),
        )
    })
}

impl TranscriptStore for SqliteTranscriptStore {
    fn append(&self, key: SessionKey, mut entries: Vec<Value>) -> StoreFuture<()> {
        if entries.is_empty() {
            return Box::pin(async { Ok(()) });
        }
        let redaction = self.redaction.clone();
        self.blocking(move |connection| {
            // Here, on the blocking thread: redaction reads every string of the batch.
            redaction.apply(&mut entries);
            let sub = subpath(&key)?;
            // One transaction: the entries, the time and the summary change together.
            let tx = connection.transaction()?;
            let mtime = store_clock_millis();
            {
                let mut insert = tx.prepare_cached(
                    "INSERT INTO entries (project_key, session_id, subpath, entry)
                     VALUES (?1, ?2, ?3, ?4)",
                )?;
                for entry in &entries {
                    insert.execute(params![
                        key.project_key,
                        key.session_id,
                        sub,
                        entry.to_string()
                    ])?;
                }
            }
            tx.execute(
                "INSERT INTO transcripts (project_key, session_id, subpath, mtime)
                 VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (project_key, session_id, subpath) DO UPDATE SET mtime = ?4",
                params![key.project_key, key.session_id, sub, mtime],
            )?;
            if key.subpath.is_none() {
                let previous = tx
                    .query_row(
                        "SELECT mtime, data FROM summaries WHERE project_key = ?1 AND session_id = ?2",
                        params![key.project_key, key.session_id],
                        |row| Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?)),
                    )
                    .optional()?;
                let previous = match previous {
                    Some((mtime, data)) => Some(SessionSummary {
                        session_id: key.session_id.clone(),
                        mtime,
                        data: match parse(&data, "a stored summary")? {
                            Value::Object(data) => data,
                            _ => Default::default(),
                        },
                    }),
                    None => None,
                };
                let folded = fold_session_summary(previous.as_ref(), &key, &entries);
                tx.execute(
                    "INSERT INTO summaries (project_key, session_id, mtime, data)
                     VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (project_key, session_id) DO UPDATE SET mtime = ?3, data = ?4",
                    params![
                        key.project_key,
                        key.session_id,
                        mtime,
                        Value::Object(folded.data).to_string()
                    ],
                )?;
            }
            tx.commit()
        })
    }

    fn load(&self, key: SessionKey) -> StoreFuture<Option<Vec<Value>>> {
        self.blocking(move |connection| {
            let sub = subpath(&key)?;
            let known = connection
                .query_row(
                    "SELECT 1 FROM transcripts WHERE project_key = ?1 AND session_id = ?2 AND subpath = ?3",
                    params![key.project_key, key.session_id, sub],
                    |_| Ok(()),
                )
                .optional()?;
            if known.is_none() {
                return Ok(None);
            }
            let mut select = connection.prepare_cached(
                "SELECT entry FROM entries WHERE project_key = ?1 AND session_id = ?2 AND subpath = ?3
                 ORDER BY seq",
            )?;
            let rows = select.query_map(params![key.project_key, key.session_id, sub], |row| {
                row.get::<_, String>(0)
            })?;
            let mut entries = Vec::new();
            for text in rows {
                entries.push(parse(&text?, "a stored entry")?);
            }
            Ok(Some(entries))
        })
    }

    fn list_sessions(&self, project_key: String) -> StoreFuture<Vec<StoredSession>> {
        self.blocking(move |connection| {
            let mut select = connection.prepare_cached(
                "SELECT session_id, mtime FROM transcripts WHERE project_key = ?1 AND subpath = ''",
            )?;
            let rows = select.query_map(params![project_key], |row| {
                Ok(StoredSession {
                    session_id: row.get(0)?,
                    mtime: row.get(1)?,
                })
            })?;
            rows.collect()
        })
    }

    fn list_session_summaries(&self, project_key: String) -> StoreFuture<Vec<SessionSummary>> {
        self.blocking(move |connection| {
            let mut select = connection.prepare_cached(
                "SELECT session_id, mtime, data FROM summaries WHERE project_key = ?1",
            )?;
            let rows = select.query_map(params![project_key], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, String>(2)?,
                ))
            })?;
            let mut summaries = Vec::new();
            for row in rows {
                let (session_id, mtime, data) = row?;
                let Value::Object(data) = parse(&data, "a stored summary")? else {
                    continue;
                };
                summaries.push(SessionSummary {
                    session_id,
                    mtime,
                    data,
                });
            }
            Ok(summaries)
        })
    }

    fn delete(&self, key: SessionKey) -> StoreFuture<()> {
        self.blocking(move |connection| {
            let tx = connection.transaction()?;
            let (project, session) = (&key.project_key, &key.session_id);
            match &key.subpath {
                // The session, its subkeys and its summary.
                None => {
                    for table in ["entries", "transcripts", "summaries"] {
                        tx.execute(
                            &format!("DELETE FROM {table} WHERE project_key = ?1 AND session_id = ?2"),
                            params![project, session],
                        )?;
                    }
                }
                Some(_) => {
                    let sub = subpath(&key)?;
                    for table in ["entries", "transcripts"] {
                        tx.execute(
                            &format!(
                                "DELETE FROM {table} WHERE project_key = ?1 AND session_id = ?2 AND subpath = ?3"
                            ),
                            params![project, session, sub],
                        )?;
                    }
                }
            }
            tx.commit()
        })
    }

    fn list_subkeys(&self, key: SessionKey) -> StoreFuture<Vec<String>> {
        self.blocking(move |connection| {
            let mut select = connection.prepare_cached(
                "SELECT subpath FROM transcripts
                 WHERE project_key = ?1 AND session_id = ?2 AND subpath <> ''",
            )?;
            let rows = select.query_map(params![key.project_key, key.session_id], |row| {
                row.get::<_, String>(0)
            })?;
            rows.collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use twinwire::sessions::store_conformance;

    #[tokio::test]
    async fn an_in_memory_database_passes_every_check() {
        let report =
            store_conformance::run(|| async { SqliteTranscriptStore::in_memory().unwrap() }).await;
        report.assert_passed();
        assert_eq!(report.skipped(), Vec::<&str>::new());
    }

    #[tokio::test]
    async fn a_database_file_passes_every_check_and_keeps_what_it_holds() {
        let mut dirs = Vec::new();
        let report = store_conformance::run(|| {
            let dir = tempfile::tempdir().unwrap();
            let store = SqliteTranscriptStore::open(dir.path().join("s.db")).unwrap();
            dirs.push(dir);
            async move { store }
        })
        .await;
        report.assert_passed();

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let key = SessionKey::main("p", "s");
        let store = SqliteTranscriptStore::open(&path).unwrap();
        store
            .append(
                key.clone(),
                vec![serde_json::json!({"type": "user", "n": 1})],
            )
            .await
            .unwrap();
        drop(store);
        let reopened = SqliteTranscriptStore::open(&path).unwrap();
        assert_eq!(reopened.load(key).await.unwrap().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn an_empty_subpath_is_refused_rather_than_mixed_with_the_main_transcript() {
        let store = SqliteTranscriptStore::in_memory().unwrap();
        let key = SessionKey::main("p", "s");
        let entry = || vec![serde_json::json!({"type": "user"})];
        store.append(key.clone(), entry()).await.unwrap();
        assert!(store.append(key.sub(""), entry()).await.is_err());
        assert!(store.load(key.sub("")).await.is_err());
        assert!(store.delete(key.sub("")).await.is_err());
        assert_eq!(store.load(key).await.unwrap().unwrap().len(), 1);
    }

    #[test]
    fn a_database_of_a_later_layout_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        drop(SqliteTranscriptStore::open(&path).unwrap());
        Connection::open(&path)
            .unwrap()
            .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
        let err = SqliteTranscriptStore::open(&path).unwrap_err();
        assert!(err.to_string().contains("layout is version 2"), "{err}");
    }

    #[tokio::test]
    async fn a_stored_entry_that_is_not_json_is_an_error() {
        let store = SqliteTranscriptStore::in_memory().unwrap();
        let key = SessionKey::main("p", "s");
        store
            .append(key.clone(), vec![serde_json::json!({"type": "user"})])
            .await
            .unwrap();
        store
            .blocking(|c| c.execute("UPDATE entries SET entry = '{broken'", []))
            .await
            .unwrap();
        let err = store.load(key).await.unwrap_err();
        assert!(err.to_string().contains("a stored entry"), "{err}");
    }
}
