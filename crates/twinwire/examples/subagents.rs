//! Custom subagents: define a reviewer the main agent can delegate to, and tell apart the
//! messages each agent writes.
//!
//! With an API key: `cargo run -p twinwire --example subagents`
//!
//! Offline (a scripted model, a private HOME and scratch directory):
//! `cargo run -p twinwire --example offline -- subagents`. The script
//! (`examples/scripts/subagents.json`) has the main agent call the `Agent` tool for the
//! reviewer, gives the reviewer (recognised by its prompt) its findings, and has the main
//! agent pass them on once the CLI reports the reviewer done: Claude Code 2.1.330 runs
//! subagents in the background, so the report comes as a second turn of the same query.
#![allow(clippy::print_stdout, clippy::print_stderr)] // An example prints its results.

use futures::StreamExt;
use twinwire::options::AgentDefinition;
use twinwire::protocol::system::SystemMessage;
use twinwire::protocol::Message;
use twinwire::{query, Options};

#[tokio::main]
async fn main() -> twinwire::Result<()> {
    let reviewer = AgentDefinition {
        description: "Reviews Rust code for bugs and unclear names".to_owned(),
        prompt: "You are a meticulous Rust reviewer. Report concrete problems only.".to_owned(),
        tools: Some(vec![
            "Read".to_owned(),
            "Grep".to_owned(),
            "Glob".to_owned(),
        ]),
        model: Some("haiku".to_owned()),
        ..AgentDefinition::default()
    };
    let options = Options::builder()
        .agent_definition("reviewer", reviewer)
        .build()?;
    let mut messages = query("Ask the reviewer agent to review src/lib.rs", options);
    let mut shown_agents = false;
    while let Some(message) = messages.next().await {
        match message? {
            Message::System(system) => {
                // Every turn starts with one; the list is the same.
                if let SystemMessage::Init(init) = &*system {
                    if !shown_agents {
                        println!("agents: {:?}", init.agents.as_deref().unwrap_or_default());
                        shown_agents = true;
                    }
                }
            }
            Message::Assistant(reply) => {
                let who = match &reply.parent_tool_use_id {
                    Some(_) => reply.subagent_type.as_deref().unwrap_or("subagent"),
                    None => "main",
                };
                let text = reply.message.text();
                if !text.is_empty() {
                    println!("[{who}] {text}");
                }
                for call in reply.message.tool_uses() {
                    match call.input["subagent_type"].as_str() {
                        Some(agent) => println!("[{who}] delegates to {agent}"),
                        None => println!("[{who}] calls {}", call.name),
                    }
                }
            }
            Message::Result(result) => println!("-- {}", result.subtype),
            _ => {}
        }
    }
    Ok(())
}
