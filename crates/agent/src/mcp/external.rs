//! External MCP servers, spoken to with rmcp's client (the official Rust MCP SDK): `stdio`
//! (a child process: `command`, `args`, `env`), `http` (streamable HTTP, rmcp's reqwest
//! transport) and `sse` (the older HTTP with server-sent events, [`super::legacy_sse`]), with
//! `headers` for the two remote ones. A connection knows the server's name and version, its
//! tools (with their annotations and `_meta`) and reads its resources; a server's questions
//! (elicitations) go to the host as `elicitation` requests, and the host's answer back to the
//! server. A child process ends with its connection (rmcp's child process transport kills it
//! when dropped).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, ErrorData, Implementation, ReadResourceRequestParams,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{json, Map, Value};
use twinwire::agent::Peer;
use twinwire_protocol::control::ElicitationRequest;
use twinwire_protocol::mcp::{McpServerInfo, McpServerTool};

use crate::tools::sdk_mcp::content_output;
use crate::tools::{Tool, ToolContext, ToolOutput};

/// How long a server may take to start and list its tools.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long one call may take unless the server's `timeout` says (`MCP_TOOL_TIMEOUT`, in ms,
/// as for Claude Code).
const CALL_TIMEOUT: Duration = Duration::from_secs(600);

type Client = RunningService<RoleClient, Asker>;

/// One live connection to an external server.
pub(crate) struct Connection {
    client: Client,
    /// What the server says it is.
    pub(crate) info: Option<McpServerInfo>,
    /// Its tools, as `tools/list` gave them (JSON, for status reports and definitions).
    pub(crate) listed: Vec<Value>,
}

impl Connection {
    /// Its tools for the model, named `mcp__<server>__<tool>`.
    pub(crate) fn tools(self: &Arc<Self>, server: &str) -> Vec<Arc<dyn Tool>> {
        self.listed
            .iter()
            .filter_map(|tool| {
                let name = tool["name"].as_str()?;
                Some(Arc::new(ExternalTool {
                    connection: Arc::clone(self),
                    tool: name.to_owned(),
                    name: format!("mcp__{server}__{name}"),
                    description: tool["description"].as_str().unwrap_or_default().to_owned(),
                    schema: match &tool["inputSchema"] {
                        schema @ Value::Object(_) => schema.clone(),
                        _ => json!({"type": "object"}),
                    },
                }) as Arc<dyn Tool>)
            })
            .collect()
    }

    /// The names (`mcp__<server>__<tool>`) of its tools that ask to be always loaded
    /// (`_meta["anthropic/alwaysLoad"]`), which tool search then leaves in full view.
    pub(crate) fn always_loaded(&self, server: &str) -> Vec<String> {
        always_loaded(server, &self.listed)
    }

    /// Its tools as a status report lists them.
    pub(crate) fn status_tools(&self) -> Vec<McpServerTool> {
        self.listed.iter().map(status_tool).collect()
    }

    /// Reads one resource (`resources/read`): its contents, as JSON.
    pub(crate) async fn read_resource(&self, uri: &str) -> Result<Value, String> {
        let params = ReadResourceRequestParams::new(uri);
        let read = tokio::time::timeout(CALL_TIMEOUT, self.client.read_resource(params))
            .await
            .map_err(|_| format!("no answer within {} s", CALL_TIMEOUT.as_secs()))?
            .map_err(|err| err.to_string())?;
        serde_json::to_value(read).map_err(|err| err.to_string())
    }

    /// The client side of the connection, for the resource tools.
    pub(crate) fn peer(&self) -> crate::tools::mcp_resources::McpClient {
        self.client.peer().clone()
    }

    /// Ends the connection (a child process is stopped).
    pub(crate) async fn close(&self) {
        let token = self.client.cancellation_token();
        token.cancel();
    }
}

/// The names of the tools of a `tools/list` that ask to be always loaded.
pub(crate) fn always_loaded(server: &str, listed: &[Value]) -> Vec<String> {
    listed
        .iter()
        .filter(|tool| tool["_meta"]["anthropic/alwaysLoad"] == Value::Bool(true))
        .filter_map(|tool| tool["name"].as_str())
        .map(|name| format!("mcp__{server}__{name}"))
        .collect()
}

/// A tool as a status report lists it: name, description, annotations (the MCP hints with
/// their `Hint` suffix dropped, as Claude Code reports them), `_meta`.
pub(crate) fn status_tool(tool: &Value) -> McpServerTool {
    let hints = &tool["annotations"];
    let mut annotations = Map::new();
    for (hint, name) in [
        ("readOnlyHint", "readOnly"),
        ("destructiveHint", "destructive"),
        ("openWorldHint", "openWorld"),
    ] {
        if let Some(value) = hints.get(hint).and_then(Value::as_bool) {
            annotations.insert(name.to_owned(), Value::Bool(value));
        }
    }
    McpServerTool {
        name: tool["name"].as_str().unwrap_or_default().to_owned(),
        annotations: serde_json::from_value(Value::Object(annotations)).ok(),
        meta: tool["_meta"].as_object().cloned(),
        ..McpServerTool::default()
    }
}

/// Connects to the server `name` of `config` (started in `cwd` with `env` when it is a
/// process); questions it asks go to the host through `peer`.
pub(crate) async fn connect(
    name: &str,
    config: &Value,
    cwd: &Path,
    env: &BTreeMap<String, String>,
    peer: Option<Peer>,
) -> Result<Connection, String> {
    let asker = Asker {
        server: name.to_owned(),
        peer,
    };
    let kind = config["type"].as_str().unwrap_or("stdio");
    let connecting = async {
        match kind {
            "stdio" => asker
                .serve(child_process(config, cwd, env)?)
                .await
                .map_err(|err| format!("handshake failed: {err}")),
            "http" => {
                use_ring_for_tls();
                let transport = StreamableHttpClientTransport::from_config(http_config(config)?);
                asker
                    .serve(transport)
                    .await
                    .map_err(|err| format!("handshake failed: {err}"))
            }
            "sse" => {
                let transport = super::legacy_sse::SseTransport::connect(config).await?;
                asker
                    .serve(transport)
                    .await
                    .map_err(|err| format!("handshake failed: {err}"))
            }
            other => Err(format!("{other} servers are not supported")),
        }
    };
    let client = tokio::time::timeout(CONNECT_TIMEOUT, connecting)
        .await
        .map_err(|_| format!("no answer within {} s", CONNECT_TIMEOUT.as_secs()))??;
    let info = client
        .peer_info()
        .and_then(|info| serde_json::to_value(&*info).ok())
        .and_then(|info| serde_json::from_value(info["serverInfo"].clone()).ok());
    let listed = tokio::time::timeout(CONNECT_TIMEOUT, client.list_all_tools())
        .await
        .map_err(|_| {
            format!(
                "tools/list: no answer within {} s",
                CONNECT_TIMEOUT.as_secs()
            )
        })?
        .map_err(|err| format!("tools/list failed: {err}"))?
        .into_iter()
        .filter_map(|tool| serde_json::to_value(tool).ok())
        .collect();
    Ok(Connection {
        client,
        info,
        listed,
    })
}

/// The child process of a `stdio` server.
fn child_process(
    config: &Value,
    cwd: &Path,
    env: &BTreeMap<String, String>,
) -> Result<TokioChildProcess, String> {
    let program = config["command"]
        .as_str()
        .ok_or_else(|| "no `command`".to_owned())?;
    let mut command = tokio::process::Command::new(program);
    command
        .args(
            config["args"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str),
        )
        .current_dir(cwd)
        .env_clear()
        // A server's own `env` below may name a credential on purpose; the session's do not
        // pass on.
        .envs(crate::child_env::scrubbed(env));
    for (key, value) in config["env"].as_object().into_iter().flatten() {
        if let Some(value) = value.as_str() {
            command.env(key, value);
        }
    }
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .map_err(|err| format!("cannot start {program}: {err}"))?;
    Ok(transport)
}

/// rmcp's HTTP transport builds its client on reqwest 0.13 with no TLS provider of its own
/// (its default, aws-lc, needs a C toolchain for every target); ring, which the rest of the
/// agent uses, is made the process's provider before that client is built. A provider already
/// installed by the embedding program is kept.
fn use_ring_for_tls() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

/// The streamable HTTP transport's configuration: the URL and the headers given.
fn http_config(
    config: &Value,
) -> Result<rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig, String> {
    let url = config["url"]
        .as_str()
        .ok_or_else(|| "no `url`".to_owned())?;
    let mut headers = std::collections::HashMap::new();
    for (name, value) in config["headers"].as_object().into_iter().flatten() {
        let name = http::HeaderName::from_bytes(name.as_bytes())
            .map_err(|err| format!("header {name}: {err}"))?;
        let value = http::HeaderValue::from_str(value.as_str().unwrap_or_default())
            .map_err(|err| format!("header {name}: {err}"))?;
        headers.insert(name, value);
    }
    Ok(
        rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(url)
            .custom_headers(headers),
    )
}

/// The client side of a connection: says it can elicit, and forwards a server's questions to
/// the host (or declines them when there is no host to ask).
struct Asker {
    server: String,
    peer: Option<Peer>,
}

impl ClientHandler for Asker {
    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities =
            serde_json::from_value(json!({"elicitation": {"form": {}, "url": {}}}))
                .unwrap_or_default();
        ClientConfig::new(
            capabilities,
            Implementation::new("twinwire-agent", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let Some(peer) = &self.peer else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        let asked = match &request {
            ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } => ElicitationRequest {
                mcp_server_name: self.server.clone(),
                message: message.clone(),
                mode: Some(twinwire_protocol::hooks::ElicitationMode::Form),
                requested_schema: serde_json::to_value(requested_schema).ok(),
                ..ElicitationRequest::default()
            },
            ElicitRequestParams::UrlElicitationParams {
                message,
                url,
                elicitation_id,
                ..
            } => ElicitationRequest {
                mcp_server_name: self.server.clone(),
                message: message.clone(),
                mode: Some(twinwire_protocol::hooks::ElicitationMode::Url),
                url: Some(url.clone()),
                elicitation_id: Some(elicitation_id.clone()).filter(|id| !id.is_empty()),
                ..ElicitationRequest::default()
            },
            _ => return Ok(ElicitResult::new(ElicitationAction::Decline)),
        };
        match peer.elicit(asked).await {
            Ok(answer) => {
                let action = match answer.action.as_str() {
                    "accept" => ElicitationAction::Accept,
                    "cancel" => ElicitationAction::Cancel,
                    _ => ElicitationAction::Decline,
                };
                let mut result = ElicitResult::new(action);
                if let Some(content) = answer.content {
                    result = result.with_content(Value::Object(content));
                }
                Ok(result)
            }
            Err(err) => {
                tracing::warn!(server = %self.server, %err, "the host did not answer an elicitation");
                Ok(ElicitResult::new(ElicitationAction::Cancel))
            }
        }
    }
}

/// One tool of an external server.
struct ExternalTool {
    connection: Arc<Connection>,
    tool: String,
    name: String,
    description: String,
    schema: Value,
}

impl Tool for ExternalTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> String {
        self.description.clone()
    }

    fn input_schema(&self) -> Value {
        self.schema.clone()
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        let connection = Arc::clone(&self.connection);
        let tool = self.tool.clone();
        Box::pin(async move {
            let mut params = CallToolRequestParams::new(tool);
            if let Value::Object(arguments) = input {
                params = params.with_arguments(arguments);
            }
            let called = tokio::select! {
                called = tokio::time::timeout(CALL_TIMEOUT, connection.client.call_tool(params)) => called,
                () = cx.cancel.cancelled() => return ToolOutput::error("interrupted"),
            };
            match called {
                Ok(Ok(result)) => {
                    content_output(&serde_json::to_value(result).unwrap_or(Value::Null))
                }
                Ok(Err(err)) => ToolOutput::error(format!("MCP error: {err}")),
                Err(_) => ToolOutput::error(format!(
                    "MCP error: no answer within {} s",
                    CALL_TIMEOUT.as_secs()
                )),
            }
        })
    }
}
