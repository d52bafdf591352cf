//! What the page shows, read from any of the inputs `ccwire view` takes: one row per frame (or
//! session entry), with its direction, time, kind, a one-line summary, details to expand, and
//! what the page marks (permission decisions, errors, malformed or unknown frames).

use std::collections::HashMap;

use ccwire_protocol::recording::{Direction, RecordLine};
use ccwire_protocol::{InputMessage, Message};
use serde::Serialize;
use serde_json::Value;

use super::markdown;

/// One row of the page.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Row {
    /// `in` (host → CLI), `out` (CLI → host), or `entry` (a saved session's entry).
    pub dir: &'static str,
    /// Seconds from the start, when the input has times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t: Option<f64>,
    /// `type` or `type/subtype`.
    pub kind: String,
    /// The turn it belongs to, from 1.
    pub turn: usize,
    /// One line of text.
    pub summary: String,
    /// Assistant text rendered from Markdown, safely (see [`markdown`]).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub html: String,
    /// The frame as read, pretty-printed.
    pub raw: String,
    /// Marks: `allow`, `deny`, `error`, `malformed`, `unknown`, `tool`, `control`.
    pub marks: Vec<&'static str>,
    /// For a control response: the round trip since its request, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt_ms: Option<f64>,
    /// For a result: cost, tokens and duration.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<TurnCost>,
}

/// What a turn cost.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct TurnCost {
    /// US dollars spent in this turn (the CLI reports the session's total so far).
    pub usd: f64,
    /// Input and output tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Milliseconds.
    pub duration_ms: u64,
}

/// Rows from the lines of an input of any supported kind.
pub fn read(lines: impl Iterator<Item = String>) -> Vec<Row> {
    let mut reader = Reader {
        rows: Vec::new(),
        turn: 1,
        prompted: false,
        prompted_ever: false,
        ended: false,
        session_cost: 0.0,
        open: HashMap::new(),
    };
    for (index, line) in lines.enumerate() {
        reader.line(index + 1, &line);
    }
    reader.rows
}

struct Reader {
    rows: Vec<Row>,
    /// The current turn, from 1.
    turn: usize,
    /// Whether the current turn has its prompt.
    prompted: bool,
    /// Whether the input holds the host's prompts at all.
    prompted_ever: bool,
    /// Whether the current turn has its result.
    ended: bool,
    /// The session's cost at the latest result.
    session_cost: f64,
    /// Control requests not yet answered: id → (time, subtype).
    open: HashMap<String, (Option<f64>, String)>,
}

impl Reader {
    fn line(&mut self, number: usize, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        // A recording line, a frame, or a session entry.
        if let Ok(record) = RecordLine::parse(line) {
            if record.msg.is_some() || record.raw.is_some() || record.dropped.is_some() {
                let dir = match record.direction() {
                    Some(Direction::In) => "in",
                    Some(Direction::Out) => "out",
                    None => return,
                };
                match (&record.msg, &record.raw) {
                    (Some(msg), _) => self.frame(dir, Some(record.t), msg.get()),
                    (None, Some(raw)) => self.raw_line(dir, Some(record.t), raw, "not JSON"),
                    (None, None) => {
                        self.raw_line(dir, Some(record.t), "", "dropped: over the line limit")
                    }
                }
                return;
            }
            if record.dir == "meta" {
                return;
            }
        }
        match serde_json::from_str::<Value>(line) {
            Ok(value) if value.get("type").is_some() => {
                let is_entry =
                    value.get("parentUuid").is_some() || value.get("sessionId").is_some();
                let dir = if is_entry {
                    "entry"
                } else {
                    direction_of(&value)
                };
                self.frame(dir, None, line);
            }
            _ => self.raw_line("out", None, line, &format!("line {number} is not a frame")),
        }
    }

    fn raw_line(&mut self, dir: &'static str, t: Option<f64>, text: &str, why: &str) {
        self.rows.push(Row {
            dir,
            t,
            kind: "raw".into(),
            turn: self.turn,
            summary: format!("{why}: {}", one_line(text, 200)),
            raw: text.to_owned(),
            marks: vec!["malformed"],
            ..Row::default()
        });
    }

    fn frame(&mut self, dir: &'static str, t: Option<f64>, text: &str) {
        let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let kind = kind_of(&value);
        let raw = serde_json::to_string_pretty(&value).unwrap_or_else(|_| text.to_owned());
        let mut row = Row {
            dir,
            t,
            kind: kind.clone(),
            raw,
            ..Row::default()
        };
        // Typed reading marks what the schema does not know.
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
        // A turn starts with the host's prompt, or (in a capture of the CLI's output alone)
        // with whatever follows a result.
        let is_prompt = kind == "user" && dir != "out" && !is_tool_result(&value);
        let new_turn = if is_prompt {
            self.prompted || self.ended
        } else {
            // Without the host's side (a capture of the CLI's output), a result ends a turn.
            self.ended && !self.prompted_ever && !kind.starts_with("control")
        };
        if new_turn {
            self.turn += 1;
            self.ended = false;
            self.prompted = false;
        }
        self.prompted |= is_prompt;
        self.prompted_ever |= is_prompt;
        if kind.starts_with("result") {
            self.ended = true;
        }
        row.turn = self.turn;
        self.describe(&value, &mut row);
        self.rows.push(row);
    }

    fn describe(&mut self, value: &Value, row: &mut Row) {
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
            }
            "control_request" => {
                row.marks.push("control");
                let request = &value["request"];
                let subtype = text(&request["subtype"]);
                self.open
                    .insert(value["request_id"].to_string(), (row.t, subtype.clone()));
                row.summary = match subtype.as_str() {
                    "can_use_tool" => format!(
                        "can_use_tool {}({})",
                        text(&request["tool_name"]),
                        one_line(&request["input"].to_string(), 120)
                    ),
                    _ => format!("{subtype} request"),
                };
            }
            "control_response" => self.describe_response(value, row),
            "system" => describe_system(value, row),
            _ => row.summary = one_line(&value.to_string(), 160),
        }
    }

    /// A control response, paired with its request: the round trip, and for a permission
    /// the decision.
    fn describe_response(&mut self, value: &Value, row: &mut Row) {
        row.marks.push("control");
        let response = &value["response"];
        let (asked_at, subtype) = self
            .open
            .remove(&response["request_id"].to_string())
            .unwrap_or((None, String::new()));
        if let (Some(start), Some(end)) = (asked_at, row.t) {
            row.rtt_ms = Some(((end - start) * 1000.0).max(0.0));
        }
        let payload = &response["response"];
        let verdict = if response["subtype"] == "error" {
            row.marks.push("error");
            format!("error: {}", one_line(&text(&response["error"]), 120))
        } else if subtype == "can_use_tool" {
            let behavior = text(&payload["behavior"]);
            row.marks
                .push(if behavior == "allow" { "allow" } else { "deny" });
            match payload["message"].as_str() {
                Some(message) => format!("{behavior}: {}", one_line(message, 120)),
                None => behavior,
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
        row.summary = format!("{what} answered{rtt}: {verdict}");
    }
}

fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_owned()
}

fn describe_user(value: &Value, row: &mut Row) {
    let content = &value["message"]["content"];
    if is_tool_result(value) {
        let results: Vec<String> = blocks(content)
            .filter(|b| b["type"] == "tool_result")
            .map(|b| {
                if b["is_error"] == true {
                    row.marks.push("error");
                }
                one_line(&block_text(&b["content"]), 160)
            })
            .collect();
        row.summary = format!("↳ {}", results.join(" · "));
    } else {
        let prompt = match content {
            Value::String(s) => s.clone(),
            other => blocks(other)
                .map(|b| text(&b["text"]))
                .collect::<Vec<_>>()
                .join(" "),
        };
        row.summary = one_line(&prompt, 200);
        row.html = markdown::render(&prompt);
    }
}

fn describe_assistant(value: &Value, row: &mut Row) {
    let mut parts = Vec::new();
    let mut texts = Vec::new();
    for block in blocks(&value["message"]["content"]) {
        match block["type"].as_str() {
            Some("text") => {
                texts.push(text(&block["text"]));
                parts.push(one_line(&text(&block["text"]), 160));
            }
            Some("tool_use" | "server_tool_use" | "mcp_tool_use") => {
                row.marks.push("tool");
                let input = one_line(&block["input"].to_string(), 120);
                parts.push(format!("▸ {}({input})", text(&block["name"])));
            }
            Some("thinking") => {
                parts.push(format!("✻ {}", one_line(&text(&block["thinking"]), 120)))
            }
            Some(other) => parts.push(format!("[{other}]")),
            None => {}
        }
    }
    row.summary = parts.join(" ");
    row.html = markdown::render(&texts.join("\n\n"));
}

/// A system frame: what its subtype says, without the fields every frame has.
fn describe_system(value: &Value, row: &mut Row) {
    let field = |key: &str| value[key].as_str().unwrap_or_default();
    row.summary = match value["subtype"].as_str() {
        Some("init") => format!(
            "session {} · model {} · {} tools · {}{}",
            field("session_id"),
            field("model"),
            value["tools"].as_array().map_or(0, Vec::len),
            field("cwd"),
            value["claude_code_version"]
                .as_str()
                .map(|v| format!(" · Claude Code {v}"))
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

fn describe_result(value: &Value, row: &mut Row, cost_before: f64) {
    let total = value["total_cost_usd"].as_f64().unwrap_or(0.0);
    let cost = TurnCost {
        usd: if total >= cost_before {
            total - cost_before
        } else {
            total
        },
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
        cost.usd,
        cost.input_tokens,
        cost.output_tokens,
        cost.duration_ms as f64 / 1000.0,
        answer.unwrap_or_default()
    );
    row.cost = Some(cost);
}

fn direction_of(value: &Value) -> &'static str {
    // A plain capture is the CLI's stdout; the host's own kinds are shown as sent.
    match value["type"].as_str() {
        Some("user")
            if value.get("parent_tool_use_id").is_some() && value.get("uuid").is_none() =>
        {
            "in"
        }
        _ => "out",
    }
}

fn kind_of(value: &Value) -> String {
    let kind = value["type"].as_str().unwrap_or("?");
    let subtype = match kind {
        "system" | "result" => value["subtype"].as_str(),
        "control_request" => value["request"]["subtype"].as_str(),
        "control_response" => value["response"]["subtype"].as_str(),
        _ => None,
    };
    match subtype {
        Some(subtype) => format!("{kind}/{subtype}"),
        None => kind.to_owned(),
    }
}

fn is_tool_result(value: &Value) -> bool {
    blocks(&value["message"]["content"]).any(|b| b["type"] == "tool_result")
}

fn blocks(content: &Value) -> impl Iterator<Item = &Value> {
    content.as_array().into_iter().flatten()
}

fn block_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

/// `text` on one line, cut at `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::run::truncate(&line, max)
}
