//! An agent served from Rust: the CLI's side of the wire, so that any host (the official
//! Python and TypeScript SDKs, `twinwire`'s own `Client`) can drive it as if it were `claude`.
//!
//! ```sh
//! cargo build --example echo_agent
//! # then point a host at target/debug/examples/echo_agent as its CLI path
//! ```
//!
//! Each turn echoes the prompt. A prompt that mentions "delete" asks the host whether
//! `Bash(rm -rf build)` may run (its `can_use_tool` callback answers) and reports the decision.

use serde_json::json;
use twinwire::agent::{agent, serve_stdio, Peer, Turn, TurnOutcome};
use twinwire::protocol::control::CanUseToolRequest;
use twinwire::protocol::permission::PermissionResult;

async fn run_turn(turn: Turn, peer: Peer) -> TurnOutcome {
    let prompt = turn.text();
    if !prompt.contains("delete") {
        let reply = format!("You said: {prompt}");
        peer.say(&reply)?;
        return peer.success(&reply);
    }
    let ask = CanUseToolRequest {
        tool_name: "Bash".to_owned(),
        input: json!({"command": "rm -rf build", "description": "Delete the build directory"}),
        tool_use_id: Some(format!("toolu_echo_{}", peer.session_id())),
        ..CanUseToolRequest::default()
    };
    // A host that fails to answer denies: the tool never runs because something failed.
    let reply = match peer.can_use_tool(ask).await {
        Ok(PermissionResult::Allow(_)) => "allowed: rm -rf build".to_owned(),
        Ok(PermissionResult::Deny(deny)) => format!("denied: {}", deny.message),
        Ok(other) => format!("denied: an answer this agent does not know ({other:?})"),
        Err(error) => format!("denied: {error}"),
    };
    peer.say(&reply)?;
    peer.success(&reply)
}

#[tokio::main]
async fn main() -> twinwire::Result<()> {
    serve_stdio(agent(run_turn)).await
}
