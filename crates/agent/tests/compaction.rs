//! Compaction over real pipes: `/compact` with instructions, and a prompt the API refuses as too
//! long, compacted and asked again once; the model is `twinwire model-server`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::{json, Value};
use support::agent::{json, mentions, result, turn, World};
use twinwire::Client;

/// The `compact_boundary` frames of a turn.
fn boundaries(frames: &[Value]) -> Vec<&Value> {
    frames
        .iter()
        .filter(|f| f["type"] == "system" && f["subtype"] == "compact_boundary")
        .collect()
}

/// The rule that answers the summary request.
fn summary_rule() -> Value {
    json!({"when": {"last_user_text_contains": "write a summary of the conversation"},
           "reply": {"text": "SUMMARY: the user greeted"}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compact_replaces_the_conversation_with_the_summary() {
    let world = World::new(json!({"rules": [
        summary_rule(),
        {"when": {"last_user_text_contains": "hello"}, "reply": {"text": "greetings back"}},
        {"when": {"last_user_text_contains": "what now"}, "reply": {"text": "going on"}}
    ], "default": {"text": "unexpected"}}))
    .await;
    let client = Client::connect(world.options().build().unwrap())
        .await
        .unwrap();
    client.send("hello").await.unwrap();
    turn(&client).await;

    client.send("/compact keep the greeting").await.unwrap();
    let frames = turn(&client).await;
    let end = result(&frames);
    assert!(!end.is_error, "{end:?}");
    let frames = json(&frames);
    let found = boundaries(&frames);
    assert_eq!(found.len(), 1, "{frames:#?}");
    assert_eq!(found[0]["compact_metadata"]["trigger"], "manual");
    let requests = world.model_requests();
    let summary = requests
        .iter()
        .find(|r| mentions(&r["messages"], "write a summary of the conversation"))
        .expect("a summary request");
    assert!(mentions(&summary["messages"], "keep the greeting"));
    assert!(mentions(&summary["messages"], "greetings back"));
    assert!(summary["tools"].as_array().is_none_or(Vec::is_empty));

    client.send("what now").await.unwrap();
    let frames = turn(&client).await;
    assert_eq!(result(&frames).result.as_deref(), Some("going on"));
    let next = world.model_requests().pop().unwrap();
    assert!(mentions(&next["messages"], "SUMMARY: the user greeted"));
    assert!(
        !mentions(&next["messages"], "greetings back"),
        "the conversation before the summary is gone: {}",
        next["messages"]
    );
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_too_long_is_compacted_and_asked_again_once() {
    let world = World::new(json!({"rules": [
        summary_rule(),
        {"when": {"last_user_text_contains": "hello"}, "reply": {"text": "greetings back"}},
        {"when": {"last_user_text_contains": "big question"}, "times": 1,
         "reply": {"error": {"status": 400,
                             "message": "prompt is too long: 210000 tokens > 200000 maximum"}}},
        {"when": {"last_user_text_contains": "big question"},
         "reply": {"text": "answered after compacting"}}
    ], "default": {"text": "unexpected"}}))
    .await;
    let client = Client::connect(world.options().build().unwrap())
        .await
        .unwrap();
    client.send("hello").await.unwrap();
    turn(&client).await;

    client.send("big question").await.unwrap();
    let frames = turn(&client).await;
    assert_eq!(
        result(&frames).result.as_deref(),
        Some("answered after compacting")
    );
    let frames = json(&frames);
    let found = boundaries(&frames);
    assert_eq!(found.len(), 1, "{frames:#?}");
    assert_eq!(found[0]["compact_metadata"]["trigger"], "auto");
    let last = world.model_requests().pop().unwrap();
    assert!(mentions(&last["messages"], "SUMMARY: the user greeted"));
    assert!(
        mentions(&last["messages"], "big question"),
        "the prompt is kept"
    );
    client.close().await.unwrap();
}
