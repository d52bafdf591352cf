//! Handshake results captured from the in-process servers before `initialize`
//! (`sdkMcpServerManifests`): the CLI then answers its own MCP client's `initialize` and first
//! `tools/list` from them instead of asking over the control channel, so registering the
//! servers costs no `mcp_message` round trips before the first turn. The servers are still
//! reached over `mcp_message` for everything else, and for the whole handshake when the CLI
//! does not use a manifest (an older CLI, another protocol version).

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Map, Value};
use twinwire_protocol::control::SdkMcpServerManifest;

use super::router::McpRouter;

/// The MCP protocol version the CLI's client asks for (Claude Code 2.1.330 to 2.1.332). A
/// manifest of another version is not used (`protocol_version_mismatch`).
const PROTOCOL_VERSION: &str = "2025-11-25";

impl McpRouter {
    /// Each server's `initialize` and `tools/list` results, as the CLI's client would get them;
    /// a server that fails or does not answer within `limit` is left out (the CLI then makes
    /// its handshake over the control channel).
    pub(crate) async fn manifests(
        &self,
        limit: Duration,
    ) -> BTreeMap<String, SdkMcpServerManifest> {
        let mut manifests = BTreeMap::new();
        for name in self.names() {
            match tokio::time::timeout(limit, self.manifest(&name)).await {
                Ok(Some(manifest)) => {
                    manifests.insert(name, manifest);
                }
                Ok(None) => {}
                Err(_) => tracing::warn!(
                    server = %name,
                    "no handshake within {limit:?}: the CLI will make it over the control channel"
                ),
            }
        }
        manifests
    }

    /// One server's handshake, on a fresh connection that the CLI's later calls go on using.
    async fn manifest(&self, name: &str) -> Option<SdkMcpServerManifest> {
        let initialize = json!({
            "jsonrpc": "2.0", "id": "twinwire-manifest-initialize", "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "twinwire", "version": env!("CARGO_PKG_VERSION")},
            },
        });
        let initialize_result = result_of(name, "initialize", self.handle(name, initialize).await)?;
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        if let Err(err) = self.handle(name, initialized).await {
            tracing::warn!(server = %name, error = %err.message, "notifications/initialized failed");
            return None;
        }
        let has_tools = initialize_result
            .get("capabilities")
            .and_then(|capabilities| capabilities.get("tools"))
            .is_some_and(|tools| !tools.is_null());
        let tools_list_result = if has_tools {
            let list =
                json!({"jsonrpc": "2.0", "id": "twinwire-manifest-tools", "method": "tools/list"});
            result_of(name, "tools/list", self.handle(name, list).await)
                // A paginated list is left to the CLI, as the SDK's contract asks.
                .filter(|result| result.get("nextCursor").is_none())
        } else {
            None
        };
        Some(SdkMcpServerManifest {
            initialize_result,
            tools_list_result,
            ..SdkMcpServerManifest::default()
        })
    }
}

/// The `result` object of a JSON-RPC answer, or `None` (logged) for an error or a failure.
fn result_of(
    name: &str,
    method: &str,
    answer: Result<Value, crate::engine::HandlerError>,
) -> Option<Map<String, Value>> {
    match answer {
        Ok(Value::Object(mut answer)) => match answer.remove("result") {
            Some(Value::Object(result)) => Some(result),
            _ => {
                tracing::warn!(server = %name, method, "the server answered with no result");
                None
            }
        },
        Ok(other) => {
            tracing::warn!(server = %name, method, %other, "not a JSON-RPC answer");
            None
        }
        Err(err) => {
            tracing::warn!(server = %name, method, error = %err.message, "the server failed");
            None
        }
    }
}
