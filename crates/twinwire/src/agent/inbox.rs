//! The inbox: the host's data frames served in the reader, in the order the host wrote them
//! among its requests. A user message starts a turn or joins the queue right here, so that a
//! request read after it (an interrupt) finds its turn, and a turn read after an
//! `initialize` waits for its answer; the environment the host sets applies to the turns read
//! after it.

use std::sync::Arc;

use twinwire_protocol::InputMessage;

use super::state::AgentState;
use super::{frames, turns, Framing};
use crate::engine::{Observer, Settings};

/// The observer the engine's reader calls with each data frame.
pub(crate) fn observer(state: Arc<AgentState>) -> Observer<InputMessage> {
    Box::new(move |message: InputMessage, settings: &Settings<'_>| {
        // The reader may run before `serve` has the connection in hand.
        if state.connection().is_none() {
            state.attach(settings.connection());
        }
        match message {
            InputMessage::User(message) => {
                turns::user_message(&state, *message);
                None
            }
            InputMessage::UpdateEnvironmentVariables(update) => {
                state.update_env(update.variables);
                None
            }
            InputMessage::Malformed(malformed) => {
                tracing::warn!(%malformed, "a host frame that could not be read");
                notice(&state, &format!("could not read a host frame: {malformed}"));
                None
            }
            other => Some(other),
        }
    })
}

/// Tells the host about input the agent could not use (managed framing only).
pub(crate) fn notice(state: &AgentState, message: &str) {
    if state.framing() == Framing::Managed {
        state.emit(&frames::error_notice(state.session_id(), message));
    }
}
