//! The fake as an agent on twinwire's agent side: each user message plays the next turn of the
//! script; host requests are answered as the script says.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use twinwire::agent::{
    Agent, Answer, AnswerFuture, Framing, Peer, Profile, RequestContext, Turn as UserTurn,
    TurnOutcome,
};
use twinwire::protocol::content::UserContent;
use twinwire::protocol::control::{
    ControlRequestBody, InitializeRequest, InitializeResponse, InterruptRequest, InterruptResponse,
    SetModelRequest, SetModelResponse,
};
use twinwire::protocol::result::ResultMessage;

use super::frames::{self, Meta};
use super::state::{emit, FakeState};
use super::steps::Runner;
use crate::script::{Script, Turn};

/// Play the turn answering the next user message.
async fn play_turn(state: Arc<FakeState>, turn: UserTurn, peer: Peer) {
    let index = state.turns.fetch_add(1, Ordering::SeqCst);
    state.turn_started();
    state.session_state(&peer, "running");
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
    let mut runner = Runner::new(Arc::clone(&state), peer.clone(), prompt.clone(), true);
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
    emit(&peer, &init);
    runner.play(steps).await;
    state.turn_finished(&peer);
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

/// The fake as twinwire sees it: an agent that writes every frame itself ([`Framing::Raw`]) and
/// answers every host request as the script says, when and as often as it says (through the
/// request's [`Reply`]): `initialize`, `interrupt` and `set_model` (which act on the session
/// whatever the answer) and, through the catch-all, every other kind.
pub(crate) struct Fake(pub(crate) Arc<FakeState>);

impl Fake {
    /// Serves one request as the script says; the answer is written through `cx`'s reply.
    fn scripted<T>(
        &self,
        request: impl Into<ControlRequestBody>,
        cx: RequestContext,
    ) -> AnswerFuture<T>
    where
        T: Send + 'static,
    {
        let request = serde_json::to_value(request.into()).unwrap_or(Value::Null);
        let work = super::control::respond(
            Arc::clone(&self.0),
            request,
            cx.reply().clone(),
            cx.peer.clone(),
        );
        Box::pin(async move {
            work.await;
            Answer::AlreadyAnswered
        })
    }
}

impl Agent for Fake {
    fn profile(&self) -> Profile {
        Profile::new()
            .framing(Framing::Raw)
            .session_id(self.0.config.session_id.clone())
    }

    fn run_turn(&self, turn: UserTurn, peer: Peer) -> BoxFuture<'static, TurnOutcome> {
        let shared = Arc::clone(&self.0);
        Box::pin(async move {
            play_turn(shared, turn, peer).await;
            // Raw framing: the turn wrote its own result (or none, on purpose).
            Ok(ResultMessage::default())
        })
    }

    fn request(&self, request: ControlRequestBody, cx: RequestContext) -> AnswerFuture<Value> {
        self.scripted(request, cx)
    }

    fn initialize(
        &self,
        request: InitializeRequest,
        cx: RequestContext,
    ) -> AnswerFuture<InitializeResponse> {
        self.scripted(request, cx)
    }

    fn interrupt(
        &self,
        request: InterruptRequest,
        cx: RequestContext,
    ) -> AnswerFuture<InterruptResponse> {
        self.scripted(request, cx)
    }

    fn set_model(
        &self,
        request: SetModelRequest,
        cx: RequestContext,
    ) -> AnswerFuture<SetModelResponse> {
        self.scripted(request, cx)
    }
}
