//! Every frame the agent writes on its own, in one place, as Claude Code writes them.

use serde_json::{json, Value};
use twinwire_protocol::content::{ApiMessage, ContentBlock};
use twinwire_protocol::stream::StreamEvent;

use crate::model::RetryNotice;
use crate::transcript::now;

/// The version `system/init` names.
pub const VERSION: &str = concat!("twinwire-agent ", env!("CARGO_PKG_VERSION"));

/// A fresh uuid.
pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// What `system/init` says of the session.
pub struct InitFacts<'a> {
    pub session_id: &'a str,
    pub cwd: &'a str,
    pub model: &'a str,
    pub tools: Vec<String>,
    pub mcp_servers: Vec<Value>,
    pub permission_mode: &'a str,
    pub api_key_source: &'a str,
}

/// `system/init`, written at the start of every turn.
pub fn init(facts: InitFacts<'_>) -> Value {
    json!({
        "type": "system", "subtype": "init",
        "cwd": facts.cwd, "session_id": facts.session_id,
        "tools": facts.tools, "mcp_servers": facts.mcp_servers,
        "model": facts.model, "permissionMode": facts.permission_mode,
        "slash_commands": [], "apiKeySource": facts.api_key_source,
        "claude_code_version": VERSION, "output_style": "default",
        "agents": [], "skills": [], "plugins": [],
        "uuid": new_id(),
    })
}

/// `system/session_state_changed` (`running`, `idle`), marked for the host's bookkeeping
/// (`sdk_host_only`: the SDKs keep it from their callers).
pub fn state_changed(session_id: &str, state: &str) -> Value {
    json!({"type": "system", "subtype": "session_state_changed", "state": state,
           "sdk_host_only": true, "session_id": session_id, "uuid": new_id()})
}

/// `system/status` `requesting`: a model call is about to be made.
pub fn requesting(session_id: &str) -> Value {
    json!({"type": "system", "subtype": "status", "status": "requesting",
           "session_id": session_id, "uuid": new_id()})
}

/// `system/status` with the permission mode, after it changed.
pub fn mode_status(session_id: &str, mode: &str) -> Value {
    json!({"type": "system", "subtype": "status", "status": null, "permissionMode": mode,
           "session_id": session_id, "uuid": new_id()})
}

/// `system/api_retry`: a failed model call will be made again.
pub fn api_retry(session_id: &str, notice: &RetryNotice) -> Value {
    let error = match notice.status {
        Some(429) => "rate_limit",
        Some(401) | Some(403) => "authentication_failed",
        Some(_) => "server_error",
        None => "unknown",
    };
    json!({"type": "system", "subtype": "api_retry", "attempt": notice.attempt,
           "max_retries": notice.max_retries,
           "retry_delay_ms": u64::try_from(notice.delay.as_millis()).unwrap_or(u64::MAX),
           "error_status": notice.status, "error": error,
           "session_id": session_id, "uuid": new_id()})
}

/// `system/queued`: a message that arrived during a turn waits for the next model call.
pub fn queued(session_id: &str, position: usize) -> Value {
    json!({"type": "system", "subtype": "queued", "position": position,
           "session_id": session_id, "uuid": new_id()})
}

/// `stream_event`: one raw event of the reply (with `--include-partial-messages`).
pub fn stream_event(
    session_id: &str,
    event: &StreamEvent,
    api_message_id: &str,
    ttft_ms: Option<u64>,
) -> Value {
    let mut frame = json!({"type": "stream_event", "event": event, "session_id": session_id,
                           "parent_tool_use_id": null, "uuid": new_id(),
                           "api_message_id": api_message_id});
    if let Some(ttft) = ttft_ms {
        frame["ttft_ms"] = json!(ttft);
    }
    frame
}

/// The message of one assistant frame: the reply's fields with this one block.
pub fn block_message(reply: &ApiMessage, block: &ContentBlock) -> Value {
    let mut message = reply.clone();
    message.content = vec![block.clone()];
    serde_json::to_value(message).unwrap_or(Value::Null)
}

/// `assistant`: one block of a reply (each block is its own frame, as Claude Code writes).
pub fn assistant(
    session_id: &str,
    uuid: &str,
    message: Value,
    request_id: Option<&str>,
    aborted: bool,
) -> Value {
    let mut frame = json!({"type": "assistant", "message": message,
                           "parent_tool_use_id": null, "session_id": session_id,
                           "uuid": uuid, "timestamp": now()});
    if let Some(id) = request_id {
        frame["request_id"] = json!(id);
    }
    if aborted {
        frame["aborted"] = json!(true);
    }
    frame
}

/// The assistant frame Claude Code writes for a model call that failed: the error as text
/// from `<synthetic>`.
pub fn api_error(session_id: &str, text: &str, status: Option<u16>) -> Value {
    let message = json!({"id": new_id(), "type": "message", "role": "assistant",
                         "model": "<synthetic>", "content": [{"type": "text", "text": text}],
                         "stop_reason": "stop_sequence", "stop_sequence": "",
                         "usage": {"input_tokens": 0, "output_tokens": 0}});
    let mut frame = assistant(session_id, &new_id(), message, None, false);
    frame["error"] = json!(match status {
        Some(401) | Some(403) => "authentication_failed",
        Some(429) => "rate_limit",
        Some(500..=599) => "server_error",
        _ => "unknown",
    });
    frame["is_api_error_message"] = json!(true);
    frame["api_error_status"] = json!(status);
    frame
}

/// `user`: a tool's result, with its structured form for the host.
pub fn tool_result(
    session_id: &str,
    uuid: &str,
    block: &ContentBlock,
    result: Option<&Value>,
) -> Value {
    let mut frame = json!({"type": "user",
                           "message": {"role": "user", "content": [block]},
                           "parent_tool_use_id": null, "session_id": session_id,
                           "uuid": uuid, "timestamp": now()});
    if let Some(result) = result {
        frame["tool_use_result"] = result.clone();
    }
    frame
}

/// `user` with text: the interrupted-turn marker, or a prompt echoed back (`isReplay`).
pub fn user_text(session_id: &str, uuid: &str, content: Value, replay: bool) -> Value {
    let mut frame = json!({"type": "user", "message": {"role": "user", "content": content},
                           "parent_tool_use_id": null, "session_id": session_id,
                           "uuid": uuid, "timestamp": now()});
    if replay {
        frame["isReplay"] = json!(true);
    }
    frame
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use twinwire_protocol::Message;

    #[test]
    fn frames_read_back_as_the_kinds_they_are() {
        let block = ContentBlock::Text(twinwire_protocol::content::TextBlock {
            text: "hi".into(),
            ..Default::default()
        });
        let event: StreamEvent = serde_json::from_value(json!({"type": "message_stop"})).unwrap();
        let notice = RetryNotice {
            attempt: 1,
            max_retries: 3,
            delay: Duration::from_millis(500),
            status: Some(529),
            error: "overloaded".into(),
        };
        for (frame, kind) in [
            (
                init(InitFacts {
                    session_id: "s",
                    cwd: "/",
                    model: "m",
                    tools: vec!["Bash".into()],
                    mcp_servers: vec![json!({"name": "calc", "status": "connected"})],
                    permission_mode: "default",
                    api_key_source: "ANTHROPIC_API_KEY",
                }),
                "system/init",
            ),
            (state_changed("s", "idle"), "system/session_state_changed"),
            (requesting("s"), "system/status"),
            (mode_status("s", "plan"), "system/status"),
            (api_retry("s", &notice), "system/api_retry"),
            (queued("s", 1), "system/queued"),
            (stream_event("s", &event, "msg_1", Some(3)), "stream_event"),
            (
                assistant(
                    "s",
                    "u",
                    block_message(&ApiMessage::default(), &block),
                    Some("r"),
                    true,
                ),
                "assistant",
            ),
            (api_error("s", "API Error: 500 x", Some(500)), "assistant"),
            (
                tool_result("s", "u", &block, Some(&json!({"stdout": ""}))),
                "user",
            ),
            (user_text("s", "u", json!("hi"), true), "user"),
        ] {
            let line = frame.to_string();
            let read = Message::decode(&line).unwrap();
            assert_eq!(read.value.kind(), kind, "{line}");
            assert!(read.repairs.is_empty(), "{line}: {:?}", read.repairs);
        }
    }
}
