//! The two top-level unions: [`Message`] (every frame the CLI writes on stdout) and
//! [`InputMessage`] (every frame a host writes to the CLI's stdin), and the frames they share.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::content::{ApiMessage, MessageParam, UserContent};
use crate::control::{ControlCancelRequest, ControlRequest, ControlResponse};
use crate::events::{
    ActiveGoal, AuthStatus, CommandLifecycle, ConversationReset, PromptSuggestion, RateLimitEvent,
    ToolProgress, ToolUseSummary, TranscriptMirror,
};
use crate::result::ResultMessage;
pub use crate::stream::StreamEventMessage;
use crate::system::SystemMessage;
use crate::{DecodeError, Decoded};

pub use crate::meta::{
    AbandonedBlocks, MessageOrigin, ToolResultDecision, ToolResultMeta, ToolUseMeta,
};

crate::tagged_union! {
    /// One frame the CLI writes to stdout: the data plane (assistant, user, result, system,
    /// stream events, …) and the control plane (requests, responses, cancellations,
    /// keep-alives).
    pub enum Message: "type", "message" {
        /// A complete assistant content block (one per line; lines of one API message share
        /// `message.id`).
        "assistant" => Assistant(Box<AssistantMessage>),
        /// A user message: tool results, replays of the host's own messages, synthetic notices.
        "user" => User(Box<UserMessage>),
        /// The end of a turn, with cost, usage and the final text.
        "result" => Result(Box<ResultMessage>),
        /// Session events, keyed by `subtype` (init, status, hooks, tasks, …).
        "system" => System(Box<SystemMessage>),
        /// A raw Messages API stream event (with `include_partial_messages`).
        "stream_event" => StreamEvent(Box<StreamEventMessage>),
        /// A long-running tool is still working.
        "tool_progress" => ToolProgress(Box<ToolProgress>),
        /// Progress of an authentication flow.
        "auth_status" => AuthStatus(Box<AuthStatus>),
        /// A summary of earlier tool uses.
        "tool_use_summary" => ToolUseSummary(Box<ToolUseSummary>),
        /// Rate limit state changed.
        "rate_limit_event" => RateLimitEvent(Box<RateLimitEvent>),
        /// A suggested next prompt.
        "prompt_suggestion" => PromptSuggestion(Box<PromptSuggestion>),
        /// The conversation was reset (e.g. `/clear`).
        "conversation_reset" => ConversationReset(Box<ConversationReset>),
        /// The session's active goal changed.
        "active_goal" => ActiveGoal(Box<ActiveGoal>),
        /// A user message that carried a `uuid` was queued, started, completed or cancelled.
        "command_lifecycle" => CommandLifecycle(Box<CommandLifecycle>),
        /// Transcript entries for the host's session store (with `--session-mirror`).
        "transcript_mirror" => TranscriptMirror(Box<TranscriptMirror>),
        /// A request from the CLI to the host (permissions, hooks, MCP, …).
        "control_request" => ControlRequest(Box<ControlRequest>),
        /// The CLI's answer to one of the host's control requests.
        "control_response" => ControlResponse(Box<ControlResponse>),
        /// The CLI withdraws one of its own control requests.
        "control_cancel_request" => ControlCancelRequest(ControlCancelRequest),
        /// Sent to keep an idle connection alive; carries nothing.
        "keep_alive" => KeepAlive(KeepAlive),
    }
}

crate::tagged_union! {
    /// One frame a host writes to the CLI's stdin.
    pub enum InputMessage: "type", "input message" {
        /// A user turn (string or content blocks).
        "user" => User(Box<UserMessage>),
        /// A request from the host to the CLI (initialize, interrupt, set_model, …).
        "control_request" => ControlRequest(Box<ControlRequest>),
        /// The host's answer to one of the CLI's control requests.
        "control_response" => ControlResponse(Box<ControlResponse>),
        /// The host withdraws one of its own control requests.
        "control_cancel_request" => ControlCancelRequest(ControlCancelRequest),
        /// Keeps an idle connection alive.
        "keep_alive" => KeepAlive(KeepAlive),
        /// Sets environment variables in the running CLI.
        "update_environment_variables" => UpdateEnvironmentVariables(UpdateEnvironmentVariables),
    }
}

/// The `type` of a frame written the way the CLI and the SDKs write them, with `type` as the
/// first key and no space (`{"type":"stream_event",…`), read without parsing the line; `None`
/// for any other shape (the caller then parses the line to learn its kind). The rest of the line
/// is not checked: it may still fail to decode.
///
/// ```
/// use twinwire_protocol::leading_type;
/// assert_eq!(leading_type(r#"{"type":"assistant","message":{}}"#), Some("assistant"));
/// assert_eq!(leading_type(r#"{"uuid":"u","type":"assistant"}"#), None);
/// ```
pub fn leading_type(line: &str) -> Option<&str> {
    let rest = line.strip_prefix(r#"{"type":""#)?;
    let end = rest.find('"')?;
    let tag = &rest[..end];
    // An escape inside the tag means the plain text is not the tag.
    (!tag.contains('\\')).then_some(tag)
}

impl Message {
    /// Parses one stdout line, liberally (see [`crate::lenient`]): any JSON object becomes a
    /// message: typed, [`Message::Unknown`] for a kind this version does not know, or
    /// [`Message::Malformed`] (its kind, raw JSON and error) for a known kind that cannot be
    /// typed even after repairs. Fails only for a line that is not a JSON object.
    pub fn from_json(line: &str) -> Result<Self, DecodeError> {
        Self::decode(line).map(|decoded| decoded.value)
    }

    /// Like [`Message::from_json`], with the repairs the liberal reader made.
    pub fn decode(line: &str) -> Result<Decoded<Self>, DecodeError> {
        // Most lines of a streamed response are read without serde (see `delta_line`).
        if let Some(frame) = crate::delta_line::read(line) {
            return Ok(Decoded {
                value: Self::StreamEvent(Box::new(frame)),
                repairs: Vec::new(),
            });
        }
        crate::error::decode_frame(line)
    }

    /// The kind as `type` or `type/subtype` (`system/init`, `result/success`,
    /// `control_request/can_use_tool`, …), for logs and counts; `?` for a missing part.
    pub fn kind(&self) -> String {
        match self {
            Self::System(system) => format!("system/{}", or_unknown(system.tag())),
            Self::Result(result) => format!("result/{}", or_unknown(result.subtype.as_str())),
            Self::ControlRequest(request) => {
                format!("control_request/{}", or_unknown(request.request.tag()))
            }
            Self::ControlResponse(response) => {
                format!("control_response/{}", or_unknown(response.response.tag()))
            }
            Self::Malformed(malformed) => crate::error::kind_of(&malformed.raw),
            other => other.tag().to_owned(),
        }
    }

    /// If this frame ends a turn (a `result`, typed or not), whether it reports an error. A
    /// malformed `result` whose `is_error` cannot be read counts as an error.
    pub fn result_is_error(&self) -> Option<bool> {
        match self {
            Self::Result(result) => Some(result.is_error),
            Self::Malformed(malformed) if malformed.tag == "result" => Some(
                malformed
                    .raw
                    .get("is_error")
                    .and_then(Value::as_bool)
                    .unwrap_or(true),
            ),
            _ => None,
        }
    }

    /// The failure a `result` reports, as an error value: `None` for a turn that succeeded
    /// and for any other frame. A malformed `result` that counts as an error
    /// ([`Message::result_is_error`]) gives what can be read of it.
    pub fn result_error(&self) -> Option<crate::result::ResultError> {
        match self {
            Self::Result(result) => result.error(),
            Self::Malformed(malformed) if self.result_is_error() == Some(true) => {
                let raw = &malformed.raw;
                let text = |key: &str| raw.get(key).and_then(Value::as_str).map(str::to_owned);
                let mut lenient = crate::result::ResultMessage {
                    is_error: true,
                    result: text("result"),
                    session_id: text("session_id").unwrap_or_default(),
                    ..Default::default()
                };
                lenient.subtype = raw
                    .get("subtype")
                    .and_then(|s| serde_json::from_value(s.clone()).ok())
                    .unwrap_or(crate::result::ResultSubtype::ErrorDuringExecution);
                lenient.errors = raw
                    .get("errors")
                    .and_then(|e| serde_json::from_value(e.clone()).ok());
                lenient.api_error_status = raw.get("api_error_status").map(|s| s.as_u64());
                lenient.error()
            }
            _ => None,
        }
    }

    /// The whole frame as JSON. Every field is kept, known or not, so this equals the line the
    /// message was read from (as a JSON value; key order may differ).
    pub fn to_value(&self) -> Value {
        // Serializing plain data into a `Value` cannot fail: every map key is a string.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Whether this frame, or the union nested inside it, has a tag this version does not
    /// know; returns that tag as `type` or `type/subtype`.
    pub fn unknown_kind(&self) -> Option<String> {
        match self {
            Self::Unknown(unknown) => Some(unknown.tag.clone()),
            Self::System(system) => system
                .as_unknown()
                .map(|unknown| format!("system/{}", unknown.tag)),
            Self::ControlRequest(request) => request
                .request
                .as_unknown()
                .map(|unknown| format!("control_request/{}", unknown.tag)),
            Self::ControlResponse(response) => response
                .response
                .as_unknown()
                .map(|unknown| format!("control_response/{}", unknown.tag)),
            Self::StreamEvent(event) => event
                .event
                .as_unknown()
                .map(|unknown| format!("stream_event/{}", unknown.tag)),
            _ => None,
        }
    }

    /// The session id carried by the frame, if any.
    pub fn session_id(&self) -> Option<&str> {
        match self {
            Self::Assistant(message) => Some(&message.session_id),
            Self::User(message) => message.session_id.as_deref(),
            Self::Result(message) => Some(&message.session_id),
            Self::StreamEvent(message) => Some(&message.session_id),
            _ => None,
        }
    }
}

impl InputMessage {
    /// Parses one stdin line, liberally (see [`Message::from_json`]).
    pub fn from_json(line: &str) -> Result<Self, DecodeError> {
        Self::decode(line).map(|decoded| decoded.value)
    }

    /// Like [`InputMessage::from_json`], with the repairs the liberal reader made.
    pub fn decode(line: &str) -> Result<Decoded<Self>, DecodeError> {
        crate::error::decode_frame(line)
    }

    /// The kind as `type` or `type/subtype`, for logs and counts; `?` for a missing part.
    pub fn kind(&self) -> String {
        match self {
            Self::ControlRequest(request) => {
                format!("control_request/{}", or_unknown(request.request.tag()))
            }
            Self::ControlResponse(response) => {
                format!("control_response/{}", or_unknown(response.response.tag()))
            }
            Self::Malformed(malformed) => crate::error::kind_of(&malformed.raw),
            other => other.tag().to_owned(),
        }
    }

    /// The whole frame as JSON (see [`Message::to_value`]).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Whether this frame, or the union nested inside it, has a tag this version does not
    /// know; returns that tag as `type` or `type/subtype`.
    pub fn unknown_kind(&self) -> Option<String> {
        match self {
            Self::Unknown(unknown) => Some(unknown.tag.clone()),
            Self::ControlRequest(request) => request
                .request
                .as_unknown()
                .map(|unknown| format!("control_request/{}", unknown.tag)),
            Self::ControlResponse(response) => response
                .response
                .as_unknown()
                .map(|unknown| format!("control_response/{}", unknown.tag)),
            _ => None,
        }
    }
}

/// A tag for display: `?` when it is missing.
fn or_unknown(tag: &str) -> &str {
    if tag.is_empty() {
        "?"
    } else {
        tag
    }
}

/// An assistant frame: one complete content block of a Messages API response.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AssistantMessage {
    /// The API message, usually holding the single block this frame delivers.
    #[serde(default)]
    pub message: ApiMessage,
    /// The tool use of the subagent call this message belongs to; `None` on the main thread.
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    /// Why the API call failed, on synthetic error messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<AssistantMessageError>,
    /// This frame's id.
    #[serde(default)]
    pub uuid: String,
    /// The session it belongs to.
    #[serde(default)]
    pub session_id: String,
    /// The API request id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The client uuid of the user message this turn answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_message_uuid: Option<String>,
    /// The client uuids of every user message this turn has consumed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_message_uuids: Option<Vec<String>>,
    /// True when an interrupt cut the message short.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aborted: Option<bool>,
    /// Uuids of earlier messages this one replaces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supersedes: Option<Vec<String>>,
    /// The subagent that produced this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// The subagent's type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_type: Option<String>,
    /// When the block finished on the CLI's host (ISO 8601, display only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// True on the synthetic message that stands for a failed API call (seen from CLI 2.1.330;
    /// not in the SDK types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_api_error_message: Option<bool>,
    /// The HTTP status of that failed call: absent, `null` or a status.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub api_error_status: Option<Option<u64>>,
    /// The API's error type of that failed call (`api_error`, `overloaded_error`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_error_type: Option<String>,
    /// The description of the background task this message belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_description: Option<String>,
    /// How each tool call of the message is shown (display names of MCP tools).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_meta: Option<Vec<ToolUseMeta>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// Why an assistant message stands for a failed API call.
    pub enum AssistantMessageError {
        /// The credentials were refused.
        AuthenticationFailed = "authentication_failed",
        /// The organisation may not use OAuth.
        OauthOrgNotAllowed = "oauth_org_not_allowed",
        /// The account is on hold.
        AccountOnHold = "account_on_hold",
        /// The account must be verified.
        VerificationRequired = "verification_required",
        /// A billing problem.
        BillingError = "billing_error",
        /// Rate limited.
        RateLimit = "rate_limit",
        /// The API is overloaded.
        Overloaded = "overloaded",
        /// The request was invalid.
        InvalidRequest = "invalid_request",
        /// The model does not exist.
        ModelNotFound = "model_not_found",
        /// The API failed.
        ServerError = "server_error",
        /// Unclassified.
        Unknown = "unknown",
        /// The reply hit the output token limit.
        MaxOutputTokens = "max_output_tokens",
        /// Cloud provider credentials failed.
        CloudCredentialError = "cloud_credential_error",
    }
}

/// A user frame, in either direction: the host's prompt on stdin; tool results, replays and
/// synthetic notices on stdout.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UserMessage {
    /// The Messages API message (`role` and `content`).
    #[serde(default)]
    pub message: MessageParam,
    /// The tool use of the subagent call this message belongs to; `None` on the main thread.
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    /// The session it belongs to (the host may send `""` or `"default"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// This frame's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// True when the CLI replays a message the host sent.
    #[serde(default, rename = "isReplay", skip_serializing_if = "Option::is_none")]
    pub is_replay: Option<bool>,
    /// True for messages the CLI made up rather than a person typed.
    #[serde(
        default,
        rename = "isSynthetic",
        skip_serializing_if = "Option::is_none"
    )]
    pub is_synthetic: Option<bool>,
    /// The structured result of the tool whose `tool_result` this message carries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_result: Option<Value>,
    /// When the host wants this message handled: `now`, `next` or `later`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<UserMessagePriority>,
    /// Whether the CLI should call the model for this message.
    #[serde(
        default,
        rename = "shouldQuery",
        skip_serializing_if = "Option::is_none"
    )]
    pub should_query: Option<bool>,
    /// When the message was written (ISO 8601).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// Where the message came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<MessageOrigin>,
    /// The subagent that produced this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// Why a tool result of this message has no run behind it (a refusal), per tool call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_result_meta: Option<Vec<ToolResultMeta>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl UserMessage {
    /// The typed `tool_use_result` of this message, read as the output of `tool_name` (the
    /// `name` of the `tool_use` block that the message's `tool_result` answers); `None` when
    /// the message carries no tool result.
    pub fn tool_output(&self, tool_name: &str) -> Option<crate::tool_output::ToolOutput> {
        self.tool_use_result
            .as_ref()
            .map(|result| crate::tool_output::ToolOutput::parse(tool_name, result))
    }

    /// A user turn with the given content, as a host sends it.
    pub fn new(content: impl Into<UserContent>) -> Self {
        Self {
            message: MessageParam {
                role: "user".to_owned(),
                content: content.into(),
                ..MessageParam::default()
            },
            session_id: Some(String::new()),
            ..Self::default()
        }
    }
}

crate::string_enum! {
    /// When a queued user message should be handled.
    pub enum UserMessagePriority {
        /// Interrupt and handle it at once.
        Now = "now",
        /// Handle it at the next model call.
        Next = "next",
        /// Handle it after the current turn.
        Later = "later",
    }
}

/// A keep-alive frame.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct KeepAlive {
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Sets environment variables in the running CLI.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UpdateEnvironmentVariables {
    /// Variable name → value.
    #[serde(default)]
    pub variables: BTreeMap<String, String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::union::absent_is_empty!(AssistantMessageError);

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames are moved through queues and streams by value: the unions stay small, their big
    /// variants boxed.
    #[test]
    fn unions_stay_small() {
        assert!(std::mem::size_of::<Message>() <= 64);
        assert!(std::mem::size_of::<InputMessage>() <= 64);
        assert!(std::mem::size_of::<StreamEventMessage>() <= 512);
        assert!(std::mem::size_of::<crate::stream::StreamEvent>() <= 128);
    }
}
