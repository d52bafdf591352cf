//! A permission callback on typed tool inputs: allow reads, rewrite risky shell commands, deny
//! the rest.
//!
//! `cargo run -p ccwire --example permissions`
#![allow(clippy::print_stdout, clippy::print_stderr)] // An example prints its results.

use ccwire::host::callbacks::{can_use_tool, PermissionRequest};
use ccwire::protocol::permission::PermissionResult;
use ccwire::protocol::tools::ToolInput;
use ccwire::protocol::Message;
use ccwire::{query, Options};
use futures::StreamExt;
use serde_json::json;

#[tokio::main]
async fn main() -> ccwire::Result<()> {
    let policy = can_use_tool(|request: PermissionRequest| async move {
        let verdict = match request.tool_input() {
            ToolInput::Read(_) | ToolInput::Glob(_) | ToolInput::Grep(_) => {
                PermissionResult::allow(request.input().clone())
            }
            ToolInput::Bash(bash) if bash.command.starts_with("rm ") => {
                // Run something harmless instead.
                let command = bash.command;
                PermissionResult::allow(json!({"command": format!("echo would run: {command}")}))
            }
            ToolInput::Bash(_) => PermissionResult::allow(request.input().clone()),
            other => {
                PermissionResult::deny(format!("{} is not allowed in this example", other.name()))
            }
        };
        Ok(verdict)
    });
    let options = Options::builder().can_use_tool(policy).build()?;
    let mut messages = query(
        "Create notes.txt with today's date, then list the files",
        options,
    );
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            println!("{}", result.text().unwrap_or_default());
            for denial in &result.permission_denials {
                println!("denied: {}", denial.tool_name);
            }
        }
    }
    Ok(())
}
