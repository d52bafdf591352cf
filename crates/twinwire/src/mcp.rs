//! In-process MCP servers ("SDK MCP servers") that Claude Code reaches over the control
//! channel.
//!
//! The host names its servers in `initialize` (`sdkMcpServers: [name]`); the CLI then sends
//! every JSON-RPC message for such a server as a control request
//! `{"subtype":"mcp_message","server_name":S,"message":…}` and expects the JSON-RPC reply
//! back as `{"mcp_response":…}`. The tools appear to the model as `mcp__S__tool`.
//!
//! A server is either any [`rmcp`] [`ServerHandler`](rmcp::ServerHandler), wrapped with
//! [`SdkMcpServer::from_handler`], or a list of typed tools, mirroring the TypeScript SDK's
//! `createSdkMcpServer`:
//!
//! ```no_run
//! use twinwire::mcp::{SdkMcpServer, SdkTool, ToolOutput};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct AddArgs {
//!     a: f64,
//!     b: f64,
//! }
//!
//! let calc = SdkMcpServer::builder("calc")
//!     .version("1.0.0")
//!     .tool(SdkTool::new::<AddArgs, _, _>(
//!         "add",
//!         "Add two numbers",
//!         |args: AddArgs| async move { Ok(ToolOutput::text((args.a + args.b).to_string())) },
//!     ))
//!     .build();
//! assert_eq!(calc.name(), "calc");
//! ```
//!
//! Each server runs in-process behind a pair of in-memory message channels (rmcp's sink and
//! stream transport), connected on its first message; a panic inside a server is caught and
//! answered, never fatal.

mod manifests;
mod router;
mod service;
mod tools;

#[cfg(test)]
mod tests;

use std::fmt;
use std::sync::Arc;

use futures::channel::mpsc;
use futures::future::BoxFuture;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};

pub(crate) use router::McpRouter;
pub use tools::{SdkMcpServerBuilder, SdkTool, ToolCallContext, ToolError, ToolOutput};

/// The `rmcp` crate this module is built on, re-exported so that a custom
/// [`ServerHandler`](rmcp::ServerHandler) uses the same version.
pub use rmcp;
/// The `schemars` crate used for tool input schemas, re-exported for convenience
/// (`#[schemars(crate = "twinwire::mcp::schemars")]`).
pub use schemars;

/// The server's end of an in-memory connection: the client's messages in, its own out.
pub(crate) struct ServerEnd {
    pub(crate) incoming: mpsc::UnboundedReceiver<ClientJsonRpcMessage>,
    pub(crate) outgoing: mpsc::UnboundedSender<ServerJsonRpcMessage>,
}

/// Starts one connection of a server on its end of an in-memory connection; the future ends
/// when the connection does.
type StartFn = dyn Fn(ServerEnd) -> BoxFuture<'static, ()> + Send + Sync;

/// An in-process MCP server the CLI reaches over the control channel.
///
/// Cheap to clone: clones share the same server definition. Each connection (the CLI's
/// `initialize`, or a reconnect) gets a fresh clone of the handler.
#[derive(Clone)]
pub struct SdkMcpServer {
    name: Arc<str>,
    start: Arc<StartFn>,
    /// Its entry of `initialize.sdkMcpServerConfigs` (the per-call timeout).
    settings: twinwire_protocol::control::SdkMcpServerSettings,
    /// Its tools' names and input schemas, when it is made of [`SdkTool`]s (for the
    /// misconfiguration warnings; a handler's own tools are not known).
    pub(crate) schemas: Arc<Vec<(String, serde_json::Map<String, serde_json::Value>)>>,
}

impl SdkMcpServer {
    /// A server backed by any `rmcp` server handler.
    ///
    /// The handler is cloned for every connection. A panic inside it is caught and answered
    /// with a JSON-RPC internal error, so the session lives on.
    pub fn from_handler<H>(name: impl Into<String>, handler: H) -> Self
    where
        H: rmcp::ServerHandler + Clone,
    {
        let name: Arc<str> = Arc::from(name.into());
        let server_name = Arc::clone(&name);
        let start = move |end: ServerEnd| -> BoxFuture<'static, ()> {
            Box::pin(service::serve(
                Arc::clone(&server_name),
                handler.clone(),
                end,
            ))
        };
        Self {
            name,
            start: Arc::new(start),
            settings: Default::default(),
            schemas: Arc::default(),
        }
    }

    /// The wall-clock limit of one call of the server's tools, instead of the CLI's
    /// `MCP_TOOL_TIMEOUT` (whole milliseconds, sent in `initialize.sdkMcpServerConfigs`; the CLI
    /// ignores less than a second and applies it when the server is first registered).
    pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
        self.settings.timeout = Some(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX));
        self
    }

    /// What `initialize.sdkMcpServerConfigs` says of this server; empty when nothing is set.
    pub fn settings(&self) -> &twinwire_protocol::control::SdkMcpServerSettings {
        &self.settings
    }

    /// A builder for a server made of typed tools, like the TypeScript SDK's
    /// `createSdkMcpServer({name, version, tools})`.
    pub fn builder(name: impl Into<String>) -> SdkMcpServerBuilder {
        SdkMcpServerBuilder::new(name.into())
    }

    /// The name the CLI knows this server by (`sdkMcpServers`, `mcp__<name>__<tool>`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Starts one connection on the server's end of an in-memory connection.
    pub(crate) fn start(&self, end: ServerEnd) -> BoxFuture<'static, ()> {
        (self.start)(end)
    }
}

impl fmt::Debug for SdkMcpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SdkMcpServer")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}
