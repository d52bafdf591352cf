//! Builders for the frames the fake writes, shaped like Claude Code 2.1.330's.

use serde_json::{json, Map, Value};
use twinwire::agent::frames as agent_frames;
use twinwire::protocol::content::{
    ApiMessage, ContentBlock, TextBlock, ToolResultBlock, ToolResultContent, UserContent,
};
use twinwire::protocol::control::{ControlResponse, FastModeState, RequestId};
use twinwire::protocol::mcp::{McpConnectionStatus, McpServerStatus};
use twinwire::protocol::permission::{PermissionDenial, PermissionMode};
use twinwire::protocol::result::{ResultMessage, ResultSubtype, TerminalReason};
use twinwire::protocol::stream::StreamEvent;
use twinwire::protocol::system::{ApiKeySource, SessionState, SystemInit};
use twinwire::protocol::usage::{ModelUsage, ServiceTier, Usage};
use twinwire::protocol::{AssistantMessage, Message};

/// The version the fake reports.
pub(crate) const VERSION: &str = "2.1.330-fake";

/// The model reported when none was chosen.
pub(crate) const DEFAULT_MODEL: &str = "claude-opus-5-5";

/// Built-in tools listed in `system/init`.
const TOOLS: &[&str] = &[
    "Task",
    "AskUserQuestion",
    "Bash",
    "Edit",
    "Glob",
    "Grep",
    "NotebookEdit",
    "Read",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
    "Write",
];

const COMMANDS: &[(&str, &str)] = &[
    (
        "compact",
        "Clear conversation history but keep a summary in context",
    ),
    ("context", "Visualize current context usage"),
    (
        "cost",
        "Show the total cost and duration of the current session",
    ),
    (
        "init",
        "Initialize a new CLAUDE.md file with codebase documentation",
    ),
    ("review", "Review a pull request"),
];

const AGENTS: &[(&str, &str)] = &[
    (
        "general-purpose",
        "General-purpose agent for multi-step tasks.",
    ),
    ("Explore", "Fast read-only search agent for locating code."),
    (
        "Plan",
        "Software architect agent for designing implementation plans.",
    ),
];

/// One frame as one line, `type` first and then `subtype` in every object, nested ones too, as
/// the CLI writes them (a `serde_json::Value` alone would sort `type` among the other keys).
pub(crate) fn line(frame: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(512);
    write_line(&mut out, frame);
    out
}

/// [`line`], appended to `out`.
pub(crate) fn write_line(out: &mut Vec<u8>, frame: &Value) {
    write_value(out, frame);
    out.push(b'\n');
}

fn write_value(out: &mut Vec<u8>, value: &Value) {
    // Writing JSON into a `Vec` cannot fail: every key is a string.
    match value {
        Value::Object(map) => {
            out.push(b'{');
            let leading = ["type", "subtype"]
                .into_iter()
                .filter_map(|key| map.get_key_value(key));
            let rest = map
                .iter()
                .filter(|(key, _)| *key != "type" && *key != "subtype");
            for (i, (key, value)) in leading.chain(rest).enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                let _ = serde_json::to_writer(&mut *out, key);
                out.push(b':');
                write_value(out, value);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(out, item);
            }
            out.push(b']');
        }
        other => {
            let _ = serde_json::to_writer(&mut *out, other);
        }
    }
}

/// A typed frame as one line.
pub(crate) fn message_line(frame: &Message) -> Vec<u8> {
    let mut line = serde_json::to_vec(frame).unwrap_or_default();
    line.push(b'\n');
    line
}

/// Who is speaking: the fields every session frame carries.
#[derive(Clone, Debug)]
pub(crate) struct Meta {
    pub(crate) session_id: String,
    pub(crate) model: String,
}

/// `usage` of one streamed API message as the CLI reports it on `assistant` frames.
fn message_usage() -> Usage {
    Usage {
        input_tokens: 100,
        output_tokens: 1,
        cache_creation_input_tokens: Some(0),
        cache_read_input_tokens: Some(0),
        ..Usage::default()
    }
}

/// The API message of an `assistant` frame with one content block.
fn api_message(meta: &Meta, msg_id: &str, content: Vec<ContentBlock>) -> ApiMessage {
    ApiMessage {
        id: msg_id.to_owned(),
        kind: "message".to_owned(),
        role: "assistant".to_owned(),
        model: meta.model.clone(),
        content,
        usage: message_usage(),
        context_management: Some(None),
        ..ApiMessage::default()
    }
}

/// An `assistant` frame with one content block.
pub(crate) fn assistant(
    meta: &Meta,
    msg_id: &str,
    request_id: &str,
    block: ContentBlock,
) -> AssistantMessage {
    let mut frame =
        agent_frames::assistant(&meta.session_id, api_message(meta, msg_id, vec![block]));
    frame.request_id = Some(request_id.to_owned());
    frame
}

/// A text content block.
pub(crate) fn text_block(text: &str) -> ContentBlock {
    ContentBlock::Text(TextBlock {
        text: text.to_owned(),
        ..TextBlock::default()
    })
}

/// A `user` frame carrying one `tool_result` block.
pub(crate) fn tool_result(
    meta: &Meta,
    tool_use_id: &str,
    content: ToolResultContent,
    is_error: bool,
    tool_use_result: Value,
    decision: Value,
) -> Message {
    let block = ToolResultBlock {
        tool_use_id: tool_use_id.to_owned(),
        content: Some(content),
        is_error: Some(is_error),
        ..ToolResultBlock::default()
    };
    let mut frame = agent_frames::tool_result(
        &meta.session_id,
        &agent_frames::new_id(),
        block,
        Some(tool_use_result),
    );
    if let Message::User(user) = &mut frame {
        let mut entry = Map::new();
        entry.insert("id".into(), Value::String(tool_use_id.to_owned()));
        entry.insert("permission_decision".into(), decision);
        user.tool_result_meta =
            serde_json::from_value(Value::Array(vec![Value::Object(entry)])).ok();
    }
    frame
}

/// A `user` frame with one text block (e.g. `[Request interrupted by user]`).
pub(crate) fn user_text(meta: &Meta, text: &str) -> Message {
    let mut frame = agent_frames::user(
        &meta.session_id,
        &agent_frames::new_id(),
        UserContent::Blocks(vec![text_block(text)]),
    );
    frame.parent_tool_use_id = None;
    Message::User(Box::new(frame))
}

/// A `stream_event` frame around one Messages API event (given as the API writes it).
pub(crate) fn stream_event(meta: &Meta, msg_id: &str, event: Value) -> Message {
    match serde_json::from_value::<StreamEvent>(event) {
        Ok(event) => agent_frames::stream_event(&meta.session_id, event, Some(msg_id), None),
        Err(err) => {
            agent_frames::error_notice(&meta.session_id, &format!("bad stream event: {err}"))
        }
    }
}

/// The `message_start` event of a streamed message.
pub(crate) fn message_start(meta: &Meta, msg_id: &str) -> Value {
    let message = api_message(meta, msg_id, Vec::new());
    let mut event = Map::new();
    event.insert("type".into(), Value::String("message_start".into()));
    event.insert(
        "message".into(),
        serde_json::to_value(message).unwrap_or_default(),
    );
    Value::Object(event)
}

/// A `system` notice of a subtype the fake reports about itself (`fake_observed`, …).
pub(crate) fn notice(meta: &Meta, subtype: &str, fields: Value) -> Message {
    let fields = match fields {
        Value::Object(fields) => fields,
        _ => Map::new(),
    };
    agent_frames::notice(&meta.session_id, subtype, fields)
}

/// `system/session_state_changed`.
pub(crate) fn session_state(meta: &Meta, state: &str) -> Message {
    agent_frames::session_state(&meta.session_id, SessionState::from(state))
}

/// What `system/init` reports besides the session identity.
pub(crate) struct InitInfo<'a> {
    pub(crate) cwd: &'a str,
    pub(crate) permission_mode: &'a str,
    pub(crate) mcp_servers: &'a [String],
}

/// The `system/init` frame sent at the start of every turn.
pub(crate) fn system_init(meta: &Meta, info: &InitInfo<'_>) -> Message {
    let mcp_servers = info
        .mcp_servers
        .iter()
        .map(|name| McpServerStatus {
            name: name.clone(),
            status: McpConnectionStatus::Connected,
            source: serde_json::from_value(Value::String("sdk".into())).ok(),
            ..McpServerStatus::default()
        })
        .collect();
    let mut init = SystemInit {
        cwd: info.cwd.to_owned(),
        session_id: meta.session_id.clone(),
        tools: TOOLS.iter().map(|t| (*t).to_owned()).collect(),
        mcp_servers,
        model: meta.model.clone(),
        permission_mode: PermissionMode::from(info.permission_mode),
        slash_commands: COMMANDS
            .iter()
            .map(|(name, _)| (*name).to_owned())
            .collect(),
        api_key_source: ApiKeySource::AnthropicApiKey,
        claude_code_version: Some(VERSION.to_owned()),
        output_style: "default".to_owned(),
        agents: Some(AGENTS.iter().map(|(name, _)| (*name).to_owned()).collect()),
        skills: Some(Vec::new()),
        plugins: Some(Vec::new()),
        fast_mode_state: Some(FastModeState::from("off")),
        uuid: agent_frames::new_id(),
        ..SystemInit::default()
    };
    init.extra
        .insert("original_cwd".into(), Value::String(info.cwd.to_owned()));
    init.extra
        .insert("additional_directories".into(), Value::Array(Vec::new()));
    agent_frames::init(init)
}

/// The `usage` object of a `result`.
fn result_usage() -> Usage {
    Usage {
        input_tokens: 100,
        output_tokens: 20,
        cache_creation_input_tokens: Some(0),
        cache_read_input_tokens: Some(0),
        server_tool_use: serde_json::from_value(
            serde_json::json!({"web_search_requests": 0, "web_fetch_requests": 0}),
        )
        .ok(),
        service_tier: Some(Some(ServiceTier::from("standard"))),
        cache_creation: serde_json::from_value(
            serde_json::json!({"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0}),
        )
        .ok(),
        ..Usage::default()
    }
}

/// Everything a `result` frame reports.
pub(crate) struct ResultInfo {
    pub(crate) subtype: String,
    pub(crate) is_error: bool,
    pub(crate) text: Option<String>,
    pub(crate) num_turns: u64,
    pub(crate) duration_ms: u64,
    pub(crate) permission_denials: Vec<PermissionDenial>,
    pub(crate) terminal_reason: String,
    pub(crate) structured_output: Option<Value>,
    pub(crate) errors: Option<Vec<String>>,
}

/// A `result` frame.
pub(crate) fn result(meta: &Meta, info: ResultInfo) -> Message {
    let cost = 0.0008 * info.num_turns.max(1) as f64;
    let success = info.subtype == "success";
    let usage = ModelUsage {
        input_tokens: 100 * info.num_turns,
        output_tokens: 20 * info.num_turns,
        cost_usd: cost,
        context_window: 200_000,
        max_output_tokens: Some(32_000),
        ..ModelUsage::default()
    };
    let result = ResultMessage {
        subtype: ResultSubtype::from(info.subtype.as_str()),
        is_error: info.is_error,
        duration_ms: info.duration_ms,
        duration_api_ms: info.duration_ms / 2,
        num_turns: info.num_turns,
        result: success.then(|| info.text.unwrap_or_default()),
        stop_reason: Some(success.then(|| "end_turn".to_owned())),
        session_id: meta.session_id.clone(),
        total_cost_usd: cost,
        usage: result_usage(),
        model_usage: [(meta.model.clone(), usage)].into_iter().collect(),
        permission_denials: info.permission_denials,
        errors: (!success).then(|| info.errors.unwrap_or_default()),
        api_error_status: success.then_some(None),
        terminal_reason: Some(TerminalReason::from(info.terminal_reason.as_str())),
        structured_output: info.structured_output,
        uuid: agent_frames::new_id(),
        ..ResultMessage::default()
    };
    agent_frames::result(result)
}

/// A success control response (for an id of the script's choosing, such as a wrong one).
pub(crate) fn control_success(request_id: &str, payload: Value) -> Message {
    let id = RequestId::Text(request_id.to_owned());
    Message::ControlResponse(Box::new(ControlResponse::success(id, Some(payload))))
}

/// The payload of a successful `initialize` response (smaller than the real ~18 KB).
pub(crate) fn initialize_payload(model: &str, permission_mode: &str) -> Value {
    let commands: Vec<Value> = COMMANDS
        .iter()
        .map(|(name, description)| {
            json!({"name": name, "description": description, "argumentHint": "", "builtin": true})
        })
        .collect();
    let agents: Vec<Value> = AGENTS
        .iter()
        .map(|(name, description)| json!({"name": name, "description": description}))
        .collect();
    json!({
        "commands": commands,
        "agents": agents,
        "output_style": "default",
        "available_output_styles": ["default", "Explanatory", "Learning"],
        "models": [
            model_entry("default", model, "Default (recommended)"),
            model_entry("opus", "claude-opus-5-5", "Opus"),
            model_entry("haiku", "claude-haiku-4-5", "Haiku")
        ],
        "account": {
            "tokenSource": "none",
            "apiKeySource": "ANTHROPIC_API_KEY",
            "apiProvider": "firstParty"
        },
        "pid": std::process::id(),
        "claude_code_version": VERSION,
        "current_permission_mode": permission_mode,
        "fast_mode_state": "off",
        "session_state": "idle",
        "capabilities": ["interrupt_receipt_v1"]
    })
}

fn model_entry(value: &str, resolved: &str, display: &str) -> Value {
    json!({
        "value": value,
        "resolvedModel": resolved,
        "displayName": display,
        "description": format!("{display} (fake)"),
        "supportsEffort": true,
        "supportedEffortLevels": ["low", "medium", "high"]
    })
}

/// The payload of a `get_context_usage` response.
pub(crate) fn context_usage(model: &str) -> Value {
    json!({
        "categories": [
            {"id": "system_prompt", "name": "System prompt", "tokens": 630, "color": "promptBorder", "kind": "used"},
            {"id": "messages", "name": "Messages", "tokens": 42, "color": "purple_FOR_SUBAGENTS_ONLY", "kind": "used"},
            {"id": "free_space", "name": "Free space", "tokens": 199_328, "color": "promptBorder", "kind": "free"}
        ],
        "gridRows": [[{"color": "promptBorder", "isFilled": true, "categoryName": "System prompt",
                       "tokens": 630, "percentage": 0, "squareFullness": 0.315}]],
        "memoryFiles": [],
        "mcpTools": [],
        "mcpInstructions": [],
        "agents": [],
        "slashCommands": {"totalCommands": 1, "includedCommands": 1, "tokens": 42},
        "autoCompactThreshold": 167_000,
        "isAutoCompactEnabled": true,
        "messageBreakdown": {"toolCallTokens": 0, "toolResultTokens": 0, "attachmentTokens": 0,
            "assistantMessageTokens": 0, "userMessageTokens": 0, "redirectedContextTokens": 0,
            "unattributedTokens": 42, "toolCallsByType": [], "attachmentsByType": []},
        "apiUsage": null,
        "totalTokens": 672,
        "maxTokens": 200_000,
        "rawMaxTokens": 200_000,
        "percentage": 0,
        "model": model,
        "autocompactSource": "auto"
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_start_with_the_type_then_the_subtype() {
        let frame = json!({"uuid": "u", "subtype": "init", "type": "system", "a": [1]});
        let text = String::from_utf8(line(&frame)).unwrap_or_default();
        assert_eq!(
            text,
            "{\"type\":\"system\",\"subtype\":\"init\",\"a\":[1],\"uuid\":\"u\"}\n"
        );
        assert_eq!(serde_json::from_str::<Value>(&text).ok(), Some(frame));
    }
}
