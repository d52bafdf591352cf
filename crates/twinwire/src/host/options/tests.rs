//! Unit tests of the wire mapping: argv, environment, `initialize`, engine settings.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::sync::Arc;

use serde_json::{json, Value};
use twinwire_protocol::control::{
    EffortLevel, LocalPluginConfig, SdkPluginConfig, ThinkingDisplay,
};
use twinwire_protocol::hooks::HookMatchers;
use twinwire_protocol::mcp::McpServerConfig;
use twinwire_protocol::permission::{PermissionMode, PermissionResult};

use super::argv::FIXED_ARGS;
use super::*;
use crate::host::callbacks::{can_use_tool, CanUseTool};

mod initialize;
mod python_reference;
mod validation;

fn allow_all() -> Arc<dyn CanUseTool> {
    can_use_tool(|request| async move { Ok(PermissionResult::allow(request.input().clone())) })
}

fn args(options: &Options) -> Vec<String> {
    options
        .command_args()
        .into_iter()
        .map(|arg| arg.into_string().expect("utf-8"))
        .collect()
}

/// Splits argv into `(flag, value)` pairs: `--flag=value`, or `--flag value` when the next
/// element is not a flag.
fn pairs(argv: &[String]) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < argv.len() {
        let arg = &argv[i];
        assert!(arg.starts_with("--"), "not a flag: {arg:?} in {argv:?}");
        if let Some((flag, value)) = arg.split_once('=') {
            out.push((flag.to_owned(), Some(value.to_owned())));
        } else if argv.get(i + 1).is_some_and(|next| !next.starts_with("--")) {
            out.push((arg.clone(), Some(argv[i + 1].clone())));
            i += 1;
        } else {
            out.push((arg.clone(), None));
        }
        i += 1;
    }
    out
}

/// The environment the child gets: `parent` with `changes` applied in order.
fn apply_env(
    parent: &[(&str, &str)],
    changes: Vec<(OsString, Option<OsString>)>,
) -> BTreeMap<String, String> {
    let mut env: BTreeMap<String, String> = parent
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    for (key, value) in changes {
        let key = key.into_string().expect("utf-8");
        match value {
            Some(value) => env.insert(key, value.into_string().expect("utf-8")),
            None => env.remove(&key),
        };
    }
    env
}

fn rich() -> Options {
    Options::builder()
        .thinking(Thinking::Enabled {
            budget_tokens: 4096,
        })
        .thinking_display(ThinkingDisplay::Summarized)
        .effort(EffortLevel::High)
        .max_turns(7)
        .max_budget_usd(1.5)
        .task_budget(20_000)
        .model("-model-with-dash")
        .agent("reviewer")
        .betas(["context-1m-2025-08-07", "b2"])
        .json_schema(json!({"type": "object"}))
        .debug_file("/tmp/debug.log")
        .can_use_tool(allow_all())
        .permission_prompts(PermissionPrompts::Host)
        .resume("11111111-2222-3333-4444-555555555555")
        .allowed_tools(["Read", "Bash(git log:*)"])
        .skills(Skills::Only(vec!["pdf".into()]))
        .disallowed_tools(["WebFetch"])
        .tools(Tools::only(["Read", "Bash"]))
        .mcp_server(
            "files",
            McpServerConfig::stdio("mcp-files", vec!["--root".into()]),
        )
        .mcp_config_file("/etc/mcp.json")
        .setting_sources([SettingSource::User, SettingSource::Project])
        .strict_mcp_config(true)
        .permission_mode(PermissionMode::AcceptEdits)
        .allow_dangerously_skip_permissions(true)
        .fallback_model("haiku")
        .include_hook_events(true)
        .include_partial_messages(true)
        .project_config_root("/repo")
        .add_dirs(["/a", "-dir"])
        .plugins(vec![
            SdkPluginConfig::Local(LocalPluginConfig {
                path: "/p1".into(),
                ..LocalPluginConfig::default()
            }),
            SdkPluginConfig::Local(LocalPluginConfig {
                path: "/p2".into(),
                skip_mcp_discovery: Some(true),
                ..LocalPluginConfig::default()
            }),
        ])
        .fork_session(true)
        .resume_session_at("-starts-with-dash")
        .resume_drops_turn("99999999-2222-3333-4444-555555555555")
        .session_id("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee")
        .persist_session(false)
        .managed_settings(
            json!({"permissions": {"deny": ["Bash"]}})
                .as_object()
                .cloned()
                .expect("object"),
        )
        .system_prompt(SystemPrompt::File("/prompt.md".into()))
        .settings(json!({"model": "opus"}))
        .extra_arg("replay-user-messages", None::<String>)
        .extra_arg("workload", Some("-batch"))
        .build()
        .expect("valid options")
}

#[test]
fn rich_argv_binds_every_value_with_equals() {
    let argv = args(&rich());
    let expected = [
        "--output-format",
        "stream-json",
        "--verbose",
        "--input-format",
        "stream-json",
        "--max-thinking-tokens=4096",
        "--thinking-display=summarized",
        "--effort=high",
        "--max-turns=7",
        "--max-budget-usd=1.5",
        "--task-budget=20000",
        "--model=-model-with-dash",
        "--agent=reviewer",
        "--betas=context-1m-2025-08-07",
        "--betas=b2",
        r#"--json-schema={"type":"object"}"#,
        "--debug-file=/tmp/debug.log",
        "--permission-prompt-tool=stdio",
        "--permission-prompts=host",
        "--resume=11111111-2222-3333-4444-555555555555",
        "--allowedTools=Read,Bash(git log:*),Skill(pdf)",
        "--disallowedTools=WebFetch",
        "--tools=Read,Bash",
        r#"--mcp-config={"mcpServers":{"files":{"args":["--root"],"command":"mcp-files"}}}"#,
        "--mcp-config=/etc/mcp.json",
        "--setting-sources=user,project",
        "--strict-mcp-config",
        "--permission-mode=acceptEdits",
        "--allow-dangerously-skip-permissions",
        "--fallback-model=haiku",
        "--include-hook-events",
        "--include-partial-messages",
        "--project-config-root=/repo",
        "--add-dir=/a",
        "--add-dir=-dir",
        "--plugin-dir=/p1",
        "--plugin-dir-no-mcp=/p2",
        "--fork-session",
        "--resume-session-at=-starts-with-dash",
        "--resume-drops-turn=99999999-2222-3333-4444-555555555555",
        "--session-id=aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
        "--no-session-persistence",
        r#"--managed-settings={"permissions":{"deny":["Bash"]}}"#,
        "--system-prompt-file=/prompt.md",
        r#"--settings={"model":"opus"}"#,
        "--replay-user-messages",
        "--workload=-batch",
    ];
    assert_eq!(argv, expected);
}

#[test]
fn after_the_fixed_prefix_every_element_is_one_flag() {
    let argv = args(&rich());
    assert_eq!(argv[..FIXED_ARGS.len()], FIXED_ARGS);
    const BARE: &[&str] = &[
        "--strict-mcp-config",
        "--allow-dangerously-skip-permissions",
        "--include-hook-events",
        "--include-partial-messages",
        "--fork-session",
        "--no-session-persistence",
        "--replay-user-messages",
    ];
    for arg in &argv[FIXED_ARGS.len()..] {
        assert!(arg.starts_with("--"), "{arg:?}");
        assert!(
            arg.contains('=') || BARE.contains(&arg.as_str()),
            "value not bound with `=`: {arg:?}"
        );
    }
    // Values that start with `-` stay inside their flag's element.
    assert!(argv.contains(&"--add-dir=-dir".to_owned()));
    assert!(!argv.iter().any(|arg| arg == "-dir" || arg == "-batch"));
}

#[test]
fn default_argv_is_only_the_fixed_prefix() {
    assert_eq!(args(&Options::default()), FIXED_ARGS);
}

#[test]
fn thinking_maps_like_the_official_sdks() {
    let argv_for = |builder: OptionsBuilder| args(&builder.build().expect("valid"));
    let adaptive = argv_for(
        Options::builder()
            .thinking(Thinking::Adaptive)
            .thinking_display(ThinkingDisplay::Omitted),
    );
    assert!(adaptive.ends_with(&[
        "--thinking=adaptive".into(),
        "--thinking-display=omitted".into()
    ]));
    let disabled = argv_for(
        Options::builder()
            .max_thinking_tokens(0)
            .thinking_display(ThinkingDisplay::Omitted),
    );
    assert!(disabled.ends_with(&["--thinking=disabled".into()]));
    let budget = argv_for(Options::builder().max_thinking_tokens(1024));
    assert!(budget.ends_with(&["--max-thinking-tokens=1024".into()]));
}

#[test]
fn tools_preset_and_empty_list() {
    let preset = args(
        &Options::builder()
            .tools(Tools::Preset)
            .build()
            .expect("valid"),
    );
    assert!(preset.contains(&"--tools=default".to_owned()));
    let none = args(
        &Options::builder()
            .tools(Tools::none())
            .build()
            .expect("valid"),
    );
    assert!(none.contains(&"--tools=".to_owned()));
    let all_skills = args(
        &Options::builder()
            .skills(Skills::All)
            .build()
            .expect("valid"),
    );
    assert!(all_skills.contains(&"--allowedTools=Skill".to_owned()));
}

#[test]
fn permission_prompt_tool_name_without_callback() {
    let argv = args(
        &Options::builder()
            .permission_prompt_tool_name("mcp__auth__approve")
            .build()
            .expect("valid"),
    );
    assert!(argv.contains(&"--permission-prompt-tool=mcp__auth__approve".to_owned()));
}

#[test]
fn sandbox_is_merged_into_inline_settings() {
    let options = Options::builder()
        .settings(json!({"model": "opus", "sandbox": {"excludedCommands": ["git"]}}))
        .sandbox(SandboxSettings {
            enabled: Some(true),
            ..SandboxSettings::default()
        })
        .build()
        .expect("valid");
    let argv = args(&options);
    let settings = argv
        .iter()
        .find_map(|arg| arg.strip_prefix("--settings="))
        .expect("--settings");
    let settings: Value = serde_json::from_str(settings).expect("json");
    assert_eq!(
        settings,
        json!({"model": "opus", "sandbox": {
            "excludedCommands": ["git"], "enabled": true, "failIfUnavailable": true
        }})
    );
}

#[test]
fn sandbox_alone_becomes_settings() {
    let options = Options::builder()
        .sandbox(SandboxSettings {
            auto_allow_bash_if_sandboxed: Some(true),
            ..SandboxSettings::default()
        })
        .build()
        .expect("valid");
    assert!(args(&options)
        .contains(&r#"--settings={"sandbox":{"autoAllowBashIfSandboxed":true}}"#.to_owned()));
}

#[test]
fn env_sets_removes_and_lets_the_user_override() {
    let options = Options::builder()
        .cwd("/work/project")
        .enable_file_checkpointing(true)
        .client_app("my-app/1.0")
        .question_preview_format(QuestionPreviewFormat::Html)
        .env("CLAUDE_CODE_ENTRYPOINT", "custom")
        .env("ANTHROPIC_API_KEY", "sk-test")
        .env("NODE_OPTIONS", "--max-old-space-size=4096")
        .env_remove("HOME")
        .build()
        .expect("valid");
    let parent = [
        ("CLAUDECODE", "1"),
        ("HOME", "/root"),
        ("PATH", "/bin"),
        ("CLAUDE_CODE_SDK_READS_SESSION_STATE", "0"),
    ];
    let env = apply_env(&parent, options.env());
    let expected: BTreeMap<String, String> = [
        ("ANTHROPIC_API_KEY", "sk-test"),
        ("CLAUDE_AGENT_SDK_CLIENT_APP", "my-app/1.0"),
        ("CLAUDE_AGENT_SDK_VERSION", env!("CARGO_PKG_VERSION")),
        ("CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING", "true"),
        ("CLAUDE_CODE_ENTRYPOINT", "custom"),
        ("CLAUDE_CODE_QUESTION_PREVIEW_FORMAT", "html"),
        ("CLAUDE_CODE_SDK_READS_SESSION_STATE", "1"),
        ("NODE_OPTIONS", "--max-old-space-size=4096"),
        ("PATH", "/bin"),
        ("PWD", "/work/project"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    assert_eq!(env, expected);
}

#[test]
fn default_env_identifies_the_sdk_and_removes_nesting_markers() {
    let env = Options::default().env();
    let get = |key: &str| {
        env.iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(get("CLAUDE_CODE_ENTRYPOINT"), Some(Some("sdk-rust".into())));
    assert_eq!(
        get("CLAUDE_AGENT_SDK_VERSION"),
        Some(Some(env!("CARGO_PKG_VERSION").into()))
    );
    assert_eq!(
        get("CLAUDE_CODE_SDK_READS_SESSION_STATE"),
        Some(Some("1".into()))
    );
    assert_eq!(get("CLAUDECODE"), Some(None));
    assert_eq!(get("NODE_OPTIONS"), Some(None));
    assert_eq!(get("CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING"), None);
    assert_eq!(get("PWD"), None);
}

#[test]
fn setting_an_env_var_twice_keeps_the_last_value_once() {
    let options = Options::builder()
        .env("A", "1")
        .env("A", "2")
        .build()
        .expect("valid");
    assert_eq!(options.env, vec![("A".into(), Some("2".into()))]);
}

fn initialize_json(options: &Options, hooks: Option<HookMatchers>, sdk: Vec<String>) -> Value {
    serde_json::to_value(options.initialize_request(hooks, sdk)).expect("serialize")
}
