//! The host's requests: `initialize` (hooks, SDK MCP servers, system prompt, schema),
//! `set_model`, `set_permission_mode`, `set_max_thinking_tokens`, `mcp_status` and
//! `get_context_usage` are answered here; `interrupt` by twinwire's agent side (which cancels
//! the turn); everything else is answered `unsupported_request`.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{json, Value};
use twinwire::agent::{Peer, Reply};
use twinwire_protocol::control::{ControlRequestBody, InitializeRequest};
use twinwire_protocol::permission::PermissionMode;

use super::{frames, ready, Shared};
use crate::config::{parse_mode, resolve_alias};
use crate::hooks::Hooks;
use crate::model::pricing::CONTEXT_WINDOW;

/// The answer to a request this agent handles itself, or `None` for twinwire's default.
pub(crate) fn respond(
    shared: &Arc<Shared>,
    request: &ControlRequestBody,
    reply: &Reply,
    session: &Peer,
) -> Option<BoxFuture<'static, ()>> {
    let shared = Arc::clone(shared);
    let reply = reply.clone();
    let session = session.clone();
    let answer: BoxFuture<'static, Result<Value, String>> = match request {
        ControlRequestBody::Initialize(init) => {
            let init = (**init).clone();
            Box::pin(async move {
                // However this ends (answered, failed, withdrawn), turns stop waiting for it.
                let _done = Initialized(Arc::clone(&shared));
                initialize(&shared, init, &session).await
            })
        }
        ControlRequestBody::SetModel(set) => {
            let model = set.model.clone().flatten();
            Box::pin(async move {
                let mut state = super::lock(&shared.state);
                state.model = model
                    .map(|m| resolve_alias(&m))
                    .unwrap_or_else(|| shared.config.model.clone());
                Ok(json!({"model": state.model}))
            })
        }
        ControlRequestBody::SetPermissionMode(set) => {
            let mode = serde_json::to_value(&set.mode)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            Box::pin(async move { set_mode(&shared, &session, &mode) })
        }
        ControlRequestBody::SetMaxThinkingTokens(set) => {
            let tokens = serde_json::to_value(set)
                .ok()
                .and_then(|v| v["max_thinking_tokens"].as_u64());
            Box::pin(async move {
                super::lock(&shared.state).thinking_tokens = tokens
                    .and_then(|t| u32::try_from(t).ok())
                    .filter(|t| *t > 0);
                Ok(json!({}))
            })
        }
        ControlRequestBody::McpStatus(_) => {
            Box::pin(
                async move { Ok(json!({"mcpServers": super::lock(&shared.state).mcp_status})) },
            )
        }
        ControlRequestBody::GetContextUsage(_) => {
            Box::pin(async move { Ok(context_usage(&shared)) })
        }
        _ => return None,
    };
    Some(Box::pin(async move {
        let written = match answer.await {
            Ok(payload) => reply.success(payload),
            Err(message) => reply.error(&message, None),
        };
        if let Err(err) = written {
            tracing::debug!(%err, "could not answer a host request");
        }
    }))
}

/// Marks the `initialize` being answered as done when dropped.
struct Initialized(Arc<Shared>);

impl Drop for Initialized {
    fn drop(&mut self) {
        self.0.initializing.send_replace(false);
    }
}

/// Takes the host's session settings, prepares the tools (talking to its SDK MCP servers
/// first, as Claude Code does), and describes the agent.
async fn initialize(
    shared: &Arc<Shared>,
    init: InitializeRequest,
    session: &Peer,
) -> Result<Value, String> {
    {
        let mut state = super::lock(&shared.state);
        if let Some(Some(hooks)) = &init.hooks {
            let by_event = serde_json::to_value(hooks)
                .ok()
                .and_then(|v| serde_json::from_value(v).ok())
                .unwrap_or_default();
            state.hooks = Hooks::new(by_event);
        }
        let manifests: BTreeMap<String, Value> = init
            .sdk_mcp_server_manifests
            .as_ref()
            .and_then(|m| serde_json::to_value(m).ok())
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default();
        for name in init.sdk_mcp_servers.iter().flatten() {
            state
                .sdk_servers
                .insert(name.clone(), manifests.get(name).cloned());
        }
        if let Some(parts) = &init.system_prompt {
            state.system_prompt = Some(parts.join("\n\n"));
        }
        if let Some(append) = &init.append_system_prompt {
            state.append_system_prompt = Some(append.clone());
        }
        if let Some(schema) = &init.json_schema {
            state.json_schema = Some(schema.clone());
        }
        if let Some(schema) = state.json_schema.clone() {
            state
                .tools
                .add(Arc::new(crate::tools::StructuredOutput { schema }));
        }
    }
    ready::prepare(shared, session).await;
    let state = super::lock(&shared.state);
    Ok(json!({
        "commands": [],
        "agents": [],
        "output_style": "default",
        "available_output_styles": ["default"],
        "models": [
            {"value": "default", "displayName": "Default", "description": shared.config.model},
            {"value": "sonnet", "displayName": "Sonnet", "description": resolve_alias("sonnet")},
            {"value": "opus", "displayName": "Opus", "description": resolve_alias("opus")},
            {"value": "haiku", "displayName": "Haiku", "description": resolve_alias("haiku")}
        ],
        "account": {},
        "pid": std::process::id(),
        "claude_code_version": frames::VERSION,
        "tools": state.tools.names(),
    }))
}

fn set_mode(shared: &Shared, session: &Peer, mode: &str) -> Result<Value, String> {
    let mode = parse_mode(mode).map_err(|e| e.to_string())?;
    if mode == PermissionMode::BypassPermissions && !shared.config.allow_bypass {
        return Err(
            "Cannot set permission mode to bypassPermissions: the session was not started with \
             --allow-dangerously-skip-permissions"
                .into(),
        );
    }
    let session_id = {
        let mut state = super::lock(&shared.state);
        state.mode = mode.clone();
        state.session_id.clone().unwrap_or_default()
    };
    let name = serde_json::to_value(&mode).unwrap_or(Value::Null);
    let _ = session.emit(&frames::mode_status(
        &session_id,
        name.as_str().unwrap_or(""),
    ));
    Ok(json!({"mode": name}))
}

/// What the context holds, estimated at four bytes a token (no call is made to count).
fn context_usage(shared: &Shared) -> Value {
    let state = super::lock(&shared.state);
    let estimate = |value: &Value| (value.to_string().len() / 4) as u64;
    let system = crate::prompt::system(
        state.system_prompt.as_deref(),
        state.append_system_prompt.as_deref(),
        &shared.config.cwd,
        state.json_schema.is_some(),
    );
    let system = estimate(&json!(system));
    let tools = estimate(&json!(state.tools.definitions()));
    let messages = estimate(&json!(state.conversation));
    let total = system + tools + messages;
    let free = CONTEXT_WINDOW.saturating_sub(total);
    json!({
        "categories": [
            {"name": "System prompt", "tokens": system, "color": "promptBorder"},
            {"name": "System tools", "tokens": tools, "color": "inactive"},
            {"name": "Messages", "tokens": messages, "color": "purple"},
            {"name": "Free space", "tokens": free, "color": "promptBorder"}
        ],
        "totalTokens": total,
        "maxTokens": CONTEXT_WINDOW,
        "rawMaxTokens": CONTEXT_WINDOW,
        "percentage": (total * 100) / CONTEXT_WINDOW,
        "model": state.model,
        "isEstimate": true,
    })
}
