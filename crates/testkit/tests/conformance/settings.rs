//! Settings, skills, plugins and file state changed while the session runs: apply_flag_settings,
//! get_settings, reload_skills, reload_plugins, seed_read_state, rewind_files; a deny rule of
//! each settings source (user, project, local, `--settings`).

use serde_json::json;
use twinwire::protocol::control::SeedReadStateRequest;
use twinwire::protocol::UserMessage;

use twinwire::host::callbacks::{can_use_tool, PermissionRequest};
use twinwire::protocol::permission::PermissionResult;
use twinwire::query;

use crate::{collect, kinds, script, the_result, tool_results, turn, within, Scenario};

#[tokio::test]
async fn applied_flag_settings_show_in_get_settings_and_the_next_request() {
    let s = Scenario::start(script(json!([]), json!({"text": "ok"}))).await;
    let client = s
        .connect(s.builder().model("claude-sonnet-4-5").build().unwrap())
        .await;
    let items = turn(&client, "first question").await;
    assert!(!the_result(&items).is_error);
    let settings = serde_json::Map::from_iter([("model".to_owned(), json!("claude-haiku-4-5"))]);
    within(client.apply_flag_settings(settings)).await.unwrap();
    let current = within(client.get_settings()).await.unwrap();
    let effective = current.effective.clone().expect("effective settings");
    assert_eq!(effective["model"], "claude-haiku-4-5", "{current:?}");
    let items = turn(&client, "second question").await;
    assert!(!the_result(&items).is_error);
    assert_eq!(
        s.requests_for("first question")[0]["model"],
        "claude-sonnet-4-5"
    );
    assert_eq!(
        s.requests_for("second question")[0]["model"],
        "claude-haiku-4-5"
    );
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn a_skill_written_mid_session_appears_after_reload() {
    let s = Scenario::start(script(json!([]), json!({"text": "ok"}))).await;
    let client = s.connect(s.options()).await;
    let items = turn(&client, "hello").await;
    assert!(!the_result(&items).is_error);
    let before = within(client.reload_skills()).await.unwrap();
    assert!(
        before.skills.iter().all(|skill| skill.name != "greet-7c"),
        "{before:?}"
    );
    let dir = s.work().join(".claude/skills/greet-7c");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: greet-7c\ndescription: Greets the user warmly\n---\n\nSay hello.\n",
    )
    .unwrap();
    let after = within(client.reload_skills()).await.unwrap();
    assert!(
        after.skills.iter().any(|skill| skill.name == "greet-7c"),
        "{after:?}"
    );
    // Reloading plugins reloads the commands too, the new skill among them.
    let plugins = within(client.reload_plugins()).await.unwrap();
    assert!(
        plugins
            .commands
            .iter()
            .any(|command| command.name == "greet-7c"),
        "{plugins:?}"
    );
    within(client.close()).await.unwrap();
}

/// A model that edits `notes.txt` without reading it first.
fn edit_script(path: &str) -> twinwire_model_server::ModelScript {
    script(
        json!([
            {"when": {"last_is_tool_result": true}, "reply": {"text": "edited"}},
            {"when": {"last_user_text_contains": "fix the note"},
             "reply": {"tool_use": {"name": "Edit",
                                    "input": {"file_path": path, "old_string": "teh",
                                              "new_string": "the"}}}}
        ]),
        json!({"text": "ok"}),
    )
}

#[tokio::test]
async fn seed_read_state_lets_an_edit_through_without_a_read() {
    let s = Scenario::start_with(|work| edit_script(&work.join("notes.txt").display().to_string()))
        .await;
    let note = s.work().join("notes.txt");
    std::fs::write(&note, "teh cat\n").unwrap();
    let options = s.builder().allowed_tools(["Edit"]).build().unwrap();
    let client = s.connect(options).await;
    let items = turn(&client, "hello").await;
    assert!(!the_result(&items).is_error);
    let mtime = std::fs::metadata(&note)
        .unwrap()
        .modified()
        .unwrap()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let seed = SeedReadStateRequest {
        path: note.display().to_string(),
        mtime: mtime.into(),
        ..SeedReadStateRequest::default()
    };
    within(client.seed_read_state(seed)).await.unwrap();
    let items = turn(&client, "fix the note").await;
    assert_eq!(
        the_result(&items).text(),
        Some("edited"),
        "{}",
        kinds(&items)
    );
    let results = s.tool_results_sent();
    assert_eq!(
        std::fs::read_to_string(&note).unwrap(),
        "the cat\n",
        "tool results: {results:?}\nstderr:\n{}",
        s.stderr()
    );
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn rewind_files_reports_then_restores_a_written_file() {
    let s = Scenario::start_with(|work| {
        let path = work.join("draft.txt").display().to_string();
        // Read, then write: older CLIs refuse to overwrite a file not read first.
        script(
            json!([
                {"when": {"tool_result_contains": "first version"},
                 "reply": {"tool_use": {"name": "Write",
                                        "input": {"file_path": path,
                                                  "content": "second version\n"}}}},
                {"when": {"last_is_tool_result": true}, "reply": {"text": "written"}},
                {"when": {"last_user_text_contains": "write the draft"},
                 "reply": {"tool_use": {"name": "Read", "input": {"file_path": path}}}}
            ]),
            json!({"text": "ok"}),
        )
    })
    .await;
    let draft = s.work().join("draft.txt");
    std::fs::write(&draft, "first version\n").unwrap();
    let options = s
        .builder()
        .enable_file_checkpointing(true)
        .allowed_tools(["Write", "Read"])
        .build()
        .unwrap();
    let client = s.connect(options).await;
    let mut prompt = UserMessage::new("write the draft");
    let checkpoint = "1f0e2d3c-4b5a-4978-8675-a4b3c2d1e0f9";
    prompt.uuid = Some(checkpoint.to_owned());
    within(client.send_message(prompt)).await.unwrap();
    let items = within(futures::StreamExt::collect::<Vec<_>>(
        client.receive_response(),
    ))
    .await;
    assert_eq!(the_result(&items).text(), Some("written"), "{}", s.stderr());
    assert_eq!(std::fs::read_to_string(&draft).unwrap(), "second version\n");

    let dry = within(client.rewind_files(checkpoint, true)).await.unwrap();
    assert!(dry.can_rewind, "{dry:?}");
    let changed = dry.files_changed.clone().unwrap_or_default();
    assert!(
        changed.iter().any(|file| file.ends_with("draft.txt")),
        "{dry:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&draft).unwrap(),
        "second version\n",
        "a dry run changes nothing"
    );
    let done = within(client.rewind_files(checkpoint, false))
        .await
        .unwrap();
    assert!(done.can_rewind, "{done:?}");
    assert_eq!(std::fs::read_to_string(&draft).unwrap(), "first version\n");
    within(client.close()).await.unwrap();
}

/// Where a scenario puts its deny rule.
enum Source {
    User,
    Project,
    Local,
    Flag,
}

/// A deny rule (`Bash(touch:*)`) in `source` stops a Bash command the host would allow: the
/// host is not asked, the command does not run, the model is told it was denied.
async fn a_deny_rule_stops_the_command(source: Source) {
    let s = Scenario::start(script(
        json!([
            {"when": {"last_is_tool_result": true}, "reply": {"text": "done"}},
            {"when": {"last_user_text_contains": "run the command"},
             "reply": {"tool_use": {"name": "Bash",
                                    "input": {"command": "touch denied.txt",
                                              "description": "Make a file"},
                                    "text": "Running it."}}}
        ]),
        json!({"text": "unexpected"}),
    ))
    .await;
    let deny = json!({"permissions": {"deny": ["Bash(touch:*)"]}});
    let file = match source {
        Source::User => Some(s.home().join(".claude/settings.json")),
        Source::Project => Some(s.work().join(".claude/settings.json")),
        Source::Local => Some(s.work().join(".claude/settings.local.json")),
        Source::Flag => None,
    };
    if let Some(file) = &file {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, deny.to_string()).unwrap();
    }
    let asked = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = std::sync::Arc::clone(&asked);
    let callback = can_use_tool(move |request: PermissionRequest| {
        count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        async move { Ok(PermissionResult::allow(request.input().clone())) }
    });
    let mut builder = s.builder().can_use_tool(callback);
    if file.is_none() {
        builder = builder.settings(deny);
    }
    let items = collect(query("please run the command", builder.build().unwrap())).await;
    let result = the_result(&items);
    assert_eq!(result.text(), Some("done"), "stderr:\n{}", s.stderr());
    assert!(!s.work().join("denied.txt").exists(), "the command ran");
    assert_eq!(
        asked.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "the host was asked"
    );
    let denials: Vec<&str> = result
        .permission_denials
        .iter()
        .map(|d| d.tool_name.as_str())
        .collect();
    assert_eq!(denials, ["Bash"], "{result:?}");
}

#[tokio::test]
async fn a_deny_rule_in_project_settings_stops_the_command() {
    a_deny_rule_stops_the_command(Source::Project).await;
}

#[tokio::test]
async fn a_deny_rule_in_user_settings_stops_the_command() {
    a_deny_rule_stops_the_command(Source::User).await;
}

#[tokio::test]
async fn a_deny_rule_in_local_settings_stops_the_command() {
    a_deny_rule_stops_the_command(Source::Local).await;
}

#[tokio::test]
async fn a_deny_rule_in_flag_settings_stops_the_command() {
    a_deny_rule_stops_the_command(Source::Flag).await;
}

/// A prompt hook of the user's settings judges each Bash command with the model: the one it
/// refuses does not run (the model is told in Claude Code's words, and the turn stops), the
/// one it lets through runs.
#[tokio::test]
async fn a_prompt_hook_in_user_settings_judges_each_command_with_the_model() {
    let judged = "Judge this call: ";
    let s = Scenario::start(script(
        json!([
            {"when": {"all": [{"last_user_text_contains": judged},
                              {"last_user_text_contains": "allowed.txt"}]},
             "reply": {"text": "{\"ok\": true, \"reason\": \"harmless\"}"}},
            {"when": {"last_user_text_contains": judged},
             "reply": {"text": "{\"ok\": false, \"reason\": \"no touching allowed\"}"}},
            {"when": {"last_is_tool_result": true}, "reply": {"text": "done"}},
            {"when": {"last_user_text_contains": "make the refused file"},
             "reply": {"tool_use": {"name": "Bash", "input": {"command": "touch refused.txt",
                                                               "description": "Make a file"}}}},
            {"when": {"last_user_text_contains": "make the allowed file"},
             "reply": {"tool_use": {"name": "Bash", "input": {"command": "touch allowed.txt",
                                                               "description": "Make a file"}}}}
        ]),
        json!({"text": "unexpected"}),
    ))
    .await;
    let settings = s.home().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let hooks = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "prompt", "prompt": format!("{judged}$ARGUMENTS")}
    ]}]}});
    std::fs::write(&settings, hooks.to_string()).unwrap();
    let options = s.builder().allowed_tool("Bash").build().unwrap();
    let client = s.connect(options).await;
    let refused = turn(&client, "make the refused file").await;
    assert!(
        !s.work().join("refused.txt").exists(),
        "the refused command ran"
    );
    assert!(
        tool_results(&refused).contains(
            "PreToolUse:Bash hook error: [Judge this call: $ARGUMENTS]: no touching allowed"
        ),
        "{}\nstderr:\n{}",
        tool_results(&refused),
        s.stderr()
    );
    let denials: Vec<&str> = the_result(&refused)
        .permission_denials
        .iter()
        .map(|d| d.tool_name.as_str())
        .collect();
    assert_eq!(denials, ["Bash"]);
    let allowed = turn(&client, "make the allowed file").await;
    assert_eq!(
        the_result(&allowed).text(),
        Some("done"),
        "{}",
        kinds(&allowed)
    );
    assert!(
        s.work().join("allowed.txt").exists(),
        "the allowed command did not run"
    );
    within(client.close()).await.unwrap();
}
