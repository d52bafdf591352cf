//! `mcp_call`: the host calls one of the session's MCP tools itself, without the model (no
//! model request, no turn). The call goes to the server as the model's would; its content
//! blocks come back as the server gave them. A tool's error is the request's error, or with
//! `soft_error_result` a success that says `isError`. What this agent does not carry out
//! (permission checks on the call, staged calls with deadlines and files) is refused, never
//! ignored.

use std::sync::Arc;

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use twinwire::agent::frames::new_id;
use twinwire::agent::Peer;
use twinwire::engine::HandlerError;
use twinwire_protocol::content::ToolResultContent;
use twinwire_protocol::control::{McpCallRequest, McpCallResponse};

use crate::session::Session;
use crate::tools::ToolContext;

/// Calls the tool `request` names.
pub(crate) async fn call(
    session: &Session,
    peer: &Peer,
    cancel: CancellationToken,
    request: McpCallRequest,
) -> Result<McpCallResponse, HandlerError> {
    let staged = request.expires_at.is_some()
        || request.timeout_ms.is_some()
        || request.input_files.is_some()
        || request.output_files.is_some();
    if staged || request.check_permissions == Some(true) {
        return Err(HandlerError::new(
            "mcp_call: staged calls and check_permissions are not supported",
        ));
    }
    let tool = request
        .tool
        .starts_with("mcp__")
        .then(|| session.state().tools.get(&request.tool))
        .flatten()
        .ok_or_else(|| HandlerError::new(format!("MCP tool not found: {}", request.tool)))?;
    let input = Value::Object(request.arguments.unwrap_or_default());
    let cx = ToolContext {
        workspace: Arc::clone(&session.workspace),
        cancel,
        peer: Some(peer.clone()),
        tool_use_id: format!("toolu_{}", new_id().replace('-', "")),
        session_id: session.id(),
        model: None,
    };
    let output = tool.call(input, cx).await;
    let content = match &output.content {
        ToolResultContent::Text(text) => vec![json!({"type": "text", "text": text})],
        ToolResultContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|block| serde_json::to_value(block).ok())
            .collect(),
    };
    if output.is_error && request.soft_error_result != Some(true) {
        let text: Vec<&str> = content.iter().filter_map(|b| b["text"].as_str()).collect();
        return Err(HandlerError::new(text.join("\n")));
    }
    Ok(McpCallResponse {
        content: Some(content),
        is_error: output.is_error.then_some(true),
        ..McpCallResponse::default()
    })
}
