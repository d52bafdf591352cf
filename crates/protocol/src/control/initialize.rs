//! `initialize`: what a host registers with the CLI (hooks, SDK MCP servers, agents, prompts)
//! and what the CLI answers about the session (commands, agents, models, account, …).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{AgentDefinition, SdkPluginConfig};
use crate::hooks::HookMatchers;
use crate::mcp::{McpServerConfig, McpServerToolPolicy};
use crate::permission::PermissionMode;
use crate::system::SessionState;

/// `initialize`: configure the session for an SDK host. Optional: a bare user message also
/// starts a session.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct InitializeRequest {
    /// Hook callbacks by event name (`PreToolUse`, …); the Python SDK sends `null` for none.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub hooks: Option<Option<HookMatchers>>,
    /// Names of the MCP servers the host runs in process (reached through `mcp_message`).
    #[serde(
        default,
        rename = "sdkMcpServers",
        skip_serializing_if = "Option::is_none"
    )]
    pub sdk_mcp_servers: Option<Vec<String>>,
    /// Settings for those servers, by name.
    #[serde(
        default,
        rename = "sdkMcpServerConfigs",
        skip_serializing_if = "Option::is_none"
    )]
    pub sdk_mcp_server_configs: Option<BTreeMap<String, SdkMcpServerSettings>>,
    /// Handshake results the host already got from those servers, by name.
    #[serde(
        default,
        rename = "sdkMcpServerManifests",
        skip_serializing_if = "Option::is_none"
    )]
    pub sdk_mcp_server_manifests: Option<BTreeMap<String, SdkMcpServerManifest>>,
    /// The host's statement that the manifests were captured for this very send.
    #[serde(
        default,
        rename = "sdkMcpServerManifestsOrigin",
        skip_serializing_if = "Option::is_none"
    )]
    pub sdk_mcp_server_manifests_origin: Option<ManifestsOrigin>,
    /// JSON Schema the final answer must follow (structured output).
    #[serde(
        default,
        rename = "jsonSchema",
        skip_serializing_if = "Option::is_none"
    )]
    pub json_schema: Option<Value>,
    /// A custom system prompt, in parts.
    #[serde(
        default,
        rename = "systemPrompt",
        skip_serializing_if = "Option::is_none"
    )]
    pub system_prompt: Option<Vec<String>>,
    /// Text appended to the default system prompt.
    #[serde(
        default,
        rename = "appendSystemPrompt",
        skip_serializing_if = "Option::is_none"
    )]
    pub append_system_prompt: Option<String>,
    /// Record the system prompt once and reuse it (default `true`).
    #[serde(
        default,
        rename = "systemPromptSnapshot",
        skip_serializing_if = "Option::is_none"
    )]
    pub system_prompt_snapshot: Option<bool>,
    /// Custom workflow body for the plan-mode reminder.
    #[serde(
        default,
        rename = "planModeInstructions",
        skip_serializing_if = "Option::is_none"
    )]
    pub plan_mode_instructions: Option<String>,
    /// Tool-name aliases applied before name resolution.
    #[serde(
        default,
        rename = "toolAliases",
        skip_serializing_if = "Option::is_none"
    )]
    pub tool_aliases: Option<BTreeMap<String, String>>,
    /// Move per-user dynamic sections out of the cached system prompt.
    #[serde(
        default,
        rename = "excludeDynamicSections",
        skip_serializing_if = "Option::is_none"
    )]
    pub exclude_dynamic_sections: Option<bool>,
    /// Custom subagents, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<BTreeMap<String, AgentDefinition>>,
    /// The session title (skips automatic title generation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Load only the skills with these names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<String>>,
    /// Emit prompt suggestions.
    #[serde(
        default,
        rename = "promptSuggestions",
        skip_serializing_if = "Option::is_none"
    )]
    pub prompt_suggestions: Option<bool>,
    /// Emit progress summaries for subagents.
    #[serde(
        default,
        rename = "agentProgressSummaries",
        skip_serializing_if = "Option::is_none"
    )]
    pub agent_progress_summaries: Option<bool>,
    /// Forward subagents' text messages.
    #[serde(
        default,
        rename = "forwardSubagentText",
        skip_serializing_if = "Option::is_none"
    )]
    pub forward_subagent_text: Option<bool>,
    /// `request_user_dialog` kinds this host can render.
    #[serde(
        default,
        rename = "supportedDialogKinds",
        skip_serializing_if = "Option::is_none"
    )]
    pub supported_dialog_kinds: Option<Vec<String>>,
    /// The host shows a per-task stop control wired to `stop_task`.
    #[serde(
        default,
        rename = "perTaskStopAffordance",
        skip_serializing_if = "Option::is_none"
    )]
    pub per_task_stop_affordance: Option<bool>,
    /// Plugins to load at launch (only under `--await-initialize`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugins: Option<Vec<SdkPluginConfig>>,
    /// MCP servers for the CLI to run, by name (only under `--await-initialize`).
    #[serde(
        default,
        rename = "mcpServers",
        skip_serializing_if = "Option::is_none"
    )]
    pub mcp_servers: Option<BTreeMap<String, McpServerConfig>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Host-declared settings for one SDK MCP server (`sdkMcpServerConfigs` entry).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SdkMcpServerSettings {
    /// Per-call timeout in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    /// Per-tool permission policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<McpServerToolPolicy>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An SDK MCP server's own handshake output, captured by the host (`sdkMcpServerManifests`
/// entry).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SdkMcpServerManifest {
    /// The server's JSON-RPC `initialize` result, verbatim.
    #[serde(rename = "initializeResult")]
    #[serde(default)]
    pub initialize_result: Map<String, Value>,
    /// The server's JSON-RPC `tools/list` result, verbatim.
    #[serde(
        default,
        rename = "toolsListResult",
        skip_serializing_if = "Option::is_none"
    )]
    pub tools_list_result: Option<Map<String, Value>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// Who composed `sdkMcpServerManifests`.
    pub enum ManifestsOrigin {
        /// Captured by the host for this send.
        HostPerSend = "host_per_send",
    }
}

crate::string_enum! {
    /// A named reasoning effort level.
    pub enum EffortLevel {
        /// Low.
        Low = "low",
        /// Medium.
        Medium = "medium",
        /// High.
        High = "high",
        /// Extra high.
        Xhigh = "xhigh",
        /// Maximum.
        Max = "max",
    }
}

/// The answer to `initialize`: the session as the CLI sees it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct InitializeResponse {
    /// Slash commands and skills.
    #[serde(default)]
    pub commands: Vec<SlashCommand>,
    /// Subagents (absent before 2.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<Vec<AgentInfo>>,
    /// The active output style.
    #[serde(default)]
    pub output_style: String,
    /// Every output style, built-in and custom.
    #[serde(default)]
    pub available_output_styles: Vec<String>,
    /// Where the user's custom output styles live.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_output_styles_dir: Option<String>,
    /// Models the session can switch to.
    #[serde(default)]
    pub models: Vec<ModelInfo>,
    /// The logged-in account.
    #[serde(default)]
    pub account: AccountInfo,
    /// The CLI's process id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u64>,
    /// The Claude Code version that runs the session's turns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claude_code_version: Option<String>,
    /// The permission mode in force.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_permission_mode: Option<PermissionMode>,
    /// Whether the request's hooks were registered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hooks_applied: Option<bool>,
    /// The CLI honours `onFailure` on hook matchers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook_on_failure_supported: Option<bool>,
    /// Whether every plugin the request listed is loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugins_applied: Option<bool>,
    /// Whether the request's `mcpServers` are the set read at launch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_servers_applied: Option<bool>,
    /// What became of each `sdkMcpServerManifests` entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdk_mcp_manifests_parked: Option<BTreeMap<String, ManifestParkState>>,
    /// Whether fast mode is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fast_mode_state: Option<FastModeState>,
    /// Why fast mode cannot serve now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fast_mode_disabled_reason: Option<FastModeDisabledReason>,
    /// Whether the session is idle, running or waiting on the host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_state: Option<SessionState>,
    /// Protocol capabilities the CLI advertises (e.g. `mcp_call_check_permissions_v1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Vec<String>>,
    /// Whether tool calls may run in the sandbox (seen from CLI 2.1.332; not in the SDK types,
    /// as the fields below, seen from 2.1.330).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_enabled: Option<bool>,
    /// Whether usage analytics are off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analytics_disabled: Option<bool>,
    /// How feedback is asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback_mode: Option<FeedbackMode>,
    /// Hook matchers kept although their callbacks were never answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hooks_when_unanswered_kept: Option<u64>,
    /// Whether remote control turns on by itself from an IDE.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ide_rc_auto_enable_gate: Option<bool>,
    /// Whether another hook's `ask` outranks the host's answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_hook_ask_outranks_host: Option<bool>,
    /// Whether remote control connects by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_control_auto_connect_default: Option<bool>,
    /// Whether remote control turns on by itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_control_auto_enable: Option<bool>,
    /// Whether remote control is on by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_control_auto_on_by_default: Option<bool>,
    /// Whether remote control can be had at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_control_available: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// How a session asks for feedback (`feedback_mode` of an [`InitializeResponse`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FeedbackMode {
    /// `disabled`, … (open set).
    #[serde(default)]
    pub kind: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A slash command or skill the session offers.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SlashCommand {
    /// Name, without the leading slash.
    #[serde(default)]
    pub name: String,
    /// What it does.
    #[serde(default)]
    pub description: String,
    /// Hint for its arguments, e.g. `<file>`; may be empty.
    #[serde(rename = "argumentHint")]
    #[serde(default)]
    pub argument_hint: String,
    /// Other names that run it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aliases: Option<Vec<String>>,
    /// Claude Code's own command, not one a user, project, plugin or MCP server defined.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub builtin: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A subagent the session can invoke.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AgentInfo {
    /// Agent type, e.g. `Explore`.
    #[serde(default)]
    pub name: String,
    /// When to use it.
    #[serde(default)]
    pub description: String,
    /// Its model alias or id, or `inherit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A model the session can switch to.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ModelInfo {
    /// The value to pass to `set_model`.
    #[serde(default)]
    pub value: String,
    /// The model id that value resolves to.
    #[serde(
        default,
        rename = "resolvedModel",
        skip_serializing_if = "Option::is_none"
    )]
    pub resolved_model: Option<String>,
    /// Display name.
    #[serde(rename = "displayName")]
    #[serde(default)]
    pub display_name: String,
    /// Description, with prices.
    #[serde(default)]
    pub description: String,
    /// Supports effort levels.
    #[serde(
        default,
        rename = "supportsEffort",
        skip_serializing_if = "Option::is_none"
    )]
    pub supports_effort: Option<bool>,
    /// The effort levels it takes.
    #[serde(
        default,
        rename = "supportedEffortLevels",
        skip_serializing_if = "Option::is_none"
    )]
    pub supported_effort_levels: Option<Vec<EffortLevel>>,
    /// Supports adaptive thinking.
    #[serde(
        default,
        rename = "supportsAdaptiveThinking",
        skip_serializing_if = "Option::is_none"
    )]
    pub supports_adaptive_thinking: Option<bool>,
    /// Supports fast mode.
    #[serde(
        default,
        rename = "supportsFastMode",
        skip_serializing_if = "Option::is_none"
    )]
    pub supports_fast_mode: Option<bool>,
    /// Supports auto mode.
    #[serde(
        default,
        rename = "supportsAutoMode",
        skip_serializing_if = "Option::is_none"
    )]
    pub supports_auto_mode: Option<bool>,
    /// Thinking can be turned off.
    #[serde(
        default,
        rename = "supportsThinkingOff",
        skip_serializing_if = "Option::is_none"
    )]
    pub supports_thinking_off: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// The API backend the CLI talks to.
    pub enum ApiProvider {
        /// Anthropic's own API.
        FirstParty = "firstParty",
        /// Amazon Bedrock.
        Bedrock = "bedrock",
        /// Google Vertex AI.
        Vertex = "vertex",
        /// Microsoft Foundry.
        Foundry = "foundry",
        /// Anthropic on AWS.
        AnthropicAws = "anthropicAws",
        /// Anthropic on Google Cloud.
        AnthropicGoogleCloud = "anthropicGoogleCloud",
        /// Mantle.
        Mantle = "mantle",
        /// An enterprise gateway.
        Gateway = "gateway",
    }
}

/// The logged-in account.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AccountInfo {
    /// Email address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// Organization name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organization: Option<String>,
    /// Subscription type (`pro`, `max`, …).
    #[serde(
        default,
        rename = "subscriptionType",
        skip_serializing_if = "Option::is_none"
    )]
    pub subscription_type: Option<String>,
    /// Where the OAuth token came from.
    #[serde(
        default,
        rename = "tokenSource",
        skip_serializing_if = "Option::is_none"
    )]
    pub token_source: Option<String>,
    /// Where the API key came from (`ANTHROPIC_API_KEY`, `apiKeyHelper`, `none`, …).
    #[serde(
        default,
        rename = "apiKeySource",
        skip_serializing_if = "Option::is_none"
    )]
    pub api_key_source: Option<String>,
    /// The API backend.
    #[serde(
        default,
        rename = "apiProvider",
        skip_serializing_if = "Option::is_none"
    )]
    pub api_provider: Option<ApiProvider>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// Whether fast mode is on.
    pub enum FastModeState {
        /// Off.
        Off = "off",
        /// Paused after a rate limit.
        Cooldown = "cooldown",
        /// On.
        On = "on",
    }
}

crate::string_enum! {
    /// Why fast mode cannot serve now.
    pub enum FastModeDisabledReason {
        /// Free plan.
        Free = "free",
        /// Turned off by preference.
        Preference = "preference",
        /// Extra usage is disabled.
        ExtraUsageDisabled = "extra_usage_disabled",
        /// A network error.
        NetworkError = "network_error",
        /// Unknown.
        Unknown = "unknown",
        /// Not Anthropic's own API.
        NotFirstParty = "not_first_party",
        /// Disabled by an environment variable.
        DisabledByEnv = "disabled_by_env",
        /// The model does not allow it.
        ModelNotAllowed = "model_not_allowed",
        /// SDK sessions must opt in.
        SdkOptInRequired = "sdk_opt_in_required",
        /// Not decided yet.
        Pending = "pending",
    }
}

crate::string_enum! {
    /// What became of one `sdkMcpServerManifests` entry.
    pub enum ManifestParkState {
        /// Kept for the connect that follows.
        Parked = "parked",
        /// The CLI already had a live client for the server.
        AlreadyConnected = "already_connected",
        /// The manifest's protocol version is not the CLI's.
        ProtocolVersionMismatch = "protocol_version_mismatch",
        /// The entry is not of the documented shape.
        Malformed = "malformed",
        /// The CLI did not use the entry.
        NotHonoured = "not_honoured",
    }
}
