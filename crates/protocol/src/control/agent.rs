//! Requests the CLI sends to the host, which the host must answer: permission prompts, hook
//! callbacks, MCP messages for in-process servers, elicitations and dialogs; and the answers.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::hooks::{ElicitationAction, ElicitationMode, HookInput};
use crate::mcp::McpServerProvenance;
use crate::permission::PermissionUpdate;

crate::string_enum! {
    /// Why a permission ask escalated to the host (`decision_reason_type`).
    pub enum DecisionReasonType {
        /// A permission rule.
        Rule = "rule",
        /// The permission mode.
        Mode = "mode",
        /// A compound Bash command's parts.
        SubcommandResults = "subcommandResults",
        /// The permission prompt tool.
        PermissionPromptTool = "permissionPromptTool",
        /// A hook.
        Hook = "hook",
        /// An async agent.
        AsyncAgent = "asyncAgent",
        /// A sandbox override.
        SandboxOverride = "sandboxOverride",
        /// The working directory.
        WorkingDir = "workingDir",
        /// A safety check.
        SafetyCheck = "safetyCheck",
        /// The auto-mode classifier.
        Classifier = "classifier",
        /// Anything else (`"other"` on the wire).
        OtherReason = "other",
    }
}

/// A user-configured ask rule that forced a prompt.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MatchedAskRule {
    /// Where the rule comes from.
    #[serde(default)]
    pub source: String,
    /// The tool the rule names.
    #[serde(default)]
    pub tool_name: String,
    /// The rule's content, e.g. a command prefix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_content: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `can_use_tool`: the CLI asks whether a tool may run with this input. Sent when the CLI runs
/// with `--permission-prompt-tool stdio`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CanUseToolRequest {
    /// The tool's name.
    #[serde(default)]
    pub tool_name: String,
    /// The MCP server behind an `mcp__*` tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_server: Option<McpServerProvenance>,
    /// The tool's input.
    #[serde(default)]
    pub input: Value,
    /// Rule updates the host may offer ("always allow …").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_suggestions: Option<Vec<PermissionUpdate>>,
    /// The path that made the ask necessary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_path: Option<String>,
    /// Why the ask escalated, for the dialog (may carry ANSI escapes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_reason: Option<String>,
    /// Why the ask escalated, for policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_reason_type: Option<DecisionReasonType>,
    /// Whether every safety check involved may be approved by the classifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classifier_approvable: Option<bool>,
    /// Do not offer a persistent "don't ask again".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suppress_always_allow_rule: Option<bool>,
    /// Do not pre-select approve.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_to_no: Option<bool>,
    /// The ask rule that forced this prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched_ask_rule: Option<MatchedAskRule>,
    /// Header for the dialog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Short tool label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// The tool_use block this ask is for (absent before 2.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// The subagent making the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// Subtitle for the dialog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// One-tap approve/deny must not be offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_user_interaction: Option<bool>,
    /// The ask comes only from the MCP server's own always-ask policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_policy_ask_only: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `hook_callback`: run one of the hook callbacks the host registered in `initialize`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookCallbackRequest {
    /// The id the host gave the callback (`hookCallbackIds`).
    #[serde(default)]
    pub callback_id: String,
    /// The hook's input, keyed by `hook_event_name`.
    pub input: HookInput,
    /// The tool call the hook is about, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `mcp_message`: one JSON-RPC message for an in-process SDK MCP server. The CLI sends it to
/// reach the host's server; a host may send one to deliver its server's own messages.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpMessageRequest {
    /// The SDK server's name.
    #[serde(default)]
    pub server_name: String,
    /// The JSON-RPC 2.0 request, notification or response.
    #[serde(default)]
    pub message: Value,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `mcp_message`: the server's JSON-RPC reply. A notification still gets
/// `{"jsonrpc":"2.0","result":{}}`; a host-sent message gets an empty success (`Null` here).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpMessageResponse {
    /// The JSON-RPC reply.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub mcp_response: Value,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `elicitation`: an MCP server asks the user for input.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ElicitationRequest {
    /// The asking server.
    #[serde(default)]
    pub mcp_server_name: String,
    /// What it asks.
    #[serde(default)]
    pub message: String,
    /// Form or URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ElicitationMode>,
    /// The URL to open, in URL mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Id of the elicitation, matched by `elicitation_complete`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// JSON Schema of the form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<Value>,
    /// The schema's top-level property names in the server's order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub property_order: Option<Vec<String>>,
    /// Permission-display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Short tool or server label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// Permission-display subtitle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `elicitation` (MCP's `ElicitResult`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ElicitationResponse {
    /// What the user did.
    #[serde(default)]
    pub action: ElicitationAction,
    /// The submitted form values, on accept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `request_user_dialog`: render a blocking dialog and return the user's choice. Sent only for
/// kinds the host declared in `initialize.supportedDialogKinds`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RequestUserDialogRequest {
    /// Which dialog to render (open set).
    #[serde(default)]
    pub dialog_kind: String,
    /// Dialog-specific data.
    #[serde(default)]
    pub payload: Map<String, Value>,
    /// The tool call the dialog belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::tagged_union! {
    /// The answer to `request_user_dialog`, keyed by `behavior`.
    pub enum UserDialogResponse: "behavior", "user dialog result" {
        /// The user made a choice.
        "completed" => Completed(UserDialogCompleted),
        /// The user dismissed the dialog; the CLI applies its default.
        "cancelled" => Cancelled(UserDialogCancelled),
    }
}

/// A dialog the user completed.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UserDialogCompleted {
    /// The choice, shaped per dialog kind.
    #[serde(default)]
    pub result: Value,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A dialog the user dismissed.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UserDialogCancelled {
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
