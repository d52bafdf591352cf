//! The [`Client`]'s control requests: one method for each request the CLI answers (the
//! official TypeScript SDK's `Query` methods, and the rest of the protocol's host requests),
//! each a typed request and its typed answer through [`Client::request`]. docs/compatibility.md
//! lists which CLI answers which; a CLI that does not know a request answers it with an error
//! (`unsupported_request`), or, before 2.1, never (the request then times out).

use serde_json::Value;
use twinwire_protocol::control::{
    AccountInfo, AgentInfo, ApplyFlagSettingsRequest, BackgroundTasksRequest,
    BackgroundTasksResponse, CancelAsyncMessageRequest, FileSuggestionsRequest,
    FileSuggestionsResponse, GetBinaryVersionRequest, GetBinaryVersionResponse,
    GetContextUsageRequest, GetContextUsageResponse, GetHooksListingRequest,
    GetHooksListingResponse, GetSessionCostRequest, GetSessionCostResponse, GetSettingsRequest,
    GetSettingsResponse, GetTaskOutputRequest, GetTaskOutputResponse, GetUsageRequest,
    GetUsageResponse, InterruptRequest, InterruptResponse, ListModelsRequest, ListModelsResponse,
    ListPermissionRulesRequest, ListPermissionRulesResponse, McpCallRequest, McpCallResponse,
    McpPermissionModeOverride, McpReadResourceRequest, McpReadResourceResponse,
    McpReconnectRequest, McpSetServersRequest, McpSetServersResponse, McpStatusRequest,
    McpStatusResponse, McpToggleRequest, ModelInfo, ReadFileEncoding, ReadFileRequest,
    ReadFileResponse, RegisterRepoRootRequest, ReloadOutputStylesRequest,
    ReloadOutputStylesResponse, ReloadPluginsRequest, ReloadPluginsResponse, ReloadSkillsRequest,
    ReloadSkillsResponse, RenameSessionRequest, RenameSource, RewindFilesRequest,
    RewindFilesResponse, SeedReadStateRequest, SetColorRequest, SetHasSubscribersRequest,
    SetMaxThinkingTokensRequest, SetMcpPermissionModeOverrideRequest,
    SetMcpPermissionModeOverrideResponse, SetModelRequest, SetPermissionModeRequest, SlashCommand,
    StopTaskRequest, UpdateSettingsRequest, UpdateSettingsSource,
};
use twinwire_protocol::permission::PermissionMode;

use super::Client;
use crate::error::Result;

impl Client {
    /// Stops the current turn. The CLI answers an interrupt with no turn running as it answers
    /// any other (nothing happens): ask [`Client::is_turn_running`] first to know whether there
    /// is one. An interrupt the CLI never answers ends with [`Error::Timeout`](crate::Error::Timeout) after the
    /// request time limit.
    pub async fn interrupt(&self) -> Result<InterruptResponse> {
        self.request(InterruptRequest::default()).await
    }

    /// Switches the model for the next API requests (`None`: the default model).
    pub async fn set_model(&self, model: Option<&str>) -> Result<()> {
        let request = SetModelRequest {
            model: Some(model.map(str::to_owned)),
            ..SetModelRequest::default()
        };
        self.request(request).await.map(drop)
    }

    /// Switches the permission mode. Returns the mode now in effect, which is not always the
    /// one asked for (record it, not the argument); `None` when the CLI's answer names none
    /// (CLIs before 2.1.332 answer with an empty payload).
    pub async fn set_permission_mode(
        &self,
        mode: PermissionMode,
    ) -> Result<Option<PermissionMode>> {
        let request = SetPermissionModeRequest {
            mode,
            ..SetPermissionModeRequest::default()
        };
        Ok(self.request(request).await?.mode)
    }

    /// Sets the thinking budget (`None` turns extended thinking off).
    pub async fn set_max_thinking_tokens(&self, tokens: Option<u64>) -> Result<()> {
        let request = SetMaxThinkingTokensRequest {
            max_thinking_tokens: Some(tokens),
            ..SetMaxThinkingTokensRequest::default()
        };
        self.request(request).await.map(drop)
    }

    /// The state of every MCP server.
    pub async fn mcp_status(&self) -> Result<McpStatusResponse> {
        self.request(McpStatusRequest::default()).await
    }

    /// Reconnects an MCP server.
    pub async fn mcp_reconnect(&self, server: &str) -> Result<()> {
        let request = McpReconnectRequest {
            server_name: server.to_owned(),
            ..McpReconnectRequest::default()
        };
        self.request(request).await.map(drop)
    }

    /// Enables or disables an MCP server.
    pub async fn mcp_toggle(&self, server: &str, enabled: bool) -> Result<()> {
        let request = McpToggleRequest {
            server_name: server.to_owned(),
            enabled,
            ..McpToggleRequest::default()
        };
        self.request(request).await.map(drop)
    }

    /// Replaces the dynamically added MCP servers.
    pub async fn mcp_set_servers(
        &self,
        request: McpSetServersRequest,
    ) -> Result<McpSetServersResponse> {
        self.request(request).await
    }

    /// Reads a resource of an MCP server.
    pub async fn mcp_read_resource(
        &self,
        server: &str,
        uri: &str,
    ) -> Result<McpReadResourceResponse> {
        let request = McpReadResourceRequest {
            server_name: server.to_owned(),
            uri: uri.to_owned(),
            ..McpReadResourceRequest::default()
        };
        self.request(request).await
    }

    /// How the context window is used.
    pub async fn get_context_usage(&self) -> Result<GetContextUsageResponse> {
        self.request(GetContextUsageRequest::default()).await
    }

    /// Restores files to their state at a user message (with `dry_run`, only reports).
    pub async fn rewind_files(
        &self,
        user_message_id: &str,
        dry_run: bool,
    ) -> Result<RewindFilesResponse> {
        let request = RewindFilesRequest {
            user_message_id: user_message_id.to_owned(),
            dry_run: Some(dry_run),
            ..RewindFilesRequest::default()
        };
        self.request(request).await
    }

    /// Stops a background task.
    pub async fn stop_task(&self, task_id: &str) -> Result<()> {
        let request = StopTaskRequest {
            task_id: task_id.to_owned(),
            ..StopTaskRequest::default()
        };
        self.request(request).await.map(drop)
    }

    /// Applies settings as if given by `--settings`.
    pub async fn apply_flag_settings(
        &self,
        settings: serde_json::Map<String, Value>,
    ) -> Result<()> {
        let request = ApplyFlagSettingsRequest {
            settings,
            ..ApplyFlagSettingsRequest::default()
        };
        self.request(request).await.map(drop)
    }

    /// The effective settings.
    pub async fn get_settings(&self) -> Result<GetSettingsResponse> {
        self.request(GetSettingsRequest::default()).await
    }

    /// Reloads plugins.
    pub async fn reload_plugins(&self) -> Result<ReloadPluginsResponse> {
        self.request(ReloadPluginsRequest::default()).await
    }

    /// Reloads skills.
    pub async fn reload_skills(&self) -> Result<ReloadSkillsResponse> {
        self.request(ReloadSkillsRequest::default()).await
    }

    /// Tells the CLI a file was already read (so edits need no fresh read).
    pub async fn seed_read_state(&self, request: SeedReadStateRequest) -> Result<()> {
        self.request(request).await.map(drop)
    }

    /// Withdraws a queued user message by its uuid.
    pub async fn cancel_async_message(&self, message_uuid: &str) -> Result<()> {
        let request = CancelAsyncMessageRequest {
            message_uuid: message_uuid.to_owned(),
            ..CancelAsyncMessageRequest::default()
        };
        self.request(request).await.map(drop)
    }

    /// Pins (`Some`) or clears (`None`) a permission mode for the tools of the MCP server
    /// `server`. It only tightens: it applies where the session's mode would allow a call
    /// without asking (`bypassPermissions`, `auto`). The answer's `warning` says that no known
    /// server has that name (the override is kept for one that connects later).
    pub async fn set_mcp_permission_mode_override(
        &self,
        server: &str,
        mode: Option<McpPermissionModeOverride>,
    ) -> Result<SetMcpPermissionModeOverrideResponse> {
        let request = SetMcpPermissionModeOverrideRequest {
            server_name: server.to_owned(),
            mode,
            ..SetMcpPermissionModeOverrideRequest::default()
        };
        self.request(request).await
    }

    /// Sets the session's title, as `/rename` does (`source`: who renamed it; the CLI's
    /// default is a rename relayed from claude.ai).
    pub async fn rename_session(&self, title: &str, source: Option<RenameSource>) -> Result<()> {
        let request = RenameSessionRequest {
            title: title.to_owned(),
            source,
            ..RenameSessionRequest::default()
        };
        self.request(request).await.map(drop)
    }

    /// Sets the session's color in a hosting application's list. Claude Code 2.1.330 and
    /// 2.1.332 refuse it (`unsupported_request`): it is declared by the TypeScript SDK only.
    pub async fn set_color(&self, color: &str) -> Result<()> {
        let request = SetColorRequest {
            color: color.to_owned(),
            ..SetColorRequest::default()
        };
        self.request(request).await.map(drop)
    }

    /// The session's cost as `/cost` shows it (its text: [`GetSessionCostResponse::text`]).
    pub async fn get_session_cost(&self) -> Result<GetSessionCostResponse> {
        self.request(GetSessionCostRequest::default()).await
    }

    /// The models the session may switch to, as `/model` lists them.
    pub async fn list_models(&self) -> Result<ListModelsResponse> {
        self.request(ListModelsRequest::default()).await
    }

    /// The session's cost and usage, the plan's rate limits and what drives usage, as the CLI
    /// keeps them (the TypeScript SDK's experimental `usage()`; `skip_behaviors` leaves out the
    /// scan of local transcripts). Per subagent and tool call: [`Client::turn_usage`].
    pub async fn get_usage(&self, skip_behaviors: bool) -> Result<GetUsageResponse> {
        let request = GetUsageRequest {
            skip_behaviors: Some(skip_behaviors),
            ..GetUsageRequest::default()
        };
        self.request(request).await
    }

    /// The running CLI's version and build (its `version`, `buildTime`).
    pub async fn get_binary_version(&self) -> Result<GetBinaryVersionResponse> {
        self.request(GetBinaryVersionRequest::default()).await
    }

    /// Calls an MCP tool directly, without the model (`request.tool` is the fully qualified
    /// name, `mcp__server__tool`); with `check_permissions` the session's rules apply.
    pub async fn mcp_call(&self, request: McpCallRequest) -> Result<McpCallResponse> {
        self.request(request).await
    }

    /// Files of the working directory whose names match `query`, as the `@` completion
    /// offers them.
    pub async fn file_suggestions(&self, query: &str) -> Result<FileSuggestionsResponse> {
        let request = FileSuggestionsRequest {
            query: query.to_owned(),
            ..FileSuggestionsRequest::default()
        };
        self.request(request).await
    }

    /// Reads a file of the session's file system (the TypeScript SDK's `readFile`): `path`
    /// resolved against the session's working directory, at most `max_bytes`, as UTF-8 text
    /// (lossy) or base64.
    pub async fn read_file(
        &self,
        path: &str,
        max_bytes: Option<u64>,
        encoding: Option<ReadFileEncoding>,
    ) -> Result<ReadFileResponse> {
        let request = ReadFileRequest {
            path: path.to_owned(),
            max_bytes,
            encoding,
            ..ReadFileRequest::default()
        };
        self.request(request).await
    }

    /// Registers a repository cloned during the session (another directory than the working
    /// one), so its `CLAUDE.md`, plugins and skills can be loaded.
    pub async fn register_repo_root(&self, request: RegisterRepoRootRequest) -> Result<()> {
        self.request(request).await.map(drop)
    }

    /// Reloads the output styles (the TypeScript SDK's `reloadOutputStyles`); the answer
    /// names every style now available.
    pub async fn reload_output_styles(&self) -> Result<ReloadOutputStylesResponse> {
        self.request(ReloadOutputStylesRequest::default()).await
    }

    /// Tells the CLI whether anyone watches the session's output (a hosting application's
    /// viewers).
    pub async fn set_has_subscribers(&self, has_subscribers: bool) -> Result<()> {
        let request = SetHasSubscribersRequest {
            has_subscribers: Some(has_subscribers),
            ..SetHasSubscribersRequest::default()
        };
        self.request(request).await.map(drop)
    }

    /// Moves the running foreground work (every tool call, or the one of `tool_use_id`) to
    /// the background, so the turn goes on (the TypeScript SDK's `backgroundTasks`).
    pub async fn background_tasks(
        &self,
        tool_use_id: Option<&str>,
    ) -> Result<BackgroundTasksResponse> {
        let request = BackgroundTasksRequest {
            tool_use_id: tool_use_id.map(str::to_owned),
            ..BackgroundTasksRequest::default()
        };
        self.request(request).await
    }

    /// The output so far of a background shell or Monitor task (its last 8 KiB).
    pub async fn get_task_output(&self, task_id: &str) -> Result<GetTaskOutputResponse> {
        let request = GetTaskOutputRequest {
            task_id: task_id.to_owned(),
            ..GetTaskOutputRequest::default()
        };
        self.request(request).await
    }

    /// The hooks in force, by event, and the events a hook may be set on, as `/hooks` lists
    /// them.
    pub async fn get_hooks_listing(&self) -> Result<GetHooksListingResponse> {
        self.request(GetHooksListingRequest::default()).await
    }

    /// Writes settings through the CLI's own writer (the TypeScript SDK's `updateSettings`):
    /// Claude Code 2.1.332 takes `outputStyle` for the project's local file and `effortLevel`
    /// for the user's, as text, and refuses any other key.
    pub async fn update_settings(
        &self,
        source: UpdateSettingsSource,
        settings: serde_json::Map<String, Value>,
    ) -> Result<()> {
        let request = UpdateSettingsRequest {
            source,
            settings,
            ..UpdateSettingsRequest::default()
        };
        self.request(request).await.map(drop)
    }

    /// The session's permission rules in force, each with its source, as `/permissions`
    /// lists them.
    pub async fn list_permission_rules(&self) -> Result<ListPermissionRulesResponse> {
        self.request(ListPermissionRulesRequest::default()).await
    }

    /// The slash commands the CLI offered at `initialize` (the TypeScript SDK's
    /// `supportedCommands`); empty when its answer could not be read.
    pub fn supported_commands(&self) -> &[SlashCommand] {
        self.initialize_response()
            .map(|i| i.commands.as_slice())
            .unwrap_or_default()
    }

    /// The models the CLI offered at `initialize` (`supportedModels`).
    pub fn supported_models(&self) -> &[ModelInfo] {
        self.initialize_response()
            .map(|i| i.models.as_slice())
            .unwrap_or_default()
    }

    /// The agents (subagent types) the CLI offered at `initialize` (`supportedAgents`), the
    /// options' own among them; empty for a CLI that does not list them.
    pub fn supported_agents(&self) -> &[AgentInfo] {
        self.initialize_response()
            .and_then(|i| i.agents.as_deref())
            .unwrap_or_default()
    }

    /// The account the session runs as (`accountInfo`).
    pub fn account_info(&self) -> Option<&AccountInfo> {
        self.initialize_response().map(|i| &i.account)
    }
}
