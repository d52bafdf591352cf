//! Claude Code's settings, honoured by `twinwire-agent` over real pipes: a deny rule in each
//! source stops a Bash command the command line allows; `--setting-sources` leaves a source
//! out; `allow`, `ask`, `defaultMode`, `additionalDirectories`, `env` and `model` apply.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};
use support::agent::{result, turn, World};
use twinwire::host::callbacks::{can_use_tool, PermissionRequest};
use twinwire::options::{OptionsBuilder, SettingSource};
use twinwire::protocol::permission::PermissionResult;
use twinwire::Client;

/// A model that asks for `command` in Bash when told "go", then says "done".
async fn world(command: &str) -> World {
    World::new(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": {"text": "done"}},
        {"when": {"last_user_text_contains": "go"}, "reply": {"tool_use": {"name": "Bash",
            "input": {"command": command, "description": "a command"}}}}
    ], "default": {"text": "unexpected"}}))
    .await
}

fn write(path: &Path, value: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, value.to_string()).unwrap();
}

fn deny_touch() -> Value {
    json!({"permissions": {"deny": ["Bash(touch:*)"]}})
}

/// Runs one turn ("go") and gives back the tools the result says were denied.
async fn go(options: OptionsBuilder) -> Vec<String> {
    let client = Client::connect(options.build().unwrap()).await.unwrap();
    client.send("go").await.unwrap();
    let frames = turn(&client).await;
    client.close().await.unwrap();
    result(&frames)
        .permission_denials
        .iter()
        .map(|d| d.tool_name.clone())
        .collect()
}

/// The deny rule of one source stops `touch made.txt`, though `--allowedTools Bash` allows it.
async fn denied_by(place: impl FnOnce(&World) -> OptionsBuilder) {
    let world = world("touch made.txt").await;
    let options = place(&world).allowed_tool("Bash");
    let denials = go(options).await;
    assert_eq!(denials, ["Bash"]);
    assert!(!world.path("made.txt").exists(), "the command did not run");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_deny_rule_the_command_runs() {
    let world = world("touch made.txt").await;
    let denials = go(world.options().allowed_tool("Bash")).await;
    assert!(denials.is_empty());
    assert!(world.path("made.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deny_rule_of_the_user_stops_it() {
    denied_by(|world| {
        write(&world.home.join(".claude/settings.json"), &deny_touch());
        world.options()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deny_rule_of_the_user_in_claude_config_dir_stops_it() {
    denied_by(|world| {
        let dir = world.home.join("elsewhere");
        write(&dir.join("settings.json"), &deny_touch());
        world
            .options()
            .env("CLAUDE_CONFIG_DIR", dir.display().to_string())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deny_rule_of_the_project_stops_it() {
    denied_by(|world| {
        write(&world.work.join(".claude/settings.json"), &deny_touch());
        world.options()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deny_rule_of_the_local_file_stops_it() {
    denied_by(|world| {
        write(
            &world.work.join(".claude/settings.local.json"),
            &deny_touch(),
        );
        world.options()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deny_rule_of_settings_json_given_inline_stops_it() {
    denied_by(|world| world.options().settings(deny_touch())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deny_rule_of_a_settings_file_stops_it() {
    denied_by(|world| {
        let file = world.home.join("flag-settings.json");
        write(&file, &deny_touch());
        world.options().settings_file(file)
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deny_rule_of_the_managed_settings_stops_it() {
    denied_by(|world| {
        let Value::Object(managed) = deny_touch() else {
            unreachable!()
        };
        world.options().managed_settings(managed)
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setting_sources_leave_a_source_out() {
    let world = world("touch made.txt").await;
    write(&world.work.join(".claude/settings.json"), &deny_touch());
    let options = world
        .options()
        .allowed_tool("Bash")
        .setting_sources([SettingSource::User, SettingSource::Local]);
    assert!(go(options).await.is_empty());
    assert!(
        world.path("made.txt").exists(),
        "the project's rule was not read"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allow_rules_and_env_of_the_settings_apply_to_the_tools() {
    let world = world("printenv FROM_SETTINGS").await;
    write(
        &world.work.join(".claude/settings.json"),
        &json!({"permissions": {"allow": ["Bash(printenv:*)"]},
                "env": {"FROM_SETTINGS": "yes-from-settings"}}),
    );
    assert!(go(world.options()).await.is_empty());
    let sent = serde_json::to_string(&world.model_requests()).unwrap();
    assert!(
        sent.contains("yes-from-settings"),
        "printenv saw the variable"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ask_rule_asks_even_where_an_allow_rule_would_let_it_run() {
    let world = world("touch made.txt").await;
    write(
        &world.home.join(".claude/settings.json"),
        &json!({"permissions": {"ask": ["Bash(touch:*)"]}}),
    );
    // Nobody can be asked (no can_use_tool callback): asked means refused.
    let denials = go(world.options().allowed_tool("Bash")).await;
    assert_eq!(denials, ["Bash"]);
    assert!(!world.path("made.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn default_mode_of_the_user_applies_and_the_project_cannot_widen_it() {
    // The user's plan mode: the command is refused without asking a host that would allow it.
    let world = world("touch made.txt").await;
    write(
        &world.home.join(".claude/settings.json"),
        &json!({"permissions": {"defaultMode": "plan"}}),
    );
    let asked = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&asked);
    let callback = can_use_tool(move |request: PermissionRequest| {
        count.fetch_add(1, Ordering::SeqCst);
        async move { Ok(PermissionResult::allow(request.input().clone())) }
    });
    let denials = go(world.options().can_use_tool(callback)).await;
    assert_eq!(denials, ["Bash"]);
    assert_eq!(
        asked.load(Ordering::SeqCst),
        0,
        "plan mode asks nobody about a command"
    );
    assert!(!world.path("made.txt").exists());
    // The project's bypassPermissions is left out: the default mode refuses the command (no
    // host to ask), where bypassPermissions would have run it.
    let world = self::world("touch made.txt").await;
    write(
        &world.work.join(".claude/settings.json"),
        &json!({"permissions": {"defaultMode": "bypassPermissions"}}),
    );
    assert_eq!(go(world.options()).await, ["Bash"]);
    assert!(!world.path("made.txt").exists());
    // A widening mode from the user's own file is taken.
    let world = self::world("touch made.txt").await;
    write(
        &world.home.join(".claude/settings.json"),
        &json!({"permissions": {"defaultMode": "acceptEdits"}}),
    );
    assert!(go(world.options()).await.is_empty());
    assert!(world.path("made.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn additional_directories_are_read_without_asking() {
    let world = world("cat ../shared/notes.txt").await;
    let shared = world.work.parent().unwrap().join("shared");
    std::fs::create_dir_all(&shared).unwrap();
    std::fs::write(shared.join("notes.txt"), "shared notes").unwrap();
    // Without the setting, a read outside is not one the mode allows (and nobody is asked).
    assert_eq!(go(world.options()).await, ["Bash"]);
    write(
        &world.work.join(".claude/settings.json"),
        &json!({"permissions": {"additionalDirectories": ["../shared"]}}),
    );
    assert!(go(world.options()).await.is_empty());
    let sent = serde_json::to_string(&world.model_requests()).unwrap();
    assert!(
        sent.contains("shared notes"),
        "the file's text went to the model"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_of_the_settings_is_asked_for() {
    let world = world("true").await;
    write(
        &world.home.join(".claude/settings.json"),
        &json!({"model": "haiku"}),
    );
    go(world.options()).await;
    let models: Vec<String> = world
        .model_requests()
        .iter()
        .filter_map(|r| r["model"].as_str().map(str::to_owned))
        .collect();
    assert!(!models.is_empty());
    assert!(models.iter().all(|m| m == "claude-haiku-5-5"), "{models:?}");
}

/// A PreToolUse command hook of the project's settings that exits 2 refuses the call, its
/// stderr told to the model; `disableAllHooks` of the user's settings turns it off.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pre_tool_use_command_hook_of_the_settings_blocks_and_can_be_disabled() {
    let hook = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command",
         "command": "cat > \"$CLAUDE_PROJECT_DIR/hook-input.json\"; echo no touching here >&2; exit 2"}
    ]}]}});
    let world = world("touch made.txt").await;
    write(&world.work.join(".claude/settings.json"), &hook);
    go(world.options().allowed_tool("Bash")).await;
    assert!(!world.path("made.txt").exists(), "the hook did not block");
    let sent = serde_json::to_string(&world.model_requests()).unwrap();
    assert!(sent.contains("no touching here"), "the model was told why");
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(world.path("hook-input.json")).unwrap())
            .unwrap();
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_input"]["command"], "touch made.txt");

    let world = self::world("touch made.txt").await;
    write(&world.work.join(".claude/settings.json"), &hook);
    write(
        &world.home.join(".claude/settings.json"),
        &json!({"disableAllHooks": true}),
    );
    go(world.options().allowed_tool("Bash")).await;
    assert!(
        world.path("made.txt").exists(),
        "disableAllHooks let it run"
    );
}

/// Hooks are read when the session starts: one the model writes into the settings during the
/// session does not run (SessionEnd's neither, though they run after the last turn).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_written_during_the_session_does_not_run() {
    let planted = json!({"hooks": {
        "PreToolUse": [{"hooks": [
            {"type": "command", "command": "touch \"$CLAUDE_PROJECT_DIR/planted\""}]}],
        "SessionEnd": [{"hooks": [
            {"type": "command", "command": "touch \"$CLAUDE_PROJECT_DIR/planted-end\""}]}]
    }})
    .to_string();
    let world = World::new(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": {"text": "done"}},
        {"when": {"last_user_text_contains": "go"}, "reply": {"tool_uses": {"calls": [
            {"name": "Bash", "input": {"command":
                format!("mkdir -p .claude && echo '{planted}' > .claude/settings.json"),
                "description": "write settings"}},
            {"name": "Bash", "input": {"command": "echo after", "description": "then"}}
        ]}}}
    ], "default": {"text": "unexpected"}}))
    .await;
    go(world.options().allowed_tool("Bash")).await;
    assert!(
        world.work.join(".claude/settings.json").exists(),
        "the file was written"
    );
    assert!(
        !world.path("planted").exists(),
        "a hook written mid-session ran"
    );
}

/// The project's settings cannot point the API elsewhere (the key would go there); the user's
/// can.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_project_cannot_send_the_key_elsewhere() {
    let elsewhere = json!({"env": {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
                                   "FROM_PROJECT": "kept"}});
    let world = world("printenv FROM_PROJECT").await;
    write(&world.work.join(".claude/settings.json"), &elsewhere);
    assert!(go(world.options().allowed_tool("Bash")).await.is_empty());
    let sent = serde_json::to_string(&world.model_requests()).unwrap();
    assert!(
        sent.contains("kept"),
        "the model server was called, the rest of env applied"
    );
    // The same from the user's file is taken: the model server is not reached.
    let world = self::world("true").await;
    write(&world.home.join(".claude/settings.json"), &elsewhere);
    let client = Client::connect(world.options().build().unwrap())
        .await
        .unwrap();
    client.send("go").await.unwrap();
    let frames = turn(&client).await;
    client.close().await.unwrap();
    assert!(result(&frames).is_error);
    assert!(world.model_requests().is_empty());
}
