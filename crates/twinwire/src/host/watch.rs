//! What the reader sees of a session, told to those who keep track of it: the spans
//! (`host::spans`), the usage fold (`host::usage`) and the permission decisions
//! (`host::decisions`, to which `host::control` adds what the host's callback and hooks
//! answered).
//!
//! The reader hands the watch every frame it decodes (`system`, `result`, …) and, through a
//! tap, the lines it defers undecoded for the user (`assistant`, `user`, `stream_event`). Of
//! those, the watch reads only what it needs, with borrowed structs: every `assistant` frame
//! (its message's id, model, usage and tool calls), a `user` frame that holds a
//! `tool_result`, and a `stream_event` whose text names `message_start` or `message_delta`;
//! any other line costs one or two searches of its bytes.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, OnceLock};

use memchr::memmem;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use twinwire_protocol::system::SystemMessage;
use twinwire_protocol::Message;

use super::decisions::{
    AskedHost, DecidedBy, DecisionLog, Explainer, OnDecision, PermissionDecision, Reported,
};
use super::spans::SessionSpans;
use super::usage::{Tokens, ToolUse, TurnUsage, UsageFold};
use crate::engine::{lock, LineTap};
use crate::trace;

/// The watch of one session.
pub(crate) struct SessionWatch {
    spans: Arc<SessionSpans>,
    /// The session as `system/init` last named it: its id and working directory.
    session: Mutex<Option<(String, String)>>,
    usage: Mutex<UsageFold>,
    decisions: Mutex<DecisionLog>,
    on_decision: Option<OnDecision>,
}

impl SessionWatch {
    #[cfg(test)]
    pub(crate) fn new(spans: Arc<SessionSpans>) -> Self {
        Self::with_decisions(spans, None, None)
    }

    /// A watch that explains decisions with `explainer` and tells each to `on_decision`.
    pub(crate) fn with_decisions(
        spans: Arc<SessionSpans>,
        explainer: Option<Explainer>,
        on_decision: Option<OnDecision>,
    ) -> Self {
        Self {
            spans,
            session: Mutex::new(None),
            usage: Mutex::new(UsageFold::default()),
            decisions: Mutex::new(DecisionLog::new(explainer)),
            on_decision,
        }
    }

    /// The span a tool use's permission callback or hook goes under (see
    /// [`SessionSpans::parent_for`]).
    pub(crate) fn parent_for(&self, tool_use_id: Option<&str>) -> tracing::Span {
        self.spans.parent_for(tool_use_id)
    }

    /// The CLI asked the host about a call.
    pub(crate) fn asked(&self, tool_use_id: &str, asked: AskedHost) {
        lock(&self.decisions).asked(tool_use_id, asked);
    }

    /// The host's callback answered a call.
    pub(crate) fn answered(
        &self,
        tool_use_id: &str,
        allowed: bool,
        message: Option<String>,
        failed: bool,
    ) {
        lock(&self.decisions).answered(tool_use_id, allowed, message, failed);
    }

    /// The host's `PreToolUse` hook decided a call.
    pub(crate) fn hooked(
        &self,
        tool_use_id: &str,
        callback_id: &str,
        allowed: bool,
        message: Option<String>,
    ) {
        lock(&self.decisions).hooked(tool_use_id, callback_id, allowed, message);
    }

    /// The decisions kept, oldest first.
    pub(crate) fn decisions(&self) -> Vec<PermissionDecision> {
        lock(&self.decisions).decisions()
    }

    /// A decision is known: its span, a log line, the callback.
    fn decided(&self, decision: &PermissionDecision) {
        let span = trace::decision(
            &self.spans.parent_for(Some(&decision.tool_use_id)),
            &decision.tool_name,
            &decision.tool_use_id,
        );
        if !span.is_disabled() {
            record_decision(&span, decision);
        }
        drop(span);
        tracing::debug!(target: "twinwire::permissions", %decision, "permission decision");
        if let Some(on_decision) = &self.on_decision {
            on_decision(decision);
        }
    }

    /// The usage of the turn that `result_uuid` ended, if it is among the last ones kept.
    pub(crate) fn turn_usage(&self, result_uuid: &str) -> Option<TurnUsage> {
        lock(&self.usage)
            .turns()
            .iter()
            .rev()
            .find(|turn| turn.result_uuid == result_uuid)
            .cloned()
    }

    /// The session's id and working directory, once `system/init` named them.
    pub(crate) fn session(&self) -> Option<(String, String)> {
        lock(&self.session).clone()
    }

    /// The turns kept, oldest first.
    pub(crate) fn turns(&self) -> Vec<TurnUsage> {
        lock(&self.usage).turns().iter().cloned().collect()
    }

    /// The reader's tap on the lines it defers.
    pub(crate) fn tap(self: &Arc<Self>) -> LineTap {
        let watch = Arc::clone(self);
        Box::new(move |line: &str| watch.line(line))
    }

    /// A frame the reader decoded.
    pub(crate) fn observe(&self, message: &Message) {
        match message {
            Message::System(system) => match &**system {
                SystemMessage::Init(init) => {
                    self.spans.initialized(&init.session_id, &init.model);
                    *lock(&self.session) = Some((init.session_id.clone(), init.cwd.clone()));
                    lock(&self.decisions).mode = Some(init.permission_mode.as_str().to_owned());
                }
                SystemMessage::TaskStarted(task) => {
                    if let Some(id) = &task.tool_use_id {
                        lock(&self.usage).task_started(
                            id,
                            task.subagent_type.as_deref(),
                            &task.description,
                        );
                    }
                }
                SystemMessage::TaskNotification(note) => {
                    if let Some(id) = &note.tool_use_id {
                        let tokens = {
                            let mut usage = lock(&self.usage);
                            usage.task_ended(id, note.usage.as_ref().map(|u| u.total_tokens));
                            usage.subagent_tokens(id)
                        };
                        self.spans.task_ended(id, tokens);
                    }
                }
                _ => {}
            },
            Message::Result(result) => {
                let denied: Vec<String> = result
                    .permission_denials
                    .iter()
                    .map(|d| d.tool_use_id.clone())
                    .collect();
                let decisions = lock(&self.decisions).result(&denied);
                for decision in &decisions {
                    self.decided(decision);
                }
                let turn = lock(&self.usage).result(result);
                self.spans.turn_ended(result, &turn);
            }
            // A peer that does not write `type` first has these decoded, not deferred.
            Message::Assistant(_) | Message::User(_) | Message::StreamEvent(_) => {
                self.line(&message.to_value().to_string());
            }
            _ => {}
        }
    }

    fn line(&self, line: &str) {
        // Built once: building a searcher costs more than searching one line.
        static TOOL_RESULT: OnceLock<memmem::Finder<'static>> = OnceLock::new();
        static MESSAGE_EVENT: OnceLock<memmem::Finder<'static>> = OnceLock::new();
        let bytes = line.as_bytes();
        let wanted = match twinwire_protocol::leading_type(line) {
            Some("assistant") => true,
            Some("user") => TOOL_RESULT
                .get_or_init(|| memmem::Finder::new(b"\"tool_result\""))
                .find(bytes)
                .is_some(),
            // The content-block events, nearly all of a stream, are known at once.
            Some("stream_event")
                if line
                    .starts_with(r#"{"type":"stream_event","event":{"type":"content_block_"#) =>
            {
                false
            }
            // `message_start`, `message_delta` (and `message_stop`, read and passed over).
            Some("stream_event") => MESSAGE_EVENT
                .get_or_init(|| memmem::Finder::new(b"\"message_"))
                .find(bytes)
                .is_some(),
            // Not written with `type` first: read it to find out.
            _ => true,
        };
        if !wanted {
            return;
        }
        let Ok(frame) = serde_json::from_str::<Frame<'_>>(line) else {
            return;
        };
        let parent = frame.parent_tool_use_id.as_deref();
        match frame.kind.as_ref() {
            "assistant" => self.assistant(&frame, parent),
            "user" => self.user(&frame),
            "stream_event" => {
                let Some(event) = &frame.event else { return };
                match event.kind.as_ref() {
                    "message_start" => {
                        if let Some(id) = event.message.as_ref().and_then(|m| m.id.as_deref()) {
                            lock(&self.usage).stream_started(parent, id);
                        }
                    }
                    "message_delta" => {
                        if let Some(output) = event.usage.as_ref().and_then(|u| u.output_tokens) {
                            lock(&self.usage).stream_output(parent, output);
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn assistant(&self, frame: &Frame<'_>, parent: Option<&str>) {
        let Some(message) = &frame.message else {
            return;
        };
        let blocks = message.blocks();
        let inputs: Vec<Option<Value>> = blocks
            .iter()
            .map(|b| {
                (b.kind == "tool_use")
                    .then(|| b.input.and_then(|raw| serde_json::from_str(raw.get()).ok()))
                    .flatten()
            })
            .collect();
        let uses: Vec<ToolUse<'_>> = blocks
            .iter()
            .zip(&inputs)
            .filter(|(b, _)| b.kind == "tool_use")
            .filter_map(|(b, input)| {
                Some(ToolUse {
                    id: b.id.as_deref()?,
                    name: b.name.as_deref()?,
                    input: input.as_ref(),
                })
            })
            .collect();
        lock(&self.usage).assistant(
            parent,
            message.id.as_deref(),
            message.model.as_deref(),
            message.usage.as_ref().map(LineUsage::tokens),
            &uses,
        );
        let mut decisions = lock(&self.decisions);
        for tool in &uses {
            let input = tool.input.cloned().unwrap_or(Value::Null);
            decisions.tool_used(tool.id, tool.name, parent, input);
        }
        drop(decisions);
        for tool in &uses {
            self.spans.tool_used(tool.id, tool.name, parent);
        }
    }

    fn user(&self, frame: &Frame<'_>) {
        let Some(message) = &frame.message else {
            return;
        };
        let result: Option<Value> = frame
            .tool_use_result
            .filter(|raw| raw.get().starts_with('{'))
            .and_then(|raw| serde_json::from_str(raw.get()).ok());
        for block in message.blocks().iter().filter(|b| b.kind == "tool_result") {
            let Some(id) = block.tool_use_id.as_deref() else {
                continue;
            };
            let tokens = {
                let mut usage = lock(&self.usage);
                usage.tool_result(id, result.as_ref());
                usage.subagent_tokens(id)
            };
            let meta = frame
                .tool_result_meta
                .iter()
                .flatten()
                .find(|m| m.id.as_deref() == Some(id))
                .and_then(|m| m.permission_decision.as_ref());
            let reported = meta.map(|d| Reported {
                decision: d.decision.as_deref().unwrap_or_default(),
                source: d.source.as_deref(),
                reason_type: d.reason_type.as_deref(),
            });
            let decision =
                lock(&self.decisions).tool_result(id, block.is_error == Some(true), reported);
            if let Some(decision) = &decision {
                self.decided(decision);
            }
            let launched = result.as_ref().is_some_and(|r| {
                r.get("status").and_then(Value::as_str) == Some("async_launched")
                    || r.get("isAsync").and_then(Value::as_bool) == Some(true)
            });
            self.spans
                .tool_answered(id, block.is_error == Some(true), launched, tokens);
        }
    }
}

/// The parts of a deferred frame the watch reads; the rest is skipped as it is parsed.
#[derive(Deserialize)]
struct Frame<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    parent_tool_use_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    message: Option<FrameMessage<'a>>,
    #[serde(default, borrow)]
    tool_use_result: Option<&'a RawValue>,
    #[serde(default, borrow)]
    tool_result_meta: Option<Vec<ResultMeta<'a>>>,
    #[serde(default, borrow)]
    event: Option<FrameEvent<'a>>,
}

/// `tool_result_meta`: the CLI's report of a call's permission decision.
#[derive(Deserialize)]
struct ResultMeta<'a> {
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    permission_decision: Option<ReportedDecision<'a>>,
}

#[derive(Deserialize)]
struct ReportedDecision<'a> {
    #[serde(default, borrow)]
    decision: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    source: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    reason_type: Option<Cow<'a, str>>,
}

/// A decision's fields on its span.
fn record_decision(span: &tracing::Span, decision: &PermissionDecision) {
    use super::decisions::Verdict;
    let verdict = match decision.verdict {
        Verdict::Allowed => "allowed",
        _ => "denied",
    };
    span.record("twinwire.permission.verdict", verdict);
    span.record("twinwire.permission.reported", decision.reported);
    let by = match &decision.decided_by {
        DecidedBy::Rule { rule, source, .. } => {
            if let Some(rule) = rule {
                span.record("twinwire.permission.rule", rule.as_str());
            }
            if let Some(source) = source {
                span.record("twinwire.permission.rule_source", source.as_str());
            }
            "rule"
        }
        DecidedBy::Mode { mode } => {
            span.record("twinwire.permission.mode", mode.as_str());
            "mode"
        }
        DecidedBy::Hook { callback_id } => {
            if let Some(id) = callback_id {
                span.record("twinwire.permission.hook", id.as_str());
            }
            "hook"
        }
        DecidedBy::Callback { .. } => "callback",
        DecidedBy::Settings { .. } => "settings",
        _ => "unknown",
    };
    span.record("twinwire.permission.decided_by", by);
}

#[derive(Deserialize)]
struct FrameMessage<'a> {
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    model: Option<Cow<'a, str>>,
    #[serde(default)]
    usage: Option<LineUsage>,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
}

impl<'a> FrameMessage<'a> {
    /// The content's blocks (none when it is a string).
    fn blocks(&self) -> Vec<Block<'a>> {
        self.content
            .filter(|raw| raw.get().starts_with('['))
            .and_then(|raw| serde_json::from_str(raw.get()).ok())
            .unwrap_or_default()
    }
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", default, borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    input: Option<&'a RawValue>,
    #[serde(default, borrow)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(default)]
    is_error: Option<bool>,
}

/// A usage object, each count read leniently (a count that is not a number is none).
#[derive(Deserialize, Default)]
struct LineUsage {
    #[serde(default, deserialize_with = "lenient_count")]
    input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient_count")]
    output_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient_count")]
    cache_read_input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient_count")]
    cache_creation_input_tokens: Option<u64>,
}

impl LineUsage {
    fn tokens(&self) -> Tokens {
        Tokens {
            input_tokens: self.input_tokens.unwrap_or(0),
            output_tokens: self.output_tokens.unwrap_or(0),
            cache_read_input_tokens: self.cache_read_input_tokens.unwrap_or(0),
            cache_creation_input_tokens: self.cache_creation_input_tokens.unwrap_or(0),
        }
    }
}

fn lenient_count<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(Value::deserialize(d)?.as_u64())
}

#[derive(Deserialize)]
struct FrameEvent<'a> {
    #[serde(rename = "type", default, borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    message: Option<EventMessage<'a>>,
    #[serde(default)]
    usage: Option<LineUsage>,
}

#[derive(Deserialize)]
struct EventMessage<'a> {
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
}
