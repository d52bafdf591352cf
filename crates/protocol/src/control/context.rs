//! The answer to `get_context_usage`: how the context window is used, by category.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// The answer to `get_context_usage` (what `/context` shows). 1.x and 2.0 CLIs never answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetContextUsageResponse {
    /// One row per category (system prompt, tools, messages, free space, …).
    #[serde(default)]
    pub categories: Vec<ContextCategory>,
    /// Tokens in use.
    #[serde(rename = "totalTokens")]
    #[serde(default)]
    pub total_tokens: u64,
    /// The usable window.
    #[serde(rename = "maxTokens")]
    #[serde(default)]
    pub max_tokens: u64,
    /// The model's whole window.
    #[serde(rename = "rawMaxTokens")]
    #[serde(default)]
    pub raw_max_tokens: u64,
    /// Share of the window in use, 0–100.
    #[serde(default = "crate::serde_util::zero")]
    pub percentage: Number,
    /// The /context grid, row by row.
    #[serde(rename = "gridRows")]
    #[serde(default)]
    pub grid_rows: Vec<Vec<ContextGridCell>>,
    /// The model the window belongs to.
    #[serde(default)]
    pub model: String,
    /// Memory files (CLAUDE.md, …) loaded.
    #[serde(rename = "memoryFiles")]
    #[serde(default)]
    pub memory_files: Vec<ContextMemoryFile>,
    /// MCP tools and their cost.
    #[serde(rename = "mcpTools")]
    #[serde(default)]
    pub mcp_tools: Vec<ContextMcpTool>,
    /// The MCP instructions row, by server.
    #[serde(
        default,
        rename = "mcpInstructions",
        skip_serializing_if = "Option::is_none"
    )]
    pub mcp_instructions: Option<Vec<ContextServerTokens>>,
    /// Built-in tools deferred behind tool search.
    #[serde(
        default,
        rename = "deferredBuiltinTools",
        skip_serializing_if = "Option::is_none"
    )]
    pub deferred_builtin_tools: Option<Vec<ContextNamedTokens>>,
    /// Built-in tools loaded.
    #[serde(
        default,
        rename = "systemTools",
        skip_serializing_if = "Option::is_none"
    )]
    pub system_tools: Option<Vec<ContextNamedTokens>>,
    /// Sections of the system prompt.
    #[serde(
        default,
        rename = "systemPromptSections",
        skip_serializing_if = "Option::is_none"
    )]
    pub system_prompt_sections: Option<Vec<ContextNamedTokens>>,
    /// Custom agents and their cost.
    #[serde(default)]
    pub agents: Vec<ContextAgent>,
    /// Slash command totals.
    #[serde(
        default,
        rename = "slashCommands",
        skip_serializing_if = "Option::is_none"
    )]
    pub slash_commands: Option<ContextSlashCommands>,
    /// Skill totals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<ContextSkills>,
    /// Token count at which auto-compaction starts.
    #[serde(
        default,
        rename = "autoCompactThreshold",
        skip_serializing_if = "Option::is_none"
    )]
    pub auto_compact_threshold: Option<u64>,
    /// Whether auto-compaction is on.
    #[serde(rename = "isAutoCompactEnabled")]
    #[serde(default)]
    pub is_auto_compact_enabled: bool,
    /// The messages row, broken down.
    #[serde(
        default,
        rename = "messageBreakdown",
        skip_serializing_if = "Option::is_none"
    )]
    pub message_breakdown: Option<ContextMessageBreakdown>,
    /// The last response's usage; `null` before any.
    #[serde(default, rename = "apiUsage")]
    pub api_usage: Option<ContextApiUsage>,
    /// Where the auto-compaction threshold comes from (`model-default`, …; seen from CLI
    /// 2.1.330, not in the SDK types).
    #[serde(
        default,
        rename = "autocompactSource",
        skip_serializing_if = "Option::is_none"
    )]
    pub autocompact_source: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// Stable id of a context category row.
    pub enum ContextCategoryId {
        /// The system prompt.
        SystemPrompt = "system_prompt",
        /// Built-in tools.
        SystemTools = "system_tools",
        /// MCP tools.
        McpTools = "mcp_tools",
        /// MCP server instructions.
        McpInstructions = "mcp_instructions",
        /// MCP tools deferred behind tool search.
        McpToolsDeferred = "mcp_tools_deferred",
        /// Built-in tools deferred behind tool search.
        SystemToolsDeferred = "system_tools_deferred",
        /// Custom agents.
        CustomAgents = "custom_agents",
        /// Memory files.
        MemoryFiles = "memory_files",
        /// Skills.
        Skills = "skills",
        /// The conversation.
        Messages = "messages",
        /// Reserve for auto-compaction.
        AutocompactBuffer = "autocompact_buffer",
        /// Reserve for compaction.
        CompactBuffer = "compact_buffer",
        /// Free space.
        FreeSpace = "free_space",
    }
}

crate::string_enum! {
    /// What a context category row is.
    pub enum ContextCategoryKind {
        /// Content in the window.
        Used = "used",
        /// The remaining window.
        Free = "free",
        /// The compaction reserve.
        Buffer = "buffer",
        /// Out-of-window tool schemas.
        Deferred = "deferred",
    }
}

/// One row of the context breakdown.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ContextCategory {
    /// Stable id (absent before 2.1.3xx); match rows on this, not on `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<ContextCategoryId>,
    /// Display name.
    #[serde(default)]
    pub name: String,
    /// Tokens.
    #[serde(default)]
    pub tokens: u64,
    /// Theme color name.
    #[serde(default)]
    pub color: String,
    /// Whether the row is deferred.
    #[serde(
        default,
        rename = "isDeferred",
        skip_serializing_if = "Option::is_none"
    )]
    pub is_deferred: Option<bool>,
    /// What the row is (absent before 2.1.3xx).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ContextCategoryKind>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One square of the /context grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextGridCell {
    /// Theme color name.
    #[serde(default)]
    pub color: String,
    /// Whether the square is filled.
    #[serde(rename = "isFilled")]
    #[serde(default)]
    pub is_filled: bool,
    /// The category it belongs to.
    #[serde(rename = "categoryName")]
    #[serde(default)]
    pub category_name: String,
    /// The category's tokens.
    #[serde(default)]
    pub tokens: u64,
    /// The category's share of the window.
    #[serde(default = "crate::serde_util::zero")]
    pub percentage: Number,
    /// How full the square is, 0–1.
    #[serde(rename = "squareFullness")]
    #[serde(default = "crate::serde_util::zero")]
    pub square_fullness: Number,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A memory file in the context.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ContextMemoryFile {
    /// Its path.
    #[serde(default)]
    pub path: String,
    /// Its kind.
    #[serde(rename = "type")]
    #[serde(default)]
    pub file_type: String,
    /// Tokens.
    #[serde(default)]
    pub tokens: u64,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An MCP tool in the context.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ContextMcpTool {
    /// Tool name.
    #[serde(default)]
    pub name: String,
    /// Server name (normalized).
    #[serde(rename = "serverName")]
    #[serde(default)]
    pub server_name: String,
    /// Tokens.
    #[serde(default)]
    pub tokens: u64,
    /// Whether its schema is loaded.
    #[serde(default, rename = "isLoaded", skip_serializing_if = "Option::is_none")]
    pub is_loaded: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One server's share of the MCP instructions row.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ContextServerTokens {
    /// Server name, not normalized.
    #[serde(rename = "serverName")]
    #[serde(default)]
    pub server_name: String,
    /// Estimated tokens.
    #[serde(default)]
    pub tokens: u64,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A named item and its tokens (tools, prompt sections, attachment kinds).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ContextNamedTokens {
    /// Name.
    #[serde(default)]
    pub name: String,
    /// Tokens.
    #[serde(default)]
    pub tokens: u64,
    /// Whether it is loaded (deferred tools only).
    #[serde(default, rename = "isLoaded", skip_serializing_if = "Option::is_none")]
    pub is_loaded: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A custom agent in the context.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ContextAgent {
    /// Agent type.
    #[serde(rename = "agentType")]
    #[serde(default)]
    pub agent_type: String,
    /// Where it is defined.
    #[serde(default)]
    pub source: String,
    /// The providing plugin.
    #[serde(default, rename = "pluginId", skip_serializing_if = "Option::is_none")]
    pub plugin_id: Option<String>,
    /// Its file, on the CLI's machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Tokens.
    #[serde(default)]
    pub tokens: u64,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Slash command totals.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ContextSlashCommands {
    /// Commands known.
    #[serde(rename = "totalCommands")]
    #[serde(default)]
    pub total_commands: u64,
    /// Commands included in the prompt.
    #[serde(rename = "includedCommands")]
    #[serde(default)]
    pub included_commands: u64,
    /// Tokens.
    #[serde(default)]
    pub tokens: u64,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Skill totals.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ContextSkills {
    /// Skills known.
    #[serde(rename = "totalSkills")]
    #[serde(default)]
    pub total_skills: u64,
    /// Skills included in the prompt.
    #[serde(rename = "includedSkills")]
    #[serde(default)]
    pub included_skills: u64,
    /// Tokens.
    #[serde(default)]
    pub tokens: u64,
    /// Each skill's frontmatter cost.
    #[serde(rename = "skillFrontmatter")]
    #[serde(default)]
    pub skill_frontmatter: Vec<ContextSkill>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One skill in the context.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ContextSkill {
    /// Skill name.
    #[serde(default)]
    pub name: String,
    /// Where it is defined (`built-in`, `bundled`, …).
    #[serde(default)]
    pub source: String,
    /// The providing plugin's name.
    #[serde(
        default,
        rename = "pluginName",
        skip_serializing_if = "Option::is_none"
    )]
    pub plugin_name: Option<String>,
    /// The providing plugin's id.
    #[serde(default, rename = "pluginId", skip_serializing_if = "Option::is_none")]
    pub plugin_id: Option<String>,
    /// Its file, on the CLI's machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Tokens.
    #[serde(default)]
    pub tokens: u64,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The messages row, broken down.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ContextMessageBreakdown {
    /// Tool calls.
    #[serde(rename = "toolCallTokens")]
    #[serde(default)]
    pub tool_call_tokens: u64,
    /// Tool results.
    #[serde(rename = "toolResultTokens")]
    #[serde(default)]
    pub tool_result_tokens: u64,
    /// Attachments.
    #[serde(rename = "attachmentTokens")]
    #[serde(default)]
    pub attachment_tokens: u64,
    /// Assistant messages.
    #[serde(rename = "assistantMessageTokens")]
    #[serde(default)]
    pub assistant_message_tokens: u64,
    /// User messages.
    #[serde(rename = "userMessageTokens")]
    #[serde(default)]
    pub user_message_tokens: u64,
    /// Redirected context.
    #[serde(rename = "redirectedContextTokens")]
    #[serde(default)]
    pub redirected_context_tokens: u64,
    /// Not attributed to any of the above.
    #[serde(rename = "unattributedTokens")]
    #[serde(default)]
    pub unattributed_tokens: u64,
    /// Tool calls by tool.
    #[serde(rename = "toolCallsByType")]
    #[serde(default)]
    pub tool_calls_by_type: Vec<ContextToolCallTokens>,
    /// Attachments by kind.
    #[serde(rename = "attachmentsByType")]
    #[serde(default)]
    pub attachments_by_type: Vec<ContextNamedTokens>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One tool's calls and results.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ContextToolCallTokens {
    /// Tool name.
    #[serde(default)]
    pub name: String,
    /// Tokens in its calls.
    #[serde(rename = "callTokens")]
    #[serde(default)]
    pub call_tokens: u64,
    /// Tokens in its results.
    #[serde(rename = "resultTokens")]
    #[serde(default)]
    pub result_tokens: u64,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The last API response's usage.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ContextApiUsage {
    /// Input tokens.
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens.
    #[serde(default)]
    pub output_tokens: u64,
    /// Tokens written to the cache.
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    /// Tokens read from the cache.
    #[serde(default)]
    pub cache_read_input_tokens: u64,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
