//! The agent side: serve the CLI's end of the protocol from Rust, so that any host (the
//! official Python and TypeScript SDKs, or twinwire's own) can drive a Rust agent.
//!
//! [`serve`] runs the same [`crate::engine::Connection`] engine as the host side. The
//! engine reads the host's input once, and the agent gets it in the order the host wrote it
//! (the **inbox**): each user message starts a turn, run by your [`Agent`] with a [`Peer`] (the
//! session: write frames, ask the host for permissions, hooks, MCP, elicitation); each request
//! goes to the [`Agent`] method of its kind, with a [`RequestContext`]. A user message that
//! arrives during a turn is queued, with a `system/queued` notice; the agent takes the queue
//! at its next model-call boundary with [`Peer::take_queued`] (the messages are joined and a
//! `system/injected` notice is written), and whatever is left starts the next turn. A turn
//! read after an `initialize` starts once that is answered. `interrupt` stops the running
//! turn. A malformed frame gets a clear notice and the agent keeps serving.
//!
//! That is [`Framing::Managed`], what an agent normally wants: the server writes
//! `system/init` from the agent's own facts ([`Agent::describe`]), the session state, the
//! notices and the `result` the turn returns, every frame built from protocol types
//! ([`frames`]). An agent that must write every frame itself (a scripted stand-in for the
//! CLI) chooses [`Framing::Raw`] in its [`Profile`].
//!
//! ```no_run
//! use twinwire::agent::{serve_stdio, agent, Peer, Turn};
//!
//! # async fn demo() -> twinwire::Result<()> {
//! serve_stdio(agent(|turn: Turn, peer: Peer| async move {
//!     peer.say(&format!("You said: {}", turn.text()))?;
//!     peer.success("done")
//! }))
//! .await
//! # }
//! ```

mod control;
pub mod frames;
mod handler;
mod inbox;
mod peer;
mod profile;
mod reply;
mod state;
#[cfg(test)]
mod tests;
mod turns;

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tracing::Instrument;
use twinwire_protocol::result::ResultMessage;
use twinwire_protocol::UserMessage;

use crate::engine::{AgentSide, Connection, EngineConfig, LineTap, Watchers};
use crate::error::{Error, Result};

pub use crate::engine::Answer;
pub use handler::{agent, Agent, AnswerFuture, RequestContext};
pub use peer::{Peer, Turn};
pub use profile::Profile;
pub use reply::Reply;

/// How long a turn read after an `initialize` waits for its answer (the SDK MCP handshake
/// the answer may wait for included) before it starts without it.
pub const INITIALIZE_WAIT: Duration = Duration::from_secs(120);

/// How long a turn that watches interrupts ([`Profile::watches_interrupts`]) may take to end
/// once interrupted before the server stops it.
pub const INTERRUPT_GRACE: Duration = Duration::from_secs(10);

/// What the server writes around each turn on the agent's behalf.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Framing {
    /// As Claude Code does: `system/session_state_changed` (`running`, then `idle`) and
    /// `system/init` around each turn, the `result` the turn returns (or an aborted one when
    /// the host interrupts it), `system/queued` for a message that arrives during a turn, and
    /// queued messages joined into one turn. A turn read after an `initialize` waits for its
    /// answer. A malformed host frame gets a notice.
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

/// Serves the protocol on this process's stdin and stdout until stdin ends.
pub async fn serve_stdio(agent: impl Agent) -> Result<()> {
    Server::new(agent)
        .serve(tokio::io::stdin(), tokio::io::stdout())
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
    Server::new(agent)
        .config(config)
        .serve(reader, writer)
        .await
}

/// An agent about to be served, in named steps: the engine's settings, a record of the wire.
#[must_use = "a server does nothing until it serves"]
pub struct Server<A> {
    agent: A,
    config: EngineConfig,
    tap: Option<LineTap>,
}

impl<A: Agent> Server<A> {
    /// A server for `agent`, with the engine's default settings.
    pub fn new(agent: A) -> Self {
        Self {
            agent,
            config: EngineConfig::default(),
            tap: None,
        }
    }

    /// The engine's settings.
    pub fn config(mut self, config: EngineConfig) -> Self {
        self.config = config;
        self
    }

    /// Sees every line the host writes, in order, before it is served (a record of the
    /// wire): called in the reader, so it must be quick.
    pub fn tap(mut self, tap: impl FnMut(&str) + Send + 'static) -> Self {
        self.tap = Some(Box::new(tap));
        self
    }

    /// Serves the protocol over `reader` and `writer` (see [`serve`]).
    pub async fn serve<R, W>(self, reader: R, writer: W) -> Result<()>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        // The session's span: from here until every frame is written.
        let span = crate::trace::session("agent", None);
        self.serve_session(reader, writer, span.clone())
            .instrument(span)
            .await
    }

    async fn serve_session<R, W>(self, reader: R, writer: W, span: tracing::Span) -> Result<()>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let agent: Arc<dyn Agent> = Arc::new(self.agent);
        let output = reply::OutputState::new();
        let state = state::AgentState::new(Arc::clone(&agent), Arc::clone(&output));
        let watchers = Watchers {
            observer: Some(inbox::observer(Arc::clone(&state))),
            deferred: None,
            lines: self.tap,
        };
        let (connection, mut inbound) = Connection::start_watched::<AgentSide, _, _>(
            reader,
            reply::WatchedOutput::new(writer, output),
            Arc::new(control::AgentControl::new(Arc::clone(&state))),
            self.config,
            Box::new(|_| Box::pin(async { Error::Closed })),
            watchers,
        );
        span.record("gen_ai.conversation.id", state.session_id());
        connection.trace_under(span);
        state.attach(connection.clone());
        // Dropped with this future: a session stopped mid-turn stops its turn.
        let _stop_turns = state::StopTurns(Arc::clone(&state));
        // Every frame is served in the reader, in order (the inbox); what reaches this loop
        // is what the reader could not read as a frame at all.
        while let Some(item) = inbound.recv().await {
            match item {
                Ok(other) => tracing::debug!(kind = %other.kind(), "ignored host frame"),
                Err(err) if err.is_recoverable() => {
                    tracing::warn!(%err, "malformed host input");
                    inbox::notice(&state, &err.to_string());
                }
                Err(err) => {
                    tracing::debug!(%err, "host input ended");
                    break;
                }
            }
        }
        state.finish().await;
        let peer = Peer::new(
            Arc::clone(&state),
            tokio_util::sync::CancellationToken::new(),
        );
        state.agent.input_ended(peer).await;
        // What the agent did at the end may have started work of its own.
        state.finish().await;
        // Returning while frames are still queued would lose them when the caller exits.
        state.close_output().await;
        connection.end_trace();
        Ok(())
    }
}

/// A user message as the host sends it (for tests and tools).
pub fn user_message(text: &str) -> UserMessage {
    UserMessage::new(text)
}
