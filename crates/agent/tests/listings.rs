//! The configuration a host can see and write, over real pipes: the hooks of the settings and
//! the host's callbacks (`get_hooks_listing`), the rules in force with their sources
//! (`list_permission_rules`), the output styles, and `update_settings` writing the local
//! file, which chooses the style of the next session.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;

use serde_json::{json, Value};
use support::agent::{turn, World};
use twinwire::host::callbacks::{hook, HookMatcher};
use twinwire::protocol::control::{RuleBehavior, RuleSource, UpdateSettingsSource};
use twinwire::protocol::hooks::{HookEvent, HookInput, HookOutput};
use twinwire::Client;

fn write(path: &Path, value: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, value.to_string()).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_and_rules_are_listed_with_where_they_come_from() {
    let world = World::new(json!({"rules": [], "default": {"text": "ok"}})).await;
    write(
        &world.home.join(".claude/settings.json"),
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "echo checked", "timeout": 5},
            {"type": "prompt", "prompt": "Is this safe?"}
        ]}]}, "permissions": {"deny": ["Bash(rm:*)"]}}),
    );
    write(
        &world.work.join(".claude/settings.json"),
        &json!({"permissions": {"allow": ["Bash(npm test)"], "ask": ["Bash(git push:*)"]}}),
    );
    let stop = hook(|_: HookInput, _cx| async { Ok(HookOutput::proceed()) });
    let options = world
        .options()
        .allowed_tool("Bash(ls:*)")
        .hook(HookEvent::Stop, HookMatcher::all(stop))
        .build()
        .unwrap();
    let client = Client::connect(options).await.unwrap();
    let listing = client.get_hooks_listing().await.unwrap();
    let rows: Vec<(&str, &str, &str, Option<bool>)> = listing
        .hooks
        .iter()
        .map(|r| {
            (
                r.event.as_str(),
                r.source.as_str(),
                r.hook_type.as_str(),
                r.disabled,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("PreToolUse", "userSettings", "command", None),
            ("PreToolUse", "userSettings", "prompt", None),
            ("Stop", "sessionHook", "callback", None),
        ],
        "{listing:#?}"
    );
    assert_eq!(listing.hooks[0].command_text, "echo checked");
    assert_eq!(listing.hooks[0].matcher, "Bash");
    let events: Vec<(&str, u64)> = listing
        .events
        .iter()
        .map(|e| (e.name.as_str(), e.hook_count))
        .collect();
    assert_eq!(events, [("PreToolUse", 2), ("Stop", 1)]);
    assert!(listing.event_catalog.iter().any(|e| e.name == "SessionEnd"));

    let rules = client.list_permission_rules().await.unwrap().state.rules;
    let rules: Vec<(RuleBehavior, RuleSource, &str)> = rules
        .iter()
        .map(|r| (r.behavior.clone(), r.source.clone(), r.rule.as_str()))
        .collect();
    for expected in [
        (RuleBehavior::Allow, RuleSource::CliArg, "Bash(ls:*)"),
        (
            RuleBehavior::Allow,
            RuleSource::ProjectSettings,
            "Bash(npm test)",
        ),
        (RuleBehavior::Deny, RuleSource::UserSettings, "Bash(rm:*)"),
        (
            RuleBehavior::Ask,
            RuleSource::ProjectSettings,
            "Bash(git push:*)",
        ),
    ] {
        assert!(rules.contains(&expected), "{expected:?} not in {rules:?}");
    }
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_style_written_with_update_settings_shapes_the_next_session() {
    let world = World::new(json!({"rules": [], "default": {"text": "ok"}})).await;
    write(
        &world.work.join(".claude/settings.local.json"),
        &json!({"keep": "me"}),
    );
    let client = Client::connect(world.options().build().unwrap())
        .await
        .unwrap();
    let styles = client.reload_output_styles().await.unwrap();
    assert!(styles
        .available_output_styles
        .contains(&"Concise".to_owned()));
    let mut settings = serde_json::Map::new();
    settings.insert("outputStyle".into(), json!("Concise"));
    client
        .update_settings(UpdateSettingsSource::LocalSettings, settings)
        .await
        .unwrap();
    // Keys the writer does not take, and values that are not strings, are refused by name.
    for (key, value) in [
        ("permissions", json!({"allow": ["Bash"]})),
        ("outputStyle", json!(3)),
    ] {
        let mut settings = serde_json::Map::new();
        settings.insert(key.into(), value);
        let refused = client
            .update_settings(UpdateSettingsSource::LocalSettings, settings)
            .await
            .unwrap_err();
        assert!(refused.to_string().contains(key), "{refused}");
    }
    client.close().await.unwrap();
    let local = world.work.join(".claude/settings.local.json");
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&local).unwrap()).unwrap();
    assert_eq!(written, json!({"keep": "me", "outputStyle": "Concise"}));

    let client = Client::connect(world.options().build().unwrap())
        .await
        .unwrap();
    client.send("hello").await.unwrap();
    turn(&client).await;
    client.close().await.unwrap();
    let system = world.model_requests().last().unwrap()["system"].to_string();
    assert!(system.contains("Output style: Concise"), "{system}");

    // A file that is not a JSON object is left as it is.
    std::fs::write(&local, "not json").unwrap();
    let client = Client::connect(world.options().build().unwrap())
        .await
        .unwrap();
    let mut settings = serde_json::Map::new();
    settings.insert("outputStyle".into(), json!("Learning"));
    assert!(client
        .update_settings(UpdateSettingsSource::LocalSettings, settings)
        .await
        .is_err());
    client.close().await.unwrap();
    assert_eq!(std::fs::read_to_string(&local).unwrap(), "not json");
}
