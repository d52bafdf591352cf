//! [`Peer`]: what a running turn uses to write frames and to ask the host.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;
use twinwire_protocol::control::{
    CanUseToolRequest, ControlFrame, ControlRequest, ControlRequestBody, ControlRequestKind,
    ElicitationRequest, ElicitationResponse, HookCallbackRequest, McpMessageRequest, RequestId,
};
use twinwire_protocol::hooks::{HookInput, HookOutput};
use twinwire_protocol::permission::PermissionResult;
use twinwire_protocol::result::{ResultMessage, ResultSubtype};
use twinwire_protocol::{Message, UserMessage};

use super::frames;
use super::state::{content_text, join, AgentState};
use super::TurnOutcome;
use crate::engine::{lock, Outgoing};
use crate::error::{Error, Result};

/// The user message that started a turn.
#[derive(Debug, Clone)]
pub struct Turn {
    /// The message as the host sent it.
    pub message: UserMessage,
}

impl Turn {
    /// The message's text (text blocks joined).
    pub fn text(&self) -> String {
        content_text(&self.message.message.content)
    }
}

/// The session as an agent sees it: what a turn (or a request's answer) uses to write frames
/// and to ask the host. The mirror of the host's [`Client`](crate::host::Client). Cheap to clone.
#[derive(Clone)]
pub struct Peer {
    state: Arc<AgentState>,
    cancel: CancellationToken,
}

impl std::fmt::Debug for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peer")
            .field("session_id", &self.state.session_id())
            .finish_non_exhaustive()
    }
}

impl Peer {
    pub(crate) fn new(state: Arc<AgentState>, cancel: CancellationToken) -> Self {
        Self { state, cancel }
    }

    /// The session id written on every frame.
    pub fn session_id(&self) -> &str {
        self.state.session_id()
    }

    /// Cancelled when the host interrupts this turn.
    pub fn interrupted(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Environment variables the host set with `update_environment_variables`.
    pub fn env(&self) -> BTreeMap<String, String> {
        self.state.env()
    }

    /// The model the host set with `set_model`, if any.
    pub fn model(&self) -> Option<String> {
        self.state.model()
    }

    /// The uuids of the user messages waiting behind the running turn.
    pub fn queued_uuids(&self) -> Vec<String> {
        self.state.queued_uuids()
    }

    /// Withdraws the queued user message with this uuid before any turn takes it (the host's
    /// `cancel_async_message`); `false` if no queued message has it (it was taken already, or
    /// never came).
    pub fn withdraw_queued(&self, uuid: &str) -> bool {
        self.state.withdraw_queued(uuid)
    }

    /// The `can_use_tool` requests sent to the host and not yet answered, in the order sent
    /// (an `initialize` sent again lists them, as Claude Code does).
    pub fn pending_permission_requests(&self) -> Vec<ControlRequest> {
        lock(&self.state.pending_permissions).clone()
    }

    /// Writes a frame (build it with [`super::frames`]).
    pub fn emit(&self, frame: &Message) -> Result<()> {
        self.connection()?.send(frame)
    }

    /// Writes one pre-serialized line as is (it must end with `\n`): a batch of frames
    /// serialized once, or, to test a host, a line that is not JSON at all.
    pub fn send_line(&self, line: Vec<u8>) -> Result<()> {
        self.connection()?.send_line(line)
    }

    /// Writes an assistant frame with one text block.
    pub fn say(&self, text: &str) -> Result<()> {
        self.emit(&frames::assistant_text(self.session_id(), text))
    }

    /// A success result with `text`, to return from a turn.
    pub fn success(&self, text: &str) -> TurnOutcome {
        Ok(ResultMessage {
            subtype: ResultSubtype::Success,
            result: Some(text.to_owned()),
            num_turns: 1,
            ..ResultMessage::default()
        })
    }

    /// The user messages that arrived during this turn, joined into one (blank lines
    /// between), with a `system/injected` notice; `None` if none did. Call it at a model-call
    /// boundary.
    pub fn take_queued(&self) -> Option<UserMessage> {
        let queued = self.state.take_queue();
        let count = queued.len();
        let joined = join(queued)?;
        let length = content_text(&joined.message.content).len();
        self.state
            .emit(&frames::injected(self.session_id(), count, length));
        Some(joined)
    }

    /// Sends any typed request to the host and waits for its typed answer.
    pub async fn request<K: ControlRequestKind>(&self, request: K) -> Result<K::Response> {
        self.connection()?.request(request).await
    }

    /// Like [`Peer::request`], waiting at most `timeout` for the answer; when the time is
    /// up the request is withdrawn with `control_cancel_request`.
    pub async fn request_with_timeout<K: ControlRequestKind>(
        &self,
        request: K,
        timeout: Duration,
    ) -> Result<K::Response> {
        self.connection()?
            .request_with_timeout(request, timeout)
            .await
    }

    /// Sends any request body, typed or not ([`ControlRequestBody::Unknown`] carries a raw
    /// one), and waits at most `timeout` for the raw payload of the answer. An error answer is
    /// [`Error::Control`].
    pub async fn request_body(
        &self,
        body: ControlRequestBody,
        timeout: Duration,
    ) -> Result<Option<Value>> {
        self.connection()?.request_body(body, timeout).await
    }

    /// Sends any request body now and hands back its id with the wait for its answer (see
    /// [`crate::engine::Connection::start_request`]): for an agent that must know the id, to
    /// withdraw the request itself ([`Peer::withdraw`]) or to match the answer it records.
    pub fn start_request(&self, body: ControlRequestBody, timeout: Duration) -> Result<Outgoing> {
        Ok(self.connection()?.start_request(body, timeout))
    }

    /// Withdraws one of our requests with `control_cancel_request` (the host stops serving
    /// it; a late answer is dropped).
    pub fn withdraw(&self, id: &RequestId) -> Result<()> {
        let frame = ControlFrame::Cancel(twinwire_protocol::control::ControlCancelRequest {
            request_id: id.clone(),
            ..Default::default()
        });
        self.connection()?.send(&frame)
    }

    /// Runs `work` in its own task, beside the turns: a background subagent that still asks
    /// and writes after its turn's result. The server keeps its output open until such work is
    /// done.
    pub fn spawn<F>(&self, work: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.state.spawn(Box::pin(work));
    }

    /// Writes every frame sent so far, closes the output (the host sees its end) and returns
    /// once that is done; frames sent afterwards are dropped. For an agent about to exit the
    /// process on its own, so that nothing it wrote is lost.
    pub async fn close_output(&self) {
        self.state.close_output().await;
    }

    /// Asks the host whether a tool may run. A decision for a tool use already decided is
    /// refused rather than asked twice.
    pub async fn can_use_tool(&self, request: CanUseToolRequest) -> Result<PermissionResult> {
        self.decide_permission(request, std::future::pending())
            .await
    }

    /// Races a local decision (a policy, a hook) against the host's: the first decision wins
    /// and the other is dropped; if the local side wins, the host's request is withdrawn with
    /// `control_cancel_request`. A local future that yields `None` leaves it to the host.
    pub async fn decide_permission<F>(
        &self,
        request: CanUseToolRequest,
        local: F,
    ) -> Result<PermissionResult>
    where
        F: Future<Output = Option<PermissionResult>> + Send,
    {
        let tool_use_id = request.tool_use_id.clone();
        if let Some(id) = &tool_use_id {
            if lock(&self.state.resolved_tool_uses).contains(id) {
                return Err(Error::AlreadyDecided {
                    tool_use_id: id.clone(),
                });
            }
        }
        let connection = self.connection()?.clone();
        let timeout = connection.request_timeout();
        let outgoing = connection.start_request(
            ControlRequestBody::CanUseTool(Box::new(request.clone())),
            timeout,
        );
        let listed = PendingPermission::new(
            Arc::clone(&self.state),
            ControlRequest::new(
                outgoing.id().clone(),
                ControlRequestBody::CanUseTool(Box::new(request)),
            ),
        );
        let answer = async move {
            let success = outgoing.answer().await;
            drop(listed);
            let payload = success?
                .response
                .unwrap_or_else(|| Value::Object(Default::default()));
            twinwire_protocol::from_value::<PermissionResult>(payload)
                .map(|decoded| decoded.value)
                .map_err(|source| Error::Decode { line: 0, source })
        };
        let local = async {
            match local.await {
                Some(decision) => decision,
                None => std::future::pending().await,
            }
        };
        // Dropping the losing host request withdraws it (the engine sends the cancel).
        let decision = tokio::select! {
            decision = answer => decision?,
            decision = local => decision,
        };
        if let Some(id) = &tool_use_id {
            lock(&self.state.resolved_tool_uses).insert(id);
        }
        Ok(decision)
    }

    /// Calls a hook callback the host registered in `initialize`.
    pub async fn hook(
        &self,
        callback_id: &str,
        input: HookInput,
        tool_use_id: Option<String>,
    ) -> Result<HookOutput> {
        let request = HookCallbackRequest {
            callback_id: callback_id.to_owned(),
            input,
            tool_use_id,
            extra: Default::default(),
        };
        self.request(request).await
    }

    /// Calls a hook callback without waiting for an answer: for a host that can no longer
    /// answer (its input ended, see [`super::Agent::input_ended`]) but still reads, so that
    /// its callback runs. The request gets an id of its own (`end_N`), never awaited.
    pub fn hook_without_answer(
        &self,
        callback_id: &str,
        input: HookInput,
        tool_use_id: Option<String>,
    ) -> Result<()> {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let request = HookCallbackRequest {
            callback_id: callback_id.to_owned(),
            input,
            tool_use_id,
            extra: Default::default(),
        };
        let id = RequestId::Text(format!("end_{}", NEXT.fetch_add(1, Ordering::Relaxed)));
        let frame = ControlFrame::Request(ControlRequest::new(
            id,
            ControlRequestBody::HookCallback(Box::new(request)),
        ));
        self.connection()?.send(&frame)
    }

    /// Sends a JSON-RPC message to one of the host's in-process MCP servers; returns its
    /// JSON-RPC answer.
    pub async fn mcp_message(&self, server: &str, message: Value) -> Result<Value> {
        let request = McpMessageRequest {
            server_name: server.to_owned(),
            message,
            extra: Default::default(),
        };
        Ok(self.request(request).await?.mcp_response)
    }

    /// Asks the host to elicit input from the user.
    pub async fn elicit(&self, request: ElicitationRequest) -> Result<ElicitationResponse> {
        self.request(request).await
    }

    fn connection(&self) -> Result<&crate::engine::Connection> {
        self.state.connection().ok_or(Error::Closed)
    }
}

/// A `can_use_tool` request listed as waiting while it is; unlisted when dropped (answered,
/// withdrawn or failed).
struct PendingPermission {
    state: Arc<AgentState>,
    id: RequestId,
}

impl PendingPermission {
    fn new(state: Arc<AgentState>, mut request: ControlRequest) -> Self {
        let id = request.request_id.clone();
        // As the CLI lists them: whole request frames.
        request.extra.insert(
            "type".to_owned(),
            Value::String("control_request".to_owned()),
        );
        lock(&state.pending_permissions).push(request);
        Self { state, id }
    }
}

impl Drop for PendingPermission {
    fn drop(&mut self) {
        lock(&self.state.pending_permissions).retain(|r| r.request_id != self.id);
    }
}
