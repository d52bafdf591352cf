//! The peer's requests, each served in its own task.

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use ccwire_protocol::control::ControlRequest;
use futures::FutureExt;
use serde::Serialize;
use serde_json::Value;

use super::{lock, unless_cancelled, ControlHandler, HandlerError, RequestContext, Shared};

/// Starts serving `request`. The answer is written when the handler finishes, unless the peer
/// withdrew the request or the connection ended first. A panicking handler is answered with an
/// error; the connection lives on.
///
/// The handler is polled once right here: an answer that is ready at once (a policy, a cached
/// decision, a callback with nothing to wait for) is written without a task, which saves a
/// hand-off between threads per request. Only a handler that has to wait gets its own task.
pub(crate) fn spawn(
    request: ControlRequest,
    shared: &Arc<Shared>,
    handler: &Arc<dyn ControlHandler>,
) {
    let id = request.request_id;
    let subtype = request.request.tag().to_owned();
    let token = shared.shutdown.child_token();
    let cx = RequestContext {
        request_id: id.clone(),
        cancel: token.clone(),
    };
    // A handler may panic before it returns its future, as well as while it runs.
    let mut future =
        match std::panic::catch_unwind(AssertUnwindSafe(|| handler.handle(request.request, cx))) {
            Ok(future) => AssertUnwindSafe(future).catch_unwind(),
            Err(panic) => {
                answer(shared, &id, &subtype, Some(Err(panic)));
                return;
            }
        };
    if let Some(outcome) = (&mut future).now_or_never() {
        answer(shared, &id, &subtype, Some(outcome));
        return;
    }
    // Registered before the reader reads on, so a cancel that follows finds it.
    lock(&shared.incoming).insert(id.clone(), token.clone());
    let shared = Arc::clone(shared);
    tokio::spawn(async move {
        let outcome = unless_cancelled(&token, future).await;
        lock(&shared.incoming).remove(&id);
        answer(&shared, &id, &subtype, outcome);
    });
}

type Outcome = std::thread::Result<Result<Value, HandlerError>>;

/// Writes the answer to a request, or nothing if it was withdrawn (`None`).
fn answer(shared: &Shared, id: &str, subtype: &str, outcome: Option<Outcome>) {
    let line = match outcome {
        None => {
            tracing::debug!(%id, %subtype, "request withdrawn; not answering");
            return;
        }
        Some(Ok(Ok(payload))) => success(id, &payload),
        Some(Ok(Err(error))) => failure(id, &error),
        Some(Err(panic)) => {
            let message = format!(
                "handler for `{subtype}` panicked: {}",
                panic_message(&*panic)
            );
            tracing::warn!(%id, "{message}");
            failure(id, &HandlerError::new(message))
        }
    };
    let _ = shared.outbox.line(line);
}

/// Answers a request with an error without serving it.
pub(crate) fn refuse(shared: &Shared, id: &str, message: &str) {
    let line = failure(id, &HandlerError::new(message));
    let _ = shared.outbox.line(line);
}

/// Stops serving a request the peer withdrew.
pub(crate) fn cancel(shared: &Shared, id: &str) {
    match lock(&shared.incoming).remove(id) {
        Some(token) => token.cancel(),
        None => tracing::debug!(%id, "cancel for a request not being served"),
    }
}

/// A `control_response` frame, as it goes on the wire.
#[derive(Serialize)]
struct ResponseFrame<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    response: ResponseBody<'a>,
}

#[derive(Serialize)]
#[serde(tag = "subtype", rename_all = "lowercase")]
enum ResponseBody<'a> {
    Success {
        request_id: &'a str,
        response: &'a Value,
    },
    Error {
        request_id: &'a str,
        error: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        error_code: Option<&'a str>,
    },
}

fn encode(body: ResponseBody<'_>) -> Vec<u8> {
    let frame = ResponseFrame {
        kind: "control_response",
        response: body,
    };
    // Plain data with string keys: serializing it cannot fail.
    let mut line = serde_json::to_vec(&frame).unwrap_or_default();
    line.push(b'\n');
    line
}

fn success(id: &str, payload: &Value) -> Vec<u8> {
    encode(ResponseBody::Success {
        request_id: id,
        response: payload,
    })
}

fn failure(id: &str, error: &HandlerError) -> Vec<u8> {
    encode(ResponseBody::Error {
        request_id: id,
        error: &error.message,
        error_code: error.code.as_deref(),
    })
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
