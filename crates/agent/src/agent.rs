//! [`CodingAgent`]: the coding agent as a twinwire [`Agent`]. twinwire's agent side does the
//! wire and the frames around each turn ([`Framing::Managed`]: `system/init` from
//! [`Agent::describe`], the session state, the queue and its notices, the `result` a turn
//! returns); the agent runs the turns (`turn`) and answers the host's requests
//! (`requests`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite};
use twinwire::agent::{
    Agent, Answer, AnswerFuture, Framing, Peer, Profile, RequestContext, Server, Turn, TurnOutcome,
};
use twinwire::sessions::SavedSessions;
use twinwire_protocol::control::{
    ApplyFlagSettingsRequest, BackgroundTasksRequest, BackgroundTasksResponse,
    CancelAsyncMessageRequest, CancelAsyncMessageResponse, EmptyResponse, FileSuggestionsRequest,
    FileSuggestionsResponse, GetBinaryVersionRequest, GetBinaryVersionResponse,
    GetContextUsageRequest, GetContextUsageResponse, GetHooksListingRequest,
    GetHooksListingResponse, GetSessionCostRequest, GetSessionCostResponse, GetSettingsRequest,
    GetSettingsResponse, GetTaskOutputRequest, GetTaskOutputResponse, GetUsageRequest,
    GetUsageResponse, InitializeRequest, InitializeResponse, ListModelsRequest, ListModelsResponse,
    ListPermissionRulesRequest, ListPermissionRulesResponse, McpCallRequest, McpCallResponse,
    McpReadResourceRequest, McpReadResourceResponse, McpReconnectRequest, McpSetServersRequest,
    McpSetServersResponse, McpStatusRequest, McpStatusResponse, McpToggleRequest, ReadFileRequest,
    ReadFileResponse, RegisterRepoRootRequest, ReloadOutputStylesRequest,
    ReloadOutputStylesResponse, ReloadPluginsRequest, ReloadPluginsResponse, ReloadSkillsRequest,
    ReloadSkillsResponse, RenameSessionRequest, RewindFilesRequest, RewindFilesResponse,
    SeedReadStateRequest, SetHasSubscribersRequest, SetMaxThinkingTokensRequest,
    SetMcpPermissionModeOverrideRequest, SetMcpPermissionModeOverrideResponse, SetModelRequest,
    SetModelResponse, SetPermissionModeRequest, SetPermissionModeResponse, StopTaskRequest,
    UpdateSettingsRequest,
};
use twinwire_protocol::system::{ApiKeySource, SystemInit};

use crate::checkpoints::Checkpoints;
use crate::config::Config;
use crate::mcp::{search, McpServers};
use crate::model::{ModelClient, ModelError};
use crate::permissions::{Permissions, RuleError};
use crate::session::Session;
use crate::session_end::Ending;
use crate::state::State;
use crate::subagents::{TaskTool, TASK};
use crate::tools::{Registry, Workspace};
use crate::{requests, session_info, session_requests, VERSION};

/// Why a session could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// A rule of `--allowedTools` / `--disallowedTools` that cannot be read.
    #[error("{0}")]
    Rule(#[from] RuleError),
    /// The model client could not be made.
    #[error("{0}")]
    Model(#[from] ModelError),
    /// The scratch directory could not be made.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The session to resume could not be read.
    #[error("{0}")]
    Resume(String),
    /// The wire failed.
    #[error("{0}")]
    Wire(#[from] twinwire::Error),
}

/// The coding agent, as a twinwire [`Agent`].
#[derive(Clone)]
pub struct CodingAgent {
    session: Arc<Session>,
}

impl std::fmt::Debug for CodingAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodingAgent")
            .field("model", &self.session.config.model)
            .finish_non_exhaustive()
    }
}

impl CodingAgent {
    /// An agent for a session started with `config`: its rules are read, its tools made, the
    /// session to resume read back. Nothing is sent yet.
    pub fn new(config: Config) -> Result<Self, StartError> {
        Self::on_http(config, None)
    }

    /// As [`CodingAgent::new`], its model calls made on `http` when given (a client shared by
    /// the sessions of one runtime: see [`crate::in_process`]).
    pub(crate) fn on_http(
        config: Config,
        http: Option<reqwest::Client>,
    ) -> Result<Self, StartError> {
        let env = config.env.clone();
        let client = ModelClient::from_env_on(|name| env.get(name).cloned(), http)?;
        let mut dirs = vec![config.cwd.clone()];
        dirs.extend(config.add_dirs.iter().cloned());
        let workspace = Arc::new(
            Workspace::new(
                config.cwd.clone(),
                config.add_dirs.clone(),
                config.limits,
                config.env.clone(),
            )?
            .with_sandbox(crate::tools::sandbox::Sandbox::from_settings(
                config.sandbox.as_ref(),
            )),
        );
        let permissions = Permissions::new(
            &config.allowed_tools,
            &config.disallowed_tools,
            dirs,
            config.ask_host,
        )?
        .with_ask_rules(&config.ask_rules)?
        .with_own_dirs(workspace.own_dirs());
        let plan = crate::plan_file::Plan::new(&workspace.config_dir());
        let permissions = permissions.with_plan_file(plan.file().to_owned());
        workspace.set_read_rules(permissions.policy());
        let store = match config
            .env
            .get("CLAUDE_CONFIG_DIR")
            .filter(|d| !d.is_empty())
        {
            Some(dir) => SavedSessions::at(dir),
            None => match config.env.get("HOME").filter(|d| !d.is_empty()) {
                Some(home) => SavedSessions::at(std::path::Path::new(home).join(".claude")),
                None => SavedSessions::from_env(),
            },
        };
        let tools = Registry::built_in(config.tools.as_deref(), &config.env);
        let state =
            State::start(&config, &store, tools, permissions).map_err(StartError::Resume)?;
        let checkpoints = Checkpoints::new(Checkpoints::enabled_by(
            config
                .var("CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING")
                .as_deref(),
        ));
        let offered = |name: &str| {
            config
                .tools
                .as_ref()
                .is_none_or(|only| only.iter().any(|t| t == name || t == "Agent"))
        };
        let (task_tool, search_tool) = (
            offered(TASK),
            search::enabled(config.var("ENABLE_TOOL_SEARCH").as_deref()),
        );
        // Plan mode's tools need someone to approve a plan: offered when the host is asked.
        let plan_tools = config.ask_host && offered(crate::plan_mode::EXIT);
        let session = Arc::new_cyclic(|me: &std::sync::Weak<Session>| {
            let search = Arc::new(search::Search::default());
            let mut state = state;
            if task_tool {
                state.tools.add(Arc::new(TaskTool::new(me.clone())));
            }
            if plan_tools {
                state
                    .tools
                    .add_by_name(Arc::new(crate::plan_mode::EnterPlanMode::new(me.clone())));
                state
                    .tools
                    .add_by_name(Arc::new(crate::plan_mode::ExitPlanMode::new(me.clone())));
            }
            if search_tool {
                state
                    .tools
                    .add(Arc::new(search::ToolSearch::new(Arc::clone(&search))));
            }
            Session {
                client,
                workspace,
                store,
                state: Mutex::new(state),
                command_hooks: crate::command_hooks::CommandHooks::read(&config),
                ready: tokio::sync::Mutex::new(false),
                last_failed: AtomicBool::new(false),
                mcp: McpServers::default(),
                search,
                tasks: Arc::default(),
                checkpoints,
                nested_memory: Mutex::default(),
                plan,
                config,
            }
        });
        Ok(Self { session })
    }

    /// Whether the last turn's result was an error.
    pub fn last_result_failed(&self) -> bool {
        self.session.last_failed.load(Ordering::SeqCst)
    }

    /// Serves the session over `reader` and `writer` until the host's input ends and the
    /// last turn is done.
    pub async fn serve<R, W>(self, reader: R, writer: W) -> Result<(), StartError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        // A prompt on the command line is the first user message.
        let first = self
            .session
            .config
            .prompt
            .as_ref()
            .map(|prompt| {
                let message = twinwire_protocol::UserMessage::new(prompt.clone());
                let mut line =
                    serde_json::to_vec(&twinwire_protocol::InputMessage::User(Box::new(message)))
                        .unwrap_or_default();
                line.push(b'\n');
                line
            })
            .unwrap_or_default();
        let input = std::io::Cursor::new(first).chain(reader);
        Server::new(self).serve(input, writer).await?;
        Ok(())
    }
}

impl Agent for CodingAgent {
    fn profile(&self) -> Profile {
        // As Claude Code: session states only for a host that says it reads them (the Python
        // SDK and twinwire do; the TypeScript SDK passes unknown frames on to its caller).
        let states = self
            .session
            .config
            .var("CLAUDE_CODE_SDK_READS_SESSION_STATE")
            .as_deref()
            == Some("1");
        Profile::new()
            .framing(Framing::Managed)
            .session_id(self.session.id())
            .watches_interrupts(true)
            .session_state_events(states)
    }

    fn describe(&self, peer: &Peer) -> BoxFuture<'static, SystemInit> {
        let session = Arc::clone(&self.session);
        session.mirror_to(peer);
        let peer = peer.clone();
        Box::pin(async move {
            crate::mcp_control::prepare(&session, &peer).await;
            let roots = crate::commands::roots(session.store.config_dir(), &session.config.cwd);
            let commands = crate::commands::all(&roots)
                .into_iter()
                .map(|c| c.name)
                .collect();
            let skills = crate::commands::skills(&roots)
                .into_iter()
                .map(|c| c.name)
                .collect();
            let state = session.state();
            let key_source = if session.config.var("ANTHROPIC_API_KEY").is_some() {
                ApiKeySource::AnthropicApiKey
            } else {
                ApiKeySource::None
            };
            SystemInit {
                cwd: session.config.cwd.display().to_string(),
                tools: state.tools.names(),
                mcp_servers: state.mcp_status.clone(),
                model: state.model.clone(),
                permission_mode: state.mode.clone(),
                api_key_source: key_source,
                claude_code_version: Some(VERSION.to_owned()),
                output_style: state.output_style.clone(),
                agents: Some(state.agents.names()),
                skills: Some(skills),
                slash_commands: commands,
                plugins: Some(Vec::new()),
                ..SystemInit::default()
            }
        })
    }

    fn run_turn(&self, turn: Turn, peer: Peer) -> BoxFuture<'static, TurnOutcome> {
        let session = Arc::clone(&self.session);
        session.mirror_to(&peer);
        Box::pin(async move {
            let outcome = crate::turn::run(Arc::clone(&session), turn.message, peer).await;
            session.rest();
            Ok(outcome)
        })
    }

    fn input_ended(&self, peer: Peer) -> BoxFuture<'static, ()> {
        let session = Arc::clone(&self.session);
        Box::pin(async move {
            // Background work does not outlive the session, as in Claude Code.
            session.tasks.stop_all();
            let ending = {
                let state = session.state();
                Ending {
                    session_id: state.session_id.clone(),
                    transcript: crate::transcript::file_of(
                        &session.store,
                        &session.config.cwd,
                        &state.session_id,
                    ),
                    callbacks: state.hooks.clone(),
                    commands: session
                        .command_hooks
                        .matching("SessionEnd", Some(crate::session_end::REASON)),
                }
            };
            crate::session_end::fire(&session.config, ending, peer).await;
        })
    }

    fn initialize(
        &self,
        request: InitializeRequest,
        cx: RequestContext,
    ) -> AnswerFuture<InitializeResponse> {
        let session = Arc::clone(&self.session);
        Box::pin(async move {
            requests::initialize(&session, request, &cx.peer)
                .await
                .into()
        })
    }

    fn set_model(
        &self,
        request: SetModelRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<SetModelResponse> {
        let answer = requests::set_model(&self.session, request.model.flatten());
        Box::pin(async move { Answer::ok(answer) })
    }

    fn set_permission_mode(
        &self,
        request: SetPermissionModeRequest,
        cx: RequestContext,
    ) -> AnswerFuture<SetPermissionModeResponse> {
        let answer = requests::set_mode(&self.session, &cx.peer, &request.mode);
        Box::pin(async move { answer.into() })
    }

    fn set_max_thinking_tokens(
        &self,
        request: SetMaxThinkingTokensRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<EmptyResponse> {
        requests::set_thinking(&self.session, request);
        Box::pin(async { Answer::ok(EmptyResponse::default()) })
    }

    fn mcp_status(
        &self,
        _request: McpStatusRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<McpStatusResponse> {
        let answer = requests::mcp_status(&self.session);
        Box::pin(async move { Answer::ok(answer) })
    }

    fn get_context_usage(
        &self,
        _request: GetContextUsageRequest,
        cx: RequestContext,
    ) -> AnswerFuture<GetContextUsageResponse> {
        let session = Arc::clone(&self.session);
        Box::pin(async move {
            crate::context_usage::context_usage(&session, &cx.peer)
                .await
                .into()
        })
    }

    fn rewind_files(
        &self,
        request: RewindFilesRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<RewindFilesResponse> {
        let dry_run = request.dry_run.unwrap_or(false);
        let answer =
            session_requests::rewind_files(&self.session, &request.user_message_id, dry_run);
        Box::pin(async move { Answer::ok(answer) })
    }

    fn seed_read_state(
        &self,
        request: SeedReadStateRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<EmptyResponse> {
        let answer = session_requests::seed_read_state(&self.session, &request)
            .map(|()| EmptyResponse::default());
        Box::pin(async move { answer.into() })
    }

    fn get_hooks_listing(
        &self,
        _request: GetHooksListingRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<GetHooksListingResponse> {
        let answer = crate::listings::hooks_listing(&self.session);
        Box::pin(async move { Answer::ok(answer) })
    }

    fn list_permission_rules(
        &self,
        _request: ListPermissionRulesRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<ListPermissionRulesResponse> {
        let answer = crate::listings::permission_rules(&self.session);
        Box::pin(async move { Answer::ok(answer) })
    }

    fn update_settings(
        &self,
        request: UpdateSettingsRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<EmptyResponse> {
        let answer = crate::listings::update_settings(&self.session, &request)
            .map(|()| EmptyResponse::default());
        Box::pin(async move { answer.into() })
    }

    fn register_repo_root(
        &self,
        request: RegisterRepoRootRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<EmptyResponse> {
        let answer = session_requests::register_repo_root(&self.session, &request)
            .map(|()| EmptyResponse::default());
        Box::pin(async move { answer.into() })
    }

    fn apply_flag_settings(
        &self,
        request: ApplyFlagSettingsRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<EmptyResponse> {
        session_requests::apply_flag_settings(&self.session, request);
        Box::pin(async { Answer::ok(EmptyResponse::default()) })
    }

    fn get_settings(
        &self,
        _request: GetSettingsRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<GetSettingsResponse> {
        let answer = session_requests::get_settings(&self.session);
        Box::pin(async move { Answer::ok(answer) })
    }

    fn reload_skills(
        &self,
        _request: ReloadSkillsRequest,
        cx: RequestContext,
    ) -> AnswerFuture<ReloadSkillsResponse> {
        let answer = session_requests::reload_skills(&self.session, &cx.peer);
        Box::pin(async move { Answer::ok(answer) })
    }

    fn reload_plugins(
        &self,
        _request: ReloadPluginsRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<ReloadPluginsResponse> {
        let answer = session_requests::reload_plugins(&self.session);
        Box::pin(async move { Answer::ok(answer) })
    }

    fn reload_output_styles(
        &self,
        _request: ReloadOutputStylesRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<ReloadOutputStylesResponse> {
        let answer = session_requests::reload_output_styles(&self.session);
        Box::pin(async move { Answer::ok(answer) })
    }

    fn background_tasks(
        &self,
        request: BackgroundTasksRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<BackgroundTasksResponse> {
        let moved = session_requests::background_tasks(&self.session, request.tool_use_id);
        Box::pin(async move {
            Answer::ok(BackgroundTasksResponse {
                backgrounded: Some(moved),
                ..BackgroundTasksResponse::default()
            })
        })
    }

    fn get_task_output(
        &self,
        request: GetTaskOutputRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<GetTaskOutputResponse> {
        let answer = session_requests::task_output(&self.session, &request.task_id);
        Box::pin(async move { answer.into() })
    }

    fn stop_task(
        &self,
        request: StopTaskRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<EmptyResponse> {
        session_requests::stop_task(&self.session, &request.task_id);
        Box::pin(async { Answer::ok(EmptyResponse::default()) })
    }

    fn get_session_cost(
        &self,
        _request: GetSessionCostRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<GetSessionCostResponse> {
        let answer = session_info::session_cost(&self.session);
        Box::pin(async move { Answer::ok(answer) })
    }

    fn get_usage(
        &self,
        _request: GetUsageRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<GetUsageResponse> {
        let answer = session_info::usage(&self.session);
        Box::pin(async move { Answer::ok(answer) })
    }

    fn list_models(
        &self,
        _request: ListModelsRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<ListModelsResponse> {
        let answer = session_info::list_models(&self.session);
        Box::pin(async move { Answer::ok(answer) })
    }

    fn get_binary_version(
        &self,
        _request: GetBinaryVersionRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<GetBinaryVersionResponse> {
        Box::pin(async { Answer::ok(session_info::binary_version()) })
    }

    fn rename_session(
        &self,
        request: RenameSessionRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<EmptyResponse> {
        let answer = session_info::rename(&self.session, &request);
        let answer = answer.map(|()| EmptyResponse::default());
        Box::pin(async move { answer.into() })
    }

    fn set_has_subscribers(
        &self,
        _request: SetHasSubscribersRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<EmptyResponse> {
        // What it writes does not depend on who watches: the hint is taken and changes nothing.
        Box::pin(async { Answer::ok(EmptyResponse::default()) })
    }

    fn mcp_call(
        &self,
        request: McpCallRequest,
        cx: RequestContext,
    ) -> AnswerFuture<McpCallResponse> {
        let session = Arc::clone(&self.session);
        Box::pin(async move {
            crate::mcp_call::call(&session, &cx.peer, cx.cancel.clone(), request)
                .await
                .into()
        })
    }

    fn read_file(
        &self,
        request: ReadFileRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<ReadFileResponse> {
        let answer = crate::host_files::read_file(&self.session, &request);
        Box::pin(async move { answer.into() })
    }

    fn file_suggestions(
        &self,
        request: FileSuggestionsRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<FileSuggestionsResponse> {
        let session = Arc::clone(&self.session);
        Box::pin(async move {
            // The walk reads the disk: off the runtime's threads.
            let answer = tokio::task::spawn_blocking(move || {
                crate::host_files::file_suggestions(&session, &request.query)
            })
            .await;
            match answer {
                Ok(answer) => Answer::ok(answer),
                Err(err) => Err(twinwire::engine::HandlerError::new(err.to_string())).into(),
            }
        })
    }

    fn cancel_async_message(
        &self,
        request: CancelAsyncMessageRequest,
        cx: RequestContext,
    ) -> AnswerFuture<CancelAsyncMessageResponse> {
        let answer = session_requests::cancel_async_message(&cx.peer, &request.message_uuid);
        Box::pin(async move { Answer::ok(answer) })
    }

    fn mcp_set_servers(
        &self,
        request: McpSetServersRequest,
        cx: RequestContext,
    ) -> AnswerFuture<McpSetServersResponse> {
        let session = Arc::clone(&self.session);
        Box::pin(async move {
            crate::mcp_control::prepare(&session, &cx.peer).await;
            Answer::ok(crate::mcp_control::set_servers(&session, &cx.peer, request.servers).await)
        })
    }

    fn mcp_toggle(
        &self,
        request: McpToggleRequest,
        cx: RequestContext,
    ) -> AnswerFuture<EmptyResponse> {
        let session = Arc::clone(&self.session);
        Box::pin(async move {
            crate::mcp_control::prepare(&session, &cx.peer).await;
            crate::mcp_control::toggle(&session, &cx.peer, &request.server_name, request.enabled)
                .await
                .map(|()| EmptyResponse::default())
                .into()
        })
    }

    fn mcp_reconnect(
        &self,
        request: McpReconnectRequest,
        cx: RequestContext,
    ) -> AnswerFuture<EmptyResponse> {
        let session = Arc::clone(&self.session);
        Box::pin(async move {
            crate::mcp_control::prepare(&session, &cx.peer).await;
            crate::mcp_control::reconnect(&session, &cx.peer, &request.server_name)
                .await
                .map(|()| EmptyResponse::default())
                .into()
        })
    }

    fn mcp_read_resource(
        &self,
        request: McpReadResourceRequest,
        cx: RequestContext,
    ) -> AnswerFuture<McpReadResourceResponse> {
        let session = Arc::clone(&self.session);
        Box::pin(async move {
            crate::mcp_control::prepare(&session, &cx.peer).await;
            crate::mcp_control::read_resource(&session, &request.server_name, &request.uri)
                .await
                .into()
        })
    }

    fn set_mcp_permission_mode_override(
        &self,
        request: SetMcpPermissionModeOverrideRequest,
        cx: RequestContext,
    ) -> AnswerFuture<SetMcpPermissionModeOverrideResponse> {
        let session = Arc::clone(&self.session);
        Box::pin(async move {
            crate::mcp_control::prepare(&session, &cx.peer).await;
            let mode = request.mode;
            Answer::ok(
                crate::mcp_control::mode_override(&session, &request.server_name, mode).await,
            )
        })
    }
}

/// How a session served on stdin and stdout ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Served {
    /// The host's input ended and the last turn was done.
    Ended {
        /// Whether the last result was an error.
        last_failed: bool,
    },
    /// A signal (SIGTERM, SIGINT) stopped it, by number.
    Stopped(i32),
}

/// Serves a session on this process's stdin and stdout until the host's input ends, or
/// SIGTERM or SIGINT arrives; then whatever the session started and left running is ended
/// (background jobs, and on Linux every process left under this one: see
/// [`crate::reaper`]).
pub async fn serve_stdio(config: Config) -> Result<Served, StartError> {
    let agent = CodingAgent::new(config)?;
    let served = agent.clone().serve(tokio::io::stdin(), tokio::io::stdout());
    let outcome = tokio::select! {
        served = served => served.map(|()| Served::Ended {
            last_failed: agent.last_result_failed(),
        }),
        signal = stop_signal() => Ok(Served::Stopped(signal)),
    };
    // The serve future is gone (with it any Bash call it was running, whose group its drop
    // kills); the jobs and whatever escaped their groups go too.
    agent.session.workspace.jobs.stop_all();
    let killed = tokio::task::spawn_blocking(crate::reaper::end_descendants)
        .await
        .unwrap_or_default();
    if killed > 0 {
        tracing::debug!(killed, "processes left running by the session were ended");
    }
    outcome
}

/// The first SIGTERM or SIGINT, by number (never, where they cannot be watched).
async fn stop_signal() -> i32 {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = term.recv() => 15,
            _ = int.recv() => 2,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        2
    }
}
