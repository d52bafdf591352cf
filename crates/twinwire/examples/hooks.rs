//! Hooks: log every prompt, block `git push`, and note each finished tool.
//!
//! With an API key: `cargo run -p twinwire --example hooks`
//!
//! Offline (a scripted model, a private HOME and scratch directory):
//! `cargo run -p twinwire --example offline -- hooks`. The script
//! (`examples/scripts/hooks.json`) runs `ls`, then tries `git push`, and its last answer
//! depends on the reason the hook gave for blocking the push.
#![allow(clippy::print_stdout, clippy::print_stderr)] // An example prints its results.

use futures::StreamExt;
use twinwire::host::callbacks::{hook, HookMatcher};
use twinwire::protocol::hooks::{HookEvent, HookInput, HookOutput, HookPermissionDecision};
use twinwire::protocol::Message;
use twinwire::{query, Options};

#[tokio::main]
async fn main() -> twinwire::Result<()> {
    let log_prompt = hook(|input, _cx| async move {
        if let HookInput::UserPromptSubmit(prompt) = input {
            println!("prompt: {}", prompt.prompt);
        }
        Ok(HookOutput::proceed())
    });
    let guard_push = hook(|input, _cx| async move {
        if let HookInput::PreToolUse(pre) = &input {
            let command = pre.tool_input["command"].as_str().unwrap_or_default();
            if command.contains("git push") {
                println!("blocked: {command}");
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
            println!("finished {}", post.tool_name);
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
    let mut messages = query("List the files, then push the branch", options);
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            println!("{}", result.text().unwrap_or_default());
        }
    }
    Ok(())
}
