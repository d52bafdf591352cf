//! What a host defines for the session beside hooks and MCP servers: custom subagents
//! (`initialize.agents`) and plugins (`initialize.plugins`, `reload_plugins.add_plugins`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::EffortLevel;
use crate::mcp::McpServerConfig;
use crate::permission::PermissionMode;

/// An MCP server an agent uses: the name of a configured server, or inline configs by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AgentMcpServerSpec {
    /// A server configured elsewhere, by name.
    Name(String),
    /// Servers defined inline, by name.
    Inline(BTreeMap<String, McpServerConfig>),
}

/// An agent's effort: a named level or a number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AgentEffort {
    /// A named level.
    Level(EffortLevel),
    /// A number.
    Number(serde_json::Number),
}

crate::string_enum! {
    /// Where an agent's memory files are loaded from.
    pub enum AgentMemoryScope {
        /// `~/.claude/agent-memory/<agentType>/`.
        User = "user",
        /// `.claude/agent-memory/<agentType>/`.
        Project = "project",
        /// `.claude/agent-memory-local/<agentType>/`.
        Local = "local",
    }
}

/// A custom subagent the host defines (`initialize.agents` entry).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AgentDefinition {
    /// When to use this agent.
    #[serde(default)]
    pub description: String,
    /// Allowed tools; all of the parent's when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// Tools explicitly taken away.
    #[serde(
        default,
        rename = "disallowedTools",
        skip_serializing_if = "Option::is_none"
    )]
    pub disallowed_tools: Option<Vec<String>>,
    /// The agent's system prompt.
    #[serde(default)]
    pub prompt: String,
    /// Model alias or id, or `inherit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// MCP servers for this agent: names or inline configs.
    #[serde(
        default,
        rename = "mcpServers",
        skip_serializing_if = "Option::is_none"
    )]
    pub mcp_servers: Option<Vec<AgentMcpServerSpec>>,
    /// Experimental reminder added to the system prompt.
    #[serde(
        default,
        rename = "criticalSystemReminder_EXPERIMENTAL",
        skip_serializing_if = "Option::is_none"
    )]
    pub critical_system_reminder_experimental: Option<String>,
    /// Skills preloaded into the agent's context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<String>>,
    /// First user turn when this agent is the main thread agent.
    #[serde(
        default,
        rename = "initialPrompt",
        skip_serializing_if = "Option::is_none"
    )]
    pub initial_prompt: Option<String>,
    /// Maximum number of agentic turns.
    #[serde(default, rename = "maxTurns", skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u64>,
    /// Token count at which the agent compacts its own conversation as a subagent.
    #[serde(
        default,
        rename = "autoCompactWindow",
        skip_serializing_if = "Option::is_none"
    )]
    pub auto_compact_window: Option<u64>,
    /// Run as a background task when invoked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<bool>,
    /// Run without the user/project/local CLAUDE.md files as a subagent.
    #[serde(
        default,
        rename = "omitClaudeMd",
        skip_serializing_if = "Option::is_none"
    )]
    pub omit_claude_md: Option<bool>,
    /// Where agent memory files are loaded from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<AgentMemoryScope>,
    /// Reasoning effort.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<AgentEffort>,
    /// Permission mode for the agent's tool calls.
    #[serde(
        default,
        rename = "permissionMode",
        skip_serializing_if = "Option::is_none"
    )]
    pub permission_mode: Option<PermissionMode>,
    /// Observer agent type(s) spawned beside this agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observer: Option<String>,
    /// Text appended to each activity digest sent to the observer.
    #[serde(
        default,
        rename = "observerMessage",
        skip_serializing_if = "Option::is_none"
    )]
    pub observer_message: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::tagged_union! {
    /// A plugin to load, keyed by `type`.
    pub enum SdkPluginConfig: "type", "plugin config" {
        /// A plugin directory on disk.
        "local" => Local(LocalPluginConfig),
    }
}

/// A plugin loaded from a local directory.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LocalPluginConfig {
    /// Path of the plugin directory.
    #[serde(default)]
    pub path: String,
    /// Load the plugin but not its MCP servers (the host owns them).
    #[serde(
        default,
        rename = "skipMcpDiscovery",
        skip_serializing_if = "Option::is_none"
    )]
    pub skip_mcp_discovery: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
