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
    #[serde(default)]
    pub session: SessionUsage,
    /// claude.ai subscription (`pro`, `max`, …); `null` for API-key and cloud-provider sessions.
    #[serde(default)]
    pub subscription_type: Option<String>,
    /// Whether plan rate limits apply.
    #[serde(default)]
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
    #[serde(default = "crate::serde_util::zero")]
    pub total_cost_usd: Number,
    /// Time spent waiting on the API.
    #[serde(default)]
    pub total_api_duration_ms: u64,
    /// Wall time.
    #[serde(default)]
    pub total_duration_ms: u64,
    /// Lines added by edits.
    #[serde(default)]
    pub total_lines_added: u64,
    /// Lines removed by edits.
    #[serde(default)]
    pub total_lines_removed: u64,
    /// Usage per model (the `modelUsage` shape of `result`).
    #[serde(default)]
    pub model_usage: BTreeMap<String, ModelUsage>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for SessionUsage {
    fn default() -> Self {
        Self {
            total_cost_usd: crate::serde_util::zero(),
            total_api_duration_ms: 0,
            total_duration_ms: 0,
            total_lines_added: 0,
            total_lines_removed: 0,
            model_usage: BTreeMap::new(),
            extra: Map::new(),
        }
    }
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
    #[serde(default)]
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
    #[serde(default)]
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
    #[serde(default)]
    pub day: UsageWindowBehaviors,
    /// The last 7 days.
    #[serde(default)]
    pub week: UsageWindowBehaviors,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What drives usage in one window.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UsageWindowBehaviors {
    /// API requests found.
    #[serde(default)]
    pub request_count: u64,
    /// Sessions seen.
    #[serde(default)]
    pub session_count: u64,
    /// Behavioral characteristics (overlapping).
    #[serde(default)]
    pub behaviors: Vec<UsageBehavior>,
    /// Recommended changes, largest share first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommendations: Option<Vec<UsageRecommendation>>,
    /// What one "fix" action does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<UsageFix>,
    /// Share by agent.
    #[serde(default)]
    pub agents: Vec<UsageShare>,
    /// Share by skill.
    #[serde(default)]
    pub skills: Vec<UsageShare>,
    /// Share by plugin.
    #[serde(default)]
    pub plugins: Vec<UsageShare>,
    /// Share by MCP server.
    #[serde(default)]
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
    #[serde(default)]
    pub key: UsageBehaviorKey,
    /// Share of weighted usage, 0–100.
    #[serde(default = "crate::serde_util::zero")]
    pub pct: Number,
    /// Requests showing it.
    #[serde(default)]
    pub count: u64,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A recommended change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsageRecommendation {
    /// A behavior key, or `agent`, `skill`, `plugin`, `mcp_server`.
    #[serde(default)]
    pub key: String,
    /// Share of weighted usage it touches, 0–100.
    #[serde(default = "crate::serde_util::zero")]
    pub pct: Number,
    /// What to do.
    #[serde(default)]
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
    #[serde(default)]
    pub keys: Vec<String>,
    /// User messages to send, in order.
    #[serde(default)]
    pub messages: Vec<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A named source's share of usage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsageShare {
    /// Name.
    #[serde(default)]
    pub name: String,
    /// Share of weighted usage, 0–100.
    #[serde(default = "crate::serde_util::zero")]
    pub pct: Number,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::union::absent_is_empty!(UsageBehaviorKey);
