//! The agent side against twinwire's own host side, over in-memory pipes: the engine talking to
//! itself from both ends.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::sync::Notify;
use twinwire_protocol::control::{
    CanUseToolRequest, ControlRequestBody, GetSessionCostRequest, GetSessionCostResponse,
    GetUsageRequest, GetUsageResponse, InterruptRequest, McpStatusRequest, McpStatusResponse,
};
use twinwire_protocol::permission::PermissionResult;
use twinwire_protocol::{InputMessage, Message, UserMessage};

use super::*;
use crate::engine::{
    ControlHandler, HandlerError, HostSide, Inbound, RequestContext as EngineContext,
};

/// The host end: a connection plus its data plane.
struct Driver {
    connection: Connection,
    inbound: Inbound<Message>,
}

impl Driver {
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
fn start(agent: impl Agent, permissions: Arc<dyn ControlHandler>) -> Driver {
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
        Box::new(|_| Box::pin(async { Error::Closed })),
    );
    Driver {
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

crate::engine::serving_handler!(Permissions);

impl Permissions {
    fn serve(
        &self,
        request: ControlRequestBody,
        cx: EngineContext,
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
    agent(|turn: Turn, peer: Peer| async move {
        peer.say(&format!("echo: {}", turn.text()))?;
        peer.success(&format!("echo: {}", turn.text()))
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
    let agent = agent(move |turn: Turn, peer: Peer| {
        let gate = Arc::clone(&opened);
        async move {
            if turn.text() == "first" {
                gate.notified().await;
                // A model-call boundary: take what arrived meanwhile.
                let queued = peer.take_queued().map(|m| Turn { message: m }.text());
                return peer.success(&format!("first + {queued:?}"));
            }
            peer.success(&format!("later: {}", turn.text()))
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
    let agent = agent(move |turn: Turn, peer: Peer| {
        let gate = Arc::clone(&opened);
        async move {
            if turn.text() == "first" {
                gate.notified().await;
            }
            peer.success(&format!("did: {}", turn.text()))
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
    let agent = agent(|turn: Turn, peer: Peer| async move {
        if turn.text() == "forever" {
            std::future::pending::<()>().await;
        }
        peer.success("quick")
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

#[tokio::test]
async fn an_interrupt_right_behind_a_prompt_stops_that_prompts_turn() {
    let agent = agent(|turn: Turn, peer: Peer| async move {
        if turn.text() == "forever" {
            std::future::pending::<()>().await;
        }
        peer.success("quick")
    });
    let mut host = start(agent, permissions(Duration::ZERO, "allow"));
    // Both lines are read together: the interrupt is dispatched while the prompt still waits
    // for `serve` to start its turn.
    host.send("forever");
    host.connection
        .request(InterruptRequest::default())
        .await
        .unwrap();
    let frames = host.turn().await;
    let kinds = kinds(&frames);
    assert_eq!(
        kinds.last().map(String::as_str),
        Some("result/error_during_execution"),
        "{kinds:?}"
    );
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
    let agent = agent(|_turn: Turn, peer: Peer| async move {
        // The policy decides after the host was asked.
        let local = async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            Some(PermissionResult::deny("policy: no shell"))
        };
        let decision = peer
            .decide_permission(permission_request("toolu_1"), local)
            .await?;
        let again = peer.can_use_tool(permission_request("toolu_1")).await;
        peer.success(&format!("{} / {}", decision.tag(), again.is_err()))
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
    let agent = agent(|_turn: Turn, peer: Peer| async move {
        let decision = peer
            .decide_permission(permission_request("toolu_2"), async { None })
            .await?;
        peer.success(decision.tag())
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
    host.write(r#"[1, 2]"#).await;
    for _ in 0..2 {
        let frame = host.next().await;
        assert_eq!(frame["subtype"], "informational", "{frame}");
        assert_eq!(frame["level"], "warning");
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
    let agent = agent(|_turn: Turn, peer: Peer| async move {
        let decision = peer.can_use_tool(permission_request("toolu_9")).await?;
        peer.success(decision.tag())
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

/// A raw agent: writes its own frames, answers `get_usage` twice, `mcp_status` late and
/// `get_session_cost` never, and keeps a background task going after its turn.
struct Scripted;

impl Agent for Scripted {
    fn profile(&self) -> Profile {
        Profile::new().framing(Framing::Raw)
    }

    fn run_turn(&self, turn: Turn, peer: Peer) -> BoxFuture<'static, TurnOutcome> {
        Box::pin(async move {
            let text = turn.text();
            peer.send_line(format!("not json: {text}\n").into_bytes())?;
            if text == "slow" {
                // Unanswered by the raw host: times out and is withdrawn.
                let asked = peer
                    .request_body(
                        ControlRequestBody::Elicitation(
                            serde_json::from_value(json!({"mcp_server_name": "s", "message": "?"}))
                                .unwrap(),
                        ),
                        Duration::from_millis(50),
                    )
                    .await;
                assert!(asked.unwrap_err().is_timeout());
                let later = peer.clone();
                peer.spawn(async move {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    let late = frames::notice(later.session_id(), "late", Default::default());
                    let _ = later.emit(&late);
                });
            }
            let result = peer.success(&text)?;
            peer.emit(&frames::result(result))?;
            peer.success("not written")
        })
    }

    fn get_usage(
        &self,
        _request: GetUsageRequest,
        cx: RequestContext,
    ) -> AnswerFuture<GetUsageResponse> {
        let reply = cx.reply().clone();
        Box::pin(async move {
            reply.success(json!({"n": 1})).unwrap();
            reply.success(json!({"n": 2})).unwrap();
            Answer::AlreadyAnswered
        })
    }

    fn mcp_status(
        &self,
        _request: McpStatusRequest,
        cx: RequestContext,
    ) -> AnswerFuture<McpStatusResponse> {
        let reply = cx.reply().clone();
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(30)).await;
            reply
                .error("late and wrong", Some("internal_error"))
                .unwrap();
            Answer::AlreadyAnswered
        })
    }

    fn get_session_cost(
        &self,
        _request: GetSessionCostRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<GetSessionCostResponse> {
        Box::pin(async { Answer::AlreadyAnswered })
    }
}

#[tokio::test]
async fn a_raw_agent_writes_every_frame_and_answers_as_it_likes() {
    let (agent_reader, writer) = tokio::io::duplex(1 << 16);
    let (host_reader, agent_writer) = tokio::io::duplex(1 << 16);
    let server = tokio::spawn(serve(
        agent_reader,
        agent_writer,
        Scripted,
        EngineConfig::default(),
    ));
    let mut host = RawHost {
        lines: {
            use tokio::io::AsyncBufReadExt;
            tokio::io::BufReader::new(host_reader).lines()
        },
        writer,
    };
    let request = |id: &str, subtype: &str| {
        json!({"type": "control_request", "request_id": id, "request": {"subtype": subtype}})
            .to_string()
    };
    host.write(&request("a", "get_session_cost")).await;
    host.write(&request("b", "mcp_status")).await;
    host.write(&request("c", "get_usage")).await;
    host.write(&request("d", "get_binary_version")).await;
    let mut answers = Vec::new();
    for _ in 0..4 {
        let line = host.lines.next_line().await.unwrap().unwrap();
        assert!(line.starts_with(r#"{"type":"control_response""#), "{line}");
        let answer: Value = serde_json::from_str(&line).unwrap();
        answers.push(answer["response"].clone());
    }
    let ids: Vec<_> = answers.iter().map(|a| a["request_id"].clone()).collect();
    // Two answers to c, d unsupported as usual, b late, a never.
    assert_eq!(ids, [json!("c"), json!("c"), json!("d"), json!("b")]);
    assert_eq!(answers[1]["response"]["n"], 2);
    assert_eq!(answers[2]["error_code"], "unsupported_request");
    assert_eq!(answers[3]["error_code"], "internal_error");

    // Raw framing: only what the turns write, one turn per message, in order.
    let user = |text: &str| {
        json!({"type": "user", "message": {"role": "user", "content": text}}).to_string()
    };
    host.write(&user("slow")).await;
    host.write(&user("next")).await;
    let mut lines = Vec::new();
    for _ in 0..6 {
        lines.push(host.lines.next_line().await.unwrap().unwrap());
    }
    assert_eq!(lines[0], "not json: slow");
    let asked: Value = serde_json::from_str(&lines[1]).unwrap();
    assert_eq!(asked["request"]["subtype"], "elicitation");
    let withdrawn: Value = serde_json::from_str(&lines[2]).unwrap();
    assert_eq!(withdrawn["type"], "control_cancel_request");
    assert_eq!(withdrawn["request_id"], asked["request_id"]);
    let result: Value = serde_json::from_str(&lines[3]).unwrap();
    assert_eq!(result["result"], "slow");
    assert_eq!(lines[4], "not json: next");
    assert_eq!(
        serde_json::from_str::<Value>(&lines[5]).unwrap()["result"],
        "next"
    );

    // The end of input waits for the background work, whose frame still goes out.
    host.writer.shutdown().await.unwrap();
    let late: Value =
        serde_json::from_str(&host.lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(late["subtype"], "late");
    assert_eq!(host.lines.next_line().await.unwrap(), None);
    tokio::time::timeout(Duration::from_secs(5), server)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn close_output_writes_what_was_queued_then_ends_the_output() {
    let agent = agent(|_turn: Turn, peer: Peer| async move {
        for n in 0..100 {
            let mut fields = serde_json::Map::new();
            fields.insert("n".into(), json!(n));
            peer.emit(&frames::notice(peer.session_id(), "n", fields))?;
        }
        peer.close_output().await;
        let _ = peer.emit(&frames::notice(
            peer.session_id(),
            "dropped",
            Default::default(),
        ));
        peer.success("not written either")
    });
    let mut host = RawHost::start(agent);
    host.write(&json!({"type": "user", "message": {"role": "user", "content": "go"}}).to_string())
        .await;
    let mut seen = 0;
    while let Some(line) = host.lines.next_line().await.unwrap() {
        let frame: Value = serde_json::from_str(&line).unwrap();
        if frame["subtype"] == "n" {
            assert_eq!(frame["n"], seen);
            seen += 1;
        }
        assert_ne!(frame["subtype"], "dropped");
    }
    assert_eq!(seen, 100);
}

/// Hosts read with the same leniency: a partial or odd `initialize` (as minimal or older hosts
/// write it), with a numeric id, still starts the session, and a user frame with an odd field
/// still runs its turn.
#[tokio::test]
async fn a_partial_initialize_from_a_minimal_host_starts_the_session() {
    let mut host = RawHost::start(echo());
    host.write(
        r#"{"type":"control_request","request_id":1,"request":{"subtype":"initialize","hooks":"none","agents":null}}"#,
    )
    .await;
    let answer = host.next().await;
    assert_eq!(answer["type"], "control_response", "{answer}");
    assert_eq!(answer["response"]["subtype"], "success", "{answer}");
    assert_eq!(
        answer["response"]["request_id"], 1,
        "answered with the id as sent"
    );
    host.write(
        r#"{"type":"user","message":{"role":"user","content":"hello"},"session_id":5,"parent_tool_use_id":"none"}"#,
    )
    .await;
    let mut texts = Vec::new();
    loop {
        let frame = host.next().await;
        if frame["type"] == "assistant" {
            texts.push(frame["message"]["content"][0]["text"].clone());
        }
        if frame["type"] == "result" {
            assert_eq!(frame["subtype"], "success", "{frame}");
            break;
        }
    }
    assert_eq!(texts, [json!("echo: hello")]);
}

/// An agent that, once the host's input has ended, says goodbye and calls the host's
/// `SessionEnd` callback without waiting for an answer.
struct SaysGoodbye;

impl Agent for SaysGoodbye {
    fn run_turn(&self, turn: Turn, peer: Peer) -> BoxFuture<'static, TurnOutcome> {
        Box::pin(async move { peer.success(&format!("echo: {}", turn.text())) })
    }

    fn input_ended(&self, peer: Peer) -> BoxFuture<'static, ()> {
        Box::pin(async move {
            // The turn before is done: its result is already written.
            let input = serde_json::from_value(json!({
                "hook_event_name": "SessionEnd", "reason": "other",
                "session_id": peer.session_id(), "transcript_path": "", "cwd": "/"
            }))
            .unwrap();
            peer.hook_without_answer("hook_0", input, None).unwrap();
            peer.say("goodbye").unwrap();
        })
    }
}

#[tokio::test]
async fn the_end_of_the_hosts_input_is_told_to_the_agent_while_its_output_is_open() {
    let mut host = RawHost::start(SaysGoodbye);
    host.write(r#"{"type":"user","message":{"role":"user","content":"hello"}}"#)
        .await;
    // The host closes the agent's input at once, before the turn has ended.
    host.writer.shutdown().await.unwrap();
    let mut kinds = Vec::new();
    loop {
        let line = tokio::time::timeout(Duration::from_secs(5), host.lines.next_line())
            .await
            .expect("the agent wrote nothing within 5 s")
            .unwrap();
        let Some(line) = line else { break };
        let frame: Value = serde_json::from_str(&line).unwrap();
        match frame["type"].as_str() {
            Some("control_request") => {
                assert_eq!(frame["request"]["subtype"], "hook_callback", "{frame}");
                assert_eq!(frame["request"]["callback_id"], "hook_0", "{frame}");
                assert_eq!(frame["request"]["input"]["reason"], "other", "{frame}");
                kinds.push("hook_callback".to_owned());
            }
            Some("assistant") => kinds.push(format!(
                "assistant:{}",
                frame["message"]["content"][0]["text"]
            )),
            // session_state_changed and init, around the turn.
            Some("system") => {}
            Some(other) => kinds.push(other.to_owned()),
            None => panic!("a frame without a type: {frame}"),
        }
    }
    // The turn ran to its result first; then the end, then the output closed.
    let from_result = kinds.iter().position(|k| k == "result").expect("a result");
    assert_eq!(
        kinds[from_result..],
        ["result", "hook_callback", "assistant:\"goodbye\""],
        "{kinds:?}"
    );
}
