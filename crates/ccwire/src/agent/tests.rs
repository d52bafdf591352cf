//! The agent side against ccwire's own host side, over in-memory pipes: the engine talking to
//! itself from both ends.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ccwire_protocol::control::{CanUseToolRequest, ControlRequestBody, InterruptRequest};
use ccwire_protocol::permission::PermissionResult;
use ccwire_protocol::{InputMessage, Message, UserMessage};
use futures::future::BoxFuture;
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::sync::Notify;

use super::*;
use crate::engine::{ControlHandler, HostSide, Inbound, RequestContext};

/// The host end: a connection plus its data plane.
struct Host {
    connection: Connection,
    inbound: Inbound<Message>,
}

impl Host {
    async fn next(&mut self) -> Message {
        tokio::time::timeout(Duration::from_secs(5), self.inbound.recv())
            .await
            .expect("the agent wrote nothing within 5 s")
            .expect("the agent closed")
            .expect("a frame that decodes")
    }

    /// Frames until (and including) the next result.
    async fn turn(&mut self) -> Vec<Message> {
        let mut frames = Vec::new();
        loop {
            let frame = self.next().await;
            let done = matches!(frame, Message::Result(_));
            frames.push(frame);
            if done {
                return frames;
            }
        }
    }

    fn send(&self, text: &str) {
        self.connection
            .send(&InputMessage::User(Box::new(UserMessage::new(text))))
            .unwrap();
    }
}

/// Starts `agent` and a host whose `can_use_tool` answers come from `permissions`.
fn start(agent: impl Agent, permissions: Arc<dyn ControlHandler>) -> Host {
    let (agent_reader, host_writer) = tokio::io::duplex(1 << 16);
    let (host_reader, agent_writer) = tokio::io::duplex(1 << 16);
    tokio::spawn(serve(
        agent_reader,
        agent_writer,
        agent,
        EngineConfig::default(),
    ));
    let (connection, inbound) = Connection::start::<HostSide, _, _>(
        host_reader,
        host_writer,
        permissions,
        EngineConfig::default(),
        Box::new(|| Box::pin(async { Error::Closed })),
    );
    Host {
        connection,
        inbound,
    }
}

/// Answers can_use_tool after `delay`, counting calls and noticing cancellations.
struct Permissions {
    delay: Duration,
    calls: AtomicUsize,
    cancelled: Arc<AtomicUsize>,
    answer: &'static str,
}

impl ControlHandler for Permissions {
    fn handle(
        &self,
        request: ControlRequestBody,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let delay = self.delay;
        let answer = self.answer;
        // Counts the handler being dropped unfinished: that is how the engine stops a request
        // the peer withdrew.
        let mut unfinished = DropCounter(Some(Arc::clone(&self.cancelled)));
        let _ = cx;
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            unfinished.disarm();
            match request {
                ControlRequestBody::CanUseTool(req) if answer == "allow" => {
                    Ok(json!({"behavior": "allow", "updatedInput": req.input}))
                }
                ControlRequestBody::CanUseTool(_) => {
                    Ok(json!({"behavior": "deny", "message": "host says no"}))
                }
                other => Err(HandlerError::unsupported(other.tag())),
            }
        })
    }
}

struct DropCounter(Option<Arc<AtomicUsize>>);

impl DropCounter {
    fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for DropCounter {
    fn drop(&mut self) {
        if let Some(counter) = &self.0 {
            counter.fetch_add(1, Ordering::SeqCst);
        }
    }
}

fn permissions(delay: Duration, answer: &'static str) -> Arc<Permissions> {
    Arc::new(Permissions {
        delay,
        calls: AtomicUsize::new(0),
        cancelled: Arc::new(AtomicUsize::new(0)),
        answer,
    })
}

fn echo() -> impl Agent {
    agent(|turn: Turn, session: Session| async move {
        session.say(&format!("echo: {}", turn.text()))?;
        session.success(&format!("echo: {}", turn.text()))
    })
}

fn kinds(frames: &[Message]) -> Vec<String> {
    frames.iter().map(Message::kind).collect()
}

#[tokio::test]
async fn a_turn_writes_state_init_assistant_result_then_idle() {
    let mut host = start(echo(), permissions(Duration::ZERO, "allow"));
    host.send("hi");
    let frames = host.turn().await;
    assert_eq!(
        kinds(&frames),
        [
            "system/session_state_changed",
            "system/init",
            "assistant",
            "result/success"
        ]
    );
    let Message::Result(result) = &frames[3] else {
        unreachable!()
    };
    assert_eq!(result.text(), Some("echo: hi"));
    assert!(!result.session_id.is_empty());
    assert_eq!(host.next().await.kind(), "system/session_state_changed");
}

#[tokio::test]
async fn messages_during_a_turn_are_queued_then_injected_at_the_boundary() {
    let gate = Arc::new(Notify::new());
    let opened = Arc::clone(&gate);
    let agent = agent(move |turn: Turn, session: Session| {
        let gate = Arc::clone(&opened);
        async move {
            if turn.text() == "first" {
                gate.notified().await;
                // A model-call boundary: take what arrived meanwhile.
                let queued = session.take_queued().map(|m| Turn { message: m }.text());
                return session.success(&format!("first + {queued:?}"));
            }
            session.success(&format!("later: {}", turn.text()))
        }
    });
    let mut host = start(agent, permissions(Duration::ZERO, "allow"));
    host.send("first");
    assert_eq!(host.next().await.kind(), "system/session_state_changed");
    assert_eq!(host.next().await.kind(), "system/init");
    host.send("second");
    host.send("third");
    for position in [1, 2] {
        let queued = host.next().await.to_value();
        assert_eq!(queued["subtype"], "queued");
        assert_eq!(queued["position"], position);
    }
    gate.notify_one();
    let injected = host.next().await.to_value();
    assert_eq!(injected["subtype"], "injected");
    assert_eq!(injected["message_count"], 2);
    let Message::Result(result) = host.next().await else {
        panic!()
    };
    assert_eq!(result.text(), Some("first + Some(\"second\\n\\nthird\")"));
    // Nothing was left queued, so no further turn starts.
    assert_eq!(host.next().await.to_value()["state"], "idle");
}

#[tokio::test]
async fn queued_messages_left_over_start_the_next_turn() {
    let gate = Arc::new(Notify::new());
    let opened = Arc::clone(&gate);
    let agent = agent(move |turn: Turn, session: Session| {
        let gate = Arc::clone(&opened);
        async move {
            if turn.text() == "first" {
                gate.notified().await;
            }
            session.success(&format!("did: {}", turn.text()))
        }
    });
    let mut host = start(agent, permissions(Duration::ZERO, "allow"));
    host.send("first");
    host.next().await;
    host.send("second");
    gate.notify_one();
    let results: Vec<_> = [host.turn().await, host.turn().await]
        .into_iter()
        .map(|frames| frames.last().unwrap().to_value()["result"].clone())
        .collect();
    assert_eq!(results, [json!("did: first"), json!("did: second")]);
}

#[tokio::test]
async fn interrupt_cancels_the_running_turn_and_the_next_turn_works() {
    let agent = agent(|turn: Turn, session: Session| async move {
        if turn.text() == "forever" {
            std::future::pending::<()>().await;
        }
        session.success("quick")
    });
    let mut host = start(agent, permissions(Duration::ZERO, "allow"));
    host.send("forever");
    host.next().await;
    host.next().await;
    let receipt = host
        .connection
        .request(InterruptRequest::default())
        .await
        .unwrap();
    assert_eq!(receipt.still_queued, Some(vec![]));
    let frames = host.turn().await;
    assert_eq!(kinds(&frames), ["user", "result/error_during_execution"]);
    assert_eq!(frames[1].to_value()["terminal_reason"], "aborted_streaming");
    host.next().await; // idle
    host.send("again");
    let frames = host.turn().await;
    assert_eq!(frames.last().unwrap().to_value()["result"], "quick");
}

fn permission_request(tool_use_id: &str) -> CanUseToolRequest {
    serde_json::from_value(json!({
        "tool_name": "Bash", "input": {"command": "touch x"}, "tool_use_id": tool_use_id,
    }))
    .unwrap()
}

#[tokio::test]
async fn the_first_permission_decision_wins_and_the_host_request_is_withdrawn() {
    let slow_host = permissions(Duration::from_secs(3600), "allow");
    let agent = agent(|_turn: Turn, session: Session| async move {
        // The policy decides after the host was asked.
        let local = async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            Some(PermissionResult::deny("policy: no shell"))
        };
        let decision = session
            .decide_permission(permission_request("toolu_1"), local)
            .await?;
        let again = session.can_use_tool(permission_request("toolu_1")).await;
        session.success(&format!("{} / {}", decision.tag(), again.is_err()))
    });
    let mut host = start(agent, slow_host.clone());
    host.send("go");
    let frames = host.turn().await;
    assert_eq!(frames.last().unwrap().to_value()["result"], "deny / true");
    // The host was asked once, then told to stop.
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(slow_host.calls.load(Ordering::SeqCst), 1);
    assert_eq!(slow_host.cancelled.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn the_host_decision_wins_when_the_local_side_defers() {
    let host_permissions = permissions(Duration::from_millis(10), "allow");
    let agent = agent(|_turn: Turn, session: Session| async move {
        let decision = session
            .decide_permission(permission_request("toolu_2"), async { None })
            .await?;
        session.success(decision.tag())
    });
    let mut host = start(agent, host_permissions);
    host.send("go");
    let frames = host.turn().await;
    assert_eq!(frames.last().unwrap().to_value()["result"], "allow");
}

/// A host that writes and reads raw lines.
struct RawHost {
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::io::DuplexStream>>,
    writer: tokio::io::DuplexStream,
}

impl RawHost {
    fn start(agent: impl Agent) -> Self {
        use tokio::io::AsyncBufReadExt;
        let (agent_reader, writer) = tokio::io::duplex(1 << 16);
        let (host_reader, agent_writer) = tokio::io::duplex(1 << 16);
        tokio::spawn(serve(
            agent_reader,
            agent_writer,
            agent,
            EngineConfig::default(),
        ));
        Self {
            lines: tokio::io::BufReader::new(host_reader).lines(),
            writer,
        }
    }

    async fn write(&mut self, line: &str) {
        self.writer.write_all(line.as_bytes()).await.unwrap();
        self.writer.write_all(b"\n").await.unwrap();
    }

    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(5), self.lines.next_line())
            .await
            .expect("the agent wrote nothing within 5 s")
            .unwrap()
            .expect("the agent closed");
        serde_json::from_str(&line).unwrap()
    }
}

#[tokio::test]
async fn unsupported_requests_and_malformed_input_keep_the_agent_serving() {
    let mut host = RawHost::start(echo());
    host.write("this is not json").await;
    host.write(r#"{"type":"user","message":42}"#).await;
    for _ in 0..2 {
        let frame = host.next().await;
        assert_eq!(frame["subtype"], "informational", "{frame}");
        assert_eq!(frame["level"], "error");
    }
    let request =
        json!({"type": "control_request", "request_id": "r1", "request": {"subtype": "get_usage"}});
    host.write(&request.to_string()).await;
    let answer = host.next().await;
    assert_eq!(answer["response"]["request_id"], "r1");
    assert_eq!(answer["response"]["error_code"], "unsupported_request");
    let user = json!({"type": "user", "message": {"role": "user", "content": "still there?"}});
    host.write(&user.to_string()).await;
    loop {
        let frame = host.next().await;
        if frame["type"] == "result" {
            assert_eq!(frame["result"], "echo: still there?");
            break;
        }
    }
}

#[tokio::test]
async fn a_repeated_permission_answer_is_dropped() {
    let agent = agent(|_turn: Turn, session: Session| async move {
        let decision = session.can_use_tool(permission_request("toolu_9")).await?;
        session.success(decision.tag())
    });
    let mut host = RawHost::start(agent);
    host.write(&json!({"type": "user", "message": {"role": "user", "content": "go"}}).to_string())
        .await;
    let request = loop {
        let frame = host.next().await;
        if frame["type"] == "control_request" {
            break frame;
        }
    };
    let id = request["request_id"].as_str().unwrap().to_owned();
    let allow = json!({"type": "control_response", "response": {"subtype": "success", "request_id": id,
        "response": {"behavior": "allow", "updatedInput": {}}}});
    let deny = json!({"type": "control_response", "response": {"subtype": "success", "request_id": id,
        "response": {"behavior": "deny", "message": "too late"}}});
    host.write(&allow.to_string()).await;
    host.write(&deny.to_string()).await;
    loop {
        let frame = host.next().await;
        if frame["type"] == "result" {
            assert_eq!(frame["result"], "allow");
            break;
        }
    }
}
