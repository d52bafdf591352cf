//! The agent's shared state: the running turn, the queue of user messages that arrived
//! during it, and the answers to the host's requests.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use ccwire_protocol::control::{ControlRequestBody, InterruptResponse};
use ccwire_protocol::result::{ResultMessage, ResultSubtype, TerminalReason};
use ccwire_protocol::UserMessage;
use futures::future::BoxFuture;
use futures::FutureExt;
use serde_json::{json, Value};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::reply::{OutputState, Reply};
use super::session::{new_id, system_frame, Session, Turn};
use super::{Agent, Framing};
use crate::engine::{lock, Connection, ControlHandler, HandlerError, RequestContext};

/// How many resolved tool use ids are remembered, to drop repeated permission answers.
const RESOLVED_TOOL_USES: usize = 1000;

pub(crate) struct Shared {
    agent: Arc<dyn Agent>,
    framing: Framing,
    connection: OnceLock<Connection>,
    output: Arc<OutputState>,
    session_id: String,
    state: Mutex<State>,
    /// `true` while a turn runs.
    busy: watch::Sender<bool>,
    /// How many tasks started with `Session::spawn` are running.
    background: watch::Sender<usize>,
    pub(crate) resolved_tool_uses: Mutex<Bounded>,
}

#[derive(Default)]
struct State {
    turn: Option<CancellationToken>,
    queue: VecDeque<UserMessage>,
    env: BTreeMap<String, String>,
    model: Option<String>,
    turns: u64,
}

impl Shared {
    pub(crate) fn new(agent: Arc<dyn Agent>, output: Arc<OutputState>) -> Arc<Self> {
        Arc::new(Self {
            framing: agent.framing(),
            agent,
            connection: OnceLock::new(),
            output,
            session_id: new_id(),
            state: Mutex::new(State::default()),
            busy: watch::channel(false).0,
            background: watch::channel(0).0,
            resolved_tool_uses: Mutex::new(Bounded::new(RESOLVED_TOOL_USES)),
        })
    }

    pub(crate) fn framing(&self) -> Framing {
        self.framing
    }

    /// Writes what is queued, closes the output and waits until that is done.
    pub(crate) async fn close_output(&self) {
        if let Some(connection) = self.connection() {
            connection.close_input();
            self.output.closed().await;
        }
    }

    /// Runs `work` in its own task; [`Shared::finish`] waits for it.
    pub(crate) fn spawn(&self, work: BoxFuture<'static, ()>) {
        self.background.send_modify(|n| *n += 1);
        let background = self.background.clone();
        tokio::spawn(async move {
            // Counted down even if the work panics, so that the server still ends.
            struct Done(watch::Sender<usize>);
            impl Drop for Done {
                fn drop(&mut self) {
                    self.0.send_modify(|n| *n = n.saturating_sub(1));
                }
            }
            let _done = Done(background);
            work.await;
        });
    }

    pub(crate) fn attach(&self, connection: Connection) {
        let _ = self.connection.set(connection);
    }

    pub(crate) fn connection(&self) -> Option<&Connection> {
        self.connection.get()
    }

    pub(crate) fn session_id(&self) -> &str {
        &self.session_id
    }

    /// Writes a frame; a closed connection is not an error here (the host left).
    pub(crate) fn emit(&self, frame: &Value) {
        if let Some(connection) = self.connection() {
            let _ = connection.send(frame);
        }
    }

    /// A user message: starts a turn, or waits in the queue behind the running one.
    pub(crate) fn user_message(self: &Arc<Self>, message: UserMessage) {
        let mut state = lock(&self.state);
        if state.turn.is_some() {
            state.queue.push_back(message);
            if self.framing == Framing::Raw {
                return;
            }
            let position = state.queue.len();
            drop(state);
            self.emit(&system_frame(
                &self.session_id,
                "queued",
                json!({"position": position}),
            ));
            return;
        }
        self.start_turn(&mut state, message);
    }

    fn start_turn(self: &Arc<Self>, state: &mut State, message: UserMessage) {
        let cancel = CancellationToken::new();
        state.turn = Some(cancel.clone());
        state.turns += 1;
        self.busy.send_replace(true);
        let shared = Arc::clone(self);
        tokio::spawn(async move { shared.run_turn(message, cancel).await });
    }

    async fn run_turn(self: Arc<Self>, message: UserMessage, cancel: CancellationToken) {
        if self.framing == Framing::Raw {
            let session = Session::new(Arc::clone(&self), cancel);
            if let Err(error) = self.agent.run_turn(Turn { message }, session).await {
                tracing::warn!(%error, "turn failed");
            }
            self.next_turn();
            return;
        }
        let started = Instant::now();
        let model = lock(&self.state).model.clone();
        self.emit(&system_frame(
            &self.session_id,
            "session_state_changed",
            json!({"state": "running"}),
        ));
        self.emit(&system_frame(
            &self.session_id,
            "init",
            json!({"cwd": std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default(),
                   "tools": [], "mcp_servers": [], "model": model.unwrap_or_else(|| "ccwire-agent".to_owned()),
                   "permissionMode": "default", "slash_commands": [], "apiKeySource": "none",
                   "output_style": "default"}),
        ));
        let session = Session::new(Arc::clone(&self), cancel.clone());
        let turn = Turn { message };
        let run = self.agent.run_turn(turn, session);
        let outcome = tokio::select! {
            biased;
            _ = cancel.cancelled() => None,
            outcome = run => Some(outcome),
        };
        let result = match outcome {
            Some(Ok(result)) => result,
            Some(Err(error)) => {
                error_result(ResultSubtype::ErrorDuringExecution, vec![error.0], None)
            }
            None => {
                self.emit(&json!({"type": "user", "session_id": self.session_id, "uuid": new_id(),
                    "parent_tool_use_id": null,
                    "message": {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user]"}]}}));
                error_result(
                    ResultSubtype::ErrorDuringExecution,
                    Vec::new(),
                    Some(TerminalReason::AbortedStreaming),
                )
            }
        };
        self.emit(&self.finish_result(result, started));
        self.next_turn();
    }

    fn finish_result(&self, mut result: ResultMessage, started: Instant) -> Value {
        if result.session_id.is_empty() {
            result.session_id = self.session_id.clone();
        }
        if result.uuid.is_empty() {
            result.uuid = new_id();
        }
        if result.duration_ms == 0 {
            result.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        }
        let mut frame = serde_json::to_value(&result).unwrap_or_else(|_| json!({}));
        frame["type"] = json!("result");
        frame
    }

    /// After a turn: the queue starts the next one, or the session goes idle.
    fn next_turn(self: &Arc<Self>) {
        let mut state = lock(&self.state);
        state.turn = None;
        let next = match self.framing {
            Framing::Managed => super::session::join(state.queue.drain(..).collect()),
            Framing::Raw => state.queue.pop_front(),
        };
        if let Some(message) = next {
            self.start_turn(&mut state, message);
            return;
        }
        if self.framing == Framing::Raw {
            drop(state);
            self.busy.send_replace(false);
            return;
        }
        drop(state);
        self.emit(&system_frame(
            &self.session_id,
            "session_state_changed",
            json!({"state": "idle"}),
        ));
        self.busy.send_replace(false);
    }

    /// Takes every queued message (for injection at a model-call boundary).
    pub(crate) fn take_queue(&self) -> Vec<UserMessage> {
        lock(&self.state).queue.drain(..).collect()
    }

    pub(crate) fn update_env(&self, variables: BTreeMap<String, String>) {
        lock(&self.state).env.extend(variables);
    }

    pub(crate) fn env(&self) -> BTreeMap<String, String> {
        lock(&self.state).env.clone()
    }

    /// Waits until no turn runs, nothing is queued and no spawned work is left.
    pub(crate) async fn finish(&self) {
        let mut busy = self.busy.subscribe();
        let mut background = self.background.subscribe();
        loop {
            let _ = busy.wait_for(|busy| !busy).await;
            let _ = background.wait_for(|running| *running == 0).await;
            // Spawned work may have queued another turn meanwhile, or a turn spawned work.
            if !*busy.borrow() && *background.borrow() == 0 {
                return;
            }
        }
    }

    /// The receipt of an interrupt, and the running turn it is to cancel.
    fn interrupt(&self) -> (InterruptResponse, Option<CancellationToken>) {
        let state = lock(&self.state);
        let still_queued = state.queue.iter().filter_map(|m| m.uuid.clone()).collect();
        let receipt = InterruptResponse {
            still_queued: Some(still_queued),
            ..InterruptResponse::default()
        };
        (receipt, state.turn.clone())
    }
}

/// A result frame for a turn that did not succeed.
pub(crate) fn error_result(
    subtype: ResultSubtype,
    errors: Vec<String>,
    terminal_reason: Option<TerminalReason>,
) -> ResultMessage {
    ResultMessage {
        subtype,
        is_error: true,
        errors: Some(errors),
        terminal_reason,
        ..ResultMessage::default()
    }
}

/// Answers the host's requests: interrupt here, the rest by the agent.
pub(crate) struct AgentControl {
    shared: Arc<Shared>,
}

impl AgentControl {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        Self { shared }
    }
}

impl ControlHandler for AgentControl {
    fn handle(
        &self,
        request: ControlRequestBody,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let Some(connection) = self.shared.connection().cloned() else {
            return Box::pin(async { Err(HandlerError::new("the agent is not attached yet")) });
        };
        // Effects that happen however the request is answered. The turn an interrupt stops is
        // the one running now; it is cancelled below.
        let mut interrupted = None;
        let builtin = match &request {
            ControlRequestBody::Interrupt(_) => {
                let (receipt, turn) = self.shared.interrupt();
                interrupted = Some(turn);
                serde_json::to_value(receipt).ok()
            }
            ControlRequestBody::SetModel(request) => {
                lock(&self.shared.state).model = request.model.clone().flatten();
                Some(json!({}))
            }
            _ => None,
        };
        let reply = Reply::new(connection, cx.request_id.clone(), cx.cancel.clone());
        let session = Session::new(Arc::clone(&self.shared), CancellationToken::new());
        let answer = match self.shared.agent.respond(&request, &reply, &session) {
            Some(custom) => custom,
            None => {
                let standard = match (builtin, request) {
                    (Some(payload), _) => Box::pin(async move { Ok(payload) }),
                    (None, ControlRequestBody::Initialize(request)) => {
                        self.shared.agent.initialize(*request)
                    }
                    (None, other) => match self.shared.agent.handle_request(&other, &session) {
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
                        Err(error) => reply.error(&error.message, error.code.as_deref()),
                    };
                    if let Err(err) = written {
                        tracing::debug!(%err, "could not answer a host request");
                    }
                })
            }
        };
        // The answer is written through `Reply` (so that it can come late, twice or never, and
        // carries its `type` first as the CLI writes it). Cancelling the request's own token
        // once that work is done tells the engine not to answer it a second time.
        let done = cx.cancel;
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
            done.cancel();
            std::future::pending().await
        })
    }
}

/// A set that forgets its oldest members past a bound.
pub(crate) struct Bounded {
    order: VecDeque<String>,
    members: HashSet<String>,
    capacity: usize,
}

impl Bounded {
    fn new(capacity: usize) -> Self {
        Self {
            order: VecDeque::new(),
            members: HashSet::new(),
            capacity,
        }
    }

    pub(crate) fn contains(&self, id: &str) -> bool {
        self.members.contains(id)
    }

    pub(crate) fn insert(&mut self, id: &str) {
        if self.members.insert(id.to_owned()) {
            self.order.push_back(id.to_owned());
            if self.order.len() > self.capacity {
                if let Some(old) = self.order.pop_front() {
                    self.members.remove(&old);
                }
            }
        }
    }
}
