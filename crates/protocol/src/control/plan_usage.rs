//! The answer to `get_usage`: session cost totals, plan rate-limit windows, and what drives
//! usage (experimental on the CLI side; the shape may change).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use crate::usage::ModelUsage;

/// The answer to `get_usage` (the structured /usage data).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetUsageResponse {
    /// Cost and usage of the current session.
    pub session: SessionUsage,
    /// claude.ai subscription (`pro`, `max`, …); `null` for API-key and cloud-provider sessions.
    #[serde(default)]
    pub subscription_type: Option<String>,
    /// Whether plan rate limits apply.
    pub rate_limits_available: bool,
    /// Plan rate-limit windows; `null` when unavailable.
    #[serde(default)]
    pub rate_limits: Option<PlanRateLimits>,
    /// What drives usage, from local transcripts; `null` when not scanned.
    #[serde(default)]
    pub behaviors: Option<UsageBehaviors>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Cost and usage accumulated by the session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionUsage {
    /// Cost in US dollars (an integer `0` stays `0`).
    pub total_cost_usd: Number,
    /// Time spent waiting on the API.
    pub total_api_duration_ms: u64,
    /// Wall time.
    pub total_duration_ms: u64,
    /// Lines added by edits.
    pub total_lines_added: u64,
    /// Lines removed by edits.
    pub total_lines_removed: u64,
    /// Usage per model (the `modelUsage` shape of `result`).
    pub model_usage: BTreeMap<String, ModelUsage>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Plan rate-limit windows from the claude.ai usage endpoint.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PlanRateLimits {
    /// The five-hour window.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub five_hour: Option<Option<RateLimitWindow>>,
    /// The seven-day window.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub seven_day: Option<Option<RateLimitWindow>>,
    /// The seven-day window for OAuth apps.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub seven_day_oauth_apps: Option<Option<RateLimitWindow>>,
    /// The seven-day Opus window.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub seven_day_opus: Option<Option<RateLimitWindow>>,
    /// The seven-day Sonnet window.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub seven_day_sonnet: Option<Option<RateLimitWindow>>,
    /// Per-model weekly windows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_scoped: Option<Vec<ModelScopedWindow>>,
    /// Extra (pay-as-you-go) usage.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub extra_usage: Option<Option<ExtraUsage>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One rate-limit window.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RateLimitWindow {
    /// Percentage used, 0–100.
    #[serde(default)]
    pub utilization: Option<Number>,
    /// When the window resets (ISO 8601).
    #[serde(default)]
    pub resets_at: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A per-model weekly window.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ModelScopedWindow {
    /// The model bucket's label.
    pub display_name: String,
    /// Percentage used, 0–100.
    #[serde(default)]
    pub utilization: Option<Number>,
    /// When the window resets (ISO 8601).
    #[serde(default)]
    pub resets_at: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Extra (pay-as-you-go) usage state.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ExtraUsage {
    /// Whether extra usage is on.
    pub is_enabled: bool,
    /// Monthly limit.
    #[serde(default)]
    pub monthly_limit: Option<Number>,
    /// Credits used.
    #[serde(default)]
    pub used_credits: Option<Number>,
    /// Percentage used, 0–100.
    #[serde(default)]
    pub utilization: Option<Number>,
    /// Currency code.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub currency: Option<Option<String>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What drives usage, over the last day and week.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UsageBehaviors {
    /// The last 24 hours.
    pub day: UsageWindowBehaviors,
    /// The last 7 days.
    pub week: UsageWindowBehaviors,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What drives usage in one window.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UsageWindowBehaviors {
    /// API requests found.
    pub request_count: u64,
    /// Sessions seen.
    pub session_count: u64,
    /// Behavioral characteristics (overlapping).
    pub behaviors: Vec<UsageBehavior>,
    /// Recommended changes, largest share first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommendations: Option<Vec<UsageRecommendation>>,
    /// What one "fix" action does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<UsageFix>,
    /// Share by agent.
    pub agents: Vec<UsageShare>,
    /// Share by skill.
    pub skills: Vec<UsageShare>,
    /// Share by plugin.
    pub plugins: Vec<UsageShare>,
    /// Share by MCP server.
    pub mcp_servers: Vec<UsageShare>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// A behavioral characteristic of usage.
    pub enum UsageBehaviorKey {
        /// Cache misses.
        CacheMiss = "cache_miss",
        /// Long contexts.
        LongContext = "long_context",
        /// Heavy subagent use.
        SubagentHeavy = "subagent_heavy",
        /// Many parallel sessions.
        HighParallel = "high_parallel",
        /// Scheduled runs.
        Cron = "cron",
        /// Maximum effort.
        MaxEffort = "max_effort",
        /// Workflows.
        Workflow = "workflow",
        /// Always-on context.
        AlwaysOnContext = "always_on_context",
        /// Large tool results.
        LargeToolResults = "large_tool_results",
    }
}

/// One behavioral characteristic and its share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsageBehavior {
    /// Which characteristic.
    pub key: UsageBehaviorKey,
    /// Share of weighted usage, 0–100.
    pub pct: Number,
    /// Requests showing it.
    pub count: u64,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A recommended change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsageRecommendation {
    /// A behavior key, or `agent`, `skill`, `plugin`, `mcp_server`.
    pub key: String,
    /// Share of weighted usage it touches, 0–100.
    pub pct: Number,
    /// What to do.
    pub title: String,
    /// A few words of detail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What one "fix" action does.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UsageFix {
    /// The recommendations it covers.
    pub keys: Vec<String>,
    /// User messages to send, in order.
    pub messages: Vec<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A named source's share of usage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsageShare {
    /// Name.
    pub name: String,
    /// Share of weighted usage, 0–100.
    pub pct: Number,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
