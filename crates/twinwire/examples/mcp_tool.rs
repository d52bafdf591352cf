//! An in-process MCP tool: Claude calls Rust code directly, no server process.
//!
//! With an API key: `cargo run -p twinwire --example mcp_tool`
//!
//! Offline (a scripted model, a private HOME and scratch directory):
//! `cargo run -p twinwire --example offline -- mcp_tool`. The script
//! (`examples/scripts/mcp_tool.json`) calls `mcp__calc__add`, and its answer depends on the
//! sum the tool returned.
#![allow(clippy::print_stdout, clippy::print_stderr)] // An example prints its results.

use futures::StreamExt;
use twinwire::mcp::{SdkMcpServer, SdkTool, ToolOutput};
use twinwire::protocol::Message;
use twinwire::{query, Options};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    /// The first number.
    a: f64,
    /// The second number.
    b: f64,
}

#[tokio::main]
async fn main() -> twinwire::Result<()> {
    let calc = SdkMcpServer::builder("calc")
        .version("1.0.0")
        .tool(SdkTool::new(
            "add",
            "Adds two numbers",
            |args: Add| async move {
                let sum = args.a + args.b;
                println!("calc.add({}, {}) = {sum}", args.a, args.b);
                Ok(ToolOutput::text(format!("{sum}")))
            },
        ))
        .build();
    let options = Options::builder()
        .sdk_mcp_server(calc)
        .allowed_tool("mcp__calc__add")
        .build()?;
    let mut messages = query("What is 1234.5 + 4321? Use the calc tool.", options);
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            println!("{}", result.text().unwrap_or_default());
        }
    }
    Ok(())
}
