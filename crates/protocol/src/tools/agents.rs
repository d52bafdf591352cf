//! Typed inputs of the agents tools (see [`super::ToolInput`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The input of `Agent` (also `Task`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AgentInput {
    /// `description`: text.
    pub description: String,
    /// `prompt`: text.
    pub prompt: String,
    /// `subagent_type`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_type: Option<String>,
    /// `model`: optional text (`sonnet`, `opus`, `haiku`, `fable`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `effort`: optional text (`low`, `medium`, `high`, `xhigh`, `max`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
    /// `run_in_background`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_in_background: Option<bool>,
    /// `name`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `team_name`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team_name: Option<String>,
    /// `mode`: optional text (`acceptEdits`, `auto`, `bypassPermissions`, `default`, `dontAsk`, `plan`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// `isolation`: optional text (`worktree`, `remote`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `TodoWrite`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TodoWriteInput {
    /// `todos`: JSON value.
    pub todos: Value,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `TaskCreate`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TaskCreateInput {
    /// `subject`: text.
    pub subject: String,
    /// `description`: text.
    pub description: String,
    /// `activeForm`: optional text.
    #[serde(
        rename = "activeForm",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub active_form: Option<String>,
    /// `metadata`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `TaskGet`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TaskGetInput {
    /// `taskId`: text.
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `TaskUpdate`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TaskUpdateInput {
    /// `taskId`: text.
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// `subject`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// `description`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `activeForm`: optional text.
    #[serde(
        rename = "activeForm",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub active_form: Option<String>,
    /// `status`: optional text (`pending`, `in_progress`, `completed`, `deleted`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// `addBlocks`: optional list of strings.
    #[serde(rename = "addBlocks", default, skip_serializing_if = "Option::is_none")]
    pub add_blocks: Option<Vec<String>>,
    /// `addBlockedBy`: optional list of strings.
    #[serde(
        rename = "addBlockedBy",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub add_blocked_by: Option<Vec<String>>,
    /// `owner`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// `metadata`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `TaskList`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TaskListInput {
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `Workflow`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct WorkflowInput {
    /// `script`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    /// `name`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `description`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `title`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `args`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Value>,
    /// `scriptPath`: optional text.
    #[serde(
        rename = "scriptPath",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub script_path: Option<String>,
    /// `resumeFromRunId`: optional text.
    #[serde(
        rename = "resumeFromRunId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub resume_from_run_id: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `ReportFindings`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReportFindingsInput {
    /// `level`: optional text (`low`, `medium`, `high`, `xhigh`, `max`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// `findings`: JSON value.
    pub findings: Value,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `SendFeedback`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SendFeedbackInput {
    /// `type`: text (`bug`, `idea`, `missing_capability`).
    #[serde(rename = "type")]
    pub kind: String,
    /// `title`: text.
    pub title: String,
    /// `details`: text.
    pub details: String,
    /// `area`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area: Option<String>,
    /// `failure_mode`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_mode: Option<Value>,
    /// `task_category`: optional text (`code_edit`, `debug`, `explain`, `plan`, `shell`, `search`, `review`, `other`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_category: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
