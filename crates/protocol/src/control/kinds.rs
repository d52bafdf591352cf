//! [`ControlRequestKind`]: which typed success payload answers each request.

use serde_json::Value;

use super::*;
use crate::hooks::HookOutput;
use crate::permission::PermissionResult;

/// A control request struct, tied to its subtype and to the typed payload of its success
/// answer. An engine uses it to send a request and read the answer in one typed call:
///
/// ```
/// use twinwire_protocol::control::{ControlRequestKind, ControlSuccess, InterruptRequest};
///
/// let success: ControlSuccess = serde_json::from_str(
///     r#"{"request_id":"req_9","response":{"still_queued":[]}}"#,
/// ).unwrap();
/// let answer = success.parse_response::<InterruptRequest>().unwrap();
/// assert_eq!(answer.still_queued, Some(vec![]));
/// assert_eq!(InterruptRequest::SUBTYPE, "interrupt");
/// ```
pub trait ControlRequestKind: Into<ControlRequestBody> + serde::Serialize {
    /// The `subtype` this request is sent with.
    const SUBTYPE: &'static str;
    /// The success payload's type ([`EmptyResponse`] for a bare acknowledgement).
    type Response: serde::de::DeserializeOwned + serde::Serialize;
}

macro_rules! request_kinds {
    ($( $wire:literal => $request:ty => $response:ty ),* $(,)?) => {
        $(
            impl ControlRequestKind for $request {
                const SUBTYPE: &'static str = $wire;
                type Response = $response;
            }
        )*

        /// Reads a success `payload` as the typed response of the request kind with this
        /// `subtype` and writes it back, so a caller can check that nothing was lost (the result
        /// equals `payload`) or that the payload has the documented shape (no error). `None`
        /// for a subtype this version does not know.
        ///
        /// ```
        /// use twinwire_protocol::control::reencode_response;
        ///
        /// let payload = serde_json::json!({"still_queued": []});
        /// let again = reencode_response("interrupt", &payload).unwrap().unwrap();
        /// assert_eq!(again, payload);
        /// assert!(reencode_response("no_such_subtype", &payload).is_none());
        /// ```
        pub fn reencode_response(
            subtype: &str,
            payload: &Value,
        ) -> Option<Result<Value, serde_json::Error>> {
            fn reencode<T: serde::de::DeserializeOwned + serde::Serialize>(
                payload: &Value,
            ) -> Result<Value, serde_json::Error> {
                T::deserialize(payload).and_then(serde_json::to_value)
            }
            match subtype {
                $( $wire => Some(reencode::<$response>(payload)), )*
                _ => None,
            }
        }
    };
}

request_kinds! {
    "interrupt" => InterruptRequest => InterruptResponse,
    "can_use_tool" => CanUseToolRequest => PermissionResult,
    "initialize" => InitializeRequest => InitializeResponse,
    "set_permission_mode" => SetPermissionModeRequest => SetPermissionModeResponse,
    "set_model" => SetModelRequest => SetModelResponse,
    "set_max_thinking_tokens" => SetMaxThinkingTokensRequest => EmptyResponse,
    "rename_session" => RenameSessionRequest => EmptyResponse,
    "set_color" => SetColorRequest => EmptyResponse,
    "mcp_status" => McpStatusRequest => McpStatusResponse,
    "get_context_usage" => GetContextUsageRequest => GetContextUsageResponse,
    "get_session_cost" => GetSessionCostRequest => GetSessionCostResponse,
    "list_models" => ListModelsRequest => ListModelsResponse,
    "get_usage" => GetUsageRequest => GetUsageResponse,
    "get_binary_version" => GetBinaryVersionRequest => GetBinaryVersionResponse,
    "mcp_call" => McpCallRequest => McpCallResponse,
    "file_suggestions" => FileSuggestionsRequest => FileSuggestionsResponse,
    "hook_callback" => HookCallbackRequest => HookOutput,
    "mcp_message" => McpMessageRequest => McpMessageResponse,
    "rewind_files" => RewindFilesRequest => RewindFilesResponse,
    "cancel_async_message" => CancelAsyncMessageRequest => CancelAsyncMessageResponse,
    "read_file" => ReadFileRequest => ReadFileResponse,
    "seed_read_state" => SeedReadStateRequest => EmptyResponse,
    "mcp_set_servers" => McpSetServersRequest => McpSetServersResponse,
    "register_repo_root" => RegisterRepoRootRequest => EmptyResponse,
    "reload_plugins" => ReloadPluginsRequest => ReloadPluginsResponse,
    "reload_skills" => ReloadSkillsRequest => ReloadSkillsResponse,
    "reload_output_styles" => ReloadOutputStylesRequest => ReloadOutputStylesResponse,
    "mcp_reconnect" => McpReconnectRequest => EmptyResponse,
    "mcp_toggle" => McpToggleRequest => EmptyResponse,
    "set_has_subscribers" => SetHasSubscribersRequest => EmptyResponse,
    "stop_task" => StopTaskRequest => EmptyResponse,
    "background_tasks" => BackgroundTasksRequest => BackgroundTasksResponse,
    "get_task_output" => GetTaskOutputRequest => GetTaskOutputResponse,
    "apply_flag_settings" => ApplyFlagSettingsRequest => EmptyResponse,
    "get_settings" => GetSettingsRequest => GetSettingsResponse,
    "get_hooks_listing" => GetHooksListingRequest => GetHooksListingResponse,
    "update_settings" => UpdateSettingsRequest => EmptyResponse,
    "elicitation" => ElicitationRequest => ElicitationResponse,
    "request_user_dialog" => RequestUserDialogRequest => UserDialogResponse,
    "list_permission_rules" => ListPermissionRulesRequest => ListPermissionRulesResponse,
    "mcp_read_resource" => McpReadResourceRequest => McpReadResourceResponse,
    "set_mcp_permission_mode_override" => SetMcpPermissionModeOverrideRequest
        => SetMcpPermissionModeOverrideResponse,
}
