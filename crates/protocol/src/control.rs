//! The control plane: requests, responses and cancels that travel beside the messages.
//!
//! Either side may send a `control_request` (`{"type":"control_request","request_id":…,
//! "request":{"subtype":…}}`); the receiver answers with exactly one `control_response`
//! carrying the same `request_id`, or the sender withdraws it with a `control_cancel_request`.
//! The outer `type` is read by the top-level message unions, so the structs here start one
//! level down: [`ControlRequest`], [`ControlResponse`], [`ControlCancelRequest`].
//!
//! - [`ControlRequestBody`] is the union of every request subtype, in both directions
//!   ([`ControlRequestBody::direction`] says which side sends it). A subtype this version does
//!   not know is kept whole as [`crate::Unknown`].
//! - [`ControlRequestKind`] ties each request struct to the typed success payload it gets back,
//!   so an engine can send a request and read its answer as one typed call.
//! - [`ControlResponseBody`] is either [`ControlSuccess`] (whose `response` payload is raw JSON
//!   until [`ControlSuccess::parse_response`] reads it for a request kind) or [`ControlError`].
//!
//! ```
//! use twinwire_protocol::control::{ControlRequest, ControlRequestBody, Direction};
//!
//! let line = r#"{"request_id":"req_2","request":{"subtype":"set_model","model":"claude-haiku-4-5"}}"#;
//! let request: ControlRequest = serde_json::from_str(line).unwrap();
//! assert_eq!(request.request.tag(), "set_model");
//! assert_eq!(request.request.direction(), Some(Direction::HostToCli));
//! assert!(matches!(request.request, ControlRequestBody::SetModel(_)));
//! ```

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

mod agent;
mod context;
mod host;
mod id;
mod initialize;
mod kinds;
mod plan_usage;
mod registration;
mod responses;
mod servers;
mod settings;
#[cfg(test)]
mod tests;

pub use agent::*;
pub use context::*;
pub use host::*;
pub use id::RequestId;
pub use initialize::*;
pub use kinds::{reencode_response, ControlRequestKind};
pub use plan_usage::*;
pub use registration::*;
pub use responses::*;
pub use servers::*;
pub use settings::*;

/// The elicitation types are shared with the hook events and live in [`crate::hooks`].
pub use crate::hooks::{ElicitationAction, ElicitationMode};

crate::tagged_union! {
    /// A frame of the control plane, as either side writes it: the envelope both
    /// [`crate::Message`] and [`crate::InputMessage`] share, for code that writes control
    /// frames without caring which end it is.
    pub enum ControlFrame: "type", "control frame" {
        /// A request.
        "control_request" => Request(ControlRequest),
        /// An answer.
        "control_response" => Response(ControlResponse),
        /// The sender withdraws one of its own requests.
        "control_cancel_request" => Cancel(ControlCancelRequest),
    }
}

/// A `control_request` frame, without its outer `"type"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlRequest {
    /// Chosen by the sender, unique among its requests in flight; the answer echoes it.
    pub request_id: RequestId,
    /// What is asked, keyed by `subtype`.
    pub request: ControlRequestBody,
    /// Fields this version does not know (inside `pending_*` lists this holds the `"type"`).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ControlRequest {
    /// A request with the given id and body.
    pub fn new(request_id: impl Into<RequestId>, request: impl Into<ControlRequestBody>) -> Self {
        Self {
            request_id: request_id.into(),
            request: request.into(),
            extra: Map::new(),
        }
    }
}

crate::tagged_union! {
    /// The body of a control request, keyed by `subtype`: every request either side may send.
    pub enum ControlRequestBody: "subtype", "control request" {
        /// Host → CLI: stop the running turn.
        "interrupt" => Interrupt(InterruptRequest),
        /// CLI → host: may this tool run with this input?
        "can_use_tool" => CanUseTool(Box<CanUseToolRequest>),
        /// Host → CLI: register hooks, SDK MCP servers, agents and prompts; read the session.
        "initialize" => Initialize(Box<InitializeRequest>),
        /// Host → CLI: change the permission mode.
        "set_permission_mode" => SetPermissionMode(SetPermissionModeRequest),
        /// Host → CLI: change the model for later turns.
        "set_model" => SetModel(SetModelRequest),
        /// Host → CLI: change the thinking budget or display.
        "set_max_thinking_tokens" => SetMaxThinkingTokens(SetMaxThinkingTokensRequest),
        /// Host → CLI: set the session title.
        "rename_session" => RenameSession(RenameSessionRequest),
        /// Host → CLI: set the session accent color.
        "set_color" => SetColor(SetColorRequest),
        /// Host → CLI: status of every MCP server.
        "mcp_status" => McpStatus(McpStatusRequest),
        /// Host → CLI: context window usage by category.
        "get_context_usage" => GetContextUsage(GetContextUsageRequest),
        /// Host → CLI: the formatted session cost summary.
        "get_session_cost" => GetSessionCost(GetSessionCostRequest),
        /// Host → CLI: the selectable model catalog.
        "list_models" => ListModels(ListModelsRequest),
        /// Host → CLI: structured /usage data.
        "get_usage" => GetUsage(GetUsageRequest),
        /// Host → CLI: the CLI binary version.
        "get_binary_version" => GetBinaryVersion(GetBinaryVersionRequest),
        /// Host → CLI: call an MCP tool without a model turn.
        "mcp_call" => McpCall(McpCallRequest),
        /// Host → CLI: at-mention file completions.
        "file_suggestions" => FileSuggestions(FileSuggestionsRequest),
        /// CLI → host: run a hook callback the host registered.
        "hook_callback" => HookCallback(Box<HookCallbackRequest>),
        /// Either way (mostly CLI → host): one JSON-RPC message for an SDK MCP server.
        "mcp_message" => McpMessage(McpMessageRequest),
        /// Host → CLI: undo file changes made since a user message.
        "rewind_files" => RewindFiles(RewindFilesRequest),
        /// Host → CLI: drop a queued user message.
        "cancel_async_message" => CancelAsyncMessage(CancelAsyncMessageRequest),
        /// Host → CLI: read a file from the session's filesystem.
        "read_file" => ReadFile(ReadFileRequest),
        /// Host → CLI: record that a file was read at some mtime.
        "seed_read_state" => SeedReadState(SeedReadStateRequest),
        /// Host → CLI: replace the dynamically managed MCP servers.
        "mcp_set_servers" => McpSetServers(McpSetServersRequest),
        /// Host → CLI: add a working-directory root.
        "register_repo_root" => RegisterRepoRoot(RegisterRepoRootRequest),
        /// Host → CLI: reload plugins from disk.
        "reload_plugins" => ReloadPlugins(ReloadPluginsRequest),
        /// Host → CLI: reload skills from disk.
        "reload_skills" => ReloadSkills(ReloadSkillsRequest),
        /// Host → CLI: reload output styles from disk.
        "reload_output_styles" => ReloadOutputStyles(ReloadOutputStylesRequest),
        /// Host → CLI: reconnect an MCP server.
        "mcp_reconnect" => McpReconnect(McpReconnectRequest),
        /// Host → CLI: enable or disable an MCP server.
        "mcp_toggle" => McpToggle(McpToggleRequest),
        /// Host → CLI: whether anybody watches the output.
        "set_has_subscribers" => SetHasSubscribers(SetHasSubscribersRequest),
        /// Host → CLI: stop a running task.
        "stop_task" => StopTask(StopTaskRequest),
        /// Host → CLI: move foreground tasks to the background.
        "background_tasks" => BackgroundTasks(BackgroundTasksRequest),
        /// Host → CLI: the tail of a background task's output.
        "get_task_output" => GetTaskOutput(GetTaskOutputRequest),
        /// Host → CLI: merge settings into the flag settings layer.
        "apply_flag_settings" => ApplyFlagSettings(ApplyFlagSettingsRequest),
        /// Host → CLI: the effective and per-source settings.
        "get_settings" => GetSettings(GetSettingsRequest),
        /// Host → CLI: the hooks the /hooks menu lists.
        "get_hooks_listing" => GetHooksListing(GetHooksListingRequest),
        /// Host → CLI: write settings through the CLI's own writer.
        "update_settings" => UpdateSettings(UpdateSettingsRequest),
        /// CLI → host: an MCP server asks the user for input.
        "elicitation" => Elicitation(ElicitationRequest),
        /// CLI → host: render a blocking dialog and return the choice.
        "request_user_dialog" => RequestUserDialog(RequestUserDialogRequest),
        /// Host → CLI: the live permission rules.
        "list_permission_rules" => ListPermissionRules(ListPermissionRulesRequest),
        /// Host → CLI: read an MCP Apps `ui://` resource.
        "mcp_read_resource" => McpReadResource(McpReadResourceRequest),
        /// Host → CLI: pin or clear a permission mode for one MCP server's tools.
        "set_mcp_permission_mode_override" =>
            SetMcpPermissionModeOverride(SetMcpPermissionModeOverrideRequest),
    }
}

// The three largest bodies are boxed so that a request stays small; these let them be built
// from the plain structs all the same.
macro_rules! from_unboxed {
    ($($variant:ident($ty:ty)),*) => {$(
        impl From<$ty> for ControlRequestBody {
            fn from(value: $ty) -> Self {
                Self::$variant(Box::new(value))
            }
        }
    )*};
}

from_unboxed!(
    Initialize(InitializeRequest),
    CanUseTool(CanUseToolRequest),
    HookCallback(HookCallbackRequest)
);

/// Which side sends a control request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Written by the host to the CLI's stdin.
    HostToCli,
    /// Written by the CLI to its stdout for the host to answer.
    CliToHost,
}

impl ControlRequestBody {
    /// Which side normally sends this request; `None` for a subtype this version does not know.
    ///
    /// `mcp_message` is reported as [`Direction::CliToHost`], its usual direction, although a
    /// host may also send one to deliver a message its own MCP server started.
    pub fn direction(&self) -> Option<Direction> {
        /// The subtypes the CLI sends (every other known subtype is the host's).
        const CLI_TO_HOST: [&str; 5] = [
            "can_use_tool",
            "hook_callback",
            "mcp_message",
            "elicitation",
            "request_user_dialog",
        ];
        match self {
            Self::Unknown(_) => None,
            // A known subtype, typed or not (a malformed one keeps its subtype).
            _ if CLI_TO_HOST.contains(&self.tag()) => Some(Direction::CliToHost),
            _ => Some(Direction::HostToCli),
        }
    }
}

/// A `control_response` frame, without its outer `"type"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlResponse {
    /// The answer, keyed by `subtype`.
    pub response: ControlResponseBody,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ControlResponse {
    /// A success answer to `request_id` carrying `payload`.
    pub fn success(request_id: impl Into<RequestId>, payload: Option<Value>) -> Self {
        ControlSuccess {
            request_id: request_id.into(),
            response: payload,
            ..ControlSuccess::default()
        }
        .into()
    }

    /// An error answer to `request_id`.
    pub fn error(request_id: impl Into<RequestId>, error: impl Into<String>) -> Self {
        ControlError {
            request_id: request_id.into(),
            error: error.into(),
            ..ControlError::default()
        }
        .into()
    }

    /// The `request_id` this answers, when known.
    pub fn request_id(&self) -> Option<RequestId> {
        self.response.request_id()
    }
}

impl From<ControlResponseBody> for ControlResponse {
    fn from(response: ControlResponseBody) -> Self {
        Self {
            response,
            extra: Map::new(),
        }
    }
}

impl From<ControlSuccess> for ControlResponse {
    fn from(success: ControlSuccess) -> Self {
        ControlResponseBody::from(success).into()
    }
}

impl From<ControlError> for ControlResponse {
    fn from(error: ControlError) -> Self {
        ControlResponseBody::from(error).into()
    }
}

crate::tagged_union! {
    /// The body of a control response, keyed by `subtype`.
    pub enum ControlResponseBody: "subtype", "control response" {
        /// The request was handled.
        "success" => Success(ControlSuccess),
        /// The request failed or was refused.
        "error" => Error(ControlError),
    }
}

impl ControlResponseBody {
    /// The `request_id` this answers (read from the raw object for an unknown or malformed
    /// subtype).
    pub fn request_id(&self) -> Option<RequestId> {
        match self {
            Self::Success(success) => Some(success.request_id.clone()),
            Self::Error(error) => Some(error.request_id.clone()),
            Self::Unknown(unknown) => unknown
                .raw
                .get("request_id")
                .and_then(RequestId::from_value),
            Self::Malformed(malformed) => malformed
                .raw
                .get("request_id")
                .and_then(RequestId::from_value),
        }
    }
}

/// A successful answer to a control request.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ControlSuccess {
    /// The `request_id` of the request this answers.
    pub request_id: RequestId,
    /// The payload, shaped by the request's subtype; absent for a bare acknowledgement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<Value>,
    /// `can_use_tool` requests the CLI has sent and not yet seen answered (sent on `initialize`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_permission_requests: Option<Vec<ControlRequest>>,
    /// `request_user_dialog` requests not yet answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_user_dialog_requests: Option<Vec<ControlRequest>>,
    /// `elicitation` requests not yet answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_elicitation_requests: Option<Vec<ControlRequest>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ControlSuccess {
    /// Reads the payload as the typed response of request kind `K`; an absent payload reads as
    /// `{}`.
    pub fn parse_response<K: ControlRequestKind>(&self) -> Result<K::Response, serde_json::Error> {
        match &self.response {
            Some(value) => K::Response::deserialize(value),
            None => K::Response::deserialize(&Value::Object(Map::new())),
        }
    }
}

/// A failed answer to a control request.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ControlError {
    /// The `request_id` of the request this answers.
    pub request_id: RequestId,
    /// What went wrong, for people.
    #[serde(default)]
    pub error: String,
    /// A machine-readable reason, e.g. `unsupported_request` (recent CLIs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<ControlErrorCode>,
    /// `can_use_tool` requests the CLI has sent and not yet seen answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_permission_requests: Option<Vec<ControlRequest>>,
    /// `request_user_dialog` requests not yet answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_user_dialog_requests: Option<Vec<ControlRequest>>,
    /// `elicitation` requests not yet answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_elicitation_requests: Option<Vec<ControlRequest>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// Machine-readable reason carried by a [`ControlError`].
    pub enum ControlErrorCode {
        /// The receiver does not handle this subtype.
        UnsupportedRequest = "unsupported_request",
        /// `reload_plugins` with `refuse_if_busy` found the session busy.
        ReloadPluginsBusy = "reload_plugins_busy",
        /// `set_permission_mode` named a mode the receiver does not know.
        InvalidMode = "invalid_mode",
        /// The receiver failed while handling the request.
        InternalError = "internal_error",
    }
}

/// A `control_cancel_request` frame, without its outer `"type"`: the sender no longer needs
/// the answer to one of its own requests. It gets no reply.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ControlCancelRequest {
    /// The `request_id` of the request being withdrawn.
    pub request_id: RequestId,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
