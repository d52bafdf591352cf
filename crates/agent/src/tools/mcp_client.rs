//! External MCP servers from `--mcp-config` (not yet connected).

use std::sync::Arc;

use ccwire::agent::Session;

use crate::agent::Shared;

/// Connects every stdio server of the configuration (none yet: each is reported failed).
pub(crate) async fn connect_all(shared: &Arc<Shared>, _session: &Session) {
    let external: Vec<String> = shared
        .config
        .mcp_servers
        .iter()
        .filter(|(_, server)| server["type"] != "sdk")
        .map(|(name, _)| name.clone())
        .collect();
    let mut state = crate::agent::lock(&shared.state);
    for name in external {
        state.mcp_status.push(serde_json::json!({"name": name, "status": "failed",
                                                  "error": "external MCP servers are not connected"}));
    }
}
