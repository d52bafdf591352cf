//! [`Reply`]: the answer to one host request, written when and as often as the agent likes;
//! and the agent's output, watched so that the server knows when every frame is out.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde_json::Value;
use tokio::io::AsyncWrite;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use twinwire_protocol::control::{ControlError, ControlErrorCode, ControlResponse, RequestId};
use twinwire_protocol::Message;

use crate::engine::Connection;
use crate::error::Result;

/// The answer to one host request. Cheap to clone; every clone answers the same request.
///
/// A request method gets one in its [`crate::agent::RequestContext`]. Answers are written as the CLI
/// writes them (`{"type":"control_response","response":{"subtype":…}}`). Nothing stops an
/// answer from being written late, twice, or never: a host must cope with all three, and a
/// test double needs to produce them. A request nobody answers stays unanswered until the
/// host gives up on it.
#[derive(Clone)]
pub struct Reply {
    connection: Connection,
    request_id: RequestId,
    cancel: CancellationToken,
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reply")
            .field("request_id", &self.request_id)
            .finish_non_exhaustive()
    }
}

impl Reply {
    pub(crate) fn new(
        connection: Connection,
        request_id: RequestId,
        cancel: CancellationToken,
    ) -> Self {
        Self {
            connection,
            request_id,
            cancel,
        }
    }

    /// The host's id for the request.
    pub fn request_id(&self) -> &RequestId {
        &self.request_id
    }

    /// Cancelled when the host withdraws the request (`control_cancel_request`) or its input
    /// ends; the work answering it is stopped then.
    pub fn cancelled(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Writes a success answer carrying `payload`.
    pub fn success(&self, payload: Value) -> Result<()> {
        let response = ControlResponse::success(self.request_id.clone(), Some(payload));
        self.connection
            .send(&Message::ControlResponse(Box::new(response)))
    }

    /// Writes an error answer, with a machine-readable `code` such as `unsupported_request`.
    pub fn error(&self, message: &str, code: Option<&str>) -> Result<()> {
        let error = ControlError {
            request_id: self.request_id.clone(),
            error: message.to_owned(),
            error_code: code.map(ControlErrorCode::from),
            ..ControlError::default()
        };
        self.connection
            .send(&Message::ControlResponse(Box::new(ControlResponse::from(
                error,
            ))))
    }
}

/// Whether the writer the engine owns has been dropped, i.e. everything sent before
/// [`Connection::close_input`] has been written and the output closed.
#[derive(Debug)]
pub(crate) struct OutputState {
    closed: watch::Sender<bool>,
}

impl OutputState {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            closed: watch::channel(false).0,
        })
    }

    /// Waits until the output is closed.
    pub(crate) async fn closed(&self) {
        let mut closed = self.closed.subscribe();
        let _ = closed.wait_for(|closed| *closed).await;
    }
}

/// The agent's output, handed to the engine's writer task. The writer drops it when it is done
/// (input closed and flushed, or the host stopped reading), which is how the server learns that
/// the last frame is out: the engine offers no other signal.
pub(crate) struct WatchedOutput<W> {
    inner: W,
    state: Arc<OutputState>,
}

impl<W> WatchedOutput<W> {
    pub(crate) fn new(inner: W, state: Arc<OutputState>) -> Self {
        Self { inner, state }
    }
}

impl<W> Drop for WatchedOutput<W> {
    fn drop(&mut self) {
        self.state.closed.send_replace(true);
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for WatchedOutput<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
