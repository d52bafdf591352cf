//! Typed outputs of the platform tools (see [`super::ToolOutput`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// The output of `CronCreate`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CronCreateOutput {
    /// `id`: text.
    pub id: String,
    /// `humanSchedule`: text.
    #[serde(rename = "humanSchedule")]
    pub human_schedule: String,
    /// `recurring`: flag.
    pub recurring: bool,
    /// `durable`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub durable: Option<bool>,
    /// `nextFireAt`: optional number.
    #[serde(
        rename = "nextFireAt",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub next_fire_at: Option<Number>,
    /// `maxAgeMs`: optional number.
    #[serde(rename = "maxAgeMs", default, skip_serializing_if = "Option::is_none")]
    pub max_age_ms: Option<Number>,
    /// `otherOneShots`: optional JSON value.
    #[serde(
        rename = "otherOneShots",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub other_one_shots: Option<Value>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `CronDelete`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CronDeleteOutput {
    /// `id`: text.
    pub id: String,
    /// `endedLoopWakeup`: optional flag.
    #[serde(
        rename = "endedLoopWakeup",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub ended_loop_wakeup: Option<bool>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `CronList`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CronListOutput {
    /// `jobs`: JSON value.
    pub jobs: Value,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `ScheduleWakeup`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScheduleWakeupOutput {
    /// `scheduledFor`: number.
    #[serde(rename = "scheduledFor")]
    pub scheduled_for: Number,
    /// `clampedDelaySeconds`: number.
    #[serde(rename = "clampedDelaySeconds")]
    pub clamped_delay_seconds: Number,
    /// `wasClamped`: flag.
    #[serde(rename = "wasClamped")]
    pub was_clamped: bool,
    /// `stopped`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<bool>,
    /// `cancelledWakeups`: optional number.
    #[serde(
        rename = "cancelledWakeups",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub cancelled_wakeups: Option<Number>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `RemoteTrigger`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RemoteTriggerOutput {
    /// `status`: number.
    pub status: Number,
    /// `json`: text.
    pub json: String,
    /// `summary`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `ShowOnboardingRolePicker`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ShowOnboardingRolePickerOutput {
    /// `role`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// `dismissed`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dismissed: Option<bool>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `OfferChromeSetup`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct OfferChromeSetupOutput {
    /// `outcome`: text.
    pub outcome: String,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `ReadNotifications`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadNotificationsOutput {
    /// `notifications`: JSON value.
    pub notifications: Value,
    /// `remaining`: number.
    pub remaining: Number,
    /// `read_at`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_at: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `PushNotification`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PushNotificationOutput {
    /// `message`: text.
    pub message: String,
    /// `pushSent`: optional flag.
    #[serde(rename = "pushSent", default, skip_serializing_if = "Option::is_none")]
    pub push_sent: Option<bool>,
    /// `localSent`: optional flag.
    #[serde(rename = "localSent", default, skip_serializing_if = "Option::is_none")]
    pub local_sent: Option<bool>,
    /// `disabledReason`: optional text.
    #[serde(
        rename = "disabledReason",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub disabled_reason: Option<String>,
    /// `sentAt`: optional text.
    #[serde(rename = "sentAt", default, skip_serializing_if = "Option::is_none")]
    pub sent_at: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `ClaudeDesign`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ClaudeDesignOutput {
    /// `operation`: text.
    pub operation: String,
    /// `content`: JSON value.
    pub content: Value,
    /// `isError`: optional flag.
    #[serde(rename = "isError", default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `Projects`: every field of its 7 forms, those not in all of them optional.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ProjectsOutput {
    /// `method`: text.
    pub method: String,
    /// `notice`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
    /// `local_file`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_file: Option<String>,
    /// `name`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `description`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `instructions`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// `docs`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docs: Option<Value>,
    /// `files`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<Value>,
    /// `sync_sources`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync_sources: Option<Value>,
    /// `knowledge`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knowledge: Option<Value>,
    /// `path`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `file_kind`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_kind: Option<String>,
    /// `content`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// `created_at`: optional text or `null`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub created_at: Option<Option<String>>,
    /// `rag`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rag: Option<bool>,
    /// `hits`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hits: Option<Value>,
    /// `doc_uuid`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc_uuid: Option<String>,
    /// `replaced`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaced: Option<bool>,
    /// `present_to_user`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub present_to_user: Option<bool>,
    /// `local_path`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_path: Option<String>,
    /// `deleted`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deleted: Option<bool>,
    /// `truncated`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    /// `size_bytes`: optional number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<Number>,
    /// `updated_at`: optional text or `null`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub updated_at: Option<Option<String>>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
