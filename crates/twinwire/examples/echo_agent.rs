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
//! The agent describes itself in `system/init` (its tools, its permission mode), answers
//! `set_permission_mode` with a typed method, and leaves every other request to the defaults
//! (`unsupported_request`, as Claude Code answers a request it does not know). It writes no
//! frame by hand: twinwire writes `system/init`, the session state and the result around
//! each turn.

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde_json::json;
use twinwire::agent::{
    serve_stdio, Agent, Answer, AnswerFuture, Peer, RequestContext, Turn, TurnOutcome,
};
use twinwire::protocol::control::{
    CanUseToolRequest, SetPermissionModeRequest, SetPermissionModeResponse,
};
use twinwire::protocol::permission::{PermissionMode, PermissionResult};
use twinwire::protocol::system::SystemInit;

/// The echo agent: its permission mode is all it keeps.
#[derive(Clone, Default)]
struct Echo {
    mode: Arc<Mutex<PermissionMode>>,
}

impl Agent for Echo {
    fn run_turn(&self, turn: Turn, peer: Peer) -> BoxFuture<'static, TurnOutcome> {
        Box::pin(run_turn(turn, peer))
    }

    fn describe(&self, peer: &Peer) -> BoxFuture<'static, SystemInit> {
        let mut init = twinwire::agent::frames::default_init(peer.model().as_deref());
        init.tools = vec!["Bash".to_owned()];
        init.permission_mode = self.mode.lock().map(|m| m.clone()).unwrap_or_default();
        Box::pin(async move { init })
    }

    fn set_permission_mode(
        &self,
        request: SetPermissionModeRequest,
        _cx: RequestContext,
    ) -> AnswerFuture<SetPermissionModeResponse> {
        if let Ok(mut mode) = self.mode.lock() {
            *mode = request.mode.clone();
        }
        let answer = SetPermissionModeResponse {
            mode: Some(request.mode),
            ..Default::default()
        };
        Box::pin(async move { Answer::ok(answer) })
    }
}

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
    serve_stdio(Echo::default()).await
}
