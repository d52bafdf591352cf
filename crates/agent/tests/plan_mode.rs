//! Plan mode entered and left by the model, over real pipes: `EnterPlanMode` switches the
//! session to plan mode and names the plan file; the plan file is written without asking;
//! `ExitPlanMode` asks the host with the plan in its input, stays in plan mode when refused,
//! and on approval restores the mode and hands the model the plan as the user left it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use support::agent::{json as frames_json, mentions, result, turn, World};
use twinwire::host::callbacks::{can_use_tool, PermissionRequest};
use twinwire::protocol::permission::{PermissionMode, PermissionResult};
use twinwire::Client;

const PLAN_FILE: &str = r"(/\S+/\.claude/plans/[a-z]+-[a-z]+-[a-z]+\.md)";

fn script() -> Value {
    json!({"rules": [
        {"when": {"tool_result_contains": "User has approved your plan"},
         "reply": {"text": "approved"}},
        {"when": {"tool_result_contains": "keep planning"},
         "reply": {"tool_use": {"name": "ExitPlanMode", "input": {}}}},
        {"when": {"tool_result_contains": "File created successfully"},
         "reply": {"tool_use": {"name": "ExitPlanMode", "input": {}}}},
        {"when": {"tool_result_contains": "Entered plan mode"},
         "reply": {"tool_uses": {"calls": [{"name": "Write",
            "input": {"content": "# Plan\n1. Step\n"}, "fill": {"file_path": PLAN_FILE}}]}}},
        {"when": {"last_user_text_contains": "plan it"},
         "reply": {"tool_use": {"name": "EnterPlanMode", "input": {}}}},
        {"when": {"last_user_text_contains": "exit now"},
         "reply": {"tool_use": {"name": "ExitPlanMode", "input": {}}}},
        {"when": {"last_user_text_contains": "enter with a reason"},
         "reply": {"tool_use": {"name": "EnterPlanMode", "input": {"reason": "x"}}}}
    ], "default": {"text": "ok"}})
}

/// Every mode the session reported in a `system/status` frame, in order.
fn modes(frames: &[Value]) -> Vec<String> {
    frames
        .iter()
        .filter(|f| f["type"] == "system" && f["subtype"] == "status")
        .filter_map(|f| f["permissionMode"].as_str().map(str::to_owned))
        .collect()
}

/// The text of every tool result in the frames.
fn tool_results(frames: &[Value]) -> Vec<String> {
    frames
        .iter()
        .filter(|f| f["type"] == "user")
        .flat_map(|f| {
            f["message"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter(|b| b["type"] == "tool_result")
        .map(|b| match &b["content"] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_is_written_refused_changed_by_the_user_and_approved() {
    let world = World::new(script()).await;
    let asked: Arc<Mutex<Vec<(String, Value)>>> = Arc::default();
    let log = Arc::clone(&asked);
    let callback = can_use_tool(move |request: PermissionRequest| {
        let tool = request.tool_name().to_owned();
        let input = request.input().clone();
        let times = {
            let mut log = log.lock().unwrap();
            log.push((tool.clone(), input.clone()));
            log.iter().filter(|(t, _)| *t == tool).count()
        };
        async move {
            Ok(match (tool.as_str(), times) {
                ("ExitPlanMode", 1) => PermissionResult::deny("Not yet: keep planning."),
                ("ExitPlanMode", _) => {
                    let mut input = input;
                    input["plan"] = json!("# Plan\n1. Step\n2. Test it\n");
                    PermissionResult::allow(input)
                }
                _ => PermissionResult::allow(input),
            })
        }
    });
    let options = world.options().can_use_tool(callback).build().unwrap();
    let client = Client::connect(options).await.unwrap();
    client.send("plan it").await.unwrap();
    let frames = turn(&client).await;
    assert_eq!(result(&frames).result.as_deref(), Some("approved"));
    let frames = frames_json(&frames);
    // Into plan mode, and back to the mode it left.
    assert_eq!(modes(&frames), ["plan", "default"]);
    // The plan file was written without asking; the plan was asked about twice, with its
    // text and file in the input.
    let asked = asked.lock().unwrap().clone();
    let tools: Vec<&str> = asked.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(tools, ["ExitPlanMode", "ExitPlanMode"]);
    let (_, input) = &asked[0];
    assert_eq!(input["plan"], "# Plan\n1. Step\n");
    let file = std::path::PathBuf::from(input["planFilePath"].as_str().unwrap());
    assert!(
        file.starts_with(world.home.join(".claude/plans")),
        "{file:?}"
    );
    // The user's change is the plan: in the file, and in what the model is told.
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "# Plan\n1. Step\n2. Test it\n"
    );
    let results = tool_results(&frames);
    assert!(results[0].starts_with("Entered plan mode."), "{results:?}");
    assert!(
        results[2].contains("Not yet: keep planning."),
        "{results:?}"
    );
    assert!(
        results[3].contains("Your plan has been saved to: ")
            && results[3]
                .ends_with("## Approved Plan (edited by user):\n# Plan\n1. Step\n2. Test it\n"),
        "{results:?}"
    );
    // The model was told where the plan goes, and that plan mode ended.
    let sent = serde_json::to_string(&world.model_requests()).unwrap();
    assert!(sent.contains("Plan mode is on"), "no plan-mode note");
    assert!(sent.contains(&file.display().to_string()));
    assert!(sent.contains("You have exited plan mode."));
    // Outside plan mode, ExitPlanMode is refused unasked; EnterPlanMode takes no arguments.
    client.send("exit now").await.unwrap();
    let frames = frames_json(&turn(&client).await);
    let results = tool_results(&frames);
    assert!(
        results[0].contains("You are not in plan mode."),
        "{results:?}"
    );
    client.send("enter with a reason").await.unwrap();
    let frames = frames_json(&turn(&client).await);
    assert!(
        mentions(
            &tool_results(&frames),
            "An unexpected parameter `reason` was provided"
        ),
        "{frames:?}"
    );
    assert!(modes(&frames).is_empty(), "{frames:?}");
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_started_in_plan_mode_plans_and_the_tools_need_a_host() {
    let world = World::new(json!({"rules": [], "default": {"text": "ok"}})).await;
    let callback = can_use_tool(|request: PermissionRequest| {
        let input = request.input().clone();
        async move { Ok(PermissionResult::allow(input)) }
    });
    let options = world
        .options()
        .permission_mode(PermissionMode::Plan)
        .can_use_tool(callback)
        .build()
        .unwrap();
    let client = Client::connect(options).await.unwrap();
    client.send("hello").await.unwrap();
    turn(&client).await;
    client.close().await.unwrap();
    let requests = world.model_requests();
    let first = requests.last().unwrap();
    assert!(mentions(first, "Plan mode is on"), "{first}");
    let tools: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        tools.contains(&"EnterPlanMode") && tools.contains(&"ExitPlanMode"),
        "{tools:?}"
    );
    // With nobody to approve a plan, neither tool is offered.
    let world = World::new(json!({"rules": [], "default": {"text": "ok"}})).await;
    let client = Client::connect(world.options().build().unwrap())
        .await
        .unwrap();
    client.send("hello").await.unwrap();
    turn(&client).await;
    client.close().await.unwrap();
    let requests = world.model_requests();
    assert!(!mentions(requests.last().unwrap(), "PlanMode"));
}
