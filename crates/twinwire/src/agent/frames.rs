//! The frames an agent writes, built from twinwire-protocol's types, shaped as Claude Code
//! writes them: the builders the server uses under [`Framing::Managed`](super::Framing), public
//! so that an agent writes no envelope by hand. Each fills in what every frame of its kind
//! carries (the session id, a fresh uuid, a timestamp where the CLI writes one); the caller
//! sets the rest on the typed value before it wraps it in a [`Message`].

use serde_json::{Map, Value};
use twinwire_protocol::content::{
    ApiMessage, ContentBlock, MessageParam, TextBlock, ToolResultBlock, UserContent,
};
use twinwire_protocol::permission::PermissionMode;
use twinwire_protocol::result::ResultMessage;
use twinwire_protocol::stream::StreamEvent;
use twinwire_protocol::system::{
    ApiKeySource, ApiRetry, Informational, InformationalLevel, SessionState, SessionStateChanged,
    StatusKind, StatusMessage, SystemInit, SystemMessage,
};
use twinwire_protocol::{
    AssistantMessage, AssistantMessageError, Message, StreamEventMessage, Unknown, UserMessage,
};

/// The text of the user frame Claude Code writes when an interrupt stops a turn.
pub const INTERRUPTED: &str = "[Request interrupted by user]";

/// The same, when the interrupt stopped the turn's tools.
pub const INTERRUPTED_FOR_TOOL_USE: &str = "[Request interrupted by user for tool use]";

/// A random version-4 UUID, as the CLI gives its messages.
pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The time now, as the CLI writes it (`2026-11-28T03:27:07.123Z`).
pub fn timestamp() -> String {
    let now = time::OffsetDateTime::now_utc();
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        now.year(),
        u8::from(now.month()),
        now.day(),
        now.hour(),
        now.minute(),
        now.second(),
        now.millisecond()
    )
}

fn system(message: SystemMessage) -> Message {
    Message::System(Box::new(message))
}

/// `system/session_state_changed`, marked for the host's bookkeeping (`sdk_host_only`: the
/// SDKs keep it from their callers, as Claude Code marks it).
pub fn session_state(session_id: &str, state: SessionState) -> Message {
    system(SystemMessage::SessionStateChanged(SessionStateChanged {
        state,
        sdk_host_only: Some(true),
        session_id: session_id.to_owned(),
        uuid: new_id(),
        ..SessionStateChanged::default()
    }))
}

/// `system/init` with the agent's facts (its session id and uuid as given).
pub fn init(facts: SystemInit) -> Message {
    system(SystemMessage::Init(facts))
}

/// The facts of an agent that says nothing of itself: the process's directory, the model the
/// host set (or `twinwire-agent`), no tools, no key.
pub fn default_init(model: Option<&str>) -> SystemInit {
    let cwd = std::env::current_dir()
        .map(|dir| dir.display().to_string())
        .unwrap_or_default();
    SystemInit {
        cwd,
        model: model.unwrap_or("twinwire-agent").to_owned(),
        api_key_source: ApiKeySource::None,
        output_style: "default".to_owned(),
        ..SystemInit::default()
    }
}

/// `system/status`: `requesting` before a model call.
pub fn requesting(session_id: &str) -> Message {
    system(SystemMessage::Status(StatusMessage {
        status: Some(StatusKind::Requesting),
        session_id: session_id.to_owned(),
        uuid: new_id(),
        ..StatusMessage::default()
    }))
}

/// `system/status` with the permission mode, after it changed.
pub fn permission_mode(session_id: &str, mode: PermissionMode) -> Message {
    system(SystemMessage::Status(StatusMessage {
        permission_mode: Some(mode),
        session_id: session_id.to_owned(),
        uuid: new_id(),
        ..StatusMessage::default()
    }))
}

/// `system/api_retry`: a failed model call will be made again (`retry.session_id` and
/// `retry.uuid` are filled in).
pub fn api_retry(session_id: &str, retry: ApiRetry) -> Message {
    system(SystemMessage::ApiRetry(ApiRetry {
        session_id: session_id.to_owned(),
        uuid: new_id(),
        ..retry
    }))
}

/// A `system` notice of a subtype the schema does not type, with its fields.
pub fn notice(session_id: &str, subtype: &str, fields: Map<String, Value>) -> Message {
    let mut raw = Map::new();
    raw.insert("subtype".to_owned(), Value::String(subtype.to_owned()));
    raw.insert(
        "session_id".to_owned(),
        Value::String(session_id.to_owned()),
    );
    raw.insert("uuid".to_owned(), Value::String(new_id()));
    raw.extend(fields);
    system(SystemMessage::Unknown(Unknown {
        tag: subtype.to_owned(),
        raw,
    }))
}

/// `system/queued`: a message that arrived during a turn waits, at this place in the queue.
pub fn queued(session_id: &str, position: usize) -> Message {
    let mut fields = Map::new();
    fields.insert("position".to_owned(), Value::from(position));
    notice(session_id, "queued", fields)
}

/// `system/injected`: the queued messages joined into the running turn.
pub fn injected(session_id: &str, count: usize, content_length: usize) -> Message {
    let mut fields = Map::new();
    fields.insert("message_count".to_owned(), Value::from(count));
    fields.insert("content_length".to_owned(), Value::from(content_length));
    notice(session_id, "injected", fields)
}

/// `system/informational` at level `warning`: what the agent says about host input it could not
/// use.
pub fn error_notice(session_id: &str, message: &str) -> Message {
    system(SystemMessage::Informational(Informational {
        content: message.to_owned(),
        level: InformationalLevel::Warning,
        session_id: session_id.to_owned(),
        uuid: new_id(),
        ..Informational::default()
    }))
}

/// `stream_event`: one raw event of the reply being streamed.
pub fn stream_event(
    session_id: &str,
    event: StreamEvent,
    api_message_id: Option<&str>,
    ttft_ms: Option<u64>,
) -> Message {
    Message::StreamEvent(Box::new(StreamEventMessage {
        event,
        parent_tool_use_id: None,
        uuid: new_id(),
        session_id: session_id.to_owned(),
        ttft_ms,
        api_message_id: api_message_id.map(str::to_owned),
        thinking_display: None,
        user_message_uuid: None,
        user_message_uuids: None,
        resume_reason: None,
        abandoned_blocks: None,
        extra: Map::new(),
    }))
}

/// An `assistant` frame of `message` (Claude Code writes one per content block).
pub fn assistant(session_id: &str, message: ApiMessage) -> AssistantMessage {
    AssistantMessage {
        message,
        session_id: session_id.to_owned(),
        uuid: new_id(),
        timestamp: Some(timestamp()),
        ..AssistantMessage::default()
    }
}

/// An assistant frame with one text block.
pub fn assistant_text(session_id: &str, text: &str) -> Message {
    let message = ApiMessage {
        id: format!("msg_{}", new_id()),
        kind: "message".to_owned(),
        role: "assistant".to_owned(),
        model: "twinwire-agent".to_owned(),
        content: vec![text_block(text)],
        ..ApiMessage::default()
    };
    Message::Assistant(Box::new(assistant(session_id, message)))
}

/// The assistant frame Claude Code writes for a model call that failed: the error as text
/// from `<synthetic>`.
pub fn api_error(
    session_id: &str,
    text: &str,
    error: AssistantMessageError,
    status: Option<u16>,
) -> Message {
    let message = ApiMessage {
        id: new_id(),
        kind: "message".to_owned(),
        role: "assistant".to_owned(),
        model: "<synthetic>".to_owned(),
        content: vec![text_block(text)],
        stop_reason: Some("stop_sequence".into()),
        stop_sequence: Some(String::new()),
        ..ApiMessage::default()
    };
    let mut frame = assistant(session_id, message);
    frame.error = Some(error);
    frame.is_api_error_message = Some(true);
    frame.api_error_status = Some(status.map(u64::from));
    Message::Assistant(Box::new(frame))
}

/// A `user` frame with `content`, as a turn writes it (`uuid` as given).
pub fn user(session_id: &str, uuid: &str, content: UserContent) -> UserMessage {
    UserMessage {
        message: MessageParam::user(content),
        session_id: Some(session_id.to_owned()),
        uuid: Some(uuid.to_owned()),
        timestamp: Some(timestamp()),
        ..UserMessage::default()
    }
}

/// A `user` frame with a tool's result, and its structured form for the host.
pub fn tool_result(
    session_id: &str,
    uuid: &str,
    result: ToolResultBlock,
    structured: Option<Value>,
) -> Message {
    let mut frame = user(
        session_id,
        uuid,
        UserContent::Blocks(vec![ContentBlock::ToolResult(result)]),
    );
    frame.tool_use_result = structured;
    Message::User(Box::new(frame))
}

/// A prompt echoed back (`--replay-user-messages`).
pub fn replay(session_id: &str, uuid: &str, content: UserContent) -> Message {
    let mut frame = user(session_id, uuid, content);
    frame.is_replay = Some(true);
    Message::User(Box::new(frame))
}

/// The user frame the CLI writes when an interrupt cuts a turn short.
pub fn interrupted(session_id: &str) -> Message {
    interrupted_with(session_id, &new_id(), INTERRUPTED)
}

/// The same, with its uuid and text ([`INTERRUPTED`] or [`INTERRUPTED_FOR_TOOL_USE`]).
pub fn interrupted_with(session_id: &str, uuid: &str, text: &str) -> Message {
    let content = UserContent::Blocks(vec![text_block(text)]);
    let mut frame = user(session_id, uuid, content);
    frame.timestamp = None;
    Message::User(Box::new(frame))
}

/// A `result` frame.
pub fn result(result: ResultMessage) -> Message {
    Message::Result(Box::new(result))
}

fn text_block(text: &str) -> ContentBlock {
    ContentBlock::Text(TextBlock {
        text: text.to_owned(),
        ..TextBlock::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_read_back_as_the_kinds_they_are_and_lead_with_their_type() {
        let event: StreamEvent =
            serde_json::from_value(serde_json::json!({"type": "message_stop"})).unwrap();
        let block = ToolResultBlock {
            tool_use_id: "t".into(),
            ..ToolResultBlock::default()
        };
        for (frame, kind) in [
            (
                session_state("s", SessionState::Idle),
                "system/session_state_changed",
            ),
            (init(default_init(Some("m"))), "system/init"),
            (requesting("s"), "system/status"),
            (permission_mode("s", PermissionMode::Plan), "system/status"),
            (
                api_retry(
                    "s",
                    ApiRetry {
                        attempt: 1,
                        max_retries: 3,
                        retry_delay_ms: 500,
                        error_status: Some(529),
                        error: AssistantMessageError::Overloaded,
                        no_response: None,
                        uuid: String::new(),
                        session_id: String::new(),
                        extra: Map::new(),
                    },
                ),
                "system/api_retry",
            ),
            (queued("s", 1), "system/queued"),
            (injected("s", 2, 10), "system/injected"),
            (error_notice("s", "bad"), "system/informational"),
            (
                stream_event("s", event, Some("msg_1"), Some(3)),
                "stream_event",
            ),
            (assistant_text("s", "hi"), "assistant"),
            (
                api_error(
                    "s",
                    "API Error: 500",
                    AssistantMessageError::ServerError,
                    Some(500),
                ),
                "assistant",
            ),
            (tool_result("s", "u", block, None), "user"),
            (replay("s", "u", UserContent::Text("hi".into())), "user"),
            (interrupted("s"), "user"),
            (result(ResultMessage::default()), "result/success"),
        ] {
            let line = serde_json::to_string(&frame).unwrap();
            assert!(line.starts_with("{\"type\":"), "{line}");
            let read = Message::decode(&line).unwrap();
            assert_eq!(read.value.kind(), kind, "{line}");
            assert!(read.repairs.is_empty(), "{line}: {:?}", read.repairs);
            assert_eq!(read.value, frame);
        }
    }

    #[test]
    fn session_states_are_for_the_host_only() {
        let line = serde_json::to_string(&session_state("s", SessionState::Running)).unwrap();
        // The TypeScript SDK hands a frame without the mark on to its caller.
        assert!(line.contains("\"sdk_host_only\":true"), "{line}");
    }

    #[test]
    fn timestamps_look_like_the_clis() {
        let now = timestamp();
        assert_eq!(now.len(), 24, "{now}");
        assert!(now.ends_with('Z') && now.as_bytes()[10] == b'T', "{now}");
    }
}
