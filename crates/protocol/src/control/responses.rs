//! Typed success payloads for the host → CLI requests of `host.rs` (those with a payload of
//! their own; the larger ones live in `context.rs`, `plan_usage.rs` and `settings.rs`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{AgentInfo, ReadFileEncoding, SlashCommand};
use crate::mcp::McpServerStatus;
use crate::permission::PermissionMode;

/// The payload of a request that is merely acknowledged (absent or `{}` on the wire).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct EmptyResponse {
    /// Whatever the receiver sent anyway.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `interrupt` (empty before the `interrupt_receipt_v1` capability).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct InterruptResponse {
    /// Uuids of queued user messages that survive the interrupt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub still_queued: Option<Vec<String>>,
    /// Uuids of queued messages cancelled by it (only with `cancel_queued`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled: Option<Vec<String>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `set_model` (recent CLIs echo the model; older ones send nothing).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SetModelResponse {
    /// The model now in use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `set_permission_mode` (the CLI echoes the mode).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SetPermissionModeResponse {
    /// The mode now in force.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<PermissionMode>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `rewind_files`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RewindFilesResponse {
    /// Whether the rewind can be (or was) done.
    #[serde(rename = "canRewind")]
    #[serde(default)]
    pub can_rewind: bool,
    /// Why not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Files changed (or that would change).
    #[serde(
        default,
        rename = "filesChanged",
        skip_serializing_if = "Option::is_none"
    )]
    pub files_changed: Option<Vec<String>>,
    /// Lines inserted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insertions: Option<u64>,
    /// Lines deleted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletions: Option<u64>,
    /// Tracked files left alone because a link was found at their path.
    #[serde(
        default,
        rename = "skippedLinks",
        skip_serializing_if = "Option::is_none"
    )]
    pub skipped_links: Option<u64>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `cancel_async_message`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CancelAsyncMessageResponse {
    /// Whether the message was dropped (false if it had already started).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled: Option<bool>,
    /// The message the answer is about (seen from CLI 2.1.330; not in the SDK types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_uuid: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `background_tasks`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BackgroundTasksResponse {
    /// Whether anything was moved to the background (the SDK reads absence as `true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backgrounded: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `file_suggestions`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FileSuggestionsResponse {
    /// The suggestions, as the TUI shows them (shape not published).
    #[serde(default)]
    pub suggestions: Vec<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `get_session_cost` (shape not published; kept whole).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GetSessionCostResponse {
    /// The payload's fields.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl GetSessionCostResponse {
    /// The cost report as `/cost` prints it (`text`), if the answer has one.
    pub fn text(&self) -> Option<&str> {
        self.extra.get("text").and_then(Value::as_str)
    }
}

/// The answer to `get_binary_version` (shape not published; kept whole).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GetBinaryVersionResponse {
    /// The payload's fields.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl GetBinaryVersionResponse {
    /// The CLI's version (`version`, e.g. `2.1.332`), if the answer has one.
    pub fn version(&self) -> Option<&str> {
        self.extra.get("version").and_then(Value::as_str)
    }
}

/// The answer to `list_models` (shape not published; kept whole).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ListModelsResponse {
    /// The payload's fields.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ListModelsResponse {
    /// The models (`models`), each read as the `initialize` answer's models are; none when the
    /// answer has no list.
    pub fn models(&self) -> Vec<super::ModelInfo> {
        self.extra
            .get("models")
            .and_then(Value::as_array)
            .map(|models| {
                models
                    .iter()
                    .filter_map(|m| crate::from_value(m.clone()).ok().map(|typed| typed.value))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The answer to `get_task_output`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GetTaskOutputResponse {
    /// The end of the output, as UTF-8 (escape sequences included).
    #[serde(default)]
    pub output: String,
    /// The size of the whole output in bytes.
    #[serde(default)]
    pub total_bytes: u64,
    /// Whether `output` is only the last 8 KiB.
    #[serde(default)]
    pub truncated: bool,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `read_file`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReadFileResponse {
    /// The contents, in the requested encoding.
    #[serde(default)]
    pub contents: String,
    /// The absolute path read.
    #[serde(rename = "absPath")]
    #[serde(default)]
    pub abs_path: String,
    /// Whether the read stopped at `max_bytes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    /// `base64` when asked for; absent means UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<ReadFileEncoding>,
    /// On a UTF-8 answer: whether invalid bytes were replaced with U+FFFD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lossy: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A plugin the session has loaded.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LoadedPlugin {
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// Its directory.
    #[serde(default)]
    pub path: String,
    /// Where it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Its declared version (plugin-controlled text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// How a held plugin reload would change the LSP tool.
    pub enum LspToolChange {
        /// Adds it.
        Adds = "adds",
        /// May add it.
        MayAdd = "may-add",
        /// Removes it.
        Removes = "removes",
        /// May remove it.
        MayRemove = "may-remove",
    }
}

/// What applying a held plugin reload would change in the tool list.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CacheImpact {
    /// Plugin MCP servers it would register.
    #[serde(default)]
    pub mcp_servers_added: Vec<String>,
    /// Plugin MCP servers it would drop.
    #[serde(default)]
    pub mcp_servers_removed: Vec<String>,
    /// Change to the LSP tool, if any.
    #[serde(default)]
    pub lsp_tool_change: Option<LspToolChange>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `reload_plugins`: the session's components after the reload.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReloadPluginsResponse {
    /// Slash commands and skills.
    #[serde(default)]
    pub commands: Vec<SlashCommand>,
    /// Subagents.
    #[serde(default)]
    pub agents: Vec<AgentInfo>,
    /// Loaded plugins.
    #[serde(default)]
    pub plugins: Vec<LoadedPlugin>,
    /// MCP server status.
    #[serde(rename = "mcpServers")]
    #[serde(default)]
    pub mcp_servers: Vec<McpServerStatus>,
    /// Number of errors the reload hit.
    #[serde(default)]
    pub error_count: u64,
    /// With `hold_on_cache_impact`: `true` when the reload was not applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held: Option<bool>,
    /// What applying the held reload would change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_impact: Option<CacheImpact>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `reload_skills`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReloadSkillsResponse {
    /// The skills after the reload.
    #[serde(default)]
    pub skills: Vec<SlashCommand>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `reload_output_styles`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReloadOutputStylesResponse {
    /// Every output style, built-in and custom.
    #[serde(default)]
    pub available_output_styles: Vec<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
