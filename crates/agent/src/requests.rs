//! The host's requests this agent answers: `initialize` (hooks, SDK MCP servers, system
//! prompt, schema), `set_model`, `set_permission_mode`, `set_max_thinking_tokens`, `mcp_status`
//! and `get_context_usage`. `interrupt` is twinwire's agent side's (it stops the turn); every
//! other request is answered `unsupported_request` by its default.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};
use twinwire::agent::{frames, Peer};
use twinwire::engine::HandlerError;
use twinwire_protocol::control::{
    InitializeRequest, InitializeResponse, ManifestParkState, McpStatusResponse, ModelInfo,
    SetMaxThinkingTokensRequest, SetModelResponse, SetPermissionModeResponse,
};
use twinwire_protocol::permission::PermissionMode;

use crate::config::{parse_mode, resolve_alias};
use crate::hooks::Hooks;
use crate::session::Session;
use crate::VERSION;

/// The models a session offers (`initialize`, `list_models`): the default and the aliases.
pub(crate) fn models(session: &Session) -> Vec<ModelInfo> {
    let model = |value: &str, name: &str, description: String| ModelInfo {
        value: value.to_owned(),
        display_name: name.to_owned(),
        description,
        ..ModelInfo::default()
    };
    vec![
        model("default", "Default", session.config.model.clone()),
        model("sonnet", "Sonnet", resolve_alias("sonnet")),
        model("opus", "Opus", resolve_alias("opus")),
        model("haiku", "Haiku", resolve_alias("haiku")),
    ]
}

/// `initialize`: takes the host's session settings, prepares the tools (talking to its SDK MCP
/// servers first, as Claude Code does), and describes the agent.
pub(crate) async fn initialize(
    session: &Arc<Session>,
    init: InitializeRequest,
    peer: &Peer,
) -> Result<InitializeResponse, HandlerError> {
    {
        let mut state = session.state();
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
        if let Some(agents) = &init.agents {
            for (name, definition) in agents {
                state.agents.add(name, definition);
            }
        }
        if let Some(kinds) = &init.supported_dialog_kinds {
            state.dialog_kinds = kinds.clone();
        }
    }
    let parked = crate::mcp_control::prepare(session, peer).await;
    let state = session.state();
    let roots = crate::commands::roots(session.store.config_dir(), &session.config.cwd);
    let mut response = InitializeResponse {
        commands: crate::commands::all(&roots),
        agents: Some(state.agents.infos()),
        output_style: state.output_style.clone(),
        available_output_styles: crate::output_styles::available(
            &session.config.cwd,
            Some(session.store.config_dir()),
        )
        .into_iter()
        .map(|style| style.name)
        .collect(),
        models: models(session),
        pid: Some(u64::from(std::process::id())),
        claude_code_version: Some(VERSION.to_owned()),
        ..InitializeResponse::default()
    };
    response
        .extra
        .insert("tools".to_owned(), json!(state.tools.names()));
    if !parked.is_empty() {
        response.sdk_mcp_manifests_parked = Some(
            parked
                .iter()
                .map(|(name, state)| (name.clone(), ManifestParkState::from(state.as_str())))
                .collect(),
        );
    }
    Ok(response)
}

/// `set_model`: the model of later calls (an alias resolved; none: the session's own).
pub(crate) fn set_model(session: &Session, model: Option<String>) -> SetModelResponse {
    let mut state = session.state();
    state.model = model
        .map(|m| resolve_alias(&m))
        .unwrap_or_else(|| session.config.model.clone());
    SetModelResponse {
        model: Some(state.model.clone()),
        ..SetModelResponse::default()
    }
}

/// `set_permission_mode`: the mode of later tool calls, told to the host with a status frame.
pub(crate) fn set_mode(
    session: &Session,
    peer: &Peer,
    mode: &PermissionMode,
) -> Result<SetPermissionModeResponse, HandlerError> {
    let mode = parse_mode(mode.as_str()).map_err(|e| HandlerError::new(e.to_string()))?;
    if mode == PermissionMode::BypassPermissions && !session.config.allow_bypass {
        return Err(HandlerError::new(
            "Cannot set permission mode to bypassPermissions: the session was not started with \
             --allow-dangerously-skip-permissions",
        ));
    }
    let session_id = {
        let mut state = session.state();
        state.mode = mode.clone();
        state.session_id.clone()
    };
    let _ = peer.emit(&frames::permission_mode(&session_id, mode.clone()));
    Ok(SetPermissionModeResponse {
        mode: Some(mode),
        ..SetPermissionModeResponse::default()
    })
}

/// `set_max_thinking_tokens`: the thinking budget of later calls (none or 0: off) and how
/// thinking is shown (absent: as it was; `null`: as launched).
pub(crate) fn set_thinking(session: &Session, request: SetMaxThinkingTokensRequest) {
    let mut state = session.state();
    if let Some(tokens) = request.max_thinking_tokens {
        state.thinking_tokens = tokens
            .and_then(|t| u32::try_from(t).ok())
            .filter(|t| *t > 0);
    }
    if let Some(display) = request.thinking_display {
        state.thinking_display = display;
    }
}

/// `mcp_status`: each MCP server's status.
pub(crate) fn mcp_status(session: &Session) -> McpStatusResponse {
    McpStatusResponse {
        mcp_servers: session.state().mcp_status.clone(),
        ..McpStatusResponse::default()
    }
}
