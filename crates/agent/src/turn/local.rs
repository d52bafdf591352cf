//! The commands a prompt runs without the model, as Claude Code runs them in a stream-json
//! session: `/compact [instructions]` (the conversation replaced by its summary) and `/clear`
//! (the conversation started over: the host's `SessionEnd` hooks with reason `clear`, a
//! `conversation_reset` frame, then `SessionStart` with source `clear`). Each ends the turn
//! with a success and no model turn; what it printed is echoed as Claude Code echoes a local
//! command's output.

use std::sync::Arc;

use serde_json::{json, Map};
use twinwire::agent::frames::{self, new_id};
use twinwire::agent::Peer;
use twinwire_protocol::content::UserContent;
use twinwire_protocol::events::ConversationReset;
use twinwire_protocol::Message;

use super::context::TurnContext;
use super::outcome::End;
use crate::commands::Command;
use crate::compaction::{self, Trigger};
use crate::session::Session;

/// Runs a command of this agent's own; the turn's end.
pub(crate) async fn run(session: &Arc<Session>, peer: &Peer, command: Command) -> End {
    match command {
        Command::Compact(instructions) => {
            match compaction::compact(
                session,
                peer,
                Trigger::Manual,
                instructions.as_deref(),
                false,
            )
            .await
            {
                Ok(_) => {
                    echo(peer, "Compacted");
                    End::Local(String::new())
                }
                Err(why) => {
                    echo(peer, &why.to_string());
                    End::Stopped(why.to_string())
                }
            }
        }
        Command::Clear => {
            clear(session, peer).await;
            End::Local(String::new())
        }
        Command::Expanded { .. } => End::Local(String::new()),
    }
}

/// `/clear`.
async fn clear(session: &Arc<Session>, peer: &Peer) {
    let cx = TurnContext::read(session, peer);
    let mut fields = Map::new();
    fields.insert("reason".into(), json!("clear"));
    cx.fire("SessionEnd", None, fields, None).await;
    {
        let mut state = session.state();
        state.conversation.clear();
        state.context_tokens = None;
    }
    let reset = ConversationReset {
        new_conversation_id: new_id(),
        trigger: Some(twinwire_protocol::events::ResetTrigger::Clear),
        uuid: new_id(),
        session_id: peer.session_id().to_owned(),
        timestamp: Some(frames::timestamp()),
        ..ConversationReset::default()
    };
    if let Err(err) = peer.emit(&Message::ConversationReset(Box::new(reset))) {
        tracing::debug!(%err, "a frame the host will not see");
    }
    let mut fields = Map::new();
    fields.insert("source".into(), json!("clear"));
    let report = cx.fire("SessionStart", None, fields, None).await;
    if !report.context.is_empty() {
        session
            .state()
            .push_user(UserContent::Text(report.context.join("\n\n")));
    }
}

/// A local command's output, as a replayed user frame.
fn echo(peer: &Peer, text: &str) {
    let content = UserContent::Text(format!(
        "<local-command-stdout>{text}</local-command-stdout>"
    ));
    if let Err(err) = peer.emit(&frames::replay(peer.session_id(), &new_id(), content)) {
        tracing::debug!(%err, "a frame the host will not see");
    }
}
