//! In-process MCP servers reached over the control channel.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::json;
use twinwire::mcp::{SdkMcpServer, SdkTool, ToolOutput};
use twinwire::protocol::mcp::McpConnectionStatus;
use twinwire::query;

use crate::{
    collect, inits, kinds, request_tool_results, script, the_result, turn, within, Scenario,
};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct AddArgs {
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
}

/// A server `calc` with one tool, `add`, counting its calls.
fn calc(calls: &Arc<AtomicUsize>) -> SdkMcpServer {
    let calls = Arc::clone(calls);
    SdkMcpServer::builder("calc")
        .version("1.0.0")
        .tool(SdkTool::new(
            "add",
            "Adds two integers",
            move |args: AddArgs| {
                calls.fetch_add(1, Ordering::SeqCst);
                async move { Ok(ToolOutput::text(format!("sum={}", args.a + args.b))) }
            },
        ))
        .build()
}

#[tokio::test]
async fn an_in_process_tool_is_called_and_its_result_reaches_the_model() {
    let s = Scenario::start(script(
        json!([
            {"when": {"tool_result_contains": "sum=42"}, "reply": {"text": "the sum is 42"}},
            {"when": {"last_is_tool_result": true}, "reply": {"text": "wrong tool result"}},
            {"when": {"last_user_text_contains": "add them"},
             "reply": {"tool_use": {"name": "mcp__calc__add", "input": {"a": 2, "b": 40}}}}
        ]),
        json!({"text": "unexpected"}),
    ))
    .await;
    let calls = Arc::new(AtomicUsize::new(0));
    let options = s
        .builder()
        .sdk_mcp_server(calc(&calls))
        .allowed_tools(["mcp__calc__add"])
        .build()
        .unwrap();
    let items = collect(query("add them", options)).await;
    let result = the_result(&items);
    assert!(!result.is_error, "{result:?}\nstderr:\n{}", s.stderr());
    assert_eq!(result.text(), Some("the sum is 42"), "{}", kinds(&items));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    // The tool was announced to the model under its MCP name (2.1.330 defers MCP tools: it
    // lists them by name for ToolSearch instead of in `tools`), and its result came back.
    let requests = s.message_requests();
    assert!(
        requests[0].to_string().contains("mcp__calc__add"),
        "the tool is announced in the first request"
    );
    let follow_up = requests
        .iter()
        .find(|body| !request_tool_results(body).is_empty())
        .expect("a request carrying the tool result");
    assert!(
        request_tool_results(follow_up).contains("sum=42"),
        "{}",
        request_tool_results(follow_up)
    );
    // system/init lists the server as connected.
    let init = inits(&items);
    let server = init[0].mcp_servers.iter().find(|m| m.name == "calc");
    assert!(
        server.is_some_and(|m| m.status == McpConnectionStatus::Connected),
        "{:?}",
        init[0].mcp_servers
    );
}

#[tokio::test]
async fn mcp_status_lists_the_in_process_server() {
    let s = Scenario::start(script(json!([]), json!({"text": "ok"}))).await;
    let calls = Arc::new(AtomicUsize::new(0));
    let options = s.builder().sdk_mcp_server(calc(&calls)).build().unwrap();
    let client = s.connect(options).await;
    // 2.1.330 finishes the in-process server's handshake (`notifications/initialized`,
    // `tools/list`) after it has answered `initialize`, and lists the server only then. After
    // a whole turn the handshake is done, and one request gives the answer: no polling, so
    // that the recording of this scenario is the same on every run.
    let items = turn(&client, "hello").await;
    assert!(!the_result(&items).is_error, "{}", kinds(&items));
    let status = within(client.mcp_status()).await.unwrap();
    let calc = status
        .mcp_servers
        .iter()
        .find(|server| server.name == "calc")
        .unwrap_or_else(|| panic!("calc in {:?}", status.mcp_servers));
    assert_eq!(calc.status, McpConnectionStatus::Connected, "{calc:?}");
    let tools: Vec<_> = calc
        .tools
        .iter()
        .flatten()
        .map(|tool| serde_json::to_value(tool).unwrap()["name"].clone())
        .collect();
    assert!(tools.iter().any(|name| name == "add"), "{tools:?}");
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    within(client.close()).await.unwrap();
}

/// The names of the tools a model request defines in full (not deferred behind tool search).
fn defined_tools(body: &serde_json::Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|tool| tool["defer_loading"] != true)
        .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn an_always_loaded_in_process_tool_is_defined_in_the_first_request() {
    let s = Scenario::start(script(json!([]), json!({"text": "ok"}))).await;
    let calls = Arc::new(AtomicUsize::new(0));
    let deferred = SdkMcpServer::builder("later")
        .tool(SdkTool::new(
            "add",
            "Adds two integers",
            |args: AddArgs| async move { Ok(ToolOutput::text(format!("{}", args.a + args.b))) },
        ))
        .build();
    let loaded = SdkMcpServer::builder("calc")
        .tool(
            SdkTool::new("add", "Adds two integers", {
                let calls = Arc::clone(&calls);
                move |args: AddArgs| {
                    calls.fetch_add(1, Ordering::SeqCst);
                    async move { Ok(ToolOutput::text(format!("{}", args.a + args.b))) }
                }
            })
            .always_load(true)
            .search_hint("sum arithmetic"),
        )
        .build();
    let options = s
        .builder()
        .sdk_mcp_server(loaded)
        .sdk_mcp_server(deferred)
        .build()
        .unwrap();
    let items = collect(query("hello", options)).await;
    assert!(!the_result(&items).is_error, "{}", kinds(&items));
    let requests = s.requests_for("hello");
    let first = requests.first().expect("a model request for the prompt");
    let defined = defined_tools(first);
    assert!(
        defined.iter().any(|name| name == "mcp__calc__add"),
        "the always-loaded tool is defined in full: {defined:?}"
    );
    assert!(
        !defined.iter().any(|name| name == "mcp__later__add"),
        "the other server's tool stays behind tool search: {defined:?}"
    );
}

#[tokio::test]
async fn sent_ahead_the_in_process_handshake_is_parked_and_the_tool_still_works() {
    let s = Scenario::start(script(
        json!([
            {"when": {"tool_result_contains": "sum=42"}, "reply": {"text": "the sum is 42"}},
            {"when": {"last_is_tool_result": true}, "reply": {"text": "wrong tool result"}},
            {"when": {"last_user_text_contains": "add them"},
             "reply": {"tool_use": {"name": "mcp__calc__add", "input": {"a": 2, "b": 40}}}}
        ]),
        json!({"text": "unexpected"}),
    ))
    .await;
    let calls = Arc::new(AtomicUsize::new(0));
    let options = s
        .builder()
        .sdk_mcp_server(calc(&calls))
        .sdk_mcp_manifests(true)
        .allowed_tools(["mcp__calc__add"])
        .build()
        .unwrap();
    let client = s.connect(options).await;
    let parked = client
        .initialize_response()
        .and_then(|answer| answer.sdk_mcp_manifests_parked.clone())
        .expect("the answer says what became of the manifest");
    assert_eq!(
        serde_json::to_value(&parked).unwrap(),
        json!({"calc": "parked"}),
        "stderr:\n{}",
        s.stderr()
    );
    let items = turn(&client, "add them").await;
    let result = the_result(&items);
    assert!(!result.is_error, "{result:?}\nstderr:\n{}", s.stderr());
    assert_eq!(result.text(), Some("the sum is 42"), "{}", kinds(&items));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    within(client.close()).await.unwrap();
}
