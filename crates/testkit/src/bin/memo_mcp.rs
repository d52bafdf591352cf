//! `memo-mcp`: a small MCP server on stdio, for the scenarios that need a server the CLI
//! starts itself (reconnect, enable/disable, dynamic servers, resources).
//!
//! It offers one tool, `note` (answers `memo: <text>` plus the server's label), and one
//! resource, `memo://note`, whose text is `$MEMO_TEXT` (default `a memo`). `$MEMO_LABEL` names
//! the server in answers, so a scenario can tell two instances apart.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::json;

/// The resource this server offers.
/// The resource this server offers. Claude Code 2.1.330 reads only `ui://` resources (MCP
/// Apps) over the control channel.
const NOTE_URI: &str = "ui://memo/note";

struct Memo {
    label: String,
    text: String,
}

impl ServerHandler for Memo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("memo", "1.0.0"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = json!({
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"]
        });
        let serde_json::Value::Object(schema) = schema else {
            unreachable!("an object literal")
        };
        Ok(ListToolsResult::with_all_items(vec![Tool::new(
            "note",
            "Echoes a note",
            Arc::new(schema),
        )]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let text = request
            .arguments
            .as_ref()
            .and_then(|args| args.get("text"))
            .and_then(|text| text.as_str())
            .unwrap_or_default();
        let answer = format!("memo({}): {text}", self.label);
        Ok(CallToolResponse::Complete(CallToolResult::success(vec![
            ContentBlock::text(answer),
        ])))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resource = Resource::new(NOTE_URI, "note").with_description("The memo's note");
        Ok(ListResourcesResult::with_all_items(vec![resource]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != NOTE_URI {
            return Err(ErrorData::resource_not_found(
                format!("no resource {}", request.uri),
                None,
            ));
        }
        let contents = ResourceContents::text(self.text.clone(), NOTE_URI);
        Ok(ReadResourceResponse::Complete(ReadResourceResult::new(
            vec![contents],
        )))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let memo = Memo {
        label: std::env::var("MEMO_LABEL").unwrap_or_else(|_| "memo".to_owned()),
        text: std::env::var("MEMO_TEXT").unwrap_or_else(|_| "a memo".to_owned()),
    };
    let running = memo.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}
