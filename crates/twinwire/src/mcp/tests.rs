//! The router against builder servers, custom `rmcp` handlers and scripted fake servers,
//! including a replay of the recorded `mcp_message` exchanges.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Value};
use tokio::sync::Barrier;

use super::*;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoArgs {}

/// The recorded `calc` server, plus tools that fail, panic, meet and hang.
fn calc() -> SdkMcpServer {
    let barrier = Arc::new(Barrier::new(2));
    SdkMcpServer::builder("calc")
        .version("1.0.0")
        .tool(SdkTool::new::<AddArgs, _, _>(
            "add",
            "Adds two integers",
            |args: AddArgs| async move { Ok(ToolOutput::text((args.a + args.b).to_string())) },
        ))
        .tool(SdkTool::new("fail", "Always fails", |_: NoArgs| async {
            Err::<ToolOutput, _>("division by zero".into())
        }))
        .tool(SdkTool::new("boom", "Panics", |_: NoArgs| async {
            if true {
                panic!("kaboom");
            }
            Ok(ToolOutput::text("unreachable"))
        }))
        .tool(SdkTool::new(
            "meet",
            "Returns once two calls wait",
            move |_: NoArgs| {
                let barrier = Arc::clone(&barrier);
                async move {
                    barrier.wait().await;
                    Ok(ToolOutput::text("met"))
                }
            },
        ))
        .tool(SdkTool::with_context(
            "whoami",
            "Returns the tool_use id",
            |_: NoArgs, cx: ToolCallContext| async move {
                Ok(ToolOutput::text(cx.tool_use_id.unwrap_or_default()))
            },
        ))
        .tool(SdkTool::new("hang", "Never returns", |_: NoArgs| async {
            std::future::pending::<()>().await;
            Ok(ToolOutput::text("unreachable"))
        }))
        .build()
}

fn initialize(id: u64) -> Value {
    json!({
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "claude-code", "version": "2.1.330"},
        },
        "jsonrpc": "2.0",
        "id": id,
    })
}

fn call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({
        "method": "tools/call",
        "params": {
            "name": tool,
            "arguments": arguments,
            "_meta": {"claudecode/toolUseId": format!("toolu_{id}"), "progressToken": id},
        },
        "jsonrpc": "2.0",
        "id": id,
    })
}

/// Initializes `server` the way the CLI does.
async fn connect(router: &McpRouter, server: &str) {
    let answer = router.handle(server, initialize(0)).await.unwrap();
    assert_eq!(answer["id"], 0, "{answer}");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let answer = router.handle(server, initialized).await.unwrap();
    assert_eq!(answer, json!({"jsonrpc": "2.0", "result": {}}));
}

/// Every value in `expected` is in `actual` (objects may have more keys).
fn assert_subset(expected: &Value, actual: &Value, path: &str) {
    match (expected, actual) {
        (Value::Object(expected), Value::Object(actual)) => {
            for (key, value) in expected {
                let inner = actual
                    .get(key)
                    .unwrap_or_else(|| panic!("{path}.{key} is missing in {actual:?}"));
                assert_subset(value, inner, &format!("{path}.{key}"));
            }
        }
        (Value::Array(expected), Value::Array(actual)) => {
            assert_eq!(expected.len(), actual.len(), "{path}: {actual:?}");
            for (index, (e, a)) in expected.iter().zip(actual).enumerate() {
                assert_subset(e, a, &format!("{path}[{index}]"));
            }
        }
        _ => assert_eq!(expected, actual, "{path}"),
    }
}

/// The project's recordings (`cargo xtask record` writes them).
fn transcripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/transcripts")
}

/// `(server_name, message, recorded mcp_response)` for each `mcp_message` of a transcript.
fn recorded_exchanges(path: &Path) -> Vec<(String, Value, Value)> {
    let text = std::fs::read_to_string(path).unwrap();
    let frames: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut exchanges = Vec::new();
    for frame in &frames {
        let msg = &frame["msg"];
        if frame["dir"] != "out" || msg["request"]["subtype"] != "mcp_message" {
            continue;
        }
        let request_id = &msg["request_id"];
        let answer = frames
            .iter()
            .find(|f| f["dir"] == "in" && f["msg"]["response"]["request_id"] == *request_id)
            .unwrap_or_else(|| panic!("no recorded answer to {request_id}"));
        exchanges.push((
            msg["request"]["server_name"].as_str().unwrap().to_owned(),
            msg["request"]["message"].clone(),
            answer["msg"]["response"]["response"]["mcp_response"].clone(),
        ));
    }
    exchanges
}

#[tokio::test]
async fn replays_the_recorded_sdk_mcp_sessions() {
    let mut files = Vec::new();
    for version in std::fs::read_dir(transcripts()).expect("the recorded transcripts") {
        for file in std::fs::read_dir(version.unwrap().path()).unwrap() {
            let path = file.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            // The official SDKs' in-process `calc` servers, recorded by the peers suite.
            if name.starts_with("peers.") && name.ends_with(".mcp.jsonl") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(
        files
            .iter()
            .any(|f| f.ends_with("claude-2.1.330/peers.python.mcp.jsonl")),
        "{files:?}"
    );
    for file in files {
        let exchanges = recorded_exchanges(&file);
        let methods: Vec<_> = exchanges
            .iter()
            .map(|(_, m, _)| m["method"].clone())
            .collect();
        // The TypeScript SDK sends its servers' `initialize` and `tools/list` answers ahead in
        // `initialize` (`sdkMcpServerManifests`), so the CLI asks it only for the call.
        let full = [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/call",
        ];
        assert!(
            methods == full || methods == ["tools/call"],
            "{}: {methods:?}",
            file.display()
        );
        let router = McpRouter::new(vec![calc()]);
        if methods == ["tools/call"] {
            // The CLI took the handshake from the SDK's manifest; ours runs first.
            router.handle("calc", initialize(0)).await.unwrap();
            router
                .handle(
                    "calc",
                    json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                )
                .await
                .unwrap();
        }
        for (server, message, mut recorded) in exchanges {
            // Python's server says `listChanged: false`, which is what leaving it out means.
            if let Some(tools) = recorded.pointer_mut("/result/capabilities/tools") {
                if tools["listChanged"] == false {
                    tools.as_object_mut().unwrap().remove("listChanged");
                }
            }
            let context = format!("{} {}", file.display(), message["method"]);
            let answer = router.handle(&server, message.clone()).await.unwrap();
            if message["method"] == "tools/list" {
                // Our server has more tools than the recorded one; compare `add`.
                let tools = answer["result"]["tools"].as_array().unwrap();
                let add = tools.iter().find(|t| t["name"] == "add").unwrap();
                assert_subset(&recorded["result"]["tools"][0], add, &context);
                assert_eq!(answer["id"], recorded["id"], "{context}");
            } else if message["method"] == "tools/call" {
                // The SDKs' `add` says `sum=42`, ours `42`: the shape must agree.
                assert_eq!(answer["id"], recorded["id"], "{context}");
                let text = |v: &Value| {
                    v["result"]["content"][0]["text"]
                        .as_str()
                        .map(str::to_owned)
                };
                assert!(text(&answer).is_some_and(|t| text(&recorded).unwrap().contains(&t)));
                assert_eq!(answer["result"]["content"][0]["type"], "text", "{context}");
            } else {
                assert_subset(&recorded, &answer, &context);
            }
            if message.get("id").is_none() {
                assert_eq!(answer, recorded, "{context}");
            }
            assert_ne!(answer["result"]["isError"], true, "{context}: {answer}");
            assert!(answer.get("error").is_none(), "{context}: {answer}");
        }
    }
}

#[tokio::test]
async fn answers_with_the_shapes_the_cli_expects() {
    let router = McpRouter::new(vec![calc()]);
    let init = router.handle("calc", initialize(0)).await.unwrap();
    assert_eq!(init["jsonrpc"], "2.0");
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );
    assert_eq!(
        init["result"]["serverInfo"],
        json!({"name": "calc", "version": "1.0.0"})
    );

    let list = json!({"method": "tools/list", "jsonrpc": "2.0", "id": 1});
    let list = router.handle("calc", list).await.unwrap();
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<_> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["add", "fail", "boom", "meet", "whoami", "hang"]);
    let schema = &tools[0]["inputSchema"];
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"]["a"]["type"], "integer");
    assert_eq!(schema["required"], json!(["a", "b"]));
    assert_eq!(tools[0]["description"], "Adds two integers");

    let answer = router
        .handle("calc", call(2, "add", json!({"a": 2, "b": 3})))
        .await;
    assert_eq!(
        answer.unwrap(),
        json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "5"}]}})
    );
}

#[tokio::test]
async fn tool_metadata_reaches_tools_list_and_the_server_timeout_its_settings() {
    let server = SdkMcpServer::builder("meta")
        .always_load(true)
        .timeout(Duration::from_millis(2500))
        .tool(
            SdkTool::new("find", "Finds things", |_: NoArgs| async {
                Ok(ToolOutput::text("found"))
            })
            .search_hint("locate search lookup")
            .max_result_size_chars(500_000),
        )
        .tool(SdkTool::new(
            "plain",
            "Nothing special",
            |_: NoArgs| async { Ok(ToolOutput::text("plain")) },
        ))
        .build();
    assert_eq!(server.settings().timeout, Some(2500));
    let router = McpRouter::new(vec![server]);
    connect(&router, "meta").await;
    let list = json!({"method": "tools/list", "jsonrpc": "2.0", "id": 1});
    let list = router.handle("meta", list).await.unwrap();
    let tools = list["result"]["tools"].as_array().unwrap();
    assert_eq!(
        tools[0]["_meta"],
        json!({"anthropic/alwaysLoad": true, "anthropic/searchHint": "locate search lookup",
            "anthropic/maxResultSizeChars": 500_000}),
        "{list}"
    );
    assert_eq!(
        tools[1]["_meta"],
        json!({"anthropic/alwaysLoad": true}),
        "{list}"
    );
    // Without metadata a tool has no `_meta` at all.
    let bare = SdkTool::new("bare", "Bare", |_: NoArgs| async {
        Ok(ToolOutput::text(""))
    })
    .always_load(false);
    assert!(bare.definition().meta.is_none());
    assert!(calc().settings().timeout.is_none());
}

#[tokio::test]
async fn manifests_are_the_servers_handshake_and_later_calls_use_its_connection() {
    let router = McpRouter::new(vec![calc()]);
    let manifests = router.manifests(Duration::from_secs(5)).await;
    let manifest = &manifests["calc"];
    assert_eq!(manifest.initialize_result["protocolVersion"], "2025-11-25");
    assert_eq!(
        manifest.initialize_result["serverInfo"],
        json!({"name": "calc", "version": "1.0.0"})
    );
    let tools = manifest.tools_list_result.as_ref().expect("a tool list")["tools"].clone();
    assert_eq!(tools[0]["name"], "add", "{tools}");
    // The CLI, having used the manifest, goes straight to a call.
    let answer = router
        .handle("calc", call(7, "add", json!({"a": 1, "b": 2})))
        .await
        .unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], "3", "{answer}");

    // A server that never answers is left out, within the limit.
    let silent = scripted("silent", |end| {
        Box::pin(async move {
            let _keep = end;
            std::future::pending::<()>().await;
        })
    });
    let router = McpRouter::new(vec![silent, calc()]);
    let manifests = router.manifests(Duration::from_millis(200)).await;
    assert_eq!(manifests.keys().collect::<Vec<_>>(), ["calc"]);
}

#[tokio::test]
async fn a_tool_sees_the_tool_use_id_from_meta() {
    let router = McpRouter::new(vec![calc()]);
    connect(&router, "calc").await;
    let answer = router
        .handle("calc", call(9, "whoami", json!({})))
        .await
        .unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], "toolu_9");
}

#[tokio::test]
async fn a_tool_error_is_an_error_result_not_a_json_rpc_error() {
    let router = McpRouter::new(vec![calc()]);
    connect(&router, "calc").await;
    let answer = router
        .handle("calc", call(5, "fail", json!({})))
        .await
        .unwrap();
    assert_eq!(answer["id"], 5);
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "division by zero");

    let answer = router
        .handle("calc", call(6, "add", json!({"a": "x"})))
        .await
        .unwrap();
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("invalid arguments for tool add"), "{text}");

    let answer = router
        .handle("calc", call(7, "nope", json!({})))
        .await
        .unwrap();
    assert_eq!(answer["id"], 7);
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nope"),
        "{answer}"
    );
}

#[tokio::test]
async fn a_panicking_tool_is_an_error_result_and_the_server_lives_on() {
    let router = McpRouter::new(vec![calc()]);
    connect(&router, "calc").await;
    let answer = router
        .handle("calc", call(3, "boom", json!({})))
        .await
        .unwrap();
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("kaboom"), "{text}");

    let answer = router
        .handle("calc", call(4, "add", json!({"a": 1, "b": 1})))
        .await
        .unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], "2");
}

#[tokio::test]
async fn concurrent_calls_are_all_answered() {
    let router = McpRouter::new(vec![calc()]);
    connect(&router, "calc").await;
    // `meet` returns only once both calls are inside the server at the same time.
    let both = async {
        tokio::join!(
            router.handle("calc", call(10, "meet", json!({}))),
            router.handle("calc", call(11, "meet", json!({}))),
            router.handle("calc", call(12, "add", json!({"a": 1, "b": 2}))),
        )
    };
    let (first, second, third) = tokio::time::timeout(Duration::from_secs(10), both)
        .await
        .expect("concurrent calls were not served concurrently");
    let (first, second, third) = (first.unwrap(), second.unwrap(), third.unwrap());
    assert_eq!(first["id"], 10);
    assert_eq!(second["id"], 11);
    assert_eq!(third["id"], 12);
    assert_eq!(first["result"]["content"][0]["text"], "met");
    assert_eq!(second["result"]["content"][0]["text"], "met");
    assert_eq!(third["result"]["content"][0]["text"], "3");
}

#[tokio::test]
async fn an_unknown_server_is_an_error() {
    let router = McpRouter::new(vec![calc()]);
    let error = router.handle("nope", initialize(0)).await.unwrap_err();
    assert_eq!(error.message, "unknown SDK MCP server nope");
    assert_eq!(router.names(), ["calc"]);
}

#[tokio::test]
async fn a_request_that_takes_too_long_times_out_and_the_next_works() {
    let router = McpRouter::new(vec![calc()]).with_timeout(Duration::from_millis(200));
    connect(&router, "calc").await;
    let error = router
        .handle("calc", call(8, "hang", json!({})))
        .await
        .unwrap_err();
    assert!(
        error.message.contains("did not answer tools/call"),
        "{}",
        error.message
    );
    let answer = router
        .handle("calc", call(8, "add", json!({"a": 1, "b": 2})))
        .await;
    assert_eq!(answer.unwrap()["result"]["content"][0]["text"], "3");
}

#[tokio::test]
async fn a_notification_before_any_connection_is_answered_and_dropped() {
    let router = McpRouter::new(vec![calc()]);
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let answer = router.handle("calc", note).await.unwrap();
    assert_eq!(answer, json!({"jsonrpc": "2.0", "result": {}}));
    // The server was not started by it, so a later initialize still works.
    connect(&router, "calc").await;
    let error = router
        .handle("calc", json!({"jsonrpc": "2.0"}))
        .await
        .unwrap_err();
    assert!(error.message.contains("no method"), "{}", error.message);
}

#[tokio::test]
async fn initialize_again_starts_a_fresh_session() {
    let router = McpRouter::new(vec![calc()]);
    connect(&router, "calc").await;
    connect(&router, "calc").await;
    let answer = router
        .handle("calc", call(1, "add", json!({"a": 2, "b": 2})))
        .await;
    assert_eq!(answer.unwrap()["result"]["content"][0]["text"], "4");
}

#[test]
fn the_handle_future_is_send() {
    fn assert_send<T: Send>(_: &T) {}
    let router = McpRouter::new(vec![calc()]);
    assert_send(&router.handle("calc", json!({})));
}

/// A hand-written `rmcp` handler: an `echo` tool, and a `crash` tool that panics.
#[derive(Clone)]
struct Echo;

impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("echo", "0.1.0"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = rmcp::handler::server::common::schema_for_empty_input();
        Ok(ListToolsResult::with_all_items(vec![Tool::new(
            "echo", "Echoes", schema,
        )]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name == "crash" {
            panic!("handler crashed");
        }
        let meta = serde_json::to_value(&context.meta).unwrap();
        let text = format!(
            "{} {}",
            Value::from(request.arguments),
            meta["claudecode/toolUseId"]
        );
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

#[tokio::test]
async fn a_custom_rmcp_handler_works() {
    let router = McpRouter::new(vec![SdkMcpServer::from_handler("echo", Echo)]);
    let init = router.handle("echo", initialize(0)).await.unwrap();
    assert_eq!(init["result"]["serverInfo"]["name"], "echo");
    let list = json!({"method": "tools/list", "jsonrpc": "2.0", "id": 1});
    let list = router.handle("echo", list).await.unwrap();
    assert_eq!(list["result"]["tools"][0]["name"], "echo");

    let answer = router
        .handle("echo", call(2, "echo", json!({"x": 1})))
        .await
        .unwrap();
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(text, r#"{"x":1} "toolu_2""#);

    // A panic in a hand-written handler is a JSON-RPC error; the server lives on.
    let answer = router
        .handle("echo", call(3, "crash", json!({})))
        .await
        .unwrap();
    assert_eq!(answer["id"], 3);
    assert!(answer["error"]["message"]
        .as_str()
        .unwrap()
        .contains("handler crashed"));
    let answer = router
        .handle("echo", call(4, "echo", json!({})))
        .await
        .unwrap();
    assert!(
        answer["result"]["content"][0]["text"].is_string(),
        "{answer}"
    );
}

/// The next message a scripted server gets, as JSON.
async fn next_message(end: &mut super::ServerEnd) -> Option<Value> {
    use futures::StreamExt;
    let message = end.incoming.next().await?;
    Some(serde_json::to_value(message).unwrap())
}

/// Sends a message from a scripted server.
fn send_message(end: &super::ServerEnd, message: Value) {
    let message = serde_json::from_value(message).unwrap();
    end.outgoing.unbounded_send(message).unwrap();
}

/// A server scripted by hand on the raw message channels.
fn scripted<F>(name: &str, script: F) -> SdkMcpServer
where
    F: Fn(super::ServerEnd) -> BoxFuture<'static, ()> + Send + Sync + 'static,
{
    SdkMcpServer {
        name: Arc::from(name),
        start: Arc::new(script),
        settings: Default::default(),
        schemas: Arc::default(),
    }
}

#[tokio::test]
async fn pending_requests_fail_when_the_server_ends() {
    // Reads one request, then goes away without answering.
    let server = scripted("quitter", |mut end| {
        Box::pin(async move {
            let _ = next_message(&mut end).await;
        })
    });
    let router = McpRouter::new(vec![server]);
    let answer = tokio::time::timeout(
        Duration::from_secs(5),
        router.handle("quitter", initialize(0)),
    )
    .await
    .expect("the request hung after the server ended");
    let error = answer.unwrap_err();
    assert!(
        error.message.contains("closed the connection"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn a_request_given_up_on_is_cancelled_on_the_server() {
    let (seen, mut lines_seen) = tokio::sync::mpsc::unbounded_channel::<Value>();
    // Never answers; reports every line it reads.
    let server = scripted("silent", move |mut end| {
        let seen = seen.clone();
        Box::pin(async move {
            while let Some(message) = next_message(&mut end).await {
                let _ = seen.send(message);
            }
        })
    });
    let router = McpRouter::new(vec![server]).with_timeout(Duration::from_millis(100));
    let error = router.handle("silent", initialize(3)).await.unwrap_err();
    assert!(
        error.message.contains("did not answer initialize"),
        "{}",
        error.message
    );
    assert_eq!(lines_seen.recv().await.unwrap()["method"], "initialize");
    let cancel = lines_seen.recv().await.unwrap();
    assert_eq!(cancel["method"], "notifications/cancelled");
    assert_eq!(cancel["params"]["requestId"], 3);
}

#[tokio::test]
async fn server_requests_are_refused_and_its_notifications_logged() {
    // Asks the client for roots and pings it, then answers our request with what it got.
    let server = scripted("asker", |mut end| {
        Box::pin(async move {
            let request = next_message(&mut end).await.unwrap();
            let outgoing = [
                json!({"jsonrpc": "2.0", "method": "notifications/message",
                    "params": {"level": "info", "data": "hello"}}),
                json!({"jsonrpc": "2.0", "id": "s1", "method": "roots/list"}),
                json!({"jsonrpc": "2.0", "id": "s2", "method": "ping"}),
                json!({"jsonrpc": "2.0", "id": 99, "result": {}}),
            ];
            for message in outgoing {
                send_message(&end, message);
            }
            let mut answers = Vec::new();
            for _ in 0..2 {
                answers.push(next_message(&mut end).await.unwrap());
            }
            let response =
                json!({"jsonrpc": "2.0", "id": request["id"], "result": {"answers": answers}});
            send_message(&end, response);
            std::future::pending::<()>().await;
        })
    });
    let router = McpRouter::new(vec![server]);
    let answer = router.handle("asker", initialize(7)).await.unwrap();
    assert_eq!(answer["id"], 7);
    let answers = &answer["result"]["answers"];
    assert_eq!(answers[0]["id"], "s1");
    assert_eq!(answers[0]["error"]["code"], -32601);
    assert_eq!(
        answers[1],
        json!({"jsonrpc": "2.0", "id": "s2", "result": {}})
    );
}
