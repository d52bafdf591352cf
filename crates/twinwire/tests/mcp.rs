//! The public API of in-process MCP servers: building servers and tools, tool schemas and
//! results. (Routing `mcp_message` requests is tested inside the crate.)

use serde_json::{json, Value};
use twinwire::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResponse, ServerCapabilities, ServerConfig, ToolAnnotations,
};
use twinwire::mcp::rmcp::service::RequestContext;
use twinwire::mcp::rmcp::{ErrorData, RoleServer, ServerHandler};
use twinwire::mcp::{SdkMcpServer, SdkTool, ToolError, ToolOutput};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct AddArgs {
    /// The first number.
    a: f64,
    b: f64,
}

/// Uses the re-exported `schemars`, as a host without its own dependency would.
#[derive(serde::Deserialize, twinwire::mcp::schemars::JsonSchema)]
#[schemars(crate = "twinwire::mcp::schemars")]
struct Empty {}

fn add() -> SdkTool {
    SdkTool::new::<AddArgs, _, _>("add", "Add two numbers", |args: AddArgs| async move {
        Ok(ToolOutput::text((args.a + args.b).to_string()))
    })
}

fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("serializes")
}

#[test]
fn a_builder_server_has_its_name_and_is_cheap_to_clone() {
    let server = SdkMcpServer::builder("calc")
        .version("1.0.0")
        .instructions("Use add to add.")
        .tool(add())
        .tools([SdkTool::new("noop", "Does nothing", |_: Empty| async {
            Ok(ToolOutput::text(""))
        })])
        .build();
    let clone = server.clone();
    assert_eq!(server.name(), "calc");
    assert_eq!(clone.name(), "calc");
    assert!(format!("{server:?}").contains("calc"));
}

#[test]
fn a_tool_schema_comes_from_schemars() {
    let tool = add();
    assert_eq!(tool.name(), "add");
    let definition = to_json(tool.definition());
    assert_eq!(definition["name"], "add");
    assert_eq!(definition["description"], "Add two numbers");
    let schema = &definition["inputSchema"];
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"]["a"]["type"], "number");
    assert_eq!(
        schema["properties"]["a"]["description"],
        "The first number."
    );
    assert_eq!(schema["properties"]["b"]["type"], "number");
    assert_eq!(schema["required"], json!(["a", "b"]));
    assert!(schema.get("$schema").is_none(), "{schema}");

    let empty = SdkTool::new("noop", "Does nothing", |_: Empty| async {
        Ok(ToolOutput::text(""))
    });
    let schema = &to_json(empty.definition())["inputSchema"];
    assert_eq!(*schema, json!({"type": "object", "properties": {}}));
}

#[test]
fn a_tool_takes_a_title_annotations_or_a_raw_schema() {
    let tool = add()
        .title("Add")
        .annotations(ToolAnnotations::new().read_only(true));
    let definition = to_json(tool.definition());
    assert_eq!(definition["title"], "Add");
    assert_eq!(definition["annotations"]["readOnlyHint"], true);

    let schema = json!({"type": "object", "properties": {"q": {"type": "string"}}});
    let Value::Object(schema) = schema else {
        unreachable!()
    };
    let raw = SdkTool::raw("search", "Searches", schema.clone(), |args, _| async move {
        let query = args
            .get("q")
            .and_then(Value::as_str)
            .ok_or("q is required")?;
        Ok::<_, ToolError>(ToolOutput::text(query))
    });
    assert_eq!(
        to_json(raw.definition())["inputSchema"],
        Value::Object(schema)
    );
}

#[test]
fn tool_outputs_have_the_mcp_result_shapes() {
    let text = to_json(&ToolOutput::text("5").into_result());
    assert_eq!(text["content"], json!([{"type": "text", "text": "5"}]));
    assert!(text.get("isError").is_none(), "{text}");

    let error = ToolOutput::error("no such city");
    assert!(error.is_error());
    let error = to_json(&error.into_result());
    assert_eq!(error["isError"], true);
    assert_eq!(
        error["content"],
        json!([{"type": "text", "text": "no such city"}])
    );

    let structured = ToolOutput::json(&json!({"sum": 5}));
    assert!(!structured.is_error());
    let structured = to_json(&structured.into_result());
    assert_eq!(structured["structuredContent"], json!({"sum": 5}));
    assert_eq!(structured["content"][0]["text"], r#"{"sum":5}"#);
}

/// A minimal hand-written `rmcp` server.
#[derive(Clone)]
struct Custom;

impl ServerHandler for Custom {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(ToolOutput::text("custom").into_result().into())
    }
}

#[test]
fn any_rmcp_server_handler_is_an_sdk_server() {
    let server = SdkMcpServer::from_handler("custom", Custom);
    assert_eq!(server.name(), "custom");
    assert_eq!(server.clone().name(), "custom");
}
