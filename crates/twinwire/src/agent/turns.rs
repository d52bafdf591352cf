//! The life of a turn on the agent side: a user message starts one or waits in the queue;
//! the turn runs the agent with a [`Peer`]; when it ends, the queue starts the next one.

use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Map};
use tokio_util::sync::CancellationToken;
use twinwire_protocol::result::{ResultMessage, ResultSubtype, TerminalReason};
use twinwire_protocol::system::SessionState;
use twinwire_protocol::UserMessage;

use super::frames::{self, new_id};
use super::peer::{Peer, Turn};
use super::state::{join, AgentState, Turns};
use super::Framing;
use crate::engine::lock;

/// A user message: starts a turn, or waits in the queue behind the running one.
pub(crate) fn user_message(state: &Arc<AgentState>, message: UserMessage) {
    let mut turns = lock(&state.turns);
    if turns.running.is_some() {
        turns.queue.push_back(message);
        if state.framing() == Framing::Raw {
            return;
        }
        let position = turns.queue.len();
        drop(turns);
        let mut fields = Map::new();
        fields.insert("position".to_owned(), json!(position));
        state.emit(&frames::notice(state.session_id(), "queued", fields));
        return;
    }
    start(state, &mut turns, message);
}

fn start(state: &Arc<AgentState>, turns: &mut Turns, message: UserMessage) {
    let cancel = CancellationToken::new();
    turns.running = Some(cancel.clone());
    turns.count += 1;
    state.busy.send_replace(true);
    let state = Arc::clone(state);
    tokio::spawn(async move { run(state, message, cancel).await });
}

async fn run(state: Arc<AgentState>, message: UserMessage, cancel: CancellationToken) {
    if state.framing() == Framing::Raw {
        let session = Peer::new(Arc::clone(&state), cancel);
        if let Err(error) = state.agent.run_turn(Turn { message }, session).await {
            tracing::warn!(%error, "turn failed");
        }
        next(&state);
        return;
    }
    let started = Instant::now();
    let model = lock(&state.turns).model.clone();
    let session_id = state.session_id().to_owned();
    state.emit(&frames::state_changed(&session_id, SessionState::Running));
    let model = model.unwrap_or_else(|| "twinwire-agent".to_owned());
    state.emit(&frames::init(&session_id, &model));
    let session = Peer::new(Arc::clone(&state), cancel.clone());
    let run = state.agent.run_turn(Turn { message }, session);
    let outcome = tokio::select! {
        biased;
        _ = cancel.cancelled() => None,
        outcome = run => Some(outcome),
    };
    let result = match outcome {
        Some(Ok(result)) => result,
        Some(Err(error)) => error_result(ResultSubtype::ErrorDuringExecution, vec![error.0], None),
        None => {
            state.emit(&frames::interrupted(&session_id));
            error_result(
                ResultSubtype::ErrorDuringExecution,
                Vec::new(),
                Some(TerminalReason::AbortedStreaming),
            )
        }
    };
    state.emit(&frames::result(finished(&state, result, started)));
    next(&state);
}

/// Fills in what the agent left empty: the session id, the uuid, the duration.
fn finished(state: &AgentState, mut result: ResultMessage, started: Instant) -> ResultMessage {
    if result.session_id.is_empty() {
        result.session_id = state.session_id().to_owned();
    }
    if result.uuid.is_empty() {
        result.uuid = new_id();
    }
    if result.duration_ms == 0 {
        result.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    }
    result
}

/// After a turn: the queue starts the next one, or the session goes idle.
fn next(state: &Arc<AgentState>) {
    let mut turns = lock(&state.turns);
    turns.running = None;
    let queued = match state.framing() {
        Framing::Managed => join(turns.queue.drain(..).collect()),
        Framing::Raw => turns.queue.pop_front(),
    };
    if let Some(message) = queued {
        start(state, &mut turns, message);
        return;
    }
    drop(turns);
    if state.framing() == Framing::Managed {
        state.emit(&frames::state_changed(
            state.session_id(),
            SessionState::Idle,
        ));
    }
    state.busy.send_replace(false);
}

/// A result frame for a turn that did not succeed.
pub(crate) fn error_result(
    subtype: ResultSubtype,
    errors: Vec<String>,
    terminal_reason: Option<TerminalReason>,
) -> ResultMessage {
    ResultMessage {
        subtype,
        is_error: true,
        errors: Some(errors),
        terminal_reason,
        ..ResultMessage::default()
    }
}
