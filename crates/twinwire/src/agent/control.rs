//! Answering the host's requests on the agent side: each goes to the [`Agent`] method of its
//! kind ([`super::handler::dispatch`]); `initialize`, `interrupt` and `set_model` also act on
//! the session here, whatever the agent answers. The engine calls this in its reader, in the
//! order the host wrote the requests among its user messages (the inbox).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use futures::future::BoxFuture;
use futures::FutureExt;
use tokio_util::sync::CancellationToken;
use twinwire_protocol::control::{ControlRequestBody, ControlSuccess};
use twinwire_protocol::Message;

use super::handler::{dispatch, RequestContext};
use super::peer::Peer;
use super::reply::Reply;
use super::state::AgentState;
use super::Agent;
use crate::engine::{lock, Answer, ControlHandler, RequestContext as EngineContext};

/// Serves the host's requests with the agent.
pub(crate) struct AgentControl {
    state: Arc<AgentState>,
}

impl AgentControl {
    pub(crate) fn new(state: Arc<AgentState>) -> Self {
        Self { state }
    }
}

impl ControlHandler for AgentControl {
    fn handle(&self, request: ControlRequestBody, cx: EngineContext) -> BoxFuture<'static, Answer> {
        let state = &self.state;
        if state.connection().is_none() {
            state.attach(cx.connection().clone());
        }
        // Effects on the session, in the reader's order.
        let mut initializing = None;
        let mut interrupted = None;
        let mut repeated = false;
        match &request {
            ControlRequestBody::Initialize(_) => {
                initializing = Some(state.initialize_read());
                repeated = state.initializations.fetch_add(1, Ordering::SeqCst) > 0;
            }
            ControlRequestBody::Interrupt(_) => interrupted = Some(state.running()),
            ControlRequestBody::SetModel(set) => {
                lock(&state.turns).model = set.model.clone().flatten();
            }
            _ => {}
        }
        let reply = Reply::new(
            cx.connection().clone(),
            cx.request_id.clone(),
            cx.cancel.clone(),
        );
        let peer = Peer::new(Arc::clone(state), CancellationToken::new());
        let context = RequestContext::new(cx.request_id.clone(), cx.cancel.clone(), peer, reply);
        let agent: &dyn Agent = state.agent.as_ref();
        let mut answer = dispatch(agent, request, context);
        let again = repeated.then(|| {
            (
                Arc::clone(state),
                cx.connection().clone(),
                cx.request_id.clone(),
            )
        });
        Box::pin(async move {
            let _initializing = initializing;
            if let Some((state, connection, id)) = again {
                // A second `initialize` is answered with the requests still waiting for the
                // host, so that a host that attached anew can answer them.
                return match answer.await {
                    Answer::Respond(Ok(payload)) => {
                        let success = ControlSuccess {
                            request_id: id,
                            response: Some(payload),
                            pending_permission_requests: Some(
                                lock(&state.pending_permissions).clone(),
                            ),
                            pending_user_dialog_requests: Some(Vec::new()),
                            ..ControlSuccess::default()
                        };
                        let frame = Message::ControlResponse(Box::new(success.into()));
                        if let Err(error) = connection.send(&frame) {
                            tracing::debug!(%error, "the host left before initialize was answered");
                        }
                        Answer::AlreadyAnswered
                    }
                    other => other,
                };
            }
            if let Some(turn) = interrupted {
                // An answer ready at once goes out before the frames the stopped turn writes
                // as it ends, in the order the CLI writes them.
                let ready = (&mut answer).now_or_never();
                if let Some(turn) = turn {
                    turn.cancel();
                }
                return match ready {
                    Some(answer) => answer,
                    None => answer.await,
                };
            }
            answer.await
        })
    }
}
