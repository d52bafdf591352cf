//! The agent inside the host's own process: twinwire's `Client` with the in-process launcher,
//! over in-memory pipes, no child process.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;
use support::agent::{result, turn, World};
use twinwire::host::callbacks::{can_use_tool, PermissionRequest};
use twinwire::protocol::permission::PermissionResult;
use twinwire::Client;

/// The children of this process, from `/proc`.
fn children() -> Vec<String> {
    let mut found = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let list = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        found.extend(list.split_whitespace().map(str::to_owned));
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_runs_in_the_hosts_process_with_its_callbacks() {
    let world = World::new(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": {"text": "made it"}},
        {"when": {"last_user_text_contains": "make"},
         "reply": {"tool_use": {"name": "Write", "input": {"file_path": "made.txt", "content": "in process"}}}}
    ], "default": {"echo": true}}))
    .await;
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = std::sync::Arc::clone(&asked);
    let callback = can_use_tool(move |request: PermissionRequest| {
        log.lock().unwrap().push(request.tool_name().to_owned());
        async move { Ok(PermissionResult::allow(request.input().clone())) }
    });
    let options = world
        .options()
        .launcher(twinwire_agent::in_process::launcher())
        .can_use_tool(callback)
        .build()
        .unwrap();
    let before = children();
    let client = Client::connect(options).await.unwrap();
    assert_eq!(client.pid(), None, "no process was started");
    client.send("hello").await.unwrap();
    assert_eq!(
        result(&turn(&client).await).result.as_deref(),
        Some("You said: hello")
    );
    assert_eq!(children(), before, "no child process");
    // Write outside acceptEdits asks the host, whose answer lets it run.
    client.send("make the file").await.unwrap();
    let frames = turn(&client).await;
    assert_eq!(result(&frames).result.as_deref(), Some("made it"));
    assert_eq!(*asked.lock().unwrap(), vec!["Write".to_owned()]);
    assert_eq!(
        std::fs::read_to_string(world.path("made.txt")).unwrap(),
        "in process"
    );
    client.close().await.unwrap();
    assert_eq!(world.sessions().len(), 1);
}
