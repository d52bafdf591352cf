//! The agent's shared state: the running turn, the queue of user messages that arrived
//! during it, and the answers to the host's requests.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use ccwire_protocol::control::{ControlRequestBody, InterruptResponse};
use ccwire_protocol::result::{ResultMessage, ResultSubtype, TerminalReason};
use ccwire_protocol::UserMessage;
use futures::future::BoxFuture;
use serde_json::{json, Value};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::session::{new_id, system_frame, Session, Turn};
use super::Agent;
use crate::engine::{lock, Connection, ControlHandler, HandlerError, RequestContext};

/// How many resolved tool use ids are remembered, to drop repeated permission answers.
const RESOLVED_TOOL_USES: usize = 1000;

pub(crate) struct Shared {
    agent: Arc<dyn Agent>,
    connection: OnceLock<Connection>,
    session_id: String,
    state: Mutex<State>,
    /// `true` while a turn runs.
    busy: watch::Sender<bool>,
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
    pub(crate) fn new(agent: Arc<dyn Agent>) -> Arc<Self> {
        Arc::new(Self {
            agent,
            connection: OnceLock::new(),
            session_id: new_id(),
            state: Mutex::new(State::default()),
            busy: watch::channel(false).0,
            resolved_tool_uses: Mutex::new(Bounded::new(RESOLVED_TOOL_USES)),
        })
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
        if let Some(message) = super::session::join(state.queue.drain(..).collect()) {
            self.start_turn(&mut state, message);
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

    /// Waits until no turn runs and nothing is queued.
    pub(crate) async fn finish(&self) {
        let mut busy = self.busy.subscribe();
        let _ = busy.wait_for(|busy| !busy).await;
    }

    fn interrupt(&self) -> InterruptResponse {
        let state = lock(&self.state);
        if let Some(turn) = &state.turn {
            turn.cancel();
        }
        let still_queued = state.queue.iter().filter_map(|m| m.uuid.clone()).collect();
        InterruptResponse {
            still_queued: Some(still_queued),
            ..InterruptResponse::default()
        }
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
        _cx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        match request {
            ControlRequestBody::Interrupt(_) => {
                let response = self.shared.interrupt();
                Box::pin(async move {
                    serde_json::to_value(response).map_err(|e| HandlerError::new(e.to_string()))
                })
            }
            ControlRequestBody::Initialize(request) => self.shared.agent.initialize(*request),
            ControlRequestBody::SetModel(request) => {
                lock(&self.shared.state).model = request.model.flatten();
                Box::pin(async { Ok(json!({})) })
            }
            other => {
                let session = Session::new(Arc::clone(&self.shared), CancellationToken::new());
                match self.shared.agent.handle_request(&other, &session) {
                    Some(answer) => answer,
                    None => {
                        let error = HandlerError::unsupported(other.tag());
                        Box::pin(async move { Err(error) })
                    }
                }
            }
        }
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
