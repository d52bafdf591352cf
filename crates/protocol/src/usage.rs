//! Token and cost accounting: the Messages API [`Usage`] of one response (also the session
//! total in `result` frames), the running [`MessageDeltaUsage`] of a `message_delta` stream
//! event, and the per-model [`ModelUsage`] totals of `result.modelUsage`.
//!
//! Token counts are `u64`; money (`costUSD`) is `f64`. Fields that older CLIs or proxies leave
//! out are optional, and those seen both absent and `null` keep the difference
//! (`Option<Option<T>>`) so every frame writes back as it was read.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

crate::string_enum! {
    /// The capacity tier that served a request.
    pub enum ServiceTier {
        /// The standard tier.
        Standard = "standard",
        /// Priority capacity.
        Priority = "priority",
        /// The batch API.
        Batch = "batch",
    }
}

crate::string_enum! {
    /// The output speed a request ran at.
    pub enum Speed {
        /// Normal speed.
        Standard = "standard",
        /// Fast mode.
        Fast = "fast",
    }
}

crate::string_enum! {
    /// Which price table `costUSD` was computed from.
    pub enum CostBasis {
        /// Claude Code's built-in list prices.
        List = "list",
        /// The organization's managed-settings pricing.
        Managed = "managed",
        /// No price matched the model; the cost is an estimate.
        Unknown = "unknown",
    }
}

/// Token usage of one Messages API response (`message.usage`), or the session total
/// (`result.usage`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Input tokens not read from or written to the prompt cache.
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens (thinking included).
    #[serde(default)]
    pub output_tokens: u64,
    /// Input tokens written to the prompt cache.
    #[serde(default)]
    pub cache_creation_input_tokens: Option<u64>,
    /// Input tokens read from the prompt cache.
    #[serde(default)]
    pub cache_read_input_tokens: Option<u64>,
    /// Cache writes split by lifetime.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_creation: Option<CacheCreation>,
    /// Server-side tool requests (web search, web fetch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_tool_use: Option<ServerToolUsage>,
    /// The capacity tier that served the request: absent, `null` or a tier.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub service_tier: Option<Option<ServiceTier>>,
    /// Where inference ran: absent, `null` or a region (may be empty).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub inference_geo: Option<Option<String>>,
    /// Per-iteration usage (compaction, advisor calls, …): absent, `null` or a list.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub iterations: Option<Option<Vec<Value>>>,
    /// The output speed: absent, `null` or a speed.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub speed: Option<Option<Speed>>,
    /// A breakdown of `output_tokens`: absent, `null` or details.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub output_tokens_details: Option<Option<OutputTokensDetails>>,
    /// Credit granted when a fallback model answered: absent, `null` or its status.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub fallback_credit: Option<Option<FallbackCredit>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Usage {
    /// All input tokens: uncached, cache writes and cache reads.
    pub fn total_input_tokens(&self) -> u64 {
        self.input_tokens
            + self.cache_creation_input_tokens.unwrap_or(0)
            + self.cache_read_input_tokens.unwrap_or(0)
    }
}

/// Usage reported by a `message_delta` stream event: cumulative counts so far.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MessageDeltaUsage {
    /// Output tokens so far.
    #[serde(default)]
    pub output_tokens: u64,
    /// Input tokens, when the API repeats them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// Input tokens written to the prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_creation_input_tokens: Option<u64>,
    /// Input tokens read from the prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read_input_tokens: Option<u64>,
    /// Server-side tool requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_tool_use: Option<ServerToolUsage>,
    /// Per-iteration usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<Vec<Value>>,
    /// A breakdown of `output_tokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens_details: Option<OutputTokensDetails>,
    /// Credit granted when a fallback model answered: absent, `null` or its status.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub fallback_credit: Option<Option<FallbackCredit>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What became of the fallback credit a request presented (`usage.fallback_credit`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FallbackCredit {
    /// Whether the credit was applied to this response's billing.
    #[serde(default)]
    pub status: FallbackCreditStatus,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The status of a [`FallbackCredit`]: `redeemed`, or `not_applied` with the reason.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FallbackCreditStatus {
    /// `redeemed` or `not_applied` (open set).
    #[serde(rename = "type")]
    #[serde(default)]
    pub kind: String,
    /// Why it was not applied (`expired`, `body_mismatch`, …; open set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Request fields to remove for the credit to apply: absent, `null` or names.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub remove_to_redeem: Option<Option<Vec<String>>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Prompt-cache writes split by cache lifetime.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CacheCreation {
    /// Tokens written with a 1-hour lifetime.
    #[serde(default)]
    pub ephemeral_1h_input_tokens: u64,
    /// Tokens written with a 5-minute lifetime.
    #[serde(default)]
    pub ephemeral_5m_input_tokens: u64,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Counts of server-side tool requests.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ServerToolUsage {
    /// Web search requests.
    #[serde(default)]
    pub web_search_requests: u64,
    /// Web fetch requests (absent before CLI 2.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub web_fetch_requests: Option<u64>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A breakdown of output tokens.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct OutputTokensDetails {
    /// Tokens spent on thinking (already counted in `output_tokens`).
    #[serde(default)]
    pub thinking_tokens: u64,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Session totals for one model: a value of `result.modelUsage` (camelCase on the wire).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ModelUsage {
    /// Uncached input tokens.
    #[serde(rename = "inputTokens")]
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens.
    #[serde(rename = "outputTokens")]
    #[serde(default)]
    pub output_tokens: u64,
    /// Thinking tokens, already counted in `output_tokens`.
    #[serde(
        rename = "thinkingTokens",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub thinking_tokens: Option<u64>,
    /// Input tokens read from the prompt cache.
    #[serde(rename = "cacheReadInputTokens")]
    #[serde(default)]
    pub cache_read_input_tokens: u64,
    /// Input tokens written to the prompt cache.
    #[serde(rename = "cacheCreationInputTokens")]
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    /// Cache writes with a 5-minute lifetime.
    #[serde(
        rename = "cacheCreationEphemeral5mInputTokens",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub cache_creation_ephemeral_5m_input_tokens: Option<u64>,
    /// Cache writes with a 1-hour lifetime.
    #[serde(
        rename = "cacheCreationEphemeral1hInputTokens",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub cache_creation_ephemeral_1h_input_tokens: Option<u64>,
    /// Web search requests.
    #[serde(rename = "webSearchRequests")]
    #[serde(default)]
    pub web_search_requests: u64,
    /// Cost in US dollars (written back as an integer when it is one, as JavaScript does).
    #[serde(rename = "costUSD", with = "crate::result::js_f64")]
    #[serde(default)]
    pub cost_usd: f64,
    /// The model's context window in tokens.
    #[serde(rename = "contextWindow")]
    #[serde(default)]
    pub context_window: u64,
    /// The model's output token limit (absent before CLI 2.1).
    #[serde(
        rename = "maxOutputTokens",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub max_output_tokens: Option<u64>,
    /// The canonical model id used to look up prices.
    #[serde(
        rename = "canonicalModel",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub canonical_model: Option<String>,
    /// The API provider that served the model (`firstParty`, `bedrock`, `vertex`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// Which price table `cost_usd` came from; absent means list prices.
    #[serde(rename = "costBasis", default, skip_serializing_if = "Option::is_none")]
    pub cost_basis: Option<CostBasis>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn result_usage_and_model_usage_round_trip() {
        let mut usages = 0;
        let mut model_usages = 0;
        for frame in crate::test_fixtures::of_type("result") {
            if let Some(value) = frame.msg.get("usage") {
                let usage: Usage = serde_json::from_value(value.clone())
                    .unwrap_or_else(|e| panic!("{}: usage: {e}", frame.origin()));
                assert_eq!(
                    &serde_json::to_value(&usage).unwrap(),
                    value,
                    "{}",
                    frame.origin()
                );
                usages += 1;
            }
            let Some(models) = frame.msg.get("modelUsage").and_then(Value::as_object) else {
                continue;
            };
            for (model, value) in models {
                let usage: ModelUsage = serde_json::from_value(value.clone())
                    .unwrap_or_else(|e| panic!("{}: modelUsage[{model}]: {e}", frame.origin()));
                assert_eq!(
                    &serde_json::to_value(&usage).unwrap(),
                    value,
                    "{}",
                    frame.origin()
                );
                assert!(usage.cost_usd > 0.0 || usage.output_tokens == 0);
                model_usages += 1;
            }
        }
        assert!(usages > 50, "only {usages} result usages found");
        assert!(
            model_usages > 50,
            "only {model_usages} modelUsage entries found"
        );
    }

    #[test]
    fn nullable_fields_keep_null_apart_from_absent() {
        let with_null = serde_json::json!({
            "input_tokens": 1, "output_tokens": 2,
            "cache_creation_input_tokens": null, "cache_read_input_tokens": 0,
            "service_tier": null, "speed": "fast"
        });
        let usage: Usage = serde_json::from_value(with_null.clone()).unwrap();
        assert_eq!(usage.service_tier, Some(None));
        assert_eq!(usage.speed, Some(Some(Speed::Fast)));
        assert_eq!(usage.inference_geo, None);
        assert_eq!(usage.total_input_tokens(), 1);
        assert_eq!(serde_json::to_value(&usage).unwrap(), with_null);
    }

    #[test]
    fn integral_cost_writes_back_as_an_integer() {
        let value = serde_json::json!({
            "inputTokens": 0, "outputTokens": 0, "cacheReadInputTokens": 0,
            "cacheCreationInputTokens": 0, "webSearchRequests": 0, "costUSD": 0,
            "contextWindow": 200000
        });
        let usage: ModelUsage = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(usage.cost_usd, 0.0);
        assert_eq!(serde_json::to_value(&usage).unwrap(), value);
    }

    #[test]
    fn fractional_token_count_is_repaired() {
        let broken = serde_json::json!({"input_tokens": 1.5, "output_tokens": 2});
        assert!(serde_json::from_value::<Usage>(broken.clone()).is_err());
        let read = crate::from_value::<Usage>(broken).unwrap();
        assert_eq!((read.value.input_tokens, read.value.output_tokens), (0, 2));
        let camel = serde_json::json!({"inputTokens": 1, "outputTokens": 2});
        let usage: ModelUsage = serde_json::from_value(camel).unwrap();
        assert_eq!(usage.input_tokens, 1);
    }
}
