//! What the official TypeScript SDK (0.3.332, `sdk.d.ts`; these lists unchanged since 0.3.330)
//! declares, written down independently of this crate's own unions, so that a gap between the
//! two can be detected: a kind listed here that comes back as [`Unknown`](crate::Unknown) means
//! the schema is missing it.

/// Every kind of message in the official SDK's `SDKMessage` union, as `type` or
/// `type/subtype` (`system` and `result` messages). A decoder of this crate must never return
/// one of these as unknown.
pub const SDK_MESSAGE_KINDS: &[&str] = &[
    "assistant",
    "user",
    "result/success",
    "result/error_during_execution",
    "result/error_max_turns",
    "result/error_max_budget_usd",
    "result/error_max_structured_output_retries",
    "system/init",
    "stream_event",
    "system/compact_boundary",
    "system/status",
    "system/api_retry",
    "system/control_request_progress",
    "system/model_refusal_fallback",
    "system/model_refusal_no_fallback",
    "system/local_command_output",
    "system/hook_started",
    "system/hook_progress",
    "system/hook_response",
    "system/plugin_install",
    "tool_progress",
    "auth_status",
    "system/task_notification",
    "system/task_started",
    "system/task_updated",
    "system/task_progress",
    "system/background_tasks_changed",
    "system/thinking_tokens",
    "system/session_state_changed",
    "system/worker_shutting_down",
    "system/commands_changed",
    "system/notification",
    "system/files_persisted",
    "tool_use_summary",
    "system/memory_recall",
    "rate_limit_event",
    "system/elicitation_complete",
    "system/permission_denied",
    "prompt_suggestion",
    "system/mirror_error",
    "system/informational",
    "conversation_reset",
    "system/session_writes_lost",
];

/// `system` kinds Claude Code sends that the TypeScript SDK does not declare (2.1.330 on), which
/// this crate types too.
pub const CLI_ONLY_SYSTEM_KINDS: &[&str] =
    &["system/session_title_changed", "system/ui_invalidate"];

/// The frame kinds of the TypeScript SDK's `StdoutMessage` beyond [`SDK_MESSAGE_KINDS`]: the
/// control plane, keep-alive and `active_goal`.
pub const STDOUT_ONLY_KINDS: &[&str] = &[
    "active_goal",
    "control_request",
    "control_response",
    "control_cancel_request",
    "keep_alive",
];

/// Every control request subtype of the TypeScript SDK's `SDKControlRequestInner` (41).
pub const TS_CONTROL_SUBTYPES: &[&str] = &[
    "interrupt",
    "can_use_tool",
    "initialize",
    "set_permission_mode",
    "set_model",
    "set_max_thinking_tokens",
    "rename_session",
    "set_color",
    "mcp_status",
    "get_context_usage",
    "get_session_cost",
    "list_models",
    "get_usage",
    "get_binary_version",
    "mcp_call",
    "file_suggestions",
    "hook_callback",
    "mcp_message",
    "rewind_files",
    "cancel_async_message",
    "read_file",
    "seed_read_state",
    "mcp_set_servers",
    "register_repo_root",
    "reload_plugins",
    "reload_skills",
    "reload_output_styles",
    "mcp_reconnect",
    "mcp_toggle",
    "set_has_subscribers",
    "stop_task",
    "background_tasks",
    "get_task_output",
    "apply_flag_settings",
    "get_settings",
    "get_hooks_listing",
    "update_settings",
    "elicitation",
    "request_user_dialog",
    "list_permission_rules",
    "mcp_read_resource",
];

/// The raw Messages API stream events the CLI forwards in `stream_event` frames.
pub const API_STREAM_EVENTS: &[&str] = &[
    "message_start",
    "message_delta",
    "message_stop",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
];

/// Whether a kind reported by `unknown_kind()` (`type`, `type/subtype`,
/// `control_request/subtype`, `stream_event/type`) is one the TypeScript SDK declares.
pub fn is_listed(kind: &str) -> bool {
    if let Some(subtype) = kind.strip_prefix("control_request/") {
        return TS_CONTROL_SUBTYPES.contains(&subtype);
    }
    if let Some(subtype) = kind.strip_prefix("control_response/") {
        return matches!(subtype, "success" | "error");
    }
    if let Some(event) = kind.strip_prefix("stream_event/") {
        return API_STREAM_EVENTS.contains(&event);
    }
    SDK_MESSAGE_KINDS.contains(&kind) || STDOUT_ONLY_KINDS.contains(&kind)
}

/// Reads `payload`, the success answer to a request of `subtype`, as that subtype's typed
/// response, and checks that writing it back gives the same JSON. `None` for a subtype without
/// a typed response.
pub fn check_response(
    subtype: &str,
    payload: &serde_json::Value,
) -> Option<Result<(), crate::DecodeError>> {
    let written = crate::control::reencode_response(subtype, payload)?;
    Some(match written {
        Ok(value) if &value == payload => Ok(()),
        Ok(value) => Err(crate::DecodeError::Malformed {
            kind: format!("control_response/{subtype}"),
            path: "response".to_owned(),
            message: format!("typed response did not round-trip: read {payload}, wrote {value}"),
        }),
        Err(err) => Err(crate::DecodeError::Malformed {
            kind: format!("control_response/{subtype}"),
            path: "response".to_owned(),
            message: err.to_string(),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_kinds() {
        assert_eq!(TS_CONTROL_SUBTYPES.len(), 41);
        assert!(is_listed("system/init"));
        assert!(is_listed("control_request/can_use_tool"));
        assert!(!is_listed("control_request/definitely_not_a_subtype"));
        assert!(!is_listed("hologram"));
    }
}
