//! Output options: structured output with a JSON schema, partial messages.

use serde_json::json;
use twinwire::protocol::Message;
use twinwire::query;

use crate::{assistant_text, collect, kinds, ok, script, the_result, Scenario};

#[tokio::test]
async fn structured_output_follows_the_json_schema() {
    // The CLI offers the model a `StructuredOutput` tool whose input schema is the host's
    // schema; the model answers by calling it.
    let s = Scenario::start(script(
        json!([
            {"when": {"last_is_tool_result": true}, "reply": {"text": "unexpected follow-up"}},
            {"when": {"last_user_text_contains": "give me json"},
             "reply": {"tool_use": {"name": "StructuredOutput",
                                    "input": {"answer": 42, "unit": "towels"}}}}
        ]),
        json!({"text": "unexpected"}),
    ))
    .await;
    let schema = json!({
        "type": "object",
        "properties": {"answer": {"type": "integer"}, "unit": {"type": "string"}},
        "required": ["answer", "unit"]
    });
    let options = s.builder().json_schema(schema).build().unwrap();
    let items = collect(query("give me json", options)).await;
    let result = the_result(&items);
    assert!(!result.is_error, "{result:?}\nstderr:\n{}", s.stderr());
    assert_eq!(
        result.structured_output,
        Some(json!({"answer": 42, "unit": "towels"})),
        "{result:?}"
    );
    let requests = s.requests_for("give me json");
    assert_eq!(requests.len(), 1);
    let tool = requests[0]["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|tool| tool["name"] == "StructuredOutput")
        .unwrap_or_else(|| panic!("no StructuredOutput tool in {}", requests[0]["tools"]));
    assert_eq!(
        tool["input_schema"]["properties"]["answer"]["type"], "integer",
        "{tool}"
    );
}

#[tokio::test]
async fn include_partial_messages_yields_stream_events() {
    let text = "one two three four five six";
    let s = Scenario::start(script(
        json!([{"when": {"last_user_text_contains": "stream it"},
                "reply": {"slow_text": {"text": text, "deltas": 6, "delay_ms": 10}}}]),
        json!({"text": "unexpected"}),
    ))
    .await;
    let options = s.builder().include_partial_messages(true).build().unwrap();
    let items = collect(query("stream it", options)).await;
    let messages = ok(&items);
    let events: Vec<_> = messages
        .iter()
        .filter_map(|m| match m {
            Message::StreamEvent(event) => Some(serde_json::to_value(&event.event).unwrap()),
            _ => None,
        })
        .collect();
    let types: Vec<_> = events
        .iter()
        .map(|e| e["type"].as_str().unwrap_or("").to_owned())
        .collect();
    for expected in [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ] {
        assert!(
            types.iter().any(|t| t == expected),
            "{expected} in {types:?}"
        );
    }
    let streamed: String = events
        .iter()
        .filter(|e| e["delta"]["type"] == "text_delta")
        .map(|e| e["delta"]["text"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(streamed, text);
    let deltas = types.iter().filter(|t| *t == "content_block_delta").count();
    assert!(deltas >= 2, "{deltas} deltas");
    // The events come before the complete assistant message, which carries the same text.
    let first_event = messages.iter().position(|m| m.kind() == "stream_event");
    let assistant = messages.iter().position(|m| m.kind() == "assistant");
    assert!(first_event < assistant, "{}", kinds(&items));
    assert_eq!(assistant_text(&items), text);
    assert_eq!(the_result(&items).text(), Some(text));
}
