//! `system/init`: the session metadata the CLI writes at the start of each turn.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::control::{EffortLevel, FastModeDisabledReason, FastModeState};
use crate::mcp::McpServerStatus;
use crate::permission::PermissionMode;

crate::string_enum! {
    /// Where the credential used for API requests came from.
    #[derive(Default)]
    pub enum ApiKeySource {
        /// The `ANTHROPIC_API_KEY` environment variable.
        AnthropicApiKey = "ANTHROPIC_API_KEY",
        /// The configured `apiKeyHelper` command.
        ApiKeyHelper = "apiKeyHelper",
        /// A key created and stored by `/login` with a Console account.
        LoginManagedKey = "/login managed key",
        /// No API key (OAuth login, bearer token, cloud provider).
        #[default]
        None = "none",
        /// Legacy value, no longer sent.
        User = "user",
        /// Legacy value, no longer sent.
        Project = "project",
        /// Legacy value, no longer sent.
        Org = "org",
        /// Legacy value, no longer sent.
        Temporary = "temporary",
        /// Legacy value, no longer sent.
        Oauth = "oauth",
    }
}

crate::string_enum! {
    /// How the transcript is shown.
    pub enum ViewMode {
        /// Only the final message of each turn is meant to be seen.
        Focus = "focus",
        /// The full transcript.
        Default = "default",
    }
}

/// A loaded plugin as listed in `system/init`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct InitPlugin {
    /// Plugin name.
    #[serde(default)]
    pub name: String,
    /// Plugin directory (or `builtin`).
    #[serde(default)]
    pub path: String,
    /// Version from the plugin manifest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// `name@marketplace` (seen from CLI 2.1.330; not in the SDK types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A plugin that failed to load, or loaded without one of its parts.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PluginError {
    /// `name@marketplace`, or `inline[N]` / `synced[N]` for an unnamed directory entry.
    #[serde(default)]
    pub plugin: String,
    /// Error category (`path-not-found`, `manifest-validation-error`, …; open set).
    #[serde(rename = "type")]
    #[serde(default)]
    pub error_type: String,
    /// Display text.
    #[serde(default)]
    pub message: String,
    /// Path of a directory entry that did not load at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The managed `enabledPlugins` entry that dropped this copy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_lock: Option<ManagedLock>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A managed-settings `enabledPlugins` entry that locked a plugin name.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ManagedLock {
    /// Whether the entry turns the plugin on.
    #[serde(default)]
    pub plugin_enabled: bool,
    /// Plugin name as the entry spells it.
    #[serde(default)]
    pub name: String,
    /// Marketplace the entry names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marketplace: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/init`: session id, model, working directory, tools, MCP servers, commands and
/// capabilities, written at the start of each turn.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SystemInit {
    /// Working directory.
    #[serde(default)]
    pub cwd: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Names of the tools available to the model.
    #[serde(default)]
    pub tools: Vec<String>,
    /// Configured MCP servers and their status.
    #[serde(default)]
    pub mcp_servers: Vec<McpServerStatus>,
    /// Model id.
    #[serde(default)]
    pub model: String,
    /// Permission mode (`default`, `acceptEdits`, `bypassPermissions`, `plan`, …).
    #[serde(rename = "permissionMode")]
    #[serde(default)]
    pub permission_mode: PermissionMode,
    /// Available slash commands, without the slash.
    #[serde(default)]
    pub slash_commands: Vec<String>,
    /// The slash commands bound to the local terminal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_slash_commands: Option<Vec<String>>,
    /// Where the API credential came from.
    #[serde(rename = "apiKeySource")]
    #[serde(default)]
    pub api_key_source: ApiKeySource,
    /// Active beta flags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub betas: Option<Vec<String>>,
    /// CLI version (absent from CLI 1.x).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claude_code_version: Option<String>,
    /// Output style name.
    #[serde(default)]
    pub output_style: String,
    /// Available agent types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<Vec<String>>,
    /// Available skills (absent from CLI 1.x).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<String>>,
    /// Loaded plugins (absent from CLI 1.x).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugins: Option<Vec<InitPlugin>>,
    /// Plugin load errors; absent when there are none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin_errors: Option<Vec<PluginError>>,
    /// Fast mode state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fast_mode_state: Option<FastModeState>,
    /// Why fast mode is unavailable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fast_mode_disabled_reason: Option<FastModeDisabledReason>,
    /// Effort level for the next message; `Some(None)` is `null` (no effort parameter sent).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub effort: Option<Option<EffortLevel>>,
    /// Transcript view mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view_mode: Option<ViewMode>,
    /// Protocol capabilities this CLI supports, for feature detection (open set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Vec<String>>,
    /// Memory directories by kind, e.g. `auto` (seen from CLI 2.1; not in the SDK types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_paths: Option<BTreeMap<String, String>>,
    /// The directory the session started in (seen from CLI 2.1.330; not in the SDK types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_cwd: Option<String>,
    /// Extra working directories (seen from CLI 2.1.330; not in the SDK types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_directories: Option<Vec<String>>,
    /// Whether tool calls may run in the sandbox (its settings enabled; seen from CLI 2.1.332;
    /// not in the SDK types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_enabled: Option<bool>,
    /// Whether usage analytics are off (seen from CLI 2.1.330; not in the SDK types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analytics_disabled: Option<bool>,
    /// Whether product feedback prompts are off (seen from CLI 2.1.330; not in the SDK types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub product_feedback_disabled: Option<bool>,
    /// The unix socket other local processes message this session through (seen from CLI
    /// 2.1.330; not in the SDK types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messaging_socket_path: Option<String>,
    /// Whether the effort level can change from one turn to the next (seen from CLI 2.1.330;
    /// not in the SDK types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_turn_effort_active: Option<bool>,
    /// Whether the API answering is Anthropic's own (seen from CLI 2.1.330; not in the SDK
    /// types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub served_by_anthropic: Option<bool>,
    /// Whether "ultrathink" raises the thinking budget on this model (seen from CLI 2.1.330;
    /// not in the SDK types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ultrathink_available: Option<bool>,
    /// Whether typing "ultrathink" in a prompt raises the effort (seen from CLI 2.1.330; not in
    /// the SDK types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ultrathink_typed_raises: Option<bool>,
    /// The user messages this turn answers (seen from CLI 2.1.330; not in the SDK types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_message_uuids: Option<Vec<String>>,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SystemInit {
    /// Whether the CLI advertises `capability` in `capabilities`.
    pub fn has_capability(&self, capability: &str) -> bool {
        self.capabilities
            .as_deref()
            .is_some_and(|caps| caps.iter().any(|c| c == capability))
    }
}
