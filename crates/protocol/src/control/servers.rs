//! Requests a host sends to manage the MCP servers the CLI itself connects to, and their
//! answers. (`mcp_message`, which carries JSON-RPC for the host's own in-process servers, is in
//! `agent.rs`.)

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::mcp::{McpServerConfig, McpServerStatus};

/// `mcp_status`: the status of every MCP server connection.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpStatusRequest {
    /// Over a cloud session, publish the answer only to the clients attached now.
    #[serde(default, rename = "liveReply", skip_serializing_if = "Option::is_none")]
    pub live_reply: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `mcp_status`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpStatusResponse {
    /// One entry per configured server.
    #[serde(rename = "mcpServers")]
    #[serde(default)]
    pub mcp_servers: Vec<McpServerStatus>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A synced-file row staged into a private directory before an `mcp_call`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct StagedInputFile {
    /// Handle used in the arguments as `{{in:NAME}}`.
    #[serde(default)]
    pub name: String,
    /// The row to stage.
    #[serde(default)]
    pub lane_path: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A file an `mcp_call` writes, collected back into a synced-file row.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct StagedOutputFile {
    /// Handle used in the arguments as `{{out:NAME}}`.
    #[serde(default)]
    pub name: String,
    /// The row to write.
    #[serde(default)]
    pub lane_path: String,
    /// Etag the row must still carry for the write to land.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub if_match: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `mcp_call`: call an MCP tool through the CLI's MCP client, without a model turn.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpCallRequest {
    /// Fully-qualified tool name, e.g. `mcp__server__tool`.
    #[serde(default)]
    pub tool: String,
    /// Tool arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
    /// RFC 3339 deadline (makes this a staged call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// Tool-execution timeout in milliseconds (makes this a staged call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Return the server's own content blocks, unprocessed, for a program to read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_not_for_model: Option<bool>,
    /// Decide the call as the model's own call would be (rules, mode, hooks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_permissions: Option<bool>,
    /// Answer a tool's own error result (`isError`) as a success whose payload says
    /// `isError: true`, with the server's content, instead of the error subtype. Honoured where
    /// `result_not_for_model` is; a CLI without the `mcp_call_soft_error_result_v1` capability
    /// ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soft_error_result: Option<bool>,
    /// Files staged in before the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_files: Option<Vec<StagedInputFile>>,
    /// Files collected after the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_files: Option<Vec<StagedOutputFile>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `mcp_call`: the tool result, as the d.ts leaves it undeclared.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpCallResponse {
    /// The result's content blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<Value>>,
    /// The tool's own error flag: `true` on the success answer of a call made with
    /// `soft_error_result` whose tool failed.
    #[serde(rename = "isError", default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// The tool's structured result.
    #[serde(
        rename = "structuredContent",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// The result's `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// The staging outcome of a staged call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staging: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `mcp_set_servers`: replace the dynamically managed MCP servers.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpSetServersRequest {
    /// The full new set, by name.
    #[serde(default)]
    pub servers: BTreeMap<String, McpServerConfig>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `mcp_set_servers`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpSetServersResponse {
    /// Servers added.
    #[serde(default)]
    pub added: Vec<String>,
    /// Servers removed.
    #[serde(default)]
    pub removed: Vec<String>,
    /// Error message by server, for those that failed to connect.
    #[serde(default)]
    pub errors: BTreeMap<String, String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `mcp_reconnect`: reconnect a disconnected or failed server.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpReconnectRequest {
    /// The server's name.
    #[serde(rename = "serverName")]
    #[serde(default)]
    pub server_name: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `mcp_toggle`: enable or disable a server.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpToggleRequest {
    /// The server's name.
    #[serde(rename = "serverName")]
    #[serde(default)]
    pub server_name: String,
    /// Enable (`true`) or disable.
    #[serde(default)]
    pub enabled: bool,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// The permission mode pinned for one MCP server's tools by
    /// `set_mcp_permission_mode_override`. It only tightens: it applies where the session's mode
    /// would allow a call without asking (`bypassPermissions`, `auto`).
    pub enum McpPermissionModeOverride {
        /// Ask for every call, as in the `default` mode.
        Default = "default",
        /// Let the auto-mode classifier decide.
        Auto = "auto",
    }
}

/// `set_mcp_permission_mode_override`: pin (or clear) a permission mode for the tools of one
/// MCP server.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SetMcpPermissionModeOverrideRequest {
    /// The server's name, as it was registered.
    #[serde(rename = "serverName")]
    #[serde(default)]
    pub server_name: String,
    /// The mode to pin; `null` clears the override. Always written (`null` included).
    #[serde(default)]
    pub mode: Option<McpPermissionModeOverride>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `set_mcp_permission_mode_override`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SetMcpPermissionModeOverrideResponse {
    /// Set when no known MCP server has that name: the override is stored all the same and
    /// applies once a server of that exact name connects (a hint at a typo).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `mcp_read_resource`: read an MCP Apps `ui://` resource from a connected server.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpReadResourceRequest {
    /// The server's name, as `mcp_status` reports it.
    #[serde(rename = "serverName")]
    #[serde(default)]
    pub server_name: String,
    /// The resource; must use the `ui://` scheme.
    #[serde(default)]
    pub uri: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `mcp_read_resource`: the server's `resources/read` result.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpReadResourceResponse {
    /// The resource's content items.
    #[serde(default)]
    pub contents: Vec<ReadResourceContent>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One content item of a read resource (untrusted third-party content).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReadResourceContent {
    /// The item's URI.
    #[serde(default)]
    pub uri: String,
    /// Its MIME type.
    #[serde(default, rename = "mimeType", skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Text contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Binary contents, base64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
    /// The item's own `_meta` (MCP Apps puts `ui.csp` and `ui.permissions` here).
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
