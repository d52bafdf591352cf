//! Turn-level system messages: `status`, `api_retry`, `compact_boundary`,
//! `control_request_progress`, the model refusal pair, `local_command_output`,
//! `plugin_install` and `thinking_tokens`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::hooks::CompactTrigger;
use crate::permission::PermissionMode;
use crate::AssistantMessageError;

crate::string_enum! {
    /// What the CLI is busy with, in `system/status` (`null` when idle).
    pub enum StatusKind {
        /// Compacting the conversation.
        Compacting = "compacting",
        /// Waiting for the API.
        Requesting = "requesting",
    }
}

crate::string_enum! {
    /// Outcome of a compaction, in `system/status`.
    pub enum CompactResult {
        /// Compaction succeeded.
        Success = "success",
        /// Compaction failed.
        Failed = "failed",
    }
}

/// `system/status`: what the CLI is busy with, and permission mode changes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct StatusMessage {
    /// Current activity; `None` is `null` (nothing in particular).
    #[serde(default)]
    pub status: Option<StatusKind>,
    /// The new permission mode, when it changed.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        rename = "permissionMode"
    )]
    pub permission_mode: Option<PermissionMode>,
    /// Outcome of the compaction that just ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compact_result: Option<CompactResult>,
    /// Error of a failed compaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compact_error: Option<String>,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// How long a retried request waited for response headers.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct NoResponse {
    /// How long the failed attempt waited, in milliseconds.
    #[serde(default)]
    pub waited_ms: u64,
    /// How long the retry will wait, in milliseconds.
    #[serde(default)]
    pub retry_wait_ms: u64,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/api_retry`: an API request failed with a retryable error and will be retried.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiRetry {
    /// Attempt number.
    #[serde(default)]
    pub attempt: u64,
    /// Retry budget.
    #[serde(default)]
    pub max_retries: u64,
    /// Delay before the retry, in milliseconds.
    #[serde(default)]
    pub retry_delay_ms: u64,
    /// HTTP status; `None` is `null` (a connection error without a response).
    #[serde(default)]
    pub error_status: Option<u64>,
    /// Error category.
    #[serde(default)]
    pub error: AssistantMessageError,
    /// Set when no response headers arrived in time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_response: Option<NoResponse>,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The messages a partial compaction kept, as a linked segment.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PreservedSegment {
    /// First kept message.
    #[serde(default)]
    pub head_uuid: String,
    /// Where the segment is spliced in.
    #[serde(default)]
    pub anchor_uuid: String,
    /// Last kept message.
    #[serde(default)]
    pub tail_uuid: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The messages a partial compaction kept, as an ordered list.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PreservedMessages {
    /// Where the first kept message is linked.
    #[serde(default)]
    pub anchor_uuid: String,
    /// Kept message uuids, in order.
    #[serde(default)]
    pub uuids: Vec<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Details of a compaction.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CompactMetadata {
    /// What started it.
    #[serde(default)]
    pub trigger: CompactTrigger,
    /// Context tokens before.
    #[serde(default)]
    pub pre_tokens: u64,
    /// Context tokens after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post_tokens: Option<u64>,
    /// How long it took, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Kept messages, as a segment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preserved_segment: Option<PreservedSegment>,
    /// Kept messages, as a list (supersedes `preserved_segment`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preserved_messages: Option<PreservedMessages>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/compact_boundary`: the conversation was compacted here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompactBoundary {
    /// Details of the compaction.
    #[serde(default)]
    pub compact_metadata: CompactMetadata,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// Progress of a long control request.
    #[derive(Default)]
    pub enum ControlRequestProgressStatus {
        /// The request started.
        #[default]
        Started = "started",
        /// The request's API call is being retried.
        ApiRetry = "api_retry",
    }
}

/// `system/control_request_progress`: progress of an in-flight control request.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ControlRequestProgress {
    /// The `request_id` of the control request.
    #[serde(default)]
    pub request_id: String,
    /// What happened.
    #[serde(default)]
    pub status: ControlRequestProgressStatus,
    /// Retry attempt number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<u64>,
    /// Retry budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retries: Option<u64>,
    /// Delay before the retry, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_delay_ms: Option<u64>,
    /// HTTP status of the failed call; `Some(None)` is `null`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub error_status: Option<Option<u64>>,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// Direction of a refusal fallback (only `retry` is still sent).
    #[derive(Default)]
    pub enum RefusalDirection {
        /// The turn is retried on the fallback model.
        #[default]
        Retry = "retry",
        /// Legacy value.
        Revert = "revert",
        /// Legacy value.
        Sticky = "sticky",
    }
}

crate::string_enum! {
    /// How far a refusal fallback reaches.
    pub enum RefusalScope {
        /// The session model was swapped.
        Session = "session",
        /// Only one subagent or side response used the fallback.
        Local = "local",
    }
}

/// `system/model_refusal_fallback`: the model refused and the turn is retried on a fallback
/// model.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ModelRefusalFallback {
    /// What triggered it (`refusal`).
    #[serde(default)]
    pub trigger: String,
    /// Direction of the swap.
    #[serde(default)]
    pub direction: RefusalDirection,
    /// Reach of the swap; absent means `session`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<RefusalScope>,
    /// The model that refused.
    #[serde(default)]
    pub original_model: String,
    /// The model used instead.
    #[serde(default)]
    pub fallback_model: String,
    /// API request id of the refused response.
    #[serde(default)]
    pub request_id: Option<String>,
    /// Refusal category (`cyber`, `bio`, …); `Some(None)` is `null`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub api_refusal_category: Option<Option<String>>,
    /// Explanation from the API, for display only; `Some(None)` is `null`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub api_refusal_explanation: Option<Option<String>>,
    /// Uuids of the messages this fallback retracted; remove them from the transcript.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retracted_message_uuids: Option<Vec<String>>,
    /// The user message the refused request answered; `Some(None)` is `null`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub refused_user_message_uuid: Option<Option<String>>,
    /// Text to show.
    #[serde(default)]
    pub content: String,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/model_refusal_no_fallback`: the model refused and no retry runs.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ModelRefusalNoFallback {
    /// The model that refused.
    #[serde(default)]
    pub original_model: String,
    /// API request id of the refused response.
    #[serde(default)]
    pub request_id: Option<String>,
    /// Refusal category; `Some(None)` is `null`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub api_refusal_category: Option<Option<String>>,
    /// Explanation from the API, for display only; `Some(None)` is `null`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub api_refusal_explanation: Option<Option<String>>,
    /// The user message the refused request answered; `Some(None)` is `null`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub refused_user_message_uuid: Option<Option<String>>,
    /// Text to show.
    #[serde(default)]
    pub content: String,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/local_command_output`: output of a local slash command.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LocalCommandOutput {
    /// The output text.
    #[serde(default)]
    pub content: String,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// Progress of a plugin installation.
    #[derive(Default)]
    pub enum PluginInstallStatus {
        /// Installation started.
        #[default]
        Started = "started",
        /// One plugin was installed.
        Installed = "installed",
        /// Installation failed.
        Failed = "failed",
        /// All installations finished.
        Completed = "completed",
    }
}

/// `system/plugin_install`: progress of plugin installation.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PluginInstall {
    /// What happened.
    #[serde(default)]
    pub status: PluginInstallStatus,
    /// Plugin name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Error message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/thinking_tokens`: estimated thinking tokens while thinking is redacted.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ThinkingTokens {
    /// Running total for the current thinking block.
    #[serde(default)]
    pub estimated_tokens: u64,
    /// Increment carried by this frame.
    #[serde(default)]
    pub estimated_tokens_delta: u64,
    /// Client uuid of the user message that triggered the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_message_uuid: Option<String>,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
