//! The engine over in-memory pipes, against a peer scripted line by line.

use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use futures::StreamExt;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use twinwire_protocol::control::{ControlRequestBody, InterruptRequest};

use super::*;

/// The far end of the pipes: writes raw lines, reads what the engine wrote.
struct ScriptedPeer {
    lines: Lines<BufReader<DuplexStream>>,
    writer: DuplexStream,
}

impl ScriptedPeer {
    async fn write(&mut self, frame: Value) {
        self.write_raw(&frame.to_string()).await;
    }

    async fn write_raw(&mut self, line: &str) {
        self.writer.write_all(line.as_bytes()).await.unwrap();
        self.writer.write_all(b"\n").await.unwrap();
    }

    async fn read(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(5), self.lines.next_line())
            .await
            .expect("the engine wrote nothing within 5 s")
            .unwrap()
            .expect("the engine closed its output");
        serde_json::from_str(&line).unwrap()
    }

    /// Asserts nothing is written within `wait`.
    async fn read_nothing(&mut self, wait: Duration) {
        if let Ok(line) = tokio::time::timeout(wait, self.lines.next_line()).await {
            panic!("expected silence, got {line:?}");
        }
    }
}

fn start_with(
    handler: Arc<dyn ControlHandler>,
    config: EngineConfig,
    end_cause: EndCause,
) -> (Connection, Inbound<Message>, ScriptedPeer) {
    let (our_reader, peer_writer) = tokio::io::duplex(1 << 20);
    let (peer_reader, our_writer) = tokio::io::duplex(1 << 20);
    let (connection, inbound) =
        Connection::start::<HostSide, _, _>(our_reader, our_writer, handler, config, end_cause);
    let peer = ScriptedPeer {
        lines: BufReader::new(peer_reader).lines(),
        writer: peer_writer,
    };
    (connection, inbound, peer)
}

fn start(handler: Arc<dyn ControlHandler>) -> (Connection, Inbound<Message>, ScriptedPeer) {
    start_with(
        handler,
        EngineConfig::default(),
        Box::new(|_| Box::pin(async { Error::Closed })),
    )
}

/// Answers `can_use_tool` with allow after an optional delay; panics on `hook_callback`.
struct TestHandler {
    delay: Duration,
    served: AtomicUsize,
}

crate::engine::serving_handler!(TestHandler);

impl TestHandler {
    fn serve(
        &self,
        request: ControlRequestBody,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        self.served.fetch_add(1, Ordering::SeqCst);
        let delay = self.delay;
        Box::pin(async move {
            match request {
                ControlRequestBody::CanUseTool(req) => {
                    tokio::time::sleep(delay).await;
                    Ok(json!({"behavior": "allow", "updatedInput": req.input, "id": cx.request_id}))
                }
                ControlRequestBody::HookCallback(_) => panic!("hook exploded"),
                other => Err(HandlerError::unsupported(other.tag())),
            }
        })
    }
}

fn handler(delay: Duration) -> Arc<TestHandler> {
    Arc::new(TestHandler {
        delay,
        served: AtomicUsize::new(0),
    })
}

fn can_use_tool(id: &str) -> Value {
    json!({"type": "control_request", "request_id": id, "request": {
        "subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "touch x"},
        "permission_suggestions": []}})
}

fn success(id: &str, payload: Value) -> Value {
    json!({"type": "control_response", "response": {"subtype": "success", "request_id": id, "response": payload}})
}

#[tokio::test]
async fn serves_the_peers_request_while_waiting_for_its_own_answer() {
    let (connection, _inbound, mut peer) = start(handler(Duration::ZERO));
    let ours = tokio::spawn({
        let connection = connection.clone();
        async move { connection.request(InterruptRequest::default()).await }
    });
    let sent = peer.read().await;
    assert_eq!(sent["request"]["subtype"], "interrupt");
    let our_id = sent["request_id"].as_str().unwrap().to_owned();
    // The peer asks first and answers only once it has its own answer (as the CLI does with
    // an SDK MCP server before the initialize response).
    peer.write(can_use_tool("cli-1")).await;
    let answer = peer.read().await;
    assert_eq!(answer["response"]["request_id"], "cli-1");
    assert_eq!(answer["response"]["response"]["behavior"], "allow");
    peer.write(success(&our_id, json!({"still_queued": []})))
        .await;
    ours.await.unwrap().unwrap();
}

#[tokio::test]
async fn duplicate_and_unknown_response_ids_are_ignored() {
    let (connection, mut inbound, mut peer) = start(handler(Duration::ZERO));
    let ours = tokio::spawn({
        let connection = connection.clone();
        async move { connection.request(InterruptRequest::default()).await }
    });
    let id = peer.read().await["request_id"].as_str().unwrap().to_owned();
    peer.write(success("no-such-id", json!({}))).await;
    peer.write(success(&id, json!({}))).await;
    peer.write(success(&id, json!({}))).await;
    ours.await.unwrap().unwrap();
    // The connection still works, and nothing leaked to the data plane.
    peer.write(json!({"type": "keep_alive"})).await;
    peer.write(
        json!({"type": "prompt_suggestion", "suggestion": "next", "uuid": "u", "session_id": "s"}),
    )
    .await;
    let next = inbound.next().await.unwrap().unwrap();
    assert_eq!(next.kind(), "prompt_suggestion");
    assert_eq!(connection.pending_requests(), 0);
}

#[tokio::test(start_paused = true)]
async fn a_request_times_out_and_is_withdrawn() {
    let config = EngineConfig {
        request_timeout: Duration::from_secs(3),
        ..EngineConfig::default()
    };
    let (connection, _inbound, mut peer) = start_with(
        handler(Duration::ZERO),
        config,
        Box::new(|_| Box::pin(async { Error::Closed })),
    );
    let ours = tokio::spawn({
        let connection = connection.clone();
        async move { connection.request(InterruptRequest::default()).await }
    });
    let id = peer.read().await["request_id"].as_str().unwrap().to_owned();
    let err = ours.await.unwrap().unwrap_err();
    assert!(err.is_timeout(), "{err}");
    let cancel = peer.read().await;
    assert_eq!(
        cancel,
        json!({"type": "control_cancel_request", "request_id": id})
    );
    // A late answer is ignored.
    peer.write(success(&id, json!({}))).await;
    assert_eq!(connection.pending_requests(), 0);
}

#[tokio::test(start_paused = true)]
async fn an_abandoned_request_is_not_withdrawn_from_a_peer_that_cannot_take_it() {
    let config = EngineConfig {
        request_timeout: Duration::from_secs(3),
        withdraw_abandoned: false,
        ..EngineConfig::default()
    };
    let (connection, _inbound, mut peer) = start_with(
        handler(Duration::ZERO),
        config,
        Box::new(|_| Box::pin(async { Error::Closed })),
    );
    let first = tokio::spawn({
        let connection = connection.clone();
        async move { connection.request(InterruptRequest::default()).await }
    });
    let id = peer.read().await["request_id"].as_str().unwrap().to_owned();
    assert!(first.await.unwrap().unwrap_err().is_timeout());
    // The next line the peer reads is the next request, not a cancel of the first.
    let second = tokio::spawn({
        let connection = connection.clone();
        async move { connection.request(InterruptRequest::default()).await }
    });
    let next = peer.read().await;
    assert_eq!(next["type"], "control_request", "{next}");
    assert_ne!(next["request_id"], json!(id));
    peer.write(success(next["request_id"].as_str().unwrap(), json!({})))
        .await;
    second.await.unwrap().unwrap();
    // The first one's late answer is dropped as a stray.
    peer.write(success(&id, json!({}))).await;
    assert_eq!(connection.pending_requests(), 0);
}

#[tokio::test]
async fn the_peer_can_withdraw_a_slow_request() {
    let handler = handler(Duration::from_secs(3600));
    let (_connection, _inbound, mut peer) = start(handler.clone());
    peer.write(can_use_tool("slow")).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(handler.served.load(Ordering::SeqCst), 1);
    peer.write(json!({"type": "control_cancel_request", "request_id": "slow"}))
        .await;
    peer.read_nothing(Duration::from_millis(200)).await;
    // Still serving others.
    let fast = Arc::new(TestHandler {
        delay: Duration::ZERO,
        served: AtomicUsize::new(0),
    });
    let (_c, _i, mut peer) = start(fast);
    peer.write(can_use_tool("fast")).await;
    assert_eq!(peer.read().await["response"]["request_id"], "fast");
}

#[tokio::test]
async fn a_panicking_handler_answers_with_an_error_and_the_connection_lives_on() {
    let (_connection, _inbound, mut peer) = start(handler(Duration::ZERO));
    peer.write(
        json!({"type": "control_request", "request_id": "h1", "request": {
        "subtype": "hook_callback", "callback_id": "hook_0", "tool_use_id": null,
        "input": {"hook_event_name": "Stop", "session_id": "s", "transcript_path": "/t",
                  "cwd": "/", "stop_hook_active": false}}}),
    )
    .await;
    let answer = peer.read().await;
    assert_eq!(answer["response"]["subtype"], "error");
    assert!(answer["response"]["error"]
        .as_str()
        .unwrap()
        .contains("hook exploded"));
    peer.write(can_use_tool("after")).await;
    assert_eq!(peer.read().await["response"]["subtype"], "success");
}

#[tokio::test]
async fn a_malformed_request_is_answered_with_an_error_not_left_hanging() {
    let (_connection, mut inbound, mut peer) = start(handler(Duration::ZERO));
    // No subtype: the request cannot be routed, but its id can be read and answered.
    peer.write(
        json!({"type": "control_request", "request_id": "bad", "request": {
        "tool_name": "Bash", "input": {}}}),
    )
    .await;
    let answer = peer.read().await;
    assert_eq!(answer["response"]["subtype"], "error");
    assert_eq!(answer["response"]["request_id"], "bad");
    let error = answer["response"]["error"].as_str().unwrap();
    assert!(error.contains("subtype"), "{error}");
    // A missing field that does not route is read as its default: served.
    peer.write(
        json!({"type": "control_request", "request_id": 7, "request": {
        "subtype": "can_use_tool", "input": {}}}),
    )
    .await;
    let answer = peer.read().await;
    assert_eq!(answer["response"]["subtype"], "success", "{answer}");
    assert_eq!(
        answer["response"]["request_id"], 7,
        "a numeric id is answered as a number"
    );
    // The malformed frame still reaches the user, with its raw JSON.
    drop(peer);
    let first = inbound.recv().await.unwrap().unwrap();
    let Message::ControlRequest(request) = first else {
        panic!("not delivered: {first:?}");
    };
    assert_eq!(request.request_id, "bad");
    let malformed = request.request.as_malformed().expect("its body kept raw");
    assert_eq!(malformed.raw, json!({"tool_name": "Bash", "input": {}}));
}

#[tokio::test]
async fn unsupported_requests_get_the_unsupported_error_code() {
    let (_connection, _inbound, mut peer) = start(Arc::new(NoHandler));
    peer.write(
        json!({"type": "control_request", "request_id": "x", "request": {"subtype": "brand_new"}}),
    )
    .await;
    let answer = peer.read().await;
    assert_eq!(answer["response"]["error_code"], "unsupported_request");
}

#[tokio::test]
async fn end_of_output_fails_pending_requests_at_once_with_the_cause() {
    let cause = Error::ProcessExited {
        code: Some(3),
        signal: None,
        reason: crate::error::EndReason::Exited,
        stderr_tail: "boom".into(),
    };
    let (connection, mut inbound, mut peer) = start_with(
        handler(Duration::ZERO),
        EngineConfig::default(),
        Box::new(move |_| Box::pin(async move { cause })),
    );
    let ours = tokio::spawn({
        let connection = connection.clone();
        async move { connection.request(InterruptRequest::default()).await }
    });
    peer.read().await;
    drop(peer);
    let err = tokio::time::timeout(Duration::from_secs(1), ours)
        .await
        .expect("failed at once, not after the 60 s timeout")
        .unwrap()
        .unwrap_err();
    assert_eq!(err.stderr_tail(), Some("boom"));
    // The data plane ends with the same cause.
    let last = inbound.next().await.unwrap().unwrap_err();
    assert!(matches!(last, Error::ProcessExited { code: Some(3), .. }));
    assert!(inbound.next().await.is_none());
    // And later requests fail the same way without waiting.
    let later = connection
        .request(InterruptRequest::default())
        .await
        .unwrap_err();
    assert!(matches!(later, Error::ProcessExited { code: Some(3), .. }));
}

#[tokio::test]
async fn bad_lines_are_reported_in_order_and_reading_goes_on() {
    let config = EngineConfig {
        max_line_length: 1000,
        ..EngineConfig::default()
    };
    let (_connection, inbound, mut peer) = start_with(
        handler(Duration::ZERO),
        config,
        Box::new(|_| Box::pin(async { Error::Closed })),
    );
    peer.write_raw("[SandboxDebug] not json").await;
    let long = format!("{{\"type\":\"assistant\",\"x\":\"{}\"}}", "y".repeat(5000));
    peer.write_raw(&long).await;
    peer.write(json!({"type": "result", "subtype": "success"}))
        .await;
    peer.write(json!({"type": "hologram", "beam": 1})).await;
    peer.write(
        json!({"type": "prompt_suggestion", "suggestion": "s", "uuid": "u", "session_id": "s"}),
    )
    .await;
    drop(peer);
    let items: Vec<_> = inbound.collect().await;
    assert_eq!(items.len(), 5, "{items:?}");
    assert!(matches!(&items[0], Err(Error::Decode { line: 1, .. })));
    assert!(
        matches!(&items[1], Err(Error::Line(LineError::TooLong { len, .. })) if *len == long.len())
    );
    // A frame with only its routing fields is typed (every other field defaults).
    assert_eq!(items[2].as_ref().unwrap().kind(), "result/success");
    let unknown = items[3].as_ref().unwrap();
    assert_eq!(unknown.unknown_kind().as_deref(), Some("hologram"));
    assert_eq!(items[4].as_ref().unwrap().kind(), "prompt_suggestion");
}

use twinwire_protocol::framing::LineError;

/// Answers every request at once, without waiting: served inline by the reader.
struct ReadyHandler;

crate::engine::serving_handler!(ReadyHandler);

impl ReadyHandler {
    fn serve(
        &self,
        request: ControlRequestBody,
        _cx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let outcome = match request {
            ControlRequestBody::CanUseTool(req) => {
                Ok(json!({"behavior": "allow", "updatedInput": req.input}))
            }
            ControlRequestBody::Interrupt(_) => panic!("exploded before returning a future"),
            other => Err(HandlerError::unsupported(other.tag())),
        };
        Box::pin(futures::future::ready(outcome))
    }
}

#[tokio::test]
async fn ready_answers_are_written_in_order_and_a_ready_panic_is_an_error() {
    let (_connection, _inbound, mut peer) = start(Arc::new(ReadyHandler));
    peer.write(can_use_tool("r1")).await;
    peer.write(json!({"type": "control_request", "request_id": "r2",
        "request": {"subtype": "interrupt"}}))
        .await;
    peer.write(can_use_tool("r3")).await;
    let first = peer.read().await;
    assert_eq!(first["response"]["request_id"], "r1");
    assert_eq!(first["response"]["response"]["behavior"], "allow");
    let second = peer.read().await;
    assert_eq!(second["response"]["request_id"], "r2");
    assert_eq!(second["response"]["subtype"], "error");
    assert!(second["response"]["error"]
        .as_str()
        .unwrap()
        .contains("exploded before returning a future"));
    assert_eq!(peer.read().await["response"]["request_id"], "r3");
}

#[tokio::test]
async fn bulk_frames_are_decoded_in_order_when_taken() {
    let observed = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (our_reader, mut peer_writer) = tokio::io::duplex(1 << 20);
    let (_peer_reader, our_writer) = tokio::io::duplex(1 << 20);
    let seen = Arc::clone(&observed);
    let (_connection, mut inbound) = Connection::start_observed::<HostSide, _, _>(
        our_reader,
        our_writer,
        Arc::new(NoHandler),
        EngineConfig::default(),
        Box::new(|_| Box::pin(async { Error::Closed })),
        Some(Box::new(
            move |message: Message, _: &crate::engine::Settings<'_>| {
                seen.lock().unwrap().push(message.kind());
                Some(message)
            },
        )),
    );
    let lines = [
        r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}},"session_id":"s","uuid":"u1","parent_tool_use_id":null}"#,
        // Deferred, and broken: the error comes in its place, with its line number.
        r#"{"type":"stream_event","event":{"type":"content_block_delta","index":"zero"},"session_id":"s","uuid":"u2"}"#,
        "not a frame",
        // Not in the leading-`type` shape: decoded by the reader, still in order.
        r#"{"uuid":"u3","type":"stream_event","event":{"type":"message_stop"},"session_id":"s","parent_tool_use_id":null}"#,
        r#"{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"duration_api_ms":1,"num_turns":1,"result":"ok","session_id":"s","total_cost_usd":0,"usage":{"input_tokens":1,"output_tokens":1},"modelUsage":{},"permission_denials":[],"uuid":"u4"}"#,
    ];
    for line in lines {
        peer_writer.write_all(line.as_bytes()).await.unwrap();
        peer_writer.write_all(b"\n").await.unwrap();
    }
    drop(peer_writer);
    let mut kinds = Vec::new();
    while let Some(item) = inbound.recv().await {
        kinds.push(match item {
            Ok(message) => message.kind(),
            Err(Error::Decode { line, .. }) => format!("error at line {line}"),
            Err(other) => panic!("unexpected {other}"),
        });
    }
    assert_eq!(
        kinds,
        [
            "stream_event",
            // An odd field is repaired (the delta, missing, is kept raw inside).
            "stream_event",
            "error at line 3",
            "stream_event",
            "result/success"
        ]
    );
    // The observer sees what the reader decoded, not the bulk frames it passed on as text.
    assert_eq!(
        *observed.lock().unwrap(),
        ["stream_event", "result/success"]
    );
}

#[tokio::test]
async fn a_full_pipe_queues_frames_in_order_and_close_waits_for_them() {
    // 64 bytes of pipe: most frames cannot be written at once and go through the queue.
    let (our_reader, _peer_writer) = tokio::io::duplex(1 << 16);
    let (peer_reader, our_writer) = tokio::io::duplex(64);
    let (connection, _inbound) = Connection::start::<HostSide, _, _>(
        our_reader,
        our_writer,
        Arc::new(NoHandler),
        EngineConfig::default(),
        Box::new(|_| Box::pin(async { Error::Closed })),
    );
    for i in 0..200 {
        connection
            .send(&json!({"type": "user", "n": i, "pad": "x".repeat(i % 50)}))
            .unwrap();
    }
    connection.close_input();
    assert!(
        connection.send(&json!({"type": "user"})).is_err(),
        "nothing is sent after close"
    );
    let mut lines = BufReader::new(peer_reader).lines();
    for i in 0..200 {
        let line = tokio::time::timeout(Duration::from_secs(5), lines.next_line())
            .await
            .expect("a frame within 5 s")
            .unwrap()
            .expect("the input closed early");
        let frame: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(frame["n"], i);
    }
    let end = tokio::time::timeout(Duration::from_secs(5), lines.next_line())
        .await
        .expect("EOF within 5 s")
        .unwrap();
    assert!(end.is_none(), "the input is closed after the last frame");
}

mod flow;
mod memory;
