//! The Messages API's reply shapes: a message as JSON or as server-sent events, errors, ids.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{json, Value};

/// `input_tokens` reported for every reply.
pub(crate) const INPUT_TOKENS: u64 = 100;
/// `output_tokens` reported for every finished reply.
pub(crate) const OUTPUT_TOKENS: u64 = 20;

/// One content block of a reply.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Block {
    /// A text block.
    Text(String),
    /// A tool call.
    ToolUse {
        /// `toolu_…`.
        id: String,
        /// The tool's name.
        name: String,
        /// Its input.
        input: Value,
    },
    /// A call of one of the API's own tools (web search).
    ServerToolUse {
        /// `srvtoolu_…`.
        id: String,
        /// The tool's name.
        name: String,
        /// Its input.
        input: Value,
    },
    /// The results of a web search: (title, url) per hit.
    WebSearchResult {
        /// The `server_tool_use` it answers.
        tool_use_id: String,
        /// The hits.
        hits: Vec<(String, String)>,
    },
}

/// A whole assistant message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Message {
    /// `msg_fake_…`.
    pub id: String,
    /// The model name echoed.
    pub model: String,
    /// The content blocks.
    pub blocks: Vec<Block>,
    /// `stop_details` of a refused message: its stop reason is then `refusal`.
    pub refusal: Option<Value>,
    /// The `input_tokens` its usage reports.
    pub input_tokens: u64,
}

/// How text is cut into `text_delta` events.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Pacing {
    /// Number of deltas per text block; `None` picks a few by length.
    pub deltas: Option<usize>,
    /// Pause before every delta but a block's first.
    pub delay: Duration,
}

impl Message {
    /// A message with a fresh id.
    pub fn new(model: String, blocks: Vec<Block>) -> Self {
        Message {
            id: new_id("msg_fake_", 20),
            model,
            blocks,
            refusal: None,
            input_tokens: INPUT_TOKENS,
        }
    }

    /// The same message stopped by the API's safeguards, with these `stop_details`.
    #[must_use]
    pub fn refused(mut self, stop_details: Value) -> Self {
        self.refusal = Some(stop_details);
        self
    }

    /// `refusal` for a refused message, `tool_use` when the message calls a tool, else
    /// `end_turn`.
    pub fn stop_reason(&self) -> &'static str {
        if self.refusal.is_some() {
            "refusal"
        } else if self
            .blocks
            .iter()
            .any(|b| matches!(b, Block::ToolUse { .. }))
        {
            "tool_use"
        } else {
            "end_turn"
        }
    }

    /// The non-streaming body.
    pub fn to_json(&self) -> Value {
        let mut message = self.envelope(OUTPUT_TOKENS);
        message["content"] = self.blocks.iter().map(Block::to_json).collect();
        message["stop_reason"] = json!(self.stop_reason());
        if let Some(details) = &self.refusal {
            message["stop_details"] = details.clone();
        }
        message
    }

    /// The streaming body: each element is a pause and the event text to send after it.
    pub fn to_events(&self, pacing: Pacing) -> Vec<(Duration, String)> {
        let mut events = vec![
            (
                Duration::ZERO,
                sse(
                    "message_start",
                    &json!({"type": "message_start", "message": self.envelope(1)}),
                ),
            ),
            (Duration::ZERO, sse("ping", &json!({"type": "ping"}))),
        ];
        for (index, block) in self.blocks.iter().enumerate() {
            let start = match block {
                Block::Text(_) => json!({"type": "text", "text": ""}),
                Block::ToolUse { id, name, .. } => {
                    json!({"type": "tool_use", "id": id, "name": name, "input": {}})
                }
                Block::ServerToolUse { id, name, .. } => {
                    json!({"type": "server_tool_use", "id": id, "name": name, "input": {}})
                }
                Block::WebSearchResult { .. } => block.to_json(),
            };
            events.push((
                Duration::ZERO,
                sse(
                    "content_block_start",
                    &json!({"type": "content_block_start", "index": index, "content_block": start}),
                ),
            ));
            let deltas: Vec<(Duration, Value)> = match block {
                Block::Text(text) => {
                    let n = pacing
                        .deltas
                        .unwrap_or_else(|| text.chars().count().div_ceil(32));
                    split_chars(text, n)
                        .into_iter()
                        .enumerate()
                        .map(|(i, piece)| {
                            let pause = if i == 0 { Duration::ZERO } else { pacing.delay };
                            (pause, json!({"type": "text_delta", "text": piece}))
                        })
                        .collect()
                }
                Block::WebSearchResult { .. } => Vec::new(),
                Block::ToolUse { input, .. } | Block::ServerToolUse { input, .. } => {
                    let text = input.to_string();
                    split_chars(&text, 3)
                        .into_iter()
                        .map(|piece| {
                            let delta = json!({"type": "input_json_delta", "partial_json": piece});
                            (Duration::ZERO, delta)
                        })
                        .collect()
                }
            };
            for (pause, delta) in deltas {
                events.push((
                    pause,
                    sse(
                        "content_block_delta",
                        &json!({"type": "content_block_delta", "index": index, "delta": delta}),
                    ),
                ));
            }
            events.push((
                Duration::ZERO,
                sse(
                    "content_block_stop",
                    &json!({"type": "content_block_stop", "index": index}),
                ),
            ));
        }
        let mut delta = json!({"stop_reason": self.stop_reason(), "stop_sequence": null});
        if let Some(details) = &self.refusal {
            delta["stop_details"] = details.clone();
        }
        events.push((
            Duration::ZERO,
            sse(
                "message_delta",
                &json!({
                    "type": "message_delta",
                    "delta": delta,
                    "usage": {"output_tokens": OUTPUT_TOKENS},
                }),
            ),
        ));
        events.push((
            Duration::ZERO,
            sse("message_stop", &json!({"type": "message_stop"})),
        ));
        events
    }

    /// The message without content, as in `message_start`.
    fn envelope(&self, output_tokens: u64) -> Value {
        json!({
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": [],
            "stop_reason": null,
            "stop_sequence": null,
            "usage": {
                "input_tokens": self.input_tokens,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
                "output_tokens": output_tokens,
            },
        })
    }
}

impl Block {
    /// A tool call with a fresh id.
    pub fn tool_use(name: String, input: Value) -> Self {
        Block::ToolUse {
            id: new_id("toolu_fake_", 16),
            name,
            input,
        }
    }

    fn to_json(&self) -> Value {
        match self {
            Block::Text(text) => json!({"type": "text", "text": text}),
            Block::ToolUse { id, name, input } => {
                json!({"type": "tool_use", "id": id, "name": name, "input": input})
            }
            Block::ServerToolUse { id, name, input } => {
                json!({"type": "server_tool_use", "id": id, "name": name, "input": input})
            }
            Block::WebSearchResult { tool_use_id, hits } => json!({
                "type": "web_search_tool_result",
                "tool_use_id": tool_use_id,
                "content": hits.iter().map(|(title, url)| json!({
                    "type": "web_search_result", "title": title, "url": url,
                    "encrypted_content": "fake", "page_age": null,
                })).collect::<Vec<_>>(),
            }),
        }
    }
}

/// Anthropic's error body.
pub(crate) fn error_body(error_type: &str, message: &str) -> Value {
    json!({"type": "error", "error": {"type": error_type, "message": message}})
}

/// The `count_tokens` body: about one token per four bytes of request.
pub(crate) fn count_tokens_body(body_len: usize) -> Value {
    json!({"input_tokens": (body_len / 4).max(1)})
}

/// The models `GET /v1/models` lists: the script's override first, then a few known names.
pub(crate) fn model_ids(extra: Option<&str>) -> Vec<String> {
    let known = ["claude-opus-5-5", "claude-sonnet-4-5", "claude-haiku-4-5"];
    let mut ids: Vec<String> = extra.map(str::to_owned).into_iter().collect();
    ids.extend(
        known
            .iter()
            .map(|&m| m.to_owned())
            .filter(|m| Some(m.as_str()) != extra),
    );
    ids
}

/// One model object.
pub(crate) fn model_object(id: &str) -> Value {
    json!({
        "type": "model",
        "id": id,
        "display_name": id,
        "created_at": "2026-01-01T00:00:00Z",
    })
}

/// The `GET /v1/models` body.
pub(crate) fn models_body(ids: &[String]) -> Value {
    json!({
        "data": ids.iter().map(|id| model_object(id)).collect::<Vec<_>>(),
        "has_more": false,
        "first_id": ids.first(),
        "last_id": ids.last(),
    })
}

/// One server-sent event, `event:` and `data:` lines and a blank line.
fn sse(event: &str, data: &Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

/// Cuts `text` into exactly `n.max(1)` pieces of about equal length, on char boundaries (some
/// are empty when the text has fewer chars than pieces).
pub(crate) fn split_chars(text: &str, n: usize) -> Vec<&str> {
    let n = n.max(1);
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()))
        .collect();
    let chars = bounds.len() - 1;
    (0..n)
        .map(|k| &text[bounds[k * chars / n]..bounds[(k + 1) * chars / n]])
        .collect()
}

/// `prefix` and `hex_len` hex digits, unique within the process and random across processes.
pub(crate) fn new_id(prefix: &str, hex_len: usize) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut id = String::from(prefix);
    while id.len() < prefix.len() + hex_len {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        id.push_str(&format!("{:016x}", hasher.finish()));
    }
    id.truncate(prefix.len() + hex_len);
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_into_exactly_n_pieces() {
        assert_eq!(split_chars("abcdef", 3), ["ab", "cd", "ef"]);
        assert_eq!(split_chars("héllo wörld", 4).concat(), "héllo wörld");
        assert_eq!(split_chars("ab", 4).len(), 4);
        assert_eq!(split_chars("ab", 4).concat(), "ab");
        assert_eq!(split_chars("", 0), [""]);
    }

    #[test]
    fn ids_are_unique_hex() {
        let a = new_id("msg_fake_", 20);
        let b = new_id("msg_fake_", 20);
        assert_ne!(a, b);
        assert_eq!(a.len(), "msg_fake_".len() + 20);
        assert!(a["msg_fake_".len()..]
            .chars()
            .all(|c| c.is_ascii_hexdigit()));
    }

    #[test]
    fn json_message_shape() {
        let message = Message::new(
            "m".into(),
            vec![
                Block::Text("hi".into()),
                Block::tool_use("Bash".into(), json!({"command": "ls"})),
            ],
        );
        let value = message.to_json();
        assert_eq!(value["stop_reason"], "tool_use");
        assert_eq!(value["content"][0], json!({"type": "text", "text": "hi"}));
        assert_eq!(value["content"][1]["input"], json!({"command": "ls"}));
        assert_eq!(value["usage"]["output_tokens"], OUTPUT_TOKENS);
        assert!(value["content"][1]["id"]
            .as_str()
            .unwrap()
            .starts_with("toolu_fake_"));
    }

    #[test]
    fn events_are_event_and_data_lines() {
        let message = Message::new("m".into(), vec![Block::Text("hello".into())]);
        let events = message.to_events(Pacing {
            deltas: Some(2),
            delay: Duration::from_millis(5),
        });
        let names: Vec<&str> = events
            .iter()
            .map(|(_, e)| e.lines().next().unwrap().trim_start_matches("event: "))
            .collect();
        assert_eq!(
            names,
            [
                "message_start",
                "ping",
                "content_block_start",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
        let pauses: Vec<u64> = events.iter().map(|(d, _)| d.as_millis() as u64).collect();
        assert_eq!(pauses, [0, 0, 0, 0, 5, 0, 0, 0]);
        for (_, event) in &events {
            let mut lines = event.split('\n');
            assert!(lines.next().unwrap().starts_with("event: "));
            let data = lines.next().unwrap().strip_prefix("data: ").unwrap();
            serde_json::from_str::<Value>(data).unwrap();
            assert_eq!(lines.collect::<Vec<_>>(), ["", ""]);
        }
    }

    #[test]
    fn models_list_puts_the_override_first() {
        let ids = model_ids(Some("claude-haiku-4-5"));
        assert_eq!(
            ids,
            ["claude-haiku-4-5", "claude-opus-5-5", "claude-sonnet-4-5"]
        );
        let body = models_body(&ids);
        assert_eq!(body["first_id"], "claude-haiku-4-5");
        assert_eq!(body["data"].as_array().unwrap().len(), 3);
    }
}
