//! The MCP requests of the host, between the session and its server registry
//! ([`crate::mcp::McpServers`]): preparing the servers once, `mcp_status`, `mcp_toggle`,
//! `mcp_reconnect`, `mcp_set_servers`, `mcp_read_resource` and
//! `set_mcp_permission_mode_override`. After each change what the registry publishes (the
//! status list, the tools) is put in the session's state here, in one place.

use std::collections::BTreeMap;

use serde_json::Value;
use twinwire::agent::Peer;
use twinwire::engine::HandlerError;
use twinwire_protocol::control::{
    McpPermissionModeOverride, McpReadResourceResponse, McpSetServersResponse,
    SetMcpPermissionModeOverrideResponse,
};
use twinwire_protocol::mcp::McpServerConfig;

use crate::mcp::{Parked, Published};
use crate::session::Session;

/// Connects the servers of the command line and of `initialize`, once; what became of the
/// manifests the host sent ahead.
pub(crate) async fn prepare(session: &Session, peer: &Peer) -> Parked {
    let _once = session.ready.lock().await;
    let manifests = session.state().sdk_servers.clone();
    match session.mcp.prepare(&session.config, &manifests, peer).await {
        Some((parked, published)) => {
            apply(session, published);
            parked
        }
        None => Parked::new(),
    }
}

/// Puts what the registry published in the session's state.
fn apply(session: &Session, published: Published) {
    let mut state = session.state();
    state.mcp_status = published.status;
    state.tools.retain(|name| {
        !name.starts_with("mcp__") && !crate::tools::mcp_resources::NAMES.contains(&name)
    });
    for tool in published.tools {
        state.tools.add(tool);
    }
    state.always_loaded = published.always_loaded;
}

/// `mcp_toggle`.
pub(crate) async fn toggle(
    session: &Session,
    peer: &Peer,
    name: &str,
    enabled: bool,
) -> Result<(), HandlerError> {
    let published = session
        .mcp
        .toggle(&session.config, peer, name, enabled)
        .await
        .map_err(HandlerError::new)?;
    apply(session, published);
    Ok(())
}

/// `mcp_reconnect`.
pub(crate) async fn reconnect(
    session: &Session,
    peer: &Peer,
    name: &str,
) -> Result<(), HandlerError> {
    let published = session
        .mcp
        .reconnect(&session.config, peer, name)
        .await
        .map_err(HandlerError::new)?;
    apply(session, published);
    Ok(())
}

/// `mcp_set_servers`: the in-process servers of the set (`"type": "sdk"`) are the host's and
/// are not started here; the others replace the ones set before.
pub(crate) async fn set_servers(
    session: &Session,
    peer: &Peer,
    servers: BTreeMap<String, McpServerConfig>,
) -> McpSetServersResponse {
    let wanted: BTreeMap<String, Value> = servers
        .into_iter()
        .filter(|(_, config)| config.tag() != "sdk")
        .filter_map(|(name, config)| Some((name, serde_json::to_value(config).ok()?)))
        .collect();
    let (answer, published) = session.mcp.set_servers(&session.config, peer, wanted).await;
    apply(session, published);
    answer
}

/// `mcp_read_resource`.
pub(crate) async fn read_resource(
    session: &Session,
    name: &str,
    uri: &str,
) -> Result<McpReadResourceResponse, HandlerError> {
    session
        .mcp
        .read_resource(name, uri)
        .await
        .map_err(HandlerError::new)
}

/// `set_mcp_permission_mode_override`: pins (or clears) the mode of one server's tools; a
/// name no server has is kept all the same, with a warning (it may be a typo).
pub(crate) async fn mode_override(
    session: &Session,
    name: &str,
    mode: Option<McpPermissionModeOverride>,
) -> SetMcpPermissionModeOverrideResponse {
    let known = session.mcp.knows(name).await;
    {
        let mut state = session.state();
        match mode {
            Some(mode) => {
                state.mcp_modes.insert(name.to_owned(), mode);
            }
            None => {
                state.mcp_modes.remove(name);
            }
        }
    }
    SetMcpPermissionModeOverrideResponse {
        warning: (!known).then(|| {
            format!(
                "No MCP server named \"{name}\" is known; the override is kept and applies \
                 once a server of that name connects."
            )
        }),
        ..SetMcpPermissionModeOverrideResponse::default()
    }
}
