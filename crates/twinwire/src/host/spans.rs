//! The spans of a host's session: the session, each turn, each tool use, as the reader sees
//! them (see [`crate::trace`] for their names and fields).
//!
//! A turn opens when a user message is sent and ends at the next `result`; a tool use opens
//! when the reader sees its `tool_use` block and ends at its `tool_result`. The permission
//! callback and the hooks of a tool use go under its span. When nobody listens for twinwire's
//! spans the session span is disabled, and none of this is done: no tap on the reader, no
//! bookkeeping per message.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use serde_json::Value;
use tracing::Span;
use twinwire_protocol::system::SystemMessage;
use twinwire_protocol::Message;

use crate::engine::{lock, LineTap};
use crate::trace;

/// How many tool uses may be open at once; a session that leaves more unanswered gets no span
/// for the next ones (bounded memory for a CLI that never sends results).
const MAX_OPEN_TOOLS: usize = 1024;
/// How many turns may wait for their result at once; beyond that a prompt gets no span.
const MAX_OPEN_TURNS: usize = 1024;

/// The open spans of one session.
pub(crate) struct SessionSpans {
    /// Whether the session's span is listened to.
    enabled: bool,
    request_model: Option<String>,
    open: Mutex<Open>,
}

struct Open {
    /// The session's span; none once `close` let go of it.
    session: Span,
    /// The session id, once `system/init` told it.
    conversation_id: Option<String>,
    /// The model `system/init` names.
    response_model: Option<String>,
    /// Turns sent and not yet ended, oldest first.
    turns: VecDeque<Span>,
    /// Tool uses seen and not yet answered, by `tool_use` id.
    tools: HashMap<String, Span>,
}

impl SessionSpans {
    /// Opens the session's span under the caller's current span.
    pub(crate) fn start(request_model: Option<&str>) -> Self {
        let session = trace::session("host", request_model);
        Self {
            enabled: !session.is_disabled(),
            request_model: request_model.map(str::to_owned),
            open: Mutex::new(Open {
                session,
                conversation_id: None,
                response_model: None,
                turns: VecDeque::new(),
                tools: HashMap::new(),
            }),
        }
    }

    /// The session's span (none once closed).
    pub(crate) fn session(&self) -> Span {
        lock(&self.open).session.clone()
    }

    /// Whether anybody listens: without, the reader gets no tap.
    pub(crate) fn enabled(&self) -> bool {
        self.enabled
    }

    /// A user message was sent: its turn begins.
    pub(crate) fn turn_sent(&self) {
        if !self.enabled() {
            return;
        }
        let mut open = lock(&self.open);
        if open.session.is_none() || open.turns.len() >= MAX_OPEN_TURNS {
            return;
        }
        let span = trace::turn(&open.session, self.request_model.as_deref());
        if let Some(id) = &open.conversation_id {
            span.record("gen_ai.conversation.id", id.as_str());
        }
        open.turns.push_back(span);
    }

    /// A data-plane frame the reader decoded: `system/init` names the session and the model, a
    /// `result` ends the oldest turn with its usage.
    pub(crate) fn observe(&self, message: &Message) {
        if !self.enabled() {
            return;
        }
        match message {
            Message::System(system) => {
                if let SystemMessage::Init(init) = &**system {
                    self.named(&init.session_id, &init.model);
                }
            }
            Message::Result(result) => {
                let mut open = lock(&self.open);
                let Some(turn) = open.turns.pop_front() else {
                    return;
                };
                let usage = &result.usage;
                let input = usage.input_tokens
                    + usage.cache_creation_input_tokens.unwrap_or(0)
                    + usage.cache_read_input_tokens.unwrap_or(0);
                turn.record("gen_ai.usage.input_tokens", input);
                turn.record("gen_ai.usage.output_tokens", usage.output_tokens);
                if let Some(model) = &open.response_model {
                    turn.record("gen_ai.response.model", model.as_str());
                }
                if result.is_error {
                    trace::record_error(&turn, result.subtype.as_str());
                }
                if open.turns.is_empty() {
                    // Tool uses left open (an interrupted turn) end with it.
                    open.tools.clear();
                }
            }
            _ => {}
        }
    }

    /// Records the session id and the model on the session and its open turns.
    fn named(&self, session_id: &str, model: &str) {
        let mut open = lock(&self.open);
        if open.conversation_id.as_deref() != Some(session_id) {
            open.session.record("gen_ai.conversation.id", session_id);
            for turn in &open.turns {
                turn.record("gen_ai.conversation.id", session_id);
            }
            open.conversation_id = Some(session_id.to_owned());
        }
        if !model.is_empty() && open.response_model.as_deref() != Some(model) {
            open.session.record("gen_ai.response.model", model);
            open.response_model = Some(model.to_owned());
        }
    }

    /// The span a tool use's permission callback or hook goes under: the tool use's if it is
    /// open, else the oldest open turn's, else the session's.
    pub(crate) fn parent_for(&self, tool_use_id: Option<&str>) -> Span {
        if !self.enabled() {
            return Span::none();
        }
        let open = lock(&self.open);
        tool_use_id
            .and_then(|id| open.tools.get(id))
            .or_else(|| open.turns.front())
            .unwrap_or(&open.session)
            .clone()
    }

    /// The reader's tap on the lines it defers (`assistant`, `user`, `stream_event`): only the
    /// ones that mention a tool block are read, and only while somebody listens.
    pub(crate) fn tap(self: &std::sync::Arc<Self>) -> Option<LineTap> {
        if !self.enabled() {
            return None;
        }
        let spans = std::sync::Arc::clone(self);
        Some(Box::new(move |line: &str| spans.line(line)))
    }

    fn line(&self, line: &str) {
        let uses = line.contains("\"tool_use\"");
        let results = line.contains("\"tool_result\"");
        if !uses && !results {
            return;
        }
        let Ok(frame) = serde_json::from_str::<Value>(line) else {
            return;
        };
        let Some(blocks) = frame.pointer("/message/content").and_then(Value::as_array) else {
            return;
        };
        match frame.get("type").and_then(Value::as_str) {
            Some("assistant") if uses => {
                let parent = frame.get("parent_tool_use_id").and_then(Value::as_str);
                for block in blocks.iter().filter(|b| is_type(b, "tool_use")) {
                    let id = block.get("id").and_then(Value::as_str);
                    let name = block.get("name").and_then(Value::as_str);
                    if let (Some(id), Some(name)) = (id, name) {
                        self.tool_used(id, name, parent);
                    }
                }
            }
            Some("user") if results => {
                for block in blocks.iter().filter(|b| is_type(b, "tool_result")) {
                    if let Some(id) = block.get("tool_use_id").and_then(Value::as_str) {
                        let failed = block.get("is_error").and_then(Value::as_bool);
                        self.tool_answered(id, failed == Some(true));
                    }
                }
            }
            _ => {}
        }
    }

    /// A `tool_use` block: its span opens under the tool use that started its subagent, if
    /// any, else under the oldest open turn.
    fn tool_used(&self, id: &str, name: &str, parent_tool_use_id: Option<&str>) {
        let mut open = lock(&self.open);
        if open.session.is_none()
            || open.tools.len() >= MAX_OPEN_TOOLS
            || open.tools.contains_key(id)
        {
            return;
        }
        let span = {
            let parent = parent_tool_use_id
                .and_then(|parent| open.tools.get(parent))
                .or_else(|| open.turns.front())
                .unwrap_or(&open.session);
            trace::tool(parent, name, id)
        };
        open.tools.insert(id.to_owned(), span);
    }

    fn tool_answered(&self, id: &str, failed: bool) {
        let span = lock(&self.open).tools.remove(id);
        if let (Some(span), true) = (span, failed) {
            trace::record_error(&span, "tool_error");
        }
    }

    /// The session closes: its span and every span still open end now.
    pub(crate) fn close(&self, error: Option<&str>) {
        let mut open = lock(&self.open);
        if let Some(error) = error {
            trace::record_error(&open.session, error);
        }
        open.tools.clear();
        open.turns.clear();
        open.session = Span::none();
    }
}

fn is_type(block: &Value, kind: &str) -> bool {
    block.get("type").and_then(Value::as_str) == Some(kind)
}

#[cfg(test)]
mod tests;
