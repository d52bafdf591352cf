//! Typed inputs of the shell tools (see [`super::ToolInput`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// The input of `Bash`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BashInput {
    /// `command`: text.
    pub command: String,
    /// `timeout`: optional number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<Number>,
    /// `description`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `run_in_background`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_in_background: Option<bool>,
    /// `dangerouslyDisableSandbox`: optional flag.
    #[serde(
        rename = "dangerouslyDisableSandbox",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub dangerously_disable_sandbox: Option<bool>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `BashOutput`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BashOutputInput {
    /// `bash_id`: text.
    pub bash_id: String,
    /// `filter`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `KillShell` (also `KillBash`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct KillShellInput {
    /// `shell_id`: text.
    pub shell_id: String,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `TaskStop`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TaskStopInput {
    /// `task_id`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// `shell_id`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell_id: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `Monitor`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MonitorInput {
    /// `description`: text.
    pub description: String,
    /// `timeout_ms`: number.
    pub timeout_ms: Number,
    /// `command`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// `ws`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ws: Option<Value>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
