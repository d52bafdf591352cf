//! What the reader sees of a session, told to those who keep track of it: the spans
//! (`host::spans`) and the usage fold (`host::usage`).
//!
//! The reader hands the watch every frame it decodes (`system`, `result`, …) and, through a
//! tap, the lines it defers undecoded for the user (`assistant`, `user`, `stream_event`). Of
//! those, the watch reads only what it needs, with borrowed structs: every `assistant` frame
//! (its message's id, model, usage and tool calls), a `user` frame that holds a
//! `tool_result`, and a `stream_event` whose text names `message_start` or `message_delta`;
//! any other line costs one or two searches of its bytes.

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use memchr::memmem;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use twinwire_protocol::system::SystemMessage;
use twinwire_protocol::Message;

use super::spans::SessionSpans;
use super::usage::{Tokens, ToolUse, TurnUsage, UsageFold};
use crate::engine::{lock, LineTap};

/// The watch of one session.
pub(crate) struct SessionWatch {
    spans: Arc<SessionSpans>,
    usage: Mutex<UsageFold>,
}

impl SessionWatch {
    pub(crate) fn new(spans: Arc<SessionSpans>) -> Self {
        Self {
            spans,
            usage: Mutex::new(UsageFold::default()),
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
                SystemMessage::Init(init) => self.spans.initialized(&init.session_id, &init.model),
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
                let turn = lock(&self.usage).result(result);
                self.spans.turn_ended(result, &turn);
            }
            _ => {}
        }
    }

    fn line(&self, line: &str) {
        let bytes = line.as_bytes();
        let wanted = match twinwire_protocol::leading_type(line) {
            Some("assistant") => true,
            Some("user") => memmem::find(bytes, b"\"tool_result\"").is_some(),
            Some("stream_event") => {
                memmem::find(bytes, b"\"message_start\"").is_some()
                    || memmem::find(bytes, b"\"message_delta\"").is_some()
            }
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
                (b.kind == "tool_use" && matches!(b.name.as_deref(), Some("Task" | "Agent")))
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
    event: Option<FrameEvent<'a>>,
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
