//! The spans of a host's session: the session, each turn, each tool use, as the reader sees
//! them (see [`crate::trace`] for their names and fields).
//!
//! A turn opens when a user message is sent and ends at the next `result`; a tool use opens
//! when the reader sees its `tool_use` block and ends at its `tool_result`. The permission
//! callback and the hooks of a tool use go under its span. The session's watch
//! (`host::watch`) tells it what the reader saw. When nobody listens for twinwire's spans the
//! session span is disabled, and nothing is kept here.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use tracing::Span;
use twinwire_protocol::result::ResultMessage;

use super::usage::{Tokens, TurnUsage};
use crate::engine::lock;
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

    /// `system/init`: it names the session and the model.
    pub(crate) fn initialized(&self, session_id: &str, model: &str) {
        if self.enabled() {
            self.named(session_id, model);
        }
    }

    /// A `result` ends the oldest turn, with its usage and what the fold made of it.
    pub(crate) fn turn_ended(&self, result: &ResultMessage, usage: &TurnUsage) {
        if !self.enabled() {
            return;
        }
        let mut open = lock(&self.open);
        let Some(turn) = open.turns.pop_front() else {
            return;
        };
        let main = Tokens::of_usage(&result.usage);
        turn.record("gen_ai.usage.input_tokens", main.all_input());
        turn.record("gen_ai.usage.output_tokens", main.output_tokens);
        turn.record("twinwire.usage.cost_usd", usage.total_cost_usd);
        let mut subagents = Tokens::default();
        for agent in &usage.subagents {
            subagents = subagents + agent.tokens;
        }
        turn.record("twinwire.usage.subagents", usage.subagents.len() as u64);
        turn.record(
            "twinwire.usage.subagent_input_tokens",
            subagents.all_input(),
        );
        turn.record(
            "twinwire.usage.subagent_output_tokens",
            subagents.output_tokens,
        );
        if let Some(model) = &open.response_model {
            turn.record("gen_ai.response.model", model.as_str());
        }
        if result.is_error {
            trace::record_error(&turn, result.subtype.as_str());
        }
        if open.turns.is_empty() {
            // Tool uses left open (an interrupted turn, a task still running) end with it.
            open.tools.clear();
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

    /// A `tool_use` block: its span opens under the tool use that started its subagent, if
    /// any, else under the oldest open turn.
    pub(crate) fn tool_used(&self, id: &str, name: &str, parent_tool_use_id: Option<&str>) {
        if !self.enabled() {
            return;
        }
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

    /// A `tool_result`: the tool use's span ends, an error recorded, with the usage of the
    /// subagent it ran when that is known. A call that launched a task in the background
    /// stays open until the task ends ([`SessionSpans::task_ended`]).
    pub(crate) fn tool_answered(
        &self,
        id: &str,
        failed: bool,
        launched: bool,
        subagent: Option<Tokens>,
    ) {
        if !self.enabled() {
            return;
        }
        let mut open = lock(&self.open);
        let Some(span) = open.tools.get(id) else {
            return;
        };
        if failed {
            trace::record_error(span, "tool_error");
        }
        if launched {
            return;
        }
        if let Some(tokens) = subagent {
            record_tokens(span, &tokens);
        }
        open.tools.remove(id);
    }

    /// A background task ended (`task_notification`): the span of the call that launched it
    /// ends, with the subagent's usage.
    pub(crate) fn task_ended(&self, tool_use_id: &str, subagent: Option<Tokens>) {
        if !self.enabled() {
            return;
        }
        let span = lock(&self.open).tools.remove(tool_use_id);
        if let (Some(span), Some(tokens)) = (span, subagent) {
            record_tokens(&span, &tokens);
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

/// A subagent's usage on the span of the tool call that ran it.
fn record_tokens(span: &Span, tokens: &Tokens) {
    span.record("gen_ai.usage.input_tokens", tokens.all_input());
    span.record("gen_ai.usage.output_tokens", tokens.output_tokens);
}

#[cfg(test)]
mod tests;
