//! A hostile Messages API changes nothing but the turn: the model client against raw sockets
//! that never answer, never end an error's body, send an endless reply, or redirect to another
//! origin; each call ends within its bounds and the key stays at the origin it was meant for.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::json;
use support::http::{raw_server, Answer, ScriptedServer};
use tokio::io::AsyncWriteExt;
use twinwire_agent::model::{MessagesRequest, ModelClient, ModelError, SystemBlock};
use twinwire_protocol::content::MessageParam;

fn request() -> MessagesRequest {
    MessagesRequest {
        model: "claude-sonnet-4-5".into(),
        max_tokens: 1024,
        system: vec![SystemBlock::text("be brief")],
        messages: vec![MessageParam::user("hi")],
        tools: Vec::new(),
        thinking: None,
        context_management: None,
        output_config: None,
        stream: true,
        metadata: None,
    }
}

fn client(url: &str) -> ModelClient {
    let env: BTreeMap<String, String> = [
        ("ANTHROPIC_BASE_URL", url),
        ("ANTHROPIC_API_KEY", "sk-hostile-test"),
        ("API_TIMEOUT_MS", "500"),
        ("CLAUDE_CODE_MAX_RETRIES", "0"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    ModelClient::from_env(|name| env.get(name).cloned()).unwrap()
}

/// The whole call: the stream opened and read to its end.
async fn call(client: &ModelClient) -> Result<(), ModelError> {
    let mut stream = client.stream(&request(), |_| {}).await?;
    while let Some(event) = stream.next().await {
        event?;
    }
    Ok(())
}

#[tokio::test]
async fn a_server_that_never_answers_is_given_up_on() {
    let url = raw_server(|_socket| async move {
        // Holds the connection and says nothing.
        tokio::time::sleep(Duration::from_secs(3600)).await;
    })
    .await;
    let started = Instant::now();
    let err = call(&client(&url)).await.unwrap_err();
    assert!(matches!(err, ModelError::Connection(_)), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(10), "{err}");
}

#[tokio::test]
async fn an_error_body_that_never_ends_is_taken_as_far_as_it_came() {
    let url = raw_server(|mut socket| async move {
        let head = "HTTP/1.1 500 X\r\ncontent-length: 1000000\r\n\r\n{\"type\":\"error\"";
        let _ = socket.write_all(head.as_bytes()).await;
        tokio::time::sleep(Duration::from_secs(3600)).await;
    })
    .await;
    let started = Instant::now();
    let err = call(&client(&url)).await.unwrap_err();
    assert_eq!(err.status(), Some(500), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn an_endless_reply_is_broken_off() {
    let url = raw_server(|mut socket| async move {
        let head = "HTTP/1.1 200 X\r\ncontent-type: text/event-stream\r\n\
                    transfer-encoding: chunked\r\n\r\n";
        if socket.write_all(head.as_bytes()).await.is_err() {
            return;
        }
        let start = json!({"type": "message_start", "message": {"id": "m", "type": "message",
            "role": "assistant", "model": "m", "content": [], "usage": {"input_tokens": 1,
            "output_tokens": 1}}});
        let block = json!({"type": "content_block_start", "index": 0,
                           "content_block": {"type": "text", "text": ""}});
        let first = format!("data: {start}\n\ndata: {block}\n\n");
        let delta = json!({"type": "content_block_delta", "index": 0,
                           "delta": {"type": "text_delta", "text": "x".repeat(60_000)}});
        let delta = format!("data: {delta}\n\n").repeat(16);
        for (n, piece) in std::iter::once(first)
            .chain(std::iter::repeat(delta))
            .enumerate()
        {
            let chunk = format!("{:x}\r\n{piece}\r\n", piece.len());
            if socket.write_all(chunk.as_bytes()).await.is_err() || n > 100_000 {
                return;
            }
        }
    })
    .await;
    let client = client(&url);
    let mut stream = client.stream(&request(), |_| {}).await.unwrap();
    let mut events = 0u64;
    let err = loop {
        match stream.next().await {
            Some(Ok(_)) => events += 1,
            Some(Err(err)) => break err,
            None => panic!("the endless reply ended"),
        }
    };
    assert!(err.to_string().contains("a reply over"), "{err}");
    assert!(
        events > 100,
        "the reply was read until its bound ({events} events)"
    );
}

#[tokio::test]
async fn a_redirect_to_another_origin_carries_no_key() {
    let elsewhere =
        ScriptedServer::start(vec![Answer::error(400, "invalid_request_error", &[])]).await;
    let target = format!("{}/v1/messages?beta=true", elsewhere.url);
    let url = raw_server(move |mut socket| {
        let target = target.clone();
        async move {
            let answer = format!(
                "HTTP/1.1 307 Temporary Redirect\r\nlocation: {target}\r\ncontent-length: 0\r\n\r\n"
            );
            let _ = socket.write_all(answer.as_bytes()).await;
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    })
    .await;
    let err = call(&client(&url)).await.unwrap_err();
    assert_eq!(err.status(), Some(307), "{err:?}");
    let reached: Vec<String> = elsewhere.requests().into_iter().map(|s| s.head).collect();
    assert!(
        reached.iter().all(|head| !head.contains("sk-hostile-test")),
        "the key went to the other origin: {reached:?}"
    );
    assert!(reached.is_empty(), "{reached:?}");
}
