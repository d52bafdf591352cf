//! The fake as an agent on twinwire's agent side: each user message plays the next turn of the
//! script; host requests are answered as the script says.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use twinwire::agent::{Agent, Framing, Peer, Reply, Turn as UserTurn, TurnOutcome};
use twinwire::protocol::content::UserContent;
use twinwire::protocol::control::ControlRequestBody;
use twinwire::protocol::result::ResultMessage;

use super::frames::{self, Meta};
use super::state::{emit, FakeState};
use super::steps::Runner;
use crate::script::{Script, Turn};

/// Play the turn answering the next user message.
async fn play_turn(state: Arc<FakeState>, turn: UserTurn, session: Peer) {
    let index = state.turns.fetch_add(1, Ordering::SeqCst);
    state.turn_started();
    state.session_state(&session, "running");
    let prompt = user_text(&turn.message.message.content);
    let echo;
    let steps = match usize::try_from(index)
        .ok()
        .and_then(|i| state.script.turn(i))
    {
        Some(Turn { steps }) => steps,
        None => {
            echo = Script::echo();
            &echo.turns[0].steps
        }
    };
    let mut runner = Runner::new(Arc::clone(&state), session.clone(), prompt.clone(), true);
    if state.script.auto_hooks {
        runner
            .auto_hook("UserPromptSubmit", json!({"prompt": prompt}))
            .await;
    }
    let init = {
        let changed = state.state();
        let info = frames::InitInfo {
            cwd: &state.config.cwd,
            permission_mode: &changed.permission_mode,
            mcp_servers: &changed.sdk_mcp_servers,
        };
        frames::system_init(
            &Meta {
                session_id: state.config.session_id.clone(),
                model: changed.model.clone(),
            },
            &info,
        )
    };
    emit(&session, &init);
    runner.play(steps).await;
    state.turn_finished(&session);
}

/// The text of a user message (text blocks joined by newlines, or a plain string content).
fn user_text(content: &UserContent) -> String {
    match content {
        UserContent::Text(text) => text.clone(),
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|block| block.as_text())
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// The fake as twinwire sees it: an agent that writes every frame itself and answers every host
/// request as the script says.
pub(crate) struct Fake(pub(crate) Arc<FakeState>);

impl Agent for Fake {
    fn framing(&self) -> Framing {
        Framing::Raw
    }

    fn run_turn(&self, turn: UserTurn, session: Peer) -> BoxFuture<'static, TurnOutcome> {
        let shared = Arc::clone(&self.0);
        Box::pin(async move {
            play_turn(shared, turn, session).await;
            // Raw framing: the turn wrote its own result (or none, on purpose).
            Ok(ResultMessage::default())
        })
    }

    fn respond(
        &self,
        request: &ControlRequestBody,
        reply: &Reply,
        session: &Peer,
    ) -> Option<BoxFuture<'static, ()>> {
        let request = serde_json::to_value(request).unwrap_or(Value::Null);
        Some(super::control::respond(
            Arc::clone(&self.0),
            request,
            reply.clone(),
            session.clone(),
        ))
    }
}
