//! The control channel: the fake's own requests to the host, and its answers to the host's.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use twinwire::agent::{Peer, Reply};
use twinwire::protocol::permission::PermissionMode;
use twinwire::protocol::Message;

use super::frames::{self, DEFAULT_MODEL};
use super::io::stderr_line;
use super::state::{emit, FakeState, HookMatcher};
use super::steps::Runner;
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

/// Serve one host → CLI control request as the script says. What can be done at once is
/// done here, while the engine's reader hands the request over, like the old fake's reader
/// did: an answer and its effects then come before anything the reader sees next, even the end
/// of input (which withdraws requests still being served).
pub(crate) fn respond(
    shared: Arc<FakeState>,
    request: Value,
    reply: Reply,
    session: Peer,
) -> BoxFuture<'static, ()> {
    let subtype = request
        .get("subtype")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let over = shared.script.requests.get(&subtype).cloned();
    if subtype == "initialize" {
        if let Some(exit) = &shared.script.exit_at_initialize {
            if !exit.stderr.is_empty() {
                stderr_line(&exit.stderr);
            }
            std::process::exit(exit.code);
        }
        register(&shared, &request);
        let behaviour = &shared.script.initialize;
        if behaviour.before_response.is_empty() && behaviour.delay_ms == 0 && delay(&over) == 0 {
            answer(&reply, &session, initialize_payload(&shared), over.as_ref());
            return Box::pin(async {});
        }
        return Box::pin(async move {
            initialize(&shared, over.as_ref(), &reply, session).await;
        });
    }
    let delay = delay(&over);
    if delay == 0 {
        serve_now(&shared, &subtype, &request, &reply, &session, over.as_ref());
        return Box::pin(async {});
    }
    Box::pin(async move {
        tokio::time::sleep(Duration::from_millis(delay)).await;
        serve_now(&shared, &subtype, &request, &reply, &session, over.as_ref());
    })
}

/// Apply the request's effect and write the answer the script asks for.
fn serve_now(
    shared: &FakeState,
    subtype: &str,
    request: &Value,
    reply: &Reply,
    session: &Peer,
    over: Option<&RequestOverride>,
) {
    match apply(shared, subtype, request, over.is_some()) {
        Ok((payload, after)) => {
            answer(reply, session, payload, over);
            if let Some(frame) = after {
                emit(session, &frame);
            }
        }
        Err(error) => {
            let _ = reply.error(&error, Some("unsupported_request"));
        }
    }
}

/// The scripted delay of an answer.
fn delay(over: &Option<RequestOverride>) -> u64 {
    over.as_ref().map_or(0, |o| o.delay_ms)
}

/// `initialize`: remember hooks and SDK MCP servers.
fn register(shared: &FakeState, request: &Value) {
    let mut state = shared.state();
    state.hooks = parse_hooks(request.get("hooks"));
    if let Some(servers) = request.get("sdkMcpServers").and_then(Value::as_array) {
        state.sdk_mcp_servers = servers
            .iter()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect();
    }
}

fn initialize_payload(shared: &FakeState) -> Value {
    let state = shared.state();
    frames::initialize_payload(&state.model, &state.permission_mode)
}

/// `initialize` with scripted steps or a delay before the answer.
async fn initialize(
    shared: &Arc<FakeState>,
    over: Option<&RequestOverride>,
    reply: &Reply,
    session: Peer,
) {
    let behaviour = &shared.script.initialize;
    let mut runner = Runner::new(Arc::clone(shared), session.clone(), String::new(), false);
    for step in &behaviour.before_response {
        runner.step(step).await;
    }
    let delay = behaviour.delay_ms + over.map_or(0, |o| o.delay_ms);
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    answer(reply, &session, initialize_payload(shared), over);
}

/// `{"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"], "timeout": 5}]}`.
fn parse_hooks(hooks: Option<&Value>) -> std::collections::BTreeMap<String, Vec<HookMatcher>> {
    let mut parsed = std::collections::BTreeMap::new();
    let Some(Value::Object(events)) = hooks else {
        return parsed;
    };
    for (event, matchers) in events {
        let matchers = matchers.as_array().map(Vec::as_slice).unwrap_or_default();
        let list = matchers
            .iter()
            .map(|m| HookMatcher {
                matcher: m.get("matcher").and_then(Value::as_str).map(str::to_string),
                callback_ids: m
                    .get("hookCallbackIds")
                    .and_then(Value::as_array)
                    .map(|ids| {
                        ids.iter()
                            .filter_map(|id| id.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default(),
                timeout: m
                    .get("timeout")
                    .and_then(Value::as_f64)
                    .filter(|t| *t > 0.0)
                    .map(Duration::from_secs_f64),
            })
            .collect();
        parsed.insert(event.clone(), list);
    }
    parsed
}

/// Write the answer to a request whose built-in payload is `payload`, as scripted.
fn answer(reply: &Reply, session: &Peer, payload: Value, over: Option<&RequestOverride>) {
    let respond = over.map_or(Respond::Success, |o| o.respond);
    let payload = match over.and_then(|o| o.payload.clone()) {
        Some(scripted) => merge(payload, scripted),
        None => payload,
    };
    // A closed output means the host is gone; nobody is left to answer.
    match respond {
        Respond::Success => {
            let _ = reply.success(payload);
        }
        Respond::Duplicate => {
            let _ = reply.success(payload.clone());
            let _ = reply.success(payload);
        }
        Respond::WrongId => {
            let wrong = format!("{}-wrong", reply.request_id());
            emit(session, &frames::control_success(&wrong, payload));
        }
        Respond::Error => {
            let error = over
                .and_then(|o| o.error.as_deref())
                .unwrap_or("scripted error");
            let _ = reply.error(error, None);
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
    shared: &FakeState,
    subtype: &str,
    request: &Value,
    scripted: bool,
) -> Result<(Value, Option<Message>), String> {
    let payload = match subtype {
        // twinwire's agent server has already cancelled the running turn.
        "interrupt" => json!({"still_queued": []}),
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
            let after = twinwire::agent::frames::permission_mode(
                &shared.config.session_id,
                PermissionMode::from(mode.as_str()),
            );
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
    fn hooks_parse_with_their_matchers_and_timeouts() {
        let hooks = json!({"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"],
                                           "timeout": 5}]});
        let parsed = parse_hooks(Some(&hooks));
        let matcher = &parsed["PreToolUse"][0];
        assert_eq!(matcher.matcher.as_deref(), Some("Bash"));
        assert_eq!(matcher.callback_ids, ["hook_0"]);
        assert_eq!(matcher.timeout, Some(Duration::from_secs(5)));
    }
}
