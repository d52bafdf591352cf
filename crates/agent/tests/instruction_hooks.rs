//! Hook events of the session's instructions and failures, called on the host's callbacks over
//! real pipes: `InstructionsLoaded` for each memory file the session starts with (an import
//! with its parent), and `StopFailure` when a turn ends on an API error.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};

use serde_json::json;
use support::agent::{result, turn, World};
use twinwire::host::callbacks::{hook, HookMatcher};
use twinwire::protocol::hooks::{HookEvent, HookInput, HookOutput};
use twinwire::Client;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_files_and_an_api_failure_reach_their_hooks() {
    let world = World::new(json!({"rules": [
        {"when": {"last_user_text_contains": "fail now"},
         "reply": {"error": {"status": 500, "message": "boom"}}}
    ], "default": {"text": "ok"}}))
    .await;
    std::fs::write(world.path("CLAUDE.md"), "Project rules.\n@more.md\n").unwrap();
    std::fs::write(world.path("more.md"), "More rules.\n").unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let callback = hook(move |input, _cx| {
        let log = Arc::clone(&log);
        async move {
            let entry = match &input {
                HookInput::InstructionsLoaded(loaded) => format!(
                    "loaded {} {:?} {:?} {}",
                    std::path::Path::new(&loaded.file_path)
                        .file_name()
                        .unwrap()
                        .to_string_lossy(),
                    loaded.memory_type,
                    loaded.load_reason,
                    loaded.parent_file_path.is_some()
                ),
                HookInput::StopFailure(failure) => format!("failed {:?}", failure.error),
                other => format!("other {}", other.tag()),
            };
            log.lock().unwrap().push(entry);
            Ok(HookOutput::proceed())
        }
    });
    let options = world
        .options()
        .hook(
            HookEvent::InstructionsLoaded,
            HookMatcher::all(Arc::clone(&callback)),
        )
        .hook(HookEvent::StopFailure, HookMatcher::all(callback))
        .build()
        .unwrap();
    let client = Client::connect(options).await.unwrap();
    client.send("hello").await.unwrap();
    assert_eq!(result(&turn(&client).await).result.as_deref(), Some("ok"));
    client.send("fail now").await.unwrap();
    assert!(result(&turn(&client).await).is_error);
    client.close().await.unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "loaded CLAUDE.md Project SessionStart false",
            "loaded more.md Project Include true",
            "failed ServerError",
        ]
    );
}
