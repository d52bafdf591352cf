//! Typed outputs of the agent and task tools (see [`super::ToolOutput`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use crate::usage::Usage;

/// The output of `Agent`: every field of its 3 forms, those not in all of them optional.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AgentOutput {
    /// `agentId`: optional text.
    #[serde(rename = "agentId", default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// `agentType`: optional text.
    #[serde(rename = "agentType", default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// `content`: optional list of [`AgentText`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<AgentText>>,
    /// `resolvedModel`: optional text.
    #[serde(
        rename = "resolvedModel",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub resolved_model: Option<String>,
    /// `modelsUsed`: optional list of text.
    #[serde(
        rename = "modelsUsed",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub models_used: Option<Vec<String>>,
    /// `totalToolUseCount`: optional number.
    #[serde(
        rename = "totalToolUseCount",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub total_tool_use_count: Option<Number>,
    /// `totalDurationMs`: optional number.
    #[serde(
        rename = "totalDurationMs",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub total_duration_ms: Option<Number>,
    /// `totalTokens`: optional number.
    #[serde(
        rename = "totalTokens",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub total_tokens: Option<Number>,
    /// `usage`: optional [`Usage`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// `toolsUsed`: optional list of text.
    #[serde(rename = "toolsUsed", default, skip_serializing_if = "Option::is_none")]
    pub tools_used: Option<Vec<String>>,
    /// `toolStats`: optional [`AgentToolStats`].
    #[serde(rename = "toolStats", default, skip_serializing_if = "Option::is_none")]
    pub tool_stats: Option<AgentToolStats>,
    /// `status`: text.
    pub status: String,
    /// `prompt`: text.
    pub prompt: String,
    /// `worktreePath`: optional text.
    #[serde(
        rename = "worktreePath",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub worktree_path: Option<String>,
    /// `worktreeBranch`: optional text.
    #[serde(
        rename = "worktreeBranch",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub worktree_branch: Option<String>,
    /// `isAsync`: optional flag.
    #[serde(rename = "isAsync", default, skip_serializing_if = "Option::is_none")]
    pub is_async: Option<bool>,
    /// `description`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `outputFile`: optional text.
    #[serde(
        rename = "outputFile",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub output_file: Option<String>,
    /// `canReadOutputFile`: optional flag.
    #[serde(
        rename = "canReadOutputFile",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub can_read_output_file: Option<bool>,
    /// `taskId`: optional text.
    #[serde(rename = "taskId", default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// `sessionUrl`: optional text.
    #[serde(
        rename = "sessionUrl",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub session_url: Option<String>,
    /// Whether the agent can be continued with another message (seen from CLI 2.1.330; not in the SDK types).
    #[serde(
        rename = "canContinueAgent",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub can_continue_agent: Option<bool>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `TodoWrite`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TodoWriteOutput {
    /// `oldTodos`: JSON value.
    #[serde(rename = "oldTodos")]
    pub old_todos: Value,
    /// `newTodos`: JSON value.
    #[serde(rename = "newTodos")]
    pub new_todos: Value,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `TaskCreate`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TaskCreateOutput {
    /// `task`: JSON value.
    pub task: Value,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `TaskGet`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TaskGetOutput {
    /// `task`: JSON value.
    pub task: Value,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `TaskUpdate`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TaskUpdateOutput {
    /// `success`: flag.
    pub success: bool,
    /// `taskId`: text.
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// `updatedFields`: list of text.
    #[serde(rename = "updatedFields")]
    pub updated_fields: Vec<String>,
    /// `error`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `statusChange`: optional JSON value.
    #[serde(
        rename = "statusChange",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub status_change: Option<Value>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `TaskList`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TaskListOutput {
    /// `tasks`: JSON value.
    pub tasks: Value,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `Workflow`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct WorkflowOutput {
    /// `status`: text.
    pub status: String,
    /// `taskId`: text.
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// `taskType`: optional text.
    #[serde(rename = "taskType", default, skip_serializing_if = "Option::is_none")]
    pub task_type: Option<String>,
    /// `workflowName`: optional text.
    #[serde(
        rename = "workflowName",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub workflow_name: Option<String>,
    /// `runId`: optional text.
    #[serde(rename = "runId", default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// `summary`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// `transcriptDir`: optional text.
    #[serde(
        rename = "transcriptDir",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub transcript_dir: Option<String>,
    /// `scriptPath`: optional text.
    #[serde(
        rename = "scriptPath",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub script_path: Option<String>,
    /// `sessionUrl`: optional text.
    #[serde(
        rename = "sessionUrl",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub session_url: Option<String>,
    /// `warning`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// `error`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `ReportFindings`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportFindingsOutput {
    /// `count`: number.
    pub count: Number,
    /// `level`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// `findings`: JSON value.
    pub findings: Value,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `SendFeedback`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SendFeedbackOutput {
    /// `success`: flag.
    pub success: bool,
    /// `message`: text.
    pub message: String,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A text block of a finished subagent's answer (`content` of an [`AgentOutput`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AgentText {
    /// Always `text`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The text.
    pub text: String,
    /// Citations: absent, `null` or a list.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub citations: Option<Option<Vec<Value>>>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What a subagent's tool calls did (`toolStats` of an [`AgentOutput`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentToolStats {
    /// Reads.
    #[serde(rename = "readCount")]
    pub read_count: Number,
    /// Searches.
    #[serde(rename = "searchCount")]
    pub search_count: Number,
    /// Shell commands.
    #[serde(rename = "bashCount")]
    pub bash_count: Number,
    /// Files edited.
    #[serde(rename = "editFileCount")]
    pub edit_file_count: Number,
    /// Lines added.
    #[serde(rename = "linesAdded")]
    pub lines_added: Number,
    /// Lines removed.
    #[serde(rename = "linesRemoved")]
    pub lines_removed: Number,
    /// Other tool calls.
    #[serde(rename = "otherToolCount")]
    pub other_tool_count: Number,
    /// Frames.
    #[serde(
        rename = "frameCount",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub frame_count: Option<Number>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
