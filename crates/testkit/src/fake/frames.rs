//! Builders for the frames the fake writes, shaped like Claude Code 2.1.330's.

use serde_json::{json, Map, Value};

use super::io::{now_iso, uuid};

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

/// Who is speaking: the fields every session frame carries.
#[derive(Clone, Debug)]
pub(crate) struct Meta {
    pub(crate) session_id: String,
    pub(crate) model: String,
}

/// `usage` of one streamed API message as the CLI reports it on `assistant` frames.
fn message_usage() -> Value {
    json!({
        "input_tokens": 100,
        "output_tokens": 1,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0
    })
}

/// An `assistant` frame with one content block.
pub(crate) fn assistant(meta: &Meta, msg_id: &str, request_id: &str, block: Value) -> Value {
    json!({
        "type": "assistant",
        "message": {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": meta.model,
            "content": [block],
            "stop_reason": null,
            "stop_sequence": null,
            "usage": message_usage(),
            "context_management": null
        },
        "parent_tool_use_id": null,
        "session_id": meta.session_id,
        "uuid": uuid(),
        "timestamp": now_iso(),
        "request_id": request_id
    })
}

/// A text content block.
pub(crate) fn text_block(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// A `user` frame carrying one `tool_result` block.
pub(crate) fn tool_result(
    meta: &Meta,
    tool_use_id: &str,
    content: Value,
    is_error: bool,
    tool_use_result: Value,
    decision: Value,
) -> Value {
    json!({
        "type": "user",
        "message": {
            "role": "user",
            "content": [{
                "tool_use_id": tool_use_id,
                "type": "tool_result",
                "content": content,
                "is_error": is_error
            }]
        },
        "parent_tool_use_id": null,
        "session_id": meta.session_id,
        "uuid": uuid(),
        "timestamp": now_iso(),
        "tool_use_result": tool_use_result,
        "tool_result_meta": [{"id": tool_use_id, "permission_decision": decision}]
    })
}

/// A `user` frame with one text block (e.g. `[Request interrupted by user]`).
pub(crate) fn user_text(meta: &Meta, text: &str) -> Value {
    json!({
        "type": "user",
        "message": {"role": "user", "content": [text_block(text)]},
        "parent_tool_use_id": null,
        "session_id": meta.session_id,
        "uuid": uuid(),
        "timestamp": now_iso()
    })
}

/// A `stream_event` frame around one Messages API event.
pub(crate) fn stream_event(meta: &Meta, msg_id: &str, event: Value) -> Value {
    json!({
        "type": "stream_event",
        "event": event,
        "session_id": meta.session_id,
        "parent_tool_use_id": null,
        "uuid": uuid(),
        "api_message_id": msg_id
    })
}

/// The `message_start` event of a streamed message.
pub(crate) fn message_start(meta: &Meta, msg_id: &str) -> Value {
    json!({
        "type": "message_start",
        "message": {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": meta.model,
            "content": [],
            "stop_reason": null,
            "stop_sequence": null,
            "usage": message_usage()
        }
    })
}

/// A `system` frame of some subtype with extra fields, plus `uuid` and `session_id`.
pub(crate) fn system(meta: &Meta, subtype: &str, fields: Value) -> Value {
    let mut frame = Map::new();
    frame.insert("type".into(), json!("system"));
    frame.insert("subtype".into(), json!(subtype));
    if let Value::Object(fields) = fields {
        frame.extend(fields);
    }
    frame.insert("uuid".into(), json!(uuid()));
    frame.insert("session_id".into(), json!(meta.session_id));
    Value::Object(frame)
}

/// `system/session_state_changed`.
pub(crate) fn session_state(meta: &Meta, state: &str) -> Value {
    system(
        meta,
        "session_state_changed",
        json!({"state": state, "sdk_host_only": true}),
    )
}

/// What `system/init` reports besides the session identity.
pub(crate) struct InitInfo<'a> {
    pub(crate) cwd: &'a str,
    pub(crate) permission_mode: &'a str,
    pub(crate) mcp_servers: &'a [String],
}

/// The `system/init` frame sent at the start of every turn.
pub(crate) fn system_init(meta: &Meta, info: &InitInfo<'_>) -> Value {
    let mcp: Vec<Value> = info
        .mcp_servers
        .iter()
        .map(|s| json!({"name": s, "status": "connected", "source": "sdk"}))
        .collect();
    let commands: Vec<&str> = COMMANDS.iter().map(|(name, _)| *name).collect();
    let agents: Vec<&str> = AGENTS.iter().map(|(name, _)| *name).collect();
    json!({
        "type": "system",
        "subtype": "init",
        "cwd": info.cwd,
        "session_id": meta.session_id,
        "tools": TOOLS,
        "mcp_servers": mcp,
        "model": meta.model,
        "permissionMode": info.permission_mode,
        "slash_commands": commands,
        "apiKeySource": "ANTHROPIC_API_KEY",
        "claude_code_version": VERSION,
        "output_style": "default",
        "agents": agents,
        "skills": [],
        "plugins": [],
        "uuid": uuid(),
        "original_cwd": info.cwd,
        "additional_directories": [],
        "fast_mode_state": "off"
    })
}

/// The `usage` object of a `result`.
fn result_usage() -> Value {
    json!({
        "input_tokens": 100,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 20,
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
        "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0}
    })
}

/// Everything a `result` frame reports.
pub(crate) struct ResultInfo {
    pub(crate) subtype: String,
    pub(crate) is_error: bool,
    pub(crate) text: Option<String>,
    pub(crate) num_turns: u64,
    pub(crate) duration_ms: u64,
    pub(crate) permission_denials: Vec<Value>,
    pub(crate) terminal_reason: String,
    pub(crate) structured_output: Option<Value>,
    pub(crate) errors: Option<Vec<String>>,
}

/// A `result` frame.
pub(crate) fn result(meta: &Meta, info: ResultInfo) -> Value {
    let cost = 0.0008 * info.num_turns.max(1) as f64;
    let success = info.subtype == "success";
    let mut frame = json!({
        "type": "result",
        "subtype": info.subtype,
        "is_error": info.is_error,
        "duration_ms": info.duration_ms,
        "duration_api_ms": info.duration_ms / 2,
        "num_turns": info.num_turns,
        "stop_reason": if success { json!("end_turn") } else { Value::Null },
        "session_id": meta.session_id,
        "total_cost_usd": cost,
        "usage": result_usage(),
        "modelUsage": {
            meta.model.clone(): {
                "inputTokens": 100 * info.num_turns,
                "outputTokens": 20 * info.num_turns,
                "cacheReadInputTokens": 0,
                "cacheCreationInputTokens": 0,
                "webSearchRequests": 0,
                "costUSD": cost,
                "contextWindow": 200_000,
                "maxOutputTokens": 32_000
            }
        },
        "permission_denials": info.permission_denials,
        "terminal_reason": info.terminal_reason,
        "uuid": uuid()
    });
    if let Value::Object(map) = &mut frame {
        if success {
            map.insert("result".into(), json!(info.text.unwrap_or_default()));
            map.insert("api_error_status".into(), Value::Null);
        } else {
            map.insert("errors".into(), json!(info.errors.unwrap_or_default()));
        }
        if let Some(out) = info.structured_output {
            map.insert("structured_output".into(), out);
        }
    }
    frame
}

/// A success control response.
pub(crate) fn control_success(request_id: &str, payload: Value) -> Value {
    json!({
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request_id, "response": payload}
    })
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
