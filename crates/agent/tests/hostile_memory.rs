//! The hostile kit's memory probes: `twinwire-agent` as a real process against a Messages API
//! (or a file) built to make it hold what it should not: 4,000 content blocks at sparse
//! indices, one event split over 200 MB of `data:` lines, a 200 MB reply, a 2 GiB file without
//! a newline for `Read`. Each turn must end (with an error, or a refusal the model is told), and
//! the process's peak memory (`VmHWM`, read while it still runs, after the turn) must stay
//! within a bound set by the agent's own limits, far below what the probe would cost unbounded
//! (each line's figure is printed; docs/agent.md keeps a run's figures).
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Each probe prints its figure for the docs.
#![allow(clippy::print_stderr)]

mod support;

use std::time::Duration;

use futures::StreamExt;
use serde_json::json;
use support::agent::World;
use support::http::raw_server;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use twinwire::protocol::Message;
use twinwire::Client;

/// The most a probe may add to a plain turn's peak. The largest of the agent's own bounds is a
/// reply's 64 MiB (`MAX_STREAM_BYTES`); unbounded, the probes below cost 0.2 to 2 GiB.
const MAX_GROWTH_KIB: u64 = 160 * 1024;

/// Writes an event stream's head, then `pieces` as chunks, stopping when the client leaves.
async fn stream(mut socket: TcpStream, pieces: impl Iterator<Item = String>) {
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                transfer-encoding: chunked\r\n\r\n";
    if socket.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    for piece in pieces {
        let chunk = format!("{:x}\r\n{piece}\r\n", piece.len());
        if socket.write_all(chunk.as_bytes()).await.is_err() {
            return;
        }
    }
    let _ = socket.write_all(b"0\r\n\r\n").await;
}

fn message_start() -> String {
    let start = json!({"type": "message_start", "message": {"id": "m", "type": "message",
        "role": "assistant", "model": "m", "content": [], "usage": {"input_tokens": 1,
        "output_tokens": 1}}});
    format!("event: message_start\ndata: {start}\n\n")
}

/// The peak memory (KiB) of the agent after one turn on `world` with `prompt`, and the turn's
/// result text and tool results.
async fn peak_after_turn(world: &World, prompt: &str) -> (u64, String) {
    let options = world.options().allowed_tool("Read").build().unwrap();
    let client = Client::connect(options).await.unwrap();
    let pid = client.pid().expect("a child process");
    client.send(prompt).await.unwrap();
    let mut said = String::new();
    let mut messages = Box::pin(client.receive_response());
    let turn = async {
        while let Some(message) = messages.next().await {
            match message {
                Ok(Message::Result(result)) => {
                    said.push_str(&format!("{:?} {:?}", result.subtype, result.result));
                    break;
                }
                Ok(other) => said.push_str(&serde_json::to_string(&other).unwrap()),
                Err(err) => said.push_str(&err.to_string()),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(120), turn)
        .await
        .expect("the turn ended");
    drop(messages);
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let peak = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|kib| kib.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM");
    client.close().await.unwrap();
    (peak, said)
}

/// A plain turn's peak, to measure the probes against.
async fn plain_peak() -> u64 {
    let world = World::new(json!({"rules": [], "default": {"text": "hello"}})).await;
    peak_after_turn(&world, "hi").await.0
}

/// Checks and prints one probe's growth over a plain turn.
async fn probe(name: &str, world: &World, prompt: &str) -> String {
    let plain = plain_peak().await;
    let (peak, said) = peak_after_turn(world, prompt).await;
    let growth = peak.saturating_sub(plain);
    eprintln!(
        "hostile memory | {name} | plain {} MiB | probe {} MiB | +{} MiB",
        plain / 1024,
        peak / 1024,
        growth / 1024
    );
    assert!(
        growth <= MAX_GROWTH_KIB,
        "{name}: +{} MiB over a plain turn",
        growth / 1024
    );
    said
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn content_blocks_at_sparse_indices_hold_no_memory() {
    let url = raw_server(|socket| {
        let blocks = (0..4000u64).map(|n| {
            let start = json!({"type": "content_block_start", "index": n * 250_000,
                               "content_block": {"type": "text", "text": ""}});
            format!("event: content_block_start\ndata: {start}\n\n")
        });
        stream(socket, std::iter::once(message_start()).chain(blocks))
    })
    .await;
    let said = probe("4,000 blocks at sparse indices", &World::at(url), "hi").await;
    assert!(said.contains("Error") || said.contains("error"), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_event_over_200_mb_of_data_lines_holds_no_memory() {
    let url = raw_server(|socket| {
        let line = format!("data: {}\n", "x".repeat(1024 * 1024));
        let lines = std::iter::repeat_n(line, 200);
        stream(socket, std::iter::once(message_start()).chain(lines))
    })
    .await;
    let said = probe("one event over 200 MB of data lines", &World::at(url), "hi").await;
    assert!(said.contains("Error") || said.contains("error"), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_200_mb_reply_is_broken_off() {
    let url = raw_server(|socket| {
        let block = json!({"type": "content_block_start", "index": 0,
                           "content_block": {"type": "text", "text": ""}});
        let delta = json!({"type": "content_block_delta", "index": 0,
                           "delta": {"type": "text_delta", "text": "x".repeat(1024 * 1024)}});
        let deltas = std::iter::repeat_n(
            format!("event: content_block_delta\ndata: {delta}\n\n"),
            200,
        );
        let first = format!(
            "{}event: content_block_start\ndata: {block}\n\n",
            message_start()
        );
        stream(socket, std::iter::once(first).chain(deltas))
    })
    .await;
    let said = probe("a 200 MB reply", &World::at(url), "hi").await;
    assert!(said.contains("Error") || said.contains("error"), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reading_a_2_gib_file_without_a_newline_holds_no_memory() {
    let big = tempfile::tempdir().unwrap();
    let path = big.path().join("huge.bin");
    // Sparse: 2 GiB of zero bytes that take no disk.
    std::fs::File::create(&path)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let world = World::new(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": {"text": "read it"}},
        {"when": {"last_user_text_contains": "read the file"},
         "reply": {"tool_use": {"name": "Read", "input": {"file_path": path}}}}
    ], "default": {"text": "ok"}}))
    .await;
    let said = probe(
        "Read of a 2 GiB file without a newline",
        &world,
        "read the file",
    )
    .await;
    assert!(said.contains("read it"), "the turn went on: {said}");
}
