//! Typed inputs of the planning tools (see [`super::ToolInput`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The input of `ExitPlanMode`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ExitPlanModeInput {
    /// `allowedPrompts`: optional JSON value.
    #[serde(
        rename = "allowedPrompts",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub allowed_prompts: Option<Value>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `EnterPlanMode`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct EnterPlanModeInput {
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `AskUserQuestion`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AskUserQuestionInput {
    /// `questions`: JSON value.
    pub questions: Value,
    /// `answers`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers: Option<Value>,
    /// `annotations`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// `metadata`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `SetGoal`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ProposeGoalInput {
    /// `condition`: text.
    pub condition: String,
    /// `ask_user`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ask_user: Option<bool>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `propose_skills`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ProposeSkillsInput {
    /// `proposals`: JSON value.
    pub proposals: Value,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `EnterWorktree`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct EnterWorktreeInput {
    /// `name`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `path`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `ExitWorktree`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ExitWorktreeInput {
    /// `action`: text (`keep`, `remove`).
    pub action: String,
    /// `discard_changes`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discard_changes: Option<bool>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
