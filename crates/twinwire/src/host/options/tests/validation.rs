//! What `build()` refuses and accepts.

use serde_json::json;
use twinwire_protocol::hooks::HookEvent;
use twinwire_protocol::mcp::McpServerConfig;

use super::allow_all;
use crate::host::callbacks::{hook, HookMatcher};
use crate::host::options::{
    McpServer, Options, OptionsBuilder, PermissionPrompts, SandboxSettings, Skills, Thinking,
};
use crate::mcp::SdkMcpServer;

fn invalid(builder: OptionsBuilder) -> String {
    match builder.build() {
        Err(crate::error::Error::InvalidOptions(message)) => message,
        other => panic!("expected InvalidOptions, got {other:?}"),
    }
}

#[test]
fn build_refuses_contradictions() {
    let uuid = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";
    let cases: Vec<(OptionsBuilder, &str)> = vec![
        (
            Options::builder()
                .can_use_tool(allow_all())
                .permission_prompt_tool_name("mcp__x__y"),
            "permission_prompt_tool_name",
        ),
        (
            Options::builder()
                .can_use_tool(allow_all())
                .permission_prompts(PermissionPrompts::Nobody),
            "never be called",
        ),
        (
            Options::builder().continue_conversation(true).resume(uuid),
            "mutually exclusive",
        ),
        (
            Options::builder().resume(uuid).session_id(uuid),
            "fork_session",
        ),
        (Options::builder().session_id("not-a-uuid"), "UUID"),
        (Options::builder().resume_session_at(uuid), "needs resume"),
        (
            Options::builder().resume(uuid).resume_drops_turn(uuid),
            "needs resume_session_at",
        ),
        (
            Options::builder().model("opus").fallback_model("opus"),
            "fallback_model",
        ),
        (
            Options::builder()
                .settings_file("/s.json")
                .sandbox(SandboxSettings::default()),
            "sandbox",
        ),
        (Options::builder().settings(json!([1])), "JSON object"),
        (
            Options::builder().json_schema(json!("string")),
            "JSON object",
        ),
        (Options::builder().max_turns(0), "max_turns"),
        (
            Options::builder().max_budget_usd(f64::NAN),
            "max_budget_usd",
        ),
        (
            Options::builder().thinking(Thinking::Enabled { budget_tokens: 0 }),
            "Thinking::Disabled",
        ),
        (
            Options::builder().mcp_server("calc", McpServerConfig::sdk("calc")),
            "sdk_mcp_server",
        ),
        (
            Options::builder().mcp_servers([(
                "other",
                McpServer::InProcess(SdkMcpServer::builder("calc").build()),
            )]),
            "another name",
        ),
        (
            Options::builder().skills(Skills::Only(vec!["a,b".into()])),
            "skill",
        ),
        (
            Options::builder().extra_arg("--debug", None::<String>),
            "without leading dashes",
        ),
        (
            Options::builder().extra_arg("a=b", None::<String>),
            "without leading dashes",
        ),
        (
            Options::builder().extra_arg("output-format", Some("text")),
            "set by twinwire",
        ),
        (Options::builder().env("A=B", "x"), "environment variable"),
        (
            Options::builder().initialize_field("agents", json!("not a map")),
            "do not fit",
        ),
        (
            Options::builder().initialize_field("subtype", json!("x")),
            "subtype",
        ),
        (
            Options::builder().hook(
                HookEvent::Stop,
                HookMatcher {
                    hooks: Vec::new(),
                    ..HookMatcher::all(hook(|_, _| async { Ok(Default::default()) }))
                },
            ),
            "no callback",
        ),
    ];
    for (builder, needle) in cases {
        let message = invalid(builder);
        assert!(message.contains(needle), "{message:?} lacks {needle:?}");
    }
}

#[test]
fn build_accepts_what_the_cli_accepts() {
    let uuid = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";
    Options::builder()
        .resume(uuid)
        .fork_session(true)
        .session_id("AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE")
        .resume_session_at(uuid)
        .resume_drops_turn(uuid)
        .max_budget_usd(0.0)
        .build()
        .expect("valid");
    let options = Options::builder()
        .mcp_servers([(
            "calc",
            McpServer::from(SdkMcpServer::builder("calc").build()),
        )])
        .build()
        .expect("valid");
    let rebuilt = options.to_builder().model("opus").build().expect("valid");
    assert_eq!(rebuilt.model.as_deref(), Some("opus"));
    assert!(rebuilt.mcp_servers.contains_key("calc"));
}
