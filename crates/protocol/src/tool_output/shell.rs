//! Typed outputs of the shell tools (see [`super::ToolOutput`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// The output of `Bash`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BashOutput {
    /// `stdout`: text.
    pub stdout: String,
    /// `stderr`: text.
    pub stderr: String,
    /// `rawOutputPath`: optional text.
    #[serde(
        rename = "rawOutputPath",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub raw_output_path: Option<String>,
    /// `interrupted`: flag.
    pub interrupted: bool,
    /// `isImage`: optional flag.
    #[serde(rename = "isImage", default, skip_serializing_if = "Option::is_none")]
    pub is_image: Option<bool>,
    /// `backgroundTaskId`: optional text.
    #[serde(
        rename = "backgroundTaskId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub background_task_id: Option<String>,
    /// `backgroundedByUser`: optional flag.
    #[serde(
        rename = "backgroundedByUser",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub backgrounded_by_user: Option<bool>,
    /// `timedOutAfterMs`: optional number.
    #[serde(
        rename = "timedOutAfterMs",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub timed_out_after_ms: Option<Number>,
    /// `backgroundCwdHint`: optional text.
    #[serde(
        rename = "backgroundCwdHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub background_cwd_hint: Option<String>,
    /// `backgroundEndsWithFinalResponse`: optional flag.
    #[serde(
        rename = "backgroundEndsWithFinalResponse",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub background_ends_with_final_response: Option<bool>,
    /// `backgroundWakesOwner`: optional flag.
    #[serde(
        rename = "backgroundWakesOwner",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub background_wakes_owner: Option<bool>,
    /// `dangerouslyDisableSandbox`: optional flag.
    #[serde(
        rename = "dangerouslyDisableSandbox",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub dangerously_disable_sandbox: Option<bool>,
    /// `returnCodeInterpretation`: optional text.
    #[serde(
        rename = "returnCodeInterpretation",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub return_code_interpretation: Option<String>,
    /// `noOutputExpected`: optional flag.
    #[serde(
        rename = "noOutputExpected",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub no_output_expected: Option<bool>,
    /// `structuredContent`: optional JSON value.
    #[serde(
        rename = "structuredContent",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// `persistedOutputPath`: optional text.
    #[serde(
        rename = "persistedOutputPath",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub persisted_output_path: Option<String>,
    /// `persistedOutputSize`: optional number.
    #[serde(
        rename = "persistedOutputSize",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub persisted_output_size: Option<Number>,
    /// `staleReadFileStateHint`: optional text.
    #[serde(
        rename = "staleReadFileStateHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub stale_read_file_state_hint: Option<String>,
    /// `ghRateLimitHint`: optional text.
    #[serde(
        rename = "ghRateLimitHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub gh_rate_limit_hint: Option<String>,
    /// `gitOperation`: optional JSON value.
    #[serde(
        rename = "gitOperation",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub git_operation: Option<Value>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `TaskStop`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TaskStopOutput {
    /// `message`: text.
    pub message: String,
    /// `task_id`: text.
    pub task_id: String,
    /// `task_type`: text.
    pub task_type: String,
    /// `command`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `Monitor`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MonitorOutput {
    /// `taskId`: text.
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// `timeoutMs`: number.
    #[serde(rename = "timeoutMs")]
    pub timeout_ms: Number,
    /// `persistent`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persistent: Option<bool>,
    /// `keptInSandboxByCheck`: optional flag.
    #[serde(
        rename = "keptInSandboxByCheck",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub kept_in_sandbox_by_check: Option<bool>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
