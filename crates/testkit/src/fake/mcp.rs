//! SDK MCP servers over the control channel: the handshake and `tools/call` as `mcp_message`.

use serde_json::{json, Map, Value};

use super::frames::VERSION;
use super::io::stderr_line;
use super::pending::Answer;
use super::steps::Runner;
use super::tools::{failed, is_success, new_tool_use_id, ToolCall, ToolOutcome, ToolRun};
use crate::script::McpCallStep;

impl Runner {
    /// The MCP handshake with `server`, each message at most once per process.
    pub(super) async fn mcp_initialize(&mut self, server: &str, notify: bool, list_tools: bool) {
        let (initialize, notification) = {
            let mut state = self.shared.state();
            let entry = state.mcp.entry(server.to_string()).or_default();
            let initialize = (!entry.initialized).then(|| {
                entry.initialized = true;
                entry.next_id += 1;
                entry.next_id - 1
            });
            let notification = notify && !entry.notified;
            entry.notified |= notify;
            (initialize, notification)
        };
        if let Some(id) = initialize {
            let message = json!({
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "claude-code", "title": "Claude Code",
                                   "version": VERSION}
                },
                "jsonrpc": "2.0",
                "id": id
            });
            self.mcp_report(server, message).await;
        }
        if notification {
            let message = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            self.mcp_report(server, message).await;
        }
        if list_tools {
            let id = self.next_mcp_id(server);
            self.mcp_report(
                server,
                json!({"method": "tools/list", "jsonrpc": "2.0", "id": id}),
            )
            .await;
        }
    }

    async fn mcp_report(&mut self, server: &str, message: Value) {
        if let Err(err) = self.mcp_message(server, message).await {
            stderr_line(&format!("fake-claude: MCP server {server}: {err}"));
        }
    }

    fn next_mcp_id(&self, server: &str) -> u64 {
        let mut state = self.shared.state();
        let entry = state.mcp.entry(server.to_string()).or_default();
        entry.next_id += 1;
        entry.next_id - 1
    }

    /// Send one JSON-RPC message to an SDK server; the `mcp_response` it got back.
    async fn mcp_message(&mut self, server: &str, message: Value) -> Result<Value, String> {
        let mut request = Map::new();
        request.insert("subtype".into(), json!("mcp_message"));
        request.insert("server_name".into(), json!(server));
        request.insert("message".into(), message);
        let pending = self.send_request(request).await;
        let timeout = self.shared.config.request_timeout;
        match self.await_answer(pending, timeout, false).await.1 {
            Answer::Response(response) if is_success(&response) => response
                .pointer("/response/mcp_response")
                .cloned()
                .ok_or_else(|| format!("answer without mcp_response: {response}")),
            Answer::Response(response) => Err(response
                .get("error")
                .and_then(Value::as_str)
                .unwrap_or("error response")
                .to_string()),
            Answer::TimedOut => Err("timed out".into()),
            Answer::Closed => Err("Stream closed".into()),
            Answer::Interrupted => Err("interrupted".into()),
        }
    }

    /// The `mcp_call` step: tool use `mcp__<server>__<tool>`, then `tools/call`.
    pub(super) async fn mcp_call(&mut self, step: &McpCallStep) {
        let name = format!("mcp__{}__{}", step.server, step.tool);
        let id = step.id.clone().unwrap_or_else(new_tool_use_id);
        let arguments = match &step.arguments {
            Value::Null => json!({}),
            other => other.clone(),
        };
        let call = ToolCall {
            name: name.clone(),
            input: arguments,
            id: id.clone(),
            ask: step.ask,
            suggestions: vec![json!({"type": "addRules", "rules": [{"toolName": name}],
                                     "behavior": "allow", "destination": "localSettings"})],
            mcp_server: Some(step.server.clone()),
        };
        self.tool_use(call, ToolRun::Mcp(step, id)).await;
    }

    /// Run an allowed SDK MCP tool: the handshake if not done yet, then `tools/call`.
    pub(super) async fn mcp_tool(
        &mut self,
        step: &McpCallStep,
        tool_use_id: &str,
        input: &Value,
    ) -> ToolOutcome {
        self.mcp_initialize(&step.server, true, false).await;
        let rpc_id = self.next_mcp_id(&step.server);
        let message = json!({
            "method": "tools/call",
            "params": {
                "name": step.tool,
                "arguments": input,
                "_meta": {"claudecode/toolUseId": tool_use_id, "progressToken": rpc_id}
            },
            "jsonrpc": "2.0",
            "id": rpc_id
        });
        match self.mcp_message(&step.server, message).await {
            Ok(response) => mcp_outcome(&response),
            Err(err) => failed(&format!("MCP error: {err}")),
        }
    }
}

/// The tool result of a JSON-RPC response to `tools/call`.
fn mcp_outcome(response: &Value) -> ToolOutcome {
    if let Some(error) = response.get("error") {
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .map_or_else(|| error.to_string(), str::to_string);
        return failed(&format!("MCP error: {message}"));
    }
    let result = response.get("result").cloned().unwrap_or(json!({}));
    let content = result.get("content").cloned().unwrap_or(json!([]));
    ToolOutcome {
        is_error: result.get("isError").and_then(Value::as_bool) == Some(true),
        tool_use_result: content.clone(),
        content,
    }
}
