//! The control calls of the newest CLIs: `set_permission_mode` answering with the mode in
//! effect, a permission mode pinned for one MCP server's tools
//! (`set_mcp_permission_mode_override`), and `initialize` sent again (`Client::reinitialize`)
//! while a permission request is waiting.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio::sync::{oneshot, Notify};
use twinwire::host::callbacks::{can_use_tool, PermissionRequest};
use twinwire::mcp::{SdkMcpServer, SdkTool, ToolOutput};
use twinwire::protocol::control::McpPermissionModeOverride;
use twinwire::protocol::permission::{PermissionMode, PermissionResult};

use crate::{kinds, script, the_result, tool_results, turn, within, Scenario};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoteArgs {
    /// The note.
    text: String,
}

/// A server `notes` with one tool, `keep`, counting its calls.
fn notes(calls: &Arc<AtomicUsize>) -> SdkMcpServer {
    let calls = Arc::clone(calls);
    SdkMcpServer::builder("notes")
        .tool(SdkTool::new(
            "keep",
            "Keeps a note",
            move |args: NoteArgs| {
                calls.fetch_add(1, Ordering::SeqCst);
                async move { Ok(ToolOutput::text(format!("kept: {}", args.text))) }
            },
        ))
        .build()
}

#[tokio::test]
async fn set_permission_mode_answers_the_mode_in_effect() {
    let s = Scenario::start(script(json!([]), json!({"text": "ok"}))).await;
    let client = s.connect(s.options()).await;
    for mode in [
        PermissionMode::Plan,
        PermissionMode::AcceptEdits,
        PermissionMode::Default,
    ] {
        let in_effect = within(client.set_permission_mode(mode.clone()))
            .await
            .unwrap_or_else(|err| panic!("{mode:?}: {err}\nstderr:\n{}", s.stderr()));
        assert_eq!(in_effect, Some(mode), "the answer names the mode in effect");
    }
    // The next turn runs in it.
    let items = turn(&client, "hello").await;
    assert!(!the_result(&items).is_error, "{}", kinds(&items));
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn an_mcp_permission_mode_override_makes_a_bypassing_session_ask() {
    let s = Scenario::start(script(
        json!([
            {"when": {"last_is_tool_result": true}, "reply": {"text": "noted"}},
            {"when": {"last_user_text_contains": "keep it"},
             "reply": {"tool_use": {"name": "mcp__notes__keep", "input": {"text": "milk"}}}}
        ]),
        json!({"text": "unexpected"}),
    ))
    .await;
    let calls = Arc::new(AtomicUsize::new(0));
    let asked = Arc::new(Mutex::new(Vec::<String>::new()));
    let log = Arc::clone(&asked);
    let callback = can_use_tool(move |request: PermissionRequest| {
        log.lock().unwrap().push(request.tool_name().to_owned());
        let result = PermissionResult::allow(request.input().clone());
        async move { Ok(result) }
    });
    let options = s
        .builder()
        .sdk_mcp_server(notes(&calls))
        .permission_mode(PermissionMode::BypassPermissions)
        .allow_dangerously_skip_permissions(true)
        // As root the CLI refuses to bypass permissions outside a sandbox it is told about.
        .env("IS_SANDBOX", "1")
        .can_use_tool(callback)
        .build()
        .unwrap();
    let client = s.connect(options).await;

    // Bypassing: the tool runs without a question.
    let items = turn(&client, "keep it").await;
    assert!(!the_result(&items).is_error, "{}", kinds(&items));
    assert_eq!(calls.load(Ordering::SeqCst), 1, "{}", tool_results(&items));
    assert!(asked.lock().unwrap().is_empty(), "{:?}", asked.lock());

    // Pinned to `default` for this server: the same call is asked about first.
    let answer = within(
        client.set_mcp_permission_mode_override("notes", Some(McpPermissionModeOverride::Default)),
    )
    .await
    .unwrap_or_else(|err| panic!("{err}\nstderr:\n{}", s.stderr()));
    assert_eq!(answer.warning, None, "notes is a known server: {answer:?}");
    let items = turn(&client, "keep it").await;
    assert!(!the_result(&items).is_error, "{}", kinds(&items));
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(*asked.lock().unwrap(), ["mcp__notes__keep"]);

    // Cleared: no question again.
    within(client.set_mcp_permission_mode_override("notes", None))
        .await
        .unwrap();
    let items = turn(&client, "keep it").await;
    assert!(!the_result(&items).is_error, "{}", kinds(&items));
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    assert_eq!(asked.lock().unwrap().len(), 1, "{:?}", asked.lock());

    // A name no server has: stored all the same, with a warning.
    let answer = within(
        client.set_mcp_permission_mode_override("nottes", Some(McpPermissionModeOverride::Auto)),
    )
    .await
    .unwrap();
    assert!(
        answer
            .warning
            .as_deref()
            .is_some_and(|w| w.contains("nottes")),
        "{answer:?}"
    );
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn reinitialize_lists_the_permission_request_still_waiting() {
    let s = Scenario::start(script(
        json!([
            {"when": {"last_is_tool_result": true}, "reply": {"text": "done"}},
            {"when": {"last_user_text_contains": "touch it"},
             "reply": {"tool_use": {"name": "Bash",
                                    "input": {"command": "touch waited.txt",
                                              "description": "Touch"}}}}
        ]),
        json!({"text": "unexpected"}),
    ))
    .await;
    // The permission callback holds its answer until the test has re-initialized.
    let asked = Arc::new(Notify::new());
    let (release, released) = oneshot::channel::<()>();
    let released = Arc::new(tokio::sync::Mutex::new(Some(released)));
    let notify = Arc::clone(&asked);
    let callback = can_use_tool(move |request: PermissionRequest| {
        let notify = Arc::clone(&notify);
        let released = Arc::clone(&released);
        async move {
            notify.notify_one();
            if let Some(released) = released.lock().await.take() {
                let _ = released.await;
            }
            Ok(PermissionResult::allow(request.input().clone()))
        }
    });
    let options = s.builder().can_use_tool(callback).build().unwrap();
    let client = s.connect(options).await;
    let first = client
        .initialize_response()
        .cloned()
        .expect("the first initialize was answered");
    within(client.send("touch it")).await.unwrap();
    within(asked.notified()).await;

    let again = within(client.reinitialize())
        .await
        .unwrap_or_else(|err| panic!("{err}\nstderr:\n{}", s.stderr()));
    let pending = &again.pending_permission_requests;
    assert_eq!(pending.len(), 1, "{again:?}");
    let request = serde_json::to_value(&pending[0]).unwrap();
    assert_eq!(request["request"]["subtype"], "can_use_tool", "{request}");
    assert_eq!(request["request"]["tool_name"], "Bash", "{request}");
    assert_eq!(
        request["request"]["input"]["command"], "touch waited.txt",
        "{request}"
    );
    // The same session answered: the same commands, the first answer kept.
    assert_eq!(again.response.commands.len(), first.commands.len());
    assert_eq!(client.initialize_response(), Some(&first));

    // Released, the waiting request is answered and the turn ends as usual.
    release.send(()).unwrap();
    let items = within(futures::StreamExt::collect::<Vec<_>>(
        client.receive_response(),
    ))
    .await;
    let result = the_result(&items);
    assert!(!result.is_error, "{result:?}\nstderr:\n{}", s.stderr());
    assert!(s.work().join("waited.txt").is_file(), "{}", kinds(&items));
    within(client.close()).await.unwrap();
}
