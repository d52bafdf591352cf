//! Raw Messages API stream events, as carried in the `event` of `stream_event` frames (sent
//! when the host asks for partial messages).
//!
//! A response streams as `message_start`, then for each content block `content_block_start`,
//! any number of `content_block_delta`, `content_block_stop`, then `message_delta` (stop
//! reason and usage) and `message_stop`. [`StreamEvent`] and [`ContentDelta`] keep event and
//! delta types this version does not know as [`crate::Unknown`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::content::{ApiMessage, ContentBlock, ContextManagementResponse, StopDetails};
use crate::content::{MessageContainer, StopReason};
use crate::meta::AbandonedBlocks;
use crate::usage::MessageDeltaUsage;

/// A raw Messages API stream event, sent with `include_partial_messages`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StreamEventMessage {
    /// The event.
    pub event: StreamEvent,
    /// The tool use of the subagent call this event belongs to; `None` on the main thread.
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    /// This frame's id.
    #[serde(default)]
    pub uuid: String,
    /// The session it belongs to.
    #[serde(default)]
    pub session_id: String,
    /// Time to first token, on the first event of a response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_ms: Option<u64>,
    /// The Messages API id of the response this event belongs to (written by the CLI on every
    /// event, though not in the SDKs' type files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_message_id: Option<String>,
    /// The thinking display mode in effect, on `message_start` (`summarized`, `omitted`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_display: Option<String>,
    /// The host's uuid of the user message this turn answers, on the turn's first event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_message_uuid: Option<String>,
    /// Every user message uuid the turn has consumed so far (present with `user_message_uuid`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_message_uuids: Option<Vec<String>>,
    /// Why this turn continues one a worker restart interrupted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_reason: Option<String>,
    /// The blocks of an earlier response that a retry abandoned, on the retry's first event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abandoned_blocks: Option<AbandonedBlocks>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::serde_util::deserialize_with_extra!(StreamEventMessage {
    event: "event" required,
    parent_tool_use_id: "parent_tool_use_id" default,
    uuid: "uuid" default,
    session_id: "session_id" default,
    ttft_ms: "ttft_ms" default,
    api_message_id: "api_message_id" default,
    thinking_display: "thinking_display" default,
    user_message_uuid: "user_message_uuid" default,
    user_message_uuids: "user_message_uuids" default,
    resume_reason: "resume_reason" default,
    abandoned_blocks: "abandoned_blocks" default,
});

crate::tagged_union! {
    /// One raw event of a streamed Messages API response.
    // Events are short-lived values read one at a time; boxing would only add allocations.
    #[allow(clippy::large_enum_variant)]
    pub enum StreamEvent: "type", "stream event" {
        /// A response starts; carries the message with empty content.
        "message_start" => MessageStart(Box<MessageStartEvent>),
        /// Top-level changes at the end of a response: stop reason and final usage.
        "message_delta" => MessageDelta(Box<MessageDeltaEvent>),
        /// The response is complete.
        "message_stop" => MessageStop(MessageStopEvent),
        /// A content block starts.
        "content_block_start" => ContentBlockStart(Box<ContentBlockStartEvent>),
        /// A piece of a content block.
        "content_block_delta" => ContentBlockDelta(ContentBlockDeltaEvent),
        /// A content block is complete.
        "content_block_stop" => ContentBlockStop(ContentBlockStopEvent),
        /// A keep-alive from the API.
        "ping" => Ping(PingEvent),
        /// The API failed mid-stream.
        "error" => Error(StreamErrorEvent),
    }
}

impl StreamEvent {
    /// The index of the content block this event is about, for the `content_block_*` events.
    pub fn index(&self) -> Option<u64> {
        match self {
            Self::ContentBlockStart(event) => Some(event.index),
            Self::ContentBlockDelta(event) => Some(event.index),
            Self::ContentBlockStop(event) => Some(event.index),
            _ => None,
        }
    }

    /// The text this event adds, if it is a `text_delta`.
    pub fn text_delta(&self) -> Option<&str> {
        match self {
            Self::ContentBlockDelta(ContentBlockDeltaEvent {
                delta: ContentDelta::Text(delta),
                ..
            }) => Some(&delta.text),
            _ => None,
        }
    }
}

/// The start of a response.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MessageStartEvent {
    /// The message so far (content usually empty, `stop_reason` `None`).
    #[serde(default)]
    pub message: ApiMessage,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Top-level changes to the message, sent once near the end.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MessageDeltaEvent {
    /// The changed fields.
    #[serde(default)]
    pub delta: MessageDelta,
    /// Cumulative usage.
    #[serde(default)]
    pub usage: MessageDeltaUsage,
    /// Context edits the API applied: absent, `null` or the edits.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub context_management: Option<Option<ContextManagementResponse>>,
    /// Changes the API made to the request input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_transformations: Option<Vec<Value>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The message fields a `message_delta` sets.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MessageDelta {
    /// Why generation stopped.
    #[serde(default)]
    pub stop_reason: Option<StopReason>,
    /// The stop sequence that was generated, if any.
    #[serde(default)]
    pub stop_sequence: Option<String>,
    /// More about why generation stopped: absent, `null` or details.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub stop_details: Option<Option<StopDetails>>,
    /// The code execution container: absent, `null` or its description.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub container: Option<Option<MessageContainer>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The end of a response.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MessageStopEvent {
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The start of a content block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContentBlockStartEvent {
    /// The block's position in the message content.
    #[serde(default)]
    pub index: u64,
    /// The block as it starts (empty text, tool input `{}`, …).
    pub content_block: ContentBlock,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A piece of a content block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContentBlockDeltaEvent {
    /// The block's position in the message content.
    pub index: u64,
    /// What to append to the block.
    pub delta: ContentDelta,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::serde_util::deserialize_with_extra!(ContentBlockDeltaEvent {
    index: "index" default,
    delta: "delta" required,
});

/// The end of a content block.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ContentBlockStopEvent {
    /// The block's position in the message content.
    pub index: u64,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::serde_util::deserialize_with_extra!(ContentBlockStopEvent {
    index: "index" default,
});

/// A keep-alive event.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PingEvent {
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An error sent in the middle of a stream (e.g. `overloaded_error`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct StreamErrorEvent {
    /// The error.
    #[serde(default)]
    pub error: StreamError,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The body of a stream error.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct StreamError {
    /// The error type, e.g. `overloaded_error` or `api_error`.
    #[serde(rename = "type")]
    #[serde(default)]
    pub kind: String,
    /// A description.
    #[serde(default)]
    pub message: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::tagged_union! {
    /// What a `content_block_delta` appends to its block.
    pub enum ContentDelta: "type", "content delta" {
        /// Text for a `text` block.
        "text_delta" => Text(TextDelta),
        /// A piece of a tool call's input JSON (concatenate, then parse at block stop).
        "input_json_delta" => InputJson(InputJsonDelta),
        /// A citation for a `text` block.
        "citations_delta" => Citations(CitationsDelta),
        /// Thinking text for a `thinking` block.
        "thinking_delta" => Thinking(ThinkingDelta),
        /// The signature of a `thinking` block.
        "signature_delta" => Signature(SignatureDelta),
        /// The content of a `compaction` block.
        "compaction_delta" => Compaction(CompactionDelta),
    }
}

/// Text to append to a `text` block.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct TextDelta {
    /// The text.
    pub text: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::serde_util::deserialize_with_extra!(TextDelta {
    text: "text" default,
});

/// A piece of a tool call's input, as raw JSON text.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct InputJsonDelta {
    /// A fragment of JSON (not valid JSON on its own).
    pub partial_json: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::serde_util::deserialize_with_extra!(InputJsonDelta {
    partial_json: "partial_json" default,
});

/// A citation to add to a `text` block.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CitationsDelta {
    /// The citation (char, page, block, search result or web location).
    #[serde(default)]
    pub citation: Value,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Thinking text to append to a `thinking` block.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ThinkingDelta {
    /// The thinking text.
    pub thinking: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::serde_util::deserialize_with_extra!(ThinkingDelta {
    thinking: "thinking" default,
});

/// The signature of a `thinking` block.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct SignatureDelta {
    /// The signature.
    pub signature: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::serde_util::deserialize_with_extra!(SignatureDelta {
    signature: "signature" default,
});

/// The content of a `compaction` block.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CompactionDelta {
    /// The summary text, if any.
    #[serde(default)]
    pub content: Option<String>,
    /// The summary in encrypted form, if any.
    #[serde(default)]
    pub encrypted_content: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::content::unknown_tags::unknown_tags;
    use serde_json::json;

    /// `StreamEventMessage`'s hand-listed fields are read under the names they are written
    /// with, every one of them set.
    #[test]
    fn stream_event_fields_match_the_written_names() {
        let message = StreamEventMessage {
            event: StreamEvent::ContentBlockStop(ContentBlockStopEvent::default()),
            parent_tool_use_id: Some("toolu_1".into()),
            uuid: "u".into(),
            session_id: "s".into(),
            ttft_ms: Some(12),
            api_message_id: Some("msg_1".into()),
            thinking_display: Some("summarized".into()),
            user_message_uuid: Some("uu".into()),
            user_message_uuids: Some(vec!["uu".into()]),
            resume_reason: Some("restart".into()),
            abandoned_blocks: Some(AbandonedBlocks {
                api_message_id: "msg_0".into(),
                from_block_index: 1,
                extra: Map::new(),
            }),
            extra: Map::new(),
        };
        let mut written = serde_json::to_value(&message).unwrap();
        let read: StreamEventMessage = serde_json::from_value(written.clone()).unwrap();
        assert_eq!(read, message);
        written["zz_new"] = serde_json::json!(true);
        let read: StreamEventMessage = serde_json::from_value(written.clone()).unwrap();
        assert_eq!(read.extra.len(), 1);
        assert_eq!(serde_json::to_value(&read).unwrap(), written);
    }

    /// The structs whose `Deserialize` is written by `deserialize_with_extra!` read every field
    /// under the name `Serialize` writes it (a misspelt name would leave the field empty and
    /// put the entry in `extra`), and keep the fields they do not know.
    #[test]
    fn hand_listed_fields_match_the_written_names() {
        fn check<T>(value: T)
        where
            T: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
        {
            let mut written = serde_json::to_value(&value).unwrap();
            assert_eq!(serde_json::from_value::<T>(written.clone()).unwrap(), value);
            written["zz_new"] = json!({"a": [1]});
            let read: T = serde_json::from_value(written.clone()).unwrap();
            assert_eq!(serde_json::to_value(&read).unwrap(), written);
        }
        let text = |text: &str| TextDelta {
            text: text.into(),
            extra: Map::new(),
        };
        check(text("hi"));
        check(InputJsonDelta {
            partial_json: "{\"a\"".into(),
            extra: Map::new(),
        });
        check(ThinkingDelta {
            thinking: "hmm".into(),
            extra: Map::new(),
        });
        check(SignatureDelta {
            signature: "sig".into(),
            extra: Map::new(),
        });
        check(ContentBlockStopEvent {
            index: 3,
            extra: Map::new(),
        });
        check(ContentBlockDeltaEvent {
            index: 2,
            delta: ContentDelta::Text(text("x")),
            extra: Map::new(),
        });
        let missing = serde_json::from_value::<ContentBlockDeltaEvent>(json!({"index": 1}));
        assert!(missing
            .unwrap_err()
            .to_string()
            .contains("missing field `delta`"));
        let twice = serde_json::from_str::<TextDelta>(r#"{"text":"a","text":"b"}"#);
        assert!(twice
            .unwrap_err()
            .to_string()
            .contains("duplicate field `text`"));
    }

    #[test]
    fn every_stream_event_round_trips() {
        let mut seen = std::collections::BTreeSet::new();
        for frame in crate::test_fixtures::of_type("stream_event") {
            let value = &frame.msg["event"];
            let event: StreamEvent = serde_json::from_value(value.clone())
                .unwrap_or_else(|e| panic!("{}: {e}", frame.origin()));
            assert_eq!(
                &serde_json::to_value(&event).unwrap(),
                value,
                "{}",
                frame.origin()
            );
            assert!(
                event.as_unknown().is_none(),
                "{}: unknown event",
                frame.origin()
            );
            match &event {
                StreamEvent::MessageStart(start) => {
                    let unknown = unknown_tags(&start.message.content);
                    assert!(unknown.is_empty(), "{}: {unknown:?}", frame.origin());
                }
                StreamEvent::ContentBlockStart(start) => {
                    let unknown = unknown_tags(std::slice::from_ref(&start.content_block));
                    assert!(unknown.is_empty(), "{}: {unknown:?}", frame.origin());
                }
                StreamEvent::ContentBlockDelta(delta) => {
                    assert!(delta.delta.as_unknown().is_none(), "{}", frame.origin());
                }
                _ => {}
            }
            seen.insert(event.tag().to_owned());
        }
        for kind in [
            "message_start",
            "message_delta",
            "message_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
        ] {
            assert!(seen.contains(kind), "no {kind} event in the transcripts");
        }
    }

    #[test]
    fn deltas_and_stop_reason() {
        let delta: StreamEvent = serde_json::from_value(json!({
            "type": "content_block_delta", "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": "{\"a\":"}
        }))
        .unwrap();
        assert_eq!(delta.index(), Some(1));
        assert!(
            matches!(&delta, StreamEvent::ContentBlockDelta(ContentBlockDeltaEvent {
            delta: ContentDelta::InputJson(json), ..
        }) if json.partial_json == "{\"a\":")
        );

        let text: StreamEvent = serde_json::from_value(json!({
            "type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": "hi"}
        }))
        .unwrap();
        assert_eq!(text.text_delta(), Some("hi"));

        let value = json!({
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": null},
            "usage": {"output_tokens": 20}
        });
        let event: StreamEvent = serde_json::from_value(value.clone()).unwrap();
        let StreamEvent::MessageDelta(message_delta) = &event else {
            panic!("not a message_delta: {event:?}");
        };
        assert_eq!(message_delta.delta.stop_reason, Some(StopReason::EndTurn));
        assert_eq!(message_delta.usage.output_tokens, 20);
        assert_eq!(serde_json::to_value(&event).unwrap(), value);

        let error = json!({"type": "error",
                           "error": {"type": "overloaded_error", "message": "Overloaded"}});
        let event: StreamEvent = serde_json::from_value(error.clone()).unwrap();
        assert!(matches!(&event, StreamEvent::Error(e) if e.error.kind == "overloaded_error"));
        assert_eq!(serde_json::to_value(&event).unwrap(), error);
    }

    #[test]
    fn broken_known_event_is_repaired_or_kept_raw() {
        let no_index = json!({"type": "content_block_stop"});
        let event: StreamEvent = serde_json::from_value(no_index).unwrap();
        assert!(matches!(event, StreamEvent::ContentBlockStop(e) if e.index == 0));
        let no_text = json!({"type": "content_block_delta", "index": 0,
                             "delta": {"type": "text_delta"}});
        serde_json::from_value::<StreamEvent>(no_text).unwrap();
        let no_delta = json!({"type": "content_block_delta", "index": 0});
        assert!(serde_json::from_value::<StreamEvent>(no_delta.clone()).is_err());
        let read = crate::from_value::<StreamEvent>(no_delta.clone()).unwrap();
        assert_eq!(read.value.as_malformed().map(|m| &m.raw), Some(&no_delta));
    }

    #[test]
    fn unknown_event_and_delta_are_kept_whole() {
        let value = json!({"type": "hologram_start", "x": 1});
        let event: StreamEvent = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(event.tag(), "hologram_start");
        assert_eq!(serde_json::to_value(&event).unwrap(), value);

        let value = json!({"type": "content_block_delta", "index": 2,
                           "delta": {"type": "hologram_delta", "y": [1]}});
        let event: StreamEvent = serde_json::from_value(value.clone()).unwrap();
        let StreamEvent::ContentBlockDelta(delta) = &event else {
            panic!("not a content_block_delta: {event:?}");
        };
        assert_eq!(
            delta.delta.as_unknown().map(|u| u.tag.as_str()),
            Some("hologram_delta")
        );
        assert_eq!(serde_json::to_value(&event).unwrap(), value);
    }
}
