//! Hooks: log every prompt, block `git push`, and note each finished tool.
//!
//! `cargo run -p ccwire --example hooks`
#![allow(clippy::print_stdout, clippy::print_stderr)] // An example prints its results.

use ccwire::host::callbacks::{hook, HookMatcher};
use ccwire::protocol::hooks::{HookEvent, HookInput, HookOutput, HookPermissionDecision};
use ccwire::protocol::Message;
use ccwire::{query, Options};
use futures::StreamExt;

#[tokio::main]
async fn main() -> ccwire::Result<()> {
    let log_prompt = hook(|input, _cx| async move {
        if let HookInput::UserPromptSubmit(prompt) = input {
            eprintln!("prompt: {}", prompt.prompt);
        }
        Ok(HookOutput::proceed())
    });
    let guard_push = hook(|input, _cx| async move {
        if let HookInput::PreToolUse(pre) = &input {
            let command = pre.tool_input["command"].as_str().unwrap_or_default();
            if command.contains("git push") {
                return Ok(HookOutput::pre_tool_use_decision(
                    HookPermissionDecision::Deny,
                    "pushing is done by CI",
                ));
            }
        }
        Ok(HookOutput::proceed())
    });
    let after_tool = hook(|input, _cx| async move {
        if let HookInput::PostToolUse(post) = input {
            eprintln!("finished {}", post.tool_name);
        }
        Ok(HookOutput::proceed())
    });
    let options = Options::builder()
        .hook(HookEvent::UserPromptSubmit, HookMatcher::all(log_prompt))
        .hook(
            HookEvent::PreToolUse,
            HookMatcher::matching("Bash", guard_push),
        )
        .hook(HookEvent::PostToolUse, HookMatcher::all(after_tool))
        .build()?;
    let mut messages = query("Commit the README and push it", options);
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            println!("{}", result.text().unwrap_or_default());
        }
    }
    Ok(())
}
