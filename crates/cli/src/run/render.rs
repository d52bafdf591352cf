//! [`Renderer`]: shows a session's messages as they come, on any pair of writers.
//!
//! Text mode prints assistant text (streamed when the CLI sends `stream_event`s), one line per
//! tool call and per tool result, dimmed thinking, and a summary line at the end of each turn
//! ([`super::summary`]). JSONL mode prints every message as one JSON line and nothing else on
//! its output; `none` prints only the summary. Diagnostics (error details, hints) go to the
//! second writer.

use std::borrow::Cow;
use std::collections::HashSet;
use std::io::{self, Write};

use super::label::{plural, tool_label, truncate, MAX_LINE};
use super::summary::{error_details, summary_line, was_interrupted, TurnCosts};
use crate::terminal::{sanitize, Style};
use twinwire_policy::PermissionPolicy;
use twinwire_protocol::content::{ContentBlock, ToolResultBlock, UserContent};
use twinwire_protocol::result::ResultMessage;
use twinwire_protocol::stream::{ContentDelta, StreamEvent};
use twinwire_protocol::{AssistantMessage, Message, StreamEventMessage, UserMessage};

/// What `twinwire run` prints on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputMode {
    /// The session as it happens, for people.
    Text,
    /// Every message as one JSON line (the summary goes to stderr).
    Jsonl,
    /// Only the summary line.
    None,
}

/// Renders messages to `out`, diagnostics to `err`.
pub struct Renderer<O, E> {
    out: O,
    err: E,
    mode: OutputMode,
    style: Style,
    /// Whether `out` is at the start of a line (streamed text may leave it mid-line).
    at_line_start: bool,
    /// The message id of the response being streamed.
    streaming: Option<String>,
    /// Responses whose text (or thinking) was streamed, so their complete blocks are skipped.
    streamed_text: HashSet<String>,
    streamed_thinking: HashSet<String>,
    /// Whether the current streamed block is thinking (styled while it streams).
    in_thinking: bool,
    /// Suggest `--allow` for denied tools (when nobody was asked).
    /// The rules in force, for a hint after the summary for each tool they denied.
    hint_denials: Option<PermissionPolicy>,
    /// Print text from the model, tools and the CLI as it is, control characters included.
    raw: bool,
    /// Show the diagnostics of interrupted turns too (`--verbose`).
    verbose: bool,
    /// An interrupt was sent for the running turn.
    interrupt_sent: bool,
    /// Each session's last total, for the turn's own cost.
    costs: TurnCosts,
}

impl<O: Write, E: Write> Renderer<O, E> {
    /// A renderer writing messages to `out` and diagnostics to `err`.
    pub fn new(out: O, err: E, mode: OutputMode, style: Style) -> Self {
        Self {
            out,
            err,
            mode,
            style,
            at_line_start: true,
            streaming: None,
            streamed_text: HashSet::new(),
            streamed_thinking: HashSet::new(),
            in_thinking: false,
            hint_denials: None,
            raw: false,
            verbose: false,
            interrupt_sent: false,
            costs: TurnCosts::default(),
        }
    }

    /// Shows the CLI's diagnostics of an interrupted turn (they are noise to most readers).
    #[must_use]
    pub fn with_verbose(mut self, verbose: bool) -> Self {
        self.verbose = verbose;
        self
    }

    /// Notes that an interrupt was sent: the turn's `error_during_execution` result is then
    /// shown as interrupted.
    pub fn interrupt_sent(&mut self) {
        self.interrupt_sent = true;
    }

    /// Prints text from the model, tools and the CLI unsanitized (`--raw`).
    #[must_use]
    pub fn with_raw_text(mut self, raw: bool) -> Self {
        self.raw = raw;
        self
    }

    /// Text from outside, made safe for a terminal unless `--raw`.
    fn clean<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.raw {
            Cow::Borrowed(text)
        } else {
            sanitize(text)
        }
    }

    /// Adds a hint after the summary for each tool denied by the rules.
    #[must_use]
    pub fn with_denial_hints(mut self, rules: Option<PermissionPolicy>) -> Self {
        self.hint_denials = rules;
        self
    }

    /// The two writers back.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn into_inner(self) -> (O, E) {
        (self.out, self.err)
    }

    /// Shows one message.
    pub fn message(&mut self, message: &Message) -> io::Result<()> {
        match self.mode {
            OutputMode::Jsonl => {
                serde_json::to_writer(&mut self.out, &message.to_value())?;
                writeln!(self.out)?;
                if let Message::Result(result) = message {
                    self.summary(result)?;
                }
            }
            OutputMode::Text => match message {
                Message::Assistant(assistant) => self.assistant(assistant)?,
                Message::User(user) => self.user(user)?,
                Message::StreamEvent(event) => self.stream_event(event)?,
                Message::Result(result) => self.summary(result)?,
                _ => {}
            },
            OutputMode::None => {
                if let Message::Result(result) = message {
                    self.summary(result)?;
                }
            }
        }
        self.out.flush()
    }

    /// Writes a note (interrupting, a warning) to the diagnostics writer, after ending any
    /// streamed line on `out`.
    pub fn note(&mut self, text: &str) -> io::Result<()> {
        self.end_line()?;
        self.out.flush()?;
        writeln!(self.err, "{text}")?;
        self.err.flush()
    }

    /// Ends a streamed line, if one is open.
    pub fn end_line(&mut self) -> io::Result<()> {
        self.end_styled()?;
        if !self.at_line_start {
            writeln!(self.out)?;
            self.at_line_start = true;
        }
        Ok(())
    }

    fn line(&mut self, text: &str) -> io::Result<()> {
        self.end_line()?;
        writeln!(self.out, "{text}")
    }

    fn end_styled(&mut self) -> io::Result<()> {
        if self.in_thinking && self.style.color {
            write!(self.out, "\x1b[0m")?;
        }
        self.in_thinking = false;
        Ok(())
    }

    fn assistant(&mut self, assistant: &AssistantMessage) -> io::Result<()> {
        let id = &assistant.message.id;
        let indent = indent(assistant.parent_tool_use_id.is_some());
        for block in &assistant.message.content {
            match block {
                ContentBlock::Text(text) => {
                    if self.streamed_text.contains(id) {
                        self.end_line()?;
                    } else if !text.text.trim().is_empty() {
                        let body = indent_lines(&self.clean(text.text.trim_end()), indent);
                        self.line(&body)?;
                    }
                }
                ContentBlock::Thinking(thinking) => {
                    if self.streamed_thinking.contains(id) {
                        self.end_line()?;
                    } else if !thinking.thinking.trim().is_empty() {
                        let body = format!("✻ {}", self.clean(thinking.thinking.trim_end()));
                        let body = self.style.dim(&indent_lines(&body, indent));
                        self.line(&body)?;
                    }
                }
                ContentBlock::RedactedThinking(_) => {
                    let body = self.style.dim(&format!("{indent}✻ (redacted thinking)"));
                    self.line(&body)?;
                }
                ContentBlock::ToolUse(tool) => {
                    let label = tool_label(&tool.name, &tool.input);
                    self.line(&format!("{indent}⏺ {}", self.clean(&label)))?;
                }
                ContentBlock::ServerToolUse(tool) => {
                    let label = tool_label(tool.name.as_str(), &tool.input);
                    self.line(&format!("{indent}⏺ {}", self.clean(&label)))?;
                }
                ContentBlock::McpToolUse(tool) => {
                    let label = tool_label(&tool.name, &tool.input);
                    self.line(&format!("{indent}⏺ {}", self.clean(&label)))?;
                }
                _ => {}
            }
        }
        if let Some(error) = &assistant.error {
            let error = error.to_string();
            let text = self
                .style
                .red(&format!("{indent}✗ API error: {}", self.clean(&error)));
            self.line(&text)?;
        }
        Ok(())
    }

    fn user(&mut self, user: &UserMessage) -> io::Result<()> {
        if user.is_replay == Some(true) {
            return Ok(());
        }
        let indent = indent(user.parent_tool_use_id.is_some());
        match &user.message.content {
            UserContent::Blocks(blocks) => {
                for block in blocks {
                    if let ContentBlock::ToolResult(result) = block {
                        let text = self.tool_result(result);
                        self.line(&format!("{indent}  ⎿  {text}"))?;
                    }
                }
            }
            UserContent::Text(text) if text.starts_with("[Request interrupted") => {
                let text = self
                    .style
                    .dim(&format!("{indent}  ⎿  {}", self.clean(text.trim())));
                self.line(&text)?;
            }
            UserContent::Text(_) => {}
        }
        Ok(())
    }

    fn tool_result(&self, result: &ToolResultBlock) -> String {
        let text = result
            .content
            .as_ref()
            .map(|content| content.joined_text())
            .unwrap_or_default();
        let text = strip_tags(&text);
        let text = self.clean(&text);
        let mut lines = text.lines().filter(|line| !line.trim().is_empty());
        let first = lines.next().unwrap_or("(no output)");
        let more = lines.count();
        let mut shown = truncate(first.trim(), MAX_LINE);
        if more > 0 {
            shown.push_str(&format!(" (+{more} line{})", plural(more as u64)));
        }
        if result.is_error == Some(true) {
            self.style.red(&format!("✗ {shown}"))
        } else {
            self.style.dim(&shown)
        }
    }

    fn stream_event(&mut self, message: &StreamEventMessage) -> io::Result<()> {
        // Subagents' partial output would interleave with the main thread's; their complete
        // blocks are shown instead.
        if message.parent_tool_use_id.is_some() {
            return Ok(());
        }
        match &message.event {
            StreamEvent::MessageStart(start) => {
                self.streaming = Some(start.message.id.clone());
            }
            StreamEvent::ContentBlockDelta(delta) => match &delta.delta {
                ContentDelta::Text(text) => {
                    if self.in_thinking {
                        self.end_line()?;
                    }
                    if let Some(id) = &self.streaming {
                        self.streamed_text.insert(id.clone());
                    }
                    let piece = self.clean(&text.text).into_owned();
                    self.write_piece(&piece)?;
                }
                ContentDelta::Thinking(thinking) => {
                    if let Some(id) = &self.streaming {
                        self.streamed_thinking.insert(id.clone());
                    }
                    if !self.in_thinking {
                        self.end_line()?;
                        if self.style.color {
                            write!(self.out, "\x1b[2m")?;
                        }
                        self.in_thinking = true;
                        self.write_piece("✻ ")?;
                    }
                    let piece = self.clean(&thinking.thinking).into_owned();
                    self.write_piece(&piece)?;
                }
                _ => {}
            },
            StreamEvent::ContentBlockStop(_) | StreamEvent::MessageStop(_) => self.end_line()?,
            _ => {}
        }
        Ok(())
    }

    fn write_piece(&mut self, piece: &str) -> io::Result<()> {
        if piece.is_empty() {
            return Ok(());
        }
        write!(self.out, "{piece}")?;
        self.at_line_start = piece.ends_with('\n');
        Ok(())
    }

    /// Writes the summary line (to `out`, or to `err` in JSONL mode), then error details and
    /// hints to `err`.
    pub fn summary(&mut self, result: &ResultMessage) -> io::Result<()> {
        self.end_line()?;
        self.streamed_text.clear();
        self.streamed_thinking.clear();
        let interrupted = was_interrupted(result, std::mem::take(&mut self.interrupt_sent));
        let cost = self.costs.turn(result);
        let line = summary_line(result, cost, interrupted, self.style);
        match self.mode {
            OutputMode::Jsonl => writeln!(self.err, "{line}")?,
            OutputMode::Text | OutputMode::None => writeln!(self.out, "{line}")?,
        }
        self.out.flush()?;
        // After an interrupt the CLI's details (`[ede_diagnostic] …`) say nothing the user
        // does not know.
        if result.is_error && (!interrupted || self.verbose) {
            for detail in error_details(result) {
                writeln!(self.err, "  {}", self.clean(&detail))?;
            }
        }
        if let Some(rules) = &self.hint_denials {
            for denial in &result.permission_denials {
                let label = tool_label(&denial.tool_name, &denial.tool_input);
                let label = self.clean(&label).into_owned();
                let needed = rules.suggest(&denial.tool_name, &denial.tool_input);
                if needed.is_empty() {
                    continue;
                }
                let flags: Vec<String> = needed.iter().map(|r| format!("--allow '{r}'")).collect();
                let flags = flags.join(" ");
                let flags = self.clean(&flags);
                writeln!(
                    self.err,
                    "hint: {label} was denied; re-run with {flags} to allow it"
                )?;
            }
        }
        self.err.flush()
    }
}

fn indent(subagent: bool) -> &'static str {
    if subagent {
        "    "
    } else {
        ""
    }
}

fn indent_lines(text: &str, indent: &str) -> String {
    if indent.is_empty() {
        return text.to_owned();
    }
    text.lines()
        .map(|line| format!("{indent}{line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Drops the `<tool_use_error>` wrapper the CLI puts around tool errors.
fn strip_tags(text: &str) -> String {
    text.replace("<tool_use_error>", "")
        .replace("</tool_use_error>", "")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

    fn render(mode: OutputMode, frames: &[Value]) -> (String, String) {
        let mut renderer = Renderer::new(Vec::new(), Vec::new(), mode, Style::default())
            .with_denial_hints(Some(PermissionPolicy::default()));
        for frame in frames {
            let message = Message::from_json(&frame.to_string()).unwrap();
            renderer.message(&message).unwrap();
        }
        let (out, err) = renderer.into_inner();
        (
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    fn assistant(id: &str, block: Value) -> Value {
        json!({"type": "assistant", "session_id": "s", "uuid": "u", "parent_tool_use_id": null,
               "message": {"id": id, "type": "message", "role": "assistant", "model": "m",
                           "content": [block], "stop_reason": null, "stop_sequence": null,
                           "usage": {"input_tokens": 1, "output_tokens": 1}}})
    }

    fn tool_result(text: &str, is_error: bool) -> Value {
        json!({"type": "user", "session_id": "s", "parent_tool_use_id": null,
               "message": {"role": "user", "content": [
                   {"type": "tool_result", "tool_use_id": "t1", "content": text,
                    "is_error": is_error}]}})
    }

    fn result(subtype: &str, is_error: bool, denials: Value) -> Value {
        json!({"type": "result", "subtype": subtype, "is_error": is_error, "duration_ms": 1400,
               "duration_api_ms": 1000, "num_turns": 2, "result": "done",
               "session_id": "s", "total_cost_usd": 0.0012,
               "usage": {"input_tokens": 1, "output_tokens": 1}, "modelUsage": {},
               "permission_denials": denials, "uuid": "r"})
    }

    fn delta(kind: &str, field: &str, text: &str) -> Value {
        json!({"type": "stream_event", "session_id": "s", "uuid": "e", "parent_tool_use_id": null,
               "event": {"type": "content_block_delta", "index": 0,
                         "delta": {"type": kind, field: text}}})
    }

    fn message_start(id: &str) -> Value {
        json!({"type": "stream_event", "session_id": "s", "uuid": "e", "parent_tool_use_id": null,
               "event": {"type": "message_start", "message": {
                   "id": id, "type": "message", "role": "assistant", "model": "m",
                   "content": [], "stop_reason": null, "stop_sequence": null,
                   "usage": {"input_tokens": 1, "output_tokens": 0}}}})
    }

    #[test]
    fn a_tool_using_turn() {
        let (out, err) = render(
            OutputMode::Text,
            &[
                assistant("m1", json!({"type": "text", "text": "Let me look."})),
                assistant(
                    "m1",
                    json!({"type": "tool_use", "id": "t1", "name": "Bash",
                                       "input": {"command": "echo hi\necho there"}}),
                ),
                tool_result("hi\nthere\n", false),
                assistant(
                    "m2",
                    json!({"type": "thinking", "thinking": "hmm", "signature": ""}),
                ),
                assistant("m2", json!({"type": "text", "text": "Done."})),
                result("success", false, json!([])),
            ],
        );
        assert_eq!(
            out,
            "Let me look.\n⏺ Bash(echo hi …)\n  ⎿  hi (+1 line)\n✻ hmm\nDone.\n\
             ✓ 2 steps · $0.0012 · 1.4 s\n"
        );
        assert_eq!(err, "");
    }

    #[test]
    fn errors_and_denials() {
        let denial = json!([{"tool_name": "Bash", "tool_use_id": "t1",
                             "tool_input": {"command": "touch x"}}]);
        let (out, err) = render(
            OutputMode::Text,
            &[
                tool_result("<tool_use_error>not allowed</tool_use_error>", true),
                result("error_max_turns", true, denial),
            ],
        );
        assert_eq!(
            out,
            "  ⎿  ✗ not allowed\n✗ error_max_turns · 2 steps · $0.0012 · 1.4 s\n"
        );
        assert!(err.contains("done"), "{err}");
        assert!(err.contains("--allow 'Bash(touch:*)'"), "{err}");
    }

    #[test]
    fn streamed_text_is_not_printed_twice() {
        let (out, _) = render(
            OutputMode::Text,
            &[
                message_start("m1"),
                delta("thinking_delta", "thinking", "plan"),
                delta("text_delta", "text", "Hel"),
                delta("text_delta", "text", "lo"),
                assistant(
                    "m1",
                    json!({"type": "thinking", "thinking": "plan", "signature": ""}),
                ),
                assistant("m1", json!({"type": "text", "text": "Hello"})),
                assistant(
                    "m1",
                    json!({"type": "tool_use", "id": "t", "name": "Read",
                                       "input": {"file_path": "/a/b.rs"}}),
                ),
                result("success", false, json!([])),
            ],
        );
        assert_eq!(
            out,
            "✻ plan\nHello\n⏺ Read(/a/b.rs)\n✓ 2 steps · $0.0012 · 1.4 s\n"
        );
    }

    #[test]
    fn jsonl_and_none() {
        let frames = [
            assistant("m1", json!({"type": "text", "text": "hi"})),
            result("success", false, json!([])),
        ];
        let (out, err) = render(OutputMode::Jsonl, &frames);
        let lines: Vec<Value> = out
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1]["type"], "result");
        assert!(err.starts_with("✓ 2 steps"));
        let (out, _) = render(OutputMode::None, &frames);
        assert_eq!(out, "✓ 2 steps · $0.0012 · 1.4 s\n");
    }

    #[test]
    fn interrupted_turns_and_each_turns_own_cost() {
        let frame = |subtype: &str, total: f64| {
            let mut frame = result(subtype, subtype != "success", json!([]));
            frame["total_cost_usd"] = json!(total);
            if subtype == "error_during_execution" {
                frame["errors"] = json!(["[ede_diagnostic] result_type=user stop_reason=null"]);
            }
            Message::from_json(&frame.to_string()).unwrap()
        };
        let show = |verbose: bool| {
            let mut renderer =
                Renderer::new(Vec::new(), Vec::new(), OutputMode::Text, Style::default())
                    .with_verbose(verbose);
            renderer.message(&frame("success", 0.0012)).unwrap();
            renderer.interrupt_sent();
            renderer
                .message(&frame("error_during_execution", 0.0020))
                .unwrap();
            // The next error is not an interrupt.
            renderer
                .message(&frame("error_during_execution", 0.0021))
                .unwrap();
            let (out, err) = renderer.into_inner();
            (
                String::from_utf8(out).unwrap(),
                String::from_utf8(err).unwrap(),
            )
        };
        let (out, err) = show(false);
        assert_eq!(
            out,
            "✓ 2 steps · $0.0012 · 1.4 s\n\
             ⏹ interrupted · 2 steps · $0.0008 · 1.4 s\n\
             ✗ error_during_execution · 2 steps · $0.0001 · 1.4 s\n"
        );
        assert_eq!(err.matches("[ede_diagnostic]").count(), 1, "{err}");
        let (_, err) = show(true);
        assert_eq!(err.matches("[ede_diagnostic]").count(), 2, "{err}");
    }

    #[test]
    fn styles() {
        let style = Style { color: true };
        assert_eq!(style.dim("a"), "\x1b[2ma\x1b[0m");
        assert_eq!(Style::default().dim("a"), "a");
    }
}
