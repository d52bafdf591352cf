//! The connection engine: one implementation of the wire for both ends.
//!
//! A [`Connection`] runs over any `AsyncRead`/`AsyncWrite` pair. Three pieces, each with one
//! job:
//!
//! - the **reader** task frames and decodes the peer's output, resolves responses to our
//!   requests, starts a task for each request from the peer, honours cancellations, and hands
//!   data-plane frames to the user through an unbounded queue, so that a user who is slow to
//!   read never stops control requests from being served (the deadlock of SDKs that serve
//!   requests from the same loop the user drains);
//! - the **writer** task owns the peer's input and writes frames in the order they were sent;
//! - each **incoming request** runs as its own task with a cancellation token, so a slow
//!   permission callback never blocks a hook, and `control_cancel_request` stops it.
//!
//! Requests we send wait in a pending map, each with a timeout; a response with an unknown,
//! late or duplicate id is ignored. When the peer's output ends, every pending request fails at
//! once with the real cause (for a process: exit code or signal and the stderr tail).

mod budget;
mod frames;
mod inbound;
mod outgoing;
mod peer_requests;
mod pending;
mod reader;
mod writer;

pub use budget::DEFAULT_MAX_BUFFERED_BYTES;
pub use inbound::Inbound;
pub use outgoing::Outgoing;
pub(crate) use peer_requests::panic_message;

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;
use twinwire_protocol::control::{
    ControlCancelRequest, ControlRequest, ControlRequestBody, ControlResponse, RequestId,
};
use twinwire_protocol::framing::DEFAULT_MAX_LINE_LENGTH;
use twinwire_protocol::{DecodeError, InputMessage, Malformed, Message};

use crate::error::{Error, Result};
use budget::ByteBudget;
use pending::Pending;
use writer::Outbox;

/// Settings of a [`Connection`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct EngineConfig {
    /// How long a request we send may wait for its answer.
    pub request_timeout: Duration,
    /// Longest line accepted from the peer.
    pub max_line_length: usize,
    /// How many resolved request ids to remember, to tell a duplicate response from a stray one.
    pub recent_ids: usize,
    /// How many bytes of the peer's data frames may wait for the user to take them before the
    /// reader stops reading (backpressure; see [`DEFAULT_MAX_BUFFERED_BYTES`]). Control
    /// requests already read are served regardless, and while one of our requests waits for
    /// its answer the reader reads on past the budget.
    pub max_buffered_bytes: usize,
    /// Whether a request we stop waiting for (timed out, or its future dropped) is withdrawn
    /// with `control_cancel_request`, at first. An [`Observer`] may change it once it knows
    /// its peer ([`Settings::withdraw_abandoned`]): Claude Code 2.0.77 and 1.0.128 exit on a
    /// frame they do not know, so the host turns this on only when `system/init` names a CLI
    /// that accepts it. Not withdrawing is always safe: a late answer is dropped as a stray
    /// response.
    pub withdraw_abandoned: bool,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            request_timeout: Duration::from_secs(60),
            max_line_length: DEFAULT_MAX_LINE_LENGTH,
            recent_ids: 1024,
            max_buffered_bytes: DEFAULT_MAX_BUFFERED_BYTES,
            withdraw_abandoned: true,
        }
    }
}

/// Which end of the wire we are: decides how the peer's frames are read.
pub trait Side: Send + 'static {
    /// What the peer writes.
    type Inbound: DeserializeOwned + Serialize + Send + 'static;
    /// Parses one line.
    fn decode(line: &str) -> Result<Self::Inbound, DecodeError>;
    /// Separates the control plane from the data plane.
    fn route(frame: Self::Inbound) -> Routed<Self::Inbound>;
    /// What the reader could not type in the frame (see [`Malformed`]): the frame itself, or
    /// the body of a control request or response.
    fn as_malformed(frame: &Self::Inbound) -> Option<&Malformed>;
    /// Whether our input to the peer closes when its output ends (the host side: a CLI whose
    /// stdout ended reads nothing more; an agent still answers a host that closed its input).
    const CLOSES_INPUT_AT_END: bool;
    /// Whether a line whose leading `type` is `tag` ([`twinwire_protocol::leading_type`]) is a
    /// data-plane kind the engine never needs to look at, so that it can go to the user as text
    /// and be decoded when the user takes it. An [`Observer`] does not see such frames.
    fn deferrable(tag: &str) -> bool {
        let _ = tag;
        false
    }
}

/// Where a frame goes.
#[derive(Debug)]
pub enum Routed<T> {
    /// A request from the peer.
    Request(ControlRequest),
    /// An answer to one of our requests.
    Response(ControlResponse),
    /// The peer withdraws one of its requests.
    Cancel(ControlCancelRequest),
    /// Nothing to do.
    KeepAlive,
    /// A data-plane frame for the user.
    Data(T),
}

/// We are the host: the peer is the CLI, writing [`Message`]s.
#[derive(Debug)]
pub struct HostSide;

impl Side for HostSide {
    type Inbound = Message;
    fn decode(line: &str) -> Result<Message, DecodeError> {
        Message::from_json(line)
    }
    fn route(frame: Message) -> Routed<Message> {
        match frame {
            Message::ControlRequest(request) => Routed::Request(*request),
            Message::ControlResponse(response) => Routed::Response(*response),
            Message::ControlCancelRequest(cancel) => Routed::Cancel(cancel),
            Message::KeepAlive(_) => Routed::KeepAlive,
            other => Routed::Data(other),
        }
    }
    fn as_malformed(frame: &Message) -> Option<&Malformed> {
        match frame {
            Message::ControlRequest(request) => request.request.as_malformed(),
            Message::ControlResponse(response) => response.response.as_malformed(),
            other => other.as_malformed(),
        }
    }
    const CLOSES_INPUT_AT_END: bool = true;
    /// The bulk of a turn: streamed deltas and whole messages, read by nobody but the user.
    fn deferrable(tag: &str) -> bool {
        matches!(tag, "stream_event" | "assistant" | "user")
    }
}

/// We are the agent: the peer is a host, writing [`InputMessage`]s.
#[derive(Debug)]
pub struct AgentSide;

impl Side for AgentSide {
    type Inbound = InputMessage;
    fn decode(line: &str) -> Result<InputMessage, DecodeError> {
        InputMessage::from_json(line)
    }
    fn route(frame: InputMessage) -> Routed<InputMessage> {
        match frame {
            InputMessage::ControlRequest(request) => Routed::Request(*request),
            InputMessage::ControlResponse(response) => Routed::Response(*response),
            InputMessage::ControlCancelRequest(cancel) => Routed::Cancel(cancel),
            InputMessage::KeepAlive(_) => Routed::KeepAlive,
            other => Routed::Data(other),
        }
    }
    fn as_malformed(frame: &InputMessage) -> Option<&Malformed> {
        match frame {
            InputMessage::ControlRequest(request) => request.request.as_malformed(),
            InputMessage::ControlResponse(response) => response.response.as_malformed(),
            other => other.as_malformed(),
        }
    }
    const CLOSES_INPUT_AT_END: bool = false;
}

/// Why a handler could not answer a request; sent to the peer as an error response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandlerError {
    /// What went wrong.
    pub message: String,
    /// A machine-readable code, e.g. `unsupported_request`.
    pub code: Option<String>,
}

impl HandlerError {
    /// An error with a message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            code: None,
        }
    }

    /// The answer to a request subtype nobody handles.
    pub fn unsupported(subtype: &str) -> Self {
        Self {
            message: format!("Unsupported control request subtype: {subtype}"),
            code: Some("unsupported_request".to_owned()),
        }
    }
}

/// What a handler learns about the request it serves.
#[derive(Debug, Clone)]
pub struct RequestContext {
    /// The peer's request id.
    pub request_id: RequestId,
    /// Cancelled when the peer withdraws the request or the connection ends.
    pub cancel: CancellationToken,
    connection: Connection,
}

impl RequestContext {
    /// The connection the request came on (to answer it by hand, or to ask the peer first).
    pub fn connection(&self) -> &Connection {
        &self.connection
    }
}

/// A handler's answer to one request: typed where the handler knows the request's kind
/// (`T` is its response), the payload as JSON for the engine (`Answer<Value>`).
#[derive(Debug)]
pub enum Answer<T = Value> {
    /// The engine writes this answer: a success with its payload, or an error.
    Respond(Result<T, HandlerError>),
    /// The handler answered the request itself (the agent side's [`Reply`](crate::agent::Reply)
    /// may answer late, twice or never): the engine writes nothing.
    AlreadyAnswered,
}

impl<T> Answer<T> {
    /// A success carrying `payload`.
    pub fn ok(payload: T) -> Self {
        Self::Respond(Ok(payload))
    }

    /// An error answer.
    pub fn error(error: HandlerError) -> Self {
        Self::Respond(Err(error))
    }

    /// The answer to a request subtype nobody handles, in Claude Code's words.
    pub fn unsupported(subtype: &str) -> Self {
        Self::Respond(Err(HandlerError::unsupported(subtype)))
    }
}

impl<T> From<Result<T, HandlerError>> for Answer<T> {
    fn from(result: Result<T, HandlerError>) -> Self {
        Answer::Respond(result)
    }
}

/// Serves the requests the peer sends us. Each call runs in its own task.
pub trait ControlHandler: Send + Sync + 'static {
    /// Answers one request: with a payload or an error for the engine to write, or by saying
    /// it answered already.
    fn handle(&self, request: ControlRequestBody, cx: RequestContext)
        -> BoxFuture<'static, Answer>;
}

/// For tests: a handler of `$ty`, whose `serve` method answers with a payload or an error.
#[cfg(test)]
macro_rules! serving_handler {
    ($ty:ty) => {
        impl $crate::engine::ControlHandler for $ty {
            fn handle(
                &self,
                request: twinwire_protocol::control::ControlRequestBody,
                cx: $crate::engine::RequestContext,
            ) -> futures::future::BoxFuture<'static, $crate::engine::Answer> {
                Box::pin(futures::FutureExt::map(
                    self.serve(request, cx),
                    $crate::engine::Answer::from,
                ))
            }
        }
    };
}
#[cfg(test)]
pub(crate) use serving_handler;

/// A handler that answers every request as unsupported.
#[derive(Debug, Default)]
pub struct NoHandler;

impl ControlHandler for NoHandler {
    fn handle(
        &self,
        request: ControlRequestBody,
        _cx: RequestContext,
    ) -> BoxFuture<'static, Answer> {
        let error = HandlerError::unsupported(request.tag());
        Box::pin(async move { Answer::Respond(Err(error)) })
    }
}

/// Produces the cause of the end of the peer's output (for a process: waits for its exit
/// status and collects the stderr tail). Called once, by the reader, at end of input. The cause
/// [`Error::Closed`] means a normal end; any other cause reaches the user as the last item of
/// the data plane.
pub type EndCause = Box<dyn FnOnce(OutputEnd) -> BoxFuture<'static, Error> + Send>;

/// What the reader saw at the end of the peer's output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct OutputEnd {
    /// The last line had no newline: the peer stopped mid-frame.
    pub partial_last_line: bool,
    /// How many bytes the peer wrote in all (none: it never spoke).
    pub bytes: u64,
    /// We had closed the peer's input ([`Connection::close_input`]) before its output ended:
    /// an end that was asked for.
    pub input_closed: bool,
}

/// Sees every data-plane frame in the reader task, in the order the peer wrote it among its
/// control frames, before it is queued for the user (e.g. to track the session's state
/// whether or not the user is reading, or, on the agent side, to start a turn in order with
/// the requests around it), except the bulk kinds that are decoded only when the user takes
/// them ([`Side::deferrable`]). It hands the frame on to the user (`Some`) or keeps it
/// (`None`), and may change the connection's [`Settings`] as it learns about the peer. Must
/// be quick.
pub type Observer<T> = Box<dyn FnMut(T, &Settings<'_>) -> Option<T> + Send>;

/// Sees the text of a line in the reader task: each line the reader defers undecoded
/// ([`Side::deferrable`]; only installed while someone listens for twinwire's spans, so that
/// without one deferred lines cost no more than before), or every line the peer wrote, in
/// order, before it is routed (a record of the wire).
pub type LineTap = Box<dyn FnMut(&str) + Send>;

/// What watches the reader beside the handler: the data plane's [`Observer`], and taps on the
/// lines.
pub(crate) struct Watchers<T> {
    pub(crate) observer: Option<Observer<T>>,
    /// The deferred lines.
    pub(crate) deferred: Option<LineTap>,
    /// Every line.
    pub(crate) lines: Option<LineTap>,
}

impl<T> Default for Watchers<T> {
    fn default() -> Self {
        Self {
            observer: None,
            deferred: None,
            lines: None,
        }
    }
}

/// What an [`Observer`] may change in its connection.
pub struct Settings<'a> {
    shared: &'a Arc<ConnectionState>,
}

impl Settings<'_> {
    /// The connection the frame came on.
    pub fn connection(&self) -> Connection {
        Connection {
            shared: Arc::clone(self.shared),
        }
    }

    /// Whether requests we stop waiting for are withdrawn from now on (see
    /// [`EngineConfig::withdraw_abandoned`]).
    pub fn withdraw_abandoned(&self, on: bool) {
        self.shared.withdraw_abandoned.store(on, Ordering::Relaxed);
    }
}

/// One end of a live connection. Cheap to clone; every clone talks to the same peer.
#[derive(Clone)]
pub struct Connection {
    shared: Arc<ConnectionState>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("closed", &self.is_closed())
            .finish_non_exhaustive()
    }
}

pub(crate) struct ConnectionState {
    config: EngineConfig,
    outbox: Arc<Outbox>,
    pending: Mutex<Pending>,
    /// The peer's requests being served, by id (a peer may reuse an id while the first request
    /// is in flight: each keeps its own token, and a cancel reaches all of them).
    peer_requests: Mutex<HashMap<RequestId, Vec<(u64, CancellationToken)>>>,
    /// The bytes of data frames the user has not taken yet.
    budget: ByteBudget,
    next_id: AtomicU64,
    /// `None` while open; the cause once the peer's output has ended.
    closed: watch::Sender<Option<Error>>,
    /// Set by [`Connection::close_input`]: the peer's input was closed on purpose.
    input_closed: AtomicBool,
    /// Whether an abandoned request is withdrawn (see [`EngineConfig::withdraw_abandoned`]).
    withdraw_abandoned: AtomicBool,
    /// Cancelled when the connection ends; parent of every incoming request's token.
    shutdown: CancellationToken,
    /// The span the control round trips' spans go under (the session's); the caller's
    /// current span when none is set.
    trace_parent: Mutex<Option<tracing::Span>>,
}

impl ConnectionState {
    /// The parent of a new control round trip's span.
    pub(crate) fn trace_parent(&self) -> tracing::Span {
        lock(&self.trace_parent)
            .clone()
            .unwrap_or_else(tracing::Span::current)
    }
}

impl Drop for ConnectionState {
    /// The last handle is gone (every `Connection` and the reader): what was sent is written,
    /// then the peer's input is closed.
    fn drop(&mut self) {
        self.outbox.close();
    }
}

impl Connection {
    /// Starts the engine over `reader` (the peer's output) and `writer` (the peer's input).
    /// `handler` serves the peer's requests; `end_cause` says why the peer's output ended.
    /// Must be called inside a Tokio runtime.
    pub fn start<S, R, W>(
        reader: R,
        writer: W,
        handler: Arc<dyn ControlHandler>,
        config: EngineConfig,
        end_cause: EndCause,
    ) -> (Connection, Inbound<S::Inbound>)
    where
        S: Side,
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        Self::start_observed::<S, R, W>(reader, writer, handler, config, end_cause, None)
    }

    /// Like [`Connection::start`], with an observer of the data plane.
    pub fn start_observed<S, R, W>(
        reader: R,
        writer: W,
        handler: Arc<dyn ControlHandler>,
        config: EngineConfig,
        end_cause: EndCause,
        observer: Option<Observer<S::Inbound>>,
    ) -> (Connection, Inbound<S::Inbound>)
    where
        S: Side,
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let watchers = Watchers {
            observer,
            ..Watchers::default()
        };
        Self::start_watched::<S, R, W>(reader, writer, handler, config, end_cause, watchers)
    }

    /// Like [`Connection::start_observed`], with taps on the lines.
    pub(crate) fn start_watched<S, R, W>(
        reader: R,
        writer: W,
        handler: Arc<dyn ControlHandler>,
        config: EngineConfig,
        end_cause: EndCause,
        watchers: Watchers<S::Inbound>,
    ) -> (Connection, Inbound<S::Inbound>)
    where
        S: Side,
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (outbox, writer_task) = Outbox::new(writer);
        let (data_tx, data_rx) = mpsc::unbounded_channel();
        let shared = Arc::new(ConnectionState {
            pending: Mutex::new(Pending::new(config.recent_ids)),
            peer_requests: Mutex::new(HashMap::new()),
            budget: ByteBudget::new(config.max_buffered_bytes),
            withdraw_abandoned: AtomicBool::new(config.withdraw_abandoned),
            config,
            outbox,
            next_id: AtomicU64::new(1),
            closed: watch::channel(None).0,
            input_closed: AtomicBool::new(false),
            shutdown: CancellationToken::new(),
            trace_parent: Mutex::new(None),
        });
        tokio::spawn(writer_task);
        tokio::spawn(reader::run::<S, R>(
            reader,
            Arc::clone(&shared),
            handler,
            data_tx,
            end_cause,
            watchers,
        ));
        let inbound = Inbound::new(data_rx, S::decode, Arc::clone(&shared));
        (Connection { shared }, inbound)
    }

    /// Writes one frame (any serializable wire value) to the peer, after every frame sent
    /// before it. Returns once it is queued.
    pub fn send<T: Serialize + ?Sized>(&self, frame: &T) -> Result<()> {
        self.send_line(frames::line(frame)?)
    }

    /// Writes one pre-serialized line (it must end with `\n`).
    pub fn send_line(&self, line: Vec<u8>) -> Result<()> {
        self.shared
            .outbox
            .line(line)
            .map_err(|_| self.closed_cause().unwrap_or(Error::Closed))
    }

    /// Finishes writing: frames already sent are written, then the peer's input is closed.
    pub fn close_input(&self) {
        self.shared.input_closed.store(true, Ordering::SeqCst);
        self.shared.outbox.close();
    }

    /// Why a frame could not be sent: [`Error::Closed`] if we closed the peer's input; else
    /// its input is gone with its output, and the cause of that end is waited for, up to
    /// `limit` (for a process: its exit status and stderr tail, which take a moment to come).
    pub async fn send_failure_cause(&self, limit: Duration) -> Error {
        if let Some(cause) = self.closed_cause() {
            return cause;
        }
        if self.shared.input_closed.load(Ordering::SeqCst) {
            return Error::Closed;
        }
        tokio::time::timeout(limit, self.closed())
            .await
            .unwrap_or(Error::Closed)
    }

    /// Whether the peer's output has ended.
    pub fn is_closed(&self) -> bool {
        self.shared.closed.borrow().is_some()
    }

    /// Why the peer's output ended, once it has.
    pub fn closed_cause(&self) -> Option<Error> {
        self.shared.closed.borrow().clone()
    }

    /// Waits until the peer's output has ended and returns why.
    pub async fn closed(&self) -> Error {
        let mut rx = self.shared.closed.subscribe();
        loop {
            if let Some(cause) = rx.borrow_and_update().clone() {
                return cause;
            }
            if rx.changed().await.is_err() {
                return Error::Closed;
            }
        }
    }

    /// How many of our requests are waiting for an answer.
    pub fn pending_requests(&self) -> usize {
        lock(&self.shared.pending).len()
    }

    /// Puts the spans of the control round trips from now on under `span` (the session's).
    pub(crate) fn trace_under(&self, span: tracing::Span) {
        *lock(&self.shared.trace_parent) = Some(span);
    }

    /// Lets go of the session's span, so that it ends when the session does and not when the
    /// last handle on the connection is dropped.
    pub(crate) fn end_trace(&self) {
        *lock(&self.shared.trace_parent) = Some(tracing::Span::none());
    }
}

/// Locks a mutex, recovering the data if a panicking thread poisoned it (the maps stay
/// consistent: every operation on them is a single insert or remove).
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs `future` to completion unless `token` is cancelled first.
pub(crate) async fn unless_cancelled<F: Future>(
    token: &CancellationToken,
    future: F,
) -> Option<F::Output> {
    // Cancellation first: a future woken by the same cancellation must not win the race and
    // answer a request the peer has already withdrawn.
    tokio::select! {
        biased;
        _ = token.cancelled() => None,
        output = future => Some(output),
    }
}

#[cfg(test)]
mod tests;
