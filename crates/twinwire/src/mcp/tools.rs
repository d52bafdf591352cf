//! Servers made of typed tools: [`SdkMcpServerBuilder`], [`SdkTool`], [`ToolOutput`].

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::future::{BoxFuture, Either};
use futures::FutureExt;
use rmcp::handler::server::common::{schema_for_input, schema_for_type};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::SdkMcpServer;
use crate::engine::panic_message;

/// The error a tool handler returns; it reaches the model as a tool result with
/// `isError: true`. Any `std::error::Error` converts with `?`, and so does a string:
/// `Err("no such city".into())`.
pub type ToolError = Box<dyn std::error::Error + Send + Sync>;

/// What a tool returns: an MCP `CallToolResult`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput(CallToolResult);

impl ToolOutput {
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::content(vec![ContentBlock::text(text)])
    }

    /// A successful result carrying `value` as structured content, and as JSON text for
    /// clients that read only the text. A value that does not serialize becomes an error
    /// result saying so.
    pub fn json<T: Serialize + ?Sized>(value: &T) -> Self {
        match serde_json::to_value(value) {
            Ok(value) => Self(CallToolResult::structured(value)),
            Err(error) => Self::error(format!("the tool result did not serialize: {error}")),
        }
    }

    /// A tool-level error (`isError: true`) with one text block: the model sees the message.
    pub fn error(message: impl Into<String>) -> Self {
        Self(CallToolResult::error(vec![ContentBlock::text(message)]))
    }

    /// A successful result with the given content blocks (text, images, resources, …).
    pub fn content(content: Vec<ContentBlock>) -> Self {
        let mut result = CallToolResult::success(content);
        // The CLI treats an absent `isError` as success, as the TypeScript SDK sends it.
        result.is_error = None;
        Self(result)
    }

    /// Whether this is an error result.
    pub fn is_error(&self) -> bool {
        self.0.is_error == Some(true)
    }

    /// The MCP result.
    pub fn into_result(self) -> CallToolResult {
        self.0
    }
}

impl From<CallToolResult> for ToolOutput {
    fn from(result: CallToolResult) -> Self {
        Self(result)
    }
}

impl From<ToolOutput> for CallToolResult {
    fn from(output: ToolOutput) -> Self {
        output.0
    }
}

/// The `inputSchema` of a tool taking `A`: `schemars`' schema without `$schema`, with
/// `properties` even when empty (as the TypeScript SDK sends it).
fn input_schema<A: schemars::JsonSchema + 'static>(tool: &str) -> JsonObject {
    let schema = schema_for_input::<A>().unwrap_or_else(|error| {
        tracing::warn!(tool, %error, "tool input schema is not an object schema");
        schema_for_type::<A>()
    });
    let mut schema = Arc::unwrap_or_clone(schema);
    schema.remove("$schema");
    if schema.get("type").and_then(Value::as_str) == Some("object") {
        schema
            .entry("properties")
            .or_insert_with(|| Value::Object(JsonObject::new()));
    }
    schema
}

/// What a tool call carries besides its arguments.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ToolCallContext {
    /// The id of the model's `tool_use` block (`_meta["claudecode/toolUseId"]`), the same id
    /// the CLI's `can_use_tool` and hook requests carry.
    pub tool_use_id: Option<String>,
    /// The request's whole `_meta` (e.g. `progressToken`).
    pub meta: JsonObject,
}

impl ToolCallContext {
    fn from_meta(meta: JsonObject) -> Self {
        let tool_use_id = meta
            .get("claudecode/toolUseId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        Self { tool_use_id, meta }
    }
}

/// Calls a tool with its JSON arguments.
type CallFn = dyn Fn(JsonObject, ToolCallContext) -> BoxFuture<'static, ToolOutput> + Send + Sync;

/// One tool of an [`SdkMcpServerBuilder`] server, like the TypeScript SDK's
/// `tool(name, description, schema, handler)`.
#[derive(Clone)]
pub struct SdkTool {
    tool: Tool,
    call: Arc<CallFn>,
}

impl SdkTool {
    /// A tool whose arguments deserialize into `A`; `A`'s JSON schema (from `schemars`) is
    /// the tool's `inputSchema`. Arguments that do not deserialize, a handler error and a
    /// handler panic all reach the model as a result with `isError: true`.
    pub fn new<A, F, Fut>(name: &str, description: &str, handler: F) -> Self
    where
        A: DeserializeOwned + schemars::JsonSchema + 'static,
        F: Fn(A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        Self::with_context::<A, _, _>(name, description, move |args, _| handler(args))
    }

    /// Like [`SdkTool::new`], with a handler that also gets the call's
    /// [`ToolCallContext`] (the `tool_use` id, `_meta`).
    pub fn with_context<A, F, Fut>(name: &str, description: &str, handler: F) -> Self
    where
        A: DeserializeOwned + schemars::JsonSchema + 'static,
        F: Fn(A, ToolCallContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        let tool_name = name.to_owned();
        let call = move |arguments: JsonObject, context: ToolCallContext| {
            match serde_json::from_value::<A>(Value::Object(arguments)) {
                Ok(args) => Either::Left(handler(args, context)),
                Err(error) => Either::Right(std::future::ready(Err(ToolError::from(format!(
                    "invalid arguments for tool {tool_name}: {error}"
                ))))),
            }
        };
        Self::raw(name, description, input_schema::<A>(name), call)
    }

    /// A tool with a hand-written `inputSchema` (a JSON Schema object) whose handler takes
    /// the raw JSON arguments and the call's context. A handler error or panic reaches the
    /// model as a result with `isError: true`.
    pub fn raw<F, Fut>(name: &str, description: &str, input_schema: JsonObject, handler: F) -> Self
    where
        F: Fn(JsonObject, ToolCallContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        let call = move |arguments: JsonObject,
                         context: ToolCallContext|
              -> BoxFuture<'static, ToolOutput> {
            let future = handler(arguments, context);
            Box::pin(async move {
                match future.await {
                    Ok(output) => output,
                    Err(error) => ToolOutput::error(error.to_string()),
                }
            })
        };
        Self {
            tool: Tool::new(name.to_owned(), description.to_owned(), input_schema),
            call: Arc::new(call),
        }
    }

    /// Sets the tool's annotations (`readOnlyHint`, `destructiveHint`, …).
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.tool.annotations = Some(annotations);
        self
    }

    /// Sets the tool's human-readable title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.tool.title = Some(title.into());
        self
    }

    /// Always puts the tool in the model's prompt, never behind tool search
    /// (`_meta["anthropic/alwaysLoad"]`, the TypeScript SDK's `tool(…, {alwaysLoad})`).
    pub fn always_load(self, always: bool) -> Self {
        self.meta_entry(ALWAYS_LOAD, always.then_some(Value::Bool(true)))
    }

    /// Words that help tool search find the tool (`_meta["anthropic/searchHint"]`).
    pub fn search_hint(self, hint: impl Into<String>) -> Self {
        self.meta_entry(SEARCH_HINT, Some(Value::String(hint.into())))
    }

    /// The most characters of the tool's result the CLI keeps before it shortens it
    /// (`_meta["anthropic/maxResultSizeChars"]`, the Python SDK's `ToolAnnotations`).
    pub fn max_result_size_chars(self, chars: u64) -> Self {
        self.meta_entry(MAX_RESULT_SIZE_CHARS, Some(Value::from(chars)))
    }

    /// Sets (`Some`) or removes (`None`) one entry of the tool definition's `_meta`.
    fn meta_entry(mut self, key: &str, value: Option<Value>) -> Self {
        let mut meta = self.tool.meta.take().unwrap_or_default();
        match value {
            Some(value) => {
                meta.0.insert(key.to_owned(), value);
            }
            None => {
                meta.0.remove(key);
            }
        }
        self.tool.meta = (!meta.0.is_empty()).then_some(meta);
        self
    }

    /// The tool's name (without the `mcp__<server>__` prefix the CLI adds).
    pub fn name(&self) -> &str {
        &self.tool.name
    }

    /// The tool definition sent in `tools/list`.
    pub fn definition(&self) -> &Tool {
        &self.tool
    }
}

impl fmt::Debug for SdkTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SdkTool")
            .field("tool", &self.tool)
            .finish_non_exhaustive()
    }
}

/// The `_meta` keys Claude Code reads on a tool definition.
const ALWAYS_LOAD: &str = "anthropic/alwaysLoad";
const SEARCH_HINT: &str = "anthropic/searchHint";
const MAX_RESULT_SIZE_CHARS: &str = "anthropic/maxResultSizeChars";

/// Builds an [`SdkMcpServer`] from a list of tools; see [`SdkMcpServer::builder`].
#[derive(Debug, Clone)]
pub struct SdkMcpServerBuilder {
    name: String,
    version: String,
    instructions: Option<String>,
    tools: Vec<SdkTool>,
    always_load: bool,
    timeout: Option<std::time::Duration>,
}

impl SdkMcpServerBuilder {
    pub(super) fn new(name: String) -> Self {
        Self {
            name,
            version: "1.0.0".to_owned(),
            instructions: None,
            tools: Vec::new(),
            always_load: false,
            timeout: None,
        }
    }

    /// Always puts every tool of the server in the model's prompt, never behind tool search
    /// (each tool's `_meta["anthropic/alwaysLoad"]`; a tool's own [`SdkTool::always_load`]
    /// adds to it).
    pub fn always_load(mut self, always: bool) -> Self {
        self.always_load = always;
        self
    }

    /// The wall-clock limit of one call of the server's tools, instead of the CLI's
    /// `MCP_TOOL_TIMEOUT` (sent in `initialize.sdkMcpServerConfigs`; the CLI ignores less than
    /// a second). See [`SdkMcpServer::timeout`].
    pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The version reported in `serverInfo` (default `1.0.0`).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = version.into();
        self
    }

    /// Instructions for the model, sent in the `initialize` result.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Adds a tool. A later tool with the same name replaces the earlier one.
    pub fn tool(mut self, tool: SdkTool) -> Self {
        if let Some(index) = self.tools.iter().position(|t| t.name() == tool.name()) {
            tracing::warn!(server = %self.name, tool = tool.name(), "duplicate tool name");
            self.tools[index] = tool;
        } else {
            self.tools.push(tool);
        }
        self
    }

    /// Adds several tools.
    pub fn tools(self, tools: impl IntoIterator<Item = SdkTool>) -> Self {
        tools.into_iter().fold(self, Self::tool)
    }

    /// The server.
    pub fn build(mut self) -> SdkMcpServer {
        if self.always_load {
            self.tools = self
                .tools
                .into_iter()
                .map(|tool| tool.always_load(true))
                .collect();
        }
        let by_name = self
            .tools
            .iter()
            .enumerate()
            .map(|(index, tool)| (tool.name().to_owned(), index))
            .collect();
        let name = self.name.clone();
        let schemas: Vec<_> = self
            .tools
            .iter()
            .map(|tool| {
                let schema = (*tool.definition().input_schema).clone();
                (tool.name().to_owned(), schema)
            })
            .collect();
        let server = ToolServer(Arc::new(ToolServerInner {
            name: self.name,
            version: self.version,
            instructions: self.instructions,
            tools: self.tools,
            by_name,
        }));
        let mut built = SdkMcpServer::from_handler(name, server);
        built.schemas = Arc::new(schemas);
        match self.timeout {
            Some(timeout) => built.timeout(timeout),
            None => built,
        }
    }
}

/// The `rmcp` handler of a builder server.
#[derive(Clone)]
struct ToolServer(Arc<ToolServerInner>);

struct ToolServerInner {
    name: String,
    version: String,
    instructions: Option<String>,
    /// In the order they were added; `tools/list` keeps it.
    tools: Vec<SdkTool>,
    by_name: HashMap<String, usize>,
}

impl ToolServer {
    fn find(&self, name: &str) -> Option<&SdkTool> {
        let index = *self.0.by_name.get(name)?;
        self.0.tools.get(index)
    }
}

impl ServerHandler for ToolServer {
    fn get_info(&self) -> ServerConfig {
        let config = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(&self.0.name, &self.0.version));
        match &self.0.instructions {
            Some(instructions) => config.with_instructions(instructions),
            None => config,
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self.0.tools.iter().map(|t| t.tool.clone()).collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.find(name).map(|t| t.tool.clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = self.find(&request.name) else {
            return Err(ErrorData::invalid_params(
                format!("tool {} not found on server {}", request.name, self.0.name),
                None,
            ));
        };
        let call = Arc::clone(&tool.call);
        let arguments = request.arguments.unwrap_or_default();
        let meta = match serde_json::to_value(&context.meta) {
            Ok(Value::Object(meta)) => meta,
            _ => JsonObject::new(),
        };
        let call_context = ToolCallContext::from_meta(meta);
        // The handler runs inside the guarded future, so a panic while it builds its
        // future is caught as well as one while it runs.
        let outcome = AssertUnwindSafe(async move { call(arguments, call_context).await })
            .catch_unwind()
            .await;
        let output = outcome.unwrap_or_else(|panic| {
            let message = panic_message(panic.as_ref());
            tracing::error!(
                server = %self.0.name,
                tool = %request.name,
                panic = %message,
                "SDK MCP tool panicked"
            );
            ToolOutput::error(format!("tool {} panicked: {message}", request.name))
        });
        Ok(CallToolResponse::Complete(output.into_result()))
    }
}
