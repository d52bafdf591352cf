//! Hook callbacks answered from Rust: the order the CLI fires them in, and a `PreToolUse`
//! hook that denies.

use std::sync::{Arc, Mutex};

use serde_json::json;
use twinwire::host::callbacks::{can_use_tool, hook, HookCallback, HookMatcher};
use twinwire::protocol::hooks::{HookEvent, HookInput, HookOutput, HookPermissionDecision};
use twinwire::protocol::permission::PermissionResult;
use twinwire::query;

use crate::{collect, request_tool_results, script, the_result, tool_results, Scenario};

type Log = Arc<Mutex<Vec<String>>>;

fn bash_script(command: &str) -> twinwire_model_server::ModelScript {
    script(
        json!([
            {"when": {"last_is_tool_result": true}, "reply": {"text": "hooks done"}},
            {"when": {"last_user_text_contains": "use the shell"},
             "reply": {"tool_use": {"name": "Bash", "input": {"command": command}}}}
        ]),
        json!({"text": "unexpected"}),
    )
}

/// A hook that logs `Event` or `Event:Tool` and answers with `answer`.
fn logging(log: &Log, answer: fn(&HookInput) -> HookOutput) -> Arc<dyn HookCallback> {
    let log = Arc::clone(log);
    hook(move |input: HookInput, _cx| {
        let entry = match &input {
            HookInput::PreToolUse(pre) => format!("PreToolUse:{}", pre.tool_name),
            HookInput::PostToolUse(post) => format!("PostToolUse:{}", post.tool_name),
            other => other.tag().to_owned(),
        };
        log.lock().unwrap().push(entry);
        let output = answer(&input);
        async move { Ok(output) }
    })
}

#[tokio::test]
async fn hooks_fire_in_order_around_the_permission_request() {
    let s = Scenario::start(bash_script("touch hooked.txt")).await;
    let log = Log::default();
    let proceed = |_: &HookInput| HookOutput::proceed();
    let permission_log = Arc::clone(&log);
    let options = s
        .builder()
        .hook(
            HookEvent::UserPromptSubmit,
            HookMatcher::all(logging(&log, proceed)),
        )
        .hook(
            HookEvent::PreToolUse,
            HookMatcher::all(logging(&log, proceed)),
        )
        .hook(
            HookEvent::PostToolUse,
            HookMatcher::matching("Bash", logging(&log, proceed)),
        )
        .hook(HookEvent::Stop, HookMatcher::all(logging(&log, proceed)))
        .can_use_tool(can_use_tool(move |request| {
            permission_log
                .lock()
                .unwrap()
                .push(format!("can_use_tool:{}", request.tool_name()));
            let input = request.input().clone();
            async move { Ok(PermissionResult::allow(input)) }
        }))
        .build()
        .unwrap();
    let items = collect(query("use the shell", options)).await;
    let result = the_result(&items);
    assert!(!result.is_error, "{result:?}\nstderr:\n{}", s.stderr());
    assert_eq!(result.text(), Some("hooks done"));
    assert!(
        s.work().join("hooked.txt").is_file(),
        "{}",
        tool_results(&items)
    );
    let order = log.lock().unwrap().clone();
    assert_eq!(
        order,
        [
            "UserPromptSubmit",
            "PreToolUse:Bash",
            "can_use_tool:Bash",
            "PostToolUse:Bash",
            "Stop"
        ]
    );
}

#[tokio::test]
async fn a_pre_tool_use_hook_denies_the_tool() {
    let s = Scenario::start(bash_script("touch blocked.txt")).await;
    let log = Log::default();
    let permission_log = Arc::clone(&log);
    let options = s
        .builder()
        .hook(
            HookEvent::PreToolUse,
            HookMatcher::matching(
                "Bash",
                logging(&log, |_| {
                    HookOutput::pre_tool_use_decision(
                        HookPermissionDecision::Deny,
                        "the hook says no shell",
                    )
                }),
            ),
        )
        .hook(
            HookEvent::PostToolUse,
            HookMatcher::all(logging(&log, |_| HookOutput::proceed())),
        )
        .can_use_tool(can_use_tool(move |request| {
            permission_log
                .lock()
                .unwrap()
                .push(format!("can_use_tool:{}", request.tool_name()));
            let input = request.input().clone();
            async move { Ok(PermissionResult::allow(input)) }
        }))
        .build()
        .unwrap();
    let items = collect(query("use the shell", options)).await;
    let result = the_result(&items);
    assert_eq!(result.text(), Some("hooks done"), "{result:?}");
    assert!(!s.work().join("blocked.txt").exists());
    // Denied before any permission request; the tool never ran, so no PostToolUse.
    assert_eq!(log.lock().unwrap().clone(), ["PreToolUse:Bash"]);
    assert!(tool_results(&items).contains("the hook says no shell"));
    let told = s
        .message_requests()
        .iter()
        .any(|body| request_tool_results(body).contains("the hook says no shell"));
    assert!(told, "the hook's reason reached the model");
}

/// `SessionStart` and `SessionEnd` hooks registered from code: no CLI calls them from
/// `initialize` (the session has started before it registers them, and at its end it sends no
/// callback), so twinwire's host calls them itself and does not send them: `SessionStart`
/// before the first prompt, its context going with that prompt to the model, `SessionEnd` when
/// the input ends. Each runs once, in order around the turn, on every generation and on
/// twinwire-agent alike.
#[tokio::test]
async fn session_start_and_end_hooks_from_code_are_called_once_by_the_host() {
    let s = Scenario::start(script(json!([]), json!({"text": "ok"}))).await;
    let log = Log::default();
    let with_context = |input: &HookInput| match input {
        HookInput::SessionStart(_) => {
            HookOutput::proceed().with_specific(twinwire::protocol::hooks::SessionStartOutput {
                additional_context: Some("The password is PELICAN-4411.".to_owned()),
                ..Default::default()
            })
        }
        _ => HookOutput::proceed(),
    };
    let options = s
        .builder()
        .hook(
            HookEvent::SessionStart,
            HookMatcher::all(logging(&log, with_context)),
        )
        .hook(
            HookEvent::SessionEnd,
            HookMatcher::all(logging(&log, |_| HookOutput::proceed())),
        )
        // Called by the CLI, between the two the host calls.
        .hook(
            HookEvent::UserPromptSubmit,
            HookMatcher::all(logging(&log, |_| HookOutput::proceed())),
        )
        .build()
        .unwrap();
    // `query` ends the input after the turn and waits for the CLI to exit: SessionEnd's time.
    let items = collect(query("hello there", options)).await;
    let result = the_result(&items);
    assert!(!result.is_error, "{result:?}\nstderr:\n{}", s.stderr());
    assert_eq!(result.text(), Some("ok"));
    let requests = s.requests_for("hello there");
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert!(
        requests[0].to_string().contains("PELICAN-4411"),
        "the SessionStart context did not reach the model"
    );
    assert_eq!(
        *log.lock().unwrap(),
        ["SessionStart", "UserPromptSubmit", "SessionEnd"]
    );
}

/// A `SessionEnd` hook from a settings file runs when the host's input ends (`query` closes it
/// after the turn), with `reason: "other"` and the session's id, cwd and transcript; a second
/// one that would hang is stopped within the CLI's time budget (1.5 s), killed with what it
/// started, and the session still ends.
#[tokio::test]
async fn a_settings_file_session_end_hook_runs_when_the_input_ends() {
    let s = Scenario::start(script(json!([]), json!({"text": "ok"}))).await;
    let root = s.work().parent().unwrap().to_owned();
    let (seen, hung) = (root.join("session-end.json"), root.join("hung.pid"));
    let quoted = |path: &std::path::Path| format!("'{}'", path.display());
    let settings = json!({"hooks": {"SessionEnd": [{"hooks": [
        {"type": "command", "command": format!("cat > {}", quoted(&seen))},
        {"type": "command", "command": format!("echo $$ > {}; exec sleep 600", quoted(&hung))}
    ]}]}});
    std::fs::create_dir_all(s.work().join(".claude")).unwrap();
    std::fs::write(s.work().join(".claude/settings.json"), settings.to_string()).unwrap();
    let items = collect(query("hello there", s.options())).await;
    let result = the_result(&items);
    assert!(!result.is_error, "{result:?}\nstderr:\n{}", s.stderr());
    let text = std::fs::read_to_string(&seen).unwrap_or_else(|err| {
        panic!(
            "the SessionEnd hook wrote nothing ({err}); stderr:\n{}",
            s.stderr()
        )
    });
    let input: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(input["hook_event_name"], "SessionEnd", "{input}");
    assert_eq!(input["reason"], "other", "{input}");
    assert_eq!(input["session_id"], result.session_id.as_str(), "{input}");
    assert_eq!(input["cwd"], s.work().display().to_string(), "{input}");
    let transcript = input["transcript_path"].as_str().unwrap_or_default();
    assert!(
        transcript.ends_with(&format!("{}.jsonl", result.session_id)),
        "{input}"
    );
    // The hook that would have slept ten minutes started and is gone (or a zombie waiting
    // for its reaper): the CLI did not wait for it, nor leave it behind.
    let pid = std::fs::read_to_string(&hung).expect("the hanging hook started");
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).unwrap_or_default();
    let state = stat
        .rsplit(')')
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .next();
    assert!(
        matches!(state, None | Some("Z" | "X")),
        "the hanging SessionEnd hook is still running: {stat}"
    );
}
