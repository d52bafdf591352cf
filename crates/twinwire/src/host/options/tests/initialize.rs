//! `initialize`, engine settings, callbacks and `Debug`.

use std::time::Duration;

use serde_json::json;
use twinwire_protocol::control::AgentDefinition;
use twinwire_protocol::hooks::{HookCallbackMatcher, HookEvent, HookMatchers};
use twinwire_protocol::mcp::McpServerConfig;

use super::{allow_all, args, initialize_json};
use crate::host::callbacks::{hook, HookMatcher};
use crate::host::options::argv::FIXED_ARGS;
use crate::host::options::{Delivery, Options, Skills, SystemPrompt};
use crate::mcp::SdkMcpServer;

#[test]
fn default_initialize_carries_the_empty_system_prompt_only() {
    assert_eq!(
        initialize_json(&Options::default(), None, Vec::new()),
        json!({"systemPrompt": [""]})
    );
}

#[test]
fn initialize_carries_prompt_agents_schema_and_flags() {
    let agent = AgentDefinition {
        description: "Reviews code".into(),
        prompt: "You review.".into(),
        tools: Some(vec!["Read".into()]),
        ..AgentDefinition::default()
    };
    let options = Options::builder()
        .append_system_prompt("Be brief.")
        .exclude_dynamic_sections(true)
        .system_prompt_snapshot(false)
        .plan_mode_instructions("Plan carefully.")
        .agent_definition("reviewer", agent)
        .json_schema(json!({"type": "object", "properties": {}}))
        .title("Release")
        .skills(Skills::Only(vec!["pdf".into(), "docx".into()]))
        .tool_alias("Bash", "mcp__ws__bash")
        .prompt_suggestions(true)
        .agent_progress_summaries(true)
        .forward_subagent_text(true)
        .per_task_stop_affordance(true)
        .initialize_field("supportedDialogKinds", json!(["refusal_fallback_prompt"]))
        .initialize_field("futureField", json!({"x": 1}))
        .build()
        .expect("valid");
    let mut hooks = HookMatchers::new();
    hooks.insert(
        "PreToolUse".into(),
        vec![HookCallbackMatcher::all(vec!["hook_0".into()])],
    );
    let request = initialize_json(&options, Some(hooks), vec!["calc".into()]);
    assert_eq!(
        request,
        json!({
            "hooks": {"PreToolUse": [{"matcher": null, "hookCallbackIds": ["hook_0"]}]},
            "sdkMcpServers": ["calc"],
            "jsonSchema": {"type": "object", "properties": {}},
            "appendSystemPrompt": "Be brief.",
            "systemPromptSnapshot": false,
            "planModeInstructions": "Plan carefully.",
            "toolAliases": {"Bash": "mcp__ws__bash"},
            "excludeDynamicSections": true,
            "agents": {"reviewer": {"description": "Reviews code", "tools": ["Read"], "prompt": "You review."}},
            "title": "Release",
            "skills": ["pdf", "docx"],
            "promptSuggestions": true,
            "agentProgressSummaries": true,
            "forwardSubagentText": true,
            "supportedDialogKinds": ["refusal_fallback_prompt"],
            "perTaskStopAffordance": true,
            "futureField": {"x": 1}
        })
    );
    // The JSON schema also goes on the command line, as the TypeScript SDK sends it.
    assert!(args(&options)
        .iter()
        .any(|a| a.starts_with("--json-schema=")));
    // Nothing of the prompt or the agents goes on the command line.
    assert!(!args(&options)
        .iter()
        .any(|a| a.contains("system-prompt") || a.contains("agents")));
}

#[test]
fn system_prompt_parts_and_file() {
    let parts = Options::builder()
        .system_prompt(SystemPrompt::Parts(vec![
            "static".into(),
            SystemPrompt::DYNAMIC_BOUNDARY.into(),
            "dynamic".into(),
        ]))
        .build()
        .expect("valid");
    assert_eq!(
        initialize_json(&parts, None, Vec::new()),
        json!({"systemPrompt": ["static", "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__", "dynamic"]})
    );
    let file = Options::builder()
        .system_prompt(SystemPrompt::File("/p.md".into()))
        .build()
        .expect("valid");
    assert_eq!(initialize_json(&file, None, Vec::new()), json!({}));
    let preset = Options::builder()
        .system_prompt(SystemPrompt::preset())
        .build()
        .expect("valid");
    assert_eq!(initialize_json(&preset, None, Vec::new()), json!({}));
}

#[test]
fn an_initialize_field_replaces_the_one_twinwire_sets() {
    let options = Options::builder()
        .title("mine")
        .initialize_field("title", json!("theirs"))
        .build()
        .expect("valid");
    let request = initialize_json(&options, None, Vec::new());
    assert_eq!(request["title"], "theirs");
    let text = serde_json::to_string(&options.initialize_request(None, Vec::new())).expect("json");
    assert_eq!(text.matches("\"title\"").count(), 1, "{text}");
}

#[test]
fn mcp_and_plugins_delivered_in_initialize() {
    let options = Options::builder()
        .mcp_server("remote", McpServerConfig::http("https://mcp.example.com"))
        .mcp_servers_delivery(Delivery::Initialize)
        .plugin("/plugins/a")
        .plugin_delivery(Delivery::Initialize)
        .build()
        .expect("valid");
    let argv = args(&options);
    assert!(argv.contains(&"--await-initialize".to_owned()));
    assert!(!argv
        .iter()
        .any(|a| a.starts_with("--mcp-config") || a.starts_with("--plugin-dir")));
    let request = initialize_json(&options, None, Vec::new());
    assert_eq!(
        request["mcpServers"],
        json!({"remote": {"type": "http", "url": "https://mcp.example.com"}})
    );
    assert_eq!(
        request["plugins"],
        json!([{"type": "local", "path": "/plugins/a"}])
    );
}

#[test]
fn in_process_servers_stay_off_the_command_line() {
    let options = Options::builder()
        .sdk_mcp_server(SdkMcpServer::builder("calc").build())
        .build()
        .expect("valid");
    assert_eq!(args(&options), FIXED_ARGS);
    assert!(options.has_callbacks());
}

#[test]
fn an_in_process_servers_timeout_goes_in_sdk_mcp_server_configs() {
    let options = Options::builder()
        .sdk_mcp_server(
            SdkMcpServer::builder("slow")
                .timeout(Duration::from_secs(90))
                .build(),
        )
        .sdk_mcp_server(SdkMcpServer::builder("calc").build())
        .build()
        .expect("valid");
    let request = initialize_json(&options, None, vec!["calc".into(), "slow".into()]);
    assert_eq!(
        request["sdkMcpServerConfigs"],
        json!({"slow": {"timeout": 90_000}}),
        "{request}"
    );
    // Without settings there is no field at all.
    let options = Options::builder()
        .sdk_mcp_server(SdkMcpServer::builder("calc").build())
        .build()
        .expect("valid");
    let request = initialize_json(&options, None, vec!["calc".into()]);
    assert!(request.get("sdkMcpServerConfigs").is_none(), "{request}");
}

#[test]
fn callbacks_decide_whether_stdin_waits_for_idle() {
    assert!(!Options::default().has_callbacks());
    let with_hook = Options::builder()
        .hook(
            HookEvent::Stop,
            HookMatcher::all(hook(|_, _| async { Ok(Default::default()) })),
        )
        .build()
        .expect("valid");
    assert!(with_hook.has_callbacks());
    let with_permission = Options::builder()
        .can_use_tool(allow_all())
        .build()
        .expect("valid");
    assert!(with_permission.has_callbacks());
}

#[test]
fn hooks_of_one_event_are_grouped_in_order() {
    let callback = hook(|_, _| async { Ok(Default::default()) });
    let options = Options::builder()
        .hook(
            HookEvent::PreToolUse,
            HookMatcher::matching("Bash", callback.clone()),
        )
        .hook(HookEvent::Stop, HookMatcher::all(callback.clone()))
        .hook(
            HookEvent::PreToolUse,
            HookMatcher::matching("Write", callback),
        )
        .build()
        .expect("valid");
    let summary: Vec<(String, Vec<Option<String>>)> = options
        .hooks
        .iter()
        .map(|(event, matchers)| {
            (
                event.to_string(),
                matchers.iter().map(|m| m.matcher.clone()).collect(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                "PreToolUse".into(),
                vec![Some("Bash".into()), Some("Write".into())]
            ),
            ("Stop".into(), vec![None]),
        ]
    );
}

#[test]
fn engine_config_follows_the_options() {
    let default = Options::default().engine_config();
    assert_eq!(default.request_timeout, Duration::from_secs(60));
    assert_eq!(
        default.max_line_length,
        twinwire_protocol::framing::DEFAULT_MAX_LINE_LENGTH
    );
    let config = Options::builder()
        .request_timeout(Duration::from_secs(5))
        .max_line_length(1 << 26)
        .build()
        .expect("valid")
        .engine_config();
    assert_eq!(config.request_timeout, Duration::from_secs(5));
    assert_eq!(config.max_line_length, 1 << 26);
    let options = Options::default();
    assert_eq!(options.stdin_idle_ceiling, Duration::from_secs(600));
    assert_eq!(options.initialize_timeout, Duration::from_secs(60));
    assert_eq!(options.permission_timeout, None);
}

#[test]
fn debug_shows_env_keys_but_never_values() {
    let options = Options::builder()
        .env("ANTHROPIC_API_KEY", "sk-secret-value")
        .can_use_tool(allow_all())
        .stderr(|_| {})
        .build()
        .expect("valid");
    let debug = format!("{options:?}");
    assert!(debug.contains("ANTHROPIC_API_KEY"));
    assert!(!debug.contains("sk-secret-value"));
    assert!(debug.contains("<callback>"));
}
