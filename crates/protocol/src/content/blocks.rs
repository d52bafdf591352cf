//! The everyday content blocks: text, thinking, client tool calls and their results, remote
//! MCP tool calls, and the blocks that manage context (compaction, tool changes, fallback).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ToolResultContent;

/// A text block.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TextBlock {
    /// The text.
    #[serde(default)]
    pub text: String,
    /// Sources the text cites: absent, `null` or a list of citation objects.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub citations: Option<Option<Vec<Value>>>,
    /// Prompt-cache breakpoint (request side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A block of extended thinking.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ThinkingBlock {
    /// The thinking text (may be empty or summarized).
    #[serde(default)]
    pub thinking: String,
    /// The signature that lets the block be sent back to the API.
    #[serde(default)]
    pub signature: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Thinking the API returned encrypted.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RedactedThinkingBlock {
    /// The encrypted thinking.
    #[serde(default)]
    pub data: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A call to a client tool (one Claude Code runs: Bash, Read, `mcp__server__tool`, …).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ToolUseBlock {
    /// The call id; the matching `tool_result` carries it as `tool_use_id`.
    #[serde(default)]
    pub id: String,
    /// The tool name.
    #[serde(default)]
    pub name: String,
    /// The tool input (a JSON object).
    #[serde(default)]
    pub input: Value,
    /// Who made the call (the model directly, or code running in a server tool).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller: Option<Value>,
    /// The toolset the tool belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toolset_name: Option<String>,
    /// Prompt-cache breakpoint (request side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of a client tool call, sent back in a user message.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ToolResultBlock {
    /// The `id` of the `tool_use` this answers.
    #[serde(default)]
    pub tool_use_id: String,
    /// The result: text or blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<ToolResultContent>,
    /// Whether the tool failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// The toolset the tool belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toolset_name: Option<String>,
    /// Prompt-cache breakpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolResultBlock {
    /// A successful text result for the given tool call.
    pub fn text(tool_use_id: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            content: Some(ToolResultContent::Text(text.into())),
            ..Self::default()
        }
    }

    /// Whether the result is marked as an error (`is_error: true`).
    pub fn failed(&self) -> bool {
        self.is_error.unwrap_or(false)
    }
}

/// A reference to a tool definition, as returned by tool search.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ToolReferenceBlock {
    /// The referenced tool.
    #[serde(default)]
    pub tool_name: String,
    /// Prompt-cache breakpoint (request side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A call to a tool of a remote MCP server, made by the API's MCP connector.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpToolUseBlock {
    /// The call id.
    #[serde(default)]
    pub id: String,
    /// The tool name.
    #[serde(default)]
    pub name: String,
    /// The MCP server's name.
    #[serde(default)]
    pub server_name: String,
    /// The tool input.
    #[serde(default)]
    pub input: Value,
    /// Prompt-cache breakpoint (request side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of a remote MCP tool call.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpToolResultBlock {
    /// The `id` of the `mcp_tool_use` this answers.
    #[serde(default)]
    pub tool_use_id: String,
    /// The result: text or text blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<ToolResultContent>,
    /// Whether the tool failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Prompt-cache breakpoint (request side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The tools a remote MCP server offers.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpToolListingBlock {
    /// The MCP server's name.
    #[serde(default)]
    pub mcp_server_name: String,
    /// The tool definitions.
    #[serde(default)]
    pub tools: Vec<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A file uploaded to the code execution container.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ContainerUploadBlock {
    /// The uploaded file's id.
    #[serde(default)]
    pub file_id: String,
    /// Prompt-cache breakpoint (request side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A summary of earlier context, produced by server-side compaction.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CompactionBlock {
    /// The summary text; `None` if compaction failed.
    #[serde(default)]
    pub content: Option<String>,
    /// The summary in encrypted form: absent, `null` or the data.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub encrypted_content: Option<Option<String>>,
    /// A signature over the summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Tools added or removed by the compaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_changes: Option<Value>,
    /// Prompt-cache breakpoint (request side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Marks that the request moved from one model to a fallback model.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FallbackBlock {
    /// The model the request left.
    #[serde(default)]
    pub from: Value,
    /// The model that took over.
    #[serde(default)]
    pub to: Value,
    /// What caused the fallback.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A tool added to the conversation after it started.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ToolAdditionBlock {
    /// The tool (a reference or a full definition).
    #[serde(default)]
    pub tool: Value,
    /// Prompt-cache breakpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A tool removed from the conversation after it started.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ToolRemovalBlock {
    /// A reference to the tool.
    #[serde(default)]
    pub tool: Value,
    /// Prompt-cache breakpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The state of the browser tool's tabs, sent in a tool result.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BrowserStateBlock {
    /// The open tabs.
    #[serde(default)]
    pub tabs: Vec<Value>,
    /// What changed since the last state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_changes: Option<Value>,
    /// Prompt-cache breakpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
