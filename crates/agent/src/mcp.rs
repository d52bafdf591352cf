//! Preparing a session's MCP tools once, before the first turn or while answering
//! `initialize`: the host's in-process (SDK) MCP servers, reached through `mcp_message` (their
//! tools from the manifest the host sent, or from a handshake), and external MCP servers from
//! `--mcp-config`. What each gave (its tools, its status) is added to the session's state here,
//! in one place.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use twinwire::agent::Peer;
use twinwire_protocol::mcp::{McpConnectionStatus, McpServerStatus};

use crate::session::Session;
use crate::tools::mcp_client::{self, Connected};
use crate::tools::sdk_mcp::SdkMcpTool;
use crate::tools::Tool;

/// How long one MCP exchange may take while preparing.
const MCP_TIMEOUT: Duration = Duration::from_secs(30);

/// Prepares the tools once; later calls return at once.
pub(crate) async fn prepare(session: &Session, peer: &Peer) {
    let mut ready = session.ready.lock().await;
    if *ready {
        return;
    }
    *ready = true;
    let mut sdk: Vec<(String, Option<Value>)> = session
        .config
        .mcp_servers
        .iter()
        .filter(|(_, server)| server["type"] == "sdk")
        .map(|(name, _)| (name.clone(), None))
        .collect();
    for (name, manifest) in session.state().sdk_servers.clone() {
        match sdk.iter_mut().find(|(n, _)| *n == name) {
            Some(entry) => entry.1 = manifest,
            None => sdk.push((name, manifest)),
        }
    }
    let mut connected = Vec::new();
    for (name, manifest) in sdk {
        connected.push(sdk_server(peer, name, manifest).await);
    }
    let config = &session.config;
    let external = mcp_client::connect_all(&config.mcp_servers, &config.cwd, &config.env).await;
    let resource_tools = mcp_client::resource_tools(&external);
    connected.extend(external);
    let mut state = session.state();
    for tool in resource_tools {
        state.tools.add(tool);
    }
    for server in connected {
        for tool in server.tools {
            state.tools.add(tool);
        }
        state.mcp_status.push(server.status);
    }
}

/// One of the host's in-process servers: its tools from the manifest, or from a handshake.
async fn sdk_server(peer: &Peer, name: String, manifest: Option<Value>) -> Connected {
    let listed = match manifest.and_then(|m| m.get("toolsListResult").cloned()) {
        Some(list) => Ok(list),
        None => handshake(peer, &name).await,
    };
    let mut status = McpServerStatus {
        name: name.clone(),
        ..McpServerStatus::default()
    };
    let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
    match listed {
        Ok(list) => {
            status.status = McpConnectionStatus::Connected;
            for tool in SdkMcpTool::from_list(&name, &list) {
                tools.push(Arc::new(tool));
            }
        }
        Err(why) => {
            tracing::warn!(server = %name, %why, "an SDK MCP server could not be reached");
            status.status = McpConnectionStatus::Failed;
            status.error = Some(why);
        }
    }
    Connected {
        status,
        tools,
        client: None,
    }
}

/// The MCP handshake with an SDK server, then its tool list.
async fn handshake(peer: &Peer, server: &str) -> Result<Value, String> {
    let exchange = |message: Value| async move {
        tokio::time::timeout(MCP_TIMEOUT, peer.mcp_message(server, message))
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
