//! The model client against real HTTP servers: `twinwire model-server` (the scripted Messages
//! API) and a scripted socket for retries.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use support::http::{Answer, ScriptedServer};
use twinwire_agent::model::assemble::Assembler;
use twinwire_agent::model::{MessagesRequest, ModelClient, ModelError, SystemBlock};
use twinwire_model_server::{ModelScript, ModelServer};
use twinwire_protocol::content::{ContentBlock, MessageParam};

fn request(prompt: &str) -> MessagesRequest {
    MessagesRequest {
        model: "claude-sonnet-4-5".into(),
        max_tokens: 1024,
        system: vec![SystemBlock::text("be brief")],
        messages: vec![MessageParam::user(prompt)],
        tools: Vec::new(),
        thinking: None,
        context_management: None,
        output_config: None,
        stream: true,
        metadata: None,
    }
}

fn client(url: &str, extra: &[(&str, &str)]) -> ModelClient {
    let mut env: BTreeMap<String, String> = BTreeMap::new();
    env.insert("ANTHROPIC_BASE_URL".into(), url.into());
    env.insert("ANTHROPIC_API_KEY".into(), "sk-test".into());
    for (k, v) in extra {
        env.insert((*k).into(), (*v).into());
    }
    ModelClient::from_env(|name| env.get(name).cloned()).unwrap()
}

/// Streams a whole reply and folds it.
async fn reply(client: &ModelClient, request: &MessagesRequest) -> Result<Assembler, ModelError> {
    let mut stream = client.stream(request, |_| {}).await?;
    let mut assembler = Assembler::new();
    while let Some(event) = stream.next().await {
        assembler.apply(&event?).map_err(ModelError::Stream)?;
    }
    Ok(assembler)
}

#[tokio::test]
async fn a_streamed_tool_call_arrives_whole_from_the_model_server() {
    let script: ModelScript = serde_json::from_value(json!({
        "rules": [{"when": {"last_user_text_contains": "list"},
                   "reply": {"tool_use": {"name": "Bash", "text": "Listing.", "input": {"command": "ls -la", "description": "list"}}}}],
        "default": {"echo": true}
    }))
    .unwrap();
    let server = ModelServer::start(script).await.unwrap();
    let client = client(&server.url(), &[]);
    let assembler = reply(&client, &request("please list files")).await.unwrap();
    let message = assembler.message();
    assert_eq!(message.text(), "Listing.");
    let ContentBlock::ToolUse(call) = &message.content[1] else {
        panic!("{message:?}")
    };
    assert_eq!(call.name, "Bash");
    assert_eq!(
        call.input,
        json!({"command": "ls -la", "description": "list"})
    );
    assert_eq!(assembler.usage().output_tokens, 20);
    let seen = &server.requests()[0];
    let header = |name: &str| {
        seen.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(header("x-api-key").as_deref(), Some("<redacted>"));
    assert_eq!(header("anthropic-version").as_deref(), Some("2023-06-01"));
    assert_eq!(seen.body["stream"], true);
    assert_eq!(seen.body["system"][0]["text"], "be brief");
    server.shutdown().await;
}

#[tokio::test]
async fn a_bearer_token_is_sent_when_there_is_no_key() {
    let server = ModelServer::start(ModelScript::default()).await.unwrap();
    let env: BTreeMap<String, String> = [
        ("ANTHROPIC_BASE_URL".to_owned(), server.url()),
        ("ANTHROPIC_AUTH_TOKEN".to_owned(), "tok".to_owned()),
    ]
    .into();
    let client = ModelClient::from_env(|n| env.get(n).cloned()).unwrap();
    let text = reply(&client, &request("hi"))
        .await
        .unwrap()
        .message()
        .text();
    assert_eq!(text, "You said: hi");
    let seen = &server.requests()[0];
    assert!(seen.headers.iter().any(|(n, _)| n == "authorization"));
    assert!(!seen.headers.iter().any(|(n, _)| n == "x-api-key"));
    server.shutdown().await;
}

#[tokio::test]
async fn no_credentials_sends_nothing() {
    let server = ModelServer::start(ModelScript::default()).await.unwrap();
    let env: BTreeMap<String, String> = [("ANTHROPIC_BASE_URL".to_owned(), server.url())].into();
    let client = ModelClient::from_env(|n| env.get(n).cloned()).unwrap();
    let err = reply(&client, &request("hi")).await.err().unwrap();
    assert_eq!(err, ModelError::NoCredentials);
    assert!(server.requests().is_empty());
    server.shutdown().await;
}

#[tokio::test]
async fn a_400_is_not_retried_and_says_what_the_api_said() {
    let script: ModelScript = serde_json::from_value(json!({
        "rules": [], "default": {"error": {"status": 400, "message": "bad request body"}}
    }))
    .unwrap();
    let server = ModelServer::start(script).await.unwrap();
    let client = client(&server.url(), &[]);
    let err = reply(&client, &request("hi")).await.err().unwrap();
    assert_eq!(err.status(), Some(400));
    assert_eq!(err.to_string(), "API Error: 400 bad request body");
    assert_eq!(server.message_requests().len(), 1);
    server.shutdown().await;
}

#[tokio::test]
async fn a_429_is_retried_after_the_wait_the_api_named() {
    let done = [
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [], "usage": {"input_tokens": 3, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "after the wait"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 4}}),
        json!({"type": "message_stop"}),
    ];
    let server = ScriptedServer::start(vec![
        Answer::error(429, "rate_limit_error", &[("retry-after", "1")]),
        Answer::events(&done),
    ])
    .await;
    let client = client(&server.url, &[]);
    let notices = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&notices);
    let mut stream = client
        .stream(&request("hi"), move |notice| {
            log.lock().unwrap().push(notice)
        })
        .await
        .unwrap();
    let mut assembler = Assembler::new();
    while let Some(event) = stream.next().await {
        assembler.apply(&event.unwrap()).unwrap();
    }
    assert_eq!(assembler.message().text(), "after the wait");
    let seen = server.requests();
    assert_eq!(seen.len(), 2);
    assert!(
        seen[1].at - seen[0].at >= Duration::from_secs(1),
        "retried before the wait"
    );
    let notices = notices.lock().unwrap();
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0].status, Some(429));
    assert_eq!(notices[0].delay, Duration::from_secs(1));
}

#[tokio::test]
async fn overload_is_retried_as_often_as_allowed_then_reported() {
    let server = ScriptedServer::start(vec![Answer::error(
        529,
        "overloaded_error",
        &[("retry-after-ms", "10")],
    )])
    .await;
    let client = client(&server.url, &[("CLAUDE_CODE_MAX_RETRIES", "2")]);
    let err = reply(&client, &request("hi")).await.err().unwrap();
    assert_eq!(err.status(), Some(529));
    assert!(
        err.to_string().contains("scripted overloaded_error"),
        "{err}"
    );
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn a_refused_connection_is_a_connection_error() {
    // A port that was free a moment ago and has no listener now.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let client = client(
        &format!("http://127.0.0.1:{port}"),
        &[("CLAUDE_CODE_MAX_RETRIES", "0")],
    );
    let err = reply(&client, &request("hi")).await.err().unwrap();
    assert!(matches!(err, ModelError::Connection(_)), "{err:?}");
}
