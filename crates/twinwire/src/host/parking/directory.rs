//! Parked requests as files in a directory: one for the request, one for its answer.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::pending::{is_valid_id, now_ms, PendingRequest, PendingStore};
use crate::host::reattach::create_private_dir;
use crate::sessions::stores::{StoreError, StoreFuture};

/// A [`PendingStore`] in a directory, for hosts and answerers on one machine (or sharing a
/// file system): `<id>.json` holds the request, `<id>.answer.json` its answer. Files are
/// written beside and renamed into place, `0600`, synced before they appear; an answer is put
/// in place only if none is there (a link that fails when the name exists), so the first of two
/// answerers wins, across processes.
#[derive(Debug, Clone)]
pub struct DirectoryPendingStore {
    dir: PathBuf,
}

impl DirectoryPendingStore {
    /// A store in `dir` (created, `0700`, when first written).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Path) -> Result<T, StoreError> + Send + 'static,
    ) -> StoreFuture<T> {
        let dir = self.dir.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || work(&dir))
                .await
                .map_err(StoreError::backend)?
        })
    }
}

fn request_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}.json"))
}

fn answer_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}.answer.json"))
}

/// Writes `value` into a new file beside `path` and moves it there: over what is there when
/// `replace`, else only if nothing is (`Ok(false)` when something was).
fn write_new(dir: &Path, path: &Path, value: &Value, replace: bool) -> Result<bool, StoreError> {
    create_private_dir(dir)?;
    let bytes = serde_json::to_vec_pretty(value).map_err(StoreError::backend)?;
    let mut temp = tempfile::Builder::new()
        .prefix(".pending-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    temp.write_all(&bytes)?;
    temp.as_file().sync_all()?;
    let placed = if replace {
        temp.persist(path).map(|_| ())
    } else {
        temp.persist_noclobber(path).map(|_| ())
    };
    match placed {
        Ok(()) => Ok(true),
        Err(err) if err.error.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(err) => Err(err.error.into()),
    }
}

fn read_json(path: &Path) -> Result<Option<Value>, StoreError> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|err| StoreError::backend(format!("{}: {err}", path.display()))),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(err.into()),
    }
}

fn read_request(dir: &Path, id: &str) -> Result<Option<PendingRequest>, StoreError> {
    if !is_valid_id(id) {
        return Ok(None);
    }
    let Some(value) = read_json(&request_path(dir, id))? else {
        return Ok(None);
    };
    let mut request: PendingRequest = serde_json::from_value(value)
        .map_err(|err| StoreError::backend(format!("the request {id}: {err}")))?;
    if let Some(answer) = read_json(&answer_path(dir, id))? {
        request.answered_at_ms = answer.get("at_ms").and_then(Value::as_u64);
        request.answer = answer.get("answer").cloned();
    }
    Ok(Some(request))
}

impl PendingStore for DirectoryPendingStore {
    fn park(&self, request: PendingRequest) -> StoreFuture<()> {
        self.run(move |dir| {
            if !is_valid_id(&request.id) {
                return Err(StoreError::backend(format!(
                    "`{}` is not a valid id",
                    request.id
                )));
            }
            let value = serde_json::to_value(&request).map_err(StoreError::backend)?;
            if write_new(dir, &request_path(dir, &request.id), &value, false)? {
                Ok(())
            } else {
                Err(StoreError::backend(format!(
                    "a request {} is there already",
                    request.id
                )))
            }
        })
    }

    fn get(&self, id: String) -> StoreFuture<Option<PendingRequest>> {
        self.run(move |dir| read_request(dir, &id))
    }

    fn list(&self) -> StoreFuture<Vec<PendingRequest>> {
        self.run(|dir| {
            let entries = match std::fs::read_dir(dir) {
                Ok(entries) => entries,
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
                Err(err) => return Err(err.into()),
            };
            let mut requests = Vec::new();
            for entry in entries {
                let name = entry?.file_name();
                let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
                    continue;
                };
                // A request removed between the listing and the read is passed over.
                if let Some(request) = read_request(dir, id)? {
                    requests.push(request);
                }
            }
            requests.sort_by(|a, b| (a.parked_at_ms, &a.id).cmp(&(b.parked_at_ms, &b.id)));
            Ok(requests)
        })
    }

    fn answer(&self, id: String, answer: Value) -> StoreFuture<bool> {
        self.run(move |dir| {
            if !is_valid_id(&id) || !request_path(dir, &id).is_file() {
                return Ok(false);
            }
            let value = serde_json::json!({"answer": answer, "at_ms": now_ms()});
            write_new(dir, &answer_path(dir, &id), &value, false)
        })
    }

    fn remove(&self, id: String) -> StoreFuture<()> {
        self.run(move |dir| {
            if !is_valid_id(&id) {
                return Ok(());
            }
            for path in [answer_path(dir, &id), request_path(dir, &id)] {
                match std::fs::remove_file(&path) {
                    Ok(()) => {}
                    Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                    Err(err) => return Err(err.into()),
                }
            }
            Ok(())
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_directory_store_passes_the_conformance_suite() {
        let root = tempfile::tempdir().unwrap();
        let mut n = 0;
        let report = super::super::conformance::run(|| {
            n += 1;
            let dir = root.path().join(n.to_string());
            async move { DirectoryPendingStore::new(dir) }
        })
        .await;
        report.assert_passed();
    }

    #[tokio::test]
    async fn what_is_not_a_request_is_passed_over_or_refused() {
        let root = tempfile::tempdir().unwrap();
        let store = DirectoryPendingStore::new(root.path());
        std::fs::write(root.path().join("notes.txt"), "hello").unwrap();
        std::fs::write(root.path().join("bad name.json"), "{}").unwrap();
        assert!(store.list().await.unwrap().is_empty());
        std::fs::write(root.path().join("broken.json"), "{").unwrap();
        assert!(
            store.list().await.is_err(),
            "a broken request is an error, not nothing"
        );
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn requests_and_answers_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("pending");
        let store = DirectoryPendingStore::new(&dir);
        let request = PendingRequest::new(
            None,
            "/".into(),
            super::super::Asked::Hook {
                event: "PreToolUse".into(),
                input: serde_json::json!({}),
                tool_use_id: None,
            },
        );
        store.park(request.clone()).await.unwrap();
        assert!(store
            .answer(request.id.clone(), serde_json::json!({}))
            .await
            .unwrap());
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&request_path(&dir, &request.id)), 0o600);
        assert_eq!(mode(&answer_path(&dir, &request.id)), 0o600);
    }
}
