//! The other stdout kinds: tool progress, auth status, tool use summaries, rate limits,
//! prompt suggestions, conversation resets, goals and transcript mirroring.
//!
//! Each struct here is the body of one top-level `type` (`tool_progress`, `rate_limit_event`,
//! …); the top-level message union reads and writes `type`, so no struct has a `type` field.
//! [`SDK_MESSAGE_KINDS`](crate::coverage::SDK_MESSAGE_KINDS) lists every kind of the official
//! SDK's `SDKMessage` union.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A subagent's API retry, reported through `tool_progress`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SubagentRetry {
    /// The subagent.
    #[serde(default)]
    pub agent_id: String,
    /// Attempt number.
    #[serde(default)]
    pub attempt: u64,
    /// Retry budget.
    #[serde(default)]
    pub max_retries: u64,
    /// Delay before the retry, in milliseconds.
    #[serde(default)]
    pub retry_delay_ms: u64,
    /// HTTP status; `None` is `null` (no response).
    #[serde(default)]
    pub error_status: Option<u64>,
    /// Error category.
    #[serde(default)]
    pub error_category: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `tool_progress`: a tool is still running.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ToolProgress {
    /// Id of the `tool_use` block.
    #[serde(default)]
    pub tool_use_id: String,
    /// Tool name.
    #[serde(default)]
    pub tool_name: String,
    /// The Task tool call this runs under; `None` is `null` (the main thread).
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    /// Time since the tool started, in seconds.
    #[serde(with = "crate::result::js_f64")]
    #[serde(default)]
    pub elapsed_time_seconds: f64,
    /// Task id, for a backgrounded tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// A keep-alive without new progress.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heartbeat: Option<bool>,
    /// Subagent type, for Task tool calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_type: Option<String>,
    /// The subagent's API call is being retried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_retry: Option<SubagentRetry>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `auth_status`: progress of an authentication flow.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AuthStatus {
    /// Whether authentication is in progress.
    #[serde(rename = "isAuthenticating")]
    #[serde(default)]
    pub is_authenticating: bool,
    /// Output lines of the flow.
    #[serde(default)]
    pub output: Vec<String>,
    /// Error message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `tool_use_summary`: a short summary of the preceding tool calls.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ToolUseSummary {
    /// The summary.
    #[serde(default)]
    pub summary: String,
    /// The tool calls it summarizes.
    #[serde(default)]
    pub preceding_tool_use_ids: Vec<String>,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// Whether requests are allowed under a rate limit.
    #[derive(Default)]
    pub enum RateLimitStatus {
        /// Allowed.
        #[default]
        Allowed = "allowed",
        /// Allowed, but close to the limit.
        AllowedWarning = "allowed_warning",
        /// Rejected.
        Rejected = "rejected",
    }
}

crate::string_enum! {
    /// Which rate limit window applies.
    pub enum RateLimitType {
        /// The five-hour window.
        FiveHour = "five_hour",
        /// The seven-day window.
        SevenDay = "seven_day",
        /// The seven-day Opus window.
        SevenDayOpus = "seven_day_opus",
        /// The seven-day Sonnet window.
        SevenDaySonnet = "seven_day_sonnet",
        /// The seven-day window including overage.
        SevenDayOverageIncluded = "seven_day_overage_included",
        /// Overage (extra usage).
        Overage = "overage",
    }
}

crate::string_enum! {
    /// Why overage (extra usage) is unavailable.
    pub enum OverageDisabledReason {
        /// Not provisioned.
        OverageNotProvisioned = "overage_not_provisioned",
        /// Disabled for the organization.
        OrgLevelDisabled = "org_level_disabled",
        /// Disabled for the organization until a date.
        OrgLevelDisabledUntil = "org_level_disabled_until",
        /// Out of credits.
        OutOfCredits = "out_of_credits",
        /// Disabled for the seat tier.
        SeatTierLevelDisabled = "seat_tier_level_disabled",
        /// Disabled for the member.
        MemberLevelDisabled = "member_level_disabled",
        /// The seat tier has a zero credit limit.
        SeatTierZeroCreditLimit = "seat_tier_zero_credit_limit",
        /// The group has a zero credit limit.
        GroupZeroCreditLimit = "group_zero_credit_limit",
        /// The member has a zero credit limit.
        MemberZeroCreditLimit = "member_zero_credit_limit",
        /// Disabled at the organization's service level.
        OrgServiceLevelDisabled = "org_service_level_disabled",
        /// No limits are configured.
        NoLimitsConfigured = "no_limits_configured",
        /// The state could not be fetched.
        FetchError = "fetch_error",
        /// Unknown reason.
        Unknown = "unknown",
    }
}

crate::string_enum! {
    /// Which spend limit blocked a request, when not the member's own.
    pub enum LimitScope {
        /// A service limit.
        Service = "service",
        /// A channel limit.
        Channel = "channel",
        /// A pooled group budget.
        GroupPool = "group_pool",
    }
}

crate::string_enum! {
    /// Machine-readable rate limit error.
    pub enum RateLimitErrorCode {
        /// Credits must be bought to continue.
        CreditsRequired = "credits_required",
    }
}

/// Rate limit state of a claude.ai subscription.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RateLimitInfo {
    /// Whether requests are allowed.
    #[serde(default)]
    pub status: RateLimitStatus,
    /// When the window resets (Unix seconds).
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "resetsAt")]
    pub resets_at: Option<u64>,
    /// Which window applies.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        rename = "rateLimitType"
    )]
    pub rate_limit_type: Option<RateLimitType>,
    /// Fraction of the window used (0 to 1).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::result::js_f64::option"
    )]
    pub utilization: Option<f64>,
    /// Whether overage requests are allowed.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        rename = "overageStatus"
    )]
    pub overage_status: Option<RateLimitStatus>,
    /// When the overage window resets (Unix seconds).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        rename = "overageResetsAt"
    )]
    pub overage_resets_at: Option<u64>,
    /// Why overage is unavailable.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        rename = "overageDisabledReason"
    )]
    pub overage_disabled_reason: Option<OverageDisabledReason>,
    /// Whether requests are billed as overage now.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        rename = "isUsingOverage"
    )]
    pub is_using_overage: Option<bool>,
    /// Whether overage is in use.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        rename = "overageInUse"
    )]
    pub overage_in_use: Option<bool>,
    /// Whether overage is enabled.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        rename = "overageEnabled"
    )]
    pub overage_enabled: Option<bool>,
    /// The warning threshold that was passed.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        rename = "surpassedThreshold",
        with = "crate::result::js_f64::option"
    )]
    pub surpassed_threshold: Option<f64>,
    /// Which spend limit blocked the request, when not the member's own.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        rename = "limitScope"
    )]
    pub limit_scope: Option<LimitScope>,
    /// Machine-readable error.
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "errorCode")]
    pub error_code: Option<RateLimitErrorCode>,
    /// Whether the user may buy credits.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        rename = "canUserPurchaseCredits"
    )]
    pub can_user_purchase_credits: Option<bool>,
    /// Whether a chargeable payment method is saved.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        rename = "hasChargeableSavedPaymentMethod"
    )]
    pub has_chargeable_saved_payment_method: Option<bool>,
    /// Fields this version does not know (e.g. `unifiedWindows`).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `rate_limit_event`: the subscription's rate limit state changed.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RateLimitEvent {
    /// The new state.
    #[serde(default)]
    pub rate_limit_info: RateLimitInfo,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `prompt_suggestion`: a predicted next user prompt.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PromptSuggestion {
    /// The suggested prompt.
    #[serde(default)]
    pub suggestion: String,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// Where a user message (a "command") is in its life.
    pub enum CommandState {
        /// Waiting behind a running turn.
        Queued = "queued",
        /// Its turn began.
        Started = "started",
        /// Its turn ended.
        Completed = "completed",
        /// Withdrawn before it started (`cancel_async_message`).
        Cancelled = "cancelled",
    }
}

/// `queued`.
#[allow(clippy::derivable_impls)] // the enum comes from `string_enum!`, which takes no `#[default]`
impl Default for CommandState {
    fn default() -> Self {
        Self::Queued
    }
}

/// `command_lifecycle`: the state of a user message that carried a `uuid`. Written by Claude
/// Code 2.1.330 although the TypeScript SDK's types (0.3.330) do not list it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CommandLifecycle {
    /// The `uuid` of the user message.
    #[serde(default)]
    pub command_uuid: String,
    /// Where it is now.
    #[serde(default)]
    pub state: CommandState,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// What discarded the conversation.
    pub enum ResetTrigger {
        /// `/clear` (or `/reset`, `/new`).
        Clear = "clear",
        /// Leaving plan mode with the clear-context option.
        PlanModeExit = "plan_mode_exit",
        /// A fresh session to implement an approved plan.
        FreshSession = "fresh_session",
        /// An onboarding flow re-run.
        Onboarding = "onboarding",
    }
}

/// `conversation_reset`: the conversation was discarded; reset local transcript state.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ConversationReset {
    /// Id of the new conversation.
    #[serde(default)]
    pub new_conversation_id: String,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// What discarded the conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<ResetTrigger>,
    /// With trigger `clear`: the user message whose `/clear` ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_message_uuid: Option<String>,
    /// When it happened (ISO 8601, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The `/goal` being pursued.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Goal {
    /// The condition to meet.
    #[serde(default)]
    pub condition: String,
    /// How many times the Stop hook found it not yet met.
    #[serde(default)]
    pub iterations: u64,
    /// When the goal was set (Unix milliseconds).
    #[serde(default)]
    pub set_at: u64,
    /// Output tokens when the goal was set.
    #[serde(default)]
    pub tokens_at_start: u64,
    /// Why the last check found it not met.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_reason: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `active_goal`: the `/goal` changed (outside the `SDKMessage` union).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ActiveGoal {
    /// The goal; `None` is `null` (the goal was met and cleared).
    #[serde(default)]
    pub value: Option<Goal>,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `transcript_mirror`: transcript entries for the host's session store (outside the
/// `SDKMessage` union; not declared in the SDK types, shape from the official SDKs' readers).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TranscriptMirror {
    /// Transcript file the entries belong to.
    #[serde(rename = "filePath")]
    #[serde(default)]
    pub file_path: String,
    /// The entries, opaque JSON objects each with a string `type`.
    #[serde(default)]
    pub entries: Vec<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::coverage::SDK_MESSAGE_KINDS;
    use serde::de::DeserializeOwned;
    use serde_json::json;

    fn round_trip<T: DeserializeOwned + Serialize>(value: &Value) -> T {
        let parsed: T = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(&serde_json::to_value(&parsed).unwrap(), value);
        parsed
    }

    #[test]
    fn kinds_cover_the_union() {
        assert_eq!(SDK_MESSAGE_KINDS.len(), 43);
        let unique: std::collections::BTreeSet<_> = SDK_MESSAGE_KINDS.iter().collect();
        assert_eq!(unique.len(), SDK_MESSAGE_KINDS.len());
        for subtype in crate::system::SystemMessage::KNOWN_TAGS {
            let kind = format!("system/{subtype}");
            assert!(
                SDK_MESSAGE_KINDS.contains(&kind.as_str())
                    || crate::coverage::CLI_ONLY_SYSTEM_KINDS.contains(&kind.as_str()),
                "{kind}"
            );
        }
        for subtype in crate::result::ResultSubtype::KNOWN {
            assert!(SDK_MESSAGE_KINDS.contains(&format!("result/{subtype}").as_str()));
        }
    }

    #[test]
    fn every_recorded_event_round_trips() {
        let mine = [
            "tool_progress",
            "auth_status",
            "tool_use_summary",
            "rate_limit_event",
            "prompt_suggestion",
            "conversation_reset",
            "active_goal",
            "transcript_mirror",
            "command_lifecycle",
        ];
        for (origin, kind, raw) in crate::test_fixtures::stdout_bodies(|t| mine.contains(&t)) {
            let value = Value::Object(raw);
            let back = match kind.as_str() {
                "tool_progress" => to_and_fro::<ToolProgress>(&value),
                "auth_status" => to_and_fro::<AuthStatus>(&value),
                "tool_use_summary" => to_and_fro::<ToolUseSummary>(&value),
                "rate_limit_event" => to_and_fro::<RateLimitEvent>(&value),
                "prompt_suggestion" => to_and_fro::<PromptSuggestion>(&value),
                "conversation_reset" => to_and_fro::<ConversationReset>(&value),
                "active_goal" => to_and_fro::<ActiveGoal>(&value),
                "command_lifecycle" => to_and_fro::<CommandLifecycle>(&value),
                _ => to_and_fro::<TranscriptMirror>(&value),
            };
            assert_eq!(
                back.unwrap_or_else(|e| panic!("{origin}: {e}")),
                value,
                "{origin}"
            );
        }
    }

    fn to_and_fro<T: DeserializeOwned + Serialize>(value: &Value) -> serde_json::Result<Value> {
        serde_json::to_value(serde_json::from_value::<T>(value.clone())?)
    }

    #[test]
    fn events_round_trip() {
        let p: ToolProgress = round_trip(&json!({
            "tool_use_id": "t", "tool_name": "Bash", "parent_tool_use_id": null,
            "elapsed_time_seconds": 2.5, "uuid": "u", "session_id": "s",
            "subagent_retry": {"agent_id": "a", "attempt": 1, "max_retries": 3,
                               "retry_delay_ms": 100, "error_status": null,
                               "error_category": "overloaded"}
        }));
        assert_eq!(p.parent_tool_use_id, None);
        let p: ToolProgress = round_trip(&json!({
            "tool_use_id": "t", "tool_name": "Bash", "parent_tool_use_id": "p",
            "elapsed_time_seconds": 3, "uuid": "u", "session_id": "s", "heartbeat": true
        }));
        assert_eq!(p.elapsed_time_seconds, 3.0);

        let r: RateLimitEvent = round_trip(&json!({
            "rate_limit_info": {"status": "allowed_warning", "resetsAt": 1784979600u64,
                                "rateLimitType": "five_hour", "utilization": 0.79,
                                "overageStatus": "rejected", "isUsingOverage": false,
                                "surpassedThreshold": 0.75,
                                "unifiedWindows": {"five_hour": {"utilization": 0.79}}},
            "uuid": "u", "session_id": "s"
        }));
        assert_eq!(r.rate_limit_info.status, RateLimitStatus::AllowedWarning);
        assert_eq!(
            r.rate_limit_info.rate_limit_type,
            Some(RateLimitType::FiveHour)
        );
        assert!(r.rate_limit_info.extra.contains_key("unifiedWindows"));
        round_trip::<RateLimitEvent>(&json!({
            "rate_limit_info": {"status": "rejected", "utilization": 1,
                                "rateLimitType": "weekly_new"},
            "uuid": "u", "session_id": "s"
        }));

        let a: AuthStatus = round_trip(&json!({
            "isAuthenticating": true, "output": ["Opening browser"], "uuid": "u",
            "session_id": "s"
        }));
        assert!(a.is_authenticating);
        round_trip::<ToolUseSummary>(&json!({
            "summary": "Read 2 files", "preceding_tool_use_ids": ["a", "b"], "uuid": "u",
            "session_id": "s"
        }));
        round_trip::<PromptSuggestion>(&json!({
            "suggestion": "run the tests", "uuid": "u", "session_id": "s"
        }));
        let c: ConversationReset = round_trip(&json!({
            "new_conversation_id": "n", "uuid": "u", "session_id": "s", "trigger": "clear",
            "timestamp": "2026-01-01T00:00:00Z"
        }));
        assert_eq!(c.trigger, Some(ResetTrigger::Clear));
        let g: ActiveGoal = round_trip(&json!({
            "value": {"condition": "tests pass", "iterations": 2, "set_at": 1700000000000u64,
                      "tokens_at_start": 100, "last_reason": "2 failing"},
            "uuid": "u", "session_id": "s"
        }));
        assert_eq!(g.value.map(|v| v.iterations), Some(2));
        let g: ActiveGoal = round_trip(&json!({"value": null, "uuid": "u", "session_id": "s"}));
        assert_eq!(g.value, None);
        round_trip::<TranscriptMirror>(&json!({
            "filePath": "/p/s.jsonl", "entries": [{"type": "user", "uuid": "x"}]
        }));
    }

    #[test]
    fn broken_payloads_are_repaired() {
        let bad = json!({"rate_limit_info": {"resetsAt": "soon"}, "uuid": "u", "session_id": "s"});
        assert!(serde_json::from_value::<RateLimitEvent>(bad.clone()).is_err());
        let read = crate::from_value::<RateLimitEvent>(bad).unwrap();
        assert_eq!(read.repairs.len(), 1, "{:?}", read.repairs);
        let partial =
            json!({"tool_use_id": "t", "tool_name": "Bash", "uuid": "u", "session_id": "s"});
        let progress: ToolProgress = serde_json::from_value(partial).unwrap();
        assert_eq!(progress.tool_name, "Bash");
    }
}
