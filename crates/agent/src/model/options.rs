//! The options of a call as Claude Code 2.1.332 sets them for each model: the most output
//! tokens, thinking, the effort, and how the API may trim the conversation; the beta features
//! it asks for.

use serde_json::{json, Value};

/// The API features asked for on every call (`anthropic-beta`), as Claude Code asks for them:
/// thinking between tool calls, context management, turns of the system between the user's,
/// the thinking-token count, effort, and the summary form of thinking.
pub const BETAS: &str = "claude-code-20250219,interleaved-thinking-2025-05-14,\
context-management-2025-06-27,per-turn-control-2026-07-01,mid-conversation-tool-changes-2026-07-01,\
thinking-token-count-2026-05-13,effort-2025-11-24,thinking-display-updates-2026-08-18";

/// A call's options for one model.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOptions {
    /// The most output tokens.
    pub max_tokens: u32,
    /// Thinking, when on.
    pub thinking: Option<Value>,
    /// The effort, for models that take one.
    pub output_config: Option<Value>,
    /// How the API may trim the conversation.
    pub context_management: Value,
}

/// The generation of a model id (`claude-opus-5-5` → 5, `claude-sonnet-4-5` → 4); 0 when the
/// id does not say.
fn generation(model: &str) -> u32 {
    model
        .split(['-', '[', '@'])
        .find_map(|part| part.parse::<u32>().ok())
        .unwrap_or(0)
}

/// The options of a call to `model`; `thinking_tokens` is the budget the session asked for
/// (models of generation 5 and later think adaptively whatever it is).
pub fn for_model(model: &str, thinking_tokens: Option<u32>) -> CallOptions {
    let context_management = json!({"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]});
    if generation(model) >= 5 {
        return CallOptions {
            max_tokens: 128_000,
            thinking: Some(json!({"type": "adaptive", "display": "updates"})),
            output_config: Some(json!({"effort": "medium"})),
            context_management,
        };
    }
    let max_tokens = 32_000;
    let budget = match thinking_tokens {
        Some(0) => None,
        Some(budget) => Some(budget.clamp(1024, max_tokens - 1)),
        None => Some(max_tokens - 1),
    };
    CallOptions {
        max_tokens,
        thinking: budget.map(
            |budget| json!({"type": "enabled", "budget_tokens": budget, "display": "updates"}),
        ),
        output_config: None,
        context_management,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newer_models_think_adaptively_and_older_ones_on_a_budget() {
        let opus = for_model("claude-opus-5-5", Some(5000));
        assert_eq!(opus.max_tokens, 128_000);
        assert_eq!(opus.thinking.unwrap()["type"], "adaptive");
        assert_eq!(opus.output_config.unwrap()["effort"], "medium");
        let sonnet = for_model("claude-sonnet-4-5", None);
        assert_eq!(sonnet.max_tokens, 32_000);
        assert_eq!(sonnet.thinking.unwrap()["budget_tokens"], 31_999);
        assert!(sonnet.output_config.is_none());
        assert!(for_model("claude-sonnet-4-5", Some(0)).thinking.is_none());
    }
}
