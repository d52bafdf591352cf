//! The control channel: outgoing requests waiting for answers, and answers to host requests.

use std::collections::HashMap;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::frames::{self, DEFAULT_MODEL};
use super::io::uuid;
use super::session::Shared;
use crate::script::{RequestOverride, Respond};

/// Builds the success payload of a host request.
type Payload = fn() -> Value;

/// Host request subtypes the fake knows besides the ones with their own handling; they get a
/// plausible success.
const PLAIN_SUBTYPES: &[(&str, Payload)] = &[
    (
        "rewind_files",
        || json!({"canRewind": true, "filesChanged": [], "insertions": 0, "deletions": 0}),
    ),
    (
        "mcp_set_servers",
        || json!({"added": [], "removed": [], "errors": {}}),
    ),
    ("mcp_reconnect", || json!({})),
    ("mcp_toggle", || json!({})),
    ("mcp_read_resource", || json!({"contents": []})),
    ("apply_flag_settings", || json!({})),
    ("get_settings", || json!({"settings": {}})),
    ("reload_plugins", || json!({"plugins": []})),
    ("stop_task", || json!({})),
    ("seed_read_state", || json!({})),
    ("cancel_async_message", || json!({"cancelled": false})),
    ("end_session", || json!({})),
];

/// Outgoing requests waiting for the host's answer, by request id.
pub(crate) struct Router {
    inner: Mutex<RouterInner>,
}

struct RouterInner {
    pending: HashMap<String, Sender<Value>>,
    closed: bool,
}

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

/// An outgoing request that was written and is waiting for its answer.
pub(crate) struct Pending {
    pub(crate) id: String,
    rx: Option<Receiver<Value>>,
}

impl Router {
    pub(crate) fn new() -> Self {
        Self {
            inner: Mutex::new(RouterInner {
                pending: HashMap::new(),
                closed: false,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, RouterInner> {
        match self.inner.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Register a fresh request id; `None` for the receiver once stdin has closed.
    pub(crate) fn register(&self) -> Pending {
        let id = uuid();
        let mut inner = self.lock();
        if inner.closed {
            return Pending { id, rx: None };
        }
        let (tx, rx) = mpsc::channel();
        inner.pending.insert(id.clone(), tx);
        Pending { id, rx: Some(rx) }
    }

    /// Hand an answer to whoever waits for it; false if nobody does (unknown or duplicate id).
    pub(crate) fn deliver(&self, response: &Value) -> bool {
        let Some(id) = response.get("request_id").and_then(Value::as_str) else {
            return false;
        };
        let sender = self.lock().pending.remove(id);
        match sender {
            Some(tx) => tx.send(response.clone()).is_ok(),
            None => false,
        }
    }

    /// Stop waiting for this id; a later answer counts as unmatched.
    pub(crate) fn forget(&self, id: &str) {
        self.lock().pending.remove(id);
    }

    /// Stdin closed: every waiting request fails at once, new ones fail immediately.
    pub(crate) fn close(&self) {
        let mut inner = self.lock();
        inner.closed = true;
        inner.pending.clear();
    }
}

impl Pending {
    /// Wait up to `timeout`; polls `interrupted` every 20 ms when given.
    pub(crate) fn wait(&self, timeout: Duration, interrupted: Option<&dyn Fn() -> bool>) -> Answer {
        let Some(rx) = &self.rx else {
            return Answer::Closed;
        };
        let deadline = Instant::now() + timeout;
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Answer::TimedOut;
            }
            let slice = match interrupted {
                Some(_) => (deadline - now).min(Duration::from_millis(20)),
                None => deadline - now,
            };
            match rx.recv_timeout(slice) {
                Ok(response) => return Answer::Response(response),
                Err(RecvTimeoutError::Disconnected) => return Answer::Closed,
                Err(RecvTimeoutError::Timeout) => {
                    if interrupted.is_some_and(|f| f()) {
                        return Answer::Interrupted;
                    }
                }
            }
        }
    }
}

/// Serve one host → CLI control request (not `initialize`, which the session thread serves).
pub(crate) fn serve_host_request(shared: &Arc<Shared>, frame: &Value) {
    let id = frame
        .get("request_id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let request = frame.get("request").cloned().unwrap_or(Value::Null);
    let subtype = request
        .get("subtype")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let over = shared.script.requests.get(&subtype).cloned();
    let delay = over.as_ref().map_or(0, |o| o.delay_ms);
    if delay == 0 {
        answer(shared, &id, &subtype, &request, over.as_ref());
    } else {
        let shared = Arc::clone(shared);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(delay));
            answer(&shared, &id, &subtype, &request, over.as_ref());
        });
    }
}

/// Apply the request's effect and write the answer the script asks for.
fn answer(
    shared: &Shared,
    id: &str,
    subtype: &str,
    request: &Value,
    over: Option<&RequestOverride>,
) {
    match apply(shared, subtype, request, over.is_some()) {
        Ok((payload, after)) => {
            respond(shared, id, payload, over);
            if let Some(frame) = after {
                shared.out.frame(&frame);
            }
        }
        Err(error) => {
            let code = Some("unsupported_request");
            shared.out.frame(&frames::control_error(id, &error, code));
        }
    }
}

/// Write the response for a request whose built-in answer is `payload`, as scripted.
pub(crate) fn respond(shared: &Shared, id: &str, payload: Value, over: Option<&RequestOverride>) {
    let respond = over.map_or(Respond::Success, |o| o.respond);
    let payload = match over.and_then(|o| o.payload.clone()) {
        Some(scripted) => merge(payload, scripted),
        None => payload,
    };
    match respond {
        Respond::Success => shared.out.frame(&frames::control_success(id, payload)),
        Respond::Duplicate => {
            let frame = frames::control_success(id, payload);
            shared.out.frame(&frame);
            shared.out.frame(&frame);
        }
        Respond::WrongId => {
            let wrong = format!("{id}-wrong");
            shared.out.frame(&frames::control_success(&wrong, payload));
        }
        Respond::Error => {
            let error = over
                .and_then(|o| o.error.as_deref())
                .unwrap_or("scripted error");
            shared.out.frame(&frames::control_error(id, error, None));
        }
        Respond::Never => {}
    }
}

/// Lay the scripted payload's keys over the built-in one (or replace it).
fn merge(base: Value, scripted: Value) -> Value {
    match (base, scripted) {
        (Value::Object(mut base), Value::Object(scripted)) => {
            base.extend(scripted);
            Value::Object(base)
        }
        (_, scripted) => scripted,
    }
}

/// The built-in effect and answer of a host request: the success payload and an optional frame
/// to write after the response, or the error text of an unsupported subtype.
fn apply(
    shared: &Shared,
    subtype: &str,
    request: &Value,
    scripted: bool,
) -> Result<(Value, Option<Value>), String> {
    let payload = match subtype {
        "interrupt" => {
            shared.request_interrupt();
            json!({"still_queued": []})
        }
        "set_model" => {
            let model = request
                .get("model")
                .and_then(Value::as_str)
                .filter(|m| !m.is_empty() && *m != "default")
                .unwrap_or(DEFAULT_MODEL)
                .to_string();
            shared.state().model = model.clone();
            json!({"model": model})
        }
        "set_permission_mode" => {
            let mode = request
                .get("mode")
                .and_then(Value::as_str)
                .unwrap_or("default")
                .to_string();
            shared.state().permission_mode = mode.clone();
            let status = json!({"status": null, "permissionMode": mode});
            let after = frames::system(&shared.meta(), "status", status);
            return Ok((json!({"mode": mode}), Some(after)));
        }
        "set_max_thinking_tokens" => {
            let tokens = request
                .get("max_thinking_tokens")
                .cloned()
                .unwrap_or(Value::Null);
            shared.state().max_thinking_tokens = tokens;
            json!({})
        }
        "mcp_status" => {
            let servers: Vec<Value> = shared
                .state()
                .sdk_mcp_servers
                .iter()
                .map(|name| {
                    json!({
                        "name": name,
                        "status": "connected",
                        "serverInfo": {"name": name, "version": "1.0.0"},
                        "transport": "sdk",
                        "scope": "dynamic",
                        "source": "sdk",
                        "tools": []
                    })
                })
                .collect();
            json!({"mcpServers": servers})
        }
        "get_context_usage" => frames::context_usage(&shared.state().model),
        _ => match PLAIN_SUBTYPES.iter().find(|(name, _)| *name == subtype) {
            Some((_, payload)) => payload(),
            None if scripted => json!({}),
            None => return Err(format!("Unsupported control request subtype: {subtype}")),
        },
    };
    Ok((payload, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_overlays_objects_and_replaces_others() {
        let merged = merge(json!({"a": 1, "b": 2}), json!({"b": 3}));
        assert_eq!(merged, json!({"a": 1, "b": 3}));
        assert_eq!(merge(json!({"a": 1}), json!([1])), json!([1]));
    }

    #[test]
    fn router_delivers_once() {
        let router = Router::new();
        let pending = router.register();
        let response = json!({"subtype": "success", "request_id": pending.id});
        assert!(router.deliver(&response));
        assert!(!router.deliver(&response), "a duplicate matches nothing");
        assert!(matches!(
            pending.wait(Duration::from_secs(1), None),
            Answer::Response(_)
        ));
    }

    #[test]
    fn closing_fails_waiters() {
        let router = Router::new();
        let pending = router.register();
        router.close();
        assert!(matches!(
            pending.wait(Duration::from_secs(5), None),
            Answer::Closed
        ));
        assert!(matches!(
            router.register().wait(Duration::from_secs(5), None),
            Answer::Closed
        ));
    }
}
