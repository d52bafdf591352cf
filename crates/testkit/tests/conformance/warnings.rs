//! Misconfigurations warned about (`Client::warnings`): what the options show before the
//! session, and what the real CLI's `system/init` shows (a server it did not load, a rule
//! naming a tool it does not have).

use serde_json::json;
use twinwire::host::callbacks::can_use_tool;
use twinwire::host::Warning;
use twinwire::protocol::mcp::McpServerConfig;
use twinwire::protocol::permission::PermissionResult;

use crate::{kinds, the_result, turn, within, Scenario};

#[tokio::test]
async fn a_server_the_cli_did_not_load_and_a_rule_for_a_tool_it_lacks_are_warned_about() {
    let s = Scenario::start(crate::script(json!([]), json!({"text": "ok"}))).await;
    let missing = s.work().join("no-such-server");
    let options = s
        .builder()
        .mcp_server(
            "broken",
            McpServerConfig::stdio(missing.display().to_string(), Vec::new()),
        )
        .allowed_tools(["Read", "WebSerch"])
        .can_use_tool(can_use_tool(|request| async move {
            Ok(PermissionResult::allow(request.input().clone()))
        }))
        .build()
        .unwrap();
    let client = s.connect(options).await;
    // Known before the session: the callback is never asked about Read.
    assert!(client.warnings().contains(&Warning::CanUseToolShadowed {
        by: "Read".into(),
        source: "cliArg".into()
    }));
    let items = turn(&client, "hello").await;
    assert!(!the_result(&items).is_error, "{}", kinds(&items));
    let warnings = client.warnings();
    assert!(
        warnings.iter().any(
            |w| matches!(w, Warning::McpServerNotLoaded { server, status }
            if server == "broken" && status.as_deref() != Some("connected"))
        ),
        "{warnings:?}"
    );
    assert!(
        warnings.contains(&Warning::UnknownToolInRule {
            rule: "WebSerch".into(),
            source: "cliArg".into()
        }),
        "{warnings:?}"
    );
    // `Read` is a tool the CLI has: not warned about as unknown.
    assert!(!warnings
        .iter()
        .any(|w| matches!(w, Warning::UnknownToolInRule { rule, .. } if rule == "Read")));
    within(client.close()).await.unwrap();
}
