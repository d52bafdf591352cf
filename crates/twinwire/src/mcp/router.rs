//! Routing the CLI's `mcp_message` control requests to in-process servers.
//!
//! Each server is connected lazily, on its first message, through an in-memory pair of
//! message channels that `rmcp` serves as a transport (typed JSON-RPC messages, no bytes, no
//! lines). The CLI's messages go in as they are; a receiver task takes the server's messages,
//! hands each response to the request waiting for it by JSON-RPC id, logs the server's
//! notifications and answers its requests (`ping` with an empty result, anything else with a
//! JSON-RPC error, so the server never waits on a client that cannot answer).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::channel::mpsc;
use futures::StreamExt;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::oneshot;
use tokio::task::AbortHandle;

use super::SdkMcpServer;
use crate::engine::{lock, HandlerError};

/// How long a request to an SDK MCP server may take by default.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// JSON-RPC "method not found".
const METHOD_NOT_FOUND: i64 = -32601;

/// Routes `mcp_message` requests to the host's SDK MCP servers.
pub(crate) struct McpRouter {
    /// In declaration order.
    slots: Vec<Slot>,
    /// How long one request may take.
    pub(crate) timeout: Duration,
}

impl McpRouter {
    /// A router for these servers. Of two servers with the same name, the later wins.
    pub(crate) fn new(servers: Vec<SdkMcpServer>) -> Self {
        let mut slots: Vec<Slot> = Vec::with_capacity(servers.len());
        for server in servers {
            let slot = Slot {
                server,
                connection: Mutex::new(None),
            };
            if let Some(old) = slots.iter_mut().find(|s| s.name() == slot.name()) {
                tracing::warn!(server = slot.name(), "duplicate SDK MCP server name");
                *old = slot;
            } else {
                slots.push(slot);
            }
        }
        Self {
            slots,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// Sets how long one request may take (the host sets `timeout` from its options).
    #[cfg(test)]
    pub(crate) fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Whether one of the servers is called `name`.
    pub(crate) fn serves(&self, name: &str) -> bool {
        self.slots.iter().any(|slot| slot.name() == name)
    }

    /// The servers' names, for `initialize`'s `sdkMcpServers`.
    pub(crate) fn names(&self) -> Vec<String> {
        self.slots.iter().map(|s| s.name().to_owned()).collect()
    }

    /// Handles one `mcp_message`: returns the value of `mcp_response`.
    ///
    /// A request gets the server's JSON-RPC response (a JSON-RPC error included). A
    /// notification is forwarded and answered `{"jsonrpc":"2.0","result":{}}` at once, as
    /// the CLI expects. An `initialize` request starts a fresh connection.
    pub(crate) async fn handle(
        &self,
        server_name: &str,
        message: Value,
    ) -> Result<Value, HandlerError> {
        let slot = self
            .slots
            .iter()
            .find(|s| s.name() == server_name)
            .ok_or_else(|| HandlerError::new(format!("unknown SDK MCP server {server_name}")))?;
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").filter(|id| !id.is_null());
        match (method, id) {
            (Some(method), Some(id)) => {
                let connection = if method == "initialize" {
                    slot.reconnect()
                } else {
                    slot.connected()
                };
                connection.request(id, method, &message, self.timeout).await
            }
            (Some(method), None) => {
                match slot.live() {
                    Some(connection) => connection.send(&message)?,
                    None => tracing::debug!(
                        server = server_name,
                        method,
                        "dropped a notification for an SDK MCP server that is not connected"
                    ),
                }
                Ok(empty_response())
            }
            (None, Some(_))
                if message.get("result").is_some() || message.get("error").is_some() =>
            {
                tracing::warn!(
                    server = server_name,
                    "ignored a JSON-RPC response from the CLI: the server sent it no request"
                );
                Ok(empty_response())
            }
            _ => Err(HandlerError::new(format!(
                "invalid JSON-RPC message for SDK MCP server {server_name}: no method"
            ))),
        }
    }
}

impl std::fmt::Debug for McpRouter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpRouter")
            .field("servers", &self.names())
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// The answer to a notification.
fn empty_response() -> Value {
    json!({"jsonrpc": "2.0", "result": {}})
}

/// The key of a JSON-RPC id: `1` and `"1"` differ.
fn id_key(id: &Value) -> String {
    id.to_string()
}

/// One server and its current connection.
struct Slot {
    server: SdkMcpServer,
    connection: Mutex<Option<Arc<ServerLink>>>,
}

impl Slot {
    fn name(&self) -> &str {
        self.server.name()
    }

    /// The current connection if it is still open.
    fn live(&self) -> Option<Arc<ServerLink>> {
        lock(&self.connection)
            .as_ref()
            .filter(|c| !c.is_closed())
            .map(Arc::clone)
    }

    /// The current connection, or a new one if there is none or it has closed.
    fn connected(&self) -> Arc<ServerLink> {
        let mut current = lock(&self.connection);
        match current.as_ref().filter(|c| !c.is_closed()) {
            Some(connection) => Arc::clone(connection),
            None => {
                let connection = ServerLink::open(&self.server);
                *current = Some(Arc::clone(&connection));
                connection
            }
        }
    }

    /// A new connection, closing the current one (its pending requests fail).
    fn reconnect(&self) -> Arc<ServerLink> {
        let connection = ServerLink::open(&self.server);
        let old = lock(&self.connection).replace(Arc::clone(&connection));
        if let Some(old) = old {
            old.shutdown("the CLI initialized the server again");
        }
        connection
    }
}

/// Requests waiting for their response, by id key.
#[derive(Default)]
struct Waiters {
    /// Why the connection closed, once it has.
    closed: Option<String>,
    /// Each with a sequence number, so that a finished request removes only its own entry.
    pending: HashMap<String, (u64, oneshot::Sender<Value>)>,
}

/// What a connection and its receiver task share.
struct LinkState {
    server: Arc<str>,
    waiters: Mutex<Waiters>,
}

impl LinkState {
    /// Marks the connection closed; pending requests fail with `reason`.
    fn close(&self, reason: &str) {
        let mut waiters = lock(&self.waiters);
        if waiters.closed.is_none() {
            tracing::debug!(server = %self.server, reason, "SDK MCP connection closed");
            waiters.closed = Some(reason.to_owned());
        }
        // Dropping the senders wakes the requests.
        waiters.pending.clear();
    }

    fn closed_error(&self) -> HandlerError {
        let reason = lock(&self.waiters)
            .closed
            .clone()
            .unwrap_or_else(|| "the connection closed".to_owned());
        HandlerError::new(format!("SDK MCP server {}: {reason}", self.server))
    }
}

/// One live connection to a server.
struct ServerLink {
    shared: Arc<LinkState>,
    /// Messages to the server.
    outgoing: mpsc::UnboundedSender<ClientJsonRpcMessage>,
    next_seq: AtomicU64,
    tasks: Vec<AbortHandle>,
}

impl ServerLink {
    /// Starts the server on one end of a fresh pair of message channels, with a receiver
    /// task for its messages on the other.
    fn open(server: &SdkMcpServer) -> Arc<Self> {
        let name: Arc<str> = Arc::from(server.name());
        let shared = Arc::new(LinkState {
            server: Arc::clone(&name),
            waiters: Mutex::new(Waiters::default()),
        });
        let (outgoing, to_server) = mpsc::unbounded();
        let (from_server_tx, from_server) = mpsc::unbounded();
        let server_task = tokio::spawn(server.start(super::ServerEnd {
            incoming: to_server,
            outgoing: from_server_tx,
        }));
        let receiver = tokio::spawn(receive(from_server, outgoing.clone(), Arc::clone(&shared)));
        tracing::debug!(server = %name, "SDK MCP server connected");
        Arc::new(Self {
            shared,
            outgoing,
            next_seq: AtomicU64::new(0),
            tasks: vec![server_task.abort_handle(), receiver.abort_handle()],
        })
    }

    fn is_closed(&self) -> bool {
        lock(&self.shared.waiters).closed.is_some()
    }

    /// Queues one message for the server.
    fn send(&self, message: &Value) -> Result<(), HandlerError> {
        let message = to_server_message(message).map_err(|error| {
            HandlerError::new(format!(
                "SDK MCP server {}: not a JSON-RPC message it can read: {error}",
                self.shared.server
            ))
        })?;
        self.outgoing
            .unbounded_send(message)
            .map_err(|_| self.shared.closed_error())
    }

    /// Sends a request and waits for its response.
    async fn request(
        &self,
        id: &Value,
        method: &str,
        message: &Value,
        timeout: Duration,
    ) -> Result<Value, HandlerError> {
        let key = id_key(id);
        let seq = self.next_seq.fetch_add(1, Ordering::Relaxed);
        let (sender, receiver) = oneshot::channel();
        {
            let mut waiters = lock(&self.shared.waiters);
            if waiters.closed.is_some() {
                drop(waiters);
                return Err(self.shared.closed_error());
            }
            if waiters.pending.contains_key(&key) {
                return Err(HandlerError::new(format!(
                    "SDK MCP server {}: a request with id {key} is already in flight",
                    self.shared.server
                )));
            }
            waiters.pending.insert(key.clone(), (seq, sender));
        }
        // However this ends (answered, failed, timed out, or dropped by a caller that gave
        // up), the entry goes; a request left unanswered is cancelled on the server.
        let _pending = WaiterGuard {
            connection: self,
            id,
            key: &key,
            seq,
        };
        self.send(message)?;
        match tokio::time::timeout(timeout, receiver).await {
            Ok(Ok(response)) => Ok(response),
            Ok(Err(_)) => Err(self.shared.closed_error()),
            Err(_) => Err(HandlerError::new(format!(
                "SDK MCP server {} did not answer {method} (id {key}) within {timeout:?}",
                self.shared.server
            ))),
        }
    }

    /// Closes the connection: pending requests fail, the tasks stop.
    fn shutdown(&self, reason: &str) {
        self.shared.close(reason);
        for task in &self.tasks {
            task.abort();
        }
    }
}

impl Drop for ServerLink {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Removes a request's waiter when the request ends, and tells the server to cancel the
/// request if it is still unanswered.
struct WaiterGuard<'a> {
    connection: &'a ServerLink,
    id: &'a Value,
    key: &'a str,
    seq: u64,
}

impl Drop for WaiterGuard<'_> {
    fn drop(&mut self) {
        let unanswered = {
            let mut waiters = lock(&self.connection.shared.waiters);
            let ours = waiters
                .pending
                .get(self.key)
                .is_some_and(|(seq, _)| *seq == self.seq);
            ours && waiters.pending.remove(self.key).is_some()
        };
        if unanswered {
            let cancel = json!({
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": self.id, "reason": "the host stopped waiting"},
            });
            // If the connection is gone there is nothing left to cancel.
            let _ = self.connection.send(&cancel);
        }
    }
}

/// A JSON-RPC message of the CLI, typed for the server.
fn to_server_message(message: &Value) -> serde_json::Result<ClientJsonRpcMessage> {
    ClientJsonRpcMessage::deserialize(message)
}

/// Takes the server's messages until it closes the connection, then fails whatever is still
/// pending.
async fn receive(
    mut messages: mpsc::UnboundedReceiver<ServerJsonRpcMessage>,
    outgoing: mpsc::UnboundedSender<ClientJsonRpcMessage>,
    shared: Arc<LinkState>,
) {
    while let Some(message) = messages.next().await {
        match serde_json::to_value(&message) {
            Ok(message) => on_server_message(message, &outgoing, &shared),
            Err(error) => {
                tracing::warn!(server = %shared.server, %error, "an SDK MCP message that does not serialize");
            }
        }
    }
    shared.close("the server closed the connection");
}

/// Handles one message from the server: a response, a notification or a request.
fn on_server_message(
    message: Value,
    outgoing: &mpsc::UnboundedSender<ClientJsonRpcMessage>,
    shared: &LinkState,
) {
    let server = &*shared.server;
    let method = message.get("method").and_then(Value::as_str);
    let id = message.get("id").filter(|id| !id.is_null());
    match (method, id) {
        (None, Some(id)) => {
            let waiter = lock(&shared.waiters).pending.remove(&id_key(id));
            match waiter {
                // The request may have given up meanwhile; nothing to do then.
                Some((_, sender)) => drop(sender.send(message)),
                None => tracing::warn!(server, %id, "SDK MCP response to no pending request"),
            }
        }
        (None, None) => {
            tracing::warn!(server, %message, "SDK MCP server sent a response without an id");
        }
        (Some(method), None) => {
            let params = message.get("params").unwrap_or(&Value::Null);
            tracing::debug!(server, method, %params, "SDK MCP server notification");
        }
        (Some(method), Some(id)) => {
            let answer = if method == "ping" {
                json!({"jsonrpc": "2.0", "id": id, "result": {}})
            } else {
                tracing::warn!(
                    server,
                    method,
                    "SDK MCP server sent a request the host cannot serve; answering with an error"
                );
                json!({
                    "jsonrpc": "2.0",
                    "id": id,
                    "error": {
                        "code": METHOD_NOT_FOUND,
                        "message": format!("{method} is not supported by the twinwire host"),
                    },
                })
            };
            // The server is gone only when the connection is; nothing left to answer then.
            if let Ok(answer) = to_server_message(&answer) {
                let _ = outgoing.unbounded_send(answer);
            }
        }
    }
}
