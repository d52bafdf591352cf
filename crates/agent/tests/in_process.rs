//! The agent inside the host's own process: twinwire's `Client` with the in-process launcher,
//! over in-memory pipes, no child process.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;
use support::agent::{result, turn, World};
use twinwire::host::callbacks::{can_use_tool, PermissionRequest};
use twinwire::protocol::permission::PermissionResult;
use twinwire::Client;

/// The children of this process, from `/proc`.
fn children() -> Vec<String> {
    let mut found = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let list = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        found.extend(list.split_whitespace().map(str::to_owned));
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_runs_in_the_hosts_process_with_its_callbacks() {
    let world = World::new(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": {"text": "made it"}},
        {"when": {"last_user_text_contains": "make"},
         "reply": {"tool_use": {"name": "Write", "input": {"file_path": "made.txt", "content": "in process"}}}}
    ], "default": {"echo": true}}))
    .await;
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = std::sync::Arc::clone(&asked);
    let callback = can_use_tool(move |request: PermissionRequest| {
        log.lock().unwrap().push(request.tool_name().to_owned());
        async move { Ok(PermissionResult::allow(request.input().clone())) }
    });
    let options = world
        .options()
        .launcher(twinwire_agent::in_process::launcher())
        .can_use_tool(callback)
        .build()
        .unwrap();
    let before = children();
    let client = Client::connect(options).await.unwrap();
    assert_eq!(client.pid(), None, "no process was started");
    client.send("hello").await.unwrap();
    assert_eq!(
        result(&turn(&client).await).result.as_deref(),
        Some("You said: hello")
    );
    assert_eq!(children(), before, "no child process");
    // Write outside acceptEdits asks the host, whose answer lets it run.
    client.send("make the file").await.unwrap();
    let frames = turn(&client).await;
    assert_eq!(result(&frames).result.as_deref(), Some("made it"));
    assert_eq!(*asked.lock().unwrap(), vec!["Write".to_owned()]);
    assert_eq!(
        std::fs::read_to_string(world.path("made.txt")).unwrap(),
        "in process"
    );
    client.close().await.unwrap();
    assert_eq!(world.sessions().len(), 1);
}

/// This process's threads and open file descriptors.
fn threads_and_fds() -> (usize, usize) {
    let count = |dir: &str| std::fs::read_dir(dir).unwrap().count();
    (count("/proc/self/task"), count("/proc/self/fd"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_sessions_share_a_few_threads_and_hold_no_descriptor_when_idle() {
    const SESSIONS: usize = 150;
    let world = World::new(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": {"text": "found"}},
        {"when": {"last_user_text_contains": "LIST"},
         "reply": {"tool_use": {"name": "Glob", "input": {"pattern": "*.txt"}}}}
    ], "default": {"echo": true}}))
    .await;
    std::fs::write(world.path("notes.txt"), "x").unwrap();
    // Warm: the shards and their runtime exist from the first session on.
    let first = Client::connect(
        world
            .options()
            .launcher(twinwire_agent::in_process::launcher())
            .build()
            .unwrap(),
    )
    .await
    .unwrap();
    first.send("hello").await.unwrap();
    turn(&first).await;
    let before = threads_and_fds();
    let mut clients = Vec::new();
    for _ in 0..SESSIONS {
        let options = world
            .options()
            .launcher(twinwire_agent::in_process::launcher())
            .build()
            .unwrap();
        clients.push(Client::connect(options).await.unwrap());
    }
    let turns = clients.iter().map(|client| async move {
        client.send("LIST the text files").await.unwrap();
        let frames = turn(client).await;
        assert_eq!(result(&frames).result.as_deref(), Some("found"));
    });
    futures::future::join_all(turns).await;
    // Idle: the connections the turns used are back in the shards' pools, a few kept.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let (threads, fds) = threads_and_fds();
    // A thread or a descriptor per session would add 150. tokio's blocking pool may have
    // grown for the Globs; each shard (one per core) keeps up to 16 idle connections, and the
    // model server, in this process too, holds the other end of each.
    let shards = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(16);
    assert!(threads <= before.0 + 40, "{before:?} → {threads} threads");
    let links: Vec<String> = std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read_link(e.path()).ok())
        .map(|l| l.display().to_string())
        .collect();
    assert!(
        fds <= before.1 + 2 * 16 * shards + 10,
        "{before:?} → {fds} descriptors: {links:?}"
    );
    for client in &clients {
        client.close().await.unwrap();
    }
    first.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_session_is_cancelled_while_its_command_runs_and_the_others_go_on() {
    let world = World::new(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": {"text": "done"}},
        {"when": {"last_user_text_contains": "SLOW"},
         "reply": {"tool_use": {"name": "Bash", "input": {"command": "echo started > slow.txt; sleep 60; echo late > late.txt"}}}}
    ], "default": {"echo": true}}))
    .await;
    let allow = || {
        can_use_tool(|request: PermissionRequest| async move {
            Ok(PermissionResult::allow(request.input().clone()))
        })
    };
    let connect = || async {
        let options = world
            .options()
            .launcher(twinwire_agent::in_process::launcher())
            .can_use_tool(allow())
            .build()
            .unwrap();
        Client::connect(options).await.unwrap()
    };
    let slow = connect().await;
    let others = [connect().await, connect().await];
    slow.send("SLOW please").await.unwrap();
    let started = world.path("slow.txt");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !started.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the command never started"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let with_command = children();
    assert!(!with_command.is_empty(), "the command runs as a child");
    // Stopping the session ends its command; the other sessions on the same threads answer.
    drop(slow);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while with_command.iter().any(|pid| children().contains(pid)) {
        let alive: Vec<String> = with_command
            .iter()
            .map(|pid| std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default())
            .collect();
        assert!(
            std::time::Instant::now() < deadline,
            "the command outlived its session: {alive:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    for (n, client) in others.iter().enumerate() {
        client.send(format!("hello {n}")).await.unwrap();
        let frames = turn(client).await;
        assert_eq!(
            result(&frames).result.as_deref(),
            Some(format!("You said: hello {n}").as_str())
        );
    }
    assert!(!world.path("late.txt").exists());
    for client in &others {
        client.close().await.unwrap();
    }
}
