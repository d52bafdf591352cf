//! Our requests to the peer: an id, a place among the pending requests, the line, then the
//! answer (or the timeout, or the end of the connection). A request whose caller stops
//! waiting is withdrawn.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::Value;
use tokio::sync::oneshot;
use tracing::Instrument;
use twinwire_protocol::control::{
    ControlRequestBody, ControlRequestKind, ControlSuccess, RequestId,
};

use super::{frames, lock, Connection, ConnectionState};
use crate::error::{Error, Result};
use crate::trace;

/// One of our requests, written (or failed to be), its answer still to come. Dropping it
/// before the answer withdraws the request (see
/// [`EngineConfig::withdraw_abandoned`](super::EngineConfig::withdraw_abandoned)).
#[must_use = "dropping the request withdraws it"]
pub struct Outgoing {
    id: RequestId,
    answer: BoxFuture<'static, Result<ControlSuccess>>,
}

impl std::fmt::Debug for Outgoing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outgoing")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl Outgoing {
    /// The id the request went out with.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// Waits for the whole success answer: an error answer is [`Error::Control`], no answer in
    /// time [`Error::Timeout`], the end of the connection its cause.
    pub async fn answer(self) -> Result<ControlSuccess> {
        self.answer.await
    }
}

impl Connection {
    /// How long a request waits for its answer unless told otherwise.
    pub(crate) fn request_timeout(&self) -> Duration {
        self.shared.config.request_timeout
    }

    /// Sends a typed control request and waits for its typed answer, within the configured
    /// timeout.
    pub async fn request<K: ControlRequestKind>(&self, request: K) -> Result<K::Response> {
        let timeout = self.shared.config.request_timeout;
        self.request_with_timeout(request, timeout).await
    }

    /// Like [`Connection::request`] with an explicit timeout.
    pub async fn request_with_timeout<K: ControlRequestKind>(
        &self,
        request: K,
        timeout: Duration,
    ) -> Result<K::Response> {
        let payload = self.request_body(request.into(), timeout).await?;
        // A response with no payload reads as an empty object, which every response type but
        // the permission and dialog decisions accepts; fields that do not fit are read
        // leniently (see `twinwire_protocol::lenient`).
        let payload = payload.unwrap_or_else(|| Value::Object(Default::default()));
        let decoded = twinwire_protocol::from_value::<K::Response>(payload)
            .map_err(|source| Error::Decode { line: 0, source })?;
        if !decoded.repairs.is_empty() {
            tracing::debug!(subtype = K::SUBTYPE, repairs = ?decoded.repairs, "read a response leniently");
        }
        Ok(decoded.value)
    }

    /// Sends any control request and waits for the raw payload of the answer.
    pub async fn request_body(
        &self,
        body: ControlRequestBody,
        timeout: Duration,
    ) -> Result<Option<Value>> {
        Ok(self.request_success(body, timeout).await?.response)
    }

    /// Sends any control request and waits for the whole success answer: its payload and the
    /// requests the peer lists as still waiting (`pending_permission_requests`, …).
    pub async fn request_success(
        &self,
        body: ControlRequestBody,
        timeout: Duration,
    ) -> Result<ControlSuccess> {
        self.start_request(body, timeout).answer().await
    }

    /// Sends any control request now and hands back its id with the wait for its answer: for
    /// a peer that must know the id (to withdraw the request itself, or to match the answer
    /// it sees in its own record of the wire).
    pub fn start_request(&self, body: ControlRequestBody, timeout: Duration) -> Outgoing {
        let span = trace::control(
            &self.shared.trace_parent(),
            trace::Direction::Outgoing,
            body.tag(),
        );
        let subtype = body.tag().to_owned();
        let id = RequestId::Text(format!(
            "req_{}",
            self.shared.next_id.fetch_add(1, Ordering::Relaxed)
        ));
        trace::record_request_id(&span, &id);
        let connection = self.clone();
        if let Some(cause) = self.closed_cause() {
            return Outgoing {
                id,
                answer: Box::pin(async move { Err(cause) }),
            };
        }
        let (tx, rx) = oneshot::channel();
        lock(&self.shared.pending).insert(id.clone(), tx);
        // A reader paused by a full budget reads on while a request waits for its answer.
        self.shared.budget.nudge();
        // From here on, leaving early (timeout, or the caller dropping the wait) withdraws the
        // request from the peer.
        let guard = PendingGuard {
            shared: Arc::clone(&self.shared),
            id: id.clone(),
            answered: false,
        };
        let written = self
            .shared
            .outbox
            .line(frames::request(id.clone(), body))
            .is_ok();
        let wait = async move {
            if !written {
                return Err(connection.send_failure_cause(timeout).await);
            }
            let mut guard = guard;
            match tokio::time::timeout(timeout, rx).await {
                Ok(Ok(outcome)) => {
                    guard.answered = true;
                    outcome.map_err(|err| match err {
                        Error::Control { message, code, .. } => Error::Control {
                            subtype,
                            message,
                            code,
                        },
                        other => other,
                    })
                }
                // The sender was dropped without an answer: the connection ended.
                Ok(Err(_)) => Err(connection.closed_cause().unwrap_or(Error::Closed)),
                Err(_) => Err(Error::Timeout { subtype, timeout }),
            }
        };
        let traced = span.clone();
        Outgoing {
            id,
            answer: Box::pin(
                async move {
                    let outcome = wait.await;
                    if let Err(err) = &outcome {
                        trace::record_error(&traced, trace::error_type(err));
                    }
                    outcome
                }
                .instrument(span),
            ),
        }
    }
}

/// Withdraws a request whose caller stopped waiting.
struct PendingGuard {
    shared: Arc<ConnectionState>,
    id: RequestId,
    /// The answer came: nothing to withdraw.
    answered: bool,
}

impl Drop for PendingGuard {
    fn drop(&mut self) {
        if self.answered {
            return;
        }
        let abandoned = lock(&self.shared.pending).abandon(&self.id);
        if abandoned && self.shared.withdraw_abandoned.load(Ordering::Relaxed) {
            let _ = self.shared.outbox.line(frames::cancel(self.id.clone()));
        }
    }
}
