//! Typed outputs of the MCP resource tools (see [`super::ToolOutput`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// One entry of the output of `ListMcpResourcesTool`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpResource {
    /// `uri`: text.
    pub uri: String,
    /// `name`: text.
    pub name: String,
    /// `mimeType`: optional text.
    #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// `description`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `server`: text.
    pub server: String,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `ReadMcpResourceTool`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReadMcpResourceOutput {
    /// `contents`: JSON value.
    pub contents: Value,
    /// `error`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `ReadMcpResourceDirTool`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReadMcpResourceDirOutput {
    /// `resources`: JSON value.
    pub resources: Value,
    /// `error`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One entry of the output of `RefreshMcpTools`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RefreshedMcpServer {
    /// `server`: text.
    pub server: String,
    /// `status`: text.
    pub status: String,
    /// `toolCount`: optional number.
    #[serde(rename = "toolCount", default, skip_serializing_if = "Option::is_none")]
    pub tool_count: Option<Number>,
    /// `added`: optional list of text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added: Option<Vec<String>>,
    /// `removed`: optional list of text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed: Option<Vec<String>>,
    /// `error`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of an MCP tool (`mcp__server__tool`): the result's text, its content blocks, or
/// an object.
#[derive(Debug, Clone, PartialEq)]
pub enum McpOutput {
    /// A text result.
    Text(String),
    /// The result's content blocks.
    Blocks(Vec<McpOutputBlock>),
    /// An object (a structured result).
    Object(Map<String, Value>),
}

impl Serialize for McpOutput {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            McpOutput::Text(text) => text.serialize(serializer),
            McpOutput::Blocks(blocks) => blocks.serialize(serializer),
            McpOutput::Object(object) => object.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for McpOutput {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Read by the JSON type, not by trying each form in turn: one pass, and an error
        // that names what did not fit.
        match Value::deserialize(deserializer)? {
            Value::String(text) => Ok(McpOutput::Text(text)),
            Value::Array(items) => Vec::<McpOutputBlock>::deserialize(Value::Array(items))
                .map(McpOutput::Blocks)
                .map_err(serde::de::Error::custom),
            Value::Object(object) => Ok(McpOutput::Object(object)),
            other => Err(serde::de::Error::custom(format!(
                "an MCP tool output is text, a list of blocks or an object, not {other}"
            ))),
        }
    }
}

/// A content block of an [`McpOutput`]: `text` carries `text`; other kinds (`image`,
/// `resource_link`, …) keep their fields in `extra`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpOutputBlock {
    /// The block's kind.
    #[serde(rename = "type")]
    pub kind: String,
    /// The text of a `text` block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
