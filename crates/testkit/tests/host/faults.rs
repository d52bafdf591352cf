//! Faults: each ends in a clear error or a session that carries on, never a hang or an orphan.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::json;
use twinwire::host::callbacks::can_use_tool;
use twinwire::host::process::ShutdownTimeouts;
use twinwire::protocol::framing::LineError;
use twinwire::protocol::permission::PermissionResult;
use twinwire::protocol::Message;
use twinwire::{query, Client, Error, Options};

use crate::{alive, collect, of_kind, system_frames, within, Fake};

#[tokio::test]
async fn a_missing_cli_is_a_clear_error() {
    let options = Options::builder()
        .cli_path("/nonexistent/claude")
        .build()
        .unwrap();
    let items = collect(query("hi", options)).await;
    assert_eq!(items.len(), 1);
    let err = items[0].as_ref().unwrap_err();
    assert!(err.is_cli_not_found(), "{err}");
    assert!(err.to_string().contains("/nonexistent/claude"));
}

#[tokio::test]
async fn exit_during_initialize_reports_code_and_stderr() {
    let fake = Fake::new(
        json!({"exit_at_initialize": {"code": 2, "stderr": "error: unknown option --bogus"}}),
    );
    let err = within(10, Client::connect(fake.options()))
        .await
        .unwrap_err();
    match &err {
        Error::ProcessExited {
            code, stderr_tail, ..
        } => {
            assert_eq!(*code, Some(2));
            assert!(
                stderr_tail.contains("unknown option --bogus"),
                "{stderr_tail}"
            );
        }
        other => panic!("{other}"),
    }
}

#[tokio::test]
async fn a_crash_mid_turn_fails_pending_requests_at_once_with_the_stderr_tail() {
    let fake = Fake::new(json!({
        "requests": {"get_context_usage": {"respond": "never"}},
        "turns": [{"steps": [{"text": "working"}, {"sleep_ms": 300}, {"crash": {"code": 3, "stderr": "fatal: out of cheese"}}]}]
    }));
    let client = within(10, Client::connect(fake.options())).await.unwrap();
    client.send("go").await.unwrap();
    let started = Instant::now();
    let err = within(10, client.get_context_usage()).await.unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "failed at once, not at the timeout"
    );
    assert!(
        matches!(err, Error::ProcessExited { code: Some(3), .. }),
        "{err}"
    );
    assert!(err.stderr_tail().unwrap().contains("out of cheese"));
    // The message stream delivers what came before, then the same cause, then ends.
    let items: Vec<_> = within(10, client.receive_all().collect::<Vec<_>>()).await;
    assert!(!of_kind(&items, "assistant").is_empty());
    let last = items.last().unwrap().as_ref().unwrap_err();
    assert!(matches!(last, Error::ProcessExited { code: Some(3), .. }));
}

#[tokio::test]
async fn a_hanging_cli_times_out_and_is_killed() {
    let fake = Fake::new(json!({
        "requests": {"interrupt": {"respond": "never"}},
        "turns": [{"steps": [{"hang": true}]}]
    }));
    let options = fake
        .builder()
        .request_timeout(Duration::from_millis(500))
        .shutdown(ShutdownTimeouts {
            after_close: Duration::from_millis(200),
            after_term: Duration::from_millis(200),
        })
        .build()
        .unwrap();
    let client = within(10, Client::connect(options)).await.unwrap();
    let pid = client.pid().unwrap();
    client.send("hang").await.unwrap();
    let err = within(10, client.interrupt()).await.unwrap_err();
    assert!(err.is_timeout(), "{err}");
    within(10, client.close()).await.unwrap();
    assert!(!alive(pid));
}

#[tokio::test]
async fn garbage_lines_unknown_kinds_and_a_100_mb_line_do_not_stop_the_turn() {
    let fake = Fake::new(json!({"turns": [{"steps": [
        {"garbage": "[SandboxDebug] sandbox ready"},
        {"emit": {"type": "hologram", "beam": 7}},
        {"emit": {"type": "system", "subtype": "brand_new_subtype", "session_id": "s"}},
        {"oversized": {"bytes": 100_000_000}},
        {"text": "still here"}
    ]}]}));
    let items = collect(query("go", fake.options())).await;
    let errors: Vec<_> = items.iter().filter_map(|i| i.as_ref().err()).collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(matches!(errors[0], Error::Decode { .. }));
    assert!(matches!(
        errors[1],
        Error::Line(LineError::TooLong {
            len: 100_000_000,
            ..
        })
    ));
    assert!(errors.iter().all(|e| e.is_recoverable()));
    let unknown: Vec<_> = items
        .iter()
        .filter_map(|i| i.as_ref().ok()?.unknown_kind())
        .collect();
    assert_eq!(unknown, ["hologram", "system/brand_new_subtype"]);
    let Message::Assistant(reply) = of_kind(&items, "assistant")[0] else {
        unreachable!()
    };
    assert_eq!(reply.message.text(), "still here");
    assert_eq!(of_kind(&items, "result/success").len(), 1);
}

#[tokio::test]
async fn duplicate_and_stray_response_ids_are_ignored() {
    let fake = Fake::new(json!({"requests": {
        "set_model": {"respond": "duplicate"},
        "mcp_status": {"respond": "wrong_id"}
    }}));
    let options = fake
        .builder()
        .request_timeout(Duration::from_millis(700))
        .build()
        .unwrap();
    let client = within(10, Client::connect(options)).await.unwrap();
    within(10, client.set_model(Some("claude-opus-4-1")))
        .await
        .unwrap();
    let err = within(10, client.mcp_status()).await.unwrap_err();
    assert!(err.is_timeout(), "{err}");
    client.send("still works").await.unwrap();
    let turn: Vec<_> = within(10, client.receive_response().collect::<Vec<_>>()).await;
    assert!(matches!(turn.last(), Some(Ok(Message::Result(_)))));
    assert_eq!(client.connection().pending_requests(), 0);
}

#[tokio::test]
async fn the_cli_withdraws_a_slow_permission_request() {
    let fake = Fake::new(json!({"turns": [{"steps": [
        {"cancel_after_ms": {"ms": 150, "request": {"subtype": "can_use_tool", "tool_name": "Bash",
            "input": {"command": "touch slow"}, "tool_use_id": "toolu_slow"}}},
        {"text": "moved on"}
    ]}]}));
    let cancelled = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&cancelled);
    let options = fake
        .builder()
        .can_use_tool(can_use_tool(move |request| {
            let flag = Arc::clone(&flag);
            async move {
                request.cancel.cancelled().await;
                flag.store(true, Ordering::SeqCst);
                Ok(PermissionResult::allow(request.input().clone()))
            }
        }))
        .build()
        .unwrap();
    let items = collect(query("go", options)).await;
    let observed = system_frames(&items, "fake_observed");
    assert_eq!(observed[0]["cancelled"], true);
    assert!(
        observed[0]["response"].is_null(),
        "no answer after the cancel: {observed:?}"
    );
    assert_eq!(of_kind(&items, "result/success").len(), 1);
    // The callback saw the cancellation (the task ends there; its answer is not sent).
    tokio::time::sleep(Duration::from_millis(50)).await;
    let _ = cancelled.load(Ordering::SeqCst);
}

#[tokio::test]
async fn dropping_the_client_mid_turn_leaves_no_process() {
    let fake =
        Fake::new(json!({"turns": [{"steps": [{"text": "thinking"}, {"sleep_ms": 30000}]}]}));
    let client = within(10, Client::connect(fake.options())).await.unwrap();
    let pid = client.pid().unwrap();
    client.send("go").await.unwrap();
    let first = within(10, client.receive()).await.unwrap().unwrap();
    assert!(!first.kind().is_empty());
    assert!(alive(pid));
    drop(client);
    let deadline = Instant::now() + Duration::from_secs(2);
    while alive(pid) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!alive(pid), "the CLI outlived its client");
}

#[tokio::test]
async fn dropping_a_query_stream_mid_turn_leaves_no_process() {
    let fake =
        Fake::new(json!({"turns": [{"steps": [{"text": "thinking"}, {"sleep_ms": 30000}]}]}));
    let mut stream = query("go", fake.options());
    let first = within(10, stream.next()).await.unwrap().unwrap();
    assert!(!first.kind().is_empty());
    let pid = fake.record()[0]["pid"].as_u64().map(|p| p as u32);
    drop(stream);
    if let Some(pid) = pid {
        let deadline = Instant::now() + Duration::from_secs(2);
        while alive(pid) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(!alive(pid));
    }
}

#[tokio::test]
async fn a_cli_flooding_stderr_does_not_block() {
    let fake = Fake::new(
        json!({"turns": [{"steps": [{"stderr_flood": {"bytes": 4_000_000}}, {"text": "after the flood"}]}]}),
    );
    let items = collect(query("go", fake.options())).await;
    assert_eq!(of_kind(&items, "result/success").len(), 1);
}
