//! The life of a turn on the agent side: a user message starts one or waits in the queue;
//! the turn runs the agent with a [`Peer`]; when it ends, the queue starts the next one.

use std::sync::Arc;
use std::time::Instant;

use tokio_util::sync::CancellationToken;
use twinwire_protocol::result::{ResultMessage, ResultSubtype, TerminalReason};
use twinwire_protocol::system::SessionState;
use twinwire_protocol::UserMessage;

use super::frames::{self, new_id};
use super::peer::{Peer, Turn};
use super::state::{join, AgentState, Turns};
use super::{Framing, INTERRUPT_GRACE};
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
        state.emit(&frames::queued(state.session_id(), position));
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
    let peer = Peer::new(Arc::clone(&state), cancel.clone());
    if state.framing() == Framing::Raw {
        if let Err(error) = state.agent.run_turn(Turn { message }, peer).await {
            tracing::warn!(%error, "turn failed");
        }
        next(&state);
        return;
    }
    let started = Instant::now();
    let session_id = state.session_id().to_owned();
    let states = state.profile.session_state_events;
    if states {
        state.emit(&frames::session_state(&session_id, SessionState::Running));
    }
    // A turn read after an `initialize` applies it (the reader counted it first).
    state.initialized().await;
    let mut init = state.agent.describe(&peer).await;
    init.session_id = session_id.clone();
    init.uuid = new_id();
    state.emit(&frames::init(init));
    let run = state.agent.run_turn(Turn { message }, peer);
    let outcome = if state.profile.watches_interrupts {
        let stopped = async {
            cancel.cancelled().await;
            tokio::time::sleep(INTERRUPT_GRACE).await;
        };
        tokio::select! {
            outcome = run => Some(outcome),
            () = stopped => None,
        }
    } else {
        tokio::select! {
            biased;
            () = cancel.cancelled() => None,
            outcome = run => Some(outcome),
        }
    };
    let interrupted = cancel.is_cancelled();
    let result = match outcome {
        // A turn that watches interrupts wrote what an interrupted turn writes.
        Some(Ok(result)) => result,
        Some(Err(error)) if !interrupted => {
            error_result(ResultSubtype::ErrorDuringExecution, vec![error.0], None)
        }
        Some(Err(_)) | None => {
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
    if state.framing() == Framing::Managed && state.profile.session_state_events {
        state.emit(&frames::session_state(
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
