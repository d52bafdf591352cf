//! `system` messages: everything the CLI writes with `"type":"system"`, told apart by
//! `subtype`.
//!
//! [`SystemMessage`] is the union on `subtype`; the outer `"type":"system"` belongs to the
//! top-level message union, so none of these structs has a `type` or `subtype` field. The
//! most important member is [`SystemInit`] (`system/init`), written at the start of every turn
//! with the session id, model, tools and capabilities. A subtype this version does not know
//! becomes [`SystemMessage::Unknown`] and is written back unchanged.

mod hook;
mod init;
mod misc;
mod session;
mod task;

pub use hook::*;
pub use init::*;
pub use misc::*;
pub use session::*;
pub use task::*;

crate::tagged_union! {
    /// A `{"type":"system"}` message, by `subtype`.
    // `system/init` is much larger than the rest; boxing it would make matching clumsier
    // for little gain, since a frame is decoded once and moved rarely.
    #[allow(clippy::large_enum_variant)]
    pub enum SystemMessage: "subtype", "system message" {
        /// Session metadata at the start of a turn.
        "init" => Init(SystemInit),
        /// What the CLI is busy with; permission mode changes.
        "status" => Status(StatusMessage),
        /// An API request will be retried.
        "api_retry" => ApiRetry(ApiRetry),
        /// The conversation was compacted.
        "compact_boundary" => CompactBoundary(CompactBoundary),
        /// Progress of an in-flight control request.
        "control_request_progress" => ControlRequestProgress(ControlRequestProgress),
        /// The model refused; retried on a fallback model.
        "model_refusal_fallback" => ModelRefusalFallback(ModelRefusalFallback),
        /// The model refused; no retry.
        "model_refusal_no_fallback" => ModelRefusalNoFallback(ModelRefusalNoFallback),
        /// Output of a local slash command.
        "local_command_output" => LocalCommandOutput(LocalCommandOutput),
        /// A hook began running.
        "hook_started" => HookStarted(HookStarted),
        /// Output of a running hook.
        "hook_progress" => HookProgress(HookProgress),
        /// A hook finished.
        "hook_response" => HookResponse(HookResponse),
        /// Plugin installation progress.
        "plugin_install" => PluginInstall(PluginInstall),
        /// A task ended.
        "task_notification" => TaskNotification(TaskNotification),
        /// A task began.
        "task_started" => TaskStarted(TaskStarted),
        /// Fields of a task changed.
        "task_updated" => TaskUpdated(TaskUpdated),
        /// A running task's totals.
        "task_progress" => TaskProgress(TaskProgress),
        /// The full set of live background tasks.
        "background_tasks_changed" => BackgroundTasksChanged(BackgroundTasksChanged),
        /// Estimated thinking tokens.
        "thinking_tokens" => ThinkingTokens(ThinkingTokens),
        /// The session became idle, running or blocked.
        "session_state_changed" => SessionStateChanged(SessionStateChanged),
        /// The worker is about to exit.
        "worker_shutting_down" => WorkerShuttingDown(WorkerShuttingDown),
        /// The slash-command list changed.
        "commands_changed" => CommandsChanged(CommandsChanged),
        /// A notification from the agent loop.
        "notification" => Notification(SystemNotification),
        /// Files were uploaded.
        "files_persisted" => FilesPersisted(FilesPersisted),
        /// Memories were surfaced.
        "memory_recall" => MemoryRecall(MemoryRecall),
        /// A URL-mode MCP elicitation finished.
        "elicitation_complete" => ElicitationComplete(ElicitationComplete),
        /// A tool call was denied without asking.
        "permission_denied" => PermissionDenied(PermissionDenied),
        /// Writing to the session store failed.
        "mirror_error" => MirrorError(MirrorError),
        /// A plain-text banner.
        "informational" => Informational(Informational),
        /// Transcript or config writes were lost to a full disk.
        "session_writes_lost" => SessionWritesLost(SessionWritesLost),
        /// The session got a title.
        "session_title_changed" => SessionTitleChanged(SessionTitleChanged),
        /// What a terminal interface shows changed.
        "ui_invalidate" => UiInvalidate(UiInvalidate),
    }
}

impl SystemMessage {
    /// The `session_id` of the message, when it has one.
    pub fn session_id(&self) -> Option<&str> {
        match self {
            Self::Init(m) => Some(&m.session_id),
            Self::Status(m) => Some(&m.session_id),
            Self::ApiRetry(m) => Some(&m.session_id),
            Self::CompactBoundary(m) => Some(&m.session_id),
            Self::ControlRequestProgress(m) => Some(&m.session_id),
            Self::ModelRefusalFallback(m) => Some(&m.session_id),
            Self::ModelRefusalNoFallback(m) => Some(&m.session_id),
            Self::LocalCommandOutput(m) => Some(&m.session_id),
            Self::HookStarted(m) => Some(&m.session_id),
            Self::HookProgress(m) => Some(&m.session_id),
            Self::HookResponse(m) => Some(&m.session_id),
            Self::PluginInstall(m) => Some(&m.session_id),
            Self::TaskNotification(m) => Some(&m.session_id),
            Self::TaskStarted(m) => Some(&m.session_id),
            Self::TaskUpdated(m) => Some(&m.session_id),
            Self::TaskProgress(m) => Some(&m.session_id),
            Self::BackgroundTasksChanged(m) => Some(&m.session_id),
            Self::ThinkingTokens(m) => Some(&m.session_id),
            Self::SessionStateChanged(m) => Some(&m.session_id),
            Self::WorkerShuttingDown(m) => Some(&m.session_id),
            Self::CommandsChanged(m) => Some(&m.session_id),
            Self::Notification(m) => Some(&m.session_id),
            Self::FilesPersisted(m) => Some(&m.session_id),
            Self::MemoryRecall(m) => Some(&m.session_id),
            Self::ElicitationComplete(m) => Some(&m.session_id),
            Self::PermissionDenied(m) => Some(&m.session_id),
            Self::MirrorError(m) => Some(&m.session_id),
            Self::Informational(m) => Some(&m.session_id),
            Self::SessionWritesLost(m) => Some(&m.session_id),
            Self::SessionTitleChanged(m) => Some(&m.session_id),
            Self::UiInvalidate(m) => Some(&m.session_id),
            Self::Unknown(u) => u.raw.get("session_id").and_then(|v| v.as_str()),
            Self::Malformed(m) => m.str_field("session_id"),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::test_fixtures::stdout_bodies as recorded_frames;
    use serde_json::{json, Value};

    #[test]
    fn every_recorded_system_frame_parses_known_and_round_trips() {
        let frames = recorded_frames(|t| t == "system");
        assert!(
            frames.len() > 100,
            "expected the recorded frames, got {}",
            frames.len()
        );
        let mut subtypes = std::collections::BTreeSet::new();
        for (origin, _, raw) in frames {
            let value = Value::Object(raw);
            let parsed: SystemMessage =
                serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{origin}: {e}"));
            assert!(
                parsed.as_unknown().is_none(),
                "{origin}: unknown subtype {}",
                parsed.tag()
            );
            assert!(parsed.session_id().is_some(), "{origin}");
            subtypes.insert(parsed.tag().to_owned());
            assert_eq!(serde_json::to_value(&parsed).unwrap(), value, "{origin}");
        }
        for expected in [
            "init",
            "status",
            "session_state_changed",
            "permission_denied",
        ] {
            assert!(subtypes.contains(expected), "no recorded {expected}");
        }
    }

    #[test]
    fn init_from_each_cli_generation() {
        let old = json!({
            "subtype": "init", "cwd": "/w", "session_id": "s", "tools": ["Bash"],
            "mcp_servers": [{"name": "m", "status": "connected"}], "model": "claude",
            "permissionMode": "default", "slash_commands": ["compact"],
            "apiKeySource": "ANTHROPIC_API_KEY", "output_style": "default",
            "agents": ["general-purpose"], "uuid": "u"
        });
        let SystemMessage::Init(init) = serde_json::from_value(old.clone()).unwrap() else {
            panic!("not init");
        };
        assert_eq!(init.claude_code_version, None);
        assert_eq!(init.skills, None);
        assert_eq!(init.api_key_source, ApiKeySource::AnthropicApiKey);
        assert_eq!(
            init.mcp_servers[0].status,
            crate::mcp::McpConnectionStatus::Connected
        );
        assert_eq!(
            init.permission_mode,
            crate::permission::PermissionMode::Default
        );
        assert_eq!(
            serde_json::to_value(SystemMessage::Init(init)).unwrap(),
            old
        );

        let new = json!({
            "subtype": "init", "cwd": "/w", "session_id": "s", "tools": [],
            "mcp_servers": [], "model": "m", "permissionMode": "default",
            "slash_commands": [], "apiKeySource": "none", "claude_code_version": "2.1.330",
            "output_style": "default", "skills": [], "uuid": "u",
            "plugins": [{"name": "p", "path": "builtin", "source": "p@builtin"}],
            "capabilities": ["interrupt_receipt_v1"], "effort": null,
            "fast_mode_state": "off", "fast_mode_disabled_reason": "sdk_opt_in_required",
            "view_mode": "default", "ultrathink_available": true, "brand_new": 1
        });
        let SystemMessage::Init(init) = serde_json::from_value(new.clone()).unwrap() else {
            panic!("not init");
        };
        assert!(init.has_capability("interrupt_receipt_v1"));
        assert_eq!(init.effort, Some(None));
        assert_eq!(
            init.fast_mode_state,
            Some(crate::control::FastModeState::Off)
        );
        assert_eq!(init.ultrathink_available, Some(true));
        assert_eq!(init.extra.get("brand_new"), Some(&json!(1)));
        assert_eq!(
            serde_json::to_value(SystemMessage::Init(init)).unwrap(),
            new
        );
    }

    #[test]
    fn declared_subtypes_round_trip() {
        let frames = [
            json!({"subtype": "status", "status": "compacting", "compact_result": "success",
                   "uuid": "u", "session_id": "s"}),
            json!({"subtype": "api_retry", "attempt": 1, "max_retries": 10,
                   "retry_delay_ms": 500, "error_status": null, "error": "overloaded",
                   "no_response": {"waited_ms": 1, "retry_wait_ms": 2},
                   "uuid": "u", "session_id": "s"}),
            json!({"subtype": "compact_boundary", "compact_metadata": {"trigger": "auto",
                   "pre_tokens": 150000, "preserved_messages": {"anchor_uuid": "a",
                   "uuids": ["b"]}}, "uuid": "u", "session_id": "s"}),
            json!({"subtype": "control_request_progress", "request_id": "r",
                   "status": "api_retry", "error_status": null, "uuid": "u", "session_id": "s"}),
            json!({"subtype": "model_refusal_fallback", "trigger": "refusal",
                   "direction": "retry", "original_model": "a", "fallback_model": "b",
                   "request_id": null, "api_refusal_category": null, "content": "c",
                   "uuid": "u", "session_id": "s"}),
            json!({"subtype": "hook_response", "hook_id": "h", "hook_name": "n",
                   "hook_event": "Stop", "output": "", "stdout": "", "stderr": "",
                   "exit_code": 2, "outcome": "error", "uuid": "u", "session_id": "s"}),
            json!({"subtype": "task_notification", "task_id": "t", "status": "completed",
                   "output_file": "/o", "summary": "done",
                   "usage": {"total_tokens": 1, "tool_uses": 2, "duration_ms": 3},
                   "uuid": "u", "session_id": "s"}),
            json!({"subtype": "task_updated", "task_id": "t",
                   "patch": {"status": "killed", "end_time": 1700000000000u64},
                   "uuid": "u", "session_id": "s"}),
            json!({"subtype": "background_tasks_changed", "tasks": [{"task_id": "t",
                   "task_type": "local_bash", "description": "d"}],
                   "uuid": "u", "session_id": "s"}),
            json!({"subtype": "memory_recall", "mode": "select",
                   "memories": [{"path": "/m", "scope": "team"}], "uuid": "u", "session_id": "s"}),
            json!({"subtype": "mirror_error", "error": "e",
                   "key": {"projectKey": "p", "sessionId": "x"}, "uuid": "u", "session_id": "s"}),
            json!({"subtype": "session_writes_lost", "error_code": "ENOSPC",
                   "lost": ["transcript", "global_config"], "uuid": "u", "session_id": "s"}),
        ];
        for value in frames {
            let parsed: SystemMessage = serde_json::from_value(value.clone()).unwrap();
            assert!(parsed.as_unknown().is_none(), "{value}");
            assert_eq!(serde_json::to_value(&parsed).unwrap(), value);
        }
    }

    #[test]
    fn unknown_subtype_is_kept_whole() {
        let value = json!({"subtype": "post_turn_summary", "summary": {"a": 1},
                           "uuid": "u", "session_id": "s"});
        let parsed: SystemMessage = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(parsed.tag(), "post_turn_summary");
        assert!(parsed.as_unknown().is_some());
        assert_eq!(parsed.session_id(), Some("s"));
        assert_eq!(serde_json::to_value(&parsed).unwrap(), value);
    }

    #[test]
    fn broken_known_subtype_is_repaired_or_kept_raw() {
        let value = json!({"subtype": "session_state_changed", "uuid": "u", "session_id": "s"});
        let read: SystemMessage = serde_json::from_value(value).unwrap();
        assert!(matches!(read, SystemMessage::SessionStateChanged(_)));
        let value = json!({"subtype": "init", "cwd": 3});
        assert!(serde_json::from_value::<SystemMessage>(value.clone()).is_err());
        let read = crate::from_value::<SystemMessage>(value).unwrap();
        assert!(matches!(&read.value, SystemMessage::Init(init) if init.cwd == "3"));
    }
}
