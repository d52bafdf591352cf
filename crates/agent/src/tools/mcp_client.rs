//! External MCP servers from `--mcp-config`: each `stdio` server (`command`, `args`, `env`)
//! is started and spoken to with rmcp's client (the official Rust MCP SDK); its tools become
//! `mcp__<server>__<tool>`. A server that cannot be started or does not answer its handshake
//! in time is reported in `mcp_status` and `system/init` as failed, with why; the session goes
//! on without it. Servers end with the session (rmcp's child process transport kills its
//! child when dropped). Servers of other types (`http`, `sse`) are reported as not supported.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;
use twinwire_protocol::mcp::{McpConnectionStatus, McpServerStatus};

use super::mcp_resources::McpClient;
use super::sdk_mcp::content_output;
use super::{Tool, ToolContext, ToolOutput};

/// How long a server may take to start and list its tools.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

type Client = McpClient;

/// One tool of an external server.
struct ExternalTool {
    client: Arc<Client>,
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
        let client = Arc::clone(&self.client);
        let tool = self.tool.clone();
        Box::pin(async move {
            let mut params = CallToolRequestParams::new(tool);
            if let Value::Object(arguments) = input {
                params = params.with_arguments(arguments);
            }
            let called = tokio::select! {
                called = client.call_tool(params) => called,
                () = cx.cancel.cancelled() => return ToolOutput::error("interrupted"),
            };
            match called {
                Ok(result) => content_output(&serde_json::to_value(result).unwrap_or(Value::Null)),
                Err(err) => ToolOutput::error(format!("MCP error: {err}")),
            }
        })
    }
}

/// One external server, as connecting to it went.
pub(crate) struct Connected {
    /// What `mcp_status` and `system/init` say of it.
    pub(crate) status: McpServerStatus,
    /// Its tools, when it connected.
    pub(crate) tools: Vec<Arc<dyn Tool>>,
    /// Its client, when it connected (for its resources).
    pub(crate) client: Option<Arc<Client>>,
}

/// The resource tools over the servers that were configured (none without servers).
pub(crate) fn resource_tools(connected: &[Connected]) -> Vec<Arc<dyn Tool>> {
    if connected.is_empty() {
        return Vec::new();
    }
    let servers = connected
        .iter()
        .map(|server| (server.status.name.clone(), server.client.clone()))
        .collect();
    super::mcp_resources::tools(Arc::new(servers))
}

/// Connects every external server of the configuration (started in `cwd` with `env`), and
/// says how each went.
pub(crate) async fn connect_all(
    servers: &BTreeMap<String, Value>,
    cwd: &Path,
    env: &BTreeMap<String, String>,
) -> Vec<Connected> {
    let mut connected = Vec::new();
    for (name, server) in servers.iter().filter(|(_, s)| s["type"] != "sdk") {
        let outcome = tokio::time::timeout(CONNECT_TIMEOUT, connect(name, server, cwd, env)).await;
        let mut status = McpServerStatus {
            name: name.clone(),
            ..McpServerStatus::default()
        };
        let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
        let mut client = None;
        match outcome {
            Ok(Ok((found_client, found))) => {
                status.status = McpConnectionStatus::Connected;
                tools.extend(found.into_iter().map(|t| Arc::new(t) as Arc<dyn Tool>));
                client = Some(found_client);
            }
            Ok(Err(why)) => {
                status.status = McpConnectionStatus::Failed;
                status.error = Some(why);
            }
            Err(_) => {
                status.status = McpConnectionStatus::Failed;
                status.error = Some(format!("no answer within {} s", CONNECT_TIMEOUT.as_secs()));
            }
        }
        if let Some(why) = &status.error {
            tracing::warn!(server = %name, %why, "an MCP server could not be used");
        }
        connected.push(Connected {
            status,
            tools,
            client,
        });
    }
    connected
}

async fn connect(
    name: &str,
    server: &Value,
    cwd: &Path,
    env: &BTreeMap<String, String>,
) -> Result<(Arc<Client>, Vec<ExternalTool>), String> {
    let kind = server["type"].as_str().unwrap_or("stdio");
    if kind != "stdio" {
        return Err(format!("{kind} servers are not supported (only stdio)"));
    }
    let program = server["command"]
        .as_str()
        .ok_or_else(|| "no `command`".to_owned())?;
    let mut command = tokio::process::Command::new(program);
    command
        .args(
            server["args"]
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
    for (key, value) in server["env"].as_object().into_iter().flatten() {
        if let Some(value) = value.as_str() {
            command.env(key, value);
        }
    }
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .map_err(|err| format!("cannot start {program}: {err}"))?;
    let client: Client =
        ().serve(transport)
            .await
            .map_err(|err| format!("handshake failed: {err}"))?;
    let listed = client
        .list_all_tools()
        .await
        .map_err(|err| format!("tools/list failed: {err}"))?;
    let client = Arc::new(client);
    let tools = listed
        .into_iter()
        .map(|tool| ExternalTool {
            client: Arc::clone(&client),
            name: format!("mcp__{name}__{}", tool.name),
            tool: tool.name.to_string(),
            description: tool.description.as_deref().unwrap_or_default().to_owned(),
            schema: Value::Object((*tool.input_schema).clone()),
        })
        .collect();
    Ok((client, tools))
}
