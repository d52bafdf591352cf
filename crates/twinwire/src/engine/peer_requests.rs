//! The peer's requests, each served in its own task.

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use futures::FutureExt;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;
use twinwire_protocol::control::{ControlRequest, RequestId};

use crate::trace::{self, Direction};

use super::{
    frames, lock, unless_cancelled, Answer, ConnectionState, ControlHandler, HandlerError,
    RequestContext,
};

/// Starts serving `request`. The answer is written when the handler finishes, unless the peer
/// withdrew the request or the connection ended first. A panicking handler is answered with an
/// error; the connection lives on. A request whose body could not be typed is answered with
/// an error that says why, without reaching the handler.
///
/// The handler is polled once right here: an answer that is ready at once (a policy, a cached
/// decision, a callback with nothing to wait for) is written without a task, which saves a
/// hand-off between threads per request. Only a handler that has to wait gets its own task.
pub(crate) fn spawn(
    request: ControlRequest,
    shared: &Arc<ConnectionState>,
    handler: &Arc<dyn ControlHandler>,
) {
    let id = request.request_id;
    let subtype = request.request.tag().to_owned();
    if let Some(malformed) = request.request.as_malformed() {
        tracing::warn!(%id, %malformed, "answering a malformed control request with an error");
        refuse(
            shared,
            id,
            &format!("malformed control request: {malformed}"),
        );
        return;
    }
    let token = shared.shutdown.child_token();
    let cx = RequestContext {
        request_id: id.clone(),
        cancel: token.clone(),
        connection: super::Connection {
            shared: Arc::clone(shared),
        },
    };
    let span = trace::control(&shared.trace_parent(), Direction::Incoming, &subtype);
    trace::record_request_id(&span, &id);
    // A handler may panic before it returns its future, as well as while it runs.
    let handled = span.in_scope(|| {
        std::panic::catch_unwind(AssertUnwindSafe(|| handler.handle(request.request, cx)))
    });
    let mut future = match handled {
        Ok(future) => AssertUnwindSafe(future)
            .catch_unwind()
            .instrument(span.clone()),
        Err(panic) => {
            answer(shared, id, &subtype, Some(Err(panic)), &span);
            return;
        }
    };
    if let Some(outcome) = (&mut future).now_or_never() {
        answer(shared, id, &subtype, Some(outcome), &span);
        return;
    }
    // Registered before the reader reads on, so a cancel that follows finds it.
    let serial = register(shared, &id, &token);
    let shared = Arc::clone(shared);
    tokio::spawn(async move {
        let outcome = unless_cancelled(&token, future).await;
        unregister(&shared, &id, serial);
        answer(&shared, id, &subtype, outcome, &span);
    });
}

/// Remembers the token of a request being served, under a serial number of its own. A peer
/// that reuses an id while the first request is still served gets both served; each keeps its
/// own token, and a cancel for the id reaches both.
fn register(shared: &ConnectionState, id: &RequestId, token: &CancellationToken) -> u64 {
    static SERIAL: AtomicU64 = AtomicU64::new(0);
    let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
    let mut serving = lock(&shared.peer_requests);
    let tokens = serving.entry(id.clone()).or_default();
    if !tokens.is_empty() {
        tracing::warn!(%id, "the peer reused the id of a request still being served");
    }
    tokens.push((serial, token.clone()));
    serial
}

fn unregister(shared: &ConnectionState, id: &RequestId, serial: u64) {
    let mut serving = lock(&shared.peer_requests);
    if let Some(tokens) = serving.get_mut(id) {
        tokens.retain(|(other, _)| *other != serial);
        if tokens.is_empty() {
            serving.remove(id);
        }
    }
}

type Outcome = std::thread::Result<Answer>;

/// Writes the answer to a request, or nothing if it was withdrawn (`None`) or the handler
/// answered it itself.
/// `span` is the request's round trip, told what went wrong.
fn answer(
    shared: &ConnectionState,
    id: RequestId,
    subtype: &str,
    outcome: Option<Outcome>,
    span: &tracing::Span,
) {
    let line = match outcome {
        None => {
            tracing::debug!(%id, %subtype, "request withdrawn; not answering");
            trace::record_error(span, "cancelled");
            return;
        }
        Some(Ok(Answer::AlreadyAnswered)) => return,
        Some(Ok(Answer::Respond(Ok(payload)))) => frames::success(id, payload),
        Some(Ok(Answer::Respond(Err(error)))) => {
            trace::record_error(span, error.code.as_deref().unwrap_or("handler_error"));
            frames::failure(id, &error)
        }
        Some(Err(panic)) => {
            trace::record_error(span, "panic");
            let message = format!(
                "handler for `{subtype}` panicked: {}",
                panic_message(&*panic)
            );
            tracing::warn!(%id, "{message}");
            frames::failure(id, &HandlerError::new(message))
        }
    };
    let _ = shared.outbox.line(line);
}

/// Answers a request with an error without serving it.
pub(crate) fn refuse(shared: &ConnectionState, id: RequestId, message: &str) {
    let line = frames::failure(id, &HandlerError::new(message));
    let _ = shared.outbox.line(line);
}

/// Stops serving a request the peer withdrew (every request in flight with that id).
pub(crate) fn cancel(shared: &ConnectionState, id: &RequestId) {
    match lock(&shared.peer_requests).remove(id) {
        Some(tokens) => tokens.iter().for_each(|(_, token)| token.cancel()),
        None => tracing::debug!(%id, "cancel for a request not being served"),
    }
}

pub(crate) fn panic_message(panic: &(dyn Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_owned()
    }
}
