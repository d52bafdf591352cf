//! Nothing is left behind: `twinwire-agent` started as a host starts it (stream-json over
//! pipes), its model asking for a Bash command that starts a process in its group, one in a
//! session of its own (`setsid`) and a background job; then the session is ended by SIGTERM,
//! by SIGINT or by the end of its input, and every process it started must be gone. The same
//! holds, with the session going on, when the command is interrupted or simply returns while
//! what it started in a session of its own still runs.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use support::agent::World;

/// Writes the pids of what it starts to `pids` once all are running, then waits.
const COMMAND: &str = "sleep 301 & a=$!; setsid sleep 302 & b=$!; \
                       (setsid sh -c 'sleep 303 & echo $! > deep; wait' &); \
                       while [ ! -s deep ]; do sleep 0.05; done; \
                       echo $a $b $(cat deep) > pids.tmp && mv pids.tmp pids; sleep 300";

async fn world(foreground: bool) -> World {
    world_running(COMMAND, foreground).await
}

async fn world_running(command: &str, foreground: bool) -> World {
    World::new(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": {"text": "done"}},
        {"when": {"last_user_text_contains": "start"}, "reply": {"tool_use": {"name": "Bash",
            "input": {"command": command, "description": "start processes",
                      "run_in_background": !foreground}}}}
    ], "default": {"text": "unexpected"}}))
    .await
}

fn start(world: &World) -> Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_twinwire-agent"))
        .args([
            "--output-format",
            "stream-json",
            "--input-format",
            "stream-json",
            "--verbose",
            "--allowedTools",
            "Bash",
        ])
        .current_dir(&world.work)
        .env("HOME", &world.home)
        .env("ANTHROPIC_BASE_URL", &world.url)
        .env("ANTHROPIC_API_KEY", "sk-offline")
        .env("CLAUDE_CODE_MAX_RETRIES", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let line = json!({"type": "user", "message": {"role": "user", "content": "start them"}});
    let stdin = child.stdin.as_mut().unwrap();
    writeln!(stdin, "{line}").unwrap();
    stdin.flush().unwrap();
    child
}

/// The pids the command wrote, once it has (30 s at most).
fn pids(work: &Path) -> Vec<i32> {
    let pids = pids_written(work);
    assert_eq!(pids.len(), 3, "{pids:?}");
    pids
}

fn pids_written(work: &Path) -> Vec<i32> {
    let file = work.join("pids");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !file.exists() {
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    let pids: Vec<i32> = std::fs::read_to_string(file)
        .unwrap()
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    pids
}

/// The processes still running after 2 s at most (killed, so that a failure leaves nothing).
fn left_after_two_seconds(pids: &[i32]) -> Vec<i32> {
    let deadline = Instant::now() + Duration::from_secs(2);
    while pids.iter().any(|p| alive(*p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left: Vec<i32> = pids.iter().copied().filter(|p| alive(*p)).collect();
    for pid in &left {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(*pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    left
}

/// Waits (2 s at most) for the processes to be gone while the agent runs on.
fn assert_ended_while_running(agent: &mut Child, pids: &[i32]) {
    let left = left_after_two_seconds(pids);
    assert!(agent.try_wait().unwrap().is_none(), "the session ended");
    let _ = agent.kill();
    let _ = agent.wait();
    assert!(left.is_empty(), "left running: {left:?} of {pids:?}");
}

/// Whether `pid` is running (a zombie is not: it only waits to be collected).
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit_once(')').map(|(_, rest)| rest.trim_start());
            !state.is_some_and(|s| s.starts_with('Z') || s.starts_with('X'))
        }
        Err(_) => false,
    }
}

/// Waits for the agent to exit (10 s at most), then for the processes to be gone (2 s).
fn assert_all_ended(agent: &mut Child, pids: &[i32]) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while agent.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = agent.kill();
            panic!("the agent did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let left = left_after_two_seconds(pids);
    assert!(left.is_empty(), "left running: {left:?} of {pids:?}");
}

async fn stopped_by(signal: nix::sys::signal::Signal, code: i32) {
    let world = world(true).await;
    let mut agent = start(&world);
    let pids = pids(&world.work);
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(agent.id() as i32), signal).unwrap();
    assert_all_ended(&mut agent, &pids);
    let status = agent.wait().unwrap();
    assert_eq!(status.code(), Some(code), "{status:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_ends_the_command_and_what_left_its_group() {
    stopped_by(nix::sys::signal::Signal::SIGTERM, 143).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_ends_the_command_and_what_left_its_group() {
    stopped_by(nix::sys::signal::Signal::SIGINT, 130).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_end_of_input_ends_a_background_job_and_what_left_its_group() {
    let world = world(false).await;
    let mut agent = start(&world);
    let pids = pids(&world.work);
    drop(agent.stdin.take());
    assert_all_ended(&mut agent, &pids);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_command_ends_with_what_left_its_group() {
    let world = world(true).await;
    let mut agent = start(&world);
    let pids = pids(&world.work);
    let interrupt = json!({"type": "control_request", "request_id": "stop-1",
                           "request": {"subtype": "interrupt"}});
    let stdin = agent.stdin.as_mut().unwrap();
    writeln!(stdin, "{interrupt}").unwrap();
    stdin.flush().unwrap();
    assert_ended_while_running(&mut agent, &pids);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_that_returns_takes_what_it_left_running_with_it() {
    let command = "setsid sleep 304 & echo $! > pids.tmp && mv pids.tmp pids";
    let world = world_running(command, true).await;
    let mut agent = start(&world);
    let pids = pids_written(&world.work);
    assert_eq!(pids.len(), 1, "{pids:?}");
    assert_ended_while_running(&mut agent, &pids);
}
