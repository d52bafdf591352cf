//! The event-specific parts of hook outputs, one struct per variant of
//! [`HookSpecificOutput`](super::HookSpecificOutput).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{ElicitationAction, HookPermissionDecision};
use crate::permission::{PermissionBehavior, PermissionUpdate};

/// Declares output structs whose only field is `additionalContext`.
macro_rules! context_output {
    ($($(#[$meta:meta])* $name:ident;)*) => {$(
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
        pub struct $name {
            /// Text added to the model's context.
            #[serde(rename = "additionalContext", default, skip_serializing_if = "Option::is_none")]
            pub additional_context: Option<String>,
            /// Fields this version does not know.
            #[serde(flatten)]
            pub extra: Map<String, Value>,
        }
    )*};
}

context_output! {
    /// Output for `PostToolUseFailure`.
    PostToolUseFailureOutput;
    /// Output for `PostToolBatch`.
    PostToolBatchOutput;
    /// Output for `Notification`.
    NotificationOutput;
    /// Output for `Setup`.
    SetupOutput;
    /// Output for `Stop`.
    StopOutput;
    /// Output for `SubagentStart`.
    SubagentStartOutput;
    /// Output for `SubagentStop`.
    SubagentStopOutput;
    /// Output for `PostModelSwitch`.
    PostModelSwitchOutput;
}

/// Declares output structs whose only field is `watchPaths`.
macro_rules! watch_output {
    ($($(#[$meta:meta])* $name:ident;)*) => {$(
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
        pub struct $name {
            /// Paths to watch for `FileChanged`.
            #[serde(rename = "watchPaths", default, skip_serializing_if = "Option::is_none")]
            pub watch_paths: Option<Vec<String>>,
            /// Fields this version does not know.
            #[serde(flatten)]
            pub extra: Map<String, Value>,
        }
    )*};
}

watch_output! {
    /// Output for `CwdChanged`.
    CwdChangedOutput;
    /// Output for `FileChanged`.
    FileChangedOutput;
}

/// Declares the output structs of the two elicitation events, which share one shape.
macro_rules! elicitation_output {
    ($($(#[$meta:meta])* $name:ident;)*) => {$(
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
        pub struct $name {
            /// Answer in the user's place.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub action: Option<ElicitationAction>,
            /// The form's content, when accepting.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub content: Option<Value>,
            /// Fields this version does not know.
            #[serde(flatten)]
            pub extra: Map<String, Value>,
        }
    )*};
}

elicitation_output! {
    /// Output for `Elicitation`.
    ElicitationOutput;
    /// Output for `ElicitationResult`.
    ElicitationResultOutput;
}

/// Output for `PreToolUse`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PreToolUseOutput {
    /// Allow, deny, ask or defer.
    #[serde(
        rename = "permissionDecision",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub permission_decision: Option<HookPermissionDecision>,
    /// Why.
    #[serde(
        rename = "permissionDecisionReason",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub permission_decision_reason: Option<String>,
    /// A replacement tool input.
    #[serde(
        rename = "updatedInput",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub updated_input: Option<Value>,
    /// Text added to the model's context.
    #[serde(
        rename = "additionalContext",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub additional_context: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Output for `PostToolUse`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PostToolUseOutput {
    /// Text added to the model's context.
    #[serde(
        rename = "additionalContext",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub additional_context: Option<String>,
    /// Text given to the auto-mode classifier.
    #[serde(
        rename = "classifierContext",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub classifier_context: Option<String>,
    /// A replacement for the tool's output.
    #[serde(
        rename = "updatedToolOutput",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub updated_tool_output: Option<Value>,
    /// A replacement for an MCP tool's output.
    #[serde(
        rename = "updatedMCPToolOutput",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub updated_mcp_tool_output: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Output for `UserPromptSubmit`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UserPromptSubmitOutput {
    /// Text added to the model's context.
    #[serde(
        rename = "additionalContext",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub additional_context: Option<String>,
    /// A title for the session.
    #[serde(
        rename = "sessionTitle",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub session_title: Option<String>,
    /// Drop the prompt itself, keeping only the added context.
    #[serde(
        rename = "suppressOriginalPrompt",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub suppress_original_prompt: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Output for `UserPromptExpansion`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UserPromptExpansionOutput {
    /// Text added to the model's context.
    #[serde(
        rename = "additionalContext",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub additional_context: Option<String>,
    /// Drop the expanded prompt, keeping only the added context.
    #[serde(
        rename = "suppressOriginalPrompt",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub suppress_original_prompt: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Output for `SessionStart`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SessionStartOutput {
    /// Text added to the model's context.
    #[serde(
        rename = "additionalContext",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub additional_context: Option<String>,
    /// A first user message to send.
    #[serde(
        rename = "initialUserMessage",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub initial_user_message: Option<String>,
    /// A title for the session.
    #[serde(
        rename = "sessionTitle",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub session_title: Option<String>,
    /// Paths to watch for `FileChanged`.
    #[serde(
        rename = "watchPaths",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub watch_paths: Option<Vec<String>>,
    /// Reload skills.
    #[serde(
        rename = "reloadSkills",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub reload_skills: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Output for `PreModelSwitch`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PreModelSwitchOutput {
    /// Allow, deny or ask about the switch.
    #[serde(
        rename = "permissionDecision",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub permission_decision: Option<PermissionBehavior>,
    /// Why.
    #[serde(
        rename = "permissionDecisionReason",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub permission_decision_reason: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Output for `PermissionRequest`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PermissionRequestOutput {
    /// The decision, in place of the prompt.
    #[serde(default)]
    pub decision: PermissionRequestDecision,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::tagged_union! {
    /// A `PermissionRequest` hook's decision: a union on `behavior`.
    pub enum PermissionRequestDecision: "behavior", "permission request decision" {
        /// Let the tool run.
        "allow" => Allow(PermissionRequestAllow),
        /// Refuse the call.
        "deny" => Deny(PermissionRequestDeny),
    }
}

/// A deny without a message, the cautious choice.
impl Default for PermissionRequestDecision {
    fn default() -> Self {
        Self::Deny(PermissionRequestDeny::default())
    }
}

/// A `PermissionRequest` hook lets the tool run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PermissionRequestAllow {
    /// A replacement tool input.
    #[serde(
        rename = "updatedInput",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub updated_input: Option<Value>,
    /// Permission changes to apply.
    #[serde(
        rename = "updatedPermissions",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub updated_permissions: Option<Vec<PermissionUpdate>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A `PermissionRequest` hook refuses the call.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PermissionRequestDeny {
    /// Why, shown to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Whether to stop the whole turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupt: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Output for `PermissionDenied`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PermissionDeniedOutput {
    /// Let the model retry the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Output for `WorktreeCreate`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct WorktreeCreateOutput {
    /// Where the hook created the worktree.
    #[serde(rename = "worktreePath")]
    #[serde(default)]
    pub worktree_path: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Output for `MessageDisplay`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MessageDisplayOutput {
    /// What to display instead of the lines.
    #[serde(
        rename = "displayContent",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub display_content: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Output for `PreSkillShellCommand`. `allow` adds nothing (the command runs unless a hook
/// refuses it); `deny`, `ask` and `defer` all keep it from running.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PreSkillShellCommandOutput {
    /// Allow, deny, ask or defer.
    #[serde(
        rename = "permissionDecision",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub permission_decision: Option<HookPermissionDecision>,
    /// Why.
    #[serde(
        rename = "permissionDecisionReason",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub permission_decision_reason: Option<String>,
    /// Never applied: any value keeps the command from running.
    #[serde(
        rename = "updatedInput",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub updated_input: Option<Map<String, Value>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
