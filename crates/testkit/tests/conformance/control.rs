//! Control requests from the host: interrupt, set_model, get_context_usage, thinking tokens,
//! and an unknown subtype.

use futures::StreamExt;
use serde_json::json;
use twinwire::protocol::control::ControlRequestBody;
use twinwire::protocol::Message;

use crate::{kinds, script, the_result, turn, within, Scenario};

#[tokio::test]
async fn interrupt_mid_stream_then_a_normal_turn() {
    let s = Scenario::start(script(
        json!([
            {"when": {"last_user_text_contains": "tell a long story"},
             "reply": {"slow_text": {"text": "once upon a time there was a very long story that went on and on",
                                     "deltas": 40, "delay_ms": 100}}},
            {"when": {"last_user_text_contains": "short one"}, "reply": {"text": "the end"}}
        ]),
        json!({"text": "unexpected"}),
    ))
    .await;
    let client = s
        .connect(s.builder().include_partial_messages(true).build().unwrap())
        .await;
    within(client.send("tell a long story")).await.unwrap();
    let mut deltas = 0;
    let mut interrupted = false;
    let mut seen = Vec::new();
    let result = loop {
        let message = within(client.receive())
            .await
            .expect("the CLI is still there")
            .expect("a message");
        seen.push(message.kind());
        if let Message::StreamEvent(event) = &message {
            if event.event.tag() == "content_block_delta" {
                deltas += 1;
                if deltas == 3 && !interrupted {
                    let response = within(client.interrupt()).await.unwrap();
                    let response = serde_json::to_value(response).unwrap();
                    assert_eq!(response["still_queued"], json!([]), "{response}");
                    interrupted = true;
                }
            }
        }
        if let Message::Result(result) = message {
            break result;
        }
    };
    assert!(interrupted, "{seen:?}");
    assert_eq!(
        result.subtype.as_str(),
        "error_during_execution",
        "{result:?}"
    );
    assert_eq!(
        result.terminal_reason.as_ref().map(|r| r.as_str()),
        Some("aborted_streaming"),
        "{result:?}"
    );
    // Stopped early: far fewer than the 40 deltas the model would have sent (4 s of them).
    assert!(deltas < 20, "{deltas} deltas: {seen:?}");

    let items = turn(&client, "short one").await;
    let result = the_result(&items);
    assert!(!result.is_error, "{result:?}");
    assert_eq!(result.text(), Some("the end"), "{}", kinds(&items));
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn set_model_changes_the_model_of_the_next_request() {
    let s = Scenario::start(script(json!([]), json!({"text": "ok"}))).await;
    let client = s
        .connect(s.builder().model("claude-sonnet-4-5").build().unwrap())
        .await;
    let items = turn(&client, "first question").await;
    assert!(!the_result(&items).is_error);
    within(client.set_model(Some("claude-haiku-4-5")))
        .await
        .unwrap();
    let items = turn(&client, "second question").await;
    assert!(!the_result(&items).is_error);
    let first = s.requests_for("first question");
    let second = s.requests_for("second question");
    assert_eq!(first.len(), 1);
    assert_eq!(second.len(), 1);
    assert_eq!(first[0]["model"], "claude-sonnet-4-5");
    assert_eq!(second[0]["model"], "claude-haiku-4-5");
    let init = crate::inits(&items);
    assert_eq!(init[0].model, "claude-haiku-4-5");
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn get_context_usage_returns_typed_usage() {
    let s = Scenario::start(script(json!([]), json!({"text": "ok"}))).await;
    let client = s.connect(s.options()).await;
    let items = turn(&client, "fill the context a little").await;
    assert!(!the_result(&items).is_error);
    let usage = within(client.get_context_usage()).await.unwrap();
    assert!(usage.max_tokens > 0, "{usage:?}");
    assert!(usage.total_tokens > 0, "{usage:?}");
    assert!(usage.total_tokens <= usage.max_tokens, "{usage:?}");
    assert!(!usage.categories.is_empty(), "{usage:?}");
    assert!(!usage.model.is_empty(), "{usage:?}");
    let sum: u64 = usage.categories.iter().map(|c| c.tokens).sum();
    assert!(sum > 0, "{usage:?}");
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn an_unknown_subtype_is_answered_with_an_error_and_the_session_goes_on() {
    let s = Scenario::start(script(json!([]), json!({"text": "still here"}))).await;
    let client = s.connect(s.options()).await;
    let unknown: ControlRequestBody =
        serde_json::from_value(json!({"subtype": "definitely_not_a_subtype"})).unwrap();
    let error = within(client.request_raw(unknown))
        .await
        .expect_err("the CLI refuses a subtype it does not know");
    assert!(
        error.to_string().contains("definitely_not_a_subtype"),
        "{error}"
    );
    // Answered or not (older CLIs never answer, and exit on a withdrawal they cannot read, so
    // twinwire does not send them one), the session goes on.
    let items = turn(&client, "are you there").await;
    assert_eq!(the_result(&items).text(), Some("still here"));
    within(client.close()).await.unwrap();
    assert!(!error.is_timeout(), "the CLI never answered: {error}");
}

#[tokio::test]
async fn set_max_thinking_tokens_reaches_the_next_request() {
    let s = Scenario::start(script(json!([]), json!({"text": "ok"}))).await;
    // A model with a thinking budget (the newest models think adaptively instead).
    let client = s
        .connect(s.builder().model("claude-sonnet-4-5").build().unwrap())
        .await;
    let items = turn(&client, "before the change").await;
    assert!(!the_result(&items).is_error);
    within(client.set_max_thinking_tokens(Some(4096)))
        .await
        .unwrap();
    let items = turn(&client, "after the change").await;
    assert!(!the_result(&items).is_error);
    let before = s.requests_for("before the change");
    let after = s.requests_for("after the change");
    assert_eq!(after.len(), 1, "{after:?}");
    assert_ne!(before[0]["thinking"], after[0]["thinking"]);
    assert_eq!(
        after[0]["thinking"]["budget_tokens"], 4096,
        "{}",
        after[0]["thinking"]
    );
    within(client.close()).await.unwrap();
}

/// An interrupt with no turn running is answered and changes nothing (and the host can tell
/// there was none); one sent at once after a prompt, before the CLI has begun the turn, still
/// ends that turn; the session goes on.
#[tokio::test]
async fn an_interrupt_when_idle_or_at_once_is_answered_and_the_session_goes_on() {
    let s = Scenario::start(script(
        json!([
            {"when": {"last_user_text_contains": "fresh question"}, "reply": {"text": "fresh answer"}},
            {"when": {"last_user_text_contains": "tell a long story"},
             "reply": {"slow_text": {"text": "once upon a time there was a very long story that went on and on",
                                     "deltas": 40, "delay_ms": 100}}}
        ]),
        json!({"text": "unexpected"}),
    ))
    .await;
    let client = s.connect(s.builder().build().unwrap()).await;
    assert!(!client.is_turn_running());
    within(client.interrupt())
        .await
        .unwrap_or_else(|err| panic!("an idle interrupt: {err}\nstderr:\n{}", s.stderr()));
    assert!(!client.is_turn_running());

    within(client.send("tell a long story")).await.unwrap();
    assert!(client.is_turn_running());
    within(client.interrupt())
        .await
        .unwrap_or_else(|err| panic!("an interrupt at once: {err}\nstderr:\n{}", s.stderr()));
    let items = within(client.receive_response().collect::<Vec<_>>()).await;
    let result = the_result(&items);
    assert_eq!(
        result.subtype.as_str(),
        "error_during_execution",
        "{}: {result:?}",
        kinds(&items)
    );
    assert!(
        !format!("{items:?}").contains("went on and on"),
        "the story was told: {}",
        kinds(&items)
    );
    assert!(!client.is_turn_running());

    let items = turn(&client, "fresh question").await;
    assert_eq!(
        the_result(&items).text(),
        Some("fresh answer"),
        "{}",
        kinds(&items)
    );
    within(client.close()).await.unwrap();
}
