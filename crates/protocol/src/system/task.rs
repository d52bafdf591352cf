//! Background task messages: `system/task_started`, `task_progress`, `task_updated`,
//! `task_notification` and `background_tasks_changed`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

crate::string_enum! {
    /// How a task ended, in `task_notification`.
    #[derive(Default)]
    pub enum TaskNotificationStatus {
        /// The task completed.
        #[default]
        Completed = "completed",
        /// The task failed.
        Failed = "failed",
        /// The task was stopped.
        Stopped = "stopped",
    }
}

crate::string_enum! {
    /// Why a task ended other than by completing, failing or being stopped.
    pub enum TaskEndReason {
        /// The worker restarted and found the task orphaned.
        WorkerRestart = "worker_restart",
    }
}

crate::string_enum! {
    /// The state of a task, in a `task_updated` patch.
    pub enum TaskStatus {
        /// Not started yet.
        Pending = "pending",
        /// Running.
        Running = "running",
        /// Completed.
        Completed = "completed",
        /// Failed.
        Failed = "failed",
        /// Killed.
        Killed = "killed",
        /// Paused.
        Paused = "paused",
    }
}

/// Token, tool and time totals of a task so far.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TaskUsage {
    /// Tokens used.
    #[serde(default)]
    pub total_tokens: u64,
    /// Tool calls made.
    #[serde(default)]
    pub tool_uses: u64,
    /// Elapsed time, in milliseconds.
    #[serde(default)]
    pub duration_ms: u64,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A file an MCP task returned by reference (an MCP `resource_link`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpResourceLink {
    /// Resource URI.
    #[serde(default)]
    pub uri: String,
    /// Resource name.
    #[serde(default)]
    pub name: String,
    /// Display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "mimeType")]
    pub mime_type: Option<String>,
    /// Size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// MCP annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Map<String, Value>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/task_started`: a subagent, shell, workflow or other task began.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TaskStarted {
    /// Task id.
    #[serde(default)]
    pub task_id: String,
    /// Id of this run of the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The tool call that started the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// What the task does.
    #[serde(default)]
    pub description: String,
    /// Subagent type, for subagent tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_type: Option<String>,
    /// Whether the task was registered in the background.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_backgrounded: Option<bool>,
    /// Nesting depth of a spawned subagent (1 = top level).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spawn_depth: Option<u64>,
    /// The subagent task that launched this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_task_id: Option<String>,
    /// Task type (`local_agent`, `local_bash`, `local_workflow`, `mcp_task`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_type: Option<String>,
    /// Workflow name, for `local_workflow` tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflow_name: Option<String>,
    /// What this run was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Housekeeping task to hide from the transcript.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_transcript: Option<bool>,
    /// Not activity: exclude from activity indicators.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ambient: Option<bool>,
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

/// `system/task_progress`: a running task's totals so far.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TaskProgress {
    /// Task id.
    #[serde(default)]
    pub task_id: String,
    /// Id of this run of the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The tool call that started the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// What the task does.
    #[serde(default)]
    pub description: String,
    /// Subagent type, for subagent tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_type: Option<String>,
    /// Totals so far.
    #[serde(default)]
    pub usage: TaskUsage,
    /// The last tool the task used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_tool_name: Option<String>,
    /// One-line status for the task's row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
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

/// The task fields that changed, in `task_updated`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TaskPatch {
    /// New status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<TaskStatus>,
    /// New description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// End time (Unix milliseconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_time: Option<u64>,
    /// Total time spent paused, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_paused_ms: Option<u64>,
    /// Error message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Whether the task is now in the background.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_backgrounded: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/task_updated`: fields of a task changed; merge the patch into local state.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TaskUpdated {
    /// Task id.
    #[serde(default)]
    pub task_id: String,
    /// Id of this run of the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The fields that changed.
    #[serde(default)]
    pub patch: TaskPatch,
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

/// `system/task_notification`: a task ended.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TaskNotification {
    /// Task id.
    #[serde(default)]
    pub task_id: String,
    /// Id of this run of the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The tool call that started the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// How the task ended.
    #[serde(default)]
    pub status: TaskNotificationStatus,
    /// Why, when the end was not ordinary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<TaskEndReason>,
    /// File holding the task's output.
    #[serde(default)]
    pub output_file: String,
    /// Summary of the outcome.
    #[serde(default)]
    pub summary: String,
    /// Whether `summary` is the task's own final report rather than a line about it (seen
    /// from CLI 2.1.330; not in the SDK types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_is_report: Option<bool>,
    /// Final totals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TaskUsage>,
    /// Files a backgrounded MCP task returned by reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_links: Option<Vec<McpResourceLink>>,
    /// Housekeeping task to hide from the transcript.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_transcript: Option<bool>,
    /// Not activity: exclude from activity indicators.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ambient: Option<bool>,
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

/// One live background task, in `background_tasks_changed`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BackgroundTask {
    /// Task id.
    #[serde(default)]
    pub task_id: String,
    /// Id of this run of the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// Task type.
    #[serde(default)]
    pub task_type: String,
    /// Agent type of a `local_agent` task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_type: Option<String>,
    /// What the task does.
    #[serde(default)]
    pub description: String,
    /// The subagent task that launched this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_task_id: Option<String>,
    /// Not activity: exclude from activity indicators.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ambient: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/background_tasks_changed`: the full set of live background tasks; replace the
/// local set with it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BackgroundTasksChanged {
    /// Every live background task after the change.
    #[serde(default)]
    pub tasks: Vec<BackgroundTask>,
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
