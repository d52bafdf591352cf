//! Preparing a session's tools once, before the first turn or while answering `initialize`:
//! the host's in-process (SDK) MCP servers, reached through `mcp_message` (their tools from
//! the manifest the host sent, or from a handshake), and external MCP servers from
//! `--mcp-config`.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use twinwire::agent::Peer;

use super::Shared;
use crate::tools::sdk_mcp::SdkMcpTool;

/// How long one MCP exchange may take while preparing.
const MCP_TIMEOUT: Duration = Duration::from_secs(30);

/// Prepares the tools once; later calls return at once.
pub(crate) async fn prepare(shared: &Arc<Shared>, session: &Peer) {
    let mut ready = shared.ready.lock().await;
    if *ready {
        return;
    }
    *ready = true;
    let mut sdk: Vec<(String, Option<Value>)> = shared
        .config
        .mcp_servers
        .iter()
        .filter(|(_, server)| server["type"] == "sdk")
        .map(|(name, _)| (name.clone(), None))
        .collect();
    for (name, manifest) in super::lock(&shared.state).sdk_servers.clone() {
        match sdk.iter_mut().find(|(n, _)| *n == name) {
            Some(entry) => entry.1 = manifest,
            None => sdk.push((name, manifest)),
        }
    }
    for (name, manifest) in sdk {
        let tools = match manifest.and_then(|m| m.get("toolsListResult").cloned()) {
            Some(list) => Ok(list),
            None => handshake(session, &name).await,
        };
        let status = match tools {
            Ok(list) => {
                let tools = SdkMcpTool::from_list(&name, &list);
                let mut state = super::lock(&shared.state);
                for tool in tools {
                    state.tools.add(Arc::new(tool));
                }
                json!({"name": name, "status": "connected"})
            }
            Err(why) => {
                tracing::warn!(server = %name, %why, "an SDK MCP server could not be reached");
                json!({"name": name, "status": "failed", "error": why})
            }
        };
        super::lock(&shared.state).mcp_status.push(status);
    }
    crate::tools::mcp_client::connect_all(shared, session).await;
}

/// The MCP handshake with an SDK server, then its tool list.
async fn handshake(session: &Peer, server: &str) -> Result<Value, String> {
    let exchange = |message: Value| async move {
        tokio::time::timeout(MCP_TIMEOUT, session.mcp_message(server, message))
            .await
            .map_err(|_| format!("no answer within {} s", MCP_TIMEOUT.as_secs()))?
            .map_err(|err| err.to_string())
    };
    exchange(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "twinwire-agent",
                                              "version": env!("CARGO_PKG_VERSION")}}}))
    .await?;
    exchange(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await?;
    let listed = exchange(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})).await?;
    match listed.get("result") {
        Some(result) => Ok(result.clone()),
        None => Err(format!("tools/list failed: {}", listed["error"])),
    }
}
