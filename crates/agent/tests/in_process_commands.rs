//! In-process sessions with a cap on the Bash commands running at once: a command beyond it
//! waits for one to end. A file of its own: the cap is the whole process's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;
use support::agent::{result, turn, World};
use twinwire::host::callbacks::{can_use_tool, PermissionRequest};
use twinwire::protocol::permission::PermissionResult;
use twinwire::Client;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_beyond_the_cap_waits_for_the_running_one_to_end() {
    assert!(twinwire_agent::in_process::limit_commands(1));
    assert!(!twinwire_agent::in_process::limit_commands(5), "set once");
    let world = World::new(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": {"text": "done"}},
        {"when": {"last_user_text_contains": "FIRST"},
         "reply": {"tool_use": {"name": "Bash", "input": {"command": "touch first-started; sleep 2; touch first-done"}}}},
        {"when": {"last_user_text_contains": "SECOND"},
         "reply": {"tool_use": {"name": "Bash", "input": {"command": "echo first-done-seen:$(ls first-done 2>/dev/null | wc -l)"}}}}
    ], "default": {"echo": true}}))
    .await;
    let connect = || async {
        let options = world
            .options()
            .launcher(twinwire_agent::in_process::launcher())
            .can_use_tool(can_use_tool(|request: PermissionRequest| async move {
                Ok(PermissionResult::allow(request.input().clone()))
            }))
            .build()
            .unwrap();
        Client::connect(options).await.unwrap()
    };
    let (first, second) = (connect().await, connect().await);
    first.send("FIRST").await.unwrap();
    let started = world.path("first-started");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !started.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the first command never started"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    // The second command is asked for while the first runs (it sleeps 2 s): with one slot it
    // starts only once the first has ended.
    second.send("SECOND").await.unwrap();
    let (a, b) = tokio::join!(turn(&first), turn(&second));
    assert_eq!(result(&a).result.as_deref(), Some("done"));
    assert_eq!(result(&b).result.as_deref(), Some("done"));
    // The output, not the command (whose text the requests carry too): 1 when the first
    // command had ended before the second began.
    let requests: Vec<String> = world
        .model_requests()
        .iter()
        .map(|body| body.to_string())
        .collect();
    assert!(
        requests.iter().any(|b| b.contains("first-done-seen:1")),
        "the second command ran beside the first"
    );
    assert!(!requests.iter().any(|b| b.contains("first-done-seen:0")));
    first.close().await.unwrap();
    second.close().await.unwrap();
}
