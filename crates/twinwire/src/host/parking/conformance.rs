//! A conformance suite for [`PendingStore`]s: any store's author runs it from a test.
//!
//! ```no_run
//! # async fn demo() {
//! use twinwire::host::parking::{conformance, DirectoryPendingStore};
//!
//! let root = std::env::temp_dir().join("pending-conformance");
//! let mut n = 0;
//! let report = conformance::run(|| {
//!     n += 1;
//!     let dir = root.join(n.to_string());
//!     async move { DirectoryPendingStore::new(dir) }
//! })
//! .await;
//! report.assert_passed();
//! # }
//! ```
//!
//! `make_store` is called once per check for a fresh, empty store; each check has a time limit
//! ([`CHECK_TIMEOUT`]).

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{json, Value};

use super::pending::{Asked, PendingRequest, PendingStore};
use crate::sessions::store_conformance::{Check, Outcome, Report, CHECK_TIMEOUT};

type CheckFn = fn(Arc<dyn PendingStore>) -> BoxFuture<'static, Result<(), String>>;

/// Runs every check, each on a fresh store from `make_store`.
pub async fn run<S, F, Fut>(mut make_store: F) -> Report
where
    S: PendingStore,
    F: FnMut() -> Fut,
    Fut: Future<Output = S>,
{
    let checks: [(&'static str, CheckFn); 7] = [
        ("a_parked_request_reads_back_waiting", |s| {
            Box::pin(parked_reads_back(s))
        }),
        ("requests_list_oldest_first", |s| {
            Box::pin(lists_oldest_first(s))
        }),
        ("an_answer_is_kept_with_its_request", |s| {
            Box::pin(answer_is_kept(s))
        }),
        ("the_first_answer_wins", |s| Box::pin(first_answer_wins(s))),
        ("of_many_answers_at_once_one_wins", |s| {
            Box::pin(one_of_many_wins(s))
        }),
        ("an_unknown_or_invalid_id_is_never_found", |s| {
            Box::pin(unknown_ids(s))
        }),
        ("a_removed_request_is_gone_and_cannot_be_answered", |s| {
            Box::pin(removed_is_gone(s))
        }),
    ];
    let mut report = Report { checks: Vec::new() };
    for (name, check) in checks {
        let store: Arc<dyn PendingStore> = Arc::new(make_store().await);
        let outcome = match tokio::time::timeout(CHECK_TIMEOUT, check(store)).await {
            Ok(Ok(())) => Outcome::Passed,
            Ok(Err(why)) => Outcome::Failed(why),
            Err(_) => Outcome::Failed(format!("timed out after {CHECK_TIMEOUT:?}")),
        };
        report.checks.push(Check { name, outcome });
    }
    report
}

fn request(n: u64) -> PendingRequest {
    let mut request = PendingRequest::new(
        Some("3f1c2f4e-8a7b-4c1d-9e2f-0a1b2c3d4e5f".into()),
        PathBuf::from("/work"),
        Asked::Permission {
            tool_name: "Bash".into(),
            input: json!({"command": format!("touch {n}")}),
            tool_use_id: Some(format!("toolu_{n}")),
            reason: None,
        },
    );
    request.parked_at_ms = 1_700_000_000_000 + n;
    request
}

fn err(what: &str) -> impl Fn(crate::sessions::stores::StoreError) -> String + '_ {
    move |e| format!("{what}: {e}")
}

fn allow() -> Value {
    json!({"behavior": "allow"})
}

async fn parked_reads_back(store: Arc<dyn PendingStore>) -> Result<(), String> {
    let parked = request(1);
    store.park(parked.clone()).await.map_err(err("park"))?;
    let got = store.get(parked.id.clone()).await.map_err(err("get"))?;
    if got.as_ref() != Some(&parked) {
        return Err(format!("parked {parked:?}, read {got:?}"));
    }
    if store.park(parked).await.is_ok() {
        return Err("a second park of the same id was taken".into());
    }
    Ok(())
}

async fn lists_oldest_first(store: Arc<dyn PendingStore>) -> Result<(), String> {
    let (a, b, c) = (request(1), request(2), request(3));
    for r in [&b, &c, &a] {
        store.park(r.clone()).await.map_err(err("park"))?;
    }
    let listed: Vec<String> = store
        .list()
        .await
        .map_err(err("list"))?
        .into_iter()
        .map(|r| r.id)
        .collect();
    if listed != [a.id, b.id, c.id] {
        return Err(format!("listed {listed:?}"));
    }
    Ok(())
}

async fn answer_is_kept(store: Arc<dyn PendingStore>) -> Result<(), String> {
    let parked = request(1);
    store.park(parked.clone()).await.map_err(err("park"))?;
    if !store
        .answer(parked.id.clone(), allow())
        .await
        .map_err(err("answer"))?
    {
        return Err("the answer to a waiting request was refused".into());
    }
    let got = store
        .get(parked.id.clone())
        .await
        .map_err(err("get"))?
        .ok_or("the answered request is gone")?;
    if got.answer != Some(allow()) || got.answered_at_ms.is_none() {
        return Err(format!("read {got:?}"));
    }
    let listed = store.list().await.map_err(err("list"))?;
    if listed.len() != 1 || listed[0].answer != Some(allow()) {
        return Err(format!("listed {listed:?}"));
    }
    Ok(())
}

async fn first_answer_wins(store: Arc<dyn PendingStore>) -> Result<(), String> {
    let parked = request(1);
    store.park(parked.clone()).await.map_err(err("park"))?;
    let deny = json!({"behavior": "deny", "message": "no"});
    store
        .answer(parked.id.clone(), deny.clone())
        .await
        .map_err(err("answer"))?;
    if store
        .answer(parked.id.clone(), allow())
        .await
        .map_err(err("answer"))?
    {
        return Err("a second answer was taken".into());
    }
    let got = store.get(parked.id).await.map_err(err("get"))?;
    if got.and_then(|r| r.answer) != Some(deny) {
        return Err("the second answer replaced the first".into());
    }
    Ok(())
}

async fn one_of_many_wins(store: Arc<dyn PendingStore>) -> Result<(), String> {
    let parked = request(1);
    store.park(parked.clone()).await.map_err(err("park"))?;
    let answers = (0..16).map(|n| {
        let store = Arc::clone(&store);
        let id = parked.id.clone();
        tokio::spawn(async move {
            store
                .answer(id, json!({"behavior": "deny", "message": n.to_string()}))
                .await
        })
    });
    let mut taken = 0;
    for answer in futures::future::join_all(answers).await {
        if answer.map_err(|e| e.to_string())?.map_err(err("answer"))? {
            taken += 1;
        }
    }
    if taken != 1 {
        return Err(format!("{taken} of 16 answers at once were taken"));
    }
    Ok(())
}

async fn unknown_ids(store: Arc<dyn PendingStore>) -> Result<(), String> {
    store.park(request(1)).await.map_err(err("park"))?;
    for id in ["no-such-request", "../escape", "", "a/b", &"x".repeat(200)] {
        if store.get(id.into()).await.map_err(err("get"))?.is_some() {
            return Err(format!("`{id}` was found"));
        }
        if store
            .answer(id.into(), allow())
            .await
            .map_err(err("answer"))?
        {
            return Err(format!("`{id}` took an answer"));
        }
        store.remove(id.into()).await.map_err(err("remove"))?;
    }
    if store.list().await.map_err(err("list"))?.len() != 1 {
        return Err("removing unknown ids removed something".into());
    }
    Ok(())
}

async fn removed_is_gone(store: Arc<dyn PendingStore>) -> Result<(), String> {
    let (kept, removed) = (request(1), request(2));
    store.park(kept.clone()).await.map_err(err("park"))?;
    store.park(removed.clone()).await.map_err(err("park"))?;
    store
        .answer(removed.id.clone(), allow())
        .await
        .map_err(err("answer"))?;
    store
        .remove(removed.id.clone())
        .await
        .map_err(err("remove"))?;
    store
        .remove(removed.id.clone())
        .await
        .map_err(err("remove again"))?;
    if store
        .get(removed.id.clone())
        .await
        .map_err(err("get"))?
        .is_some()
    {
        return Err("a removed request was found".into());
    }
    if store
        .answer(removed.id, allow())
        .await
        .map_err(err("answer"))?
    {
        return Err("a removed request took an answer".into());
    }
    let listed = store.list().await.map_err(err("list"))?;
    if listed.len() != 1 || listed[0].id != kept.id {
        return Err(format!("listed {listed:?}"));
    }
    Ok(())
}
