//! Playing steps: text, streams, results, raw output, timing and process-level mischief.
//! Tools, hooks and MCP live in `tools.rs` and `mcp.rs`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use serde_json::{json, Map, Value};
use twinwire::agent::Peer;
use twinwire::protocol::control::{ControlResponse, ControlResponseBody, RequestId};
use twinwire::protocol::permission::PermissionDenial;
use twinwire::protocol::Malformed;
use twinwire::protocol::Message;

use super::frames::{self, Meta};
use super::io::{self, hex, stderr_line};
use super::pending::{Answer, Pending};
use super::state::{emit, emit_raw, FakeState};
use crate::script::{BackgroundStep, CancelStep, FloodStep, ResultStep, Step, StreamStep};

/// Counter behind the `request_id` (`req_fake_N`) of assistant frames.
static API_REQUESTS: AtomicU64 = AtomicU64::new(0);

/// Plays steps for one turn (or for `initialize`, or for a background task).
pub(crate) struct Runner {
    pub(super) shared: Arc<FakeState>,
    pub(super) session: Peer,
    /// The user message's text (replaces `{{prompt}}`).
    pub(super) prompt: String,
    /// Whether this plays a turn: only turns are interrupted and get an automatic result.
    in_turn: bool,
    /// The API message being written: `message.id` and `request_id`.
    message: Option<(String, String)>,
    num_turns: u64,
    pub(super) last_text: String,
    pub(super) denials: Vec<PermissionDenial>,
    result_sent: bool,
    /// The turn ended early (interrupt, deny with interrupt); later steps are skipped.
    pub(super) ended: bool,
    started: Instant,
}

impl Runner {
    pub(crate) fn new(
        shared: Arc<FakeState>,
        session: Peer,
        prompt: String,
        in_turn: bool,
    ) -> Self {
        Self {
            shared,
            session,
            prompt,
            in_turn,
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
    pub(crate) async fn play(&mut self, steps: &[Step]) {
        for step in steps {
            if self.ended {
                break;
            }
            if self.interrupted() {
                self.abort("aborted_tools", "[Request interrupted by user]");
                break;
            }
            self.step(step).await;
        }
        if self.in_turn && !self.ended && !self.result_sent {
            if self.shared.script.auto_hooks {
                let last = self.last_text.clone();
                let input = json!({"stop_hook_active": false, "last_assistant_message": last});
                self.auto_hook("Stop", input).await;
            }
            self.result(&ResultStep::default());
        }
    }

    /// Play one step (boxed: a `background` step plays steps in turn).
    pub(crate) fn step<'a>(&'a mut self, step: &'a Step) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            match step {
                Step::Text(text) => self.text(text),
                Step::Stream(stream) => self.stream(stream).await,
                Step::Tool(tool) => self.tool(tool).await,
                Step::Hook(hook) => self.hook(hook).await,
                Step::McpInitialize(init) => {
                    self.mcp_initialize(&init.server, init.notify, init.list_tools)
                        .await;
                }
                Step::McpCall(call) => self.mcp_call(call).await,
                Step::Request(request) => self.request(request).await,
                Step::CancelAfterMs(cancel) => self.cancel_after(cancel).await,
                Step::Result(result) => self.result(result),
                Step::Emit(value) => emit_raw(&self.session, value),
                Step::Garbage(line) => {
                    let _ = self.session.send_line(format!("{line}\n").into_bytes());
                }
                Step::Oversized(step) => self.oversized(step.bytes),
                Step::Flood(flood) => self.flood(flood).await,
                Step::SleepMs(ms) => {
                    if !self.pause(*ms).await {
                        self.abort("aborted_tools", "[Request interrupted by user]");
                    }
                }
                Step::Crash(exit) => {
                    if !exit.stderr.is_empty() {
                        stderr_line(&exit.stderr);
                    }
                    // Everything written so far reaches the host first, as a dying CLI's does.
                    self.session.close_output().await;
                    std::process::exit(exit.code);
                }
                Step::KillSelf(signal) => {
                    self.session.close_output().await;
                    io::kill_self(signal);
                }
                Step::Hang(true) => {
                    // Let the writer hand over what is queued, then stop everything.
                    for _ in 0..16 {
                        tokio::task::yield_now().await;
                    }
                    io::hang_forever();
                }
                Step::Hang(false) => {}
                Step::CloseStdout(true) => {
                    self.session.close_output().await;
                    io::close_stdout();
                }
                Step::CloseStdout(false) => {}
                Step::Partial(text) => {
                    let _ = self.session.send_line(text.clone().into_bytes());
                    self.session.close_output().await;
                }
                Step::Stderr(line) => stderr_line(line),
                Step::StderrFlood(flood) => io::stderr_flood(flood.bytes, flood.one_line),
                Step::ControlResponse(value) => {
                    if value.get("type").and_then(Value::as_str) == Some("control_response") {
                        emit_raw(&self.session, value);
                    } else {
                        // Read leniently: an answer the script breaks on purpose stays as it is.
                        let body = twinwire::protocol::from_value(value.clone())
                            .map(|decoded| decoded.value)
                            .unwrap_or_else(|_| {
                                ControlResponseBody::Malformed(Box::new(Malformed {
                                    tag: String::new(),
                                    raw: value.clone(),
                                    path: ".".into(),
                                    message: "not an object".into(),
                                }))
                            });
                        let response = ControlResponse {
                            response: body,
                            extra: Map::new(),
                        };
                        self.emit(&Message::ControlResponse(Box::new(response)));
                    }
                }
                Step::Background(background) => self.background(background),
            }
        })
    }

    /// Write one frame.
    pub(super) fn emit(&self, frame: &Message) {
        emit(&self.session, frame);
    }

    /// Whether an `interrupt` hit this turn.
    pub(super) fn interrupted(&self) -> bool {
        self.in_turn && self.session.interrupted().is_cancelled()
    }

    /// The session to watch for interrupts while waiting, if this is a turn.
    pub(super) fn interruptible(&self) -> Option<&Peer> {
        self.in_turn.then_some(&self.session)
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

    /// Sleep `ms`; false if an interrupt cut it short (only turns are interrupted).
    async fn pause(&self, ms: u64) -> bool {
        if self.interrupted() {
            return false;
        }
        let sleep = tokio::time::sleep(Duration::from_millis(ms));
        match self.interruptible() {
            Some(session) => tokio::select! {
                () = sleep => true,
                () = session.interrupted().cancelled() => false,
            },
            None => {
                sleep.await;
                true
            }
        }
    }

    fn text(&mut self, text: &str) {
        let text = self.fill(text);
        let (msg_id, request_id) = self.message();
        let block = frames::text_block(&text);
        let frame = frames::assistant(&self.shared.meta(), &msg_id, &request_id, block);
        self.emit(&Message::Assistant(Box::new(frame)));
        self.last_text = text;
    }

    /// Stream events, then the assistant frame, in 2.1.330's order: deltas, `assistant`,
    /// `content_block_stop`, `message_delta`, `message_stop`.
    async fn stream(&mut self, stream: &StreamStep) {
        let text = self.fill(&stream.text);
        let meta = self.shared.meta();
        let (msg_id, request_id) = self.message();
        let session = self.session.clone();
        let event = |e: Value| emit(&session, &frames::stream_event(&meta, &msg_id, e));
        event(frames::message_start(&meta, &msg_id));
        event(json!({"type": "content_block_start", "index": 0,
                     "content_block": {"type": "text", "text": ""}}));
        let mut sent = String::new();
        let mut aborted = false;
        for piece in split(&text, stream.deltas.unwrap_or(3)) {
            if !self.pause(stream.delay_ms).await || self.interrupted() {
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
            partial.aborted = Some(true);
            self.emit(&Message::Assistant(Box::new(partial)));
            self.emit(&frames::user_text(&meta, "[Request interrupted by user]"));
            event(json!({"type": "content_block_stop", "index": 0}));
            event(json!({"type": "message_delta",
                         "delta": {"stop_reason": null, "stop_sequence": null},
                         "usage": {"output_tokens": 1}}));
            event(json!({"type": "message_stop"}));
            self.last_text = sent;
            self.error_result("aborted_streaming");
            return;
        }
        let frame = frames::assistant(&meta, &msg_id, &request_id, frames::text_block(&text));
        self.emit(&Message::Assistant(Box::new(frame)));
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
        self.emit(&frames::user_text(&meta, note));
        self.error_result(terminal_reason);
    }

    fn error_result(&mut self, terminal_reason: &str) {
        self.result(&ResultStep {
            subtype: "error_during_execution".into(),
            is_error: Some(true),
            terminal_reason: Some(terminal_reason.into()),
            ..ResultStep::default()
        });
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
        self.emit(&frames::result(&self.shared.meta(), info));
        self.shared.set_last_result_error(is_error);
        self.result_sent = true;
    }

    /// Write a control request; the answer is awaited through the returned handle.
    pub(super) async fn send_request(&self, request: Map<String, Value>) -> Pending {
        Pending::send(&self.shared, &self.session, request).await
    }

    /// Wait for an answer; the request is abandoned unless one arrived (late answers are
    /// ignored). Returns the request id with the answer.
    pub(super) async fn await_answer(
        &self,
        mut pending: Pending,
        timeout: Duration,
        interruptible: bool,
    ) -> (String, Answer) {
        let interruptible = if interruptible {
            self.interruptible()
        } else {
            None
        };
        let answer = pending.wait(&self.shared, timeout, interruptible).await;
        let id = pending.id.clone();
        pending.abandon(&self.shared);
        (id, answer)
    }

    async fn request(&mut self, request: &Map<String, Value>) {
        let pending = self.send_request(request.clone()).await;
        let timeout = self.shared.config.request_timeout;
        let (id, answer) = self.await_answer(pending, timeout, false).await;
        self.observe(request, &id, answer, false);
    }

    async fn cancel_after(&mut self, cancel: &CancelStep) {
        let mut pending = self.send_request(cancel.request.clone()).await;
        let answer = pending
            .wait(&self.shared, Duration::from_millis(cancel.ms), None)
            .await;
        let id = pending.id.clone();
        if let Answer::TimedOut = answer {
            let _ = self.session.withdraw(&RequestId::Text(id.clone()));
            let (_, late) = self
                .await_answer(pending, Duration::from_millis(cancel.grace_ms), false)
                .await;
            self.observe(&cancel.request, &id, late, true);
        } else {
            pending.abandon(&self.shared);
            self.observe(&cancel.request, &id, answer, false);
        }
    }

    /// `system/fake_observed`: what the host answered to a scripted request.
    fn observe(&self, request: &Map<String, Value>, id: &str, answer: Answer, cancelled: bool) {
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
        self.emit(&frames::notice(
            &self.shared.meta(),
            "fake_observed",
            fields,
        ));
    }

    /// One valid assistant frame of exactly `bytes` bytes (when `bytes` is above the frame's
    /// fixed size).
    fn oversized(&mut self, bytes: usize) {
        const MARK: &str = "@@FAKE_CLAUDE_FILL@@";
        let (msg_id, request_id) = self.message();
        let frame = frames::assistant(
            &self.shared.meta(),
            &msg_id,
            &request_id,
            frames::text_block(MARK),
        );
        let text = frames::message_line(&Message::Assistant(Box::new(frame)));
        let text = String::from_utf8_lossy(&text);
        let text = text.trim_end();
        let (prefix, suffix) = text.split_once(MARK).unwrap_or((text, ""));
        let fill = bytes.saturating_sub(prefix.len() + suffix.len());
        let mut line = Vec::with_capacity(prefix.len() + fill + suffix.len() + 1);
        line.extend_from_slice(prefix.as_bytes());
        line.resize(prefix.len() + fill, b'x');
        line.extend_from_slice(suffix.as_bytes());
        line.push(b'\n');
        let _ = self.session.send_line(line);
    }

    /// Frames serialized once and repeated, handed to the writer in batches of whole lines;
    /// the writer drains each before the next is built, so memory stays small and hot.
    async fn flood(&mut self, flood: &FloodStep) {
        const BATCH: usize = 64 * 1024;
        let meta = self.shared.meta();
        let (msg_id, request_id) = self.message();
        let delta = json!({"type": "content_block_delta", "index": 0,
                           "delta": {"type": "text_delta", "text": "x"}});
        let event_line = frames::message_line(&frames::stream_event(&meta, &msg_id, delta));
        let block = frames::text_block("flood");
        let assistant = frames::assistant(&meta, &msg_id, &request_id, block);
        let assistant_line = frames::message_line(&Message::Assistant(Box::new(assistant)));
        let every = match flood.assistants {
            0 => usize::MAX,
            n => (flood.stream_events / n).max(1),
        };
        let mut batch = Vec::with_capacity(BATCH + assistant_line.len());
        let mut assistants = 0;
        for i in 1..=flood.stream_events {
            batch.extend_from_slice(&event_line);
            if i % every == 0 && assistants < flood.assistants {
                batch.extend_from_slice(&assistant_line);
                assistants += 1;
            }
            if batch.len() >= BATCH {
                self.flush_batch(&mut batch).await;
            }
        }
        for _ in assistants..flood.assistants {
            batch.extend_from_slice(&assistant_line);
            if batch.len() >= BATCH {
                self.flush_batch(&mut batch).await;
            }
        }
        if let Some(frame) = &flood.frame {
            let line = frames::line(frame);
            for _ in 0..flood.repeat {
                batch.extend_from_slice(&line);
                if batch.len() >= BATCH {
                    self.flush_batch(&mut batch).await;
                }
            }
        }
        self.flush_batch(&mut batch).await;
        self.last_text = "flood".into();
    }

    /// Hand `batch` to the writer and let it write before going on.
    async fn flush_batch(&self, batch: &mut Vec<u8>) {
        if batch.is_empty() {
            return;
        }
        let full = std::mem::replace(batch, Vec::with_capacity(batch.capacity()));
        let _ = self.session.send_line(full);
        tokio::task::yield_now().await;
    }

    fn background(&mut self, background: &BackgroundStep) {
        let shared = Arc::clone(&self.shared);
        let session = self.session.clone();
        let prompt = self.prompt.clone();
        let background = background.clone();
        shared.background_started();
        // Spawned through the session, so that the server keeps its output open for it.
        self.session.spawn(async move {
            tokio::time::sleep(Duration::from_millis(background.delay_ms)).await;
            let mut runner = Runner::new(Arc::clone(&shared), session.clone(), prompt, false);
            for step in &background.steps {
                if runner.ended {
                    break;
                }
                runner.step(step).await;
            }
            shared.background_finished(&session);
        });
    }

    /// Peer id and model for frames.
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
