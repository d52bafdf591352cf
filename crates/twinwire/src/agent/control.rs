//! Answering the host's requests on the agent side: `interrupt` and `set_model` act on the
//! session here; the rest go to the agent ([`Agent::respond`](super::Agent::respond),
//! [`Agent::initialize`](super::Agent::initialize),
//! [`Agent::handle_request`](super::Agent::handle_request)), or are unsupported.

use std::sync::Arc;

use futures::future::BoxFuture;
use futures::FutureExt;
use serde_json::json;
use tokio_util::sync::CancellationToken;
use twinwire_protocol::control::ControlRequestBody;

use super::peer::Peer;
use super::reply::Reply;
use super::state::AgentState;
use crate::engine::{lock, Answer, ControlHandler, HandlerError, RequestContext};

/// Answers the host's requests: interrupt here, the rest by the agent.
pub(crate) struct AgentControl {
    state: Arc<AgentState>,
}

impl AgentControl {
    pub(crate) fn new(state: Arc<AgentState>) -> Self {
        Self { state }
    }
}

impl ControlHandler for AgentControl {
    fn handle(
        &self,
        request: ControlRequestBody,
        cx: RequestContext,
    ) -> BoxFuture<'static, Answer> {
        // The reader dispatches a request as it reads it, while the user messages read before
        // it may still wait for `serve` to start their turn: an interrupt waits for them, so
        // that it stops the turn of a prompt sent just before it.
        if matches!(request, ControlRequestBody::Interrupt(_)) {
            let read = self.state.users_read();
            let state = Arc::clone(&self.state);
            return Box::pin(async move {
                state.users_taken(read).await;
                AgentControl { state }.answer(request, cx).await
            });
        }
        self.answer(request, cx)
    }
}

impl AgentControl {
    /// Answers `request` now.
    fn answer(
        &self,
        request: ControlRequestBody,
        cx: RequestContext,
    ) -> BoxFuture<'static, Answer> {
        let Some(connection) = self.state.connection().cloned() else {
            // Served as soon as `serve` has attached the connection.
            let state = Arc::clone(&self.state);
            return Box::pin(async move {
                state.attached().await;
                AgentControl { state }.answer(request, cx).await
            });
        };
        // Effects that happen however the request is answered. The turn an interrupt stops is
        // the one running now; it is cancelled below.
        let mut interrupted = None;
        let builtin = match &request {
            ControlRequestBody::Interrupt(_) => {
                let (receipt, turn) = self.state.interrupt();
                interrupted = Some(turn);
                serde_json::to_value(receipt).ok()
            }
            ControlRequestBody::SetModel(request) => {
                lock(&self.state.turns).model = request.model.clone().flatten();
                Some(json!({}))
            }
            _ => None,
        };
        let reply = Reply::new(connection, cx.request_id.clone(), cx.cancel.clone());
        let session = Peer::new(Arc::clone(&self.state), CancellationToken::new());
        let answer = match self.state.agent.respond(&request, &reply, &session) {
            Some(custom) => custom,
            None => {
                let standard = match (builtin, request) {
                    (Some(payload), _) => Box::pin(async move { Ok(payload) }),
                    (None, ControlRequestBody::Initialize(request)) => {
                        self.state.agent.initialize(*request)
                    }
                    (None, other) => match self.state.agent.handle_request(&other, &session) {
                        Some(answer) => answer,
                        None => {
                            let error = HandlerError::unsupported(other.tag());
                            Box::pin(async move { Err(error) })
                        }
                    },
                };
                Box::pin(async move {
                    let written = match standard.await {
                        Ok(payload) => reply.success(payload),
                        Err(error) => {
                            // Polled inside the engine's span of this round trip.
                            let error_type = error.code.as_deref().unwrap_or("handler_error");
                            crate::trace::record_error(&tracing::Span::current(), error_type);
                            reply.error(&error.message, error.code.as_deref())
                        }
                    };
                    if let Err(err) = written {
                        tracing::debug!(%err, "could not answer a host request");
                    }
                })
            }
        };
        // The answer is written through `Reply` (so that it can come late, twice or never, and
        // carries its `type` first as the CLI writes it): the engine writes nothing more.
        Box::pin(async move {
            let mut answer = answer;
            match interrupted {
                Some(turn) => {
                    // An answer ready at once goes out before the frames the cancelled turn
                    // writes as it ends, in the order the CLI writes them.
                    let finished = (&mut answer).now_or_never().is_some();
                    if let Some(turn) = turn {
                        turn.cancel();
                    }
                    if !finished {
                        answer.await;
                    }
                }
                None => answer.await,
            }
            Answer::AlreadyAnswered
        })
    }
}
