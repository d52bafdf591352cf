//! MCP servers: the host's in-process (SDK) server through `mcp_message`, an external stdio
//! server from `--mcp-config` through rmcp's client (twinwire-testkit's `memo-mcp`, a real
//! process), and servers over both HTTP transports on a real socket (`support::mcp_http`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;
use support::agent::{mentions, result, turn, World};
use twinwire::mcp::{SdkMcpServer, SdkTool, ToolOutput};
use twinwire::Client;
use twinwire_testkit::mcp_http::{McpHttpServer, SESSION};

/// `memo-mcp`, built beside this test's binary (once) so it is current.
fn memo_mcp() -> PathBuf {
    let agent = Path::new(env!("CARGO_BIN_EXE_twinwire-agent"));
    let path = agent.with_file_name(format!("memo-mcp{}", std::env::consts::EXE_SUFFIX));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build.args(["build", "-p", "twinwire-testkit", "--bin", "memo-mcp"]);
    if agent
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|p| p == "release")
    {
        build.arg("--release");
    }
    let status = build.status().expect("cargo build");
    assert!(
        status.success() || path.exists(),
        "building memo-mcp failed"
    );
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_external_stdio_server_is_started_and_its_tool_called() {
    let world = World::new(json!({"rules": [
        {"when": {"tool_result_contains": "memo(labelled): hi there"}, "reply": {"text": "the memo answered"}},
        {"when": {"last_is_tool_result": true}, "reply": {"text": "wrong result"}},
        {"when": {"has_tool": "mcp__memo__note"},
         "reply": {"tool_use": {"name": "mcp__memo__note", "input": {"text": "hi there"}}}}
    ], "default": {"text": "no memo tool"}}))
    .await;
    let config = json!({"mcpServers": {
        "memo": {"type": "stdio", "command": memo_mcp(), "args": [], "env": {"MEMO_LABEL": "labelled"}},
        "broken": {"type": "stdio", "command": "/nonexistent/server"}
    }});
    let file = world.path("mcp.json");
    std::fs::write(&file, config.to_string()).unwrap();
    // Tool search off: the server's tools are defined in full in the first request.
    let options = world
        .options()
        .mcp_config_file(&file)
        .env("ENABLE_TOOL_SEARCH", "false")
        .allowed_tool("mcp__memo__note")
        .build()
        .unwrap();
    let client = Client::connect(options).await.unwrap();
    client.send("write a note").await.unwrap();
    let frames = turn(&client).await;
    assert_eq!(result(&frames).result.as_deref(), Some("the memo answered"));
    let status = client.mcp_status().await.unwrap();
    assert!(mentions(&status, "\"connected\""), "{status:?}");
    assert!(
        mentions(&status, "cannot start /nonexistent/server"),
        "{status:?}"
    );
    client.close().await.unwrap();
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    a: f64,
    b: f64,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hosts_in_process_server_is_reached_through_mcp_message() {
    let world = World::new(json!({"rules": [
        {"when": {"tool_result_contains": "sum=42"}, "reply": {"text": "the sum is 42"}},
        {"when": {"last_is_tool_result": true}, "reply": {"text": "wrong tool result"}},
        {"when": {"last_user_text_contains": "add them"},
         "reply": {"tool_use": {"name": "mcp__calc__add", "input": {"a": 2, "b": 40}}}}
    ], "default": {"text": "unexpected"}}))
    .await;
    let add = SdkTool::new("add", "Adds two numbers", |args: Add| async move {
        Ok(ToolOutput::text(format!("sum={}", args.a + args.b)))
    });
    let server = SdkMcpServer::builder("calc")
        .version("1.0.0")
        .tool(add)
        .build();
    let options = world
        .options()
        .sdk_mcp_server(server)
        .allowed_tool("mcp__calc__add")
        .build()
        .unwrap();
    let client = Client::connect(options).await.unwrap();
    client.send("add them").await.unwrap();
    let frames = turn(&client).await;
    assert_eq!(result(&frames).result.as_deref(), Some("the sum is 42"));
    client.close().await.unwrap();
}

/// A turn that calls the `note` tool of the server named `web`, configured as `server`; the
/// result the model saw.
async fn note_through(server: serde_json::Value) -> Option<String> {
    let world = World::new(json!({"rules": [
        {"when": {"tool_result_contains": "over http: from afar"}, "reply": {"text": "the web memo answered"}},
        {"when": {"last_is_tool_result": true}, "reply": {"text": "wrong result"}},
        {"when": {"has_tool": "mcp__web__note"},
         "reply": {"tool_use": {"name": "mcp__web__note", "input": {"text": "from afar"}}}}
    ], "default": {"text": "no web tool"}}))
    .await;
    let file = world.path("mcp.json");
    std::fs::write(&file, json!({"mcpServers": {"web": server}}).to_string()).unwrap();
    let options = world
        .options()
        .mcp_config_file(&file)
        .env("ENABLE_TOOL_SEARCH", "false")
        .allowed_tool("mcp__web__note")
        .build()
        .unwrap();
    let client = Client::connect(options).await.unwrap();
    client.send("write a note far away").await.unwrap();
    let frames = turn(&client).await;
    let status = client.mcp_status().await.unwrap();
    assert!(mentions(&status, "\"connected\""), "{status:?}");
    client.close().await.unwrap();
    result(&frames).result.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamable_http_server_is_reached_with_its_headers_and_session() {
    let server = McpHttpServer::start("over http").await.unwrap();
    let answer = note_through(json!({
        "type": "http",
        "url": server.http_url(),
        "headers": {"X-Memo-Token": "t-123"}
    }))
    .await;
    assert_eq!(answer.as_deref(), Some("the web memo answered"));
    let heads = server.heads();
    let posts: Vec<&String> = heads
        .iter()
        .filter(|h| h.starts_with("POST /mcp"))
        .collect();
    assert!(
        posts.len() >= 3,
        "initialize, initialized, tools: {heads:#?}"
    );
    for head in &posts {
        assert!(
            head.to_ascii_lowercase().contains("x-memo-token: t-123"),
            "{head}"
        );
    }
    // After the handshake, every message carries the session the server handed out.
    for head in &posts[1..] {
        assert!(
            head.to_ascii_lowercase()
                .contains(&format!("mcp-session-id: {SESSION}")),
            "{head}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_sse_server_is_reached_through_the_endpoint_it_names() {
    let server = McpHttpServer::start("over http").await.unwrap();
    let answer = note_through(json!({
        "type": "sse",
        "url": server.sse_url(),
        "headers": {"X-Memo-Token": "t-456"}
    }))
    .await;
    assert_eq!(answer.as_deref(), Some("the web memo answered"));
    let heads = server.heads();
    assert!(
        heads.iter().any(|h| h.starts_with("GET /sse")),
        "{heads:#?}"
    );
    let posts: Vec<&String> = heads
        .iter()
        .filter(|h| h.starts_with("POST /messages?session=1"))
        .collect();
    assert!(posts.len() >= 3, "{heads:#?}");
    for head in posts {
        assert!(
            head.to_ascii_lowercase().contains("x-memo-token: t-456"),
            "{head}"
        );
    }
}
