//! A permission callback on typed tool inputs: allow reads, rewrite risky shell commands, deny
//! the rest. Each question the CLI asks is printed with the answer.
//!
//! With an API key: `cargo run -p twinwire --example permissions`
//!
//! Offline (a scripted model, a private HOME and scratch directory):
//! `cargo run -p twinwire --example offline -- permissions`. The script
//! (`examples/scripts/permissions.json`) asks for `Write` (denied), then a writing `Bash`
//! command (allowed), then `rm notes.txt` (rewritten into an `echo`), and its last answer
//! depends on what that command printed.
#![allow(clippy::print_stdout, clippy::print_stderr)] // An example prints its results.

use futures::StreamExt;
use serde_json::json;
use twinwire::host::callbacks::{can_use_tool, PermissionRequest};
use twinwire::protocol::permission::PermissionResult;
use twinwire::protocol::tools::ToolInput;
use twinwire::protocol::Message;
use twinwire::{query, Options};

#[tokio::main]
async fn main() -> twinwire::Result<()> {
    let policy = can_use_tool(|request: PermissionRequest| async move {
        let verdict = match request.tool_input() {
            ToolInput::Read(_) | ToolInput::Glob(_) | ToolInput::Grep(_) => {
                println!("asked for {}: allowed", request.tool_name());
                PermissionResult::allow(request.input().clone())
            }
            ToolInput::Bash(bash) if bash.command.starts_with("rm ") => {
                // Run something harmless instead.
                let harmless = format!("echo would run: {}", bash.command);
                println!(
                    "asked for Bash({}): rewritten to `{harmless}`",
                    bash.command
                );
                PermissionResult::allow(json!({"command": harmless}))
            }
            ToolInput::Bash(bash) => {
                println!("asked for Bash({}): allowed", bash.command);
                PermissionResult::allow(request.input().clone())
            }
            other => {
                println!("asked for {}: denied", other.name());
                PermissionResult::deny(format!("{} is not allowed in this example", other.name()))
            }
        };
        Ok(verdict)
    });
    let options = Options::builder().can_use_tool(policy).build()?;
    let mut messages = query(
        "Create notes.txt with today's date, list the files, then delete notes.txt",
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
