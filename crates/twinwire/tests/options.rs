//! `Options` through the public API: every builder method, validation, `Debug`, value types.
//! (The wire mapping itself, which is crate-private, is tested in `src/options/tests.rs`.)

// Inside a module named `options`, so that `cargo test options` selects every test here.
mod options {
    use std::time::Duration;

    use serde_json::json;
    use twinwire::host::callbacks::{can_use_tool, hook, on_elicitation, HookMatcher};
    use twinwire::host::process::ShutdownTimeouts;
    use twinwire::mcp::SdkMcpServer;
    use twinwire::options::{
        AgentDefinition, Delivery, EffortLevel, McpServer, Options, OptionsBuilder, OutputFormat,
        PermissionPrompts, QuestionPreviewFormat, SandboxNetwork, SandboxSettings, SettingSource,
        Skills, SystemPrompt, Thinking, ThinkingDisplay, Tools,
    };
    use twinwire::protocol::control::ElicitationResponse;
    use twinwire::protocol::hooks::{HookEvent, HookOutput};
    use twinwire::protocol::mcp::McpServerConfig;
    use twinwire::protocol::permission::{PermissionMode, PermissionResult};
    use twinwire::Error;

    const UUID: &str = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";

    fn allow_all() -> std::sync::Arc<dyn twinwire::host::callbacks::CanUseTool> {
        can_use_tool(|request| async move { Ok(PermissionResult::allow(request.input().clone())) })
    }

    fn error_of(builder: OptionsBuilder) -> String {
        match builder.build() {
            Err(Error::InvalidOptions(message)) => message,
            other => panic!("expected InvalidOptions, got {other:?}"),
        }
    }

    #[test]
    fn every_builder_method_chains_into_valid_options() {
        let options = Options::builder()
            .cli_path("/opt/claude")
            .cwd("/work")
            .env("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
            .envs([("A", "1"), ("B", "2")])
            .env_remove("CLAUDE_CONFIG_DIR")
            .extra_arg("replay-user-messages", None::<String>)
            .extra_args([("workload", Some("batch"))])
            .stderr(|_line| {})
            .user("claude")
            .client_app("my-app/1.0")
            .request_timeout(Duration::from_secs(30))
            .initialize_timeout(Duration::from_secs(90))
            .permission_timeout(Duration::from_secs(120))
            .max_line_length(64 << 20)
            .stdin_idle_ceiling(Duration::from_secs(60))
            .shutdown(ShutdownTimeouts::default())
            .can_use_tool(allow_all())
            .hook(
                HookEvent::PreToolUse,
                HookMatcher::matching("Bash", hook(|_, _| async { Ok(HookOutput::default()) })),
            )
            .on_elicitation(on_elicitation(|_, _| async {
                Ok(ElicitationResponse::default())
            }))
            .initialize_field("supportedDialogKinds", json!([]))
            .model("opus")
            .fallback_model("sonnet")
            .system_prompt("You are terse.")
            .append_system_prompt("Answer in French.")
            .system_prompt_snapshot(true)
            .exclude_dynamic_sections(true)
            .plan_mode_instructions("Plan first.")
            .thinking(Thinking::Adaptive)
            .max_thinking_tokens(2048)
            .thinking_display(ThinkingDisplay::Summarized)
            .effort(EffortLevel::Max)
            .beta("context-1m-2025-08-07")
            .betas(["context-1m-2025-08-07"])
            .output_format(OutputFormat::JsonSchema(json!({"type": "object"})))
            .json_schema(json!({"type": "object"}))
            .max_turns(5)
            .max_budget_usd(2.0)
            .task_budget(50_000)
            .agent("reviewer")
            .agent_definition(
                "reviewer",
                AgentDefinition {
                    description: "Reviews code".into(),
                    prompt: "Review.".into(),
                    ..AgentDefinition::default()
                },
            )
            .agents([(
                "reviewer",
                AgentDefinition {
                    description: "Reviews code".into(),
                    prompt: "Review.".into(),
                    ..AgentDefinition::default()
                },
            )])
            .include_partial_messages(true)
            .include_hook_events(true)
            .forward_subagent_text(true)
            .prompt_suggestions(true)
            .agent_progress_summaries(true)
            .per_task_stop_affordance(true)
            .debug(true)
            .debug_file("/tmp/claude-debug.log")
            .mcp_server("files", McpServerConfig::stdio("mcp-files", Vec::new()))
            .sdk_mcp_server(SdkMcpServer::builder("calc").build())
            .mcp_config_file("/etc/mcp.json")
            .mcp_servers_delivery(Delivery::Initialize)
            .strict_mcp_config(true)
            .tools(Tools::Preset)
            .allowed_tool("Read")
            .allowed_tools(["Read", "Grep"])
            .disallowed_tool("WebFetch")
            .disallowed_tools(["WebFetch"])
            .tool_alias("Bash", "mcp__ws__bash")
            .tool_aliases([("Bash", "mcp__ws__bash")])
            .skills(Skills::All)
            .question_preview_format(QuestionPreviewFormat::Html)
            .permission_mode(PermissionMode::Default)
            .allow_dangerously_skip_permissions(false)
            .permission_prompts(PermissionPrompts::Host)
            .resume(UUID)
            .resume_session_at(UUID)
            .resume_drops_turn(UUID)
            .fork_session(true)
            .session_id(UUID)
            .persist_session(true)
            .title("Review")
            .enable_file_checkpointing(true)
            .verbatim_prompts(true)
            .settings(json!({"model": "opus"}))
            .managed_settings(serde_json::Map::new())
            .setting_sources([SettingSource::Project])
            .sandbox(SandboxSettings::default())
            .add_dir("/data")
            .add_dirs(["/data", "/more"])
            .project_config_root("/repo")
            .plugin("/plugins/a")
            .plugins(Vec::new())
            .plugin_delivery(Delivery::Argv)
            .build();
        assert!(options.is_ok(), "{options:?}");
    }

    #[test]
    fn defaults_are_valid_and_use_an_empty_system_prompt() {
        let built = Options::builder().build().expect("valid");
        let debug = format!("{built:?}");
        assert_eq!(debug, format!("{:?}", Options::default()));
        assert!(debug.contains(r#"system_prompt: Text("")"#), "{debug}");
        assert!(debug.contains("persist_session: true"), "{debug}");
        assert!(debug.contains("stdin_idle_ceiling: 600s"), "{debug}");
        assert!(debug.contains("request_timeout: 60s"), "{debug}");
    }

    #[test]
    fn can_use_tool_and_a_permission_prompt_tool_conflict() {
        let message = error_of(
            Options::builder()
                .can_use_tool(allow_all())
                .permission_prompt_tool_name("mcp__approver__ask"),
        );
        assert!(message.contains("can_use_tool"), "{message}");
    }

    #[test]
    fn session_options_the_cli_refuses_are_refused_at_build() {
        assert!(
            error_of(Options::builder().continue_conversation(true).resume(UUID))
                .contains("mutually exclusive")
        );
        assert!(error_of(Options::builder().resume(UUID).session_id(UUID)).contains("fork_session"));
        assert!(error_of(Options::builder().resume_session_at(UUID)).contains("needs resume"));
        assert!(
            error_of(Options::builder().model("opus").fallback_model("opus"))
                .contains("fallback_model")
        );
    }

    #[test]
    fn an_error_is_reported_as_invalid_options() {
        let err = Options::builder()
            .max_turns(0)
            .build()
            .expect_err("invalid");
        assert!(matches!(err, Error::InvalidOptions(_)));
        assert!(err.to_string().starts_with("invalid options:"), "{err}");
    }

    #[test]
    fn debug_never_shows_env_values() {
        let options = Options::builder()
            .env("ANTHROPIC_API_KEY", "sk-ant-very-secret")
            .build()
            .expect("valid");
        let debug = format!("{options:?}");
        assert!(debug.contains("ANTHROPIC_API_KEY"));
        assert!(!debug.contains("very-secret"));
    }

    #[test]
    fn to_builder_derives_new_options() {
        let base = Options::builder()
            .sdk_mcp_server(SdkMcpServer::builder("calc").build())
            .build()
            .expect("valid");
        let derived = base.to_builder().model("haiku").build().expect("valid");
        let debug = format!("{derived:?}");
        assert!(debug.contains(r#"model: Some("haiku")"#), "{debug}");
        assert!(debug.contains("calc"), "{debug}");
        assert!(!format!("{base:?}").contains("haiku"));
    }

    #[test]
    fn system_prompt_forms() {
        assert_eq!(SystemPrompt::default(), SystemPrompt::Text(String::new()));
        assert_eq!(SystemPrompt::from("x"), SystemPrompt::text("x"));
        assert_eq!(
            SystemPrompt::preset(),
            SystemPrompt::Preset { append: None }
        );
        assert_eq!(
            SystemPrompt::preset_with_append("more"),
            SystemPrompt::Preset {
                append: Some("more".into())
            }
        );
        assert_eq!(
            SystemPrompt::DYNAMIC_BOUNDARY,
            "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__"
        );
    }

    #[test]
    fn value_types_convert_and_serialize_as_on_the_wire() {
        assert_eq!(Tools::none(), Tools::List(Vec::new()));
        assert_eq!(Tools::only(["Read"]), Tools::List(vec!["Read".into()]));
        assert_eq!(PermissionPrompts::Nobody.as_str(), "none");
        assert_eq!(SettingSource::from("local"), SettingSource::Local);
        assert!(matches!(
            McpServer::from(McpServerConfig::http("https://x")),
            McpServer::Config(_)
        ));
        let sandbox = SandboxSettings {
            enabled: Some(true),
            network: Some(SandboxNetwork {
                allow_local_binding: Some(true),
                ..SandboxNetwork::default()
            }),
            ..SandboxSettings::default()
        };
        assert_eq!(
            serde_json::to_value(&sandbox).expect("json"),
            json!({"enabled": true, "network": {"allowLocalBinding": true}})
        );
    }
}
