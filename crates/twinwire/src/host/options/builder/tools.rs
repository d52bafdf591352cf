//! Builder methods: MCP servers, tools, skills and permissions.

use std::path::PathBuf;

use twinwire_protocol::mcp::McpServerConfig;
use twinwire_protocol::permission::PermissionMode;

use super::OptionsBuilder;
use crate::host::options::{
    Delivery, McpServer, PermissionPrompts, QuestionPreviewFormat, Skills, Tools,
};
use crate::mcp::SdkMcpServer;

impl OptionsBuilder {
    // --- MCP -------------------------------------------------------------------------------

    /// Adds an MCP server for the CLI to start or connect to (stdio, SSE, HTTP), by name
    /// (`--mcp-config`, or `initialize.mcpServers` with [`Delivery::Initialize`]).
    pub fn mcp_server(mut self, name: impl Into<String>, config: McpServerConfig) -> Self {
        self.options
            .mcp_servers
            .insert(name.into(), McpServer::Config(config));
        self
    }

    /// Adds an MCP server running in this process, under its own name
    /// (`initialize.sdkMcpServers`). Its tools reach the model as `mcp__<name>__<tool>`.
    pub fn sdk_mcp_server(mut self, server: SdkMcpServer) -> Self {
        self.options
            .mcp_servers
            .insert(server.name().to_owned(), McpServer::InProcess(server));
        self
    }

    /// Sends the in-process servers' handshakes (their `initialize` and `tools/list` answers,
    /// captured just before) ahead in `initialize.sdkMcpServerManifests`, as the TypeScript SDK
    /// does: a CLI that uses them makes no `mcp_message` round trips before the first turn
    /// (`Client::initialize_response()`'s `sdk_mcp_manifests_parked` says which it kept). Each
    /// server has a second to answer; one that does not is handshaken over the control channel
    /// as usual. Off by default.
    pub fn sdk_mcp_manifests(mut self, send: bool) -> Self {
        self.options.sdk_mcp_manifests = send;
        self
    }

    /// Replaces the MCP servers. An in-process server must be registered under its own name.
    pub fn mcp_servers<I, K>(mut self, servers: I) -> Self
    where
        I: IntoIterator<Item = (K, McpServer)>,
        K: Into<String>,
    {
        self.options.mcp_servers = servers
            .into_iter()
            .map(|(name, server)| (name.into(), server))
            .collect();
        self
    }

    /// Adds an MCP configuration file (or JSON string) for the CLI to read, as Python's
    /// `mcp_servers` path form (`--mcp-config=<path>`).
    pub fn mcp_config_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.options.mcp_config_files.push(path.into());
        self
    }

    /// How the configured MCP servers reach the CLI. Default: [`Delivery::Argv`].
    pub fn mcp_servers_delivery(mut self, delivery: Delivery) -> Self {
        self.options.mcp_servers_delivery = delivery;
        self
    }

    /// Uses only the MCP servers given here (and in agent definitions), ignoring
    /// `.mcp.json`, user settings and plugins (`--strict-mcp-config`).
    pub fn strict_mcp_config(mut self, strict: bool) -> Self {
        self.options.strict_mcp_config = strict;
        self
    }

    // --- Tools -----------------------------------------------------------------------------

    /// The base set of built-in tools the model sees (`--tools`). Default: the CLI's.
    pub fn tools(mut self, tools: Tools) -> Self {
        self.options.tools = Some(tools);
        self
    }

    /// Adds a tool (or rule, e.g. `Bash(git log:*)`) that runs without asking
    /// (`--allowedTools`).
    pub fn allowed_tool(mut self, tool: impl Into<String>) -> Self {
        self.options.allowed_tools.push(tool.into());
        self
    }

    /// Replaces the tools (or rules) that run without asking (`--allowedTools`).
    pub fn allowed_tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.options.allowed_tools = tools.into_iter().map(Into::into).collect();
        self
    }

    /// Adds a tool (or rule) removed from the model's context (`--disallowedTools`).
    pub fn disallowed_tool(mut self, tool: impl Into<String>) -> Self {
        self.options.disallowed_tools.push(tool.into());
        self
    }

    /// Replaces the tools (or rules) removed from the model's context (`--disallowedTools`).
    pub fn disallowed_tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.options.disallowed_tools = tools.into_iter().map(Into::into).collect();
        self
    }

    /// Routes tool calls the model makes under the name `from` to the tool `to`, e.g.
    /// `Bash` → `mcp__workspace__bash` (`initialize.toolAliases`).
    pub fn tool_alias(mut self, from: impl Into<String>, to: impl Into<String>) -> Self {
        self.options.tool_aliases.insert(from.into(), to.into());
        self
    }

    /// Replaces the tool aliases (`initialize.toolAliases`).
    pub fn tool_aliases<I, K, V>(mut self, aliases: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        self.options.tool_aliases = aliases
            .into_iter()
            .map(|(from, to)| (from.into(), to.into()))
            .collect();
        self
    }

    /// Skills to enable: adds `Skill` or `Skill(name)` to the allowed tools and, for a list,
    /// sends it as `initialize.skills`. Default: the CLI's own skill handling.
    pub fn skills(mut self, skills: Skills) -> Self {
        self.options.skills = Some(skills);
        self
    }

    /// The format of `AskUserQuestion` option previews
    /// (`CLAUDE_CODE_QUESTION_PREVIEW_FORMAT`; TypeScript's
    /// `toolConfig.askUserQuestion.previewFormat`).
    pub fn question_preview_format(mut self, format: QuestionPreviewFormat) -> Self {
        self.options.question_preview_format = Some(format);
        self
    }

    // --- Permissions -----------------------------------------------------------------------

    /// The permission mode at start (`--permission-mode`). Default: the CLI's (the settings'
    /// `defaultMode`, else `default` or `auto`). As root, the CLI refuses `bypassPermissions`
    /// unless the environment has `IS_SANDBOX=1`.
    pub fn permission_mode(mut self, mode: PermissionMode) -> Self {
        self.options.permission_mode = Some(mode);
        self
    }

    /// Allows switching to `bypassPermissions` (`--allow-dangerously-skip-permissions`). As
    /// root, the CLI exits at start with this flag unless the environment has `IS_SANDBOX=1`.
    pub fn allow_dangerously_skip_permissions(mut self, allow: bool) -> Self {
        self.options.allow_dangerously_skip_permissions = allow;
        self
    }

    /// The MCP tool that answers permission prompts (`--permission-prompt-tool`). Cannot be
    /// combined with [`OptionsBuilder::can_use_tool`].
    pub fn permission_prompt_tool_name(mut self, tool: impl Into<String>) -> Self {
        self.options.permission_prompt_tool_name = Some(tool.into());
        self
    }

    /// Who answers permission prompts (`--permission-prompts`).
    pub fn permission_prompts(mut self, prompts: PermissionPrompts) -> Self {
        self.options.permission_prompts = Some(prompts);
        self
    }
}
