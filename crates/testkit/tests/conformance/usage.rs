//! Cost and usage per subagent and per tool call (`Client::turn_usage`), checked against the
//! result's totals and against what the scripted model served each request (100 input and 20
//! output tokens).

use serde_json::json;
use twinwire::protocol::result::ResultMessage;

use crate::{kinds, the_result, turn, within, Scenario};

/// The model: the main thread runs Bash, then delegates to a subagent, then answers; the
/// subagent answers at once.
fn delegating() -> twinwire_model_server::ModelScript {
    crate::script(
        json!([
            {"when": {"last_user_text_contains": "SUBTASK-31: count the files"},
             "reply": {"text": "there are no files"}},
            {"when": {"all": [{"last_is_tool_result": true},
                              {"tool_result_contains": "USAGE-ECHO"}]},
             "reply": {"tool_use": {"name": "Task",
                                    "input": {"description": "Count files",
                                              "prompt": "SUBTASK-31: count the files",
                                              "subagent_type": "general-purpose"}}}},
            {"when": {"last_is_tool_result": true}, "reply": {"text": "all done"}},
            {"when": {"last_user_text_contains": "measure this"},
             "reply": {"tool_use": {"name": "Bash",
                                    "input": {"command": "echo USAGE-ECHO",
                                              "description": "echo"}}}}
        ]),
        json!({"text": "ok"}),
    )
}

/// Checks one turn's fold against its result and the requests the model server saw.
fn check(s: &Scenario, client: &twinwire::Client, result: &ResultMessage, before_cost: f64) {
    let usage = client
        .turn_usage(result)
        .unwrap_or_else(|| panic!("no usage for the result {}", result.uuid));
    let served = |needle: &str| s.requests_for(needle).len() as u64;
    // The main thread: the result's own count, its three requests.
    assert_eq!(usage.main.tokens.input_tokens, result.usage.input_tokens);
    assert_eq!(usage.main.tokens.output_tokens, result.usage.output_tokens);
    assert_eq!(usage.main.requests, 3, "{usage:#?}");
    assert!(usage.main.exact);
    // The subagent: what the model server served it, exactly.
    assert_eq!(usage.subagents.len(), 1, "{usage:#?}");
    let sub = &usage.subagents[0];
    let asked = served("SUBTASK-31");
    assert!(asked >= 1);
    assert_eq!(sub.tokens.input_tokens, 100 * asked, "{sub:#?}");
    assert_eq!(sub.tokens.output_tokens, 20 * asked, "{sub:#?}");
    assert_eq!(sub.agent_type.as_deref(), Some("general-purpose"));
    assert_eq!(sub.description.as_deref(), Some("Count files"));
    // Everything adds up to the CLI's totals: tokens per model, and the cost.
    let by_model: u64 = usage
        .by_model
        .values()
        .map(|m| {
            m.input_tokens
                + m.output_tokens
                + m.cache_read_input_tokens
                + m.cache_creation_input_tokens
        })
        .sum();
    assert_eq!(usage.total.total(), by_model);
    assert_eq!(
        usage.main.tokens.total() + sub.tokens.total() + usage.unattributed.total(),
        usage.total.total(),
        "{usage:#?}"
    );
    assert_eq!(
        usage.unattributed.total(),
        0,
        "no side request offline: {usage:#?}"
    );
    let turn_cost = result.total_cost_usd - before_cost;
    assert!(
        (usage.total_cost_usd - turn_cost).abs() < 1e-9,
        "{usage:#?}"
    );
    let shares = usage.main.cost_usd + sub.cost_usd + usage.unattributed_cost_usd;
    assert!((shares - turn_cost).abs() < 1e-9, "{shares} of {turn_cost}");
    assert!(sub.cost_usd > 0.0);
    // Per tool call: the Bash call and the Task call, the latter with its subagent.
    let names: Vec<&str> = usage.tool_calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Bash", "Task"], "{usage:#?}");
    let task = &usage.tool_calls[1];
    assert_eq!(task.subagent.as_ref(), Some(sub));
    assert!(usage
        .tool_calls
        .iter()
        .all(|c| c.tokens.input_tokens == 100 && c.agent.is_none()));
}

#[tokio::test]
async fn usage_per_subagent_and_tool_call_adds_up_to_the_results_totals() {
    let s = Scenario::start(delegating()).await;
    let options = s
        .builder()
        .allowed_tools(["Task", "Agent", "Bash"])
        .build()
        .unwrap();
    let client = s.connect(options).await;
    let items = turn(&client, "measure this").await;
    let result = the_result(&items);
    assert_eq!(result.text(), Some("all done"), "{}", kinds(&items));
    check(&s, &client, result, 0.0);
    // A second turn is folded on its own.
    let items = turn(&client, "a plain question").await;
    let second = the_result(&items);
    let usage = client.turn_usage(second).unwrap();
    assert!(usage.subagents.is_empty() && usage.tool_calls.is_empty());
    assert_eq!(usage.main.tokens.total(), 120, "{usage:#?}");
    assert!((usage.total_cost_usd - (second.total_cost_usd - result.total_cost_usd)).abs() < 1e-9);
    assert_eq!(client.usage_by_turn().len(), 2);
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn with_partial_messages_each_requests_output_is_exact() {
    let s = Scenario::start(delegating()).await;
    let options = s
        .builder()
        .allowed_tools(["Task", "Agent", "Bash"])
        .include_partial_messages(true)
        .build()
        .unwrap();
    let client = s.connect(options).await;
    let items = turn(&client, "measure this").await;
    let result = the_result(&items);
    check(&s, &client, result, 0.0);
    let usage = client.turn_usage(result).unwrap();
    // The calls' shares come from the streamed counts: 20 output tokens each request.
    assert!(
        usage
            .tool_calls
            .iter()
            .all(|c| c.tokens.output_tokens == 20),
        "{usage:#?}"
    );
    within(client.close()).await.unwrap();
}
