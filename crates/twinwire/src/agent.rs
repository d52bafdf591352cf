//! The agent side: serve the CLI's end of the protocol from Rust, so that any host (the
//! official Python and TypeScript SDKs, or twinwire's own) can drive a Rust agent.
//!
//! [`serve`] runs the same [`crate::engine::Connection`] engine as the host side,
//! reading [`InputMessage`]s. Each user message starts a turn, run by your [`Agent`] with a
//! [`Peer`] handle to write frames and to ask the host (permissions, hooks, MCP, elicitation).
//! A user message that arrives during a turn is queued, with a `system/queued` notice; the agent
//! takes the queue at its next model-call boundary with [`Peer::take_queued`] (the messages
//! are joined and a `system/injected` notice is written), and whatever is left starts the next
//! turn. `interrupt` cancels the running turn. An unsupported request is answered with
//! `error_code: "unsupported_request"`; a malformed frame gets a clear error frame and the agent
//! keeps serving.
//!
//! That is [`Framing::Managed`], what an agent normally wants. An agent that must write every
//! frame itself (a scripted stand-in for the CLI, a proxy) chooses [`Framing::Raw`] and may
//! take over the answers to host requests with [`Agent::respond`].
//!
//! ```no_run
//! use twinwire::agent::{serve_stdio, agent, Peer, Turn};
//!
//! # async fn demo() -> twinwire::Result<()> {
//! serve_stdio(agent(|turn: Turn, session: Peer| async move {
//!     session.say(&format!("You said: {}", turn.text()))?;
//!     session.success("done")
//! }))
//! .await
//! # }
//! ```

mod control;
mod frames;
mod peer;
mod reply;
mod state;
#[cfg(test)]
mod tests;
mod turns;

use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};
use tracing::Instrument;
use twinwire_protocol::control::{ControlRequestBody, InitializeRequest};
use twinwire_protocol::result::ResultMessage;
use twinwire_protocol::{InputMessage, UserMessage};

use crate::engine::{AgentSide, Connection, EngineConfig, HandlerError};
use crate::error::{Error, Result};

pub use peer::{Peer, Turn};
pub use reply::Reply;

/// What the server writes around each turn on the agent's behalf.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Framing {
    /// As Claude Code does: `system/session_state_changed` (`running`, then `idle`) and
    /// `system/init` around each turn, the `result` the turn returns (or an aborted one when
    /// the host interrupts it), `system/queued` for a message that arrives during a turn, and
    /// queued messages joined into one turn. A malformed host frame gets an error frame.
    #[default]
    Managed,
    /// Nothing at all: the turn writes its own frames, `result` included (the value
    /// [`Agent::run_turn`] returns is not written; an error is only logged). Each user message
    /// is its own turn, in arrival order; an interrupt only cancels
    /// [`Peer::interrupted`] and the turn decides how to end. Malformed host frames are only
    /// logged.
    Raw,
}

/// What a turn ends with: the `result` frame to write (the server fills in the session id,
/// uuid and duration when they are empty), or why it failed (written as an
/// `error_during_execution` result).
pub type TurnOutcome = std::result::Result<ResultMessage, TurnError>;

/// Why a turn failed. Any twinwire error or message converts into it, so `?` works in a turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnError(pub String);

impl std::fmt::Display for TurnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<Error> for TurnError {
    fn from(err: Error) -> Self {
        Self(err.to_string())
    }
}

impl From<String> for TurnError {
    fn from(message: String) -> Self {
        Self(message)
    }
}

impl From<&str> for TurnError {
    fn from(message: &str) -> Self {
        Self(message.to_owned())
    }
}

/// A Rust agent behind the protocol.
pub trait Agent: Send + Sync + 'static {
    /// Runs one turn. Write frames with `session`; return the result.
    fn run_turn(&self, turn: Turn, session: Peer) -> BoxFuture<'static, TurnOutcome>;

    /// Answers `initialize` (the default: an empty success, which every host accepts).
    fn initialize(
        &self,
        _request: InitializeRequest,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        Box::pin(async { Ok(Value::Object(Default::default())) })
    }

    /// Answers any other host request; `None` means unsupported (the default).
    fn handle_request(
        &self,
        _request: &ControlRequestBody,
        _session: &Peer,
    ) -> Option<BoxFuture<'static, Result<Value, HandlerError>>> {
        None
    }

    /// Takes over the answer to a host request, `initialize` and `interrupt` included: the
    /// returned work runs in its own task and answers through `reply` (keep a clone) whenever
    /// and however often it likes, or never. It may ask the host things through `session`
    /// first (Claude Code sends `mcp_message` requests before it answers `initialize`).
    /// `None`, the default, answers the usual way ([`Agent::initialize`],
    /// [`Agent::handle_request`]). Either way an `interrupt` cancels the turn running when it
    /// arrived, right after the first poll of the answering work (so that an answer given at
    /// once precedes the frames the turn writes as it ends, as with the CLI).
    fn respond(
        &self,
        _request: &ControlRequestBody,
        _reply: &Reply,
        _session: &Peer,
    ) -> Option<BoxFuture<'static, ()>> {
        None
    }

    /// What the server writes around each turn (the default: [`Framing::Managed`]).
    fn framing(&self) -> Framing {
        Framing::Managed
    }

    /// The host's input ended (it closed the agent's stdin, as the SDKs do when a session is
    /// over) and the last turn and the work started with [`Peer::spawn`] are done; the output
    /// is still open, and closes when the returned work is done. The place for what Claude
    /// Code does before it exits, such as its `SessionEnd` hooks. The host can no longer
    /// answer a request: write frames or [`Peer::hook_without_answer`], never wait for a
    /// reply. The work should bound its own time: the server waits for it. The mirror of the
    /// host side's end of the CLI's output ([`crate::engine::OutputEnd`]). Default: nothing.
    fn input_ended(&self, _session: Peer) -> BoxFuture<'static, ()> {
        Box::pin(async {})
    }
}

/// Any async closure from a turn to its outcome is an [`Agent`] with the defaults for
/// everything else.
impl<F, Fut> Agent for F
where
    F: Fn(Turn, Peer) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = TurnOutcome> + Send + 'static,
{
    fn run_turn(&self, turn: Turn, session: Peer) -> BoxFuture<'static, TurnOutcome> {
        Box::pin(self(turn, session))
    }
}

/// An async closure as an [`Agent`] (the closure is one already; this names its shape so
/// the closure's argument types are inferred).
pub fn agent<F, Fut>(run_turn: F) -> impl Agent
where
    F: Fn(Turn, Peer) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = TurnOutcome> + Send + 'static,
{
    run_turn
}

/// Serves the protocol on this process's stdin and stdout until stdin ends.
pub async fn serve_stdio(agent: impl Agent) -> Result<()> {
    serve(
        tokio::io::stdin(),
        tokio::io::stdout(),
        agent,
        EngineConfig::default(),
    )
    .await
}

/// Serves the protocol over any pipe pair until the host's input ends, the last turn and the
/// work started with [`Peer::spawn`] are done, [`Agent::input_ended`] is done, and every
/// frame is written.
pub async fn serve<R, W>(
    reader: R,
    writer: W,
    agent: impl Agent,
    config: EngineConfig,
) -> Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    // The session's span: from here until every frame is written.
    let span = crate::trace::session("agent", None);
    serve_session(reader, writer, agent, config, span.clone())
        .instrument(span)
        .await
}

async fn serve_session<R, W>(
    reader: R,
    writer: W,
    agent: impl Agent,
    config: EngineConfig,
    span: tracing::Span,
) -> Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let agent: Arc<dyn Agent> = Arc::new(agent);
    let output = reply::OutputState::new();
    let state = state::AgentState::new(Arc::clone(&agent), Arc::clone(&output));
    // Counts each user message as the reader reads it, in order with the requests it
    // dispatches: an interrupt read after a prompt stops that prompt's turn.
    let counter = Arc::clone(&state);
    let (connection, mut inbound) = Connection::start_observed::<AgentSide, _, _>(
        reader,
        reply::WatchedOutput::new(writer, output),
        Arc::new(control::AgentControl::new(Arc::clone(&state))),
        config,
        Box::new(|_| Box::pin(async { Error::Closed })),
        Some(Box::new(move |message: &InputMessage, _| {
            if matches!(message, InputMessage::User(_)) {
                counter.user_read();
            }
        })),
    );
    span.record("gen_ai.conversation.id", state.session_id());
    connection.trace_under(span);
    state.attach(connection.clone());
    while let Some(item) = inbound.recv().await {
        match item {
            Ok(InputMessage::User(message)) => {
                turns::user_message(&state, *message);
                state.user_taken();
            }
            Ok(InputMessage::Malformed(malformed)) => {
                tracing::warn!(%malformed, "a host frame that could not be read");
                if state.framing() == Framing::Managed {
                    let message = format!("could not read a host frame: {malformed}");
                    state.emit(&frames::error_notice(state.session_id(), &message));
                }
            }
            Ok(InputMessage::UpdateEnvironmentVariables(update)) => {
                state.update_env(update.variables)
            }
            Ok(other) => tracing::debug!(kind = %other.kind(), "ignored host frame"),
            Err(err) if err.is_recoverable() => {
                tracing::warn!(%err, "malformed host input");
                if state.framing() == Framing::Managed {
                    state.emit(&frames::error_notice(state.session_id(), &err.to_string()));
                }
            }
            Err(err) => {
                tracing::debug!(%err, "host input ended");
                break;
            }
        }
    }
    state.finish().await;
    let session = Peer::new(
        Arc::clone(&state),
        tokio_util::sync::CancellationToken::new(),
    );
    state.agent.input_ended(session).await;
    // What the agent did at the end may have started work of its own.
    state.finish().await;
    // Returning while frames are still queued would lose them when the caller exits.
    state.close_output().await;
    connection.end_trace();
    Ok(())
}

/// A user message as the host sends it (for tests and tools).
pub fn user_message(text: &str) -> UserMessage {
    UserMessage::new(text)
}
