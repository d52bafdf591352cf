//! Every permission decision explained (`Client::permission_decisions`,
//! `on_permission_decision`): one tool call per turn, each decided by someone else, against
//! what the real CLI reports and what the host answered.

use std::sync::{Arc, Mutex};

use serde_json::json;
use twinwire::host::callbacks::{can_use_tool, hook, HookMatcher};
use twinwire::host::decisions::{DecidedBy, PermissionDecision, Verdict};
use twinwire::options::OptionsBuilder;
use twinwire::protocol::hooks::{HookEvent, HookOutput, HookPermissionDecision};
use twinwire::protocol::permission::PermissionResult;

use crate::{kinds, the_result, turn, within, Scenario};

/// A model that runs, for a prompt naming `STEP-<n>`, the tool call of that step.
fn steps(work: &std::path::Path) -> twinwire_model_server::ModelScript {
    let bash = |command: &str| {
        json!({"tool_use": {"name": "Bash",
        "input": {"command": command, "description": "step"}}})
    };
    let read = json!({"tool_use": {"name": "Read",
        "input": {"file_path": work.join("notes.txt").display().to_string()}}});
    crate::script(
        json!([
            {"when": {"last_is_tool_result": true}, "reply": {"text": "step done"}},
            {"when": {"last_user_text_contains": "STEP-1"}, "reply": bash("echo by-rule")},
            {"when": {"last_user_text_contains": "STEP-2"}, "reply": bash("rm -f notes.txt")},
            {"when": {"last_user_text_contains": "STEP-3"}, "reply": bash("touch asked.txt")},
            {"when": {"last_user_text_contains": "STEP-4"}, "reply": bash("echo HOOKED")},
            {"when": {"last_user_text_contains": "STEP-5"}, "reply": read}
        ]),
        json!({"text": "ok"}),
    )
}

fn options(s: &Scenario, seen: &Arc<Mutex<Vec<PermissionDecision>>>) -> OptionsBuilder {
    let told = Arc::clone(seen);
    s.builder()
        .allowed_tools(["Bash(echo by-rule)"])
        .can_use_tool(can_use_tool(|request| async move {
            Ok(PermissionResult::allow(request.input().clone()))
        }))
        .hook(
            HookEvent::PreToolUse,
            HookMatcher::matching(
                "Bash",
                hook(|input, _| async move {
                    let command = serde_json::to_string(&input).unwrap_or_default();
                    Ok(if command.contains("HOOKED") {
                        HookOutput::pre_tool_use_decision(HookPermissionDecision::Deny, "no hooked")
                    } else {
                        HookOutput::default()
                    })
                }),
            ),
        )
        .on_permission_decision(move |decision| told.lock().unwrap().push(decision.clone()))
}

#[tokio::test]
async fn every_tool_calls_permission_decision_names_who_decided() {
    let s = Scenario::start_with(steps).await;
    std::fs::write(s.work().join("notes.txt"), "notes\n").unwrap();
    std::fs::create_dir_all(s.work().join(".claude")).unwrap();
    std::fs::write(
        s.work().join(".claude/settings.json"),
        json!({"permissions": {"deny": ["Bash(rm:*)"]}}).to_string(),
    )
    .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let client = s.connect(options(&s, &seen).build().unwrap()).await;
    for step in 1..=5 {
        let items = turn(&client, &format!("do STEP-{step}")).await;
        assert_eq!(
            the_result(&items).text(),
            Some("step done"),
            "step {step}: {}\nstderr:\n{}",
            kinds(&items),
            s.stderr()
        );
    }
    let decisions = client.permission_decisions();
    assert_eq!(
        *seen.lock().unwrap(),
        decisions,
        "the callback saw each decision"
    );
    assert_eq!(decisions.len(), 5, "{decisions:#?}");
    let by: Vec<(Verdict, &DecidedBy)> = decisions
        .iter()
        .map(|d| (d.verdict, &d.decided_by))
        .collect();
    // 1: the command line's allow rule.
    assert_eq!(by[0].0, Verdict::Allowed);
    assert!(
        matches!(by[0].1, DecidedBy::Rule { rule: Some(rule), source: Some(source), .. }
            if rule == "Bash(echo by-rule)" && source == "cliArg"),
        "{:#?}",
        decisions[0]
    );
    // 2: the project's deny rule, named with its file.
    assert_eq!(by[1].0, Verdict::Denied, "{:#?}", decisions[1]);
    assert!(
        matches!(by[1].1, DecidedBy::Rule { rule: Some(rule), source: Some(source), path: Some(path) }
            if rule == "Bash(rm:*)" && source == "projectSettings" && path.ends_with("settings.json")),
        "{:#?}",
        decisions[1]
    );
    assert!(s.work().join("notes.txt").exists());
    // 3: asked, and the host's callback allowed it.
    assert_eq!(
        (by[2].0, by[2].1),
        (Verdict::Allowed, &DecidedBy::Callback { failed: false }),
        "{:#?}",
        decisions[2]
    );
    assert!(decisions[2].asked.is_some());
    assert!(s.work().join("asked.txt").exists());
    // 4: the host's PreToolUse hook denied it.
    assert_eq!(by[3].0, Verdict::Denied, "{:#?}", decisions[3]);
    assert_eq!(
        by[3].1,
        &DecidedBy::Hook {
            callback_id: Some("hook_0".to_owned())
        },
        "{:#?}",
        decisions[3]
    );
    assert_eq!(decisions[3].message.as_deref(), Some("no hooked"));
    // 5: reading inside the working directory: the default mode allows it.
    assert_eq!(
        (by[4].0, by[4].1),
        (
            Verdict::Allowed,
            &DecidedBy::Mode {
                mode: "default".to_owned()
            }
        ),
        "{:#?}",
        decisions[4]
    );
    assert!(decisions.iter().all(|d| d.reported), "{decisions:#?}");
    within(client.close()).await.unwrap();
}
