//! The host's in-process (SDK) MCP servers: their tools and identity from the manifest the
//! host sent ahead in `initialize` (no exchange needed), or from a handshake through
//! `mcp_message`, as Claude Code does.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use twinwire::agent::Peer;
use twinwire_protocol::mcp::McpServerInfo;

use crate::tools::sdk_mcp::SdkMcpTool;
use crate::tools::Tool;

/// How long one MCP exchange may take while preparing.
const MCP_TIMEOUT: Duration = Duration::from_secs(30);

/// What an in-process server offers.
pub(super) struct Listing {
    /// Its name and version.
    pub(super) info: Option<McpServerInfo>,
    /// Its tools, as `tools/list` gives them.
    pub(super) listed: Vec<Value>,
}

impl Listing {
    /// Its tools for the model, named `mcp__<server>__<tool>`.
    pub(super) fn tools(&self, server: &str) -> Vec<Arc<dyn Tool>> {
        let list = json!({"tools": self.listed});
        SdkMcpTool::from_list(server, &list)
            .into_iter()
            .map(|tool| Arc::new(tool) as Arc<dyn Tool>)
            .collect()
    }
}

/// The server's listing: from `manifest` when the host sent one, else from a handshake.
pub(super) async fn list(
    peer: &Peer,
    server: &str,
    manifest: Option<&Value>,
) -> Result<Listing, String> {
    let (initialized, listed) = match manifest {
        Some(manifest) => (
            manifest["initializeResult"].clone(),
            manifest["toolsListResult"].clone(),
        ),
        None => handshake(peer, server).await?,
    };
    Ok(Listing {
        info: serde_json::from_value(initialized["serverInfo"].clone()).ok(),
        listed: listed["tools"].as_array().cloned().unwrap_or_default(),
    })
}

/// The MCP handshake with an SDK server, then its tool list: the `initialize` result and the
/// `tools/list` result.
async fn handshake(peer: &Peer, server: &str) -> Result<(Value, Value), String> {
    let exchange = |message: Value| async move {
        tokio::time::timeout(MCP_TIMEOUT, peer.mcp_message(server, message))
            .await
            .map_err(|_| format!("no answer within {} s", MCP_TIMEOUT.as_secs()))?
            .map_err(|err| err.to_string())
    };
    let initialized = exchange(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "twinwire-agent",
                                              "version": env!("CARGO_PKG_VERSION")}}}))
    .await?;
    exchange(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await?;
    let listed = exchange(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})).await?;
    match listed.get("result") {
        Some(result) => Ok((initialized["result"].clone(), result.clone())),
        None => Err(format!("tools/list failed: {}", listed["error"])),
    }
}
