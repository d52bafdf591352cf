#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use serde_json::json;
use twinwire_protocol::control::{AgentDefinition, AgentMcpServerSpec};

use super::*;
use crate::host::callbacks::can_use_tool;
use crate::mcp::{SdkMcpServer, SdkTool, ToolOutput};
use crate::options::OptionsBuilder;
use twinwire_protocol::permission::PermissionResult;

/// Options for a session in an empty project with an empty HOME (no settings file of the
/// developer's is read).
fn isolated(dir: &tempfile::TempDir) -> OptionsBuilder {
    Options::builder()
        .cwd(dir.path())
        .env("HOME", dir.path())
        .env("CLAUDE_CONFIG_DIR", dir.path().join(".claude"))
}

fn asking() -> Arc<dyn crate::host::callbacks::CanUseTool> {
    can_use_tool(|request| async move { Ok(PermissionResult::allow(request.input().clone())) })
}

#[test]
fn a_callback_shadowed_by_a_whole_tool_or_the_mode() {
    let dir = tempfile::tempdir().unwrap();
    let options = isolated(&dir)
        .can_use_tool(asking())
        .allowed_tools(["Read", "Bash(ls:*)", "Write(*)"])
        .build()
        .unwrap();
    let shadowed: Vec<String> = check(&options)
        .into_iter()
        .filter_map(|w| match w {
            Warning::CanUseToolShadowed { by, .. } => Some(by),
            _ => None,
        })
        .collect();
    assert_eq!(shadowed, ["Read", "Write(*)"]);
    let bypass = isolated(&dir)
        .can_use_tool(asking())
        .permission_mode(PermissionMode::BypassPermissions)
        .build()
        .unwrap();
    assert!(check(&bypass).contains(&Warning::CanUseToolShadowed {
        by: "bypassPermissions".into(),
        source: "permission_mode".into(),
    }));
    // Without a callback nothing is shadowed.
    let none = isolated(&dir).allowed_tools(["Read"]).build().unwrap();
    assert!(check(&none).is_empty(), "{:?}", check(&none));
}

#[test]
fn a_deny_rule_of_the_callback_that_an_allow_rule_of_the_cli_shadows() {
    let dir = tempfile::tempdir().unwrap();
    let policy = crate::policy::PermissionPolicy::parse(&[], &["Bash(rm:*)", "WebFetch"]).unwrap();
    let options = isolated(&dir)
        .can_use_tool(Arc::new(policy))
        .allowed_tools(["Bash(rm -f build:*)", "Bash(*)"])
        .build()
        .unwrap();
    let warnings = check(&options);
    assert!(
        warnings.contains(&Warning::DenyShadowedByAllow {
            deny: "Bash(rm:*)".into(),
            allow: "Bash(*)".into(),
            source: "cliArg".into(),
        }),
        "{warnings:?}"
    );
    assert!(!warnings
        .iter()
        .any(|w| matches!(w, Warning::DenyShadowedByAllow { deny, .. } if deny == "WebFetch")));
    // A deny the CLI's rules do not reach is not warned about.
    let narrow = isolated(&dir)
        .can_use_tool(Arc::new(
            crate::policy::PermissionPolicy::parse(&[], &["Bash(rm:*)"]).unwrap(),
        ))
        .allowed_tools(["Bash(ls:*)"])
        .build()
        .unwrap();
    assert!(check(&narrow).is_empty(), "{:?}", check(&narrow));
}

#[test]
fn in_process_servers_given_to_agents_and_schemas_the_cli_cannot_take() {
    let dir = tempfile::tempdir().unwrap();
    let tool = |name: &str, schema: Value| {
        SdkTool::raw(
            name,
            "a tool",
            schema.as_object().unwrap().clone(),
            |_, _| async { Ok(ToolOutput::text("x")) },
        )
    };
    let server = SdkMcpServer::builder("calc")
        .tool(tool("fine", json!({"type": "object", "properties": {}})))
        .tool(tool("scalar", json!({"type": "string"})))
        .tool(tool("either", json!({"type": "object", "anyOf": [{}, {}]})))
        .tool(tool(
            "dangling",
            json!({"type": "object",
            "properties": {"a": {"$ref": "#/$defs/Missing"}}}),
        ))
        .build();
    let agent = AgentDefinition {
        description: "d".into(),
        prompt: "p".into(),
        mcp_servers: Some(vec![AgentMcpServerSpec::Name("calc".into())]),
        ..AgentDefinition::default()
    };
    let options = isolated(&dir)
        .sdk_mcp_server(server)
        .agent_definition("helper", agent)
        .build()
        .unwrap();
    let warnings = check(&options);
    assert!(warnings.contains(&Warning::InProcessServerGivenToAgent {
        agent: "helper".into(),
        server: "calc".into(),
    }));
    let tools: Vec<&str> = warnings
        .iter()
        .filter_map(|w| match w {
            Warning::UnconvertibleToolSchema { tool, .. } => Some(tool.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(tools, ["scalar", "either", "dangling"], "{warnings:?}");
    assert!(warnings.iter().all(|w| !w.to_string().is_empty()));
}

#[test]
fn what_system_init_shows_servers_not_loaded_and_tools_the_cli_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let options = isolated(&dir)
        .mcp_server(
            "memo",
            twinwire_protocol::mcp::McpServerConfig::stdio("memo", Vec::new()),
        )
        .mcp_server(
            "gone",
            twinwire_protocol::mcp::McpServerConfig::stdio("gone", Vec::new()),
        )
        .mcp_server(
            "other",
            twinwire_protocol::mcp::McpServerConfig::stdio("other", Vec::new()),
        )
        .allowed_tools(["Bash(ls:*)", "WebSerch", "mcp__memo__note", "Task"])
        .build()
        .unwrap();
    let init: SystemInit = serde_json::from_value(json!({
        "type": "system", "subtype": "init", "session_id": "s", "model": "m", "cwd": "/",
        "tools": ["Bash", "Read", "Agent", "mcp__memo__note"], "permissionMode": "default",
        "mcp_servers": [{"name": "memo", "status": "connected"},
                        {"name": "gone", "status": "failed"}],
        "slash_commands": [], "apiKeySource": "none", "output_style": "default", "uuid": "u"
    }))
    .unwrap();
    let warnings = at_init(&options, &init);
    assert_eq!(
        warnings,
        [
            Warning::McpServerNotLoaded {
                server: "gone".into(),
                status: Some("failed".into())
            },
            Warning::McpServerNotLoaded {
                server: "other".into(),
                status: None
            },
            Warning::UnknownToolInRule {
                rule: "WebSerch".into(),
                source: "cliArg".into()
            },
        ]
    );
    // Before the session: a rule for a tool twinwire-policy knows nobody has.
    let typo = isolated(&dir).allowed_tools(["Bsh(ls:*)"]).build().unwrap();
    assert_eq!(
        check(&typo),
        [Warning::UnknownToolInRule {
            rule: "Bsh(ls:*)".into(),
            source: "cliArg".into()
        }]
    );
}
