use serde_json::json;

use super::*;

fn usage(input: u64, output: u64) -> Tokens {
    Tokens {
        input_tokens: input,
        output_tokens: output,
        ..Tokens::default()
    }
}

fn result(value: serde_json::Value) -> ResultMessage {
    serde_json::from_value(value).unwrap()
}

fn model(input: u64, output: u64, cost: f64) -> serde_json::Value {
    json!({"inputTokens": input, "outputTokens": output, "cacheReadInputTokens": 0,
           "cacheCreationInputTokens": 0, "costUSD": cost})
}

/// The frames of the recorded subagent turn of Claude Code 2.1.332: the main thread asks
/// twice, the subagent once, every frame with the placeholder output count of 1.
#[test]
fn a_turn_with_a_subagent_adds_up_to_the_results_totals() {
    let mut fold = UsageFold::default();
    let task_input = json!({"description": "Count files", "subagent_type": "general-purpose"});
    fold.assistant(
        None,
        Some("msg_1"),
        Some("claude-opus-5-5"),
        Some(usage(100, 1)),
        &[ToolUse {
            id: "toolu_1",
            name: "Task",
            input: Some(&task_input),
        }],
    );
    fold.task_started("toolu_1", Some("general-purpose"), "Count files");
    fold.tool_result(
        "toolu_1",
        Some(&json!({"status": "async_launched", "isAsync": true})),
    );
    fold.assistant(
        None,
        Some("msg_2"),
        Some("claude-opus-5-5"),
        Some(usage(100, 1)),
        &[],
    );
    fold.assistant(
        Some("toolu_1"),
        Some("msg_3"),
        Some("claude-opus-5-5"),
        Some(usage(100, 1)),
        &[],
    );
    // The same request's frame again (another content block): counted once.
    fold.assistant(
        None,
        Some("msg_2"),
        Some("claude-opus-5-5"),
        Some(usage(100, 1)),
        &[],
    );
    fold.task_ended("toolu_1", Some(120));
    let turn = fold.result(&result(json!({
        "type": "result", "subtype": "success", "uuid": "r1", "session_id": "s",
        "usage": {"input_tokens": 200, "output_tokens": 40},
        "total_cost_usd": 0.0024,
        "modelUsage": {"claude-opus-5-5": model(300, 60, 0.0024)},
        "model_usage_since_last_result": {"claude-opus-5-5": model(300, 60, 0.0024)},
    })));
    assert_eq!(
        (
            turn.main.tokens.input_tokens,
            turn.main.tokens.output_tokens
        ),
        (200, 40)
    );
    assert!(turn.main.exact);
    assert_eq!(turn.main.requests, 2);
    assert_eq!(turn.subagents.len(), 1);
    let sub = &turn.subagents[0];
    assert_eq!(sub.tool_use_id.as_deref(), Some("toolu_1"));
    assert_eq!(sub.agent_type.as_deref(), Some("general-purpose"));
    assert_eq!(
        (sub.tokens.input_tokens, sub.tokens.output_tokens),
        (100, 20)
    );
    assert_eq!(turn.unattributed, Tokens::default());
    assert_eq!(turn.total.total(), 360);
    let sum = turn.main.cost_usd + sub.cost_usd + turn.unattributed_cost_usd;
    assert!((sum - 0.0024).abs() < 1e-12, "{sum}");
    assert!((sub.cost_usd - 0.0008).abs() < 1e-12, "{}", sub.cost_usd);
    // The Task call: its request's share and the subagent it ran.
    assert_eq!(turn.tool_calls.len(), 1);
    let call = &turn.tool_calls[0];
    assert_eq!(call.name, "Task");
    assert_eq!(call.subagent.as_ref().map(|s| s.tokens.total()), Some(120));
    assert_eq!(call.tokens.input_tokens, 100);
    assert_eq!(fold.turns().len(), 1);
}

/// An older CLI: cumulative totals only, a second turn folded from their growth, and tokens
/// no frame showed (a side request) left unattributed with their cost.
#[test]
fn cumulative_totals_give_the_second_turn_and_side_requests_stay_apart() {
    let mut fold = UsageFold::default();
    fold.assistant(None, Some("m1"), Some("sonnet"), Some(usage(100, 20)), &[]);
    fold.result(&result(
        json!({"uuid": "r1", "session_id": "s", "total_cost_usd": 0.0006,
        "usage": {"input_tokens": 100, "output_tokens": 20},
        "modelUsage": {"sonnet": model(100, 20, 0.0006)}}),
    ));
    fold.assistant(None, Some("m2"), Some("sonnet"), Some(usage(100, 20)), &[]);
    let second = fold.result(&result(json!({"uuid": "r2", "session_id": "s",
        "total_cost_usd": 0.0018,
        "usage": {"input_tokens": 100, "output_tokens": 20},
        "modelUsage": {"sonnet": model(300, 60, 0.0018)}})));
    assert_eq!(second.total.total(), 240);
    assert!((second.total_cost_usd - 0.0012).abs() < 1e-12);
    assert_eq!(second.main.tokens.total(), 120);
    assert_eq!(second.unattributed.total(), 120);
    let sum = second.main.cost_usd + second.unattributed_cost_usd;
    assert!((sum - 0.0012).abs() < 1e-12, "{sum}");
}

/// With partial messages, `message_delta` gives each request's output exactly; a
/// request's tokens are shared evenly among its tool calls.
#[test]
fn streamed_output_counts_and_tool_call_shares() {
    let mut fold = UsageFold::default();
    fold.stream_started(None, "m1");
    fold.assistant(
        None,
        Some("m1"),
        Some("sonnet"),
        Some(usage(101, 1)),
        &[
            ToolUse {
                id: "a",
                name: "Bash",
                input: None,
            },
            ToolUse {
                id: "b",
                name: "Read",
                input: None,
            },
        ],
    );
    fold.stream_output(None, 30);
    let turn = fold.result(&result(json!({"uuid": "r", "session_id": "s",
        "total_cost_usd": 0.00075,
        "usage": {"input_tokens": 101, "output_tokens": 30},
        "model_usage_since_last_result": {"sonnet": model(101, 30, 0.00075)}})));
    let shares: Vec<(u64, u64)> = turn
        .tool_calls
        .iter()
        .map(|c| (c.tokens.input_tokens, c.tokens.output_tokens))
        .collect();
    assert_eq!(shares, [(51, 15), (50, 15)]);
    let sum: f64 = turn.tool_calls.iter().map(|c| c.cost_usd).sum();
    assert!((sum - 0.00075).abs() < 1e-12, "{sum}");
}
