//! The tools of the host's in-process (SDK) MCP servers, named `mcp__<server>__<tool>` and
//! called with `tools/call` through the `mcp_message` control request.

use futures::future::BoxFuture;
use serde_json::{json, Value};

use super::{Tool, ToolContext, ToolOutput};

/// One tool of an SDK MCP server.
pub struct SdkMcpTool {
    server: String,
    tool: String,
    name: String,
    description: String,
    schema: Value,
}

impl SdkMcpTool {
    /// The tools of a `tools/list` result.
    pub fn from_list(server: &str, list: &Value) -> Vec<Self> {
        list["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|tool| {
                let name = tool["name"].as_str()?;
                Some(Self {
                    server: server.to_owned(),
                    tool: name.to_owned(),
                    name: format!("mcp__{server}__{name}"),
                    description: tool["description"].as_str().unwrap_or_default().to_owned(),
                    schema: match &tool["inputSchema"] {
                        schema @ Value::Object(_) => schema.clone(),
                        _ => json!({"type": "object"}),
                    },
                })
            })
            .collect()
    }
}

impl Tool for SdkMcpTool {
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
        let (server, tool) = (self.server.clone(), self.tool.clone());
        Box::pin(async move {
            let Some(peer) = cx.peer else {
                return ToolOutput::error("no host to reach the MCP server through");
            };
            let message = json!({"jsonrpc": "2.0", "id": uuid::Uuid::new_v4().to_string(),
                                 "method": "tools/call",
                                 "params": {"name": tool, "arguments": input,
                                            "_meta": {"claudecode/toolUseId": cx.tool_use_id,
                                                      "progressToken": cx.tool_use_id}}});
            let answer = tokio::select! {
                answer = peer.mcp_message(&server, message) => answer,
                () = cx.cancel.cancelled() => return ToolOutput::error("interrupted"),
            };
            match answer {
                Ok(answer) => from_call_result(&answer),
                Err(err) => ToolOutput::error(format!("MCP server {server}: {err}")),
            }
        })
    }
}

/// A JSON-RPC answer to `tools/call` as a tool result.
pub fn from_call_result(answer: &Value) -> ToolOutput {
    if let Some(error) = answer.get("error") {
        return ToolOutput::error(format!(
            "MCP error: {}",
            error["message"].as_str().unwrap_or("")
        ));
    }
    let result = &answer["result"];
    content_output(result)
}

/// An MCP `CallToolResult` as a tool result: its text (other content as JSON).
pub fn content_output(result: &Value) -> ToolOutput {
    let text: Vec<String> = result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|item| match item["text"].as_str() {
            Some(text) if item["type"] == "text" => text.to_owned(),
            _ => item.to_string(),
        })
        .collect();
    ToolOutput {
        follow_up: Vec::new(),
        notes: Vec::new(),
        content: text.join("\n").into(),
        is_error: result["isError"] == Value::Bool(true),
        result: result.get("content").cloned(),
    }
}
