//! Frames of the wire (a recording's or a capture's): what each kind says in a row. Prompts,
//! answers, tool calls by kind and tool results; each control request paired with its answer
//! (the round trip, and for a permission the decision); a result's cost, tokens and time.

use serde_json::Value;
use twinwire_protocol::{InputMessage, Message};

use super::markdown;
use super::model::{Cost, Output, Reader, Row};
use super::text::{block, blocks, content_text, one_line, text};
use super::tools::ToolView;

/// Lines of a tool result shown under its call.
const RESULT_LINES: usize = 12;
/// Widest line of a tool result shown.
const RESULT_WIDTH: usize = 300;

/// Marks what the schema does not know, reading the frame typed.
pub(super) fn mark_typing(dir: &str, text: &str, row: &mut Row<'_>) {
    if dir == "out" {
        match Message::from_json(text) {
            Ok(message) if message.as_unknown().is_some() => row.marks.push("unknown"),
            Ok(message) if message.as_malformed().is_some() => row.marks.push("malformed"),
            Err(_) => row.marks.push("malformed"),
            _ => {}
        }
    } else if dir == "in" && InputMessage::from_json(text).is_err() {
        row.marks.push("malformed");
    }
}

/// Whether a user message carries tool results.
pub(super) fn is_tool_result(value: &Value) -> bool {
    blocks(&value["message"]["content"]).any(|b| b["type"] == "tool_result")
}

impl Reader {
    pub(super) fn describe_frame(&mut self, value: &Value, row: &mut Row<'_>) {
        match row.kind.split('/').next().unwrap_or_default() {
            "user" => describe_user(value, row),
            "assistant" => describe_assistant(value, row),
            "result" => {
                describe_result(value, row, self.session_cost);
                // `total_cost_usd` counts the whole session so far (it starts again with a
                // new process).
                if let Some(total) = value["total_cost_usd"].as_f64() {
                    self.session_cost = total;
                }
                if let Some(cost) = &row.cost {
                    let totals = &mut self.totals;
                    *totals.usd.get_or_insert(0.0) += cost.usd.unwrap_or(0.0);
                    totals.input_tokens += cost.input_tokens;
                    totals.output_tokens += cost.output_tokens;
                    totals.duration_ms += cost.duration_ms;
                    totals.cost_basis = "as the CLI's results report it".to_owned();
                }
            }
            "control_request" => {
                row.marks.push("control");
                row.role = "control";
                let request = &value["request"];
                let subtype = text(&request["subtype"]).to_owned();
                self.open_request(value["request_id"].to_string(), row.t, subtype.clone());
                row.summary = match subtype.as_str() {
                    "can_use_tool" => {
                        let name = text(&request["tool_name"]);
                        let view = ToolView::of(name, &request["input"]);
                        let summary = format!("can_use_tool {}", view.summary());
                        row.tools.push(view);
                        summary
                    }
                    _ => format!("{} request", one_line(&subtype, 60)),
                };
            }
            "control_response" => self.describe_response(value, row),
            "system" => describe_system(value, row),
            _ => row.summary = one_line(&value.to_string(), 160),
        }
    }

    /// A control response, paired with its request: the round trip, and for a permission
    /// the decision.
    fn describe_response(&mut self, value: &Value, row: &mut Row<'_>) {
        row.marks.push("control");
        row.role = "control";
        let response = &value["response"];
        let (asked_at, subtype) = self.close_request(&response["request_id"].to_string());
        if let (Some(start), Some(end)) = (asked_at, row.t) {
            row.rtt_ms = Some(((end - start) * 1000.0).max(0.0));
        }
        let payload = &response["response"];
        let verdict = if response["subtype"] == "error" {
            row.marks.push("error");
            format!("error: {}", one_line(text(&response["error"]), 120))
        } else if subtype == "can_use_tool" {
            let behavior = text(&payload["behavior"]);
            row.marks
                .push(if behavior == "allow" { "allow" } else { "deny" });
            match payload["message"].as_str() {
                Some(message) => format!("{behavior}: {}", one_line(message, 120)),
                None => behavior.to_owned(),
            }
        } else {
            "success".to_owned()
        };
        let rtt = row
            .rtt_ms
            .map(|ms| format!(" in {ms:.0} ms"))
            .unwrap_or_default();
        let what = if subtype.is_empty() {
            "request"
        } else {
            subtype.as_str()
        };
        row.summary = format!("{} answered{rtt}: {verdict}", one_line(what, 60));
    }
}

/// A user message: a prompt, or tool results.
pub(super) fn describe_user(value: &Value, row: &mut Row<'_>) {
    let content = &value["message"]["content"];
    if is_tool_result(value) {
        row.role = "result";
        let mut summaries = Vec::new();
        for result in blocks(content).filter(|b| b["type"] == "tool_result") {
            let output = tool_output(result);
            if output.error {
                row.marks.push("error");
            }
            summaries.push(one_line(&output.lines.join(" "), 160));
            // One output per row: a message with several results shows the first, the rest
            // in its summary and JSON.
            if row.output.is_none() {
                row.output = Some(output);
            }
        }
        row.summary = format!("↳ {}", summaries.join(" · "));
    } else {
        row.role = "prompt";
        let prompt = content_text(content);
        let images = blocks(content).filter(|b| b["type"] == "image").count();
        row.summary = one_line(&prompt, 200);
        if images > 0 {
            row.summary = format!("{} [{images} image(s)]", row.summary);
        }
        row.html = markdown::render(&prompt);
    }
}

/// A tool result's output: its first lines, and whether it is an error.
pub(super) fn tool_output(result: &Value) -> Output {
    let body = match &result["content"] {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|b| match b["type"].as_str() {
                Some("text") => text(&b["text"]).to_owned(),
                Some(other) => format!("[{other}]"),
                None => String::new(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    };
    let (lines, more) = block(&body, RESULT_LINES, RESULT_WIDTH);
    Output {
        lines,
        more,
        error: result["is_error"] == true,
        decision: String::new(),
    }
}

/// An assistant message: text, thinking, tool calls.
pub(super) fn describe_assistant(value: &Value, row: &mut Row<'_>) {
    let mut parts = Vec::new();
    let mut texts = Vec::new();
    for block in blocks(&value["message"]["content"]) {
        match block["type"].as_str() {
            Some("text") => {
                texts.push(text(&block["text"]));
                parts.push(one_line(text(&block["text"]), 160));
            }
            Some("tool_use" | "server_tool_use" | "mcp_tool_use") => {
                row.marks.push("tool");
                let view = ToolView::of(text(&block["name"]), &block["input"]);
                parts.push(format!("▸ {}", view.summary()));
                row.tools.push(view);
            }
            Some("thinking") => {
                parts.push(format!("✻ {}", one_line(text(&block["thinking"]), 120)))
            }
            Some("redacted_thinking") => parts.push("✻ (redacted)".to_owned()),
            Some(other) => parts.push(format!("[{}]", one_line(other, 40))),
            None => {}
        }
    }
    row.role = if !row.tools.is_empty() {
        "tool"
    } else if texts.is_empty() && !parts.is_empty() {
        "thinking"
    } else {
        "answer"
    };
    row.summary = parts.join(" ");
    row.html = markdown::render(&texts.join("\n\n"));
}

/// A system frame: what its subtype says, without the fields every frame has.
fn describe_system(value: &Value, row: &mut Row<'_>) {
    row.role = "note";
    let field = |key: &str| one_line(text(&value[key]), 120);
    row.summary = match value["subtype"].as_str() {
        Some("init") => format!(
            "session {} · model {} · {} tools · {}{}",
            field("session_id"),
            field("model"),
            value["tools"].as_array().map_or(0, Vec::len),
            field("cwd"),
            value["claude_code_version"]
                .as_str()
                .map(|v| format!(" · Claude Code {}", one_line(v, 40)))
                .unwrap_or_default()
        ),
        Some("session_state_changed") => format!("state: {}", field("state")),
        _ => {
            let mut rest = value.as_object().cloned().unwrap_or_default();
            for key in ["type", "subtype", "uuid", "session_id"] {
                rest.remove(key);
            }
            one_line(&Value::Object(rest).to_string(), 160)
        }
    };
}

/// A result: the turn's cost (the CLI reports the session's total so far), tokens and time.
fn describe_result(value: &Value, row: &mut Row<'_>, cost_before: f64) {
    row.role = "note";
    let total = value["total_cost_usd"].as_f64().unwrap_or(0.0);
    let cost = Cost {
        usd: Some(if total >= cost_before {
            total - cost_before
        } else {
            total
        }),
        input_tokens: value["usage"]["input_tokens"].as_u64().unwrap_or(0),
        output_tokens: value["usage"]["output_tokens"].as_u64().unwrap_or(0),
        duration_ms: value["duration_ms"].as_u64().unwrap_or(0),
    };
    if value["is_error"] == true {
        row.marks.push("error");
    }
    let answer = value["result"]
        .as_str()
        .map(|r| format!(" · {}", one_line(r, 100)));
    row.summary = format!(
        "{} · ${:.4} · {} in / {} out tokens · {:.1} s{}",
        row.kind,
        cost.usd.unwrap_or(0.0),
        cost.input_tokens,
        cost.output_tokens,
        cost.duration_ms as f64 / 1000.0,
        answer.unwrap_or_default()
    );
    row.cost = Some(cost);
}
