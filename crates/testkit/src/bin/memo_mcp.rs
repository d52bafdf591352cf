//! `memo-mcp`: a small MCP server on stdio, for the scenarios that need a server the CLI
//! starts itself (reconnect, enable/disable, dynamic servers, resources).
//!
//! It offers two tools, `note` (answers `memo: <text>` plus the server's label) and `ask`
//! (asks the user through an MCP elicitation for a `name`, and answers with what came back),
//! and two resources: `ui://memo/note`, whose text is `$MEMO_TEXT` (default `a memo`), and
//! `memo://readme`, a plain resource (Claude Code's resource tools list and read only those).
//! `$MEMO_LABEL` names the server in answers, so a scenario can tell two instances apart.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequest,
    ElicitRequestParams, ElicitationSchema, Implementation, InputRequest, InputRequests,
    InputRequiredResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::json;

/// The resource this server offers.
/// The resource this server offers. Claude Code 2.1.330 reads only `ui://` resources (MCP
/// Apps) over the control channel.
const NOTE_URI: &str = "ui://memo/note";

/// A plain resource, for the tools that list and read resources.
const README_URI: &str = "memo://readme";

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
        let ask_schema = json!({"type": "object", "properties": {}});
        let serde_json::Value::Object(ask_schema) = ask_schema else {
            unreachable!("an object literal")
        };
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new("note", "Echoes a note", Arc::new(schema)),
            Tool::new("ask", "Asks the user for a name", Arc::new(ask_schema)),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name == "ask" {
            return Ok(ask(&request, &context).await);
        }
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
        let readme = Resource::new(README_URI, "readme")
            .with_description("How to use the memo")
            .with_mime_type("text/plain");
        Ok(ListResourcesResult::with_all_items(vec![resource, readme]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri == README_URI {
            let contents = ResourceContents::text("Write a note with the note tool.", README_URI);
            return Ok(ReadResourceResponse::Complete(ReadResourceResult::new(
                vec![contents],
            )));
        }
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

/// Asks the client for a name with a form elicitation, and answers `asked: accept
/// {"name":…}`, `asked: decline`, … or `asked: failed: <why>`. On protocol 2026-07-28 and later
/// (stateless: a server may not call the client) the question goes back in the tool's answer
/// (`input_required`) and the client calls again with the answer; before, it is a request to the
/// client in the middle of the call.
async fn ask(
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> CallToolResponse {
    let done = |text: String| {
        CallToolResponse::Complete(CallToolResult::success(vec![ContentBlock::text(text)]))
    };
    if let Some(answer) = request.input_responses.as_ref().and_then(|r| r.get("name")) {
        return done(said(answer));
    }
    let schema = match ElicitationSchema::builder().required_string("name").build() {
        Ok(schema) => schema,
        Err(err) => return done(format!("asked: failed: {err}")),
    };
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: "What is your name?".to_owned(),
        requested_schema: schema,
    };
    let stateless = context
        .protocol_version()
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28);
    if stateless {
        let question = InputRequest::Elicitation(ElicitRequest::new(params));
        let questions = InputRequests::from([("name".to_owned(), question)]);
        return CallToolResponse::InputRequired(InputRequiredResult::from_input_requests(
            questions,
        ));
    }
    match context.peer.create_elicitation(params).await {
        Ok(result) => done(said(&serde_json::to_value(&result).unwrap_or_default())),
        Err(err) => done(format!("asked: failed: {err}")),
    }
}

/// `asked: <action> <content>` of an elicitation's result.
fn said(answer: &serde_json::Value) -> String {
    let action = answer["action"].as_str().unwrap_or("?");
    match answer.get("content") {
        Some(content) if !content.is_null() => format!("asked: {action} {content}"),
        _ => format!("asked: {action}"),
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
