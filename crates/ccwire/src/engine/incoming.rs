//! The peer's requests, each served in its own task.

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use ccwire_protocol::control::ControlRequest;
use futures::FutureExt;
use serde_json::{json, Value};

use super::{lock, unless_cancelled, ControlHandler, HandlerError, RequestContext, Shared};

/// Starts serving `request`. The answer is written when the handler finishes, unless the peer
/// withdrew the request or the connection ended first. A panicking handler is answered with an
/// error; the connection lives on.
pub(crate) fn spawn(
    request: ControlRequest,
    shared: &Arc<Shared>,
    handler: &Arc<dyn ControlHandler>,
) {
    let id = request.request_id;
    let subtype = request.request.tag().to_owned();
    let token = shared.shutdown.child_token();
    lock(&shared.incoming).insert(id.clone(), token.clone());
    let cx = RequestContext {
        request_id: id.clone(),
        cancel: token.clone(),
    };
    let future = handler.handle(request.request, cx);
    let shared = Arc::clone(shared);
    tokio::spawn(async move {
        let outcome = unless_cancelled(&token, AssertUnwindSafe(future).catch_unwind()).await;
        lock(&shared.incoming).remove(&id);
        let response = match outcome {
            None => {
                tracing::debug!(%id, %subtype, "request withdrawn; not answering");
                return;
            }
            Some(Ok(Ok(payload))) => success(&id, payload),
            Some(Ok(Err(error))) => failure(&id, &error),
            Some(Err(panic)) => {
                let message = format!(
                    "handler for `{subtype}` panicked: {}",
                    panic_message(&*panic)
                );
                tracing::warn!(%id, "{message}");
                failure(&id, &HandlerError::new(message))
            }
        };
        let mut line = response.to_string().into_bytes();
        line.push(b'\n');
        let _ = shared.writer.send(super::WriterCommand::Line(line));
    });
}

/// Answers a request with an error without serving it.
pub(crate) fn refuse(shared: &Shared, id: &str, message: &str) {
    let response = failure(id, &HandlerError::new(message));
    let mut line = response.to_string().into_bytes();
    line.push(b'\n');
    let _ = shared.writer.send(super::WriterCommand::Line(line));
}

/// Stops serving a request the peer withdrew.
pub(crate) fn cancel(shared: &Shared, id: &str) {
    match lock(&shared.incoming).remove(id) {
        Some(token) => token.cancel(),
        None => tracing::debug!(%id, "cancel for a request not being served"),
    }
}

fn success(id: &str, payload: Value) -> Value {
    json!({
        "type": "control_response",
        "response": {"subtype": "success", "request_id": id, "response": payload},
    })
}

fn failure(id: &str, error: &HandlerError) -> Value {
    let mut response = json!({"subtype": "error", "request_id": id, "error": error.message});
    if let Some(code) = &error.code {
        response["error_code"] = Value::String(code.clone());
    }
    json!({"type": "control_response", "response": response})
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
