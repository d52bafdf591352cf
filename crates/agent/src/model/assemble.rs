//! Folding a streamed response into its message: each content block as it completes (so that
//! it can be written as its own `assistant` frame, as Claude Code does), then the whole
//! message with its stop reason and usage.

use serde_json::{Map, Value};
use twinwire_protocol::content::{ApiMessage, ContentBlock, StopReason};
use twinwire_protocol::stream::{ContentDelta, StreamEvent};
use twinwire_protocol::usage::Usage;

/// The most content blocks one reply may have (a reply has a handful; parallel tool calls a
/// few dozen).
pub const MAX_BLOCKS: usize = 4096;

/// The blocks of one response as they stream in.
#[derive(Debug, Default)]
pub struct Assembler {
    message: ApiMessage,
    /// Blocks by index; a tool call's input is kept as JSON text until its block ends.
    open: Vec<Option<(ContentBlock, String)>>,
    done: Vec<(u64, ContentBlock)>,
    /// Tool calls whose input was not valid JSON, with why.
    invalid_inputs: Vec<(String, String)>,
    stopped: bool,
}

impl Assembler {
    /// An empty response.
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one event; returns the block it completed, if any.
    pub fn apply(&mut self, event: &StreamEvent) -> Result<Option<ContentBlock>, String> {
        match event {
            StreamEvent::MessageStart(start) => {
                self.message = start.message.clone();
                self.message.content.clear();
            }
            StreamEvent::ContentBlockStart(start) => {
                let index = usize::try_from(start.index).map_err(|_| "a block index too large")?;
                // Indices count blocks from 0: one far ahead (or a reply of thousands of
                // blocks) is a broken stream, not a reason to hold memory for it.
                if index >= MAX_BLOCKS || index > self.open.len() + 1024 {
                    return Err(format!("a block index out of order: {index}"));
                }
                if self.open.len() <= index {
                    self.open.resize_with(index + 1, || None);
                }
                let mut block = start.content_block.clone();
                if let ContentBlock::ToolUse(tool_use) = &mut block {
                    // The start carries `{}`; the input arrives as JSON text in deltas.
                    tool_use.input = Value::Object(Map::new());
                }
                self.open[index] = Some((block, String::new()));
            }
            StreamEvent::ContentBlockDelta(delta) => {
                let (block, json) = self.open_block(delta.index)?;
                match (&delta.delta, block) {
                    (ContentDelta::Text(text), ContentBlock::Text(block)) => {
                        block.text.push_str(&text.text);
                    }
                    (ContentDelta::InputJson(piece), ContentBlock::ToolUse(_)) => {
                        json.push_str(&piece.partial_json);
                    }
                    (ContentDelta::Thinking(piece), ContentBlock::Thinking(block)) => {
                        block.thinking.push_str(&piece.thinking);
                    }
                    (ContentDelta::Signature(piece), ContentBlock::Thinking(block)) => {
                        block.signature.push_str(&piece.signature);
                    }
                    (ContentDelta::Citations(piece), ContentBlock::Text(block)) => {
                        let citations = block.citations.get_or_insert(Some(Vec::new()));
                        citations
                            .get_or_insert_with(Vec::new)
                            .push(piece.citation.clone());
                    }
                    (other, _) => tracing::debug!(?other, "a delta this agent does not fold"),
                }
            }
            StreamEvent::ContentBlockStop(stop) => {
                let index = usize::try_from(stop.index).unwrap_or(usize::MAX);
                let Some((mut block, json)) = self.open.get_mut(index).and_then(Option::take)
                else {
                    return Err(format!("the end of block {index}, which never started"));
                };
                if let ContentBlock::ToolUse(tool_use) = &mut block {
                    if !json.trim().is_empty() {
                        match serde_json::from_str::<Value>(&json) {
                            Ok(input @ Value::Object(_)) => tool_use.input = input,
                            Ok(_) => self
                                .invalid_inputs
                                .push((tool_use.id.clone(), "not a JSON object".to_owned())),
                            Err(err) => self
                                .invalid_inputs
                                .push((tool_use.id.clone(), format!("not valid JSON ({err})"))),
                        }
                    }
                }
                self.done.push((stop.index, block.clone()));
                return Ok(Some(block));
            }
            StreamEvent::MessageDelta(delta) => {
                if let Some(reason) = &delta.delta.stop_reason {
                    self.message.stop_reason = Some(reason.clone());
                }
                self.message.stop_sequence = delta.delta.stop_sequence.clone();
                if delta.delta.stop_details.is_some() {
                    self.message.stop_details = delta.delta.stop_details.clone();
                }
                let usage = &mut self.message.usage;
                usage.output_tokens = delta.usage.output_tokens;
                if let Some(input) = delta.usage.input_tokens {
                    usage.input_tokens = input;
                }
                if let Some(read) = delta.usage.cache_read_input_tokens {
                    usage.cache_read_input_tokens = Some(read);
                }
                if let Some(written) = delta.usage.cache_creation_input_tokens {
                    usage.cache_creation_input_tokens = Some(written);
                }
            }
            StreamEvent::MessageStop(_) => self.stopped = true,
            StreamEvent::Error(error) => {
                return Err(format!("{}: {}", error.error.kind, error.error.message));
            }
            _ => {}
        }
        Ok(None)
    }

    fn open_block(&mut self, index: u64) -> Result<&mut (ContentBlock, String), String> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.open.get_mut(i))
            .and_then(Option::as_mut)
            .ok_or_else(|| format!("a delta for block {index}, which is not open"))
    }

    /// Whether `message_stop` came.
    pub fn is_complete(&self) -> bool {
        self.stopped
    }

    /// The response's id (from `message_start`).
    pub fn message_id(&self) -> &str {
        &self.message.id
    }

    /// The message so far: the completed blocks in index order (for an interrupted response,
    /// what had arrived), its stop reason and usage.
    pub fn message(&self) -> ApiMessage {
        let mut message = self.message.clone();
        let mut done = self.done.clone();
        done.sort_by_key(|(index, _)| *index);
        message.content = done.into_iter().map(|(_, block)| block).collect();
        message
    }

    /// The reply's fields (id, model, usage so far) without its content.
    pub fn message_meta(&self) -> ApiMessage {
        self.message.clone()
    }

    /// The text blocks still streaming when the reply was cut off (each with what arrived).
    pub fn open_text(&self) -> Vec<ContentBlock> {
        self.open
            .iter()
            .flatten()
            .filter(|(block, _)| matches!(block, ContentBlock::Text(t) if !t.text.is_empty()))
            .map(|(block, _)| block.clone())
            .collect()
    }

    /// The usage reported so far.
    pub fn usage(&self) -> Usage {
        self.message.usage.clone()
    }

    /// The stop reason, once `message_delta` gave it.
    pub fn stop_reason(&self) -> Option<&StopReason> {
        self.message.stop_reason.as_ref()
    }

    /// Tool calls whose input could not be read, with why.
    pub fn invalid_inputs(&self) -> &[(String, String)] {
        &self.invalid_inputs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(value: Value) -> StreamEvent {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn blocks_complete_at_their_stop_with_thinking_and_input_intact() {
        let mut assembler = Assembler::new();
        let events = [
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [], "usage": {"input_tokens": 12, "output_tokens": 1}}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "let me "}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "see"}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "c2ln"}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"file_path\":"}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "\"/x\"}"}}),
            json!({"type": "content_block_stop", "index": 1}),
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 30}}),
            json!({"type": "message_stop"}),
        ];
        let mut completed = Vec::new();
        for value in events {
            if let Some(block) = assembler.apply(&event(value)).unwrap() {
                completed.push(block);
            }
        }
        assert_eq!(completed.len(), 2);
        let message = serde_json::to_value(assembler.message()).unwrap();
        assert_eq!(
            message["content"][0],
            json!({"type": "thinking", "thinking": "let me see", "signature": "c2ln"})
        );
        assert_eq!(message["content"][1]["input"], json!({"file_path": "/x"}));
        assert_eq!(message["stop_reason"], "tool_use");
        assert_eq!(assembler.usage().input_tokens, 12);
        assert_eq!(assembler.usage().output_tokens, 30);
        assert!(assembler.is_complete());
    }

    #[test]
    fn sparse_or_countless_blocks_are_refused() {
        let start = |index: usize| {
            event(json!({"type": "content_block_start", "index": index,
                         "content_block": {"type": "text", "text": ""}}))
        };
        let mut sparse = Assembler::new();
        for index in [0, 1000, 2000, 3000] {
            sparse.apply(&start(index)).unwrap();
        }
        assert!(sparse.apply(&start(MAX_BLOCKS)).is_err());
        let mut many = Assembler::new();
        let refused = (0..MAX_BLOCKS + 1).find(|i| many.apply(&start(*i)).is_err());
        assert_eq!(refused, Some(MAX_BLOCKS));
    }

    #[test]
    fn a_broken_input_is_reported_not_guessed() {
        let mut assembler = Assembler::new();
        for value in [
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "Bash", "input": {}}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"command\":"}}),
            json!({"type": "content_block_stop", "index": 0}),
        ] {
            assembler.apply(&event(value)).unwrap();
        }
        assert_eq!(assembler.invalid_inputs().len(), 1);
        assert!(assembler
            .apply(&event(json!({"type": "content_block_stop", "index": 5})))
            .is_err());
    }
}
