//! A conformance suite for [`TranscriptStore`]s (Python `run_session_store_conformance`): any
//! store's author runs it from a test, and gets a report of each check.
//!
//! ```no_run
//! # async fn demo() {
//! use twinwire::sessions::store_conformance;
//! use twinwire::sessions::stores::InMemoryTranscriptStore;
//!
//! let report = store_conformance::run(|| async { InMemoryTranscriptStore::new() }).await;
//! report.assert_passed();
//! # }
//! ```
//!
//! `make_store` is called once per check for a fresh, empty store. The checks of an optional
//! method are skipped when the store answers [`StoreError::Unsupported`]. Each check has a time
//! limit ([`CHECK_TIMEOUT`]): a store that hangs fails it rather than the suite.

use std::future::Future;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{json, Value};

use super::stores::{fold_session_summary, SessionKey, StoreError, TranscriptStore};

/// How long one check may take.
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(60);

/// What the suite found, check by check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Every check, in the order run.
    pub checks: Vec<Check>,
}

/// One check and how it went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// What it checks, as a sentence in snake case.
    pub name: &'static str,
    /// How it went.
    pub outcome: Outcome,
}

/// How a check went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The store did what the check asks.
    Passed,
    /// It did not: why.
    Failed(String),
    /// The store does not support the optional method the check needs.
    Skipped(&'static str),
}

impl Report {
    /// Whether no check failed (skipped ones are not failures).
    pub fn passed(&self) -> bool {
        self.failures().next().is_none()
    }

    /// The checks that failed.
    pub fn failures(&self) -> impl Iterator<Item = &Check> {
        self.checks
            .iter()
            .filter(|c| matches!(c.outcome, Outcome::Failed(_)))
    }

    /// The names of the checks skipped.
    pub fn skipped(&self) -> Vec<&'static str> {
        self.checks
            .iter()
            .filter(|c| matches!(c.outcome, Outcome::Skipped(_)))
            .map(|c| c.name)
            .collect()
    }

    /// Panics with the report when a check failed (for tests).
    #[track_caller]
    pub fn assert_passed(&self) {
        assert!(self.passed(), "the store failed conformance:\n{self}");
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for check in &self.checks {
            match &check.outcome {
                Outcome::Passed => writeln!(f, "passed   {}", check.name)?,
                Outcome::Failed(why) => writeln!(f, "FAILED   {}: {why}", check.name)?,
                Outcome::Skipped(method) => writeln!(f, "skipped  {} (no `{method}`)", check.name)?,
            }
        }
        Ok(())
    }
}

/// Why a check did not pass.
enum Problem {
    Skip(&'static str),
    Fail(String),
}

impl From<StoreError> for Problem {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::Unsupported(method) => Problem::Skip(method),
            other => Problem::Fail(format!("the store failed: {other}")),
        }
    }
}

type Checked = Result<(), Problem>;

fn ensure(ok: bool, why: impl FnOnce() -> String) -> Checked {
    if ok {
        Ok(())
    } else {
        Err(Problem::Fail(why()))
    }
}

fn equal<T: PartialEq + std::fmt::Debug>(found: T, expected: T, what: &str) -> Checked {
    ensure(found == expected, || {
        format!("{what}: expected {expected:?}, found {found:?}")
    })
}

/// An optional method's answer within a check of another: `None` when unsupported.
fn optional<T>(result: Result<T, StoreError>) -> Result<Option<T>, Problem> {
    match result {
        Ok(value) => Ok(Some(value)),
        Err(StoreError::Unsupported(_)) => Ok(None),
        Err(err) => Err(err.into()),
    }
}

fn entry(fields: Value) -> Value {
    let mut entry = json!({"type": "x"});
    if let (Some(entry), Value::Object(fields)) = (entry.as_object_mut(), fields) {
        entry.extend(fields);
    }
    entry
}

fn key() -> SessionKey {
    SessionKey::main("proj", "sess")
}

type CheckFn = fn(Box<dyn TranscriptStore>) -> BoxFuture<'static, Checked>;

/// Runs every check on fresh stores from `make_store`.
pub async fn run<F, Fut, S>(mut make_store: F) -> Report
where
    F: FnMut() -> Fut,
    Fut: Future<Output = S>,
    S: TranscriptStore,
{
    let mut checks = Vec::new();
    for (name, check) in CHECKS {
        let store: Box<dyn TranscriptStore> = Box::new(make_store().await);
        let outcome = match tokio::time::timeout(CHECK_TIMEOUT, check(store)).await {
            Ok(Ok(())) => Outcome::Passed,
            Ok(Err(Problem::Skip(method))) => Outcome::Skipped(method),
            Ok(Err(Problem::Fail(why))) => Outcome::Failed(why),
            Err(_) => Outcome::Failed(format!("did not finish in {CHECK_TIMEOUT:?}")),
        };
        checks.push(Check { name, outcome });
    }
    Report { checks }
}

const CHECKS: [(&str, CheckFn); 17] = [
    ("append_then_load_gives_the_entries_in_order", |s| {
        Box::pin(append_then_load(s))
    }),
    ("load_of_an_unknown_key_is_none", |s| {
        Box::pin(unknown_key(s))
    }),
    ("appends_keep_their_call_order", |s| Box::pin(call_order(s))),
    ("an_empty_append_changes_nothing", |s| {
        Box::pin(empty_append(s))
    }),
    ("subpaths_are_kept_apart_from_the_main_transcript", |s| {
        Box::pin(subpaths_apart(s))
    }),
    ("projects_are_kept_apart", |s| Box::pin(projects_apart(s))),
    ("entries_come_back_equal_as_json", |s| {
        Box::pin(round_trip(s))
    }),
    ("a_large_batch_is_kept_whole_and_in_order", |s| {
        Box::pin(large_batch(s))
    }),
    (
        "concurrent_appends_to_different_keys_keep_each_order",
        |s| Box::pin(concurrent(s)),
    ),
    ("list_sessions_names_a_projects_sessions", |s| {
        Box::pin(list_sessions(s))
    }),
    ("list_sessions_leaves_out_subpaths", |s| {
        Box::pin(list_sessions_subpaths(s))
    }),
    ("summaries_fold_what_was_appended", |s| {
        Box::pin(summaries(s))
    }),
    ("delete_removes_a_session", |s| Box::pin(delete_main(s))),
    ("delete_of_a_session_removes_its_subkeys", |s| {
        Box::pin(delete_cascades(s))
    }),
    ("delete_of_a_subkey_removes_only_it", |s| {
        Box::pin(delete_subkey(s))
    }),
    ("list_subkeys_names_a_sessions_subpaths", |s| {
        Box::pin(list_subkeys(s))
    }),
    ("list_subkeys_leaves_out_the_main_transcript", |s| {
        Box::pin(list_subkeys_main(s))
    }),
];

async fn append_then_load(store: Box<dyn TranscriptStore>) -> Checked {
    let entries = vec![
        entry(json!({"uuid": "b", "n": 1})),
        entry(json!({"uuid": "a", "n": 2})),
    ];
    store.append(key(), entries.clone()).await?;
    equal(store.load(key()).await?, Some(entries), "load")
}

async fn unknown_key(store: Box<dyn TranscriptStore>) -> Checked {
    equal(
        store.load(SessionKey::main("proj", "nope")).await?,
        None,
        "an unknown session",
    )?;
    store.append(key(), vec![entry(json!({"n": 1}))]).await?;
    equal(
        store.load(key().sub("nope")).await?,
        None,
        "an unknown subpath",
    )
}

async fn call_order(store: Box<dyn TranscriptStore>) -> Checked {
    let e = |uuid: &str, n: i64| entry(json!({"uuid": uuid, "n": n}));
    store.append(key(), vec![e("z", 1)]).await?;
    store.append(key(), vec![e("a", 2), e("m", 3)]).await?;
    store.append(key(), vec![e("b", 4)]).await?;
    let expected = vec![e("z", 1), e("a", 2), e("m", 3), e("b", 4)];
    equal(store.load(key()).await?, Some(expected), "load")
}

async fn empty_append(store: Box<dyn TranscriptStore>) -> Checked {
    store.append(key(), vec![entry(json!({"n": 1}))]).await?;
    store.append(key(), Vec::new()).await?;
    equal(
        store.load(key()).await?,
        Some(vec![entry(json!({"n": 1}))]),
        "load",
    )
}

async fn subpaths_apart(store: Box<dyn TranscriptStore>) -> Checked {
    let sub = key().sub("subagents/agent-1");
    store
        .append(key(), vec![entry(json!({"uuid": "m"}))])
        .await?;
    store
        .append(sub.clone(), vec![entry(json!({"uuid": "s"}))])
        .await?;
    equal(
        store.load(key()).await?,
        Some(vec![entry(json!({"uuid": "m"}))]),
        "the main transcript",
    )?;
    equal(
        store.load(sub).await?,
        Some(vec![entry(json!({"uuid": "s"}))]),
        "the subpath",
    )
}

async fn projects_apart(store: Box<dyn TranscriptStore>) -> Checked {
    let (a, b) = (SessionKey::main("A", "s1"), SessionKey::main("B", "s1"));
    store
        .append(a.clone(), vec![entry(json!({"from": "A"}))])
        .await?;
    store
        .append(b.clone(), vec![entry(json!({"from": "B"}))])
        .await?;
    equal(
        store.load(a).await?,
        Some(vec![entry(json!({"from": "A"}))]),
        "project A",
    )?;
    equal(
        store.load(b).await?,
        Some(vec![entry(json!({"from": "B"}))]),
        "project B",
    )?;
    if let Some(listed) = optional(store.list_sessions("A".into()).await)? {
        equal(listed.len(), 1, "sessions listed in project A")?;
    }
    Ok(())
}

async fn round_trip(store: Box<dyn TranscriptStore>) -> Checked {
    let entries = vec![
        entry(json!({
            "uuid": "u1",
            "message": {"role": "user", "content": [{"type": "text", "text": "héllo ✓ 🦀 \"q\" \\ \n tab\t"}]},
            "numbers": [0, -1, 1.5, 1e300, 9007199254740993u64],
            "nothing": null,
            "flag": true,
            "nested": {"a": {"b": {"c": []}}}
        })),
        entry(json!({"uuid": "u2", "big": "x".repeat(256 * 1024)})),
    ];
    store.append(key(), entries.clone()).await?;
    equal(store.load(key()).await?, Some(entries), "load")
}

async fn large_batch(store: Box<dyn TranscriptStore>) -> Checked {
    let entries: Vec<Value> = (0..5000)
        .map(|n| entry(json!({"uuid": format!("u{n}"), "n": n, "pad": "p".repeat(200)})))
        .collect();
    store.append(key(), entries.clone()).await?;
    store
        .append(key(), vec![entry(json!({"n": "after"}))])
        .await?;
    let loaded = store.load(key()).await?.unwrap_or_default();
    equal(loaded.len(), 5001, "entries loaded")?;
    ensure(loaded[..5000] == entries[..], || {
        "the batch came back changed or out of order".into()
    })?;
    equal(
        &loaded[5000],
        &entry(json!({"n": "after"})),
        "the last entry",
    )
}

async fn concurrent(store: Box<dyn TranscriptStore>) -> Checked {
    const KEYS: usize = 16;
    const APPENDS: usize = 20;
    let store: std::sync::Arc<dyn TranscriptStore> = store.into();
    let writers = (0..KEYS).map(|k| {
        let store = std::sync::Arc::clone(&store);
        async move {
            let key = SessionKey::main("proj", format!("sess-{k}"));
            for n in 0..APPENDS {
                store
                    .append(key.clone(), vec![entry(json!({"n": n}))])
                    .await?;
            }
            Ok::<(), StoreError>(())
        }
    });
    for result in futures::future::join_all(writers).await {
        result?;
    }
    for k in 0..KEYS {
        let loaded = store
            .load(SessionKey::main("proj", format!("sess-{k}")))
            .await?;
        let expected: Vec<Value> = (0..APPENDS).map(|n| entry(json!({"n": n}))).collect();
        equal(loaded, Some(expected), &format!("session sess-{k}"))?;
    }
    Ok(())
}

async fn list_sessions(store: Box<dyn TranscriptStore>) -> Checked {
    for (project, session) in [("proj", "a"), ("proj", "b"), ("other", "c")] {
        store
            .append(
                SessionKey::main(project, session),
                vec![entry(json!({"n": 1}))],
            )
            .await?;
    }
    let listed = store.list_sessions("proj".into()).await?;
    let mut ids: Vec<&str> = listed.iter().map(|s| s.session_id.as_str()).collect();
    ids.sort_unstable();
    equal(ids, vec!["a", "b"], "sessions of proj")?;
    ensure(listed.iter().all(|s| s.mtime > 1_000_000_000_000), || {
        format!("mtime must be milliseconds since the epoch: {listed:?}")
    })?;
    equal(
        store.list_sessions("never-appended".into()).await?.len(),
        0,
        "sessions of an unknown project",
    )
}

async fn list_sessions_subpaths(store: Box<dyn TranscriptStore>) -> Checked {
    let main = SessionKey::main("proj", "main");
    store
        .append(main.clone(), vec![entry(json!({"n": 1}))])
        .await?;
    store
        .append(main.sub("subagents/agent-1"), vec![entry(json!({"n": 1}))])
        .await?;
    let listed = store.list_sessions("proj".into()).await?;
    let ids: Vec<&str> = listed.iter().map(|s| s.session_id.as_str()).collect();
    equal(ids, vec!["main"], "sessions of proj")
}

async fn summaries(store: Box<dyn TranscriptStore>) -> Checked {
    let key = SessionKey::main("proj", "summ-sess");
    let at = |s: u32| format!("2024-01-01T00:00:0{s}.000Z");
    store
        .append(
            key.clone(),
            vec![
                entry(json!({"timestamp": at(0), "customTitle": "first"})),
                entry(json!({"timestamp": at(1)})),
            ],
        )
        .await?;
    store
        .append(
            key.clone(),
            vec![entry(json!({"timestamp": at(2), "customTitle": "second"}))],
        )
        .await?;
    store
        .append(
            SessionKey::main("other", "elsewhere"),
            vec![entry(json!({"timestamp": at(0)}))],
        )
        .await?;
    let summaries = store.list_session_summaries("proj".into()).await?;
    let ids: Vec<&str> = summaries.iter().map(|s| s.session_id.as_str()).collect();
    equal(ids, vec!["summ-sess"], "summaries of proj")?;
    let summary = summaries[0].clone();
    ensure(summary.mtime > 1_000_000_000_000, || {
        format!(
            "mtime must be milliseconds since the epoch: {}",
            summary.mtime
        )
    })?;
    equal(
        summary.data.get("custom_title"),
        Some(&json!("second")),
        "the folded title",
    )?;
    // The summary's time shares the session's clock: never older than its listing.
    if let Some(listed) = optional(store.list_sessions("proj".into()).await)? {
        let session = listed.iter().find(|s| s.session_id == "summ-sess");
        ensure(session.is_some_and(|s| summary.mtime >= s.mtime), || {
            format!(
                "the summary ({}) is older than its session: {listed:?}",
                summary.mtime
            )
        })?;
    }
    let refolded =
        fold_session_summary(Some(&summary), &key, &[entry(json!({"timestamp": at(3)}))]);
    equal(
        refolded.mtime,
        summary.mtime,
        "the refolded summary's mtime",
    )?;
    // A subagent's entries do not change the session's summary.
    store
        .append(
            key.sub("subagents/agent-1"),
            vec![entry(
                json!({"timestamp": at(9), "customTitle": "subagent"}),
            )],
        )
        .await?;
    let after = store.list_session_summaries("proj".into()).await?;
    equal(
        after.first().map(|s| &s.data),
        Some(&summary.data),
        "the summary after a subagent's append",
    )?;
    equal(
        store
            .list_session_summaries("never-appended".into())
            .await?
            .len(),
        0,
        "summaries of an unknown project",
    )?;
    if optional(store.delete(key).await)?.is_some() {
        equal(
            store.list_session_summaries("proj".into()).await?.len(),
            0,
            "summaries after the session's delete",
        )?;
    }
    Ok(())
}

async fn delete_main(store: Box<dyn TranscriptStore>) -> Checked {
    store
        .delete(SessionKey::main("proj", "never-written"))
        .await?;
    store.append(key(), vec![entry(json!({"n": 1}))]).await?;
    store.delete(key()).await?;
    equal(store.load(key()).await?, None, "load after delete")
}

async fn delete_cascades(store: Box<dyn TranscriptStore>) -> Checked {
    let (sub1, sub2) = (
        key().sub("subagents/agent-1"),
        key().sub("subagents/agent-2"),
    );
    let other = SessionKey::main("proj", "sess2");
    let other_project = SessionKey::main("other-proj", "sess");
    for k in [&key(), &sub1, &sub2, &other, &other_project] {
        store
            .append(k.clone(), vec![entry(json!({"n": 1}))])
            .await?;
    }
    store.delete(key()).await?;
    for gone in [key(), sub1, sub2] {
        equal(store.load(gone.clone()).await?, None, &format!("{gone:?}"))?;
    }
    for kept in [other, other_project] {
        equal(
            store.load(kept.clone()).await?.map(|e| e.len()),
            Some(1),
            &format!("{kept:?}"),
        )?;
    }
    if let Some(subkeys) = optional(store.list_subkeys(key()).await)? {
        equal(subkeys.len(), 0, "subkeys after delete")?;
    }
    if let Some(listed) = optional(store.list_sessions("proj".into()).await)? {
        ensure(!listed.iter().any(|s| s.session_id == "sess"), || {
            format!("the deleted session is still listed: {listed:?}")
        })?;
    }
    Ok(())
}

async fn delete_subkey(store: Box<dyn TranscriptStore>) -> Checked {
    let (sub1, sub2) = (
        key().sub("subagents/agent-1"),
        key().sub("subagents/agent-2"),
    );
    for k in [&key(), &sub1, &sub2] {
        store
            .append(k.clone(), vec![entry(json!({"n": 1}))])
            .await?;
    }
    store.delete(sub1.clone()).await?;
    equal(store.load(sub1).await?, None, "the deleted subkey")?;
    equal(
        store.load(sub2).await?.map(|e| e.len()),
        Some(1),
        "the other subkey",
    )?;
    equal(
        store.load(key()).await?.map(|e| e.len()),
        Some(1),
        "the main transcript",
    )?;
    if let Some(subkeys) = optional(store.list_subkeys(key()).await)? {
        equal(subkeys, vec!["subagents/agent-2".to_owned()], "subkeys")?;
    }
    Ok(())
}

async fn list_subkeys(store: Box<dyn TranscriptStore>) -> Checked {
    store.append(key(), vec![entry(json!({"n": 1}))]).await?;
    for sub in ["subagents/agent-1", "subagents/workflows/run-1/agent-2"] {
        store
            .append(key().sub(sub), vec![entry(json!({"n": 1}))])
            .await?;
    }
    store
        .append(
            SessionKey::main("proj", "other-sess").sub("subagents/agent-x"),
            vec![entry(json!({"n": 1}))],
        )
        .await?;
    let mut subkeys = store.list_subkeys(key()).await?;
    subkeys.sort();
    equal(
        subkeys,
        vec![
            "subagents/agent-1".to_owned(),
            "subagents/workflows/run-1/agent-2".to_owned(),
        ],
        "subkeys",
    )
}

async fn list_subkeys_main(store: Box<dyn TranscriptStore>) -> Checked {
    store.append(key(), vec![entry(json!({"n": 1}))]).await?;
    equal(store.list_subkeys(key()).await?.len(), 0, "subkeys")?;
    equal(
        store
            .list_subkeys(SessionKey::main("proj", "never-appended"))
            .await?
            .len(),
        0,
        "subkeys of an unknown session",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::stores::{DirectoryTranscriptStore, InMemoryTranscriptStore, StoreFuture};

    #[tokio::test]
    async fn the_memory_store_passes_every_check() {
        let report = run(|| async { InMemoryTranscriptStore::new() }).await;
        report.assert_passed();
        assert_eq!(report.skipped(), Vec::<&str>::new());
    }

    #[tokio::test]
    async fn the_directory_store_passes_all_but_summaries() {
        let mut dirs = Vec::new();
        let report = run(|| {
            let dir = tempfile::tempdir().unwrap();
            let store = DirectoryTranscriptStore::new(dir.path().join("store"));
            dirs.push(dir);
            async move { store }
        })
        .await;
        report.assert_passed();
        assert_eq!(report.skipped(), vec!["summaries_fold_what_was_appended"]);
    }

    /// A store that loses the order of what it is given.
    #[derive(Default, Clone)]
    struct Shuffling(InMemoryTranscriptStore);

    impl TranscriptStore for Shuffling {
        fn append(&self, key: SessionKey, mut entries: Vec<Value>) -> StoreFuture<()> {
            entries.reverse();
            self.0.append(key, entries)
        }
        fn load(&self, key: SessionKey) -> StoreFuture<Option<Vec<Value>>> {
            self.0.load(key)
        }
        fn delete(&self, _key: SessionKey) -> StoreFuture<()> {
            // Deletes nothing, and says it did.
            Box::pin(async { Ok(()) })
        }
    }

    #[tokio::test]
    async fn a_store_that_breaks_the_contract_fails_the_checks_it_breaks() {
        let report = run(|| async { Shuffling::default() }).await;
        assert!(!report.passed());
        let failed: Vec<&str> = report.failures().map(|c| c.name).collect();
        assert!(
            failed.contains(&"append_then_load_gives_the_entries_in_order"),
            "{report}"
        );
        assert!(failed.contains(&"delete_removes_a_session"), "{report}");
        assert!(report
            .skipped()
            .contains(&"list_sessions_names_a_projects_sessions"));
    }
}
