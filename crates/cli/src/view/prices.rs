//! What a model call cost at list prices, for a saved session that has no cost of its own (the
//! CLI writes one, `cost-state`, when it exits; a session cut short or from an older CLI has
//! none). The prices are those of Claude Code 2.1.330's model catalog, in US dollars per
//! million tokens, and the sum is computed as that CLI computes it, so a session it priced
//! itself comes out at the same cost (`crates/cli/tests/view` checks this on a real session).

use serde_json::Value;

/// The CLI whose price list this is.
pub const PRICES_OF: &str = "Claude Code 2.1.330";

/// Dollars per million tokens (and per web search).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Tier {
    input: f64,
    output: f64,
    cache_write_5m: f64,
    cache_write_1h: f64,
    cache_read: f64,
    web_search: f64,
}

const fn tier(input: f64, output: f64, cache_read: f64) -> Tier {
    Tier {
        input,
        output,
        cache_write_5m: input * 1.25,
        cache_write_1h: input * 2.0,
        cache_read,
        web_search: 0.01,
    }
}

const HAIKU_35: Tier = tier(0.8, 4.0, 0.08);
const HAIKU_45: Tier = tier(1.0, 5.0, 0.1);
const HAIKU_55: Tier = tier(0.1, 0.5, 0.01);
/// Haiku 5.5 above 100,000 prompt tokens.
const HAIKU_55_LONG: Tier = tier(0.5, 2.5, 0.05);
const HAIKU_55_LONG_ABOVE: u64 = 100_000;
const T_2_10: Tier = tier(2.0, 10.0, 0.2);
const T_2_10_CR_0_10: Tier = tier(2.0, 10.0, 0.1);
const T_3_15: Tier = tier(3.0, 15.0, 0.3);
const T_4_20_CR_0_20: Tier = tier(4.0, 20.0, 0.2);
const T_5_25: Tier = tier(5.0, 25.0, 0.5);
const T_8_40_CR_0_20: Tier = tier(8.0, 40.0, 0.2);
const T_10_50: Tier = tier(10.0, 50.0, 1.0);
const T_10_50_CR_0_25: Tier = tier(10.0, 50.0, 0.25);
const T_15_75: Tier = tier(15.0, 75.0, 1.5);

/// The catalog: each model by its id and its first-party id (dated for the older models).
const MODELS: &[(&str, Tier)] = &[
    ("claude-3-5-haiku", HAIKU_35),
    ("claude-haiku-4-5", HAIKU_45),
    ("claude-haiku-5-5", HAIKU_55),
    ("claude-3-5-sonnet", T_3_15),
    ("claude-3-7-sonnet", T_3_15),
    ("claude-sonnet-4-0", T_3_15),
    ("claude-sonnet-4-20250514", T_3_15),
    ("claude-sonnet-4-5", T_3_15),
    ("claude-sonnet-4-6", T_3_15),
    ("claude-sonnet-5", T_2_10),
    ("claude-sonnet-5-5", T_2_10_CR_0_10),
    ("claude-opus-4-0", T_15_75),
    ("claude-opus-4-20250514", T_15_75),
    ("claude-opus-4-1", T_15_75),
    ("claude-opus-4-5", T_5_25),
    ("claude-opus-4-6", T_5_25),
    ("claude-opus-4-7", T_5_25),
    ("claude-opus-4-8", T_5_25),
    ("claude-opus-5", T_5_25),
    ("claude-opus-5-5", T_4_20_CR_0_20),
    ("claude-fable-5", T_10_50),
    ("claude-fable-5-1", T_10_50_CR_0_25),
    ("claude-fable-5-2", T_8_40_CR_0_20),
    ("claude-mythos-5", T_10_50),
    ("claude-mythos-5-1", T_10_50_CR_0_25),
    ("claude-mythos-5-2", T_8_40_CR_0_20),
];

/// The tier of `model`: the longest catalog name it contains (so `claude-opus-4-5-20251101`
/// and `us.anthropic.claude-opus-4-5-…` are Opus 4.5, not Opus 4), `None` for an unknown model
/// (`<synthetic>`, the CLI's own messages, or a model newer than the list).
fn tier_of(model: &str) -> Option<(&'static str, Tier)> {
    MODELS
        .iter()
        .filter(|(name, _)| model.contains(name))
        .max_by_key(|(name, _)| name.len())
        .map(|(name, tier)| (*name, *tier))
}

/// The list price of one API response of `model` with `usage` (the Messages API's usage, as
/// an assistant entry holds it); `None` when the model has no list price.
pub fn cost_of(model: &str, usage: &Value) -> Option<f64> {
    let (name, mut tier) = tier_of(model)?;
    let count = |key: &str| usage[key].as_u64().unwrap_or(0) as f64;
    let input = count("input_tokens");
    let cache_read = count("cache_read_input_tokens");
    let cache_write = count("cache_creation_input_tokens");
    if name == "claude-haiku-5-5" && input + cache_read + cache_write > HAIKU_55_LONG_ABOVE as f64 {
        tier = HAIKU_55_LONG;
    }
    // Cache writes kept an hour cost more; the rest are five-minute writes.
    let one_hour = usage["cache_creation"]["ephemeral_1h_input_tokens"]
        .as_u64()
        .unwrap_or(0)
        .min(cache_write as u64) as f64;
    let searches = usage["server_tool_use"]["web_search_requests"]
        .as_u64()
        .unwrap_or(0) as f64;
    let cost = (input * tier.input
        + count("output_tokens") * tier.output
        + cache_read * tier.cache_read
        + (cache_write - one_hour) * tier.cache_write_5m
        + one_hour * tier.cache_write_1h)
        / 1e6
        + searches * tier.web_search;
    // Served from the US only: 10 % more.
    let geo = if usage["inference_geo"] == "us" {
        1.1
    } else {
        1.0
    };
    Some(cost * geo)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn prices_follow_the_catalog() {
        let usage = json!({"input_tokens": 100, "output_tokens": 20});
        // What Claude Code 2.1.330 itself reported for this usage of Opus 5.5.
        let opus = cost_of("claude-opus-5-5", &usage).unwrap();
        assert!((opus - 0.0008).abs() < 1e-12, "{opus}");
        // A dated first-party id, the longest name winning.
        assert_eq!(
            tier_of("claude-opus-4-5-20251101").unwrap().0,
            "claude-opus-4-5"
        );
        assert_eq!(tier_of("claude-opus-4-20250514").unwrap().1, T_15_75);
        assert_eq!(tier_of("claude-sonnet-5-5").unwrap().0, "claude-sonnet-5-5");
        assert!(cost_of("<synthetic>", &usage).is_none());
        let cached = json!({"input_tokens": 0, "output_tokens": 0,
            "cache_read_input_tokens": 1_000_000, "cache_creation_input_tokens": 1_000_000,
            "cache_creation": {"ephemeral_1h_input_tokens": 400_000},
            "server_tool_use": {"web_search_requests": 2}, "inference_geo": "us"});
        let cost = cost_of("claude-sonnet-4-5", &cached).unwrap();
        let expected = (0.3 + 0.6 * 3.75 + 0.4 * 6.0 + 0.02) * 1.1;
        assert!((cost - expected).abs() < 1e-9, "{cost} {expected}");
        let long = json!({"input_tokens": 200_000, "output_tokens": 0});
        assert!((cost_of("claude-haiku-5-5", &long).unwrap() - 0.1).abs() < 1e-12);
    }
}
