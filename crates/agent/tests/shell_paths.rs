//! Paths follow the shell, over real pipes: after a Bash `cd`, a relative path is judged where
//! it will be opened, so a Read deny rule holds against `../secret/…`; Grep and Glob never show
//! what a Read deny rule covers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;
use support::agent::{result, turn, World};
use twinwire::options::OptionsBuilder;
use twinwire::Client;

fn bash(command: &str) -> serde_json::Value {
    json!({"tool_use": {"name": "Bash", "input": {"command": command, "description": "a step"}}})
}

/// A tree with `sub/`, `secret/hidden-key.txt` (needle-secret) and `open.txt` (needle-open).
fn plant(world: &World) {
    std::fs::create_dir_all(world.path("sub")).unwrap();
    std::fs::create_dir_all(world.path("secret")).unwrap();
    std::fs::write(world.path("secret/hidden-key.txt"), "needle-secret\n").unwrap();
    std::fs::write(world.path("open.txt"), "needle-open\n").unwrap();
}

/// One turn; what was sent to the model, and the denied tools.
async fn run(world: &World, options: OptionsBuilder) -> (String, Vec<String>) {
    let client = Client::connect(options.build().unwrap()).await.unwrap();
    client.send("go").await.unwrap();
    let frames = turn(&client).await;
    client.close().await.unwrap();
    let denied = result(&frames)
        .permission_denials
        .iter()
        .map(|d| d.tool_name.clone())
        .collect();
    (
        serde_json::to_string(&world.model_requests()).unwrap(),
        denied,
    )
}

async fn cd_then_cat() -> World {
    let world = World::new(json!({"rules": [
        {"when": {"tool_result_contains": "moved-in"}, "reply": bash("cat ../secret/hidden-key.txt")},
        {"when": {"last_is_tool_result": true}, "reply": {"text": "done"}},
        {"when": {"last_user_text_contains": "go"}, "reply": bash("cd sub && echo moved-in")}
    ], "default": {"text": "unexpected"}}))
    .await;
    plant(&world);
    world
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_cd_a_read_deny_holds_against_a_relative_path() {
    // Without the rule the file is read: the script reaches it.
    let world = cd_then_cat().await;
    let (sent, denied) = run(&world, world.options().allowed_tool("Bash")).await;
    assert!(sent.contains("needle-secret"), "the command ran from sub/");
    assert!(denied.is_empty());
    // With it, the same call is refused, though `Bash` is allowed.
    let world = cd_then_cat().await;
    let options = world
        .options()
        .allowed_tool("Bash")
        .disallowed_tool("Read(./secret/**)");
    let (sent, denied) = run(&world, options).await;
    assert!(sent.contains("moved-in"), "the cd ran");
    assert!(
        !sent.contains("needle-secret"),
        "the secret reached the model"
    );
    assert_eq!(denied, ["Bash"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grep_and_glob_leave_out_what_a_read_deny_covers() {
    let world = World::new(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": {"text": "done"}},
        {"when": {"last_user_text_contains": "go"}, "reply": {"tool_uses": {"calls": [
            {"name": "Grep", "input": {"pattern": "needle-", "output_mode": "content"}},
            {"name": "Grep", "input": {"pattern": "needle-"}},
            {"name": "Glob", "input": {"pattern": "**/*.txt"}}
        ]}}}
    ], "default": {"text": "unexpected"}}))
    .await;
    plant(&world);
    let options = world.options().disallowed_tool("Read(./secret/**)");
    let (sent, denied) = run(&world, options).await;
    assert!(denied.is_empty(), "{denied:?}");
    assert!(sent.contains("needle-open"), "Grep searched the tree");
    assert!(sent.contains("open.txt"), "Glob listed the tree");
    assert!(
        !sent.contains("needle-secret"),
        "Grep showed a denied file's text"
    );
    assert!(!sent.contains("hidden-key"), "a denied file was named");
}

/// A named pipe named by a relative path is found where the shell is and refused at once,
/// where reading it would wait for a writer forever.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_pipe_is_refused_not_waited_on() {
    let world = World::new(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": {"text": "done"}},
        {"when": {"last_user_text_contains": "go"},
         "reply": {"tool_use": {"name": "Read", "input": {"file_path": "pipe"}}}}
    ], "default": {"text": "unexpected"}}))
    .await;
    let made = std::process::Command::new("mkfifo")
        .arg(world.path("pipe"))
        .status()
        .unwrap();
    assert!(made.success());
    let (sent, denied) = run(&world, world.options()).await;
    assert!(denied.is_empty(), "{denied:?}");
    assert!(sent.contains("not a regular file"), "{sent}");
}
