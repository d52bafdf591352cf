//! A lenient reading of a Messages API request body: what rules look at.

use serde_json::Value;

use super::script::When;

/// The parts of a request body that conditions and replies use. Built from any JSON value;
/// whatever is missing or oddly shaped reads as empty.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Conversation {
    /// `model`, when a string.
    pub model: Option<String>,
    /// `stream == true`.
    pub stream: bool,
    /// `max_tokens`, when a non-negative integer.
    pub max_tokens: Option<u64>,
    /// The system prompt: top-level `system` plus `role: "system"` messages, one per line.
    pub system: String,
    /// The last user message's text, reminders stripped, trimmed.
    pub last_user_text: String,
    /// The last user message's last text block with something besides reminders, stripped.
    pub last_prompt: String,
    /// The `tool_result` ending the last user message, if any.
    pub tool_result: Option<ToolResult>,
    /// Names of the offered tools.
    pub tools: Vec<String>,
    /// Whether any message has `role: "assistant"`.
    pub has_assistant: bool,
    /// Every message's text, one part a line: text blocks with their reminders, tool results'
    /// text, tool calls' input as JSON.
    pub all_text: String,
}

/// A `tool_result` block, as far as rules care.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ToolResult {
    /// Its text content, reminders stripped, trimmed.
    pub text: String,
    /// `is_error == true`.
    pub is_error: bool,
}

impl Conversation {
    /// Reads a request body; never fails.
    pub fn from_body(body: &Value) -> Self {
        let messages: &[Value] = body
            .get("messages")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice);
        let role = |message: &Value| {
            message
                .get("role")
                .and_then(Value::as_str)
                .map(str::to_owned)
        };

        let mut system = body.get("system").map(block_text).unwrap_or_default();
        for message in messages
            .iter()
            .filter(|m| role(m).as_deref() == Some("system"))
        {
            let text = message.get("content").map(block_text).unwrap_or_default();
            if !text.is_empty() {
                if !system.is_empty() {
                    system.push('\n');
                }
                system.push_str(&text);
            }
        }

        let last_user = messages
            .iter()
            .rev()
            .find(|m| role(m).as_deref() == Some("user"));
        let content = last_user.and_then(|m| m.get("content"));
        let last_user_text = content
            .map(|c| strip_reminders(&text_blocks(c)))
            .unwrap_or_default();
        let last_prompt = content.map(newest_prompt).unwrap_or_default();
        let tool_result = content.and_then(final_tool_result);

        let tools = body
            .get("tools")
            .and_then(Value::as_array)
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| t.get("name").and_then(Value::as_str))
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();

        Conversation {
            model: body.get("model").and_then(Value::as_str).map(str::to_owned),
            stream: body.get("stream").and_then(Value::as_bool).unwrap_or(false),
            max_tokens: body.get("max_tokens").and_then(Value::as_u64),
            system,
            last_user_text,
            last_prompt,
            tool_result,
            tools,
            has_assistant: messages
                .iter()
                .any(|m| role(m).as_deref() == Some("assistant")),
            all_text: messages
                .iter()
                .filter_map(|m| m.get("content"))
                .map(message_text)
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

impl Conversation {
    /// `input` with each field of `fill` set to the first group of its expression's last
    /// match in the conversation's text; an expression that does not compile or match
    /// leaves the field as it was.
    pub fn fill(
        &self,
        mut input: Value,
        fill: &std::collections::BTreeMap<String, String>,
    ) -> Value {
        for (field, pattern) in fill {
            let Ok(regex) = regex_lite::Regex::new(pattern) else {
                tracing::warn!(%pattern, "model server: a fill expression that does not compile");
                continue;
            };
            let found = regex
                .captures_iter(&self.all_text)
                .filter_map(|c| c.get(1).map(|m| m.as_str().to_owned()))
                .last();
            if let (Some(found), Some(map)) = (found, input.as_object_mut()) {
                map.insert(field.clone(), Value::String(found));
            }
        }
        input
    }
}

impl When {
    /// Whether the condition holds for this request.
    pub(crate) fn matches(&self, conversation: &Conversation) -> bool {
        let c = conversation;
        match self {
            When::LastUserTextContains(needle) => c.last_user_text.contains(needle.as_str()),
            When::LastPromptContains(needle) => c.last_prompt.contains(needle.as_str()),
            When::LastIsToolResult(expected) => c.tool_result.is_some() == *expected,
            When::ConversationContains(needle) => c.all_text.contains(needle.as_str()),
            When::ToolResultContains(needle) => c
                .tool_result
                .as_ref()
                .is_some_and(|r| r.text.contains(needle.as_str())),
            When::ToolResultIsError(expected) => {
                c.tool_result.as_ref().is_some_and(|r| r.is_error) == *expected
            }
            When::SystemContains(needle) => c.system.contains(needle.as_str()),
            When::ModelIs(model) => c.model.as_deref() == Some(model.as_str()),
            When::HasTool(name) => c.tools.iter().any(|t| t == name),
            When::FirstTurn(expected) => c.has_assistant != *expected,
            When::MaxTokensAtMost(limit) => c.max_tokens.is_some_and(|n| n <= *limit),
            When::All(conditions) => conditions.iter().all(|w| w.matches(c)),
            When::Any(conditions) => conditions.iter().any(|w| w.matches(c)),
            When::Not(condition) => !condition.matches(c),
            When::Always(value) => *value,
        }
    }
}

/// Text of a `system` value or message `content`: a string, or the `text` of its blocks joined
/// with newlines. Not stripped of reminders (system prompts have none worth stripping).
fn block_text(value: &Value) -> String {
    text_blocks(value).trim().to_owned()
}

/// A string as is, or the `text` blocks of an array joined with newlines.
fn text_blocks(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// All of a message's content as text: a string as is; of blocks, the text of `text` blocks
/// (reminders kept) and of `tool_result` blocks, and the input of `tool_use` blocks as JSON,
/// joined with newlines. Other blocks (images, thinking) add nothing.
fn message_text(content: &Value) -> String {
    let Value::Array(blocks) = content else {
        return text_blocks(content);
    };
    blocks
        .iter()
        .filter_map(|block| match block.get("type").and_then(Value::as_str) {
            Some("text") => block.get("text").and_then(Value::as_str).map(str::to_owned),
            Some("tool_result") => block.get("content").map(text_blocks),
            Some("tool_use") => block.get("input").map(Value::to_string),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The last text of a message's content (a string, or its last text block) that is not only
/// system reminders, stripped.
fn newest_prompt(content: &Value) -> String {
    match content {
        Value::String(text) => strip_reminders(text),
        Value::Array(blocks) => blocks
            .iter()
            .rev()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .map(strip_reminders)
            .find(|text| !text.is_empty())
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// The `tool_result` that ends a user message's content, skipping trailing text blocks that
/// hold nothing but system reminders.
fn final_tool_result(content: &Value) -> Option<ToolResult> {
    let blocks = content.as_array()?;
    let last = blocks.iter().rev().find(|block| {
        let is_text = block.get("type").and_then(Value::as_str) == Some("text");
        let text = block.get("text").and_then(Value::as_str).unwrap_or("");
        !(is_text && strip_reminders(text).is_empty())
    })?;
    if last.get("type").and_then(Value::as_str) != Some("tool_result") {
        return None;
    }
    Some(ToolResult {
        text: last
            .get("content")
            .map(|c| strip_reminders(&text_blocks(c)))
            .unwrap_or_default(),
        is_error: last
            .get("is_error")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    })
}

/// Removes every `<system-reminder>…</system-reminder>` (an unclosed one runs to the end) and
/// trims the rest.
pub(crate) fn strip_reminders(text: &str) -> String {
    const OPEN: &str = "<system-reminder>";
    const CLOSE: &str = "</system-reminder>";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..start]);
        let after = &rest[start + OPEN.len()..];
        rest = match after.find(CLOSE) {
            Some(end) => &after[end + CLOSE.len()..],
            None => "",
        };
    }
    out.push_str(rest);
    out.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn strips_reminders() {
        assert_eq!(
            strip_reminders("a<system-reminder>x</system-reminder>b"),
            "ab"
        );
        assert_eq!(
            strip_reminders(
                "<system-reminder>\none\n</system-reminder>\n\nhi <system-reminder>two"
            ),
            "hi"
        );
        assert_eq!(strip_reminders("  plain  "), "plain");
    }

    #[test]
    fn reads_a_cli_like_first_request() {
        let body = json!({
            "model": "claude-opus-5-5",
            "stream": true,
            "max_tokens": 128000,
            "system": [{"type": "text", "text": "x-anthropic-billing-header: …"},
                       {"type": "text", "text": "You are a Claude agent", "cache_control": {}}],
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "<system-reminder>\nskills\n</system-reminder>"},
                    {"type": "text", "text": "<system-reminder>date</system-reminder>\n\nPlease run X"}
                ]},
                {"role": "system", "content": "extra system text"}
            ],
            "tools": [{"name": "Bash", "input_schema": {}}, {"name": "Read", "defer_loading": true}],
            "thinking": {"type": "adaptive"},
            "context_management": {"edits": []}
        });
        let c = Conversation::from_body(&body);
        assert_eq!(c.model.as_deref(), Some("claude-opus-5-5"));
        assert!(c.stream);
        assert_eq!(c.max_tokens, Some(128000));
        assert_eq!(c.last_user_text, "Please run X");
        assert_eq!(c.last_prompt, "Please run X");
        assert!(c.system.contains("You are a Claude agent"));
        assert!(c.system.contains("extra system text"));
        assert_eq!(c.tools, ["Bash", "Read"]);
        assert!(!c.has_assistant);
        assert_eq!(c.tool_result, None);
        assert!(When::FirstTurn(true).matches(&c));
        assert!(When::LastUserTextContains("run X".into()).matches(&c));
        assert!(!When::LastUserTextContains("skills".into()).matches(&c));
    }

    #[test]
    fn finds_a_final_tool_result_past_reminder_blocks() {
        let body = json!({"messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t", "is_error": true,
                 "content": [{"type": "text", "text": "host says no"}]},
                {"type": "text", "text": "<system-reminder>later</system-reminder>"}
            ]}
        ]});
        let c = Conversation::from_body(&body);
        let result = c.tool_result.clone().unwrap();
        assert_eq!(result.text, "host says no");
        assert!(result.is_error);
        assert!(c.has_assistant);
        assert_eq!(c.last_user_text, "");
        assert!(When::ToolResultContains("says no".into()).matches(&c));
        assert!(When::ToolResultIsError(true).matches(&c));
        assert!(!When::FirstTurn(true).matches(&c));
    }

    #[test]
    fn text_after_a_tool_result_is_not_a_tool_result_turn() {
        let body = json!({"messages": [{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t", "content": "ok"},
            {"type": "text", "text": "and now this"}
        ]}]});
        let c = Conversation::from_body(&body);
        assert_eq!(c.tool_result, None);
        assert!(When::LastIsToolResult(false).matches(&c));
    }

    #[test]
    fn last_prompt_is_the_newest_of_merged_prompts() {
        let body = json!({"messages": [{"role": "user", "content": [
            {"type": "text", "text": "<system-reminder>r</system-reminder>\n\ntrigger API_529"},
            {"type": "text", "text": "hello after errors"},
            {"type": "text", "text": "<system-reminder>late</system-reminder>"}
        ]}]});
        let c = Conversation::from_body(&body);
        assert_eq!(c.last_user_text, "trigger API_529\nhello after errors");
        assert_eq!(c.last_prompt, "hello after errors");
        assert!(When::LastUserTextContains("API_529".into()).matches(&c));
        assert!(!When::LastPromptContains("API_529".into()).matches(&c));
    }

    #[test]
    fn conversation_contains_sees_every_message_and_the_reminders() {
        let body = json!({"messages": [
            {"role": "user", "content": "Remember the number 42."},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Noted."},
                {"type": "tool_use", "id": "t", "name": "Agent", "input": {"prompt": "REVIEW"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t",
                 "content": [{"type": "text", "text": "launched"}]},
                {"type": "image", "source": {"data": "IMAGEDATA"}}
            ]},
            {"role": "user", "content": [{"type": "text", "text":
                "<system-reminder><task-notification>FINDINGS</task-notification></system-reminder>"}]}
        ]});
        let c = Conversation::from_body(&body);
        for seen in [
            "number 42",
            "Noted.",
            "\"prompt\":\"REVIEW\"",
            "launched",
            "FINDINGS",
        ] {
            assert!(
                When::ConversationContains(seen.into()).matches(&c),
                "{seen} in {}",
                c.all_text
            );
        }
        assert!(!When::ConversationContains("IMAGEDATA".into()).matches(&c));
        // The reminder is where the CLI reports a finished background task; the other
        // conditions do not see it.
        assert!(!When::LastUserTextContains("FINDINGS".into()).matches(&c));
        assert!(!When::ConversationContains("FINDINGS".into())
            .matches(&Conversation::from_body(&json!({"messages": "FINDINGS"}))));
    }

    #[test]
    fn odd_bodies_read_as_empty() {
        for body in [
            json!(null),
            json!([1, 2]),
            json!({"messages": "x", "system": 3, "tools": {}}),
        ] {
            let c = Conversation::from_body(&body);
            assert_eq!(c, Conversation::default());
            assert!(When::Always(true).matches(&c));
            assert!(!When::MaxTokensAtMost(10).matches(&c));
            assert!(!When::LastIsToolResult(true).matches(&c));
        }
    }

    #[test]
    fn combinators() {
        let c = Conversation {
            model: Some("claude-haiku-4-5".into()),
            max_tokens: Some(1),
            ..Conversation::default()
        };
        assert!(When::All(vec![]).matches(&c));
        assert!(!When::Any(vec![]).matches(&c));
        assert!(When::All(vec![
            When::ModelIs("claude-haiku-4-5".into()),
            When::MaxTokensAtMost(1),
            When::Not(Box::new(When::HasTool("Bash".into()))),
        ])
        .matches(&c));
        assert!(!When::Always(false).matches(&c));
    }
}
