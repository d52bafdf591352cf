//! Requests the fake sends to the host, and how each ended.

use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::{json, Map, Value};
use twinwire::agent::Peer;
use twinwire::protocol::control::{ControlRequestBody, RequestId};
use twinwire::protocol::Unknown;

use super::state::FakeState;

/// How long the engine may wait for an answer: as long as the process lives. The fake gives up
/// on its own terms (and withdraws the request itself, as the script says).
const FOREVER: Duration = Duration::from_secs(365 * 24 * 3600);

/// How an outgoing request ended.
pub(crate) enum Answer {
    /// The host answered; the whole `response` object (`{"subtype":…,"request_id":…,…}`).
    Response(Value),
    /// Nothing arrived in time.
    TimedOut,
    /// Stdin closed before an answer arrived.
    Closed,
    /// The turn was interrupted while waiting.
    Interrupted,
}

/// The engine's side of a request: its answer, or why there is none.
type EngineAnswer = BoxFuture<'static, twinwire::Result<Option<Value>>>;

/// A request the fake sent, waiting for its answer.
pub(crate) struct Pending {
    /// The id the request went out with (empty if it could not be written).
    pub(crate) id: String,
    /// The engine waiting for the answer, until it has one.
    answer: Option<EngineAnswer>,
    outcome: Option<twinwire::Result<Option<Value>>>,
}

impl Pending {
    /// Write a control request (`{"subtype": …, …}`, sent as is). The engine is told to wait
    /// as long as the process lives, so it never withdraws the request: the fake does, when
    /// and how the script says (see [`Pending::abandon`]).
    pub(crate) async fn send(shared: &FakeState, peer: &Peer, request: Map<String, Value>) -> Self {
        let subtype = request
            .get("subtype")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        // Typed when it parses, so it is written as the CLI writes it (`subtype` and every
        // nested `type` first); as is when the script sends something malformed on purpose.
        let body = serde_json::from_value::<ControlRequestBody>(Value::Object(request.clone()))
            .unwrap_or(ControlRequestBody::Unknown(Unknown {
                tag: subtype,
                raw: request,
            }));
        match peer.start_request(body, FOREVER) {
            Ok(outgoing) => {
                let id = match outgoing.id() {
                    RequestId::Text(text) => text.clone(),
                    other => other.to_string(),
                };
                // Before the host can answer: the line is only queued so far.
                shared.requests.wait_for(&id);
                Self {
                    id,
                    answer: Some(Box::pin(async move {
                        outgoing.answer().await.map(|success| success.response)
                    })),
                    outcome: None,
                }
            }
            Err(err) => Self {
                id: String::new(),
                answer: None,
                outcome: Some(Err(err)),
            },
        }
    }

    /// Wait up to `timeout` (and, given a turn's session, until it is interrupted).
    pub(crate) async fn wait(
        &mut self,
        shared: &FakeState,
        timeout: Duration,
        interruptible: Option<&Peer>,
    ) -> Answer {
        if let Some(answer) = &mut self.answer {
            let interrupted = async {
                match interruptible {
                    Some(session) => session.interrupted().cancelled().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                outcome = answer => {
                    self.outcome = Some(outcome);
                    self.answer = None;
                }
                () = tokio::time::sleep(timeout) => return Answer::TimedOut,
                () = interrupted => return Answer::Interrupted,
            }
        }
        let whole = shared.requests.take_answer(&self.id);
        match &self.outcome {
            Some(Ok(payload)) => Answer::Response(whole.unwrap_or_else(
                || json!({"subtype": "success", "request_id": self.id, "response": payload}),
            )),
            Some(Err(twinwire::Error::Control { message, code, .. })) => {
                Answer::Response(whole.unwrap_or_else(|| {
                    let mut error =
                        json!({"subtype": "error", "request_id": self.id, "error": message});
                    if let (Some(code), Value::Object(map)) = (code, &mut error) {
                        map.insert("error_code".into(), json!(code));
                    }
                    error
                }))
            }
            _ => Answer::Closed,
        }
    }

    /// Give up on the answer: a later one is recorded as answering nobody. The engine keeps
    /// waiting in a task of its own, so that it does not withdraw the request on its own
    /// terms (whether and how it is withdrawn is the script's business).
    pub(crate) fn abandon(mut self, shared: &FakeState) {
        shared.requests.forget(&self.id);
        if let Some(answer) = self.answer.take() {
            tokio::spawn(async move {
                let _ = answer.await;
            });
        }
    }
}
