//! Typed inputs of the platform tools (see [`super::ToolInput`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// The input of `CronCreate`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CronCreateInput {
    /// `cron`: text.
    pub cron: String,
    /// `prompt`: text.
    pub prompt: String,
    /// `recurring`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recurring: Option<bool>,
    /// `durable`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub durable: Option<bool>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `CronDelete`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CronDeleteInput {
    /// `id`: text.
    pub id: String,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `CronList`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CronListInput {
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `ScheduleWakeup`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ScheduleWakeupInput {
    /// `delaySeconds`: optional number.
    #[serde(
        rename = "delaySeconds",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub delay_seconds: Option<Number>,
    /// `reason`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `prompt`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// `stop`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<bool>,
    /// `noop`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noop: Option<bool>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `RemoteTrigger`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RemoteTriggerInput {
    /// `action`: text (`list`, `get`, `create`, `update`, `run`, `create_webhook_trigger`, `list_runs`, `get_run_log`).
    pub action: String,
    /// `trigger_id`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger_id: Option<String>,
    /// `session_id`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// `cursor`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// `body`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `ShowOnboardingRolePicker`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ShowOnboardingRolePickerInput {
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `OfferChromeSetup`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct OfferChromeSetupInput {
    /// `reason`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `ReadNotifications`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReadNotificationsInput {
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `Artifact`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ArtifactInput {
    /// `action`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<Value>,
    /// `file_path`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
    /// `favicon`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub favicon: Option<String>,
    /// `icon`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    /// `limit`: optional number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<Number>,
    /// `page_token`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_token: Option<String>,
    /// `scope`: optional text (`mine`, `shared`, `all`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// `title`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `description`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `label`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// `url`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// `prompt`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// `force`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force: Option<bool>,
    /// `pin`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pin: Option<bool>,
    /// `out_dir`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out_dir: Option<String>,
    /// `file_paths`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_paths: Option<Value>,
    /// `asset_id`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset_id: Option<String>,
    /// `after`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// `capabilities`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Value>,
    /// `contract`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract: Option<Value>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `PushNotification`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PushNotificationInput {
    /// `message`: text.
    pub message: String,
    /// `status`: optional text (`proactive`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `ClaudeDesign`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ClaudeDesignInput {
    /// `operation`: text.
    pub operation: String,
    /// `arguments`: JSON value.
    pub arguments: Value,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `Projects`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ProjectsInput {
    /// `method`: JSON value.
    pub method: Value,
    /// `path`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `content`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// `local_path`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_path: Option<String>,
    /// `present_to_user`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub present_to_user: Option<bool>,
    /// `query`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// `n`: optional number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<Number>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
