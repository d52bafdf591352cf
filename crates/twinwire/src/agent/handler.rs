//! [`Agent`]: a Rust agent behind the protocol, one method per request a host sends with a
//! default, and a catch-all. The agent-side twin of [`Host`](crate::host::Host).
//!
//! The request methods are generated from one table (below), in the order of the protocol's
//! kinds table ([`twinwire_protocol::control::ControlRequestKind`]): each takes the typed
//! request and a [`RequestContext`] (the request's id and cancellation, and the [`Peer`]) and
//! returns the typed answer. By default a request goes to [`Agent::request`], the catch-all,
//! which answers `unsupported_request` as Claude Code does for a subtype it does not know; so
//! an agent overrides the requests it answers, and a proxy or a scripted stand-in may answer
//! them all in the catch-all. Three requests act on the session whatever the agent says and
//! answer by default as Claude Code does: `initialize` (an empty success), `interrupt` (the
//! running turn is stopped; the receipt lists the messages still queued) and `set_model` (the
//! model of later turns).

use std::future::Future;

use futures::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use twinwire_protocol::control::*;
use twinwire_protocol::system::SystemInit;

use super::peer::{Peer, Turn};
use super::profile::Profile;
use super::reply::Reply;
use super::{frames, TurnOutcome};
use crate::engine::{Answer, HandlerError};

/// What a request method returns: the typed answer, when it is ready.
pub type AnswerFuture<T> = BoxFuture<'static, Answer<T>>;

/// What a request method learns about the request it answers: the rmcp shape, one context for
/// every kind.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct RequestContext {
    /// The host's id for the request.
    pub request_id: RequestId,
    /// Cancelled when the host withdraws the request (`control_cancel_request`) or its input
    /// ends; the work answering it is stopped then.
    pub cancel: CancellationToken,
    /// The session: write frames, ask the host (Claude Code asks for its SDK MCP servers'
    /// tools before it answers `initialize`).
    pub peer: Peer,
    reply: Reply,
}

impl RequestContext {
    pub(crate) fn new(
        request_id: RequestId,
        cancel: CancellationToken,
        peer: Peer,
        reply: Reply,
    ) -> Self {
        Self {
            request_id,
            cancel,
            peer,
            reply,
        }
    }

    /// The answer, written by hand, when and as often as the agent likes: return
    /// [`Answer::AlreadyAnswered`] and answer through this (late, twice, or never: a host must
    /// cope with all three, and a stand-in for the CLI in a test needs to produce them).
    pub fn reply(&self) -> &Reply {
        &self.reply
    }
}

/// Takes a request out of its box, or as it is (the largest bodies are boxed).
trait Unbox<T> {
    fn unbox(self) -> T;
}

impl<T> Unbox<T> for T {
    fn unbox(self) -> T {
        self
    }
}

impl<T> Unbox<T> for Box<T> {
    fn unbox(self) -> T {
        *self
    }
}

/// A catch-all answer read as the typed answer of the kind it answers.
fn typed<T: serde::de::DeserializeOwned + Send + 'static>(
    answer: AnswerFuture<Value>,
) -> AnswerFuture<T> {
    Box::pin(async move {
        match answer.await {
            Answer::Respond(Ok(payload)) => match twinwire_protocol::from_value::<T>(payload) {
                Ok(decoded) => Answer::Respond(Ok(decoded.value)),
                Err(err) => Answer::Respond(Err(HandlerError::new(format!(
                    "the agent's answer does not fit the request: {err}"
                )))),
            },
            Answer::Respond(Err(error)) => Answer::Respond(Err(error)),
            Answer::AlreadyAnswered => Answer::AlreadyAnswered,
        }
    })
}

/// A typed answer as the payload the engine writes.
fn untyped<T: serde::Serialize + Send + 'static>(answer: AnswerFuture<T>) -> AnswerFuture<Value> {
    Box::pin(async move {
        match answer.await {
            Answer::Respond(Ok(payload)) => Answer::Respond(
                serde_json::to_value(payload)
                    .map_err(|err| HandlerError::new(format!("cannot write the answer: {err}"))),
            ),
            Answer::Respond(Err(error)) => Answer::Respond(Err(error)),
            Answer::AlreadyAnswered => Answer::AlreadyAnswered,
        }
    })
}

macro_rules! agent_requests {
    ($(
        $(#[$doc:meta])*
        $method:ident: $variant:ident($request:ty) $(= $default:expr)?;
    )*) => {
        /// A Rust agent behind the protocol. Everything but [`Agent::run_turn`] has a default.
        pub trait Agent: Send + Sync + 'static {
            /// Runs one turn: write frames with `peer`; return the result (written by the
            /// server under [`Framing::Managed`](super::Framing::Managed)).
            fn run_turn(&self, turn: Turn, peer: Peer) -> BoxFuture<'static, TurnOutcome>;

            /// How the server frames this agent; asked once, before the first frame.
            fn profile(&self) -> Profile {
                Profile::default()
            }

            /// The facts `system/init` gives at the start of each turn under
            /// [`Framing::Managed`](super::Framing::Managed) (the server fills in the session id and the uuid): the
            /// agent's working directory, model, tools, MCP servers, permission mode, … The
            /// place to prepare what the first turn needs. Default: the process's directory
            /// and the model the host set, nothing else.
            fn describe(&self, peer: &Peer) -> BoxFuture<'static, SystemInit> {
                let init = frames::default_init(peer.model().as_deref());
                Box::pin(async move { init })
            }

            /// The host's input ended (it closed the agent's stdin, as the SDKs do when a
            /// session is over) and the last turn and the work started with
            /// [`Peer::spawn`] are done; the output is still open, and closes when the
            /// returned work is done. The place for what Claude Code does before it exits,
            /// such as its `SessionEnd` hooks. The host can no longer answer a request: write
            /// frames or [`Peer::hook_without_answer`], never wait for a reply. The work
            /// should bound its own time: the server waits for it. The mirror of the host
            /// side's end of the CLI's output ([`crate::engine::OutputEnd`]). Default:
            /// nothing.
            fn input_ended(&self, peer: Peer) -> BoxFuture<'static, ()> {
                let _ = peer;
                Box::pin(async {})
            }

            /// The catch-all: every request without a method of its own, a subtype twinwire
            /// does not know included (the raw frame is in [`ControlRequestBody::Unknown`]),
            /// and every request whose method keeps its default. Default: unsupported, in
            /// Claude Code's words.
            fn request(&self, request: ControlRequestBody, cx: RequestContext) -> AnswerFuture<Value> {
                let _ = cx;
                let error = HandlerError::unsupported(request.tag());
                Box::pin(async move { Answer::Respond(Err(error)) })
            }

            $(
                $(#[$doc])*
                fn $method(
                    &self,
                    request: $request,
                    cx: RequestContext,
                ) -> AnswerFuture<<$request as ControlRequestKind>::Response> {
                    agent_requests!(@default self, request, cx, $variant $(, $default)?)
                }
            )*
        }

        /// Hands a request to the agent's method for its kind.
        pub(crate) fn dispatch(
            agent: &dyn Agent,
            request: ControlRequestBody,
            cx: RequestContext,
        ) -> AnswerFuture<Value> {
            match request {
                $(
                    ControlRequestBody::$variant(request) => {
                        untyped(agent.$method(request.unbox(), cx))
                    }
                )*
                other => agent.request(other, cx),
            }
        }
    };
    (@default $self:ident, $request:ident, $cx:ident, $variant:ident, $default:expr) => {{
        let _ = $self;
        let answer = $default(&$request, &$cx);
        Box::pin(async move { Answer::Respond(Ok(answer)) })
    }};
    (@default $self:ident, $request:ident, $cx:ident, $variant:ident) => {
        typed($self.request(ControlRequestBody::from($request), $cx))
    };
}

agent_requests! {
    /// `initialize`: the host's hooks, SDK MCP servers, prompts and schema. Default: an empty
    /// success, which every host accepts.
    initialize: Initialize(InitializeRequest) = |_: &InitializeRequest, _: &RequestContext| {
        InitializeResponse::default()
    };
    /// `interrupt`: the running turn is stopped whatever the answer (right after the answer's
    /// first poll, so that an answer given at once precedes the frames the turn writes as it
    /// ends). Default: the receipt, with the uuids of the messages still queued.
    interrupt: Interrupt(InterruptRequest) = |_: &InterruptRequest, cx: &RequestContext| {
        InterruptResponse {
            still_queued: Some(cx.peer.queued_uuids()),
            ..InterruptResponse::default()
        }
    };
    /// `set_model`: the model of later turns ([`Peer::model`]) is set whatever the answer.
    /// Default: an empty success.
    set_model: SetModel(SetModelRequest) = |_: &SetModelRequest, _: &RequestContext| {
        SetModelResponse::default()
    };
    /// `set_permission_mode`.
    set_permission_mode: SetPermissionMode(SetPermissionModeRequest);
    /// `set_max_thinking_tokens`.
    set_max_thinking_tokens: SetMaxThinkingTokens(SetMaxThinkingTokensRequest);
    /// `rename_session`.
    rename_session: RenameSession(RenameSessionRequest);
    /// `set_color`.
    set_color: SetColor(SetColorRequest);
    /// `mcp_status`.
    mcp_status: McpStatus(McpStatusRequest);
    /// `get_context_usage`.
    get_context_usage: GetContextUsage(GetContextUsageRequest);
    /// `get_session_cost`.
    get_session_cost: GetSessionCost(GetSessionCostRequest);
    /// `list_models`.
    list_models: ListModels(ListModelsRequest);
    /// `get_usage`.
    get_usage: GetUsage(GetUsageRequest);
    /// `get_binary_version`.
    get_binary_version: GetBinaryVersion(GetBinaryVersionRequest);
    /// `mcp_call`: call an MCP tool without a model turn.
    mcp_call: McpCall(McpCallRequest);
    /// `file_suggestions`.
    file_suggestions: FileSuggestions(FileSuggestionsRequest);
    /// `mcp_message`: a JSON-RPC message for one of the agent's MCP servers.
    mcp_message: McpMessage(McpMessageRequest);
    /// `rewind_files`.
    rewind_files: RewindFiles(RewindFilesRequest);
    /// `cancel_async_message`.
    cancel_async_message: CancelAsyncMessage(CancelAsyncMessageRequest);
    /// `read_file`.
    read_file: ReadFile(ReadFileRequest);
    /// `seed_read_state`.
    seed_read_state: SeedReadState(SeedReadStateRequest);
    /// `mcp_set_servers`.
    mcp_set_servers: McpSetServers(McpSetServersRequest);
    /// `register_repo_root`.
    register_repo_root: RegisterRepoRoot(RegisterRepoRootRequest);
    /// `reload_plugins`.
    reload_plugins: ReloadPlugins(ReloadPluginsRequest);
    /// `reload_skills`.
    reload_skills: ReloadSkills(ReloadSkillsRequest);
    /// `reload_output_styles`.
    reload_output_styles: ReloadOutputStyles(ReloadOutputStylesRequest);
    /// `mcp_reconnect`.
    mcp_reconnect: McpReconnect(McpReconnectRequest);
    /// `mcp_toggle`.
    mcp_toggle: McpToggle(McpToggleRequest);
    /// `set_has_subscribers`.
    set_has_subscribers: SetHasSubscribers(SetHasSubscribersRequest);
    /// `stop_task`.
    stop_task: StopTask(StopTaskRequest);
    /// `background_tasks`.
    background_tasks: BackgroundTasks(BackgroundTasksRequest);
    /// `get_task_output`.
    get_task_output: GetTaskOutput(GetTaskOutputRequest);
    /// `apply_flag_settings`.
    apply_flag_settings: ApplyFlagSettings(ApplyFlagSettingsRequest);
    /// `get_settings`.
    get_settings: GetSettings(GetSettingsRequest);
    /// `get_hooks_listing`.
    get_hooks_listing: GetHooksListing(GetHooksListingRequest);
    /// `update_settings`.
    update_settings: UpdateSettings(UpdateSettingsRequest);
    /// `list_permission_rules`.
    list_permission_rules: ListPermissionRules(ListPermissionRulesRequest);
    /// `mcp_read_resource`.
    mcp_read_resource: McpReadResource(McpReadResourceRequest);
    /// `set_mcp_permission_mode_override`.
    set_mcp_permission_mode_override: SetMcpPermissionModeOverride(SetMcpPermissionModeOverrideRequest);
}

/// Any async closure from a turn to its outcome is an [`Agent`] with the defaults for
/// everything else.
impl<F, Fut> Agent for F
where
    F: Fn(Turn, Peer) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = TurnOutcome> + Send + 'static,
{
    fn run_turn(&self, turn: Turn, peer: Peer) -> BoxFuture<'static, TurnOutcome> {
        Box::pin(self(turn, peer))
    }
}

/// An async closure as an [`Agent`] (the closure is one already; this names its shape so
/// the closure's argument types are inferred).
pub fn agent<F, Fut>(run_turn: F) -> impl Agent
where
    F: Fn(Turn, Peer) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = TurnOutcome> + Send + 'static,
{
    run_turn
}
