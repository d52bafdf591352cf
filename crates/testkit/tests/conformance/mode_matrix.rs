//! The five permission modes side by side: in each, the same four calls (Write inside the
//! working directory, Bash `touch` inside it, Read inside it, Write outside it), with a host
//! whose `can_use_tool` records every question and refuses it. What ran, and what was asked,
//! is the mode's whole behaviour: a program that runs a call Claude Code asks about, or
//! writes where Claude Code does not, fails here.

use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::json;
use twinwire::host::callbacks::{can_use_tool, PermissionRequest};
use twinwire::protocol::permission::{PermissionMode, PermissionResult};

use crate::{kinds, script, the_result, tool_results, turn, within, Scenario};

/// What one mode did with the four calls.
#[derive(Debug, PartialEq)]
struct Seen {
    /// The tools the host was asked about, in order.
    asked: Vec<String>,
    /// Whether the Write inside ran.
    wrote_inside: bool,
    /// Whether `touch` ran.
    touched: bool,
    /// Whether the Read gave the file's text.
    read: bool,
    /// Whether the Write outside ran.
    wrote_outside: bool,
}

async fn run_in(mode: PermissionMode) -> Seen {
    let s = Scenario::start_with(|work| {
        let inside = work.join("inside.txt").display().to_string();
        let outside = work.parent().unwrap().join("outside.txt").display().to_string();
        let notes = work.join("notes.txt").display().to_string();
        let write = |path: &str| json!({"tool_use": {"name": "Write", "input": {"file_path": path, "content": "written\n"}}});
        script(
            json!([
                {"when": {"last_is_tool_result": true}, "reply": {"text": "step done"}},
                {"when": {"last_user_text_contains": "write inside"}, "reply": write(&inside)},
                {"when": {"last_user_text_contains": "touch a file"},
                 "reply": {"tool_use": {"name": "Bash", "input": {"command": "touch touched.txt", "description": "Make a file"}}}},
                {"when": {"last_user_text_contains": "read the notes"},
                 "reply": {"tool_use": {"name": "Read", "input": {"file_path": notes}}}},
                {"when": {"last_user_text_contains": "write outside"}, "reply": write(&outside)}
            ]),
            json!({"text": "unexpected"}),
        )
    })
    .await;
    std::fs::write(s.work().join("notes.txt"), "NOTES-TEXT-31\n").unwrap();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&asked);
    let refuse = can_use_tool(move |request: PermissionRequest| {
        log.lock().unwrap().push(request.tool_name().to_owned());
        async move { Ok(PermissionResult::deny("refused by the host")) }
    });
    let bypass = mode == PermissionMode::BypassPermissions;
    let mut options = s.builder().permission_mode(mode).can_use_tool(refuse);
    if bypass {
        // As root the CLI refuses to bypass permissions outside a sandbox it is told about.
        options = options
            .allow_dangerously_skip_permissions(true)
            .env("IS_SANDBOX", "1");
    }
    let client = s.connect(options.build().unwrap()).await;
    let mut read = false;
    for step in [
        "write inside",
        "touch a file",
        "read the notes",
        "write outside",
    ] {
        let items = turn(&client, step).await;
        assert_eq!(
            the_result(&items).text(),
            Some("step done"),
            "{step}: {}\nstderr:\n{}",
            kinds(&items),
            s.stderr()
        );
        if step == "read the notes" {
            read = tool_results(&items).contains("NOTES-TEXT-31");
        }
    }
    within(client.close()).await.unwrap();
    let exists = |path: &Path| path.exists();
    let seen = Seen {
        asked: asked.lock().unwrap().clone(),
        wrote_inside: exists(&s.work().join("inside.txt")),
        touched: exists(&s.work().join("touched.txt")),
        read,
        wrote_outside: exists(&s.work().parent().unwrap().join("outside.txt")),
    };
    seen
}

#[tokio::test]
async fn the_default_mode_asks_before_every_change_and_reads_inside() {
    assert_eq!(
        run_in(PermissionMode::Default).await,
        Seen {
            asked: vec!["Write".into(), "Bash".into(), "Write".into()],
            wrote_inside: false,
            touched: false,
            read: true,
            wrote_outside: false,
        }
    );
}

#[tokio::test]
async fn accept_edits_makes_changes_inside_and_asks_outside() {
    assert_eq!(
        run_in(PermissionMode::AcceptEdits).await,
        Seen {
            asked: vec!["Write".into()],
            wrote_inside: true,
            touched: true,
            read: true,
            wrote_outside: false,
        }
    );
}

#[tokio::test]
async fn plan_mode_asks_about_edits_and_refuses_commands_unasked() {
    assert_eq!(
        run_in(PermissionMode::Plan).await,
        Seen {
            asked: vec!["Write".into(), "Write".into()],
            wrote_inside: false,
            touched: false,
            read: true,
            wrote_outside: false,
        }
    );
}

#[tokio::test]
async fn bypass_runs_every_call_unasked() {
    assert_eq!(
        run_in(PermissionMode::BypassPermissions).await,
        Seen {
            asked: vec![],
            wrote_inside: true,
            touched: true,
            read: true,
            wrote_outside: true,
        }
    );
}

#[tokio::test]
async fn dont_ask_refuses_what_no_rule_allows_without_asking() {
    assert_eq!(
        run_in(PermissionMode::DontAsk).await,
        Seen {
            asked: vec![],
            wrote_inside: false,
            touched: false,
            read: true,
            wrote_outside: false,
        }
    );
}

#[tokio::test]
async fn the_model_enters_plan_mode_writes_its_plan_and_the_host_approves_it() {
    let plan_file = r"(/\S+/\.claude/plans/[a-z]+-[a-z]+-[a-z]+\.md)";
    let s = Scenario::start(script(
        json!([
            {"when": {"tool_result_contains": "User has approved your plan"},
             "reply": {"text": "plan approved"}},
            {"when": {"tool_result_contains": "File created successfully"},
             "reply": {"tool_use": {"name": "ExitPlanMode", "input": {}}}},
            {"when": {"tool_result_contains": "Entered plan mode"},
             "reply": {"tool_uses": {"calls": [{"name": "Write",
                "input": {"content": "# Plan\n1. Step\n"}, "fill": {"file_path": plan_file}}]}}},
            {"when": {"last_user_text_contains": "make a plan"},
             "reply": {"tool_use": {"name": "EnterPlanMode", "input": {}}}}
        ]),
        json!({"text": "unexpected"}),
    ))
    .await;
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&asked);
    let allow = can_use_tool(move |request: PermissionRequest| {
        log.lock()
            .unwrap()
            .push((request.tool_name().to_owned(), request.input().clone()));
        let input = request.input().clone();
        async move { Ok(PermissionResult::allow(input)) }
    });
    let client = s
        .connect(s.builder().can_use_tool(allow).build().unwrap())
        .await;
    let items = turn(&client, "make a plan").await;
    within(client.close()).await.unwrap();
    assert_eq!(
        the_result(&items).text(),
        Some("plan approved"),
        "{}\n{}",
        kinds(&items),
        tool_results(&items)
    );
    // The plan file is written unasked; the plan is the host's to approve, shown to it.
    let asked = asked.lock().unwrap().clone();
    let tools: Vec<&str> = asked.iter().map(|(tool, _)| tool.as_str()).collect();
    assert_eq!(tools, ["ExitPlanMode"]);
    let input = &asked[0].1;
    assert_eq!(input["plan"], "# Plan\n1. Step\n");
    let file = Path::new(input["planFilePath"].as_str().unwrap_or_default());
    assert!(file.starts_with(s.home().join(".claude/plans")), "{file:?}");
    assert_eq!(std::fs::read_to_string(file).unwrap(), "# Plan\n1. Step\n");
    assert!(
        tool_results(&items).contains(r"## Approved Plan:\n# Plan\n1. Step\n"),
        "{}",
        tool_results(&items)
    );
}
