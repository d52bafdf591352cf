//! The body of a Messages API call, with the prompt-cache breakpoints placed on it.

use serde::Serialize;
use serde_json::{json, Value};
use twinwire_protocol::content::{ContentBlock, MessageParam, UserContent};

/// A tool as the model is told of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolDefinition {
    /// Its name, as calls name it.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// Its input's JSON schema.
    pub input_schema: Value,
    /// A cache breakpoint (set on the last tool of a request).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
}

/// One block of the system prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SystemBlock {
    /// Always `text`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The text.
    pub text: String,
    /// A cache breakpoint (set on the last block).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
}

impl SystemBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            kind: "text",
            text: text.into(),
            cache_control: None,
        }
    }
}

/// A `POST /v1/messages` body.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MessagesRequest {
    /// The model id.
    pub model: String,
    /// The most output tokens.
    pub max_tokens: u32,
    /// The system prompt.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub system: Vec<SystemBlock>,
    /// The conversation.
    pub messages: Vec<MessageParam>,
    /// The tools offered.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolDefinition>,
    /// Extended thinking (`{"type":"adaptive"}`, or `{"type":"enabled","budget_tokens":N}`),
    /// when on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Value>,
    /// How the API may trim the conversation (earlier thinking kept).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_management: Option<Value>,
    /// The model's effort, for models that take one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_config: Option<Value>,
    /// Always `true` here: replies are streamed.
    pub stream: bool,
    /// Who asks (`user_id`), for the API's abuse detection.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

/// Where Anthropic's prompt cache may end a cached prefix: on the system prompt's blocks (at
/// most two) and on the last block of the conversation, where Claude Code puts them; the
/// tools, which come before the system prompt, are cached with it.
fn breakpoint() -> Value {
    json!({"type": "ephemeral"})
}

impl MessagesRequest {
    /// Marks the cache breakpoints as Claude Code does: the system prompt's first two blocks
    /// (its fixed opening, and the prompt itself) and the last block of the last message, so
    /// that each call reads the prefix the previous one wrote.
    pub fn with_cache_breakpoints(mut self) -> Self {
        for block in self.system.iter_mut().take(2) {
            block.cache_control = Some(breakpoint());
        }
        if let Some(message) = self.messages.last_mut() {
            if let UserContent::Text(text) = &message.content {
                let text = text.clone();
                message.content = UserContent::Blocks(vec![ContentBlock::Text(
                    twinwire_protocol::content::TextBlock {
                        text,
                        ..Default::default()
                    },
                )]);
            }
            if let UserContent::Blocks(blocks) = &mut message.content {
                if let Some(last) = blocks.last_mut() {
                    set_cache_control(last);
                }
            }
        }
        self
    }
}

/// Puts a breakpoint on a block of a kind that takes one (thinking blocks do not).
fn set_cache_control(block: &mut ContentBlock) {
    match block {
        ContentBlock::Text(block) => block.cache_control = Some(breakpoint()),
        ContentBlock::ToolUse(block) => block.cache_control = Some(breakpoint()),
        ContentBlock::ToolResult(block) => block.cache_control = Some(breakpoint()),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn breakpoints_go_where_claude_code_puts_them() {
        let request = MessagesRequest {
            model: "m".into(),
            max_tokens: 10,
            system: vec![SystemBlock::text("a"), SystemBlock::text("b")],
            messages: vec![MessageParam::user("hi")],
            tools: vec![ToolDefinition {
                name: "Read".into(),
                description: "reads".into(),
                input_schema: json!({"type": "object"}),
                cache_control: None,
            }],
            thinking: None,
            context_management: None,
            output_config: None,
            stream: true,
            metadata: None,
        }
        .with_cache_breakpoints();
        let body = serde_json::to_value(&request).unwrap();
        assert!(body["tools"][0].get("cache_control").is_none());
        assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
        assert_eq!(body["system"][1]["cache_control"]["type"], "ephemeral");
        assert_eq!(
            body["messages"][0]["content"][0],
            json!({"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}})
        );
        assert_eq!(body.to_string().matches("ephemeral").count(), 3);
    }
}
