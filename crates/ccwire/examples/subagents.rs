//! Custom subagents: define a reviewer the main agent can delegate to, and tell apart the
//! messages each agent writes.
//!
//! `cargo run -p ccwire --example subagents`
#![allow(clippy::print_stdout, clippy::print_stderr)] // An example prints its results.

use ccwire::options::AgentDefinition;
use ccwire::protocol::system::SystemMessage;
use ccwire::protocol::Message;
use ccwire::{query, Options};
use futures::StreamExt;

#[tokio::main]
async fn main() -> ccwire::Result<()> {
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
    while let Some(message) = messages.next().await {
        match message? {
            Message::System(system) => {
                if let SystemMessage::Init(init) = &*system {
                    println!("agents: {:?}", init.agents);
                }
            }
            Message::Assistant(reply) => {
                let who = match &reply.parent_tool_use_id {
                    Some(_) => "reviewer",
                    None => "main",
                };
                println!("[{who}] {}", reply.message.text());
            }
            Message::Result(result) => println!("-- {}", result.subtype),
            _ => {}
        }
    }
    Ok(())
}
