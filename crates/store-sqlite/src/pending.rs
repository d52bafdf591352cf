//! Parked requests in SQLite: durable approvals answered from any process that can open the
//! file.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::{params, Connection, OptionalExtension};
use serde_json::Value;
use twinwire::host::parking::{is_valid_id, PendingRequest, PendingStore};
use twinwire::sessions::stores::{store_clock_millis, StoreError, StoreFuture};

/// The table, beside the transcript store's in the same file or alone in its own.
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS pending (
    id          TEXT PRIMARY KEY,
    parked_at   INTEGER NOT NULL,
    request     TEXT NOT NULL,
    answer      TEXT,
    answered_at INTEGER
);
";

/// A [`PendingStore`] in a SQLite database: one row per parked request. An answer is taken by
/// one `UPDATE … WHERE answer IS NULL`, so of two answerers (in any processes) the first wins.
/// The file is opened in WAL mode with a busy timeout; calls run on tokio's blocking threads.
/// Clones share the connection.
#[derive(Clone)]
pub struct SqlitePendingStore {
    connection: Arc<Mutex<Connection>>,
}

impl std::fmt::Debug for SqlitePendingStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqlitePendingStore").finish_non_exhaustive()
    }
}

impl SqlitePendingStore {
    /// Opens (or creates) the database at `path` with its `pending` table (the transcript
    /// store's file may be the same).
    pub fn open(path: impl AsRef<Path>) -> rusqlite::Result<Self> {
        Self::with_connection(super::open_shared(path.as_ref())?)
    }

    /// A database in memory (lost when the store is dropped).
    pub fn in_memory() -> rusqlite::Result<Self> {
        Self::with_connection(Connection::open_in_memory()?)
    }

    fn with_connection(connection: Connection) -> rusqlite::Result<Self> {
        connection.execute_batch(SCHEMA)?;
        connection.pragma_update(None, "secure_delete", true)?;
        Ok(Self {
            connection: Arc::new(Mutex::new(connection)),
        })
    }

    fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    ) -> StoreFuture<T> {
        let connection = Arc::clone(&self.connection);
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                let mut connection = connection.lock().unwrap_or_else(PoisonError::into_inner);
                work(&mut connection)
            })
            .await
            .map_err(StoreError::backend)?
        })
    }
}

/// A row as a request: the request's JSON with its answer.
fn request_of(
    request: &str,
    answer: Option<String>,
    answered_at: Option<i64>,
) -> Result<PendingRequest, StoreError> {
    let mut request: PendingRequest = serde_json::from_str(request)
        .map_err(|err| StoreError::backend(format!("a parked request: {err}")))?;
    request.answer = answer
        .map(|answer| serde_json::from_str::<Value>(&answer))
        .transpose()
        .map_err(|err| StoreError::backend(format!("a parked request's answer: {err}")))?;
    request.answered_at_ms = answered_at.and_then(|at| u64::try_from(at).ok());
    Ok(request)
}

impl PendingStore for SqlitePendingStore {
    fn park(&self, request: PendingRequest) -> StoreFuture<()> {
        self.blocking(move |connection| {
            if !is_valid_id(&request.id) {
                return Err(StoreError::backend(format!(
                    "`{}` is not a valid id",
                    request.id
                )));
            }
            let mut waiting = request.clone();
            waiting.answer = None;
            waiting.answered_at_ms = None;
            let json = serde_json::to_string(&waiting).map_err(StoreError::backend)?;
            let parked_at = i64::try_from(request.parked_at_ms).unwrap_or(i64::MAX);
            connection
                .execute(
                    "INSERT INTO pending (id, parked_at, request) VALUES (?1, ?2, ?3)",
                    params![request.id, parked_at, json],
                )
                .map_err(StoreError::backend)?;
            Ok(())
        })
    }

    fn get(&self, id: String) -> StoreFuture<Option<PendingRequest>> {
        self.blocking(move |connection| {
            let row = connection
                .query_row(
                    "SELECT request, answer, answered_at FROM pending WHERE id = ?1",
                    params![id],
                    |row| Ok((row.get::<_, String>(0)?, row.get(1)?, row.get(2)?)),
                )
                .optional()
                .map_err(StoreError::backend)?;
            row.map(|(request, answer, at)| request_of(&request, answer, at))
                .transpose()
        })
    }

    fn list(&self) -> StoreFuture<Vec<PendingRequest>> {
        self.blocking(|connection| {
            let mut statement = connection
                .prepare("SELECT request, answer, answered_at FROM pending ORDER BY parked_at, id")
                .map_err(StoreError::backend)?;
            let rows = statement
                .query_map([], |row| {
                    Ok((row.get::<_, String>(0)?, row.get(1)?, row.get(2)?))
                })
                .map_err(StoreError::backend)?;
            let mut requests = Vec::new();
            for row in rows {
                let (request, answer, at) = row.map_err(StoreError::backend)?;
                requests.push(request_of(&request, answer, at)?);
            }
            Ok(requests)
        })
    }

    fn answer(&self, id: String, answer: Value) -> StoreFuture<bool> {
        self.blocking(move |connection| {
            let json = serde_json::to_string(&answer).map_err(StoreError::backend)?;
            let changed = connection
                .execute(
                    "UPDATE pending SET answer = ?2, answered_at = ?3 WHERE id = ?1 AND answer IS NULL",
                    params![id, json, store_clock_millis()],
                )
                .map_err(StoreError::backend)?;
            Ok(changed == 1)
        })
    }

    fn remove(&self, id: String) -> StoreFuture<()> {
        self.blocking(move |connection| {
            connection
                .execute("DELETE FROM pending WHERE id = ?1", params![id])
                .map_err(StoreError::backend)?;
            Ok(())
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_sqlite_store_passes_the_conformance_suite() {
        let report = twinwire::host::parking::conformance::run(|| async {
            SqlitePendingStore::in_memory().unwrap()
        })
        .await;
        report.assert_passed();
    }

    #[tokio::test]
    async fn two_connections_to_one_file_share_the_requests_and_one_answer_wins() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pending.db");
        let (host, answerer) = (
            SqlitePendingStore::open(&path).unwrap(),
            SqlitePendingStore::open(&path).unwrap(),
        );
        let request = PendingRequest::new(
            None,
            "/".into(),
            twinwire::host::parking::Asked::Permission {
                tool_name: "Bash".into(),
                input: serde_json::json!({"command": "touch x"}),
                tool_use_id: None,
                reason: None,
            },
        );
        host.park(request.clone()).await.unwrap();
        assert_eq!(answerer.list().await.unwrap(), vec![request.clone()]);
        assert!(answerer
            .answer(request.id.clone(), serde_json::json!({"behavior": "allow"}))
            .await
            .unwrap());
        assert!(!host
            .answer(
                request.id.clone(),
                serde_json::json!({"behavior": "deny", "message": "late"})
            )
            .await
            .unwrap());
        let got = host.get(request.id).await.unwrap().unwrap();
        assert_eq!(got.answer, Some(serde_json::json!({"behavior": "allow"})));
    }
}
