//! The sandbox over real pipes, with real bubblewrap: a Bash command the rules allow writes
//! inside the working directory and nowhere else, reads no file `denyRead` names, has no
//! network, and the shell's directory still follows it from one command to the next.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(target_os = "linux")]

mod support;

use serde_json::json;
use support::agent::{result, turn, World};
use twinwire::protocol::Message;
use twinwire::Client;

/// The text of every tool result of a turn.
fn tool_results(frames: &[Message]) -> String {
    frames
        .iter()
        .filter(|m| matches!(m, Message::User(_)))
        .map(|m| serde_json::to_string(m).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandboxed_command_writes_only_inside_and_reads_nothing_denied() {
    let outside = tempfile::tempdir().unwrap();
    let escaped = outside.path().join("escaped.txt");
    let command = format!(
        "echo in > inside.txt; echo out > {}; cat secret.txt; echo NET-$(grep -c : /proc/net/dev); mkdir -p sub && cd sub",
        escaped.display()
    );
    let world = World::new(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": {"text": "ran"}},
        {"when": {"last_user_text_contains": "first"},
         "reply": {"tool_use": {"name": "Bash", "input": {"command": command}}}},
        {"when": {"last_user_text_contains": "second"},
         "reply": {"tool_use": {"name": "Bash", "input": {"command": "pwd"}}}}
    ], "default": {"text": "unexpected"}}))
    .await;
    std::fs::write(world.path("secret.txt"), "SECRET-TEXT-19\n").unwrap();
    std::fs::create_dir_all(world.work.join(".claude")).unwrap();
    std::fs::write(
        world.work.join(".claude/settings.json"),
        json!({"sandbox": {"enabled": true, "failIfUnavailable": true,
            "filesystem": {"denyRead": [world.path("secret.txt").display().to_string()]}}})
        .to_string(),
    )
    .unwrap();
    let options = world.options().allowed_tool("Bash").build().unwrap();
    let client = Client::connect(options).await.unwrap();
    client.send("first").await.unwrap();
    let frames = turn(&client).await;
    assert_eq!(result(&frames).result.as_deref(), Some("ran"));
    let said = tool_results(&frames);
    assert_eq!(
        std::fs::read_to_string(world.path("inside.txt")).unwrap(),
        "in\n"
    );
    assert!(!escaped.exists(), "the write got out: {said}");
    assert!(said.contains("Read-only file system"), "{said}");
    assert!(
        !said.contains("SECRET-TEXT-19"),
        "a denied file was read: {said}"
    );
    // Its network namespace is its own: one interface, the loopback.
    assert!(
        said.contains("NET-1"),
        "the command had the machine's network: {said}"
    );
    client.send("second").await.unwrap();
    let frames = turn(&client).await;
    assert!(
        tool_results(&frames).contains(&format!("{}/sub", world.work.display())),
        "{}",
        tool_results(&frames)
    );
    client.close().await.unwrap();
}
