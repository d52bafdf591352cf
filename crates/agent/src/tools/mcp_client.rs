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
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use twinwire::agent::Peer;

use super::sdk_mcp::content_output;
use super::{Tool, ToolContext, ToolOutput};
use crate::agent::Shared;

/// How long a server may take to start and list its tools.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

type Client = RunningService<RoleClient, ()>;

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

/// Connects every external server of the configuration and registers its tools.
pub(crate) async fn connect_all(shared: &Arc<Shared>, _session: &Peer) {
    let servers: Vec<(String, Value)> = shared
        .config
        .mcp_servers
        .iter()
        .filter(|(_, server)| server["type"] != "sdk")
        .map(|(name, server)| (name.clone(), server.clone()))
        .collect();
    for (name, server) in servers {
        let status =
            match tokio::time::timeout(CONNECT_TIMEOUT, connect(shared, &name, &server)).await {
                Ok(Ok(tools)) => {
                    let mut state = crate::agent::lock(&shared.state);
                    for tool in tools {
                        state.tools.add(Arc::new(tool));
                    }
                    json!({"name": name, "status": "connected"})
                }
                Ok(Err(why)) => json!({"name": name, "status": "failed", "error": why}),
                Err(_) => json!({"name": name, "status": "failed",
                             "error": format!("no answer within {} s", CONNECT_TIMEOUT.as_secs())}),
            };
        if status["status"] == "failed" {
            tracing::warn!(server = %name, %status, "an MCP server could not be used");
        }
        crate::agent::lock(&shared.state).mcp_status.push(status);
    }
}

async fn connect(shared: &Shared, name: &str, server: &Value) -> Result<Vec<ExternalTool>, String> {
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
        .current_dir(&shared.config.cwd)
        .env_clear()
        .envs(&shared.config.env);
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
    Ok(listed
        .into_iter()
        .map(|tool| ExternalTool {
            client: Arc::clone(&client),
            name: format!("mcp__{name}__{}", tool.name),
            tool: tool.name.to_string(),
            description: tool.description.as_deref().unwrap_or_default().to_owned(),
            schema: Value::Object((*tool.input_schema).clone()),
        })
        .collect())
}
