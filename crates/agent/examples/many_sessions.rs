//! Many twinwire-agent sessions in this one process (`twinwire_agent::in_process`), all alive
//! at once: each answers a tool turn and a text turn from the model server at the URL given,
//! then stays idle while the process's memory is read. Prints one JSON object of figures on
//! stdout (`cargo xtask bench-agent --in-process N` runs it).
//!
//! ```text
//! cargo run --release -p twinwire-agent --example many_sessions -- <sessions> <model-server-url> <scratch-dir>
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::json;
use twinwire::protocol::Message;

/// Sessions being started at once (each start builds a thread and a runtime).
const STARTING_AT_ONCE: usize = 64;
/// How long a turn may take before the run fails.
const TURN_LIMIT: Duration = Duration::from_secs(120);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [sessions, url, scratch] = &args[..] else {
        return Err("usage: many_sessions <sessions> <model-server-url> <scratch-dir>".into());
    };
    let sessions: usize = sessions.parse()?;
    let scratch = PathBuf::from(scratch);
    let runtime = tokio::runtime::Runtime::new()?;
    let before = memory();
    let figures = runtime.block_on(run(sessions, url.clone(), scratch))?;
    println!(
        "{}",
        json!({"sessions": sessions, "rss_before": before.0, "figures": figures})
    );
    Ok(())
}

/// `(VmRSS, VmHWM)` of this process, in bytes.
fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            .map_or(0, |kib| kib * 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

async fn run(
    sessions: usize,
    url: String,
    scratch: PathBuf,
) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    let started = Instant::now();
    let url = Arc::new(url);
    let scratch = Arc::new(scratch);
    let clients: Vec<Result<(twinwire::Client, f64), String>> = futures::stream::iter(0..sessions)
        .map(|i| {
            let (url, scratch) = (Arc::clone(&url), Arc::clone(&scratch));
            async move { first_turn(i, &url, &scratch).await }
        })
        .buffer_unordered(STARTING_AT_ONCE)
        .collect()
        .await;
    let mut live = Vec::with_capacity(sessions);
    let mut first_message = Vec::with_capacity(sessions);
    for client in clients {
        let (client, first) = client?;
        live.push(client);
        first_message.push(first);
    }
    let first_turns_s = started.elapsed().as_secs_f64();
    let seconds: Vec<Result<(), String>> = futures::stream::iter(live.iter())
        .map(|client| async move {
            client.send("say hello").await.map_err(|e| e.to_string())?;
            turn(client).await.map(|_| ())
        })
        .buffer_unordered(STARTING_AT_ONCE * 4)
        .collect()
        .await;
    for second in seconds {
        second?;
    }
    let all_answered_s = started.elapsed().as_secs_f64();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (idle_rss, peak_rss) = memory();
    let threads = std::fs::read_dir("/proc/self/task").map_or(0, |d| d.count());
    for client in &live {
        client.close().await.map_err(|e| e.to_string())?;
    }
    first_message.sort_by(f64::total_cmp);
    let at = |share: f64| first_message[((first_message.len() - 1) as f64 * share) as usize];
    Ok(json!({
        "first_turns_s": first_turns_s,
        "all_answered_s": all_answered_s,
        "idle_rss": idle_rss,
        "peak_rss": peak_rss,
        "threads": threads,
        "first_message_p50_s": at(0.5),
        "first_message_p99_s": at(0.99),
    }))
}

/// Connects session `i` in its own directories and runs its tool turn; the time from the
/// connect to its first assistant message.
async fn first_turn(
    i: usize,
    url: &str,
    scratch: &Path,
) -> Result<(twinwire::Client, f64), String> {
    let dir = scratch.join(format!("s{i}"));
    let (home, work) = (dir.join("home"), dir.join("work"));
    for path in [&home, &work] {
        std::fs::create_dir_all(path).map_err(|e| e.to_string())?;
    }
    std::fs::write(work.join("notes.txt"), "a file for the tool turn\n")
        .map_err(|e| e.to_string())?;
    let options = twinwire::Options::builder()
        .launcher(twinwire_agent::in_process::launcher())
        .cwd(&work)
        .env("HOME", &home)
        .env("TMPDIR", &dir)
        .env("ANTHROPIC_BASE_URL", url)
        .env("ANTHROPIC_API_KEY", "bench-key")
        .env("CLAUDE_CODE_MAX_RETRIES", "0")
        .build()
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    let client = twinwire::Client::connect(options)
        .await
        .map_err(|e| e.to_string())?;
    client
        .send("LIST the text files")
        .await
        .map_err(|e| e.to_string())?;
    let first = turn(&client).await?;
    Ok((client, (first - started).as_secs_f64()))
}

/// Reads one turn to its result; when its first assistant message came.
async fn turn(client: &twinwire::Client) -> Result<Instant, String> {
    let reading = async {
        let mut first = None;
        let mut messages = std::pin::pin!(client.receive_response());
        while let Some(message) = messages.next().await {
            match message.map_err(|e| e.to_string())? {
                Message::Assistant(_) if first.is_none() => first = Some(Instant::now()),
                Message::Result(result) if result.is_error => {
                    return Err(format!("the turn failed: {:?}", result.result));
                }
                _ => {}
            }
        }
        first.ok_or_else(|| "no assistant message".to_owned())
    };
    tokio::time::timeout(TURN_LIMIT, reading)
        .await
        .map_err(|_| "a turn took over two minutes".to_owned())?
}
