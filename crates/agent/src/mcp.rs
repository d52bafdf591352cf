//! The session's MCP servers, in one registry ([`McpServers`]): the host's in-process (SDK)
//! servers, reached through `mcp_message` ([`sdk`]), and external ones from `--mcp-config` or
//! `mcp_set_servers` over stdio, streamable HTTP or SSE ([`external`]). The registry is where
//! every change happens (preparing them once, `mcp_toggle`, `mcp_reconnect`,
//! `mcp_set_servers`); after each one it publishes what the session sees: the status list
//! (`system/init`, `mcp_status`), the tools (`mcp__<server>__<tool>`) and which of them tool
//! search leaves in full view ([`search`]).

pub(crate) mod external;
mod legacy_sse;
mod sdk;
pub(crate) mod search;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;
use twinwire::agent::Peer;
use twinwire_protocol::control::{McpReadResourceResponse, McpSetServersResponse};
use twinwire_protocol::mcp::{
    McpConnectionStatus, McpServerConfig, McpServerSource, McpServerStatus,
};

use crate::config::Config;
use crate::tools::Tool;
use external::Connection;

/// Where a server came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// `--mcp-config`.
    Config,
    /// `mcp_set_servers`.
    Dynamic,
    /// The host's own process (`sdkMcpServers`, or `"type": "sdk"` in `--mcp-config`).
    Sdk,
}

/// One server and how it is.
struct Server {
    name: String,
    config: Value,
    origin: Origin,
    enabled: bool,
    /// A live connection, for an external server.
    connection: Option<Arc<Connection>>,
    /// An in-process server's tools and identity, once known.
    sdk: Option<sdk::Listing>,
    /// Why it could not be used.
    error: Option<String>,
}

impl Server {
    fn new(name: &str, config: Value, origin: Origin) -> Self {
        Self {
            name: name.to_owned(),
            config,
            origin,
            enabled: true,
            connection: None,
            sdk: None,
            error: None,
        }
    }

    fn status(&self) -> McpServerStatus {
        let connected = self.connection.is_some() || self.sdk.is_some();
        let status = if !self.enabled {
            McpConnectionStatus::Disabled
        } else if connected {
            McpConnectionStatus::Connected
        } else if self.error.is_some() {
            McpConnectionStatus::Failed
        } else {
            McpConnectionStatus::Pending
        };
        let transport = match self.origin {
            Origin::Sdk => "sdk".to_owned(),
            _ => self.config["type"].as_str().unwrap_or("stdio").to_owned(),
        };
        let mut report = McpServerStatus {
            name: self.name.clone(),
            status,
            scope: Some("dynamic".to_owned()),
            source: Some(match self.origin {
                Origin::Sdk => McpServerSource::Sdk,
                _ => McpServerSource::Dynamic,
            }),
            transport: Some(transport),
            config: (self.origin != Origin::Sdk)
                .then(|| shown_config(&self.config))
                .flatten(),
            ..McpServerStatus::default()
        };
        if !self.enabled {
            return report;
        }
        report.error = (!connected).then(|| self.error.clone()).flatten();
        if let Some(connection) = &self.connection {
            report.server_info = connection.info.clone();
            report.tools = Some(connection.status_tools());
        }
        if let Some(listing) = &self.sdk {
            report.server_info = listing.info.clone();
            report.tools = Some(listing.listed.iter().map(external::status_tool).collect());
        }
        report
    }

    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        if !self.enabled {
            return Vec::new();
        }
        match (&self.connection, &self.sdk) {
            (Some(connection), _) => connection.tools(&self.name),
            (None, Some(listing)) => listing.tools(&self.name),
            (None, None) => Vec::new(),
        }
    }

    fn always_loaded(&self) -> Vec<String> {
        match (&self.connection, &self.sdk) {
            (Some(connection), _) => connection.always_loaded(&self.name),
            (None, Some(listing)) => external::always_loaded(&self.name, &listing.listed),
            (None, None) => Vec::new(),
        }
    }

    async fn connect(&mut self, config: &Config, peer: &Peer) {
        self.disconnect().await;
        match self.origin {
            Origin::Sdk => match sdk::list(peer, &self.name, None).await {
                Ok(listing) => self.sdk = Some(listing),
                Err(why) => self.fail(why),
            },
            _ => match external::connect(
                &self.name,
                &self.config,
                &config.cwd,
                &config.env,
                Some(peer.clone()),
            )
            .await
            {
                Ok(connection) => self.connection = Some(Arc::new(connection)),
                Err(why) => self.fail(why),
            },
        }
    }

    fn fail(&mut self, why: String) {
        tracing::warn!(server = %self.name, %why, "an MCP server could not be used");
        self.error = Some(why);
    }

    async fn disconnect(&mut self) {
        self.error = None;
        if let Some(connection) = self.connection.take() {
            connection.close().await;
        }
    }
}

/// A server's configuration as a status report shows it (without its environment, which may
/// hold secrets).
fn shown_config(config: &Value) -> Option<McpServerConfig> {
    let mut shown = config.clone();
    if let Some(object) = shown.as_object_mut() {
        object.remove("env");
        object.remove("headers");
        object
            .entry("type")
            .or_insert_with(|| Value::String("stdio".into()));
    }
    serde_json::from_value(shown).ok()
}

/// Every MCP server of a session.
#[derive(Default)]
pub(crate) struct McpServers {
    servers: tokio::sync::Mutex<Vec<Server>>,
    prepared: std::sync::atomic::AtomicBool,
}

/// What became of the manifests the host sent ahead in `initialize`, by server.
pub(crate) type Parked = BTreeMap<String, String>;

/// What the session sees of its servers after a change.
#[derive(Default)]
pub(crate) struct Published {
    /// Each server's status.
    pub(crate) status: Vec<McpServerStatus>,
    /// The tools of the servers that are enabled and connected.
    pub(crate) tools: Vec<Arc<dyn Tool>>,
    /// The names of the tools that ask to be always loaded.
    pub(crate) always_loaded: Vec<String>,
}

impl McpServers {
    /// Connects the servers of the command line and of `initialize` once (later calls return
    /// at once); an in-process server whose manifest the host sent ahead is listed from it,
    /// without a handshake (it is "parked").
    pub(crate) async fn prepare(
        &self,
        config: &Config,
        manifests: &BTreeMap<String, Option<Value>>,
        peer: &Peer,
    ) -> Option<(Parked, Published)> {
        let mut servers = self.servers.lock().await;
        if self
            .prepared
            .swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            return None;
        }
        let mut parked = Parked::new();
        for (name, server) in &config.mcp_servers {
            let origin = if server["type"] == "sdk" {
                Origin::Sdk
            } else {
                Origin::Config
            };
            servers.push(Server::new(name, server.clone(), origin));
        }
        for name in manifests.keys() {
            if !servers.iter().any(|s| &s.name == name) {
                servers.push(Server::new(name, Value::Null, Origin::Sdk));
            }
        }
        for server in servers.iter_mut() {
            let manifest = manifests.get(&server.name).cloned().flatten();
            if server.origin == Origin::Sdk {
                if let Some(manifest) = manifest {
                    match sdk::list(peer, &server.name, Some(&manifest)).await {
                        Ok(listing) => {
                            server.sdk = Some(listing);
                            parked.insert(server.name.clone(), "parked".to_owned());
                        }
                        Err(why) => server.fail(why),
                    }
                    continue;
                }
            }
            server.connect(config, peer).await;
        }
        Some((parked, published(&servers)))
    }

    /// Whether a server of this name is known.
    pub(crate) async fn knows(&self, name: &str) -> bool {
        self.servers.lock().await.iter().any(|s| s.name == name)
    }

    /// `mcp_toggle`: a disabled server is disconnected and offers no tools; enabled again, it
    /// is connected anew.
    pub(crate) async fn toggle(
        &self,
        config: &Config,
        peer: &Peer,
        name: &str,
        enabled: bool,
    ) -> Result<Published, String> {
        let mut servers = self.servers.lock().await;
        let server = find(&mut servers, name)?;
        if server.enabled != enabled {
            server.enabled = enabled;
            if enabled {
                server.connect(config, peer).await;
            } else {
                server.disconnect().await;
                server.sdk = None;
            }
        }
        Ok(published(&servers))
    }

    /// `mcp_reconnect`: the server is connected anew.
    pub(crate) async fn reconnect(
        &self,
        config: &Config,
        peer: &Peer,
        name: &str,
    ) -> Result<Published, String> {
        let mut servers = self.servers.lock().await;
        let server = find(&mut servers, name)?;
        if server.enabled {
            server.connect(config, peer).await;
        }
        match server.error.clone() {
            Some(why) => Err(format!("Failed to reconnect to {name}: {why}")),
            None => Ok(published(&servers)),
        }
    }

    /// `mcp_set_servers`: the servers set this way become exactly `wanted` (those of the
    /// command line and the host's in-process ones stay); a server whose configuration did
    /// not change is left connected.
    pub(crate) async fn set_servers(
        &self,
        config: &Config,
        peer: &Peer,
        wanted: BTreeMap<String, Value>,
    ) -> (McpSetServersResponse, Published) {
        let mut servers = self.servers.lock().await;
        let mut answer = McpSetServersResponse::default();
        let mut kept = Vec::new();
        for mut server in std::mem::take(&mut *servers) {
            let stays = server.origin != Origin::Dynamic
                || wanted.get(&server.name) == Some(&server.config);
            if stays {
                kept.push(server);
            } else {
                server.disconnect().await;
                if !wanted.contains_key(&server.name) {
                    answer.removed.push(server.name.clone());
                }
            }
        }
        *servers = kept;
        for (name, wanted_config) in wanted {
            if servers.iter().any(|s| s.name == name) {
                continue;
            }
            let mut server = Server::new(&name, wanted_config, Origin::Dynamic);
            server.connect(config, peer).await;
            match &server.error {
                Some(why) => {
                    answer.errors.insert(name.clone(), why.clone());
                }
                None => answer.added.push(name.clone()),
            }
            servers.push(server);
        }
        (answer, published(&servers))
    }

    /// `mcp_read_resource`: one resource of a connected server.
    pub(crate) async fn read_resource(
        &self,
        name: &str,
        uri: &str,
    ) -> Result<McpReadResourceResponse, String> {
        let connection = {
            let mut servers = self.servers.lock().await;
            let server = find(&mut servers, name)?;
            server
                .connection
                .clone()
                .ok_or_else(|| format!("Server {name} is not connected"))?
        };
        let read = connection
            .read_resource(uri)
            .await
            .map_err(|why| format!("Failed to read {uri} from {name}: {why}"))?;
        twinwire_protocol::from_value(read)
            .map(|decoded| decoded.value)
            .map_err(|err| format!("Failed to read {uri} from {name}: {err}"))
    }
}

fn find<'a>(servers: &'a mut [Server], name: &str) -> Result<&'a mut Server, String> {
    servers
        .iter_mut()
        .find(|s| s.name == name)
        .ok_or_else(|| format!("Server not found: {name}"))
}

/// What the session sees of the servers: their status, their tools, and which tools are
/// always loaded.
fn published(servers: &[Server]) -> Published {
    let mut tools: Vec<Arc<dyn Tool>> = servers.iter().flat_map(Server::tools).collect();
    // The resource tools, over the external servers, when there are any.
    let external: Vec<_> = servers
        .iter()
        .filter(|s| s.origin != Origin::Sdk)
        .map(|s| (s.name.clone(), s.connection.as_ref().map(|c| c.peer())))
        .collect();
    if !external.is_empty() {
        tools.extend(crate::tools::mcp_resources::tools(Arc::new(external)));
    }
    Published {
        status: servers.iter().map(Server::status).collect(),
        tools,
        always_loaded: servers.iter().flat_map(Server::always_loaded).collect(),
    }
}
