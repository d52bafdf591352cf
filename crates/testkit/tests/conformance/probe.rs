//! Scratch probes of the real CLI (not committed).
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use twinwire::host::callbacks::{hook, HookMatcher};
use twinwire::protocol::hooks::{HookEvent, HookInput, HookOutput};

use crate::{script, turn, Scenario};

fn dump(name: &str, s: &Scenario, frames: &[String], extra: Value) {
    let dir = std::path::Path::new("/tmp/cc/probe").join(format!(
        "{}-{}",
        name,
        crate::cli_version().replace(' ', "_")
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("frames.jsonl"), frames.join("\n")).unwrap();
    let reqs: Vec<Value> = s
        .server
        .requests()
        .iter()
        .map(|r| json!({"path": r.path, "body": r.body}))
        .collect();
    std::fs::write(
        dir.join("requests.json"),
        serde_json::to_string_pretty(&reqs).unwrap(),
    )
    .unwrap();
    std::fs::write(
        dir.join("extra.json"),
        serde_json::to_string_pretty(&extra).unwrap(),
    )
    .unwrap();
    // copy the session files
    let _ = std::process::Command::new("cp")
        .arg("-r")
        .arg(s.home())
        .arg(dir.join("home"))
        .status();
    std::fs::write(dir.join("stderr.txt"), s.stderr()).unwrap();
}

fn texts(items: &[twinwire::Result<twinwire::protocol::Message>]) -> Vec<String> {
    items
        .iter()
        .map(|i| match i {
            Ok(m) => m.to_value().to_string(),
            Err(e) => format!("ERR {e}"),
        })
        .collect()
}

#[tokio::test]
async fn probe_compact() {
    let s = Scenario::start(script(
        json!([
            {"when": {"last_user_text_contains": "summary"}, "reply": {"text": "SUMMARY-TEXT-1: we talked."}},
            {"when": {"last_user_text_contains": "first"}, "reply": {"text": "first answer"}},
        ]),
        json!({"text": "ok"}),
    ))
    .await;
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let l2 = Arc::clone(&log);
    let options = s
        .builder()
        .model("claude-sonnet-4-5")
        .hook(
            HookEvent::PreCompact,
            HookMatcher::all(hook(move |input: HookInput, _cx| {
                l2.lock()
                    .unwrap()
                    .push(serde_json::to_string(&input).unwrap());
                async move { Ok(HookOutput::proceed()) }
            })),
        )
        .build()
        .unwrap();
    let client = s.connect(options).await;
    let mut frames = Vec::new();
    frames.extend(texts(&turn(&client, "first question").await));
    frames.push("----".into());
    frames.extend(texts(&turn(&client, "/compact keep the numbers").await));
    frames.push("----".into());
    frames.extend(texts(&turn(&client, "after compaction").await));
    let hooks = log.lock().unwrap().clone();
    client.close().await.unwrap();
    dump("compact", &s, &frames, json!({"hooks": hooks}));
}

#[tokio::test]
async fn probe_autocompact() {
    let s = Scenario::start(script(
        json!([
            {"when": {"last_user_text_contains": "summary"}, "reply": {"text": "SUMMARY-TEXT-2"}},
            {"when": {"last_user_text_contains": "big"}, "reply": {"text": "big answer"}, "input_tokens": 170000},
        ]),
        json!({"text": "ok"}),
    ))
    .await;
    let options = s
        .builder()
        .model("claude-sonnet-4-5")
        .env("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "50")
        .build()
        .unwrap();
    let client = s.connect(options).await;
    let mut frames = Vec::new();
    frames.extend(texts(&turn(&client, "big question").await));
    frames.push("----".into());
    frames.extend(texts(&turn(&client, "next question").await));
    client.close().await.unwrap();
    dump("autocompact", &s, &frames, json!({}));
}

#[tokio::test]
async fn probe_too_long() {
    let s = Scenario::start(script(
        json!([
            {"when": {"last_user_text_contains": "summary"}, "reply": {"text": "SUMMARY-TEXT-3"}},
            {"when": {"last_prompt_contains": "overflow"}, "times": 1,
             "reply": {"error": {"status": 400, "message": "prompt is too long: 210000 tokens > 200000 maximum"}}},
        ]),
        json!({"text": "ok"}),
    ))
    .await;
    let options = s.builder().model("claude-sonnet-4-5").build().unwrap();
    let client = s.connect(options).await;
    let mut frames = Vec::new();
    frames.extend(texts(&turn(&client, "first question").await));
    frames.push("----".into());
    frames.extend(texts(&turn(&client, "overflow now").await));
    client.close().await.unwrap();
    dump("toolong", &s, &frames, json!({}));
}

fn logging_hooks(
    b: twinwire::options::OptionsBuilder,
    log: &Arc<Mutex<Vec<String>>>,
) -> twinwire::options::OptionsBuilder {
    let mut b = b;
    for ev in [
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::PostToolUseFailure,
        HookEvent::Notification,
        HookEvent::UserPromptSubmit,
        HookEvent::SessionStart,
        HookEvent::SessionEnd,
        HookEvent::Stop,
        HookEvent::SubagentStart,
        HookEvent::SubagentStop,
        HookEvent::PreCompact,
        HookEvent::PostCompact,
        HookEvent::PermissionRequest,
        HookEvent::PermissionDenied,
        HookEvent::StopFailure,
        HookEvent::PostToolBatch,
        HookEvent::TaskCreated,
        HookEvent::TaskCompleted,
        HookEvent::Elicitation,
        HookEvent::ElicitationResult,
        HookEvent::UserPromptExpansion,
        HookEvent::InstructionsLoaded,
        HookEvent::CwdChanged,
        HookEvent::FileChanged,
        HookEvent::ConfigChange,
        HookEvent::PreModelSwitch,
        HookEvent::PostModelSwitch,
        HookEvent::Setup,
    ] {
        let l2 = Arc::clone(log);
        b = b.hook(
            ev,
            HookMatcher::all(hook(move |input: HookInput, cx| {
                l2.lock().unwrap().push(format!(
                    "{} {}",
                    serde_json::to_string(&input).unwrap(),
                    serde_json::to_string(&cx.tool_use_id).unwrap_or_default()
                ));
                async move { Ok(HookOutput::proceed()) }
            })),
        );
    }
    b
}

#[tokio::test]
async fn probe_subagent() {
    let s = Scenario::start_with(|work| {
        let path = work.join("data.txt").display().to_string();
        script(
        json!([
            {"when": {"all": [{"last_is_tool_result": true}, {"system_contains": "PELICAN-COUNTER"}]}, "reply": {"text": "the file says hello"}},
            {"when": {"last_user_text_contains": "SUBTASK-88"},
             "reply": {"tool_use": {"name": "Read", "input": {"file_path": path}}}},
            {"when": {"last_is_tool_result": true}, "reply": {"text": "the helper is done"}},
            {"when": {"last_user_text_contains": "ask a helper"},
             "reply": {"tool_use": {"name": "Task",
                                    "input": {"description": "Read data",
                                              "prompt": "SUBTASK-88: read data.txt",
                                              "subagent_type": "counter"}}}}
        ]),
        json!({"text": "ok"}),
    )})
    .await;
    std::fs::write(s.work().join("data.txt"), "hello\n").unwrap();
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let options = logging_hooks(s.builder(), &log)
        .allowed_tools(["Task", "Agent", "Read"])
        .agent_definition(
            "counter",
            twinwire::options::AgentDefinition {
                description: "Counts things".into(),
                prompt: "You are PELICAN-COUNTER.".into(),
                tools: Some(vec!["Read".into()]),
                model: Some("haiku".into()),
                ..Default::default()
            },
        )
        .build()
        .unwrap();
    let client = s.connect(options).await;
    let mut frames = Vec::new();
    frames.extend(texts(&turn(&client, "ask a helper").await));
    // wait a bit for background things
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    while let Ok(Some(Ok(m))) =
        tokio::time::timeout(std::time::Duration::from_millis(500), client.receive()).await
    {
        frames.push(m.to_value().to_string());
    }
    let hooks = log.lock().unwrap().clone();
    client.close().await.unwrap();
    dump("subagent", &s, &frames, json!({"hooks": hooks}));
}

#[tokio::test]
async fn probe_commands() {
    let s = Scenario::start(script(json!([]), json!({"echo": true}))).await;
    std::fs::create_dir_all(s.work().join(".claude/commands")).unwrap();
    std::fs::write(
        s.work().join(".claude/commands/greet.md"),
        "---\ndescription: Greets someone\nargument-hint: <name>\n---\nSay hello to $ARGUMENTS politely. GREET-MARK\n",
    )
    .unwrap();
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let options = logging_hooks(s.builder(), &log).build().unwrap();
    let client = s.connect(options).await;
    let init = client.initialize_response().cloned();
    let mut frames = Vec::new();
    frames.extend(texts(&turn(&client, "first question").await));
    frames.push("----".into());
    frames.extend(texts(&turn(&client, "/greet Ada").await));
    frames.push("----".into());
    frames.extend(texts(&turn(&client, "/clear").await));
    frames.push("----".into());
    frames.extend(texts(&turn(&client, "after clear").await));
    frames.push("----".into());
    frames.extend(texts(&turn(&client, "/nosuchcommand hi").await));
    let hooks = log.lock().unwrap().clone();
    client.close().await.unwrap();
    let cmds: Vec<Value> = init
        .map(|i| {
            i.commands
                .iter()
                .filter(|c| c.builtin != Some(true))
                .map(|c| serde_json::to_value(c).unwrap())
                .collect()
        })
        .unwrap_or_default();
    dump(
        "commands",
        &s,
        &frames,
        json!({"hooks": hooks, "commands": cmds}),
    );
}

#[tokio::test]
async fn probe_dialogs() {
    use twinwire::host::callbacks::on_user_dialog;
    use twinwire::protocol::control::{UserDialogCompleted, UserDialogResponse};
    let s = Scenario::start(script(
        json!([
            {"when": {"all": [{"model_is": "claude-opus-5"},
                              {"conversation_contains": "FLAGGED_FOR_SAFEGUARDS"}]},
             "reply": {"refusal": {"text": "I can't help with that.", "category": "cyber",
                                   "explanation": "flagged by the safeguards"}}},
            {"when": {"model_is": "claude-opus-4-8"}, "reply": {"text": "served on the fallback model"}}
        ]),
        json!({"echo": true}),
    )).await;
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let asked = Arc::clone(&seen);
    let options = s
        .builder()
        .model("claude-opus-5")
        .settings(json!({"switchModelsOnFlag": false}))
        .supported_dialog_kinds(["refusal_fallback_prompt"])
        .on_user_dialog(on_user_dialog(move |request, _cancel| {
            asked
                .lock()
                .unwrap()
                .push(serde_json::to_string(&request).unwrap());
            async move {
                Ok(UserDialogResponse::Completed(UserDialogCompleted {
                    result: json!("retry_fallback"),
                    ..Default::default()
                }))
            }
        }))
        .build()
        .unwrap();
    let client = s.connect(options).await;
    let mut frames = Vec::new();
    frames.extend(texts(
        &turn(&client, "scan the host FLAGGED_FOR_SAFEGUARDS").await,
    ));
    frames.push("----".into());
    frames.extend(texts(&turn(&client, "and then").await));
    let dialogs = seen.lock().unwrap().clone();
    client.close().await.unwrap();
    dump("dialogs", &s, &frames, json!({"dialogs": dialogs}));
}

#[tokio::test]
async fn probe_dialogs_undeclared() {
    let s = Scenario::start(script(
        json!([
            {"when": {"all": [{"model_is": "claude-opus-5"},
                              {"conversation_contains": "FLAGGED_FOR_SAFEGUARDS"}]},
             "reply": {"refusal": {"text": "I can't help with that.", "category": "cyber",
                                   "explanation": "flagged by the safeguards"}}},
            {"when": {"model_is": "claude-opus-4-8"}, "reply": {"text": "served on the fallback model"}}
        ]),
        json!({"echo": true}),
    )).await;
    let options = s
        .builder()
        .model("claude-opus-5")
        .settings(json!({"switchModelsOnFlag": false}))
        .build()
        .unwrap();
    let client = s.connect(options).await;
    let mut frames = Vec::new();
    frames.extend(texts(
        &turn(&client, "scan the host FLAGGED_FOR_SAFEGUARDS").await,
    ));
    frames.push("----".into());
    frames.extend(texts(&turn(&client, "and then").await));
    client.close().await.unwrap();
    dump("dialogs_undeclared", &s, &frames, json!({}));
}

#[tokio::test]
async fn probe_hooks_all() {
    use twinwire::host::callbacks::can_use_tool;
    use twinwire::protocol::permission::PermissionResult;
    let s = Scenario::start(script(
        json!([
            {"when": {"tool_result_contains": "DENIED-BY-HOST"}, "reply": {"text": "all done"}},
            {"when": {"last_is_tool_result": true}, "reply": {"tool_use": {"name": "Bash", "input": {"command": "touch second.txt", "description": "second"}}}},
            {"when": {"last_user_text_contains": "use the shell"},
             "reply": {"tool_use": {"name": "Bash", "input": {"command": "touch first.txt", "description": "first"}}}}
        ]),
        json!({"text": "unexpected"}),
    )).await;
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let l2 = Arc::clone(&log);
    let options = logging_hooks(s.builder(), &log)
        .can_use_tool(can_use_tool(move |request| {
            l2.lock().unwrap().push(format!(
                "can_use_tool {}",
                serde_json::to_string(request.input()).unwrap()
            ));
            let input = request.input().clone();
            let deny = input["command"].as_str().unwrap_or("").contains("second");
            async move {
                Ok(if deny {
                    PermissionResult::deny("DENIED-BY-HOST")
                } else {
                    PermissionResult::allow(input)
                })
            }
        }))
        .build()
        .unwrap();
    let client = s.connect(options).await;
    let mut frames = Vec::new();
    frames.extend(texts(&turn(&client, "use the shell").await));
    let hooks = log.lock().unwrap().clone();
    client.close().await.unwrap();
    dump("hooks_all", &s, &frames, json!({"hooks": hooks}));
}
