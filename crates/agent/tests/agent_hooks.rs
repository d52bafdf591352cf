//! Agent hooks of the settings over real pipes: the verifier's own tool calls are judged as in
//! `dontAsk` mode (a deny rule holds for it, it changes nothing), and a verifier that gives no
//! verdict refuses the command it guards (where Claude Code would run it).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::{json, Value};
use support::agent::{json as frames_json, result, turn, World};
use twinwire::Client;

fn settings(world: &World) {
    let path = world.home.join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let settings = json!({
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "agent", "prompt": "Verify: $ARGUMENTS"}
        ]}]},
        "permissions": {"deny": ["Read(./secret/**)"]}
    });
    std::fs::write(path, settings.to_string()).unwrap();
}

/// The main conversation asks for `touch made.txt`; `verifier` are the verifier's rules.
fn script(verifier: Value) -> Value {
    let mut rules: Vec<Value> = verifier.as_array().unwrap().clone();
    rules.extend([
        json!({"when": {"last_is_tool_result": true}, "reply": {"text": "after the tool"}}),
        json!({"when": {"last_user_text_contains": "make it"},
               "reply": {"tool_use": {"name": "Bash",
                  "input": {"command": "touch made.txt", "description": "Make a file"}}}}),
    ]);
    json!({"rules": rules, "default": {"text": "ok"}})
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

fn results(frames: &[Value]) -> String {
    frames
        .iter()
        .filter(|f| f["type"] == "user")
        .map(|f| f["message"]["content"].to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_verifier_reads_under_the_session_rules_and_changes_nothing() {
    let verifier = |extra: Value| json!({"all": [{"has_tool": "StructuredOutput"}, extra]});
    let world = World::new(script(json!([
        {"when": verifier(json!({"last_is_tool_result": true})),
         "reply": {"tool_use": {"name": "StructuredOutput",
                                "input": {"ok": true, "reason": "looked"}}}},
        {"when": verifier(json!({"always": true})),
         "reply": {"tool_uses": {"calls": [
             {"name": "Bash", "input": {"command": "cat secret/key.txt", "description": "Look"}},
             {"name": "Bash", "input": {"command": "touch hacked.txt", "description": "Touch"}}
         ]}}}
    ])))
    .await;
    settings(&world);
    std::fs::create_dir_all(world.path("secret")).unwrap();
    std::fs::write(world.path("secret/key.txt"), "the-secret-value").unwrap();
    let frames = make_it(&world).await;
    assert!(
        world.path("made.txt").exists(),
        "the verified command did not run"
    );
    assert!(
        !world.path("hacked.txt").exists(),
        "the verifier changed the tree"
    );
    let requests = world.model_requests();
    let second = requests
        .iter()
        .find(|r| {
            r.to_string().contains("Verify: {") && r["messages"].as_array().unwrap().len() == 3
        })
        .expect("the verifier's second request");
    let told = &second["messages"][2]["content"];
    assert!(
        !told.to_string().contains("the-secret-value"),
        "the deny rule did not hold: {told}"
    );
    let refused = told
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["is_error"] == true)
        .count();
    assert_eq!(refused, 2, "both calls refused: {told}");
    // The verifier is hidden: the host saw only the main conversation's call.
    assert!(!results(&frames_json(&frames)).contains("hacked.txt"));
    assert_eq!(result(&frames).result.as_deref(), Some("after the tool"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verifier_without_a_verdict_refuses_the_command() {
    let world = World::new(script(json!([
        {"when": {"has_tool": "StructuredOutput"}, "reply": {"text": "I think it is fine"}}
    ])))
    .await;
    settings(&world);
    let frames = make_it(&world).await;
    assert!(!world.path("made.txt").exists(), "the command ran");
    let said = results(&frames_json(&frames));
    assert!(
        said.contains("PreToolUse:Bash hook error: the agent hook could not verify the call"),
        "{said}"
    );
    let denials: Vec<&str> = result(&frames)
        .permission_denials
        .iter()
        .map(|d| d.tool_name.as_str())
        .collect();
    assert_eq!(denials, ["Bash"]);
}
