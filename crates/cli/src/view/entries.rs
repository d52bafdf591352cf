//! A saved session's entries, read as a conversation: prompts (a slash command as typed),
//! answers, tool calls, tool results with the permission decision the session recorded,
//! notes (compaction, a command's output, system messages), and the bookkeeping the CLI keeps
//! beside them (queue operations, attachments, latches, snapshots, titles, summaries, costs…),
//! which the page folds away. Each model response's usage is counted once (the CLI writes one
//! entry per content block, each with the whole response's usage) and priced at list prices;
//! the session's own count (its `cost-state` entry) wins when it has one.

use serde_json::Value;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use super::frames::{describe_assistant, describe_user, is_tool_result};
use super::markdown;
use super::model::{Cost, Reader, Row, SessionHeader, SessionState, Totals};
use super::prices::{cost_of, PRICES_OF};
use super::text::{content_text, cut, one_line, text};

/// Message ids remembered to count each response once (its entries come one after another).
const RECENT_MESSAGES: usize = 16;
/// Models named in the header, at most.
const MAX_MODELS: usize = 8;

/// Entry types that carry no session id in some CLI versions.
const BARE_ENTRY_TYPES: &[&str] = &["summary", "custom-title", "ai-title", "tag", "cost-state"];

/// Whether a JSON line is a saved session's entry rather than a frame of the wire (frames
/// spell `session_id`; entries `sessionId`, and chain through `parentUuid` or `leafUuid`).
pub fn is_entry(value: &Value) -> bool {
    ["sessionId", "parentUuid", "leafUuid"]
        .iter()
        .any(|key| value.get(key).is_some())
        || value["type"]
            .as_str()
            .is_some_and(|t| BARE_ENTRY_TYPES.contains(&t))
}

impl SessionState {
    /// The header, from what the entries said and what the store's summary of the session
    /// (read before the rows) said.
    pub fn header(&self, known: Option<&twinwire::sessions::SessionInfo>) -> SessionHeader {
        let known_title = known.and_then(|info| info.custom_title.clone());
        let id = self
            .id
            .clone()
            .or_else(|| known.map(|info| info.session_id.clone()))
            .unwrap_or_default();
        let title = self
            .custom_title
            .clone()
            .or(known_title)
            .or_else(|| self.ai_title.clone())
            .unwrap_or_else(|| format!("session {id}"));
        // The latest compaction summary, else the first prompt (the store's `summary` is the
        // latest prompt, as the official SDKs show it: not what this page says it shows).
        let summary = self
            .summary
            .clone()
            .filter(|s| *s != title)
            .or_else(|| self.first_prompt.clone())
            .or_else(|| known.and_then(|info| info.first_prompt.clone()))
            .unwrap_or_default();
        let or_known = |own: &Option<String>, theirs: Option<&Option<String>>| {
            own.clone()
                .or_else(|| theirs.cloned().flatten())
                .unwrap_or_default()
        };
        SessionHeader {
            title: cut(&title, 200),
            summary: one_line(&summary, 400),
            cwd: or_known(&self.cwd, known.map(|i| &i.cwd)),
            branch: or_known(&self.branch, known.map(|i| &i.git_branch)),
            version: self.version.clone().unwrap_or_default(),
            models: self.models.iter().cloned().collect(),
            tag: or_known(&self.tag, known.map(|i| &i.tag)),
            id,
        }
    }

    /// The session's cost, tokens and time: its own count when it has one, else the list
    /// price of each response.
    pub fn complete(&self, totals: &mut Totals) {
        if totals.entries == 0 {
            return;
        }
        totals.unpriced = self.unpriced;
        match &self.own_cost {
            Some(state) => {
                totals.usd = state["totalCostUSD"].as_f64();
                totals.cost_basis = "the session's own count (its cost-state entry)".to_owned();
                totals.duration_ms = state["totalDuration"].as_u64().unwrap_or(0);
                let models = state["modelUsage"].as_object().into_iter().flatten();
                let (mut input, mut output) = (0, 0);
                for (_, usage) in models {
                    input += usage["inputTokens"].as_u64().unwrap_or(0);
                    output += usage["outputTokens"].as_u64().unwrap_or(0);
                }
                totals.input_tokens = input;
                totals.output_tokens = output;
            }
            None => {
                totals.usd = self.estimated_usd;
                totals.cost_basis = format!(
                    "estimated from {PRICES_OF}'s list prices (the session has no cost-state entry)"
                );
                totals.duration_ms = (self.last_t * 1000.0) as u64;
                totals.input_tokens = self.input_tokens;
                totals.output_tokens = self.output_tokens;
            }
        }
    }

    /// Seconds from the session's first timed entry.
    fn time_of(&mut self, value: &Value) -> Option<f64> {
        let at = OffsetDateTime::parse(value["timestamp"].as_str()?, &Rfc3339).ok()?;
        let started = *self.started.get_or_insert(at);
        let t = (at - started).as_seconds_f64();
        self.last_t = self.last_t.max(t);
        Some(t)
    }

    /// Whether this response was counted already (true for its second block on).
    fn counted(&mut self, message_id: &str) -> bool {
        if message_id.is_empty() {
            return false;
        }
        if self.recent_messages.iter().any(|id| id == message_id) {
            return true;
        }
        if self.recent_messages.len() == RECENT_MESSAGES {
            self.recent_messages.pop_front();
        }
        self.recent_messages.push_back(message_id.to_owned());
        false
    }

    fn remember(slot: &mut Option<String>, value: &Value) {
        if slot.is_none() {
            if let Some(text) = value.as_str().filter(|s| !s.is_empty()) {
                *slot = Some(cut(text, 200));
            }
        }
    }
}

impl Reader {
    /// A session entry's row.
    pub(super) fn describe_entry(&mut self, value: &Value, row: &mut Row<'_>) {
        let session = &mut self.session;
        row.t = session.time_of(value);
        SessionState::remember(&mut session.id, &value["sessionId"]);
        SessionState::remember(&mut session.version, &value["version"]);
        SessionState::remember(&mut session.cwd, &value["cwd"]);
        if let Some(branch) = value["gitBranch"].as_str().filter(|b| !b.is_empty()) {
            session.branch = Some(cut(branch, 200));
        }
        let meta = value["isMeta"] == true;
        match value["type"].as_str().unwrap_or_default() {
            "user" if meta => bookkeeping(row, "meta", &content_text(&value["message"]["content"])),
            "user" => self.user_entry(value, row),
            "assistant" => self.assistant_entry(value, row),
            "system" if meta => bookkeeping(row, "meta", text(&value["content"])),
            "system" => system_entry(value, row),
            other => self.bookkeeping_entry(other, value, row),
        }
        row.turn = self.turn;
    }

    fn user_entry(&mut self, value: &Value, row: &mut Row<'_>) {
        if is_tool_result(value) {
            describe_user(value, row);
            decision(value, row);
            return;
        }
        let content = content_text(&value["message"]["content"]);
        if value["isCompactSummary"] == true {
            row.role = "note";
            row.summary = format!("compacted; the summary: {}", one_line(&content, 160));
            row.html = markdown::render(&content);
            return;
        }
        if let Some(output) = command_output(&content) {
            row.role = "note";
            row.summary = one_line(&output, 200);
            return;
        }
        describe_user(value, row);
        if let Some(command) = slash_command(&content) {
            row.summary = one_line(&command, 200);
            row.html = markdown::render(&format!("`{command}`"));
        }
        self.start_prompt();
        SessionState::remember(
            &mut self.session.first_prompt,
            &Value::String(row.summary.clone()),
        );
    }

    fn assistant_entry(&mut self, value: &Value, row: &mut Row<'_>) {
        describe_assistant(value, row);
        let message = &value["message"];
        if value["isApiErrorMessage"] == true || value["error"].is_string() {
            row.marks.push("error");
        }
        let model = text(&message["model"]);
        let session = &mut self.session;
        if session.counted(text(&message["id"])) {
            return;
        }
        let usage = &message["usage"];
        let cost = Cost {
            usd: cost_of(model, usage),
            input_tokens: usage["input_tokens"].as_u64().unwrap_or(0),
            output_tokens: usage["output_tokens"].as_u64().unwrap_or(0),
            duration_ms: 0,
        };
        if cost.input_tokens + cost.output_tokens == 0 {
            return;
        }
        if session.models.len() < MAX_MODELS && !model.is_empty() {
            session.models.insert(cut(model, 80));
        }
        session.input_tokens += cost.input_tokens;
        session.output_tokens += cost.output_tokens;
        match cost.usd {
            Some(usd) => *session.estimated_usd.get_or_insert(0.0) += usd,
            None => session.unpriced += 1,
        }
        row.marks.push("estimated");
        row.cost = Some(cost);
    }

    fn bookkeeping_entry(&mut self, kind: &str, value: &Value, row: &mut Row<'_>) {
        let session = &mut self.session;
        let field = |key: &str| text(&value[key]).to_owned();
        let about = match kind {
            "summary" => {
                session.summary = Some(cut(text(&value["summary"]), 2000));
                field("summary")
            }
            "custom-title" => {
                session.custom_title = Some(cut(text(&value["customTitle"]), 200));
                field("customTitle")
            }
            "ai-title" => {
                session.ai_title = Some(cut(text(&value["aiTitle"]), 200));
                field("aiTitle")
            }
            "tag" => {
                session.tag = Some(cut(text(&value["tag"]), 200));
                field("tag")
            }
            "cost-state" => {
                session.own_cost = Some(cost_state(value));
                format!(
                    "${:.4} · {:.1} s",
                    value["totalCostUSD"].as_f64().unwrap_or(0.0),
                    value["totalDuration"].as_f64().unwrap_or(0.0) / 1000.0
                )
            }
            "queue-operation" => format!("{} {}", field("operation"), field("content")),
            "attachment" => {
                let attachment = &value["attachment"];
                let detail = ["filename", "content", "text", "prompt"]
                    .iter()
                    .find_map(|key| attachment[*key].as_str())
                    .unwrap_or_default();
                format!("{} {detail}", text(&attachment["type"]))
            }
            "last-prompt" => field("lastPrompt"),
            "api-request" => field("querySource"),
            "mode" => field("mode"),
            "agent-name" => field("agentName"),
            "tools-used" => value["tools"].to_string(),
            _ => String::new(),
        };
        bookkeeping(row, kind, &about);
    }
}

/// Only the fields of a `cost-state` entry the totals use (its model usage can be large).
fn cost_state(value: &Value) -> Value {
    let mut kept = serde_json::Map::new();
    for key in ["totalCostUSD", "totalDuration", "modelUsage"] {
        kept.insert(key.to_owned(), value[key].clone());
    }
    Value::Object(kept)
}

/// A row folded away with the rest of the bookkeeping.
fn bookkeeping(row: &mut Row<'_>, kind: &str, about: &str) {
    row.role = "bookkeeping";
    row.summary = one_line(&format!("{kind} {about}"), 160);
}

/// A system entry: a note of what happened (compaction, a command's output, an API error…).
fn system_entry(value: &Value, row: &mut Row<'_>) {
    row.role = "note";
    let content = text(&value["content"]);
    let subtype = text(&value["subtype"]);
    row.summary = match subtype {
        "compact_boundary" => format!(
            "conversation compacted ({}, {} tokens before)",
            text(&value["compactMetadata"]["trigger"]),
            value["compactMetadata"]["preTokens"]
        ),
        "turn_duration" => {
            let ms = value["durationMs"].as_u64().unwrap_or(0);
            row.cost = Some(Cost {
                duration_ms: ms,
                ..Cost::default()
            });
            format!("turn took {:.1} s", ms as f64 / 1000.0)
        }
        _ => {
            let shown = command_output(content).unwrap_or_else(|| content.to_owned());
            one_line(&format!("{subtype}: {shown}"), 200)
        }
    };
    if value["level"] == "error" || subtype == "api_error" {
        row.marks.push("error");
    }
}

/// The permission decision the session recorded with a tool result.
fn decision(value: &Value, row: &mut Row<'_>) {
    let recorded = &value["permissionDecision"];
    let Some(verdict) = recorded["decision"].as_str() else {
        return;
    };
    let allowed = matches!(verdict, "accept" | "allow");
    row.marks.push(if allowed { "allow" } else { "deny" });
    let how: Vec<&str> = [&recorded["source"], &recorded["grantScope"]]
        .into_iter()
        .filter_map(Value::as_str)
        .collect();
    let said = format!(
        "{}{}",
        if allowed { "allowed" } else { "denied" },
        if how.is_empty() {
            String::new()
        } else {
            format!(" ({})", how.join(", "))
        }
    );
    if let Some(output) = &mut row.output {
        output.decision = cut(&said, 120);
    }
    row.summary = format!("{} · {said}", row.summary);
}

/// `/name args` from the tags the CLI writes for a slash command.
fn slash_command(content: &str) -> Option<String> {
    let name = between(content, "<command-name>", "</command-name>")?;
    let args = between(content, "<command-args>", "</command-args>").unwrap_or_default();
    Some(format!("{} {}", name.trim(), args.trim()).trim().to_owned())
}

/// The output of a local command (`/rename`, `!ls`), without its tags.
fn command_output(content: &str) -> Option<String> {
    [
        "local-command-stdout",
        "local-command-stderr",
        "bash-stdout",
        "bash-stderr",
    ]
    .iter()
    .find_map(|tag| between(content, &format!("<{tag}>"), &format!("</{tag}>")))
    .map(str::to_owned)
}

fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let end = text[start..].find(close)? + start;
    Some(&text[start..end])
}

#[cfg(test)]
mod tests {
    use super::super::lines::Line;
    use super::*;

    /// The header and totals of a session given as lines.
    fn read(lines: &[&str]) -> (SessionHeader, Totals) {
        let mut reader = Reader::new();
        for (i, line) in lines.iter().enumerate() {
            reader
                .read(i as u64 + 1, Line::Text(line), &mut |_| Ok(()))
                .unwrap();
        }
        (reader.session_header(None), reader.totals())
    }

    #[test]
    fn the_header_takes_the_latest_title_and_summary() {
        let (header, totals) = read(&[
            r#"{"type":"summary","summary":"Fixing the parser","leafUuid":"u"}"#,
            r#"{"type":"user","message":{"role":"user","content":"Fix it"},"uuid":"a","sessionId":"s","timestamp":"2026-01-01T00:00:00.000Z"}"#,
            r#"{"type":"assistant","message":{"id":"m","model":"claude-haiku-4-5","content":[{"type":"text","text":"Done"}],"usage":{"input_tokens":1000,"output_tokens":100}},"uuid":"b","sessionId":"s","timestamp":"2026-01-01T00:00:02.500Z"}"#,
            r#"{"type":"assistant","message":{"id":"m","model":"claude-haiku-4-5","content":[{"type":"text","text":"!"}],"usage":{"input_tokens":1000,"output_tokens":100}},"uuid":"c","sessionId":"s","timestamp":"2026-01-01T00:00:03.000Z"}"#,
            r#"{"type":"custom-title","customTitle":"Old title","sessionId":"s"}"#,
            r#"{"type":"custom-title","customTitle":"Parser fix","sessionId":"s"}"#,
        ]);
        assert_eq!(
            (header.title.as_str(), header.summary.as_str()),
            ("Parser fix", "Fixing the parser")
        );
        assert_eq!(header.models, ["claude-haiku-4-5"]);
        // One response, counted once, at Haiku 4.5's list price; timed from the first entry.
        assert_eq!((totals.input_tokens, totals.output_tokens), (1000, 100));
        assert!((totals.usd.unwrap() - 0.0015).abs() < 1e-12, "{totals:?}");
        assert!(totals.cost_basis.starts_with("estimated"), "{totals:?}");
        assert_eq!(totals.duration_ms, 3000);
    }

    #[test]
    fn a_session_without_a_summary_is_summed_up_by_its_first_prompt() {
        let mut reader = Reader::new();
        let lines = [
            r#"{"type":"user","message":{"role":"user","content":"First question"},"uuid":"a","sessionId":"s"}"#,
            r#"{"type":"user","message":{"role":"user","content":"Second question"},"uuid":"b","parentUuid":"a","sessionId":"s"}"#,
        ];
        for (i, line) in lines.iter().enumerate() {
            reader
                .read(i as u64 + 1, Line::Text(line), &mut |_| Ok(()))
                .unwrap();
        }
        // What the store says, as the official SDKs do: the latest prompt.
        let known = twinwire::sessions::SessionInfo {
            session_id: "s".to_owned(),
            summary: "Second question".to_owned(),
            last_modified: 0,
            file_size: None,
            custom_title: None,
            first_prompt: Some("First question".to_owned()),
            git_branch: None,
            cwd: None,
            tag: None,
            created_at: None,
            archived: None,
        };
        let header = reader.session_header(Some(&known));
        assert_eq!(header.summary, "First question");
    }

    #[test]
    fn commands_read_as_typed() {
        let content = "<command-name>/rename</command-name>\n  <command-message>rename</command-message>\n  <command-args>Tidy up</command-args>";
        assert_eq!(slash_command(content).as_deref(), Some("/rename Tidy up"));
        assert_eq!(
            command_output("<local-command-stdout>Renamed</local-command-stdout>").as_deref(),
            Some("Renamed")
        );
        assert_eq!(slash_command("plain words"), None);
    }
}
