//! The frames the agent side writes on its own, built from twinwire-protocol's types in one
//! place: the session state, `system/init`, notices, the interrupted-turn notice, results.

use serde_json::{Map, Value};
use twinwire_protocol::content::{ApiMessage, ContentBlock, MessageParam, TextBlock, UserContent};
use twinwire_protocol::result::ResultMessage;
use twinwire_protocol::system::{
    ApiKeySource, Informational, InformationalLevel, SessionState, SessionStateChanged, SystemInit,
    SystemMessage,
};
use twinwire_protocol::{AssistantMessage, Message, Unknown, UserMessage};

/// A random version-4 UUID, as the CLI gives its messages.
pub(crate) fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

fn system(message: SystemMessage) -> Message {
    Message::System(Box::new(message))
}

/// `system/session_state_changed`.
pub(crate) fn state_changed(session_id: &str, state: SessionState) -> Message {
    system(SystemMessage::SessionStateChanged(SessionStateChanged {
        state,
        session_id: session_id.to_owned(),
        uuid: new_id(),
        ..SessionStateChanged::default()
    }))
}

/// `system/init`, as the agent describes itself at the start of a turn.
pub(crate) fn init(session_id: &str, model: &str) -> Message {
    let cwd = std::env::current_dir()
        .map(|dir| dir.display().to_string())
        .unwrap_or_default();
    system(SystemMessage::Init(SystemInit {
        cwd,
        session_id: session_id.to_owned(),
        model: model.to_owned(),
        api_key_source: ApiKeySource::None,
        output_style: "default".to_owned(),
        uuid: new_id(),
        ..SystemInit::default()
    }))
}

/// A `system` notice of a subtype the schema does not type (`queued`, `injected`), with its
/// fields.
pub(crate) fn notice(session_id: &str, subtype: &str, fields: Map<String, Value>) -> Message {
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

/// `system/informational` at level `warning`: what the agent says about host input it could not
/// use.
pub(crate) fn error_notice(session_id: &str, message: &str) -> Message {
    system(SystemMessage::Informational(Informational {
        content: message.to_owned(),
        level: InformationalLevel::Warning,
        session_id: session_id.to_owned(),
        uuid: new_id(),
        ..Informational::default()
    }))
}

/// An assistant frame with one text block.
pub(crate) fn assistant_text(session_id: &str, text: &str) -> Message {
    let message = ApiMessage {
        id: format!("msg_{}", new_id()),
        kind: "message".to_owned(),
        role: "assistant".to_owned(),
        model: "twinwire-agent".to_owned(),
        content: vec![ContentBlock::Text(TextBlock {
            text: text.to_owned(),
            ..TextBlock::default()
        })],
        ..ApiMessage::default()
    };
    Message::Assistant(Box::new(AssistantMessage {
        message,
        session_id: session_id.to_owned(),
        uuid: new_id(),
        ..AssistantMessage::default()
    }))
}

/// The user frame the CLI writes when an interrupt cuts a turn short.
pub(crate) fn interrupted(session_id: &str) -> Message {
    let text = ContentBlock::Text(TextBlock {
        text: "[Request interrupted by user]".to_owned(),
        ..TextBlock::default()
    });
    Message::User(Box::new(UserMessage {
        message: MessageParam::user(UserContent::Blocks(vec![text])),
        session_id: Some(session_id.to_owned()),
        uuid: Some(new_id()),
        ..UserMessage::default()
    }))
}

/// A `result` frame.
pub(crate) fn result(result: ResultMessage) -> Message {
    Message::Result(Box::new(result))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_read_back_as_the_kinds_they_are_and_lead_with_their_type() {
        for (frame, kind) in [
            (
                state_changed("s", SessionState::Idle),
                "system/session_state_changed",
            ),
            (init("s", "m"), "system/init"),
            (notice("s", "queued", Map::new()), "system/queued"),
            (error_notice("s", "bad"), "system/informational"),
            (assistant_text("s", "hi"), "assistant"),
            (interrupted("s"), "user"),
            (result(ResultMessage::default()), "result/success"),
        ] {
            let line = serde_json::to_string(&frame).unwrap();
            assert!(line.starts_with("{\"type\":"), "{line}");
            let read = Message::from_json(&line).unwrap();
            assert_eq!(read.kind(), kind, "{line}");
            assert_eq!(read, frame);
        }
    }
}
