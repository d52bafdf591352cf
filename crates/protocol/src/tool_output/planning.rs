//! Typed outputs of the planning tools (see [`super::ToolOutput`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// The output of `ExitPlanMode`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ExitPlanModeOutput {
    /// `plan`: text or `null`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub plan: Option<Option<String>>,
    /// `isAgent`: flag.
    #[serde(rename = "isAgent")]
    pub is_agent: bool,
    /// `filePath`: optional text.
    #[serde(rename = "filePath", default, skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
    /// `hasTaskTool`: optional flag.
    #[serde(
        rename = "hasTaskTool",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub has_task_tool: Option<bool>,
    /// `planWasEdited`: optional flag.
    #[serde(
        rename = "planWasEdited",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub plan_was_edited: Option<bool>,
    /// `awaitingLeaderApproval`: optional flag.
    #[serde(
        rename = "awaitingLeaderApproval",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub awaiting_leader_approval: Option<bool>,
    /// `requestId`: optional text.
    #[serde(rename = "requestId", default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `EnterPlanMode`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct EnterPlanModeOutput {
    /// `message`: text.
    pub message: String,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `AskUserQuestion`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AskUserQuestionOutput {
    /// `questions`: JSON value.
    pub questions: Value,
    /// `answers`: JSON value.
    pub answers: Value,
    /// `response`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
    /// `annotations`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// `afkTimeoutMs`: optional number.
    #[serde(
        rename = "afkTimeoutMs",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub afk_timeout_ms: Option<Number>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `SetGoal`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ProposeGoalOutput {
    /// `condition`: text.
    pub condition: String,
    /// `askUser`: flag.
    #[serde(rename = "askUser")]
    pub ask_user: bool,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `propose_skills`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProposeSkillsOutput {
    /// `proposalCount`: number.
    #[serde(rename = "proposalCount")]
    pub proposal_count: Number,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `EnterWorktree`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct EnterWorktreeOutput {
    /// `worktreePath`: text.
    #[serde(rename = "worktreePath")]
    pub worktree_path: String,
    /// `worktreeBranch`: optional text.
    #[serde(
        rename = "worktreeBranch",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub worktree_branch: Option<String>,
    /// `message`: text.
    pub message: String,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `ExitWorktree`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ExitWorktreeOutput {
    /// `action`: text.
    pub action: String,
    /// `originalCwd`: text.
    #[serde(rename = "originalCwd")]
    pub original_cwd: String,
    /// `worktreePath`: text.
    #[serde(rename = "worktreePath")]
    pub worktree_path: String,
    /// `worktreeBranch`: optional text.
    #[serde(
        rename = "worktreeBranch",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub worktree_branch: Option<String>,
    /// `tmuxSessionName`: optional text.
    #[serde(
        rename = "tmuxSessionName",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub tmux_session_name: Option<String>,
    /// `discardedFiles`: optional number.
    #[serde(
        rename = "discardedFiles",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub discarded_files: Option<Number>,
    /// `discardedCommits`: optional number.
    #[serde(
        rename = "discardedCommits",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub discarded_commits: Option<Number>,
    /// `message`: text.
    pub message: String,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
