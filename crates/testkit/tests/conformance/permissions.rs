//! Tool permissions: `can_use_tool` allow, deny, allow with a changed input; permission modes;
//! the turn limit, the budget; a session rule given with an allow.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use twinwire::host::callbacks::{can_use_tool, CanUseTool, PermissionRequest};
use twinwire::protocol::permission::{
    PermissionAllow, PermissionBehavior, PermissionMode, PermissionResult, PermissionRuleValue,
    PermissionUpdate, PermissionUpdateDestination,
};
use twinwire::query;

use crate::{
    collect, kinds, request_tool_results, script, the_result, tool_results, turn, within, Scenario,
};

/// The model runs `command` with Bash when asked to "run the command", then says "done".
fn bash_script(command: &str) -> twinwire_model_server::ModelScript {
    script(
        json!([
            {"when": {"last_is_tool_result": true}, "reply": {"text": "done"}},
            {"when": {"last_user_text_contains": "run the command"},
             "reply": {"tool_use": {"name": "Bash",
                                    "input": {"command": command, "description": "Make a file"},
                                    "text": "Running it."}}}
        ]),
        json!({"text": "unexpected"}),
    )
}

/// The tool name and input of every permission request, in order.
type Asked = Arc<Mutex<Vec<(String, Value)>>>;

/// A `can_use_tool` that records each request and answers with `answer`.
fn recording(
    answer: impl Fn(&PermissionRequest) -> PermissionResult + Send + Sync + 'static,
) -> (Arc<dyn CanUseTool>, Asked) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let answer = Arc::new(answer);
    let callback = can_use_tool(move |request: PermissionRequest| {
        log.lock()
            .unwrap()
            .push((request.tool_name().to_owned(), request.input().clone()));
        let result = answer(&request);
        async move { Ok(result) }
    });
    (callback, seen)
}

#[tokio::test]
async fn bash_allowed_by_can_use_tool_creates_the_file() {
    let s = Scenario::start(bash_script("touch allowed.txt")).await;
    let (callback, seen) = recording(|r| PermissionResult::allow(r.input().clone()));
    let options = s.builder().can_use_tool(callback).build().unwrap();
    let items = collect(query("please run the command", options)).await;
    let result = the_result(&items);
    assert!(!result.is_error, "{result:?}\nstderr:\n{}", s.stderr());
    assert_eq!(result.text(), Some("done"));
    assert!(result.permission_denials.is_empty(), "{result:?}");
    assert!(s.work().join("allowed.txt").is_file(), "{}", kinds(&items));
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].0, "Bash");
    assert_eq!(seen[0].1["command"], "touch allowed.txt");
    // The tool's result went back to the model.
    let follow_up = s
        .message_requests()
        .into_iter()
        .find(|body| !request_tool_results(body).is_empty())
        .expect("a request with the tool result");
    assert!(!request_tool_results(&follow_up).contains("is_error\":true"));
}

#[tokio::test]
async fn bash_denied_by_can_use_tool_leaves_no_file() {
    let s = Scenario::start(bash_script("touch denied.txt")).await;
    let (callback, seen) = recording(|_| PermissionResult::deny("not on my watch"));
    let options = s.builder().can_use_tool(callback).build().unwrap();
    let items = collect(query("please run the command", options)).await;
    let result = the_result(&items);
    assert_eq!(result.text(), Some("done"), "{result:?}");
    assert!(!s.work().join("denied.txt").exists());
    assert_eq!(seen.lock().unwrap().len(), 1);
    assert_eq!(result.permission_denials.len(), 1, "{result:?}");
    let denial = serde_json::to_value(&result.permission_denials[0]).unwrap();
    assert_eq!(denial["tool_name"], "Bash", "{denial}");
    assert_eq!(
        denial["tool_input"]["command"], "touch denied.txt",
        "{denial}"
    );
    assert!(tool_results(&items).contains("not on my watch"));
    // The model was told why.
    let told = s
        .message_requests()
        .iter()
        .any(|body| request_tool_results(body).contains("not on my watch"));
    assert!(told, "the denial message reached the model");
}

#[tokio::test]
async fn allow_with_an_updated_input_runs_the_changed_command() {
    let s = Scenario::start(bash_script("touch original.txt")).await;
    let (callback, seen) = recording(|_| {
        PermissionResult::allow(json!({"command": "touch changed.txt", "description": "changed"}))
    });
    let options = s.builder().can_use_tool(callback).build().unwrap();
    let items = collect(query("please run the command", options)).await;
    let result = the_result(&items);
    assert!(!result.is_error, "{result:?}");
    assert_eq!(seen.lock().unwrap().len(), 1);
    assert!(
        s.work().join("changed.txt").is_file(),
        "the changed command ran: {}",
        tool_results(&items)
    );
    assert!(
        !s.work().join("original.txt").exists(),
        "the original did not"
    );
}

#[tokio::test]
async fn accept_edits_lets_write_through_without_can_use_tool() {
    let write = |name: &str| json!({"tool_use": {"name": "Write", "input": {"file_path": name, "content": "written\n"}}});
    let s = Scenario::start_with(|work| {
        let first = work.join("before.txt").display().to_string();
        let second = work.join("after.txt").display().to_string();
        script(
            json!([
                {"when": {"last_is_tool_result": true}, "reply": {"text": "done"}},
                {"when": {"last_user_text_contains": "write first"}, "reply": write(&first)},
                {"when": {"last_user_text_contains": "write second"}, "reply": write(&second)}
            ]),
            json!({"text": "unexpected"}),
        )
    })
    .await;
    // No can_use_tool: in the default mode the CLI cannot ask anyone, so Write is refused.
    let client = s.connect(s.options()).await;
    let items = turn(&client, "write first").await;
    let result = the_result(&items);
    assert!(
        !s.work().join("before.txt").exists(),
        "{}",
        tool_results(&items)
    );
    assert_eq!(result.permission_denials.len(), 1, "{result:?}");

    within(client.set_permission_mode(PermissionMode::AcceptEdits))
        .await
        .unwrap();
    let items = turn(&client, "write second").await;
    let result = the_result(&items);
    assert!(result.permission_denials.is_empty(), "{result:?}");
    assert_eq!(
        std::fs::read_to_string(s.work().join("after.txt"))
            .ok()
            .as_deref(),
        Some("written\n"),
        "{}",
        tool_results(&items)
    );
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn max_turns_stops_the_run() {
    // The model asks for a (read-only, so never asked about) command forever.
    let s = Scenario::start(script(
        json!([{"when": {"always": true},
                "reply": {"tool_use": {"name": "Bash", "input": {"command": "echo again"}}}}]),
        json!({"text": "unused"}),
    ))
    .await;
    let options = s.builder().max_turns(2).build().unwrap();
    let items = collect(query("loop forever", options)).await;
    let result = the_result(&items);
    assert_eq!(result.subtype.as_str(), "error_max_turns", "{result:?}");
    assert!(result.is_error, "{result:?}");
    assert_eq!(s.message_requests().len(), 2, "{:?}", s.message_requests());
}

#[tokio::test]
async fn an_allow_with_a_session_rule_is_not_asked_again() {
    let s = Scenario::start(script(
        json!([
            {"when": {"last_is_tool_result": true}, "reply": {"text": "done"}},
            {"when": {"last_user_text_contains": "touch it"},
             "reply": {"tool_use": {"name": "Bash",
                                    "input": {"command": "touch marker.txt",
                                              "description": "Touch"}}}}
        ]),
        json!({"text": "unexpected"}),
    ))
    .await;
    let (callback, seen) = recording(|r| {
        let rule = PermissionRuleValue::with_content("Bash", "touch marker.txt");
        PermissionResult::Allow(
            PermissionAllow::new(r.input().clone()).with_updated_permissions(vec![
                PermissionUpdate::add_rules(
                    vec![rule],
                    PermissionBehavior::Allow,
                    PermissionUpdateDestination::Session,
                ),
            ]),
        )
    });
    let options = s.builder().can_use_tool(callback).build().unwrap();
    let client = s.connect(options).await;
    let marker = s.work().join("marker.txt");
    let items = turn(&client, "touch it").await;
    assert_eq!(the_result(&items).text(), Some("done"), "{}", s.stderr());
    assert!(marker.is_file());
    std::fs::remove_file(&marker).unwrap();
    let items = turn(&client, "now touch it again").await;
    assert_eq!(the_result(&items).text(), Some("done"), "{}", s.stderr());
    // The command ran twice; only the first was asked about: the rule answered the second.
    assert!(marker.is_file(), "the second command ran");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1, "{seen:?}");
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn max_budget_usd_stops_the_run() {
    let s = Scenario::start(bash_script("true")).await;
    let options = s
        .builder()
        .allowed_tools(["Bash"])
        .max_budget_usd(0.000_001)
        .build()
        .unwrap();
    let items = collect(query("please run the command", options)).await;
    let result = the_result(&items);
    assert_eq!(
        result.subtype.as_str(),
        "error_max_budget_usd",
        "{result:?}\nstderr:\n{}",
        s.stderr()
    );
    assert!(result.is_error, "{result:?}");
}

/// The rules decide what runs; Claude Code's sandbox bounds what it can touch, whatever runs.
/// Here a policy allows every Bash command and the command writes outside the working
/// directory: the sandbox makes that write fail and lets the one inside happen
/// (docs/security.md shows this as the way to hard guarantees).
#[tokio::test]
async fn the_sandbox_keeps_an_allowed_command_inside_the_working_directory() {
    use twinwire::options::SandboxSettings;
    use twinwire::policy::PermissionPolicy;

    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("escaped.txt");
    let command = format!(
        "echo inside > inside.txt; echo escaped > {}",
        target.display()
    );
    let s = Scenario::start(bash_script(&command)).await;
    let rules = PermissionPolicy::parse(&["Bash"], &[]).unwrap();
    let options = s
        .builder()
        .can_use_tool(Arc::new(rules))
        .sandbox(SandboxSettings {
            enabled: Some(true),
            fail_if_unavailable: Some(true),
            ..SandboxSettings::default()
        })
        .build()
        .unwrap();
    let items = within(collect(query("please run the command", options))).await;
    let result = the_result(&items);
    assert!(!result.is_error, "{result:?}\nstderr:\n{}", s.stderr());
    assert!(
        s.work().join("inside.txt").is_file(),
        "{}",
        tool_results(&items)
    );
    assert!(
        !target.exists(),
        "the sandbox let the write out: {}",
        tool_results(&items)
    );
    assert!(
        tool_results(&items).contains("Read-only file system"),
        "{}",
        tool_results(&items)
    );
}
