//! Flow control over in-memory pipes: the byte budget of the data plane (backpressure, and the
//! two things that keep the reader reading past it), and request ids the peer reuses.

use std::sync::atomic::AtomicUsize;

use super::*;

/// A data frame of about 200 bytes.
fn data_frame(i: usize) -> String {
    format!(
        r#"{{"type":"tool_progress","tool_use_id":"t","tool_name":"Bash","elapsed_time_seconds":{i},"uuid":"u{i:0>150}","session_id":"s"}}"#
    )
}

/// Writes `count` lines made by `line` to the engine, in a task; it ends when all are written.
fn write_lines(
    mut writer: DuplexStream,
    count: usize,
    line: impl Fn(usize) -> String + Send + 'static,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        for i in 0..count {
            writer.write_all(line(i).as_bytes()).await.unwrap();
            writer.write_all(b"\n").await.unwrap();
        }
    })
}

/// Engine and peer over small pipes, so that a reader that stops reading blocks the peer.
fn start_small(budget: usize) -> (Connection, Inbound<Message>, ScriptedPeer) {
    let (our_reader, peer_writer) = tokio::io::duplex(8 * 1024);
    let (peer_reader, our_writer) = tokio::io::duplex(1 << 20);
    let config = EngineConfig {
        max_buffered_bytes: budget,
        ..EngineConfig::default()
    };
    let (connection, inbound) = Connection::start::<HostSide, _, _>(
        our_reader,
        our_writer,
        Arc::new(NoHandler),
        config,
        Box::new(|_| Box::pin(async { Error::Closed })),
    );
    let peer = ScriptedPeer {
        lines: BufReader::new(peer_reader).lines(),
        writer: peer_writer,
    };
    (connection, inbound, peer)
}

#[tokio::test]
async fn a_full_budget_stops_the_reader_until_the_user_takes_frames() {
    const BUDGET: usize = 64 * 1024;
    const FRAMES: usize = 4_000;
    let (connection, mut inbound, peer) = start_small(BUDGET);
    let writing = write_lines(peer.writer, FRAMES, data_frame);
    // Nobody takes anything: the peer's writes block once the budget is full.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !writing.is_finished(),
        "the peer wrote 800 KB into a full budget"
    );
    let held = connection.shared.budget.held();
    // The budget, plus at most one read past it (64 KiB) and the pipe's own buffer.
    assert!(held <= BUDGET + 64 * 1024, "{held} bytes held");
    assert!(held > BUDGET / 2, "{held} bytes held");
    // Taking frames lets the reader go on, and every frame arrives, in order.
    for i in 0..FRAMES {
        let message = tokio::time::timeout(Duration::from_secs(5), inbound.recv())
            .await
            .expect("stalled")
            .unwrap()
            .unwrap();
        assert_eq!(message.to_value()["elapsed_time_seconds"], json!(i));
        assert!(connection.shared.budget.held() <= BUDGET + 64 * 1024);
    }
    writing.await.unwrap();
}

#[tokio::test]
async fn lines_the_user_decodes_are_read_ahead_only_so_far_within_the_budget() {
    use crate::engine::budget::READ_AHEAD;
    const FRAMES: usize = 20_000;
    let event = |i: usize| {
        format!(
            r#"{{"type":"stream_event","event":{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":"{i:0>200}"}}}},"uuid":"u","session_id":"s"}}"#
        )
    };
    // The budget would hold all 6 MB.
    let (connection, mut inbound, peer) = start_small(64 << 20);
    let writing = write_lines(peer.writer, FRAMES, event);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !writing.is_finished(),
        "the peer wrote 6 MB past the read-ahead"
    );
    let text = connection.shared.budget.held_text();
    // The read-ahead, plus at most one read past it (64 KiB).
    assert!(text <= READ_AHEAD + 64 * 1024, "{text} bytes to decode");
    assert!(text > READ_AHEAD / 2, "{text} bytes to decode");
    for i in 0..FRAMES {
        let message = tokio::time::timeout(Duration::from_secs(5), inbound.recv())
            .await
            .expect("stalled")
            .unwrap()
            .unwrap();
        let Message::StreamEvent(message) = message else {
            panic!("{message:?}")
        };
        assert_eq!(
            message.event.text_delta(),
            Some(format!("{i:0>200}").as_str())
        );
    }
    writing.await.unwrap();
    assert!(connection.shared.budget.held_text() <= READ_AHEAD + 64 * 1024);
}

#[tokio::test]
async fn a_request_of_ours_is_answered_past_a_full_budget() {
    let (connection, _inbound, peer) = start_small(16 * 1024);
    let ScriptedPeer {
        mut lines,
        mut writer,
    } = peer;
    let peer = tokio::spawn(async move {
        let request: Value =
            serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        // 400 KB of data the user never takes stand between the request and its answer.
        for i in 0..2_000 {
            writer.write_all(data_frame(i).as_bytes()).await.unwrap();
            writer.write_all(b"\n").await.unwrap();
        }
        let answer = json!({"type": "control_response", "response": {"subtype": "success",
            "request_id": request["request_id"], "response": {"still_queued": []}}});
        writer
            .write_all(format!("{answer}\n").as_bytes())
            .await
            .unwrap();
        writer
    });
    let answer = tokio::time::timeout(
        Duration::from_secs(10),
        connection.request(InterruptRequest::default()),
    )
    .await
    .expect("the answer behind the data was never read");
    assert_eq!(answer.unwrap().still_queued, Some(vec![]));
    drop(peer.await.unwrap());
}

#[tokio::test]
async fn a_user_who_drops_the_stream_does_not_stall_the_reader() {
    let (connection, inbound, peer) = start_small(16 * 1024);
    drop(inbound);
    let writing = write_lines(peer.writer, 2_000, data_frame);
    tokio::time::timeout(Duration::from_secs(10), writing)
        .await
        .expect("the reader stalled for a user who left")
        .unwrap();
    assert_eq!(connection.shared.budget.held(), 0);
}

/// Answers `can_use_tool` after the `delay_ms` of its input; counts the requests dropped
/// before they finished (cancelled).
struct Slow {
    dropped: Arc<AtomicUsize>,
}

crate::engine::serving_handler!(Slow);

impl Slow {
    fn serve(
        &self,
        request: ControlRequestBody,
        _cx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        struct Count(Option<Arc<AtomicUsize>>);
        impl Count {
            fn finished(&mut self) {
                self.0 = None;
            }
        }
        impl Drop for Count {
            fn drop(&mut self) {
                if let Some(dropped) = &self.0 {
                    dropped.fetch_add(1, Ordering::SeqCst);
                }
            }
        }
        let mut guard = Count(Some(Arc::clone(&self.dropped)));
        Box::pin(async move {
            let ControlRequestBody::CanUseTool(ask) = request else {
                return Err(HandlerError::new("only can_use_tool"));
            };
            let delay = ask.input["delay_ms"].as_u64().unwrap_or(0);
            tokio::time::sleep(Duration::from_millis(delay)).await;
            guard.finished();
            Ok(json!({"behavior": "allow", "updatedInput": ask.input}))
        })
    }
}

fn ask(id: &str, delay_ms: u64) -> Value {
    json!({"type": "control_request", "request_id": id, "request": {
        "subtype": "can_use_tool", "tool_name": "Bash", "input": {"delay_ms": delay_ms}}})
}

#[tokio::test]
async fn a_reused_request_id_keeps_both_requests_cancellable() {
    let dropped = Arc::new(AtomicUsize::new(0));
    let handler = Arc::new(Slow {
        dropped: Arc::clone(&dropped),
    });
    let (_connection, _inbound, mut peer) = start(handler);
    // Two requests in flight under one id: a cancel reaches both.
    peer.write(ask("dup", 60_000)).await;
    peer.write(ask("dup", 60_000)).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    peer.write(json!({"type": "control_cancel_request", "request_id": "dup"}))
        .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(dropped.load(Ordering::SeqCst), 2, "both were cancelled");
    peer.read_nothing(Duration::from_millis(100)).await;

    // The first finishes; the second, still in flight, is still found by a cancel.
    peer.write(ask("again", 50)).await;
    peer.write(ask("again", 60_000)).await;
    let answer = peer.read().await;
    assert_eq!(answer["response"]["request_id"], "again");
    peer.write(json!({"type": "control_cancel_request", "request_id": "again"}))
        .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        dropped.load(Ordering::SeqCst),
        3,
        "the second was cancelled too"
    );
    peer.read_nothing(Duration::from_millis(100)).await;
}
