//! In-process sessions sharing the process's limits on model calls: a cap on the calls in
//! flight (a slow API queues calls in the process, not as more connections) and one retry
//! budget (a rate-limited API is retried a bounded number of times in all). A file of its own:
//! both limits are the whole process's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;
use support::agent::{result, turn, World};
use twinwire::Client;
use twinwire_agent::model::shared::RetryBudget;

/// Sessions at once, the cap on their calls, and the process's retries in all.
const SESSIONS: usize = 8;
const CAP: usize = 2;
const RETRIES: usize = 3;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_beyond_the_cap_wait_and_retries_come_from_one_budget() {
    assert!(twinwire_agent::in_process::limit_model_calls(CAP));
    assert!(
        !twinwire_agent::in_process::limit_model_calls(100),
        "set once"
    );
    assert!(twinwire_agent::in_process::share_retry_budget(
        RetryBudget::new(RETRIES as u32, 0.0)
    ));

    // A slow API: each reply streams ten deltas 30 ms apart.
    let slow = World::new(json!({"rules": [], "default":
        {"slow_text": {"text": "one two three four five six seven eight nine ten",
                       "deltas": 10, "delay_ms": 30}}}))
    .await;
    let clients = connect_all(&slow, "0").await;
    let turns = clients.iter().map(|client| async move {
        client.send("hello").await.unwrap();
        turn(client).await
    });
    for frames in futures::future::join_all(turns).await {
        assert!(!result(&frames).is_error, "{:?}", result(&frames));
    }
    let server = slow.server.as_ref().unwrap();
    assert_eq!(server.message_requests().len(), SESSIONS);
    assert_eq!(
        server.max_in_flight(),
        CAP,
        "the calls in flight at once, with {SESSIONS} sessions asking together"
    );
    close_all(clients).await;

    // A rate-limited API: every call answered 429. Each session may retry ten times; the
    // process retries three times in all, then every call fails at once.
    let limited = World::new(json!({"rules": [],
        "default": {"error": {"status": 429, "message": "rate limited"}}}))
    .await;
    let clients = connect_all(&limited, "10").await;
    let turns = clients.iter().map(|client| async move {
        client.send("hello").await.unwrap();
        turn(client).await
    });
    for frames in futures::future::join_all(turns).await {
        assert!(result(&frames).is_error, "{:?}", result(&frames));
    }
    let asked = limited.server.as_ref().unwrap().message_requests().len();
    assert_eq!(
        asked,
        SESSIONS + RETRIES,
        "first calls and the budget's retries"
    );
    close_all(clients).await;
}

async fn connect_all(world: &World, max_retries: &str) -> Vec<Client> {
    let connects = (0..SESSIONS).map(|_| async {
        let options = world
            .options()
            .launcher(twinwire_agent::in_process::launcher())
            .env("CLAUDE_CODE_MAX_RETRIES", max_retries)
            .build()
            .unwrap();
        Client::connect(options).await.unwrap()
    });
    futures::future::join_all(connects).await
}

async fn close_all(clients: Vec<Client>) {
    for client in clients {
        client.close().await.unwrap();
    }
}
