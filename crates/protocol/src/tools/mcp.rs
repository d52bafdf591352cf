//! Typed inputs of the mcp tools (see [`super::ToolInput`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The input of `ListMcpResourcesTool`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ListMcpResourcesInput {
    /// `server`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `ReadMcpResourceTool`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReadMcpResourceInput {
    /// `server`: text.
    pub server: String,
    /// `uri`: text.
    pub uri: String,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `ReadMcpResourceDirTool`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReadMcpResourceDirInput {
    /// `server`: text.
    pub server: String,
    /// `uri`: text.
    pub uri: String,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `RefreshMcpTools`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RefreshMcpToolsInput {
    /// `server`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of a tool of an MCP server: its arguments, as given.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpInput {
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
