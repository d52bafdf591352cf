//! The host's turn and tool spans from the frames the reader sees, as a subscriber records them.

use std::sync::Arc;

use serde_json::json;
use twinwire_protocol::Message;

use super::SessionSpans;
use crate::host::watch::SessionWatch;
use crate::trace::tests::Recorder;

fn line(value: serde_json::Value) -> String {
    value.to_string()
}

fn frame(value: serde_json::Value) -> Message {
    Message::from_json(&value.to_string()).unwrap()
}

#[test]
fn a_subagents_tool_use_goes_under_the_tool_that_started_it_and_everything_ends_with_the_turn() {
    let recorder = Recorder::default();
    let _guard = recorder.install();
    let spans = Arc::new(SessionSpans::start(Some("claude-sonnet-4-5")));
    let watch = Arc::new(SessionWatch::new(Arc::clone(&spans)));
    let mut tap = watch.tap();
    spans.turn_sent();
    watch.observe(&frame(json!({
        "type": "system", "subtype": "init", "session_id": "s-1", "model": "claude-opus-4-1",
        "cwd": "/", "tools": [], "mcp_servers": [], "permissionMode": "default",
        "slash_commands": [], "apiKeySource": "none", "output_style": "default", "uuid": "u"
    })));
    tap(&line(
        json!({"type": "assistant", "parent_tool_use_id": null, "session_id": "s-1",
        "message": {"content": [{"type": "tool_use", "id": "task-1", "name": "Task", "input": {}}]}}),
    ));
    tap(&line(
        json!({"type": "assistant", "parent_tool_use_id": "task-1", "session_id": "s-1",
        "message": {"content": [{"type": "tool_use", "id": "read-1", "name": "Read", "input": {}}]}}),
    ));
    // A streamed delta that names a tool block opens nothing.
    tap(&line(
        json!({"type": "stream_event", "event": {"type": "content_block_start",
        "content_block": {"type": "tool_use", "id": "x", "name": "Bash"}}}),
    ));
    tap(&line(
        json!({"type": "user", "parent_tool_use_id": "task-1", "message": {"role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "read-1", "is_error": true,
                     "content": "no such file"}]}}),
    ));
    watch.observe(&frame(json!({
        "type": "result", "subtype": "error_during_execution", "is_error": true,
        "session_id": "s-1", "duration_ms": 1, "duration_api_ms": 1, "num_turns": 1,
        "total_cost_usd": 0.0,
        "usage": {"input_tokens": 3, "output_tokens": 5, "cache_read_input_tokens": 10,
                  "cache_creation_input_tokens": 2}
    })));

    let one = |name: &str| {
        let found = recorder.named(name);
        assert_eq!(found.len(), 1, "one {name}: {:?}", recorder.spans());
        found[0].clone()
    };
    let (session_id, session) = one("session");
    let (turn_id, turn) = one("invoke_agent");
    assert_eq!(session.field("gen_ai.conversation.id"), "s-1");
    assert_eq!(session.field("gen_ai.request.model"), "claude-sonnet-4-5");
    assert_eq!(session.field("gen_ai.response.model"), "claude-opus-4-1");
    assert_eq!(turn.parent, Some(session_id));
    assert_eq!(turn.field("gen_ai.conversation.id"), "s-1");
    assert_eq!(
        turn.field("gen_ai.usage.input_tokens"),
        "15",
        "cached tokens count as input"
    );
    assert_eq!(turn.field("gen_ai.usage.output_tokens"), "5");
    assert_eq!(turn.field("error.type"), "error_during_execution");
    assert!(turn.closed, "the result ends the turn");

    let tools = recorder.named("execute_tool");
    assert_eq!(tools.len(), 2, "{tools:?}");
    let (task_id, task) = tools
        .iter()
        .find(|(_, span)| span.field("gen_ai.tool.name") == "Task")
        .cloned()
        .unwrap();
    let (_, read) = tools
        .iter()
        .find(|(_, span)| span.field("gen_ai.tool.name") == "Read")
        .cloned()
        .unwrap();
    assert_eq!(task.parent, Some(turn_id));
    assert_eq!(task.field("gen_ai.tool.call.id"), "task-1");
    assert_eq!(read.parent, Some(task_id));
    assert_eq!(read.field("error.type"), "tool_error");
    assert!(
        read.closed && task.closed,
        "a tool left open ends with its turn"
    );

    // A permission asked for the subagent's tool after it ended goes under the session.
    assert_eq!(
        spans
            .parent_for(Some("read-1"))
            .id()
            .map(|id| id.into_u64()),
        Some(session_id)
    );
    spans.close(None);
    drop(spans);
    drop(tap);
    assert!(recorder.named("session")[0].1.closed);
}

#[test]
fn without_a_listener_there_is_no_span() {
    // Set here, not left to the global default: tests on other threads install recorders,
    // and only a subscriber in place here makes this thread's answer count.
    let _guard = tracing::subscriber::set_default(tracing::subscriber::NoSubscriber::default());
    let spans = SessionSpans::start(None);
    assert!(!spans.enabled());
    assert!(spans.session().is_none());
}

#[test]
fn a_subagents_usage_is_on_the_span_of_the_call_that_ran_it_and_the_turn_has_the_cost() {
    let recorder = Recorder::default();
    let _guard = recorder.install();
    let spans = Arc::new(SessionSpans::start(None));
    let watch = Arc::new(SessionWatch::new(Arc::clone(&spans)));
    let mut tap = watch.tap();
    spans.turn_sent();
    let task = |id: &str| {
        json!({"type": "assistant", "parent_tool_use_id": null, "message": {"id": format!("m-{id}"),
            "model": "m", "usage": {"input_tokens": 10, "output_tokens": 1},
            "content": [{"type": "tool_use", "id": id, "name": "Task",
                         "input": {"subagent_type": "helper", "description": "d"}}]}})
    };
    // A subagent run inside the call: its report comes with the tool's result.
    tap(&line(task("sync-1")));
    tap(&line(json!({"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "sync-1", "content": "done"}]},
        "tool_use_result": {"status": "completed", "totalTokens": 130,
            "usage": {"input_tokens": 100, "output_tokens": 30}}})));
    // A subagent in the background: its span lasts until the task's notification.
    tap(&line(task("async-1")));
    tap(&line(json!({"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "async-1", "content": "launched"}]},
        "tool_use_result": {"status": "async_launched", "isAsync": true}})));
    tap(&line(
        json!({"type": "assistant", "parent_tool_use_id": "async-1",
        "message": {"id": "m-sub", "model": "m", "usage": {"input_tokens": 50, "output_tokens": 1},
                    "content": [{"type": "text", "text": "hi"}]}}),
    ));
    let open = recorder
        .named("execute_tool")
        .into_iter()
        .find(|(_, span)| span.field("gen_ai.tool.call.id") == "async-1")
        .unwrap();
    assert!(!open.1.closed, "the background task still runs");
    watch.observe(&frame(
        json!({"type": "system", "subtype": "task_notification",
        "task_id": "t", "tool_use_id": "async-1", "status": "completed", "output_file": "",
        "summary": "", "usage": {"total_tokens": 70, "tool_uses": 0, "duration_ms": 1},
        "session_id": "s", "uuid": "u"}),
    ));
    watch.observe(&frame(
        json!({"type": "result", "subtype": "success", "is_error": false,
        "session_id": "s", "uuid": "r", "duration_ms": 1, "duration_api_ms": 1, "num_turns": 1,
        "total_cost_usd": 0.5, "usage": {"input_tokens": 20, "output_tokens": 8},
        "modelUsage": {"m": {"inputTokens": 170, "outputTokens": 58, "costUSD": 0.5,
            "cacheReadInputTokens": 0, "cacheCreationInputTokens": 0}}}),
    ));
    let tool = |id: &str| {
        recorder
            .named("execute_tool")
            .into_iter()
            .find(|(_, span)| span.field("gen_ai.tool.call.id") == id)
            .unwrap()
            .1
    };
    let sync = tool("sync-1");
    assert_eq!(sync.field("gen_ai.usage.input_tokens"), "100");
    assert_eq!(sync.field("gen_ai.usage.output_tokens"), "30");
    let background = tool("async-1");
    assert!(background.closed);
    assert_eq!(background.field("gen_ai.usage.input_tokens"), "50");
    assert_eq!(background.field("gen_ai.usage.output_tokens"), "20");
    let (_, turn) = recorder.named("invoke_agent")[0].clone();
    assert_eq!(turn.field("twinwire.usage.cost_usd"), "0.5");
    assert_eq!(turn.field("twinwire.usage.subagents"), "2");
    assert_eq!(turn.field("twinwire.usage.subagent_input_tokens"), "150");
    assert_eq!(turn.field("twinwire.usage.subagent_output_tokens"), "50");
    drop(tap);
}
