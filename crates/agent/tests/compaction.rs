//! Compaction over real pipes: `/compact` with instructions, a prompt the API refuses as too
//! long, compacted and asked again once, and a compacted session resumed by the other program
//! (twinwire-agent's in Claude Code, Claude Code's in twinwire-agent); the model is
//! `twinwire model-server`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::{json, Value};
use support::agent::{json, mentions, result, turn, World};
use twinwire::options::OptionsBuilder;
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

/// A session started by `first`, compacted, then resumed by `second` in the same home and
/// directory: the resumed session's next request starts from the summary.
async fn compacted_then_resumed(
    first: fn(&World) -> OptionsBuilder,
    second: fn(&World) -> OptionsBuilder,
) {
    let world = World::new(json!({"rules": [
        {"when": {"last_user_text_contains": "hello"}, "reply": {"text": "greetings back"}},
        {"when": {"last_user_text_contains": "what now"}, "reply": {"text": "going on"}}
    ], "default": {"text": "SUMMARY: the user greeted"}}))
    .await;
    std::fs::create_dir_all(world.home.join("tmp")).unwrap();
    let client = Client::connect(first(&world).build().unwrap())
        .await
        .unwrap();
    client.send("hello").await.unwrap();
    turn(&client).await;
    client.send("/compact").await.unwrap();
    let frames = turn(&client).await;
    let session = result(&frames).session_id.clone();
    assert_eq!(boundaries(&json(&frames)).len(), 1, "{:#?}", json(&frames));
    client.close().await.unwrap();

    let client = Client::connect(second(&world).resume(&session).build().unwrap())
        .await
        .unwrap();
    client.send("what now").await.unwrap();
    let frames = turn(&client).await;
    assert_eq!(result(&frames).result.as_deref(), Some("going on"));
    client.close().await.unwrap();
    let next = world.model_requests().pop().unwrap();
    assert!(
        mentions(&next["messages"], "SUMMARY: the user greeted"),
        "{}",
        next["messages"]
    );
    assert!(
        !mentions(&next["messages"], "greetings back"),
        "the talk before the boundary stays behind it: {}",
        next["messages"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_the_agent_compacted_resumes_in_claude_code() {
    compacted_then_resumed(World::options, World::claude_options).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_claude_code_compacted_resumes_in_the_agent() {
    compacted_then_resumed(World::claude_options, World::options).await;
}
