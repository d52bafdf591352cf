//! Prompt hooks of the settings over real pipes: the judge's request (the hook's prompt with
//! the event as JSON, structured output asked for), a refusal that keeps going when the hook
//! says `continueOnBlock`, and a judge whose answer cannot be read, which refuses the command
//! (where Claude Code would run it).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::{json, Value};
use support::agent::{json as frames_json, result, turn, World};
use twinwire::Client;

fn settings(world: &World, hook: Value) {
    let path = world.home.join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}});
    std::fs::write(path, settings.to_string()).unwrap();
}

fn script(judge_says: &str) -> Value {
    json!({"rules": [
        {"when": {"last_user_text_contains": "Check: "}, "reply": {"text": judge_says}},
        {"when": {"last_is_tool_result": true}, "reply": {"text": "after the tool"}},
        {"when": {"last_user_text_contains": "make it"},
         "reply": {"tool_use": {"name": "Bash",
            "input": {"command": "touch made.txt", "description": "Make a file"}}}}
    ], "default": {"text": "ok"}})
}

/// One turn in which the model asks for `touch made.txt`, Bash allowed.
async fn make_it(world: &World) -> Vec<twinwire::protocol::Message> {
    let client = Client::connect(world.options().allowed_tool("Bash").build().unwrap())
        .await
        .unwrap();
    client.send("make it").await.unwrap();
    let frames = turn(&client).await;
    client.close().await.unwrap();
    frames
}

/// The tool results of one turn's frames, as text.
fn results(frames: &[Value]) -> String {
    frames
        .iter()
        .filter(|f| f["type"] == "user")
        .map(|f| f["message"]["content"].to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_with_continue_on_block_lets_the_turn_go_on() {
    let world = World::new(script(r#"{"ok": false, "reason": "not today"}"#)).await;
    settings(
        &world,
        json!({"type": "prompt", "prompt": "Check: $ARGUMENTS", "continueOnBlock": true,
               "model": "claude-haiku-4-5"}),
    );
    let frames = make_it(&world).await;
    // Refused, and the model went on (the turn was not stopped).
    assert_eq!(result(&frames).result.as_deref(), Some("after the tool"));
    assert!(!world.path("made.txt").exists());
    assert!(results(&frames_json(&frames))
        .contains("PreToolUse:Bash hook error: [Check: $ARGUMENTS]: not today"));
    // The judge was asked with the event, on the hook's model, for the verdict's shape.
    let requests = world.model_requests();
    let judge = requests
        .iter()
        .find(|r| r.to_string().contains("Check: {"))
        .expect("the judge was asked");
    assert_eq!(judge["model"], "claude-haiku-4-5");
    assert_eq!(
        judge["output_config"]["format"]["schema"]["required"],
        json!(["ok", "reason"])
    );
    let asked = judge["messages"][0]["content"][0]["text"].as_str().unwrap();
    let event: Value = serde_json::from_str(asked.strip_prefix("Check: ").unwrap()).unwrap();
    assert_eq!(event["hook_event_name"], "PreToolUse");
    assert_eq!(event["tool_input"]["command"], "touch made.txt");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_judge_whose_answer_cannot_be_read_refuses_the_command() {
    let world = World::new(script("maybe")).await;
    settings(
        &world,
        json!({"type": "prompt", "prompt": "Check: $ARGUMENTS"}),
    );
    let frames = make_it(&world).await;
    assert!(!world.path("made.txt").exists(), "the command ran");
    let said = results(&frames_json(&frames));
    assert!(said.contains("the hook could not judge the call"), "{said}");
    assert_eq!(result(&frames).result.as_deref(), Some("after the tool"));
    let denials: Vec<&str> = result(&frames)
        .permission_denials
        .iter()
        .map(|d| d.tool_name.as_str())
        .collect();
    assert_eq!(denials, ["Bash"]);
}
