//! MCP servers the CLI starts itself (`memo-mcp` on stdio), managed over the control
//! channel: status, enable/disable, reconnect, replacing the dynamic set, reading a resource;
//! a server's elicitation answered by the host; and servers it reaches over streamable HTTP
//! and SSE (`twinwire_testkit::mcp_http`, on a real socket).

use std::collections::BTreeMap;

use serde_json::json;
use twinwire::protocol::control::McpSetServersRequest;
use twinwire::protocol::mcp::{McpConnectionStatus, McpServerConfig, McpServerStatus};
use twinwire::Client;
use twinwire_testkit::mcp_http::McpHttpServer;

use crate::{script, the_result, turn, within, Scenario};

/// `memo-mcp` as a stdio server whose answers carry `label` and whose note reads `text`.
fn memo(label: &str, text: &str) -> McpServerConfig {
    let mut config = McpServerConfig::stdio(env!("CARGO_BIN_EXE_memo-mcp"), Vec::new());
    if let McpServerConfig::Stdio(stdio) = &mut config {
        stdio.env = Some(BTreeMap::from([
            ("MEMO_LABEL".to_owned(), label.to_owned()),
            ("MEMO_TEXT".to_owned(), text.to_owned()),
        ]));
    }
    config
}

/// The status of server `name`, as the CLI reports it now.
async fn status_of(client: &Client, name: &str) -> McpServerStatus {
    let status = within(client.mcp_status()).await.unwrap();
    status
        .mcp_servers
        .into_iter()
        .find(|server| server.name == name)
        .unwrap_or_else(|| panic!("no server {name} in the status"))
}

/// A model that calls `mcp__<server>__note` when asked to "take a note".
fn note_script(server: &str) -> twinwire_model_server::ModelScript {
    script(
        json!([
            {"when": {"last_is_tool_result": true}, "reply": {"text": "noted"}},
            {"when": {"last_user_text_contains": "take a note"},
             "reply": {"tool_use": {"name": format!("mcp__{server}__note"),
                                    "input": {"text": "buy milk"}}}}
        ]),
        json!({"text": "ok"}),
    )
}

#[tokio::test]
async fn a_stdio_server_is_toggled_and_reconnected() {
    let s = Scenario::start(note_script("memo")).await;
    let options = s
        .builder()
        .mcp_server("memo", memo("first", "the note"))
        .allowed_tools(["mcp__memo__note"])
        .build()
        .unwrap();
    let client = s.connect(options).await;
    let items = turn(&client, "take a note").await;
    assert_eq!(the_result(&items).text(), Some("noted"));
    let results = s.tool_results_sent();
    assert!(
        results.iter().any(|r| r.contains("memo(first): buy milk")),
        "{results:?}\nstderr:\n{}",
        s.stderr()
    );
    let memo = status_of(&client, "memo").await;
    assert_eq!(memo.status, McpConnectionStatus::Connected, "{memo:?}");
    assert_eq!(
        memo.server_info.as_ref().map(|info| info.name.as_str()),
        Some("memo")
    );

    within(client.mcp_toggle("memo", false)).await.unwrap();
    let memo = status_of(&client, "memo").await;
    assert_eq!(memo.status, McpConnectionStatus::Disabled, "{memo:?}");

    within(client.mcp_toggle("memo", true)).await.unwrap();
    let memo = status_of(&client, "memo").await;
    assert_eq!(memo.status, McpConnectionStatus::Connected, "{memo:?}");

    within(client.mcp_reconnect("memo")).await.unwrap();
    let memo = status_of(&client, "memo").await;
    assert_eq!(memo.status, McpConnectionStatus::Connected, "{memo:?}");

    let error = within(client.mcp_reconnect("no_such_server"))
        .await
        .expect_err("reconnecting an unknown server fails");
    assert!(error.to_string().contains("no_such_server"), "{error}");
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn a_resource_is_read_over_the_control_channel() {
    let s = Scenario::start(note_script("memo")).await;
    let options = s
        .builder()
        .mcp_server("memo", memo("first", "the resource text 5d1c"))
        .build()
        .unwrap();
    let client = s.connect(options).await;
    let items = turn(&client, "hello").await;
    assert!(!the_result(&items).is_error);
    let read = within(client.mcp_read_resource("memo", "ui://memo/note"))
        .await
        .unwrap();
    assert_eq!(read.contents.len(), 1, "{read:?}");
    assert_eq!(read.contents[0].uri, "ui://memo/note");
    assert_eq!(
        read.contents[0].text.as_deref(),
        Some("the resource text 5d1c")
    );
    let error = within(client.mcp_read_resource("memo", "ui://memo/missing"))
        .await
        .expect_err("an unknown resource is an error");
    assert!(error.to_string().contains("ui://memo/missing"), "{error}");
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn set_servers_adds_and_removes_dynamic_servers() {
    let s = Scenario::start(note_script("extra")).await;
    let options = s
        .builder()
        .allowed_tools(["mcp__extra__note"])
        .build()
        .unwrap();
    let client = s.connect(options).await;
    let items = turn(&client, "hello").await;
    assert!(!the_result(&items).is_error);

    let request = McpSetServersRequest {
        servers: BTreeMap::from([("extra".to_owned(), memo("second", "x"))]),
        ..McpSetServersRequest::default()
    };
    let added = within(client.mcp_set_servers(request)).await.unwrap();
    assert_eq!(added.added, ["extra"], "{added:?}");
    assert!(added.errors.is_empty(), "{added:?}");
    let extra = status_of(&client, "extra").await;
    assert_eq!(extra.status, McpConnectionStatus::Connected, "{extra:?}");

    // The new server's tool can be called on the next turn.
    let items = turn(&client, "take a note").await;
    assert_eq!(the_result(&items).text(), Some("noted"), "{}", s.stderr());
    let results = s.tool_results_sent();
    assert!(
        results.iter().any(|r| r.contains("memo(second): buy milk")),
        "{results:?}"
    );

    let removed = within(client.mcp_set_servers(McpSetServersRequest::default()))
        .await
        .unwrap();
    assert_eq!(removed.removed, ["extra"], "{removed:?}");
    let status = within(client.mcp_status()).await.unwrap();
    assert!(
        status
            .mcp_servers
            .iter()
            .all(|server| server.name != "extra"),
        "{status:?}"
    );
    within(client.close()).await.unwrap();
}

/// A model that calls `mcp__memo__ask` (which elicits a name) when asked.
fn ask_script() -> twinwire_model_server::ModelScript {
    script(
        json!([
            {"when": {"last_is_tool_result": true}, "reply": {"text": "asked"}},
            {"when": {"last_user_text_contains": "ask my name"},
             "reply": {"tool_use": {"name": "mcp__memo__ask", "input": {}}}}
        ]),
        json!({"text": "ok"}),
    )
}

/// An MCP server the CLI started asks the user through an elicitation: the CLI forwards it to
/// the host as an `elicitation` request, the host's callback answers, and the answer reaches
/// the server (its tool result says what came back). Without a callback, the host declines.
#[tokio::test]
async fn an_mcp_servers_elicitation_is_answered_by_the_host() {
    use std::sync::{Arc, Mutex};

    use twinwire::host::callbacks::on_elicitation;
    use twinwire::protocol::control::ElicitationResponse;

    let s = Scenario::start(ask_script()).await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let asked = Arc::clone(&seen);
    let options = s
        .builder()
        .mcp_server("memo", memo("first", "the note"))
        .allowed_tools(["mcp__memo__ask"])
        .on_elicitation(on_elicitation(move |request, _cancel| {
            asked
                .lock()
                .unwrap()
                .push(format!("{}: {}", request.mcp_server_name, request.message));
            async move {
                Ok(serde_json::from_value::<ElicitationResponse>(
                    json!({"action": "accept", "content": {"name": "Ada"}}),
                )?)
            }
        }))
        .build()
        .unwrap();
    let client = s.connect(options).await;
    let items = turn(&client, "ask my name").await;
    assert_eq!(the_result(&items).text(), Some("asked"), "{}", s.stderr());
    assert_eq!(*seen.lock().unwrap(), ["memo: What is your name?"]);
    let results = s.tool_results_sent();
    assert!(
        results
            .iter()
            .any(|r| r.contains(r#"asked: accept {\"name\":\"Ada\"}"#)),
        "{results:?}"
    );
    within(client.close()).await.unwrap();

    // No callback: the host declines for the user.
    let s = Scenario::start(ask_script()).await;
    let options = s
        .builder()
        .mcp_server("memo", memo("first", "the note"))
        .allowed_tools(["mcp__memo__ask"])
        .build()
        .unwrap();
    let client = s.connect(options).await;
    let items = turn(&client, "ask my name").await;
    assert_eq!(the_result(&items).text(), Some("asked"), "{}", s.stderr());
    let results = s.tool_results_sent();
    assert!(
        results.iter().any(|r| r.contains("asked: decline")),
        "{results:?}"
    );
    within(client.close()).await.unwrap();
}

#[tokio::test]
async fn servers_over_http_and_sse_are_connected_and_their_tools_called() {
    let s = Scenario::start(script(
        json!([
            {"when": {"tool_result_contains": "old: by sse"}, "reply": {"text": "both answered"}},
            {"when": {"tool_result_contains": "web: by http"},
             "reply": {"tool_use": {"name": "mcp__old__note", "input": {"text": "by sse"}}}},
            {"when": {"last_is_tool_result": true}, "reply": {"text": "a wrong result"}},
            {"when": {"last_user_text_contains": "note it twice"},
             "reply": {"tool_use": {"name": "mcp__web__note", "input": {"text": "by http"}}}}
        ]),
        json!({"text": "ok"}),
    ))
    .await;
    let web = McpHttpServer::start("web").await.unwrap();
    let old = McpHttpServer::start("old").await.unwrap();
    let config: McpServerConfig = serde_json::from_value(json!({
        "type": "http", "url": web.http_url(), "headers": {"X-Memo-Token": "t-web"}
    }))
    .unwrap();
    let sse: McpServerConfig =
        serde_json::from_value(json!({"type": "sse", "url": old.sse_url()})).unwrap();
    let options = s
        .builder()
        .mcp_server("web", config)
        .mcp_server("old", sse)
        .allowed_tools(["mcp__web__note", "mcp__old__note"])
        .env("ENABLE_TOOL_SEARCH", "false")
        .build()
        .unwrap();
    let client = s.connect(options).await;
    let items = turn(&client, "note it twice").await;
    assert_eq!(
        the_result(&items).text(),
        Some("both answered"),
        "{:?}\nstderr:\n{}",
        s.tool_results_sent(),
        s.stderr()
    );
    for name in ["web", "old"] {
        let server = status_of(&client, name).await;
        assert_eq!(server.status, McpConnectionStatus::Connected, "{server:?}");
    }
    // The configured header goes with every request of the session.
    let posts: Vec<String> = web
        .heads()
        .into_iter()
        .filter(|head| head.starts_with("POST /mcp"))
        .collect();
    assert!(!posts.is_empty());
    assert!(
        posts
            .iter()
            .all(|head| head.to_ascii_lowercase().contains("x-memo-token: t-web")),
        "{posts:#?}"
    );
    within(client.close()).await.unwrap();
}
