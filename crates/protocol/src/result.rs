//! The `result` message: the end of a turn.
//!
//! The CLI writes exactly one `{"type":"result", …}` per turn, after the turn's assistant, user
//! and stream events. Success and the four error subtypes share almost every field, so they are
//! one struct, [`ResultMessage`], with [`ResultSubtype`] as an ordinary field rather than a
//! union: code that only wants the cost, the usage or the session id reads them the same way
//! whatever the outcome. The outer `"type":"result"` belongs to the top-level message union.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::control::{FastModeDisabledReason, FastModeState};
use crate::permission::PermissionDenial;
use crate::usage::{ModelUsage, Usage};

mod error;
mod stats;

pub use error::ResultError;
pub use stats::{SubagentKills, SubagentRefusals, SubagentRequests, SubagentStats};

crate::string_enum! {
    /// How a turn ended: `success` or one of the error subtypes.
    #[derive(Default)]
    pub enum ResultSubtype {
        /// The turn completed (possibly with `is_error` set after an API error).
        #[default]
        Success = "success",
        /// The turn failed while running (an abort, a crash, a startup failure).
        ErrorDuringExecution = "error_during_execution",
        /// The turn hit the maximum number of turns.
        ErrorMaxTurns = "error_max_turns",
        /// The turn hit the spending budget.
        ErrorMaxBudgetUsd = "error_max_budget_usd",
        /// The model failed to produce valid structured output after the allowed retries.
        ErrorMaxStructuredOutputRetries = "error_max_structured_output_retries",
    }
}

crate::string_enum! {
    /// Why the agent loop stopped.
    pub enum TerminalReason {
        /// The context window is full and cannot be compacted further.
        BlockingLimit = "blocking_limit",
        /// A breaker tripped on rapid context refills.
        RapidRefillBreaker = "rapid_refill_breaker",
        /// The prompt is too long for the model.
        PromptTooLong = "prompt_too_long",
        /// An image could not be processed.
        ImageError = "image_error",
        /// The model failed.
        ModelError = "model_error",
        /// The API returned an error.
        ApiError = "api_error",
        /// The model kept producing malformed tool calls.
        MalformedToolUseExhausted = "malformed_tool_use_exhausted",
        /// Aborted while the response was streaming.
        AbortedStreaming = "aborted_streaming",
        /// Aborted while tools were running.
        AbortedTools = "aborted_tools",
        /// A Stop hook prevented the turn from ending normally.
        StopHookPrevented = "stop_hook_prevented",
        /// A hook stopped the turn.
        HookStopped = "hook_stopped",
        /// A tool call was deferred to the host.
        ToolDeferred = "tool_deferred",
        /// The maximum number of turns was reached.
        MaxTurns = "max_turns",
        /// The turn was sent to the background.
        BackgroundRequested = "background_requested",
        /// The turn completed normally.
        Completed = "completed",
        /// The spending budget ran out.
        BudgetExhausted = "budget_exhausted",
        /// Structured output retries ran out.
        StructuredOutputRetryExhausted = "structured_output_retry_exhausted",
        /// A deferred tool was not available.
        ToolDeferredUnavailable = "tool_deferred_unavailable",
        /// Setting up the turn failed.
        TurnSetupFailed = "turn_setup_failed",
    }
}

crate::string_enum! {
    /// Why Claude Code refused to start (set on the zeroed startup-failure result).
    pub enum StartupFailureReason {
        /// Managed settings pin a sign-in, but an API key or token is configured.
        OrgPinApiKeyConflict = "org_pin_api_key_conflict",
        /// The configured API provider is not in the managed allow-list.
        ProviderNotAllowed = "provider_not_allowed",
        /// The sign-in's organization could not be verified.
        OrgVerifyFailed = "org_verify_failed",
        /// The sign-in belongs to an organization the pin does not allow.
        OrgPinMismatch = "org_pin_mismatch",
        /// Managed policy settings are unreadable or leave no usable model.
        ManagedSettingsInvalid = "managed_settings_invalid",
        /// Required remote managed settings could not be loaded.
        RemoteSettingsRequiredUnavailable = "remote_settings_required_unavailable",
        /// The Cloud gateway ended the sign-in.
        GatewaySigninRequired = "gateway_signin_required",
        /// The Cloud gateway refused managed settings for this account.
        GatewayAccessDenied = "gateway_access_denied",
        /// A proxy setting is not a complete URL.
        ProxyInvalid = "proxy_invalid",
        /// The temp directory is unsafe or could not be created.
        TempDirUnusable = "temp_dir_unusable",
        /// The working directory is gone or unreadable.
        CwdUnavailable = "cwd_unavailable",
        /// Windows has no usable shell tool.
        ShellToolMissing = "shell_tool_missing",
        /// The session to resume runs as a background session.
        SessionHeldByBackground = "session_held_by_background",
        /// Resuming into the session's worktree was refused.
        WorktreeResumeRefused = "worktree_resume_refused",
        /// The session's worktree could not be verified right now.
        WorktreeUnverified = "worktree_unverified",
        /// This CLI is older than the required minimum.
        CliVersionTooOld = "cli_version_too_old",
        /// Bypass mode was requested while running as root.
        BypassRoot = "bypass_root",
        /// Required organization config could not be loaded.
        OrgConfigRequiredUnavailable = "org_config_required_unavailable",
        /// Required organization config was refused for this sign-in.
        OrgConfigRefused = "org_config_refused",
        /// A required sandbox cannot run here.
        SandboxRequiredUnavailable = "sandbox_required_unavailable",
        /// With `--await-initialize`, the first stdin line was not `initialize`.
        InitializeNotFirst = "initialize_not_first",
        /// A configuration file is not valid JSON.
        ConfigFileInvalid = "config_file_invalid",
        /// Managed settings expected in `initialize` were not usable.
        ManagedSettingsNotDelivered = "managed_settings_not_delivered",
        /// Fields expected in `initialize` were not usable.
        InitializeFieldsNotDelivered = "initialize_fields_not_delivered",
        /// Managed settings turn off the launch's own plugins, agents or MCP servers
        /// (`disableSideloadFlags`).
        SideloadFlagsDisabled = "sideload_flags_disabled",
    }
}

crate::string_enum! {
    /// What the first post of a turn waited behind in the remote upload queue.
    pub enum QueuedBehind {
        /// A durable post.
        DurablePost = "durable_post",
        /// An ephemeral post.
        EphemeralPost = "ephemeral_post",
        /// A retry back-off.
        RetryBackoff = "retry_backoff",
        /// A hold.
        Hold = "hold",
        /// Nothing.
        None = "none",
    }
}

/// A tool call the turn deferred to the host instead of running it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DeferredToolUse {
    /// Id of the `tool_use` block.
    #[serde(default)]
    pub id: String,
    /// Tool name.
    #[serde(default)]
    pub name: String,
    /// Tool input.
    #[serde(default)]
    pub input: Map<String, Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The configuration file that failed to parse at startup, with its backup.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct InvalidConfigFile {
    /// The file that is not valid JSON.
    #[serde(default)]
    pub path: String,
    /// Whether it is Claude Code's global config file.
    #[serde(default)]
    pub is_global: bool,
    /// Whether the search for a backup finished.
    #[serde(default)]
    pub backup_searched: bool,
    /// The backup the error message names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup_path: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The end of a turn: `{"type":"result", "subtype": …}`, success or error.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ResultMessage {
    /// How the turn ended.
    #[serde(default)]
    pub subtype: ResultSubtype,
    /// Whether the turn is an error (an error subtype, or success after an API error).
    #[serde(default)]
    pub is_error: bool,
    /// Wall time of the turn, in milliseconds.
    #[serde(default)]
    pub duration_ms: u64,
    /// Time spent in API calls, in milliseconds.
    #[serde(default)]
    pub duration_api_ms: u64,
    /// Number of model round trips in the turn.
    #[serde(default)]
    pub num_turns: u64,
    /// The final assistant text (or the error text); absent on error subtypes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// The stop reason of the last model response; `Some(None)` is `null`, `None` means
    /// absent (CLIs before 2.1).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub stop_reason: Option<Option<String>>,
    /// Estimated cost in USD so far in this query, cumulative across turns.
    #[serde(with = "js_f64")]
    #[serde(default)]
    pub total_cost_usd: f64,
    /// Token usage of the main agent loop for this turn.
    #[serde(default)]
    pub usage: Usage,
    /// Per-model totals, keyed by model id, cumulative across turns.
    #[serde(rename = "modelUsage")]
    #[serde(default)]
    pub model_usage: BTreeMap<String, ModelUsage>,
    /// Tool calls denied during the turn.
    #[serde(default)]
    pub permission_denials: Vec<PermissionDenial>,
    /// Error messages (error subtypes; absent from CLI 1.x).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<String>>,
    /// HTTP status of the API error that ended the turn; `Some(None)` is `null`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub api_error_status: Option<Option<u64>>,
    /// Why the agent loop stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_reason: Option<TerminalReason>,
    /// The structured output, when an output schema was requested.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<Value>,
    /// A tool call deferred to the host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deferred_tool_use: Option<DeferredToolUse>,
    /// User-initiated sends still queued when this result was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queued_turn_count: Option<u64>,
    /// Why the CLI refused to start (zeroed startup-failure result).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup_failure_reason: Option<StartupFailureReason>,
    /// The config file that did not parse, with `startup_failure_reason: config_file_invalid`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid_config_file: Option<InvalidConfigFile>,
    /// Client uuid of the user message that triggered this turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_message_uuid: Option<String>,
    /// Client uuids of every user message this turn consumed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_message_uuids: Option<Vec<String>>,
    /// Why this turn continued one a worker restart interrupted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_reason: Option<String>,
    /// The local slash command this turn ran, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_command: Option<String>,
    /// Delivery sequence number of this result within the run, from 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_index: Option<u64>,
    /// When the claude.ai credential in use ends, as ISO 8601.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credential_expires_at: Option<String>,
    /// Fast mode state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fast_mode_state: Option<FastModeState>,
    /// Why fast mode is unavailable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fast_mode_disabled_reason: Option<FastModeDisabledReason>,
    /// Provenance of the turn's prompt (`{"kind": "human"}`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<crate::meta::MessageOrigin>,
    /// Time to first token, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_ms: Option<u64>,
    /// Time to the first stream event, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_stream_ms: Option<u64>,
    /// Time until the API request was sent, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_to_request_ms: Option<u64>,
    /// Wall-clock time the API request was sent (Unix milliseconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_sent_wall_ms: Option<u64>,
    /// Time to the first content frame, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_content_frame_ms: Option<u64>,
    /// Time to the first remote stream post, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_stream_post_ms: Option<u64>,
    /// Time to the acknowledgement of the first stream post, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_stream_post_ack_ms: Option<u64>,
    /// Queue wait of the first stream post, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_stream_post_queue_wait_ms: Option<u64>,
    /// What the first stream post waited behind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_stream_post_queued_behind: Option<QueuedBehind>,
    /// Wall-clock time of the first stream post (Unix milliseconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_stream_post_wall_ms: Option<u64>,
    /// Time to the first text post, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_text_post_ms: Option<u64>,
    /// Queue wait of the first text post, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_text_post_queue_wait_ms: Option<u64>,
    /// What the first text post waited behind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_text_post_queued_behind: Option<QueuedBehind>,
    /// Wall-clock time of the first text post (Unix milliseconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_text_post_wall_ms: Option<u64>,
    /// Time from process spawn to the API request, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_to_request_from_spawn_ms: Option<u64>,
    /// Whether a pre-warmed spare process served this turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_spare_claimed: Option<bool>,
    /// The process's time origin (Unix milliseconds, possibly fractional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_origin_ms: Option<serde_json::Number>,
    /// Per-model usage since the previous result (seen from CLI 2.1.330; not in the SDK types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_usage_since_last_result: Option<BTreeMap<String, ModelUsage>>,
    /// Ids of the API messages begun during the turn (seen from CLI 2.1.330; not in the SDK
    /// types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub begun_message_ids: Option<Vec<String>>,
    /// The API error type that ended the turn (seen from CLI 2.1.330; not in the SDK types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_error_type: Option<String>,
    /// Responses the API stopped for safety during the turn (seen from CLI 2.1.330; not in the
    /// SDK types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safety_stops: Option<u64>,
    /// What became of the subagents the turn asked for (seen from CLI 2.1.330; not in the SDK
    /// types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_stats: Option<SubagentStats>,
    /// Uncached input tokens of the turn's first API request (seen from CLI 2.1.330; not in the
    /// SDK types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_request_input_tokens: Option<u64>,
    /// Cache-read input tokens of the turn's first API request (seen from CLI 2.1.330; not in
    /// the SDK types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_request_cache_read_input_tokens: Option<u64>,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session the turn belongs to.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ResultMessage {
    /// Whether the turn succeeded: subtype `success` and `is_error` false.
    pub fn is_success(&self) -> bool {
        self.subtype == ResultSubtype::Success && !self.is_error
    }

    /// The final text of the turn (or the error text on a failed `success`), if any.
    pub fn text(&self) -> Option<&str> {
        self.result.as_deref()
    }
}

/// Writes an `f64` the way JavaScript's `JSON.stringify` does: integral values without a
/// fraction (`0`, not `0.0`), so numbers read from the CLI write back unchanged.
pub(crate) mod js_f64 {
    use serde::{Deserialize, Deserializer, Serializer};

    /// Largest integer an `f64` holds exactly (2^53).
    const EXACT: f64 = 9_007_199_254_740_992.0;

    /// Writes `value`, as an integer when it is one.
    pub(crate) fn serialize<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
        let v = *value;
        if v.is_finite() && v.fract() == 0.0 && v.abs() < EXACT {
            // Exact: `v` is integral and |v| < 2^53.
            let i = v as i64;
            if i >= 0 {
                serializer.serialize_u64(i.unsigned_abs())
            } else {
                serializer.serialize_i64(i)
            }
        } else {
            serializer.serialize_f64(v)
        }
    }

    /// Reads any JSON number.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
        f64::deserialize(deserializer)
    }

    /// The same for optional fields; use with `default, skip_serializing_if = "Option::is_none"`.
    pub(crate) mod option {
        use serde::{Deserialize, Deserializer, Serializer};

        /// Writes `Some(v)` as [`super::serialize`] does, `None` as `null`.
        pub(crate) fn serialize<S: Serializer>(
            value: &Option<f64>,
            serializer: S,
        ) -> Result<S::Ok, S::Error> {
            match value {
                Some(v) => super::serialize(v, serializer),
                None => serializer.serialize_none(),
            }
        }

        /// Reads an optional JSON number.
        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<Option<f64>, D::Error> {
            Option::<f64>::deserialize(deserializer)
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A `usage` object with every count the CLI always writes, all zero.
    fn zero_usage() -> Value {
        serde_json::json!({"input_tokens": 0, "output_tokens": 0,
                           "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
    }

    #[test]
    fn every_recorded_result_round_trips() {
        let frames = crate::test_fixtures::stdout_bodies(|t| t == "result");
        assert!(
            frames.len() > 70,
            "expected the recorded results, got {}",
            frames.len()
        );
        for (origin, _, raw) in frames {
            let value = Value::Object(raw);
            let parsed: ResultMessage =
                serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{origin}: {e}"));
            assert!(
                !matches!(parsed.subtype, ResultSubtype::Other(_)),
                "{origin}: unknown subtype"
            );
            assert_eq!(serde_json::to_value(&parsed).unwrap(), value, "{origin}");
        }
    }

    #[test]
    fn old_error_result_without_errors_or_stop_reason() {
        let value = serde_json::json!({
            "subtype": "error_during_execution", "duration_ms": 573, "duration_api_ms": 0,
            "is_error": false, "num_turns": 0, "session_id": "s", "total_cost_usd": 0,
            "usage": zero_usage(), "modelUsage": {},
            "permission_denials": [], "uuid": "u"
        });
        let parsed: ResultMessage = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(parsed.subtype, ResultSubtype::ErrorDuringExecution);
        assert_eq!(parsed.stop_reason, None);
        assert_eq!(parsed.text(), None);
        assert!(!parsed.is_success());
        assert_eq!(serde_json::to_value(&parsed).unwrap(), value);
    }

    #[test]
    fn success_helpers_and_nulls() {
        let value = serde_json::json!({
            "subtype": "success", "is_error": false, "api_error_status": null,
            "duration_ms": 129, "duration_api_ms": 29, "num_turns": 1, "result": "Hello",
            "stop_reason": null, "session_id": "s", "total_cost_usd": 0.0006000000000000001,
            "usage": zero_usage(), "modelUsage": {}, "permission_denials": [
                {"tool_name": "Bash", "tool_use_id": "t", "tool_input": {"command": "ls"}}
            ],
            "terminal_reason": "completed", "fast_mode_state": "off", "uuid": "u",
            "some_future_field": [1, 2]
        });
        let parsed: ResultMessage = serde_json::from_value(value.clone()).unwrap();
        assert!(parsed.is_success());
        assert_eq!(parsed.text(), Some("Hello"));
        assert_eq!(parsed.stop_reason, Some(None));
        assert_eq!(parsed.api_error_status, Some(None));
        assert_eq!(parsed.terminal_reason, Some(TerminalReason::Completed));
        assert_eq!(parsed.permission_denials[0].tool_name, "Bash");
        assert!(parsed.extra.contains_key("some_future_field"));
        assert_eq!(serde_json::to_value(&parsed).unwrap(), value);
    }

    #[test]
    fn missing_is_error_reads_as_false() {
        let value = serde_json::json!({
            "subtype": "success", "duration_ms": 1, "duration_api_ms": 1, "num_turns": 1,
            "result": "x", "session_id": "s", "total_cost_usd": 0, "usage": zero_usage(),
            "modelUsage": {}, "permission_denials": [], "uuid": "u"
        });
        let result: ResultMessage = serde_json::from_value(value).unwrap();
        assert!(!result.is_error);
    }

    #[test]
    fn unknown_subtype_and_terminal_reason_are_kept() {
        let value = serde_json::json!({
            "subtype": "error_new_kind", "is_error": true, "duration_ms": 1,
            "duration_api_ms": 1, "num_turns": 1, "session_id": "s", "total_cost_usd": 1.5,
            "usage": zero_usage(), "modelUsage": {}, "permission_denials": [],
            "uuid": "u",
            "errors": ["boom"], "terminal_reason": "new_reason"
        });
        let parsed: ResultMessage = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(
            parsed.subtype,
            ResultSubtype::Other("error_new_kind".into())
        );
        assert_eq!(
            parsed.terminal_reason,
            Some(TerminalReason::Other("new_reason".into()))
        );
        assert_eq!(serde_json::to_value(&parsed).unwrap(), value);
    }

    #[test]
    fn js_numbers_write_back_unchanged() {
        for text in ["0", "12", "-3", "0.5", "0.0006000000000000001", "1e300"] {
            let value: Value = serde_json::from_str(text).unwrap();
            #[derive(Serialize, Deserialize)]
            struct W(#[serde(with = "js_f64")] f64);
            let w: W = serde_json::from_value(value.clone()).unwrap();
            assert_eq!(serde_json::to_value(&w).unwrap(), value, "{text}");
        }
    }
}
