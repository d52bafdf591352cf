//! Playing steps: text, streams, results, raw output, timing and process-level mischief.
//! Tools, hooks and MCP live in `tools.rs`.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::control::{Answer, Pending};
use super::frames::{self, Meta};
use super::io::{self, hex, stderr_line};
use super::session::Shared;
use crate::script::{BackgroundStep, CancelStep, FloodStep, ResultStep, Step, StreamStep};

/// Counter behind the `request_id` (`req_fake_N`) of assistant frames.
static API_REQUESTS: AtomicU64 = AtomicU64::new(0);

/// Plays steps for one turn (or for `initialize`, or for a background thread).
pub(crate) struct Runner<'a> {
    pub(super) shared: &'a Arc<Shared>,
    /// The user message's text (replaces `{{prompt}}`).
    pub(super) prompt: String,
    /// The 1-based user message number, or 0 outside a turn (never interrupted, no auto result).
    turn: u64,
    /// The API message being written: `message.id` and `request_id`.
    message: Option<(String, String)>,
    num_turns: u64,
    pub(super) last_text: String,
    pub(super) denials: Vec<Value>,
    result_sent: bool,
    /// The turn ended early (interrupt, deny with interrupt); later steps are skipped.
    pub(super) ended: bool,
    started: Instant,
}

impl<'a> Runner<'a> {
    pub(crate) fn new(shared: &'a Arc<Shared>, prompt: String, turn: u64) -> Self {
        Self {
            shared,
            prompt,
            turn,
            message: None,
            num_turns: 0,
            last_text: String::new(),
            denials: Vec::new(),
            result_sent: false,
            ended: false,
            started: Instant::now(),
        }
    }

    /// Play a turn's steps, then the automatic result if none was written.
    pub(crate) fn play(&mut self, steps: &[Step]) {
        for step in steps {
            if self.ended {
                break;
            }
            if self.interrupted() {
                self.abort("aborted_tools", "[Request interrupted by user]");
                break;
            }
            self.step(step);
        }
        if self.turn > 0 && !self.ended && !self.result_sent {
            if self.shared.script.auto_hooks {
                let last = self.last_text.clone();
                let input = json!({"stop_hook_active": false, "last_assistant_message": last});
                self.auto_hook("Stop", input);
            }
            self.result(&ResultStep::default());
        }
    }

    /// Play one step.
    pub(crate) fn step(&mut self, step: &Step) {
        match step {
            Step::Text(text) => self.text(text),
            Step::Stream(stream) => self.stream(stream),
            Step::Tool(tool) => self.tool(tool),
            Step::Hook(hook) => self.hook(hook),
            Step::McpInitialize(init) => {
                self.mcp_initialize(&init.server, init.notify, init.list_tools);
            }
            Step::McpCall(call) => self.mcp_call(call),
            Step::Request(request) => self.request(request),
            Step::CancelAfterMs(cancel) => self.cancel_after(cancel),
            Step::Result(result) => self.result(result),
            Step::Emit(value) => self.shared.out.frame(value),
            Step::Garbage(line) => self.shared.out.raw_line(line),
            Step::Oversized(step) => self.oversized(step.bytes),
            Step::Flood(flood) => self.flood(flood),
            Step::SleepMs(ms) => {
                if !self.pause(*ms) {
                    self.abort("aborted_tools", "[Request interrupted by user]");
                }
            }
            Step::Crash(exit) => io::exit_now(exit.code, &exit.stderr),
            Step::KillSelf(signal) => io::kill_self(signal),
            Step::Hang(true) => io::hang_forever(),
            Step::Hang(false) => {}
            Step::Stderr(line) => stderr_line(line),
            Step::StderrFlood(flood) => io::stderr_flood(flood.bytes),
            Step::ControlResponse(value) => {
                let frame = if value.get("type").and_then(Value::as_str) == Some("control_response")
                {
                    value.clone()
                } else {
                    json!({"type": "control_response", "response": value})
                };
                self.shared.out.frame(&frame);
            }
            Step::Background(background) => self.background(background),
        }
    }

    /// Whether an `interrupt` hit this turn.
    pub(super) fn interrupted(&self) -> bool {
        self.shared.interrupted(self.turn)
    }

    /// Whether this runner plays a turn (only turns can be interrupted).
    pub(super) fn in_turn(&self) -> bool {
        self.turn > 0
    }

    /// The current API message (`message.id`, `request_id`), starting one if needed.
    pub(super) fn message(&mut self) -> (String, String) {
        if let Some(ids) = &self.message {
            return ids.clone();
        }
        self.num_turns += 1;
        let n = API_REQUESTS.fetch_add(1, Ordering::Relaxed) + 1;
        let ids = (format!("msg_fake_{}", hex(20)), format!("req_fake_{n}"));
        self.message = Some(ids.clone());
        ids
    }

    /// A tool result went back to the model: the next assistant frame is a new API message.
    pub(super) fn end_message(&mut self) {
        self.message = None;
    }

    /// Replace `{{prompt}}` with the user text.
    fn fill(&self, text: &str) -> String {
        text.replace("{{prompt}}", &self.prompt)
    }

    /// Sleep `ms`, in slices during a turn; false if an interrupt cut it short.
    fn pause(&self, ms: u64) -> bool {
        let deadline = Instant::now() + Duration::from_millis(ms);
        loop {
            if self.interrupted() {
                return false;
            }
            let now = Instant::now();
            if now >= deadline {
                return true;
            }
            let slice = if self.turn > 0 {
                (deadline - now).min(Duration::from_millis(10))
            } else {
                deadline - now
            };
            std::thread::sleep(slice);
        }
    }

    fn text(&mut self, text: &str) {
        let text = self.fill(text);
        let (msg_id, request_id) = self.message();
        let block = frames::text_block(&text);
        let frame = frames::assistant(&self.shared.meta(), &msg_id, &request_id, block);
        self.shared.out.frame(&frame);
        self.last_text = text;
    }

    /// Stream events, then the assistant frame, in 2.1.330's order: deltas, `assistant`,
    /// `content_block_stop`, `message_delta`, `message_stop`.
    fn stream(&mut self, stream: &StreamStep) {
        let text = self.fill(&stream.text);
        let meta = self.shared.meta();
        let (msg_id, request_id) = self.message();
        let out = &self.shared.out;
        let event = |e: Value| out.frame(&frames::stream_event(&meta, &msg_id, e));
        event(frames::message_start(&meta, &msg_id));
        event(json!({"type": "content_block_start", "index": 0,
                     "content_block": {"type": "text", "text": ""}}));
        let mut sent = String::new();
        let mut aborted = false;
        for piece in split(&text, stream.deltas.unwrap_or(3)) {
            if !self.pause(stream.delay_ms) || self.interrupted() {
                aborted = true;
                break;
            }
            event(json!({"type": "content_block_delta", "index": 0,
                         "delta": {"type": "text_delta", "text": piece}}));
            sent.push_str(piece);
        }
        if aborted || self.interrupted() {
            let mut partial =
                frames::assistant(&meta, &msg_id, &request_id, frames::text_block(&sent));
            if let Value::Object(map) = &mut partial {
                map.insert("aborted".into(), json!(true));
            }
            out.frame(&partial);
            out.frame(&frames::user_text(&meta, "[Request interrupted by user]"));
            event(json!({"type": "content_block_stop", "index": 0}));
            event(json!({"type": "message_delta",
                         "delta": {"stop_reason": null, "stop_sequence": null},
                         "usage": {"output_tokens": 1}}));
            event(json!({"type": "message_stop"}));
            self.last_text = sent;
            self.error_result("aborted_streaming");
            return;
        }
        out.frame(&frames::assistant(
            &meta,
            &msg_id,
            &request_id,
            frames::text_block(&text),
        ));
        event(json!({"type": "content_block_stop", "index": 0}));
        event(json!({"type": "message_delta",
                     "delta": {"stop_reason": "end_turn", "stop_sequence": null},
                     "usage": {"output_tokens": 20}}));
        event(json!({"type": "message_stop"}));
        self.last_text = text;
    }

    /// End the turn after an interrupt: a user note, then an error result.
    pub(super) fn abort(&mut self, terminal_reason: &str, note: &str) {
        let meta = self.shared.meta();
        self.shared.out.frame(&frames::user_text(&meta, note));
        self.error_result(terminal_reason);
    }

    fn error_result(&mut self, terminal_reason: &str) {
        self.result(&ResultStep {
            subtype: "error_during_execution".into(),
            is_error: Some(true),
            terminal_reason: Some(terminal_reason.into()),
            ..ResultStep::default()
        });
        self.shared.consume_interrupt();
        self.ended = true;
    }

    fn result(&mut self, step: &ResultStep) {
        let success = step.subtype == "success";
        let is_error = step.is_error.unwrap_or(!success);
        let default_reason = if success { "completed" } else { "error" };
        let info = frames::ResultInfo {
            subtype: step.subtype.clone(),
            is_error,
            text: Some(step.text.clone().unwrap_or_else(|| self.last_text.clone())),
            num_turns: self.num_turns.max(1),
            duration_ms: self.started.elapsed().as_millis() as u64,
            permission_denials: self.denials.clone(),
            terminal_reason: step
                .terminal_reason
                .clone()
                .unwrap_or(default_reason.into()),
            structured_output: step.structured_output.clone(),
            errors: step.errors.clone(),
        };
        self.shared
            .out
            .frame(&frames::result(&self.shared.meta(), info));
        self.shared.set_last_result_error(is_error);
        self.result_sent = true;
    }

    /// Write a control request; the answer is awaited through the returned handle.
    pub(super) fn send_request(&self, request: Value) -> Pending {
        let pending = self.shared.router.register();
        let frame = frames::control_request(&pending.id, request);
        self.shared.out.frame(&frame);
        pending
    }

    fn request(&mut self, request: &Map<String, Value>) {
        let request = Value::Object(request.clone());
        let pending = self.send_request(request.clone());
        let timeout = self.shared.config.request_timeout;
        let answer = self.await_answer(&pending, timeout, false);
        self.observe(&request, &pending.id, answer, false);
    }

    fn cancel_after(&mut self, cancel: &CancelStep) {
        let request = Value::Object(cancel.request.clone());
        let pending = self.send_request(request.clone());
        let answer = pending.wait(Duration::from_millis(cancel.ms), None);
        if let Answer::TimedOut = answer {
            let frame = json!({"type": "control_cancel_request", "request_id": pending.id});
            self.shared.out.frame(&frame);
            let late = pending.wait(Duration::from_millis(cancel.grace_ms), None);
            self.shared.router.forget(&pending.id);
            self.observe(&request, &pending.id, late, true);
        } else {
            self.observe(&request, &pending.id, answer, false);
        }
    }

    /// `system/fake_observed`: what the host answered to a scripted request.
    fn observe(&self, request: &Value, id: &str, answer: Answer, cancelled: bool) {
        let (outcome, response) = match answer {
            Answer::Response(response) => ("answered", response),
            Answer::TimedOut => ("timeout", Value::Null),
            Answer::Closed => ("closed", Value::Null),
            Answer::Interrupted => ("interrupted", Value::Null),
        };
        let fields = json!({
            "request": request,
            "request_id": id,
            "outcome": outcome,
            "response": response,
            "cancelled": cancelled
        });
        let frame = frames::system(&self.shared.meta(), "fake_observed", fields);
        self.shared.out.frame(&frame);
    }

    /// One valid assistant frame of exactly `bytes` bytes (when `bytes` is above the frame's
    /// fixed size), written in pieces.
    fn oversized(&mut self, bytes: usize) {
        const MARK: &str = "@@FAKE_CLAUDE_FILL@@";
        let (msg_id, request_id) = self.message();
        let frame = frames::assistant(
            &self.shared.meta(),
            &msg_id,
            &request_id,
            frames::text_block(MARK),
        );
        let text = frame.to_string();
        let (prefix, suffix) = text.split_once(MARK).unwrap_or((&text, ""));
        let mut left = bytes.saturating_sub(prefix.len() + suffix.len());
        let chunk = [b'x'; 64 * 1024];
        self.shared.out.with(|w| {
            w.write_all(prefix.as_bytes())?;
            while left > 0 {
                let n = left.min(chunk.len());
                w.write_all(&chunk[..n])?;
                left -= n;
            }
            w.write_all(suffix.as_bytes())?;
            w.write_all(b"\n")?;
            w.flush()
        });
    }

    /// Pre-formatted frames at full speed, flushed once at the end.
    fn flood(&mut self, flood: &FloodStep) {
        let meta = self.shared.meta();
        let (msg_id, request_id) = self.message();
        let delta = json!({"type": "content_block_delta", "index": 0,
                           "delta": {"type": "text_delta", "text": "x"}});
        let mut event_line = frames::stream_event(&meta, &msg_id, delta).to_string();
        event_line.push('\n');
        let block = frames::text_block("flood");
        let mut assistant_line = frames::assistant(&meta, &msg_id, &request_id, block).to_string();
        assistant_line.push('\n');
        let every = match flood.assistants {
            0 => usize::MAX,
            n => (flood.stream_events / n).max(1),
        };
        self.shared.out.with(|w| {
            let mut assistants = 0;
            for i in 1..=flood.stream_events {
                w.write_all(event_line.as_bytes())?;
                if i % every == 0 && assistants < flood.assistants {
                    w.write_all(assistant_line.as_bytes())?;
                    assistants += 1;
                }
            }
            for _ in assistants..flood.assistants {
                w.write_all(assistant_line.as_bytes())?;
            }
            w.flush()
        });
        self.last_text = "flood".into();
    }

    fn background(&mut self, background: &BackgroundStep) {
        let shared = Arc::clone(self.shared);
        let prompt = self.prompt.clone();
        let background = background.clone();
        shared.background_started();
        let spawned = std::thread::Builder::new()
            .name("background-steps".into())
            .spawn({
                let shared = Arc::clone(&shared);
                move || {
                    std::thread::sleep(Duration::from_millis(background.delay_ms));
                    let mut runner = Runner::new(&shared, prompt, 0);
                    for step in &background.steps {
                        if runner.ended {
                            break;
                        }
                        runner.step(step);
                    }
                    shared.background_finished();
                }
            });
        if let Err(err) = spawned {
            stderr_line(&format!(
                "fake-claude: cannot start background steps: {err}"
            ));
            shared.background_finished();
        }
    }

    /// Session id and model for frames.
    pub(super) fn meta(&self) -> Meta {
        self.shared.meta()
    }
}

/// Split `text` into at most `n` pieces of about equal length (in characters).
fn split(text: &str, n: usize) -> Vec<&str> {
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    let chars = bounds.len() - 1;
    let n = n.clamp(1, chars.max(1));
    (0..n)
        .map(|k| &text[bounds[chars * k / n]..bounds[chars * (k + 1) / n]])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn split_covers_the_text() {
        assert_eq!(split("a b c", 3), vec!["a", " b", " c"]);
        assert_eq!(split("héllo", 2), vec!["hé", "llo"]);
        assert_eq!(split("ab", 5), vec!["a", "b"]);
        assert_eq!(split("", 3), vec![""]);
        assert_eq!(split("abcdef", 1), vec!["abcdef"]);
    }
}
