//! What a model call costs: list prices in US dollars per million tokens, by model, and each
//! model's context window. The table is Anthropic's published list prices (the same table
//! Claude Code 2.1.330 prices with, so the two report the same `total_cost_usd` for the same
//! usage); a model it does not know costs nothing and is said so once in the log.
//!
//! | model (id contains) | input | output | cache read | cache write 5 min / 1 h |
//! |---|---|---|---|---|
//! | `claude-3-5-haiku` | 0.80 | 4 | 0.08 | input × 1.25 / × 2 |
//! | `claude-haiku-4-5` | 1 | 5 | 0.10 | 〃 |
//! | `claude-haiku-5-5` | 0.10 | 0.50 | 0.01 | 〃 |
//! | `claude-3-5-sonnet`, `claude-3-7-sonnet`, `claude-sonnet-4-*` | 3 | 15 | 0.30 | 〃 |
//! | `claude-sonnet-5` | 2 | 10 | 0.20 | 〃 |
//! | `claude-sonnet-5-5` | 2 | 10 | 0.10 | 〃 |
//! | `claude-opus-4-0`, `claude-opus-4-1` | 15 | 75 | 1.50 | 〃 |
//! | `claude-opus-4-5` … `claude-opus-5` | 5 | 25 | 0.50 | 〃 |
//! | `claude-opus-5-5` | 4 | 20 | 0.20 | 〃 |

use twinwire_protocol::usage::Usage;

/// Dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    /// Input tokens.
    pub input: f64,
    /// Output tokens (thinking included).
    pub output: f64,
    /// Input tokens read from the prompt cache.
    pub cache_read: f64,
    /// Input tokens written to the 5-minute cache.
    pub cache_write_5m: f64,
    /// Input tokens written to the 1-hour cache.
    pub cache_write_1h: f64,
}

const fn price(input: f64, output: f64, cache_read: f64) -> Price {
    Price {
        input,
        output,
        cache_read,
        cache_write_5m: input * 1.25,
        cache_write_1h: input * 2.0,
    }
}

/// The table, most specific names first where one contains another.
const PRICES: &[(&str, Price)] = &[
    ("claude-3-5-haiku", price(0.8, 4.0, 0.08)),
    ("claude-haiku-4-5", price(1.0, 5.0, 0.1)),
    ("claude-haiku-5-5", price(0.1, 0.5, 0.01)),
    ("claude-3-5-sonnet", price(3.0, 15.0, 0.3)),
    ("claude-3-7-sonnet", price(3.0, 15.0, 0.3)),
    ("claude-sonnet-4", price(3.0, 15.0, 0.3)),
    ("claude-sonnet-5-5", price(2.0, 10.0, 0.1)),
    ("claude-sonnet-5", price(2.0, 10.0, 0.2)),
    ("claude-opus-4-0", price(15.0, 75.0, 1.5)),
    ("claude-opus-4-1", price(15.0, 75.0, 1.5)),
    ("claude-opus-4-2025", price(15.0, 75.0, 1.5)),
    ("claude-opus-4-5", price(5.0, 25.0, 0.5)),
    ("claude-opus-4-6", price(5.0, 25.0, 0.5)),
    ("claude-opus-4-7", price(5.0, 25.0, 0.5)),
    ("claude-opus-4-8", price(5.0, 25.0, 0.5)),
    ("claude-opus-5-5", price(4.0, 20.0, 0.2)),
    ("claude-opus-5", price(5.0, 25.0, 0.5)),
];

/// The context window assumed for every model (the API says no more; a larger one only
/// changes what `get_context_usage` reports as free).
pub const CONTEXT_WINDOW: u64 = 200_000;

/// The price of `model`: the longest table name it contains.
pub fn price_of(model: &str) -> Option<Price> {
    PRICES
        .iter()
        .filter(|(name, _)| model.contains(name))
        .max_by_key(|(name, _)| name.len())
        .map(|(_, price)| *price)
}

/// What `usage` cost on `model`, in US dollars (0 for a model not in the table).
pub fn cost(model: &str, usage: &Usage) -> f64 {
    let Some(price) = price_of(model) else {
        return 0.0;
    };
    let per_token = |tokens: u64, dollars: f64| tokens as f64 * dollars / 1_000_000.0;
    let cache_write = usage.cache_creation_input_tokens.unwrap_or(0);
    let (write_5m, write_1h) = match &usage.cache_creation {
        Some(split) if split.ephemeral_5m_input_tokens + split.ephemeral_1h_input_tokens > 0 => (
            split.ephemeral_5m_input_tokens,
            split.ephemeral_1h_input_tokens,
        ),
        _ => (cache_write, 0),
    };
    per_token(usage.input_tokens, price.input)
        + per_token(usage.output_tokens, price.output)
        + per_token(usage.cache_read_input_tokens.unwrap_or(0), price.cache_read)
        + per_token(write_5m, price.cache_write_5m)
        + per_token(write_1h, price.cache_write_1h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_name_decides() {
        assert_eq!(
            price_of("claude-sonnet-5-5-20261001").unwrap().cache_read,
            0.1
        );
        assert_eq!(price_of("claude-sonnet-5").unwrap().cache_read, 0.2);
        assert_eq!(price_of("claude-opus-5-5").unwrap().input, 4.0);
        assert!(price_of("gpt-9").is_none());
    }

    #[test]
    fn a_call_costs_what_claude_code_reports() {
        // Claude Code 2.1.330 reported 0.0016 USD for 200 input and 40 output tokens of
        // claude-opus-5-5.
        let usage = Usage {
            input_tokens: 200,
            output_tokens: 40,
            ..Usage::default()
        };
        assert!((cost("claude-opus-5-5", &usage) - 0.0016).abs() < 1e-12);
        let cached = Usage {
            input_tokens: 0,
            output_tokens: 0,
            cache_read_input_tokens: Some(1_000_000),
            cache_creation_input_tokens: Some(1_000_000),
            ..Usage::default()
        };
        assert!((cost("claude-haiku-4-5", &cached) - (0.1 + 1.25)).abs() < 1e-9);
        assert_eq!(cost("unknown-model", &usage), 0.0);
    }
}
